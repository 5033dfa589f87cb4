#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Control-plane security of the pinned state, in a private namespace:
#  - the pin directory is 0700 and every pin 0600, owned by root;
#  - a symlink planted in the pin directory is refused, never followed;
#  - the data plane keeps running, as last configured, when no CLI runs;
#  - the CLI asks for capabilities, not uid 0, and names the ones missing.
# Prints "security: N passed, N failed".
#
#   tests/ns/test_security.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=security
if [ -z "${XS_SEC_WATCHDOG:-}" ]; then
	export XS_SEC_WATCHDOG=1
	exec timeout -k 20 "${XS_SEC_TIMEOUT:-120}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

t_pin_permissions() {
	local dir f mode bad=0
	dir=$(pin_dir "$NS_STEER" "$IF_STEER")
	attach >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	mode=$(stat -c '%a %U' "$dir")
	assert_eq "pin directory mode and owner" "$mode" "700 root"
	for f in "$dir"/*; do
		mode=$(stat -c '%a %U' "$f")
		if [ "$mode" != "600 root" ]; then
			echo "  $f is $mode"
			bad=$((bad + 1))
		fi
	done
	assert_eq "pins not 0600 root" "$bad" 0
}

t_planted_symlink_refused() {
	local dir before after out rc id
	dir=$(pin_dir "$NS_STEER" "$IF_STEER")
	attach >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	before=$(bpftool map dump pinned "$dir/xs_targets" | md5sum)
	id=$(bpftool -j map show pinned "$dir/xs_targets" | pyx 'd["id"]' -)
	# Someone with access to bpffs swaps a pin for a link to another object
	# (bpffs cannot rename: unpin, link, and re-pin by id afterwards).
	rm "$dir/xs_targets"
	ln -s "$dir/xs_counters" "$dir/xs_targets"
	set +e
	out=$(xs target add "$IF_STEER" cpu 1 2>&1)
	rc=$?
	set -e
	rm "$dir/xs_targets"
	bpftool map pin id "$id" "$dir/xs_targets"
	chmod 0600 "$dir/xs_targets"
	echo "$out"
	assert_ne "exit status with a planted symlink" "$rc" 0
	assert_true "the error names the link" \
		"$(grep -q 'symlink' <<<"$out" && echo true || echo false)"
	after=$(bpftool map dump pinned "$dir/xs_targets" | md5sum)
	assert_eq "xs_targets unchanged" "$after" "$before"
}

t_data_plane_outlives_the_cli() {
	local before after
	attach >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	xs target add "$IF_STEER" cpu 1 >/dev/null
	# Every xdpsteer command above has exited: the program and its maps are
	# held by the interface and the pins alone, and keep steering. (Not a
	# pgrep check: other test runs on the machine may have their own CLI up.)
	before=$(xs stats "$IF_STEER" --json | pyx 'sum(t["packets"] for t in d["targets"])' -)
	flows send --flows "$CLIENT_IP:23000-23049" --count 2 >/dev/null
	after=$(xs stats "$IF_STEER" --json | pyx 'sum(t["packets"] for t in d["targets"])' -)
	assert_eq "packets steered with no CLI running" "$((after - before))" 100
}

# as_user CAPS ARGS...: the CLI as uid nobody holding exactly CAPS (+bpf,+net_admin,...).
as_user() {
	local caps=$1
	shift
	run_in "$NS_STEER" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		--inh-caps="$caps" --ambient-caps="$caps" "$XS" "$@"
}

# The old check was on the uid: a service account with every capability the
# commands use was refused, and root without them was let through to fail
# part way with EPERM (or to succeed, for a map edit).
t_capabilities_not_uid() {
	local dir all=+sys_admin,+net_admin,+dac_override before
	dir=$(pin_dir "$NS_STEER" "$IF_STEER")
	attach >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	as_user "$all" target add "$IF_STEER" cpu 1 ||
		fail "uid nobody with $all: target add refused"
	as_user "$all" status "$IF_STEER" >/dev/null || fail "uid nobody with $all: status refused"
	echo "ok: uid nobody with $all may run the commands"
	before=$(bpftool map dump pinned "$dir/xs_targets" | md5sum)
	expect_error "uid nobody with CAP_BPF and CAP_NET_ADMIN only" \
		'missing capabilities: CAP_SYS_ADMIN \(.*\), CAP_DAC_OVERRIDE \([^)]*\);' \
		as_user +bpf,+net_admin target del "$IF_STEER" cpu 1
	expect_error "uid 0 without CAP_SYS_ADMIN and CAP_NET_ADMIN" \
		'missing capabilities: CAP_SYS_ADMIN \(.*\), CAP_NET_ADMIN \([^)]*\);' \
		run_in "$NS_STEER" setpriv --bounding-set=-sys_admin,-net_admin "$XS" \
		target del "$IF_STEER" cpu 1
	assert_eq "xs_targets unchanged by the refusals" \
		"$(bpftool map dump pinned "$dir/xs_targets" | md5sum)" "$before"
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
