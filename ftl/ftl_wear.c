/* ftl_wear.c - wear levelling and the bad-block table.  Dynamic levelling
 * is the free heaps (least-worn free block first, ftl_alloc.c); static
 * levelling here moves the data of the least-worn closed block (cold data)
 * to the cold stream when the erase-count gap exceeds wl_threshold, so
 * that block returns to circulation.  Whole valid pages keep their die
 * and their order (ftl_gc_layout.c): the most worn free block of the
 * victim's own die takes them.  Factory bad blocks are drawn from a
 * seeded generator at format time and recorded in every checkpoint. */
#include "ftl_internal.h"

static uint64_t
splitmix (uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void
ftl_wear_mark_factory_bad (struct ftl *f, uint32_t permille, uint64_t seed)
{
  if (!permille)
    return;
  for (uint32_t b = 0; b < f->nand.geo.total_blocks; b++)
    if (splitmix (&seed) % 1000 < permille)
      {
        f->blk[b].state = BLK_BAD;
        f->bad_blocks++;
      }
}

void
ftl_wear_after_erase (struct ftl *f, uint32_t b)
{
  f->erases_since_wl_check++;
}

int ftl_wear_migrate_one (struct ftl *f);

int
ftl_wear_static_check (struct ftl *f, uint64_t budget_ns)
{
  if (!f->wl_threshold || f->in_batch || f->gc_running)
    return 0;
  if (f->erases_since_wl_check < 8)
    return 0;
  f->erases_since_wl_check = 0;
  int r = 0;
  for (int round = 0; round < 2 && r == 0; round++)
    r = ftl_wear_migrate_one (f);
  return r;
}

/* Move the least worn closed block's data to the cold stream if the
 * erase-count gap is at least wl_threshold.  1 if moved, 0 if not. */
int
ftl_wear_migrate_one (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t maxec = 0, coldest = BLOCK_NONE;
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      struct block_info *bi = &f->blk[b];
      if (bi->state == BLK_BAD)
        continue;
      if (bi->erase_count > maxec)
        maxec = bi->erase_count;
      if (bi->state == BLK_CLOSED && bi->valid && !f->pins[b]
          && (coldest == BLOCK_NONE
              || bi->erase_count < f->blk[coldest].erase_count))
        coldest = b;
    }
  if (coldest == BLOCK_NONE
      || maxec - f->blk[coldest].erase_count < f->wl_threshold
      || f->free_blocks < f->gc_low + ftl_alloc_stream_width (f, ROLE_COLD) + 1)
    return 0;
  f->gc_running = true;
  ftl_block_bucket_remove (f, coldest);
  f->blk[coldest].state = BLK_VICTIM;
  int r = ftl_gc_relocate_block (f, coldest, f->role_stream[ROLE_COLD]);
  if (r == 0)
    r = ftl_gc_erase_barrier (f);
  /* the block the victim's whole pages went to holds cold data only */
  ftl_gc_layout_close_cold (f);
  if (r == 0 && f->blk[coldest].valid == 0)
    r = ftl_gc_erase_block (f, coldest);
  else
    {
      f->blk[coldest].state = BLK_CLOSED;
      ftl_block_bucket_insert (f, coldest);
    }
  if (r == 0)
    f->st.wl_migrations++;
  f->gc_running = false;
  return r < 0 ? r : 0;
}
