#!/usr/bin/env bash
# 40-getting-started.sh - README.md's "Getting started on your own
# PostgreSQL", command for command, on a cluster created the Debian way
# (pg_createcluster: the machine's locale, C.UTF-8 here; autovacuum on;
# data checksums; the drive's default slot count), with the paths moved
# into a temp dir and the cluster's name and port its own.  A table that
# autovacuum alone makes all-visible must then be offloaded without
# ossd.force_offload.  Also: without shared_preload_libraries nothing is
# offloaded and the extension says so.  Last, sql/ossd_diff.sql on this
# cluster with offload forced and off: a full suite with the user defaults.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
PATH=$top/build:$PATH     # ossdctl, ossdfs as installed tools
work=$(mktemp -d /tmp/ossd-it-gs.XXXXXX)
chmod 755 "$work"
cd "$work"
export OSSD_RUNDIR=$work/run
img=$work/drive.img
mnt=$work/mnt
cluster=gs$$
port=$(( 25000 + RANDOM % 20000 ))
conf=/etc/postgresql/15/$cluster
# README says sudo -u postgres; Debian's minimal images have no sudo
command -v sudo >/dev/null || sudo () { [ "$1" = -u ] || return 1; local u=$2; shift 2; runuser -u "$u" -- "$@"; }
psql_gs () { sudo -u postgres psql -X -q -At -p "$port" "$@"; }

cleanup () {
  pg_ctlcluster 15 "$cluster" stop -m immediate >/dev/null 2>&1
  pg_dropcluster 15 "$cluster" >/dev/null 2>&1
  mountpoint -q "$mnt" 2>/dev/null && { fusermount3 -u "$mnt" || fusermount3 -u -z "$mnt"; } 2>/dev/null
  pkill -f "ossdfs $mnt" 2>/dev/null
  ossdctl device stop --force >/dev/null 2>&1
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

# The DBA's cluster, made the Debian way, with a table of their own
if pg_createcluster --locale C.UTF-8 -p "$port" 15 "$cluster" -- --data-checksums >"$work/createcluster.log" 2>&1 &&
   pg_ctlcluster 15 "$cluster" start >>"$work/createcluster.log" 2>&1; then
  tap_ok "a Debian cluster (pg_createcluster 15 $cluster, port $port)"
else
  tap_not_ok "pg_createcluster" "$(tail -3 "$work/createcluster.log")"; tap_done; exit 1
fi
[ "$(psql_gs -c 'SHOW autovacuum')" = on ] && [ "$(psql_gs -c 'SHOW lc_collate')" = C.UTF-8 ] \
  && tap_ok "autovacuum on, lc_collate C.UTF-8" \
  || tap_not_ok "user defaults" "$(psql_gs -c 'SHOW autovacuum' -c 'SHOW lc_collate')"
psql_gs -c "CREATE TABLE lineitem (l_orderkey int8, l_quantity numeric(15,2),
  l_extendedprice numeric(15,2), l_discount numeric(15,2), l_shipdate date, l_comment text)" \
  -c "INSERT INTO lineitem SELECT g, g % 50 + 1, (g % 9000) + 100.25, (g % 11) / 100.0,
        date '1992-01-01' + (g % 2500), repeat('c', 40) FROM generate_series(1, 200000) g" \
  && tap_ok "the DBA's table (200000 rows)" || tap_not_ok "the DBA's table"

# 0. (the build is make test's); the install
if make -s -C "$top/pg_ossd" install >"$work/install.log" 2>&1; then tap_ok "make -C pg_ossd install"
else tap_not_ok "make -C pg_ossd install" "$(tail -3 "$work/install.log")"; fi

# 1. the drive
ok_if "ossdctl device start --group postgres" \
  ossdctl device start --image "$img" --size 4G --group postgres
sockmode=$(stat -c '%a %U:%G' "$OSSD_RUNDIR/ossd.sock")
[ "$sockmode" = "660 root:postgres" ] && tap_ok "the socket is root:postgres 0660" \
  || tap_not_ok "the socket is root:postgres 0660" "$sockmode"

# 2. the filesystem
ok_if "ossdfs MOUNT --kernel-group postgres" \
  sh -c "mkdir -p '$mnt' && ossdfs '$mnt' --kernel-group postgres"
ok_if "the tablespace directory, owned by postgres" \
  sh -c "mkdir -p '$mnt/pg' && chown postgres: '$mnt/pg'"

# (before step 3) without shared_preload_libraries: a warning, nothing offloaded
psql_gs -c "CREATE TABLESPACE ossd LOCATION '$mnt/pg'" >/dev/null 2>&1
out=$(psql_gs -c "CREATE EXTENSION pg_ossd" 2>&1)
echo "$out" | grep -q "not in shared_preload_libraries" \
  && tap_ok "without preload, CREATE EXTENSION warns that nothing will be offloaded" \
  || tap_not_ok "without preload, CREATE EXTENSION warns" "$out"
psql_gs -c "CREATE TABLE probe TABLESPACE ossd AS SELECT g AS a, repeat('p', 200) AS b FROM generate_series(1, 50000) g" \
  -c "VACUUM (FREEZE, ANALYZE) probe" >/dev/null 2>&1
ex=$(psql_gs -c "SET ossd.force_offload = on" -c "SELECT count(*) FROM ossd_devices()" \
     -c "EXPLAIN SELECT count(*) FROM probe WHERE a < 5" 2>&1)
echo "$ex" | grep -q OssdScan && tap_not_ok "without preload nothing is offloaded" "$ex" \
  || tap_ok "without preload nothing is offloaded, even after an ossd_* call"
psql_gs -c "DROP TABLE probe" -c "DROP EXTENSION pg_ossd" -c "DROP TABLESPACE ossd" >/dev/null 2>&1

# 3. preload
echo "shared_preload_libraries = 'pg_ossd'" >"$conf/conf.d/pg_ossd.conf"
ok_if "pg_ctlcluster 15 $cluster restart" pg_ctlcluster 15 "$cluster" restart

# 4. tablespace, extension, the table moved onto the drive
ok_if "CREATE TABLESPACE ossd" psql_gs -c "CREATE TABLESPACE ossd LOCATION '$mnt/pg'"
out=$(psql_gs -c "CREATE EXTENSION pg_ossd" 2>&1)
[ -z "$out" ] && tap_ok "CREATE EXTENSION pg_ossd (no warning)" || tap_not_ok "CREATE EXTENSION pg_ossd" "$out"
ok_if "ALTER TABLE lineitem SET TABLESPACE ossd" psql_gs -c "ALTER TABLE lineitem SET TABLESPACE ossd"

# a socket the server's user may not open: the hint says what to do
chmod 600 "$OSSD_RUNDIR/ossd.sock"
out=$(psql_gs -c "SELECT count(*) FROM ossd_kernels()" 2>&1)
chmod 660 "$OSSD_RUNDIR/ossd.sock"
echo "$out" | grep -q -- "--group GROUP" && tap_ok "a socket postgres may not open: the hint names ossdctl device start --group" \
  || tap_not_ok "the permission hint" "$out"

# 5. autovacuum alone (default naptime 1 min) makes the moved table all-visible
vac=0
for _ in $(seq 90); do
  vac=$(psql_gs -c "SELECT autovacuum_count FROM pg_stat_user_tables WHERE relname = 'lineitem'")
  [ "${vac:-0}" -gt 0 ] && break
  sleep 2
done
[ "${vac:-0}" -gt 0 ] && tap_ok "autovacuum visited lineitem by itself" \
  || tap_not_ok "autovacuum visited lineitem within 180 s"
q6="SELECT sum(l_extendedprice * l_discount)
  FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01'
  AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"
ex=$(psql_gs -c "EXPLAIN (ANALYZE, VERBOSE) $q6" 2>&1)
drive=$(echo "$ex" | sed -n 's/.*Blocks on Drive: \([0-9]*\).*/\1/p' | head -1)
if echo "$ex" | grep -q "Custom Scan (OssdScan)" && [ "${drive:-0}" -gt 0 ]; then
  tap_ok "Q6 is offloaded with default settings ($drive blocks on the drive)"
else
  tap_not_ok "Q6 is offloaded with default settings" "$(echo "$ex" | head -20 | tr '\n' ' ')"
fi
on=$(psql_gs -c "$q6"); off=$(psql_gs -c "SET ossd.enabled = off" -c "$q6")
[ -n "$on" ] && [ "$on" = "$off" ] && tap_ok "the same answer with ossd.enabled off ($on)" \
  || tap_not_ok "the same answer with offload off" "on=$on off=$off"

# A full suite with the user defaults: ossd_diff (answers only) with
# offload forced and off, on this cluster (autovacuum on, C.UTF-8)
regress=$(pg_config --pkglibdir)/pgxs/src/test/regress/pg_regress
mkdir -p "$work/regress"; cp -r "$top/sql" "$top/expected" "$work/regress/"; chown -R postgres: "$work/regress"
psql_gs -c "CREATE DATABASE regress_ossd" >/dev/null && psql_gs -d regress_ossd -c "CREATE EXTENSION pg_ossd" >/dev/null
if psql_gs -d regress_ossd <"$top/tests/pg/setup-tpch.sql" >"$work/setup.log" 2>&1; then
  tap_ok "TPC-H-like schema loaded on the drive"
else
  tap_not_ok "TPC-H-like schema loaded" "$(tail -3 "$work/setup.log")"
fi
for mode in "ossd.force_offload=on" "ossd.enabled=off"; do
  out=$work/regress/out-${mode%%=*}; mkdir -p "$out"; chown postgres: "$out"
  if (cd "$work/regress" && sudo -u postgres env "PGOPTIONS=-c $mode" "$regress" --use-existing \
        --dbname=regress_ossd --inputdir=. --outputdir="$out" --port="$port" ossd_diff) >"$out.log" 2>&1; then
    tap_ok "ossd_diff with the user defaults, $mode"
  else
    tap_not_ok "ossd_diff with the user defaults, $mode" "$(head -20 "$out/regression.diffs" 2>/dev/null | tr '\n' ' ')"
  fi
done

# Stopping, as README says
pg_ctlcluster 15 "$cluster" stop >/dev/null 2>&1
ok_if "fusermount3 -u" fusermount3 -u "$mnt"
ok_if "ossdctl device stop" ossdctl device stop
tap_done
