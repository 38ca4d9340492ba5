#!/usr/bin/env bash
# run-slots.sh - a drive with its default 32 channel slots serving more
# concurrent offloaded queries than it has slots: a query that finds no
# free slot scans on the host (EXPLAIN ANALYZE counts it) and never fails;
# pgbench -c 48 of an offloaded aggregate has 0 failed transactions.
# Starts its own drive (default slot count), ossdfs and cluster.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5445
source "$top/tests/pg/pg-env.bash"
# the default slot count, not pg-env.bash's 64
drive_start () {
  "$ctl" device start --image "$work/drive.img" --size "${1:-4G}" --volume 64M --group postgres
}
# The whole script is read before it runs: 40 background jobs share its
# file offset with this shell.
main () {
if ! pgenv_up pg-slots; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; return 1
fi
tap_ok "drive (default slots), ossdfs and cluster up"
if psql_q -c "CREATE TABLE t (a int4, b int8, pad text) TABLESPACE ossd" \
     -c "INSERT INTO t SELECT g, g % 97, repeat('x', 60) FROM generate_series(1, 200000) g" \
     -c "VACUUM (FREEZE, ANALYZE) t" -c "CHECKPOINT" >"$work/load.log" 2>&1; then
  tap_ok "loaded a table on the drive"
else
  tap_not_ok "loaded a table on the drive" "$(tail -3 "$work/load.log")"
fi
q="SELECT count(*), sum(b) FROM t WHERE a < 150000"
want=$(psql_q -c "SET ossd.enabled = off" -c "$q")
ex=$(psql_q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $q")
if echo "$ex" | grep -q "Device Partial Aggregates" && echo "$ex" | grep -q "Blocks on Drive: [1-9]"; then
  tap_ok "the aggregate is offloaded with default settings"
else
  tap_not_ok "the aggregate is offloaded with default settings" "$(echo "$ex" | tr '\n' ' ')"
fi

# 40 sessions that each ran an offloaded query keep their slot while they
# sleep: with ossdfs's, more than the drive has.
holders=()
for i in $(seq 40); do
  psql_q -c "$q" -c "SELECT pg_sleep(20)" >"$work/hold.$i" 2>&1 &
  holders+=($!)
done
for _ in $(seq 100); do
  n=$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)'")
  [ "${n:-0}" -ge 40 ] && break
  sleep 0.2
done
ex=$(psql_q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $q")
got=$(psql_q -c "$q")
if echo "$ex" | grep -q "Scans on Host for Want of a Slot: 1" && echo "$ex" | grep -q "Blocks on Drive: 0"; then
  tap_ok "no free slot: EXPLAIN ANALYZE shows the scan ran on the host"
else
  tap_not_ok "no free slot: EXPLAIN ANALYZE shows the scan ran on the host" "$(echo "$ex" | tr '\n' ' ')"
fi
[ -n "$got" ] && [ "$got" = "$want" ] && tap_ok "and the answer is right ($got)" || tap_not_ok "answer without a slot" "got=$got want=$want"
wait "${holders[@]}"
bad=$(grep -l "ERROR" "$work"/hold.* 2>/dev/null | wc -l)
[ "$bad" -eq 0 ] && tap_ok "40 concurrent offloaded queries: none failed" || tap_not_ok "40 concurrent offloaded queries" "$(cat $(grep -l ERROR "$work"/hold.* | head -1))"

echo "$q;" >"$work/agg.sql"
chmod 644 "$work/agg.sql"
if pg_as /usr/bin/pgbench -n -h "$work/pgsock" -p "$pg_port" -U postgres -c 48 -j 4 -t 6 \
     -f "$work/agg.sql" postgres >"$work/pgbench.log" 2>&1 &&
   grep -q "number of failed transactions: 0 " "$work/pgbench.log" &&
   grep -q "actually processed: 288/288" "$work/pgbench.log"; then
  tap_ok "pgbench -c 48 of an offloaded aggregate: 0 failed transactions"
else
  tap_not_ok "pgbench -c 48 of an offloaded aggregate" "$(grep -E 'failed|aborted|processed|ERROR' "$work/pgbench.log" | head -4 | tr '\n' ' ')"
fi
tap_done
}
main
exit $?
