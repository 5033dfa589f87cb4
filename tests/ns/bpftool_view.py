#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Check that every pinned map of an attachment reads well in bpftool alone.

    bpftool_view.py PIN_DIR OUT_DIR

For each map pinned in PIN_DIR, `bpftool -j map dump pinned` is parsed and
walked beside the map's BTF (`bpftool -j btf dump id`), and each entry must:
  - be "formatted": the map has BTF, so bpftool names every field;
  - have no unnamed member and no union (a union prints each of its members,
    so every entry would carry a meaningless half, as pools once did);
  - print each enum-typed field as the name of one of its enumerators;
  - type as an enum each field that holds one (ENUM_FIELDS), and hold flag
    bits as named bools (no "flags" word of bits bpftool prints as a number);
  - hold addresses (ADDR_FIELDS) as byte arrays;
  - pools: header fields (xs_pool_hdrs) never in the same entry as a bucket.
Maps whose type the kernel gives no BTF (map-in-map, cpumap, devmap) are
named in the output with the raw form bpftool prints for them.
Writes each dump to OUT_DIR/NAME.json; prints one line per map; exit 1 on a
failed check, with every failure listed.
"""
import json
import os
import re
import subprocess
import sys

# Map types whose values the kernel refuses BTF for (map_check_no_btf):
# bpftool can only print their bytes.
NO_BTF_TYPES = {"array_of_maps", "hash_of_maps", "cpumap", "devmap", "devmap_hash"}
# Kernel types inside our values, with unnamed members by their own design.
KERNEL_OPAQUE = {"bpf_timer"}
# Fields that hold an enum (their BTF type must be ENUM).
ENUM_FIELDS = {"kind", "algo", "family", "encap", "proto", "domain"}
# Fields that hold an address: byte arrays of 4 or 16.
ADDR_FIELDS = {"addr", "vip", "src", "dst", "saddr", "daddr", "src4", "src6"}
HDR_FIELDS = {"seed", "n_buckets", "digest", "algo", "hand_size"}


def bpftool(*args):
    out = subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("bpftool %s: %s" % (" ".join(args), out.stderr.strip()))
    return json.loads(out.stdout)


class Checker:
    def __init__(self):
        self.fails = {}  # (field path without indexes, what) -> [count, first place]
        self.btf_cache = {}

    def fail(self, where, what):
        k = (re.sub(r"\[\d+\]", "[]", where), what)
        self.fails.setdefault(k, [0, where])[0] += 1

    def types(self, btf_id):
        if btf_id not in self.btf_cache:
            self.btf_cache[btf_id] = {t["id"]: t for t in bpftool("btf", "dump", "id", str(btf_id))["types"]}
        return self.btf_cache[btf_id]

    def resolve(self, types, tid):
        t = types[tid]
        while t["kind"] in ("TYPEDEF", "VOLATILE", "CONST", "RESTRICT"):
            t = types[t["type_id"]]
        return t

    def walk(self, types, tid, val, where, field=None):
        t = self.resolve(types, tid)
        kind = t["kind"]
        if field in ENUM_FIELDS and kind != "ENUM":
            self.fail(where, "holds an enum but is typed %s %s: bpftool prints a number"
                      % (kind, t.get("name", "")))
        if field in ADDR_FIELDS:
            elem = self.resolve(types, t["type_id"]) if kind == "ARRAY" else None
            if not elem or elem["kind"] != "INT" or elem["size"] != 1 or t["nr_elems"] not in (4, 16):
                self.fail(where, "an address that is not a byte array of 4 or 16")
        if field == "flags":
            self.fail(where, "a word of flag bits: bpftool prints a number, not the flags' names")
        if kind == "STRUCT":
            if t.get("name") in KERNEL_OPAQUE:
                return
            if not isinstance(val, dict):
                self.fail(where, "struct %s printed as %r" % (t.get("name"), val))
                return
            names = [m["name"] for m in t["members"]]
            if "" in names:
                self.fail(where, "struct %s has an unnamed member" % t.get("name"))
            if sorted(val) != sorted(n for n in names if n):
                self.fail(where, "fields %s, BTF says %s" % (sorted(val), names))
            for m in t["members"]:
                if m["name"] in val:
                    self.walk(types, m["type_id"], val[m["name"]], where + "." + m["name"], m["name"])
        elif kind == "UNION":
            self.fail(where, "union %s: every entry prints each of its members" % t.get("name"))
        elif kind == "ENUM":
            names = {e["name"] for e in t["values"]}
            if not isinstance(val, str) or val not in names:
                self.fail(where, "enum %s printed as %r, not by name" % (t.get("name"), val))
        elif kind == "ARRAY":
            elem = self.resolve(types, t["type_id"])
            if elem["kind"] == "INT" and (elem.get("encoding") == "CHAR" or elem.get("name") == "char"):
                # A char array is text, and bpftool prints it as a string.
                if not isinstance(val, str) or len(val) >= t["nr_elems"]:
                    self.fail(where, "char array printed as %r, not as a string" % (val,))
                return
            if not isinstance(val, list) or len(val) != t["nr_elems"]:
                self.fail(where, "array printed as %r" % (val,))
                return
            for i, v in enumerate(val):
                self.walk(types, t["type_id"], v, "%s[%d]" % (where, i))
        elif kind == "INT":
            ok = isinstance(val, bool) if t.get("encoding") == "BOOL" else \
                isinstance(val, int) and not isinstance(val, bool)
            if not ok:
                self.fail(where, "int %s printed as %r" % (t.get("name"), val))
        else:
            self.fail(where, "unexpected BTF kind %s" % kind)

    def check_map(self, path, out_dir):
        name = os.path.basename(path)
        info = bpftool("map", "show", "pinned", path)
        if info["type"] == "ringbuf":
            # A stream of records (xdpsteer trace reads them), not entries: nothing to dump.
            with open(os.path.join(out_dir, name + ".json"), "w") as f:
                json.dump([], f)
            print("%-18s %-14s records, not entries (read by `xdpsteer trace`)"
                  % (name, info["type"]))
            return
        dump = bpftool("map", "dump", "pinned", path)
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(dump, f)
        if info["type"] in NO_BTF_TYPES:
            if info.get("btf_id"):
                self.fail(name, "a %s with BTF: check it like the others" % info["type"])
            print("%-18s %-14s %6d entries: raw bytes (the kernel takes no BTF for a %s)"
                  % (name, info["type"], len(dump), info["type"]))
            return
        if not info.get("btf_id"):
            self.fail(name, "no BTF: bpftool prints bytes, not fields")
            return
        types = self.types(info["btf_id"])
        key_t = bpftool("btf", "dump", "map", "pinned", path, "key")["types"][0]["id"]
        val_t = bpftool("btf", "dump", "map", "pinned", path, "value")["types"][0]["id"]
        is_pool = re.fullmatch(r"pool\d+", name) is not None
        for i, e in enumerate(dump):
            where = "%s[%d]" % (name, i)
            if "formatted" not in e:
                self.fail(where, "not formatted: bpftool found no BTF for it")
                continue
            f = e["formatted"]
            self.walk(types, key_t, f["key"], where + ".key")
            values = [v["value"] for v in f["values"]] if "values" in f else [f["value"]]
            for v in values:
                self.walk(types, val_t, v, where + ".value")
                if is_pool and isinstance(v, dict) and HDR_FIELDS & set(v):
                    self.fail(where, "a pool entry that carries header fields beside its bucket")
                if name == "xs_pool_hdrs" and isinstance(v, dict) and "target" in v:
                    self.fail(where, "a pool header that carries a bucket")
        print("%-18s %-14s %6d entries: every field named, enums by name, addresses as bytes"
              % (name, info["type"], len(dump)))


def main():
    pin_dir, out_dir = sys.argv[1], sys.argv[2]
    c = Checker()
    maps = 0
    for name in sorted(os.listdir(pin_dir)):
        path = os.path.join(pin_dir, name)
        try:
            bpftool("map", "show", "pinned", path)
        except RuntimeError:
            continue  # a program or a link
        maps += 1
        try:
            c.check_map(path, out_dir)
        except (RuntimeError, KeyError, json.JSONDecodeError) as err:
            c.fail(name, "cannot check: %s" % err)
    print("%d maps checked" % maps)
    for (where, what), (n, first) in sorted(c.fails.items()):
        print("FAIL %s: %s (%d entries, first %s)" % (where, what, n, first))
    return 1 if c.fails or not maps else 0


if __name__ == "__main__":
    sys.exit(main())
