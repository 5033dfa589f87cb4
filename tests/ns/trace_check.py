#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Checks of `xdpsteer trace -j` output for tests/ns/test_trace.sh.

  trace_check.py agree NS IFACE XS TRACE.jsonl COUNT.json...
      every record's target and service are what `xdpsteer lookup` says for
      its flow, and for every counter, the records that name it as a reason
      number its delta (COUNT.json: flows.py count output, deltas summed).
      Prints a JSON summary; exits 1 on the first disagreement, naming it.
  trace_check.py pcap FILE
      the packets of a pcapng file, and their comments, read back by tshark:
      JSON {"packets": N, "comments": [...]}.
"""
import collections
import json
import subprocess
import sys


def die(msg):
    print(f"trace_check: {msg}")
    sys.exit(1)


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def lookup(ns, iface, xs, r):
    cmd = ["nsenter", f"--net=/run/netns/{ns}", xs, "lookup", iface, r["proto"], r["src"],
           r["dst"], "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if p.returncode:
        die(f"{' '.join(cmd)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def agree(ns, iface, xs, trace, counts):
    recs = records(trace)
    seen = {}
    for r in recs:
        flow = (r["proto"], r["src"], r["dst"])
        if flow not in seen:
            seen[flow] = lookup(ns, iface, xs, r)
        want = seen[flow]
        if r.get("target") != want["target"]:
            die(f"{flow}: trace says {r.get('target')}, lookup says {want['target']}")
        if r.get("service") != want.get("service"):
            die(f"{flow}: trace says service {r.get('service')}, lookup says "
                f"{want.get('service')}")
    by_reason = collections.Counter(c for r in recs for c in r["reasons"])
    delta = collections.Counter()
    sent = 0
    for path in counts:
        with open(path) as f:
            d = json.load(f)
        sent += d["sent"]
        delta.update(d["delta"]["counters"])
    for c in set(by_reason) | set(delta):
        if by_reason[c] != delta[c]:
            die(f"counter {c}: {by_reason[c]} records name it, it moved by {delta[c]}")
    if len(recs) != sent:
        die(f"{len(recs)} records for {sent} packets sent")
    print(json.dumps({"records": len(recs), "flows": len(seen), "reasons": by_reason},
                     sort_keys=True))


def pcap(path):
    p = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.comment",
                        "-e", "ip.src", "-e", "udp.dstport"],
                       capture_output=True, text=True, timeout=60)
    if p.returncode:
        die(f"tshark -r {path}: {p.stderr.strip()}")
    lines = [line for line in p.stdout.splitlines() if line]
    print(json.dumps({"packets": len(lines),
                      "comments": [line.split("\t")[0] for line in lines],
                      "sources": sorted({line.split("\t")[1] for line in lines})}))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "agree":
        agree(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif len(sys.argv) == 3 and sys.argv[1] == "pcap":
        pcap(sys.argv[2])
    else:
        die(__doc__)


if __name__ == "__main__":
    main()
