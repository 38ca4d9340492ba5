#!/usr/bin/env bash
# run-bigseg.sh - a relation larger than 1 GB (two segment files, two
# objects) scanned with offload forced and off: same answers, and the drive
# scans blocks of both segments.  Starts its own drive, ossdfs, cluster.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5444
source "$top/tests/pg/pg-env.bash"
if ! pgenv_up pg-bigseg 6G; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
# ~1.15 GB: 140,000 blocks of 8 kB (RELSEG_SIZE is 131072 blocks)
if psql_q -c "CREATE TABLE big (id int8, v int4, pad text) WITH (fillfactor = 100) TABLESPACE ossd" \
     -c "ALTER TABLE big ALTER COLUMN pad SET STORAGE PLAIN" \
     -c "INSERT INTO big SELECT i, (i % 1000)::int4, repeat(chr(65 + (i % 26)::int), 1950) FROM generate_series(1, 560000) i" \
     -c "VACUUM (FREEZE, ANALYZE) big" -c "CHECKPOINT" >"$work/load.log" 2>&1; then
  tap_ok "loaded a relation over 1 GB"
else
  tap_not_ok "loaded a relation over 1 GB" "$(tail -3 "$work/load.log")"
fi
nseg=$(ls "$pgdata/$(psql_q -c "SELECT pg_relation_filepath('big')")"* 2>/dev/null | grep -c '\.[0-9]*$')
[ "$nseg" -ge 1 ] && tap_ok "the relation has $((nseg + 1)) segment files" || tap_not_ok "more than one segment file"
q="SELECT count(*), sum(v), min(id), max(id), count(*) FILTER (WHERE pad LIKE 'Z%') FROM big WHERE v < 500 AND id % 3 <> 0"
on=$(psql_q -c "SET ossd.force_offload = on" -c "$q")
off=$(psql_q -c "SET ossd.enabled = off" -c "$q")
[ -n "$on" ] && [ "$on" = "$off" ] && tap_ok "same answer with offload forced and off ($on)" || tap_not_ok "same answer" "on=$on off=$off"
q2="SELECT count(*), sum(v) FROM big WHERE id > 500000"
on=$(psql_q -c "SET ossd.force_offload = on" -c "$q2")
off=$(psql_q -c "SET ossd.enabled = off" -c "$q2")
[ -n "$on" ] && [ "$on" = "$off" ] && tap_ok "rows of the second segment only ($on)" || tap_not_ok "second segment" "on=$on off=$off"
ex=$(psql_q -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q2")
d=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p' | head -1)
[ "${d:-0}" -gt 131072 ] && tap_ok "the drive scanned $d blocks, across both segments" || tap_not_ok "drive blocks across segments" "$ex"
tap_done
