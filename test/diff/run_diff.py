#!/usr/bin/env python3
"""One differential test: shader -> waveopt -> waverun diff at sizes 4, 8, 16.

  run_diff.py SHADER [--waveopt-flags="--pass ..."] [--waverun="-s 'seed 3'"]
  run_diff.py SHADER --against OTHER            # two hand-written shaders
  run_diff.py SHADER --against OTHER --expect=differ

Without --against, SHADER goes through `waveopt <flags> SHADER -o <tmp>.spv`
and `waverun diff SHADER <tmp>.spv --widths=4,8,16` compares the original
with the rewrite (inputs, sizes and compare modes from SHADER's .waverun spec
file, next to it). With --against, SHADER and OTHER are compared directly.

--expect=equal (default): passes when every width compares equal.
--expect=differ: passes when waverun reports a difference (exit 3) at one
width or more, and fails when it finds none or cannot run: a negative
control that is not caught is a broken harness.

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
        cmd = ([waverun, "diff", args.shader, other, "--widths=" + args.widths] +
               shlex.split(args.waverun))
        print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
        r = subprocess.run(cmd)
    if args.expect == "equal":
        if r.returncode == 0:
            print("PASS: equal at sizes " + args.widths)
            return 0
        print("FAIL: waverun diff exited with %d (0 expected: equal)" % r.returncode)
        return 1
    if r.returncode == 3:
        print("PASS: the difference was caught")
        return 0
    print("FAIL: waverun diff exited with %d (3 expected: a difference at some size)"
          % r.returncode)
    return 1


if __name__ == "__main__":
    sys.exit(main())
