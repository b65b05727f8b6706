#!/usr/bin/env python3
"""Checks that debug information does not change what -O does.

  same_remarks.py --waveopt W --glslang G --tmp DIR shader.comp...

Each shader is compiled by glslang for Vulkan 1.1 twice, without and with
NonSemantic.Shader.DebugInfo.100 (-gVS), and run through `waveopt -O`. The
applied and missed remarks (pass, kind, name, function; not the location or
the message) must be the same list, and at least one rewrite must be applied
across all shaders.
"""
import argparse
import os
import re
import subprocess
import sys

REMARK = re.compile(r"remark: ([a-z-]+): (applied|missed) (\w+) in (\S+?)(?: (?:at|near) [^:]+)?:")


def remarks(a, shader, debug):
    stem = os.path.join(a.tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", shader) + (".g" if debug else ""))
    c = subprocess.run([a.glslang, "-V", "--target-env", "vulkan1.1"] + (["-gVS"] if debug else []) +
                       [shader, "-o", stem + ".spv"], stdout=subprocess.PIPE, universal_newlines=True)
    if c.returncode != 0:
        return None, "glslang: " + c.stdout
    r = subprocess.run([a.waveopt, "-O", "--target=none", stem + ".spv", "-o", stem + ".out.spv",
                        "--remarks=.*", "--remarks-missed=.*"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        return None, r.stderr
    return [m.groups() for m in REMARK.finditer(r.stderr)], r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--waveopt", required=True)
    ap.add_argument("--glslang", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("shaders", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    failures, applied = 0, 0
    for shader in a.shaders:
        plain, plain_err = remarks(a, shader, False)
        debug, debug_err = remarks(a, shader, True)
        if plain is None or debug is None:
            print("FAIL: %s: -O failed:\n%s%s" % (shader, plain_err, debug_err))
            failures += 1
            continue
        applied += sum(1 for r in plain if r[1] == "applied")
        if plain != debug:
            failures += 1
            print("FAIL: %s: -O does something else with debug info (-gVS)" % shader)
            for r in plain:
                if r not in debug:
                    print("  without debug info only: %s %s %s in %s" % r)
            for r in debug:
                if r not in plain:
                    print("  with debug info only:    %s %s %s in %s" % r)
        else:
            print("ok: %s: %d remarks" % (shader, len(plain)))
    if applied == 0:
        print("FAIL: no shader was rewritten at all")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
