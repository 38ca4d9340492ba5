#!/usr/bin/env bash
# 25-ossdfs-array.sh - ossdfs over an array of 3 drives (odd on purpose,
# so stripes line up with nothing by luck), each its own nbdkit
# (docs/arrays.md): ossdctl array create/info/fsck; mounts with missing,
# misordered or foreign drives refused; POSIX basics; the layout
# attribute and where the bytes really are (read back from each drive's
# object with ossdctl get); files larger than N*U, sparse files,
# truncate/extend (no stale bytes past a cut), punch, rename; one
# capability per drive, each drive checking its own; strays removed at
# mount; kill -9 of one drive under a verifying writer that fsyncs then
# records: after the drive's restart nothing acknowledged is lost and
# array fsck is clean.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init array
writer=$top/tests/integration/array-writer.py
U=65536                         # stripe unit: 8 heap pages
N=3

# in this shell (not ok_if's subshell): they set array_dev and fs_pid
in_shell () { local d=$1; shift; if "$@" >"$work/step.log" 2>&1; then tap_ok "$d"; else tap_not_ok "$d" "$(tail -3 "$work/step.log" | tr '\n' ' ')"; fi; }
in_shell "3 drives start, each its own nbdkit" array_start $N 1G
out=$("$ossdfs" "$mnt" "${ofs_devargs[@]}" --foreground 2>&1)
case $out in *"no array label"*"ossdctl array create"*) tap_ok "mount of unlabelled drives is refused, naming array create" ;;
  *) tap_not_ok "mount of unlabelled drives is refused, naming array create" "$out" ;; esac
refused_create=$("$ctl" array create --device "${array_dev[0]}" --stripe-unit 12K 2>&1)
case $refused_create in *"multiple of 8 KiB"*) tap_ok "array create refuses a unit not a multiple of 8 KiB" ;;
  *) tap_not_ok "array create refuses a unit not a multiple of 8 KiB" "$refused_create" ;; esac
ok_if "array create (3 drives, unit 64 KiB)" array_create --stripe-unit 64K
out=$(array_create 2>&1)
case $out in *"already drive 0 of a 3-drive array"*"--force"*) tap_ok "array create again is refused without --force" ;;
  *) tap_not_ok "array create again is refused without --force" "$out" ;; esac
info=$(array_ctl --json array info)
echo "$info" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["drives"] == 3 and j["stripe_unit"] == 65536, j
assert [m["label_index"] for m in j["members"]] == [0, 1, 2], j
assert j["problems"] == [] and len(j["uuid"]) == 36, j
' && tap_ok "array info --json: 3 members in order, unit, uuid, no problems" \
  || tap_not_ok "array info --json: 3 members in order, unit, uuid, no problems" "$info"
uuid=$(echo "$info" | python3 -c 'import json, sys; print(json.load(sys.stdin)["uuid"])')

# ---- refused mounts -------------------------------------------------------------
mount_refused () {
  local d=$1 want=$2 out; shift 2
  out=$(timeout 30 "$ossdfs" "$mnt" "$@" --foreground 2>&1)
  if mountpoint -q "$mnt"; then fusermount3 -u "$mnt"; tap_not_ok "$d" "it mounted"; return; fi
  case $out in *"$want"*) tap_ok "$d" ;; *) tap_not_ok "$d" "$out" ;; esac
}
mount_refused "two of three drives: refused" "is drive 0 of a 3-drive array" \
  --device "${array_dev[0]}" --device "${array_dev[1]}"
mount_refused "drive 0 alone: refused" "give all 3 drives" --device "${array_dev[0]}"
mount_refused "drives 1 and 2 swapped: refused" "is drive 2 of array $uuid" \
  --device "${array_dev[0]}" --device "${array_dev[2]}" --device "${array_dev[1]}"
mount_refused "a --stripe-unit that is not the array's: refused" "created with stripe unit 65536" \
  "${ofs_devargs[@]}" --stripe-unit 1048576
# a drive of another array in place of drive 2
"$ctl" device start --rundir "$work/runx" --image "$work/drivex.img" --size 1G --volume 64M >/dev/null
devx="nbd+unix:///?socket=$work/runx/ossd.sock"
ok_if "a one-drive array on a fourth drive" "$ctl" array create --device "$devx"
mount_refused "a drive of another array: refused" "belongs to another array" \
  --device "${array_dev[0]}" --device "${array_dev[1]}" --device "$devx"
"$ctl" device stop --rundir "$work/runx" >/dev/null 2>&1

in_shell "ossdfs mounts the array (first mount creates the filesystem)" fs_mount
grep -q "mounted partition 1 of a 3-drive array (raid0, unit 65536" "$work/ossdfs.log" \
  && tap_ok "ossdfs says it mounted a 3-drive array" || tap_not_ok "ossdfs says it mounted a 3-drive array" "$(tail -3 "$work/ossdfs.log")"

# ---- POSIX basics ---------------------------------------------------------------
head -c $((5 << 20)) /dev/urandom >"$work/r5m"     # 80 units: > N*U many times over
ok_if "write a 5 MiB file (80 units over 3 drives)" cp "$work/r5m" "$mnt/big"
ok_if "read it back identical" cmp "$work/r5m" "$mnt/big"
[ "$(stat -c %s "$mnt/big")" = $((5 << 20)) ] && tap_ok "size is 5 MiB" || tap_not_ok "size is 5 MiB" "$(stat -c %s "$mnt/big")"
head -c 200001 /dev/urandom >"$work/odd"           # 3 units and a partial one
ok_if "a file ending in a partial unit" cp "$work/odd" "$mnt/odd"
ok_if "reads back identical" cmp "$work/odd" "$mnt/odd"
echo -n "hello" >"$mnt/small" && echo -n " world" >>"$mnt/small"
[ "$(cat "$mnt/small")" = "hello world" ] && tap_ok "create + append" || tap_not_ok "create + append" "$(cat "$mnt/small")"
# a write across a unit boundary (two drives)
printf 'ACROSS' | dd of="$mnt/big" bs=1 seek=$((U - 3)) conv=notrunc status=none
cp "$work/r5m" "$work/r5m.exp"; printf 'ACROSS' | dd of="$work/r5m.exp" bs=1 seek=$((U - 3)) conv=notrunc status=none
ok_if "overwrite across a unit boundary" cmp "$work/r5m.exp" "$mnt/big"
ok_if "mkdir -p a/b" mkdir -p "$mnt/a/b"
echo one >"$mnt/a/b/f1"
ok_if "rename across directories" mv "$mnt/a/b/f1" "$mnt/a/g1"
ok_if "rename a striped file" mv "$mnt/odd" "$mnt/a/odd2"
ok_if "renamed file reads back identical" cmp "$work/odd" "$mnt/a/odd2"
ok_if "hard link and symlink" sh -c "ln '$mnt/a/g1' '$mnt/l1' && ln -s a/g1 '$mnt/s1'"
[ "$(cat "$mnt/s1")" = one ] && [ "$(stat -c %h "$mnt/a/g1")" = 2 ] && tap_ok "link count 2, symlink followed" || tap_not_ok "link count 2, symlink followed"
ok_if "chmod, chown" sh -c "chmod 640 '$mnt/a/g1' && chown postgres:postgres '$mnt/a/g1'"
[ "$(stat -c '%a %U' "$mnt/a/g1")" = "640 postgres" ] && tap_ok "mode and owner as set" || tap_not_ok "mode and owner as set"
ok_if "setfattr/getfattr a user xattr" sh -c "setfattr -n user.note -v hi '$mnt/big' && [ \"\$(getfattr --absolute-names --only-values -n user.note '$mnt/big')\" = hi ]"
df_out=$(df -B1 --output=size "$mnt" | tail -1)
[ "$df_out" -gt $((2 * 1000 * 1000 * 1000)) ] && tap_ok "statfs counts the three drives' capacity ($df_out bytes)" \
  || tap_not_ok "statfs counts the three drives' capacity" "$df_out"

# ---- the layout, and where the bytes are ----------------------------------------
layout=$(getfattr --absolute-names --only-values -n user.ossd.layout "$mnt/big")
want="raid0 n=3 unit=65536 uuid=$uuid drives=${array_dev[0]},${array_dev[1]},${array_dev[2]}"
[ "$layout" = "$want" ] && tap_ok "user.ossd.layout: $layout" || tap_not_ok "user.ossd.layout" "got '$layout' want '$want'"
out=$(getfattr --absolute-names --only-values -n user.ossd.layout "$mnt/a" 2>&1)
case $out in *"No such attribute"*) tap_ok "a directory has no layout" ;; *) tap_not_ok "a directory has no layout" "$out" ;; esac
oid=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/big")
ok_if "fsync the big file" python3 -c "import os; fd = os.open('$mnt/big', os.O_RDONLY); os.fsync(fd)"
for i in 0 1 2; do
  "$ctl" --device "${array_dev[i]}" --key-file "$work/run$i/ossd.key" get "1:$oid" "$work/obj$i" 2>/dev/null
done
# rebuild the file from the three objects by the layout's rule
python3 - "$work" $U <<'EOF' && tap_ok "the three objects hold unit k at (k / 3) * U of drive k % 3" || tap_not_ok "the three objects hold unit k at (k / 3) * U of drive k % 3"
import sys
work, U = sys.argv[1], int(sys.argv[2])
objs = [open("%s/obj%d" % (work, i), "rb").read() for i in range(3)]
want = open(work + "/r5m.exp", "rb").read()
assert [len(o) for o in objs] == [27 * U, 27 * U, 26 * U], [len(o) for o in objs]
got = b"".join(objs[k % 3][(k // 3) * U:(k // 3 + 1) * U] for k in range(len(want) // U))
assert got == want
EOF

# ---- sparse, truncate/extend, punch ---------------------------------------------
ok_if "sparse write far out (unit 400)" dd if="$work/r5m" of="$mnt/sparse" bs=4k count=1 seek=$((400 * U / 4096 + 3)) status=none
[ "$(stat -c %s "$mnt/sparse")" = $((400 * U + 4 * 4096)) ] && tap_ok "sparse size" || tap_not_ok "sparse size" "$(stat -c %s "$mnt/sparse")"
cmp -s <(head -c $((400 * U + 3 * 4096)) /dev/zero) <(head -c $((400 * U + 3 * 4096)) "$mnt/sparse") \
  && tap_ok "the hole reads as zeros on every drive" || tap_not_ok "the hole reads as zeros on every drive"
blocks=$(stat -c %b "$mnt/sparse")
[ "$blocks" -lt 1024 ] && tap_ok "sparse file maps little ($blocks blocks of 512 for $(stat -c %s "$mnt/sparse") bytes)" \
  || tap_not_ok "sparse file maps little" "$blocks blocks"
ok_if "truncate the 5 MiB file to 100000 bytes (inside unit 1)" truncate -s 100000 "$mnt/big"
ok_if "truncate it up to 1 MiB" truncate -s $((1 << 20)) "$mnt/big"
ok_if "truncate down, then up, reads zeros past the cut on every drive" \
  cmp <(head -c 100000 "$work/r5m.exp"; head -c $(( (1 << 20) - 100000 )) /dev/zero) "$mnt/big"
ok_if "punch a hole from unit 1 into unit 3 (three drives)" fallocate -p -o $((U + 100)) -l $((2 * U)) "$mnt/a/odd2"
cp "$work/odd" "$work/odd.exp"; dd if=/dev/zero of="$work/odd.exp" bs=1 seek=$((U + 100)) count=$((2 * U)) conv=notrunc status=none 2>/dev/null
ok_if "the punched range reads as zeros, the rest unchanged" cmp "$work/odd.exp" "$mnt/a/odd2"
ok_if "fallocate extends the size" fallocate -l $((7 * U)) "$mnt/a/odd2"
[ "$(stat -c %s "$mnt/a/odd2")" = $((7 * U)) ] && tap_ok "size after fallocate" || tap_not_ok "size after fallocate" "$(stat -c %s "$mnt/a/odd2")"

# ---- capabilities: one per drive, each drive checks its own ----------------------
echo "for nobody" >"$mnt/mine"; chown nobody "$mnt/mine"; chmod 600 "$mnt/mine"
oid_mine=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/mine")
cap1=$(runuser -u nobody -- getfattr --absolute-names --only-values -n user.ossd.cap.1 "$mnt/mine" 2>&1)
cap0=$(runuser -u nobody -- getfattr --absolute-names --only-values -n user.ossd.cap "$mnt/mine" 2>&1)
case $cap1 in "ossdcap1 pid=1 oid=$oid_mine rights=0x13 "*) tap_ok "the owner gets a capability for drive 1 (user.ossd.cap.1)" ;;
  *) tap_not_ok "the owner gets a capability for drive 1 (user.ossd.cap.1)" "$cap1" ;; esac
[ "$cap1" != "$cap0" ] && tap_ok "drive 1's capability differs from drive 0's (its own key)" || tap_not_ok "drive 1's capability differs from drive 0's"
nokey () { OSSD_KEY_FILE=/nonexistent "$ctl" "$@"; }
ok_if "drive 1 takes its own capability" nokey --device "${array_dev[1]}" --cap "$cap1" stat "1:$oid_mine"
scan=$(runuser -u nobody -- getfattr --absolute-names --only-values -n user.ossd.scan "$mnt/mine" 2>&1)
ncaps=$(echo "$scan" | grep -c "^cap\(\.[0-9]*\)\? ossdcap1 pid=1 oid=$oid_mine rights=0x13 ")
[ "$ncaps" = "${#array_dev[@]}" ] && tap_ok "user.ossd.scan carries the owner's capability for each of the ${#array_dev[@]} drives" \
  || tap_not_ok "user.ossd.scan carries the owner's capability for each of the ${#array_dev[@]} drives" "$scan"
ok_if "drive 1 takes the cap.1 line of user.ossd.scan" \
  nokey --device "${array_dev[1]}" --cap "$(echo "$scan" | sed -n 's/^cap\.1 //p')" stat "1:$oid_mine"
out=$(nokey --device "${array_dev[1]}" --cap "$cap0" stat "1:$oid_mine" 2>&1)
case $out in *"permission denied"*|*"MAC"*) tap_ok "drive 1 refuses drive 0's capability" ;; *) tap_not_ok "drive 1 refuses drive 0's capability" "$out" ;; esac
ok_if "chmod revokes on every drive" chmod 640 "$mnt/mine"
out=$(nokey --device "${array_dev[2]}" --cap "$(runuser -u nobody -- getfattr --absolute-names --only-values -n user.ossd.cap.2 "$mnt/mine" 2>/dev/null)" stat "1:$oid_mine" 2>&1)
[ $? = 0 ] && tap_ok "a capability minted after the chmod works on drive 2" || tap_not_ok "a capability minted after the chmod works on drive 2" "$out"
out=$(nokey --device "${array_dev[1]}" --cap "$cap1" stat "1:$oid_mine" 2>&1)
case $out in *"revoked"*) tap_ok "drive 1 refuses the capability minted before the chmod (revoked)" ;; *) tap_not_ok "drive 1 refuses the capability minted before the chmod (revoked)" "$out" ;; esac

# ---- persistence, strays, fsck --------------------------------------------------
sum_before=$(cd "$mnt" && find . -type f | sort | xargs md5sum)
in_shell "unmount" fs_umount
out=$(array_ctl array fsck)
case $out in "array fsck: clean (3 drives, "*) tap_ok "array fsck after unmount: $out" ;; *) tap_not_ok "array fsck after unmount is clean" "$out" ;; esac
echo stray | "$ctl" --device "${array_dev[2]}" --key-file "$work/run2/ossd.key" put - 1:999999 >/dev/null
out=$(array_ctl array fsck 2>&1)
case $out in *"drive 2"*"object 999999 belongs to no file"*) tap_ok "array fsck reports a stray on drive 2" ;; *) tap_not_ok "array fsck reports a stray on drive 2" "$out" ;; esac
in_shell "remount" fs_mount
grep -q "removed 1 objects of the data drives" "$work/ossdfs.log" && tap_ok "the mount removed the stray" \
  || tap_not_ok "the mount removed the stray" "$(tail -3 "$work/ossdfs.log")"
sum_after=$(cd "$mnt" && find . -type f | sort | xargs md5sum)
[ "$sum_before" = "$sum_after" ] && tap_ok "every file as before the remount" || tap_not_ok "every file as before the remount" "$(diff <(echo "$sum_before") <(echo "$sum_after"))"

# ---- kill -9 of one drive under a verifying writer ---------------------------------
python3 "$writer" write "$mnt/wal" "$work/acks" 2>"$work/writer.err" &
wpid=$!
for _ in $(seq 300); do [ "$(tail -1 "$work/acks" 2>/dev/null || echo 0)" -ge 400 ] 2>/dev/null && break; sleep 0.1; done
acked=$(tail -1 "$work/acks" 2>/dev/null)
[ "${acked:-0}" -ge 400 ] && tap_ok "the writer made $acked records durable (fsync)" || tap_not_ok "the writer made 400 records durable" "acks: ${acked:-none}; $(cat "$work/writer.err")"
array_drive_kill 1
wait $wpid; wrc=$?
[ $wrc = 3 ] && tap_ok "kill -9 of drive 1: the writer gets an error ($(cat "$work/writer.err"))" \
  || tap_not_ok "kill -9 of drive 1: the writer gets an error" "exit $wrc: $(cat "$work/writer.err")"
ok_if "drive 1 restarts on its image (FTL recovery)" array_drive_restart 1
ok_if "drive 1 answers again" array_drive_wait_ready 1
# Drive 1 lost what it held unflushed: the first fsync after its restart
# says so (EIO) instead of calling those writes durable; then it works.
after_py="import os, sys
fd = os.open('$mnt/after', os.O_WRONLY | os.O_CREAT); os.write(fd, b'x' * 300000)
try:
    os.fsync(fd)
except OSError as e:
    print('first fsync: %s' % e.strerror); os.fsync(fd)"
out=$(python3 -c "$after_py" 2>&1); rc=$?
if [ $rc = 0 ] && { [ -z "$out" ] || grep -q "restarted .* not yet FLUSHed" "$work/ossdfs.log"; }; then
  tap_ok "the mount works again without a remount (a new file, fsynced${out:+; $out, as the drive lost unflushed writes})"
else
  tap_not_ok "the mount works again without a remount (a new file, fsynced)" "rc $rc: $out; $(tail -2 "$work/ossdfs.log")"
fi
in_shell "unmount" fs_umount
in_shell "remount" fs_mount
out=$(python3 "$writer" check "$mnt/wal" "$work/acks" 2>&1)
[ $? = 0 ] && tap_ok "nothing acknowledged is lost: $out" || tap_not_ok "nothing acknowledged is lost" "$out"
[ "$(stat -c %s "$mnt/after")" = 300000 ] && tap_ok "the file written after the restart is there" || tap_not_ok "the file written after the restart is there"
in_shell "unmount" fs_umount
out=$(array_ctl array fsck 2>&1)
case $out in "array fsck: clean"*) tap_ok "array fsck after the crash: $out" ;; *) tap_not_ok "array fsck after the crash is clean" "$out" ;; esac

# ---- fsck finds a file's object missing on a drive ---------------------------------
"$ctl" --device "${array_dev[1]}" --key-file "$work/run1/ossd.key" rm "1:$oid_mine"
out=$(array_ctl array fsck 2>&1); rc=$?
[ $rc = 1 ] && case $out in *"file object $oid_mine"*"missing on drive 1"*) true ;; *) false ;; esac \
  && tap_ok "array fsck finds a file's object missing on drive 1 (exit 1)" \
  || tap_not_ok "array fsck finds a file's object missing on drive 1 (exit 1)" "exit $rc: $out"

tap_done
