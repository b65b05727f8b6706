"""A deliberately wrong rewrite for the negative controls: the pass's own
output with the horizontal and vertical quad swap directions exchanged.

  swap_directions.py WAVEOPT_BIN_DIR SHADER OUT.spv [waveopt flags...]
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    bin_dir, shader, out = sys.argv[1:4]
    flags = sys.argv[4:]
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good.spv")
        subprocess.run([os.path.join(bin_dir, "waveopt"), shader, *flags, "-o", good],
                       check=True)
        text = subprocess.run(["spirv-dis", "--raw-id", good], check=True,
                              capture_output=True, text=True).stdout
        # Direction operands are constant ids; find the ids of uint 0 and 1
        # (unsigned: the validator requires it of a direction).
        uint = re.search(r"(%\d+) = OpTypeInt 32 0\n", text).group(1)
        consts = dict(re.findall(r"(%\d+) = OpConstant " + uint + r" (\d+)\n", text))
        zero = [k for k, v in consts.items() if v == "0"]
        one = [k for k, v in consts.items() if v == "1"]
        swaps = 0

        def flip(m):
            nonlocal swaps
            d = m.group(2)
            if d in zero:
                swaps += 1
                return m.group(1) + one[0]
            if d in one:
                swaps += 1
                return m.group(1) + zero[0]
            return m.group(0)

        text = re.sub(r"(OpGroupNonUniformQuadSwap %\d+ %\d+ %\d+ )(%\d+)", flip, text)
        if swaps == 0:
            print("no quad swap to break")
            return 1
        asm = os.path.join(tmp, "bad.spvasm")
        with open(asm, "w") as f:
            f.write(text)
        subprocess.run(["spirv-as", "--target-env", "vulkan1.1", asm, "-o", out], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
