#!/usr/bin/env python3
"""Byte comparison of `waveopt -O` outputs between two builds, for changes
that must not change any output (compile-time work).

  scripts/compare_outputs.py --waveopt BIN --out DIR [--reference DIR]
                             [--corpus DIR] [--jobs N]

Runs BIN on every kernel of test/lit, test/diff's inputs and examples/
(.comp .glsl .frag .hlsl .spvasm) and, with --corpus, on every module of
the scratch corpus (<id>.raw.spv and <id>.opt.spv), each under plain -O and
-O --target=amd, nvidia and none, and writes each output (or, when waveopt
refuses the input, its exit status and messages) to DIR. With
--reference (a DIR an earlier run wrote, e.g. with the build before the
change) it prints how many outputs were compared and lists every one that
differs; exit status 1 when any does.
"""
import argparse
import concurrent.futures
import hashlib
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
KERNELS = (".comp", ".glsl", ".frag", ".hlsl", ".spvasm")
TARGETS = [("O", []), ("amd", ["--target=amd"]), ("nvidia", ["--target=nvidia"]),
           ("none", ["--target=none"])]


def inputs(corpus):
    """(name, path) of every input, names unique and stable."""
    out = []
    for top in ("test/lit", "test/diff", "examples"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(KERNELS):
                    p = os.path.join(d, f)
                    out.append((os.path.relpath(p, ROOT), p))
    if corpus:
        with open(os.path.join(corpus, "manifest.tsv")) as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                row = dict(zip(header, line.rstrip("\n").split("\t")))
                for flavour in ("raw", "opt"):
                    if row.get(flavour):
                        out.append(("corpus/%s.%s" % (row["id"], flavour),
                                    os.path.join(corpus, row[flavour])))
    return sorted(out)


def run_one(job):
    waveopt, outdir, name, path, tag, flags = job
    key = hashlib.sha1((name + "|" + tag).encode()).hexdigest()
    dst = os.path.join(outdir, key)
    tmp = dst + ".spv"
    # Relative input paths, run from the root: OpString names agree.
    p = subprocess.run([waveopt, "-O"] + flags + [os.path.relpath(path, ROOT), "-o", tmp],
                       cwd=ROOT, capture_output=True, timeout=600)
    with open(dst, "wb") as f:
        if p.returncode == 0 and os.path.exists(tmp):
            f.write(b"ok\n" + open(tmp, "rb").read())
        else:
            f.write(b"rc=%d\n" % p.returncode + p.stdout + p.stderr)
    if os.path.exists(tmp):
        os.remove(tmp)
    return name + " " + tag, key


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waveopt", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reference", default="")
    ap.add_argument("--corpus", default="")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    waveopt = os.path.abspath(args.waveopt)
    jobs = [(waveopt, args.out, n, p, tag, flags)
            for n, p in inputs(args.corpus) for tag, flags in TARGETS]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(run_one, jobs))
    if not args.reference:
        print("%d outputs written to %s" % (len(done), args.out))
        return 0
    differ, new, ok = [], [], 0
    for label, key in done:
        ref = os.path.join(args.reference, key)
        if not os.path.exists(ref):  # an input added since the reference
            new.append(label)
            continue
        a = open(os.path.join(args.out, key), "rb").read()
        b = open(ref, "rb").read()
        ok += a.startswith(b"ok\n")
        if a != b:
            differ.append(label)
    for label in differ:
        print("differs: " + label)
    for label in new:
        print("new (no reference): " + label)
    print("%d outputs compared (%d modules written, the rest refused alike), %d differ, "
          "%d new" % (len(done) - len(new), ok, len(differ), len(new)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
