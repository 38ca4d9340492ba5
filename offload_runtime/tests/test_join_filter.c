/* test_join_filter.c - unit tests of join filters (join_filter.c and step
 * 5b of scan_engine.c): key normalisation, the exact set's records and
 * probe, the Bloom filter's sizing, bits and false-positive rate, the
 * drive-side check of malformed filters, and scans that drop rows by an
 * integer, a text and a bpchar key (NULL keys never join), with the
 * engine's validation of filters that do not fit the relation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "heap_page_builder.h"
#include "ossd_rt.h"

/* ---- building helpers ---- */
struct keys
{
  uint8_t buf[1 << 18];
  uint32_t len, count;
};

static void
keys_int (struct keys *k, int64_t v)
{
  uint8_t img[8];
  ossd_jf_int_image (v, img);
  k->len += (uint32_t) ossd_jf_exact_put (k->buf + k->len, img, 8);
  k->count++;
}

static void
keys_str (struct keys *k, const char *s)
{
  k->len += (uint32_t) ossd_jf_exact_put (k->buf + k->len, (const uint8_t *) s, (uint32_t) strlen (s));
  k->count++;
}

static struct ossd_join_filter
exact_filter (uint16_t attnum, uint8_t key_kind, const struct keys *k)
{
  return (struct ossd_join_filter) { .attnum = attnum, .key_kind = key_kind,
                                     .kind = OSSD_JF_EXACT, .keys = k->buf,
                                     .keys_len = k->len, .key_count = k->count };
}

static bool
has_int (const struct ossd_join_filter *f, int64_t v)
{
  uint8_t img[8];
  ossd_jf_int_image (v, img);
  return ossd_join_filter_test (f, img, 8);
}

/* ---- normalisation and hash ---- */
static void
test_normalisation (void **state)
{
  uint8_t a[8], b[8];
  ossd_jf_int_image (-2, a);
  for (int i = 0; i < 8; i++)
    assert_int_equal (a[i], 0xff - (i == 0));
  ossd_jf_int_image ((int64_t) (int32_t) 7, a);   /* int4 7 and int8 7: one image */
  ossd_jf_int_image ((int64_t) 7, b);
  assert_memory_equal (a, b, 8);
  assert_int_equal (ossd_jf_hash (a, 8), ossd_jf_hash (b, 8));
  assert_int_equal (ossd_jf_bpchar_len ((const uint8_t *) "AB  ", 4), 2);
  assert_int_equal (ossd_jf_bpchar_len ((const uint8_t *) "    ", 4), 0);
  assert_int_equal (ossd_jf_bpchar_len ((const uint8_t *) " A", 2), 2);
  /* the hash depends on every byte and on the length */
  assert_int_not_equal (ossd_jf_hash ((const uint8_t *) "abc", 3), ossd_jf_hash ((const uint8_t *) "abd", 3));
  assert_int_not_equal (ossd_jf_hash ((const uint8_t *) "abc\0", 4), ossd_jf_hash ((const uint8_t *) "abc", 3));
  assert_int_not_equal (ossd_jf_hash ((const uint8_t *) "", 0), ossd_jf_hash ((const uint8_t *) "\0", 1));
  assert_int_equal (ossd_jf_exact_record_size (0), 4);
  assert_int_equal (ossd_jf_exact_record_size (5), 12);
  assert_int_equal (ossd_jf_exact_record_size (8), 12);
}

/* ---- exact set ---- */
static void
test_exact_set (void **state)
{
  static struct keys k;
  char err[256];
  memset (&k, 0, sizeof k);
  for (int i = 0; i < 1000; i++)
    keys_int (&k, (int64_t) i * 3 - 500);
  struct ossd_join_filter f = exact_filter (1, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  for (int v = -600; v < 3000; v++)
    assert_int_equal (has_int (&f, v), v >= -500 && v < 2500 && (v + 500) % 3 == 0);
  ossd_join_filter_release (&f);

  /* text keys, one of them empty; duplicates are harmless */
  memset (&k, 0, sizeof k);
  keys_str (&k, "AIR");
  keys_str (&k, "");
  keys_str (&k, "MAIL");
  keys_str (&k, "AIR");
  f = exact_filter (2, OSSD_JF_KEY_BYTES, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  assert_true (ossd_join_filter_test (&f, (const uint8_t *) "AIR", 3));
  assert_true (ossd_join_filter_test (&f, (const uint8_t *) "", 0));
  assert_true (ossd_join_filter_test (&f, (const uint8_t *) "MAIL", 4));
  assert_false (ossd_join_filter_test (&f, (const uint8_t *) "air", 3));
  assert_false (ossd_join_filter_test (&f, (const uint8_t *) "AIR ", 4));
  assert_false (ossd_join_filter_test (&f, (const uint8_t *) "MAI", 3));
  ossd_join_filter_release (&f);

  /* the empty set lets nothing through */
  memset (&k, 0, sizeof k);
  f = exact_filter (1, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  assert_false (has_int (&f, 0));
  ossd_join_filter_release (&f);
}

/* ---- Bloom filter ---- */
static void
test_bloom (void **state)
{
  const uint64_t n = 10000;
  size_t bytes = ossd_jf_bloom_size (n, 1 << 20);
  unsigned k = ossd_jf_bloom_hashes (n, bytes);
  char err[256];

  assert_true ((bytes & (bytes - 1)) == 0);
  assert_true (bytes * 8 >= n * 9);           /* about 1% or better */
  assert_true (k >= 4 && k <= OSSD_JF_MAX_HASHES);
  assert_true (ossd_jf_bloom_fpp (n, bytes, k) < 0.02);
  assert_int_equal (ossd_jf_bloom_size (n, 4096), 4096);   /* capped */
  assert_true (ossd_jf_bloom_fpp (n, 4096, ossd_jf_bloom_hashes (n, 4096)) > 0.15);
  assert_int_equal (ossd_jf_bloom_size (0, 1 << 20), OSSD_JF_MIN_BLOOM_BYTES);

  uint8_t *bits = calloc (1, bytes);
  for (uint64_t i = 0; i < n; i++)
    {
      uint8_t img[8];
      ossd_jf_int_image ((int64_t) (i * 7919), img);
      ossd_jf_bloom_add (bits, bytes, k, ossd_jf_hash (img, 8));
    }
  struct ossd_join_filter f = { .attnum = 1, .key_kind = OSSD_JF_KEY_INT, .kind = OSSD_JF_BLOOM,
                                .hashes = k, .bloom = bits, .bloom_bytes = (uint32_t) bytes };
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  for (uint64_t i = 0; i < n; i++)
    assert_true (has_int (&f, (int64_t) (i * 7919)));   /* no false negatives */
  unsigned fp = 0;
  for (uint64_t i = 0; i < 100000; i++)
    fp += has_int (&f, (int64_t) (i * 7919 + 1));
  assert_true (fp < 2500);                              /* measured < 2.5% */
  ossd_join_filter_release (&f);
  free (bits);
}

/* ---- the drive's check of a filter from outside ---- */
static void
expect_refused (struct ossd_join_filter f, const char *why)
{
  char err[256] = "";
  int rc = ossd_join_filter_prepare (&f, err, sizeof err);
  assert_true (rc < 0);
  if (!strstr (err, why))
    fail_msg ("expected \"%s\" in \"%s\"", why, err);
  assert_null (f.slots);
}

static void
test_prepare_refuses (void **state)
{
  static struct keys k;
  uint8_t bits[128] = { 0 };
  memset (&k, 0, sizeof k);
  keys_int (&k, 1);
  keys_int (&k, 2);
  struct ossd_join_filter good = exact_filter (1, OSSD_JF_KEY_INT, &k), f;

  f = good; f.key_kind = 3; expect_refused (f, "key kind");
  f = good; f.kind = 2; expect_refused (f, "unknown kind");
  f = good; f.key_count = 3; expect_refused (f, "key records for a key count");
  f = good; f.key_count = 1; expect_refused (f, "key records for a key count");
  f = good; f.keys_len = 14; expect_refused (f, "truncated");
  f = good; f.keys_len -= 4; expect_refused (f, "runs past");
  f = good; f.key_count = OSSD_JF_MAX_EXACT_KEYS + 1; expect_refused (f, "exact keys (max");
  f = good; f.keys_len = OSSD_JF_MAX_KEYS_BYTES + 1; expect_refused (f, "bytes of exact keys");
  f = good; f.hashes = 3; expect_refused (f, "with Bloom bits");
  /* a record claiming a huge length */
  static struct keys big;
  memset (&big, 0, sizeof big);
  keys_int (&big, 5);
  big.buf[3] = 0x7f;
  f = exact_filter (1, OSSD_JF_KEY_INT, &big); expect_refused (f, "runs past");
  /* integer records must be 8 bytes */
  memset (&big, 0, sizeof big);
  keys_str (&big, "abc");
  f = exact_filter (1, OSSD_JF_KEY_INT, &big); expect_refused (f, "not 8");

  struct ossd_join_filter bl = { .attnum = 1, .kind = OSSD_JF_BLOOM, .hashes = 3,
                                 .bloom = bits, .bloom_bytes = 128 };
  char err[256];
  f = bl; assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  f = bl; f.bloom_bytes = 96; expect_refused (f, "power of two");
  f = bl; f.bloom_bytes = 32; expect_refused (f, "power of two");
  f = bl; f.bloom_bytes = OSSD_JF_MAX_BLOOM_BYTES * 2; expect_refused (f, "power of two");
  f = bl; f.bloom = NULL; expect_refused (f, "power of two");
  f = bl; f.hashes = 0; expect_refused (f, "hashes");
  f = bl; f.hashes = OSSD_JF_MAX_HASHES + 1; expect_refused (f, "hashes");
  f = bl; f.key_count = 1; expect_refused (f, "with exact keys");
}

/* ---- scans: (id int4, mode text, instr bpchar, k8 int8), k8 NULL when
 * id % 10 == 0, 50 rows per page ---- */
#define NPAGES 200
#define PER_PAGE 50
#define NROWS (NPAGES * PER_PAGE)
static const struct ossd_scan_attr rel_attrs[] = {
  { 4, 4, true, OSSD_PG_INT4OID }, { -1, 4, false, OSSD_PG_TEXTOID },
  { -1, 4, false, OSSD_PG_BPCHAROID }, { 8, 8, true, OSSD_PG_INT8OID },
};
static const char *modes[] = { "AIR", "MAIL", "SHIP", "air" };
static const char *instrs[] = { "NONE      ", "NONE", "TAKE BACK  ", "COLLECT" };
static uint8_t pages[NPAGES][OSSD_PG_BLCKSZ];

static int
rel_read (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  if (block >= NPAGES)
    return -ENOENT;
  memcpy (page, pages[block], OSSD_PG_BLCKSZ);
  return 0;
}

static int
setup_pages (void **state)
{
  for (int b = 0; b < NPAGES; b++)
    {
      struct pb p;
      pb_init (&p);
      for (int i = 0; i < PER_PAGE; i++)
        {
          int id = b * PER_PAGE + i;
          bool nulls[4] = { false, false, false, id % 10 == 0 };
          struct tb t;
          tb_init (&t, 4, OSSD_PG_HEAP_XMIN_FROZEN, 100, nulls);
          tb_i32 (&t, id);
          tb_text (&t, modes[id % 4]);
          tb_text (&t, instrs[id % 4]);
          if (id % 10)
            tb_i64 (&t, (int64_t) id * 1000);
          pb_add (&p, &t);
        }
      memcpy (pages[b], p.page, OSSD_PG_BLCKSZ);
    }
  return 0;
}

struct count_sink { uint32_t rows; struct ossd_scan_counters totals; int64_t idsum; };

static int
count_sink (void *arg, const struct ossd_scan_chunk *ch)
{
  struct count_sink *s = arg;
  static const bool byval[1] = { true };
  size_t pos = 0;
  struct ossd_row_view rv;
  struct ossd_value_view v;
  int r;
  while ((r = ossd_row_read (ch->rows, ch->rows_len, &pos, 1, byval, &rv, &v)) == 1)
    s->idsum += (int32_t) v.datum;
  assert_int_equal (r, 0);
  s->rows += ch->row_count;
  if (ch->last)
    s->totals = ch->counters;
  return 0;
}

/* Scan with one filter, projecting id; returns the rows, fills *s. */
static int
scan_with (const struct ossd_join_filter *f, uint32_t nf, uint32_t workers, struct count_sink *s,
           char *err, size_t errlen)
{
  static const struct ossd_block_range br = { 0, NPAGES };
  static const struct ossd_scan_target tg = { 0, 1, &br };
  static const uint16_t proj[] = { 1 };
  struct ossd_scan_request q = {
    .ntargets = 1, .targets = &tg, .natts = 4, .attrs = rel_attrs, .snapshot_xmin = 1000,
    .nproj = 1, .proj = proj, .workers = workers, .read_block = rel_read, .sink = count_sink,
    .sink_arg = s, .njoin_filters = nf, .join_filters = f,
  };
  memset (s, 0, sizeof *s);
  return ossd_scan_run (&q, NULL, err, errlen);
}

static void
test_scan_int_key (void **state)
{
  static struct keys k;
  char err[256] = "";
  struct count_sink s;
  int64_t want_sum = 0;
  uint32_t want = 0;

  /* k8 keys of ids 0..99 step 3 (id 0, 30, 60, 90 have NULL k8) and a
   * key that matches nothing */
  memset (&k, 0, sizeof k);
  for (int id = 0; id < 100; id += 3)
    {
      keys_int (&k, (int64_t) id * 1000);
      if (id % 10)
        {
          want++;
          want_sum += id;
        }
    }
  keys_int (&k, -1);
  struct ossd_join_filter f = exact_filter (4, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  for (uint32_t w = 1; w <= 3; w += 2)
    {
      assert_int_equal (scan_with (&f, 1, w, &s, err, sizeof err), 0);
      assert_int_equal (s.rows, want);
      assert_int_equal (s.idsum, want_sum);
      assert_int_equal (s.totals.join_filter_dropped, NROWS - want);
      assert_int_equal (s.totals.rows_out, want);
    }
  ossd_join_filter_release (&f);

  /* an int4 column keyed by the same filter kind: 8-byte images */
  memset (&k, 0, sizeof k);
  keys_int (&k, 7);
  keys_int (&k, 399);
  keys_int (&k, -400);
  f = exact_filter (1, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  assert_int_equal (scan_with (&f, 1, 1, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, 2);
  assert_int_equal (s.idsum, 7 + 399);
  ossd_join_filter_release (&f);
}

static void
test_scan_text_keys (void **state)
{
  static struct keys kt, kb;
  char err[256] = "";
  struct count_sink s;

  /* text: "AIR" matches ids % 4 == 0, never "air" (id % 4 == 3) */
  memset (&kt, 0, sizeof kt);
  keys_str (&kt, "AIR");
  keys_str (&kt, "TRUCK");
  struct ossd_join_filter ft = exact_filter (2, OSSD_JF_KEY_BYTES, &kt);
  assert_int_equal (ossd_join_filter_prepare (&ft, err, sizeof err), 0);
  assert_int_equal (scan_with (&ft, 1, 1, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, NROWS / 4);
  /* bpchar: "NONE" stands for "NONE      " and "NONE" (ids % 4 in 0, 1) */
  memset (&kb, 0, sizeof kb);
  keys_str (&kb, "NONE");
  struct ossd_join_filter fb = exact_filter (3, OSSD_JF_KEY_BPCHAR, &kb);
  assert_int_equal (ossd_join_filter_prepare (&fb, err, sizeof err), 0);
  assert_int_equal (scan_with (&fb, 1, 1, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, NROWS / 2);
  /* both: every filter must pass */
  struct ossd_join_filter both[2] = { ft, fb };
  assert_int_equal (scan_with (both, 2, 2, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, NROWS / 4);
  assert_int_equal (s.totals.join_filter_dropped, NROWS - NROWS / 4);
  ossd_join_filter_release (&ft);
  ossd_join_filter_release (&fb);
}

/* A filter that drops (almost) nothing in its first 8192 rows stops being
 * applied by that worker; one that drops enough stays on. */
static void
test_scan_useless_filter_stops (void **state)
{
  static struct keys k;
  char err[256] = "";
  struct count_sink s;
  memset (&k, 0, sizeof k);
  for (int id = 0; id < 9000; id++)
    keys_int (&k, id);
  struct ossd_join_filter f = exact_filter (1, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  assert_int_equal (scan_with (&f, 1, 1, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, NROWS);             /* ids 9000.. kept: filter stopped */
  assert_int_equal (s.totals.join_filter_dropped, 0);
  ossd_join_filter_release (&f);
  memset (&k, 0, sizeof k);
  for (int id = 0; id < NROWS; id += 2)
    keys_int (&k, id);
  f = exact_filter (1, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  assert_int_equal (scan_with (&f, 1, 1, &s, err, sizeof err), 0);
  assert_int_equal (s.rows, NROWS / 2);
  ossd_join_filter_release (&f);
}

static void
test_scan_validation (void **state)
{
  static struct keys k;
  char err[256] = "";
  struct count_sink s;
  memset (&k, 0, sizeof k);
  keys_int (&k, 1);
  struct ossd_join_filter f = exact_filter (4, OSSD_JF_KEY_INT, &k);
  assert_int_equal (ossd_join_filter_prepare (&f, err, sizeof err), 0);
  struct ossd_join_filter g;

  g = f; g.attnum = 0;
  assert_int_equal (scan_with (&g, 1, 1, &s, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "out of range"));
  g = f; g.attnum = 5;
  assert_int_equal (scan_with (&g, 1, 1, &s, err, sizeof err), -EINVAL);
  g = f; g.attnum = 2;        /* INT key on a text column */
  assert_int_equal (scan_with (&g, 1, 1, &s, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "does not fit"));
  g = f; g.key_kind = OSSD_JF_KEY_BPCHAR; g.attnum = 2;   /* bpchar key on text */
  assert_int_equal (scan_with (&g, 1, 1, &s, err, sizeof err), -EINVAL);
  g = f; g.slots = NULL;      /* not prepared */
  assert_int_equal (scan_with (&g, 1, 1, &s, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "not prepared"));
  assert_int_equal (scan_with (&f, OSSD_JF_MAX_FILTERS + 1, 1, &s, err, sizeof err), -EINVAL);
  assert_int_equal (scan_with (NULL, 1, 1, &s, err, sizeof err), -EINVAL);
  ossd_join_filter_release (&f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_normalisation),
    cmocka_unit_test (test_exact_set),
    cmocka_unit_test (test_bloom),
    cmocka_unit_test (test_prepare_refuses),
    cmocka_unit_test_setup (test_scan_int_key, setup_pages),
    cmocka_unit_test_setup (test_scan_text_keys, setup_pages),
    cmocka_unit_test_setup (test_scan_useless_filter_stops, setup_pages),
    cmocka_unit_test_setup (test_scan_validation, setup_pages),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
