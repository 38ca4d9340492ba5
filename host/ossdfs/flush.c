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
 * of the partition does not exist while mounted: ossdfs.h.)
 *
 * Arrays: each drive counts its own changes and is FLUSHed only when it
 * has some; fs_flush takes the data drives first and drive 0 (the
 * metadata) last, so what drive 0 says was made durable after the data it
 * describes (inode_store also FLUSHes the drives before it stores a size
 * that grew: docs/arrays.md).  A RAID-5 drive that is out of the array is
 * not FLUSHed; one whose FLUSH fails is taken out (parity.c). */
#include <errno.h>
#include <stdio.h>

#include "ossdfs.h"

void
fs_modified_drive (struct fs *fs, uint32_t d)
{
  atomic_fetch_add (&fs->drive[d].mod_gen, 1);
}

void
fs_modified (struct fs *fs)
{
  fs_modified_drive (fs, 0);
}

bool
fs_drive_lost_writes (struct fs *fs, uint32_t d)
{
  struct fs_drive *dv = &fs->drive[d];
  uint64_t n = ossd_drive_restarts (dv->o);

  if (n == atomic_load (&dv->restarts_seen))
    return false;
  atomic_store (&dv->restarts_seen, n);
  return atomic_load (&dv->mod_gen) != 0
    && atomic_load (&dv->mod_gen) != atomic_load (&dv->flushed_gen);
}

int
fs_flush_drive (struct fs *fs, uint32_t d, uint64_t oid)
{
  struct fs_drive *dv = &fs->drive[d];
  uint64_t gen = atomic_load (&dv->mod_gen);
  uint64_t t0 = ossd_mono_ns ();
  ossd_error err = { 0 };
  int r;

  if (atomic_load (&dv->flushed_gen) == gen || atomic_load (&dv->failed))
    {
      stats_done (fs, SC_DRIVE_FLUSH_SKIPPED, 0);
      return 0;
    }
  r = ossd_flush (dv->o, &err);
  stats_done (fs, SC_DRIVE_FLUSH, t0);
  if (r == 0 && fs_drive_lost_writes (fs, d))
    {
      /* The FLUSH went to a drive that restarted after changes this mount
       * had not FLUSHed: they may be gone, and a success would say they
       * are durable.  RAID-5 keeps them in the others' parity. */
      snprintf (err.msg, sizeof err.msg,
                "the drive restarted after writes that were not yet FLUSHed: they may be lost");
      err.status = OSSD_STATUS_TRANSPORT;
      err.errnum = EIO;
      r = -EIO;
    }
  if (r < 0 && fs_parity (fs) && err.status == OSSD_STATUS_TRANSPORT
      && parity_drive_failed (fs, d, err.msg) == 0)
    return 0;                   /* RAID-5: the others hold what it held */
  if (r < 0)
    {
      char cmd[600];
      if (d == 0)
        return fs_fail (fs, r, &err, "FLUSH", oid);
      snprintf (cmd, sizeof cmd, "FLUSH of drive %u (%s)", d, dv->uri);
      return fs_fail (fs, r, &err, cmd, oid);
    }
  /* Concurrent FLUSHes may store out of order: an older count only
   * causes one FLUSH too many later. */
  atomic_store (&dv->flushed_gen, gen);
  return 0;
}

int
fs_flush (struct fs *fs, uint64_t oid)
{
  int r;

  for (uint32_t d = fs->ndrives; d-- > 1;)
    if ((r = fs_flush_drive (fs, d, oid)) < 0)
      return r;
  return fs_flush_drive (fs, 0, oid);
}
