/* ftl_stats.c - statistics: counters, WAF, mapping-cache figures, erase
 * count spread and latency histograms (log-linear buckets, 8 per power of
 * two) in virtual time. */
#include "ftl_internal.h"

static uint32_t
lat_bucket (uint64_t ns)
{
  if (ns < 16)
    return (uint32_t) ns;
  uint32_t msb = 63 - (uint32_t) __builtin_clzll (ns);
  return msb * 8 + (uint32_t) ((ns >> (msb - 3)) & 7);
}

static uint64_t
lat_value (uint32_t idx)
{
  if (idx < 16)
    return idx;
  uint32_t msb = idx / 8, sub = idx % 8;
  return (uint64_t) (8 + sub) << (msb - 3);
}

void
ftl_lat_record (struct lat_hist *h, uint64_t ns)
{
  h->b[lat_bucket (ns)]++;
  h->n++;
}

uint64_t
ftl_lat_percentile (const struct lat_hist *h, double q)
{
  if (!h->n)
    return 0;
  uint64_t want = (uint64_t) (q * (double) h->n);
  if (want >= h->n)
    want = h->n - 1;
  uint64_t acc = 0;
  for (uint32_t i = 0; i < LAT_BUCKETS; i++)
    {
      acc += h->b[i];
      if (acc > want)
        return lat_value (i);
    }
  return lat_value (LAT_BUCKETS - 1);
}

int
ftl_get_stats (ftl_t *f, struct ftl_stats *st, ftl_error *err)
{
  pthread_mutex_lock (&f->lock);
  const struct nand_geometry *g = &f->nand.geo;
  memset (st, 0, sizeof *st);
  st->host_reads = f->st.host_reads;
  st->host_writes = f->st.host_writes;
  st->host_read_bytes = f->st.host_read_bytes;
  st->host_write_bytes = f->st.host_write_bytes;
  st->nand_reads = f->nand.reads - f->st.nand_reads0;
  st->nand_programs = f->nand.programs - f->st.nand_programs0;
  st->nand_erases = f->nand.erases - f->st.nand_erases0;
  st->gc_valid_copies = f->st.gc_valid_copies;
  st->gc_corrupt_copies = f->st.gc_corrupt_copies;
  st->gc_layout_kept_pages = f->st.gc_layout_kept_pages;
  st->gc_layout_moved_pages = f->st.gc_layout_moved_pages;
  st->wl_migrations = f->st.wl_migrations;
  st->gc_runs = f->st.gc_runs;
  st->map_cache_hits = f->st.map_hits;
  st->map_cache_misses = f->st.map_misses;
  st->map_cache_evictions = f->st.map_evictions;
  st->map_reads = f->st.map_reads;
  st->map_writes = f->st.map_writes;
  st->waf = st->host_writes
    ? (double) st->nand_programs * g->spp / (double) st->host_writes : 0;
  st->nand_reads_per_host_read = f->st.host_reads
    ? (double) f->st.nand_reads_for_host / (double) f->st.host_reads : 0;
  st->max_nand_reads_per_host_read = f->st.max_nand_reads_per_host_read;
  uint64_t sum = 0, n = 0;
  st->erase_count_min = UINT64_MAX;
  for (uint32_t b = 0; b < g->total_blocks; b++)
    {
      if (f->blk[b].state == BLK_BAD)
        continue;
      uint64_t e = f->blk[b].erase_count;
      sum += e;
      n++;
      if (e < st->erase_count_min)
        st->erase_count_min = e;
      if (e > st->erase_count_max)
        st->erase_count_max = e;
    }
  if (!n)
    st->erase_count_min = 0;
  st->erase_count_mean = n ? (double) sum / (double) n : 0;
  st->bad_blocks = f->bad_blocks;
  st->free_blocks = f->free_blocks;
  uint64_t vt = nand_max_clock (&f->nand);
  st->virtual_time_ns = vt > f->now ? vt : f->now;
  st->read_lat_p50 = ftl_lat_percentile (&f->read_lat, 0.50);
  st->read_lat_p99 = ftl_lat_percentile (&f->read_lat, 0.99);
  st->read_lat_p999 = ftl_lat_percentile (&f->read_lat, 0.999);
  st->write_lat_p50 = ftl_lat_percentile (&f->write_lat, 0.50);
  st->write_lat_p99 = ftl_lat_percentile (&f->write_lat, 0.99);
  st->write_lat_p999 = ftl_lat_percentile (&f->write_lat, 0.999);
  for (uint32_t d = 0; d < g->dies; d++)
    if (f->nand.die_busy[d] > st->busiest_die_ns)
      st->busiest_die_ns = f->nand.die_busy[d];
  for (uint32_t c = 0; c < g->channels; c++)
    if (f->nand.chan_busy[c] > st->busiest_channel_ns)
      st->busiest_channel_ns = f->nand.chan_busy[c];
  st->pace_sleeps = __atomic_load_n (&f->pst.sleeps, __ATOMIC_RELAXED);
  st->pace_sleep_ns = __atomic_load_n (&f->pst.sleep_ns, __ATOMIC_RELAXED);
  st->cache_drops = f->pst.cache_drops;
  st->relocated_sectors = f->st.relocated_sectors;
  st->qos_overtakes = f->nand.qc.overtakes;
  st->qos_pushes = f->nand.qc.pushes;
  st->qos_bound_hits = f->nand.qc.bound_hits;
  memcpy (st->nand_ops_by_prio, f->nand.ops_by_prio, sizeof st->nand_ops_by_prio);
  pthread_mutex_unlock (&f->lock);
  pthread_mutex_lock (&f->link_lock);
  st->link_bytes = f->pst.link_bytes;
  pthread_mutex_unlock (&f->link_lock);
  return 0;
}

void
ftl_reset_stats (ftl_t *f)
{
  pthread_mutex_lock (&f->lock);
  memset (&f->st, 0, sizeof f->st);
  f->st.nand_reads0 = f->nand.reads;
  f->st.nand_programs0 = f->nand.programs;
  f->st.nand_erases0 = f->nand.erases;
  memset (&f->read_lat, 0, sizeof f->read_lat);
  memset (&f->write_lat, 0, sizeof f->write_lat);
  memset (f->nand.die_busy, 0, f->nand.geo.dies * sizeof (uint64_t));
  memset (f->nand.chan_busy, 0, f->nand.geo.channels * sizeof (uint64_t));
  memset (&f->nand.qc, 0, sizeof f->nand.qc);
  memset (f->nand.ops_by_prio, 0, sizeof f->nand.ops_by_prio);
  __atomic_store_n (&f->pst.sleeps, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&f->pst.sleep_ns, 0, __ATOMIC_RELAXED);
  pthread_mutex_unlock (&f->lock);
  pthread_mutex_lock (&f->link_lock);
  f->pst.link_bytes = 0;
  pthread_mutex_unlock (&f->link_lock);
}
