/* test_scan_engine.c - unit tests of the scan engine (scan_engine.c,
 * partial_agg.c, row_format.c) on hand-built pages: filter + projection,
 * worker threads, limit, aggregates with GROUP BY, a full group table,
 * TOAST and kernel hand-backs, corrupt and unreadable blocks, the MVCC
 * rule, map kernels, validation errors.  Kernels are C functions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "heap_page_builder.h"
#include "ossd_rt.h"
#include "ossd_jit.h"
#include "rt_corpus.h"

/* ---- a synthetic relation: (id int4, grp int4, name text, amt numeric,
 * f float8), 40 rows per page.  name is NULL when id % 7 == 0. */
#define NPAGES 25
#define PER_PAGE 40
#define NROWS (NPAGES * PER_PAGE)

static const struct ossd_scan_attr rel_attrs[] = {
  { 4, 4, true, OSSD_PG_INT4OID }, { 4, 4, true, OSSD_PG_INT4OID },
  { -1, 4, false, OSSD_PG_TEXTOID }, { -1, 4, false, OSSD_PG_NUMERICOID },
  { 8, 8, true, OSSD_PG_FLOAT8OID },
};

struct rel
{
  uint8_t (*pages)[OSSD_PG_BLCKSZ];
  uint32_t npages;
  int fail_block;              /* read error on this block (-1 none) */
  int fail_rc;
};

static void
add_row (struct pb *p, int id, uint16_t infomask, uint32_t xmin, bool compressed_name)
{
  struct tb t;
  bool nulls[5] = { false, false, id % 7 == 0, false, false };
  tb_init (&t, 5, infomask, xmin, nulls);
  tb_i32 (&t, id);
  tb_i32 (&t, id % 5);
  if (compressed_name)
    tb_compressed (&t, 30);
  else if (id % 7)
    {
      char name[32];
      snprintf (name, sizeof name, "n%04d", id);
      tb_text (&t, name);
    }
  struct ossd_numeric n = { .lo = (uint64_t) id * 125, .hi = 0, .scale = 2 };
  uint8_t img[OSSD_NUMERIC_PG_MAXLEN];
  size_t len;
  assert_int_equal (ossd_numeric_to_pg (&n, img, sizeof img, &len), 0);
  tb_fixed (&t, img, (unsigned) len, 4);
  tb_f64 (&t, id * 0.5);
  pb_add (p, &t);
}

static struct rel *
rel_new (void)
{
  struct rel *r = calloc (1, sizeof *r);
  r->pages = calloc (NPAGES, OSSD_PG_BLCKSZ);
  r->npages = NPAGES;
  r->fail_block = -1;
  for (int b = 0; b < NPAGES; b++)
    {
      struct pb p;
      pb_init (&p);
      for (int i = 0; i < PER_PAGE; i++)
        add_row (&p, b * PER_PAGE + i, OSSD_PG_HEAP_XMIN_FROZEN, 100, false);
      memcpy (r->pages[b], p.page, OSSD_PG_BLCKSZ);
    }
  return r;
}

static void
rel_free (struct rel *r)
{
  free (r->pages);
  free (r);
}

static int
rel_read (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  struct rel *r = arg;
  if ((int) block == r->fail_block)
    {
      snprintf (err, errlen, "injected");
      return r->fail_rc;
    }
  if (block >= r->npages)
    return -ENOENT;
  memcpy (page, r->pages[block], OSSD_PG_BLCKSZ);
  return 0;
}

/* ---- a sink that concatenates everything */
struct sink
{
  struct ossd_buf rows, hrows, groups;
  uint32_t nrows, nhrows, ngroups, nhblocks, nlast;
  struct ossd_host_block hblocks[64];
  struct ossd_scan_counters totals;
  atomic_int inside;
  int fail_after;              /* fail on the Nth call (0 = never) */
  int calls;
};

static void
append (struct ossd_buf *b, const uint8_t *d, size_t n)
{
  assert_int_equal (ossd_buf_reserve (b, n ? n : 1), 0);
  if (n)
    memcpy (b->data + b->len, d, n);
  b->len += n;
}

static int
sink_fn (void *arg, const struct ossd_scan_chunk *ch)
{
  struct sink *s = arg;
  assert_int_equal (atomic_fetch_add (&s->inside, 1), 0);   /* one thread at a time */
  s->calls++;
  int rc = 0;
  if (s->fail_after && s->calls >= s->fail_after)
    rc = -EPIPE;
  append (&s->rows, ch->rows, ch->rows_len);
  append (&s->hrows, ch->host_rows, ch->host_rows_len);
  append (&s->groups, ch->groups, ch->groups_len);
  s->nrows += ch->row_count;
  s->nhrows += ch->host_row_count;
  s->ngroups += ch->group_count;
  for (uint32_t i = 0; i < ch->host_block_count && s->nhblocks < 64; i++)
    s->hblocks[s->nhblocks++] = ch->host_blocks[i];
  if (ch->last)
    {
      s->nlast++;
      s->totals = ch->counters;
    }
  atomic_fetch_sub (&s->inside, 1);
  return rc;
}

static void
sink_free (struct sink *s)
{
  ossd_buf_free (&s->rows);
  ossd_buf_free (&s->hrows);
  ossd_buf_free (&s->groups);
}

/* ---- kernels */
static int
filter_id_mod3 (void *k, struct ossd_kctx *ctx, void *st)
{
  return ((int32_t) ctx->col[0].value % 3) == 0;
}

static int
filter_all (void *k, struct ossd_kctx *ctx, void *st)
{
  return OSSD_ROW_MATCH;
}

static int
filter_to_host_13 (void *k, struct ossd_kctx *ctx, void *st)
{
  return (int32_t) ctx->col[0].value == 13 ? OSSD_ROW_TO_HOST : OSSD_ROW_MATCH;
}

static int
filter_fault (void *k, struct ossd_kctx *ctx, void *st)
{
  return (int32_t) ctx->col[0].value == 77 ? -EFAULT : OSSD_ROW_MATCH;
}

static int
filter_name_prefix (void *k, struct ossd_kctx *ctx, void *st)
{
  /* col0 = name: non-null and starts with "n00" */
  if (ctx->col[0].isnull || ctx->col[0].len < 3)
    return OSSD_ROW_SKIP;
  return memcmp ((const void *) (uintptr_t) ctx->col[0].data, "n00", 3) == 0;
}

/* map: out0 = id * 2 (int8), out1 = amt * 2 (numeric, scale 2) */
static int
map_double (void *k, struct ossd_kctx *ctx, void *st)
{
  ctx->out[0].value = (uint64_t) ((int64_t) (int32_t) ctx->col[0].value * 2);
  const struct ossd_numeric *n = (const void *) (uintptr_t) ctx->col[1].data;
  ctx->out[1].num = *n;
  ctx->out[1].num.lo *= 2;
  return OSSD_ROW_MATCH;
}

static void
base_req (struct ossd_scan_request *q, struct rel *r, struct sink *s,
          struct ossd_scan_target *tg, struct ossd_block_range *br)
{
  memset (q, 0, sizeof *q);
  memset (tg, 0, sizeof *tg);          /* unstriped */
  br->start = 0;
  br->count = r->npages;
  tg->first_block = 0;
  tg->nranges = 1;
  tg->ranges = br;
  q->ntargets = 1;
  q->targets = tg;
  q->natts = 5;
  q->attrs = rel_attrs;
  q->snapshot_xmin = 1000;
  q->read_block = rel_read;
  q->read_arg = r;
  q->sink = sink_fn;
  q->sink_arg = s;
}

static const bool proj_byval[] = { true, false, false };

/* Decode the rows of s: ids[] (sorted by the caller) and checks values. */
static int
decode_rows (struct sink *s, int *ids)
{
  size_t pos = 0;
  struct ossd_row_view rv;
  struct ossd_value_view v[3];
  int n = 0, rc;
  while ((rc = ossd_row_read (s->rows.data, s->rows.len, &pos, 3, proj_byval, &rv, v)) == 1)
    {
      int id = (int32_t) v[0].datum;
      assert_int_equal (rv.block, (uint32_t) id / PER_PAGE);
      assert_int_equal (rv.offnum, (uint32_t) id % PER_PAGE + 1);
      if (id % 7 == 0)
        assert_true (v[1].isnull);
      else
        {
          char name[32];
          snprintf (name, sizeof name, "n%04d", id);
          assert_false (v[1].isnull);
          assert_int_equal (v[1].len, 6);           /* 1-byte header + 5 */
          assert_memory_equal (v[1].data + 1, name, 5);
        }
      const uint8_t *pl;
      uint32_t pll;
      ossd_varlena_payload (v[2].data, v[2].len, &pl, &pll);
      struct ossd_numeric num;
      assert_int_equal (ossd_numeric_from_pg (pl, pll, &num), 0);
      assert_int_equal (num.lo, (uint64_t) id * 125);
      assert_int_equal (num.scale, 2);
      ids[n++] = id;
    }
  assert_int_equal (rc, 0);
  return n;
}

static int
cmp_int (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static void
run_filter_projection (int workers, uint64_t limit, int *ids, int *n)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1 }, proj[] = { 1, 3, 4 };
  q.nbind = 1;
  q.bind = bind;
  q.filter.exec = filter_id_mod3;
  q.nproj = 3;
  q.proj = proj;
  q.workers = workers;
  q.limit = limit;
  q.chunk_bytes = 1024;        /* many chunks */
  char err[256] = "";
  struct ossd_scan_counters tot;
  assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
  assert_int_equal (s.nlast, 1);
  *n = decode_rows (&s, ids);
  assert_int_equal ((uint32_t) *n, s.nrows);
  assert_int_equal (tot.rows_out, (uint64_t) *n);
  if (!limit)
    {
      assert_int_equal (tot.blocks_scanned, NPAGES);
      assert_int_equal (tot.tuples_seen, NROWS);
      assert_int_equal (tot.tuples_visible, NROWS);
    }
  qsort (ids, *n, sizeof *ids, cmp_int);
  sink_free (&s);
  rel_free (r);
}

static void
test_filter_projection (void **state)
{
  static int ids[NROWS];
  int n;
  run_filter_projection (1, 0, ids, &n);
  assert_int_equal (n, (NROWS + 2) / 3);
  for (int i = 0; i < n; i++)
    assert_int_equal (ids[i], 3 * i);
}

static void
test_workers_same_result (void **state)
{
  static int a[NROWS], b[NROWS];
  int na, nb;
  run_filter_projection (1, 0, a, &na);
  for (int w = 2; w <= 4; w++)
    {
      run_filter_projection (w, 0, b, &nb);
      assert_int_equal (na, nb);
      assert_memory_equal (a, b, na * sizeof (int));
    }
}

static void
test_limit (void **state)
{
  static int ids[NROWS];
  int n;
  for (int w = 1; w <= 3; w++)
    {
      run_filter_projection (w, 17, ids, &n);
      assert_int_equal (n, 17);
      for (int i = 0; i < n; i++)
        assert_int_equal (ids[i] % 3, 0);
    }
}

/* GROUP BY grp: count(*), count(name), sum(id), sum(amt), min(name),
 * max(f), avg(id), min(amt) - merged over the partial groups. */
struct gexp
{
  int64_t cstar, cname, sumid, sumamt;
  char minname[8];
  double maxf;
};

static void
check_groups (struct sink *s, uint32_t nkeys, struct gexp *got)
{
  static const bool kbv[] = { true };
  static const bool abv[] = { true, true, true, true, false, true, true, false };
  struct ossd_value_view keys[1];
  struct ossd_agg_state_view ag[8];
  size_t pos = 0;
  int rc;
  memset (got, 0, 5 * sizeof *got);
  for (int g = 0; g < 5; g++)
    got[g].maxf = -1;
  while ((rc = ossd_group_read (s->groups.data, s->groups.len, &pos, (uint16_t) nkeys, kbv,
                                keys, 8, abv, ag)) == 1)
    {
      int g = (int32_t) keys[0].datum;
      assert_true (g >= 0 && g < 5);
      got[g].cstar += ag[0].count;
      got[g].cname += ag[1].count;
      assert_int_equal (ag[2].sum_hi, 0);
      got[g].sumid += (int64_t) ag[2].sum_lo;
      assert_int_equal (ag[3].scale, 2);
      got[g].sumamt += (int64_t) ag[3].sum_lo;
      if (ag[4].flags & OSSD_AGGF_HAS_VALUE)
        {
          const uint8_t *pl;
          uint32_t pll;
          ossd_varlena_payload (ag[4].value.data, ag[4].value.len, &pl, &pll);
          assert_int_equal (pll, 5);
          if (!got[g].minname[0] || memcmp (pl, got[g].minname, 5) < 0)
            memcpy (got[g].minname, pl, 5);
        }
      double f;
      memcpy (&f, &ag[5].value.datum, 8);
      if (f > got[g].maxf)
        got[g].maxf = f;
      assert_int_equal (ag[6].kind, OSSD_AGG_AVG);
      assert_int_equal (ag[7].kind, OSSD_AGG_MIN);
    }
  assert_int_equal (rc, 0);
}

static void
expected_groups (struct gexp *e, int skip_group_from)
{
  memset (e, 0, 5 * sizeof *e);
  for (int g = 0; g < 5; g++)
    e[g].maxf = -1;
  for (int id = 0; id < NROWS; id++)
    {
      struct gexp *x = &e[id % 5];
      if (id % 5 >= skip_group_from)
        continue;
      x->cstar++;
      x->sumid += id;
      x->sumamt += id * 125;
      if (id % 7)
        {
          x->cname++;
          char name[16];
          snprintf (name, sizeof name, "n%04d", id);
          if (!x->minname[0] || memcmp (name, x->minname, 5) < 0)
            memcpy (x->minname, name, 5);
        }
      if (id * 0.5 > x->maxf)
        x->maxf = id * 0.5;
    }
}

static void
agg_request (struct ossd_scan_request *q)
{
  static const uint16_t proj[] = { 1, 2, 3, 4, 5 };
  static const struct ossd_scan_agg aggs[] = {
    { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_COUNT, 2 }, { OSSD_AGG_SUM, 0 },
    { OSSD_AGG_SUM, 3 }, { OSSD_AGG_MIN, 2 }, { OSSD_AGG_MAX, 4 }, { OSSD_AGG_AVG, 0 },
    { OSSD_AGG_MIN, 3 },
  };
  static const uint32_t gb[] = { 1 };
  q->nproj = 5;
  q->proj = proj;
  q->naggs = 8;
  q->aggs = aggs;
  q->ngroup_by = 1;
  q->group_by = gb;
}

static void
test_aggregates_group_by (void **state)
{
  for (int w = 1; w <= 3; w++)
    {
      struct rel *r = rel_new ();
      struct sink s = { 0 };
      struct ossd_scan_request q;
      struct ossd_scan_target tg;
      struct ossd_block_range br;
      base_req (&q, r, &s, &tg, &br);
      agg_request (&q);
      q.workers = w;
      char err[256] = "";
      assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
      assert_int_equal (s.nhrows, 0);
      struct gexp got[5], exp[5];
      check_groups (&s, 1, got);
      expected_groups (exp, 5);
      assert_memory_equal (got, exp, sizeof got);
      assert_true (s.ngroups >= 5 && s.ngroups <= 5u * w);
      sink_free (&s);
      rel_free (r);
    }
}

/* More groups than the table holds: the engine emits the full table and
 * goes on with an empty one, so every row is aggregated on the drive and
 * the partial groups (some keys more than once) merge to the exact
 * answer; nothing goes to the host. */
static void
test_group_table_full (void **state)
{
  for (int w = 1; w <= 2; w++)
    {
      struct rel *r = rel_new ();
      struct sink s = { 0 };
      struct ossd_scan_request q;
      struct ossd_scan_target tg;
      struct ossd_block_range br;
      struct ossd_scan_counters tot;
      base_req (&q, r, &s, &tg, &br);
      agg_request (&q);
      q.max_groups = 2;
      q.workers = w;
      char err[256] = "";
      assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
      assert_int_equal (s.nhrows, 0);
      assert_int_equal (tot.rows_to_host, 0);
      /* rows cycle through the 5 keys: far more partial groups than 5 */
      assert_true (s.ngroups > 5u * w);
      assert_int_equal (tot.groups_out, s.ngroups);
      struct gexp got[5], exp[5];
      check_groups (&s, 1, got);
      expected_groups (exp, 5);
      assert_memory_equal (got, exp, sizeof got);
      sink_free (&s);
      rel_free (r);
    }
}

static void
test_empty_scan_aggregate (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  br.count = 0;
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 } };
  static const uint16_t proj[] = { 1 };
  q.nproj = 1;
  q.proj = proj;
  q.naggs = 2;
  q.aggs = aggs;
  char err[256];
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s.ngroups, 1);
  struct ossd_agg_state_view ag[2];
  static const bool abv[] = { true, true };
  size_t pos = 0;
  assert_int_equal (ossd_group_read (s.groups.data, s.groups.len, &pos, 0, NULL, NULL, 2, abv,
                                     ag), 1);
  assert_int_equal (ag[0].count, 0);
  assert_int_equal (ag[1].flags & OSSD_AGGF_HAS_VALUE, 0);   /* sum() is NULL */
  sink_free (&s);
  rel_free (r);
}

static void
test_toast_and_kernel_hand_back (void **state)
{
  struct rel *r = rel_new ();
  struct pb p;
  pb_init (&p);
  for (int i = 0; i < PER_PAGE; i++)
    add_row (&p, 3 * PER_PAGE + i, OSSD_PG_HEAP_XMIN_FROZEN, 100, i == 5);
  memcpy (r->pages[3], p.page, OSSD_PG_BLCKSZ);
  /* name referenced by the filter: row 125 (compressed) goes to the host */
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind_name[] = { 3 }, proj1[] = { 1 };
  q.nbind = 1;
  q.bind = bind_name;
  q.filter.exec = filter_name_prefix;
  q.nproj = 1;
  q.proj = proj1;
  char err[256] = "";
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s.nhrows, 1);
  size_t pos = 0;
  struct ossd_host_row_view h;
  assert_int_equal (ossd_host_row_read (s.hrows.data, s.hrows.len, &pos, &h), 1);
  assert_int_equal (h.reason, OSSD_HR_TOAST);
  assert_int_equal (h.block, 3);
  assert_int_equal (h.offnum, 6);
  /* ids 0..99 have names n00xx: 100 minus multiples of 7 (15) = 85 */
  assert_int_equal (s.nrows, 85);
  sink_free (&s);

  /* not referenced (filter on id, projection id): no hand-back */
  struct sink s2 = { 0 };
  base_req (&q, r, &s2, &tg, &br);
  static const uint16_t bind_id[] = { 1 };
  q.nbind = 1;
  q.bind = bind_id;
  q.filter.exec = filter_to_host_13;
  q.nproj = 1;
  q.proj = proj1;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s2.nrows, NROWS - 1);
  assert_int_equal (s2.nhrows, 1);   /* the kernel's TO_HOST for id 13 */
  pos = 0;
  assert_int_equal (ossd_host_row_read (s2.hrows.data, s2.hrows.len, &pos, &h), 1);
  assert_int_equal (h.reason, OSSD_HR_KERNEL);
  assert_int_equal (h.offnum, 14);
  sink_free (&s2);

  /* projected (not filtered) compressed value: hand-back with filter passed */
  struct sink s3 = { 0 };
  base_req (&q, r, &s3, &tg, &br);
  static const uint16_t proj3[] = { 1, 3, 4 };
  q.nbind = 1;
  q.bind = bind_id;
  q.filter.exec = filter_all;
  q.nproj = 3;
  q.proj = proj3;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s3.nhrows, 1);
  pos = 0;
  assert_int_equal (ossd_host_row_read (s3.hrows.data, s3.hrows.len, &pos, &h), 1);
  assert_int_equal (h.reason, OSSD_HR_TOAST | OSSD_HR_FLAG_FILTER_PASSED);
  sink_free (&s3);
  rel_free (r);
}

static void
test_bad_and_unreadable_blocks (void **state)
{
  struct rel *r = rel_new ();
  tb_put16 (r->pages[5] + 18, 0x1004);          /* wrong page size */
  tb_put32 (r->pages[6] + 24 + 4 * 3, (8190u) | (1u << 15) | (40u << 17));  /* bad lp 4 */
  r->fail_block = 9;
  r->fail_rc = -EIO;
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  tg.first_block = 1000;       /* segment starting at relation block 1000 */
  static const uint16_t proj[] = { 1 };
  q.nproj = 1;
  q.proj = proj;
  q.workers = 2;
  char err[256] = "";
  struct ossd_scan_counters tot;
  assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
  assert_int_equal (s.nhblocks, 3);
  uint32_t seen = 0;
  for (uint32_t i = 0; i < s.nhblocks; i++)
    {
      struct ossd_host_block *b = &s.hblocks[i];
      if (b->block == 1005)
        assert_int_equal (b->reason, OSSD_HB_BAD_HEADER);
      else if (b->block == 1006)
        assert_int_equal (b->reason, OSSD_HB_BAD_LINE_POINTER);
      else if (b->block == 1009)
        assert_int_equal (b->reason, OSSD_HB_READ_ERROR);
      else
        fail ();
      seen |= 1u << (b->block - 1000);
    }
  assert_int_equal (seen, (1u << 5) | (1u << 6) | (1u << 9));
  assert_int_equal (s.nrows, NROWS - 3 * PER_PAGE);
  assert_int_equal (tot.blocks_to_host, 3);
  assert_int_equal (tot.blocks_scanned, NPAGES - 3);
  /* no row of a handed-back block was produced */
  size_t pos = 0;
  struct ossd_row_view rv;
  struct ossd_value_view v[1];
  static const bool bv[] = { true };
  while (ossd_row_read (s.rows.data, s.rows.len, &pos, 1, bv, &rv, v) == 1)
    assert_true (rv.block != 1005 && rv.block != 1006 && rv.block != 1009);
  sink_free (&s);

  /* -ECANCELED from the reader aborts the scan */
  struct sink s2 = { 0 };
  base_req (&q, r, &s2, &tg, &br);
  q.nproj = 1;
  q.proj = proj;
  r->fail_rc = -ECANCELED;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -ECANCELED);
  assert_non_null (strstr (err, "block 9"));
  assert_int_equal (s2.nlast, 0);
  sink_free (&s2);

  /* -EBADMSG (the stored data failed its integrity check) fails the scan
   * with the reader's reason: a corrupt page is neither scanned nor
   * handed on */
  struct sink s3 = { 0 };
  base_req (&q, r, &s3, &tg, &br);
  q.nproj = 1;
  q.proj = proj;
  q.workers = 2;
  r->fail_rc = -EBADMSG;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -EBADMSG);
  assert_non_null (strstr (err, "block 9: injected"));
  assert_int_equal (s3.nlast, 0);
  sink_free (&s3);
  rel_free (r);
}

/* A reader that hands pages out in place with ids (map_blocks), as the
 * drive's FTL does: version[b] stands for the NAND program sequence of
 * block b's bytes, bumped whenever they are rewritten. */
struct mapped_rel
{
  struct rel *r;
  uint64_t version[NPAGES];
  atomic_int mapped;
};

static int
mapped_map (void *arg, uint32_t target, uint32_t block, uint32_t count, void *scratch,
            const uint8_t **pages, uint64_t *page_ids, void **token, char *err,
            size_t errlen)
{
  struct mapped_rel *m = arg;

  if (block + count > m->r->npages)
    return -ENOENT;
  for (uint32_t k = 0; k < count; k++)
    {
      pages[k] = m->r->pages[block + k];
      page_ids[k] = m->version[block + k];
    }
  atomic_fetch_add (&m->mapped, (int) count);
  *token = NULL;
  return 0;
}

static int
mapped_read (void *arg, uint32_t target, uint32_t block, void *page, char *err,
             size_t errlen)
{
  return rel_read (((struct mapped_rel *) arg)->r, target, block, page, err, errlen);
}

static void
mapped_release (void *arg, void *token)
{
}

/* Scan m with data checksums and cache c: the blocks handed to the host
 * for their checksum, as a bit mask over NPAGES. */
static uint64_t
checksum_scan (struct mapped_rel *m, struct ossd_checksum_cache *c,
               uint64_t *known, uint64_t *verified)
{
  static const uint16_t proj[] = { 1 };
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  struct ossd_scan_counters tot;
  char err[256] = "";
  uint64_t back = 0;

  base_req (&q, m->r, &s, &tg, &br);
  q.read_block = mapped_read;
  q.map_blocks = mapped_map;
  q.release_blocks = mapped_release;
  q.read_arg = m;
  tg.first_block = 2000;
  q.nproj = 1;
  q.proj = proj;
  q.workers = 1;               /* batches of 16 and 9 blocks: all mapped */
  q.data_checksums = true;
  q.checksum_cache = c;
  assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
  *known += tot.checksums_known;
  *verified += tot.checksums_verified;
  for (uint32_t i = 0; i < s.nhblocks; i++)
    {
      assert_int_equal (s.hblocks[i].reason, OSSD_HB_CHECKSUM);
      back |= 1ull << (s.hblocks[i].block - 2000);
    }
  sink_free (&s);
  return back;
}

/* The checksum cache: a page verified once is known by its id on the next
 * scan; a page failing its checksum is never remembered; new bytes (a new
 * id) are verified again, and a rewrite that breaks the checksum is caught
 * however often the block's old bytes passed; the same id at another block
 * number is not the same page. */
static void
test_checksum_cache (void **state)
{
  struct mapped_rel m = { .r = rel_new () };
  struct ossd_checksum_cache *c = NULL;
  uint64_t known = 0, verified = 0;

  assert_true (NPAGES <= 64);
  for (uint32_t b = 0; b < NPAGES; b++)
    {
      tb_put16 (m.r->pages[b] + 8, ossd_pg_checksum_page (m.r->pages[b], 2000 + b));
      m.version[b] = 1000 + b;
    }
  m.r->pages[3][OSSD_PG_BLCKSZ - 100] ^= 0x10;     /* fails from the start */
  assert_int_equal (ossd_checksum_cache_new (NPAGES, &c), 0);

  assert_int_equal (checksum_scan (&m, c, &known, &verified), 1ull << 3);
  assert_int_equal (known, 0);
  assert_int_equal (verified, NPAGES - 1);

  assert_int_equal (checksum_scan (&m, c, &known, &verified), 1ull << 3);   /* still sent back */
  assert_int_equal (known, NPAGES - 1);
  assert_int_equal (verified, NPAGES - 1);

  /* block 5 rewritten with a wrong checksum: new bytes, a new id */
  m.r->pages[5][OSSD_PG_BLCKSZ - 200] ^= 0x01;
  m.version[5] = 5000;
  assert_int_equal (checksum_scan (&m, c, &known, &verified), (1ull << 3) | (1ull << 5));
  /* ... and put right (its checksum updated): verified and known again */
  tb_put16 (m.r->pages[5] + 8, ossd_pg_checksum_page (m.r->pages[5], 2005));
  m.version[5] = 5001;
  assert_int_equal (checksum_scan (&m, c, &known, &verified), 1ull << 3);
  assert_int_equal (checksum_scan (&m, c, &known, &verified), 1ull << 3);
  assert_int_equal (verified, NPAGES);
  /* scans 2-5 took 24, 23 (block 5 rewritten), 23 (5 verified anew), 24 */
  assert_int_equal (known, 2 * (NPAGES - 1) + 2 * (NPAGES - 2));

  /* the same bytes' id at another block: not known there */
  assert_true (ossd_checksum_cache_known (c, 1000, 2000));
  assert_false (ossd_checksum_cache_known (c, 1000, 2001));
  assert_false (ossd_checksum_cache_known (c, 999, 2000));

  /* pages without an id (copied) are verified every time, never kept */
  for (uint32_t b = 0; b < NPAGES; b++)
    m.version[b] = 0;
  assert_int_equal (checksum_scan (&m, c, &known, &verified), 1ull << 3);
  assert_int_equal (verified, NPAGES);
  ossd_checksum_cache_free (c);
  rel_free (m.r);
}

/* PostgreSQL's page checksum: known answers from PostgreSQL 15's own
 * pg_checksum_page on a synthetic page, then the scan with data_checksums
 * handing a page that fails it to the host (and scanning it when the
 * cluster has no checksums). */
static void
test_data_checksums (void **state)
{
  static uint8_t pg[OSSD_PG_BLCKSZ];
  for (int i = 0; i < OSSD_PG_BLCKSZ; i++)
    pg[i] = (uint8_t) ((i * 131 + 7) ^ (i >> 5));
  pg[14] = 0x40;
  pg[15] = 0x1f;
  assert_int_equal (ossd_pg_checksum_page (pg, 0), 12817);
  assert_int_equal (ossd_pg_checksum_page (pg, 1003), 13478);
  assert_int_equal (ossd_pg_checksum_page (pg, 123456), 5201);
  tb_put16 (pg + 8, 13478);
  assert_true (ossd_pg_checksum_ok (pg, 1003));
  assert_false (ossd_pg_checksum_ok (pg, 1004));   /* the block number counts */

  struct rel *r = rel_new ();
  for (uint32_t b = 0; b < NPAGES; b++)
    tb_put16 (r->pages[b] + 8, ossd_pg_checksum_page (r->pages[b], 2000 + b));
  r->pages[3][OSSD_PG_BLCKSZ - 100] ^= 0x10;     /* one bit in tuple data */
  memcpy (r->pages[8], r->pages[7], OSSD_PG_BLCKSZ);   /* block 7's page at 8 */
  static const uint16_t proj[] = { 1 };
  for (int on = 0; on < 2; on++)
    {
      struct sink s = { 0 };
      struct ossd_scan_request q;
      struct ossd_scan_target tg;
      struct ossd_block_range br;
      char err[256] = "";
      struct ossd_scan_counters tot;
      base_req (&q, r, &s, &tg, &br);
      tg.first_block = 2000;
      q.nproj = 1;
      q.proj = proj;
      q.workers = 2;
      q.data_checksums = on;
      assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
      if (!on)
        {
          assert_int_equal (s.nhblocks, 0);
          assert_int_equal (s.nrows, NROWS);
        }
      else
        {
          assert_int_equal (s.nhblocks, 2);
          for (uint32_t i = 0; i < s.nhblocks; i++)
            {
              assert_true (s.hblocks[i].block == 2003 || s.hblocks[i].block == 2008);
              assert_int_equal (s.hblocks[i].reason, OSSD_HB_CHECKSUM);
            }
          assert_int_equal (s.nrows, NROWS - 2 * PER_PAGE);
          assert_int_equal (tot.blocks_to_host, 2);
        }
      sink_free (&s);
    }
  /* new (all-zero) pages carry no checksum */
  memset (r->pages[10], 0, OSSD_PG_BLCKSZ);
  assert_true (ossd_pg_checksum_ok (r->pages[10], 2010));
  rel_free (r);
}

static void
test_kernel_fault_and_sink_error (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1 }, proj[] = { 1 };
  q.nbind = 1;
  q.bind = bind;
  q.filter.exec = filter_fault;
  q.nproj = 1;
  q.proj = proj;
  q.workers = 2;
  char err[256] = "";
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -EFAULT);
  assert_non_null (strstr (err, "block 1 lp 38"));
  sink_free (&s);

  struct sink s2 = { .fail_after = 2 };
  base_req (&q, r, &s2, &tg, &br);
  q.nproj = 1;
  q.proj = proj;
  q.chunk_bytes = 512;
  q.workers = 3;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -EPIPE);
  assert_non_null (strstr (err, "sink"));
  assert_int_equal (s2.nlast, 0);
  sink_free (&s2);
  rel_free (r);
}

static void
test_mvcc_rule_in_scan (void **state)
{
  struct rel *r = rel_new ();
  struct pb p;
  pb_init (&p);
  /* ids 0..9: xmin 500 (before snapshot 1000), 10..19: xmin 1500 (after),
   * 20..24: frozen with a late raw xmin, 25..29: xmin 600 but aborted */
  for (int i = 0; i < 30; i++)
    {
      uint16_t im = i < 20 ? OSSD_PG_HEAP_XMIN_COMMITTED
        : i < 25 ? OSSD_PG_HEAP_XMIN_FROZEN : OSSD_PG_HEAP_XMIN_INVALID;
      add_row (&p, i, im, i < 10 ? 500 : i < 20 ? 1500 : i < 25 ? 5000 : 600, false);
    }
  memcpy (r->pages[0], p.page, OSSD_PG_BLCKSZ);
  r->npages = 1;
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 } };
  static const uint16_t proj[] = { 1 };
  q.nproj = 1;
  q.proj = proj;
  q.naggs = 2;
  q.aggs = aggs;
  char err[256];
  struct ossd_scan_counters tot;
  assert_int_equal (ossd_scan_run (&q, &tot, err, sizeof err), 0);
  struct ossd_agg_state_view ag[2];
  static const bool abv[] = { true, true };
  size_t pos = 0;
  assert_int_equal (ossd_group_read (s.groups.data, s.groups.len, &pos, 0, NULL, NULL, 2, abv,
                                     ag), 1);
  assert_int_equal (ag[0].count, 15);
  assert_int_equal (ag[1].sum_lo, 45 + 110);    /* 0..9 and 20..24 */
  assert_int_equal (tot.tuples_seen, 30);
  assert_int_equal (tot.tuples_visible, 15);
  sink_free (&s);
  rel_free (r);
}

static void
test_map_kernel (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1, 4 };
  static const struct ossd_scan_outcol outs[] = {
    { OSSD_PG_INT8OID, 8, 8, true, -1 }, { OSSD_PG_NUMERICOID, -1, 4, false, -1 },
  };
  q.nbind = 2;
  q.bind = bind;
  q.filter.exec = filter_id_mod3;
  q.map.exec = map_double;
  q.nout = 2;
  q.outputs = outs;
  q.workers = 2;
  char err[256] = "";
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s.nrows, (NROWS + 2) / 3);
  size_t pos = 0;
  struct ossd_row_view rv;
  struct ossd_value_view v[2];
  static const bool bv[] = { true, false };
  int64_t total = 0;
  while (ossd_row_read (s.rows.data, s.rows.len, &pos, 2, bv, &rv, v) == 1)
    {
      int64_t x = (int64_t) v[0].datum;
      assert_int_equal (x % 6, 0);
      const uint8_t *pl;
      uint32_t pll;
      ossd_varlena_payload (v[1].data, v[1].len, &pl, &pll);
      struct ossd_numeric n;
      assert_int_equal (ossd_numeric_from_pg (pl, pll, &n), 0);
      assert_int_equal (n.lo, (uint64_t) x * 125);
      total += x;
    }
  int64_t exp = 0;
  for (int id = 0; id < NROWS; id += 3)
    exp += 2 * id;
  assert_int_equal (total, exp);
  sink_free (&s);

  /* map outputs feeding a sum */
  struct sink s2 = { 0 };
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_SUM, 0 }, { OSSD_AGG_SUM, 1 } };
  q.sink_arg = &s2;
  q.naggs = 2;
  q.aggs = aggs;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  pos = 0;
  int64_t s0 = 0, s1 = 0;
  struct ossd_agg_state_view ag[2];
  static const bool abv[] = { true, false };
  while (ossd_group_read (s2.groups.data, s2.groups.len, &pos, 0, NULL, NULL, 2, abv, ag) == 1)
    {
      s0 += (int64_t) ag[0].sum_lo;
      s1 += (int64_t) ag[1].sum_lo;
      assert_int_equal (ag[1].scale, 2);
    }
  assert_int_equal (s0, exp);
  assert_int_equal (s1, exp * 125);
  sink_free (&s2);
  rel_free (r);
}

/* map: out0 = (id % 4) * 1.5 (numeric, scale 1), out1 = id (int8) */
static int
map_numeric_key (void *k, struct ossd_kctx *ctx, void *st)
{
  int64_t id = (int32_t) ctx->col[0].value;
  memset (&ctx->out[0].num, 0, sizeof ctx->out[0].num);
  ctx->out[0].num.lo = (uint64_t) ((id % 4) * 15);
  ctx->out[0].num.scale = 1;
  ctx->out[1].value = (uint64_t) id;
  return OSSD_ROW_MATCH;
}

/* A numeric group key computed by a map kernel comes out as the same
 * complete numeric varlena a projected key does (issue 12, D3). */
static void
test_map_numeric_group_key (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1 };
  static const struct ossd_scan_outcol outs[] = {
    { OSSD_PG_NUMERICOID, -1, 4, false, -1 }, { OSSD_PG_INT8OID, 8, 8, true, -1 },
  };
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 1 } };
  static const uint32_t gb[] = { 0 };
  q.nbind = 1;
  q.bind = bind;
  q.map.exec = map_numeric_key;
  q.nout = 2;
  q.outputs = outs;
  q.naggs = 2;
  q.aggs = aggs;
  q.ngroup_by = 1;
  q.group_by = gb;
  q.workers = 2;
  char err[256] = "";
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s.nhrows, 0);
  size_t pos = 0;
  int rc;
  int64_t count[4] = { 0 }, sum[4] = { 0 };
  struct ossd_value_view key;
  struct ossd_agg_state_view ag[2];
  static const bool kbv[] = { false }, abv[] = { true, true };
  while ((rc = ossd_group_read (s.groups.data, s.groups.len, &pos, 1, kbv, &key, 2, abv, ag)) == 1)
    {
      assert_false (key.isnull);
      /* a complete varlena with a 4-byte header around a numeric */
      assert_true (key.len > 4);
      assert_int_equal (ossd_rd32 (key.data) >> 2, key.len);
      const uint8_t *pl;
      uint32_t pll;
      struct ossd_numeric n;
      ossd_varlena_payload (key.data, key.len, &pl, &pll);
      assert_int_equal (ossd_numeric_from_pg (pl, pll, &n), 0);
      assert_int_equal (n.scale, 1);
      assert_true (n.lo % 15 == 0 && n.lo / 15 < 4);
      count[n.lo / 15] += ag[0].count;
      sum[n.lo / 15] += (int64_t) ag[1].sum_lo;
    }
  assert_int_equal (rc, 0);
  for (int g = 0; g < 4; g++)
    {
      int64_t c = 0, t = 0;
      for (int id = g; id < NROWS; id += 4)
        c++, t += id;
      assert_int_equal (count[g], c);
      assert_int_equal (sum[g], t);
    }
  sink_free (&s);
  rel_free (r);
}

/* map: out0 = id * 2 (int8) */
static int
map_twice_id (void *k, struct ossd_kctx *ctx, void *st)
{
  ctx->out[0].value = (uint64_t) ((int64_t) (int32_t) ctx->col[0].value * 2);
  return OSSD_ROW_MATCH;
}

/* A text column beside a map kernel's outputs: projected as stored after
 * them (output column nout + i), as a group key and in rows mode; NULL
 * names are one group.  Too many columns in all is refused. */
static void
test_map_with_projected_text (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1 };
  static const uint16_t proj[] = { 3 };
  static const struct ossd_scan_outcol outs[] = { { OSSD_PG_INT8OID, 8, 8, true, -1 } };
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 } };
  static const uint32_t gb[] = { 1 };
  q.nbind = 1;
  q.bind = bind;
  q.map.exec = map_twice_id;
  q.nout = 1;
  q.outputs = outs;
  q.nproj = 1;
  q.proj = proj;
  q.naggs = 2;
  q.aggs = aggs;
  q.ngroup_by = 1;
  q.group_by = gb;
  q.workers = 2;
  char err[256] = "";
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s.nhrows, 0);
  size_t pos = 0;
  int rc;
  int64_t nulls = 0, null_sum = 0, named = 0;
  struct ossd_value_view key;
  struct ossd_agg_state_view ag[2];
  static const bool kbv[] = { false }, abv[] = { true, true };
  while ((rc = ossd_group_read (s.groups.data, s.groups.len, &pos, 1, kbv, &key, 2, abv, ag)) == 1)
    {
      if (key.isnull)
        {
          nulls += ag[0].count;
          null_sum += (int64_t) ag[1].sum_lo;
          continue;
        }
      const uint8_t *pl;
      uint32_t pll;
      ossd_varlena_payload (key.data, key.len, &pl, &pll);
      assert_int_equal (pll, 5);
      int id = atoi ((const char *) pl + 1);
      assert_true (pl[0] == 'n' && id % 7 != 0);
      assert_int_equal (ag[0].count, 1);
      assert_int_equal ((int64_t) ag[1].sum_lo, 2 * id);
      named++;
    }
  assert_int_equal (rc, 0);
  int64_t exp_nulls = 0, exp_null_sum = 0;
  for (int id = 0; id < NROWS; id += 7)
    exp_nulls++, exp_null_sum += 2 * id;
  assert_int_equal (nulls, exp_nulls);
  assert_int_equal (null_sum, exp_null_sum);
  assert_int_equal (named, NROWS - exp_nulls);
  sink_free (&s);

  /* rows mode: the computed column, then the name as stored */
  struct sink s2 = { 0 };
  q.sink_arg = &s2;
  q.naggs = 0;
  q.ngroup_by = 0;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  assert_int_equal (s2.nrows, NROWS);
  pos = 0;
  struct ossd_row_view rv;
  struct ossd_value_view v[2];
  static const bool bv[] = { true, false };
  int rows = 0;
  while (ossd_row_read (s2.rows.data, s2.rows.len, &pos, 2, bv, &rv, v) == 1)
    {
      int64_t twice = (int64_t) v[0].datum;
      assert_int_equal (v[1].isnull, (twice / 2) % 7 == 0);
      if (!v[1].isnull)
        {
          const uint8_t *pl;
          uint32_t pll;
          ossd_varlena_payload (v[1].data, v[1].len, &pl, &pll);
          assert_int_equal (atoi ((const char *) pl + 1) * 2, twice);
        }
      rows++;
    }
  assert_int_equal (rows, NROWS);
  sink_free (&s2);

  /* the map's outputs and the projected columns share OSSD_SCAN_MAX_OUT */
  static struct ossd_scan_outcol many[OSSD_SCAN_MAX_OUT];
  for (int i = 0; i < OSSD_SCAN_MAX_OUT; i++)
    many[i] = outs[0];
  q.outputs = many;
  q.nout = OSSD_SCAN_MAX_OUT;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "projected columns beside"));
  rel_free (r);
}

static void
test_validation (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  char err[256];
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bad_bind[] = { 9 };
  q.nbind = 1;
  q.bind = bad_bind;
  assert_int_equal (ossd_scan_validate (&q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "attnum 9"));
  base_req (&q, r, &s, &tg, &br);
  q.snapshot_xmin = 0;
  assert_int_equal (ossd_scan_validate (&q, err, sizeof err), -EINVAL);
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t proj[] = { 3 };
  static const struct ossd_scan_agg sum_text[] = { { OSSD_AGG_SUM, 0 } };
  q.nproj = 1;
  q.proj = proj;
  q.naggs = 1;
  q.aggs = sum_text;
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "aggregate 0"));
  base_req (&q, r, &s, &tg, &br);
  struct ossd_scan_attr dropped[5];
  memcpy (dropped, rel_attrs, sizeof dropped);
  dropped[2].dropped = true;
  q.attrs = dropped;
  q.nproj = 1;
  q.proj = proj;
  assert_int_equal (ossd_scan_validate (&q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "dropped"));
  assert_int_equal (s.calls, 0);
  sink_free (&s);
  rel_free (r);
}

/* ---- tuples named by an index (ossd_scan_target.tuple_offsets) */

/* little-endian u16 list writer */
static uint32_t
tids_put (uint8_t *buf, uint32_t pos, unsigned n, const unsigned *offs)
{
  tb_put16 (buf + pos, (uint16_t) n);
  for (unsigned i = 0; i < n; i++)
    tb_put16 (buf + pos + 2 + 2 * i, (uint16_t) offs[i]);
  return pos + 2 + 2 * n;
}

static uint8_t *
lp_word (struct rel *r, unsigned block, unsigned off)
{
  return r->pages[block] + OSSD_PG_PAGE_HEADER_SIZE + 4 * (off - 1);
}

static uint8_t *
tuple_at (struct rel *r, unsigned block, unsigned off)
{
  uint32_t w;
  memcpy (&w, lp_word (r, block, off), 4);
  return r->pages[block] + ossd_pg_lp_off (w);
}

static void
set_infomask2 (struct rel *r, unsigned block, unsigned off, uint16_t bits)
{
  uint8_t *t = tuple_at (r, block, off) + OSSD_PG_HT_INFOMASK2;
  uint16_t m;
  memcpy (&m, t, 2);
  m |= bits;
  memcpy (t, &m, 2);
}

static int
run_named (struct rel *r, const struct ossd_block_range *ranges, uint32_t nranges,
           const uint8_t *tids, uint32_t tids_len, int workers, int *ids,
           struct ossd_scan_counters *tot, char *err, size_t errlen)
{
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1 }, proj[] = { 1, 3, 4 };
  tg.ranges = ranges;
  tg.nranges = nranges;
  tg.tuple_offsets = tids;
  tg.tuple_offsets_len = tids_len;
  q.nbind = 1;
  q.bind = bind;
  q.filter.exec = filter_all;
  q.nproj = 3;
  q.proj = proj;
  q.workers = workers;
  int rc = ossd_scan_run (&q, tot, err, errlen);
  int n = rc == 0 ? decode_rows (&s, ids) : -1;
  if (n > 0)
    qsort (ids, n, sizeof *ids, cmp_int);
  sink_free (&s);
  return rc == 0 ? n : rc;
}

static void
test_tuple_offsets (void **state)
{
  struct rel *r = rel_new ();
  static int ids[NROWS];
  uint8_t tids[512];
  uint32_t len = 0;
  char err[256] = "";
  struct ossd_scan_counters tot;
  /* block 3: line pointer 3 redirected to the heap-only tuple at 10, as
   * HOT pruning leaves a chain (tuple 3's old bytes stay, unreachable) */
  tb_put32 (lp_word (r, 3, 3), 10u | (OSSD_PG_LP_REDIRECT << 15));
  set_infomask2 (r, 3, 10, OSSD_PG_HEAP_ONLY_TUPLE);
  const struct ossd_block_range ranges[] = { { 1, 3 }, { 6, 1 }, { 9, 1 } };
  static const unsigned b1[] = { 2, 5 }, b3[] = { 3, 7 }, b6[] = { 40 }, b9[] = { 1, 40 };
  len = tids_put (tids, len, 2, b1);
  len = tids_put (tids, len, 0, NULL);          /* block 2: every tuple */
  len = tids_put (tids, len, 2, b3);
  len = tids_put (tids, len, 1, b6);
  len = tids_put (tids, len, 2, b9);
  for (int workers = 1; workers <= 3; workers += 2)
    {
      int n = run_named (r, ranges, 3, tids, len, workers, ids, &tot, err, sizeof err);
      assert_int_equal (n, 2 + 40 + 2 + 1 + 2);
      int want[] = { 41, 44 };
      assert_memory_equal (ids, want, sizeof want);
      for (int i = 0; i < 40; i++)        /* block 2 whole */
        assert_int_equal (ids[2 + i], 80 + i);
      assert_int_equal (ids[42], 126);      /* block 3, offset 7 */
      assert_int_equal (ids[43], 129);      /* offset 3, redirected to 10 */
      assert_int_equal (ids[44], 279);      /* block 6, offset 40 */
      assert_int_equal (ids[45], 360);      /* block 9, offsets 1 and 40 */
      assert_int_equal (ids[46], 399);
      assert_int_equal (tot.blocks_scanned, 5);
      assert_int_equal (tot.tuples_seen, 2 + 40 + 2 + 1 + 2);
    }

  /* a list that does not fit the page: the block is scanned whole */
  static const unsigned past[] = { 41 }, only[] = { 10 };
  const struct ossd_block_range one1[] = { { 1, 1 } }, one3[] = { { 3, 1 } };
  len = tids_put (tids, 0, 1, past);
  assert_int_equal (run_named (r, one1, 1, tids, len, 1, ids, &tot, err, sizeof err), PER_PAGE);
  /* a heap-only tuple named directly: not an index's TID, whole block */
  len = tids_put (tids, 0, 1, only);
  assert_int_equal (run_named (r, one3, 1, tids, len, 1, ids, &tot, err, sizeof err),
                    PER_PAGE - 1);
  /* a HOT-updated tuple named: its newer version is elsewhere, whole block */
  set_infomask2 (r, 1, 5, OSSD_PG_HEAP_HOT_UPDATED);
  len = tids_put (tids, 0, 2, b1);
  assert_int_equal (run_named (r, one1, 1, tids, len, 1, ids, &tot, err, sizeof err), PER_PAGE);

  /* malformed lists are refused before anything is read */
  static const unsigned desc[] = { 5, 2 };
  len = tids_put (tids, 0, 2, desc);
  assert_int_equal (run_named (r, one1, 1, tids, len, 1, ids, &tot, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "out of order"));
  len = tids_put (tids, 0, 2, b1);
  assert_int_equal (run_named (r, ranges, 3, tids, len, 1, ids, &tot, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "tuple offsets"));
  assert_int_equal (run_named (r, one1, 1, tids, len + 2, 1, ids, &tot, err, sizeof err),
                    -EINVAL);
  static const unsigned toomany[] = { 1, 2, 300 };
  len = tids_put (tids, 0, 3, toomany);
  assert_int_equal (run_named (r, one1, 1, tids, len, 1, ids, &tot, err, sizeof err), -EINVAL);
  rel_free (r);
}

/* ---- lazily bound numerics and constant arguments, through the
 * interpreter and the JIT (the executors that convert on load) */

/* rel_new's relation with row 42's numeric replaced by NaN */
static struct rel *
rel_with_nan (void)
{
  struct rel *r = rel_new ();
  struct pb p;
  pb_init (&p);
  for (int i = 0; i < PER_PAGE; i++)
    {
      int id = PER_PAGE + i;
      if (id != 42)
        {
          add_row (&p, id, OSSD_PG_HEAP_XMIN_FROZEN, 100, false);
          continue;
        }
      struct tb t;
      bool nulls[5] = { false };
      static const uint8_t nan[] = { 0x00, 0xc0 };
      tb_init (&t, 5, OSSD_PG_HEAP_XMIN_FROZEN, 100, nulls);
      tb_i32 (&t, id);
      tb_i32 (&t, id % 5);
      tb_text (&t, "n0042");
      tb_varlena (&t, nan, sizeof nan, 4);
      tb_f64 (&t, id * 0.5);
      pb_add (&p, &t);
    }
  memcpy (r->pages[1], p.page, OSSD_PG_BLCKSZ);
  return r;
}

static struct ossd_prog *
verified (const struct ossd_insn *insns, uint32_t n)
{
  struct ossd_prog *p;
  char err[256];
  assert_int_equal (ossd_prog_from_insns (insns, n, NULL, 0, &p, err, sizeof err), 0);
  if (ossd_prog_verify (p, err, sizeof err) != 0)
    fail_msg ("verifier: %s", err);
  return p;
}

#define COL_DATA(i) ((int16_t) offsetof (struct ossd_kctx, col[i].data))

static void
run_lazy_case (struct ossd_scan_kernel filter, const uint16_t *bind, uint32_t nbind,
               const struct ossd_scan_const *consts, uint32_t nconst,
               uint32_t want_rows, uint32_t want_hrows, uint16_t want_reason)
{
  struct rel *r = rel_with_nan ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t proj1[] = { 1 };
  q.nbind = nbind;
  q.bind = bind;
  q.nconst = nconst;
  q.consts = consts;
  q.filter = filter;
  q.nproj = 1;
  q.proj = proj1;
  q.workers = 2;
  char err[256] = "";
  if (ossd_scan_run (&q, NULL, err, sizeof err) != 0)
    fail_msg ("scan: %s", err);
  assert_int_equal (s.nrows, want_rows);
  assert_int_equal (s.nhrows, want_hrows);
  if (want_hrows)
    {
      size_t pos = 0;
      struct ossd_host_row_view h;
      assert_int_equal (ossd_host_row_read (s.hrows.data, s.hrows.len, &pos, &h), 1);
      assert_int_equal (h.reason, want_reason);
      assert_int_equal (h.block, 1);
      assert_int_equal (h.offnum, 42 - PER_PAGE + 1);
    }
  sink_free (&s);
  rel_free (r);
}

static void
test_lazy_numeric_binding (void **state)
{
  /* reads amt's pointer on every row: the NaN row goes to the host */
  const struct ossd_insn reads[] = {
    LDX (DW, 2, 1, COL_DATA (1)), RET (1),
  };
  /* binds amt but never reads it: no conversion, nothing for the host */
  const struct ossd_insn ignores[] = { RET (1) };
  /* amt < 50.00 (a constant argument): ids 0..39 */
  const struct ossd_insn below[] = {
    LDX (DW, 6, 1, COL_DATA (0)), LDX (DW, 2, 1, COL_DATA (1)), MOVR (1, 6),
    CALL (NUMERIC_CMP), JI (JSGE, 0, 0, 2), RET (1), RET (0),
  };
  static const uint16_t bind_id_amt[] = { 1, 4 }, bind_amt_const[] = { 4, 0 };
  struct ossd_numeric fifty = { .lo = 5000, .scale = 2 };
  uint8_t img[OSSD_NUMERIC_PG_MAXLEN];
  size_t len;
  assert_int_equal (ossd_numeric_to_pg (&fifty, img, sizeof img, &len), 0);
  const struct ossd_scan_const c50 = { OSSD_PG_NUMERICOID, false, img, (uint32_t) len };

  struct ossd_prog *p_reads = verified (reads, sizeof reads / sizeof reads[0]);
  struct ossd_prog *p_ignores = verified (ignores, sizeof ignores / sizeof ignores[0]);
  struct ossd_prog *p_below = verified (below, sizeof below / sizeof below[0]);
  for (int jit = 0; jit < 2; jit++)
    {
      struct ossd_jit_kernel *k[3] = { NULL };
      struct ossd_scan_kernel f[3];
      const struct ossd_prog *ps[3] = { p_reads, p_ignores, p_below };
      char err[256];
      for (int i = 0; i < 3; i++)
        {
          if (jit)
            {
              if (ossd_jit_compile (ps[i], &k[i], err, sizeof err) != 0)
                fail_msg ("jit: %s", err);
              f[i] = ossd_jit_scan_kernel (k[i]);
            }
          else
            f[i] = ossd_interp_scan_kernel (ps[i]);
        }
      run_lazy_case (f[0], bind_id_amt, 2, NULL, 0, NROWS - 1, 1, OSSD_HR_OVERFLOW);
      run_lazy_case (f[1], bind_id_amt, 2, NULL, 0, NROWS, 0, 0);
      run_lazy_case (f[2], bind_amt_const, 2, &c50, 1, 40, 1, OSSD_HR_OVERFLOW);
      for (int i = 0; i < 3; i++)
        if (k[i])
          ossd_jit_release (k[i]);
    }
  ossd_prog_free (p_reads);
  ossd_prog_free (p_ignores);
  ossd_prog_free (p_below);
}

static void
test_constant_validation (void **state)
{
  struct rel *r = rel_new ();
  struct sink s = { 0 };
  struct ossd_scan_request q;
  struct ossd_scan_target tg;
  struct ossd_block_range br;
  base_req (&q, r, &s, &tg, &br);
  static const uint16_t bind[] = { 1, 0 };
  static const uint8_t four[] = { 1, 0, 0 };
  const struct ossd_scan_const bad_len = { OSSD_PG_INT4OID, false, four, 3 };
  q.nbind = 2;
  q.bind = bind;
  q.filter.exec = filter_all;
  char err[256] = "";
  /* a zero binding without a constant */
  assert_int_equal (ossd_scan_validate (&q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "constant"));
  q.nconst = 1;
  q.consts = &bad_len;
  assert_int_equal (ossd_scan_validate (&q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "3 bytes"));
  sink_free (&s);
  rel_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_filter_projection),
    cmocka_unit_test (test_workers_same_result),
    cmocka_unit_test (test_limit),
    cmocka_unit_test (test_aggregates_group_by),
    cmocka_unit_test (test_group_table_full),
    cmocka_unit_test (test_empty_scan_aggregate),
    cmocka_unit_test (test_toast_and_kernel_hand_back),
    cmocka_unit_test (test_bad_and_unreadable_blocks),
    cmocka_unit_test (test_data_checksums),
    cmocka_unit_test (test_checksum_cache),
    cmocka_unit_test (test_kernel_fault_and_sink_error),
    cmocka_unit_test (test_mvcc_rule_in_scan),
    cmocka_unit_test (test_map_kernel),
    cmocka_unit_test (test_map_numeric_group_key),
    cmocka_unit_test (test_map_with_projected_text),
    cmocka_unit_test (test_lazy_numeric_binding),
    cmocka_unit_test (test_constant_validation),
    cmocka_unit_test (test_validation),
    cmocka_unit_test (test_tuple_offsets),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
