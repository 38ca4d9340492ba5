#!/usr/bin/env bash
# run-raid5.sh - PostgreSQL on a tablespace over a RAID-5 array of three
# drives (rows of two data units and one rotating parity unit, stripe
# unit 64 KiB: docs/arrays.md), through a drive failure and its repair.
# Starts three drives, labels them one RAID-5 array, mounts ossdfs over
# them, starts a private cluster with its tablespace "ossd" there
# (tests/pg/pg-env.bash, shared_buffers small so that pgbench reads and
# writes go through ossdfs) and loads tests/pg/setup-tpch.sql.  Then:
#  - lineitem's segment says raid5 over the three drives, none out;
#  - healthy: TPC-H Q1 and Q6, offloaded (serial and under a Gather),
#    answer as offload off does, and each of the three drives scans its
#    share (its data units, never parity);
#  - pgbench (scale 5, in tablespace ossd) runs 12 s with drive 1 killed
#    (kill -9 of its nbdkit) 4 s in: no transaction fails, ossdfs takes
#    the drive out and runs degraded (the tps and latency are reported,
#    not judged);
#  - degraded: the layout says out=1; Q1 and Q6 answer as offload off with
#    drive 1 sent no SCAN (the host reads its share through ossdfs, rebuilt
#    from the others); CHECKPOINT succeeds; pgbench's invariant (accounts,
#    tellers and branches sum to the history's deltas) holds offloaded and
#    not; pg_amcheck (heap and every B-tree, heapallindexed) is clean;
#  - drive 1 still down at the next mount: ossdfs mounts degraded from the
#    other two, and Q1/Q6 (offloaded = off, drive 1 sent no SCAN) and the
#    invariant hold;
#  - drive 1 back with its stale image: ossdfs mounts degraded (the array
#    state says drive 1 is out of date), pg_ossd still scans only drives 0
#    and 2, and the answers (pgbench's rows changed after the kill among
#    them) are the up-to-date ones;
#  - offline: ossdctl array info says degraded, array rebuild --drive 1
#    (bytes and seconds reported), then info says clean and array fsck
#    checks every parity row;
#  - remounted and restarted: the three drives scan again, Q1/Q6, the
#    invariant and pg_amcheck as before.
# The regression suites on a RAID-5 array: tests/pg/run-regress-raid5.sh;
# the filesystem alone: tests/integration/26-ossdfs-raid5.sh.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5449
source "$top/tests/pg/pg-env.bash"
ndrives=3
# pgbench's accounts (~75 MB at scale 5) do not fit: reads and evictions
# go through ossdfs while the drive dies
pg_shared_buffers=16MB

q1="SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_discount), count(*)
      FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 days' GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2"
q6="SELECT sum(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= date '1994-01-01'
      AND l_shipdate < date '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
# pgbench's invariant: every transaction adds its delta to one account,
# teller and branch and logs it in the history
inv="SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(tbalance) FROM pgbench_tellers),
            (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(delta) FROM pgbench_history),
            (SELECT count(*) FROM pgbench_history)"

q_on () { psql_q -d regress_ossd -c "SET ossd.force_offload = on" -c "SET max_parallel_workers_per_gather = $1" -c "$2" 2>&1; }
q_off () { psql_q -d regress_ossd -c "SET ossd.enabled = off" -c "SET max_parallel_workers_per_gather = $1" -c "$2" 2>&1; }
explain_on () { q_on 0 "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $1"; }
# blocks drive D sent in EXPLAIN output EX ("" when its line is absent)
drive_blocks () { echo "$1" | sed -n "s/^ *Drive $2: blocks=\([0-9]*\).*/\1/p" | head -1; }
host_blocks () { echo "$1" | sed -n 's/.*Blocks on Host: \([0-9]*\).*/\1/p' | head -1; }
layout_of () {
  local rel
  rel=$(psql_q -d regress_ossd -c "SELECT pg_relation_filepath('$1')")
  getfattr --absolute-names --only-values -n user.ossd.layout "$pgdata/$rel" 2>&1
}
pgb () { pg_as "$pgbin/pgbench" -h "$work/pgsock" -p "$pg_port" -U postgres "$@"; }
json_get () { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)" 2>/dev/null; }

# Q1 and Q6, offloaded = offload off, serial and parallel (PHASE: a word
# for the TAP lines)
queries_match () {
  local phase=$1 q par on off
  for q in q1 q6; do
    for par in 0 2; do
      on=$(q_on "$par" "${!q}")
      off=$(q_off "$par" "${!q}")
      [ -n "$on" ] && [ "$on" = "$off" ] && tap_ok "$phase: $q, parallel $par: offloaded = offload off" \
        || tap_not_ok "$phase: $q, parallel $par: offloaded = offload off" "on: $(echo "$on" | tr '\n' ' ') / off: $(echo "$off" | tr '\n' ' ')"
    done
  done
}

declare -A healthy_total=() healthy_host=() healthy_d1=()
# EXPLAIN ANALYZE of Q1 and Q6 forced: with OUT empty every drive sent
# blocks; with OUT=d drive d sent none (blocks=0 or no line), the others
# did, and the host read d's share (through ossdfs) beside what it read
# in the healthy scan (run first): the blocks add up as they did then
scans_ok () {
  local phase=$1 out=$2 q ex d b ok detail host total
  for q in q1 q6; do
    ex=$(explain_on "${!q}")
    echo "$ex" | sed "s/^/# $phase $q: /"
    ok=1 detail=
    for ((d = 0; d < ndrives; d++)); do
      b=$(drive_blocks "$ex" $d)
      if [ "$d" = "$out" ]; then
        [ -z "$b" ] || [ "$b" = 0 ] || ok=
      else
        [ "${b:-0}" -gt 0 ] || ok=
      fi
      detail="$detail drive $d: ${b:-no line};"
    done
    host=$(host_blocks "$ex")
    total=$(( $(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p' | head -1) + ${host:-0} ))
    if [ -z "$out" ]; then
      # what the first healthy scan of q did: its blocks, the host's, and
      # those of drive 1 (the one killed)
      if [ -z "${healthy_total[$q]+x}" ]; then
        healthy_total[$q]=$total healthy_host[$q]=${host:-0} healthy_d1[$q]=$(drive_blocks "$ex" 1)
      fi
      echo "$ex" | grep -q "Drives: 3" || ok=
      [ -n "$ok" ] && tap_ok "$phase: $q scanned by all three drives ($detail host ${host:-?})" \
        || tap_not_ok "$phase: $q scanned by all three drives" "$(echo "$ex" | tr '\n' ' ')"
    else
      # the same blocks, the out drive's share now the host's
      [ "${host:-0}" -gt 0 ] || ok=
      [ "$total" = "${healthy_total[$q]:-x}" ] && [ "${host:-0}" -ge $(( ${healthy_host[$q]:-0} + ${healthy_d1[$q]:-0} )) ] || ok=
      echo "$ex" | grep -q "Partial Groups from Drive: [1-9]\|Rows from Drive: [1-9]" || ok=
      [ -n "$ok" ] && tap_ok "$phase: $q: no SCAN to drive $out, the others scan, the host reads its share ($detail host $host: the healthy scan's ${healthy_host[$q]} and drive $out's ${healthy_d1[$q]})" \
        || tap_not_ok "$phase: $q: no SCAN to drive $out, the others scan, the host reads its share" "$(echo "$ex" | tr '\n' ' ')"
    fi
  done
}

# pgbench's invariant holds, offloaded and not, and the two agree
invariant_ok () {
  local phase=$1 on off
  on=$(q_on 0 "$inv")
  off=$(q_off 0 "$inv")
  if [ "$on" = "$off" ] && echo "$on" | awk -F'|' '{ exit !($1 == $2 && $2 == $3 && $3 == $4 && $5 > 0) }'; then
    tap_ok "$phase: pgbench's invariant holds, offloaded = offload off (accounts|tellers|branches|history|n: $on)"
  else
    tap_not_ok "$phase: pgbench's invariant holds, offloaded = offload off" "on: $on / off: $off"
  fi
}

amcheck_ok () {
  local phase=$1
  if pg_as "$pgbin/pg_amcheck" -h "$work/pgsock" -p "$pg_port" -U postgres -d regress_ossd -d postgres \
       --heapallindexed >"$work/amcheck.log" 2>&1; then
    tap_ok "$phase: pg_amcheck --heapallindexed clean (regress_ossd, postgres)"
  else
    tap_not_ok "$phase: pg_amcheck --heapallindexed clean" "$(head -5 "$work/amcheck.log" | tr '\n' ' ')"
  fi
}

# no PANIC, no I/O error in the server log since line FROM
pglog_clean () {
  local phase=$1 from=$2 bad
  bad=$(tail -n +"$from" "$work/pgsock/pg.log" | grep -E 'PANIC|could not (read|write|fsync|open|extend)' | head -3)
  [ -z "$bad" ] && tap_ok "$phase: no PANIC or I/O error in the server log" \
    || tap_not_ok "$phase: no PANIC or I/O error in the server log" "$bad"
}
loglines () { wc -l <"$1" 2>/dev/null || echo 0; }

main () {
if ! pgenv_up_array pg-raid5 $ndrives 1G 65536 raid5; then
  tap_not_ok "three drives, one RAID-5 array, ossdfs and cluster up"; tap_done; return 1
fi
tap_ok "three drives, one RAID-5 array, ossdfs and cluster up"

psql_q -c "CREATE DATABASE regress_ossd" >/dev/null
psql_q -d regress_ossd -c "CREATE EXTENSION pg_ossd" >/dev/null
psql_q -d regress_ossd -c "CREATE EXTENSION amcheck" >/dev/null
psql_q -d postgres -c "CREATE EXTENSION amcheck" >/dev/null
if cat "$top/tests/pg/setup-tpch.sql" "$top/tests/pg/regress-helpers.sql" |
   psql_q -d regress_ossd >"$work/setup.log" 2>&1; then
  tap_ok "TPC-H-like schema loaded on the RAID-5 array"
else
  tap_not_ok "TPC-H-like schema loaded on the RAID-5 array" "$(tail -3 "$work/setup.log")"
fi

# -- the layout: raid5 over the three drives, none out
layout=$(layout_of lineitem)
case $layout in
  "raid5 n=3 unit=65536 "*" out="*) tap_not_ok "lineitem's segment: raid5 over the three drives, none out" "$layout" ;;
  "raid5 n=3 unit=65536 "*) tap_ok "lineitem's segment: raid5 over the three drives, none out ($layout)" ;;
  *) tap_not_ok "lineitem's segment: raid5 over the three drives, none out" "$layout" ;;
esac

# -- healthy
queries_match healthy
scans_ok healthy ""

# -- pgbench, drive 1 killed 4 s into the run
if pgb -i -q -s 5 --tablespace=ossd --index-tablespace=ossd regress_ossd >"$work/pgbench-init.log" 2>&1; then
  tap_ok "pgbench -i -s 5 in tablespace ossd"
else
  tap_not_ok "pgbench -i -s 5 in tablespace ossd" "$(tail -3 "$work/pgbench-init.log" | tr '\n' ' ')"
fi
layout=$(layout_of pgbench_accounts)
case $layout in "raid5 n=3 "*) tap_ok "pgbench_accounts is on the RAID-5 array" ;;
  *) tap_not_ok "pgbench_accounts is on the RAID-5 array" "$layout" ;; esac
pglog_from=$(( $(loglines "$work/pgsock/pg.log") + 1 ))
pgb -c 2 -j 2 -T 12 -P 1 --failures-detailed regress_ossd >"$work/pgbench.out" 2>&1 &
bpid=$!
sleep 4
array_drive_kill 1
for _ in $(seq 100); do grep -q "drive 1 .* failed .*the array runs degraded" "$work/ossdfs.log" && break; sleep 0.1; done
wait $bpid; brc=$?
sed 's/^/# pgbench: /' "$work/pgbench.out" | grep -v "^# pgbench: progress" 
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.out" | head -1)
lat=$(sed -n 's/^latency average = \([0-9.]* ms\).*/\1/p' "$work/pgbench.out" | head -1)
ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/pgbench.out")
nfail=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/pgbench.out")
bad=$(grep -iE 'error|abort' "$work/pgbench.out" | head -3)
# the progress lines around the kill (their tps show the failover)
prog=$(grep '^progress: [3-7]\.' "$work/pgbench.out" | sed 's/ lat.*//' | tr '\n' ';')
if [ "$brc" = 0 ] && [ -z "$bad" ] && [ "${nfail:-x}" = 0 ] && [ "${ntx:-0}" -gt 0 ]; then
  tap_ok "pgbench -c 2 -T 12 with drive 1 killed at 4 s: $ntx transactions, 0 failed (tps $tps, latency average $lat; $prog)"
else
  tap_not_ok "pgbench with drive 1 killed mid-run: no transaction fails" "exit $brc, processed ${ntx:-?}, failed ${nfail:-?}: $bad"
fi
grep -q "drive 1 .* failed .*the array runs degraded" "$work/ossdfs.log" \
  && tap_ok "ossdfs took drive 1 out: $(grep -o "drive 1 .* failed ([^)]*)" "$work/ossdfs.log" | head -1)" \
  || tap_not_ok "ossdfs took drive 1 out and runs degraded" "$(tail -3 "$work/ossdfs.log" | tr '\n' ' ')"

# -- degraded
layout=$(layout_of lineitem)
case $layout in *" out=1 "*) tap_ok "degraded: the layout names drive 1 out ($layout)" ;;
  *) tap_not_ok "degraded: the layout names drive 1 out" "$layout" ;; esac
queries_match degraded
scans_ok degraded 1
ok_if "degraded: CHECKPOINT" psql_q -c CHECKPOINT
pglog_clean degraded "$pglog_from"
invariant_ok degraded
ex=$(explain_on "SELECT sum(abalance) FROM pgbench_accounts")
b=$(drive_blocks "$ex" 1)
{ [ -z "$b" ] || [ "$b" = 0 ]; } && [ "$(drive_blocks "$ex" 0)" -gt 0 ] 2>/dev/null \
  && tap_ok "degraded: the offloaded scan of pgbench_accounts sends no SCAN to drive 1 (drive 0: $(drive_blocks "$ex" 0), drive 2: $(drive_blocks "$ex" 2), host: $(host_blocks "$ex"))" \
  || tap_not_ok "degraded: the offloaded scan of pgbench_accounts sends no SCAN to drive 1" "$(echo "$ex" | tr '\n' ' ')"
amcheck_ok degraded

# -- drive 1 still down when ossdfs mounts: degraded from the other two
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount ossdfs" fs_umount
n=$(loglines "$work/ossdfs.log")
ok_if "mount ossdfs with drive 1 down" fs_mount --kernel-group postgres
tail -n +"$((n + 1))" "$work/ossdfs.log" | grep -q "cannot reach drive 1 of the array" \
  && tail -n +"$((n + 1))" "$work/ossdfs.log" | grep -q "drive 1 .* is out of date .*mounted degraded" \
  && tap_ok "ossdfs mounts with drive 1 out of reach: degraded" \
  || tap_not_ok "ossdfs mounts with drive 1 out of reach" "$(tail -3 "$work/ossdfs.log" | tr '\n' ' ')"
pglog_from=$(( $(loglines "$work/pgsock/pg.log") + 1 ))
ok_if "PostgreSQL starts with drive 1 down" pg_start
queries_match "drive 1 down at mount"
scans_ok "drive 1 down at mount" 1
invariant_ok "drive 1 down at mount"
ok_if "stop PostgreSQL" pg_stop
pglog_clean "drive 1 down at mount" "$pglog_from"
ok_if "unmount ossdfs" fs_umount

# -- drive 1 back on its stale image: mounted degraded, never scanned
ok_if "drive 1 restarts on its (stale) image" array_drive_restart 1 "${drive_access[@]}"
chmod 755 "$work/run1"
ok_if "drive 1 answers" array_drive_wait_ready 1 30
info=$(array_ctl --json array info 2>/dev/null)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["level"] == "raid5" and j["state"] == "degraded", j
assert [m["state"] for m in j["members"]] == ["in", "out of date", "in"], j
' && tap_ok "array info: degraded, drive 1 out of date" || tap_not_ok "array info: degraded, drive 1 out of date" "$info"
n=$(loglines "$work/ossdfs.log")
ok_if "remount ossdfs with drive 1 back" fs_mount --kernel-group postgres
tail -n +"$((n + 1))" "$work/ossdfs.log" | grep -q "drive 1 .* is out of date .*mounted degraded" \
  && tap_ok "ossdfs mounts degraded: drive 1 is out of date" \
  || tap_not_ok "ossdfs mounts degraded: drive 1 is out of date" "$(tail -3 "$work/ossdfs.log" | tr '\n' ' ')"
pglog_from=$(( $(loglines "$work/pgsock/pg.log") + 1 ))
ok_if "PostgreSQL starts on the degraded mount" pg_start
layout=$(layout_of lineitem)
case $layout in *" out=1 "*) tap_ok "stale drive back: the layout still names drive 1 out" ;;
  *) tap_not_ok "stale drive back: the layout still names drive 1 out" "$layout" ;; esac
queries_match "stale drive back"
scans_ok "stale drive back" 1
invariant_ok "stale drive back"
amcheck_ok "stale drive back"
ok_if "stop PostgreSQL" pg_stop
pglog_clean "stale drive back" "$pglog_from"
ok_if "unmount ossdfs" fs_umount

# -- offline rebuild of drive 1
out=$(array_ctl --json --progress array rebuild --drive 1 2>"$work/rebuild.err"); rc=$?
bytes=$(echo "$out" | json_get 'j["bytes"]')
secs=$(echo "$out" | json_get 'j["seconds"]')
files=$(echo "$out" | json_get 'j["files"]')
if [ $rc = 0 ] && [ "$(echo "$out" | json_get 'j["drive"]')" = 1 ] && [ "${bytes:-0}" -gt 1000000 ]; then
  tap_ok "array rebuild --drive 1: $files files, $bytes bytes in $secs s"
else
  tap_not_ok "array rebuild --drive 1" "exit $rc: $out $(tail -c 300 "$work/rebuild.err")"
fi
info=$(array_ctl --json array info 2>/dev/null)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["state"] == "clean" and [m["state"] for m in j["members"]] == ["in"] * 3, j
' && tap_ok "array info after the rebuild: clean" || tap_not_ok "array info after the rebuild: clean" "$info"
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (3 drives, "*"parity rows checked"*) tap_ok "$out" ;;
  *) tap_not_ok "array fsck after the rebuild is clean" "$out" ;; esac

# -- remounted, restarted: the three drives again
n=$(loglines "$work/ossdfs.log")
ok_if "remount ossdfs" fs_mount --kernel-group postgres
tail -n +"$((n + 1))" "$work/ossdfs.log" | grep -qE "out of date|degraded" \
  && tap_not_ok "the mount after the rebuild is not degraded" "$(tail -n +"$((n + 1))" "$work/ossdfs.log" | tr '\n' ' ')" \
  || tap_ok "the mount after the rebuild is not degraded"
pglog_from=$(( $(loglines "$work/pgsock/pg.log") + 1 ))
ok_if "PostgreSQL starts" pg_start
layout=$(layout_of lineitem)
case $layout in
  "raid5 n=3 unit=65536 "*" out="*) tap_not_ok "rebuilt: the layout names no drive out" "$layout" ;;
  "raid5 n=3 unit=65536 "*) tap_ok "rebuilt: the layout names no drive out" ;;
  *) tap_not_ok "rebuilt: the layout names no drive out" "$layout" ;;
esac
queries_match rebuilt
scans_ok rebuilt ""
invariant_ok rebuilt
amcheck_ok rebuilt
pglog_clean rebuilt "$pglog_from"
}

main
tap_done
