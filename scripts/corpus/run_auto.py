#!/usr/bin/env python3
"""Runs every module of a scratch corpus with `waverun --auto` and counts what
runs and why the rest does not.

  scripts/corpus/run_auto.py CORPUS_DIR [--bin DIR] [--out DIR] [--jobs N]
                             [--timeout S] [--sim-limit N] [--stages run,sim,diff,verdicts]
                             [--diff-one-variant] [--only REGEX] [--limit N] [--summary]

CORPUS_DIR holds compiled modules (spv/**/<id>.raw.spv and <id>.opt.spv, as
scripts/corpus/build_corpus.py writes them; every .spv under CORPUS_DIR when
it has no spv/). For every module:

  1. `waverun run --auto M --subgroup-size=8` on lavapipe, and
     `waverun run --auto M --sim --subgroup-size=32` on the wave simulator;
  2. `waveopt -O M`; when a pass fired (the output differs from the input),
     `waverun diff --auto M M.waveopt.spv --widths=4,8,16` on lavapipe and
     `--sim --widths=32,64` on the simulator, with coverage;
  3. (stage `verdicts`, where a pass fired) one `waverun diff --auto` per
     size, 4, 8, 16 on lavapipe and 32, 64 on the simulator, each timed: the
     verdict at every size (equal and covered, not covered, race, different,
     nondeterministic, timeout, cannot run by cause) and the seconds it took.

Each run is classified (ok, or the cause of its first error line) and the
script prints the tables docs/waverun.md quotes: modules that run, by cause
of those that do not, and the diff outcomes (equal, different,
nondeterministic, rewrite not exercised). Records go to OUT/run.jsonl,
OUT/sim.jsonl and OUT/diff.jsonl (default /work/scratch/<user>/run_auto or
./run_auto_out); a second invocation goes on where the first stopped, so
the stages can run separately (--stages) and be interrupted. Modules are
taken in a fixed order that interleaves the repositories.
--diff-one-variant diffs one variant per source file (corpora compile some
sources many times with different defines). Nothing is written into the
corpus or the repository.

Binaries: --bin DIR, else $WAVEOPT_BIN_DIR, else <repo>/build/bin.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys

# Causes, tried in order on a failed run's output: (name, regular expression).
CAUSES = [
    ("timeout (no result within the time limit)", r"TIMEOUT"),
    ("crash of the driver (signal)", r"the run crashed \(signal"),
    ("invalid module (spirv-val)", r"invalid module"),
    ("not a compute module", r"no GLCompute (or Fragment )?entry point|--auto is for compute shaders"),
    ("simulator lacks an instruction", r"simulator: unsupported (instruction|GLSL|extended)"),
    ("simulator: unsupported type or storage", r"simulator: unsupported"),
    ("simulator instruction limit (--sim-limit: a long kernel, or a loop the inputs leave long)",
     r"ran past \d+ instructions"),
    ("lavapipe lacks runtime descriptor arrays", r"runtime-sized descriptor array needs"),
    ("lavapipe lacks non-uniform descriptor indexing", r"non-uniformly, which device"),
    ("lavapipe lacks the storage image format", r"cannot use format"),
    ("lavapipe cannot create the image", r"cannot create a .* image of"),
    ("lavapipe rejects the shader", r"driver rejected the shader"),
    ("uniform buffer larger than lavapipe allows", r"larger than device .* allows"),
    ("descriptor waverun cannot bind", r"input attachments|acceleration structures|multisampled"),
    ("push constants larger than the device allows", r"push constants take"),
    ("the simulator disagrees with lavapipe", r"simulator disagrees with the device"),
    ("variables of different kinds on one binding (HLSL registers without binding shifts)",
     r"variables of different kinds share it"),
    ("the two modules cannot share inputs", r"cannot share inputs"),
    ("more descriptors than the device allows per stage", r"per shader stage"),
    ("resource too large", r"is too large"),
]


def classify(text):
    for name, pattern in CAUSES:
        if re.search(pattern, text):
            return name
    m = re.search(r"waverun: error: (.*)", text)
    if m:
        line = re.sub(r"^\S+: ", "", m.group(1))
        return "other: " + line[:90]
    return "other: exit without an error line"


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode("utf-8", "replace")
        return -1, (out or "") + "\nTIMEOUT (script)"
    except OSError as e:
        return -1, "waverun: error: cannot run %s: %s" % (cmd[0], e)


def waverun_status(rc, out):
    """ok, different, nondeterministic, uncovered, or a cause."""
    if rc == 0:
        return "ok"
    if rc == 3:
        return "different"
    if rc == 4:
        return "nondeterministic"
    if rc == 6:
        return "uncovered"
    return classify(out)


def coverage_of(out):
    """(ran, added) summed over the sizes whose coverage line has numbers."""
    ran = added = 0
    none = False
    for m in re.finditer(r"coverage: (\d+) of (\d+) instructions b adds ran", out):
        ran += int(m.group(1))
        added += int(m.group(2))
    if re.search(r"coverage: none of the (\d+) instructions b adds ran", out):
        none = True
    return ran, added, none


def opt_path(path, args, out_dir):
    rel = re.sub(r"[^A-Za-z0-9_.+-]", "_", os.path.relpath(path, args.corpus))
    return os.path.join(out_dir, "opt", rel)


def stage_run(path, args, out_dir):
    """run --auto on lavapipe at size 8."""
    rc, out = run([os.path.join(args.bin, "waverun"), "run", "--auto", path, "--subgroup-size=8",
                   "--timeout=%d" % args.timeout, "--jobs=1"], args.timeout + 30)
    return {"run_lavapipe": waverun_status(rc, out)}


def stage_sim(path, args, out_dir):
    """run --auto on the simulator at size 32."""
    rc, out = run([os.path.join(args.bin, "waverun"), "run", "--auto", path, "--sim",
                   "--subgroup-size=32", "--sim-limit=%d" % args.sim_limit,
                   "--timeout=%d" % args.timeout, "--jobs=1"], args.timeout + 30)
    return {"run_sim": waverun_status(rc, out)}


def stage_diff(path, args, out_dir):
    """waveopt -O; where a pass fired, diff --auto at 4, 8, 16 and 32, 64."""
    rec = {}
    waverun = os.path.join(args.bin, "waverun")
    opt = opt_path(path, args, out_dir)
    os.makedirs(os.path.dirname(opt), exist_ok=True)
    rc, out = run([os.path.join(args.bin, "waveopt"), "-O", path, "-o", opt], 600)
    if rc != 0:
        last = out.strip().splitlines()[-1] if out.strip() else ""
        rec["waveopt"] = "error: " + last[:120]
        return rec
    with open(path, "rb") as f, open(opt, "rb") as g:
        fired = f.read() != g.read()
    rec["fired"] = fired
    if not fired:
        os.remove(opt)
        return rec
    common = ["--timeout=%d" % args.timeout, "--jobs=1"]
    rc, out = run([waverun, "diff", "--auto", path, opt, "--widths=4,8,16"] + common,
                  3 * args.timeout + 60)
    rec["diff_lavapipe"] = waverun_status(rc, out)
    rec["diff_lavapipe_sizes"] = {m.group(1): m.group(2) for m in re.finditer(
        r"\[sg=(\d+)\] (equal|DIFFERENT|NONDETERMINISTIC|TIMEOUT)", out)}
    rc, out2 = run([waverun, "diff", "--auto", path, opt, "--sim", "--widths=32,64",
                    "--sim-limit=%d" % args.sim_limit] + common, 2 * args.timeout + 60)
    rec["diff_sim"] = waverun_status(rc, out2)
    ran, added, none = coverage_of(out2)
    rec["coverage"] = {"ran": ran, "added": added, "none": none}
    rec["multiset"] = len(re.findall(r"^# binding .* is compared as a multiset", out, re.M))
    if rec["diff_lavapipe"] == "different" or rec["diff_sim"] == "different":
        rec["report"] = "\n".join(l for l in (out + out2).splitlines() if "DIFFERENT" in l or "] [" in l)[:2000]
    return rec


VERDICT_WIDTHS = (("4", False), ("8", False), ("16", False), ("32", True), ("64", True))


def verdict_of(rc, out):
    """The verdict of one `diff --auto` at one size."""
    if rc == 0:
        if re.search(r"coverage: unknown", out):
            return "equal, coverage unknown"
        return "equal, covered"
    if rc == 3:
        return "different"
    if rc == 4:
        return "nondeterministic"
    if rc == 6:
        return "not covered"
    if rc == 7:
        return "race"
    return "cannot run: " + classify(out)


def stage_verdicts(path, args, out_dir):
    """waveopt -O; where a pass fired, one timed diff --auto per size."""
    import time
    rec = {}
    opt = opt_path(path, args, out_dir)
    os.makedirs(os.path.dirname(opt), exist_ok=True)
    if not os.path.exists(opt):
        rc, out = run([os.path.join(args.bin, "waveopt"), "-O", path, "-o", opt], 600)
        if rc != 0:
            rec["waveopt"] = "error"
            return rec
    with open(path, "rb") as f, open(opt, "rb") as g:
        rec["fired"] = f.read() != g.read()
    if not rec["fired"]:
        return rec
    rec["verdicts"] = {}
    for width, sim in VERDICT_WIDTHS:
        cmd = [os.path.join(args.bin, "waverun"), "diff", "--auto", path, opt,
               "--widths=" + width, "--timeout=%d" % args.timeout, "--jobs=1"]
        if sim:
            cmd += ["--sim", "--sim-limit=%d" % args.sim_limit]
        start = time.time()
        rc, out = run(cmd, args.timeout + 120)
        seconds = time.time() - start
        m = re.search(r"coverage: (\d+) of (\d+) instructions b adds ran", out)
        rec["verdicts"][width] = {
            "verdict": verdict_of(rc, out), "seconds": round(seconds, 2),
            "coverage": [int(m.group(1)), int(m.group(2))] if m else None,
            "tried": int(re.search(r"tried (\d+) input", out).group(1))
            if re.search(r"tried (\d+) input", out) else None}
        if rec["verdicts"][width]["verdict"] in ("different", "race"):
            rec["verdicts"][width]["report"] = "\n".join(
                l for l in out.splitlines() if "DIFFERENT" in l or "RACE" in l)[:1000]
    return rec


STAGES = {"run": stage_run, "sim": stage_sim, "diff": stage_diff, "verdicts": stage_verdicts}


def table(title, counter, total):
    lines = ["| %s | modules |" % title, "|---|---|"]
    for name, n in counter.most_common():
        lines.append("| %s | %d |" % (name, n))
    lines.append("| total | %d |" % total)
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--bin", default=os.environ.get("WAVEOPT_BIN_DIR"))
    parser.add_argument("--out")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per waverun child")
    parser.add_argument("--sim-limit", type=int, default=100000000)
    parser.add_argument("--stages", default="run,sim,diff",
                        help="which of run (lavapipe), sim, diff to do (default all)")
    parser.add_argument("--diff-one-variant", action="store_true",
                        help="diff only one variant (the first id) per source file and flavour")
    parser.add_argument("--only", help="only modules whose path matches this regular expression")
    parser.add_argument("--limit", type=int, default=0, help="at most this many modules")
    parser.add_argument("--every", type=int, default=1,
                        help="a sample: every Nth module of the fixed order")
    parser.add_argument("--list", help="only the modules listed in this file (paths relative "
                        "to CORPUS_DIR, one a line)")
    parser.add_argument("--summary", action="store_true", help="only print the tables of OUT")
    args = parser.parse_args()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args.bin = args.bin or os.path.join(repo, "build", "bin")
    args.corpus = os.path.abspath(args.corpus)
    out_dir = args.out or os.path.join("/work/scratch", os.environ.get("USER", "waverun"), "run_auto")
    if not os.path.isdir(os.path.dirname(out_dir)):
        out_dir = os.path.abspath("run_auto_out")
    os.makedirs(out_dir, exist_ok=True)
    os.environ["MESA_SHADER_CACHE_DISABLE"] = "true"
    os.environ["LP_NUM_THREADS"] = "1"

    modules = []
    top = os.path.join(args.corpus, "spv")
    for root, _, files in os.walk(top if os.path.isdir(top) else args.corpus):
        for name in sorted(files):
            if name.endswith(".spv"):
                modules.append(os.path.join(root, name))
    # A fixed order that interleaves the repositories, so that partial
    # results sample all of them.
    modules.sort(key=lambda m: hashlib.sha1(m.encode()).hexdigest())
    if args.only:
        modules = [m for m in modules if re.search(args.only, m)]
    if args.list:
        wanted = set(os.path.join(args.corpus, l.strip()) for l in open(args.list) if l.strip())
        modules = [m for m in modules if m in wanted]
    if args.every > 1:
        modules = modules[::args.every]
    if args.limit:
        modules = modules[:args.limit]
    # One variant per source (manifest.tsv: id, repo, path, ...).
    first_variant = None
    manifest = os.path.join(args.corpus, "manifest.tsv")
    if args.diff_one_variant and os.path.exists(manifest):
        first_variant = set()
        seen = set()
        for line in open(manifest):
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "id" or len(cols) < 10:
                continue
            key = (cols[1], cols[2])
            if key in seen:
                continue
            seen.add(key)
            for c in cols[8:10]:
                if c:
                    first_variant.add(os.path.join(args.corpus, c))

    results = {}
    for stage in ("run", "sim", "diff", "verdicts"):
        path = os.path.join(out_dir, stage + ".jsonl")
        if os.path.exists(path):
            for line in open(path):
                r = json.loads(line)
                results.setdefault(r["module"], {}).update(r)
                results[r["module"]].setdefault("_stages", set()).add(stage)
    if not args.summary:
        for stage in args.stages.split(","):
            fn = STAGES[stage]
            todo = [m for m in modules if stage not in results.get(m, {}).get("_stages", set())]
            if stage in ("diff", "verdicts") and first_variant is not None:
                todo = [m for m in todo if m in first_variant]
            print("stage %s: %d modules to run (of %d)" % (stage, len(todo), len(modules)),
                  flush=True)
            with open(os.path.join(out_dir, stage + ".jsonl"), "a") as f:
                with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
                    futures = {pool.submit(fn, m, args, out_dir): m for m in todo}
                    for k, fut in enumerate(concurrent.futures.as_completed(futures)):
                        m = futures[fut]
                        try:
                            r = fut.result()
                        except Exception as e:  # a bug here must not lose the other results
                            r = {"error": repr(e)}
                        r["module"] = m
                        f.write(json.dumps(r) + "\n")
                        f.flush()
                        results.setdefault(m, {}).update(r)
                        results[m].setdefault("_stages", set()).add(stage)
                        if (k + 1) % 50 == 0:
                            print("  %s %d/%d" % (stage, k + 1, len(todo)), flush=True)
    summarize([results[m] for m in modules if m in results])


def summarize_verdicts(results):
    recs = [r for r in results if r.get("fired") and "verdicts" in r]
    if not recs:
        return
    widths = [w for w, _ in VERDICT_WIDTHS]
    print("\n## waverun diff --auto per size (%d modules where waveopt -O fired)\n" % len(recs))
    classes = collections.Counter()
    per = {w: collections.Counter() for w in widths}
    for r in recs:
        for w in widths:
            per[w][r["verdicts"][w]["verdict"]] += 1
            classes[r["verdicts"][w]["verdict"]] += 0
    names = sorted(classes, key=lambda c: (-sum(per[w][c] for w in widths), c))
    print("| verdict | " + " | ".join("size %s" % w for w in widths) + " |")
    print("|---|" + "---|" * len(widths))
    for c in names:
        print("| %s | %s |" % (c, " | ".join(str(per[w][c]) for w in widths)))
    print("| total | %s |" % " | ".join(str(len(recs)) for _ in widths))
    verdict = lambda v: not v["verdict"].startswith("cannot run")
    in_time = lambda v: v["seconds"] <= 60
    all_verdict = sum(all(verdict(r["verdicts"][w]) and in_time(r["verdicts"][w]) for w in widths)
                      for r in recs)
    all_covered = sum(all(r["verdicts"][w]["verdict"] == "equal, covered" for w in widths)
                      for r in recs)
    print("\nA verdict within 60 s at all five sizes: %d of %d (%.1f%%); equal and covered at all "
          "five: %d (%.1f%%)" % (all_verdict, len(recs), 100.0 * all_verdict / len(recs),
                                all_covered, 100.0 * all_covered / len(recs)))
    print("\n| seconds per size | " + " | ".join("size %s" % w for w in widths) + " |")
    print("|---|" + "---|" * len(widths))
    for label, q in (("median", 0.5), ("90th percentile", 0.9), ("max", 1.0)):
        row = []
        for w in widths:
            t = sorted(r["verdicts"][w]["seconds"] for r in recs)
            row.append("%.1f" % t[min(len(t) - 1, int(q * (len(t) - 1) + 0.5))])
        print("| %s | %s |" % (label, " | ".join(row)))
    print()
    for r in recs:
        bad = {w: r["verdicts"][w]["verdict"] for w in widths
               if r["verdicts"][w]["verdict"] != "equal, covered"}
        slow = {w: r["verdicts"][w]["seconds"] for w in widths if r["verdicts"][w]["seconds"] > 60}
        if bad or slow:
            print("- %s: %s%s" % (os.path.basename(r["module"]),
                                 ", ".join("%s at %s" % (v, w) for w, v in bad.items()),
                                 (" slow: " + str(slow)) if slow else ""))


def summarize(results):
    summarize_verdicts(results)
    if not any("run_lavapipe" in r or "run_sim" in r or "fired" in r and "verdicts" not in r
               for r in results):
        return
    flavour = lambda r: "opt" if r["module"].endswith(".opt.spv") else "raw"
    ran = [r for r in results if "run_lavapipe" in r]
    n = len(ran)
    print("\n## waverun run --auto (%d modules: %d raw, %d after spirv-opt -O)\n" % (
        n, sum(flavour(r) == "raw" for r in ran), sum(flavour(r) == "opt" for r in ran)))
    for key, label in (("run_lavapipe", "lavapipe, size 8"), ("run_sim", "simulator, size 32")):
        rs = [r for r in results if key in r]
        c = collections.Counter(r[key] if r[key] != "ok" else "runs" for r in rs)
        print(table(label, c, len(rs)))
        print()
    both = [r for r in results if "run_lavapipe" in r and "run_sim" in r]
    print("runs on both: %d of %d; on at least one: %d\n" % (
        sum(r["run_lavapipe"] == "ok" and r["run_sim"] == "ok" for r in both), len(both),
        sum(r["run_lavapipe"] == "ok" or r["run_sim"] == "ok" for r in both)))
    dif = [r for r in results if "fired" in r or "waveopt" in r]
    fired = [r for r in dif if r.get("fired")]
    print("## waverun diff --auto, module vs waveopt -O (%d modules tried, a pass fired on %d)\n"
          % (len(dif), len(fired)))
    for key, label in (("diff_lavapipe", "lavapipe 4/8/16"), ("diff_sim", "simulator 32/64")):
        c = collections.Counter(r[key] for r in fired if key in r)
        print(table(label, c, sum(c.values())))
        print()
    cov = [r for r in fired if r.get("coverage", {}).get("added")]
    none = sum(1 for r in fired if r.get("coverage", {}).get("none"))
    print("coverage: %d pairs where the added instructions ran, %d where none ran at some size" % (
        len(cov), none))
    ms = sum(1 for r in fired if r.get("multiset"))
    print("pairs with a binding compared as a multiset (atomic order): %d" % ms)
    errs = collections.Counter(r["waveopt"] for r in dif if "waveopt" in r)
    if errs:
        print("\nwaveopt -O failed on %d modules" % sum(errs.values()))
    for r in fired:
        if r.get("report"):
            print("\nDIFFERENT: %s\n%s" % (r["module"], r["report"]))


if __name__ == "__main__":
    sys.exit(main())
