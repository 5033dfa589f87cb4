#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""The generated regions of the docs, and the checks of what is not generated.

    docs.py write --cli BUILD/xdpsteer --stage DIR    (make docs)
    docs.py check --cli BUILD/xdpsteer --stage DIR    (tests/ns/test_docs.sh)

A region sits between two marker lines and holds what the binary (or make
install) prints, so the docs cannot drift from the command table:

    <!-- synopsis: begin [SELECTOR] -->    markdown (docs/usage.md), a code block
    <!-- synopsis: end -->                 of `xdpsteer help --doc markdown`
    ; synopsis begin [SELECTOR]            scdoc (man/xdpsteer.8.scd), the
    ; synopsis end                         lines of `help --doc scdoc`
    <!-- install-tree: begin -->           docs/install.md: the files make install
    <!-- install-tree: end -->             DESTDIR=DIR put down (--stage DIR)

SELECTOR is empty (every command) or comma-separated command words, each an
object (`target`: all its commands) or one command (`target add`).

`check` also compares man/xdpsteer.conf.5.scd's FORMAT entries with the
file's key tables (`help --doc keys`): every key documented on its object's
line, no key documented that the parser refuses; and finds every option of
the table described in docs/*.md. It prints what differs and exits 1;
`write` rewrites the regions (the other checks are not generated: they only
fail).
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILES = ["docs/usage.md", "docs/install.md", "man/xdpsteer.8.scd"]
MARK_MD = re.compile(r"^<!-- (synopsis|install-tree): begin ?(.*?) ?-->$")
END_MD = "<!-- {}: end -->"
MARK_SCD = re.compile(r"^; (synopsis) begin ?(.*)$")
END_SCD = "; {} end"
# The root the install tree is shown under (docs/install.md's example).
SHOWN_ROOT = "/tmp/x"


def doc(cli, fmt, words):
    cmd = [cli, "help", "--doc", fmt] + words.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("docs.py: %s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


def synopsis(cli, fmt, selector):
    parts = [doc(cli, fmt, s.strip()) for s in selector.split(",")] if selector else \
        [doc(cli, fmt, "")]
    if fmt == "scdoc":
        # One block of lines joined by scdoc's line break, as the binary joins its own.
        return "++\n".join(p.rstrip("\n") for p in parts) + "\n"
    return "```\n" + "".join(parts) + "```\n"


def install_tree(stage):
    out = []
    for root, dirs, files in os.walk(stage):
        rel = os.path.relpath(root, stage)
        for f in files:
            out.append(os.path.normpath(os.path.join(SHOWN_ROOT, rel, f)))
        if not dirs and not files:
            out.append(os.path.normpath(os.path.join(SHOWN_ROOT, rel)) + "/")
    return "```\n" + "".join(p + "\n" for p in sorted(out)) + "```\n"


def regenerate(path, text, args):
    """@text with every region rewritten; an unclosed region is an error."""
    lines = text.splitlines(keepends=True)
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = MARK_MD.match(line.rstrip("\n")) or MARK_SCD.match(line.rstrip("\n"))
        if not m:
            continue
        kind, sel = m.group(1), m.group(2).strip()
        end = (END_SCD if line.startswith(";") else END_MD).format(kind)
        j = i
        while j < len(lines) and lines[j].rstrip("\n") != end:
            j += 1
        if j == len(lines):
            sys.exit("docs.py: %s:%d: region '%s' has no '%s' line" % (path, i, kind, end))
        if kind == "install-tree":
            out.append(install_tree(args.stage))
        else:
            out.append(synopsis(args.cli, "scdoc" if line.startswith(";") else "markdown",
                                sel))
        i = j
    return "".join(out)


def check_coverage(cli, texts):
    """The regions that must exist: every command in the man page, the whole
    list in usage.md, the install tree. Deleting a marker must not pass."""
    bad = []
    if "<!-- synopsis: begin -->\n" not in texts["docs/usage.md"]:
        bad.append("docs/usage.md: no '<!-- synopsis: begin -->' region (every command)")
    if "<!-- install-tree: begin -->\n" not in texts["docs/install.md"]:
        bad.append("docs/install.md: no '<!-- install-tree: begin -->' region")
    man = texts["man/xdpsteer.8.scd"]
    for line in doc(cli, "scdoc", "").splitlines():
        line = line[:-2] if line.endswith("++") else line
        if line + "\n" not in man and line + "++\n" not in man:
            bad.append("man/xdpsteer.8.scd: no synopsis region shows %s" % line.split("* ")[0] +
                       "*")
    for b in bad:
        print(b)
    return len(bad)


def check_options(cli):
    """Every option of the table is described somewhere in docs/*.md, outside
    the generated synopses: as `--NAME`, or, being also a file key, as
    `NAME` (health.md's check keys, configuration.md's places)."""
    import glob
    opts = sorted(set(re.findall(r"\[--([a-z0-9-]+)", doc(cli, "markdown", ""))))
    keys = {line.split()[1] for line in doc(cli, "keys", "").splitlines()}
    text = "".join(open(f).read() for f in sorted(glob.glob(os.path.join(TOP, "docs/*.md"))))
    text = re.sub(r"<!-- synopsis: begin.*?<!-- synopsis: end -->", "", text, flags=re.S)
    bad = 0
    for o in opts:
        if re.search(r"--%s(?![a-z0-9-])" % re.escape(o), text):
            continue
        if o in keys and re.search(r"`%s[` ]" % re.escape(o), text):
            continue
        print("docs/*.md: option --%s is in the command table, but no doc describes it" % o)
        bad += 1
    return bad


# ---- xdpsteer.conf(5) against the key tables ------------------------------

def documented_keys(path):
    """{object: {key: line}} from the entry lines of the FORMAT section."""
    objects = {"target": "target", "service": "service", "backend": "backend"}
    found, section = {}, None
    lines = open(path).read().splitlines()
    for n, line in enumerate(lines, 1):
        if line.startswith("# "):
            section = line[2:].strip()
            continue
        # An entry: a line of words, then its tab-indented description.
        if section != "FORMAT" or not line.startswith("*") or \
                not (n < len(lines) and lines[n].startswith("\t")):
            continue
        bold = re.findall(r"\*([^*\s][^*]*)\*", line)
        first = bold[0].split()[0]
        obj = objects.get(first, "setting")
        keys = bold[1:] if obj != "setting" else bold[:1]
        for k in keys:
            found.setdefault(obj, {}).setdefault(k, n)
    return found


def check_keys(cli):
    path = os.path.join(TOP, "man/xdpsteer.conf.5.scd")
    tables = {}
    for line in doc(cli, "keys", "").splitlines():
        obj, key = line.split()[:2]
        tables.setdefault(obj, set()).add(key)
    found = documented_keys(path)
    bad = 0
    for obj in sorted(set(tables) | set(found)):
        want, got = tables.get(obj, set()), found.get(obj, {})
        for k in sorted(want - set(got)):
            print("man/xdpsteer.conf.5.scd: %s key '%s' is not documented in FORMAT" % (obj, k))
            bad += 1
        for k in sorted(set(got) - want):
            print("man/xdpsteer.conf.5.scd:%d: %s key '%s' is documented, but the parser "
                  "refuses it" % (got[k], obj, k))
            bad += 1
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["write", "check"])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--stage", required=True, help="a make install DESTDIR")
    ap.add_argument("--what", choices=["all", "regions", "keys", "options"], default="all",
                    help="check: the generated regions, the conf keys, the options "
                    "described, or all")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.stage, "usr/local/sbin/xdpsteer")):
        sys.exit("docs.py: %s holds no make install DESTDIR=%s (PREFIX=/usr/local)" %
                 (args.stage, args.stage))
    bad, texts = 0, {}
    for rel in FILES if args.what in ("all", "regions") else []:
        path = os.path.join(TOP, rel)
        old = open(path).read()
        new = regenerate(rel, old, args)
        texts[rel] = new
        if new == old:
            continue
        if args.mode == "write":
            with open(path, "w") as f:
                f.write(new)
            print("docs.py: rewrote %s" % rel)
        else:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                "a/" + rel, "b/" + rel + " (as the binary prints it)"))
            bad += 1
    if args.mode == "check":
        if bad:
            print("docs.py: %d file(s) differ from what %s prints: run make docs" %
                  (bad, args.cli))
        if args.what in ("all", "regions"):
            bad += check_coverage(args.cli, texts)
        if args.what in ("all", "keys"):
            bad += check_keys(args.cli)
        if args.what in ("all", "options"):
            bad += check_options(args.cli)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
