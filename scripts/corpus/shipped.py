#!/usr/bin/env python3
"""The shipped-binaries corpus: SPIR-V modules that public repositories commit.

Public sample collections ship the SPIR-V their build produced, compiled by
glslang, DXC or Slang, for every stage. They are the forms other compilers
produce, so they are waveopt's test of "every valid module of today's front
ends is read". Like the source corpus (build_corpus.py) it lives OUTSIDE the
repository and is never committed.

  shipped.py extract [--mirrors DIR] [--out DIR]
      every *.spv blob of every mirrored repository (bare git snapshots from
      `fetch`, one directory per repository: owner+name/repo[/.git]) into
      <out>/bin/, with manifest.tsv: id, repo, path, generator (front end),
      SPIR-V version, execution models.
  shipped.py score [--out DIR] [--build DIR] [--label NAME] [--flags '-O']
                   [--spirv-val PATH] [--jobs N] [--compare OTHER.json]
      waveopt over every module, twice (same bytes?), spirv-val of the input
      and of the output. Prints, by front end: modules refused (by first
      error line, and whether spirv-val accepts the input), modules where
      each pass fired, crashes, invalid outputs, non-determinism.
      Results: <out>/score/<label>/summary.json.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import struct
import subprocess
import sys

GENERATORS = {8: "glslang", 13: "shaderc", 14: "dxc", 40: "slang", 7: "spirv-as",
              23: "tint", 28: "naga", 27: "rust-gpu", 43: "llvm"}
MODELS = {0: "vert", 1: "tesc", 2: "tese", 3: "geom", 4: "frag", 5: "comp", 6: "kernel",
          5267: "task", 5268: "mesh", 5313: "rgen", 5314: "rint", 5315: "rahit",
          5316: "rchit", 5317: "rmiss", 5318: "rcall", 5364: "task", 5365: "mesh"}


def git_dir(mirrors, repo):
    base = os.path.join(mirrors, repo, "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def header_facts(data):
    """(generator, 'major.minor', [execution models]) of a SPIR-V binary, or None."""
    if len(data) < 20 or len(data) % 4:
        return None
    magic = struct.unpack_from("<I", data)[0]
    if magic != 0x07230203:
        return None
    n = len(data) // 4
    words = struct.unpack("<%dI" % n, data)
    version = "%d.%d" % ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff)
    gen = GENERATORS.get(words[2] >> 16, "tool%d" % (words[2] >> 16))
    models, i = [], 5
    while i < n:
        wc, op = words[i] >> 16, words[i] & 0xffff
        if wc == 0:
            break
        if op == 15 and i + 1 < n:  # OpEntryPoint
            models.append(MODELS.get(words[i + 1], str(words[i + 1])))
        i += wc
    return gen, version, sorted(set(models))


def extract(args):
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "bin"), exist_ok=True)
    rows = []
    for repo in sorted(os.listdir(args.mirrors)):
        gd = git_dir(args.mirrors, repo)
        if not os.path.isdir(gd):
            continue
        ls = subprocess.run(["git", "--git-dir", gd, "ls-tree", "-r", "HEAD"],
                            capture_output=True, text=True)
        for line in ls.stdout.splitlines():
            meta, path = line.split("\t", 1)
            _, kind, sha = meta.split()
            if kind != "blob" or not path.endswith(".spv"):
                continue
            data = subprocess.run(["git", "--git-dir", gd, "cat-file", "blob", sha],
                                  capture_output=True).stdout
            facts = header_facts(data)
            if facts is None:  # LFS pointers, other formats
                continue
            sid = hashlib.sha1((repo + "/" + path).encode()).hexdigest()[:12]
            dst = os.path.join("bin", sid + ".spv")
            with open(os.path.join(out, dst), "wb") as f:
                f.write(data)
            rows.append([sid, repo, path, facts[0], facts[1], "+".join(facts[2]), dst])
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("id\trepo\tpath\tgenerator\tversion\tmodels\tfile\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    by = collections.Counter((r[1], r[3]) for r in rows)
    for (repo, gen), n in sorted(by.items()):
        print(f"{repo:40} {gen:10} {n:5}")
    print(f"{len(rows)} modules in {out}/manifest.tsv")


def run(cmd, timeout=300):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, b"", "timeout"


VAL_ENV = {"1.0": "vulkan1.0", "1.1": "vulkan1.1", "1.2": "vulkan1.1", "1.3": "vulkan1.1",
           "1.4": "vulkan1.1spv1.4", "1.5": "vulkan1.2", "1.6": "vulkan1.3"}


def score_one(job):
    waveopt, val, flags, src, tmp, version = job
    res = {}
    env = VAL_ENV.get(version, "vulkan1.3")
    # The block layout rules the input is valid under: the environment's
    # own, else relaxed, else scalar (waveopt takes those with a warning);
    # the output is validated under the same rules.
    layout = []
    for rules in ([], ["--relax-block-layout"], ["--scalar-block-layout"]):
        rc, _, e = run([val, "--target-env", env] + rules + [src])
        if not rules:
            err = e
        if rc == 0:
            layout = rules
            break
    res["input_valid"] = rc == 0
    res["input_layout"] = " ".join(layout)
    res["input_error"] = "" if rc == 0 else (err.strip().splitlines() or ["?"])[0][:200]
    outs = []
    for k in range(2):
        dst = "%s.%d.spv" % (tmp, k)
        rem = "%s.%d.yaml" % (tmp, k)
        for p in (dst, rem):
            if os.path.exists(p):
                os.remove(p)
        rc, _, err = run([waveopt] + flags + [src, "-o", dst, "--remarks-output=" + rem])
        outs.append((rc, err, dst, rem))
    rc, err, dst, rem = outs[0]
    res["rc"] = rc
    res["crash"] = rc < 0 or rc >= 128 or rc == 124
    lines = [l for l in err.strip().splitlines() if l.startswith("error") or "error:" in l]
    res["error"] = (lines[0] if lines else (err.strip().splitlines() or [""])[-1])[:200] if rc else ""
    res["fired"] = []
    if os.path.exists(rem):
        text = open(rem).read()
        res["fired"] = sorted(set(re.findall(r"^--- !Passed\nPass:\s+'?([a-z-]+)", text, re.M)))
    res["deterministic"] = True
    res["output_valid"] = None
    if rc == 0 and os.path.exists(dst):
        other = outs[1][2]
        res["deterministic"] = (os.path.exists(other) and
                                open(dst, "rb").read() == open(other, "rb").read())
        vrc, _, verr = run([val, "--target-env", env] + layout + [dst])
        res["output_valid"] = vrc == 0
        if vrc:
            res["output_error"] = (verr.strip().splitlines() or ["?"])[0][:200]
    if rc and os.path.exists(dst):
        res["partial_output"] = True
    return res


def score(args):
    out = os.path.abspath(args.out)
    waveopt = os.path.abspath(os.path.join(args.build, "bin", "waveopt"))
    label_dir = os.path.join(out, "score", args.label)
    os.makedirs(os.path.join(label_dir, "tmp"), exist_ok=True)
    rows = []
    with open(os.path.join(out, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    if args.filter:
        rows = [r for r in rows if re.search(args.filter, r["repo"] + "/" + r["path"])]
    flags = shlex.split(args.flags)
    jobs = [(waveopt, args.spirv_val, flags, os.path.join(out, r["file"]),
             os.path.join(label_dir, "tmp", r["id"]), r["version"]) for r in rows]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(score_one, jobs))
    modules = {}
    for r, res in zip(rows, results):
        res.update({k: r[k] for k in ("repo", "path", "generator", "version", "models")})
        modules[r["id"]] = res
    summary = summarize(modules)
    with open(os.path.join(label_dir, "summary.json"), "w") as f:
        json.dump({"flags": args.flags, "summary": summary, "modules": modules}, f,
                  indent=1, sort_keys=True)
    print_summary(summary)
    if args.compare:
        other = json.load(open(args.compare))["modules"]
        print("== changes from", args.compare)
        moved = collections.Counter()
        for k, m in modules.items():
            o = other.get(k)
            if not o:
                continue
            a = "refused" if o["rc"] else ",".join(o["fired"]) or "-"
            b = "refused" if m["rc"] else ",".join(m["fired"]) or "-"
            if a != b:
                moved[(m["generator"], a, b)] += 1
        for (g, a, b), n in sorted(moved.items()):
            print(f"   {g:8} {a:40} -> {b:40} {n:5}")


def error_class(line):
    """An error line without the file name and numbers: one key per cause."""
    line = re.sub(r"^waveopt: error: [^:]*\.spv: ", "", line)
    return re.sub(r"[0-9]+", "N", line)[:110]


def summarize(modules):
    s = {}
    for gen in sorted({m["generator"] for m in modules.values()}) + ["all"]:
        ms = [m for m in modules.values() if gen in ("all", m["generator"])]
        refused = [m for m in ms if m["rc"] and not m["crash"]]
        s[gen] = {
            "modules": len(ms),
            "input_valid": sum(m["input_valid"] for m in ms),
            "refused": len(refused),
            "refused_but_valid": sum(1 for m in refused if m["input_valid"]),
            "refused_by": dict(collections.Counter(error_class(m["error"]) for m in refused)),
            "fired": dict(collections.Counter(p for m in ms for p in m["fired"])),
            "modules_fired": sum(1 for m in ms if m["fired"]),
            "crashes": sum(m["crash"] for m in ms),
            "invalid_outputs": sum(1 for m in ms if m["output_valid"] is False),
            "nondeterministic": sum(1 for m in ms if not m["deterministic"]),
            "partial_outputs": sum(1 for m in ms if m.get("partial_output")),
        }
    return s


def print_summary(s):
    for gen, d in s.items():
        print(f"== {gen}: {d['modules']} modules ({d['input_valid']} valid for spirv-val, relaxed or scalar block layout allowed), "
              f"{d['refused']} refused ({d['refused_but_valid']} of them valid), "
              f"{d['modules_fired']} rewritten, {d['crashes']} crashes, "
              f"{d['invalid_outputs']} invalid outputs, {d['nondeterministic']} non-deterministic, "
              f"{d['partial_outputs']} partial outputs")
        for line, n in sorted(d["refused_by"].items(), key=lambda x: -x[1])[:10]:
            print(f"   refused x{n}: {line}")
        for p, n in sorted(d["fired"].items()):
            print(f"   fired {p:24} {n:5}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--mirrors", default="/work/.mirror")
    e.add_argument("--out", default="/work/scratch/shipped")
    s = sub.add_parser("score")
    s.add_argument("--out", default="/work/scratch/shipped")
    s.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "../../build"))
    s.add_argument("--label", default="current")
    s.add_argument("--flags", default="-O")
    s.add_argument("--spirv-val", default="spirv-val")
    s.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    s.add_argument("--filter", default="")
    s.add_argument("--compare", default="")
    args = ap.parse_args()
    extract(args) if args.cmd == "extract" else score(args)


if __name__ == "__main__":
    main()
