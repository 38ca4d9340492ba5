/* raid_monitor.c - per-drive latency monitor and spike detector
 * (ossd_raid.h, "latency monitor").  It sees only what the engine already
 * has: the submit time of each I/O and its completion, so it costs no I/O
 * and needs no knowledge of the drive's insides (FusionRAID's light-weight
 * detection).  See the header for the rule; the parameters' defaults are
 * in raid_monitor_defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossd_raid.h"

struct drive_mon
{
  double ewma;                /* ns; 0 = no sample yet */
  uint64_t *out;              /* submit times of outstanding I/Os */
  uint32_t nout, capout;
  bool spike;
  uint64_t spike_since, last_busy;
  uint64_t spikes;
};

struct raid_monitor
{
  struct raid_monitor_params p;
  uint32_t n;
  struct drive_mon *d;
  uint64_t median;
  uint32_t since_median;
  double *scratch;
};

void
raid_monitor_defaults (struct raid_monitor_params *p)
{
  p->alpha = 0.125;
  p->k_on = 4;
  p->k_off = 2;
  p->floor_ns = 400000;
  p->hold_ns = 2000000;
  p->median_every = 32;
}

int
raid_monitor_create (uint32_t drives, const struct raid_monitor_params *p,
                     struct raid_monitor **out, raid_error *err)
{
  if (drives == 0 || p->alpha <= 0 || p->alpha > 1 || p->k_off > p->k_on
      || p->k_off < 1)
    {
      if (err)
        snprintf (err->msg, sizeof err->msg, "latency monitor: need drives "
                  "> 0, 0 < alpha <= 1, 1 <= k_off <= k_on");
      return -EINVAL;
    }
  struct raid_monitor *m = calloc (1, sizeof *m);
  if (m)
    {
      m->d = calloc (drives, sizeof *m->d);
      m->scratch = calloc (drives, sizeof *m->scratch);
    }
  if (!m || !m->d || !m->scratch)
    {
      raid_monitor_destroy (m);
      if (err)
        snprintf (err->msg, sizeof err->msg, "latency monitor: out of memory");
      return -ENOMEM;
    }
  m->p = *p;
  if (!m->p.median_every)
    m->p.median_every = 1;
  m->n = drives;
  *out = m;
  return 0;
}

void
raid_monitor_destroy (struct raid_monitor *m)
{
  if (!m)
    return;
  for (uint32_t i = 0; m->d && i < m->n; i++)
    free (m->d[i].out);
  free (m->d);
  free (m->scratch);
  free (m);
}

void
raid_monitor_submit (struct raid_monitor *m, uint32_t drive, uint64_t t)
{
  struct drive_mon *d = &m->d[drive];
  if (d->nout == d->capout)
    {
      uint32_t cap = d->capout ? d->capout * 2 : 16;
      uint64_t *q = realloc (d->out, cap * sizeof *q);
      if (!q)
        return;               /* the age check just sees fewer I/Os */
      d->out = q;
      d->capout = cap;
    }
  d->out[d->nout++] = t;
  d->last_busy = t;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
update_median (struct raid_monitor *m)
{
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->n; i++)
    if (m->d[i].ewma > 0)
      m->scratch[k++] = m->d[i].ewma;
  if (k == 0)
    return;
  qsort (m->scratch, k, sizeof *m->scratch, cmp_double);
  m->median = (uint64_t) m->scratch[k / 2];
}

void
raid_monitor_complete (struct raid_monitor *m, uint32_t drive,
                       uint64_t t_submit, uint64_t t_done)
{
  struct drive_mon *d = &m->d[drive];
  for (uint32_t i = 0; i < d->nout; i++)
    if (d->out[i] == t_submit)
      {
        d->out[i] = d->out[--d->nout];
        break;
      }
  double lat = t_done > t_submit ? (double) (t_done - t_submit) : 0;
  d->ewma = d->ewma > 0 ? d->ewma + m->p.alpha * (lat - d->ewma) : lat + 1;
  d->last_busy = t_done;
  if (++m->since_median >= m->p.median_every || m->median == 0)
    {
      m->since_median = 0;
      update_median (m);
    }
}

static uint64_t
oldest_age (const struct drive_mon *d, uint64_t now)
{
  uint64_t oldest = UINT64_MAX;
  for (uint32_t i = 0; i < d->nout; i++)
    if (d->out[i] < oldest)
      oldest = d->out[i];
  return oldest == UINT64_MAX || oldest > now ? 0 : now - oldest;
}

bool
raid_monitor_in_spike (struct raid_monitor *m, uint32_t drive, uint64_t now)
{
  struct drive_mon *d = &m->d[drive];
  uint64_t age = oldest_age (d, now);
  uint64_t score = (uint64_t) d->ewma > age ? (uint64_t) d->ewma : age;
  uint64_t on = (uint64_t) (m->p.k_on * (double) m->median);
  uint64_t off = (uint64_t) (m->p.k_off * (double) m->median);
  if (on < m->p.floor_ns)
    on = m->p.floor_ns;
  if (off < m->p.floor_ns / 2)
    off = m->p.floor_ns / 2;
  if (!d->spike)
    {
      if (score > on)
        {
          d->spike = true;
          d->spike_since = now;
          d->spikes++;
        }
    }
  else if (score < off)
    d->spike = false;
  else if (d->nout == 0 && now > d->last_busy
           && now - d->last_busy >= m->p.hold_ns)
    {
      /* avoided and idle: nothing will lower its EWMA, so start afresh */
      d->spike = false;
      d->ewma = (double) m->median;
    }
  return d->spike;
}

uint32_t
raid_monitor_pick (struct raid_monitor *m, uint32_t a, uint32_t b,
                   uint64_t now)
{
  bool sa = raid_monitor_in_spike (m, a, now);
  bool sb = raid_monitor_in_spike (m, b, now);
  if (sa != sb)
    return sa ? b : a;
  if (m->d[a].nout != m->d[b].nout)
    return m->d[a].nout < m->d[b].nout ? a : b;
  return m->d[b].ewma < m->d[a].ewma ? b : a;
}

uint32_t
raid_monitor_outstanding (const struct raid_monitor *m, uint32_t drive)
{
  return m->d[drive].nout;
}

uint64_t
raid_monitor_ewma (const struct raid_monitor *m, uint32_t drive)
{
  return (uint64_t) m->d[drive].ewma;
}

uint64_t
raid_monitor_median (const struct raid_monitor *m)
{
  return m->median;
}

uint64_t
raid_monitor_spikes (const struct raid_monitor *m, uint32_t drive)
{
  return m->d[drive].spikes;
}
