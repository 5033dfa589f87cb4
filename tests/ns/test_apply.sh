#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Declarative configuration: `xdpsteer apply -f FILE` and `show`. A corpus of
# bad files must each be refused with the right FILE:LINE and leave every
# pinned map byte-identical; show and apply must round-trip; a change must do
# exactly what its plan said; --watch must follow edits and ignore bad ones.
# Needs root; about 30 s; V=1 for detail.
#
#   tests/ns/test_apply.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=apply
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "$0")/state.sh"

BAD_DIR=$XS_TOP/tests/apply/bad
SEED=5eed00000000000000000000000000c1
DEV_A=${DEV_PREFIX}a
DEV_B=${DEV_PREFIX}b
DEV_C=${DEV_PREFIX}c
VIP4=10.9.0.10
VIP6=2001:db8::10

rich_config() { # FILE
	cat >"$1" <<-EOF
		# A rich configuration: every kind of object.
		seed $SEED
		algo jump
		hash-fields src,dst,sport,dport,proto   # the default, spelled out

		target cpu 0
		target cpu 1 qsize 512
		target dev $DEV_A
		target dev $DEV_B drain

		service $VIP4:80/tcp
		backend $VIP4:80/tcp 10.9.1.1 weight 2
		backend $VIP4:80/tcp 10.9.1.2
		backend $VIP4:80/tcp 10.9.1.3 drain
		service [$VIP6]:443/udp algo shuffle hand-size 2 encap ipip
		backend [$VIP6]:443/udp 2001:db8:1::1 weight 3
		backend [$VIP6]:443/udp 2001:db8:1::2
	EOF
	chmod 644 "$1"
}

rich_expected() {
	cat <<-EOF
		# xdpsteer show $IF_STEER
		# seed: a secret, not shown (show --secrets prints it)
		algo jump
		hand-size 4
		hash-fields src,dst,sport,dport,proto
		hand-fields src
		target cpu 0 qsize 2048
		target cpu 1 qsize 512
		target dev $DEV_A
		target dev $DEV_B drain
		service $VIP4:80/tcp algo jump hand-size 4 encap ipip tunnel-src 172.16.0.0/16 tunnel-src6 fd00:7873::/96
		backend $VIP4:80/tcp 10.9.1.1 weight 2
		backend $VIP4:80/tcp 10.9.1.2 weight 1
		backend $VIP4:80/tcp 10.9.1.3 weight 1 drain
		service [$VIP6]:443/udp algo shuffle hand-size 2 encap ipip tunnel-src 172.16.0.0/16 tunnel-src6 fd00:7873::/96
		backend [$VIP6]:443/udp 2001:db8:1::1 weight 3
		backend [$VIP6]:443/udp 2001:db8:1::2 weight 1
	EOF
}

fresh() {
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	rich_config "$XS_TMP/rich.conf"
	chmod 600 "$XS_TMP/rich.conf" # it holds the seed
	xs apply "$IF_STEER" -f "$XS_TMP/rich.conf" >"$XS_TMP/apply.out" 2>/dev/null
}

# expect_refused WHAT FILE LINE PATTERN: apply fails with one FILE:LINE line, maps unchanged.
expect_refused() {
	local what=$1 file=$2 line=$3 pat=$4 rc=0
	dump_state "$XS_TMP/before.dump"
	xs apply "$IF_STEER" -f "$file" >"$XS_TMP/r.out" 2>"$XS_TMP/r.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$what: accepted"
	[ "$(wc -l <"$XS_TMP/r.err")" -eq 1 ] || fail "$what: want one error line, got: $(cat "$XS_TMP/r.err")"
	grep -Eq -- "^$file:$line: .*($pat)" "$XS_TMP/r.err" ||
		fail "$what: want '$file:$line: ...$pat', got: $(cat "$XS_TMP/r.err")"
	! grep -q '^  [-+~]' "$XS_TMP/r.out" || fail "$what: printed a plan: $(cat "$XS_TMP/r.out")"
	echo "ok: $what -> $(cat "$XS_TMP/r.err")"
	assert_same_state "$what" "$XS_TMP/before.dump"
}

# ---------------------------------------------------------------------------
t_bad_corpus() {
	local f exp n=0
	fresh
	for f in "$BAD_DIR"/*.conf; do
		exp=$(head -n 1 "$f")
		[[ $exp == "# expect: "* ]] || fail "$f: first line is not '# expect: LINE PATTERN'"
		exp=${exp#"# expect: "}
		cp "$f" "$XS_TMP/$(basename "$f")"
		chmod 600 "$XS_TMP/$(basename "$f")"
		expect_refused "$(basename "$f")" "$XS_TMP/$(basename "$f")" "${exp%% *}" "${exp#* }"
		n=$((n + 1))
	done
	# Made here rather than committed: an empty file, a huge one, garbage,
	# a world-writable one, one that is not there.
	: >"$XS_TMP/empty.conf"
	expect_refused empty "$XS_TMP/empty.conf" 1 "declares nothing"
	head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$XS_TMP/huge.conf"
	expect_refused too_large "$XS_TMP/huge.conf" 1 "more than the 1048576"
	head -c 4096 /dev/urandom >"$XS_TMP/garbage.conf"
	printf 'target cpu 0\n\0\n' >>"$XS_TMP/garbage.conf"
	expect_refused garbage "$XS_TMP/garbage.conf" '[0-9]+' "binary data"
	printf 'algo jump\ntarget cpu 0\n\0target cpu 1\n' >"$XS_TMP/nul.conf"
	expect_refused nul "$XS_TMP/nul.conf" 3 "binary data .byte 0x00"
	rich_config "$XS_TMP/ww.conf"
	chmod 666 "$XS_TMP/ww.conf"
	expect_refused world_writable "$XS_TMP/ww.conf" 1 "world-writable.*anyone"
	expect_refused missing "$XS_TMP/nonexistent.conf" 1 "cannot open"
	# The seed is a secret: a file that holds it is root's, and nobody else reads it.
	printf 'algo jump\nseed %s\n' "$SEED" >"$XS_TMP/seed_640.conf"
	chmod 640 "$XS_TMP/seed_640.conf"
	expect_refused seed_group_readable "$XS_TMP/seed_640.conf" 2 "group or others may read it"
	cp -p "$XS_TMP/seed_640.conf" "$XS_TMP/seed_nobody.conf"
	chmod 600 "$XS_TMP/seed_nobody.conf"
	chown nobody "$XS_TMP/seed_nobody.conf"
	expect_refused seed_not_roots "$XS_TMP/seed_nobody.conf" 2 "not owned by root"
	echo "$SEED" >"$XS_TMP/seed.key"
	chmod 644 "$XS_TMP/seed.key"
	printf 'algo jump\nseed-file %s\n' "$XS_TMP/seed.key" >"$XS_TMP/seedfile.conf"
	expect_refused seed_file_readable "$XS_TMP/seedfile.conf" 2 "group or others may read it"
	[ "$n" -ge 40 ] || fail "corpus has $n files, want >= 40"
	echo "ok: $n corpus files and 9 generated ones refused"
}

t_round_trip() {
	fresh
	grep -q "applied 11 changes" "$XS_TMP/apply.out" || fail "first apply: $(cat "$XS_TMP/apply.out")"
	xs show "$IF_STEER" >"$XS_TMP/show1"
	rich_expected >"$XS_TMP/want1"
	strip_places <"$XS_TMP/show1" | diff "$XS_TMP/want1" - ||
		fail "show differs from the normalized config"
	echo "ok: show = normalized config (places aside)"
	! grep -q "^seed " "$XS_TMP/show1" || fail "show printed the seed without --secrets"
	assert_eq "show --secrets" "$(xs show "$IF_STEER" --secrets | grep '^seed ')" "seed $SEED"
	grep -q "^slot-count 3$" "$XS_TMP/show1" || fail "show: no slot-count of the queue pool"
	grep -Eq "^backend $VIP4:80/tcp 10.9.1.1 weight 2 id [0-9]+ slots [0-9]+,[0-9]+$" \
		"$XS_TMP/show1" || fail "show: no id and slots of a weight-2 backend"
	# show -> apply changes nothing, not even a pool generation.
	cp "$XS_TMP/show1" "$XS_TMP/again.conf"
	dump_state "$XS_TMP/before.dump"
	xs apply "$IF_STEER" -f "$XS_TMP/again.conf" >"$XS_TMP/again.out"
	cat "$XS_TMP/again.out"
	grep -qx "  no changes" "$XS_TMP/again.out" || fail "plan of show output is not empty"
	assert_same_state "show -> apply" "$XS_TMP/before.dump"
	xs show "$IF_STEER" >"$XS_TMP/show2"
	cmp "$XS_TMP/show1" "$XS_TMP/show2" || fail "show -> apply -> show differs"
	echo "ok: show -> apply -> show identical"

	# A modification: the plan lists exactly what changes, and show agrees.
	sed -e "s/^target cpu 1 qsize 512$/target cpu 1 qsize 1024 drain/" \
		-e "s/^target dev $DEV_B drain$/target dev $DEV_B/" \
		-e "/^target dev $DEV_A$/d" \
		-e "s/10.9.1.1 weight 2$/10.9.1.1 weight 4/" \
		-e "s/10.9.1.3 weight 1 drain$/10.9.1.3 weight 1/" \
		-e "/2001:db8:1::2 weight 1$/d" <(strip_places <"$XS_TMP/show1") >"$XS_TMP/mod.conf"
	echo "target dev $DEV_C" >>"$XS_TMP/mod.conf"
	echo "backend $VIP4:80/tcp 10.9.1.4 weight 2" >>"$XS_TMP/mod.conf"
	xs apply "$IF_STEER" -f "$XS_TMP/mod.conf" --dry-run >"$XS_TMP/dry.out"
	grep -q "dry run: 9 changes not applied" "$XS_TMP/dry.out" || fail "dry run: $(cat "$XS_TMP/dry.out")"
	xs show "$IF_STEER" | cmp - "$XS_TMP/show1" || fail "--dry-run changed the state"
	echo "ok: --dry-run changes nothing"
	xs apply "$IF_STEER" -f "$XS_TMP/mod.conf" >"$XS_TMP/mod.out"
	cat "$XS_TMP/mod.out"
	grep '^  [-+~]' "$XS_TMP/mod.out" | sort >"$XS_TMP/plan.got"
	sort >"$XS_TMP/plan.want" <<-EOF
		  - target dev $DEV_A
		  ~ target cpu 1: drain
		  ~ target cpu 1: qsize 512 -> 1024
		  ~ target dev $DEV_B: undrain
		  + target dev $DEV_C
		  ~ backend $VIP4:80/tcp 10.9.1.1: weight 2 -> 4
		  ~ backend $VIP4:80/tcp 10.9.1.3: undrain
		  + backend $VIP4:80/tcp 10.9.1.4 weight 2
		  - backend [$VIP6]:443/udp 2001:db8:1::2
	EOF
	diff "$XS_TMP/plan.want" "$XS_TMP/plan.got" || fail "plan differs"
	echo "ok: the plan lists exactly the 9 changes"
	xs show "$IF_STEER" | strip_places | grep -v '^#' | sort >"$XS_TMP/show3"
	grep -v '^#' "$XS_TMP/mod.conf" | sort >"$XS_TMP/want3"
	diff "$XS_TMP/want3" "$XS_TMP/show3" || fail "state after apply differs from the file"
	echo "ok: state equals the modified file"
	# The CLI agrees: slots of the kept targets did not move.
	xs target list "$IF_STEER" | tee "$XS_TMP/list"
	assert_eq "cpu 0 keeps slot 0" "$(awk '$3 == "cpu" && $4 == 0 {print $1}' "$XS_TMP/list")" 0
	assert_eq "$DEV_C fills $DEV_A's hole (slot 2)" \
		"$(awk -v d="$DEV_C" '$4 == d {print $1}' "$XS_TMP/list")" 2
}

# Removing 1 of N backends from the middle moves 1/N of the flows (jump with a hole).
t_move_share() {
	local n i share
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	for n in 10 20; do
		{
			echo "service $VIP4:80/tcp"
			for ((i = 1; i <= n; i++)); do echo "backend $VIP4:80/tcp 10.9.2.$i"; done
		} >"$XS_TMP/n.conf"
		chmod 644 "$XS_TMP/n.conf"
		xs apply "$IF_STEER" -f "$XS_TMP/n.conf" >/dev/null 2>&1
		sed -i "/10.9.2.$((n / 2))\$/d" "$XS_TMP/n.conf"
		xs apply "$IF_STEER" -f "$XS_TMP/n.conf" --dry-run | tee "$XS_TMP/n.out"
		share=$(sed -nE 's/.*moves .*: ([0-9.]+)% of new flows.*/\1/p' "$XS_TMP/n.out")
		assert_true "N=$n: moved $share% within 1% of $((100 / n))%" \
			"$(pyx "abs($share - 100.0 / $n) < 1.0")"
	done
}

# flow_backends OUT: the backend `xdpsteer lookup` gives each of 300 flows to $VIP4:80.
flow_backends() {
	"$PYTHON" "$XS_TOP/tests/ns/lb_traffic.py" predict --ns "$NS_STEER" --iface "$IF_STEER" \
		--xs "$XS" --dst "$VIP4" --dport 80 --src 10.9.5.1 --sports 30000-30299 --jobs 2 \
		--out "$1.json"
	pyx "'\\n'.join('%s %s' % (f, v['backend']) for f, v in sorted(d.items()))" "$1.json" >"$1"
}

# moved_not BEFORE AFTER ADDR: flows whose backend changed, where ADDR is neither the old nor the new one.
moved_not() {
	paste -d' ' "$1" "$2" | awk -v a="$3" '$2 != $4 && $2 != a && $4 != a' | wc -l
}

# The README's edit loop: show > FILE, a weight changed in it, apply. The
# slots show listed are left as they were: lowered, the backend keeps the
# first WEIGHT of them; raised, it keeps them and takes more. Either way
# only its own flows move, and the same file applied again changes nothing.
# A list longer than the weight that is not where the backend runs is refused.
t_edit_weight() {
	local f=$XS_TMP/edit.conf be=10.9.1.2 n
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	xs service add "$IF_STEER" "$VIP4:80/tcp" --slot-count 8 >/dev/null
	xs backend add "$IF_STEER" "$VIP4:80/tcp" 10.9.1.1 >/dev/null
	xs backend add "$IF_STEER" "$VIP4:80/tcp" $be --weight 3 >/dev/null
	xs backend add "$IF_STEER" "$VIP4:80/tcp" 10.9.1.3 >/dev/null
	flow_backends "$XS_TMP/w0"
	# 3 -> 2, the three slots left in the file.
	xs show "$IF_STEER" | sed "s/ $be weight 3 / $be weight 2 /" >"$f"
	chmod 600 "$f"
	grep "^backend" "$f"
	grep -Eq "^backend $VIP4:80/tcp $be weight 2 id [0-9]+ slots [0-9]+,[0-9]+,[0-9]+$" "$f" ||
		fail "the edited file does not list 3 slots for weight 2"
	xs apply "$IF_STEER" -f "$f" --dry-run | tee "$XS_TMP/w.dry"
	grep -q "~ backend $VIP4:80/tcp $be: weight 3 -> 2" "$XS_TMP/w.dry" || fail "no weight change planned"
	xs apply "$IF_STEER" -f "$f" >/dev/null
	flow_backends "$XS_TMP/w1"
	n=$(paste -d' ' "$XS_TMP/w0" "$XS_TMP/w1" | awk '$2 != $4' | wc -l)
	echo "3 -> 2: $n of 300 flows moved"
	assert_eq "flows moved to or from another backend than $be (3 -> 2)" \
		"$(moved_not "$XS_TMP/w0" "$XS_TMP/w1" $be)" 0
	assert_true "some of $be's flows moved" "$(pyx "$n > 0")"
	assert_eq "$be's slots: the first two the file lists" \
		"$(xs show "$IF_STEER" | sed -nE "s/^backend .* $be weight 2 id [0-9]+ slots ([0-9,]+)$/\1/p")" \
		"$(sed -nE "s/^backend .* $be weight 2 id [0-9]+ slots ([0-9]+,[0-9]+),[0-9]+$/\1/p" "$f")"
	xs apply "$IF_STEER" -f "$f" | grep -qx "  no changes" || fail "the same file again changed something"
	echo "ok: the same file again: no changes"
	# 1 -> 3, its one slot left in the file.
	xs show "$IF_STEER" | sed "s/ 10.9.1.3 weight 1 / 10.9.1.3 weight 3 /" >"$f"
	grep -Eq "^backend $VIP4:80/tcp 10.9.1.3 weight 3 id [0-9]+ slots [0-9]+$" "$f" ||
		fail "the edited file does not list 1 slot for weight 3"
	xs apply "$IF_STEER" -f "$f" | tee "$XS_TMP/w.up"
	grep -q "~ backend $VIP4:80/tcp 10.9.1.3: weight 1 -> 3" "$XS_TMP/w.up" || fail "no weight change applied"
	flow_backends "$XS_TMP/w2"
	n=$(paste -d' ' "$XS_TMP/w1" "$XS_TMP/w2" | awk '$2 != $4' | wc -l)
	echo "1 -> 3: $n of 300 flows moved"
	assert_eq "flows moved to or from another backend than 10.9.1.3 (1 -> 3)" \
		"$(moved_not "$XS_TMP/w1" "$XS_TMP/w2" 10.9.1.3)" 0
	assert_true "some flows moved to 10.9.1.3" "$(pyx "$n > 0")"
	n=$(sed -nE 's/^backend .* 10.9.1.3 weight 3 id [0-9]+ slots ([0-9]+)$/\1/p' "$f")
	xs show "$IF_STEER" | grep -Eq "^backend .* 10.9.1.3 weight 3 id [0-9]+ slots ([0-9]+,)*$n(,[0-9]+)*$" ||
		fail "10.9.1.3 left its slot $n: $(xs show "$IF_STEER" | grep 10.9.1.3)"
	echo "ok: 10.9.1.3 keeps its slot $n: $(xs show "$IF_STEER" | grep -o '10.9.1.3 .*')"
	xs apply "$IF_STEER" -f "$f" | grep -qx "  no changes" || fail "the same file again changed something"
	echo "ok: the same file again: no changes"
	# A real inconsistency: more slots than the weight, and not where it runs.
	xs show "$IF_STEER" | sed -E "s/ 10.9.1.1 weight 1 (id [0-9]+) slots [0-9]+$/ 10.9.1.1 weight 1 \1 slots 6,7/" >"$f"
	n=$(grep -n " 10.9.1.1 weight 1 " "$f" | cut -d: -f1)
	expect_refused "2 slots for weight 1, not where it runs" "$f" "$n" \
		"backend 10.9.1.1: 2 slots for weight 1, and they are not the slots it runs with: list no more slots than its weight"
}

# apply -f FLEET -f HOST: one configuration from two files; a setting in both is refused.
t_two_files() {
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	printf 'algo jump\nservice %s:80/tcp\nbackend %s:80/tcp 10.9.1.1\n' "$VIP4" "$VIP4" \
		>"$XS_TMP/fleet.conf"
	printf 'target cpu 0\ntarget dev %s\n' "$DEV_A" >"$XS_TMP/host.conf"
	xs apply "$IF_STEER" -f "$XS_TMP/fleet.conf" -f "$XS_TMP/host.conf" >"$XS_TMP/two.out"
	assert_eq "objects from both files" \
		"$(xs show "$IF_STEER" | strip_places | grep -Ec '^(target|service|backend) ')" 4
	printf 'algo shuffle\n' >>"$XS_TMP/host.conf"
	expect_refused_files "a setting in both files" "$XS_TMP/host.conf" 3 \
		"algo is already set at $XS_TMP/fleet.conf:1" -f "$XS_TMP/fleet.conf" -f "$XS_TMP/host.conf"
	expect_refused_files "an option given twice" "" 0 "option '--dry-run' is given twice" \
		-f "$XS_TMP/fleet.conf" --dry-run --dry-run
}

# expect_refused_files WHAT FILE LINE PATTERN ARGS...: apply ARGS fails (FILE:LINE when FILE), maps unchanged.
expect_refused_files() {
	local what=$1 file=$2 line=$3 pat=$4 rc=0
	shift 4
	dump_state "$XS_TMP/before.dump"
	xs apply "$IF_STEER" "$@" >"$XS_TMP/r.out" 2>"$XS_TMP/r.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$what: accepted"
	if [ -n "$file" ]; then
		grep -Eq -- "^$file:$line: .*($pat)" "$XS_TMP/r.err" ||
			fail "$what: want '$file:$line: ...$pat', got: $(cat "$XS_TMP/r.err")"
	else
		grep -Eq -- "$pat" "$XS_TMP/r.err" || fail "$what: want /$pat/, got: $(cat "$XS_TMP/r.err")"
	fi
	echo "ok: $what -> $(cat "$XS_TMP/r.err")"
	assert_same_state "$what" "$XS_TMP/before.dump"
}

# Places a file names: an id another backend holds is freed by a first step and
# taken by a second; a slot named twice is refused before either step, changing nothing.
t_places() {
	local id1 id2
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	printf 'service %s:80/tcp\nbackend %s:80/tcp 10.9.1.1\nbackend %s:80/tcp 10.9.1.2\n' \
		"$VIP4" "$VIP4" "$VIP4" >"$XS_TMP/p.conf"
	xs apply "$IF_STEER" -f "$XS_TMP/p.conf" >/dev/null
	id1=$(xs show "$IF_STEER" | sed -nE 's/^backend .* 10\.9\.1\.1 weight 1 id ([0-9]+) .*/\1/p')
	id2=$(xs show "$IF_STEER" | sed -nE 's/^backend .* 10\.9\.1\.2 weight 1 id ([0-9]+) .*/\1/p')
	# Swap the two ids: each is held by the other.
	printf 'service %s:80/tcp slot-count 2\nbackend %s:80/tcp 10.9.1.1 id %s slots 1\nbackend %s:80/tcp 10.9.1.2 id %s slots 0\n' \
		"$VIP4" "$VIP4" "$id2" "$VIP4" "$id1" >"$XS_TMP/swap.conf"
	xs apply "$IF_STEER" -f "$XS_TMP/swap.conf" >"$XS_TMP/swap.out"
	grep -q "first of two steps" "$XS_TMP/swap.out" || fail "no two steps: $(cat "$XS_TMP/swap.out")"
	assert_eq "ids and slots as the file names them" \
		"$(xs show "$IF_STEER" | grep '^backend' | sed -E 's/^backend [^ ]+ //')" \
		"$(printf '10.9.1.2 weight 1 id %s slots 0\n10.9.1.1 weight 1 id %s slots 1' "$id1" "$id2")"
	xs apply "$IF_STEER" -f "$XS_TMP/swap.conf" | grep -qx "  no changes" || fail "a second apply changed more"
	printf 'service %s:80/tcp\nbackend %s:80/tcp 10.9.1.1 id %s slots 0\nbackend %s:80/tcp 10.9.1.3 slots 0\n' \
		"$VIP4" "$VIP4" "$id1" "$VIP4" >"$XS_TMP/clash.conf"
	expect_refused_files "a slot named twice, with an id to free" "$XS_TMP/clash.conf" 3 \
		"slot 0 is named twice" -f "$XS_TMP/clash.conf"
}

# wait_for PATTERN FILE SECONDS
wait_for() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -Eq -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "timed out waiting for /$1/ in $2: $(cat "$2")"
}

# wait_count PATTERN FILE N: until PATTERN has matched N lines of FILE.
wait_count() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -Ec -- "$1" "$2" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.05
	done
	fail "timed out waiting for $3 x /$1/ in $2: $(cat "$2")"
}

t_watch() {
	local f=$XS_TMP/w/xs.conf rc=0
	mkdir -p "$XS_TMP/w"
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	printf 'algo jump\ntarget cpu 0\n' >"$f"
	chmod 644 "$f"
	# nsenter execs the CLI: $BG_WATCH is the CLI itself, and gets the signal.
	bg_start WATCH nsenter --net=/run/netns/"$NS_STEER" -- "$XS" apply "$IF_STEER" -f "$f" --watch \
		>"$XS_TMP/w.out" 2>"$XS_TMP/w.err"
	wait_for "^watching" "$XS_TMP/w.out" 10
	assert_eq "first apply" "$(xs show "$IF_STEER" | grep -c '^target')" 1
	# A good edit, written in place.
	printf 'algo jump\ntarget cpu 0\ntarget cpu 1\n' >"$f"
	wait_count "^applied" "$XS_TMP/w.out" 2
	assert_eq "good edit applied" "$(xs show "$IF_STEER" | grep -c '^target')" 2
	# A bad edit: reported with its line, ignored.
	dump_state "$XS_TMP/good.dump"
	printf 'algo jump\ntarget cpu 0\ntarget cpu 99\n' >"$f"
	wait_for "^$f:3: cpu 99" "$XS_TMP/w.err" 10
	wait_for "keeping the last applied state" "$XS_TMP/w.err" 10
	assert_same_state "bad edit ignored" "$XS_TMP/good.dump"
	# An editor's save: a new file renamed over the old one.
	printf 'algo jump\ntarget cpu 1\n' >"$f.tmp"
	chmod 644 "$f.tmp"
	mv "$f.tmp" "$f"
	wait_count "^applied" "$XS_TMP/w.out" 3
	grep -q -- "- target cpu 0" "$XS_TMP/w.out" || fail "no removal in the plan"
	! grep -q "^plan.*\.tmp" "$XS_TMP/w.out" || fail "applied the temporary file"
	assert_eq "replaced file applied" "$(xs show "$IF_STEER" | strip_places | grep '^target')" \
		"target cpu 1 qsize 2048"
	# Deleted, then re-created.
	rm "$f"
	wait_for "is gone" "$XS_TMP/w.out" 10
	printf 'algo jump\ntarget cpu 0\ntarget cpu 1 drain\n' >"$f"
	chmod 644 "$f"
	wait_count "^applied" "$XS_TMP/w.out" 4
	grep -q "target cpu 1: drain" "$XS_TMP/w.out" || fail "no drain in the plan"
	# SIGTERM: a clean exit, the data plane as last applied.
	dump_state "$XS_TMP/last.dump"
	kill -TERM "$BG_WATCH"
	wait "$BG_WATCH" || rc=$?
	assert_eq "exit status after SIGTERM" "$rc" 0
	grep -q "stopped watching" "$XS_TMP/w.out" || fail "no clean stop: $(cat "$XS_TMP/w.out")"
	assert_same_state "after SIGTERM" "$XS_TMP/last.dump"
	assert_eq "still attached" "$(xs show "$IF_STEER" | grep -c '^target')" 2
}

# Without a flow table (attach --flow-table-size 0), only gue's second chance
# keeps a service's established flows through a change. An ipip, l2, or gue
# service without it was accepted in silence; now each is warned about on
# stderr, through a command, a file (dry run or not) and status alike, and
# the change is still made (the operator chose the attach).
t_flowless_services() {
	local f=$XS_TMP/flowless.conf w=$XS_TMP/flowless.err
	local warn='warning: service %s \(%s\) has no flow table to pin its flows'
	attach --xdp-mode skb --seed "$SEED" --flow-table-size 0 >/dev/null
	xs service add "$IF_STEER" 10.9.0.20:80/tcp >/dev/null 2>"$w"
	cat "$w"
	# shellcheck disable=SC2059 # $warn is the format
	grep -Eq "$(printf "$warn" 10.9.0.20:80/tcp ipip)" "$w" || fail "service add: no warning"
	xs show "$IF_STEER" | grep -q '^service 10.9.0.20:80/tcp' || fail "service add: not made"
	cat >"$f" <<-EOF
	service 10.9.0.20:80/tcp
	service 10.9.0.21:80/tcp encap l2
	service 10.9.0.22:80/tcp encap gue
	service 10.9.0.23:80/tcp encap gue second-chance on
	EOF
	chmod 600 "$f"
	for dry in --dry-run ""; do
		# shellcheck disable=SC2086
		xs apply "$IF_STEER" -f "$f" $dry >/dev/null 2>"$w"
		cat "$w"
		# shellcheck disable=SC2059
		grep -Eq "$(printf "$warn" 10.9.0.21:80/tcp l2)" "$w" || fail "apply $dry: no warning for l2"
		# shellcheck disable=SC2059
		grep -Eq "$(printf "$warn" 10.9.0.22:80/tcp 'gue, second-chance off')" "$w" ||
			fail "apply $dry: no warning for gue without second chance"
		! grep -q "10.9.0.23:80/tcp\|10.9.0.20:80/tcp" "$w" ||
			fail "apply $dry: a warning for a service it did not change, or one second chance keeps"
	done
	xs status "$IF_STEER" >/dev/null 2>"$w"
	assert_eq "status: services warned about" \
		"$(grep -o 'service [0-9.:]*/tcp' "$w" | tr '\n' ' ')" \
		"service 10.9.0.20:80/tcp service 10.9.0.21:80/tcp service 10.9.0.22:80/tcp "
}

# ---------------------------------------------------------------------------
ns_select "$@"
install_trap
preflight || fatal apply "$PREFLIGHT_REASON"
setup_testbed || fatal apply "cannot build the testbed"
for x in a b c; do add_dev_target_if "$x" || fatal apply "cannot add dev target $x"; done
ip -n "$NS_STEER" route add 10.9.0.0/16 dev "$IF_STEER"

for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish apply
