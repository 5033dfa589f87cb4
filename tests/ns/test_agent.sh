#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# xdpsteer agent on one host (docs/fleet.md): file mode, etcd mode with its
# status key, a detach and re-attach under it, etcd's compaction while it was
# away, SIGKILL, etcd users and TLS. bird2 runs in the namespace without a
# peer, to show what it would announce. The fleet behind a router is
# test_fleet.sh. Needs root; about 40 s; V=1 for detail.
#
#   tests/ns/test_agent.sh [--list | TEST...]   (default: every t_* function, in order)
set -euo pipefail

XS_SUITE=agent
if [ -z "${XS_AGENT_WATCHDOG:-}" ]; then
	export XS_AGENT_WATCHDOG=1
	exec timeout -k 20 "${XS_AGENT_TIMEOUT:-240}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "${BASH_SOURCE[0]}")/state.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh"

SEED=5eed0000000000000000000000a9e470
VIP=10.9.0.10
SVC=$VIP:80/tcp
ETCD=http://127.0.0.1:2379
PREFIX=/xdpsteer/agent-$RUN_ID
T=""

# ---- helpers ----------------------------------------------------------------

# file NAME LINES...: a configuration file (not world-writable); prints its path.
file() {
	local f=$XS_TMP/$1
	shift
	printf '%s\n' "$@" >"$f.tmp"
	chmod 644 "$f.tmp"
	mv "$f.tmp" "$f"
	echo "$f"
}
etcdctl_() { run_in "$NS_STEER" etcdctl --endpoints "$ETCD" "$@"; }
# put KEY TEXT...: one line each; prints the revision.
put() {
	printf '%s\n' "${@:2}" >"$XS_TMP/put.txt"
	etcd_put "$NS_STEER" "$ETCD" "$1" "$XS_TMP/put.txt"
}
status_key() { # HOST: the status key's value, or "" when there is none
	etcdctl_ get --print-value-only "$PREFIX/status/$1"
}
services() { xs service list "$IF_STEER" --json | pyx '[[s["service"], sorted([b["backend"], b["weight"]] for b in s["backends"])] for s in d]' -; }
bird_routes() { birdc -s "$XS_TMP/bird.ctl" show route 2>/dev/null | grep -c '/32' || true; }

start_bird() {
	# bird refuses an include whose directory does not exist (an empty match is fine).
	mkdir -p "$XS_TMP/erun"
	cat >"$XS_TMP/bird.conf" <<-EOF
		router id 10.255.0.1;
		protocol device { scan time 10; }
		protocol static xdpsteer4 {
			ipv4;
			check link;
			include "$XS_TMP/erun/bird-vips4*.conf";
		}
	EOF
	daemon bird "$NS_STEER" bird -f -c "$XS_TMP/bird.conf" -s "$XS_TMP/bird.ctl" -P "$XS_TMP/bird.pid"
	wait_file "$XS_TMP/bird.ctl" 10
}

# The etcd-mode agent of these tests: host h1, a short lease, bird.
start_etcd_agent() {
	daemon eagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$ETCD" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/erun" --lease-ttl 2 --bird "$XS_TMP/bird.ctl" "$@"
}

# ---- 1. File mode -------------------------------------------------------------

t_file_mode() {
	local fleet host
	T=$XS_TMP/file
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	fleet=$(file fleet.conf "# the fleet" "service $SVC" "backend $SVC 10.9.1.1")
	host=$(file host.conf "# this host's own" "backend $SVC 10.9.1.2 weight 2")
	daemon fagent "$NS_STEER" "$XS" agent "$IF_STEER" -f "$fleet" -f "$host" --run-dir "$XS_TMP/frun"
	wait_status "$XS_TMP/frun" 'd["revision"] == 1 and d["applied"] == 1 and d["error"] is None'
	assert_eq "services" "$(services)" "[[\"$SVC\", [[\"10.9.1.1\", 1], [\"10.9.1.2\", 2]]]]"
	assert_eq "VIPs" "$(status "$XS_TMP/frun" | pyx 'd["vips"]' -)" "[\"$VIP\"]"
	# Without -j the status is text, like every command's; -p is the JSON indented.
	"$XS" agent status --run-dir "$XS_TMP/frun" >"$T.status" || fail "agent status (text) failed"
	sed 's/^/  | /' "$T.status"
	for want in "^agent .* (pid [0-9]*), started 20" "^  revision 1, applied 1$" \
		"^  interface $IF_STEER: attached, revision 1$" "^  not drained, .*; VIPs $VIP$"; do
		grep -q "$want" "$T.status" || fail "agent status (text) lacks /$want/"
	done
	"$XS" agent status --run-dir "$XS_TMP/frun" -p >"$T.status" || fail "agent status -p failed"
	assert_eq "agent status -p: the host" "$(pyx 'd["host"]' "$T.status")" "$(hostname)"
	[ "$(wc -l <"$T.status")" -gt 10 ] || fail "agent status -p is not indented: $(cat "$T.status")"
	# Not under journald: every log line starts with the time.
	grep -q "${AT}agent: following files for $IF_STEER" "$XS_TMP/fagent.log" ||
		fail "the agent's first line has no time: $(head -n 1 "$XS_TMP/fagent.log")"
	echo "ok: agent status text, -j, -p; log lines timed ($(head -c 24 "$XS_TMP/fagent.log"))"

	# An edit in place is followed.
	printf '%s\n' "backend $SVC 10.9.1.2 weight 3" >"$host"
	wait_status "$XS_TMP/frun" 'd["applied"] == 2'
	assert_eq "services after an edit" "$(services)" "[[\"$SVC\", [[\"10.9.1.1\", 1], [\"10.9.1.2\", 3]]]]"

	# A bad edit is reported at its file and line, and changes nothing.
	dump_state "$T.before"
	printf '%s\n' "service $SVC" "backend $SVC 10.9.1.1 weight 0" >"$fleet"
	wait_status "$XS_TMP/frun" "d['revision'] == 3 and d['applied'] == 2 and d['error'].startswith('$fleet:2: weight')"
	assert_same_state "a bad edit" "$T.before"

	# A save by rename, as editors do, is followed.
	file fleet.conf "service $SVC" "backend $SVC 10.9.1.1" "backend $SVC 10.9.1.3" >/dev/null
	wait_status "$XS_TMP/frun" 'd["applied"] == 4 and d["error"] is None'
	assert_eq "services after a rename-over save" "$(services)" \
		"[[\"$SVC\", [[\"10.9.1.1\", 1], [\"10.9.1.2\", 3], [\"10.9.1.3\", 1]]]]"

	# A second agent on the same run directory is refused.
	expect_error "a second agent on one --run-dir" "another agent is running" \
		nsenter --net=/run/netns/"$NS_STEER" -- "$XS" agent "$IF_STEER" -f "$fleet" --run-dir "$XS_TMP/frun"

	# SIGTERM: a clean stop, the data plane as it was; a new agent changes nothing.
	dump_state "$T.before"
	stop_daemon fagent TERM
	grep -q "${AT}agent: stopped; the data plane keeps revision 4$" "$XS_TMP/fagent.log" ||
		fail "no clean stop: $(tail -n 2 "$XS_TMP/fagent.log")"
	assert_same_state "after SIGTERM" "$T.before"
	: >"$XS_TMP/fagent.log"
	daemon fagent "$NS_STEER" "$XS" agent "$IF_STEER" -f "$fleet" -f "$host" --run-dir "$XS_TMP/frun"
	wait_status "$XS_TMP/frun" 'd["applied"] == 1'
	grep -q "$AT  no changes$" "$XS_TMP/fagent.log" || fail "the new agent changed something: $(cat "$XS_TMP/fagent.log")"
	assert_same_state "after a new agent took over" "$T.before"
	stop_daemon fagent TERM
}

t_usage() {
	expect_error "an interface twice" "interface $IF_STEER is named twice" "$XS" agent "$IF_STEER" "$IF_STEER"
	expect_error "both sources" "follow etcd .*, files .*, or neither .*, not both" "$XS" agent "$IF_STEER" --etcd "$ETCD" -f x
	expect_error "a request to no agent" "no agent answers at" "$XS" agent status --run-dir "$XS_TMP/none"
	local rc=0
	"$XS" agent "$IF_STEER" -j >"$XS_TMP/u.out" 2>"$XS_TMP/u.err" || rc=$?
	assert_eq "--json on the daemon: a usage error" "$rc $(head -n 1 "$XS_TMP/u.err")" \
		"2 xdpsteer: agent: --json and --pretty go with a request (agent status, drain or undrain), not with the daemon"
	expect_error "a bad endpoint" "not an http:// or https:// URL" \
		nsenter --net=/run/netns/"$NS_STEER" -- "$XS" agent "$IF_STEER" --etcd 127.0.0.1:2379 --run-dir "$XS_TMP/u"
}

# ---- 2. etcd mode -------------------------------------------------------------------

t_etcd_mode() {
	local rev
	T=$XS_TMP/etcd
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	start_etcd etcd "$NS_STEER" "$ETCD"
	start_bird
	put "$PREFIX/hosts/h1" "# h1's own" "backend $SVC 10.9.1.2" >/dev/null
	rev=$(put "$PREFIX/fleet" "service $SVC" "backend $SVC 10.9.1.1")
	start_etcd_agent
	wait_status "$XS_TMP/erun" "d['applied'] == $rev and d['announced']"
	status_key h1 | tee "$T.status.json"
	assert_eq "the status key's fields" "$(pyx 'sorted(d)' "$T.status.json")" \
		'["announced", "applied", "below_min_healthy", "bgp_error", "drained", "error", "etcd", "etcd_error", "host", "interfaces", "pid", "revision", "started", "vips"]'
	assert_eq "revision, applied, error, interfaces, VIPs" \
		"$(pyx '[d["revision"], d["applied"], d["error"], d["interfaces"], d["vips"]]' "$T.status.json")" \
		"[$rev, $rev, null, [{\"applied\": $rev, \"attached\": true, \"error\": null, \"name\": \"$IF_STEER\"}], [\"$VIP\"]]"
	assert_eq "services from both keys" "$(services)" "[[\"$SVC\", [[\"10.9.1.1\", 1], [\"10.9.1.2\", 1]]]]"
	assert_eq "routes bird would announce" "$(bird_routes)" 1
	birdc -s "$XS_TMP/bird.ctl" show route | sed 's/^/  bird: /'

	# A bad revision: reported at its key and line; the last good one stays.
	dump_state "$T.before"
	rev=$(put "$PREFIX/fleet" "service $SVC" "backend $SVC 10.9.1.1" "bogus line")
	wait_status "$XS_TMP/erun" "d['revision'] == $rev and (d['error'] or '').startswith('etcd:$PREFIX/fleet:3: unknown keyword')"
	assert_same_state "a bad revision" "$T.before"
	assert_eq "still announced" "$(bird_routes)" 1
	# A value that is not text: the parser would stop at its NUL, so it is refused whole.
	printf 'service %s\0backend %s 10.9.1.9\n' "$SVC" "$SVC" >"$T.nul"
	rev=$(etcd_put "$NS_STEER" "$ETCD" "$PREFIX/fleet" "$T.nul")
	wait_status "$XS_TMP/erun" "d['revision'] == $rev and (d['error'] or '').startswith('etcd:$PREFIX/fleet:1: binary data')"
	assert_same_state "a value with a NUL byte" "$T.before"
	rev=$(put "$PREFIX/fleet" "service $SVC" "backend $SVC 10.9.1.1" "backend $SVC 10.9.1.3")
	wait_status "$XS_TMP/erun" "d['applied'] == $rev and d['error'] is None"
}

t_detach_reattach() {
	local rev
	rev=$(status "$XS_TMP/erun" | pyx 'd["applied"]' -)
	xs detach "$IF_STEER" >/dev/null
	wait_status "$XS_TMP/erun" 'not d["interfaces"][0]["attached"] and not d["announced"] and d["applied"] == 0' 5
	assert_eq "routes bird would announce with the data plane detached" "$(bird_routes)" 0
	attach --xdp-mode skb --seed "$SEED" >/dev/null
	wait_status "$XS_TMP/erun" "d['applied'] == $rev and d['announced']" 5
	assert_eq "services put back on the new attachment" "$(services)" \
		"[[\"$SVC\", [[\"10.9.1.1\", 1], [\"10.9.1.2\", 1], [\"10.9.1.3\", 1]]]]"
	assert_eq "routes bird would announce again" "$(bird_routes)" 1
}

# ---- 3. etcd compacted its history while the agent was away ----------------------

t_compaction() {
	local r1 r2
	T=$XS_TMP/compact
	kill -STOP "$(cat "$XS_TMP/eagent.pid")"
	stop_daemon etcd TERM
	start_etcd etcd "$NS_STEER" "$ETCD"
	r1=$(put "$PREFIX/fleet" "service $SVC" "backend $SVC 10.9.1.1 weight 2")
	r2=$(put "$PREFIX/fleet" "service $SVC" "backend $SVC 10.9.1.1 weight 3")
	etcdctl_ compact "$r2" >/dev/null
	echo "while the agent was stopped: etcd restarted, revisions $r1 and $r2 written, history compacted to $r2"
	kill -CONT "$(cat "$XS_TMP/eagent.pid")"
	wait_status "$XS_TMP/erun" "d['applied'] == $r2 and d['error'] is None" 10
	grep -q "${AT}agent: etcd has compacted its history" "$XS_TMP/eagent.log" ||
		fail "the agent did not read the keys anew: $(tail -n 5 "$XS_TMP/eagent.log")"
	assert_eq "revision $r1 skipped: the newest applied at once" \
		"$(grep -c "${AT}plan for $IF_STEER from etcd:$PREFIX at revision $r1:" "$XS_TMP/eagent.log" || true)" 0
	assert_eq "services" "$(services)" "[[\"$SVC\", [[\"10.9.1.1\", 3], [\"10.9.1.2\", 1]]]]"
	# The lease ran out while the agent was stopped: it takes a new one.
	local i
	for ((i = 0; i < 100; i++)); do [ -n "$(status_key h1)" ] && break; sleep 0.05; done
	assert_eq "status key back, at revision" "$(status_key h1 | pyx 'd["applied"]' -)" "$r2"
}

# ---- 4. SIGKILL: the VIP is withdrawn, the data plane runs on ----------------------

t_sigkill() {
	T=$XS_TMP/kill
	dump_state "$T.before"
	stop_daemon eagent KILL
	local i
	for ((i = 0; i < 40; i++)); do [ "$(bird_routes)" = 0 ] && break; sleep 0.05; done
	assert_eq "routes bird would announce after SIGKILL" "$(bird_routes)" 0
	if ip -n "$NS_STEER" link show xsvip0 >/dev/null 2>&1; then fail "xsvip0 outlived the agent"; fi
	sleep 3
	assert_eq "the status key, once its lease ran out" "$(status_key h1)" ""
	assert_same_state "after SIGKILL" "$T.before"
	start_etcd_agent
	wait_status "$XS_TMP/erun" 'd["announced"]'
}

# ---- 5. etcd users: a password, a token that expires ---------------------------------

t_etcd_user() {
	local url=http://127.0.0.1:2579 rev
	T=$XS_TMP/user
	start_etcd etcdu "$NS_STEER" "$url" --auth-token simple --auth-token-ttl 2
	run_in "$NS_STEER" etcdctl --endpoints "$url" user add root:s3cret >/dev/null
	run_in "$NS_STEER" etcdctl --endpoints "$url" role add root >/dev/null
	run_in "$NS_STEER" etcdctl --endpoints "$url" user grant-role root root >/dev/null
	run_in "$NS_STEER" etcdctl --endpoints "$url" auth enable >/dev/null
	printf 'service %s\nbackend %s 10.9.1.5\n' "$SVC" "$SVC" |
		run_in "$NS_STEER" etcdctl --endpoints "$url" --user root:s3cret put "$PREFIX/fleet" >/dev/null
	echo s3cret >"$T.pw"
	chmod 600 "$T.pw"
	stop_daemon eagent TERM
	daemon uagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$url" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/urun" --user root --password-file "$T.pw"
	wait_status "$XS_TMP/urun" 'd["applied"] > 0 and d["error"] is None and d["etcd_error"] is None'
	assert_eq "services" "$(services)" "[[\"$SVC\", [[\"10.9.1.5\", 1]]]]"
	# The token lives 2 s: what the agent writes after that needs a new one.
	sleep 3
	printf 'service %s\nbackend %s 10.9.1.6\n' "$SVC" "$SVC" |
		run_in "$NS_STEER" etcdctl --endpoints "$url" --user root:s3cret put "$PREFIX/fleet" >/dev/null
	wait_status "$XS_TMP/urun" 'd["vips"] and d["error"] is None' 5
	assert_eq "services after the token expired" "$(services)" "[[\"$SVC\", [[\"10.9.1.6\", 1]]]]"
	run_in "$NS_STEER" etcdctl --endpoints "$url" --user root:s3cret get --print-value-only "$PREFIX/status/h1"
	assert_true "the status key, written with a renewed token" \
		"$(run_in "$NS_STEER" etcdctl --endpoints "$url" --user root:s3cret get --print-value-only "$PREFIX/status/h1" | pyx 'd["error"] is None and d["etcd_error"] is None' -)"
	stop_daemon uagent TERM
	# A wrong password: refused, said, nothing applied.
	dump_state "$T.before"
	daemon wagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$url" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/wrun" --user root:wrong
	wait_status "$XS_TMP/wrun" "'authentication failed' in (d['etcd_error'] or '') and d['applied'] == 0"
	stop_daemon wagent TERM
	assert_same_state "a refused user" "$T.before"
	stop_daemon etcdu TERM
}

# ---- 6. etcd over TLS, with a client certificate --------------------------------------

t_etcd_tls() {
	local url=https://127.0.0.1:2679 d=$XS_TMP/pki
	T=$XS_TMP/tls
	command -v openssl >/dev/null || fail "openssl is missing"
	mkdir -p "$d"
	(
		cd "$d"
		openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=xs-test-ca -keyout ca.key -out ca.pem
		openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr
		# etcd's own gateway presents the server certificate as a client.
		printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >server.ext
		openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext -out server.pem
		openssl req -newkey rsa:2048 -nodes -subj /CN=agent -keyout client.key -out client.csr
		printf 'extendedKeyUsage=clientAuth\n' >client.ext
		openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile client.ext -out client.pem
	) >/dev/null 2>&1 || fail "openssl could not make the test certificates"
	start_etcd etcdt "$NS_STEER" "$url" --cert-file "$d/server.pem" --key-file "$d/server.key" \
		--trusted-ca-file "$d/ca.pem" --client-cert-auth
	printf 'service %s\nbackend %s 10.9.1.7\n' "$SVC" "$SVC" |
		run_in "$NS_STEER" etcdctl --endpoints "$url" --cacert "$d/ca.pem" --cert "$d/client.pem" \
			--key "$d/client.key" put "$PREFIX/fleet" >/dev/null
	daemon tagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$url" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/trun" --cacert "$d/ca.pem" --cert "$d/client.pem" --key "$d/client.key"
	wait_status "$XS_TMP/trun" 'd["applied"] > 0 and d["error"] is None and d["etcd_error"] is None'
	assert_eq "services, read over TLS" "$(services)" "[[\"$SVC\", [[\"10.9.1.7\", 1]]]]"
	stop_daemon tagent TERM
	# Without a client certificate etcd refuses the agent; without the CA, the agent refuses etcd.
	dump_state "$T.before"
	daemon nagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$url" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/nrun" --cacert "$d/ca.pem"
	wait_status "$XS_TMP/nrun" 'd["etcd_error"] is not None and d["applied"] == 0'
	echo "without a client certificate: $(status "$XS_TMP/nrun" | pyx 'd["etcd_error"]' -)"
	stop_daemon nagent TERM
	daemon cagent "$NS_STEER" "$XS" agent "$IF_STEER" --etcd "$url" --prefix "$PREFIX" --host h1 \
		--run-dir "$XS_TMP/crun" --cert "$d/client.pem" --key "$d/client.key"
	wait_status "$XS_TMP/crun" 'd["etcd_error"] is not None and d["applied"] == 0'
	echo "without the CA: $(status "$XS_TMP/crun" | pyx 'd["etcd_error"]' -)"
	stop_daemon cagent TERM
	assert_same_state "refused TLS" "$T.before"
	stop_daemon etcdt TERM
}

ns_needs detach_reattach etcd_mode
ns_needs compaction etcd_mode
ns_needs sigkill etcd_mode
ns_needs etcd_user etcd_mode

# ---------------------------------------------------------------------------
main() {
	local t
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	for t in etcd etcdctl bird birdc; do
		command -v "$t" >/dev/null || fatal "$XS_SUITE" "missing tool: $t (make deps)"
	done
	setup_testbed || fatal "$XS_SUITE" "cannot build the testbed (veth, netns)"
	for t in "${NS_TESTS[@]}"; do
		run_test "$t" "t_$t"
	done
	finish "$XS_SUITE"
}

[ "${XS_AGENT_NO_MAIN:-}" = 1 ] || main "$@"
