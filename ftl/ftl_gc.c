/* ftl_gc.c - garbage collection: victim selection (greedy = fewest valid
 * sectors, O(1) from the valid-count buckets; cost-benefit = (1-u)/2u *
 * age, a scan of the closed blocks), relocation of valid sectors (data
 * copies, live meta records, translation pages), the erase barrier and
 * erase.  Foreground GC runs when free blocks drop under gc_low; ftl_idle
 * runs background GC up to gc_high.
 *
 * Erase safety: a relocated victim is erased only when whatever superseded
 * its sectors (GC copies, host overwrites, punch/remove records) is on
 * flash: it waits in `pending` until every write buffer that was open when
 * it was emptied has been programmed (no padding needed in steady state);
 * when free blocks run short the erase barrier programs all buffers
 * (padding) instead.  File backend: synced before the erase.
 */
#include "ftl_internal.h"

uint32_t
ftl_gc_pick_victim (struct ftl *f)
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
    ftl_sector_invalidate (f, (ppa_t) (lm.page * g->spp + i));
  ftl_live_meta_remove (f, idx);
  uint64_t t = nand_time_read (&f->nand, lm.page, g->spp, f->now);
  if (t > f->op_done)
    f->op_done = t;
  if (f->nand.be->ops->stores_data)
    {
      const struct ftl_page_view *v;
      r = ftl_page_view (f, lm.page, &v);
      if (r < 0)
        return r;
      if (!v->crc_ok)
        return -EIO;            /* never relocate records of a corrupt page */
      memcpy (buf, v->data, g->page_size);
      uint32_t off = 0;
      while (off + sizeof (struct meta_rec) <= lm.used)
        {
          struct meta_rec *rec = (struct meta_rec *) (buf + off);
          if (rec->len < sizeof *rec || off + rec->len > lm.used)
            break;
          if (rec->seq > f->ckpt_seq)
            {
              r = ftl_log_append_raw (f, rec);
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
      r = ftl_log_append_raw (f, rec);
      if (r < 0)
        return r;
    }
  return 0;
}

int
ftl_gc_copy_sector (struct ftl *f, ppa_t ppa, int stream)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint64_t page = ppa / g->spp;
  uint32_t s = ppa % g->spp;
  struct rmap_entry re = f->rmap[ppa];
  struct ftl_object *o = f->objs[re.owner];
  uint8_t *buf = f->scratch2;
  int r;
  /* a sector of a page failing its data CRC moves as it is but marked
   * corrupt: the copy's fresh page CRC must not launder it */
  uint32_t kind = SECT_COPY;
  if (f->nand.be->ops->stores_data)
    {
      const struct ftl_page_view *v;
      r = ftl_page_view (f, page, &v);
      if (r < 0)
        return r;
      memcpy (buf, v->data + (size_t) s * FTL_SECTOR, FTL_SECTOR);
      if (!ftl_page_sector_good (v, s))
        {
          kind = SECT_CORRUPT;
          f->st.gc_corrupt_copies++;
        }
    }
  r = ftl_stream_reserve (f, stream);
  if (r < 0)
    return r;
  struct oob_entry ent = {
    .pid = o->pid, .oid = o->oid, .size = o->size, .batch = 0,
    .lpn = re.lpn, .kind = kind,
  };
  ftl_sector_invalidate (f, ppa);
  ppa_t np;
  r = ftl_stream_append_owned (f, stream, &ent, buf, re.owner, &np);
  ftl_map_set (f, o, re.lpn, np);
  if (f->cfg.mapping_mode != FTL_MAP_RAM)
    ftl_dftl_gc_moved (f, o, re.lpn);
  f->st.gc_valid_copies++;
  return r;
}

/* Move every valid sector of block b out (data into `stream`; a page
 * whose every sector is valid data goes whole to a page of its own die
 * when that die can spare a block, ftl_gc_layout.c). */
int
ftl_gc_relocate_block (struct ftl *f, uint32_t b, int stream)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct block_info *bi = &f->blk[b];
  bool cold = stream == f->role_stream[ROLE_COLD];
  int r;
  for (uint32_t p = 0; p < bi->write_ptr && bi->valid; p++)
    {
      uint64_t page = (uint64_t) b * g->pages_per_block + p;
      bool page_read = false;
      if (ftl_gc_layout_page_whole (f, page))
        {
          bool kept;
          r = ftl_gc_layout_copy_page (f, page, cold, &kept);
          if (r < 0)
            return r;
          if (kept)
            continue;
          /* no room on its die: packed densely below, counted moved */
        }
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
              r = ftl_dftl_relocate_map_page (f, re.owner & ~OWNER_MAPFLAG, re.lpn,
                                          page);
              if (r < 0)
                return r;
              break;
            }
          if (!page_read)
            {
              uint64_t t = nand_time_read (&f->nand, page, g->spp, f->now);
              if (t > f->op_done)
                f->op_done = t;
              page_read = true;
            }
          r = ftl_gc_copy_sector (f, ppa, stream);
          if (r < 0)
            return r;
        }
    }
  return bi->valid ? -EIO : 0;
}

int
ftl_gc_erase_barrier (struct ftl *f)
{
  bool was = f->in_barrier;
  f->in_barrier = true;
  int r = ftl_streams_flush_all (f);
  if (r == 0)
    r = ftl_log_flush (f);
  if (r == 0)
    r = ftl_streams_flush_all (f);   /* the log may share a stream */
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
ftl_gc_erase_block (struct ftl *f, uint32_t b)
{
  const struct nand_geometry *g = &f->nand.geo;
  int r = f->nand.be->ops->erase (f->nand.be,
                                  (uint64_t) b * g->pages_per_block,
                                  g->pages_per_block);
  if (r < 0)
    return r;
  ftl_page_forget_block (f, b);
  uint64_t t = nand_time_erase (&f->nand, b, f->now);
  if (t > f->op_done && !f->gc_running)
    f->op_done = t;
  f->nand.unsynced = true;
  f->blk[b].erase_count++;
  ftl_block_make_free (f, b);
  ftl_wear_after_erase (f, b);
  return 0;
}

/* A relocated victim may be erased once nothing that superseded its
 * sectors is only in a write buffer: every buffered page (and the meta
 * log) must have been started after the victim was emptied.  Until then
 * it waits, instead of padding the buffers out at every GC round. */
static bool
victim_erasable (struct ftl *f, uint64_t done_seq)
{
  for (uint32_t i = 0; i < f->nstreams; i++)
    {
      struct ftl_stream *st = &f->streams[i];
      if (st->active && st->fill > 0 && st->page_seq <= done_seq)
        return false;
    }
  return f->meta_used == 0 || f->meta_first_seq > done_seq;
}

/* Erase the pending victims that are safe to erase; with force, program
 * every buffer first (padding) so that all of them are. */
static int
erase_pending (struct ftl *f, bool force)
{
  int r = 0;
  if (!f->npending)
    return 0;
  if (force)
    r = ftl_gc_erase_barrier (f);
  uint32_t k = 0;
  bool synced = force;
  for (uint32_t i = 0; i < f->npending; i++)
    {
      uint32_t b = f->pending[i].block;
      /* a pinned victim waits: an in-place reader still holds its pages */
      if (r == 0 && !f->pins[b] && (force || victim_erasable (f, f->pending[i].done_seq)))
        {
          if (!synced && f->nand.unsynced && f->nand.be->ops->persistent)
            {
              /* power loss must not take the superseding pages with it */
              r = f->nand.be->ops->sync (f->nand.be);
              if (r == 0)
                f->nand.unsynced = false;
              synced = true;
              if (r < 0)
                {
                  f->pending[k++] = f->pending[i];
                  continue;
                }
            }
          r = ftl_gc_erase_block (f, b);
          if (r == 0)
            continue;
        }
      f->pending[k++] = f->pending[i];
    }
  f->npending = k;
  return r;
}

/* Collect victims until want_free free blocks (counting relocated victims
 * waiting for their erase), at most max_victims, or the virtual-time
 * budget (0 = none) is used up. */
int
ftl_gc_collect (struct ftl *f, uint32_t max_victims, uint32_t want_free,
            uint64_t budget_ns)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (f->gc_running)
    return 0;
  f->gc_running = true;
  uint32_t done = 0;
  uint32_t scarce = ftl_alloc_stream_width (f, ROLE_GC) + 1;
  uint64_t t0 = nand_max_clock (&f->nand);
  int r = erase_pending (f, false);
  while (r == 0 && done < max_victims
         && f->free_blocks + f->npending < want_free
         && f->npending < GC_PENDING_MAX)   /* full of pinned victims: later */
    {
      uint32_t b = ftl_gc_pick_victim (f);
      if (b == BLOCK_NONE || f->blk[b].valid >= g->sectors_per_block)
        {
          if (f->npending)
            {
              uint32_t before = f->npending;
              r = erase_pending (f, true);
              if (r == 0 && f->npending == before)
                break;          /* all pinned by in-place reads: erased later */
              continue;
            }
          r = -ENOSPC;
          break;
        }
      ftl_block_bucket_remove (f, b);
      f->blk[b].state = BLK_VICTIM;
      done++;
      r = ftl_gc_relocate_block (f, b, f->role_stream[ROLE_GC]);
      if (r < 0 || f->blk[b].valid)
        {
          f->blk[b].state = BLK_CLOSED;
          ftl_block_bucket_insert (f, b);
          r = r ? r : -EIO;
          break;
        }
      f->pending[f->npending].block = b;
      f->pending[f->npending].done_seq = f->seq;
      f->npending++;
      /* erase what is safe; pad the buffers only when blocks run short */
      r = erase_pending (f, f->npending == GC_PENDING_MAX
                         || f->free_blocks <= scarce);
      if (budget_ns && nand_max_clock (&f->nand) - t0 >= budget_ns)
        break;
    }
  /* host writes need more than the reserve free, now */
  if (r == 0 && f->npending && f->free_blocks <= f->gc_reserve + 1)
    r = erase_pending (f, true);
  if (done)
    f->st.gc_runs++;
  /* lazy, batched mapping updates: GC moves of uncached entries reach their
   * translation pages once every few victims, while free blocks allow */
  f->gc_victims_unmapped += done;
  if (r == 0 && f->cfg.mapping_mode != FTL_MAP_RAM
      && f->gc_victims_unmapped >= 8 && f->free_blocks >= f->gc_low)
    {
      f->gc_victims_unmapped = 0;
      r = ftl_dftl_gc_flush_pending (f);
    }
  f->gc_running = false;
  return r;
}

/* Erase every relocated victim now (padding the write buffers). */
int
ftl_gc_erase_pending_all (struct ftl *f)
{
  if (f->gc_running || !f->npending)
    return 0;
  f->gc_running = true;
  int r = erase_pending (f, true);
  f->gc_running = false;
  return r;
}

int
ftl_gc_foreground (struct ftl *f)
{
  if (f->free_blocks >= f->gc_low || f->gc_running || f->in_batch)
    return 0;
  /* when static wear levelling is due, collect enough for its moves too */
  bool wl_due = f->wl_threshold && f->erases_since_wl_check >= 8;
  uint32_t want = f->gc_low + 2
    + (wl_due ? ftl_alloc_stream_width (f, ROLE_COLD) + 1 : 0);
  int r = ftl_gc_collect (f, UINT32_MAX, want, 0);
  if (wl_due && (r == 0 || r == -ENOSPC))
    {
      int r2 = ftl_wear_static_check (f, 0);
      if (r2 < 0)
        return r2;
      if (f->free_blocks < f->gc_low)
        r = ftl_gc_collect (f, UINT32_MAX, f->gc_low + 2, 0);
    }
  return r;
}
