#!/usr/bin/env python3
"""Which uniform-address atomics does RADV pre-reduce by itself? The evidence
behind `--assume-driver=radv` (docs/design/prereduce-atomics.md).

    python3 test/amd/radv_atomics.py [--bin build/bin] [--amd navi21,...] [--wave 64,32]

Generates one small compute shader per shape — storage (storage buffer,
workgroup, image texel, buffer reference), width (32/64), operation (IAdd,
ISub, IIncrement, IDecrement, UMin, SMin, UMax, SMax, And, Or, Xor), value
(uniform / divergent), returned value (used / unused), and whether the atomic
sits under a divergent branch — every one with a subgroup-uniform address:
prereduce-atomics' cases A and B. Each is compiled by RADV (`waverun isa`,
null hardware) as written, after `waveopt --prereduce-atomics`, and after
`waveopt --prereduce-atomics --assume-driver=radv` (extended-types on).

A shape counts as pre-reduced by RADV when the naive shader's ISA elects one
lane for the atomic (s_ff1/s_ctz of exec, the first active lane) — the shader
itself has no subgroup operation, so the election is the driver's — and
reduces the lanes' values where they differ (s_bcnt1 of exec for a uniform
add, a DPP/permlane reduction for a divergent value). Prints a Markdown table
per family and wave; exit 1 if a shape does not compile.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

OPS = {  # name: (GLSL function, signed, source-level operand)
    "IAdd": ("atomicAdd", False), "ISub": ("atomicAdd", False),
    "IIncrement": ("atomicAdd", False), "IDecrement": ("atomicAdd", False),
    "UMin": ("atomicMin", False), "SMin": ("atomicMin", True),
    "UMax": ("atomicMax", False), "SMax": ("atomicMax", True),
    "And": ("atomicAnd", False), "Or": ("atomicOr", False), "Xor": ("atomicXor", False),
}


def shader(storage, width, op, value, used, branch):
    """GLSL for one shape. ISub/IIncrement/IDecrement are written as atomicAdd
    and edited in the assembly (GLSL has no such built-ins)."""
    fn, signed = OPS[op]
    base = ("int" if signed else "uint") if width == 32 else ("int64_t" if signed else "uint64_t")
    lines = ["#version 450"]
    if width == 64:
        lines += ["#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require",
                  "#extension GL_EXT_shader_atomic_int64 : require"]
    if storage == "bda":
        lines += ["#extension GL_EXT_buffer_reference : require"]
    lines += ["layout(local_size_x = 64) in;",
              "layout(set = 0, binding = 1) readonly buffer In { %s vals[]; };" % base,
              "layout(set = 0, binding = 2) writeonly buffer Out { %s outs[]; };" % base,
              "layout(push_constant) uniform Push { %s pv; uint pad; %s };" % (
                  base, "Ref ref;" if storage == "bda" else "")]
    if storage == "bda":
        lines.insert(len(lines) - 1,
                     "layout(buffer_reference, std430) buffer Ref { %s t; };" % base)
    if storage == "ssbo":
        lines.append("layout(set = 0, binding = 0) buffer Target { %s t; };" % base)
        target = "t"
    elif storage == "shared":
        lines.append("shared %s t;" % base)
        target = "t"
    elif storage == "image":
        fmt, img = ("r32i", "iimage2D") if signed else ("r32ui", "uimage2D")
        lines.append("layout(set = 0, binding = 0, %s) uniform %s img;" % (fmt, img))
        target = "img, ivec2(0)"
    else:
        target = "ref.t"
    lines.append("void main() {")
    lines.append("  uint i = gl_GlobalInvocationID.x;")
    if op in ("IIncrement", "IDecrement"):
        v = "%s(1)" % base
    else:
        v = {"uniform": "pv", "divergent": "vals[i]"}[value]
    if storage == "image":
        fn = "imageA" + fn[1:]  # atomicAdd -> imageAtomicAdd
    call = "%s(%s, %s)" % (fn, target, v)
    body = ("outs[i] = %s;" % call) if used else ("%s;" % call)
    if branch:
        body = "if ((vals[i] & %s(3)) == %s(0)) { %s }" % (base, base, body)
    lines.append("  " + body)
    if storage == "shared":
        lines += ["  barrier();", "  if (gl_LocalInvocationIndex == 0u) outs[0] = t;"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def edit_assembly(text, op):
    """Turns the OpAtomicIAdd of a generated shader into ISub/IIncrement/IDecrement."""
    m = re.search(r"(%\w+) = OpAtomicIAdd (%\w+) (%\w+) (%\w+) (%\w+) (%\w+)", text)
    if not m:
        raise SystemExit("radv_atomics: no OpAtomicIAdd to edit")
    res, ty, ptr, scope, sem, val = m.groups()
    if op == "ISub":
        new = "%s = OpAtomicISub %s %s %s %s %s" % (res, ty, ptr, scope, sem, val)
    else:
        new = "%s = OpAtomic%s %s %s %s %s" % (res, op, ty, ptr, scope, sem)
    return text[:m.start()] + new + text[m.end():]


def classify(isa, atomic_re):
    """(pre-reduced?, how) from a naive shader's ISA."""
    elect = re.search(r"\bs_(ff1|ctz)_i32_b(32|64) s\d+, (exec|exec_lo|s\[\d+:\d+\])", isa)
    atomics = len(re.findall(atomic_re, isa))
    how = []
    if re.search(r"\bs_bcnt1_i32_b(32|64) s\d+, (exec|exec_lo|s\[\d+:\d+\])", isa):
        how.append("bcnt")
    if re.search(r"_dpp\b|row_shr|row_bcast|v_permlane", isa):
        how.append("DPP")
    if "v_mbcnt" in isa:
        how.append("mbcnt")
    if elect and atomics >= 1:
        return True, "elect" + ("+" + "+".join(how) if how else "")
    return False, "per lane"


def atomic_regex(storage):
    return {"ssbo": r"\bbuffer_atomic_\w+|\bglobal_atomic_\w+",
            "bda": r"\bglobal_atomic_\w+|\bflat_atomic_\w+",
            "shared": r"\bds_(add|sub|rsub|inc|dec|min|max|and|or|xor)\w*",
            "image": r"\bimage_atomic_\w+"}[storage]


def shapes():
    out = []
    for op in OPS:
        for value in ("uniform", "divergent"):
            if op in ("IIncrement", "IDecrement") and value == "divergent":
                continue
            for used in (False, True):
                out.append(("ssbo", 32, op, value, used, False))
    for storage in ("shared", "image", "bda"):
        for op in ("IAdd", "UMax", "Or"):
            for value in ("uniform", "divergent"):
                out.append((storage, 32, op, value, True, False))
    for storage in ("ssbo", "shared"):
        for op in ("IAdd", "UMin"):
            for value in ("uniform", "divergent"):
                out.append((storage, 64, op, value, True, False))
    for op in ("IAdd", "UMax"):
        for value in ("uniform", "divergent"):
            out.append(("ssbo", 32, op, value, True, True))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("WAVEOPT_BIN_DIR", os.path.join(REPO, "build", "bin")))
    ap.add_argument("--amd", default="navi21,polaris10,gfx1100")
    ap.add_argument("--wave", default="64")
    args = ap.parse_args()
    waveopt = os.path.join(args.bin, "waveopt")
    waverun = os.path.join(args.bin, "waverun")
    rc_all = 0
    with tempfile.TemporaryDirectory(prefix="radv-atomics-") as tmp:
        mods, rows = [], []
        for n, s in enumerate(shapes()):
            storage, width, op, value, used, branch = s
            src = os.path.join(tmp, "s%d.comp" % n)
            with open(src, "w") as f:
                f.write(shader(*s))
            asm = os.path.join(tmp, "s%d.spvasm" % n)
            r = subprocess.run([waveopt, src, "-o", asm], stderr=subprocess.PIPE, universal_newlines=True)
            if r.returncode != 0:
                raise SystemExit("radv_atomics: %s: %s" % (s, r.stderr.strip()))
            if op in ("ISub", "IIncrement", "IDecrement"):
                with open(asm) as f:
                    text = edit_assembly(f.read(), op)
                with open(asm, "w") as f:
                    f.write(text)
            opt = os.path.join(tmp, "s%d.opt.spv" % n)
            r = subprocess.run([waveopt, "--prereduce-atomics=extended-types", asm, "-o", opt,
                                "--remarks=prereduce", "--remarks-missed=prereduce"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            if r.returncode != 0:
                raise SystemExit("radv_atomics: waveopt failed on %s: %s" % (s, r.stdout.strip()))
            remark = re.findall(r"(applied|missed) (\w+)", r.stdout)
            radv = os.path.join(tmp, "s%d.radv.spv" % n)
            r = subprocess.run([waveopt, "--prereduce-atomics=extended-types", "--assume-driver=radv",
                                asm, "-o", radv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if r.returncode != 0:
                raise SystemExit("radv_atomics: waveopt failed on %s: %s" % (s, r.stdout.strip()))
            mods += [asm, opt, radv]
            rows.append((s, asm, opt, radv, remark[0][1] if remark else "?"))
        r = subprocess.run([waverun, "isa", "--amd=" + args.amd, "--wave=" + args.wave,
                            "--format=json", "--disasm"] + mods,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            rc_all = 1
        results = {}
        for e in json.loads(r.stdout):
            results[(e["module"], e["family"], e["wave"])] = e
        for fam in args.amd.split(","):
            for wave in [int(w) for w in args.wave.split(",")]:
                print("\n%s, wave%d\n" % (fam, wave))
                print("| storage | bits | op | value | result | branch | waveopt | RADV on the naive shader | "
                      "instructions: naive / waveopt / waveopt radv | VGPRs: naive / waveopt / radv |")
                print("|---|---|---|---|---|---|---|---|---|---|")
                for s, asm, opt, radv, remark in rows:
                    a, b = results.get((asm, fam, wave)), results.get((opt, fam, wave))
                    c = results.get((radv, fam, wave))
                    storage, width, op, value, used, branch = s
                    if not a or a["error"] or not b or b["error"] or not c or c["error"]:
                        err = ((a or {}).get("error") or (b or {}).get("error") or
                               (c or {}).get("error") or "no row")
                        print("| %s | %d | %s | %s | %s | %s | %s | error: %s | | |" % (
                            storage, width, op, value, "used" if used else "unused",
                            "divergent if" if branch else "—", remark, err))
                        continue
                    pre, how = classify(a["isa"], atomic_regex(storage))
                    st = lambda e, k: e["statistics"][k]
                    print("| %s | %d | %s | %s | %s | %s | %s | %s | %d / %d / %d | %d / %d / %d |" % (
                        storage, width, op, value, "used" if used else "unused",
                        "divergent if" if branch else "—", remark,
                        ("**pre-reduced** (%s)" % how) if pre else "one atomic per lane",
                        st(a, "Instructions"), st(b, "Instructions"), st(c, "Instructions"),
                        st(a, "VGPRs"), st(b, "VGPRs"), st(c, "VGPRs")))
    return rc_all


if __name__ == "__main__":
    sys.exit(main())
