#!/usr/bin/env python3
"""Lists include cycles among the project's own sources: a component is a
header and its .cpp, with its private header X_impl.h if it has one
(lib/sim/machine.h, machine_impl.h and machine.cpp are lib/sim/machine); a
component depends on each project header its files include. Prints each
cycle of two or more components (their strongly connected set, with the
includes that close it) and exits 1 when there is one.

  include_cycles.py [SOURCE_ROOT]
"""
import os
import re
import sys

DIRS = ("lib", "passes", "tools")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Where a quoted include is looked up, in order (the include path of the
# project's targets; lib/include holds the public headers).
ROOTS = ("", "lib", "lib/include")


def component_of(path):
    stem = os.path.splitext(path)[0]
    return stem[:-len("_impl")] if stem.endswith("_impl") else stem


def components(root):
    """{component: [files]} for every .h/.cpp under DIRS."""
    comps = {}
    for top in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if name.endswith((".h", ".cpp")):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    comps.setdefault(component_of(rel), []).append(rel)
    return comps


def edges(root, comps):
    """{component: {component: 'file includes header'}}."""
    graph = {c: {} for c in comps}
    for comp, files in comps.items():
        for rel in files:
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                for base in ROOTS + (os.path.dirname(rel),):
                    target = os.path.normpath(os.path.join(base, inc))
                    dep = component_of(target)
                    if os.path.isfile(os.path.join(root, target)) and dep in comps:
                        if dep != comp:
                            graph[comp].setdefault(dep, f"{rel} includes {target}")
                        break
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; the sets of two or more nodes."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                scc = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    scc.append(top)
                    if top == node:
                        break
                if len(scc) > 1:
                    result.append(sorted(scc))
    return sorted(result)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    comps = components(root)
    graph = edges(root, comps)
    cycles = strongly_connected(graph)
    for scc in cycles:
        print("include cycle: " + " <-> ".join(scc))
        members = set(scc)
        for comp in scc:
            for dep, why in sorted(graph[comp].items()):
                if dep in members:
                    print(f"  {why}")
    print(f"{len(comps)} components, {len(cycles)} include cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
