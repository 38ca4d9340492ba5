/* raid_space.c - the fusion space: per-stripe state of FusionRAID's write
 * path over a layout (ossd_raid.h, "fusion space").  No I/O: the engine
 * asks it where a write goes and what to trim, and tells it when writes
 * end; the converter asks it what to convert.
 *
 * Why a mirror stripe: a replicated slot's first copy is written at the
 * unit of its own stripe that the parity stripe will later use ("in
 * stripe"), so converting needs no data movement, only the parity unit;
 * the second copy needs a unit on another drive, and taking it from one
 * other stripe (unit p of the mirror for slot p) keeps the bookkeeping per
 * stripe and frees the whole mirror at once when its primary is converted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_raid.h"

#define NONE32 UINT32_MAX
#define MIRROR_TRIES 64
#define STRIPE_TRIES 32

struct stripe
{
  uint8_t state;
  uint8_t run;                /* written during the run (not preloaded only) */
  uint8_t in_free;            /* an entry in the free ring */
  uint16_t inflight;          /* writes in flight */
  uint32_t alloc;             /* data slots allocated */
  uint32_t live;              /* data slots holding live data */
  uint32_t trimmed;           /* data slots trimmed while replicated */
  uint32_t mirror;            /* OPEN..CONVERTING: mirror; MIRROR: primary */
};

struct ring
{
  uint32_t *q;
  uint64_t cap, head, tail;   /* entries [head, tail) modulo cap */
};

struct raid_space
{
  struct raid_layout L;
  uint32_t data_mask;
  struct stripe *st;
  struct ring free, full;
  uint32_t *open;
  uint32_t nopen, open_cap, cursor;
  uint64_t nfull;
};

static int
fail (raid_error *err, int r, const char *msg)
{
  if (err)
    snprintf (err->msg, sizeof err->msg, "%s", msg);
  return r;
}

static void
ring_push (struct ring *r, uint32_t v)
{
  r->q[r->tail % r->cap] = v;
  r->tail++;
}

static bool
ring_pop (struct ring *r, uint32_t *v)
{
  if (r->head == r->tail)
    return false;
  *v = r->q[r->head % r->cap];
  r->head++;
  return true;
}

static void
free_push (struct raid_space *sp, uint32_t s)
{
  struct stripe *t = &sp->st[s];
  t->state = RAID_SS_FREE;
  t->alloc = t->live = t->trimmed = 0;
  t->mirror = NONE32;
  if (!t->in_free)
    {
      t->in_free = 1;
      ring_push (&sp->free, s);
    }
}

/* The next free stripe; stale entries (stripes preloaded after they were
 * listed) are dropped. */
static bool
free_pop (struct raid_space *sp, uint32_t *s)
{
  uint32_t v;
  while (ring_pop (&sp->free, &v))
    {
      sp->st[v].in_free = 0;
      if (sp->st[v].state == RAID_SS_FREE)
        {
          *s = v;
          return true;
        }
    }
  return false;
}

int
raid_space_create (const struct raid_layout *L, uint32_t open_stripes,
                   struct raid_space **out, raid_error *err)
{
  if (L->stripes == 0 || L->stripes >= NONE32)
    return fail (err, -EINVAL, "fusion space: the layout must have 1 to "
                 "2^32-2 stripes");
  struct raid_space *sp = calloc (1, sizeof *sp);
  if (!sp)
    return fail (err, -ENOMEM, "fusion space: out of memory");
  sp->L = *L;
  sp->data_mask = (uint32_t) ((1ull << (L->width - 1)) - 1);
  sp->open_cap = open_stripes ? open_stripes : 1;
  sp->st = calloc (L->stripes, sizeof *sp->st);
  sp->free.cap = sp->full.cap = L->stripes;
  sp->free.q = calloc (L->stripes, sizeof (uint32_t));
  sp->full.q = calloc (L->stripes, sizeof (uint32_t));
  sp->open = calloc (sp->open_cap, sizeof (uint32_t));
  if (!sp->st || !sp->free.q || !sp->full.q || !sp->open)
    {
      raid_space_destroy (sp);
      return fail (err, -ENOMEM, "fusion space: out of memory for the "
                   "stripe table");
    }
  for (uint64_t s = 0; s < L->stripes; s++)
    free_push (sp, (uint32_t) s);
  *out = sp;
  return 0;
}

void
raid_space_destroy (struct raid_space *sp)
{
  if (!sp)
    return;
  free (sp->st);
  free (sp->free.q);
  free (sp->full.q);
  free (sp->open);
  free (sp);
}

const struct raid_layout *
raid_space_layout (const struct raid_space *sp)
{
  return &sp->L;
}

int
raid_space_preload (struct raid_space *sp, uint64_t stripe,
                    uint32_t live_mask, raid_error *err)
{
  if (stripe >= sp->L.stripes || sp->st[stripe].state != RAID_SS_FREE)
    return fail (err, -EINVAL, "fusion space: preload of a stripe out of "
                 "range or in use");
  struct stripe *t = &sp->st[stripe];
  t->state = RAID_SS_RAID;
  t->alloc = sp->data_mask;   /* a full stripe: unwritten slots hold zeros */
  t->live = live_mask & sp->data_mask;
  return 0;
}

static bool
drives_differ (const struct raid_space *sp, uint32_t a, uint32_t m)
{
  for (uint32_t p = 0; p + 1 < sp->L.width; p++)
    if (raid_layout_locate (&sp->L, a, p).drive
        == raid_layout_locate (&sp->L, m, p).drive)
      return false;
  return true;
}

/* Open a primary stripe and its mirror. */
static int
open_pair (struct raid_space *sp, raid_error *err)
{
  uint32_t a, m, skipped[MIRROR_TRIES];
  uint32_t nskip = 0;
  bool found = false;
  if (!free_pop (sp, &a))
    return fail (err, -ENOSPC, "fusion space: no free stripe left");
  while (nskip < MIRROR_TRIES && free_pop (sp, &m))
    {
      if (drives_differ (sp, a, m))
        {
          found = true;
          break;
        }
      skipped[nskip++] = m;
    }
  for (uint32_t i = 0; i < nskip; i++)
    free_push (sp, skipped[i]);
  if (!found)
    {
      free_push (sp, a);
      return fail (err, -ENOSPC, "fusion space: no free stripe on other "
                   "drives to mirror an open stripe");
    }
  sp->st[a] = (struct stripe) { .state = RAID_SS_OPEN, .run = 1,
                                .mirror = m };
  sp->st[m] = (struct stripe) { .state = RAID_SS_MIRROR, .run = 1,
                                .mirror = a };
  sp->open[sp->nopen++] = a;
  return 0;
}

static void
make_full (struct raid_space *sp, uint32_t idx)
{
  uint32_t a = sp->open[idx];
  sp->open[idx] = sp->open[--sp->nopen];
  sp->st[a].state = RAID_SS_FULL;
  sp->nfull++;
  ring_push (&sp->full, a);
}

static void
fill_slot (struct raid_space *sp, uint32_t a, uint32_t p,
           struct raid_slot *out)
{
  struct stripe *t = &sp->st[a];
  t->alloc |= 1u << p;
  t->live |= 1u << p;
  t->trimmed &= ~(1u << p);
  out->stripe = a;
  out->pos = p;
  out->mirror = t->mirror;
  out->primary = raid_layout_locate (&sp->L, a, p);
  out->replica = raid_layout_locate (&sp->L, t->mirror, p);
}

/* A free slot of open stripe number idx (avoid: skip avoided drives). */
static bool
find_slot (struct raid_space *sp, uint32_t idx, raid_avoid_fn avoid,
           void *arg, bool *avoided_any, uint32_t *pos)
{
  uint32_t a = sp->open[idx], K1 = sp->L.width - 1;
  struct stripe *t = &sp->st[a];
  for (uint32_t k = 0; k < K1; k++)
    {
      uint32_t p = (k + sp->cursor) % K1;
      if (t->alloc & (1u << p))
        continue;
      if (avoid && (avoid (arg, raid_layout_locate (&sp->L, a, p).drive)
                    || avoid (arg, raid_layout_locate (&sp->L, t->mirror,
                                                       p).drive)))
        {
          *avoided_any = true;
          continue;
        }
      *pos = p;
      return true;
    }
  return false;
}

int
raid_space_alloc_slot (struct raid_space *sp, raid_avoid_fn avoid, void *arg,
                       struct raid_slot *out, bool *avoided_any,
                       raid_error *err)
{
  bool skipped = false;
  uint32_t p;
  int r = 0;
  for (int pass = 0; pass < 3; pass++)
    {
      /* pass 0: open stripes, healthy drives only; pass 1: a new open
       * stripe, healthy drives (if every open stripe's free slots are on
       * avoided drives and there are already open_cap of them, one is
       * closed early: its free slots stay unused, which the usage counts,
       * rather than a write waiting on a drive in a spike); pass 2: any
       * free slot (no stripe left to open) */
      if (pass == 1)
        {
          if (sp->nopen >= sp->open_cap)
            make_full (sp, 0);
          if ((r = open_pair (sp, err)) < 0)
            continue;
        }
      raid_avoid_fn av = pass == 2 ? NULL : avoid;
      for (uint32_t i = 0; i < sp->nopen; i++)
        {
          uint32_t idx = (i + sp->cursor) % sp->nopen;
          if (find_slot (sp, idx, av, arg, &skipped, &p))
            {
              uint32_t a = sp->open[idx];
              fill_slot (sp, a, p, out);
              sp->cursor++;
              if (sp->st[a].alloc == sp->data_mask)
                make_full (sp, idx);
              if (avoided_any)
                *avoided_any = skipped;
              return 0;
            }
        }
    }
  /* no open stripe at all had room */
  if ((r = open_pair (sp, err)) < 0)
    return r;
  fill_slot (sp, sp->open[sp->nopen - 1], 0, out);
  if (avoided_any)
    *avoided_any = skipped;
  return 0;
}

int
raid_space_alloc_stripe (struct raid_space *sp, raid_avoid_fn avoid,
                         void *arg, uint64_t *stripe, raid_error *err)
{
  uint32_t cand[STRIPE_TRIES], n = 0, pick = NONE32;
  while (n < STRIPE_TRIES && free_pop (sp, &cand[n]))
    {
      bool ok = true;
      for (uint32_t p = 0; avoid && ok && p < sp->L.width; p++)
        ok = !avoid (arg, raid_layout_locate (&sp->L, cand[n], p).drive);
      n++;
      if (ok)
        {
          pick = n - 1;
          break;
        }
    }
  if (n == 0)
    return fail (err, -ENOSPC, "fusion space: no free stripe left");
  if (pick == NONE32)
    pick = 0;
  for (uint32_t i = 0; i < n; i++)
    if (i != pick)
      free_push (sp, cand[i]);
  uint32_t s = cand[pick];
  sp->st[s] = (struct stripe) { .state = RAID_SS_RAID, .run = 1,
                                .alloc = sp->data_mask,
                                .live = sp->data_mask, .mirror = NONE32 };
  *stripe = s;
  return 0;
}

void
raid_space_write_begin (struct raid_space *sp, uint64_t stripe)
{
  sp->st[stripe].inflight++;
}

void
raid_space_write_end (struct raid_space *sp, uint64_t stripe)
{
  if (sp->st[stripe].inflight)
    sp->st[stripe].inflight--;
}

static void
trim_add (struct raid_trim *t, struct raid_unit_addr u)
{
  if (t && t->n < sizeof t->unit / sizeof t->unit[0])
    t->unit[t->n++] = u;
}

/* Free a RAID stripe whose units are all dead: trim what still holds data. */
static void
free_raid_stripe (struct raid_space *sp, uint32_t s, struct raid_trim *trim)
{
  struct stripe *t = &sp->st[s];
  for (uint32_t p = 0; p + 1 < sp->L.width; p++)
    if ((t->alloc & (1u << p)) && !(t->trimmed & (1u << p)))
      trim_add (trim, raid_layout_locate (&sp->L, s, p));
  trim_add (trim, raid_layout_locate (&sp->L, s, sp->L.width - 1));
  free_push (sp, s);
}

void
raid_space_kill (struct raid_space *sp, uint64_t stripe, uint32_t pos,
                 struct raid_trim *trim)
{
  if (trim)
    trim->n = 0;
  struct stripe *t = &sp->st[stripe];
  uint32_t bit = 1u << pos;
  if (!(t->live & bit))
    return;
  t->live &= ~bit;
  switch (t->state)
    {
    case RAID_SS_OPEN:
    case RAID_SS_FULL:
    case RAID_SS_CONVERTING:
      /* both copies can go: parity, when it comes, covers a zero there */
      t->trimmed |= bit;
      trim_add (trim, raid_layout_locate (&sp->L, stripe, pos));
      trim_add (trim, raid_layout_locate (&sp->L, t->mirror, pos));
      if (t->state == RAID_SS_FULL && t->live == 0 && t->inflight == 0)
        {
          /* nothing left to convert: both stripes are free again (the
           * full ring's entry goes stale) */
          sp->nfull--;
          free_push (sp, t->mirror);
          free_push (sp, (uint32_t) stripe);
        }
      break;
    case RAID_SS_RAID:
      if (t->live == 0)
        free_raid_stripe (sp, (uint32_t) stripe, trim);
      break;
    default:
      break;
    }
}

enum raid_stripe_state
raid_space_state (const struct raid_space *sp, uint64_t stripe)
{
  return (enum raid_stripe_state) sp->st[stripe].state;
}

uint32_t
raid_space_live_mask (const struct raid_space *sp, uint64_t stripe)
{
  return sp->st[stripe].live;
}

uint64_t
raid_space_mirror (const struct raid_space *sp, uint64_t stripe)
{
  uint32_t m = sp->st[stripe].mirror;
  return m == NONE32 ? UINT64_MAX : m;
}

int
raid_space_next_full (struct raid_space *sp, uint64_t *stripe)
{
  struct ring *r = &sp->full;
  for (uint64_t i = r->head; i < r->tail && i < r->head + 64; i++)
    {
      uint32_t s = r->q[i % r->cap];
      if (sp->st[s].state != RAID_SS_FULL)
        {
          /* stale (freed while full): drop it where it is */
          r->q[i % r->cap] = r->q[r->head % r->cap];
          r->head++;
          continue;
        }
      if (sp->st[s].inflight)
        continue;
      r->q[i % r->cap] = r->q[r->head % r->cap];
      r->head++;
      *stripe = s;
      return 0;
    }
  return -ENOENT;
}

void
raid_space_convert_begin (struct raid_space *sp, uint64_t stripe)
{
  sp->st[stripe].state = RAID_SS_CONVERTING;
  sp->nfull--;
}

void
raid_space_convert_done (struct raid_space *sp, uint64_t stripe,
                         struct raid_trim *trim)
{
  if (trim)
    trim->n = 0;
  struct stripe *t = &sp->st[stripe];
  uint32_t m = t->mirror;
  for (uint32_t p = 0; p + 1 < sp->L.width; p++)
    if (t->live & (1u << p))
      trim_add (trim, raid_layout_locate (&sp->L, m, p));
  free_push (sp, m);
  t->state = RAID_SS_RAID;
  t->mirror = NONE32;
  if (t->live == 0)
    free_raid_stripe (sp, (uint32_t) stripe, trim);
}

void
raid_space_close_open (struct raid_space *sp)
{
  while (sp->nopen)
    make_full (sp, sp->nopen - 1);
}

uint64_t
raid_space_full_count (const struct raid_space *sp)
{
  return sp->nfull;
}

void
raid_space_usage (const struct raid_space *sp, bool run_only,
                  struct raid_space_usage *u)
{
  memset (u, 0, sizeof *u);
  for (uint64_t s = 0; s < sp->L.stripes; s++)
    {
      const struct stripe *t = &sp->st[s];
      if (t->state == RAID_SS_FREE)
        {
          u->free_stripes++;
          continue;
        }
      if (run_only && !t->run)
        {
          /* data the run superseded in preloaded stripes: stranded there
           * until those stripes are compacted (not done) */
          if (t->state == RAID_SS_RAID)
            u->preload_dead_units += (uint32_t) __builtin_popcount
              (t->alloc & ~t->live);
          continue;
        }
      uint32_t live = (uint32_t) __builtin_popcount (t->live);
      switch (t->state)
        {
        case RAID_SS_OPEN:
        case RAID_SS_FULL:
        case RAID_SS_CONVERTING:
          u->data_units += live;
          u->replica_units += live;
          if (t->state == RAID_SS_OPEN)
            u->open_stripes++;
          else
            u->full_stripes++;
          break;
        case RAID_SS_RAID:
          u->data_units += live;
          u->parity_units++;
          u->dead_units += (uint32_t) __builtin_popcount (t->alloc & ~t->live
                                                          & ~t->trimmed);
          u->unused_units += (uint32_t) __builtin_popcount
            ((sp->data_mask & ~t->alloc) | (t->trimmed & ~t->live));
          u->raid_stripes++;
          break;
        case RAID_SS_MIRROR:
          u->mirror_stripes++;
          break;
        default:
          break;
        }
    }
}
