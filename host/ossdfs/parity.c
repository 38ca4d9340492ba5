/* parity.c - regular files over a RAID-5 array (level 5, docs/arrays.md
 * "Redundancy in ossdfs"): rows of N - 1 data units and one parity unit,
 * the geometry of ossd_array.h; reads, writes and punches that keep each
 * row's parity the XOR of its data; a drive that fails is left out
 * (reads of its units are rebuilt from the others, writes go to the
 * others and the parity), and the array's state on every drive still in
 * it says so, so that no later mount trusts the stale drive.
 *
 * Why one lock per file (ip->parity_lock) around every write and every
 * reconstruction: the new parity of a row depends on what its data units
 * held just before, so two writes to one row must not interleave, and a
 * unit rebuilt from the others must see them and the parity of one
 * moment.  Reads of healthy drives take no lock.  The lock also keeps
 * ip->parity_reach, past which nothing is stored (units there are zeros
 * without a read); it is taken after ip->lock when both are held.
 *
 * Order within a row: data first, then parity.  A crash of ossdfs in
 * between leaves that row's parity stale (the "write hole"): the array
 * state says the mount was open, and the next mount makes every row right
 * again (parity_mount_open).  The data itself is written through as on
 * one drive: an acknowledged write is on its drive (or, with that drive
 * failed, in the row's parity). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ossdfs.h"

/* ---- drive state ------------------------------------------------------- */

bool
fs_drive_failed (struct fs *fs, uint32_t d)
{
  return atomic_load (&fs->drive[d].failed);
}

uint32_t
fs_meta_drive (struct fs *fs)
{
  return fs_parity (fs) && fs_drive_failed (fs, 0) ? 1 : 0;
}

/* Write the array state to every drive still in the array (state_lock
 * held).  A drive that cannot take it is failing too: logged; the state
 * on the others stands. */
static int
state_store (struct fs *fs)
{
  int stored = 0;

  fs->state.epoch++;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      ossd_error err = { 0 };

      if (fs_drive_failed (fs, d))
        continue;
      if (ossd_array_state_write (fs->drive[d].o, fs->pid, &fs->state, &err) < 0)
        fs_log (fs, "could not store the array state (epoch %" PRIu64 ") on drive %u (%s): %s",
                fs->state.epoch, d, fs->drive[d].uri, err.msg);
      else
        stored++;
    }
  return stored ? 0 : -EIO;
}

int
parity_drive_failed (struct fs *fs, uint32_t d, const char *why)
{
  int r = 0;

  pthread_mutex_lock (&fs->state_lock);
  if (!fs_drive_failed (fs, d))
    {
      uint32_t others = 0;

      for (uint32_t i = 0; i < fs->ndrives; i++)
        others += i != d && fs_drive_failed (fs, i);
      if (others)
        {
          fs_log (fs, "drive %u (%s) failed (%s) while another drive of the RAID-5 array is out: data of both cannot be rebuilt; the failing calls return EIO",
                  d, fs->drive[d].uri, why);
          r = -EIO;
        }
      else
        {
          atomic_store (&fs->drive[d].failed, true);
          fs->state.stale_mask |= 1ull << d;
          fs_log (fs, "drive %u (%s) failed (%s): the array runs degraded (its units are rebuilt from the other drives); replace it with ossdctl array rebuild",
                  d, fs->drive[d].uri, why);
          r = state_store (fs);
        }
    }
  pthread_mutex_unlock (&fs->state_lock);
  return r;
}

int
parity_mount_state (struct fs *fs)
{
  struct ossd_array_state best = { 0 };
  bool any = false;

  for (uint32_t d = 0; d < fs->ndrives; d++)
    {
      struct ossd_array_state s;
      ossd_error err = { 0 };
      int r;

      if (fs->drive[d].unreachable)
        continue;
      r = ossd_array_state_read (fs->drive[d].o, fs->pid, &s, &err);
      if (r == -ENOENT)
        continue;
      if (r < 0)
        {
          fs_log (fs, "drive %u (%s): array state: %s", d, fs->drive[d].uri,
                  err.msg);
          return r == -EINVAL ? -EINVAL : -EIO;
        }
      if (!any || s.epoch > best.epoch)
        best = s;
      any = true;
    }
  fs->state = best;
  if (fs->spike_avoid && !fs->monitor)
    {
      struct raid_monitor_params mp;
      raid_error rerr = { { 0 } };

      raid_monitor_defaults (&mp);
      if (raid_monitor_create (fs->ndrives, &mp, &fs->monitor, &rerr) < 0)
        fs_log (fs, "no spike avoidance: %s", rerr.msg);
    }
  for (uint32_t d = 0; d < fs->ndrives; d++)
    if (best.stale_mask & (1ull << d))
      {
        atomic_store (&fs->drive[d].failed, true);
        fs_log (fs, "drive %u (%s) is out of date (it failed while the array was written): mounted degraded, its units are rebuilt from the other drives; replace it with ossdctl array rebuild",
                d, fs->drive[d].uri);
      }
  if (__builtin_popcountll (best.stale_mask) > 1)
    {
      fs_log (fs, "%d drives of the RAID-5 array are out of date: it cannot be mounted",
              __builtin_popcountll (best.stale_mask));
      return -EIO;
    }
  /* A drive out of reach now is out of the array from now on: what is
   * written while it is away makes it stale (rebuild it to bring it back). */
  for (uint32_t d = 0; d < fs->ndrives; d++)
    if (fs->drive[d].unreachable && !fs_drive_failed (fs, d))
      {
        int r = parity_drive_failed (fs, d, "cannot be reached at mount");

        if (r < 0)
          return r;
      }
  return 0;
}

bool
fs_meta_copy (struct fs *fs, uint32_t d)
{
  return d == 0 && fs_parity (fs) && !fs_drive_failed (fs, 1);
}

void
parity_copy_refused (struct fs *fs, int r, const ossd_error *err,
                     const char *what)
{
  char why[700];

  if (r >= 0 || parity_lost (fs, 1, r, err, what))
    return;
  snprintf (why, sizeof why, "its copy of the metadata refused a change drive 0 took (%s: %s)",
            what, err->msg);
  parity_drive_failed (fs, 1, why);
}

bool
parity_lost (struct fs *fs, uint32_t d, int r, const ossd_error *err,
             const char *cmd)
{
  char why[700];

  if (r >= 0 || !fs_parity (fs) || err->status != OSSD_STATUS_TRANSPORT)
    return false;
  snprintf (why, sizeof why, "%s: %s", cmd, err->msg);
  return parity_drive_failed (fs, d, why) == 0;
}

/* ---- one row ----------------------------------------------------------- */

/* ---- the latency monitor (spike avoidance) -------------------------------- */

static uint64_t
mon_begin (struct fs *fs, uint32_t d)
{
  uint64_t t = ossd_mono_ns ();

  if (fs->monitor)
    {
      pthread_mutex_lock (&fs->monitor_lock);
      raid_monitor_submit (fs->monitor, d, t);
      pthread_mutex_unlock (&fs->monitor_lock);
    }
  return t;
}

static void
mon_end (struct fs *fs, uint32_t d, uint64_t t0)
{
  if (!fs->monitor)
    return;
  pthread_mutex_lock (&fs->monitor_lock);
  raid_monitor_complete (fs->monitor, d, t0, ossd_mono_ns ());
  pthread_mutex_unlock (&fs->monitor_lock);
}

/* Whether to rebuild drive d's piece from the rest of its row instead of
 * reading d: d is in a latency spike and no other drive is in one or out
 * (every drive holds a unit of every row). */
static bool
steer_around (struct fs *fs, uint32_t d)
{
  uint64_t now = ossd_mono_ns ();
  bool steer;

  if (!fs->monitor || !fs->spike_avoid)
    return false;
  pthread_mutex_lock (&fs->monitor_lock);
  steer = raid_monitor_in_spike (fs->monitor, d, now);
  for (uint32_t i = 0; steer && i < fs->ndrives; i++)
    if (i != d && (fs_drive_failed (fs, i)
                   || raid_monitor_in_spike (fs->monitor, i, now)))
      steer = false;
  pthread_mutex_unlock (&fs->monitor_lock);
  return steer;
}

/* After a call to drive d that succeeded: a restart behind it (lost
 * writes) makes it a failure of the transport all the same. */
static int
check_restart (struct fs *fs, uint32_t d, int r, ossd_error *err)
{
  if (r < 0 || !fs_drive_lost_writes (fs, d))
    return r;
  snprintf (err->msg, sizeof err->msg,
            "the drive restarted after writes that were not yet FLUSHed: its units may be stale");
  err->status = OSSD_STATUS_TRANSPORT;
  err->errnum = EIO;
  return -EIO;
}

/* Read n bytes at doff of drive d's object (past its end: zeros). */
static int
read_range (struct fs *fs, uint32_t d, uint64_t oid, uint64_t doff, char *buf,
            size_t n, ossd_error *err)
{
  size_t got = 0;
  uint64_t t0 = mon_begin (fs, d);
  int r = ossd_read (fs->drive[d].o, fs->pid, oid, doff, buf, n, &got, err);

  mon_end (fs, d, t0);
  r = check_restart (fs, d, r, err);
  if (r == -ENOENT)
    {
      snprintf (err->msg, sizeof err->msg, "file object missing");
      r = -EIO;
    }
  if (r == 0 && got < n)
    memset (buf + got, 0, n - got);
  return r;
}

struct row
{
  uint64_t index;             /* row number */
  uint64_t start;             /* file offset of its unit 0 */
  uint32_t parity;            /* the drive of its parity */
  uint32_t m;                 /* data units */
};

static void
row_init (const struct fs *fs, uint64_t index, struct row *rw)
{
  rw->index = index;
  rw->m = fs->ndrives - 1;
  rw->start = index * rw->m * fs->geom.unit;
  rw->parity = ossd_geom_parity_drive (&fs->geom, index * fs->geom.unit);
}

/* The drive of data unit j of the row (ossd_array.h's placement). */
static uint32_t
row_drive (const struct fs *fs, const struct row *rw, uint32_t j)
{
  uint32_t d;
  uint64_t doff, run;

  ossd_geom_locate (&fs->geom, rw->start + (uint64_t) j * fs->geom.unit, &d,
                    &doff, &run);
  return d;
}

/* The in-unit range [lo, hi) of units j of the row as they are now,
 * into units[j * U ...] (every data unit) and parity into par: what a
 * failed drive held is rebuilt from the others.  Units starting at or past
 * `reach` (the file offset past which nothing is stored) are zeros
 * without a read.  Returns 0, -EAGAIN when a drive failed just now (start
 * the row again), or an errno. */
static int
row_read_all (struct fs *fs, struct inode *ip, const struct row *rw,
              uint64_t lo, uint64_t hi, uint64_t reach, char *units,
              char *par, bool want_parity, uint32_t skip)
{
  uint64_t U = fs->geom.unit, doff = rw->index * U + lo;
  size_t len = (size_t) (hi - lo);
  int32_t lost = -1;          /* position of a failed drive, m = parity */
  int r;

  for (uint32_t j = 0; j <= rw->m; j++)
    {
      uint32_t d = j < rw->m ? row_drive (fs, rw, j) : rw->parity;
      char *dst = j < rw->m ? units + (size_t) j * U + lo : par;
      ossd_error err = { 0 };

      if (j < rw->m && rw->start + (uint64_t) j * U + lo >= reach)
        {
          memset (dst, 0, len);  /* nothing stored there */
          continue;
        }
      if (fs_drive_failed (fs, d) || d == skip)
        {
          if (lost >= 0)
            return -EIO;
          lost = (int32_t) j;
          memset (dst, 0, len);
          continue;
        }
      if (j == rw->m && !want_parity && lost < 0)
        continue;
      r = read_range (fs, d, ip->oid, doff, dst, len, &err);
      if (r < 0)
        {
          if (parity_lost (fs, d, r, &err, "READ"))
            return -EAGAIN;
          return fs_fail (fs, r, &err, "READ (RAID-5 row)", ip->oid);
        }
    }
  if (lost >= 0 && lost < (int32_t) rw->m)
    {
      /* the lost data unit is the parity XOR every other data unit */
      char *dst = units + (size_t) lost * U + lo;

      memcpy (dst, par, len);
      for (uint32_t j = 0; j < rw->m; j++)
        if ((int32_t) j != lost)
          ossd_xor_into (dst, units + (size_t) j * U + lo, len);
    }
  return 0;
}

/* Write n bytes (NULL: punch them) at doff of drive d, unless it failed.
 * -EAGAIN when it fails now. */
static int
write_range (struct fs *fs, struct inode *ip, uint32_t d, uint64_t doff,
             const char *buf, size_t n, uint64_t *ends)
{
  ossd_error err = { 0 };
  uint64_t t0;
  int r;

  if (fs_drive_failed (fs, d) || n == 0)
    return 0;
  t0 = mon_begin (fs, d);
  if (buf)
    r = ossd_write (fs->drive[d].o, fs->pid, ip->oid, doff, buf, n, &err);
  else if (doff >= ip->dlen[d])
    {
      mon_end (fs, d, t0);
      return 0;               /* a hole already */
    }
  else
    r = ossd_punch (fs->drive[d].o, fs->pid, ip->oid, doff,
                    doff + n > ip->dlen[d] ? ip->dlen[d] - doff : n, &err);
  mon_end (fs, d, t0);
  r = check_restart (fs, d, r, &err);
  fs_modified_drive (fs, d);
  if (r < 0)
    {
      if (parity_lost (fs, d, r, &err, buf ? "WRITE" : "PUNCH"))
        return -EAGAIN;
      return fs_fail (fs, r, &err, buf ? "WRITE (RAID-5)" : "PUNCH (RAID-5)",
                      ip->oid);
    }
  if (buf && ends && doff + n > ends[d])
    ends[d] = doff + n;
  return 0;
}

/* Put [ws, we) of the file (inside row rw) to the drives: data from src
 * (src[0] is file offset ws; NULL: zeros, punched) and the row's new
 * parity.  Chooses the fewer reads of read-modify-write (old data of the
 * pieces and old parity) and recompute (the row's other data), and
 * recomputes whenever a drive of the row failed. */
static int
row_update (struct fs *fs, struct inode *ip, const struct row *rw,
            uint64_t ws, uint64_t we, const char *src, uint64_t reach,
            char *units, char *par, char *old, uint64_t *ends)
{
  uint64_t U = fs->geom.unit;
  uint32_t j0 = (uint32_t) ((ws - rw->start) / U);
  uint32_t j1 = (uint32_t) ((we - 1 - rw->start) / U);
  uint64_t lo = j0 == j1 ? (ws - rw->start) % U : 0;
  uint64_t hi = j0 == j1 ? (we - 1 - rw->start) % U + 1 : U;
  uint64_t doff = rw->index * U;
  bool degraded = fs_drive_failed (fs, rw->parity);
  uint32_t touched = j1 - j0 + 1, need = 0;
  int r;

  for (uint32_t j = 0; j < rw->m; j++)
    {
      uint64_t us = rw->start + (uint64_t) j * U;   /* unit j's file offset */
      bool covered = us + lo >= ws && us + hi <= we;

      if (fs_drive_failed (fs, row_drive (fs, rw, j)))
        degraded = true;
      if (!covered && us + lo < reach)
        need++;
    }
  if (degraded || need <= touched)
    {
      /* recompute: the row as it is, the new data over it, XOR */
      if ((r = row_read_all (fs, ip, rw, lo, hi, reach, units, par, false,
                             UINT32_MAX)) < 0)
        return r;
      for (uint32_t j = j0; j <= j1; j++)
        {
          uint64_t us = rw->start + (uint64_t) j * U;
          uint64_t a = us > ws ? us : ws, b = us + U < we ? us + U : we;

          if (src)
            memcpy (units + (size_t) j * U + (a - us), src + (a - ws), b - a);
          else
            memset (units + (size_t) j * U + (a - us), 0, b - a);
        }
      memcpy (par, units + lo, hi - lo);
      for (uint32_t j = 1; j < rw->m; j++)
        ossd_xor_into (par, units + (size_t) j * U + lo, hi - lo);
    }
  else
    {
      /* read-modify-write: parity ^= old ^ new over the pieces */
      ossd_error err = { 0 };

      r = read_range (fs, rw->parity, ip->oid, doff + lo, par, hi - lo, &err);
      if (r < 0)
        return parity_lost (fs, rw->parity, r, &err, "READ") ? -EAGAIN
          : fs_fail (fs, r, &err, "READ (RAID-5 parity)", ip->oid);
      for (uint32_t j = j0; j <= j1; j++)
        {
          uint64_t us = rw->start + (uint64_t) j * U;
          uint64_t a = us > ws ? us : ws, b = us + U < we ? us + U : we;
          uint32_t d = row_drive (fs, rw, j);

          if (a >= reach)
            memset (old, 0, b - a);
          else if ((r = read_range (fs, d, ip->oid, doff + (a - us), old,
                                    b - a, &err)) < 0)
            return parity_lost (fs, d, r, &err, "READ") ? -EAGAIN
              : fs_fail (fs, r, &err, "READ (RAID-5 old data)", ip->oid);
          if (src)
            ossd_xor_into (old, src + (a - ws), b - a);
          ossd_xor_into (par + (a - us - lo), old, b - a);
        }
    }
  for (uint32_t j = j0; j <= j1; j++)
    {
      uint64_t us = rw->start + (uint64_t) j * U;
      uint64_t a = us > ws ? us : ws, b = us + U < we ? us + U : we;

      if ((r = write_range (fs, ip, row_drive (fs, rw, j), doff + (a - us),
                            src ? src + (a - ws) : NULL, b - a, ends)) < 0)
        return r;
    }
  return write_range (fs, ip, rw->parity, doff + lo, par, hi - lo, ends);
}

/* ---- files -------------------------------------------------------------- */

/* Buffers for one row: every data unit, the parity, one unit of old data. */
struct row_bufs
{
  char *units, *par, *old;
};

static int
bufs_get (struct fs *fs, struct row_bufs *b)
{
  size_t U = (size_t) fs->geom.unit;

  b->units = malloc (U * (fs->ndrives - 1));
  b->par = malloc (U);
  b->old = malloc (U);
  if (!b->units || !b->par || !b->old)
    {
      free (b->units);
      free (b->par);
      free (b->old);
      return -ENOMEM;
    }
  return 0;
}

static void
bufs_put (struct row_bufs *b)
{
  free (b->units);
  free (b->par);
  free (b->old);
}

/* Write (src) or punch (src NULL) [off, off+size), row by row; a drive
 * failing in a row starts that row again without it. */
static int
parity_put (struct fs *fs, struct inode *ip, uint64_t off, const char *src,
            uint64_t size, uint64_t *ends)
{
  uint64_t row_bytes = fs->geom.unit * (fs->ndrives - 1);
  uint64_t reach;
  struct row_bufs b;
  int r = 0;

  if ((r = bufs_get (fs, &b)) < 0)
    return r;
  pthread_mutex_lock (&ip->parity_lock);
  reach = ip->parity_reach;
  for (uint64_t pos = off; r == 0 && pos < off + size;)
    {
      struct row rw;
      uint64_t we;

      row_init (fs, pos / row_bytes, &rw);
      we = rw.start + row_bytes < off + size ? rw.start + row_bytes
        : off + size;
      for (int tries = 0; tries < 3; tries++)
        if ((r = row_update (fs, ip, &rw, pos, we, src ? src + (pos - off)
                             : NULL, reach, b.units, b.par, b.old,
                             ends)) != -EAGAIN)
          break;
      if (r == -EAGAIN)
        r = -EIO;
      pos = we;
    }
  /* written (even partly: a failure may have stored some) */
  if (src && off + size > ip->parity_reach)
    ip->parity_reach = off + size;
  pthread_mutex_unlock (&ip->parity_lock);
  bufs_put (&b);
  return r;
}

int
parity_write (struct fs *fs, struct inode *ip, uint64_t off, const char *buf,
              size_t size, uint64_t *ends)
{
  memset (ends, 0, fs->ndrives * sizeof *ends);
  return parity_put (fs, ip, off, buf, size, ends);
}

int
parity_punch (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len)
{
  return parity_put (fs, ip, off, NULL, len, NULL);
}

int
parity_read (struct fs *fs, struct inode *ip, uint64_t off, char *buf,
             size_t size)
{
  uint64_t U = fs->geom.unit, row_bytes = U * (fs->ndrives - 1);
  struct row_bufs b = { 0 };
  int r = 0;

  for (size_t pos = 0; r == 0 && pos < size;)
    {
      ossd_error err = { 0 };
      uint32_t d;
      uint64_t doff, run;
      size_t n;
      bool steered;

      ossd_geom_locate (&fs->geom, off + pos, &d, &doff, &run);
      n = run < size - pos ? (size_t) run : size - pos;
      steered = !fs_drive_failed (fs, d) && steer_around (fs, d);
      if (steered)
        stats_done (fs, SC_SPIKE_STEERED, 0);
      else if (!fs_drive_failed (fs, d))
        {
          r = read_range (fs, d, ip->oid, doff, buf + pos, n, &err);
          if (r == 0)
            {
              pos += n;
              continue;
            }
          if (!parity_lost (fs, d, r, &err, "READ"))
            return fs_fail (fs, r, &err, d ? "READ (data drive)" : "READ",
                            ip->oid);
        }
      /* drive d is out, or in a spike: the piece from the rest of its row */
      if (!b.units && (r = bufs_get (fs, &b)) < 0)
        return r;
      {
        struct row rw;
        uint64_t x = doff % U;
        uint32_t j;

        row_init (fs, (off + pos) / row_bytes, &rw);
        j = (uint32_t) ((off + pos - rw.start) / U);
        pthread_mutex_lock (&ip->parity_lock);
        for (int tries = 0; tries < 3; tries++)
          if ((r = row_read_all (fs, ip, &rw, x, x + n, ip->parity_reach,
                                 b.units, b.par, true,
                                 steered ? d : UINT32_MAX))
              != -EAGAIN)
            break;
        pthread_mutex_unlock (&ip->parity_lock);
        if (r == -EAGAIN)
          r = -EIO;
        if (r == 0)
          memcpy (buf + pos, b.units + (size_t) j * U + x, n);
      }
      pos += n;
    }
  if (b.units)
    bufs_put (&b);
  return r;
}

int
parity_cut_row (struct fs *fs, struct inode *ip, uint64_t size)
{
  uint64_t U = fs->geom.unit, row_bytes = U * (fs->ndrives - 1);
  struct row_bufs b;
  struct row rw;
  uint64_t len;
  int r = 0;

  pthread_mutex_lock (&ip->parity_lock);
  if (size % row_bytes == 0 || size >= ip->parity_reach)
    goto out;                 /* no row keeps data past the cut */
  if ((r = bufs_get (fs, &b)) < 0)
    goto out;
  row_init (fs, size / row_bytes, &rw);
  len = size - rw.start < U ? size - rw.start : U;
  for (int tries = 0; tries < 3; tries++)
    {
      if ((r = row_read_all (fs, ip, &rw, 0, U, ip->parity_reach, b.units,
                             b.par, false, UINT32_MAX)) == 0)
        {
          /* the row as the cut leaves it */
          for (uint32_t j = 0; j < rw.m; j++)
            {
              uint64_t us = rw.start + (uint64_t) j * U;
              if (us + U > size)
                memset (b.units + (size_t) j * U + (us < size ? size - us : 0),
                        0, (size_t) (us < size ? us + U - size : U));
            }
          memcpy (b.par, b.units, len);
          for (uint32_t j = 1; j < rw.m; j++)
            ossd_xor_into (b.par, b.units + (size_t) j * U, len);
          r = write_range (fs, ip, rw.parity, rw.index * U, b.par, len, NULL);
        }
      if (r != -EAGAIN)
        break;
    }
  bufs_put (&b);
out:
  if (r == 0 && size < ip->parity_reach)
    ip->parity_reach = size;
  pthread_mutex_unlock (&ip->parity_lock);
  return r == -EAGAIN ? -EIO : r;
}

/* ---- the write hole: resync after a crash ------------------------------------ */

/* Every row of one file: its parity made its data's XOR where it is not;
 * *fixed counts the rows rewritten. */
static int
resync_file (struct fs *fs, struct inode *ip, struct row_bufs *b,
             uint64_t *fixed)
{
  uint64_t U = fs->geom.unit, row_bytes = U * (fs->ndrives - 1);
  uint64_t size = ip->size;
  int r = 0;

  pthread_mutex_lock (&ip->parity_lock);
  for (uint64_t row = 0; r == 0 && row * row_bytes < size; row++)
    {
      struct row rw;
      uint64_t len;
      char *x = b->old;

      row_init (fs, row, &rw);
      len = size - rw.start < U ? size - rw.start : U;
      if ((r = row_read_all (fs, ip, &rw, 0, len, ip->parity_reach, b->units,
                             b->par, true, UINT32_MAX)) < 0)
        break;
      memcpy (x, b->units, len);
      for (uint32_t j = 1; j < rw.m; j++)
        ossd_xor_into (x, b->units + (size_t) j * U, len);
      if (memcmp (x, b->par, len) != 0)
        {
          r = write_range (fs, ip, rw.parity, row * U, x, len, NULL);
          (*fixed)++;
        }
    }
  pthread_mutex_unlock (&ip->parity_lock);
  return r == -EAGAIN ? -EIO : r;
}

int
parity_mount_open (struct fs *fs)
{
  uint64_t *oids = NULL, fixed = 0, files = 0;
  size_t n = 0;
  int r = 0;

  if (!fs_parity (fs))
    return 0;
  if (fs->state.flags & OSSD_ARRAY_STATE_OPEN)
    {
      struct row_bufs b;
      uint64_t t0 = ossd_mono_ns ();

      if (fs->state.stale_mask)
        fs_log (fs, "the array was not unmounted cleanly and a drive is out: rows written when ossdfs stopped cannot be checked (their parity may be stale); rebuild the drive soon");
      else if ((r = stripe_list_all (fs, fs_meta_drive (fs), OSSD_FS_FIRST_OID - 1,
                                     &oids, &n)) == 0
               && (r = bufs_get (fs, &b)) == 0)
        {
          fs_log (fs, "the array was not unmounted cleanly: checking the parity of every row of %zu objects",
                  n);
          for (size_t i = 0; r == 0 && i < n; i++)
            {
              struct inode *ip;

              if ((r = inode_get (fs, oids[i], &ip)) < 0)
                {
                  fs_log (fs, "parity resync: object %" PRIu64 " left as it is (%s)",
                          oids[i], strerror (-r));
                  r = 0;
                  continue;
                }
              if (S_ISREG (ip->d.mode) && ip->dlen)
                {
                  r = resync_file (fs, ip, &b, &fixed);
                  files++;
                }
              inode_put (fs, ip);
            }
          bufs_put (&b);
          fs_log (fs, "parity resync: %" PRIu64 " files, %" PRIu64 " rows rewritten, %.1f s",
                  files, fixed, (double) (ossd_mono_ns () - t0) / 1e9);
        }
      free (oids);
      if (r < 0)
        return r;
    }
  pthread_mutex_lock (&fs->state_lock);
  fs->state.flags |= OSSD_ARRAY_STATE_OPEN;
  r = state_store (fs);
  pthread_mutex_unlock (&fs->state_lock);
  return r;
}

void
parity_mount_close (struct fs *fs)
{
  if (!fs_parity (fs))
    return;
  pthread_mutex_lock (&fs->state_lock);
  fs->state.flags &= ~(uint64_t) OSSD_ARRAY_STATE_OPEN;
  if (state_store (fs) < 0)
    fs_log (fs, "could not mark the array closed: the next mount checks every row's parity");
  pthread_mutex_unlock (&fs->state_lock);
}

/* ---- watching the drives ------------------------------------------------- */

static void *
watch_main (void *arg)
{
  struct fs *fs = arg;

  while (!atomic_load (&fs->watch_stop))
    {
      for (uint32_t d = 0; d < fs->ndrives && !atomic_load (&fs->watch_stop);
           d++)
        {
          Ossd__InfoResult *info = NULL;
          ossd_error err = { 0 };
          int r;

          if (fs_drive_failed (fs, d))
            continue;
          r = ossd_info (fs->drive[d].o, &info, &err);
          if (info)
            ossd__info_result__free_unpacked (info, NULL);
          r = check_restart (fs, d, r, &err);
          if (r < 0)
            parity_lost (fs, d, r, &err, "INFO (health check)");
        }
      for (int i = 0; i < 5 && !atomic_load (&fs->watch_stop); i++)
        {
          struct timespec ts = { 0, 100 * 1000 * 1000 };
          nanosleep (&ts, NULL);
        }
    }
  return NULL;
}

int
parity_watch_start (struct fs *fs)
{
  int r;

  if (!fs_parity (fs))
    return 0;
  for (uint32_t d = 0; d < fs->ndrives; d++)
    atomic_store (&fs->drive[d].restarts_seen,
                  ossd_drive_restarts (fs->drive[d].o));
  atomic_store (&fs->watch_stop, false);
  if ((r = pthread_create (&fs->watch_thread, NULL, watch_main, fs)) != 0)
    return -r;
  fs->watch_started = true;
  return 0;
}

void
parity_watch_stop (struct fs *fs)
{
  if (!fs->watch_started)
    return;
  atomic_store (&fs->watch_stop, true);
  pthread_join (fs->watch_thread, NULL);
  fs->watch_started = false;
}
