"""waveopt-report's output: the set's summary, and the HTML, JSON and SARIF
files written from it (waveopt_report.py collects the modules)."""
import collections
import hashlib
import html
import json
import os
import re

from report_rewrites import rewrite_key

# A page is rewritten when this file changes (see write_pages).
with open(__file__, "rb") as _self:
    PAGE_VERSION = hashlib.sha256(_self.read()).hexdigest()
VERDICT_ORDER = ("error", "different", "timeout", "nondeterministic", "race",
                 "not covered", "equal")
COST_LABELS = (("instructions", "instructions"), ("vgprs", "VGPRs"),
               ("occupancy", "occupancy (waves/SIMD)"), ("lds_bytes", "LDS bytes"),
               ("latency", "ACO latency"))
SIM_LABELS = (("instructions", "instructions"), ("lane_instructions", "lane instructions"),
              ("atomics", "atomics"), ("barriers", "barriers"),
              ("memory_instructions", "memory instructions"))

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#eef;cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}
.better{color:#070}.worse{color:#b00}
.v-equal{color:#070;font-weight:bold}.v-race,.v-not-covered,.v-nondeterministic{color:#a60;font-weight:bold}
.v-different,.v-error,.v-timeout{color:#b00;font-weight:bold}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:1em}
pre,.src{font:12px/1.35 ui-monospace,monospace}
.src{border:1px solid #ccc;overflow-x:auto}.ln{display:flex;white-space:pre}
.ln .no{color:#999;min-width:3.5em;text-align:right;padding-right:.8em;user-select:none}
.remark{margin:2px 0 4px 4.3em;padding:3px 6px;border-left:4px solid #999;white-space:normal;font:13px system-ui,sans-serif}
.remark.applied{border-color:#070;background:#efe}.remark.missed{border-color:#b60;background:#fff6e6}
.remark.analysis{border-color:#88a;background:#f4f4fa}
.remark .cost,.remark .verdict-line{display:block;margin-top:2px}
.cols>div{min-width:0}pre{overflow-x:auto;background:#fafafa;border:1px solid #ccc;padding:4px}
.filters label{margin-right:1em}.hidden{display:none}
"""

SCRIPT = """
function cell(r,i){var c=r.cells[i];return c.getAttribute('data-sort')||c.textContent}
document.querySelectorAll('table.sortable th').forEach(function(th,i){
 th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],rows=[].slice.call(b.rows),
 d=th.getAttribute('data-dir')==='asc'?-1:1;th.setAttribute('data-dir',d>0?'asc':'desc');
 rows.sort(function(x,y){var a=cell(x,i),c=cell(y,i),na=parseFloat(a),nc=parseFloat(c);
 if(!isNaN(na)&&!isNaN(nc))return d*(na-nc);return d*a.localeCompare(c)});rows.forEach(function(r){b.appendChild(r)})})});
function applyFilters(){var f={};document.querySelectorAll('.filters select').forEach(function(s){f[s.name]=s.value});
 document.querySelectorAll('table.filterable tbody tr').forEach(function(r){var ok=true;
 for(var k in f){if(f[k]&&(' '+r.getAttribute('data-'+k)+' ').indexOf(' '+f[k]+' ')<0)ok=false}
 r.classList.toggle('hidden',!ok)})}
document.querySelectorAll('.filters').forEach(function(e){e.classList.remove('hidden')});
document.querySelectorAll('.filters select').forEach(function(s){s.addEventListener('change',applyFilters)});
document.body.setAttribute('data-js','ready');
"""


def esc(s):
    return html.escape(str(s), quote=True)


def worst(verdicts):
    verdicts = list(verdicts)
    for v in VERDICT_ORDER:
        if v in verdicts:
            return v
    return None


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-")


# ---------------------------------------------------------------- the data

def config_verdict(m, config):
    for p in m.get("proof", []):
        if p["config"] == config:
            return worst(s["verdict"] for s in p["sizes"].values())
    return None


def module_verdict(m):
    return worst(filter(None, (config_verdict(m, p["config"]) for p in m.get("proof", []))))


def annotate(m, index):
    """Adds the page name, each applied remark's cost rows and verdict."""
    m["page"] = "modules/%03d-%s.html" % (index, slug(os.path.basename(m["input"])))
    m["verdict"] = module_verdict(m)
    for r in m.get("remarks", []):
        if r["kind"] != "applied":
            continue
        r["cost"] = [c for c in m.get("cost", []) if c["config"] in r["configs"]]
        verdicts = [config_verdict(m, c) for c in r["configs"]]
        r["verdict"] = worst(v for v in verdicts if v)
        key = rewrite_key(r)
        for i, rw in enumerate(m.get("rewrites", [])):
            if rw["key"] == key:
                r["rewrite"] = i
                r["rewrite_cost"] = [c for c in rw["cost"] if c["config"] in r["configs"]]
                if rw.get("error"):
                    r["rewrite_error"] = rw["error"]


def totals(modules):
    """Before/after sums over the changed modules: per AMD target and config, per simulator size."""
    isa = collections.OrderedDict()
    sim = collections.OrderedDict()
    for m in modules:
        for c in m.get("cost", []):
            if c.get("error") or "family" not in c:
                continue
            key = "%s wave%s, %s" % (c["family"], c["wave"], c["config"])
            add_numbers(isa.setdefault(key, {"modules": 0, "before": {}, "after": {}}), c)
        for p in m.get("proof", []):
            for size, s in sorted(p["sizes"].items(), key=lambda kv: int(kv[0])):
                if "counters" not in s:
                    continue
                key = "size %s, %s" % (size, p["config"])
                t = sim.setdefault(key, {"modules": 0, "before": {}, "after": {}})
                add_numbers(t, {k: v["before"] for k, v in s["counters"].items()},
                            {k: v["after"] for k, v in s["counters"].items()})
    return {"amd": isa, "simulator": sim}


def add_numbers(t, before, after=None):
    if after is None:
        before, after = before["before"], before["after"]
    t["modules"] += 1
    for side, nums in (("before", before), ("after", after)):
        for k, v in nums.items():
            if isinstance(v, (int, float)):
                t[side][k] = t[side].get(k, 0) + v


def build_report(modules, settings):
    for i, m in enumerate(modules):
        annotate(m, i)
    status = collections.Counter(m["status"] for m in modules)
    passes = collections.OrderedDict()
    for m in modules:
        for r in m.get("remarks", []):
            if r["kind"] == "analysis":
                continue
            p = passes.setdefault(r["pass"], {"applied": 0, "missed": collections.Counter()})
            if r["kind"] == "applied":
                p["applied"] += 1
            else:
                p["missed"][r["name"]] += 1
    verdicts = collections.Counter(m["verdict"] for m in modules if m["verdict"])
    summary = {"read": len(modules), "changed": status["changed"], "unchanged": status["unchanged"],
               "refused": status["refused"], "reused": sum(1 for m in modules if m.get("reused")),
               "verdicts": dict(verdicts)}
    return {"tool": "waveopt-report", "settings": settings, "summary": summary,
            "passes": {k: {"applied": v["applied"], "missed": dict(sorted(v["missed"].items()))}
                       for k, v in sorted(passes.items())},
            "totals": totals(modules), "modules": modules}


# ---------------------------------------------------------------- JSON, SARIF

def clean(report):
    """The report without what changes from run to run (times, cache hits)."""
    out = dict(report)
    out.pop("seconds", None)
    out["summary"] = {k: v for k, v in report["summary"].items() if k != "reused"}
    out["modules"] = [{k: v for k, v in m.items() if k not in ("seconds", "reused")}
                      for m in report["modules"]]
    return out


def sarif(report):
    rules, results = {}, []
    for m in report["modules"]:
        for r in m.get("remarks", []):
            if r["kind"] == "analysis":
                continue
            rule = "%s/%s" % (r["pass"], r["name"])
            rules.setdefault(rule, {"id": rule, "name": r["name"],
                                    "shortDescription": {"text": "%s: %s" % (r["pass"], r["name"])}})
            loc = {"physicalLocation": {"artifactLocation": {"uri": r["file"] or m["input"]}}}
            if r["line"]:
                loc["physicalLocation"]["region"] = {"startLine": r["line"]}
            if r.get("function"):
                loc["logicalLocations"] = [{"name": r["function"], "kind": "function"}]
            props = {"kind": r["kind"], "configs": r["configs"]}
            if r.get("site"):
                props["site"] = r["site"]
            if r["kind"] == "applied":
                props.update({"verdict": r.get("verdict"), "cost": r.get("cost", [])})
                if "rewrite" in r:  # its rewrite alone, without the ISA text
                    props["rewrite_cost"] = [{k: v for k, v in c.items() if k != "isa_diff"}
                                             for c in r.get("rewrite_cost", [])]
                    if r.get("rewrite_error"):
                        props["rewrite_error"] = r["rewrite_error"]
            results.append({"ruleId": rule, "level": "note" if r["kind"] == "applied" else "warning",
                            "kind": "informational" if r["kind"] == "applied" else "review",
                            "message": {"text": r["message"]}, "locations": [loc], "properties": props})
    return {"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "runs": [{"tool": {"driver": {"name": "waveopt", "informationUri": "docs/report.md",
                                          "rules": [rules[k] for k in sorted(rules)]}},
                      "results": results}]}


def json_text(data):
    """|data| as JSON, each module on a line of its own: json's C encoder
    (indent= would take the pure-Python one, seconds on a large set)."""
    head = {k: v for k, v in data.items() if k != "modules"}
    modules = ",\n".join(json.dumps(m, sort_keys=True) for m in data.get("modules", []))
    return json.dumps(head, sort_keys=True)[:-1] + ',\n"modules": [\n' + modules + "\n]}\n"


def write_pages(data, out_dir):
    """The module pages; one whose module and settings are those it was
    written from (a digest in OUT/.pages.json) is left as it is."""
    stamps_path = os.path.join(out_dir, ".pages.json")
    try:
        with open(stamps_path) as f:
            old = json.load(f)
    except (OSError, ValueError):
        old = {}
    stamps = {}
    settings = json.dumps(data["settings"], sort_keys=True)
    for m in data["modules"]:
        text = json.dumps(m, sort_keys=True) + settings + PAGE_VERSION
        stamps[m["page"]] = hashlib.sha256(text.encode()).hexdigest()
        path = os.path.join(out_dir, m["page"])
        if old.get(m["page"]) == stamps[m["page"]] and os.path.isfile(path):
            continue
        with open(path, "w") as f:
            f.write(module_page(m, data["settings"]))
    with open(stamps_path, "w") as f:
        json.dump(stamps, f, sort_keys=True)


def write_all(report, out_dir):
    os.makedirs(os.path.join(out_dir, "modules"), exist_ok=True)
    data = clean(report)
    with open(os.path.join(out_dir, "report.json"), "w") as f:
        f.write(json_text(data))
    with open(os.path.join(out_dir, "report.sarif"), "w") as f:
        json.dump(sarif(data), f, sort_keys=True)
    write_pages(data, out_dir)
    index = os.path.join(out_dir, "index.html")
    with open(index, "w") as f:
        f.write(index_page(data))
    return index


# ---------------------------------------------------------------- HTML pieces

def page(title, body, root=""):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>%s</title><style>%s</style></head><body>\n%s\n<script>%s</script></body></html>\n"
            % (esc(title), STYLE, body, SCRIPT))


def verdict_html(v):
    if not v:
        return "<span class=\"verdict\">not run</span>"
    return "<span class=\"verdict v-%s\">%s</span>" % (slug(v), esc(v))


def delta(before, after, higher_is_better=False):
    if before is None or after is None:
        return "<td class=\"n\">-</td>"
    cls = "" if before == after else ("better" if (after > before) == higher_is_better else "worse")
    return "<td class=\"n %s\" data-sort=\"%s\">%s → %s</td>" % (cls, after - before, before, after)


def table(headers, rows, cls="sortable", row_attrs=None):
    out = ["<table class=\"%s\"><thead><tr>" % cls]
    out += ["<th>%s</th>" % esc(h) for h in headers]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        attrs = row_attrs[i] if row_attrs else ""
        out.append("<tr%s>%s</tr>" % (attrs, "".join(
            c if c.startswith("<td") else "<td>%s</td>" % c for c in row)))
    out.append("</tbody></table>")
    return "".join(out)


def totals_tables(t):
    amd_rows = [[esc(k), "<td class=\"n\">%d</td>" % v["modules"]] +
                [delta(v["before"].get(key), v["after"].get(key), key == "occupancy")
                 for key, _ in COST_LABELS] for k, v in t["amd"].items()]
    sim_rows = [[esc(k), "<td class=\"n\">%d</td>" % v["modules"]] +
                [delta(v["before"].get(key), v["after"].get(key)) for key, _ in SIM_LABELS]
                for k, v in t["simulator"].items()]
    return ("<h2>Cost of the changed modules, before → after</h2>"
            "<p>Per AMD target (RADV/ACO on null hardware, <code>waverun isa</code>), for each "
            "configuration of the rewrite: <em>portable</em> is the module as shipped; a version "
            "is that version's SpecId set true.</p>" +
            (table(["target, configuration", "modules"] + [l for _, l in COST_LABELS], amd_rows)
             if amd_rows else "<p>No AMD cost measured.</p>") +
            "<p>Executed per dispatch on the wave simulator (the inputs <code>waverun diff --auto</code> chose):</p>" +
            (table(["size, configuration", "modules"] + [l for _, l in SIM_LABELS], sim_rows)
             if sim_rows else "<p>No simulator counts.</p>"))


# ---------------------------------------------------------------- index.html

def filter_select(name, label, values):
    opts = "".join("<option value=\"%s\">%s</option>" % (esc(slug(v)), esc(v)) for v in sorted(values))
    return "<label>%s <select name=\"%s\"><option value=\"\">any</option>%s</select></label>" % (
        esc(label), esc(name), opts)


def amd_config(m):
    """What an AMD GPU runs: the version for amd when there is one, else the portable module."""
    return next((v["name"] for v in m.get("versions", []) if "amd" in v["targets"]), "portable")


def module_row(m):
    remarks = [r for r in m.get("remarks", []) if r["kind"] != "analysis"]
    passes = sorted({r["pass"] for r in remarks if r["kind"] == "applied"})
    reasons = sorted({r["name"] for r in remarks if r["kind"] == "missed"})
    config = amd_config(m)
    first = next((c for c in m.get("cost", []) if "family" in c and not c.get("error")
                  and c["config"] == config), None)
    b, a = (first["before"], first["after"]) if first else ({}, {})
    row = ["<a href=\"%s\">%s</a>" % (esc(m["page"]), esc(m["input"])), esc(m["status"]),
           "<td class=\"n\">%d</td>" % sum(r["kind"] == "applied" for r in remarks),
           "<td class=\"n\">%d</td>" % sum(r["kind"] == "missed" for r in remarks),
           esc(", ".join(passes)), verdict_html(m.get("verdict")) if m["status"] == "changed" else "",
           delta(b.get("instructions"), a.get("instructions")), delta(b.get("vgprs"), a.get("vgprs")),
           delta(b.get("occupancy"), a.get("occupancy"), True)]
    attrs = " data-pass=\"%s\" data-reason=\"%s\" data-verdict=\"%s\" data-status=\"%s\"" % (
        esc(" ".join(map(slug, passes))), esc(" ".join(map(slug, reasons))),
        esc(slug(m.get("verdict") or "")), esc(m["status"]))
    return row, attrs


def index_page(report):
    s, mods = report["summary"], report["modules"]
    body = ["<h1>waveopt report: %d modules</h1>" % s["read"],
            "<p>waveopt <code>%s</code>. Read %d, changed %d, unchanged %d, refused %d. "
            "Proof (<code>waverun diff --auto</code>, subgroup sizes 4, 8, 16 on lavapipe and 32, 64 "
            "on the simulator; a module's worst): %s.</p>" % (
                esc(report["settings"]["flags"]), s["read"], s["changed"], s["unchanged"], s["refused"],
                ", ".join("%s %d" % (verdict_html(v), n) for v, n in sorted(s["verdicts"].items()))
                or "none run")]
    prows = [[esc(p), "<td class=\"n\">%d</td>" % v["applied"],
              "<td class=\"n\">%d</td>" % sum(v["missed"].values()),
              esc(", ".join("%s %d" % kv for kv in v["missed"].items()))]
             for p, v in report["passes"].items()]
    body += ["<h2>Passes</h2>", table(["pass", "applied", "missed", "missed by reason"], prows)]
    body.append(totals_tables(report["totals"]))
    rows, attrs = zip(*[module_row(m) for m in mods]) if mods else ((), ())
    passes = {p for m in mods for r in m.get("remarks", []) if r["kind"] == "applied" for p in [r["pass"]]}
    reasons = {r["name"] for m in mods for r in m.get("remarks", []) if r["kind"] == "missed"}
    verdicts = {m["verdict"] for m in mods if m.get("verdict")}
    first_target = next((c for m in mods for c in m.get("cost", []) if "family" in c), None)
    tname = "%s wave%s" % (first_target["family"], first_target["wave"]) if first_target else "AMD"
    body += ["<h2>Modules</h2>",
             "<p class=\"filters hidden\">%s%s%s%s</p>" % (
                 filter_select("pass", "applied pass", passes), filter_select("reason", "missed reason", reasons),
                 filter_select("verdict", "verdict", verdicts),
                 filter_select("status", "status", {"changed", "unchanged", "refused"})),
             "<p>Click a column to sort. Cost columns: %s, the configuration an AMD GPU runs "
             "(the version for amd where there is one).</p>" % esc(tname),
             table(["module", "status", "applied", "missed", "passes applied", "verdict",
                    "instructions", "VGPRs", "occupancy"], list(rows), "sortable filterable", list(attrs)),
             "<p>Also: <a href=\"report.json\">report.json</a>, <a href=\"report.sarif\">report.sarif</a>.</p>"]
    return page("waveopt report", "\n".join(body))


# ---------------------------------------------------------------- module pages

def cost_line(c):
    if c.get("error"):
        return "%s: %s" % (c.get("family", "AMD"), c["error"])
    b, a = c["before"], c["after"]
    parts = ["%s %s→%s" % (label.split(" (")[0], b.get(k), a.get(k)) for k, label in COST_LABELS]
    return "%s wave%s (%s): %s" % (c["family"], c["wave"], c["config"], ", ".join(parts))


def remark_html(r, m):
    cls = r["kind"]
    head = "<b>%s</b> %s: <b>%s</b>%s%s" % (esc(r["kind"]), esc(r["pass"]), esc(r["name"]),
                                          " in " + esc(r["function"]) if r.get("function") else "",
                                          " at " + esc(r["site"]) if r.get("site") else "")
    extra = ""
    if "verdict" in r:
        costs = r.get("cost") or []
        cost = ("; ".join(esc(cost_line(c)) for c in costs) if costs else "not measured")
        links = " ".join("<a href=\"#proof-%s\">proof</a> <a href=\"#cost-%s\">cost</a>" % (slug(c), slug(c))
                         for c in r["configs"])
        extra = ("<span class=\"cost\">cost of its configuration: %s</span>%s"
                 "<span class=\"verdict-line\">proof: %s %s</span>"
                 % (cost, alone_html(r), verdict_html(r["verdict"]), links))
    return "<div class=\"remark %s\" data-pass=\"%s\">%s: %s%s</div>" % (
        cls, esc(r["pass"]), head, esc(r["message"]), extra)


def alone_html(r):
    """An applied remark's line on the cost of its rewrite alone, linked to its ISA diff."""
    if "rewrite" not in r:
        return ""
    anchor = "rewrite-%d" % r["rewrite"]
    if r.get("rewrite_error"):
        text = esc(r["rewrite_error"])
    else:
        text = "; ".join(esc(cost_line(c)) for c in r["rewrite_cost"]) or "not measured"
    return ("<span class=\"cost alone\">this rewrite alone: %s <a href=\"#%s\">ISA</a></span>"
            % (text, anchor))


def same_file(remark_file, m):
    if not remark_file:
        return False
    return (os.path.normpath(remark_file) == os.path.normpath(m["input"]) or
            os.path.basename(remark_file) == os.path.basename(m["input"]))


def site_line(site, defined):
    """The line of spirv-dis --raw-id that a remark's site names ("%45 (OpLoad)",
    "OpStore 2 after %45": two lines below %45's), or 0."""
    found = re.match(r"(?:near )?(?:%(\d+) \(|Op\w+ (\d+) after %(\d+))", site or "")
    if not found:
        return 0
    ident, offset = (found.group(1), 0) if found.group(1) else (found.group(3), int(found.group(2)))
    return defined[ident] + offset if ident in defined else 0


def source_html(m):
    """The source with each remark under its line; remarks without one first.
    A binary's remarks go under the disassembly line their site names."""
    by_line = collections.defaultdict(list)
    loose = []
    lines = m["source"]["text"].splitlines()
    defined = {}
    if m["source"].get("kind") == "spirv-dis":
        for no, text in enumerate(lines, 1):
            found = re.match(r"\s*%(\d+) = ", text)
            if found:
                defined[found.group(1)] = no
    for r in m.get("remarks", []):
        if r["kind"] == "analysis":
            continue
        at = site_line(r.get("site"), defined)
        if r["line"] and same_file(r["file"], m):
            by_line[r["line"]].append(r)
        elif at:
            by_line[at].append(r)
        else:
            loose.append(r)
    out = []
    if loose:
        out.append("<p>Remarks with no line in this file (function, and the remark's own words):</p>")
        out += [remark_html(r, m) for r in loose]
    out.append("<div class=\"src\">")
    for no, text in enumerate(lines, 1):
        out.append("<div class=\"ln\" id=\"L%d\"><span class=\"no\">%d</span>%s</div>" % (no, no, esc(text)))
        out += [remark_html(r, m) for r in by_line.pop(no, [])]
    for no in sorted(by_line):
        out += [remark_html(r, m) for r in by_line[no]]
    out.append("</div>")
    return "\n".join(out)


def cost_section(m):
    rows, seen = [], set()
    for c in m.get("cost", []):
        anchor = "cost-" + slug(c["config"])
        label = esc(c["config"]) if anchor in seen else "<span id=\"%s\">%s</span>" % (anchor, esc(c["config"]))
        seen.add(anchor)
        if c.get("error"):
            rows.append([label, esc(c.get("family", "")), "", "<td colspan=\"5\">%s</td>" % esc(c["error"])])
            continue
        rows.append([label, esc(c["family"]), esc(c["wave"])] +
                    [delta(c["before"].get(k), c["after"].get(k), k == "occupancy") for k, _ in COST_LABELS])
    if not rows:
        return "<h2>Cost per target</h2><p>Not measured.</p>"
    return ("<h2>Cost per target</h2><p>RADV/ACO statistics of the original → the rewrite "
            "(<code>waverun isa</code>), per configuration of the rewrite.</p>" +
            table(["configuration", "family", "wave"] + [l for _, l in COST_LABELS], rows))


def rewrites_section(m):
    """Each rewrite alone: its cost rows and, per row, the ISA lines that differ."""
    if not m.get("rewrites"):
        return ""
    out = ["<h2>Each rewrite alone</h2><p>The module with only this rewrite "
           "(<code>waveopt --only-rewrite=</code>) against the original: RADV/ACO statistics "
           "and the ACO disassembly lines that differ (registers and scheduling shift too: "
           "a changed line is not always the rewrite's own).</p>"]
    for i, rw in enumerate(m["rewrites"]):
        out.append("<h3 id=\"rewrite-%d\"><code>--only-rewrite=%s</code></h3>" % (i, esc(rw["key"])))
        if rw.get("error"):
            out.append("<p>%s</p>" % esc(rw["error"]))
            continue
        rows, diffs = [], []
        for c in rw["cost"]:
            if c.get("error"):
                rows.append([esc(c["config"]), esc(c.get("family", "")), "",
                             "<td colspan=\"6\">%s</td>" % esc(c["error"])])
                continue
            anchor = "isa-%d-%s-%s-%s" % (i, slug(c["config"]), slug(c["family"]), c["wave"])
            rows.append([esc(c["config"]), esc(c["family"]), esc(c["wave"])] +
                        [delta(c["before"].get(k), c["after"].get(k), k == "occupancy")
                         for k, _ in COST_LABELS] +
                        ["<a href=\"#%s\">+%d −%d</a>" % (anchor, c["isa_added"], c["isa_removed"])])
            diffs.append("<details id=\"%s\"><summary>ISA diff: %s, %s wave%s</summary><pre>%s</pre></details>"
                         % (anchor, esc(c["config"]), esc(c["family"]), esc(c["wave"]),
                            esc(c["isa_diff"]) or "no line differs"))
        out.append(table(["configuration", "family", "wave"] + [l for _, l in COST_LABELS] +
                         ["ISA lines"], rows))
        out += diffs
    return "\n".join(out)


def proof_section(m):
    rows, sim_rows = [], []
    for p in m.get("proof", []):
        first = True
        for size, s in sorted(p["sizes"].items(), key=lambda kv: int(kv[0])):
            label = ("<span id=\"proof-%s\">%s</span>" % (slug(p["config"]), esc(p["config"]))
                     if first else esc(p["config"]))
            first = False
            rows.append([label, "<td class=\"n\">%s</td>" % size, esc(s["where"]), verdict_html(s["verdict"]),
                         esc(s["coverage"]), esc(s["detail"])])
            if "counters" in s:
                sim_rows.append([esc(p["config"]), "<td class=\"n\">%s</td>" % size] +
                                [delta(s["counters"][k]["before"], s["counters"][k]["after"]) for k, _ in SIM_LABELS])
    if not rows:
        return "<h2>Proof</h2><p>Not run.</p>"
    return ("<h2>Proof</h2><p><code>waverun diff --auto</code> of the original and the rewrite, "
            "per configuration and subgroup size; coverage counts the instructions the rewrite adds "
            "that ran.</p>" +
            table(["configuration", "size", "on", "verdict", "coverage", "detail"], rows) +
            "<h2>Executed on the simulator, per dispatch</h2>" +
            table(["configuration", "size"] + [l for _, l in SIM_LABELS], sim_rows))


def module_page(m, settings):
    versions = m.get("versions", [])
    vtext = ("; ".join("SpecId %d (%s): true on %s" % (v["spec_id"], v["name"], ", ".join(v["targets"]))
                       for v in versions) or "none: one module for every GPU")
    body = ["<p><a href=\"../index.html\">← all modules</a></p>",
            "<h1>%s</h1>" % esc(m["input"]),
            "<p>Status: <b>%s</b>%s. Versions: %s.</p>" % (
                esc(m["status"]), (", proof: " + verdict_html(m["verdict"])) if m.get("verdict") else "",
                esc(vtext))]
    if m.get("error"):
        body.append("<p>waveopt refused it: <code>%s</code></p>" % esc(m["error"]))
    right = ("<pre>%s</pre>" % esc(m["glsl"]) if m.get("glsl") else
             "<p>%s</p>" % esc(m.get("glsl_error", "no rewrite")))
    body.append("<div class=\"cols\"><div><h2>%s, with remarks</h2>%s</div><div><h2>Rewritten, as GLSL</h2>%s</div></div>"
                % ("Source" if m["source"]["kind"] == "source" else "Input (spirv-dis)", source_html(m), right))
    if m["status"] == "changed":
        body += [cost_section(m), rewrites_section(m), proof_section(m)]
    body.append("<h2>Command</h2><pre>%s</pre>" % esc(m.get("command", "")))
    if m.get("diagnostics"):
        body.append("<h2>waveopt's messages</h2><pre>%s</pre>" % esc(m["diagnostics"]))
    return page("waveopt: " + m["input"], "\n".join(body))
