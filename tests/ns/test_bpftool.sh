#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# bpftool is a first-class view (docs/observing.md): with an attachment that
# holds queue targets, two services (an IPv4 VIP with IPv4 and IPv6
# backends, an IPv6 VIP with a drained one), pins, recipes, next hops and
# counters from real traffic, and a decap attachment, every pinned map is
# dumped with `bpftool -j map dump pinned` and checked by bpftool_view.py:
# every field named, enum fields printed by name, addresses as bytes, no
# union, pool headers apart from buckets. Then the dumps are read the way
# docs/observing.md says, and must agree with the CLI. Needs root; about 30 s.
#
#   tests/ns/test_bpftool.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=bpftool
# A hard bound on the whole run; TERM still runs the cleanup trap.
if [ -z "${XS_BT_WATCHDOG:-}" ]; then
	export XS_BT_WATCHDOG=1
	exec timeout -k 20 "${XS_BT_TIMEOUT:-180}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

# This suite's own names: nothing it creates can meet another suite's.
NS_STEER=vwl-$RUN_ID
NS_CLIENT=vwc-$RUN_ID
IF_STEER=vwa$RUN_ID
IF_CLIENT=vwb$RUN_ID
CHECK=$XS_TOP/tests/ns/bpftool_view.py
VIP4=10.77.0.1
VIP6=fd00:77::1
BE4A=10.9.1.1
BE4B=10.9.1.2
BE6=fd00:9::1
BE6B=fd00:9::2

T=""

# Targets, services and traffic: every map holds something worth reading.
populate() {
	attach --seed 5eed00000000000000000000000000b7
	xs target add "$IF_STEER" cpu 0 >/dev/null
	xs target add "$IF_STEER" cpu 1 >/dev/null
	xs service add "$IF_STEER" "$VIP4:53/udp" >/dev/null
	xs backend add "$IF_STEER" "$VIP4:53/udp" "$BE4A" >/dev/null
	xs backend add "$IF_STEER" "$VIP4:53/udp" "$BE4B" >/dev/null
	xs backend add "$IF_STEER" "$VIP4:53/udp" "$BE6" >/dev/null 2>&1
	xs service add "$IF_STEER" "[$VIP6]:80/tcp" --algo shuffle --hand-size 2 >/dev/null
	xs backend add "$IF_STEER" "[$VIP6]:80/tcp" "$BE6B" >/dev/null 2>&1
	xs backend add "$IF_STEER" "[$VIP6]:80/tcp" "$BE6B"0 --drain >/dev/null 2>&1
	# The IPv4 backends are reached through the client: recipes and next hops get made.
	run_in "$NS_STEER" sysctl -qw net.ipv4.conf.all.forwarding=1
	ip -n "$NS_STEER" route add 10.9.1.0/24 via "$CLIENT_IP"
	ip -n "$NS_CLIENT" route add 10.77.0.0/24 via "$STEER_IP"
	run_in "$NS_CLIENT" "$PYTHON" "$FLOWS" --dst "$VIP4" --dport 53 \
		send --flows "$CLIENT_IP:30000-30019" --count 3 >/dev/null
	flows send --flows "$CLIENT_IP:20000-20019" --count 2 >/dev/null
	# A decap attachment too: its two maps are part of the view.
	xs_in "$NS_CLIENT" decap attach "$IF_CLIENT" >/dev/null
}

# ---------------------------------------------------------------------------
# 1. Every pinned map, dumped with bpftool alone, reads as named fields.
t_every_map_reads_well() {
	T=$XS_TMP/dumps
	mkdir -p "$T"
	populate
	"$PYTHON" "$CHECK" "$(pin_dir "$NS_STEER" "$IF_STEER")" "$T"
	"$PYTHON" "$CHECK" "$(decap_pin_dir "$NS_CLIENT" "$IF_CLIENT")" "$T"
	# Every pinned map, whatever this build pins: a map the checker skipped would be missing here.
	local pinned=0 f
	for f in "$(pin_dir "$NS_STEER" "$IF_STEER")"/* "$(decap_pin_dir "$NS_CLIENT" "$IF_CLIENT")"/*; do
		bpftool map show pinned "$f" >/dev/null 2>&1 && pinned=$((pinned + 1))
	done
	assert_eq "pinned maps dumped" "$(find "$T" -name '*.json' | wc -l)" "$pinned"
}

# 2. What the dumps say is what the CLI says: docs/observing.md's recipes work.
t_dumps_answer_the_questions() {
	local d=$XS_TMP/dumps base
	# Live generation: xs_self.pool_base; the queue pool's header at that slot.
	base=$(pyx 'd[0]["formatted"]["value"]["pool_base"]' "$d/xs_self.json")
	assert_eq "queue pool slots (header in xs_pool_hdrs)" \
		"$(pyx "[e['formatted']['value']['n_buckets'] for e in d if e['formatted']['key'] == $base][0]" \
			"$d/xs_pool_hdrs.json")" 2
	assert_eq "service 2 algo" \
		"$(pyx "[e['formatted']['value']['algo'] for e in d if e['formatted']['key'] == $base + 2][0]" \
			"$d/xs_pool_hdrs.json")" XS_ALGO_SHUFFLE
	# Which backends are live: active targets of kind backend, by address bytes.
	assert_eq "live backends (active, not draining)" \
		"$(pyx "sorted('.'.join(map(str, v['addr'][12:])) if v['family'] == 'XS_FAMILY_IPV4' else v['family'] for v in (e['formatted']['value'] for e in d) if v['kind'] == 'XS_TARGET_BACKEND' and v['active'] and not v['drain'])" \
			"$d/xs_targets.json")" \
		'["10.9.1.1", "10.9.1.2", "XS_FAMILY_IPV6", "XS_FAMILY_IPV6"]'
	assert_eq "drained backends" \
		"$(pyx "len([e for e in d if e['formatted']['value']['drain']])" "$d/xs_targets.json")" 1
	# Pool 1's buckets name exactly the service's three backends.
	assert_eq "pool1 buckets" \
		"$(pyx "sorted(e['formatted']['value']['target'] for e in d)" "$d/pool1.json")" \
		"$(xs service list "$IF_STEER" --json |
			pyx "sorted(b['id'] for s in d if s['id'] == 1 for b in s['backends'])" -)"
	# Where does this flow go: its pin in xs_flows, the pinned target's address in
	# xs_targets, against `xdpsteer lookup`.
	local port=30005
	assert_eq "flow $CLIENT_IP:$port -> $VIP4:53 goes to" \
		"$(pyx "[ '.'.join(map(str, t['addr'][12:])) for f in d0 for t in [d1[f['formatted']['value']['target']]['formatted']['value']] if f['formatted']['key']['src'][12:] == [198, 18, 0, 2] and f['formatted']['key']['sport'] == ($port >> 8 | ($port & 255) << 8)][0]" \
			"$d/xs_flows.json" "$d/xs_targets.json")" \
		"$(xs lookup "$IF_STEER" udp "$CLIENT_IP:$port" "$VIP4:53" --json | pyx 'd["target"]["backend"]' -)"
	# How is an established flow sent: a current recipe in its flow cache slot.
	assert_true "a recipe to $BE4A in the flow cache" \
		"$(pyx "any(v['recipe']['ready'] and v['recipe']['family'] == 'XS_FAMILY_IPV4' and v['recipe']['daddr'][:4] == [10, 9, 1, 1] for v in (e['formatted']['value'] for e in d))" \
			"$d/xs_flow_cache.json")"
	# Why was a packet passed: the named counters, summed over CPUs, equal `stats`.
	assert_eq "flow_new over CPUs" \
		"$(pyx "sum(e['formatted']['value']['flow_new'] for e in d)" "$d/xs_counters.json")" \
		"$(xs stats "$IF_STEER" --json | pyx 'd["counters"]["flow_new"]' -)"
}
ns_needs dumps_answer_the_questions every_map_reads_well

# The decap pins are not registered with lib.sh's cleanup: removed here.
# (set +e first: the trap runs under set -e, and the exit status is kept for cleanup.)
_bt_cleanup() {
	local rc=$?
	set +e
	rm -rf -- "$(decap_pin_dir "$NS_CLIENT" "$IF_CLIENT")"
	(exit "$rc")
	cleanup
}

main() {
	local t
	ns_select "$@"
	install_trap
	trap _bt_cleanup EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	setup_testbed || fatal "$XS_SUITE" "cannot build the namespace testbed (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	# The decap attachment is not xdpsteer's: detach it here.
	xs_in "$NS_CLIENT" decap detach "$IF_CLIENT" >/dev/null 2>&1 || true
	finish "$XS_SUITE"
}

main "$@"
