/* report.c - ftl-sim output: the CSV time series (one row per window of
 * host requests: WAF, erases, GC copies, mapping traffic, throughput in
 * virtual time), the read-latency CDF and the --json summary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct report
{
  FILE *f;
  uint64_t every, since;
  uint64_t row;
  struct ftl_stats prev;
  uint64_t erases_total;      /* across ftl_reset_stats */
  double wall_prev;
};

static const char *
label_of (const struct sim *s)
{
  return s->o->label ? s->o->label : wl_name (s->o->wl);
}

int
report_open (struct sim *s, const char *csv_path)
{
  struct report *r = calloc (1, sizeof *r);
  if (!r)
    return -ENOMEM;
  r->every = s->o->sample_ops ? s->o->sample_ops
    : (s->cap_sectors / 16 > 1000 ? s->cap_sectors / 16 : 1000);
  r->wall_prev = sim_wall ();
  if (csv_path)
    {
      r->f = fopen (csv_path, "w");
      if (!r->f)
        {
          int e = errno;
          fprintf (stderr, "ftl-sim: cannot write %s: %s\n", csv_path,
                   strerror (e));
          free (r);
          return -e;
        }
      fprintf (r->f, "label,phase,row,host_mib_written,vt_s,wall_s,waf_win,"
               "waf_phase,erases_total,erases_win,gc_copies_win,map_reads_win,"
               "map_writes_win,free_blocks,write_mbps_vt,read_mbps_vt,"
               "kiops_vt,wall_kops_per_s\n");
    }
  s->rep = r;
  int rc = sim_stats (s, &r->prev);
  return rc;
}

void
report_rebase (struct sim *s)
{
  struct report *r = s->rep;
  if (r)
    sim_stats (s, &r->prev);
}

void
report_sample (struct sim *s, bool force)
{
  struct report *r = s->rep;
  if (!r)
    return;
  if (!force && ++r->since < r->every)
    return;
  if (force && r->since == 0)
    return;
  uint64_t ops = r->since;
  r->since = 0;
  struct ftl_stats st;
  if (sim_stats (s, &st) < 0)
    return;
  const struct ftl_stats *p = &r->prev;
  double spp = (double) s->info.page_size / SIM_SECTOR;
  uint64_t hw = st.host_writes - p->host_writes;
  uint64_t hr = st.host_reads - p->host_reads;
  uint64_t prog = st.nand_programs - p->nand_programs;
  uint64_t er = st.nand_erases - p->nand_erases;
  r->erases_total += er;
  double dvt = (double) (st.virtual_time_ns - p->virtual_time_ns) * 1e-9;
  double now = sim_wall ();
  double dw = now - r->wall_prev;
  r->wall_prev = now;
  if (r->f)
    {
      fprintf (r->f, "%s,%s,%llu,%.3f,%.6f,%.3f,%.4f,%.4f,%llu,%llu,%llu,"
               "%llu,%llu,%llu,%.2f,%.2f,%.3f,%.1f\n",
               label_of (s), s->phase, (unsigned long long) r->row,
               (double) s->c.write_bytes / 1048576.0,
               (double) (st.virtual_time_ns - s->vt0) * 1e-9,
               now - s->wall0, hw ? prog * spp / (double) hw : 0, st.waf,
               (unsigned long long) r->erases_total,
               (unsigned long long) er,
               (unsigned long long) (st.gc_valid_copies - p->gc_valid_copies),
               (unsigned long long) (st.map_reads - p->map_reads),
               (unsigned long long) (st.map_writes - p->map_writes),
               (unsigned long long) st.free_blocks,
               dvt > 0 ? hw * SIM_SECTOR / 1e6 / dvt : 0,
               dvt > 0 ? hr * SIM_SECTOR / 1e6 / dvt : 0,
               dvt > 0 ? ops / dvt / 1e3 : 0,
               dw > 0 ? ops / dw / 1e3 : 0);
    }
  r->row++;
  r->prev = st;
}

void
report_close (struct sim *s)
{
  struct report *r = s->rep;
  if (!r)
    return;
  report_sample (s, true);
  if (r->f)
    fclose (r->f);
  free (r);
  s->rep = NULL;
}

int
report_cdf (struct sim *s, const char *path)
{
  enum { CAP = 4096 };
  uint64_t *val = calloc (CAP, sizeof *val), *cnt = calloc (CAP, sizeof *cnt);
  FILE *f = fopen (path, "w");
  int rc = 0;
  if (!val || !cnt || !f)
    {
      rc = f ? -ENOMEM : -errno;
      fprintf (stderr, "ftl-sim: cannot write %s: %s\n", path, strerror (-rc));
      goto out;
    }
  size_t n = sim_read_latency_hist (s->ftl, val, cnt, CAP);
  uint64_t total = 0, acc = 0;
  for (size_t i = 0; i < n; i++)
    total += cnt[i];
  fprintf (f, "label,read_latency_us,cdf\n");
  for (size_t i = 0; i < n; i++)
    {
      acc += cnt[i];
      fprintf (f, "%s,%.3f,%.6f\n", label_of (s), (double) val[i] / 1e3,
               total ? (double) acc / (double) total : 0);
    }
out:
  if (f)
    fclose (f);
  free (val);
  free (cnt);
  return rc;
}

void
report_json (struct sim *s, FILE *out, double wall_s, uint64_t rss0,
             uint64_t rss1)
{
  struct ftl_stats st;
  if (sim_stats (s, &st) < 0)
    return;
  const struct ftl_device_info *in = &s->info;
  const struct sim_opts *o = s->o;
  double raw = (double) in->channels * in->ways * in->planes
    * in->blocks_per_plane * in->pages_per_block * in->page_size;
  double cap = (double) in->capacity_bytes;
  double vt = (double) (st.virtual_time_ns - s->vt0) * 1e-9;
  uint64_t hops = (s->c.reads - s->c0.reads) + (s->c.writes - s->c0.writes);
  uint64_t wb = s->c.write_bytes - s->c0.write_bytes;
  uint64_t rb = s->c.read_bytes - s->c0.read_bytes;
  double mwall = sim_wall () - s->wall_m0;
  uint64_t sect = st.host_reads + st.host_writes;
  fprintf (out, "{\"label\":\"%s\",\"workload\":\"%s\",\n", label_of (s),
           wl_name (o->wl));
  fprintf (out, " \"device\":{\"profile\":\"%s\",\"channels\":%u,\"ways\":%u,"
           "\"planes\":%u,\"blocks_per_plane\":%u,\"pages_per_block\":%u,"
           "\"page_size\":%u,\"raw_bytes\":%.0f,\"capacity_bytes\":%.0f,"
           "\"over_provisioning\":%.4f,\"spare_per_user\":%.4f,"
           "\"mapping\":\"%s\",\"cache_fraction\":%.3f,\"alloc\":\"%s\","
           "\"gc\":\"%s\"},\n", in->profile, in->channels, in->ways,
           in->planes, in->blocks_per_plane, in->pages_per_block,
           in->page_size, raw, cap, in->over_provisioning,
           cap > 0 ? (raw - cap) / cap : 0,
           ftl_mapping_mode_name (in->mapping_mode),
           o->cfg.mapping_cache_fraction, ftl_alloc_policy_name (in->alloc_policy),
           ftl_gc_policy_name (in->gc_policy));
  fprintf (out, " \"precondition\":{\"done\":%s,\"rounds\":%u,\"steady\":%s,"
           "\"waf_last_round\":%.4f},\n", o->precondition ? "true" : "false",
           s->pre_rounds, s->pre_steady ? "true" : "false", s->pre_waf);
  fprintf (out, " \"host\":{\"reads\":%llu,\"writes\":%llu,\"creates\":%llu,"
           "\"removes\":%llu,\"attr_updates\":%llu,\"read_bytes\":%llu,"
           "\"write_bytes\":%llu,"
           "\"enospc\":%llu},\n",
           (unsigned long long) (s->c.reads - s->c0.reads),
           (unsigned long long) (s->c.writes - s->c0.writes),
           (unsigned long long) (s->c.creates - s->c0.creates),
           (unsigned long long) (s->c.removes - s->c0.removes),
           (unsigned long long) (s->c.attr_updates - s->c0.attr_updates),
           (unsigned long long) rb, (unsigned long long) wb,
           (unsigned long long) (s->c.enospc - s->c0.enospc));
  fprintf (out, " \"ftl\":{\"host_read_sectors\":%llu,"
           "\"host_write_sectors\":%llu,\"nand_reads\":%llu,"
           "\"nand_programs\":%llu,\"erases\":%llu,\"gc_valid_copies\":%llu,"
           "\"gc_runs\":%llu,\"map_hits\":%llu,\"map_misses\":%llu,"
           "\"map_evictions\":%llu,\"map_reads\":%llu,\"map_writes\":%llu,"
           "\"waf\":%.4f,\"nand_reads_per_host_read\":%.4f,"
           "\"max_nand_reads_per_host_read\":%llu,\"erase_min\":%llu,"
           "\"erase_max\":%llu,\"free_blocks\":%llu},\n",
           (unsigned long long) st.host_reads,
           (unsigned long long) st.host_writes,
           (unsigned long long) st.nand_reads,
           (unsigned long long) st.nand_programs,
           (unsigned long long) st.nand_erases,
           (unsigned long long) st.gc_valid_copies,
           (unsigned long long) st.gc_runs,
           (unsigned long long) st.map_cache_hits,
           (unsigned long long) st.map_cache_misses,
           (unsigned long long) st.map_cache_evictions,
           (unsigned long long) st.map_reads,
           (unsigned long long) st.map_writes, st.waf,
           st.nand_reads_per_host_read,
           (unsigned long long) st.max_nand_reads_per_host_read,
           (unsigned long long) st.erase_count_min,
           (unsigned long long) st.erase_count_max,
           (unsigned long long) st.free_blocks);
  fprintf (out, " \"virtual\":{\"seconds\":%.6f,\"kiops\":%.3f,"
           "\"write_mbps\":%.2f,\"read_mbps\":%.2f,\"read_p50_us\":%.2f,"
           "\"read_p99_us\":%.2f,\"read_p999_us\":%.2f,\"write_p50_us\":%.2f,"
           "\"write_p99_us\":%.2f,\"write_p999_us\":%.2f},\n", vt,
           vt > 0 ? hops / vt / 1e3 : 0, vt > 0 ? wb / vt / 1e6 : 0,
           vt > 0 ? rb / vt / 1e6 : 0, st.read_lat_p50 / 1e3,
           st.read_lat_p99 / 1e3, st.read_lat_p999 / 1e3,
           st.write_lat_p50 / 1e3, st.write_lat_p99 / 1e3,
           st.write_lat_p999 / 1e3);
  /* a saturated drive (deep queue, perfect scheduling) is as fast as its
   * busiest die or channel allows (bottleneck law) */
  double busy = (double) (st.busiest_die_ns > st.busiest_channel_ns
                          ? st.busiest_die_ns : st.busiest_channel_ns) * 1e-9;
  fprintf (out, " \"saturated\":{\"kiops\":%.3f,\"write_mbps\":%.2f,"
           "\"read_mbps\":%.2f,\"busiest_die_s\":%.6f,"
           "\"busiest_channel_s\":%.6f},\n", busy > 0 ? hops / busy / 1e3 : 0,
           busy > 0 ? wb / busy / 1e6 : 0, busy > 0 ? rb / busy / 1e6 : 0,
           st.busiest_die_ns * 1e-9, st.busiest_channel_ns * 1e-9);
  fprintf (out, " \"trace\":{\"records\":%llu,\"reads\":%llu,\"writes\":%llu,"
           "\"wrapped\":%llu,\"skipped\":%llu},\n",
           (unsigned long long) s->trace_records,
           (unsigned long long) s->trace_reads,
           (unsigned long long) s->trace_writes,
           (unsigned long long) s->trace_wrapped,
           (unsigned long long) s->trace_skipped);
  fprintf (out, " \"sim\":{\"wall_s\":%.3f,\"measured_wall_s\":%.3f,"
           "\"sector_ops_per_wall_s\":%.0f,\"requests_per_wall_s\":%.0f,"
           "\"internal_sector_ops_per_wall_s\":%.0f,"
           "\"rss_before_kib\":%llu,\"rss_after_kib\":%llu,"
           "\"mib_rss_per_raw_gib\":%.3f}}\n", wall_s, mwall,
           mwall > 0 ? sect / mwall : 0, mwall > 0 ? hops / mwall : 0,
           mwall > 0 ? (sect + st.gc_valid_copies) / mwall : 0,
           (unsigned long long) rss0, (unsigned long long) rss1,
           raw > 0 ? ((double) rss1 - (double) rss0) / 1024.0
           / (raw / 1073741824.0) : 0);
}
