#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The shipped systemd unit, xdpsteer-agent@.service, under a real systemd:
# `make install DESTDIR=...` stages it with the CLI, and systemd-nspawn boots
# this host's own /usr (--volatile=yes: a tmpfs root, so /etc is writable but
# for the sandbox) in a network namespace of ours holding two veths. Two
# instances start side by side, each applies its own file and runs in its own
# run directory with no restart, the sandbox holds, and a stop is clean.
# The container has its own bpffs, so no pin reaches the host's.
# systemd that cannot boot is a failure, never a skip. About 10 s.
#
#   tests/ns/test_unit.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=unit
if [ -z "${XS_UNIT_WATCHDOG:-}" ]; then
	export XS_UNIT_WATCHDOG=1
	exec timeout -k 20 "${XS_UNIT_TIMEOUT:-90}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

NS_UNIT=xsu-$RUN_ID
IF_A=xua$RUN_ID
IF_B=xub$RUN_ID
UNIT=xdpsteer-agent@
NSPAWN_PID=""
CPID=""      # the container's systemd, as the host sees it
STAGE=""
BPF_MNT=""   # the container's own bpffs, mounted here

# cx CMD...: run CMD in the container (its mount, pid, net, uts and ipc namespaces).
cx() {
	vlog "[container] $*"
	nsenter -t "$CPID" -m -p -n -u -i -- "$@"
}
prop() { cx systemctl show -P "$2" "$UNIT$1.service"; }
# A CLI that took "status IFACE" for two interfaces would run an agent: bounded.
status_of() { cx timeout 5 /usr/local/sbin/xdpsteer agent status "$1" -j; }

# wait_applied IFACE: until IFACE's agent answers with its file applied, no error.
wait_applied() {
	local end=$((SECONDS + 10))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(status_of "$1" 2>/dev/null | pyx 'd["applied"] == 1 and d["error"] is None' - 2>/dev/null)" = true ] &&
			return 0
		sleep 0.1
	done
	echo "the agent of $1 never applied its file: $(status_of "$1" 2>&1)"
	echo "  $UNIT$1: $(prop "$1" ActiveState)/$(prop "$1" SubState), NRestarts=$(prop "$1" NRestarts); its journal ends:"
	cx journalctl -q -o cat -n 4 -u "$UNIT$1.service" | sed 's/^/    /'
	return 1
}

# boot: the container, up to a running (or degraded) system; else 1, the reason
# in BOOT_ERR (not printed: a signal trap must find stdout as main left it).
BOOT_ERR=""
booterr() {
	BOOT_ERR=$*
	return 1
}
boot() {
	local i st="" t0 t1
	t0=$(date +%s%N)
	STAGE=$XS_TMP/stage
	make -s -C "$XS_TOP" install DESTDIR="$STAGE" >"$XS_TMP/install.log" 2>&1 ||
		{ booterr "make install DESTDIR=$STAGE failed: $(tail -n 5 "$XS_TMP/install.log")"; return; }
	install -m 0755 "$XS" "$STAGE/usr/local/sbin/xdpsteer" # the binary under test
	printf '%s\n' "service 10.9.0.10:80/tcp check tcp interval 200ms timeout 200ms" \
		"backend 10.9.0.10:80/tcp 10.9.1.1" >"$STAGE/etc/xdpsteer/$IF_A.conf"
	printf '%s\n' "service 10.9.0.20:80/tcp" "backend 10.9.0.20:80/tcp 10.9.2.1" \
		"backend 10.9.0.20:80/tcp 10.9.2.2" >"$STAGE/etc/xdpsteer/$IF_B.conf"
	chmod 600 "$STAGE"/etc/xdpsteer/*.conf
	t1=$(date +%s%N)
	systemd-id128 new >"$XS_TMP/machine-id"
	BPF_MNT=$XS_TMP/bpf
	mkdir "$BPF_MNT"
	mount -t bpf bpf "$BPF_MNT" || { booterr "cannot mount a bpffs on $BPF_MNT"; BPF_MNT=""; return 1; }

	ns_add "$NS_UNIT" || { booterr "cannot create netns $NS_UNIT"; return; }
	ip -n "$NS_UNIT" link add "$IF_A" type veth peer name "$IF_B" &&
		ip -n "$NS_UNIT" link set "$IF_A" up && ip -n "$NS_UNIT" link set "$IF_B" up ||
		{ booterr "cannot create the veth pair in $NS_UNIT"; return; }

	# basic.target: none of the host's enabled services. The machine-id makes
	# it no first boot (systemd-firstboot would wait for a console); being a
	# read-only mount, systemd-machine-id-commit fails: "degraded" is fine. nspawn
	# keeps neither CAP_BPF nor CAP_PERFMON for the container; a host's
	# systemd has them all, so the unit's bounding set is what limits it.
	systemd-nspawn --quiet --boot --directory=/ --volatile=yes --register=no --keep-unit \
		--capability=CAP_NET_ADMIN,CAP_BPF,CAP_PERFMON --system-call-filter=bpf \
		--machine="xsu$RUN_ID" --network-namespace-path="/run/netns/$NS_UNIT" \
		--bind="$BPF_MNT:/sys/fs/bpf" --bind-ro="$XS_TMP/machine-id:/etc/machine-id" \
		--bind-ro="$STAGE/usr/local:/usr/local" --bind-ro="$STAGE/etc/xdpsteer:/etc/xdpsteer" \
		--console=passive -- --unit=basic.target >"$XS_TMP/nspawn.log" 2>&1 </dev/null &
	NSPAWN_PID=$!
	for ((i = 0; i < 300; i++)); do
		kill -0 "$NSPAWN_PID" 2>/dev/null ||
			{ booterr "systemd-nspawn exited: $(tail -n 5 "$XS_TMP/nspawn.log")"; return; }
		[ -z "$CPID" ] && CPID=$(pgrep -P "$NSPAWN_PID" -x systemd || true)
		if [ -n "$CPID" ]; then
			st=$(cx systemctl is-system-running 2>/dev/null || true)
			case $st in running | degraded) break ;; esac
		fi
		sleep 0.1
	done
	case $st in
	running | degraded) ;;
	*)
		booterr "systemd did not boot in 30 s (state '$st'): $(tail -n 5 "$XS_TMP/nspawn.log")"
		return
		;;
	esac
	echo "(make install: $(((t1 - t0) / 1000000)) ms; the container up and systemd $st: $((($(date +%s%N) - t1) / 1000000)) ms)"
	cx /usr/local/sbin/xdpsteer attach "$IF_A" --xdp-mode skb >/dev/null &&
		cx /usr/local/sbin/xdpsteer attach "$IF_B" --xdp-mode skb >/dev/null ||
		{ booterr "cannot attach xdpsteer in the container"; return; }
}

cleanup_unit() {
	local rc=$? i
	set +e
	trap '' PIPE
	if [ -n "$NSPAWN_PID" ]; then
		# TERM: nspawn asks systemd to power off; a container that hangs is killed.
		kill "$NSPAWN_PID" 2>/dev/null
		for ((i = 0; i < 100; i++)); do
			kill -0 "$NSPAWN_PID" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$NSPAWN_PID" 2>/dev/null; then
			[ -n "$CPID" ] && kill -KILL "$CPID" 2>/dev/null
			kill -KILL "$NSPAWN_PID" 2>/dev/null
		fi
		wait "$NSPAWN_PID" 2>/dev/null
	fi
	[ -n "$BPF_MNT" ] && umount "$BPF_MNT"
	(exit "$rc")
	cleanup
}

# ---- tests ------------------------------------------------------------------

t_two_instances() {
	local i pa pb
	cx systemctl start "$UNIT$IF_A.service" "$UNIT$IF_B.service" ||
		fail "systemctl start failed: $(cx systemctl status --no-pager -n 10 "$UNIT$IF_A" "$UNIT$IF_B")"
	i=0
	wait_applied "$IF_A" || i=1
	wait_applied "$IF_B" || i=1
	[ "$i" = 0 ] || fail "the two instances did not both apply their files"
	for i in "$IF_A" "$IF_B"; do
		assert_eq "$i: ActiveState" "$(prop "$i" ActiveState)" active
		assert_eq "$i: the agent answering on /run/xdpsteer/$i is the unit's" \
			"$(status_of "$i" | pyx 'd["pid"]' -)" "$(prop "$i" MainPID)"
	done
	assert_eq "$IF_A: services" \
		"$(cx /usr/local/sbin/xdpsteer service list "$IF_A" --json | pyx '[s["service"] for s in d]' -)" \
		'["10.9.0.10:80/tcp"]'
	assert_eq "$IF_B: services" \
		"$(cx /usr/local/sbin/xdpsteer service list "$IF_B" --json | pyx '[len(s["backends"]) for s in d]' -)" \
		'[2]'
	# Running, not restarting: the same process after more than RestartSec.
	pa=$(prop "$IF_A" MainPID)
	pb=$(prop "$IF_B" MainPID)
	sleep 2.5
	for i in "$IF_A" "$IF_B"; do
		assert_eq "$i: NRestarts" "$(prop "$i" NRestarts)" 0
	done
	assert_eq "MainPIDs after 2.5 s" "$(prop "$IF_A" MainPID) $(prop "$IF_B" MainPID)" "$pa $pb"
	# Nested RuntimeDirectory=: the parent 0755, each instance's own 0755.
	assert_eq "run directories" "$(cx stat -c '%n %a %U' /run/xdpsteer /run/xdpsteer/"$IF_A" /run/xdpsteer/"$IF_B" | tr '\n' ' ')" \
		"/run/xdpsteer 755 root /run/xdpsteer/$IF_A 755 root /run/xdpsteer/$IF_B 755 root "
	# The health file is found without --run-dir: stats and service list look in /run/xdpsteer/IFACE.
	cx test -e "/run/xdpsteer/$IF_A/health-$IF_A" || fail "no health file in /run/xdpsteer/$IF_A"
	cx /usr/local/sbin/xdpsteer service list "$IF_A" >"$XS_TMP/svc.txt"
	# "health down" alone comes from the maps; the probe counts only from the file.
	grep -q 'failed in a row' "$XS_TMP/svc.txt" ||
		fail "service list $IF_A shows no health from /run/xdpsteer/$IF_A: $(cat "$XS_TMP/svc.txt")"
	echo "ok: service list $IF_A reads /run/xdpsteer/$IF_A/health-$IF_A by default"
}

t_sandbox() {
	local pid want
	pid=$(prop "$IF_A" MainPID)
	[ "$pid" -gt 0 ] || fail "no agent running for $IF_A"
	# The agent's own view, as it sees the file system (pid $pid in the
	# container, whose /etc is empty: no awk, an /etc/alternatives link).
	sx() { cx nsenter -t "$pid" -m -- "$@"; }
	cx touch /etc/xs-unit-probe && cx rm /etc/xs-unit-probe || fail "/etc is not writable outside the unit"
	sx touch /etc/xs-unit-probe 2>"$XS_TMP/err" && fail "the agent can write /etc"
	grep -q 'Read-only file system' "$XS_TMP/err" || fail "touch /etc: $(cat "$XS_TMP/err")"
	echo "ok: /etc read-only for the agent ($(cat "$XS_TMP/err"))"
	sx touch "/run/xdpsteer/$IF_B/xs-unit-probe" 2>/dev/null && fail "$IF_A's agent can write $IF_B's run directory"
	echo "ok: $IF_B's run directory read-only for $IF_A's agent"
	sx touch "/run/xdpsteer/$IF_A/xs-unit-probe" && sx rm "/run/xdpsteer/$IF_A/xs-unit-probe" ||
		fail "$IF_A's agent cannot write its run directory"
	sx mkdir /sys/fs/bpf/xs-unit-probe && sx rmdir /sys/fs/bpf/xs-unit-probe ||
		fail "the agent cannot write bpffs"
	sx sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward' 2>/dev/null && fail "the agent can write /proc/sys"
	echo "ok: its run directory and bpffs writable, /proc/sys not"
	want=$(printf '%016x' $(((1 << 12) | (1 << 21) | (1 << 39))))
	assert_eq "CapBnd (CAP_NET_ADMIN CAP_SYS_ADMIN CAP_BPF)" \
		"$(cx cat "/proc/$pid/status" | awk '/^CapBnd:/ {print $2}')" "$want"
	assert_eq "NoNewPrivs Seccomp" "$(cx cat "/proc/$pid/status" | awk '/^NoNewPrivs:|^Seccomp:/ {printf "%s ", $2}')" "1 2 "
}

# RuntimeDirectoryPreserve=restart: an agent that dies comes back drained.
t_drain_survives_restart() {
	local pid i
	status_of "$IF_B" >/dev/null
	cx timeout 5 /usr/local/sbin/xdpsteer agent drain "$IF_B" -j | pyx 'd["drained"]' - | grep -qx true ||
		fail "agent drain $IF_B did not drain"
	pid=$(prop "$IF_B" MainPID)
	cx kill -KILL "$pid"
	for ((i = 0; i < 100; i++)); do
		[ "$(status_of "$IF_B" 2>/dev/null | pyx 'd["pid"]' - 2>/dev/null)" = "$(prop "$IF_B" MainPID)" ] &&
			[ "$(prop "$IF_B" MainPID)" != "$pid" ] && [ "$(prop "$IF_B" MainPID)" != 0 ] && break
		sleep 0.1
	done
	assert_eq "$IF_B: NRestarts after a SIGKILL" "$(prop "$IF_B" NRestarts)" 1
	assert_eq "$IF_B: drained after the restart" "$(status_of "$IF_B" | pyx 'd["drained"]' -)" true
	cx timeout 5 /usr/local/sbin/xdpsteer agent undrain "$IF_B" >/dev/null
}

t_stop() {
	local i
	for i in "$IF_A" "$IF_B"; do
		assert_eq "$i: running before the stop" "$(prop "$i" ActiveState)" active
	done
	cx systemctl stop "$UNIT$IF_A.service" "$UNIT$IF_B.service" || fail "systemctl stop failed"
	for i in "$IF_A" "$IF_B"; do
		assert_eq "$i: stopped cleanly (ActiveState Result ExecMainStatus)" \
			"$(prop "$i" ActiveState) $(prop "$i" Result) $(prop "$i" ExecMainStatus)" "inactive success 0"
		cx test ! -e "/run/xdpsteer/$i" || fail "/run/xdpsteer/$i is left after the stop"
		# The data plane stays: the pins, and the state behind them.
		[ -d "$BPF_MNT/xdpsteer/$i" ] || find "$BPF_MNT" -path "*/$i" -type d | grep -q . ||
			fail "$i's pins are gone"
		cx /usr/local/sbin/xdpsteer status "$i" >/dev/null || fail "$i is no longer attached"
	done
	echo "ok: run directories removed, pins and attachments kept"
	assert_eq "$IF_B: services after the stop" \
		"$(cx /usr/local/sbin/xdpsteer service list "$IF_B" --json | pyx '[len(s["backends"]) for s in d]' -)" '[2]'
	grep -q "agent: stopped" <(cx journalctl -q -u "$UNIT$IF_A.service" -o cat) ||
		fail "no clean stop in the journal: $(cx journalctl -q -u "$UNIT$IF_A.service" -o cat | tail -n 5)"
}
# drain|undrain|status IFACE name the unit's run directory; IFACE is no path.
t_request_iface() {
	expect_error "status of an instance that is not running" \
		"no agent answers at /run/xdpsteer/xsunone$RUN_ID/agent.sock" timeout 5 "$XS" agent status "xsunone$RUN_ID"
	expect_error "a path for IFACE" "agent drain: '../x' is not an interface name" timeout 5 "$XS" agent drain ../x
	expect_error "--run-dir wins over IFACE" "no agent answers at $XS_TMP/none/agent.sock" \
		timeout 5 "$XS" agent undrain "$IF_A" --run-dir "$XS_TMP/none"
}
ns_needs sandbox two_instances
ns_needs drain_survives_restart two_instances
ns_needs stop two_instances

main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_unit EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	for t in systemd-nspawn systemd-id128 make scdoc; do
		command -v "$t" >/dev/null || fatal "$XS_SUITE" "missing tool: $t (make deps)"
	done
	xs_tmp unit || fatal "$XS_SUITE" "cannot create a temporary directory"
	# Named like a test, so a watchdog's TERM during the boot says so.
	_XS_CURRENT=boot
	boot || fatal "$XS_SUITE" "cannot boot systemd in a container: $BOOT_ERR"
	_XS_CURRENT=""
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
