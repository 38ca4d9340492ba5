/* numeric_pg.c - PostgreSQL on-disk NUMERIC <-> struct ossd_numeric.
 *
 * PostgreSQL (>= 9.1, incl. 15) stores a numeric varlena payload as
 *   short:  uint16 n_header (0x8000 | sign 0x2000 | dscale<<7 (6 bits) |
 *           weight sign 0x0040 | weight 0x003F), then int16 digits
 *   long:   uint16 n_sign_dscale (sign 0x0000/0x4000 | dscale 14 bits),
 *           int16 n_weight, then int16 digits
 *   special: 0xC000 NaN, 0xD000 +Inf, 0xF000 -Inf
 * digits are base 10000; value = sum d[i] * 10000^(weight - i).
 * Conversions are exact or refused. */
#include <string.h>

#include "numeric_internal.h"

#define PG_NUMERIC_SIGN_MASK 0xC000
#define PG_NUMERIC_NEG       0x4000
#define PG_NUMERIC_SHORT     0x8000
#define PG_NUMERIC_SPECIAL   0xC000
#define PG_SHORT_SIGN_MASK   0x2000
#define PG_SHORT_DSCALE_MASK 0x1F80
#define PG_SHORT_DSCALE_SHIFT 7
#define PG_SHORT_WEIGHT_SIGN 0x0040
#define PG_SHORT_WEIGHT_MASK 0x003F
#define PG_DSCALE_MASK       0x3FFF
#define PG_NBASE             10000

int
ossd_numeric_from_pg (const void *payload, size_t len,
                      struct ossd_numeric *out)
{
  const uint8_t *p = payload;
  uint16_t head;
  int weight, dscale, ndigits;
  bool neg;
  size_t hdr;
  i128 acc = 0;

  if (len < 2)
    return -EINVAL;
  memcpy (&head, p, 2);
  if ((head & PG_NUMERIC_SIGN_MASK) == PG_NUMERIC_SPECIAL)
    return -ERANGE;             /* NaN, +Inf, -Inf */
  if (head & PG_NUMERIC_SHORT)
    {
      hdr = 2;
      neg = (head & PG_SHORT_SIGN_MASK) != 0;
      dscale = (head & PG_SHORT_DSCALE_MASK) >> PG_SHORT_DSCALE_SHIFT;
      weight = (head & PG_SHORT_WEIGHT_MASK);
      if (head & PG_SHORT_WEIGHT_SIGN)
        weight -= PG_SHORT_WEIGHT_MASK + 1;
    }
  else
    {
      int16_t w;
      if (len < 4)
        return -EINVAL;
      hdr = 4;
      neg = (head & PG_NUMERIC_SIGN_MASK) == PG_NUMERIC_NEG;
      dscale = head & PG_DSCALE_MASK;
      memcpy (&w, p + 2, 2);
      weight = w;
    }
  if ((len - hdr) % 2 != 0)
    return -EINVAL;
  ndigits = (int) ((len - hdr) / 2);
  if (dscale > OSSD_NUMERIC_MAX_SCALE)
    return -ERANGE;
  if (ndigits <= 4)
    {
      /* The common case (up to 16 decimal digits): Horner's rule in 64
       * bits, then one exact scaling to dscale. */
      uint64_t v = 0;
      for (int i = 0; i < ndigits; i++)
        {
          int16_t d;
          memcpy (&d, p + hdr + 2 * i, 2);
          if (d < 0 || d >= PG_NBASE)
            return -EINVAL;
          v = v * PG_NBASE + (uint64_t) d;
        }
      /* v's last digit has decimal exponent 4 * (weight - ndigits + 1) */
      int exp10 = 4 * (weight - ndigits + 1) + dscale;
      if (exp10 < 0)
        {
          /* places below dscale: exact only if they are all zero.  PG
           * strips zero digit groups, so 1..3 places is the usual case:
           * constant divisors, which compile to multiplications. */
          uint64_t q;
          switch (exp10)
            {
            case -1: q = v / 10; break;
            case -2: q = v / 100; break;
            case -3: q = v / 1000; break;
            default:
              q = exp10 < -19 ? 0 : v / (uint64_t) ossd_num_pow10 (-exp10);
              break;
            }
          if (q * (uint64_t) ossd_num_pow10 (-exp10) != v)
            return -ERANGE;
          v = q;
          exp10 = 0;
        }
      if (!ossd_num_scale_up ((i128) v, exp10, &acc))
        return -ERANGE;
      ossd_num_set (out, neg ? -acc : acc, dscale);
      return 0;
    }
  for (int i = 0; i < ndigits; i++)
    {
      int16_t d;
      int exp10;              /* decimal exponent of this digit at dscale */
      memcpy (&d, p + hdr + 2 * i, 2);
      if (d < 0 || d >= PG_NBASE)
        return -EINVAL;
      if (d == 0)
        continue;
      exp10 = 4 * (weight - i) + dscale;
      if (exp10 < 0)
        {
          /* digit reaches below dscale: exact only if those places are 0 */
          if (exp10 <= -4 || d % (int) ossd_num_pow10 (-exp10) != 0)
            return -ERANGE;
          d = (int16_t) (d / (int) ossd_num_pow10 (-exp10));
          exp10 = 0;
        }
      if (exp10 > 38)
        return -ERANGE;
      i128 term;
      if (!ossd_num_scale_up (d, exp10, &term)
          || __builtin_add_overflow (acc, term, &acc))
        return -ERANGE;
    }
  ossd_num_set (out, neg ? -acc : acc, dscale);
  return 0;
}

int
ossd_numeric_to_pg (const struct ossd_numeric *n, void *buf, size_t buflen,
                    size_t *outlen)
{
  char dec[40];
  int16_t groups[16];
  int ndec, scale = n->scale;
  int wmax, wmin, ng, first, last;
  i128 v = ossd_num_get (n);
  bool neg = v < 0;
  uint8_t res[OSSD_NUMERIC_PG_MAXLEN];
  size_t pos;

  if (!ossd_num_scale_ok (scale))
    return -ERANGE;
  ndec = ossd_num_abs_digits (v, dec);
  /* decimal digit k (0 = most significant) sits at power (ndec-1-k)-scale;
   * base-10000 group weight = floor(power / 4). */
#define FLOORDIV4(x) ((x) >= 0 ? (x) / 4 : -((-(x) + 3) / 4))
  wmax = FLOORDIV4 (ndec - 1 - scale);
  wmin = FLOORDIV4 (-scale);
  ng = wmax - wmin + 1;
  memset (groups, 0, sizeof groups);
  for (int k = 0; k < ndec; k++)
    {
      int power = ndec - 1 - k - scale;
      int w = FLOORDIV4 (power);
      groups[wmax - w] += (int16_t) ((dec[k] - '0') * ossd_num_pow10 (power - 4 * w));
    }
#undef FLOORDIV4
  first = 0;
  last = ng - 1;
  while (first <= last && groups[first] == 0)
    first++;
  while (last >= first && groups[last] == 0)
    last--;
  int weight = wmax - first;
  int nd = last >= first ? last - first + 1 : 0;
  if (nd == 0)
    {
      weight = 0;
      neg = false;
    }
  pos = 4;                      /* varlena header */
  if (scale <= 63 && weight <= 63 && weight >= -64)
    {
      uint16_t h = PG_NUMERIC_SHORT | (neg ? PG_SHORT_SIGN_MASK : 0)
        | (uint16_t) (scale << PG_SHORT_DSCALE_SHIFT)
        | (weight < 0 ? PG_SHORT_WEIGHT_SIGN : 0)
        | (uint16_t) (weight & PG_SHORT_WEIGHT_MASK);
      memcpy (res + pos, &h, 2);
      pos += 2;
    }
  else
    {
      uint16_t sd = (neg ? PG_NUMERIC_NEG : 0) | (uint16_t) (scale & PG_DSCALE_MASK);
      int16_t w = (int16_t) weight;
      memcpy (res + pos, &sd, 2);
      memcpy (res + pos + 2, &w, 2);
      pos += 4;
    }
  for (int i = 0; i < nd; i++)
    {
      memcpy (res + pos, &groups[first + i], 2);
      pos += 2;
    }
  /* 4-byte varlena header, little-endian layout: length << 2 */
  uint32_t vh = (uint32_t) pos << 2;
  memcpy (res, &vh, 4);
  if (pos > buflen)
    return -ENOSPC;
  memcpy (buf, res, pos);
  *outlen = pos;
  return 0;
}
