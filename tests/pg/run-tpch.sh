#!/usr/bin/env bash
# run-tpch.sh - our TPC-H at SF 0.01: the generator is deterministic (the
# same checksums twice, and its --part slices add up to the whole), its
# row counts are the specification's, the loaded data keeps the
# specification's rules (dates, prices, keys), and each of the 22 queries
# returns the same answer with offload off, default and forced, at
# max_parallel_workers_per_gather 0 and 2 (bench/tpch/runner.py, no timed
# rounds).  Starts its own drive, ossdfs and cluster (tests/pg/pg-env.bash).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5448
source "$top/tests/pg/pg-env.bash"
dbgen=$top/build/bench/tpch-dbgen
sf=0.01

main () {
if ! pgenv_up pg-tpch 2G; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; return 1
fi
tap_ok "drive, ossdfs and cluster up"

# -- the generator
mkdir -p "$work/g1" "$work/g2" "$work/p"
"$dbgen" --sf $sf --dir "$work/g1" --json --quiet >"$work/g1.json" &&
  "$dbgen" --sf $sf --dir "$work/g2" --json --quiet >"$work/g2.json"
sums () { python3 -c 'import json,sys; print(" ".join(t["table"] + "=" + t["checksum"] for t in json.load(open(sys.argv[1]))["tables"]))' "$1"; }
s1=$(sums "$work/g1.json"); s2=$(sums "$work/g2.json")
[ -n "$s1" ] && [ "$s1" = "$s2" ] && cmp -s "$work/g1/lineitem.tbl" "$work/g2/lineitem.tbl" \
  && tap_ok "the generator is deterministic (same checksums twice)" || tap_not_ok "deterministic" "$s1 / $s2"
"$dbgen" --sf $sf --seed 7 --table orders --quiet --json >/dev/null 2>"$work/seed7.json"
o1=$(echo "$s1" | tr ' ' '\n' | grep '^orders='); o7=$(sums "$work/seed7.json" | tr ' ' '\n' | grep '^orders=')
[ -n "$o7" ] && [ "$o1" != "$o7" ] && tap_ok "another seed gives other data" || tap_not_ok "seed" "$o1 / $o7"
ok=1
for i in 1 2 3; do "$dbgen" --sf $sf --dir "$work/p" --part $i/3 --quiet || ok=; done
for t in region nation supplier customer part partsupp orders lineitem; do
  cat "$work/p/$t.tbl".{1,2,3} | cmp -s - "$work/g1/$t.tbl" || ok=
done
[ -n "$ok" ] && tap_ok "the --part 1/3..3/3 slices add up to the whole tables" || tap_not_ok "--part slices"
counts=$(python3 -c 'import json,sys; print(" ".join(t["table"] + "=" + str(t["rows"]) for t in json.load(open(sys.argv[1]))["tables"]))' "$work/g1.json")
li=$(echo "$counts" | tr ' ' '\n' | sed -n 's/^lineitem=//p')
fixed=$(echo "$counts" | sed 's/ lineitem=[0-9]*//')
# clause 4.2.5: SF x 10,000 suppliers, 150,000 customers, 200,000 parts,
# 800,000 partsupp, 1,500,000 orders; lineitem 1..7 per order (~6,000,000)
if [ "$fixed" = "region=5 nation=25 supplier=100 customer=1500 part=2000 partsupp=8000 orders=15000" ] \
   && [ "${li:-0}" -ge 59400 ] && [ "${li:-0}" -le 60600 ]; then
  tap_ok "row counts are the specification's for SF $sf ($counts)"
else
  tap_not_ok "row counts for SF $sf" "$counts"
fi

# -- the load
P=(runuser -u postgres -- "$pgbin/psql" -X -q -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres)
if (cd "$work" && "$top/bench/tpch/load" --sf $sf --tablespace ossd --quiet -- "${P[@]}") >"$work/load.log" 2>&1; then
  tap_ok "bench/tpch/load: SF $sf loaded, indexed, frozen, checkpointed"
else
  tap_not_ok "bench/tpch/load" "$(tail -3 "$work/load.log")"
fi
n=$(psql_q -c "SELECT (SELECT count(*) FROM lineitem) || ' ' || (SELECT count(*) FROM partsupp)
               || ' ' || (SELECT count(*) FROM pg_indexes WHERE tablename IN ('lineitem','orders','partsupp','part','customer','supplier','nation','region'))")
[ "$n" = "$li 8000 16" ] && tap_ok "the tables hold the generated rows, with 16 keys and indexes" || tap_not_ok "loaded rows" "$n (want $li 8000 16)"
# the specification's rules, each count of violations must be 0
bad=$(psql_q <<'SQL'
SELECT 'ship/commit/receipt dates', count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey
  WHERE l_shipdate NOT BETWEEN o_orderdate + 1 AND o_orderdate + 121
     OR l_commitdate NOT BETWEEN o_orderdate + 30 AND o_orderdate + 90
     OR l_receiptdate NOT BETWEEN l_shipdate + 1 AND l_shipdate + 30
UNION ALL SELECT 'order dates', count(*) FROM orders WHERE o_orderdate NOT BETWEEN '1992-01-01' AND date '1998-12-31' - 151
UNION ALL SELECT 'returnflag/linestatus', count(*) FROM lineitem
  WHERE l_returnflag <> CASE WHEN l_receiptdate <= '1995-06-17' THEN l_returnflag ELSE 'N' END
     OR (l_receiptdate <= '1995-06-17' AND l_returnflag NOT IN ('R', 'A'))
     OR l_linestatus <> CASE WHEN l_shipdate > '1995-06-17' THEN 'O' ELSE 'F' END
UNION ALL SELECT 'extendedprice', count(*) FROM lineitem JOIN part ON l_partkey = p_partkey
  WHERE l_extendedprice <> l_quantity * p_retailprice
UNION ALL SELECT 'retailprice', count(*) FROM part
  WHERE p_retailprice * 100 <> 90000 + (p_partkey / 10) % 20001 + 100 * (p_partkey % 1000)
UNION ALL SELECT 'totalprice/orderstatus', count(*) FROM orders JOIN (
    SELECT l_orderkey, sum(round(l_extendedprice * (1 + l_tax) * (1 - l_discount), 2)) AS total,
           CASE WHEN bool_and(l_linestatus = 'F') THEN 'F' WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END AS st
    FROM lineitem GROUP BY l_orderkey) l ON l_orderkey = o_orderkey
  WHERE o_totalprice <> total OR o_orderstatus <> st
UNION ALL SELECT 'sparse order keys', count(*) FROM orders WHERE (o_orderkey - 1) % 32 >= 8
UNION ALL SELECT 'customers with key % 3 = 0 ordering', count(*) FROM orders WHERE o_custkey % 3 = 0
UNION ALL SELECT 'lineitem supplier not in partsupp', count(*) FROM lineitem
  WHERE NOT EXISTS (SELECT 1 FROM partsupp WHERE ps_partkey = l_partkey AND ps_suppkey = l_suppkey)
UNION ALL SELECT 'phone country codes', count(*) FROM customer WHERE substring(c_phone from 1 for 2)::int <> c_nationkey + 10
UNION ALL SELECT 'Customer Complaints suppliers <> 1', abs(count(*) - 1) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%'
UNION ALL SELECT 'part names not 5 distinct colours', count(*) FROM part
  WHERE (SELECT count(DISTINCT w) FROM unnest(string_to_array(p_name, ' ')) w) <> 5;
SQL
)
viol=$(echo "$bad" | awk -F'|' '$2 != 0' | tr '\n' ';')
[ -n "$bad" ] && [ -z "$viol" ] && tap_ok "the data keeps the specification's rules (dates, flags, prices, keys, comments)" \
  || tap_not_ok "specification rules" "${viol:-no output}"

# -- the 22 queries, off / default / forced at 0 and 2 workers
if python3 "$top/bench/tpch/runner.py" --sf $sf --rounds 0 --workers "0 2" --modes "off default forced" \
     --min-timeout 120 --queries-dir "$top/bench/tpch/queries" --results "$work/results" --work "$work" \
     --psql "$pgbin/psql" --socket-dir "$work/pgsock" --port "$pg_port" \
     --postmaster-pid "$(head -1 "$pgdata/postmaster.pid")" --drive-pid "$(cat "$OSSD_RUNDIR/ossd.pid")" \
     --ossdfs-pid "$fs_pid" >"$work/runner.log" 2>&1; then
  tap_ok "bench/tpch/runner.py ran the 22 queries in 6 settings"
else
  tap_not_ok "bench/tpch/runner.py" "$(tail -3 "$work/runner.log")"
fi
while IFS='|' read -r verdict desc why; do
  if [ "$verdict" = ok ]; then tap_ok "$desc"; else tap_not_ok "$desc" "$why"; fi
done < <(python3 - "$work/results/tpch-sf$sf.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(f"not|the 22 answers|no results ({e})"); sys.exit(0)
for q, by in sorted(d["answers"].items(), key=lambda x: int(x[0])):
    bad = {k: v["status"] for k, v in by.items() if v["status"] != "identical"}
    rows = sorted({v["rows"] for v in by.values()})
    if bad or len(by) != 6:
        print(f"not|Q{q}: the same answer off/default/forced at 0 and 2 workers|{bad}")
    else:
        print(f"ok|Q{q}: the same answer ({rows[0]} rows) off/default/forced at 0 and 2 workers|")
PY
)
tap_done
}
main
