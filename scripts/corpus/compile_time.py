#!/usr/bin/env python3
"""Compile time of waveopt's passes against spirv-opt -O on the scratch
corpus (see build_corpus.py), counted in executed machine instructions.

The machine that builds waveopt is shared and small: wall time there mixes
the algorithm with whatever else runs. valgrind's callgrind counts the
instructions executed while spvtools::opt::Pass::Run is on the stack, which
depends on neither (test/bench/bench.py's scaling section does the same).
Per module:

  - spirv-opt -O: the pinned spirv-opt binary on the raw module (what a
    pipeline runs before waveopt);
  - each waveopt pass: `waveopt --morton-remap --quad-exchange
    --batch-uniform-loads --prereduce-atomics --workgroup-reduce` on the
    module after
    spirv-opt -O (the form -O hands its passes), split by each pass's
    Process() (callgrind's inclusive cost).

With --pipeline=O it measures what a user's `waveopt -O` costs instead:
every optimizer pass it runs (the SSA preparation, the five passes, the
cleanup, and each version's build: plain -O builds the portable module
and versions for amd and nvidia), on the raw module and on the module
after spirv-opt -O (the two flavours), both against spirv-opt -O on the
raw module. spirv-opt steps run in-process (--no-isolation) so that one
process holds every count; IR building, validation and the file I/O of
both tools are not counted. Each run is split in two: waveopt's own passes
(the five passes' and the inliner's Process, callgrind's inclusive cost,
every version build included) and SPIRV-Tools' steps of -O (the rest of
the preparation and the cleanup).

  scripts/corpus/compile_time.py [--corpus DIR] [--build DIR] [--label NAME]
                                 [--pipeline passes|O] [--every N]
                                 [--jobs N] [--filter REGEX]
                                 [--compare OTHER.json]
                                 [--spirv-opt-from OTHER.json]

Writes <corpus>/score/<label>/compile_time.json and prints: the passes'
total as a share of spirv-opt -O's, per pass; the worst module per pass
(its count over spirv-opt -O's on the same module); the modules where the
passes cost most. --compare prints both runs side by side;
--spirv-opt-from takes spirv-opt -O's counts from an earlier run (same
corpus, same spirv-opt) instead of measuring them again.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

PASSES = ["morton-remap", "quad-exchange", "batch-uniform-loads", "prereduce-atomics",
          "workgroup-reduce"]
CLASS = {"morton-remap": "MortonRemapPass", "quad-exchange": "QuadExchangePass",
         "batch-uniform-loads": "BatchUniformLoadsPass",
         "prereduce-atomics": "PrereduceAtomicsPass",
         "workgroup-reduce": "WorkgroupReducePass"}


def callgrind(cmd, tmp):
    """Runs |cmd| under callgrind; returns (collected, {function: inclusive}).

    Functions are keyed by their demangled name without the argument list
    ("waveopt::MortonRemapPass::Process"); callgrind_annotate splits a
    function by the source file of its inlined parts, and those rows are
    summed, one per file name (the debug info may spell the function's own
    file twice, absolute and relative: each row then holds the whole)."""
    out = os.path.join(tmp, "cg.out")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                        "--collect-atstart=no", "--toggle-collect=spvtools::opt::Pass::Run*"] + cmd,
                       capture_output=True, text=True, timeout=3600)
    m = re.search(r"Collected\s*:\s*([0-9]+)", p.stderr)
    if p.returncode != 0 or not m:
        return None, {}
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                         capture_output=True, text=True).stdout
    rows = {}
    for line in ann.splitlines():
        f = re.match(r"\s*([0-9,]+)\s+\([^)]*\)\s+([^:\s]*):(.*?\S)\(\)\s*(\[[^\]]*\])?\s*$",
                     line)
        if f and f.group(3).endswith("::Process"):
            key = (f.group(3), os.path.basename(f.group(2)))
            rows[key] = max(rows.get(key, 0), int(f.group(1).replace(",", "")))
    inclusive = {}
    for (name, _), cost in rows.items():
        inclusive[name] = inclusive.get(name, 0) + cost
    return int(m.group(1)), inclusive


# waveopt's own passes in -O: the five (each wrapped by the registry's
# RegisteredPass, whose Process runs the pass and its own bookkeeping) and
# the inliner of the SSA preparation. Everything else inside Pass::Run is
# SPIRV-Tools' (the rest of the preparation, the cleanup).
WAVEOPT_PROCESS = ["waveopt::(anonymous namespace)::RegisteredPass::Process",
                   "waveopt::(anonymous namespace)::InlineLoopCalleesPass::Process"]


def split_o(total, inclusive):
    """{"total", "passes", "spirv_tools", "<pass>"...} of one -O run."""
    passes = sum(inclusive.get(f, 0) for f in WAVEOPT_PROCESS)
    res = {"total": total, "passes": passes, "spirv_tools": total - passes,
           "inline-loop-callees": inclusive.get(WAVEOPT_PROCESS[1], 0)}
    for p in PASSES:
        res[p] = inclusive.get("waveopt::" + CLASS[p] + "::Process", 0)
    return res


def measure_o(job):
    """-O as a user runs it, on both flavours."""
    waveopt, spirv_opt, raw, opt, known = job
    res = {"spirv_opt_O": known}
    with tempfile.TemporaryDirectory(prefix="waveopt-ct-") as tmp:
        if known is None and raw:
            res["spirv_opt_O"], _ = callgrind(
                [spirv_opt, "-O", raw, "-o", os.path.join(tmp, "o.spv")], tmp)
        for flavour, path in (("raw", raw), ("opt", opt)):
            if path:
                total, inc = callgrind([waveopt, "-O", "--no-isolation", path, "-o",
                                        os.path.join(tmp, "w.spv")], tmp)
                res["O_" + flavour] = total
                if total is not None:
                    res["split_" + flavour] = split_o(total, inc)
    return res


def summarize_o(modules):
    s = {}
    for flavour in ("raw", "opt"):
        key = "split_" + flavour
        ok = {k: m for k, m in modules.items() if m.get("spirv_opt_O") and m.get(key)}
        base = sum(m["spirv_opt_O"] for m in ok.values())
        f = {"modules": len(ok), "spirv_opt_O": base}
        for part in ["total", "passes", "spirv_tools", "inline-loop-callees"] + PASSES:
            f[part] = sum(m[key][part] for m in ok.values())
            f[part + " share"] = f[part] / base if base else None
        for part in ("total", "passes", "spirv_tools"):
            ratios = sorted(((m[key][part] / m["spirv_opt_O"], k) for k, m in ok.items()),
                            reverse=True)
            f[part + " over_half"] = sum(1 for r, _ in ratios if r > 0.5)
            f[part + " top"] = ratios[:8]
        s[flavour] = f
    return s


def print_summary_o(s, other=None):
    for flavour in ("raw", "opt"):
        f = s[flavour]
        print("%s: %d modules; spirv-opt -O %.0f M instructions" %
              (flavour, f["modules"], f["spirv_opt_O"] / 1e6))
        for part, what in (("total", "all of waveopt -O's passes"),
                           ("passes", "waveopt's own passes"),
                           ("spirv_tools", "SPIRV-Tools' steps of -O")):
            line = "  %-28s %7.1f M = %5.1f %%; %d modules over 50 %%" % (
                what, f[part] / 1e6, 100 * (f[part + " share"] or 0), f[part + " over_half"])
            o = other.get(flavour, {}) if other else {}
            if part in o:
                line += "  (before: %.1f M = %.1f %%, %d over 50 %%)" % (
                    o[part] / 1e6, 100 * (o[part + " share"] or 0), o[part + " over_half"])
            print(line)
        for p in ["inline-loop-callees"] + PASSES:
            print("    %-24s %7.1f M = %5.1f %%" % (p, f[p] / 1e6, 100 * (f[p + " share"] or 0)))
        for part in ("passes", "total"):
            print("  worst modules (%s / spirv-opt -O):" % part)
            for r, k in f[part + " top"][:5]:
                print("    %6.1f %%  %s" % (100 * r, k))


def measure(job):
    waveopt, spirv_opt, raw, opt, known = job
    res = {}
    with tempfile.TemporaryDirectory(prefix="waveopt-ct-") as tmp:
        if known is not None:
            res["spirv_opt_O"] = known
        elif raw:
            total, _ = callgrind([spirv_opt, "-O", raw, "-o", os.path.join(tmp, "o.spv")], tmp)
            res["spirv_opt_O"] = total
        if opt:
            total, inc = callgrind([waveopt] + ["--" + p for p in PASSES] +
                                   [opt, "-o", os.path.join(tmp, "w.spv")], tmp)
            res["passes"] = total
            for p in PASSES:
                own = inc.get("waveopt::" + CLASS[p] + "::Process", 0)
                res[p] = own if total is not None else None
    return res


def summarize(modules):
    ok = {k: m for k, m in modules.items()
          if m.get("spirv_opt_O") and m.get("passes") is not None}
    s = {"modules": len(ok), "spirv_opt_O": sum(m["spirv_opt_O"] for m in ok.values()),
         "passes": sum(m["passes"] for m in ok.values())}
    for p in PASSES:
        s[p] = sum(m[p] or 0 for m in ok.values())
        worst = max(ok.items(), key=lambda kv: (kv[1][p] or 0) / kv[1]["spirv_opt_O"],
                    default=(None, None))
        s[p + " worst"] = (worst[0], (worst[1][p] or 0) / worst[1]["spirv_opt_O"]) \
            if worst[0] else None
    s["top"] = sorted(((m["passes"] / m["spirv_opt_O"], k) for k, m in ok.items()),
                      reverse=True)[:8]
    return s


def print_summary(s, other=None):
    def pct(a, b):
        return "%.1f %%" % (100.0 * a / b) if b else "-"
    print("modules: %d; spirv-opt -O: %.0f M instructions" % (s["modules"], s["spirv_opt_O"] / 1e6))
    rows = [("all passes", "passes")] + [(p, p) for p in PASSES]
    for name, key in rows:
        line = "  %-20s %9.1f M  %8s of spirv-opt -O" % (name, s[key] / 1e6, pct(s[key], s["spirv_opt_O"]))
        if other:
            line += "   (before: %.1f M, %s)" % (other[key] / 1e6, pct(other[key], other["spirv_opt_O"]))
        print(line)
    for p in PASSES:
        w = s[p + " worst"]
        if w:
            print("  worst %-20s %6.1f %% of spirv-opt -O on %s" % (p, 100 * w[1], w[0]))
    print("  modules where the passes cost most (share of spirv-opt -O):")
    for r, k in s["top"]:
        print("    %6.1f %%  %s" % (100 * r, k))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="/work/scratch/corpus")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "../../build"))
    ap.add_argument("--spirv-opt", default=None, help="default: beside the pinned spirv-val")
    ap.add_argument("--label", default="current")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--filter", default="", help="regex on module ids")
    ap.add_argument("--every", type=int, default=1, help="every Nth module of the manifest")
    ap.add_argument("--pipeline", choices=["passes", "O"], default="passes")
    ap.add_argument("--compare", default="")
    ap.add_argument("--spirv-opt-from", default="")
    args = ap.parse_args()

    waveopt = os.path.abspath(os.path.join(args.build, "bin", "waveopt"))
    spirv_opt = args.spirv_opt or os.path.join(
        os.path.dirname(__file__), "../../.deps/current/prefix/bin/spirv-opt")
    corpus = os.path.abspath(args.corpus)
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    if args.filter:
        rows = [r for r in rows if re.search(args.filter, r["id"])]
    rows = rows[::args.every]
    known = {}
    if args.spirv_opt_from:
        known = {k: m.get("spirv_opt_O")
                 for k, m in json.load(open(args.spirv_opt_from))["modules"].items()}
    jobs = [(waveopt, spirv_opt,
             os.path.join(corpus, r["raw"]) if r.get("raw") else "",
             os.path.join(corpus, r["opt"]) if r.get("opt") else "",
             known.get(r["id"])) for r in rows]
    modules = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        run = measure_o if args.pipeline == "O" else measure
        for r, res in zip(rows, pool.map(run, jobs)):
            modules[r["id"]] = res
    outdir = os.path.join(corpus, "score", args.label)
    os.makedirs(outdir, exist_ok=True)
    summary = (summarize_o if args.pipeline == "O" else summarize)(modules)
    with open(os.path.join(outdir, "compile_time.json"), "w") as f:
        json.dump({"summary": summary, "modules": modules}, f, indent=1, sort_keys=True)
    other = json.load(open(args.compare))["summary"] if args.compare else None
    (print_summary_o if args.pipeline == "O" else print_summary)(summary, other)
    return 0


if __name__ == "__main__":
    sys.exit(main())
