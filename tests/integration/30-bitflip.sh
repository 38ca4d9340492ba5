#!/usr/bin/env bash
# 30-bitflip.sh - silent corruption is never served: objects written
# through ossdctl put, the drive stopped cleanly, single bits flipped at
# random offsets in the data of pages of the image (the data area of the
# file backend, ftl/nand_backend_file.c), the drive restarted.  Every get
# of an object that has a sector in a flipped page fails with an error
# naming the object and an offset; every other object reads back
# identical; nothing wrong is ever returned; fsck lists every flipped page.
# Then a FORMAT that cannot succeed (999T) fails cleanly and leaves the
# drive serving, its objects intact.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/harness/tap.sh"
B=$top/build
ctl=$B/ossdctl
work=$(mktemp -d /tmp/ossd-it-bitflip.XXXXXX)
export OSSD_RUNDIR=$work/run
sock=$OSSD_RUNDIR/ossd.sock
export OSSD_DEVICE="nbd+unix:///?socket=$sock"
img=$work/drive.img
cleanup () {
  "$ctl" device stop >/dev/null 2>&1
  [ -f "$OSSD_RUNDIR/ossd.pid" ] && kill -9 "$(cat "$OSSD_RUNDIR/ossd.pid")" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok_if "drive starts (1 GiB image)" "$ctl" device start --image "$img" --size 1G --volume 16M
ok_if "partition 7" "$ctl" partition create 7
nobj=16
for i in $(seq 1 $nobj); do
  head -c $(( (i * 37 % 13 + 1) * 65536 + i * 777 )) /dev/urandom >"$work/o$i.bin"
  "$ctl" put "$work/o$i.bin" "7:$i" >/dev/null 2>"$work/put.err" \
    || tap_not_ok "put 7:$i" "$(cat "$work/put.err")"
done
tap_ok "$nobj objects stored (each put flushes)"
"$ctl" --json info >"$work/info.json" 2>&1
ok_if "drive stops cleanly" "$ctl" device stop

# Flip one bit in each of 6 random data pages that hold sectors of
# partition 7.  Page p's OOB is at 1 MiB + p * oob_size (header: magic
# "OOB1", kind, spp, ...; then one 40-byte entry per 4 KiB sector: pid,
# oid, size, batch, lpn, kind), its data at data_off + p * page_size.
python3 - "$img" "$work/info.json" >"$work/flips" 2>"$work/flips.err" <<'EOF'
import json, random, struct, sys
img, info = sys.argv[1], json.load(open(sys.argv[2]))
ps = info["page_size"]
pages = info["channels"] * info["ways"] * info["planes"] \
    * info["blocks_per_plane"] * info["pages_per_block"]
spp = ps // 4096
oob_size = (32 + 40 * spp + 63) // 64 * 64
mib = 1 << 20
data_off = (mib + pages * oob_size + mib - 1) // mib * mib
rng = random.Random()
with open(img, "r+b") as f:
    f.seek(mib)
    oob = f.read(pages * oob_size)
    cand = {}
    for p in range(pages):
        h = oob[p * oob_size:(p + 1) * oob_size]
        magic, kind, nspp = struct.unpack_from("<IHH", h, 0)
        if magic != 0x4f4f4231 or kind != 1 or nspp != spp:
            continue
        oids = set()
        for s in range(spp):
            pid, oid, _sz, _b, lpn, k = struct.unpack_from("<QQQQII", h, 32 + 40 * s)
            if pid == 7 and k in (1, 2):
                oids.add(oid)
        if oids:
            cand[p] = oids
    for p in rng.sample(sorted(cand), 6):
        byte = rng.randrange(ps)
        bit = rng.randrange(8)
        f.seek(data_off + p * ps + byte)
        c = f.read(1)[0]
        f.seek(data_off + p * ps + byte)
        f.write(bytes([c ^ (1 << bit)]))
        print(p, byte, bit, " ".join(str(o) for o in sorted(cand[p])))
EOF
[ -s "$work/flips" ] && tap_ok "6 bits flipped in the image: $(awk '{o = ""; for (i = 4; i <= NF; i++) o = o " " $i; printf "page %s byte %s bit %s (oids%s); ", $1, $2, $3, o}' "$work/flips")" \
  || tap_not_ok "bits flipped in the image" "$(cat "$work/flips.err")"
affected=" $(cut -d' ' -f4- "$work/flips" | tr ' ' '\n' | sort -un | tr '\n' ' ')"

ok_if "drive restarts on the image" "$ctl" device start --image "$img"
bad=0
for i in $(seq 1 $nobj); do
  rm -f "$work/o$i.out"
  if "$ctl" get "7:$i" "$work/o$i.out" >/dev/null 2>"$work/get.err"; then
    if ! cmp -s "$work/o$i.bin" "$work/o$i.out"; then
      tap_not_ok "7:$i read back wrong bytes with no error"; bad=1
    elif [ "${affected#* $i }" != "$affected" ]; then
      tap_not_ok "7:$i has a flipped page yet read back without an error"; bad=1
    fi
  else
    msg=$(cat "$work/get.err")
    case $msg in
      *"data CRC mismatch in object 7:$i at offset "*"NAND page"*) ;;
      *) tap_not_ok "7:$i failed without naming object and offset" "$msg"; bad=1 ;;
    esac
    [ "${affected#* $i }" = "$affected" ] && { tap_not_ok "7:$i failed though none of its pages was flipped" "$msg"; bad=1; }
    # whatever reached the file before the error is the object's own bytes
    if [ -s "$work/o$i.out" ] && ! cmp -s -n "$(stat -c %s "$work/o$i.out")" "$work/o$i.bin" "$work/o$i.out"; then
      tap_not_ok "7:$i: bytes written before the error differ"; bad=1
    fi
  fi
done
[ $bad = 0 ] && tap_ok "affected objects ($affected) fail naming object and offset; the others read back identical; nothing wrong served"
fsck=$("$ctl" fsck 2>&1); rc=$?
missing=""
while read -r page _; do
  case $fsck in *"data CRC mismatch in NAND page $page "*) ;; *) missing="$missing $page" ;; esac
done <"$work/flips"
[ $rc != 0 ] && [ -z "$missing" ] \
  && tap_ok "fsck reports problems and lists every flipped page" \
  || tap_not_ok "fsck lists every flipped page (rc $rc, missing:$missing)" "$fsck"
echo "$fsck" | head -4 | sed 's/^/# /'

# A FORMAT that cannot succeed leaves the drive as it was.
pid=$(cat "$OSSD_RUNDIR/ossd.pid")
out=$("$ctl" format --size 999T 2>&1) \
  && tap_not_ok "format --size 999T fails" "$out" \
  || tap_ok "format --size 999T fails: ${out##*: }"
ok_if "info answers after the failed format" "$ctl" info
kill -0 "$pid" 2>/dev/null && tap_ok "nbdkit is alive" || tap_not_ok "nbdkit is alive"
good=""
for i in $(seq 1 $nobj); do [ "${affected#* $i }" = "$affected" ] && { good=$i; break; }; done
ok_if "an unaffected object still reads back after the failed format" \
  sh -c "'$ctl' get 7:$good '$work/g.out' && cmp '$work/o$good.bin' '$work/g.out'"
ls=$("$ctl" ls 7 2>&1 | wc -l)
[ "$ls" -ge "$nobj" ] && tap_ok "ls 7 lists all $nobj objects" || tap_not_ok "ls 7 lists all objects" "$("$ctl" ls 7 2>&1)"
ok_if "drive stops cleanly" "$ctl" device stop
tap_done
