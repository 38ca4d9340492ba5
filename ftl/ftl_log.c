/* ftl_log.c - the meta log: namespace, length, punch and attribute changes
 * as records packed into whole META pages.  A record carries its own seq
 * and stays live (GC relocates it, keeping the seq) until the next
 * checkpoint captures its effect; then every META page dies at once. */
#include "ftl_internal.h"

void
ftl_live_meta_add (struct ftl *f, uint64_t page, uint32_t used)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (f->nlive_meta == f->live_meta_cap)
    {
      uint32_t nc = f->live_meta_cap ? f->live_meta_cap * 2 : 64;
      struct live_meta *n = realloc (f->live_meta, nc * sizeof *n);
      if (!n)
        abort ();   /* tiny; out of memory here is fatal */
      f->live_meta = n;
      f->live_meta_cap = nc;
    }
  uint32_t idx = f->nlive_meta++;
  f->live_meta[idx].page = page;
  f->live_meta[idx].used = used;
  for (uint32_t i = 0; i < g->spp; i++)
    ftl_sector_validate (f, (ppa_t) (page * g->spp + i), OWNER_META, idx);
}

/* Drop entry idx (its sectors must already be invalid). */
void
ftl_live_meta_remove (struct ftl *f, uint32_t idx)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint32_t last = --f->nlive_meta;
  if (idx != last)
    {
      f->live_meta[idx] = f->live_meta[last];
      uint64_t page = f->live_meta[idx].page;
      for (uint32_t i = 0; i < g->spp; i++)
        f->rmap[page * g->spp + i].lpn = idx;
    }
}

void
ftl_live_meta_kill_all (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  for (uint32_t k = 0; k < f->nlive_meta; k++)
    for (uint32_t i = 0; i < g->spp; i++)
      ftl_sector_invalidate (f, (ppa_t) (f->live_meta[k].page * g->spp + i));
  f->nlive_meta = 0;
}

int
ftl_log_flush (struct ftl *f)
{
  if (f->meta_used == 0)
    return 0;
  /* any GC (and its erase barrier, which flushes this log) runs first so
   * the buffer is not programmed twice */
  if (!f->gc_running && !f->in_batch)
    {
      int r = ftl_gc_foreground (f);
      if (r < 0 && r != -ENOSPC)
        return r;
      if (f->meta_used == 0)
        return 0;
    }
  uint64_t page;
  uint32_t used = f->meta_used;
  int r = ftl_stream_program_page (f, f->role_stream[ROLE_META], PAGE_META,
                               f->meta_buf, used, &page);
  if (r < 0)
    return r;
  memset (f->meta_buf, 0, f->nand.geo.page_size);
  f->meta_used = 0;
  ftl_live_meta_add (f, page, used);
  return 0;
}

int
ftl_log_append_raw (struct ftl *f, const struct meta_rec *r)
{
  if (r->len < sizeof *r || r->len > f->nand.geo.page_size)
    return -EINVAL;
  if (f->meta_used + r->len > f->nand.geo.page_size)
    {
      int e = ftl_log_flush (f);
      if (e < 0)
        return e;
    }
  if (f->meta_used == 0)
    f->meta_first_seq = f->seq;
  memcpy (f->meta_buf + f->meta_used, r, r->len);
  f->meta_used += r->len;
  if (r->seq > f->meta_max_seq)
    f->meta_max_seq = r->seq;
  return 0;
}

int
ftl_log_append (struct ftl *f, uint16_t type, uint64_t pid, uint64_t oid,
            uint64_t a, uint64_t b, const void *payload, uint32_t plen,
            uint64_t *seq_out)
{
  uint32_t len = (uint32_t) ((sizeof (struct meta_rec) + plen + 7) & ~7u);
  if (len > f->nand.geo.page_size)
    return -EINVAL;
  if (f->meta_used + len > f->nand.geo.page_size)
    {
      int e = ftl_log_flush (f);
      if (e < 0)
        return e;
    }
  if (f->meta_used == 0)
    f->meta_first_seq = f->seq;
  struct meta_rec *r = (struct meta_rec *) (f->meta_buf + f->meta_used);
  memset (r, 0, len);
  r->len = len;
  r->type = type;
  r->seq = next_seq (f);
  r->batch = f->in_batch ? f->cur_batch : 0;
  r->pid = pid;
  r->oid = oid;
  r->a = a;
  r->b = b;
  r->time_ns = ftl_wall_ns ();
  if (plen)
    memcpy ((uint8_t *) (r + 1), payload, plen);
  f->meta_used += len;
  f->meta_max_seq = r->seq;
  if (seq_out)
    *seq_out = r->seq;
  return 0;
}
