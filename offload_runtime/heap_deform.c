/* heap_deform.c - attribute deforming of PostgreSQL 15 heap tuples (null
 * bitmap, alignment, fixed-length, varlena and cstring attributes, missing
 * attributes of added columns) and small value helpers (varlena payload,
 * type tags).  NUMERIC conversion is ossd_rt.h's (numeric_pg.c).
 *
 * Alignment follows PostgreSQL's rules (access/tupmacs.h): every
 * attribute starts at its typalign boundary, except a varlena whose first
 * byte at the unaligned position is non-zero: padding bytes are always
 * zero and a 4-byte header is always aligned, so a non-zero byte there can
 * only be a 1-byte header (short or external), which is stored unaligned.
 */
#include <errno.h>
#include <stdio.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_scan.h"

static inline uint32_t
align_up (uint32_t off, unsigned a)
{
  return (off + (a - 1)) & ~(uint32_t) (a - 1);
}

static uint64_t
byval_datum (const uint8_t *p, int len)
{
  switch (len)
    {
    case 1: return (uint64_t) (int64_t) (int8_t) p[0];
    case 2: return (uint64_t) (int64_t) (int16_t) ossd_rd16 (p);
    case 4: return (uint64_t) (int64_t) (int32_t) ossd_rd32 (p);
    default: return ossd_rd64 (p);
    }
}

static void
missing_value (const struct ossd_scan_attr *a, struct ossd_datum *d)
{
  *d = (struct ossd_datum) { .isnull = true };
  if (a->dropped || !a->has_missing || a->missing_null || !a->missing)
    return;
  d->isnull = false;
  if (a->byval)
    d->datum = byval_datum (a->missing, a->len);
  else
    {
      d->ptr = a->missing;
      d->len = a->missing_len;
      if (a->len == -1 && a->missing_len > 0)
        {
          uint8_t b0 = d->ptr[0];
          if (b0 == 0x01)
            d->flags = OSSD_DF_EXTERNAL;
          else if ((b0 & 0x03) == 0x02)
            d->flags = OSSD_DF_COMPRESSED;
        }
    }
}

/* Size of the varlena image at p (avail bytes left).  0 if malformed. */
static uint32_t
varlena_size (const uint8_t *p, uint32_t avail, uint8_t *flags)
{
  if (avail < 1)
    return 0;
  uint8_t b0 = p[0];
  if (b0 == 0x01)
    {
      if (avail < 2)
        return 0;
      *flags = OSSD_DF_EXTERNAL;
      switch (p[1])
        {
        case OSSD_PG_VARTAG_ONDISK: return 2 + 16;
        case OSSD_PG_VARTAG_INDIRECT:
        case OSSD_PG_VARTAG_EXPANDED_RO:
        case OSSD_PG_VARTAG_EXPANDED_RW: return 2 + 8;
        default: return 0;
        }
    }
  if (b0 & 0x01)
    return b0 >> 1;            /* 1-byte header: 1..127 incl. header */
  if (avail < 4)
    return 0;
  uint32_t size = ossd_rd32 (p) >> 2;
  if ((b0 & 0x03) == 0x02)
    *flags = OSSD_DF_COMPRESSED;
  return size >= 4 ? size : 0;
}

int
ossd_deform (const uint8_t *tup, uint32_t tuplen, const struct ossd_scan_attr *attrs,
             uint32_t natts, uint32_t upto, const bool *want, struct ossd_datum *out,
             char *err, size_t errlen)
{
  uint16_t infomask2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  uint32_t tup_natts = infomask2 & OSSD_PG_HEAP_NATTS_MASK;
  bool hasnull = (infomask & OSSD_PG_HEAP_HASNULL) != 0;
  const uint8_t *bits = tup + OSSD_PG_HT_BITS;
  uint32_t off = tup[OSSD_PG_HT_HOFF];
  if (upto > natts)
    upto = natts;
  for (uint32_t i = 0; i < upto; i++)
    {
      const struct ossd_scan_attr *a = &attrs[i];
      struct ossd_datum *d = &out[i];
      if (i >= tup_natts)
        {
          missing_value (a, d);
          continue;
        }
      if (hasnull && !(bits[i >> 3] & (1u << (i & 7))))
        {
          *d = (struct ossd_datum) { .isnull = true };
          continue;
        }
      if (a->len == -1)
        {
          if (off >= tuplen || tup[off] == 0)
            off = align_up (off, a->align);
        }
      else
        off = align_up (off, a->align);
      if (off > tuplen)
        goto overrun;
      uint32_t avail = tuplen - off, size;
      uint8_t flags = 0;
      if (a->len > 0)
        size = (uint32_t) a->len;
      else if (a->len == -1)
        {
          size = varlena_size (tup + off, avail, &flags);
          if (size == 0)
            {
              snprintf (err, errlen, "attnum %u: malformed varlena header at offset %u",
                        i + 1, off);
              return -EINVAL;
            }
        }
      else
        {
          const uint8_t *nul = memchr (tup + off, 0, avail);
          if (!nul)
            goto overrun;
          size = (uint32_t) (nul - (tup + off)) + 1;
        }
      if (size > avail)
        goto overrun;
      if (want[i])
        {
          d->isnull = false;
          d->flags = flags;
          if (a->byval)
            {
              d->datum = byval_datum (tup + off, a->len);
              d->ptr = NULL;
              d->len = 0;
            }
          else
            {
              d->datum = 0;
              d->ptr = tup + off;
              d->len = size;
            }
        }
      off += size;
      continue;
    overrun:
      snprintf (err, errlen, "attnum %u: data at offset %u runs past the tuple (length %u)",
                i + 1, off, tuplen);
      return -EINVAL;
    }
  return 0;
}

void
ossd_varlena_payload (const uint8_t *img, uint32_t imglen, const uint8_t **data,
                      uint32_t *len)
{
  if (imglen >= 1 && (img[0] & 0x01))
    {
      *data = img + 1;
      *len = imglen - 1;
    }
  else
    {
      *data = img + 4;
      *len = imglen >= 4 ? imglen - 4 : 0;
    }
}

uint8_t
ossd_type_tag_of (uint32_t type_oid)
{
  switch (type_oid)
    {
    case OSSD_PG_BOOLOID: return OSSD_T_BOOL;
    case OSSD_PG_INT2OID: return OSSD_T_INT2;
    case OSSD_PG_INT4OID: return OSSD_T_INT4;
    case OSSD_PG_INT8OID: return OSSD_T_INT8;
    case OSSD_PG_FLOAT4OID: return OSSD_T_FLOAT4;
    case OSSD_PG_FLOAT8OID: return OSSD_T_FLOAT8;
    case OSSD_PG_NUMERICOID: return OSSD_T_NUMERIC;
    case OSSD_PG_DATEOID: return OSSD_T_DATE;
    case OSSD_PG_TIMESTAMPOID: return OSSD_T_TIMESTAMP;
    case OSSD_PG_TIMESTAMPTZOID: return OSSD_T_TIMESTAMPTZ;
    case OSSD_PG_TEXTOID: return OSSD_T_TEXT;
    case OSSD_PG_BPCHAROID: return OSSD_T_BPCHAR;
    case OSSD_PG_VARCHAROID: return OSSD_T_VARCHAR;
    case OSSD_PG_BYTEAOID: return OSSD_T_BYTEA;
    case OSSD_PG_NAMEOID: return OSSD_T_NAME;
    case OSSD_PG_OIDOID: return OSSD_T_OID;
    case OSSD_PG_CHAROID: return OSSD_T_CHAR;
    default: return OSSD_T_NONE;
    }
}
