#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# `xdpsteer trace` during real traffic: UDP flows from the client namespace
# to queue targets (cpu 0, cpu 1) and to a service whose backend is reached
# by IPIP. Every record must name the target and service `xdpsteer lookup`
# names for its flow, and the records naming each counter must number that
# counter's delta exactly. Filters, --count, --pcap (read back by tshark) and
# the state left behind are checked too. Needs root; about 30 s; V=1 for detail.
#
#   tests/ns/test_trace.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=trace
if [ -z "${XS_TRACE_WATCHDOG:-}" ]; then
	export XS_TRACE_WATCHDOG=1
	exec timeout -k 20 "${XS_TRACE_TIMEOUT:-180}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK=$XS_TOP/tests/ns/trace_check.py
SEED=5eed00000000000000000000000000c1
VIP=$NET.100
SVC=$VIP:80/udp
BACKEND=$NET.200
QFLOWS="$CLIENT_IP:30000-30019"   # 20 flows to the queues
SFLOWS="$CLIENT_IP:31000-31019"   # 20 flows to the service
C=3                               # packets per flow

T=""

# send_to DST DPORT SPEC COUNT: flows.py count (packets and counter deltas, JSON).
send_to() {
	run_in "$NS_CLIENT" "$PYTHON" "$FLOWS" --ns "$NS_STEER" --iface "$IF_STEER" --xs "$XS" \
		--dst "$1" --dport "$2" count --flows "$3" --count "$4"
}

# trace_start NAME ARGS...: `xdpsteer trace IFACE ARGS...` in the background,
# records to $T.NAME.out; returns once the trace is on (it says so on stderr).
trace_start() {
	local name=$1 i
	shift
	# nsenter execs the CLI: $BG_TRACE is its pid, which the signals must reach.
	bg_start TRACE nsenter --net=/run/netns/"$NS_STEER" -- "$XS" trace "$IF_STEER" "$@" \
		>"$T.$name.out" 2>"$T.$name.err"
	for ((i = 0; i < 250; i++)); do
		grep -q "^tracing" "$T.$name.err" && return 0
		kill -0 "$BG_TRACE" 2>/dev/null || break
		sleep 0.02
	done
	fail "trace did not start: $(cat "$T.$name.err")"
}

# trace_stop [SIGNAL]: stop it (INT by default) and wait for its exit status.
trace_stop() {
	local rc=0
	kill -"${1:-INT}" "$BG_TRACE"
	wait "$BG_TRACE" || rc=$?
	assert_eq "trace's exit status after SIG${1:-INT}" "$rc" 0
}

# trace_state: the trace's state in the kernel: xs_trace_filter and the
# running program's xs_trace_on, as bpftool prints them (not xs_now, the
# clock, beside it in .bss).
trace_state() {
	"$PYTHON" -c 'import json, subprocess, sys
def bt(*a):
    return json.loads(subprocess.check_output([sys.argv[1], "-j", *a]))
pins = sys.argv[2]
filt = bt("map", "dump", "pinned", pins + "/xs_trace_filter")
ids = bt("prog", "show", "pinned", pins + "/prog_xdp")["map_ids"]
bss = [m["id"] for m in bt("map", "show") if m["id"] in ids and m.get("name", "").endswith(".bss")]
e = bt("map", "dump", "id", str(bss[0]))[0]
on = [v for v in e.get("formatted", e)["value"][".bss"] if "xs_trace_on" in v]
print(json.dumps({"filter": [f["formatted"]["value"] for f in filt], "on": on}, sort_keys=True))' \
		"$BPFTOOL" "$(pin_dir "$NS_STEER" "$IF_STEER")"
}

setup_lb() {
	T=$XS_TMP/trace
	attach --seed "$SEED" >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	xs target add "$IF_STEER" cpu 1 >/dev/null
	xs service add "$IF_STEER" "$SVC" >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$BACKEND" >/dev/null
	# The VIP is reached through the steering side; the backend's "MAC" is the
	# client's, so the encapsulated packet goes back out (XDP_TX) and is dropped there.
	ip -n "$NS_CLIENT" neigh replace "$VIP" lladdr "$(_mac "$NS_STEER" "$IF_STEER")" \
		dev "$IF_CLIENT" nud permanent
	# bpf_fib_lookup() answers "forwarding disabled" (fib_fail) without it.
	run_in "$NS_STEER" sysctl -qw net.ipv4.ip_forward=1
	ip -n "$NS_STEER" neigh replace "$BACKEND" lladdr "$(_mac "$NS_CLIENT" "$IF_CLIENT")" \
		dev "$IF_STEER" nud permanent
}

# ---------------------------------------------------------------------------
# Every record agrees with lookup, and with the counters.
t_records_agree_with_lookup_and_counters() {
	setup_lb
	trace_start all --json
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" "$C" >"$T.q.json"
	send_to "$VIP" 80 "$SFLOWS" "$C" >"$T.s.json"
	trace_stop
	cat "$T.all.err"
	head -n 2 "$T.all.out"
	"$PYTHON" "$CHECK" agree "$NS_STEER" "$IF_STEER" "$XS" "$T.all.out" "$T.q.json" \
		"$T.s.json" | tee "$T.agree.json"
	assert_eq "records" "$(pyx 'd["records"]' "$T.agree.json")" "$((2 * 20 * C))"
	assert_eq "flows" "$(pyx 'd["flows"]' "$T.agree.json")" 40
	assert_eq "service records with the outer addresses written" \
		"$(grep -c "\"outer_dst\":\"$BACKEND\"" "$T.all.out")" "$((20 * C))"
	assert_eq "records lost" "$(grep -c '"lost_before":[1-9]' "$T.all.out" || true)" 0
}

# A filter that matches nothing yields nothing; each filter takes only its own.
t_filters() {
	setup_lb
	trace_start none client 203.0.113.0/24
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" 1 >/dev/null
	send_to "$VIP" 80 "$SFLOWS" 1 >/dev/null
	trace_stop
	assert_eq "records for a client that sends nothing" "$(wc -l <"$T.none.out")" 0

	trace_start svc -j service "$SVC" client "$CLIENT_IP/32"
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" 1 >/dev/null
	send_to "$VIP" 80 "$SFLOWS" 2 >/dev/null
	trace_stop
	assert_eq "records of the service" "$(wc -l <"$T.svc.out")" 40
	assert_eq "records of other services" "$(grep -vc "\"service\":\"$SVC\"" "$T.svc.out" || true)" 0

	# New flows only: after the test above, the service's are all pinned.
	trace_start new -j reason flow_new
	send_to "$STEER_IP" "$DPORT" "$CLIENT_IP:32000-32009" 2 >/dev/null
	send_to "$VIP" 80 "$SFLOWS" 1 >/dev/null
	trace_stop
	assert_eq "records with reason flow_new" "$(wc -l <"$T.new.out")" 10

	trace_start be -j backend "$BACKEND"
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" 1 >/dev/null
	send_to "$VIP" 80 "$CLIENT_IP:31000-31004" 1 >/dev/null
	trace_stop
	assert_eq "records of the backend" "$(wc -l <"$T.be.out")" 5

	trace_start one -j --sample 4
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" 2 >/dev/null
	trace_stop
	# Per CPU: each CPU that received k packets recorded ceil(k / 4) of them.
	n=$(wc -l <"$T.one.out")
	[ "$n" -ge 10 ] && [ "$n" -le 11 ] || fail "--sample 4 of 40 packets: $n records"
	echo "ok: --sample 4 of 40 packets: $n records"

	expect_error "a filter word without a value" "filter word 'client' has no value" \
		xs trace "$IF_STEER" client
	expect_error "an unknown reason" "reason: 'flow_nope' is not" \
		xs trace "$IF_STEER" reason flow_nope
	expect_error "a backend that is no backend" "has no backend 198.18.0.201" \
		xs trace "$IF_STEER" backend "$NET.201"
}

# --count stops the trace; --pcap writes pcapng that tshark reads back.
t_count_and_pcap() {
	local rc=0
	setup_lb
	command -v tshark >/dev/null || fail "tshark is missing (tests/deps.sh installs it)"
	bg_start TRACE nsenter --net=/run/netns/"$NS_STEER" -- "$XS" trace "$IF_STEER" --count 5 \
		--pcap "$T.pcapng" >"$T.pc.out" 2>"$T.pc.err"
	for ((i = 0; i < 250; i++)); do
		grep -q "^tracing" "$T.pc.err" && break
		sleep 0.02
	done
	send_to "$STEER_IP" "$DPORT" "$QFLOWS" 1 >/dev/null
	for ((i = 0; i < 250; i++)); do
		kill -0 "$BG_TRACE" 2>/dev/null || break
		sleep 0.02
	done
	kill -0 "$BG_TRACE" 2>/dev/null && fail "--count 5: still running after 20 packets"
	wait "$BG_TRACE" || rc=$?
	assert_eq "exit status after --count" "$rc" 0
	assert_eq "lines printed" "$(wc -l <"$T.pc.out")" 5
	"$PYTHON" "$CHECK" pcap "$T.pcapng" | tee "$T.pcap.json"
	assert_eq "packets in the pcapng" "$(pyx 'd["packets"]' "$T.pcap.json")" 5
	assert_eq "their comments are the printed lines" \
		"$(pyx '"\n".join(d["comments"])' "$T.pcap.json")" "$(cut -d' ' -f2- "$T.pc.out")"
	assert_eq "their source" "$(pyx 'd["sources"]' "$T.pcap.json")" "[\"$CLIENT_IP\"]"
	expect_error "a pcap file that exists" "cannot create .*: File exists" \
		xs trace "$IF_STEER" --pcap "$T.pcapng"
}

# Stopping (SIGINT, SIGTERM) leaves the state as it was before the trace.
t_stop_restores_state() {
	local before during
	setup_lb
	before=$(trace_state)
	echo "before: $before"
	for sig in INT TERM; do
		trace_start "stop$sig" -j service "$SVC" reason flow_hit,flow_new --sample 2
		during=$(trace_state)
		echo "during: $during"
		assert_ne "the state while tracing" "$during" "$before"
		trace_stop "$sig"
		assert_eq "the state after SIG$sig" "$(trace_state)" "$before"
	done
	trace_start other
	expect_error "a second trace at once" "a trace is already running \\(pid $BG_TRACE\\)" \
		xs trace "$IF_STEER"
	trace_stop
}

main() {
	local t
	ns_select "$@"
	install_trap
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	setup_testbed || fatal "$XS_SUITE" "cannot build the namespace testbed (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
