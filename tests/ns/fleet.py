#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""etcd and data-plane helpers for the fleet tests (test_fleet.sh, test_agent.sh).

put       write a key from a file, print the revision of the write.
status    the agents' status keys, {host: status}, as JSON.
wait      until every named host's status reports applied >= REVISION (or an
          error for it, with --want-error): prints their status; fails on timeout.
bench     convergence: N writes of the fleet key, alternating two texts; for
          each, the time from just before the write to the moment the last
          host's status says it applied that revision (read from a watch on
          the status keys, so no polling interval is added). Prints and
          writes the figures.
pools     an attachment's pool maps (bpftool -j), by pin name: header and
          buckets, each bucket's target id translated to its backend address
          through `service list --json`, so hosts whose ids differ compare.
decide    the backend each flow's decision picks under the running
          configuration, pinned or not: `lookup --json` gives the slot, the
          pool gives the slot's target (a pinned flow's lookup names its pin).

etcd is reached through its JSON gateway (urllib); everything is bounded in time.
"""
import argparse
import base64
import json
import queue
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def die(msg):
    print(f"fleet.py: {msg}", file=sys.stderr)
    sys.exit(2)


def b64(s):
    return base64.b64encode(s.encode()).decode()


def unb64(s):
    return base64.b64decode(s).decode()


def prefix_end(p):
    return p[:-1] + chr(ord(p[-1]) + 1)


def call(url, path, body, timeout=10):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def put(url, key, value):
    r = call(url, "/v3/kv/put", {"key": b64(key), "value": b64(value)})
    return int(r["header"]["revision"])


def statuses(url, prefix):
    p = prefix.rstrip("/") + "/status/"
    r = call(url, "/v3/kv/range", {"key": b64(p), "range_end": b64(prefix_end(p))})
    out = {}
    for kv in r.get("kvs", []):
        out[unb64(kv["key"])[len(p):]] = json.loads(unb64(kv.get("value", "")) or "null")
    return out, int(r["header"]["revision"])


def cmd_put(a):
    with open(a.file) as f:
        print(put(a.etcd, a.key, f.read()))


def cmd_status(a):
    print(json.dumps(statuses(a.etcd, a.prefix)[0], sort_keys=True))


def cmd_wait(a):
    hosts = a.hosts.split(",")
    deadline = time.monotonic() + a.timeout
    while True:
        st, _ = statuses(a.etcd, a.prefix)
        if a.want_error:
            done = [h for h in hosts if st.get(h) and st[h]["revision"] >= a.revision
                    and st[h]["error"]]
        else:
            done = [h for h in hosts if st.get(h) and st[h]["applied"] >= a.revision
                    and not st[h]["error"]]
        if len(done) == len(hosts):
            print(json.dumps({h: st[h] for h in hosts}, sort_keys=True))
            return
        if time.monotonic() > deadline:
            print(json.dumps(st, sort_keys=True))
            die(f"timed out after {a.timeout} s: hosts not at revision {a.revision}: "
                f"{sorted(set(hosts) - set(done))}")
        time.sleep(0.05)


def watch_status(url, prefix, start, q, stop):
    """Every status put from revision START on, as (arrival time, host, status), into Q."""
    p = prefix.rstrip("/") + "/status/"
    body = {"create_request": {"key": b64(p), "range_end": b64(prefix_end(p)),
                               "start_revision": str(start)}}
    req = urllib.request.Request(url + "/v3/watch", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        dec = json.JSONDecoder()
        buf = ""
        while not stop.is_set():
            chunk = r.read1(65536).decode()
            if not chunk:
                return
            now = time.monotonic()
            buf += chunk
            while True:
                buf = buf.lstrip()
                try:
                    msg, end = dec.raw_decode(buf)
                except ValueError:
                    break
                buf = buf[end:]
                for ev in msg.get("result", {}).get("events", []):
                    if ev.get("type") == "DELETE":
                        continue
                    kv = ev["kv"]
                    q.put((now, unb64(kv["key"])[len(p):], json.loads(unb64(kv["value"]))))


def cmd_bench(a):
    hosts = a.hosts.split(",")
    texts = []
    for f in a.conf:
        with open(f) as fh:
            texts.append(fh.read())
    _, rev = statuses(a.etcd, a.prefix)
    q, stop = queue.Queue(), threading.Event()
    t = threading.Thread(target=watch_status, args=(a.etcd, a.prefix, rev + 1, q, stop),
                         daemon=True)
    t.start()
    time.sleep(0.3)
    applied = {h: 0 for h in hosts}
    rows = []
    for i in range(a.writes):
        t0 = time.monotonic()
        r = put(a.etcd, a.key, texts[i % len(texts)])
        t_put = time.monotonic()
        at = {}
        deadline = t0 + a.timeout
        while len(at) < len(hosts):
            try:
                now, host, st = q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                die(f"write {i} (revision {r}): hosts {sorted(set(hosts) - set(at))} did not "
                    f"apply it within {a.timeout} s")
            if host in applied and st["applied"] >= r and host not in at:
                if st["error"]:
                    die(f"write {i}: {host} reports an error: {st['error']}")
                at[host] = now
        rows.append({"revision": r, "put_ms": round((t_put - t0) * 1000, 2),
                     "ms": round((max(at.values()) - t0) * 1000, 2),
                     "per_host_ms": {h: round((v - t0) * 1000, 2) for h, v in at.items()}})
        time.sleep(a.gap)
    stop.set()
    ms = [r["ms"] for r in rows]
    out = {"writes": len(rows), "hosts": hosts, "median_ms": round(statistics.median(ms), 2),
           "p90_ms": round(sorted(ms)[int(0.9 * (len(ms) - 1))], 2), "max_ms": max(ms),
           "min_ms": min(ms), "put_median_ms": round(statistics.median(r["put_ms"] for r in rows), 2),
           "rows": rows}
    with open(a.out, "w") as f:
        json.dump(out, f, sort_keys=True)
    print(f"convergence over {out['writes']} writes to {len(hosts)} hosts: median "
          f"{out['median_ms']} ms, p90 {out['p90_ms']} ms, max {out['max_ms']} ms "
          f"(the put itself: median {out['put_median_ms']} ms)")


def nsrun(ns, cmd):
    p = subprocess.run(["nsenter", f"--net=/run/netns/{ns}"] + cmd, capture_output=True,
                       text=True, timeout=30)
    if p.returncode:
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def pools(a):
    """{pin name: {"hdr": {...}, "buckets": [backend address or target id]}}."""
    ids = {}
    for s in json.loads(nsrun(a.ns, [a.xs, "service", "list", a.iface, "--json"])):
        for b in s["backends"]:
            ids[b["id"]] = b["backend"]
    def dump(name):
        return {e["formatted"]["key"]: e["formatted"]["value"] for e in json.loads(
            subprocess.run([a.bpftool, "map", "dump", "pinned", f"{a.pin_dir}/{name}", "-j"],
                           capture_output=True, text=True, timeout=30, check=True).stdout)}

    # Pool N's header is in xs_pool_hdrs at the live generation's pool_base + N.
    base = dump("xs_self")[0]["pool_base"]
    hdrs = dump("xs_pool_hdrs")
    out = {}
    for name in a.pools.split(","):
        ent = dump(name)
        hdr = hdrs[base + int(name[len("pool"):])]
        n = hdr["n_buckets"]
        out[name] = {"hdr": hdr,
                     "buckets": [ids.get(ent[b]["target"], ent[b]["target"]) for b in range(n)]}
    return out


def cmd_pools(a):
    print(json.dumps(pools(a), sort_keys=True))


def cmd_decide(a):
    pool = pools(a)[a.pool]
    lo, _, hi = a.sports.partition("-")

    def one(sport):
        out = nsrun(a.ns, [a.xs, "lookup", a.iface, "tcp", f"{a.src}:{sport}",
                           f"{a.vip}:{a.port}", "--json"])
        d = json.loads(out)
        return f"{a.src}:{sport}", {"decision": pool["buckets"][d["slot"]],
                                    "target": d["target"]["backend"], "pinned": d["pinned"],
                                    "slot": d["slot"]}

    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        res = dict(ex.map(one, range(int(lo), int(hi or lo) + 1)))
    with open(a.out, "w") as f:
        json.dump(res, f, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("put")
    p.add_argument("--etcd", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--file", required=True)
    p.set_defaults(fn=cmd_put)
    p = sub.add_parser("status")
    p.add_argument("--etcd", required=True)
    p.add_argument("--prefix", required=True)
    p.set_defaults(fn=cmd_status)
    p = sub.add_parser("wait")
    p.add_argument("--etcd", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--hosts", required=True)
    p.add_argument("--revision", type=int, required=True)
    p.add_argument("--want-error", action="store_true")
    p.add_argument("--timeout", type=float, default=15)
    p.set_defaults(fn=cmd_wait)
    p = sub.add_parser("bench")
    p.add_argument("--etcd", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--hosts", required=True)
    p.add_argument("--conf", action="append", required=True)
    p.add_argument("--writes", type=int, default=50)
    p.add_argument("--gap", type=float, default=0.05)
    p.add_argument("--timeout", type=float, default=10)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_bench)
    for name, fn in (("pools", cmd_pools), ("decide", cmd_decide)):
        p = sub.add_parser(name)
        p.add_argument("--ns", required=True)
        p.add_argument("--iface", required=True)
        p.add_argument("--xs", required=True)
        p.add_argument("--bpftool", default="bpftool")
        p.add_argument("--pin-dir", required=True)
        p.add_argument("--pools", required=True, help="pin names, comma-separated")
        p.set_defaults(fn=fn)
    p.add_argument("--pool", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--sports", required=True)
    p.add_argument("--vip", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--jobs", type=int, default=4)
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()
