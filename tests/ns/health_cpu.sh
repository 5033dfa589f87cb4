#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# The agent's CPU for N backends checked every second (docs/health.md,
# "Cost"): N addresses on a veth in a backend namespace, one listener for
# all of them, one service of N backends on the load balancer's side, and
# `xdpsteer agent IFACE` checking them. Prints the agent's CPU seconds per
# minute from /proc/PID/stat. Needs root.
#
#   tests/ns/health_cpu.sh [N [KIND [SECONDS]]]   (default 500 tcp 60)
set -euo pipefail

N=${1:-500}
KIND=${2:-tcp}
SECS=${3:-60}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
XS=${XS:-$TOP/build/xdpsteer}
R=$$
NS_LB=hcpl-$R
NS_BE=hcpb-$R
IF_LB=hcpl$R
IF_BE=hcpb$R
TMP=$(mktemp -d /tmp/xdpsteer-hcpu.XXXXXX)
SVC=198.19.99.1:8080/tcp

cleanup() {
	set +e
	[ -n "${AGENT:-}" ] && kill "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
	[ -n "${SRV:-}" ] && kill "$SRV" 2>/dev/null && wait "$SRV" 2>/dev/null
	nsenter --net=/run/netns/"$NS_LB" "$XS" detach "$IF_LB" >/dev/null 2>&1
	ip netns del "$NS_LB" 2>/dev/null
	ip netns del "$NS_BE" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

ip netns add "$NS_LB"
ip netns add "$NS_BE"
ip -n "$NS_LB" link add "$IF_LB" type veth peer name "$IF_BE" netns "$NS_BE"
ip -n "$NS_LB" addr add 10.99.0.1/16 dev "$IF_LB"
ip -n "$NS_LB" link set "$IF_LB" up
ip -n "$NS_BE" link set "$IF_BE" up
ip -n "$NS_BE" link set lo up
for ((i = 0; i < N; i++)); do
	echo "addr add 10.99.$((1 + i / 250)).$((1 + i % 250))/16 dev $IF_BE"
done | ip -n "$NS_BE" -batch -
# One listener for every address: accept, answer a GET, close.
nsenter --net=/run/netns/"$NS_BE" python3 -c '
import socket, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8080)); s.listen(4096)
while True:
    c, _ = s.accept()
    try:
        c.settimeout(1); c.recv(512)
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
    c.close()' &
SRV=$!
nsenter --net=/run/netns/"$NS_LB" "$XS" attach "$IF_LB" --xdp-mode skb >/dev/null
{
	echo "service $SVC check $KIND interval 1s timeout 500ms"
	for ((i = 0; i < N; i++)); do echo "backend $SVC 10.99.$((1 + i / 250)).$((1 + i % 250))"; done
} >"$TMP/conf"
chmod 600 "$TMP/conf"
nsenter --net=/run/netns/"$NS_LB" "$XS" apply "$IF_LB" -f "$TMP/conf" >/dev/null
nsenter --net=/run/netns/"$NS_LB" "$XS" agent "$IF_LB" --run-dir "$TMP" >"$TMP/agent.log" 2>&1 &
AGENT=$!
sleep 5 # every backend up (rise 3 at 1 s)
up=$(grep -c " state up " "$TMP/health-$IF_LB" || true)
tick=$(getconf CLK_TCK)
cpu() { awk '{ print $14 + $15, $14, $15 }' "/proc/$AGENT/stat"; }
read -r a ua sa <<<"$(cpu)"
sleep "$SECS"
read -r b ub sb <<<"$(cpu)"
probes=$(awk '/^backend/ { n += $13 } END { print n }' "$TMP/health-$IF_LB")
echo "backends $N ($up up), $KIND checks every 1 s, $SECS s:" \
	"$(awk -v a="$a" -v b="$b" -v t="$tick" -v s="$SECS" 'BEGIN { printf "%.2f CPU seconds per minute (%.2f%% of one CPU)", (b - a) / t * 60 / s, (b - a) / t / s * 100 }')," \
	"$probes probes in all;" \
	"$(awk -v u="$((ub - ua))" -v s="$((sb - sa))" -v t="$tick" -v d="$SECS" 'BEGIN { printf "user %.2f s/min, system %.2f s/min", u / t * 60 / d, s / t * 60 / d }')"
