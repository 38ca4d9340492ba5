#!/usr/bin/env bash
# fuzz_verifier_short.sh - the verifier fuzzer's custom mutator driven
# directly under ASan, then a short fuzz run of the verifier and the
# interpreter (tests/harness/fuzz-short.bash).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/harness/fuzz-short.bash"
mutator=$top/build/fuzz/rt_fuzz_mutator_bounds
if out=$("$mutator" 2>&1); then
  tap_ok "custom mutator under ASan: $out"
else
  tap_not_ok "custom mutator under ASan stays inside its buffer" "$(echo "$out" | grep -E 'ERROR|SUMMARY|seed' | head -3 | tr '\n' ' ')"
fi
fuzz_short "verifier" "$top/build/fuzz/rt_fuzz_verifier" 2048
tap_done
