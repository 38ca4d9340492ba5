/* ftl_gc_layout.c - GC and static wear levelling keep the layout of the
 * pages they move (docs/sofs.md, "GC and wear levelling keep the layout").
 *
 * A planned layout (ftl_relocate) or a host stream's stripe is made of
 * whole NAND pages: the units read together share a page, in the planned
 * order, and consecutive pages lie on different dies and channels so a
 * sequential read runs on all of them at once.  GC's own stream packs
 * valid sectors densely into 4 dies, which would shift pages across page
 * boundaries and pile many dies' pages onto four.  So a victim's page
 * whose every sector is valid object data is copied whole, its sectors in
 * their order, into an empty page of the layout stream's lane for the
 * die the page was on: same die, same channel, same neighbours.
 *
 * Progress is never worse than the dense path: a whole page fills exactly
 * one destination page (no padding, the write buffer is empty between
 * pages), and a lane takes a new block of its die only while more free
 * blocks remain than GC's dense stream needs for all its lanes and the
 * erase barrier; otherwise, or when the die has no free block, the page
 * goes the dense way (counted in gc_layout_moved_pages).
 *
 * Static wear levelling has a lane set of its own: a migration takes the
 * most worn free block of the victim's die, fills it with the victim's
 * pages in their order and closes it, so cold data never shares a block
 * with GC's copies and no lane stays open between migrations (the space
 * left unwritten is reclaimed by GC like any invalid space).  Pages holding a
 * hole, an overwritten sector, a meta record or translation entries are
 * packed densely as before.  Crash safety is the copy path's
 * (ftl_gc_copy_sector): OOB entries of kind copy, newest sequence wins,
 * the victim erased only after the erase barrier.
 */
#include "ftl_internal.h"

bool
ftl_gc_layout_page_whole (struct ftl *f, uint64_t page)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (f->cfg.gc_ignores_layout)
    return false;
  for (uint32_t s = 0; s < g->spp; s++)
    {
      ppa_t ppa = (ppa_t) (page * g->spp + s);
      if (!sector_is_valid (f, ppa))
        return false;
      uint32_t owner = f->rmap[ppa].owner;
      if (owner == OWNER_META || (owner & OWNER_MAPFLAG))
        return false;
    }
  return true;
}

/* The erase count of the most worn free block of `die` (FTL_ANY_DIE: of
 * any die); 0 when there is none. */
static uint32_t
most_worn_free (struct ftl *f, uint32_t die)
{
  uint32_t best = 0;
  for (uint32_t d = 0; d < f->nand.geo.dies; d++)
    if (die == FTL_ANY_DIE || d == die)
      for (uint32_t i = 0; i < f->free_heap[d].n; i++)
        if (f->blk[f->free_heap[d].b[i]].erase_count > best)
          best = f->blk[f->free_heap[d].b[i]].erase_count;
  return best;
}

/* The die holding the most worn free block (FTL_ANY_DIE if none). */
static uint32_t
die_of_most_worn_free (struct ftl *f)
{
  uint32_t best = 0, best_die = FTL_ANY_DIE;
  for (uint32_t d = 0; d < f->nand.geo.dies; d++)
    for (uint32_t i = 0; i < f->free_heap[d].n; i++)
      if (best_die == FTL_ANY_DIE
          || f->blk[f->free_heap[d].b[i]].erase_count > best)
        {
          best = f->blk[f->free_heap[d].b[i]].erase_count;
          best_die = d;
        }
  return best_die;
}

/* Blocks GC's dense stream may still need: a new block per lane plus one
 * for the erase barrier's meta log (ftl_gc_collect's "scarce"). */
static uint32_t
dense_stream_needs (struct ftl *f)
{
  return ftl_alloc_stream_width (f, ROLE_GC) + 1;
}

/* Make lane `die` of the (cold) lane set ready for a whole page: its
 * open block if it has room, else a new block of that die while the
 * dense stream keeps what it needs.  *ready false: it cannot. */
static int
lane_open (struct ftl *f, uint32_t die, bool cold, bool *ready)
{
  const struct nand_geometry *g = &f->nand.geo;
  int s = cold ? f->cold_layout_stream : f->layout_stream;
  struct ftl_stream *st = &f->streams[s];
  *ready = false;
  if (st->active && st->fill)
    return -EIO;      /* whole pages never leave a page half filled */
  st->active = false; /* a page started but not filled (a failed copy) */
  uint32_t b = st->blocks[die];
  if (b != BLOCK_NONE && f->blk[b].write_ptr >= g->pages_per_block)
    {
      ftl_stream_close_lane (f, s, die);
      b = BLOCK_NONE;
    }
  if (b == BLOCK_NONE)
    {
      if (f->free_blocks <= dense_stream_needs (f))
        return 0;
      /* cold data (static wear levelling) goes to the die's most worn
       * free block, as the cold stream would put it on any die; its lane
       * is closed after the migration (ftl_gc_layout_close_cold) */
      bool most_worn = cold && f->wl_threshold;
      int r = ftl_block_alloc_on_die (f, die, most_worn, &b);
      if (r == -ENOSPC)
        return 0;
      if (r < 0)
        return r;
      f->blk[b].stream = (int16_t) s;
      st->blocks[die] = b;
    }
  st->cursor = die;
  *ready = true;
  return 0;
}

int
ftl_gc_layout_lane_ready (struct ftl *f, uint32_t die, bool cold, bool *ready)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[cold ? f->cold_layout_stream
                                      : f->layout_stream];
  *ready = false;
  /* static wear levelling is there to put cold data on worn blocks:
   * it keeps the die only when the die has a free block about as worn
   * as the most worn one anywhere (within its threshold) */
  uint32_t b = st->blocks[die];
  bool has_room = b != BLOCK_NONE && f->blk[b].write_ptr < g->pages_per_block;
  if (cold && f->wl_threshold && !has_room
      && most_worn_free (f, die) + f->wl_threshold
         < most_worn_free (f, FTL_ANY_DIE))
    return 0;
  return lane_open (f, die, cold, ready);
}

/* Points the lane set's cursor at the lane of another die whose open
 * block has room; false if there is none.  A die on the same channel
 * first (the channel spread stays); else the search starts at a rotating
 * die, so pages that cannot stay do not all pile onto one die. */
static bool
other_lane_with_room (struct ftl *f, bool cold, uint32_t die)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[cold ? f->cold_layout_stream
                                      : f->layout_stream];
  uint32_t ch = nand_channel_of_die (g, die), start = f->die_rr++;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t k = 0; k < st->width; k++)
      {
        uint32_t lane = (start + k) % st->width;
        uint32_t b = st->blocks[lane];
        if (lane == die || b == BLOCK_NONE
            || f->blk[b].write_ptr >= g->pages_per_block
            || (pass == 0 && nand_channel_of_die (g, lane) != ch))
          continue;
        st->cursor = lane;
        return true;
      }
  return false;
}

int
ftl_gc_layout_copy_page (struct ftl *f, uint64_t page, bool cold, bool *kept)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t die = nand_die_of_block (g, (uint32_t) (page / g->pages_per_block));
  bool ready;
  *kept = false;
  int r = ftl_gc_layout_lane_ready (f, die, cold, &ready);
  if (r < 0)
    return r;
  if (!ready)
    {
      /* its die cannot spare a block: the page leaves it, but still whole
       * if another die's lane has room, else packed densely */
      f->st.gc_layout_moved_pages++;
      bool elsewhere = other_lane_with_room (f, cold, die);
      if (!elsewhere && cold)
        {
          /* wear levelling: the most worn free block anywhere, still
           * taking the page whole */
          uint32_t d = die_of_most_worn_free (f);
          if (d != FTL_ANY_DIE && d != die)
            {
              r = lane_open (f, d, true, &elsewhere);
              if (r < 0)
                return r;
            }
        }
      if (!elsewhere)
        return 0;
    }
  uint64_t t = nand_time_read (&f->nand, page, g->spp, f->now);
  if (t > f->op_done)
    f->op_done = t;
  for (uint32_t s = 0; s < g->spp; s++)
    {
      r = ftl_gc_copy_sector (f, (ppa_t) (page * g->spp + s),
                              cold ? f->cold_layout_stream : f->layout_stream);
      if (r < 0)
        return r;
    }
  f->st.gc_layout_kept_pages++;
  *kept = true;
  return 0;
}

void
ftl_gc_layout_close_cold (struct ftl *f)
{
  int s = f->cold_layout_stream;
  for (uint32_t lane = 0; lane < f->streams[s].width; lane++)
    ftl_stream_close_lane (f, s, lane);
}
