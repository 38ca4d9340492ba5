/* raid_engine_fixed.c - the comparison layouts: RAID-5 in fixed groups
 * (each volume on one group, as independent md arrays) and RAID-50 (every
 * volume striped over all groups).  Writes are in place with the parity
 * updated as md does: a whole stripe is written with its parity; fewer
 * data units than half a stripe read the old data and parity first
 * (read-modify-write), more read the other data units (reconstruct-write);
 * the request completes when every stripe's data and parity are written.
 * No spike avoidance: these are the baselines.  Concurrent writes to one
 * stripe are not ordered (the simulator keeps no data).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "raid_engine_internal.h"

#define NONE32 UINT32_MAX

/* The stripe of a volume's stripe j. */
static uint64_t
vol_stripe (const struct raid_engine *e, uint32_t vol, uint64_t j)
{
  return raid_layout_volume_stripe (&e->L, e->c.policy
                                    == RAID_POLICY_RAID5_GROUPS
                                    ? RAID_VMAP_GROUP : RAID_VMAP_RAID50,
                                    vol, e->stripes_per_vol, j);
}

static void
sop_issue_phase (struct raid_engine *e, uint32_t si)
{
  struct sop *s = pool_at (&e->sops, si);
  uint32_t K = e->L.width, pos0 = s->pos0, m = s->m;
  uint64_t stripe = s->stripe;
  uint8_t mode = s->mode, phase = s->phase;
  s->pending++;               /* guard */
  if (phase == 0)
    {
      struct raid_unit_addr u[RAID_MAX_WIDTH];
      uint32_t n = 0;
      for (uint32_t p = 0; p + 1 < K; p++)
        {
          bool mine = p >= pos0 && p < pos0 + m;
          if ((mode == SOP_RMW && mine) || (mode == SOP_RCW && !mine))
            u[n++] = raid_layout_locate (&e->L, stripe, p);
        }
      if (mode == SOP_RMW)
        u[n++] = raid_layout_locate (&e->L, stripe, K - 1);
      eng_read_units (e, OWN_SOP, si, u, n);
    }
  else
    {
      for (uint32_t p = 0; p < K; p++)
        if ((p >= pos0 && p < pos0 + m) || p == K - 1)
          {
            struct raid_unit_addr a = raid_layout_locate (&e->L, stripe, p);
            eng_io (e, OWN_SOP, si, a.drive, RAID_IO_WRITE, a.offset, 1,
                    UINT64_MAX);
          }
    }
  fixed_sop_put (e, si, eng_now (e), 0);
}

void
fixed_sop_put (struct raid_engine *e, uint32_t si, uint64_t t, int status)
{
  struct sop *s = pool_at (&e->sops, si);
  struct req *r = pool_at (&e->reqs, s->req);
  if (status < 0 && r->status == 0)
    r->status = status;
  if (t > r->t_last)
    r->t_last = t;
  if (--s->pending)
    return;
  if (s->phase == 0)
    {
      s->phase = 1;
      sop_issue_phase (e, si);
      return;
    }
  uint32_t ri = s->req;
  pool_put (&e->sops, si);
  eng_req_put (e, ri, t, status);
}

static int
fixed_write (struct raid_engine *e, uint32_t ri)
{
  struct req *r = pool_at (&e->reqs, ri);
  uint32_t K1 = e->L.width - 1, vol = r->vol;
  uint64_t u = r->unit, end = r->unit + r->n;
  while (u < end)
    {
      uint64_t j = u / K1;
      uint32_t pos0 = (uint32_t) (u % K1);
      uint32_t m = (uint32_t) (end - u < K1 - pos0 ? end - u : K1 - pos0);
      uint32_t si = pool_get (&e->sops);
      if (si == NONE32)
        return -ENOMEM;
      struct sop *s = pool_at (&e->sops, si);
      s->req = ri;
      s->stripe = vol_stripe (e, vol, j);
      s->pos0 = pos0;
      s->m = m;
      if (m == K1)
        {
          s->mode = SOP_FULL;
          s->phase = 1;
          e->st.full_stripe_writes++;
        }
      else if (m <= K1 / 2)
        {
          s->mode = SOP_RMW;
          e->st.rmw_writes++;
        }
      else
        {
          s->mode = SOP_RCW;
          e->st.reconstruct_writes++;
        }
      ((struct req *) pool_at (&e->reqs, ri))->pending++;
      sop_issue_phase (e, si);
      u += m;
    }
  return 0;
}

int
fixed_submit (struct raid_engine *e, uint32_t ri)
{
  struct req *r = pool_at (&e->reqs, ri);
  if (r->write)
    return fixed_write (e, ri);
  uint32_t K1 = e->L.width - 1, vol = r->vol, n = r->n;
  uint64_t unit = r->unit;
  struct raid_unit_addr *u = malloc (n * sizeof *u);
  if (!u)
    return -ENOMEM;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t x = unit + i;
      u[i] = raid_layout_locate (&e->L, vol_stripe (e, vol, x / K1),
                                 (uint32_t) (x % K1));
    }
  eng_read_units (e, OWN_REQ, ri, u, n);
  free (u);
  return 0;
}
