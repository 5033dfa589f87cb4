#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Namespace tests: xdpsteer on a veth in its own netns, driven by real UDP
# flows from a client netns. Every check is exact: predictions come from
# `xdpsteer lookup`, observations from the data path's own counters (and, for
# delivery, from connected UDP sockets on the receiving side), and nothing but
# the test's packets crosses the veth. Needs root; about 30 s; V=1 for detail.
#
#   tests/ns/test_steer.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=ns
# A hard bound on the whole run; TERM still runs the cleanup trap.
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"

# Fixed seeds make every spread and every moved set deterministic.
SEED1=5eed00000000000000000000000000a1
SEED3=5eed00000000000000000000000000a3
SEED4=5eed00000000000000000000000000a4
K=400                                   # flows in tests 1-3
C=3                                     # packets per flow in test 1
FLOWS1="$CLIENT_IP:20000-20399"
FLOWS3="$CLIENT_IP:21000-21399"
FLOWS3_NEW="$CLIENT_IP:22000-22399"
N_SRC=8                                 # client addresses for the shuffle test
DEV_A=${DEV_PREFIX}a
DEV_B=${DEV_PREFIX}b

T=""  # per-test scratch files: $XS_TMP/<name>.*

add_cpus() {
	xs target add "$IF_STEER" cpu 0
	xs target add "$IF_STEER" cpu 1
}

# ---------------------------------------------------------------------------
# 1. Per-target packet counters equal the totals `lookup` predicts, exactly.
t_counters_match_predictions() {
	T=$XS_TMP/t1
	attach --seed "$SEED1"
	add_cpus

	# The receiving side, for test 2: one connected socket per flow.
	bg_start RECV flows_steer recv --flows "$FLOWS1" --expect "$C" --timeout 20 \
		--ready "$T.ready" --out "$T.recv.json"
	wait_file "$T.ready" 10

	flows predict --flows "$FLOWS1" --out "$T.pred.json"
	assert_eq "predicted flows" "$(pyx 'len(d)' "$T.pred.json")" "$K"
	assert_true "no flow is pinned before its first packet" \
		"$(pyx 'not any(v["pinned"] for v in d.values())' "$T.pred.json")"
	pyx '{t: sum(v["name"] == t for v in d.values()) for t in ("cpu:0", "cpu:1")}' \
		"$T.pred.json" | tee "$T.spread.json"
	# Not statistics: the seed is fixed. A hash that ignored the ports (as a
	# strict-aliasing miscompile once did) would put every flow on one target.
	assert_true "both targets get 30-70% of the flows" \
		"$(pyx "all(0.3 * $K <= n <= 0.7 * $K for n in d.values())" "$T.spread.json")"

	flows count --flows "$FLOWS1" --count "$C" >"$T.count.json"
	pyx '{"sent": d["sent"], "delta": d["delta"]}' "$T.count.json"
	assert_eq "packets sent" "$(pyx 'd["sent"]' "$T.count.json")" "$((K * C))"
	for t in cpu:0 cpu:1; do
		assert_eq "$t packets" "$(pyx "d0['delta']['targets']['$t']" "$T.count.json")" \
			"$(pyx "$C * d['$t']" "$T.spread.json")"
	done
	assert_eq "flow_new" "$(pyx 'd["delta"]["counters"].get("flow_new", 0)' "$T.count.json")" "$K"
	assert_eq "flow_hit" "$(pyx 'd["delta"]["counters"].get("flow_hit", 0)' "$T.count.json")" \
		"$((K * (C - 1)))"
	assert_eq "other counters that moved" \
		"$(pyx 'sorted(set(d["delta"]["counters"]) - {"flow_new", "flow_hit"})' "$T.count.json")" "[]"

	flows predict --flows "$FLOWS1" --out "$T.pred2.json"
	assert_true "every flow is now pinned, to its predicted target" \
		"$(pyx 'all(d1[f]["pinned"] and d1[f]["name"] == v["name"] for f, v in d0.items())' \
			"$T.pred.json" "$T.pred2.json")"

	wait "$BG_RECV"
	[ -s "$T.recv.json" ] || fail "the receiver wrote no result"
}

# ---------------------------------------------------------------------------
# 2. Frames for cpu N were processed on CPU N: the cpumap program's per-CPU
#    dequeue counter, the wrong_cpu counter, and the receiving sockets agree.
t_processed_on_target_cpu() {
	T=$XS_TMP/t1
	[ -s "$T.recv.json" ] || fail "needs the traffic of counters_match_predictions"
	flows wait-idle --timeout 5 >"$T.idle.json"
	for n in 0 1; do
		local pk
		pk=$(pyx "d['targets']['cpu:$n']['packets']" "$T.idle.json")
		assert_eq "cpu:$n packets (test 1 only)" "$pk" "$(pyx "$C * d['cpu:$n']" "$T.spread.json")"
		pyx "d['targets']['cpu:$n']['per_cpu']" "$T.idle.json"
		assert_eq "cpu:$n dequeued on CPU $n" \
			"$(pyx "[c['dequeued'] for c in d['targets']['cpu:$n']['per_cpu'] if c['cpu'] == $n][0]" \
				"$T.idle.json")" "$pk"
		assert_eq "cpu:$n dequeued on any other CPU" \
			"$(pyx "sum(c['dequeued'] for c in d['targets']['cpu:$n']['per_cpu'] if c['cpu'] != $n)" \
				"$T.idle.json")" 0
		assert_eq "cpu:$n dropped" "$(pyx "d['targets']['cpu:$n']['dropped']" "$T.idle.json")" 0
	done
	# Counters of frames run on the wrong CPU or without metadata, where the
	# program has them.
	assert_eq "wrong_cpu" "$(pyx 'd["counters"].get("wrong_cpu", 0)' "$T.idle.json")" 0
	assert_eq "meta_error" "$(pyx 'd["counters"].get("meta_error", 0)' "$T.idle.json")" 0

	# Receiving side: each flow's socket got all its datagrams, last delivered
	# on the CPU that lookup named (SO_INCOMING_CPU).
	assert_eq "datagrams not matched to a flow socket" "$(pyx 'd["strays"]' "$T.recv.json")" 0
	assert_eq "flows that did not receive exactly $C datagrams" \
		"$(pyx "sorted(f for f, v in d['flows'].items() if v['received'] != $C)" "$T.recv.json")" "[]"
	assert_eq "flows received on another CPU than predicted" \
		"$(pyx 'sorted(f for f, v in d0["flows"].items() if "cpu:%d" % v["cpu"] != d1[f]["name"])' \
			"$T.recv.json" "$T.pred.json")" "[]"
}

# ---------------------------------------------------------------------------
# 3. Growth without pinning: adding a third target under live traffic moves
#    exactly the flows whose lookup changed, all to the new target, ~1/3.
t_growth_moves_only_predicted() {
	T=$XS_TMP/t3
	attach --seed "$SEED3" --flow-table-size 0
	add_cpus
	flows predict --flows "$FLOWS3" --out "$T.p2.json"
	assert_true "2 slots, nothing pinned" \
		"$(pyx 'all(v["slots"] == 2 and not v["pinned"] for v in d.values())' "$T.p2.json")"
	# Observed = predicted, per flow: each batch holds the flows predicted for
	# one target and must land on it alone.
	flows observe-batches --pred "$T.p2.json" --count 2 >/dev/null

	# Add the third target while every flow keeps sending.
	flows stats >"$T.s0.json"
	rm -f "$T.stop"
	bg_start SENDER flows bg --flows "$FLOWS3" --stop-file "$T.stop" --out "$T.bg.json" \
		--max-seconds 10
	sleep 0.3
	xs target add "$IF_STEER" dev "$DEV_A"
	sleep 0.3
	touch "$T.stop"
	wait "$BG_SENDER"
	pyx d "$T.bg.json"
	flows settle --before "$T.s0.json" --expect "$(pyx 'd["sent"]' "$T.bg.json")" >"$T.bgd.json"
	pyx 'd["delta"]' "$T.bgd.json"
	assert_eq "packets steered during the change" \
		"$(pyx 'sum(d["delta"]["targets"].values())' "$T.bgd.json")" "$(pyx 'd["sent"]' "$T.bg.json")"
	assert_eq "counters that moved during the change" \
		"$(pyx 'sorted(d["delta"]["counters"])' "$T.bgd.json")" "[]"
	assert_true "the new target took traffic before the sender stopped" \
		"$(pyx "d['delta']['targets'].get('dev:$DEV_A', 0) > 0" "$T.bgd.json")"

	flows predict --flows "$FLOWS3" --out "$T.p3.json"
	assert_true "3 slots" "$(pyx 'all(v["slots"] == 3 for v in d.values())' "$T.p3.json")"
	pyx 'sorted(f for f in d0 if d0[f]["name"] != d1[f]["name"])' "$T.p2.json" "$T.p3.json" \
		>"$T.moved.json"
	echo "moved: $(pyx 'len(d)' "$T.moved.json") of $K flows"
	assert_eq "moved flows that went anywhere but the new target" \
		"$(pyx "[f for f in d0 if d1[f]['name'] != 'dev:$DEV_A']" "$T.moved.json" "$T.p3.json")" "[]"
	assert_true "about 1/3 of the flows moved (25-42%)" \
		"$(pyx "0.25 * $K <= len(d) <= 0.42 * $K" "$T.moved.json")"
	# Observed after = the new predictions, per flow. With observed before =
	# the old predictions, the flows whose observed target changed are exactly
	# the flows whose lookup changed.
	flows observe-batches --pred "$T.p3.json" --count 2 >/dev/null
	echo "ok: every flow observed on its new prediction"
}

# ---------------------------------------------------------------------------
# 3b. Growth with pinning: established flows stay put, new flows follow the
#     new mapping.
t_growth_keeps_pinned_flows() {
	T=$XS_TMP/t3b
	attach --seed "$SEED3"
	add_cpus
	flows predict --flows "$FLOWS3" --out "$T.p2.json"
	flows observe-batches --pred "$T.p2.json" --count 1 >"$T.o1.json"
	flows stats >"$T.s1.json"
	assert_eq "flow_new after pinning $K flows" "$(pyx 'd["counters"]["flow_new"]' "$T.s1.json")" "$K"

	xs target add "$IF_STEER" dev "$DEV_A"
	flows predict --flows "$FLOWS3" --out "$T.q.json"
	assert_true "every old flow is pinned, to its old target" \
		"$(pyx 'all(d1[f]["pinned"] and d1[f]["name"] == v["name"] for f, v in d0.items())' \
			"$T.p2.json" "$T.q.json")"
	# lookup's "slot" is the unpinned decision: count the flows the new
	# target's slot would take if they were not pinned.
	local slot
	slot=$(xs target list "$IF_STEER" --json | pyx "[t['slot'] for t in d if t.get('dev') == '$DEV_A'][0]" -)
	echo "pinned flows the new target would otherwise take: $(pyx "sum(v['slot'] == $slot for v in d.values())" "$T.q.json")"
	assert_true "some pinned flows would have moved without their pin" \
		"$(pyx "sum(v['slot'] == $slot for v in d.values()) > 0" "$T.q.json")"
	flows observe-batches --pred "$T.q.json" --count 2 >/dev/null
	echo "ok: old flows observed on their old targets"

	flows predict --flows "$FLOWS3_NEW" --out "$T.n.json"
	assert_true "new flows are not pinned" "$(pyx 'not any(v["pinned"] for v in d.values())' "$T.n.json")"
	assert_true "new flows use the new target" \
		"$(pyx "sum(v['name'] == 'dev:$DEV_A' for v in d.values()) > 0" "$T.n.json")"
	flows observe-batches --pred "$T.n.json" --count 1 >/dev/null
	echo "ok: new flows observed on their predictions"
	flows predict --flows "$FLOWS3_NEW" --out "$T.n2.json"
	assert_true "new flows are now pinned where predicted" \
		"$(pyx 'all(d1[f]["pinned"] and d1[f]["name"] == v["name"] for f, v in d0.items())' \
			"$T.n.json" "$T.n2.json")"
	flows stats >"$T.s2.json"
	assert_eq "flow_new" "$(pyx 'd["counters"]["flow_new"]' "$T.s2.json")" "$((2 * K))"
	assert_eq "flow_hit" "$(pyx 'd["counters"]["flow_hit"]' "$T.s2.json")" "$((2 * K))"
	assert_eq "flow_repin" "$(pyx 'd["counters"]["flow_repin"]' "$T.s2.json")" 0
	# bpftool shows each CPU's counters by name; their sum is what stats printed.
	"$BPFTOOL" -j map dump pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_counters" >"$T.dump.json"
	assert_eq "flow_hit summed over bpftool's per-CPU blocks" \
		"$(pyx 'sum(e["formatted"]["value"]["flow_hit"] for e in d)' "$T.dump.json")" "$((2 * K))"
}

# ---------------------------------------------------------------------------
# 4. Shuffle sharding: for each flow sent alone, the target that counted it is
#    the one lookup reports (pinned), and it is a card of the flow's hand.
t_shuffle_smoke() {
	local i spec=""
	T=$XS_TMP/t4
	attach --algo shuffle --hand-size 2 --seed "$SEED4"
	add_cpus
	xs target add "$IF_STEER" dev "$DEV_A"
	xs target add "$IF_STEER" dev "$DEV_B"
	xs target list "$IF_STEER" --json >"$T.targets.json"
	# Hands are dealt from the source address: 8 sources x 7 ports = 56 flows.
	for ((i = 2; i < N_SRC + 2; i++)); do
		spec="$spec${spec:+,}$NET.$i:23000-23006"
	done
	flows observe-each --flows "$spec" --count 1 >"$T.obs.json"
	flows predict --flows "$spec" --out "$T.p.json"
	assert_eq "flows checked" "$(pyx 'len(d)' "$T.obs.json")" 56
	assert_eq "flows whose observed target is not lookup's" \
		"$(pyx 'sorted((f, t, d1[f]["name"]) for f, t in d0.items() if t != d1[f]["name"])' \
			"$T.obs.json" "$T.p.json")" "[]"
	assert_true "every flow is pinned" "$(pyx 'all(v["pinned"] for v in d.values())' "$T.p.json")"
	assert_true "every hand has 2 cards" "$(pyx 'all(len(v["hand"]) == 2 for v in d.values())' "$T.p.json")"
	# slot of each target name, from target list
	assert_eq "flows whose target is not in their hand" \
		"$(pyx '[f for f, v in d0.items() if {("cpu:%d" % t["cpu"]) if "cpu" in t else "dev:" + t["dev"]: t["slot"] for t in d1}[v["name"]] not in v["hand"]]' \
			"$T.p.json" "$T.targets.json")" "[]"
	assert_true "flows of one source share a hand" \
		"$(pyx 'all(len({tuple(v["hand"]) for f, v in d.items() if f.startswith(s + ":")}) == 1 for s in {f.rsplit(":", 1)[0] for f in d})' "$T.p.json")"
	assert_true "the flows use at least 3 of the 4 targets" \
		"$(pyx 'len({v["name"] for v in d.values()}) >= 3' "$T.p.json")"
	flows observe-batches --pred "$T.p.json" --count 2 >/dev/null
	echo "ok: pinned shuffle flows stay on their targets"
}

# ---------------------------------------------------------------------------
# 5. Bad input: one clear line on stderr, non-zero exit, no change in state.
snap() {
	{
		"$BPFTOOL" map dump pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_targets"
		"$BPFTOOL" map dump pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/pool0"
		ip -n "$NS_STEER" -d link show dev "$IF_STEER" | grep -o 'prog/xdp id [0-9]*'
		ls "$(ns_root "$NS_STEER" "$PIN_ROOT")"
	} >"$1"
}
same_state() { # WHAT
	snap "$T.after"
	cmp -s "$T.before" "$T.after" || {
		diff "$T.before" "$T.after" | head -20
		fail "$1: state changed"
	}
	echo "ok: $1: state unchanged"
}

t_cli_errors() {
	local i
	T=$XS_TMP/t5
	attach
	xs target add "$IF_STEER" cpu 0
	snap "$T.before"

	expect_error "unknown interface (attach)" "nosuch$RUN_ID.*not found" \
		xs attach "nosuch$RUN_ID"
	expect_error "unknown interface (target add)" "nosuch$RUN_ID.*not found" \
		xs target add "nosuch$RUN_ID" cpu 0
	expect_error "unknown dev target" "nodev$RUN_ID.*not found" \
		xs target add "$IF_STEER" dev "nodev$RUN_ID"
	expect_error "cpu that does not exist" "cpu 7 does not exist" \
		xs target add "$IF_STEER" cpu 7
	expect_error "duplicate target" "cpu 0 is already a target" \
		xs target add "$IF_STEER" cpu 0
	expect_error "remove a cpu that is not a target" "cpu 1 is not a target" \
		xs target del "$IF_STEER" cpu 1
	expect_error "remove a dev that is not a target" "dev $DEV_A is not a target" \
		xs target del "$IF_STEER" dev "$DEV_A"
	expect_error "attach twice" "already attached to $IF_STEER" \
		xs attach "$IF_STEER"
	expect_error "--hand-size 0" "hand-size.*'0'" xs attach "$IF_STEER" --algo shuffle --hand-size 0
	expect_error "--hand-size 16" "hand-size.*'16'" xs attach "$IF_STEER" --algo shuffle --hand-size 16
	expect_error "--seed not 32 hex digits" "seed" xs attach "$IF_STEER" --seed 1234
	same_state "after the bad commands on an attached interface"
	expect_error "--hand-size 0 on a free interface" "hand-size" xs attach "$DEV_B" --hand-size 0
	[ ! -e "$(pin_dir "$NS_STEER" "$DEV_B")" ] || fail "a rejected attach left $(pin_dir "$NS_STEER" "$DEV_B")"

	# Not root, and bpffs missing (in a private mount namespace only).
	mkdir -p "$XS_TMP/nobody"
	cp "$XS" "$XS_TMP/nobody/xdpsteer"
	chmod 755 "$XS_TMP/nobody" "$XS_TMP/nobody/xdpsteer"
	for cmd in "stats $IF_STEER" "target add $IF_STEER cpu 1" "attach $DEV_B" "status"; do
		# shellcheck disable=SC2086
		expect_error "not root: $cmd" "missing capabilities: CAP_SYS_ADMIN" run_in "$NS_STEER" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$XS_TMP/nobody/xdpsteer" $cmd
	done
	for cmd in "stats $IF_STEER" "attach $DEV_B" "status"; do
		# shellcheck disable=SC2086
		expect_error "bpffs missing: $cmd" "bpffs is not mounted" run_in "$NS_STEER" \
			unshare -m --propagation private sh -c \
			'while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || exit 99; done; exec "$@"' \
			sh "$XS" $cmd
	done
	assert_eq "bpffs still mounted here" "$(stat -f -c %T /sys/fs/bpf)" bpf_fs
	same_state "after the not-root and no-bpffs commands"

	# An interface that carries an XDP program libxdp does not manage.
	run_in "$NS_STEER" ip link set dev "$DEV_B" xdp obj "$(pass_prog)" sec xdp
	local before_id
	before_id=$(ip -n "$NS_STEER" -d link show dev "$DEV_B" | grep -o 'prog/xdp id [0-9]*')
	expect_error "foreign XDP program" "already has XDP program 'xs_test_pass'" xs attach "$DEV_B"
	grep -q "xdp off" "$XS_TMP/ee.err" && fail "the advice removes a program that is not ours"
	assert_eq "foreign program untouched" \
		"$(ip -n "$NS_STEER" -d link show dev "$DEV_B" | grep -o 'prog/xdp id [0-9]*')" "$before_id"
	[ ! -e "$(pin_dir "$NS_STEER" "$DEV_B")" ] || fail "a rejected attach left $(pin_dir "$NS_STEER" "$DEV_B")"
	run_in "$NS_STEER" ip link set dev "$DEV_B" xdp off

	# No targets: lookup explains, packets pass (counted no_targets) and arrive.
	xs target del "$IF_STEER" cpu 0
	expect_error "lookup with no targets" "has no targets" \
		xs lookup "$IF_STEER" udp "$CLIENT_IP:24000" "$STEER_IP:$DPORT"
	bg_start RECV flows_steer recv --flows "$CLIENT_IP:24000-24009" --expect 2 --timeout 10 \
		--ready "$T.ready" --out "$T.recv.json"
	wait_file "$T.ready" 10
	flows count --flows "$CLIENT_IP:24000-24009" --count 2 >"$T.nt.json"
	assert_eq "no_targets" "$(pyx 'd["delta"]["counters"]' "$T.nt.json")" '{"no_targets": 20}'
	wait "$BG_RECV"
	assert_eq "passed packets delivered" \
		"$(pyx 'sum(v["received"] for v in d["flows"].values())' "$T.recv.json")" 20

	# An attachment by another version of xdpsteer, made here by taking a map
	# pin away: commands say what is missing and what to do; detach works.
	rm "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_epoch"
	expect_error "a map pin missing" "has no xs_epoch: another version of xdpsteer.*detach" \
		xs stats "$IF_STEER"
	xs detach "$IF_STEER" >/dev/null
	[ ! -e "$(pin_dir "$NS_STEER" "$IF_STEER")" ] || fail "detach left $(pin_dir "$NS_STEER" "$IF_STEER")"
	echo "ok: an attachment missing a map pin is refused with advice, and detached"

	# Shuffle entropy: hand 15 allows 16 targets (16^15 = 2^60), not 17.
	for ((i = 1; i <= 15; i++)); do
		add_dev_target_if "e$i"
	done
	attach --algo shuffle --hand-size 15
	add_cpus >/dev/null
	for ((i = 1; i <= 14; i++)); do
		xs target add "$IF_STEER" dev "${DEV_PREFIX}e$i" >/dev/null
	done
	assert_eq "targets" "$(xs target list "$IF_STEER" --json | pyx 'len(d)' -)" 16
	snap "$T.before"
	expect_error "17th target with hand 15" "entropy" xs target add "$IF_STEER" dev "${DEV_PREFIX}e15"
	same_state "after the rejected 17th target"
	xs target del "$IF_STEER" cpu 1
	xs target add "$IF_STEER" dev "${DEV_PREFIX}e15"
	echo "ok: a 16th target fits again after one is removed"
}

# A dev target that is the veth peer of the attached interface: whatever is
# steered to it comes back in on the interface, into the program, and loops
# (the old code took it: one packet then circled at about 4 Mpps). Refused
# by the command and by a file, naming the loop, with nothing changed.
t_dev_target_loop() {
	local la=xl${RUN_ID}a lb=xl${RUN_ID}b f=$XS_TMP/loop.conf before
	ip -n "$NS_STEER" link add "$la" type veth peer name "$lb"
	ip -n "$NS_STEER" link set "$la" up
	ip -n "$NS_STEER" link set "$lb" up
	attach_in "$NS_STEER" "$la" --xdp-mode skb >/dev/null
	xs target add "$la" cpu 0 >/dev/null
	before=$(bpftool map dump pinned "$(pin_dir "$NS_STEER" "$la")/xs_targets" | md5sum)
	expect_error "target dev: the veth peer" "target dev $lb is the veth peer of $la: .*loop" \
		xs target add "$la" dev "$lb"
	printf 'target cpu 0\ntarget dev %s\n' "$lb" >"$f"
	chmod 600 "$f"
	expect_error "a file's target dev: the veth peer" "^$f:2: target dev $lb is the veth peer" \
		xs apply "$la" -f "$f"
	expect_error "target dev: the interface itself" "target dev $la is $la itself: .*loop" \
		xs target add "$la" dev "$la"
	assert_eq "xs_targets unchanged" \
		"$(bpftool map dump pinned "$(pin_dir "$NS_STEER" "$la")/xs_targets" | md5sum)" "$before"
	# Any other veth is a target as before.
	xs target add "$la" dev "$DEV_A" >/dev/null
	echo "ok: dev $DEV_A, whose peer is not $la, is taken"
	xs_detach_quiet "$NS_STEER" "$la"
	ip -n "$NS_STEER" link del "$la"
}

# decap attach where xdpsteer steers: libxdp attached the steering program
# alone (its dispatcher fails here), so the decap program cannot join it.
# The old advice was `ip link set dev IF xdp off`, which removes the load
# balancer; the refusal names what runs there and how xdpsteer removes it.
t_decap_beside_steering() {
	local id
	attach --xdp-mode skb >/dev/null
	id=$(ip -n "$NS_STEER" -d link show dev "$IF_STEER" | grep -o 'prog/xdp id [0-9]*')
	expect_error "decap attach on the steering interface" \
		"$IF_STEER runs xdpsteer's load balancer .* run .xdpsteer detach $IF_STEER. first if that one should go" \
		xs decap attach "$IF_STEER"
	grep -q "xdp off" "$XS_TMP/ee.err" && fail "the advice still removes whatever runs there"
	assert_eq "the steering program is still there" \
		"$(ip -n "$NS_STEER" -d link show dev "$IF_STEER" | grep -o 'prog/xdp id [0-9]*')" "$id"
	[ ! -e "$(decap_pin_dir "$NS_STEER" "$IF_STEER")" ] || fail "a refused decap attach left its pins"
	echo "ok: refused, the steering program untouched"
}

# ---------------------------------------------------------------------------
# Run by name, this brings along the test whose traffic it checks.
ns_needs processed_on_target_cpu counters_match_predictions

main() {
	local t
	ns_select "$@"
	install_trap
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	{
		setup_testbed && add_client_ips $((N_SRC - 1)) &&
			add_dev_target_if a deliver && add_dev_target_if b deliver
	} || fatal "$XS_SUITE" "cannot build the namespace testbed (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

main "$@"
