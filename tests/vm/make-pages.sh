#!/usr/bin/env bash
# make-pages.sh - real PostgreSQL 15 heap pages for the guest's SCAN case:
# a private cluster in a temp dir (as postgres when run as root, Unix
# socket only), table t (a int4, b int8, c text) with 20000 rows, b = a*10,
# c = 'row ' || a, every 7th row deleted, VACUUM FREEZE, CHECKPOINT; then
#   build/vm/pages/pages.bin   its relation file
#   build/vm/pages/expect      PostgreSQL's "count:sum" of a where a % 3 = 0
#   build/vm/pages/xmin        the snapshot xmin to scan with
# Kept until this script changes (the cluster itself is removed).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/vm/pages
source "$top/tests/harness/pg-bin.bash"
if [ -s "$out/pages.bin" ] && [ -s "$out/expect" ] && [ "$out/pages.bin" -nt "$0" ]; then
  exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d /tmp/ossd-vm-pages.XXXXXX)
chmod 755 "$tmp"
[ "$(id -u)" -ne 0 ] || chown postgres "$tmp"
as_pg () { if [ "$(id -u)" -eq 0 ]; then (cd "$tmp" && runuser -u postgres -- "$@"); else "$@"; fi; }
port=$(( 20000 + RANDOM % 30000 ))
started=0
cleanup () {
  [ "$started" -eq 0 ] || as_pg "$pgbin/pg_ctl" -D "$tmp/data" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
as_pg "$pgbin/initdb" -D "$tmp/data" --no-locale -E UTF8 -A trust --no-sync >"$tmp/initdb.log" 2>&1 \
  || { tail -5 "$tmp/initdb.log" >&2; exit 1; }
as_pg "$pgbin/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
  -o "-c listen_addresses='' -c unix_socket_directories=$tmp -p $port -c autovacuum=off -c fsync=off" \
  start >/dev/null || { tail -5 "$tmp/server.log" >&2; exit 1; }
started=1
psql_ () { as_pg "$pgbin/psql" -h "$tmp" -p "$port" -d postgres -X -At -v ON_ERROR_STOP=1 -q "$@"; }
psql_ <<'EOF'
create table t (a int4, b int8, c text);
insert into t select g, g::int8 * 10, 'row ' || g from generate_series(1, 20000) g;
delete from t where a % 7 = 3;
vacuum freeze t;
checkpoint;
EOF
cp "$tmp/data/$(psql_ -c "select pg_relation_filepath('t')")" "$out/pages.bin.tmp"
psql_ -c "select count(*) || ':' || sum(a) from t where a % 3 = 0" >"$out/expect"
psql_ -c "select txid_snapshot_xmin(txid_current_snapshot()) % 4294967296" >"$out/xmin"
mv "$out/pages.bin.tmp" "$out/pages.bin"
echo "make-pages: $(( $(stat -c %s "$out/pages.bin") / 8192 )) pages, expect $(cat "$out/expect")"
