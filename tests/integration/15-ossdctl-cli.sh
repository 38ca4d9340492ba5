#!/usr/bin/env bash
# 15-ossdctl-cli.sh - ossdctl's command line as a user meets it: arguments
# a command does not take are usage errors (exit 2, a message naming the
# argument), never silently ignored; info counts what `partition ls` and
# `ls` show (not the drive's system partition); events carry UTC times and
# --json gives one JSON object a line.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
ctl=$top/build/ossdctl
work=$(mktemp -d /tmp/ossd-it-cli.XXXXXX)
export OSSD_RUNDIR=$work/run
export OSSD_DEVICE="nbd+unix:///?socket=$OSSD_RUNDIR/ossd.sock"
cleanup () {
  "$ctl" device stop >/dev/null 2>&1
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
tap_done
