/* test_tuple_bind.c - unit tests of tuple_bind.c's fused deform + bind
 * program against the generic path (ossd_deform_planned + ossd_bind_datum)
 * on hand-built PostgreSQL 15 tuples: every fixed width and alignment at
 * fixed offsets and after a varlena, varlena of each header form (1-byte,
 * 4-byte, compressed, external), tuples with NULLs, attmissing, dropped
 * columns, a column bound twice, projected datums, eager and lazy NUMERIC,
 * truncated tuples.  Where the fused program takes a tuple, every column,
 * numeric and datum it writes equals the generic path's; where it declines
 * (returns 1), the generic path gives the row's values or its error.
 * Every case also runs the JIT-compiled program (jit_deform.c), which must
 * return what ossd_bind_fused returns and write the same outputs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "heap_page_builder.h"
#include "jit_deform_check.h"
#include "ossd_jit.h"
#include "ossd_rt.h"

#define FROZEN OSSD_PG_HEAP_XMIN_FROZEN
#define MAXA 16

struct bound
{
  int generic_rc;              /* ossd_deform_planned */
  int generic_reason;          /* first ossd_bind_datum reason */
  int fused;                   /* ossd_bind_fused */
  struct ossd_col cols[MAXA];
  struct ossd_numeric nums[MAXA];
  struct ossd_datum datums[MAXA];
};

/* The JIT-compiled program (jit_deform.c) on the same tuple: the same
 * return code as ossd_bind_fused and, when 0, the same outputs
 * (jit_deform_check.h). */
static void
jit_agrees (const struct ossd_bind_prog *bp, const uint8_t *tup, uint32_t tuplen,
            const struct bound *fb)
{
  struct ossd_jit_deform *d;
  char err[200];
  int rc = ossd_jit_deform_compile (bp, &d, err, sizeof err);
  if (rc != 0)
    fail_msg ("jit deform: %s", err);
  struct deform_out j;
  memset (&j, 0, sizeof j);
  int jrc = ossd_jit_deform_fn (d) (bp, tup, tuplen, j.cols, j.nums, j.datums);
  ossd_jit_deform_release (d);
  assert_int_equal (jrc, fb->fused);
  if (jrc == 0)
    deform_outputs_equal (bp, fb->cols, fb->nums, fb->datums, j.cols, j.nums, j.datums);
}

/* Bind columns bind[0..nbind-1] (attnums) and the datums of put[] both
 * ways; asserts the fused result equals the generic one when it is 0. */
static struct bound
bind_both (const struct ossd_scan_attr *attrs, uint32_t natts, const uint16_t *bind,
           uint32_t nbind, bool lazy, const bool *put, const struct tb *t, uint32_t tuplen)
{
  static struct bound fb;
  struct bound g = { 0 };
  uint8_t tag[MAXA];
  bool want[MAXA] = { 0 }, put_datum[MAXA] = { 0 };
  uint32_t upto = 0;
  for (uint32_t k = 0; k < nbind; k++)
    {
      tag[k] = ossd_type_tag_of (attrs[bind[k] - 1].type_oid);
      want[bind[k] - 1] = true;
    }
  for (uint32_t i = 0; i < natts; i++)
    {
      put_datum[i] = put && put[i];
      want[i] |= put_datum[i];
      if (want[i])
        upto = i + 1;
    }
  /* the tuple alone in an exact-size heap block (ASan sees any overrun),
   * kept until the next call: the results point into it */
  static uint8_t *tup;
  free (tup);
  tup = malloc (tuplen);
  memcpy (tup, t->d, tuplen);

  struct ossd_deform_plan dp;
  assert_int_equal (ossd_deform_plan_init (&dp, attrs, natts, upto, want), 0);
  char err[200];
  g.generic_rc = ossd_deform_planned (&dp, tup, tuplen, g.datums, err, sizeof err);
  for (uint32_t k = 0; g.generic_rc == 0 && k < nbind && !g.generic_reason; k++)
    g.generic_reason = ossd_bind_datum (&g.cols[k], tag[k], &g.datums[bind[k] - 1],
                                        &attrs[bind[k] - 1], &g.nums[k], lazy);
  ossd_deform_plan_free (&dp);

  struct ossd_bind_prog bp;
  memset (&fb, 0, sizeof fb);
  assert_int_equal (ossd_bind_prog_init (&bp, attrs, natts, upto, bind, nbind, tag, lazy,
                                         put_datum), 0);
  fb.fused = ossd_bind_fused (&bp, tup, tuplen, fb.cols, fb.nums, fb.datums);
  jit_agrees (&bp, tup, tuplen, &fb);
  ossd_bind_prog_free (&bp);
  assert_true (fb.fused == 0 || fb.fused == 1);
  fb.generic_rc = g.generic_rc;
  fb.generic_reason = g.generic_reason;
  if (fb.fused == 0)
    {
      assert_int_equal (g.generic_rc, 0);
      assert_int_equal (g.generic_reason, 0);
      for (uint32_t k = 0; k < nbind; k++)
        {
          const struct ossd_col *a = &g.cols[k], *b = &fb.cols[k];
          assert_int_equal (a->value, b->value);
          assert_int_equal (a->len, b->len);
          assert_int_equal (a->isnull, b->isnull);
          assert_int_equal (a->type, b->type);
          if (tag[k] == OSSD_T_NUMERIC)
            {
              /* each path points at its own numeric */
              assert_ptr_equal ((void *) (uintptr_t) a->data, &g.nums[k]);
              assert_ptr_equal ((void *) (uintptr_t) b->data, &fb.nums[k]);
              assert_int_equal (g.nums[k].lo, fb.nums[k].lo);
              assert_int_equal (g.nums[k].hi, fb.nums[k].hi);
              assert_int_equal (g.nums[k].scale, fb.nums[k].scale);
              assert_int_equal (g.nums[k].flags, fb.nums[k].flags);
            }
          else
            assert_int_equal (a->data, b->data);
        }
      for (uint32_t i = 0; i < natts; i++)
        if (put_datum[i])
          {
            const struct ossd_datum *a = &g.datums[i], *b = &fb.datums[i];
            assert_int_equal (a->isnull, b->isnull);
            assert_int_equal (a->flags, b->flags);
            if (attrs[i].byval)
              assert_int_equal (a->datum, b->datum);
            else
              {
                assert_ptr_equal (a->ptr, b->ptr);
                assert_int_equal (a->len, b->len);
              }
          }
    }
  return fb;
}

static const uint8_t *
col_bytes (const struct bound *b, uint32_t k)
{
  return (const uint8_t *) (uintptr_t) b->cols[k].data;
}

/* ---- every fixed width and alignment, at fixed offsets */
static const struct ossd_scan_attr fixed_attrs[] = {
  { 1, 1, true, OSSD_PG_BOOLOID }, { 2, 2, true, OSSD_PG_INT2OID },
  { 1, 1, true, OSSD_PG_CHAROID }, { 4, 4, true, OSSD_PG_INT4OID },
  { 8, 8, true, OSSD_PG_INT8OID }, { 4, 4, true, OSSD_PG_FLOAT4OID },
  { 8, 8, true, OSSD_PG_FLOAT8OID }, { 4, 4, true, OSSD_PG_DATEOID },
  { 8, 8, true, OSSD_PG_TIMESTAMPOID }, { 4, 4, true, OSSD_PG_OIDOID },
  { 64, 1, false, OSSD_PG_NAMEOID }, { 2, 2, true, OSSD_PG_INT2OID },
};

static void
fixed_tuple (struct tb *t, const bool *nulls)
{
  char name[64] = "pg_class";
  float f = -1.5f;
  tb_init (t, 12, FROZEN, 100, nulls);
  if (!nulls || !nulls[0]) tb_bool (t, true);
  if (!nulls || !nulls[1]) tb_i16 (t, -300);
  if (!nulls || !nulls[2]) { uint8_t c = 0xfe; tb_fixed (t, &c, 1, 1); }
  if (!nulls || !nulls[3]) tb_i32 (t, -70000);
  if (!nulls || !nulls[4]) tb_i64 (t, -5000000000LL);
  if (!nulls || !nulls[5]) tb_fixed (t, &f, 4, 4);
  if (!nulls || !nulls[6]) tb_f64 (t, 2.25);
  if (!nulls || !nulls[7]) tb_i32 (t, 9000);
  if (!nulls || !nulls[8]) tb_i64 (t, 86400000000LL);
  if (!nulls || !nulls[9]) tb_i32 (t, (int32_t) 4000000000u);
  if (!nulls || !nulls[10]) tb_fixed (t, name, 64, 1);
  if (!nulls || !nulls[11]) tb_i16 (t, 7);
}

static void
test_fused_fixed_widths (void **state)
{
  static const uint16_t bind[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  struct tb t;
  fixed_tuple (&t, NULL);
  struct bound b = bind_both (fixed_attrs, 12, bind, 12, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
  assert_int_equal (b.cols[0].value, 1);
  assert_int_equal ((int64_t) b.cols[1].value, -300);             /* sign-extended */
  assert_int_equal ((int64_t) b.cols[2].value, -2);               /* "char" 0xfe */
  assert_int_equal ((int64_t) b.cols[3].value, -70000);
  assert_int_equal ((int64_t) b.cols[4].value, -5000000000LL);
  double x;
  memcpy (&x, &b.cols[5].value, 8);                               /* float4 widened */
  assert_true (x == -1.5);
  memcpy (&x, &b.cols[6].value, 8);
  assert_true (x == 2.25);
  assert_int_equal (b.cols[7].value, 9000);
  assert_int_equal (b.cols[8].value, 86400000000LL);
  assert_int_equal (b.cols[10].len, 8);                           /* name: up to its NUL */
  assert_memory_equal (col_bytes (&b, 10), "pg_class", 8);
  assert_int_equal (b.cols[11].value, 7);
  assert_int_equal (b.cols[10].type, OSSD_T_NAME);
  /* only some of them, and a tuple cut inside the fixed prefix */
  static const uint16_t some[] = { 12, 4 };
  b = bind_both (fixed_attrs, 12, some, 2, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
  b = bind_both (fixed_attrs, 12, some, 2, true, NULL, &t, t.len - 1);
  assert_int_equal (b.fused, 1);
  assert_int_equal (b.generic_rc, -EINVAL);
}

/* ---- after a varlena: the walk, and every varlena header form */
static const struct ossd_scan_attr walk_attrs[] = {
  { 4, 4, true, OSSD_PG_INT4OID },              /* 1 fixed */
  { -1, 4, false, OSSD_PG_TEXTOID },            /* 2 */
  { 1, 1, true, OSSD_PG_BOOLOID },              /* 3 walked fixed widths */
  { 8, 8, true, OSSD_PG_INT8OID },              /* 4 */
  { 2, 2, true, OSSD_PG_INT2OID },              /* 5 */
  { 4, 4, true, OSSD_PG_FLOAT4OID },            /* 6 */
  { -1, 4, false, OSSD_PG_NUMERICOID },         /* 7 */
  { -1, 4, false, OSSD_PG_VARCHAROID },         /* 8 unread ... */
  { -1, 4, false, OSSD_PG_BPCHAROID },          /* 9 ... run */
  { 64, 1, false, OSSD_PG_NAMEOID },            /* 10 walked by-ref fixed */
  { -2, 1, false, 0 },                          /* 11 cstring */
  { 8, 8, true, OSSD_PG_TIMESTAMPOID },         /* 12 */
  { -1, 4, false, OSSD_PG_BYTEAOID },           /* 13 */
};

enum vform { V_SHORT, V_LONG, V_COMPRESSED, V_EXTERNAL };

static void
put_varlena (struct tb *t, enum vform f, const char *s)
{
  char big[300];
  switch (f)
    {
    case V_SHORT: tb_text (t, s); break;
    case V_LONG:
      memset (big, 'L', sizeof big);
      memcpy (big, s, strlen (s));
      tb_varlena (t, big, sizeof big, 4);
      break;
    case V_COMPRESSED: tb_compressed (t, 20); break;
    case V_EXTERNAL: tb_external (t); break;
    }
}

static void
numeric_value (struct tb *t, bool short_header, int64_t v, int scale)
{
  struct ossd_numeric n = { .lo = (uint64_t) v, .hi = v < 0 ? -1 : 0, .scale = scale };
  uint8_t img[OSSD_NUMERIC_PG_MAXLEN];
  size_t len;
  assert_int_equal (ossd_numeric_to_pg (&n, img, sizeof img, &len), 0);
  if (short_header)
    tb_varlena (t, img + 4, (uint32_t) len - 4, 4);
  else
    tb_fixed (t, img, (unsigned) len, 4);
}

/* fa: header form of attribute 2, fb: of attributes 8, 9 and 13 */
static void
walk_tuple (struct tb *t, enum vform fa, enum vform fb, bool num_short, const bool *nulls)
{
  char name[64] = "relname";
  float f = 3.5f;
  tb_init (t, 13, FROZEN, 100, nulls);
  tb_i32 (t, 41);
  if (!nulls || !nulls[1]) put_varlena (t, fa, "abc");
  tb_bool (t, false);
  tb_i64 (t, 1234567890123LL);
  tb_i16 (t, -2);
  tb_fixed (t, &f, 4, 4);
  if (!nulls || !nulls[6]) numeric_value (t, num_short, -12345, 2);
  put_varlena (t, fb, "varchar");
  put_varlena (t, fb, "bpchar  ");
  tb_fixed (t, name, 64, 1);
  tb_fixed (t, "cstr", 5, 1);
  tb_i64 (t, -1);
  put_varlena (t, fb, "\x01\x02\x03");
}

static const uint16_t walk_bind[] = { 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13 };
#define NWALK_BIND (sizeof walk_bind / sizeof walk_bind[0])

static void
test_fused_after_varlena (void **state)
{
  struct tb t;
  for (int lazy = 0; lazy < 2; lazy++)
    for (int nshort = 0; nshort < 2; nshort++)
      for (int fa = V_SHORT; fa <= V_LONG; fa++)
        for (int fb = V_SHORT; fb <= V_LONG; fb++)
          {
            walk_tuple (&t, fa, fb, nshort, NULL);
            struct bound b = bind_both (walk_attrs, 13, walk_bind, NWALK_BIND, lazy, NULL, &t,
                                        t.len);
            assert_int_equal (b.fused, 0);
            assert_int_equal (b.cols[0].value, 41);
            assert_int_equal (b.cols[1].len, fa == V_SHORT ? 3 : 300);
            assert_memory_equal (col_bytes (&b, 1), "abc", 3);
            assert_int_equal (b.cols[3].value, 1234567890123LL);
            assert_int_equal ((int64_t) b.cols[4].value, -2);
            assert_int_equal (b.cols[6].type, OSSD_T_NUMERIC);
            if (!lazy)
              {
                assert_int_equal ((int64_t) b.nums[6].lo, -12345);
                assert_int_equal (b.nums[6].scale, 2);
              }
            assert_int_equal (b.cols[7].len, 7);                    /* name "relname" */
            assert_int_equal (b.cols[8].len, 5);                    /* cstring with NUL */
            assert_int_equal ((int64_t) b.cols[9].value, -1);
            assert_int_equal (b.cols[10].len, fb == V_SHORT ? 3 : 300);
            /* only the last attribute: everything before it walked */
            static const uint16_t last[] = { 13 };
            b = bind_both (walk_attrs, 13, last, 1, lazy, NULL, &t, t.len);
            assert_int_equal (b.fused, 0);
            /* cut anywhere: declined, and the generic path reports it */
            for (uint32_t cut = t.d[OSSD_PG_HT_HOFF]; cut < t.len; cut += 7)
              {
                b = bind_both (walk_attrs, 13, last, 1, lazy, NULL, &t, cut);
                assert_int_equal (b.fused, 1);
                assert_int_equal (b.generic_rc, -EINVAL);
              }
          }
}

/* compressed and external values, read or only walked over: declined */
static void
test_fused_declines_toast (void **state)
{
  struct tb t;
  for (int f = V_COMPRESSED; f <= V_EXTERNAL; f++)
    {
      walk_tuple (&t, f, V_SHORT, true, NULL);
      struct bound b = bind_both (walk_attrs, 13, walk_bind, NWALK_BIND, true, NULL, &t,
                                  t.len);
      assert_int_equal (b.fused, 1);
      assert_int_equal (b.generic_rc, 0);
      assert_int_equal (b.generic_reason, OSSD_HR_TOAST);
      walk_tuple (&t, V_SHORT, f, true, NULL);
      static const uint16_t after[] = { 10, 12 };               /* past the toasted 8, 9 */
      b = bind_both (walk_attrs, 13, after, 2, true, NULL, &t, t.len);
      assert_int_equal (b.fused, 1);
      assert_int_equal (b.generic_rc, 0);
      assert_int_equal (b.generic_reason, 0);
    }
}

/* tuples with NULLs take the generic path, whose NULLs are bound */
static void
test_fused_declines_nulls (void **state)
{
  struct tb t;
  bool nulls[13] = { 0 };
  nulls[6] = true;
  walk_tuple (&t, V_SHORT, V_SHORT, true, nulls);
  assert_true (ossd_rd16 (t.d + OSSD_PG_HT_INFOMASK) & OSSD_PG_HEAP_HASNULL);
  struct bound b = bind_both (walk_attrs, 13, walk_bind, NWALK_BIND, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 1);
  assert_int_equal (b.generic_rc, 0);
  assert_int_equal (b.generic_reason, 0);
  bool fnulls[12] = { [3] = true };
  fixed_tuple (&t, fnulls);
  static const uint16_t one[] = { 1 };
  b = bind_both (fixed_attrs, 12, one, 1, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 1);
  /* the same row without nulls is the fused program's */
  walk_tuple (&t, V_SHORT, V_SHORT, true, NULL);
  b = bind_both (walk_attrs, 13, walk_bind, NWALK_BIND, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
}

/* attributes added after the tuple was written (attmissing) */
static void
test_fused_declines_missing (void **state)
{
  static const int32_t miss = 99;
  static const struct ossd_scan_attr attrs[] = {
    { 4, 4, true, OSSD_PG_INT4OID },
    { -1, 4, false, OSSD_PG_TEXTOID },
    { 4, 4, true, OSSD_PG_INT4OID, -1, .has_missing = true, .missing = &miss, .missing_len = 4 },
  };
  struct tb t;
  tb_init (&t, 2, FROZEN, 100, NULL);
  tb_i32 (&t, 1);
  tb_text (&t, "old row");
  static const uint16_t bind[] = { 3, 1 };
  struct bound b = bind_both (attrs, 3, bind, 2, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 1);
  assert_int_equal (b.generic_rc, 0);
  /* the same descriptor on a row written after the column was added */
  tb_init (&t, 3, FROZEN, 100, NULL);
  tb_i32 (&t, 1);
  tb_text (&t, "new row");
  tb_i32 (&t, 5);
  b = bind_both (attrs, 3, bind, 2, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
  assert_int_equal (b.cols[0].value, 5);
  /* attributes up to the last one read are stored: fine */
  static const uint16_t first[] = { 1 };
  tb_init (&t, 2, FROZEN, 100, NULL);
  tb_i32 (&t, 1);
  tb_text (&t, "old row");
  b = bind_both (attrs, 3, first, 1, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
}

/* dropped columns keep their storage and are walked over */
static void
test_fused_dropped_columns (void **state)
{
  static const struct ossd_scan_attr attrs[] = {
    { 2, 2, true, OSSD_PG_INT2OID },
    { 8, 8, true, 0, -1, .dropped = true },
    { 4, 4, true, OSSD_PG_INT4OID },
    { -1, 4, false, 0, -1, .dropped = true },
    { -1, 4, false, 0, -1, .dropped = true },
    { 8, 8, true, OSSD_PG_INT8OID },
    { -1, 4, false, OSSD_PG_TEXTOID },
  };
  struct tb t;
  tb_init (&t, 7, FROZEN, 100, NULL);
  tb_i16 (&t, 3);
  tb_i64 (&t, 77);
  tb_i32 (&t, 4);
  tb_text (&t, "gone");
  put_varlena (&t, V_LONG, "gone too");
  tb_i64 (&t, 6);
  tb_text (&t, "kept");
  static const uint16_t bind[] = { 7, 6, 3, 1 };
  struct bound b = bind_both (attrs, 7, bind, 4, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
  assert_int_equal (b.cols[0].len, 4);
  assert_memory_equal (col_bytes (&b, 0), "kept", 4);
  assert_int_equal (b.cols[1].value, 6);
  assert_int_equal (b.cols[2].value, 4);
  assert_int_equal (b.cols[3].value, 3);
}

/* a column bound twice, projected datums beside bound columns */
static void
test_fused_many_sinks (void **state)
{
  struct tb t;
  walk_tuple (&t, V_LONG, V_SHORT, false, NULL);
  static const uint16_t bind[] = { 7, 2, 7, 4 };
  bool put[13] = { [0] = true, [1] = true, [6] = true, [8] = true, [11] = true };
  for (int lazy = 0; lazy < 2; lazy++)
    {
      struct bound b = bind_both (walk_attrs, 13, bind, 4, lazy, put, &t, t.len);
      assert_int_equal (b.fused, 0);
      assert_int_equal (b.datums[0].datum, 41);
      assert_int_equal (b.datums[11].datum, (uint64_t) -1);
      assert_int_equal (b.datums[8].len, 1 + 8);                  /* "bpchar  ", 1-byte hdr */
      assert_int_equal (b.datums[1].len, 4 + 300);
      assert_ptr_not_equal (b.cols[0].data, b.cols[2].data);      /* own numerics */
    }
  /* datums only, no kernel columns (a projection scan) */
  struct bound b = bind_both (walk_attrs, 13, NULL, 0, true, put, &t, t.len);
  assert_int_equal (b.fused, 0);
}

/* an eager numeric that does not convert: declined, the generic path
 * gives the host reason; lazily bound it is the kernel's business */
static void
test_fused_numeric_failure (void **state)
{
  static const struct ossd_scan_attr attrs[] = { { -1, 4, false, OSSD_PG_NUMERICOID } };
  static const uint16_t bind[] = { 1 };
  struct tb t;
  uint8_t nan[2];
  tb_put16 (nan, 0xC000);      /* NUMERIC_NAN */
  tb_init (&t, 1, FROZEN, 100, NULL);
  tb_varlena (&t, nan, 2, 4);
  struct bound b = bind_both (attrs, 1, bind, 1, false, NULL, &t, t.len);
  assert_int_equal (b.fused, 1);
  assert_int_equal (b.generic_rc, 0);
  assert_int_equal (b.generic_reason, OSSD_HR_OVERFLOW);
  b = bind_both (attrs, 1, bind, 1, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 0);
  assert_int_equal (b.nums[0].flags & OSSD_NUMERIC_LAZY_FLAGS, OSSD_NUMERIC_LAZY_PENDING);
}

/* a t_hoff that is not MAXALIGNed would put the fixed offsets elsewhere
 * than the generic path's alignment: declined */
static void
test_fused_declines_unaligned_hoff (void **state)
{
  static const struct ossd_scan_attr attrs[] = { { 4, 4, true, OSSD_PG_INT4OID },
                                                 { 8, 8, true, OSSD_PG_INT8OID } };
  static const uint16_t bind[] = { 2 };
  struct tb t;
  tb_init (&t, 2, FROZEN, 100, NULL);
  t.d[OSSD_PG_HT_HOFF] = 28;
  t.len = 28;
  tb_i32 (&t, 1);
  tb_i64 (&t, 2);
  struct bound b = bind_both (attrs, 2, bind, 1, true, NULL, &t, t.len);
  assert_int_equal (b.fused, 1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fused_fixed_widths),
    cmocka_unit_test (test_fused_after_varlena),
    cmocka_unit_test (test_fused_declines_toast),
    cmocka_unit_test (test_fused_declines_nulls),
    cmocka_unit_test (test_fused_declines_missing),
    cmocka_unit_test (test_fused_dropped_columns),
    cmocka_unit_test (test_fused_many_sinks),
    cmocka_unit_test (test_fused_numeric_failure),
    cmocka_unit_test (test_fused_declines_unaligned_hoff),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
