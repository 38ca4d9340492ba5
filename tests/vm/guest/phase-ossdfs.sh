#!/bin/sh
# phase-ossdfs.sh - ossdfs in the guest over nvme: (the guest kernel's FUSE
# and NVMe driver; OSSDFS_DEVICE and OSSDFS_PARTITION pick another, see
# phase-ossdfs-sata.sh): the core of tests/integration/20-ossdfs-posix.sh in
# busybox sh - files, holes, truncation, directories and their errno,
# renames, links, an unlinked open file, mode/owner/times, a directory of
# 300 entries, xattrs (user.ossd.*), statfs, every byte and attribute
# after a remount, and the drive's FSCK after use.  TAP on stdout.
n=0 failed=0
ok () { n=$((n + 1)); echo "ok $n - $1"; }
nok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || echo "# $2"; }
# not for fs_mount / fs_umount: a subshell would lose fs_pid (and leave
# ossdfs a zombie that kill -0 still finds)
ok_if () { d=$1; shift; if out=$("$@" 2>&1); then ok "$d"; else nok "$d" "$(echo "$out" | tail -3 | tr '\n' ' ')"; fi; }
in_shell () { d=$1; shift; if "$@" >"$w/step.out" 2>&1; then ok "$d"; else nok "$d" "$(tail -3 "$w/step.out" | tr '\n' ' ')"; fi; }
check () { if [ "$2" = "$3" ]; then ok "$1"; else nok "$1" "got '$2', want '$3'"; fi; }
has () { case $2 in *"$3"*) ok "$1" ;; *) nok "$1" "$2" ;; esac; }

dev=${OSSDFS_DEVICE:-nvme:$NVME}
part=${OSSDFS_PARTITION:-1}
mnt=/mnt/ofs$part
w=/tmp/ofs-work$part
mkdir -p "$mnt" "$w"
fs_pid=
mounted () { grep -q " $mnt fuse" /proc/mounts; }
fs_mount () {
  ossdfs "$mnt" --device "$dev" --partition "$part" --foreground --timeout-ms 8000 >>"$w/ossdfs.log" 2>&1 &
  fs_pid=$!
  i=0
  while [ $i -lt 300 ]; do
    mounted && return 0
    kill -0 "$fs_pid" 2>/dev/null || { tail -5 "$w/ossdfs.log"; return 1; }
    sleep 0.1; i=$((i + 1))
  done
  echo "ossdfs did not mount in 30 s"; return 1
}
fs_umount () {
  umount "$mnt" || return 1
  i=0
  while [ $i -lt 300 ]; do
    kill -0 "$fs_pid" 2>/dev/null || { wait "$fs_pid"; return 0; }
    sleep 0.1; i=$((i + 1))
  done
  echo "ossdfs still running 30 s after unmount"; return 1
}

in_shell "ossdfs mounts over $dev (first mount creates the filesystem)" fs_mount
grep -q "creating one" "$w/ossdfs.log" && ok "first mount said it created the filesystem" \
  || nok "first mount said it created the filesystem" "$(cat "$w/ossdfs.log")"

# ---- files --------------------------------------------------------------------
head -c $((3 << 20)) /dev/urandom >"$w/r3m"
ok_if "write a 3 MiB file" cp "$w/r3m" "$mnt/big"
ok_if "read it back identical" cmp "$w/r3m" "$mnt/big"
check "size is 3 MiB" "$(stat -c %s "$mnt/big")" $((3 << 20))
echo -n hello >"$mnt/small" && echo -n " world" >>"$mnt/small"
check "create + append" "$(cat "$mnt/small")" "hello world"
dd if=/dev/zero of="$mnt/big" bs=1 count=5 seek=100 conv=notrunc 2>/dev/null
cp "$w/r3m" "$w/r3m.exp"; dd if=/dev/zero of="$w/r3m.exp" bs=1 count=5 seek=100 conv=notrunc 2>/dev/null
ok_if "overwrite in the middle" cmp "$w/r3m.exp" "$mnt/big"
truncate -s 1000 "$mnt/big"; head -c 1000 "$w/r3m.exp" >"$w/t1000"
ok_if "truncate down" cmp "$w/t1000" "$mnt/big"
truncate -s 5000 "$mnt/big"; { cat "$w/t1000"; head -c 4000 /dev/zero; } >"$w/t5000"
ok_if "truncate up reads zeros" cmp "$w/t5000" "$mnt/big"
ok_if "fsync through dd conv=fsync" dd if="$w/r3m" of="$mnt/synced" bs=64k conv=fsync
ok_if "sparse write far out" dd if="$w/r3m" of="$mnt/sparse" bs=4k count=1 seek=10000
check "sparse size" "$(stat -c %s "$mnt/sparse")" $((10001 * 4096))
check "hole reads as zeros" "$(head -c 4096 "$mnt/sparse" | tr -d '\0' | wc -c)" 0

# ---- directories, renames, links ---------------------------------------------
ok_if "mkdir -p a/b/c" mkdir -p "$mnt/a/b/c"
has "mkdir existing: EEXIST" "$(mkdir "$mnt/a" 2>&1)" "File exists"
has "rmdir non-empty: ENOTEMPTY" "$(rmdir "$mnt/a" 2>&1)" "not empty"
has "missing file: ENOENT" "$(cat "$mnt/nope" 2>&1)" "No such file"
check "directory nlink counts subdirectories" "$(stat -c %h "$mnt/a")" 3
echo one >"$mnt/a/b/f1"; echo two >"$mnt/a/f2"
ok_if "rename within a directory" mv "$mnt/a/b/f1" "$mnt/a/b/g1"
ok_if "rename across directories" mv "$mnt/a/b/g1" "$mnt/a/h1"
ok_if "rename over an existing file" mv "$mnt/a/h1" "$mnt/a/f2"
check "rename replaced the target" "$(cat "$mnt/a/f2") $([ -e "$mnt/a/h1" ] && echo left)" "one "
ok_if "rename a directory to another parent" mv "$mnt/a/b" "$mnt/b2"
check "moved directory keeps children; parents' nlink updated" \
  "$([ -d "$mnt/b2/c" ] && echo c) $(stat -c %h "$mnt/a") $(stat -c %h "$mnt/b2")" "c 2 3"
ok_if "hard link" ln "$mnt/a/f2" "$mnt/link2"
check "nlink 2 after link" "$(stat -c %h "$mnt/a/f2")" 2
ok_if "symlink" ln -s a/f2 "$mnt/sym"
check "readlink and follow" "$(readlink "$mnt/sym") $(cat "$mnt/sym")" "a/f2 one"
exec 7<"$mnt/small"
rm "$mnt/small"
check "unlinked open file stays readable" "$(cat <&7)" "hello world"
exec 7<&-
ok_if "chmod" chmod 640 "$mnt/a/f2"
ok_if "chown postgres" chown postgres:postgres "$mnt/a/f2"
ok_if "touch -d (utimens)" touch -d "2001-02-03 04:05:06" "$mnt/a/f2"
check "mode, owner, mtime as set" "$(stat -c '%a %U %Y' "$mnt/a/f2")" \
  "640 postgres $(TZ=UTC date -d '2001-02-03 04:05:06' +%s)"

# ---- a directory of 300 entries -------------------------------------------------
mkdir "$mnt/many"
i=1; while [ $i -le 300 ]; do : >"$mnt/many/f$i"; i=$((i + 1)); done
check "300 files listed" "$(ls "$mnt/many" | wc -l)" 300
i=1; while [ $i -le 300 ]; do rm "$mnt/many/f$i"; i=$((i + 2)); done
check "150 left after removing half" "$(ls "$mnt/many" | wc -l)" 150

# ---- xattrs -------------------------------------------------------------------------
ok_if "setfattr" setfattr -n user.color -v blue "$mnt/a/f2"
check "getfattr" "$(getfattr --absolute-names --only-values -n user.color "$mnt/a/f2")" blue
ok_if "setfattr -x" setfattr -x user.color "$mnt/a/f2"
has "removed xattr: ENODATA" "$(getfattr --absolute-names -n user.color "$mnt/a/f2" 2>&1)" "No such attribute"
oid=$(getfattr --absolute-names --only-values -n user.ossd.oid "$mnt/a/f2")
check "user.ossd.oid = inode number" "$oid" "$(stat -c %i "$mnt/a/f2")"
check "user.ossd.device = the device URI" "$(getfattr --absolute-names --only-values -n user.ossd.device "$mnt/a/f2")" "$dev"
[ -n "$(setfattr -n user.ossd.oid -v 5 "$mnt/a/f2" 2>&1)" ] && ok "user.ossd.oid is read-only" || nok "user.ossd.oid is read-only"

# ---- statfs, remount, fsck ------------------------------------------------------------
set -- $(stat -f -c '%b %S' "$mnt")
[ $(($1 * $2)) -ge $((512 << 20)) ] && ok "statfs reports the drive's capacity ($(($1 * $2 >> 20)) MiB)" \
  || nok "statfs capacity" "$1 blocks of $2"
listing () { (cd "$mnt" && find . | sort | while read -r f; do
  if [ -f "$f" ] && [ ! -L "$f" ]; then echo "$f $(stat -c '%s %a %h' "$f") $(md5sum <"$f" | cut -c1-32)"
  else echo "$f $(stat -c '%F %a' "$f")"; fi; done) }
before=$(listing)
in_shell "clean unmount" fs_umount
in_shell "remount" fs_mount
after=$(listing)
[ -n "$before" ] && [ "$before" = "$after" ] && ok "remount sees every file, mode and byte ($(echo "$after" | wc -l) entries)" \
  || nok "remount sees every file, mode and byte" "$(echo "$before" | wc -l) entries before, $(echo "$after" | wc -l) after"
in_shell "unmount" fs_umount
ok_if "FSCK of the drive after use, over $dev" ossdctl --device "$dev" --key-file "$OSSD_KEY_FILE" fsck
echo "1..$n"
[ "$failed" -eq 0 ]
