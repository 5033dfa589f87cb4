# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash disable=SC2034 # (variables here are read by the sourcing scripts)
#
# Shared harness for the xdpsteer namespace tests and the demo (source it).
# Modelled on xdp-tools' lib/testing/test_runner.sh.
#
# Testbed (names carry RUN_ID, the sourcing shell's pid, so runs never clash):
#
#   netns $NS_CLIENT                      netns $NS_STEER
#   $IF_CLIENT $CLIENT_IP  <--- veth --->  $IF_STEER $STEER_IP   (xdpsteer here)
#                                          $DEV_PREFIX<x> <-> peer  (dev targets)
#
# IPv6 is off on every veth and neighbours are static, so the only frames that
# cross $IF_STEER are the ones a test sends. The CLI runs in a namespace through
# `nsenter --net=` (not `ip netns exec`, which remounts /sys and so hides bpffs).
#
# Tests: every function t_NAME in the sourcing script is the test NAME;
# ns_select "$@" picks all or the named ones (--list prints them). Per test:
# run_test NAME FUNCTION prints "PASS: NAME", "FAIL: NAME" plus the
# output it captured, or "SKIP: NAME: reason"; finish SUITE prints
# "SUITE: N passed, N failed" and returns non-zero if anything failed or skipped.
# V=1 prints every command as it runs (and the tests' output live).

XS_TOP=${XS_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
XS=${XS:-$XS_TOP/build/xdpsteer}
FLOWS=${FLOWS:-$XS_TOP/tests/ns/flows.py}
PYTHON=${PYTHON:-python3}
BPFTOOL=${BPFTOOL:-bpftool}
V=${V:-0}

RUN_ID=${RUN_ID:-$$}
NS_STEER=xsl-$RUN_ID
NS_CLIENT=xsc-$RUN_ID
IF_STEER=xsa$RUN_ID
IF_CLIENT=xsb$RUN_ID
DEV_PREFIX=xd$RUN_ID    # dev-target veths in $NS_STEER: ${DEV_PREFIX}x, peer xe$RUN_ID<x>
# RFC 2544 benchmarking range: only ever configured inside our own namespaces.
NET=198.18.0
STEER_IP=$NET.1
CLIENT_IP=$NET.2
DPORT=9000
# xdpsteer pins an attachment of the initial network namespace in $PIN_ROOT/IFACE,
# and one of any other in $PIN_ROOT/netns:COOKIE/IFACE: use pin_dir NS IFACE.
PIN_ROOT=/sys/fs/bpf/xdpsteer

XS_TMP=""
_XS_NS=()          # namespaces we created
# "ns iface" lines xdpsteer may be attached to go to $XS_TMP/attached: a file,
# because tests run in subshells and must still be cleaned up by the parent.
_XS_PIDS=()        # background processes we started
_XS_PINROOT_NEW=0  # we created $PIN_ROOT
_XS_PASSED=0
_XS_FAILED=0
_XS_SKIPPED=0

vlog() { [ "$V" = 1 ] && printf '+ %s\n' "$*" >&2; return 0; }

# run_in NS CMD...: run CMD in network namespace NS, keeping our mount namespace.
run_in() {
	local ns=$1
	shift
	vlog "[$ns] $*"
	nsenter --net=/run/netns/"$ns" -- "$@"
}

# ns_root NS ROOT: NS's directory under ROOT, ROOT/netns:COOKIE (the cookie is
# SO_NETNS_COOKIE; our namespaces are never the initial one). Computed here, not
# asked of xdpsteer, so the tests check the rule docs/design.md states.
ns_root() {
	local c
	c=$(run_in "$1" "$PYTHON" -c 'import socket, struct
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
print(struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, 71, 8))[0])') || return 1
	echo "$2/netns:$c"
}
# pin_dir NS IFACE: the pin directory of the attachment on IFACE in NS.
pin_dir() { echo "$(ns_root "$1" "$PIN_ROOT")/$2"; }

# xs ARGS...: the CLI in the steering namespace. xs_in NS ARGS...: in NS.
xs() { run_in "$NS_STEER" "$XS" "$@"; }
xs_in() {
	local ns=$1
	shift
	run_in "$ns" "$XS" "$@"
}

# flows ARGS...: flows.py in the client namespace, aimed at the steering side.
flows() {
	run_in "$NS_CLIENT" "$PYTHON" "$FLOWS" --ns "$NS_STEER" --iface "$IF_STEER" --xs "$XS" \
		--dst "$STEER_IP" --dport "$DPORT" "$@"
}
# flows_steer ARGS...: flows.py in the steering namespace (recv).
flows_steer() {
	run_in "$NS_STEER" "$PYTHON" "$FLOWS" --ns "$NS_STEER" --iface "$IF_STEER" --xs "$XS" \
		--dst "$STEER_IP" --dport "$DPORT" "$@"
}

# pyx EXPR FILE...: evaluate a python expression over JSON files, loaded as
# d0, d1, ... (d is d0; "-" reads stdin). Prints the value (JSON for containers).
pyx() {
	"$PYTHON" -c 'import json, sys
env = {}
for i, src in enumerate(sys.argv[2:]):
    env["d%d" % i] = json.load(sys.stdin if src == "-" else open(src))
env["d"] = env.get("d0")
v = eval(sys.argv[1], env)
print(json.dumps(v, sort_keys=True) if isinstance(v, (dict, list, bool)) or v is None else v)' "$@"
}

# ---- checks (for use inside a test function) ------------------------------

fail() {
	echo "check failed: $*"
	exit 1
}
assert_eq() { # WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}
assert_ne() { # WHAT GOT NOT
	[ "$2" != "$3" ] || fail "$1: got '$2', which it must not be"
	echo "ok: $1 != $3"
}
assert_true() { # WHAT RESULT: RESULT must be "true" (as pyx prints a true bool)
	[ "$2" = true ] || fail "$1 (got: $2)"
	echo "ok: $1"
}

# expect_error WHAT PATTERN CMD...: CMD must exit non-zero with exactly one line on
# stderr matching PATTERN (grep -E) and nothing on stdout.
expect_error() {
	local what=$1 pat=$2 out err rc
	shift 2
	out=$XS_TMP/ee.out
	err=$XS_TMP/ee.err
	rc=0
	"$@" >"$out" 2>"$err" || rc=$?
	echo "  \$ ${*##*/} -> rc $rc: $(cat "$err")"
	[ "$rc" -ne 0 ] || fail "$what: exited 0 (stdout: $(cat "$out"))"
	[ "$(wc -l <"$err")" -eq 1 ] || fail "$what: want one line on stderr, got: $(cat "$err")"
	grep -Eq -- "$pat" "$err" || fail "$what: stderr does not match /$pat/"
	[ ! -s "$out" ] || fail "$what: unexpected stdout: $(cat "$out")"
	echo "ok: $what"
}

# ---- setup and teardown ---------------------------------------------------

# preflight: root, tools, the build, bpffs (mounted if missing). Returns 1 with
# the reason in PREFLIGHT_REASON if the testbed cannot run.
PREFLIGHT_REASON=""
preflight() {
	local t
	if [ "$(id -u)" -ne 0 ]; then
		PREFLIGHT_REASON="needs root (network namespaces, XDP, bpffs)"
		return 1
	fi
	for t in ip nsenter "$PYTHON" "$BPFTOOL" clang unshare setpriv mountpoint; do
		command -v "$t" >/dev/null || { PREFLIGHT_REASON="missing tool: $t (make deps)"; return 1; }
	done
	[ -x "$XS" ] || { PREFLIGHT_REASON="$XS is not built (run make)"; return 1; }
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
		vlog "mount -t bpf bpf /sys/fs/bpf"
		mount -t bpf bpf /sys/fs/bpf ||
			{ PREFLIGHT_REASON="bpffs is not mounted and cannot be mounted"; return 1; }
		echo "(mounted bpffs on /sys/fs/bpf)"
	fi
	[ -d "$PIN_ROOT" ] || _XS_PINROOT_NEW=1
	return 0
}

# ns_add NAME: a fresh namespace with lo up, registered for cleanup.
ns_add() {
	vlog "ip netns add $1"
	ip netns add "$1" || return 1
	_XS_NS+=("$1")
	ip -n "$1" link set lo up
}

_noipv6() { run_in "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"; }
_mac() { ip -n "$1" -br link show dev "$2" | awk '{print $3}'; }

# xs_tmp NAME: XS_TMP, a fresh directory /tmp/xdpsteer-NAME.XXXXXX, and XS a
# snapshot of the binary in it: a `make` during the run cannot swap it.
xs_tmp() {
	XS_TMP=$(mktemp -d "/tmp/xdpsteer-$1.XXXXXX") || return 1
	chmod 755 "$XS_TMP"
	cp "$XS" "$XS_TMP/xdpsteer" && XS=$XS_TMP/xdpsteer
}

# setup_testbed: both namespaces, the main veth pair, addresses, static ARP.
setup_testbed() {
	xs_tmp ns || return 1
	setup_pair
}
# setup_pair: setup_testbed's namespaces and veth, for the current $NS_STEER,
# $NS_CLIENT, $IF_STEER and $IF_CLIENT (test_netns.sh builds two such pairs).
setup_pair() {
	ns_add "$NS_STEER" && ns_add "$NS_CLIENT" || return 1
	vlog "ip link add $IF_STEER netns $NS_STEER type veth peer name $IF_CLIENT netns $NS_CLIENT"
	ip link add "$IF_STEER" netns "$NS_STEER" type veth peer name "$IF_CLIENT" netns "$NS_CLIENT" ||
		{ echo "cannot create a veth pair"; return 1; }
	_noipv6 "$NS_STEER" "$IF_STEER" && _noipv6 "$NS_CLIENT" "$IF_CLIENT" || return 1
	ip -n "$NS_STEER" addr add "$STEER_IP/24" dev "$IF_STEER"
	ip -n "$NS_CLIENT" addr add "$CLIENT_IP/24" dev "$IF_CLIENT"
	ip -n "$NS_STEER" neigh replace "$CLIENT_IP" lladdr "$(_mac "$NS_CLIENT" "$IF_CLIENT")" \
		dev "$IF_STEER" nud permanent
	ip -n "$NS_CLIENT" neigh replace "$STEER_IP" lladdr "$(_mac "$NS_STEER" "$IF_STEER")" \
		dev "$IF_CLIENT" nud permanent
	ip -n "$NS_STEER" link set "$IF_STEER" up
	ip -n "$NS_CLIENT" link set "$IF_CLIENT" up
}

# add_client_ips N: $NET.3 .. $NET.(N+2) on the client too (static ARP both ways).
add_client_ips() {
	local i mac
	mac=$(_mac "$NS_CLIENT" "$IF_CLIENT")
	for ((i = 3; i < $1 + 3; i++)); do
		ip -n "$NS_CLIENT" addr add "$NET.$i/24" dev "$IF_CLIENT"
		ip -n "$NS_STEER" neigh replace "$NET.$i" lladdr "$mac" dev "$IF_STEER" nud permanent
	done
}

# pass_prog: a tiny XDP_PASS object, compiled once (not managed by libxdp).
pass_prog() {
	if [ ! -f "$XS_TMP/pass.o" ]; then
		cat >"$XS_TMP/pass.c" <<-'EOF'
			#include <linux/bpf.h>
			__attribute__((section("xdp"), used)) int xs_test_pass(struct xdp_md *ctx)
			{
				return XDP_PASS;
			}
			char _license[] __attribute__((section("license"), used)) = "GPL";
		EOF
		clang -O2 -target bpf -c "$XS_TMP/pass.c" -o "$XS_TMP/pass.o" >&2 || return 1
	fi
	echo "$XS_TMP/pass.o"
}

# add_dev_target_if X [deliver]: veth ${DEV_PREFIX}X <-> xe$RUN_ID X in $NS_STEER,
# usable as a dev target. With "deliver", the peer gets an XDP_PASS program:
# veth only accepts redirected frames when its peer runs XDP.
add_dev_target_if() {
	local a=$DEV_PREFIX$1 b=xe$RUN_ID$1
	vlog "ip -n $NS_STEER link add $a type veth peer name $b"
	ip -n "$NS_STEER" link add "$a" type veth peer name "$b" || return 1
	_noipv6 "$NS_STEER" "$a" && _noipv6 "$NS_STEER" "$b"
	ip -n "$NS_STEER" link set "$a" up
	ip -n "$NS_STEER" link set "$b" up
	if [ "${2:-}" = deliver ]; then
		run_in "$NS_STEER" ip link set dev "$b" xdp obj "$(pass_prog)" sec xdp || return 1
	fi
}

# attach [ARGS...]: (re)attach xdpsteer to $IF_STEER, registered for cleanup.
attach() {
	xs_detach_quiet "$NS_STEER" "$IF_STEER"
	echo "$NS_STEER $IF_STEER" >>"$XS_TMP/attached"
	xs attach "$IF_STEER" "$@"
}
# attach_in NS IFACE [ARGS...]: same for another interface.
attach_in() {
	local ns=$1 ifc=$2
	shift 2
	echo "$ns $ifc" >>"$XS_TMP/attached"
	xs_in "$ns" attach "$ifc" "$@"
}
xs_detach_quiet() {
	[ -e "$(pin_dir "$1" "$2")/prog_xdp" ] || return 0
	xs_in "$1" detach "$2" </dev/null >/dev/null 2>&1 || true
}

# bg_start NAME CMD...: background process, killed at cleanup if still running.
bg_start() {
	local name=$1
	shift
	vlog "(background $name) $*"
	"$@" &
	_XS_PIDS+=($!)
	eval "BG_$name=$!"
}

_kill_bg() {
	local p
	# wait returns the killed server's status (143): under set -eE in the
	# test's subshell that would fail a test whose checks all passed.
	for p in "${_XS_PIDS[@]}"; do
		kill "$p" 2>/dev/null && { wait "$p" 2>/dev/null || true; }
	done
	_XS_PIDS=()
	return 0
}

# wait_file FILE SECONDS: poll for FILE to exist.
wait_file() {
	local i
	for ((i = 0; i < $2 * 50; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.02
	done
	echo "timed out after $2 s waiting for $1"
	return 1
}

cleanup() {
	local rc=$? ns ifc d
	set +e
	trap '' PIPE  # a closed stdout (| head) must not cut the cleanup short
	_kill_bg
	if [ -n "$XS_TMP" ] && [ -f "$XS_TMP/attached" ]; then
		sort -u "$XS_TMP/attached" | while read -r ns ifc; do
			{ [ -e "/run/netns/$ns" ] && [ -n "$ifc" ]; } || continue
			xs_detach_quiet "$ns" "$ifc"
			# Pins left if the detach could not run, and the namespace's directory.
			d=$(pin_dir "$ns" "$ifc") || continue
			[ -d "$d" ] && rm -rf -- "$d"
			rmdir "${d%/*}" 2>/dev/null
		done
	fi
	for ns in "${_XS_NS[@]}"; do
		vlog "ip netns del $ns"
		ip netns del "$ns" 2>/dev/null
	done
	[ "$_XS_PINROOT_NEW" = 1 ] && rmdir "$PIN_ROOT" 2>/dev/null
	[ -n "$XS_TMP" ] && rm -rf -- "$XS_TMP"
	_XS_NS=()
	_XS_PIDS=()
	XS_TMP=""
	return $rc
}

# Install the cleanup trap; signals end the script through EXIT.
install_trap() {
	trap cleanup EXIT
	trap '_on_signal INT 130' INT
	trap '_on_signal TERM 143' TERM
	trap 'exit 141' PIPE
}

# A signal (the watchdog's TERM, ^C) mid-test still reports that test as failed
# and prints the summary line before the cleanup runs.
_on_signal() {
	if [ -n "${_XS_CURRENT:-}" ]; then
		echo "FAIL: $_XS_CURRENT: interrupted by SIG$1"
		[ -f "$XS_TMP/$_XS_CURRENT.log" ] && tail -n 20 "$XS_TMP/$_XS_CURRENT.log" | sed 's/^/    /'
		_XS_FAILED=$((_XS_FAILED + 1))
		_XS_CURRENT=""
		[ -n "${XS_SUITE:-}" ] && finish "$XS_SUITE"
	fi
	exit "$2"
}

# ---- registration ---------------------------------------------------------

# ns_tests: every test of the sourcing script, in definition order. A test is
# a function named t_NAME; its name is NAME. (extdebug makes declare -F print
# the line a function starts on; it stays in this subshell.)
ns_tests() (
	local fn
	shopt -s extdebug
	for fn in $(compgen -A function t_); do
		declare -F "$fn"
	done | sort -k2,2n | awk '{ sub(/^t_/, "", $1); print $1 }'
)

# ns_needs TEST EARLIER: TEST uses what test EARLIER left behind (its traffic,
# its files); run by name, TEST brings EARLIER along. Declare before ns_select.
_XS_NEEDS=()
ns_needs() { _XS_NEEDS+=("$1 $2"); }

# ns_select ARGS...: call first in the suite's main shell, before any setup.
# Puts the tests to run in NS_TESTS: all of them, or those named (with or
# without t_) and the ones they need, in definition order either way. --list
# prints the names and exits; a name that is no test here fails the suite
# before anything runs.
NS_TESTS=()
ns_select() {
	local all t a n bad=0 changed
	local -A pos=() sel=()
	mapfile -t all < <(ns_tests)
	case ${1:-} in
	--list)
		printf '%s\n' "${all[@]}"
		exit 0
		;;
	-h | --help)
		echo "usage: $0 [--list | TEST...]"
		exit 0
		;;
	esac
	for a in "${!all[@]}"; do
		pos[${all[$a]}]=$a
	done
	for n in "${_XS_NEEDS[@]}"; do
		read -r t a <<<"$n"
		if [ -z "${pos[$t]:-}" ] || [ -z "${pos[$a]:-}" ] || [ "${pos[$a]}" -ge "${pos[$t]}" ]; then
			echo "FAIL: $XS_SUITE: ns_needs $t $a: both must be tests, $a defined first"
			bad=$((bad + 1))
		fi
	done
	for a in "$@"; do
		if [ -n "${pos[${a#t_}]:-}" ]; then
			sel[${a#t_}]=1
		else
			echo "FAIL: $XS_SUITE: no test named '$a' ($0 --list shows them)"
			bad=$((bad + 1))
		fi
	done
	if [ "$bad" -gt 0 ]; then
		echo "$XS_SUITE: 0 passed, $bad failed"
		exit 1
	fi
	changed=1
	while [ "$changed" = 1 ]; do
		changed=0
		for n in "${_XS_NEEDS[@]}"; do
			read -r t a <<<"$n"
			if [ -n "${sel[$t]:-}" ] && [ -z "${sel[$a]:-}" ]; then
				echo "($t needs $a: running it too)"
				sel[$a]=1
				changed=1
			fi
		done
	done
	NS_TESTS=()
	for t in "${all[@]}"; do
		[ $# -eq 0 ] || [ -n "${sel[$t]:-}" ] && NS_TESTS+=("$t")
	done
	return 0
}

# ---- reporting ------------------------------------------------------------

# run_test NAME FUNCTION: run FUNCTION in a subshell under set -e, capture its
# output, report. Exit status 77 from the function means skip; its last output
# line is the reason.
run_test() {
	local name=$1 fn=$2 log rc
	log=$XS_TMP/$name.log
	_XS_CURRENT=$name
	set +e
	if [ "$V" = 1 ]; then
		(
			set -eE
			trap 'echo "error: line $LINENO: $BASH_COMMAND"' ERR
			trap _kill_bg EXIT
			"$fn"
		) 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	else
		(
			set -eE
			trap 'echo "error: line $LINENO: $BASH_COMMAND"' ERR
			trap _kill_bg EXIT
			"$fn"
		) >"$log" 2>&1
		rc=$?
	fi
	set -e
	_XS_CURRENT=""
	case $rc in
	0)
		echo "PASS: $name"
		_XS_PASSED=$((_XS_PASSED + 1))
		;;
	77)
		echo "SKIP: $name: $(tail -n 1 "$log")"
		_XS_SKIPPED=$((_XS_SKIPPED + 1))
		;;
	*)
		echo "FAIL: $name"
		sed 's/^/    /' "$log"
		_XS_FAILED=$((_XS_FAILED + 1))
		;;
	esac
}

skip() {
	echo "$*"
	exit 77
}

# finish SUITE: the summary line; non-zero if any test failed or was skipped
# (a skip is not a pass: CI fails loudly instead).
finish() {
	local line="$1: $_XS_PASSED passed, $_XS_FAILED failed"
	[ "$_XS_SKIPPED" -gt 0 ] && line="$line, $_XS_SKIPPED skipped"
	echo "$line"
	[ "$_XS_FAILED" -eq 0 ] && [ "$_XS_SKIPPED" -eq 0 ]
}

# fatal SUITE REASON: the testbed cannot run; report it as a failure.
fatal() {
	echo "FAIL: $1 testbed: $2"
	echo "$1: 0 passed, 1 failed"
	exit 1
}

# ---- helpers for the load-balancer tests (test_lb.sh) ----------------------

DECAP_PIN_ROOT=/sys/fs/bpf/xdpsteer-decap
_XS_DECAP_ROOT_NEW=0  # we created $DECAP_PIN_ROOT

# decap_preflight: note whether $DECAP_PIN_ROOT exists before the tests (call
# it in the main shell, not in a test: cleanup_lb removes it only if we made it).
decap_preflight() {
	[ -d "$DECAP_PIN_ROOT" ] || _XS_DECAP_ROOT_NEW=1
}

# decap_attach_in NS IFACE [ARGS...]: xdpsteer's backend-side decap program on
# IFACE, registered for cleanup (in $XS_TMP/decap, as attachments are).
decap_attach_in() {
	local ns=$1 ifc=$2
	shift 2
	echo "$ns $ifc" >>"$XS_TMP/decap"
	xs_in "$ns" decap attach "$ifc" "$@"
}
# decap_detach_quiet NS IFACE: remove it if it is there.
# decap_pin_dir NS IFACE: its pin directory (keyed by namespace, as pin_dir's).
decap_pin_dir() { echo "$(ns_root "$1" "$DECAP_PIN_ROOT")/$2"; }
decap_detach_quiet() {
	[ -e "$(decap_pin_dir "$1" "$2")" ] || return 0
	xs_in "$1" decap detach "$2" </dev/null >/dev/null 2>&1 || true
}

# ---- the bridge testbed of the load-balancer suites -------------------------
#
# One bridge, br0, in the namespace $NS_SW (the suite names it, with its other
# namespaces); every other namespace has a veth IF to it, whose peer s$IF is a
# port of br0. IPv6 is off on br0 and its ports.

# bridge_add: the namespace $NS_SW, with br0 up in it.
bridge_add() {
	ns_add "$NS_SW" || return 1
	ip -n "$NS_SW" link add br0 type bridge || return 1
	_noipv6 "$NS_SW" br0
	ip -n "$NS_SW" link set br0 up
}

# bridge_port NS IF IP4 [MTU [IP6]]: veth IF in NS with IP4/24 (and IP6/64),
# its peer s$IF on br0, both up; MTU on both ends if given (else the default).
# IPv6 is off on s$IF, and on IF unless IP6 is given.
bridge_port() {
	local ns=$1 ifc=$2 ip6=${5:-} mtu=()
	[ -z "${4:-}" ] || mtu=(mtu "$4")
	ip link add "$ifc" netns "$ns" "${mtu[@]}" type veth peer name "s$ifc" netns "$NS_SW" \
		"${mtu[@]}" || return 1
	[ -n "$ip6" ] || _noipv6 "$ns" "$ifc"
	_noipv6 "$NS_SW" "s$ifc"
	ip -n "$NS_SW" link set "s$ifc" master br0 up
	ip -n "$ns" addr add "$3/24" dev "$ifc"
	[ -z "$ip6" ] || ip -n "$ns" addr add "$ip6/64" dev "$ifc" nodad
	ip -n "$ns" link set "$ifc" up
}

# bridge_port_xdp IF OBJ: OBJ's program (section xdp) on IF's peer s$IF. veth
# delivers a frame sent with XDP_TX only to a peer that runs XDP itself, so a
# load balancer's port carries an XDP_PASS program (pass_prog, xdp_pass.bpf.c).
bridge_port_xdp() {
	run_in "$NS_SW" ip link set dev "s$1" xdp obj "$2" sec xdp
}

# backend_vips NS IF VIP...: a backend that answers for the VIPs itself (DSR):
# each VIP on lo (/32, or /128 for IPv6), and no reverse-path filter (all,
# default, IF, lo), as the packets for the VIPs arrive on IF. The decap
# program (decap_attach_in) is the caller's.
backend_vips() {
	local ns=$1 ifc=$2 v
	shift 2
	for v in "$@"; do
		if [[ $v == *:* ]]; then
			ip -n "$ns" addr add "$v/128" dev lo nodad
		else
			ip -n "$ns" addr add "$v/32" dev lo
		fi
	done
	run_in "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		"net.ipv4.conf.$ifc.rp_filter=0" net.ipv4.conf.lo.rp_filter=0
}

# dsr_testbed [--decap] PASS_OBJ LB...: the bridge testbed of a client, load
# balancers and backends that answer the client directly (DSR), with the names
# the suite sets: the client $NS_CL ($IF_CL, $CL4, MTU $MTU_CLIENT); each load
# balancer by the suffix LB of its names (namespace $NS_<LB>, veth $IF_<LB>,
# address $<LB>4, MTU $MTU_DC); the backends ${BES[@]} (namespace `be_ns I`,
# veth `be_if I`, address `be4 I`, MTU $MTU_DC). The client computes TX
# checksums in software (a partial checksum does not survive XDP_TX) and routes
# $VIPNET4 via the first load balancer; the load balancers forward
# (bpf_fib_lookup needs it) and their ports run PASS_OBJ (see bridge_port_xdp);
# each backend has $VIP (backend_vips) and, with --decap, xdpsteer's decap.
dsr_testbed() {
	local decap=0 obj lb i ns ifc ip
	[ "$1" != --decap ] || { decap=1; shift; }
	obj=$1
	shift
	bridge_add && ns_add "$NS_CL" || return 1
	for lb in "$@"; do
		ns=NS_$lb
		ns_add "${!ns}" || return 1
	done
	for i in "${BES[@]}"; do
		ns_add "$(be_ns "$i")" || return 1
	done
	bridge_port "$NS_CL" "$IF_CL" "$CL4" "$MTU_CLIENT" || return 1
	for lb in "$@"; do
		ns=NS_$lb ifc=IF_$lb ip=${lb}4
		bridge_port "${!ns}" "${!ifc}" "${!ip}" "$MTU_DC" || return 1
	done
	for i in "${BES[@]}"; do
		bridge_port "$(be_ns "$i")" "$(be_if "$i")" "$(be4 "$i")" "$MTU_DC" || return 1
	done
	run_in "$NS_CL" ethtool -K "$IF_CL" tx off >/dev/null || return 1
	ip=${1}4
	ip -n "$NS_CL" route add "$VIPNET4" via "${!ip}"
	for lb in "$@"; do
		ns=NS_$lb ifc=IF_$lb
		run_in "${!ns}" sysctl -qw net.ipv4.conf.all.forwarding=1 || return 1
		bridge_port_xdp "${!ifc}" "$obj" || return 1
	done
	for i in "${BES[@]}"; do
		ns=$(be_ns "$i")
		backend_vips "$ns" "$(be_if "$i")" "$VIP" || return 1
		[ "$decap" = 0 ] || decap_attach_in "$ns" "$(be_if "$i")" >/dev/null || return 1
	done
}

# kill_ns_pids NS...: end every process left in our namespaces NS (by pid).
kill_ns_pids() {
	local ns p
	for ns in "$@"; do
		[ -e "/run/netns/$ns" ] || continue
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$p" 2>/dev/null
		done
	done
	return 0
}

# cleanup_lb: the extra cleanup of the load-balancer tests, then cleanup.
# Install with `trap cleanup_lb EXIT` after install_trap.
cleanup_lb() {
	local rc=$? ns ifc d
	set +e
	trap '' PIPE
	_kill_bg
	kill_ns_pids "${_XS_NS[@]}"
	if [ -n "$XS_TMP" ] && [ -f "$XS_TMP/decap" ]; then
		sort -u "$XS_TMP/decap" | while read -r ns ifc; do
			{ [ -e "/run/netns/$ns" ] && [ -n "$ifc" ]; } || continue
			decap_detach_quiet "$ns" "$ifc"
			d=$(decap_pin_dir "$ns" "$ifc") || continue
			[ -d "$d" ] && rm -rf -- "$d"
			rmdir "${d%/*}" 2>/dev/null
		done
	fi
	[ "$_XS_DECAP_ROOT_NEW" = 1 ] && rmdir "$DECAP_PIN_ROOT" 2>/dev/null
	(exit "$rc")
	cleanup
}
