#!/usr/bin/env bash
# fuzz_verifier_short.sh - short libFuzzer run (about 20 s) of the verifier
# and interpreter under ASan + UBSan, as a TAP suite for `make test`.  The long run
# is `make fuzz`.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
bin=$top/build/fuzz/rt_fuzz_verifier
secs=${OSSD_FUZZ_SHORT_SECONDS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -x "$bin" ]; then
  tap_not_ok "verifier fuzzer ${secs}s run" "missing $bin (make $bin)"
  tap_done; exit
fi
mutator=$top/build/fuzz/rt_fuzz_mutator_bounds
if out=$("$mutator" 2>&1); then
  tap_ok "custom mutator under ASan: $out"
else
  tap_not_ok "custom mutator under ASan stays inside its buffer" "$(echo "$out" | grep -E 'ERROR|SUMMARY|seed' | head -3 | tr '\n' ' ')"
fi
mkdir -p "$work/corpus"
if out=$(cd "$work" && "$bin" -max_total_time="$secs" -max_len=2048 -rss_limit_mb=2048 \
           -print_final_stats=1 "$work/corpus" 2>&1); then
  tap_ok "verifier fuzzer ${secs}s under ASan+UBSan: no out-of-bounds access ($(echo "$out" | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$') runs)"
else
  tap_not_ok "verifier fuzzer ${secs}s under ASan+UBSan" "$(echo "$out" | grep -E 'ERROR|SUMMARY|abort|insn' | head -5 | tr '\n' ' ')"
fi
tap_done
