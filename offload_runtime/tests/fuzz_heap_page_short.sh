#!/usr/bin/env bash
# fuzz_heap_page_short.sh - short libFuzzer run (about 20 s) of the heap
# page scan engine (page check, deform, ossd_scan_run) on arbitrary 8 KiB
# pages under ASan + UBSan, as a TAP suite for `make test`.  The harness
# builds valid pages itself (template mode), so no seeds are needed.  The
# long run is `make fuzz`.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
bin=$top/build/fuzz/rt_fuzz_heap_page
secs=${OSSD_FUZZ_SHORT_SECONDS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -x "$bin" ]; then
  tap_not_ok "heap page fuzzer ${secs}s run" "missing $bin (make $bin)"
  tap_done; exit
fi
mkdir -p "$work/corpus"
if out=$(cd "$work" && "$bin" -max_total_time="$secs" -max_len=8300 -rss_limit_mb=2048 \
           -print_final_stats=1 "$work/corpus" 2>&1); then
  tap_ok "heap page fuzzer ${secs}s under ASan+UBSan: no crash ($(echo "$out" | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$') runs)"
else
  tap_not_ok "heap page fuzzer ${secs}s under ASan+UBSan" "$(echo "$out" | grep -E 'ERROR|SUMMARY|runtime error|abort|differ|cannot decode' | head -5 | tr '\n' ' ')"
  echo "$out" | tail -40 | sed 's/^/# /'
fi
tap_done
