"""Each rewrite alone: for every applied remark of a waveopt pass, the module
with only that rewrite (`waveopt --only-rewrite=<pass>@<site>`), its RADV
statistics against the original per AMD target and configuration, and the
ISA lines that differ (`waverun isa --disasm`). waveopt_report.py calls
rewrite_costs(); report_html.py renders what it returns."""
import difflib
import os
import re
import shlex

# The passes whose applied remarks name one rewrite (not `versions`).
PASSES = ("batch-uniform-loads", "prereduce-atomics", "morton-remap", "quad-exchange",
          "workgroup-reduce")
# At most this many lines of one ISA diff are kept (the rest is counted).
MAX_DIFF_LINES = 400


def selector(r):
    """--only-rewrite's <where> for an applied remark: the input's id its
    site names (a binary without lines), else file:line; None: no site."""
    found = re.match(r"(?:near )?(?:%(\d+) \(|Op\w+ \d+ after %(\d+))", r.get("site") or "")
    if found:
        return "%" + (found.group(1) or found.group(2))
    if r.get("line"):
        return "%s:%d" % (r["file"], r["line"]) if r.get("file") else str(r["line"])
    return None


def rewrite_key(r):
    """The --only-rewrite value of an applied remark of a waveopt pass, or None."""
    if r.get("kind") != "applied" or r.get("pass") not in PASSES:
        return None
    where = selector(r)
    return "%s@%s" % (r["pass"], where) if where else None


def isa_text(row):
    """ACO's disassembly of one `waverun isa --disasm` row, one instruction a
    line, without the encoding comments (they differ with every offset)."""
    out = []
    for line in (row.get("isa") or "").splitlines():
        line = re.sub(r"\s*;\s*[0-9a-f]{8}( [0-9a-f]{8})*\s*$", "", line).rstrip()
        if line.strip():
            out.append(line.strip())
    return out


def isa_diff(before, after):
    """The changed ISA lines, as a unified diff with 2 lines of context;
    (text, lines added, lines removed)."""
    a, b = isa_text(before), isa_text(after)
    lines = list(difflib.unified_diff(a, b, "original", "this rewrite alone", n=2, lineterm=""))
    added = sum(1 for l in lines if l.startswith("+") and not l.startswith("+++"))
    removed = sum(1 for l in lines if l.startswith("-") and not l.startswith("---"))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + ["... %d more lines" % (len(lines) - MAX_DIFF_LINES)]
    return "\n".join(lines), added, removed


def only_rewrite(ctx, key, out_spv):
    """Runs waveopt with only |key|'s rewrite: (versions, applied names, error)."""
    yaml_path = out_spv + ".yaml"
    cmd = ([ctx.tools["waveopt"]] + shlex.split(ctx.settings["cflags"]) +
           shlex.split(ctx.settings["flags"]) +
           [ctx.path, "-o", out_spv, "--only-rewrite=" + key, "--remarks-output=" + yaml_path,
            "--print-spec-constants"])
    rc, out, err = ctx.run(cmd, ctx.settings["timeout"])
    if rc != 0:
        return [], [], ctx.first_error(err)
    with open(yaml_path) as f:
        remarks = ctx.parse_remarks(f.read())
    applied = [r["name"] for r in remarks if rewrite_key(r) == key]
    return ctx.parse_versions(out), applied, None


def isa_rows(ctx, out_spv, config, consts):
    """The cost rows of |out_spv| against the original, each with its ISA diff."""
    rows = ctx.isa_pairs(out_spv, config, consts)
    for row in rows:
        before, after = row.pop("_pair", (None, None))
        if not row.get("error") and before is not None:
            row["isa_diff"], row["isa_added"], row["isa_removed"] = isa_diff(before, after)
    return rows


def one_rewrite(ctx, key, configs, index):
    """The entry for one --only-rewrite key: its cost rows per configuration."""
    out_spv = os.path.join(ctx.work, "only%03d.spv" % index)
    entry = {"key": key, "configs": configs, "cost": []}
    versions, applied, error = only_rewrite(ctx, key, out_spv)
    if error:
        entry["error"] = "waveopt --only-rewrite=%s: %s" % (key, error)
        return entry
    if not applied:
        entry["error"] = ("waveopt --only-rewrite=%s applied nothing: this rewrite happens only "
                          "together with others (their cost is the configuration's)" % key)
        return entry
    entry["applied"] = applied
    spec = {v["name"]: v["spec_id"] for v in versions}
    for config in configs:
        # A configuration the single rewrite has no version for runs its portable code.
        consts = ["--const=%d=true" % spec[config]] if config in spec else []
        entry["cost"] += isa_rows(ctx, out_spv, config, consts)
    return entry


def rewrite_costs(ctx, remarks):
    """One entry per distinct rewrite key of |remarks| (applied remarks carry
    `configs`), in the order of first appearance."""
    keys, configs = [], {}
    for r in remarks:
        key = rewrite_key(r)
        if key is None:
            continue
        if key not in configs:
            keys.append(key)
            configs[key] = []
        for c in r.get("configs", ["portable"]):
            if c not in configs[key]:
                configs[key].append(c)
    return [one_rewrite(ctx, key, configs[key], i) for i, key in enumerate(keys)]
