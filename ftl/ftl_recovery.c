/* ftl_recovery.c - rebuilding the FTL after open.
 *
 * Clean image: the checkpoint is the whole state; valid bits, reverse map
 * and block counts are rebuilt from the mapping.
 *
 * After a crash: load the newest checkpoint (seq S), scan the OOB area,
 * and replay in seq order every data sector and meta record with seq > S:
 *   - a data sector maps (object, lpn) to its location and raises the
 *     size to the size the write produced;
 *   - meta records re-apply create/remove/punch/set-length/attributes;
 *   - items of a batch whose COMMIT record is missing are skipped;
 *   - pages with a torn OOB or a data CRC mismatch count as unprogrammed.
 * Correctness relies on: buffered sectors that are invalidated never
 * reach flash as live (ftl_alloc.c), meta records live until the next
 * checkpoint (ftl_log.c), and the erase barrier (ftl_gc.c).  Afterwards a
 * fresh checkpoint is written so the replayed records can die.
 */
#include "ftl_internal.h"

/* Rebuild valid bits, reverse map, counts, buckets and free heaps from the
 * object mappings and block states. */
int
ftl_recovery_rebuild_from_maps (struct ftl *f)
{
  const struct nand_geometry *g = &f->nand.geo;
  memset (f->valid_bits, 0, ((g->total_sectors + 63) / 64) * sizeof (uint64_t));
  for (uint32_t b = 0; b < g->total_blocks; b++)
    f->blk[b].valid = 0;
  for (uint32_t s = 0; s < f->objs_cap; s++)
    {
      struct ftl_object *o = f->objs[s];
      if (!o)
        continue;
      for (uint32_t c = 0; c < o->nchunks; c++)
        {
          struct map_chunk *ch = o->chunks[c];
          if (!ch || !ch->nmapped)
            continue;
          for (uint32_t i = 0; i < f->epc; i++)
            {
              ppa_t p = ch->ppa[i];
              if (p == PPA_NONE)
                continue;
              uint32_t b = p / g->sectors_per_block;
              if (p >= g->total_sectors || f->blk[b].state == BLK_FREE
                  || f->blk[b].state == BLK_BAD || sector_is_valid (f, p))
                {
                  /* points at erased flash or doubly owned: drop it */
                  ftl_map_set (f, o, c * f->epc + i, PPA_NONE);
                  continue;
                }
              f->valid_bits[p >> 6] |= 1ull << (p & 63);
              f->rmap[p].owner = s;
              f->rmap[p].lpn = c * f->epc + i;
              f->blk[b].valid++;
            }
        }
    }
  f->free_blocks = 0;
  for (uint32_t d = 0; d < g->dies; d++)
    f->free_heap[d].n = 0;
  memset (f->bucket_head, 0xff, (g->sectors_per_block + 1) * sizeof (uint32_t));
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      struct block_info *bi = &f->blk[b];
      bi->stream = -1;
      if (bi->state == BLK_FREE)
        {
          bi->write_ptr = 0;
          ftl_free_heap_push (f, nand_die_of_block (g, b), b);
        }
      else if (bi->state != BLK_BAD)
        {
          bi->state = BLK_CLOSED;
          ftl_block_bucket_insert (f, b);
        }
    }
  return 0;
}

struct replay_item
{
  uint64_t seq;
  uint64_t pid, oid, size, batch;
  uint32_t lpn;
  ppa_t ppa;
  uint16_t slot;              /* order inside a page */
  uint16_t kind;              /* SECT_* or 100 + meta type */
  uint32_t rec_off;           /* META: offset in recs[] */
};

struct replay
{
  struct replay_item *it;
  size_t n, cap;
  uint8_t *recs;              /* copies of meta records */
  size_t rlen, rcap;
};

static int
item_add (struct replay *rp, const struct replay_item *x)
{
  if (rp->n == rp->cap)
    {
      size_t nc = rp->cap ? rp->cap * 2 : 4096;
      struct replay_item *ni = realloc (rp->it, nc * sizeof *ni);
      if (!ni)
        return -ENOMEM;
      rp->it = ni;
      rp->cap = nc;
    }
  rp->it[rp->n++] = *x;
  return 0;
}

static int
rec_add (struct replay *rp, const struct meta_rec *r, uint32_t *off)
{
  if (rp->rlen + r->len > rp->rcap)
    {
      size_t nc = rp->rcap ? rp->rcap * 2 : 1 << 20;
      while (nc < rp->rlen + r->len)
        nc *= 2;
      uint8_t *n = realloc (rp->recs, nc);
      if (!n)
        return -ENOMEM;
      rp->recs = n;
      rp->rcap = nc;
    }
  memcpy (rp->recs + rp->rlen, r, r->len);
  *off = (uint32_t) rp->rlen;
  rp->rlen += r->len;
  return 0;
}

static int
item_cmp (const void *a, const void *b)
{
  const struct replay_item *x = a, *y = b;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  return (int) x->slot - (int) y->slot;
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

static bool
batch_committed (const uint64_t *c, size_t n, uint64_t batch)
{
  return bsearch (&batch, c, n, sizeof *c, u64_cmp) != NULL;
}

static void
apply_meta (struct ftl *f, const struct meta_rec *r)
{
  struct ftl_object *o = ftl_index_lookup (f, r->pid, r->oid);
  switch (r->type)
    {
    case META_PART_CREATE:
      ftl_part_add (f, r->pid);
      break;
    case META_PART_REMOVE:
      ftl_part_del (f, r->pid);
      break;
    case META_OBJ_CREATE:
      if (o)
        ftl_op_remove (f, o, false, NULL);
      o = ftl_index_insert (f, r->pid, r->oid);
      if (o)
        {
          o->version = r->seq;
          o->ctime_ns = o->mtime_ns = r->time_ns;
        }
      break;
    case META_OBJ_REMOVE:
      if (o)
        ftl_op_remove (f, o, false, NULL);
      break;
    case META_PUNCH:
      if (o)
        {
          ftl_unmap_range (f, o, r->a, r->b);
          o->version = r->seq;
          o->mtime_ns = r->time_ns;
        }
      break;
    case META_SETLEN:
      if (o)
        {
          ftl_op_set_length (f, o, r->a, false, NULL);
          o->version = r->seq;
          o->mtime_ns = r->time_ns;
        }
      break;
    case META_SETATTR:
      if (o)
        {
          uint32_t len = (uint32_t) (r->len - sizeof *r);
          /* the exact value length is kept in flags' upper use: b holds
           * number, so store len in the record's payload prefix */
          const uint8_t *p = (const uint8_t *) (r + 1);
          uint32_t vlen;
          memcpy (&vlen, p, 4);
          if (vlen + 4 <= len)
            ftl_attr_set (o, (uint32_t) r->a, (uint32_t) r->b, p + 4, vlen);
          o->version = r->seq;
          o->mtime_ns = r->time_ns;
        }
      break;
    default:
      break;
    }
}

int
ftl_recovery_replay (struct ftl *f, uint64_t ckpt_seq, ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct nand_backend *be = f->nand.be;
  struct replay rp = { 0 };
  uint64_t max_seq = ckpt_seq;
  const uint64_t chunk_pages = 4096;
  uint8_t *oobs = malloc (chunk_pages * g->oob_size);
  uint8_t *page = malloc (g->page_size);
  uint64_t *committed = NULL;
  size_t ncommitted = 0, ccap = 0;
  int r = 0;
  if (!oobs || !page)
    {
      r = -ENOMEM;
      goto out;
    }
  for (uint64_t first = 0; first < g->total_pages; first += chunk_pages)
    {
      uint64_t n = g->total_pages - first;
      if (n > chunk_pages)
        n = chunk_pages;
      r = be->ops->read_oob (be, first, n, oobs);
      if (r < 0)
        goto out;
      for (uint64_t k = 0; k < n; k++)
        {
          uint8_t *ob = oobs + k * g->oob_size;
          struct oob_header h;
          memcpy (&h, ob, sizeof h);
          if (h.magic != OOB_MAGIC || h.spp != g->spp)
            continue;
          uint32_t crc = h.crc;
          ((struct oob_header *) ob)->crc = 0;
          if (ftl_crc32c (0, ob, oob_bytes_needed (g->spp)) != crc)
            continue;
          uint64_t pg = first + k;
          uint32_t b = (uint32_t) (pg / g->pages_per_block);
          struct block_info *bi = &f->blk[b];
          if (bi->state == BLK_BAD)
            continue;
          if (h.erase_count > bi->erase_count)
            bi->erase_count = h.erase_count;
          if (h.seq <= ckpt_seq)
            continue;
          /* programmed after the checkpoint: check the data */
          if (h.kind == PAGE_DATA || h.kind == PAGE_META)
            {
              r = be->ops->ftl_read_sector (be, pg, 0, g->spp, page);
              if (r < 0)
                goto out;
              if (ftl_crc32c (0, page, g->page_size) != h.data_crc)
                continue;   /* torn program */
            }
          if (bi->state == BLK_FREE)
            bi->state = BLK_CLOSED;
          bi->write_ptr = g->pages_per_block;
          if (h.seq > max_seq)
            max_seq = h.seq;
          if (h.kind == PAGE_DATA)
            {
              const struct oob_entry *ent
                = (const struct oob_entry *) (ob + sizeof h);
              for (uint32_t s = 0; s < g->spp; s++)
                {
                  if (ent[s].kind != SECT_DATA && ent[s].kind != SECT_COPY
                      && ent[s].kind != SECT_CORRUPT)
                    continue;
                  struct replay_item x = {
                    .seq = h.seq, .pid = ent[s].pid, .oid = ent[s].oid,
                    .size = ent[s].size,
                    .batch = ent[s].batch, .lpn = ent[s].lpn,
                    .ppa = (ppa_t) (pg * g->spp + s), .slot = (uint16_t) s,
                    .kind = (uint16_t) ent[s].kind,
                  };
                  if ((r = item_add (&rp, &x)) < 0)
                    goto out;
                }
            }
          else if (h.kind == PAGE_META)
            {
              uint32_t off = 0;
              while (off + sizeof (struct meta_rec) <= h.used
                     && h.used <= g->page_size)
                {
                  const struct meta_rec *mr
                    = (const struct meta_rec *) (page + off);
                  if (mr->len < sizeof *mr || off + mr->len > h.used)
                    break;
                  off += mr->len;
                  if (mr->seq <= ckpt_seq || mr->type == 0)
                    continue;
                  if (mr->seq > max_seq)
                    max_seq = mr->seq;
                  if (mr->type == META_COMMIT)
                    {
                      if (ncommitted == ccap)
                        {
                          ccap = ccap ? ccap * 2 : 64;
                          uint64_t *nc = realloc (committed,
                                                  ccap * sizeof *nc);
                          if (!nc)
                            {
                              r = -ENOMEM;
                              goto out;
                            }
                          committed = nc;
                        }
                      committed[ncommitted++] = mr->batch;
                      continue;
                    }
                  struct replay_item x = {
                    .seq = mr->seq, .batch = mr->batch,
                    .kind = (uint16_t) (100 + mr->type),
                  };
                  if ((r = rec_add (&rp, mr, &x.rec_off)) < 0
                      || (r = item_add (&rp, &x)) < 0)
                    goto out;
                }
            }
        }
    }
  qsort (rp.it, rp.n, sizeof *rp.it, item_cmp);
  if (ncommitted)
    qsort (committed, ncommitted, sizeof *committed, u64_cmp);
  uint64_t last_meta_seq = 0;
  for (size_t i = 0; i < rp.n; i++)
    {
      struct replay_item *x = &rp.it[i];
      if (x->batch && !batch_committed (committed, ncommitted, x->batch))
        continue;
      if (x->kind >= 100)
        {
          if (x->seq == last_meta_seq)
            continue;   /* a GC-relocated duplicate */
          last_meta_seq = x->seq;
          apply_meta (f, (const struct meta_rec *) (rp.recs + x->rec_off));
          continue;
        }
      struct ftl_object *o = ftl_index_lookup (f, x->pid, x->oid);
      if (!o)
        continue;
      if (ftl_map_chunk_ensure (f, o, x->lpn) < 0)
        {
          r = -ENOMEM;
          goto out;
        }
      ftl_map_set (f, o, x->lpn, x->ppa);
      /* sizes only grow between length records (which reset them) */
      if (x->size > o->size)
        o->size = x->size;
      if (x->kind == SECT_DATA)
        o->version = x->seq;
    }
  f->seq = max_seq + (1ull << 32);
out:
  free (oobs);
  free (page);
  free (rp.it);
  free (rp.recs);
  free (committed);
  if (r < 0)
    return ftl_fail (err, r, "crash recovery failed: %s", strerror (-r));
  return 0;
}
