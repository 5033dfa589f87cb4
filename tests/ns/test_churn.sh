#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Churn under load (issue 4): hundreds of topology changes applied with
# `xdpsteer apply -f` while real traffic flows, and nothing established may
# notice. Needs root; about 65 s; V=1 for detail.
#
#   tests/ns/test_churn.sh [--list | TEST...]   (default: every t_* function, in order)
#
# tcp_churn: 500 long-lived TCP connections to a VIP, through the load
#   balancer, to backends that decapsulate and answer directly (DSR), each
#   echoing a message every 0.5-1 s; meanwhile >= 200 applies over >= 20 s.
#   The long-lived connections are opened while the service has backends 1
#   and 2 only, and those two are never removed (they are drained, undrained
#   and reweighted); backends 3-6 are added, drained, reweighted and removed.
#   Rolling raw TCP flows (ACKs without a socket) keep flows pinned to every
#   backend, so each removal has pinned flows that must leave it.
# udp_cpu_churn: 200 UDP flows into a queue pool of cpu 0 and cpu 1, every
#   datagram's CPU recorded, while >= 200 applies drain, resize, remove and
#   re-add cpu 1.
#
# TCP testbed (lib.sh's dsr_testbed; names carry RUN_ID, so suites never clash):
#
#        $NS_CL (client)   $NS_LB (xdpsteer)
#              |                 |
#   $NS_SW: ---+----- br0 -------+-------+--------+-- ... --+
#                                |       |                  |
#                             $NS_BE1  $NS_BE2  ...      $NS_BE6  (VIP on lo, decap)
#
# The UDP test uses lib.sh's two-namespace testbed ($NS_CLIENT, $NS_STEER).
set -euo pipefail

XS_SUITE=churn
# A hard bound on the whole run; TERM still runs the cleanup trap.
if [ -z "${XS_CHURN_WATCHDOG:-}" ]; then
	export XS_CHURN_WATCHDOG=1
	exec timeout -k 20 "${XS_CHURN_TIMEOUT:-200}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
HOLD=$XS_TOP/tests/ns/churn_hold.py
DRIVE=$XS_TOP/tests/ns/churn_drive.py
RAWF=$XS_TOP/tests/ns/churn_rawflows.py
UDPC=$XS_TOP/tests/ns/churn_udp.py
PASS_SRC=$XS_TOP/tests/ns/xdp_pass.bpf.c

R=$RUN_ID
NS_SW=xcw-$R
NS_CL=xcc-$R
NS_LB=xcl-$R
IF_CL=cc$R
IF_LB=cl$R
BES=(1 2 3 4 5 6)
STABLE=(1 2) # hold the long-lived connections: never removed
be_ns() { echo "xc$1-$R"; }
be_if() { echo "c$1$R"; }

# RFC 2544 benchmarking range, inside our namespaces only.
SEG4=198.18.2
CL4=$SEG4.2
# shellcheck disable=SC2034 # (dsr_testbed reads it, as ${LB}4)
LB4=$SEG4.10
be4() { echo "$SEG4.10$1"; }
VIPNET4=198.19.1.0/24
VIP=198.19.1.1
PORT=8080
SVC="$VIP:$PORT/tcp"
# The tunnel adds 20 bytes: the load balancer's and backends' links are larger
# than the client's, so a full client segment still fits encapsulated.
MTU_CLIENT=1500
MTU_DC=1600

# Fixed seeds: the churn plan, the pools and the final spread are the same on
# every run; only timing varies.
SEED_TCP=5eed000000000000000000000000c401
SEED_UDP=5eed000000000000000000000000c402
N_HOLD=500        # long-lived connections
N_CHANGES=220     # applies per test (>= 200)
MIN_SECONDS=22    # the applies are spread over at least this long (>= 20)
STALL=3           # seconds: a reply later than this is a stall
N_FINAL=600       # new connections after the churn, for the spread check
N_UDP=200         # UDP flows
UDP_GAP=0.075     # seconds between two datagrams of one UDP flow
# Big enough for every flow of the run (500 + ~2,500 raw + probes + final;
# UDP ~1,000), so the LRU never evicts a long-lived pin. The pin rate limit
# stays at its default, 50,000 per second per CPU with a burst of 5,000: the
# 500 connections opened at once must all be pinned (asserted).
FLOW_TABLE=16384

T=""

# ---- helpers ----------------------------------------------------------------

lb() { xs_in "$NS_LB" "$@"; }

# servers: one echo server per backend on VIP:$PORT, naming itself by its
# address; it answers request after request on one connection.
servers() {
	local i
	for i in "${BES[@]}"; do
		rm -f "$T.ready$i"
		bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$LBT" serve --id "$(be4 "$i")" --bind "$VIP" --port "$PORT" \
			--ready "$T.ready$i" --max-seconds 150
	done
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
}

# conf_file NAME LINES...: a configuration file, not world-writable.
conf_file() {
	local f=$T.$1.conf
	shift
	printf '%s\n' "$@" >"$f"
	chmod 644 "$f"
	echo "$f"
}

# counters_clean BASE STATS: no error counter moved from BASE to STATS. (The
# base is taken once the service exists: before, a stray IPv4 frame on the
# bridge counts as no_targets, rightly.)
counters_clean() {
	assert_eq "error counters that moved" \
		"$(pyx '{k: v - d0["counters"][k] for k, v in d1["counters"].items() if k in ("no_targets", "target_gone", "redirect_error", "pin_rate_limited", "no_backend", "too_big", "fib_fail", "encap_error") and v != d0["counters"][k]}' "$1" "$2")" "{}"
}

# removal_windows_busy DRIVE: the zero-after-removal check had something to
# catch: in at least 10 removal windows, flows pinned to the removed target
# sent again (and were re-pinned elsewhere: flow_repin). A window with none
# is no failure: the target may have been drained since it was added, or the
# window may be one apply of a burst.
removal_windows_busy() {
	pyx '"removal windows: %d, outside bursts: %d, with flows re-pinned away: %d" % (len(d["removals"]), sum(not r["in_burst"] for r in d["removals"]), sum(r["repins_in_window"] > 0 for r in d["removals"]))' "$1"
	assert_true "flows left the removed target in at least 10 removal windows" \
		"$(pyx 'sum(r["repins_in_window"] > 0 for r in d["removals"]) >= 10' "$1")"
}

# ---- 1. TCP: 500 long-lived connections through >= 200 applies ----------------

t_tcp_churn() {
	local i stable_ips start_ips final_ips churn_ips start_lines
	T=$XS_TMP/tcp
	stable_ips=$(for i in "${STABLE[@]}"; do be4 "$i"; done | paste -sd,)
	churn_ips=$(for i in "${BES[@]}"; do [[ " ${STABLE[*]} " == *" $i "* ]] || be4 "$i"; done | paste -sd,)
	# Backends 1 and 2 when the long-lived connections open; the last apply:
	# fixed weights (sum 9), one churn backend absent.
	start_ips="$(be4 1)=1,$(be4 2)=1"
	final_ips="$(be4 1)=2,$(be4 2)=1,$(be4 3)=3,$(be4 4)=1,$(be4 6)=2"

	attach_in "$NS_LB" "$IF_LB" --seed "$SEED_TCP" --flow-table-size "$FLOW_TABLE" \
		--pin-rate 50000 >/dev/null
	mapfile -t start_lines < <(tr , '\n' <<<"$start_ips" | sed "s|^\(.*\)=\(.*\)|backend $SVC \1 weight \2|")
	lb apply "$IF_LB" -f "$(conf_file start "service $SVC" "${start_lines[@]}")" >/dev/null
	lb stats "$IF_LB" --json >"$T.base.json"
	servers

	# The long-lived connections, opened while backends 1 and 2 are the only
	# ones: they live on backends that are never removed.
	rm -f "$T.stop"
	bg_start HOLD nsenter --net=/run/netns/"$NS_CL" -- "$PYTHON" "$HOLD" --src "$CL4" --sports "20000-$((20000 + N_HOLD - 1))" \
		--vip "$VIP" --port "$PORT" --seed "$R" --stall "$STALL" --ready "$T.hold.ready" \
		--stop-file "$T.stop" --max-seconds 120 --out "$T.hold.json"
	wait_file "$T.hold.ready" 60
	assert_eq "long-lived connections open, first echo checked" "$(pyx 'len(d)' "$T.hold.ready")" "$N_HOLD"
	lb stats "$IF_LB" --json >"$T.s0.json"
	# Every one of them is pinned (the flow table is large enough and the pin
	# rate limit let the burst through), to backend 1 or 2.
	assert_eq "flows pinned on the load balancer" \
		"$(pyx 'sum(b["pinned"] for b in d["services"][0]["backends"])' "$T.s0.json")" "$N_HOLD"
	assert_eq "pinned per backend = connections each backend answered" \
		"$(pyx '{b["backend"]: b["pinned"] for b in d["services"][0]["backends"]}' "$T.s0.json")" \
		"$(pyx '{b: sum(v == b for v in d.values()) for b in sorted(set(d.values()))}' "$T.hold.ready")"
	counters_clean "$T.base.json" "$T.s0.json"

	bg_start RAW nsenter --net=/run/netns/"$NS_CL" -- "$PYTHON" "$RAWF" --src "$CL4" --vip "$VIP" --port "$PORT" \
		--sports 30000-39999 --flows 150 --lifetime 2 --gap 0.1 --stop-file "$T.stop" \
		--max-seconds 120 --out "$T.raw.json"
	sleep 0.5
	run_in "$NS_CL" "$PYTHON" "$DRIVE" --ns "$NS_LB" --iface "$IF_LB" --xs "$XS" --bpftool "$BPFTOOL" \
		--pin-dir "$(pin_dir "$NS_LB" "$IF_LB")" --changes "$N_CHANGES" --min-seconds "$MIN_SECONDS" \
		--seed "$SEED_TCP" --dir "$T.conf" --out "$T.drive.json" \
		service --svc "$SVC" --vip "$VIP" --port "$PORT" --stable "$stable_ips" --churn "$churn_ips" \
		--start "$start_ips" --final "$final_ips" --src "$CL4" --probe-ports 40000-40999
	touch "$T.stop"
	wait "$BG_HOLD" || fail "churn_hold.py failed"
	wait "$BG_RAW" || fail "churn_rawflows.py failed"
	lb stats "$IF_LB" --json >"$T.s1.json"

	# -- the long-lived connections
	local h=$T.hold.json
	pyx '{k: v for k, v in d.items() if k != "flows"}' "$h"
	assert_eq "long-lived connections failed (reset, closed, wrong bytes or backend; first 10)" \
		"$(pyx 'dict(sorted(d["failed"].items())[:10])' "$h")" "{}"
	assert_eq "long-lived connections open at the end" "$(pyx 'd["open_at_end"]' "$h")" "$N_HOLD"
	assert_eq "stalls (a reply later than $STALL s)" "$(pyx 'd["stalls"]' "$h")" 0
	assert_true "the connections were held through the churn (held >= $MIN_SECONDS s)" \
		"$(pyx "d['held_seconds'] >= $MIN_SECONDS" "$h")"
	# A message every 0.5-1 s: fewer than held/1 s - 1 means a connection
	# went quiet without failing.
	assert_eq "connections that sent fewer than one message per second" \
		"$(pyx '[f for f, r in d["flows"].items() if r["messages"] < int(d["held_seconds"]) - 1][:10]' "$h")" "[]"
	assert_eq "backends of the long-lived connections" \
		"$(pyx 'sorted(d["per_backend"])' "$h")" "$(pyx "sorted('$stable_ips'.split(','))" "$h")"

	# -- the churn itself
	local c=$T.drive.json
	pyx '{k: v for k, v in d.items() if k not in ("removals", "final")}' "$c"
	assert_true "at least 200 applies" "$(pyx 'd["applies"] >= 200' "$c")"
	assert_true "at least 200 changes applied" "$(pyx 'd["changes"] >= 200' "$c")"
	assert_true "over at least 20 s" "$(pyx 'd["seconds"] >= 20' "$c")"
	assert_true "the mix: >= 10 each of add, remove, drain, undrain, weight; >= 3 bursts" \
		"$(pyx 'all(d["ops"].get(k, 0) >= 10 for k in ("add", "remove", "drain", "undrain", "weight")) and d["bursts"] >= 3' "$c")"
	assert_true "the backends holding the connections were drained, undrained and reweighted" \
		"$(pyx "all(d['ops_by_target'].get(k, {}).get(b, 0) >= 1 for b in '$stable_ips'.split(',') for k in ('drain', 'undrain', 'weight'))" "$c")"
	assert_eq "show differed from the planned state" "$(pyx 'd["show_diffs"][:3]' "$c")" "[]"

	# -- no packet to a removed backend after its removal returned
	assert_eq "removals whose steered-packet count grew before the next apply" \
		"$(pyx '[r for r in d["removals"] if r["packets_before_next"] != r["packets_at_return"]][:5]' "$c")" "[]"
	echo "removals: $(pyx 'len(d["removals"])' "$c"), packets after removal: $(pyx 'd["packets_after_removal"]' "$c")"
	removal_windows_busy "$c"

	# -- the short-lived probe connections during the churn
	pyx 'd["probes"]' "$c"
	assert_true "at least 40 probe connections (a few per second)" "$(pyx 'd["probes"]["n"] >= 40' "$c")"
	assert_eq "probe connections that failed" "$(pyx 'd["probes"]["failed"]' "$c")" "[]"
	assert_eq "probes served by another backend than lookup predicted" \
		"$(pyx 'd["probes"]["mismatches"]' "$c")" "[]"
	assert_eq "probes served as predicted" "$(pyx 'd["probes"]["predicted"]' "$c")" "$(pyx 'd["probes"]["n"]' "$c")"
	counters_clean "$T.base.json" "$T.s1.json"

	# -- new connections after the churn spread as the final weights say
	local sports="50000-$((50000 + N_FINAL - 1))"
	"$PYTHON" "$LBT" predict --ns "$NS_LB" --iface "$IF_LB" --xs "$XS" --dst "$VIP" --dport "$PORT" \
		--sports "$sports" --src "$CL4" --jobs 4 --out "$T.pred.json"
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$CL4" --sports "$sports" --vip "$VIP" --port "$PORT" \
		--seed "$R" --parallel 8 --timeout 8 --out "$T.final.json"
	assert_eq "final connections that failed" \
		"$(pyx '{f: r["error"] for f, r in d["flows"].items() if not r["ok"]}' "$T.final.json")" "{}"
	assert_eq "final connections served by another backend than lookup predicted" \
		"$(pyx '[f for f, r in d0["flows"].items() if r["backend"] != d1[f]["backend"]][:10]' \
			"$T.final.json" "$T.pred.json")" "[]"
	# A new flow's backend is its slot's, uniform over the live slots, so
	# backend i's count is Binomial(n, w_i / sum w). Tolerance: 4 standard
	# deviations. The seed, the plan and the ports are fixed: the spread is
	# the same on every run; the band says what a fair hash must meet.
	pyx "{b: {'n': c, 'share': round(c / len(d['flows']), 4), 'ideal': round(w / W, 4), 'tolerance': round(4 * (w / W * (1 - w / W) / len(d['flows'])) ** 0.5, 4)} for W in [sum(int(x.split('=')[1]) for x in '$final_ips'.split(','))] for b, w in [(x.split('=')[0], int(x.split('=')[1])) for x in '$final_ips'.split(',')] for c in [sum(r['backend'] == b for r in d['flows'].values())]}" \
		"$T.final.json" | tee "$T.spread.json"
	assert_eq "backends outside their share's tolerance" \
		"$(pyx '[b for b, v in d.items() if abs(v["share"] - v["ideal"]) > v["tolerance"]]' "$T.spread.json")" "[]"
	assert_eq "final connections served by a backend not in the final state" \
		"$(pyx "sorted({r['backend'] for r in d['flows'].values()} - {x.split('=')[0] for x in '$final_ips'.split(',')})" "$T.final.json")" "[]"
	pyx '"summary: %d connections held %.1f s through the churn, %d messages, %d bytes verified, %d resets or failures, %d stalls (max reply %.3f s)" % (d["connections"], d["held_seconds"], d["messages"], d["bytes_verified"], len(d["failed"]), d["stalls"], d["max_latency"])' "$h"
	pyx '"summary: %d applies (%d changes, %d in %d bursts) in %.1f s: %s; %d removals (%d of %d windows outside bursts saw flows re-pinned away), %d packets steered to a removed backend" % (d0["applies"], d0["changes"], d0["burst_applies"], d0["bursts"], d0["seconds"], ", ".join("%s %d" % kv for kv in sorted(d0["ops"].items())), len(d0["removals"]), sum(not r["in_burst"] and r["repins_in_window"] > 0 for r in d0["removals"]), sum(not r["in_burst"] for r in d0["removals"]), d0["packets_after_removal"])' "$c"
	pyx '"summary: %d probe connections during the churn, %d ok, %d on the predicted backend; %d new connections after it, shares %s" % (d0["probes"]["n"], d0["probes"]["ok"], d0["probes"]["predicted"], len(d1["flows"]), ", ".join("%s %.3f (ideal %.3f)" % (b.split(".")[-1], v["share"], v["ideal"]) for b, v in sorted(d2.items())))' "$c" "$T.final.json" "$T.spread.json"
}

# ---- 2. UDP flows on cpu targets through >= 200 applies ----------------------

t_udp_cpu_churn() {
	T=$XS_TMP/udp
	local sports=20000-21999
	attach --seed "$SEED_UDP" --flow-table-size "$FLOW_TABLE" --pin-rate 50000 >/dev/null
	xs apply "$IF_STEER" -f "$(conf_file start "algo jump" "target cpu 0 qsize 2048" "target cpu 1 qsize 2048")" >/dev/null
	rm -f "$T.stop"
	bg_start URECV nsenter --net=/run/netns/"$NS_STEER" -- "$PYTHON" "$UDPC" recv --src "$CLIENT_IP" --sports "$sports" \
		--bind "$STEER_IP" --port "$DPORT" --ready "$T.ready" --stop-file "$T.stop" \
		--max-seconds 120 --out "$T.recv.json"
	wait_file "$T.ready" 30
	bg_start USEND nsenter --net=/run/netns/"$NS_CLIENT" -- "$PYTHON" "$UDPC" send --src "$CLIENT_IP" --sports "$sports" \
		--dst "$STEER_IP" --dport "$DPORT" --flows "$N_UDP" --lifetime 6 --gap "$UDP_GAP" \
		--stop-file "$T.stop" --max-seconds 120 --out "$T.sent.json"
	sleep 1
	run_in "$NS_CLIENT" "$PYTHON" "$DRIVE" --ns "$NS_STEER" --iface "$IF_STEER" --xs "$XS" \
		--bpftool "$BPFTOOL" --pin-dir "$(pin_dir "$NS_STEER" "$IF_STEER")" --changes "$N_CHANGES" \
		--min-seconds "$MIN_SECONDS" --seed "$SEED_UDP" --dir "$T.conf" --out "$T.drive.json" queues
	sleep 1   # the flows keep going on the final state
	touch "$T.stop"
	wait "$BG_USEND" || fail "churn_udp.py send failed"
	wait "$BG_URECV" || fail "churn_udp.py recv failed"
	xs stats "$IF_STEER" --json --per-cpu >"$T.stats.json"
	"$PYTHON" "$UDPC" analyze --recv "$T.recv.json" --sent "$T.sent.json" --drive "$T.drive.json" \
		--out "$T.an.json"

	local c=$T.drive.json a=$T.an.json
	pyx '{k: v for k, v in d.items() if k not in ("removals", "final")}' "$c"
	pyx d "$a"
	assert_true "at least 200 applies over at least 20 s" "$(pyx 'd["applies"] >= 200 and d["seconds"] >= 20' "$c")"
	assert_true "the mix: >= 10 each of drain, undrain, qsize, remove, add; >= 3 bursts" \
		"$(pyx 'all(d["ops"].get(k, 0) >= 10 for k in ("drain", "undrain", "qsize", "remove", "add")) and d["bursts"] >= 3' "$c")"
	assert_eq "show differed from the planned state" "$(pyx 'd["show_diffs"][:3]' "$c")" "[]"
	assert_eq "removals of cpu 1 whose steered-packet count grew before the next apply" \
		"$(pyx '[r for r in d["removals"] if r["packets_before_next"] != r["packets_at_return"]][:5]' "$c")" "[]"
	removal_windows_busy "$c"
	assert_true "flows ran: >= $N_UDP x 3 flows, every one received" \
		"$(pyx "d['flows_sent'] >= 3 * $N_UDP and d['flows'] == d['flows_sent']" "$a")"
	assert_eq "datagrams no flow socket took" "$(pyx 'd["strays"]' "$a")" 0
	assert_true "most datagrams placed exactly (>= 90%)" "$(pyx 'd["exact"] >= 0.9 * d["datagrams"]' "$a")"
	assert_eq "flows seen on two CPUs at once (illegal moves, first 10)" "$(pyx 'd["illegal_moves"]' "$a")" "[]"
	assert_true "flows did move when cpu 1 was removed (the check can see a move)" \
		"$(pyx 'd["flows_moved"] > 0' "$a")"
	assert_true "both CPUs carried flows" "$(pyx 'd["flows_per_cpu"].get("0", 0) > 0 and d["flows_per_cpu"].get("1", 0) > 0' "$a")"
	# cpu N's frames are dequeued on CPU N only, whatever the churn.
	assert_eq "frames dequeued on another CPU than their target's" \
		"$(pyx 'sum(c["dequeued"] for t in d["targets"] for c in t["per_cpu"] if c["cpu"] != t["cpu"])' "$T.stats.json")" 0
	assert_eq "error counters that moved" \
		"$(pyx '{k: v for k, v in d["counters"].items() if k in ("no_targets", "target_gone", "redirect_error", "pin_rate_limited") and v}' "$T.stats.json")" "{}"
	pyx '"summary: %d UDP flows (%d at once), %d datagrams, %d placed exactly, %d lost; %d applies in %.1f s: %s; %d removals of cpu 1, %d packets steered after removal; %d flows moved once, %d on two CPUs at once; reordered %d" % (d0["flows"], '"$N_UDP"', d0["datagrams"], d0["exact"], d0["lost"], d1["applies"], d1["seconds"], ", ".join("%s %d" % kv for kv in sorted(d1["ops"].items())), d0["removals_of_cpu1"], d1["packets_after_removal"], d0["flows_moved"], d0["two_cpu_flows"], d0["reordered"])' "$a" "$c"
}

# ---------------------------------------------------------------------------
main() {
	local t t0 f0
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	decap_preflight
	# Namespaces are made here, not in the tests: a test runs in a subshell,
	# and only the main shell's list of namespaces is cleaned up.
	setup_testbed || fatal "$XS_SUITE" "cannot build the UDP testbed (veth, netns)"
	clang -O2 -g -target bpf -c "$PASS_SRC" -o "$XS_TMP/pass.o" ||
		fatal "$XS_SUITE" "cannot compile $PASS_SRC"
	dsr_testbed --decap "$XS_TMP/pass.o" LB || fatal "$XS_SUITE" "cannot build the TCP testbed (bridge, veth, netns, decap)"
	for t in "${NS_TESTS[@]}"; do
		t0=$(date +%s.%N)
		f0=$_XS_FAILED
		run_test "$t" "t_$t"
		# The measured figures (docs/robustness.md, "Churn under load"); a failure has
		# printed its whole log already.
		if [ "$V" != 1 ] && [ "$_XS_FAILED" = "$f0" ]; then
			grep -h '^summary:' "$XS_TMP/$t.log" | sed 's/^/    /'
		fi
		awk -v t="$t" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "    (%s: %.1f s)\n", t, b - a }'
	done
	finish "$XS_SUITE"
}

[ "${XS_CHURN_NO_MAIN:-}" = 1 ] || main "$@"
