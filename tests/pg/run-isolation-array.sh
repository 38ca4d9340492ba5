#!/usr/bin/env bash
# run-isolation-array.sh - tests/pg/run-isolation.sh, every spec with the
# same expected outputs, with the tablespace on an array of three drives
# (stripe unit 16 KiB, two heap blocks; docs/arrays.md).
export OSSD_ARRAY_DRIVES=${OSSD_ARRAY_DRIVES:-3}
export OSSD_ARRAY_UNIT=${OSSD_ARRAY_UNIT:-16384}
exec "$(cd "$(dirname "$0")" && pwd)/run-isolation.sh"
