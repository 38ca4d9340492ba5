/* ftl_map.c - per-object mapping lpn -> ppa (a directory of chunks of
 * `epc` entries; one chunk is one translation page) and the simulated
 * demand-cached mapping (DFTL) that turns mapping look-ups into NAND
 * traffic in the FTL_MAP_DFTL and FTL_MAP_DFTL_SPLIT modes.
 *
 * The authoritative mapping is always the in-RAM chunk table (recovery
 * rebuilds it from checkpoint + OOB); in DFTL modes the cache decides
 * which look-ups cost a translation-page read and which evictions cost a
 * translation-page write (read-modify-write of the page on flash).
 */
#include "ftl_internal.h"

int
ftl_map_chunk_ensure (struct ftl *f, struct ftl_object *o, uint32_t lpn)
{
  uint32_t c = lpn / f->epc;
  if (c >= o->nchunks)
    {
      uint32_t nn = o->nchunks ? o->nchunks : 1;
      while (nn <= c)
        nn *= 2;
      struct map_chunk **nc = realloc (o->chunks, nn * sizeof *nc);
      if (!nc)
        return -ENOMEM;
      memset (nc + o->nchunks, 0, (nn - o->nchunks) * sizeof *nc);
      o->chunks = nc;
      o->nchunks = nn;
    }
  if (!o->chunks[c])
    {
      struct map_chunk *ch = malloc (sizeof *ch + f->epc * sizeof (ppa_t));
      if (!ch)
        return -ENOMEM;
      ch->nmapped = 0;
      ch->map_ppa = PPA_NONE;
      ch->dirty_head = SLOT_NONE;
      ch->ndirty = 0;
      ch->gc_pending = 0;
      ch->bprev = ch->bnext = NULL;
      ch->lprev = ch->lnext = NULL;
      ch->in_clean = 0;
      memset (ch->ppa, 0xff, f->epc * sizeof (ppa_t));
      o->chunks[c] = ch;
    }
  return 0;
}

/* Set lpn's mapping; the caller has ensured the chunk exists when ppa is
 * not PPA_NONE.  Keeps o->mapped and f->used_sectors. */
int
ftl_map_set (struct ftl *f, struct ftl_object *o, uint32_t lpn, ppa_t ppa)
{
  uint32_t c = lpn / f->epc;
  if (c >= o->nchunks || !o->chunks[c])
    {
      if (ppa == PPA_NONE)
        return 0;
      int r = ftl_map_chunk_ensure (f, o, lpn);
      if (r < 0)
        return r;
    }
  struct map_chunk *ch = o->chunks[c];
  ppa_t old = ch->ppa[lpn % f->epc];
  ch->ppa[lpn % f->epc] = ppa;
  if (old == PPA_NONE && ppa != PPA_NONE)
    {
      ch->nmapped++;
      o->mapped++;
      f->used_sectors++;
    }
  else if (old != PPA_NONE && ppa == PPA_NONE)
    {
      ch->nmapped--;
      o->mapped--;
      f->used_sectors--;
    }
  return 0;
}
