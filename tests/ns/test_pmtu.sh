#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Packets that do not fit the tunnel, end to end: real TCP connections from a
# client through xdpsteer to backends over a path whose MTU is smaller than
# the client's link, so that only path MTU discovery, driven by xdpsteer's
# ICMP "fragmentation needed" / "packet too big", lets them complete; and the
# same with --too-big drop, where they cannot. Then IP fragments: UDP
# datagrams larger than the client's link, fragmented by the client, to an
# any-port VIP: every fragment of a datagram must reach the same backend,
# which reassembles it. Needs root; about 30 s; V=1 for detail.
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
	xs_tmp pmtu || return 1
	ns_add "$NS_C" && ns_add "$NS_L" && ns_add "$NS_B1" && ns_add "$NS_B2" || return 1

	link "$NS_C" "$IF_C" "$NS_L" "$IF_L0" "$MTU_CLIENT" || return 1
	ip -n "$NS_C" addr add "$C4/24" dev "$IF_C"
	ip -n "$NS_C" addr add "$C6/64" dev "$IF_C" nodad
	ip -n "$NS_L" addr add "$L4/24" dev "$IF_L0"
	ip -n "$NS_L" addr add "$L6/64" dev "$IF_L0" nodad
	for i in 3 4 5 6 7 8 9; do
		ip -n "$NS_C" addr add "198.18.2.$i/24" dev "$IF_C"
	done
	for i in 10 11 12 13 14 15 16 17; do
		ip -n "$NS_C" addr add "2001:db8:2::$i/64" dev "$IF_C" nodad
	done
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
		backend_vips "$ns" "$(be_if "$i")" "$VIP4_TCP" "$VIP4_UDP" "$VIP6_TCP" "$VIP6_UDP" || return 1
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

# fresh SVC FAMILY [ARGS]: attach anew (with ARGS), one service SVC (with
# "${SVC_ARGS[@]}") with both backends of FAMILY.
SVC_ARGS=()
fresh() {
	local svc=$1 fam=$2 i
	shift 2
	xs_detach_quiet "$NS_L" "$IF_L0"
	attach_in "$NS_L" "$IF_L0" --seed "$SEED" "$@" >/dev/null
	lb service add "$IF_L0" "$svc" "${SVC_ARGS[@]}" >/dev/null
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

# ---- fragments ----------------------------------------------------------------

# frag_run NAME VIP FIELDS SIZES SRC...: an any-port UDP service on VIP (with
# --hash-fields FIELDS, or the interface's if -), receivers on both
# backends, and from each SRC two ports x 10 datagrams of each size in SIZES
# (3000 bytes: three fragments on the client's 1500-byte link). Leaves
# $T.sent.json, $T.b1.json, $T.b2.json, and the fragment counter in $T.frags.
frag_run() {
	local name=$1 vip=$2 fields=$3 sizes=$4 svc i s args=()
	shift 4
	T=$XS_TMP/$name
	if [[ $vip == *:* ]]; then svc="[$vip]:*/udp"; else svc="$vip:*/udp"; fi
	tunnel_mtu -
	SVC_ARGS=()
	[ "$fields" = - ] || SVC_ARGS=(--hash-fields "$fields")
	fresh "$svc" "$([[ $vip == *:* ]] && echo 6 || echo 4)"
	for i in "${BES[@]}"; do
		rm -f "$T.ready$i" "$T.stop"
		bg_start "RCV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$FRAG" recv --id "b$i" --bind "$vip" --port "$UPORT" \
			--ready "$T.ready$i" --stop "$T.stop" --seconds 40 --out "$T.b$i.json"
	done
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
	for s in "$@"; do
		args+=(--src "$s")
	done
	local f0 size n=0
	f0=$(counter fragment)
	for size in $sizes; do
		run_in "$NS_C" "$PYTHON" "$FRAG" send "${args[@]}" --sport $((42000 + n * 10)) \
			--ports 2 --vip "$vip" --port "$UPORT" --count 10 --size "$size" \
			--out "$T.sent$n.json"
		n=$((n + 1))
	done
	pyx '{"datagrams": {k: v for d in (d0, d1) for k, v in d["datagrams"].items()}}' \
		"$T.sent0.json" "$T.sent$((n - 1)).json" >"$T.sent.json"
	sleep 1
	touch "$T.stop"
	for i in "${BES[@]}"; do
		local v=BG_RCV$i
		wait "${!v}" || true
	done
	echo $(($(counter fragment) - f0)) >"$T.frags"
}

# frag_check: every datagram arrived once, whole, at one backend; prints the split.
frag_check() {
	assert_eq "datagrams that arrived damaged, twice or from elsewhere" \
		"$(pyx 'd0["bad"] + d1["bad"]' "$T.b1.json" "$T.b2.json")" "[]"
	assert_eq "datagrams sent that did not arrive, reassembled, at a backend" \
		"$(pyx 'sorted(set(d2["datagrams"]) - set(d0["datagrams"]) - set(d1["datagrams"]))[:5]' \
			"$T.b1.json" "$T.b2.json" "$T.sent.json")" "[]"
	assert_eq "datagrams that arrived at both backends" \
		"$(pyx 'sorted(set(d0["datagrams"]) & set(d1["datagrams"]))' "$T.b1.json" "$T.b2.json")" "[]"
	echo "datagrams at b1: $(pyx 'len(d["datagrams"])' "$T.b1.json"), at b2: $(pyx 'len(d["datagrams"])' "$T.b2.json")"
}

# lookup_fragment VIP SRC: the backend lookup names for a fragment from SRC
# (keyed without ports: port 0 to port 0, the any-port service).
lookup_fragment() {
	local vip=$1 src=$2
	[[ $vip == *:* ]] && vip="[$vip]" src="[$src]"
	lb lookup "$IF_L0" udp "$src:0" "$vip:0" --json | pyx 'd["target"]["backend"]' -
}

# fragments FAMILY: 3000-byte UDP datagrams, fragmented by the client, to an
# any-port VIP: all fragments of each reach one backend, the one lookup names
# for its source (fragments are keyed on source, destination and protocol).
fragments() {
	local fam=$1 vip srcs=() s want got i
	if [ "$fam" = 4 ]; then
		vip=$VIP4_UDP
		for i in 2 3 4 5 6 7 8 9; do srcs+=("198.18.2.$i"); done
	else
		vip=$VIP6_UDP
		for i in 10 11 12 13 14 15 16 17; do srcs+=("2001:db8:2::$i"); done
	fi
	frag_run "frag$fam" "$vip" - 3000 "${srcs[@]}"
	frag_check
	assert_eq "fragments counted (3 per datagram)" "$(cat "$T.frags")" $((3 * 8 * 2 * 10))
	for s in "${srcs[@]}"; do
		want=$(lookup_fragment "$vip" "$s")
		[ "$want" = "$(be"$fam" 1)" ] && want=b1 || want=b2
		got=$(pyx "sorted({d['id'] for d in (d0, d1) for k in d['datagrams'] if k.rsplit(':', 1)[0].strip('[]') == '$s'})" \
			"$T.b1.json" "$T.b2.json")
		assert_eq "backends that served $s's 20 datagrams (lookup names $want)" "$got" "[\"$want\"]"
	done
	assert_true "both backends served some sources" \
		"$(pyx 'len(d0["datagrams"]) > 0 and len(d1["datagrams"]) > 0' "$T.b1.json" "$T.b2.json")"
}

# Fragmented UDP over IPv4 to an any-port VIP.
t_fragments_udp4() {
	fragments 4
}

# Fragmented UDP over IPv6 (fragment headers) to an any-port VIP.
t_fragments_udp6() {
	fragments 6
}

# With --hash-fields src,dst,proto, a client's whole datagrams and its
# fragmented ones go to the same backend: unfragmented packets are keyed as
# its fragments are.
t_fragments_and_whole_datagrams_together() {
	local srcs=(198.18.2.2 198.18.2.3 198.18.2.4 198.18.2.5 198.18.2.6 198.18.2.7)
	frag_run fragmix "$VIP4_UDP" src,dst,proto "3000 200" "${srcs[@]}"
	frag_check
	assert_eq "fragments counted (the 3000-byte datagrams only)" "$(cat "$T.frags")" $((3 * 6 * 2 * 10))
	assert_eq "sources served by more than one backend" "$(split_sources)" "[]"
	# The contrast: on the interface's fields (all five), whole datagrams are
	# keyed with their ports and fragments without, so sources split.
	frag_run fragmix_all "$VIP4_UDP" - "3000 200" "${srcs[@]}"
	frag_check
	echo "on all five fields, sources split between backends: $(split_sources)"
	assert_true "on all five fields, some source is split" "$(pyx 'len(d) > 0' <(split_sources))"
}

# split_sources: the sources whose datagrams reached both backends ($T.b1.json, $T.b2.json).
split_sources() {
	pyx 'sorted(s for s in {k.rsplit(":", 1)[0] for d in (d0, d1) for k in d["datagrams"]} if all(any(k.rsplit(":", 1)[0] == s for k in d["datagrams"]) for d in (d0, d1)))' \
		"$T.b1.json" "$T.b2.json"
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
