#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# The README's demo (`make demo` runs tests/demo.sh), run as a test so that a
# change to what it shows (a map's layout, a command's output) cannot leave it
# broken while every other test passes:
#  - it ends with status 0 and its closing line;
#  - each of its seven sections ran, and the pool it reads from bpftool names
#    the targets it made (a cpu 0 and a dev, cpu 1's slot left empty).
# Prints "demo: N passed, N failed".
#
#   tests/ns/test_demo.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=demo
if [ -z "${XS_DEMO_WATCHDOG:-}" ]; then
	export XS_DEMO_WATCHDOG=1
	exec timeout -k 20 "${XS_DEMO_TIMEOUT:-120}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

t_demo_runs() {
	local out=$XS_TMP/demo.out rc=0
	bash "$XS_TOP/tests/demo.sh" >"$out" 2>&1 || rc=$?
	assert_eq "tests/demo.sh exit status" "$rc" 0
	assert_eq "sections shown" "$(grep -c '^== [1-7]\. ' "$out")" 7
	assert_true "it ends with its closing line" \
		"$(tail -n 1 "$out" | grep -q 'their veths and the pins. Done.$' && echo true)"
	assert_eq "the pool as slots" \
		"$(grep -o 'slot 0 -> .*' "$out")" "slot 0 -> id 0, slot 1 -> empty (removed), slot 2 -> id 128"
	[ "$rc" = 0 ] || tail -n 20 "$out"
}

main() {
	local t
	ns_select "$@"
	install_trap
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	xs_tmp demo || fatal "$XS_SUITE" "cannot make a temporary directory"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
