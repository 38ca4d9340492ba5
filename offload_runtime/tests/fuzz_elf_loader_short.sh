#!/usr/bin/env bash
# fuzz_elf_loader_short.sh - short libFuzzer run (about 20 s) of the ELF
# kernel loader under ASan + UBSan, seeded with the example kernels, as a
# TAP suite for `make test`.  The long run is `make fuzz`.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
bin=$top/build/fuzz/rt_fuzz_elf_loader
secs=${OSSD_FUZZ_SHORT_SECONDS:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ ! -x "$bin" ]; then
  tap_not_ok "ELF loader fuzzer ${secs}s run" "missing $bin (make $bin)"
  tap_done; exit
fi
mkdir -p "$work/corpus"
cp "$top"/build/examples/*.o "$work/corpus"/ 2>/dev/null
if out=$(cd "$work" && "$bin" -max_total_time="$secs" -max_len=16384 -rss_limit_mb=2048 \
           -print_final_stats=1 "$work/corpus" 2>&1); then
  tap_ok "ELF loader fuzzer ${secs}s under ASan+UBSan: no crash ($(echo "$out" | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$') runs)"
else
  tap_not_ok "ELF loader fuzzer ${secs}s under ASan+UBSan" "$(echo "$out" | grep -E 'ERROR|SUMMARY|runtime error|abort' | head -5 | tr '\n' ' ')"
  echo "$out" | tail -40 | sed 's/^/# /'
fi
tap_done
