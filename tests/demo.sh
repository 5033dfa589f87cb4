#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# `make demo`: a self-contained veth/netns testbed that shows xdpsteer at work.
# It attaches xdpsteer, sends UDP flows, shows how they spread over the targets,
# adds and removes a target, asks lookup about one flow, peeks at a pinned map,
# and removes everything it made. Needs root. V=1 shows every command.
set -euo pipefail

# shellcheck source=tests/ns/lib.sh
. "$(dirname "$0")/ns/lib.sh"

FLOWS_N=1000   # flows per round
PKTS=5         # packets per flow

bold() { if [ -t 1 ]; then printf '\033[1m%s\033[0m\n' "$*"; else printf '%s\n' "$*"; fi; }
heading() {
	echo
	bold "== $* =="
}
say() { printf '   %s\n' "$@"; }
# show CMD...: print the command as a user would type it, then run it.
show() {
	printf '\n   $ %s\n' "$*"
	"$@" 2>&1 | sed 's/^/     /'
}
# The CLI in the steering namespace, printed as the operator would run it there.
xsteer() {
	printf '\n   $ xdpsteer %s\n' "$*"
	xs "$@" 2>&1 | sed 's/^/     /'
}

# send_round LABEL FIRST_PORT: FLOWS_N flows (source ports FIRST_PORT...), PKTS
# packets each; print the spread of exactly these packets over the targets.
send_round() {
	local lo=$2 out=$XS_TMP/round.json
	flows count --flows "$CLIENT_IP:$lo-$((lo + FLOWS_N - 1))" --count "$PKTS" >"$out"
	spread "$1" "$out"
}

# spread LABEL FILE: the per-target share of the packets in a `flows count` result.
spread() {
	echo
	"$PYTHON" - "$1" "$2" <<-'EOF'
		import json, sys
		label, d = sys.argv[1], json.load(open(sys.argv[2]))
		delta, sent = d["delta"]["targets"], d["sent"]
		print(f"   {label}: {sent} packets sent")
		for name, n in sorted(delta.items()):
		    pct = 100.0 * n / sent if sent else 0
		    print(f"     {name:<16} {n:6d} packets {pct:5.1f}%  {'#' * round(pct / 2)}")
		other = {k: v for k, v in d["delta"]["counters"].items() if k not in ("flow_new", "flow_hit")}
		c = d["delta"]["counters"]
		print(f"     new flows pinned: {c.get('flow_new', 0)}, packets of pinned flows: "
		      f"{c.get('flow_hit', 0)}" + (f", other counters: {other}" if other else ""))
	EOF
}

main() {
	install_trap
	preflight || {
		echo "demo: cannot run: $PREFLIGHT_REASON" >&2
		exit 1
	}
	setup_testbed
	add_dev_target_if a deliver
	DEV_A=${DEV_PREFIX}a

	heading "xdpsteer demo"
	say "xdpsteer hashes each packet's 5-tuple in XDP and steers the flow to one of N" \
		"targets: CPUs (through a cpumap) or interfaces (through a devmap)."
	say "The testbed (removed again at the end):"
	say "" \
		"  netns $NS_CLIENT                     netns $NS_STEER" \
		"  $IF_CLIENT $CLIENT_IP  ---- veth ---->  $IF_STEER $STEER_IP   <- xdpsteer" \
		"                                             $DEV_A (veth, a dev target later)"
	say "" "The client sends UDP flows to $STEER_IP:$DPORT; each flow is one source port." \
		"Commands shown as \$ xdpsteer ... run inside $NS_STEER" \
		"(nsenter --net=/run/netns/$NS_STEER xdpsteer ...)."

	heading "1. Attach with two CPU targets"
	say "Jump consistent hash picks a slot; the flow is pinned to that target at its first packet."
	xsteer attach "$IF_STEER" --algo jump
	echo "$NS_STEER $IF_STEER" >>"$XS_TMP/attached"
	xsteer target add "$IF_STEER" cpu 0
	xsteer target add "$IF_STEER" cpu 1
	xsteer target list "$IF_STEER"

	heading "2. Send $FLOWS_N flows x $PKTS packets"
	send_round "flow set A ($FLOWS_N new flows, source ports 20000-20999)" 20000
	xsteer stats "$IF_STEER"
	say "" "'dequeued' is counted by a program in the cpumap kthread on the target CPU:" \
		"packets were really processed there. 'load' is what is still queued."

	heading "3. Add a third target: interface $DEV_A"
	xsteer target add "$IF_STEER" dev "$DEV_A"
	say "" "Established flows stay pinned to the target they started on, so they do not move:"
	send_round "flow set A again (pinned)" 20000
	say "" "Fresh flows follow the new mapping: jump hash hands the new slot about 1/3 of them:"
	send_round "flow set B ($FLOWS_N new flows, ports 21000-21999)" 21000

	heading "4. Remove cpu 1"
	xsteer target del "$IF_STEER" cpu 1
	say "" "Flows pinned to cpu 1 lose their pin and are placed again; the others stay put:"
	send_round "flow set A again" 20000
	say "" "Fresh flows spread over the two targets left:"
	send_round "flow set C ($FLOWS_N new flows, ports 22000-22999)" 22000
	xsteer stats "$IF_STEER"

	heading "5. Ask where one flow goes, and why"
	xsteer lookup "$IF_STEER" udp "$CLIENT_IP:20000" "$STEER_IP:$DPORT"
	xsteer lookup "$IF_STEER" udp "$CLIENT_IP:20000" "$STEER_IP:$DPORT" --json
	say "" "The same code decides in the kernel and in lookup, so the answer is exact."

	heading "6. State is pinned in bpffs"
	say "" "status names the directory: $PIN_ROOT/IFACE in the first network namespace," \
		"$PIN_ROOT/netns:COOKIE/IFACE in any other, as here:"
	xsteer status "$IF_STEER"
	local pins
	pins=$(pin_dir "$NS_STEER" "$IF_STEER")
	show ls "$pins"
	say "" "The queue pool's header (algorithm, seed, slots) is key 0 of xs_pool_hdrs:"
	printf '\n   $ bpftool map lookup pinned %s key 0 0 0 0\n' "$pins/xs_pool_hdrs"
	"$BPFTOOL" map lookup pinned "$pins/xs_pool_hdrs" key 0 0 0 0 2>&1 |
		sed 's/^/     /'
	say "" "and its buckets are pool0, bucket b at key b, each naming a target id:"
	printf '\n   $ bpftool map dump pinned %s\n' "$pins/pool0"
	"$BPFTOOL" map dump pinned "$pins/pool0" 2>&1 | sed 's/^/     /'
	say "" "Read as slots (cpu N is id N; dev targets start at 128):"
	"$BPFTOOL" -j map dump pinned "$pins/pool0" |
		"$PYTHON" -c 'import json, sys
d = [e.get("formatted", e) for e in json.load(sys.stdin)]
name = lambda t: "empty (removed)" if t == 0xffffffff else "id %d" % t
print("     " + ", ".join("slot %d -> %s" % (e["key"], name(e["value"]["target"])) for e in d))'

	heading "7. Clean up"
	xsteer detach "$IF_STEER"
	cleanup
	say "" "Removed namespaces $NS_STEER and $NS_CLIENT, their veths and the pins. Done."
}

main "$@"
