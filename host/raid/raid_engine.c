/* raid_engine.c - the engine's common part (ossd_raid.h, "engine"):
 * configuration, record pools, drive I/O issue and completion dispatch to
 * the policy that owns each I/O, statistics.  The policies' request state
 * machines are in raid_engine_fixed.c and raid_engine_fusion.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid_engine_internal.h"

#define NONE32 UINT32_MAX

const char *
raid_policy_name (enum raid_policy p)
{
  switch (p)
    {
    case RAID_POLICY_RAID5_GROUPS: return "raid5-groups";
    case RAID_POLICY_RAID50: return "raid50";
    case RAID_POLICY_FUSION: return "fusionraid";
    }
  return "?";
}

/* ---- pools: growable arrays of records with a free list ---- */
static void
pool_init (struct pool *p, size_t size)
{
  memset (p, 0, sizeof *p);
  p->size = size;
  p->free_head = NONE32;
}

uint32_t
pool_get (struct pool *p)
{
  if (p->free_head == NONE32)
    {
      uint32_t cap = p->cap ? p->cap * 2 : 256;
      char *m = realloc (p->mem, (size_t) cap * p->size);
      if (!m)
        return NONE32;
      p->mem = m;
      for (uint32_t i = cap; i-- > p->cap;)
        {
          *(uint32_t *) (p->mem + (size_t) i * p->size) = p->free_head;
          p->free_head = i;
        }
      p->cap = cap;
    }
  uint32_t i = p->free_head;
  char *rec = p->mem + (size_t) i * p->size;
  p->free_head = *(uint32_t *) rec;
  memset (rec, 0, p->size);
  p->used++;
  return i;
}

void *
pool_at (struct pool *p, uint32_t i)
{
  return p->mem + (size_t) i * p->size;
}

void
pool_put (struct pool *p, uint32_t i)
{
  *(uint32_t *) pool_at (p, i) = p->free_head;
  p->free_head = i;
  p->used--;
}

void
eng_set_error (struct raid_engine *e, int r, const char *msg)
{
  if (e->err)
    return;
  e->err = r;
  snprintf (e->errmsg.msg, sizeof e->errmsg.msg, "%s", msg);
}

void
raid_engine_config_defaults (struct raid_engine_config *c)
{
  memset (c, 0, sizeof *c);
  c->policy = RAID_POLICY_FUSION;
  c->width = 7;
  c->groups = 4;
  c->volumes = 1;
  c->convert = true;
  c->convert_inflight = 2;
  c->convert_min_full = 1;
  c->spike_avoid = true;
  c->open_stripes = 4;
  raid_monitor_defaults (&c->mon);
}

static int
fail (raid_error *err, int r, const char *msg)
{
  if (err)
    snprintf (err->msg, sizeof err->msg, "%s", msg);
  return r;
}

int
raid_engine_create (const struct raid_engine_config *c,
                    const struct raid_drive_ops *ops, void *ops_ctx,
                    raid_done_fn done, void *done_arg,
                    struct raid_engine **out, raid_error *err)
{
  if (!ops || !ops->submit || !ops->now || !done)
    return fail (err, -EINVAL, "raid engine: need submit, now and done");
  if (c->volumes == 0 || c->volume_units == 0)
    return fail (err, -EINVAL, "raid engine: need volumes of some size");
  struct raid_engine *e = calloc (1, sizeof *e);
  if (!e)
    return fail (err, -ENOMEM, "raid engine: out of memory");
  e->c = *c;
  e->ops = ops;
  e->ops_ctx = ops_ctx;
  e->done = done;
  e->done_arg = done_arg;
  pool_init (&e->reqs, sizeof (struct req));
  pool_init (&e->sops, sizeof (struct sop));
  pool_init (&e->convs, sizeof (struct conv));
  pool_init (&e->ios, sizeof (struct io_rec));
  uint32_t K = c->width;
  int r;
  if (c->policy == RAID_POLICY_FUSION)
    r = raid_layout_init (&e->L, RAID_LAYOUT_MOLS, c->drives, K, 1,
                          c->drive_units, err);
  else
    r = raid_layout_init (&e->L, RAID_LAYOUT_GROUPS, c->drives, K, c->groups,
                          c->drive_units, err);
  if (r == 0)
    r = raid_monitor_create (c->drives, &c->mon, &e->mon, err);
  e->stripes_per_vol = (c->volume_units + K - 2) / (K - 1);
  if (r == 0)
    {
      uint64_t need = c->policy == RAID_POLICY_RAID5_GROUPS
        ? ((c->volumes + c->groups - 1) / c->groups) * e->stripes_per_vol
          * c->groups
        : c->volumes * e->stripes_per_vol;
      if (need > e->L.stripes)
        r = fail (err, -ENOSPC, "raid engine: the volumes need more stripes "
                  "than the drives hold");
    }
  if (r == 0 && c->policy == RAID_POLICY_FUSION)
    r = fusion_init (e, err);
  if (r < 0)
    {
      raid_engine_destroy (e);
      return r;
    }
  *out = e;
  return 0;
}

void
raid_engine_destroy (struct raid_engine *e)
{
  if (!e)
    return;
  fusion_fini (e);
  raid_monitor_destroy (e->mon);
  free (e->reqs.mem);
  free (e->sops.mem);
  free (e->convs.mem);
  free (e->ios.mem);
  free (e);
}

void
eng_io (struct raid_engine *e, enum owner_kind ok, uint32_t owner,
        uint32_t drive, enum raid_io_kind kind, uint64_t offset,
        uint32_t units, uint64_t stripe)
{
  uint32_t tag = pool_get (&e->ios);
  uint64_t now = eng_now (e);
  if (tag == NONE32)
    {
      eng_set_error (e, -ENOMEM, "raid engine: out of memory for I/Os");
      return;
    }
  struct io_rec *io = pool_at (&e->ios, tag);
  io->owner = owner;
  io->owner_kind = (uint8_t) ok;
  io->kind = (uint8_t) kind;
  io->drive = drive;
  io->t_submit = now;
  io->stripe = stripe;
  switch (ok)
    {
    case OWN_REQ:
      ((struct req *) pool_at (&e->reqs, owner))->pending++;
      break;
    case OWN_SOP:
      ((struct sop *) pool_at (&e->sops, owner))->pending++;
      break;
    case OWN_CONV:
      ((struct conv *) pool_at (&e->convs, owner))->pending++;
      break;
    default:
      break;
    }
  e->st.io[kind]++;
  e->st.io_units[kind] += units;
  e->outstanding++;
  raid_monitor_submit (e->mon, drive, now);
  int r = e->ops->submit (e->ops_ctx, drive, kind, offset, units, tag);
  if (r < 0)
    {
      char m[128];
      snprintf (m, sizeof m, "raid engine: submit to drive %u failed (%s)",
                drive, strerror (-r));
      eng_set_error (e, r, m);
      raid_engine_io_done (e, tag, now, r);
    }
}

static int
cmp_addr (const void *a, const void *b)
{
  const struct raid_unit_addr *x = a, *y = b;
  if (x->drive != y->drive)
    return x->drive < y->drive ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void
eng_read_units (struct raid_engine *e, enum owner_kind ok, uint32_t owner,
                struct raid_unit_addr *u, uint32_t n)
{
  qsort (u, n, sizeof *u, cmp_addr);
  for (uint32_t i = 0; i < n;)
    {
      uint32_t j = i + 1;
      while (j < n && u[j].drive == u[i].drive
             && u[j].offset <= u[j - 1].offset + 1)
        j++;
      uint64_t len = u[j - 1].offset + 1 - u[i].offset;
      eng_io (e, ok, owner, u[i].drive, RAID_IO_READ, u[i].offset,
              (uint32_t) len, UINT64_MAX);
      i = j;
    }
}

void
eng_trims (struct raid_engine *e, const struct raid_trim *t)
{
  for (uint32_t i = 0; i < t->n; i++)
    eng_io (e, OWN_NONE, 0, t->unit[i].drive, RAID_IO_TRIM, t->unit[i].offset,
            1, UINT64_MAX);
}

void
eng_req_put (struct raid_engine *e, uint32_t ri, uint64_t t, int status)
{
  struct req *r = pool_at (&e->reqs, ri);
  if (status < 0 && r->status == 0)
    r->status = status;
  if (t > r->t_last)
    r->t_last = t;
  if (--r->pending)
    return;
  uint64_t tag = r->user_tag, tl = r->t_last;
  int st = r->status;
  pool_put (&e->reqs, ri);
  e->st.user_done++;
  e->done (e->done_arg, tag, tl, st);
}

int
raid_engine_submit (struct raid_engine *e, uint32_t volume, bool write,
                    uint64_t unit, uint32_t nunits, uint64_t user_tag,
                    raid_error *err)
{
  if (volume >= e->c.volumes || nunits == 0 || unit >= e->c.volume_units
      || nunits > e->c.volume_units - unit)
    {
      if (err)
        snprintf (err->msg, sizeof err->msg, "raid engine: request [%llu, "
                  "+%u) outside volume %u of %llu units",
                  (unsigned long long) unit, nunits, volume,
                  (unsigned long long) e->c.volume_units);
      return -EINVAL;
    }
  uint32_t ri = pool_get (&e->reqs);
  if (ri == NONE32)
    return fail (err, -ENOMEM, "raid engine: out of memory for requests");
  struct req *r = pool_at (&e->reqs, ri);
  r->vol = volume;
  r->write = write;
  r->unit = unit;
  r->n = nunits;
  r->user_tag = user_tag;
  r->pending = 1;             /* the guard */
  r->t_last = eng_now (e);
  if (write)
    e->st.user_writes++;
  else
    e->st.user_reads++;
  int rc = e->c.policy == RAID_POLICY_FUSION ? fusion_submit (e, ri)
    : fixed_submit (e, ri);
  eng_req_put (e, ri, eng_now (e), rc);
  if (e->c.policy == RAID_POLICY_FUSION)
    fusion_pump (e);
  return 0;
}

void
raid_engine_io_done (struct raid_engine *e, uint64_t tag, uint64_t t_done,
                     int status)
{
  struct io_rec io = *(struct io_rec *) pool_at (&e->ios, (uint32_t) tag);
  pool_put (&e->ios, (uint32_t) tag);
  e->outstanding--;
  raid_monitor_complete (e->mon, io.drive, io.t_submit, t_done);
  if (status < 0)
    {
      char m[128];
      snprintf (m, sizeof m, "raid engine: I/O on drive %u failed (%s)",
                io.drive, strerror (-status));
      eng_set_error (e, status, m);
    }
  if (e->c.policy == RAID_POLICY_FUSION)
    fusion_io_done (e, &io);
  switch (io.owner_kind)
    {
    case OWN_REQ:
      eng_req_put (e, io.owner, t_done, status);
      break;
    case OWN_SOP:
      fixed_sop_put (e, io.owner, t_done, status);
      break;
    case OWN_CONV:
      fusion_conv_put (e, io.owner, t_done, status);
      break;
    default:
      break;
    }
  if (e->c.policy == RAID_POLICY_FUSION)
    fusion_pump (e);
}

bool
raid_engine_busy (const struct raid_engine *e)
{
  if (e->outstanding)
    return true;
  return e->sp && e->draining && e->c.convert && !e->err
    && raid_space_full_count (e->sp) > 0;
}

void
raid_engine_drain (struct raid_engine *e)
{
  if (!e->sp)
    return;
  raid_space_close_open (e->sp);
  e->draining = true;
  fusion_pump (e);
}

int
raid_engine_error (const struct raid_engine *e, raid_error *err)
{
  if (e->err && err)
    *err = e->errmsg;
  return e->err;
}

void
raid_engine_stats (const struct raid_engine *e, struct raid_engine_stats *st)
{
  *st = e->st;
  st->spikes = 0;
  for (uint32_t d = 0; d < e->c.drives; d++)
    st->spikes += raid_monitor_spikes (e->mon, d);
}

const struct raid_space *
raid_engine_space (const struct raid_engine *e)
{
  return e->sp;
}

const struct raid_layout *
raid_engine_layout (const struct raid_engine *e)
{
  return &e->L;
}

struct raid_monitor *
raid_engine_monitor (struct raid_engine *e)
{
  return e->mon;
}
