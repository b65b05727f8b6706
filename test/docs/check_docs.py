#!/usr/bin/env python3
"""Checks the documentation against the code, without a build.

1. Every remark name the code can emit has a row in docs/README.md's index
   of remarks, and every row names a remark the code emits (or is marked
   retired).
2. Every relative link in README.md and docs/**/*.md resolves: the file
   exists and, for "file.md#anchor" or "#anchor", the heading does.

Remark names: the literal names of EmitRemark(...) calls and of
`<remark>.name = "..."` in passes/ and lib/ (not lib/sim, the simulator emits
none), and every other CamelCase string literal there, because most refusals
reach EmitRemark through a variable (`reason`, `module_reason`, ...) returned
from the analyses as a literal. The few CamelCase literals that are not remark
names (built-in names, the workgroup size's source, ...) are listed in
NOT_REMARKS below; the check fails when one of them is also in the index or no
longer in the code, so that list cannot go stale silently.

Usage: check_docs.py [REPO_ROOT]; exit status 1 with one line per problem.
"""
import os
import re
import sys

NOT_REMARKS = {
    # built-in names, in morton-remap's table of subgroup built-ins
    "SubgroupId", "SubgroupLocalInvocationId", "SubgroupEqMask",
    "SubgroupGeMask", "SubgroupGtMask", "SubgroupLeMask", "SubgroupLtMask",
    # workgroup-reduce: the trace's request for a configuration per outcome
    # of a uniform branch (never a remark: it becomes UnknownBranch)
    "UniformBranch",
    # morton-remap: where the workgroup size came from (in Remapped's text)
    "LocalSize", "LocalSizeId",
    # morton-remap: a substring of opcode names it refuses
    "CooperativeMatrix",
    # memory_effects: an extended instruction set's name
    "DebugInfo",
    # batch-uniform-loads: a loop with no candidate load, never reported;
    # a plan the cost rule did not see (a name for a log, never a remark)
    "NoCandidateLoads", "NotCosted",
}
# Files whose CamelCase literals are not remarks: the integer evaluator's
# opcode table names each SPIR-V opcode without its "Op" (BitwiseAnd, ...)
# and emits no remark.
NOT_SCANNED = {"lib/analysis/int_eval.cpp"}
SELF = "test/docs/check_docs.py"
RETIRED = "retired"
CAMEL = re.compile(r'"([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)"')
EMIT = re.compile(r'EmitRemark\(\s*RemarkKind::k\w+,\s*"(\w+)"')
ASSIGN = re.compile(r'\b\w+\.name\s*=\s*"(\w+)"')
# A reason of one word returned or stored by an analysis ("return \"X\";").
RETURNED = re.compile(r'(?:\breturn|\bFail\(|\bRefuse\(|\*\w+\s*=)\s*"([A-Z][a-z0-9]\w*)"')
# A reason in an X-macro list of reasons (#define ..._REASONS(X) X(Name) ...),
# whose names the enum's table makes with #name.
XMACRO_LIST = re.compile(r'#define \w+_REASONS\(X\)((?:[^\n]*\\\n)*[^\n]*)')
XMACRO = re.compile(r'\bX\(([A-Z]\w+)\)')
LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def source_files(root):
    for top in ("passes", "lib"):
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if os.path.join(d, x) !=
                       os.path.join(root, "lib", "sim")]
            for f in sorted(files):
                path = os.path.join(d, f)
                if (f.endswith((".cpp", ".h", ".def")) and
                        os.path.relpath(path, root) not in NOT_SCANNED):
                    yield path


def xmacro_names(text):
    for block in XMACRO_LIST.finditer(text):
        yield from XMACRO.findall(block.group(1))


def code_remarks(root):
    """Returns {name: first file} of every remark name the code can emit."""
    names = {}
    for path in source_files(root):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, root)
        for regex in (EMIT, ASSIGN, RETURNED, CAMEL):
            for m in regex.finditer(text):
                name = m.group(1)
                if name.startswith("Op") or name in NOT_REMARKS:
                    continue
                names.setdefault(name, rel)
        for name in xmacro_names(text):
            names.setdefault(name, rel)
    return names


def all_literals(root):
    found = set()
    for path in source_files(root):
        with open(path, encoding="utf-8") as f:
            text = f.read()
            found.update(CAMEL.findall(text))
            found.update(RETURNED.findall(text))
            found.update(xmacro_names(text))
    return found


def index_remarks(index_path):
    """Returns {name: retired?} from the rows "| `Name` | ..." of the index
    section "Remarks" of docs/README.md."""
    rows, in_section = {}, False
    with open(index_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_section = line.strip().lower().startswith("## remarks")
            m = re.match(r"\|\s*`(\w+)`\s*\|", line) if in_section else None
            if m:
                rows[m.group(1)] = RETIRED in line.lower().split("|")[2]
    return rows


def check_remarks(root):
    errors = []
    index = os.path.join(root, "docs", "README.md")
    if not os.path.exists(index):
        return ["docs/README.md is missing: it holds the index of remarks"]
    rows = index_remarks(index)
    code = code_remarks(root)
    for name, where in sorted(code.items()):
        if name not in rows:
            errors.append("remark %s (%s) is not in docs/README.md's index of "
                          "remarks: add a row, or add it to NOT_REMARKS in %s "
                          "if it is not a remark name" % (name, where, SELF))
    for name, retired in sorted(rows.items()):
        if name not in code and not retired:
            errors.append("docs/README.md indexes remark %s, which no code "
                          "emits: remove the row or mark it retired" % name)
    literals = all_literals(root)
    for name in sorted(NOT_REMARKS):
        if name in rows:
            errors.append("%s is in NOT_REMARKS and in the index: remove it "
                          "from one of them" % name)
        if name not in literals:
            errors.append("NOT_REMARKS lists %s, which the code no longer "
                          "has: remove it from %s" % (name, SELF))
    return errors


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces to dashes."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def markdown_scan(path):
    """Returns (links with their line numbers, anchors) of a markdown file,
    skipping fenced code."""
    links, anchors, counts, fenced = [], set(), {}, False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                n = counts.get(base, 0)
                counts[base] = n + 1
                anchors.add(base if n == 0 else "%s-%d" % (base, n))
            code_free = re.sub(r"`[^`]*`", "", line)
            for m in LINK.finditer(code_free):
                links.append((number, m.group(1) or m.group(2)))
    return links, anchors


def markdown_files(root):
    yield os.path.join(root, "README.md")
    for d, dirs, files in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(d, f)


def check_links(root):
    errors, anchors_of = [], {}

    def anchors(path):
        if path not in anchors_of:
            anchors_of[path] = markdown_scan(path)[1]
        return anchors_of[path]

    for path in markdown_files(root):
        rel = os.path.relpath(path, root)
        for number, target in markdown_scan(path)[0]:
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto:, ...
            file_part, _, anchor = target.partition("#")
            dest = (os.path.normpath(os.path.join(os.path.dirname(path),
                                                  file_part))
                    if file_part else path)
            if not os.path.exists(dest):
                errors.append("%s:%d: link %s: no file %s" %
                              (rel, number, target, os.path.relpath(dest, root)))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                errors.append("%s:%d: link %s: %s has no heading with anchor "
                              "#%s" % (rel, number, target,
                                       os.path.relpath(dest, root), anchor))
    return errors


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    errors = check_remarks(root) + check_links(root)
    for e in errors:
        print(e)
    if errors:
        print("check_docs: %d problem(s)" % len(errors))
        return 1
    print("check_docs: remarks indexed, links resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
