#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Packets that do not fit the tunnel, end to end: real TCP connections from a
# client through xdpsteer to backends over a path whose MTU is smaller than
# the client's link, so that only path MTU discovery, driven by xdpsteer's
# ICMP "fragmentation needed" / "packet too big", lets them complete; and the
# same with --too-big drop, where they cannot. Needs root; about 40 s; V=1
# for detail.
#
#   tests/ns/test_pmtu.sh [--list | TEST...]
#
# Testbed (names carry RUN_ID):
#
#   $NS_C  pc$R ---- MTU 1500 ---- pl0$R  $NS_L (xdpsteer on pl0)
#                                  pl1$R ---- MTU 1600 ---- pb1$R  $NS_B1
#                                  pl2$R ---- MTU 1600 ---- pb2$R  $NS_B2
#
# The backends hold the VIPs on lo, run xdpsteer's decap on their link and
# answer the client directly through the load balancer's stack (DSR). The
# routes from the load balancer to the backends are set per test: with
# `mtu lock 1400` the tunnel path is smaller than the client's link (1500),
# so a full-size client segment (1500) is 1520 bytes encapsulated and does
# not fit; without it the links' 1600 bytes take any client packet. The
# client's veth runs an XDP_PASS program: veth delivers a frame sent back
# with XDP_TX (the ICMP answer) only to a peer that runs XDP. The client's TX
# checksum offload is off: a partial checksum does not survive XDP.
set -euo pipefail

XS_SUITE=pmtu
if [ -z "${XS_PMTU_WATCHDOG:-}" ]; then
	export XS_PMTU_WATCHDOG=1
	exec timeout -k 20 "${XS_PMTU_TIMEOUT:-200}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
FRAG=$XS_TOP/tests/ns/frag_traffic.py

R=$RUN_ID
NS_C=xpc-$R
NS_L=xpl-$R
NS_B1=xp1-$R
NS_B2=xp2-$R
IF_C=pc$R
IF_L0=pl0$R
IF_L1=pl1$R
IF_L2=pl2$R
IF_B1=pb1$R
IF_B2=pb2$R
BES=(1 2)
be_ns() { local v=NS_B$1; echo "${!v}"; }
be_if() { local v=IF_B$1; echo "${!v}"; }
lb_if() { local v=IF_L$1; echo "${!v}"; }

# RFC 2544 benchmarking and RFC 3849 documentation ranges, inside our namespaces only.
C4=198.18.2.2
C6=2001:db8:2::2
L4=198.18.2.1
L6=2001:db8:2::1
be4() { echo "198.18.1$1.2"; }
be6() { echo "2001:db8:1$1::2"; }
lb4() { echo "198.18.1$1.1"; }
lb6() { echo "2001:db8:1$1::1"; }
VIP4_TCP=198.19.2.1
VIP6_TCP=2001:db8:102::1
VIP4_UDP=198.19.2.2
VIP6_UDP=2001:db8:102::2
PORT=8080
UPORT=9100
MTU_CLIENT=1500
MTU_BE=1600
MTU_TUNNEL=1400
SEED=5eed00000000000000000000000003c1

T=""

# ---- testbed ----------------------------------------------------------------

# link NS_A IF_A NS_B IF_B MTU: a veth pair between two namespaces, IPv6 on.
link() {
	ip link add "$2" netns "$1" mtu "$5" type veth peer name "$4" netns "$3" mtu "$5" || return 1
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

setup_pmtu_testbed() {
	local i ns
	XS_TMP=$(mktemp -d /tmp/xdpsteer-pmtu.XXXXXX)
	chmod 755 "$XS_TMP"
	cp "$XS" "$XS_TMP/xdpsteer" && XS=$XS_TMP/xdpsteer || return 1
	ns_add "$NS_C" && ns_add "$NS_L" && ns_add "$NS_B1" && ns_add "$NS_B2" || return 1

	link "$NS_C" "$IF_C" "$NS_L" "$IF_L0" "$MTU_CLIENT" || return 1
	ip -n "$NS_C" addr add "$C4/24" dev "$IF_C"
	ip -n "$NS_C" addr add "$C6/64" dev "$IF_C" nodad
	ip -n "$NS_L" addr add "$L4/24" dev "$IF_L0"
	ip -n "$NS_L" addr add "$L6/64" dev "$IF_L0" nodad
	ip -n "$NS_C" route add 198.19.2.0/24 via "$L4"
	ip -n "$NS_C" -6 route add 2001:db8:102::/64 via "$L6"
	run_in "$NS_C" ethtool -K "$IF_C" tx off >/dev/null || return 1
	run_in "$NS_C" ip link set dev "$IF_C" xdp obj "$(pass_prog)" sec xdp || return 1
	run_in "$NS_L" sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || return 1

	for i in "${BES[@]}"; do
		ns=$(be_ns "$i")
		link "$NS_L" "$(lb_if "$i")" "$ns" "$(be_if "$i")" "$MTU_BE" || return 1
		ip -n "$NS_L" addr add "$(lb4 "$i")/24" dev "$(lb_if "$i")"
		ip -n "$NS_L" addr add "$(lb6 "$i")/64" dev "$(lb_if "$i")" nodad
		ip -n "$ns" addr add "$(be4 "$i")/24" dev "$(be_if "$i")"
		ip -n "$ns" addr add "$(be6 "$i")/64" dev "$(be_if "$i")" nodad
		ip -n "$ns" route add default via "$(lb4 "$i")"
		ip -n "$ns" -6 route add default via "$(lb6 "$i")"
		ip -n "$ns" addr add "$VIP4_TCP/32" dev lo
		ip -n "$ns" addr add "$VIP4_UDP/32" dev lo
		ip -n "$ns" addr add "$VIP6_TCP/128" dev lo nodad
		ip -n "$ns" addr add "$VIP6_UDP/128" dev lo nodad
		run_in "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
			"net.ipv4.conf.$(be_if "$i").rp_filter=0" net.ipv4.conf.lo.rp_filter=0 || return 1
		decap_attach_in "$ns" "$(be_if "$i")" >/dev/null || return 1
	done
}

# ---- helpers ------------------------------------------------------------------

lb() { xs_in "$NS_L" "$@"; }

# tunnel_mtu MTU|-: the load balancer's routes to the backends, with their
# MTU locked at MTU (the FIB reports it to xdpsteer), or as the links have it.
tunnel_mtu() {
	local i lock=()
	[ "$1" = - ] || lock=(mtu lock "$1")
	for i in "${BES[@]}"; do
		ip -n "$NS_L" route replace "$(be4 "$i")/32" dev "$(lb_if "$i")" "${lock[@]}"
		ip -n "$NS_L" -6 route replace "$(be6 "$i")/128" dev "$(lb_if "$i")" "${lock[@]}"
	done
}

# fresh NS_L service setup: attach (ARGS), one service SVC with both backends of FAMILY.
fresh() {
	local svc=$1 fam=$2 i
	shift 2
	xs_detach_quiet "$NS_L" "$IF_L0"
	attach_in "$NS_L" "$IF_L0" --seed "$SEED" "$@" >/dev/null
	lb service add "$IF_L0" "$svc" >/dev/null
	for i in "${BES[@]}"; do
		lb backend add "$IF_L0" "$svc" "$("be$fam" "$i")" >/dev/null
	done
	# The client has learnt nothing yet: every test discovers the path anew.
	ip -n "$NS_C" route flush cache
	ip -n "$NS_C" -6 route flush cache
}

counter() { lb stats "$IF_L0" --json | pyx "d['counters']['$1']" -; }

# tcp_servers VIP: lb_traffic.py's echo server on both backends.
tcp_servers() {
	local i
	for i in "${BES[@]}"; do
		rm -f "$T.ready$i"
		bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$LBT" serve --id "b$i" --bind "$1" --port "$PORT" \
			--ready "$T.ready$i" --max-seconds 60
	done
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
}

# connect OUT SRC VIP TIMEOUT: 6 connections of 100-200 KB each way, every byte checked.
connect() {
	run_in "$NS_C" "$PYTHON" "$LBT" connect --src "$2" --sports 41000-41005 --vip "$3" \
		--port "$PORT" --seed "$R" --min-size 100000 --max-size 200000 --parallel 3 \
		--timeout "$4" --out "$1" || true
}

# pmtu_tcp FAMILY: TCP over a 1400-byte tunnel path from a 1500-byte client link.
pmtu_tcp() {
	local fam=$1 vip src want
	if [ "$fam" = 4 ]; then
		vip=$VIP4_TCP src=$C4 want=$((MTU_TUNNEL - 20))
	else
		vip=$VIP6_TCP src=$C6 want=$((MTU_TUNNEL - 40))
	fi
	T=$XS_TMP/pmtu$fam
	tunnel_mtu "$MTU_TUNNEL"
	fresh "$([ "$fam" = 4 ] && echo "$vip" || echo "[$vip]"):$PORT/tcp" "$fam"
	tcp_servers "$vip"
	connect "$T.out.json" "$src" "$vip" 15
	assert_eq "connections that completed, every byte checked" \
		"$(pyx 'd["ok"]' "$T.out.json")" 6
	echo "bytes checked: $(pyx 'd["bytes_checked"]' "$T.out.json")"
	assert_eq "backends that served" "$(pyx 'sorted({r["backend"] for r in d["flows"].values()})' \
		"$T.out.json")" '["b1", "b2"]'
	local sent dropped
	sent=$(counter icmp_too_big_sent)
	dropped=$(counter too_big)
	echo "ICMP too big sent: $sent, dropped as too_big: $dropped"
	assert_true "at least one ICMP too big answered" "$([ "$sent" -ge 1 ] && echo true)"
	assert_eq "packets dropped as too big" "$dropped" 0
	# The client learnt the path MTU from xdpsteer's answer.
	ip -n "$NS_C" route get "$vip" | tee "$T.route"
	assert_true "the client's path MTU to the VIP is $want" \
		"$(grep -q "mtu $want" "$T.route" && echo true)"
}

# ---- tests ----------------------------------------------------------------------

# TCP over IPv4: "fragmentation needed" with MTU 1380, and the connections complete.
t_pmtu_tcp4() {
	pmtu_tcp 4
}

# TCP over IPv6 (IP6IP6): "packet too big" with MTU 1360.
t_pmtu_tcp6() {
	pmtu_tcp 6
}

# --too-big drop: the same path black-holes full-size segments; nothing completes.
t_too_big_drop() {
	T=$XS_TMP/drop
	tunnel_mtu "$MTU_TUNNEL"
	fresh "$VIP4_TCP:$PORT/tcp" 4 --too-big drop
	tcp_servers "$VIP4_TCP"
	connect "$T.out.json" "$C4" "$VIP4_TCP" 3
	assert_eq "connections that completed" "$(pyx 'd["ok"]' "$T.out.json")" 0
	assert_eq "ICMP too big sent" "$(counter icmp_too_big_sent)" 0
	assert_true "full-size segments dropped as too_big" \
		"$([ "$(counter too_big)" -ge 6 ] && echo true)"
}

# ---------------------------------------------------------------------------
main() {
	local t t0
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	decap_preflight
	setup_pmtu_testbed || fatal "$XS_SUITE" "cannot build the namespace testbed (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		t0=$(date +%s.%N)
		run_test "$t" "t_$t"
		awk -v t="$t" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "    (%s: %.1f s)\n", t, b - a }'
	done
	finish "$XS_SUITE"
}

[ "${XS_PMTU_NO_MAIN:-}" = 1 ] || main "$@"
