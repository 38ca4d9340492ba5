/* ftl_alloc.c - write allocation: write streams (open blocks striped over
 * dies, each with one page being filled by 4 KiB sectors), block
 * allocation from per-die free heaps (least-worn first = dynamic wear
 * levelling), page programming with OOB, and valid-sector accounting
 * (bitmap, per-block counts, reverse map, GC buckets by valid count).
 *
 * Invariant kept here: the OOB entries of a page still being filled
 * always describe exactly its valid sectors (an invalidated buffered
 * sector is marked dead), so recovery never resurrects a sector that was
 * overwritten, punched or removed before its page was programmed.
 */
#include "ftl_internal.h"

/* ---- GC buckets: CLOSED blocks in doubly linked lists by valid count ---- */
void
ftl_block_bucket_insert (struct ftl *f, uint32_t b)
{
  struct block_info *bi = &f->blk[b];
  uint32_t v = bi->valid;
  bi->lprev = BLOCK_NONE;
  bi->lnext = f->bucket_head[v];
  if (bi->lnext != BLOCK_NONE)
    f->blk[bi->lnext].lprev = b;
  f->bucket_head[v] = b;
}

void
ftl_block_bucket_remove (struct ftl *f, uint32_t b)
{
  struct block_info *bi = &f->blk[b];
  if (bi->lprev != BLOCK_NONE)
    f->blk[bi->lprev].lnext = bi->lnext;
  else
    f->bucket_head[bi->valid] = bi->lnext;
  if (bi->lnext != BLOCK_NONE)
    f->blk[bi->lnext].lprev = bi->lprev;
  bi->lprev = bi->lnext = BLOCK_NONE;
}

/* ---- free heaps ---- */
static bool
heap_less (struct ftl *f, uint32_t a, uint32_t b)
{
  return f->blk[a].erase_count < f->blk[b].erase_count;
}

void
ftl_free_heap_push (struct ftl *f, uint32_t die, uint32_t b)
{
  struct free_heap *h = &f->free_heap[die];
  uint32_t i = h->n++;
  h->b[i] = b;
  while (i > 0)
    {
      uint32_t p = (i - 1) / 2;
      if (!heap_less (f, h->b[i], h->b[p]))
        break;
      uint32_t t = h->b[i];
      h->b[i] = h->b[p];
      h->b[p] = t;
      i = p;
    }
  f->free_blocks++;
}

static uint32_t
free_heap_pop (struct ftl *f, uint32_t die)
{
  struct free_heap *h = &f->free_heap[die];
  if (!h->n)
    return BLOCK_NONE;
  uint32_t top = h->b[0];
  h->b[0] = h->b[--h->n];
  uint32_t i = 0;
  for (;;)
    {
      uint32_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < h->n && heap_less (f, h->b[l], h->b[m]))
        m = l;
      if (r < h->n && heap_less (f, h->b[r], h->b[m]))
        m = r;
      if (m == i)
        break;
      uint32_t t = h->b[i];
      h->b[i] = h->b[m];
      h->b[m] = t;
      i = m;
    }
  f->free_blocks--;
  return top;
}

/* Remove and return the most worn free block of die `only_die`, or of any
 * die for FTL_ANY_DIE (static wear levelling puts cold data there);
 * BLOCK_NONE if there is none.  O(free blocks); cold allocations are
 * rare. */
static uint32_t
free_heap_take_most_worn (struct ftl *f, uint32_t only_die)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t best_d = 0, best_i = UINT32_MAX;
  for (uint32_t d = 0; d < g->dies; d++)
    for (uint32_t i = 0; i < f->free_heap[d].n
           && (only_die == FTL_ANY_DIE || d == only_die); i++)
      if (best_i == UINT32_MAX
          || f->blk[f->free_heap[d].b[i]].erase_count
          > f->blk[f->free_heap[best_d].b[best_i]].erase_count)
        {
          best_d = d;
          best_i = i;
        }
  if (best_i == UINT32_MAX)
    return BLOCK_NONE;
  struct free_heap *h = &f->free_heap[best_d];
  uint32_t b = h->b[best_i];
  /* delete position best_i: move the last element there and re-heapify
   * (a max leaf moved down can only need to sift up or stay) */
  h->b[best_i] = h->b[--h->n];
  uint32_t i = best_i;
  while (i > 0 && i < h->n)
    {
      uint32_t p = (i - 1) / 2;
      if (!heap_less (f, h->b[i], h->b[p]))
        break;
      uint32_t t = h->b[i];
      h->b[i] = h->b[p];
      h->b[p] = t;
      i = p;
    }
  for (;;)
    {
      uint32_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < h->n && heap_less (f, h->b[l], h->b[m]))
        m = l;
      if (r < h->n && heap_less (f, h->b[r], h->b[m]))
        m = r;
      if (m == i)
        break;
      uint32_t t = h->b[i];
      h->b[i] = h->b[m];
      h->b[m] = t;
      i = m;
    }
  f->free_blocks--;
  return b;
}

void
ftl_block_make_free (struct ftl *f, uint32_t b)
{
  struct block_info *bi = &f->blk[b];
  bi->state = BLK_FREE;
  bi->valid = 0;
  bi->write_ptr = 0;
  bi->has_meta = 0;
  bi->stream = -1;
  ftl_free_heap_push (f, nand_die_of_block (&f->nand.geo, b), b);
}

int
ftl_block_alloc_on_die (struct ftl *f, uint32_t die, bool most_worn,
                        uint32_t *out)
{
  uint32_t b = most_worn ? free_heap_take_most_worn (f, die)
    : free_heap_pop (f, die);
  if (b == BLOCK_NONE)
    return -ENOSPC;
  struct block_info *bi = &f->blk[b];
  bi->state = BLK_OPEN;
  bi->write_ptr = 0;
  bi->valid = 0;
  *out = b;
  return 0;
}

int
ftl_block_alloc (struct ftl *f, uint32_t die, bool for_gc, uint32_t *out)
{
  const struct nand_geometry *g = &f->nand.geo;
  /* host writes keep the GC reserve; GC keeps one block for the erase
   * barrier, which may need it to program the meta log */
  uint32_t reserve = f->in_barrier ? 0 : for_gc ? 1 : f->gc_reserve;
  if (f->free_blocks <= reserve)
    return -ENOSPC;
  for (uint32_t k = 0; k < g->dies; k++)
    {
      uint32_t d = (die + k) % g->dies;
      uint32_t b = free_heap_pop (f, d);
      if (b != BLOCK_NONE)
        {
          struct block_info *bi = &f->blk[b];
          bi->state = BLK_OPEN;
          bi->write_ptr = 0;
          bi->valid = 0;
          *out = b;
          return 0;
        }
    }
  return -ENOSPC;
}

/* ---- valid accounting ---- */
void
ftl_sector_validate (struct ftl *f, ppa_t ppa, uint32_t owner, uint32_t lpn)
{
  uint32_t b = ppa / f->nand.geo.sectors_per_block;
  struct block_info *bi = &f->blk[b];
  f->valid_bits[ppa >> 6] |= 1ull << (ppa & 63);
  f->rmap[ppa].owner = owner;
  f->rmap[ppa].lpn = lpn;
  if (bi->state == BLK_CLOSED)
    ftl_block_bucket_remove (f, b);
  bi->valid++;
  if (bi->state == BLK_CLOSED)
    ftl_block_bucket_insert (f, b);
}

void
ftl_sector_invalidate (struct ftl *f, ppa_t ppa)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t b = ppa / g->sectors_per_block;
  struct block_info *bi = &f->blk[b];
  if (!sector_is_valid (f, ppa))
    return;
  f->valid_bits[ppa >> 6] &= ~(1ull << (ppa & 63));
  if (bi->state == BLK_CLOSED)
    ftl_block_bucket_remove (f, b);
  bi->valid--;
  if (bi->state == BLK_CLOSED)
    ftl_block_bucket_insert (f, b);
  else if (bi->state == BLK_OPEN && bi->stream >= 0)
    {
      struct ftl_stream *st = &f->streams[bi->stream];
      uint32_t page = (ppa / g->spp) % g->pages_per_block;
      if (st->active && st->buf_block == b && st->buf_page == page)
        st->ent[ppa % g->spp].kind = SECT_DEAD;
    }
}

bool
ftl_sector_in_buffer (struct ftl *f, ppa_t ppa, const uint8_t **data,
                  struct oob_entry **ent)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t b = ppa / g->sectors_per_block;
  struct block_info *bi = &f->blk[b];
  if (bi->state != BLK_OPEN || bi->stream < 0)
    return false;
  struct ftl_stream *st = &f->streams[bi->stream];
  uint32_t page = (ppa / g->spp) % g->pages_per_block;
  if (!st->active || st->buf_block != b || st->buf_page != page)
    return false;
  if (data)
    *data = st->data ? st->data + (ppa % g->spp) * FTL_SECTOR : NULL;
  if (ent)
    *ent = &st->ent[ppa % g->spp];
  return true;
}

/* ---- streams ---- */
static int
stream_add (struct ftl *f, int role, uint32_t width)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[f->nstreams];
  memset (st, 0, sizeof *st);
  st->role = role;
  st->width = width;
  st->owner = SLOT_NONE;
  st->blocks = malloc (width * sizeof (uint32_t));
  if (!st->blocks)
    return -ENOMEM;
  for (uint32_t i = 0; i < width; i++)
    st->blocks[i] = BLOCK_NONE;
  if (f->nand.be->ops->stores_data)
    {
      st->data = calloc (1, g->page_size);
      if (!st->data)
        return -ENOMEM;
    }
  st->die_base = (f->nstreams * 7) % g->dies;
  return (int) f->nstreams++;
}

uint32_t
ftl_alloc_stream_width (struct ftl *f, int role)
{
  uint32_t dies = f->nand.geo.dies;
  switch (role)
    {
    case ROLE_HOST:
      return f->cfg.stripe_width && f->cfg.stripe_width < dies
        ? f->cfg.stripe_width : dies;
    case ROLE_GC:
    case ROLE_COLD:
      return dies < 4 ? dies : 4;
    default:
      return 1;
    }
}

int
ftl_alloc_init (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t nobj = f->cfg.alloc_policy == FTL_ALLOC_PER_OBJECT
    ? f->cfg.max_open_blocks : 0;
  f->streams = calloc (6 + nobj, sizeof *f->streams);
  f->bucket_head = malloc ((g->sectors_per_block + 1) * sizeof (uint32_t));
  f->blk = calloc (g->total_blocks, sizeof *f->blk);
  f->pins = calloc (g->total_blocks, sizeof *f->pins);
  f->free_heap = calloc (g->dies, sizeof *f->free_heap);
  f->valid_bits = calloc ((g->total_sectors + 63) / 64, sizeof (uint64_t));
  f->rmap = malloc (g->total_sectors * sizeof *f->rmap);
  if (!f->streams || !f->bucket_head || !f->blk || !f->pins || !f->free_heap
      || !f->valid_bits || !f->rmap)
    return -ENOMEM;
  memset (f->bucket_head, 0xff, (g->sectors_per_block + 1) * sizeof (uint32_t));
  for (uint32_t d = 0; d < g->dies; d++)
    {
      f->free_heap[d].cap = g->blocks_per_die;
      f->free_heap[d].b = malloc (g->blocks_per_die * sizeof (uint32_t));
      if (!f->free_heap[d].b)
        return -ENOMEM;
    }
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      f->blk[b].stream = -1;
      f->blk[b].lprev = f->blk[b].lnext = BLOCK_NONE;
    }
  int s;
  s = stream_add (f, ROLE_HOST, ftl_alloc_stream_width (f, ROLE_HOST));
  if (s < 0)
    return s;
  f->role_stream[ROLE_HOST] = s;
  if (f->cfg.alloc_policy == FTL_ALLOC_UNIFIED)
    f->role_stream[ROLE_META] = f->role_stream[ROLE_HOST];
  else
    {
      s = stream_add (f, ROLE_META, ftl_alloc_stream_width (f, ROLE_META));
      if (s < 0)
        return s;
      f->role_stream[ROLE_META] = s;
    }
  s = stream_add (f, ROLE_GC, ftl_alloc_stream_width (f, ROLE_GC));
  if (s < 0)
    return s;
  f->role_stream[ROLE_GC] = s;
  s = stream_add (f, ROLE_COLD, ftl_alloc_stream_width (f, ROLE_COLD));
  if (s < 0)
    return s;
  f->role_stream[ROLE_COLD] = s;
  s = stream_add (f, ROLE_GC, g->dies);
  if (s < 0)
    return s;
  f->streams[s].keeps_die = true;
  f->layout_stream = s;
  s = stream_add (f, ROLE_COLD, g->dies);
  if (s < 0)
    return s;
  f->streams[s].keeps_die = true;
  f->cold_layout_stream = s;
  f->obj_stream_first = f->nstreams;
  f->obj_stream_count = nobj;
  for (uint32_t i = 0; i < nobj; i++)
    {
      s = stream_add (f, ROLE_OBJECT, 1);
      if (s < 0)
        return s;
    }
  return 0;
}

void
ftl_alloc_fini (struct ftl *f)
{
  if (f->streams)
    for (uint32_t i = 0; i < f->nstreams; i++)
      {
        free (f->streams[i].blocks);
        free (f->streams[i].data);
      }
  free (f->streams);
  if (f->free_heap)
    for (uint32_t d = 0; d < f->nand.geo.dies; d++)
      free (f->free_heap[d].b);
  free (f->free_heap);
  free (f->bucket_head);
  free (f->blk);
  free (f->pins);
  free (f->valid_bits);
  free (f->rmap);
  f->streams = NULL;
  f->free_heap = NULL;
  f->bucket_head = NULL;
  f->blk = NULL;
  f->pins = NULL;
  f->valid_bits = NULL;
  f->rmap = NULL;
}

/* Which stream a host write to `o` goes to. */
int
ftl_stream_for_write (struct ftl *f, struct ftl_object *o)
{
  if (f->cfg.alloc_policy == FTL_ALLOC_PER_OBJECT && f->obj_stream_count)
    {
      if (o->stream >= 0 && f->streams[o->stream].owner == o->slot)
        {
          f->streams[o->stream].last_use = f->seq;
          return o->stream;
        }
      /* bind the least recently used object stream (bounded open blocks);
       * its open block simply continues with the new owner */
      uint32_t best = f->obj_stream_first;
      for (uint32_t i = 0; i < f->obj_stream_count; i++)
        {
          uint32_t s = f->obj_stream_first + i;
          if (f->streams[s].owner == SLOT_NONE)
            {
              best = s;
              break;
            }
          if (f->streams[s].last_use < f->streams[best].last_use)
            best = s;
        }
      struct ftl_stream *st = &f->streams[best];
      if (st->owner != SLOT_NONE && st->owner < f->objs_cap
          && f->objs[st->owner])
        f->objs[st->owner]->stream = -1;
      st->owner = o->slot;
      st->last_use = f->seq;
      o->stream = (int32_t) best;
      return (int) best;
    }
  if (o->temperature == 0)
    return f->role_stream[ROLE_COLD];
  return f->role_stream[ROLE_HOST];
}

void
ftl_streams_release_object (struct ftl *f, struct ftl_object *o)
{
  if (o->stream >= 0 && f->streams[o->stream].owner == o->slot)
    f->streams[o->stream].owner = SLOT_NONE;
  o->stream = -1;
}

static void
stream_close_lane (struct ftl *f, struct ftl_stream *st, uint32_t lane)
{
  uint32_t b = st->blocks[lane];
  if (b == BLOCK_NONE)
    return;
  struct block_info *bi = &f->blk[b];
  bi->state = BLK_CLOSED;
  bi->stream = -1;
  ftl_block_bucket_insert (f, b);
  st->blocks[lane] = BLOCK_NONE;
}

void
ftl_stream_close_lane (struct ftl *f, int s, uint32_t lane)
{
  stream_close_lane (f, &f->streams[s], lane);
}

/* Make sure stream s has a page being filled (may run foreground GC and
 * allocate a block). */
static int
stream_start_page (struct ftl *f, int s)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[s];
  bool gc_ctx = st->role == ROLE_GC || f->gc_running;
  bool gc_tried = false;
retry:
  if (st->active)
    return 0;
  uint32_t lane = st->cursor;
  uint32_t b = st->blocks[lane];
  if (b != BLOCK_NONE && f->blk[b].write_ptr >= g->pages_per_block)
    {
      stream_close_lane (f, st, lane);
      b = BLOCK_NONE;
    }
  if (b == BLOCK_NONE && st->keeps_die)
    return -ENOSPC;   /* ftl_gc_layout_lane_ready opens its lanes */
  if (b == BLOCK_NONE)
    {
      if (!gc_ctx && !f->in_batch && !gc_tried)
        {
          /* GC may itself program through this stream (the meta log in
           * the unified policy): look at the stream again afterwards */
          gc_tried = true;
          int r = ftl_gc_foreground (f);
          if (r < 0 && r != -ENOSPC)
            return r;
          goto retry;
        }
      uint32_t die;
      if (st->width == g->dies)
        die = lane;
      else
        die = (st->die_base + f->die_rr++) % g->dies;
      int r;
      if (st->role == ROLE_COLD && f->wl_threshold
          && f->free_blocks > (gc_ctx ? 1 : f->gc_reserve))
        {
          /* cold data goes to the most worn free block */
          b = free_heap_take_most_worn (f, FTL_ANY_DIE);
          f->blk[b].state = BLK_OPEN;
          f->blk[b].write_ptr = 0;
          f->blk[b].valid = 0;
          r = 0;
        }
      else
        r = ftl_block_alloc (f, die, gc_ctx || f->in_batch, &b);
      if (r < 0)
        return r;
      f->blk[b].stream = (int16_t) s;
      st->blocks[lane] = b;
    }
  st->active = true;
  st->page_seq = f->seq;
  st->buf_block = b;
  st->buf_page = f->blk[b].write_ptr;
  st->fill = 0;
  memset (st->ent, 0, sizeof st->ent);
  return 0;
}

static int
program_page_at (struct ftl *f, uint32_t b, uint32_t page_in_block,
                 uint16_t kind, const void *data,
                 const struct oob_entry *ent, uint32_t used)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct block_info *bi = &f->blk[b];
  uint64_t page = (uint64_t) b * g->pages_per_block + page_in_block;
  uint8_t oob[1024];
  struct oob_header *h = (struct oob_header *) oob;
  uint64_t seq = next_seq (f);
  if (bi->write_ptr != page_in_block)
    return -EIO;   /* NAND programs pages of a block in order */
  if (f->nand.be->ops->stores_data)
    {
      memset (oob, 0, g->oob_size);
      h->magic = OOB_MAGIC;
      h->kind = kind;
      h->spp = (uint16_t) g->spp;
      h->seq = seq;
      h->erase_count = bi->erase_count;
      h->data_crc = ftl_crc32c (0, data, g->page_size);
      h->used = used;
      if (ent)
        memcpy (oob + sizeof *h, ent, g->spp * sizeof (struct oob_entry));
      h->crc = ftl_crc32c (0, oob, oob_bytes_needed (g->spp));
      int r = f->nand.be->ops->program (f->nand.be, page, data, oob);
      if (r < 0)
        return r;
    }
  uint64_t accepted = nand_time_program (&f->nand, page, f->now, NULL);
  if (accepted > f->op_done)
    f->op_done = accepted;
  f->nand.unsynced = true;
  bi->write_ptr++;
  bi->mtime = seq;
  if (kind == PAGE_META)
    bi->has_meta = 1;
  f->pages_since_ckpt++;
  return 0;
}

static int
stream_program_buffer (struct ftl *f, struct ftl_stream *st)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (!st->active)
    return 0;
  if (st->fill < g->spp)
    f->st.padded_sectors += g->spp - st->fill;
  int r = program_page_at (f, st->buf_block, st->buf_page, PAGE_DATA,
                           st->data, st->ent, 0);
  if (r < 0)
    return r;
  st->active = false;
  uint32_t lane = st->cursor;
  if (f->blk[st->buf_block].write_ptr >= g->pages_per_block)
    stream_close_lane (f, st, lane);
  st->cursor = (st->cursor + 1) % st->width;
  return 0;
}

/* Reserve room for one more sector in stream s (may run GC). */
int
ftl_stream_reserve (struct ftl *f, int s)
{
  return stream_start_page (f, s);
}

/* Append one sector to stream s (which ftl_stream_reserve made active) and
 * account it valid for `ent` (owner/lpn from ent->... via owner slot). */
int
ftl_stream_append_owned (struct ftl *f, int s, const struct oob_entry *ent,
                     const void *data, uint32_t owner, ppa_t *out)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[s];
  int r = stream_start_page (f, s);
  if (r < 0)
    return r;
  uint32_t slot = st->fill++;
  ppa_t ppa = (ppa_t) (((uint64_t) st->buf_block * g->pages_per_block
                        + st->buf_page) * g->spp + slot);
  st->ent[slot] = *ent;
  if (st->data)
    {
      if (data)
        memcpy (st->data + (size_t) slot * FTL_SECTOR, data, FTL_SECTOR);
      else
        memset (st->data + (size_t) slot * FTL_SECTOR, 0, FTL_SECTOR);
    }
  ftl_sector_validate (f, ppa, owner, ent->lpn);
  *out = ppa;
  if (st->fill == g->spp)
    return stream_program_buffer (f, st);
  return 0;
}

int
ftl_stream_flush (struct ftl *f, int s)
{
  struct ftl_stream *st = &f->streams[s];
  if (!st->active)
    return 0;
  if (st->fill == 0)
    {
      st->active = false;
      return 0;
    }
  return stream_program_buffer (f, st);
}

int
ftl_streams_flush_all (struct ftl *f)
{
  for (uint32_t i = 0; i < f->nstreams; i++)
    {
      int r = ftl_stream_flush (f, (int) i);
      if (r < 0)
        return r;
    }
  return 0;
}

/* Program a whole page (META or MAP) through stream s.  If the stream has a
 * partly filled data page and room after it, the buffered sectors move one
 * page down and the whole page takes their place (no padding). */
int
ftl_stream_program_page (struct ftl *f, int s, uint16_t kind, const void *data,
                     uint32_t used, uint64_t *page_out)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_stream *st = &f->streams[s];
  int r;
  if (st->active && st->fill > 0
      && st->buf_page + 1 < g->pages_per_block)
    {
      uint32_t b = st->buf_block, old_page = st->buf_page;
      ppa_t base_old = (ppa_t) (((uint64_t) b * g->pages_per_block
                                 + old_page) * g->spp);
      ppa_t base_new = base_old + g->spp;
      for (uint32_t i = 0; i < st->fill; i++)
        {
          if (st->ent[i].kind == SECT_DEAD || !sector_is_valid (f, base_old + i))
            continue;
          struct rmap_entry re = f->rmap[base_old + i];
          f->valid_bits[(base_old + i) >> 6] &= ~(1ull << ((base_old + i) & 63));
          f->valid_bits[(base_new + i) >> 6] |= 1ull << ((base_new + i) & 63);
          f->rmap[base_new + i] = re;
          if (re.owner < OWNER_MAPFLAG && f->objs[re.owner])
            ftl_map_set (f, f->objs[re.owner], re.lpn, base_new + i);
        }
      st->buf_page = old_page + 1;
      r = program_page_at (f, b, old_page, kind, data, NULL, used);
      if (r < 0)
        return r;
      *page_out = (uint64_t) b * g->pages_per_block + old_page;
      return 0;
    }
  if (st->active && st->fill > 0)
    {
      r = stream_program_buffer (f, st);
      if (r < 0)
        return r;
    }
  r = stream_start_page (f, s);
  if (r < 0)
    return r;
  uint32_t b = st->buf_block, page = st->buf_page;
  st->active = false;
  r = program_page_at (f, b, page, kind, data, NULL, used);
  if (r < 0)
    return r;
  if (f->blk[b].write_ptr >= g->pages_per_block)
    stream_close_lane (f, st, st->cursor);
  st->cursor = (st->cursor + 1) % st->width;
  *page_out = (uint64_t) b * g->pages_per_block + page;
  return 0;
}

/* After a truncation: buffered sectors of o keep their size field within
 * the new length (so replay never grows the object back). */
void
ftl_streams_patch_object (struct ftl *f, struct ftl_object *o, uint64_t new_size)
{
  for (uint32_t i = 0; i < f->nstreams; i++)
    {
      struct ftl_stream *st = &f->streams[i];
      if (!st->active)
        continue;
      for (uint32_t k = 0; k < st->fill; k++)
        if (st->ent[k].kind != SECT_DEAD && st->ent[k].pid == o->pid
            && st->ent[k].oid == o->oid && st->ent[k].size > new_size)
          st->ent[k].size = new_size;
    }
}
