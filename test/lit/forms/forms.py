#!/usr/bin/env python3
"""Same meaning, same decision (issue 23): one kernel written in several
spellings, each compiled by glslang as is and after `spirv-opt -O`, must get
the same decision from the passes.

  forms.py [tools] --flags="--morton-remap --quad-exchange"
           --expect="quad-exchange: applied Exchanged" [--expect=...]
           KERNEL [KERNEL...]

A KERNEL (.comp: GLSL, .hlsl: HLSL with entry point `main`) names its
spellings on `// FORMS: a b c` lines; spelling `a` is compiled with
-DFORM_a. A kernel without a FORMS line is one spelling. Each spelling is
compiled by glslangValidator (Vulkan 1.1) -- the "raw" module -- and that
module after `spirv-opt -O` -- the "opt" one -- and each goes through
`waveopt <flags>` (--forms picks some spellings only). The decision of a module is the set of remarks
`<pass>: <applied|missed> <Name>` of the passes the expectations name; it
must equal the expected set for every spelling and both flavours. A
changed module must pass spirv-val.

With --waverun, every changed module is also run against its original by
`waverun diff` (lavapipe at --widths, default 4,8,16, checked against the
simulator; then the simulator at --sim-widths, default 32,64) with the
kernel's .waverun spec (KERNEL with its extension replaced), once per
distinct pair of modules.

The table of decisions is printed; a failure names the spelling and the
flavour. Tools default to those on PATH. Exit 0 when every decision (and
every comparison) is as expected, 1 otherwise.
"""
import argparse
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile

REMARK = re.compile(r"remark: ([a-z-]+): (applied|missed) (\w+) in ")


def forms_of(path):
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*FORMS:(.*)$", line)
            if m:
                names += m.group(1).split()
    return names or [""]


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def compile_form(args, kernel, form, tmp):
    """(raw module, opt module) paths for one spelling, or an error line."""
    tag = os.path.splitext(os.path.basename(kernel))[0] + ("." + form if form else "")
    raw = os.path.join(tmp, tag + ".raw.spv")
    opt = os.path.join(tmp, tag + ".opt.spv")
    cmd = [args.glslang, "--target-env", "vulkan1.1", "-o", raw]
    if kernel.endswith(".hlsl"):
        cmd += ["-D", "-S", "comp", "-e", "main"]
    else:
        cmd += ["-V"]
    if form:
        cmd.append("-DFORM_" + form)
    r = run(cmd + [kernel])
    if r.returncode != 0:
        return None, None, "glslang failed: " + (r.stdout + r.stderr).strip()[-400:]
    r = run([args.spirv_opt, "-O", raw, "-o", opt])
    if r.returncode != 0:
        return None, None, "spirv-opt -O failed: " + r.stderr.strip()[-400:]
    return raw, opt, ""


def decide(args, module, passes, out):
    """The module's decision (a sorted tuple of remarks), or an error line."""
    regex = "|".join(passes)
    r = run([args.waveopt] + shlex.split(args.flags) +
            ["--remarks=" + regex, "--remarks-missed=" + regex, module, "-o", out])
    if r.returncode != 0:
        return None, "waveopt failed: " + r.stderr.strip()[-400:]
    got = sorted({"%s: %s %s" % m.groups() for m in REMARK.finditer(r.stderr)
                  if m.group(1) in passes})
    changed = open(module, "rb").read() != open(out, "rb").read()
    if changed:
        v = run([args.spirv_val, "--target-env", "vulkan1.1", out])
        if v.returncode != 0:
            return None, "the rewrite does not validate: " + (v.stdout + v.stderr).strip()[-400:]
    return tuple(got), ""


BINDING_LINE = re.compile(r"^\s*binding\s+(\d+)\.(\d+)\b")
PUSH_LINE = re.compile(r"^\s*push\b")


def spec_for(args, kernel, orig):
    """The kernel's spec, less the entries for resources |orig| does not
    declare (waverun refuses a spec that names a resource the module lacks;
    spellings share one spec, and spirv-opt -O drops what a spelling leaves
    unused). Returns the path of the spec to use, or None."""
    spec = os.path.splitext(kernel)[0] + ".waverun"
    if not os.path.exists(spec):
        return None
    text = run([args.spirv_dis, orig]).stdout
    sets, bindings = {}, {}
    for m in re.finditer(r"OpDecorate (%\S+) (DescriptorSet|Binding) (\d+)", text):
        (sets if m.group(2) == "DescriptorSet" else bindings)[m.group(1)] = m.group(3)
    declared = {(sets.get(v, "0"), b) for v, b in bindings.items()}
    has_push = re.search(r"OpVariable %\S+ PushConstant", text) is not None
    kept = []
    for line in open(spec).read().splitlines():
        m = BINDING_LINE.match(line)
        if m and (m.group(1), m.group(2)) not in declared:
            continue
        if PUSH_LINE.match(line) and not has_push:
            continue
        kept.append(line)
    path = orig + ".waverun"
    with open(path, "w") as f:
        f.write("\n".join(kept) + "\n")
    return path


def diff(args, kernel, orig, out):
    """Runs waverun diff on one pair; returns an error line or ""."""
    spec = spec_for(args, kernel, orig)
    spec_args = ["--spec=" + spec] if spec else []
    runs = []
    if args.widths:
        runs.append(["--widths=" + args.widths, "--check-sim"])
    if args.sim_widths:
        runs.append(["--sim", "--widths=" + args.sim_widths])
    for flags in runs:
        r = run([args.waverun, "diff", orig, out] + flags + spec_args)
        if r.returncode != 0:
            return "waverun diff %s exited with %d:\n%s" % (
                " ".join(flags), r.returncode, (r.stdout + r.stderr).strip()[-1500:])
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--flags", required=True, help="waveopt flags (one string)")
    ap.add_argument("--expect", action="append", required=True,
                    help="'<pass>: <applied|missed> <Name>', once per expected remark")
    ap.add_argument("--flavours", default="raw,opt")
    ap.add_argument("--forms", default="", help="only these spellings (comma-separated)")
    ap.add_argument("--waveopt", default="waveopt")
    ap.add_argument("--glslang", default="glslangValidator")
    ap.add_argument("--spirv-opt", dest="spirv_opt", default="spirv-opt")
    ap.add_argument("--spirv-val", dest="spirv_val", default="spirv-val")
    ap.add_argument("--spirv-dis", dest="spirv_dis", default="spirv-dis")
    ap.add_argument("--waverun", default="", help="also run every rewrite against its original")
    ap.add_argument("--widths", default="4,8,16")
    ap.add_argument("--sim-widths", dest="sim_widths", default="32,64")
    args = ap.parse_args()

    expected = tuple(sorted(set(args.expect)))
    passes = sorted({e.split(":")[0] for e in expected})
    failures = []
    ran = {}
    decided = 0
    with tempfile.TemporaryDirectory(prefix="waveopt-forms-") as tmp:
        for kernel in args.kernels:
            for form in forms_of(kernel):
                if args.forms and form not in args.forms.split(","):
                    continue
                name = os.path.basename(kernel) + (" " + form if form else "")
                raw, opt, error = compile_form(args, kernel, form, tmp)
                for flavour in args.flavours.split(","):
                    label = "%-40s %-4s" % (name, flavour)
                    if error:
                        failures.append("%s: %s" % (label, error))
                        print("%s  ERROR" % label)
                        continue
                    module = raw if flavour == "raw" else opt
                    out = module[:-4] + ".out.spv"
                    got, error2 = decide(args, module, passes, out)
                    if error2:
                        failures.append("%s: %s" % (label, error2))
                        print("%s  ERROR" % label)
                        continue
                    decided += 1
                    ok = got == expected
                    print("%s  %s%s" % (label, "; ".join(got) or "(no remark)",
                                        "" if ok else "   <-- expected " + "; ".join(expected)))
                    if not ok:
                        failures.append("%s: decided %s, expected %s" % (
                            label, "; ".join(got) or "nothing", "; ".join(expected)))
                    if args.waverun and open(module, "rb").read() != open(out, "rb").read():
                        key = hashlib.sha256(open(module, "rb").read() +
                                             open(out, "rb").read()).hexdigest()
                        if key not in ran:
                            ran[key] = diff(args, kernel, module, out)
                            print("%s  waverun diff: %s" % (label, ran[key] or "equal"))
                        if ran[key]:
                            failures.append("%s: %s" % (label, ran[key]))
    wanted = set(args.forms.split(",")) if args.forms else set()
    known = {f for k in args.kernels for f in forms_of(k)}
    if wanted - known:
        failures.append("no such spelling: " + ", ".join(sorted(wanted - known)))
    if not decided:
        failures.append("no spelling was compiled")
    if args.waverun:
        print("%d distinct rewrites run at sizes %s" % (
            len(ran), ",".join(w for w in (args.widths, args.sim_widths) if w)))
    if failures:
        print("\nFAIL: %d spelling(s) decided differently or failed:" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    print("PASS: every spelling decided '%s'" % "; ".join(expected))
    return 0


if __name__ == "__main__":
    sys.exit(main())
