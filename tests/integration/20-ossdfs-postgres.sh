#!/usr/bin/env bash
# 20-ossdfs-postgres.sh - PostgreSQL 15 keeps a tablespace on ossdfs:
# CREATE TABLE/INDEX, COPY of ~200 MB (OSSDFS_PG_MB), UPDATE, DELETE,
# VACUUM, CHECKPOINT, ALTER TABLE SET TABLESPACE out and back in, DROP;
# pg_amcheck --heapallindexed finds no corruption; a relation file's
# user.ossd.oid names the object that holds its bytes.  The cluster is
# private (initdb in a temp dir as postgres, Unix socket only).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init pg
mb=${OSSDFS_PG_MB:-200}
rows=$((mb * 1000000 / 125))       # ~125 bytes of CSV per row

[ -x "$pgbin/initdb" ] || { tap_not_ok "PostgreSQL 15 is installed"; tap_done; exit 1; }
ok_if "drive starts" drive_start 4G
ok_if "ossdfs mounts" fs_mount
ok_if "tablespace directory owned by postgres" sh -c "mkdir '$mnt/ts' && chown postgres:postgres '$mnt/ts' && chmod 700 '$mnt/ts'"
ok_if "initdb (as postgres)" pg_init
ok_if "PostgreSQL starts (Unix socket only)" pg_start
psql_q -c "SELECT 1" >/dev/null 2>&1 || { tail -n 5 "$work/pgsock/pg.log" "$work/initdb.log" | sed 's/^/# /'; tap_done; exit 1; }
ok_if "CREATE TABLESPACE on ossdfs" psql_q -c "CREATE TABLESPACE ossd LOCATION '$mnt/ts'"
ok_if "CREATE TABLE in the tablespace" psql_q -c "CREATE TABLE t (id bigint, a int, b text, c float8) TABLESPACE ossd"
mkdir -p "$work/csv" && chown postgres: "$work/csv"
ok_if "make a ${mb} MB CSV ($rows rows)" psql_q -c "COPY (SELECT i, (i::bigint * 7919) % 100000, md5(i::text) || md5((i+1)::text) || 'x', i / 3.0 FROM generate_series(1, $rows) i) TO '$work/csv/t.csv' (FORMAT csv)"
start=$(date +%s.%N)
ok_if "COPY $(du -m "$work/csv/t.csv" | cut -f1) MB into the ossdfs tablespace" psql_q -c "COPY t FROM '$work/csv/t.csv' (FORMAT csv)"
echo "# COPY took $(echo "$(date +%s.%N) - $start" | bc) s"
ok_if "CREATE INDEX (primary key) in the tablespace" psql_q -c "ALTER TABLE t ADD PRIMARY KEY (id) USING INDEX TABLESPACE ossd"
ok_if "CREATE INDEX on a" psql_q -c "CREATE INDEX t_a ON t (a) TABLESPACE ossd"
ok_if "UPDATE 10%" psql_q -c "UPDATE t SET c = c + 1, b = upper(b) WHERE id % 10 = 0"
ok_if "DELETE 1/7" psql_q -c "DELETE FROM t WHERE id % 7 = 0"
ok_if "VACUUM" psql_q -c "VACUUM (ANALYZE) t"
ok_if "CHECKPOINT" psql_q -c "CHECKPOINT"
sum_q="SELECT count(*) || ':' || sum(hashtext(t::text)::bigint) FROM t"
expect_count=$((rows - rows / 7))
sum1=$(psql_q -c "$sum_q" 2>&1)
[ "${sum1%%:*}" = "$expect_count" ] && tap_ok "row count after DELETE is $expect_count" || tap_not_ok "row count after DELETE" "$sum1"
[ "$(psql_q -c "SELECT count(*) FROM t WHERE id = 70000 OR id = 70001")" = 1 ] && tap_ok "index lookups" || tap_not_ok "index lookups"

# the relation's files are objects
relpath=$(psql_q -c "SELECT pg_relation_filepath('t')")
relfile=$pgdata/$relpath
case $(readlink -f "$relfile") in "$mnt"/*) tap_ok "relation file lives on ossdfs ($relpath)" ;; *) tap_not_ok "relation file lives on ossdfs" "$(readlink -f "$relfile")" ;; esac
oid=$(getfattr --absolute-names --only-values -n user.ossd.oid "$relfile" 2>&1)
[ "$oid" = "$(stat -L -c %i "$relfile")" ] && tap_ok "getfattr user.ossd.oid on the relation file ($oid)" || tap_not_ok "getfattr user.ossd.oid" "$oid"
[ "$(getfattr --absolute-names --only-values -n user.ossd.device "$relfile" 2>&1)" = "$dev" ] && tap_ok "user.ossd.device on the relation file" || tap_not_ok "user.ossd.device"
osize=$("$ctl" --json stat "1:$oid" 2>/dev/null | tr -d ' \n' | sed -n 's/.*"size":\([0-9]*\).*/\1/p')
[ "$osize" = "$(stat -L -c %s "$relfile")" ] && tap_ok "object size = segment file size ($osize)" || tap_not_ok "object size = segment file size" "object $osize file $(stat -L -c %s "$relfile")"
"$ctl" get "1:$oid" - 2>/dev/null | head -c 8192 | cmp -s - <(head -c 8192 "$relfile") \
  && tap_ok "block 0 of the object = block 0 of the file" || tap_not_ok "block 0 of the object = block 0 of the file"

out=$(pg_as "$pgbin/pg_amcheck" -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres --install-missing --heapallindexed -t public.t 2>&1); rc=$?
[ $rc = 0 ] && tap_ok "pg_amcheck --heapallindexed: no corruption" || tap_not_ok "pg_amcheck --heapallindexed" "rc=$rc $(echo "$out" | head -3)"

ok_if "ALTER TABLE SET TABLESPACE pg_default (out)" psql_q -c "ALTER TABLE t SET TABLESPACE pg_default"
[ "$(psql_q -c "$sum_q")" = "$sum1" ] && tap_ok "same rows after moving out" || tap_not_ok "same rows after moving out"
ok_if "ALTER TABLE SET TABLESPACE ossd (back in)" psql_q -c "ALTER TABLE t SET TABLESPACE ossd"
[ "$(psql_q -c "$sum_q")" = "$sum1" ] && tap_ok "same rows after moving back in" || tap_not_ok "same rows after moving back in"
ok_if "CHECKPOINT" psql_q -c "CHECKPOINT"
out=$(pg_as "$pgbin/pg_amcheck" -h "$work/pgsock" -p "$pg_port" -U postgres -d postgres --heapallindexed -t public.t 2>&1); rc=$?
[ $rc = 0 ] && tap_ok "pg_amcheck after the moves: no corruption" || tap_not_ok "pg_amcheck after the moves" "rc=$rc $(echo "$out" | head -3)"

# restart PostgreSQL and remount underneath it: the data comes back from the drive
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount" fs_umount
ok_if "remount" fs_mount
ok_if "start PostgreSQL" pg_start
[ "$(psql_q -c "$sum_q")" = "$sum1" ] && tap_ok "same rows after remount (read from the drive)" || tap_not_ok "same rows after remount"
ok_if "DROP TABLE" psql_q -c "DROP TABLE t"
ok_if "CHECKPOINT (unlinks the files)" psql_q -c "CHECKPOINT"
ok_if "DROP TABLESPACE" psql_q -c "DROP TABLESPACE ossd"
[ -z "$(ls -A "$mnt/ts")" ] && tap_ok "tablespace directory empty after DROP" || tap_not_ok "tablespace directory empty after DROP" "$(ls -A "$mnt/ts")"
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount" fs_umount
tap_done
