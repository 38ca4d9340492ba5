/* ftl_dftl.c - the demand-cached mapping (DFTL) model.
 *
 * The authoritative mapping stays in the RAM chunk table; this cache
 * decides what a real DFTL would have paid in NAND operations and when:
 *   FTL_MAP_DFTL        DFTL as Gupta et al. (ASPLOS 2009) describe it: a
 *                       cached mapping table (CMT) of entries in one LRU,
 *                       the global translation directory (which flash page
 *                       holds each translation page: map_chunk.map_ppa) in
 *                       RAM.  Any miss, read or write, reads the entry's
 *                       translation page (tR, and the 4 KiB sector holding
 *                       the entry crosses the channel); when the CMT is full
 *                       the LRU entry is evicted, and if it is dirty its
 *                       translation page is rewritten (read-modify-write of
 *                       the whole page) with every dirty cached entry of
 *                       that page in the same update (batch update); they
 *                       stay cached, clean.  So a host read may cost a
 *                       translation write, and up to three NAND reads.
 *   FTL_MAP_DFTL_SPLIT  the partitioned cache of Bae et al. (IEMEK J. 2019,
 *                       references/001): half the cache's entries are a
 *                       clean (read) area of whole translation pages (their
 *                       page-granular CMT), half a dirty (write) area of
 *                       entries.  A read looks in the dirty area, then the
 *                       clean pages; a miss reads the whole translation page
 *                       into the clean area, evicting its LRU page (free): no
 *                       mapping write on the read path, at most two NAND
 *                       reads per host read.  A write appends its entry to
 *                       the dirty area (nothing is read).  When the dirty
 *                       area is full, the translation page with the most
 *                       dirty entries is batch-updated (greedy victim page):
 *                       read-modify-write of it, its entries leave the dirty
 *                       area and the page, now current, enters the clean
 *                       area.
 * Timing: a miss's translation read completes before the data read starts
 * (the look-up returns when the entry is known), and the program of a
 * rewritten translation page starts when the old one has been read.
 * Translation pages are real NAND pages (kind MAP, index stream); GC
 * relocates them, and GC data moves update cached entries (dirty) or are
 * batched per translation page until the erase barrier.  Translation pages
 * are not needed for recovery (checkpoint + OOB replay rebuild the map), so
 * ftl_flush does not write dirty entries back.
 *
 * Model simplification (split mode): a write invalidates the old data
 * sector at once (the RAM map knows it), where the device would learn the
 * old location only at the batch update; GC victim choice can differ
 * slightly.
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

static inline bool
is_split (const struct ftl *f)
{
  return f->cfg.mapping_mode == FTL_MAP_DFTL_SPLIT;
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
  c->dirty_cap = is_split (f) ? c->cap / 2 : c->cap;
  c->clean_pages_cap = (c->cap - c->dirty_cap + f->epc - 1) / f->epc;
  /* split: the entry pool holds the dirty area, with room for GC moves
   * that overfill it until the next write rebalances */
  c->e = calloc (c->cap, sizeof *c->e);
  uint32_t hs = 1;
  while (hs < c->cap * 2)
    hs <<= 1;
  c->hmask = hs - 1;
  c->hash = malloc ((size_t) hs * sizeof (uint32_t));
  if (is_split (f))
    c->bkt = calloc ((size_t) f->epc + 1, sizeof *c->bkt);
  if (!c->e || !c->hash || (is_split (f) && !c->bkt))
    return -ENOMEM;
  c->bkt_max = 0;
  memset (c->hash, 0xff, (size_t) hs * sizeof (uint32_t));
  for (uint32_t i = 0; i < c->cap; i++)
    c->e[i].next = i + 1 < c->cap ? i + 1 : NIL;
  c->free_head = 0;
  c->clean = (struct dftl_list) { NIL, NIL, 0 };
  c->dirty = (struct dftl_list) { NIL, NIL, 0 };
  c->clean_head = c->clean_tail = NULL;
  c->clean_pages = 0;
  return 0;
}

void
ftl_dftl_fini (struct ftl *f)
{
  free (f->dc.e);
  free (f->dc.hash);
  free (f->dc.pending);
  free (f->dc.bkt);
  memset (&f->dc, 0, sizeof f->dc);
}

/* ---- entry lists (plain: the CMT's LRU; split: the dirty area) ---- */
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

/* split mode keeps only dirty entries (the dirty list); plain mode keeps
 * all in one LRU (the clean list) */
static inline struct dftl_list *
list_of (struct ftl *f)
{
  return is_split (f) ? &f->dc.dirty : &f->dc.clean;
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

/* ---- split mode: the clean area, an LRU of translation pages ---- */
static void
clean_unlink (struct dftl_cache *c, struct map_chunk *ch)
{
  if (!ch->in_clean)
    return;
  if (ch->lprev)
    ch->lprev->lnext = ch->lnext;
  else
    c->clean_head = ch->lnext;
  if (ch->lnext)
    ch->lnext->lprev = ch->lprev;
  else
    c->clean_tail = ch->lprev;
  ch->lprev = ch->lnext = NULL;
  ch->in_clean = 0;
  c->clean_pages--;
}

/* Page ch at the MRU end of the clean area; the LRU page leaves (free). */
static void
clean_touch (struct ftl *f, struct map_chunk *ch)
{
  struct dftl_cache *c = &f->dc;
  clean_unlink (c, ch);
  ch->lprev = NULL;
  ch->lnext = c->clean_head;
  if (c->clean_head)
    c->clean_head->lprev = ch;
  else
    c->clean_tail = ch;
  c->clean_head = ch;
  ch->in_clean = 1;
  c->clean_pages++;
  while (c->clean_pages > c->clean_pages_cap && c->clean_tail)
    {
      clean_unlink (c, c->clean_tail);
      f->st.map_evictions++;
    }
}

/* ---- split mode: chunks in lists by their number of dirty entries ---- */
static void
bkt_unlink (struct dftl_cache *c, struct map_chunk *ch)
{
  if (!c->bkt || ch->ndirty == 0)
    return;
  if (ch->bprev)
    ch->bprev->bnext = ch->bnext;
  else
    c->bkt[ch->ndirty] = ch->bnext;
  if (ch->bnext)
    ch->bnext->bprev = ch->bprev;
  ch->bprev = ch->bnext = NULL;
}

static void
bkt_link (struct dftl_cache *c, struct map_chunk *ch)
{
  if (!c->bkt || ch->ndirty == 0)
    return;
  ch->bprev = NULL;
  ch->bnext = c->bkt[ch->ndirty];
  if (ch->bnext)
    ch->bnext->bprev = ch;
  c->bkt[ch->ndirty] = ch;
  if (ch->ndirty > c->bkt_max)
    c->bkt_max = ch->ndirty;
}

/* The translation page with the most dirty cached entries, or NULL. */
static struct map_chunk *
dirtiest_chunk (struct dftl_cache *c)
{
  while (c->bkt_max > 0 && !c->bkt[c->bkt_max])
    c->bkt_max--;
  return c->bkt_max > 0 ? c->bkt[c->bkt_max] : NULL;
}

/* ---- dirty entries of one translation page ---- */
static void
chunk_dirty_link (struct ftl *f, struct map_chunk *ch, uint32_t i)
{
  struct dftl_entry *e = &f->dc.e[i];
  bkt_unlink (&f->dc, ch);
  e->cprev = NIL;
  e->cnext = ch->dirty_head;
  if (ch->dirty_head != NIL)
    f->dc.e[ch->dirty_head].cprev = i;
  ch->dirty_head = i;
  ch->ndirty++;
  bkt_link (&f->dc, ch);
}

static void
chunk_dirty_unlink (struct ftl *f, struct map_chunk *ch, uint32_t i)
{
  struct dftl_entry *e = &f->dc.e[i];
  bkt_unlink (&f->dc, ch);
  if (e->cprev != NIL)
    f->dc.e[e->cprev].cnext = e->cnext;
  else
    ch->dirty_head = e->cnext;
  if (e->cnext != NIL)
    f->dc.e[e->cnext].cprev = e->cprev;
  ch->ndirty--;
  bkt_link (&f->dc, ch);
}

static void
entry_remove (struct ftl *f, uint32_t i)
{
  struct dftl_cache *c = &f->dc;
  struct dftl_entry *e = &c->e[i];
  list_unlink (c, list_of (f), i);
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

/* A free entry, or NIL. */
static uint32_t
entry_take (struct dftl_cache *c, uint64_t key)
{
  uint32_t i = c->free_head;
  if (i == NIL)
    return NIL;
  c->free_head = c->e[i].next;
  struct dftl_entry *e = &c->e[i];
  e->key = key;
  e->used = 1;
  e->dirty = 0;
  uint32_t h = key_hash (key) & c->hmask;
  e->hnext = c->hash[h];
  c->hash[h] = i;
  return i;
}

/* ---- translation page I/O ---- */
/* Read nsect sectors of a translation page, issued at t; returns when they
 * are in the controller (t if the page was never written). */
static uint64_t
map_page_read (struct ftl *f, struct map_chunk *ch, uint32_t nsect,
               bool host_read, uint64_t t)
{
  if (!ch || ch->map_ppa == PPA_NONE)
    return t;
  uint64_t done = nand_time_read (&f->nand, ch->map_ppa, nsect, t);
  if (done > f->op_done)
    f->op_done = done;
  f->st.map_reads++;
  if (host_read)
    f->op_nand_reads++;
  return done;
}

/* Program a new version of translation page (slot, ci), issued at t:
 * read-modify-write of the old one, which dies; the program starts when
 * the read is done.  *t_read (if not NULL): when the read was done. */
static int
map_page_write (struct ftl *f, uint32_t slot, uint32_t ci, bool host_read,
                uint64_t t, uint64_t *t_read)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ftl_object *o = f->objs[slot];
  struct map_chunk *ch = o->chunks[ci];
  uint64_t tr = map_page_read (f, ch, g->spp, host_read, t);
  if (t_read)
    *t_read = tr;
  uint64_t page;
  /* inside GC, translation pages go with the GC copies (narrow stream,
   * GC reserve); otherwise to the index stream of the policy */
  int s = f->gc_running ? f->role_stream[ROLE_GC] : f->role_stream[ROLE_META];
  uint64_t now = f->now;
  if (tr > f->now)
    f->now = tr;              /* the program is issued after the read */
  int r = ftl_stream_program_page (f, s, PAGE_MAP, ch->ppa, 0, &page);
  f->now = now;
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

/* Batch update: write translation page ch back with every dirty cached
 * entry of it (ch has at least one).  Plain: they stay cached, clean.
 * Split: they leave the dirty area and the page enters the clean area. */
static int
write_back (struct ftl *f, struct map_chunk *ch, bool host_read, uint64_t t,
            uint64_t *t_read)
{
  struct dftl_cache *c = &f->dc;
  uint64_t key = c->e[ch->dirty_head].key;
  uint32_t slot = (uint32_t) (key >> 32), ci = (uint32_t) key / f->epc;
  int r = map_page_write (f, slot, ci, host_read, t, t_read);
  ch->gc_pending = 0;
  if (is_split (f))
    {
      while (ch->dirty_head != NIL)
        entry_remove (f, ch->dirty_head);
      clean_touch (f, ch);
      return r;
    }
  for (uint32_t j = ch->dirty_head; j != NIL;)
    {
      uint32_t nx = c->e[j].cnext;
      c->e[j].dirty = 0;
      j = nx;
    }
  ch->dirty_head = NIL;
  ch->ndirty = 0;
  return r;
}

/* ---- FTL_MAP_DFTL ---- */
static uint64_t
plain_lookup (struct ftl *f, uint64_t key, bool for_write)
{
  struct dftl_cache *c = &f->dc;
  uint32_t i = find (c, key);
  uint64_t t = f->now;
  if (i != NIL)
    {
      f->st.map_hits++;
      struct dftl_entry *e = &c->e[i];
      list_unlink (c, &c->clean, i);
      if (for_write && !e->dirty)
        {
          e->dirty = 1;
          struct map_chunk *ch = chunk_of (f, key);
          if (ch)
            chunk_dirty_link (f, ch, i);
        }
      list_push_head (c, &c->clean, i);
      return t;
    }
  f->st.map_misses++;
  struct map_chunk *ch = chunk_of (f, key);
  if (c->free_head == NIL)
    {
      /* evict the LRU entry; a dirty one first writes its translation
       * page back, and the miss's own read waits for that read */
      uint32_t v = c->clean.tail;
      if (c->e[v].dirty)
        {
          struct map_chunk *vc = chunk_of (f, c->e[v].key);
          if (vc && vc->dirty_head != NIL)
            write_back (f, vc, !for_write, t, &t);
        }
      entry_remove (f, v);
      f->st.map_evictions++;
    }
  /* a read needs the entry, a write the old location: one sector */
  t = map_page_read (f, ch, 1, !for_write, t);
  i = entry_take (c, key);
  if (for_write)
    {
      c->e[i].dirty = 1;
      if (ch)
        chunk_dirty_link (f, ch, i);
    }
  list_push_head (c, &c->clean, i);
  return t;
}

/* ---- FTL_MAP_DFTL_SPLIT ---- */
/* Keep the dirty area within its share: batch updates of the dirtiest
 * translation pages. */
static void
split_balance (struct ftl *f)
{
  struct dftl_cache *c = &f->dc;
  while (c->dirty.n > c->dirty_cap)
    {
      struct map_chunk *ch = dirtiest_chunk (c);
      if (!ch)
        break;
      write_back (f, ch, false, f->now, NULL);
    }
}

static uint64_t
split_lookup (struct ftl *f, uint64_t key, bool for_write)
{
  struct dftl_cache *c = &f->dc;
  uint32_t i = find (c, key);
  struct map_chunk *ch = chunk_of (f, key);
  uint64_t t = f->now;
  if (i != NIL)
    {
      f->st.map_hits++;   /* in the dirty area */
      list_unlink (c, &c->dirty, i);
      list_push_head (c, &c->dirty, i);
      return t;
    }
  if (!for_write)
    {
      if (ch && ch->in_clean)
        f->st.map_hits++;
      else
        {
          f->st.map_misses++;
          t = map_page_read (f, ch, f->nand.geo.spp, true, t);
        }
      if (ch)
        clean_touch (f, ch);
      return t;
    }
  /* a write: a new dirty entry, nothing read */
  if (ch && ch->in_clean)
    f->st.map_hits++;
  else
    f->st.map_misses++;
  if (c->free_head == NIL)
    {
      struct map_chunk *v = dirtiest_chunk (c);
      if (v)
        write_back (f, v, false, t, NULL);
    }
  i = entry_take (c, key);
  if (i == NIL)
    return t;
  c->e[i].dirty = 1;
  if (ch)
    chunk_dirty_link (f, ch, i);
  list_push_head (c, &c->dirty, i);
  split_balance (f);
  return t;
}

uint64_t
ftl_dftl_lookup (struct ftl *f, struct ftl_object *o, uint32_t lpn,
             bool for_write)
{
  uint64_t key = ((uint64_t) o->slot << 32) | lpn;
  return is_split (f) ? split_lookup (f, key, for_write)
    : plain_lookup (f, key, for_write);
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
      clean_unlink (c, ch);
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

/* Cold (ftl_drop_caches): forget every clean cached entry or page, so the
 * next look-ups read their translation pages again; dirty entries stay,
 * they are the only copy of their update until written back. */
void
ftl_dftl_drop_clean (struct ftl *f)
{
  struct dftl_cache *c = &f->dc;
  if (!c->e)
    return;
  while (c->clean_tail)
    clean_unlink (c, c->clean_tail);
  for (uint32_t i = 0; i < c->cap; i++)
    if (c->e[i].used && !c->e[i].dirty)
      entry_remove (f, i);
}

void
ftl_dftl_flush_dirty (struct ftl *f)
{
  /* nothing: recovery does not depend on translation pages */
}

/* GC moved (o, lpn): a cached entry just becomes dirty (split: the new
 * location joins the dirty area, which the next write look-up rebalances);
 * otherwise its translation page is updated once per GC round (batched). */
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
          e->dirty = 1;
          chunk_dirty_link (f, ch, i);
          list_unlink (c, list_of (f), i);
          list_push_head (c, list_of (f), i);
        }
      return;
    }
  if (is_split (f) && ch->in_clean
      && (i = entry_take (c, key)) != NIL)
    {
      c->e[i].dirty = 1;
      chunk_dirty_link (f, ch, i);
      list_push_head (c, &c->dirty, i);
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
      r = map_page_write (f, slot, ci, false, f->now, NULL);
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
  return map_page_write (f, slot, ci, false, f->now, NULL);
}
