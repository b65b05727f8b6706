#!/usr/bin/env python3
"""Runs waveopt over every test shader in the repository and checks a
property of each output.

  sweep.py <mode>... --waveopt W --spirv-val V --src REPO --tmp DIR [--jobs N]

Several modes in one run share their work: each GLSL shader is compiled
once for all of them (glslang's start-up dominates a run's time), and a
step that two modes run identically in the plain environment (determinism's
first run of `--ssa-rewrite --P` and of -O, idempotence's first) runs once;
robustness/sweeps.test runs all three.

Shaders: every .comp/.glsl (GLSL; a .glsl takes its stage from the `-S`
in its RUN lines) and .spvasm under test/lit and test/diff, Inputs/
included. Those waveopt cannot read (negative tests) are counted and skipped;
the sweep fails if fewer than 40 shaders are usable, so it cannot pass by
reading nothing.

Modes:
  determinism  the front end, -O, and each pass alone (after --ssa-rewrite,
               the form -O hands it the module in), twice each: once plainly
               (address space randomisation on, small blocks from the brk
               heap), once under `setarch -R` (no randomisation) with glibc's
               malloc turned inside out (MALLOC_MMAP_THRESHOLD_=0: every block
               from mmap; MALLOC_PERTURB_, MALLOC_TOP_PAD_, and a padded
               environment that moves the stack). Heap addresses differ, so
               output that depends on pointer hashing or unordered-container
               iteration order shows up. Compared: exit status, output module
               and YAML remarks, byte for byte.
  idempotence  for each pass P: `waveopt --P x -o a; waveopt --P a -o b` and
               the same after --ssa-rewrite (the form -O hands the passes):
               a and b must be identical. Also reports (does not fail on)
               whether -O reaches a fixed point.
  vulkan10     each compute shader built for Vulkan 1.0 and run through -O
               there: the output must be valid for Vulkan 1.0 and declare no
               subgroup capability the input did not (Vulkan 1.0 has no
               subgroup operations; morton-remap, which needs none, may fire).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import threading

PASSES = ["morton-remap", "quad-exchange", "batch-uniform-loads", "prereduce-atomics"]
STAGE_RE = re.compile(r"-S\s+(comp|frag|vert|geom|tesc|tese|task|mesh)\b")
MIN_SHADERS = 40


def find_shaders(src):
    out = []
    for top in ("test/lit", "test/diff"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(src, top)):
            dirnames.sort()
            for name in sorted(filenames):
                ext = os.path.splitext(name)[1]
                if ext in (".comp", ".glsl", ".spvasm"):
                    out.append(os.path.join(dirpath, name))
    return out


def input_args(path):
    """waveopt arguments that read |path|, or None when it has no stage."""
    if path.endswith(".glsl"):
        with open(path, encoding="utf-8", errors="replace") as f:
            m = STAGE_RE.search(f.read())
        return ["-S", m.group(1), path] if m else None
    return [path]


# GroupNonUniform* (61-68) and the KHR subgroup capabilities (4423, 4431).
SUBGROUP_CAPS = set(range(61, 69)) | {4423, 4431}


def subgroup_capabilities(data):
    caps, i = set(), 5
    words = [int.from_bytes(data[j:j + 4], "little") for j in range(0, len(data or b""), 4)]
    while i < len(words) and words[i] >> 16:
        if words[i] & 0xFFFF == 17 and words[i + 1] in SUBGROUP_CAPS:  # OpCapability
            caps.add(words[i + 1])
        i += words[i] >> 16
    return caps


def run(cmd, env=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


class Sweep:
    def __init__(self, a):
        self.a = a
        self.errors = []
        self.notes = []
        self.changed = []
        self.lock = threading.Lock()
        self.cache = {}  # plain(): (shader, step) -> its result

    def stem(self, shader):
        rel = os.path.relpath(shader, self.a.src)
        return os.path.join(self.a.tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", rel))

    def usable(self, shader):
        """The front end's plain run: its module is every later step's input,
        and its result is the first of determinism's two front-end runs."""
        args = input_args(shader)
        if args is None:
            return None
        stem = self.stem(shader)
        r = run([self.a.waveopt] + args + ["-o", stem + ".in.spv",
                                           "--remarks-output=" + stem + ".in.yaml"])
        return args if r.returncode == 0 else None

    def module(self, shader):
        """The shader as SPIR-V (built once: glslang dominates a run's time)."""
        return [self.stem(shader) + ".in.spv"]

    def plain(self, shader, step):
        """`waveopt STEP <module>` in the unperturbed environment, run once
        per shader and step for every mode: determinism's first run, and
        idempotence's first run after --ssa-rewrite and of -O.
        Returns (exit status, stderr, module path, remarks path)."""
        key = (shader, tuple(step))
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        stem, tag = self.stem(shader), "_".join(s.strip("-") for s in step)
        out, yaml = "%s.%s.plain.spv" % (stem, tag), "%s.%s.plain.yaml" % (stem, tag)
        r = run([self.a.waveopt] + step + self.module(shader) +
                ["-o", out, "--remarks-output=" + yaml])
        with self.lock:
            self.cache[key] = (r.returncode, r.stderr, out, yaml)
        return self.cache[key]

    # ---- determinism
    def environments(self):
        base = dict(os.environ)
        perturbed = dict(base, MALLOC_MMAP_THRESHOLD_="0", MALLOC_PERTURB_="165",
                         MALLOC_TOP_PAD_="1048576", WAVEOPT_SWEEP_PAD="x" * 4099)
        return [("plain", [], base), ("setarch-R+malloc-mmap", ["setarch", "-R"], perturbed)]

    def determinism(self, shader, args):
        stem = self.stem(shader)
        # The front end on the source, then the pipelines on its output.
        steps = [[], ["-O"]] + [["--ssa-rewrite", "--" + p] for p in PASSES]
        for step in steps:
            if step:
                args = self.module(shader)
            tag = "_".join(s.strip("-") for s in step) or "frontend"
            if not step:  # the plain front-end run is the one usable() made
                seen = ("plain", (0, read(stem + ".in.spv"), read(stem + ".in.yaml")))
            else:
                rc, _, out, yaml = self.plain(shader, step)
                seen = ("plain", (rc, read(out), read(yaml)))
            # The plain run is above; the perturbed one must match it.
            for name, prefix, env in self.environments()[1:]:
                out, yaml = "%s.%s.%s.spv" % (stem, tag, name), "%s.%s.%s.yaml" % (stem, tag, name)
                r = run(prefix + [self.a.waveopt] + step + args +
                        ["-o", out, "--remarks-output=" + yaml], env=env)
                got = (r.returncode, read(out), read(yaml))
                if got != seen[1]:
                    what = [w for w, x, y in zip(("exit status", "module", "remarks"), got, seen[1])
                            if x != y]
                    self.errors.append("%s %s: %s differs between the %s run and the %s run"
                                       % (shader, " ".join(step), " and ".join(what), seen[0], name))

    # ---- idempotence
    def idempotence(self, shader, args):
        stem = self.stem(shader)
        args = self.module(shader)
        for p in PASSES:
            for prep in ([], ["--ssa-rewrite"]):
                tag = "%s%s" % ("ssa." if prep else "", p)
                a, b = "%s.%s.a.spv" % (stem, tag), "%s.%s.b.spv" % (stem, tag)
                if prep:
                    rc, err, a, _ = self.plain(shader, prep + ["--" + p])
                else:
                    r1 = run([self.a.waveopt, "--" + p] + args + ["-o", a])
                    rc, err = r1.returncode, r1.stderr
                if rc != 0:
                    self.errors.append("%s: %s --%s failed: %s" % (shader, " ".join(prep), p, err))
                    continue
                r2 = run([self.a.waveopt, "--" + p, a, "-o", b])
                if r2.returncode != 0 or read(a) != read(b):
                    self.errors.append(
                        "%s: --%s is not idempotent (after %s): second run %s; "
                        "diff <(spirv-dis %s) <(spirv-dis %s)"
                        % (shader, p, " ".join(prep) or "nothing",
                           "failed: " + r2.stderr if r2.returncode else "changed the module", a, b))
        rc, _, a, _ = self.plain(shader, ["-O"])
        b = stem + ".O.b.spv"
        if rc == 0 and run([self.a.waveopt, "-O", a, "-o", b]).returncode == 0 and \
                read(a) != read(b):
            self.notes.append("-O twice changes %s again" % shader)

    # ---- vulkan 1.0
    def vulkan10(self, shader, args):
        if args[-1].endswith(".spvasm"):
            return  # their SPIR-V version is fixed by the file
        if "-S" in args and args[args.index("-S") + 1] != "comp":
            return
        stem = self.stem(shader)
        src, out = stem + ".vk10.in.spv", stem + ".vk10.out.spv"
        if run([self.a.waveopt, "--target-env=vulkan1.0"] + args + ["-o", src]).returncode != 0:
            return  # needs Vulkan 1.1 features (subgroup extensions in the source)
        r = run([self.a.waveopt, "--target-env=vulkan1.0", "-O", src, "-o", out])
        if r.returncode != 0:
            self.errors.append("%s: -O for vulkan1.0 failed: %s" % (shader, r.stderr))
            return
        # An input valid only under relaxed or scalar block layout rules is
        # read, and its output validated, under them (docs/cli.md).
        layout = []
        if run([self.a.spirv_val, "--target-env", "vulkan1.0", src]).returncode != 0:
            layout = next(([f] for f in ("--relax-block-layout", "--scalar-block-layout")
                           if run([self.a.spirv_val, "--target-env", "vulkan1.0", f,
                                   src]).returncode == 0), [])
        v = run([self.a.spirv_val, "--target-env", "vulkan1.0"] + layout + [out])
        if v.returncode != 0:
            self.errors.append("%s: -O output is not valid for vulkan1.0: %s" % (shader, v.stdout + v.stderr))
        added = subgroup_capabilities(read(out)) - subgroup_capabilities(read(src))
        if added:
            self.errors.append("%s: -O added subgroup capabilities %s for Vulkan 1.0"
                               % (shader, sorted(added)))
        if read(src) != read(out):
            self.changed.append(shader)
        self.notes.append("vulkan1.0: " + shader)


MODES = ["determinism", "idempotence", "vulkan10"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("modes", nargs="+", choices=MODES)
    ap.add_argument("--waveopt", required=True)
    ap.add_argument("--spirv-val", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    shaders = find_shaders(a.src)
    # WAVEOPT_SWEEP_STRIDE=N sweeps every Nth shader (in path order) only:
    # scripts/test-sanitize.sh sets it, where each waveopt run is several
    # times slower under ASan and the full sweep has already run unsanitized.
    stride = max(1, int(os.environ.get("WAVEOPT_SWEEP_STRIDE", "1") or "1"))
    shaders = shaders[::stride]
    failed = False
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        sweep = Sweep(a)
        usable = [(s, args) for s, args in zip(shaders, pool.map(sweep.usable, shaders)) if args]
        for mode in sorted(set(a.modes), key=MODES.index):
            sweep.errors, sweep.notes, sweep.changed = [], [], []
            list(pool.map(lambda sa: getattr(sweep, mode)(*sa), usable))
            failed |= report(mode, sweep, shaders, usable, stride)
    return 1 if failed else 0


def report(mode, sweep, shaders, usable, stride):
    print("%s: %d shaders, %d usable (the rest are negative tests waveopt refuses)"
          % (mode, len(shaders), len(usable)))
    for n in sorted(sweep.notes):
        if not n.startswith("vulkan1.0: "):
            print("note: " + n)
    if mode == "vulkan10":
        print("vulkan10: %d compute shaders checked; -O changed %d of them without "
              "subgroup operations (morton-remap only relabels invocations)"
              % (len(sweep.notes), len(sweep.changed)))
        if len(sweep.notes) < 10 // stride:
            sweep.errors.append("fewer than 10 shaders build for Vulkan 1.0")
    if len(usable) < MIN_SHADERS // stride:
        sweep.errors.append("only %d usable shaders (expected at least %d)"
                            % (len(usable), MIN_SHADERS // stride))
    for e in sorted(sweep.errors):
        print("FAIL: %s: %s" % (mode, e))
    return bool(sweep.errors)


if __name__ == "__main__":
    sys.exit(main())
