# scaleout-lib.bash - scale-out beyond one host on PostgreSQL's own engine
# (docs/arrays.md "Scale-out"): data clusters, each on its own array of
# drives with pg_ossd, and a coordinator whose lineitem is partitioned
# (LIST on l_returnflag) into postgres_fdw foreign tables, one per data
# cluster.  Used by bench/scaleout/run and tests/pg/run-scaleout.sh.
# Source after tests/pg/pg-env.bash.
#
#   so_data_up NAME PORT NDRIVES SIZE UNIT
#                        a data cluster on NDRIVES drives (pgenv_up_array),
#                        kept as NAME (pgenv_keep); so_sock[NAME],
#                        so_port[NAME] its socket directory and port
#   so_lineitem_ddl      the column list of lineitem (bench/tpch/schema.sql)
#   so_load_lineitem SF SEED WHERE [DB]
#                        into database DB (postgres) of the current
#                        cluster: lineitem on tablespace "ossd" if there
#                        is one, COPY of the rows of
#                        build/bench/tpch-dbgen that satisfy WHERE (an SQL
#                        condition, "true" for all); VACUUM (FREEZE,
#                        ANALYZE), CHECKPOINT
#   so_coordinator_fdw DB FETCH_SIZE
#                        in database DB of the current cluster:
#                        postgres_fdw, one server per data cluster
#                        (async_capable, fetch_size), user mappings over
#                        Unix sockets, the partitioned lineitem with a
#                        foreign partition per data cluster, ANALYZE
#   so_query N           the text of TPC-H query N (bench/tpch/queries)
#
# The partitioning: PostgreSQL 15's postgres_fdw pushes an aggregate to a
# foreign partition only when the aggregation is complete there
# (partitionwise aggregate with the partition key in GROUP BY); it never
# pushes a partial aggregate (postgresGetForeignUpperPaths ignores
# UPPERREL_PARTIAL_GROUP_AGG).  LIST on l_returnflag makes Q1's GROUP BY
# l_returnflag, l_linestatus complete per partition, and 'A' + 'R' (rows
# received by mid-1995) hold about as many rows as 'N'.
so_names=(data1 data2)
declare -A so_values=([data1]="'A', 'R'" [data2]="'N'")
declare -A so_part=([data1]=lineitem_ar [data2]=lineitem_n)
declare -A so_sock=() so_port=()
dbgen=$top/build/bench/tpch-dbgen

so_data_up () {
  local name=$1
  pg_port=$2
  pgenv_up_array "so-$name" "$3" "$4" "$5" || return 1
  pgenv_keep "$name"
  so_sock[$name]=$work/pgsock
  so_port[$name]=$pg_port
}

so_lineitem_ddl () {
  sed -n '/^CREATE TABLE lineitem (/,/^);/p' "$top/bench/tpch/schema.sql" | sed '1d;$d'
}

so_load_lineitem () {
  local sf=$1 seed=$2 where=$3 db=${4:-postgres} spc=
  [ -n "$(psql_q -c "SELECT 1 FROM pg_tablespace WHERE spcname = 'ossd'")" ] && spc="TABLESPACE ossd"
  psql_q -d "$db" -c "CREATE TABLE lineitem ($(so_lineitem_ddl)) $spc" || return 1
  "$dbgen" --sf "$sf" --seed "$seed" --table lineitem --quiet |
    psql_q -d "$db" -c "COPY lineitem FROM STDIN WHERE $where"
  local rc=("${PIPESTATUS[@]}")
  [ "${rc[0]}" = 0 ] && [ "${rc[1]}" = 0 ] || { echo "so_load_lineitem: generator ${rc[0]}, psql ${rc[1]}" >&2; return 1; }
  psql_q -d "$db" -c "VACUUM (FREEZE, ANALYZE) lineitem" -c "CHECKPOINT"
}

so_coordinator_fdw () {
  local db=$1 fetch=$2 name
  {
    echo "CREATE EXTENSION postgres_fdw;"
    echo "CREATE TABLE lineitem ($(so_lineitem_ddl)) PARTITION BY LIST (l_returnflag);"
    for name in "${so_names[@]}"; do
      cat <<SQL
CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '${so_sock[$name]}', port '${so_port[$name]}', dbname 'postgres',
           async_capable 'true', fetch_size '$fetch');
CREATE USER MAPPING FOR postgres SERVER $name OPTIONS (user 'postgres');
CREATE FOREIGN TABLE ${so_part[$name]} PARTITION OF lineitem
  FOR VALUES IN (${so_values[$name]}) SERVER $name OPTIONS (table_name 'lineitem');
SQL
    done
    echo "ANALYZE lineitem;"
    echo "ALTER DATABASE $db SET enable_partitionwise_aggregate = on;"
    echo "ALTER DATABASE $db SET enable_async_append = on;"
  } | psql_q -d "$db"
}

so_query () {
  grep -v '^--' "$top/bench/tpch/queries/$(printf 'q%02d.sql' "$1")"
}
