/* ftl_ops.c - object state changes (write, punch, set length, create,
 * remove, set attribute) shared by the public calls, atomic batches and
 * (with log=false) recovery replay.  Callers hold the FTL lock and have
 * validated arguments; these functions log the meta record, change the
 * mapping and bump the object version. */
#include "ftl_internal.h"

uint64_t
ftl_count_unmapped (struct ftl *f, struct ftl_object *o, uint64_t first,
                uint64_t end)
{
  uint64_t n = 0;
  for (uint64_t l = first; l < end; l++)
    {
      uint32_t c = (uint32_t) (l / f->epc);
      if (c >= o->nchunks || !o->chunks[c])
        {
          uint64_t next = (uint64_t) (c + 1) * f->epc;
          uint64_t stop = next < end ? next : end;
          n += stop - l;
          l = stop - 1;
          continue;
        }
      if (o->chunks[c]->ppa[l % f->epc] == PPA_NONE)
        n++;
    }
  return n;
}

/* Read one mapped sector (from a write buffer or the NAND). */
int
ftl_read_sector (struct ftl *f, ppa_t ppa, void *buf, uint64_t *t_done)
{
  const struct nand_geometry *g = &f->nand.geo;
  const uint8_t *bd;
  struct oob_entry *be;
  if (ftl_sector_in_buffer (f, ppa, &bd, &be))
    {
      if (be && be->kind == SECT_CORRUPT)
        return -EBADMSG;
      if (bd)
        memcpy (buf, bd, FTL_SECTOR);
      else
        memset (buf, 0, FTL_SECTOR);
      return 0;
    }
  uint64_t page = ppa / g->spp;
  const struct ftl_page_view *v;
  int r = f->nand.be->ops->stores_data ? ftl_page_view (f, page, &v) : 0;
  uint64_t t = nand_time_read (&f->nand, page, 1, f->now);
  if (t_done)
    *t_done = t;
  if (t > f->op_done)
    f->op_done = t;
  if (r < 0)
    return r;
  if (!f->nand.be->ops->stores_data)
    {
      memset (buf, 0, FTL_SECTOR);
      return 0;
    }
  if (!ftl_page_sector_good (v, ppa % g->spp))
    return -EBADMSG;            /* the page fails its data CRC */
  memcpy (buf, v->data + (size_t) (ppa % g->spp) * FTL_SECTOR, FTL_SECTOR);
  return 0;
}

void
ftl_unmap_range (struct ftl *f, struct ftl_object *o, uint64_t first,
             uint64_t end)
{
  uint64_t nchunk_end = (uint64_t) o->nchunks * f->epc;
  if (end > nchunk_end)
    end = nchunk_end;
  for (uint64_t l = first; l < end; l++)
    {
      uint32_t c = (uint32_t) (l / f->epc);
      struct map_chunk *ch = o->chunks[c];
      if (!ch || ch->nmapped == 0)
        {
          l = (uint64_t) (c + 1) * f->epc - 1;
          continue;
        }
      ppa_t p = ch->ppa[l % f->epc];
      if (p != PPA_NONE)
        {
          ftl_sector_invalidate (f, p);
          ftl_map_set (f, o, (uint32_t) l, PPA_NONE);
        }
      if (ch->nmapped == 0 && (l % f->epc == f->epc - 1 || l + 1 == end))
        {
          /* an empty chunk costs 16 KiB; give it back (DFTL modes keep
           * it: cache entries and the translation page refer to it) */
          if (f->cfg.mapping_mode == FTL_MAP_RAM)
            {
              free (ch);
              o->chunks[c] = NULL;
            }
        }
    }
}

int
ftl_op_write (struct ftl *f, struct ftl_object *o, uint64_t off,
          const void *buf, size_t len, ftl_error *err)
{
  if (len == 0)
    return 0;
  uint64_t end = off + len;
  if (end < off || ((end - 1) >> FTL_SECTOR_SHIFT) >= 0xfffffff0ull)
    return ftl_fail (err, -EFBIG, "write [%llu, +%zu) of object %llu:%llu "
                     "is beyond the maximum object size",
                     (unsigned long long) off, len,
                     (unsigned long long) o->pid, (unsigned long long) o->oid);
  uint64_t first = off >> FTL_SECTOR_SHIFT;
  uint64_t last = (end - 1) >> FTL_SECTOR_SHIFT;
  uint64_t fresh = ftl_count_unmapped (f, o, first, last + 1);
  if (f->used_sectors + fresh > f->capacity_sectors)
    return ftl_fail (err, -ENOSPC, "drive full: write of %llu new sectors to "
                     "object %llu:%llu needs more than the %llu free",
                     (unsigned long long) fresh, (unsigned long long) o->pid,
                     (unsigned long long) o->oid,
                     (unsigned long long) (f->capacity_sectors
                                           - f->used_sectors));
  uint64_t size_after = end > o->size ? end : o->size;
  const uint8_t *src = buf;
  uint8_t *tmp = f->scratch;
  int s = ftl_stream_for_write (f, o);
  for (uint64_t l = first; l <= last; l++)
    {
      int r = ftl_map_chunk_ensure (f, o, (uint32_t) l);
      /* the mapping look-up may write translation pages (and so run GC):
       * do it before reserving room and reading the old location */
      if (r == 0 && f->cfg.mapping_mode != FTL_MAP_RAM)
        ftl_dftl_lookup (f, o, (uint32_t) l, true);
      if (r == 0)
        r = ftl_stream_reserve (f, s);
      if (r < 0)
        return ftl_fail (err, r, "write to object %llu:%llu at sector %llu: "
                         "%s", (unsigned long long) o->pid,
                         (unsigned long long) o->oid, (unsigned long long) l,
                         strerror (-r));
      ppa_t old = map_get (f, o, (uint32_t) l);
      uint64_t soff = l << FTL_SECTOR_SHIFT;
      const uint8_t *data;
      if (soff >= off && soff + FTL_SECTOR <= end)
        data = src + (soff - off);
      else
        {
          if (old != PPA_NONE)
            {
              r = ftl_read_sector (f, old, tmp, NULL);
              if (r == -EBADMSG)
                return ftl_fail (err, -EIO, "read-modify-write of object "
                                 "%llu:%llu: data CRC mismatch in object "
                                 "%llu:%llu at offset %llu (NAND page %llu)",
                                 (unsigned long long) o->pid,
                                 (unsigned long long) o->oid,
                                 (unsigned long long) o->pid,
                                 (unsigned long long) o->oid,
                                 (unsigned long long) soff,
                                 (unsigned long long) (old / f->nand.geo.spp));
              if (r < 0)
                return ftl_fail (err, r, "read-modify-write of object "
                                 "%llu:%llu sector %llu failed",
                                 (unsigned long long) o->pid,
                                 (unsigned long long) o->oid,
                                 (unsigned long long) l);
            }
          else
            memset (tmp, 0, FTL_SECTOR);
          uint64_t a = off > soff ? off : soff;
          uint64_t b = end < soff + FTL_SECTOR ? end : soff + FTL_SECTOR;
          memcpy (tmp + (a - soff), src + (a - off), b - a);
          data = tmp;
        }
      if (old != PPA_NONE)
        ftl_sector_invalidate (f, old);
      struct oob_entry ent = {
        .pid = o->pid, .oid = o->oid, .size = size_after,
        .batch = f->in_batch ? f->cur_batch : 0,
        .lpn = (uint32_t) l, .kind = SECT_DATA,
      };
      ppa_t np;
      r = ftl_stream_append_owned (f, s, &ent, data, o->slot, &np);
      ftl_map_set (f, o, (uint32_t) l, np);
      if (r < 0)
        return ftl_fail (err, r, "programming a page for object %llu:%llu "
                         "failed: %s", (unsigned long long) o->pid,
                         (unsigned long long) o->oid, strerror (-r));
    }
  f->st.host_writes += last - first + 1;
  f->st.host_write_bytes += len;
  o->size = size_after;
  o->version = next_seq (f);
  o->mtime_ns = ftl_wall_ns ();
  return 0;
}

static int
zero_range (struct ftl *f, struct ftl_object *o, uint64_t a, uint64_t b,
            ftl_error *err)
{
  /* zero [a, b) inside one sector, only if that sector is mapped; bytes
   * past the object size are zero already */
  if (b > o->size)
    b = o->size;
  if (a >= b || map_get (f, o, (uint32_t) (a >> FTL_SECTOR_SHIFT)) == PPA_NONE)
    return 0;
  static const uint8_t zeros[FTL_SECTOR];
  uint64_t size = o->size;
  int r = ftl_op_write (f, o, a, zeros, (size_t) (b - a), err);
  o->size = size;
  return r;
}

int
ftl_op_punch (struct ftl *f, struct ftl_object *o, uint64_t off, uint64_t len,
          bool log, ftl_error *err)
{
  if (len == 0)
    return 0;
  uint64_t end = off + len;
  if (end < off)
    end = UINT64_MAX;
  uint64_t fs = (off + FTL_SECTOR - 1) >> FTL_SECTOR_SHIFT;
  uint64_t fe = end >> FTL_SECTOR_SHIFT;
  int r;
  if (log)
    {
      if (fs > fe)   /* inside one sector, neither edge aligned */
        r = zero_range (f, o, off, end, err);
      else
        {
          r = 0;
          if (off & (FTL_SECTOR - 1))
            r = zero_range (f, o, off, fs << FTL_SECTOR_SHIFT, err);
          if (r == 0 && (end & (FTL_SECTOR - 1)))
            r = zero_range (f, o, fe << FTL_SECTOR_SHIFT, end, err);
        }
      if (r < 0)
        return r;
    }
  if (fs < fe)
    {
      ftl_unmap_range (f, o, fs, fe);
      if (log)
        {
          r = ftl_log_append (f, META_PUNCH, o->pid, o->oid, fs, fe, NULL, 0,
                          NULL);
          if (r < 0)
            return ftl_fail (err, r, "logging punch failed");
        }
    }
  o->version = log ? next_seq (f) : o->version;
  o->mtime_ns = ftl_wall_ns ();
  return 0;
}

int
ftl_op_set_length (struct ftl *f, struct ftl_object *o, uint64_t len, bool log,
               ftl_error *err)
{
  int r;
  /* In replay the size known so far may lag the truth, so a replayed
   * length change always drops everything past the new length. */
  if (len < o->size || !log)
    {
      if (log && (len & (FTL_SECTOR - 1)))
        {
          uint64_t se = (len | (FTL_SECTOR - 1)) + 1;
          r = zero_range (f, o, len, se < o->size ? se : o->size, err);
          if (r < 0)
            return r;
        }
      ftl_unmap_range (f, o, (len + FTL_SECTOR - 1) >> FTL_SECTOR_SHIFT,
                   UINT64_MAX);
      ftl_streams_patch_object (f, o, len);
    }
  if (log)
    {
      r = ftl_log_append (f, META_SETLEN, o->pid, o->oid, len, 0, NULL, 0, NULL);
      if (r < 0)
        return ftl_fail (err, r, "logging set-length failed");
      o->version = next_seq (f);
    }
  o->size = len;
  o->mtime_ns = ftl_wall_ns ();
  return 0;
}

int
ftl_op_remove (struct ftl *f, struct ftl_object *o, bool log, ftl_error *err)
{
  if (log)
    {
      int r = ftl_log_append (f, META_OBJ_REMOVE, o->pid, o->oid, 0, 0, NULL, 0,
                          NULL);
      if (r < 0)
        return ftl_fail (err, r, "logging remove failed");
    }
  ftl_unmap_range (f, o, 0, UINT64_MAX);
  ftl_streams_release_object (f, o);
  if (f->cfg.mapping_mode != FTL_MAP_RAM)
    ftl_dftl_forget_object (f, o);
  ftl_index_delete (f, o);
  return 0;
}

int
ftl_op_create (struct ftl *f, uint64_t pid, uint64_t oid, bool log,
           struct ftl_object **out, ftl_error *err)
{
  uint64_t seq = 0;
  if (log)
    {
      int r = ftl_log_append (f, META_OBJ_CREATE, pid, oid, 0, 0, NULL, 0, &seq);
      if (r < 0)
        return ftl_fail (err, r, "logging create failed");
    }
  struct ftl_object *o = ftl_index_insert (f, pid, oid);
  if (!o)
    return ftl_fail (err, -ENOMEM, "out of memory creating object");
  o->version = seq ? seq : next_seq (f);
  o->ctime_ns = o->mtime_ns = ftl_wall_ns ();
  if (out)
    *out = o;
  return 0;
}

int
ftl_op_set_attr (struct ftl *f, struct ftl_object *o, uint32_t page,
             uint32_t number, const void *val, uint32_t len, bool log,
             ftl_error *err)
{
  uint64_t seq = 0;
  if (log)
    {
      /* payload: u32 value length, value */
      memcpy (f->scratch, &len, 4);
      if (len)
        memcpy (f->scratch + 4, val, len);
      int r = ftl_log_append (f, META_SETATTR, o->pid, o->oid, page, number,
                          f->scratch, len + 4, &seq);
      if (r < 0)
        return ftl_fail (err, r, "logging set-attribute failed");
    }
  int r = ftl_attr_set (o, page, number, val, len);
  if (r < 0)
    return ftl_fail (err, r, "out of memory setting attribute");
  o->version = seq ? seq : o->version;
  o->mtime_ns = ftl_wall_ns ();
  return 0;
}
