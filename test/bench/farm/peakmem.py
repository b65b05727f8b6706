#!/usr/bin/env python3
"""Runs a command and samples, every 10 ms, the resident memory of it and
all its descendants (from /proc). Prints one line to stderr:
  peakmem: wall_s=<s> cpu_s=<user+sys of the tree> peak_total_kib=<sum over
  the tree> peak_process_kib=<largest one>
and exits with the command's status."""
import os
import resource
import subprocess
import sys
import time


def children(pid):
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:])
    peak_total = peak_one = 0
    while proc.poll() is None:
        tree, todo = [], [proc.pid]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo += children(pid)
        sizes = [rss_kib(p) for p in tree]
        peak_total = max(peak_total, sum(sizes))
        peak_one = max(peak_one, max(sizes))
        time.sleep(0.01)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print(f"peakmem: wall_s={wall:.3f} cpu_s={cpu:.2f} peak_total_kib={peak_total} "
          f"peak_process_kib={peak_one}", file=sys.stderr)
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
