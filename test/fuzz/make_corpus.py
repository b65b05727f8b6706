#!/usr/bin/env python3
"""Builds the fuzzers' seed corpora from the repository's test shaders.

  make_corpus.py --src <repo> --out <dir> --spirv-as <spirv-as> --glslang <glslangValidator>

<dir>/spirv: one SPIR-V binary per .spvasm (assembled for the version its
             "; Version: 1.N" comment names, else 1.3) and per compute GLSL
             file (compiled for Vulkan 1.1) under test/lit, test/diff and
             examples; inputs that do not assemble or compile are skipped
             (negative tests that are meant to fail). Each also as
             NAME.alone.spv, with the option byte that runs every pass alone.
<dir>/glsl:  the GLSL texts themselves (.comp as they are; .glsl/.frag with a
             "//stage:<stage>" line the GLSL fuzzer reads).

Nothing here is committed: the corpora are rebuilt from the test shaders, so
they follow the tests. File names are derived from the source paths, so the
output is the same on every run.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

SEARCH = ["test/lit", "test/diff", "examples"]
STAGES = {".comp": "comp", ".frag": "frag", ".vert": "vert", ".geom": "geom",
          ".tesc": "tesc", ".tese": "tese", ".task": "task", ".mesh": "mesh"}
VERSION_RE = re.compile(r"(^|\n); Version: 1\.([0-6])\b")
STAGE_RE = re.compile(r"-S\s+(comp|frag|vert|geom|tesc|tese|task|mesh)\b")


def shaders(src):
    for top in SEARCH:
        root = os.path.join(src, top)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                ext = os.path.splitext(name)[1]
                if ext == ".spvasm" or ext == ".glsl" or ext in STAGES:
                    yield os.path.relpath(path, src), ext


def flat(rel):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", rel)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--spirv-as", required=True)
    ap.add_argument("--glslang", required=True)
    args = ap.parse_args()
    args.src = os.path.abspath(args.src)
    args.out = os.path.abspath(args.out)

    spirv_dir = os.path.join(args.out, "spirv")
    glsl_dir = os.path.join(args.out, "glsl")
    for d in (spirv_dir, glsl_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    counts = {"spirv": 0, "glsl": 0, "skipped": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for rel, ext in shaders(args.src):
            path = os.path.join(args.src, rel)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            out = os.path.join(spirv_dir, flat(rel) + ".spv")
            if ext == ".spvasm":
                m = VERSION_RE.search(text[:512])
                env = "spv1.%s" % (m.group(2) if m else "3")
                cmd = [args.spirv_as, "--target-env", env, path, "-o", out]
            else:
                stage = STAGES.get(ext)
                if stage is None:  # .glsl: the stage is in the RUN line's -S
                    m = STAGE_RE.search(text)
                    stage = m.group(1) if m else "comp"
                with open(os.path.join(glsl_dir, flat(rel)), "w") as f:
                    f.write(text if stage == "comp" else "//stage:%s\n%s" % (stage, text))
                counts["glsl"] += 1
                cmd = [args.glslang, "-V", "--target-env", "vulkan1.1", "-S", stage,
                       "-o", out, path]
            r = subprocess.run(cmd, cwd=tmp, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0 and os.path.exists(out):
                counts["spirv"] += 1
                # The same module with one trailing option byte, bit 6: every
                # pass alone as well as -O (spirv_optimize_fuzzer.cpp), so the
                # sanitized replay runs each pass over every test shader.
                with open(out, "rb") as f:
                    data = f.read()
                with open(out[:-len(".spv")] + ".alone.spv", "wb") as f:
                    f.write(data + b"\x40")
            else:
                counts["skipped"] += 1
                if os.path.exists(out):
                    os.remove(out)
    print("fuzz corpus: %(spirv)d SPIR-V seeds, %(glsl)d GLSL seeds, "
          "%(skipped)d inputs that do not build (negative tests)" % counts)
    if counts["spirv"] == 0 or counts["glsl"] == 0:
        print("fuzz corpus: no seeds found under %s" % args.src, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
