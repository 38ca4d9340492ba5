#!/usr/bin/env bash
# run-isolation.sh - TAP wrapper of the pg_ossd isolation specs
# (tests/pg/isolation/specs, PostgreSQL's isolationtester through
# pg_isolation_regress).  Every spec runs with offload forced and with
# offload off against the same expected output (written from PostgreSQL's
# own behaviour): identical output is the check.  Starts its own drive,
# ossdfs and cluster.  Needs `make -C pg_ossd install` (root).
# OSSD_ARRAY_DRIVES=N (N > 1) puts the tablespace on an array of N drives
# instead (stripe unit OSSD_ARRAY_UNIT, 16384; tests/pg/pg-env.bash), the
# specs and expected outputs unchanged.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5442
source "$top/tests/pg/pg-env.bash"
iso=$("$pg_config" --pkglibdir)/pgxs/src/test/isolation/pg_isolation_regress

if ! pgenv_up_selected pg-isolation; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
mkdir -p "$work/iso"
cp -r "$top/tests/pg/isolation/specs" "$top/tests/pg/isolation/expected" "$work/iso/"
chown -R postgres: "$work/iso"
specs=$(cd "$top/tests/pg/isolation/specs" && ls *.spec | sed 's/\.spec$//')
psql_q -c "CREATE DATABASE isolation_ossd" >/dev/null
psql_q -d isolation_ossd -c "CREATE EXTENSION pg_ossd" >/dev/null

for mode in "offload forced:-c ossd.force_offload=on" "offload off:-c ossd.enabled=off" \
            "offload forced, interpreter:-c ossd.force_offload=on -c ossd.kernel_mode=interpreter"; do
  name=${mode%%:*}; opts=${mode#*:}
  out=$work/iso/out-${name//[ ,]/_}
  mkdir -p "$out"; chown postgres: "$out"
  for s in $specs; do
    if (cd "$work/iso" && PGOPTIONS="$opts" runuser -u postgres -- "$iso" --use-existing \
          --dbname=isolation_ossd --inputdir=. --outputdir="$out" \
          --host="$work/pgsock" --port="$pg_port" --user=postgres "$s") >"$out/$s.log" 2>&1; then
      tap_ok "$s ($name)"
    else
      tap_not_ok "$s ($name)" "$(grep -E 'FAILED|failed' "$out/$s.log" | head -2)"
      [ -f "$out/regression.diffs" ] && head -40 "$out/regression.diffs" | sed 's/^/# /'
    fi
  done
done
# the reader's scans really are offloaded in the forced runs
psql_q -d isolation_ossd -c "SET default_tablespace = ossd" \
  -c "CREATE TABLE iso (id int4, v int4, t text)" \
  -c "INSERT INTO iso SELECT i, i % 100, 'row ' || i FROM generate_series(1, 60000) i" >/dev/null
psql_q -d isolation_ossd -c "VACUUM (FREEZE, ANALYZE) iso" -c "CHECKPOINT" >/dev/null
for q in "SELECT count(*), sum(v) FROM iso WHERE v >= 0 AND CASE WHEN id = 30000 THEN pg_advisory_xact_lock_shared(1)::text = '' ELSE true END" \
         "SELECT count(*), sum(v), min(id), max(id) FROM iso WHERE v >= 0"; do
  ex=$(psql_q -d isolation_ossd -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q")
  if echo "$ex" | grep -q "Blocks on Drive: [1-9]"; then
    tap_ok "offloaded in the forced runs: ${q:0:60}..."
  else
    tap_not_ok "offloaded in the forced runs: ${q:0:60}..." "$(echo "$ex" | tr '\n' ' ')"
  fi
done
tap_done
