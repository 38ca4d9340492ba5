#!/usr/bin/env bash
# run-array.sh - pg_ossd on a tablespace striped over an array of three
# drives (odd on purpose: stripes line up with nothing by luck; issue 14,
# docs/arrays.md).  Starts three drives, labels them one array (stripe
# unit 64 KiB: 8 heap blocks), mounts ossdfs over them, starts a private
# cluster with its tablespace "ossd" there (tests/pg/pg-env.bash) and loads
# tests/pg/setup-tpch.sql.  Then:
#  - every segment file of lineitem says it is striped over the three drives;
#  - EXPLAIN ANALYZE of a forced scan shows the three drives each sent
#    blocks, returning rows and bytes, their blocks adding up to the
#    drive's total, with host blocks (not all-visible) beside them;
#  - the planner prices a scan's drive part at a third of one drive's;
#  - TPC-H Q1 and Q6 aggregate on the three drives (partial groups from
#    each, merged on the host) and answer as offload off does;
#  - a kernel deployed with ossd_deploy_kernel is on all three drives and
#    ossd_filter with it answers as its SQL equivalent; dropped from all;
#  - with one drive killed the offloaded scan fails naming it; restarted,
#    the answer is offload off's again.
# The regression and differential suites (sql/*.sql against expected/,
# ossd_diff five ways among them) run on an array of three drives in
# tests/pg/run-regress-array.sh, with a smaller unit.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5452
source "$top/tests/pg/pg-env.bash"
ndrives=3

main () {
if ! pgenv_up_array pg-array $ndrives 1G 65536; then
  tap_not_ok "three drives, one array, ossdfs and cluster up"; tap_done; return 1
fi
tap_ok "three drives, one array, ossdfs and cluster up"

psql_q -c "CREATE DATABASE regress_ossd" >/dev/null
psql_q -d regress_ossd -c "CREATE EXTENSION pg_ossd" >/dev/null
if cat "$top/tests/pg/setup-tpch.sql" "$top/tests/pg/regress-helpers.sql" |
   psql_q -d regress_ossd >"$work/setup.log" 2>&1; then
  tap_ok "TPC-H-like schema loaded on the array"
else
  tap_not_ok "TPC-H-like schema loaded on the array" "$(tail -3 "$work/setup.log")"
fi

# -- the layout of lineitem's segment file
rel=$(psql_q -d regress_ossd -c "SELECT pg_relation_filepath('lineitem')")
layout=$(getfattr --absolute-names --only-values -n user.ossd.layout "$pgdata/$rel" 2>&1)
want="raid0 n=3 unit=65536 uuid=UUID drives=${array_dev[0]},${array_dev[1]},${array_dev[2]}"
if [ "$(echo "$layout" | sed 's/uuid=[0-9a-f-]*/uuid=UUID/')" = "$want" ]; then
  tap_ok "lineitem's segment is striped over the three drives ($layout)"
else
  tap_not_ok "lineitem's segment is striped over the three drives" "$layout"
fi

# -- EXPLAIN ANALYZE: every drive scanned its share
ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" \
      -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT l_orderkey, l_partkey FROM lineitem WHERE l_quantity < 24")
echo "$ex" | sed 's/^/# /'
total=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p')
host=$(echo "$ex" | sed -n 's/.*Blocks on Host: \([0-9]*\).*/\1/p')
ok=1 sum=0 rows=0 detail=
for ((d = 0; d < ndrives; d++)); do
  line=$(echo "$ex" | grep "Drive $d: ")
  b=$(echo "$line" | sed -n 's/.*blocks=\([0-9]*\).*/\1/p')
  r=$(echo "$line" | sed -n 's/.*rows=\([0-9]*\).*/\1/p')
  y=$(echo "$line" | sed -n 's/.*bytes=\([0-9]*\).*/\1/p')
  { [ "${b:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ] && [ "${y:-0}" -gt 0 ]; } || ok=
  sum=$((sum + ${b:-0})); rows=$((rows + ${r:-0}))
  detail="$detail drive $d: $b blocks, $r rows, $y bytes;"
done
drive_rows=$(echo "$ex" | sed -n 's/^ *Rows from Drive: \([0-9]*\).*/\1/p')
if [ -n "$ok" ] && echo "$ex" | grep -q "Drives: 3" && [ "$sum" = "${total:-x}" ] \
   && [ "$rows" = "${drive_rows:-x}" ] && [ "${host:-0}" -gt 0 ]; then
  tap_ok "EXPLAIN ANALYZE: all three drives scanned ($detail $host blocks on the host)"
else
  tap_not_ok "EXPLAIN ANALYZE: all three drives scanned" "$(echo "$ex" | tr '\n' ' ')"
fi
# a stripe unit is 8 blocks and lineitem many units: the shares are near equal
if [ -n "$ok" ]; then
  min=$(echo "$ex" | sed -n 's/.*Drive [0-9]: blocks=\([0-9]*\).*/\1/p' | sort -n | head -1)
  max=$(echo "$ex" | sed -n 's/.*Drive [0-9]: blocks=\([0-9]*\).*/\1/p' | sort -n | tail -1)
  [ $((max - min)) -le 16 ] && tap_ok "each drive holds a third of the blocks (min $min, max $max)" \
    || tap_not_ok "each drive holds a third of the blocks" "min $min max $max"
else
  tap_not_ok "each drive holds a third of the blocks" "no per-drive figures"
fi

# -- the planner: three drives scan their shares at once, so a scan's drive
# part costs a third of one drive's (ossd.array_scan_drives=1 prices one)
cost_of () {
  psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" \
    -c "SET ossd.array_scan_drives = $1" \
    -c "EXPLAIN (FORMAT JSON) SELECT l_orderkey FROM lineitem WHERE l_quantity < 2" |
    python3 -c 'import json,sys; p=json.load(sys.stdin)[0]["Plan"]; print(p["Startup Cost"], p["Total Cost"])'
}
read -r s1 c1 <<<"$(cost_of 1)"
read -r s3 c3 <<<"$(cost_of 0)"
if python3 -c "import sys; s,c1,c3=$s1,$c1,$c3; sys.exit(0 if c3 < c1 and c3 - s >= (c1 - s) / 3 - 0.01 else 1)" 2>/dev/null; then
  tap_ok "the planner prices the array's three drives scanning at once (cost $c3 against one drive's $c1)"
else
  tap_not_ok "the planner prices the array's three drives scanning at once" "startup $s1/$s3 total one drive $c1, three $c3"
fi

# -- under a Gather: each process sends each drive a SCAN for its chunks,
# and EXPLAIN adds up what every process did, per drive too
ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 2" \
      -c "SET ossd.parallel_chunk_blocks = 64" \
      -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT l_orderkey FROM lineitem WHERE l_quantity < 24")
total=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p')
sum=0 n=0
for b in $(echo "$ex" | sed -n 's/.*Drive [0-9]: blocks=\([0-9]*\).*/\1/p'); do
  sum=$((sum + b)); [ "$b" -gt 0 ] && n=$((n + 1))
done
if echo "$ex" | grep -q "Workers Launched: [1-9]" && [ "$n" = 3 ] && [ "$sum" = "${total:-x}" ]; then
  tap_ok "parallel scan: the three drives' blocks add up over the processes ($sum = Blocks on Drive)"
else
  tap_not_ok "parallel scan: per-drive blocks over the processes" "$(echo "$ex" | tr '\n' ' ')"
fi

# -- Q1 and Q6: partial aggregates from each drive, merged on the host
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_discount), count(*)
      FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days' GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2"
q6="SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= date '1994-01-01'
      AND l_shipdate < date '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
for q in q1 q6; do
  for par in 0 2; do
    on=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = $par" -c "${!q}")
    off=$(psql_q -d regress_ossd -c "SET ossd.enabled = off" -c "SET max_parallel_workers_per_gather = $par" -c "${!q}")
    [ -n "$on" ] && [ "$on" = "$off" ] && tap_ok "$q, parallel $par: offloaded to 3 drives = offload off" \
      || tap_not_ok "$q, parallel $par: offloaded to 3 drives = offload off" "on: $on / off: $off"
  done
  ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" \
        -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${!q}")
  n=$(echo "$ex" | grep -c "Drive [0-9]: blocks=[1-9][0-9]*, rows=[0-9]*, bytes=[1-9]")
  if echo "$ex" | grep -q "Partial Groups from Drive: [1-9]" && [ "$n" = 3 ]; then
    tap_ok "$q: partial aggregation on each of the three drives, final merge on the host"
  else
    tap_not_ok "$q: partial aggregation on each of the three drives" "$(echo "$ex" | tr '\n' ' ')"
  fi
done

# -- a deployed kernel goes to every drive of the array
cp "$top/build/examples/q6_filter.o" "$work/" && chmod 644 "$work/q6_filter.o"
psql_q -d regress_ossd -c "SELECT ossd_deploy_kernel('q6a', pg_read_binary_file('$work/q6_filter.o'))" >/dev/null
on=$(psql_q -d regress_ossd -c "SELECT string_agg(device, ' ' ORDER BY device) FROM ossd_kernels() WHERE name = 'q6a'")
want=$(printf '%s\n' "${array_dev[@]}" | sort | tr '\n' ' ' | sed 's/ $//')
[ "$on" = "$want" ] && tap_ok "ossd_deploy_kernel put the kernel on the three drives" \
  || tap_not_ok "ossd_deploy_kernel put the kernel on the three drives" "on: '$on' want: '$want'"
kq="SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem WHERE ossd_filter('q6a', l_shipdate, l_discount, l_quantity)"
sq="SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= date '1994-01-01'
      AND l_shipdate < date '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
a=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" -c "$kq")
b=$(psql_q -d regress_ossd -c "SET ossd.enabled = off" -c "$sq")
ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" \
      -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $kq")
n=$(echo "$ex" | grep -c "Drive [0-9]: blocks=[1-9]")
if [ -n "$a" ] && [ "$a" = "$b" ] && echo "$ex" | grep -q "Device Kernel: q6a" && [ "$n" = 3 ]; then
  tap_ok "ossd_filter('q6a', ...) runs on the three drives and answers as its SQL ($a)"
else
  tap_not_ok "ossd_filter('q6a', ...) on the three drives" "kernel: $a sql: $b $(echo "$ex" | tr '\n' ' ')"
fi
psql_q -d regress_ossd -c "SELECT ossd_drop_kernel('q6a')" >/dev/null
left=$(psql_q -d regress_ossd -c "SELECT count(*) FROM ossd_kernels() WHERE name = 'q6a'")
[ "$left" = 0 ] && tap_ok "ossd_drop_kernel removed it from the three drives" \
  || tap_not_ok "ossd_drop_kernel removed it from the three drives" "$left left"

# -- a drive of the array down: the offloaded scan fails naming it (never
# a partial answer); back up, the same query answers as offload off
q="SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_quantity < 24"
want=$(psql_q -d regress_ossd -c "SET ossd.enabled = off" -c "$q")
array_drive_kill 2
out=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" -c "$q" 2>&1)
case $out in
  *"${array_dev[2]}"*|*"drive 2 of the array"*) tap_ok "drive 2 down: the scan fails naming it ($(echo "$out" | head -1))" ;;
  *) tap_not_ok "drive 2 down: the scan fails naming it" "$out" ;;
esac
array_drive_restart 2 "${drive_access[@]}" && chmod 755 "$work/run2" && array_drive_wait_ready 2 30
got=
for _ in $(seq 20); do
  got=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = 0" -c "$q" 2>&1)
  [ "$got" = "$want" ] && break
  sleep 0.5
done
[ -n "$want" ] && [ "$got" = "$want" ] && tap_ok "drive 2 back: the offloaded answer is offload off's ($got)" \
  || tap_not_ok "drive 2 back: the offloaded answer is offload off's" "got '$got' want '$want'"
}

main
tap_done
