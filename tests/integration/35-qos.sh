#!/usr/bin/env bash
# 35-qos.sh - per-object QoS end to end (docs/qos.md): ossdctl priority
# sets and reads an object's priority on a running drive (nbdkit), refuses
# a level out of range and a missing object with reasons, the drive
# refuses a malformed priority attribute naming it, STATS has the QoS
# counters, qos=off is accepted; bench_qos runs a short paced QoS-on/off
# comparison and its JSON has every phase (no timing is asserted).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
ctl=$top/build/ossdctl
work=$(mktemp -d /tmp/ossd-it-qos.XXXXXX)
export OSSD_RUNDIR=$work/run
export OSSD_DEVICE="nbd+unix:///?socket=$OSSD_RUNDIR/ossd.sock"
cleanup () {
  "$ctl" device stop --force >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok_if "drive starts" "$ctl" device start --image "$work/drive.img" --size 1G --volume 16M
ok_if "partition 5" "$ctl" partition create 5
echo data >"$work/f"
ok_if "object 5:1" "$ctl" put "$work/f" 5:1
[ "$("$ctl" priority 5:1)" = "4 (default)" ] && tap_ok "a new object: priority 4 (default)" \
  || tap_not_ok "a new object's priority" "$("$ctl" priority 5:1 2>&1)"
ok_if "priority 5:1 7" "$ctl" priority 5:1 7
out=$("$ctl" --json priority 5:1)
case $out in *'"priority": 7, "set": true'*) tap_ok "--json: $out" ;; *) tap_not_ok "--json priority" "$out" ;; esac
out=$("$ctl" priority 5:1 8 2>&1); rc=$?
[ $rc = 2 ] && case $out in *"LEVEL 0 lowest .. 7"*) true ;; *) false ;; esac \
  && tap_ok "level 8: usage, exit 2" || tap_not_ok "level 8 refused" "rc $rc: $out"
out=$("$ctl" priority 5:99 2>&1) && tap_not_ok "a missing object" "$out" \
  || tap_ok "a missing object: $(echo "$out" | head -1)"
out=$("$ctl" attr set 5:1 1 2 12 2>&1) && tap_not_ok "a two-byte priority attribute" "$out"
case $out in *"priority attribute (1, 2) is one byte"*) tap_ok "the drive refuses a malformed priority attribute, naming it" ;;
  *) tap_not_ok "malformed priority attribute refused" "$out" ;; esac
[ "$("$ctl" priority 5:1)" = 7 ] && tap_ok "... and the priority stays 7" || tap_not_ok "priority after the refusal"
n=$("$ctl" --json stats | python3 -c "import json,sys; print(' '.join(sorted(k for k in json.load(sys.stdin) if k.startswith('qos_'))))")
want="qos_bound_hits qos_nand_bound_hits qos_nand_overtakes qos_nand_pushes qos_yield_us qos_yields"
[ "$n" = "$want" ] && tap_ok "STATS: $want" || tap_not_ok "STATS qos counters" "$n"
ok_if "drive stops" "$ctl" device stop
ok_if "drive starts with qos=off" "$ctl" device start --image "$work/drive.img" -- qos=off qos_defer_us=500
[ "$("$ctl" priority 5:1)" = 7 ] && tap_ok "the priority is back after the restart" || tap_not_ok "priority after restart"
ok_if "drive stops" "$ctl" device stop

mkdir -p "$work/bench"
if out=$("$top/build/bench/bench_qos" --dir "$work/bench" --table-mb 8 --hot-mb 2 --seconds 0.5 \
           --rounds 1 --json --quiet 2>"$work/bench.err"); then
  python3 -c "import json,sys; d = json.loads(sys.argv[1]); assert set(d['phases']) == {'alone', 'qos_on', 'qos_off'}; assert all(p['reads'] > 0 for p in d['phases'].values())" "$out" \
    && tap_ok "bench_qos: a short paced run, every phase read" || tap_not_ok "bench_qos JSON" "$out"
else
  tap_not_ok "bench_qos runs" "$(tail -3 "$work/bench.err")"
fi
tap_done
