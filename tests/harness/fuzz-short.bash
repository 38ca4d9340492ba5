# fuzz-short.bash - the short libFuzzer run each fuzzer has in `make test`
# (about 20 s, OSSD_FUZZ_SHORT_SECONDS; the long runs are `make fuzz`), as
# one TAP line.  Source after tests/harness/tap.sh with $top set.
#   fuzz_short LABEL BIN MAX_LEN [SEED_FILE...]
# ok when the fuzzer ends its run without a finding (ASan, UBSan or the
# harness's own checks); otherwise the finding's lines and the log's tail.
fuzz_short () {
  local label=$1 bin=$2 max_len=$3; shift 3
  local secs=${OSSD_FUZZ_SHORT_SECONDS:-20} work out runs
  if [ ! -x "$bin" ]; then
    tap_not_ok "$label fuzzer ${secs}s run" "missing $bin (make $bin)"
    return
  fi
  work=$(mktemp -d /tmp/ossd-fuzz-short.XXXXXX)
  mkdir -p "$work/corpus"
  [ $# -gt 0 ] && cp "$@" "$work/corpus"/ 2>/dev/null
  if out=$(cd "$work" && "$bin" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 \
             -print_final_stats=1 "$work/corpus" 2>&1); then
    runs=$(echo "$out" | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$')
    tap_ok "$label fuzzer ${secs}s under ASan+UBSan: no finding ($runs runs)"
  else
    tap_not_ok "$label fuzzer ${secs}s under ASan+UBSan" \
      "$(echo "$out" | grep -E 'ERROR|SUMMARY|runtime error|abort|differ|cannot decode|insn' | head -5 | tr '\n' ' ')"
    echo "$out" | tail -40 | sed 's/^/# /'
  fi
  rm -rf "$work"
}
