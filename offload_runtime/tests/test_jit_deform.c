/* test_jit_deform.c - differential tests of the JIT-compiled deform
 * (jit_deform.c) against ossd_bind_fused (tuple_bind.c): the same return
 * code and the same columns, numerics and datums on
 *   - Q6's and Q1's bindings of lineitem rows (lazy and eager numerics,
 *     dates, the text/bpchar columns walked over or bound);
 *   - random descriptors (bool, "char", int2/4/8, float4/8, date, oid,
 *     timestamp, name, numeric lazy and eager, text and bpchar with 1-byte
 *     and 4-byte headers, cstring, dropped columns, a column bound twice,
 *     projected datums) and random rows of them, placed in a heap page
 *     and read back through ossd_page_item, with NULLs, truncations and
 *     toasted values, and malformed numerics that do not convert;
 *   - a fuzz loop over mutated tuple headers (t_hoff, t_infomask,
 *     t_infomask2 / natts) and mutated bytes of the data area: both
 *     runners refuse (return 1) exactly the same tuples.
 * Each tuple is also copied into an exact-size heap block, so that a read
 * past its end by either runner shows under ASan. */
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

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t
rnd (uint32_t n)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return n ? (uint32_t) (rng_state % n) : 0;
}

/* One program: compiled JIT deform plus counts of what the runs saw. */
struct subject
{
  struct ossd_bind_prog bp;
  struct ossd_jit_deform *jit;
  uint32_t natts;
  unsigned bound, declined;
};

static void
subject_init (struct subject *s, const struct ossd_scan_attr *attrs, uint32_t natts,
              const uint16_t *bind, uint32_t nbind, bool lazy, const bool *put)
{
  uint8_t tag[DEFORM_MAX];
  bool put_datum[DEFORM_MAX] = { 0 };
  uint32_t upto = 0;
  assert_true (natts <= DEFORM_MAX && nbind <= DEFORM_MAX);
  for (uint32_t k = 0; k < nbind; k++)
    {
      tag[k] = ossd_type_tag_of (attrs[bind[k] - 1].type_oid);
      if (bind[k] > upto)
        upto = bind[k];
    }
  for (uint32_t i = 0; i < natts; i++)
    if (put && put[i])
      {
        put_datum[i] = true;
        if (i + 1 > upto)
          upto = i + 1;
      }
  memset (s, 0, sizeof *s);
  s->natts = natts;
  assert_int_equal (ossd_bind_prog_init (&s->bp, attrs, natts, upto, bind, nbind, tag, lazy,
                                         put_datum), 0);
  char err[200];
  if (ossd_jit_deform_compile (&s->bp, &s->jit, err, sizeof err) != 0)
    fail_msg ("jit deform: %s", err);
}

static void
subject_free (struct subject *s)
{
  ossd_jit_deform_release (s->jit);
  ossd_bind_prog_free (&s->bp);
}

/* Both runners on tup[0..tuplen) (copied to an exact-size block). */
static int
run_both (struct subject *s, const uint8_t *tup_in, uint32_t tuplen)
{
  static struct deform_out a, b;
  uint8_t *tup = malloc (tuplen ? tuplen : 1);
  memcpy (tup, tup_in, tuplen);
  memset (&a, 0, sizeof a);
  memset (&b, 0xa5, sizeof b);   /* the JIT must write every field it owns */
  memset (b.nums, 0, sizeof b.nums);  /* (ossd_numeric_from_pg's, both the same) */
  int ra = ossd_bind_fused (&s->bp, tup, tuplen, a.cols, a.nums, a.datums);
  int rb = ossd_jit_deform_fn (s->jit) (&s->bp, tup, tuplen, b.cols, b.nums, b.datums);
  assert_int_equal (ra, rb);
  if (ra == 0)
    {
      deform_outputs_equal (&s->bp, a.cols, a.nums, a.datums, b.cols, b.nums, b.datums);
      s->bound++;
    }
  else
    s->declined++;
  free (tup);
  return ra;
}

/* ---- values */

/* A short-format numeric payload; bad = something ossd_numeric_from_pg
 * rejects (NaN, or more digits than 128 bits hold) now and then. */
static uint32_t
numeric_payload (uint8_t *p, bool bad)
{
  if (bad && rnd (2))
    {
      tb_put16 (p, 0xC000);                      /* NaN */
      return 2;
    }
  uint32_t ndig = bad ? 12 + rnd (4) : rnd (5);
  int weight = bad ? 11 : (int) rnd (4) - 1;
  unsigned dscale = rnd (5);
  uint16_t h = OSSD_PG_NUMERIC_SHORT | (rnd (2) ? 0x2000 : 0) | (uint16_t) (dscale << 7)
    | (uint16_t) (weight < 0 ? 0x40 | (weight & 0x3f) : weight);
  tb_put16 (p, h);
  for (uint32_t i = 0; i < ndig; i++)
    tb_put16 (p + 2 + 2 * i, (uint16_t) (1 + rnd (9999)));
  return 2 + 2 * ndig;
}

enum kind
{
  K_BOOL, K_CHAR, K_INT2, K_INT4, K_INT8, K_FLOAT4, K_FLOAT8, K_DATE, K_OID, K_TS,
  K_NAME, K_NUMERIC, K_TEXT, K_BPCHAR, K_CSTRING, K_DROPPED_INT4, K_DROPPED_TEXT, K_NKINDS
};

static struct ossd_scan_attr
attr_of (enum kind k)
{
  switch (k)
    {
    case K_BOOL: return (struct ossd_scan_attr) { 1, 1, true, OSSD_PG_BOOLOID };
    case K_CHAR: return (struct ossd_scan_attr) { 1, 1, true, OSSD_PG_CHAROID };
    case K_INT2: return (struct ossd_scan_attr) { 2, 2, true, OSSD_PG_INT2OID };
    case K_INT4: return (struct ossd_scan_attr) { 4, 4, true, OSSD_PG_INT4OID };
    case K_INT8: return (struct ossd_scan_attr) { 8, 8, true, OSSD_PG_INT8OID };
    case K_FLOAT4: return (struct ossd_scan_attr) { 4, 4, true, OSSD_PG_FLOAT4OID };
    case K_FLOAT8: return (struct ossd_scan_attr) { 8, 8, true, OSSD_PG_FLOAT8OID };
    case K_DATE: return (struct ossd_scan_attr) { 4, 4, true, OSSD_PG_DATEOID };
    case K_OID: return (struct ossd_scan_attr) { 4, 4, true, OSSD_PG_OIDOID };
    case K_TS: return (struct ossd_scan_attr) { 8, 8, true, OSSD_PG_TIMESTAMPOID };
    case K_NAME: return (struct ossd_scan_attr) { 64, 1, false, OSSD_PG_NAMEOID };
    case K_NUMERIC: return (struct ossd_scan_attr) { -1, 4, false, OSSD_PG_NUMERICOID, -1 };
    case K_TEXT: return (struct ossd_scan_attr) { -1, 4, false, OSSD_PG_TEXTOID, -1 };
    case K_BPCHAR: return (struct ossd_scan_attr) { -1, 4, false, OSSD_PG_BPCHAROID, 14 };
    case K_CSTRING: return (struct ossd_scan_attr) { -2, 1, false, 2275 };
    case K_DROPPED_INT4:
      return (struct ossd_scan_attr) { 4, 4, true, 0, .dropped = true };
    default:
      return (struct ossd_scan_attr) { -1, 4, false, 0, .dropped = true };
    }
}

/* Append a random value of kind k; bad_numeric as numeric_payload. */
static void
add_value (struct tb *t, enum kind k, bool bad_numeric)
{
  uint8_t buf[400];
  uint64_t v = ((uint64_t) rnd (UINT32_MAX) << 32) | rnd (UINT32_MAX);
  switch (k)
    {
    case K_BOOL: case K_CHAR: tb_fixed (t, &v, 1, 1); return;
    case K_INT2: tb_fixed (t, &v, 2, 2); return;
    case K_INT4: case K_DATE: case K_OID: case K_DROPPED_INT4: tb_fixed (t, &v, 4, 4); return;
    case K_FLOAT4: { float f = (float) (int32_t) v / 7.0f; tb_fixed (t, &f, 4, 4); return; }
    case K_INT8: case K_TS: tb_fixed (t, &v, 8, 8); return;
    case K_FLOAT8: { double x = (double) (int64_t) v / 3.0; tb_fixed (t, &x, 8, 8); return; }
    case K_NAME:
      {
        char name[64] = { 0 };
        for (uint32_t i = 0, n = rnd (64); i < n; i++)
          name[i] = (char) ('a' + rnd (26));
        tb_fixed (t, name, 64, 1);
        return;
      }
    case K_NUMERIC:
      {
        uint32_t n = numeric_payload (buf, bad_numeric);
        if (rnd (4) == 0)
          {
            /* a 4-byte header PostgreSQL writes for a value built in memory */
            tb_align (t, 4);
            tb_put32 (t->d + t->len, (n + 4) << 2);
            memcpy (t->d + t->len + 4, buf, n);
            t->len += n + 4;
          }
        else
          tb_varlena (t, buf, n, 4);
        return;
      }
    case K_TEXT: case K_BPCHAR: case K_DROPPED_TEXT:
      {
        /* mostly short (1-byte header), sometimes past 126 bytes */
        uint32_t n = rnd (8) == 0 ? 127 + rnd (250) : rnd (40);
        for (uint32_t i = 0; i < n; i++)
          buf[i] = (uint8_t) (k == K_BPCHAR && i + 3 > n ? ' ' : 'A' + rnd (26));
        if (rnd (40) == 0)
          tb_compressed (t, n);
        else if (rnd (40) == 0)
          tb_external (t);
        else
          tb_varlena (t, buf, n, 4);
        return;
      }
    default:
      {
        uint32_t n = rnd (20);
        for (uint32_t i = 0; i < n; i++)
          buf[i] = (uint8_t) ('a' + rnd (26));
        buf[n] = 0;
        tb_fixed (t, buf, n + 1, 1);
        return;
      }
    }
}

/* A row of the descriptor: with NULLs when with_nulls (one in eight
 * values), a stored natts of `stored` (fewer: an older row). */
static void
build_row (struct tb *t, const enum kind *kinds, uint32_t natts, uint32_t stored,
           bool with_nulls, bool bad_numeric)
{
  bool nulls[DEFORM_MAX] = { 0 };
  for (uint32_t i = 0; with_nulls && i < stored; i++)
    nulls[i] = rnd (8) == 0;
  tb_init (t, (uint16_t) stored, FROZEN, 100, with_nulls ? nulls : NULL);
  for (uint32_t i = 0; i < stored; i++)
    if (!nulls[i])
      add_value (t, kinds[i], bad_numeric);
}

/* The tuple as a heap page holds it (placed by pb_add, read back through
 * the page's line pointer). */
static int
run_in_page (struct subject *s, const struct tb *t)
{
  static struct pb page;
  pb_init (&page);
  unsigned off = pb_add (&page, t);
  const uint8_t *tup;
  uint32_t tuplen;
  assert_int_equal (ossd_page_item (page.page, off, &tup, &tuplen), OSSD_PG_LP_NORMAL);
  assert_int_equal (tuplen, t->len);
  return run_both (s, tup, tuplen);
}

/* ---- lineitem: Q6 and Q1 */
static const enum kind lineitem[] = {
  K_INT4, K_INT4, K_INT4, K_INT4, K_NUMERIC, K_NUMERIC, K_NUMERIC, K_NUMERIC,
  K_BPCHAR, K_BPCHAR, K_DATE, K_DATE, K_DATE, K_BPCHAR, K_BPCHAR, K_TEXT,
};
#define LINEITEM_NATTS (sizeof lineitem / sizeof lineitem[0])

static void
lineitem_case (const uint16_t *bind, uint32_t nbind, bool lazy, const bool *put)
{
  struct ossd_scan_attr attrs[LINEITEM_NATTS];
  for (uint32_t i = 0; i < LINEITEM_NATTS; i++)
    attrs[i] = attr_of (lineitem[i]);
  struct subject s;
  subject_init (&s, attrs, LINEITEM_NATTS, bind, nbind, lazy, put);
  struct tb t;
  for (int n = 0; n < 400; n++)
    {
      build_row (&t, lineitem, LINEITEM_NATTS, LINEITEM_NATTS, n % 5 == 4, n % 7 == 6);
      run_in_page (&s, &t);
      run_both (&s, t.d, t.len - 1 - rnd (t.len - 1));   /* truncated */
    }
  print_message ("lineitem (%s numerics): %u tuples bound, %u declined by both; "
                 "compiled in %.2f ms\n", lazy ? "lazy" : "eager", s.bound, s.declined,
                 ossd_jit_deform_compile_ns (s.jit) / 1e6);
  assert_true (s.bound > 20 && s.declined > 100);
  subject_free (&s);
}

static void
test_jit_deform_q6 (void **state)
{
  /* shipdate, discount, quantity, extendedprice */
  static const uint16_t bind[] = { 11, 7, 5, 6 };
  lineitem_case (bind, 4, true, NULL);
  lineitem_case (bind, 4, false, NULL);
}

static void
test_jit_deform_q1 (void **state)
{
  /* returnflag, linestatus, quantity, extendedprice, discount, tax,
   * shipdate (bound twice), and the group keys projected */
  static const uint16_t bind[] = { 9, 10, 5, 6, 7, 8, 11, 11 };
  bool put[LINEITEM_NATTS] = { 0 };
  put[8] = put[9] = true;
  lineitem_case (bind, 8, true, put);
  lineitem_case (bind, 8, false, put);
}

/* ---- random descriptors */
static void
test_jit_deform_random_descriptors (void **state)
{
  unsigned bound = 0, declined = 0;
  for (int schema = 0; schema < 150; schema++)
    {
      uint32_t natts = 1 + rnd (20);
      enum kind kinds[DEFORM_MAX];
      struct ossd_scan_attr attrs[DEFORM_MAX];
      for (uint32_t i = 0; i < natts; i++)
        {
          kinds[i] = (enum kind) rnd (K_NKINDS);
          attrs[i] = attr_of (kinds[i]);
        }
      uint16_t bind[DEFORM_MAX];
      uint32_t nbind = 0;
      bool put[DEFORM_MAX] = { 0 };
      for (uint32_t i = 0; i < natts; i++)
        {
          if (attrs[i].dropped)
            continue;
          if (rnd (2))
            bind[nbind++] = (uint16_t) (i + 1);
          if (rnd (6) == 0)
            bind[nbind++] = (uint16_t) (i + 1);     /* bound twice */
          put[i] = rnd (5) == 0;
        }
      if (nbind == 0)
        {
          kinds[natts - 1] = K_INT4;
          attrs[natts - 1] = attr_of (K_INT4);
          bind[nbind++] = (uint16_t) natts;
        }
      struct subject s;
      subject_init (&s, attrs, natts, bind, nbind, rnd (2), put);
      struct tb t;
      for (int n = 0; n < 30; n++)
        {
          uint32_t stored = n % 10 == 9 ? rnd (natts + 1) : natts;
          build_row (&t, kinds, natts, stored, n % 6 == 5, n % 8 == 7);
          run_in_page (&s, &t);
          if (t.len > OSSD_PG_HT_BITS + 1)
            run_both (&s, t.d, OSSD_PG_HT_BITS + 1 + rnd (t.len - OSSD_PG_HT_BITS - 1));
        }
      bound += s.bound;
      declined += s.declined;
      subject_free (&s);
    }
  print_message ("random descriptors: %u tuples bound, %u declined by both\n", bound, declined);
  assert_true (bound > 1000 && declined > 1000);
}

/* ---- mutated headers and bytes: both refuse the same tuples */
static void
test_jit_deform_mutated_tuples (void **state)
{
  static const enum kind kinds[] = { K_INT4, K_TEXT, K_INT8, K_NUMERIC, K_BPCHAR, K_DATE,
                                     K_INT2, K_TEXT, K_FLOAT8 };
  const uint32_t natts = sizeof kinds / sizeof kinds[0];
  struct ossd_scan_attr attrs[sizeof kinds / sizeof kinds[0]];
  for (uint32_t i = 0; i < natts; i++)
    attrs[i] = attr_of (kinds[i]);
  static const uint16_t bind[] = { 9, 4, 1, 5, 3 };
  bool put[sizeof kinds / sizeof kinds[0]] = { [1] = true, [6] = true };
  struct subject s;
  subject_init (&s, attrs, natts, bind, 5, true, put);
  struct tb t;
  for (int n = 0; n < 20000; n++)
    {
      build_row (&t, kinds, natts, natts, false, false);
      switch (rnd (5))
        {
        case 0:
          t.d[OSSD_PG_HT_HOFF] = (uint8_t) rnd (256);
          break;
        case 1:
          tb_put16 (t.d + OSSD_PG_HT_INFOMASK, (uint16_t) rnd (65536));
          break;
        case 2:
          tb_put16 (t.d + OSSD_PG_HT_INFOMASK2, (uint16_t) rnd (65536));
          break;
        case 3:
          t.d[OSSD_PG_HT_BITS + 1 + rnd (t.len - OSSD_PG_HT_BITS - 1)] = (uint8_t) rnd (256);
          break;
        default:
          for (int k = 0; k < 4; k++)
            t.d[24 + rnd (t.len - 24)] = (uint8_t) rnd (256);
          break;
        }
      run_both (&s, t.d, t.len);
    }
  print_message ("mutated tuples: %u bound, %u declined by both\n", s.bound, s.declined);
  assert_true (s.bound > 1000 && s.declined > 1000);
  subject_free (&s);
}

/* The kernel keeps the deform of an equal program and compiles a new one
 * for a different program. */
static void
test_jit_deform_kept_by_kernel (void **state)
{
  static const struct ossd_insn ret1[] = { OSSD_MOV64_IMM (0, 1), OSSD_EXIT () };
  struct ossd_prog *p;
  struct ossd_jit_kernel *k;
  char err[200];
  assert_int_equal (ossd_prog_from_insns (ret1, 2, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
  assert_int_equal (ossd_jit_compile (p, &k, err, sizeof err), 0);
  struct ossd_scan_attr attrs[LINEITEM_NATTS];
  for (uint32_t i = 0; i < LINEITEM_NATTS; i++)
    attrs[i] = attr_of (lineitem[i]);
  static const uint16_t q6[] = { 11, 7, 5, 6 }, other[] = { 11, 7 };
  uint8_t tag[4];
  for (int i = 0; i < 4; i++)
    tag[i] = ossd_type_tag_of (attrs[q6[i] - 1].type_oid);
  bool put[LINEITEM_NATTS] = { 0 };
  struct ossd_bind_prog a, a2, b;
  assert_int_equal (ossd_bind_prog_init (&a, attrs, LINEITEM_NATTS, 11, q6, 4, tag, true, put), 0);
  assert_int_equal (ossd_bind_prog_init (&a2, attrs, LINEITEM_NATTS, 11, q6, 4, tag, true, put), 0);
  assert_int_equal (ossd_bind_prog_init (&b, attrs, LINEITEM_NATTS, 11, other, 2, tag, true, put), 0);
  struct ossd_jit_deform *da, *da2, *db;
  assert_int_equal (ossd_jit_kernel_deform (k, &a, &da, err, sizeof err), 0);
  assert_int_equal (ossd_jit_kernel_deform (k, &a2, &da2, err, sizeof err), 0);
  assert_int_equal (ossd_jit_kernel_deform (k, &b, &db, err, sizeof err), 0);
  assert_ptr_equal (da, da2);
  assert_ptr_not_equal (da, db);
  ossd_jit_release (k);          /* the scans' references outlive the kernel */
  struct tb t;
  build_row (&t, lineitem, LINEITEM_NATTS, LINEITEM_NATTS, false, false);
  struct deform_out o;
  assert_int_equal (ossd_jit_deform_fn (da) (&a, t.d, t.len, o.cols, o.nums, o.datums), 0);
  ossd_jit_deform_release (da);
  ossd_jit_deform_release (da2);
  ossd_jit_deform_release (db);
  ossd_bind_prog_free (&a);
  ossd_bind_prog_free (&a2);
  ossd_bind_prog_free (&b);
  ossd_prog_free (p);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_jit_deform_q6),
    cmocka_unit_test (test_jit_deform_q1),
    cmocka_unit_test (test_jit_deform_random_descriptors),
    cmocka_unit_test (test_jit_deform_mutated_tuples),
    cmocka_unit_test (test_jit_deform_kept_by_kernel),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
