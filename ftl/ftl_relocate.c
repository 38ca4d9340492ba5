/* ftl_relocate.c - ftl_relocate (ossd_ftl.h, docs/sofs.md): an object's
 * units moved to fresh pages in a planned order, sector by sector through
 * the copy GC makes (ftl_gc.c, ftl_gc_relocate_block): the sector's bytes
 * as stored, an OOB entry of kind SECT_COPY (SECT_CORRUPT for a page that
 * fails its CRC) with the object's size, the mapping switched, the old
 * copy invalidated.  Recovery treats these copies as GC's: the newest
 * sequence number of a sector wins, and an invalidated old copy is not
 * erased before what superseded it is programmed (the erase barrier), so a
 * kill -9 mid-relocation leaves every sector readable with its bytes. */
#include "ftl_internal.h"

#define LOCK(f) pthread_mutex_lock (&(f)->lock)

/* One sector: 1 moved, 0 left (hole, or still in a write buffer). */
static int
move_sector (struct ftl *f, struct ftl_object *o, int s, uint32_t lpn,
             ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (map_get (f, o, lpn) == PPA_NONE)
    return 0;
  /* as the write path: mapping look-up (DFTL) before room is reserved */
  if (f->cfg.mapping_mode != FTL_MAP_RAM)
    ftl_dftl_lookup (f, o, lpn, true);
  int r = ftl_stream_reserve (f, s);
  if (r < 0)
    return ftl_fail (err, r, "relocating object %llu:%llu sector %u: %s",
                     (unsigned long long) o->pid, (unsigned long long) o->oid,
                     lpn, strerror (-r));
  /* reserving may have run GC, which may have moved it */
  ppa_t old = map_get (f, o, lpn);
  if (old == PPA_NONE || ftl_sector_in_buffer (f, old, NULL, NULL))
    return 0;
  uint64_t page = old / g->spp;
  uint32_t kind = SECT_COPY;
  uint8_t *buf = f->scratch2;
  uint64_t t = nand_time_read (&f->nand, page, 1, f->now);
  if (t > f->op_done)
    f->op_done = t;
  if (f->nand.be->ops->stores_data)
    {
      const struct ftl_page_view *v;
      r = ftl_page_view (f, page, &v);
      if (r < 0)
        return ftl_fail (err, r, "relocating object %llu:%llu: NAND read of "
                         "page %llu failed", (unsigned long long) o->pid,
                         (unsigned long long) o->oid, (unsigned long long) page);
      memcpy (buf, v->data + (size_t) (old % g->spp) * FTL_SECTOR, FTL_SECTOR);
      if (!ftl_page_sector_good (v, old % g->spp))
        kind = SECT_CORRUPT;   /* moved as it is: a fresh CRC must not launder it */
    }
  else
    memset (buf, 0, FTL_SECTOR);
  struct oob_entry ent = { .pid = o->pid, .oid = o->oid, .size = o->size,
                           .batch = 0, .lpn = lpn, .kind = kind };
  ftl_sector_invalidate (f, old);
  ppa_t np;
  r = ftl_stream_append_owned (f, s, &ent, buf, o->slot, &np);
  ftl_map_set (f, o, lpn, np);
  if (r < 0)
    return ftl_fail (err, r, "relocating object %llu:%llu: programming a page "
                     "failed: %s", (unsigned long long) o->pid,
                     (unsigned long long) o->oid, strerror (-r));
  f->st.relocated_sectors++;
  return 1;
}

int
ftl_relocate (ftl_t *f, uint64_t pid, uint64_t oid, const uint64_t *order,
              size_t n, uint32_t unit_bytes, size_t max_units, size_t *next,
              ftl_error *err)
{
  if (!unit_bytes || unit_bytes % FTL_SECTOR || !next || (n && !order))
    return ftl_fail (err, -EINVAL, "relocation of object %llu:%llu: unit of "
                     "%u bytes (a multiple of 4096 wanted) or no order",
                     (unsigned long long) pid, (unsigned long long) oid,
                     unit_bytes);
  LOCK (f);
  struct ftl_object *o = ftl_index_lookup (f, pid, oid);
  if (!o)
    {
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, -ENOENT, "relocation: object %llu:%llu does not "
                       "exist", (unsigned long long) pid,
                       (unsigned long long) oid);
    }
  if (f->in_batch)
    {
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, -EBUSY, "relocation of object %llu:%llu during "
                       "an atomic batch", (unsigned long long) pid,
                       (unsigned long long) oid);
    }
  ftl_pace_op_begin (f);
  uint64_t t0 = f->now;
  f->op_done = f->now;
  int s = ftl_stream_for_write (f, o);
  int r = 0;
  size_t i = *next, done = 0;
  uint32_t spu = unit_bytes / FTL_SECTOR;
  uint64_t nsect = (o->size + FTL_SECTOR - 1) / FTL_SECTOR;
  if (i == 0)
    r = ftl_stream_flush (f, s);   /* the first unit starts a page */
  for (; r == 0 && i < n && (!max_units || done < max_units); i++)
    {
      if (f->free_blocks < f->gc_high)
        {
          r = ftl_fail (err, -EAGAIN, "relocation of object %llu:%llu waits: "
                        "%u free blocks, background GC wants %u",
                        (unsigned long long) pid, (unsigned long long) oid,
                        f->free_blocks, f->gc_high);
          break;
        }
      if (order[i] == FTL_RELOCATE_GAP)
        {
          r = ftl_stream_flush (f, s);
          continue;
        }
      uint64_t first = order[i] * spu;
      if (order[i] > UINT64_MAX / spu || first >= nsect)
        continue;   /* past the end: nothing there */
      for (uint64_t l = first; r >= 0 && l < first + spu && l < nsect; l++)
        r = move_sector (f, o, s, (uint32_t) l, err);
      if (r > 0)
        r = 0;
      done++;
    }
  *next = i;
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  /* background work: the host clock does not wait for it; but under a
   * paced profile the caller does, until the flash has done it, so that a
   * relocation loop never runs ahead of the NAND and a host read arriving
   * waits behind one call's work at most */
  f->now = t0;
  uint64_t deadline = ftl_pace_deadline (f, nand_max_clock (&f->nand));
  pthread_mutex_unlock (&f->lock);
  ftl_pace_sleep_until (f, deadline);
  return r;
}
