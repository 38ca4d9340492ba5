# pg-env.bash - a drive, an ossdfs mount and a private PostgreSQL 15 cluster
# (postgres user, Unix socket in a temp dir, no TCP) with pg_ossd preloaded
# and a tablespace "ossd" on the mount.  Source after tests/harness/tap.sh
# with $top set; builds on tests/integration/ossdfs-lib.bash.
#   pgenv_up NAME [DRIVE_SIZE]   everything up; trap stops it all on exit
#   pgenv_up_array NAME N [DRIVE_SIZE [UNIT [LEVEL]]]
#                                the same on an array of N drives (LEVEL
#                                raid0, the default, or raid5)
#   pgenv_up_plain NAME          a cluster alone: no drive, no pg_ossd
#   pgenv_up_selected NAME       pgenv_up, or with OSSD_ARRAY_DRIVES=N (> 1)
#                                pgenv_up_array with unit OSSD_ARRAY_UNIT
#                                (bytes, $pgenv_array_unit: 16384) and
#                                level OSSD_ARRAY_LEVEL (raid0);
#                                $pgenv_ndrives says which
#   psql_q ...                   psql as postgres (from ossdfs-lib.bash)
# Several clusters in one script (bench/scaleout/run): set pg_port, bring
# one up, then
#   pgenv_keep NAME              remember it as NAME (its $work, $pgdata,
#                                port, drives, ossdfs) as it is now (keep
#                                it again after a pg_stop or pg_start);
#                                the next pgenv_up* starts another beside
#                                it, and the EXIT trap stops every cluster
#                                kept and the current one
#   pgenv_use NAME               make NAME current again (psql_q, pg_stop,
#                                $work ... act on it)
source "$top/tests/integration/ossdfs-lib.bash"
pg_port=${PG_PORT:-5441}

# More slots than the default 32: the suites run many backends at once and
# each, like ossdfs, holds some (tests/pg/run-slots.sh runs the default).
# The socket is root:postgres 0660: backends reach the drive, and what they
# may do there is what ossdfs' capabilities allow (docs/security.md).
drive_access=(--group postgres -- slots=64)
drive_start () {
  "$ctl" device start --image "$work/drive.img" --size "${1:-4G}" --volume 64M "${drive_access[@]}"
}
# ... and the same when it starts again on its image (ARGS: more options
# of device start, e.g. --profile NAME)
drive_restart () { "$ctl" device start --image "$work/drive.img" "$@" "${drive_access[@]}"; }

pgenv_up () {
  pgenv_init "$1"
  drive_start "${2:-4G}" >"$work/drive.log" 2>&1 || { cat "$work/drive.log" >&2; return 1; }
  drive_open_for_postgres
  pgenv_cluster_up
}

# The same on an array of N drives (docs/arrays.md), each reachable by the
# postgres group, labelled by ossdctl array create with stripe unit UNIT:
#   pgenv_up_array NAME N [DRIVE_SIZE [UNIT [LEVEL]]]
pgenv_up_array () {
  local i
  pgenv_ndrives=$2
  pgenv_init "$1"
  array_start "$2" "${3:-2G}" "${drive_access[@]}" >"$work/drive.log" 2>&1 || { cat "$work/drive.log" >&2; return 1; }
  for ((i = 0; i < $2; i++)); do chmod 755 "$work/run$i"; done
  array_create --stripe-unit "${4:-1M}" --level "${5:-raid0}" >>"$work/drive.log" 2>&1 || { cat "$work/drive.log" >&2; return 1; }
  pgenv_cluster_up
}

# A cluster of PostgreSQL alone (the coordinator of bench/scaleout/run):
# no drive, no ossdfs, no pg_ossd; its data directory in $work.
pgenv_up_plain () {
  pgenv_init "$1"
  pg_init || { cat "$work/initdb.log" >&2; return 1; }
  cat >>"$pgdata/postgresql.conf" <<CONF
lc_messages = 'C'
autovacuum = off
jit = off
CONF
  pg_start || { tail -20 "$work/pgsock/pg.log" >&2; return 1; }
}

# ---- several clusters in one script -----------------------------------------
# What makes a cluster current: ossdfs-lib.bash's variables of one set-up.
pgenv_state=(work mnt pgdata pg_port fs_pid pg_started sock dev OSSD_RUNDIR OSSD_DEVICE array_dev ofs_devargs)
declare -A pgenv_kept=()
pgenv_current=
pgenv_save () {
  pgenv_kept[$1]=$(declare -p "${pgenv_state[@]}" | sed 's/^declare /declare -g /')
}
# A new cluster: the one current until now stays as pgenv_keep or
# pgenv_use last saved it (so pg_port may be set for the new one first).
pgenv_init () {
  if [ -n "$pgenv_current" ]; then
    fs_pid= pg_started= pgenv_current=
  fi
  ofs_init "$1"
  trap pgenv_cleanup EXIT
}
pgenv_keep () {
  pgenv_save "$1"
  pgenv_current=$1
}
pgenv_use () {
  [ -n "${pgenv_kept[$1]+x}" ] || { echo "pgenv_use: no cluster $1 kept" >&2; return 1; }
  [ -z "$pgenv_current" ] || pgenv_save "$pgenv_current"
  eval "${pgenv_kept[$1]}"
  pgenv_current=$1
}
# The EXIT trap: the current cluster if it was never kept, then every kept
# one (each as it was last used), as ofs_cleanup stops one.
pgenv_cleanup () {
  local name
  if [ -z "$pgenv_current" ]; then
    ofs_cleanup
  else
    pgenv_save "$pgenv_current"
  fi
  for name in "${!pgenv_kept[@]}"; do
    eval "${pgenv_kept[$name]}"
    ofs_cleanup
  done
}

# One drive, or the array OSSD_ARRAY_DRIVES and OSSD_ARRAY_UNIT name (a
# suite run both ways: tests/pg/run-regress.sh, run-regress-array.sh).  The
# default unit is two heap blocks, so that even the suites' small tables
# straddle units and drives.
pgenv_ndrives=1
pgenv_array_unit=${OSSD_ARRAY_UNIT:-16384}
pgenv_up_selected () {
  local n=${OSSD_ARRAY_DRIVES:-1}
  if [ "$n" -gt 1 ]; then
    pgenv_up_array "$1-array$n" "$n" 2G "$pgenv_array_unit" "${OSSD_ARRAY_LEVEL:-raid0}"
  else
    pgenv_up "$1"
  fi
}

# ossdfs on the drive(s) of $ofs_devargs, the cluster, tablespace "ossd"
pgenv_cluster_up () {
  # shellcheck disable=SC2086  # $pgenv_ossdfs_opts: more ossdfs options (bench/qos)
  fs_mount --kernel-group postgres ${pgenv_ossdfs_opts:-} || return 1
  mkdir -p "$mnt/ts"
  chown postgres: "$mnt/ts"
  pg_init || { cat "$work/initdb.log" >&2; return 1; }
  # The harness's own settings, each for a reason; the user defaults are
  # run by tests/integration/40-getting-started.sh (a Debian cluster:
  # autovacuum on, C.UTF-8, the drive's default slots, ossd_diff included).
  #  lc_messages C             tests match PostgreSQL's messages in English
  #  parallel_* / min_parallel_table_scan_size
  #                            parallel plans on the suites' small tables, so
  #                            that offload under Gather is exercised
  #  autovacuum off            the visibility map changes only where a test
  #                            says so (VACUUM, CHECKPOINT): EXPLAIN ANALYZE
  #                            block counts in expected outputs stay exact
  #  jit off                   PostgreSQL's own JIT (not the drive's) only
  #                            adds compile time to every test query
  cat >>"$pgdata/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_ossd'
lc_messages = 'C'
max_parallel_workers_per_gather = 2
parallel_setup_cost = 10
parallel_tuple_cost = 0.001
min_parallel_table_scan_size = 0
autovacuum = off
jit = off
CONF
  pg_start || { tail -20 "$work/pgsock/pg.log" >&2; return 1; }
  psql_q -c "CREATE TABLESPACE ossd LOCATION '$mnt/ts'" || return 1
  psql_q -c "CREATE EXTENSION pg_ossd" || return 1
}

# The cluster uses the C collation so that expected outputs sort the same
# everywhere (C.UTF-8 would offload as much: sql/ossd_collate.sql; tests also
# use COLLATE clauses to check what is not offloaded), and data
# checksums (-k), which the drive's scan engine verifies as PostgreSQL does.
pg_init () {
  pgdata=$work/pgdata
  mkdir -p "$work/pgsock"
  chown postgres: "$work/pgsock"
  chmod 755 "$work"
  mkdir -p "$pgdata"; chown postgres: "$pgdata"; chmod 700 "$pgdata"
  pg_as "$pgbin/initdb" -D "$pgdata" -k -A trust -U postgres --no-sync --locale=C -E UTF8 >"$work/initdb.log" 2>&1
}

# The drive's socket must be reachable by the postgres user: through its
# group (drive_start --group postgres), so the run directory need only be
# searchable.
drive_open_for_postgres () {
  chmod 755 "$OSSD_RUNDIR"
}

# pg_regress over this tree's sql/ and expected/ (copied to $work/regress,
# which postgres may read), in database regress_ossd:
#   regress_stage                      copy them
#   run_suite NAME PGOPTIONS TESTS...  one TAP line; the diffs as comments
# Each test is told how many drives tablespace ossd has (the placeholder
# setting regress.ossd_drives: 1, or the array's N), for what it counts.
# On an array ($pgenv_ndrives > 1) a test whose result differs from its
# expected output only by the per-drive lines of EXPLAIN ANALYZE
# (tests/pg/regress-drop-drive-lines.pl: "Drives: N", "Drive D: blocks=..,
# rows=.., bytes=..", and the footer's row count) passes: its result without
# them is compared with the expected output as pg_regress compares (diff -w).
pg_regress_bin=$("$pg_config" --pkglibdir)/pgxs/src/test/regress/pg_regress
regress_stage () {
  mkdir -p "$work/regress"
  cp -r "$top/sql" "$top/expected" "$work/regress/"
  chown -R postgres: "$work/regress"
}
run_suite () {
  local name=$1 opts=$2; shift 2
  local out=$work/regress/out-$name f
  # OSSD_REGRESS_SUITES="file ...": only those files (a shorter variant of
  # a whole run, e.g. tests/pg/run-regress-raid5.sh)
  if [ -n "${OSSD_REGRESS_SUITES:-}" ]; then
    for f in "$@"; do [[ " $OSSD_REGRESS_SUITES " == *" $f "* ]] && break; f=; done
    [ -n "$f" ] || return 0
  fi
  mkdir -p "$out"; chown postgres: "$out"
  # on an array the plans must be one drive's (the expected outputs are
  # theirs): the cost model counts one drive scanning (the array's own
  # pricing is tested by tests/pg/run-array.sh)
  local arrayopt=
  [ "$pgenv_ndrives" -gt 1 ] && arrayopt="-c ossd.array_scan_drives=1"
  # the suites' relations are a few hundred pages: at a drive scan's real
  # fixed cost (ossd.drive_startup_cost, docs/cost-model.md) most would go
  # to the host, and the suites are about what goes to the drive; pinned
  # to the old 10 (ossd_cost_model shows the shipped value at work); and
  # every drive scan asks for the JIT (ossd.jit_above_tuples = 0: the
  # interpreter has a run of its own, and ossd_cost_model shows the
  # threshold)
  if (cd "$work/regress" && PGOPTIONS="-c regress.ossd_drives=$pgenv_ndrives -c ossd.drive_startup_cost=10 -c ossd.jit_above_tuples=0 $arrayopt $opts" runuser -u postgres -- "$pg_regress_bin" \
        --use-existing --dbname=regress_ossd --inputdir=. --outputdir="$out" \
        --host="$work/pgsock" --port="$pg_port" --user=postgres "$@") >"$out.log" 2>&1; then
    tap_ok "$name"
  elif [ "$pgenv_ndrives" -gt 1 ] && regress_same_but_drive_lines "$out" "$@"; then
    tap_ok "$name (equal once the per-drive EXPLAIN lines are removed)"
  else
    tap_not_ok "$name" "$(grep -E 'FAILED|failed' "$out.log" | head -3)"
    [ -f "$out/regression.diffs" ] && head -60 "$out/regression.diffs" | sed 's/^/# /'
    # the whole outputs outlive the run's temp dir, for the expected files
    mkdir -p "$top/build/test-logs/regress-results" &&
      cp "$out"/results/*.out "$out/regression.diffs" "$top/build/test-logs/regress-results/" 2>/dev/null
    echo "# results: build/test-logs/regress-results/"
  fi
}

# Every test's result, without the per-drive EXPLAIN lines, is its expected
# output (diff -w, pg_regress's own comparison); the diffs of what is not
# replace pg_regress's in OUT/regression.diffs.
regress_same_but_drive_lines () {
  local out=$1 t same=0; shift
  : >"$out/regression.diffs.filtered"
  for t in "$@"; do
    [ -f "$out/results/$t.out" ] || return 1
    perl "$top/tests/pg/regress-drop-drive-lines.pl" <"$out/results/$t.out" >"$out/results/$t.filtered"
    diff -w -U3 "$work/regress/expected/$t.out" "$out/results/$t.filtered" \
      >>"$out/regression.diffs.filtered" || same=1
  done
  [ "$same" = 0 ] || { mv "$out/regression.diffs" "$out/regression.diffs.unfiltered" 2>/dev/null
                       mv "$out/regression.diffs.filtered" "$out/regression.diffs"; }
  return $same
}
