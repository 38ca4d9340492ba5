#!/usr/bin/env bash
# run-regress-raid5.sh - tests/pg/run-regress.sh, every suite with the same
# settings and expected outputs, with the tablespace on a RAID-5 array of
# three drives (rows of two data units and one parity unit, rotating:
# docs/arrays.md "Redundancy in ossdfs") and a stripe unit of 16 KiB, so
# that even the suites' small tables straddle units, rows and drives and
# every drive scans only the data units it holds, never parity.  As on
# RAID-0 (run-regress-array.sh), the one difference from one drive allowed
# is EXPLAIN ANALYZE's per-drive lines (tests/pg/regress-drop-drive-lines.pl).
export OSSD_ARRAY_DRIVES=${OSSD_ARRAY_DRIVES:-3}
export OSSD_ARRAY_UNIT=${OSSD_ARRAY_UNIT:-16384}
export OSSD_ARRAY_LEVEL=raid5
export PG_PORT=${PG_PORT:-5454}
exec "$(cd "$(dirname "$0")" && pwd)/run-regress.sh"
