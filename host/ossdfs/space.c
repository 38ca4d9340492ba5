/* space.c - drive space promised to zeros that file.c keeps off the drive
 * (DESIGN.md "Faults": space is claimed by the call that consumes it).
 *
 * Why: PostgreSQL extends a relation with a zero page and writes the page
 * for real later, from a checkpoint or a buffer eviction.  file.c does not
 * send such zeros (they read as zeros anyway), and objects are sparse, so
 * the drive has not claimed those sectors: on a full drive the real write
 * would fail long after PostgreSQL was told the extension worked, where it
 * can only PANIC.  So an appended zero write (or fallocate) promises its
 * sectors here, and succeeds only while the drive's free space covers
 * every promise made and not yet written; otherwise the zeros go to the
 * drive as an ordinary write, which claims them there or fails with ENOSPC.
 *
 * Accounting, all under fs->space.lock:
 *   promised  sector bytes promised and not yet written: the sum over the
 *             inodes of their promise ranges (ip->promise: sector-aligned,
 *             sorted, disjoint; guarded by ip->lock).
 *   avail     a lower bound of the drive's free bytes minus promised: set
 *             from INFO (free_bytes - promised - bytes in flight, which the
 *             INFO may or may not count), lowered by each new promise and by
 *             each write that may map new sectors (every sector it touches
 *             less its promised ones: an overwrite looks the same), raised by
 *             promises dropped unwritten (truncate, punch, remove).  Space
 *             freed on the drive shows at the next INFO.
 *   inflight  sector bytes of writes sent and not answered.
 * A promise needs avail >= its size + SPACE_MARGIN; a write needs avail
 * >= the sectors it surely maps (past the object's end on the drive, not
 * promised); when the bound says no, INFO is read again (under the lock,
 * so no write starts meanwhile) before the answer is ENOSPC.  A write of
 * promised sectors needs nothing: it takes them off the promise once it
 * succeeded.  Far from full an INFO is read about once per drive-free-space
 * worth of overwrites; near full, about once per write.
 * Limits: only this mount's writes are counted; another user of the drive
 * (another partition, the block volume) takes space unseen until the next
 * INFO, which SPACE_MARGIN absorbs in part.  fsync and close then only store
 * inode fields and lengths, which map no sectors (ftl_batch.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ossdfs.h"

#define SECTOR 4096ull
#define SPACE_MARGIN (4ull << 20)

static uint64_t
sector_down (uint64_t x)
{
  return x & ~(SECTOR - 1);
}
static uint64_t
sector_up (uint64_t x)
{
  return x > UINT64_MAX - (SECTOR - 1) ? sector_down (UINT64_MAX)
    : sector_down (x + SECTOR - 1);
}

void
space_init (struct fs *fs)
{
  pthread_mutex_init (&fs->space.lock, NULL);
}

/* ---- promise ranges of one inode (ip->lock held) ---------------------- */

/* Bytes of [a, b) inside ip's promise ranges. */
static uint64_t
promise_overlap (const struct inode *ip, uint64_t a, uint64_t b)
{
  uint64_t n = 0;

  for (size_t i = 0; i < ip->npromise && ip->promise[i].start < b; i++)
    {
      uint64_t s = ip->promise[i].start > a ? ip->promise[i].start : a;
      uint64_t e = ip->promise[i].end < b ? ip->promise[i].end : b;
      if (s < e)
        n += e - s;
    }
  return n;
}

/* Add [a, b), merging with neighbours.  0 or -ENOMEM. */
static int
promise_add (struct inode *ip, uint64_t a, uint64_t b)
{
  size_t i = 0, j;

  while (i < ip->npromise && ip->promise[i].end < a)
    i++;
  /* ranges i..j-1 touch or overlap [a, b) */
  for (j = i; j < ip->npromise && ip->promise[j].start <= b; j++)
    {
      if (ip->promise[j].start < a)
        a = ip->promise[j].start;
      if (ip->promise[j].end > b)
        b = ip->promise[j].end;
    }
  if (j == i)
    {
      if (ip->npromise == ip->cappromise)
        {
          size_t cap = ip->cappromise ? ip->cappromise * 2 : 4;
          struct span *p = realloc (ip->promise, cap * sizeof *p);
          if (!p)
            return -ENOMEM;
          ip->promise = p;
          ip->cappromise = cap;
        }
      memmove (&ip->promise[i + 1], &ip->promise[i],
               (ip->npromise - i) * sizeof *ip->promise);
      ip->npromise++;
    }
  else if (j > i + 1)
    {
      memmove (&ip->promise[i + 1], &ip->promise[j],
               (ip->npromise - j) * sizeof *ip->promise);
      ip->npromise -= j - i - 1;
    }
  ip->promise[i].start = a;
  ip->promise[i].end = b;
  return 0;
}

/* Take [a, b) off; returns the bytes taken.  When a range would split and
 * there is no memory for the second half, it stays promised whole (and
 * the bytes are not counted as taken): too much promised, never too
 * little. */
static uint64_t
promise_remove (struct inode *ip, uint64_t a, uint64_t b)
{
  uint64_t taken = 0;

  for (size_t i = 0; i < ip->npromise; )
    {
      struct span *p = &ip->promise[i];
      if (p->end <= a || p->start >= b)
        {
          i++;
          continue;
        }
      if (p->start < a && p->end > b)
        {
          struct span tail = { b, p->end };
          if (ip->npromise == ip->cappromise)
            {
              struct span *np = realloc (ip->promise,
                                         ip->cappromise * 2 * sizeof *np);
              if (!np)
                return taken;
              ip->promise = np;
              ip->cappromise *= 2;
              p = &ip->promise[i];
            }
          memmove (&ip->promise[i + 2], &ip->promise[i + 1],
                   (ip->npromise - i - 1) * sizeof *ip->promise);
          ip->npromise++;
          p->end = a;
          ip->promise[i + 1] = tail;
          return taken + (b - a);
        }
      if (p->start >= a && p->end <= b)
        {
          taken += p->end - p->start;
          memmove (p, p + 1, (ip->npromise - i - 1) * sizeof *p);
          ip->npromise--;
          continue;
        }
      if (p->start < a)
        {
          taken += p->end - a;
          p->end = a;
        }
      else
        {
          taken += b - p->start;
          p->start = b;
        }
      i++;
    }
  return taken;
}

/* ---- drive free space ------------------------------------------------- */

/* Read INFO and set avail (fs->space.lock held).  0 or a negative errno. */
static int
space_refresh_locked (struct fs *fs)
{
  struct fs_space *sp = &fs->space;
  uint64_t t0 = ossd_mono_ns ();
  uint64_t capacity, free_bytes, objects;
  int r = stripe_space (fs, &capacity, &free_bytes, &objects);

  stats_done (fs, SC_DRIVE_INFO, t0);
  if (r < 0)
    return r;
  sp->avail = (int64_t) free_bytes - (int64_t) sp->promised
    - (int64_t) sp->inflight;
  sp->known = true;
  return 0;
}

int
space_promise (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len)
{
  struct fs_space *sp = &fs->space;
  uint64_t a = sector_down (off), b = sector_up (off + len);
  uint64_t need = (b - a) - promise_overlap (ip, a, b);
  int r = 0;

  if (need == 0)
    return 0;
  pthread_mutex_lock (&sp->lock);
  if (!sp->known || sp->avail < (int64_t) (need + SPACE_MARGIN))
    space_refresh_locked (fs);
  if (!sp->known || sp->avail < (int64_t) (need + SPACE_MARGIN))
    r = -ENOSPC;
  else if ((r = promise_add (ip, a, b)) == 0)
    {
      sp->avail -= (int64_t) need;
      sp->promised += need;
    }
  pthread_mutex_unlock (&sp->lock);
  return r;
}

int
space_write_begin (struct fs *fs, struct inode *ip, uint64_t off,
                   uint64_t len, struct space_ticket *t)
{
  struct fs_space *sp = &fs->space;
  uint64_t a = sector_down (off), b = sector_up (off + len);
  uint64_t end = sector_up (ip->drive_size);
  uint64_t maybe = (b - a) - promise_overlap (ip, a, b);
  uint64_t surely = 0;
  int r = 0;

  if (b > end)
    {
      uint64_t s = a > end ? a : end;
      surely = (b - s) - promise_overlap (ip, s, b);
    }
  pthread_mutex_lock (&sp->lock);
  if (maybe && (!sp->known || sp->avail < (int64_t) maybe))
    {
      /* a drive that does not answer INFO decides on the write itself */
      if (space_refresh_locked (fs) == 0 && sp->avail < (int64_t) surely)
        r = -ENOSPC;
    }
  if (r == 0)
    {
      sp->avail -= (int64_t) maybe;
      sp->inflight += b - a;
      t->bytes = b - a;
      t->maybe = maybe;
    }
  pthread_mutex_unlock (&sp->lock);
  return r;
}

void
space_write_end (struct fs *fs, struct inode *ip, uint64_t off, uint64_t len,
                 const struct space_ticket *t, int r)
{
  struct fs_space *sp = &fs->space;
  uint64_t taken = 0;

  if (r == 0)
    {
      pthread_mutex_lock (&ip->lock);
      if (ip->npromise)
        taken = promise_remove (ip, sector_down (off), sector_up (off + len));
      pthread_mutex_unlock (&ip->lock);
    }
  pthread_mutex_lock (&sp->lock);
  sp->inflight -= t->bytes;
  /* promised sectors now written: they left the free space and the
   * promise together, so avail stays */
  sp->promised -= taken;
  if (r == -ENOSPC)
    sp->avail += (int64_t) t->maybe;   /* the drive mapped nothing */
  pthread_mutex_unlock (&sp->lock);
}

void
space_batch_begin (struct fs *fs, uint64_t bytes)
{
  pthread_mutex_lock (&fs->space.lock);
  fs->space.avail -= (int64_t) bytes;
  fs->space.inflight += bytes;
  pthread_mutex_unlock (&fs->space.lock);
}

void
space_batch_end (struct fs *fs, uint64_t bytes)
{
  pthread_mutex_lock (&fs->space.lock);
  fs->space.inflight -= bytes;
  pthread_mutex_unlock (&fs->space.lock);
}

void
space_drop (struct fs *fs, struct inode *ip, uint64_t off, uint64_t end)
{
  uint64_t a = sector_up (off);
  uint64_t b = end == UINT64_MAX ? UINT64_MAX : sector_down (end);
  uint64_t taken;

  if (!ip->npromise || a >= b)
    return;
  taken = promise_remove (ip, a, b);
  pthread_mutex_lock (&fs->space.lock);
  fs->space.promised -= taken;
  fs->space.avail += (int64_t) taken;
  pthread_mutex_unlock (&fs->space.lock);
}

uint64_t
space_promised (struct fs *fs)
{
  uint64_t n;

  pthread_mutex_lock (&fs->space.lock);
  n = fs->space.promised;
  pthread_mutex_unlock (&fs->space.lock);
  return n;
}
