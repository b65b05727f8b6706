#!/usr/bin/env python3
"""Calibrates batch-uniform-loads' register rule on RADV (issue 25, item 0).

For every batch candidate loop -- a loop the pass reports a `LiveEstimate`
for: batched, or refused by its cost rule -- records the pass's estimate
(values live in the loop, at the kernel's busiest point, the batch's
32-bit words) and what RADV allocates, on null hardware (`waverun isa`),
for three builds of the module:

  base    `waveopt -O` with the pass made to refuse every candidate
          (max-components=0): the kernel as -O makes it without the batch;
  forced  `waveopt -O` with the register limit lifted (max-live=100000):
          every candidate the other rules accept is batched;
  default `waveopt -O` as shipped: the decision the rule takes.

at wave32 and wave64 on navi21 (RDNA2) and wave64 on polaris10 (GCN4) and
vega10 (GCN5): VGPRs, SGPRs, "Subgroups per SIMD" (occupancy), spills.

Inputs: the benchmark's light loops (test/bench/kernels/light_loop*/naive.*)
compiled by glslang for vulkan1.1, 1.2 and 1.3, GLSL and HLSL; the pass's
own lit test kernels (test/lit/batch-uniform-loads/*.comp); kernels of
graded pressure generated here (PRESSURE: the light loop with a batch of
1-4 vec4 and 0-12 more per-lane vec4 accumulators; the corpus has no
kernel near the limit); and every module of the scratch corpus
(scripts/corpus/build_corpus.py; raw and after spirv-opt -O) where the
pass has a candidate.

The estimate of a batched kernel is what CostRule compares with max-live:
max(kernel's busiest point, loop + batch + 2) over its batched loops. The
summary gives, per target, its correlation with the VGPRs of the batched
kernel, the worst under- and over-estimates, VGPRs by estimate, every
kernel whose batched build loses occupancy against `base`, and for each
max-live from 20 to 60 how many kernels it would refuse against how many
lose RDNA2 occupancy.

  scripts/corpus/calibrate_registers.py [--corpus DIR] [--build DIR]
      [--work DIR] [--jobs N] [--only REGEX] [--no-corpus] [--out DIR]

Writes <out>/calibration.json (one row per module) and <out>/calibration.md
(the summary the pass doc quotes); --out defaults to a new directory under
/tmp. Scratch data: never commit the corpus rows' modules.
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

from bul_census import remarks_of as census_remarks  # this script's folder

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PASS = "batch-uniform-loads"
TAG = re.compile(r"\[loop %(\d+)\]")
ESTIMATE = re.compile(
    r"about (\d+) values per lane live in the loop"
    r"(?: \((\d+) of them held across the calls to its function\))?, "
    r"(\d+) at the kernel's busiest point; the batch holds (\d+)")
FORCE = "max-live=100000"
REFUSE_ALL = "max-components=0"
# (family, wave) pairs measured.
TARGETS = [("navi21", 32), ("navi21", 64), ("polaris10", 64), ("vega10", 64)]


def run(cmd, timeout=900, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def last_line(rc, err):
    return (err.strip().splitlines() or ["exit %d" % rc])[-1][:200]


def remarks_of(path):
    """[(kind, name, message)] of the pass in a YAML remarks file, each
    message on one line (bul_census.py reads the file)."""
    return [(kind, name, re.sub(r"\s*\n\s*", " ", message))
            for kind, name, _, message in census_remarks(path)]


def waveopt(tool, module, params, out, yaml):
    cmd = [tool, "-O", module, "-o", out, "--remarks-output=" + yaml]
    if params:
        cmd.append("--pass-params=%s:%s" % (PASS, params))
    rc, _, err = run(cmd, 900)
    return "" if rc == 0 else last_line(rc, err)


def verdicts(yaml):
    """{loop: verdict} from a remarks file: "batched" or the missed reason."""
    res = {}
    for kind, name, message in remarks_of(yaml):
        tag = TAG.search(message)
        if tag is None or kind == "Analysis":
            continue
        if kind == "Passed":
            res[tag.group(1)] = "batched"
        else:
            res.setdefault(tag.group(1), name)
    return res


def unique_bindings(module, dst):
    """|module| with every Binding decoration a number of its own: `isa`
    cannot compile variables of different kinds at one binding (HLSL's
    register spaces do that; `run`'s `separate-kinds` spec line is not
    read by `isa`). Descriptor numbers do not change the shader's code."""
    rc, text, _ = run(["spirv-dis", "--raw-id", module], 120)
    if rc != 0:
        return ""
    counter = iter(range(1 << 20))
    text = re.sub(r"(OpDecorate %\d+ Binding )\d+", lambda m: m.group(1) + str(next(counter)),
                  text)
    p = subprocess.run(["spirv-as", "--preserve-numeric-ids", "-o", dst, "-"], input=text,
                       capture_output=True, text=True)
    return dst if p.returncode == 0 else ""


def isa_rows(tool, modules, family, waves):
    rc, out, err = run([tool, "isa"] + modules + ["--amd=" + family, "--wave=" + waves,
                                                   "--format=json"], 1800)
    try:
        return json.loads(out)
    except ValueError:
        return []


def isa(tool, modules):
    """{target: [stats per module]} from `waverun isa` (None where it failed)."""
    res = {}
    for family in sorted({f for f, _ in TARGETS}):
        waves = ",".join(str(w) for f, w in TARGETS if f == family)
        names = modules
        rows = isa_rows(tool, names, family, waves)
        if any("variables of different kinds share it" in (r.get("error") or "") for r in rows):
            renamed = [unique_bindings(m, m[:-4] + ".bindings.spv") for m in modules]
            if all(renamed):
                names = renamed
                rows = isa_rows(tool, names, family, waves)
        for wave in (w for f, w in TARGETS if f == family):
            stats = []
            for m in names:
                row = [r for r in rows if r.get("module") == m and str(r.get("wave")) == str(wave)]
                st = (row[0].get("statistics") or {}) if row and not row[0].get("error") else {}
                if "Subgroups per SIMD" not in st:
                    stats.append(None)
                    continue
                stats.append({"vgprs": int(st.get("VGPRs", 0)), "sgprs": int(st.get("SGPRs", 0)),
                              "occupancy": int(st["Subgroups per SIMD"]),
                              "spill_v": int(st.get("Spilled VGPRs", 0)),
                              "instructions": int(st.get("Instructions", 0))})
            res["%s/w%d" % (family, wave)] = stats
    return res


def measure(job):
    """One module: the pass's estimates, and RADV's numbers for base, forced
    and default builds (only where the pass has a candidate)."""
    tools, module, work, name = job
    row = {"module": name, "path": module, "error": "", "loops": {}}
    os.makedirs(work, exist_ok=True)
    builds = {k: os.path.join(work, k + ".spv") for k in ("base", "forced", "default")}
    yamls = {k: os.path.join(work, k + ".yaml") for k in builds}
    err = waveopt(tools["waveopt"], module, FORCE, builds["forced"], yamls["forced"])
    if err:
        row["error"] = "forced: " + err
        return row
    for kind, rname, message in remarks_of(yamls["forced"]):
        m, tag = ESTIMATE.search(message), TAG.search(message)
        if kind == "Analysis" and rname == "LiveEstimate" and m and tag:
            row["loops"][tag.group(1)] = {
                "live": int(m.group(1)), "caller_live": int(m.group(2) or 0),
                "function_live": int(m.group(3)), "words": int(m.group(4))}
    if not row["loops"]:
        return row
    for loop, v in verdicts(yamls["forced"]).items():
        if loop in row["loops"]:
            row["loops"][loop]["forced"] = v
    for key, params in (("default", ""), ("base", REFUSE_ALL)):
        err = waveopt(tools["waveopt"], module, params, builds[key], yamls[key])
        if err:
            row["error"] = key + ": " + err
            return row
    for loop, v in verdicts(yamls["default"]).items():
        if loop in row["loops"]:
            row["loops"][loop]["default"] = v
    order = ["base", "forced", "default"]
    stats = isa(tools["waverun"], [builds[k] for k in order])
    row["isa"] = {t: dict(zip(order, s)) for t, s in stats.items()}
    return row


def benchmark_inputs(work):
    """The light loops for vulkan1.1/1.2/1.3, GLSL and HLSL, and the pass's
    lit kernels: [(name, spv)] compiled by the pinned glslang."""
    out = []
    glslang = "glslangValidator"
    os.makedirs(work, exist_ok=True)
    srcs = [("light_loop", os.path.join(REPO, "test/bench/kernels/light_loop/naive.comp"), []),
            ("light_loop_hlsl", os.path.join(REPO, "test/bench/kernels/light_loop_hlsl/naive.hlsl"),
             ["-D", "-S", "comp", "-e", "main"])]
    for name, src, extra in srcs:
        for env in ("vulkan1.1", "vulkan1.2", "vulkan1.3"):
            dst = os.path.join(work, "%s.%s.spv" % (name, env))
            rc, _, err = run([glslang, "-V", "--target-env", env] + extra + [src, "-o", dst], 120)
            if rc == 0:
                out.append(("bench/%s/%s" % (name, env), dst))
            else:
                print("cannot compile %s for %s: %s" % (src, env, last_line(rc, err)),
                      file=sys.stderr)
    lit = os.path.join(REPO, "test/lit/batch-uniform-loads")
    for f in sorted(os.listdir(lit)):
        if not f.endswith(".comp"):
            continue
        dst = os.path.join(work, "lit_" + f + ".spv")
        rc, _, _ = run([glslang, "-V", "--target-env", "vulkan1.1",
                        os.path.join(lit, f), "-o", dst], 120)
        if rc == 0:
            out.append(("lit/" + f, dst))
    return out


PRESSURE = """#version 450
// Generated by calibrate_registers.py: the light loop with a batch of %(k)d
// vec4 per light and %(n)d more per-lane vec4 accumulators held across it.
layout(local_size_x = 64) in;
struct Light { vec4 v[%(k)d]; };
layout(set = 0, binding = 0) readonly buffer Lights { Light lights[]; };
layout(set = 0, binding = 1) readonly buffer Counts { uvec2 start_count[]; };
layout(set = 0, binding = 2) writeonly buffer Out { vec4 color[]; };
void main() {
  uint lane = gl_GlobalInvocationID.x;
  uvec2 sc = start_count[gl_WorkGroupID.x];
  vec4 p = vec4(float(lane), float(lane & 7u), float(lane >> 3u), 1.0) * 0.125;
  vec4 acc = vec4(0.0);
%(decl)s  for (uint i = 0u; i < sc.y; ++i) {
    Light L = lights[sc.x + i];
    vec4 s = L.v[0];
    for (int j = 1; j < %(k)d; ++j) s = s * p + L.v[j];
    float w = max(0.0, 1.0 - dot(s.xyz - p.xyz, s.xyz - p.xyz));
    acc += s * w;
%(body)s  }
  color[lane] = acc%(sum)s;
}
"""


def pressure_inputs(work):
    """Own kernels of graded pressure: batches of 1..4 vec4 and 0..12 more
    accumulators, to find where occupancy is lost (the corpus kernels are
    light)."""
    out = []
    for k in (1, 2, 3, 4):
        for n in range(0, 13):
            decl = "".join("  vec4 a%d = p * %d.0;\n" % (j, j + 1) for j in range(n))
            body = "".join("    a%d = a%d * w + s * %s;\n" % (j, j, "p.x" if j == 0 else "a%d.y" % (j - 1))
                           for j in range(n))
            src = os.path.join(work, "pressure_k%d_n%02d.comp" % (k, n))
            with open(src, "w") as f:
                f.write(PRESSURE % {"k": k, "n": n, "decl": decl, "body": body,
                                    "sum": "".join(" + a%d" % j for j in range(n))})
            dst = src + ".spv"
            rc, _, err = run(["glslangValidator", "-V", "--target-env", "vulkan1.1", src,
                              "-o", dst], 120)
            if rc == 0:
                out.append(("own/pressure_k%d_n%02d" % (k, n), dst))
            else:
                print("cannot compile %s: %s" % (src, last_line(rc, err)), file=sys.stderr)
    return out


def corpus_inputs(corpus, only):
    out = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(header, line.rstrip("\n").split("\t")))
            for flavour in ("raw", "opt"):
                path = os.path.join(corpus, r.get(flavour) or "")
                if r.get(flavour) and os.path.exists(path):
                    out.append(("corpus/%s/%s" % (flavour, r["id"]), path))
    return [(n, p) for n, p in out if re.search(only, n)]


# ---- the analysis ---------------------------------------------------------

def kernel_estimate(loops, only_batched=True):
    """The pass's estimate of the batched kernel's busiest point: the most,
    over its batched loops, of live + batch + 2, and the kernel's own."""
    best = 0
    for l in loops.values():
        if only_batched and l.get("forced") != "batched":
            continue
        best = max(best, l["function_live"], l["live"] + l["words"] + 2)
    return best


def loop_estimate(loops):
    """The loop part only (live + batch + 2) of the batched loops."""
    return max([l["live"] + l["words"] + 2 for l in loops.values()
                if l.get("forced") == "batched"] or [0])


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def decide(row, max_live):
    """Whether the rule with |max_live| refuses some batched loop of |row|
    (as CostRule does: live + batch + 2 above max(max_live, function_live))."""
    return any(l["live"] + l["words"] + 2 > max(max_live, l["function_live"])
               for l in row["loops"].values() if l.get("forced") == "batched")


def summarize(rows, out):
    meas = [r for r in rows if r.get("isa") and any(
        l.get("forced") == "batched" for l in r["loops"].values())]
    lines = []
    w = lines.append
    cands = sum(len(r["loops"]) for r in rows)
    w("# batch-uniform-loads register calibration\n")
    w("Modules with a candidate: %d (%d candidate loops; %d errors). "
      "Modules whose forced build batches a loop and compiled: %d.\n" % (
          sum(1 for r in rows if r["loops"]), cands,
          sum(1 for r in rows if r["error"]), len(meas)))
    for target in ["%s/w%d" % t for t in TARGETS]:
        pts, lost, extra = [], [], []
        for r in meas:
            s = r["isa"].get(target) or {}
            b, f = s.get("base"), s.get("forced")
            if not b or not f:
                continue
            est = kernel_estimate(r["loops"])
            pts.append((est, f["vgprs"], r["module"]))
            if f["occupancy"] < b["occupancy"]:
                lost.append((r["module"], est, b, f))
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        w("## %s: %d batched kernels\n" % (target, len(pts)))
        corpus = [(x, y) for x, y, m in pts if m.startswith("corpus/")]
        w("- corpus only (%d): Pearson r = %.2f; VGPRs - estimate: min %d, max %d" % (
            len(corpus), pearson([x for x, _ in corpus], [y for _, y in corpus]),
            min([y - x for x, y in corpus] or [0]), max([y - x for x, y in corpus] or [0])))
        w("- estimate (kernel, batched) vs VGPRs allocated for the batched kernel: "
          "Pearson r = %.2f; VGPRs - estimate: min %d, median %d, max %d" % (
              pearson(xs, ys), min(y - x for x, y in zip(xs, ys)),
              sorted(y - x for x, y in zip(xs, ys))[len(xs) // 2],
              max(y - x for x, y in zip(xs, ys))))
        under = sorted(pts, key=lambda p: p[0] - p[1])[:3]
        over = sorted(pts, key=lambda p: p[1] - p[0])[:3]
        w("- most VGPRs above the estimate: " + "; ".join(
            "%s est %d -> %d VGPRs" % (m, x, y) for x, y, m in under))
        w("- most VGPRs below the estimate: " + "; ".join(
            "%s est %d -> %d VGPRs" % (m, x, y) for x, y, m in over))
        buckets = collections.defaultdict(list)
        for x, y, _ in pts:
            buckets[min(x // 4 * 4, 60)].append(y)
        w("- VGPRs by estimate (bucket: min/median/max, n): " + "; ".join(
            "%d-%d: %d/%d/%d (%d)" % (k, k + 3, min(v), sorted(v)[len(v) // 2], max(v), len(v))
            for k, v in sorted(buckets.items())))
        w("- batched kernel loses occupancy against base: %d" % len(lost))
        for m, est, b, f in lost:
            row = next(r for r in meas if r["module"] == m)
            w("  - %s: estimate %d; VGPRs %d -> %d, waves/SIMD %d -> %d; -O: %s" % (
                m, est, b["vgprs"], f["vgprs"], b["occupancy"], f["occupancy"], ", ".join(
                    sorted({l.get("default", "?") for l in row["loops"].values()
                            if l.get("forced") == "batched"}))))
        w("")
    # The thresholds: which refusals each would make, against the losses.
    w("## Thresholds (max-live) against RDNA2 occupancy losses (navi21, wave32 or wave64)\n")
    w("| max-live | kernels refused | of them losing occupancy | losses batched anyway |")
    w("|---|---|---|---|")
    def loses(r, fams=("navi21/w32", "navi21/w64")):
        for t in fams:
            s = r["isa"].get(t) or {}
            if s.get("base") and s.get("forced") and \
                    s["forced"]["occupancy"] < s["base"]["occupancy"]:
                return True
        return False
    for ml in range(20, 61, 2):
        refused = [r for r in meas if decide(r, ml)]
        w("| %d | %d | %d | %d |" % (ml, len(refused), sum(1 for r in refused if loses(r)),
                                     sum(1 for r in meas if loses(r) and not decide(r, ml))))
    w("")
    w("## The shipped rule (waveopt -O as built) against RDNA2 occupancy\n")
    batched_losing, refused_keeping, refused_losing, batched_keeping = [], [], [], []
    for r in meas:
        verdict = {l.get("default") for l in r["loops"].values() if l.get("forced") == "batched"}
        refused = "RegisterPressure" in verdict
        if refused:
            (refused_losing if loses(r) else refused_keeping).append(r["module"])
        else:
            (batched_losing if loses(r) else batched_keeping).append(r["module"])
    w("- batched, keeps occupancy: %d" % len(batched_keeping))
    w("- batched, loses occupancy (wave32 or wave64): %d %s" % (
        len(batched_losing), ", ".join(batched_losing)))
    w("- refused (RegisterPressure), would lose: %d" % len(refused_losing))
    w("- refused (RegisterPressure), would keep it: %d %s" % (
        len(refused_keeping), ", ".join(refused_keeping)))
    w("")
    w("## Same kernel, every SPIR-V version and front end\n")
    for r in rows:
        if r["module"].startswith("bench/"):
            w("- %s: %s; default: %s" % (r["module"], ", ".join(
                "loop %s: live %d, kernel %d, batch %d" % (
                    k, l["live"], l["function_live"], l["words"])
                for k, l in sorted(r["loops"].items())) or "no candidate", ", ".join(
                sorted({l.get("default", "?") for l in r["loops"].values()})) or "-"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "calibration.md"), "w") as f:
        f.write(text)
    print(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="/work/scratch/corpus")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--work", default=None, help="directory for the built modules")
    ap.add_argument("--out", default=None, help="directory for calibration.json/.md")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="regex on corpus module names")
    ap.add_argument("--no-corpus", action="store_true", help="the benchmark and lit kernels only")
    ap.add_argument("--load", help="summarize an earlier calibration.json (no runs)")
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="bul-calibration-")
    os.makedirs(out, exist_ok=True)
    if args.load:
        summarize(json.load(open(args.load)), out)
        return 0
    work = args.work or os.path.join(out, "work")
    tools = {t: os.path.abspath(os.path.join(args.build, "bin", t)) for t in ("waveopt", "waverun")}
    inputs = benchmark_inputs(os.path.join(work, "inputs"))
    inputs += pressure_inputs(os.path.join(work, "inputs"))
    if not args.no_corpus:
        inputs += corpus_inputs(args.corpus, args.only)
    jobs = [(tools, path, os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", name)), name)
            for name, path in inputs]
    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for i, row in enumerate(pool.map(measure, jobs)):
            rows.append(row)
            if row["loops"] or row["error"]:
                print("[%d/%d] %s: %d candidate(s)%s" % (
                    i + 1, len(jobs), row["module"], len(row["loops"]),
                    " ERROR " + row["error"] if row["error"] else ""), file=sys.stderr)
    with open(os.path.join(out, "calibration.json"), "w") as f:
        json.dump(rows, f, indent=1)
    summarize(rows, out)
    print("written: %s/calibration.json, %s/calibration.md" % (out, out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
