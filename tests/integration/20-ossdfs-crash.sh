#!/usr/bin/env bash
# 20-ossdfs-crash.sh - crashes under PostgreSQL with a tablespace on
# ossdfs: (1) pg_ctl stop -m immediate and restart recovers; (2) kill -9
# of the drive (nbdkit) and of ossdfs after a CHECKPOINT, with more rows
# committed after it, then restart of the drive, ossdfs and PostgreSQL:
# no committed row is lost (count and checksum before and after), and
# pg_amcheck finds no corruption.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init crash

[ -x "$pgbin/initdb" ] || { tap_not_ok "PostgreSQL 15 is installed"; tap_done; exit 1; }
ok_if "drive starts" drive_start 4G
# under $OSSD_PROFILE (21-ossdfs-crash-paced.sh) every start is that profile
profile_in_force () {
  [ -z "${OSSD_PROFILE:-}" ] && return 0
  local p
  p=$("$ctl" --json info | python3 -c 'import json, sys; print(json.load(sys.stdin)["profile"])')
  [ "$p" = "$OSSD_PROFILE" ] && tap_ok "the drive runs the $OSSD_PROFILE profile ($1)" \
    || tap_not_ok "the drive runs the $OSSD_PROFILE profile ($1)" "profile in force: $p"
}
profile_in_force "first start"
ok_if "ossdfs mounts" fs_mount
ok_if "tablespace directory owned by postgres" sh -c "mkdir '$mnt/ts' && chown postgres:postgres '$mnt/ts' && chmod 700 '$mnt/ts'"
ok_if "initdb (as postgres)" pg_init
ok_if "PostgreSQL starts" pg_start
psql_q -c "SELECT 1" >/dev/null 2>&1 || { tail -n 5 "$work/pgsock/pg.log" | sed 's/^/# /'; tap_done; exit 1; }
ok_if "CREATE TABLESPACE on ossdfs" psql_q -c "CREATE TABLESPACE ossd LOCATION '$mnt/ts'"
ok_if "table + index with 300000 rows" psql_q -c "CREATE TABLE t (id bigint PRIMARY KEY USING INDEX TABLESPACE ossd, v text) TABLESPACE ossd; INSERT INTO t SELECT i, md5(i::text) FROM generate_series(1, 300000) i"
ok_if "CHECKPOINT" psql_q -c "CHECKPOINT"
sum_q="SELECT count(*) || ':' || coalesce(sum(hashtext(t::text)::bigint), 0) FROM t"

# (1) immediate stop
ok_if "rows committed after the checkpoint" psql_q -c "UPDATE t SET v = v || 'u' WHERE id % 5 = 0; INSERT INTO t SELECT i, 'late' FROM generate_series(300001, 320000) i"
before=$(psql_q -c "$sum_q")
ok_if "pg_ctl stop -m immediate" pg_stop immediate
ok_if "PostgreSQL restarts (crash recovery)" pg_start
grep -q "database system was interrupted\|redo done\|redo starts" "$work/pgsock/pg.log" && tap_ok "the server ran recovery" || tap_not_ok "the server ran recovery"
after=$(psql_q -c "$sum_q")
[ "$before" = "$after" ] && tap_ok "no committed row lost after immediate stop ($after)" || tap_not_ok "no committed row lost after immediate stop" "before $before after $after"

# (2) kill -9 of the drive and of ossdfs
ok_if "more work, then CHECKPOINT" psql_q -c "DELETE FROM t WHERE id % 11 = 0; INSERT INTO t SELECT i, md5(i::text) FROM generate_series(320001, 400000) i; CHECKPOINT"
ok_if "rows committed after the checkpoint" psql_q -c "UPDATE t SET v = 'after-ckpt' WHERE id % 13 = 0; INSERT INTO t SELECT i, 'after' FROM generate_series(400001, 410000) i"
before=$(psql_q -c "$sum_q")
echo "# before the crash: $before"
drive_kill
fs_kill
tap_ok "kill -9 of the drive and of ossdfs"
pg_as "$pgbin/pg_ctl" -D "$pgdata" -w -t 60 -m immediate stop >/dev/null 2>&1; pg_started=
tap_ok "PostgreSQL stopped (immediate) with its tablespace gone"
ok_if "the drive restarts on its image (FTL recovery)" drive_restart
profile_in_force "after the restart"
ok_if "ossdfs remounts" fs_mount
ok_if "PostgreSQL restarts (WAL replay into the tablespace)" pg_start
after=$(psql_q -c "$sum_q" 2>&1)
[ "$before" = "$after" ] && tap_ok "no committed row lost after kill -9 of drive and ossdfs ($after)" \
  || tap_not_ok "no committed row lost after kill -9 of drive and ossdfs" "before $before after $after"
out=$(pg_as "$pgbin/pg_amcheck" -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres --install-missing --heapallindexed -t public.t 2>&1); rc=$?
[ $rc = 0 ] && tap_ok "pg_amcheck --heapallindexed after the crash: no corruption" || tap_not_ok "pg_amcheck after the crash" "rc=$rc $(echo "$out" | head -3)"
ok_if "writes work after recovery" psql_q -c "INSERT INTO t SELECT i, 'post' FROM generate_series(410001, 420000) i; CHECKPOINT"
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount" fs_umount
ok_if "fsck of the drive" "$ctl" fsck
tap_done
