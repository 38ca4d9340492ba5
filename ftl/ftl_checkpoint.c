/* ftl_checkpoint.c - the system area of a file image: superblock (format
 * parameters), mount state (set while open, cleared by a clean close) and
 * two alternating checkpoint slots holding the whole FTL state (block
 * table, partitions, objects with attributes and mapping).  A checkpoint
 * is written after programming every buffer; the meta records it covers
 * die with it. */
#include "ftl_internal.h"

#define SB_MAGIC "OSSDFTL1"
#define CKPT_MAGIC 0x314b43504b4443ull   /* "CDKPCK1" */
#define STATE_MAGIC 0x4554415453445353ull

struct superblock
{
  char magic[8];
  uint32_t version, size;
  char profile[32];
  uint32_t channels, ways, planes, blocks_per_plane, pages_per_block;
  uint32_t page_size, oob_size;
  double over_provisioning;
  uint32_t mapping_mode, alloc_policy, gc_policy, max_open_blocks;
  double mapping_cache_fraction;
  uint32_t pace_real_time, channel_mbps;
  uint64_t read_ns, program_ns, erase_ns;
  uint32_t factory_bad_permille, wl_threshold;
  uint32_t stripe_width, pad;
  uint32_t crc;
};

int
ftl_sb_write (struct ftl *f, ftl_error *err)
{
  struct superblock sb;
  memset (&sb, 0, sizeof sb);
  memcpy (sb.magic, SB_MAGIC, 8);
  sb.version = 1;
  sb.size = sizeof sb;
  snprintf (sb.profile, sizeof sb.profile, "%s", f->profile);
  sb.channels = f->cfg.channels;
  sb.ways = f->cfg.ways;
  sb.planes = f->cfg.planes;
  sb.blocks_per_plane = f->cfg.blocks_per_plane;
  sb.pages_per_block = f->cfg.pages_per_block;
  sb.page_size = f->cfg.page_size;
  sb.oob_size = f->nand.geo.oob_size;
  sb.over_provisioning = f->cfg.over_provisioning;
  sb.mapping_mode = f->cfg.mapping_mode;
  sb.alloc_policy = f->cfg.alloc_policy;
  sb.gc_policy = f->cfg.gc_policy;
  sb.max_open_blocks = f->cfg.max_open_blocks;
  sb.mapping_cache_fraction = f->cfg.mapping_cache_fraction;
  sb.pace_real_time = f->cfg.pace_real_time;
  sb.channel_mbps = f->cfg.channel_mbps;
  sb.read_ns = f->cfg.read_ns;
  sb.program_ns = f->cfg.program_ns;
  sb.erase_ns = f->cfg.erase_ns;
  sb.factory_bad_permille = f->cfg.factory_bad_permille;
  sb.wl_threshold = f->cfg.wl_threshold;
  sb.stripe_width = f->cfg.stripe_width;
  sb.crc = ftl_crc32c (0, &sb, offsetof (struct superblock, crc));
  int r = f->nand.be->ops->sys_write (f->nand.be, f->lay.sb_off, &sb,
                                      sizeof sb);
  if (r < 0)
    return ftl_fail (err, r, "writing the superblock failed: %s",
                     strerror (-r));
  return 0;
}

int
ftl_sb_read_config (struct nand_backend *be, struct ftl_config *cfg,
                char *profile, ftl_error *err)
{
  struct superblock sb;
  int r = be->ops->sys_read (be, 0, &sb, sizeof sb);
  if (r < 0)
    return ftl_fail (err, r, "reading the superblock failed: %s",
                     strerror (-r));
  if (memcmp (sb.magic, SB_MAGIC, 8) != 0)
    return ftl_fail (err, -EINVAL, "not an FTL image (bad superblock magic)");
  if (sb.version != 1 || sb.size != sizeof sb
      || sb.crc != ftl_crc32c (0, &sb, offsetof (struct superblock, crc)))
    return ftl_fail (err, -EINVAL, "FTL superblock is corrupt or of an "
                     "unknown version %u", sb.version);
  memset (cfg, 0, sizeof *cfg);
  memcpy (profile, sb.profile, 32);
  profile[31] = 0;
  cfg->profile = profile;
  cfg->channels = sb.channels;
  cfg->ways = sb.ways;
  cfg->planes = sb.planes;
  cfg->blocks_per_plane = sb.blocks_per_plane;
  cfg->pages_per_block = sb.pages_per_block;
  cfg->page_size = sb.page_size;
  cfg->oob_size = sb.oob_size;
  cfg->over_provisioning = sb.over_provisioning;
  cfg->mapping_mode = sb.mapping_mode;
  cfg->alloc_policy = sb.alloc_policy;
  cfg->gc_policy = sb.gc_policy;
  cfg->max_open_blocks = sb.max_open_blocks;
  cfg->mapping_cache_fraction = sb.mapping_cache_fraction;
  cfg->pace_real_time = sb.pace_real_time;
  cfg->channel_mbps = sb.channel_mbps;
  cfg->read_ns = sb.read_ns;
  cfg->program_ns = sb.program_ns;
  cfg->erase_ns = sb.erase_ns;
  cfg->factory_bad_permille = sb.factory_bad_permille;
  cfg->wl_threshold = sb.wl_threshold;
  cfg->stripe_width = sb.stripe_width;
  return 0;
}

struct state_rec
{
  uint64_t magic;
  uint32_t mounted;
  uint32_t crc;
};

int
ftl_state_write (struct ftl *f, uint32_t mounted)
{
  struct state_rec s = { STATE_MAGIC, mounted, 0 };
  s.crc = ftl_crc32c (0, &s, offsetof (struct state_rec, crc));
  int r = f->nand.be->ops->sys_write (f->nand.be, f->lay.state_off, &s,
                                      sizeof s);
  if (r == 0)
    r = f->nand.be->ops->sync (f->nand.be);
  return r;
}

int
ftl_state_read (struct nand_backend *be, uint32_t *mounted)
{
  struct state_rec s;
  int r = be->ops->sys_read (be, 4096, &s, sizeof s);
  if (r < 0)
    return r;
  if (s.magic != STATE_MAGIC
      || s.crc != ftl_crc32c (0, &s, offsetof (struct state_rec, crc)))
    *mounted = 1;   /* unknown: assume it crashed */
  else
    *mounted = s.mounted;
  return 0;
}

/* ---- checkpoint body ---- */
struct ckpt_header
{
  uint64_t magic;
  uint64_t gen;
  uint64_t seq;
  uint64_t len;               /* body bytes */
  uint32_t clean;
  uint32_t body_crc;
  uint32_t pad;
  uint32_t crc;
};

struct wbuf
{
  uint8_t *p;
  size_t len, cap;
};

static int
wb_put (struct wbuf *w, const void *d, size_t n)
{
  if (w->len + n > w->cap)
    {
      size_t nc = w->cap ? w->cap : 1 << 20;
      while (nc < w->len + n)
        nc *= 2;
      uint8_t *np = realloc (w->p, nc);
      if (!np)
        return -ENOMEM;
      w->p = np;
      w->cap = nc;
    }
  memcpy (w->p + w->len, d, n);
  w->len += n;
  return 0;
}

#define PUT(v) do { if (wb_put (&w, &(v), sizeof (v)) < 0) goto oom; } while (0)

struct ckpt_obj
{
  uint64_t pid, oid, size, version, ctime_ns, mtime_ns;
  uint32_t nattrs, nchunks;
};

struct ckpt_chunk
{
  uint32_t idx, nmapped, dense, pad;
};

/* The caller has programmed every buffer.  Writes the checkpoint, syncs,
 * and then retires every live meta page. */
int
ftl_ckpt_write (struct ftl *f, bool clean, ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  if (!f->nand.be->ops->persistent)
    {
      ftl_live_meta_kill_all (f);
      f->ckpt_seq = f->seq;
      f->pages_since_ckpt = 0;
      return 0;
    }
  struct wbuf w = { 0 };
  uint32_t nblocks = g->total_blocks;
  PUT (nblocks);
  for (uint32_t b = 0; b < nblocks; b++)
    {
      uint32_t ec = f->blk[b].erase_count;
      uint8_t st = f->blk[b].state == BLK_FREE ? 0
        : f->blk[b].state == BLK_BAD ? 2 : 1;
      PUT (ec);
      PUT (st);
    }
  PUT (f->nparts);
  for (uint32_t i = 0; i < f->nparts; i++)
    PUT (f->parts[i]);
  PUT (f->nobjs);
  for (uint32_t s = 0; s < f->objs_cap; s++)
    {
      struct ftl_object *o = f->objs[s];
      if (!o)
        continue;
      struct ckpt_obj co = { o->pid, o->oid, o->size, o->version,
                             o->ctime_ns, o->mtime_ns, o->nattrs, 0 };
      for (uint32_t c = 0; c < o->nchunks; c++)
        if (o->chunks[c] && o->chunks[c]->nmapped)
          co.nchunks++;
      PUT (co);
      for (uint32_t a = 0; a < o->nattrs; a++)
        {
          struct ftl_attr *at = &o->attrs[a];
          PUT (at->page);
          PUT (at->number);
          PUT (at->len);
          if (wb_put (&w, at->val, at->len) < 0)
            goto oom;
        }
      for (uint32_t c = 0; c < o->nchunks; c++)
        {
          struct map_chunk *ch = o->chunks[c];
          if (!ch || !ch->nmapped)
            continue;
          struct ckpt_chunk cc = { c, ch->nmapped,
                                   ch->nmapped * 2 >= f->epc, 0 };
          PUT (cc);
          if (cc.dense)
            {
              if (wb_put (&w, ch->ppa, f->epc * sizeof (ppa_t)) < 0)
                goto oom;
            }
          else
            for (uint32_t i = 0; i < f->epc; i++)
              if (ch->ppa[i] != PPA_NONE)
                {
                  PUT (i);
                  PUT (ch->ppa[i]);
                }
        }
    }
  if (w.len + 4096 > f->lay.ckpt_slot_size)
    {
      free (w.p);
      return ftl_fail (err, -ENOSPC, "checkpoint of %zu bytes does not fit "
                       "its %llu-byte slot", w.len,
                       (unsigned long long) f->lay.ckpt_slot_size);
    }
  /* data the checkpoint points at must be durable first */
  int r = f->nand.be->ops->sync (f->nand.be);
  struct ckpt_header h = { CKPT_MAGIC, f->ckpt_gen + 1, f->seq, w.len,
                           clean, ftl_crc32c (0, w.p, w.len), 0, 0 };
  h.crc = ftl_crc32c (0, &h, offsetof (struct ckpt_header, crc));
  uint64_t base = f->lay.ckpt_off[h.gen & 1];
  if (r == 0)
    r = f->nand.be->ops->sys_write (f->nand.be, base + 4096, w.p, w.len);
  if (r == 0)
    r = f->nand.be->ops->sync (f->nand.be);
  if (r == 0)
    r = f->nand.be->ops->sys_write (f->nand.be, base, &h, sizeof h);
  if (r == 0)
    r = f->nand.be->ops->sync (f->nand.be);
  free (w.p);
  if (r < 0)
    return ftl_fail (err, r, "writing checkpoint failed: %s", strerror (-r));
  f->nand.unsynced = false;
  f->ckpt_gen = h.gen;
  f->ckpt_seq = h.seq;
  f->pages_since_ckpt = 0;
  ftl_live_meta_kill_all (f);
  return 0;
oom:
  free (w.p);
  return ftl_fail (err, -ENOMEM, "out of memory building a checkpoint");
}

struct rbuf
{
  const uint8_t *p;
  size_t len, off;
};

static bool
rb_get (struct rbuf *r, void *d, size_t n)
{
  if (r->off + n > r->len)
    return false;
  memcpy (d, r->p + r->off, n);
  r->off += n;
  return true;
}

#define GET(v) do { if (!rb_get (&rb, &(v), sizeof (v))) goto bad; } while (0)

/* Load the newest valid checkpoint into f (fresh index and block table).
 * Block states: FREE stays free (erased), everything else is loaded as
 * CLOSED with write_ptr = pages_per_block; valid counts are rebuilt by the
 * caller from the mapping. */
int
ftl_ckpt_load (struct ftl *f, uint64_t *seq, bool *clean, ftl_error *err)
{
  const struct nand_geometry *g = &f->nand.geo;
  struct ckpt_header h[2];
  int best = -1;
  for (int i = 0; i < 2; i++)
    {
      int r = f->nand.be->ops->sys_read (f->nand.be, f->lay.ckpt_off[i],
                                         &h[i], sizeof h[i]);
      if (r < 0)
        return ftl_fail (err, r, "reading checkpoint slot %d failed", i);
      if (h[i].magic != CKPT_MAGIC
          || h[i].crc != ftl_crc32c (0, &h[i], offsetof (struct ckpt_header, crc))
          || h[i].len + 4096 > f->lay.ckpt_slot_size)
        continue;
      if (best < 0 || h[i].gen > h[best].gen)
        best = i;
    }
  uint8_t *body = NULL;
  for (int attempt = 0; attempt < 2 && best >= 0; attempt++)
    {
      body = malloc (h[best].len ? h[best].len : 1);
      if (!body)
        return ftl_fail (err, -ENOMEM, "out of memory loading checkpoint");
      int r = f->nand.be->ops->sys_read (f->nand.be,
                                         f->lay.ckpt_off[best] + 4096, body,
                                         h[best].len);
      if (r == 0 && ftl_crc32c (0, body, h[best].len) == h[best].body_crc)
        break;
      free (body);
      body = NULL;
      int other = 1 - best;
      if (h[other].magic == CKPT_MAGIC && h[other].gen + 1 == h[best].gen)
        best = other;
      else
        best = -1;
    }
  if (!body)
    return ftl_fail (err, -EINVAL, "image has no valid checkpoint");
  struct rbuf rb = { body, h[best].len, 0 };
  uint32_t nblocks;
  GET (nblocks);
  if (nblocks != g->total_blocks)
    goto bad;
  for (uint32_t b = 0; b < nblocks; b++)
    {
      uint32_t ec;
      uint8_t st;
      GET (ec);
      GET (st);
      f->blk[b].erase_count = ec;
      f->blk[b].valid = 0;
      f->blk[b].stream = -1;
      if (st == 0)
        {
          f->blk[b].state = BLK_FREE;
          f->blk[b].write_ptr = 0;
        }
      else if (st == 2)
        {
          f->blk[b].state = BLK_BAD;
          f->bad_blocks++;
        }
      else
        {
          f->blk[b].state = BLK_CLOSED;
          f->blk[b].write_ptr = g->pages_per_block;
        }
    }
  uint32_t nparts, nobjs;
  GET (nparts);
  for (uint32_t i = 0; i < nparts; i++)
    {
      uint64_t pid;
      GET (pid);
      ftl_part_add (f, pid);
    }
  GET (nobjs);
  for (uint32_t i = 0; i < nobjs; i++)
    {
      struct ckpt_obj co;
      GET (co);
      struct ftl_object *o = ftl_index_insert (f, co.pid, co.oid);
      if (!o)
        goto oom;
      o->size = co.size;
      o->version = co.version;
      o->ctime_ns = co.ctime_ns;
      o->mtime_ns = co.mtime_ns;
      for (uint32_t a = 0; a < co.nattrs; a++)
        {
          uint32_t page, number, len;
          GET (page);
          GET (number);
          GET (len);
          if (len > FTL_ATTR_MAX_LEN || rb.off + len > rb.len)
            goto bad;
          if (ftl_attr_set (o, page, number, rb.p + rb.off, len) < 0)
            goto oom;
          rb.off += len;
        }
      for (uint32_t c = 0; c < co.nchunks; c++)
        {
          struct ckpt_chunk cc;
          GET (cc);
          if (cc.nmapped > f->epc)
            goto bad;
          if (cc.dense)
            {
              for (uint32_t k = 0; k < f->epc; k++)
                {
                  ppa_t p;
                  GET (p);
                  if (p != PPA_NONE && p < g->total_sectors
                      && ftl_map_set (f, o, cc.idx * f->epc + k, p) < 0)
                    goto oom;
                }
            }
          else
            for (uint32_t k = 0; k < cc.nmapped; k++)
              {
                uint32_t idx;
                ppa_t p;
                GET (idx);
                GET (p);
                if (idx >= f->epc || p >= g->total_sectors)
                  goto bad;
                if (ftl_map_set (f, o, cc.idx * f->epc + idx, p) < 0)
                  goto oom;
              }
        }
    }
  f->ckpt_gen = h[best].gen;
  f->ckpt_seq = h[best].seq;
  *seq = h[best].seq;
  *clean = h[best].clean;
  free (body);
  return 0;
bad:
  free (body);
  return ftl_fail (err, -EINVAL, "checkpoint generation %llu is malformed",
                   (unsigned long long) h[best].gen);
oom:
  free (body);
  return ftl_fail (err, -ENOMEM, "out of memory loading checkpoint");
}

/* Take a checkpoint when the replay window or live meta pages grew too
 * large (called at safe points: not in a batch, not inside GC). */
int
ftl_ckpt_maybe (struct ftl *f)
{
  if (f->in_batch || f->gc_running)
    return 0;
  if (f->pages_since_ckpt < f->ckpt_interval_pages
      && f->nlive_meta < f->live_meta_limit)
    return 0;
  int r = ftl_streams_flush_all (f);
  if (r == 0)
    r = ftl_log_flush (f);
  if (r == 0)
    r = ftl_streams_flush_all (f);
  if (r < 0)
    return r;
  if (ftl_ckpt_write (f, false, NULL) < 0)
    {
      /* not fatal for the operation that triggered it: the log stays live
       * (recovery still works); back off before trying again */
      f->pages_since_ckpt = 0;
      if (f->live_meta_limit < (1u << 30))
        f->live_meta_limit *= 2;
    }
  return 0;
}
