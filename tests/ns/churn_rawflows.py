#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Rolling TCP flows without sockets, so that every backend holds pinned flows.

The churn test must show that no packet is steered to a backend once its
removal has returned. That check only means something if flows are pinned to
the backend when it goes and keep sending afterwards. Long-lived connections
cannot be those flows (a removed backend resets them), and a pinned flow
never leaves a backend that lives, so new flows must keep arriving: this
keeps --flows flows alive at once, each a bare TCP ACK from SRC:SPORT to
VIP:PORT every --gap seconds for --lifetime seconds, then replaced by a flow
on the next port of the range. The backends answer with a reset, which the
client's stack drops (no socket); nothing is ever closed, so the load
balancer counts them as open. Runs in the client namespace (raw socket, root).
"""
import argparse
import json
import os
import random
import socket
import struct
import time


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ack_segment(src, dst, sport, dport, seq, ack):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, 0x10, 64240, 0, 0)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, len(hdr))
    return hdr[:16] + struct.pack("!H", csum(pseudo + hdr)) + hdr[18:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--vip", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--sports", required=True, help="LO-HI: ports used in turn")
    ap.add_argument("--flows", type=int, default=100, help="flows alive at once")
    ap.add_argument("--lifetime", type=float, default=3.0)
    ap.add_argument("--gap", type=float, default=0.1)
    ap.add_argument("--stop-file", required=True)
    ap.add_argument("--max-seconds", type=float, default=90)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    lo, _, hi = a.sports.partition("-")
    ports = list(range(int(lo), int(hi) + 1))
    rnd = random.Random(f"raw/{a.src}")
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # it never reads
    now = time.monotonic()
    # Staggered birth times, so flows are replaced a few at a time.
    alive = [(ports[i], now - a.lifetime * i / a.flows) for i in range(a.flows)]
    nxt = a.flows
    sent = 0
    deadline = now + a.max_seconds
    while not os.path.exists(a.stop_file) and time.monotonic() < deadline:
        t = time.monotonic()
        for k, (sport, born) in enumerate(alive):
            if t - born > a.lifetime:
                if nxt >= len(ports):
                    raise SystemExit(f"churn_rawflows.py: ran out of ports after {nxt} flows")
                sport, born = ports[nxt], t
                nxt += 1
                alive[k] = (sport, born)
            s.sendto(ack_segment(a.src, a.vip, sport, a.port, rnd.getrandbits(32),
                                 rnd.getrandbits(32)), (a.vip, 0))
            sent += 1
        time.sleep(max(0.0, a.gap - (time.monotonic() - t)))
    s.close()
    with open(a.out + ".tmp", "w") as f:
        json.dump({"sent": sent, "flows": nxt}, f)
    os.rename(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
