#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Prometheus text exposition, read back for the metrics tests (test_metrics.sh).

parse FILE       check what promtool does not: every sample's family has one HELP and
                 one TYPE line before it, one group per name, no series twice, label
                 values unescaped correctly; print {"name{k=v,...}": value} as JSON.
compare PROM STATS_JSON
                 the data-plane series of PROM against `xdpsteer stats --json`: every
                 counter, target, service and backend figure equal, exactly, and no
                 series of those families that the JSON does not have. Prints the
                 number of series compared, or each difference and exits 1.
same A B         the data-plane series of two expositions are equal (stats --format
                 prometheus against the agent's /metrics).
"""
import json
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


def parse(path):
    series, helps, types, done = {}, {}, {}, set()
    current = None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        where = f"{path}:{n}"
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name = line.split(" ", 3)[1:3]
            table = helps if kind == "HELP" else types
            if name in table:
                sys.exit(f"{where}: second {kind} for {name}")
            if name != current:
                if name in done:
                    sys.exit(f"{where}: {name} comes back after another family")
                done.add(name)
                current = name
            table[name] = line.split(" ", 3)[3]
            continue
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            sys.exit(f"{where}: not a sample: {line}")
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        if name != current or name not in helps or name not in types:
            sys.exit(f"{where}: {name} has no HELP and TYPE right before its samples")
        pairs, rest = [], labels
        while rest:
            lm = LABEL.match(rest)
            if not lm:
                sys.exit(f"{where}: bad labels: {labels}")
            pairs.append((lm.group(1), unescape(lm.group(2))))
            rest = rest[lm.end():]
        key = name + "{" + ",".join(f"{k}={v}" for k, v in pairs) + "}"
        if key in series:
            sys.exit(f"{where}: series {key} twice")
        series[key] = float(value) if ("." in value or "e" in value or value == "NaN") else int(value)
    return series


# The data-plane families stats --json has, and how a JSON object names its series.
def expected(st):
    ifc = st["ifname"]
    out = {}
    for reason, v in st["counters"].items():
        out[("xdpsteer_reason_packets_total", ifc, reason)] = v
    for t in st["targets"]:
        name = f"cpu {t['cpu']}" if "cpu" in t else f"dev {t['dev']}"
        for fam, field in (("target_packets_total", "packets"), ("target_bytes_total", "bytes"),
                           ("target_dequeued_packets_total", "dequeued"),
                           ("target_dropped_packets_total", "dropped"),
                           ("target_pinned_flows", "pinned")):
            out[("xdpsteer_" + fam, ifc, name)] = t[field]
        out[("xdpsteer_target_draining", ifc, name)] = int(t["draining"])
    pinned = sum(t["pinned"] for t in st["targets"])
    for s in st["services"]:
        for fam, field in (("service_packets_total", "packets"), ("service_bytes_total", "bytes"),
                           ("service_no_backend_packets_total", "no_backend"),
                           ("service_too_big_packets_total", "too_big")):
            out[("xdpsteer_" + fam, ifc, s["service"])] = s[field]
        for b in s["backends"]:
            for fam, field in (("backend_packets_total", "packets"), ("backend_bytes_total", "bytes"),
                               ("backend_flows_opened_total", "flows_opened"),
                               ("backend_flows_closed_total", "flows_closed"),
                               ("backend_pinned_flows", "pinned")):
                out[("xdpsteer_" + fam, ifc, s["service"], b["backend"])] = b[field]
            out[("xdpsteer_backend_draining", ifc, s["service"], b["backend"])] = int(b["draining"])
            # Health: probes and since only where an agent's health file covers the backend.
            be = (ifc, s["service"], b["backend"])
            out[("xdpsteer_backend_health_checked",) + be] = int("probes" in b)
            out[("xdpsteer_backend_healthy",) + be] = int(b.get("health") != "down")
            out[("xdpsteer_backend_health_last_change_timestamp_seconds",) + be] = \
                b.get("health_since", 0)
            out[("xdpsteer_backend_health_probes_total",) + be] = b.get("probes", 0)
            out[("xdpsteer_backend_health_probe_failures_total",) + be] = b.get("probe_failures", 0)
            pinned += b["pinned"]
    out[("xdpsteer_pinned_flows", ifc)] = pinned
    return out


def key_of(series_key):
    name, _, labels = series_key.partition("{")
    d = dict(kv.split("=", 1) for kv in labels.rstrip("}").split(",") if kv)
    if name == "xdpsteer_reason_packets_total":
        return (name, d["iface"], d["reason"])
    if name.startswith("xdpsteer_target_"):
        return (name, d["iface"], d["target"])
    if name.startswith("xdpsteer_service_"):
        return (name, d["iface"], d["service"])
    if name.startswith("xdpsteer_backend_") and name != "xdpsteer_backend_weight":
        return (name, d["iface"], d["service"], d["backend"])
    if name == "xdpsteer_pinned_flows":
        return (name, d["iface"])
    return None


def compare(prom, stats):
    want = expected(json.load(open(stats)))
    ifaces = {k[1] for k in want}
    got = {}
    for k, v in parse(prom).items():
        kk = key_of(k)
        if kk and kk[1] in ifaces:
            got[kk] = v
    bad = [f"{k}: metrics {got.get(k, 'missing')}, stats --json {want.get(k, 'missing')}"
           for k in sorted(set(want) | set(got), key=str) if got.get(k) != want.get(k)]
    for b in bad:
        print("differs:", b)
    if bad:
        sys.exit(1)
    print(len(want))


def dataplane(path):
    return {k: v for k, v in parse(path).items() if not k.startswith("xdpsteer_agent_")}


def main():
    verb = sys.argv[1]
    if verb == "parse":
        print(json.dumps(parse(sys.argv[2]), sort_keys=True))
    elif verb == "compare":
        compare(sys.argv[2], sys.argv[3])
    elif verb == "same":
        a, b = dataplane(sys.argv[2]), dataplane(sys.argv[3])
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        for k in diff:
            print(f"differs: {k}: {a.get(k, 'missing')} against {b.get(k, 'missing')}")
        if diff:
            sys.exit(1)
        print(len(a))
    else:
        sys.exit(f"prom.py: unknown verb {verb}")


if __name__ == "__main__":
    main()
