#!/usr/bin/env bash
# fuzz_channel_short.sh - short fuzz run of the channel (framing,
# reassembly, protobuf, the dispatcher), seeded with proto/fuzz/seeds
# (tests/harness/fuzz-short.bash).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/harness/fuzz-short.bash"
fuzz_short "channel" "$top/build/fuzz/fuzz_channel" 8192 "$top"/proto/fuzz/seeds/*
tap_done
