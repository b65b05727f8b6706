#!/usr/bin/env python3
"""Occupancy check: every rewrite of the differential suite, compiled by RADV
(ACO) for an AMD family on null hardware, keeps the original's occupancy
("Subgroups per SIMD"), or is listed in occupancy-allowed.txt with the reason
it may lose it.

    occupancy.py [--bin DIR] [--suite test/diff] [--amd navi21] [--wave 64,32]
    occupancy.py --pair ORIGINAL REWRITE     # one explicit pair (negative control)
    occupancy.py --corpus DIR [--waveopt-flags="-O ..."]   # every module under DIR

For each `RUN: %diff %s ...` line of the suite (partners in Inputs/ and
`--against` lines are not rewrites), the original is the shader compiled with
the line's -D defines and the rewrite is `waveopt -O` of it (each distinct
shader and define set once; a rewrite identical to its original is skipped).
Every original and rewrite goes through one `waverun isa --format=tsv` call.
Fails (exit 1) when a rewrite has fewer subgroups per SIMD than its original
at some wave size and is not listed, when a listed case no longer loses
occupancy (the list must not rot), or when a rewrite does not compile where
its original does. An original the driver cannot compile for the family (e.g.
a float atomic RDNA2 lacks) is reported and skipped. Not timed: static
compiler statistics.

--corpus DIR checks every .spv, .spvasm and .comp under DIR the same way (the
rewrite made with --waveopt-flags, default -O) with no allowed list: a tool
for pass owners measuring a whole corpus. Modules waveopt or the driver
cannot take are reported and skipped; exit 1 when a rewrite loses occupancy.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def read_allowed(path):
    """{(case, wave): reason} from lines 'CASE WAVE REASON...'."""
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in ("32", "64"):
                raise SystemExit("occupancy: error: %s:%d: expected 'CASE WAVE REASON'" % (path, n))
            allowed[(parts[0], int(parts[1]))] = parts[2]
    return allowed


def suite_cases(suite):
    """[(case name, shader path, defines)] from the RUN lines, each once."""
    cases = []
    seen = set()
    for root, dirs, files in os.walk(suite):
        dirs[:] = sorted(d for d in dirs if d != "Inputs")
        for name in sorted(files):
            if os.path.splitext(name)[1] not in (".comp", ".hlsl", ".glsl", ".spvasm"):
                continue
            path = os.path.join(root, name)
            with open(path, errors="replace") as f:
                text = f.read()
            for m in re.finditer(r"RUN: %diff %s(.*)", text):
                args = m.group(1).split("|")[0]
                if "--against" in args:
                    continue
                flags = re.search(r'--waveopt-flags="([^"]*)"', args)
                flags = shlex.split(flags.group(1)) if flags else []
                defines = [f for f in flags if f.startswith("-D")]
                rel = os.path.relpath(path, suite)
                case = rel + "".join("[%s]" % d[2:] for d in defines)
                if case not in seen:
                    seen.add(case)
                    cases.append((case, path, defines))
    return cases


def corpus_cases(root):
    """[(name, path, [])] for every module under |root|, sorted."""
    cases = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if os.path.splitext(name)[1] in (".spv", ".spvasm", ".comp"):
                path = os.path.join(dirpath, name)
                cases.append((os.path.relpath(path, root), path, []))
    return cases


def compile_case(waveopt, tmp, i, case, flags=("-O",)):
    """Compiles case |i| with -O: (case, original, rewrite or None, error).
    The original is the source itself (waverun isa compiles it with the same
    glslang front end) unless it needs defines, which waverun isa would apply
    to every module: then waveopt compiles it without passes."""
    name, path, defines = case
    orig = path
    opt = os.path.join(tmp, "%d.opt.spv" % i)
    if defines:
        orig = os.path.join(tmp, "%d.orig.spv" % i)
        rc, _, err = run([waveopt, path, "-o", orig] + defines)
        if rc != 0:
            return name, orig, None, "waveopt cannot compile it: " + err.strip()
    rc, out, err = run([waveopt] + list(flags) + [path, "-o", opt, "--remarks=.*"] + defines)
    if rc != 0:
        return name, orig, None, "waveopt %s failed: %s" % (" ".join(flags), err.strip())
    if ": applied " not in out + err:
        return name, orig, None, None  # no pass fired: -O returns the input unchanged
    return name, orig, opt, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("WAVEOPT_BIN_DIR", os.path.join(REPO, "build", "bin")))
    ap.add_argument("--suite", default=os.path.join(REPO, "test", "diff"))
    ap.add_argument("--allowed", default=os.path.join(HERE, "occupancy-allowed.txt"))
    ap.add_argument("--amd", default="navi21", help="RADV family (default navi21: RDNA2)")
    ap.add_argument("--wave", default="64,32", help="wave sizes (default 64,32)")
    ap.add_argument("--pair", nargs=2, metavar=("ORIGINAL", "REWRITE"),
                    help="check this one pair instead of the suite")
    ap.add_argument("--corpus", help="check every module under this directory instead of the suite")
    ap.add_argument("--waveopt-flags", default="-O", help="--corpus: how the rewrite is made (default -O)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    waveopt = os.path.join(args.bin, "waveopt")
    waverun = os.path.join(args.bin, "waverun")
    allowed = {} if args.pair or args.corpus else read_allowed(args.allowed)
    flags = shlex.split(args.waveopt_flags) if args.corpus else ["-O"]

    failures = []
    with tempfile.TemporaryDirectory(prefix="waveopt-occupancy-") as tmp:
        # pairs: (case, original .spv, rewrite .spv)
        pairs = []
        modules = []  # paths in the order given to waverun isa
        unchanged = 0
        if args.pair:
            pairs.append(("pair", args.pair[0], args.pair[1]))
            modules = list(args.pair)
        else:
            cases = corpus_cases(args.corpus) if args.corpus else suite_cases(args.suite)
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                done = list(pool.map(lambda ic: compile_case(waveopt, tmp, ic[0], ic[1], flags),
                                     enumerate(cases)))
            for name, orig, opt, error in done:
                if error and args.corpus:
                    print("skipped: %s: %s" % (name, error.splitlines()[-1] if error else ""))
                elif error:
                    failures.append("%s: %s" % (name, error))
                elif opt is None:
                    unchanged += 1
                else:
                    modules += [orig, opt]
                    pairs.append((name, orig, opt))
        if not modules:
            print("occupancy: nothing to compile")
            return 1 if failures else 0
        cmd = [waverun, "isa", "--amd=" + args.amd, "--wave=" + args.wave, "--format=tsv"] + modules
        rc, out, err = run(cmd)
        rows = {}
        lines = out.splitlines()
        if not lines:
            print("occupancy: error: waverun isa printed nothing (exit %d): %s" % (rc, err.strip()))
            return 1
        header = lines[0].split("\t")
        for line in lines[1:]:
            cells = dict(zip(header, line.split("\t")))
            rows[(cells["module"], int(cells["wave"]))] = cells
        waves = [int(w) for w in args.wave.split(",")]
        seen_allowed = set()
        checked = 0
        skipped = 0
        for case, orig, rewrite in pairs:
            for wave in waves:
                a, b = rows.get((orig, wave)), rows.get((rewrite, wave))
                what = "%s, %s wave%d" % (case, args.amd, wave)
                if a is None or a["status"] != "ok":
                    print("skipped: %s: the original does not compile for %s: %s" % (
                        what, args.amd, a["status"] if a else "no row"))
                    skipped += 1
                    continue
                if b is None or b["status"] != "ok":
                    failures.append("%s: the rewrite does not compile: %s" % (
                        what, b["status"] if b else "no row"))
                    continue
                checked += 1
                occ_a, occ_b = int(a["subgroups_per_simd"]), int(b["subgroups_per_simd"])
                detail = "subgroups per SIMD %d -> %d, VGPRs %s -> %s, SGPRs %s -> %s, LDS %s -> %s" % (
                    occ_a, occ_b, a["vgprs"], b["vgprs"], a["sgprs"], b["sgprs"],
                    a["lds_bytes"], b["lds_bytes"])
                key = (case, wave)
                if occ_b < occ_a:
                    if key in allowed:
                        seen_allowed.add(key)
                        print("allowed: %s loses occupancy (%s): %s" % (what, detail, allowed[key]))
                    else:
                        failures.append("%s loses occupancy: %s (not in %s)" % (
                            what, detail, os.path.relpath(args.allowed, REPO)))
                else:
                    print("ok: %s: %s" % (what, detail))
        for key in sorted(set(allowed) - seen_allowed):
            failures.append("%s wave%d is listed in %s but does not lose occupancy: remove it" % (
                key[0], key[1], os.path.relpath(args.allowed, REPO)))
    for f in failures:
        print("FAIL: " + f)
    print("occupancy: %d comparisons (%d shader(s) unchanged by -O, %d skipped), %d failure(s)" % (
        checked, unchanged, skipped, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
