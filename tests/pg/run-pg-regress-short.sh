#!/usr/bin/env bash
# run-pg-regress-short.sh - the short run of tests/pg/run-pg-regress.sh that
# `make test` runs: a few of PostgreSQL's regression files that cover
# scans, joins, aggregates, windows, cursors (limit, portals) and DML.  `make check-pg` runs
# them all.
exec "$(dirname "$0")/run-pg-regress.sh" select join aggregates window limit portals update
