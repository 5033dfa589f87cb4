#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# One set of rules for commands and files. Every rule the model enforces is
# broken twice: once by a command, once by a configuration file. Both must be
# refused with the same words (the file's prefixed with FILE:LINE), exit
# non-zero, and leave every pinned map byte-identical. A rule that only one
# of the two paths checked would let the other through, and fail here.
# Needs root; about 40 s; V=1 for detail.
#
#   tests/ns/test_rules.sh [--list | TEST...]     (default: all; a test is rule_NAME)
set -euo pipefail

XS_SUITE=rules
if [ -z "${XS_NS_WATCHDOG:-}" ]; then
	export XS_NS_WATCHDOG=1
	exec timeout -k 20 "${XS_NS_TIMEOUT:-300}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "$0")/state.sh"

SEED=5eed00000000000000000000000000c2
VIP4=10.9.0.10
VIP6=2001:db8::10
SHUF=10.9.0.30

# The running state every rule is tried against: a target, an IPv4 and an
# IPv6 service with backends, and a shuffle service with 16 backends and a
# hand of 15, one backend short of the entropy limit (15 * log2(17) > 60).
base_config() {
	local i
	cat <<-EOF
	seed $SEED
	target cpu 0
	service $VIP4:80/tcp
	backend $VIP4:80/tcp 10.9.1.1
	service [$VIP6]:443/udp
	backend [$VIP6]:443/udp 2001:db8:1::1
	service $SHUF:80/tcp algo shuffle hand-size 15
	EOF
	for ((i = 1; i <= 16; i++)); do echo "backend $SHUF:80/tcp 10.9.3.$i"; done
}

# The rules: NAME | COMMAND (after the interface) | FILE (lines joined by ';') | LINE | PATTERN.
# The command and the file break the same rule; PATTERN must match both messages.
# @IF@ is the interface; the file is applied whole, so it must be valid but for the rule.
RULES=$(cat <<'EOF'
algo|service add @IF@ 10.9.0.20:80/tcp --algo maglev|service 10.9.0.20:80/tcp algo maglev|1|algo: .maglev. is not jump or shuffle
queue_algo|attach @IF2@ --algo maglev|algo maglev|1|algo: .maglev. is not jump or shuffle
hand_size|service add @IF@ 10.9.0.20:80/tcp --hand-size 16|service 10.9.0.20:80/tcp hand-size 16|1|hand-size: .16. is not a whole number from 1 to 15
queue_hand_size|attach @IF2@ --hand-size 0|hand-size 0|1|hand-size: .0. is not a whole number from 1 to 15
encap|service add @IF@ 10.9.0.20:80/tcp --encap gre|service 10.9.0.20:80/tcp encap gre|1|encap: .gre. is not ipip, l2 or gue
second_chance_encap|service add @IF@ 10.9.0.20:80/tcp --second-chance on|service 10.9.0.20:80/tcp second-chance on|1|second-chance needs encap gue
second_chance_window|service add @IF@ 10.9.0.20:80/tcp --encap gue --second-chance-window 0s|service 10.9.0.20:80/tcp encap gue second-chance-window 0s|1|second-chance-window: .0s. is not a duration from 1000ms to 604800s
tunnel_src|service add @IF@ 10.9.0.20:80/tcp --tunnel-src 10.0.0.0/33|service 10.9.0.20:80/tcp tunnel-src 10.0.0.0/33|1|tunnel source: .10.0.0.0/33. is not an IPv4 prefix
tunnel_src6|service add @IF@ 10.9.0.20:80/tcp --tunnel-src6 10.0.0.0/8|service 10.9.0.20:80/tcp tunnel-src6 10.0.0.0/8|1|tunnel source: .10.0.0.0/8. is not an IPv6 prefix
service_name|service add @IF@ 10.9.0.20:80|service 10.9.0.20:80|1|is not VIP:PORT/PROTO
service_proto|service add @IF@ 10.9.0.20:80/sctp|service 10.9.0.20:80/sctp|1|protocol .sctp. is not tcp or udp
service_dup|service add @IF@ 10.9.0.10:80/tcp|service 10.9.0.10:80/tcp;service 10.9.0.10:80/tcp|2|service 10.9.0.10:80/tcp (already exists|is already declared)
check_kind|service add @IF@ 10.9.0.20:80/tcp --check icmp|service 10.9.0.20:80/tcp check icmp|1|check: .icmp. is not tcp, http, udp, dns or none
check_interval|service add @IF@ 10.9.0.20:80/tcp --check tcp --interval 10ms|service 10.9.0.20:80/tcp check tcp interval 10ms|1|interval: .10ms. is not a duration from 50ms
check_timeout|service add @IF@ 10.9.0.20:80/tcp --check tcp --interval 1s --timeout 2s|service 10.9.0.20:80/tcp check tcp interval 1s timeout 2s|1|timeout 2000ms is longer than interval 1000ms
check_rise|service add @IF@ 10.9.0.20:80/tcp --check tcp --rise 0|service 10.9.0.20:80/tcp check tcp rise 0|1|rise: .0. is not a whole number from 1 to 100
check_fall|service add @IF@ 10.9.0.20:80/tcp --check tcp --fall 101|service 10.9.0.20:80/tcp check tcp fall 101|1|fall: .101. is not a whole number from 1 to 100
check_port|service add @IF@ 10.9.0.20:80/tcp --check tcp --check-port 0|service 10.9.0.20:80/tcp check tcp check-port 0|1|check-port: .0. is not a whole number from 1 to 65535
check_path|service add @IF@ 10.9.0.20:80/tcp --check http --check-path health|service 10.9.0.20:80/tcp check http check-path health|1|check-path: .health. does not start with ./.
check_expect|service add @IF@ 10.9.0.20:80/tcp --check http --expect 700|service 10.9.0.20:80/tcp check http expect 700|1|expect: .700. is not a whole number from 100 to 599
check_path_kind|service add @IF@ 10.9.0.20:80/tcp --check tcp --check-path /h|service 10.9.0.20:80/tcp check tcp check-path /h|1|check-path applies to http checks only, not tcp
check_needs_kind|service add @IF@ 10.9.0.20:80/tcp --rise 2|service 10.9.0.20:80/tcp rise 2|1|rise needs a check
check_any_port|service add @IF@ 10.9.0.20:*/tcp --check tcp|service 10.9.0.20:*/tcp check tcp|1|an any-port service needs check-port
check_on_down|service add @IF@ 10.9.0.20:80/tcp --check tcp --on-down keep|service 10.9.0.20:80/tcp check tcp on-down keep|1|on-down: .keep. is not redecide or drain
local_vip|service add @IF@ 198.18.0.1:80/tcp|service 198.18.0.1:80/tcp|1|the VIP is an address of this host
service_key|service add @IF@ 10.9.0.20:80/tcp --weight 2|service 10.9.0.20:80/tcp weight 2|1|unknown (option|key) .-*weight.
backend_addr|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.300|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.300|2|backend: .10.9.1.300. is not an IPv4 or IPv6 address
backend_no_service|backend add @IF@ 10.9.0.99:80/tcp 10.9.1.9|backend 10.9.0.99:80/tcp 10.9.1.9|1|no service 10.9.0.99:80/tcp
backend_family|backend add @IF@ [2001:db8::10]:443/udp 10.9.1.9|service [2001:db8::10]:443/udp;backend [2001:db8::10]:443/udp 10.9.1.9|2|is IPv6 and the backend IPv4
backend_dup|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.1|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.1;backend 10.9.0.10:80/tcp 10.9.1.1|3|10.9.1.1 (is already a backend|of 10.9.0.10:80/tcp is already declared)
weight_zero|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.9 --weight 0|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.9 weight 0|2|weight: .0. is not a whole number from 1 to 256
weight_big|backend weight @IF@ 10.9.0.10:80/tcp 10.9.1.1 257|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.1 weight 257|2|weight: .257. is not a whole number from 1 to 256
entropy|backend add @IF@ 10.9.0.30:80/tcp 10.9.3.17|@SHUF17@|1|needs more than 60 bits of hash entropy
target_kind|target add @IF@ gpu 0|target gpu 0|1|target: .gpu. is not cpu or dev
cpu_range|target add @IF@ cpu 128|target cpu 128|1|cpu: .128. is not a whole number from 0 to 127
cpu_offline|target add @IF@ cpu 120|target cpu 120|1|cpu 120 does not exist or is offline
dev_loop_self|target add @IF@ dev @IF@|target dev @IF@|1|target dev @IF@ is @IF@ itself: .*loop
dev_unknown|target add @IF@ dev xsnosuch0|target dev xsnosuch0|1|interface .xsnosuch0. not found
qsize_range|target add @IF@ cpu 1 --qsize 0|target cpu 1 qsize 0|1|qsize: .0. is not a whole number from 1 to 16384
qsize_dev|target add @IF@ dev @IF@ --qsize 64|target dev @IF@ qsize 64|1|qsize applies to cpu targets only
target_dup|target add @IF@ cpu 0|target cpu 0;target cpu 0|2|target cpu 0 is already (a target|declared)
seed|seed @IF@ 1234|seed 1234|1|seed: a value of 4 characters is not 32 hex digits
hash_fields|attach @IF2@ --hash-fields src,port|hash-fields src,port|1|unknown field .port.
seed_file|attach @IF2@ --seed-file @KEY644@|seed-file @KEY644@|1|group or others may read it
slot_count_holes|service add @IF@ 10.9.0.20:80/tcp --slot-count 65536|service 10.9.0.20:80/tcp slot-count 65536;backend 10.9.0.20:80/tcp 10.9.1.9|1|slot-count 65536 leaves 6553[56] empty slots past the [01] its objects need; .* at most 256
slots_twice|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.9 --slots 0,0|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.9 slots 0,0|2|slots: 0 is listed twice
slots_weight|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.9 --weight 1 --slots 0,1|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.9 weight 1 slots 0,1|2|2 slots for weight 1
slot_taken|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.9 --slots 0|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.1 slots 0;backend 10.9.0.10:80/tcp 10.9.1.9 slots 0|3|slot 0 is named twice
id_range|backend add @IF@ 10.9.0.10:80/tcp 10.9.1.9 --id 5|service 10.9.0.10:80/tcp;backend 10.9.0.10:80/tcp 10.9.1.9 id 5|2|id: .5. is not a whole number from 384
EOF
)

# expand TEXT: the placeholders of a rule.
expand() {
	local s=${1//@IF@/$IF_STEER}
	s=${s//@IF2@/$IF_SPARE}
	s=${s//@KEY644@/$XS_TMP/seed644.key}
	printf '%s' "${s//@SHUF17@/$SHUF17}"
}

# check_rule NAME: break rule NAME both ways, the command first, then the file.
check_rule() {
	local name cmd file line pat f=$XS_TMP/rule.conf rc=0
	local -a argv

	IFS='|' read -r name cmd file line pat <<<"$(grep "^$1|" <<<"$RULES")"
	[ -n "$name" ] || fail "no rule $1 in the table"
	pat=$(expand "$pat")
	dump_state "$XS_TMP/before.dump"
	read -ra argv <<<"$(expand "$cmd")"
	xs "${argv[@]}" >"$XS_TMP/c.out" 2>"$XS_TMP/c.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$name: command accepted: ${argv[*]}"
	grep -Eq -- "$pat" "$XS_TMP/c.err" ||
		fail "$name: command: want /$pat/, got: $(cat "$XS_TMP/c.err")"
	assert_same_state "$name: command" "$XS_TMP/before.dump"

	expand "$file" | tr ';' '\n' >"$f"
	chmod 600 "$f"
	rc=0
	xs apply "$IF_STEER" -f "$f" >"$XS_TMP/f.out" 2>"$XS_TMP/f.err" || rc=$?
	[ "$rc" -ne 0 ] || fail "$name: file accepted: $(cat "$f")"
	grep -Eq -- "^$f:$line: .*($pat)" "$XS_TMP/f.err" ||
		fail "$name: file: want '$f:$line: ...$pat', got: $(cat "$XS_TMP/f.err")"
	assert_same_state "$name: file" "$XS_TMP/before.dump"
	echo "ok: command: $(grep -v "^+ " "$XS_TMP/c.err" | head -n 1)"
	echo "ok: file:    $(cat "$XS_TMP/f.err")"
}

# The state every rule is tried against, applied once before the rules.
base_setup() {
	attach --xdp-mode skb >/dev/null &&
		base_config >"$XS_TMP/base.conf" &&
		chmod 600 "$XS_TMP/base.conf" &&
		xs apply "$IF_STEER" -f "$XS_TMP/base.conf" >/dev/null &&
		[ "$(xs show "$IF_STEER" | grep -c "^backend $SHUF:80/tcp")" = 16 ]
}

# One test per rule: t_rule_NAME.
while IFS='|' read -r rule _; do
	[ -n "$rule" ] && eval "t_rule_$rule() { check_rule $rule; }"
done <<<"$RULES"

# ---------------------------------------------------------------------------
ns_select "$@"
install_trap
preflight || fatal rules "$PREFLIGHT_REASON"
setup_testbed || fatal rules "cannot build the testbed"
# An interface the attach rules try: never attached, since every try fails.
IF_SPARE=${DEV_PREFIX}s
ip -n "$NS_STEER" link add "$IF_SPARE" type veth peer name "xf$RUN_ID" ||
	fatal rules "cannot add $IF_SPARE"
ip -n "$NS_STEER" route add 10.9.0.0/16 dev "$IF_STEER"
# The shuffle service of the base with a 17th backend: one past the entropy limit.
SHUF17="service $SHUF:80/tcp algo shuffle hand-size 15"
for ((i = 1; i <= 17; i++)); do SHUF17+=";backend $SHUF:80/tcp 10.9.3.$i"; done
base_setup || fatal rules "cannot apply the base configuration"
# A seed file that others may read: refused, whether an option or a file names it.
echo "$SEED" >"$XS_TMP/seed644.key" && chmod 644 "$XS_TMP/seed644.key"

for t in "${NS_TESTS[@]}"; do
	run_test "$t" "t_$t"
done
finish rules
