#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The command line itself: help at every level, unique prefixes, options in
# any position, exit codes, --version; every read command's --json on its
# success and failure paths (valid JSON, or nothing on stdout), an interface
# whose name holds '"' and '\'; and what make install puts down: the tree,
# the man pages (man -l, no warning), the systemd unit (systemd-analyze
# verify) and the bash completion. Needs root; about 30 s; V=1 for detail.
#
#   tests/ns/test_cli.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=cli
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-300}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "$0")/state.sh"

VIP4=10.9.0.10
# An interface name with a double quote and a backslash: legal in Linux.
QIF="q\"\\$RUN_ID"
DEV_A=${DEV_PREFIX}a

# x ARGS...: the CLI in the steering namespace; stdout in $O, stderr in $E,
# exit status in $RC (never fails the test by itself).
x() {
	O=$XS_TMP/x.out
	E=$XS_TMP/x.err
	RC=0
	xs "$@" >"$O" 2>"$E" || RC=$?
	vlog "rc $RC"
}

# x_ok WHAT ARGS...: exit 0, nothing on stderr.
x_ok() {
	local what=$1
	shift
	x "$@"
	[ "$RC" = 0 ] || fail "$what: exit $RC, want 0: $(head -n 5 "$E")"
	[ ! -s "$E" ] || fail "$what: unexpected stderr: $(head -n 5 "$E")"
	echo "ok: $what"
}

# x_rc WHAT RC PATTERN ARGS...: exit RC, nothing on stdout, stderr's first
# line prefixed "xdpsteer: " and matching PATTERN.
x_rc() {
	local what=$1 want=$2 pat=$3
	shift 3
	x "$@"
	[ "$RC" = "$want" ] || fail "$what: exit $RC, want $want (stderr: $(head -n 3 "$E"))"
	[ ! -s "$O" ] || fail "$what: stdout must be empty, got: $(head -c 300 "$O")"
	head -n 1 "$E" | grep -Eq -- "^xdpsteer: .*($pat)" ||
		fail "$what: stderr does not start with /xdpsteer: .*$pat/: $(head -n 3 "$E")"
	echo "ok: $what (exit $RC: $(head -n 1 "$E"))"
}

# json_ok WHAT [FILE]: FILE (default $O) holds exactly one valid JSON document.
json_ok() {
	local f=${2:-$O}
	"$PYTHON" -m json.tool "$f" >/dev/null 2>"$XS_TMP/json.err" ||
		fail "$1: not one valid JSON document ($(cat "$XS_TMP/json.err")): $(head -c 400 "$f")"
	echo "ok: $1: valid JSON"
}

# x_json WHAT ARGS...: exit 0, one valid JSON document; the same with -p.
x_json() {
	local what=$1
	shift
	x_ok "$what" "$@" --json
	json_ok "$what"
	cp "$O" "$XS_TMP/compact.json"
	x_ok "$what --pretty" "$@" -p
	json_ok "$what --pretty"
	[ "$(wc -l <"$O")" -gt 1 ] || [ "$(head -c 2 "$O")" = "[]" ] ||
		fail "$what --pretty: not indented: $(head -c 200 "$O")"
}

# x_json_fails WHAT ARGS...: with --json, exit 1 and nothing on stdout.
x_json_fails() {
	local what=$1
	shift
	x "$@" --json
	[ "$RC" = 1 ] || fail "$what --json: exit $RC, want 1: $(head -n 3 "$E") / $(head -c 200 "$O")"
	[ ! -s "$O" ] || fail "$what --json: failed, yet printed on stdout: $(head -c 300 "$O")"
	[ -s "$E" ] || fail "$what --json: failed without a word on stderr"
	echo "ok: $what --json: exit 1, stdout empty ($(head -n 1 "$E"))"
}

# The commands the binary knows, from its own --help: "target add", "stats", ...
commands() {
	"$XS" --help | sed -n 's/^  xdpsteer \([a-z]*\)\( [a-z]\+\)\?\( \|$\).*/\1\2/p'
}

# ---- help, prefixes, options, exit codes -----------------------------------

t_help_every_level() {
	local c obj n=0
	for c in "--help" "-h" "help"; do
		x_ok "xdpsteer $c" "$c"
		head -n 1 "$O" | grep -q '^usage: xdpsteer' || fail "xdpsteer $c: $(head -n 1 "$O")"
	done
	grep -q '^  xdpsteer target add ' "$O" || fail "--help does not list target add"
	while read -r c; do
		# The command: --help, -h, help COMMAND, anywhere on the line.
		# shellcheck disable=SC2086
		x_ok "$c --help" $c --help
		assert_eq "$c --help: first line" "$(head -n 1 "$O" | cut -d' ' -f1-$((2 + $(wc -w <<<"$c"))))" \
			"usage: xdpsteer $c"
		# shellcheck disable=SC2086
		x_ok "help $c" help $c
		assert_eq "help $c: first line" "$(head -n 1 "$O" | cut -d' ' -f1-$((2 + $(wc -w <<<"$c"))))" \
			"usage: xdpsteer $c"
		# shellcheck disable=SC2086
		x_ok "-h $c" -h $c
		n=$((n + 1))
		[[ $c == *" "* ]] || continue
		# Its object: bare, "help", "--help".
		obj=${c%% *}
		for a in "" help --help; do
			# shellcheck disable=SC2086
			x_ok "'$obj $a'" $obj $a
			head -n 1 "$O" | grep -q "^usage: xdpsteer $obj {" ||
				fail "'$obj $a': $(head -n 1 "$O")"
			grep -q "^  xdpsteer $c " "$O" || fail "'$obj $a' does not list $c"
		done
	done < <(commands)
	[ "$n" -ge 25 ] || fail "only $n commands found in --help"
	echo "ok: help at every level for $n commands"
}

t_prefixes() {
	x_ok "target list" target list "$IF_STEER"
	cp "$O" "$XS_TMP/full.out"
	for p in "t l" "ta li" "targ list" "target l"; do
		# shellcheck disable=SC2086
		x_ok "'$p' = target list" $p "$IF_STEER"
		cmp -s "$O" "$XS_TMP/full.out" || fail "'$p' printed otherwise than target list"
	done
	x_ok "se l = service list" ser l "$IF_STEER"
	x_ok "st with exact 'stats'" stats "$IF_STEER"
	x_rc "ambiguous 's'" 2 "ambiguous command 's': status, stats, seed, service, show, sim" s
	x_rc "ambiguous 'st'" 2 "ambiguous command 'st': status, stats" st "$IF_STEER"
	x_rc "ambiguous 'target d'" 2 "target: ambiguous command 'd': del, drain" target d "$IF_STEER" cpu 0
	x_rc "unknown 'target frob'" 2 "target: unknown command 'frob'" target frob "$IF_STEER"
	grep -q '^usage: xdpsteer target {' "$E" || fail "no object usage after the error: $(cat "$E")"
	[ "$(wc -l <"$E")" -le 4 ] || fail "the usage after an error is not short: $(cat "$E")"
	x_rc "unknown 'frob'" 2 "unknown command 'frob'" frob
}

t_options_anywhere() {
	local f=$XS_TMP/opts.conf
	x_ok "target list --json" target list "$IF_STEER" --json
	cp "$O" "$XS_TMP/want.json"
	for args in "--json target list $IF_STEER" "target --json list $IF_STEER" \
		"target list --json $IF_STEER" "-j target list $IF_STEER" "t l $IF_STEER -j" \
		"-v target list $IF_STEER -j" "target list $IF_STEER -j -v"; do
		# shellcheck disable=SC2086
		x_ok "$args" $args
		cmp -s "$O" "$XS_TMP/want.json" || fail "'$args': $(cat "$O")"
	done
	xs show "$IF_STEER" >"$f"
	chmod 600 "$f"
	x_ok "apply -f FILE IFACE --dry-run (the issue's order)" apply -f "$f" "$IF_STEER" --dry-run
	grep -q "no changes" "$O" || fail "apply -f first: $(cat "$O")"
	x_ok "apply --dry-run IFACE --file=FILE" apply --dry-run "$IF_STEER" --file="$f"
	x_ok "apply IFACE -fFILE --dry-run" apply "$IF_STEER" "-f$f" --dry-run
	x_ok "apply -- IFACE with -f before" apply -f "$f" --dry-run -- "$IF_STEER"
	x_rc "apply without -f" 2 "name the configuration with -f FILE" apply "$IF_STEER" --dry-run
	# -vv anywhere, also last: libbpf's own messages appear.
	xs_detach_quiet "$NS_STEER" "$DEV_A"
	echo "$NS_STEER $DEV_A" >>"$XS_TMP/attached"
	x attach "$DEV_A" --xdp-mode skb -vv
	[ "$RC" = 0 ] || fail "attach ... -vv: exit $RC: $(tail -n 3 "$E")"
	grep -q "libbpf: " "$E" || fail "-vv last on the line logged nothing"
	echo "ok: -vv after the arguments: $(grep -c "libbpf: " "$E") libbpf lines"
	x_ok "detach" detach "$DEV_A"
}

# Every option code reads by id (user/cmd/opts.h) is an option of some
# command: an id spelt unlike the command table would read as never given.
t_option_ids() {
	local name n=0
	"$XS" completion bash >"$XS_TMP/opts.comp"
	for name in $(sed -n 's/^\tX([A-Z0-9_]*, "\([a-z0-9-]*\)").*/\1/p' \
		"$XS_TOP/user/cmd/opts.h"); do
		grep -Eq -- "--$name([ '\"]|$)" "$XS_TMP/opts.comp" ||
			fail "option id '$name' (opts.h) is no command's option"
		n=$((n + 1))
	done
	[ "$n" -gt 40 ] || fail "read only $n option ids from opts.h"
	echo "ok: $n option ids, each some command's option"
}

t_exit_codes() {
	x_rc "no command" 2 "name a command"
	x_rc "unknown option" 2 "target list: unknown option '--frob'" target list "$IF_STEER" --frob
	x_rc "unknown short option" 2 "target list: unknown option '-f'" target list "$IF_STEER" -f x
	x_rc "missing argument" 2 "target add: missing arguments" target add "$IF_STEER" cpu
	x_rc "extra argument" 2 "target list: unexpected argument 'x'" target list "$IF_STEER" x
	x_rc "option without its value" 2 "needs a value" service add "$IF_STEER" 10.9.9.9:1/tcp --algo
	x_rc "flag with a value" 2 "takes no value" target list "$IF_STEER" --json=1
	x_rc "--dry-run with --watch" 2 "do not go together" apply "$IF_STEER" -f /dev/null --dry-run --watch
	grep -q '^usage: xdpsteer apply IFACE -f FILE' "$E" || fail "no command usage: $(cat "$E")"
	x_rc "refused: not a target" 1 "cpu 1 is not a target" target del "$IF_STEER" cpu 1
	[ "$(wc -l <"$E")" = 1 ] || fail "a refusal is one line: $(cat "$E")"
	x_rc "refused: no such interface" 1 "not found" stats "nosuch$RUN_ID"
	x_ok "done" status "$IF_STEER"
}

t_version() {
	local obj sum rel
	x_ok "--version" --version
	# The release, then the git description of a tree built from git.
	rel=$(cat "$XS_TOP/VERSION")
	head -n 1 "$O" | grep -Eq "^xdpsteer ${rel//./\\.}( \(git [0-9a-zA-Z.-]+\))?\$" ||
		fail "--version: '$(head -n 1 "$O")', want 'xdpsteer $rel (git ...)'"
	if [ -e "$XS_TOP/.git" ]; then
		head -n 1 "$O" | grep -q " (git " || fail "--version of a git build names no git description"
	fi
	echo "ok: --version: $(head -n 1 "$O")"
	grep -Eq '^libbpf [0-9]+\.[0-9]+, libxdp [0-9.]+, json-c [0-9.]+$' "$O" || fail "--version: $(cat "$O")"
	cp "$O" "$XS_TMP/v.txt"
	x_ok "-V" -V
	cmp -s "$O" "$XS_TMP/v.txt" || fail "-V differs from --version"
	x_ok "version" version
	cmp -s "$O" "$XS_TMP/v.txt" || fail "version differs from --version"
	x_json "version" version
	x_ok "--version --json" --version --json
	json_ok "--version --json"
	pyx 'd' "$O"
	for obj in xdpsteer xs_decap; do
		sum=$(sha256sum <"$XS_TOP/${XS_BUILD:-build}/$obj.bpf.o" | cut -d' ' -f1)
		assert_eq "$obj.bpf.o build id" \
			"$(pyx "[o['sha256'] for o in d['bpf_objects'] if o['name'] == '$obj.bpf.o'][0]" "$O")" "$sum"
	done
	assert_eq "version field" "$(pyx 'd["version"]' "$O")" "$(head -n 1 "$XS_TMP/v.txt" | cut -d' ' -f2-)"
	assert_eq "release field" "$(pyx 'd["release"]' "$O")" "$rel"
}

# ---- JSON -------------------------------------------------------------------

t_json_read_commands() {
	local f=$XS_TMP/plan.conf
	x_json "status" status
	x_json "status IFACE" status "$IF_STEER"
	assert_eq "status: ifname" "$(pyx 'd[0]["ifname"]' "$O")" "$IF_STEER"
	x_json "target list" target list "$IF_STEER"
	x_json "stats" stats "$IF_STEER"
	x_json "stats --per-cpu" stats "$IF_STEER" --per-cpu
	assert_true "stats: per_cpu" "$(pyx 'all("per_cpu" in t for t in d["targets"])' "$O")"
	x_json "service list" service list "$IF_STEER"
	assert_eq "service list: backends" "$(pyx '[b["backend"] for s in d for b in s["backends"]]' "$O")" \
		'["10.9.1.1", "10.9.1.2"]'
	x_json "lookup (queues)" lookup "$IF_STEER" tcp 198.18.0.2:1000 198.18.0.1:80
	x_json "lookup (service)" lookup "$IF_STEER" tcp 198.18.0.2:1000 "$VIP4:80"
	assert_eq "lookup: service" "$(pyx 'd["service"]' "$O")" "$VIP4:80/tcp"
	x_json "show" show "$IF_STEER"
	assert_eq "show: settings" "$(pyx 'sorted(d["settings"])' "$O")" \
		'["algo", "hand_fields", "hand_size", "hash_fields", "slot_count"]'
	x_json "show --secrets" show "$IF_STEER" --secrets
	assert_eq "show: seed" "$(pyx 'd["settings"]["seed"]' "$O")" \
		"$(xs show "$IF_STEER" --secrets | sed -n 's/^seed //p')"
	assert_eq "show: targets as in the text" "$(pyx 'len(d["targets"])' "$O")" \
		"$(xs show "$IF_STEER" | grep -c '^target ')"
	assert_eq "show: backends as in the text" "$(pyx 'sum(len(s["backends"]) for s in d["services"])' "$O")" \
		"$(xs show "$IF_STEER" | grep -c '^backend ')"
	x_json "sim resize" sim resize --keys 2000 --from 4 --to 5
	x_json "sim isolation" sim isolation --tenants 50 --queues 4 --events 2000 --hands 1,2
	# The plan: apply --dry-run, one change.
	xs show "$IF_STEER" >"$f"
	echo "backend $VIP4:80/tcp 10.9.1.3 weight 2" >>"$f"
	chmod 600 "$f"
	x_json "apply --dry-run" apply "$IF_STEER" -f "$f" --dry-run
	pyx 'd' "$O"
	assert_eq "plan: changes" "$(pyx '[[c["op"], c["object"], c["text"]] for c in d["changes"]]' "$O")" \
		"[[\"add\", \"backend\", \"backend $VIP4:80/tcp 10.9.1.3 weight 2\"]]"
	assert_eq "plan: dry run, nothing applied" "$(pyx '[d["dry_run"], d["applied"], d["file"]]' "$O")" \
		"[true, 0, \"$f\"]"
	assert_eq "plan: the pool that moves" "$(pyx '[m["pool"] for m in d["moves"]]' "$O")" "[\"$VIP4:80/tcp\"]"
	assert_true "plan: a share of about 1/2" "$(pyx '0.4 < d["moves"][0]["share"] < 0.6' "$O")"
	assert_eq "the text plan says the same" "$(xs apply "$IF_STEER" -f "$f" --dry-run | grep -c '^  [-+~] ')" 1
}

t_json_decap_stats() {
	decap_attach_in "$NS_STEER" "$DEV_A" >/dev/null
	x_json "decap stats" decap stats "$DEV_A"
	assert_eq "decap stats: ifname" "$(pyx 'd["ifname"]' "$O")" "$DEV_A"
	assert_true "decap stats: counters" "$(pyx '"ipip" in d["counters"]' "$O")"
	x_ok "decap detach" decap detach "$DEV_A"
}

t_json_edits() {
	x_ok "target add --json" target add "$IF_STEER" cpu 1 --json
	json_ok "target add --json"
	assert_eq "target add: the change" "$(pyx '[d["changes"][0]["op"], d["changes"][0]["object"], d["applied"]]' "$O")" \
		'["add", "target", 1]'
	x_ok "target del -p" target del "$IF_STEER" cpu 1 -p
	json_ok "target del -p"
	assert_eq "target del: the change" "$(pyx '[c["text"] for c in d["changes"]]' "$O")" '["target cpu 1"]'
	x_json_fails "target del, not a target" target del "$IF_STEER" cpu 1
	x_json_fails "backend add, bad address" backend add "$IF_STEER" "$VIP4:80/tcp" 10.9.1.300
}

# --dry-run on every command that commits: the plan on stdout, "dry run: N
# changes not applied", exit 0, and every pinned map byte-identical (and
# show --secrets the same). The old code knew --dry-run on apply alone.
t_dry_run_every_edit() {
	local f=$XS_TMP/dry.conf svc="$VIP4:80/tcp" c
	local -a edits=(
		"target add $IF_STEER cpu 1"
		"target del $IF_STEER cpu 0"
		"target drain $IF_STEER cpu 0"
		"target undrain $IF_STEER dev $DEV_A"
		"seed $IF_STEER random"
		"service add $IF_STEER 10.9.0.20:80/tcp --encap gue"
		"service del $IF_STEER $svc"
		"backend add $IF_STEER $svc 10.9.1.3 --weight 2"
		"backend del $IF_STEER $svc 10.9.1.1"
		"backend drain $IF_STEER $svc 10.9.1.1"
		"backend undrain $IF_STEER $svc 10.9.1.2"
		"backend weight $IF_STEER $svc 10.9.1.1 3"
		"apply $IF_STEER -f $f"
	)
	# Something to undrain: a drained target and a drained backend.
	xs target add "$IF_STEER" dev "$DEV_A" --drain >/dev/null
	xs backend drain "$IF_STEER" "$svc" 10.9.1.2 >/dev/null
	xs show "$IF_STEER" | grep -v '^target cpu 0' >"$f"
	chmod 600 "$f"
	dump_state "$XS_TMP/dry.before"
	xs show "$IF_STEER" --secrets >"$XS_TMP/dry.show"
	for c in "${edits[@]}"; do
		# shellcheck disable=SC2086 # one word per argument
		x $c --dry-run
		[ "$RC" = 0 ] || fail "$c --dry-run: exit $RC: $(head -n 3 "$E")"
		grep -q "^dry run: [0-9]* changes\? not applied" "$O" ||
			fail "$c --dry-run: no 'dry run:' line in: $(cat "$O")"
		assert_same_state "$c --dry-run" "$XS_TMP/dry.before"
		xs show "$IF_STEER" --secrets | cmp -s - "$XS_TMP/dry.show" ||
			fail "$c --dry-run: show --secrets changed"
		echo "  $(grep -m1 '^  [-+~]' "$O")"
	done
	# shellcheck disable=SC2086
	x ${edits[7]} --dry-run --json
	assert_eq "backend add --dry-run --json" "$(pyx '[d["dry_run"], d["applied"], len(d["changes"])]' "$O")" \
		'[true, 0, 1]'
	assert_same_state "backend add --dry-run --json" "$XS_TMP/dry.before"
	xs backend undrain "$IF_STEER" "$svc" 10.9.1.2 >/dev/null
	xs target del "$IF_STEER" dev "$DEV_A" >/dev/null
}

t_json_failure_paths() {
	local f=$XS_TMP/bad.conf
	# An interface that exists but is not attached, and one that does not exist.
	for ifc in "$DEV_A" "nosuch$RUN_ID"; do
		x_json_fails "status $ifc" status "$ifc"
		x_json_fails "target list $ifc" target list "$ifc"
		x_json_fails "stats $ifc" stats "$ifc"
		x_json_fails "service list $ifc" service list "$ifc"
		x_json_fails "lookup $ifc" lookup "$ifc" tcp 1.2.3.4:5 6.7.8.9:10
		x_json_fails "show $ifc" show "$ifc"
		x_json_fails "decap stats $ifc" decap stats "$ifc"
	done
	x_json_fails "lookup with a bad endpoint" lookup "$IF_STEER" tcp 1.2.3.4 6.7.8.9:10
	echo "backend 10.99.0.1:1/tcp 10.9.1.1" >"$f"
	chmod 600 "$f"
	x_json_fails "apply, a bad file" apply "$IF_STEER" -f "$f"
	x_json_fails "apply --dry-run, a bad file" apply "$IF_STEER" -f "$f" --dry-run
	x_json_fails "sim resize, a bad option value" sim resize --keys 0
}

# status --json over every attachment, one of them broken: nothing on stdout,
# whichever comes first (the old code printed "[, {" when it was the first).
t_status_json_one_broken() {
	attach_in "$NS_STEER" "$DEV_A" --xdp-mode skb >/dev/null
	x_json "status, two attachments" status
	assert_eq "two interfaces" "$(pyx 'sorted(i["ifname"] for i in d if i["ifname"] in ("'"$IF_STEER"'", "'"$DEV_A"'"))' "$O")" \
		"$(pyx 'sorted(["'"$IF_STEER"'", "'"$DEV_A"'"])' "$O")"
	# Broken as an attachment by another version would be: a pin missing.
	# detach still removes it (test_steer.sh checks that).
	rm "$(pin_dir "$NS_STEER" "$DEV_A")/xs_epoch"
	x status --json
	cp "$O" "$XS_TMP/broken.out"
	cp "$E" "$XS_TMP/broken.err"
	local rc=$RC
	x status
	xs detach "$DEV_A" >/dev/null
	[ "$RC" = 1 ] || fail "text status with a broken attachment: exit $RC"
	grep -q "^$IF_STEER: " "$O" || fail "text status dropped the good interface: $(cat "$O")"
	echo "ok: text status still shows the good interface, and exits 1"
	[ "$rc" = 1 ] || fail "status --json, one broken: exit $rc"
	[ ! -s "$XS_TMP/broken.out" ] || fail "status --json, one broken: stdout: $(cat "$XS_TMP/broken.out")"
	grep -q "$DEV_A" "$XS_TMP/broken.err" || fail "the error does not name $DEV_A: $(cat "$XS_TMP/broken.err")"
	echo "ok: status --json, one broken: exit 1, stdout empty"
}

# An interface whose name holds '"' and '\': every document escapes it.
t_json_quoted_ifname() {
	run_in "$NS_STEER" ip link add "$QIF" type veth peer name "xq$RUN_ID" ||
		skip "the kernel refuses the interface name $QIF"
	ip -n "$NS_STEER" link set "$QIF" up
	ip -n "$NS_STEER" link set "xq$RUN_ID" up
	echo "ok: interface $QIF"
	x_ok "target add dev (quoted name)" target add "$IF_STEER" dev "$QIF"
	x_json "target list, a dev target named $QIF" target list "$IF_STEER"
	assert_eq "dev name round trip" "$(pyx '[t["dev"] for t in d if "dev" in t][0]' "$O")" "$QIF"
	x_json "stats, a dev target named $QIF" stats "$IF_STEER"
	assert_eq "stats dev name" "$(pyx '[t["dev"] for t in d["targets"] if "dev" in t][0]' "$O")" "$QIF"
	x_json "show, a dev target named $QIF" show "$IF_STEER"
	assert_eq "show dev name" "$(pyx '[t["dev"] for t in d["targets"] if "dev" in t][0]' "$O")" "$QIF"
	x_ok "target del dev" target del "$IF_STEER" dev "$QIF"
	echo "$NS_STEER $QIF" >>"$XS_TMP/attached"
	x_ok "attach $QIF" attach "$QIF" --xdp-mode skb
	x_json "status $QIF" status "$QIF"
	assert_eq "status ifname" "$(pyx 'd[0]["ifname"]' "$O")" "$QIF"
	x_json "status (all)" status
	pyx '"\n".join(i["ifname"] for i in d)' "$O" >"$XS_TMP/names"
	grep -Fxq -- "$QIF" "$XS_TMP/names" || fail "status (all) lacks $QIF: $(cat "$XS_TMP/names")"
	echo "ok: status (all) lists $QIF"
	x_json "show $QIF" show "$QIF"
	assert_eq "show ifname" "$(pyx 'd["ifname"]' "$O")" "$QIF"
	x_json "stats $QIF" stats "$QIF"
	assert_eq "stats ifname" "$(pyx 'd["ifname"]' "$O")" "$QIF"
	x_ok "target add $QIF cpu 0 --json" target add "$QIF" cpu 0 --json
	json_ok "target add on $QIF"
	assert_eq "plan ifname" "$(pyx 'd["ifname"]' "$O")" "$QIF"
	x_ok "detach $QIF" detach "$QIF"
}

# ---- output an operator reads -----------------------------------------------

# service list: one line per backend, as ipvsadm -Ln: weight, drain, flows, health.
t_service_list_backends() {
	xs backend drain "$IF_STEER" "$VIP4:80/tcp" 10.9.1.2 >/dev/null
	x_ok "service list" service list "$IF_STEER"
	sed 's/^/  | /' "$O"
	grep -Eq "^  backend 10\.9\.1\.1 +weight 1, active, [0-9]+ pinned, [0-9]+ open, health unchecked$" "$O" ||
		fail "service list: no weight/active/pinned/open/health line for 10.9.1.1"
	grep -Eq "^  backend 10\.9\.1\.2 +weight 1, draining, [0-9]+ pinned, [0-9]+ open, health unchecked$" "$O" ||
		fail "service list: 10.9.1.2 is not shown draining"
	x_json "service list" service list "$IF_STEER"
	assert_eq "service list --json: per backend" \
		"$(pyx '[[b["backend"], b["weight"], b["draining"], type(b.get("pinned")).__name__, type(b.get("open")).__name__, b["health"]] for s in d for b in s["backends"]]' "$O")" \
		'[["10.9.1.1", 1, false, "int", "int", "unchecked"], ["10.9.1.2", 1, true, "int", "int", "unchecked"]]'
	xs backend undrain "$IF_STEER" "$VIP4:80/tcp" 10.9.1.2 >/dev/null
}

# Every plan line says what changed, old -> new; service add echoes what was set.
t_plan_says_what_changed() {
	local f=$XS_TMP/chg.conf svc=10.9.0.11:80/tcp
	x_ok "service add --encap gue --second-chance on" service add "$IF_STEER" "$svc" --encap gue --second-chance on
	grep -qx "  + service $svc (jump, gue, second-chance on)" "$O" || fail "service add echoes: $(cat "$O")"
	xs show "$IF_STEER" | sed "s|^service $svc .*|service $svc encap ipip check tcp|" >"$f"
	chmod 600 "$f"
	x_ok "apply --dry-run" apply "$IF_STEER" -f "$f" --dry-run
	sed 's/^/  | /' "$O"
	grep -qx "  ~ service $svc: encap gue -> ipip, second-chance on -> off" "$O" ||
		fail "the plan does not say encap gue -> ipip, second-chance on -> off"
	grep -qx "  ~ service $svc: health check none -> check tcp" "$O" ||
		fail "the plan does not say health check none -> check tcp"
	x_json "apply --dry-run" apply "$IF_STEER" -f "$f" --dry-run
	assert_eq "plan --json: changed" "$(pyx '[[f["key"], f["from"], f["to"]] for c in d["changes"] for f in c.get("changed", [])]' "$O")" \
		'[["encap", "gue", "ipip"], ["second-chance", "on", "off"], ["health", "check none", "check tcp"]]'
	# A new seed: the empty pool moves nothing, and says so.
	x_ok "seed" seed "$IF_STEER" random
	grep -qx "  moves $svc: nothing (no targets before or after)" "$O" ||
		fail "seed, empty pool: $(grep "moves $svc" "$O")"
	x_ok "seed --json" seed "$IF_STEER" random --json
	assert_eq "seed --json: the empty pool" "$(pyx '[[m["share"], m["sampled"]] for m in d["moves"] if m["pool"] == "'"$svc"'"]' "$O")" "[[0.0, null]]"
	xs service del "$IF_STEER" "$svc" >/dev/null
}

# An empty target table: one line, and the counter the program really uses.
t_target_list_empty() {
	xs target del "$IF_STEER" cpu 0 >/dev/null
	x_ok "target list, no targets" target list "$IF_STEER"
	xs target add "$IF_STEER" cpu 0 >/dev/null
	# With services, bpf/xdpsteer.bpf.c counts what no pool takes as not_vip.
	assert_eq "target list, no targets, a service" "$(cat "$O")" \
		"(no queue targets: packets for no service pass to the stack, counted as not_vip)"
}

# stats: a backend's pinned and open sit under their own headers.
t_stats_columns() {
	x_ok "stats" stats "$IF_STEER"
	grep -A 3 '^service / backend' "$O" | sed 's/^/  | /'
	"$PYTHON" - "$O" <<-'PY' || fail "stats: pinned/open not under their headers"
		import sys
		lines = open(sys.argv[1]).read().split("\n")
		h = next(l for l in lines if l.startswith("service / backend"))
		b = next(l for l in lines if l.startswith("  10.9.1.1 "))
		for col in ("pinned", "open"):
		    assert col in h.split(), "no %s header: %r" % (col, h)
		    end = h.index(" " + col + " " if col != "open" else " open") + len(col) + 1
		    cell = b[end - 8:end].strip()
		    assert cell.isdigit(), "%s: %r under it in %r" % (col, cell, b)
		print("ok: pinned and open under their headers")
	PY
}

# One JSON writer: every compact document spaced alike, '{ "k": v, "l": [ 1, 2 ] }'.
t_json_one_spacing() {
	local c
	for c in "status $IF_STEER" "target list $IF_STEER" "stats $IF_STEER" "service list $IF_STEER" \
		"lookup $IF_STEER tcp 198.18.0.2:1000 $VIP4:80" "lookup $IF_STEER tcp 198.18.0.2:1000 198.18.0.1:80" \
		"show $IF_STEER" "version"; do
		# shellcheck disable=SC2086
		x_ok "$c --json" $c --json
		"$PYTHON" - "$O" <<-'PY' || fail "$c --json is spaced unlike the rest: $(head -c 300 "$O")"
			import sys
			s, i, bad = open(sys.argv[1]).read().rstrip("\n"), 0, []
			while i < len(s):
			    ch = s[i]
			    if ch == '"':
			        i += 1
			        while s[i] != '"':
			            i += 2 if s[i] == "\\" else 1
			    elif ch in ":,{[" and s[i + 1:i + 2] != " ":
			        bad.append(i)
			    elif ch in "}]" and s[i - 1] != " ":
			        bad.append(i)
			    i += 1
			assert not bad, "unspaced at %s: %r" % (bad[:3], s[max(0, bad[0] - 20):bad[0] + 20])
		PY
	done
}

# "did you mean" wherever a name is refused: options, command words, keys, keywords, values.
t_did_you_mean() {
	local f=$XS_TMP/dym.conf
	x_rc "an option" 2 "unknown option '--encp'; did you mean '--encap'\?" service add "$IF_STEER" 10.9.9.9:1/tcp --encp gue
	x_rc "a command" 2 "target: unknown command 'lsit'; did you mean 'list'\?" target lsit "$IF_STEER"
	x_rc "an object" 2 "unknown command 'servce'; did you mean 'service'\?" servce list "$IF_STEER"
	x_rc "a value" 1 "'jsno' is not text, json or prometheus; did you mean 'json'\?" stats "$IF_STEER" --format jsno
	x_rc "nothing near" 2 "unknown option '--frobnicate'$" target list "$IF_STEER" --frobnicate
	for line in "service $VIP4:81/tcp encp gue|service: unknown key 'encp'; did you mean 'encap'?" \
		"servcie $VIP4:81/tcp|unknown keyword 'servcie'; did you mean 'service'? (want"; do
		echo "${line%%|*}" >"$f"
		chmod 600 "$f"
		x apply "$IF_STEER" -f "$f" --dry-run
		[ "$RC" = 1 ] || fail "apply '${line%%|*}': exit $RC"
		grep -Fq "$f:1: ${line#*|}" "$E" || fail "apply '${line%%|*}': $(cat "$E")"
		echo "ok: $(cat "$E")"
	done
}

# status after one upgrade: "1 upgrade", singular.
t_upgrade_singular() {
	x_ok "upgrade" upgrade "$IF_STEER"
	x_ok "status" status "$IF_STEER"
	grep -Eq ", 1 upgrade, last from " "$O" || fail "status after one upgrade: $(grep upgrade "$O")"
	echo "ok: $(grep -o '1 upgrade.*' "$O")"
}

# ---- what make install puts down -------------------------------------------

# make_top ARGS...: make in the source tree, for the build under test.
make_top() {
	local san=
	[ "${XS_BUILD:-build}" = build-san ] && san=SANITIZE=1
	make -s --no-print-directory -C "$XS_TOP" $san "$@"
}

t_install_tree() {
	local shim=$XS_TMP/shim p f
	# No package may be installed by make or make install: every package
	# tool on the PATH is a trap that leaves a mark.
	mkdir -p "$shim"
	for p in apt-get apt aptitude dpkg dpkg-query; do
		printf '#!/bin/sh\necho "%s $*" >>%s/called\nexit 1\n' "$p" "$shim" >"$shim/$p"
		chmod +x "$shim/$p"
	done
	PATH=$shim:$PATH make_top all install DESTDIR="$STAGE" >"$XS_TMP/install.log" 2>&1 ||
		fail "make install failed: $(tail -n 20 "$XS_TMP/install.log")"
	[ ! -e "$shim/called" ] || fail "make or make install ran a package tool: $(cat "$shim/called")"
	echo "ok: make and make install ran no package tool"
	(cd "$STAGE" && find . | sort) | tee "$XS_TMP/tree"
	for f in usr/local/sbin/xdpsteer usr/local/share/man/man8/xdpsteer.8 \
		usr/local/share/man/man5/xdpsteer.conf.5 \
		usr/local/share/bash-completion/completions/xdpsteer \
		usr/local/lib/systemd/system/xdpsteer-agent@.service \
		usr/local/share/doc/xdpsteer/README.md usr/local/share/doc/xdpsteer/docs/usage.md \
		usr/local/share/doc/xdpsteer/docs/install.md; do
		[ -f "$STAGE/$f" ] || fail "make install did not install $f"
	done
	[ -d "$STAGE/etc/xdpsteer" ] || fail "no /etc/xdpsteer"
	assert_eq "binary mode" "$(stat -c %a "$STAGE/usr/local/sbin/xdpsteer")" 755
	assert_eq "man page mode" "$(stat -c %a "$STAGE/usr/local/share/man/man8/xdpsteer.8")" 644
	grep -qx "ExecStart=/usr/local/sbin/xdpsteer agent -f /etc/xdpsteer/%i.conf --run-dir /run/xdpsteer/%i %i" \
		"$STAGE/usr/local/lib/systemd/system/xdpsteer-agent@.service" || fail "ExecStart"
	"$STAGE/usr/local/sbin/xdpsteer" --version >/dev/null || fail "the installed binary does not run"
	# PREFIX moves everything but /etc.
	mkdir -p "$XS_TMP/stage2/usr/lib"
	make_top install DESTDIR="$XS_TMP/stage2" PREFIX=/usr >/dev/null 2>&1 || fail "make install PREFIX=/usr"
	[ -x "$XS_TMP/stage2/usr/sbin/xdpsteer" ] || fail "PREFIX=/usr: no /usr/sbin/xdpsteer"
	grep -q "^ExecStart=/usr/sbin/xdpsteer " "$XS_TMP/stage2/usr/lib/systemd/system/xdpsteer-agent@.service" ||
		fail "PREFIX=/usr: ExecStart"
	# uninstall takes back every file, and leaves a configuration; it removes
	# the directories install created, once empty, and no other (usr/lib
	# was there before install: it stays).
	touch "$XS_TMP/stage2/etc/xdpsteer/eth9.conf"
	make_top uninstall DESTDIR="$XS_TMP/stage2" PREFIX=/usr >/dev/null 2>&1 || fail "make uninstall"
	assert_eq "files left by uninstall" "$(cd "$XS_TMP/stage2" && find . -type f | sort)" "./etc/xdpsteer/eth9.conf"
	assert_eq "directories left by uninstall" "$(cd "$XS_TMP/stage2" && find . -type d | sort | tr '\n' ' ')" \
		". ./etc ./etc/xdpsteer ./usr ./usr/lib "
}
ns_needs man_pages install_tree
ns_needs systemd_unit install_tree
ns_needs bash_completion install_tree

t_man_pages() {
	local m c
	for m in man8/xdpsteer.8 man5/xdpsteer.conf.5; do
		MANWIDTH=80 man --warnings -l "$STAGE/usr/local/share/man/$m" >"$XS_TMP/man.txt" 2>"$XS_TMP/man.err" ||
			fail "man -l $m failed: $(cat "$XS_TMP/man.err")"
		[ ! -s "$XS_TMP/man.err" ] || fail "man -l $m warns: $(cat "$XS_TMP/man.err")"
		grep -q "^NAME" "$XS_TMP/man.txt" || fail "$m: no NAME section"
		echo "ok: man -l $m: $(wc -l <"$XS_TMP/man.txt") lines, no warning"
	done
	MANWIDTH=200 man -l "$STAGE/usr/local/share/man/man8/xdpsteer.8" 2>/dev/null >"$XS_TMP/man8.txt"
	while read -r c; do
		grep -Eq "(^|[^a-z-])${c%% *}([ |*]|$)" "$XS_TMP/man8.txt" || fail "xdpsteer(8) does not describe '$c'"
		[[ $c == *" "* ]] && { grep -Fq "${c#* }" "$XS_TMP/man8.txt" || fail "xdpsteer(8) lacks '$c'"; }
	done < <(commands)
	echo "ok: xdpsteer(8) names every command of the table"
}

t_systemd_unit() {
	local u=$XS_TMP/units/xdpsteer-agent@$IF_STEER.service
	command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (make deps)"
	mkdir -p "$XS_TMP/units"
	# verify needs ExecStart's binary to exist: the staged one.
	sed "s|/usr/local/sbin/xdpsteer|$STAGE/usr/local/sbin/xdpsteer|" \
		"$STAGE/usr/local/lib/systemd/system/xdpsteer-agent@.service" >"$u"
	MANPATH=$STAGE/usr/local/share/man systemd-analyze verify "$u" >"$XS_TMP/sa.out" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$XS_TMP/sa.out")"
	[ ! -s "$XS_TMP/sa.out" ] || fail "systemd-analyze verify warns: $(cat "$XS_TMP/sa.out")"
	echo "ok: systemd-analyze verify xdpsteer-agent@$IF_STEER.service: clean"
}

t_bash_completion() {
	local f=$STAGE/usr/local/share/bash-completion/completions/xdpsteer
	cmp -s "$f" <("$XS" completion bash) || fail "installed completion differs from xdpsteer completion bash"
	# shellcheck disable=SC2016
	env -i PATH="$PATH" bash --norc --noprofile -c '
		set -u
		source "$1" || exit 1
		c() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _xdpsteer; echo "${COMPREPLY[*]}"; }
		complete -p xdpsteer
		printf "%s\n" "$(c xdpsteer ta)" "$(c xdpsteer t "")" "$(c xdpsteer t a lo "")" \
			"$(c xdpsteer attach lo --xdp-mode "")" "$(c xdpsteer service l -)" \
			"$(c xdpsteer -v ba w)" "$(c xdpsteer help ser "")" "$(c xdpsteer s)"
	' sh "$f" >"$XS_TMP/comp.out" 2>&1 || fail "completion: $(cat "$XS_TMP/comp.out")"
	cat "$XS_TMP/comp.out"
	assert_eq "complete -p" "$(sed -n 1p "$XS_TMP/comp.out")" "complete -F _xdpsteer xdpsteer"
	assert_eq "xdpsteer ta<TAB>" "$(sed -n 2p "$XS_TMP/comp.out")" "target"
	assert_eq "xdpsteer t <TAB>" "$(sed -n 3p "$XS_TMP/comp.out")" "add del list drain undrain help"
	assert_eq "xdpsteer t a lo <TAB>" "$(sed -n 4p "$XS_TMP/comp.out")" "cpu dev"
	assert_eq "--xdp-mode <TAB>" "$(sed -n 5p "$XS_TMP/comp.out")" "native skb"
	assert_eq "service l -<TAB>" "$(sed -n 6p "$XS_TMP/comp.out")" "--json -j --pretty -p --run-dir -v -vv -h --help"
	assert_eq "-v ba w<TAB>" "$(sed -n 7p "$XS_TMP/comp.out")" "weight"
	assert_eq "help ser <TAB>" "$(sed -n 8p "$XS_TMP/comp.out")" "add del list"
	assert_eq "s<TAB>" "$(sed -n 9p "$XS_TMP/comp.out")" "status stats seed service show sim"
}

# ---------------------------------------------------------------------------
ns_select "$@"
install_trap
trap cleanup_lb EXIT
preflight || fatal cli "$PREFLIGHT_REASON"
decap_preflight
setup_testbed || fatal cli "cannot build the testbed"
STAGE=$XS_TMP/stage # make install DESTDIR=$STAGE (install_tree)
add_dev_target_if a || fatal cli "cannot add $DEV_A"
ip -n "$NS_STEER" route add 10.9.0.0/16 dev "$IF_STEER"
# The state the read commands are run against: a target, a service, two backends.
attach --xdp-mode skb >/dev/null &&
	xs target add "$IF_STEER" cpu 0 >/dev/null &&
	xs service add "$IF_STEER" "$VIP4:80/tcp" >/dev/null &&
	xs backend add "$IF_STEER" "$VIP4:80/tcp" 10.9.1.1 >/dev/null 2>&1 &&
	xs backend add "$IF_STEER" "$VIP4:80/tcp" 10.9.1.2 >/dev/null 2>&1 ||
	fatal cli "cannot set up the base state"

for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish cli
