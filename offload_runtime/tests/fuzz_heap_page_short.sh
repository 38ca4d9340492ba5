#!/usr/bin/env bash
# fuzz_heap_page_short.sh - short fuzz run of the heap page scan engine
# (page check, deform, ossd_scan_run) on arbitrary 8 KiB pages; the harness
# builds valid pages itself (template mode), so no seeds are needed
# (tests/harness/fuzz-short.bash).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/harness/fuzz-short.bash"
fuzz_short "heap page" "$top/build/fuzz/rt_fuzz_heap_page" 8300
tap_done
