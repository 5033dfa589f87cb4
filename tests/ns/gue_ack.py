#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Bare TCP ACKs for connections that exist nowhere, for the GUE test.

Sends one ACK (no SYN, no socket behind it) from SRC:SPORT to VIP:PORT for
each SPORT given, through a raw socket (root). A second-chance backend that
holds no such connection sends it on; the last hop delivers it and its stack
answers with a reset, which the client's stack drops.
"""
import argparse
import socket
import struct


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ack(src, dst, sport, dport):
    hdr = struct.pack("!HHIIBBHHH", sport, dport, 0x1000, 0x2000, 5 << 4, 0x10, 64240, 0, 0)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 6, len(hdr))
    return hdr[:16] + struct.pack("!H", csum(pseudo + hdr)) + hdr[18:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--vip", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("sports", type=int, nargs="+")
    a = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    s.bind((a.src, 0))
    for p in a.sports:
        s.sendto(ack(a.src, a.vip, p, a.port), (a.vip, 0))
    print(f"gue_ack: {len(a.sports)} ACKs sent")


if __name__ == "__main__":
    main()
