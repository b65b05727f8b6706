#!/usr/bin/env python3
"""One differential test: shader -> waveopt -> waverun diff at sizes 4, 8, 16
on lavapipe and at 32, 64 on the wave simulator.

  run_diff.py SHADER [--waveopt-flags="--pass ..."] [--waverun="-s 'seed 3'"]
  run_diff.py SHADER --against OTHER            # two hand-written shaders
  run_diff.py SHADER --against OTHER --expect=differ

Without --against, SHADER goes through `waveopt <flags> SHADER -o <tmp>.spv`
and `waverun diff SHADER <tmp>.spv --widths=4,8,16` compares the original
with the rewrite (inputs, sizes and compare modes from SHADER's .waverun spec
file, next to it). With --against, SHADER and OTHER are compared directly.

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

Binaries: --bin DIR, else $WAVEOPT_BIN_DIR, else <repo>/build/bin.
Exit: 0 pass, 1 fail.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shader")
    parser.add_argument("--against", help="compare with this shader instead of running waveopt")
    parser.add_argument("--waveopt-flags", default="", help="flags for waveopt (one string)")
    parser.add_argument("--waverun", default="", help="extra waverun options (one string)")
    parser.add_argument("--widths", default="4,8,16")
    parser.add_argument("--sim-widths", default="32,64",
                        help="sizes to run on the wave simulator (empty: none)")
    parser.add_argument("--no-check-sim", action="store_true",
                        help="do not check the simulator against lavapipe")
    parser.add_argument("--expect", choices=["equal", "differ"], default="equal")
    parser.add_argument("--bin", default=os.environ.get("WAVEOPT_BIN_DIR"))
    args = parser.parse_args()

    bin_dir = args.bin or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
        "build", "bin")
    waveopt = os.path.join(bin_dir, "waveopt")
    waverun = os.path.join(bin_dir, "waverun")

    with tempfile.TemporaryDirectory(prefix="waveopt-diff-") as tmp:
        other = args.against
        if other is None:
            other = os.path.join(tmp, os.path.splitext(os.path.basename(args.shader))[0] + ".opt.spv")
            cmd = [waveopt] + shlex.split(args.waveopt_flags) + [args.shader, "-o", other]
            print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
            r = subprocess.run(cmd)
            if r.returncode != 0:
                print("FAIL: waveopt exited with %d" % r.returncode)
                return 1
        runs = []
        extra = shlex.split(args.waverun)
        if args.widths:
            check = ["--check-sim"] if args.expect == "equal" and not args.no_check_sim else []
            runs.append(["--widths=" + args.widths] + check)
        if args.sim_widths:
            runs.append(["--sim", "--widths=" + args.sim_widths])
        codes = []
        for flags in runs:
            cmd = [waverun, "diff", args.shader, other] + flags + extra
            print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
            codes.append(subprocess.run(cmd).returncode)
    sizes = ",".join(w for w in [args.widths, args.sim_widths] if w)
    if args.expect == "equal":
        if all(c == 0 for c in codes):
            print("PASS: equal at sizes " + sizes)
            return 0
        print("FAIL: waverun diff exited with %s (0 expected: equal)"
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
