#!/usr/bin/env bash
# test-sofs.sh - quick TAP test of the SOFS layout pieces (make test):
# ftl-sim --workload sofs on small cases (structure of the CSV: four
# layouts per case, the same reads in each, rewrites only where a plan was
# applied, the bound's own ratio 1, NAND reads counted), an MSR-format
# trace replayed whole, bad cases refused; the profiler overhead bench
# recording exactly the reads it made with the profiler on; ossdctl profile
# on an emulated drive (reads of ossdctl get profiled, apply relocates in
# the background, bytes unchanged, fsck clean) and on an in-process drive.
# No timing thresholds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
SIM=$top/build/bench/ftl-sim/ftl-sim
GEN=$top/build/bench/ftl-sim/ftl-msr-gen
OVH=$top/build/bench/bench_profile_overhead
CTL=$top/build/ossdctl
work=$(mktemp -d /tmp/sofs-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
GEO="--capacity 512M --channels 4 --ways 2 --pages-per-block 64 --no-progress"

ok_if "bench/sofs/run --help" "$top/bench/sofs/run" --help
ok_if "bench_profile_overhead --help" "$OVH" --help

"$GEN" --records 3000 --disks 2 --disk-size 16M --read-pct 60 --seq 0.4 --seed 5 \
  --out "$work/t.csv"
nreads=$(grep -c ',Read,' "$work/t.csv")
if "$SIM" $GEO --workload sofs --sofs-case "logscan,pgupdate,startup,msr:$work/t.csv" \
     --sofs-scale 0.1 --sofs-csv "$work/s.csv" --json >"$work/s.json" 2>"$work/s.err"; then
  tap_ok "ftl-sim --workload sofs runs four cases"
else
  tap_not_ok "ftl-sim --workload sofs runs four cases" "$(tail -3 "$work/s.err")"
fi
hdr="case,layout,reads,read_mib,replay_ms,saturated_ms,mbps_qd1,mbps_saturated,nand_reads,nand_reads_per_read,speedup_vs_before,replay_vs_sequential"
if [ "$(head -1 "$work/s.csv" | cut -d, -f1-12)" = "$hdr" ]; then
  tap_ok "CSV header"
else
  tap_not_ok "CSV header" "$(head -1 "$work/s.csv")"
fi
# per case: layouts before, sofs, chain, sequential in that order
layouts=$(awk -F, 'NR > 1 { l[$1] = l[$1] $2 " " } END { for (c in l) print c ": " l[c] }' "$work/s.csv" | sort)
want=$(printf '%s\n' "logscan: before sofs chain sequential " "pgupdate: before sofs chain sequential " \
  "startup: before sofs chain sequential " "t: before sofs chain sequential " | sort)
if [ "$layouts" = "$want" ]; then
  tap_ok "four layouts per case, in order"
else
  tap_not_ok "four layouts per case, in order" "$(echo "$layouts" | tr '\n' ';')"
fi
if awk -F, 'NR > 1 { if (!($1 in n)) n[$1] = $3; else if (n[$1] != $3) bad = 1
                     if ($3 <= 0 || $9 <= 0 || $10 <= 0 || $5 <= 0) bad = 1 }
            END { exit bad }' "$work/s.csv"; then
  tap_ok "every layout replays the same reads, each costs NAND reads and time"
else
  tap_not_ok "every layout replays the same reads, each costs NAND reads and time"
fi
if awk -F, 'NR > 1 { planner = ($2 == "sofs" || $2 == "chain")
                     if (planner && $13 <= 0) bad = 1
                     if (!planner && ($13 != 0 || $17 != 0)) bad = 1
                     if ($2 == "sequential" && $12 != "1.0000") bad = 1
                     if ($2 == "before" && $11 != "1.0000") bad = 1 }
            END { exit bad }' "$work/s.csv"; then
  tap_ok "rewrites only after a plan; the bound's ratio 1, before's speedup 1"
else
  tap_not_ok "rewrites only after a plan; the bound's ratio 1, before's speedup 1"
fi
if awk -F, -v n="$nreads" '$1 == "t" && $3 != n { bad = 1 } END { exit bad }' "$work/s.csv"; then
  tap_ok "MSR trace: all $nreads reads replayed in every layout"
else
  tap_not_ok "MSR trace: all $nreads reads replayed in every layout"
fi
if [ "$(jq -s 'length' "$work/s.json" 2>/dev/null)" = 16 ] \
   && jq -s -e 'all(.[]; .profile.reads > 0 and .profile.transitions > 0)' "$work/s.json" >/dev/null; then
  tap_ok "--json: one line per layout, profile counters filled"
else
  tap_not_ok "--json: one line per layout, profile counters filled"
fi
if ! "$SIM" $GEO --workload sofs --sofs-case nosuch >/dev/null 2>"$work/bad.err" \
   && grep -q "unknown SOFS case" "$work/bad.err"; then
  tap_ok "unknown case refused with a message"
else
  tap_not_ok "unknown case refused with a message"
fi

# the overhead bench records exactly its profiled scans' reads
if "$OVH" --mib 2 --chunk 16384 --rounds 2 >"$work/o.json" 2>/dev/null \
   && jq -e '.reads_recorded == .reads_per_scan * .rounds and .recorder_ns > 0' "$work/o.json" >/dev/null; then
  tap_ok "bench_profile_overhead: recorded reads = profiled scans' reads"
else
  tap_not_ok "bench_profile_overhead: recorded reads = profiled scans' reads" "$(cat "$work/o.json")"
fi

# the whole loop on an emulated drive (nbdkit on a Unix socket): reads
# through ossdctl get are profiled, profile apply relocates the object in
# the background, its bytes stay
export OSSD_RUNDIR=$work/run
export OSSD_DEVICE="nbd+unix:///?socket=$OSSD_RUNDIR/ossd.sock"
stop_drive () {
  "$CTL" device stop --force >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
}
trap 'stop_drive; rm -rf "$work"' EXIT
if "$CTL" device start --image "$work/drive.img" --size 256M --volume 16M >"$work/start.log" 2>&1; then
  tap_ok "drive starts"
  # 512 KiB written scattered: its 8 KiB units out of order, another
  # object's 4 KiB between them (a layout the planner can improve; one
  # written in order is already laid out as any plan would put it)
  head -c 524288 /dev/urandom >"$work/obj"
  head -c 4096 /dev/urandom >"$work/small"
  "$CTL" partition create 4 >/dev/null 2>&1
  for k in $(seq 0 63); do
    u=$(( k * 37 % 64 ))
    dd if="$work/obj" of="$work/piece" bs=8192 skip=$u count=1 status=none
    "$CTL" put "$work/piece" 4:1 --offset $(( u * 8192 )) >/dev/null 2>&1
    "$CTL" put "$work/small" 4:2 --offset $(( k * 4096 )) >/dev/null 2>&1
  done
  "$CTL" profile reset >/dev/null 2>&1
  "$CTL" get 4:1 "$work/back1" >/dev/null 2>&1
  if "$CTL" --json profile show --reads 4 --edges 8 >"$work/p1.json" 2>&1 \
     && jq -e '.enabled and .counters.reads > 0 and .counters.read_bytes >= 524288 and (.edges | length) > 0 and (.reads | length) > 0 and .reads[0].oid == 1' "$work/p1.json" >/dev/null; then
    tap_ok "ossdctl get's reads are in the drive's profile"
  else
    tap_not_ok "ossdctl get's reads are in the drive's profile" "$(head -c 300 "$work/p1.json")"
  fi
  if "$CTL" --json profile apply --planner sofs 2>"$work/apply.err" | jq -e '.objects_planned >= 1 and .units_queued > 0' >/dev/null; then
    tap_ok "ossdctl profile apply --planner sofs queues a relocation"
  else
    tap_not_ok "ossdctl profile apply --planner sofs queues a relocation" "$(cat "$work/apply.err")"
  fi
  done=0
  for i in $(seq 1 50); do
    sleep 0.1
    d=$("$CTL" --json profile show --reads 0 --edges 1 2>/dev/null | jq -r '.counters.relocation_jobs_pending')
    [ "$d" = 0 ] && { done=1; break; }
  done
  "$CTL" get 4:1 "$work/back2" >/dev/null 2>&1
  if [ $done = 1 ] && cmp -s "$work/obj" "$work/back1" && cmp -s "$work/obj" "$work/back2" \
     && "$CTL" --json stats | jq -e '.relocated_sectors > 0' >/dev/null; then
    tap_ok "relocated in the background while idle; the object's bytes are unchanged"
  else
    tap_not_ok "relocated in the background while idle; the object's bytes are unchanged" "done=$done"
  fi
  if "$CTL" fsck >/dev/null 2>&1; then tap_ok "fsck clean after the relocation"; else tap_not_ok "fsck clean after the relocation"; fi
  moved=$("$CTL" --json stats | jq -r '.relocated_sectors')
  if "$CTL" --json profile apply --planner sofs 2>"$work/apply2.err" >"$work/apply2.json" \
     && jq -e '.objects_planned == 0 and .objects_skipped_already_applied >= 1' "$work/apply2.json" >/dev/null \
     && sleep 0.3 && [ "$("$CTL" --json stats | jq -r '.relocated_sectors')" = "$moved" ]; then
    tap_ok "profile apply a second time moves nothing (already applied)"
  else
    tap_not_ok "profile apply a second time moves nothing (already applied)" "$(cat "$work/apply2.json" "$work/apply2.err")"
  fi
  if "$CTL" --json profile auto on --idle-ms 60000 --min-gain 15 2>&1 \
       | jq -e '.counters.auto_enabled == 1 and .counters.auto_idle_ms == 60000 and .counters.auto_min_gain_pct == 15' >/dev/null \
     && "$CTL" --json profile show --reads 0 --edges 0 | jq -e '.counters.auto_enabled == 1 and .counters.auto_evaluations == 0' >/dev/null \
     && "$CTL" --json profile auto off | jq -e '.counters.auto_enabled == 0' >/dev/null; then
    tap_ok "ossdctl profile auto on / off set the drive's policy"
  else
    tap_not_ok "ossdctl profile auto on / off set the drive's policy"
  fi
  stop_drive
else
  tap_not_ok "drive starts" "$(tail -3 "$work/start.log")"
fi
unset OSSD_DEVICE OSSD_RUNDIR

# ossdctl profile on an in-process RAM drive
dev='inproc:ram:?create=1&size=256M'
if "$CTL" --device "$dev" --json profile show 2>/dev/null \
     | jq -e '.enabled == true and .unit_bytes == 8192 and .counters.reads == 0 and (.edges | length) == 0' >/dev/null; then
  tap_ok "ossdctl profile show --json on a fresh drive"
else
  tap_not_ok "ossdctl profile show --json on a fresh drive"
fi
if "$CTL" --device "$dev" --json profile off 2>/dev/null | jq -e '.enabled == false' >/dev/null; then
  tap_ok "ossdctl profile off"
else
  tap_not_ok "ossdctl profile off"
fi
"$CTL" profile bogus >/dev/null 2>&1
rc=$?
if [ $rc -eq 2 ]; then
  tap_ok "ossdctl profile: an unknown action is a usage error (exit 2)"
else
  tap_not_ok "ossdctl profile: an unknown action is a usage error (exit 2)" "exit $rc"
fi
tap_done
