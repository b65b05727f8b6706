#!/usr/bin/env python3
"""Regenerates the Slang- and DXC-shaped SPIR-V assembly of this directory
from the project's own kernels (src/ and the GLSL kernels of the
differential suite). Not run by the tests: the .spvasm files are committed,
and this says how they were made (run it by hand after changing a kernel).

  make_shapes.py --glslang glslangValidator --spirv-dis spirv-dis --out DIR

Neither compiler runs here, so the shapes are the traits their output has,
put on glslang's output:
  slang_*: SPIR-V 1.5 with every global in the entry point's interface,
      `OpSource Slang 1`, NonSemantic.Shader.DebugInfo.100 debug information
      (DebugSource/CompilationUnit/Function/Line/Scope/Declare in the
      function bodies; compilation unit language 11, Slang), the entry
      function named computeMain, blocks named StructuredBuffer /
      RWStructuredBuffer, and ArrayStride on the pointer types of runtime
      array elements (Slang decorates them for OpPtrAccessChain).
  dxc_*: SPIR-V 1.3 from HLSL, `OpSource HLSL 610`, Uniform/BufferBlock
      storage buffers, blocks named type.StructuredBuffer.<T> /
      type.RWStructuredBuffer.<T>, the same NonSemantic debug information
      (DXC's -fspv-debug=vulkan-with-source; language 5, HLSL).
"""
import argparse
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
DIFF = os.path.dirname(HERE)

KERNELS = [
    # (output stem, source, stage entry)
    ("slang_light_loop", os.path.join(DIFF, "batch-uniform-loads", "light_loop.comp")),
    ("slang_compaction", os.path.join(DIFF, "prereduce-atomics", "compaction.comp")),
    ("slang_blur", os.path.join(DIFF, "morton-remap", "blur.comp")),
    ("slang_downsample", os.path.join(DIFF, "quad-exchange", "downsample.comp")),
    ("dxc_light_loop", os.path.join(HERE, "src", "light_loop.hlsl")),
    ("dxc_compaction", os.path.join(HERE, "src", "compaction.hlsl")),
    ("dxc_blur", os.path.join(HERE, "src", "blur.hlsl")),
    ("dxc_downsample", os.path.join(HERE, "src", "downsample.hlsl")),
]


def compile_module(glslang, src, out):
    cmd = [glslang, "-V", "-gVS", "-o", out]
    if src.endswith(".hlsl"):
        cmd += ["-D", "-e", "main", "-S", "comp", "--target-env", "vulkan1.1"]
    else:
        cmd += ["--target-env", "vulkan1.2"]
    subprocess.run(cmd + [src], check=True, capture_output=True)


def add_constant(text, name, value):
    """Declares %name = OpConstant %uint value after %uint, unless present."""
    if re.search(r"^\s*%s = OpConstant " % re.escape(name), text, re.M):
        return text
    return re.sub(r"(^\s*%uint = OpTypeInt 32 0\n)",
                  r"\1%s = OpConstant %%uint %d\n" % (name, value), text, count=1, flags=re.M)


def block_names(text, dxc):
    """Names each Block/BufferBlock struct as the compiler would."""
    writable = {}
    for var, ptr in re.findall(r"^\s*(%\S+) = OpVariable (%\S+) (?:StorageBuffer|Uniform)\b",
                               text, re.M):
        m = re.search(r"^\s*%s = OpTypePointer \S+ (%%\S+)" % re.escape(ptr), text, re.M)
        if m:
            nonwritable = re.search(r"OpDecorate %s NonWritable" % re.escape(var), text) or \
                re.search(r"OpMemberDecorate %s 0 NonWritable" % re.escape(m.group(1)), text)
            writable[m.group(1)] = not nonwritable
    for struct, rw in writable.items():
        kind = "RWStructuredBuffer" if rw else "StructuredBuffer"
        name = ("type.%s.%s" % (kind, struct.lstrip("%"))) if dxc else kind
        text = re.sub(r'(OpName %s ")[^"]*"' % re.escape(struct), r'\g<1>%s"' % name, text)
    return text


def array_strides(text):
    """ArrayStride on the pointer type of each runtime array's element."""
    extra, seen = [], set()
    for arr, elem in re.findall(r"^\s*(%\S+) = OpTypeRuntimeArray (%\S+)", text, re.M):
        stride = re.search(r"OpDecorate %s ArrayStride (\d+)" % re.escape(arr), text)
        for ptr in re.findall(r"^\s*(%%\S+) = OpTypePointer StorageBuffer %s$" % re.escape(elem),
                              text, re.M):
            if stride and ptr not in seen:
                seen.add(ptr)
                extra.append("               OpDecorate %s ArrayStride %s\n" % (ptr, stride.group(1)))
    if not extra:
        return text
    i = text.index("               OpDecorate")
    return text[:i] + "".join(extra) + text[i:]


def shape(text, dxc):
    text = re.sub(r"^\s*OpSourceExtension .*\n", "", text, flags=re.M)
    if dxc:
        text = re.sub(r"OpSource HLSL \d+", "OpSource HLSL 610", text)
    else:
        text = re.sub(r"OpSource GLSL \d+", "OpSource Slang 1", text)
        text = re.sub(r'(OpName %main ")main"', r'\1computeMain"', text)
        text = add_constant(text, "%lang_slang", 11)
        text = re.sub(r"(DebugCompilationUnit \S+ \S+ \S+ )\S+", r"\1%lang_slang", text)
        text = array_strides(text)
    return block_names(text, dxc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--glslang", default="glslangValidator")
    ap.add_argument("--spirv-dis", default="spirv-dis")
    ap.add_argument("--out", default=HERE)
    args = ap.parse_args()
    for stem, src in KERNELS:
        spv = os.path.join(args.out, stem + ".tmp.spv")
        compile_module(args.glslang, src, spv)
        text = subprocess.run([args.spirv_dis, spv], check=True, capture_output=True,
                              text=True).stdout
        os.remove(spv)
        header = "; %s: %s, shaped as %s's output by make_shapes.py\n" % (
            stem, os.path.relpath(src, DIFF), "DXC" if stem.startswith("dxc") else "Slang")
        with open(os.path.join(args.out, "Inputs", stem + ".spvasm"), "w") as f:
            f.write(header + shape(text, stem.startswith("dxc")))


if __name__ == "__main__":
    main()
