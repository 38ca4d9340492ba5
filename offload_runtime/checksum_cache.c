/* checksum_cache.c - the pages whose PostgreSQL checksum a drive's scans
 * already verified, so that a scan of a table read again and again does
 * not recompute the checksum of every page each time.
 *
 * With data checksums on, the checksum of each 8 KiB page was a quarter of
 * a warm drive scan's CPU (perf of the drive on TPC-H Q6 at SF 1), where
 * PostgreSQL itself verifies a page once, when it enters shared buffers.
 * A page's checksum depends only on its bytes and its block number, and a
 * reader that hands out pages in place can name their bytes
 * (struct ossd_scan_request.map_blocks' page ids: the FTL's program
 * sequence of the NAND page, which no other bytes carry while it runs, and
 * whose data CRC it checks on every read).  So a verified (id, block) stays
 * verified: the cache remembers it, and forgets only by being overwritten.
 *
 * A table of 64-bit fingerprints of (id, block) in buckets of CACHE_WAYS
 * (half a cache line), written and read with relaxed atomics by any number
 * of scan threads.  A page goes into an empty way of its bucket, else over
 * the way its fingerprint picks; a lost or overwritten entry only means
 * one more verification.  A fingerprint of a different (id, block) in the
 * same bucket would have to match in all 64 bits for a page to skip its
 * check.  Nothing else is stored; a page that fails its checksum is never
 * remembered (the host gets it every time).  A bucket is one memory miss
 * in a table of megabytes, a tenth of a page's scan when taken one after
 * the other: the engine prefetches a batch's buckets before it looks at
 * any.  Counting is the caller's (a shared counter bumped for every page
 * bounced its cache line between the scan threads). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ossd_scan.h"

#define CACHE_WAYS 4

struct ossd_checksum_cache
{
  uint64_t mask;
  _Atomic uint64_t slot[];
};

/* SplitMix64's finaliser: every input bit moves every output bit. */
static uint64_t
mix64 (uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static uint64_t
fingerprint (uint64_t page_id, uint32_t blkno)
{
  uint64_t fp = mix64 (page_id ^ mix64 ((uint64_t) blkno + 0x9e3779b97f4a7c15ull));

  return fp ? fp : 1;           /* 0 marks an empty slot */
}

/* The bucket of fingerprint fp: CACHE_WAYS slots from a multiple of it. */
static _Atomic uint64_t *
bucket_of (const struct ossd_checksum_cache *c, uint64_t fp)
{
  return (_Atomic uint64_t *) &c->slot[fp & c->mask & ~(uint64_t) (CACHE_WAYS - 1)];
}

int
ossd_checksum_cache_new (uint64_t pages, struct ossd_checksum_cache **out)
{
  uint64_t n = 1u << 12;
  struct ossd_checksum_cache *c;

  *out = NULL;
  while (n < pages && n < OSSD_CHECKSUM_CACHE_MAX)
    n <<= 1;
  c = calloc (1, sizeof *c + n * sizeof c->slot[0]);
  if (!c)
    return -ENOMEM;
  c->mask = n - 1;
  *out = c;
  return 0;
}

void
ossd_checksum_cache_free (struct ossd_checksum_cache *c)
{
  free (c);
}

void
ossd_checksum_cache_prefetch (const struct ossd_checksum_cache *c, uint64_t page_id,
                              uint32_t blkno)
{
  __builtin_prefetch ((const void *) bucket_of (c, fingerprint (page_id, blkno)));
}

bool
ossd_checksum_cache_known (struct ossd_checksum_cache *c, uint64_t page_id,
                           uint32_t blkno)
{
  uint64_t fp = fingerprint (page_id, blkno);
  _Atomic uint64_t *bucket = bucket_of (c, fp);

  for (int i = 0; i < CACHE_WAYS; i++)
    if (atomic_load_explicit (&bucket[i], memory_order_relaxed) == fp)
      return true;
  return false;
}

void
ossd_checksum_cache_note (struct ossd_checksum_cache *c, uint64_t page_id,
                          uint32_t blkno)
{
  uint64_t fp = fingerprint (page_id, blkno);
  _Atomic uint64_t *bucket = bucket_of (c, fp);
  int way = (int) (fp >> 60) % CACHE_WAYS;

  for (int i = 0; i < CACHE_WAYS; i++)
    if (atomic_load_explicit (&bucket[i], memory_order_relaxed) == 0)
      {
        way = i;
        break;
      }
  atomic_store_explicit (&bucket[way], fp, memory_order_relaxed);
}
