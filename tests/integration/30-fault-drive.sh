#!/usr/bin/env bash
# 30-fault-drive.sh - a stalled drive (nbdkit SIGSTOPped) and a drive that
# restarts (kill -9, started again on the same socket and image), under
# ossdctl, an ossdfs mount and PostgreSQL with a tablespace on the mount:
#  - nothing waits past its deadline: ossdctl --timeout-ms fails naming the
#    drive and the timeout; an ossdfs write + fsync gets EIO within
#    --timeout-ms (the writer is not left in D state); an offloaded query
#    fails within ossd.timeout_ms, and statement_timeout, pg_cancel_backend
#    and pg_terminate_backend act within a second or two;
#  - after SIGCONT everything works again (nbdkit 1.32 may abort when a
#    client that timed out hung up on queued replies: the drive's watchdog
#    then starts it again, and clients connect again);
#  - a crash (SIGABRT) is restarted by the watchdog under a live mount; a
#    kill -9 (a power cut) is not;
#  - after a restart of the drive the mount and a long-lived backend keep
#    working without a remount or a PostgreSQL restart; when the mount had
#    written to the drive since its last FLUSH, the first fsync after the
#    restart fails (EIO: those writes may be lost) instead of calling them
#    durable, and a checkpoint of PostgreSQL then PANICs and recovers from
#    its WAL, as it must.
# Bounds are generous (timeout + a few seconds): the machine is shared.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/pg/pg-env.bash"
PG_PORT=${PG_PORT:-5447}
pg_port=$PG_PORT
ofs_init fault

fs_timeout=3000                 # ossdfs --timeout-ms
pg_timeout=3000                 # ossd.timeout_ms

now_ms () { date +%s%3N; }
# sync FILE on the mount; when the drive restarted after writes it had not
# FLUSHed, the first sync says so (EIO, "restarted" in the log) and a
# second must succeed
lost_note=
sync_after_restart () {
  lost_note=
  sync "$1" 2>/dev/null && return 0
  grep -q "restarted after writes that were not yet FLUSHed" "$work/ossdfs.log" || return 1
  lost_note="; the first fsync said the restart may have lost unflushed writes (EIO)"
  sync "$1"
}
drive_pid () { cat "$OSSD_RUNDIR/ossd.pid"; }
drive_stop () { kill -STOP "$(drive_pid)"; }
restarts () { "$ctl" device status --json | sed -n 's/.*"restarts": \([0-9]*\).*/\1/p'; }
# SIGCONT, then wait (bounded) until the drive answers again
drive_cont () {
  local before
  before=$(restarts)
  kill -CONT "$(drive_pid)"
  drive_wait_ready 15 || echo "# the drive did not answer within 15 s of SIGCONT"
  [ "$(restarts)" = "$before" ] || echo "# nbdkit crashed after SIGCONT; its watchdog started it again (restarts: $(restarts))"
}
# elapsed_ok NAME START LIMIT_MS: ok when now - START <= LIMIT_MS
elapsed_ok () {
  local t=$(( $(now_ms) - $2 ))
  [ "$t" -le "$3" ] && tap_ok "$1 (${t} ms <= $3 ms)" || tap_not_ok "$1" "took ${t} ms, limit $3 ms"
}
# Wait (at most $2 s) for background job pid $1; 0 when it ended.
wait_gone () {
  local i
  for i in $(seq $(( $2 * 10 ))); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}
# The process state letter of pid $1 (R, S, D, ...), "gone" when it exited.
proc_state () { awk '{print $3}' "/proc/$1/stat" 2>/dev/null || echo gone; }

[ -x "$pgbin/initdb" ] || { tap_not_ok "PostgreSQL 15 is installed"; tap_done; exit 1; }
ok_if "drive starts" drive_start 2G
drive_open_for_postgres
ok_if "ossdfs mounts with --timeout-ms $fs_timeout" fs_mount --timeout-ms "$fs_timeout"

# ---- ossdctl ---------------------------------------------------------------
ok_if "ossdctl info on a healthy drive" "$ctl" info
drive_stop
t0=$(now_ms)
out=$("$ctl" --timeout-ms 2000 info 2>&1); rc=$?
elapsed_ok "ossdctl info, drive stopped before: fails within its timeout" "$t0" 5000
[ $rc != 0 ] && echo "$out" | grep -qF "$dev" && echo "$out" | grep -q "2000 ms" \
  && tap_ok "its message names the drive and the timeout" \
  || tap_not_ok "its message names the drive and the timeout" "rc=$rc: $out"
drive_cont
ok_if "ossdctl partition create 7 after SIGCONT" "$ctl" partition create 7
# "during": the data comes through a pipe that pauses for a second, so the
# put is still writing when the drive stops, however fast the machine
(head -c 8M /dev/urandom; sleep 1; head -c 40M /dev/urandom) |
  "$ctl" --timeout-ms 2000 put - 7:1 >"$work/put.out" 2>&1 &
put_pid=$!
sleep 0.3
drive_stop
t0=$(now_ms)
if wait_gone "$put_pid" 8; then
  wait "$put_pid"; rc=$?
  elapsed_ok "ossdctl put, drive stopped during: ends within its timeout" "$t0" 5000
  [ $rc != 0 ] && grep -q "2000 ms" "$work/put.out" && tap_ok "put failed naming the timeout" \
    || tap_not_ok "put failed naming the timeout" "rc=$rc: $(head -3 "$work/put.out")"
else
  tap_not_ok "ossdctl put, drive stopped during: ends within its timeout" "still running after 8 s"
  kill -9 "$put_pid" 2>/dev/null
fi
drive_cont
ok_if "ossdctl info after SIGCONT" "$ctl" info

# ---- ossdfs ----------------------------------------------------------------
ok_if "a file on the mount" sh -c "echo before >'$mnt/before' && cat '$mnt/before' | grep -q before"
for when in before during; do
  rm -f "$work/dd.err"
  if [ $when = before ]; then drive_stop; fi
  # as for put: a pause in the input keeps dd writing past the stop
  (head -c 8M /dev/urandom; sleep 1; head -c 24M /dev/urandom) |
    dd of="$mnt/dd-$when" bs=1M iflag=fullblock conv=fsync 2>"$work/dd.err" &
  dd_pid=$!
  if [ $when = during ]; then sleep 0.2; drive_stop; fi
  t0=$(now_ms)
  sleep $(( fs_timeout / 1000 + 2 ))
  st=$(proc_state "$dd_pid")
  [ "$st" != D ] && tap_ok "dd conv=fsync, drive stopped $when: not in D state past the timeout ($st)" \
    || tap_not_ok "dd conv=fsync, drive stopped $when: not in D state past the timeout" "state $st"
  if wait_gone "$dd_pid" 20; then
    wait "$dd_pid"; rc=$?
    elapsed_ok "dd, drive stopped $when: ends within a few timeouts" "$t0" $(( 4 * fs_timeout + 4000 ))
    [ $rc != 0 ] && grep -qi "input/output error" "$work/dd.err" \
      && tap_ok "dd, drive stopped $when: fails with EIO" \
      || tap_not_ok "dd, drive stopped $when: fails with EIO" "rc=$rc: $(cat "$work/dd.err")"
  else
    tap_not_ok "dd, drive stopped $when: ends within a few timeouts" "still running ($(proc_state "$dd_pid"))"
    drive_cont
    wait_gone "$dd_pid" 30
  fi
  drive_cont
  echo again-$when >"$mnt/again-$when" && sync_after_restart "$mnt/again-$when" \
    && grep -q again-$when "$mnt/again-$when" && grep -q before "$mnt/before" \
    && tap_ok "the mount works again after SIGCONT ($when$lost_note)" \
    || tap_not_ok "the mount works again after SIGCONT ($when)" "$(tail -2 "$work/ossdfs.log")"
done

# ---- the watchdog ----------------------------------------------------------
crashed=$(drive_pid)
before=$(restarts)
kill -ABRT "$crashed"
back=
for _ in $(seq 75); do
  p=$(cat "$OSSD_RUNDIR/ossd.pid" 2>/dev/null)
  if [ -n "$p" ] && [ "$p" != "$crashed" ] && kill -0 "$p" 2>/dev/null && "$ctl" --timeout-ms 1000 info >/dev/null 2>&1; then
    back=$p; break
  fi
  sleep 0.2
done
[ -n "$back" ] && tap_ok "a crashed drive (SIGABRT) is started again by its watchdog, same socket" \
  || tap_not_ok "a crashed drive (SIGABRT) is started again by its watchdog, same socket" "$(tail -3 "$OSSD_RUNDIR/nbdkit.log")"
[ "$(stat -c '%U:%G %a' "$sock")" = "root:postgres 660" ] \
  && tap_ok "the restarted drive's socket has its group again (root:postgres 0660)" \
  || tap_not_ok "the restarted drive's socket has its group again" "$(stat -c '%U:%G %a' "$sock")"
[ "$(restarts)" = $(( before + 1 )) ] && tap_ok "device status --json counts the restart ($(restarts))" \
  || tap_not_ok "device status --json counts the restart" "$("$ctl" device status --json)"
grep -q "nbdkit pid $crashed) crashed (signal 6, Aborted); starting it again" "$OSSD_RUNDIR/nbdkit.log" \
  && tap_ok "the drive's log says it crashed and was started again" \
  || tap_not_ok "the drive's log says it crashed and was started again" "$(tail -3 "$OSSD_RUNDIR/nbdkit.log")"
echo watchdog >"$mnt/watchdog" && sync_after_restart "$mnt/watchdog" \
  && grep -q watchdog "$mnt/watchdog" && grep -q again-during "$mnt/again-during" \
  && tap_ok "the mount works after the watchdog's restart, files written before are there$lost_note" \
  || tap_not_ok "the mount works after the watchdog's restart, files written before are there" "$(tail -2 "$work/ossdfs.log")"

drive_kill
sleep 1
st=$("$ctl" device status --json)
echo "$st" | grep -q '"running": false, "pid": 0, "watchdog_pid": 0' \
  && tap_ok "a kill -9 (a power cut) is not restarted: no drive, no watchdog" \
  || tap_not_ok "a kill -9 (a power cut) is not restarted" "$st"
ok_if "the drive restarts on its image (kill -9, same socket)" drive_restart
drive_open_for_postgres
echo restarted >"$mnt/restarted" && sync_after_restart "$mnt/restarted" \
  && grep -q restarted "$mnt/restarted" \
  && tap_ok "after the restart: create, write, fsync, read on the same mount$lost_note" \
  || tap_not_ok "after the restart: create, write, fsync, read on the same mount" "$(tail -2 "$work/ossdfs.log")"
ok_if "after the restart: files written before are there" grep -q again-during "$mnt/again-during"
ok_if "after the restart: 8 MiB written and read back" \
  sh -c "head -c 8M /dev/urandom >'$work/8m' && cp '$work/8m' '$mnt/8m' && sync '$mnt/8m' && cmp '$work/8m' '$mnt/8m'"

# ---- PostgreSQL ------------------------------------------------------------
# The extension is installed in the system directories, shared by every
# tree: say so when the one installed is not this tree's build.
cmp -s "$top/pg_ossd/pg_ossd.so" "$("$pg_config" --pkglibdir)/pg_ossd.so" \
  && tap_ok "the installed pg_ossd.so is this tree's build" \
  || tap_not_ok "the installed pg_ossd.so is this tree's build" "run make pg-ossd-install (under the install lock) first"
mkdir -p "$mnt/ts" && chown postgres: "$mnt/ts"
ok_if "initdb (as postgres)" pg_init
cat >>"$pgdata/postgresql.conf" <<CONF
shared_preload_libraries = 'pg_ossd'
lc_messages = 'C'
autovacuum = off
jit = off
max_parallel_workers_per_gather = 0
ossd.timeout_ms = $pg_timeout
CONF
ok_if "PostgreSQL starts" pg_start
ok_if "tablespace on the mount, pg_ossd" psql_q -c "CREATE TABLESPACE ossd LOCATION '$mnt/ts'" -c "CREATE EXTENSION pg_ossd"
ok_if "a table of 300000 rows on the drive" psql_q -c "CREATE TABLE t (id int, v int) TABLESPACE ossd" \
  -c "INSERT INTO t SELECT i, i % 1000 FROM generate_series(1, 300000) i" -c "VACUUM (FREEZE) t" -c "CHECKPOINT"
q="SELECT count(*) FROM t WHERE v % 7 = 3"
force="SET ossd.force_offload = on"
expect=$(psql_q -c "SET ossd.enabled = off" -c "$q")
psql_q -c "$force" -c "EXPLAIN (COSTS OFF) $q" | grep -q OssdScan \
  && tap_ok "the query is offloaded" || tap_not_ok "the query is offloaded" "$(psql_q -c "$force" -c "EXPLAIN (COSTS OFF) $q")"
got=$(psql_q -c "$force" -c "$q")
[ "$got" = "$expect" ] && tap_ok "offloaded count on a healthy drive ($got)" || tap_not_ok "offloaded count on a healthy drive" "$got, want $expect"

# psql as postgres with application_name $1, the rest its arguments
psql_app () {
  local app=$1; shift
  (cd "$work" && timeout -k 5 60 runuser -u postgres -- env PGAPPNAME="$app" "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres "$@")
}
# signal_backend FUNC APP: pg_cancel_backend / pg_terminate_backend the
# backend of application APP once it runs a query.
signal_backend () {
  local i n
  for i in $(seq 50); do
    n=$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$2' AND state = 'active'")
    [ "$n" = 1 ] && break
    sleep 0.1
  done
  psql_q -c "SELECT $1(pid) FROM pg_stat_activity WHERE application_name = '$2'" >/dev/null
}

# psql bounded by timeout(1): a build without deadlines would wait forever
psql_t () { (cd "$work" && timeout -k 5 60 runuser -u postgres -- "$pgbin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres "$@"); }
drive_stop
t0=$(now_ms)
out=$(psql_t -c "$force" -c "$q" 2>&1); rc=$?
elapsed_ok "offloaded query, drive stopped before: fails within ossd.timeout_ms" "$t0" $(( pg_timeout + 3000 ))
[ $rc != 0 ] && echo "$out" | grep -qF "$sock" && echo "$out" | grep -q "$pg_timeout ms" \
  && tap_ok "the ERROR names the drive and the timeout" || tap_not_ok "the ERROR names the drive and the timeout" "rc=$rc: $out"

t0=$(now_ms)
out=$(psql_t -c "$force" -c "SET ossd.timeout_ms = 60000" -c "SET statement_timeout = '2s'" -c "$q" 2>&1); rc=$?
elapsed_ok "statement_timeout = 2s cancels the wait on the drive" "$t0" 3500
echo "$out" | grep -q "statement timeout" && tap_ok "... as a statement timeout" || tap_not_ok "... as a statement timeout" "rc=$rc: $out"

for sig in pg_cancel_backend pg_terminate_backend; do
  psql_app victim -c "$force" -c "SET ossd.timeout_ms = 60000" -c "$q" >"$work/victim.out" 2>&1 &
  vpid=$!
  signal_backend "$sig" victim
  t0=$(now_ms)
  if wait_gone "$vpid" 10; then
    elapsed_ok "$sig interrupts the wait on the drive" "$t0" 2000
    grep -q "canceling statement due to user request\|terminating connection due to administrator command" "$work/victim.out" \
      && tap_ok "... with the usual message" || tap_not_ok "... with the usual message" "$(cat "$work/victim.out")"
  else
    tap_not_ok "$sig interrupts the wait on the drive" "the query still runs 10 s later"
  fi
done
drive_cont
got=$(psql_q -c "$force" -c "$q" 2>&1)
[ "$got" = "$expect" ] && tap_ok "after SIGCONT: the offloaded query works ($got)" || tap_not_ok "after SIGCONT: the offloaded query works" "$got"

# stopped while a backend holds its connection: its next query times out
psql_t -c "$force" -c "$q" -c "SELECT pg_sleep(3)" -c "$q" >"$work/during.out" 2>&1 &
bpid=$!
sleep 1.5
drive_stop
if wait_gone "$bpid" $(( 3 + pg_timeout / 1000 + 5 )); then
  grep -q "$pg_timeout ms" "$work/during.out" && [ "$(head -1 "$work/during.out")" = "$expect" ] \
    && tap_ok "drive stopped during a session: its next offloaded query fails with the timeout" \
    || tap_not_ok "drive stopped during a session: its next offloaded query fails with the timeout" "$(cat "$work/during.out")"
else
  tap_not_ok "drive stopped during a session: its next offloaded query fails with the timeout" "still running"
fi
drive_cont

# restart of the drive under a long-lived backend
psql_t -c "$force" -c "$q" -c "SELECT pg_sleep(6)" -c "$q" >"$work/restart.out" 2>&1 &
bpid=$!
sleep 1.5
drive_kill
drive_restart >/dev/null && drive_open_for_postgres
if wait_gone "$bpid" 30; then
  [ "$(cat "$work/restart.out")" = "$expect

$expect" ] && tap_ok "drive restarted under a backend: its next offloaded query succeeds" \
    || tap_not_ok "drive restarted under a backend: its next offloaded query succeeds" "$(cat "$work/restart.out")"
else
  tap_not_ok "drive restarted under a backend: its next offloaded query succeeds" "still running"
fi
got=$(psql_q -c "$force" -c "$q" 2>&1)
[ "$got" = "$expect" ] && tap_ok "a new session after the restart: offloaded query works" || tap_not_ok "a new session after the restart: offloaded query works" "$got"
# writes since the mount's last FLUSH may be gone with the restart: the
# checkpoint's fsync then fails, PostgreSQL PANICs and recovers from WAL
ins=(-c "INSERT INTO t SELECT i, 0 FROM generate_series(1, 1000) i" -c "CHECKPOINT")
note=
if ! psql_q "${ins[@]}" >"$work/ins.out" 2>&1; then
  if grep -q "PANIC: .*could not fsync" "$work/pgsock/pg.log"; then
    note=" (first: $(grep -m1 -o 'PANIC: .*could not fsync[^:]*' "$work/pgsock/pg.log"), then crash recovery)"
    for _ in $(seq 120); do psql_q -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
  fi
  psql_q "${ins[@]}" >"$work/ins.out" 2>&1
fi
[ $? = 0 ] && tap_ok "writes to the tablespace after the restart$note" \
  || tap_not_ok "writes to the tablespace after the restart" "$(cat "$work/ins.out"; tail -3 "$work/pgsock/pg.log")"
got=$(psql_q -c "SELECT count(*) FROM t" 2>&1)
[ "$got" -ge 301000 ] 2>/dev/null && tap_ok "the table holds every row committed ($got)" \
  || tap_not_ok "the table holds every row committed" "$got"
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount" fs_umount

tap_done
