#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# The flow cache's size at attach (--flow-cache-size), in a private namespace:
#  - the pinned xs_flow_cache holds the asked slots for every possible CPU,
#    status reports them, and an upgrade keeps them;
#  - with the flow table off (--flow-table-size 0), status and the metrics say
#    so (0 entries, 0 slots), before and after an upgrade, and a one-entry
#    table is not off; and a plan says that established flows move, or are
#    kept by second chance, not that pinned flows stay;
#  - sizes that are not a power of two from 1 to 1048576 are refused with one
#    line, and nothing is attached.
# Prints "flowcache: N passed, N failed".
#
#   tests/ns/test_flowcache.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=flowcache
if [ -z "${XS_FC_WATCHDOG:-}" ]; then
	export XS_FC_WATCHDOG=1
	exec timeout -k 20 "${XS_FC_TIMEOUT:-120}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# Names of this suite's own, apart from lib.sh's defaults.
NS_STEER=pfl-$RUN_ID
NS_CLIENT=pfc-$RUN_ID
IF_STEER=pfa$RUN_ID
IF_CLIENT=pfb$RUN_ID

cache_entries() {
	bpftool -j map show pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_flow_cache" | pyx 'd["max_entries"]' -
}

t_size_kept_across_upgrade() {
	local cpus
	# A block per possible CPU, as libbpf counts them: "0-1", "0,2-3", ...
	cpus=$("$PYTHON" -c 'import sys; print(sum(int(r.split("-")[-1]) - int(r.split("-")[0]) + 1
		for r in open("/sys/devices/system/cpu/possible").read().strip().split(",")))')
	attach --flow-cache-size 16384 >/dev/null
	assert_eq "xs_flow_cache entries after attach" "$(cache_entries)" "$((cpus * 16384))"
	assert_eq "status: flow-cache slots" \
		"$(xs status "$IF_STEER" --json | pyx 'd[0]["flow_cache_slots"]' -)" 16384
	xs upgrade "$IF_STEER" >/dev/null
	assert_eq "xs_flow_cache entries after upgrade" "$(cache_entries)" "$((cpus * 16384))"
	attach >/dev/null
	assert_eq "xs_flow_cache entries, default" "$(cache_entries)" "$((cpus * 8192))"
}

# The flow table off: its map still has one entry, so status must ask the program.
t_table_off_reported() {
	attach --flow-table-size 0 >/dev/null
	assert_eq "status --json: flow table size, cache slots" \
		"$(xs status "$IF_STEER" --json | pyx '[d[0]["flow_table_size"], d[0]["flow_cache_slots"]]' -)" "[0, 0]"
	assert_true "status says the flow table is off" \
		"$(xs status "$IF_STEER" | grep -q 'flow table off (--flow-table-size 0)' && echo true)"
	assert_eq "metric xdpsteer_flow_table_size" \
		"$(xs stats "$IF_STEER" --format prometheus | awk '/^xdpsteer_flow_table_size/ {print $2}')" 0
	xs upgrade "$IF_STEER" >/dev/null
	assert_eq "status --json after upgrade: flow table size" \
		"$(xs status "$IF_STEER" --json | pyx 'd[0]["flow_table_size"]' -)" 0
	attach --flow-table-size 1 >/dev/null
	assert_eq "status --json: a table of one entry is not off" \
		"$(xs status "$IF_STEER" --json | pyx '[d[0]["flow_table_size"], d[0]["flow_cache_slots"]]' -)" "[1, 8192]"
}

# The plan says what a change does to established flows with no table to pin them.
t_table_off_plan() {
	local out
	attach --flow-table-size 0 >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	out=$(xs target add "$IF_STEER" cpu 1)
	assert_true "queues: established flows move (got: $out)" \
		"$(grep -q 'moves queues: .*; no flow table: established flows move with them$' <<<"$out" && echo true)"
	xs service add "$IF_STEER" 10.77.0.1:80/tcp --encap gue --second-chance on >/dev/null
	xs backend add "$IF_STEER" 10.77.0.1:80/tcp 10.78.0.1 >/dev/null
	out=$(xs backend add "$IF_STEER" 10.77.0.1:80/tcp 10.78.0.2)
	assert_true "gue with second chance: kept for its window (got: $out)" \
		"$(grep -q 'no flow table: established flows are kept by second chance for 600s$' <<<"$out" && echo true)"
	attach >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	out=$(xs target add "$IF_STEER" cpu 1)
	assert_true "with a flow table: pinned flows stay (got: $out)" \
		"$(grep -q 'moves queues: .*; pinned flows stay$' <<<"$out" && echo true)"
}

t_bad_sizes_refused() {
	local v
	xs_detach_quiet "$NS_STEER" "$IF_STEER"
	for v in 3 0 2097152 12k; do
		expect_error "--flow-cache-size $v" "--flow-cache-size: '$v' is not a" \
			xs attach "$IF_STEER" --flow-cache-size "$v"
	done
	assert_eq "attached after refused sizes" "$(test -e "$(pin_dir "$NS_STEER" "$IF_STEER")" && echo yes || echo no)" no
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
