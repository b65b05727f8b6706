#!/usr/bin/env python3
"""Checks that morton-remap's rewrite really puts lanes 4k..4k+3 of every
subgroup on one 2x2 pixel block, by running it.

  quad_probe.py --waverun PATH SHADER [--waveopt-flags="..."]
                [--waverun-args="..."] [--sizes=4,8,16,32,64] [--size=WxH]

SHADER goes through `waveopt <flags> SHADER -o rewritten.spvasm` (the pass
refuses kernels that read subgroup ids, so the probe is added afterwards).
The probe: right after the entry point's first OpImageWrite, the rewritten
module also writes (SubgroupId << 8 | SubgroupLocalInvocationId) + 1 to a
new r32ui storage image (set 0, binding 15) at the same coordinate. One
workgroup runs on the wave simulator at each subgroup size
(`waverun run --sim --subgroup-size=N --dump`); every texel written names
the lane that wrote it, and for every subgroup and every k the texels of
lanes 4k..4k+3 must be the four texels of one 2x2 block.

waveopt is found next to waverun. Exit: 0 pass, 1 fail.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

PROBE_BINDING = 15


def find_or_add(lines, pattern, declaration, new_decls):
    """The id of the first global matching |pattern| (a regex on the text
    after '='), else a new declaration |declaration| (with {id}) added to
    |new_decls|."""
    rx = re.compile(r"^\s*(%\S+) = " + pattern + r"\s*$")
    for line in lines + new_decls:
        m = rx.match(line)
        if m:
            return m.group(1)
    ident = "%probe_t{}".format(len(new_decls))
    new_decls.append("{} = {}".format(ident, declaration.format(id=ident)))
    return ident


def instrument(text):
    lines = text.split("\n")
    entry = None
    for i, line in enumerate(lines):
        if "OpEntryPoint GLCompute" in line:
            entry = re.match(r'\s*OpEntryPoint GLCompute (%\S+) ', line).group(1)
            lines[i] = line + " %probe_lane %probe_sg"
            break
    if entry is None:
        raise SystemExit("quad_probe: no GLCompute entry point")
    if not any("OpCapability GroupNonUniform" == l.strip() for l in lines):
        first = next(i for i, l in enumerate(lines) if "OpCapability" in l)
        lines.insert(first + 1, "OpCapability GroupNonUniform")
    first_decorate = next(i for i, l in enumerate(lines)
                          if re.match(r"\s*OpDecorate ", l))
    lines[first_decorate:first_decorate] = [
        "OpDecorate %probe_lane BuiltIn SubgroupLocalInvocationId",
        "OpDecorate %probe_sg BuiltIn SubgroupId",
        "OpDecorate %probe_img DescriptorSet 0",
        "OpDecorate %probe_img Binding {}".format(PROBE_BINDING),
        "OpDecorate %probe_img NonReadable",
    ]
    new = []
    uint = find_or_add(lines, r"OpTypeInt 32 0", "OpTypeInt 32 0", new)
    v4 = find_or_add(lines, r"OpTypeVector {} 4".format(re.escape(uint)),
                     "OpTypeVector %s 4" % uint, new)
    ptr_in = find_or_add(lines, r"OpTypePointer Input {}".format(re.escape(uint)),
                         "OpTypePointer Input %s" % uint, new)
    img_t = find_or_add(lines, r"OpTypeImage {} 2D 0 0 0 2 R32ui".format(re.escape(uint)),
                        "OpTypeImage %s 2D 0 0 0 2 R32ui" % uint, new)
    ptr_img = find_or_add(lines, r"OpTypePointer UniformConstant {}".format(re.escape(img_t)),
                          "OpTypePointer UniformConstant %s" % img_t, new)
    new += [
        "%probe_lane = OpVariable {} Input".format(ptr_in),
        "%probe_sg = OpVariable {} Input".format(ptr_in),
        "%probe_img = OpVariable {} UniformConstant".format(ptr_img),
        "%probe_c1 = OpConstant {} 1".format(uint),
        "%probe_c8 = OpConstant {} 8".format(uint),
    ]
    first_function = next(i for i, l in enumerate(lines) if " = OpFunction " in l)
    lines[first_function:first_function] = new
    # The entry point's first image write.
    start = next(i for i, l in enumerate(lines)
                 if re.match(r"\s*{} = OpFunction ".format(re.escape(entry)), l))
    for i in range(start, len(lines)):
        if lines[i].strip() == "OpFunctionEnd":
            raise SystemExit("quad_probe: the entry point writes no image")
        m = re.match(r"\s*OpImageWrite (%\S+) (%\S+) (%\S+)", lines[i])
        if m:
            coord = m.group(2)
            lines[i + 1:i + 1] = [
                "%probe_l = OpLoad {} %probe_lane".format(uint),
                "%probe_s = OpLoad {} %probe_sg".format(uint),
                "%probe_a = OpShiftLeftLogical {} %probe_s %probe_c8".format(uint),
                "%probe_b = OpBitwiseOr {} %probe_a %probe_l".format(uint),
                "%probe_v = OpIAdd {} %probe_b %probe_c1".format(uint),
                "%probe_t = OpCompositeConstruct {} %probe_v %probe_v %probe_v %probe_v".format(v4),
                "%probe_i = OpLoad {} %probe_img".format(img_t),
                "OpImageWrite %probe_i {} %probe_t".format(coord),
            ]
            break
    return "\n".join(lines)


def check(words, width, sg_size):
    """Lanes 4k..4k+3 of every subgroup on one 2x2 block; returns a list of
    problems (empty: pass) and the number of quads checked."""
    where = {}
    for i, w in enumerate(words):
        if w == 0:
            continue
        v = w - 1
        lane, sg = v & 0xFF, v >> 8
        key = (sg, lane)
        if key in where:
            return ["subgroup %d lane %d wrote two texels" % key], 0
        where[key] = (i % width, i // width)
    quads = {}
    for (sg, lane), pos in where.items():
        if lane >= sg_size:
            return ["lane %d in a subgroup of %d" % (lane, sg_size)], 0
        quads.setdefault((sg, lane // 4), []).append(pos)
    problems = []
    for (sg, k), ps in sorted(quads.items()):
        xs = sorted(set(p[0] for p in ps))
        ys = sorted(set(p[1] for p in ps))
        ok = (len(ps) == 4 and len(xs) == 2 and len(ys) == 2 and
              xs[1] == xs[0] + 1 and ys[1] == ys[0] + 1)
        if not ok:
            problems.append("subgroup %d lanes %d..%d: %s" % (sg, 4 * k, 4 * k + 3, sorted(ps)))
    return problems, len(quads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shader")
    parser.add_argument("--waverun", required=True)
    parser.add_argument("--waveopt-flags", default="--morton-remap")
    parser.add_argument("--waverun-args", default="")
    parser.add_argument("--sizes", default="4,8,16,32,64")
    parser.add_argument("--size", default="64x64", help="probe image WxH")
    args = parser.parse_args()

    waveopt = os.path.join(os.path.dirname(os.path.abspath(args.waverun)), "waveopt")
    width = int(args.size.split("x")[0])
    failed = False
    with tempfile.TemporaryDirectory(prefix="quad-probe-") as tmp:
        rewritten = os.path.join(tmp, "rewritten.spvasm")
        cmd = [waveopt] + shlex.split(args.waveopt_flags) + [args.shader, "-o", rewritten]
        print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
        if subprocess.run(cmd).returncode != 0:
            print("FAIL: waveopt failed")
            return 1
        probe = os.path.join(tmp, "probe.spvasm")
        with open(rewritten) as f:
            text = instrument(f.read())
        with open(probe, "w") as f:
            f.write(text)
        spec = os.path.splitext(args.shader)[0] + ".waverun"
        for n in args.sizes.split(","):
            cmd = [args.waverun, "run", probe, "--sim", "--subgroup-size=" + n,
                   "--dispatch=1,1,1", "--dump=0.%d" % PROBE_BINDING, "--dump-format=u32",
                   "-s", "binding 0.%d size=%s format=r32ui fill=zero" % (PROBE_BINDING, args.size)]
            if os.path.exists(spec):
                cmd.append("--spec=" + spec)
            cmd += shlex.split(args.waverun_args)
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if r.returncode != 0:
                print(r.stdout)
                print("FAIL: [sg=%s] waverun exited with %d" % (n, r.returncode))
                failed = True
                continue
            words = []
            for line in r.stdout.splitlines():
                m = re.match(r"\s*\[\d+\]((?: \d+)+)\s*$", line)
                if m:
                    words += [int(w) for w in m.group(1).split()]
            problems, quads = check(words, width, int(n))
            if quads == 0 and not problems:
                problems = ["no texel was written"]
            if problems:
                failed = True
                print("[sg=%s] NOT 2x2: %d problem(s), e.g. %s" % (n, len(problems), problems[0]))
            else:
                print("[sg=%s] %d quads, each on one 2x2 block" % (n, quads))
    print("FAIL" if failed else "PASS: lanes 4k..4k+3 sit on 2x2 blocks at sizes " + args.sizes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
