/* test_jit_scan.c - the scan engine with interpreted and JIT-compiled
 * kernels gives byte-identical results: packed rows, host rows (NULLs,
 * numeric overflow handed to the host), partial aggregates and counters,
 * for the clang-built examples (q6_filter, like_filter, revenue_map) over
 * hand-built heap pages with NULLs and random values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "heap_page_builder.h"
#include "ossd_jit.h"

#define NATTS 5                 /* shipdate, discount, quantity, price, comment */
#define NROWS 3000

struct rel
{
  uint8_t (*pages)[OSSD_PG_BLCKSZ];
  uint32_t npages;
  uint32_t nblocks;             /* scanned: the pages over and over */
};

static const struct ossd_scan_attr attrs[NATTS] = {
  { .len = 4, .align = 4, .byval = true, .type_oid = OSSD_PG_DATEOID, .typmod = -1 },
  { .len = -1, .align = 4, .type_oid = OSSD_PG_NUMERICOID, .typmod = -1 },
  { .len = -1, .align = 4, .type_oid = OSSD_PG_NUMERICOID, .typmod = -1 },
  { .len = -1, .align = 4, .type_oid = OSSD_PG_NUMERICOID, .typmod = -1 },
  { .len = -1, .align = 4, .type_oid = OSSD_PG_TEXTOID, .typmod = -1 },
};

static uint64_t
rnd (uint64_t *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

static void
put_numeric (struct tb *t, const char *text)
{
  struct ossd_numeric n;
  uint8_t buf[256];             /* (larger than needed: keeps gcc's bounds analysis quiet) */
  size_t len;
  assert_int_equal (ossd_numeric_from_string (text, &n), 0);
  assert_int_equal (ossd_numeric_to_pg (&n, buf, OSSD_NUMERIC_PG_MAXLEN, &len), 0);
  tb_varlena (t, buf + 4, (uint32_t) len - 4, 4);
}

static struct rel *
rel_build (void)
{
  struct rel *r = calloc (1, sizeof *r);
  r->pages = calloc (NROWS / 20 + 2, OSSD_PG_BLCKSZ);
  struct tb *t = malloc (sizeof *t);
  struct pb *p = malloc (sizeof *p);
  uint64_t s = 0x5ca9;
  pb_init (p);
  for (int i = 0; i < NROWS; i++)
    {
      bool nulls[NATTS];
      char num[64];
      for (int a = 0; a < NATTS; a++)
        nulls[a] = rnd (&s) % 12 == 0;
      tb_init (t, NATTS, OSSD_PG_HEAP_XMIN_COMMITTED, 100, nulls);
      if (!nulls[0])
        tb_i32 (t, -2300 + (int32_t) (rnd (&s) % 600));
      if (!nulls[1])
        {
          snprintf (num, sizeof num, "0.%02d", (int) (rnd (&s) % 11));
          put_numeric (t, num);
        }
      if (!nulls[2])
        {
          snprintf (num, sizeof num, "%d", (int) (rnd (&s) % 50));
          put_numeric (t, num);
        }
      if (!nulls[3])
        {
          if (rnd (&s) % 40 == 0)       /* the product overflows 128 bits: row to the host */
            put_numeric (t, "99999999999999999999999999999999999.99");
          else
            {
              snprintf (num, sizeof num, "%d.%02d", (int) (rnd (&s) % 100000), (int) (rnd (&s) % 100));
              put_numeric (t, num);
            }
        }
      if (!nulls[4])
        {
          static const char *words[] = { "green", "forest", "dark", "greenish", "gree", "n" };
          char c[64] = "";
          int n = 1 + (int) (rnd (&s) % 4);
          for (int w = 0; w < n; w++)
            {
              strcat (c, words[rnd (&s) % 6]);
              strcat (c, " ");
            }
          tb_text (t, c);
        }
      unsigned need = ((t->len + 7) & ~7u) + 4;
      if (p->upper < p->lower + need)
        {
          memcpy (r->pages[r->npages++], p->page, OSSD_PG_BLCKSZ);
          pb_init (p);
        }
      pb_add (p, t);
    }
  memcpy (r->pages[r->npages++], p->page, OSSD_PG_BLCKSZ);
  r->nblocks = r->npages;
  free (t);
  free (p);
  return r;
}

static int
rel_read (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  struct rel *r = arg;
  if (block >= r->nblocks)
    return -ENOENT;
  memcpy (page, r->pages[block % r->npages], OSSD_PG_BLCKSZ);
  return 0;
}

struct out
{
  struct ossd_buf rows, hrows, groups;
  struct ossd_scan_counters totals;
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
sink (void *arg, const struct ossd_scan_chunk *ch)
{
  struct out *o = arg;
  append (&o->rows, ch->rows, ch->rows_len);
  append (&o->hrows, ch->host_rows, ch->host_rows_len);
  append (&o->groups, ch->groups, ch->groups_len);
  if (ch->last)
    o->totals = ch->counters;
  return 0;
}

static void
out_free (struct out *o)
{
  ossd_buf_free (&o->rows);
  ossd_buf_free (&o->hrows);
  ossd_buf_free (&o->groups);
}

static struct ossd_prog *
load_example (const char *name)
{
  char path[512], err[256];
  static uint8_t buf[1 << 16];
  struct ossd_prog *p;
  snprintf (path, sizeof path, "%s/%s", OSSD_RT_EXAMPLES_DIR, name);
  FILE *f = fopen (path, "rb");
  assert_non_null (f);
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  assert_int_equal (ossd_prog_load (buf, n, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
  return p;
}

enum { FILTER_Q6, FILTER_LIKE, MAP_REVENUE };

/* Runs one scan shape with the given engine (jit: compile the kernels). */
static void
scan (struct rel *r, int shape, bool jit, uint32_t workers, struct out *o)
{
  static const uint16_t bind_q6[] = { 1, 2, 3 }, bind_like[] = { 5 }, bind_rev[] = { 4, 2 };
  static const uint16_t proj[] = { 1, 2, 3, 4, 5 };
  static const struct ossd_scan_outcol outs[] = { { OSSD_PG_NUMERICOID, -1, 4, false, -1 } };
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 },
                                               { OSSD_AGG_MAX, 0 } };
  static const char *files[] = { "q6_filter.o", "like_filter.o", "revenue_map.o" };
  struct ossd_prog *p = load_example (files[shape]);
  struct ossd_jit_kernel *k = NULL;
  char err[256] = "";
  struct ossd_scan_kernel kern;
  if (jit)
    {
      assert_int_equal (ossd_jit_compile (p, &k, err, sizeof err), 0);
      kern = ossd_jit_scan_kernel (k);
    }
  else
    kern = ossd_interp_scan_kernel (p);

  struct ossd_block_range br = { 0, r->nblocks };
  struct ossd_scan_target tg = { 0, 1, &br };
  struct ossd_scan_request q = {
    .ntargets = 1, .targets = &tg, .natts = NATTS, .attrs = attrs, .snapshot_xmin = 1000,
    .workers = workers, .read_block = rel_read, .read_arg = r, .sink = sink, .sink_arg = o,
    .chunk_bytes = 4096,
  };
  if (shape == MAP_REVENUE)
    {
      q.nbind = 2, q.bind = bind_rev, q.map = kern;
      q.nout = 1, q.outputs = outs, q.naggs = 3, q.aggs = aggs;
    }
  else
    {
      q.nbind = shape == FILTER_Q6 ? 3 : 1;
      q.bind = shape == FILTER_Q6 ? bind_q6 : bind_like;
      q.filter = kern;
      q.nproj = 5, q.proj = proj;
    }
  assert_int_equal (ossd_scan_run (&q, NULL, err, sizeof err), 0);
  ossd_jit_release (k);
  ossd_prog_free (p);
}

static void
same_output (void **state)
{
  struct rel *r = rel_build ();
  static const char *names[] = { "q6_filter", "like_filter", "revenue_map" };
  for (int shape = 0; shape < 3; shape++)
    {
      struct out a = { 0 }, b = { 0 };
      scan (r, shape, false, 1, &a);
      scan (r, shape, true, 1, &b);
      if (a.rows.len != b.rows.len || memcmp (a.rows.data, b.rows.data, a.rows.len)
          || a.hrows.len != b.hrows.len || memcmp (a.hrows.data, b.hrows.data, a.hrows.len)
          || a.groups.len != b.groups.len || memcmp (a.groups.data, b.groups.data, a.groups.len)
          || memcmp (&a.totals, &b.totals, sizeof a.totals))
        fail_msg ("%s: interpreter and JIT scans differ", names[shape]);
      print_message ("# %s: %llu tuples, %llu matched, %llu rows, %llu host rows, %zu group "
                     "bytes: identical\n", names[shape], (unsigned long long) a.totals.tuples_seen,
                     (unsigned long long) a.totals.tuples_matched,
                     (unsigned long long) a.totals.rows_out,
                     (unsigned long long) a.totals.rows_to_host, a.groups.len);
      assert_true (a.totals.tuples_matched > 0);
      if (shape == MAP_REVENUE)
        assert_true (a.totals.rows_to_host > 0);        /* overflowing products */
      /* two workers: same totals */
      struct out c = { 0 };
      scan (r, shape, true, 2, &c);
      assert_int_equal (c.totals.tuples_matched, a.totals.tuples_matched);
      assert_int_equal (c.totals.rows_to_host, a.totals.rows_to_host);
      out_free (&a);
      out_free (&b);
      out_free (&c);
    }
  free (r->pages);
  free (r);
}

/* A scan long enough for the engine to run the JIT-compiled deform with
 * a JIT kernel (scan_engine.c JIT_DEFORM_MIN_BLOCKS, 16384 blocks): the
 * same bytes as the interpreter's scan, which runs ossd_bind_fused. */
static void
same_output_jit_deform (void **state)
{
  struct rel *r = rel_build ();
  r->nblocks = 16384;
  static const int shapes[] = { FILTER_Q6, MAP_REVENUE };
  for (int i = 0; i < 2; i++)
    {
      struct out a = { 0 }, b = { 0 };
      scan (r, shapes[i], false, 1, &a);
      scan (r, shapes[i], true, 1, &b);   /* one worker: rows in the same order */
      if (a.rows.len != b.rows.len || memcmp (a.rows.data, b.rows.data, a.rows.len)
          || a.hrows.len != b.hrows.len || memcmp (a.hrows.data, b.hrows.data, a.hrows.len)
          || a.totals.tuples_matched != b.totals.tuples_matched
          || a.totals.rows_to_host != b.totals.rows_to_host)
        fail_msg ("shape %d: interpreter and JIT (deform) scans differ", shapes[i]);
      assert_true (a.totals.tuples_seen > 300000);
      assert_true (a.totals.tuples_matched > 0);
      out_free (&a);
      out_free (&b);
    }
  free (r->pages);
  free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test (same_output),
                                      cmocka_unit_test (same_output_jit_deform) };
  return cmocka_run_group_tests_name ("jit_scan", tests, NULL, NULL);
}
