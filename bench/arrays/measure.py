#!/usr/bin/env python3
"""measure.py - the measuring half of bench/arrays/run (the shell half sets
the arrays up).

  measure.py one --drives N --query Q --mode offload|plain --rep R ...
      runs one query in a fresh psql session and prints one JSON line: the
      query's time (psql \\timing), the CPU the cluster (postmaster, its
      children, the ones it reaped), ossdfs and the drives (nbdkit) used
      meanwhile, ossdfs's FUSE read and drive read counters over the run
      (user.ossd.stats, reset before it), each drive's NAND page reads
      (ossdctl stats) and a digest of the answer.
  measure.py summary --raw RAW.jsonl --csv CSV --txt TXT [--json]
      one CSV row per (drives, query, mode, rep), the text table of medians
      (min/max), offload's and plain's fraction of linear, where plain
      saturates; --json: the summary on stdout.
"""
import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing generated in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include"))
from bench_cpu import cluster_cpu, proc_cpu  # noqa: E402


def read_stats(mnt):
    """ossdfs's counters: {name: (calls, seconds)}"""
    text = os.getxattr(mnt, "user.ossd.stats").decode()
    out = {}
    for line in text.splitlines():
        m = re.match(r"(\S+)\s+(\d+) calls\s+([\d.]+) s", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), float(m.group(3)))
    return out


def nand_reads(a):
    """each drive's count of NAND page reads (ossdctl stats)"""
    out = []
    for uri, key in zip(a.drive_uris.split(), a.drive_keys.split()):
        p = subprocess.run([a.ossdctl, "--device", uri, "--key-file", key, "--json", "stats"],
                           capture_output=True, text=True, check=True)
        out.append(json.loads(p.stdout)["nand_reads"])
    return out


def snapshot(a):
    return {
        "host": cluster_cpu(a.postmaster),
        "ossdfs": proc_cpu(a.ossdfs_pid),
        "drives": sum(proc_cpu(int(p)) for p in a.drive_pids.split()),
        "nand": nand_reads(a),
    }


def cmd_one(a):
    with open(a.query_file) as f:
        query = f.read()
    script = "\\timing on\n" + a.settings + "\n" + query + "\n"
    psql = ["runuser", "-u", "postgres", "--", a.psql, "-X", "-q", "-At",
            "-v", "ON_ERROR_STOP=1", "-h", a.socket_dir, "-p", str(a.port),
            "-U", "postgres", "-d", "postgres"]
    os.setxattr(a.mnt, "user.ossd.stats", b"0")
    before = snapshot(a)
    w0 = time.monotonic()
    p = subprocess.run(psql, input=script, capture_output=True, text=True, cwd=a.work,
                       timeout=a.timeout)
    wall = time.monotonic() - w0
    time.sleep(0.2)  # the backend exits and is reaped: its CPU is the postmaster's
    after = snapshot(a)
    stats = read_stats(a.mnt)
    if p.returncode != 0:
        print(f"measure.py: {a.mode} Q{a.query} on {a.drives} drives failed: {p.stderr.strip()}",
              file=sys.stderr)
        return 1
    times = [float(m) for m in re.findall(r"^Time: ([\d.]+) ms", p.stdout, re.M)]
    answer = "\n".join(l for l in p.stdout.splitlines() if not l.startswith("Time: "))
    with open(a.answer_out, "w") as f:
        f.write(answer + "\n")
    rec = {
        "drives": a.drives, "query": a.query, "mode": a.mode, "rep": a.rep,
        "seconds": times[-1] / 1000 if times else wall,
        "wall_seconds": wall, "heap_bytes": a.heap_bytes,
        "host_cpu_s": after["host"] - before["host"],
        "ossdfs_cpu_s": after["ossdfs"] - before["ossdfs"],
        "drive_cpu_s": after["drives"] - before["drives"],
        "fuse_reads": stats.get("read", (0, 0))[0],
        "fuse_read_s": stats.get("read", (0, 0))[1],
        "drive_reads": stats.get("drive.read", (0, 0))[0],
        "drive_read_s": stats.get("drive.read", (0, 0))[1],
        "nand_reads": [y - x for x, y in zip(before["nand"], after["nand"])],
        "nand_page_bytes": a.nand_page_bytes,
        "resident_before": a.resident_before,
        "loadavg": float(open("/proc/loadavg").read().split()[0]),
        "answer_md5": hashlib.md5(answer.encode()).hexdigest(),
    }
    print(json.dumps(rec))
    return 0


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def cmd_summary(a):
    rows = [json.loads(l) for l in open(a.raw) if l.strip()]
    # answer equality: offload's answer against plain's of the same drives, query, rep
    answers = {(r["drives"], r["query"], r["mode"], r["rep"]): r["answer_md5"] for r in rows}
    base = {}  # (query, mode) -> median MB/s on the smallest array
    keys = sorted({(r["drives"], r["query"], r["mode"]) for r in rows},
                  key=lambda k: (k[0], k[1], k[2] != "offload"))
    ndmin = min(k[0] for k in keys)

    def mbps(r):
        return r["heap_bytes"] / r["seconds"] / 1e6

    for q, m in {(k[1], k[2]) for k in keys}:
        g = [mbps(r) for r in rows if (r["drives"], r["query"], r["mode"]) == (ndmin, q, m)]
        base[(q, m)] = med(g) / ndmin
    cols = ["drives", "query", "mode", "rep", "seconds", "heap_bytes", "scan_mbps",
            "per_drive_mbps", "linear_fraction", "model_fraction", "host_cpu_s",
            "host_cpu_pct", "ossdfs_cpu_s", "ossdfs_cpu_pct", "drive_cpu_s", "drive_cpu_pct",
            "answer_equal", "fuse_reads", "fuse_read_kib", "fuse_in_flight", "drive_reads",
            "drive_read_kib", "drive_reads_in_flight", "nand_reads", "nand_amp",
            "nand_slowest_over_mean", "resident_before", "loadavg"]
    with open(a.csv, "w") as f:
        f.write(",".join(cols) + "\n")
        for r in sorted(rows, key=lambda r: (r["drives"], r["query"], r["mode"], r["rep"])):
            bw = mbps(r)
            n = r["drives"]
            other = answers.get((n, r["query"], "plain" if r["mode"] == "offload" else "offload", r["rep"]))
            eq = "" if other is None else ("yes" if other == r["answer_md5"] else "NO")
            s = r["seconds"]
            nr = r["nand_reads"]
            vals = [n, r["query"], r["mode"], r["rep"], "%.3f" % s, r["heap_bytes"],
                    "%.2f" % bw, "%.2f" % (bw / n), "%.4f" % (bw / (n * base[(r["query"], r["mode"])])),
                    "%.4f" % (bw / (n * a.model_mbps)) if a.model_mbps else "",
                    "%.2f" % r["host_cpu_s"], "%.1f" % (100 * r["host_cpu_s"] / s),
                    "%.2f" % r["ossdfs_cpu_s"], "%.1f" % (100 * r["ossdfs_cpu_s"] / s),
                    "%.2f" % r["drive_cpu_s"], "%.1f" % (100 * r["drive_cpu_s"] / s), eq,
                    r["fuse_reads"],
                    "%.1f" % (r["heap_bytes"] / r["fuse_reads"] / 1024) if r["mode"] == "plain" and r["fuse_reads"] else "",
                    "%.2f" % (r["fuse_read_s"] / s),
                    r["drive_reads"],
                    "%.1f" % (r["heap_bytes"] / r["drive_reads"] / 1024) if r["mode"] == "plain" and r["drive_reads"] else "",
                    "%.2f" % (r["drive_read_s"] / s),
                    sum(nr), "%.3f" % (sum(nr) * r["nand_page_bytes"] / r["heap_bytes"]),
                    "%.3f" % (max(nr) * len(nr) / sum(nr)) if sum(nr) else "",
                    r["resident_before"], r["loadavg"]]
            f.write(",".join(str(v) for v in vals) + "\n")
    import csv
    crow = list(csv.DictReader(open(a.csv)))
    out = []
    summary = []
    hdr = ("%6s %-5s %-7s %8s %8s %8s %9s %8s %7s %7s %6s %6s %6s %6s %7s %6s %8s %8s" % (
        "drives", "query", "mode", "median s", "min s", "max s", "MB/s", "per drv",
        "linear", "model", "host%", "fuse%", "drive%", "equal", "FUSE KiB", "inflt", "NANDamp", "slowest"))
    out.append(hdr)
    for k in keys:
        g = [r for r in crow if (int(r["drives"]), r["query"], r["mode"]) == k]
        f = lambda c: med([float(r[c]) for r in g])
        secs = [float(r["seconds"]) for r in g]
        eq = "yes" if all(r["answer_equal"] == "yes" for r in g) else \
            ("-" if all(r["answer_equal"] == "" for r in g) else "NO")
        fk = [float(r["fuse_read_kib"]) for r in g if r["fuse_read_kib"]]
        rec = {"drives": k[0], "query": k[1], "mode": k[2], "reps": len(g),
               "median_s": f("seconds"), "min_s": min(secs), "max_s": max(secs),
               "mbps": f("scan_mbps"), "mbps_min": min(float(r["scan_mbps"]) for r in g),
               "mbps_max": max(float(r["scan_mbps"]) for r in g),
               "per_drive_mbps": f("per_drive_mbps"), "linear_fraction": f("linear_fraction"),
               "model_fraction": f("model_fraction") if a.model_mbps else None,
               "host_cpu_pct": f("host_cpu_pct"), "ossdfs_cpu_pct": f("ossdfs_cpu_pct"),
               "drive_cpu_pct": f("drive_cpu_pct"), "answers_equal": eq,
               "fuse_read_kib": med(fk) if fk else None, "fuse_in_flight": f("fuse_in_flight"),
               "drive_reads_in_flight": f("drive_reads_in_flight"),
               "nand_amp": f("nand_amp"), "nand_slowest_over_mean": f("nand_slowest_over_mean")}
        summary.append(rec)
        out.append("%6d %-5s %-7s %8.2f %8.2f %8.2f %9.2f %8.2f %6.0f%% %6s %5.0f%% %5.0f%% %5.0f%% %6s %7s %6.2f %8.3f %8.3f" % (
            k[0], "Q" + k[1], k[2], rec["median_s"], rec["min_s"], rec["max_s"], rec["mbps"],
            rec["per_drive_mbps"], 100 * rec["linear_fraction"],
            "%.0f%%" % (100 * rec["model_fraction"]) if a.model_mbps else "-",
            rec["host_cpu_pct"], rec["ossdfs_cpu_pct"], rec["drive_cpu_pct"], eq,
            "%.0f" % rec["fuse_read_kib"] if rec["fuse_read_kib"] else "-", rec["fuse_in_flight"],
            rec["nand_amp"], rec["nand_slowest_over_mean"]))
    ndmax = max(k[0] for k in keys)
    out.append("")
    for q in sorted({k[1] for k in keys}):
        for m in ("offload", "plain"):
            s = [x for x in summary if x["query"] == q and x["mode"] == m]
            if not s:
                continue
            curve = ", ".join("%d: %.1f" % (x["drives"], x["mbps"]) for x in s)
            top = [x for x in s if x["drives"] == ndmax][0]
            line = "Q%s %-7s MB/s by drives %s; at %d drives %.0f%% of linear" % (
                q, m, curve, ndmax, 100 * top["linear_fraction"])
            if m == "plain":
                best = max(s, key=lambda x: x["mbps"])
                # saturated: the first array size after which more drives add < 10%
                sat = s[-1]
                for i in range(1, len(s)):
                    if s[i]["mbps"] < 1.1 * s[i - 1]["mbps"]:
                        sat = s[i - 1]
                        break
                line += "; saturates at %d drives (%.1f MB/s; best %.1f)" % (
                    sat["drives"], sat["mbps"], best["mbps"])
            out.append(line)
    text = "\n".join(out)
    with open(a.txt, "a") as f:
        f.write(text + "\n")
    print(text, file=sys.stderr)
    if a.json:
        print(json.dumps({"rows": summary}, indent=1))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("one")
    for opt in ("--query", "--mode", "--query-file", "--settings", "--psql", "--socket-dir",
                "--work", "--mnt", "--drive-pids", "--answer-out"):
        o.add_argument(opt, required=True)
    for opt in ("--drives", "--rep", "--port", "--postmaster", "--ossdfs-pid", "--heap-bytes"):
        o.add_argument(opt, type=int, required=True)
    o.add_argument("--ossdctl", required=True)
    o.add_argument("--drive-uris", required=True)
    o.add_argument("--drive-keys", required=True)
    o.add_argument("--nand-page-bytes", type=int, required=True)
    o.add_argument("--resident-before", type=int, default=0)
    o.add_argument("--timeout", type=int, default=1800)
    s = sub.add_parser("summary")
    s.add_argument("--raw", required=True)
    s.add_argument("--csv", required=True)
    s.add_argument("--txt", required=True)
    s.add_argument("--model-mbps", type=float, default=0.0)
    s.add_argument("--json", action="store_true")
    a = ap.parse_args()
    return cmd_one(a) if a.cmd == "one" else cmd_summary(a)


if __name__ == "__main__":
    sys.exit(main())
