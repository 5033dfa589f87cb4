#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Hitless upgrade (`xdpsteer upgrade IFACE`, docs/upgrade.md). Needs root;
# about 2 minutes; V=1 for detail.
#
#   tests/ns/test_upgrade.sh [--list | TEST...]   (default: every t_* function, in order)
#
# live: 300 long-lived TCP connections through a VIP (IPIP to two backends
#   that decapsulate and answer directly, echo servers) and 200 UDP flows on
#   two cpu targets, all the while 20 upgrades of each of the two
#   attachments. The hash seed is rotated once the flows are pinned, so about
#   half of them are pinned away from where the hash would now send them: an
#   upgrade that lost the flow table would move them. Asserted: no
#   connection reset, failed or answered by another backend; no UDP flow on
#   two CPUs, none lost; after every upgrade a new program id, counters that
#   never went down, the flow clock ticking in the new program, the old
#   program gone; at the end, the packets each attachment counted equal the
#   packets the clients sent (TCP segments out of the client's stack, UDP
#   datagrams).
# layout_refused: a build whose maps differ (tests/ns: XS_TEST_LAYOUT_* in
#   bpf/xs_maps.h, built into a directory of its own) is refused, naming the
#   maps and what differs, and nothing changes: same program, same map ids,
#   same build record.
# nothing_attached: upgrade of an interface without xdpsteer, or without
#   such an interface, fails and says why.
set -euo pipefail

XS_SUITE=upgrade
if [ -z "${XS_UPGRADE_WATCHDOG:-}" ]; then
	export XS_UPGRADE_WATCHDOG=1
	exec timeout -k 20 "${XS_UPGRADE_TIMEOUT:-300}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
HOLD=$XS_TOP/tests/ns/churn_hold.py
UDPC=$XS_TOP/tests/ns/churn_udp.py
PASS_SRC=$XS_TOP/tests/ns/xdp_pass.bpf.c

# This suite's names ("up" prefix), for lib.sh's UDP testbed and its
# dsr_testbed (the TCP testbed, as test_churn.sh's with two backends) too.
R=$RUN_ID
NS_STEER=ups-$R
NS_CLIENT=upc-$R
IF_STEER=upa$R
IF_CLIENT=upb$R
NS_SW=upw-$R
NS_CL=upk-$R
NS_LB=upl-$R
IF_CL=uk$R
IF_LB=ul$R
BES=(1 2)
be_ns() { echo "up$1-$R"; }
be_if() { echo "ue$1$R"; }

SEG4=198.18.3
CL4=$SEG4.2
# shellcheck disable=SC2034 # (dsr_testbed reads it, as ${LB}4)
LB4=$SEG4.10
be4() { echo "$SEG4.10$1"; }
VIPNET4=198.19.3.0/24
VIP=198.19.3.1
PORT=8080
SVC="$VIP:$PORT/tcp"
MTU_CLIENT=1500
MTU_DC=1600

N_TCP=300
N_UDP=200
N_UPGRADES=20
UDP_GAP=0.075
FLOW_TABLE=16384
SEED_A=5eed000000000000000000000000a001
SEED_B=5eed000000000000000000000000b002

T=""

# ---- helpers ----------------------------------------------------------------

lb() { xs_in "$NS_LB" "$@"; }

# prog_id NS IFACE: the running program's id, as status says.
prog_id() { xs_in "$1" status "$2" --json | pyx 'd[0]["prog_id"]' /dev/stdin; }

# clock_now PROG_ID: xs_now in that program's .bss, as bpftool prints it.
clock_now() {
	"$PYTHON" -c 'import json, subprocess, sys
bt = lambda *a: json.loads(subprocess.check_output([sys.argv[1], "-j", *a]))
ids = set(bt("prog", "show", "id", sys.argv[2])["map_ids"])
bss = [m["id"] for m in bt("map", "show") if m["id"] in ids and m.get("name", "").endswith(".bss")]
e = bt("map", "dump", "id", str(bss[0]))[0]
print(e.get("formatted", e)["value"][".bss"][0]["xs_now"])' "$BPFTOOL" "$1"
}

# counters_of NS IFACE: every counter of `stats --json` that may only grow, flat.
counters_of() {
	xs_in "$1" stats "$2" --json | pyx '{**{"c." + k: v for k, v in d["counters"].items()}, **{"t.%s.%s" % (t["id"], f): t[f] for t in d["targets"] for f in ("packets", "bytes", "dequeued")}, **{"b.%s.%s" % (b["backend"], f): b[f] for s in d["services"] for b in s["backends"] for f in ("packets", "bytes", "flows_opened")}, **{"s.%s.packets" % s["service"]: s["packets"] for s in d["services"]}}' /dev/stdin
}

# tcp_out_segs: TCP segments the client's stack has sent (retransmissions included).
tcp_out_segs() {
	nsenter --net=/run/netns/"$NS_CL" -- cat /proc/net/snmp |
		awk '$1 == "Tcp:" && !h { for (i = 2; i <= NF; i++) n[$i] = i; h = 1; next }
		     $1 == "Tcp:" { print $n["OutSegs"] }'
}

conf_file() {
	local f=$T.$1.conf
	shift
	printf '%s\n' "$@" >"$f"
	chmod 644 "$f"
	echo "$f"
}

# ---- 1. 300 TCP connections and 200 UDP flows through 20 upgrades -------------

t_live() {
	local i a b id_lb id_udp ids_lb ids_udp c0 c1 down
	T=$XS_TMP/live
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED_A" --flow-table-size "$FLOW_TABLE" --pin-rate 0 >/dev/null
	lb apply "$IF_LB" -f "$(conf_file lb "service $SVC" "backend $SVC $(be4 1)" "backend $SVC $(be4 2)")" >/dev/null
	attach --seed "$SEED_A" --flow-table-size "$FLOW_TABLE" --pin-rate 0 >/dev/null
	xs apply "$IF_STEER" -f "$(conf_file udp "algo jump" "target cpu 0 qsize 2048" "target cpu 1 qsize 2048")" >/dev/null

	for i in "${BES[@]}"; do
		rm -f "$T.ready$i"
		bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$LBT" serve --id "$(be4 "$i")" --bind "$VIP" --port "$PORT" \
			--ready "$T.ready$i" --max-seconds 240
	done
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
	rm -f "$T.stop"
	bg_start URECV nsenter --net=/run/netns/"$NS_STEER" -- "$PYTHON" "$UDPC" recv --src "$CLIENT_IP" \
		--sports "20000-$((20000 + N_UDP - 1))" --bind "$STEER_IP" --port "$DPORT" --ready "$T.uready" \
		--stop-file "$T.stop" --max-seconds 240 --out "$T.recv.json"
	wait_file "$T.uready" 30

	# The baselines, with nothing in flight.
	lb stats "$IF_LB" --json >"$T.lb0.json"
	xs stats "$IF_STEER" --json >"$T.udp0.json"
	local segs0
	segs0=$(tcp_out_segs)

	bg_start HOLD nsenter --net=/run/netns/"$NS_CL" -- "$PYTHON" "$HOLD" --src "$CL4" \
		--sports "20000-$((20000 + N_TCP - 1))" --vip "$VIP" --port "$PORT" --seed "$R" --stall 3 \
		--ready "$T.hold.ready" --stop-file "$T.stop" --max-seconds 200 --out "$T.hold.json"
	# One flow per port for the whole run: a lifetime longer than the run.
	bg_start USEND nsenter --net=/run/netns/"$NS_CLIENT" -- "$PYTHON" "$UDPC" send --src "$CLIENT_IP" \
		--sports "20000-$((20000 + N_UDP - 1))" --dst "$STEER_IP" --dport "$DPORT" --flows "$N_UDP" \
		--lifetime 100000 --gap "$UDP_GAP" --stop-file "$T.stop" --max-seconds 200 --out "$T.sent.json"
	wait_file "$T.hold.ready" 60
	assert_eq "connections open, first echo checked" "$(pyx 'len(d)' "$T.hold.ready")" "$N_TCP"
	sleep 1
	assert_eq "TCP flows pinned" "$(lb stats "$IF_LB" --json | pyx 'sum(b["pinned"] for b in d["services"][0]["backends"])' /dev/stdin)" "$N_TCP"
	assert_eq "UDP flows pinned" "$(xs stats "$IF_STEER" --json | pyx 'sum(t["pinned"] for t in d["targets"])' /dev/stdin)" "$N_UDP"
	# New hash key: pinned flows stay where they are; only the pins say where.
	lb seed "$IF_LB" "$SEED_B" >/dev/null
	xs seed "$IF_STEER" "$SEED_B" >/dev/null

	id_lb=$(prog_id "$NS_LB" "$IF_LB")
	id_udp=$(prog_id "$NS_STEER" "$IF_STEER")
	ids_lb=$id_lb ids_udp=$id_udp
	counters_of "$NS_LB" "$IF_LB" >"$T.lbc.prev"
	counters_of "$NS_STEER" "$IF_STEER" >"$T.udpc.prev"
	for ((i = 1; i <= N_UPGRADES; i++)); do
		lb upgrade "$IF_LB" >/dev/null
		xs upgrade "$IF_STEER" >/dev/null
		a=$(prog_id "$NS_LB" "$IF_LB")
		b=$(prog_id "$NS_STEER" "$IF_STEER")
		assert_ne "upgrade $i: $IF_LB's program id" "$a" "$id_lb"
		assert_ne "upgrade $i: $IF_STEER's program id" "$b" "$id_udp"
		# The old program is gone: nothing (a timer, a redirect entry, a link) holds it.
		"$BPFTOOL" prog show id "$id_lb" >/dev/null 2>&1 && fail "upgrade $i: old program $id_lb still loaded"
		"$BPFTOOL" prog show id "$id_udp" >/dev/null 2>&1 && fail "upgrade $i: old program $id_udp still loaded"
		id_lb=$a id_udp=$b ids_lb+=" $a" ids_udp+=" $b"
		c0=$(clock_now "$id_lb")
		sleep 0.5
		c1=$(clock_now "$id_lb")
		assert_true "upgrade $i: the flow clock ticks in the new program ($c0 -> $c1)" "$(pyx "$c1 > $c0")"
		counters_of "$NS_LB" "$IF_LB" >"$T.lbc.now"
		counters_of "$NS_STEER" "$IF_STEER" >"$T.udpc.now"
		down=$(pyx '{k: (v, d1.get(k)) for k, v in d0.items() if d1.get(k, -1) < v}' "$T.lbc.prev" "$T.lbc.now")
		assert_eq "upgrade $i: $IF_LB counters that went down or vanished" "$down" "{}"
		down=$(pyx '{k: (v, d1.get(k)) for k, v in d0.items() if d1.get(k, -1) < v}' "$T.udpc.prev" "$T.udpc.now")
		assert_eq "upgrade $i: $IF_STEER counters that went down or vanished" "$down" "{}"
		mv "$T.lbc.now" "$T.lbc.prev"
		mv "$T.udpc.now" "$T.udpc.prev"
	done
	touch "$T.stop"
	wait "$BG_HOLD" || fail "churn_hold.py failed"
	wait "$BG_USEND" || fail "churn_udp.py send failed"
	wait "$BG_URECV" || fail "churn_udp.py recv failed"
	sleep 1
	lb stats "$IF_LB" --json >"$T.lb1.json"
	xs stats "$IF_STEER" --json >"$T.udp1.json"
	echo '{"removals": []}' >"$T.drive.json"
	"$PYTHON" "$UDPC" analyze --recv "$T.recv.json" --sent "$T.sent.json" --drive "$T.drive.json" \
		--out "$T.an.json"

	# -- upgrades and the build record
	assert_eq "distinct program ids on $IF_LB (attach + upgrades)" \
		"$(tr ' ' '\n' <<<"$ids_lb" | sort -u | wc -l)" "$((N_UPGRADES + 1))"
	assert_eq "distinct program ids on $IF_STEER (attach + upgrades)" \
		"$(tr ' ' '\n' <<<"$ids_udp" | sort -u | wc -l)" "$((N_UPGRADES + 1))"
	assert_eq "upgrades in $IF_LB's build record" \
		"$(lb status "$IF_LB" --json | pyx 'd[0]["upgrades"]' /dev/stdin)" "$N_UPGRADES"
	assert_eq "the version in the build record" \
		"$(lb status "$IF_LB" --json | pyx 'd[0]["version"]' /dev/stdin)" \
		"$("$XS" version --json | pyx 'd["version"]' /dev/stdin)"

	# -- TCP: no connection reset, failed or moved
	local h=$T.hold.json
	pyx '{k: len(v) if k == "failed" else v for k, v in d.items() if k != "flows"}' "$h"
	assert_eq "connections failed (reset, closed, wrong bytes or another backend; first 10)" \
		"$(pyx 'dict(sorted(d["failed"].items())[:10])' "$h")" "{}"
	assert_eq "connections open at the end" "$(pyx 'd["open_at_end"]' "$h")" "$N_TCP"
	assert_eq "stalls (a reply later than 3 s)" "$(pyx 'd["stalls"]' "$h")" 0
	local moved
	moved=$(pyx "sum(d1['flows']['$CL4:%s' % p]['backend'] != b for p, b in d0.items())" "$T.hold.ready" "$h")
	assert_eq "connections answered at the end by another backend than at the start" "$moved" 0
	assert_eq "connections per backend at the end = at the start" \
		"$(pyx 'd["per_backend"]' "$h")" \
		"$(pyx '{b: sum(v == b for v in d.values()) for b in sorted(set(d.values()))}' "$T.hold.ready")"
	assert_eq "TCP pins per backend at the end = connections per backend" \
		"$(pyx '{b["backend"]: b["pinned"] for b in d["services"][0]["backends"]}' "$T.lb1.json")" \
		"$(pyx '{b: sum(v == b for v in d.values()) for b in sorted(set(d.values()))}' "$T.hold.ready")"

	# -- UDP: no flow on two CPUs, none lost
	local an=$T.an.json
	pyx d "$an"
	assert_eq "UDP flows received" "$(pyx 'd["flows"]' "$an")" "$N_UDP"
	assert_eq "UDP flows that changed CPU (first 10)" "$(pyx 'd["illegal_moves"]' "$an")" "[]"
	assert_eq "UDP datagrams lost" "$(pyx 'd["lost"]' "$an")" 0
	assert_eq "UDP datagrams no flow socket took" "$(pyx 'd["strays"]' "$an")" 0
	assert_true "most datagrams placed exactly (>= 90%)" "$(pyx 'd["exact"] >= 0.9 * d["datagrams"]' "$an")"
	assert_true "both CPUs carried flows" "$(pyx 'd["flows_per_cpu"].get("0", 0) > 0 and d["flows_per_cpu"].get("1", 0) > 0' "$an")"

	# -- counters: every packet sent was counted once, across all the upgrades
	local segs1 tcp_sent tcp_counted udp_counted
	segs1=$(tcp_out_segs)
	tcp_sent=$((segs1 - segs0))
	tcp_counted=$(pyx 'sum(b["packets"] for b in d1["services"][0]["backends"]) - sum(b["packets"] for s in d0["services"] for b in s["backends"])' "$T.lb0.json" "$T.lb1.json")
	assert_eq "TCP packets $IF_LB counted = segments the client sent" "$tcp_counted" "$tcp_sent"
	assert_eq "service packets = the sum over its backends" \
		"$(pyx 'd["services"][0]["packets"]' "$T.lb1.json")" \
		"$(pyx 'sum(b["packets"] for b in d["services"][0]["backends"])' "$T.lb1.json")"
	udp_counted=$(pyx 'sum(t["packets"] for t in d1["targets"]) - sum(t["packets"] for t in d0["targets"])' "$T.udp0.json" "$T.udp1.json")
	assert_eq "UDP packets $IF_STEER counted = datagrams sent" "$udp_counted" "$(pyx 'd["datagrams"]' "$T.sent.json")"
	assert_eq "UDP packets dequeued on the cpu targets = steered to them" \
		"$(pyx 'sum(t["dequeued"] for t in d["targets"])' "$T.udp1.json")" \
		"$(pyx 'sum(t["packets"] for t in d["targets"])' "$T.udp1.json")"
	assert_eq "error counters that moved" \
		"$(pyx '{k: v for k, v in d["counters"].items() if k in ("no_targets", "target_gone", "redirect_error", "pin_rate_limited", "no_backend", "fib_fail", "encap_error") and v}' "$T.lb1.json")" "{}"

	pyx '"summary: %d upgrades of each attachment; %d TCP connections held %.1f s: %d failed or reset, %d moved, %d stalls, %d messages echoed" % ('"$N_UPGRADES"', d["connections"], d["held_seconds"], len(d["failed"]), '"$moved"', d["stalls"], d["messages"])' "$h"
	pyx '"summary: %d UDP flows, %d datagrams: %d lost, %d flows moved to another CPU" % (d["flows"], d["datagrams"], d["lost"], d["two_cpu_flows"])' "$an"
	echo "summary: packets counted = packets sent: TCP $tcp_counted of $tcp_sent, UDP $udp_counted of $(pyx 'd["datagrams"]' "$T.sent.json"); no counter went down"
}

# ---- 2. a build with other map layouts is refused ------------------------------

# pins_ids IFACE: every pin of the attachment with the id of what it holds.
pins_ids() {
	local p
	for p in "$(pin_dir "$NS_STEER" "$1")"/*; do
		case ${p##*/} in
		prog_*) echo "${p##*/} $("$BPFTOOL" -j prog show pinned "$p" | pyx 'd["id"]' /dev/stdin)" ;;
		link_*) echo "${p##*/} $("$BPFTOOL" -j link show pinned "$p" | pyx 'd["id"]' /dev/stdin)" ;;
		*) echo "${p##*/} $("$BPFTOOL" -j map show pinned "$p" | pyx 'd["id"]' /dev/stdin)" ;;
		esac
	done
}

t_layout_refused() {
	local out rc=0
	T=$XS_TMP/layout
	[ -x "$XS_TMP/layout/xdpsteer" ] || fail "the layout-changed build is missing"
	attach --seed "$SEED_A" >/dev/null
	xs apply "$IF_STEER" -f "$(conf_file l "target cpu 0")" >/dev/null
	pins_ids "$IF_STEER" >"$T.before"
	xs status "$IF_STEER" --json >"$T.status0"
	out=$(run_in "$NS_STEER" "$XS_TMP/layout/xdpsteer" upgrade "$IF_STEER" 2>&1) || rc=$?
	echo "$out"
	assert_eq "exit status" "$rc" 1
	grep -q "map xs_clock: the value type changed layout" <<<"$out" ||
		fail "the message does not name xs_clock's value layout"
	grep -q "map xs_tx_ports: max_entries differs: the running attachment has 64, this build 128" <<<"$out" ||
		fail "the message does not name xs_tx_ports' size"
	grep -q "upgrade refused, nothing changed" <<<"$out" || fail "the message does not say nothing changed"
	pins_ids "$IF_STEER" >"$T.after"
	assert_eq "pins and the ids they hold" "$(diff "$T.before" "$T.after" && echo same)" same
	assert_eq "status" "$(xs status "$IF_STEER" --json)" "$(cat "$T.status0")"
	# The same upgrade with this build goes through.
	xs upgrade "$IF_STEER"
}

# An attachment made by a build without the trace maps: their pins are gone,
# as they never existed there. The upgrade creates them empty; a missing map
# that holds state (xs_tx_ports) still refuses it.
t_new_maps_created() {
	local out rc=0 d m
	attach --seed "$SEED_A" >/dev/null
	xs apply "$IF_STEER" -f "$(conf_file n "target cpu 0")" >/dev/null
	d=$(pin_dir "$NS_STEER" "$IF_STEER")
	for m in xs_trace_filter xs_trace_ring xs_trace_scratch; do
		rm "$d/$m" || fail "no pin $m to remove"
	done
	out=$(xs upgrade "$IF_STEER" -v 2>&1) || rc=$?
	echo "$out"
	assert_eq "upgrade exit status" "$rc" 0
	grep -q "map xs_trace_ring is new in this build: the upgrade creates it" <<<"$out" ||
		fail "the upgrade (-v) does not say it creates the trace maps"
	for m in xs_trace_filter xs_trace_ring xs_trace_scratch; do
		[ -e "$d/$m" ] || fail "the upgrade did not pin $m"
	done
	xs status "$IF_STEER" | grep -q "1 upgrade," || fail "status does not count the upgrade"
	rm "$d/xs_tx_ports"
	rc=0
	out=$(xs upgrade "$IF_STEER" 2>&1) || rc=$?
	echo "$out"
	assert_eq "upgrade without xs_tx_ports: exit status" "$rc" 1
	grep -q "map xs_tx_ports: this build has it, the running attachment has not" <<<"$out" ||
		fail "a missing stateful map is not named"
}

# ---- 3. nothing to upgrade ----------------------------------------------------

t_nothing_attached() {
	xs_detach_quiet "$NS_STEER" "$IF_STEER"
	expect_error "upgrade without an attachment" "is not attached to $IF_STEER" xs upgrade "$IF_STEER"
	expect_error "upgrade of no such interface" "not found" xs upgrade "${IF_STEER}x"
	[ ! -e "$(pin_dir "$NS_STEER" "$IF_STEER")" ] || fail "the failed upgrade left pins"
}

# ---------------------------------------------------------------------------
main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	decap_preflight
	setup_testbed || fatal "$XS_SUITE" "cannot build the UDP testbed (veth, netns)"
	clang -O2 -g -target bpf -c "$PASS_SRC" -o "$XS_TMP/pass.o" ||
		fatal "$XS_SUITE" "cannot compile $PASS_SRC"
	dsr_testbed --decap "$XS_TMP/pass.o" LB || fatal "$XS_SUITE" "cannot build the TCP testbed (bridge, veth, netns, decap)"
	# The layout-changed build: the same sources, two map definitions changed.
	if [[ " ${NS_TESTS[*]} " == *" layout_refused "* ]]; then
		make -s -C "$XS_TOP" BUILD="$XS_TMP/layout" \
			XS_DEFS="-DXS_TEST_LAYOUT_REORDER -DXS_TEST_LAYOUT_SIZE" "$XS_TMP/layout/xdpsteer" \
			>"$XS_TMP/layout.build.log" 2>&1 ||
			{ cat "$XS_TMP/layout.build.log"; fatal "$XS_SUITE" "cannot build the layout-changed xdpsteer"; }
	fi
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
		if [ "$V" != 1 ]; then
			grep -h '^summary:' "$XS_TMP/$t.log" | sed 's/^/    /' || true
		fi
	done
	finish "$XS_SUITE"
}

[ "${XS_UPGRADE_NO_MAIN:-}" = 1 ] || main "$@"
