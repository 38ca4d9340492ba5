#!/usr/bin/env bash
# 20-ossdfs-fio.sh - fio checks the bytes through ossdfs with verify=crc32c:
# sequential and 8 KiB random writes, several jobs, buffered and O_DIRECT,
# then a remount and a verify-only pass so the checked bytes come from the
# drive, not the page cache.  Zero verify errors expected.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/integration/ossdfs-lib.bash"
ofs_init fio

command -v fio >/dev/null || { tap_not_ok "fio is installed"; tap_done; exit 1; }
ok_if "drive starts" drive_start 4G
ok_if "ossdfs mounts" fs_mount

# run_fio NAME ARGS... : ok when fio exits 0 and reports no error.  fio
# runs in $work: it saves its verify state files in the current directory.
run_fio () {
  local name=$1; shift
  local log=$work/fio-$name.log
  if (cd "$work" && fio --name="$name" --directory="$mnt" --group_reporting --output-format=normal "$@") >"$log" 2>&1 \
     && ! grep -qiE 'verify: bad|crc32c: verify failed|err= *[1-9]' "$log"; then
    tap_ok "fio $name: $(grep -E '^ +(READ|WRITE):' "$log" | sed 's/,.*//; s/^ *//' | tr '\n' ' ')"
  else
    tap_not_ok "fio $name" "$(grep -iE 'verify|err|error' "$log" | head -5 | tr '\n' ' ')"
  fi
}
run_fio seqwrite --rw=write --bs=1M --size=64M --numjobs=4 --verify=crc32c --verify_fatal=1
run_fio randwrite --rw=randwrite --bs=8k --size=32M --numjobs=4 --verify=crc32c --verify_fatal=1
run_fio direct-randrw --rw=randwrite --bs=8k --size=16M --numjobs=2 --direct=1 --verify=crc32c --verify_fatal=1
run_fio mixed-bs --rw=randwrite --bsrange=4k-256k --size=32M --numjobs=2 --verify=crc32c --verify_fatal=1

ok_if "unmount" fs_umount
ok_if "remount" fs_mount
# verify-only passes: same job definitions, data read back from the drive
run_fio seqwrite --rw=write --bs=1M --size=64M --numjobs=4 --verify=crc32c --verify_only --verify_fatal=1
run_fio randwrite --rw=randwrite --bs=8k --size=32M --numjobs=4 --verify=crc32c --verify_only --verify_fatal=1
run_fio direct-randrw --rw=randwrite --bs=8k --size=16M --numjobs=2 --direct=1 --verify=crc32c --verify_only --verify_fatal=1
ok_if "unmount" fs_umount
ok_if "fsck of the drive" "$ctl" fsck
tap_done
