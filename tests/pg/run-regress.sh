#!/usr/bin/env bash
# run-regress.sh - TAP wrapper of the pg_ossd pg_regress suites.
#
# Starts its own drive, ossdfs mount and private cluster (postgres user,
# Unix socket in a temp dir), loads tests/pg/setup-tpch.sql into the ossd
# tablespace and tests/pg/regress-helpers.sql (the files' shared functions),
# then runs sql/ossd_diff.sql against expected/ossd_diff.out
# five times: offload forced / offload off, each with parallel query off
# and on, and the interpreter -- identical output every time is the
# differential check --, the
# pgTAP suite sql/ossd_api.sql, sql/ossd_planner.sql and the theme files
# (ossd_candidates, ossd_quals, ossd_aggregates, ossd_joins_params,
# ossd_parallel_partitions, ossd_cost_model, ossd_types, ossd_mvcc_blocks,
# ossd_parallel_chunks) once with their own settings (their EXPLAIN
# output is part of the answer, they compare offload on and off
# themselves), and
# the files of SQL's other corners (ossd_dml, ossd_rls_views, ...), and
# sql/ossd_security.sql (privileges) with a second drive (its own ossdfs
# and tablespace) in ossd.devices.  Needs `make -C pg_ossd install` (root).
#
# OSSD_ARRAY_DRIVES=N (N > 1; tests/pg/run-regress-array.sh sets 3) runs
# the very same suites, settings and expected outputs with the tablespace
# on an array of N drives (stripe unit OSSD_ARRAY_UNIT, 16384 = two heap
# blocks: the suites' small tables straddle units and drives;
# docs/arrays.md).  The one difference allowed is EXPLAIN ANALYZE's
# per-drive lines (tests/pg/regress-drop-drive-lines.pl, run_suite in
# tests/pg/pg-env.bash; what the files count of drives is given the
# array's size, regress.ossd_drives).  It also checks lineitem's layout
# and that the tables straddled the drives: the drives the relations span
# after the setup (and, reported, at the end), the per-drive lines the
# suites' EXPLAIN ANALYZE printed, each drive's own count of scans.  The
# security suite's second drive stays one plain drive.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
source "$top/tests/pg/pg-env.bash"

# On an array: lineitem's segment is striped as asked, and how many drives
# the tables of setup-tpch.sql span (a table of B blocks spans
# min(N, ceil(B / unit blocks)) drives).
array_layout_check () {
  local rel layout want spans
  rel=$(psql_q -d regress_ossd -c "SELECT pg_relation_filepath('lineitem')")
  layout=$(getfattr --absolute-names --only-values -n user.ossd.layout "$pgdata/$rel" 2>&1)
  want="${OSSD_ARRAY_LEVEL:-raid0} n=$pgenv_ndrives unit=$pgenv_array_unit uuid=UUID drives=$(IFS=,; echo "${array_dev[*]}")"
  if [ "$(echo "$layout" | sed 's/uuid=[0-9a-f-]*/uuid=UUID/')" = "$want" ]; then
    tap_ok "lineitem's segment is striped over the $pgenv_ndrives drives (${OSSD_ARRAY_LEVEL:-raid0}), unit $pgenv_array_unit"
  else
    tap_not_ok "lineitem's segment is striped over the $pgenv_ndrives drives" "$layout"
  fi
  spans=$(relations_spans)
  echo "# relations of tablespace ossd after setup, by drives spanned: $spans"
  case " $spans " in
    *" $pgenv_ndrives drives: "*) tap_ok "the shared tables straddle the drives ($spans)" ;;
    *) tap_not_ok "the shared tables straddle the drives" "$spans" ;;
  esac
}
# "1 drives: A, 2 drives: B, ..." over the relations (tables, indexes,
# TOAST, materialized views) of tablespace ossd in database regress_ossd
relations_spans () {
  psql_q -d regress_ossd -c "
    SELECT string_agg(format('%s drives: %s', d, n), ', ' ORDER BY d) FROM (
      SELECT d, count(*) AS n FROM (
        SELECT least($pgenv_ndrives, ceil(pg_relation_size(c.oid) / $pgenv_array_unit.0)) AS d
          FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
         WHERE t.spcname = 'ossd' AND pg_relation_size(c.oid) > 0) r
      GROUP BY d) s"
}
# The per-drive lines of the suites' EXPLAIN ANALYZE (before they are
# filtered): how many striped scans had blocks on how many drives.
scans_spans () {
  cat "$work"/regress/out-*/results/*.out 2>/dev/null | awk '
    function flush() { if (inscan) n[on]++; inscan = 0; on = 0 }
    /^ *Drives: [0-9]+ *$/ { flush(); inscan = 1; next }
    inscan && /^ *Drive [0-9]+: blocks=/ { if ($3 !~ /^blocks=0,/) on++; next }
    { flush() }
    END { flush(); for (d in n) printf "%s drives: %s, ", d, n[d] }' | sed 's/, $//'
}

if ! pgenv_up_selected pg-regress; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
regress_stage

psql_q -c "CREATE DATABASE regress_ossd" >/dev/null
psql_q -d regress_ossd -c "CREATE EXTENSION pg_ossd" >/dev/null
if cat "$top/tests/pg/setup-tpch.sql" "$top/tests/pg/regress-helpers.sql" |
   psql_q -d regress_ossd >"$work/setup.log" 2>&1; then
  tap_ok "TPC-H-like schema loaded on the drive"
else
  tap_not_ok "TPC-H-like schema loaded on the drive" "$(tail -3 "$work/setup.log")"
fi
if [ "$pgenv_ndrives" -gt 1 ]; then
  array_layout_check
  # the filter removes the per-drive lines and nothing else, footer fixed
  got=$(printf '%s\n' ' QUERY PLAN' '------------' ' Custom Scan (OssdScan) on t' '   Drives: 3' \
          '   Drive 0: blocks=4, rows=10, bytes=99' '   Drive Tuples Seen: 7' '   Drive 2: blocks=4, rows=10' \
          '   Drive 1: blocks=0, rows=0, bytes=0' '(6 rows)' '' ' x ' '---' ' Drives: 3' '(1 row)' |
        perl "$top/tests/pg/regress-drop-drive-lines.pl" | tr '\n' '|')
  want=' QUERY PLAN|------------| Custom Scan (OssdScan) on t|   Drive Tuples Seen: 7|   Drive 2: blocks=4, rows=10|(3 rows)||'
  want+=' x |---|(0 rows)|'
  [ "$got" = "$want" ] && tap_ok "regress-drop-drive-lines.pl removes the per-drive lines only" \
    || tap_not_ok "regress-drop-drive-lines.pl removes the per-drive lines only" "got '$got'"
fi

run_suite "ossd_diff: offload forced, parallel off" "-c ossd.force_offload=on -c max_parallel_workers_per_gather=0" ossd_diff
run_suite "ossd_diff: offload forced, parallel on"  "-c ossd.force_offload=on -c max_parallel_workers_per_gather=2" ossd_diff
run_suite "ossd_diff: offload off, parallel off"    "-c ossd.enabled=off -c max_parallel_workers_per_gather=0" ossd_diff
run_suite "ossd_diff: offload off, parallel on"     "-c ossd.enabled=off -c max_parallel_workers_per_gather=2" ossd_diff
run_suite "ossd_diff: offload forced, interpreter"  "-c ossd.force_offload=on -c ossd.kernel_mode=interpreter" ossd_diff
# planner decisions (inheritance, LATERAL, map-kernel group keys, parallel
# append counters, rescans): the file sets what it needs, plans are output
run_suite "ossd_planner" "" ossd_planner
# the planner's decisions theme by theme, each offloaded answer checked
# against offload off inside the file (its own helper), plans in the output
for t in ossd_candidates ossd_quals ossd_aggregates ossd_joins_params ossd_parallel_partitions \
         ossd_cost_model ossd_types ossd_mvcc_blocks ossd_parallel_chunks; do
  run_suite "$t" "" "$t"
done

run_suite "ossd_collate" "" ossd_collate
# a relation's I/O priority on the drive (docs/qos.md)
run_suite "ossd_priority" "" ossd_priority
run_suite "ossd_vacuum" "" ossd_vacuum
# join filters: present where safe, absent where not, answers as offload off
run_suite "ossd_join_filter" "" ossd_join_filter
# the defects PostgreSQL's own regression SQL found (run-pg-regress.sh)
run_suite "ossd_pg_regress_cases" "" ossd_pg_regress_cases
# what bench/soak/sqlsmith found (each case checked against offload off)
run_suite "ossd_sqlsmith_cases" "" ossd_sqlsmith_cases
# defects found by the random differential test (run-random-diff.sh)
run_suite "ossd_random_cases" "" ossd_random_cases
# offloaded scans in SQL's other corners, each answer against offload off:
# DML and row marks, prepared statements and cursors, rescans and
# parameterised paths, inheritance and partitions, rescans from stored
# rows, HAVING on the drive's merged groups, windows and CTEs, more types
for t in ossd_dml ossd_prepared ossd_rescans ossd_inheritance ossd_rescans_stored ossd_having \
         ossd_windows_ctes ossd_types_more ossd_agg_planning ossd_index_blocks; do
  run_suite "$t" "" "$t"
done

# The forced runs really used the drive, for some blocks and not others.
ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" \
      -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT count(*) FROM lineitem WHERE l_quantity < 24")
d=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p')
h=$(echo "$ex" | sed -n 's/.*Blocks on Host: \([0-9]*\).*/\1/p')
if [ "${d:-0}" -gt 0 ] && [ "${h:-0}" -gt 0 ]; then
  tap_ok "forced offload scans $d blocks on the drive and $h on the host"
else
  tap_not_ok "forced offload scans blocks on the drive and on the host" "$ex"
fi

# Q1 and Q6 shapes of the suite aggregate on the drive (partial groups)
q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_discount), count(*)
      FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days' GROUP BY l_returnflag, l_linestatus"
q6="SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= date '1994-01-01'
      AND l_shipdate < date '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
for q in q1 q6; do
  ex=$(psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${!q}")
  if echo "$ex" | grep -q "Device Partial Aggregates" && echo "$ex" | grep -q "Partial Groups from Drive: [1-9]"; then
    tap_ok "$q: partial aggregation on the drive, final merge on the host"
  else
    tap_not_ok "$q: partial aggregation on the drive" "$(echo "$ex" | tr '\n' ' ')"
  fi
done

# kernels for the pgTAP suite: the clang-built examples and a malicious one
cp "$top"/build/examples/*.o "$work/"
cat >"$work/evil.c" <<'KERNEL'
#include "ossd_kernel.h"
OSSD_KERNEL (evil)
{
  return *(__s64 *) ((char *) ctx + 100000);   /* outside the context */
}
KERNEL
# README's command, against the header the extension installed
kinc=$("$pg_config" --includedir-server)/extension/pg_ossd
clang-14 -O2 -target bpf -I"$kinc" -c "$work/evil.c" -o "$work/evil.o"
cat >"$work/faulty.c" <<'KERNEL'
#include "ossd_kernel.h"
OSSD_KERNEL (faulty)
{
  const unsigned char *p = (const unsigned char *) ctx->col[0].data;
  return p[200] == 'x';   /* past the end of short values: run-time fault */
}
KERNEL
clang-14 -O2 -target bpf -I"$kinc" -c "$work/faulty.c" -o "$work/faulty.o"
cat >"$work/tohost.c" <<'KERNEL'
#include "ossd_kernel.h"
OSSD_KERNEL (tohost)
{
  /* every third key undecided: the drive hands the row to the host */
  return (__u64) ctx->col[0].value % 3 == 0 ? OSSD_ROW_TO_HOST : OSSD_ROW_MATCH;
}
KERNEL
clang-14 -O2 -target bpf -I"$kinc" -c "$work/tohost.c" -o "$work/tohost.o"
if [ -f "$kinc/ossd_kernel.h" ] && cmp -s "$kinc/ossd_kernel.h" "$top/offload_runtime/include/ossd_kernel.h" \
   && [ -s "$work/evil.o" ] && [ -s "$work/faulty.o" ]; then
  tap_ok "the installed ossd_kernel.h builds kernels with README's command"
else
  tap_not_ok "the installed ossd_kernel.h builds kernels with README's command" "$kinc"
fi
chmod 644 "$work"/*.o
psql_q -d regress_ossd -c "CREATE TABLE test_kernels AS
  SELECT 'q6_filter' AS name, pg_read_binary_file('$work/q6_filter.o') AS image
  UNION ALL SELECT 'like_filter', pg_read_binary_file('$work/like_filter.o')
  UNION ALL SELECT 'numeric_between', pg_read_binary_file('$work/numeric_between.o')
  UNION ALL SELECT 'like_pattern', pg_read_binary_file('$work/like_pattern.o')
  UNION ALL SELECT 'evil', pg_read_binary_file('$work/evil.o')
  UNION ALL SELECT 'faulty', pg_read_binary_file('$work/faulty.o')
  UNION ALL SELECT 'tohost', pg_read_binary_file('$work/tohost.o')" >/dev/null

if psql_q -d regress_ossd -c "CREATE EXTENSION IF NOT EXISTS pgtap" >/dev/null 2>&1; then
  run_suite "ossd_api (pgTAP)" "" ossd_api
else
  tap_not_ok "pgTAP available"
fi
# row-level security and security_barrier views (after ossd_api: it
# deploys a kernel of test_kernels)
run_suite "ossd_rls_views" "" ossd_rls_views

# ossd_security: a second, small drive with a tablespace of its own
# (ossd2, on a second ossdfs mount: the drive's kernel capabilities come
# from ossdfs), also named in ossd.devices for the suite's session.
mnt2=$work/mnt2
fs2_pid=
drive2_stop () {
  mountpoint -q "$mnt2" 2>/dev/null && { fusermount3 -u "$mnt2" || fusermount3 -u -z "$mnt2"; } 2>/dev/null
  [ -n "$fs2_pid" ] && { wait "$fs2_pid" 2>/dev/null; kill -9 "$fs2_pid" 2>/dev/null; }
  OSSD_RUNDIR=$work/runsec "$ctl" device stop --force >/dev/null 2>&1
}
trap 'drive2_stop; ofs_cleanup' EXIT
dev2="nbd+unix:///?socket=$work/runsec/ossd.sock"
mkdir -p "$mnt2"
if OSSD_RUNDIR=$work/runsec "$ctl" device start --image "$work/drivesec.img" --size 256M --volume 64M \
     --group postgres -- slots=16 >"$work/drivesec.log" 2>&1 &&
   chmod 755 "$work/runsec" &&
   { OSSD_RUNDIR=$work/runsec "$ossdfs" "$mnt2" --device "$dev2" --foreground --kernel-group postgres \
       >>"$work/ossdfs2.log" 2>&1 & fs2_pid=$!; } &&
   for _ in $(seq 100); do mountpoint -q "$mnt2" && break; sleep 0.1; done &&
   mkdir -p "$mnt2/ts" && chown postgres: "$mnt2/ts" &&
   psql_q -c "CREATE TABLESPACE ossd2 LOCATION '$mnt2/ts'" >/dev/null; then
  tap_ok "second drive up, with tablespace ossd2"
  run_suite "ossd_security" "-c ossd.devices=$dev2" ossd_security
else
  tap_not_ok "second drive up" "$(tail -3 "$work/drivesec.log" "$work/ossdfs2.log" 2>/dev/null)"
fi

# On an array, the suites' own tables straddled the drives too: EXPLAIN
# ANALYZE of their striped scans names blocks on every drive, and what is
# left of their relations spans them
if [ "$pgenv_ndrives" -gt 1 ]; then
  spans=$(scans_spans)
  echo "# striped scans in the suites' EXPLAIN ANALYZE, by drives with blocks: $spans"
  case ", $spans," in
    *", $pgenv_ndrives drives: "*) tap_ok "the suites' scans had blocks on all $pgenv_ndrives drives ($spans)" ;;
    *) tap_not_ok "the suites' scans had blocks on all $pgenv_ndrives drives" "$spans" ;;
  esac
  echo "# relations of tablespace ossd at the end, by drives spanned: $(relations_spans)"
  # every drive of the array ran scans of the suites (its own counter)
  per=$(for ((i = 0; i < pgenv_ndrives; i++)); do
          n=$(psql_q -d regress_ossd -c "SELECT value::bigint FROM ossd_device_stats('${array_dev[i]}') WHERE name = 'scans'")
          echo -n "drive $i: ${n:-none}, "
        done | sed 's/, $//')
  if ! echo "$per" | grep -qE 'none|: 0(,|$)'; then
    tap_ok "every drive of the array ran scans ($per)"
  else
    tap_not_ok "every drive of the array ran scans" "$per"
  fi
fi
tap_done
