#!/usr/bin/env python3
"""Checks that the library's layers include only downwards.

  check_layers.py <source root>

Layers, lowest first (lib/CMakeLists.txt builds one library per layer):
support, core, analyses, passes, pipeline; frontends sits on core. A file
may include headers of its own layer and of the layers below it, nothing
above, and no library file includes the umbrella waveopt/waveopt.h or
waveopt/io.h. Prints one line per violation and exits 1 if there is any.
"""
import os
import re
import sys

ORDER = {"support": 0, "core": 1, "analyses": 2, "passes": 3, "pipeline": 4}
# What each layer may include besides itself.
ALLOWED = {name: {n for n, r in ORDER.items() if r <= rank} for name, rank in ORDER.items()}
ALLOWED["frontends"] = {"core", "frontends"}

HEADERS = {
    "config.h": "core", "remarks.h": "core", "spirv_io.h": "core",
    "analysis.h": "analyses", "passes.h": "passes", "passes.def": "passes",
    "pipeline.h": "pipeline", "waveopt_c.h": "pipeline", "frontend.h": "frontends",
    "waveopt.h": "umbrella", "io.h": "umbrella",
}
CORE_FILES = {"config.cpp", "remarks.cpp", "target_env.cpp", "io.cpp"}
PIPELINE_FILES = {"pipeline.cpp", "pipeline_flags.cpp", "pipeline_testing.h", "waveopt_c.cpp"}
FRONTEND_FILES = {"frontend_glslang.cpp", "backend_spirvcross.cpp", "resource_bindings.cpp",
                  "resource_bindings.h"}


def layer_of(rel):
    """The layer of a repository path, or None for files outside the library."""
    parts = rel.split("/")
    name = parts[-1]
    if parts[0] == "passes" or name.startswith("inline_loop_callees."):
        return "passes"
    if parts[0] != "lib":
        return None
    if parts[1] == "support":
        return "support"
    if parts[1] == "analysis":
        return "analyses"
    if parts[1] == "include":
        return HEADERS.get(name)
    if len(parts) == 2:
        if name in CORE_FILES:
            return "core"
        if name in PIPELINE_FILES:
            return "pipeline"
        if name in FRONTEND_FILES:
            return "frontends"
    return None


def included_layer(path):
    """The layer of an #include "path" seen from a library file."""
    if path.startswith("waveopt/"):
        return HEADERS.get(path[len("waveopt/"):])
    if path == "waveopt_all_passes.h":
        return "passes"
    if path.startswith("analysis/"):
        return "analyses"
    return layer_of(path)


def main():
    root = sys.argv[1]
    bad = 0
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for top in ("lib", "passes"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                layer = layer_of(rel)
                if layer is None or layer == "umbrella":
                    continue
                with open(os.path.join(root, rel), encoding="utf-8") as src:
                    for number, line in enumerate(src, 1):
                        m = include.match(line)
                        if not m:
                            continue
                        to = included_layer(m.group(1))
                        if to is None or to in ALLOWED[layer]:
                            continue
                        print("%s:%d: %s (layer %s) includes %s (layer %s)"
                              % (rel, number, rel, layer, m.group(1), to))
                        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
