#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# End-to-end load-balancer tests: real TCP connections from a client
# namespace to a VIP, through xdpsteer on a load-balancer namespace, to four
# backend namespaces that answer the client directly (DSR). Every byte of every
# reply is checked, and the backend that served each connection must be the one
# `xdpsteer lookup` names for that exact flow. Needs root; about 65 s; V=1
# for detail.
#
#   tests/ns/test_lb.sh [--list | TEST...]   (default: every t_* function, in order)
#
# (XS_LB_WATCHDOG=1 XS_LB_NO_MAIN=1, then `. tests/ns/test_lb.sh` in a root
# shell, defines everything without running: setup_lb_testbed, t_*, ...)
#
# Testbed (names carry RUN_ID; all on one /24 and one /64 through a bridge):
#
#        $NS_CL (client)      $NS_LBA (xdpsteer)   $NS_LBB (xdpsteer, test 6)
#              |                    |                    |
#   $NS_SW: ---+------ br0 ---------+--------------------+-------+---- ...
#              |          |          |          |
#            $NS_BE1   $NS_BE2    $NS_BE3    $NS_BE4   (VIPs on lo, decap on veth)
#
# The client routes the VIP prefixes via LB-A (via LB-B for half of test 6).
# The LB veths' bridge-side peers run an XDP_PASS program: veth delivers a
# frame sent with XDP_TX only when the receiving peer runs XDP. The client's
# TX checksum offload is off: a partial checksum does not survive XDP_TX.
# Before each traffic test, the LB's neighbour table is flushed. For ipip, the
# first packet to each backend then takes the no_neigh path (passed to the LB's
# stack, already encapsulated, which resolves the backend). For l2 the tests
# first install managed neighbour entries (`ip neigh ... managed`, which the
# kernel keeps resolved); l2_unresolved_neighbour tests l2 without them.
# The LB's and the backends' links have a larger MTU than the client's, so a
# full-size client segment still fits once encapsulated (see MTU_DC).
set -euo pipefail

XS_SUITE=lb
# A hard bound on the whole run; TERM still runs the cleanup trap.
if [ -z "${XS_LB_WATCHDOG:-}" ]; then
	export XS_LB_WATCHDOG=1
	exec timeout -k 20 "${XS_LB_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
PASS_SRC=$XS_TOP/tests/ns/xdp_pass.bpf.c

R=$RUN_ID
NS_SW=xlw-$R
NS_CL=xlc-$R
NS_LBA=xla-$R
NS_LBB=xlb-$R
IF_CL=lc$R
IF_LBA=la$R
IF_LBB=lb$R
BES=(1 2 3 4)
for i in "${BES[@]}"; do
	declare "NS_BE$i=xl$i-$R" "IF_BE$i=l$i$R"
done
be_ns() { local v=NS_BE$1; echo "${!v}"; }
be_if() { local v=IF_BE$1; echo "${!v}"; }

# RFC 2544 benchmarking and RFC 3849 documentation ranges, inside our namespaces only.
SEG4=198.18.1
SEG6=2001:db8:1:
CL4=$SEG4.2
CL6=${SEG6}:2
LBA4=$SEG4.10
LBA6=${SEG6}:10
LBB4=$SEG4.20
LBB6=${SEG6}:20
be4() { echo "$SEG4.10$1"; }
be6() { echo "${SEG6}:10$1"; }
VIPNET4=198.19.0.0/24
VIPNET6=2001:db8:100::/64
VIP4_T1=198.19.0.1
VIP6_T2=2001:db8:100::2
VIP4_T3=198.19.0.3
VIP4_T4=198.19.0.4
VIP6_T5=2001:db8:100::5
VIP4_X=198.19.0.6
VIP6_X=2001:db8:100::6
VIP4_XS=198.19.0.7
VIP4_E=198.19.0.9
VIP6_E=2001:db8:100::9
VIP4_W=198.19.0.8
VIPS4=("$VIP4_T1" "$VIP4_T3" "$VIP4_T4" "$VIP4_X" "$VIP4_XS")
VIPS6=("$VIP6_T2" "$VIP6_T5" "$VIP6_X")
PORT=8080
# The tunnel adds 20 or 40 bytes, and xdpsteer's documented policy for a packet
# too big for the encapsulation is to count it (too_big) and drop it. So, as
# for Katran, the load balancer's and the backends' links are larger than the
# client's: a full-size client segment still fits once encapsulated.
MTU_CLIENT=1500
MTU_DC=1600

# Fixed seeds: every decision is deterministic, so nothing here is statistics
# that could flake; the tolerances below still say what a fair hash must meet.
SEED=5eed00000000000000000000000001b1
SEED_X=5eed00000000000000000000000001b6
SEED_W=5eed00000000000000000000000001b8
N_TCP=200       # connections in tests 1, 2, 4, 5
N_TCP_46=120    # test 3
N_X_LOOKUP=2000 # test 6: flows looked up on both load balancers
N_X_TCP=100     # test 6: connections through each load balancer
N_W=4000        # test 8: lookups

T=""

# ---- testbed ----------------------------------------------------------------

setup_lb_testbed() {
	local i ns ifc
	xs_tmp lb || return 1
	clang -O2 -g -target bpf -c "$PASS_SRC" -o "$XS_TMP/pass.o" || return 1

	bridge_add && ns_add "$NS_CL" && ns_add "$NS_LBA" && ns_add "$NS_LBB" || return 1
	for i in "${BES[@]}"; do
		ns_add "$(be_ns "$i")" || return 1
	done

	bridge_port "$NS_CL" "$IF_CL" "$CL4" "$MTU_CLIENT" "$CL6" || return 1
	bridge_port "$NS_LBA" "$IF_LBA" "$LBA4" "$MTU_DC" "$LBA6" || return 1
	bridge_port "$NS_LBB" "$IF_LBB" "$LBB4" "$MTU_DC" "$LBB6" || return 1
	for i in "${BES[@]}"; do
		bridge_port "$(be_ns "$i")" "$(be_if "$i")" "$(be4 "$i")" "$MTU_DC" "$(be6 "$i")" || return 1
	done

	# Client: TX checksums in software; the VIPs are routed via LB-A.
	run_in "$NS_CL" ethtool -K "$IF_CL" tx off >/dev/null || return 1
	ip -n "$NS_CL" route add "$VIPNET4" via "$LBA4"
	ip -n "$NS_CL" -6 route add "$VIPNET6" via "$LBA6"

	# Load balancers: bpf_fib_lookup needs forwarding on.
	for ns in "$NS_LBA" "$NS_LBB"; do
		run_in "$ns" sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv6.conf.all.forwarding=1 ||
			return 1
	done
	for ifc in "$IF_LBA" "$IF_LBB"; do
		bridge_port_xdp "$ifc" "$XS_TMP/pass.o" || return 1
	done

	# Backends: every VIP on lo, no reverse-path filter.
	for i in "${BES[@]}"; do
		backend_vips "$(be_ns "$i")" "$(be_if "$i")" "${VIPS4[@]}" "$VIP4_E" "${VIPS6[@]}" || return 1
	done
}

# ---- helpers ------------------------------------------------------------------

# lba ARGS / lbb ARGS: the CLI on LB-A / LB-B.
lba() { xs_in "$NS_LBA" "$@"; }
lbb() { xs_in "$NS_LBB" "$@"; }

# fresh_attach NS IFACE ARGS...: detach whatever is there, attach anew.
fresh_attach() {
	local ns=$1 ifc=$2
	shift 2
	xs_detach_quiet "$ns" "$ifc"
	attach_in "$ns" "$ifc" "$@"
}

# decap on|off: xdpsteer's decap program on every backend, or on none.
decap() {
	local i
	for i in "${BES[@]}"; do
		decap_detach_quiet "$(be_ns "$i")" "$(be_if "$i")"
		if [ "$1" = on ]; then
			decap_attach_in "$(be_ns "$i")" "$(be_if "$i")" >/dev/null
		fi
	done
}

# decap_snap FILE ADDR_FN: {"<backend address>": {counter: value}}.
decap_snap() {
	local i
	{
		echo "{"
		for i in "${BES[@]}"; do
			[ "$i" = 1 ] || echo ","
			printf '"%s": ' "$("$2" "$i")"
			xs_in "$(be_ns "$i")" decap stats "$(be_if "$i")" --json | pyx 'd["counters"]' -
		done
		echo "}"
	} >"$1"
}

# servers ADDR_FN VIP: one echo server per backend, bound to VIP:$PORT, that
# names itself by its address from ADDR_FN (be4 or be6). Stopped when the test ends.
servers() {
	local i addr_fn=$1 vip=$2
	for i in "${BES[@]}"; do
		rm -f "$T.ready$i"
		# nsenter execs the server: $BG_SRV<i> is the server's own pid.
		bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
			"$PYTHON" "$LBT" serve --id "$("$addr_fn" "$i")" \
			--bind "$vip" --port "$PORT" --ready "$T.ready$i" --max-seconds 100
	done
	# Whatever way the test ends, end every server (the harness's own EXIT
	# trap stops at the first background process that died of a signal).
	trap 'set +e; servers_kill; _kill_bg' EXIT
	for i in "${BES[@]}"; do
		wait_file "$T.ready$i" 10
	done
}

# servers_kill: end the servers. servers_stop: and check that nothing is left
# running in the backend namespaces.
servers_kill() {
	local i v
	for i in "${BES[@]}"; do
		v=BG_SRV$i
		[ -n "${!v:-}" ] || continue
		kill "${!v}" 2>/dev/null || true
		wait "${!v}" 2>/dev/null || true
	done
}
servers_stop() {
	local i
	servers_kill
	for i in "${BES[@]}"; do
		[ -z "$(ip netns pids "$(be_ns "$i")")" ] || fail "processes left in $(be_ns "$i")"
	done
}

# connect OUT SRC SPORTS VIP: the TCP clients.
connect() {
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$2" --sports "$3" --vip "$4" --port "$PORT" \
		--seed "$R" --parallel 4 --timeout 8 --out "$1"
}

# predict NS IFACE OUT DST SPORTS SRC...: lookup --json for every SRC x SPORTS.
predict() {
	local ns=$1 ifc=$2 out=$3 dst=$4 sports=$5 s args=()
	shift 5
	for s in "$@"; do
		args+=(--src "$s")
	done
	"$PYTHON" "$LBT" predict --ns "$ns" --iface "$ifc" --xs "$XS" --dst "$dst" --dport "$PORT" \
		--sports "$sports" "${args[@]}" --jobs 4 --out "$out"
}

# check_served PRED OBS: every connection succeeded and was served by the
# backend predicted for its flow. Prints the counts.
check_served() {
	local pred=$1 obs=$2 n
	n=$(pyx 'len(d)' "$pred")
	assert_eq "connections attempted" "$(pyx 'd["connections"]' "$obs")" "$n"
	assert_eq "connections whose reply failed a check (first 10)" \
		"$(pyx 'dict(sorted((f, r["error"]) for f, r in d["flows"].items() if not r["ok"])[:10])' "$obs")" "{}"
	echo "bytes checked: $(pyx 'd["bytes_checked"]' "$obs") over $n connections"
	assert_eq "flows served by another backend than lookup named (mismatches)" \
		"$(pyx '{f: [r["backend"], d1[f]["backend"]] for f, r in d0["flows"].items() if r["backend"] != d1[f]["backend"]}' \
			"$obs" "$pred")" "{}"
	echo "matches: $(pyx 'sum(r["backend"] == d1[f]["backend"] for f, r in d0["flows"].items())' \
		"$obs" "$pred") of $n, mismatches 0"
}

# lb_neigh_flush NS IFACE: forget every neighbour, managed entries too.
lb_neigh_flush() {
	local a
	for a in $(ip -n "$1" neigh show dev "$2" | awk '$0 ~ /managed/ {print $1}'); do
		ip -n "$1" neigh del "$a" dev "$2"
	done
	ip -n "$1" neigh flush dev "$2"
	ip -n "$1" -6 neigh flush dev "$2"
}

# wait_neigh NS IFACE ADDR_FN: the backends' neighbour entries hold a MAC.
wait_neigh() {
	local i k ok
	for ((k = 0; k < 100; k++)); do
		ok=1
		for i in "${BES[@]}"; do
			ip -n "$1" neigh show "$("$3" "$i")" dev "$2" | grep -Eq 'REACHABLE|STALE|DELAY' || ok=0
		done
		[ "$ok" = 1 ] && return 0
		sleep 0.05
	done
	ip -n "$1" neigh show dev "$2"
	fail "the backends' neighbour entries did not resolve in 5 s"
}

# ---- 1-5. TCP through the load balancer -------------------------------------

# e2e NAME VIP ENCAP BACKEND_FAMILY(4|6) N SPORT_LO DECAP_COUNTER|-
e2e() {
	local name=$1 vip=$2 encap=$3 n=$5 lo=$6 dc=$7 svc src i addr_fn=be$4
	T=$XS_TMP/$name
	if [[ $vip == *:* ]]; then
		svc="[$vip]:$PORT/tcp"
		src=$CL6
	else
		svc="$vip:$PORT/tcp"
		src=$CL4
	fi
	local sports="$lo-$((lo + n - 1))"

	fresh_attach "$NS_LBA" "$IF_LBA" --seed "$SEED" >/dev/null
	lba service add "$IF_LBA" "$svc" --encap "$encap"
	for i in "${BES[@]}"; do
		lba backend add "$IF_LBA" "$svc" "$("$addr_fn" "$i")"
	done
	if [ "$dc" = - ]; then decap off; else decap on; fi
	lb_neigh_flush "$NS_LBA" "$IF_LBA"
	if [ "$encap" = l2 ]; then
		# l2 needs the backends' MACs resolved before their first packet
		# (see l2_unresolved_neighbour): managed entries, as Cilium uses.
		for i in "${BES[@]}"; do
			ip -n "$NS_LBA" neigh replace "$("$addr_fn" "$i")" dev "$IF_LBA" managed
		done
		wait_neigh "$NS_LBA" "$IF_LBA" "$addr_fn"
	fi
	# ipip: the first packet to each backend takes the no_neigh path.
	servers "$addr_fn" "$vip"
	[ "$dc" = - ] || decap_snap "$T.dc0.json" "$addr_fn"

	predict "$NS_LBA" "$IF_LBA" "$T.pred.json" "$vip" "$sports" "$src"
	assert_eq "flows looked up" "$(pyx 'len(d)' "$T.pred.json")" "$n"
	assert_true "no flow is pinned before its connection" \
		"$(pyx 'not any(v["pinned"] for v in d.values())' "$T.pred.json")"
	pyx '{b: sum(v["backend"] == b for v in d.values()) for b in sorted({v["backend"] for v in d.values()})}' \
		"$T.pred.json" | tee "$T.spread.json"
	assert_eq "backends that lookup uses" "$(pyx 'len(d)' "$T.spread.json")" "${#BES[@]}"

	connect "$T.obs.json" "$src" "$sports" "$vip"
	check_served "$T.pred.json" "$T.obs.json"

	predict "$NS_LBA" "$IF_LBA" "$T.pred2.json" "$vip" "$sports" "$src"
	assert_eq "flows not pinned afterwards, or pinned elsewhere" \
		"$(pyx '[f for f, v in d0.items() if not (d1[f]["pinned"] and d1[f]["backend"] == v["backend"])]' \
			"$T.pred.json" "$T.pred2.json")" "[]"

	# The load balancer's own account: one flow opened and closed (the client
	# resets) per connection, per predicted backend, and nothing went wrong.
	lba stats "$IF_LBA" --json >"$T.stats.json"
	assert_eq "flows_opened per backend" \
		"$(pyx '{b["backend"]: b["flows_opened"] for b in d["services"][0]["backends"]}' "$T.stats.json")" \
		"$(cat "$T.spread.json")"
	assert_eq "flows_closed per backend" \
		"$(pyx '{b["backend"]: b["flows_closed"] for b in d["services"][0]["backends"]}' "$T.stats.json")" \
		"$(cat "$T.spread.json")"
	assert_eq "service no_backend, too_big" \
		"$(pyx '[d["services"][0]["no_backend"], d["services"][0]["too_big"]]' "$T.stats.json")" "[0, 0]"
	assert_eq "error counters" \
		"$(pyx '{k: v for k, v in d["counters"].items() if k in ("fib_fail", "encap_error", "redirect_error", "target_gone", "no_backend", "too_big") and v}' "$T.stats.json")" "{}"
	echo "LB counters: $(pyx '{k: v for k, v in d["counters"].items() if v}' "$T.stats.json")"
	assert_true "packets went out with XDP_TX" "$(pyx 'd["counters"]["tx"] > 0' "$T.stats.json")"

	if [ "$dc" = - ]; then
		assert_eq "no_neigh (l2, managed neighbours)" "$(pyx 'd["counters"]["no_neigh"]' "$T.stats.json")" 0
		for i in "${BES[@]}"; do
			[ ! -e "$(decap_pin_dir "$(be_ns "$i")" "$(be_if "$i")")" ] || fail "decap is attached on backend $i"
			if ip -n "$(be_ns "$i")" -d link show dev "$(be_if "$i")" | grep -q 'prog/xdp'; then
				fail "backend $i has an XDP program"
			fi
		done
		echo "ok: no backend runs any XDP program (l2: plain DSR)"
	else
		decap_snap "$T.dc1.json" "$addr_fn"
		pyx '{i: {k: v - d0[i][k] for k, v in c.items() if v - d0[i][k]} for i, c in d1.items()}' \
			"$T.dc0.json" "$T.dc1.json" | tee "$T.dcd.json"
		# SYN, request, reset at least: 3 tunnel packets per connection.
		assert_true "each backend decapsulated >= 3 $dc packets per connection it served" \
			"$(pyx "all(d0[b].get('$dc', 0) >= 3 * n for b, n in d1.items())" \
				"$T.dcd.json" "$T.spread.json")"
		assert_eq "decap counters other than $dc and not_tunnel that moved" \
			"$(pyx "sorted({k for c in d.values() for k in c} - {'$dc', 'not_tunnel'})" "$T.dcd.json")" "[]"
	fi
	servers_stop
}

t_tcp_ipip_v4() { e2e tcp_ipip_v4 "$VIP4_T1" ipip 4 "$N_TCP" 30000 ipip; }
t_tcp_ipip_v6() { e2e tcp_ipip_v6 "$VIP6_T2" ipip 6 "$N_TCP" 31000 ip6ip6; }
t_tcp_ipip_v4_in_v6() { e2e tcp_ipip_v4_in_v6 "$VIP4_T3" ipip 6 "$N_TCP_46" 32000 ipv4_in_ipv6; }
t_tcp_l2_v4() { e2e tcp_l2_v4 "$VIP4_T4" l2 4 "$N_TCP" 33000 -; }
t_tcp_l2_v6() { e2e tcp_l2_v6 "$VIP6_T5" l2 6 "$N_TCP" 34000 -; }

# ---- 5b. l2 with the backends' MACs not yet resolved --------------------------

# The load balancer has never talked to the backends (a fresh host, or entries
# aged out). A connection must still get through, at worst after a SYN
# retransmission: the first SYN may be lost while the neighbour resolves, but
# the client must not wait forever for a MAC that nobody ever asks for.
t_l2_unresolved_neighbour() {
	local i svc="$VIP4_T4:$PORT/tcp"
	T=$XS_TMP/l2n
	fresh_attach "$NS_LBA" "$IF_LBA" --seed "$SEED" >/dev/null
	lba service add "$IF_LBA" "$svc" --encap l2
	decap off
	# No neighbour known when the backends are added: `backend add` must
	# install managed entries that the kernel resolves by itself.
	lb_neigh_flush "$NS_LBA" "$IF_LBA"
	for i in "${BES[@]}"; do
		lba backend add "$IF_LBA" "$svc" "$(be4 "$i")"
	done
	for i in "${BES[@]}"; do
		assert_true "managed neighbour entry for backend $i" \
			"$(ip -n "$NS_LBA" neigh show "$(be4 "$i")" dev "$IF_LBA" | grep -qw managed && echo true || echo false)"
	done
	servers be4 "$VIP4_T4"
	predict "$NS_LBA" "$IF_LBA" "$T.pred.json" "$VIP4_T4" 35000-35007 "$CL4"
	# 8 s: the SYN and its retransmissions at 1, 3 and 7 s.
	run_in "$NS_CL" "$PYTHON" "$LBT" connect --src "$CL4" --sports 35000-35007 --vip "$VIP4_T4" \
		--port "$PORT" --seed "$R" --parallel 8 --timeout 8 --out "$T.obs.json"
	lba stats "$IF_LBA" --json >"$T.stats.json"
	echo "LB counters: $(pyx '{k: v for k, v in d["counters"].items() if v}' "$T.stats.json")"
	echo "LB neighbours afterwards:"
	ip -n "$NS_LBA" neigh show dev "$IF_LBA" | sed 's/^/  /'
	check_served "$T.pred.json" "$T.obs.json"
	servers_stop
}

# ---- 6. Two hosts, same seed and configuration: same backend per flow --------

# configure NS IFACE: the same services and backends, in the same order.
x_configure() {
	local ns=$1 ifc=$2 i w
	fresh_attach "$ns" "$ifc" --seed "$SEED_X" >/dev/null
	xs_in "$ns" service add "$ifc" "$VIP4_X:$PORT/tcp"
	xs_in "$ns" service add "$ifc" "[$VIP6_X]:$PORT/tcp"
	xs_in "$ns" service add "$ifc" "$VIP4_XS:$PORT/tcp" --algo shuffle --hand-size 2 --encap l2
	for i in "${BES[@]}"; do
		w=$(((i * 3) % 4 + 1)) # 4 3 2 1... different weights per backend
		xs_in "$ns" backend add "$ifc" "$VIP4_X:$PORT/tcp" "$(be4 "$i")" --weight "$w"
		xs_in "$ns" backend add "$ifc" "[$VIP6_X]:$PORT/tcp" "$(be6 "$i")"
		xs_in "$ns" backend add "$ifc" "$VIP4_XS:$PORT/tcp" "$(be4 "$i")" --weight "$i"
	done
}

t_cross_host_consistency() {
	local s f srcs=() which
	T=$XS_TMP/x
	x_configure "$NS_LBA" "$IF_LBA" >/dev/null
	x_configure "$NS_LBB" "$IF_LBB" >/dev/null
	lba service list "$IF_LBA" --json | pyx '[[s["service"], s["algo"], s["slots"], [b["backend"] for b in s["backends"]]] for s in d]' - >"$T.cfgA"
	lbb service list "$IF_LBB" --json | pyx '[[s["service"], s["algo"], s["slots"], [b["backend"] for b in s["backends"]]] for s in d]' - >"$T.cfgB"
	assert_eq "service list on LB-B" "$(cat "$T.cfgB")" "$(cat "$T.cfgA")"

	# 2000 flows over the three services: 800 + 600 + 6 sources x 100 (shuffle
	# deals its hand from the source address).
	for s in 1 2 3 4 5 6; do srcs+=("$SEG4.$((50 + s))"); done
	for which in A B; do
		local ns=$NS_LBA ifc=$IF_LBA
		[ "$which" = B ] && ns=$NS_LBB ifc=$IF_LBB
		predict "$ns" "$ifc" "$T.p1$which.json" "$VIP4_X" 40000-40799 "$CL4"
		predict "$ns" "$ifc" "$T.p2$which.json" "$VIP6_X" 40000-40599 "$CL6"
		predict "$ns" "$ifc" "$T.p3$which.json" "$VIP4_XS" 40000-40099 "${srcs[@]}"
	done
	local total=0 n
	for s in 1 2 3; do
		n=$(pyx 'len(d)' "$T.p${s}A.json")
		total=$((total + n))
		assert_eq "service $s: flows looked up on both" "$(pyx 'len(d)' "$T.p${s}B.json")" "$n"
		assert_eq "service $s: flows whose backend, hash or slot differs between LB-A and LB-B" \
			"$(pyx '[f for f, v in d0.items() if (v["backend"], v["hash"], v["slot"]) != (d1[f]["backend"], d1[f]["hash"], d1[f]["slot"])]' \
				"$T.p${s}A.json" "$T.p${s}B.json")" "[]"
		echo "service $s spread: $(pyx 'sorted(__import__("collections").Counter(v["backend"] for v in d.values()).items())' "$T.p${s}A.json")"
	done
	assert_eq "flows compared by lookup" "$total" "$N_X_LOOKUP"

	# Real connections: the same source ports through LB-A, then LB-B.
	local sports="41000-$((41000 + N_X_TCP - 1))"
	decap on
	lb_neigh_flush "$NS_LBA" "$IF_LBA"
	lb_neigh_flush "$NS_LBB" "$IF_LBB"
	servers be4 "$VIP4_X"
	predict "$NS_LBA" "$IF_LBA" "$T.tA.json" "$VIP4_X" "$sports" "$CL4"
	predict "$NS_LBB" "$IF_LBB" "$T.tB.json" "$VIP4_X" "$sports" "$CL4"
	assert_eq "connection flows whose lookup differs between LB-A and LB-B" \
		"$(pyx '[f for f, v in d0.items() if v["backend"] != d1[f]["backend"]]' "$T.tA.json" "$T.tB.json")" "[]"

	connect "$T.oA.json" "$CL4" "$sports" "$VIP4_X"
	check_served "$T.tA.json" "$T.oA.json"
	ip -n "$NS_CL" route replace "$VIPNET4" via "$LBB4"
	ip -n "$NS_CL" neigh flush dev "$IF_CL"
	connect "$T.oB.json" "$CL4" "$sports" "$VIP4_X"
	ip -n "$NS_CL" route replace "$VIPNET4" via "$LBA4"
	check_served "$T.tB.json" "$T.oB.json"
	assert_eq "flows served by different backends through LB-A and LB-B" \
		"$(pyx '[f for f, r in d0["flows"].items() if r["backend"] != d1["flows"][f]["backend"]]' \
			"$T.oA.json" "$T.oB.json")" "[]"
	echo "ok: $N_X_TCP flows served by the same backend through either load balancer"

	# Each load balancer carried exactly one round.
	lba stats "$IF_LBA" --json >"$T.sA.json"
	lbb stats "$IF_LBB" --json >"$T.sB.json"
	for which in A B; do
		assert_eq "LB-$which flows opened for $VIP4_X" \
			"$(pyx "sum(b['flows_opened'] for s in d['services'] if s['service'] == '$VIP4_X:$PORT/tcp' for b in s['backends'])" \
				"$T.s$which.json")" "$N_X_TCP"
	done
	servers_stop
}

# ---- 7. Bad service and backend commands -------------------------------------

e_snap() {
	local f d
	d=$(pin_dir "$NS_LBA" "$IF_LBA")
	{
		for f in "$d"/xs_services "$d"/xs_vips "$d"/xs_targets "$d"/xs_self "$d"/pool*; do
			echo "== $f"
			"$BPFTOOL" map dump pinned "$f"
		done
		ls "$d"
		lba service list "$IF_LBA" --json
	} >"$1"
}
e_same() {
	e_snap "$T.after"
	cmp -s "$T.before" "$T.after" || {
		diff "$T.before" "$T.after" | head -20
		fail "$1: state changed"
	}
}
# bad WHAT PATTERN ARGS...: a rejected CLI command on LB-A that changes nothing.
bad() {
	local what=$1 pat=$2
	shift 2
	# nsenter, not run_in: with V=1, run_in logs to stderr, which is checked.
	expect_error "$what" "$pat" nsenter --net=/run/netns/"$NS_LBA" -- "$XS" "$@"
	e_same "$what"
}

t_service_cli_errors() {
	local s4="$VIP4_E:$PORT/tcp" s6="[$VIP6_E]:$PORT/tcp" m
	T=$XS_TMP/e
	fresh_attach "$NS_LBA" "$IF_LBA" >/dev/null
	lba service add "$IF_LBA" "$s4"
	lba backend add "$IF_LBA" "$s4" "$(be4 1)" --weight 2
	lba service add "$IF_LBA" "$s6"
	lba backend add "$IF_LBA" "$s6" "$(be6 1)"
	e_snap "$T.before"
	grep -c '^== ' "$T.before" | sed 's/^/maps in the snapshot: /'

	bad "VIP is a local IPv4 address" "$LBA4.*address of this host" \
		service add "$IF_LBA" "$LBA4:$PORT/tcp"
	bad "VIP is a local IPv6 address" "address of this host" \
		service add "$IF_LBA" "[$LBA6]:$PORT/tcp"
	bad "VIP is the loopback address" "address of this host" \
		service add "$IF_LBA" "127.0.0.1:$PORT/tcp"
	bad "duplicate service" "$VIP4_E:$PORT/tcp already exists" service add "$IF_LBA" "$s4"
	bad "duplicate service, other options" "already exists" \
		service add "$IF_LBA" "$s4" --encap l2 --algo shuffle
	bad "duplicate IPv6 service" "already exists" service add "$IF_LBA" "$s6"
	bad "duplicate backend" "$(be4 1) is already a backend" backend add "$IF_LBA" "$s4" "$(be4 1)"
	bad "duplicate backend, other weight" "already a backend" \
		backend add "$IF_LBA" "$s4" "$(be4 1)" --weight 5
	bad "IPv6 VIP, IPv4 backend, ipip" "IPv6.*IPv4" backend add "$IF_LBA" "$s6" "$(be4 2)"
	bad "weight 0" "weight.*0" backend add "$IF_LBA" "$s4" "$(be4 2)" --weight 0
	bad "weight 257" "weight.*257" backend add "$IF_LBA" "$s4" "$(be4 2)" --weight 257
	bad "weight not a number" "weight" backend add "$IF_LBA" "$s4" "$(be4 2)" --weight x
	bad "backend del of a backend that is not there" "$(be4 2) is not a backend" \
		backend del "$IF_LBA" "$s4" "$(be4 2)"
	bad "backend del of another service's backend" "is not a backend" \
		backend del "$IF_LBA" "$s4" "$(be6 1)"
	bad "service del of a service that is not there" "no service" \
		service del "$IF_LBA" "$VIP4_E:$((PORT + 1))/tcp"
	bad "service del, other protocol" "no service" service del "$IF_LBA" "$VIP4_E:$PORT/udp"
	bad "backend add to a service that is not there" "no service" \
		backend add "$IF_LBA" "$VIP4_E:$((PORT + 1))/tcp" "$(be4 2)"
	bad "backend that is not an address" "not an IPv4 or IPv6 address" \
		backend add "$IF_LBA" "$s4" "be2.example"
	bad "--encap unknown" "encap" service add "$IF_LBA" "$VIP4_E:1/tcp" --encap gre
	for m in "$VIP4_E:$PORT" "$VIP4_E/tcp" "$VIP4_E:$PORT/icmp" "$VIP4_E:$PORT/" \
		"$VIP4_E:70000/tcp" "$VIP4_E:-1/tcp" "$VIP4_E:/tcp" "198.19.0.300:$PORT/tcp" \
		"[$VIP6_E:$PORT/tcp" "$VIP6_E:$PORT/tcp" "[$VIP6_E]/tcp" "vip:$PORT/tcp" ":$PORT/tcp" ""; do
		bad "malformed service '$m' (service add)" "(service|protocol): " service add "$IF_LBA" "$m"
		bad "malformed service '$m' (backend add)" "(service|protocol): " backend add "$IF_LBA" "$m" "$(be4 2)"
	done
	echo "ok: every rejected command left xs_services, xs_vips, xs_targets, xs_self and the pools as they were"
}

# ---- 8. Weights: share of new flows = weight / sum of weights ----------------

t_weights() {
	local i
	T=$XS_TMP/w
	fresh_attach "$NS_LBA" "$IF_LBA" --seed "$SEED_W" >/dev/null
	lba service add "$IF_LBA" "$VIP4_W:$PORT/tcp"
	for i in 1 2 3 4; do
		lba backend add "$IF_LBA" "$VIP4_W:$PORT/tcp" "$SEG4.20$i" --weight "$i"
	done
	assert_eq "weights listed" \
		"$(lba service list "$IF_LBA" --json | pyx '[[b["backend"], b["weight"]] for b in d[0]["backends"]]' -)" \
		"[[\"$SEG4.201\", 1], [\"$SEG4.202\", 2], [\"$SEG4.203\", 3], [\"$SEG4.204\", 4]]"
	# 4000 flows: 4 sources x 1000 ports.
	predict "$NS_LBA" "$IF_LBA" "$T.p.json" "$VIP4_W" 50000-50999 "$CL4" "$SEG4.3" "$SEG4.4" "$SEG4.5"
	assert_eq "flows looked up" "$(pyx 'len(d)' "$T.p.json")" "$N_W"
	assert_eq "slots (weight W = W slots)" "$(pyx 'sorted({v["slots"] for v in d.values()})' "$T.p.json")" "[10]"
	# A flow's backend is its jump-hash slot's, and the slot is uniform over the
	# 10 slots, so backend i's count is Binomial(n, p = w_i / 10). Tolerance:
	# 4 standard deviations, |share - p| <= 4 sqrt(p (1 - p) / n): p = 0.1 ->
	# 0.019, 0.4 -> 0.031 at n = 4000. A fair hash misses one of the 4 bands
	# with probability < 3e-4; the seed is fixed, so the result never changes.
	pyx "{b: {'share': round(c / len(d), 4), 'ideal': w / 10, 'tolerance': round(4 * (w / 10 * (1 - w / 10) / len(d)) ** 0.5, 4)} for b, w in (('$SEG4.201', 1), ('$SEG4.202', 2), ('$SEG4.203', 3), ('$SEG4.204', 4)) for c in [sum(v['backend'] == b for v in d.values())]}" \
		"$T.p.json" | tee "$T.shares.json"
	assert_eq "backends outside their tolerance" \
		"$(pyx '[b for b, v in d.items() if abs(v["share"] - v["ideal"]) > v["tolerance"]]' "$T.shares.json")" "[]"
	# The slots themselves: each flow's slot belongs to its backend, and the
	# slot counts are near-uniform too (10 slots, p = 0.1 each).
	assert_true "every slot is used" "$(pyx 'len({v["slot"] for v in d.values()}) == 10' "$T.p.json")"
	assert_eq "slots owned by more than one backend" \
		"$(pyx '[s for s in range(10) if len({v["backend"] for v in d.values() if v["slot"] == s}) > 1]' "$T.p.json")" "[]"
	assert_eq "slots per backend" \
		"$(pyx "{b: len({v['slot'] for v in d.values() if v['backend'] == b}) for b in sorted({v['backend'] for v in d.values()})}" "$T.p.json")" \
		"{\"$SEG4.201\": 1, \"$SEG4.202\": 2, \"$SEG4.203\": 3, \"$SEG4.204\": 4}"
}

# ---- 9. What the docs promise: shared next hops, empty services, failures ----

VIP4_P=198.19.0.12
GW4=$SEG4.254   # a gateway nobody answers for: its managed entry exists all the same
BNET4=10.79.0   # backends behind it

# gw_entry: "managed" while LB-A holds a managed neighbour entry for $GW4, else "none".
gw_entry() {
	ip -n "$NS_LBA" neigh show "$GW4" dev "$IF_LBA" | grep -qw managed && echo managed || echo none
}

# usage.md: `backend del` removes the neighbour entries it made that no other
# backend needs. Two backends behind one gateway need one entry, the
# gateway's, until the last of them goes.
t_neigh_shared_gateway() {
	local svc="$VIP4_P:$PORT/tcp"
	fresh_attach "$NS_LBA" "$IF_LBA" >/dev/null
	ip -n "$NS_LBA" route replace "$BNET4.0/24" via "$GW4" dev "$IF_LBA"
	lb_neigh_flush "$NS_LBA" "$IF_LBA"
	lba service add "$IF_LBA" "$svc"
	lba backend add "$IF_LBA" "$svc" "$BNET4.1"
	lba backend add "$IF_LBA" "$svc" "$BNET4.2"
	assert_eq "the gateway's entry, two backends behind it" "$(gw_entry)" managed
	lba backend del "$IF_LBA" "$svc" "$BNET4.1"
	assert_eq "the gateway's entry once $BNET4.1 is gone, $BNET4.2 still behind it" "$(gw_entry)" managed
	lba backend del "$IF_LBA" "$svc" "$BNET4.2"
	assert_eq "the gateway's entry once no backend is behind it" "$(gw_entry)" none
	ip -n "$NS_LBA" route del "$BNET4.0/24"
}

# mark_down ADDR: backend ADDR's target marked down in xs_targets, as the
# agent leaves a backend its check failed (byte 22 of struct xs_target is
# `down`); the next commit takes it out of its slots.
mark_down() {
	local id key v map=$(pin_dir "$NS_LBA" "$IF_LBA")/xs_targets
	id=$(lba service list "$IF_LBA" --json | pyx "[b['id'] for s in d for b in s['backends'] if b['backend'] == '$1'][0]" -)
	read -ra key <<<"$((id % 256)) $((id / 256)) 0 0"
	read -ra v < <("$BPFTOOL" -j map lookup pinned "$map" key "${key[@]}" |
		pyx "' '.join(b if i != 22 else '0x01' for i, b in enumerate(d['value']))" -)
	[ "${#v[@]}" = 56 ] || return 1
	"$BPFTOOL" map update pinned "$map" key "${key[@]}" value "${v[@]}"
}

# lookup_fails WHAT PATTERN [--json]: lookup of a flow to $VIP4_P fails,
# stdout empty, its one line of stderr matching PATTERN.
lookup_fails() {
	expect_error "$1" "$2" nsenter --net=/run/netns/"$NS_LBA" -- "$XS" lookup "$IF_LBA" tcp \
		"$CL4:40000" "$VIP4_P:$PORT" "${@:3}"
}

# A service whose backends are all out of their slots has backends: lookup
# says which and why, and service list's live_slots says 0 of its slots.
t_lookup_no_live_backend() {
	local svc="$VIP4_P:$PORT/tcp" pass="such a packet passes to the stack \(no_backend\)$"
	fresh_attach "$NS_LBA" "$IF_LBA" >/dev/null
	lba service add "$IF_LBA" "$svc"
	lookup_fails "lookup, a service with no backend" "$svc: the service has no backends: $pass"
	lba backend add "$IF_LBA" "$svc" "$(be4 1)"
	lba backend add "$IF_LBA" "$svc" "$(be4 2)" --weight 2
	lba backend add "$IF_LBA" "$svc" "$(be4 3)"
	for i in 1 2 3; do
		lba backend drain "$IF_LBA" "$svc" "$(be4 "$i")"
	done
	for i in 2 3; do
		mark_down "$(be4 "$i")" || fail "cannot mark backend $(be4 "$i") down in xs_targets"
	done
	lba backend undrain "$IF_LBA" "$svc" "$(be4 3)" # down, it stays out of the slots
	why="no live backend: $(be4 1) drained, $(be4 2) drained and down, $(be4 3) down"
	lookup_fails "lookup, every backend out" "$svc: $why: $pass"
	lookup_fails "lookup --json, every backend out" "$svc: $why: $pass" --json
	lba service list "$IF_LBA" | tee "$XS_TMP/sl.txt"
	assert_eq "service list --json: slots and live_slots, as the text says them" \
		"$(lba service list "$IF_LBA" --json | pyx '[[s["live_slots"], s["slots"]] for s in d]' -)" \
		"$(sed -n 's/.* \([0-9]*\) live of \([0-9]*\) slots$/[[\1, \2]]/p' "$XS_TMP/sl.txt")"
	assert_eq "service list --json: live_slots" \
		"$(lba service list "$IF_LBA" --json | pyx '[s["live_slots"] for s in d]' -)" "[0]"
	lba backend undrain "$IF_LBA" "$svc" "$(be4 1)"
	assert_eq "service list --json: live_slots, one backend back" \
		"$(lba service list "$IF_LBA" --json | pyx '[s["live_slots"] for s in d]' -)" "[1]"
}

# A commit that fails says why, not only that nothing was applied: here the
# write that counts a new service in xs_self, refused by a frozen map.
t_commit_failure_cause() {
	local rc=0 out=$XS_TMP/cf.out err=$XS_TMP/cf.err
	T=$XS_TMP/cf
	fresh_attach "$NS_LBA" "$IF_LBA" >/dev/null
	lba service add "$IF_LBA" "$VIP4_P:$PORT/tcp"
	"$BPFTOOL" map freeze pinned "$(pin_dir "$NS_LBA" "$IF_LBA")/xs_self"
	e_snap "$T.before"
	nsenter --net=/run/netns/"$NS_LBA" -- "$XS" service add "$IF_LBA" "$VIP4_P:$((PORT + 1))/tcp" \
		>"$out" 2>"$err" || rc=$?
	echo "  service add, xs_self frozen -> rc $rc: $(cat "$err")"
	[ "$rc" -ne 0 ] || fail "service add with xs_self frozen: exited 0"
	grep -q "nothing of .* was applied" "$err" || fail "no 'nothing was applied' line"
	grep -Eq "$IF_LBA: cannot .* xs_self: Operation not permitted" "$err" ||
		fail "service add with xs_self frozen: the cause (xs_self, strerror) is not printed"
	echo "ok: the failed commit names xs_self and its error"
	e_same "service add with xs_self frozen"
	echo "ok: and changed nothing"
	fresh_attach "$NS_LBA" "$IF_LBA" >/dev/null # a frozen map stays frozen: new maps
}

# ---------------------------------------------------------------------------
main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	decap_preflight
	setup_lb_testbed || fatal "$XS_SUITE" "cannot build the namespace testbed (bridge, veth, netns)"
	local t0
	for t in "${NS_TESTS[@]}"; do
		t0=$(date +%s.%N)
		run_test "$t" "t_$t"
		awk -v t="$t" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "    (%s: %.1f s)\n", t, b - a }'
	done
	finish "$XS_SUITE"
}

[ "${XS_LB_NO_MAIN:-}" = 1 ] || main "$@"
