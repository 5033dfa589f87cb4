#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# Valgrind memcheck on the CLI's paths: help, bad arguments, both simulators,
# and, as root in a private netns on a veth pair, a whole life cycle (attach,
# targets, stats, lookup, a service and a backend, detach). Memcheck's own
# verdict is exit code 99, so a command that rightly fails (bad arguments
# exit non-zero) is not mistaken for a memory error. Leaks count: definite
# and indirect ones are errors (--errors-for-leak-kinds).
set -uo pipefail
cd "$(dirname "$0")/../.."
XS=$PWD/${XS_BUILD:-build}/xdpsteer
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full
    "--suppressions=$PWD/tests/check/valgrind.supp"
    --errors-for-leak-kinds=definite,indirect --track-origins=yes)

pass=0
fail=0
NS=xsv-$$
IF=xsv$$
out=$(mktemp)

# Pins left by a failed run: /sys/fs/bpf/xdpsteer/netns:COOKIE/$IF, the
# namespace's directory (docs/design.md), found while the namespace lives.
cleanup() {
	local c
	c=$(nsenter "--net=/run/netns/$NS" -- python3 -c 'import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])' 2>/dev/null) &&
		rm -rf "/sys/fs/bpf/xdpsteer/netns:$c/$IF" &&
		rmdir "/sys/fs/bpf/xdpsteer/netns:$c" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -f "$out"
}
trap cleanup EXIT

# vg WANT ARGS...: memcheck on `xdpsteer ARGS`, run inside "${pre[@]}" (the
# netns, later) so valgrind traces the CLI itself, not nsenter. WANT "ok"
# wants exit 0, "fail" any exit but 0 and 99.
pre=()
vg() {
	local want=$1 rc=0
	shift
	"${pre[@]}" "${VG[@]}" "$XS" "$@" >"$out" 2>&1 || rc=$?
	if [ "$rc" -eq 99 ] || { [ "$want" = ok ] && [ "$rc" -ne 0 ]; } ||
	   { [ "$want" = fail ] && [ "$rc" -eq 0 ]; }; then
		echo "FAIL: xdpsteer $* (exit $rc, want $want)"
		sed 's/^/    /' "$out" | head -n 60
		fail=$((fail + 1))
	else
		echo "ok: xdpsteer $* (exit $rc)"
		pass=$((pass + 1))
	fi
}

vg ok --help
vg fail
vg fail no-such-command
vg fail attach
vg fail target add "$IF" cpu notanumber
vg fail lookup "$IF" tcp 10.0.0.1 10.0.0.2:80
vg fail sim resize --keys 0
vg ok sim resize --keys 20000
vg ok sim isolation --tenants 200 --queues 8 --events 20000 --hands 1,2

if [ "$(id -u)" -ne 0 ]; then
	echo "FAIL: the namespace paths need root"
	fail=$((fail + 1))
else
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
		mount -t bpf bpf /sys/fs/bpf
	fi
	ip netns add "$NS" &&
		ip link add "$IF" netns "$NS" type veth peer name "${IF}p" netns "$NS" &&
		ip -n "$NS" addr add 198.18.0.1/24 dev "$IF" &&
		ip -n "$NS" neigh replace 198.18.0.11 lladdr 02:00:00:00:00:11 dev "$IF" nud permanent &&
		ip -n "$NS" link set "${IF}p" up && ip -n "$NS" link set "$IF" up ||
		{ echo "FAIL: cannot set up netns $NS"; fail=$((fail + 1)); }
	# nsenter, not `ip netns exec`: the latter remounts /sys and hides bpffs.
	pre=(nsenter "--net=/run/netns/$NS")
	vg ok attach "$IF"
	vg ok target add "$IF" cpu 0
	vg ok stats "$IF" --json
	vg ok lookup "$IF" tcp 10.0.0.1:1234 10.0.0.2:80 --json
	vg fail target del "$IF" cpu 7
	vg ok target del "$IF" cpu 0
	vg ok service add "$IF" 10.0.0.10:80/tcp
	vg ok backend add "$IF" 10.0.0.10:80/tcp 198.18.0.11
	vg ok service list "$IF" --json
	vg ok stats "$IF" --format prometheus
	vg fail stats "$IF" --format xml
	vg ok status "$IF"
	vg ok detach "$IF"
fi
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
