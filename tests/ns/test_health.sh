#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Health checks (docs/health.md): five backends serving HTTP behind xdpsteer,
# 200 clients connecting in a loop, and `xdpsteer agent IFACE` checking the
# state the interface has (no file, no etcd). A backend's server is killed:
# it must be out within fall x interval + timeout, then take no new
# connection, with no client error but those it caused before it was out.
# Restarted, it must come back after rise checks to exactly its old slots
# (`xdpsteer lookup` of many flows identical to before). A flapping backend
# is damped; a file re-applied, or a new revision in etcd, keeps a down
# backend out; the udp and dns kinds work; bad settings in a file are
# refused with FILE:LINE, changing nothing; a service below min-healthy has
# its VIP withdrawn from a bird2 router. Needs root; about 95 s; V=1 for detail.
#
#   tests/ns/test_health.sh [--list | TEST...]   (default: every t_* function, in order)
#
# Testbed: $NS_CL (client), $NS_LB (xdpsteer + agent), $NS_BE1..5 (HTTP on
# :8080, the VIP on lo, xdpsteer decap), $NS_RT (a bird2 router), one bridge
# in $NS_SW. ipip encap.
set -euo pipefail

XS_SUITE=health
if [ -z "${XS_HC_WATCHDOG:-}" ]; then
	export XS_HC_WATCHDOG=1
	exec timeout -k 20 "${XS_HC_TIMEOUT:-300}" bash "$0" "$@"
fi

# shellcheck source=tests/ns/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/ns/state.sh
. "$(dirname "${BASH_SOURCE[0]}")/state.sh"
# shellcheck source=tests/ns/agent_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/agent_lib.sh"

DRIVE=$XS_TOP/tests/ns/health_drive.py
R=$RUN_ID
NS_SW=hcw-$R
NS_CL=hcc-$R
NS_LB=hcl-$R
IF_CL=hcc$R
IF_LB=hcl$R
BES=(1 2 3 4 5)
NS_RT=mhr-$R # the router, for t_min_healthy_withdraws
IF_RT=mhr$R
be_ns() { echo "hc$1-$R"; }
be_if() { echo "hc$1$R"; }
SEG=198.18.9
CL=$SEG.2
RT=$SEG.3
LB=$SEG.10
be4() { echo "$SEG.10$1"; }
VIP=198.19.9.1
PORT=8080
SVC=$VIP:$PORT/tcp
SEED=5eed00000000000000000000000009c1
# Short timings keep the test short: out within FALL x INTERVAL + TIMEOUT = 1.2 s,
# the commit that takes it out included (about 100 ms here: the data plane's
# transaction waits for an RCU grace period).
INTERVAL=300ms
TIMEOUT=300ms
RISE=3
FALL=3
BOUND_MS=$((FALL * 300 + 300))
N_LOOKUP=400
T=""

# ---- testbed ----------------------------------------------------------------

setup_health_testbed() {
	local i ns
	xs_tmp hc || return 1
	bridge_add && ns_add "$NS_CL" && ns_add "$NS_LB" || return 1
	for i in "${BES[@]}"; do ns_add "$(be_ns "$i")" || return 1; done
	ns_add "$NS_RT" || return 1
	bridge_port "$NS_CL" "$IF_CL" "$CL" && bridge_port "$NS_LB" "$IF_LB" "$LB" || return 1
	for i in "${BES[@]}"; do bridge_port "$(be_ns "$i")" "$(be_if "$i")" "$(be4 "$i")" || return 1; done
	bridge_port "$NS_RT" "$IF_RT" "$RT" || return 1
	bridge_port_xdp "$IF_LB" "$(pass_prog)" || return 1
	run_in "$NS_CL" ethtool -K "$IF_CL" tx off >/dev/null || return 1
	ip -n "$NS_CL" route add "$VIP/32" via "$LB"
	run_in "$NS_LB" sysctl -qw net.ipv4.conf.all.forwarding=1 || return 1
	for i in "${BES[@]}"; do
		ns=$(be_ns "$i")
		backend_vips "$ns" "$(be_if "$i")" "$VIP" || return 1
		decap_attach_in "$ns" "$(be_if "$i")" >/dev/null || return 1
	done
}

lb() { xs_in "$NS_LB" "$@"; }

# serve I [--flap]: backend I's HTTP server, in the background as BG_SRV<I>.
serve() {
	local i=$1
	shift
	rm -f "$T.ready$i"
	bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
		"$PYTHON" "$DRIVE" serve --id "$(be4 "$i")" --port "$PORT" --ready "$T.ready$i" "$@"
	wait_file "$T.ready$i" 10
}
unserve() {
	local v=BG_SRV$1
	kill -9 "${!v}" 2>/dev/null || true
	wait "${!v}" 2>/dev/null || true
}

# lb_setup [SERVICE KEYS...]: attach, the service with a check, the five backends.
lb_setup() {
	local i
	xs_detach_quiet "$NS_LB" "$IF_LB"
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
	lb service add "$IF_LB" "$SVC" --check http --interval "$INTERVAL" --timeout "$TIMEOUT" \
		--rise "$RISE" --fall "$FALL" --check-path /health --min-healthy 4 "$@" >/dev/null
	for i in "${BES[@]}"; do lb backend add "$IF_LB" "$SVC" "$(be4 "$i")" >/dev/null; done
}

# agent_start [ARGS...]: `xdpsteer agent IFACE ARGS`, the running state only; its log in $T.agent.
agent_start() {
	mkdir -p "$XS_TMP/run"
	bg_start AGENT nsenter --net=/run/netns/"$NS_LB" -- ${XS_HC_AGENT_WRAP:-} "${XS_HC_AGENT:-$XS}" agent "$IF_LB" \
		--run-dir "$XS_TMP/run" "$@" >"$T.agent" 2>&1
}
agent_stop() {
	kill "$BG_AGENT" 2>/dev/null || true
	wait "$BG_AGENT" 2>/dev/null || true
}

# health ADDR: the backend's health as `service list --json` shows it.
health() {
	lb service list "$IF_LB" --json --run-dir "$XS_TMP/run" |
		pyx "[b['health'] for s in d for b in s['backends'] if b['backend'] == '$1'][0]" -
}

# wait_health ADDR STATE SECONDS: polled in the agent's health file (service
# list reads the same file, but takes a CLI and a python start each time).
wait_health() {
	local k f=$XS_TMP/run/health-$IF_LB
	for ((k = 0; k < $3 * 200; k++)); do
		grep -q "^backend $SVC $1 state $2 " "$f" 2>/dev/null && return 0
		sleep 0.005
	done
	fail "$1 is $(health "$1") after $3 s, not $2"
}

# lookups OUT: what `xdpsteer lookup` says of N_LOOKUP flows never seen.
lookups() {
	"$PYTHON" "$XS_TOP/tests/ns/lb_traffic.py" predict --ns "$NS_LB" --iface "$IF_LB" --xs "$XS" \
		--dst "$VIP" --dport "$PORT" --sports "20000-$((20000 + N_LOOKUP - 1))" --src "$CL" \
		--jobs 2 --out "$1.json"
	pyx "'\\n'.join('%s %s %s' % (f, v['backend'], v['slot']) for f, v in sorted(d.items()))" "$1.json" >"$1"
}

# moved_live BEFORE AFTER DEAD: flows of backends other than DEAD whose backend
# differs between two `lookups` files.
moved_live() {
	paste -d' ' "$1" "$2" | awk -v d="$3" '$2 != d && $2 != $5' | wc -l
}

# ---- tests ---------------------------------------------------------------------

# The check keys: kept in the running state, printed by show and service list.
t_keys() {
	T=$XS_TMP/keys
	lb_setup --on-down redecide
	lb show "$IF_LB" | grep "^service" | tee "$T.show"
	grep -q " check http interval 300ms timeout 300ms check-path /health min-healthy 4" "$T.show" ||
		fail "show does not print the check"
	assert_eq "service list --json check" "$(lb service list "$IF_LB" --json | pyx 'd[0]["check"]' -)" \
		"check http interval 300ms timeout 300ms check-path /health min-healthy 4"
	# show's output applies back to the same state: nothing to do.
	lb show "$IF_LB" >"$T.conf"
	chmod 600 "$T.conf"
	lb apply "$IF_LB" -f "$T.conf" | tee "$T.apply"
	grep -q "no changes" "$T.apply" || fail "show's own output is not a no-op"
	assert_eq "health before any agent" "$(health "$(be4 1)")" unchecked
}

now() { date +%s.%N; }

# Kill one backend's server under 200 clients; restore it.
t_kill_restore() {
	local i dead t_kill t_out t_up ms cpid res late
	T=$XS_TMP/kill
	dead=$(be4 3)
	lb_setup
	for i in "${BES[@]}"; do serve "$i"; done
	agent_start
	for i in "${BES[@]}"; do wait_health "$(be4 "$i")" up 5; done
	lookups "$T.before"
	run_in "$NS_CL" "$PYTHON" "$DRIVE" clients --vip "$VIP" --port "$PORT" --clients 200 \
		--seconds 8 --pause 0.3 --out "$T.clients.json" &
	cpid=$!
	sleep 2
	t_kill=$(now)
	unserve 3
	wait_health "$dead" down 5
	t_out=$(now)
	ms=$(awk -v a="$t_kill" -v b="$t_out" 'BEGIN { print int((b - a) * 1000) }')
	echo "detection: $dead out $ms ms after its server died (bound: $BOUND_MS ms, + 20 ms polling)"
	[ "$ms" -le $((BOUND_MS + 20)) ] || fail "out after $ms ms, more than $BOUND_MS ms"
	# The metrics say the same, in a form promtool accepts.
	lb stats "$IF_LB" --format prometheus --run-dir "$XS_TMP/run" >"$T.prom"
	promtool check metrics <"$T.prom" || fail "promtool rejects the health metrics"
	assert_eq "xdpsteer_backend_healthy of $dead" \
		"$(awk -v b="backend=\"$dead\"" 'index($0, "xdpsteer_backend_healthy{") == 1 && index($0, b) { print $2 }' "$T.prom")" 0
	assert_eq "xdpsteer_backend_healthy of the four others" \
		"$(awk 'index($0, "xdpsteer_backend_healthy{") == 1 { s += $2 } END { print s }' "$T.prom")" 4
	awk -v b="backend=\"$dead\"" -v k="$t_kill" 'index($0, "xdpsteer_backend_health_last_change_timestamp_seconds{") == 1 &&
		index($0, b) { if ($2 + 1 < k) exit 1; found = 1 } END { exit !found }' "$T.prom" ||
		fail "the last change of $dead is not the kill's"
	wait "$cpid"
	grep "health: .*$dead" "$T.agent"
	# The clients' times are from their start: the kill and the out on that clock.
	local k o
	k=$(pyx "round($t_kill - d['wall0'], 3)" "$T.clients.json")
	o=$(pyx "round($t_out - d['wall0'], 3)" "$T.clients.json")
	res=$(pyx "(lambda c: '%d connections, %d errors (%d ended before the kill, %d between the kill and the out, %d started after)' % (len(c), sum('error' in r for r in c), sum('error' in r and r['end'] < $k for r in c), sum('error' in r and r['end'] >= $k and r['t'] <= $o for r in c), sum('error' in r and r['t'] > $o for r in c)))(d['connections'])" "$T.clients.json")
	echo "clients: $res (kill at t=$k s, out at t=$o s)"
	echo "$res" >"$T.counts"
	pyx "sorted({r['error'] for r in d['connections'] if 'error' in r})" "$T.clients.json"
	assert_eq "client errors that ended before the kill" \
		"$(pyx "sum('error' in r and r['end'] < $k for r in d['connections'])" "$T.clients.json")" 0
	assert_eq "client errors that started after the backend was out" \
		"$(pyx "sum('error' in r and r['t'] > $o for r in d['connections'])" "$T.clients.json")" 0
	pyx "sorted({r['error'] for r in d['connections'] if 'error' in r})" "$T.clients.json"
	assert_eq "connections to the dead backend after it was out" \
		"$(pyx "sum(r.get('backend') == '$dead' and r['t'] > $o for r in d['connections'])" "$T.clients.json")" 0
	assert_eq "backends serving after it was out" \
		"$(pyx "sorted({r['backend'] for r in d['connections'] if 'backend' in r and r['t'] > $o})" "$T.clients.json")" \
		"[\"$(be4 1)\", \"$(be4 2)\", \"$(be4 4)\", \"$(be4 5)\"]"
	# While it is down, the flows of the four others do not move.
	lookups "$T.during"
	assert_eq "flows of live backends that moved while it was down" \
		"$(moved_live "$T.before" "$T.during" "$dead")" 0
	echo "flows of $dead while it is down: $(grep -c " $dead " "$T.during" || true)"
	# Restore: up after RISE good checks, in its old slots.
	t_up=$(now)
	serve 3
	wait_health "$dead" up 5
	t_out=$(now)
	echo "recovery: $dead back $(awk -v a="$t_up" -v b="$t_out" 'BEGIN { print int((b - a) * 1000) }') ms after its server returned (rise $RISE x $INTERVAL, + the server's start)"
	lookups "$T.after"
	echo "flows of $dead before: $(grep -c " $dead " "$T.before"), after: $(grep -c " $dead " "$T.after")"
	assert_eq "lookups that differ from before the failure (of $N_LOOKUP)" \
		"$(diff "$T.before" "$T.after" | grep -c '^<' || true)" 0
	# The pool is as it was: the flows that failed are looked up in it.
	"$PYTHON" "$XS_TOP/tests/ns/lb_traffic.py" predict --ns "$NS_LB" --iface "$IF_LB" --xs "$XS" \
		--dst "$VIP" --dport "$PORT" --src "$CL" --jobs 2 --out "$T.errs.json" --sports \
		"$(pyx "','.join(str(r['sport']) for r in d['connections'] if 'error' in r) or '1'" "$T.clients.json")"
	assert_eq "failed connections whose flow was the dead backend's" \
		"$(pyx "sorted({v['backend'] for v in d.values()})" "$T.errs.json")" "[\"$dead\"]"
	lb stats "$IF_LB" --run-dir "$XS_TMP/run" | grep -A6 "^service" | grep "$dead"
	assert_eq "stats --json health" "$(lb stats "$IF_LB" --json --run-dir "$XS_TMP/run" |
		pyx "[b['health'] for b in d['services'][0]['backends'] if b['backend'] == '$dead'][0]" -)" up
	agent_stop
	for i in "${BES[@]}"; do unserve "$i"; done
}

# A backend whose check alternates good and bad is never toggled with rise 3, fall 3.
t_flap() {
	local i n
	T=$XS_TMP/flap
	lb_setup
	for i in 1 2 4 5; do serve "$i"; done
	serve 3 --flap
	agent_start
	sleep 6 # 20 probes, alternating
	agent_stop
	grep "health:" "$T.agent" || true
	n=$(grep -c "$(be4 3): \(down\|up again\)" "$T.agent" || true)
	echo "state changes of the flapping backend in about 20 probes: $n"
	assert_eq "state changes of the flapping backend" "$n" 0
	for i in "${BES[@]}"; do unserve "$i"; done
}

# File mode: the agent re-applies its file, and the down backend stays down
# (health is an overlay on every commit); restored, it is back in its slots.
t_file_mode() {
	local i f dead
	T=$XS_TMP/filemode
	dead=$(be4 2)
	f=$T.conf
	xs_detach_quiet "$NS_LB" "$IF_LB"
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
	{
		echo "seed $SEED"
		echo "service $SVC check tcp interval $INTERVAL timeout $TIMEOUT rise $RISE fall $FALL"
		for i in "${BES[@]}"; do echo "backend $SVC $(be4 "$i")"; done
	} >"$f"
	chmod 600 "$f"
	for i in "${BES[@]}"; do serve "$i"; done
	mkdir -p "$XS_TMP/run"
	bg_start AGENT nsenter --net=/run/netns/"$NS_LB" -- "$XS" agent "$IF_LB" -f "$f" \
		--run-dir "$XS_TMP/run" >"$T.agent" 2>&1
	for i in "${BES[@]}"; do wait_health "$(be4 "$i")" up 5; done
	lookups "$T.before"
	unserve 2
	wait_health "$dead" down 5
	# A change of the file: re-applied, with the backend still out.
	echo "# touched" >>"$f"
	sleep 1.5
	grep -c "plan for $IF_LB" "$T.agent" | sed 's/^/plans applied: /'
	assert_eq "flows of $dead after the file was re-applied" \
		"$(lookups "$T.during" && grep -c " $dead " "$T.during" || true)" 0
	assert_eq "$dead in the running state" \
		"$(lb service list "$IF_LB" --json | pyx "[b['health'] for b in d[0]['backends'] if b['backend'] == '$dead'][0]" -)" down
	serve 2
	wait_health "$dead" up 5
	lookups "$T.after"
	assert_eq "lookups that differ from before the failure (of $N_LOOKUP)" \
		"$(diff "$T.before" "$T.after" | grep -c '^<' || true)" 0
	agent_stop
	grep "health:" "$T.agent"
	for i in "${BES[@]}"; do unserve "$i"; done
}

# down_places NAME ALGO FILE W1..W5: a service made by commands with
# slot-count 12 (holes above its slots) and backends of weights W; then
# `agent -f` with a file that names no slot-count and no slots (FILE=bare),
# or show's own output (FILE=shown). The down of backend 2 must move none of
# the other backends' flows, and its return must give back every lookup.
down_places() {
	local name=$1 algo=$2 kind=$3 i f w dead N_LOOKUP=150
	shift 3
	w=("" "$@")
	T=$XS_TMP/places-$name
	f=$T.conf
	dead=$(be4 2)
	xs_detach_quiet "$NS_LB" "$IF_LB"
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
	lb service add "$IF_LB" "$SVC" --algo "$algo" --slot-count 12 --check tcp --interval "$INTERVAL" \
		--timeout "$TIMEOUT" --rise "$RISE" --fall "$FALL" >/dev/null
	for i in "${BES[@]}"; do lb backend add "$IF_LB" "$SVC" "$(be4 "$i")" --weight "${w[i]}" >/dev/null; done
	if [ "$kind" = bare ]; then
		{
			echo "service $SVC algo $algo check tcp interval $INTERVAL timeout $TIMEOUT rise $RISE fall $FALL"
			for i in "${BES[@]}"; do echo "backend $SVC $(be4 "$i") weight ${w[i]}"; done
		} >"$f"
	else
		lb show "$IF_LB" >"$f"
	fi
	chmod 600 "$f"
	for i in "${BES[@]}"; do serve "$i"; done
	rm -f "$XS_TMP/run/health-$IF_LB"
	agent_start -f "$f"
	for i in "${BES[@]}"; do wait_health "$(be4 "$i")" up 5; done
	lookups "$T.before"
	unserve 2
	wait_health "$dead" down 5
	lookups "$T.during"
	grep "^ *[-+~] \|^plan for" "$T.agent" || true
	echo "$name: flows of the live backends: $(grep -vc " $dead " "$T.before"), moved: $(moved_live "$T.before" "$T.during" "$dead")"
	assert_eq "$name: flows of $dead while it is down" "$(grep -c " $dead " "$T.during" || true)" 0
	assert_eq "$name: flows of live backends that moved" "$(moved_live "$T.before" "$T.during" "$dead")" 0
	serve 2
	wait_health "$dead" up 5
	lookups "$T.after"
	assert_eq "$name: lookups that differ from before the failure (of $N_LOOKUP)" \
		"$(diff "$T.before" "$T.after" | grep -c '^<' || true)" 0
	agent_stop
	for i in "${BES[@]}"; do unserve "$i"; done
}

# A down, and an up, move only the flows of that backend, whatever the file
# the agent follows says or omits about places: no slot-count, no slots,
# weights above 1, jump and shuffle, or every place as show prints them.
t_down_bare() { down_places bare_jump jump bare 1 1 1 1 1; }
t_down_weights() { down_places bare_weights jump bare 2 3 1 2 1; }
t_down_shuffle() { down_places bare_shuffle shuffle bare 2 3 1 2 1; }
t_down_shown() { down_places shown_weights jump shown 2 3 1 2 1; }

# show fed to apply while a backend is down (and another drained) changes
# nothing; show marks the down one; a file, even one that lists it as it was
# before it failed, does not bring it back: health is the agent's.
t_show_down() {
	local i dead drained
	T=$XS_TMP/showdown
	dead=$(be4 3)
	drained=$(be4 4)
	lb_setup
	for i in "${BES[@]}"; do serve "$i"; done
	agent_start
	for i in "${BES[@]}"; do wait_health "$(be4 "$i")" up 5; done
	lb show "$IF_LB" >"$T.before.conf"
	chmod 600 "$T.before.conf"
	unserve 3
	wait_health "$dead" down 5
	lb backend drain "$IF_LB" "$SVC" "$drained" >/dev/null
	lb show "$IF_LB" >"$T.conf"
	chmod 600 "$T.conf"
	grep "^backend" "$T.conf"
	lb apply "$IF_LB" -f "$T.conf" --dry-run | tee "$T.dry"
	grep -qx "  no changes" "$T.dry" || fail "show -> apply --dry-run is not a no-op while $dead is down"
	grep -Eq "^backend $SVC $dead weight 1 id [0-9]+ slots [0-9]+  # down \(health check\)$" "$T.conf" ||
		fail "show does not mark $dead down"
	grep -Eq "^backend $SVC $drained weight 1 id [0-9]+ slots [0-9]+ drain$" "$T.conf" ||
		fail "show does not print $drained drained"
	assert_eq "show --json down of $dead" \
		"$(lb show "$IF_LB" --json | pyx "[b['down'] for b in d['services'][0]['backends'] if b['backend'] == '$dead'][0]" -)" true
	lb apply "$IF_LB" -f "$T.conf" | tee "$T.apply"
	grep -qx "  no changes" "$T.apply" || fail "show -> apply is not a no-op while $dead is down"
	# A file from before the failure: it undrains $drained, and leaves $dead down.
	lb apply "$IF_LB" -f "$T.before.conf" | tee "$T.old"
	! grep -q "$dead" "$T.old" || fail "a file changed $dead"
	grep -q "~ backend $SVC $drained: undrain" "$T.old" || fail "the old file did not undrain $drained"
	assert_eq "show --json down of $dead after the old file" \
		"$(lb show "$IF_LB" --json | pyx "[b['down'] for b in d['services'][0]['backends'] if b['backend'] == '$dead'][0]" -)" true
	lookups "$T.during"
	assert_eq "flows of $dead after the old file" "$(grep -c " $dead " "$T.during" || true)" 0
	# The agent brings it back, to its slots.
	serve 3
	wait_health "$dead" up 5
	lb show "$IF_LB" | cmp - "$T.before.conf" || fail "after the return, show differs from before the failure"
	echo "ok: after the return, show is as before the failure"
	agent_stop
	for i in "${BES[@]}"; do unserve "$i"; done
}

# etcd mode: the agent follows a fleet key (docs/fleet.md) and checks what it
# names. A dead backend stays out through a new revision, as in file mode:
# health is an overlay on every commit, whatever the configuration's source.
t_etcd_mode() {
	local i r1 r2 dead etcd=http://127.0.0.1:2379 prefix=/xdpsteer/hc-$R
	T=$XS_TMP/hcetcd
	dead=$(be4 4)
	xs_detach_quiet "$NS_LB" "$IF_LB"
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
	start_etcd etcd "$NS_LB" "$etcd" || fail "etcd did not start"
	{
		echo "seed $SEED"
		echo "service $SVC check tcp interval $INTERVAL timeout $TIMEOUT rise $RISE fall $FALL"
		for i in "${BES[@]}"; do echo "backend $SVC $(be4 "$i")"; done
	} >"$T.fleet"
	r1=$(etcd_put "$NS_LB" "$etcd" "$prefix/fleet" "$T.fleet")
	for i in "${BES[@]}"; do serve "$i"; done
	# No health file of an earlier test: every "up" below is this agent's.
	rm -f "$XS_TMP/run/health-$IF_LB"
	agent_start --etcd "$etcd" --prefix "$prefix" --host h1
	wait_status "$XS_TMP/run" "d['applied'] == $r1 and d['error'] is None" 10
	for i in "${BES[@]}"; do wait_health "$(be4 "$i")" up 5; done
	lookups "$T.before"
	[ "$(grep -c " $dead " "$T.before")" -gt 0 ] || fail "no flow of $dead among $N_LOOKUP"
	unserve 4
	wait_health "$dead" down 5
	lookups "$T.down"
	assert_eq "flows of $dead once it is down" "$(grep -c " $dead " "$T.down" || true)" 0
	# A new revision in etcd, with the backend still dead: applied, and it stays out.
	echo "# revision two" >>"$T.fleet"
	r2=$(etcd_put "$NS_LB" "$etcd" "$prefix/fleet" "$T.fleet")
	wait_status "$XS_TMP/run" "d['applied'] == $r2 and d['error'] is None" 10
	lookups "$T.during"
	assert_eq "flows of $dead after revision $r2" "$(grep -c " $dead " "$T.during" || true)" 0
	assert_eq "$dead in the running state after revision $r2" \
		"$(lb service list "$IF_LB" --json | pyx "[b['health'] for b in d[0]['backends'] if b['backend'] == '$dead'][0]" -)" down
	assert_eq "flows of live backends that moved" \
		"$(moved_live "$T.before" "$T.during" "$dead")" 0
	serve 4
	wait_health "$dead" up 5
	lookups "$T.after"
	assert_eq "lookups that differ from before the failure (of $N_LOOKUP)" \
		"$(diff "$T.before" "$T.after" | grep -c '^<' || true)" 0
	agent_stop
	stop_daemon etcd TERM
	grep "health:\|^plan for" "$T.agent"
	for i in "${BES[@]}"; do unserve "$i"; done
}

# The datagram kinds: udp (a payload and the start of its answer) and dns.
t_udp_dns() {
	local kind svc i
	T=$XS_TMP/udp
	for kind in udp dns; do
		svc=$VIP:53/udp
		xs_detach_quiet "$NS_LB" "$IF_LB"
		attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
		if [ "$kind" = udp ]; then
			lb service add "$IF_LB" "$svc" --check udp --check-send ping --check-reply pong \
				--interval "$INTERVAL" --timeout "$TIMEOUT" >/dev/null
		else
			lb service add "$IF_LB" "$svc" --check dns --interval "$INTERVAL" \
				--timeout "$TIMEOUT" >/dev/null
		fi
		for i in 1 2; do
			lb backend add "$IF_LB" "$svc" "$(be4 "$i")" >/dev/null
			rm -f "$T.ready$i"
			bg_start "SRV$i" nsenter --net=/run/netns/"$(be_ns "$i")" -- \
				"$PYTHON" "$DRIVE" udp --id "$(be4 "$i")" --port 53 --ready "$T.ready$i"
			wait_file "$T.ready$i" 10
		done
		SVC=$svc agent_start
		SVC=$svc wait_health "$(be4 1)" up 5
		SVC=$svc wait_health "$(be4 2)" up 5
		unserve 2
		SVC=$svc wait_health "$(be4 2)" down 5
		echo "ok: $kind: $(grep "$(be4 2)" "$XS_TMP/run/health-$IF_LB")"
		agent_stop
		unserve 1
	done
}

# Bad check settings in a file: FILE:LINE, nothing changed.
t_file_rules() {
	local f
	T=$XS_TMP/rules
	local IF_STEER=$IF_LB NS_STEER=$NS_LB # dump_state reads them
	lb_setup
	dump_state "$T.before"
	f=$T.conf
	printf '%s\n' "seed $SEED" "service $SVC check http interval 200ms timeout 300ms" \
		"backend $SVC $(be4 1)" >"$f"
	chmod 600 "$f"
	if lb apply "$IF_LB" -f "$f" >"$T.out" 2>"$T.err"; then fail "a timeout past the interval was applied"; fi
	cat "$T.err"
	grep -q "^$f:2: service $SVC: timeout 300ms is longer than interval 200ms" "$T.err" ||
		fail "no FILE:LINE error"
	printf '%s\n' "seed $SEED" "service $SVC check tcp expect 200" >"$f"
	if lb apply "$IF_LB" -f "$f" >"$T.out" 2>"$T.err"; then fail "expect on a tcp check was applied"; fi
	cat "$T.err"
	grep -q "^$f:2: service $SVC: expect applies to http checks only, not tcp" "$T.err" ||
		fail "no FILE:LINE error"
	assert_same_state "bad files" "$T.before"
}

# min-healthy with bird2: a router's bird learns the VIP from the agent's bird
# over BGP; with fewer backends up than min-healthy the agent logs "below",
# its status says not announced and the route leaves the router; one backend
# back and the route returns, the log saying "back at".
birdc_in() { run_in "$1" birdc -s "$2" "${@:3}"; }
wait_router_route() { # present|absent SECONDS: the VIP's route in the router's bird
	local k
	for ((k = 0; k < $2 * 20; k++)); do
		if birdc_in "$NS_RT" "$XS_TMP/router/bird.ctl" show route for "$VIP/32" | grep -q "^$VIP/32"; then
			[ "$1" = present ] && return 0
		else
			[ "$1" = absent ] && return 0
		fi
		sleep 0.05
	done
	birdc_in "$NS_RT" "$XS_TMP/router/bird.ctl" show route
	birdc_in "$NS_LB" "$XS_TMP/run/bird.ctl" show protocols all
	cat "$T.agent"
	fail "the router's route to $VIP is not $1 after $2 s"
}
wait_agent_log() { # TEXT SECONDS: wait for TEXT in the agent's log
	local k
	for ((k = 0; k < $2 * 20; k++)); do
		grep -q "$1" "$T.agent" && return 0
		sleep 0.05
	done
	cat "$T.agent"
	fail "the agent did not log '$1' in $2 s"
}
t_min_healthy_withdraws() {
	local i t0 t1 t2 timers='hold time 3; keepalive time 1; connect retry time 1;
		connect delay time 1; error wait time 1, 2; graceful restart off;'
	T=$XS_TMP/mh
	command -v bird >/dev/null || skip "no bird2 (make deps)"
	mkdir -p "$XS_TMP/run" "$XS_TMP/router"
	cat >"$XS_TMP/router/bird.conf" <<-EOF
		router id $RT;
		protocol device { scan time 10; }
		protocol bgp lb { local $RT as 65000; neighbor $LB as 65001; $timers
			ipv4 { import all; export none; }; }
	EOF
	cat >"$XS_TMP/run/bird.conf" <<-EOF
		router id $LB;
		protocol device { scan time 10; }
		protocol static xdpsteer4 {
			ipv4;
			check link;
			include "$XS_TMP/run/bird-vips4*.conf";
		}
		protocol bgp upstream { local $LB as 65001; neighbor $RT as 65000; $timers
			ipv4 { import none; export where proto = "xdpsteer4"; }; }
	EOF
	bg_start RTBIRD nsenter --net=/run/netns/"$NS_RT" -- bird -f -c "$XS_TMP/router/bird.conf" \
		-s "$XS_TMP/router/bird.ctl" -P "$XS_TMP/router/bird.pid"
	bg_start LBBIRD nsenter --net=/run/netns/"$NS_LB" -- bird -f -c "$XS_TMP/run/bird.conf" \
		-s "$XS_TMP/run/bird.ctl" -P "$XS_TMP/run/bird.pid"
	xs_detach_quiet "$NS_LB" "$IF_LB"
	attach_in "$NS_LB" "$IF_LB" --seed "$SEED" >/dev/null
	lb service add "$IF_LB" "$SVC" --check tcp --interval "$INTERVAL" --timeout "$TIMEOUT" \
		--rise 2 --fall 2 --min-healthy 2 >/dev/null
	for i in 1 2 3; do
		serve "$i"
		lb backend add "$IF_LB" "$SVC" "$(be4 "$i")" >/dev/null
	done
	wait_file "$XS_TMP/run/bird.ctl" 10
	agent_start --bird "$XS_TMP/run/bird.ctl" --vip-dev "mhv$R"
	for i in 1 2 3; do wait_health "$(be4 "$i")" up 5; done
	wait_router_route present 15
	t0=$(now)
	unserve 2
	unserve 3
	wait_agent_log "service below min-healthy 2: 1 of 3 backends up" 5
	wait_router_route absent 10
	t1=$(now)
	lb agent status --run-dir "$XS_TMP/run" -j | tee "$T.status"
	assert_eq "announced while below min-healthy" "$(pyx 'd["announced"]' "$T.status")" false
	assert_eq "status: VIPs below min-healthy" "$(pyx 'd["below_min_healthy"]' "$T.status")" "[\"$VIP\"]"
	grep -q "withdrew 1 VIP" "$T.agent" || fail "the agent did not log the withdrawal"
	serve 2
	wait_agent_log "service back at min-healthy 2: 2 of 3 backends up" 5
	wait_router_route present 10
	t2=$(now)
	assert_eq "status: VIPs below min-healthy, after" \
		"$(lb agent status --run-dir "$XS_TMP/run" -j | pyx 'd["below_min_healthy"]' -)" "[]"
	awk -v a="$t0" -v b="$t1" -v c="$t2" \
		'BEGIN { printf "ok: route gone %.1f s after 2 of 3 killed, back %.1f s after one restored\n", b - a, c - b }'
	agent_stop
	for i in 1 2; do unserve "$i"; done
	kill "$BG_RTBIRD" "$BG_LBBIRD" 2>/dev/null || true
	wait "$BG_RTBIRD" "$BG_LBBIRD" 2>/dev/null || true
}

# ---------------------------------------------------------------------------
main() {
	local t t0
	ns_select "$@"
	install_trap
	trap cleanup_lb EXIT
	preflight || fatal "$XS_SUITE" "$PREFLIGHT_REASON"
	command -v ethtool >/dev/null || fatal "$XS_SUITE" "missing tool: ethtool (make deps)"
	command -v etcd >/dev/null || fatal "$XS_SUITE" "missing tool: etcd (make deps)"
	decap_preflight
	setup_health_testbed || fatal "$XS_SUITE" "cannot build the namespace testbed"
	for t in "${NS_TESTS[@]}"; do
		t0=$(date +%s.%N)
		run_test "$t" "t_$t"
		awk -v t="$t" -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "    (%s: %.1f s)\n", t, b - a }'
	done
	finish "$XS_SUITE"
}

[ "${XS_HC_NO_MAIN:-}" = 1 ] || main "$@"
