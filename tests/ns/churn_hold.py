#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Long-lived TCP connections for the churn test, each echoing all the time.

Runs in the client namespace against lb_traffic.py's server (a request is a
4-byte big-endian length N and N bytes; the reply is the line
"XS-LB <backend-id> <peer-ip> <peer-port> <N>" and the N bytes). One
connection per source port, bound to SRC:SPORT. Once every connection has
had its first reply checked, READY is written; then each connection sends a
message every --min-gap..--max-gap seconds (random per message) until
STOP_FILE appears, and checks every byte of every reply and that the same
backend answers every time.

A reply that takes longer than --stall seconds is a stall (the message still
counts if it arrives later, up to --give-up seconds; after that the connection
has failed). A reset, an early close, a wrong byte or another backend is a
failure. At the end, every connection still open sends one last message, and
then resets (no TIME_WAIT). OUT gets the figures, per connection too.
"""
import argparse
import asyncio
import json
import os
import random
import socket
import struct
import sys
import time

MAGIC = b"XS-LB"


def parse_ports(spec):
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


class Conn:
    def __init__(self, a, sport):
        self.a, self.sport = a, sport
        self.rnd = random.Random(f"{a.seed}/{a.src}/{sport}")
        self.backend = None
        self.messages = 0
        self.bytes = 0
        self.stalls = 0
        self.max_latency = 0.0
        self.error = ""
        self.reader = self.writer = None

    async def open(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.a.src, self.sport))
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        await asyncio.wait_for(loop.sock_connect(sock, (self.a.vip, self.a.port)),
                               self.a.give_up)
        self.reader, self.writer = await asyncio.open_connection(sock=sock)

    async def echo(self):
        """One message, every byte of its reply checked; False once failed."""
        data = self.rnd.randbytes(self.rnd.randint(self.a.min_size, self.a.max_size))
        t0 = time.monotonic()
        try:
            self.writer.write(struct.pack("!I", len(data)) + data)
            head = await asyncio.wait_for(self.reader.readline(), self.a.give_up)
            f = head.split()
            if len(f) != 5 or f[0] != MAGIC:
                raise ValueError(f"bad reply header {head!r}" if head else "closed by the peer")
            backend = f[1].decode()
            if self.backend is None:
                self.backend = backend
            elif backend != self.backend:
                raise ValueError(f"answered by {backend}, before by {self.backend}")
            if (f[2].decode(), int(f[3])) != (self.a.src, self.sport):
                raise ValueError(f"the server saw the client as {f[2]}:{f[3]}")
            back = await asyncio.wait_for(self.reader.readexactly(len(data)), self.a.give_up)
            if back != data:
                raise ValueError("echo differs from what was sent")
        except (OSError, EOFError, ValueError, asyncio.TimeoutError,
                asyncio.IncompleteReadError) as e:
            self.error = f"message {self.messages + 1}: {type(e).__name__}: {e}"
            return False
        lat = time.monotonic() - t0
        self.max_latency = max(self.max_latency, lat)
        if lat > self.a.stall:
            self.stalls += 1
        self.messages += 1
        self.bytes += len(data)
        return True

    async def run(self, stop):
        while not stop.is_set():
            gap = self.rnd.uniform(self.a.min_gap, self.a.max_gap)
            try:
                await asyncio.wait_for(stop.wait(), gap)
            except asyncio.TimeoutError:
                pass
            if not await self.echo():
                return
        await self.echo()  # the last word, after the churn

    def reset(self):
        if self.writer is None:
            return
        sock = self.writer.get_extra_info("socket")
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.writer.close()

    def result(self):
        return {"backend": self.backend, "ok": not self.error, "error": self.error,
                "messages": self.messages, "bytes": self.bytes, "stalls": self.stalls,
                "max_latency": round(self.max_latency, 4)}


async def watch_stop(a, stop):
    deadline = time.monotonic() + a.max_seconds
    while not os.path.exists(a.stop_file) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    stop.set()


async def main_async(a):
    conns = [Conn(a, p) for p in parse_ports(a.sports)]
    gate = asyncio.Semaphore(a.parallel)

    async def start(c):
        async with gate:
            try:
                await c.open()
            except (OSError, asyncio.TimeoutError) as e:
                c.error = f"connect: {type(e).__name__}: {e}"
                return
            await c.echo()

    t0 = time.monotonic()
    await asyncio.gather(*(start(c) for c in conns))
    opened = time.monotonic() - t0
    with open(a.ready + ".tmp", "w") as f:
        json.dump({c.sport: c.backend for c in conns if not c.error}, f)
    os.rename(a.ready + ".tmp", a.ready)

    stop = asyncio.Event()
    t1 = time.monotonic()
    await asyncio.gather(watch_stop(a, stop),
                         *(c.run(stop) for c in conns if not c.error))
    held = time.monotonic() - t1
    for c in conns:
        c.reset()
    await asyncio.sleep(0.2)  # let the resets go out

    res = {f"{a.src}:{c.sport}": c.result() for c in conns}
    per_backend = {}
    for r in res.values():
        if r["ok"]:
            per_backend[r["backend"]] = per_backend.get(r["backend"], 0) + 1
    out = {
        "connections": len(conns),
        "open_at_end": sum(r["ok"] for r in res.values()),
        "failed": {f: r["error"] for f, r in res.items() if not r["ok"]},
        "messages": sum(r["messages"] for r in res.values()),
        "bytes_verified": sum(r["bytes"] for r in res.values()),
        "stalls": sum(r["stalls"] for r in res.values()),
        "max_latency": max(r["max_latency"] for r in res.values()),
        "per_backend": per_backend,
        "open_seconds": round(opened, 2),
        "held_seconds": round(held, 2),
        "flows": res,
    }
    with open(a.out + ".tmp", "w") as f:
        json.dump(out, f, sort_keys=True)
    os.rename(a.out + ".tmp", a.out)
    print(f"hold: {out['open_at_end']}/{out['connections']} open at the end, "
          f"{out['messages']} messages, {out['bytes_verified']} bytes verified, "
          f"{out['stalls']} stalls, max latency {out['max_latency']} s, held {held:.1f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--sports", required=True, help="LO-HI: one connection per port")
    ap.add_argument("--vip", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--seed", default="churn")
    ap.add_argument("--min-size", type=int, default=16)
    ap.add_argument("--max-size", type=int, default=512)
    ap.add_argument("--min-gap", type=float, default=0.5)
    ap.add_argument("--max-gap", type=float, default=1.0)
    ap.add_argument("--stall", type=float, default=3.0)
    ap.add_argument("--give-up", type=float, default=10.0)
    ap.add_argument("--parallel", type=int, default=50, help="connects in flight at once")
    ap.add_argument("--ready", required=True)
    ap.add_argument("--stop-file", required=True)
    ap.add_argument("--max-seconds", type=float, default=90)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.min_gap > a.max_gap or a.stall >= a.give_up:
        sys.exit("churn_hold.py: want min-gap <= max-gap and stall < give-up")
    asyncio.run(main_async(a))


if __name__ == "__main__":
    main()
