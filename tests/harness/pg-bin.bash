# pg-bin.bash - where the suites' PostgreSQL 15 lives: the system's, or the
# private copy named by OSSD_PG_ROOT (tests/harness/pg-private-root).
#   $pgbin       its server binaries (initdb, pg_ctl, postgres, psql)
#   $pg_config   its pg_config (pkglibdir, includedir-server of that copy)
pgbin=${OSSD_PG_ROOT:+$OSSD_PG_ROOT}/usr/lib/postgresql/15/bin
pg_config=$pgbin/pg_config
