/* numeric_internal.h - 128-bit helpers shared by the NUMERIC files of the
 * runtime (not installed). */
#ifndef OSSD_NUMERIC_INTERNAL_H
#define OSSD_NUMERIC_INTERNAL_H

#include "ossd_rt.h"

typedef __int128 i128;

static inline i128
ossd_num_get (const struct ossd_numeric *n)
{
  return (i128) (((unsigned __int128) (uint64_t) n->hi << 64) | n->lo);
}

static inline void
ossd_num_set (struct ossd_numeric *n, i128 v, int32_t scale)
{
  n->lo = (uint64_t) (unsigned __int128) v;
  n->hi = (int64_t) (uint64_t) ((unsigned __int128) v >> 64);
  n->scale = scale;
  n->flags = 0;
}
static inline bool
ossd_num_scale_ok (int32_t scale)
{
  return scale >= 0 && scale <= OSSD_NUMERIC_MAX_SCALE;
}
extern const i128 ossd_num_pow10_table[39];

/* 10^e for 0 <= e <= 38 (1 for e <= 0; callers never ask for more: it
 * does not fit).  Inline: conversions and rescaling sit on the per-row
 * path of every scan. */
static inline i128
ossd_num_pow10 (int e)
{
  if (e <= 0)
    return 1;
  return ossd_num_pow10_table[e > 38 ? 38 : e];
}

/* v * 10^e exactly, or false on overflow (e <= 0 leaves v as it is).
 * On overflow *out is left untouched, so a caller passing &v keeps v's
 * sign to decide with. */
static inline bool
ossd_num_scale_up (i128 v, int e, i128 *out)
{
  i128 r;
  if (e <= 0 || v == 0)
    {
      *out = v;
      return true;
    }
  if (e > 38 || __builtin_mul_overflow (v, ossd_num_pow10_table[e], &r))
    return false;
  *out = r;
  return true;
}
/* ossd_numeric_cmp, inline for the kernels' compare helper. */
static inline int
ossd_num_cmp (const struct ossd_numeric *a, const struct ossd_numeric *b, int *result)
{
  i128 x = ossd_num_get (a), y = ossd_num_get (b);
  if (!ossd_num_scale_ok (a->scale) || !ossd_num_scale_ok (b->scale))
    return -ERANGE;
  /* Bring both to the larger scale; if that overflows, the scaled value
   * exceeds every 128-bit value in magnitude, so its sign decides. */
  if (a->scale < b->scale)
    {
      if (!ossd_num_scale_up (x, b->scale - a->scale, &x))
        {
          *result = x > 0 ? 1 : -1;   /* x keeps its value (and sign) */
          return 0;
        }
    }
  else if (b->scale < a->scale)
    {
      if (!ossd_num_scale_up (y, a->scale - b->scale, &y))
        {
          *result = y > 0 ? -1 : 1;   /* y keeps its value (and sign) */
          return 0;
        }
    }
  *result = x < y ? -1 : x > y ? 1 : 0;
  return 0;
}

int ossd_num_abs_digits (i128 v, char buf[40]);
bool ossd_num_fits (i128 v);

#endif
