#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Metrics and the live view (docs/metrics.md): the agent's /metrics scraped
# with curl while UDP traffic flows to two cpu targets and to a service with
# two backends, checked by promtool and by tests/ns/prom.py; its counters equal
# to `stats --json` once traffic stops, and to the packets the senders sent;
# `stats --format prometheus`; the agent's own values after a change and a bad
# file; `stats --watch` piped, on a terminal and stopped by SIGINT; bad
# --metrics addresses refused with nothing changed; etcd mode's own values.
# Needs root; about 45 s.
#
#   tests/ns/test_metrics.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=metrics
if [ -z "${XS_METRICS_WATCHDOG:-}" ]; then
	export XS_METRICS_WATCHDOG=1
	exec timeout -k 20 "${XS_METRICS_TIMEOUT:-180}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh"

# Names of our own: other suites may run beside this one.
NS_STEER=mxl-$RUN_ID
NS_CLIENT=mxc-$RUN_ID
IF_STEER=mxa$RUN_ID
IF_CLIENT=mxb$RUN_ID
DEV_PREFIX=mxd$RUN_ID

PROM=$XS_TOP/tests/ns/prom.py
VIP=10.77.0.10
SVC=$VIP:$DPORT/udp
BE1=$NET.3
BE2=$NET.4
ADDR=127.0.0.1:9417
URL=http://$ADDR/metrics
T=""

# ---- helpers ----------------------------------------------------------------

# conf NAME LINES...: a configuration file; prints its path.
conf() {
	local f=$XS_TMP/$1
	shift
	printf '%s\n' "$@" >"$f.tmp"
	chmod 644 "$f.tmp"
	mv "$f.tmp" "$f"
	echo "$f"
}
scrape() { run_in "$NS_STEER" curl -sf --max-time 5 "$URL"; }
# promtool_ok FILE: `promtool check metrics` finds nothing (it exits 3 on a lint problem).
promtool_ok() {
	local out rc=0
	out=$(promtool check metrics <"$1" 2>&1) || rc=$?
	[ "$rc" = 0 ] && [ -z "$out" ] || fail "promtool check metrics on $1 (rc $rc): $out"
	echo "ok: promtool check metrics passes ($(grep -vc '^#' "$1") samples)"
}
# value FILE SERIES: one series of an exposition, as prom.py parse names it.
value() { "$PYTHON" "$PROM" parse "$1" | pyx "d.get('$2', 'missing')" -; }
# sender NAME DST CPU FLOWS: flows.py bg in the client namespace on one CPU, until $XS_TMP/stop.
sender() {
	bg_start "$1" run_in "$NS_CLIENT" taskset -c "$3" "$PYTHON" "$FLOWS" --ns "$NS_STEER" \
		--iface "$IF_STEER" --xs "$XS" --dst "$2" --dport "$DPORT" \
		bg --flows "$4" --stop-file "$XS_TMP/stop" --out "$XS_TMP/$1.sent" --max-seconds 60 \
		--gap 0.005
}
stop_senders() {
	touch "$XS_TMP/stop"
	wait_file "$XS_TMP/queues.sent" 10 && wait_file "$XS_TMP/vip.sent" 10
	rm -f "$XS_TMP/stop"
}
# stable_stats FILE: `stats --json` twice in a row equal (nothing in flight), into FILE.
stable_stats() {
	local i
	for ((i = 0; i < 50; i++)); do
		xs stats "$IF_STEER" --json >"$1.a"
		sleep 0.1
		xs stats "$IF_STEER" --json >"$1"
		cmp -s "$1.a" "$1" && return 0
	done
	fail "stats --json never stood still"
}
state() { xs show "$IF_STEER" | grep -v '^#'; }
# expect_usage WHAT PATTERN CMD...: a usage error: exit 2, PATTERN on stderr, nothing on stdout.
expect_usage() {
	local what=$1 pat=$2 rc=0
	shift 2
	"$@" >"$XS_TMP/eu.out" 2>"$XS_TMP/eu.err" || rc=$?
	echo "  \$ ${*##*/} -> rc $rc: $(head -n 1 "$XS_TMP/eu.err")"
	[ "$rc" = 2 ] || fail "$what: exit status $rc, want 2 (a usage error)"
	grep -Eq -- "$pat" "$XS_TMP/eu.err" || fail "$what: stderr does not match /$pat/"
	[ ! -s "$XS_TMP/eu.out" ] || fail "$what: unexpected stdout: $(cat "$XS_TMP/eu.out")"
	echo "ok: $what"
}

# ---- tests ------------------------------------------------------------------

t_agent_scrape_during_traffic() {
	T=$XS_TMP/scrape
	attach >/dev/null
	CONF=$(conf agent.conf "target cpu 0" "target cpu 1" "service $SVC" \
		"backend $SVC $BE1" "backend $SVC $BE2")
	daemon agent "$NS_STEER" "$XS" agent -f "$CONF" "$IF_STEER" --run-dir "$XS_TMP/run" \
		--metrics "$ADDR"
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.0" 2>/dev/null && grep -q '^xdpsteer_agent_applied_revision{.*} 1$' "$T.0" &&
			break
		sleep 0.05
	done
	grep -q '^xdpsteer_agent_applied_revision{.*} 1$' "$T.0" ||
		fail "the agent never served revision 1: $(cat "$XS_TMP/agent.log")"
	sender queues "$STEER_IP" 0 "$CLIENT_IP:20000-20015"
	sender vip "$VIP" 1 "$CLIENT_IP:21000-21015"
	sleep 1.5
	scrape >"$T.1"
	sleep 1
	scrape >"$T.2"
	promtool_ok "$T.1"
	promtool_ok "$T.2"
	"$PYTHON" "$PROM" parse "$T.2" >/dev/null && echo "ok: one HELP and TYPE per family, no series twice"
	for s in "xdpsteer_reason_packets_total{iface=$IF_STEER,reason=flow_hit,verdict=info}" \
		"xdpsteer_service_packets_total{iface=$IF_STEER,service=$SVC}"; do
		a=$(value "$T.1" "$s")
		b=$(value "$T.2" "$s")
		[ "$a" != missing ] && [ "$b" -gt "$a" ] || fail "$s did not grow during traffic: $a, then $b"
		echo "ok: $s grew from $a to $b during traffic"
	done
	stop_senders
	stable_stats "$T.json"
	scrape >"$T.3"
	promtool_ok "$T.3"
	n=$("$PYTHON" "$PROM" compare "$T.3" "$T.json") || fail "metrics and stats --json differ: $n"
	echo "ok: $n series equal to stats --json, exactly"
	# And to what was sent: one packet, one count, whichever CPU counted it.
	q=$(pyx 'd["sent"]' "$XS_TMP/queues.sent")
	v=$(pyx 'd["sent"]' "$XS_TMP/vip.sent")
	got=$("$PYTHON" "$PROM" parse "$T.3" | pyx 'sum(v for k, v in d.items() if k.startswith("xdpsteer_target_packets_total{"))' -)
	assert_eq "target packets in the metrics (sent to $STEER_IP)" "$got" "$q"
	got=$("$PYTHON" "$PROM" parse "$T.3" | pyx 'sum(v for k, v in d.items() if k.startswith("xdpsteer_backend_packets_total{"))' -)
	assert_eq "backend packets in the metrics (sent to $VIP)" "$got" "$v"
	assert_eq "service packets" "$(value "$T.3" "xdpsteer_service_packets_total{iface=$IF_STEER,service=$SVC}")" "$v"
	pinned=$(value "$T.3" "xdpsteer_pinned_flows{iface=$IF_STEER}")
	assert_eq "pinned flows (16 + 16 flows)" "$pinned" 32
	echo "summary: sent $q + $v packets; $n series equal to stats --json"
}

t_textfile_format() {
	T=$XS_TMP/text
	xs stats "$IF_STEER" --format prometheus >"$T.prom"
	promtool_ok "$T.prom"
	scrape >"$T.scrape"
	n=$("$PYTHON" "$PROM" same "$T.prom" "$T.scrape") ||
		fail "stats --format prometheus and /metrics differ: $n"
	echo "ok: stats --format prometheus = the agent's data-plane series ($n)"
	grep -q '^xdpsteer_config_info{iface="'"$IF_STEER"'",algo="jump",digest="[0-9a-f]\{8\}",seed_digest="[0-9a-f]\{8\}"} 1$' "$T.prom" ||
		fail "no xdpsteer_config_info line"
	expect_error "--format xml" "is not text, json or prometheus" xs stats "$IF_STEER" --format xml
	expect_usage "--json with --format prometheus" "two formats" \
		xs stats "$IF_STEER" --json --format prometheus
	expect_usage "--watch with --format prometheus" "takes no --json, --format" \
		xs stats "$IF_STEER" --watch --format prometheus
	rc=0
	xs stats "$IF_STEER" --format json | pyx 'd["ifname"]' - >/dev/null || rc=$?
	assert_eq "--format json is --json" "$rc" 0
}

t_agent_values() {
	T=$XS_TMP/values
	scrape >"$T.1"
	t1=$(value "$T.1" "xdpsteer_agent_last_apply_timestamp_seconds{iface=$IF_STEER}")
	sleep 1.1
	conf agent.conf "target cpu 0" "service $SVC" "backend $SVC $BE1" "backend $SVC $BE2" >/dev/null
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.2"
		[ "$(value "$T.2" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" = 2 ] && break
		sleep 0.05
	done
	assert_eq "config revision after a change" "$(value "$T.2" 'xdpsteer_agent_config_revision{}')" 2
	assert_eq "applied revision" "$(value "$T.2" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" 2
	t2=$(value "$T.2" "xdpsteer_agent_last_apply_timestamp_seconds{iface=$IF_STEER}")
	[ "$t2" -gt "$t1" ] && [ "$t2" -le "$(date +%s)" ] || fail "last apply time: $t1, then $t2"
	echo "ok: last apply time moved from $t1 to $t2"
	assert_eq "targets after the change" "$(grep -c '^xdpsteer_target_packets_total' "$T.2")" 1
	conf agent.conf "target cpu 0" "service $SVC" "backend $SVC 300.1.1.1" >/dev/null
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.3"
		[ "$(value "$T.3" 'xdpsteer_agent_config_errors_total{}')" = 1 ] && break
		sleep 0.05
	done
	assert_eq "config errors" "$(value "$T.3" 'xdpsteer_agent_config_errors_total{}')" 1
	assert_eq "config error now" "$(value "$T.3" 'xdpsteer_agent_config_error{}')" 1
	assert_eq "revision seen" "$(value "$T.3" 'xdpsteer_agent_config_revision{}')" 3
	assert_eq "revision still applied" "$(value "$T.3" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" 2
	promtool_ok "$T.3"
	# Put the two targets back for the live view.
	conf agent.conf "target cpu 0" "target cpu 1" "service $SVC" \
		"backend $SVC $BE1" "backend $SVC $BE2" >/dev/null
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.4"
		[ "$(value "$T.4" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" = 4 ] && break
		sleep 0.05
	done
	assert_eq "applied revision after the fix" "$(value "$T.4" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" 4
	# Neither /metrics' neighbours nor other methods serve metrics.
	assert_eq "GET /nothing" "$(run_in "$NS_STEER" curl -s -o /dev/null -w '%{http_code}' "http://$ADDR/nothing")" 404
	assert_eq "POST /metrics" "$(run_in "$NS_STEER" curl -s -o /dev/null -w '%{http_code}' -d x=1 "$URL")" 405
}

# total_pps FILE: the steered packets (targets and backends) in a stats --json.
total_packets() { pyx 'sum(t["packets"] for t in d["targets"]) + sum(b["packets"] for s in d["services"] for b in s["backends"])' "$1"; }

t_watch_piped() {
	T=$XS_TMP/watch
	sender queues "$STEER_IP" 0 "$CLIENT_IP:20000-20015"
	sender vip "$VIP" 1 "$CLIENT_IP:21000-21015"
	sleep 1
	xs stats "$IF_STEER" --json >"$T.before"
	s0=$(date +%s.%N)
	# Five rounds of lines: targets 2, service 1, backends 2, total 1, counters; head ends it.
	rc=0
	xs stats "$IF_STEER" --watch 1 | head -n 40 >"$T.out" || rc=$?
	# head ends the pipe: the watch dies of SIGPIPE (141) at its next line.
	[ "$rc" = 0 ] || [ "$rc" = 141 ] || fail "stats --watch | head: exit status $rc"
	s1=$(date +%s.%N)
	xs stats "$IF_STEER" --json >"$T.after"
	stop_senders
	sed 's/^/    /' "$T.out" | head -n 12
	grep -q $'\033' "$T.out" && fail "ANSI escapes in piped output"
	grep -Evq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8} '"$IF_STEER"' (target|service|backend|total|counter).*: [0-9.]+ ' "$T.out" &&
		fail "a line of another shape: $(grep -Ev "^[0-9-]+T[0-9:]+ $IF_STEER " "$T.out" || true)"
	echo "ok: plain, timestamped lines, no escapes"
	ref=$(pyx "($(total_packets "$T.after") - $(total_packets "$T.before")) / ($s1 - $s0)" "$T.after")
	totals=$(awk '/ total: / { print $4 }' "$T.out" | paste -sd' ')
	echo "rates the live view printed: $totals pkt/s; the counters moved $ref pkt/s"
	"$PYTHON" -c 'import sys, statistics
ref = float(sys.argv[1]); got = [float(x) for x in sys.argv[2].split()]
assert len(got) >= 3, "fewer than three rounds: %s" % got
m = statistics.median(got)
assert ref > 0 and m > 0, "no traffic (ref %.1f, median %.1f)" % (ref, m)
assert abs(m - ref) / ref < 0.35, "median %.1f pkt/s, counters moved %.1f pkt/s" % (m, ref)
print("ok: median %.1f pkt/s within 35%% of %.1f" % (m, ref))' "$ref" "$totals"
	grep -q "target cpu 0: [1-9]" "$T.out" && grep -q "target cpu 1: " "$T.out" &&
		grep -q "backend $SVC $BE1: [1-9]" "$T.out" && grep -q "counter flow_hit: [1-9]" "$T.out" ||
		fail "a target, backend or counter line is missing or zero"
	echo "ok: per target, backend and counter rates, nonzero"
}

t_watch_sigint_and_terminal() {
	T=$XS_TMP/sig
	rc=0
	run_in "$NS_STEER" timeout --preserve-status -s INT 2.5 "$XS" stats "$IF_STEER" --watch 1 \
		>"$T.out" 2>&1 || rc=$?
	assert_eq "exit status after SIGINT" "$rc" 0
	[ "$(grep -c ' total: ' "$T.out")" -ge 1 ] || fail "no round before SIGINT: $(cat "$T.out")"
	echo "ok: $(grep -c ' total: ' "$T.out") rounds, then a clean stop"
	# --watch's value is optional: a word that is not a number is the interface.
	rc=0
	run_in "$NS_STEER" timeout --preserve-status -s INT 1.5 "$XS" stats --watch "$IF_STEER" \
		>"$T.opt" 2>&1 || rc=$?
	assert_eq "stats --watch IFACE (no SECONDS), exit status" "$rc" 0
	grep -q " $IF_STEER total: " "$T.opt" || fail "stats --watch IFACE printed: $(cat "$T.opt")"
	# On a terminal: redrawn in place (home, clear), a table, no timestamps per line.
	sender queues "$STEER_IP" 0 "$CLIENT_IP:20000-20015"
	sender vip "$VIP" 1 "$CLIENT_IP:21000-21015"
	script -qec "nsenter --net=/run/netns/$NS_STEER timeout -s INT 1.8 $XS stats $IF_STEER \
		--watch 500ms" /dev/null >"$T.tty" 2>&1 </dev/null || true
	n=$(grep -o $'\033\\[H\033\\[J' "$T.tty" | wc -l)
	[ "$n" -ge 2 ] || fail "no redraw on a terminal: $(head -c 300 "$T.tty" | od -c | head)"
	grep -q 'rates per second over 0.5 s' "$T.tty" || fail "no header on a terminal"
	stop_senders
	echo "ok: $n redraws on a terminal; the last:"
	awk 'BEGIN { RS = "\033\\[H\033\\[J" } { last = $0 } END { printf "%s", last }' "$T.tty" |
		tr -d '\r' | sed 's/^/    /'
	expect_error "--watch 0" "not a duration" xs stats "$IF_STEER" --watch 0
}

t_bad_metrics_address() {
	T=$XS_TMP/bad
	state >"$T.before"
	other=$(conf other.conf "target cpu 1")
	for a in 300.1.1.1:80 127.0.0.1 127.0.0.1:0 127.0.0.1:99999 localhost:80 '[::1:80'; do
		# (bounded: an agent that wrongly starts fails the test, it does not hang it)
		expect_error "--metrics $a" "--metrics" run_in "$NS_STEER" timeout 5 "$XS" agent \
			-f "$other" "$IF_STEER" --run-dir "$XS_TMP/brun" --metrics "$a"
	done
	# A port another process holds (the running agent's): refused before anything changes.
	expect_error "--metrics on a port in use" "cannot listen.*in use" run_in "$NS_STEER" \
		timeout 5 "$XS" agent -f "$other" "$IF_STEER" --run-dir "$XS_TMP/brun" \
		--metrics "$ADDR"
	state >"$T.after"
	cmp -s "$T.before" "$T.after" || fail "the state changed: $(diff "$T.before" "$T.after")"
	echo "ok: the interface's state is unchanged"
	stop_daemon agent TERM
}

t_agent_etcd_values() {
	T=$XS_TMP/etcd
	command -v etcd >/dev/null || skip "no etcd (make deps)"
	local etcd=http://127.0.0.1:23790 prefix=/xdpsteer/mx-$RUN_ID
	start_etcd etcd "$NS_STEER" "$etcd"
	printf '%s\n' "target cpu 0" "service $SVC" "backend $SVC $BE1" >"$T.fleet"
	rev=$(run_in "$NS_STEER" "$PYTHON" "$XS_TOP/tests/ns/fleet.py" put --etcd "$etcd" \
		--key "$prefix/fleet" --file "$T.fleet")
	daemon eagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$etcd" --prefix "$prefix" \
		--host mx --run-dir "$XS_TMP/erun" --metrics "$ADDR"
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.1" 2>/dev/null &&
			[ "$(value "$T.1" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" = "$rev" ] && break
		sleep 0.1
	done
	assert_eq "applied revision (etcd's)" "$(value "$T.1" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")" "$rev"
	assert_eq "config revision" "$(value "$T.1" 'xdpsteer_agent_config_revision{}')" "$rev"
	assert_eq "etcd up" "$(value "$T.1" 'xdpsteer_agent_etcd_up{}')" 1
	promtool_ok "$T.1"
	stop_daemon etcd TERM
	for ((i = 0; i < 100; i++)); do
		scrape >"$T.2"
		[ "$(value "$T.2" 'xdpsteer_agent_etcd_up{}')" = 0 ] && break
		sleep 0.1
	done
	assert_eq "etcd up, etcd stopped" "$(value "$T.2" 'xdpsteer_agent_etcd_up{}')" 0
	errs=$(value "$T.2" 'xdpsteer_agent_etcd_errors_total{}')
	[ "$errs" -ge 1 ] || fail "etcd errors: $errs"
	echo "ok: $errs etcd errors counted; the data plane keeps revision $(value "$T.2" "xdpsteer_agent_applied_revision{iface=$IF_STEER}")"
	stop_daemon eagent TERM
}

ns_needs textfile_format agent_scrape_during_traffic
ns_needs agent_values agent_scrape_during_traffic
ns_needs watch_piped agent_scrape_during_traffic
ns_needs watch_sigint_and_terminal agent_scrape_during_traffic
ns_needs bad_metrics_address agent_scrape_during_traffic
ns_needs agent_etcd_values bad_metrics_address

# ---------------------------------------------------------------------------
main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	for t in curl promtool script taskset; do
		command -v "$t" >/dev/null || fatal "$XS_SUITE" "missing tool: $t (make deps)"
	done
	setup_testbed || fatal "$XS_SUITE" "cannot build the testbed (veth, netns)"
	add_client_ips 2
	ip -n "$NS_CLIENT" route add "$VIP/32" via "$STEER_IP"
	# Forwarding on, so the FIB lookup of a tunnelled packet succeeds and it leaves (tx).
	run_in "$NS_STEER" sysctl -qw net.ipv4.ip_forward=1
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
