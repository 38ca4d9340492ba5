/* latency_hist.c - export the FTL's read-latency histogram for the CDF.
 *
 * ossd_ftl.h only exposes p50/p99/p99.9; a CDF needs every bucket.  This
 * is the one file of ftl-sim that reads FTL internals (ftl_internal.h,
 * struct lat_hist: log-linear buckets, 8 per power of two, virtual ns).
 * It reads under the FTL lock and changes nothing.  If the public API
 * grows a histogram call, this file is what to replace.
 */
#include "ftl_internal.h"
#include "sim.h"

static uint64_t
bucket_upper (uint32_t idx)
{
  /* upper edge of bucket idx (see lat_bucket in ftl/ftl_stats.c) */
  if (idx < 16)
    return idx + 1;
  uint32_t msb = idx / 8, sub = idx % 8;
  return (uint64_t) (9 + sub) << (msb - 3);
}

size_t
sim_read_latency_hist (ftl_t *ftl, uint64_t *val, uint64_t *cnt, size_t cap)
{
  struct ftl *f = ftl;
  size_t n = 0;
  pthread_mutex_lock (&f->lock);
  for (uint32_t i = 0; i < LAT_BUCKETS && n < cap; i++)
    if (f->read_lat.b[i])
      {
        val[n] = bucket_upper (i);
        cnt[n] = f->read_lat.b[i];
        n++;
      }
  pthread_mutex_unlock (&f->lock);
  return n;
}
