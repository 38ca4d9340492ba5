/* stats.c - ossdfs's counters: for each FUSE operation and each kind of
 * drive command, how many ran and how long they took (wall time from the
 * request's arrival in ossdfs to the reply).  They answer "where does the
 * time of a bulk load go" without a profiler: read them with
 *   getfattr --only-values -n user.ossd.stats MOUNTPOINT
 * and reset them with setfattr -n user.ossd.stats -v 0 MOUNTPOINT.
 *
 * The hot operations are counted by the wrappers below, which the
 * operation table (main.c) points at; the drive commands are counted
 * where they are issued (file.c, batch.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ossdfs.h"

static const char *const stat_names[SC_COUNT] = {
  [SC_LOOKUP] = "lookup",
  [SC_GETATTR] = "getattr",
  [SC_SETATTR] = "setattr",
  [SC_OPEN] = "open",
  [SC_READ] = "read",
  [SC_WRITE] = "write",
  [SC_FLUSH] = "flush",
  [SC_RELEASE] = "release",
  [SC_FSYNC] = "fsync",
  [SC_GETXATTR] = "getxattr",
  [SC_CREATE] = "create",
  [SC_UNLINK] = "unlink",
  [SC_WRITE_ZERO] = "write.zeros_absorbed",
  [SC_DRIVE_WRITE] = "drive.write",
  [SC_DRIVE_READ] = "drive.read",
  [SC_DRIVE_COMPOUND] = "drive.compound",
  [SC_DRIVE_FLUSH] = "drive.flush",
  [SC_DRIVE_FLUSH_SKIPPED] = "drive.flush_skipped",
  [SC_LOOP_SLEEP] = "loop.sleep",         /* a reader waited (loop.c) */
  [SC_LOOP_CONCURRENT] = "loop.concurrent",  /* entered concurrent mode */
  [SC_DRIVE_INFO] = "drive.info",         /* free space read (space.c) */
  [SC_SPIKE_STEERED] = "raid5.spike_steered",  /* reads rebuilt (parity.c) */
};

void
stats_done (struct fs *fs, enum fs_stat st, uint64_t t0)
{
  atomic_fetch_add_explicit (&fs->stats.n[st], 1, memory_order_relaxed);
  if (t0)
    atomic_fetch_add_explicit (&fs->stats.ns[st], ossd_mono_ns () - t0,
                               memory_order_relaxed);
}

void
stats_reset (struct fs *fs)
{
  for (int i = 0; i < SC_COUNT; i++)
    {
      atomic_store (&fs->stats.n[i], 0);
      atomic_store (&fs->stats.ns[i], 0);
    }
}

int
stats_format (struct fs *fs, char *buf, size_t cap)
{
  size_t pos = 0;

  /* Every counter, fixed widths: the text keeps its length while the
   * counters move, so getxattr's size probe and read agree. */
  buf[0] = 0;
  for (int i = 0; i < SC_COUNT && pos < cap; i++)
    {
      uint64_t n = atomic_load (&fs->stats.n[i]);
      uint64_t ns = atomic_load (&fs->stats.ns[i]);
      int k;

      k = snprintf (buf + pos, cap - pos,
                    "%-22s %12" PRIu64 " calls %12.3f s %10.1f us/call\n",
                    stat_names[i], n, ns / 1e9,
                    n ? ns / 1e3 / (double) n : 0.0);
      if (k < 0)
        break;
      pos += (size_t) k;
    }
  return pos < cap ? (int) pos : (int) cap - 1;
}

/* ---- timed wrappers of the hot operations (the operation table) ------- */

#define TIMED(op, st, params, args)                                       \
  void timed_##op params                                                \
  {                                                                     \
    struct fs *fs = req_fs (req);   /* req is gone after the reply */   \
    uint64_t t0 = ossd_mono_ns ();                                         \
    fsop_##op args;                                                     \
    stats_done (fs, st, t0);                                            \
  }

TIMED (lookup, SC_LOOKUP, (fuse_req_t req, fuse_ino_t p, const char *n),
       (req, p, n))
TIMED (getattr, SC_GETATTR,
       (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi),
       (req, i, fi))
TIMED (setattr, SC_SETATTR,
       (fuse_req_t req, fuse_ino_t i, struct stat *a, int s,
        struct fuse_file_info *fi), (req, i, a, s, fi))
TIMED (open, SC_OPEN,
       (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi),
       (req, i, fi))
TIMED (read, SC_READ,
       (fuse_req_t req, fuse_ino_t i, size_t n, off_t o,
        struct fuse_file_info *fi), (req, i, n, o, fi))
TIMED (write, SC_WRITE,
       (fuse_req_t req, fuse_ino_t i, const char *b, size_t n, off_t o,
        struct fuse_file_info *fi), (req, i, b, n, o, fi))
TIMED (flush, SC_FLUSH,
       (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi),
       (req, i, fi))
TIMED (release, SC_RELEASE,
       (fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi),
       (req, i, fi))
TIMED (fsync, SC_FSYNC,
       (fuse_req_t req, fuse_ino_t i, int d, struct fuse_file_info *fi),
       (req, i, d, fi))
TIMED (getxattr, SC_GETXATTR,
       (fuse_req_t req, fuse_ino_t i, const char *n, size_t s),
       (req, i, n, s))
TIMED (create, SC_CREATE,
       (fuse_req_t req, fuse_ino_t p, const char *n, mode_t m,
        struct fuse_file_info *fi), (req, p, n, m, fi))
TIMED (unlink, SC_UNLINK, (fuse_req_t req, fuse_ino_t p, const char *n),
       (req, p, n))
