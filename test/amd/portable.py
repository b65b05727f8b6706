#!/usr/bin/env python3
"""The portable cost rule on AMD (docs/targets.md): plain `waveopt -O` is never
worse than the original on any AMD family, and each of its versions, once
specialized, compiles exactly as the single-target module would.

    portable.py --bin DIR [--families polaris10,vega10,navi21,gfx1100]
                [--kernels FILE...] [--report FILE.md] [--wave 32,64]
                [--icd .deps/radv/icd.json --families polaris10,vega10,navi21,navi31]

For each kernel (default: test/amd/Inputs/portable/* and the benchmark
kernels' naive versions):
  original  the kernel through waveopt's front end, no passes;
  -O        `waveopt -O` of it: the portable module, plus its versions
            (--print-spec-constants);
  single    `waveopt -O --target=T` for portable and for each version's
            targets.
Every module is compiled by RADV/ACO on null hardware (`waverun isa`), the
-O output once per specialization (`--const ID=true`). Fails (exit 1) when,
on some family and wave size:
  1. the default specialization's ACO latency is above 1.05x the original's,
     or it has fewer subgroups per SIMD (occupancy);
  2. the default specialization's statistics differ from --target=portable's;
  3. a version's specialization differs from its targets' single module in
     instructions, registers, latency or occupancy (the constant must cost
     nothing once folded); a larger shared-memory size alone is reported.
Static compiler statistics; not timed.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The statistics a specialization must share with its single-target module.
SAME = ["instructions", "vgprs", "sgprs", "latency", "subgroups_per_simd"]
# RADV (Mesa 22.3) sizes shared memory before it drops the unselected
# versions' code: a specialization declares the largest shared memory of any
# version. Reported, not failed, unless occupancy (in SAME) drops.
NOTED = ["lds_bytes"]
BENCH_FLAGS = {"softmax_row": ["--float-reassoc"]}


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def default_kernels():
    own = sorted(glob.glob(os.path.join(HERE, "Inputs", "portable", "*.comp")) +
                 glob.glob(os.path.join(HERE, "Inputs", "portable", "*.hlsl")))
    bench = sorted(glob.glob(os.path.join(REPO, "test", "bench", "kernels", "*", "naive.*")))
    return [k for k in own + bench if not k.endswith(".waverun")]


def kernel_name(path):
    if os.path.basename(os.path.dirname(path)) != "portable":
        return "bench/" + os.path.basename(os.path.dirname(path))
    return os.path.basename(path)


def kernel_flags(path):
    flags = BENCH_FLAGS.get(os.path.basename(os.path.dirname(path)), [])
    if path.endswith(".hlsl"):
        flags = flags + ["-S", "comp", "-e", "main"]
    return flags


SPEC_LINE = re.compile(r"^SpecId (\d+) bool (\S+) = false: true on ([a-z, ]+) \((.*)\)$")


def build(bindir, path, work, o_flags):
    """Returns {label: spv path} and the versions [(id, name, targets, passes)]."""
    waveopt = os.path.join(bindir, "waveopt")
    name = re.sub(r"[^A-Za-z0-9_.]", "_", kernel_name(path))
    flags = kernel_flags(path)
    out = {"original": os.path.join(work, name + ".original.spv"),
           "-O": os.path.join(work, name + ".O.spv")}
    rc, _, err = run([waveopt, path, "-o", out["original"]] + flags)
    if rc != 0:
        raise RuntimeError("%s does not compile: %s" % (path, err.strip()))
    rc, text, err = run([waveopt, "-O", out["original"], "-o", out["-O"],
                         "--print-spec-constants"] + o_flags +
                        [f for f in flags if f.startswith("--")])
    if rc != 0:
        raise RuntimeError("waveopt -O failed on %s: %s" % (path, err.strip()))
    versions = []
    for line in text.splitlines():
        m = SPEC_LINE.match(line)
        if not m:
            raise RuntimeError("unexpected --print-spec-constants line: %r" % line)
        versions.append((int(m.group(1)), m.group(2), m.group(3).split(", "), m.group(4)))
    targets = ["portable"] + [t for v in versions for t in v[2]]
    for t in targets:
        out[t] = os.path.join(work, "%s.%s.spv" % (name, t))
        rc, _, err = run([waveopt, "-O", "--target=" + t, out["original"], "-o", out[t]] +
                         [f for f in flags if f.startswith("--")])
        if rc != 0:
            raise RuntimeError("waveopt -O --target=%s failed on %s: %s" % (t, path, err.strip()))
    return out, versions


ICD = []  # --icd=FILE: another RADV (scripts/deps-radv.sh)


def isa(bindir, modules, families, waves, consts=()):
    cmd = [os.path.join(bindir, "waverun"), "isa", "--amd=" + ",".join(families),
           "--wave=" + waves, "--format=tsv"] + ICD + ["--const=%d=true" % c for c in consts] + modules
    rc, out, err = run(cmd)
    lines = out.splitlines()
    if not lines:
        raise RuntimeError("waverun isa printed nothing (exit %d): %s" % (rc, err.strip()))
    header = lines[0].split("\t")
    rows = {}
    for line in lines[1:]:
        cells = dict(zip(header, line.split("\t")))
        rows[(cells["module"], cells["family"], cells["wave"])] = cells
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--families", default="polaris10,vega10,navi21,gfx1100")
    ap.add_argument("--wave", default="32,64")
    ap.add_argument("--kernels", nargs="*")
    ap.add_argument("--report", help="write the table as markdown to this file")
    ap.add_argument("--limit", type=float, default=1.05, help="latency ratio allowed")
    ap.add_argument("--icd", help="RADV's ICD json (default: the system's; "
                    "Mesa 25: .deps/radv/icd.json from scripts/deps-radv.sh, families navi31...)")
    ap.add_argument("--o-flags", default="",
                    help="extra flags for the -O build (the negative control: --target=none)")
    args = ap.parse_args()
    families = args.families.split(",")
    if args.icd:
        ICD.append("--icd=" + args.icd)
    kernels = args.kernels or default_kernels()
    failures, table, notes = [], [], []
    with tempfile.TemporaryDirectory(prefix="waveopt-portable-") as work:
        built = []
        for k in kernels:
            try:
                built.append((k,) + build(args.bin, k, work, args.o_flags.split()))
            except RuntimeError as e:
                failures.append(str(e))
        plain = [p for _, mods, _ in built for label, p in mods.items() if label != "-O" or True]
        base = isa(args.bin, sorted(set(plain)), families, args.wave)
        const_rows = {}
        for ids in sorted({v[0] for _, _, vs in built for v in vs}):
            opts = [mods["-O"] for _, mods, vs in built if any(v[0] == ids for v in vs)]
            const_rows[ids] = isa(args.bin, opts, families, args.wave, [ids])
        for k, mods, versions in built:
            name = kernel_name(k)
            for (mod, fam, wave), orig in sorted(base.items()):
                if mod != mods["original"] or orig["status"] != "ok":
                    continue
                where = "%s %s wave%s" % (name, fam, wave)
                dflt = base.get((mods["-O"], fam, wave))
                if dflt is None or dflt["status"] != "ok":
                    failures.append("%s: -O does not compile: %s" % (where, dflt and dflt["status"]))
                    continue
                lat_o, lat_d = float(orig["latency"]), float(dflt["latency"])
                occ_o, occ_d = int(orig["subgroups_per_simd"]), int(dflt["subgroups_per_simd"])
                ratio = lat_d / lat_o if lat_o else 1.0
                row = [name, fam, wave, orig["instructions"], dflt["instructions"],
                       "%d" % lat_o, "%d" % lat_d, "%.2f" % ratio, "%d" % occ_o, "%d" % occ_d]
                if ratio > args.limit:
                    failures.append("%s: latency %d -> %d (x%.2f > %.2f)" % (where, lat_o, lat_d, ratio, args.limit))
                if occ_d < occ_o:
                    failures.append("%s: subgroups per SIMD %d -> %d" % (where, occ_o, occ_d))
                single = base.get((mods["portable"], fam, wave))
                diff = [c for c in SAME if single and single[c] != dflt[c]]
                if diff:
                    failures.append("%s: the default specialization differs from --target=portable in %s" % (where, ", ".join(diff)))
                for c in NOTED:
                    if single and single[c] != dflt[c]:
                        notes.append("%s: the default specialization: %s %s where --target=portable has %s" % (
                            where, c, dflt[c], single[c]))
                vcells = []
                for vid, vname, targets, _ in versions:
                    spec = const_rows[vid].get((mods["-O"], fam, wave))
                    for t in targets:
                        one = base.get((mods[t], fam, wave))
                        bad = [c for c in SAME if not spec or not one or spec[c] != one[c]]
                        if bad:
                            failures.append("%s: %s=true differs from --target=%s in %s" % (where, vname, t, ", ".join(bad)))
                        for c in NOTED:
                            if spec and one and spec[c] != one[c]:
                                notes.append("%s: %s=true: %s %s where --target=%s has %s" % (
                                    where, vname, c, spec[c], t, one[c]))
                    vcells.append("%s: %s/%s" % (vname, spec["instructions"] if spec else "-",
                                                 spec["latency"] if spec else "-"))
                row.append("; ".join(vcells) if vcells else "—")
                table.append(row)
    header = ["kernel", "family", "wave", "instr. original", "instr. -O", "latency original",
              "latency -O", "ratio", "occupancy original", "occupancy -O",
              "versions (instructions/latency when selected)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in table]
    text = "\n".join(lines) + "\n"
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "".join("\nnote: %s\n" % n for n in notes))
    print(text)
    for n in notes:
        print("note: " + n)
    for f in failures:
        print("FAIL: " + f)
    print("portable: %d rows checked, %d failure(s)" % (len(table), len(failures)))
    return 1 if failures or not table else 0


if __name__ == "__main__":
    sys.exit(main())
