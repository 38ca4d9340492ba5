#!/usr/bin/env bash
# run-regress-array.sh - tests/pg/run-regress.sh, every suite with the same
# settings and expected outputs, with the tablespace on an array of three
# drives (odd: stripes line up with nothing by luck; issue 14,
# docs/arrays.md) and a stripe unit of 16 KiB (two heap blocks), so that
# even the suites' small tables straddle units and drives.  The one
# difference from one drive allowed is EXPLAIN ANALYZE's per-drive lines
# (tests/pg/regress-drop-drive-lines.pl).
export OSSD_ARRAY_DRIVES=${OSSD_ARRAY_DRIVES:-3}
export OSSD_ARRAY_UNIT=${OSSD_ARRAY_UNIT:-16384}
export PG_PORT=${PG_PORT:-5453}
exec "$(cd "$(dirname "$0")" && pwd)/run-regress.sh"
