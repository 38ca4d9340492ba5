#!/usr/bin/env bash
# fuzz_join_filter_short.sh - short fuzz run of join filters as the drive
# receives them (prepare, probe, a scan through the filter); the harness
# builds its page itself, so no seeds are needed (tests/harness/fuzz-short.bash).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/harness/fuzz-short.bash"
fuzz_short "join filter" "$top/build/fuzz/rt_fuzz_join_filter" 4096
tap_done
