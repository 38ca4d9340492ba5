#!/usr/bin/env bash
# run-regress-raid5.sh - tests/pg/run-regress.sh, with the same settings
# and expected outputs, with the tablespace on a RAID-5 array of three
# drives (rows of two data units and one parity unit, rotating:
# docs/arrays.md "Redundancy in ossdfs") and a stripe unit of 16 KiB, so
# that even the suites' small tables straddle units, rows and drives and
# every drive scans only the data units it holds, never parity.  As on
# RAID-0 (run-regress-array.sh), the one difference from one drive allowed
# is EXPLAIN ANALYZE's per-drive lines (tests/pg/regress-drop-drive-lines.pl).
# The suites whose answers depend on which blocks each drive scans (the
# differential file five ways, the planner file (its EXPLAIN ANALYZE
# shows each drive's blocks), aggregates, parallel chunks, the MVCC
# block split, index-named blocks, DML, rescans); the rest, which do not
# see the layout, run on RAID-0 (run-regress-array.sh) and one drive.
# OSSD_REGRESS_SUITES= (empty) runs them all, as RAID-0 does.
export OSSD_ARRAY_DRIVES=${OSSD_ARRAY_DRIVES:-3}
export OSSD_ARRAY_UNIT=${OSSD_ARRAY_UNIT:-16384}
export OSSD_ARRAY_LEVEL=raid5
export OSSD_REGRESS_SUITES=${OSSD_REGRESS_SUITES-ossd_diff ossd_planner ossd_aggregates ossd_parallel_chunks ossd_mvcc_blocks ossd_index_blocks ossd_dml ossd_rescans ossd_parallel_partitions}
export PG_PORT=${PG_PORT:-5454}
exec "$(cd "$(dirname "$0")" && pwd)/run-regress.sh"
