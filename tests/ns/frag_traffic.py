#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""UDP datagrams larger than the path MTU, for tests/ns/test_pmtu.sh.

recv  (in a backend namespace) a UDP socket on VIP:PORT that checks every
      datagram it receives, reassembled by its kernel from the fragments the
      load balancer delivered, and writes, when it ends, {"id": ID,
      "datagrams": {"SRC:SPORT/SEQ": length}, "bad": [...]}.
send  (in the client namespace) for each source address and port, --count
      datagrams of --size bytes to VIP:PORT; the sending kernel fragments
      them (the socket does not set DF). A datagram is "XSF SRC SPORT SEQ\\n"
      and then bytes derived from that header, so a receiver can check every
      byte of it.
"""
import argparse
import hashlib
import json
import os
import socket
import sys
import time

MAGIC = b"XSF"


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def body(head, size):
    out = bytearray(head)
    k = 0
    while len(out) < size:
        out += hashlib.sha256(head + k.to_bytes(4, "big")).digest()
        k += 1
    return bytes(out[:size])


def key(src, sport, seq):
    return f"[{src}]:{sport}/{seq}" if ":" in src else f"{src}:{sport}/{seq}"


def cmd_recv(a):
    s = socket.socket(family(a.bind), socket.SOCK_DGRAM)
    s.bind((a.bind, a.port))
    s.settimeout(0.2)
    seen, bad = {}, []
    if a.ready:
        with open(a.ready + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(a.ready + ".tmp", a.ready)
    deadline = time.monotonic() + a.seconds
    while time.monotonic() < deadline and not os.path.exists(a.stop):
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            continue
        head = data.split(b"\n", 1)[0] + b"\n"
        parts = head.split()
        if len(parts) != 4 or parts[0] != MAGIC:
            bad.append(f"from {peer[0]}:{peer[1]}: no header")
            continue
        src, sport, seq = parts[1].decode(), int(parts[2]), int(parts[3])
        if (src, sport) != (peer[0].split("%")[0], peer[1]):
            bad.append(f"{key(src, sport, seq)} came from {peer[0]}:{peer[1]}")
        if data != body(head, len(data)):
            bad.append(f"{key(src, sport, seq)}: {len(data)} bytes, content differs")
            continue
        k = key(src, sport, seq)
        if k in seen:
            bad.append(f"{k}: received twice")
        seen[k] = len(data)
    with open(a.out, "w") as f:
        json.dump({"id": a.id, "datagrams": seen, "bad": bad}, f, sort_keys=True)


def cmd_send(a):
    sent = {}
    for src in a.src:
        for sport in range(a.sport, a.sport + a.ports):
            s = socket.socket(family(a.vip), socket.SOCK_DGRAM)
            # IP_MTU_DISCOVER = IP_PMTUDISC_DONT (0): no DF, the kernel fragments.
            if family(a.vip) == socket.AF_INET:
                s.setsockopt(socket.IPPROTO_IP, 10, 0)
            else:
                s.setsockopt(socket.IPPROTO_IPV6, 23, 0)  # IPV6_MTU_DISCOVER
            s.bind((src, sport))
            for seq in range(a.count):
                head = b"%s %s %d %d\n" % (MAGIC, src.encode(), sport, seq)
                s.sendto(body(head, a.size), (a.vip, a.port))
                sent[key(src, sport, seq)] = a.size
                time.sleep(a.gap)
            s.close()
    with open(a.out, "w") as f:
        json.dump({"datagrams": sent}, f, sort_keys=True)
    print(f"send: {len(sent)} datagrams of {a.size} bytes")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("recv")
    p.add_argument("--id", required=True)
    p.add_argument("--bind", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready")
    p.add_argument("--stop", required=True, help="ends when this file exists")
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--out", required=True)
    p = sub.add_parser("send")
    p.add_argument("--src", action="append", required=True)
    p.add_argument("--sport", type=int, required=True)
    p.add_argument("--ports", type=int, default=1)
    p.add_argument("--vip", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--size", type=int, default=3000)
    p.add_argument("--gap", type=float, default=0.002)
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    {"recv": cmd_recv, "send": cmd_send}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
