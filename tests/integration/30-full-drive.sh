#!/usr/bin/env bash
# 30-full-drive.sh - a full drive fails the call that consumes the space
# (DESIGN.md "Faults"): through ossdfs, zeros appended past the end (kept
# off the drive, host/ossdfs/space.c), fallocate and data writes fail at
# write()/fallocate() with ENOSPC, while writes of space already promised,
# fsync and close never do; PostgreSQL filling a tablespace on a small
# drive gets a clean ERROR, stays up (no PANIC, same postmaster), and after
# DROP TABLE or TRUNCATE and a CHECKPOINT fills a new table again; crash
# recovery on the full drive comes up too.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/pg/pg-env.bash"

# ---- plain ossdfs -------------------------------------------------------------
ofs_init full-fs
ok_if "small drive starts (256 MiB)" drive_start 256M
ok_if "ossdfs mounts" fs_mount

# zeros appended stay off the drive, but their space counts as used
stat_of () { getfattr --only-values -n user.ossd.stats "$mnt" 2>/dev/null | awk -v k="$1" '$1 == k {print $2}'; }
a0=$(stat -f -c %a "$mnt"); f0=$(stat -f -c %f "$mnt")
setfattr -n user.ossd.stats -v 0 "$mnt"
dd if=/dev/zero of="$mnt/prom" bs=8k count=8192 status=none
n=$(stat_of drive.info)
[ "${n:-0}" -le 2 ] && tap_ok "8192 zero pages far from full: ${n:-0} INFO reads (at most 2)" \
  || tap_not_ok "8192 zero pages far from full: at most 2 INFO reads" "$n"
a1=$(stat -f -c %a "$mnt"); f1=$(stat -f -c %f "$mnt")
[ $((a0 - a1)) -ge 16000 ] && [ $((f0 - f1)) -lt 1000 ] \
  && tap_ok "64 MiB of appended zeros: not on the drive, but not available (statfs)" \
  || tap_not_ok "64 MiB of appended zeros: not on the drive, but not available" "avail $a0 -> $a1, free $f0 -> $f1 (4 KiB blocks)"
ok_if "rm gives the promised space back" sh -c "rm '$mnt/prom' && [ \$(stat -f -c %a '$mnt') -ge $((a0 - 100)) ]"

# PostgreSQL's pattern in one process: extend files with zero pages, write
# the pages for real later, fsync, close.  Prints one line per step.
cat >"$work/fill.py" <<'PY'
import errno, os, sys
mnt = sys.argv[1]
page = 8192
zero = bytes(page)
def say(*a): print(*a, flush=True)
held = os.open(mnt + "/held", os.O_RDWR | os.O_CREAT, 0o644)
for i in range(128):                      # 1 MiB promised while there is room
    os.pwrite(held, zero, i * page)
fill = os.open(mnt + "/zeros", os.O_RDWR | os.O_CREAT, 0o644)
n = 0
try:
    while n < 131072:                     # 1 GiB of zero pages at most
        os.pwrite(fill, zero, n * page)
        n += 1
    say("zero-fill: no error after", n, "pages")
except OSError as e:
    say("zero-fill:", errno.errorcode.get(e.errno, e.errno), "at write of page", n)
data = os.urandom(page)
def rewrite(fd, pages, what):
    for i in range(pages):
        try:
            os.pwrite(fd, data, i * page)
        except OSError as e:
            say(what + ":", errno.errorcode.get(e.errno, e.errno), "at page", i)
            return
    say(what + ": ok")
rewrite(held, 128, "rewrite held")
rewrite(fill, n, "rewrite zeros")
for fd, what in ((held, "held"), (fill, "zeros")):
    try:
        os.fsync(fd); say("fsync " + what + ": ok")
    except OSError as e:
        say("fsync " + what + ":", errno.errorcode.get(e.errno, e.errno))
    try:
        os.close(fd); say("close " + what + ": ok")
    except OSError as e:
        say("close " + what + ":", errno.errorcode.get(e.errno, e.errno))
say("pages", n)
PY
out=$(python3 "$work/fill.py" "$mnt" 2>&1)
echo "$out" | sed 's/^/# /'
line () { echo "$out" | grep "^$1" | head -1; }
case $(line zero-fill:) in *ENOSPC*) tap_ok "zero pages appended past the drive's space: ENOSPC at write()" ;;
  *) tap_not_ok "zero pages appended past the drive's space: ENOSPC at write()" "$(line zero-fill:)" ;; esac
pages=$(line pages | awk '{print $2}')
[ "${pages:-0}" -gt $((128 << 20 >> 13)) ] && tap_ok "the zero fill got most of the drive first ($pages pages)" \
  || tap_not_ok "the zero fill got most of the drive first" "$pages pages"
for w in "rewrite held" "rewrite zeros"; do
  [ "$(line "$w:")" = "$w: ok" ] && tap_ok "$w: the real pages fit in the promised space" \
    || tap_not_ok "$w: the real pages fit in the promised space" "$(line "$w:")"
done
for w in "fsync held" "close held" "fsync zeros" "close zeros"; do
  [ "$(line "$w:")" = "$w: ok" ] && tap_ok "$w on the full drive: no error" || tap_not_ok "$w on the full drive: no error" "$(line "$w:")"
done
[ "$(stat -c %s "$mnt/zeros")" = $((pages * 8192)) ] && tap_ok "the failed write left the size at the pages written" \
  || tap_not_ok "the failed write left the size at the pages written" "$(stat -c %s "$mnt/zeros")"

out=$(fallocate -l 64M "$mnt/fa" 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"No space left"*) true ;; *) false ;; esac \
  && tap_ok "fallocate on the full drive: ENOSPC at the call" || tap_not_ok "fallocate on the full drive: ENOSPC" "rc=$rc $out"
ok_if "truncate -s 64M (a hole claims nothing)" truncate -s 64M "$mnt/sparse"
out=$(dd if=/dev/urandom of="$mnt/sparse" bs=1M count=64 conv=notrunc status=none 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"No space left"*) true ;; *) false ;; esac \
  && tap_ok "data into the hole on the full drive: ENOSPC at write()" || tap_not_ok "data into the hole: ENOSPC at write()" "rc=$rc $out"
out=$(dd if=/dev/zero of="$mnt/zeros" bs=8k count=64 oflag=append conv=notrunc status=none 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"No space left"*) true ;; *) false ;; esac \
  && tap_ok "zeros appended to a full drive again: ENOSPC at write()" || tap_not_ok "zeros appended again: ENOSPC" "rc=$rc $out"
# after the failures, other files open, change, fsync and close cleanly
ok_if "open + overwrite + fsync + close of another file after the failures" python3 -c "
import os
fd = os.open('$mnt/held', os.O_RDWR); os.pwrite(fd, b'x' * 8192, 8192); os.fsync(fd); os.close(fd)
fd = os.open('$mnt/zeros', os.O_RDWR); os.fsync(fd); os.close(fd)
fd = os.open('$mnt/sparse', os.O_RDWR); os.fsync(fd); os.close(fd)"
ok_if "sync -f on the mount" sync -f "$mnt/held"
ok_if "rm frees the space" rm -f "$mnt/zeros" "$mnt/sparse"
ok_if "zeros appended and written for real after rm (64 MiB, fsync)" python3 -c "
import os
fd = os.open('$mnt/again', os.O_RDWR | os.O_CREAT, 0o644)
for i in range(8192): os.pwrite(fd, bytes(8192), i * 8192)
d = os.urandom(8192)
for i in range(8192): os.pwrite(fd, d, i * 8192)
os.fsync(fd); os.close(fd)"
ok_if "unmount" fs_umount
ok_if "remount" fs_mount
[ "$(stat -c %s "$mnt/held")" = $((128 * 8192)) ] && [ "$(stat -c %s "$mnt/again")" = $((8192 * 8192)) ] \
  && tap_ok "sizes kept across the remount" || tap_not_ok "sizes kept across the remount" "$(ls -l "$mnt")"
ok_if "unmount" fs_umount
"$ctl" device stop >/dev/null 2>&1
rm -rf "$work"

# ---- PostgreSQL on a full tablespace ---------------------------------------------
[ -x "$pgbin/initdb" ] || { tap_not_ok "PostgreSQL 15 is installed"; tap_done; exit 1; }
if pgenv_up full-pg 256M >"$top/build/test-logs/30-full-drive.pgenv.log" 2>&1; then
  tap_ok "drive (256 MiB) + ossdfs + PostgreSQL up"
else
  tap_not_ok "drive (256 MiB) + ossdfs + PostgreSQL up" "$(tail -5 "$top/build/test-logs/30-full-drive.pgenv.log")"
  tap_done; exit 1
fi
pglog=$work/pgsock/pg.log
pm_pid () { head -1 "$pgdata/postmaster.pid" 2>/dev/null; }
pid0=$(pm_pid)
# INSERTs of ~18 MB each into table $1 until one fails; prints the number
# that succeeded, then the failing statement's error
fill_table () {
  local i err
  for i in $(seq 40); do
    if ! err=$(psql_q -c "INSERT INTO $1 SELECT i, repeat('x', 900) FROM generate_series(1, 20000) i" 2>&1); then
      echo "$((i - 1))"; echo "$err"; return 0
    fi
  done
  echo 40; echo "no error"
}
checks () {   # $1: when
  pg_as "$pgbin/pg_isready" -q -h "$work/pgsock" -p "$pg_port" && [ "$(psql_q -c 'SELECT 1' 2>&1)" = 1 ] \
    && tap_ok "$1: the cluster answers" || tap_not_ok "$1: the cluster answers" "$(tail -3 "$pglog")"
  [ -n "$pid0" ] && [ "$(pm_pid)" = "$pid0" ] && tap_ok "$1: same postmaster ($pid0)" || tap_not_ok "$1: same postmaster" "$pid0 -> $(pm_pid)"
  if grep -E "PANIC|terminated by signal" "$pglog" >/dev/null; then
    tap_not_ok "$1: no PANIC or crash in the log" "$(grep -E "PANIC|terminated by signal" "$pglog" | head -3)"
  else tap_ok "$1: no PANIC or crash in the log"; fi
}
ok_if "CREATE TABLE f in the ossd tablespace" psql_q -c "CREATE TABLE f (id int, pad text) TABLESPACE ossd"
res=$(fill_table f)
n1=$(echo "$res" | head -1); err=$(echo "$res" | tail -n +2)
echo "# $(date +%T) f: $n1 INSERTs, then: $err"
case $err in *"could not extend file"*"No space left on device"*) tap_ok "the INSERT that does not fit: clean ERROR (could not extend ...: No space left on device)" ;;
  *) tap_not_ok "the INSERT that does not fit: could not extend ...: No space left on device" "$err" ;; esac
[ "$n1" -ge 5 ] && tap_ok "the drive took $n1 INSERTs first" || tap_not_ok "the drive took several INSERTs first" "$n1"
ok_if "CHECKPOINT on the full drive (writes and fsyncs every promised page)" psql_q -c "CHECKPOINT"
[ "$(psql_q -c "SELECT count(*) FROM f")" = $((n1 * 20000)) ] && tap_ok "f holds the rows of the INSERTs that succeeded" \
  || tap_not_ok "f holds the rows of the INSERTs that succeeded" "$(psql_q -c "SELECT count(*) FROM f" 2>&1)"
sleep 6            # a crash-restart loop would show within one cycle
checks "full"
# crash recovery on the full drive replays the INSERTs and ends with a
# checkpoint: it must not PANIC either
ok_if "immediate stop (a crash) on the full drive" pg_stop immediate
ok_if "PostgreSQL starts again: crash recovery on the full drive" pg_start
pid0=$(pm_pid)
[ "$(psql_q -c "SELECT count(*) FROM f")" = $((n1 * 20000)) ] && tap_ok "after recovery f holds the same rows" \
  || tap_not_ok "after recovery f holds the same rows" "$(psql_q -c "SELECT count(*) FROM f" 2>&1)"
sleep 6
checks "after crash recovery"
ok_if "DROP TABLE f" psql_q -c "DROP TABLE f"
ok_if "CHECKPOINT (unlinks its files)" psql_q -c "CHECKPOINT"
ok_if "CREATE TABLE g" psql_q -c "CREATE TABLE g (id int, pad text) TABLESPACE ossd"
res=$(fill_table g)
n2=$(echo "$res" | head -1); err=$(echo "$res" | tail -n +2)
echo "# $(date +%T) g: $n2 INSERTs, then: $err"
[ "$n2" -ge 5 ] && [ "$n2" -ge $((n1 - 1)) ] && tap_ok "after DROP TABLE a new table fills the drive again ($n2 INSERTs)" \
  || tap_not_ok "after DROP TABLE a new table fills the drive again" "$n2 INSERTs (first table: $n1)"
case $err in *"No space left on device"*) tap_ok "and ends with the same clean ERROR" ;; *) tap_not_ok "and ends with the same clean ERROR" "$err" ;; esac
# (on failure, the server log says which file and why)
checkpoint_ok () {
  local out
  if out=$(psql_q -c "CHECKPOINT" 2>&1); then tap_ok "$1"
  else tap_not_ok "$1" "$out; server log: $(grep -E 'ERROR|WARNING|could not' "$pglog" | tail -6 | tr '\n' ' ')"; fi
}
checkpoint_ok "CHECKPOINT"
# TRUNCATE makes new files (the TOAST index needs a page) before the old
# ones go, so on a drive without one free page it fails, as on any
# filesystem: half fill a new table first.
ok_if "DROP TABLE g, CHECKPOINT" psql_q -c "DROP TABLE g" -c "CHECKPOINT"
ok_if "CREATE TABLE h and fill half the drive" psql_q -c "CREATE TABLE h (id int, pad text) TABLESPACE ossd" \
  -c "INSERT INTO h SELECT i, repeat('x', 900) FROM generate_series(1, $((n1 / 2 * 20000))) i" -c "CHECKPOINT"
ok_if "TRUNCATE h" psql_q -c "TRUNCATE h"
checkpoint_ok "CHECKPOINT after TRUNCATE"
res=$(fill_table h)
n3=$(echo "$res" | head -1)
echo "# $(date +%T) h: $n3 INSERTs after TRUNCATE, then: $(echo "$res" | tail -n +2)"
[ "$n3" -ge 5 ] && [ "$n3" -ge $((n1 - 1)) ] && tap_ok "after TRUNCATE the table fills the drive again ($n3 INSERTs)" \
  || tap_not_ok "after TRUNCATE the table fills the drive again" "$n3 INSERTs (first table: $n1)"
checkpoint_ok "CHECKPOINT"
checks "at the end"
ok_if "stop PostgreSQL" pg_stop
ok_if "unmount" fs_umount
tap_done
