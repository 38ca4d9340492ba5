#!/usr/bin/env bash
# run-pg-regress.sh - PostgreSQL 15's own regression SQL as a differential
# test of pg_ossd (TAP).
#
# Fetches PostgreSQL 15's Debian source package with apt-get source (a
# private deb-src list under build/, the system's apt sources untouched)
# into build/pg-regress-src/ (kept across runs), builds its regress.so with
# PGXS, starts a drive, ossdfs and a private cluster (pg-env.bash), loads
# the schedule's setup files (test_setup, create_*: the base tables and
# indexes) with default_tablespace = ossd, freezes and checkpoints them.
# Then every file of the list runs three times, each time in a fresh copy of
# that database: offload forced with ossd.kernel_mode = jit, forced with the
# interpreter, and ossd.enabled = off.  tests/pg/pg-regress-prep.pl marks
# the statements and freezes what each writes; tests/pg/pg-regress-compare.pl
# compares the outputs result set by result set (plans ignored, the
# differences SQL allows classified by rule, see its --help).
#
#   tests/pg/run-pg-regress.sh [FILE...]     default: the full list below
#   PG_REGRESS_FILES="select join" ...       the same through the environment
# Fails on a fetch or build failure, on any difference, on a server crash,
# and when the drive scanned no blocks.  KEEP_WORK=1 keeps the outputs.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
source "$top/tests/pg/pg-env.bash"

all_files="select select_having select_distinct select_implicit subselect union case join
  aggregates groupingsets window with limit inherit rowtypes arrays strings text numeric
  int2 int4 int8 float4 float8 date time timestamp timestamptz interval boolean char varchar
  collate incremental_sort partition_aggregate equivclass tsrf rangefuncs merge
  insert_conflict update
  portals join_hash select_into select_distinct_on delete returning prepare matview
  partition_join tablesample transactions tidscan tidrangescan memoize"
# the schedule's setup files the listed ones depend on, in schedule order
setup_files="test_setup create_function_c create_misc create_operator create_procedure
  create_table create_type create_schema create_index create_view create_aggregate
  create_function_sql create_cast"
if [ $# -gt 0 ]; then files="$*"; else files=${PG_REGRESS_FILES:-$all_files}; fi

src=$top/build/pg-regress-src
regress=$src/src/test/regress
libbuild=$top/build/pg-regress-lib
t0=$(date +%s)

# ---- 1. PostgreSQL's regression sources ------------------------------------
fetch_sources () {
  local apt=$src/apt orig
  mkdir -p "$apt/lists/partial"
  cat >"$apt/src.sources" <<'SOURCES'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  local opts=(-q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt"
              -o Dir::State::Lists="$apt/lists")
  apt-get "${opts[@]}" update >"$src/fetch.log" 2>&1 &&
    (cd "$src" && apt-get "${opts[@]}" source --download-only postgresql-15) >>"$src/fetch.log" 2>&1 ||
    return 1
  orig=$(ls "$src"/postgresql-15_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$orig" ] || { echo "no orig tarball" >>"$src/fetch.log"; return 1; }
  tar -xf "$orig" -C "$src" --strip-components=1 --wildcards '*/src/test/regress' >>"$src/fetch.log" 2>&1
}
mkdir -p "$src"
if [ -f "$regress/parallel_schedule" ] || fetch_sources; then
  tap_ok "PostgreSQL 15 regression sources in build/pg-regress-src ($(ls "$src"/postgresql-15_*.dsc 2>/dev/null | sed 's/.*_//; s/\.dsc$//'))"
else
  tap_not_ok "PostgreSQL 15 regression sources fetched with apt-get source" "$(tail -3 "$src/fetch.log")"
  tap_done; exit 1
fi

# ---- 2. regress.so with PGXS -----------------------------------------------
mkdir -p "$libbuild"
cp "$regress/regress.c" "$libbuild/"
printf 'MODULES = regress\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' >"$libbuild/Makefile"
if make -C "$libbuild" PG_CONFIG="$pg_config" with_llvm=no >"$libbuild/build.log" 2>&1; then
  tap_ok "regress.so built with PGXS"
else
  tap_not_ok "regress.so built with PGXS" "$(tail -3 "$libbuild/build.log")"
  tap_done; exit 1
fi

# ---- 3. cluster and base database ------------------------------------------
if ! pgenv_up pg-regress-pg; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
# readable by the postgres user: the data files COPY reads, the library
w=$work/pgr
mkdir -p "$w/src" "$w/lib" "$w/out" "$w/build"
cp -r "$regress/sql" "$regress/data" "$w/src/"
cp "$libbuild/regress.so" "$w/lib/"
chown -R postgres: "$w"
export PG_ABS_SRCDIR=$w/src PG_ABS_BUILDDIR=$w/build PG_LIBDIR=$w/lib PG_DLSUFFIX=.so
# what pg_regress sets for its tests; PostgreSQL's default parallel costs
# (pg-env makes parallel plans cheap for our own suites)
export PGTZ=PST8PDT PGDATESTYLE="Postgres, MDY"
common="-c default_tablespace=ossd -c parallel_setup_cost=1000 -c parallel_tuple_cost=0.1
  -c min_parallel_table_scan_size=8MB -c intervalstyle=postgres -c timezone_abbreviations=Default"
common=$(echo $common)
declare -A mode_opts=(
  [jit]="-c ossd.force_offload=on -c ossd.min_relation_pages=0 -c ossd.kernel_mode=jit -c ossd.jit_above_tuples=0"
  [interpreter]="-c ossd.force_offload=on -c ossd.min_relation_pages=0 -c ossd.kernel_mode=interpreter"
  [off]="-c ossd.enabled=off")
modes="jit interpreter off"

psql_file () {  # DB OPTIONS IN OUT
  (cd "$work" && PGOPTIONS="$common $2" runuser -u postgres --preserve-environment -- \
    "$pgbin/psql" -X -h "$work/pgsock" -p "$pg_port" -U postgres -d "$1" <"$3" >"$4" 2>&1)
}
server_alive () { psql_q -c "SELECT 1" >/dev/null 2>&1; }

psql_q -c "CREATE DATABASE regress_base" >/dev/null
setup_ok=1
for f in $setup_files; do
  # setup files run as they are: they load data (COPY) and build indexes,
  # all frozen below
  if ! psql_file regress_base "-c ossd.enabled=off" "$w/src/sql/$f.sql" "$w/out/setup-$f.out"; then
    setup_ok=0; echo "# setup $f: psql failed"
  fi
done
psql_q -d regress_base -c "VACUUM (FREEZE)" -c "CHECKPOINT" >"$w/out/freeze.log" 2>&1 || setup_ok=0
nrel=$(psql_q -d regress_base -c "SELECT count(*) FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
  WHERE t.spcname = 'ossd' AND c.relkind = 'r'")
if [ "$setup_ok" = 1 ] && [ "${nrel:-0}" -gt 20 ] && server_alive; then
  tap_ok "setup files loaded into regress_base: $nrel tables on the drive, frozen and checkpointed"
else
  tap_not_ok "setup files loaded into regress_base" "tables on ossd: ${nrel:-none}; $(tail -3 "$w/out/freeze.log")"
  tap_done; exit 1
fi

drive_counters () {  # the drive's scan counters, summed over its devices
  psql_q -c "SELECT name || '=' || sum(value)::int8 FROM ossd_device_statistics
    WHERE name IN ('scan_blocks', 'scans') GROUP BY name ORDER BY name" 2>/dev/null |
    tr '\n' ' '
}
before=$(drive_counters)

# ---- 4. every file, three modes --------------------------------------------
run_mode () {  # FILE MODE: the prepared file in a fresh copy of regress_base
  local t1=$(date +%s.%N)
  psql_q -c "DROP DATABASE IF EXISTS regress_run" -c "CREATE DATABASE regress_run TEMPLATE regress_base" >/dev/null 2>&1
  local t2=$(date +%s.%N)
  psql_file regress_run "${mode_opts[$2]}" "$w/build/$1.sql" "$w/out/$1.$2.out"
  # progress: the copy of the database, then the file
  printf '# %s (%s): database copied in %.1f s, file run in %.1f s\n' "$1" "$2" \
    "$(echo "$t2 - $t1" | bc)" "$(echo "$(date +%s.%N) - $t2" | bc)"
  if grep -q "server closed the connection unexpectedly\|terminated by signal" "$w/out/$1.$2.out" ||
     ! server_alive; then
    crashes=$((crashes + 1))
    echo "# $1 ($2): the server crashed"
    for _ in $(seq 60); do server_alive && break; sleep 1; done
  fi
}
summary_json=$w/summary.jsonl
: >"$summary_json"
crashes=0
for f in $files; do
  if [ ! -f "$w/src/sql/$f.sql" ]; then tap_not_ok "$f: no such regression file"; continue; fi
  perl "$top/tests/pg/pg-regress-prep.pl" --units "$w/build/$f.units.json" \
    <"$w/src/sql/$f.sql" >"$w/build/$f.sql"
  chown postgres: "$w/build/$f.sql"
  for m in $modes; do run_mode "$f" "$m"; done
  compare () {  # [OPTIONS]: the outputs of $f, off the base
    perl "$top/tests/pg/pg-regress-compare.pl" --units "$w/build/$f.units.json" --name "$f" \
      --json-line "$w/build/$f.json" "$@" --base off "$w/out/$f.off.out" \
      jit "$w/out/$f.jit.out" interpreter "$w/out/$f.interpreter.out" >"$w/out/$f.diff" 2>&1
  }
  rm -f "$w/build/$f.json"
  compare
  rc=$?
  cat "$w/build/$f.json" >>"$summary_json"
  if [ "$rc" -eq 0 ]; then
    tap_ok "$f: $(tail -1 "$w/out/$f.diff")"
  else
    tap_not_ok "$f: $(tail -1 "$w/out/$f.diff")"
    head -80 "$w/out/$f.diff" | sed 's/^/# /'
  fi
done
after=$(drive_counters)

# ---- 5. summary ------------------------------------------------------------
secs=$(( $(date +%s) - t0 ))
summary=$(perl "$top/tests/pg/pg-regress-compare.pl" --summarize "$summary_json" \
  --counters-before "$before" --counters-after "$after" --seconds "$secs" --crashes "$crashes")
echo "# $summary"
echo "$summary" >"$top/build/pg-regress-summary.txt"
counter () { local v; v=$(echo "$1" | sed -n "s/.*$2=\([0-9]*\).*/\1/p"); echo "${v:-0}"; }
blocks=$(( $(counter "$after" scan_blocks) - $(counter "$before" scan_blocks) ))
scans=$(( $(counter "$after" scans) - $(counter "$before" scans) ))
if [ "$blocks" -gt 0 ] && [ "$scans" -gt 0 ]; then
  tap_ok "the drive ran $scans scans of $blocks blocks during the forced runs"
else
  tap_not_ok "the drive scanned blocks during the forced runs" "counters: $before-> $after"
fi
[ "$crashes" -eq 0 ] && tap_ok "no server crash" || tap_not_ok "no server crash" "$crashes runs crashed the server"
if grep -q '"differences":0,' "$summary_json.total" 2>/dev/null; then
  tap_ok "summary: $summary"
else
  tap_not_ok "summary: $summary"
fi
[ -n "${KEEP_WORK:-}" ] && cp -r "$w/out" "$top/build/pg-regress-out"
tap_done
