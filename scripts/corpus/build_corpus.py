#!/usr/bin/env python3
"""Builds the scratch corpus: real public compute shaders compiled to SPIR-V.

The corpus lives OUTSIDE the repository (default /work/scratch/corpus) and is
never committed: it is third-party code. This script only knows where each
public project keeps its shaders and how they are compiled; the projects'
sources come from bare git snapshots (`fetch` in the tool library), one
directory per repository under --mirrors (owner+name/repo[/.git]).

For every compute shader found it writes two modules:
  spv/<id>.raw.spv   glslang's output (GLSL, or HLSL through glslang's HLSL
                     front end), unoptimized
  spv/<id>.opt.spv   the same after `spirv-opt -O` (the form most pipelines
                     ship); missing when spirv-opt fails on the module
and one line per shader in manifest.tsv:
  id  repo  path  lang  stage  entry  target_env  defines  raw  opt
plus failures.tsv (shaders that did not compile, with glslang's first error).

Usage:
  scripts/corpus/build_corpus.py [--mirrors DIR] [--out DIR] [--jobs N]
                                 [--repos owner+name,...] [--ggml-variants N]
The ggml variants (its shaders are compiled many times with different
defines) come from the command lines its own generator would run; pass
--ggml-log FILE (JSON lines of glslc arguments, see README.md written next to
the corpus) to use them, else one variant per shader with default types.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import io

SHADER_EXTS = (".comp", ".glsl", ".hlsl", ".hlsli", ".h", ".inc", ".frag",
               ".vert", ".fxh", ".csh", ".incl")

# Per repository: which paths to take, HLSL binding shifts, extra defines
# and include directories (relative to the repository root). Paths are
# regular expressions on the repository path.
RECIPES = {
    "SaschaWillems+Vulkan": {"take": r"^shaders/(glsl|hlsl)/"},
    "KhronosGroup+Vulkan-Samples": {"take": r"^shaders/"},
    "zeux+niagara": {"take": r"^src/(shaders/|config\.h$)"},
    "Themaister+Granite": {"take": r"^(assets/shaders|tests/assets/shaders)/",
                           "include": ["assets/shaders", "assets/shaders/inc"]},
    "ggml-org+ggml": {"take": r"^src/ggml-vulkan/vulkan-shaders/"},
    "sebbbi+perftest": {"take": r"^perftest/"},
    "GPUOpen-Effects+FidelityFX-SPD": {"take": r"^(ffx-spd|sample/src/VK|sample/src/DX12)/",
                                       "include": ["ffx-spd"]},
    "GPUOpen-Effects+FidelityFX-CAS": {"take": r"^(ffx-cas|sample/src/VK|sample/src/DX12)/",
                                       "include": ["ffx-cas"]},
    "EmbarkStudios+kajiya": {"take": r"^assets/shaders/",
                             "include": ["assets/shaders"]},
    "TheRealMJP+DeferredTexturing": {"take": r"^(BindlessDeferred|SampleFramework12/v1.01/Shaders)/",
                                     "include": ["SampleFramework12/v1.01/Shaders"]},
    "Tencent+ncnn": {"take": r"^src/layer/vulkan/shader/"},
    "turanszkij+WickedEngine": {"take": r"^WickedEngine/shaders/",
                                "include": ["WickedEngine/shaders"]},
}

# ncnn's shaders are written against macros its runtime defines when it
# compiles them (storage/arithmetic types, image helpers); these are the
# fp32 buffer forms of those macros.
NCNN_DEFINES = [
    "sfp=float", "sfpvec2=vec2", "sfpvec4=vec4", "sfpvec8=mat2x4",
    "afp=float", "afpvec2=vec2", "afpvec4=vec4", "afpvec8=mat2x4", "afpmat4=mat4",
    "lfp=float", "lfpvec4=vec4",
    "buffer_ld1(buf,i)=buf[i]", "buffer_st1(buf,i,v)={buf[i]=v;}",
    "buffer_cp1(buf,i,sbuf,si)={buf[i]=sbuf[si];}",
    "buffer_ld2(buf,i)=buf[i]", "buffer_st2(buf,i,v)={buf[i]=v;}",
    "buffer_cp2(buf,i,sbuf,si)={buf[i]=sbuf[si];}",
    "buffer_ld4(buf,i)=buf[i]", "buffer_st4(buf,i,v)={buf[i]=v;}",
    "buffer_cp4(buf,i,sbuf,si)={buf[i]=sbuf[si];}",
    "buffer_ld8(buf,i)=buf[i]", "buffer_st8(buf,i,v)={buf[i]=v;}",
    "buffer_cp8(buf,i,sbuf,si)={buf[i]=sbuf[si];}",
    "sfp2lfp(v)=v", "sfp2lfpvec4(v)=v", "lfp2afp(v)=v", "lfp2afpvec4(v)=v",
    "psc(x)=(x==0?p.x:x)", "NCNN_image_shader=0", "NCNN_fp16_storage=0",
    "NCNN_fp16_arithmetic=0", "NCNN_int8_storage=0",
]

# ggml's shaders take their element types from defines its generator passes;
# without a recorded list of its variants (--ggml-log), one fp32 variant.
GGML_DEFAULT_DEFINES = [
    "A_TYPE=float", "A_TYPE_VEC4=vec4", "B_TYPE=float", "B_TYPEV2=vec2", "B_TYPEV4=vec4",
    "D_TYPE=float", "D_TYPE_VEC4=vec4", "FLOAT_TYPE=float", "FLOAT_TYPEV2=vec2",
    "FLOAT_TYPEV4=vec4", "ACC_TYPE=float", "ROPE_D_TYPE=float", "DATA_A_F32=1",
]

HLSL_SHIFTS = ["--shift-cbuffer-binding", "0", "--shift-texture-binding", "32",
               "--shift-UAV-binding", "64", "--shift-sampler-binding", "96"]

# HLSL 2021's select() (DXC has it, glslang does not): the ternary operator
# is component-wise in HLSL, which is what select() means.
HLSL_DEFINES = ["-Dselect(c,a,b)=((c)?(a):(b))"]

NUMTHREADS = re.compile(
    r"\[\s*numthreads\s*\([^)]*\)\s*\]\s*(?:\[[^\]]*\]\s*)*"
    r"void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.S)  # entries return void
INCLUDE_ERR = re.compile(r"(?:Could not process include directive for header name|cannot open include file):?\s*\"?([^\"\s]+)")


def git_dir(mirrors, repo):
    base = os.path.join(mirrors, repo, "repo")
    return os.path.join(base, ".git") if os.path.isdir(os.path.join(base, ".git")) else base


def extract(mirrors, repo, take, dest):
    gd = git_dir(mirrors, repo)
    names = subprocess.run(["git", "--git-dir", gd, "ls-tree", "-r", "--name-only", "HEAD"],
                           check=True, capture_output=True, text=True).stdout.split("\n")
    wanted = [n for n in names if n and re.search(take, n) and n.lower().endswith(SHADER_EXTS)]
    if not wanted:
        return []
    data = subprocess.run(["git", "--git-dir", gd, "archive", "--format=tar", "HEAD", "--"] + wanted,
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest)
    # glslangValidator's includer resolves only quoted includes: make
    # `#include <x>` (DXC and shaderc search their -I paths for it) quoted.
    for rel in wanted:
        path = os.path.join(dest, rel)
        text = open(path, encoding="utf-8", errors="replace").read()
        fixed = re.sub(r'^(\s*#\s*include\s*)<([^>]+)>', r'\1"\2"', text, flags=re.M)
        if fixed != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(fixed)
    return wanted


def is_hlsl(path, text):
    if path.endswith((".hlsl",)):
        return "#version" not in text
    if "/hlsl/" in path and "[numthreads" in text:
        return True
    return "[numthreads" in text and "#version" not in text


def with_includes(full, depth=0):
    """The text of |full| and of the files it includes (quoted, relative)."""
    try:
        text = open(full, encoding="utf-8", errors="replace").read()
    except OSError:
        return ""
    if depth < 3:
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
            text += "\n" + with_includes(os.path.join(os.path.dirname(full), inc), depth + 1)
    return text


def with_include_extension(src):
    """|src|, or a copy beside it that enables GL_GOOGLE_include_directive
    when the file uses #include without it (shaderc enables it by default,
    glslangValidator does not)."""
    text = open(src, encoding="utf-8", errors="replace").read()
    if "#include" not in text or "GL_GOOGLE_include_directive" in text:
        return src
    lines = text.split("\n")
    at = next((i + 1 for i, l in enumerate(lines) if l.strip().startswith("#version")), 0)
    lines.insert(at, "#extension GL_GOOGLE_include_directive : require")
    base, ext = os.path.splitext(src)
    copy = base + ".inc-ext" + ext
    with open(copy, "w") as f:
        f.write("\n".join(lines))
    return copy


def stage_of(rel):
    """The stage a GLSL file name gives (x.comp, x.comp.glsl, x.frag...)."""
    parts = os.path.basename(rel).lower().split(".")
    for stage in ("comp", "frag"):
        if stage in parts[1:]:
            return stage
    return ""


def discover(repo, root, files):
    """(path, lang, stage, entry, defines) for every shader to compile."""
    jobs = []
    for rel in files:
        if rel.endswith((".hlsli", ".h", ".inc", ".fxh", ".incl")):
            continue
        full = os.path.join(root, rel)
        text = with_includes(full)
        if not text:
            continue
        has_main = re.search(r"\bvoid\s+main\s*\(", text)
        if is_hlsl(rel, text):
            for m in NUMTHREADS.finditer(text):
                jobs.append((rel, "hlsl", "comp", m.group(1), []))
            continue
        stage = stage_of(rel)
        other = {"vert", "geom", "tesc", "tese", "mesh", "task", "rgen", "rchit",
                 "rmiss", "rahit", "rint", "rcall"}
        if (not stage and rel.endswith(".glsl") and "local_size_x" in text and
                not other & set(os.path.basename(rel).lower().split("."))):
            stage = "comp"
        if stage == "comp" and has_main:
            defines = {"Tencent+ncnn": NCNN_DEFINES,
                       "ggml-org+ggml": GGML_DEFAULT_DEFINES}.get(repo, [])
            jobs.append((rel, "glsl", "comp", "main", defines))
        elif stage == "frag" and has_main and "atomic" in text:
            # Fragment shaders with atomics: prereduce-atomics' other stage.
            jobs.append((rel, "glsl", "frag", "main", []))
    # De-duplicate entries (a file may name an entry twice under #if).
    seen, out = set(), []
    for j in jobs:
        key = (j[0], j[3])
        if key not in seen:
            seen.add(key)
            out.append(j)
    return out


def ggml_jobs(log_path, root, per_shader):
    """Variants of ggml's shaders from its generator's recorded glslc calls."""
    by_src = collections.defaultdict(list)
    for line in open(log_path):
        args = json.loads(line)
        src = next(a for a in args if a.endswith(".comp"))
        name = os.path.basename(args[args.index("-o") + 1])
        if "_cm1" in name or "_cm2" in name or "coopmat" in name:
            continue  # cooperative matrices: no subgroup rewrite applies
        defines = [a[2:] for a in args if a.startswith("-D")]
        env = next((a.split("=", 1)[1] for a in args if a.startswith("--target-env=")), "vulkan1.2")
        by_src[os.path.basename(src)].append((name, defines, env))
    jobs = []
    for src in sorted(by_src):
        variants = sorted(by_src[src])
        if len(variants) > per_shader:
            step = len(variants) / per_shader
            variants = [variants[int(i * step)] for i in range(per_shader)]
        for name, defines, env in variants:
            jobs.append(("src/ggml-vulkan/vulkan-shaders/" + src, "glsl", "comp", "main",
                         defines, env, name[:-4]))
    return jobs


def shader_id(repo, rel, entry, variant):
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", rel)
    tag = "" if entry == "main" else "." + entry
    if variant:
        tag += "." + variant
    return f"{repo.split('+')[1]}/{stem}{tag}"


def compile_one(job, root, out, includes, by_name):
    repo, rel, lang, stage, entry, defines, env, variant = job
    sid = shader_id(repo, rel, entry, variant)
    raw = os.path.join(out, "spv", sid + ".raw.spv")
    opt = os.path.join(out, "spv", sid + ".opt.spv")
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    src = os.path.join(root, rel)
    if lang == "glsl":
        src = with_include_extension(src)
    incs = [os.path.dirname(src), root] + [os.path.join(root, i) for i in includes]
    envs = [env] if env else (["vulkan1.1", "vulkan1.2", "vulkan1.3"])
    err = ""
    for target in envs:
        for _ in range(8):  # add directories of missing includes, then retry
            cmd = ["glslangValidator", "-V", "--quiet", "-S", stage, "--target-env", target,
                   "-o", raw]
            if lang == "hlsl":
                cmd += ["-D", "-e", entry] + HLSL_SHIFTS + HLSL_DEFINES
            for d in defines:
                cmd.append("-D" + d)
            for i in incs:
                cmd.append("-I" + i)
            cmd.append(src)
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                err = "glslang timed out"
                break
            if p.returncode == 0 and os.path.exists(raw):
                break
            msg = p.stdout + p.stderr
            err = next((l.strip() for l in msg.splitlines() if "ERROR" in l), msg.strip()[:200])
            m = INCLUDE_ERR.search(msg)
            missing = m and by_name.get(os.path.basename(m.group(1)))
            if missing and missing not in incs:
                incs.append(missing)
                continue
            break
        if os.path.exists(raw) and p.returncode == 0:
            break
        if os.path.exists(raw):
            os.remove(raw)
    else:
        return sid, job, None, None, err.replace("\t", " ")
    ok_opt = None
    try:
        p = subprocess.run(["spirv-opt", "-O", raw, "-o", opt], capture_output=True, text=True,
                           timeout=120)
        if p.returncode == 0:
            ok_opt = opt
    except subprocess.TimeoutExpired:
        pass
    if ok_opt is None and os.path.exists(opt):
        os.remove(opt)
    return sid, job, raw, ok_opt, target


README = """Scratch corpus (third-party shaders: never commit anything from here).
Built by scripts/corpus/build_corpus.py from: {repos}.
{total} modules compiled (spv/<id>.raw.spv), {opt} also after spirv-opt -O
(spv/<id>.opt.spv). manifest.tsv: one row per module (id, repo, path, lang,
stage, entry, target_env, defines, raw, opt); failures.tsv: what did not
compile. src/: the extracted sources. score/<label>/: scripts/corpus/score.py.
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--out", default="/work/scratch/corpus")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--repos", default=",".join(RECIPES))
    ap.add_argument("--ggml-log", default="")
    ap.add_argument("--ggml-variants", type=int, default=4)
    args = ap.parse_args()

    out = os.path.abspath(args.out)
    if os.path.exists(os.path.join(out, "READY")):
        os.remove(os.path.join(out, "READY"))
    for sub in ("src", "spv"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    os.makedirs(out, exist_ok=True)

    jobs, roots, includes, names = [], {}, {}, {}
    for repo in args.repos.split(","):
        recipe = RECIPES.get(repo)
        if recipe is None:
            sys.exit(f"build_corpus: no recipe for {repo}")
        if not os.path.isdir(git_dir(args.mirrors, repo)):
            print(f"build_corpus: {repo}: not fetched, skipped", file=sys.stderr)
            continue
        root = os.path.join(out, "src", repo)
        files = extract(args.mirrors, repo, recipe["take"], root)
        roots[repo] = root
        includes[repo] = recipe.get("include", [])
        by_name = {}
        for f in sorted(files):
            by_name.setdefault(os.path.basename(f), os.path.dirname(os.path.join(root, f)))
        names[repo] = by_name
        if repo == "ggml-org+ggml" and args.ggml_log:
            for rel, lang, stage, entry, defines, env, variant in ggml_jobs(
                    args.ggml_log, root, args.ggml_variants):
                jobs.append((repo, rel, lang, stage, entry, defines, env, variant))
            continue
        for rel, lang, stage, entry, defines in discover(repo, root, sorted(files)):
            jobs.append((repo, rel, lang, stage, entry, defines, "", ""))

    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(compile_one, j, roots[j[0]], out, includes[j[0]], names[j[0]])
                for j in jobs]
        for f in futs:
            results.append(f.result())

    with open(os.path.join(out, "manifest.tsv"), "w") as man, \
            open(os.path.join(out, "failures.tsv"), "w") as fail:
        man.write("id\trepo\tpath\tlang\tstage\tentry\ttarget_env\tdefines\traw\topt\n")
        fail.write("id\trepo\tpath\tlang\tentry\terror\n")
        for sid, job, raw, opt, info in sorted(results, key=lambda r: r[0]):
            repo, rel, lang, stage, entry, defines, env, variant = job
            if raw is None:
                fail.write(f"{sid}\t{repo}\t{rel}\t{lang}\t{entry}\t{info}\n")
                continue
            rel_raw = os.path.relpath(raw, out)
            rel_opt = os.path.relpath(opt, out) if opt else ""
            man.write(f"{sid}\t{repo}\t{rel}\t{lang}\t{stage}\t{entry}\t{info}\t"
                      f"{' '.join(defines)}\t{rel_raw}\t{rel_opt}\n")

    counts = collections.Counter()
    for sid, job, raw, opt, info in results:
        counts[(job[0], job[2], "ok" if raw else "failed")] += 1
        if raw and opt:
            counts[(job[0], job[2], "opt")] += 1
    print(f"{'repository':34} {'lang':5} {'compiled':>8} {'opt':>5} {'failed':>6}")
    tot = collections.Counter()
    for repo in sorted({k[0] for k in counts}):
        for lang in ("glsl", "hlsl"):
            ok, o, bad = (counts[(repo, lang, s)] for s in ("ok", "opt", "failed"))
            if ok or bad:
                print(f"{repo:34} {lang:5} {ok:8} {o:5} {bad:6}")
                tot.update(ok=ok, opt=o, failed=bad)
    print(f"{'total':34} {'':5} {tot['ok']:8} {tot['opt']:5} {tot['failed']:6}")
    with open(os.path.join(out, "README"), "w") as f:
        f.write(README.format(repos=", ".join(sorted(roots)), total=tot["ok"], opt=tot["opt"]))
    with open(os.path.join(out, "READY"), "w") as f:
        f.write("built by scripts/corpus/build_corpus.py\n")


if __name__ == "__main__":
    main()
