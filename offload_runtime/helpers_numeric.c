/* helpers_numeric.c - NUMERIC helpers (compare, add, sub, mul, from_int,
 * from_float8, to_float8).  Overflow, a scale outside 0..38 or an inexact
 * conversion hands the row to the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers_internal.h"
#include "numeric_internal.h"

static void
load_num (uint64_t addr, struct ossd_numeric *n)
{
  memcpy (n, ossd_helper_ptr (addr), sizeof *n);
}

static void
store_num (uint64_t addr, const struct ossd_numeric *n)
{
  memcpy ((void *) (uintptr_t) addr, n, sizeof *n);
}

OSSD_HELPER_DECL (ossd_h_numeric_cmp)
{
  struct ossd_numeric a, b;
  int r;
  load_num (a1, &a);
  load_num (a2, &b);
  if (ossd_num_cmp (&a, &b, &r) < 0)    /* inline: the per-row path */
    return ossd_helper_give_up (st);
  return (uint64_t) (int64_t) r;
}

typedef int (*num_binop) (const struct ossd_numeric *,
                          const struct ossd_numeric *, struct ossd_numeric *);

static uint64_t
numeric_binop (num_binop op, uint64_t a1, uint64_t a2, uint64_t a3,
               struct ossd_exec_state *st)
{
  struct ossd_numeric a, b, r;
  load_num (a1, &a);
  load_num (a2, &b);
  if (op (&a, &b, &r) < 0)
    return ossd_helper_give_up (st);
  store_num (a3, &r);
  return 0;
}

OSSD_HELPER_DECL (ossd_h_numeric_add)
{
  return numeric_binop (ossd_numeric_add, a1, a2, a3, st);
}

OSSD_HELPER_DECL (ossd_h_numeric_sub)
{
  return numeric_binop (ossd_numeric_sub, a1, a2, a3, st);
}

OSSD_HELPER_DECL (ossd_h_numeric_mul)
{
  return numeric_binop (ossd_numeric_mul, a1, a2, a3, st);
}

/* (int64 v, scale s) -> v * 10^-s: the unscaled integer and its scale. */
OSSD_HELPER_DECL (ossd_h_numeric_from_int)
{
  struct ossd_numeric r;
  int64_t scale = (int64_t) a2;
  if (scale < 0 || scale > OSSD_NUMERIC_MAX_SCALE)
    return ossd_helper_give_up (st);
  ossd_num_set (&r, (i128) (int64_t) a1, (int32_t) scale);
  store_num (a3, &r);
  return 0;
}

/* PostgreSQL's float8 -> numeric: the decimal text of "%.15g" (DBL_DIG
 * significant digits), parsed exactly.  Here the result must be
 * representable at `scale` fractional digits; otherwise -ERANGE. */
int
ossd_numeric_from_double (double d, int32_t scale, struct ossd_numeric *out)
{
  char txt[64], digits[64];
  int nd = 0, exp10 = 0, frac;
  bool neg = false, dot = false;
  i128 v = 0;
  if (!isfinite (d) || !ossd_num_scale_ok (scale))
    return -ERANGE;
  snprintf (txt, sizeof txt, "%.15g", d);
  const char *s = txt;
  if (*s == '-')
    {
      neg = true;
      s++;
    }
  frac = 0;
  for (; *s && *s != 'e'; s++)
    {
      if (*s == '.')
        {
          dot = true;
          continue;
        }
      digits[nd++] = *s;
      if (dot)
        frac++;
    }
  if (*s == 'e')
    exp10 = atoi (s + 1);
  /* value = digits * 10^(exp10 - frac) */
  int pow = exp10 - frac;
  /* strip trailing zeros of the mantissa into the exponent */
  while (nd > 1 && digits[nd - 1] == '0')
    {
      nd--;
      pow++;
    }
  for (int i = 0; i < nd; i++)
    if (__builtin_mul_overflow (v, (i128) 10, &v)
        || __builtin_add_overflow (v, (i128) (digits[i] - '0'), &v))
      return -ERANGE;
  /* unscaled at `scale`: digits * 10^(pow + scale) */
  int e = pow + scale;
  if (e < 0)
    {
      if (v != 0)
        return -ERANGE;         /* more fractional digits than scale */
      e = 0;
    }
  if (e > 38 || !ossd_num_scale_up (v, e, &v))
    return -ERANGE;
  ossd_num_set (out, neg ? -v : v, scale);
  return 0;
}

/* PostgreSQL's numeric -> float8 goes through the decimal text and strtod
 * (correctly rounded); so do we. */
int
ossd_numeric_to_double (const struct ossd_numeric *n, double *out)
{
  char txt[96];
  if (ossd_numeric_to_string (n, txt, sizeof txt) < 0)
    return -ERANGE;
  *out = strtod (txt, NULL);
  return 0;
}

OSSD_HELPER_DECL (ossd_h_numeric_from_float8)
{
  struct ossd_numeric r;
  double d;
  int64_t scale = (int64_t) a2;
  memcpy (&d, &a1, sizeof d);
  if (scale < 0 || scale > OSSD_NUMERIC_MAX_SCALE
      || ossd_numeric_from_double (d, (int32_t) scale, &r) < 0)
    return ossd_helper_give_up (st);
  store_num (a3, &r);
  return 0;
}

OSSD_HELPER_DECL (ossd_h_numeric_to_float8)
{
  struct ossd_numeric n;
  double d;
  uint64_t bits;
  load_num (a1, &n);
  if (ossd_numeric_to_double (&n, &d) < 0)
    return ossd_helper_give_up (st);
  memcpy (&bits, &d, sizeof bits);
  return bits;
}
