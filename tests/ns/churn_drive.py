#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The churn test's topology driver: many `xdpsteer apply -f` in a row.

A seeded plan of changes, each written as a whole configuration file (the
format of docs/configuration.md) and applied with `apply -f`:

service   backends of one service: adds, removals, drains, undrains and
          weight changes. --stable backends are never removed (they hold
          the long-lived connections); --churn backends come and go. Runs in
          the client namespace: between applies it opens short-lived probe
          connections and checks each against `lookup` (lb_traffic.py's
          client and server), a few per second.
queues    the queue pool's cpu targets: cpu 0 stays; cpu 1 is drained,
          undrained, resized (qsize) and removed and added back. The
          algorithm never changes.

Both keep at least one live target, pace the applies over --min-seconds, and
put some in bursts of back-to-back applies. After every apply that removes a
target, the target's steered-packet counter (xs_target_stats[id], which
outlives the target until its id is reused by an add) is read at once, and
read again just before the next apply, which is the first that could reuse
the id: the two must be equal. Every few applies, `show` must list exactly
the planned state. The CLI runs in --ns through nsenter (keeps bpffs).
OUT gets every figure; the exit status is 0 unless the driver itself failed.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lb_traffic  # noqa: E402  (the probes' client)


def strip_places(text):
    """show's lines without where objects sit (id, slots, slot-count): the planned
    objects are compared; their places are the commit's (docs/configuration.md)."""
    return [re.sub(r" (id \d+|slots [\d,]+|slot-count \d+)", "", ln)
            for ln in text.splitlines() if not ln.startswith("slot-count ")]

SHOW_EVERY = 5       # applies between two `show` comparisons (outside bursts)
REMOVAL_GAP = 0.3    # s after a removal before the next apply: pinned flows
                     # of the removed target send at least once meanwhile


def die(msg):
    print(f"churn_drive.py: {msg}", file=sys.stderr)
    sys.exit(2)


class Cli:
    def __init__(self, a):
        self.a = a

    def run(self, *args, check=True):
        cmd = ["nsenter", f"--net=/run/netns/{self.a.ns}", self.a.xs, *args]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        if check and p.returncode:
            die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        return p

    def json(self, *args):
        return json.loads(self.run(*args, "--json").stdout)

    def steered(self, tid):
        """Packets ever steered to target id @tid, summed over CPUs."""
        key = [str(b) for b in tid.to_bytes(4, "little")]
        cmd = [self.a.bpftool, "-j", "map", "lookup", "pinned",
               f"{self.a.pin_dir}/xs_target_stats", "key", *key]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        if p.returncode:
            die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        return sum(v["value"]["packets"] for v in json.loads(p.stdout)["formatted"]["values"])


# ---- plans: a state is {name: {"weight" or "qsize": int, "drain": bool}} ----

class ServicePlan:
    kind = "backend"

    def __init__(self, a, rnd):
        self.a, self.rnd = a, rnd
        self.stable, self.churn = a.stable.split(","), a.churn.split(",")
        self.state, self.final = self.parse(a.start), self.parse(a.final)
        if not all(b in self.state and b in self.final for b in self.stable):
            die("--start and --final must hold every --stable backend")

    @staticmethod
    def parse(spec):
        out = {}
        for item in spec.split(","):
            b, _, w = item.partition("=")
            out[b] = {"weight": int(w), "drain": False}
        return out

    def lines(self, st):
        out = [f"service {self.a.svc}"]
        for b in self.stable + self.churn:
            if b in st:
                out.append(f"backend {self.a.svc} {b} weight {st[b]['weight']}"
                           + (" drain" if st[b]["drain"] else ""))
        return out

    def show_lines(self, text):
        return [ln for ln in strip_places(text) if ln.startswith("backend ")]

    def expect_show(self, st):
        return [ln for ln in self.lines(st) if ln.startswith("backend ")]

    def ops(self, st, age):
        """The changes possible now: (kind, name, new entry or None)."""
        live = [b for b in st if not st[b]["drain"]]
        out = []
        for b in self.churn:
            if b not in st:
                out.append(("add", b, {"weight": self.rnd.randint(1, 4), "drain": False}))
            elif age.get(b, 0) >= 3:
                # Removed only after a few changes: flows have been pinned to it.
                if not (len(live) == 1 and live[0] == b):
                    out.append(("remove", b, None))
        for b in st:
            e = st[b]
            if e["drain"]:
                out.append(("undrain", b, dict(e, drain=False)))
            elif len(live) > 1:
                out.append(("drain", b, dict(e, drain=True)))
            w = self.rnd.choice([x for x in range(1, 9) if x != e["weight"]])
            out.append(("weight", b, dict(e, weight=w)))
        return out


class QueuePlan:
    kind = "target"

    def __init__(self, a, rnd):
        self.a, self.rnd = a, rnd
        self.state = {"0": {"qsize": a.qsize, "drain": False},
                      "1": {"qsize": a.qsize, "drain": False}}
        self.final = {"0": {"qsize": a.qsize, "drain": False},
                      "1": {"qsize": a.qsize, "drain": False}}

    def lines(self, st):
        out = ["algo jump"]
        for c in ("0", "1"):
            if c in st:
                out.append(f"target cpu {c} qsize {st[c]['qsize']}"
                           + (" drain" if st[c]["drain"] else ""))
        return out

    def show_lines(self, text):
        return [ln for ln in strip_places(text) if ln.startswith(("target ", "algo "))]

    def expect_show(self, st):
        return self.lines(st)

    def ops(self, st, age):
        out = []
        if "1" not in st:
            out.append(("add", "1", {"qsize": self.rnd.choice(self.a.qsizes), "drain": False}))
        else:
            e = st["1"]
            if age.get("1", 0) >= 3:
                out.append(("remove", "1", None))
            out.append(("undrain" if e["drain"] else "drain", "1", dict(e, drain=not e["drain"])))
            q = self.rnd.choice([x for x in self.a.qsizes if x != e["qsize"]])
            out.append(("qsize", "1", dict(e, qsize=q)))
        e = st["0"]
        q = self.rnd.choice([x for x in self.a.qsizes if x != e["qsize"]])
        out.append(("qsize", "0", dict(e, qsize=q)))
        return out


def backend_ids(cli, a):
    for s in cli.json("service", "list", a.iface):
        if s["service"] == a.svc:
            return {b["backend"]: b["id"] for b in s["backends"]}
    die(f"service {a.svc} is not on {a.iface}")


# ---- removal windows -------------------------------------------------------------

def repins(cli, a):
    """Flows found pinned to a target that is gone, and placed anew (global)."""
    return cli.json("stats", a.iface)["counters"]["flow_repin"]


def close_windows(cli, a, windows):
    """Read the removed targets' counters again, before the next apply."""
    if not windows:
        return
    repin = repins(cli, a)
    for w in windows:
        w["packets_before_next"] = cli.steered(w["id"])
        w["window_seconds"] = round((time.monotonic_ns() - w["t_end_ns"]) / 1e9, 3)
        # Flows that were pinned to a removed target and sent in the window:
        # what a stale pin would have steered to it.
        w["repins_in_window"] = repin - w["repins_at_return"]


# ---- the run ------------------------------------------------------------------

class Probes:
    """Short-lived connections between applies, each checked against lookup."""

    def __init__(self, a, cli):
        self.a, self.cli = a, cli
        lo, _, hi = a.probe_ports.partition("-")
        self.ports = iter(range(int(lo), int(hi) + 1))
        self.done = []

    def one(self, step):
        sport = next(self.ports, None)
        if sport is None:
            die(f"out of probe ports ({self.a.probe_ports})")
        d = self.cli.json("lookup", self.a.iface, "tcp", f"{self.a.src}:{sport}",
                          f"{self.a.vip}:{self.a.port}")
        ca = argparse.Namespace(src=self.a.src, vip=self.a.vip, port=self.a.port,
                                seed="churn-probe", min_size=64, max_size=1024,
                                timeout=self.a.probe_timeout)
        f, r = lb_traffic.one_connection(ca, sport)
        r.update(flow=f, step=step, predicted=d["target"]["backend"], pinned=d["pinned"])
        self.done.append(r)


def run(a):
    rnd = random.Random(a.seed)
    cli = Cli(a)
    plan = ServicePlan(a, rnd) if a.cmd == "service" else QueuePlan(a, rnd)
    probes = Probes(a, cli) if a.cmd == "service" else None
    os.makedirs(a.dir, exist_ok=True)

    got = sorted(plan.show_lines(cli.run("show", a.iface).stdout))
    if got != sorted(plan.expect_show(plan.state)):
        die(f"{a.iface} does not hold the starting state: {got}")

    counts = {}
    by_target = {}      # kind -> target -> changes of that kind
    removals = []       # one per removal: the window check
    open_windows = []   # removals whose window is still open
    show_checks, show_diffs = 0, []
    applies, changes, bursts, burst_applies = 0, 0, 0, 0
    age = {n: 10 for n in plan.state}
    burst_left = 0
    t0 = time.monotonic()

    for step in range(a.changes):
        last = step == a.changes - 1
        in_burst = burst_left > 0
        if not in_burst and not last and rnd.random() < a.burst_chance:
            burst_left = rnd.randint(4, 6)
            bursts += 1
            in_burst = True

        # The next state: the final one last, else one or two random changes.
        if last:
            new = {k: dict(v) for k, v in plan.final.items()}
            kinds = ["final"]
        else:
            new = {k: dict(v) for k, v in plan.state.items()}
            kinds = []
            touched = set()
            for _ in range(1 if rnd.random() < 0.8 else 2):
                # Two changes of one apply touch two targets: a drain and an
                # undrain of one target would cancel out.
                options = [o for o in plan.ops(new, age) if o[1] not in touched]
                if not options:
                    break
                # A kind first, then a target: each kind of change is common,
                # however many targets offer the others.
                kind = rnd.choice(sorted({o[0] for o in options}))
                _, name, entry = rnd.choice([o for o in options if o[0] == kind])
                touched.add(name)
                if kind == "add":
                    age[name] = 0   # applies since it was (re)added
                if entry is None:
                    del new[name]
                else:
                    new[name] = entry
                kinds.append(kind)
                by_target.setdefault(kind, {})
                by_target[kind][name] = by_target[kind].get(name, 0) + 1
        for k in kinds:
            counts[k] = counts.get(k, 0) + 1
        gone = [n for n in plan.state if n not in new]

        # Close the open windows: the first apply that could reuse an id.
        close_windows(cli, a, open_windows)
        open_windows = []

        ids = {}
        if gone:
            ids = backend_ids(cli, a) if a.cmd == "service" else {n: int(n) for n in gone}
            before = {n: cli.steered(ids[n]) for n in gone}
            pinned = {}
            if a.cmd == "service":
                for b in cli.json("stats", a.iface)["services"][0]["backends"]:
                    pinned[b["backend"]] = b["pinned"]

        path = os.path.join(a.dir, f"step{step:03d}.conf")
        with open(path, "w") as f:
            f.write(f"# churn step {step}: {', '.join(kinds)}\n")
            f.write("\n".join(plan.lines(new)) + "\n")
        os.chmod(path, 0o644)
        t_start = time.monotonic_ns()
        p = cli.run("apply", a.iface, "-f", path)
        t_end = time.monotonic_ns()
        applies += 1
        burst_applies += in_burst
        n = [ln for ln in p.stdout.splitlines() if ln.startswith("applied ")]
        if not n:
            die(f"step {step}: apply printed no 'applied N changes': {p.stdout}")
        changes += int(n[0].split()[1])

        repin = repins(cli, a) if gone else 0
        for g in gone:
            w = {"repins_at_return": repin, "in_burst": in_burst, "step": step, "target": g, "id": ids[g], "packets_before": before[g],
                 "packets_at_return": cli.steered(ids[g]),
                 "t_start_ns": t_start, "t_end_ns": t_end,
                 "pinned_before": pinned.get(g) if a.cmd == "service" else None}
            removals.append(w)
            open_windows.append(w)
        plan.state = new
        for k in age:
            age[k] += 1

        if in_burst:
            burst_left -= 1
            continue
        if step % SHOW_EVERY == 0 or last:
            # show lists backends in id order, not in file order.
            got = sorted(plan.show_lines(cli.run("show", a.iface).stdout))
            show_checks += 1
            if got != sorted(plan.expect_show(new)):
                show_diffs.append({"step": step, "show": got, "planned": plan.expect_show(new)})
        if probes and step % a.probe_every == 0:
            probes.one(step)
        # Pace: step i at t0 + min_seconds * i / changes at the earliest.
        due = t0 + a.min_seconds * (step + 1) / a.changes
        if gone:
            due = max(due, time.monotonic() + REMOVAL_GAP)
        time.sleep(max(0.0, due - time.monotonic()))

    close_windows(cli, a, open_windows)
    seconds = time.monotonic() - t0

    out = {
        "applies": applies, "changes": changes, "seconds": round(seconds, 2),
        "bursts": bursts, "burst_applies": burst_applies, "ops": counts,
        "ops_by_target": by_target,
        "removals": removals,
        "packets_after_removal": sum(w["packets_before_next"] - w["packets_at_return"]
                                     for w in removals),
        "show_checks": show_checks, "show_diffs": show_diffs,
        "final": plan.lines(plan.state),
    }
    if probes:
        pr = probes.done
        out["probes"] = {
            "n": len(pr), "ok": sum(r["ok"] for r in pr),
            "failed": [r for r in pr if not r["ok"]][:10],
            "predicted": sum(r["ok"] and r["backend"] == r["predicted"] for r in pr),
            "mismatches": [r for r in pr if r["ok"] and r["backend"] != r["predicted"]][:10],
            "pinned_before": sum(r["pinned"] for r in pr),
            "bytes_checked": sum(r["bytes"] for r in pr),
            "per_backend": {b: sum(r["backend"] == b for r in pr)
                            for b in sorted({r["backend"] for r in pr if r["ok"]})},
        }
    with open(a.out + ".tmp", "w") as f:
        json.dump(out, f, sort_keys=True, indent=1)
    os.rename(a.out + ".tmp", a.out)
    print(f"churn: {applies} applies ({changes} changes, {burst_applies} in {bursts} bursts) "
          f"in {seconds:.1f} s; ops {counts}; {len(removals)} removals, "
          f"{out['packets_after_removal']} packets after removal"
          + (f"; probes {out['probes']['ok']}/{out['probes']['n']} ok, "
             f"{out['probes']['predicted']} as predicted" if probes else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns", required=True, help="namespace of the xdpsteer interface")
    ap.add_argument("--iface", required=True)
    ap.add_argument("--xs", required=True)
    ap.add_argument("--bpftool", default="bpftool")
    ap.add_argument("--pin-dir", required=True, help="the attachment's pin directory (pin_dir in lib.sh)")
    ap.add_argument("--changes", type=int, default=220, help="applies")
    ap.add_argument("--min-seconds", type=float, default=22)
    ap.add_argument("--burst-chance", type=float, default=0.04)
    ap.add_argument("--seed", default="churn")
    ap.add_argument("--dir", required=True, help="where the configuration files go")
    ap.add_argument("--out", required=True)
    sub = ap.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("service")
    s.add_argument("--svc", required=True, help="VIP:PORT/tcp")
    s.add_argument("--vip", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--stable", required=True, help="backends never removed (A,B,...)")
    s.add_argument("--churn", required=True, help="backends that come and go")
    s.add_argument("--start", required=True, help="the running state: IP=WEIGHT,...")
    s.add_argument("--final", required=True, help="last state: IP=WEIGHT,...")
    s.add_argument("--src", required=True, help="probes' source address")
    s.add_argument("--probe-ports", required=True)
    s.add_argument("--probe-every", type=int, default=3, help="applies per probe")
    s.add_argument("--probe-timeout", type=float, default=8)

    s = sub.add_parser("queues")
    s.add_argument("--qsize", type=int, default=2048, help="starting and final qsize")
    s.add_argument("--qsizes", default="256,512,1024,2048,4096")

    a = ap.parse_args()
    if a.cmd == "queues":
        a.qsizes = [int(x) for x in a.qsizes.split(",")]
    run(a)


if __name__ == "__main__":
    main()
