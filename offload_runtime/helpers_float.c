/* helpers_float.c - float8 helpers.  eBPF has no FPU, so kernels pass
 * IEEE bit patterns and these C functions do the work with PostgreSQL
 * semantics: ordering puts NaN above everything and equal to NaN, -0 ==
 * 0; an operation PostgreSQL would fail (overflow, underflow, division by
 * zero) hands the row to the host, which raises the error itself. */
#include <math.h>
#include <string.h>

#include "helpers_internal.h"

static double
bits_to_double (uint64_t b)
{
  double d;
  memcpy (&d, &b, sizeof d);
  return d;
}

static uint64_t
double_to_bits (double d)
{
  uint64_t b;
  memcpy (&b, &d, sizeof b);
  return b;
}

int
ossd_float8_cmp_bits (uint64_t abits, uint64_t bbits)
{
  double a = bits_to_double (abits), b = bits_to_double (bbits);
  if (isnan (a))
    return isnan (b) ? 0 : 1;
  if (isnan (b))
    return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

OSSD_HELPER_DECL (ossd_h_float8_cmp)
{
  return (uint64_t) (int64_t) ossd_float8_cmp_bits (a1, a2);
}

OSSD_HELPER_DECL (ossd_h_float8_add)
{
  double a = bits_to_double (a1), b = bits_to_double (a2), r = a + b;
  if (isinf (r) && !isinf (a) && !isinf (b))
    return ossd_helper_give_up (st);
  return double_to_bits (r);
}

OSSD_HELPER_DECL (ossd_h_float8_sub)
{
  double a = bits_to_double (a1), b = bits_to_double (a2), r = a - b;
  if (isinf (r) && !isinf (a) && !isinf (b))
    return ossd_helper_give_up (st);
  return double_to_bits (r);
}

OSSD_HELPER_DECL (ossd_h_float8_mul)
{
  double a = bits_to_double (a1), b = bits_to_double (a2), r = a * b;
  if (isinf (r) && !isinf (a) && !isinf (b))
    return ossd_helper_give_up (st);
  if (r == 0.0 && a != 0.0 && b != 0.0)
    return ossd_helper_give_up (st);
  return double_to_bits (r);
}

OSSD_HELPER_DECL (ossd_h_float8_div)
{
  double a = bits_to_double (a1), b = bits_to_double (a2), r;
  if (b == 0.0 && !isnan (a))
    return ossd_helper_give_up (st);
  r = a / b;
  if (isinf (r) && !isinf (a))
    return ossd_helper_give_up (st);
  if (r == 0.0 && a != 0.0 && !isinf (b))
    return ossd_helper_give_up (st);
  return double_to_bits (r);
}

OSSD_HELPER_DECL (ossd_h_float8_from_int)
{
  return double_to_bits ((double) (int64_t) a1);
}
