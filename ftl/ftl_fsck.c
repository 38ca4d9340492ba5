/* ftl_fsck.c - ftl_fsck: check every invariant of the in-memory FTL.
 *   - each mapped sector is in range, in a programmed (non-free, non-bad)
 *     block, marked valid, owned by exactly one (object, lpn) and the
 *     reverse map agrees;
 *   - per-object and global mapped counts agree; no data past the size;
 *   - every valid sector is claimed by an object, a live meta page or a
 *     translation page; per-block valid counts equal the bitmap;
 *   - every good block is free (in its die's free heap), open (in exactly
 *     one stream lane), closed (in the GC bucket of its valid count) or an
 *     emptied GC victim waiting for its erase: no leaked blocks; the free
 *     count agrees;
 *   - every object's partition exists;
 *   - (backends that store data) the OOB of every valid sector, on flash
 *     or in its write buffer, names the owner the mapping says;
 *   - (backends that store data) every programmed page's data matches the
 *     CRC in its OOB, and no live sector is a GC copy of a corrupt page:
 *     each bad page is one problem naming the objects and offsets it holds.
 * ftl_fsck_report hands every problem to a callback as well.
 */
#include "ftl_internal.h"

struct fsck
{
  uint64_t problems;
  ftl_error *err;
  ftl_fsck_report_fn report;
  void *report_arg;
};

static void
problem (struct fsck *c, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void
problem (struct fsck *c, const char *fmt, ...)
{
  char msg[sizeof c->err->msg];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  if (c->problems++ == 0 && c->err)
    memcpy (c->err->msg, msg, sizeof msg);
  if (c->report)
    c->report (c->report_arg, msg);
}

/* Append "object P:O at offset X" of every live sector of page to buf. */
static void
describe_page (struct ftl *f, uint64_t page, char *buf, size_t len)
{
  const struct nand_geometry *g = &f->nand.geo;
  size_t n = 0;
  bool meta = false, map = false;
  buf[0] = 0;
  for (uint32_t s = 0; s < g->spp && n + 1 < len; s++)
    {
      ppa_t ppa = (ppa_t) (page * g->spp + s);
      if (!sector_is_valid (f, ppa))
        continue;
      struct rmap_entry re = f->rmap[ppa];
      if (re.owner == OWNER_META)
        meta = true;
      else if (re.owner & OWNER_MAPFLAG)
        map = true;
      else if (re.owner < f->objs_cap && f->objs[re.owner])
        n += (size_t) snprintf (buf + n, len - n, "%sobject %llu:%llu at "
                                "offset %llu", n ? ", " : "",
                                (unsigned long long) f->objs[re.owner]->pid,
                                (unsigned long long) f->objs[re.owner]->oid,
                                (unsigned long long) re.lpn << FTL_SECTOR_SHIFT);
    }
  if (n + 1 < len && (meta || map))
    n += (size_t) snprintf (buf + n, len - n, "%slive %s", n ? ", " : "",
                            meta ? "meta records" : "mapping entries");
  if (n == 0)
    snprintf (buf, len, "no live data");
}

/* Read every programmed page and check its data against the CRC in its
 * OOB; a live sector that GC copied from a corrupt page is a problem too. */
static void
check_data (struct ftl *f, struct fsck *c)
{
  const struct nand_geometry *g = &f->nand.geo;
  char what[200];
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      struct block_info *bi = &f->blk[b];
      /* an emptied victim holds nothing live and waits for its erase */
      if (bi->state == BLK_FREE || bi->state == BLK_BAD
          || bi->state == BLK_VICTIM)
        continue;
      for (uint32_t p = 0; p < bi->write_ptr; p++)
        {
          uint64_t page = (uint64_t) b * g->pages_per_block + p;
          const struct ftl_page_view *v;
          if (ftl_page_view (f, page, &v) < 0)
            {
              problem (c, "cannot read NAND page %llu",
                       (unsigned long long) page);
              continue;
            }
          if (!v->oob_ok)
            {
              /* never programmed (recovery counts a block it finds as
               * full) is fine; a torn or damaged OOB header is not */
              if (v->h.magic == OOB_MAGIC)
                {
                  describe_page (f, page, what, sizeof what);
                  problem (c, "OOB of NAND page %llu (block %u page %u) is "
                           "corrupt; it holds %s", (unsigned long long) page,
                           b, p, what);
                }
              continue;
            }
          if (!v->crc_ok)
            {
              describe_page (f, page, what, sizeof what);
              problem (c, "data CRC mismatch in NAND page %llu (block %u "
                       "page %u): it holds %s", (unsigned long long) page, b,
                       p, what);
              continue;
            }
          if (v->h.kind != PAGE_DATA)
            continue;
          for (uint32_t s = 0; s < g->spp; s++)
            {
              ppa_t ppa = (ppa_t) (page * g->spp + s);
              if (v->ent[s].kind == SECT_CORRUPT && sector_is_valid (f, ppa))
                problem (c, "object %llu:%llu at offset %llu is a GC copy of "
                         "a page that failed its data CRC (now NAND page "
                         "%llu)", (unsigned long long) v->ent[s].pid,
                         (unsigned long long) v->ent[s].oid,
                         (unsigned long long) v->ent[s].lpn << FTL_SECTOR_SHIFT,
                         (unsigned long long) page);
            }
        }
    }
  /* GC copies of corrupt sectors still in a write buffer */
  for (uint32_t i = 0; i < f->nstreams; i++)
    {
      struct ftl_stream *st = &f->streams[i];
      if (!st->active)
        continue;
      for (uint32_t s = 0; s < st->fill && s < g->spp; s++)
        {
          ppa_t ppa = (ppa_t) (((uint64_t) st->buf_block * g->pages_per_block
                                + st->buf_page) * g->spp + s);
          if (st->ent[s].kind == SECT_CORRUPT && sector_is_valid (f, ppa))
            problem (c, "object %llu:%llu at offset %llu is a GC copy of a "
                     "page that failed its data CRC (in a write buffer)",
                     (unsigned long long) st->ent[s].pid,
                     (unsigned long long) st->ent[s].oid,
                     (unsigned long long) st->ent[s].lpn << FTL_SECTOR_SHIFT);
        }
    }
}

/* Every valid sector's OOB on flash (or in its write buffer) names the
 * owner the mapping says: the flash could rebuild this state. */
static void
check_oob (struct ftl *f, struct fsck *c)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint8_t *oob = malloc ((size_t) g->pages_per_block * g->oob_size);
  if (!oob)
    {
      problem (c, "out of memory for the OOB check");
      return;
    }
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      struct block_info *bi = &f->blk[b];
      if (!bi->valid || bi->state == BLK_FREE || bi->state == BLK_BAD)
        continue;
      uint64_t first = (uint64_t) b * g->pages_per_block;
      if (f->nand.be->ops->read_oob (f->nand.be, first, g->pages_per_block,
                                     oob) < 0)
        {
          problem (c, "cannot read the OOB of block %u", b);
          continue;
        }
      for (uint32_t p = 0; p < g->pages_per_block; p++)
        for (uint32_t s = 0; s < g->spp; s++)
          {
            ppa_t ppa = (ppa_t) ((first + p) * g->spp + s);
            if (!sector_is_valid (f, ppa))
              continue;
            struct rmap_entry re = f->rmap[ppa];
            struct oob_entry *be;
            if (ftl_sector_in_buffer (f, ppa, NULL, &be))
              {
                struct ftl_object *o = re.owner < f->objs_cap
                  ? f->objs[re.owner] : NULL;
                if (!o || be->kind == SECT_DEAD || be->pid != o->pid
                    || be->oid != o->oid || be->lpn != re.lpn)
                  problem (c, "buffered sector %u does not name its owner",
                           ppa);
                continue;
              }
            const uint8_t *ob = oob + (size_t) p * g->oob_size;
            struct oob_header h;
            memcpy (&h, ob, sizeof h);
            if (h.magic != OOB_MAGIC)
              {
                problem (c, "valid sector %u sits in page %llu with no OOB",
                         ppa, (unsigned long long) (first + p));
                break;
              }
            uint16_t want = re.owner == OWNER_META ? PAGE_META
              : (re.owner & OWNER_MAPFLAG) ? PAGE_MAP : PAGE_DATA;
            if (h.kind != want)
              {
                problem (c, "page %llu has kind %u, its sectors are owned as "
                         "kind %u", (unsigned long long) (first + p), h.kind,
                         want);
                break;
              }
            if (want != PAGE_DATA)
              break;
            struct oob_entry e;
            memcpy (&e, ob + sizeof h + s * sizeof e, sizeof e);
            struct ftl_object *o = re.owner < f->objs_cap
              ? f->objs[re.owner] : NULL;
            if (!o || (e.kind != SECT_DATA && e.kind != SECT_COPY
                       && e.kind != SECT_CORRUPT)
                || e.pid != o->pid || e.oid != o->oid || e.lpn != re.lpn)
              problem (c, "OOB of sector %u names %llu:%llu lpn %u kind %u, "
                       "the mapping says %llu:%llu lpn %u", ppa,
                       (unsigned long long) e.pid, (unsigned long long) e.oid,
                       e.lpn, e.kind,
                       (unsigned long long) (o ? o->pid : 0),
                       (unsigned long long) (o ? o->oid : 0), re.lpn);
          }
    }
  free (oob);
}

int
ftl_fsck (ftl_t *f, uint64_t *problems, ftl_error *err)
{
  return ftl_fsck_report (f, problems, NULL, NULL, err);
}

int
ftl_fsck_report (ftl_t *f, uint64_t *problems, ftl_fsck_report_fn report,
                 void *report_arg, ftl_error *err)
{
  pthread_mutex_lock (&f->lock);
  const struct nand_geometry *g = &f->nand.geo;
  struct fsck c = { 0, err, report, report_arg };
  uint64_t words = (g->total_sectors + 63) / 64;
  uint64_t *seen = calloc (words, sizeof (uint64_t));
  uint32_t *bvalid = calloc (g->total_blocks, sizeof (uint32_t));
  uint8_t *where = calloc (g->total_blocks, 1);
  if (!seen || !bvalid || !where)
    {
      free (seen);
      free (bvalid);
      free (where);
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, -ENOMEM, "out of memory for fsck");
    }
  uint64_t total_mapped = 0, nobjs = 0;
  for (uint32_t s = 0; s < f->objs_cap; s++)
    {
      struct ftl_object *o = f->objs[s];
      if (!o)
        continue;
      nobjs++;
      if (o->slot != s)
        problem (&c, "object %llu:%llu sits in slot %u but says %u",
                 (unsigned long long) o->pid, (unsigned long long) o->oid,
                 s, o->slot);
      if (ftl_index_lookup (f, o->pid, o->oid) != o)
        problem (&c, "object %llu:%llu is not reachable through the index",
                 (unsigned long long) o->pid, (unsigned long long) o->oid);
      if (!ftl_part_exists (f, o->pid))
        problem (&c, "object %llu:%llu is in missing partition",
                 (unsigned long long) o->pid, (unsigned long long) o->oid);
      uint64_t mapped = 0;
      uint64_t size_sectors = (o->size + FTL_SECTOR - 1) >> FTL_SECTOR_SHIFT;
      for (uint32_t ci = 0; ci < o->nchunks; ci++)
        {
          struct map_chunk *ch = o->chunks[ci];
          if (!ch)
            continue;
          uint32_t cm = 0;
          for (uint32_t i = 0; i < f->epc; i++)
            {
              ppa_t p = ch->ppa[i];
              if (p == PPA_NONE)
                continue;
              cm++;
              uint64_t lpn = (uint64_t) ci * f->epc + i;
              if (p >= g->total_sectors)
                {
                  problem (&c, "object %llu:%llu lpn %llu maps outside the "
                           "array (%u)", (unsigned long long) o->pid,
                           (unsigned long long) o->oid,
                           (unsigned long long) lpn, p);
                  continue;
                }
              uint32_t b = p / g->sectors_per_block;
              if (lpn >= size_sectors)
                problem (&c, "object %llu:%llu maps lpn %llu past its size "
                         "%llu", (unsigned long long) o->pid,
                         (unsigned long long) o->oid,
                         (unsigned long long) lpn,
                         (unsigned long long) o->size);
              if (f->blk[b].state == BLK_FREE || f->blk[b].state == BLK_BAD)
                problem (&c, "object %llu:%llu lpn %llu maps into %s block %u",
                         (unsigned long long) o->pid,
                         (unsigned long long) o->oid,
                         (unsigned long long) lpn,
                         f->blk[b].state == BLK_FREE ? "free" : "bad", b);
              if (!sector_is_valid (f, p))
                problem (&c, "object %llu:%llu lpn %llu maps to sector %u "
                         "which is not valid", (unsigned long long) o->pid,
                         (unsigned long long) o->oid,
                         (unsigned long long) lpn, p);
              if ((seen[p >> 6] >> (p & 63)) & 1)
                problem (&c, "sector %u is owned twice (again by %llu:%llu "
                         "lpn %llu)", p, (unsigned long long) o->pid,
                         (unsigned long long) o->oid,
                         (unsigned long long) lpn);
              seen[p >> 6] |= 1ull << (p & 63);
              if (f->rmap[p].owner != s || f->rmap[p].lpn != lpn)
                problem (&c, "reverse map of sector %u says %u/%u, mapping "
                         "says object slot %u lpn %llu", p, f->rmap[p].owner,
                         f->rmap[p].lpn, s, (unsigned long long) lpn);
            }
          if (cm != ch->nmapped)
            problem (&c, "object %llu:%llu chunk %u counts %u mapped, has %u",
                     (unsigned long long) o->pid, (unsigned long long) o->oid,
                     ci, ch->nmapped, cm);
          mapped += cm;
        }
      if (mapped != o->mapped)
        problem (&c, "object %llu:%llu counts %llu mapped sectors, has %llu",
                 (unsigned long long) o->pid, (unsigned long long) o->oid,
                 (unsigned long long) o->mapped,
                 (unsigned long long) mapped);
      total_mapped += mapped;
    }
  if (nobjs != f->nobjs)
    problem (&c, "object count %u, found %llu", f->nobjs,
             (unsigned long long) nobjs);
  if (total_mapped != f->used_sectors)
    problem (&c, "used sectors %llu, mapped %llu",
             (unsigned long long) f->used_sectors,
             (unsigned long long) total_mapped);
  if (f->used_sectors > f->capacity_sectors)
    problem (&c, "used sectors %llu exceed capacity %llu",
             (unsigned long long) f->used_sectors,
             (unsigned long long) f->capacity_sectors);
  /* live meta pages */
  for (uint32_t k = 0; k < f->nlive_meta; k++)
    for (uint32_t i = 0; i < g->spp; i++)
      {
        ppa_t p = (ppa_t) (f->live_meta[k].page * g->spp + i);
        if (!sector_is_valid (f, p) || f->rmap[p].owner != OWNER_META
            || f->rmap[p].lpn != k)
          problem (&c, "live meta page %llu sector %u is not valid/owned",
                   (unsigned long long) f->live_meta[k].page, i);
        if ((seen[p >> 6] >> (p & 63)) & 1)
          problem (&c, "meta sector %u owned twice", p);
        seen[p >> 6] |= 1ull << (p & 63);
      }
  /* translation pages (DFTL) */
  for (uint32_t s = 0; s < f->objs_cap; s++)
    {
      struct ftl_object *o = f->objs[s];
      if (!o)
        continue;
      for (uint32_t ci = 0; ci < o->nchunks; ci++)
        {
          struct map_chunk *ch = o->chunks[ci];
          if (!ch || ch->map_ppa == PPA_NONE)
            continue;
          for (uint32_t i = 0; i < g->spp; i++)
            {
              ppa_t p = (ppa_t) ((uint64_t) ch->map_ppa * g->spp + i);
              if (!sector_is_valid (f, p)
                  || f->rmap[p].owner != (s | OWNER_MAPFLAG)
                  || f->rmap[p].lpn != ci)
                problem (&c, "translation page of %llu:%llu chunk %u is not "
                         "valid/owned", (unsigned long long) o->pid,
                         (unsigned long long) o->oid, ci);
              if ((seen[p >> 6] >> (p & 63)) & 1)
                problem (&c, "translation sector %u owned twice", p);
              seen[p >> 6] |= 1ull << (p & 63);
            }
        }
    }
  /* every valid sector claimed; per-block counts */
  for (uint64_t w = 0; w < words; w++)
    {
      uint64_t v = f->valid_bits[w];
      if (v & ~seen[w])
        {
          uint64_t p = w * 64 + (uint64_t) __builtin_ctzll (v & ~seen[w]);
          problem (&c, "sector %llu is valid but owned by nobody (rmap %u/%u)",
                   (unsigned long long) p, f->rmap[p].owner, f->rmap[p].lpn);
        }
      while (v)
        {
          uint64_t p = w * 64 + (uint64_t) __builtin_ctzll (v);
          bvalid[p / g->sectors_per_block]++;
          v &= v - 1;
        }
    }
  uint32_t nfree = 0;
  for (uint32_t d = 0; d < g->dies; d++)
    for (uint32_t i = 0; i < f->free_heap[d].n; i++)
      {
        uint32_t b = f->free_heap[d].b[i];
        if (where[b])
          problem (&c, "block %u is in a free heap twice", b);
        where[b] = 1;
        nfree++;
        if (nand_die_of_block (g, b) != d)
          problem (&c, "block %u is in the free heap of die %u", b, d);
      }
  if (nfree != f->free_blocks)
    problem (&c, "free block count %u, heaps hold %u", f->free_blocks, nfree);
  for (uint32_t s = 0; s < f->nstreams; s++)
    for (uint32_t l = 0; l < f->streams[s].width; l++)
      {
        uint32_t b = f->streams[s].blocks[l];
        if (b == BLOCK_NONE)
          continue;
        if (where[b])
          problem (&c, "open block %u is also elsewhere", b);
        where[b] = 2;
        if (f->blk[b].state != BLK_OPEN || f->blk[b].stream != (int) s)
          problem (&c, "stream %u lane %u holds block %u in state %u", s, l,
                   b, f->blk[b].state);
      }
  for (uint32_t i = 0; i < f->npending; i++)
    {
      uint32_t b = f->pending[i].block;
      if (where[b])
        problem (&c, "GC victim %u waiting for erase is also elsewhere", b);
      where[b] = 4;
      if (f->blk[b].state != BLK_VICTIM || f->blk[b].valid)
        problem (&c, "GC victim %u waiting for erase has state %u, %u valid",
                 b, f->blk[b].state, f->blk[b].valid);
    }
  for (uint32_t v = 0; v <= g->sectors_per_block; v++)
    for (uint32_t b = f->bucket_head[v]; b != BLOCK_NONE; b = f->blk[b].lnext)
      {
        if (where[b])
          {
            problem (&c, "closed block %u is also elsewhere", b);
            break;
          }
        where[b] = 3;
        if (f->blk[b].valid != v || f->blk[b].state != BLK_CLOSED)
          problem (&c, "block %u in bucket %u has valid %u state %u", b, v,
                   f->blk[b].valid, f->blk[b].state);
      }
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      struct block_info *bi = &f->blk[b];
      if (bi->valid != bvalid[b])
        problem (&c, "block %u counts %u valid sectors, bitmap has %u", b,
                 bi->valid, bvalid[b]);
      if (bi->state == BLK_BAD)
        {
          if (where[b])
            problem (&c, "bad block %u is in use", b);
          continue;
        }
      if (!where[b])
        problem (&c, "block %u (state %u) is leaked: not free, open or "
                 "closed", b, bi->state);
      else if ((where[b] == 1) != (bi->state == BLK_FREE))
        problem (&c, "block %u state %u disagrees with its list", b,
                 bi->state);
    }
  if (f->nand.be->ops->stores_data)
    {
      check_oob (f, &c);
      check_data (f, &c);
    }
  free (seen);
  free (bvalid);
  free (where);
  if (problems)
    *problems = c.problems;
  pthread_mutex_unlock (&f->lock);
  return c.problems ? -EUCLEAN : 0;
}

/* Debug aid: one line per block (state, valid, write pointer, erases). */
void
ftl_debug_dump_blocks (ftl_t *f, FILE *out)
{
  pthread_mutex_lock (&f->lock);
  const struct nand_geometry *g = &f->nand.geo;
  fprintf (out, "free %u gc_low %u used %llu cap %llu live_meta %u "
           "meta_used %u\n", f->free_blocks, f->gc_low,
           (unsigned long long) f->used_sectors,
           (unsigned long long) f->capacity_sectors, f->nlive_meta,
           f->meta_used);
  for (uint32_t b = 0; b < g->total_blocks; b++)
    fprintf (out, "  blk %u state %u valid %u wp %u ec %u stream %d\n", b,
             f->blk[b].state, f->blk[b].valid, f->blk[b].write_ptr,
             f->blk[b].erase_count, f->blk[b].stream);
  pthread_mutex_unlock (&f->lock);
}
