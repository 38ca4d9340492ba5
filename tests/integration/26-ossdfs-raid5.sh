#!/usr/bin/env bash
# 26-ossdfs-raid5.sh - ossdfs over a RAID-5 array of 4 drives, each its own
# nbdkit (docs/arrays.md "Redundancy in ossdfs"): ossdctl array create
# --level raid5 (refused on 2 drives), info and fsck (every row's parity
# checked); files of every shape (partial rows, overwrites in place, a
# truncate into a row, a punched hole, sparse) read back as written; kill
# -9 of a data drive under a verifying writer that fsyncs: the writer
# goes on, the drive is out within the health check, the layout names it
# (out=D), every file reads back (rebuilt from the others) and writes go
# on (before that: a drive in latency spikes read around, every byte
# right; ossdfs killed under writes, and the next mount makes
# every row's parity right again); a remount with the stale drive back mounts degraded and never
# reads it; array rebuild onto it from the three others (progress,
# --json), then info says clean, fsck checks every parity row, and every
# file, the writer's acknowledged records among them, is as written; then
# drive 0 killed: drive 1's copy of the metadata carries the namespace
# (mkdir, create, rename, unlink, symlink), a remount reads it from
# there, and drive 0 is rebuilt (data from all survivors, metadata from
# drive 1) with fsck checking the copy too.  A mount with a drive down:
# degraded from the others (a clean array's drive taken out, writes go on,
# then rebuilt); with two down, refused.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init raid5
writer=$top/tests/integration/array-writer.py
U=65536
N=4

in_shell () { local d=$1; shift; if "$@" >"$work/step.log" 2>&1; then tap_ok "$d"; else tap_not_ok "$d" "$(tail -3 "$work/step.log" | tr '\n' ' ')"; fi; }
# md5 of every file of the mount (but the writer's, checked on its own)
sums () { (cd "$mnt" && find . -type f ! -name wal | sort | xargs md5sum); }
# every file of the mount as recorded in $1 (sums), else the first differences
sums_equal () { if [ "$(sums)" = "$1" ]; then tap_ok "$2"; else tap_not_ok "$2" "$(diff <(echo "$1") <(sums) | head -5)"; fi; }
json_get () { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

in_shell "4 drives start, each its own nbdkit" array_start $N 1G
out=$("$ctl" array create --device "${array_dev[0]}" --device "${array_dev[1]}" --level raid5 2>&1)
case $out in *"raid5 over 2 drives: need 3"*) tap_ok "array create --level raid5 refuses 2 drives" ;;
  *) tap_not_ok "array create --level raid5 refuses 2 drives" "$out" ;; esac
ok_if "array create --level raid5 (4 drives, unit 64 KiB)" array_create --stripe-unit 64K --level raid5
info=$(array_ctl --json array info)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["level"] == "raid5" and j["state"] == "clean" and j["drives"] == 4, j
assert [m["state"] for m in j["members"]] == ["in"] * 4, j
assert j["problems"] == [], j
' && tap_ok "array info --json: raid5, clean, every drive in" \
  || tap_not_ok "array info --json: raid5, clean, every drive in" "$info"

in_shell "ossdfs mounts the RAID-5 array" fs_mount
grep -q "mounted partition 1 of a 4-drive array (raid5, unit 65536" "$work/ossdfs.log" \
  && tap_ok "ossdfs says it mounted a 4-drive raid5 array" || tap_not_ok "ossdfs says it mounted a 4-drive raid5 array" "$(tail -2 "$work/ossdfs.log")"

# ---- files of every shape ---------------------------------------------------------
python3 - "$mnt" "$work/ref" <<'PY' >"$work/shapes.log" 2>&1
import os, random, sys
mnt, ref = sys.argv[1], sys.argv[2]
os.makedirs(ref, exist_ok=True)
random.seed(26)
U, ROW = 65536, 3 * 65536
sizes = {"tiny": 1, "page": 8192, "unit": U, "row": ROW, "row-and-a-bit": ROW + 5,
         "odd": 1000003, "big": 5 * ROW + 12345}
for name, size in sizes.items():
    data = random.randbytes(size)
    with open(f"{mnt}/{name}", "wb") as f:
        f.write(data)
        os.fsync(f.fileno())
    open(f"{ref}/{name}", "wb").write(data)
# overwrites in place: pieces inside a unit, across units, across rows
fd = os.open(f"{mnt}/big", os.O_RDWR)
buf = bytearray(open(f"{ref}/big", "rb").read())
for _ in range(300):
    off = random.randrange(0, len(buf)); n = random.randrange(1, 3 * U)
    b = random.randbytes(n)
    os.pwrite(fd, b, off)
    buf[off:off + n] = b
os.fsync(fd); os.close(fd)
open(f"{ref}/big", "wb").write(buf)
# truncate into a row, then extend (zeros after the cut)
os.truncate(f"{mnt}/odd", 250000); os.truncate(f"{mnt}/odd", 400000)
d = open(f"{ref}/odd", "rb").read()[:250000]
open(f"{ref}/odd", "wb").write(d + bytes(150000))
# a punched hole
fd = os.open(f"{mnt}/row-and-a-bit", os.O_RDWR)
import ctypes, ctypes.util
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2
if libc.fallocate(fd, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, ctypes.c_long(70000), ctypes.c_long(90000)) != 0:
    raise OSError(ctypes.get_errno(), "fallocate punch")
os.fsync(fd); os.close(fd)
d = bytearray(open(f"{ref}/row-and-a-bit", "rb").read()); d[70000:160000] = bytes(90000)
open(f"{ref}/row-and-a-bit", "wb").write(d)
# sparse: one page far out
with open(f"{mnt}/sparse", "wb") as f:
    f.seek(7 * ROW + 100); f.write(b"far"); os.fsync(f.fileno())
open(f"{ref}/sparse", "wb").write(bytes(7 * ROW + 100) + b"far")
for name in list(sizes) + ["sparse"]:
    got = open(f"{mnt}/{name}", "rb").read()
    want = open(f"{ref}/{name}", "rb").read()
    assert got == want, (name, len(got), len(want))
print("ok")
PY
[ "$(tail -1 "$work/shapes.log")" = ok ] && tap_ok "files of every shape read back as written (partial rows, overwrites, truncate, punch, sparse)" \
  || tap_not_ok "files of every shape read back as written" "$(tail -3 "$work/shapes.log")"
layout=$(getfattr --only-values -n user.ossd.layout "$mnt/big" 2>/dev/null)
case $layout in "raid5 n=4 unit=65536 uuid="*" drives="*) tap_ok "user.ossd.layout: ${layout:0:100}..." ;;
  *) tap_not_ok "user.ossd.layout says raid5" "$layout" ;; esac
sum_written=$(sums)
in_shell "unmount" fs_umount
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (4 drives, "*"raid5, parity rows checked: "*) tap_ok "array fsck: every row's parity is its data's XOR: $out" ;;
  *) tap_not_ok "array fsck after the writes is clean" "$out" ;; esac

# ---- a drive in latency spikes: reads rebuilt around it ---------------------------------
in_shell "remount with --direct-io (every read goes to the drives)" fs_mount --direct-io
pid1=$(cat "$work/run1/ossd.pid")
( while :; do kill -STOP "$pid1"; sleep 0.03; kill -CONT "$pid1"; sleep 0.1; done ) &
stall=$!
python3 - "$mnt" "$work/ref" <<'PY' >"$work/spike.log" 2>&1
import os, random, sys, threading, time
mnt, ref = sys.argv[1], sys.argv[2]
want = open(f"{ref}/big", "rb").read()
fd = os.open(f"{mnt}/big", os.O_RDONLY)
bad = []
def steered():
    for line in os.getxattr(mnt, "user.ossd.stats").decode().splitlines():
        if line.startswith("raid5.spike_steered"):
            return int(line.split()[1])
    return 0
t_end = time.time() + 15
def worker(seed):
    rnd = random.Random(seed)
    while time.time() < t_end and not bad:
        off = rnd.randrange(0, len(want) - 8192)
        if os.pread(fd, 8192, off) != want[off:off + 8192]:
            bad.append(off)
        if rnd.random() < 0.01 and steered() >= 20:
            return
th = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
[t.start() for t in th]; [t.join() for t in th]
print("bad" if bad else "ok", steered())
PY
kill $stall; wait $stall 2>/dev/null; kill -CONT "$pid1"
read -r verdict nsteered <"$work/spike.log"
[ "$verdict" = ok ] && [ "${nsteered:-0}" -gt 0 ] \
  && tap_ok "drive 1 stalled 30 ms of every 130: reads of it rebuilt from the others ($nsteered), every byte right" \
  || tap_not_ok "reads around a drive in spikes" "$(cat "$work/spike.log")"
grep -q "drive 1 .* failed" "$work/ossdfs.log" && tap_not_ok "a drive in spikes is not taken out" "$(grep 'drive 1' "$work/ossdfs.log" | tail -1)" \
  || tap_ok "a drive in spikes is not taken out"
in_shell "unmount" fs_umount

# ---- kill -9 of ossdfs under writes (the write hole) ------------------------------------
in_shell "remount" fs_mount
python3 - "$mnt" <<'PY' >/dev/null 2>&1 &
import os, random, sys
random.seed(3)
fd = os.open(sys.argv[1] + "/scratch", os.O_RDWR | os.O_CREAT)
while True:
    os.pwrite(fd, random.randbytes(random.randrange(1, 100000)), random.randrange(0, 3000000))
PY
spid=$!
sleep 2
fs_kill
kill $spid 2>/dev/null; wait $spid 2>/dev/null
in_shell "remount after kill -9 of ossdfs" fs_mount
grep -q "not unmounted cleanly: checking the parity of every row" "$work/ossdfs.log" \
  && tap_ok "the mount after the crash resyncs the parity ($(grep -o 'parity resync: .*' "$work/ossdfs.log" | tail -1))" \
  || tap_not_ok "the mount after the crash resyncs the parity" "$(tail -3 "$work/ossdfs.log")"
rm -f "$mnt/scratch"
sums_equal "$sum_written" "every file as before the crash"
in_shell "unmount" fs_umount
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (4 drives, "*) tap_ok "array fsck after the crash and resync: clean" ;; *) tap_not_ok "array fsck after the crash and resync is clean" "$out" ;; esac

# ---- kill -9 of a data drive under a verifying writer --------------------------------
in_shell "remount" fs_mount
[ "$(grep -c "not unmounted cleanly" "$work/ossdfs.log")" = 1 ] && tap_ok "after a clean unmount the mount checks no parity" \
  || tap_not_ok "after a clean unmount the mount checks no parity" "$(grep "cleanly" "$work/ossdfs.log")"
python3 "$writer" write "$mnt/wal" "$work/acks" 2>"$work/writer.err" &
wpid=$!
for _ in $(seq 300); do [ "$(tail -1 "$work/acks" 2>/dev/null || echo 0)" -ge 400 ] 2>/dev/null && break; sleep 0.1; done
acked=$(tail -1 "$work/acks" 2>/dev/null)
[ "${acked:-0}" -ge 400 ] && tap_ok "the writer made $acked records durable (fsync)" || tap_not_ok "the writer made 400 records durable" "acks: ${acked:-none}; $(cat "$work/writer.err")"
array_drive_kill 2
for _ in $(seq 100); do grep -q "drive 2 .* failed" "$work/ossdfs.log" && break; sleep 0.1; done
grep -q "drive 2 .* failed .*the array runs degraded" "$work/ossdfs.log" \
  && tap_ok "kill -9 of drive 2: ossdfs takes it out and runs degraded" \
  || tap_not_ok "kill -9 of drive 2: ossdfs takes it out and runs degraded" "$(tail -2 "$work/ossdfs.log")"
before=$(tail -1 "$work/acks")
for _ in $(seq 300); do [ "$(tail -1 "$work/acks")" -ge $((before + 400)) ] 2>/dev/null && break; kill -0 $wpid 2>/dev/null || break; sleep 0.1; done
now=$(tail -1 "$work/acks")
kill -0 $wpid 2>/dev/null && [ "$now" -ge $((before + 400)) ] \
  && tap_ok "the writer goes on with drive 2 gone ($before -> $now records fsynced)" \
  || tap_not_ok "the writer goes on with drive 2 gone" "acks $before -> $now; $(cat "$work/writer.err")"
kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
layout=$(getfattr --only-values -n user.ossd.layout "$mnt/big" 2>/dev/null)
case $layout in *" out=2 "*) tap_ok "the layout names the drive that is out (out=2)" ;; *) tap_not_ok "the layout names the drive that is out" "$layout" ;; esac
sums_equal "$sum_written" "degraded: every file reads back (drive 2's units rebuilt from the others)"
out=$(python3 "$writer" check "$mnt/wal" "$work/acks" 2>&1)
[ $? = 0 ] && tap_ok "degraded: every acknowledged record of the writer reads back: $out" || tap_not_ok "degraded: every acknowledged record reads back" "$out"
python3 - "$mnt" "$work/ref" <<'PY' >"$work/degraded.log" 2>&1
import os, random, sys
mnt, ref = sys.argv[1], sys.argv[2]
random.seed(2)
fd = os.open(f"{mnt}/big", os.O_RDWR)
buf = bytearray(open(f"{ref}/big", "rb").read())
for _ in range(200):
    off = random.randrange(0, len(buf)); n = random.randrange(1, 200000)
    b = random.randbytes(n); os.pwrite(fd, b, off); buf[off:off + n] = b
os.fsync(fd); os.close(fd)
open(f"{ref}/big", "wb").write(buf)
new = random.randbytes(777777)
with open(f"{mnt}/new", "wb") as f:
    f.write(new); os.fsync(f.fileno())
open(f"{ref}/new", "wb").write(new)
os.truncate(f"{mnt}/row", 100000)
cut = open(f"{ref}/row", "rb").read()[:100000]
open(f"{ref}/row", "wb").write(cut)
for name in ["big", "new", "row"]:
    assert open(f"{mnt}/{name}", "rb").read() == open(f"{ref}/{name}", "rb").read(), name
print("ok")
PY
[ "$(tail -1 "$work/degraded.log")" = ok ] && tap_ok "degraded: overwrites, a new file and a truncate, fsynced, read back" \
  || tap_not_ok "degraded: overwrites, a new file and a truncate" "$(tail -3 "$work/degraded.log")"
sum_degraded=$(sums)
info=$(array_ctl --json array info 2>/dev/null)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["state"] == "degraded", j
assert j["members"][2]["state"] == "unreachable", j
' && tap_ok "array info: degraded, drive 2 unreachable" || tap_not_ok "array info: degraded, drive 2 unreachable" "$info"
in_shell "unmount (degraded)" fs_umount

# ---- a mount with drive 2 still down: degraded from the others ------------------------
in_shell "mount with drive 2 down" fs_mount
grep -q "cannot reach drive 2 of the array" "$work/ossdfs.log" && grep -q "drive 2 .* is out of date .*mounted degraded" "$work/ossdfs.log" \
  && tap_ok "ossdfs mounts with drive 2 out of reach: degraded (the others' array state)" \
  || tap_not_ok "ossdfs mounts with drive 2 out of reach" "$(tail -3 "$work/ossdfs.log")"
sums_equal "$sum_degraded" "drive 2 down at mount: every file reads back (rebuilt from the others)"
in_shell "unmount" fs_umount

# ---- the stale drive back: mounted degraded, never read ---------------------------
ok_if "drive 2 restarts on its image" array_drive_restart 2
ok_if "drive 2 answers" array_drive_wait_ready 2
in_shell "remount with drive 2 back" fs_mount
grep -q "drive 2 .* is out of date .*mounted degraded" "$work/ossdfs.log" \
  && tap_ok "the mount knows drive 2 is out of date (the array state on the others)" \
  || tap_not_ok "the mount knows drive 2 is out of date" "$(tail -2 "$work/ossdfs.log")"
sums_equal "$sum_degraded" "every file as written while degraded (the stale drive is not read)"
in_shell "unmount" fs_umount
out=$(array_ctl array fsck 2>&1); rc=$?
[ $rc = 1 ] && case $out in *"degraded"*"rebuild"*) true ;; *) false ;; esac \
  && tap_ok "array fsck of the degraded array says so (exit 1)" || tap_not_ok "array fsck of the degraded array says so" "exit $rc: $out"

# ---- rebuild ------------------------------------------------------------------------
out=$(array_ctl --json array rebuild --drive 2 2>"$work/rebuild.err"); rc=$?
echo "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["drive"] == 2 and j["files"] >= 9 and j["bytes"] > 1000000, j
' && [ $rc = 0 ] && tap_ok "array rebuild --drive 2 --json: $out" || tap_not_ok "array rebuild --drive 2" "exit $rc: $out $(cat "$work/rebuild.err")"
info=$(array_ctl --json array info)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["state"] == "clean" and [m["state"] for m in j["members"]] == ["in"] * 4, j
' && tap_ok "array info after the rebuild: clean" || tap_not_ok "array info after the rebuild: clean" "$info"
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (4 drives, "*"parity rows checked: "*) tap_ok "array fsck after the rebuild: $out" ;;
  *) tap_not_ok "array fsck after the rebuild is clean" "$out" ;; esac
in_shell "remount" fs_mount
grep -c "out of date" "$work/ossdfs.log" | grep -q '^2$' && tap_ok "the mount after the rebuild is not degraded" \
  || tap_not_ok "the mount after the rebuild is not degraded" "$(tail -2 "$work/ossdfs.log")"
sums_equal "$sum_degraded" "every file as written, now read from all 4 drives"
out=$(python3 "$writer" check "$mnt/wal" "$work/acks" 2>&1)
[ $? = 0 ] && tap_ok "every acknowledged record of the writer, after the rebuild: $out" || tap_not_ok "every acknowledged record after the rebuild" "$out"
# and drive 2 holds its share again: lose another drive, read everything
array_drive_kill 3
sums_equal "$sum_degraded" "with drive 3 gone instead, every file reads back (drive 2's rebuilt units are right)"
in_shell "unmount" fs_umount
ok_if "drive 3 restarts" array_drive_restart 3
ok_if "drive 3 answers" array_drive_wait_ready 3
out=$(array_ctl array rebuild --drive 3 2>&1)
[ $? = 0 ] && tap_ok "array rebuild --drive 3: ${out##*: }" || tap_not_ok "array rebuild --drive 3" "$out"

# ---- drive 0, the metadata's: its copy on drive 1 carries on ---------------------------
in_shell "remount" fs_mount
array_drive_kill 0
for _ in $(seq 100); do grep -q "drive 0 .* failed" "$work/ossdfs.log" && break; sleep 0.1; done
grep -q "drive 0 .* failed .*the array runs degraded" "$work/ossdfs.log" \
  && tap_ok "kill -9 of drive 0: ossdfs takes it out and runs degraded" \
  || tap_not_ok "kill -9 of drive 0: ossdfs takes it out and runs degraded" "$(tail -2 "$work/ossdfs.log")"
sums_equal "$sum_degraded" "drive 0 gone: every file reads back"
if mkdir "$mnt/d0" && echo metadata-on-drive-1 >"$mnt/d0/f" && sync "$mnt/d0/f" \
   && mv "$mnt/new" "$mnt/d0/new" && rm "$mnt/tiny" && ln -s d0/f "$mnt/link" \
   && [ "$(cat "$mnt/link")" = metadata-on-drive-1 ]; then
  tap_ok "drive 0 gone: mkdir, create, fsync, rename, unlink, symlink (drive 1's copy of the metadata)"
else
  tap_not_ok "drive 0 gone: namespace changes" "$(tail -3 "$work/ossdfs.log")"
fi
sum_d0=$(sums)
in_shell "unmount (drive 0 gone)" fs_umount
ok_if "drive 0 restarts on its image (stale)" array_drive_restart 0
ok_if "drive 0 answers" array_drive_wait_ready 0
in_shell "remount with drive 0 out of date" fs_mount
grep -q "drive 0 .* is out of date .*mounted degraded" "$work/ossdfs.log" \
  && tap_ok "the mount reads the metadata from drive 1 (drive 0 out of date)" \
  || tap_not_ok "the mount reads the metadata from drive 1" "$(tail -2 "$work/ossdfs.log")"
[ "$(sums)" = "$sum_d0" ] && [ -L "$mnt/link" ] && [ ! -e "$mnt/tiny" ] \
  && tap_ok "every file, directory and link as drive 0's absence left them" \
  || tap_not_ok "every file as drive 0's absence left them" "$(diff <(echo "$sum_d0") <(sums) | head -5)"
in_shell "unmount" fs_umount
out=$(array_ctl --json array rebuild --drive 0 2>&1); rc=$?
[ $rc = 0 ] && tap_ok "array rebuild --drive 0 (data from all survivors, metadata from drive 1): $out" \
  || tap_not_ok "array rebuild --drive 0" "exit $rc: $out"
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (4 drives, "*"parity rows checked: "*) tap_ok "array fsck (parity and the metadata copy) after rebuilding drive 0: $out" ;;
  *) tap_not_ok "array fsck after rebuilding drive 0 is clean" "$out" ;; esac
in_shell "remount" fs_mount
[ "$(sums)" = "$sum_d0" ] && [ "$(cat "$mnt/link")" = metadata-on-drive-1 ] \
  && tap_ok "after the rebuild of drive 0: every file as written" \
  || tap_not_ok "after the rebuild of drive 0: every file as written" "$(diff <(echo "$sum_d0") <(sums) | head -5)"
in_shell "unmount" fs_umount

# ---- a clean array with drive 1 down at mount: it goes out, writes go on --------------
array_drive_kill 1
in_shell "mount with drive 1 down (the array was clean)" fs_mount
grep -q "drive 1 .* failed (cannot be reached at mount): the array runs degraded" "$work/ossdfs.log" \
  && tap_ok "drive 1 out of reach at mount: taken out, the array runs degraded" \
  || tap_not_ok "drive 1 out of reach at mount: taken out" "$(tail -3 "$work/ossdfs.log")"
sums_equal "$sum_d0" "drive 1 down at mount: every file reads back"
layout=$(getfattr --only-values -n user.ossd.layout "$mnt/big" 2>/dev/null)
case $layout in *" out=1 "*) tap_ok "the layout names drive 1 out (out=1)" ;; *) tap_not_ok "the layout names drive 1 out" "$layout" ;; esac
if head -c 300000 /dev/urandom >"$mnt/while-out" && sync "$mnt/while-out"; then
  tap_ok "drive 1 down at mount: a new file written and fsynced"
else
  tap_not_ok "drive 1 down at mount: a new file written" "$(tail -3 "$work/ossdfs.log")"
fi
sum_d1=$(sums)
in_shell "unmount (drive 1 down)" fs_umount
array_drive_kill 2
"$ossdfs" "$mnt" "${ofs_devargs[@]}" --foreground >"$work/two-down.log" 2>&1 &
two_pid=$!
for _ in $(seq 100); do kill -0 $two_pid 2>/dev/null || break; mountpoint -q "$mnt" && break; sleep 0.1; done
if mountpoint -q "$mnt"; then
  tap_not_ok "two drives down: ossdfs refuses to mount" "it mounted"; fs_pid=$two_pid; fs_umount
else
  wait $two_pid; rc=$?
  [ $rc != 0 ] && grep -q "cannot be mounted with 2 of them out of reach" "$work/two-down.log" \
    && tap_ok "two drives down: ossdfs refuses to mount (exit $rc): $(grep -o 'array .* out of reach.*' "$work/two-down.log" | head -1)" \
    || tap_not_ok "two drives down: ossdfs refuses to mount" "exit $rc: $(tail -3 "$work/two-down.log")"
fi
ok_if "drive 2 restarts" array_drive_restart 2
ok_if "drive 2 answers" array_drive_wait_ready 2
ok_if "drive 1 restarts on its image (stale)" array_drive_restart 1
ok_if "drive 1 answers" array_drive_wait_ready 1
out=$(array_ctl array rebuild --drive 1 2>&1)
[ $? = 0 ] && tap_ok "array rebuild --drive 1: ${out##*: }" || tap_not_ok "array rebuild --drive 1" "$out"
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean (4 drives, "*"parity rows checked: "*) tap_ok "array fsck after rebuilding drive 1: $out" ;;
  *) tap_not_ok "array fsck after rebuilding drive 1 is clean" "$out" ;; esac
in_shell "remount" fs_mount
sums_equal "$sum_d1" "after the rebuild of drive 1: every file as written, the one written while it was out too"
in_shell "unmount" fs_umount
tap_done
