/* ftl_dftl.c - the demand-cached mapping (DFTL) model.
 *
 * The authoritative mapping stays in the RAM chunk table; this cache
 * decides what a real DFTL would have paid in NAND operations:
 *   FTL_MAP_DFTL        one LRU of entries.  A miss reads the translation
 *                       page (if it exists on flash); evicting a dirty
 *                       entry writes its translation page back (read old +
 *                       program new), cleaning every cached dirty entry of
 *                       that page in the same batch.
 *   FTL_MAP_DFTL_SPLIT  a clean (read) area and a dirty (write) area, half
 *                       the cache each.  Read misses only ever evict clean
 *                       entries (free), so a host read costs at most one
 *                       translation read + one data read.  When the dirty
 *                       area is full, the LRU dirty entry's translation
 *                       page is written back with all its dirty entries,
 *                       which move to the clean area.
 * Translation pages are real NAND pages (kind MAP, index stream); GC
 * relocates them, and GC data moves update cached entries (dirty) or are
 * batched per translation page until the erase barrier.  Translation pages
 * are not needed for recovery (checkpoint + OOB replay rebuild the map), so
 * ftl_flush does not write dirty entries back.
 */
#include "ftl_internal.h"

#define NIL 0xffffffffu

static inline uint32_t
key_hash (uint64_t k)
{
  k ^= k >> 31;
  k *= 0x9e3779b97f4a7c15ull;
  return (uint32_t) (k >> 32);
}

int
ftl_dftl_init (struct ftl *f)
{
  struct dftl_cache *c = &f->dc;
  uint64_t cap = (uint64_t) (f->cfg.mapping_cache_fraction
                             * (double) f->capacity_sectors);
  if (cap < 64)
    cap = 64;
  if (cap > 0x7fffffffull)
    cap = 0x7fffffffull;
  c->cap = (uint32_t) cap;
  c->dirty_cap = f->cfg.mapping_mode == FTL_MAP_DFTL_SPLIT ? c->cap / 2
    : c->cap;
  c->e = calloc (c->cap, sizeof *c->e);
  uint32_t hs = 1;
  while (hs < c->cap * 2)
    hs <<= 1;
  c->hmask = hs - 1;
  c->hash = malloc ((size_t) hs * sizeof (uint32_t));
  if (!c->e || !c->hash)
    return -ENOMEM;
  memset (c->hash, 0xff, (size_t) hs * sizeof (uint32_t));
  for (uint32_t i = 0; i < c->cap; i++)
    c->e[i].next = i + 1 < c->cap ? i + 1 : NIL;
  c->free_head = 0;
  c->clean = (struct dftl_list) { NIL, NIL, 0 };
  c->dirty = (struct dftl_list) { NIL, NIL, 0 };
  return 0;
}

void
ftl_dftl_fini (struct ftl *f)
{
  free (f->dc.e);
  free (f->dc.hash);
  free (f->dc.pending);
  memset (&f->dc, 0, sizeof f->dc);
}

static void
list_unlink (struct dftl_cache *c, struct dftl_list *l, uint32_t i)
{
  struct dftl_entry *e = &c->e[i];
  if (e->prev != NIL)
    c->e[e->prev].next = e->next;
  else
    l->head = e->next;
  if (e->next != NIL)
    c->e[e->next].prev = e->prev;
  else
    l->tail = e->prev;
  l->n--;
}

static void
list_push_head (struct dftl_cache *c, struct dftl_list *l, uint32_t i)
{
  struct dftl_entry *e = &c->e[i];
  e->prev = NIL;
  e->next = l->head;
  if (l->head != NIL)
    c->e[l->head].prev = i;
  else
    l->tail = i;
  l->head = i;
  l->n++;
}

static inline struct dftl_list *
list_of (struct ftl *f, struct dftl_entry *e)
{
  if (f->cfg.mapping_mode == FTL_MAP_DFTL_SPLIT && e->dirty)
    return &f->dc.dirty;
  return &f->dc.clean;
}

static uint32_t
find (struct dftl_cache *c, uint64_t key)
{
  for (uint32_t i = c->hash[key_hash (key) & c->hmask]; i != NIL;
       i = c->e[i].hnext)
    if (c->e[i].key == key)
      return i;
  return NIL;
}

static struct map_chunk *
chunk_of (struct ftl *f, uint64_t key)
{
  uint32_t slot = (uint32_t) (key >> 32), lpn = (uint32_t) key;
  struct ftl_object *o = slot < f->objs_cap ? f->objs[slot] : NULL;
  uint32_t ci = lpn / f->epc;
  if (!o || ci >= o->nchunks)
    return NULL;
  return o->chunks[ci];
}

static void
chunk_dirty_link (struct ftl *f, struct map_chunk *ch, uint32_t i)
{
  struct dftl_entry *e = &f->dc.e[i];
  e->cprev = NIL;
  e->cnext = ch->dirty_head;
  if (ch->dirty_head != NIL)
    f->dc.e[ch->dirty_head].cprev = i;
  ch->dirty_head = i;
  ch->ndirty++;
}

static void
chunk_dirty_unlink (struct ftl *f, struct map_chunk *ch, uint32_t i)
{
  struct dftl_entry *e = &f->dc.e[i];
  if (e->cprev != NIL)
    f->dc.e[e->cprev].cnext = e->cnext;
  else
    ch->dirty_head = e->cnext;
  if (e->cnext != NIL)
    f->dc.e[e->cnext].cprev = e->cprev;
  ch->ndirty--;
}

static void
entry_remove (struct ftl *f, uint32_t i)
{
  struct dftl_cache *c = &f->dc;
  struct dftl_entry *e = &c->e[i];
  list_unlink (c, list_of (f, e), i);
  if (e->dirty)
    {
      struct map_chunk *ch = chunk_of (f, e->key);
      if (ch)
        chunk_dirty_unlink (f, ch, i);
    }
  uint32_t *pp = &c->hash[key_hash (e->key) & c->hmask];
  while (*pp != i)
    pp = &c->e[*pp].hnext;
  *pp = e->hnext;
  e->used = 0;
  e->dirty = 0;
  e->next = c->free_head;
  c->free_head = i;
}

/* Read a translation page for a look-up (host-visible NAND read). */
static void
map_page_read (struct ftl *f, struct map_chunk *ch, bool host_read)
{
  if (!ch || ch->map_ppa == PPA_NONE)
    return;
  uint64_t t = nand_time_read (&f->nand, ch->map_ppa, f->nand.geo.spp,
                               f->now);
  if (t > f->op_done)
    f->op_done = t;
  f->st.map_reads++;
  if (host_read)
    f->op_nand_reads++;
}

/* Program a new version of translation page (slot, ci): read-modify-write
 * of the old one, which dies. */
static int
map_page_write (struct ftl *f, uint32_t slot, uint32_t ci, bool host_read)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_object *o = f->objs[slot];
  struct map_chunk *ch = o->chunks[ci];
  map_page_read (f, ch, host_read);
  uint64_t page;
  /* inside GC, translation pages go with the GC copies (narrow stream,
   * GC reserve); otherwise to the index stream of the policy */
  int s = f->gc_running ? f->role_stream[ROLE_GC] : f->role_stream[ROLE_META];
  int r = ftl_stream_program_page (f, s, PAGE_MAP, ch->ppa, 0, &page);
  if (r < 0)
    return r;
  if (ch->map_ppa != PPA_NONE)
    for (uint32_t i = 0; i < g->spp; i++)
      ftl_sector_invalidate (f, (ppa_t) ((uint64_t) ch->map_ppa * g->spp + i));
  ch->map_ppa = (uint32_t) page;
  for (uint32_t i = 0; i < g->spp; i++)
    ftl_sector_validate (f, (ppa_t) (page * g->spp + i), slot | OWNER_MAPFLAG,
                     ci);
  f->st.map_writes++;
  return 0;
}

/* Write back every dirty entry of the translation page of entry i. */
static int
write_back (struct ftl *f, uint32_t i, bool host_read)
{
  struct dftl_cache *c = &f->dc;
  uint64_t key = c->e[i].key;
  uint32_t slot = (uint32_t) (key >> 32), ci = (uint32_t) key / f->epc;
  struct map_chunk *ch = chunk_of (f, key);
  if (!ch)
    return 0;
  int r = map_page_write (f, slot, ci, host_read);
  ch->gc_pending = 0;
  for (uint32_t j = ch->dirty_head; j != NIL;)
    {
      uint32_t nx = c->e[j].cnext;
      struct dftl_entry *e = &c->e[j];
      if (f->cfg.mapping_mode == FTL_MAP_DFTL_SPLIT)
        {
          /* dirty area -> clean area (MRU end) */
          list_unlink (c, &c->dirty, j);
          e->dirty = 0;
          list_push_head (c, &c->clean, j);
        }
      else
        e->dirty = 0;
      j = nx;
    }
  ch->dirty_head = NIL;
  ch->ndirty = 0;
  return r;
}

static uint32_t
entry_alloc (struct ftl *f, bool host_read)
{
  struct dftl_cache *c = &f->dc;
  if (c->free_head == NIL)
    {
      /* evict: LRU of the clean list; in split mode the clean area only */
      uint32_t v = c->clean.tail;
      if (v == NIL)
        v = c->dirty.tail;
      if (c->e[v].dirty)
        {
          /* plain DFTL: the evicted entry's translation page is rewritten
           * (read-modify-write); other dirty entries stay dirty */
          uint32_t slot = (uint32_t) (c->e[v].key >> 32);
          uint32_t ci = (uint32_t) c->e[v].key / f->epc;
          if (chunk_of (f, c->e[v].key))
            map_page_write (f, slot, ci, host_read);
        }
      entry_remove (f, v);
      f->st.map_evictions++;
    }
  uint32_t i = c->free_head;
  c->free_head = c->e[i].next;
  return i;
}

void
ftl_dftl_lookup (struct ftl *f, struct ftl_object *o, uint32_t lpn,
             bool for_write)
{
  struct dftl_cache *c = &f->dc;
  bool split = f->cfg.mapping_mode == FTL_MAP_DFTL_SPLIT;
  uint64_t key = ((uint64_t) o->slot << 32) | lpn;
  uint32_t i = find (c, key);
  if (i != NIL)
    {
      f->st.map_hits++;
      struct dftl_entry *e = &c->e[i];
      list_unlink (c, list_of (f, e), i);
      if (for_write && !e->dirty)
        {
          e->dirty = 1;
          struct map_chunk *ch = chunk_of (f, key);
          if (ch)
            chunk_dirty_link (f, ch, i);
        }
      list_push_head (c, list_of (f, e), i);
    }
  else
    {
      f->st.map_misses++;
      struct map_chunk *ch = chunk_of (f, key);
      map_page_read (f, ch, !for_write);
      if (split && !for_write && c->clean.n + c->dirty.n >= c->cap
          && c->clean.tail == NIL)
        return;   /* everything cached is dirty: serve without caching */
      i = entry_alloc (f, !for_write);
      struct dftl_entry *e = &c->e[i];
      e->key = key;
      e->used = 1;
      e->dirty = 0;
      uint32_t h = key_hash (key) & c->hmask;
      e->hnext = c->hash[h];
      c->hash[h] = i;
      if (for_write)
        {
          e->dirty = 1;
          if (ch)
            chunk_dirty_link (f, ch, i);
        }
      list_push_head (c, list_of (f, e), i);
    }
  if (split)
    {
      /* keep the dirty area within its share: batch write-back */
      while (c->dirty.n > c->dirty_cap)
        write_back (f, c->dirty.tail, false);
      /* clean area must leave room for the dirty area */
      while (c->clean.n + c->dirty.n > c->cap && c->clean.tail != NIL)
        {
          entry_remove (f, c->clean.tail);
          f->st.map_evictions++;
        }
    }
}

void
ftl_dftl_forget_object (struct ftl *f, struct ftl_object *o)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct dftl_cache *c = &f->dc;
  if (!c->e)
    return;
  for (uint32_t i = 0; i < c->cap; i++)
    if (c->e[i].used && (uint32_t) (c->e[i].key >> 32) == o->slot)
      entry_remove (f, i);
  for (uint32_t ci = 0; ci < o->nchunks; ci++)
    {
      struct map_chunk *ch = o->chunks[ci];
      if (!ch)
        continue;
      if (ch->map_ppa != PPA_NONE)
        for (uint32_t s = 0; s < g->spp; s++)
          ftl_sector_invalidate (f, (ppa_t) ((uint64_t) ch->map_ppa * g->spp + s));
      ch->map_ppa = PPA_NONE;
      ch->gc_pending = 0;
    }
  for (uint32_t k = 0; k < c->npending;)
    if ((uint32_t) (c->pending[k] >> 32) == o->slot)
      c->pending[k] = c->pending[--c->npending];
    else
      k++;
}

/* Cold (ftl_drop_caches): forget every clean cached entry, so the next
 * look-ups read their translation pages again; dirty entries stay, they
 * are the only copy of their update until written back. */
void
ftl_dftl_drop_clean (struct ftl *f)
{
  struct dftl_cache *c = &f->dc;
  if (!c->e)
    return;
  for (uint32_t i = 0; i < c->cap; i++)
    if (c->e[i].used && !c->e[i].dirty)
      entry_remove (f, i);
}

void
ftl_dftl_flush_dirty (struct ftl *f)
{
  /* nothing: recovery does not depend on translation pages */
}

/* GC moved (o, lpn): a cached entry just becomes dirty; otherwise its
 * translation page is updated once per GC round (batched). */
void
ftl_dftl_gc_moved (struct ftl *f, struct ftl_object *o, uint32_t lpn)
{
  struct dftl_cache *c = &f->dc;
  uint64_t key = ((uint64_t) o->slot << 32) | lpn;
  uint32_t i = find (c, key);
  struct map_chunk *ch = o->chunks[lpn / f->epc];
  if (i != NIL)
    {
      struct dftl_entry *e = &c->e[i];
      if (!e->dirty)
        {
          list_unlink (c, list_of (f, e), i);
          e->dirty = 1;
          chunk_dirty_link (f, ch, i);
          list_push_head (c, list_of (f, e), i);
        }
      return;
    }
  if (ch->map_ppa == PPA_NONE || ch->gc_pending)
    return;
  if (c->npending == c->pending_cap)
    {
      uint32_t nc = c->pending_cap ? c->pending_cap * 2 : 64;
      uint64_t *np = realloc (c->pending, nc * sizeof *np);
      if (!np)
        return;
      c->pending = np;
      c->pending_cap = nc;
    }
  ch->gc_pending = 1;
  c->pending[c->npending++] = ((uint64_t) o->slot << 32) | (lpn / f->epc);
}

int
ftl_dftl_gc_flush_pending (struct ftl *f)
{
  struct dftl_cache *c = &f->dc;
  int r = 0;
  /* never eat into the GC reserve for these deferred updates */
  while (c->npending && r == 0 && f->free_blocks > f->gc_low)
    {
      uint64_t p = c->pending[--c->npending];
      uint32_t slot = (uint32_t) (p >> 32), ci = (uint32_t) p;
      struct ftl_object *o = slot < f->objs_cap ? f->objs[slot] : NULL;
      if (!o || ci >= o->nchunks || !o->chunks[ci]
          || !o->chunks[ci]->gc_pending)
        continue;
      o->chunks[ci]->gc_pending = 0;
      r = map_page_write (f, slot, ci, false);
    }
  return r;
}

/* GC found a valid translation page in a victim: copy it. */
int
ftl_dftl_relocate_map_page (struct ftl *f, uint32_t slot, uint32_t ci,
                        uint64_t old_page)
{
  struct ftl_object *o = slot < f->objs_cap ? f->objs[slot] : NULL;
  if (!o || ci >= o->nchunks || !o->chunks[ci]
      || o->chunks[ci]->map_ppa != old_page)
    return -EIO;
  return map_page_write (f, slot, ci, false);
}
