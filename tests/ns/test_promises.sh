#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Promises the documents make to an operator that no other suite held the
# code to (docs/testing.md, "promises and their tests", lists every promise
# and the test that guards it):
#  - detach takes the program off the interface and every pin away, also when
#    the program was already gone (usage.md, attach, detach, status);
#  - the seed never leaves the host by a plan, status or an error: a plan
#    says "a new key", a malformed seed is reported by its length, and a file
#    may not say "seed random" (usage.md, seed; configuration.md, the seed is
#    a secret);
#  - backend add keeps its next hop resolved with a managed neighbour entry,
#    and backend del removes only ours, once no backend needs it (usage.md,
#    service and backend);
#  - an upgrade over a program that is not the pinned one, or of an attachment
#    without its build record, is refused and changes nothing (upgrade.md);
#  - an agent running through an upgrade applies its configuration again,
#    and that changes nothing (upgrade.md);
#  - apply takes up to 8 files, and refuses a 9th as a usage error, changing
#    nothing (configuration.md, several files);
#  - apply --watch applies a burst of writes once, and ends cleanly on SIGINT
#    and SIGHUP (configuration.md, watching the file);
#  - more services or backends than the maps hold are refused, naming the
#    limit (usage.md, service and backend); a value such as -1 is an argument,
#    and --json does not go with --watch (usage.md, conventions, json);
#  - service del removes the service and its backends, nothing else (usage.md);
#  - target list with no live target says that packets pass (usage.md, target);
#  - a change that fails part way is rolled back before anything is published
#    (usage.md, conventions; xdpsteer(8), exit status; configuration.md, how
#    a change is made);
#  - a backend its check takes out keeps its pinned flows with on-down drain
#    and has them decided again with redecide (health.md);
#  - undrain of a backend its check holds down leaves it out (health.md);
#  - status's seed digest and pool digest are equal on hosts with the same
#    seed and pool, and differ otherwise (usage.md, seed; configuration.md).
# Prints "promises: N passed, N failed". Needs root; about 3.5 min on the loaded
# 2-core machine (5 s of each test is its namespace); V=1 for detail.
#
#   tests/ns/test_promises.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=promises
if [ -z "${XS_PROMISES_WATCHDOG:-}" ]; then
	export XS_PROMISES_WATCHDOG=1
	exec timeout -k 20 "${XS_PROMISES_TIMEOUT:-480}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "${BASH_SOURCE[0]}")/state.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh" # status, wait_status
# Names of this suite's own: pins under $PIN_ROOT are global.
NS_STEER=ppl-$RUN_ID
NS_CLIENT=ppc-$RUN_ID
IF_STEER=ppa$RUN_ID
IF_CLIENT=ppb$RUN_ID

SEED=5eed000000000000000000000000a11c
SVC=10.77.0.1:80/tcp
SVC2=10.77.0.2:80/tcp

# prog_on_iface: the XDP program id on $IF_STEER, or nothing.
prog_on_iface() {
	ip -n "$NS_STEER" -d link show dev "$IF_STEER" | grep -o 'prog/xdp id [0-9]*' | awk '{print $3}' || true
}

# no_long_hex WHAT TEXT: TEXT holds no run of 16 hex digits (half a seed, in any order).
no_long_hex() {
	! grep -Eiq '[0-9a-f]{16}' <<<"$2" || fail "$1 shows a key: $2"
	echo "ok: $1 shows no key"
}

# ---------------------------------------------------------------------------
t_detach_removes_everything() {
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	[ -n "$(prog_on_iface)" ] || fail "no program on $IF_STEER after attach"
	assert_eq "detach says" "$(xs detach "$IF_STEER")" "detached xdpsteer from $IF_STEER"
	assert_eq "program on $IF_STEER after detach" "$(prog_on_iface)" ""
	assert_eq "pins after detach" "$(test -e "$(pin_dir "$NS_STEER" "$IF_STEER")" && echo present || echo none)" none

	# The program taken off behind xdpsteer's back: the state is not this
	# interface's any more, so detach refuses, changes nothing, and names the
	# way out, which works.
	attach --xdp-mode skb >/dev/null
	run_in "$NS_STEER" ip link set dev "$IF_STEER" xdpgeneric off
	assert_eq "program after xdpgeneric off" "$(prog_on_iface)" ""
	local rc=0 d
	d=$(pin_dir "$NS_STEER" "$IF_STEER")
	xs detach "$IF_STEER" >"$XS_TMP/d.out" 2>"$XS_TMP/d.err" || rc=$?
	echo "  \$ xdpsteer detach -> rc $rc: $(cat "$XS_TMP/d.out" "$XS_TMP/d.err")"
	assert_eq "detach of a program already gone: exit status" "$rc" 1
	grep -q "is not this interface's: .*nothing changed.*rm -r $d" "$XS_TMP/d.err" ||
		fail "detach did not refuse with the way out: $(cat "$XS_TMP/d.err")"
	assert_eq "pins after the refused detach" "$(test -e "$d" && echo present || echo none)" present
	rm -r "$d"
	attach --xdp-mode skb >/dev/null
	assert_eq "detach after the advice" "$(xs detach "$IF_STEER")" "detached xdpsteer from $IF_STEER"
	assert_eq "pins after detach" "$(test -e "$d" && echo present || echo none)" none
}

t_seed_never_shown() {
	local out rc
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	out=$(xs seed "$IF_STEER" random)
	grep -qx '  ~ seed: a new key (every pool)' <<<"$out" || fail "seed random: no plan line: $out"
	no_long_hex "the plan of seed random" "$out"
	no_long_hex "the plan of seed HEX" "$(xs seed "$IF_STEER" "$SEED")"
	out=$(xs seed "$IF_STEER" random --json)
	assert_eq "the JSON plan's changes" "$(pyx '" | ".join(c["text"] for c in d["changes"])' - <<<"$out")" \
		"seed: a new key (every pool)"
	no_long_hex "the JSON plan of seed random" "$out"
	no_long_hex "status" "$(xs status "$IF_STEER")"
	no_long_hex "status --json" "$(xs status "$IF_STEER" --json)"
	no_long_hex "show" "$(xs show "$IF_STEER")"
	# show --secrets is the one place the key is printed (so the checks above can see one).
	grep -Eq '^seed [0-9a-f]{32}$' <<<"$(xs show "$IF_STEER" --secrets)" ||
		fail "show --secrets printed no seed"

	# A malformed seed is reported by its length, never echoed.
	expect_error "a malformed seed" "a value of 12 characters is not 32 hex digits" \
		xs seed "$IF_STEER" deadbeefcafe
	! grep -q deadbeefcafe "$XS_TMP/ee.err" || fail "the error echoed the seed: $(cat "$XS_TMP/ee.err")"

	# A file is a state: 'seed random' in it is refused at its line, nothing changed.
	printf 'target cpu 0\nseed random\n' >"$XS_TMP/random.conf"
	chmod 600 "$XS_TMP/random.conf"
	dump_state "$XS_TMP/before.dump"
	rc=0
	xs apply "$IF_STEER" -f "$XS_TMP/random.conf" >"$XS_TMP/r.out" 2>"$XS_TMP/r.err" || rc=$?
	echo "  \$ xdpsteer apply -f random.conf -> rc $rc: $(cat "$XS_TMP/r.err")"
	assert_eq "apply of 'seed random': exit status" "$rc" 1
	grep -q "^$XS_TMP/random.conf:2: seed random: " "$XS_TMP/r.err" ||
		fail "not refused at its line: $(cat "$XS_TMP/r.err")"
	assert_same_state "apply of 'seed random'" "$XS_TMP/before.dump"
}

# managed NEIGH: the flags of our neighbour entry for NEIGH on $IF_STEER ("managed"
# when xdpsteer keeps it, "PERMANENT" when set by hand, "none" when there is none).
neigh_of() {
	local l
	l=$(ip -n "$NS_STEER" neigh show "$1" dev "$IF_STEER")
	if [ -z "$l" ]; then
		echo none
	elif grep -q managed <<<"$l"; then
		echo managed
	elif grep -q PERMANENT <<<"$l"; then
		echo PERMANENT
	else
		echo "other: $l"
	fi
}

t_backend_neighbours() {
	local b=$NET.50 hand=$NET.60
	attach --xdp-mode skb >/dev/null
	xs service add "$IF_STEER" "$SVC" >/dev/null
	xs service add "$IF_STEER" "$SVC2" >/dev/null
	run_in "$NS_STEER" ip neigh del "$b" dev "$IF_STEER" 2>/dev/null || true
	assert_eq "neighbour $b before" "$(neigh_of "$b")" none
	xs backend add "$IF_STEER" "$SVC" "$b" >/dev/null
	assert_eq "neighbour $b after backend add" "$(neigh_of "$b")" managed
	xs backend add "$IF_STEER" "$SVC2" "$b" >/dev/null
	xs backend del "$IF_STEER" "$SVC" "$b" >/dev/null
	assert_eq "neighbour $b while another service's backend needs it" "$(neigh_of "$b")" managed
	xs backend del "$IF_STEER" "$SVC2" "$b" >/dev/null
	assert_eq "neighbour $b after its last backend left" "$(neigh_of "$b")" none

	# An entry the operator set by hand is left as it is, through add and del.
	run_in "$NS_STEER" ip neigh replace "$hand" lladdr 02:00:00:00:00:60 dev "$IF_STEER" nud permanent
	xs backend add "$IF_STEER" "$SVC" "$hand" >/dev/null
	assert_eq "hand-set neighbour $hand after backend add" "$(neigh_of "$hand")" PERMANENT
	xs backend del "$IF_STEER" "$SVC" "$hand" >/dev/null
	assert_eq "hand-set neighbour $hand after backend del" "$(neigh_of "$hand")" PERMANENT
	run_in "$NS_STEER" ip neigh del "$hand" dev "$IF_STEER"
}

# pools_dump: the pools as published (xs_pools holds the inner map ids, so any
# publish shows) and their headers.
pools_dump() {
	"$BPFTOOL" map dump pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_pools"
	"$BPFTOOL" map dump pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_pool_hdrs"
}

t_agent_through_upgrade() {
	local conf old new i
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	conf=$XS_TMP/agent.conf
	printf '%s\n' "target cpu 0" "service $SVC" "backend $SVC $NET.51" "backend $SVC $NET.52 weight 2" >"$conf"
	chmod 644 "$conf"
	# A background process of this test: ended with it, whatever happens.
	bg_start AGENT nsenter --net=/run/netns/"$NS_STEER" -- "$XS" agent "$IF_STEER" -f "$conf" \
		--run-dir "$XS_TMP/run" >"$XS_TMP/agent.log" 2>&1 </dev/null
	wait_status "$XS_TMP/run" 'd["applied"] == 1 and d["error"] is None'
	old=$(prog_on_iface)
	pools_dump >"$XS_TMP/pools.before"
	xs show "$IF_STEER" >"$XS_TMP/show.before"
	xs upgrade "$IF_STEER" >/dev/null
	new=$(prog_on_iface)
	assert_ne "program id after the upgrade" "$new" "$old"
	for ((i = 0; i < 100; i++)); do
		grep -q "${AT}agent: $IF_STEER: attached (program $new): applying revision 1$" "$XS_TMP/agent.log" &&
			break
		sleep 0.05
	done
	grep -q "${AT}agent: $IF_STEER: attached (program $new): applying revision 1$" "$XS_TMP/agent.log" ||
		fail "the agent did not see the new program $new: $(tail -n 5 "$XS_TMP/agent.log")"
	wait_status "$XS_TMP/run" 'd["applied"] == 1 and d["interfaces"][0]["attached"] and d["error"] is None'
	sed -n "/attached (program $new)/,\$p" "$XS_TMP/agent.log" >"$XS_TMP/after.log"
	cat "$XS_TMP/after.log"
	grep -q "${AT}  no changes$" "$XS_TMP/after.log" ||
		fail "the agent's apply after the upgrade changed something"
	pools_dump | cmp -s - "$XS_TMP/pools.before" || fail "a pool was published again"
	xs show "$IF_STEER" | cmp -s - "$XS_TMP/show.before" || fail "show differs after the upgrade"
	echo "ok: pools not republished, show identical"
	kill -TERM "$BG_AGENT"
	wait "$BG_AGENT" || fail "the agent did not end cleanly on SIGTERM"
}

t_apply_eight_files() {
	local i args=() rc
	attach --xdp-mode skb >/dev/null
	for ((i = 1; i <= 8; i++)); do
		printf 'backend %s 10.78.0.%d\n' "$SVC" "$i" >"$XS_TMP/f$i.conf"
		args+=(-f "$XS_TMP/f$i.conf")
	done
	printf 'service %s\nbackend %s 10.78.0.1\n' "$SVC" "$SVC" >"$XS_TMP/f1.conf"
	chmod 644 "$XS_TMP"/f*.conf
	xs apply "$IF_STEER" "${args[@]}" >/dev/null 2>&1
	assert_eq "backends from 8 files" \
		"$(xs service list "$IF_STEER" --json | pyx 'len(d[0]["backends"])' -)" 8
	printf 'target cpu 0\n' >"$XS_TMP/f9.conf"
	chmod 644 "$XS_TMP/f9.conf"
	dump_state "$XS_TMP/before.dump"
	rc=0
	xs apply "$IF_STEER" "${args[@]}" -f "$XS_TMP/f9.conf" >"$XS_TMP/n.out" 2>"$XS_TMP/n.err" || rc=$?
	echo "  \$ xdpsteer apply -f ... (9 files) -> rc $rc: $(head -n 1 "$XS_TMP/n.err")"
	assert_eq "apply of 9 files: exit status" "$rc" 2
	grep -q '^xdpsteer: apply: more than 8 files$' "$XS_TMP/n.err" ||
		fail "no usage error for 9 files: $(cat "$XS_TMP/n.err")"
	assert_same_state "apply of 9 files" "$XS_TMP/before.dump"
}

# visible_state FILE: what packets and commands see: the descriptors, redirect
# entries, services, xs_self (which generation runs), the live queue pool and
# show. The staged generation a failed transaction leaves is not in it: no
# packet reads it, and the next commit writes it afresh.
visible_state() {
	local d=$(pin_dir "$NS_STEER" "$IF_STEER") m
	for m in xs_self xs_targets xs_cpumap xs_devmap xs_services xs_vips pool0; do
		echo "== $m"
		"$BPFTOOL" map dump pinned "$d/$m"
	done >"$1"
	xs show "$IF_STEER" >>"$1"
}

same_visible() { # WHAT: the visible state equals $XS_TMP/before.vis
	visible_state "$XS_TMP/after.vis"
	if ! diff "$XS_TMP/before.vis" "$XS_TMP/after.vis" >"$XS_TMP/vis.diff"; then
		head -n 20 "$XS_TMP/vis.diff"
		fail "$1 left a trace"
	fi
}

# A commit that fails part way, made to fail by freezing xs_self (no write from
# user space succeeds after BPF_MAP_FREEZE): descriptors and redirect entries
# it wrote are put back, nothing else was visible, exit status 1.
t_failed_commit_rolled_back() {
	local rc
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	xs service add "$IF_STEER" "$SVC" >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$NET.51" >/dev/null
	visible_state "$XS_TMP/before.vis"
	"$BPFTOOL" map freeze pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_self"
	rc=0
	xs target add "$IF_STEER" cpu 1 >"$XS_TMP/f.out" 2>"$XS_TMP/f.err" || rc=$?
	echo "  \$ xdpsteer target add cpu 1 (xs_self frozen) -> rc $rc: $(cat "$XS_TMP/f.err")"
	assert_eq "a target add that fails at the switch: exit status" "$rc" 1
	grep -qx "xdpsteer: $IF_STEER: nothing of the change was applied" "$XS_TMP/f.err" ||
		fail "no 'nothing was applied': $(cat "$XS_TMP/f.err")"
	same_visible "the failed target add"
	echo "ok: target add failed part way: state as before"
	printf '%s\n' "target cpu 0" "target cpu 1" "service $SVC" "backend $SVC $NET.51" \
		"service $SVC2" "backend $SVC2 $NET.52" "backend $SVC $NET.53 weight 2" >"$XS_TMP/grow.conf"
	chmod 644 "$XS_TMP/grow.conf"
	rc=0
	xs apply "$IF_STEER" -f "$XS_TMP/grow.conf" >"$XS_TMP/f.out" 2>"$XS_TMP/f.err" || rc=$?
	echo "  \$ xdpsteer apply (a target, a service, backends; xs_self frozen) -> rc $rc: $(cat "$XS_TMP/f.err")"
	assert_eq "an apply that fails part way: exit status" "$rc" 1
	grep -qx "xdpsteer: $IF_STEER: nothing of $XS_TMP/grow.conf was applied" "$XS_TMP/f.err" ||
		fail "no 'nothing was applied': $(cat "$XS_TMP/f.err")"
	same_visible "the failed apply"
	echo "ok: apply failed part way: state as before"
	attach --xdp-mode skb >/dev/null # xs_self stays frozen: start afresh
}

# status's digests: hosts with the same seed and pool print the same ones, and
# another seed prints another seed digest (usage.md, seed; configuration.md).
t_digests_tell_hosts_apart() {
	local other=${DEV_PREFIX}h a b
	add_dev_target_if h
	printf '%s\n' "target cpu 0 slots 1" "target cpu 1 slots 0" "slot-count 3" >"$XS_TMP/same.conf"
	chmod 644 "$XS_TMP/same.conf"
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	attach_in "$NS_STEER" "$other" --xdp-mode skb --seed "$SEED" >/dev/null
	xs apply "$IF_STEER" -f "$XS_TMP/same.conf" >/dev/null
	xs apply "$other" -f "$XS_TMP/same.conf" >/dev/null
	a=$(xs status "$IF_STEER" --json | pyx '[d[0]["seed_digest"], d[0]["digest"]]' -)
	b=$(xs status "$other" --json | pyx '[d[0]["seed_digest"], d[0]["digest"]]' -)
	assert_eq "same seed and pool: [seed_digest, digest] of $other" "$b" "$a"
	xs target del "$other" cpu 0 >/dev/null
	xs target add "$other" cpu 0 >/dev/null
	assert_eq "the pool back as it was: digest of $other" \
		"$(xs status "$other" --json | pyx 'd[0]["digest"]' -)" "$(pyx 'd[1]' - <<<"$a")"
	xs target del "$other" cpu 1 >/dev/null
	assert_ne "another pool: digest of $other" \
		"$(xs status "$other" --json | pyx 'd[0]["digest"]' -)" "$(pyx 'd[1]' - <<<"$a")"
	xs seed "$other" 5eed000000000000000000000000a11d >/dev/null
	assert_ne "another seed: seed_digest of $other" \
		"$(xs status "$other" --json | pyx 'd[0]["seed_digest"]' -)" "$(pyx 'd[0]' - <<<"$a")"
	xs detach "$other" >/dev/null
}

# target_field ID FIELD: a field of target ID's entry in xs_targets.
target_field() {
	# shellcheck disable=SC2046 # the key's four bytes, as four words
	"$BPFTOOL" -j map lookup pinned "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_targets" key $(printf '%d %d %d %d' \
		$(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255))) |
		pyx "d[\"formatted\"][\"value\"][\"$2\"]" -
}
uid_of() { target_field "$1" uid; }

# on-down: a backend its check takes out keeps its uid with 'drain', so its
# pinned flows stay, and gets a new one with 'redecide', so they are decided
# again (health.md, what a down backend does to flows). The client's address
# refuses TCP on port 9 at once, so one failed probe takes it down.
t_on_down_drain_keeps_pins() {
	local ids keep redo i down
	attach --xdp-mode skb >/dev/null
	xs service add "$IF_STEER" "$SVC" --check tcp --check-port 9 --interval 100ms --timeout 50ms \
		--fall 1 --on-down drain >/dev/null
	xs service add "$IF_STEER" "$SVC2" --check tcp --check-port 9 --interval 100ms --timeout 50ms \
		--fall 1 --on-down redecide >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$CLIENT_IP" >/dev/null
	xs backend add "$IF_STEER" "$SVC2" "$CLIENT_IP" >/dev/null
	ids=$(xs show "$IF_STEER" --json | pyx '" ".join(str(s["backends"][0]["id"]) for s in d["services"])' -)
	read -r keep redo <<<"$ids"
	local keep_uid redo_uid
	keep_uid=$(uid_of "$keep")
	redo_uid=$(uid_of "$redo")
	bg_start AGENT nsenter --net=/run/netns/"$NS_STEER" -- "$XS" agent "$IF_STEER" \
		--run-dir "$XS_TMP/hrun" >"$XS_TMP/hagent.log" 2>&1 </dev/null
	for ((i = 0; i < 100; i++)); do
		down=$(xs show "$IF_STEER" --json | pyx '[s["backends"][0]["down"] for s in d["services"]]' -)
		[ "$down" = "[true, true]" ] && break
		sleep 0.05
	done
	cat "$XS_TMP/hagent.log"
	assert_eq "both backends down" "$down" "[true, true]"
	assert_eq "on-down drain: uid of backend $keep" "$(uid_of "$keep")" "$keep_uid"
	assert_ne "on-down redecide: uid of backend $redo" "$(uid_of "$redo")" "$redo_uid"
	kill -TERM "$BG_AGENT"
	wait "$BG_AGENT" || true
}

# watch_start FILE: apply --watch of FILE in the background ($BG_WATCH is the CLI
# itself: env and nsenter exec it), its output in $XS_TMP/w.out, once it watches.
# env gives it SIGINT's default: a background job of a script starts with SIGINT
# ignored, which an operator's ^C in a terminal never sees.
watch_start() {
	local i
	: >"$XS_TMP/w.out"
	bg_start WATCH env --default-signal=INT nsenter --net=/run/netns/"$NS_STEER" -- \
		"$XS" apply "$IF_STEER" -f "$1" --watch >"$XS_TMP/w.out" 2>"$XS_TMP/w.err"
	for ((i = 0; i < 200; i++)); do
		grep -q '^watching' "$XS_TMP/w.out" && return 0
		sleep 0.05
	done
	fail "apply --watch did not start: $(cat "$XS_TMP/w.out" "$XS_TMP/w.err")"
}

# apply --watch: a burst of writes is applied once, 100 ms after the last; SIGINT
# and SIGHUP end it cleanly, as SIGTERM does (configuration.md, watching the file;
# xdpsteer.conf(5), watching). test_apply.sh watch holds the rest.
t_watch_burst_and_signals() {
	local f=$XS_TMP/wb/xs.conf q rc sig
	mkdir -p "$XS_TMP/wb"
	attach --xdp-mode skb >/dev/null
	printf 'target cpu 0 qsize 100\n' >"$f"
	chmod 644 "$f"
	watch_start "$f"
	sleep 0.3
	assert_eq "applies before the burst" "$(grep -c '^applied' "$XS_TMP/w.out")" 1
	# Eight writes 30 ms apart: never quiet for 100 ms until the last.
	for q in 101 102 103 104 105 106 107 108; do
		printf 'target cpu 0 qsize %s\n' "$q" >"$f"
		sleep 0.03
	done
	sleep 0.6
	cat "$XS_TMP/w.out"
	assert_eq "applies after a burst of 8 writes" "$(grep -c '^applied' "$XS_TMP/w.out")" 2
	assert_eq "the state after the burst" "$(xs show "$IF_STEER" | strip_places | grep '^target')" \
		"target cpu 0 qsize 108"
	for sig in INT HUP; do
		[ "$sig" = INT ] || watch_start "$f"
		dump_state "$XS_TMP/last.dump"
		kill -"$sig" "$BG_WATCH"
		rc=0
		wait "$BG_WATCH" || rc=$?
		assert_eq "apply --watch: exit status after SIG$sig" "$rc" 0
		grep -q '^stopped watching' "$XS_TMP/w.out" || fail "no clean stop on SIG$sig: $(cat "$XS_TMP/w.out")"
		assert_same_state "after SIG$sig" "$XS_TMP/last.dump"
	done
}

# expect_refused_apply WHAT FILE RC PATTERN: apply FILE exits RC with PATTERN on
# stderr (grep -E), and every pinned map is byte-identical.
expect_refused_apply() {
	local rc=0
	dump_state "$XS_TMP/before.dump"
	xs apply "$IF_STEER" -f "$2" "${@:5}" >"$XS_TMP/a.out" 2>"$XS_TMP/a.err" || rc=$?
	echo "  \$ xdpsteer apply -f $(basename "$2") ${*:5} -> rc $rc: $(head -n 1 "$XS_TMP/a.err")"
	assert_eq "$1: exit status" "$rc" "$3"
	grep -Eq -- "$4" "$XS_TMP/a.err" || fail "$1: stderr does not match /$4/: $(cat "$XS_TMP/a.err")"
	assert_same_state "$1" "$XS_TMP/before.dump"
}

# More services or backends than the maps hold: refused at the line that is one
# too many, naming the limit and where to raise it (usage.md, service and backend).
t_limits_named() {
	local i
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	for ((i = 0; i <= 1024; i++)); do
		printf 'service 10.%d.%d.1:80/tcp\n' $((100 + i / 250)) $((i % 250))
	done >"$XS_TMP/services.conf"
	chmod 644 "$XS_TMP/services.conf"
	expect_refused_apply "1025 services" "$XS_TMP/services.conf" 1 \
		"^$XS_TMP/services.conf:1025: service 10\.104\.24\.1:80/tcp: all 1024 services are in use; the limit is XS_MAX_SERVICES in include/xdpsteer\.h"
	{
		echo "service $SVC"
		for ((i = 0; i <= 8192; i++)); do
			printf 'backend %s 10.%d.%d.%d\n' "$SVC" $((120 + i / 65536)) $(((i / 256) % 256)) $((i % 256))
		done
	} >"$XS_TMP/backends.conf"
	chmod 644 "$XS_TMP/backends.conf"
	expect_refused_apply "8193 backends" "$XS_TMP/backends.conf" 1 \
		"^$XS_TMP/backends.conf:8194: backend 10\.120\.32\.0: all 8192 backends are in use; the limit is XS_MAX_BACKENDS in include/xdpsteer\.h"
}

# Two conventions of usage.md and xdpsteer(8): a value such as -1 is an argument,
# not an option (so it is refused as a value: exit 1, not 2); and --json does not
# go with --watch (a usage error, exit 2).
t_cli_conventions() {
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	dump_state "$XS_TMP/before.dump"
	local rc=0
	xs target add "$IF_STEER" cpu -1 >"$XS_TMP/c.out" 2>"$XS_TMP/c.err" || rc=$?
	echo "  \$ xdpsteer target add IFACE cpu -1 -> rc $rc: $(cat "$XS_TMP/c.err")"
	assert_eq "cpu -1: exit status" "$rc" 1
	grep -qx "xdpsteer: cpu: '-1' is not a whole number from 0 to 127" "$XS_TMP/c.err" ||
		fail "cpu -1 was not taken as the value: $(cat "$XS_TMP/c.err")"
	assert_same_state "cpu -1" "$XS_TMP/before.dump"
	printf 'target cpu 0\n' >"$XS_TMP/one.conf"
	chmod 644 "$XS_TMP/one.conf"
	expect_refused_apply "apply --watch --json" "$XS_TMP/one.conf" 2 \
		"^xdpsteer: apply: --json prints one document, and --watch runs on: choose one$" --watch --json
}

# pins_ids: every pin of $IF_STEER with the id of the map or program it holds
# (bpftool -f names the pins of each object).
pins_ids() {
	{
		"$BPFTOOL" -f -j map show
		echo
		"$BPFTOOL" -f -j prog show
	} | "$PYTHON" -c '
import json, sys
d = sys.argv[1] + "/"
for doc in sys.stdin.read().split("\n\n"):
    for o in json.loads(doc):
        for p in o.get("pinned", []):
            if p.startswith(d):
                print(p[len(d):], o["id"])' "$(pin_dir "$NS_STEER" "$IF_STEER")" | sort
}

# upgrade.md, what is refused: the program on the interface not the pinned one
# (status then says "replaced"), and an attachment without the build record.
# Each: exit 1, one line that says why, nothing changed.
t_upgrade_refusals() {
	local foreign rc
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	run_in "$NS_STEER" ip -force link set dev "$IF_STEER" xdpgeneric obj "$(pass_prog)" sec xdp
	foreign=$(prog_on_iface)
	pins_ids >"$XS_TMP/pins.before"
	[ "$(wc -l <"$XS_TMP/pins.before")" -gt 20 ] || fail "pins read: $(cat "$XS_TMP/pins.before")"
	# Another program on the interface: the state is not this interface's.
	expect_error "status with another program on the interface" \
		"is not this interface's: its program \(id [0-9]+\) is not attached to $IF_STEER .* XDP program id $foreign runs there; nothing changed" \
		xs status "$IF_STEER"
	expect_error "upgrade over another program" \
		"is not this interface's: its program \(id [0-9]+\) is not attached to $IF_STEER .* XDP program id $foreign runs there; nothing changed" \
		xs upgrade "$IF_STEER"
	assert_eq "the program on $IF_STEER" "$(prog_on_iface)" "$foreign"
	pins_ids | cmp -s - "$XS_TMP/pins.before" || fail "a pin changed: $(pins_ids | diff "$XS_TMP/pins.before" -)"
	echo "ok: every pin holds the same object"
	run_in "$NS_STEER" ip link set dev "$IF_STEER" xdpgeneric off
	# The state is stale now: removed as the message says, before attaching again.
	rm -r "$(pin_dir "$NS_STEER" "$IF_STEER")"

	attach --xdp-mode skb >/dev/null
	rm "$(pin_dir "$NS_STEER" "$IF_STEER")/xs_build"
	pins_ids >"$XS_TMP/pins.before"
	foreign=$(prog_on_iface)
	rc=0
	xs upgrade "$IF_STEER" >"$XS_TMP/u.out" 2>"$XS_TMP/u.err" || rc=$?
	echo "  \$ xdpsteer upgrade (no xs_build) -> rc $rc: $(cat "$XS_TMP/u.err")"
	assert_eq "upgrade of an attachment without a build record: exit status" "$rc" 1
	grep -qx "xdpsteer: $IF_STEER: map xs_build: this build has it, the running attachment has not" \
		"$XS_TMP/u.err" || fail "xs_build not named: $(cat "$XS_TMP/u.err")"
	assert_eq "the program on $IF_STEER" "$(prog_on_iface)" "$foreign"
	pins_ids | cmp -s - "$XS_TMP/pins.before" || fail "a pin changed"
	echo "ok: every pin holds the same object"
}

# service del removes the service and its backends, and nothing of another
# service (usage.md, service and backend; xdpsteer(8) service del).
t_service_del_removes_backends() {
	local ids id
	attach --xdp-mode skb >/dev/null
	xs service add "$IF_STEER" "$SVC" >/dev/null
	xs service add "$IF_STEER" "$SVC2" >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$NET.51" >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$NET.52" --weight 2 >/dev/null
	xs backend add "$IF_STEER" "$SVC2" "$NET.53" >/dev/null
	ids=$(xs show "$IF_STEER" --json | pyx '" ".join(str(b["id"]) for b in d["services"][0]["backends"])' -)
	xs show "$IF_STEER" | grep "$SVC2" >"$XS_TMP/svc2.before"
	xs service del "$IF_STEER" "$SVC" | tee "$XS_TMP/del.out"
	assert_eq "services and backends left" \
		"$(xs service list "$IF_STEER" --json | pyx '[[s["service"], [b["backend"] for b in s["backends"]]] for s in d]' -)" \
		"[[\"$SVC2\", [\"$NET.53\"]]]"
	for id in $ids; do
		assert_eq "xs_targets[$id] (a backend of $SVC) active" "$(target_field "$id" active)" false
	done
	xs show "$IF_STEER" | grep "$SVC2" | cmp -s - "$XS_TMP/svc2.before" ||
		fail "$SVC2 changed: $(xs show "$IF_STEER" | grep "$SVC2")"
	echo "ok: $SVC2 and its backend as they were"
}

# no_backend WHEN: lookup finds no live backend of $SVC (its only backend is out).
no_backend() {
	expect_error "$1: lookup of a flow to $SVC" "no live backend: $CLIENT_IP down" \
		xs lookup "$IF_STEER" tcp 198.51.100.7:40000 "${SVC%/tcp}"
}

# The operator's drain and the check's down are two flags: undraining a backend
# its check holds down leaves it out of the pool (health.md, what a down
# backend does to flows). Read right after the command and again after the
# agent's next look at the state.
t_undrain_keeps_down_out() {
	local i down
	attach --xdp-mode skb >/dev/null
	xs service add "$IF_STEER" "$SVC" --check tcp --check-port 9 --interval 100ms --timeout 50ms \
		--fall 1 >/dev/null
	xs backend add "$IF_STEER" "$SVC" "$CLIENT_IP" >/dev/null
	bg_start AGENT nsenter --net=/run/netns/"$NS_STEER" -- "$XS" agent "$IF_STEER" \
		--run-dir "$XS_TMP/hrun" >"$XS_TMP/hagent.log" 2>&1 </dev/null
	for ((i = 0; i < 100; i++)); do
		down=$(xs show "$IF_STEER" --json | pyx 'd["services"][0]["backends"][0]["down"]' -)
		[ "$down" = true ] && break
		sleep 0.05
	done
	assert_eq "backend down" "$down" true
	no_backend "while down"
	xs backend drain "$IF_STEER" "$SVC" "$CLIENT_IP" >/dev/null
	xs backend undrain "$IF_STEER" "$SVC" "$CLIENT_IP" | tee "$XS_TMP/undrain.out"
	assert_eq "[drain, down] right after undrain" \
		"$(xs show "$IF_STEER" --json | pyx '[d["services"][0]["backends"][0][k] for k in ("drain", "down")]' -)" \
		"[false, true]"
	no_backend "right after undrain"
	sleep 1.5
	cat "$XS_TMP/hagent.log"
	no_backend "after the agent looked again"
	kill -TERM "$BG_AGENT"
	wait "$BG_AGENT" || true
}

t_target_list_no_targets() {
	attach --xdp-mode skb >/dev/null
	xs target add "$IF_STEER" cpu 0 >/dev/null
	xs target del "$IF_STEER" cpu 0 >/dev/null
	xs target list "$IF_STEER" >"$XS_TMP/list.out"
	cat "$XS_TMP/list.out"
	grep -qx '(no targets: packets pass to the stack, counted as no_targets)' "$XS_TMP/list.out" ||
		fail "target list with no live target does not say that packets pass"
	assert_eq "target list --json with no live target" "$(xs target list "$IF_STEER" --json)" "[ ]"
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
