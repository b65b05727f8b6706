#!/usr/bin/env python3
"""Generates hostile and unusual SPIR-V modules (as assembly) for the
robustness tests, so that no big file is committed.

  gen.py <kind> [N] > out.spvasm

Every compute module has a storage buffer `%buf` { uint count; uint data[]; }
and does relaxed atomics on `count` (the prereduce-atomics pass fires on them),
so the passes have work to do in every odd place:

  deep-nest N      N nested constructs (selections, and loops every third
                   level), an atomic in the innermost one
  functions N [K]  N functions, each called once from main; every K-th one
                   (default 10; 0: none) does an atomic
  unreachable      unreachable blocks holding atomics, a selection whose merge
                   is unreachable, a loop whose continue target is unreachable
  phis N           a loop carrying N values in OpPhis into an atomic's value,
                   and an atomic whose result flows through an OpPhi
  switch N         an OpSwitch on a divergent value with N cases, an atomic in
                   each
  straight N       one block of about N instructions (atomics among
                   arithmetic): the 100k-instruction module for resource use
  kernel           an OpenCL kernel (Kernel capability, Physical64 addressing)
                   with atomics on CrossWorkgroup memory
  unknown-ext      an extension no tool knows and a NonSemantic instruction
                   set no tool knows, next to the atomics
  spv16            SPIR-V 1.6: LocalSizeId, integer dot product (core in 1.6),
                   OpCopyLogical, an atomic
  coopmat          SPV_NV_cooperative_matrix types, loads, stores and
                   arithmetic, next to an atomic
  renumber-max FILE NEW   (FILE from `spirv-dis --raw-id`) renames the largest
                   id to NEW: assembled with --preserve-numeric-ids the id
                   bound becomes NEW + 1
"""
import re
import sys

HEADER = """; SPIR-V
; Version: 1.{minor}
               OpCapability Shader
{caps}               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid{interface}
{modes}               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpDecorate %Buf Block
               OpMemberDecorate %Buf 0 Offset 0
               OpMemberDecorate %Buf 1 Offset 4
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
{decorations}       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %uint %rta
    %ptr_buf = OpTypePointer StorageBuffer %Buf
   %ptr_uint = OpTypePointer StorageBuffer %uint
     %ptr_in = OpTypePointer Input %v3uint
 %ptr_in_uint = OpTypePointer Input %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
    %uint_64 = OpConstant %uint 64
{types}        %buf = OpVariable %ptr_buf StorageBuffer
        %gid = OpVariable %ptr_in Input
"""

MAIN_START = """       %main = OpFunction %void None %fn
      %entry = OpLabel
{locals}      %gid_x_ptr = OpAccessChain %ptr_in_uint %gid %uint_0
      %x = OpLoad %uint %gid_x_ptr
      %count = OpAccessChain %ptr_uint %buf %uint_0
"""


def main_start(locals_=""):
    return MAIN_START.replace("{locals}", locals_)


def header(minor=3, caps="", modes=None, decorations="", types="", interface=None):
    if modes is None:
        modes = "               OpExecutionMode %main LocalSize 64 1 1\n"
    if interface is None:
        interface = " %buf" if minor >= 4 else ""
    return HEADER.format(minor=minor, caps=caps, modes=modes, decorations=decorations,
                         types=types, interface=interface)


class Ids:
    def __init__(self):
        self.n = 0

    def __call__(self, stem):
        self.n += 1
        return "%%%s_%d" % (stem, self.n)


def atomic(ids, value="%uint_1", ptr="%count"):
    r = ids("old")
    return r, "%s = OpAtomicIAdd %%uint %s %%uint_1 %%uint_0 %s\n" % (r, ptr, value)


def deep_nest(n):
    ids = Ids()
    out = [header(), main_start()]
    closers = []  # code emitted after the inner part, innermost first
    cur = "%entry"
    for level in range(n):
        if level % 3 == 2:  # a loop with a uniform trip count of 2
            head, body, cont, merge = ids("lh"), ids("lb"), ids("lc"), ids("lm")
            iv, ivn, cond = ids("iv"), ids("ivn"), ids("c")
            out.append("OpBranch %s\n%s = OpLabel\n" % (head, head))
            out.append("%s = OpPhi %%uint %%uint_0 %s %s %s\n" % (iv, cur, ivn, cont))
            out.append("%s = OpULessThan %%bool %s %%uint_2\n" % (cond, iv))
            out.append("OpLoopMerge %s %s None\n" % (merge, cont))
            out.append("OpBranchConditional %s %s %s\n%s = OpLabel\n" % (cond, body, merge, body))
            closers.append("OpBranch %s\n%s = OpLabel\n%s = OpIAdd %%uint %s %%uint_1\n"
                           "OpBranch %s\n%s = OpLabel\n" % (cont, cont, ivn, iv, head, merge))
            cur = body
        else:  # a selection on a divergent condition
            then, merge, cond, k = ids("t"), ids("m"), ids("c"), ids("k")
            out.append("%s = OpConstant %%uint %d\n" % (k, level))
            out.append("%s = OpUGreaterThanEqual %%bool %%x %s\n" % (cond, k))
            out.append("OpSelectionMerge %s None\n" % merge)
            out.append("OpBranchConditional %s %s %s\n%s = OpLabel\n" % (cond, then, merge, then))
            closers.append("OpBranch %s\n%s = OpLabel\n" % (merge, merge))
            cur = then
        # the block that continues after this construct's inner part
        cur = cur
    _, code = atomic(ids)
    out.append(code)
    # after each construct closes, the code continues in its merge block; the
    # loop's header phi needs the block that branches back, which is `cont`
    out.extend(reversed(closers))
    out.append("OpReturn\nOpFunctionEnd\n")
    return fix_constants("".join(out))


def fix_constants(text):
    """Moves `%k = OpConstant` lines emitted inside functions to the type
    section (assembly order requires it)."""
    lines = text.split("\n")
    consts, rest = [], []
    in_function = False
    for line in lines:
        if "= OpFunction " in line:
            in_function = True
        if in_function and re.search(r"= OpConstant(Composite|True|False|Null)? ", line):
            consts.append(line)
        else:
            rest.append(line)
    at = next(i for i, l in enumerate(rest) if "%buf = OpVariable" in l)
    return "\n".join(rest[:at] + consts + rest[at:])


def functions(n, every=10):
    ids = Ids()
    out = [header()]
    body = []
    for i in range(n):
        name = "%%f%d" % i
        body.append("%s = OpFunction %%void None %%fn\n%s = OpLabel\n" % (name, ids("l")))
        if every and i % every == 0:
            p = ids("p")
            body.append("%s = OpAccessChain %%ptr_uint %%buf %%uint_0\n" % p)
            body.append(atomic(ids, ptr=p)[1])
        body.append("OpReturn\nOpFunctionEnd\n")
    out.append(main_start())
    for i in range(n):
        out.append("%s = OpFunctionCall %%void %%f%d\n" % (ids("call"), i))
    out.append("OpReturn\nOpFunctionEnd\n")
    out.extend(body)
    return "".join(out)


def unreachable():
    ids = Ids()
    out = [header(), main_start()]
    a = lambda: atomic(ids)[1]
    out.append(a())
    out.append("%c = OpULessThan %bool %x %uint_64\n")
    # a loop whose continue target is unreachable (the body always breaks)
    out.append("OpBranch %lh\n%lh = OpLabel\nOpLoopMerge %lm %lc None\nOpBranch %lb\n")
    out.append("%lb = OpLabel\n" + a() + "OpBranch %lm\n")
    out.append("%lc = OpLabel\nOpBranch %lh\n")
    out.append("%lm = OpLabel\n" + a())
    # a selection whose merge block is unreachable: both arms return
    out.append("OpSelectionMerge %sm None\nOpBranchConditional %c %sa %sb\n")
    out.append("%sa = OpLabel\n" + a() + "OpReturn\n")
    out.append("%sb = OpLabel\n" + a() + "OpReturn\n")
    out.append("%sm = OpLabel\nOpUnreachable\n")
    # blocks nothing branches to, with atomics and a loop of their own
    out.append("%dead1 = OpLabel\n" + a() + "OpBranch %dead2\n")
    out.append("%dead2 = OpLabel\n" + a() + "OpReturn\n")
    out.append("%dead3 = OpLabel\nOpBranch %dh\n%dh = OpLabel\nOpLoopMerge %dm %dh None\n"
               "OpBranchConditional %c %dh %dm\n%dm = OpLabel\n" + a() + "OpReturn\n")
    out.append("OpFunctionEnd\n")
    return "".join(out)


def phis(n):
    ids = Ids()
    out = [header(), main_start()]
    out.append("OpBranch %lh\n%lh = OpLabel\n")
    carried = ["%%v%d" % i for i in range(n)]
    nexts = ["%%vn%d" % i for i in range(n)]
    out.append("%iv = OpPhi %uint %uint_0 %entry %ivn %lc\n")
    for i in range(n):
        init = "%uint_1" if i % 2 else "%x"
        out.append("%s = OpPhi %%uint %s %%entry %s %%lc\n" % (carried[i], init, nexts[i]))
    out.append("%cond = OpULessThan %bool %iv %uint_64\n")
    out.append("OpLoopMerge %lm %lc None\nOpBranchConditional %cond %lb %lm\n%lb = OpLabel\n")
    # the next values rotate: vn[i] = v[i-1] + v[i]
    for i in range(n):
        out.append("%s = OpIAdd %%uint %s %s\n" % (nexts[i], carried[i - 1], carried[i]))
    old, code = atomic(ids, value=nexts[-1])
    out.append(code)
    old2, code2 = atomic(ids)
    out.append(code2)
    out.append("%big = OpUGreaterThan %bool " + old2 + " %uint_64\n")
    out.append("OpSelectionMerge %sm None\nOpBranchConditional %big %st %sm\n")
    out.append("%st = OpLabel\n")
    old3, code3 = atomic(ids)
    out.append(code3)
    out.append("OpBranch %sm\n%sm = OpLabel\n")
    out.append("%%joined = OpPhi %%uint %s %%st %s %%lb\n" % (old3, old))
    out.append("%slot = OpAccessChain %ptr_uint %buf %uint_1 %x\n")
    out.append("OpStore %slot %joined\n")
    out.append("OpBranch %lc\n%lc = OpLabel\n%ivn = OpIAdd %uint %iv %uint_1\nOpBranch %lh\n")
    out.append("%lm = OpLabel\nOpReturn\nOpFunctionEnd\n")
    return "".join(out)


def switch(n):
    ids = Ids()
    out = [header(), main_start()]
    out.append("%%sel = OpUMod %%uint %%x %%uint_%d\n" % n)
    cases = " ".join("%d %%case%d" % (i, i) for i in range(n))
    out.append("OpSelectionMerge %merge None\nOpSwitch %sel %default " + cases + "\n")
    for i in range(n):
        out.append("%%case%d = OpLabel\n" % i)
        out.append(atomic(ids, value="%%uint_%d" % n if i % 2 else "%uint_1")[1])
        out.append("OpBranch %merge\n")
    out.append("%default = OpLabel\nOpBranch %merge\n%merge = OpLabel\nOpReturn\nOpFunctionEnd\n")
    text = "".join(out)
    return text.replace("%uint_64 = OpConstant %uint 64\n",
                        "%%uint_64 = OpConstant %%uint 64\n%%uint_%d = OpConstant %%uint %d\n"
                        % (n, n)) if n != 64 else text


def straight(n):
    ids = Ids()
    out = [header(), main_start()]
    prev = "%x"
    emitted = 0
    while emitted < n:
        a, b = ids("a"), ids("b")
        out.append("%s = OpIMul %%uint %s %%uint_3\n%s = OpIAdd %%uint %s %s\n" % (a, prev, b, a, prev))
        prev = b
        emitted += 2
        if emitted % 64 == 0:
            out.append(atomic(ids, value="%uint_1" if emitted % 128 else prev)[1])
            emitted += 1
    out.append("%slot = OpAccessChain %ptr_uint %buf %uint_1 %x\nOpStore %slot " + prev + "\n")
    out.append("OpReturn\nOpFunctionEnd\n")
    return "".join(out)


def kernel():
    return """; SPIR-V
; Version: 1.2
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
       %ocl = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "count_hits" %gid
               OpExecutionMode %k LocalSize 64 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
       %void = OpTypeVoid
      %uint = OpTypeInt 32 0
     %ulong = OpTypeInt 64 0
   %v3ulong = OpTypeVector %ulong 3
  %ptr_in = OpTypePointer Input %v3ulong
  %ptr_g = OpTypePointer CrossWorkgroup %uint
  %ptr_l = OpTypePointer Workgroup %uint
    %kfn = OpTypeFunction %void %ptr_g %ptr_g
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
   %uint_512 = OpConstant %uint 512
        %gid = OpVariable %ptr_in Input
        %local = OpVariable %ptr_l Workgroup
          %k = OpFunction %void None %kfn
      %count = OpFunctionParameter %ptr_g
       %data = OpFunctionParameter %ptr_g
      %entry = OpLabel
        %g = OpLoad %v3ulong %gid Aligned 32
        %gx = OpCompositeExtract %ulong %g 0
       %slot = OpInBoundsPtrAccessChain %ptr_g %data %gx
          %v = OpLoad %uint %slot Aligned 4
       %old1 = OpAtomicIAdd %uint %count %uint_1 %uint_512 %uint_1
       %old2 = OpAtomicIAdd %uint %count %uint_1 %uint_512 %v
       %old3 = OpAtomicIIncrement %uint %local %uint_2 %uint_0
        %sum = OpIAdd %uint %old1 %old2
       %sum2 = OpIAdd %uint %sum %old3
               OpStore %slot %sum2 Aligned 4
               OpReturn
               OpFunctionEnd
"""


def unknown_ext():
    ids = Ids()
    text = header(caps='               OpExtension "SPV_KHR_non_semantic_info"\n'
                       '               OpExtension "SPV_WAVEOPT_no_such_extension"\n'
                       '      %nsi = OpExtInstImport "NonSemantic.WaveoptNoSuchSet"\n')
    out = [text, main_start()]
    out.append("%n1 = OpExtInst %void %nsi 7 %x %uint_3\n")
    old, code = atomic(ids)
    out.append(code)
    out.append("%%n2 = OpExtInst %%void %%nsi 9 %s\n" % old)
    old2, code2 = atomic(ids, value="%x")
    out.append(code2)
    out.append("%%slot = OpAccessChain %%ptr_uint %%buf %%uint_1 %%x\nOpStore %%slot %s\n" % old2)
    out.append("OpReturn\nOpFunctionEnd\n")
    return "".join(out)


def spv16():
    ids = Ids()
    text = header(
        minor=6,
        caps="               OpCapability DotProduct\n"
             "               OpCapability DotProductInput4x8BitPacked\n",
        modes="               OpExecutionModeId %main LocalSizeId %wx %uint_1 %uint_1\n",
        decorations="               OpDecorate %wx SpecId 0\n",
        types="         %wx = OpSpecConstant %uint 64\n"
              "       %Pair = OpTypeStruct %uint %uint\n"
              "      %Pair2 = OpTypeStruct %uint %uint\n"
              "    %ptr_fn_pair = OpTypePointer Function %Pair2\n")
    out = [text, main_start("%pv = OpVariable %ptr_fn_pair Function\n")]
    out.append("%dot = OpUDot %uint %x %uint_3 PackedVectorFormat4x8Bit\n")
    old, code = atomic(ids, value="%dot")
    out.append(code)
    old2, code2 = atomic(ids)
    out.append(code2)
    out.append("%%pair = OpCompositeConstruct %%Pair %s %s\n" % (old, old2))
    out.append("%pair2 = OpCopyLogical %Pair2 %pair\nOpStore %pv %pair2\n")
    out.append("%back = OpLoad %Pair2 %pv\n%first = OpCompositeExtract %uint %back 0\n")
    out.append("%slot = OpAccessChain %ptr_uint %buf %uint_1 %x\nOpStore %slot %first\n")
    out.append("OpReturn\nOpFunctionEnd\n")
    return "".join(out)


def coopmat():
    ids = Ids()
    text = header(
        caps="               OpCapability CooperativeMatrixNV\n"
             "               OpCapability Float16\n"
             '               OpExtension "SPV_NV_cooperative_matrix"\n',
        types="      %half = OpTypeFloat 16\n"
              "     %float = OpTypeFloat 32\n"
              "    %uint_16 = OpConstant %uint 16\n"
              "     %false = OpConstantFalse %bool\n"
              "    %float_2 = OpConstant %float 2\n"
              "      %matf = OpTypeCooperativeMatrixNV %float %uint_3 %uint_16 %uint_16\n"
              "      %math = OpTypeCooperativeMatrixNV %half %uint_3 %uint_16 %uint_16\n"
              "      %twos = OpConstantComposite %matf %float_2\n"
              "  %ptr_fn_mat = OpTypePointer Function %matf\n")
    out = [text, main_start("%mv = OpVariable %ptr_fn_mat Function\n")]
    out.append("%first = OpAccessChain %ptr_uint %buf %uint_1 %uint_0\n")
    out.append("%m = OpCooperativeMatrixLoadNV %matf %first %uint_16 %false\n")
    out.append("%m2 = OpMatrixTimesScalar %matf %m %float_2\n%m3 = OpFAdd %matf %m2 %twos\n")
    out.append("%mh = OpFConvert %math %m3\n%mf = OpFConvert %matf %mh\n")
    out.append("OpStore %mv %mf\n%ml = OpLoad %matf %mv\n")
    out.append("%e = OpCompositeExtract %float %ml 0\n")
    out.append("%m4 = OpCompositeInsert %matf %e %ml 1\n")
    out.append("%len = OpCooperativeMatrixLengthNV %uint %matf\n")
    out.append("%m5 = OpCooperativeMatrixMulAddNV %matf %m4 %twos %ml\n")
    out.append("OpCooperativeMatrixStoreNV %first %m5 %uint_16 %false\n")
    out.append(atomic(ids, value="%len")[1])
    out.append(atomic(ids)[1])
    out.append("OpReturn\nOpFunctionEnd\n")
    return "".join(out)


def renumber_max(path, new):
    text = open(path).read()
    top = max(int(m) for m in re.findall(r"%(\d+)\b", text))
    text = re.sub(r"%%%d\b" % top, "%%%d" % new, text)
    # spirv-dis writes the old bound in a comment; drop it
    return re.sub(r"; Bound: \d+\n", "", text)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    kind = argv[1]
    n = int(argv[2]) if len(argv) > 2 and kind != "renumber-max" else None
    makers = {
        "deep-nest": lambda: deep_nest(n or 200),
        "functions": lambda: functions(n or 100000,
                                       int(argv[3]) if len(argv) > 3 else 10),
        "unreachable": unreachable,
        "phis": lambda: phis(n or 256),
        "switch": lambda: switch(n or 1000),
        "straight": lambda: straight(n or 100000),
        "kernel": kernel,
        "unknown-ext": unknown_ext,
        "spv16": spv16,
        "coopmat": coopmat,
        "renumber-max": lambda: renumber_max(argv[2], int(argv[3])),
    }
    if kind not in makers:
        print("gen.py: unknown kind %s" % kind, file=sys.stderr)
        return 2
    sys.stdout.write(makers[kind]())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
