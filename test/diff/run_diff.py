#!/usr/bin/env python3
"""One differential test: shader -> waveopt -> waverun diff at sizes 4, 8, 16
on lavapipe and at 32, 64 on the wave simulator.

  run_diff.py SHADER [--waveopt-flags="--pass ..."] [--waverun="-s 'seed 3'"]
  run_diff.py SHADER --against OTHER            # two hand-written shaders
  run_diff.py SHADER --against OTHER --expect=differ
  run_diff.py SHADER --spirv-opt-O ...          # compile, spirv-opt -O, then as above
  run_diff.py SHADER --spirv-opt-O --glslang-defines="-DX=1" ...
  run_diff.py SHADER --same-oob ...             # also: no new out-of-bounds reads
  run_diff.py SHADER --mutant=NAME --expect=differ ...  # a negative control

Without --against, SHADER goes through `waveopt <flags> SHADER -o <tmp>.spv`
and `waverun diff SHADER <tmp>.spv --widths=4,8,16` compares the original
with the rewrite (inputs, sizes and compare modes from SHADER's .waverun spec
file, next to it). With --against, SHADER and OTHER are compared directly.

When waveopt's output has versions (plain -O: --print-spec-constants lists
their SpecIds), every comparison runs once per version too, that version's
constant set true (`waverun diff --const=ID=true`).
Every comparison runs twice: on lavapipe at --widths (default 4,8,16), and on
the wave simulator at --sim-widths (default 32,64; empty: not at all), which
runs the sizes lavapipe cannot. With --expect=equal the lavapipe run also
passes --check-sim: both modules run on the simulator at the same size, and an
output that differs from lavapipe's fails the test (the simulator's trust
test, on every shader of the suite).

--expect=equal (default): passes when every width compares equal.
--expect=differ: passes when waverun reports a difference (exit 3) at one
width or more (lavapipe's or the simulator's) and no run fails; it fails when
none finds a difference or a run cannot run: a negative control that is not
caught is a broken harness. (--check-sim is off here: a wrong partner may read
inactive lanes, which the simulator poisons and lavapipe does not.)
--expect=race: passes when waverun reports a data race in the original (exit
7, RACE) at every size: a shader whose outputs depend on the order of racing
accesses, where no equal verdict can be trusted.

--spirv-opt-O: SHADER (GLSL, or HLSL when it ends in .hlsl: entry point main,
SPIR-V 1.3) is compiled by glslangValidator and optimized by `spirv-opt -O`
first; that module is the original (the form most pipelines ship), with
SHADER's .waverun spec.

Fragment shaders (SHADER ends in .frag, or its SPIR-V's first compute or
fragment entry point is a Fragment one) are drawn by waverun (their spec
has `draw fullscreen WxH`) on lavapipe at --widths 4,8,16 like compute
shaders, without --check-sim, and not on the simulator, which runs compute
shaders only: the harness prints a note saying which simulator sizes it
skipped.

--same-oob: after the comparisons, both modules run on the simulator at
each --sim-widths size with --counters, and an `out_of_bounds` count of the
rewrite above the original's counts as a difference (a rewrite that reads
ahead must never read outside a buffer: values read there are not used, so
only the counter sees them).

--mutant=NAME: a negative control. waveopt's output gets one deliberate bug
(test/diff/mutants.py NAME, which fails when it finds nothing to change)
before the comparisons; with --expect=differ the harness must catch it.

Binaries: --bin DIR, else $WAVEOPT_BIN_DIR, else <repo>/build/bin.
Exit: 0 pass, 1 fail.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile


def is_fragment(path):
    """True when |path|'s first GLCompute or Fragment entry point is a Fragment one."""
    ext = os.path.splitext(path)[1]
    if ext == ".frag":
        return True
    if ext in (".spvasm", ".spvas"):
        with open(path) as f:
            m = re.search(r"OpEntryPoint\s+(GLCompute|Fragment)\b", f.read())
        return bool(m) and m.group(1) == "Fragment"
    if ext == ".spv":
        with open(path, "rb") as f:
            data = f.read()
        words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4)]
        i = 5
        while i < len(words):
            op, count = words[i] & 0xffff, words[i] >> 16
            if count == 0:
                break
            if op == 15 and count > 1 and words[i + 1] in (4, 5):  # OpEntryPoint
                return words[i + 1] == 4
            i += count
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shader")
    parser.add_argument("--against", help="compare with this shader instead of running waveopt")
    parser.add_argument("--waveopt-flags", default="", help="flags for waveopt (one string)")
    parser.add_argument("--waverun", default="", help="extra waverun options (one string)")
    parser.add_argument("--widths", default=None,
                        help="lavapipe sizes (default 4,8,16)")
    parser.add_argument("--sim-widths", default=None,
                        help="sizes to run on the wave simulator (empty: none; default 32,64, "
                        "none for fragment shaders)")
    parser.add_argument("--no-check-sim", action="store_true",
                        help="do not check the simulator against lavapipe")
    parser.add_argument("--expect", choices=["equal", "differ", "race"], default="equal")
    parser.add_argument("--glslang-defines", default="",
                        help="--spirv-opt-O: -DNAME[=V] options for glslangValidator (one string)")
    parser.add_argument("--spirv-opt-O", dest="spirv_opt", action="store_true",
                        help="compile SHADER and optimize it with spirv-opt -O first")
    parser.add_argument("--same-oob", action="store_true",
                        help="fail (as a difference) when the rewrite reads out of bounds more")
    parser.add_argument("--mutant", default=None,
                        help="a negative control: plant this bug in waveopt's output "
                             "(test/diff/mutants.py NAME)")
    parser.add_argument("--bin", default=os.environ.get("WAVEOPT_BIN_DIR"))
    args = parser.parse_args()

    bin_dir = args.bin or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "build", "bin")
    waveopt = os.path.join(bin_dir, "waveopt")
    waverun = os.path.join(bin_dir, "waverun")

    fragment = is_fragment(args.shader)
    if args.widths is None:
        args.widths = "4,8,16"
    if args.sim_widths is None:
        args.sim_widths = "" if fragment else "32,64"
        if fragment:
            print("note: %s is a fragment shader: the wave simulator runs compute shaders only, "
                  "so its sizes 32,64 are skipped" % os.path.basename(args.shader), flush=True)
    with tempfile.TemporaryDirectory(prefix="waveopt-diff-") as tmp:
        spec_file = os.path.splitext(args.shader)[0] + ".waverun"
        spec = ["--spec=" + spec_file] if os.path.exists(spec_file) else []
        if args.spirv_opt:
            source = args.shader
            raw = os.path.join(tmp, "raw.spv")
            optimized = os.path.join(tmp, os.path.splitext(os.path.basename(source))[0] + ".spv")
            compile_cmd = ["glslangValidator", "--target-env", "vulkan1.1", "-o", raw]
            if source.endswith(".hlsl"):
                compile_cmd += ["-D", "-S", "comp", "-e", "main"]
            else:
                compile_cmd += ["-V"]
            compile_cmd += shlex.split(args.glslang_defines)
            for cmd in (compile_cmd + [source], ["spirv-opt", "-O", raw, "-o", optimized]):
                print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
                if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
                    print("FAIL: %s failed" % cmd[0])
                    return 1
            args.shader = optimized
        other = args.against
        versions = []
        if other is None:
            other = os.path.join(tmp, os.path.splitext(os.path.basename(args.shader))[0] + ".opt.spv")
            cmd = [waveopt] + shlex.split(args.waveopt_flags) + [args.shader, "-o", other,
                                                                 "--print-spec-constants"]
            print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
            r = subprocess.run(cmd, stdout=subprocess.PIPE, universal_newlines=True)
            print(r.stdout, end="", flush=True)
            if r.returncode != 0:
                print("FAIL: waveopt exited with %d" % r.returncode)
                return 1
            if args.mutant:
                cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "mutants.py"), args.mutant, other]
                print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
                if subprocess.run(cmd).returncode != 0:
                    print("FAIL: the mutant %s was not planted" % args.mutant)
                    return 1
            # -O's versions: each is compared too, selected by its constant.
            versions = [int(m.group(1)) for m in re.finditer(r"^SpecId (\d+) bool", r.stdout, re.M)]
        runs = []
        extra = shlex.split(args.waverun)
        if args.widths:
            check = (["--check-sim"]
                     if args.expect == "equal" and not args.no_check_sim and not fragment else [])
            runs.append(["--widths=" + args.widths] + check)
        if args.sim_widths:
            runs.append(["--sim", "--widths=" + args.sim_widths])
        codes = []
        for flags in runs:
            for const in [None] + versions:
                select = ["--const=%d=true" % const] if const is not None else []
                cmd = [waverun, "diff", args.shader, other] + flags + select + spec + extra
                print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
                codes.append(subprocess.run(cmd).returncode)
        if args.same_oob and args.sim_widths:
            for width in args.sim_widths.split(","):
                counts = []
                for module in (args.shader, other):
                    cmd = [waverun, "run", module, "--sim", "--subgroup-size=" + width,
                           "--counters"] + spec + extra
                    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
                    found = [l.split()[-1] for l in r.stdout.splitlines()
                             if l.strip().startswith("out_of_bounds")]
                    counts.append(int(found[0]) if r.returncode == 0 and found else None)
                if None in counts:
                    print("[sg=%s] out-of-bounds count: a run failed" % width)
                    codes.append(1)
                elif counts[1] > counts[0]:
                    print("[sg=%s] OUT OF BOUNDS: the rewrite reads outside its buffers %d "
                          "times, the original %d" % (width, counts[1], counts[0]))
                    codes.append(3)
                else:
                    print("[sg=%s] out-of-bounds reads: %d, the original %d"
                          % (width, counts[1], counts[0]))
    sizes = ",".join(w for w in [args.widths, args.sim_widths] if w)
    if args.expect == "equal":
        if all(c == 0 for c in codes):
            print("PASS: equal at sizes " + sizes)
            return 0
        print("FAIL: waverun diff exited with %s (0 expected: equal)"
              % ", ".join(str(c) for c in codes))
        return 1
    if args.expect == "race":
        if codes and all(c == 7 for c in codes):
            print("PASS: the original races at sizes " + sizes)
            return 0
        print("FAIL: waverun diff exited with %s (7 expected: RACE)"
              % ", ".join(str(c) for c in codes))
        return 1
    if 3 in codes and all(c in (0, 3) for c in codes):
        print("PASS: the difference was caught")
        return 0
    print("FAIL: waverun diff exited with %s (3 expected: a difference at some size)"
          % ", ".join(str(c) for c in codes))
    return 1


if __name__ == "__main__":
    sys.exit(main())
