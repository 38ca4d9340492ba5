#!/usr/bin/env bash
# test-fusionraid.sh - quick TAP test of fusionraid-sim (make test): a tiny
# pool (7 drives, stripe 2+1, 2 RAID-5 groups) aged so GC runs, two
# generated workloads and a replayed MSR trace co-running, every policy in
# one run.  Structural checks only, never timing thresholds: every request
# generated completed without error for every policy, every policy and
# workload reported with the same requests, the drives' GC ran, FusionRAID
# wrote replicas and converted them, and conversion freed space (no
# replicas left once everything is converted, overhead below conversion
# off's); the CSV and CDF are well formed; bad options are refused.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
SIM=$top/build/bench/fusionraid/fusionraid-sim
GEN=$top/build/bench/ftl-sim/ftl-msr-gen
work=$(mktemp -d /tmp/fusionraid-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

ok_if "fusionraid-sim --help" "$SIM" --help
ok_if "bench/fusionraid/run --help" "$top/bench/fusionraid/run" --help

"$GEN" --records 600 --disks 1 --disk-size 16M --read-pct 40 --gap-us 500 \
  --out "$work/t.csv" 2>/dev/null
"$SIM" --no-progress --drives 7 --width 3 --groups 2 --drive-size 16M \
  --pre-max-x 1.5 --seconds 0.25 --warmup 0.05 \
  --workload ycsb-a:1500 --workload exchange:1500 --workload "msr:$work/t.csv:trace" \
  --policies fusionraid,fusionraid-noconv,fusionraid-nospike,raid5-groups,raid50 \
  --csv "$work/p.csv" --cdf "$work/c.csv" --json >"$work/o.json" 2>"$work/err"
rc=$?
if [ $rc -eq 0 ] && jq -e . "$work/o.json" >/dev/null 2>&1; then
  tap_ok "tiny run of every policy"
else
  tap_not_ok "tiny run of every policy" "rc=$rc $(tail -3 "$work/err")"
fi
# check "jq boolean" description "jq to show on failure"
check () {
  if jq -e "$1" "$work/o.json" >/dev/null 2>&1; then
    tap_ok "$2"
  else
    tap_not_ok "$2" "$(jq -c "$3" "$work/o.json" 2>/dev/null)"
  fi
}
check '[.policies[].policy] == ["fusionraid","fusionraid-noconv","fusionraid-nospike","raid5-groups","raid50"]' \
  "every policy reported, in order" '[.policies[].policy]'
check '[.policies[] | .workloads | map(.name)] | all(. == ["ycsb-a","exchange","trace"])' \
  "every workload reported for every policy" '[.policies[].workloads[].name]'
check 'all(.policies[]; all(.workloads[]; .generated > 0 and .completed == .generated) and .errors == 0 and .engine.done == (.engine.reads + .engine.writes))' \
  "every request generated completed, no errors" '[.policies[] | {policy, errors, w: [.workloads[] | [.generated, .completed]]}]'
check '(.policies[0].workloads | map(.generated)) as $g | all(.policies[]; (.workloads | map(.generated)) == $g)' \
  "every policy saw the same requests" '[.policies[] | [.workloads[].generated]]'
check 'all(.policies[]; .drives.gc_runs > 0)' \
  "aged drives: GC ran during the measured run" '[.policies[].drives]'
check '.policies[0].engine.replicated > 0 and .policies[0].engine.conversions > 0 and .policies[1].engine.conversions == 0' \
  "replicated writes converted (none with conversion off)" '[.policies[].engine]'
check '.policies[0].space_all_converted.replica_units == 0 and .policies[1].space_end.replica_units > 0 and .policies[0].space_all_converted.overhead < .policies[1].space_end.overhead' \
  "conversion frees space: no replicas left, overhead below conversion off's" '[.policies[0].space_all_converted, .policies[1].space_end]'
check '.policies[3].engine.rmw > 0 and .policies[3].engine.replicated == 0 and .policies[3].space_parity_overhead > 0' \
  "RAID-5 groups update parity in place" '.policies[3].engine'
if [ "$(head -1 "$work/p.csv")" = "policy,workload,requests,reads,writes,p50_us,p99_us,p999_us,mean_us,read_p50_us,read_p99_us,write_p50_us,write_p99_us" ] \
   && [ "$(grep -c , "$work/p.csv")" -eq $((1 + 5 * 4)) ] \
   && awk -F, 'NR > 1 && ($6 > $7 || $7 > $8) { bad = 1 } END { exit bad }' "$work/p.csv"; then
  tap_ok "percentile CSV: a row per policy and workload (and all), P50 <= P99 <= P99.9"
else
  tap_not_ok "percentile CSV" "$(head -3 "$work/p.csv")"
fi
if awk -F, 'NR > 1 { k = $1 "," $2; if ((k in last) && ($3 < lat[k] || $4 < last[k])) bad = 1; last[k] = $4; lat[k] = $3; n++ }
            END { exit bad || n == 0 }' "$work/c.csv"; then
  tap_ok "CDF points rise monotonically per policy and workload"
else
  tap_not_ok "CDF points rise monotonically"
fi
if "$SIM" --drives 28 --policies fusionraid --seconds 0.01 --no-progress >/dev/null 2>"$work/e2"; then
  tap_not_ok "a pool of 28 drives is refused for MOLS (not prime)"
elif grep -q prime "$work/e2"; then
  tap_ok "a pool of 28 drives is refused for MOLS (not prime)"
else
  tap_not_ok "the refusal names the reason" "$(cat "$work/e2")"
fi
if "$SIM" --workload bogus --no-progress >/dev/null 2>&1; then
  tap_not_ok "an unknown workload is refused"
else
  tap_ok "an unknown workload is refused"
fi
tap_done
