/* row_format.c - writers of the packed formats documented in ossd_scan.h:
 * value encoding, packed result rows, host row records (raw tuple + TID).
 * The readers are the static inline functions in ossd_scan.h.
 */
#include <errno.h>
#include <stdlib.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_scan.h"

int
ossd_buf_reserve (struct ossd_buf *b, size_t more)
{
  if (b->cap - b->len >= more)
    return 0;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap - b->len < more)
    cap *= 2;
  uint8_t *d = realloc (b->data, cap);
  if (!d)
    return -ENOMEM;
  b->data = d;
  b->cap = cap;
  return 0;
}

void
ossd_buf_free (struct ossd_buf *b)
{
  free (b->data);
  *b = (struct ossd_buf) { 0 };
}

static inline void
put16 (uint8_t *p, uint16_t v) { memcpy (p, &v, 2); }
static inline void
put32 (uint8_t *p, uint32_t v) { memcpy (p, &v, 4); }
static inline void
put64 (uint8_t *p, uint64_t v) { memcpy (p, &v, 8); }

static size_t
value_size (const struct ossd_outval *v)
{
  if (v->isnull)
    return 0;
  if (v->byval)
    return 8;
  uint32_t len = v->payload ? v->len + 4 : v->len;
  return 8 + ossd_align8 (len);
}

/* Write a value at p (space already reserved); returns bytes written. */
static size_t
value_put (uint8_t *p, const struct ossd_outval *v)
{
  if (v->isnull)
    return 0;
  if (v->byval)
    {
      put64 (p, v->datum);
      return 8;
    }
  uint32_t len = v->payload ? v->len + 4 : v->len;
  size_t padded = ossd_align8 (len);
  put32 (p, len);
  put32 (p + 4, 0);
  if (v->payload)
    {
      put32 (p + 8, (v->len + 4) << 2);   /* 4-byte uncompressed varlena header */
      memcpy (p + 12, v->payload, v->len);
    }
  else if (len)
    memcpy (p + 8, v->ptr, len);
  memset (p + 8 + len, 0, padded - len);
  return 8 + padded;
}

int
ossd_value_append (struct ossd_buf *b, const struct ossd_outval *v)
{
  size_t sz = value_size (v);
  int rc = ossd_buf_reserve (b, sz);
  if (rc < 0)
    return rc;
  b->len += value_put (b->data + b->len, v);
  return 0;
}

int
ossd_row_append (struct ossd_buf *b, uint16_t target, uint32_t block, uint16_t offnum,
                 uint16_t ncols, const struct ossd_outval *vals)
{
  size_t nb = ossd_align8 (((size_t) ncols + 7) / 8);
  size_t total = OSSD_PACKED_ROW_HDR + nb;
  for (uint16_t i = 0; i < ncols; i++)
    total += value_size (&vals[i]);
  if (total > UINT32_MAX)
    return -E2BIG;
  int rc = ossd_buf_reserve (b, total);
  if (rc < 0)
    return rc;
  uint8_t *r = b->data + b->len;
  put32 (r, (uint32_t) total);
  put16 (r + 4, ncols);
  put16 (r + 6, target);
  put32 (r + 8, block);
  put16 (r + 12, offnum);
  put16 (r + 14, 0);
  uint8_t *nulls = r + OSSD_PACKED_ROW_HDR;
  memset (nulls, 0, nb);
  size_t p = OSSD_PACKED_ROW_HDR + nb;
  for (uint16_t i = 0; i < ncols; i++)
    {
      if (vals[i].isnull)
        nulls[i >> 3] |= (uint8_t) (1u << (i & 7));
      else
        p += value_put (r + p, &vals[i]);
    }
  b->len += total;
  return 0;
}

int
ossd_host_row_append (struct ossd_buf *b, uint32_t target, uint32_t block, uint16_t offnum,
                      uint16_t reason, const uint8_t *tup, uint32_t tuplen)
{
  size_t total = OSSD_HOST_ROW_HDR + ossd_align8 (tuplen);
  int rc = ossd_buf_reserve (b, total);
  if (rc < 0)
    return rc;
  uint8_t *r = b->data + b->len;
  put32 (r, (uint32_t) total);
  put32 (r + 4, target);
  put32 (r + 8, block);
  put16 (r + 12, offnum);
  put16 (r + 14, reason);
  put32 (r + 16, tuplen);
  put32 (r + 20, 0);
  memcpy (r + OSSD_HOST_ROW_HDR, tup, tuplen);
  memset (r + OSSD_HOST_ROW_HDR + tuplen, 0, total - OSSD_HOST_ROW_HDR - tuplen);
  b->len += total;
  return 0;
}
