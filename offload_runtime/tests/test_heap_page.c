/* test_heap_page.c - unit tests of heap_page.c and heap_deform.c on
 * hand-built PostgreSQL 15 pages: valid pages, corrupt headers, bad line
 * pointers, truncated tuples (clear errors naming block / lp / attnum, no
 * crash), the MVCC rule, alignment and varlena forms, missing attributes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "heap_page_builder.h"

#define FROZEN OSSD_PG_HEAP_XMIN_FROZEN

static void
one_tuple_page (struct pb *p)
{
  struct tb t;
  pb_init (p);
  tb_init (&t, 1, FROZEN, 100, NULL);
  tb_i32 (&t, 7);
  pb_add (p, &t);
}

static int
check (const struct pb *p, uint32_t *reason, char *err, size_t n)
{
  return ossd_page_check (p->page, 7, reason, err, n);
}

static void
test_valid_page (void **state)
{
  struct pb p;
  struct tb t;
  pb_init (&p);
  for (int i = 0; i < 3; i++)
    {
      tb_init (&t, 1, FROZEN, 100, NULL);
      tb_i32 (&t, i);
      pb_add (&p, &t);
    }
  pb_lp (&p, OSSD_PG_LP_DEAD, 0, 0);
  pb_lp (&p, OSSD_PG_LP_UNUSED, 0, 0);
  pb_lp (&p, OSSD_PG_LP_REDIRECT, 2, 0);
  uint32_t reason = 99;
  char err[200] = "";
  assert_int_equal (check (&p, &reason, err, sizeof err), 0);
  assert_int_equal (reason, 0);
  assert_int_equal (ossd_page_max_offnum (p.page), 6);
  const uint8_t *tup;
  uint32_t len;
  assert_int_equal (ossd_page_item (p.page, 1, &tup, &len), OSSD_PG_LP_NORMAL);
  assert_int_equal (len, 24 + 4);
  assert_int_equal (ossd_page_item (p.page, 4, &tup, &len), OSSD_PG_LP_DEAD);
  assert_int_equal (ossd_page_item (p.page, 5, &tup, &len), OSSD_PG_LP_UNUSED);
  assert_int_equal (ossd_page_item (p.page, 6, &tup, &len), OSSD_PG_LP_REDIRECT);
}

static void
test_all_zero_page_is_empty (void **state)
{
  static uint8_t page[OSSD_PG_BLCKSZ];
  uint32_t reason;
  char err[200];
  assert_int_equal (ossd_page_check (page, 0, &reason, err, sizeof err), 0);
  assert_int_equal (ossd_page_max_offnum (page), 0);
}

static void
test_bad_version (void **state)
{
  struct pb p;
  one_tuple_page (&p);
  tb_put16 (p.page + 18, OSSD_PG_BLCKSZ | 3);
  uint32_t reason;
  char err[200] = "";
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_int_equal (reason, OSSD_HB_BAD_HEADER);
  assert_non_null (strstr (err, "block 7"));
  tb_put16 (p.page + 18, 4096 | 4);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
}

static void
test_bad_bounds_and_flags (void **state)
{
  struct pb p;
  uint32_t reason;
  char err[200] = "";
  one_tuple_page (&p);
  tb_put16 (p.page + 12, p.upper + 8);        /* pd_lower > pd_upper */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "pd_lower"));
  one_tuple_page (&p);
  tb_put16 (p.page + 16, 8000);                /* special space on a heap page */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  one_tuple_page (&p);
  tb_put16 (p.page + 12, 10);                  /* pd_lower inside the header */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  one_tuple_page (&p);
  tb_put16 (p.page + 10, 0x0100);              /* unknown pd_flags */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "pd_flags"));
  one_tuple_page (&p);
  tb_put16 (p.page + 14, 0);                   /* pd_upper 0 on a non-zero page */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_int_equal (reason, OSSD_HB_BAD_HEADER);
}

static void
test_bad_line_pointers (void **state)
{
  struct pb p;
  uint32_t reason;
  char err[200] = "";
  /* tuple running past the page end */
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_NORMAL, 8184, 64);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_int_equal (reason, OSSD_HB_BAD_LINE_POINTER);
  assert_non_null (strstr (err, "block 7 lp 2"));
  /* misaligned */
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_NORMAL, p.upper + 4, 24);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_int_equal (reason, OSSD_HB_BAD_LINE_POINTER);
  /* pointing into the line pointer array (below pd_upper) */
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_NORMAL, 24, 24);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  /* shorter than a tuple header */
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_NORMAL, p.upper, 10);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  /* redirect out of range, redirect with a length */
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_REDIRECT, 9, 0);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "redirect"));
  one_tuple_page (&p);
  pb_lp (&p, OSSD_PG_LP_REDIRECT, 1, 8);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
}

static void
test_truncated_tuple_header (void **state)
{
  struct pb p;
  uint32_t reason;
  char err[200] = "";
  one_tuple_page (&p);
  p.page[p.upper + OSSD_PG_HT_HOFF] = 64;     /* t_hoff past the tuple */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  assert_int_equal (reason, OSSD_HB_BAD_TUPLE);
  assert_non_null (strstr (err, "block 7 lp 1"));
  assert_non_null (strstr (err, "t_hoff"));
  one_tuple_page (&p);
  p.page[p.upper + OSSD_PG_HT_HOFF] = 20;     /* inside the fixed header */
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  /* a null bitmap for 100 attributes does not fit a 24-byte t_hoff */
  one_tuple_page (&p);
  tb_put16 (p.page + p.upper + OSSD_PG_HT_INFOMASK2, 100);
  tb_put16 (p.page + p.upper + OSSD_PG_HT_INFOMASK, FROZEN | OSSD_PG_HEAP_HASNULL);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
  one_tuple_page (&p);
  tb_put16 (p.page + p.upper + OSSD_PG_HT_INFOMASK2, 2000);
  assert_int_equal (check (&p, &reason, err, sizeof err), -EINVAL);
}

/* Random garbage and random single-byte corruption never crash the
 * checker, and a page it accepts never points outside itself. */
static void
test_garbage_pages (void **state)
{
  static uint8_t page[OSSD_PG_BLCKSZ];
  char err[200];
  uint32_t reason;
  unsigned seed = 12345;
  for (int round = 0; round < 3000; round++)
    {
      struct pb p;
      struct tb t;
      pb_init (&p);
      for (int i = 0; i < 5; i++)
        {
          tb_init (&t, 2, FROZEN, 100, NULL);
          tb_i32 (&t, i);
          tb_text (&t, "hello");
          pb_add (&p, &t);
        }
      memcpy (page, p.page, sizeof page);
      int flips = 1 + rand_r (&seed) % 8;
      for (int f = 0; f < flips; f++)
        page[rand_r (&seed) % 256] ^= (uint8_t) (1u << (rand_r (&seed) % 8));
      if (round % 10 == 0)
        for (int i = 0; i < OSSD_PG_BLCKSZ; i++)
          page[i] = (uint8_t) rand_r (&seed);
      if (ossd_page_check (page, 1, &reason, err, sizeof err) == 0)
        for (unsigned o = 1; o <= ossd_page_max_offnum (page); o++)
          {
            const uint8_t *tup;
            uint32_t len;
            if (ossd_page_item (page, o, &tup, &len) == OSSD_PG_LP_NORMAL)
              {
                assert_true (tup >= page && tup + len <= page + OSSD_PG_BLCKSZ);
                assert_true (tup[OSSD_PG_HT_HOFF] <= len);
              }
          }
    }
}

static void
test_xid_precedes (void **state)
{
  assert_true (ossd_xid_precedes (100, 200));
  assert_false (ossd_xid_precedes (200, 100));
  assert_false (ossd_xid_precedes (100, 100));
  /* modulo 2^32: 4000000000 is "before" 100 after wraparound */
  assert_true (ossd_xid_precedes (4000000000u, 100));
  assert_false (ossd_xid_precedes (100, 4000000000u));
  assert_true (ossd_xid_precedes (2, 100));   /* frozen xid */
  assert_true (ossd_xid_precedes (1, 3));
  assert_true (ossd_xid_precedes (2, 4000000000u));
}

static enum ossd_visibility
vis (uint16_t infomask, uint32_t xmin, uint32_t snap)
{
  struct tb t;
  tb_init (&t, 0, infomask, xmin, NULL);
  return ossd_tuple_visibility (t.d, snap);
}

static void
test_visibility_rule (void **state)
{
  assert_int_equal (vis (FROZEN, 5000, 1000), OSSD_VIS_COUNT);         /* frozen wins */
  assert_int_equal (vis (0, 999, 1000), OSSD_VIS_COUNT);
  assert_int_equal (vis (0, 1000, 1000), OSSD_VIS_SKIP);               /* not before */
  assert_int_equal (vis (0, 1001, 1000), OSSD_VIS_SKIP);
  assert_int_equal (vis (OSSD_PG_HEAP_XMIN_COMMITTED, 1001, 1000), OSSD_VIS_SKIP);
  assert_int_equal (vis (OSSD_PG_HEAP_XMIN_INVALID, 999, 1000), OSSD_VIS_SKIP);  /* aborted */
  assert_int_equal (vis (0, 0, 1000), OSSD_VIS_SKIP);
  assert_int_equal (vis (0, 2, 1000), OSSD_VIS_COUNT);                 /* FrozenTransactionId */
  assert_int_equal (vis (0, 4000000000u, 100), OSSD_VIS_COUNT);        /* wraparound */
  assert_int_equal (vis (OSSD_PG_HEAP_MOVED_OFF, 999, 1000), OSSD_VIS_HOST);
  assert_int_equal (vis (OSSD_PG_HEAP_MOVED_OFF | OSSD_PG_HEAP_XMIN_COMMITTED, 999, 1000),
                    OSSD_VIS_COUNT);
  /* xmax and HOT bits are ignored */
  struct tb t;
  tb_init (&t, 0, OSSD_PG_HEAP_XMIN_COMMITTED, 999, NULL);
  tb_put32 (t.d + OSSD_PG_HT_XMAX, 999);
  tb_put16 (t.d + OSSD_PG_HT_INFOMASK2, OSSD_PG_HEAP_HOT_UPDATED);
  assert_int_equal (ossd_tuple_visibility (t.d, 1000), OSSD_VIS_COUNT);
}

/* attrs: 1 bool, 2 int8, 3 text, 4 int2, 5 text, 6 int4, 7 dropped int4,
 *        8 int4 missing 42, 9 text missing NULL, 10 text missing 'abc' */
static const uint8_t missing_abc[] = { (4 << 1) | 1, 'a', 'b', 'c' };
static const int32_t missing_42 = 42;
static const struct ossd_scan_attr attrs10[] = {
  { 1, 1, true, 16 }, { 8, 8, true, 20 }, { -1, 4, false, 25 }, { 2, 2, true, 21 },
  { -1, 4, false, 25 }, { 4, 4, true, 23 }, { 4, 4, true, 0, .dropped = true },
  { 4, 4, true, 23, .has_missing = true, .missing = &missing_42, .missing_len = 4 },
  { -1, 4, false, 25, .has_missing = true, .missing_null = true },
  { -1, 4, false, 25, .has_missing = true, .missing = missing_abc, .missing_len = 4 },
};

static void
build_row (struct tb *t, const char *longtext)
{
  bool nulls[7] = { false, false, false, true, false, false, false };
  tb_init (t, 7, FROZEN, 100, nulls);
  tb_bool (t, true);
  tb_i64 (t, -5000000000LL);
  tb_text (t, "xy");               /* 1-byte header, unaligned */
  /* attr 4 NULL */
  tb_text (t, longtext);           /* 4-byte header, aligned */
  tb_i32 (t, -7);
  tb_i32 (t, 99);                  /* dropped column's old data */
}

static void
test_deform_layout (void **state)
{
  char longtext[300];
  memset (longtext, 'L', 299);
  longtext[299] = 0;
  struct tb t;
  build_row (&t, longtext);
  bool want[10];
  memset (want, 1, sizeof want);
  struct ossd_datum d[10];
  char err[200] = "";
  assert_int_equal (ossd_deform (t.d, t.len, attrs10, 10, 10, want, d, err, sizeof err), 0);
  assert_false (d[0].isnull);
  assert_int_equal (d[0].datum, 1);
  assert_int_equal ((int64_t) d[1].datum, -5000000000LL);
  assert_int_equal (d[2].len, 3);
  assert_memory_equal (d[2].ptr + 1, "xy", 2);
  assert_true (d[3].isnull);
  assert_int_equal (d[4].len, 303);
  assert_int_equal ((d[4].ptr - t.d) % 4, 0);
  const uint8_t *pl;
  uint32_t pll;
  ossd_varlena_payload (d[4].ptr, d[4].len, &pl, &pll);
  assert_int_equal (pll, 299);
  assert_memory_equal (pl, longtext, 299);
  assert_int_equal ((int64_t) d[5].datum, -7);     /* sign-extended datum */
  assert_int_equal (d[7].datum, 42);                /* missing attribute */
  assert_true (d[8].isnull);
  assert_int_equal (d[9].len, 4);
  ossd_varlena_payload (d[9].ptr, d[9].len, &pl, &pll);
  assert_memory_equal (pl, "abc", 3);
}

static void
test_deform_only_referenced (void **state)
{
  struct tb t;
  build_row (&t, "short");
  /* corrupt everything after attribute 2: deforming 1..2 must not care */
  memset (t.d + 40, 0xff, t.len - 40);
  bool want[10] = { false, true };
  struct ossd_datum d[10];
  char err[200];
  assert_int_equal (ossd_deform (t.d, t.len, attrs10, 10, 2, want, d, err, sizeof err), 0);
  assert_int_equal ((int64_t) d[1].datum, -5000000000LL);
}

static void
test_deform_truncated (void **state)
{
  char longtext[300];
  memset (longtext, 'L', 299);
  longtext[299] = 0;
  struct tb t;
  build_row (&t, longtext);
  bool want[10];
  memset (want, 1, sizeof want);
  struct ossd_datum d[10];
  char err[200] = "";
  /* cut the tuple in the middle of the long text */
  assert_int_equal (ossd_deform (t.d, 100, attrs10, 10, 10, want, d, err, sizeof err),
                    -EINVAL);
  assert_non_null (strstr (err, "attnum 5"));
  /* cut inside the int8 */
  assert_int_equal (ossd_deform (t.d, 28, attrs10, 10, 10, want, d, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "attnum 2"));
  /* malformed varlena header (4-byte length < 4) */
  struct tb u;
  tb_init (&u, 3, FROZEN, 100, NULL);
  tb_bool (&u, true);
  tb_i64 (&u, 1);
  tb_align (&u, 4);
  tb_put32 (u.d + u.len, 1 << 2);
  u.len += 4;
  assert_int_equal (ossd_deform (u.d, u.len, attrs10, 10, 3, want, d, err, sizeof err),
                    -EINVAL);
  assert_non_null (strstr (err, "attnum 3"));
}

static void
test_deform_toast_flags (void **state)
{
  struct tb t;
  tb_init (&t, 5, FROZEN, 100, NULL);
  tb_bool (&t, false);
  tb_i64 (&t, 1);
  tb_external (&t);
  tb_i16 (&t, 3);
  tb_compressed (&t, 40);
  bool want[10];
  memset (want, 1, sizeof want);
  struct ossd_datum d[10];
  char err[200];
  assert_int_equal (ossd_deform (t.d, t.len, attrs10, 10, 5, want, d, err, sizeof err), 0);
  assert_int_equal (d[2].flags, OSSD_DF_EXTERNAL);
  assert_int_equal (d[2].len, 18);
  assert_int_equal ((int16_t) d[3].datum, 3);
  assert_int_equal (d[4].flags, OSSD_DF_COMPRESSED);
  assert_int_equal (d[4].len, 48);
}

/* The planned deform (fast path for tuples without nulls) against the
 * general one: random rows, some cut short or with bytes overwritten,
 * must give the same result code and the same wanted datums. */
static const struct ossd_scan_attr attrs_planned[] = {
  { 8, 8, true, 20 }, { 4, 4, true, 23 }, { 2, 2, true, 21 }, { 1, 1, true, 16 },
  { -1, 4, false, 25 }, { 4, 4, true, 23 }, { -1, 4, false, 25 }, { 8, 8, true, 20 },
  { -1, 4, false, 25 },
};

static uint64_t
xorshift (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void
test_deform_planned_matches_general (void **state)
{
  const uint32_t natts = 9;
  uint64_t seed = 12345;
#define RND() xorshift (&seed)
  for (int iter = 0; iter < 20000; iter++)
    {
      struct tb t;
      bool nulls[9] = { false };
      bool withnull = RND () % 5 == 0;
      if (withnull)
        nulls[RND () % natts] = true;
      tb_init (&t, (uint16_t) natts, FROZEN, 100, withnull ? nulls : NULL);
      char txt[3][200];
      for (int k = 0; k < 3; k++)
        {
          size_t n = RND () % (k == 1 ? 190 : 20);
          memset (txt[k], 'a' + k, n);
          txt[k][n] = 0;
        }
      int tx = 0;
      for (uint32_t a = 0; a < natts; a++)
        {
          if (nulls[a])
            continue;
          switch (attrs_planned[a].len)
            {
            case 8: tb_i64 (&t, (int64_t) RND ()); break;
            case 4: tb_i32 (&t, (int32_t) RND ()); break;
            case 2: tb_i16 (&t, (int16_t) RND ()); break;
            case 1: tb_bool (&t, RND () & 1); break;
            default: tb_text (&t, txt[tx++]); break;
            }
        }
      uint32_t len = t.len;
      switch (RND () % 4)
        {
        case 0:
          len = (uint32_t) (RND () % (t.len + 1));
          if (len < OSSD_PG_HT_BITS + 1)
            len = t.len;
          break;
        case 1:
          t.d[t.d[OSSD_PG_HT_HOFF] + RND () % (t.len - t.d[OSSD_PG_HT_HOFF])] = (uint8_t) RND ();
          break;
        default:
          break;
        }
      uint32_t upto = 1 + (uint32_t) (RND () % natts);
      bool want[9];
      for (uint32_t a = 0; a < natts; a++)
        want[a] = RND () % 3 != 0;
      struct ossd_deform_plan plan;
      assert_int_equal (ossd_deform_plan_init (&plan, attrs_planned, natts, upto, want), 0);
      struct ossd_datum d1[9], d2[9];
      memset (d1, 0, sizeof d1);
      memset (d2, 0, sizeof d2);
      char e1[200], e2[200];
      int r1 = ossd_deform (t.d, len, attrs_planned, natts, upto, want, d1, e1, sizeof e1);
      int r2 = ossd_deform_planned (&plan, t.d, len, d2, e2, sizeof e2);
      ossd_deform_plan_free (&plan);
      if (r1 != r2)
        fail_msg ("iteration %d: general %d (%s), planned %d (%s)", iter, r1, e1, r2, e2);
      if (r1 < 0)
        continue;
      for (uint32_t a = 0; a < upto; a++)
        if (want[a] && (d1[a].isnull != d2[a].isnull || d1[a].flags != d2[a].flags
                        || d1[a].datum != d2[a].datum || d1[a].ptr != d2[a].ptr
                        || d1[a].len != d2[a].len))
          fail_msg ("iteration %d: attribute %u differs", iter, a + 1);
    }
#undef RND
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_valid_page),
    cmocka_unit_test (test_deform_planned_matches_general),
    cmocka_unit_test (test_all_zero_page_is_empty),
    cmocka_unit_test (test_bad_version),
    cmocka_unit_test (test_bad_bounds_and_flags),
    cmocka_unit_test (test_bad_line_pointers),
    cmocka_unit_test (test_truncated_tuple_header),
    cmocka_unit_test (test_garbage_pages),
    cmocka_unit_test (test_xid_precedes),
    cmocka_unit_test (test_visibility_rule),
    cmocka_unit_test (test_deform_layout),
    cmocka_unit_test (test_deform_only_referenced),
    cmocka_unit_test (test_deform_truncated),
    cmocka_unit_test (test_deform_toast_flags),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
