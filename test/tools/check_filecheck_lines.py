#!/usr/bin/env python3
"""Fails on FileCheck directives that silently check nothing.

A comment line that starts with a check prefix (CHECK, or any prefix named by
--check-prefix/--check-prefixes in the file's RUN lines; a custom prefix alone
followed by prose is taken as prose) must be one of the directive forms
FileCheck knows, with its colon: PREFIX:, PREFIX-NEXT:,
-SAME:, -NOT:, -DAG:, -LABEL:, -EMPTY:, -COUNT-<n>:. "CHECK foo" (no colon)
or "CHECK-NXET:" (misspelled) are reported with file and line.

Usage: check_filecheck_lines.py <file or directory>...   (exit 1 on findings)
"""
import os
import re
import sys

SUFFIXES = {"", "NEXT", "SAME", "NOT", "DAG", "LABEL", "EMPTY"}
COMMENT = r"^\s*(?:;|//|#)+\s*"
TEST_EXTENSIONS = (".spvasm", ".comp", ".hlsl", ".test", ".glsl", ".frag", ".vert")


def prefixes_of(text):
    found = {"CHECK"}
    for m in re.finditer(r"--check-prefix(?:es)?[= ]([A-Za-z0-9_,-]+)", text):
        found.update(p for p in m.group(1).split(",") if p)
    return found


def check_file(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError as e:
        return [f"{path}: cannot read: {e}"]
    problems = []
    prefixes = prefixes_of(text)
    alternation = "|".join(sorted((re.escape(p) for p in prefixes), key=len, reverse=True))
    directive = re.compile(COMMENT + r"(" + alternation + r")((?:-[A-Za-z0-9]+)*)(:?)(.*)$")
    for number, line in enumerate(text.splitlines(), 1):
        m = directive.match(line)
        if not m:
            continue
        prefix, suffix, colon, rest = m.groups()
        # A longer word that merely starts with the prefix (CHECKS, CHECKED)
        # is prose, not a directive.
        if rest[:1].isalnum() and not colon and not suffix:
            continue
        # Custom prefixes are often ordinary words ("GLSL with ..."): a bare
        # custom prefix without a colon is prose; with a -SUFFIX it is not.
        if prefix != "CHECK" and not suffix and not colon:
            continue
        parts = suffix[1:].split("-") if suffix else []
        name = "-".join(parts)
        valid = name in SUFFIXES or (len(parts) == 2 and parts[0] == "COUNT" and parts[1].isdigit())
        if not valid:
            problems.append(f"{path}:{number}: unknown directive {prefix}{suffix}: {line.strip()}")
        elif not colon:
            problems.append(f"{path}:{number}: {prefix}{suffix} without its colon checks nothing: {line.strip()}")
    return problems


def main(argv):
    paths = argv[1:] or ["."]
    problems = []
    for root in paths:
        if os.path.isfile(root):
            problems += check_file(root)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("Output", "__pycache__"))
            for f in sorted(filenames):
                if f.endswith(TEST_EXTENSIONS):
                    problems += check_file(os.path.join(dirpath, f))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
