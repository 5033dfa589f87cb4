#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
"""Run the examples of a document and compare their output with the document's.

    examples.py --doc README.md --ns NS --xs BUILD/xdpsteer --dir DIR \\
                --map eth1=IFACE --map eth2=IFACE2 [--prompt $] [--until WORDS] [--list]

An example is a code block of root-prompt lines: `# COMMAND`, then the lines
it prints. The examples run in order, in one shell per command inside
network namespace NS (nsenter --net, so bpffs stays visible), from DIR,
with `xdpsteer` on the PATH meaning --xs. What is run and compared:

- Interface names are mapped (--map DOC=TESTBED, as whole words), in the
  commands and in the printed lines alike.
- Run-specific values are replaced by a placeholder on both sides before
  the comparison (PLACEHOLDERS below: an ifindex, a prog id).
- A command whose shown output starts `xdpsteer: ` (an error) must exit
  non-zero and print those lines. Any other whose block shows no output
  must exit 0; its output is not
  compared (the document leaves it out). A document none of whose examples
  shows output fails, unless --run-only (xdpsteer(8)'s EXAMPLES). One that shows output must exit 0
  and print exactly those lines, stdout and stderr together.
- `# mount -t bpf ...` is not run (the testbed has bpffs); `# $EDITOR FILE`
  runs the edit its comment describes, from EDITS below; `# xdpsteer agent
  ...` is not run (a daemon that runs until stopped; test_agent.sh runs
  it), nor is `trace` (it too runs until stopped; test_trace.sh runs it), nor are `# systemctl ...` and `version` (its commit and hashes).
- --prompt $ reads `$ COMMAND` blocks instead (docs/usage.md's); --until
  WORDS stops after the first command that starts with WORDS (a document
  run as the setup of another, in the same --dir).

Exit 0 when every example matched, else 1 with each difference printed.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

# Values that differ from run to run, and what both sides become.
PLACEHOLDERS = [
    (re.compile(r"\bifindex \d+"), "ifindex N"),
    (re.compile(r"\bprog id \d+"), "prog id N"),
    # The testbed is not the initial network namespace: its state sits in
    # netns:COOKIE/ (docs/design.md), where the document's host has none.
    (re.compile(r"/sys/fs/bpf/xdpsteer/netns:\d+/"), "/sys/fs/bpf/xdpsteer/"),
]

# The edits a document leaves to a person (`# $EDITOR FILE  # what`): the
# comment names the edit, done here by a script of (pattern, replacement)
# applied to FILE, and a line appended. An unknown comment fails the run.
EDITS = {
    "weight 3 -> 2, a third backend": (
        [(r"^(backend 10\.0\.0\.10:80/tcp 192\.168\.1\.12 weight )3\b", r"\g<1>2")],
        "backend 10.0.0.10:80/tcp 192.168.1.13\n"),
}

# Commands not run, by their first words, and why (printed).
SKIP = [
    ("mount -t bpf", "the testbed mounts bpffs"),
    ("xdpsteer agent", "a daemon: it runs until stopped (test_agent.sh runs it)"),
    ("xdpsteer trace", "it runs until stopped (test_trace.sh runs it)"),
    ("systemctl", "needs systemd and the installed unit (test_cli.sh verifies the unit)"),
    ("xdpsteer version", "build-specific: the commit and the objects' SHA-256"),
]


def examples(path, prompt="#"):
    """[(line number, command, [expected lines])] of every block whose first
    line is `PROMPT COMMAND` (a block of bare commands, with `# ...`
    comments, is not one). A block indented in a list item is read without
    its indent."""
    out, block, cur, indent = [], None, None, ""
    pre = prompt + " "
    for n, line in enumerate(open(path).read().splitlines(), 1):
        if line.lstrip().startswith("```"):
            block = [] if block is None else None
            indent = line[:len(line) - len(line.lstrip())]
            cur = None
            continue
        if block is None:
            continue
        line = line[len(indent):] if line.startswith(indent) else line
        block.append(line)
        if not block[0].startswith(pre):
            continue
        if line.startswith(pre):
            cur = (n, line[len(pre):], [])
            out.append(cur)
        elif cur is not None:
            cur[2].append(line)
    return out


def mapped(text, maps):
    for doc, real in maps:
        text = re.sub(r"\b%s\b" % re.escape(doc), real, text)
    return text


def normal(line):
    for pat, rep in PLACEHOLDERS:
        line = pat.sub(rep, line)
    return line.rstrip()


def editor(cmd, args, maps):
    """`$EDITOR FILE  # what`: the scripted edit named by what."""
    m = re.match(r"\$EDITOR (\S+)\s+#\s*(.*)$", cmd)
    if not m or m.group(2).strip() not in EDITS:
        return "no scripted edit for '%s' (tests/ns/examples.py, EDITS)" % cmd
    path = "%s/%s" % (args.dir, mapped(m.group(1), maps))
    try:
        text = open(path).read()
    except OSError as e:
        return "%s: %s" % (cmd, e)
    subs, append = EDITS[m.group(2).strip()]
    for pat, rep in subs:
        text, k = re.subn(pat, rep, text, flags=re.M)
        if not k:
            return "%s: the edit '%s' found nothing to change in:\n%s" % (cmd, pat, text)
    open(path, "w").write(text + append)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--doc", required=True)
    ap.add_argument("--ns", required=True)
    ap.add_argument("--xs", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--map", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--prompt", default="#", help="the prompt of the examples: # or $")
    ap.add_argument("--until", help="stop after the first command that starts so")
    ap.add_argument("--run-only", action="store_true",
                    help="a document whose examples show no output (a man page's)")
    args = ap.parse_args()
    maps = [tuple(m.split("=", 1)) for m in args.map]
    bindir = args.xs.rsplit("/", 1)[0]
    bad = compared = 0
    stop = False
    for n, cmd, want in examples(args.doc, args.prompt):
        if args.until and stop:
            break
        stop = args.until and cmd.startswith(args.until)
        where = "%s:%d" % (os.path.basename(args.doc), n)
        skip = [why for first, why in SKIP if cmd.startswith(first)]
        if args.list or skip:
            print("%s: %s %s%s" % (where, args.prompt, cmd, "   (not run: %s)" % skip[0] if skip else ""))
            continue
        if cmd.startswith("$EDITOR"):
            err = editor(cmd, args, maps)
            print("%s: %s %s   (scripted)" % (where, args.prompt, cmd))
            if err:
                print("FAIL %s: %s" % (where, err))
                bad += 1
            continue
        run = mapped(cmd, maps)
        print("%s: %s %s" % (where, args.prompt, run))
        r = subprocess.run(["nsenter", "--net=/run/netns/" + args.ns, "--", "sh", "-c", run],
                           cwd=args.dir, capture_output=True, text=True,
                           env={"PATH": bindir + ":/usr/sbin:/usr/bin:/sbin:/bin"})
        got = (r.stdout + r.stderr).splitlines()
        if os.environ.get("V") == "1":
            print("\n".join("  | " + g for g in got))
        # An example of an error shows it: it must fail, with those lines.
        refused = bool(want) and want[0].startswith("xdpsteer: ")
        if refused and not r.returncode:
            print("FAIL %s: exit status 0, where the document shows an error" % where)
            bad += 1
        elif r.returncode and not refused:
            print("FAIL %s: exit status %d:\n%s" % (where, r.returncode,
                                                     "\n".join("    " + g for g in got)))
            bad += 1
            continue
        if not want:
            continue
        compared += 1
        w = [normal(mapped(x, maps)) for x in want]
        g = [normal(x) for x in got]
        if w != g:
            print("FAIL %s: the output differs from the document's:" % where)
            for d in difflib.unified_diff(w, g, "document", "binary", lineterm=""):
                print("    " + d)
            bad += 1
    if not compared and not args.list and not args.run_only:
        print("FAIL: no example of %s shows its output: nothing was compared" % args.doc)
        bad += 1
    if bad:
        print("%d example(s) of %s differ from the binary" % (bad, args.doc))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
