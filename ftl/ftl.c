/* ftl.c - the public API (ossd_ftl.h): argument checking, locking, format
 * and open, and glue to the state-changing operations in ftl_ops.c.
 * One mutex per ftl_t serialises every call. */
#include <time.h>

#include "ftl_internal.h"

#define LOCK(f) pthread_mutex_lock (&(f)->lock)

static void
op_begin (struct ftl *f, unsigned prio)
{
  ftl_pace_call_begin (f, prio);
  f->op_done = f->now;
  f->op_nand_reads = 0;
}

/* End of a host op: advance the host clock, record latency; under a paced
 * profile return the ticket of its modelled completion, to sleep on after
 * unlocking (0: none). */
static uint64_t
op_end (struct ftl *f, struct lat_hist *h)
{
  uint64_t t0 = f->now;
  if (f->op_done > f->now)
    f->now = f->op_done;
  if (h)
    ftl_lat_record (h, f->now - t0);
  return ftl_pace_call_end (f);
}

static int
unlock_ret (struct ftl *f, int r, uint64_t ticket)
{
  pthread_mutex_unlock (&f->lock);
  ftl_pace_wait_ticket (f, ticket);
  return r;
}
#define UNLOCK(f, r) unlock_ret ((f), (r), 0)

int
ftl_new (const struct ftl_config *cfg_in, struct ftl **out, ftl_error *err)
{
  struct ftl *f = calloc (1, sizeof *f);
  if (!f)
    return ftl_fail (err, -ENOMEM, "out of memory");
  pthread_mutex_init (&f->lock, NULL);
  pthread_mutex_init (&f->link_lock, NULL);
  f->cfg = *cfg_in;
  int r = ftl_config_complete (&f->cfg, err);
  if (r < 0)
    goto fail;
  snprintf (f->profile, sizeof f->profile, "%s", f->cfg.profile);
  f->cfg.profile = f->profile;
  struct nand_geometry g;
  r = nand_geometry_fill (&g, &f->cfg, err);
  if (r < 0)
    goto fail;
  struct nand_timing tm;
  ftl_timing_for_profile (f->profile, &tm, &f->cfg);
  r = nand_init (&f->nand, &g, &tm, NULL, err);
  if (r < 0)
    goto fail;
  f->cfg.oob_size = f->nand.geo.oob_size;
  *out = f;
  return 0;
fail:
  ftl_free (f);
  return r;
}

/* Second stage once the backend exists. */
static int
ftl_setup (struct ftl *f, ftl_error *err)
{
  int r = ftl_derive (f, err);
  if (r < 0)
    return r;
  f->scratch = calloc (1, f->nand.geo.page_size);
  f->scratch2 = calloc (1, f->nand.geo.page_size);
  f->meta_buf = calloc (1, f->nand.geo.page_size);
  if (!f->scratch || !f->scratch2 || !f->meta_buf)
    return ftl_fail (err, -ENOMEM, "out of memory");
  if (ftl_index_init (f) < 0 || ftl_alloc_init (f) < 0
      || ftl_integrity_init (f) < 0)
    return ftl_fail (err, -ENOMEM, "out of memory for FTL tables");
  if (f->cfg.mapping_mode != FTL_MAP_RAM && ftl_dftl_init (f) < 0)
    return ftl_fail (err, -ENOMEM, "out of memory for the mapping cache");
  /* the profile's runtime part (timing, modelled parallelism, link,
   * pacing) in force until ftl_set_profile changes it */
  return ftl_pace_apply (f, f->profile, err);
}

void
ftl_free (struct ftl *f)
{
  if (!f)
    return;
  ftl_dftl_fini (f);
  ftl_index_fini (f);
  ftl_alloc_fini (f);
  nand_fini (&f->nand);
  free (f->scratch);
  free (f->scratch2);
  ftl_integrity_fini (f);
  free (f->meta_buf);
  free (f->live_meta);
  free (f->image_path);
  pthread_mutex_destroy (&f->lock);
  pthread_mutex_destroy (&f->link_lock);
  free (f);
}

static int
backend_for_path (struct ftl *f, const char *path, bool create,
                  ftl_error *err)
{
  if (!path || !*path)
    return nand_backend_ram_create (&f->nand.geo, &f->nand.be, err);
  if (strcmp (path, "none:") == 0)
    return nand_backend_none_create (&f->nand.geo, &f->nand.be, err);
  nand_file_layout_compute (&f->nand.geo, &f->lay);
  f->image_path = strdup (path);
  return nand_backend_file_create (path, &f->nand.geo, &f->lay, create,
                                   &f->nand.be, err);
}

int
ftl_format (const char *image_path, const struct ftl_config *cfg,
            ftl_t **out, ftl_error *err)
{
  struct ftl_config c;
  if (!cfg)
    {
      int r = ftl_config_defaults (&c, NULL, err);
      if (r < 0)
        return r;
      cfg = &c;
    }
  struct ftl *f;
  int r = ftl_new (cfg, &f, err);
  if (r < 0)
    return r;
  r = backend_for_path (f, image_path, true, err);
  if (r < 0)
    goto fail;
  r = ftl_setup (f, err);
  if (r < 0)
    goto fail;
  ftl_wear_mark_factory_bad (f, f->cfg.factory_bad_permille, 0x5eed);
  if (f->bad_blocks)
    {
      r = ftl_derive (f, err);
      if (r < 0)
        goto fail;
    }
  for (uint32_t b = 0; b < f->nand.geo.total_blocks; b++)
    if (f->blk[b].state != BLK_BAD)
      ftl_block_make_free (f, b);
  ftl_part_add (f, 0);
  if (f->nand.be->ops->persistent)
    {
      r = ftl_sb_write (f, err);
      if (r == 0)
        r = ftl_ckpt_write (f, false, err);
      if (r == 0)
        r = ftl_state_write (f, 1);
      if (r < 0)
        {
          ftl_fail (err, r, "formatting %s failed: %s", image_path,
                    err && err->msg[0] ? err->msg : strerror (-r));
          goto fail;
        }
    }
  /* recovery and format moved the clocks: pacing starts from here */
  ftl_pace_apply (f, f->pace.name, NULL);
  *out = f;
  return 0;
fail:
  ftl_free (f);
  return r;
}

int
ftl_open (const char *image_path, ftl_t **out, ftl_error *err)
{
  if (!image_path || !*image_path || strcmp (image_path, "none:") == 0)
    return ftl_fail (err, -EINVAL, "only file images can be opened (RAM and "
                     "none: backends are lost on close)");
  struct nand_backend *probe;
  int r = nand_backend_file_create (image_path, NULL, NULL, false, &probe,
                                    err);
  if (r < 0)
    return r;
  struct ftl_config cfg;
  char profile[32];
  r = ftl_sb_read_config (probe, &cfg, profile, err);
  uint32_t mounted = 1;
  if (r == 0)
    r = ftl_state_read (probe, &mounted);
  probe->ops->close (probe);
  if (r < 0)
    {
      if (err && strstr (err->msg, "superblock") == NULL)
        ftl_fail (err, r, "%s: cannot read image header", image_path);
      return r == -EINVAL ? r : ftl_fail (err, r, "%s: %s", image_path,
                                           err ? err->msg : "");
    }
  struct ftl *f;
  r = ftl_new (&cfg, &f, err);
  if (r < 0)
    return r;
  r = backend_for_path (f, image_path, false, err);
  if (r < 0)
    goto fail;
  r = ftl_setup (f, err);
  if (r < 0)
    goto fail;
  uint64_t seq;
  bool clean;
  r = ftl_ckpt_load (f, &seq, &clean, err);
  if (r < 0)
    goto fail;
  r = ftl_derive (f, err);   /* bad blocks known now */
  if (r < 0)
    goto fail;
  f->seq = seq;
  if (mounted)
    {
      r = ftl_recovery_replay (f, seq, err);
      if (r < 0)
        goto fail;
    }
  ftl_recovery_rebuild_from_maps (f);
  if (mounted)
    {
      /* the replayed records and pages are only safe to erase once a
       * checkpoint holds their effect */
      r = ftl_ckpt_write (f, false, err);
      if (r < 0)
        goto fail;
    }
  /* a crash can leave few free blocks: reclaim before taking writes */
  if (f->free_blocks < f->gc_low)
    ftl_gc_collect (f, UINT32_MAX, f->gc_low + 2, 0);
  r = ftl_state_write (f, 1);
  if (r < 0)
    {
      ftl_fail (err, r, "%s: cannot mark the image open", image_path);
      goto fail;
    }
  /* recovery and format moved the clocks: pacing starts from here */
  ftl_pace_apply (f, f->pace.name, NULL);
  *out = f;
  return 0;
fail:
  ftl_free (f);
  return r;
}

static int
flush_locked (struct ftl *f, ftl_error *err)
{
  int r = ftl_streams_flush_all (f);
  if (r == 0)
    r = ftl_log_flush (f);
  if (r == 0)
    r = ftl_streams_flush_all (f);
  if (r == 0 && f->cfg.mapping_mode != FTL_MAP_RAM)
    ftl_dftl_flush_dirty (f);
  if (r == 0 && f->nand.unsynced && f->nand.be->ops->persistent)
    {
      r = f->nand.be->ops->sync (f->nand.be);
      if (r == 0)
        f->nand.unsynced = false;
    }
  if (r < 0)
    return ftl_fail (err, r, "flush failed: %s", strerror (-r));
  return 0;
}

void
ftl_close (ftl_t *f)
{
  if (!f)
    return;
  LOCK (f);
  if (f->nand.be && f->nand.be->ops->persistent)
    {
      if (flush_locked (f, NULL) == 0 && ftl_ckpt_write (f, true, NULL) == 0)
        ftl_state_write (f, 0);
    }
  pthread_mutex_unlock (&f->lock);
  ftl_free (f);
}

int
ftl_flush (ftl_t *f, ftl_error *err)
{
  LOCK (f);
  op_begin (f, FTL_PRIORITY_DEFAULT);
  int r = flush_locked (f, err);
  if (r == 0)
    ftl_ckpt_maybe (f);
  return unlock_ret (f, r, op_end (f, NULL));
}

/* ---- partitions ---- */
int
ftl_create_partition (ftl_t *f, uint64_t pid, ftl_error *err)
{
  LOCK (f);
  if (ftl_part_exists (f, pid))
    return UNLOCK (f, ftl_fail (err, -EEXIST, "partition %llu exists",
                                (unsigned long long) pid));
  int r = ftl_log_append (f, META_PART_CREATE, pid, 0, 0, 0, NULL, 0, NULL);
  if (r == 0)
    r = ftl_part_add (f, pid);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  if (r < 0)
    ftl_fail (err, r, "creating partition %llu failed: %s",
              (unsigned long long) pid, strerror (-r));
  return UNLOCK (f, r);
}

int
ftl_remove_partition (ftl_t *f, uint64_t pid, ftl_error *err)
{
  LOCK (f);
  if (!ftl_part_exists (f, pid))
    return UNLOCK (f, ftl_fail (err, -ENOENT, "partition %llu does not exist",
                                (unsigned long long) pid));
  uint64_t n = ftl_part_count_objects (f, pid);
  if (n)
    return UNLOCK (f, ftl_fail (err, -ENOTEMPTY, "partition %llu still "
                                "holds %llu objects",
                                (unsigned long long) pid,
                                (unsigned long long) n));
  int r = ftl_log_append (f, META_PART_REMOVE, pid, 0, 0, 0, NULL, 0, NULL);
  if (r == 0)
    ftl_part_del (f, pid);
  else
    ftl_fail (err, r, "removing partition %llu failed",
              (unsigned long long) pid);
  return UNLOCK (f, r);
}

int
ftl_list_partitions (ftl_t *f, uint64_t after, uint64_t *pids, size_t cap,
                     size_t *n, ftl_error *err)
{
  LOCK (f);
  size_t k = 0;
  for (uint32_t i = 0; i < f->nparts && k < cap; i++)
    if (f->parts[i] > after)
      pids[k++] = f->parts[i];
  *n = k;
  return UNLOCK (f, 0);
}

/* ---- objects ---- */
static struct ftl_object *
find_obj (struct ftl *f, uint64_t pid, uint64_t oid, ftl_error *err, int *r)
{
  struct ftl_object *o = ftl_index_lookup (f, pid, oid);
  if (!o)
    {
      if (!ftl_part_exists (f, pid))
        *r = ftl_fail (err, -ENOENT, "partition %llu does not exist",
                       (unsigned long long) pid);
      else
        *r = ftl_fail (err, -ENOENT, "object %llu:%llu does not exist",
                       (unsigned long long) pid, (unsigned long long) oid);
    }
  return o;
}

int
ftl_create_object (ftl_t *f, uint64_t pid, uint64_t oid, ftl_error *err)
{
  LOCK (f);
  if (!ftl_part_exists (f, pid))
    return UNLOCK (f, ftl_fail (err, -ENOENT, "partition %llu does not exist",
                                (unsigned long long) pid));
  if (ftl_index_lookup (f, pid, oid))
    return UNLOCK (f, ftl_fail (err, -EEXIST, "object %llu:%llu exists",
                                (unsigned long long) pid,
                                (unsigned long long) oid));
  int r = ftl_op_create (f, pid, oid, true, NULL, err);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  return UNLOCK (f, r);
}

int
ftl_remove_object (ftl_t *f, uint64_t pid, uint64_t oid, ftl_error *err)
{
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (o)
    r = ftl_op_remove (f, o, true, err);
  if (r == 0)
    ftl_ckpt_maybe (f);
  return UNLOCK (f, r);
}

int
ftl_stat_object (ftl_t *f, uint64_t pid, uint64_t oid,
                 struct ftl_object_info *info, ftl_error *err)
{
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (o)
    {
      info->pid = pid;
      info->oid = oid;
      info->size = o->size;
      info->allocated = o->mapped * FTL_SECTOR;
      info->version = o->version;
      info->ctime_ns = o->ctime_ns;
      info->mtime_ns = o->mtime_ns;
      info->priority = o->priority;
    }
  return UNLOCK (f, r);
}

static int
u64cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

int
ftl_list_objects (ftl_t *f, uint64_t pid, uint64_t after, uint64_t *oids,
                  size_t cap, size_t *n, ftl_error *err)
{
  LOCK (f);
  *n = 0;
  if (!ftl_part_exists (f, pid))
    return UNLOCK (f, ftl_fail (err, -ENOENT, "partition %llu does not exist",
                                (unsigned long long) pid));
  if (cap == 0)
    return UNLOCK (f, 0);
  /* keep the cap smallest OIDs > after: collect, sort, trim */
  size_t k = 0, bufcap = cap * 2 + 16;
  uint64_t *buf = malloc (bufcap * sizeof *buf);
  if (!buf)
    return UNLOCK (f, ftl_fail (err, -ENOMEM, "out of memory"));
  for (uint32_t s = 0; s < f->objs_cap; s++)
    {
      struct ftl_object *o = f->objs[s];
      if (!o || o->pid != pid || o->oid <= after)
        continue;
      buf[k++] = o->oid;
      if (k == bufcap)
        {
          qsort (buf, k, sizeof *buf, u64cmp);
          k = cap;
        }
    }
  qsort (buf, k, sizeof *buf, u64cmp);
  if (k > cap)
    k = cap;
  memcpy (oids, buf, k * sizeof *buf);
  free (buf);
  *n = k;
  return UNLOCK (f, 0);
}

/* Paced: start the image's reads of every page a read maps to at once, so
 * that a cold image's own latency runs during the modelled time instead of
 * after it, one page fault at a time.  Runs of consecutive pages are one
 * request each. */
static void
prefetch_pages (struct ftl *f, struct ftl_object *o, uint64_t first,
                uint64_t last)
{
  const struct nand_geometry *g = &f->nand.geo;
  uint64_t run0 = UINT64_MAX, runn = 0;
  for (uint64_t l = first; l <= last; l++)
    {
      ppa_t p = map_get (f, o, (uint32_t) l);
      if (p == PPA_NONE)
        continue;
      uint64_t page = p / g->spp;
      if (run0 != UINT64_MAX && page >= run0 && page <= run0 + runn)
        {
          if (page == run0 + runn)
            runn++;
          continue;
        }
      if (run0 != UINT64_MAX)
        f->nand.be->ops->prefetch (f->nand.be, run0, runn);
      run0 = page;
      runn = 1;
    }
  if (run0 != UINT64_MAX)
    f->nand.be->ops->prefetch (f->nand.be, run0, runn);
}

/* How read_impl times and moves a read (the drive's own read-ahead). */
enum read_mode
{
  RD_NORMAL,                  /* timed, data moved, sleeps when paced */
  RD_TIMING_ONLY,             /* NAND clocks charged, nothing moved */
  RD_UNTIMED,                 /* data moved, clocks charged before */
};

/* *deadline NULL: sleep to the paced completion before returning;
 * otherwise it gets that deadline (0: none) and nothing sleeps. */
/* In-place reads (ftl_read_pinned): where each sector's data is in the
 * mapped image (NULL: copied into the destination already). */
#define PIN_MAX_SECTORS 128
struct pin_req
{
  size_t unit;
  const uint8_t **ptrs;
  struct ftl_pin *pin;
  const uint8_t *src[PIN_MAX_SECTORS];
  uint64_t page[PIN_MAX_SECTORS];
  uint64_t seq[PIN_MAX_SECTORS];      /* the page's program sequence */
  uint8_t slot[PIN_MAX_SECTORS];      /* the sector's place in the page */
  /* pages whose data CRC is checked after the lock is dropped; at most
   * max_check, so that their blocks fit the pin beside the units' */
  struct ftl_page_check check[FTL_PIN_MAX];
  uint32_t ncheck, max_check;
  uint32_t unit_pins;         /* pin entries of the in-place units */
  /* the view of the last deferred page, for its other sectors */
  uint64_t last_deferred;
  const struct ftl_page_view *last_view;
};

/* After the sectors of an in-place read were checked: a unit whose sectors
 * are contiguous in one NAND page stays there (pinned), the others are
 * copied to the destination now (the mapping cannot change under the
 * lock). */
static void
pin_finish (struct ftl *f, struct pin_req *pr, uint8_t *dst, uint64_t first, uint64_t last)
{
  const uint32_t spu = (uint32_t) (pr->unit >> FTL_SECTOR_SHIFT);
  const uint64_t nsect = last - first + 1;
  pr->pin->n = 0;
  for (uint64_t s0 = 0, k = 0; s0 < nsect; s0 += spu, k++)
    {
      bool in_place = true;
      for (uint32_t i = 0; i < spu && in_place; i++)
        in_place = pr->src[s0 + i] && pr->page[s0 + i] == pr->page[s0]
          && pr->src[s0 + i] == pr->src[s0] + (size_t) i * FTL_SECTOR;
      if (in_place)
        {
          uint32_t b = (uint32_t) (pr->page[s0] / f->nand.geo.pages_per_block);
          f->pins[b]++;
          pr->pin->block[pr->pin->n++] = b;
          pr->ptrs[k] = pr->src[s0];
          pr->pin->unit_id[k] = pr->seq[s0] << 8 | pr->slot[s0];
          f->pinned_units++;
          continue;
        }
      for (uint32_t i = 0; i < spu; i++)
        if (pr->src[s0 + i])
          memcpy (dst + (s0 + i) * FTL_SECTOR, pr->src[s0 + i], FTL_SECTOR);
      pr->ptrs[k] = dst + k * pr->unit;
      pr->pin->unit_id[k] = 0;
      f->copied_units++;
    }
  /* the pages still to be checked stay as they are until then: a page
   * whose units were copied pins its block (after the units' pins, which
   * the check releases; most pages are held by their in-place units) */
  pr->unit_pins = pr->pin->n;
  for (uint32_t i = 0; i < pr->ncheck; i++)
    {
      uint32_t b = (uint32_t) (pr->check[i].page / f->nand.geo.pages_per_block);
      bool held = false;
      for (uint32_t j = 0; j < pr->pin->n && !held; j++)
        held = pr->pin->block[j] == b;
      if (held)
        continue;
      f->pins[b]++;
      pr->pin->block[pr->pin->n++] = b;
    }
}

static int
read_impl (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid, uint64_t off,
           void *buf, size_t len, size_t *nread, enum read_mode mode,
           uint64_t *deadline, struct pin_req *pr, ftl_error *err)
{
  if (!buf && len && mode != RD_TIMING_ONLY)
    return ftl_fail (err, -EINVAL, "read of %zu bytes without a buffer", len);
  if (deadline)
    *deadline = 0;
#define READ_RET(r, dl) (deadline ? (*deadline = (dl), UNLOCK (f, (r))) \
                         : unlock_ret (f, (r), (dl)))
  LOCK (f);
  int r = 0;
  if (nread)
    *nread = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  op_begin (f, prio);
  if (off >= o->size || len == 0)
    return READ_RET (0, op_end (f, NULL));
  uint64_t n = o->size - off < len ? o->size - off : len;
  if (pr && n != len)
    return READ_RET (ftl_fail (err, -ERANGE, "in-place read of %zu bytes at %llu "
                               "past the object's end (%llu bytes)", len,
                               (unsigned long long) off,
                               (unsigned long long) o->size), op_end (f, NULL));
  uint8_t *dst = buf;
  const struct nand_geometry *g = &f->nand.geo;
  uint64_t first = off >> FTL_SECTOR_SHIFT, last = (off + n - 1) >> FTL_SECTOR_SHIFT;
  uint64_t last_page = UINT64_MAX, last_done = 0;
  uint64_t nand_reads = 0;
  if (f->pace.paced && f->nand.be->ops->prefetch && mode != RD_UNTIMED)
    prefetch_pages (f, o, first, last);
  for (uint64_t l = first; l <= last; l++)
    {
      uint64_t soff = l << FTL_SECTOR_SHIFT;
      uint64_t a = off > soff ? off : soff;
      uint64_t b = off + n < soff + FTL_SECTOR ? off + n : soff + FTL_SECTOR;
      /* the data read can start once the mapping entry is known */
      uint64_t t_map = f->now;
      if (f->cfg.mapping_mode != FTL_MAP_RAM)
        t_map = ftl_dftl_lookup (f, o, (uint32_t) l, false);
      ppa_t p = map_get (f, o, (uint32_t) l);
      if (p == PPA_NONE)
        {
          if (mode != RD_TIMING_ONLY)
            memset (dst + (a - off), 0, b - a);
          continue;
        }
      const uint8_t *bd;
      struct oob_entry *be;
      if (mode == RD_TIMING_ONLY)
        {
          if (ftl_sector_in_buffer (f, p, &bd, &be))
            continue;
        }
      else if (ftl_sector_in_buffer (f, p, &bd, &be))
        {
          if (be && be->kind == SECT_CORRUPT)
            {
              r = ftl_sector_fail (f, NULL, p / g->spp, p % g->spp, pid, oid,
                                   l, err);
              return READ_RET (r, op_end (f, NULL));
            }
          if (bd)
            memcpy (dst + (a - off), bd + (a - soff), b - a);
          else
            memset (dst + (a - off), 0, b - a);
          continue;
        }
      uint64_t page = p / g->spp;
      if (mode == RD_UNTIMED)
        ;
      else if (page != last_page)
        {
          last_done = nand_time_read (&f->nand, page, 1, t_map);
          nand_reads++;
          last_page = page;
        }
      else   /* the page is read once; each sector of it crosses the channel */
        last_done = nand_time_read_more (&f->nand, page, 1, last_done);
      if (last_done > f->op_done)
        f->op_done = last_done;
      if (mode == RD_TIMING_ONLY)
        continue;
      if (f->nand.be->ops->stores_data)
        {
          /* every sector comes from a page whose data CRC was checked
           * (ftl_integrity.c): a corrupt page is an error, never data */
          const struct ftl_page_view *v;
          uint32_t slot = p % g->spp;
          bool deferred = false;
          if (pr && pr->last_deferred == page)
            {
              v = pr->last_view;
              r = 0;
            }
          else if (pr && pr->ncheck < pr->max_check)
            {
              r = ftl_page_view_deferred (f, page, &v, &pr->check[pr->ncheck], &deferred);
              pr->last_deferred = deferred ? page : UINT64_MAX;
              pr->last_view = v;
            }
          else
            {
              r = ftl_page_view (f, page, &v);
              if (pr)
                pr->last_deferred = UINT64_MAX;
            }
          if (r < 0)
            {
              ftl_fail (err, r, "NAND read of page %llu failed: %s",
                        (unsigned long long) page, strerror (-r));
              return READ_RET (r, op_end (f, NULL));
            }
          if (!ftl_page_sector_good (v, slot))
            {
              r = ftl_sector_fail (f, v, page, slot, pid, oid, l, err);
              return READ_RET (r, op_end (f, NULL));
            }
          if (deferred)
            {
              pr->check[pr->ncheck].slot = slot;
              pr->check[pr->ncheck].lpn = l;
              pr->ncheck++;
            }
          if (pr && v->data != v->buf)
            {
              /* in the mapped image: pin_finish decides */
              pr->src[l - first] = v->data + (size_t) slot * FTL_SECTOR;
              pr->page[l - first] = page;
              pr->seq[l - first] = v->h.seq;
              pr->slot[l - first] = (uint8_t) slot;
            }
          else
            memcpy (dst + (a - off), v->data + (size_t) slot * FTL_SECTOR
                    + (a - soff), b - a);
        }
      else
        memset (dst + (a - off), 0, b - a);
    }
  if (mode == RD_TIMING_ONLY)
    return READ_RET (0, op_end (f, NULL));
  if (pr)
    pin_finish (f, pr, dst, first, last);
  f->st.host_reads += last - first + 1;
  f->st.host_read_bytes += n;
  f->st.host_read_ops++;
  uint64_t per = nand_reads + f->op_nand_reads;
  f->st.nand_reads_for_host += per;
  uint64_t per_sector = (per + (last - first)) / (last - first + 1);
  if (per_sector > f->st.max_nand_reads_per_host_read)
    f->st.max_nand_reads_per_host_read = per_sector;
  if (nread)
    *nread = (size_t) n;
  return READ_RET (0, op_end (f, &f->read_lat));
#undef READ_RET
}

int
ftl_read (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t off, void *buf,
          size_t len, size_t *nread, ftl_error *err)
{
  return read_impl (f, FTL_PRIORITY_DEFAULT, pid, oid, off, buf, len, nread,
                    RD_NORMAL, NULL, NULL, err);
}

int
ftl_read_prio (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid,
               uint64_t off, void *buf, size_t len, size_t *nread,
               ftl_error *err)
{
  return read_impl (f, prio, pid, oid, off, buf, len, nread, RD_NORMAL, NULL,
                    NULL, err);
}

int
ftl_read_pinned (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid, uint64_t off, size_t unit,
                 uint32_t count, void *scratch, const uint8_t **ptrs,
                 struct ftl_pin *pin, ftl_error *err)
{
  pin->n = 0;
  if (!unit || (unit & (FTL_SECTOR - 1)) || (off & (FTL_SECTOR - 1)) || count == 0
      || count > FTL_PIN_MAX || count * (unit >> FTL_SECTOR_SHIFT) > PIN_MAX_SECTORS)
    return ftl_fail (err, -EINVAL, "in-place read of %u units of %zu bytes at %llu: "
                     "not sector-aligned or too long", count, unit,
                     (unsigned long long) off);
  struct pin_req pr = { .unit = unit, .ptrs = ptrs, .pin = pin,
                        .max_check = FTL_PIN_MAX - count,
                        .last_deferred = UINT64_MAX };
  size_t got = 0;
  int r = read_impl (f, prio, pid, oid, off, scratch, unit * count, &got, RD_NORMAL,
                     NULL, &pr, err);
  if (r < 0)
    return r;
  /* the data CRCs, outside the lock: nothing is handed out unchecked */
  for (uint32_t i = 0; i < pr.ncheck; i++)
    if (!ftl_page_check_data (f, &pr.check[i]))
      {
        const struct ftl_page_check *c = &pr.check[i];
        struct ftl_page_view bad = { .oob_ok = true, .crc_ok = false };
        r = ftl_sector_fail (f, &bad, c->page, c->slot, pid, oid, c->lpn, err);
        ftl_unpin (f, pin);
        return r;
      }
  if (pin->n > pr.unit_pins)
    {
      /* the copied pages' pins: their data is in scratch now */
      struct ftl_pin copied = { .n = pin->n - pr.unit_pins };
      memcpy (copied.block, pin->block + pr.unit_pins, copied.n * sizeof copied.block[0]);
      pin->n = pr.unit_pins;
      ftl_unpin (f, &copied);
    }
  return 0;
}

void
ftl_unpin (ftl_t *f, struct ftl_pin *pin)
{
  if (!pin->n)
    return;
  LOCK (f);
  for (uint32_t i = 0; i < pin->n; i++)
    f->pins[pin->block[i]]--;
  pin->n = 0;
  pthread_mutex_unlock (&f->lock);
}

void
ftl_pinned_stats (ftl_t *f, uint64_t *in_place, uint64_t *copied)
{
  LOCK (f);
  *in_place = f->pinned_units;
  *copied = f->copied_units;
  pthread_mutex_unlock (&f->lock);
}

int
ftl_read_deadline (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid,
                   uint64_t off, void *buf, size_t len, size_t *nread,
                   uint64_t *ticket, ftl_error *err)
{
  return read_impl (f, prio, pid, oid, off, buf, len, nread, RD_NORMAL, ticket,
                    NULL, err);
}

void
ftl_pace_wait (ftl_t *f, uint64_t ticket)
{
  ftl_pace_wait_ticket (f, ticket);
}

int
ftl_read_ahead (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid,
                uint64_t off, size_t len, uint64_t *ticket, ftl_error *err)
{
  return read_impl (f, prio, pid, oid, off, NULL, len, NULL, RD_TIMING_ONLY,
                    ticket, NULL, err);
}

int
ftl_read_reserved (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t off,
                   void *buf, size_t len, size_t *nread, uint64_t ticket,
                   ftl_error *err)
{
  uint64_t own;
  int r = read_impl (f, FTL_PRIORITY_DEFAULT, pid, oid, off, buf, len, nread,
                     RD_UNTIMED, &own, NULL, err);
  /* the reservation may have been pushed back since it was made */
  ftl_pace_wait_ticket (f, ticket);
  ftl_pace_wait_ticket (f, own);
  return r;
}

int
ftl_write (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t off,
           const void *buf, size_t len, ftl_error *err)
{
  return ftl_write_prio (f, FTL_PRIORITY_DEFAULT, pid, oid, off, buf, len, err);
}

int
ftl_write_prio (ftl_t *f, unsigned prio, uint64_t pid, uint64_t oid,
                uint64_t off, const void *buf, size_t len, ftl_error *err)
{
  if (!buf && len)
    return ftl_fail (err, -EINVAL, "write of %zu bytes without a buffer", len);
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  op_begin (f, prio);
  r = ftl_op_write (f, o, off, buf, len, err);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  return unlock_ret (f, r, op_end (f, &f->write_lat));
}

int
ftl_punch (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t off, uint64_t len,
           ftl_error *err)
{
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  op_begin (f, FTL_PRIORITY_DEFAULT);
  r = ftl_op_punch (f, o, off, len, true, err);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  return unlock_ret (f, r, op_end (f, NULL));
}

int
ftl_set_length (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t len,
                ftl_error *err)
{
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  if ((len >> FTL_SECTOR_SHIFT) >= 0xfffffff0ull)
    return UNLOCK (f, ftl_fail (err, -EFBIG, "length %llu beyond the maximum "
                                "object size", (unsigned long long) len));
  op_begin (f, FTL_PRIORITY_DEFAULT);
  r = ftl_op_set_length (f, o, len, true, err);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  return unlock_ret (f, r, op_end (f, NULL));
}

/* ---- attributes ---- */
int
ftl_get_attr (ftl_t *f, uint64_t pid, uint64_t oid, uint32_t page,
              uint32_t number, void *buf, size_t cap, size_t *len,
              ftl_error *err)
{
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  struct ftl_attr *a = ftl_attr_find (o, page, number);
  if (!a)
    return UNLOCK (f, ftl_fail (err, -ENOENT, "object %llu:%llu has no "
                                "attribute %u.%u", (unsigned long long) pid,
                                (unsigned long long) oid, page, number));
  if (len)
    *len = a->len;
  if (buf && cap)
    memcpy (buf, a->val, a->len < cap ? a->len : cap);
  return UNLOCK (f, 0);
}

int
ftl_set_attr (ftl_t *f, uint64_t pid, uint64_t oid, uint32_t page,
              uint32_t number, const void *buf, size_t len, ftl_error *err)
{
  if (len > FTL_ATTR_MAX_LEN)
    return ftl_fail (err, -EINVAL, "attribute value of %zu bytes exceeds %u",
                     len, FTL_ATTR_MAX_LEN);
  LOCK (f);
  int r = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  r = ftl_op_set_attr (f, o, page, number, buf, (uint32_t) len, true, err);
  if (r == 0)
    r = ftl_ckpt_maybe (f);
  return UNLOCK (f, r);
}

int
ftl_list_attrs (ftl_t *f, uint64_t pid, uint64_t oid,
                struct ftl_attr_id after, struct ftl_attr_id *ids, size_t cap,
                size_t *n, ftl_error *err)
{
  LOCK (f);
  int r = 0;
  *n = 0;
  struct ftl_object *o = find_obj (f, pid, oid, err, &r);
  if (!o)
    return UNLOCK (f, r);
  uint64_t akey = ((uint64_t) after.page << 32) | after.number;
  size_t k = 0;
  for (uint32_t i = 0; i < o->nattrs && k < cap; i++)
    {
      uint64_t key = ((uint64_t) o->attrs[i].page << 32) | o->attrs[i].number;
      if (key > akey)
        {
          ids[k].page = o->attrs[i].page;
          ids[k].number = o->attrs[i].number;
          k++;
        }
    }
  *n = k;
  return UNLOCK (f, 0);
}

/* ---- info / idle ---- */
int
ftl_get_info (ftl_t *f, struct ftl_device_info *info, ftl_error *err)
{
  LOCK (f);
  memset (info, 0, sizeof *info);
  const struct nand_geometry *g = &f->nand.geo;
  info->capacity_bytes = f->capacity_sectors * FTL_SECTOR;
  info->used_bytes = f->used_sectors * FTL_SECTOR;
  info->free_bytes = info->capacity_bytes - info->used_bytes;
  info->page_size = g->page_size;
  info->channels = g->channels;
  info->ways = g->ways;
  info->planes = g->planes;
  info->blocks_per_plane = g->blocks_per_plane;
  info->pages_per_block = g->pages_per_block;
  info->over_provisioning = f->cfg.over_provisioning;
  info->mapping_mode = f->cfg.mapping_mode;
  info->alloc_policy = f->cfg.alloc_policy;
  info->gc_policy = f->cfg.gc_policy;
  snprintf (info->profile, sizeof info->profile, "%s", f->pace.name);
  snprintf (info->format_profile, sizeof info->format_profile, "%s",
            f->profile);
  info->paced = f->pace.paced;
  info->time_channels = f->pace.time_channels;
  info->time_dies = f->pace.time_dies;
  info->channel_mbps = f->pace.channel_mbps;
  info->link_mbps = f->pace.link_mbps;
  info->read_ns = f->pace.tm.read_ns;
  info->model_scan_mbps = f->pace.scan_mbps;
  info->model_read_mbps = f->pace.read_mbps;
  snprintf (info->backend, sizeof info->backend, "%s", f->nand.be->ops->name);
  info->objects = f->nobjs;
  info->partitions = f->nparts;
  return UNLOCK (f, 0);
}

uint64_t
ftl_host_clock (ftl_t *f)
{
  LOCK (f);
  uint64_t t = f->now;
  pthread_mutex_unlock (&f->lock);
  return t;
}

void
ftl_set_host_clock (ftl_t *f, uint64_t t_ns)
{
  LOCK (f);
  if (!f->in_batch)
    f->now = t_ns;
  pthread_mutex_unlock (&f->lock);
}

int
ftl_idle (ftl_t *f, uint64_t budget_ns, ftl_error *err)
{
  LOCK (f);
  int r = 0;
  if (!f->in_batch)
    {
      ftl_pace_op_begin (f);
      uint64_t t0 = f->now;
      if (f->free_blocks < f->gc_high)
        {
          r = ftl_gc_collect (f, UINT32_MAX, f->gc_high, budget_ns);
          if (r == -ENOSPC)
            r = 0;
        }
      uint64_t used = nand_max_clock (&f->nand) > t0
        ? nand_max_clock (&f->nand) - t0 : 0;
      if (r == 0 && used < budget_ns)
        r = ftl_wear_static_check (f, budget_ns - used);
      if (r == 0)
        r = ftl_ckpt_maybe (f);
      if (r < 0)
        ftl_fail (err, r, "background GC failed: %s", strerror (-r));
      /* the device was idle for the budget: host time moves on */
      f->now = t0 + budget_ns;
    }
  return UNLOCK (f, r);
}
