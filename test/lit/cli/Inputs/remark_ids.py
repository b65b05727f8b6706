"""Checks that every id a remark names ("%45") is defined in the input.

usage: remark_ids.py REMARKS INPUT.spvasm
REMARKS: waveopt's remark lines or its YAML; INPUT: `spirv-dis --raw-id` of
the module the user gave waveopt. Prints how many ids were checked; exits 1
naming the first remark with an id the input does not define.
"""
import re
import sys


def main():
    remarks_path, dis_path = sys.argv[1:3]
    with open(dis_path) as f:
        defined = set(re.findall(r"^\s*%(\d+) = ", f.read(), re.M))
    checked = 0
    with open(remarks_path) as f:
        for line in f:
            for ident in re.findall(r"%(\d+)\b", line):
                if ident not in defined:
                    print("error: %" + ident + " is not an id of the input: " + line.strip())
                    return 1
                checked += 1
    print(f"{checked} ids named, all defined in the input")
    return 0


if __name__ == "__main__":
    sys.exit(main())
