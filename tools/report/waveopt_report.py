#!/usr/bin/env python3
"""waveopt-report: one report over a set of shaders that joins each source
line, the remarks about it, the rewrite's cost per AMD target and the proof
that the rewrite computes what the original did.

  waveopt-report SHADER|DIR... [--batch LIST] [-o DIR] [-j N] [--flags=-O]

Writes DIR/index.html (the set), DIR/modules/*.html (a page per module),
DIR/report.json and DIR/report.sarif (the same content), all readable from
file:// with no network. Per module it runs `waveopt` (remarks as YAML, the
rewrite, its GLSL), `waverun isa --format=json` (RADV's statistics of the
original and of every version of the rewrite) and `waverun diff --auto`
(lavapipe at subgroup sizes 4, 8, 16; the wave simulator at 32 and 64 with
its executed counts). A module whose bytes, spec file, flags and tool
binaries are unchanged since the last run is taken from DIR/.cache.

Standard library only (docs/report.md).
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# The renderer: next to this file in the source tree, under share/ installed.
_HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_HERE, os.path.join(_HERE, "..", "share", "waveopt", "report")]
import report_html  # noqa: E402
import report_rewrites  # noqa: E402

SHADER_EXTS = (".comp", ".glsl", ".hlsl", ".spv", ".spvasm", ".frag")
# Searched for in directories: not .glsl, the usual name of included files.
DIR_EXTS = (".comp", ".hlsl", ".spv", ".spvasm", ".frag")
LAVAPIPE_SIZES = (4, 8, 16)
SIM_SIZES = (32, 64)
SCHEMA = 1
# RADV statistics shown per target, by the JSON key `waverun isa` gives.
ISA_KEYS = (("instructions", "Instructions"), ("vgprs", "VGPRs"),
            ("occupancy", "Subgroups per SIMD"), ("lds_bytes", "LDS size"),
            ("latency", "Latency"))
SIM_KEYS = ("instructions", "lane_instructions", "atomics", "barriers",
            "memory_instructions")
VERDICT_ORDER = ("error", "different", "timeout", "nondeterministic", "race",
                 "not covered", "equal")


# ---------------------------------------------------------------- inputs

def find_inputs(paths, batch):
    """The shader files named, found under directories, or listed in |batch|."""
    named = list(paths)
    if batch:
        base = os.path.dirname(batch)
        with open(batch) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    named.append(line if os.path.isabs(line) else os.path.join(base, line))
    out = []
    for p in named:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith(DIR_EXTS)]
        elif os.path.isfile(p):
            out.append(p)
        else:
            sys.exit("waveopt-report: error: no such file or directory: %s" % p)
    seen = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def find_bin(name, bin_dir):
    """|name| in --bin, $WAVEOPT_BIN_DIR, next to this script, <repo>/build/bin, PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [bin_dir, os.environ.get("WAVEOPT_BIN_DIR"), here,
            os.path.join(here, "..", "..", "build", "bin")]
    for d in dirs:
        if d and os.path.isfile(os.path.join(d, name)):
            return os.path.abspath(os.path.join(d, name))
    found = shutil.which(name)
    if not found:
        sys.exit("waveopt-report: error: %s not found: pass --bin DIR (the build's bin/)" % name)
    return found


def file_digest(path, h=None):
    h = h or hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h


def tools_digest(tools):
    """One hash of the binaries (path, size, modification time) and of the
    text of this script and report_rewrites.py (they collect what is cached):
    a rebuild or an edit invalidates the cache."""
    h = hashlib.sha256()
    for path in (tools["waveopt"], tools["waverun"]):
        st = os.stat(path)
        h.update(("%s %d %d\n" % (path, st.st_size, st.st_mtime_ns)).encode())
    for script in (__file__, report_rewrites.__file__):
        file_digest(os.path.realpath(script), h)
    return h.hexdigest()


def included(path, tools, settings):
    """The files a GLSL/HLSL source #includes (waveopt -MM), itself first."""
    if path.endswith((".spv", ".spvasm")):
        return [path]
    with open(path, "rb") as f:
        if b"#include" not in f.read():
            return [path]
    rc, out, _ = run([tools["waveopt"]] + shlex.split(settings["cflags"]) + ["-MM", path],
                     settings["timeout"])
    deps = out.replace("\\\n", " ").partition(": ")[2].split() if rc == 0 else []
    return [path] + [d for d in deps if d != path and os.path.isfile(d)]


def cache_key(path, tools, settings, tools_hash):
    """sha256 of the module's path (its remarks and page name it) and bytes,
    its includes, its .waverun spec, the settings and the tools."""
    h = hashlib.sha256(path.encode() + b"\0")
    for p in included(path, tools, settings):
        file_digest(p, h)
    spec = os.path.splitext(path)[0] + ".waverun"
    if os.path.isfile(spec):
        file_digest(spec, h)
    h.update(json.dumps(settings, sort_keys=True).encode())
    h.update(tools_hash.encode())
    return h.hexdigest()


# ---------------------------------------------------------------- tools

def run(cmd, timeout):
    """(exit code, stdout, stderr); a timeout is exit 124. The tool runs in
    a process group of its own, killed whole at the timeout: waverun's
    children (a driver, the simulator) must not outlive it."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        return 124, "", "no result after %d s" % timeout


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else "no message"


def unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == "'" and s[-1] == "'":
        return s[1:-1].replace("''", "'")
    return s


def parse_remarks_yaml(text):
    """waveopt's --remarks-output documents (lib/remarks.cpp) as dicts."""
    kinds = {"!Passed": "applied", "!Missed": "missed", "!Analysis": "analysis"}
    out = []
    for doc in text.split("\n--- ")[0:]:
        doc = doc[4:] if doc.startswith("--- ") else doc
        tag, _, body = doc.partition("\n")
        if tag.strip() not in kinds:
            continue
        r = {"kind": kinds[tag.strip()], "file": "", "line": 0, "column": 0}
        for line in body.splitlines():
            key, _, value = line.strip().lstrip("- ").partition(":")
            if key in ("Pass", "Name", "Function", "String", "Site"):
                r[{"String": "message"}.get(key, key.lower())] = unquote(value)
            elif key == "DebugLoc":
                m = re.match(r"\s*\{ File: (.*), Line: (\d+), Column: (\d+) \}", value)
                if m:
                    r["file"], r["line"], r["column"] = unquote(m.group(1)), int(m.group(2)), int(m.group(3))
        out.append(r)
    return out


def parse_versions(text):
    """--print-spec-constants: 'SpecId 1000 bool waveopt_amd = false: true on amd (p, q)'."""
    out = []
    for line in text.splitlines():
        m = re.match(r"SpecId (\d+) bool (\S+) = false: true on ([^(]+)\((.*)\)", line)
        if m:
            out.append({"spec_id": int(m.group(1)), "name": m.group(2),
                        "targets": [t.strip() for t in m.group(3).split(",")],
                        "passes": [p.strip() for p in m.group(4).split(",")]})
    return out


def remark_configs(message, versions):
    """The configurations a remark is about: the SpecIds its suffix names, else portable."""
    m = (re.search(r"\(in the versions? for [^()]*SpecIds? ([\d ,orand]+)\)", message) or
         re.match(r"SpecId (\d+) \(bool", message))  # versions: SpecializationVersion
    if not m:
        return ["portable"]
    ids = [int(x) for x in re.findall(r"\d+", m.group(1))]
    return [v["name"] for v in versions if v["spec_id"] in ids] or ["portable"]


# ---------------------------------------------------------------- one module

def optimize(path, tools, settings, work):
    """waveopt: remarks, versions, the rewrite and its GLSL. None when refused."""
    out_spv = os.path.join(work, "out.spv")
    yaml_path = os.path.join(work, "remarks.yaml")
    cmd = [tools["waveopt"]] + shlex.split(settings["cflags"]) + shlex.split(settings["flags"]) + [
        path, "-o", out_spv, "--remarks-output=" + yaml_path, "--print-spec-constants"]
    rc, out, err = run(cmd, settings["timeout"])
    result = {"command": " ".join(shlex.quote(c) for c in cmd), "diagnostics": err.strip()}
    if rc != 0:
        result["error"] = first_error(err)
        return result
    with open(yaml_path) as f:
        result["remarks"] = parse_remarks_yaml(f.read())
    result["versions"] = parse_versions(out)
    rc, _, err = run([tools["waveopt"], out_spv, "--emit=glsl", "-o",
                      os.path.join(work, "out.glsl")], settings["timeout"])
    if rc == 0:
        with open(os.path.join(work, "out.glsl")) as f:
            result["glsl"] = f.read()
    else:
        result["glsl_error"] = first_error(err)
    return result


def read_source(path, settings):
    """The source as given; for SPIR-V binaries, spirv-dis of the input (with
    the ids that remarks' sites name: --raw-id)."""
    if path.endswith(".spv"):
        rc, out, err = run(["spirv-dis", "--raw-id", path], settings["timeout"])
        return {"kind": "spirv-dis", "text": out if rc == 0 else "spirv-dis: " + first_error(err)}
    with open(path, errors="replace") as f:
        return {"kind": "source", "text": f.read()}


def original(path, tools, settings, work):
    """The input as waverun reads it: GLSL/HLSL compiled with --cflags (waverun has no -I)."""
    if path.endswith((".spv", ".spvasm")) or not settings["cflags"]:
        return path
    orig = os.path.join(work, "original.spv")
    rc, _, _ = run([tools["waveopt"]] + shlex.split(settings["cflags"]) + [path, "-o", orig],
                   settings["timeout"])
    return orig if rc == 0 else path


# The subgroup sizes a target fact narrows a version to (docs/targets.md):
# such a version is proven at those sizes only.
FACT_SIZES = {"waves-32-or-64": (32, 64)}


def target_facts(tools, timeout):
    """{target: [fact, ...]} as `waveopt --help` lists them."""
    _, out, err = run([tools["waveopt"], "--help"], timeout)
    facts, target = {}, None
    for line in (out + err).splitlines():
        named = re.match(r"  ([a-z]+)\s{2,}\S", line)
        if named:
            target = named.group(1)
        listed = re.match(r"\s+facts: (.*)", line)
        if listed and target:
            facts[target] = [f.strip() for f in listed.group(1).split(",")]
    return facts


def version_sizes(version, facts):
    """(sizes, why) a version may be run at: None when every size; else the
    sizes every one of its targets' narrowing facts allows, and the fact."""
    allowed, why = set(), []
    for target in version["targets"]:
        narrowing = [f for f in facts.get(target, []) if f in FACT_SIZES]
        if not narrowing:
            return None, ""
        for f in narrowing:
            allowed |= set(FACT_SIZES[f])
            why.append("%s (%s)" % (f, target))
    return allowed, ", ".join(why)


def configs_of(versions):
    """(name, [--const ...]) per configuration: portable (defaults) and each version."""
    return [("portable", [])] + [
        (v["name"], ["--const=%d=true" % v["spec_id"]]) for v in versions]


def isa_pairs(path, out_spv, config, consts, tools, settings, disasm=False):
    """`waverun isa` of |path| and |out_spv| for one configuration: a cost row
    per AMD family (with both raw JSON rows under "_pair" when |disasm|)."""
    cmd = [tools["waverun"], "isa", path, out_spv, "--amd=" + settings["amd"],
           "--format=json", "--jobs=1"] + (["--disasm"] if disasm else []) + consts
    rc, out, err = run(cmd, settings["timeout"])
    try:
        data = json.loads(out)
    except ValueError:
        return [{"config": config, "error": first_error(err)}]
    rows = []
    for before, after in zip(data[0::2], data[1::2]):
        row = {"config": config, "family": before["family"], "arch": before["arch"],
               "wave": before["wave"], "error": before["error"] or after["error"],
               "before": isa_numbers(before), "after": isa_numbers(after)}
        if disasm:
            row["_pair"] = (before, after)
        rows.append(row)
    return rows


def isa_cost(path, out_spv, configs, tools, settings):
    """Per AMD family and configuration: RADV's statistics of original and rewrite."""
    return [row for name, consts in configs
            for row in isa_pairs(path, out_spv, name, consts, tools, settings)]


def isa_numbers(row):
    stats = row.get("statistics") or {}
    return {key: stats.get(name) for key, name in ISA_KEYS}


def classify(text):
    """The verdict of one size's lines of `waverun diff`."""
    t = text.upper()
    for word, verdict in (("DIFFERENT", "different"), ("TIMEOUT", "timeout"),
                          ("NONDETERMINISTIC", "nondeterministic"), ("RACE:", "race"),
                          ("NOT COVERED", "not covered")):
        if word in t:
            return verdict
    if re.search(r"^equal:", text, re.M):
        return "equal"
    return "error"


def parse_diff(out, err, sizes):
    """Per size: verdict, its line, coverage, and the simulator's counters of a and b."""
    per = {s: {"lines": [], "counters": {"a": {}, "b": {}}} for s in sizes}
    current = None
    for line in (out + "\n" + err).splitlines():
        m = re.match(r"\[sg=(\d+)\] (.*)", line)
        if not m or int(m.group(1)) not in per:
            continue
        entry, body = per[int(m.group(1))], m.group(2)
        c = re.match(r"counters (a|b):", body)
        if c:
            current = c.group(1)
            continue
        kv = re.match(r"\s+(\w+) (\d+)$", body)
        if kv and current:
            entry["counters"][current][kv.group(1)] = int(kv.group(2))
            continue
        current = None
        entry["lines"].append(body)
    return {s: summarize_size(e, err) for s, e in per.items()}


def summarize_size(entry, err):
    text = "\n".join(entry["lines"])
    verdict = classify(text)
    cov = re.search(r"coverage: (.*)", text)
    detail = next((l for l in entry["lines"] if not l.startswith("coverage")),
                  first_error(err) if err.strip() else "no output")
    out = {"verdict": verdict, "detail": detail,
           "coverage": cov.group(1) if cov else "unknown"}
    if entry["counters"]["a"]:
        out["counters"] = {k: {"before": entry["counters"]["a"].get(k),
                               "after": entry["counters"]["b"].get(k)} for k in SIM_KEYS}
    return out


def prove(path, out_spv, configs, tools, settings, versions):
    """Per configuration and size: `waverun diff --auto` on lavapipe and the
    simulator; a version only at the sizes its targets' facts allow."""
    proofs, facts = [], target_facts(tools, settings["timeout"])
    narrowed = {v["name"]: version_sizes(v, facts) for v in versions}
    for name, consts in configs:
        sizes = {}
        allowed, why = narrowed.get(name, (None, ""))
        for sim, all_widths in ((False, LAVAPIPE_SIZES), (True, SIM_SIZES)):
            widths = [w for w in all_widths if allowed is None or w in allowed]
            for w in all_widths:
                if w not in widths:
                    sizes[str(w)] = {"verdict": "not run", "where": "lavapipe" if not sim else "simulator",
                                     "coverage": "-", "detail": "the version assumes %s: "
                                     "subgroups of this size are outside it (docs/targets.md)" % why}
            if not widths:
                continue
            cmd = [tools["waverun"], "diff", "--auto", path, out_spv, "--jobs=1",
                   "--timeout=%d" % settings["timeout"],
                   "--widths=" + ",".join(map(str, widths))] + consts
            cmd += ["--sim", "--counters"] if sim else []
            rc, out, err = run(cmd, settings["timeout"] * len(widths) + 30)
            if rc == 124:
                err = "TIMEOUT: " + err
            for size, r in parse_diff(out, err, widths).items():
                r["where"] = "simulator" if sim else "lavapipe"
                if sim and r["verdict"] == "error" and "runs compute shaders only" in r["detail"]:
                    # A fragment shader: proven on lavapipe only, no error of the rewrite.
                    r["verdict"] = "not run"
                sizes[str(size)] = r
        proofs.append({"config": name, "sizes": sizes})
    return proofs


class RewriteContext:
    """What report_rewrites needs of one module: its paths, the tools and
    this script's runners and parsers."""

    def isa_pairs(self, out_spv, config, consts):
        return isa_pairs(self.original, out_spv, config, consts, self.tools, self.settings,
                         disasm=True)

    def __init__(self, path, orig, tools, settings, work):
        self.path, self.original, self.tools, self.settings, self.work = (
            path, orig, tools, settings, work)
        self.run, self.first_error = run, first_error
        self.parse_remarks, self.parse_versions = parse_remarks_yaml, parse_versions


def analyze(path, tools, settings):
    """Everything the report says about one module, as a JSON-able dict."""
    t0 = time.time()
    m = {"input": path, "source": read_source(path, settings)}
    with tempfile.TemporaryDirectory(prefix="waveopt-report.") as work:
        opt = optimize(path, tools, settings, work)
        m.update(opt)
        for r in m.get("remarks", []):
            r["configs"] = remark_configs(r.get("message", ""), m.get("versions", []))
        applied = [r for r in opt.get("remarks", []) if r["kind"] == "applied"]
        m["status"] = "refused" if "error" in opt else ("changed" if applied else "unchanged")
        if m["status"] == "changed":
            out_spv = os.path.join(work, "out.spv")
            orig = original(path, tools, settings, work)
            configs = configs_of(opt["versions"])
            m["cost"] = [] if settings["no_isa"] else isa_cost(orig, out_spv, configs, tools, settings)
            m["rewrites"] = ([] if settings["no_isa"] else report_rewrites.rewrite_costs(
                RewriteContext(path, orig, tools, settings, work), m["remarks"]))
            m["proof"] = ([] if settings["no_proof"] else
                          prove(orig, out_spv, configs, tools, settings, opt["versions"]))
        # The temporary directory's name would make the report differ run to run.
        m = json.loads(json.dumps(m).replace(json.dumps(work + "/")[1:-1], ""))
    m["seconds"] = round(time.time() - t0, 2)
    return m


# ---------------------------------------------------------------- the set

class Progress:
    """One line per module on a log; rewritten in place on a terminal."""

    def __init__(self, total):
        self.total, self.done, self.tty = total, 0, sys.stderr.isatty()

    def step(self, path, status):
        self.done += 1
        line = "waveopt-report: [%d/%d] %s: %s" % (self.done, self.total, path, status)
        if self.tty:
            sys.stderr.write("\r\033[K" + line + ("\n" if self.done == self.total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def analyze_all(inputs, tools, settings, cache_dir, jobs):
    """Every module's result in input order; cached ones are not redone."""
    os.makedirs(cache_dir, exist_ok=True)
    tools_hash = tools_digest(tools)
    progress = Progress(len(inputs))
    results, todo = [None] * len(inputs), []
    for i, path in enumerate(inputs):
        key = cache_key(path, tools, settings, tools_hash)
        cached = os.path.join(cache_dir, key + ".json")
        if os.path.isfile(cached):
            with open(cached) as f:
                results[i] = json.load(f)
            results[i]["reused"] = True
            progress.step(path, results[i]["status"] + " (reused)")
        else:
            todo.append((i, path, cached))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(analyze, path, tools, settings): (i, path, cached)
                   for i, path, cached in todo}
        for fut in concurrent.futures.as_completed(futures):
            i, path, cached = futures[fut]
            m = fut.result()
            with open(cached + ".tmp", "w") as f:
                json.dump(m, f, sort_keys=True)
            os.replace(cached + ".tmp", cached)
            m["reused"] = False
            results[i] = m
            progress.step(path, "%s (%.1f s)" % (m["status"], m["seconds"]))
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(prog="waveopt-report", description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", help="shaders, or directories searched for %s" % " ".join(SHADER_EXTS))
    ap.add_argument("--batch", help="a file listing shaders, one a line (relative to the file)")
    ap.add_argument("-o", "--out", default="waveopt-report", help="output directory (default ./waveopt-report)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="modules at a time")
    ap.add_argument("--flags", default="-O", help="waveopt's pass flags (default -O)")
    ap.add_argument("--cflags", default="", help="front-end flags for GLSL/HLSL, e.g. '-I include -D X=1'")
    ap.add_argument("--amd", default="navi21,gfx1100", help="RADV families for the cost (default navi21,gfx1100)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per tool run (default 120)")
    ap.add_argument("--no-proof", action="store_true", help="skip waverun diff")
    ap.add_argument("--no-isa", action="store_true", help="skip waverun isa")
    ap.add_argument("--cache", help="result cache (default OUT/.cache)")
    ap.add_argument("--bin", help="directory of waveopt and waverun (default: the build's bin/)")
    args = ap.parse_args(argv)
    inputs = find_inputs(args.inputs, args.batch)
    if not inputs:
        ap.error("no shaders given (files, directories or --batch LIST)")
    tools = {"waveopt": find_bin("waveopt", args.bin), "waverun": find_bin("waverun", args.bin)}
    settings = {"flags": args.flags, "cflags": args.cflags, "amd": args.amd, "timeout": args.timeout,
                "no_proof": args.no_proof, "no_isa": args.no_isa, "schema": SCHEMA}
    t0 = time.time()
    modules = analyze_all(inputs, tools, settings, args.cache or os.path.join(args.out, ".cache"), args.jobs)
    report = report_html.build_report(modules, settings)
    report["seconds"] = round(time.time() - t0, 2)
    index = report_html.write_all(report, args.out)
    s = report["summary"]
    print("waveopt-report: %d modules (%d changed, %d unchanged, %d refused; %d reused) in %.1f s: %s"
          % (s["read"], s["changed"], s["unchanged"], s["refused"], s["reused"], report["seconds"], index))
    return 0


if __name__ == "__main__":
    sys.exit(main())
