#!/usr/bin/env bash
# A short run of the channel fuzzer (ASan + UBSan) inside `make test` (longer: make fuzz).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
fz=$top/build/fuzz/fuzz_channel
corpus=$(mktemp -d /tmp/ossd-fuzz-channel.XXXXXX)
trap 'rm -rf "$corpus"' EXIT
cp "$top"/proto/fuzz/seeds/* "$corpus"/ 2>/dev/null
secs=${OSSD_FUZZ_SHORT_SECONDS:-20}
if "$fz" -max_total_time="$secs" -max_len=8192 -print_final_stats=1 "$corpus" >"$corpus.log" 2>&1; then
  tap_ok "channel fuzzer: ${secs}s, $(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$corpus.log" | awk '{print $2}') inputs, no crash"
else
  tap_not_ok "channel fuzzer found a crash" "$(grep -m3 -E 'ERROR|SUMMARY' "$corpus.log" | tr '\n' ' ')"
  tail -40 "$corpus.log" | sed 's/^/# /'
fi
rm -f "$corpus.log"
tap_done
