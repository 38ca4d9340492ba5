/* test_helpers.c - helper semantics against known values: NUMERIC
 * fixed point (incl. overflow -> row to host), float8 (PostgreSQL NaN and
 * -0 rules, errors -> host), text/LIKE/bpchar under C collation, dates,
 * hashing, and the PostgreSQL on-disk numeric conversions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers_internal.h"
#include "ossd_rt.h"

static struct ossd_numeric
N (const char *s)
{
  struct ossd_numeric n;
  assert_int_equal (ossd_numeric_from_string (s, &n), 0);
  return n;
}

static void
assert_num (const struct ossd_numeric *n, const char *expect)
{
  char buf[96];
  assert_int_equal (ossd_numeric_to_string (n, buf, sizeof buf), 0);
  assert_string_equal (buf, expect);
}

static uint64_t
call (int id, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, bool *to_host)
{
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  uint64_t r = ossd_helpers[id] (a1, a2, a3, a4, 0, &st);
  *to_host = st.row_to_host;
  return r;
}

#define A(p) ((uint64_t) (uintptr_t) (p))

static uint64_t
call5 (int id, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
       bool *to_host)
{
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  uint64_t r = ossd_helpers[id] (a1, a2, a3, a4, a5, &st);
  *to_host = st.row_to_host;
  return r;
}

static uint64_t
dbits (double d)
{
  uint64_t b;
  memcpy (&b, &d, 8);
  return b;
}

static double
bitsd (uint64_t b)
{
  double d;
  memcpy (&d, &b, 8);
  return d;
}

static void
numeric_cmp_values (void **state)
{
  static const struct { const char *a, *b; int r; } t[] = {
    { "1", "1.000", 0 }, { "0.05", "0.050", 0 }, { "-0.01", "0", -1 }, { "12.5", "12.49", 1 },
    { "-5", "-4.999", -1 }, { "99999999999999999999999999999999999999", "1.00000000000000000000000000000000000001", 1 },
    { "-99999999999999999999999999999999999999", "0.1", -1 }, { "0", "-0.00", 0 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      struct ossd_numeric a = N (t[i].a), b = N (t[i].b);
      bool host;
      int64_t r = (int64_t) call (OSSD_H_NUMERIC_CMP, A (&a), A (&b), 0, 0, &host);
      assert_false (host);
      if (r != t[i].r)
        fail_msg ("cmp(%s, %s) = %lld", t[i].a, t[i].b, (long long) r);
      r = (int64_t) call (OSSD_H_NUMERIC_CMP, A (&b), A (&a), 0, 0, &host);
      assert_int_equal (r, -t[i].r);
    }
}

static void
numeric_arith_values (void **state)
{
  struct ossd_numeric a = N ("12.50"), b = N ("0.075"), r;
  bool host;
  call (OSSD_H_NUMERIC_ADD, A (&a), A (&b), A (&r), 0, &host);
  assert_false (host);
  assert_num (&r, "12.575");
  call (OSSD_H_NUMERIC_SUB, A (&b), A (&a), A (&r), 0, &host);
  assert_num (&r, "-12.425");
  call (OSSD_H_NUMERIC_MUL, A (&a), A (&b), A (&r), 0, &host);
  assert_num (&r, "0.93750");   /* dscale 2 + 3, as PostgreSQL */
  a = N ("-3.1");
  b = N ("-2");
  call (OSSD_H_NUMERIC_MUL, A (&a), A (&b), A (&r), 0, &host);
  assert_num (&r, "6.2");
  /* overflow of add, sub and mul -> host */
  a = N ("99999999999999999999999999999999999999");
  b = N ("99999999999999999999999999999999999999");
  call (OSSD_H_NUMERIC_ADD, A (&a), A (&b), A (&r), 0, &host);
  assert_true (host);
  b = N ("-99999999999999999999999999999999999999");
  call (OSSD_H_NUMERIC_SUB, A (&a), A (&b), A (&r), 0, &host);
  assert_true (host);
  a = N ("10000000000000000000");
  b = N ("100000000000000000000");
  call (OSSD_H_NUMERIC_MUL, A (&a), A (&b), A (&r), 0, &host);
  assert_true (host);
  /* aligning scales can overflow too */
  a = N ("99999999999999999999999999999999999999");
  b = N ("0.1");
  call (OSSD_H_NUMERIC_ADD, A (&a), A (&b), A (&r), 0, &host);
  assert_true (host);
  /* result scale above 38 */
  a = N ("0.00000000000000000001");
  b = N ("0.0000000000000000001");
  call (OSSD_H_NUMERIC_MUL, A (&a), A (&b), A (&r), 0, &host);
  assert_true (host);
  /* invalid scale in an operand */
  a.scale = 40;
  call (OSSD_H_NUMERIC_CMP, A (&a), A (&b), 0, 0, &host);
  assert_true (host);
}

static void
numeric_conversions (void **state)
{
  struct ossd_numeric r;
  bool host;
  call (OSSD_H_NUMERIC_FROM_INT, (uint64_t) -1234, 2, A (&r), 0, &host);
  assert_false (host);
  assert_num (&r, "-12.34");
  call (OSSD_H_NUMERIC_FROM_INT, 5, 39, A (&r), 0, &host);
  assert_true (host);
  /* float8 -> numeric as PostgreSQL (15 significant digits) */
  static const struct { double d; int scale; const char *expect; } f[] = {
    { 0.1, 1, "0.1" }, { 0.1, 3, "0.100" }, { 1e20, 0, "100000000000000000000" },
    { -2.5, 2, "-2.50" }, { 1.0 / 3, 15, "0.333333333333333" }, { 0.0, 0, "0" },
    { 123456789012345678.0, 0, "123456789012346000" },
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    {
      call (OSSD_H_NUMERIC_FROM_FLOAT8, dbits (f[i].d), f[i].scale, A (&r), 0, &host);
      assert_false (host);
      assert_num (&r, f[i].expect);
    }
  call (OSSD_H_NUMERIC_FROM_FLOAT8, dbits (0.1), 0, A (&r), 0, &host);
  assert_true (host);           /* 0.1 needs one fractional digit */
  call (OSSD_H_NUMERIC_FROM_FLOAT8, dbits (NAN), 2, A (&r), 0, &host);
  assert_true (host);
  call (OSSD_H_NUMERIC_FROM_FLOAT8, dbits (INFINITY), 2, A (&r), 0, &host);
  assert_true (host);
  call (OSSD_H_NUMERIC_FROM_FLOAT8, dbits (1e300), 0, A (&r), 0, &host);
  assert_true (host);
  /* numeric -> float8, correctly rounded */
  struct ossd_numeric n = N ("0.1");
  assert_true (bitsd (call (OSSD_H_NUMERIC_TO_FLOAT8, A (&n), 0, 0, 0, &host)) == 0.1);
  n = N ("-12345.678");
  assert_true (bitsd (call (OSSD_H_NUMERIC_TO_FLOAT8, A (&n), 0, 0, 0, &host)) == -12345.678);
  n = N ("99999999999999999999999999999999999999");
  assert_true (bitsd (call (OSSD_H_NUMERIC_TO_FLOAT8, A (&n), 0, 0, 0, &host)) == 1e38);
}

static void
float8_semantics (void **state)
{
  bool host;
  double nan = NAN, inf = INFINITY;
#define CMP(a, b) ((int64_t) call (OSSD_H_FLOAT8_CMP, dbits (a), dbits (b), 0, 0, &host))
  assert_int_equal (CMP (1.0, 2.0), -1);
  assert_int_equal (CMP (2.0, 1.0), 1);
  assert_int_equal (CMP (-0.0, 0.0), 0);
  assert_int_equal (CMP (nan, nan), 0);
  assert_int_equal (CMP (nan, inf), 1);
  assert_int_equal (CMP (inf, nan), -1);
  assert_int_equal (CMP (-nan, 1.0), 1);
  assert_int_equal (CMP (-inf, -1e308), -1);
#undef CMP
  assert_true (bitsd (call (OSSD_H_FLOAT8_ADD, dbits (1.5), dbits (2.25), 0, 0, &host)) == 3.75);
  assert_false (host);
  assert_true (bitsd (call (OSSD_H_FLOAT8_SUB, dbits (1.5), dbits (2.25), 0, 0, &host)) == -0.75);
  assert_true (bitsd (call (OSSD_H_FLOAT8_MUL, dbits (1.5), dbits (-2.0), 0, 0, &host)) == -3.0);
  assert_true (bitsd (call (OSSD_H_FLOAT8_DIV, dbits (1.0), dbits (4.0), 0, 0, &host)) == 0.25);
  assert_true (bitsd (call (OSSD_H_FLOAT8_FROM_INT, (uint64_t) -7, 0, 0, 0, &host)) == -7.0);
  /* infinities in are fine, overflow is an error in PostgreSQL -> host */
  assert_true (isinf (bitsd (call (OSSD_H_FLOAT8_ADD, dbits (inf), dbits (1.0), 0, 0, &host))));
  assert_false (host);
  call (OSSD_H_FLOAT8_ADD, dbits (1.7e308), dbits (1.7e308), 0, 0, &host);
  assert_true (host);
  call (OSSD_H_FLOAT8_MUL, dbits (1e200), dbits (1e200), 0, 0, &host);
  assert_true (host);
  call (OSSD_H_FLOAT8_MUL, dbits (1e-200), dbits (1e-200), 0, 0, &host);
  assert_true (host);           /* underflow */
  call (OSSD_H_FLOAT8_DIV, dbits (1.0), dbits (0.0), 0, 0, &host);
  assert_true (host);           /* division by zero */
  assert_true (isnan (bitsd (call (OSSD_H_FLOAT8_DIV, dbits (nan), dbits (0.0), 0, 0, &host))));
  assert_false (host);
  assert_true (isnan (bitsd (call (OSSD_H_FLOAT8_ADD, dbits (inf), dbits (-inf), 0, 0, &host))));
  assert_false (host);
}

static int64_t
text2 (int id, const char *a, const char *b, bool *host)
{
  return (int64_t) call (id, A (a), strlen (a), A (b), strlen (b), host);
}

static void
text_semantics (void **state)
{
  bool host;
  assert_int_equal (text2 (OSSD_H_TEXT_CMP, "abc", "abd", &host), -1);
  assert_int_equal (text2 (OSSD_H_TEXT_CMP, "abc", "ab", &host), 1);
  assert_int_equal (text2 (OSSD_H_TEXT_CMP, "", "", &host), 0);
  assert_int_equal (text2 (OSSD_H_TEXT_CMP, "B", "a", &host), -1);     /* C collation */
  assert_int_equal (text2 (OSSD_H_TEXT_CMP, "\xc3\xa9", "z", &host), 1); /* bytes > 0x7f sort high */
  assert_int_equal (text2 (OSSD_H_TEXT_EQ, "abc", "abc", &host), 1);
  assert_int_equal (text2 (OSSD_H_TEXT_EQ, "abc", "abc ", &host), 0);
  assert_int_equal (text2 (OSSD_H_TEXT_PREFIX, "abcdef", "abc", &host), 1);
  assert_int_equal (text2 (OSSD_H_TEXT_PREFIX, "ab", "abc", &host), 0);
  assert_int_equal (text2 (OSSD_H_TEXT_PREFIX, "ab", "", &host), 1);
  assert_int_equal (text2 (OSSD_H_BPCHAR_EQ, "ab   ", "ab", &host), 1);
  assert_int_equal (text2 (OSSD_H_BPCHAR_EQ, "ab", " ab", &host), 0);
  assert_int_equal (text2 (OSSD_H_BPCHAR_EQ, "   ", "", &host), 1);
  assert_int_equal (text2 (OSSD_H_BPCHAR_CMP, "ab  ", "ab", &host), 0);
  assert_int_equal (text2 (OSSD_H_BPCHAR_CMP, "ab ", "ab!", &host), -1);
  assert_int_equal (text2 (OSSD_H_BPCHAR_CMP, "abc", "ab  ", &host), 1);
}

static int64_t
substr2 (const char *s, uint64_t spec, const char *b, bool *host)
{
  return (int64_t) call5 (OSSD_H_TEXT_SUBSTR_CMP, A (s), strlen (s), spec, A (b),
                          strlen (b), host);
}

/* substring(s from skip+1 for take) = b, in bytes (single-byte) and in
 * UTF-8 characters, as PostgreSQL's text_substring computes it. */
static void
substr_semantics (void **state)
{
  static const struct { const char *s; uint64_t skip, take, flags; const char *r; } t[] = {
    { "13-555-1234", 0, 2, 0, "13" },
    { "13-555-1234", 0, 2, OSSD_SUBSTR_UTF8, "13" },
    { "abc", 1, 1, 0, "b" },
    { "abc", 1, OSSD_SUBSTR_TO_END, 0, "bc" },
    { "abc", 3, 2, 0, "" },                      /* start past the end */
    { "abc", 0, 0, 0, "" },                      /* zero length */
    { "abc", 1, 100, 0, "bc" },                  /* length past the end */
    { "", 0, 2, OSSD_SUBSTR_UTF8, "" },
    { "h\xc3\xa9llo", 1, 3, OSSD_SUBSTR_UTF8, "\xc3\xa9ll" },   /* 'éll' */
    { "h\xc3\xa9llo", 1, 3, 0, "\xc3\xa9l" },                    /* bytes, LATIN1-like */
    { "\xe2\x82\xac\xf0\x9f\x98\x80x", 1, 1, OSSD_SUBSTR_UTF8, "\xf0\x9f\x98\x80" },
    { "\xe2\x82\xac\xf0\x9f\x98\x80x", 2, OSSD_SUBSTR_TO_END, OSSD_SUBSTR_UTF8, "x" },
    { "ab   ", 1, 3, 0, "b  " },
    { "ab   ", 1, 3, OSSD_SUBSTR_RTRIM, "b" },     /* bpchar::text drops the blanks */
    { "     ", 0, 2, OSSD_SUBSTR_RTRIM | OSSD_SUBSTR_UTF8, "" },
  };
  bool host;

  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      uint64_t spec = OSSD_SUBSTR_SPEC (t[i].skip, t[i].take) | t[i].flags;
      int64_t r = substr2 (t[i].s, spec, t[i].r, &host);
      assert_false (host);
      if (r != 0)
        fail_msg ("case %zu: substring differs (%lld)", i, (long long) r);
    }
  /* ordering of the substring, C collation */
  assert_int_equal (substr2 ("abc", OSSD_SUBSTR_SPEC (0, 2), "ac", &host), -1);
  assert_int_equal (substr2 ("abc", OSSD_SUBSTR_SPEC (0, 2), "a", &host), 1);
  assert_int_equal (substr2 ("abc", OSSD_SUBSTR_SPEC (1, 2), "ab", &host), 1);
  /* a UTF-8 sequence cut short by the end, or holding NUL: the host */
  substr2 ("a\xe2\x82", OSSD_SUBSTR_SPEC (1, 1) | OSSD_SUBSTR_UTF8, "", &host);
  assert_true (host);
  {
    static const uint8_t nul[] = { 'a', 0xc3, 0x00, 'b' };
    call5 (OSSD_H_TEXT_SUBSTR_CMP, A (nul), sizeof nul,
           OSSD_SUBSTR_SPEC (0, 3) | OSSD_SUBSTR_UTF8, A ("a"), 1, &host);
    assert_true (host);
  }
  /* the same bytes as single-byte characters are decided */
  assert_int_equal (substr2 ("a\xe2\x82", OSSD_SUBSTR_SPEC (1, 1), "\xe2", &host), 0);
  assert_false (host);
}

static void
like_semantics (void **state)
{
  static const struct { const char *s, *p; int r; } t[] = {
    { "hello", "hello", 1 }, { "hello", "h%", 1 }, { "hello", "%o", 1 }, { "hello", "%ll%", 1 },
    { "hello", "h_llo", 1 }, { "hello", "h_lo", 0 }, { "hello", "%", 1 }, { "", "%", 1 },
    { "", "", 1 }, { "a", "", 0 }, { "", "_", 0 }, { "abc", "a%c", 1 }, { "abc", "a%b", 0 },
    { "a%c", "a\\%c", 1 }, { "abc", "a\\%c", 0 }, { "a_c", "a\\_c", 1 }, { "abc", "a\\_c", 0 },
    { "a\\c", "a\\\\c", 1 }, { "abc", "\\a\\b\\c", 1 }, { "mississippi", "%iss%ppi", 1 },
    { "mississippi", "m%s%s%s%", 1 }, { "mississippi", "m%x%", 0 }, { "abab", "%ab", 1 },
    { "aaa", "%%%a", 1 }, { "ab", "a__", 0 }, { "HELLO", "hello", 0 },
    { "x\xc3\xa9y", "x%y", 1 },     /* % may span multibyte characters */
    { "\xc3\xa9", "%", 1 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      bool host;
      int64_t r = text2 (OSSD_H_TEXT_LIKE, t[i].s, t[i].p, &host);
      if (host || r != t[i].r)
        fail_msg ("'%s' LIKE '%s' = %lld (host %d)", t[i].s, t[i].p, (long long) r, host);
    }
  bool host;
  text2 (OSSD_H_TEXT_LIKE, "abc", "ab\\", &host);
  assert_true (host);           /* PostgreSQL: pattern must not end with escape */
  text2 (OSSD_H_TEXT_LIKE, "x\xc3\xa9y", "x_y", &host);
  assert_true (host);           /* '_' over a multibyte character: host decides */
  assert_int_equal (text2 (OSSD_H_TEXT_LIKE, "x\xc3\xa9y", "x%", &host), 1);
  assert_false (host);
}

static void
date_hash_semantics (void **state)
{
  bool host;
  assert_int_equal ((int64_t) call (OSSD_H_DATE_CMP, (uint64_t) -5, 3, 0, 0, &host), -1);
  assert_int_equal ((int64_t) call (OSSD_H_DATE_CMP, 7, 7, 0, 0, &host), 0);
  assert_int_equal ((int64_t) call (OSSD_H_DATE_CMP, INT32_MAX, INT32_MIN, 0, 0, &host), 1); /* +-infinity */
  assert_int_equal ((int64_t) call (OSSD_H_TIMESTAMP_CMP, (uint64_t) INT64_MIN, 0, 0, 0, &host), -1);
  assert_int_equal ((int64_t) call (OSSD_H_TIMESTAMP_CMP, 1, 0, 0, 0, &host), 1);
  const char *s = "lineitem";
  uint64_t h1 = call (OSSD_H_HASH64, A (s), 8, 0, 0, &host);
  uint64_t h2 = call (OSSD_H_HASH64, A (s), 8, 1, 0, &host);
  uint64_t h3 = call (OSSD_H_HASH64, A (s), 7, 0, 0, &host);
  assert_true (h1 != h2 && h1 != h3 && h2 != h3);
  assert_int_equal (h1, ossd_hash64 (s, 8, 0));
  assert_int_equal (call (OSSD_H_HASH64, A (s), 0, 0, 0, &host), ossd_hash64 ("", 0, 0));
}

/* ---- PostgreSQL on-disk numeric ---- */
static void
pg_numeric_known_bytes (void **state)
{
  static const struct { const char *text; uint8_t bytes[24]; size_t len; } t[] = {
    /* 12.50: short header 0x8100 (dscale 2, weight 0), digits 12, 5000 */
    { "12.50", { 0x28, 0, 0, 0, 0x00, 0x81, 12, 0, 0x88, 0x13 }, 10 },
    /* -0.05: 0xA17F (neg, dscale 2, weight -1), digit 500 */
    { "-0.05", { 0x20, 0, 0, 0, 0x7f, 0xa1, 0xf4, 0x01 }, 8 },
    /* 0.00: no digits, positive, weight 0 */
    { "0.00", { 0x18, 0, 0, 0, 0x00, 0x81 }, 6 },
    { "-0", { 0x18, 0, 0, 0, 0x00, 0x80 }, 6 },
    /* 10000: weight 1, digit 1 (trailing zero group stripped) */
    { "10000", { 0x20, 0, 0, 0, 0x01, 0x80, 1, 0 }, 8 },
    /* 1.0001: weight 0, digits 1, 1 */
    { "1.0001", { 0x28, 0, 0, 0, 0x00, 0x82, 1, 0, 1, 0 }, 10 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      struct ossd_numeric n = N (t[i].text), back;
      uint8_t buf[OSSD_NUMERIC_PG_MAXLEN];
      size_t len;
      assert_int_equal (ossd_numeric_to_pg (&n, buf, sizeof buf, &len), 0);
      if (len != t[i].len || memcmp (buf, t[i].bytes, len) != 0)
        fail_msg ("to_pg(%s): wrong bytes (len %zu)", t[i].text, len);
      assert_int_equal (ossd_numeric_from_pg (buf + 4, len - 4, &back), 0);
      int c;
      assert_int_equal (ossd_numeric_cmp (&n, &back, &c), 0);
      assert_int_equal (c, 0);
      assert_int_equal (back.scale, n.scale);
    }
}

static void
pg_numeric_parse (void **state)
{
  struct ossd_numeric n;
  /* long format: n_sign_dscale 0x4002 (negative, dscale 2), weight 0, 12 5000 */
  const uint8_t lng[] = { 0x02, 0x40, 0x00, 0x00, 12, 0, 0x88, 0x13 };
  assert_int_equal (ossd_numeric_from_pg (lng, sizeof lng, &n), 0);
  assert_num (&n, "-12.50");
  /* dscale 1 but a digit with a nonzero second fractional place */
  const uint8_t inexact[] = { 0x80, 0x80, 0x00, 0x00, 0x0c, 0x00, 0x89, 0x13 };
  (void) inexact;
  const uint8_t bad_digit[] = { 0x00, 0x81, 0x10, 0x27 };   /* digit 10000 */
  assert_int_equal (ossd_numeric_from_pg (bad_digit, sizeof bad_digit, &n), -EINVAL);
  const uint8_t nan[] = { 0x00, 0xc0 };
  assert_int_equal (ossd_numeric_from_pg (nan, sizeof nan, &n), -ERANGE);
  const uint8_t pinf[] = { 0x00, 0xd0 };
  assert_int_equal (ossd_numeric_from_pg (pinf, sizeof pinf, &n), -ERANGE);
  const uint8_t odd[] = { 0x00, 0x81, 0x01 };
  assert_int_equal (ossd_numeric_from_pg (odd, sizeof odd, &n), -EINVAL);
  /* 10^40: weight 10, digit 1 -> does not fit */
  const uint8_t huge[] = { 0x0a, 0x80, 1, 0 };
  assert_int_equal (ossd_numeric_from_pg (huge, sizeof huge, &n), -ERANGE);
  /* dscale 1 with digit 0.1234 at weight -1: digits beyond dscale -> refuse */
  const uint8_t beyond[] = { 0xff, 0x80, 0xd2, 0x04 };      /* 0x80ff: dscale 1, weight -1 */
  assert_int_equal (ossd_numeric_from_pg (beyond, sizeof beyond, &n), -ERANGE);
  /* dscale 1 with digit 0.1000 -> 0.1 */
  const uint8_t exact[] = { 0xff, 0x80, 0xe8, 0x03 };
  assert_int_equal (ossd_numeric_from_pg (exact, sizeof exact, &n), 0);
  assert_num (&n, "0.1");
}

/* The 64-bit fast path (up to 4 base-10000 digits) against the general
 * per-digit path: the same value with leading zero digits added (weight
 * raised to match) takes the general path and must give the same result
 * or the same refusal. */
static void
pg_numeric_fast_path_matches_general (void **state)
{
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int iter = 0; iter < 200000; iter++)
    {
      seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
      int nd = (int) (seed % 5);                 /* 0..4 digits */
      int weight = (int) ((seed >> 8) % 24) - 12;
      int dscale = (int) ((seed >> 16) % 20);
      bool neg = (seed >> 24) & 1;
      uint8_t fast[4 + 2 * 4], slow[4 + 2 * 9];
      uint16_t hs = (uint16_t) ((neg ? 0x4000 : 0) | dscale);
      int16_t w = (int16_t) weight, w2 = (int16_t) (weight + 5);
      memcpy (fast, &hs, 2);
      memcpy (fast + 2, &w, 2);
      memcpy (slow, &hs, 2);
      memcpy (slow + 2, &w2, 2);
      memset (slow + 4, 0, 10);                  /* five zero digits */
      for (int i = 0; i < nd; i++)
        {
          seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
          int16_t d = (int16_t) (seed % 10000);
          if ((seed >> 20) % 3 == 0)
            d = (int16_t) (d / 1000 * 1000);     /* trailing zeros, exact */
          memcpy (fast + 4 + 2 * i, &d, 2);
          memcpy (slow + 14 + 2 * i, &d, 2);
        }
      struct ossd_numeric a, b;
      int ra = ossd_numeric_from_pg (fast, 4 + 2 * (size_t) nd, &a);
      int rb = ossd_numeric_from_pg (slow, 14 + 2 * (size_t) nd, &b);
      if (ra != rb)
        fail_msg ("iteration %d: fast path %d, general path %d (nd %d weight %d dscale %d)",
                  iter, ra, rb, nd, weight, dscale);
      if (ra == 0 && (a.lo != b.lo || a.hi != b.hi || a.scale != b.scale))
        fail_msg ("iteration %d: values differ (nd %d weight %d dscale %d)", iter, nd,
                  weight, dscale);
    }
}

static void
pg_numeric_roundtrip_random (void **state)
{
  srandom (42);
  for (int i = 0; i < 20000; i++)
    {
      struct ossd_numeric n, back;
      __int128 v = ((__int128) random () << 62) ^ ((__int128) random () << 31) ^ random ();
      v >>= random () % 90;
      if (random () & 1)
        v = -v;
      n.lo = (uint64_t) v;
      n.hi = (int64_t) (v >> 64);
      n.scale = (int32_t) (random () % 39);
      n.flags = 0;
      uint8_t buf[OSSD_NUMERIC_PG_MAXLEN];
      size_t len;
      assert_int_equal (ossd_numeric_to_pg (&n, buf, sizeof buf, &len), 0);
      uint32_t vh;
      memcpy (&vh, buf, 4);
      assert_int_equal (vh >> 2, len);
      assert_int_equal (ossd_numeric_from_pg (buf + 4, len - 4, &back), 0);
      assert_true (back.lo == n.lo && back.hi == n.hi && back.scale == n.scale);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (numeric_cmp_values),
    cmocka_unit_test (numeric_arith_values),
    cmocka_unit_test (numeric_conversions),
    cmocka_unit_test (float8_semantics),
    cmocka_unit_test (text_semantics),
    cmocka_unit_test (substr_semantics),
    cmocka_unit_test (like_semantics),
    cmocka_unit_test (date_hash_semantics),
    cmocka_unit_test (pg_numeric_known_bytes),
    cmocka_unit_test (pg_numeric_parse),
    cmocka_unit_test (pg_numeric_fast_path_matches_general),
    cmocka_unit_test (pg_numeric_roundtrip_random),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
