#!/usr/bin/env python3
"""Id exhaustion: every pass, and -O, on modules with 0, 1, 2, ... free ids.

  check_ids.py --waveopt W --spirv-as A --spirv-dis D --spirv-val V --tmp DIR shader...

For each shader (anything waveopt reads; put in SSA form with --ssa-rewrite,
as -O gives it to the passes) and each number of free ids F, the
module is renumbered so that its largest id is 4194302 - F (SPIRV-Tools' id
limit is 4194303), and each waveopt pass alone and -O run on it. Required:
  - exit status 0 and an output that validates;
  - when a pass reports that it failed (ids exhausted), its applied remarks
    are gone and, run alone, its output is the input, byte for byte;
  - the sweep is not vacuous: for every shader some pass failed cleanly at
    F = 0 and the same pass rewrote the module at the largest F.
"""
import argparse
import os
import re
import subprocess
import sys

LIMIT = 4194303
FREE = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 256]
PASSES = ["morton-remap", "quad-exchange", "batch-uniform-loads", "prereduce-atomics"]
FAILED = "failed (ids exhausted or an internal error)"


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    for tool in ("waveopt", "spirv-as", "spirv-dis", "spirv-val"):
        ap.add_argument("--" + tool, required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("shaders", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    errors = []

    def check(cond, what):
        if not cond:
            errors.append(what)
        return cond

    for shader in a.shaders:
        stem = os.path.join(a.tmp, os.path.basename(shader))
        # in SSA form, as -O gives it to the passes
        r = run([a.waveopt, "--ssa-rewrite", shader, "-o", stem + ".spv"])
        if not check(r.returncode == 0, "%s: does not compile: %s" % (shader, r.stderr)):
            continue
        text = run([a.spirv_dis, "--raw-id", stem + ".spv"]).stdout
        m = re.search(r"; Version: 1\.(\d)", text)
        env = "spv1.%s" % (m.group(1) if m else "3")
        top = max(int(x) for x in re.findall(r"%(\d+)\b", text))
        failed_at_zero, fired_at_max = set(), set()
        for free in FREE:
            new = LIMIT - 1 - free
            body = re.sub(r"; Bound: \d+\n", "", re.sub(r"%%%d\b" % top, "%%%d" % new, text))
            asm, spv = "%s.free%d.spvasm" % (stem, free), "%s.free%d.spv" % (stem, free)
            with open(asm, "w") as f:
                f.write(body)
            r = run([a.spirv_as, "--preserve-numeric-ids", "--target-env", env, asm, "-o", spv])
            if not check(r.returncode == 0, "%s: spirv-as: %s" % (asm, r.stderr)):
                continue
            with open(spv, "rb") as f:
                original = f.read()
            check(int.from_bytes(original[12:16], "little") == new + 1,
                  "%s: id bound is not %d" % (spv, new + 1))
            for step in ["-O"] + ["--" + p for p in PASSES]:
                out = "%s.free%d%s.out.spv" % (stem, free, step)
                r = run([a.waveopt, step, spv, "-o", out, "--remarks=.*"])
                where = "%s with %d free ids, %s" % (shader, free, step)
                if not check(r.returncode == 0, "%s: exit %d: %s" % (where, r.returncode, r.stderr)):
                    continue
                v = run([a.spirv_val, "--target-env", "vulkan1.1", out])
                check(v.returncode == 0, "%s: output does not validate: %s" % (where, v.stdout + v.stderr))
                with open(out, "rb") as f:
                    result = f.read()
                for p in PASSES:
                    if "%s %s" % (p, FAILED) in r.stderr:
                        check("applied" not in "".join(l for l in r.stderr.splitlines(True)
                                                       if ": remark: %s:" % p in l),
                              "%s: %s failed but its applied remarks were printed" % (where, p))
                        if step == "--" + p:
                            check(result == original,
                                  "%s: %s failed but the output differs from the input" % (where, p))
                        if free == 0:
                            failed_at_zero.add(p)
                    elif step == "--" + p and free == FREE[-1] and result != original:
                        fired_at_max.add(p)
        check(failed_at_zero & fired_at_max,
              "%s: no pass both failed cleanly with 0 free ids (%s) and rewrote with %d (%s)"
              % (shader, sorted(failed_at_zero), FREE[-1], sorted(fired_at_max)))
        print("%s: failed cleanly at 0 free ids: %s; rewrote with %d: %s"
              % (shader, sorted(failed_at_zero), FREE[-1], sorted(fired_at_max)))
    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
