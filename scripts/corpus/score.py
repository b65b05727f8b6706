#!/usr/bin/env python3
"""Scores waveopt on the scratch corpus (see build_corpus.py).

Runs `waveopt -O` (or --passes) over every module of the corpus, raw and
after spirv-opt -O, and prints per pass: modules where it fired, and every
missed reason with its count. With --diff it also runs each rewritten module
against its original with waverun (lavapipe at 4/8/16, simulator at 32/64,
inputs from `--auto`); with --isa it compiles both with the AMD compiler on
null hardware (RDNA2, wave64 and wave32) and compares occupancy.

  scripts/corpus/score.py [--corpus DIR] [--build DIR] [--label NAME]
                          [--flags '-O'] [--diff [--devices lavapipe,sim]
                          [--versions]] [--isa] [--jobs N]
                          [--compare OTHER.json]

--versions: -O's output selects its versions by SpecIds (default false:
the portable module), so a plain --diff runs only the portable module;
this also runs each version, its SpecId set true.

Results go to <corpus>/score/<label>/ (rewritten modules, remarks, and
summary.json); --compare prints the differences from an earlier summary.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

REMARK = re.compile(r"^--- !(Passed|Missed|Analysis)\n(.*?)^\.\.\.$", re.M | re.S)


def parse_remarks(text):
    out = []
    for kind, body in REMARK.findall(text):
        fields = dict(re.findall(r"^(Pass|Name|Function):\s+'?([^'\n]*)'?$", body, re.M))
        msg = re.search(r"String:\s+'(.*)'", body)
        out.append({"kind": kind, "pass": fields.get("Pass", ""),
                    "name": fields.get("Name", ""),
                    "message": msg.group(1) if msg else ""})
    return out


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def optimize(job):
    waveopt, flags, src, dst, remarks = job
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    os.makedirs(os.path.dirname(remarks), exist_ok=True)
    rc, out, err = run([waveopt] + flags + [src, "-o", dst, "--remarks-output=" + remarks], 300)
    rem = []
    if os.path.exists(remarks):
        rem = parse_remarks(open(remarks).read())
    return {"rc": rc, "error": err.strip().splitlines()[-1] if rc else "", "remarks": rem}


DEVICES = {"lavapipe": ["--widths=4,8,16"], "sim": ["--sim", "--widths=32,64"]}


def version_spec_ids(remarks):
    """The SpecIds of -O's versions, from their SpecializationVersion remarks."""
    ids = set()
    for r in remarks:
        if r["pass"] == "versions" and r["name"] == "SpecializationVersion":
            m = re.match(r"SpecId ([0-9]+) ", r["message"])
            if m:
                ids.add(int(m.group(1)))
    return sorted(ids)


def diff(job):
    """EQUAL / DIFF / a class of failure, at lavapipe widths and simulator
    widths; with the versions' SpecIds, also each version selected
    (keys "sim@1000", ...)."""
    waverun, a, b, env, devices, spec_ids = job
    res = {}
    runs = [(d, DEVICES[d]) for d in devices]
    runs += [(d + "@" + str(i), DEVICES[d] + ["--const", "%d=true" % i])
             for i in spec_ids for d in devices]
    for name, extra in runs:
        rc, out, err = run([waverun, "diff", a, b, "--auto"] + extra, 900, env)
        text = out + err
        if rc == 0:
            res[name] = "EQUAL"
        elif rc == 3:
            res[name] = "NONDETERMINISTIC" if "NONDETERMINISTIC" in text else "DIFF"
        elif rc == 124 or "TIMEOUT" in text:
            res[name] = "timeout"
        else:
            line = next((l for l in text.splitlines() if "error" in l.lower()),
                        text.strip().splitlines()[-1] if text.strip() else "failed")
            res[name] = "error: " + re.sub(r"[0-9]+", "N", line)[:120]
        res[name + "_text"] = text[-2000:]
    return res


def isa(job):
    """Subgroups per SIMD (and VGPRs, instructions) of the original and the
    rewrite on RDNA2 (navi21) at wave64 and wave32."""
    waverun, a, b = job
    rc, out, err = run([waverun, "isa", a, b, "--amd=navi21", "--wave=64,32",
                        "--format=json"], 600)
    try:
        rows = json.loads(out)
    except ValueError:
        return {"error": (err or out).strip()[:200] or "no output"}
    res = {}
    for row in rows:
        key = "w" + str(row.get("wave"))
        st = row.get("statistics") or {}
        res.setdefault(key, []).append({
            "error": row.get("error") or "",
            "occupancy": st.get("Subgroups per SIMD"),
            "vgprs": st.get("VGPRs"), "instructions": st.get("Instructions")})
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="/work/scratch/corpus")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "../../build"))
    ap.add_argument("--label", default="current")
    ap.add_argument("--flags", default="-O")
    ap.add_argument("--flavours", default="raw,opt")
    ap.add_argument("--diff", action="store_true")
    ap.add_argument("--isa", action="store_true")
    ap.add_argument("--devices", default="lavapipe,sim",
                    help="--diff: where to run (lavapipe at 4/8/16, sim at 32/64)")
    ap.add_argument("--versions", action="store_true",
                    help="--diff: also run each of -O's versions (its SpecId set true)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compare", default="")
    ap.add_argument("--filter", default="", help="regex on module ids")
    args = ap.parse_args()

    waveopt = os.path.abspath(os.path.join(args.build, "bin", "waveopt"))
    waverun = os.path.abspath(os.path.join(args.build, "bin", "waverun"))
    corpus = os.path.abspath(args.corpus)
    outdir = os.path.join(corpus, "score", args.label)
    flags = shlex.split(args.flags)
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    if args.filter:
        rows = [r for r in rows if re.search(args.filter, r["id"])]

    jobs, keys = [], []
    for r in rows:
        for flav in args.flavours.split(","):
            src = r.get(flav, "")
            if not src:
                continue
            dst = os.path.join(outdir, "spv", r["id"] + "." + flav + ".spv")
            rem = os.path.join(outdir, "remarks", r["id"] + "." + flav + ".yaml")
            jobs.append((waveopt, flags, os.path.join(corpus, src), dst, rem))
            keys.append((r["id"], flav, r["stage"], os.path.join(corpus, src), dst))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(optimize, jobs))

    modules = {}
    for (sid, flav, stage, src, dst), res in zip(keys, results):
        fired = sorted({r["pass"] for r in res["remarks"] if r["kind"] == "Passed"})
        modules[sid + "." + flav] = {"id": sid, "flavour": flav, "stage": stage,
                                     "src": src, "dst": dst, "rc": res["rc"],
                                     "error": res["error"], "fired": fired,
                                     "remarks": res["remarks"]}

    if args.diff or args.isa:
        env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", LP_NUM_THREADS="1")
        todo = [m for m in modules.values() if m["fired"] and m["rc"] == 0 and m["stage"] == "comp"]
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs // 2) if args.diff else args.jobs) as pool:
            if args.diff:
                devices = args.devices.split(",")
                diff_jobs = [(waverun, m["src"], m["dst"], env, devices,
                              version_spec_ids(m["remarks"]) if args.versions else [])
                             for m in todo]
                for m, d in zip(todo, pool.map(diff, diff_jobs)):
                    m["diff"] = d
            if args.isa:
                for m, d in zip(todo, pool.map(isa, [(waverun, m["src"], m["dst"]) for m in todo])):
                    m["isa"] = d

    os.makedirs(outdir, exist_ok=True)
    summary = summarize(modules, args.flavours.split(","))
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump({"flags": args.flags, "summary": summary, "modules": modules}, f, indent=1,
                  sort_keys=True)
    print_summary(summary)
    if args.compare:
        other = json.load(open(args.compare))
        compare(other["modules"], modules)


def summarize(modules, flavours):
    s = {}
    for flav in flavours:
        ms = [m for m in modules.values() if m["flavour"] == flav]
        fired = collections.Counter()
        applied = collections.Counter()
        missed = collections.Counter()
        for m in ms:
            for p in m["fired"]:
                fired[p] += 1
            for r in m["remarks"]:
                if r["kind"] == "Passed":
                    applied[r["pass"] + " " + r["name"]] += 1
                elif r["kind"] == "Missed":
                    missed[r["pass"] + " " + r["name"]] += 1
        diffs = collections.Counter()
        occupancy = collections.Counter()
        for m in ms:
            for k, v in sorted(m.get("diff", {}).items()):
                if not k.endswith("_text"):
                    diffs[k.split("@")[0] + (" version " if "@" in k else " ") + v] += 1
            for w in ("w64", "w32"):
                if "isa" in m:
                    occupancy[w + " " + occupancy_class(m["isa"].get(w))] += 1
        s[flav] = {"modules": len(ms), "errors": sum(1 for m in ms if m["rc"] != 0),
                   "error_lines": collections.Counter(
                       re.sub(r"[0-9]+", "N", m["error"])[:100] for m in ms if m["rc"] != 0),
                   "fired": dict(fired), "applied": dict(applied), "missed": dict(missed),
                   "diff": dict(diffs), "occupancy": dict(occupancy)}
    return s


def occupancy_class(entry):
    """kept / LOST / error for one wave size's [original, rewrite] rows."""
    if not isinstance(entry, list) or len(entry) != 2:
        return "error"
    a, b = entry
    if a["error"] or b["error"] or a["occupancy"] is None or b["occupancy"] is None:
        return "error"
    return "kept" if b["occupancy"] >= a["occupancy"] else "LOST"


def print_summary(s):
    for flav, d in s.items():
        print(f"== {flav}: {d['modules']} modules, {d['errors']} waveopt errors")
        for line, n in sorted(d["error_lines"].items(), key=lambda x: -x[1])[:8]:
            print(f"   error x{n}: {line}")
        for p, n in sorted(d["fired"].items()):
            print(f"   fired  {p:22} {n:5} modules")
        for k, n in sorted(d["applied"].items()):
            print(f"   applied {k:44} {n:5}")
        for k, n in sorted(d["missed"].items(), key=lambda x: (x[0].split()[0], -x[1])):
            print(f"   missed {k:45} {n:5}")
        for k, n in sorted(d["diff"].items()):
            print(f"   diff   {k:45} {n:5}")
        for k, n in sorted(d["occupancy"].items()):
            print(f"   occupancy {k:42} {n:5}")


def compare(before, after):
    print("== changes from the earlier summary (fired passes per module)")
    for key in sorted(set(before) | set(after)):
        a = before.get(key, {}).get("fired", [])
        b = after.get(key, {}).get("fired", [])
        if a != b:
            print(f"   {key}: {','.join(a) or '-'} -> {','.join(b) or '-'}")


if __name__ == "__main__":
    main()
