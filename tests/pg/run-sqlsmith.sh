#!/usr/bin/env bash
# run-sqlsmith.sh - TAP: a short sqlsmith run (bench/soak/sqlsmith, fixed
# seeds) against tables on the drive with offload forced: no server crash,
# no error that offload off does not also raise, no result difference on
# the deterministic rewrites compared, and the drive really scanned.  The
# long run (>= 10,000 queries) is bench/soak/sqlsmith's default, its result
# in bench/results/sqlsmith-10k.txt.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
out=$top/build/test-logs/sqlsmith
mkdir -p "$out"
queries=${SQLSMITH_QUERIES:-300}
if ! command -v sqlsmith >/dev/null; then
  tap_not_ok "sqlsmith installed (make deps)"; tap_done; exit 1
fi
"$top/bench/soak/sqlsmith" --queries "$queries" --chunk 150 --seed 1 \
  --out "$out/summary.txt" --json "$out/summary.json" --details "$out/details.txt" \
  >"$out/run.log" 2>&1
rc=$?
j=$out/summary.json
if [ ! -s "$j" ]; then
  tap_not_ok "bench/soak/sqlsmith ran (rc $rc)" "$(tail -5 "$out/run.log" | tr '\n' ' ')"; tap_done; exit 1
fi
jget () { sed -n "s/.*\"$1\": \([0-9a-z]*\).*/\1/p" "$j" | head -1; }
sed 's/^/# /' "$out/summary.txt" | grep -v '^#   [0-9]'
crashes=$(jget crashes) restarts=$(jget restarts) alive=$(jget postmaster_alive)
drive=$(jget drive_alive) fs=$(jget ossdfs_alive)
if [ "$crashes" = 0 ] && [ "$restarts" = 0 ] && [ "$alive" = true ] && [ "$drive" = true ] && [ "$fs" = true ]; then
  tap_ok "$queries sqlsmith queries, offload forced: 0 server crashes; postmaster, drive and ossdfs running"
else
  tap_not_ok "0 server crashes" "crashes $crashes, restarts $restarts, postmaster alive $alive, drive $drive, ossdfs $fs; $out/details.txt"
fi
e=$(jget errors_rerun) eo=$(jget errors_only_with_offload)
if [ "${e:-0}" -gt 0 ] && [ "$eo" = 0 ]; then
  tap_ok "each of $e errors also occurs with offload off (SQLSTATE and message)"
else
  tap_not_ok "errors only with offload: $eo of $e re-run" "$(grep -A3 '^=== ERROR ONLY' "$out/details.txt" | head -8 | tr '\n' ' ')"
fi
n=$(jget result_sets_compared) d=$(jget result_diffs)
s1=$(jget sample_error_only_with_offload) s2=$(jget sample_error_only_with_offload_off)
if [ "${n:-0}" -gt 0 ] && [ "$d" = 0 ] && [ "$s1" = 0 ] && [ "$s2" = 0 ]; then
  tap_ok "$n result sets compared with offload off: 0 differences"
else
  tap_not_ok "result sets compared: $n, differences $d, errors only forced $s1, only off $s2" \
    "$(grep -A3 '^=== RESULT\|^=== ERROR ONLY' "$out/details.txt" | head -8 | tr '\n' ' ')"
fi
scans=$(jget drive_scans_sqlsmith)
if [ "${scans:-0}" -gt 0 ]; then
  tap_ok "the drive ran $scans scans for sqlsmith's queries"
else
  tap_not_ok "the drive ran scans for sqlsmith's queries" "drive_scans_sqlsmith $scans"
fi
tap_done
