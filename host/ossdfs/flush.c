/* flush.c - the drive FLUSH behind fsync, fdatasync, fsyncdir and
 * unmount, skipped when this mount changed nothing on the drive since the
 * last FLUSH that succeeded.
 *
 * Why: a FLUSH makes the drive checkpoint its mapping (tens of ms on the
 * emulated drive) and PostgreSQL's CHECKPOINT fsyncs every relation file
 * one after the other, with no write in between.  FLUSH scope is the
 * whole drive, so the first one covers them all.
 *
 * How: fs->mod_gen counts modifying commands that finished (successfully
 * or not: a failed one may have changed something); it is bumped after
 * the command's answer.  A FLUSH records the count it saw before it was
 * sent; every change counted by then had finished before the FLUSH
 * started, so it is durable when the FLUSH succeeds.  A later fsync that
 * finds the same count has nothing new to make durable.  (Another writer
 * of the partition does not exist while mounted: ossdfs.h.) */
#include <errno.h>

#include "ossdfs.h"

void
fs_modified (struct fs *fs)
{
  atomic_fetch_add (&fs->mod_gen, 1);
}

int
fs_flush (struct fs *fs, uint64_t oid)
{
  uint64_t gen = atomic_load (&fs->mod_gen);
  uint64_t t0 = ossd_mono_ns ();
  ossd_error err = { 0 };
  int r;

  if (atomic_load (&fs->flushed_gen) == gen)
    {
      stats_done (fs, SC_DRIVE_FLUSH_SKIPPED, 0);
      return 0;
    }
  r = ossd_flush (fs->o, &err);
  stats_done (fs, SC_DRIVE_FLUSH, t0);
  if (r < 0)
    return fs_fail (fs, r, &err, "FLUSH", oid);
  /* Concurrent FLUSHes may store out of order: an older count only
   * causes one FLUSH too many later. */
  atomic_store (&fs->flushed_gen, gen);
  return 0;
}
