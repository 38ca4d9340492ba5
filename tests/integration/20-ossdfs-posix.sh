#!/usr/bin/env bash
# 20-ossdfs-posix.sh - ossdfs as a POSIX filesystem over an emulated drive:
# files, directories, renames, links, xattrs (incl. user.ossd.*), statfs,
# errno mapping (ENOENT, EEXIST, ENOTEMPTY), a directory of 3000 entries,
# persistence across a remount, ENOSPC on a small drive, and EIO (not a
# hang) after kill -9 of the drive.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init posix

ok_if "drive starts (4 GiB)" drive_start 4G
ok_if "ossdfs mounts (first mount creates the filesystem)" fs_mount
grep -q "creating one" "$work/ossdfs.log" && tap_ok "first mount said it created the filesystem" \
  || tap_not_ok "first mount said it created the filesystem" "$(cat "$work/ossdfs.log")"

# ---- files -------------------------------------------------------------
head -c $((3 << 20)) /dev/urandom >"$work/r3m"
ok_if "write a 3 MiB file" cp "$work/r3m" "$mnt/big"
ok_if "read it back identical" cmp "$work/r3m" "$mnt/big"
[ "$(stat -c %s "$mnt/big")" = $((3 << 20)) ] && tap_ok "size is 3 MiB" || tap_not_ok "size is 3 MiB" "$(stat -c %s "$mnt/big")"
echo -n "hello" >"$mnt/small" && echo -n " world" >>"$mnt/small"
[ "$(cat "$mnt/small")" = "hello world" ] && tap_ok "create + append" || tap_not_ok "create + append" "$(cat "$mnt/small")"
dd if=/dev/zero of="$mnt/big" bs=1 count=5 seek=100 conv=notrunc status=none
cp "$work/r3m" "$work/r3m.exp"; dd if=/dev/zero of="$work/r3m.exp" bs=1 count=5 seek=100 conv=notrunc status=none
ok_if "overwrite in the middle" cmp "$work/r3m.exp" "$mnt/big"
truncate -s 1000 "$mnt/big"
ok_if "truncate down" cmp <(head -c 1000 "$work/r3m.exp") "$mnt/big"
truncate -s 5000 "$mnt/big"
ok_if "truncate up reads zeros" cmp <(head -c 1000 "$work/r3m.exp"; head -c 4000 /dev/zero) "$mnt/big"
ok_if "fsync through dd conv=fsync" dd if="$work/r3m" of="$mnt/synced" bs=64k conv=fsync status=none
ok_if "sparse write far out" dd if="$work/r3m" of="$mnt/sparse" bs=4k count=1 seek=10000 status=none
[ "$(stat -c %s "$mnt/sparse")" = $((10001 * 4096)) ] && tap_ok "sparse size" || tap_not_ok "sparse size"
[ "$(head -c 4096 "$mnt/sparse" | tr -d '\0' | wc -c)" = 0 ] && tap_ok "hole reads as zeros" || tap_not_ok "hole reads as zeros"

# ---- directories, rename, links --------------------------------------------
ok_if "mkdir -p a/b/c" mkdir -p "$mnt/a/b/c"
out=$(mkdir "$mnt/a" 2>&1); case $out in *"File exists"*) tap_ok "mkdir existing: EEXIST" ;; *) tap_not_ok "mkdir existing: EEXIST" "$out" ;; esac
out=$(rmdir "$mnt/a" 2>&1); case $out in *"not empty"*) tap_ok "rmdir non-empty: ENOTEMPTY" ;; *) tap_not_ok "rmdir non-empty: ENOTEMPTY" "$out" ;; esac
out=$(cat "$mnt/nope" 2>&1); case $out in *"No such file"*) tap_ok "missing file: ENOENT" ;; *) tap_not_ok "missing file: ENOENT" "$out" ;; esac
out=$(rm "$mnt/a" 2>&1); case $out in *"Is a directory"*) tap_ok "unlink of a directory: EISDIR" ;; *) tap_not_ok "unlink of a directory: EISDIR" "$out" ;; esac
[ "$(stat -c %h "$mnt/a")" = 3 ] && tap_ok "directory nlink counts subdirectories" || tap_not_ok "directory nlink" "$(stat -c %h "$mnt/a")"
echo one >"$mnt/a/b/f1"; echo two >"$mnt/a/f2"
ok_if "rename within a directory" mv "$mnt/a/b/f1" "$mnt/a/b/g1"
ok_if "rename across directories" mv "$mnt/a/b/g1" "$mnt/a/h1"
ok_if "rename over an existing file" mv "$mnt/a/h1" "$mnt/a/f2"
[ "$(cat "$mnt/a/f2")" = one ] && [ ! -e "$mnt/a/h1" ] && tap_ok "rename replaced the target" || tap_not_ok "rename replaced the target"
ok_if "rename a directory to another parent" mv "$mnt/a/b" "$mnt/b2"
[ -d "$mnt/b2/c" ] && [ "$(stat -c %h "$mnt/a")" = 2 ] && [ "$(stat -c %h "$mnt/b2")" = 3 ] \
  && tap_ok "moved directory keeps children; parents' nlink updated" || tap_not_ok "moved directory"
mkdir "$mnt/full"; touch "$mnt/full/x"
out=$(mv -T "$mnt/b2" "$mnt/full" 2>&1); case $out in *"not empty"*|*"exists"*) tap_ok "rename over a non-empty directory fails" ;; *) tap_not_ok "rename over a non-empty directory fails" "$out" ;; esac
ok_if "hard link" ln "$mnt/a/f2" "$mnt/link2"
[ "$(stat -c %h "$mnt/a/f2")" = 2 ] && tap_ok "nlink 2 after link" || tap_not_ok "nlink 2 after link"
ok_if "symlink" ln -s a/f2 "$mnt/sym"
[ "$(readlink "$mnt/sym")" = a/f2 ] && [ "$(cat "$mnt/sym")" = one ] && tap_ok "readlink and follow" || tap_not_ok "readlink and follow"
exec 7<"$mnt/small"
rm "$mnt/small"
[ "$(cat <&7)" = "hello world" ] && tap_ok "unlinked open file stays readable" || tap_not_ok "unlinked open file stays readable"
exec 7<&-
ok_if "chmod" chmod 640 "$mnt/a/f2"
ok_if "chown postgres" chown postgres:postgres "$mnt/a/f2"
ok_if "touch -d (utimens)" touch -d "2001-02-03 04:05:06" "$mnt/a/f2"
[ "$(stat -c '%a %U %Y' "$mnt/a/f2")" = "640 postgres $(date -d '2001-02-03 04:05:06' +%s)" ] \
  && tap_ok "mode, owner, mtime as set" || tap_not_ok "mode, owner, mtime as set" "$(stat -c '%a %U %Y' "$mnt/a/f2")"
out=$(runuser -u postgres -- cat "$mnt/a/f2" 2>&1)
[ "$out" = one ] && tap_ok "allow_other: postgres reads its file" || tap_not_ok "allow_other: postgres reads its file" "$out"
out=$(runuser -u postgres -- sh -c "echo x > '$mnt/a/nope'" 2>&1)
case $out in *"Permission denied"*) tap_ok "default_permissions: postgres cannot write root's directory" ;; *) tap_not_ok "default_permissions" "$out" ;; esac

# ---- a large directory ------------------------------------------------------
mkdir "$mnt/many"
for i in $(seq 1 3000); do : >"$mnt/many/f$i"; done
[ "$(ls "$mnt/many" | wc -l)" = 3000 ] && tap_ok "3000 files listed" || tap_not_ok "3000 files listed" "$(ls "$mnt/many" | wc -l)"
for i in $(seq 1 2 3000); do rm "$mnt/many/f$i"; done
[ "$(ls "$mnt/many" | wc -l)" = 1500 ] && tap_ok "1500 left after removing half" || tap_not_ok "1500 left"
# removing while reading the directory (as PostgreSQL's rmtree does)
mkdir "$mnt/rmtree"; for i in $(seq 1 500); do : >"$mnt/rmtree/r$i"; done
ok_if "rm -r of a 500-entry directory" rm -r "$mnt/rmtree"

# ---- xattrs -----------------------------------------------------------------
ok_if "setfattr" setfattr -n user.color -v blue "$mnt/a/f2"
ok_if "setfattr (second)" setfattr -n user.size -v large "$mnt/a/f2"
[ "$(getfattr --absolute-names --only-values -n user.color "$mnt/a/f2")" = blue ] && tap_ok "getfattr" || tap_not_ok "getfattr"
lst=$(getfattr --absolute-names -d "$mnt/a/f2" 2>/dev/null | grep -c '^user\.')
[ "$lst" = 2 ] && tap_ok "listxattr shows the two" || tap_not_ok "listxattr shows the two" "$lst"
ok_if "setfattr -x" setfattr -x user.color "$mnt/a/f2"
out=$(getfattr --absolute-names -n user.color "$mnt/a/f2" 2>&1); case $out in *"No such attribute"*) tap_ok "removed xattr: ENODATA" ;; *) tap_not_ok "removed xattr: ENODATA" "$out" ;; esac
oid=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/a/f2")
[ "$oid" = "$(stat -c %i "$mnt/a/f2")" ] && tap_ok "user.ossd.oid = inode number ($oid)" || tap_not_ok "user.ossd.oid" "$oid"
[ "$(getfattr --absolute-names --only-values -n user.ossd.device "$mnt/a/f2")" = "$dev" ] && tap_ok "user.ossd.device = device URI" || tap_not_ok "user.ossd.device"
[ "$(getfattr --absolute-names --only-values -n user.ossd.pid "$mnt/a/f2")" = 1 ] && tap_ok "user.ossd.pid = 1" || tap_not_ok "user.ossd.pid"
out=$(setfattr -n user.ossd.oid -v 5 "$mnt/a/f2" 2>&1); [ -n "$out" ] && tap_ok "user.ossd.oid is read-only" || tap_not_ok "user.ossd.oid is read-only"
"$ctl" get "1:$oid" "$work/obj" && [ "$(cat "$work/obj")" = one ] && tap_ok "the object of user.ossd.oid holds the file's bytes" \
  || tap_not_ok "the object of user.ossd.oid holds the file's bytes"

# ---- suid/sgid: cleared by unprivileged writers (FUSE_HANDLE_KILLPRIV_V2) ----
mkdir "$mnt/sx" && chmod 1777 "$mnt/sx"
for f in w t g k; do echo x >"$mnt/sx/$f"; done
chmod 4777 "$mnt/sx/w" "$mnt/sx/t" "$mnt/sx/k"; chmod 2777 "$mnt/sx/g"
runuser -u postgres -- sh -c "echo y >> '$mnt/sx/w'; truncate -s 0 '$mnt/sx/t'; echo z >> '$mnt/sx/g'"
echo r >>"$mnt/sx/k"
modes=$(stat -c %a "$mnt/sx/w" "$mnt/sx/t" "$mnt/sx/g" "$mnt/sx/k" | tr '\n' ' ')
[ "$modes" = "777 777 777 4777 " ] && tap_ok "write/truncate by another user clears suid and sgid; root's write keeps them" \
  || tap_not_ok "suid/sgid after writes" "$modes"
[ "$(cat "$mnt/sx/w")" = "x
y" ] && tap_ok "the write that cleared suid is there" || tap_not_ok "the write that cleared suid is there"
# file capabilities: any write drops them (the kernel leaves that to us too)
echo c >"$mnt/sx/cap"
if setfattr -n security.capability -v 0x0000000200002000000000000000000000000000 "$mnt/sx/cap" 2>/dev/null; then
  getfattr --absolute-names -n security.capability "$mnt/sx/cap" >/dev/null 2>&1 \
    && tap_ok "security.capability can be set" || tap_not_ok "security.capability can be set"
  echo d >>"$mnt/sx/cap"
  getfattr --absolute-names -n security.capability "$mnt/sx/cap" >/dev/null 2>&1 \
    && tap_not_ok "a write drops security.capability" || tap_ok "a write drops security.capability"
else
  tap_not_ok "security.capability can be set" "setfattr refused"
  tap_not_ok "a write drops security.capability" "not tested"
fi
setfattr -n user.ossd.stats -v 0 "$mnt"
dd if=/dev/urandom of="$mnt/sx/many" bs=8k count=200 status=none
n=$(getfattr --absolute-names --only-values -n user.ossd.stats "$mnt" | awk '$1 == "getxattr" {print $2}')
[ "${n:-0}" -lt 10 ] && tap_ok "200 writes: no security.capability lookup each (${n:-0} getxattr)" \
  || tap_not_ok "200 writes: no security.capability lookup each" "$n getxattr"

# ---- zeros appended (relation extension), the counters, fsync -------------
head -c 8192 /dev/urandom >"$work/p1"; head -c 8192 /dev/urandom >"$work/p3"
cp "$work/p1" "$mnt/rel"
dd if=/dev/zero of="$mnt/rel" bs=8k count=1 seek=1 conv=notrunc status=none
[ "$(stat -c %s "$mnt/rel")" = 16384 ] && cmp -s <(cat "$work/p1"; head -c 8192 /dev/zero) "$mnt/rel" \
  && tap_ok "a zero page appended: size grows, reads zeros" || tap_not_ok "a zero page appended"
dd if=/dev/zero of="$mnt/rel" bs=8k count=1 seek=2 conv=notrunc status=none
dd if="$work/p3" of="$mnt/rel" bs=8k count=1 seek=2 conv=notrunc status=none
cat "$work/p1" <(head -c 8192 /dev/zero) "$work/p3" >"$work/rel.exp"
ok_if "zero page, then the page written for real: reads back" cmp "$work/rel.exp" "$mnt/rel"
ok_if "... and through O_DIRECT (from the drive)" dd if="$mnt/rel" of="$work/rel.direct" bs=8k iflag=direct status=none
ok_if "... identical" cmp "$work/rel.exp" "$work/rel.direct"
getfattr --absolute-names --only-values -n user.ossd.stats "$mnt" | grep -q "^write " \
  && tap_ok "user.ossd.stats counts operations" || tap_not_ok "user.ossd.stats counts operations"
setfattr -n user.ossd.stats -v 0 "$mnt"
ok_if "fsync twice without a write between" python3 -c "import os; fd = os.open('$mnt/rel', os.O_RDWR); os.fsync(fd); os.fsync(fd)"
st=$(getfattr --absolute-names --only-values -n user.ossd.stats "$mnt")
echo "$st" | awk '$1 == "drive.flush_skipped" && $2 > 0 {ok = 1} END {exit !ok}' && tap_ok "the second FLUSH is skipped (nothing changed)" \
  || tap_not_ok "the second FLUSH is skipped" "$(echo "$st" | tr '\n' ' ')"

# ---- user.ossd.priority: the file's I/O priority on the drive (docs/qos.md) -------
echo p >"$mnt/prio"
prio () { getfattr --absolute-names --only-values -n user.ossd.priority "$1" 2>&1; }
[ "$(prio "$mnt/prio")" = 4 ] && tap_ok "user.ossd.priority of a new file: the default, 4" \
  || tap_not_ok "user.ossd.priority default" "$(prio "$mnt/prio")"
setfattr -n user.ossd.priority -v 6 "$mnt/prio"
poid=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/prio")
[ "$(prio "$mnt/prio") $("$ctl" priority "1:$poid")" = "6 6" ] \
  && tap_ok "setfattr user.ossd.priority 6: the drive's object has it (ossdctl priority)" \
  || tap_not_ok "user.ossd.priority 6" "$(prio "$mnt/prio") / $("$ctl" priority "1:$poid" 2>&1)"
out=$(setfattr -n user.ossd.priority -v 8 "$mnt/prio" 2>&1)
case $out in *"Invalid argument"*) tap_ok "user.ossd.priority 8 is refused (EINVAL), 6 kept: $(prio "$mnt/prio")" ;;
  *) tap_not_ok "user.ossd.priority 8 is refused" "$out" ;; esac
chown postgres "$mnt/prio"; echo q >"$mnt/prio.root"
runuser -u postgres -- setfattr -n user.ossd.priority -v 1 "$mnt/prio" \
  && [ "$(prio "$mnt/prio")" = 1 ] && tap_ok "the owner sets its file's priority" \
  || tap_not_ok "the owner sets its file's priority" "$(prio "$mnt/prio")"
chmod 666 "$mnt/prio.root"   # writable: past the kernel's own check, ossdfs says no
out=$(runuser -u postgres -- setfattr -n user.ossd.priority -v 0 "$mnt/prio.root" 2>&1)
case $out in *"not permitted"*) tap_ok "another user's file, even writable: EPERM, $(prio "$mnt/prio.root") kept" ;;
  *) tap_not_ok "another user's file: EPERM" "$out" ;; esac
out=$(setfattr -n user.ossd.priority -v 3 "$mnt/sx" 2>&1)
case $out in *"Invalid argument"*) tap_ok "a directory has no priority (EINVAL)" ;;
  *) tap_not_ok "a directory has no priority" "$out" ;; esac
getfattr --absolute-names -d -m - "$mnt/prio" 2>/dev/null | grep -q priority \
  && tap_not_ok "user.ossd.priority is not listed" || tap_ok "user.ossd.priority is not listed (synthesized)"

# ---- statfs -----------------------------------------------------------------
blocks=$(stat -f -c '%b %S' "$mnt")
set -- $blocks
[ $(($1 * $2)) -ge $((3 << 30)) ] && tap_ok "statfs reports the drive's capacity ($(($1 * $2 >> 20)) MiB)" || tap_not_ok "statfs capacity" "$blocks"
[ "$(stat -f -c %l "$mnt")" = 240 ] && tap_ok "statfs name max 240" || tap_not_ok "statfs name max"

# ---- POSIX ACLs (unsupported: cp -p keeps the mode), sparse files --------------
printf 'acl\n' >"$mnt/acl644"; chmod 644 "$mnt/acl644"
out=$(setfattr -n system.posix_acl_access -v 0sAgAAAAEABgD/////BAAEAP////8gAAQA/////w== "$mnt/acl644" 2>&1)
case $out in *"not supported"*) tap_ok "system.posix_acl_access is refused with EOPNOTSUPP" ;;
  *) tap_not_ok "system.posix_acl_access is refused with EOPNOTSUPP" "$out" ;; esac
cp -p "$mnt/acl644" "$mnt/acl644.copy" && cp -a "$mnt/acl644" "$mnt/acl644.a"
[ "$(stat -c %a "$mnt/acl644.copy") $(stat -c %a "$mnt/acl644.a")" = "644 644" ] \
  && tap_ok "cp -p and cp -a keep a 0644 file 0644" \
  || tap_not_ok "cp -p and cp -a keep the mode" "$(stat -c %a "$mnt/acl644.copy" "$mnt/acl644.a")"
rm -f "$mnt/acl644" "$mnt/acl644.copy" "$mnt/acl644.a"
truncate -s 100M "$mnt/sparse"
dd if=/dev/urandom of="$mnt/sparse" bs=8k count=1 seek=6400 conv=notrunc status=none
blocks=$(stat -c %b "$mnt/sparse")
[ "$(stat -c %s "$mnt/sparse")" = 104857600 ] && [ "$blocks" -le 64 ] \
  && tap_ok "a sparse 100 MiB file with one 8 KiB page reports $blocks blocks" \
  || tap_not_ok "a sparse file reports what the drive maps" "st_blocks=$blocks"
dd if=/dev/urandom of="$mnt/dense" bs=1M count=4 status=none
blocks=$(stat -c %b "$mnt/dense")
[ "$blocks" -ge 8192 ] && tap_ok "a dense 4 MiB file reports its blocks ($blocks)" \
  || tap_not_ok "a dense file reports its blocks" "st_blocks=$blocks"
rm -f "$mnt/sparse" "$mnt/dense"

# zeros appended, then a chmod: the setattr that stores the inode stores
# the length too (it left the inode clean and lost the size at remount)
# (the file held open across the chmod, as PostgreSQL holds a relation's)
python3 - "$work/p1" "$mnt/rel-chmod" <<'PY'
import os, sys
data = open(sys.argv[1], 'rb').read()
fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, data)
os.pwrite(fd, bytes(8192), 8192)
os.chmod(sys.argv[2], 0o600)
os.utime(sys.argv[2], (1577836800, 1577836800))
os.close(fd)
PY

# ---- remount ----------------------------------------------------------------
snap () { (cd "$mnt" && find . -path ./many -prune -o -print0 | sort -z | xargs -0 stat -c '%n %f %h %u %g %s %Y' ; \
           find . -type f ! -path './many/*' -print0 | sort -z | xargs -0 md5sum; ls many | sort | md5sum; \
           getfattr --absolute-names -d a/f2) 2>&1; }
before=$(snap)
ok_if "clean unmount" fs_umount
ok_if "remount" fs_mount
after=$(snap)
[ "$before" = "$after" ] && tap_ok "remount sees every file, attribute and byte" \
  || tap_not_ok "remount sees every file, attribute and byte" "$(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"
[ "$(stat -c %s "$mnt/rel-chmod")" = 16384 ] && cmp -s <(cat "$work/p1"; head -c 8192 /dev/zero) "$mnt/rel-chmod" \
  && tap_ok "zeros appended then chmod/utimens: the size survives the remount" \
  || tap_not_ok "zeros appended then chmod/utimens: the size survives the remount" "size $(stat -c %s "$mnt/rel-chmod")"
ok_if "fsck of the drive after use" "$ctl" fsck

# ---- EIO after kill -9 of the drive -----------------------------------------
drive_kill
start=$(date +%s)
# O_DIRECT: bypass the page cache, which may still hold the bytes
out=$(timeout 60 dd if="$mnt/synced" of=/dev/null bs=64k iflag=direct 2>&1); rc=$?
[ $rc != 124 ] && case $out in *"Input/output error"*) true ;; *) false ;; esac \
  && tap_ok "read after the drive died: EIO" || tap_not_ok "read after the drive died: EIO" "rc=$rc $out"
out=$(timeout 60 sh -c "echo x > '$mnt/newfile'" 2>&1); rc=$?
[ $rc != 124 ] && case $out in *"Input/output error"*) true ;; *) false ;; esac \
  && tap_ok "create after the drive died: EIO" || tap_not_ok "create after the drive died: EIO" "rc=$rc $out"
[ $(( $(date +%s) - start )) -lt 30 ] && tap_ok "no hang (answers within seconds)" || tap_not_ok "no hang"
grep -q "failed: TRANSPORT" "$work/ossdfs.log" && tap_ok "log names the failed command and object" \
  || tap_not_ok "log names the failed command and object" "$(tail -3 "$work/ossdfs.log")"
ok_if "unmount with a dead drive" fs_umount
ok_if "drive restarts after kill -9" drive_restart
ok_if "remount after the drive's crash" fs_mount
[ "$(cat "$mnt/a/f2")" = one ] && tap_ok "data intact after the drive's crash" || tap_not_ok "data intact after the drive's crash"
ok_if "unmount" fs_umount
"$ctl" device stop >/dev/null 2>&1

# ---- ENOSPC on a small drive --------------------------------------------------
rm -f "$work/drive.img"
ok_if "small drive starts (256 MiB)" drive_start 256M
ok_if "mount the small drive" fs_mount
out=$(dd if=/dev/urandom of="$mnt/fill" bs=1M count=1024 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"No space left"*) true ;; *) false ;; esac \
  && tap_ok "filling the drive: ENOSPC" || tap_not_ok "filling the drive: ENOSPC" "rc=$rc $(echo "$out" | head -2)"
out=$(mkdir "$mnt/afterfull" 2>&1 && echo made)
ok_if "rm of the big file after ENOSPC" rm -f "$mnt/fill"
ok_if "writing works again after freeing space" dd if=/dev/urandom of="$mnt/again" bs=1M count=16 conv=fsync status=none
ok_if "unmount the small drive" fs_umount

# ---- the request loop (host/ossdfs/loop.c) ------------------------------------
# A lone caller is served by one spinning reader (solo mode); concurrent
# callers switch the loop to plain worker threads so that none queues
# behind another's drive command.
stat_of () { getfattr --only-values -n user.ossd.stats "$mnt" 2>/dev/null | awk -v k="$1" '$1 == k {print $2}'; }
par_writers () {   # four writers at once, each a copy of r3m in 8 KiB writes
  local pids= i
  for i in 1 2 3 4; do dd if="$work/r3m" of="$mnt/par$1.$i" bs=8k status=none & pids="$pids $!"; done
  wait $pids || return 1
  for i in 1 2 3 4; do cmp "$work/r3m" "$mnt/par$1.$i" || return 1; done
}
ok_if "mount with the default request loop" fs_mount
setfattr -n user.ossd.stats -v 0 "$mnt"
ok_if "a lone writer: 1000 writes of 8 KiB" dd if=/dev/urandom of="$mnt/lone" bs=8k count=1000 status=none
h=$(stat_of loop.concurrent)
[ -n "$h" ] && [ "$h" -lt 5 ] && tap_ok "a lone writer keeps the loop solo ($h switches to concurrent mode in 1000 writes)" \
  || tap_not_ok "a lone writer keeps the loop solo" "loop.concurrent=$h"
setfattr -n user.ossd.stats -v 0 "$mnt"
ok_if "four concurrent writers, data intact" par_writers a
h=$(stat_of loop.concurrent)
[ -n "$h" ] && [ "$h" -gt 0 ] && tap_ok "concurrent writers switch the loop to concurrent mode ($h times)" \
  || tap_not_ok "concurrent writers switch the loop to concurrent mode" "loop.concurrent=$h"
ok_if "unmount" fs_umount
ok_if "mount with one request thread and no spinning" fs_mount --threads 1 --spin-us 0
ok_if "four concurrent writers on one thread, data intact" timeout 120 bash -c "$(declare -f par_writers); work=$work mnt=$mnt par_writers b"
ok_if "unmount" fs_umount
out=$("$ossdfs" "$mnt" --device "$dev" --spin-us x 2>&1); rc=$?
[ $rc = 2 ] && case $out in *"--spin-us x"*) true ;; *) false ;; esac \
  && tap_ok "--spin-us with a bad value: usage error" || tap_not_ok "--spin-us with a bad value: usage error" "rc=$rc $out"
# (not through ok_if: its subshell would lose fs_pid)
fs_mount && tap_ok "mount again" || tap_not_ok "mount again" "$(tail -3 "$work/ossdfs.log")"
kill -TERM "$fs_pid"
for _ in $(seq 100); do kill -0 "$fs_pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$fs_pid" 2>/dev/null && ! mountpoint -q "$mnt" && tap_ok "SIGTERM ends ossdfs and unmounts" \
  || tap_not_ok "SIGTERM ends ossdfs and unmounts" "$(tail -3 "$work/ossdfs.log")"
wait "$fs_pid" 2>/dev/null; fs_pid=
tap_done
