#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""TCP servers, clients and batch lookups for the load-balancer namespace tests.

serve    (in a backend namespace) a threaded TCP echo server on VIP:PORT for one
         or more VIPs. A request is a 4-byte big-endian length N and N bytes. The
         reply is one line "XS-LB <backend-id> <peer-ip> <peer-port> <N>\\n" and
         then the N bytes echoed back; then the next request, until the client
         closes (the client resets, so no side keeps a TIME_WAIT socket and the
         same source ports can be used again at once).
connect  (in the client namespace) one TCP connection per source port, each bound
         to SRC:SPORT, each sending 1-4 KB of pseudo-random bytes derived from
         (seed, src, sport); every byte of every reply is checked, and so is the
         peer address the server saw (no NAT: the backend saw the client itself).
         Writes {"flows": {"SRC:SPORT": {"backend", "ok", "error", "bytes"}}, ...}.
predict  `xdpsteer lookup --json` for many flows, a few CLI runs in parallel,
         through `nsenter --net=/run/netns/NS` (which keeps the host's bpffs).
         Writes {"SRC:SPORT": {"backend", "pinned", "slot", "slots", "hash"}}.

Flow ids are "A.B.C.D:PORT" or "[v6]:PORT", as the CLI writes endpoints.
Everything is bounded in time.
"""
import argparse
import ipaddress
import json
import os
import random
import socket
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

MAGIC = b"XS-LB"


def die(msg):
    print(f"lb_traffic.py: {msg}", file=sys.stderr)
    sys.exit(2)


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def norm(addr):
    """Canonical text of an address; IPv4-mapped IPv6 becomes IPv4."""
    a = ipaddress.ip_address(addr.split("%")[0])
    if a.version == 6 and a.ipv4_mapped:
        a = a.ipv4_mapped
    return str(a)


def fid(src, sport):
    src = norm(src)
    return f"[{src}]:{sport}" if ":" in src else f"{src}:{sport}"


def parse_ports(spec):
    ports = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        ports.extend(range(int(lo), int(hi or lo) + 1))
    if not ports:
        die(f"no ports in '{spec}'")
    return ports


def payload(seed, src, sport, lo, hi):
    rnd = random.Random(f"{seed}/{norm(src)}/{sport}")
    return rnd.randbytes(rnd.randint(lo, hi))


def recv_exact(s, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(65536, n - len(buf)))
        if not chunk:
            raise EOFError(f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def recv_line(s, limit=256):
    buf = bytearray()
    while not buf.endswith(b"\n"):
        c = s.recv(1)
        if not c:
            raise EOFError(f"connection closed in the header after {len(buf)} bytes")
        buf += c
        if len(buf) > limit:
            raise ValueError("header line too long")
    return bytes(buf[:-1])


# ---- serve -------------------------------------------------------------------

def handle(conn, peer, ident, stats, lock):
    try:
        conn.settimeout(15)
        # Request after request until the client closes (it resets: the
        # client closes first). The churn test keeps connections open for a
        # minute and sends a request every second or so.
        while True:
            first = conn.recv(4)
            if not first:
                break
            n = struct.unpack("!I", first + recv_exact(conn, 4 - len(first)))[0]
            if n > 1 << 20:
                raise ValueError(f"request of {n} bytes")
            data = recv_exact(conn, n)
            head = b"%s %s %s %d %d\n" % (MAGIC, ident.encode(), norm(peer[0]).encode(),
                                           peer[1], n)
            conn.sendall(head + data)
        with lock:
            stats["served"] += 1
    except (OSError, EOFError, ValueError) as e:
        if not isinstance(e, ConnectionResetError):
            with lock:
                stats["errors"] += 1
            print(f"serve {ident}: {fid(*peer[:2])}: {e}", file=sys.stderr)
    finally:
        conn.close()


def accept_loop(ls, ident, stats, lock):
    while True:
        try:
            conn, peer = ls.accept()
        except OSError:
            return
        threading.Thread(target=handle, args=(conn, peer, ident, stats, lock), daemon=True).start()


def cmd_serve(a):
    stats, lock = {"served": 0, "errors": 0}, threading.Lock()
    socks = []
    for addr in a.bind:
        s = socket.socket(family(addr), socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, a.port))
        s.listen(512)
        socks.append(s)
        threading.Thread(target=accept_loop, args=(s, a.id, stats, lock), daemon=True).start()
    if a.ready:
        with open(a.ready + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(a.ready + ".tmp", a.ready)
    deadline = time.monotonic() + a.max_seconds
    while time.monotonic() < deadline:
        time.sleep(0.2)
    for s in socks:
        s.close()


# ---- connect -----------------------------------------------------------------

def one_connection(a, sport):
    src, f = a.src, fid(a.src, sport)
    res = {"backend": None, "ok": False, "error": "", "bytes": 0}
    data = payload(a.seed, src, sport, a.min_size, a.max_size)
    s = socket.socket(family(a.vip), socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.settimeout(a.timeout)
        s.bind((src, sport))
        s.connect((a.vip, a.port))
        s.sendall(struct.pack("!I", len(data)) + data)
        head = recv_line(s).split()
        if len(head) != 5 or head[0] != MAGIC:
            raise ValueError(f"bad reply header {head!r}")
        res["backend"] = head[1].decode()
        seen = fid(head[2].decode(), int(head[3]))
        if seen != f:
            raise ValueError(f"the server saw the client as {seen}")
        if int(head[4]) != len(data):
            raise ValueError(f"the server read {int(head[4])} of {len(data)} bytes")
        back = recv_exact(s, len(data))
        if back != data:
            bad = next(i for i in range(len(data)) if back[i] != data[i])
            raise ValueError(f"echo differs from byte {bad} on")
        res["bytes"] = len(back)
        res["ok"] = True
    except (OSError, EOFError, ValueError) as e:
        res["error"] = f"{type(e).__name__}: {e}"
    finally:
        # Reset: neither side keeps the 4-tuple in TIME_WAIT.
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        s.close()
    return f, res


def cmd_connect(a):
    ports = parse_ports(a.sports)
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=a.parallel) as ex:
        flows = dict(ex.map(lambda p: one_connection(a, p), ports))
    out = {
        "flows": flows,
        "connections": len(flows),
        "ok": sum(r["ok"] for r in flows.values()),
        "bytes_checked": sum(r["bytes"] for r in flows.values()),
        "seconds": round(time.monotonic() - t0, 2),
    }
    with open(a.out, "w") as f:
        json.dump(out, f, sort_keys=True)
    print(f"connect: {out['ok']}/{out['connections']} connections ok, "
          f"{out['bytes_checked']} bytes checked in {out['seconds']} s")
    for f_, r in sorted(flows.items()):
        if not r["ok"]:
            print(f"  {f_}: {r['error']}")


# ---- predict -----------------------------------------------------------------

def lookup(a, src, sport):
    dst = f"[{a.dst}]" if ":" in a.dst else a.dst
    cmd = ["nsenter", f"--net=/run/netns/{a.ns}", a.xs, "lookup", a.iface, a.proto,
           fid(src, sport), f"{dst}:{a.dport}", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if p.returncode:
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    d = json.loads(p.stdout)
    return fid(src, sport), {"backend": d["target"]["backend"], "pinned": d["pinned"],
                             "slot": d["slot"], "slots": d["slots"], "hash": d["hash"]}


def cmd_predict(a):
    pairs = [(s, p) for s in a.src for p in parse_ports(a.sports)]
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        out = dict(ex.map(lambda sp: lookup(a, *sp), pairs))
    with open(a.out, "w") as f:
        json.dump(out, f, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("serve")
    p.add_argument("--id", required=True)
    p.add_argument("--bind", action="append", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready")
    p.add_argument("--max-seconds", type=float, default=120)
    p.set_defaults(fn=cmd_serve)

    p = sub.add_parser("connect")
    p.add_argument("--src", required=True)
    p.add_argument("--sports", required=True)
    p.add_argument("--vip", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--seed", default="xdpsteer")
    p.add_argument("--min-size", type=int, default=1024)
    p.add_argument("--max-size", type=int, default=4096)
    p.add_argument("--parallel", type=int, default=4)
    p.add_argument("--timeout", type=float, default=8)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_connect)

    p = sub.add_parser("predict")
    p.add_argument("--ns", required=True)
    p.add_argument("--iface", required=True)
    p.add_argument("--xs", required=True)
    p.add_argument("--proto", default="tcp")
    p.add_argument("--src", action="append", required=True)
    p.add_argument("--sports", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("--dport", type=int, required=True)
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_predict)

    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
