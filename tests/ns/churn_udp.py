#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""UDP flows for the churn test's queue pool: which CPU got every datagram.

send     (client namespace) keeps --flows flows alive at once; flow k is
         SRC:(LO + k) and lives --lifetime seconds, then the next port takes
         over (staggered, so new flows keep arriving and some always land on
         a cpu target just added back). Each flow sends a datagram every --gap
         seconds carrying (flow, sequence number, send time). OUT: datagrams
         sent per flow.
recv     (steering namespace) one connected socket per flow of the range, so
         the kernel records per socket the CPU that queued its last datagram
         (SO_INCOMING_CPU, updated for connected sockets only). After each
         recv the CPU is read, then the queue: if nothing else is queued, no
         datagram arrived between the recv and the read, so the CPU is this
         datagram's ("exact"); otherwise it is not used. OUT: per flow, the
         datagrams as [seq, cpu or -1, sent, received] in arrival order.
analyze  the rule, from recv's output and churn_drive.py's removals:
         ordered by sequence number, a flow's exactly-placed datagrams may
         change CPU only from cpu 1 to cpu 0 and only across a removal of
         cpu 1 (the datagram before was sent before the removal returned,
         the one after arrived after it started); cpu 0 is never removed, so
         anything else (back to cpu 1, or a change with no removal) is a
         flow seen on two CPUs at once. Also counts datagrams that arrived
         after a later one of their flow (reordered), and lost ones.

Sockets set SO_NO_CHECK (see flows.py). Times are CLOCK_MONOTONIC, which the
namespaces share.
"""
import argparse
import json
import os
import resource
import select
import socket
import struct
import sys
import time
import fcntl
import termios

SO_NO_CHECK = 11
SO_INCOMING_CPU = 49
PAYLOAD = struct.Struct("!IIQ")   # flow index, sequence number, sent (ns)


def now_ns():
    return time.monotonic_ns()


def write_json(path, obj):
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, sort_keys=True)
    os.rename(path + ".tmp", path)


def cmd_send(a):
    n_ports = a.hi - a.lo + 1
    socks, seq, sent = {}, {}, {}

    def sock(k):
        s = socks.get(k)
        if s is None:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
            s.bind((a.src, a.lo + k))
            socks[k] = s
        return s

    t0 = time.monotonic()
    # Slot i starts with flow i, born i/flows of a lifetime ago.
    alive = [(i, t0 - a.lifetime * i / a.flows) for i in range(a.flows)]
    nxt = a.flows
    deadline = t0 + a.max_seconds
    while not os.path.exists(a.stop_file) and time.monotonic() < deadline:
        t = time.monotonic()
        for i, (k, born) in enumerate(alive):
            if t - born > a.lifetime:
                if nxt >= n_ports:
                    sys.exit(f"churn_udp.py: out of ports after {nxt} flows")
                socks.pop(k).close()
                k, born = nxt, t
                nxt += 1
                alive[i] = (k, born)
            seq[k] = seq.get(k, 0) + 1
            sock(k).sendto(PAYLOAD.pack(k, seq[k], now_ns()), (a.dst, a.dport))
            sent[k] = seq[k]
        time.sleep(max(0.0, a.gap - (time.monotonic() - t)))
    for s in socks.values():
        s.close()
    write_json(a.out, {"flows": nxt, "sent": {str(a.lo + k): n for k, n in sent.items()},
                       "datagrams": sum(sent.values())})


def cmd_recv(a):
    # A socket per flow of the range: more than the default 1024 descriptors.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = a.hi - a.lo + 64
    if hard != resource.RLIM_INFINITY and hard < want:
        sys.exit(f"churn_udp.py: recv needs {want} open files, the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(want, soft), hard))
    ep = select.epoll()
    by_fd = {}
    for port in range(a.lo, a.hi + 1):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
        s.bind((a.bind, a.port))
        s.connect((a.src, port))
        s.setblocking(False)
        by_fd[s.fileno()] = (s, port)
        ep.register(s.fileno(), select.EPOLLIN)
    # Anything no flow socket takes (there should be nothing).
    catch = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    catch.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    catch.bind((a.bind, a.port))
    catch.setblocking(False)
    ep.register(catch.fileno(), select.EPOLLIN)
    write_json(a.ready, {"sockets": len(by_fd)})

    got = {}
    strays = 0
    inq = bytearray(4)
    deadline = time.monotonic() + a.max_seconds
    stop_at = None
    while time.monotonic() < deadline:
        if stop_at is None and os.path.exists(a.stop_file):
            stop_at = time.monotonic() + 0.5   # let the last datagrams land
        if stop_at is not None and time.monotonic() > stop_at:
            break
        for fd, _ in ep.poll(0.05):
            if fd == catch.fileno():
                try:
                    while catch.recv(64):
                        strays += 1
                except BlockingIOError:
                    pass
                continue
            s, port = by_fd[fd]
            while True:
                try:
                    data = s.recv(64)
                except BlockingIOError:
                    break
                t = now_ns()
                cpu = s.getsockopt(socket.SOL_SOCKET, SO_INCOMING_CPU)
                fcntl.ioctl(fd, termios.FIONREAD, inq)
                if struct.unpack("i", inq)[0]:
                    cpu = -1   # another datagram queued since: not this one's CPU
                _, seq, sent = PAYLOAD.unpack(data)
                got.setdefault(str(port), []).append([seq, cpu, sent, t])
    write_json(a.out, {"flows": got, "strays": strays})


def cmd_analyze(a):
    recv = json.load(open(a.recv))
    sent = json.load(open(a.sent))["sent"]
    drive = json.load(open(a.drive))
    rem = [(r["t_start_ns"], r["t_end_ns"]) for r in drive["removals"] if r["target"] == "1"]
    bad, moved, reordered, reordered_unmoved, exact, total = [], 0, 0, 0, 0, 0
    cpus_seen = {}
    for port, dgs in recv["flows"].items():
        total += len(dgs)
        top = 0
        for seq, _, _, _ in dgs:          # arrival order
            if seq < top:
                reordered += 1
            top = max(top, seq)
        ordered = sorted((d for d in dgs if d[1] >= 0), key=lambda d: d[0])
        exact += len(ordered)
        flow_moves = 0
        for prev, cur in zip(ordered, ordered[1:]):
            if prev[1] == cur[1]:
                continue
            flow_moves += 1
            legal = (prev[1] == 1 and cur[1] == 0 and
                     any(prev[2] < end and cur[3] > start for start, end in rem))
            if not legal:
                bad.append({"flow": port, "from": prev, "to": cur})
        moved += flow_moves > 0
        if not flow_moves:
            top = 0
            for seq, _, _, _ in dgs:
                if seq < top:
                    reordered_unmoved += 1
                top = max(top, seq)
        for c in {d[1] for d in ordered}:
            cpus_seen[c] = cpus_seen.get(c, 0) + 1
    lost = sum(n - len(recv["flows"].get(p, [])) for p, n in sent.items())
    dup = sum(len(d) - len({x[0] for x in d}) for d in recv["flows"].values())
    out = {
        "flows": len(recv["flows"]), "flows_sent": len(sent),
        "datagrams": total, "exact": exact, "lost": lost, "duplicates": dup,
        "strays": recv["strays"], "removals_of_cpu1": len(rem),
        "flows_moved": moved, "two_cpu_flows": len({b["flow"] for b in bad}),
        "illegal_moves": bad[:10], "reordered": reordered,
        "reordered_unmoved": reordered_unmoved, "flows_per_cpu": cpus_seen,
    }
    write_json(a.out, out)
    print(f"udp: {out['flows']} flows, {total} datagrams ({exact} placed exactly), lost {lost}, "
          f"{moved} flows moved across {len(rem)} removals of cpu 1, "
          f"{out['two_cpu_flows']} flows on two CPUs at once, reordered {reordered} "
          f"({reordered_unmoved} in flows that never moved)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("send", "recv"):
        s = sub.add_parser(name)
        s.add_argument("--src", required=True, help="the flows' source address")
        s.add_argument("--sports", required=True, help="LO-HI: one flow per port, in turn")
        s.add_argument("--stop-file", required=True)
        s.add_argument("--max-seconds", type=float, default=90)
        s.add_argument("--out", required=True)
    s = sub.choices["send"]
    s.add_argument("--dst", required=True)
    s.add_argument("--dport", type=int, required=True)
    s.add_argument("--flows", type=int, default=200, help="flows alive at once")
    s.add_argument("--lifetime", type=float, default=6)
    s.add_argument("--gap", type=float, default=0.075)
    s = sub.choices["recv"]
    s.add_argument("--bind", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--ready", required=True)
    s = sub.add_parser("analyze")
    s.add_argument("--recv", required=True)
    s.add_argument("--sent", required=True)
    s.add_argument("--drive", required=True)
    s.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd != "analyze":
        lo, _, hi = a.sports.partition("-")
        a.lo, a.hi = int(lo), int(hi)
    {"send": cmd_send, "recv": cmd_recv, "analyze": cmd_analyze}[a.cmd](a)


if __name__ == "__main__":
    main()
