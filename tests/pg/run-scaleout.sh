#!/usr/bin/env bash
# run-scaleout.sh - scale-out over PostgreSQL's own engine (issue 14 item
# 4, docs/arrays.md "Scale-out"; tests/pg/scaleout-lib.bash).  Two data
# clusters, each on its own array of two drives with pg_ossd, hold
# lineitem of TPC-H SF 0.01 split by l_returnflag ('A', 'R' | 'N'); a
# coordinator (no drive) has the partitioned lineitem whose partitions are
# postgres_fdw foreign tables (async_capable), and in its database
# "reference" all of lineitem in a plain heap.  Checks:
#  - each data cluster holds exactly its partition's rows, together all;
#  - Q1 through the coordinator: EXPLAIN VERBOSE shows an Async Foreign
#    Scan per partition whose Remote SQL is the aggregate (partitionwise
#    aggregate: the GROUP BY holds the partition key);
#  - on a data cluster, that Remote SQL under a cursor (as postgres_fdw
#    runs it) aggregates on both drives (OssdScan, EXPLAIN ANALYZE);
#  - Q6: the WHERE goes to each data cluster (Remote SQL), whose OssdScan
#    filters on its two drives;
#  - Q1 and Q6 through the coordinator answer exactly as the reference.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
source "$top/tests/pg/pg-env.bash"
source "$top/tests/pg/scaleout-lib.bash"
sf=0.01 seed=19920101

main () {
local name q1 q6
for name in "${so_names[@]}"; do
  if so_data_up "$name" $((5455 + ${#so_port[@]})) 2 512M 65536 &&
     so_load_lineitem $sf $seed "l_returnflag IN (${so_values[$name]})" >"$work/load.log" 2>&1; then
    tap_ok "data cluster $name on two drives, lineitem rows with l_returnflag IN (${so_values[$name]}) loaded"
  else
    tap_not_ok "data cluster $name up and loaded" "$(tail -3 "$work/load.log" 2>/dev/null)"
    tap_done; return 1
  fi
done
pg_port=5458
if pgenv_up_plain coord && pgenv_keep coord && so_coordinator_fdw postgres 10000 >"$work/fdw.log" 2>&1 &&
   psql_q -c "CREATE DATABASE reference" && so_load_lineitem $sf $seed true reference >"$work/ref.log" 2>&1; then
  tap_ok "coordinator: postgres_fdw, partitioned lineitem over the two clusters, a reference copy"
else
  tap_not_ok "coordinator up" "$(tail -3 "$work/fdw.log" "$work/ref.log" 2>/dev/null)"
  tap_done; return 1
fi
ref_q () { psql_q -d reference "$@"; }

# -- the split
total=$(ref_q -c "SELECT count(*) FROM lineitem")
sum=0 ok=1 detail=
for name in "${so_names[@]}"; do
  pgenv_use "$name"
  n=$(psql_q -c "SELECT count(*) FROM lineitem")
  flags=$(psql_q -c "SELECT string_agg(DISTINCT l_returnflag, ',' ORDER BY l_returnflag) FROM lineitem")
  want=$(echo "${so_values[$name]}" | tr -d "' ")
  [ "${n:-0}" -gt 0 ] && [ "$flags" = "$want" ] || ok=
  sum=$((sum + ${n:-0})); detail="$detail $name: $n rows ($flags);"
done
pgenv_use coord
[ -n "$ok" ] && [ "$sum" = "$total" ] && tap_ok "the partitions add up to the reference's $total rows ($detail)" \
  || tap_not_ok "the partitions add up to the reference's rows" "$detail reference $total"

q1=$(so_query 1) q6=$(so_query 6)
# -- Q1: the aggregate goes to each cluster
ex=$(psql_q -c "EXPLAIN VERBOSE $q1")
echo "$ex" | sed 's/^/# /'
n_async=$(echo "$ex" | grep -c "Async Foreign Scan")
n_agg=$(echo "$ex" | grep -c "Relations: Aggregate on (public.lineitem_")
n_sql=$(echo "$ex" | grep "Remote SQL: SELECT l_returnflag, l_linestatus, sum(l_quantity)" | grep -c "GROUP BY 1, 2")
[ "$n_async" = 2 ] && [ "$n_agg" = 2 ] && [ "$n_sql" = 2 ] \
  && tap_ok "Q1: an Async Foreign Scan per partition, the aggregate in its Remote SQL" \
  || tap_not_ok "Q1: the aggregate pushed to both clusters" "async $n_async, aggregates $n_agg, remote GROUP BY $n_sql"
rq1=$(echo "$ex" | sed -n 's/^ *Remote SQL: //p' | head -1)

# -- Q6: the WHERE goes to each cluster
ex=$(psql_q -c "EXPLAIN VERBOSE $q6")
echo "$ex" | sed 's/^/# /'
n_sql=$(echo "$ex" | grep "Remote SQL: SELECT l_extendedprice, l_discount FROM public.lineitem WHERE" | grep -c "l_quantity < 24")
[ "$n_sql" = 2 ] && tap_ok "Q6: its WHERE in both partitions' Remote SQL" \
  || tap_not_ok "Q6: its WHERE in both partitions' Remote SQL" "$n_sql of 2"
rq6=$(echo "$ex" | sed -n 's/^ *Remote SQL: //p' | head -1)

# -- on the data clusters: the Remote SQL, run as postgres_fdw runs it (a
# cursor, so without parallel workers), goes to both drives.  A cursor is
# planned for its first tenth (cursor_tuple_fraction), where a drive
# scan's fixed cost weighs most: at SF 0.01 it is pinned to the suites'
# 10 (ossd.drive_startup_cost, as run_suite does)
cursor_plan () { psql_q -c "BEGIN" -c "SET LOCAL ossd.drive_startup_cost = 10" \
                   -c "EXPLAIN (ANALYZE, VERBOSE) DECLARE c1 CURSOR FOR $1" -c "COMMIT"; }
drives_scanned () { echo "$1" | grep -c "Drive [01]: blocks=[1-9]"; }
pgenv_use data1
ex=$(cursor_plan "$rq1")
echo "$ex" | sed 's/^/# /'
if echo "$ex" | grep -q "Custom Scan (OssdScan)" && echo "$ex" | grep -q "Device Group Keys: l_returnflag, l_linestatus" &&
   echo "$ex" | grep -q "Partial Groups from Drive: [1-9]" && [ "$(drives_scanned "$ex")" = 2 ]; then
  tap_ok "data1: Q1's Remote SQL aggregates on its two drives"
else
  tap_not_ok "data1: Q1's Remote SQL aggregates on its two drives" "$(echo "$ex" | head -12 | tr '\n' ' ')"
fi
pgenv_use data2
ex=$(cursor_plan "$rq6")
echo "$ex" | sed 's/^/# /'
if echo "$ex" | grep -q "Custom Scan (OssdScan)" && echo "$ex" | grep "Device Filter:" | grep -q "l_quantity < " &&
   [ "$(drives_scanned "$ex")" = 2 ]; then
  tap_ok "data2: Q6's Remote SQL filters on its two drives"
else
  tap_not_ok "data2: Q6's Remote SQL filters on its two drives" "$(echo "$ex" | head -12 | tr '\n' ' ')"
fi
pgenv_use coord

# -- the answers
for q in q1 q6; do
  got=$(psql_q -c "${!q}" 2>&1)
  want=$(ref_q -c "${!q}" 2>&1)
  [ -n "$want" ] && [ "$got" = "$want" ] && tap_ok "$q through the coordinator = the reference ($(echo "$got" | wc -l) rows)" \
    || tap_not_ok "$q through the coordinator = the reference" "got: $got / want: $want"
done
}

main
tap_done
