#!/usr/bin/env bash
# test-sim.sh - quick TAP test of ftl-sim (make test): a few seconds of
# each workload kind on a tiny device, with sanity checks: WAF >= 1, at
# most 2 NAND reads per host read in the split-DFTL mode, trace replay
# counts equal to the trace's, exofs-like metadata requests, warm-up not
# measured, CSV/CDF outputs well formed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
B=$top/build/bench/ftl-sim
SIM=$B/ftl-sim
GEN=$B/ftl-msr-gen
work=$(mktemp -d /tmp/ftl-sim-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
TINY="--channels 2 --ways 2 --pages-per-block 32 --capacity 64M --no-progress"

ok_if "ftl-sim --help" "$SIM" --help
ok_if "ftl-msr-gen --help" "$GEN" --help

# sim NAME ARGS...: run with --json into $work/NAME.json
sim () {
  local n=$1; shift
  "$SIM" $TINY "$@" --json >"$work/$n.json" 2>"$work/$n.err"
}
# check NAME "jq boolean expression" description
check () {
  if [ -s "$work/$1.json" ] && jq -e "$2" "$work/$1.json" >/dev/null 2>&1; then
    tap_ok "$3"
  else
    tap_not_ok "$3" "$(cat "$work/$1.err" 2>/dev/null | tail -3) $(jq -c "$4" "$work/$1.json" 2>/dev/null)"
  fi
}

sim rand --workload rand --precondition --pre-max-x 2 --writes-x 1 --op 0.12 \
  --csv "$work/rand.csv"
check rand '.ftl.waf >= 1 and .ftl.erases > 0 and .precondition.rounds > 0' \
  "uniform random writes after preconditioning: WAF >= 1, GC ran" '.ftl'
if [ "$(head -1 "$work/rand.csv" | cut -d, -f1-3)" = "label,phase,row" ] \
   && [ "$(wc -l <"$work/rand.csv")" -gt 3 ]; then
  tap_ok "time-series CSV written"
else
  tap_not_ok "time-series CSV written"
fi

sim zipf --workload zipf --zipf 0.9 --read-pct 30 --writes-x 1
check zipf '.ftl.waf >= 1 and .host.reads > 0 and .host.writes > 0' \
  "zipf read/write mix" '.host'

sim seq --workload seq --writes-x 2
check seq '.ftl.waf >= 1 and .ftl.waf < 1.2' \
  "sequential overwrite: WAF near 1" '.ftl.waf'

sim objects --workload objects --writers 3 --obj-min 256K --obj-max 2M \
  --bs 16K --writes-x 2 --read-pct 10 --map dftl --alloc per-object --fsck
check objects '.ftl.waf >= 1 and .host.creates > 10 and .host.removes > 0' \
  "object create/delete scenario (3 writers, per-object, dftl), fsck clean" '.host'

sim delrw --workload delrewrite --bs 64K --alloc per-object --fsck
check delrw '.host.removes == 2 and .ftl.waf >= 1' \
  "delete-and-rewrite scenario" '.host'

sim exofs --workload delrewrite --bs 64K --alloc index-data --exofs-inode-bytes 4096 --fsck
check exofs '.host.removes == 2 and .host.creates == 8 and .host.attr_updates >= .host.writes / 2 and .ftl.waf >= 1' \
  "delete-and-rewrite with exofs-like metadata (super block, root directory, inode per write), fsck clean" '.host'

sim warm --workload rand --read-pct 50 --warmup-ops 3000 --ops 2000 --map dftl
check warm '.host.reads + .host.writes == 2000 and .saturated.kiops >= .virtual.kiops and .saturated.kiops > 0' \
  "warm-up requests are not measured; saturated throughput >= queue-depth-1 throughput" '{host, virtual, saturated}'

sim split --workload rand --read-pct 70 --writes-x 1 --map dftl-split \
  --cache-frac 0.1 --cdf "$work/split.cdf"
check split '.host.reads > 0 and .ftl.map_misses > 0 and .ftl.max_nand_reads_per_host_read <= 2 and .ftl.nand_reads_per_host_read <= 2' \
  "split DFTL: at most 2 NAND reads per host read (with cache misses)" '.ftl'
if awk -F, 'NR > 1 { last = $3 } END { exit !(NR > 2 && last == 1) }' "$work/split.cdf"; then
  tap_ok "read-latency CDF ends at 1"
else
  tap_not_ok "read-latency CDF ends at 1" "$(tail -2 "$work/split.cdf")"
fi

# trace replay: synthetic MSR trace, counts must match the file
"$GEN" --records 3000 --disks 3 --disk-size 16M --read-pct 40 --seed 7 \
  --out "$work/t.csv"
{ echo "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"; cat "$work/t.csv"; } >"$work/th.csv"
nr=$(grep -c ',Read,' "$work/t.csv")
nw=$(grep -c ',Write,' "$work/t.csv")
sim msr --trace "$work/th.csv"
check msr ".trace.records == 3000 and .trace.reads == $nr and .trace.writes == $nw and .host.reads == $nr and .host.writes == $nw and .trace.skipped == 1" \
  "MSR trace replay (volume): $nr reads + $nw writes, header skipped" '.trace'
sim msrd --trace "$work/t.csv" --trace-per-disk --map dftl-split
check msrd ".trace.records == 3000 and .host.reads + .host.writes == 3000 and .ftl.max_nand_reads_per_host_read <= 2" \
  "MSR trace replay (object per disk, split DFTL)" '.trace'

# bad input is refused with a message
if ! "$SIM" $TINY --workload nosuch >/dev/null 2>"$work/bad.err" \
   && grep -q "unknown workload" "$work/bad.err"; then
  tap_ok "unknown workload refused with a message"
else
  tap_not_ok "unknown workload refused with a message"
fi
tap_done
