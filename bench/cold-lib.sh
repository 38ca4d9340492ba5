# shellcheck shell=bash
# bench/cold-lib.sh - sourced by benchmarks whose "cold" runs must be cold
# on both sides (issue 13, docs/profiles.md "Honest cold"):
#   drive_cold [OSSDCTL-OPTIONS...]  the drive drops its own caches:
#                                    `ossdctl cold` (FTL page cache, its
#                                    image's OS page cache and mapping);
#                                    needs the drive's master key
#   host_evict FILE...               evict each FILE and its FILE.N segments
#                                    from this host's page cache (written
#                                    back first, then posix_fadvise
#                                    DONTNEED), e.g. heap
#                                    files seen through ossdfs
#   resident_bytes FILE              bytes of FILE in the page cache (fincore)
# /proc/sys/vm/drop_caches is not used: in a container it may be refused,
# and where it works it empties every cache of the machine, other users'
# included; these evict only what the benchmark reads.
cold_lib_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
drive_cold () {
  "${OSSDCTL:-$cold_lib_top/build/ossdctl}" "$@" cold >/dev/null
}
host_evict () {
  python3 - "$@" <<'PY'
import glob, os, sys
for base in sys.argv[1:]:
    for f in glob.glob(base) + glob.glob(base + ".[0-9]*"):
        try:
            fd = os.open(f, os.O_RDONLY)
            os.fdatasync(fd)   # only clean pages can be evicted
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        except OSError as e:
            print("host_evict: %s: %s" % (f, e), file=sys.stderr)
PY
}
resident_bytes () {
  fincore -b -n -o RES "$1" 2>/dev/null | tr -d ' ' | head -1
}
