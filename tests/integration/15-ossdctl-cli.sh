#!/usr/bin/env bash
# 15-ossdctl-cli.sh - ossdctl's command line as a user meets it: arguments
# a command does not take are usage errors (exit 2, a message naming the
# argument), never silently ignored; info counts what `partition ls` and
# `ls` show (not the drive's system partition); events carry UTC times and
# --json gives one JSON object a line; `device stop` refuses to stop a
# drive ossdfs has mounted (naming the mount) and leaves it working;
# ossdfs finds the drive in $OSSD_RUNDIR as ossdctl does.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
ctl=$top/build/ossdctl
work=$(mktemp -d /tmp/ossd-it-cli.XXXXXX)
export OSSD_RUNDIR=$work/run
export OSSD_DEVICE="nbd+unix:///?socket=$OSSD_RUNDIR/ossd.sock"
mnt=$work/mnt
fs_pid=
cleanup () {
  mountpoint -q "$mnt" 2>/dev/null && { fusermount3 -u "$mnt" || fusermount3 -u -z "$mnt"; } 2>/dev/null
  [ -n "$fs_pid" ] && kill -9 "$fs_pid" 2>/dev/null
  "$ctl" device stop --force >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok_if "drive starts" "$ctl" device start --image "$work/drive.img" --size 1G --volume 64M

# usage_error DESCRIPTION PATTERN ARGS...: exit 2 and stderr matches
usage_error () {
  local d=$1 pat=$2 out rc; shift 2
  out=$("$ctl" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" -eq 2 ] && echo "$out" | grep -q -- "$pat"; then
    tap_ok "$d"
  else
    tap_not_ok "$d" "rc=$rc: $out"
  fi
}
usage_error "events --bogus is refused" "unexpected argument '--bogus'" events --bogus
usage_error "stats --bogus is refused" "unexpected argument '--bogus'" stats --bogus
usage_error "info extra is refused" "unexpected argument 'extra'" info extra
usage_error "fsck extra is refused" "unexpected argument 'extra'" fsck extra
"$ctl" partition create 3 >/dev/null 2>&1
printf 'hello\n' >"$work/f"
"$ctl" put "$work/f" 3:9 >/dev/null 2>&1
usage_error "attr get with a non-numeric page is refused" "PAGE and NUMBER are numbers" attr get 3:9 x y
usage_error "attr get with too many arguments is refused" "too many arguments" attr get 3:9 1 2 3
ok_if "stats --reset still works" "$ctl" stats --reset

# info counts what a user can list
info=$("$ctl" --json info 2>&1)
parts=$("$ctl" --json partition ls 2>&1)
objs=$("$ctl" --json ls 3 2>&1)
case $info in
  *'"objects": 1, "partitions": 1,'*) tap_ok "info: 1 object in 1 partition, as partition ls ($parts) and ls ($objs) show" ;;
  *) tap_not_ok "info counts user objects and partitions" "$info / $parts / $objs" ;;
esac

# events: UTC time stamps; JSON Lines (a FORMAT posts one)
ok_if "format the drive again" "$ctl" format --size 1G
ev=$("$ctl" events 2>&1)
if echo "$ev" | grep -qE '^ *[0-9]+ 20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z '; then
  tap_ok "events carry UTC times"
else
  tap_not_ok "events carry UTC times" "$(echo "$ev" | head -3)"
fi
year=$(date -u +%Y)
evj=$("$ctl" --json events 2>&1)
if [ -n "$evj" ] && echo "$evj" | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    e = json.loads(line)
    assert e["time"].startswith(sys.argv[1]) and e["time_ns"] > 0, e
    n += 1
assert n > 0
' "$year"; then
  tap_ok "events --json: one JSON object a line, with this year's time"
else
  tap_not_ok "events --json is JSON Lines" "$(echo "$evj" | head -3)"
fi

# ossdfs with no --device and no $OSSD_DEVICE: the socket in $OSSD_RUNDIR
mkdir -p "$mnt"
(unset OSSD_DEVICE; exec "$top/build/ossdfs" "$mnt" --foreground) >"$work/ossdfs.log" 2>&1 &
fs_pid=$!
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
if mountpoint -q "$mnt" && echo data >"$mnt/f" && [ "$(cat "$mnt/f")" = data ]; then
  tap_ok "ossdfs finds the drive in \$OSSD_RUNDIR without --device"
else
  tap_not_ok "ossdfs finds the drive in \$OSSD_RUNDIR" "$(tail -3 "$work/ossdfs.log")"
fi
out=$("$ctl" device stop 2>&1); rc=$?
if [ "$rc" -ne 0 ] && echo "$out" | grep -q "mounted by ossdfs at $mnt"; then
  tap_ok "device stop refuses while ossdfs has the drive mounted, naming the mount"
else
  tap_not_ok "device stop refuses while mounted" "rc=$rc: $out"
fi
ok_if "the drive still answers after the refused stop" timeout 10 "$ctl" info
ok_if "the mount still works" sh -c "echo more >>'$mnt/f' && grep -q more '$mnt/f'"
fusermount3 -u "$mnt"; wait "$fs_pid" 2>/dev/null; fs_pid=
ok_if "device stop after the unmount" timeout 30 "$ctl" device stop
tap_done
