#!/usr/bin/env bash
# 10-channel-nbdkit.sh - the emulated drive served by nbdkit on a Unix
# socket: ossdctl, 8 concurrent clients on separate slots, standard NBD
# tools on the block volume while the channel serves, kill -9 recovery of
# flushed objects and attributes, and clear errors for a missing drive.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
B=$top/build
ctl=$B/ossdctl
work=$(mktemp -d /tmp/ossd-it-channel.XXXXXX)
export OSSD_RUNDIR=$work/run
sock=$OSSD_RUNDIR/ossd.sock
export OSSD_DEVICE="nbd+unix:///?socket=$sock"
vol="nbd+unix:///volume?socket=$sock"
cleanup () {
  "$ctl" device stop >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok_if "drive starts (format 1 GiB, 64 MiB volume)" \
  "$ctl" device start --image "$work/drive.img" --size 1G --volume 64M
ok_if "ossdctl device status says running" "$ctl" device status
info=$("$ctl" --json info 2>&1)
case $info in
  *'"capacity_bytes": '*'"volume_bytes": 67108864'*) tap_ok "ossdctl info --json reports capacity and volume" ;;
  *) tap_not_ok "ossdctl info --json reports capacity and volume" "$info" ;;
esac
ok_if "ossdctl stats --json" "$ctl" --json stats
ok_if "nbdinfo describes the whole drive" nbdinfo "$OSSD_DEVICE"
vsize=$(nbdinfo --size "$vol" 2>&1)
[ "$vsize" = 67108864 ] && tap_ok "nbdinfo: the 'volume' export is the 64 MiB block volume" \
  || tap_not_ok "nbdinfo: the 'volume' export is the 64 MiB block volume" "got $vsize"
exports=$(nbdinfo --list "nbd+unix:///?socket=$sock" 2>&1)
case $exports in *volume*) tap_ok "nbdinfo --list shows both exports" ;; *) tap_not_ok "nbdinfo --list shows both exports" "$exports" ;; esac

# 8 clients at once, each with its own slots and objects.
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$B/tests/ossd_stress_client" "$OSSD_DEVICE" "$i" 4 3 $((2 << 20)) >"$work/client$i.log" 2>&1 &
  pids+=($!)
done
# Meanwhile a real NBD client writes and reads the block volume.
head -c $((16 << 20)) /dev/urandom >"$work/vol.in"
ok_if "nbdcopy writes 16 MiB into the block volume while clients run" \
  nbdcopy --synchronous "$work/vol.in" "$vol"
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { failed=1; cat "$work/client$((i + 1)).log" | sed 's/^/# /'; }
done
[ $failed = 0 ] && tap_ok "8 concurrent clients: every byte and attribute checked, no cross-talk" \
  || tap_not_ok "8 concurrent clients: every byte and attribute checked, no cross-talk"
ok_if "nbdcopy reads the volume back" nbdcopy "$vol" "$work/vol.out"
cmp -n $((16 << 20)) "$work/vol.in" "$work/vol.out" >/dev/null \
  && tap_ok "volume bytes read back equal those written" \
  || tap_not_ok "volume bytes read back equal those written"
ok_if "qemu-img reads the volume as a raw disk" \
  qemu-img convert -f raw -O raw "$vol" "$work/vol.qemu"
cmp -n $((16 << 20)) "$work/vol.in" "$work/vol.qemu" >/dev/null \
  && tap_ok "qemu-img's copy matches" || tap_not_ok "qemu-img's copy matches"

# Objects and attributes, flushed, survive kill -9 of the drive.
ok_if "partition create" "$ctl" partition create 7
head -c $((5 << 20)) /dev/urandom >"$work/a.bin"
head -c 12345 /dev/urandom >"$work/b.bin"
ok_if "put 5 MiB object (flushes)" "$ctl" put "$work/a.bin" 7:1
ok_if "put small object" "$ctl" put "$work/b.bin" 7:2
ok_if "attr set" "$ctl" attr set 7:1 0x10000 5 "hello attribute"
"$ctl" stats >/dev/null   # any command after put; put already flushed
# attr set is acknowledged but only FLUSH makes it durable: flush through put of a third object
ok_if "put (flush) after attr" "$ctl" put "$work/b.bin" 7:3
pid=$(cat "$OSSD_RUNDIR/ossd.pid")
kill -9 "$pid"
sleep 0.5
rm -f "$OSSD_RUNDIR/ossd.pid"
ok_if "drive restarts on the same image after kill -9" \
  "$ctl" device start --image "$work/drive.img"
ok_if "get object 7:1 after crash" "$ctl" get 7:1 "$work/a.out"
ok_if "object 7:1 intact" cmp "$work/a.bin" "$work/a.out"
ok_if "get object 7:2 after crash" "$ctl" get 7:2 "$work/b.out"
ok_if "object 7:2 intact" cmp "$work/b.bin" "$work/b.out"
val=$("$ctl" attr get 7:1 0x10000 5 2>&1)
[ "$val" = "hello attribute" ] && tap_ok "attribute intact after crash" \
  || tap_not_ok "attribute intact after crash" "$val"
ok_if "volume intact after crash" sh -c "nbdcopy '$vol' '$work/vol.out2' && cmp -n $((16 << 20)) '$work/vol.in' '$work/vol.out2'"
ok_if "fsck after recovery is clean" "$ctl" fsck

# Errors that say what and where.
out=$("$ctl" get 7:99 "$work/none" 2>&1)
case $out in *NOT_FOUND*|*"oid 99"*|*"not found"*|*"no such"*|*"No such"*) tap_ok "missing object: clear error" ;; *) tap_not_ok "missing object: clear error" "$out" ;; esac
out=$("$ctl" --device "nbd+unix:///?socket=$work/nothing.sock" info 2>&1)
case $out in *"cannot reach the drive"*) tap_ok "missing drive: clear error" ;; *) tap_not_ok "missing drive: clear error" "$out" ;; esac
out=$("$ctl" --device "bogus:thing" info 2>&1)
case $out in *"unknown device URI scheme"*) tap_ok "bad URI: clear error" ;; *) tap_not_ok "bad URI: clear error" "$out" ;; esac
ok_if "drive stops cleanly" "$ctl" device stop
tap_done
