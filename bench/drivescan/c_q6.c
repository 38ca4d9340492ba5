/* c_q6.c - TPC-H Q6 written by hand in C over a lineitem heap file:
 *
 *   select sum(l_extendedprice * l_discount) from lineitem
 *   where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01'
 *     and l_discount between 0.05 and 0.07 and l_quantity < 24
 *
 * It does what the drive's scan must do and nothing more: every page gets
 * the drive's page checks (ossd_page_check: header, every line pointer,
 * every tuple header), tuples count under the same MVCC rule as on an
 * all-visible block (xmin frozen, or committed and preceding the snapshot's
 * xmin), the row is deformed up to l_shipdate (attribute 11, behind six
 * varlenas) with every offset checked against the tuple's length, the
 * numerics are decoded from PostgreSQL's on-disk format straight into
 * scaled integers, and the sum is exact (128-bit, scale 4).  What it knows
 * and the drive does not: the table's layout (four int4, then varlenas) is
 * compiled in.  A row with NULLs, or a numeric it cannot decode into a
 * scale-2 integer, takes the general path (ossd_deform and the exact
 * numeric code), as a careful hand-written scan would. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "c_q6.h"
#include "ossd_rt.h"
#include "ossd_scan.h"

#define BATCH 32
#define MAX_THREADS 16

struct job
{
  const uint8_t *pages;
  uint32_t npages;
  const struct ossd_scan_attr *attrs;
  uint32_t snapshot_xmin;
  atomic_uint next;
  atomic_int failed;
  char *err;
  size_t errlen;
};

struct part
{
  struct job *job;
  struct c_q6_result r;
};

static inline bool
visible (const uint8_t *tup, uint32_t snapshot_xmin)
{
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  if ((infomask & OSSD_PG_HEAP_XMIN_FROZEN) == OSSD_PG_HEAP_XMIN_FROZEN)
    return true;
  if (infomask & (OSSD_PG_HEAP_XMIN_INVALID | OSSD_PG_HEAP_MOVED))
    return false;              /* aborted; pre-9.0 moved rows are not in this file */
  uint32_t xmin = ossd_rd32 (tup + OSSD_PG_HT_XMIN);
  return xmin != 0 && ossd_xid_precedes (xmin, snapshot_xmin);
}

/* numeric payload (after its varlena header) -> value * 100, if it is a
 * short-format numeric whose value has at most two decimals */
static inline bool
numeric_cents (const uint8_t *p, uint32_t len, int64_t *out)
{
  static const int64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                   100000000, 1000000000, 10000000000 };
  if (len < 2)
    return false;
  uint16_t h = ossd_rd16 (p);
  if ((h & OSSD_PG_NUMERIC_SIGN_MASK) != OSSD_PG_NUMERIC_SHORT)
    return false;
  uint32_t ndig = (len - 2) / 2;
  int weight = (h & 0x0040) ? (int) (h & 0x007F) - 128 : (int) (h & 0x007F);
  if (ndig == 0)
    {
      *out = 0;
      return true;
    }
  if (ndig > 4)
    return false;
  int64_t acc = 0;
  for (uint32_t i = 0; i < ndig; i++)
    acc = acc * 10000 + (int16_t) ossd_rd16 (p + 2 + 2 * i);
  int e = 4 * (weight - (int) ndig + 1) + 2;   /* value*100 = acc * 10^e */
  if (e >= 0)
    {
      if (e > 10)
        return false;
      acc *= pow10[e];
    }
  else
    {
      if (e < -10 || acc % pow10[-e])
        return false;
      acc /= pow10[-e];
    }
  *out = (h & 0x2000) ? -acc : acc;
  return true;
}

/* varlena at tup[*off] (aligned as an int4-aligned varlena): its payload */
static inline bool
next_varlena (const uint8_t *tup, uint32_t tuplen, uint32_t *off, const uint8_t **pl,
              uint32_t *pllen)
{
  uint32_t o = *off;
  if (o >= tuplen)
    return false;
  uint8_t b0 = tup[o];
  uint32_t size;
  if ((b0 & 0x01) && b0 != 0x01)
    {
      size = b0 >> 1;
      if (size < 1 || size > tuplen - o)
        return false;
      *pl = tup + o + 1;
      *pllen = size - 1;
    }
  else
    {
      if (b0 == 0)
        o = (o + 3) & ~3u;     /* padding before a 4-byte header */
      if (o + 4 > tuplen || (tup[o] & 0x03) != 0)
        return false;          /* external, compressed or malformed */
      size = ossd_rd32 (tup + o) >> 2;
      if (size < 4 || size > tuplen - o)
        return false;
      *pl = tup + o + 4;
      *pllen = size - 4;
    }
  *off = o + size;
  return true;
}

/* the general path: the runtime's deform and exact numerics */
static int
slow_row (struct part *pt, const uint8_t *tup, uint32_t tuplen, uint32_t block, unsigned off)
{
  static const bool want[LI_SHIPDATE] = { [LI_QUANTITY - 1] = true, [LI_EXTENDEDPRICE - 1] = true,
                                          [LI_DISCOUNT - 1] = true, [LI_SHIPDATE - 1] = true };
  struct job *j = pt->job;
  struct ossd_datum d[LI_SHIPDATE];
  char msg[128];
  pt->r.slow_rows++;
  if (ossd_deform (tup, tuplen, j->attrs, LI_NATTS, LI_SHIPDATE, want, d, msg, sizeof msg) < 0)
    goto undecided;
  if (d[LI_SHIPDATE - 1].isnull || d[LI_DISCOUNT - 1].isnull || d[LI_QUANTITY - 1].isnull)
    return 0;
  int32_t ship = (int32_t) d[LI_SHIPDATE - 1].datum;
  if (ship < Q6_DATE_LO || ship >= Q6_DATE_HI)
    return 0;
  struct ossd_numeric n[3];
  static const int att[3] = { LI_QUANTITY, LI_EXTENDEDPRICE, LI_DISCOUNT };
  for (int k = 0; k < 3; k++)
    {
      const struct ossd_datum *x = &d[att[k] - 1];
      const uint8_t *p;
      uint32_t len;
      if (k == 1 && x->isnull)
        return 0;
      if (x->flags)
        goto undecided;
      ossd_varlena_payload (x->ptr, x->len, &p, &len);
      if (ossd_numeric_from_pg (p, len, &n[k]) < 0)
        goto undecided;
    }
  static const struct ossd_numeric lo = { 5, 0, 2, 0 }, hi = { 7, 0, 2, 0 }, qmax = { 24, 0, 0, 0 };
  int c1, c2, c3;
  struct ossd_numeric prod, prod4;
  if (ossd_numeric_cmp (&n[2], &lo, &c1) < 0 || ossd_numeric_cmp (&n[2], &hi, &c2) < 0
      || ossd_numeric_cmp (&n[0], &qmax, &c3) < 0)
    goto undecided;
  if (c1 < 0 || c2 > 0 || c3 >= 0)
    return 0;
  if (ossd_numeric_mul (&n[1], &n[2], &prod) < 0 || ossd_numeric_rescale (&prod, 4, &prod4) < 0)
    goto undecided;
  pt->r.matches++;
  pt->r.revenue += (__int128) (((unsigned __int128) (uint64_t) prod4.hi << 64) | prod4.lo);
  return 0;
undecided:
  if (!atomic_exchange (&j->failed, 1))
    snprintf (j->err, j->errlen, "block %u lp %u: the C scan cannot decide this row", block, off);
  return -1;
}

static int
scan_page (struct part *pt, const uint8_t *page, uint32_t block)
{
  struct job *j = pt->job;
  uint32_t reason;
  char msg[160];
  if (ossd_page_check (page, block, &reason, msg, sizeof msg) < 0)
    {
      pt->r.bad_pages++;
      return 0;
    }
  unsigned maxoff = ossd_page_max_offnum (page);
  for (unsigned off = 1; off <= maxoff; off++)
    {
      uint32_t lp = ossd_rd32 (page + OSSD_PG_PAGE_HEADER_SIZE + 4 * (off - 1));
      if (ossd_pg_lp_flags (lp) != OSSD_PG_LP_NORMAL)
        continue;
      const uint8_t *tup = page + ossd_pg_lp_off (lp);
      uint32_t tuplen = ossd_pg_lp_len (lp);
      pt->r.tuples++;
      if (!visible (tup, j->snapshot_xmin))
        continue;
      uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
      uint16_t natts = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2) & OSSD_PG_HEAP_NATTS_MASK;
      uint32_t o = tup[OSSD_PG_HT_HOFF] + 16;    /* behind the four int4 keys */
      const uint8_t *qty, *price, *disc, *skip;
      uint32_t qlen, plen, dlen, slen;
      if ((infomask & OSSD_PG_HEAP_HASNULL) || natts < LI_SHIPDATE
          || !next_varlena (tup, tuplen, &o, &qty, &qlen)
          || !next_varlena (tup, tuplen, &o, &price, &plen)
          || !next_varlena (tup, tuplen, &o, &disc, &dlen)
          || !next_varlena (tup, tuplen, &o, &skip, &slen)     /* l_tax */
          || !next_varlena (tup, tuplen, &o, &skip, &slen)     /* l_returnflag */
          || !next_varlena (tup, tuplen, &o, &skip, &slen))    /* l_linestatus */
        {
          if (slow_row (pt, tup, tuplen, block, off) < 0)
            return -1;
          continue;
        }
      o = (o + 3) & ~3u;
      if (o + 4 > tuplen)
        {
          if (slow_row (pt, tup, tuplen, block, off) < 0)
            return -1;
          continue;
        }
      int32_t ship = (int32_t) ossd_rd32 (tup + o);
      if (ship < Q6_DATE_LO || ship >= Q6_DATE_HI)
        continue;
      int64_t d, q, p;
      if (!numeric_cents (disc, dlen, &d) || !numeric_cents (qty, qlen, &q)
          || !numeric_cents (price, plen, &p))
        {
          if (slow_row (pt, tup, tuplen, block, off) < 0)
            return -1;
          continue;
        }
      if (d < 5 || d > 7 || q >= 2400)
        continue;
      pt->r.matches++;
      pt->r.revenue += (__int128) p * d;
    }
  return 0;
}

static void *
worker (void *arg)
{
  struct part *pt = arg;
  struct job *j = pt->job;
  for (;;)
    {
      uint32_t b0 = atomic_fetch_add (&j->next, BATCH);
      if (b0 >= j->npages || atomic_load (&j->failed))
        break;
      uint32_t b1 = b0 + BATCH < j->npages ? b0 + BATCH : j->npages;
      for (uint32_t b = b0; b < b1; b++)
        if (scan_page (pt, j->pages + (size_t) b * OSSD_PG_BLCKSZ, b) < 0)
          return NULL;
    }
  return NULL;
}

int
c_q6_scan (const uint8_t *pages, uint32_t npages, const struct ossd_scan_attr *attrs,
           uint32_t snapshot_xmin, unsigned threads, struct c_q6_result *out, char *err,
           size_t errlen)
{
  struct job j = { .pages = pages, .npages = npages, .attrs = attrs,
                   .snapshot_xmin = snapshot_xmin, .err = err, .errlen = errlen };
  struct part parts[MAX_THREADS] = { 0 };
  pthread_t tid[MAX_THREADS];
  unsigned started = 1;
  if (threads < 1 || threads > MAX_THREADS)
    {
      snprintf (err, errlen, "c_q6_scan: %u threads (1..%d)", threads, MAX_THREADS);
      return -1;
    }
  atomic_init (&j.next, 0);
  atomic_init (&j.failed, 0);
  for (unsigned i = 0; i < threads; i++)
    parts[i].job = &j;
  for (; started < threads; started++)
    if (pthread_create (&tid[started], NULL, worker, &parts[started]) != 0)
      break;
  worker (&parts[0]);
  for (unsigned i = 1; i < started; i++)
    pthread_join (tid[i], NULL);
  *out = (struct c_q6_result) { 0 };
  for (unsigned i = 0; i < threads; i++)
    {
      out->tuples += parts[i].r.tuples;
      out->matches += parts[i].r.matches;
      out->revenue += parts[i].r.revenue;
      out->bad_pages += parts[i].r.bad_pages;
      out->slow_rows += parts[i].r.slow_rows;
    }
  return atomic_load (&j.failed) ? -1 : 0;
}
