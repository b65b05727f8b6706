#!/usr/bin/env python3
"""Checks --only-rewrite over every applied site of one input.

  only_rewrite_union.py WAVEOPT SPIRV_VAL ENV INPUT [waveopt flags]

Runs `waveopt INPUT -O <flags>`, then once per applied site (one pass and
one location: file:line, or %<id> for an input without lines) with
--only-rewrite=<pass>@<site>. Each output must pass `spirv-val --target-env
ENV`, each run must apply at its site and nowhere else (but where the same
pass's rewrite takes other sites of the full run along: a note), and the applied
remarks of all runs together must be the full run's (compared by pass,
name and location). MergedBarrier is selected by no run of its own: it is
part of its tree's rewrite (docs/cli.md). Prints one line per finding and
a summary; exit 1 when something does not hold.
"""
import os
import re
import subprocess
import sys
import tempfile

REMARK = re.compile(r"^--- !(\w+)\n(.*?)^\.\.\.$", re.M | re.S)
FIELD = re.compile(r"^(Pass|Name|Site):\s+'(.*)'$", re.M)
LOC = re.compile(r"^DebugLoc:\s+\{ File: '(.*)', Line: (\d+), Column: \d+ \}$", re.M)


def applied(yaml_text):
    """{(pass, name, where)} of the applied remarks that have a location."""
    out = set()
    for kind, body in REMARK.findall(yaml_text):
        if kind != "Passed":
            continue
        fields = dict(FIELD.findall(body))
        loc = LOC.search(body)
        site = re.search(r"%(\d+)", fields.get("Site", ""))
        if loc:
            where = "%s:%s" % (loc.group(1).replace("''", "'"), loc.group(2))
        elif site:
            where = "%" + site.group(1)
        else:
            continue
        out.add((fields["Pass"], fields["Name"], where))
    return out


def run(waveopt, args, tmp, tag):
    out, yaml = os.path.join(tmp, tag + ".spv"), os.path.join(tmp, tag + ".yaml")
    p = subprocess.run([waveopt] + args + ["-o", out, "--remarks-output=" + yaml],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    with open(yaml) as f:
        return out, f.read()


def main():
    waveopt, spirv_val, env, source = sys.argv[1:5]
    base = [source, "-O"] + sys.argv[5:]
    failures, notes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        _, full_yaml = run(waveopt, base, tmp, "full")
        if full_yaml is None:
            print("the full run failed")
            return 1
        full = applied(full_yaml)
        sites = sorted({(p, w) for p, n, w in full if n != "MergedBarrier"})
        union = set()
        for i, (pass_name, where) in enumerate(sites):
            flag = "--only-rewrite=%s@%s" % (pass_name, where)
            out, yaml = run(waveopt, base + [flag], tmp, "site%d" % i)
            if out is None:
                failures.append("%s: waveopt failed: %s" % (flag, yaml))
                continue
            val = subprocess.run([spirv_val, "--target-env", env, out],
                                 capture_output=True, text=True)
            if val.returncode != 0:
                failures.append("%s: not valid: %s" % (flag, val.stderr.strip()))
            got = applied(yaml)
            elsewhere = {r for r in got if (r[0], r[2]) != (pass_name, where)
                         and r[1] != "MergedBarrier"}
            # One rewrite of several sites (prereduce-atomics' deferred
            # group): the same pass's sites of the full run come along.
            along = {r for r in elsewhere if r[0] == pass_name and r in full}
            if along:
                notes.append("note: %s comes with %s" % (flag, ", ".join(r[2] for r in sorted(along))))
            if elsewhere - along:
                failures.append("%s: applied elsewhere too: %s" % (flag, sorted(elsewhere - along)))
            if not any((r[0], r[2]) == (pass_name, where) for r in got):
                failures.append("%s: applied nothing there" % flag)
            union |= got
        for r in sorted(full - union):
            failures.append("only in the full run: %s %s at %s" % r)
        for r in sorted(union - full):
            failures.append("only in single-site runs: %s %s at %s" % r)
    for f in notes + failures:
        print(f)
    print("%d site(s), %s" % (len(sites), "all hold" if not failures else
                              "%d finding(s)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
