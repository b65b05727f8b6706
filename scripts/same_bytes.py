#!/usr/bin/env python3
"""Checks that a refactor changes no output byte: runs one waveopt binary
over a set of inputs under every pipeline flavour (-O, each --target, each
pass alone) and records a hash of each output (the module, the exit status
and the messages); with --against, compares with an earlier record.

  same_bytes.py --waveopt OLD/waveopt --record old.json INPUT...
  same_bytes.py --waveopt NEW/waveopt --record new.json --against old.json INPUT...

INPUTs are files or directories (searched for .spv .spvasm .comp .glsl
.hlsl .frag). Prints the number of runs compared and each one that differs;
exits 1 when any differs. With --modulo-ids the module is hashed as its
disassembly with ids renumbered in order of first use (spirv-dis on PATH):
the same instructions in the same order, whatever ids they have.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

EXTENSIONS = (".spv", ".spvasm", ".comp", ".glsl", ".hlsl", ".frag")
FLAVOURS = {
    "O": ["-O"],
    "O-amd": ["-O", "--target=amd"],
    "O-nvidia": ["-O", "--target=nvidia"],
    "O-none": ["-O", "--target=none"],
    "morton-remap": ["--morton-remap"],
    "quad-exchange": ["--quad-exchange"],
    "batch-uniform-loads": ["--batch-uniform-loads"],
    "prereduce-atomics": ["--prereduce-atomics"],
    "workgroup-reduce": ["--workgroup-reduce"],
}


def inputs(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    yield os.path.join(root, name)


def modulo_ids(module):
    text = subprocess.run(["spirv-dis", "--raw-id", module], capture_output=True,
                          check=True).stdout.decode()
    # Without the id bound and the column padding, which follow the ids.
    text = "\n".join(l.strip() for l in text.splitlines() if not l.startswith("; Bound:"))
    ids = {}
    return re.sub(r"%(\d+)", lambda m: "%%%d" % ids.setdefault(m.group(1), len(ids) + 1),
                  text).encode()


def run(waveopt, path, flavour, canonical):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.spv")
        proc = subprocess.run([waveopt, *FLAVOURS[flavour], path, "-o", out],
                              capture_output=True, timeout=300)
        h = hashlib.sha256()
        h.update(b"rc=%d\n" % proc.returncode)
        h.update(proc.stdout + b"\n--\n" + proc.stderr.replace(tmp.encode(), b"TMP"))
        if os.path.exists(out):
            with open(out, "rb") as f:
                h.update(b"\n--\n" + (modulo_ids(out) if canonical else f.read()))
        return f"{flavour}:{path}", h.hexdigest(), proc.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--waveopt", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--against")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modulo-ids", action="store_true")
    ap.add_argument("--flavours", default=",".join(FLAVOURS))
    ap.add_argument("--only", help="a file of FLAVOUR:PATH lines: run just those (e.g. the "
                                   "ones that differed, again --modulo-ids)")
    ap.add_argument("paths", nargs="*")
    args = ap.parse_args()
    if args.only:
        with open(args.only) as f:
            jobs = [tuple(reversed(line.strip().split(":", 1))) for line in f if line.strip()]
    else:
        jobs = [(p, f) for p in inputs(args.paths) for f in args.flavours.split(",")]
    record, ok = {}, 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for key, digest, good in pool.map(lambda j: run(args.waveopt, *j, args.modulo_ids), jobs):
            record[key] = digest
            ok += good
    with open(args.record, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
    print(f"{len(record)} runs ({ok} wrote a module)")
    if not args.against:
        return 0
    with open(args.against) as f:
        old = json.load(f)
    common = sorted(set(old) & set(record))
    differ = [k for k in common if old[k] != record[k]]
    for k in differ:
        print("differs:", k)
    if differ:
        with open(args.record + ".differ", "w") as f:
            f.write("".join(k + "\n" for k in differ))
    print(f"{len(common)} compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
