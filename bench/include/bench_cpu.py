"""bench_cpu - CPU seconds of processes from /proc, for the Python benchmarks
(bench/tpch/runner.py, bench/arrays/measure.py): one process, with or
without the children it has reaped, and a PostgreSQL cluster (its
postmaster, the postmaster's live children and those it has reaped)."""
import os

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid, children=False):
    """utime+stime (and the reaped children's with children=True), seconds"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    t = int(fields[11]) + int(fields[12])
    if children:
        t += int(fields[13]) + int(fields[14])
    return t / TICK


def cluster_cpu(postmaster):
    """the postmaster, its live children, and those it has reaped"""
    total = proc_cpu(postmaster, children=True)
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if ppid == postmaster:
            total += proc_cpu(int(d))
    return total
