#!/usr/bin/env bash
# run-checksums.sh - integrity under PostgreSQL with data checksums (the
# cluster is initdb -k): a frozen, checkpointed table in the ossd
# tablespace, one page's bytes changed behind PostgreSQL's back (through the
# ossdfs mount while the cluster is down, so the drive stores them with a
# good NAND CRC): the offloaded query must fail with PostgreSQL's own
# "invalid page in block N of relation ..." (the drive hands the page to
# the host), never return rows.  Then single bits flipped in the drive's
# image under the same table's object: the offloaded scan fails naming the
# object and offset, the plain scan gets ossdfs' EIO; again no rows.
# Starts its own drive, ossdfs and cluster.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
source "$top/tests/harness/tap.sh"
PG_PORT=5447
source "$top/tests/pg/pg-env.bash"
if ! pgenv_up pg-checksums 2G; then
  tap_not_ok "drive, ossdfs and cluster up"; tap_done; exit 1
fi
tap_ok "drive, ossdfs and cluster up"
ck=$(psql_q -c "SHOW data_checksums")
[ "$ck" = on ] && tap_ok "the cluster has data checksums" || tap_not_ok "data checksums on" "$ck"
if psql_q -c "CREATE TABLE ck (id int4, v int4, pad text) TABLESPACE ossd" \
     -c "INSERT INTO ck SELECT i, i % 100, repeat('x', 80) FROM generate_series(1, 40000) i" \
     -c "CREATE TABLE ck2 TABLESPACE ossd AS SELECT * FROM ck" -c "VACUUM (FREEZE, ANALYZE) ck2" \
     -c "VACUUM (FREEZE, ANALYZE) ck" -c "CHECKPOINT" >"$work/load.log" 2>&1; then
  tap_ok "loaded, frozen and checkpointed a table"
else
  tap_not_ok "load" "$(tail -3 "$work/load.log")"
fi
q="SELECT count(*), sum(v), sum(id) FROM ck WHERE v < 50"
want=$(psql_q -c "SET ossd.enabled = off" -c "$q")
on=$(psql_q -c "SET ossd.force_offload = on" -c "$q")
[ -n "$on" ] && [ "$on" = "$want" ] && tap_ok "intact table: same answer offloaded and not ($on)" \
  || tap_not_ok "intact table: same answer" "on=$on off=$want"
ex=$(psql_q -c "SET ossd.force_offload = on" -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q")
case $ex in *"Blocks on Drive"*) tap_ok "the drive scans it (checksums verified there)" ;; *) tap_not_ok "offloaded" "$ex" ;; esac
# A table scanned again: its pages' checksums were verified by the first
# scan and are taken as known (the same bytes, named by their NAND
# program sequence: offload_runtime/checksum_cache.c); the rewrite below
# gives block 7 new bytes, which are verified again and fail.
known () { "$ctl" stats | awk '$1 == "scan_checksums_known" { print $2 }'; }
k0=$(known)
again=$(psql_q -c "SET ossd.force_offload = on" -c "$q")
k1=$(known)
pages=$(psql_q -c "SELECT relpages FROM pg_class WHERE relname = 'ck'")
[ "$again" = "$want" ] && [ -n "$k1" ] && [ $((k1 - k0)) -ge "$pages" ] \
  && tap_ok "scanned again: the $pages pages' checksums known from the first scan ($((k1 - k0)) taken as known), same answer" \
  || tap_not_ok "checksums known on a second scan" "answer $again, known $k0 -> $k1 of $pages pages"
relpath=$(psql_q -c "SELECT pg_relation_filepath('ck')")
seg=$pgdata/$relpath

# Change 4 bytes of tuple data in block 7 while the cluster is down.
pg_stop
printf 'XXXX' | dd of="$seg" bs=1 seek=$((7 * 8192 + 6000)) conv=notrunc status=none \
  && tap_ok "changed 4 bytes of block 7 of $relpath through ossdfs" \
  || tap_not_ok "changed block 7 through ossdfs"
pg_start || { tap_not_ok "cluster restarts"; tap_done; exit 1; }
out=$(psql_q -c "SET ossd.force_offload = on" -c "$q" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"invalid page in block 7 of relation"*) tap_ok "offloaded: PostgreSQL's own error: ${out##*ERROR:  }" ;;
  *) tap_not_ok "offloaded query reports the invalid page" "rc $rc: $out" ;;
esac
out=$(psql_q -c "SET ossd.enabled = off" -c "$q" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"invalid page in block 7 of relation"*) tap_ok "plain PostgreSQL says the same" ;;
  *) tap_not_ok "plain query reports the invalid page" "rc $rc: $out" ;;
esac

# Single bits flipped in the drive's image, in current pages of ck2's object
# (the newest copy of a sector per OOB sequence number).
q2="SELECT count(*), sum(v), sum(id) FROM ck2 WHERE v < 50"
seg2=$pgdata/$(psql_q -c "SELECT pg_relation_filepath('ck2')")
pid2=$(getfattr --only-values -n user.ossd.pid "$seg2" 2>/dev/null)
oid2=$(getfattr --only-values -n user.ossd.oid "$seg2" 2>/dev/null)
"$ctl" --json info >"$work/info.json" 2>&1
pg_stop && fs_umount && "$ctl" device stop >/dev/null \
  && tap_ok "cluster, ossdfs and drive stopped (ck2 is object $pid2:$oid2)" \
  || tap_not_ok "stop everything"
python3 - "$work/drive.img" "$work/info.json" "$pid2" "$oid2" >"$work/flips" 2>"$work/flips.err" <<'PY'
import json, random, struct, sys
img, info, pid, oid = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3]), int(sys.argv[4])
ps = info["page_size"]
pages = info["channels"] * info["ways"] * info["planes"] * info["blocks_per_plane"] * info["pages_per_block"]
spp = ps // 4096
oob_size = (32 + 40 * spp + 63) // 64 * 64
mib = 1 << 20
data_off = (mib + pages * oob_size + mib - 1) // mib * mib
newest = {}
with open(img, "r+b") as f:
    f.seek(mib)
    oob = f.read(pages * oob_size)
    for p in range(pages):
        h = oob[p * oob_size:(p + 1) * oob_size]
        magic, kind, nspp, seq = struct.unpack_from("<IHHQ", h, 0)
        if magic != 0x4f4f4231 or kind != 1 or nspp != spp:
            continue
        for s in range(spp):
            epid, eoid, _sz, _b, lpn, k = struct.unpack_from("<QQQQII", h, 32 + 40 * s)
            if epid == pid and eoid == oid and k in (1, 2) and seq > newest.get(lpn, (0, 0))[0]:
                newest[lpn] = (seq, p)
    for p in random.sample(sorted({p for _, p in newest.values()}), 3):
        at = data_off + p * ps + random.randrange(ps)
        f.seek(at)
        c = f.read(1)[0]
        f.seek(at)
        f.write(bytes([c ^ (1 << random.randrange(8))]))
        print(p)
PY
[ "$(wc -l <"$work/flips")" = 3 ] && tap_ok "flipped a bit in NAND pages $(tr '\n' ' ' <"$work/flips")of ck2" \
  || tap_not_ok "flip bits in ck2's pages" "$(cat "$work/flips.err")"
drive_restart >/dev/null && drive_open_for_postgres && fs_mount && pg_start \
  && tap_ok "drive, ossdfs and cluster back up" || { tap_not_ok "restart"; tap_done; exit 1; }
out=$(psql_q -c "SET ossd.force_offload = on" -c "$q2" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"data CRC mismatch in object $pid2:$oid2 at offset"*) tap_ok "offloaded: the scan fails naming object and offset" ;;
  *) tap_not_ok "offloaded query fails with the drive's reason" "rc $rc: $out" ;;
esac
out=$(psql_q -c "SET ossd.enabled = off" -c "$q2" 2>&1); rc=$?
case $rc:$out in
  [1-9]*"could not read block"*"Input/output error"*) tap_ok "plain: ossdfs gives PostgreSQL EIO: ${out##*ERROR:  }" ;;
  *) tap_not_ok "plain query fails with EIO" "rc $rc: $out" ;;
esac
tap_done
