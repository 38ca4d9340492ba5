/* ftl_gc.c - garbage collection: victim selection (greedy = fewest valid
 * sectors, O(1) from the valid-count buckets; cost-benefit = (1-u)/2u *
 * age, a scan of the closed blocks), relocation of valid sectors (data
 * copies, live meta records, translation pages), the erase barrier and
 * erase.  Foreground GC runs when free blocks drop under gc_low; ftl_idle
 * runs background GC up to gc_high.
 *
 * Erase barrier: before a block is erased every write buffer and the meta
 * log are programmed and (file backend) synced, so whatever superseded the
 * erased sectors is on flash before they disappear.
 */
#include "ftl_internal.h"

uint32_t
gc_pick_victim (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (f->cfg.gc_policy == FTL_GC_COST_BENEFIT)
    {
      uint32_t best = BLOCK_NONE;
      double best_score = -1;
      for (uint32_t b = 0; b < g->total_blocks; b++)
        {
          struct block_info *bi = &f->blk[b];
          if (bi->state != BLK_CLOSED || bi->valid >= g->sectors_per_block)
            continue;
          double u = (double) bi->valid / g->sectors_per_block;
          double age = (double) (f->seq - bi->mtime) + 1;
          double score = u == 0 ? 1e300 : (1 - u) / (2 * u) * age;
          if (score > best_score)
            {
              best_score = score;
              best = b;
            }
        }
      return best;
    }
  for (uint32_t v = 0; v < g->sectors_per_block; v++)
    if (f->bucket_head[v] != BLOCK_NONE)
      return f->bucket_head[v];
  return BLOCK_NONE;
}

static int
relocate_meta_page (struct ftl *f, uint32_t idx)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct live_meta lm = f->live_meta[idx];
  uint8_t *buf = f->scratch2;
  int r;
  for (uint32_t i = 0; i < g->spp; i++)
    sector_invalidate (f, (ppa_t) (lm.page * g->spp + i));
  live_meta_remove (f, idx);
  uint64_t t = nand_time_read (&f->nand, lm.page, g->spp, f->now);
  if (t > f->op_done)
    f->op_done = t;
  if (f->nand.be->ops->stores_data)
    {
      r = f->nand.be->ops->read_sector (f->nand.be, lm.page, 0, g->spp, buf);
      if (r < 0)
        return r;
      uint32_t off = 0;
      while (off + sizeof (struct meta_rec) <= lm.used)
        {
          struct meta_rec *rec = (struct meta_rec *) (buf + off);
          if (rec->len < sizeof *rec || off + rec->len > lm.used)
            break;
          if (rec->seq > f->ckpt_seq)
            {
              r = log_append_raw (f, rec);
              if (r < 0)
                return r;
            }
          off += rec->len;
        }
    }
  else
    {
      /* metadata-only backend: relocate an equally sized filler */
      struct meta_rec *rec = (struct meta_rec *) buf;
      memset (rec, 0, sizeof *rec);
      rec->len = lm.used < sizeof *rec ? (uint32_t) sizeof *rec : lm.used;
      rec->seq = f->ckpt_seq + 1;
      r = log_append_raw (f, rec);
      if (r < 0)
        return r;
    }
  return 0;
}

/* Move every valid sector of block b out (data into `stream`). */
int
gc_relocate_block (struct ftl *f, uint32_t b, int stream)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct block_info *bi = &f->blk[b];
  uint8_t *buf = f->scratch2;
  int r;
  for (uint32_t p = 0; p < bi->write_ptr && bi->valid; p++)
    {
      uint64_t page = (uint64_t) b * g->pages_per_block + p;
      bool page_read = false;
      for (uint32_t s = 0; s < g->spp; s++)
        {
          ppa_t ppa = (ppa_t) (page * g->spp + s);
          if (!sector_is_valid (f, ppa))
            continue;
          struct rmap_entry re = f->rmap[ppa];
          if (re.owner == OWNER_META)
            {
              r = relocate_meta_page (f, re.lpn);
              if (r < 0)
                return r;
              break;
            }
          if (re.owner & OWNER_MAPFLAG)
            {
              r = dftl_relocate_map_page (f, re.owner & ~OWNER_MAPFLAG, re.lpn,
                                          page);
              if (r < 0)
                return r;
              break;
            }
          struct ftl_object *o = f->objs[re.owner];
          if (!page_read)
            {
              uint64_t t = nand_time_read (&f->nand, page, g->spp, f->now);
              if (t > f->op_done)
                f->op_done = t;
              page_read = true;
            }
          if (f->nand.be->ops->stores_data)
            {
              r = f->nand.be->ops->read_sector (f->nand.be, page, s, 1, buf);
              if (r < 0)
                return r;
            }
          r = stream_reserve (f, stream);
          if (r < 0)
            return r;
          struct oob_entry ent = {
            .pid = o->pid, .oid = o->oid, .size = o->size, .batch = 0,
            .lpn = re.lpn, .kind = SECT_COPY,
          };
          sector_invalidate (f, ppa);
          ppa_t np;
          r = stream_append_owned (f, stream, &ent, buf, re.owner, &np);
          map_set (f, o, re.lpn, np);
          if (f->cfg.mapping_mode != FTL_MAP_RAM)
            dftl_gc_moved (f, o, re.lpn);
          f->st.gc_valid_copies++;
          if (r < 0)
            return r;
        }
    }
  return bi->valid ? -EIO : 0;
}

int
gc_erase_barrier (struct ftl *f)
{
  bool was = f->in_barrier;
  f->in_barrier = true;
  int r = streams_flush_all (f);
  if (r == 0)
    r = log_flush (f);
  if (r == 0)
    r = streams_flush_all (f);   /* the log may share a stream */
  f->in_barrier = was;
  if (r == 0 && f->nand.unsynced && f->nand.be->ops->persistent)
    {
      r = f->nand.be->ops->sync (f->nand.be);
      if (r == 0)
        f->nand.unsynced = false;
    }
  return r;
}

int
gc_erase_block (struct ftl *f, uint32_t b)
{
  const struct nand_geometry *g = &f->nand.geo;
  int r = f->nand.be->ops->erase (f->nand.be,
                                  (uint64_t) b * g->pages_per_block,
                                  g->pages_per_block);
  if (r < 0)
    return r;
  uint64_t t = nand_time_erase (&f->nand, b, f->now);
  if (t > f->op_done && !f->gc_running)
    f->op_done = t;
  f->nand.unsynced = true;
  f->blk[b].erase_count++;
  block_make_free (f, b);
  wear_after_erase (f, b);
  return 0;
}

#define GC_BATCH 8

/* Barrier, then erase the relocated victims.  A victim that could not be
 * emptied (or whose barrier failed) goes back to the closed blocks. */
static int
erase_victims (struct ftl *f, const uint32_t *victims, uint32_t nv)
{
  int r = gc_erase_barrier (f);
  for (uint32_t i = 0; i < nv; i++)
    {
      uint32_t b = victims[i];
      if (r == 0 && f->blk[b].valid == 0)
        r = gc_erase_block (f, b);
      else
        {
          f->blk[b].state = BLK_CLOSED;
          block_bucket_insert (f, b);
        }
    }
  return r;
}

/* Collect victims until want_free free blocks, at most max_victims, or the
 * virtual-time budget (0 = none) is used up. */
int
gc_collect (struct ftl *f, uint32_t max_victims, uint32_t want_free,
            uint64_t budget_ns)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (f->gc_running)
    return 0;
  f->gc_running = true;
  uint32_t victims[GC_BATCH], nv = 0, done = 0;
  uint64_t t0 = nand_max_clock (&f->nand);
  int r = 0;
  while (done < max_victims && f->free_blocks + nv < want_free)
    {
      uint32_t b = gc_pick_victim (f);
      if (b == BLOCK_NONE || f->blk[b].valid >= g->sectors_per_block)
        {
          r = -ENOSPC;
          break;
        }
      block_bucket_remove (f, b);
      f->blk[b].state = BLK_VICTIM;
      victims[nv++] = b;
      done++;
      r = gc_relocate_block (f, b, f->role_stream[ROLE_GC]);
      if (r < 0)
        break;
      /* erase in batches (fewer barriers), but at once when free blocks
       * are scarce: relocation consumes them before erases return any */
      if (nv == GC_BATCH || f->free_blocks + nv >= want_free
          || done >= max_victims
          || f->free_blocks < f->gc_low + alloc_stream_width (f, ROLE_GC))
        {
          r = erase_victims (f, victims, nv);
          nv = 0;
          if (r < 0)
            break;
        }
      if (budget_ns && nand_max_clock (&f->nand) - t0 >= budget_ns)
        break;
    }
  if (nv)
    {
      int r2 = erase_victims (f, victims, nv);
      if (r == 0)
        r = r2;
    }
  if (done)
    f->st.gc_runs++;
  /* lazy, batched mapping updates: GC moves of uncached entries reach their
   * translation pages once every few victims, while free blocks allow */
  f->gc_victims_unmapped += done;
  if (r == 0 && f->cfg.mapping_mode != FTL_MAP_RAM
      && f->gc_victims_unmapped >= 8 && f->free_blocks >= f->gc_low)
    {
      f->gc_victims_unmapped = 0;
      r = dftl_gc_flush_pending (f);
    }
  f->gc_running = false;
  return r;
}

int
gc_foreground (struct ftl *f)
{
  if (f->free_blocks >= f->gc_low || f->gc_running || f->in_batch)
    return 0;
  /* when static wear levelling is due, collect enough for its moves too */
  bool wl_due = f->wl_threshold && f->erases_since_wl_check >= 8;
  uint32_t want = f->gc_low + 2
    + (wl_due ? alloc_stream_width (f, ROLE_COLD) + 1 : 0);
  int r = gc_collect (f, UINT32_MAX, want, 0);
  if (wl_due && (r == 0 || r == -ENOSPC))
    {
      int r2 = wear_static_check (f, 0);
      if (r2 < 0)
        return r2;
      if (f->free_blocks < f->gc_low)
        r = gc_collect (f, UINT32_MAX, f->gc_low + 2, 0);
    }
  return r;
}
