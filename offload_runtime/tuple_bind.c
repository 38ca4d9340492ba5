/* tuple_bind.c - binding heap attributes to a kernel's context columns
 * (ctx->col[i]): the generic binding of one deformed datum, and the fused
 * deform + bind program a scan compiles once from its request and tuple
 * descriptor.
 *
 * The fused program is a list of steps, one per attribute 1..upto that is
 * either bound or projected, or that must be walked over to find a later
 * one.  Attributes of the leading run of fixed-length ones sit at offsets
 * fixed from t_hoff (PostgreSQL's attcacheoff: t_hoff is MAXALIGNed, so
 * alignment relative to it is alignment in the tuple); the others are
 * found by walking the tuple.  A step writes straight from the tuple into
 * its sinks: the kernel columns bound to the attribute (value, data
 * pointer, length, null flag, type tag; a NUMERIC as a lazily converted or
 * an already converted struct ossd_numeric) and, when the scan projects or
 * join-filters it, its struct ossd_datum.
 *
 * The program handles the common tuple only: no null bitmap (t_infomask
 * HEAP_HASNULL), all of 1..upto stored (no attmissing value), a MAXALIGNed
 * t_hoff, every varlena plain (1-byte or 4-byte header, neither compressed
 * nor external), every NUMERIC converting.  For any other tuple, and for a
 * malformed one (a header or data running past the tuple), it returns 1
 * having read nothing outside the tuple, and the caller takes the generic
 * path (ossd_deform_planned + ossd_bind_datum), which gives the row's
 * values, or its error or host reason; so both paths always agree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_rt.h"
#include "ossd_scan.h"
#include "bind_prog_internal.h"

static inline uint32_t
align_up (uint32_t off, unsigned a)
{
  return (off + (a - 1)) & ~(uint32_t) (a - 1);
}

/* The Datum of a by-value attribute of length len at p, sign-extended. */
static inline uint64_t
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

int
ossd_bind_datum (struct ossd_col *c, uint8_t tag, const struct ossd_datum *d,
                 const struct ossd_scan_attr *a, struct ossd_numeric *num, bool lazy_numeric)
{
  if (a->byval && !d->isnull && tag != OSSD_T_FLOAT4)
    {
      /* the common case, kept short: ints, dates, timestamps, float8 */
      *c = (struct ossd_col) { .value = d->datum, .type = tag };
      return 0;
    }
  *c = (struct ossd_col) { .type = tag };
  if (d->isnull)
    {
      c->isnull = 1;
      return 0;
    }
  if (d->flags & (OSSD_DF_COMPRESSED | OSSD_DF_EXTERNAL))
    return OSSD_HR_TOAST;
  if (a->byval)
    {
      c->value = tag == OSSD_T_FLOAT4 ? float4_widened (d->datum) : d->datum;
      return 0;
    }
  const uint8_t *p = d->ptr;
  uint32_t len = d->len;
  if (a->len == -1)
    ossd_varlena_payload (d->ptr, d->len, &p, &len);
  if (tag == OSSD_T_NUMERIC)
    {
      c->data = (uint64_t) (uintptr_t) num;
      c->len = sizeof (struct ossd_numeric);
      if (lazy_numeric)
        {
          /* converted when a kernel first reads it (numeric_lazy.c) */
          ossd_numeric_bind_lazy (num, p, len);
          return 0;
        }
      int rc = ossd_numeric_from_pg (p, len, num);
      if (rc == -ERANGE)
        return OSSD_HR_OVERFLOW;
      return rc < 0 ? OSSD_HR_BAD_DATA : 0;
    }
  if (tag == OSSD_T_NAME)
    len = (uint32_t) strnlen ((const char *) p, len);
  c->data = (uint64_t) (uintptr_t) p;
  c->len = len;
  return 0;
}

/* ---- the fused program */

static uint8_t
sink_op_of (const struct ossd_scan_attr *a, uint8_t tag, bool lazy_numeric)
{
  if (a->byval)
    return tag == OSSD_T_FLOAT4 ? SINK_FLOAT4 : SINK_INT;
  if (tag == OSSD_T_NUMERIC)
    return lazy_numeric ? SINK_NUMERIC_LAZY : SINK_NUMERIC;
  return tag == OSSD_T_NAME ? SINK_NAME : SINK_BYTES;
}

int
ossd_bind_prog_init (struct ossd_bind_prog *p, const struct ossd_scan_attr *attrs,
                     uint32_t natts, uint32_t upto, const uint16_t *bind, uint32_t nbind,
                     const uint8_t *bind_tag, bool lazy_numeric, const bool *put_datum)
{
  memset (p, 0, sizeof *p);
  if (upto > natts)
    upto = natts;
  p->upto = upto;
  p->steps = calloc (upto ? upto : 1, sizeof *p->steps);
  p->sinks = calloc (nbind ? nbind : 1, sizeof *p->sinks);
  if (!p->steps || !p->sinks)
    {
      ossd_bind_prog_free (p);
      return -ENOMEM;
    }
  uint32_t off = 0;
  bool fixed = true;
  for (uint32_t i = 0; i < upto; i++)
    {
      const struct ossd_scan_attr *a = &attrs[i];
      struct ossd_bind_step st = {
        .len = a->len,
        .align = (uint8_t) (a->align ? a->align : 1),
        .byval = a->byval,
        .put_datum = put_datum[i],
        .attno = (uint16_t) i,
        .first_sink = (uint16_t) p->nsinks,
        .count = 1,
      };
      for (uint32_t k = 0; k < nbind; k++)
        if (bind[k] == i + 1)
          p->sinks[p->nsinks++] = (struct ossd_bind_sink) {
            .col = (uint8_t) k, .tag = bind_tag[k],
            .op = sink_op_of (a, bind_tag[k], lazy_numeric) };
      st.nsinks = (uint8_t) (p->nsinks - st.first_sink);
      if (st.put_datum || st.nsinks > 1)
        st.sink = SINK_MANY;
      else if (st.nsinks == 1)
        {
          st.sink = p->sinks[st.first_sink].op;
          st.col = p->sinks[st.first_sink].col;
          st.tag = p->sinks[st.first_sink].tag;
        }
      if (fixed && a->len > 0)
        {
          off = align_up (off, st.align);
          st.fixed_off = off;
          st.walk = WALK_NONE;
          off += (uint32_t) a->len;
          p->fixed_end = off;
          if (st.sink == SINK_NONE)
            continue;          /* nothing to write, nothing to walk */
        }
      else
        {
          fixed = false;
          st.fixed_off = WALK;
          st.walk = a->len == -1 ? WALK_VARLENA : a->len > 0 ? WALK_FIXED : WALK_CSTRING;
          if (st.walk == WALK_VARLENA && st.sink == SINK_NONE)
            {
              struct ossd_bind_step *prev = p->nsteps ? &p->steps[p->nsteps - 1] : NULL;
              if (prev && prev->walk == WALK_VARLENA_SKIP && prev->align == st.align)
                {
                  prev->count++;
                  continue;
                }
              st.walk = WALK_VARLENA_SKIP;
            }
        }
      p->steps[p->nsteps++] = st;
    }
  return 0;
}

bool
ossd_bind_prog_equal (const struct ossd_bind_prog *a, const struct ossd_bind_prog *b)
{
  if (a->upto != b->upto || a->fixed_end != b->fixed_end || a->nsteps != b->nsteps
      || a->nsinks != b->nsinks)
    return false;
  for (uint32_t i = 0; i < a->nsteps; i++)
    {
      const struct ossd_bind_step *x = &a->steps[i], *y = &b->steps[i];
      /* field by field: the structs' padding is not part of the program */
      if (x->fixed_off != y->fixed_off || x->len != y->len || x->align != y->align
          || x->walk != y->walk || x->sink != y->sink || x->col != y->col || x->tag != y->tag
          || x->byval != y->byval || x->put_datum != y->put_datum || x->nsinks != y->nsinks
          || x->attno != y->attno || x->first_sink != y->first_sink || x->count != y->count)
        return false;
    }
  for (uint32_t i = 0; i < a->nsinks; i++)
    if (a->sinks[i].col != b->sinks[i].col || a->sinks[i].op != b->sinks[i].op
        || a->sinks[i].tag != b->sinks[i].tag)
      return false;
  return true;
}

int
ossd_bind_prog_copy (struct ossd_bind_prog *dst, const struct ossd_bind_prog *src)
{
  *dst = *src;
  dst->steps = calloc (src->nsteps ? src->nsteps : 1, sizeof *dst->steps);
  dst->sinks = calloc (src->nsinks ? src->nsinks : 1, sizeof *dst->sinks);
  if (!dst->steps || !dst->sinks)
    {
      ossd_bind_prog_free (dst);
      return -ENOMEM;
    }
  memcpy (dst->steps, src->steps, src->nsteps * sizeof *dst->steps);
  memcpy (dst->sinks, src->sinks, src->nsinks * sizeof *dst->sinks);
  return 0;
}

void
ossd_bind_prog_free (struct ossd_bind_prog *p)
{
  free (p->steps);
  free (p->sinks);
  p->steps = NULL;
  p->sinks = NULL;
}

/* The varlena at tup[*off] (after its padding): *at, its payload and
 * sizes; false for a compressed, external, malformed or truncated one. */
static inline __attribute__ ((always_inline)) bool
walk_varlena (const uint8_t *tup, uint32_t tuplen, uint32_t *offp, unsigned align,
              const uint8_t **at, const uint8_t **pay, uint32_t *size, uint32_t *plen)
{
  uint32_t off = *offp;
  if (off >= tuplen)
    return false;
  uint8_t b0 = tup[off];
  if (b0 == 0)
    {
      /* padding (always zero) before an aligned 4-byte header; a
       * non-zero byte can only be a 1-byte header */
      off = align_up (off, align);
      if (off >= tuplen)
        return false;
      b0 = tup[off];
    }
  uint32_t sz;
  if ((b0 & 0x01) && b0 != 0x01)
    {
      sz = b0 >> 1;            /* short varlena, the common case */
      *pay = tup + off + 1;
      *plen = sz - 1;
    }
  else if ((b0 & 0x03) == 0 && tuplen - off >= 4)
    {
      sz = ossd_rd32 (tup + off) >> 2;
      if (sz < 4)
        return false;
      *pay = tup + off + 4;
      *plen = sz - 4;
    }
  else
    return false;
  if ((uint64_t) off + sz > tuplen)
    return false;
  *at = tup + off;
  *size = sz;
  *offp = off + sz;
  return true;
}

/* One column from the attribute image at `at` (payload pay, plen bytes).
 * false if a numeric does not convert. */
static inline __attribute__ ((always_inline)) bool
sink (uint8_t op, uint8_t tag, struct ossd_col *c, struct ossd_numeric *num, const uint8_t *at,
      const uint8_t *pay, uint32_t plen, int len)
{
  switch (op)
    {
    case SINK_INT:
      *c = (struct ossd_col) { .value = byval_datum (at, len), .type = tag };
      return true;
    case SINK_FLOAT4:
      *c = (struct ossd_col) { .value = float4_widened (byval_datum (at, len)), .type = tag };
      return true;
    case SINK_NUMERIC_LAZY:
      ossd_numeric_bind_lazy (num, pay, plen);
      *c = (struct ossd_col) { .data = (uint64_t) (uintptr_t) num,
                               .len = sizeof (struct ossd_numeric), .type = tag };
      return true;
    case SINK_NUMERIC:
      if (ossd_numeric_from_pg (pay, plen, num) < 0)
        return false;          /* the generic path gives the host reason */
      *c = (struct ossd_col) { .data = (uint64_t) (uintptr_t) num,
                               .len = sizeof (struct ossd_numeric), .type = tag };
      return true;
    case SINK_NAME:
      *c = (struct ossd_col) { .data = (uint64_t) (uintptr_t) pay,
                               .len = (uint32_t) strnlen ((const char *) pay, plen),
                               .type = tag };
      return true;
    default:
      *c = (struct ossd_col) { .data = (uint64_t) (uintptr_t) pay, .len = plen, .type = tag };
      return true;
    }
}

int
ossd_bind_fused (const struct ossd_bind_prog *p, const uint8_t *tup, uint32_t tuplen,
                 struct ossd_col *cols, struct ossd_numeric *nums, struct ossd_datum *datums)
{
  uint16_t infomask2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
  uint16_t infomask = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
  uint32_t hoff = tup[OSSD_PG_HT_HOFF];

  if ((infomask & OSSD_PG_HEAP_HASNULL) || (infomask2 & OSSD_PG_HEAP_NATTS_MASK) < p->upto
      || (hoff & 7) || hoff + p->fixed_end > tuplen)
    return 1;

  /* locals: the stores through cols could alias the program */
  const struct ossd_bind_step *restrict st = p->steps;
  const struct ossd_bind_step *const end = st + p->nsteps;
  uint32_t off = hoff + p->fixed_end;
  for (; st < end; st++)
    {
      const uint8_t *at, *pay;
      uint32_t size, plen;
      switch (st->walk)
        {
        case WALK_NONE:
          at = pay = tup + hoff + st->fixed_off;
          size = plen = (uint32_t) st->len;
          break;
        case WALK_VARLENA:
          if (!walk_varlena (tup, tuplen, &off, st->align, &at, &pay, &size, &plen))
            return 1;
          break;
        case WALK_VARLENA_SKIP:
          for (uint32_t n = st->count; n > 0; n--)
            if (!walk_varlena (tup, tuplen, &off, st->align, &at, &pay, &size, &plen))
              return 1;
          continue;
        case WALK_FIXED:
          off = align_up (off, st->align);
          size = plen = (uint32_t) st->len;
          if ((uint64_t) off + size > tuplen)
            return 1;
          at = pay = tup + off;
          off += size;
          break;
        default:
          {
            if (off > tuplen)
              return 1;
            const uint8_t *nul = memchr (tup + off, 0, tuplen - off);
            if (!nul)
              return 1;
            at = pay = tup + off;
            size = plen = (uint32_t) (nul - at) + 1;
            off += size;
          }
          break;
        }
      if (st->sink == SINK_NONE)
        continue;
      if (st->sink != SINK_MANY)
        {
          if (!sink (st->sink, st->tag, &cols[st->col], &nums[st->col], at, pay, plen, st->len))
            return 1;
          continue;
        }
      if (st->put_datum)
        {
          struct ossd_datum *d = &datums[st->attno];
          if (st->byval)
            *d = (struct ossd_datum) { .datum = byval_datum (at, st->len) };
          else
            *d = (struct ossd_datum) { .ptr = at, .len = size };
        }
      for (uint32_t k = st->first_sink, kend = k + st->nsinks; k < kend; k++)
        {
          const struct ossd_bind_sink *sk = &p->sinks[k];
          if (!sink (sk->op, sk->tag, &cols[sk->col], &nums[sk->col], at, pay, plen, st->len))
            return 1;
        }
    }
  return 0;
}
