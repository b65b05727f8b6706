#!/usr/bin/env python3
"""Re-emission as a contract: a rewrite never turns a module that SPIRV-Cross
can emit as GLSL or HLSL (and glslang can compile again) into one it cannot.

For every kernel of the differential suite (each distinct shader + waveopt
flags of a `%diff` RUN line under test/diff), or for --pairs ORIG REWRITE...:
  - the original (compiled, no pass) and the rewrite (the RUN line's flags)
    are emitted with `waveopt --emit=glsl` and `--emit=hlsl` (with
    --emit=hlsl the passes choose forms HLSL can express, refusing with
    `NotExpressibleInHlsl` where there is none; --pairs emits two given
    modules as they are);
  - each text is compiled again with glslangValidator (GLSL: -V; HLSL: -D -V,
    shader model 6 wave intrinsics);
  - a language where the original recompiles and the rewrite does not is a
    broken contract (exit 1, the error named); a language where the original
    itself cannot be emitted or recompiled is counted, not failed (a limit of
    SPIRV-Cross or glslang, not of the rewrite).

  reemit.py --waveopt W --glslang G --tmp DIR
            (--suite TEST_DIFF_DIR | --pairs A B [A B ...] | --modules M... [--flags '-O'])
            [--jobs N] [--summary FILE.json]

--modules: each module against itself through --flags (the scratch corpus's
rewritten modules: scripts/corpus/score.py lists them); modules the flags do
not change are skipped.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

REMARK_FLAGS = re.compile(r"^--remarks(-missed|-analysis|-output)?=")


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, (p.stderr + p.stdout).strip()
    except subprocess.TimeoutExpired:
        return 124, "timeout"


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:200]
    return (text.splitlines() or ["failed"])[0][:200]


def suite_kernels(suite):
    """(shader, [waveopt flags]) for every %diff RUN line, deduplicated."""
    seen, out = set(), []
    for root, _, files in os.walk(suite):
        if os.sep + "Inputs" in root:
            continue
        for name in sorted(files):
            if not name.endswith((".comp", ".frag")):
                continue
            path = os.path.join(root, name)
            for line in open(path, errors="replace"):
                m = re.search(r"RUN: %diff (.*)", line)
                if not m:
                    continue
                args = shlex.split(m.group(1).split("|")[0].split("2>&1")[0])
                if not args or args[0] not in ("%s",):
                    continue
                flags = []
                for a in args[1:]:
                    if a.startswith("--waveopt-flags="):
                        flags = [f for f in shlex.split(a.split("=", 1)[1])
                                 if not REMARK_FLAGS.match(f)]
                    if a.startswith("--against") or a == "--expect=differ":
                        flags = None
                        break
                if flags is None:
                    continue
                key = (path, tuple(flags))
                if key not in seen:
                    seen.add(key)
                    out.append((path, flags))
    return sorted(out)


def defines(flags):
    return [f for f in flags if f.startswith(("-D", "-I"))]


def stage_of(path):
    return "frag" if path.endswith(".frag") else "comp"


def recompile_text(glslang, src, lang, stage, base):
    """'' when glslang compiles the emitted |src| again, else why."""
    cmd = [glslang, "-V", "--target-env", "vulkan1.1", "-S", stage, "-o", base + ".re.spv"]
    if lang == "hlsl":
        cmd += ["-D", "-e", "main"]
    rc, err = run(cmd + [src])
    return "" if rc == 0 else "recompile: " + first_error(err)


def emit_and_recompile(waveopt, glslang, cmd, lang, stage, base):
    """Runs waveopt |cmd| + --emit=|lang|; '' when the text recompiles."""
    src = base + (".hlsl" if lang == "hlsl" else "." + stage)
    rc, err = run([waveopt] + cmd + ["--emit=" + lang, "-o", src])
    if rc:
        return "emit: " + first_error(err)
    return recompile_text(glslang, src, lang, stage, base)


def check(job):
    waveopt, glslang, tmp, key, orig_cmd, rewrite_cmd, stage = job
    res = {"key": key}
    for lang in ("glsl", "hlsl"):
        a = emit_and_recompile(waveopt, glslang, orig_cmd, lang, stage,
                               os.path.join(tmp, key + ".a"))
        b = emit_and_recompile(waveopt, glslang, rewrite_cmd, lang, stage,
                               os.path.join(tmp, key + ".b"))
        res[lang] = {"original": a, "rewrite": b, "broken": a == "" and b != ""}
    return res


def suite_job(args, i, shader, flags):
    """The job of one suite kernel (original and rewrite compiled), or None."""
    key = "%03d_%s" % (i, os.path.basename(shader).replace(".", "_"))
    orig = os.path.join(args.tmp, key + ".orig.spv")
    rew = os.path.join(args.tmp, key + ".opt.spv")
    rc, err = run([args.waveopt, shader] + defines(flags) + ["-o", orig])
    rc2, err2 = run([args.waveopt, shader] + flags + ["-o", rew]) if rc == 0 else (rc, err)
    if rc or rc2:
        return "SKIP %s %s: %s" % (shader, " ".join(flags), first_error(err + err2))
    if open(orig, "rb").read() == open(rew, "rb").read():
        return None  # nothing rewritten: nothing to hold to the contract
    # Emitted from the compiled original (the same module the source gives,
    # the same text): the front end runs once per kernel, not five times.
    passes = [f for f in flags if f not in defines(flags)]
    return (args.waveopt, args.glslang, args.tmp,
            key + " " + os.path.relpath(shader, args.suite) + " " + " ".join(flags),
            [orig], [orig] + passes, stage_of(shader))


def build_suite_jobs(args):
    """The suite's jobs in suite order, compiled --jobs at a time."""
    kernels = suite_kernels(args.suite)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        done = list(pool.map(lambda ik: suite_job(args, ik[0], *ik[1]), enumerate(kernels)))
    jobs = []
    for job in done:
        if isinstance(job, str):
            print(job)
        elif job is not None:
            jobs.append(job)
    return jobs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waveopt", required=True)
    ap.add_argument("--glslang", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--suite")
    ap.add_argument("--pairs", nargs="*")
    ap.add_argument("--modules", nargs="*")
    ap.add_argument("--flags", default="-O")
    ap.add_argument("--stage", default="comp")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--summary")
    args = ap.parse_args()
    os.makedirs(args.tmp, exist_ok=True)
    if args.suite:
        jobs = build_suite_jobs(args)
    elif args.modules:
        jobs = []
        flags = shlex.split(args.flags)
        for i, m in enumerate(args.modules):
            jobs.append((args.waveopt, args.glslang, args.tmp, "m%05d %s" % (i, m), [m],
                         [m] + flags, args.stage))
    else:
        p = args.pairs or []
        jobs = [(args.waveopt, args.glslang, args.tmp, "pair%04d" % (i // 2), [p[i]], [p[i + 1]],
                 args.stage) for i in range(0, len(p) - 1, 2)]
    # Keys double as file names: keep the first word only there.
    jobs = [(w, g, t, k, a, b, s) for (w, g, t, k, a, b, s) in jobs]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda j: dict(check((j[0], j[1], j[2], j[3].split()[0], j[4],
                                                      j[5], j[6])), label=j[3]), jobs))
    counts = {lang: {"kernels": 0, "both": 0, "original_fails": 0, "broken": 0}
              for lang in ("glsl", "hlsl")}
    broken = []
    for r in results:
        for lang in ("glsl", "hlsl"):
            c = counts[lang]
            c["kernels"] += 1
            if r[lang]["broken"]:
                c["broken"] += 1
                broken.append("%s [%s]: %s" % (r["label"], lang, r[lang]["rewrite"]))
            elif r[lang]["original"]:
                c["original_fails"] += 1
            else:
                c["both"] += 1
    for lang, c in counts.items():
        print("%s: %d rewritten kernels; recompile: %d both, %d original not emittable, "
              "%d broken by the rewrite" % (lang, c["kernels"], c["both"], c["original_fails"],
                                            c["broken"]))
    for r in results:
        for lang in ("glsl", "hlsl"):
            if r[lang]["original"] and not r[lang]["broken"]:
                print("  original not emittable [%s] %s: %s" % (lang, r["label"],
                                                               r[lang]["original"]))
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump({"counts": counts, "results": results}, f, indent=1)
    for b in broken:
        print("BROKEN " + b)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
