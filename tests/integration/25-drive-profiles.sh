#!/usr/bin/env bash
# 25-drive-profiles.sh - drive profiles through nbdkit and ossdctl
# (docs/profiles.md): `device start --profile` puts a profile in force on an
# existing image and `info` / `info --json` / `stats` report it; an
# unknown profile is refused naming the choices; the default profile never
# sleeps; a paced host read of a known size takes at least its modelled
# time (a lower bound from the model: a loaded machine only makes it
# slower); data read back under a paced profile is the data written;
# `ossdctl cold` drops the drive's caches (admin: refused without the key)
# and the data stays; the next start without --profile is the image's own.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
ctl=$top/build/ossdctl
work=$(mktemp -d /tmp/ossd-it-profiles.XXXXXX)
export OSSD_RUNDIR=$work/run
export OSSD_DEVICE="nbd+unix:///?socket=$OSSD_RUNDIR/ossd.sock"
unset OSSD_PROFILE
cleanup () {
  "$ctl" device stop --force >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
jfield () { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
stat_of () { "$ctl" stats | awk -v k="$1" '$1 == k { print $2 }'; }

out=$("$ctl" profiles)
for p in default sata-ssd nvme-gen3 nasd-1998; do
  echo "$out" | grep -q "^$p " && tap_ok "ossdctl profiles lists $p" || tap_not_ok "ossdctl profiles lists $p" "$out"
done
"$ctl" --json profiles | python3 -c "import json,sys; l=json.load(sys.stdin); assert any(p['name']=='nasd-1998' and p['paced'] for p in l)" \
  && tap_ok "profiles --json: nasd-1998 is paced" || tap_not_ok "profiles --json: nasd-1998 is paced"

ok_if "drive starts (default profile)" "$ctl" device start --image "$work/drive.img" --size 1G --volume 64M
head -c 4M /dev/urandom >"$work/data"
ok_if "partition and a 4 MiB object" sh -c "'$ctl' partition create 5 && '$ctl' put '$work/data' 5:1"
info=$("$ctl" --json info)
[ "$(echo "$info" | jfield profile)" = default ] && [ "$(echo "$info" | jfield paced)" = False ] \
  && tap_ok "info --json: profile default, not paced" || tap_not_ok "info --json: profile default, not paced" "$info"
"$ctl" get 5:1 "$work/back" >/dev/null
[ "$(stat_of pace_sleeps)" = 0 ] && tap_ok "the default profile never sleeps (pace_sleeps 0)" \
  || tap_not_ok "the default profile never sleeps" "pace_sleeps $(stat_of pace_sleeps)"
ok_if "stop" "$ctl" device stop

out=$("$ctl" device start --image "$work/drive.img" --profile no-such-drive 2>&1); rc=$?
if [ $rc != 0 ] && { echo "$out" | grep -q "nasd-1998" || grep -rqs "nasd-1998" "$OSSD_RUNDIR"; }; then
  tap_ok "an unknown profile is refused, naming the choices"
else
  tap_not_ok "an unknown profile is refused, naming the choices" "rc=$rc $out"
fi
"$ctl" device stop --force >/dev/null 2>&1

ok_if "drive starts with --profile nasd-1998 on the same image" \
  "$ctl" device start --image "$work/drive.img" --profile nasd-1998
info=$("$ctl" --json info)
[ "$(echo "$info" | jfield profile)" = nasd-1998 ] && [ "$(echo "$info" | jfield paced)" = True ] \
  && [ "$(echo "$info" | jfield format_profile)" = default ] && [ "$(echo "$info" | jfield link_mbps)" = 19 ] \
  && tap_ok "info --json: nasd-1998 in force, paced, 19 MB/s link, formatted with default" \
  || tap_not_ok "info --json: nasd-1998 in force" "$info"
"$ctl" info | grep -q "paced to real time" && tap_ok "info says it is paced" || tap_not_ok "info says it is paced"

# the model: one die; each 16 KiB page is tR plus its channel transfer
model=$(echo "$info" | python3 -c "
import json,sys; i=json.load(sys.stdin)
pages = (4 << 20) / i['page_size']
print('%.3f' % (pages * (i['read_ns'] * 1e-9 + i['page_size'] / (i['channel_mbps'] * 1e6))))")
t0=$(date +%s.%N)
"$ctl" get 5:1 "$work/back" >/dev/null
t1=$(date +%s.%N)
took=$(echo "$t1 - $t0" | bc)
echo "# paced get of 4 MiB: $took s, model $model s"
awk -v t="$took" -v m="$model" 'BEGIN { exit !(t >= m * 0.99) }' \
  && tap_ok "a paced 4 MiB read takes at least the modelled $model s" \
  || tap_not_ok "a paced 4 MiB read takes at least the modelled time" "took $took s, model $model s"
cmp -s "$work/data" "$work/back" && tap_ok "paced read returns the data written" || tap_not_ok "paced read returns the data written"
[ "$(stat_of pace_sleeps)" -gt 0 ] && [ "$(stat_of link_bytes)" -ge $((4 << 20)) ] \
  && tap_ok "stats: pace_sleeps > 0, link_bytes >= 4 MiB" \
  || tap_not_ok "stats count the pacing" "pace_sleeps $(stat_of pace_sleeps) link_bytes $(stat_of link_bytes)"

out=$("$ctl" --key-file "" cold 2>&1) && tap_not_ok "cold without the key is refused" "$out" \
  || { echo "$out" | grep -q "permission denied" && tap_ok "cold without the key is refused (admin)" \
       || tap_not_ok "cold without the key is refused" "$out"; }
ok_if "ossdctl cold (with the key)" "$ctl" cold
[ "$(stat_of cache_drops)" = 1 ] && tap_ok "stats: cache_drops 1" || tap_not_ok "stats: cache_drops 1" "$(stat_of cache_drops)"
res=$(fincore -b -n -o RES "$work/drive.img" 2>/dev/null | tr -d ' ')
echo "# image resident after cold: ${res:-?} bytes"
[ -z "$res" ] || [ "$res" -lt $((1 << 20)) ] && tap_ok "the image is out of the page cache after cold" \
  || tap_not_ok "the image is out of the page cache after cold" "$res bytes resident"
"$ctl" get 5:1 "$work/back2" >/dev/null
cmp -s "$work/data" "$work/back2" && tap_ok "data read back after cold" || tap_not_ok "data read back after cold"
ok_if "fsck after cold" "$ctl" fsck
ok_if "stop" "$ctl" device stop

ok_if "drive starts without --profile" "$ctl" device start --image "$work/drive.img"
[ "$("$ctl" --json info | jfield profile)" = default ] && tap_ok "without --profile the image's own profile (default) is in force" \
  || tap_not_ok "without --profile the image's own profile is in force"
ok_if "stop" "$ctl" device stop
OSSD_PROFILE=sata-ssd "$ctl" device start --image "$work/drive.img" >/dev/null 2>&1
[ "$("$ctl" --json info | jfield profile)" = sata-ssd ] && tap_ok "\$OSSD_PROFILE picks the profile at start" \
  || tap_not_ok "\$OSSD_PROFILE picks the profile at start"
ok_if "stop" "$ctl" device stop
tap_done
