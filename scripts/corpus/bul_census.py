#!/usr/bin/env python3
"""batch-uniform-loads on real code: candidate loops, batched loops, and why
the others were not batched, over the scratch corpus (build_corpus.py).

A candidate loop (issue 15) has a read of buffer or image memory at a
subgroup-uniform address that changes every iteration, and only
subgroup-uniform exits. They are counted by `waveopt --print-loop-candidates`
(lib/analysis/loop_candidates.cpp: SPIRV-Tools' LoopDescriptor and the
uniformity analysis, none of the pass's own matching code), on the module as
-O's passes see it. Each candidate is then looked up in the remarks of
`waveopt -O` (the pass tags every remark with its loop, "[loop %N]"):
batched, or refused with the reason the pass gives.

  scripts/corpus/bul_census.py [--corpus DIR] [--build DIR] [--jobs N]
                               [--before BIN] [--diff] [--isa] [--out FILE]

--before BIN: also run an earlier waveopt (e.g. main's) and count the loops
it batched (its remarks carry no loop tags: applied remarks are counted).
--diff: run every rewritten module against its original with waverun
(lavapipe at 4/8/16, the simulator at 32/64; the inputs are built here, see
diff()); --isa: compile both with RADV for RDNA2 (navi21, wave64 and wave32)
and report every rewrite that loses occupancy (Subgroups per SIMD).
Prints the tables of docs/design/batch-uniform-loads.md; --out writes JSON.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PASS = "batch-uniform-loads"
CANDIDATE = re.compile(r"^loop %(\d+) in (.*?)(?: \S+:\d+)?: (candidate \(.*\)|not a candidate: (.*))$")
TAG = re.compile(r"\[loop %(\d+)\]")
REMARK = re.compile(r"^--- !(Passed|Missed|Analysis)\n(.*?)^\.\.\.$", re.M | re.S)


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def remarks_of(path):
    """[(kind, name, function, message)] of the pass in a YAML remarks file."""
    out = []
    if not os.path.exists(path):
        return out
    for kind, body in REMARK.findall(open(path).read()):
        fields = dict(re.findall(r"^(Pass|Name|Function):\s+'?([^'\n]*)'?$", body, re.M))
        if fields.get("Pass") != PASS:
            continue
        msg = re.search(r"String:\s+'(.*)'", body, re.S)
        out.append((kind, fields.get("Name", ""), fields.get("Function", ""),
                    msg.group(1).replace("''", "'") if msg else ""))
    return out


def census(job):
    """One module: candidates, the pass's verdict per loop, the rewrite."""
    waveopt, before, module, work = job
    result = {"module": module, "error": "", "loops": {}, "before_applied": None,
              "rewrite": None}
    rc, out, err = run([waveopt, "--print-loop-candidates", module], 300)
    if rc != 0:
        result["error"] = "candidates: " + (err.strip().splitlines() or ["exit %d" % rc])[-1]
        return result
    for line in out.splitlines():
        m = CANDIDATE.match(line)
        if m:
            result["loops"][m.group(1)] = {"candidate": m.group(3).startswith("candidate"),
                                           "why_not": m.group(4) or "", "verdict": "silent"}
    os.makedirs(work, exist_ok=True)
    dst = os.path.join(work, "after.spv")
    yaml = os.path.join(work, "after.yaml")
    rc, out, err = run([waveopt, "-O", module, "-o", dst, "--remarks-output=" + yaml], 600)
    if rc != 0:
        result["error"] = "-O: " + (err.strip().splitlines() or ["exit %d" % rc])[-1]
        return result
    applied = 0
    for kind, name, _, message in remarks_of(yaml):
        tag = TAG.search(message)
        if kind == "Analysis" or tag is None:
            continue
        loop = result["loops"].setdefault(tag.group(1), {"candidate": False, "why_not": "unknown",
                                                         "verdict": "silent"})
        if kind == "Passed":
            loop["verdict"] = "batched"
            applied += 1
        elif loop["verdict"] == "silent":
            loop["verdict"] = name
    if applied:
        result["rewrite"] = dst
    if before:
        byaml = os.path.join(work, "before.yaml")
        rc, _, err = run([before, "-O", module, "-o", os.path.join(work, "before.spv"),
                          "--remarks-output=" + byaml], 600)
        if rc == 0:
            result["before_applied"] = sum(1 for r in remarks_of(byaml) if r[0] == "Passed")
    return result


def bindings_of(module):
    """(set, binding) of every descriptor variable of a module (spirv-dis)."""
    rc, out, _ = run(["spirv-dis", "--raw-id", module], 60)
    sets, nums = {}, {}
    for m in re.finditer(r"OpDecorate %(\d+) (DescriptorSet|Binding) (\d+)", out):
        (sets if m.group(2) == "DescriptorSet" else nums)[m.group(1)] = int(m.group(3))
    return sorted({(sets.get(v, 0), b) for v, b in nums.items()})


SIZE_HINT = re.compile(r"binding (\d+)\.(\d+)\b.*?e\.g\. 'binding \S+ size=(\S+)'")
NO_BINDING = re.compile(r"the module has no binding (\d+)\.(\d+)")


def diff(job):
    """Runs a module and its rewrite with main's waverun: it has no --auto, so
    the spec is built here: every binding filled with small integers (mod:64,
    so counts read from memory stay small), runtime arrays of 4096 elements,
    images of 32x32, 2 workgroups; bindings the entry point does not use are
    dropped as waverun names them."""
    waverun, a, b, env = job
    lines = {key: "fill=mod:64" for key in bindings_of(a)}
    push = True
    verdicts = []
    for extra in (["--widths=4,8,16"], ["--sim", "--widths=32,64"]):
        verdict = "cannot run"
        for _ in range(16):
            spec = ["-s", "dispatch 2 1 1"]
            for (st, bd), keys in sorted(lines.items()):
                spec += ["-s", "binding %d.%d %s" % (st, bd, keys)]
            if push:
                spec += ["-s", "push fill=mod:64"]
            rc, out, err = run([waverun, "diff", a, b, "--no-spec"] + spec + extra, 600, env)
            text = out + err
            if rc == 0:
                verdict = "equal"
                break
            if rc == 3:
                verdict = "NONDETERMINISTIC" if "NONDETERMINISTIC" in text else "DIFFERENT"
                break
            if rc == 124:
                verdict = "cannot run: timeout"
                break
            if "push constants but the module has none" in text and push:
                push = False
                continue
            m = NO_BINDING.search(text)
            if m and (int(m.group(1)), int(m.group(2))) in lines:
                del lines[(int(m.group(1)), int(m.group(2)))]
                continue
            m = re.search(r"binding (\d+)\.(\d+)[^\n]*is not covered", text)
            if m:
                key = (int(m.group(1)), int(m.group(2)))
                size = "32x32" if "size=16x16" in text else "4096"
                if "size=" not in lines.get(key, ""):
                    lines[key] = lines.get(key, "fill=mod:64") + " size=" + size
                    continue
            last = [l for l in text.strip().splitlines() if l.strip()]
            verdict = "cannot run: " + re.sub(r"[0-9]+", "N", (last or ["exit %d" % rc])[-1])[-110:]
            break
        verdicts.append(verdict)
    return verdicts


def isa(job):
    """Subgroups per SIMD and VGPRs of the original and the rewrite on RDNA2
    (navi21), wave64 and wave32: {"64": [(occ, vgprs), (occ, vgprs)], ...}."""
    waverun, a, b = job
    rc, out, err = run([waverun, "isa", a, b, "--amd=navi21", "--wave=64,32", "--format=json"], 900)
    try:
        rows = json.loads(out)
    except ValueError:
        return {"error": ((err or out).strip().splitlines() or ["exit %d" % rc])[-1][:160]}
    res = {}
    for wave in ("64", "32"):
        pair = [r for r in rows if str(r.get("wave")) == wave]
        stats = [r.get("statistics") or {} for r in pair]
        if len(pair) != 2 or any(r.get("error") for r in pair) or \
                any("Subgroups per SIMD" not in st for st in stats):
            res[wave] = None
            continue
        res[wave] = [(int(st["Subgroups per SIMD"]), int(st.get("VGPRs", 0))) for st in stats]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/work/scratch/corpus")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--before", help="an earlier waveopt binary to compare with")
    ap.add_argument("--work", default=None, help="directory for rewritten modules")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--diff", action="store_true")
    ap.add_argument("--isa", action="store_true")
    ap.add_argument("--only", default="", help="regex on module paths")
    ap.add_argument("--out", help="write the per-module results as JSON")
    ap.add_argument("--load", help="take the census from an earlier --out JSON instead of "
                    "running waveopt (then --diff/--isa run on its rewrites)")
    args = ap.parse_args()
    waveopt = os.path.abspath(os.path.join(args.build, "bin", "waveopt"))
    waverun = os.path.abspath(os.path.join(args.build, "bin", "waverun"))
    work = args.work or tempfile.mkdtemp(prefix="bul-census-")
    manifest = os.path.join(args.corpus, "manifest.tsv")
    modules = []
    with open(manifest) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            for flavour in ("raw", "opt"):
                if row.get(flavour):
                    path = os.path.join(args.corpus, row[flavour])
                    if os.path.exists(path) and re.search(args.only, path):
                        modules.append((flavour, row["id"], path))
    if args.load:
        results = [r for r in json.load(open(args.load)) if re.search(args.only, r["module"])]
    else:
        jobs = [(waveopt, args.before, path, os.path.join(work, flavour, mid))
                for flavour, mid, path in modules]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(census, jobs))
        for (flavour, mid, _), r in zip(modules, results):
            r["flavour"], r["id"] = flavour, mid

    env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="1")
    rewritten = [r for r in results if r["rewrite"]]
    if args.diff:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for r, v in zip(rewritten, pool.map(diff, [(waverun, r["module"], r["rewrite"], env)
                                                      for r in rewritten])):
                r["diff"] = v
    if args.isa:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for r, v in zip(rewritten, pool.map(isa, [(waverun, r["module"], r["rewrite"])
                                                     for r in rewritten])):
                r["isa"] = v

    for flavour in ("raw", "opt"):
        rs = [r for r in results if r["flavour"] == flavour]
        loops = [l for r in rs for l in r["loops"].values()]
        cands = [l for l in loops if l["candidate"]]
        batched = [l for l in cands if l["verdict"] == "batched"]
        reasons = collections.Counter(l["verdict"] for l in cands if l["verdict"] != "batched")
        extra = [l for l in loops if not l["candidate"] and l["verdict"] == "batched"]
        print("== %s: %d modules (%d failed), %d loops, %d candidates" % (
            flavour, len(rs), sum(1 for r in rs if r["error"]), len(loops), len(cands)))
        if cands:
            print("batched: %d of %d candidates (%.0f %%)" % (
                len(batched), len(cands), 100.0 * len(batched) / len(cands)))
        for name, n in reasons.most_common():
            print("  %-24s %d" % (name, n))
        if extra:
            print("batched but not candidates: %d (%s)" % (len(extra), ", ".join(
                sorted(set(l["why_not"] for l in extra)))))
        if args.before:
            counted = [r["before_applied"] for r in rs if r["before_applied"] is not None]
            print("before (%s): %d loops batched in %d modules" % (
                args.before, sum(counted), len(counted)))
        for r in rs:
            if r["error"]:
                print("  error: %s: %s" % (r["id"], r["error"]))
        if args.diff or any("diff" in r for r in rs):
            c = collections.Counter()
            for r in rs:
                for v in r.get("diff", []):
                    c[v] += 1
                if any(v == "DIFFERENT" for v in r.get("diff", [])):
                    print("  DIFFERENT: %s" % r["id"])
            print("diff runs (lavapipe 4/8/16 and simulator 32/64 per module): %s" % dict(c))
        if args.isa or any("isa" in r for r in rs):
            lost, checked = [], 0
            for r in rs:
                for wave, v in sorted((r.get("isa") or {}).items()):
                    if not isinstance(v, list):
                        continue
                    checked += 1
                    if v[1][0] < v[0][0]:
                        lost.append("%s wave%s: occupancy %d -> %d, VGPRs %d -> %d" % (
                            r["id"], wave, v[0][0], v[1][0], v[0][1], v[1][1]))
            failed = sum(1 for r in rs if "isa" in r and (r["isa"].get("error") or any(
                r["isa"].get(w) is None for w in ("64", "32"))))
            print("RDNA2 occupancy: %d comparisons, %d lose occupancy; %d rewritten modules the "
                  "driver could not compile (both or one)" % (checked, len(lost), failed))
            for l in lost:
                print("  " + l)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
