#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Two network namespaces, A and B, each with an interface of the same name
# ($IF_STEER) and its own client namespace on the other end of the veth,
# addresses included: only xdpsteer's state tells them apart. Each side is
# attached with its own seed, targets and service, and driven with real UDP
# flows. Checked: every command sees only its own namespace's attachment
# (status, stats, lookup, service list); an edit, a detach or a bad command in
# one changes nothing in the other (maps, decisions, traffic); state whose
# program is not the one on the interface is refused, never read, changed or
# clobbered; agents with the default --run-dir do not share a socket.
#
#   tests/ns/test_netns.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=netns
if [ -z "${XS_NETNS_WATCHDOG:-}" ]; then
	export XS_NETNS_WATCHDOG=1
	exec timeout -k 20 "${XS_NETNS_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "$0")/agent_lib.sh"

# Side A keeps lib.sh's names; side B has its own namespaces, same interface names.
# The backends (10.9/16) are routed through the client: none answers, none needs to.
NS_A=$NS_STEER
CL_A=$NS_CLIENT
NS_B=xnb-$RUN_ID
CL_B=xnd-$RUN_ID
SEED_A=5eed000000000000000000000000a0a0
SEED_B=5eed000000000000000000000000b0b0
FLOW_SPEC="$CLIENT_IP:20000-20063"
N=64
SVC=10.9.0.10:80/tcp
RUN_ROOT=/run/xdpsteer
_RUN_ROOT_NEW=0  # we created $RUN_ROOT (for the agents' default run directories)

T=""

# on A|B: the side lib.sh's xs, attach and flows talk to.
on() {
	case $1 in
	A) NS_STEER=$NS_A NS_CLIENT=$CL_A ;;
	B) NS_STEER=$NS_B NS_CLIENT=$CL_B ;;
	esac
}

# attach_side A|B: attach with that side's seed, targets and service.
attach_side() {
	on "$1"
	if [ "$1" = A ]; then
		attach --seed "$SEED_A" >/dev/null
		xs target add "$IF_STEER" cpu 0 >/dev/null
		xs target add "$IF_STEER" cpu 1 >/dev/null
		xs service add "$IF_STEER" "$SVC" >/dev/null
		xs backend add "$IF_STEER" "$SVC" 10.9.1.1 >/dev/null
		xs backend add "$IF_STEER" "$SVC" 10.9.1.2 >/dev/null
	else
		attach --seed "$SEED_B" >/dev/null
		xs target add "$IF_STEER" cpu 1 >/dev/null
		xs target add "$IF_STEER" cpu 0 >/dev/null
		xs service add "$IF_STEER" "$SVC" >/dev/null
		xs backend add "$IF_STEER" "$SVC" 10.9.1.7 >/dev/null
		xs backend add "$IF_STEER" "$SVC" 10.9.1.8 >/dev/null
		xs backend add "$IF_STEER" "$SVC" 10.9.1.9 >/dev/null
	fi
}

# snap A|B OUT: everything of that side a command could change: the model as
# show prints it, the services, the maps' content, and each flow's decision.
# (This and the next two run in a subshell: the caller's side stays as it was.)
snap() (
	local d f
	on "$1"
	d=$(pin_dir "$NS_STEER" "$IF_STEER")
	{
		xs show "$IF_STEER"
		xs service list "$IF_STEER" --json
		for f in "$d"/xs_services "$d"/xs_vips "$d"/xs_targets "$d"/xs_self "$d"/xs_epoch \
			"$d"/pool*; do
			echo "== ${f##*/}"
			"$BPFTOOL" map dump pinned "$f"
		done
		flows predict --flows "$FLOW_SPEC" | pyx '{f: v["name"] for f, v in d.items()}' -
	} >"$2"
)
same_snap() ( # SIDE BEFORE WHAT
	snap "$1" "$2.now"
	cmp -s "$2" "$2.now" || { diff "$2" "$2.now" | head -20; fail "$3: side $1 changed"; }
	echo "ok: $3: side $1's model, maps and decisions unchanged"
)

# steered A|B WHAT: send $FLOW_SPEC from that side's client; every packet must land
# where that side's lookup said, and the other side (if attached) count none of them.
steered() (
	local other=B
	[ "$1" = B ] && other=A
	on "$other"
	if [ -e "$(pin_dir "$NS_STEER" "$IF_STEER")" ]; then
		flows stats >"$T.other.before"
	else
		other=""
	fi
	on "$1"
	flows predict --flows "$FLOW_SPEC" --out "$T.pred.$1"
	flows count --flows "$FLOW_SPEC" >"$T.count.$1"
	assert_eq "$2: side $1's packets where its lookup said" \
		"$(pyx '{t: v for t, v in d["delta"]["targets"].items() if v}' "$T.count.$1")" \
		"$(pyx '{t: n for t, n in ((t, sum(v["name"] == t for v in d.values())) for t in ("cpu:0", "cpu:1")) if n}' "$T.pred.$1")"
	[ -n "$other" ] || return 0
	on "$other"
	flows stats >"$T.other.after"
	assert_eq "$2: side $other counted none of them" \
		"$(pyx 'sum(t["packets"] for t in d1["targets"].values()) - sum(t["packets"] for t in d0["targets"].values())' \
			"$T.other.before" "$T.other.after")" 0
)

# ---------------------------------------------------------------------------
# 1. Same name, two namespaces: each attachment is its own and sees only its own.
t_each_its_own() {
	local s a b
	T=$XS_TMP/own
	attach_side A
	attach_side B
	for s in A B; do
		on "$s"
		xs status "$IF_STEER" --json >"$T.status.$s"
		assert_eq "side $s: status names its state directory" \
			"$(pyx 'd[0]["state_dir"]' "$T.status.$s")" "$(pin_dir "$NS_STEER" "$IF_STEER")"
		assert_eq "side $s: status shows the program pinned there" \
			"$(pyx 'd[0]["prog_id"]' "$T.status.$s")" \
			"$("$BPFTOOL" -j prog show pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/prog_xdp" | pyx 'd["id"]' -)"
		assert_eq "side $s: status with no IFACE lists it alone" \
			"$(xs status --json | pyx '[(e["ifname"], e["prog_id"]) for e in d]' -)" \
			"$(pyx '[(e["ifname"], e["prog_id"]) for e in d]' "$T.status.$s")"
		xs status "$IF_STEER" | grep -qx "  state in $(pin_dir "$NS_STEER" "$IF_STEER")" ||
			fail "side $s: status text does not name its state directory"
	done
	assert_ne "two state directories" "$(pyx 'd[0]["state_dir"]' "$T.status.A")" \
		"$(pyx 'd[0]["state_dir"]' "$T.status.B")"
	assert_ne "two programs" "$(pyx 'd[0]["prog_id"]' "$T.status.A")" "$(pyx 'd[0]["prog_id"]' "$T.status.B")"
	assert_ne "two seeds" "$(pyx 'd[0]["seed_digest"]' "$T.status.A")" \
		"$(pyx 'd[0]["seed_digest"]' "$T.status.B")"
	on A
	assert_eq "side A: its own backends" \
		"$(xs service list "$IF_STEER" --json | pyx '[b["backend"] for b in d[0]["backends"]]' -)" \
		'["10.9.1.1", "10.9.1.2"]'
	on B
	assert_eq "side B: its own backends" \
		"$(xs service list "$IF_STEER" --json | pyx '[b["backend"] for b in d[0]["backends"]]' -)" \
		'["10.9.1.7", "10.9.1.8", "10.9.1.9"]'
	steered A "traffic on A"
	steered B "traffic on B"
	a=$(pyx '{f: v["name"] for f, v in d.items()}' "$T.pred.A")
	b=$(pyx '{f: v["name"] for f, v in d.items()}' "$T.pred.B")
	assert_ne "the two seeds decide differently" "$a" "$b"
}

# ---------------------------------------------------------------------------
# 2. A drain and a target removal on A change nothing on B.
t_edit_stays_home() {
	T=$XS_TMP/edit
	snap A "$T.a"
	snap B "$T.b"
	on A
	xs backend drain "$IF_STEER" "$SVC" 10.9.1.1 >/dev/null
	xs target del "$IF_STEER" cpu 1 >/dev/null
	snap A "$T.a2"
	! cmp -s "$T.a" "$T.a2" || fail "side A did not change"
	xs show "$IF_STEER" | grep -q "^backend $SVC 10.9.1.1 .*drain" || fail "side A: 10.9.1.1 not drained"
	same_snap B "$T.b" "a drain and a target removal on A"
	steered B "traffic on B after A's edits"
	steered A "traffic on A after its edits"
}
ns_needs edit_stays_home each_its_own

# ---------------------------------------------------------------------------
# 3. Detach on A leaves B attached, managed and steering; a second detach on A
#    is an error that changes nothing.
t_detach_leaves_other() {
	local id
	T=$XS_TMP/detach
	on B
	id=$(xs status "$IF_STEER" --json | pyx 'd[0]["prog_id"]' -)
	snap B "$T.b"
	on A
	xs detach "$IF_STEER" >/dev/null
	[ ! -e "$(pin_dir "$NS_A" "$IF_STEER")" ] || fail "detach left $(pin_dir "$NS_A" "$IF_STEER")"
	[ ! -e "$(ns_root "$NS_A" "$PIN_ROOT")" ] ||
		fail "detach of A's last attachment left $(ns_root "$NS_A" "$PIN_ROOT")"
	expect_error "detach where nothing is attached" \
		"xdpsteer is not attached to $IF_STEER in this network namespace" xs detach "$IF_STEER"
	expect_error "status where nothing is attached" "is not attached to $IF_STEER" xs status "$IF_STEER"
	same_snap B "$T.b" "A's detach and second detach"
	on B
	assert_eq "side B: the same program" "$(xs status "$IF_STEER" --json | pyx 'd[0]["prog_id"]' -)" "$id"
	xs target del "$IF_STEER" cpu 0 >/dev/null
	steered B "side B, managed: a target removed after A's detach"
	assert_eq "side B: all on cpu 1" "$(pyx 'd["delta"]["targets"]["cpu:1"]' "$T.count.B")" "$N"
}
ns_needs detach_leaves_other each_its_own

# ---------------------------------------------------------------------------
# 4. State whose program is not the one on the interface (removed by hand, or
#    another program there) is refused by every command, attach included.
t_foreign_state_refused() {
	local d pid cmd
	T=$XS_TMP/foreign
	[ -e "$(pin_dir "$NS_B" "$IF_STEER")" ] || attach_side B
	attach_side A
	d=$(pin_dir "$NS_A" "$IF_STEER")
	run_in "$NS_A" ip link set dev "$IF_STEER" xdp off
	snap B "$T.b"
	{ ls -l "$d"; "$BPFTOOL" map dump pinned "$d/pool0"; } >"$T.pins"
	for cmd in "status $IF_STEER" "stats $IF_STEER" \
		"lookup $IF_STEER udp $CLIENT_IP:20000 $STEER_IP:$DPORT" "target add $IF_STEER cpu 1" \
		"backend drain $IF_STEER $SVC 10.9.1.2" "seed $IF_STEER $SEED_B" \
		"detach $IF_STEER" "attach $IF_STEER"; do
		# shellcheck disable=SC2086
		expect_error "no program: $cmd" \
			"the state in $d is not this interface's: .* no XDP program runs there; nothing changed .*rm -r $d" \
			xs $cmd
	done
	run_in "$NS_A" ip link set dev "$IF_STEER" xdp obj "$(pass_prog)" sec xdp
	pid=$(run_in "$NS_A" "$BPFTOOL" -j net show dev "$IF_STEER" | pyx 'd[0]["xdp"][0]["id"]' -)
	for cmd in "status $IF_STEER" "target add $IF_STEER cpu 1" "detach $IF_STEER" "attach $IF_STEER"; do
		# shellcheck disable=SC2086
		expect_error "another program: $cmd" \
			"the state in $d is not this interface's: its program \(id [0-9]+\) is not attached .* XDP program id $pid runs there" \
			xs $cmd
	done
	assert_eq "the other program is still there" \
		"$(run_in "$NS_A" "$BPFTOOL" -j net show dev "$IF_STEER" | pyx 'd[0]["xdp"][0]["id"]' -)" "$pid"
	cmp -s "$T.pins" <({ ls -l "$d"; "$BPFTOOL" map dump pinned "$d/pool0"; }) ||
		fail "the refused commands changed $d"
	echo "ok: $d untouched by the refused commands"
	same_snap B "$T.b" "the refused commands on A"
	# What the message says to do works.
	run_in "$NS_A" ip link set dev "$IF_STEER" xdp off
	rm -r "$d"
	attach --seed "$SEED_A" >/dev/null
	assert_eq "attached again after rm -r" "$(xs status "$IF_STEER" --json | pyx 'd[0]["state_dir"]' -)" "$d"
}

# ---------------------------------------------------------------------------
# 5. Agents with the default --run-dir, one per namespace: a socket each; an
#    agent whose program is removed by hand sees it gone.
t_agents_apart() {
	local s
	T=$XS_TMP/agents
	on A
	attach --seed "$SEED_A" >/dev/null
	on B
	attach --seed "$SEED_B" >/dev/null
	printf '%s\n' "target cpu 0" "service $SVC" "backend $SVC 10.9.1.1" >"$T.A.conf"
	printf '%s\n' "target cpu 1" "service $SVC" "backend $SVC 10.9.1.7" "backend $SVC 10.9.1.8" \
		>"$T.B.conf"
	daemon agentA "$NS_A" "$XS" agent "$IF_STEER" -f "$T.A.conf"
	daemon agentB "$NS_B" "$XS" agent "$IF_STEER" -f "$T.B.conf"
	for s in A B; do
		on "$s"
		ns_root "$NS_STEER" "$RUN_ROOT" >>"$XS_TMP/run_dirs"
		_agent_wait "$s" 'd["applied"] == 1 and d["error"] is None'
		assert_eq "side $s: its own agent answers" "$(xs agent status -j | pyx 'd["pid"]' -)" \
			"$(cat "$XS_TMP/agent$s.pid")"
	done
	on A
	assert_eq "side A's agent applied A's file" \
		"$(xs service list "$IF_STEER" --json | pyx '[b["backend"] for b in d[0]["backends"]]' -)" '["10.9.1.1"]'
	on B
	assert_eq "side B's agent applied B's file" \
		"$(xs service list "$IF_STEER" --json | pyx '[b["backend"] for b in d[0]["backends"]]' -)" \
		'["10.9.1.7", "10.9.1.8"]'
	for s in A B; do
		on "$s"
		[ -S "$(ns_root "$NS_STEER" "$RUN_ROOT")/agent.sock" ] ||
			fail "side $s: no control socket in $(ns_root "$NS_STEER" "$RUN_ROOT")"
	done
	echo "ok: a control socket in each namespace's $RUN_ROOT/netns:COOKIE"
	# A's program removed by hand: its pins are no attachment, B's agent carries on.
	run_in "$NS_A" ip link set dev "$IF_STEER" xdp off
	on A
	_agent_wait A 'not d["interfaces"][0]["attached"]'
	on B
	assert_eq "side B's agent: still attached" \
		"$(xs agent status -j | pyx 'd["interfaces"][0]["attached"] and d["error"] is None' -)" true
	stop_daemon agentA
	stop_daemon agentB
	rm -r "$(pin_dir "$NS_A" "$IF_STEER")"
}
# _agent_wait SIDE EXPR: until EXPR holds over that side's `agent status` (default run
# dir), for 15 s at most.
_agent_wait() {
	local end=$((SECONDS + 15))
	while [ "$SECONDS" -lt "$end" ]; do
		[ "$(xs agent status -j 2>/dev/null | pyx "$2" - 2>/dev/null)" = true ] && { echo "ok: side $1's agent: $2"; return 0; }
		sleep 0.05
	done
	xs agent status || true
	fail "side $1's agent status never had: $2"
}

# The agents' default run directories, and /run/xdpsteer if we made it.
cleanup_netns() {
	local rc=$? d
	set +e
	kill_ns_pids "${_XS_NS[@]}"
	if [ -n "$XS_TMP" ] && [ -f "$XS_TMP/run_dirs" ]; then
		while read -r d; do rm -rf -- "$d"; done <"$XS_TMP/run_dirs"
	fi
	[ "$_RUN_ROOT_NEW" = 1 ] && rmdir "$RUN_ROOT" 2>/dev/null
	(exit "$rc")
	cleanup
}

main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_netns EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	[ -d "$RUN_ROOT" ] || _RUN_ROOT_NEW=1
	{
		xs_tmp netns && on A && setup_pair && on B && setup_pair &&
			ip -n "$NS_A" route add 10.9.0.0/16 via "$CLIENT_IP" &&
			ip -n "$NS_B" route add 10.9.0.0/16 via "$CLIENT_IP"
	} || fatal "$XS_SUITE" "cannot build the two namespace pairs (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
