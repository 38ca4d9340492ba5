#!/usr/bin/env bash
# fuzz_elf_loader_short.sh - short fuzz run of the ELF kernel loader,
# seeded with the example kernels (tests/harness/fuzz-short.bash).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
. "$top/tests/harness/fuzz-short.bash"
fuzz_short "ELF loader" "$top/build/fuzz/rt_fuzz_elf_loader" 16384 "$top"/build/examples/*.o
tap_done
