#!/usr/bin/env python3
"""Census of prereduce-atomics over the scratch corpus: how many atomics it
rewrote and why it left the others, by remark name, operation, width and
stage.

Runs `waveopt --prereduce-atomics[=PARAMS]` on every module of the corpus
(see build_corpus.py; raw and after spirv-opt -O), matches the pass's
remarks with the module's atomics (the pass emits exactly one remark per
atomic instruction, in module order), and writes <out>/<label>.json plus a
Markdown table on stdout (the JSON also lists every atomic with its remark, and the
modules waveopt failed on). With --compare it prints two summaries side by
side (e.g. main's binary before, a branch's after).

  scripts/corpus/atomics_census.py [--corpus DIR] [--waveopt BIN]
      [--params P] [--label NAME] [--out DIR] [--jobs N]
  scripts/corpus/atomics_census.py --compare BEFORE.json AFTER.json
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ATOMIC_OPS = {
    227: "Load", 228: "Store", 229: "Exchange", 230: "CompareExchange",
    231: "CompareExchangeWeak", 232: "IIncrement", 233: "IDecrement",
    234: "IAdd", 235: "ISub", 236: "SMin", 237: "UMin", 238: "SMax",
    239: "UMax", 240: "And", 241: "Or", 242: "Xor", 318: "FlagTestAndSet",
    319: "FlagClear", 6035: "FAdd", 5614: "FMin", 5615: "FMax",
}
OP_TYPE_INT, OP_TYPE_FLOAT = 21, 22
REMARK = re.compile(r"^--- !(Passed|Missed|Analysis)\n(.*?)^\.\.\.$", re.M | re.S)


def atomics_of(path):
    """[(operation, width)] of the module's atomic instructions, in order."""
    data = open(path, "rb").read()
    if len(data) < 20:
        return []
    words = struct.unpack("<%dI" % (len(data) // 4), data[: len(data) // 4 * 4])
    if words[0] != 0x07230203:
        words = struct.unpack(">%dI" % (len(data) // 4), data[: len(data) // 4 * 4])
    widths, out, i = {}, [], 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            break
        if op in (OP_TYPE_INT, OP_TYPE_FLOAT):
            widths[words[i + 1]] = words[i + 2]
        elif op in ATOMIC_OPS:
            width = widths.get(words[i + 1], 0) if op != 228 else 0
            out.append((ATOMIC_OPS[op], width))
        i += count
    return out


def remarks_of(text):
    out = []
    for kind, body in REMARK.findall(text):
        fields = dict(re.findall(r"^(Pass|Name):\s+'?([^'\n]*)'?$", body, re.M))
        if fields.get("Pass") != "prereduce-atomics":
            continue
        msg = re.search(r"String:\s+'(.*)'", body)
        out.append({"kind": "applied" if kind == "Passed" else "missed",
                    "name": fields.get("Name", ""),
                    "message": msg.group(1) if msg else ""})
    return out


def census_one(job):
    waveopt, params, src, env_name, tmp = job
    remarks_path = os.path.join(tmp, os.path.basename(src) + ".yaml")
    flag = "--prereduce-atomics" + ("=" + params if params else "")
    cmd = [waveopt, flag, src, "-o", os.devnull, "--remarks-output=" + remarks_path]
    if env_name:
        cmd.insert(1, "--target-env=" + env_name)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = 124, "timeout"
    remarks = []
    if os.path.exists(remarks_path):
        remarks = remarks_of(open(remarks_path).read())
        os.remove(remarks_path)
    return {"rc": rc, "error": err.strip().splitlines()[-1] if rc and err.strip() else "",
            "atomics": atomics_of(src), "remarks": remarks}


def summarize(rows, results):
    s = {"modules": 0, "modules_with_atomics": 0, "failed": 0, "mismatched": 0,
         "atomics": 0, "applied": 0, "by_name": collections.Counter(),
         "by_width": collections.defaultdict(collections.Counter),
         "by_op": collections.defaultdict(collections.Counter),
         "by_stage": collections.defaultdict(collections.Counter),
         "split64": 0, "fragment_guarded": 0, "atomic_list": [], "failures": []}
    for (row, flavour), res in zip(rows, results):
        s["modules"] += 1
        if res["rc"] != 0:
            s["failures"].append([row["id"], flavour, res["error"]])
        if not res["atomics"]:
            continue
        s["modules_with_atomics"] += 1
        if res["rc"] != 0:
            s["failed"] += 1
            continue
        if len(res["remarks"]) != len(res["atomics"]):
            s["mismatched"] += 1
            continue
        for (op, width), rem in zip(res["atomics"], res["remarks"]):
            key = rem["kind"] + " " + rem["name"]
            s["atomics"] += 1
            s["applied"] += rem["kind"] == "applied"
            s["by_name"][key] += 1
            s["by_width"][str(width)][key] += 1
            s["by_op"][op][rem["kind"]] += 1
            s["by_stage"][row.get("stage", "?")][key] += 1
            s["atomic_list"].append([row["id"], flavour, row.get("stage", "?"), op, width, key])
            s["split64"] += "reduced as 32-bit pieces" in rem["message"]
            s["fragment_guarded"] += "helper invocations are kept out" in rem["message"]
    return s


def table(summaries, labels):
    names = sorted(set().union(*[s["by_name"] for s in summaries]),
                   key=lambda n: (not n.startswith("applied"), n))
    lines = ["| | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
    for key in ("modules", "modules_with_atomics", "atomics", "applied",
                "split64", "fragment_guarded", "failed", "mismatched"):
        lines.append("| %s | %s |" % (key, " | ".join(str(s[key]) for s in summaries)))
    for n in names:
        lines.append("| %s | %s |" % (n, " | ".join(str(s["by_name"].get(n, 0)) for s in summaries)))
    for width in ("32", "64"):
        for n in names:
            vals = [s["by_width"].get(width, {}).get(n, 0) for s in summaries]
            if any(vals):
                lines.append("| %s-bit: %s | %s |" % (width, n, " | ".join(map(str, vals))))
    stages = sorted(set().union(*[s["by_stage"] for s in summaries]))
    for stage in stages:
        vals = [sum(v for k, v in s["by_stage"].get(stage, {}).items() if k.startswith("applied"))
                for s in summaries]
        tot = [sum(s["by_stage"].get(stage, {}).values()) for s in summaries]
        lines.append("| stage %s: applied / atomics | %s |" % (
            stage, " | ".join("%d / %d" % (a, t) for a, t in zip(vals, tot))))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="/work/scratch/corpus")
    ap.add_argument("--waveopt", default=os.path.join(os.path.dirname(__file__), "../../build/bin/waveopt"))
    ap.add_argument("--params", default="")
    ap.add_argument("--label", default="current")
    ap.add_argument("--out", default="/work/scratch/atomics/census")
    ap.add_argument("--flavours", default="raw,opt")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--compare", nargs=2, metavar="JSON")
    args = ap.parse_args()

    if args.compare:
        sums = [json.load(open(p)) for p in args.compare]
        print(table(sums, [os.path.splitext(os.path.basename(p))[0] for p in args.compare]))
        return 0

    corpus = os.path.abspath(args.corpus)
    rows = []
    with open(os.path.join(corpus, "manifest.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    jobs, keys = [], []
    with tempfile.TemporaryDirectory(prefix="atomics-census-") as tmp:
        for r in rows:
            for flav in args.flavours.split(","):
                if r.get(flav):
                    sub = os.path.join(tmp, "%d" % len(jobs))
                    os.makedirs(sub)
                    jobs.append((os.path.abspath(args.waveopt), args.params,
                                 os.path.join(corpus, r[flav]), r.get("target_env", ""), sub))
                    keys.append((r, flav))
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(census_one, jobs))
    s = summarize(keys, results)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.label + ".json")
    with open(path, "w") as f:
        json.dump(s, f, indent=1, sort_keys=True)
    print(table([s], [args.label]))
    print("\nwritten: " + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
