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
#include <stdlib.h>
#include <string.h>

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
static inline uint32_t
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

uint32_t
ossd_varlena_image_size (const uint8_t *p, uint32_t avail, uint8_t *flags)
{
  *flags = 0;
  return varlena_size (p, avail, flags);
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

/* ---- planned deforming: the per-scan fast path ----
 *
 * Most tuples of a scan have no nulls and all attributes up to the last
 * one wanted.  For those, the attributes before the first variable-length
 * one sit at fixed offsets from t_hoff (PostgreSQL's attcacheoff; t_hoff
 * is MAXALIGNed, so alignment relative to it is alignment in the tuple),
 * and the rest need no null or missing-value checks.  Other tuples take
 * ossd_deform. */

#define STEP_WANT  0x01
#define STEP_BYVAL 0x02

int
ossd_deform_plan_init (struct ossd_deform_plan *p, const struct ossd_scan_attr *attrs,
                       uint32_t natts, uint32_t upto, const bool *want)
{
  memset (p, 0, sizeof *p);
  if (upto > natts)
    upto = natts;
  p->attrs = attrs;
  p->natts = natts;
  p->upto = upto;
  p->want = want;
  p->steps = calloc (upto ? upto : 1, sizeof *p->steps);
  if (!p->steps)
    return -ENOMEM;
  uint32_t off = 0;
  bool fixed = true;
  for (uint32_t i = 0; i < upto; i++)
    {
      struct ossd_deform_step *st = &p->steps[i];
      st->len = attrs[i].len;
      st->align = attrs[i].align ? attrs[i].align : 1;
      st->flags = (uint8_t) ((want[i] ? STEP_WANT : 0) | (attrs[i].byval ? STEP_BYVAL : 0));
      if (fixed && attrs[i].len > 0)
        {
          off = align_up (off, st->align);
          st->fixed_off = off;
          off += (uint32_t) attrs[i].len;
          p->nfixed = i + 1;
          p->fixed_end = off;
        }
      else
        fixed = false;
    }
  return 0;
}

void
ossd_deform_plan_free (struct ossd_deform_plan *p)
{
  free (p->steps);
  p->steps = NULL;
}

static inline void
put_datum (const struct ossd_deform_step *st, const uint8_t *at, uint32_t size,
           uint8_t flags, struct ossd_datum *d)
{
  d->isnull = false;
  d->flags = flags;
  if (st->flags & STEP_BYVAL)
    {
      d->datum = byval_datum (at, st->len);
      d->ptr = NULL;
      d->len = 0;
    }
  else
    {
      d->datum = 0;
      d->ptr = at;
      d->len = size;
    }
}

int
ossd_deform_planned (const struct ossd_deform_plan *p, const uint8_t *tup, uint32_t tuplen,
                     struct ossd_datum *out, char *err, size_t errlen)
{
  uint16_t infomask2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  uint32_t hoff = tup[OSSD_PG_HT_HOFF];

  if ((infomask & OSSD_PG_HEAP_HASNULL) || (infomask2 & OSSD_PG_HEAP_NATTS_MASK) < p->upto
      || hoff + p->fixed_end > tuplen)
    return ossd_deform (tup, tuplen, p->attrs, p->natts, p->upto, p->want, out, err, errlen);

  /* locals: the stores into out[] could alias the plan for the compiler */
  const struct ossd_deform_step *restrict steps = p->steps;
  const uint32_t upto = p->upto, nfixed = p->nfixed;
  uint32_t i = 0, off = hoff + p->fixed_end;
  for (; i < nfixed; i++)
    if (steps[i].flags & STEP_WANT)
      put_datum (&steps[i], tup + hoff + steps[i].fixed_off, (uint32_t) steps[i].len, 0,
                 &out[i]);
  for (; i < upto; i++)
    {
      const struct ossd_deform_step *st = &steps[i];
      uint32_t size;
      uint8_t flags = 0;
      if (st->len == -1)
        {
          if (off >= tuplen)
            goto overrun;
          uint8_t b0 = tup[off];
          if (b0 == 0)
            {
              /* padding (always zero) before an aligned 4-byte header; a
               * non-zero byte here can only be a 1-byte header */
              off = align_up (off, st->align);
              if (off >= tuplen)
                goto overrun;
              b0 = tup[off];
            }
          if ((b0 & 0x01) && b0 != 0x01)
            size = b0 >> 1;      /* short varlena, the common case */
          else
            {
              size = varlena_size (tup + off, tuplen - off, &flags);
              if (size == 0)
                {
                  snprintf (err, errlen, "attnum %u: malformed varlena header at offset %u",
                            i + 1, off);
                  return -EINVAL;
                }
            }
        }
      else if (st->len > 0)
        {
          off = align_up (off, st->align);
          size = (uint32_t) st->len;
        }
      else
        {
          if (off > tuplen)
            goto overrun;
          const uint8_t *nul = memchr (tup + off, 0, tuplen - off);
          if (!nul)
            goto overrun;
          size = (uint32_t) (nul - (tup + off)) + 1;
        }
      if ((uint64_t) off + size > tuplen)
        goto overrun;
      if (st->flags & STEP_WANT)
        put_datum (st, tup + off, size, flags, &out[i]);
      off += size;
    }
  return 0;
overrun:
  snprintf (err, errlen, "attnum %u: data at offset %u runs past the tuple (length %u)",
            i + 1, off, tuplen);
  return -EINVAL;
}
