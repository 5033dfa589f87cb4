#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# GUE delivery (--encap gue), real TCP end to end. Needs root; V=1 for detail.
#
#   tests/ns/test_gue.sh [--list | TEST...]   (default: every t_* function, in order)
#
# gue_tcp: TCP connections to a VIP through load balancer A, GUE to backends
#   that run `xdpsteer decap` with the VIP on their loopback and answer the
#   client directly; every byte echoed, every connection's packets counted as
#   GUE by its backend's decap program (and none as ipip), on a port other
#   than the default, set on both sides.
# gue_port_mismatch: the same with the backends' decap on another port: the
#   decap program leaves the UDP alone, so no connection opens.
# second_chance_on: load balancers A and B with the same configuration
#   (backends 1, 2; second chance on); 300 long-lived connections opened
#   through A; then, within one second, both add backends 3 and 4 and remove
#   2 (one apply each) and the client's route moves to B. Every byte echoed,
#   no connection reset. New connections land where B's lookup says (its
#   first hop); ACKs for connections that exist on neither hop are delivered
#   by the last hop, counted, and no packet is sent on twice: every packet
#   sent on arrives at a last hop once, and the load balancers only send
#   `next` 0.
# second_chance_off: the same run with second chance off: the connections
#   that B places elsewhere are reset (the figure is printed).
# stateless_second_chance: the second_chance_on run with both load balancers
#   attached with --flow-table-size 0: no flow pins, every packet decided
#   afresh by the consistent hash (GLB Director's design: no state on the
#   load balancer). Second chance alone keeps the connections: none reset,
#   every byte echoed, packets sent on to a second hop, and neither A nor B
#   counts a new pin (flow_new 0; second_chance_on's A counts one per
#   connection).
#
# Testbed (names carry RUN_ID, so suites never clash):
#
#        $NS_CL (client)   $NS_LA (lb A)   $NS_LB (lb B)
#              |                 |               |
#   $NS_SW: ---+----- br0 -------+-------+-------+------+------+
#                                        |       |      |      |
#                                     be 1    be 2   be 3   be 4   (VIP on lo, decap)
set -euo pipefail

XS_SUITE=gue
if [ -z "${XS_GUE_WATCHDOG:-}" ]; then
	export XS_GUE_WATCHDOG=1
	exec timeout -k 20 "${XS_GUE_TIMEOUT:-300}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
HOLD=$XS_TOP/tests/ns/churn_hold.py
ACK=$XS_TOP/tests/ns/gue_ack.py
PASS_SRC=$XS_TOP/tests/ns/xdp_pass.bpf.c

R=$RUN_ID
NS_SW=gusw-$R
NS_CL=gucl-$R
NS_LA=gula-$R
NS_LB=gulb-$R
IF_CL=guc$R
IF_LA=gul$R
IF_LB=gum$R
BES=(1 2 3 4)
be_ns() { echo "gub$1-$R"; }
be_if() { echo "gu$1$R"; }

# RFC 2544 benchmarking range, inside our namespaces only.
SEG4=198.18.4
CL4=$SEG4.2
LA4=$SEG4.10
LB4=$SEG4.11
be4() { echo "$SEG4.10$1"; }
VIPNET4=198.19.4.0/24
VIP=198.19.4.1
PORT=8080
SVC="$VIP:$PORT/tcp"
# GUE adds 32 bytes over IPv4: the data-centre links are larger than the client's.
MTU_CLIENT=1500
MTU_DC=1600
SEED=5eed000000000000000000000000e015
GUE_PORT=6080
N_HOLD=300

T=""

setup_gue_testbed() {
	local i ns
	# Client, load balancers A and B (the VIPs routed via A), backends with
	# the VIP (the decap program attaches per test).
	dsr_testbed "$XS_TMP/pass.o" LA LB || return 1
	# The backends forward too: second chance sends on, with XDP_TX once the
	# next hop's neighbour is known (so their bridge ports run XDP too),
	# through the stack before.
	for i in "${BES[@]}"; do
		ns=$(be_ns "$i")
		run_in "$ns" sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv4.conf.all.send_redirects=0 \
			"net.ipv4.conf.$(be_if "$i").send_redirects=0" || return 1
		bridge_port_xdp "$(be_if "$i")" "$XS_TMP/pass.o" || return 1
	done
}

la() { xs_in "$NS_LA" "$@"; }

# decaps [ARGS...]: the decap program on every backend, with ARGS.
decaps() {
	local i
	for i in "${BES[@]}"; do
		decap_detach_quiet "$(be_ns "$i")" "$(be_if "$i")"
		decap_attach_in "$(be_ns "$i")" "$(be_if "$i")" "$@" >/dev/null || return 1
	done
}

# decap_all: every decap counter summed over the backends, as one JSON object.
decap_all() {
	local i
	for i in "${BES[@]}"; do
		xs_in "$(be_ns "$i")" decap stats "$(be_if "$i")" --json
		echo
	done | "$PYTHON" -c 'import json, sys
tot = {}
for line in sys.stdin:
    if line.strip():
        for k, v in json.loads(line)["counters"].items():
            tot[k] = tot.get(k, 0) + v
print(json.dumps(tot, sort_keys=True))'
}
# decap_sum COUNTER: COUNTER summed over the backends' decap programs.
decap_sum() {
	decap_all | pyx "d[\"$1\"]" -
}

# servers: one echo server per backend on VIP:$PORT, naming itself by its address.
servers() {
	local i
	for i in "${BES[@]}"; do
		rm -f "$T.ready$i"
		bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$LBT" serve --id "$(be4 "$i")" --bind "$VIP" --port "$PORT" \
			--ready "$T.ready$i" --max-seconds 400
	done
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
}

# lb_start NS IFACE: xdpsteer on a load balancer, service $SVC with GUE and backends 1, 2.
lb_start() {
	xs_detach_quiet "$1" "$2"
	attach_in "$1" "$2" --seed "$SEED" --gue-port "$GUE_PORT" >/dev/null
	xs_in "$1" service add "$2" "$SVC" --encap gue >/dev/null
	xs_in "$1" backend add "$2" "$SVC" "$(be4 1)" >/dev/null
	xs_in "$1" backend add "$2" "$SVC" "$(be4 2)" >/dev/null
}

t_gue_tcp() {
	local gue0 ipip0 gue1
	T=$XS_TMP/gue_tcp
	decaps --gue-port "$GUE_PORT"
	lb_start "$NS_LA" "$IF_LA"
	servers
	gue0=$(decap_sum gue)
	ipip0=$(decap_sum ipip)
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$CL4" --sports 20000-20059 --vip "$VIP" \
		--port "$PORT" --out "$T.conn.json"
	assert_eq "connections whose every byte came back" "$(pyx 'd["ok"]' "$T.conn.json")" 60
	assert_eq "backends that answered" \
		"$(pyx 'sorted(set(f["backend"] for f in d["flows"].values()))' "$T.conn.json")" \
		"[\"$(be4 1)\", \"$(be4 2)\"]"
	gue1=$(decap_sum gue)
	# A connection is at least 4 client packets: SYN, the request, ACKs, FIN or RST.
	assert_true "GUE packets decapsulated: $((gue1 - gue0)) >= 240" "$([ $((gue1 - gue0)) -ge 240 ] && echo true)"
	assert_eq "ipip packets decapsulated" "$(decap_sum ipip)" "$ipip0"
	pyx '"summary: %d connections, %d bytes checked, %d GUE packets decapsulated" % (d["ok"], d["bytes_checked"], '"$((gue1 - gue0))"')' "$T.conn.json"
}

t_gue_port_mismatch() {
	T=$XS_TMP/gue_mismatch
	decaps --gue-port $((GUE_PORT + 1))
	lb_start "$NS_LA" "$IF_LA"
	servers
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$CL4" --sports 20100-20104 --vip "$VIP" \
		--port "$PORT" --timeout 2 --out "$T.conn.json" || true
	assert_eq "connections through a decap on another port" "$(pyx 'd["ok"]' "$T.conn.json")" 0
	assert_true "the decap programs saw UDP that is not their GUE" \
		"$([ "$(decap_sum not_tunnel)" -gt 0 ] && echo true)"
}

# conf_file NAME LINES...: a configuration file, not world-writable.
conf_file() {
	local f=$T.$1.conf
	shift
	printf '%s\n' "$@" >"$f"
	chmod 644 "$f"
	echo "$f"
}

# decap_hops: the second-chance counters (and gue) summed over the backends, as JSON.
decap_hops() {
	decap_all | pyx '{k: v for k, v in d.items() if k.startswith(("hop_", "last_hop")) or k == "gue"}' -
}

# [SWITCH_TAG=TAG] switch_run on|off [ATTACH_ARGS...]: the run the second_chance
# tests make (see the top), ATTACH_ARGS given to both load balancers' attach;
# files under $XS_TMP/switch_on|off[_TAG]. Ends with both load balancers'
# stats in $T.stats_a.json and $T.stats_b.json.
switch_run() {
	local sc=$1 t0 start change pa pb
	shift
	T=$XS_TMP/switch_$sc${SWITCH_TAG:+_$SWITCH_TAG}
	decaps --gue-port "$GUE_PORT"
	start=$(conf_file start "service $SVC encap gue second-chance $sc" \
		"backend $SVC $(be4 1)" "backend $SVC $(be4 2)")
	change=$(conf_file change "service $SVC encap gue second-chance $sc" \
		"backend $SVC $(be4 1)" "backend $SVC $(be4 3)" "backend $SVC $(be4 4)")
	for lb in "$NS_LA $IF_LA" "$NS_LB $IF_LB"; do
		read -r ns ifc <<<"$lb"
		xs_detach_quiet "$ns" "$ifc"
		attach_in "$ns" "$ifc" --seed "$SEED" --gue-port "$GUE_PORT" "$@" >/dev/null
		xs_in "$ns" apply "$ifc" -f "$start" >/dev/null
	done
	t0=$(date +%s)
	ip -n "$NS_CL" route replace "$VIPNET4" via "$LA4"
	servers
	bg_start HOLD nsenter --net=/run/netns/"$NS_CL" -- "$PYTHON" "$HOLD" --src "$CL4" \
		--sports "30000-$((30000 + N_HOLD - 1))" --vip "$VIP" --port "$PORT" --seed "$R" \
		--stall 3 --ready "$T.ready" --stop-file "$T.stop" --max-seconds 120 --out "$T.hold.json"
	wait_file "$T.ready" 60
	assert_eq "long-lived connections open through A" "$(pyx 'len(d)' "$T.ready")" "$N_HOLD"
	pyx '"on the backends before: %s" % {b: sum(v == b for v in d.values()) for b in sorted(set(d.values()))}' "$T.ready"
	# The change must not fall into the setup's burst (XS_CHANCE_BURST_S).
	while [ $(($(date +%s) - t0)) -lt 7 ]; do sleep 0.5; done
	decap_hops >"$T.c0.json"

	# One second: both load balancers change, and the client moves to B.
	xs_in "$NS_LA" apply "$IF_LA" -f "$change" >"$T.apply_a" &
	pa=$!
	xs_in "$NS_LB" apply "$IF_LB" -f "$change" >"$T.apply_b" &
	pb=$!
	ip -n "$NS_CL" route replace "$VIPNET4" via "$LB4"
	wait "$pa" && wait "$pb" || fail "apply on a load balancer failed: $(cat "$T.apply_a" "$T.apply_b")"
	sleep 8
	touch "$T.stop"
	wait "$BG_HOLD" || fail "churn_hold.py failed"
	sleep 1
	decap_hops >"$T.c1.json"
	xs_in "$NS_LA" stats "$IF_LA" --json >"$T.stats_a.json"
	xs_in "$NS_LB" stats "$IF_LB" --json >"$T.stats_b.json"
	pyx '"hop counters in the run: %s" % {k: d1[k] - d0[k] for k in d0}' "$T.c0.json" "$T.c1.json"
	pyx '"flow table (attach%s): A flow_new %d flow_hit %d, B flow_new %d flow_hit %d" % ("'"${*:+ $*}"'", d0["counters"]["flow_new"], d0["counters"]["flow_hit"], d1["counters"]["flow_new"], d1["counters"]["flow_hit"])' "$T.stats_a.json" "$T.stats_b.json"
	pyx '"summary: second chance %s: %d of %d connections open at the end, %d reset or failed, %d messages, %d bytes verified, %d stalls, per backend %s" % ("'"$sc${*:+ (attach $*)}"'", d["open_at_end"], d["connections"], len(d["failed"]), d["messages"], d["bytes_verified"], d["stalls"], d["per_backend"])' "$T.hold.json"
	# An error reads "message N: KIND: text": count by KIND (ConnectionResetError: a reset).
	pyx '"summary: failures by kind: %s" % {k: sum(1 for e in d["failed"].values() if e.split(": ")[1] == k) for k in set(e.split(": ")[1] for e in d["failed"].values())}' "$T.hold.json"
}

t_second_chance_on() {
	local sport ports=()
	switch_run on
	T=$XS_TMP/switch_on
	assert_eq "connections reset or failed" "$(pyx 'len(d["failed"])' "$T.hold.json")" 0
	assert_eq "connections open at the end, every byte checked" \
		"$(pyx 'd["open_at_end"]' "$T.hold.json")" "$N_HOLD"
	assert_true "packets were sent on to the second hop" \
		"$(pyx '(d1["hop_forwarded"] + d1["hop_forwarded_stack"]) - (d0["hop_forwarded"] + d0["hop_forwarded_stack"]) > 0' "$T.c0.json" "$T.c1.json")"
	# With the flow table on, A pins the connections (stateless_second_chance: none).
	assert_true "A pinned the connections: flow_new $(pyx 'd["counters"]["flow_new"]' "$T.stats_a.json") >= $N_HOLD" \
		"$(pyx 'd["counters"]["flow_new"] >= '"$N_HOLD" "$T.stats_a.json")"

	# New connections through B land on B's first hop.
	run_in "$NS_CL" "$PYTHON" "$LBT" predict --ns "$NS_LB" --iface "$IF_LB" --xs "$XS" \
		--src "$CL4" --sports 31000-31049 --dst "$VIP" --dport "$PORT" --out "$T.predict.json"
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$CL4" --sports 31000-31049 --vip "$VIP" \
		--port "$PORT" --out "$T.new.json"
	assert_eq "new connections whose every byte came back" "$(pyx 'd["ok"]' "$T.new.json")" 50
	assert_eq "new connections on another backend than B's first hop" \
		"$(pyx '[f for f, r in d0["flows"].items() if r["backend"] != d1[f]["backend"]]' "$T.new.json" "$T.predict.json")" "[]"
	assert_eq "new connections on removed backend 2" \
		"$(pyx 'sum(r["backend"] == "'"$(be4 2)"'" for r in d["flows"].values())' "$T.new.json")" 0

	# ACKs for connections on neither hop: flows B gives two hops.
	mapfile -t ports < <(for sport in $(seq 32000 32079); do
		printf '%s ' "$sport"
		xs_in "$NS_LB" lookup "$IF_LB" tcp "$CL4:$sport" "$VIP:$PORT" --json
		echo
	done | "$PYTHON" -c 'import json, sys
for line in sys.stdin:
    port, _, doc = line.partition(" ")
    if doc.strip() and len(json.loads(doc).get("hops", [])) == 2:
        print(port)')
	echo "flows with two hops among 80: ${#ports[@]}"
	[ "${#ports[@]}" -ge 5 ] || fail "too few two-hop flows to test with: ${#ports[@]}"
	decap_hops >"$T.c2.json"
	run_in "$NS_CL" "$PYTHON" "$ACK" --src "$CL4" --vip "$VIP" --port "$PORT" "${ports[@]}"
	sleep 1
	decap_hops >"$T.c3.json"
	assert_eq "ACKs on neither hop delivered by the last hop without a socket" \
		"$(pyx 'd1["last_hop_no_socket"] - d0["last_hop_no_socket"]' "$T.c2.json" "$T.c3.json")" \
		"${#ports[@]}"
	assert_eq "ACKs sent on" \
		"$(pyx '(d1["hop_forwarded"] + d1["hop_forwarded_stack"]) - (d0["hop_forwarded"] + d0["hop_forwarded_stack"])' "$T.c2.json" "$T.c3.json")" \
		"${#ports[@]}"
	# Over everything since the decap programs were attached: each packet sent
	# on arrived at a last hop once, and no last hop sent one on.
	assert_eq "packets sent on = packets that arrived at a last hop" \
		"$(pyx 'd["hop_forwarded"] + d["hop_forwarded_stack"]' "$T.c3.json")" \
		"$(pyx 'd["last_hop"] + d["last_hop_no_socket"]' "$T.c3.json")"
	pyx '"summary: %d packets sent on (%d by XDP, %d through the stack), %d at a last hop (%d without a socket)" % (d["hop_forwarded"] + d["hop_forwarded_stack"], d["hop_forwarded"], d["hop_forwarded_stack"], d["last_hop"] + d["last_hop_no_socket"], d["last_hop_no_socket"])' "$T.c3.json"
}

t_second_chance_off() {
	switch_run off
	T=$XS_TMP/switch_off
	assert_true "connections were reset without second chance" \
		"$(pyx 'len(d["failed"]) > 0' "$T.hold.json")"
	assert_eq "packets sent on without second chance" \
		"$(pyx 'd1["hop_forwarded"] + d1["hop_forwarded_stack"] - d0["hop_forwarded"] - d0["hop_forwarded_stack"]' "$T.c0.json" "$T.c1.json")" 0
}

t_stateless_second_chance() {
	# switch_run leaves T at $XS_TMP/switch_on_stateless.
	SWITCH_TAG=stateless switch_run on --flow-table-size 0
	assert_eq "connections reset or failed" "$(pyx 'len(d["failed"])' "$T.hold.json")" 0
	assert_eq "connections open at the end, every byte checked" \
		"$(pyx 'd["open_at_end"]' "$T.hold.json")" "$N_HOLD"
	assert_true "packets were sent on to the second hop" \
		"$(pyx '(d1["hop_forwarded"] + d1["hop_forwarded_stack"]) - (d0["hop_forwarded"] + d0["hop_forwarded_stack"]) > 0' "$T.c0.json" "$T.c1.json")"
	# No state on either load balancer: not one flow pinned, no pin ever hit.
	assert_eq "flows pinned by A (flow_new)" "$(pyx 'd["counters"]["flow_new"]' "$T.stats_a.json")" 0
	assert_eq "flows pinned by B (flow_new)" "$(pyx 'd["counters"]["flow_new"]' "$T.stats_b.json")" 0
	assert_eq "flow table hits on A and B" \
		"$(pyx 'd0["counters"]["flow_hit"] + d1["counters"]["flow_hit"]' "$T.stats_a.json" "$T.stats_b.json")" 0
	pyx '"summary: %d packets sent on to a second hop in the run; flow_new A %d, B %d" % ((d1["hop_forwarded"] + d1["hop_forwarded_stack"]) - (d0["hop_forwarded"] + d0["hop_forwarded_stack"]), d2["counters"]["flow_new"], d3["counters"]["flow_new"])' "$T.c0.json" "$T.c1.json" "$T.stats_a.json" "$T.stats_b.json"
}

main() {
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	xs_tmp ns || fatal "$XS_SUITE" "cannot copy $XS"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	decap_preflight
	clang -O2 -g -target bpf -c "$PASS_SRC" -o "$XS_TMP/pass.o" ||
		fatal "$XS_SUITE" "cannot compile $PASS_SRC"
	setup_gue_testbed || fatal "$XS_SUITE" "cannot build the testbed (bridge, veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
		if [ "$V" != 1 ]; then
			grep -h '^summary:' "$XS_TMP/$t.log" 2>/dev/null | sed 's/^/    /' || true
		fi
	done
	finish "$XS_SUITE"
}

[ "${XS_GUE_NO_MAIN:-}" = 1 ] || main "$@"
