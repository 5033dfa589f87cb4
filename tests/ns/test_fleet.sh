#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# A fleet behind ECMP (docs/fleet.md): three xdpsteer hosts, each running
# `xdpsteer agent` against one etcd and announcing the VIP to a router
# through bird2; the router spreads the client's flows over them by layer-4
# hash. 300 long-lived TCP connections live through an agent's takeover, an
# etcd restart, two fleet changes and the death of a host; every connection
# whose backend is the same under the configuration of the moment survives.
# Needs root; about 80 s; V=1 for detail.
#
#   tests/ns/test_fleet.sh [--list | TEST...]   (default: every t_* function, in order)
#
# Testbed (names carry RUN_ID; the client segment and the fleet segment):
#
#   $NS_CL --- $NS_RT (router: bird2, multipath, fib_multipath_hash_policy=1)
#                 |
#   $NS_SW: ------+---- br0 --+--------+--------+----------+---- ... ----+
#                             |        |        |          |             |
#                          $NS_LB1  $NS_LB2  $NS_LB3    $NS_ET       $NS_BE1..5
#                     (xdpsteer + agent + bird2 each)   (etcd)  (VIP on lo, decap)
#
# Each load balancer peers with the router (eBGP, AS 65001 to 65000) and
# announces the VIP through the agent's route files and TUN device. Backends
# answer the client directly through the router (DSR). The LBs' bridge-side
# peers run an XDP_PASS program: veth delivers XDP_TX frames only then.
set -euo pipefail

XS_SUITE=fleet
if [ -z "${XS_FLEET_WATCHDOG:-}" ]; then
	export XS_FLEET_WATCHDOG=1
	exec timeout -k 20 "${XS_FLEET_TIMEOUT:-360}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh"

LBT=$XS_TOP/tests/ns/lb_traffic.py
HOLD=$XS_TOP/tests/ns/churn_hold.py
FLEET=$XS_TOP/tests/ns/fleet.py
PASS_SRC=$XS_TOP/tests/ns/xdp_pass.bpf.c

R=$RUN_ID
NS_SW=xfw-$R
NS_CL=xfc-$R
NS_RT=xfr-$R
NS_ET=xfe-$R
IF_CL=fc$R  # client
IF_RC=fr$R  # router, client side
IF_RS=fs$R  # router, fleet side
IF_ET=fe$R  # etcd
LBS=(1 2 3)
BES=(1 2 3 4 5)
lb_ns() { echo "xf$1-$R"; }
lb_if() { echo "f$1$R"; }
be_ns() { echo "xg$1-$R"; }
be_if() { echo "g$1$R"; }

# RFC 2544 benchmarking range, inside our namespaces only.
SEG_C=198.18.20
SEG=198.18.21
CL4=$SEG_C.2
RT_C=$SEG_C.1
RT4=$SEG.1
lb4() { echo "$SEG.1$1"; }
be4() { echo "$SEG.10$1"; }
ET4=$SEG.200
VIPNET4=198.19.20.0/24
VIP=198.19.20.1
PORT=8080
SVC="$VIP:$PORT/tcp"
MTU_CLIENT=1500
MTU_DC=1600 # the tunnel's 20 bytes fit: the fleet segment is larger than the client's

ETCD_URL=http://$ET4:2379  # as the agents reach it
ETCD_LOCAL=http://127.0.0.1:2379  # as the helpers in $NS_ET reach it
PREFIX=/xdpsteer/fleet-$R
SEED=5eed0000000000000000000000f1ee70
N_HOLD=300
HOLD_PORTS=20000-20299
N_LOOKUP=2000
N_WRITES=${XS_FLEET_WRITES:-50}
STALL=3

# ---- testbed ----------------------------------------------------------------

start_fleet_etcd() { start_etcd etcd "$NS_ET" "$ETCD_URL,$ETCD_LOCAL"; }

# BGP timers short enough for a test; no graceful restart, so a dead host's
# routes go with its session.
BGP_TIMERS='hold time 3; keepalive time 1; connect retry time 1; connect delay time 1;
	error wait time 1, 2; graceful restart off;'

start_router_bird() {
	local i d=$XS_TMP/rt
	mkdir -p "$d"
	{
		echo "router id $RT4;"
		echo "log \"$d/bird.log\" all;"
		echo "protocol device { scan time 10; }"
		echo "protocol kernel { ipv4 { import none; export all; }; merge paths on; }"
		echo "template bgp lbs { local $RT4 as 65000; $BGP_TIMERS ipv4 { import all; export none; }; }"
		for i in "${LBS[@]}"; do
			echo "protocol bgp lb$i from lbs { neighbor $(lb4 "$i") as 65001; }"
		done
	} >"$d/bird.conf"
	daemon rt.bird "$NS_RT" bird -f -c "$d/bird.conf" -s "$d/bird.ctl" -P "$d/bird.pid"
}

# The load balancer's bird2: the agent's route files in a static protocol, exported to the router.
start_lb_bird() {
	local i=$1 d=$XS_TMP/lb$1
	mkdir -p "$d"
	cat >"$d/bird.conf" <<-EOF
		router id $(lb4 "$i");
		log "$d/bird.log" all;
		protocol device { scan time 10; }
		protocol static xdpsteer4 {
			ipv4;
			check link;
			include "$d/bird-vips4*.conf";
		}
		protocol bgp upstream {
			local $(lb4 "$i") as 65001;
			neighbor $RT4 as 65000;
			$BGP_TIMERS
			ipv4 { import none; export where proto = "xdpsteer4"; };
		}
	EOF
	daemon "lb$i.bird" "$(lb_ns "$i")" bird -f -c "$d/bird.conf" -s "$d/bird.ctl" -P "$d/bird.pid"
}

start_agent() {
	local i=$1
	daemon "lb$i.agent" "$(lb_ns "$i")" "$XS" agent "$(lb_if "$i")" --etcd "$ETCD_URL" \
		--prefix "$PREFIX" --host "lb$i" --run-dir "$XS_TMP/lb$i" --bird "$XS_TMP/lb$i/bird.ctl" \
		--lease-ttl 5
}

setup_fleet() {
	local i ns
	xs_tmp fleet || return 1
	clang -O2 -g -target bpf -c "$PASS_SRC" -o "$XS_TMP/pass.o" || return 1
	bridge_add && ns_add "$NS_CL" && ns_add "$NS_RT" && ns_add "$NS_ET" || return 1
	for i in "${LBS[@]}"; do ns_add "$(lb_ns "$i")" || return 1; done
	for i in "${BES[@]}"; do ns_add "$(be_ns "$i")" || return 1; done

	# Client and router: their own segment.
	ip link add "$IF_CL" netns "$NS_CL" mtu "$MTU_CLIENT" type veth peer name "$IF_RC" \
		netns "$NS_RT" mtu "$MTU_CLIENT" || return 1
	run_in "$NS_CL" sysctl -qw "net.ipv6.conf.$IF_CL.disable_ipv6=1"
	run_in "$NS_RT" sysctl -qw "net.ipv6.conf.$IF_RC.disable_ipv6=1"
	ip -n "$NS_CL" addr add "$CL4/24" dev "$IF_CL"
	ip -n "$NS_RT" addr add "$RT_C/24" dev "$IF_RC"
	ip -n "$NS_CL" link set "$IF_CL" up
	ip -n "$NS_RT" link set "$IF_RC" up
	# TX checksums in software: a partial checksum does not survive XDP_TX.
	run_in "$NS_CL" ethtool -K "$IF_CL" tx off >/dev/null || return 1
	ip -n "$NS_CL" route add "$VIPNET4" via "$RT_C"

	bridge_port "$NS_RT" "$IF_RS" "$RT4" "$MTU_DC" || return 1
	bridge_port "$NS_ET" "$IF_ET" "$ET4" "$MTU_DC" || return 1
	run_in "$NS_RT" sysctl -qw net.ipv4.conf.all.forwarding=1 net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 || return 1

	for i in "${LBS[@]}"; do
		ns=$(lb_ns "$i")
		bridge_port "$ns" "$(lb_if "$i")" "$(lb4 "$i")" "$MTU_DC" || return 1
		# bpf_fib_lookup needs forwarding; the bridge-side peer runs XDP for XDP_TX.
		run_in "$ns" sysctl -qw net.ipv4.conf.all.forwarding=1 || return 1
		bridge_port_xdp "$(lb_if "$i")" "$XS_TMP/pass.o" || return 1
		attach_in "$ns" "$(lb_if "$i")" --seed "$SEED" >/dev/null || return 1
	done
	for i in "${BES[@]}"; do
		ns=$(be_ns "$i")
		bridge_port "$ns" "$(be_if "$i")" "$(be4 "$i")" "$MTU_DC" || return 1
		ip -n "$ns" route add default via "$RT4"
		backend_vips "$ns" "$(be_if "$i")" "$VIP" || return 1
		decap_attach_in "$ns" "$(be_if "$i")" >/dev/null || return 1
		daemon "be$i.srv" "$ns" "$PYTHON" "$LBT" serve --id "$(be4 "$i")" --bind "$VIP" \
			--port "$PORT" --ready "$XS_TMP/be$i.ready" --max-seconds 600
	done
	start_fleet_etcd || return 1
	start_router_bird
	for i in "${LBS[@]}"; do start_lb_bird "$i"; done
	for i in "${BES[@]}"; do wait_file "$XS_TMP/be$i.ready" 15 || return 1; done
}

# ---- helpers ----------------------------------------------------------------

lb() { local i=$1; shift; xs_in "$(lb_ns "$i")" "$@"; }
fleet() { run_in "$NS_ET" "$PYTHON" "$FLEET" "$@"; }

# conf NAME LINES...: a configuration text in a file; prints its path.
conf() {
	local f=$XS_TMP/$1.conf
	shift
	printf '%s\n' "$@" >"$f"
	echo "$f"
}
# Backend N holds slot N-1, as show prints places: a fleet file that names
# them keeps a drain or a removal to a hole on every host (docs/fleet.md).
backend_lines() { # "N[:weight W][:drain]"...
	local b n rest
	for b in "$@"; do
		n=${b%%:*}
		rest=""
		[ "$b" = "$n" ] || rest=" ${b#*:}"
		case $rest in
		*weight*) echo "backend $SVC $(be4 "$n")${rest//:/ }" ;;
		*) echo "backend $SVC $(be4 "$n") slots $((n - 1))${rest//:/ }" ;;
		esac
	done
}
# fleet_conf NAME BACKEND...: the fleet's text: the service and these backends.
fleet_conf() {
	local name=$1
	shift
	mapfile -t lines < <(backend_lines "$@")
	conf "$name" "# the fleet: one service, its backends" "service $SVC" "${lines[@]}"
}
# put KEY FILE: write the key; prints the revision.
put() { etcd_put "$NS_ET" "$ETCD_LOCAL" "$1" "$2"; }
# wait_applied REV [HOSTS]: every host reports REV applied, without error.
wait_applied() {
	fleet wait --etcd "$ETCD_LOCAL" --prefix "$PREFIX" --hosts "${2:-lb1,lb2,lb3}" \
		--revision "$1" --timeout 20 >"$T.wait.json"
	echo "every host of ${2:-lb1,lb2,lb3} applied revision $1"
}

# paths: how many next hops the router has for the VIP (0: no route).
paths() {
	local r
	r=$(ip -n "$NS_RT" route show "$VIP/32")
	if [ -z "$r" ]; then
		echo 0
	elif grep -q nexthop <<<"$r"; then
		grep -c nexthop <<<"$r"
	else
		echo 1
	fi
}
# wait_paths N: the router's route to the VIP has N next hops (20 s).
wait_paths() {
	local i
	for ((i = 0; i < 400; i++)); do
		[ "$(paths)" = "$1" ] && { echo "ok: the router has $1 path(s) to $VIP"; return 0; }
		sleep 0.05
	done
	ip -n "$NS_RT" route show "$VIP/32"
	fail "the router has $(paths) path(s) to $VIP, not $1"
}

# snap I OUT: what a commit would change on LB I: pools, services, targets, xs_self, the epoch.
snap() {
	local f d
	d=$(pin_dir "$(lb_ns "$1")" "$(lb_if "$1")")
	for f in "$d"/xs_services "$d"/xs_vips "$d"/xs_targets "$d"/xs_self "$d"/xs_epoch "$d"/pool*; do
		echo "== ${f##*/}"
		"$BPFTOOL" map dump pinned "$f"
	done >"$2"
}
snap_all() { local i; for i in "${LBS[@]}"; do snap "$i" "$1.lb$i"; done; }
same_snaps() { # BEFORE AFTER WHAT
	local i
	for i in "${LBS[@]}"; do
		cmp -s "$1.lb$i" "$2.lb$i" || { diff "$1.lb$i" "$2.lb$i" | head -20; fail "$3: lb$i's maps changed"; }
	done
	echo "ok: $3: every host's pools, services, targets, xs_self and epoch unchanged"
}
# pool_dump I: the pool maps of LB I as bpftool prints them.
pool_dump() {
	local f
	for f in "$(pin_dir "$(lb_ns "$1")" "$(lb_if "$1")")"/pool*; do
		echo "== ${f##*/}"
		"$BPFTOOL" map dump pinned "$f"
	done
}
pools_identical() {
	local i
	pool_dump 1 >"$T.pools.lb1"
	for i in 2 3; do
		pool_dump "$i" >"$T.pools.lb$i"
		cmp -s "$T.pools.lb1" "$T.pools.lb$i" ||
			{ diff "$T.pools.lb1" "$T.pools.lb$i" | head -20; fail "lb$i's pool maps differ from lb1's"; }
	done
	echo "ok: the pool maps are byte-identical on the three hosts ($(grep -c '^== ' "$T.pools.lb1") pools)"
}
# pinned I: flows pinned on LB I to the service's backends.
pinned() { lb "$1" stats "$(lb_if "$1")" --json | pyx 'sum(b["pinned"] for s in d["services"] for b in s["backends"])' -; }

agent_status() { lb "$1" agent status --run-dir "$XS_TMP/lb$1" -j; }

# ---- 1. Three agents, one configuration -------------------------------------

t_agents_converge() {
	local i rev
	T=$XS_TMP/converge
	for i in "${LBS[@]}"; do
		put "$PREFIX/hosts/lb$i" "$(conf "host$i" "# lb$i: nothing of its own")" >/dev/null
	done
	rev=$(put "$PREFIX/fleet" "$(fleet_conf fleet0 1 2 3 4)")
	echo "$rev" >"$XS_TMP/rev0"
	for i in "${LBS[@]}"; do start_agent "$i"; done
	wait_applied "$rev"
	pyx '{h: [s["applied"], s["announced"], s["vips"], s["interfaces"][0]["attached"]] for h, s in d.items()}' "$T.wait.json"
	wait_paths 3
	ip -n "$NS_RT" route show "$VIP/32" | sed 's/^/  router: /'
	pools_identical
	assert_eq "services on each host" \
		"$(for i in "${LBS[@]}"; do lb "$i" service list "$(lb_if "$i")" --json | pyx '[[s["service"], len(s["backends"])] for s in d]' -; done | sort -u)" \
		"[[\"$SVC\", 4]]"
}

# ---- 2. 300 long-lived connections over the three hosts ----------------------

t_connections_open() {
	local i n total=0
	T=$XS_TMP/hold
	rm -f "$T.stop"
	daemon hold "$NS_CL" "$PYTHON" "$HOLD" --src "$CL4" --sports "$HOLD_PORTS" --vip "$VIP" \
		--port "$PORT" --seed "$R" --stall "$STALL" --give-up 10 --ready "$T.ready" \
		--stop-file "$T.stop" --max-seconds 300 --out "$T.json"
	wait_file "$T.ready" 60
	assert_eq "connections open, first echo checked" "$(pyx 'len(d)' "$T.ready")" "$N_HOLD"
	pyx '{b: sum(v == b for v in d.values()) for b in sorted(set(d.values()))}' "$T.ready"
	for i in "${LBS[@]}"; do
		n=$(pinned "$i")
		echo "lb$i carries $n of them"
		[ "$n" -gt 0 ] || fail "ECMP sent no connection through lb$i"
		total=$((total + n))
	done
	assert_eq "connections pinned, over the three hosts" "$total" "$N_HOLD"
}

# ---- 3. A new agent takes over without a change -------------------------------

t_takeover() {
	T=$XS_TMP/takeover
	snap_all "$T.before"
	stop_daemon lb1.agent TERM
	grep -q "${AT}agent: stopped; the data plane keeps revision" "$XS_TMP/lb1.agent.log" ||
		fail "the agent did not stop cleanly: $(tail -n 3 "$XS_TMP/lb1.agent.log")"
	echo "ok: SIGTERM: $(grep -c "${AT}agent: withdrew" "$XS_TMP/lb1.agent.log") withdrawal, clean stop"
	if ip -n "$(lb_ns 1)" link show xsvip0 >/dev/null 2>&1; then fail "xsvip0 outlived the agent"; fi
	wait_paths 2
	snap_all "$T.stopped"
	same_snaps "$T.before" "$T.stopped" "after the agent stopped"
	mv "$XS_TMP/lb1.agent.log" "$XS_TMP/lb1.agent.1.log"
	start_agent 1
	wait_paths 3
	sed 's/^/  new agent: /' "$XS_TMP/lb1.agent.log"
	grep -q "$AT  no changes$" "$XS_TMP/lb1.agent.log" || fail "the new agent's plan was not 'no changes'"
	if grep -q "${AT}applied " "$XS_TMP/lb1.agent.log"; then fail "the new agent applied a change"; fi
	snap_all "$T.after"
	same_snaps "$T.before" "$T.after" "after the new agent took over"
}

# ---- 4. etcd restarts: nothing on the data path moves -------------------------

t_etcd_restart() {
	local i
	T=$XS_TMP/etcd
	snap_all "$T.before"
	stop_daemon etcd TERM
	sleep 2
	for i in "${LBS[@]}"; do
		assert_true "lb$i's agent knows etcd is gone, and keeps its VIP announced" \
			"$(agent_status "$i" | pyx 'd["etcd_error"] is not None and d["announced"] and d["error"] is None' -)"
	done
	assert_eq "router paths while etcd is down" "$(paths)" 3
	start_fleet_etcd
	echo "etcd is back"
	for i in "${LBS[@]}"; do
		local k
		for ((k = 0; k < 200; k++)); do
			[ "$(agent_status "$i" | pyx 'd["etcd_error"] is None' -)" = true ] && break
			sleep 0.05
		done
		assert_true "lb$i's agent is back on etcd" "$(agent_status "$i" | pyx 'd["etcd_error"] is None' -)"
	done
	grep -h "${AT}agent: etcd" "$XS_TMP"/lb*.agent.log | sort | uniq -c | sed 's/^/  /'
	wait_applied "$(cat "$XS_TMP/rev0")"
	snap_all "$T.after"
	same_snaps "$T.before" "$T.after" "across the etcd restart"
}

# ---- 5. The fleet changes: every host converges -------------------------------

t_fleet_change() {
	local rev
	T=$XS_TMP/change
	rev=$(put "$PREFIX/fleet" "$(fleet_conf fleet1 1 2 3 4 5)")
	wait_applied "$rev"
	pools_identical
	rev=$(put "$PREFIX/fleet" "$(fleet_conf fleet2 1 2:drain 3 4 5)")
	echo "$rev" >"$XS_TMP/rev2"
	wait_applied "$rev"
	pools_identical
	pyx '{h: [s["revision"], s["applied"]] for h, s in d.items()}' "$T.wait.json"
	assert_eq "hosts reporting another revision" \
		"$(pyx "[h for h, s in d.items() if (s['revision'], s['applied']) != ($rev, $rev)]" "$T.wait.json")" "[]"
}

# ---- 6. A host dies: its flows land on the others ------------------------------

t_host_dies() {
	local h
	T=$XS_TMP/dies
	h=$XS_TMP/hold
	# Each connection's backend under the configuration now, on a host that lives on.
	fleet decide --ns "$(lb_ns 1)" --iface "$(lb_if 1)" --xs "$XS" --bpftool "$BPFTOOL" \
		--pin-dir "$(pin_dir "$(lb_ns 1)" "$(lb_if 1)")" --pools pool1 --pool pool1 --src "$CL4" \
		--sports "$HOLD_PORTS" --vip "$VIP" --port "$PORT" --out "$T.decide.json"
	pyx '{"same": sum(d1[f].get("decision") == b for f, b in ((f"'"$CL4"':{p}", b) for p, b in d0.items())), "moved by a change": sum(d1[f].get("decision") != b for f, b in ((f"'"$CL4"':{p}", b) for p, b in d0.items()))}' \
		"$h.ready" "$T.decide.json" | tee "$T.classes.json"
	echo "lb3 carries $(pinned 3) connections"
	# The host dies: its agent is killed (its VIP device goes with it), its bird stops.
	stop_daemon lb3.agent KILL
	wait_paths 2
	stop_daemon lb3.bird TERM
	xs_in "$(lb_ns 3)" detach "$(lb_if 3)"
	echo "lb3: agent killed, bird stopped, xdpsteer detached"
	sleep 8
	touch "$h.stop"
	wait_file "$h.json" 30
	pyx '{k: v for k, v in d.items() if k != "flows"}' "$h.json"
	# Classify every connection: same backend under the configuration now, or moved by a change.
	pyx 'dict((cls, {"n": len(fs), "failed": sum(not r["ok"] for r in fs), "stalls": sum(r["stalls"] for r in fs), "messages": sum(r["messages"] for r in fs), "bytes": sum(r["bytes"] for r in fs)}) for cls in ("same", "moved") for fs in [[r for f, r in d0["flows"].items() if (d1[f]["decision"] == r["backend"]) == (cls == "same")]])' \
		"$h.json" "$T.decide.json" | tee "$T.result.json"
	assert_eq "connections whose backend is unchanged that failed (first 10)" \
		"$(pyx 'dict(sorted((f, r["error"]) for f, r in d0["flows"].items() if d1[f]["decision"] == r["backend"] and not r["ok"])[:10])' "$h.json" "$T.decide.json")" "{}"
	assert_eq "stalls among them (replies later than $STALL s)" "$(pyx 'd["same"]["stalls"]' "$T.result.json")" 0
	assert_true "the connections were held on after the host died (>= 8 s)" "$(pyx 'd["held_seconds"] >= 8' "$h.json")"
	assert_eq "status key of the dead host, after its lease" \
		"$(sleep 5; fleet status --etcd "$ETCD_LOCAL" --prefix "$PREFIX" | pyx 'sorted(d)' -)" '["lb1", "lb2"]'
	pyx '"summary: %d connections held %.0f s through a takeover, an etcd restart, two fleet changes and a host death: %d with the same backend under the final configuration, %d failed, %d stalls; %d moved by a change (backend 5 added, backend 2 drained), %d of them broke when ECMP moved them; %d bytes verified" % (d0["connections"], d0["held_seconds"], d1["same"]["n"], d1["same"]["failed"], d1["same"]["stalls"], d1["moved"]["n"], d1["moved"]["failed"], d0["bytes_verified"])' \
		"$h.json" "$T.result.json"
}

# ---- 7. The host comes back -------------------------------------------------------

# rejoin: lb3's bird, a fresh attachment and an agent; wait until it runs REV.
rejoin() {
	[ -e "$XS_TMP/lb3.bird.pid" ] && alive "$(cat "$XS_TMP/lb3.bird.pid")" || start_lb_bird 3
	xs_in "$(lb_ns 3)" attach "$(lb_if 3)" --seed "$SEED" >/dev/null
	[ ! -e "$XS_TMP/lb3.agent.log" ] || mv "$XS_TMP/lb3.agent.log" "$XS_TMP/lb3.agent.$(date +%s%N).log"
	start_agent 3
	wait_applied "$1" lb3
}
# lookups I PORTS OUT: lookup --json on LB I for $CL4:PORTS to the VIP.
lookups() {
	"$PYTHON" "$LBT" predict --ns "$(lb_ns "$1")" --iface "$(lb_if "$1")" --xs "$XS" --dst "$VIP" \
		--dport "$PORT" --sports "$2" --src "$CL4" --jobs 4 --out "$3"
}
# by_address I: LB I's pools, target ids read as backend addresses (headers whole, digest included).
by_address() {
	fleet pools --ns "$(lb_ns "$1")" --iface "$(lb_if "$1")" --xs "$XS" --bpftool "$BPFTOOL" \
		--pin-dir "$(pin_dir "$(lb_ns "$1")" "$(lb_if "$1")")" --pools pool0,pool1 |
		pyx '{n: [p["hdr"], p["buckets"]] for n, p in d.items()}' -
}

t_host_rejoins() {
	local i s rev
	T=$XS_TMP/rejoin
	# A host attached while backend 2 is drained has never seen it live: the
	# agent's canonical commit gives it the hole the others keep, so it
	# decides every flow as they do.
	rejoin "$(cat "$XS_TMP/rev2")"
	by_address 3 >"$T.drained3.json"
	by_address 1 >"$T.drained1.json"
	lookups 1 40000-40499 "$T.d1.json"
	lookups 3 40000-40499 "$T.d3.json"
	pyx '"summary: a host attached while backend 2 is drained has pool %s, the others %s; %d of %d flows decided differently" % (d2["pool1"][1], d3["pool1"][1], sum(v["backend"] != d1[f]["backend"] for f, v in d0.items()), len(d0))' \
		"$T.d1.json" "$T.d3.json" "$T.drained3.json" "$T.drained1.json"
	assert_eq "flows a host attached during the drain decides otherwise" \
		"$(pyx 'sum(v["backend"] != d1[f]["backend"] for f, v in d0.items())' "$T.d1.json" "$T.d3.json")" 0
	stop_daemon lb3.agent TERM
	xs_in "$(lb_ns 3)" detach "$(lb_if 3)"
	wait_paths 2

	rev=$(put "$PREFIX/fleet" "$(fleet_conf fleet3 1 2 3 4 5)")
	echo "$rev" >"$XS_TMP/rev3"
	wait_applied "$rev" lb1,lb2
	rejoin "$rev"
	wait_applied "$rev"
	wait_paths 3
	for i in "${LBS[@]}"; do by_address "$i" >"$T.pools$i.json"; done
	cat "$T.pools1.json"
	for i in 2 3; do
		assert_eq "lb$i's pools (backends by address) against lb1's" \
			"$(cat "$T.pools$i.json")" "$(cat "$T.pools1.json")"
	done
	pool_dump 1 >"$T.raw1"
	pool_dump 3 >"$T.raw3"
	if cmp -s "$T.raw1" "$T.raw3"; then
		s=byte-identical
	else
		s="different in their bytes"
		diff "$T.raw1" "$T.raw3" | head -8 || true
	fi
	echo "the rejoined host's pool maps and lb1's are $s"
	[ "$s" = byte-identical ] || fail "the rejoined host's pool maps differ from lb1's"
	# The decisions themselves, flow by flow, on every host.
	for i in "${LBS[@]}"; do lookups "$i" "40000-$((40000 + N_LOOKUP - 1))" "$T.lookup$i.json"; done
	for i in 2 3; do
		assert_eq "flows whose backend, slot or hash differs between lb$i and lb1" \
			"$(pyx '[f for f, v in d0.items() if (v["backend"], v["slot"], v["hash"]) != (d1[f]["backend"], d1[f]["slot"], d1[f]["hash"])][:10]' "$T.lookup1.json" "$T.lookup$i.json")" "[]"
	done
	assert_eq "flows compared" "$(pyx 'len(d)' "$T.lookup3.json")" "$N_LOOKUP"
	pyx '"summary: a host that rejoins applies revision %s and decides %d of %d flows as the two others do; its pools are theirs by backend address (%s)" % ('"$rev"', len(d0), len(d0), "'"$s"'")' "$T.lookup3.json"
}

# ---- 8. Convergence: etcd write to every host applied ------------------------------

t_convergence() {
	T=$XS_TMP/bench
	fleet_conf benchA 1 2:drain 3 4 5 >/dev/null
	fleet_conf benchB 1 2:drain 3 4 5:weight:2 >/dev/null
	fleet bench --etcd "$ETCD_LOCAL" --prefix "$PREFIX" --key "$PREFIX/fleet" --hosts lb1,lb2,lb3 \
		--conf "$XS_TMP/benchB.conf" --conf "$XS_TMP/benchA.conf" --writes "$N_WRITES" --out "$T.json"
	assert_eq "writes measured" "$(pyx 'd["writes"]' "$T.json")" "$N_WRITES"
	# Bounds for a shared two-core machine, far above what is measured.
	assert_true "median under 1 s, max under 5 s" "$(pyx 'd["median_ms"] < 1000 and d["max_ms"] < 5000' "$T.json")"
	pyx '"summary: convergence, etcd write to all 3 hosts applied, over %d writes: median %.1f ms, p90 %.1f ms, max %.1f ms (min %.1f; the put alone: median %.1f ms)" % (d["writes"], d["median_ms"], d["p90_ms"], d["max_ms"], d["min_ms"], d["put_median_ms"])' "$T.json"
}

# ---- 9. A bad revision: the last good one stays -------------------------------------

t_bad_revision() {
	local rev good i
	T=$XS_TMP/bad
	good=$(put "$PREFIX/fleet" "$XS_TMP/benchA.conf")
	wait_applied "$good"
	snap_all "$T.before"
	rev=$(put "$PREFIX/fleet" "$(conf bad "service $SVC" "backend $SVC $(be4 1)" "backend $SVC $(be4 2) weight 0")")
	fleet wait --etcd "$ETCD_LOCAL" --prefix "$PREFIX" --hosts lb1,lb2,lb3 --revision "$rev" \
		--want-error >"$T.wait.json"
	pyx '{h: [s["revision"], s["applied"], s["error"]] for h, s in d.items()}' "$T.wait.json"
	for i in "${LBS[@]}"; do
		assert_true "lb$i reports the error at its key and line, and keeps revision $good" \
			"$(pyx "d['lb$i']['applied'] == $good and d['lb$i']['error'].startswith('etcd:$PREFIX/fleet:3: weight')" "$T.wait.json")"
	done
	snap_all "$T.after"
	same_snaps "$T.before" "$T.after" "after a bad revision"
	assert_eq "router paths" "$(paths)" 3
	rev=$(put "$PREFIX/fleet" "$XS_TMP/benchA.conf")
	wait_applied "$rev"
}

# ---- 10. Draining a host ---------------------------------------------------------------

t_drain_host() {
	T=$XS_TMP/drain
	snap_all "$T.before"
	assert_true "drain answers with the status" "$(lb 2 agent drain --run-dir "$XS_TMP/lb2" -j | pyx 'd["drained"] and not d["announced"]' -)"
	wait_paths 2
	# The mark outlives the agent: a restarted agent stays out.
	stop_daemon lb2.agent TERM
	start_agent 2
	sleep 2
	assert_true "a new agent on a drained host does not announce" \
		"$(agent_status 2 | pyx 'd["drained"] and not d["announced"] and d["applied"] > 0' -)"
	assert_eq "router paths while lb2 is drained" "$(paths)" 2
	snap_all "$T.after"
	same_snaps "$T.before" "$T.after" "drained"
	lb 2 agent undrain --run-dir "$XS_TMP/lb2" >/dev/null
	wait_paths 3
}

ns_needs connections_open agents_converge
ns_needs takeover connections_open
ns_needs etcd_restart connections_open
ns_needs fleet_change connections_open
ns_needs host_dies fleet_change
ns_needs host_rejoins host_dies
ns_needs convergence agents_converge
ns_needs bad_revision convergence
ns_needs drain_host agents_converge

# ---------------------------------------------------------------------------
main() {
	local t t0 f0
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	for t in etcd etcdctl bird ethtool; do
		command -v "$t" >/dev/null || fatal "$XS_SUITE" "missing tool: $t (make deps)"
	done
	decap_preflight
	setup_fleet || fatal "$XS_SUITE" "cannot build the fleet testbed (netns, bridge, etcd, bird)"
	for t in "${NS_TESTS[@]}"; do
		t0=$(date +%s.%N)
		f0=$_XS_FAILED
		run_test "$t" "t_$t"
		if [ "$V" != 1 ] && [ "$_XS_FAILED" = "$f0" ]; then
			grep -h '^summary:' "$XS_TMP/$t.log" | sed 's/^/    /' || true
		fi
		awk -v t="$t" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "    (%s: %.1f s)\n", t, b - a }'
	done
	finish "$XS_SUITE"
}

[ "${XS_FLEET_NO_MAIN:-}" = 1 ] || main "$@"
