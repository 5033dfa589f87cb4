#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Traffic generator and observer for the xdpsteer namespace tests and demo.

Flows are UDP flows written as a SPEC: "SRC:LO-HI[,SRC:PORT...]", each source
port of each range being one flow to DST:DPORT. A flow's id is "SRC:SPORT".
Target names are normalised to "cpu:N" or "dev:IFNAME" on both sides (lookup
and stats), so predictions and counters compare directly.

Verbs that send (send, bg, observe-*) must run in the client namespace; the
CLI is run in the steering namespace through `nsenter --net=/run/netns/NS`,
which keeps the host's mount namespace and so its bpffs. `recv` runs in the
steering namespace. Everything is bounded in packets and time.

Sockets set SO_NO_CHECK: a UDP checksum left to offload (CHECKSUM_PARTIAL) is
never filled in once XDP turns the frame into an xdp_frame and cpumap builds a
new skb, so the receiving stack would drop it as a checksum error. A zero
UDP checksum over IPv4 means "none" and is accepted.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

SO_NO_CHECK = 11
SO_INCOMING_CPU = 49
PACE_EVERY = 64          # packets between short sleeps, so no veth ring overflows
PACE_SLEEP = 0.001
VERBOSE = os.environ.get("V") == "1"


def die(msg):
    print(f"flows.py: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_flows(spec):
    flows = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        src, _, ports = part.rpartition(":")
        lo, _, hi = ports.partition("-")
        for p in range(int(lo), int(hi or lo) + 1):
            flows.append((src, p))
    if not flows:
        die(f"no flows in '{spec}'")
    return flows


def fid(src, sport):
    return f"{src}:{sport}"


def split_fid(f):
    src, _, sport = f.rpartition(":")
    return src, int(sport)


def norm_target(d):
    if "cpu" in d:
        return f"cpu:{d['cpu']}"
    if "dev" in d:
        return f"dev:{d['dev']}"
    return "?"


class Steer:
    """The xdpsteer CLI, run in the steering namespace."""

    def __init__(self, ns, iface, xs):
        self.ns, self.iface, self.xs = ns, iface, xs

    def run(self, *args):
        cmd = ["nsenter", f"--net=/run/netns/{self.ns}", self.xs, *args]
        if VERBOSE:
            print("+ " + " ".join(cmd), file=sys.stderr)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        if r.returncode:
            die(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        return r.stdout

    def stats(self):
        raw = json.loads(self.run("stats", self.iface, "--json", "--per-cpu"))
        targets = {}
        for t in raw["targets"]:
            t = dict(t)
            t["name"] = norm_target(t)
            targets[t["name"]] = t
        return {"targets": targets, "counters": raw["counters"]}

    def lookup(self, src, sport, dst, dport):
        d = json.loads(self.run("lookup", self.iface, "udp", f"{src}:{sport}",
                                f"{dst}:{dport}", "--json"))
        d["name"] = norm_target(d["target"])
        return d


def steer_from(a):
    return Steer(a.ns, a.iface, a.xs)


class Sender:
    """One bound socket per flow, so each flow keeps its source port."""

    def __init__(self, dst, dport, size):
        self.dst, self.dport = dst, dport
        self.payload = b"x" * size
        self.socks = {}
        self.sent = 0

    def sock(self, src, sport):
        s = self.socks.get((src, sport))
        if s is None:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((src, sport))
            self.socks[(src, sport)] = s
        return s

    def send(self, flows, count):
        n = 0
        for src, sport in flows:
            s = self.sock(src, sport)
            for _ in range(count):
                s.sendto(self.payload, (self.dst, self.dport))
                n += 1
                self.sent += 1
                if self.sent % PACE_EVERY == 0:
                    time.sleep(PACE_SLEEP)
        return n

    def close(self):
        for s in self.socks.values():
            s.close()
        self.socks = {}


def sender_from(a):
    return Sender(a.dst, a.dport, a.size)


def total_packets(st):
    return sum(t["packets"] for t in st["targets"].values())


def delta(before, after):
    d = {"targets": {}, "counters": {}}
    for name, t in after["targets"].items():
        d["targets"][name] = t["packets"] - before["targets"].get(name, {"packets": 0})["packets"]
    for name, v in after["counters"].items():
        dv = v - before["counters"].get(name, 0)
        if dv:
            d["counters"][name] = dv
    return d


# Verdict counters: a packet counted here was not steered.
NOT_STEERED = ("not_ip", "truncated_eth", "vlan_too_deep", "truncated_ip", "bad_ihl",
               "bad_ip_len", "ipv6_ext_limit", "truncated_l4", "no_targets",
               "target_gone", "redirect_error")


def settle(steer, before, expected, timeout=5.0):
    """Wait until @expected packets more than @before were accounted for (steered
    or passed for a reason), then once more briefly so late extras show too."""
    deadline = time.monotonic() + timeout
    while True:
        after = steer.stats()
        d = delta(before, after)
        seen = sum(d["targets"].values()) + sum(d["counters"].get(c, 0) for c in NOT_STEERED)
        if seen >= expected or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    time.sleep(0.05)
    return steer.stats()


# ---- verbs ----------------------------------------------------------------

def cmd_send(a):
    snd = sender_from(a)
    n = snd.send(parse_flows(a.flows), a.count)
    snd.close()
    print(json.dumps({"sent": n}))


def cmd_count(a):
    """Send the flows (count packets each) and report the counter deltas."""
    steer = steer_from(a)
    snd = sender_from(a)
    before = steer.stats()
    n = snd.send(parse_flows(a.flows), a.count)
    snd.close()
    after = settle(steer, before, n)
    print(json.dumps({"sent": n, "delta": delta(before, after), "after": after},
                     sort_keys=True))


def cmd_settle(a):
    """Wait until @expect packets more than the stats in @before are accounted for."""
    steer = steer_from(a)
    with open(a.before) as f:
        before = json.load(f)
    after = settle(steer, before, a.expect)
    print(json.dumps({"delta": delta(before, after), "after": after}, sort_keys=True))


def cmd_predict(a):
    steer = steer_from(a)
    out = {}
    for src, sport in parse_flows(a.flows):
        out[fid(src, sport)] = steer.lookup(src, sport, a.dst, a.dport)
    text = json.dumps(out, indent=0, sort_keys=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        print(text)


def cmd_stats(a):
    print(json.dumps(steer_from(a).stats(), sort_keys=True))


def cmd_observe_batches(a):
    """Send the flows of each predicted target as one batch and require that the
    batch lands, exactly and only, on that target. Per-flow exact: a flow that
    went elsewhere would show on another target's counter."""
    steer = steer_from(a)
    with open(a.pred) as f:
        pred = json.load(f)
    groups = {}
    for f_id, d in sorted(pred.items()):
        groups.setdefault(d["name"], []).append(split_fid(f_id))
    snd = sender_from(a)
    ok, report = True, {}
    for target, flows in sorted(groups.items()):
        before = steer.stats()
        sent = snd.send(flows, a.count)
        after = settle(steer, before, sent)
        d = delta(before, after)
        want = {t: 0 for t in d["targets"]}
        want[target] = sent
        got_ok = d["targets"] == want and not any(c in d["counters"] for c in NOT_STEERED)
        report[target] = {"flows": len(flows), "sent": sent, "delta": d}
        if not got_ok:
            ok = False
            print(f"MISMATCH batch for {target}: sent {sent} packets of {len(flows)} flows, "
                  f"target deltas {d['targets']}, counter deltas {d['counters']}",
                  file=sys.stderr)
    snd.close()
    print(json.dumps({"ok": ok, "groups": report}, sort_keys=True))
    sys.exit(0 if ok else 1)


def cmd_observe_each(a):
    """Send @count packets of each flow alone and report which target counted them."""
    steer = steer_from(a)
    snd = sender_from(a)
    out = {}
    before = steer.stats()
    for src, sport in parse_flows(a.flows):
        sent = snd.send([(src, sport)], a.count)
        after = settle(steer, before, sent)
        d = delta(before, after)
        hit = {t: v for t, v in d["targets"].items() if v}
        extra = {c: v for c, v in d["counters"].items() if c in NOT_STEERED}
        if len(hit) == 1 and list(hit.values())[0] == sent and not extra:
            out[fid(src, sport)] = list(hit)[0]
        else:
            out[fid(src, sport)] = f"?{hit}{extra}"
        before = after
    snd.close()
    print(json.dumps(out, sort_keys=True))


def cmd_bg(a):
    """Send one packet per flow per round until @stop_file appears (or the time
    bound passes); write the total to @out."""
    snd = sender_from(a)
    flows = parse_flows(a.flows)
    deadline = time.monotonic() + a.max_seconds
    rounds = 0
    while not os.path.exists(a.stop_file) and time.monotonic() < deadline:
        snd.send(flows, 1)
        rounds += 1
        time.sleep(a.gap)
    snd.close()
    with open(a.out + ".tmp", "w") as f:
        json.dump({"sent": snd.sent, "rounds": rounds,
                   "stopped": os.path.exists(a.stop_file)}, f)
    os.rename(a.out + ".tmp", a.out)


def cmd_recv(a):
    """One connected socket per flow (it wins the UDP lookup over the catch-all),
    so each flow's datagrams and the CPU that last delivered one (SO_INCOMING_CPU,
    updated for connected sockets) are seen per flow."""
    flows = parse_flows(a.flows)
    socks = {}
    catch = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    catch.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    catch.bind((a.bind, a.port))
    catch.setblocking(False)
    for src, sport in flows:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a.bind, a.port))
        s.connect((src, sport))
        s.setblocking(False)
        socks[fid(src, sport)] = s
    with open(a.ready, "w") as f:
        f.write("ready\n")
    got = {k: 0 for k in socks}
    strays = 0
    deadline = time.monotonic() + a.timeout
    while time.monotonic() < deadline:
        for k, s in socks.items():
            while True:
                try:
                    s.recv(2048)
                    got[k] += 1
                except BlockingIOError:
                    break
        while True:
            try:
                catch.recv(2048)
                strays += 1
            except BlockingIOError:
                break
        if all(v >= a.expect for v in got.values()) or (a.stop_file and os.path.exists(a.stop_file)):
            time.sleep(0.1)   # late duplicates would show as more than expected
            for k, s in socks.items():
                while True:
                    try:
                        s.recv(2048)
                        got[k] += 1
                    except BlockingIOError:
                        break
            break
        time.sleep(0.01)
    out = {"flows": {k: {"received": got[k],
                         "cpu": socks[k].getsockopt(socket.SOL_SOCKET, SO_INCOMING_CPU)}
                     for k in socks},
           "strays": strays}
    for s in socks.values():
        s.close()
    catch.close()
    with open(a.out + ".tmp", "w") as f:
        json.dump(out, f, sort_keys=True)
    os.rename(a.out + ".tmp", a.out)


def cmd_wait_idle(a):
    """Wait until no target has frames in flight (load 0), bounded."""
    steer = steer_from(a)
    deadline = time.monotonic() + a.timeout
    while True:
        st = steer.stats()
        busy = {n: t["load"] for n, t in st["targets"].items() if t["load"]}
        if not busy:
            print(json.dumps(st, sort_keys=True))
            return
        if time.monotonic() > deadline:
            print(f"targets still loaded after {a.timeout}s: {busy}", file=sys.stderr)
            print(json.dumps(st, sort_keys=True))
            sys.exit(1)
        time.sleep(0.02)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ns", help="steering namespace (for the CLI)")
    p.add_argument("--iface", help="steering interface")
    p.add_argument("--xs", default=os.environ.get("XS", "xdpsteer"), help="xdpsteer binary")
    p.add_argument("--dst", default="198.18.0.1")
    p.add_argument("--dport", type=int, default=9000)
    p.add_argument("--size", type=int, default=32, help="UDP payload bytes")
    sub = p.add_subparsers(dest="verb", required=True)

    s = sub.add_parser("send")
    s.add_argument("--flows", required=True)
    s.add_argument("--count", type=int, default=1)
    s.set_defaults(fn=cmd_send)

    s = sub.add_parser("count")
    s.add_argument("--flows", required=True)
    s.add_argument("--count", type=int, default=1)
    s.set_defaults(fn=cmd_count)

    s = sub.add_parser("settle")
    s.add_argument("--before", required=True)
    s.add_argument("--expect", type=int, required=True)
    s.set_defaults(fn=cmd_settle)

    s = sub.add_parser("predict")
    s.add_argument("--flows", required=True)
    s.add_argument("--out")
    s.set_defaults(fn=cmd_predict)

    s = sub.add_parser("stats")
    s.set_defaults(fn=cmd_stats)

    s = sub.add_parser("observe-batches")
    s.add_argument("--pred", required=True)
    s.add_argument("--count", type=int, default=1)
    s.set_defaults(fn=cmd_observe_batches)

    s = sub.add_parser("observe-each")
    s.add_argument("--flows", required=True)
    s.add_argument("--count", type=int, default=1)
    s.set_defaults(fn=cmd_observe_each)

    s = sub.add_parser("bg")
    s.add_argument("--flows", required=True)
    s.add_argument("--stop-file", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--max-seconds", type=float, default=10)
    s.add_argument("--gap", type=float, default=0.002, help="sleep between rounds")
    s.set_defaults(fn=cmd_bg)

    s = sub.add_parser("recv")
    s.add_argument("--bind", default="198.18.0.1")
    s.add_argument("--port", type=int, default=9000)
    s.add_argument("--flows", required=True)
    s.add_argument("--expect", type=int, required=True)
    s.add_argument("--timeout", type=float, default=20)
    s.add_argument("--ready", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--stop-file")
    s.set_defaults(fn=cmd_recv)

    s = sub.add_parser("wait-idle")
    s.add_argument("--timeout", type=float, default=5)
    s.set_defaults(fn=cmd_wait_idle)

    a = p.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
