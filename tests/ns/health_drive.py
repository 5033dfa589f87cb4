#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Backends and clients for the health-check tests (test_health.sh).

serve:   an HTTP server on PORT that answers every GET with its --id, until killed.
udp:     a UDP server on PORT: "ping" is answered "pong", a DNS query a DNS answer.
clients: N clients, each making one connection after another to VIP:PORT for
         SECONDS; every connection's start time, source port, backend (the id it
         answered) or error goes to --out as JSON lines are collected.
"""
import argparse
import asyncio
import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def cmd_serve(a):
    ident = a.id.encode()
    served = [0]

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self):
            served[0] += 1
            # --flap: the health path fails every other time.
            bad = a.flap and self.path == "/health" and served[0] % 2 == 0
            self.send_response(500 if bad else 200)
            self.send_header("Content-Length", str(len(ident)))
            self.end_headers()
            self.wfile.write(ident)

        def log_message(self, *args):
            pass

    class S(ThreadingHTTPServer):
        allow_reuse_address = True
        request_queue_size = 1024  # 200 clients: the default backlog of 5 drops SYNs

        def handle_error(self, request, client_address):
            pass  # a health check hangs up once it has the status line

    srv = S(("0.0.0.0", a.port), H)
    srv.daemon_threads = True
    if a.ready:
        open(a.ready, "w").close()
    srv.serve_forever()


def cmd_udp(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", a.port))
    if a.ready:
        open(a.ready, "w").close()
    while True:
        data, peer = s.recvfrom(512)
        if data.startswith(b"ping"):
            s.sendto(b"pong " + a.id.encode(), peer)
        elif len(data) >= 12:
            # The query's id, QR and RA set, REFUSED: a server that serves, if not this name.
            s.sendto(data[:2] + b"\x81\x85" + data[4:12], peer)


async def one(a, t0, rec, sport):
    start = time.monotonic() - t0
    # Each connection its own source port: a failed one can be looked up later.
    r = {"t": round(start, 4), "sport": sport}
    w = None
    try:
        rd, w = await asyncio.wait_for(
            asyncio.open_connection(a.vip, a.port, local_addr=("0.0.0.0", sport)), a.timeout)
        w.write(b"GET / HTTP/1.0\r\nHost: vip\r\n\r\n")
        body = await asyncio.wait_for(rd.read(), a.timeout)
        head, _, ident = body.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.0 200"):
            r["error"] = "bad answer: %r" % head[:40]
        else:
            r["backend"] = ident.decode()
    except (OSError, asyncio.TimeoutError) as e:
        r["error"] = type(e).__name__ + (": " + e.strerror if getattr(e, "strerror", None) else "")
    finally:
        if w:
            w.close()
    r["end"] = round(time.monotonic() - t0, 4)
    rec.append(r)


async def client(a, t0, rec, k):
    n = 0
    await asyncio.sleep(k * a.pause / a.clients)
    while time.monotonic() - t0 < a.seconds:
        # Client k's ports: k, k + clients, k + 2 clients, ... from --sport.
        await one(a, t0, rec, a.sport + k + n * a.clients)
        n += 1
        await asyncio.sleep(a.pause)


async def clients(a):
    rec = []
    t0 = time.monotonic()
    wall0 = time.time()  # the test's `date` clock: t + wall0 is when a connection started
    await asyncio.gather(*(client(a, t0, rec, k) for k in range(a.clients)))
    with open(a.out, "w") as f:
        json.dump({"wall0": wall0, "connections": rec}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("serve")
    p.add_argument("--id", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready")
    p.add_argument("--flap", action="store_true", help="answer /health with 500 every other time")
    p = sub.add_parser("udp")
    p.add_argument("--id", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready")
    p = sub.add_parser("clients")
    p.add_argument("--vip", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--clients", type=int, default=200)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--pause", type=float, default=0.5, help="between one client's connections")
    p.add_argument("--timeout", type=float, default=5)
    p.add_argument("--sport", type=int, default=30000, help="the first source port")
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "serve":
        cmd_serve(a)
    elif a.cmd == "udp":
        cmd_udp(a)
    else:
        asyncio.run(clients(a))


if __name__ == "__main__":
    sys.exit(main())
