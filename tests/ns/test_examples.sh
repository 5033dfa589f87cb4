#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The documents' examples, run: every `# xdpsteer ...` block of README.md's
# tour runs in order on a testbed (eth1 is the steering veth, eth2 a
# dev-target veth) and must print what the README shows, line by line, with
# run-specific values (an ifindex) put to placeholders on both sides
# (tests/ns/examples.py says which, and what is not run); the EXAMPLES of
# xdpsteer(8) run, each exiting 0; and docs/usage.md's `$` examples on the
# tour's state. Needs root;
# about 25 s; V=1 for detail.
#
#   tests/ns/test_examples.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=examples
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-180}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

EXAMPLES=$XS_TOP/tests/ns/examples.py
DEV_A=${DEV_PREFIX}a

# run_examples DOC [ARGS]: DOC's examples on the testbed, from directory
# $XS_TMP/$EX_DIR (default: one of DOC's own).
run_examples() {
	local dir=$XS_TMP/${EX_DIR:-$(basename "$1").d}
	mkdir -p "$dir"
	"$PYTHON" "$EXAMPLES" --doc "$XS_TOP/$1" --ns "$NS_STEER" --xs "$XS" --dir "$dir" \
		--map eth1="$IF_STEER" --map eth2="$DEV_A" "${@:2}"
}

# README.md's five-minute tour, from attach to apply.
t_readme_tour() {
	echo "$NS_STEER $IF_STEER" >>"$XS_TMP/attached"
	run_examples README.md || fail "README.md's tour differs from the binary (above)"
	echo "ok: every example of README.md's tour printed what the README shows"
}

# xdpsteer(8)'s EXAMPLES, from a fresh attachment: each exits 0 (they show
# no output to compare).
t_man_examples() {
	xs_detach_quiet "$NS_STEER" "$IF_STEER"
	echo "$NS_STEER $IF_STEER" >>"$XS_TMP/attached"
	run_examples man/xdpsteer.8.scd --run-only || fail "xdpsteer(8)'s EXAMPLES fail (above)"
	echo "ok: every example of xdpsteer(8) ran"
}

# docs/usage.md's `$ xdpsteer` examples, on the state of README.md's tour
# just before its apply (the one they show: cpu 0, cpu 1 and dev eth2;
# backends .11 and .12 weight 3; eth1.conf edited): lookups, the plan as
# JSON, usage errors and refusals, each printing what the page shows; then
# its `#` example (a weight change, which the others must not see).
t_usage_examples() {
	xs_detach_quiet "$NS_STEER" "$IF_STEER"
	echo "$NS_STEER $IF_STEER" >>"$XS_TMP/attached"
	EX_DIR=usage.d run_examples README.md --until '$EDITOR' >"$XS_TMP/setup.log" ||
		fail "the setup from README.md failed: $(cat "$XS_TMP/setup.log")"
	EX_DIR=usage.d run_examples docs/usage.md --prompt '$' ||
		fail "docs/usage.md's examples differ from the binary (above)"
	echo "ok: every \$ example of docs/usage.md printed what the page shows"
	# Then its root-prompt one, a change (backend .12 weight 3 -> 2), last.
	EX_DIR=usage.d run_examples docs/usage.md ||
		fail "docs/usage.md's # examples differ from the binary (above)"
	echo "ok: every # example of docs/usage.md printed what the page shows"
}

ns_select "$@"
install_trap
preflight || fatal examples "$PREFLIGHT_REASON"
setup_testbed || fatal examples "cannot build the testbed"
add_dev_target_if a || fatal examples "cannot add $DEV_A"
# The tour's backends (192.168.1.0/24) are reached through the steering veth.
ip -n "$NS_STEER" route add 192.168.1.0/24 dev "$IF_STEER"

for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish examples
