# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# shellcheck shell=bash
#
# Daemons for the agent tests (test_agent.sh, test_fleet.sh): etcd, bird2 and
# the agent itself outlive the test that starts them, so they are not
# lib.sh's bg_start processes (ended with their test). Each has its pid in
# $XS_TMP/NAME.pid and its output in $XS_TMP/NAME.log; all of them run in our
# namespaces, whose processes cleanup_lb ends (kill_ns_pids). Source after lib.sh.

# daemon NAME NS CMD...: start CMD in NS in the background.
daemon() {
	local name=$1 ns=$2
	shift 2
	vlog "(daemon $name in $ns) $*"
	nsenter --net=/run/netns/"$ns" -- "$@" >>"$XS_TMP/$name.log" 2>&1 </dev/null &
	echo $! >"$XS_TMP/$name.pid"
}

# The start of an agent's log line outside the journal: the UTC time it was written.
AT='^[0-9]\{4\}-[0-9-]*T[0-9:]*\.[0-9]\{3\}Z '

# alive PID: running (a zombie is not).
alive() { [ -e "/proc/$1" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

# stop_daemon NAME [SIGNAL]: signal it (TERM) and wait up to 10 s until it is gone.
stop_daemon() {
	local pid i
	pid=$(cat "$XS_TMP/$1.pid")
	kill "-${2:-TERM}" "$pid" 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		alive "$pid" || return 0
		sleep 0.05
	done
	fail "$1 (pid $pid) did not stop on SIG${2:-TERM}"
}

# start_etcd NAME NS URLS [ARGS...]: etcd serving clients on URLS (comma-separated,
# the first advertised), its data in $XS_TMP/NAME.data, its peer port on
# 127.0.0.1 one above the first URL's; healthy within 10 s or a failure.
start_etcd() {
	local name=$1 ns=$2 urls=$3 first port i starts
	shift 3
	first=${urls%%,*}
	port=${first##*:}
	# The log is appended to across restarts: wait for one more "ready" line.
	starts=$(grep -c 'ready to serve client requests' "$XS_TMP/$name.log" 2>/dev/null || true)
	starts=${starts:-0}
	daemon "$name" "$ns" etcd --name "$name" --data-dir "$XS_TMP/$name.data" \
		--listen-client-urls "$urls" --advertise-client-urls "$first" \
		--listen-peer-urls "http://127.0.0.1:$((port + 1))" \
		--initial-advertise-peer-urls "http://127.0.0.1:$((port + 1))" \
		--initial-cluster "$name=http://127.0.0.1:$((port + 1))" "$@"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c 'ready to serve client requests' "$XS_TMP/$name.log" 2>/dev/null)" -gt "$starts" ] &&
			return 0
		alive "$(cat "$XS_TMP/$name.pid")" || break
		sleep 0.1
	done
	echo "etcd $name did not start:"
	tail -n 20 "$XS_TMP/$name.log"
	return 1
}

# etcd_put NS URL KEY FILE: FILE's text as KEY's value, through the etcd at URL
# as seen from NS; prints the revision it made.
etcd_put() {
	run_in "$1" "$PYTHON" "$XS_TOP/tests/ns/fleet.py" put --etcd "$2" --key "$3" --file "$4"
}

# status RUN_DIR: what the agent behind RUN_DIR says, through its control
# socket (a path in the file system, so any namespace reaches it).
status() { "$XS" agent status --run-dir "$1" -j; }

# wait_status RUN_DIR EXPR [SECONDS]: until EXPR (python, over the status d) holds.
wait_status() {
	local i
	for ((i = 0; i < ${3:-10} * 20; i++)); do
		[ "$(status "$1" 2>/dev/null | pyx "$2" - 2>/dev/null)" = true ] && { echo "ok: status: $2"; return 0; }
		sleep 0.05
	done
	status "$1" || true
	fail "status never had: $2"
}
