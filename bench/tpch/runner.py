#!/usr/bin/env python3
"""runner.py - the measuring half of bench/tpch/run (which starts the drive,
ossdfs and the cluster, loads the data, then calls this): the 22 queries
with offload off, default and forced (and default/forced with
ossd.device_workers=1), at each max_parallel_workers_per_gather, alternated
round by round; answers compared across modes, plans read from EXPLAIN
(VERBOSE), wall times from psql's \\timing, CPU seconds of the cluster,
ossdfs and the drive from /proc.  Writes tpch-sfSF.{csv,txt,json},
tpch-sfSF-plans.txt and tpch-sfSF-ratios.csv (for bench/tpch/plot)."""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

MODES = {
    "off": "SET ossd.enabled = off;",
    "default": "",
    "forced": "SET ossd.force_offload = on;",
    "default-dw1": "SET ossd.device_workers = 1;",
    "forced-dw1": "SET ossd.force_offload = on; SET ossd.device_workers = 1;",
}
sys.dont_write_bytecode = True  # nothing generated in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include"))
from bench_cpu import cluster_cpu, proc_cpu  # noqa: E402


class Bench:
    def __init__(self, a):
        self.a = a
        self.psql = ["runuser", "-u", "postgres", "--", a.psql, "-X", "-q", "-At",
                     "-h", a.socket_dir, "-p", str(a.port), "-U", "postgres", "-d", a.db]
        self.pids = {"postmaster": a.postmaster_pid, "drive": a.drive_pid, "ossdfs": a.ossdfs_pid}

    def refresh_pids(self):
        """A cold run restarts PostgreSQL: read the postmaster's pid anew."""
        if self.a.pgdata:
            with open(os.path.join(self.a.pgdata, "postmaster.pid")) as f:
                self.pids["postmaster"] = int(f.readline())

    def before_run(self):
        """--before-run (a cold pass: caches dropped on both sides)."""
        if self.a.before_run:
            subprocess.run(self.a.before_run, shell=True, check=True, cwd=self.a.work)
            self.refresh_pids()

    def run_psql(self, script, timeout_s):
        p = subprocess.run(self.psql, input=script, capture_output=True, text=True,
                           cwd=self.a.work, timeout=timeout_s)
        return p.returncode, p.stdout, p.stderr

    def cpu(self):
        return (cluster_cpu(self.pids["postmaster"]), proc_cpu(self.pids["ossdfs"]),
                proc_cpu(self.pids["drive"]))

    @staticmethod
    def settings(mode, workers, timeout_ms):
        return (f"{MODES[mode]} SET max_parallel_workers_per_gather = {workers};"
                f" SET statement_timeout = {int(timeout_ms)};\n")

    def answer(self, sql, mode, workers, timeout_ms):
        """(status, rows, ms): status ok / timeout / error: message"""
        script = self.settings(mode, workers, timeout_ms) + "\\timing on\n" + sql + "\n"
        self.before_run()
        rc, out, err = self.run_psql(script, timeout_ms / 1000 + 60)
        ms = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]
        rows = [l for l in out.splitlines() if not l.startswith("Time: ")]
        if "statement timeout" in err:
            return "timeout", rows, None
        if rc != 0 or "ERROR" in err:
            return "error: " + err.strip().splitlines()[-1][:300] if err.strip() else "error", rows, None
        return "ok", rows, ms[-1] if ms else None

    def timed(self, sql, mode, workers, timeout_ms):
        """(status, ms, host_cpu, ossdfs_cpu, drive_cpu) of one run"""
        script = (self.settings(mode, workers, timeout_ms) + "SELECT pg_backend_pid();\n"
                  + "\\o /dev/null\n\\timing on\n" + sql + "\n")
        self.before_run()
        c0 = self.cpu()
        rc, out, err = self.run_psql(script, timeout_ms / 1000 + 60)
        m = re.match(r"\s*(\d+)", out)
        if m:  # wait for the backend to exit and be reaped
            for _ in range(200):
                if not os.path.exists(f"/proc/{m.group(1)}"):
                    break
                time.sleep(0.005)
        c1 = self.cpu()
        d = [b - a for a, b in zip(c0, c1)]
        ms = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]
        if "statement timeout" in err:
            return "timeout", None, *d
        if rc != 0 or "ERROR" in err or not ms:
            return "error", None, *d
        return "ok", ms[-1], *d

    def explain(self, sql, mode, workers, analyze_timeout_ms=None):
        opts = "VERBOSE, COSTS OFF" if analyze_timeout_ms is None else "ANALYZE, VERBOSE, COSTS OFF"
        tmo = analyze_timeout_ms or 0
        script = self.settings(mode, workers, tmo) + f"EXPLAIN ({opts}) " + sql + "\n"
        rc, out, err = self.run_psql(script, tmo / 1000 + 120)
        if "statement timeout" in err:
            return f"EXPLAIN ANALYZE cancelled by statement_timeout after {tmo / 1000:.0f} s"
        return out if rc == 0 and "ERROR" not in err else "EXPLAIN failed: " + err.strip()


# TPC-H column prefixes: an aggregating OssdScan (it replaces the Aggregate,
# so EXPLAIN names no relation) is known by the columns it reads
PREFIX = {"l": "lineitem", "o": "orders", "c": "customer", "s": "supplier", "ps": "partsupp",
          "p": "part", "n": "nation", "r": "region"}


def plan_summary(plan):
    """which scans ran on the drive and what each pushed down"""
    scans, host = [], []
    cur = None
    for line in plan.splitlines():
        m = re.search(r"Custom Scan \(OssdScan\)(?: on (?:\S+\.)?(\w+)(?: (\w+))?)?", line)
        if m:
            cur = {"rel": m.group(2) or m.group(1) or "?", "pushed": []}
            scans.append(cur)
            continue
        m = re.search(r"(?:Parallel )?(Seq|Index Only|Index|Bitmap Heap) Scan(?: using \S+)? on (?:\S+\.)?(\w+)(?: (\w+))?", line)
        if m:
            host.append(f"{m.group(1).lower().replace(' ', '')}:{m.group(3) or m.group(2)}")
            cur = None
            continue
        if "->" in line or re.match(r"\s*(CTE|InitPlan|SubPlan) ", line):
            cur = None
            continue
        if cur is not None:
            if "Device Filter:" in line:
                cur["pushed"].append("filter")
            elif "Device Partial Aggregates:" in line:
                cur["pushed"].append("aggregate")
            elif "Device Group Keys:" in line:
                cur["pushed"].append("group")
            elif "Device Kernel:" in line:
                cur["pushed"].append("kernel")
            if cur["rel"] == "?":
                m = re.search(r"\b(l|o|c|s|ps|p|n|r)_[a-z]+", line)
                if m:
                    cur["rel"] = PREFIX[m.group(1)] + "(agg)"
    drive = " ".join(f"{s['rel']}[{'+'.join(s['pushed']) or 'project'}]" for s in scans)
    return {"drive": drive or "-", "host": " ".join(host) or "-", "n_offloaded": len(scans)}


def canon(rows):
    return sorted(rows)


def median(xs):
    return statistics.median(xs) if xs else None


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sf", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", default="0 2")
    ap.add_argument("--queries", default=" ".join(f"{i}" for i in range(1, 23)))
    ap.add_argument("--modes", default="off default forced default-dw1 forced-dw1")
    ap.add_argument("--timeout-cap", type=float, default=300.0, help="seconds")
    ap.add_argument("--min-timeout", type=float, default=2.0, help="seconds")
    ap.add_argument("--queries-dir", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--psql", required=True)
    ap.add_argument("--socket-dir", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--db", default="postgres")
    ap.add_argument("--postmaster-pid", type=int, required=True)
    ap.add_argument("--drive-pid", type=int, required=True)
    ap.add_argument("--ossdfs-pid", type=int, required=True)
    ap.add_argument("--machine", default="")
    ap.add_argument("--pass", dest="pass_name", default="warm",
                    help="what the caches are: warm (tpch-sfSF.*), or a name for the files'"
                    " suffix (tpch-sfSF-NAME.*), e.g. cold, paced")
    ap.add_argument("--pass-note", default="", help="a line saying how this pass was made")
    ap.add_argument("--before-run", default="",
                    help="shell command run before each timed and answer run (a cold pass)")
    ap.add_argument("--pgdata", default="", help="read the postmaster's pid here after --before-run")
    ap.add_argument("--load-json", default="")
    ap.add_argument("--json", action="store_true", help="print the summary JSON on stdout")
    ap.add_argument("--short-ms", type=float, default=500.0,
                    help="a query plain PostgreSQL runs in under this many ms (its median over the"
                    " rounds) gets --short-rounds more rounds in every mode: short queries are the"
                    " noisy ones, and the choice looks at plain's time, never at a ratio")
    ap.add_argument("--short-rounds", type=int, default=4)
    ap.add_argument("--analyze-timeout", type=float, default=60.0,
                    help="seconds for EXPLAIN ANALYZE of each losing query (0: none)")
    a = ap.parse_args()

    b = Bench(a)
    workers = [int(w) for w in a.workers.split()]
    modes = a.modes.split()
    queries = [int(q) for q in re.split(r"[ ,]+", a.queries.strip()) if q]
    sqls = {}
    for q in queries:
        with open(os.path.join(a.queries_dir, f"q{q:02d}.sql")) as f:
            text = f.read()
        text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("--"))
        sqls[q] = text.replace(":sf", a.sf).strip().rstrip(";")
    log = lambda *x: print(*x, file=sys.stderr, flush=True)

    # 1. plans and answers (the answer runs warm the caches and time plain
    #    for each query's statement_timeout)
    res = {q: {"plans": {}, "answers": {}, "timeout_ms": None, "first_ms": {}} for q in queries}
    for q in queries:
        r = res[q]
        cap = a.timeout_cap * 1000
        ref = None
        for w in workers:
            for m in modes:
                key = f"{m}/{w}"
                r["plans"][key] = b.explain(sqls[q], m, w)
                tmo = cap if r["timeout_ms"] is None else r["timeout_ms"]
                st, rows, ms = b.answer(sqls[q], m, w, tmo)
                r["first_ms"][key] = ms
                if m == "off" and st == "ok" and r["timeout_ms"] is None:
                    r["timeout_ms"] = min(cap, max(10 * ms, a.min_timeout * 1000))
                if st == "ok":
                    if ref is None:
                        ref = (key, rows)
                    same = canon(rows) == canon(ref[1])
                    r["answers"][key] = {"status": "identical" if same else "DIFFERENT",
                                         "ordered": rows == ref[1], "rows": len(rows)}
                    if not same:
                        r["answers"][key]["diff"] = {"ref": ref[0], "ref_head": ref[1][:3], "head": rows[:3]}
                else:
                    r["answers"][key] = {"status": st, "rows": len(rows)}
                log(f"  Q{q:02d} {key:>14}: {r['answers'][key]['status']}"
                    f" ({r['answers'][key]['rows']} rows) {plan_summary(r['plans'][key])['drive']}")
        if r["timeout_ms"] is None:
            r["timeout_ms"] = cap

    # 3. figures (written after every round, so a stopped run keeps what it measured)
    def figures():
        rows = []
        for q in queries:
            for w in workers:
                base = None
                for m in modes:
                    rs = runs[(q, m, w)]
                    ok = [x for x in rs if x[0] == "ok"]
                    t = [x[1] for x in ok]
                    first = False
                    if not rs and res[q]["first_ms"].get(f"{m}/{w}") is not None:
                        # no timed round yet: the answer run's time, marked as such
                        t, first = [res[q]["first_ms"][f"{m}/{w}"]], True
                    med = median(t)
                    if m == "off":
                        base = med
                    ps = plan_summary(res[q]["plans"][f"{m}/{w}"])
                    status = ("timeout" if any(x[0] == "timeout" for x in rs)
                              else "error" if any(x[0] == "error" for x in rs) else "ok")
                    rows.append({
                        "query": q, "workers": w, "mode": m, "status": status,
                        "median_ms": med, "min_ms": min(t) if t else None, "max_ms": max(t) if t else None,
                        "runs": 0 if first else len(t),
                        "ratio": (base / med) if base and med else None,
                        "host_cpu_s": median([x[2] for x in ok]), "ossdfs_cpu_s": median([x[3] for x in ok]),
                        "drive_cpu_s": median([x[4] for x in ok]),
                        "answer": res[q]["answers"][f"{m}/{w}"]["status"],
                        "offloaded": ps["n_offloaded"], "drive_scans": ps["drive"], "host_scans": ps["host"],
                        "timeout_ms": res[q]["timeout_ms"],
                    })
        geo = {}
        for m in modes:
            for w in workers:
                rr = [r for r in rows if r["mode"] == m and r["workers"] == w]
                # a timeout counts at its timeout (an upper bound on the ratio)
                ratios = [r["ratio"] if r["ratio"] else
                          (next(x["median_ms"] for x in rows if x["query"] == r["query"] and x["workers"] == w
                                and x["mode"] == "off") or 0) / r["timeout_ms"] if r["status"] == "timeout" else None
                          for r in rr]
                geo[f"{m}/{w}"] = {"geomean": geomean(ratios),
                                   "losers": [r["query"] for r in rr if r["ratio"] is not None and r["ratio"] < 0.95],
                                   "timeouts": [r["query"] for r in rr if r["status"] == "timeout"],
                                   "different": [r["query"] for r in rr if r["answer"] == "DIFFERENT"],
                                   "errors": [r["query"] for r in rr if r["answer"].startswith("error")]}
        return rows, geo

    runs = {(q, m, w): [] for q in queries for m in modes for w in workers}
    rows, geo = figures()
    write(a, rows, res, geo, modes, workers, queries, rounds_done=0)
    def rotated(rnd):
        return modes[rnd % len(modes):] + modes[:rnd % len(modes)]

    def warm_up(q, w, m):
        # one untimed run when the round moves to another query: the first
        # run after a switch pays for the caches the last query took (Q20
        # at 0 workers: 330-450 ms against 180-230 ms), whichever mode runs
        # first, and the rotation made some modes first more often
        if not res[q]["answers"][f"{m}/{w}"]["status"].startswith(("timeout", "error")):
            b.timed(sqls[q], m, w, res[q]["timeout_ms"])

    def time_one(q, m, w):
        prev = runs[(q, m, w)]
        ans = res[q]["answers"][f"{m}/{w}"]["status"]
        if ans == "timeout" or (prev and prev[-1][0] == "timeout"):
            prev.append(("timeout", None, 0, 0, 0))  # it timed out before
        elif ans.startswith("error"):
            prev.append(("error", None, 0, 0, 0))
        else:
            prev.append(b.timed(sqls[q], m, w, res[q]["timeout_ms"]))

    # 2. timed rounds, the modes alternated (their order rotated each round)
    for rnd in range(a.rounds):
        order = rotated(rnd)
        log(f"  round {rnd + 1}/{a.rounds}")
        for q in queries:
            for w in workers:
                warm_up(q, w, order[0])
                for m in order:
                    time_one(q, m, w)
            if rnd == 0:  # a stopped first round keeps the queries it timed
                rows, geo = figures()
                write(a, rows, res, geo, modes, workers, queries, rounds_done=0)
            log(f"    Q{q:02d} " + "  ".join(
                f"{m}/{w} {fmt(runs[(q, m, w)][-1][1])}" for w in workers for m in order))
        rows, geo = figures()
        write(a, rows, res, geo, modes, workers, queries, rounds_done=rnd + 1)
    # 2b. more rounds of the short queries, every mode, alternated as above
    short = []
    if a.rounds > 0 and a.short_rounds > 0 and "off" in modes:
        for q in queries:
            for w in workers:
                t = median([x[1] for x in runs[(q, "off", w)] if x[0] == "ok"])
                if t is not None and t < a.short_ms:
                    short.append((q, w))
    for rnd in range(a.short_rounds if short else 0):
        order = rotated(rnd)
        log(f"  short-query round {rnd + 1}/{a.short_rounds} ({len(short)} query/worker pairs"
            f" under {a.short_ms:.0f} ms plain)")
        for q, w in short:
            warm_up(q, w, order[0])
            for m in order:
                time_one(q, m, w)
        rows, geo = figures()
        write(a, rows, res, geo, modes, workers, queries, rounds_done=a.rounds)
    rows, geo = figures()

    # 4. the losers of the default mode: EXPLAIN ANALYZE, plain beside offload
    losers = []
    if a.analyze_timeout > 0 and "default" in modes and a.rounds > 0:
        for r in rows:
            if r["mode"] == "default" and (r["status"] == "timeout" or (r["ratio"] is not None and r["ratio"] < 0.95)):
                q, w = r["query"], r["workers"]
                log(f"  EXPLAIN ANALYZE of loser Q{q:02d} at {w} workers")
                losers.append((q, w, r, b.explain(sqls[q], "off", w, a.analyze_timeout * 1000),
                               b.explain(sqls[q], "default", w, a.analyze_timeout * 1000)))
    write(a, rows, res, geo, modes, workers, queries, losers)


def write(a, rows, res, geo, modes, workers, queries, losers=(), rounds_done=None):
    os.makedirs(a.results, exist_ok=True)
    stem = os.path.join(a.results, f"tpch-sf{a.sf}" + ("" if a.pass_name == "warm" else f"-{a.pass_name}"))
    cols = ["query", "workers", "mode", "status", "median_ms", "min_ms", "max_ms", "runs", "ratio",
            "host_cpu_s", "ossdfs_cpu_s", "drive_cpu_s", "answer", "offloaded", "drive_scans", "host_scans"]
    with open(stem + ".csv", "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join("" if r[c] is None else (f"{r[c]:.4g}" if isinstance(r[c], float) else str(r[c]))
                             for c in cols) + "\n")
    # wide ratios for the plot: one line per query, one column per mode/workers
    plotted = [m for m in modes if m != "off"]
    with open(stem + "-ratios.csv", "w") as f:
        f.write("query," + ",".join(f"{m}/{w}" for w in workers for m in plotted) + "\n")
        for q in queries:
            vals = []
            for w in workers:
                for m in plotted:
                    r = next(x for x in rows if x["query"] == q and x["mode"] == m and x["workers"] == w)
                    off = next(x for x in rows if x["query"] == q and x["mode"] == "off" and x["workers"] == w)
                    v = r["ratio"]
                    if v is None and r["status"] == "timeout" and off["median_ms"]:
                        v = off["median_ms"] / r["timeout_ms"]  # a timeout: at most this
                    vals.append("" if v is None else f"{v:.4f}")
            f.write(f"Q{q}," + ",".join(vals) + "\n")
    lines = [f"TPC-H SF {a.sf} on an emulated OSSD: pg_ossd offload off / default / forced",
             f"{a.machine}",
             f"pass: {a.pass_name}{': ' + a.pass_note if a.pass_note else ''}",
             f"{a.rounds if rounds_done is None else f'{rounds_done} of {a.rounds}'} rounds, modes alternated"
             f"{f' (+{a.short_rounds} for each query plain runs in under {a.short_ms:.0f} ms: runs in the CSV)' if a.short_rounds and a.rounds else ''}"
             f"{' (runs = 0: the time of the answer run, no timed round yet)' if rounds_done == 0 else ''}; median (min-max) ms; ratio = plain (off) / mode, >1 is faster;",
             "CPU = median seconds per run: host (cluster processes) + ossdfs | drive (nbdkit); dw1 = ossd.device_workers=1", ""]
    for w in workers:
        lines.append(f"== max_parallel_workers_per_gather = {w}")
        lines.append(f"{'query':6} " + " ".join(f"{m:>30}" for m in modes))
        for q in queries:
            cells = []
            for m in modes:
                r = next(x for x in rows if x["query"] == q and x["mode"] == m and x["workers"] == w)
                if r["status"] != "ok" or r["median_ms"] is None:
                    cells.append(f"{r['status'] + ' ' + (r['answer'] if r['answer'] != 'identical' else ''):>30}")
                    continue
                mark = "" if r["answer"] == "identical" else "!"
                ratio = ("" if m == "off" else " -" if r["ratio"] is None  # plain failed
                         else f" {r['ratio']:.2f}x")
                cpu = ("" if r["host_cpu_s"] is None else
                       f" {r['host_cpu_s'] + r['ossdfs_cpu_s']:.2f}|{r['drive_cpu_s']:.2f}s")
                cells.append(f"{mark}{r['median_ms']:.0f}ms{ratio}{cpu}".rjust(30))
            lines.append(f"Q{q:<5} " + " ".join(cells))
        lines.append("")
    lines.append("== geomean of ratios (timeouts count at their timeout) and queries below 0.95x")
    for k, g in geo.items():
        if k.startswith("off/"):
            continue
        lines.append(f"  {k:16} geomean {fmt(g['geomean'], 2)}x  losers {g['losers'] or '-'}"
                     f"  timeouts {g['timeouts'] or '-'}  answers different {g['different'] or '-'}"
                     f"  errors {g['errors'] or '-'}")
    lines.append("")
    lines.append("== plans (default mode): scans on the drive [what was pushed] | scans on the host")
    for q in queries:
        for w in workers:
            r = next(x for x in rows if x["query"] == q and x["mode"] == "default" and x["workers"] == w) \
                if "default" in modes else None
            if r:
                lines.append(f"  Q{q:<3} w{w}: drive {r['drive_scans']}  |  host {r['host_scans']}")
    with open(stem + ".txt", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(stem + "-plans.txt", "w") as f:
        for q in queries:
            for k, p in res[q]["plans"].items():
                f.write(f"==== Q{q} {k}\n{p}\n")
    with open(stem + "-losers.txt", "w") as f:
        f.write(f"TPC-H SF {a.sf}: the queries slower with default offload than plain (ratio < 0.95 or a\n"
                "timeout): EXPLAIN (ANALYZE, VERBOSE) with offload off, then default\n\n")
        for q, w, r, plain, dflt in losers:
            f.write(f"==== Q{q} at {w} workers: {r['status']}, ratio {fmt(r['ratio'], 2)}, "
                    f"drive {r['drive_scans']} | host {r['host_scans']}\n"
                    f"---- offload off\n{plain}\n---- default\n{dflt}\n")
    load = None
    if a.load_json and os.path.exists(a.load_json):
        with open(a.load_json) as f:
            try:
                load = json.load(f)
            except ValueError:
                load = None
    summary = {"sf": a.sf, "pass": a.pass_name, "pass_note": a.pass_note, "rounds": a.rounds, "short_rounds": a.short_rounds, "short_ms": a.short_ms, "workers": workers, "modes": modes, "machine": a.machine,
               "load": load, "geomean": geo, "results": rows,
               "answers": {q: res[q]["answers"] for q in queries}}
    with open(stem + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    if rounds_done is not None:
        return
    print("\n".join(lines), file=sys.stderr)
    if a.json:
        print(json.dumps({"sf": a.sf, "geomean": geo}))


if __name__ == "__main__":
    main()
