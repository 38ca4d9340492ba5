#!/usr/bin/env bash
# pgpages_scan.sh - the heap scan engine on pages written by a real
# PostgreSQL 15.  Initdb's a private cluster in a temp dir (as `postgres`
# when run as root; Unix socket in the temp dir only, autovacuum off),
# builds tables with NULLs, every supported type, a dropped and two added
# columns, HOT updates, deletes, an aborted insert, TOAST values (compressed
# inline and external), VACUUM FREEZE, CHECKPOINT; then runs
# build/tests/rt_pgpages_driver over the relation files and compares
# filters, projections and aggregates with PostgreSQL's answers (psql -At,
# sorted, diff).  Rows the drive hands back are evaluated by PostgreSQL by
# TID, as pg_ossd would: device rows + host rows must equal the full answer;
# device aggregates must equal PostgreSQL's over the rows not handed back.
# A second table checks the MVCC rule on pages that are not frozen (held
# transaction via PREPARE TRANSACTION, deletes after the snapshot).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
drv=${PGPAGES_DRIVER:-$top/build/tests/rt_pgpages_driver}   # override: e.g. an ASan build
source "$top/tests/harness/pg-bin.bash"

if [ ! -x "$drv" ] || [ ! -x "$pgbin/initdb" ]; then
  tap_not_ok "prerequisites" "need $drv and $pgbin/initdb"
  tap_done; exit 1
fi

tmp=$(mktemp -d /tmp/pgpages.XXXXXX)
chmod 755 "$tmp"
as_pg () {
  # from $tmp: the checkout may be unreadable to postgres (0700)
  if [ "$(id -u)" -eq 0 ]; then (cd "$tmp" && runuser -u postgres -- "$@"); else "$@"; fi
}
[ "$(id -u)" -ne 0 ] || chown postgres "$tmp"
port=$(( 20000 + RANDOM % 30000 ))
started=0
cleanup () {
  if [ "$started" -eq 1 ]; then
    as_pg "$pgbin/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! as_pg "$pgbin/initdb" -D "$tmp/data" --no-locale -E UTF8 -A trust >"$tmp/initdb.log" 2>&1; then
  tap_not_ok "initdb" "$(tail -3 "$tmp/initdb.log")"; tap_done; exit 1
fi
if ! as_pg "$pgbin/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
     -o "-c listen_addresses='' -c unix_socket_directories=$tmp -p $port -c autovacuum=off -c fsync=off -c max_prepared_transactions=4" \
     start >/dev/null 2>&1; then
  tap_not_ok "server start" "$(tail -3 "$tmp/server.log")"; tap_done; exit 1
fi
started=1
tap_ok "private PostgreSQL 15 cluster started (socket $tmp/.s.PGSQL.$port)"

psql_ () { as_pg "$pgbin/psql" -h "$tmp" -p "$port" -d postgres -X -At -v ON_ERROR_STOP=1 -q "$@"; }

# ---------------------------------------------------------------- data --
cols="id, i2, i8, f4, f8, n, nn, tx, vc, bc, d, ts, b, big_c, big_e"
exprs="g, case when g%11=0 then null else (g%100)-50 end, g::int8*1000003,
  (g%40)*0.25, (g%1000)*0.5-100,
  case when g%13=0 then null when g=4998 then 'NaN' else round(g*1.125,3) end,
  case when g%3=0 then g::numeric else g::numeric/4 end,
  case when g%17=0 then null else 'tx'||(g%50) end, 'v'||g, chr(65+g%26),
  date '2000-01-01'+g, timestamp '2020-01-01' + g*interval '37 minutes 1.5 seconds',
  g%2=0, case when g%500=0 then repeat('x',5000) end,
  case when g%777=0 then (select string_agg(md5(g::text||i::text),'') from generate_series(1,100) i) end"
if ! psql_ >"$tmp/setup.log" 2>&1 <<EOF
create table t (id int4 primary key, i2 int2, i8 int8, dropme int4, f4 float4, f8 float8,
  n numeric(12,3), nn numeric, tx text, vc varchar(20), bc char(8), d date, ts timestamp,
  b bool, big_c text, big_e text) with (fillfactor = 70);
alter table t alter column big_c set storage main;
alter table t alter column big_e set storage external;
insert into t ($cols, dropme) select $exprs, g from generate_series(1, 4000) g;
alter table t drop column dropme;
alter table t add column added int4 default 42;
alter table t add column added_t text default 'dflt';
insert into t ($cols, added, added_t)
  select $exprs, g%5, case when g%2=0 then null else 'new' end from generate_series(4001, 5000) g;
update t set f8 = f8 + 1 where id % 10 = 3;
update t set f4 = f4 + 1 where id % 20 = 3;
delete from t where id % 9 = 4;
begin; insert into t (id) values (100000); rollback;
vacuum freeze t;
checkpoint;
EOF
then
  tap_not_ok "create and fill table t" "$(tail -5 "$tmp/setup.log")"; tap_done; exit 1
fi
tap_ok "table t: 5000 rows, dropped/added columns, HOT updates, deletes, TOAST, VACUUM FREEZE"

relattrs () {
  psql_ -c "select format('%s:%s:%s:%s:%s:%s', attlen, attalign, attbyval::int, atttypid::int,
              attisdropped::int, coalesce(case when atthasmissing then attmissingval::text end, '-'))
            from pg_attribute where attrelid = '$1'::regclass and attnum > 0 order by attnum"
}
relfile () { echo "$tmp/data/$(psql_ -c "select pg_relation_filepath('$1')")"; }
snapxmin () { psql_ -c "select txid_snapshot_xmin(txid_current_snapshot()) % 4294967296"; }

common=()
while IFS= read -r a; do common+=(--attr "$a"); done < <(relattrs t)
tfile=$(relfile t)
common+=(--file "$tfile" --xmin "$(snapxmin)")

# -------------------------------------------------------------- checks --
# Replace @X@ in SQL by a predicate.
sqlx () { local s=$1; echo "${s//@X@/$2}"; }
tidarray () { # host TIDs (lines "(b,o)") -> '{"(b,o)",...}'::tid[]
  local list; list=$(sed 's/.*/"&"/' | paste -sd, -)
  echo "'{$list}'::tid[]"
}

# rows NAME SQL [EXPECTED_HOST_SQL] -- driver args...
rows () {
  local name=$1 sql=$2 hsql=$3; shift 3
  local out
  if ! out=$("$drv" "${common[@]}" --workers 2 "$@" 2>"$tmp/drv.err"); then
    tap_not_ok "$name" "driver: $(cat "$tmp/drv.err")"; return
  fi
  grep -v '^HOST' <<<"$out" | sed '/^$/d' | LC_ALL=C sort >"$tmp/dev"
  grep '^HOST|' <<<"$out" | cut -d'|' -f2 | LC_ALL=C sort >"$tmp/hosts"
  if grep -q '^HOSTBLOCK' <<<"$out"; then
    tap_not_ok "$name" "blocks handed back: $(grep '^HOSTBLOCK' <<<"$out" | head -3 | tr '\n' ' ')"; return
  fi
  if [ -s "$tmp/hosts" ]; then
    psql_ -c "$(sqlx "$sql" "ctid = any($(tidarray <"$tmp/hosts"))")" | sed '/^$/d' >>"$tmp/dev"
    LC_ALL=C sort -o "$tmp/dev" "$tmp/dev"
  fi
  psql_ -c "$(sqlx "$sql" true)" | sed '/^$/d' | LC_ALL=C sort >"$tmp/pg"
  if [ -n "$hsql" ]; then
    psql_ -c "$hsql" | LC_ALL=C sort >"$tmp/hexp"
    if ! diff -q "$tmp/hosts" "$tmp/hexp" >/dev/null; then
      tap_not_ok "$name" "handed-back rows differ: got $(wc -l <"$tmp/hosts"), want $(wc -l <"$tmp/hexp")"; return
    fi
  fi
  if [ ! -s "$tmp/pg" ]; then
    tap_not_ok "$name" "PostgreSQL returned no rows (test is vacuous)"; return
  fi
  if diff "$tmp/dev" "$tmp/pg" >"$tmp/diff"; then
    tap_ok "$name ($(wc -l <"$tmp/pg") rows, $(wc -l <"$tmp/hosts") via host)"
  else
    tap_not_ok "$name" "$(head -6 "$tmp/diff" | tr '\n' ' ')"
  fi
}

# aggs NAME SQL [EXPECTED_HOST_SQL|-any] -- driver args...
# SQL's @X@ becomes "the rows the drive did not hand back".
aggs () {
  local name=$1 sql=$2 hsql=$3; shift 3
  local out
  if ! out=$("$drv" "${common[@]}" "$@" 2>"$tmp/drv.err"); then
    tap_not_ok "$name" "driver: $(cat "$tmp/drv.err")"; return
  fi
  grep -v '^HOST' <<<"$out" | LC_ALL=C sort >"$tmp/dev"
  grep '^HOST|' <<<"$out" | cut -d'|' -f2 | LC_ALL=C sort >"$tmp/hosts"
  local pred=true
  [ ! -s "$tmp/hosts" ] || pred="not (ctid = any($(tidarray <"$tmp/hosts")))"
  psql_ -c "$(sqlx "$sql" "$pred")" | LC_ALL=C sort >"$tmp/pg"
  if [ "$hsql" = "-any" ]; then
    if [ ! -s "$tmp/hosts" ]; then
      tap_not_ok "$name" "expected rows handed back to the host, got none"; return
    fi
  elif [ -n "$hsql" ]; then
    psql_ -c "$hsql" | LC_ALL=C sort >"$tmp/hexp"
    if ! diff -q "$tmp/hosts" "$tmp/hexp" >/dev/null; then
      tap_not_ok "$name" "handed-back rows differ: got $(wc -l <"$tmp/hosts"), want $(wc -l <"$tmp/hexp")"; return
    fi
  elif [ -s "$tmp/hosts" ]; then
    tap_not_ok "$name" "unexpected host rows: $(head -3 "$tmp/hosts" | tr '\n' ' ')"; return
  fi
  if diff "$tmp/dev" "$tmp/pg" >"$tmp/diff"; then
    tap_ok "$name ($(wc -l <"$tmp/pg") groups, $(wc -l <"$tmp/hosts") rows via host)"
    echo "# first group: $(head -1 "$tmp/pg" | cut -c1-300)"
  else
    tap_not_ok "$name" "$(head -6 "$tmp/diff" | tr '\n' ' ')"
  fi
}

# attnums: 1 id 2 i2 3 i8 4 (dropped) 5 f4 6 f8 7 n 8 nn 9 tx 10 vc 11 bc
#          12 d 13 ts 14 b 15 big_c 16 big_e 17 added 18 added_t
stats=$("$drv" --lpstats --file "$tfile")
if [[ $stats =~ redirect=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] \
   && [[ $stats =~ heap_only=([1-9][0-9]*) ]] && [[ $stats =~ bad=0 ]]; then
  tap_ok "pages parse; HOT chains left redirects and heap-only tuples ($stats)"
else
  tap_not_ok "line pointer kinds" "$stats"
fi

allcols="id,i2,i8,f4,f8,n,nn,tx,vc,bc,d,ts,b,added,added_t"
rows "filter int2 + not null, project every type" \
  "select $allcols from t where i2 > 10 and tx is not null and @X@" "" \
  --filter 2:gt:10 --filter 9:notnull --project 1,2,3,5,6,7,8,9,10,11,12,13,14,17,18
"$drv" "${common[@]}" --workers 1 --filter 2:gt:10 --filter 9:notnull \
  --project 1,2,3,5,6,7,8,9,10,11,12,13,14,17,18 2>/dev/null | LC_ALL=C sort >"$tmp/w1"
"$drv" "${common[@]}" --workers 2 --filter 2:gt:10 --filter 9:notnull \
  --project 1,2,3,5,6,7,8,9,10,11,12,13,14,17,18 2>/dev/null | LC_ALL=C sort >"$tmp/w2"
if [ -s "$tmp/w1" ] && diff -q "$tmp/w1" "$tmp/w2" >/dev/null; then
  tap_ok "1 and 2 worker threads give the same rows"
else
  tap_not_ok "1 and 2 worker threads give the same rows"
fi
rows "filter numeric >= (NaN row handed back)" \
  "select id, n from t where n >= 1000.5 and @X@" "select ctid from t where n = 'NaN'" \
  --filter 7:ge:1000.5 --project 1,7
rows "filter text =, project varchar" \
  "select id, vc from t where tx = 'tx7' and @X@" "" --filter 9:eq:tx7 --project 1,10
rows "filter date < and timestamp >=" \
  "select id, d, ts from t where d < '2005-06-01' and ts >= '2020-02-01 00:00:00' and @X@" "" \
  --filter "12:lt:2005-06-01" --filter "13:ge:2020-02-01 00:00:00" --project 1,12,13
rows "filter bpchar =" "select id, bc from t where bc = 'C' and @X@" "" \
  --filter 11:eq:C --project 1,11
rows "filter float8 and float4" \
  "select id, f4, f8 from t where f8 < -50 and f4 >= 5 and @X@" "" \
  --filter 6:lt:-50 --filter 5:ge:5 --project 1,5,6
rows "filter bool, project numeric without typmod" \
  "select id, b, nn from t where b = true and id <= 300 and @X@" "" \
  --filter 14:eq:t --filter 1:le:300 --project 1,14,8
rows "compressed inline value referenced by the filter goes to the host" \
  "select id from t where big_c is not null and @X@" "select ctid from t where big_c is not null" \
  --filter 15:notnull --project 1
rows "external TOAST value in the projection goes to the host" \
  "select id, big_e from t where id >= 3000 and @X@" \
  "select ctid from t where id >= 3000 and big_e is not null" --filter 1:ge:3000 --project 1,16
rows "added columns: missing values for old tuples" \
  "select id, added, added_t from t where added = 42 and @X@" "" --filter 17:eq:42 --project 1,17,18
rows "added columns: stored values for new tuples" \
  "select id, added, added_t from t where added < 42 and @X@" "" --filter 17:lt:42 --project 1,17,18

out=$("$drv" "${common[@]}" --workers 2 --filter 2:gt:0 --project 1,2 --limit 10 2>/dev/null)
psql_ -c "select id, i2 from t where i2 > 0" | LC_ALL=C sort >"$tmp/pg"
n=$(grep -c . <<<"$out")
if [ "$n" -eq 10 ] && [ -z "$(LC_ALL=C sort <<<"$out" | LC_ALL=C comm -23 - "$tmp/pg")" ]; then
  tap_ok "limit 10 with 2 workers: exactly 10 rows, all in PostgreSQL's answer"
else
  tap_not_ok "limit 10" "got $n rows"
fi

aggs "count/sum/avg/min/max over ints, floats, date, timestamp, text, varchar, bpchar" \
  "select count(*), count(i2), sum(i2), sum(id), sum(i8), round(avg(i2), 6), min(i2), max(i8),
          min(f8), max(f4), sum(f4), sum(f8), min(d), max(ts), min(tx), max(vc), min(bc), max(bc),
          round(avg(id), 6) from t where @X@" "" \
  --project 1,2,3,5,6,12,13,9,10,11 \
  --agg count*,count:1,sum:1,sum:0,sum:2,avg:1,min:1,max:2,min:4,max:3,sum:3,sum:4,min:5,max:6,min:7,max:8,min:9,max:9,avg:0 \
  --workers 2
aggs "numeric sum/min/max/avg exactly (mixed scales; NaN row to host)" \
  "select sum(n), sum(nn), min(n), max(nn), round(avg(nn), 6), count(n), max(n), min(nn)
     from t where @X@" "select ctid from t where n = 'NaN'" \
  --project 7,8 --agg sum:0,sum:1,min:0,max:1,avg:1,count:0,max:0,min:1 --workers 2
aggs "group by text (NULL group)" \
  "select tx, count(*), sum(id), min(d) from t where @X@ group by tx" "" \
  --project 9,1,12 --group 0 --agg count*,sum:1,min:2 --workers 2
aggs "group by bool, bpchar" \
  "select b, bc, count(*), sum(i8), max(f8) from t where @X@ group by b, bc" "" \
  --project 14,11,3,6 --group 0,1 --agg count*,sum:2,max:3 --workers 2
aggs "group table full (max 20 groups): the table is sent and begun again, no row goes to the host" \
  "select i2, count(*), sum(id), max(id) from t where @X@ group by i2" "" \
  --project 2,1 --group 0 --agg count*,sum:1,max:1 --max-groups 20 --workers 1
aggs "filter + aggregate" \
  "select sum(i2), count(*) from t where ts < '2020-03-01' and @X@" "" \
  --filter "13:lt:2020-03-01" --project 2,1 --agg sum:0,count* --workers 2
aggs "map kernel (id * i2) feeding sum and count" \
  "select sum(id::int8 * i2), count(id::int8 * i2) from t where @X@" "" \
  --map i8mul:1:2 --agg sum:0,count:0 --workers 2
aggs "group by an added column with missing values" \
  "select added_t, count(*), sum(added) from t where @X@ group by added_t" "" \
  --project 17,18 --group 1 --agg count*,sum:0 --workers 2

# A corrupt block is handed back whole; the rest still adds up.
cp "$tfile" "$tmp/corrupt"
printf '\x00\x10' | dd of="$tmp/corrupt" bs=1 seek=$((3 * 8192 + 18)) conv=notrunc status=none
cargs=()
for ((i = 0; i < ${#common[@]}; i++)); do
  if [ "${common[$i]}" = --file ]; then cargs+=(--file "$tmp/corrupt"); i=$((i + 1)); else cargs+=("${common[$i]}"); fi
done
out=$("$drv" "${cargs[@]}" --project 1 --agg count*,sum:0 --workers 2 2>&1)
want=$(psql_ -c "select count(*), sum(id) from t where (ctid::text::point)[0] <> 3")
if grep -q '^HOSTBLOCK|3|2$' <<<"$out" && grep -qx "$want" <<<"$out"; then
  tap_ok "corrupt page header: block 3 handed back, other blocks still scanned"
else
  tap_not_ok "corrupt page header" "$(tr '\n' ' ' <<<"$out") want $want"
fi

# ------------------------------------------- MVCC on pages not frozen --
if ! psql_ >"$tmp/setup2.log" 2>&1 <<'EOF'
create table t2 (id int4, v int4, s text);
insert into t2 select g, g%10, 's'||g from generate_series(1, 3000) g;
vacuum freeze t2;
insert into t2 select g, g%10, 's'||g from generate_series(3001, 4000) g;
begin; insert into t2 values (-1, -1, 'in progress'); prepare transaction 'hold';
insert into t2 select g, g%10, 's'||g from generate_series(4001, 4500) g;
checkpoint;
EOF
then
  tap_not_ok "create table t2" "$(tail -5 "$tmp/setup2.log")"; tap_done; exit 1
fi
x=$(snapxmin)
common=()
while IFS= read -r a; do common+=(--attr "$a"); done < <(relattrs t2)
common+=(--file "$(relfile t2)" --xmin "$x")
q2="select count(*), sum(v), sum(id), min(s), max(id) from t2 where xmin::text::bigint < $x and @X@"
aggs "unfrozen pages: xmin before the snapshot's xmin ($x) counts, later and in-progress not" \
  "$q2" "" --project 2,1,3 --agg count*,sum:0,sum:1,min:2,max:1 --workers 2
before=$(psql_ -c "$(sqlx "$q2" true)")
[ "${before%%|*}" = 4000 ] && tap_ok "snapshot excludes the 500 later rows and the prepared one" \
  || tap_not_ok "snapshot excludes later rows" "count ${before%%|*}"
psql_ -c "delete from t2 where id % 4 = 0; checkpoint;"
after=$("$drv" "${common[@]}" --project 2,1,3 --agg count*,sum:0,sum:1,min:2,max:1 2>/dev/null)
now=$(psql_ -c "select count(*) from t2 where xmin::text::bigint < $x")
if [ "$after" = "$before" ] && [ "$now" -lt 4000 ]; then
  tap_ok "rows deleted after the snapshot stay in (xmax ignored): $after"
else
  tap_not_ok "rows deleted after the snapshot stay in" "drive '$after' want '$before' (PostgreSQL now $now)"
fi
psql_ -c "rollback prepared 'hold'" >/dev/null 2>&1

tap_done
