"""One refusal case of refusals.comp: the module compiled with -DCASE=N is
unchanged by --quad-exchange, and the missed remark names REASON.

  refuse.py WAVEOPT SHADER N REASON [extra waveopt flags...]
"""
import subprocess
import sys
import tempfile
import os


def main():
    waveopt, shader, case, reason = sys.argv[1:5]
    extra = sys.argv[5:]
    with tempfile.TemporaryDirectory() as tmp:
        orig = os.path.join(tmp, "orig.spv")
        out = os.path.join(tmp, "out.spv")
        subprocess.run([waveopt, shader, "-DCASE=" + case, *extra, "-o", orig], check=True)
        # From the compiled module: glslang once per case (its start-up is
        # most of a run's time).
        r = subprocess.run([waveopt, orig, *extra, "--quad-exchange",
                            "--remarks-missed=quad-exchange", "-o", out],
                           check=True, capture_output=True, text=True)
        with open(orig, "rb") as a, open(out, "rb") as b:
            if a.read() != b.read():
                print("CASE %s: the module changed" % case)
                return 1
        want = "missed %s in main" % reason
        if reason == "TargetLacksSubgroupOps":
            want = "missed %s" % reason
        if want not in r.stderr:
            print("CASE %s: expected '%s' in:\n%s" % (case, want, r.stderr))
            return 1
        print(r.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
