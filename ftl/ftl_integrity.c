/* ftl_integrity.c - the data CRC of NAND pages, checked wherever the FTL
 * reads page data: host reads and scans (ftl_read), read-modify-write
 * (ftl_read_sector), GC copies and fsck.
 *
 * A page's OOB header carries the CRC32C of its whole data area, stamped
 * when the page is programmed (ftl_alloc.c program_page_at).  ftl_page_view
 * reads the OOB and the data (through the backend's direct mapping when it
 * has one, else into a buffer) and says whether they agree.  The last few
 * pages found good are remembered with their OOB: a programmed page cannot
 * change until its block is erased (ftl_page_forget_block), so reading a
 * page sector by sector, or block by block from several scan workers,
 * costs one CRC.  An in-place read (ftl_read_pinned) checks the data CRC of
 * the pages it hands out after it dropped the FTL lock, their blocks
 * pinned, so that scan workers check their pages at once rather than in
 * turn; nothing of such a read is handed out before the check.
 *
 * GC never re-stamps the data of a corrupt page with a fresh CRC: it copies
 * the page's valid sectors as SECT_CORRUPT (ftl_gc.c), and reading such a
 * sector fails just as reading the original would have. */
#include "ftl_internal.h"

int
ftl_integrity_init (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  for (uint32_t i = 0; i <= FTL_PV_CACHE; i++)
    {
      f->pv[i].page = UINT64_MAX;
      f->pv[i].buf = calloc (1, g->page_size);
      if (!f->pv[i].buf)
        return -ENOMEM;
    }
  f->pv_next = 0;
  return 0;
}

void
ftl_integrity_fini (struct ftl *f)
{
  for (uint32_t i = 0; i <= FTL_PV_CACHE; i++)
    {
      free (f->pv[i].buf);
      f->pv[i].buf = NULL;
    }
}

void
ftl_page_forget_block (struct ftl *f, uint32_t block)
{
  const struct nand_geometry *g = &f->nand.geo;
  for (uint32_t i = 0; i <= FTL_PV_CACHE; i++)
    if (f->pv[i].page != UINT64_MAX
        && f->pv[i].page / g->pages_per_block == block)
      f->pv[i].page = UINT64_MAX;
}

/* Load page's OOB and data into the spare slot and check them, the data
 * CRC too unless defer allows leaving it to ftl_page_check_data (only for
 * data in the mapped image, which the caller keeps pinned); a good, fully
 * checked page then trades places (buffer included) with the round robin's
 * victim. */
static int
page_view_load (struct ftl *f, uint64_t page, bool defer,
                const struct ftl_page_view **out, struct ftl_page_check *check,
                bool *deferred)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct nand_backend *be = f->nand.be;
  uint8_t oob[1024];
  int r;

  if (deferred)
    *deferred = false;
  for (uint32_t i = 0; i < FTL_PV_CACHE; i++)
    if (f->pv[i].page == page)
      {
        *out = &f->pv[i];
        return 0;
      }
  /* the spare slot is never looked up */
  struct ftl_page_view *v = &f->pv[FTL_PV_CACHE];
  v->page = UINT64_MAX;
  if (g->oob_size > sizeof oob)
    return -EINVAL;
  r = be->ops->read_oob (be, page, 1, oob);
  if (r < 0)
    return r;
  memcpy (&v->h, oob, sizeof v->h);
  memcpy (v->ent, oob + sizeof v->h, g->spp * sizeof v->ent[0]);
  v->oob_ok = false;
  if (v->h.magic == OOB_MAGIC && v->h.spp == g->spp)
    {
      uint32_t crc = v->h.crc;
      ((struct oob_header *) oob)->crc = 0;
      v->oob_ok = ftl_crc32c (0, oob, oob_bytes_needed (g->spp)) == crc;
    }
  v->data = be->ops->page_data ? be->ops->page_data (be, page) : NULL;
  if (defer && v->data && v->oob_ok)
    {
      *check = (struct ftl_page_check) { .page = page, .data = v->data,
                                         .data_crc = v->h.data_crc };
      *deferred = true;
      v->crc_ok = true;         /* the OOB's part; the data's comes later */
      *out = v;
      return 0;
    }
  if (!v->data)
    {
      r = be->ops->ftl_read_sector (be, page, 0, g->spp, v->buf);
      if (r < 0)
        return r;
      v->data = v->buf;
    }
  v->crc_ok = v->oob_ok
    && ftl_crc32c (0, v->data, g->page_size) == v->h.data_crc;
  if (!v->crc_ok)
    {
      *out = v;
      return 0;
    }
  struct ftl_page_view victim = f->pv[f->pv_next];
  f->pv[f->pv_next] = *v;
  f->pv[f->pv_next].page = page;
  *out = &f->pv[f->pv_next];
  victim.page = UINT64_MAX;
  f->pv[FTL_PV_CACHE] = victim;
  f->pv_next = (f->pv_next + 1) % FTL_PV_CACHE;
  return 0;
}

int
ftl_page_view (struct ftl *f, uint64_t page, const struct ftl_page_view **out)
{
  return page_view_load (f, page, false, out, NULL, NULL);
}

int
ftl_page_view_deferred (struct ftl *f, uint64_t page, const struct ftl_page_view **out,
                        struct ftl_page_check *check, bool *deferred)
{
  return page_view_load (f, page, true, out, check, deferred);
}

bool
ftl_page_check_data (const struct ftl *f, const struct ftl_page_check *c)
{
  return ftl_crc32c (0, c->data, f->nand.geo.page_size) == c->data_crc;
}

bool
ftl_page_sector_good (const struct ftl_page_view *v, uint32_t slot)
{
  return v->crc_ok && v->ent[slot].kind != SECT_CORRUPT;
}

int
ftl_sector_fail (struct ftl *f, const struct ftl_page_view *v, uint64_t page,
                 uint32_t slot, uint64_t pid, uint64_t oid, uint64_t lpn,
                 ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  bool gc_copy = v && v->crc_ok;
  return ftl_fail (err, -EIO, "%s in object %llu:%llu at offset %llu "
                   "(NAND page %llu, block %llu page %llu, sector %u%s)",
                   v && !v->oob_ok ? "no valid OOB" : "data CRC mismatch",
                   (unsigned long long) pid, (unsigned long long) oid,
                   (unsigned long long) (lpn << FTL_SECTOR_SHIFT),
                   (unsigned long long) page,
                   (unsigned long long) (page / g->pages_per_block),
                   (unsigned long long) (page % g->pages_per_block), slot,
                   !v || gc_copy ? "; found when GC moved it" : "");
}
