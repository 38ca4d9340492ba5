/* workloads.c - the block workloads that co-run on the pool, one volume
 * each: generated mixes of our own shaped like the ones FusionRAID ran
 * (references/002: YCSB-A and YCSB-B on RocksDB, the SPC Exchange trace),
 * and replay of MSR Cambridge CSV traces (bench/ftl-sim's parser).
 *
 * Generated arrivals are bursty, as the paper found real ones to be: ON
 * periods (exponential, mean 10 ms) at burst x the mean rate, OFF periods
 * (mean 10 (burst - 1) ms) with none, so the mean rate is --iops and two
 * workloads' bursts rarely coincide.  burst = 1 is plain Poisson.
 *
 *   ycsb-a    50% 4 KiB reads, 40% 4 KiB updates (Zipf 0.99 over the
 *             volume), 10% 64 KiB sequential writes (memtable flushes)
 *   ycsb-b    95% reads, 4% updates, 1% 64 KiB sequential writes
 *   exchange  40% reads; 4/8/16/32/64 KiB (30/40/10/10/10%), 80% of the
 *             requests in a hot 20% of the volume
 *   msr:FILE  the trace's requests at its own times (/ --trace-speed),
 *             offsets modulo the volume
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fr.h"

#define ON_MEAN_NS 10000000.0

const char *
fr_wl_kind_name (enum fr_wl_kind k)
{
  switch (k)
    {
    case FR_WL_YCSB_A: return "ycsb-a";
    case FR_WL_YCSB_B: return "ycsb-b";
    case FR_WL_EXCHANGE: return "exchange";
    case FR_WL_MSR: return "msr";
    }
  return "?";
}

/* NAME[:IOPS] or msr:FILE[:NAME] */
int
fr_wl_parse (const char *text, struct fr_wl_spec *out)
{
  memset (out, 0, sizeof *out);
  char buf[512];
  snprintf (buf, sizeof buf, "%s", text);
  char *colon = strchr (buf, ':');
  if (colon)
    *colon++ = 0;
  static const enum fr_wl_kind kinds[] = { FR_WL_YCSB_A, FR_WL_YCSB_B,
                                           FR_WL_EXCHANGE, FR_WL_MSR };
  for (size_t i = 0; i < 4; i++)
    if (strcmp (buf, fr_wl_kind_name (kinds[i])) == 0)
      {
        out->kind = kinds[i];
        snprintf (out->name, sizeof out->name, "%s", buf);
        if (kinds[i] == FR_WL_MSR)
          {
            if (!colon || !*colon)
              break;
            char *name = strchr (colon, ':');
            if (name)
              *name++ = 0;
            out->trace = strdup (colon);
            if (name && *name)
              snprintf (out->name, sizeof out->name, "%s", name);
            return 0;
          }
        out->iops = colon ? atof (colon) : 2000;
        if (out->iops <= 0)
          break;
        return 0;
      }
  fprintf (stderr, "fusionraid-sim: workload '%s': expected ycsb-a[:IOPS], "
           "ycsb-b[:IOPS], exchange[:IOPS] or msr:FILE[:NAME]\n", text);
  return -EINVAL;
}

static double
rnd01 (struct fr_wl *w)
{
  return (double) (splitmix64 (&w->rng) >> 11) * (1.0 / 9007199254740992.0);
}

static double
rnd_exp (struct fr_wl *w, double mean)
{
  return -mean * log (1 - rnd01 (w));
}

int
fr_wl_open (struct fr_wl *w, const struct fr_wl_spec *spec, uint32_t vol,
            uint64_t vol_units, uint64_t seed)
{
  memset (w, 0, sizeof *w);
  w->spec = *spec;
  w->vol = vol;
  w->vol_units = vol_units;
  w->rng = seed * 0x9e3779b97f4a7c15ull + vol + 1;
  w->on = true;
  w->phase_end = (uint64_t) rnd_exp (w, ON_MEAN_NS);
  if (spec->kind == FR_WL_MSR)
    {
      w->f = fopen (spec->trace, "r");
      if (!w->f)
        {
          int e = errno;
          fprintf (stderr, "fusionraid-sim: cannot open trace %s: %s\n",
                   spec->trace, strerror (e));
          return -e;
        }
      return 0;
    }
  if (spec->kind != FR_WL_EXCHANGE)
    return zipf_init (&w->z, vol_units, 0.99);
  return 0;
}

void
fr_wl_close (struct fr_wl *w)
{
  if (w->f)
    fclose (w->f);
  w->f = NULL;
}

/* The next arrival of the ON/OFF process after t. */
static uint64_t
next_arrival (struct fr_wl *w, const struct fr_opts *o, uint64_t t)
{
  double burst = o->burst < 1 ? 1 : o->burst;
  double rate_on = w->spec.iops * burst / 1e9;   /* per ns */
  for (;;)
    {
      if (w->on)
        {
          uint64_t a = t + (uint64_t) rnd_exp (w, 1 / rate_on) + 1;
          if (burst == 1 || a < w->phase_end)
            return a;
          t = w->phase_end;
          w->on = false;
          w->phase_end = t + (uint64_t) rnd_exp (w, ON_MEAN_NS * (burst - 1));
        }
      else
        {
          if (t < w->phase_end)
            t = w->phase_end;
          w->on = true;
          w->phase_end = t + (uint64_t) rnd_exp (w, ON_MEAN_NS);
        }
    }
}

static void
seq_write (struct fr_wl *w, struct fr_request *rq, uint32_t units)
{
  if (w->seq_next + units > w->vol_units)
    w->seq_next = 0;
  rq->write = true;
  rq->unit = w->seq_next;
  rq->units = units;
  w->seq_next += units;
}

static void
place (struct fr_wl *w, struct fr_request *rq, uint64_t unit, uint32_t units)
{
  if (units > w->vol_units)
    units = (uint32_t) w->vol_units;
  if (unit + units > w->vol_units)
    unit = w->vol_units - units;
  rq->unit = unit;
  rq->units = units;
}

static bool
msr_next (struct fr_wl *w, const struct fr_opts *o, struct fr_request *rq)
{
  char line[512];
  struct msr_rec r;
  while (!w->eof)
    {
      if (!fgets (line, sizeof line, w->f))
        {
          w->eof = true;
          break;
        }
      if (!msr_parse_line (line, &r) || r.size == 0)
        continue;
      if (!w->ts0)
        w->ts0 = r.ts;
      double speed = o->trace_speed > 0 ? o->trace_speed : 1;
      rq->t = (uint64_t) ((double) (r.ts > w->ts0 ? r.ts - w->ts0 : 0)
                          * 100.0 / speed) + 1;
      rq->write = r.write;
      uint64_t units = (r.size + FR_UNIT - 1) / FR_UNIT;
      place (w, rq, (r.off / FR_UNIT) % w->vol_units,
             (uint32_t) (units > 256 ? 256 : units));
      return true;
    }
  return false;
}

bool
fr_wl_next (struct fr_wl *w, const struct fr_opts *o, uint64_t after,
            struct fr_request *rq)
{
  memset (rq, 0, sizeof *rq);
  if (w->spec.kind == FR_WL_MSR)
    {
      if (!msr_next (w, o, rq))
        return false;
      if (rq->t <= after)
        rq->t = after + 1;
      return true;
    }
  rq->t = next_arrival (w, o, after);
  double x = rnd01 (w);
  switch (w->spec.kind)
    {
    case FR_WL_YCSB_A:
    case FR_WL_YCSB_B:
      {
        double rd = w->spec.kind == FR_WL_YCSB_A ? 0.50 : 0.95;
        double up = w->spec.kind == FR_WL_YCSB_A ? 0.90 : 0.99;
        if (x >= up)
          seq_write (w, rq, 16);
        else
          {
            rq->write = x >= rd;
            place (w, rq, zipf_pick (&w->z, rnd01 (w)), 1);
          }
        break;
      }
    case FR_WL_EXCHANGE:
      {
        static const uint32_t sz[] = { 1, 2, 4, 8, 16 };
        static const double cum[] = { 0.30, 0.70, 0.80, 0.90, 1.0 };
        double y = rnd01 (w);
        uint32_t units = 16;
        for (int i = 0; i < 5; i++)
          if (y < cum[i])
            {
              units = sz[i];
              break;
            }
        rq->write = x >= 0.40;
        uint64_t hot = w->vol_units / 5;
        uint64_t u = rnd01 (w) < 0.8 ? (uint64_t) (rnd01 (w) * (double) hot)
          : (uint64_t) (rnd01 (w) * (double) w->vol_units);
        place (w, rq, u / units * units, units);
        break;
      }
    default:
      return false;
    }
  return true;
}
