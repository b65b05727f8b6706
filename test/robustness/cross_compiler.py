#!/usr/bin/env python3
"""Same input -> same bytes, whichever compiler built waveopt.

  cross_compiler.py --a WAVEOPT_A --b WAVEOPT_B --src REPO --tmp DIR
                    [--only-O] [--jobs N]

Runs two waveopt binaries (CI: the gcc build and the clang sanitizer build)
over every usable test shader (as test/robustness/sweep.py finds them),
compiled once by A's front end: -O, and each pass alone after --ssa-rewrite
(--only-O: -O alone, which runs every pass; scripts/test-sanitize.sh runs
that against its clang build, where each run pays ASan's start-up).
Output modules and YAML remarks must be identical byte for byte. The
classic cause of a difference is C++'s unspecified order of evaluating
function arguments: `f(Emit(x), Emit(y))` emits in one order under gcc and
the other under clang. Prints one line per difference and a summary; exit 1
when any differ.
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402  (find_shaders, input_args, PASSES)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--only-O", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    steps = [["-O"]]
    if not a.only_O:
        steps += [["--ssa-rewrite", "--" + p] for p in sweep.PASSES]

    def one(shader):
        args = sweep.input_args(shader)
        if args is None:
            return None
        stem = os.path.join(a.tmp, os.path.relpath(shader, a.src).replace("/", "_"))
        if subprocess.run([a.a] + args + ["-o", stem + ".in.spv"], capture_output=True).returncode:
            return None
        diffs = []
        for step in steps:
            got = []
            for tag, exe in (("a", a.a), ("b", a.b)):
                out, yaml = "%s.%s.spv" % (stem, tag), "%s.%s.yaml" % (stem, tag)
                r = subprocess.run([exe] + step + [stem + ".in.spv", "-o", out,
                                                   "--remarks-output=" + yaml],
                                   capture_output=True)
                got.append((r.returncode, sweep.read(out), sweep.read(yaml)))
                for f in (out, yaml):
                    if os.path.exists(f):
                        os.remove(f)
            if got[0] != got[1]:
                what = [w for w, x, y in zip(("exit status", "module", "remarks"), *got) if x != y]
                diffs.append("%s %s: %s differ" % (os.path.relpath(shader, a.src),
                                                   " ".join(step), " and ".join(what)))
        return diffs

    shaders = sweep.find_shaders(a.src)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(one, shaders))
    usable = [r for r in results if r is not None]
    diffs = sorted(d for r in usable for d in r)
    for d in diffs:
        print("DIFFERS: " + d)
    print("cross-compiler: %d shaders, %d usable, %d steps each, %d differ"
          % (len(shaders), len(usable), len(steps), len(diffs)))
    return 1 if diffs or len(usable) < sweep.MIN_SHADERS else 0


if __name__ == "__main__":
    sys.exit(main())
