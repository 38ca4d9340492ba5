/* raid_engine_fusion.c - FusionRAID's request path (references/002):
 * volumes mapped block by block (the FBMT: volume unit -> fusion block)
 * onto a MOLS-declustered pool, so every volume's stripes touch every
 * drive; writes out of place, small ones as two replicas in stripe (one
 * where the parity stripe will keep it), whole stripes straight to parity;
 * a background converter that writes the parity of each full stripe and
 * frees its mirror; reads and writes steered away from drives the latency
 * monitor sees in a spike (reads: the other replica, or the unit rebuilt
 * from the rest of its stripe; writes: slots and stripes on other drives).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid_engine_internal.h"

#define NONE32 UINT32_MAX

struct avoid_ctx
{
  struct raid_engine *e;
  uint64_t now;
};

static bool
avoid_spike (void *arg, uint32_t drive)
{
  struct avoid_ctx *a = arg;
  return raid_monitor_in_spike (a->e->mon, drive, a->now);
}

int
fusion_init (struct raid_engine *e, raid_error *err)
{
  uint32_t K1 = e->L.width - 1, K = e->L.width;
  int r = raid_space_create (&e->L, e->c.open_stripes, &e->sp, err);
  if (r < 0)
    return r;
  e->fbmt = calloc (e->c.volumes, sizeof *e->fbmt);
  if (!e->fbmt)
    goto nomem;
  for (uint32_t v = 0; v < e->c.volumes; v++)
    {
      e->fbmt[v] = malloc (e->c.volume_units * sizeof (uint64_t));
      if (!e->fbmt[v])
        goto nomem;
      /* the volume's initial data: whole parity stripes, in order */
      for (uint64_t u = 0; u < e->c.volume_units; u++)
        e->fbmt[v][u] = raid_block (v * e->stripes_per_vol + u / K1,
                                    (uint32_t) (u % K1), K);
      for (uint64_t j = 0; j < e->stripes_per_vol; j++)
        {
          uint64_t first = j * K1, left = e->c.volume_units - first;
          uint32_t n = left < K1 ? (uint32_t) left : K1;
          r = raid_space_preload (e->sp, v * e->stripes_per_vol + j,
                                  (uint32_t) ((1ull << n) - 1), err);
          if (r < 0)
            return r;
        }
    }
  return 0;
nomem:
  if (err)
    snprintf (err->msg, sizeof err->msg, "fusionraid: out of memory for the "
              "block map");
  return -ENOMEM;
}

void
fusion_fini (struct raid_engine *e)
{
  for (uint32_t v = 0; e->fbmt && v < e->c.volumes; v++)
    free (e->fbmt[v]);
  free (e->fbmt);
  e->fbmt = NULL;
  raid_space_destroy (e->sp);
  e->sp = NULL;
}

/* Where to read fusion block blk from: one unit, or the rest of its stripe
 * when its drive is in a spike and parity can rebuild it.  Appends to u. */
static uint32_t
read_plan (struct raid_engine *e, uint64_t blk, uint64_t now,
           struct raid_unit_addr *u)
{
  uint32_t K = e->L.width;
  uint64_t s = blk / K;
  uint32_t p = (uint32_t) (blk % K);
  enum raid_stripe_state st = raid_space_state (e->sp, s);
  struct raid_unit_addr prim = raid_layout_locate (&e->L, s, p);
  if (st == RAID_SS_OPEN || st == RAID_SS_FULL || st == RAID_SS_CONVERTING)
    {
      struct raid_unit_addr rep
        = raid_layout_locate (&e->L, raid_space_mirror (e->sp, s), p);
      if (!e->c.spike_avoid)
        {
          u[0] = prim;
          return 1;
        }
      bool spiking = raid_monitor_in_spike (e->mon, prim.drive, now);
      uint32_t d = raid_monitor_pick (e->mon, prim.drive, rep.drive, now);
      if (d == rep.drive && spiking)
        e->st.reads_other_replica++;
      u[0] = d == rep.drive ? rep : prim;
      return 1;
    }
  if (e->c.spike_avoid && raid_monitor_in_spike (e->mon, prim.drive, now))
    {
      bool others_ok = true;
      for (uint32_t q = 0; q < K && others_ok; q++)
        if (q != p)
          others_ok = !raid_monitor_in_spike
            (e->mon, raid_layout_locate (&e->L, s, q).drive, now);
      if (others_ok)
        {
          uint32_t n = 0;
          for (uint32_t q = 0; q < K; q++)
            if (q != p)
              u[n++] = raid_layout_locate (&e->L, s, q);
          e->st.reads_reconstructed++;
          return n;
        }
    }
  u[0] = prim;
  return 1;
}

static int
fusion_read (struct raid_engine *e, uint32_t ri)
{
  struct req *r = pool_at (&e->reqs, ri);
  uint32_t n = r->n, K = e->L.width;
  const uint64_t *map = e->fbmt[r->vol] + r->unit;
  uint64_t now = eng_now (e);
  struct raid_unit_addr *u = malloc ((size_t) n * K * sizeof *u);
  if (!u)
    return -ENOMEM;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++)
    k += read_plan (e, map[i], now, u + k);
  eng_read_units (e, OWN_REQ, ri, u, k);
  free (u);
  return 0;
}

/* Volume unit x now lives at blk: the old block is dead. */
static void
remap (struct raid_engine *e, uint32_t vol, uint64_t x, uint64_t blk)
{
  uint32_t K = e->L.width;
  uint64_t old = e->fbmt[vol][x];
  struct raid_trim t;
  e->fbmt[vol][x] = blk;
  raid_space_kill (e->sp, old / K, (uint32_t) (old % K), &t);
  eng_trims (e, &t);
}

static void
write_unit (struct raid_engine *e, uint32_t ri, uint64_t stripe,
            struct raid_unit_addr a)
{
  raid_space_write_begin (e->sp, stripe);
  eng_io (e, OWN_REQ, ri, a.drive, RAID_IO_WRITE, a.offset, 1, stripe);
}

static int
fusion_write (struct raid_engine *e, uint32_t ri)
{
  struct req *r = pool_at (&e->reqs, ri);
  uint32_t K = e->L.width, K1 = K - 1, vol = r->vol, n = r->n;
  uint64_t unit = r->unit;
  struct avoid_ctx ac = { e, eng_now (e) };
  raid_avoid_fn avoid = e->c.spike_avoid ? avoid_spike : NULL;
  raid_error err;
  int rc;
  uint32_t i = 0;
  /* whole stripes: data and parity at once, nothing to convert later */
  for (; n - i >= K1; i += K1)
    {
      uint64_t s;
      if ((rc = raid_space_alloc_stripe (e->sp, avoid, &ac, &s, &err)) < 0)
        goto fail;
      for (uint32_t p = 0; p < K1; p++)
        remap (e, vol, unit + i + p, raid_block (s, p, K));
      for (uint32_t p = 0; p < K; p++)
        write_unit (e, ri, s, raid_layout_locate (&e->L, s, p));
      e->st.full_stripe_writes++;
    }
  /* the rest: two replicas each, in stripe */
  for (; i < n; i++)
    {
      struct raid_slot sl;
      bool steered = false;
      if ((rc = raid_space_alloc_slot (e->sp, avoid, &ac, &sl, &steered,
                                       &err)) < 0)
        goto fail;
      remap (e, vol, unit + i, raid_block (sl.stripe, sl.pos, K));
      write_unit (e, ri, sl.stripe, sl.primary);
      write_unit (e, ri, sl.stripe, sl.replica);
      e->st.replicated_writes++;
      if (steered)
        e->st.writes_steered++;
    }
  return 0;
fail:
  eng_set_error (e, rc, err.msg);
  return rc;
}

int
fusion_submit (struct raid_engine *e, uint32_t ri)
{
  struct req *r = pool_at (&e->reqs, ri);
  return r->write ? fusion_write (e, ri) : fusion_read (e, ri);
}

void
fusion_io_done (struct raid_engine *e, const struct io_rec *io)
{
  if (io->kind == RAID_IO_WRITE && io->stripe != UINT64_MAX)
    raid_space_write_end (e->sp, io->stripe);
}

static void
conv_start (struct raid_engine *e, uint64_t s)
{
  uint32_t K = e->L.width;
  uint32_t ci = pool_get (&e->convs);
  if (ci == NONE32)
    {
      eng_set_error (e, -ENOMEM, "fusionraid: out of memory for conversions");
      return;
    }
  raid_space_convert_begin (e->sp, s);
  struct conv *c = pool_at (&e->convs, ci);
  c->stripe = s;
  c->phase = 0;
  c->pending = 1;
  e->conv_inflight++;
  /* read the live data (either copy: the one on the better drive) */
  uint64_t now = eng_now (e), m = raid_space_mirror (e->sp, s);
  uint32_t live = raid_space_live_mask (e->sp, s), n = 0;
  struct raid_unit_addr u[RAID_MAX_WIDTH];
  for (uint32_t p = 0; p + 1 < K; p++)
    if (live & (1u << p))
      {
        struct raid_unit_addr a = raid_layout_locate (&e->L, s, p);
        struct raid_unit_addr b = raid_layout_locate (&e->L, m, p);
        u[n++] = e->c.spike_avoid
          && raid_monitor_pick (e->mon, a.drive, b.drive, now) == b.drive
          ? b : a;
      }
  eng_read_units (e, OWN_CONV, ci, u, n);
  fusion_conv_put (e, ci, now, 0);
}

void
fusion_conv_put (struct raid_engine *e, uint32_t ci, uint64_t t, int status)
{
  struct conv *c = pool_at (&e->convs, ci);
  if (status < 0)
    c->status = status;
  if (--c->pending)
    return;
  uint32_t K = e->L.width;
  uint64_t s = c->stripe;
  if (c->phase == 0)
    {
      c->phase = 1;
      c->pending = 1;
      struct raid_unit_addr a = raid_layout_locate (&e->L, s, K - 1);
      eng_io (e, OWN_CONV, ci, a.drive, RAID_IO_WRITE, a.offset, 1,
              UINT64_MAX);
      fusion_conv_put (e, ci, t, 0);
      return;
    }
  struct raid_trim tr;
  raid_space_convert_done (e->sp, s, &tr);
  pool_put (&e->convs, ci);
  e->conv_inflight--;
  e->st.conversions++;
  eng_trims (e, &tr);
}

void
fusion_pump (struct raid_engine *e)
{
  if (!e->c.convert || e->err)
    return;
  while (e->conv_inflight < e->c.convert_inflight)
    {
      if (!e->draining
          && raid_space_full_count (e->sp) < e->c.convert_min_full)
        break;
      uint64_t s;
      if (raid_space_next_full (e->sp, &s) < 0)
        break;
      conv_start (e, s);
    }
}
