#!/usr/bin/env python3
"""morton-remap on the scratch corpus: how often it fires, why it does not,
and which kernels it rewrites (see build_corpus.py for the corpus).

Runs `waveopt --morton-remap` and `waveopt -O` over every module of the
corpus (raw glslang output and after spirv-opt -O), collects the pass's
remarks (one per entry point), and prints, per mode and form:
  - modules where it fired, and every missed reason with its count;
  - every fired kernel: id, repository path, workgroup size, how it was
    remapped (grid tiles, or the index split it found) and the accesses
    that decided it;
  - checks on the fired kernels: a second run of the pass on the rewrite
    must not fire again, and kernels that read subgroup built-ins or hold
    bit-field code over the invocation index (hand-made quad orders such as
    FidelityFX's ARmpRed8x8 look like that) are listed for review.
The results go to <out>/<label>/summary.json (default out: ./morton-census;
the corpus itself is read-only); --compare prints a
before/after table against another summary (e.g. one made with main's
waveopt: --waveopt /path/to/main/waveopt --label main).

  scripts/corpus/morton_census.py [--corpus DIR] [--waveopt BIN]
      [--label NAME] [--out DIR] [--jobs N] [--modes pass,O]
      [--forms raw,opt] [--limit N] [--compare OTHER/summary.json]
      [--diff [--auto-cover] --waverun BIN] [--isa --waverun-isa BIN] [--reuse]

With --diff, every module the pass alone (mode "pass") rewrote is run
against its original by `waverun diff` (lavapipe at 4, 8, 16, the simulator
at 32, 64): with `--auto` (a waverun that has it), or with --auto-cover,
for main's waverun, from spec lines made here (3x2 workgroups, images six
workgroups wide and four high, runtime arrays of 4096 elements, push
constants of small integers; waverun fills uniform blocks itself). Modules waverun cannot bind
(separate images and samplers, 3-D or arrayed images, other storage image
formats, acceleration structures) are reported as "not run" with the
reason. With --isa both are compiled by `waverun isa` for RDNA2 (navi21) at
wave64 and wave32 and their occupancy (subgroups per SIMD) compared. The
rewrites are kept in <out>/<label>/spv/; --reuse with --diff or --isa runs
only those checks again on the kept rewrites of an earlier run.

Reads the corpus only; never writes into it or into the repository.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

REMARK = re.compile(r"^--- !(Passed|Missed|Analysis)\n(.*?)^\.\.\.$", re.M | re.S)
SHAPE = re.compile(r"(\d+)x(\d+)x(\d+) workgroup")
MODES = {"pass": ["--morton-remap"], "O": ["-O"]}
DIFF_TIMEOUT = 900  # seconds per waverun diff (--diff-timeout)


def parse_remarks(text):
    out = []
    for kind, body in REMARK.findall(text):
        fields = dict(re.findall(r"^(Pass|Name|Function):\s+'?([^'\n]*)'?$", body, re.M))
        msg = re.search(r"String:\s+'(.*)'", body)
        if fields.get("Pass") != "morton-remap":
            continue
        out.append({"kind": kind, "name": fields.get("Name", ""),
                    "function": fields.get("Function", ""),
                    "message": msg.group(1).replace("''", "'") if msg else ""})
    return out


def run(cmd, timeout=300, env=None):
    """(rc, stdout, stderr); rc 124 on a timeout. The command runs in its own
    process group, killed whole on a timeout: waverun's per-width children
    would otherwise keep the pipes open and the wait going."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return 124, "", "timeout"


def disassemble(path):
    rc, out, _ = run(["spirv-dis", "--raw-id", path], 60)
    return out if rc == 0 else ""


def review_flags(text):
    """Why a fired kernel deserves a look: subgroup built-ins, or bit-field
    instructions (how hand-made quad orders compile)."""
    flags = []
    if re.search(r"BuiltIn (SubgroupLocalInvocationId|SubgroupId)\b", text):
        flags.append("reads subgroup ids")
    if re.search(r"OpBitField(Insert|UExtract|SExtract)", text):
        flags.append("bit-field code")
    return flags


def job(args):
    waveopt, mode, module_id, form, src, tmp, keep_dir = args
    base = os.path.join(tmp, "%s.%s.%s" % (module_id.replace("/", "+"), form, mode))
    dst, yaml = base + ".spv", base + ".yaml"
    rc, _, err = run([waveopt] + MODES[mode] + [src, "-o", dst,
                                                "--remarks-output=" + yaml])
    res = {"id": module_id, "form": form, "mode": mode, "rc": rc,
           "error": err.strip().splitlines()[-1] if rc and err.strip() else "",
           "remarks": [], "again": None, "review": []}
    if os.path.exists(yaml):
        res["remarks"] = parse_remarks(open(yaml).read())
    if rc == 0 and any(r["kind"] == "Passed" for r in res["remarks"]):
        # Idempotence on real code: the rewrite must not be remapped again.
        yaml2 = base + ".again.yaml"
        run([waveopt] + MODES[mode] + [dst, "-o", base + ".again.spv",
                                       "--remarks-output=" + yaml2])
        again = parse_remarks(open(yaml2).read()) if os.path.exists(yaml2) else []
        res["again"] = [r["name"] for r in again]
        res["review"] = review_flags(disassemble(src))
        if mode == "pass" and keep_dir:
            kept = os.path.join(keep_dir, "%s.%s.spv" % (module_id, form))
            os.makedirs(os.path.dirname(kept), exist_ok=True)
            os.replace(dst, kept)
            res["src"], res["rewrite"] = src, kept
            shape = next((SHAPE.search(r["message"]) for r in res["remarks"]
                          if r["kind"] == "Passed"), None)
            res["shape"] = (int(shape.group(1)), int(shape.group(2))) if shape else (8, 8)
    for f in (dst, yaml, base + ".again.spv", base + ".again.yaml"):
        if os.path.exists(f):
            os.remove(f)
    return res


NOT_COVERED = re.compile(r"binding (\d+\.\d+) .*is not covered: (give it a size|its runtime array)")


def cover_spec(waverun, a, shape, env):
    """Spec lines that cover every binding of `a` for main's waverun (which
    has no automatic cover): 3x2 workgroups, 2-D images twice the dispatched
    area in each direction (downsamplers read at 2x), runtime arrays of 4096
    elements, push constants of small integers (mod:4); uniform blocks
    waverun fills itself.
    Returns (lines, None) or (None, the error that no spec line can fix)."""
    x, y = shape
    # Small integers in the push constants: they are often loop bounds and
    # sizes, and random words would make loops run for hours.
    lines = ["dispatch 3 2 1", "push fill=mod:4"]
    for _ in range(16):
        args = [waverun, "run", a, "--no-spec", "--subgroup-size=4"]
        for line in lines:
            args += ["-s", line]
        rc, out, err = run(args, DIFF_TIMEOUT, env)
        if rc == 0:
            return lines, None
        if rc == 124:
            return None, "timeout"
        text = (err or out).strip()
        if "module has none" in text and "push fill=mod:4" in lines:
            lines.remove("push fill=mod:4")
            continue
        m = NOT_COVERED.search(text)
        if not m:
            return None, text.splitlines()[-1] if text else "failed"
        if m.group(2).startswith("give"):
            lines.append("binding %s size=%dx%d" % (m.group(1), 6 * x, 4 * y))
        else:
            lines.append("binding %s size=4096" % m.group(1))
    return None, "too many bindings"


def diff_run(job_args):
    """EQUAL / DIFF / an error class, on lavapipe (4/8/16) and the simulator
    (32/64). With --auto-cover, the spec comes from cover_spec (main's
    waverun); otherwise from `waverun diff --auto`."""
    waverun, a, b, shape, auto_cover = job_args
    env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="1")
    res = {}
    spec = ["--auto"]
    if auto_cover:
        lines, why = cover_spec(waverun, a, shape, env)
        if lines is None:
            why = re.sub(r"^waverun: error: \S+: ", "", why)
            why = re.sub(r"'[^']*'", "'N'", why)
            return {"lavapipe": "not run: " + why[:110], "sim": "not run: " + why[:110]}
        spec = ["--no-spec"]
        for line in lines:
            spec += ["-s", line]
    for name, extra in (("lavapipe", ["--widths=4,8,16"]),
                        ("sim", ["--sim", "--widths=32,64"])):
        rc, out, err = run([waverun, "diff", a, b] + spec + extra, DIFF_TIMEOUT, env)
        text = out + err
        if rc == 0:
            res[name] = "EQUAL"
        elif rc == 3:
            res[name] = "NONDETERMINISTIC" if "NONDETERMINISTIC" in text else "DIFF"
        elif rc == 124:
            res[name] = "timeout"
        else:
            line = next((l for l in text.splitlines() if "error" in l.lower()),
                        text.strip().splitlines()[-1] if text.strip() else "failed")
            res[name] = "error: " + re.sub(r"[0-9]+", "N", line)[:120]
    return res


def isa_run(job_args):
    """Subgroups per SIMD of original and rewrite, navi21, wave64/wave32."""
    waverun, a, b = job_args
    res = {}
    for wave in ("64", "32"):
        rc, out, err = run([waverun, "isa", a, b, "--amd=navi21", "--wave=" + wave,
                            "--format=json"], 600)
        try:
            rows = json.loads(out) if rc == 0 else None
            before = rows[0]["statistics"]["Subgroups per SIMD"]
            after = rows[1]["statistics"]["Subgroups per SIMD"]
            vgpr = (rows[0]["statistics"].get("VGPRs"), rows[1]["statistics"].get("VGPRs"))
            res["w" + wave] = {"before": before, "after": after, "vgprs": vgpr}
        except (ValueError, KeyError, IndexError, TypeError):
            res["w" + wave] = {"error": (err or out).strip()[:200]}
    return res


def read_manifest(corpus):
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def module_path(corpus, row, form):
    value = row.get(form, "")
    if not value or value in ("-", "0", "no"):
        path = os.path.join(corpus, "spv", "%s.%s.spv" % (row["id"], form))
    else:
        path = value if os.path.isabs(value) else os.path.join(corpus, value)
        if not os.path.exists(path):
            path = os.path.join(corpus, "spv", "%s.%s.spv" % (row["id"], form))
    return path if os.path.exists(path) else None


def summarize(results, manifest):
    by_id = {r["id"]: r for r in manifest}
    table = collections.OrderedDict()
    fired = []
    for res in results:
        key = "%s/%s" % (res["mode"], res["form"])
        t = table.setdefault(key, {"modules": 0, "errors": 0, "entries": 0,
                                   "fired": 0, "missed": collections.Counter()})
        t["modules"] += 1
        if res["rc"] != 0:
            t["errors"] += 1
            continue
        for r in res["remarks"]:
            t["entries"] += 1
            if r["kind"] == "Passed":
                t["fired"] += 1
                m = SHAPE.search(r["message"])
                row = by_id.get(res["id"], {})
                fired.append({
                    "key": key, "id": res["id"], "repo": row.get("repo", ""),
                    "path": row.get("path", ""), "defines": row.get("defines", ""),
                    "workgroup": "x".join(m.groups()) if m else "?",
                    "one_d": bool(m and m.group(2) == "1"),
                    "message": r["message"], "again": res["again"],
                    "review": res["review"], "diff": res.get("diff"),
                    "isa": res.get("isa")})
            else:
                t["missed"][r["name"]] += 1
    for t in table.values():
        t["missed"] = dict(sorted(t["missed"].items(), key=lambda kv: (-kv[1], kv[0])))
    return {"table": table, "fired": fired}


def print_summary(summary, label):
    print("# morton-remap on the corpus (%s)\n" % label)
    for key, t in summary["table"].items():
        print("## %s: %d modules, %d entry points with a remark, %d fired, %d errors"
              % (key, t["modules"], t["entries"], t["fired"], t["errors"]))
        for name, n in t["missed"].items():
            print("  %-28s %d" % (name, n))
    print("\n## fired kernels")
    for f in summary["fired"]:
        print("- [%s] %s %s %s%s" % (f["key"], f["workgroup"], f["repo"], f["path"],
                                     " (" + f["defines"] + ")" if f["defines"] else ""))
        print("    " + f["message"])
        checks = []
        if f["again"] is not None:
            checks.append("second run: " + (", ".join(f["again"]) or "no remark"))
        if f["review"]:
            checks.append("review: " + ", ".join(f["review"]))
        if f.get("diff"):
            checks.append("diff: lavapipe %s, sim %s" % (f["diff"]["lavapipe"], f["diff"]["sim"]))
        if f.get("isa"):
            checks.append("RDNA2 subgroups/SIMD: " + ", ".join(
                "w%s %s" % (w[1:], "%s -> %s" % (v["before"], v["after"]) if "before" in v
                            else "error") for w, v in sorted(f["isa"].items())))
        if checks:
            print("    " + "; ".join(checks))
    bad = [f for f in summary["fired"] if f["again"] and "Remapped" in f["again"]]
    one_d = [f for f in summary["fired"] if f["one_d"]]
    diffs = collections.Counter()
    occupancy = collections.Counter()
    for f in summary["fired"]:
        if f.get("diff"):
            for k in ("lavapipe", "sim"):
                diffs["%s %s" % (k, f["diff"][k])] += 1
        if f.get("isa"):
            for w, v in f["isa"].items():
                occupancy["%s %s" % (w, "error" if "before" not in v else
                                     "kept" if v["after"] >= v["before"] else "LOST")] += 1
    if diffs:
        print("\ndiff-run: " + ", ".join("%s: %d" % kv for kv in sorted(diffs.items())))
    if occupancy:
        print("occupancy: " + ", ".join("%s: %d" % kv for kv in sorted(occupancy.items())))
    print("\n%d fired, %d with a 1-D workgroup (listed above with their split), "
          "%d remapped again by a second run, %d flagged for review"
          % (len(summary["fired"]), len(one_d), len(bad),
             sum(1 for f in summary["fired"] if f["review"])))


def compare(before, after):
    print("\n# before -> after")
    keys = list(after["table"].keys())
    for key in keys:
        b = before["table"].get(key, {"fired": 0, "missed": {}, "errors": 0})
        a = after["table"][key]
        print("## %s: fired %d -> %d, errors %d -> %d" % (key, b["fired"], a["fired"],
                                                        b["errors"], a["errors"]))
        names = sorted(set(b["missed"]) | set(a["missed"]))
        for n in names:
            print("  %-28s %5d -> %5d" % (n, b["missed"].get(n, 0), a["missed"].get(n, 0)))
    bf = {(f["key"], f["id"]) for f in before["fired"]}
    af = {(f["key"], f["id"]) for f in after["fired"]}
    print("\nfired before only: %d, after only: %d, both: %d"
          % (len(bf - af), len(af - bf), len(bf & af)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="/work/scratch/corpus")
    parser.add_argument("--waveopt", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "build", "bin", "waveopt"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--out", default="morton-census",
                        help="results directory (default: ./morton-census)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--modes", default="pass,O")
    parser.add_argument("--forms", default="raw,opt")
    parser.add_argument("--limit", type=int, default=0, help="first N modules only")
    parser.add_argument("--compare", default=None)
    parser.add_argument("--reuse", action="store_true",
                        help="print <out>/<label>/summary.json again (with --compare)")
    parser.add_argument("--diff", action="store_true")
    parser.add_argument("--waverun", default=None, help="waverun for --diff")
    parser.add_argument("--auto-cover", action="store_true",
                        help="--diff without waverun's --auto: cover the bindings "
                        "from waverun's own errors (main's waverun)")
    parser.add_argument("--diff-timeout", type=int, default=900,
                        help="seconds per waverun diff (a timeout is reported as such)")
    parser.add_argument("--isa", action="store_true")
    parser.add_argument("--waverun-isa", default=None, help="waverun for --isa")
    args = parser.parse_args()
    global DIFF_TIMEOUT
    DIFF_TIMEOUT = args.diff_timeout
    bin_dir = os.path.dirname(os.path.abspath(args.waveopt))
    waverun = args.waverun or os.path.join(bin_dir, "waverun")
    waverun_isa = args.waverun_isa or os.path.join(bin_dir, "waverun")

    if args.reuse:
        summary_path = os.path.join(args.out, args.label, "summary.json")
        with open(summary_path) as f:
            summary = json.load(f)
        if args.diff or args.isa:
            # Run (again) the diff / isa checks of the kept rewrites only.
            rows = {r["id"]: r for r in read_manifest(args.corpus)}
            todo = []
            for f in summary["fired"]:
                mode, form = f["key"].split("/")
                kept = os.path.join(args.out, args.label, "spv", "%s.%s.spv" % (f["id"], form))
                if mode != "pass" or not os.path.exists(kept):
                    continue
                m = SHAPE.search(f["message"])
                todo.append((f, module_path(args.corpus, rows[f["id"]], form), kept,
                             (int(m.group(1)), int(m.group(2))) if m else (8, 8)))
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                if args.diff:
                    for t, d in zip(todo, pool.map(diff_run, [
                            (waverun, src, kept, shape, args.auto_cover)
                            for _, src, kept, shape in todo])):
                        t[0]["diff"] = d
                if args.isa:
                    for t, d in zip(todo, pool.map(isa_run, [
                            (waverun_isa, src, kept) for _, src, kept, _ in todo])):
                        t[0]["isa"] = d
            with open(summary_path, "w") as f:
                json.dump(summary, f, indent=1)
        print_summary(summary, args.label)
        if args.compare:
            with open(args.compare) as f:
                compare(json.load(f), summary)
        return 0
    manifest = read_manifest(args.corpus)
    if args.limit:
        manifest = manifest[:args.limit]
    out_dir = os.path.join(args.out, args.label)
    os.makedirs(out_dir, exist_ok=True)
    jobs = []
    with tempfile.TemporaryDirectory(prefix="morton-census-") as tmp:
        for row in manifest:
            for form in args.forms.split(","):
                src = module_path(args.corpus, row, form)
                if src is None:
                    continue
                for mode in args.modes.split(","):
                    jobs.append((args.waveopt, mode, row["id"], form, src, tmp,
                                 os.path.join(out_dir, "spv")))
        results = []
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for i, res in enumerate(pool.map(job, jobs)):
                results.append(res)
                if (i + 1) % 500 == 0:
                    print("... %d/%d" % (i + 1, len(jobs)), file=sys.stderr, flush=True)
    todo = [r for r in results if r.get("rewrite")]
    if todo and (args.diff or args.isa):
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            if args.diff:
                for r, d in zip(todo, pool.map(diff_run, [
                        (waverun, r["src"], r["rewrite"], r["shape"], args.auto_cover)
                        for r in todo])):
                    r["diff"] = d
            if args.isa:
                for r, d in zip(todo, pool.map(isa_run, [(waverun_isa, r["src"], r["rewrite"])
                                                         for r in todo])):
                    r["isa"] = d
    summary = summarize(results, manifest)
    summary["label"] = args.label
    summary["waveopt"] = args.waveopt
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print_summary(summary, args.label)
    if args.compare:
        with open(args.compare) as f:
            compare(json.load(f), summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
