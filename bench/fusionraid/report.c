/* report.c - latencies (every measured request's, sorted for exact
 * percentiles), the CSV of percentiles per policy and workload, the CDF
 * points for the plots, the text table with the ratios against the fixed
 * RAID-5 groups and RAID-50 measured in the same run, and --json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fr.h"

int
fr_lat_add (struct fr_lat *l, uint64_t ns)
{
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? l->cap * 2 : 4096;
      uint64_t *a = realloc (l->ns, cap * sizeof *a);
      if (!a)
        return -ENOMEM;
      l->ns = a;
      l->cap = cap;
    }
  l->ns[l->n++] = ns;
  l->sorted = false;
  return 0;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

uint64_t
fr_lat_pct (struct fr_lat *l, double p)
{
  if (l->n == 0)
    return 0;
  if (!l->sorted)
    qsort (l->ns, l->n, sizeof *l->ns, cmp_u64);
  l->sorted = true;
  size_t i = (size_t) ceil (p / 100.0 * (double) l->n);
  if (i > 0)
    i--;
  if (i >= l->n)
    i = l->n - 1;
  return l->ns[i];
}

static double
lat_mean (const struct fr_lat *l)
{
  double s = 0;
  for (size_t i = 0; i < l->n; i++)
    s += (double) l->ns[i];
  return l->n ? s / (double) l->n : 0;
}

void
fr_lat_free (struct fr_lat *l)
{
  free (l->ns);
  memset (l, 0, sizeof *l);
}

double
fr_space_overhead (const struct raid_space_usage *u)
{
  return u->data_units ? (double) (u->replica_units + u->parity_units)
    / (double) u->data_units : 0;
}

/* Everything the run's stripes take, per unit of live data: what a
 * compaction of partly dead stripes (not done) would bring back to
 * 1 + 1/(K-1). */
static double
consumption (const struct raid_space_usage *u)
{
  return u->data_units ? (double) (u->data_units + u->replica_units
                                   + u->parity_units + u->dead_units
                                   + u->unused_units) / (double) u->data_units
    : 0;
}

static const char *
wl_label (const struct fr_opts *o, uint32_t w)
{
  return w < o->nwl ? o->wl[w].name : "all";
}

int
fr_report_csv (const struct fr_opts *o, struct fr_result *r, size_t n,
               const char *path)
{
  FILE *f = fopen (path, "w");
  if (!f)
    {
      fprintf (stderr, "fusionraid-sim: cannot write %s: %s\n", path,
               strerror (errno));
      return -errno;
    }
  fprintf (f, "policy,workload,requests,reads,writes,p50_us,p99_us,p999_us,"
           "mean_us,read_p50_us,read_p99_us,write_p50_us,write_p99_us\n");
  for (size_t i = 0; i < n; i++)
    for (uint32_t w = 0; w <= FR_MAX_WL; w++)
      {
        if (w >= o->nwl && w != FR_MAX_WL)
          continue;
        struct fr_lat *l = &r[i].lat[w], *rl = &r[i].rlat[w],
          *wl = &r[i].wlat[w];
        fprintf (f, "%s,%s,%zu,%zu,%zu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,"
                 "%.1f\n", r[i].policy, wl_label (o, w), l->n, rl->n, wl->n,
                 fr_lat_pct (l, 50) / 1e3, fr_lat_pct (l, 99) / 1e3,
                 fr_lat_pct (l, 99.9) / 1e3, lat_mean (l) / 1e3,
                 fr_lat_pct (rl, 50) / 1e3, fr_lat_pct (rl, 99) / 1e3,
                 fr_lat_pct (wl, 50) / 1e3, fr_lat_pct (wl, 99) / 1e3);
      }
  fclose (f);
  return 0;
}

/* Points of the CDF: every 1% to 90%, then denser towards the tail
 * (fraction 1 - 10^(-k/40)), and the maximum. */
int
fr_report_cdf (const struct fr_opts *o, struct fr_result *r, size_t n,
               const char *path)
{
  FILE *f = fopen (path, "w");
  if (!f)
    {
      fprintf (stderr, "fusionraid-sim: cannot write %s: %s\n", path,
               strerror (errno));
      return -errno;
    }
  fprintf (f, "policy,workload,latency_us,fraction\n");
  for (size_t i = 0; i < n; i++)
    for (uint32_t w = 0; w <= FR_MAX_WL; w++)
      {
        if (w >= o->nwl && w != FR_MAX_WL)
          continue;
        struct fr_lat *l = &r[i].lat[w];
        if (!l->n)
          continue;
        fr_lat_pct (l, 50);   /* sorts */
        for (int k = 1; k <= 200; k++)
          {
            double q = k <= 90 ? k / 100.0 : 1 - 0.1 * pow (10, -(k - 90) / 40.0);
            size_t j = (size_t) (q * (double) l->n);
            if (j >= l->n)
              j = l->n - 1;
            fprintf (f, "%s,%s,%.2f,%.6f\n", r[i].policy, wl_label (o, w),
                     l->ns[j] / 1e3, q);
          }
        fprintf (f, "%s,%s,%.2f,1.000000\n", r[i].policy, wl_label (o, w),
                 l->ns[l->n - 1] / 1e3);
      }
  fclose (f);
  return 0;
}

static int
find_policy (struct fr_result *r, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (r[i].policy, name) == 0)
      return (int) i;
  return -1;
}

void
fr_report_text (const struct fr_opts *o, struct fr_result *r, size_t n,
                FILE *out)
{
  fprintf (out, "pool: %u drives of %llu MiB (aged), stripe %u+1, "
           "%u groups for RAID-5/RAID-50; %u workloads, %.2f s measured "
           "after %.2f s\n", o->drives,
           (unsigned long long) (o->drive_bytes >> 20), o->width - 1,
           o->groups, o->nwl, o->seconds, o->warmup_s);
  if (o->nstall)
    {
      fprintf (out, "stalled drives:");
      for (uint32_t i = 0; i < o->nstall; i++)
        fprintf (out, " %u", o->stall_drive[i]);
      fprintf (out, " (%.1f ms every %.1f ms)\n", o->stall_ns / 1e6,
               o->stall_period_ns / 1e6);
    }
  fprintf (out, "\n%-20s %-10s %8s %10s %10s %10s\n", "policy", "workload",
           "requests", "p50_us", "p99_us", "p99.9_us");
  for (size_t i = 0; i < n; i++)
    for (uint32_t w = 0; w <= FR_MAX_WL; w++)
      {
        if (w >= o->nwl && w != FR_MAX_WL)
          continue;
        struct fr_lat *l = &r[i].lat[w];
        fprintf (out, "%-20s %-10s %8zu %10.1f %10.1f %10.1f\n", r[i].policy,
                 wl_label (o, w), l->n, fr_lat_pct (l, 50) / 1e3,
                 fr_lat_pct (l, 99) / 1e3, fr_lat_pct (l, 99.9) / 1e3);
      }
  int fu = find_policy (r, n, "fusionraid");
  const char *base[] = { "raid5-groups", "raid50" };
  for (int b = 0; fu >= 0 && b < 2; b++)
    {
      int bi = find_policy (r, n, base[b]);
      if (bi < 0)
        continue;
      double sum_ratio = 0, sum_red = 0;
      fprintf (out, "\nfusionraid vs %s (same run): P99 ratio (%s / "
               "fusionraid; target >= 10x), median reduction (target >= 40%%)\n",
               base[b], base[b]);
      for (uint32_t w = 0; w <= FR_MAX_WL; w++)
        {
          if (w >= o->nwl && w != FR_MAX_WL)
            continue;
          double p99f = (double) fr_lat_pct (&r[fu].lat[w], 99);
          double p99b = (double) fr_lat_pct (&r[bi].lat[w], 99);
          double p50f = (double) fr_lat_pct (&r[fu].lat[w], 50);
          double p50b = (double) fr_lat_pct (&r[bi].lat[w], 50);
          double ratio = p99f > 0 ? p99b / p99f : 0;
          double red = p50b > 0 ? (1 - p50f / p50b) * 100 : 0;
          fprintf (out, "  %-10s P99 %7.2fx   median %+6.1f%%\n",
                   wl_label (o, w), ratio, red);
          if (w < o->nwl)
            {
              sum_ratio += ratio;
              sum_red += red;
            }
        }
      /* the paper's averages are over workloads (references/002) */
      fprintf (out, "  %-10s P99 %7.2fx   median %+6.1f%%   (mean over the "
               "%u workloads)\n", "mean", sum_ratio / o->nwl,
               sum_red / o->nwl, o->nwl);
    }
  fprintf (out, "\nspace (stripes the run wrote; overhead = (replicas + "
           "parity) / live data; consumption = all units they take / live "
           "data):\n");
  for (size_t i = 0; i < n; i++)
    {
      if (!r[i].has_space)
        {
          fprintf (out, "  %-20s in place: parity overhead %.1f%% (consumption "
                   "%.2fx)\n", r[i].policy, 100.0 / (o->width - 1),
                   1 + 1.0 / (o->width - 1));
          continue;
        }
      const struct raid_space_usage *e = &r[i].space_end, *d = &r[i].space_drained;
      fprintf (out, "  %-20s end of run: overhead %.1f%% (data %llu, replicas "
               "%llu, parity %llu, dead %llu; consumption %.2fx); all "
               "converted: %.1f%% (data %llu, replicas %llu, parity %llu, dead "
               "%llu, unused %llu; consumption %.2fx); superseded in the "
               "preloaded stripes: %llu\n",
               r[i].policy, 100 * fr_space_overhead (e),
               (unsigned long long) e->data_units,
               (unsigned long long) e->replica_units,
               (unsigned long long) e->parity_units,
               (unsigned long long) e->dead_units, consumption (e),
               100 * fr_space_overhead (d),
               (unsigned long long) d->data_units,
               (unsigned long long) d->replica_units,
               (unsigned long long) d->parity_units,
               (unsigned long long) d->dead_units,
               (unsigned long long) d->unused_units, consumption (d),
               (unsigned long long) d->preload_dead_units);
    }
  fprintf (out, "\nengine and drives:\n");
  for (size_t i = 0; i < n; i++)
    {
      const struct raid_engine_stats *s = &r[i].es;
      fprintf (out, "  %-20s drive I/Os r/w/trim %llu/%llu/%llu; rmw %llu "
               "rcw %llu full %llu replicated %llu; redirected reads %llu, "
               "reconstructed %llu, steered writes %llu; conversions %llu; "
               "spikes %llu; GC runs %llu, copies %llu, WAF %.2f; wall %.1fs\n",
               r[i].policy, (unsigned long long) s->io[0],
               (unsigned long long) s->io[1], (unsigned long long) s->io[2],
               (unsigned long long) s->rmw_writes,
               (unsigned long long) s->reconstruct_writes,
               (unsigned long long) s->full_stripe_writes,
               (unsigned long long) s->replicated_writes,
               (unsigned long long) s->reads_other_replica,
               (unsigned long long) s->reads_reconstructed,
               (unsigned long long) s->writes_steered,
               (unsigned long long) s->conversions,
               (unsigned long long) s->spikes,
               (unsigned long long) r[i].ds.gc_runs,
               (unsigned long long) r[i].ds.gc_copies,
               r[i].ds.host_writes ? (double) r[i].ds.nand_programs * 4
               / (double) r[i].ds.host_writes : 0, r[i].wall_s);
    }
}

static void
json_lat (FILE *out, struct fr_lat *l)
{
  fprintf (out, "{\"requests\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f,"
           "\"p999_us\":%.1f,\"mean_us\":%.1f}", l->n,
           fr_lat_pct (l, 50) / 1e3, fr_lat_pct (l, 99) / 1e3,
           fr_lat_pct (l, 99.9) / 1e3, lat_mean (l) / 1e3);
}

static void
json_space (FILE *out, const struct raid_space_usage *u)
{
  fprintf (out, "{\"data_units\":%llu,\"replica_units\":%llu,"
           "\"parity_units\":%llu,\"dead_units\":%llu,\"unused_units\":%llu,"
           "\"preload_dead_units\":%llu,\"overhead\":%.4f,"
           "\"consumption\":%.4f}",
           (unsigned long long) u->data_units,
           (unsigned long long) u->replica_units,
           (unsigned long long) u->parity_units,
           (unsigned long long) u->dead_units,
           (unsigned long long) u->unused_units,
           (unsigned long long) u->preload_dead_units, fr_space_overhead (u),
           consumption (u));
}

void
fr_report_json (const struct fr_opts *o, struct fr_result *r, size_t n,
                FILE *out)
{
  fprintf (out, "{\"drives\":%u,\"width\":%u,\"groups\":%u,"
           "\"drive_bytes\":%llu,\"seconds\":%.3f,\"warmup_s\":%.3f,"
           "\"policies\":[", o->drives, o->width, o->groups,
           (unsigned long long) o->drive_bytes, o->seconds, o->warmup_s);
  for (size_t i = 0; i < n; i++)
    {
      const struct raid_engine_stats *s = &r[i].es;
      fprintf (out, "%s\n {\"policy\":\"%s\",\"workloads\":[", i ? "," : "",
               r[i].policy);
      for (uint32_t w = 0; w < o->nwl; w++)
        {
          fprintf (out, "%s{\"name\":\"%s\",\"generated\":%llu,"
                   "\"completed\":%llu,\"latency\":", w ? "," : "",
                   o->wl[w].name, (unsigned long long) r[i].generated[w],
                   (unsigned long long) r[i].completed[w]);
          json_lat (out, &r[i].lat[w]);
          fprintf (out, "}");
        }
      fprintf (out, "],\"all\":");
      json_lat (out, &r[i].lat[FR_MAX_WL]);
      fprintf (out, ",\"errors\":%llu,\"engine\":{\"reads\":%llu,"
               "\"writes\":%llu,\"done\":%llu,\"io_read\":%llu,"
               "\"io_write\":%llu,\"io_trim\":%llu,\"rmw\":%llu,\"rcw\":%llu,"
               "\"full_stripe\":%llu,\"replicated\":%llu,"
               "\"reads_other_replica\":%llu,\"reads_reconstructed\":%llu,"
               "\"writes_steered\":%llu,\"conversions\":%llu,\"spikes\":%llu},"
               "\"drives\":{\"gc_runs\":%llu,\"gc_copies\":%llu,"
               "\"erases\":%llu,\"max_io_us\":%.1f}",
               (unsigned long long) r[i].errors,
               (unsigned long long) s->user_reads,
               (unsigned long long) s->user_writes,
               (unsigned long long) s->user_done,
               (unsigned long long) s->io[0], (unsigned long long) s->io[1],
               (unsigned long long) s->io[2],
               (unsigned long long) s->rmw_writes,
               (unsigned long long) s->reconstruct_writes,
               (unsigned long long) s->full_stripe_writes,
               (unsigned long long) s->replicated_writes,
               (unsigned long long) s->reads_other_replica,
               (unsigned long long) s->reads_reconstructed,
               (unsigned long long) s->writes_steered,
               (unsigned long long) s->conversions,
               (unsigned long long) s->spikes,
               (unsigned long long) r[i].ds.gc_runs,
               (unsigned long long) r[i].ds.gc_copies,
               (unsigned long long) r[i].ds.erases, r[i].ds.max_io_ns / 1e3);
      if (r[i].has_space)
        {
          fprintf (out, ",\"space_end\":");
          json_space (out, &r[i].space_end);
          fprintf (out, ",\"space_all_converted\":");
          json_space (out, &r[i].space_drained);
        }
      else
        fprintf (out, ",\"space_parity_overhead\":%.4f", 1.0 / (o->width - 1));
      fprintf (out, ",\"wall_s\":%.2f}", r[i].wall_s);
    }
  fprintf (out, "]}\n");
}
