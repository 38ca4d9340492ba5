/* device_scan.c - SCAN: an offloaded scan of heap pages stored in
 * objects.  The request is checked and translated into the runtime's
 * struct ossd_scan_request, kernels are loaded and verified (or taken
 * from the deployed ones), and the scan runs on the slot's stream thread,
 * streaming one Response{scan: ScanChunk} per result chunk; the last one
 * has last = true.  A new request on the slot (or Cancel) stops it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "ossd_jit.h"
#include "ossd_rt.h"
#include "ossd_scan.h"

#define MAX_SCAN_BLOCK_RANGES 65536

struct scan_kernel
{
  struct ossd_prog *owned;            /* loaded from the request */
  struct device_kernel *deployed;     /* or a reference to a deployed one */
  const struct ossd_prog *prog;
  struct ossd_jit_kernel *jit;        /* compiled, when run by the JIT */
};

#define SCAN_RA_SLOTS 8

struct scan_job
{
  ossd_device_t *dev;
  struct ossd_slot *slot;
  uint64_t seq;
  Ossd__Request *req;                 /* owned copy of the request */
  struct ossd_scan_request sr;
  struct ossd_scan_target *targets;
  struct ossd_block_range *ranges;
  uint64_t *target_oid, *target_pid;
  struct ossd_scan_attr *attrs;
  uint16_t *bind, *proj;
  struct ossd_scan_outcol *outputs;
  struct ossd_scan_agg *aggs;
  struct ossd_scan_const *consts;
  struct ossd_join_filter *jfs;       /* prepared join filters */
  uint32_t njfs;
  struct scan_kernel filter, map;
  bool use_jit;
  uint8_t priority;                   /* the lowest of its targets' (QoS) */
  const char *mode_name;              /* as run: "jit" or "interpreter" */
  uint64_t started_ns;
  char err[512];
  /* paced read-ahead (paced_read_blocks) */
  pthread_mutex_t ra_lock;
  struct scan_ra
  {
    uint32_t target, block, count;
    uint64_t ticket;
    bool valid;
  } ra[SCAN_RA_SLOTS];
  uint32_t ra_next;
  uint32_t *ra_front;                 /* per target: blocks read or reserved */
  uint8_t **share_tids;               /* per striped target: its share of the
                                       * tuple offsets (share_tuple_offsets) */
  size_t nshare_tids;
};

static void
scan_kernel_release (struct scan_kernel *k)
{
  if (k->jit)
    ossd_jit_release (k->jit);
  ossd_prog_free (k->owned);
  device_kernel_put (k->deployed);
  memset (k, 0, sizeof *k);
}

static void
scan_job_free (struct scan_job *j)
{
  if (!j)
    return;
  scan_kernel_release (&j->filter);
  scan_kernel_release (&j->map);
  if (j->req)
    ossd__request__free_unpacked (j->req, NULL);
  free (j->ra_front);
  pthread_mutex_destroy (&j->ra_lock);
  for (uint32_t i = 0; i < j->njfs; i++)
    ossd_join_filter_release (&j->jfs[i]);
  free (j->jfs);
  free (j->consts);
  free (j->targets);
  free (j->ranges);
  for (size_t t = 0; t < j->nshare_tids; t++)
    free (j->share_tids[t]);
  free (j->share_tids);
  free (j->target_oid);
  free (j->target_pid);
  free (j->attrs);
  free (j->bind);
  free (j->proj);
  free (j->outputs);
  free (j->aggs);
  free (j);
}

/* A kernel calling helper 23 on a drive told to hide
 * OSSD_FEATURE_TEXT_SUBSTR (opts.hide_features): refused as the verifier
 * of a drive without the helper refuses it.  -1 with `log` set, else 0. */
static int
scan_kernel_hidden_helper (const ossd_device_t *dev, const struct ossd_prog *p,
                           char *log, size_t loglen)
{
  if (!(dev->opts.hide_features & OSSD_FEATURE_TEXT_SUBSTR))
    return 0;
  for (uint32_t i = 0; i < p->insn_count; i++)
    if (p->insns[i].code == (OSSD_BPF_JMP | OSSD_BPF_CALL)
        && p->insns[i].imm == OSSD_H_TEXT_SUBSTR_CMP)
      {
        snprintf (log, loglen, "insn %u: unknown helper %d", i, OSSD_H_TEXT_SUBSTR_CMP);
        return -1;
      }
  return 0;
}

static int
scan_kernel_prepare (struct scan_job *j, struct scan_kernel *k,
                     const ProtobufCBinaryData *image, const char *name,
                     const char *what, struct ossd_scan_kernel *out)
{
  char log[2048];

  if (name && *name)
    {
      k->deployed = device_kernel_get (j->dev, name);
      if (!k->deployed)
        {
          snprintf (j->err, sizeof j->err, "SCAN: no kernel named '%s' is deployed on the drive", name);
          return -ENOENT;
        }
      k->prog = device_kernel_prog (k->deployed);
    }
  else if (image && image->len)
    {
      int r = ossd_prog_load (image->data, image->len, &k->owned, log, sizeof log);
      if (r == 0)
        r = ossd_prog_verify (k->owned, log, sizeof log);
      if (r == 0)
        r = scan_kernel_hidden_helper (j->dev, k->owned, log, sizeof log);
      if (r < 0)
        {
          snprintf (j->err, sizeof j->err, "SCAN: the %s kernel was rejected: %s", what, log);
          return -EPERM;
        }
      k->prog = k->owned;
    }
  else
    return 0;
  if (j->use_jit)
    {
      int r = ossd_jit_cache_get (j->dev->jit_cache, k->prog, &k->jit, log, sizeof log);
      if (r == 0)
        {
          *out = ossd_jit_scan_kernel (k->jit);
          return 0;
        }
      /* The interpreter gives the same answers: run it, and say so. */
      device_event_post (j->dev, OSSD__EVENT_KIND__EV_KERNEL_LOG, j->slot->index,
                         "JIT failed for the %s kernel, using the interpreter: %.150s",
                         what, log);
      j->mode_name = "interpreter";
    }
  *out = ossd_interp_scan_kernel (k->prog);
  return 0;
}

/* ---- callbacks ---- */
static int
scan_read_block (void *arg, uint32_t target, uint32_t block, void *page,
                 char *err, size_t errlen)
{
  struct scan_job *j = arg;
  ftl_error fe = { "" };
  size_t got = 0;
  int r;

  if (atomic_load (&j->slot->cancel))
    return -ECANCELED;
  device_qos_scan_begin (j->dev, j->priority);
  r = ftl_read_prio (j->dev->ftl, device_qos_class (j->dev, j->priority),
                     j->target_pid[target], j->target_oid[target],
                     (uint64_t) block * OSSD_PG_BLCKSZ, page, OSSD_PG_BLCKSZ, &got, &fe);
  device_qos_end (j->dev, j->priority);
  if (r == 0 && got != OSSD_PG_BLCKSZ)
    {
      snprintf (err, errlen, "block %u of object %llu lies past its end", block,
                (unsigned long long) j->target_oid[target]);
      return -EINVAL;
    }
  if (r < 0)
    snprintf (err, errlen, "reading block %u of object %llu: %s", block,
              (unsigned long long) j->target_oid[target], fe.msg);
  else
    device_profile_read (j->dev, j->slot->index, j->target_pid[target],
                         j->target_oid[target], (uint64_t) block * OSSD_PG_BLCKSZ,
                         OSSD_PG_BLCKSZ);
  /* the FTL's -EIO is media trouble (a page failing its data CRC): the
   * scan fails with this reason instead of handing the block on */
  return r == -EIO ? -EBADMSG : r;
}

/* Under a paced profile the drive's scan reads ahead, as a drive's own
 * scan would: when a batch has been read, the NAND time of the batch after
 * it is reserved (ftl_read_ahead) so the flash works while the workers
 * scan.  The reservations belong to the job, not to a worker: work items
 * are handed out in block order, so the next batch is often read by
 * another worker.  A batch is reserved only if no worker has read or
 * reserved it yet (the target's front) and it lies in the request's range,
 * so a reservation is rarely wasted (a wasted one only delays later reads;
 * a batch read without one is timed from the moment it is asked for). */
static bool
next_batch_in_range (const struct scan_job *j, uint32_t target, uint32_t block,
                     uint32_t next_end)
{
  const struct ossd_scan_target *t = &j->sr.targets[target];
  for (uint32_t k = 0; k < t->nranges; k++)
    if (block >= t->ranges[k].start
        && block < t->ranges[k].start + t->ranges[k].count)
      return next_end <= t->ranges[k].start + t->ranges[k].count;
  return false;
}

static void
store_reservation (struct scan_job *j, int slot, bool reserve, uint32_t target,
                   uint32_t block, uint32_t count, uint64_t ticket)
{
  if (!reserve)
    return;
  pthread_mutex_lock (&j->ra_lock);
  j->ra[slot] = (struct scan_ra) { target, block, count, ticket, true };
  pthread_mutex_unlock (&j->ra_lock);
}

static int
paced_read_blocks (struct scan_job *j, uint32_t target, uint32_t block,
                   uint32_t count, void *pages, size_t *got, ftl_error *fe)
{
  ftl_t *ftl = j->dev->ftl;
  uint64_t pid = j->target_pid[target], oid = j->target_oid[target];
  unsigned prio = device_qos_class (j->dev, j->priority);
  size_t want = (size_t) count * OSSD_PG_BLCKSZ;
  uint64_t ticket = 0;
  bool hit = false, reserve = false;
  uint32_t next = block + count;
  int slot = -1, r;

  pthread_mutex_lock (&j->ra_lock);
  for (int i = 0; i < SCAN_RA_SLOTS; i++)
    if (j->ra[i].valid && j->ra[i].target == target && j->ra[i].block == block
        && j->ra[i].count == count)
      {
        hit = true;
        ticket = j->ra[i].ticket;
        j->ra[i].valid = false;
        break;
      }
  if (!j->ra_front)
    j->ra_front = calloc (j->sr.ntargets, sizeof *j->ra_front);
  if (j->ra_front)
    {
      if (j->ra_front[target] < next)
        j->ra_front[target] = next;
      /* no read-ahead while higher-priority work goes on: the NAND time
       * it reserves would be ahead of that work's (docs/qos.md) */
      if (next >= j->ra_front[target]
          && next_batch_in_range (j, target, block, next + count)
          && !device_qos_contended (j->dev, j->priority))
        {
          reserve = true;
          slot = (int) (j->ra_next++ % SCAN_RA_SLOTS);
          j->ra[slot].valid = false;
          j->ra_front[target] = next + count;
        }
    }
  pthread_mutex_unlock (&j->ra_lock);

  /* the reservation is made before any sleep, so another worker asking
   * for that batch meanwhile finds it */
  uint64_t next_ticket = 0, own = 0;
  if (hit)
    {
      if (reserve)
        ftl_read_ahead (ftl, prio, pid, oid, (uint64_t) next * OSSD_PG_BLCKSZ, want,
                        &next_ticket, NULL);
      store_reservation (j, slot, reserve, target, next, count, next_ticket);
      r = ftl_read_reserved (ftl, pid, oid, (uint64_t) block * OSSD_PG_BLCKSZ,
                             pages, want, got, ticket, fe);
    }
  else
    {
      r = ftl_read_deadline (ftl, prio, pid, oid, (uint64_t) block * OSSD_PG_BLCKSZ,
                             pages, want, got, &own, fe);
      if (reserve)
        ftl_read_ahead (ftl, prio, pid, oid, (uint64_t) next * OSSD_PG_BLCKSZ, want,
                        &next_ticket, NULL);
      store_reservation (j, slot, reserve, target, next, count, next_ticket);
      ftl_pace_wait (ftl, own);
    }
  return r;
}

/* Many blocks per FTL call: one lock round and one mapping walk for up
 * to OSSD_SCAN_READ_BATCH pages. */
static int
scan_read_blocks (void *arg, uint32_t target, uint32_t block, uint32_t count,
                  void *pages, char *err, size_t errlen)
{
  struct scan_job *j = arg;
  size_t want = (size_t) count * OSSD_PG_BLCKSZ, got = 0;
  ftl_error fe = { "" };
  int r;

  if (atomic_load (&j->slot->cancel))
    return -ECANCELED;
  device_qos_scan_begin (j->dev, j->priority);
  if (ftl_pace_clock (j->dev->ftl))
    r = paced_read_blocks (j, target, block, count, pages, &got, &fe);
  else
    r = ftl_read_prio (j->dev->ftl, device_qos_class (j->dev, j->priority),
                       j->target_pid[target], j->target_oid[target],
                       (uint64_t) block * OSSD_PG_BLCKSZ, pages, want, &got, &fe);
  device_qos_end (j->dev, j->priority);
  if (r == 0 && got != want)
    {
      r = -EINVAL;
      snprintf (fe.msg, sizeof fe.msg, "they lie past the object's end");
    }
  if (r < 0)
    snprintf (err, errlen, "batch read of %u blocks at %u of object %llu failed: %s",
              count, block, (unsigned long long) j->target_oid[target], fe.msg);
  else
    device_profile_read (j->dev, j->slot->index, j->target_pid[target],
                         j->target_oid[target], (uint64_t) block * OSSD_PG_BLCKSZ,
                         want);
  return r;
}

/* The pages in place where the FTL keeps them (ftl_read_pinned: the same
 * reads, timing and data CRC of every NAND page as ftl_read, no copy of a
 * page lying whole in one NAND page of the mapped image); under a paced
 * profile through paced_read_blocks into the scratch pages. */
static int
scan_map_blocks (void *arg, uint32_t target, uint32_t block, uint32_t count, void *scratch,
                 const uint8_t **pages, uint64_t *page_ids, void **token, char *err,
                 size_t errlen)
{
  struct scan_job *j = arg;
  ftl_error fe = { "" };
  int r;

  *token = NULL;
  if (atomic_load (&j->slot->cancel))
    return -ECANCELED;
  if (ftl_pace_clock (j->dev->ftl))
    {
      r = scan_read_blocks (arg, target, block, count, scratch, err, errlen);
      for (uint32_t k = 0; k < count && r == 0; k++)
        {
          pages[k] = (const uint8_t *) scratch + (size_t) k * OSSD_PG_BLCKSZ;
          page_ids[k] = 0;
        }
      return r;
    }
  struct ftl_pin *pin = malloc (sizeof *pin);
  if (!pin)
    {
      snprintf (err, errlen, "in-place read: out of memory");
      return -ENOMEM;
    }
  device_qos_scan_begin (j->dev, j->priority);
  r = ftl_read_pinned (j->dev->ftl, device_qos_class (j->dev, j->priority),
                       j->target_pid[target], j->target_oid[target],
                       (uint64_t) block * OSSD_PG_BLCKSZ, OSSD_PG_BLCKSZ, count, scratch,
                       pages, pin, &fe);
  device_qos_end (j->dev, j->priority);
  if (r < 0)
    {
      free (pin);
      snprintf (err, errlen, "batch read of %u blocks at %u of object %llu failed: %s",
                count, block, (unsigned long long) j->target_oid[target], fe.msg);
      return r;
    }
  memcpy (page_ids, pin->unit_id, count * sizeof *page_ids);
  *token = pin;
  device_profile_read (j->dev, j->slot->index, j->target_pid[target],
                       j->target_oid[target], (uint64_t) block * OSSD_PG_BLCKSZ,
                       (uint64_t) count * OSSD_PG_BLCKSZ);
  return 0;
}

static void
scan_release_blocks (void *arg, void *token)
{
  struct scan_job *j = arg;
  if (token)
    ftl_unpin (j->dev->ftl, token);
  free (token);
}

static int
scan_sink (void *arg, const struct ossd_scan_chunk *c)
{
  struct scan_job *j = arg;
  Ossd__Response resp = OSSD__RESPONSE__INIT;
  Ossd__ScanChunk sc = OSSD__SCAN_CHUNK__INIT;
  uint32_t *hb = NULL;

  if (atomic_load (&j->slot->cancel))
    return -ECANCELED;
  sc.rows.data = (uint8_t *) c->rows;
  sc.rows.len = c->rows_len;
  sc.row_count = c->row_count;
  sc.host_rows.data = (uint8_t *) c->host_rows;
  sc.host_rows.len = c->host_rows_len;
  sc.host_row_count = c->host_row_count;
  if (c->host_block_count)
    {
      hb = malloc (3 * sizeof *hb * c->host_block_count);
      if (!hb)
        return -ENOMEM;
      for (uint32_t i = 0; i < c->host_block_count; i++)
        {
          hb[3 * i] = c->host_blocks[i].target;
          hb[3 * i + 1] = c->host_blocks[i].block;
          hb[3 * i + 2] = c->host_blocks[i].reason;
        }
      sc.n_host_blocks = 3 * (size_t) c->host_block_count;
      sc.host_blocks = hb;
    }
  sc.groups.data = (uint8_t *) c->groups;
  sc.groups.len = c->groups_len;
  sc.group_count = c->group_count;
  sc.last = c->last;
  if (c->last)
    {
      sc.blocks_scanned = c->counters.blocks_scanned;
      sc.blocks_to_host = c->counters.blocks_to_host;
      sc.tuples_seen = c->counters.tuples_seen;
      sc.tuples_visible = c->counters.tuples_visible;
      sc.tuples_matched = c->counters.tuples_matched;
      sc.rows_out = c->counters.rows_out;
      sc.rows_to_host = c->counters.rows_to_host;
      sc.groups_out = c->counters.groups_out;
      sc.bytes_read = c->counters.bytes_read;
      sc.join_filter_dropped = c->counters.join_filter_dropped;
      sc.device_ns = device_now_ns () - j->started_ns;
      atomic_fetch_add (&j->dev->ctr.scan_blocks, c->counters.blocks_scanned);
      atomic_fetch_add (&j->dev->ctr.scan_checksums_known, c->counters.checksums_known);
      atomic_fetch_add (&j->dev->ctr.scan_checksums_verified,
                        c->counters.checksums_verified);
    }
  sc.kernel_mode = (char *) j->mode_name;
  resp.body_case = OSSD__RESPONSE__BODY_SCAN;
  resp.scan = &sc;
  atomic_fetch_add (&j->dev->ctr.scan_bytes_out,
                    c->rows_len + c->host_rows_len + c->groups_len);
  /* the results cross the host link (the pages the scan read did not) */
  ftl_link_transfer (j->dev->ftl, ossd__response__get_packed_size (&resp),
                     ftl_pace_clock (j->dev->ftl));
  device_slot_respond (j->slot, j->seq, &resp, !c->last);
  free (hb);
  return 0;
}

/* A striped target's ranges name the segment's heap blocks: the object
 * ranges of this drive's share (ossd_stripe_local_ranges), into out
 * (NULL: only count them). */
static size_t
striped_ranges (const Ossd__ScanTarget *st, struct ossd_block_range *out)
{
  size_t n = 0;

  for (size_t k = 0; k < st->n_ranges; k++)
    {
      struct ossd_block_range h = { st->ranges[k]->start, st->ranges[k]->count };
      struct ossd_block_range *o = out ? out + n : NULL;
      size_t got = ossd_stripe_local_ranges (st->stripe_unit_blocks,
                                             st->stripe_index,
                                             st->stripe_count,
                                             st->stripe_parity, &h, 1, o,
                                             SIZE_MAX);
      /* a piece adjacent to the previous range's last one merges */
      if (out && n && got && out[n - 1].start + out[n - 1].count == o[0].start)
        {
          out[n - 1].count += o[0].count;
          memmove (o, o + 1, (got - 1) * sizeof *o);
          got--;
        }
      n += got;
    }
  return n;
}

static size_t
striped_range_count (const Ossd__ScanTarget *st)
{
  return st->stripe_count > 1 ? striped_ranges (st, NULL) : st->n_ranges;
}

/* A striped target's tuple offsets follow the segment's heap ranges: the
 * lists of this drive's heap blocks, in heap order -- which is the order
 * of its object ranges (striped_ranges) -- into a buffer of their own.
 * The engine checks the result against those ranges. */
static int
share_tuple_offsets (const Ossd__ScanTarget *st, uint8_t **out, uint32_t *outlen,
                     char *err, size_t errlen)
{
  const uint8_t *in = st->tuple_offsets.data;
  size_t len = st->tuple_offsets.len, pos = 0, o = 0;
  uint8_t *buf = malloc (len ? len : 1);

  if (!buf)
    {
      snprintf (err, errlen, "out of memory");
      return -ENOMEM;
    }
  for (size_t k = 0; k < st->n_ranges; k++)
    for (uint32_t b = 0; b < st->ranges[k]->count; b++)
      {
        uint32_t heap = st->ranges[k]->start + b;
        if (pos + 2 > len || pos + 2 + 2 * (size_t) ossd_rd16 (in + pos) > len)
          {
            free (buf);
            snprintf (err, errlen, "%zu bytes end before heap block %u", len, heap);
            return -EINVAL;
          }
        size_t n = 2 + 2 * (size_t) ossd_rd16 (in + pos);
        if (ossd_stripe_unit_drive (heap / st->stripe_unit_blocks,
                                    st->stripe_count, st->stripe_parity)
            == st->stripe_index)
          {
            memcpy (buf + o, in + pos, n);
            o += n;
          }
        pos += n;
      }
  if (pos != len)
    {
      free (buf);
      snprintf (err, errlen, "%zu bytes for lists of %zu", len, pos);
      return -EINVAL;
    }
  *out = buf;
  *outlen = (uint32_t) o;
  return 0;
}

/* ---- request translation ---- */
static int
scan_translate (struct scan_job *j)
{
  const Ossd__Scan *s = j->req->scan;
  size_t nr = 0;

  if (s->n_targets == 0 || s->n_attrs == 0)
    {
      snprintf (j->err, sizeof j->err, "SCAN: the request names %zu objects and %zu attributes; both are needed",
                s->n_targets, s->n_attrs);
      return -EINVAL;
    }
  /* join filters: outside input like the rest, checked before use */
  if (s->n_join_filters > OSSD_JF_MAX_FILTERS)
    {
      snprintf (j->err, sizeof j->err, "SCAN: %zu join filters (max %u)", s->n_join_filters,
                OSSD_JF_MAX_FILTERS);
      return -EINVAL;
    }
  if (s->n_join_filters)
    {
      j->jfs = calloc (s->n_join_filters, sizeof *j->jfs);
      if (!j->jfs)
        {
          snprintf (j->err, sizeof j->err, "SCAN: out of memory");
          return -ENOMEM;
        }
    }
  for (size_t k = 0; k < s->n_join_filters; k++)
    {
      const Ossd__JoinFilter *jf = s->join_filters[k];
      struct ossd_join_filter *f = &j->jfs[k];
      char why[256];
      int e;

      if (jf->attnum < 1 || jf->attnum > s->n_attrs || (uint32_t) jf->key_kind > OSSD_JF_KEY_BPCHAR
          || (uint32_t) jf->kind > OSSD_JF_BLOOM || jf->bloom.len > OSSD_JF_MAX_BLOOM_BYTES
          || jf->keys.len > OSSD_JF_MAX_KEYS_BYTES)
        {
          snprintf (j->err, sizeof j->err,
                    "SCAN: join filter %zu: attnum %u of %zu, key kind %u, kind %u, %zu Bloom bytes,"
                    " %zu key bytes: out of range", k, jf->attnum, s->n_attrs, jf->key_kind,
                    jf->kind, jf->bloom.len, jf->keys.len);
          return -EINVAL;
        }
      f->attnum = (uint16_t) jf->attnum;
      f->key_kind = (uint8_t) jf->key_kind;
      f->kind = (uint8_t) jf->kind;
      f->hashes = jf->hashes;
      f->bloom = jf->bloom.data;
      f->bloom_bytes = (uint32_t) jf->bloom.len;
      f->keys = jf->keys.data;
      f->keys_len = (uint32_t) jf->keys.len;
      f->key_count = jf->key_count;
      e = ossd_join_filter_prepare (f, why, sizeof why);
      if (e < 0)
        {
          snprintf (j->err, sizeof j->err, "SCAN: join filter %zu: %s", k, why);
          return e;
        }
      j->njfs++;
    }
  for (size_t t = 0; t < s->n_targets; t++)
    {
      if (!s->targets[t]->obj || s->targets[t]->obj->pid == OSSD_SYS_PID)
        {
          snprintf (j->err, sizeof j->err, "SCAN: target %zu has no object in a user partition", t);
          return -EINVAL;
        }
      if (s->targets[t]->stripe_count > 1
          && (s->targets[t]->stripe_unit_blocks == 0
              || s->targets[t]->stripe_index >= s->targets[t]->stripe_count
              || s->targets[t]->stripe_parity > 1
              || (s->targets[t]->stripe_parity && s->targets[t]->stripe_count < 3)))
        {
          snprintf (j->err, sizeof j->err, "SCAN: target %zu: stripe geometry (drive %u of %u, unit %u blocks, parity %u) is impossible",
                    t, s->targets[t]->stripe_index, s->targets[t]->stripe_count,
                    s->targets[t]->stripe_unit_blocks,
                    s->targets[t]->stripe_parity);
          return -EINVAL;
        }
      nr += striped_range_count (s->targets[t]);
    }
  if (nr > MAX_SCAN_BLOCK_RANGES)
    {
      snprintf (j->err, sizeof j->err, "SCAN: %zu block ranges exceed the limit of %d", nr,
                MAX_SCAN_BLOCK_RANGES);
      return -E2BIG;
    }
  j->targets = calloc (s->n_targets, sizeof *j->targets);
  j->target_oid = calloc (s->n_targets, sizeof *j->target_oid);
  j->target_pid = calloc (s->n_targets, sizeof *j->target_pid);
  j->ranges = calloc (nr ? nr : 1, sizeof *j->ranges);
  j->attrs = calloc (s->n_attrs, sizeof *j->attrs);
  j->bind = calloc (s->n_referenced + 1, sizeof *j->bind);
  j->proj = calloc (s->n_projection + 1, sizeof *j->proj);
  j->outputs = calloc (s->n_outputs + 1, sizeof *j->outputs);
  j->aggs = calloc (s->n_aggs + 1, sizeof *j->aggs);
  j->consts = calloc (s->n_filter_args + 1, sizeof *j->consts);
  if (!j->targets || !j->target_oid || !j->target_pid || !j->ranges || !j->attrs
      || !j->bind || !j->proj || !j->outputs || !j->aggs || !j->consts)
    {
      snprintf (j->err, sizeof j->err, "SCAN: out of memory");
      return -ENOMEM;
    }
  nr = 0;
  for (size_t t = 0; t < s->n_targets; t++)
    {
      const Ossd__ScanTarget *st = s->targets[t];
      struct ftl_object_info info;

      if (ftl_stat_object (j->dev->ftl, st->obj->pid, st->obj->oid, &info, NULL) < 0)
        {
          snprintf (j->err, sizeof j->err, "SCAN: target %zu: object (pid %llu, oid %llu) does not exist",
                    t, (unsigned long long) st->obj->pid, (unsigned long long) st->obj->oid);
          return -ENOENT;
        }
      if (t == 0 || info.priority < j->priority)
        j->priority = info.priority;
      j->target_pid[t] = st->obj->pid;
      j->target_oid[t] = st->obj->oid;
      j->targets[t].first_block = st->first_block;
      j->targets[t].ranges = &j->ranges[nr];
      if (st->stripe_count > 1)
        {
          /* heap ranges of the segment: this drive's share of them */
          j->targets[t].stripe_unit_blocks = st->stripe_unit_blocks;
          j->targets[t].stripe_index = st->stripe_index;
          j->targets[t].stripe_count = st->stripe_count;
          j->targets[t].stripe_parity = st->stripe_parity;
          j->targets[t].nranges = (uint32_t) striped_ranges (st, &j->ranges[nr]);
        }
      else
        {
          j->targets[t].nranges = st->n_ranges;
          for (size_t k = 0; k < st->n_ranges; k++)
            {
              j->ranges[nr + k].start = st->ranges[k]->start;
              j->ranges[nr + k].count = st->ranges[k]->count;
            }
        }
      /* checked against the ranges by ossd_scan_validate */
      if (st->tuple_offsets.len && st->stripe_count > 1)
        {
          char why[160];
          int e;
          if (!j->share_tids)
            {
              if (!(j->share_tids = calloc (s->n_targets, sizeof *j->share_tids)))
                {
                  snprintf (j->err, sizeof j->err, "SCAN: out of memory");
                  return -ENOMEM;
                }
              j->nshare_tids = s->n_targets;
            }
          e = share_tuple_offsets (st, &j->share_tids[t], &j->targets[t].tuple_offsets_len,
                                   why, sizeof why);
          if (e < 0)
            {
              snprintf (j->err, sizeof j->err, "SCAN: target %zu: tuple offsets: %s", t, why);
              return e;
            }
          j->targets[t].tuple_offsets = j->share_tids[t];
        }
      else if (st->tuple_offsets.len)
        {
          j->targets[t].tuple_offsets = st->tuple_offsets.data;
          j->targets[t].tuple_offsets_len = (uint32_t) st->tuple_offsets.len;
        }
      for (uint32_t k = 0; k < j->targets[t].nranges; k++, nr++)
        {
          uint64_t end = (uint64_t) j->ranges[nr].start + j->ranges[nr].count;
          if (end * OSSD_PG_BLCKSZ > info.size)
            {
              snprintf (j->err, sizeof j->err, "SCAN: target %zu range [%u, +%u) of the object ends past the object's %llu blocks",
                        t, j->ranges[nr].start, j->ranges[nr].count,
                        (unsigned long long) (info.size / OSSD_PG_BLCKSZ));
              return -EINVAL;
            }
        }
    }
  for (size_t a = 0; a < s->n_attrs; a++)
    {
      const Ossd__ScanAttr *sa = s->attrs[a];
      j->attrs[a].len = (int16_t) sa->len;
      j->attrs[a].align = (uint8_t) sa->align;
      j->attrs[a].byval = sa->byval;
      j->attrs[a].type_oid = sa->type_oid;
      j->attrs[a].typmod = sa->typmod;
      j->attrs[a].dropped = sa->dropped;
      j->attrs[a].has_missing = sa->has_missing;
      j->attrs[a].missing_null = sa->missing_null;
      j->attrs[a].missing = sa->missing.data;
      j->attrs[a].missing_len = (uint32_t) sa->missing.len;
    }
  for (size_t i = 0; i < s->n_referenced; i++)
    j->bind[i] = (uint16_t) s->referenced[i];
  for (size_t i = 0; i < s->n_projection; i++)
    j->proj[i] = (uint16_t) s->projection[i];
  for (size_t i = 0; i < s->n_outputs; i++)
    {
      j->outputs[i].type_oid = s->outputs[i]->type_oid;
      j->outputs[i].len = (int16_t) s->outputs[i]->len;
      j->outputs[i].byval = s->outputs[i]->byval;
      j->outputs[i].align = (uint8_t) s->outputs[i]->align;
      j->outputs[i].typmod = s->outputs[i]->typmod;
    }
  for (size_t i = 0; i < s->n_aggs; i++)
    {
      j->aggs[i].kind = (uint8_t) s->aggs[i]->kind;
      j->aggs[i].input = s->aggs[i]->input;
    }
  /* constant kernel arguments: referenced[i] == 0 takes the next one */
  if (s->n_const_types != s->n_filter_args
      || (s->n_const_nulls && s->n_const_nulls != s->n_filter_args))
    {
      snprintf (j->err, sizeof j->err, "SCAN: %zu constant arguments with %zu types and %zu null flags",
                s->n_filter_args, s->n_const_types, s->n_const_nulls);
      return -EINVAL;
    }
  for (size_t k = 0; k < s->n_filter_args; k++)
    {
      j->consts[k].type_oid = s->const_types[k];
      j->consts[k].isnull = s->n_const_nulls && s->const_nulls[k];
      j->consts[k].img = s->filter_args[k].data;
      j->consts[k].len = (uint32_t) s->filter_args[k].len;
    }

  struct ossd_scan_request *r = &j->sr;
  r->njoin_filters = j->njfs;
  r->join_filters = j->jfs;
  r->ntargets = (uint32_t) s->n_targets;
  r->targets = j->targets;
  r->natts = (uint32_t) s->n_attrs;
  r->attrs = j->attrs;
  r->snapshot_xmin = s->snapshot_xmin;
  r->data_checksums = s->data_checksums;
  r->checksum_cache = j->dev->checksum_cache;
  r->nbind = (uint32_t) s->n_referenced;
  r->bind = j->bind;
  r->nconst = (uint32_t) s->n_filter_args;
  r->consts = j->consts;
  r->nout = (uint32_t) s->n_outputs;
  r->outputs = j->outputs;
  r->nproj = (uint32_t) s->n_projection;
  r->proj = j->proj;
  r->naggs = (uint32_t) s->n_aggs;
  r->aggs = j->aggs;
  r->ngroup_by = (uint32_t) s->n_group_by;
  r->group_by = s->group_by;
  r->limit = s->limit;
  r->max_groups = s->max_groups;
  r->workers = s->workers ? s->workers : j->dev->opts.scan_workers;
  /* below the default priority the workers also give way on the CPUs
   * (nice 4 per level; this thread is the scan's own) */
  if (!j->dev->opts.qos_off && j->priority < FTL_PRIORITY_DEFAULT)
    r->worker_nice = 4 * (int32_t) (FTL_PRIORITY_DEFAULT - j->priority);
  if (r->workers > OSSD_SCAN_MAX_WORKERS)
    r->workers = OSSD_SCAN_MAX_WORKERS;
  r->read_block = scan_read_block;
  r->read_blocks = scan_read_blocks;
  r->map_blocks = scan_map_blocks;
  r->release_blocks = scan_release_blocks;
  r->read_arg = j;
  r->sink = scan_sink;
  r->sink_arg = j;

  j->use_jit = s->mode != OSSD__KERNEL_MODE__KERNEL_INTERPRETER;
  j->mode_name = j->use_jit ? "jit" : "interpreter";
  int e = scan_kernel_prepare (j, &j->filter,
                               s->filter_case == OSSD__SCAN__FILTER_FILTER_PROGRAM ? &s->filter_program : NULL,
                               s->filter_case == OSSD__SCAN__FILTER_FILTER_KERNEL ? s->filter_kernel : NULL,
                               "filter", &r->filter);
  if (e == 0)
    e = scan_kernel_prepare (j, &j->map, &s->map_program, NULL, "map", &r->map);
  if (e < 0)
    return e;
  if (ossd_scan_validate (r, j->err, sizeof j->err) < 0)
    return -EINVAL;
  return 0;
}

static void
scan_thread (void *arg)
{
  struct scan_job *j = arg;
  struct ossd_scan_counters totals;
  char err[512];
  int r;

  pthread_rwlock_rdlock (&j->dev->ftl_lock);
  r = ossd_scan_run (&j->sr, &totals, err, sizeof err);
  pthread_rwlock_unlock (&j->dev->ftl_lock);
  if (r < 0 && r != -ECANCELED && !atomic_load (&j->slot->cancel))
    {
      char reason[600];
      snprintf (reason, sizeof reason, "SCAN failed: %s", err);
      device_slot_respond_error (j->slot, j->seq, device_status_from_errno (r) == OSSD__STATUS__ERR_IO
                                 ? OSSD__STATUS__ERR_KERNEL : device_status_from_errno (r),
                                 reason);
    }
  scan_job_free (j);
}

void
device_scan_start (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                   const Ossd__Request *req)
{
  struct scan_job *j = calloc (1, sizeof *j);
  if (j)
    pthread_mutex_init (&j->ra_lock, NULL);
  size_t len;
  uint8_t *buf;
  int e;

  if (!j)
    return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_IO, "SCAN: out of memory");
  j->dev = dev;
  j->slot = s;
  j->seq = seq;
  j->started_ns = device_now_ns ();
  /* The decoded request belongs to the caller: keep our own copy. */
  len = ossd__request__get_packed_size (req);
  buf = malloc (len ? len : 1);
  if (buf)
    {
      ossd__request__pack (req, buf);
      j->req = ossd__request__unpack (NULL, len, buf);
      free (buf);
    }
  if (!j->req)
    {
      scan_job_free (j);
      return device_slot_respond_error (s, seq, OSSD__STATUS__ERR_IO, "SCAN: out of memory");
    }
  pthread_rwlock_rdlock (&dev->ftl_lock);
  e = scan_translate (j);
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (e < 0)
    {
      Ossd__Status st = e == -EPERM ? OSSD__STATUS__ERR_VERIFIER : device_status_from_errno (e);
      device_slot_respond_error (s, seq, st, j->err);
      scan_job_free (j);
      return;
    }
  atomic_fetch_add (&dev->ctr.scans, 1);
  e = device_slot_run_stream (s, scan_thread, j);
  if (e != 0)
    {
      device_slot_respond_error (s, seq, OSSD__STATUS__ERR_IO, "SCAN: cannot start a scan thread");
      scan_job_free (j);
    }
}
