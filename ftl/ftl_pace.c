/* ftl_pace.c - the drive profile in force and real-time pacing.
 *
 * The NAND model (nand.c) keeps a virtual clock per die and per channel.
 * Under a paced profile that virtual time tracks CLOCK_MONOTONIC
 * (v = m - pace_wall0 + pace_virt0): an operation starts at the wall clock
 * when it arrives (not at the previous operation's end), so requests from
 * different threads on different dies overlap, the same die serialises and
 * a channel serialises its transfers, exactly as the clocks say; the
 * calling thread then sleeps (clock_nanosleep, absolute deadline, no lock
 * held) until the operation's modelled completion.  The host link is one
 * more clock (link_free), charged by the device for the bytes each
 * request moves (ftl_link_transfer).  Drive scans read through ftl_read,
 * so they are paced by the same NAND clocks and never by the link.
 *
 * An unpaced profile keeps the model as it always was: time is only
 * counted, each operation starting when the previous one ended.
 *
 * QoS classes (docs/qos.md): an FTL call times its NAND operations in
 * its own priority class (ftl_pace_call_begin); under a paced profile it
 * takes a ticket, which a later call of a higher class may push back
 * (nand_queue.c), so its caller sleeps on the ticket (ftl_pace_wait_ticket)
 * and not on a time fixed when the call returned.  Work outside a call
 * (background GC, relocation, recovery) runs in the default class without
 * a ticket, and so keeps its place when paced.
 */
#include <fcntl.h>
#include <time.h>

#include "ftl_internal.h"

uint64_t
ftl_mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static uint64_t
virt_now (struct ftl *f)
{
  return ftl_mono_ns () - f->pace_wall0 + f->pace_virt0;
}

/* Called with f->lock held. */
int
ftl_pace_apply (struct ftl *f, const char *name, ftl_error *err)
{
  struct ftl_pace_params pp;
  const struct nand_geometry *g = &f->nand.geo;
  int r = ftl_profile_runtime (name, g->page_size, g->channels, g->ways, &pp,
                               err);
  if (r < 0)
    return r;
  if (strcmp (pp.name, f->profile) == 0)
    {
      /* the image's own profile: its format-time overrides hold */
      ftl_timing_for_profile (f->profile, &pp.tm, &f->cfg);
      pp.channel_mbps = f->cfg.channel_mbps;
      pp.paced = pp.paced || f->cfg.pace_real_time;
    }
  f->pace = pp;
  f->nand.op = ftl_pace_default_class (f);
  f->nand.tm = pp.tm;
  f->nand.time_dies = pp.time_dies;
  f->nand.time_channels = pp.time_channels;
  /* start the mapping past every clock, so nothing is in the past's debt */
  uint64_t m = nand_max_clock (&f->nand);
  if (f->now > m)
    m = f->now;
  f->pace_wall0 = ftl_mono_ns ();
  f->pace_virt0 = m;
  pthread_mutex_lock (&f->link_lock);
  f->link_free = m;
  pthread_mutex_unlock (&f->link_lock);
  if (pp.paced)
    f->now = m;
  return 0;
}

int
ftl_set_profile (ftl_t *f, const char *name, ftl_error *err)
{
  if (!name || !*name)
    return ftl_fail (err, -EINVAL, "no drive profile named");
  pthread_mutex_lock (&f->lock);
  int r = ftl_pace_apply (f, name, err);
  pthread_mutex_unlock (&f->lock);
  return r;
}

void
ftl_pace_op_begin (struct ftl *f)
{
  if (f->pace.paced)
    f->now = virt_now (f);
}

struct nand_op_class
ftl_pace_default_class (const struct ftl *f)
{
  /* unpaced nobody sleeps on a completion, so any reservation may move */
  return (struct nand_op_class) { FTL_PRIORITY_DEFAULT, 0, !f->pace.paced };
}

void
ftl_pace_call_begin (struct ftl *f, unsigned prio)
{
  ftl_pace_op_begin (f);
  struct nand_op_class c = ftl_pace_default_class (f);
  c.prio = (uint8_t) (prio > FTL_PRIORITY_MAX ? FTL_PRIORITY_MAX : prio);
  if (f->pace.paced)
    {
      c.ticket = nand_ticket_open (&f->nand.tickets, f->now);
      c.pushable = c.ticket != 0;     /* no ticket: nobody could be told */
    }
  f->nand.op = c;
}

uint64_t
ftl_pace_call_end (struct ftl *f)
{
  uint64_t ticket = f->nand.op.ticket;
  if (ticket)
    nand_ticket_close (&f->nand.tickets, ticket, f->op_done);
  f->nand.op = ftl_pace_default_class (f);
  return ticket;
}

void
ftl_pace_wait_ticket (struct ftl *f, uint64_t ticket)
{
  uint64_t done;
  /* woken at the completion it had, it looks again: pushed back, it
   * sleeps on to the new one */
  while (nand_ticket_done (&f->nand.tickets, ticket, &done))
    {
      uint64_t deadline = ftl_pace_deadline (f, done);
      if (!deadline || deadline <= ftl_mono_ns ())
        return;
      ftl_pace_sleep_until (f, deadline);
    }
}

uint64_t
ftl_pace_deadline (struct ftl *f, uint64_t t)
{
  if (!f->pace.paced || t < f->pace_virt0)
    return 0;
  return t - f->pace_virt0 + f->pace_wall0;
}

void
ftl_pace_sleep_until (struct ftl *f, uint64_t deadline)
{
  if (!deadline)
    return;
  uint64_t now = ftl_mono_ns ();
  if (deadline <= now)
    return;
  struct timespec ts = { (time_t) (deadline / 1000000000ull),
                         (long) (deadline % 1000000000ull) };
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
    ;
  __atomic_add_fetch (&f->pst.sleeps, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&f->pst.sleep_ns, deadline - now, __ATOMIC_RELAXED);
}

uint64_t
ftl_pace_clock (ftl_t *f)
{
  return f->pace.paced ? virt_now (f) : 0;
}

void
ftl_link_transfer (ftl_t *f, uint64_t bytes, uint64_t arrival)
{
  if (!f->pace.paced || !f->pace.link_mbps || !bytes)
    return;
  pthread_mutex_lock (&f->link_lock);
  uint64_t start = arrival > f->link_free ? arrival : f->link_free;
  uint64_t end = start + bytes * 1000ull / f->pace.link_mbps;
  f->link_free = end;
  f->pst.link_bytes += bytes;
  pthread_mutex_unlock (&f->link_lock);
  ftl_pace_sleep_until (f, end - f->pace_virt0 + f->pace_wall0);
}

int
ftl_drop_caches (ftl_t *f, ftl_error *err)
{
  pthread_mutex_lock (&f->lock);
  /* the FTL's own: pages whose data CRC was checked */
  for (uint32_t i = 0; i <= FTL_PV_CACHE; i++)
    f->pv[i].page = UINT64_MAX;
  /* the mapping cache (DFTL modes): its clean entries */
  if (f->cfg.mapping_mode != FTL_MAP_RAM)
    ftl_dftl_drop_clean (f);
  int r = 0;
  struct nand_backend *be = f->nand.be;
  if (be->ops->drop_cache)
    r = be->ops->drop_cache (be);
  if (r == 0)
    f->pst.cache_drops++;
  pthread_mutex_unlock (&f->lock);
  if (r < 0)
    return ftl_fail (err, r, "dropping the image's cached pages failed: %s",
                     strerror (-r));
  return 0;
}
