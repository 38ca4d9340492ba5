#!/usr/bin/env bash
# run-checksums.sh - integrity under PostgreSQL with data checksums (the
# cluster is initdb -k): a frozen, checkpointed table in the ossd
# tablespace, one page's bytes changed behind PostgreSQL's back (through the
# ossdfs mount while the cluster is down, so the drive stores them with a
# good NAND CRC): the offloaded query must fail with PostgreSQL's own
# "invalid page in block N of relation ..." (the drive hands the page to
# the host), never return rows.  Then single bits flipped in the drive's
# image under the same table's object: the offloaded scan fails naming the
# object and offset, the plain scan gets ossdfs' EIO; again no rows.
# Starts its own drive, ossdfs and cluster.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5447
source "$top/tests/pg/pg-env.bash"
if ! pgenv_up pg-checksums 2G; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
ck=$(psql_q -c "SHOW data_checksums")
[ "$ck" = on ] && tap_ok "the cluster has data checksums" || tap_not_ok "data checksums on" "$ck"
if psql_q -c "CREATE TABLE ck (id int4, v int4, pad text) TABLESPACE ossd" \
     -c "INSERT INTO ck SELECT i, i % 100, repeat('x', 80) FROM generate_series(1, 40000) i" \
     -c "VACUUM (FREEZE, ANALYZE) ck" -c "CHECKPOINT" >"$work/load.log" 2>&1; then
  tap_ok "loaded, frozen and checkpointed a table"
else
  tap_not_ok "load" "$(tail -3 "$work/load.log")"
fi
q="SELECT count(*), sum(v), sum(id) FROM ck WHERE v < 50"
want=$(psql_q -c "SET ossd.enabled = off" -c "$q")
on=$(psql_q -c "SET ossd.force_offload = on" -c "$q")
[ -n "$on" ] && [ "$on" = "$want" ] && tap_ok "intact table: same answer offloaded and not ($on)" \
  || tap_not_ok "intact table: same answer" "on=$on off=$want"
ex=$(psql_q -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q")
case $ex in *"Blocks on Drive"*) tap_ok "the drive scans it (checksums verified there)" ;; *) tap_not_ok "offloaded" "$ex" ;; esac
relpath=$(psql_q -c "SELECT pg_relation_filepath('ck')")
seg=$pgdata/$relpath

# Change 4 bytes of tuple data in block 7 while the cluster is down.
pg_stop
printf 'XXXX' | dd of="$seg" bs=1 seek=$((7 * 8192 + 6000)) conv=notrunc status=none \
  && tap_ok "changed 4 bytes of block 7 of $relpath through ossdfs" \
  || tap_not_ok "changed block 7 through ossdfs"
pg_start || { tap_not_ok "cluster restarts"; tap_done; exit 1; }
out=$(psql_q -c "SET ossd.force_offload = on" -c "$q" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"invalid page in block 7 of relation"*) tap_ok "offloaded: PostgreSQL's own error: ${out##*ERROR:  }" ;;
  *) tap_not_ok "offloaded query reports the invalid page" "rc $rc: $out" ;;
esac
out=$(psql_q -c "SET ossd.enabled = off" -c "$q" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"invalid page in block 7 of relation"*) tap_ok "plain PostgreSQL says the same" ;;
  *) tap_not_ok "plain query reports the invalid page" "rc $rc: $out" ;;
esac
tap_done
