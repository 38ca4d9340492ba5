/* numeric_core.c - exact 128-bit fixed-point NUMERIC arithmetic in C
 * (value = (hi:lo) * 10^-scale, scale 0..OSSD_NUMERIC_MAX_SCALE).  Owns
 * compare, add, sub, mul, rescale and the decimal text form; every
 * operation either gives the exact result or -ERANGE. */
#include <stdio.h>
#include <string.h>

#include "numeric_internal.h"

typedef unsigned __int128 u128;

static const i128 I128_MAX = (i128) (((u128) 1 << 127) - 1);
static const i128 I128_MIN = -(i128) (((u128) 1 << 127) - 1) - 1;


/* 10^0 .. 10^38 (10^38 < 2^127 < 10^39). */
#define P18 ((i128) 1000000000000000000LL)
const i128 ossd_num_pow10_table[39] = {
  1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
  1000000000, 10000000000LL, 100000000000LL, 1000000000000LL,
  10000000000000LL, 100000000000000LL, 1000000000000000LL,
  10000000000000000LL, 100000000000000000LL, P18, P18 * 10, P18 * 100,
  P18 * 1000, P18 * 10000, P18 * 100000, P18 * 1000000, P18 * 10000000,
  P18 * 100000000, P18 * 1000000000, P18 * 10000000000LL,
  P18 * 100000000000LL, P18 * 1000000000000LL, P18 * 10000000000000LL,
  P18 * 100000000000000LL, P18 * 1000000000000000LL,
  P18 * 10000000000000000LL, P18 * 100000000000000000LL, P18 * P18,
  P18 * P18 * 10, P18 * P18 * 100,
};
#undef P18

int
ossd_numeric_rescale (const struct ossd_numeric *a, int32_t scale,
                      struct ossd_numeric *out)
{
  i128 v;
  if (!ossd_num_scale_ok (a->scale) || !ossd_num_scale_ok (scale)
      || scale < a->scale)
    return -ERANGE;
  if (!ossd_num_scale_up (ossd_num_get (a), scale - a->scale, &v))
    return -ERANGE;
  ossd_num_set (out, v, scale);
  return 0;
}

int
ossd_numeric_cmp (const struct ossd_numeric *a, const struct ossd_numeric *b,
                  int *result)
{
  return ossd_num_cmp (a, b, result);
}

static int
align_scales (const struct ossd_numeric *a, const struct ossd_numeric *b,
              i128 *x, i128 *y, int32_t *scale)
{
  if (!ossd_num_scale_ok (a->scale) || !ossd_num_scale_ok (b->scale))
    return -ERANGE;
  *scale = a->scale > b->scale ? a->scale : b->scale;
  if (!ossd_num_scale_up (ossd_num_get (a), *scale - a->scale, x)
      || !ossd_num_scale_up (ossd_num_get (b), *scale - b->scale, y))
    return -ERANGE;
  return 0;
}

int
ossd_numeric_add (const struct ossd_numeric *a, const struct ossd_numeric *b,
                  struct ossd_numeric *out)
{
  i128 x, y, r;
  int32_t scale;
  if (align_scales (a, b, &x, &y, &scale) < 0
      || __builtin_add_overflow (x, y, &r))
    return -ERANGE;
  ossd_num_set (out, r, scale);
  return 0;
}

int
ossd_numeric_sub (const struct ossd_numeric *a, const struct ossd_numeric *b,
                  struct ossd_numeric *out)
{
  i128 x, y, r;
  int32_t scale;
  if (align_scales (a, b, &x, &y, &scale) < 0
      || __builtin_sub_overflow (x, y, &r))
    return -ERANGE;
  ossd_num_set (out, r, scale);
  return 0;
}

/* PostgreSQL's numeric_mul keeps dscale = dscale(a) + dscale(b). */
int
ossd_numeric_mul (const struct ossd_numeric *a, const struct ossd_numeric *b,
                  struct ossd_numeric *out)
{
  i128 r;
  if (!ossd_num_scale_ok (a->scale) || !ossd_num_scale_ok (b->scale)
      || !ossd_num_scale_ok (a->scale + b->scale)
      || __builtin_mul_overflow (ossd_num_get (a), ossd_num_get (b), &r))
    return -ERANGE;
  ossd_num_set (out, r, a->scale + b->scale);
  return 0;
}

/* Decimal digits of |v| (most significant first) into buf; returns count. */
int
ossd_num_abs_digits (i128 v, char buf[40])
{
  u128 m = v < 0 ? -(u128) v : (u128) v;
  char tmp[40];
  int n = 0;
  do
    {
      tmp[n++] = (char) ('0' + (int) (m % 10));
      m /= 10;
    }
  while (m);
  for (int i = 0; i < n; i++)
    buf[i] = tmp[n - 1 - i];
  return n;
}

int
ossd_numeric_to_string (const struct ossd_numeric *n, char *buf,
                        size_t buflen)
{
  char d[40];
  char out[96];
  int nd, pos = 0;
  i128 v = ossd_num_get (n);
  if (!ossd_num_scale_ok (n->scale))
    return -ERANGE;
  nd = ossd_num_abs_digits (v, d);
  if (v < 0)
    out[pos++] = '-';
  if (nd <= n->scale)
    {
      out[pos++] = '0';
      out[pos++] = '.';
      for (int i = 0; i < n->scale - nd; i++)
        out[pos++] = '0';
      memcpy (out + pos, d, nd);
      pos += nd;
    }
  else
    {
      memcpy (out + pos, d, nd - n->scale);
      pos += nd - n->scale;
      if (n->scale > 0)
        {
          out[pos++] = '.';
          memcpy (out + pos, d + nd - n->scale, n->scale);
          pos += n->scale;
        }
    }
  if ((size_t) pos + 1 > buflen)
    return -ENOSPC;
  memcpy (buf, out, pos);
  buf[pos] = 0;
  return 0;
}

int
ossd_numeric_from_string (const char *s, struct ossd_numeric *out)
{
  bool neg = false, dot = false, any = false;
  i128 v = 0;
  int32_t scale = 0;
  if (*s == '-' || *s == '+')
    neg = *s++ == '-';
  for (; *s; s++)
    {
      if (*s == '.' && !dot)
        {
          dot = true;
          continue;
        }
      if (*s < '0' || *s > '9')
        return -EINVAL;
      any = true;
      if (__builtin_mul_overflow (v, (i128) 10, &v)
          || __builtin_add_overflow (v, (i128) (*s - '0'), &v))
        return -ERANGE;
      if (dot)
        scale++;
    }
  if (!any)
    return -EINVAL;
  if (!ossd_num_scale_ok (scale))
    return -ERANGE;
  ossd_num_set (out, neg ? -v : v, scale);
  return 0;
}

bool
ossd_num_fits (i128 v)
{
  return v >= I128_MIN && v <= I128_MAX;
}
