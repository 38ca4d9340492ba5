/* pgpages_driver.c - runs the scan engine over relation files written by a
 * real PostgreSQL 15 and prints the results as psql -At would (columns
 * separated by '|', NULL as empty), for tests/integration/pgpages_scan.sh.
 *
 *   rt_pgpages_driver --file SEG [--file SEG2 ...] --attr SPEC ... --xmin N
 *       [--filter ATT:OP[:CONST]]...   AND of conditions (OP eq ne lt le gt
 *                                      ge isnull notnull), a C filter kernel
 *       [--project ATT,ATT,...]        output columns (heap attnums)
 *       [--map i8mul:ATT:ATT]          map kernel: one int8 output a*b
 *       [--agg KIND[:COL],...]         count* count sum avg min max over
 *                                      output columns; avg is printed
 *                                      rounded to 6 decimals
 *       [--group COL,...] [--limit N] [--workers N] [--max-groups N]
 *   rt_pgpages_driver --lpstats --file SEG     line pointer kinds and
 *                                              heap-only tuple counts
 * SPEC = attlen:attalign(c/s/i/d):byval(0/1):typeoid:dropped(0/1):MISSING
 * where MISSING is '-' or pg_attribute.attmissingval as text ('{42}').
 * Rows handed back print as "HOST|(block,offnum)|reason", blocks as
 * "HOSTBLOCK|block|reason".  Aggregate partial groups are merged here the
 * way pg_ossd's final merge would, then printed one line per group.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_rt.h"
#include "ossd_scan.h"

typedef __int128 i128;

#define MAXA 64
#define SEG_BLOCKS 131072u     /* 1 GiB segments */

static void
die (const char *fmt, const char *arg)
{
  fprintf (stderr, "rt_pgpages_driver: ");
  fprintf (stderr, fmt, arg);
  fputc ('\n', stderr);
  exit (2);
}

/* ---------------- time and value formatting (PostgreSQL style) ------- */
static void
civil_from_days (int64_t z, int *y, int *m, int *d)
{
  z += 10957 + 719468;         /* 2000-01-01 -> days since 0000-03-01 */
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t yy = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int) (doy - (153 * mp + 2) / 5 + 1);
  *m = (int) (mp < 10 ? mp + 3 : mp - 9);
  *y = (int) (yy + (*m <= 2));
}

static int64_t
days_from_civil (int y, int m, int d)
{
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 - 10957;
}

static void
fmt_float (char *out, size_t n, double v, bool single)
{
  if (isnan (v))
    {
      snprintf (out, n, "NaN");
      return;
    }
  if (isinf (v))
    {
      snprintf (out, n, v > 0 ? "Infinity" : "-Infinity");
      return;
    }
  int p;
  char buf[64];
  for (p = 1; p <= 17; p++)
    {
      snprintf (buf, sizeof buf, "%.*e", p - 1, v);
      if (single ? (float) strtod (buf, NULL) == (float) v : strtod (buf, NULL) == v)
        break;
    }
  int exp10 = v == 0 ? 0 : (int) floor (log10 (fabs (strtod (buf, NULL))));
  if (exp10 < -4 || exp10 >= (single ? 6 : 15))
    {
      /* PostgreSQL prints e.g. 1e+20, 1.5e-05 */
      char mant[64];
      snprintf (mant, sizeof mant, "%.*e", p - 1, v);
      char *e = strchr (mant, 'e');
      *e = 0;
      int ex = atoi (e + 1);
      snprintf (out, n, "%se%c%02d", mant, ex < 0 ? '-' : '+', abs (ex));
      return;
    }
  int dec = p - 1 - exp10;
  snprintf (out, n, "%.*f", dec > 0 ? dec : 0, v);
}

static void
fmt_i128 (char *out, size_t n, i128 v, int scale)
{
  char d[64];
  int nd = 0;
  bool neg = v < 0;
  unsigned __int128 m = neg ? -(unsigned __int128) v : (unsigned __int128) v;
  do
    {
      d[nd++] = (char) ('0' + (int) (m % 10));
      m /= 10;
    }
  while (m);
  while (nd <= scale)
    d[nd++] = '0';
  size_t pos = 0;
  if (neg)
    out[pos++] = '-';
  for (int i = nd - 1; i >= 0 && pos + 2 < n; i--)
    {
      out[pos++] = d[i];
      if (i == scale && scale > 0)
        out[pos++] = '.';
    }
  out[pos] = 0;
}

static i128
num_i128 (const struct ossd_numeric *x)
{
  return (i128) (((unsigned __int128) (uint64_t) x->hi << 64) | x->lo);
}

/* Print one value (Datum or datum image) of a type. */
static void
fmt_value (char *out, size_t n, uint32_t type, uint64_t datum, const uint8_t *img,
           uint32_t len)
{
  const uint8_t *p;
  uint32_t pl;
  int y, m, d;
  switch (type)
    {
    case OSSD_PG_BOOLOID: snprintf (out, n, "%s", datum ? "t" : "f"); return;
    case OSSD_PG_INT2OID: case OSSD_PG_INT4OID: case OSSD_PG_INT8OID:
      snprintf (out, n, "%lld", (long long) (int64_t) datum);
      return;
    case OSSD_PG_FLOAT4OID:
      {
        float f;
        uint32_t b = (uint32_t) datum;
        memcpy (&f, &b, 4);
        fmt_float (out, n, f, true);
        return;
      }
    case OSSD_PG_FLOAT8OID:
      {
        double f;
        memcpy (&f, &datum, 8);
        fmt_float (out, n, f, false);
        return;
      }
    case OSSD_PG_DATEOID:
      civil_from_days ((int32_t) datum, &y, &m, &d);
      snprintf (out, n, "%04d-%02d-%02d", y, m, d);
      return;
    case OSSD_PG_TIMESTAMPOID:
      {
        int64_t us = (int64_t) datum, days = us / 86400000000LL;
        int64_t rem = us % 86400000000LL;
        if (rem < 0)
          {
            rem += 86400000000LL;
            days--;
          }
        civil_from_days (days, &y, &m, &d);
        int64_t s = rem / 1000000, frac = rem % 1000000;
        int l = snprintf (out, n, "%04d-%02d-%02d %02d:%02d:%02d", y, m, d, (int) (s / 3600),
                          (int) (s / 60 % 60), (int) (s % 60));
        if (frac)
          {
            char f[16];
            snprintf (f, sizeof f, "%06lld", (long long) frac);
            for (int i = 5; i > 0 && f[i] == '0'; i--)
              f[i] = 0;
            snprintf (out + l, n - l, ".%s", f);
          }
        return;
      }
    case OSSD_PG_NUMERICOID:
      {
        ossd_varlena_payload (img, len, &p, &pl);
        uint16_t h = ossd_rd16 (p);
        if ((h & 0xC000) == 0xC000)
          {
            snprintf (out, n, "%s", h == 0xC000 ? "NaN" : h == 0xD000 ? "Infinity" : "-Infinity");
            return;
          }
        struct ossd_numeric x;
        if (ossd_numeric_from_pg (p, pl, &x) < 0)
          {
            snprintf (out, n, "<numeric out of range>");
            return;
          }
        fmt_i128 (out, n, num_i128 (&x), x.scale);
        return;
      }
    default:
      ossd_varlena_payload (img, len, &p, &pl);
      if (pl >= n)
        pl = (uint32_t) n - 1;
      memcpy (out, p, pl);
      out[pl] = 0;
      return;
    }
}

/* ---------------- the request from the command line ---------------- */
struct cond
{
  uint16_t att;
  int op;                      /* 0 eq 1 ne 2 lt 3 le 4 gt 5 ge 6 isnull 7 notnull */
  int col;                     /* ctx column */
  uint32_t type;
  int64_t i;
  double f;
  struct ossd_numeric num;
  char s[256];
  uint32_t slen;
};

struct opts
{
  const char *files[16];
  int nfiles;
  struct ossd_scan_attr attrs[MAXA];
  uint8_t missing[MAXA][256];
  uint32_t natts;
  uint32_t xmin;
  struct cond conds[16];
  int nconds;
  uint16_t bind[OSSD_KCTX_MAX_COLS];
  uint32_t nbind;
  uint16_t proj[OSSD_SCAN_MAX_OUT];
  uint32_t nproj;
  int map_a, map_b;            /* ctx columns of an i8mul map, -1 none */
  struct ossd_scan_agg aggs[32];
  uint32_t naggs;
  uint32_t group[8];
  uint32_t ngroup;
  uint64_t limit;
  uint32_t workers, max_groups;
  bool lpstats;
};

static const char *ops[] = { "eq", "ne", "lt", "le", "gt", "ge", "isnull", "notnull" };

static int
bind_att (struct opts *o, uint16_t att)
{
  for (uint32_t i = 0; i < o->nbind; i++)
    if (o->bind[i] == att)
      return (int) i;
  o->bind[o->nbind] = att;
  return (int) o->nbind++;
}

static void
parse_attr (struct opts *o, const char *spec)
{
  if (o->natts >= MAXA)
    die ("too many attributes", "");
  struct ossd_scan_attr *a = &o->attrs[o->natts];
  int len, byval, dropped, pos = 0;
  char al;
  unsigned oid;
  if (sscanf (spec, "%d:%c:%d:%u:%d:%n", &len, &al, &byval, &oid, &dropped, &pos) != 5 || !pos)
    die ("bad --attr '%s'", spec);
  a->len = (int16_t) len;
  a->align = al == 'c' ? 1 : al == 's' ? 2 : al == 'i' ? 4 : 8;
  a->byval = byval;
  a->type_oid = oid;
  a->dropped = dropped;
  const char *mv = spec + pos;
  if (strcmp (mv, "-") != 0 && !dropped)
    {
      /* '{value}' of attmissingval; strip braces and quotes */
      char v[200];
      snprintf (v, sizeof v, "%s", mv + (mv[0] == '{'));
      size_t l = strlen (v);
      if (l && v[l - 1] == '}')
        v[--l] = 0;
      if (l >= 2 && v[0] == '"')
        {
          memmove (v, v + 1, l);
          v[l - 2] = 0;
        }
      a->has_missing = true;
      uint8_t *img = o->missing[o->natts];
      if (strcmp (v, "NULL") == 0)
        a->missing_null = true;
      else if (byval)
        {
          int64_t x = oid == OSSD_PG_BOOLOID ? v[0] == 't' : strtoll (v, NULL, 10);
          memcpy (img, &x, (size_t) len);
          a->missing_len = (uint32_t) len;
        }
      else if (len == -1 && oid != OSSD_PG_NUMERICOID)
        {
          size_t sl = strlen (v);
          uint32_t hdr = (uint32_t) (sl + 4) << 2;
          memcpy (img, &hdr, 4);
          memcpy (img + 4, v, sl);
          a->missing_len = (uint32_t) sl + 4;
        }
      else
        die ("unsupported missing value type in '%s'", spec);
      a->missing = img;
    }
  o->natts++;
}

static int64_t
parse_ts (const char *s)
{
  int y, m, d, hh = 0, mi = 0;
  double sec = 0;
  if (sscanf (s, "%d-%d-%d %d:%d:%lf", &y, &m, &d, &hh, &mi, &sec) < 3)
    die ("bad date/timestamp '%s'", s);
  return days_from_civil (y, m, d) * 86400000000LL + (int64_t) hh * 3600000000LL
    + (int64_t) mi * 60000000LL + (int64_t) llround (sec * 1e6);
}

static void
parse_filter (struct opts *o, const char *spec)
{
  struct cond *c = &o->conds[o->nconds++];
  char opname[16] = "";
  int att, pos = 0;
  if (sscanf (spec, "%d:%15[a-z]%n", &att, opname, &pos) < 2)
    die ("bad --filter '%s'", spec);
  c->op = -1;
  for (int i = 0; i < 8; i++)
    if (!strcmp (opname, ops[i]))
      c->op = i;
  if (c->op < 0 || att < 1 || (uint32_t) att > o->natts)
    die ("bad --filter '%s'", spec);
  c->att = (uint16_t) att;
  c->col = bind_att (o, c->att);
  c->type = o->attrs[att - 1].type_oid;
  if (c->op >= 6)
    return;
  if (spec[pos] != ':')
    die ("--filter '%s' needs a constant", spec);
  const char *k = spec + pos + 1;
  switch (c->type)
    {
    case OSSD_PG_FLOAT4OID: case OSSD_PG_FLOAT8OID: c->f = strtod (k, NULL); break;
    case OSSD_PG_NUMERICOID:
      if (ossd_numeric_from_string (k, &c->num) < 0)
        die ("bad numeric '%s'", k);
      break;
    case OSSD_PG_DATEOID: c->i = parse_ts (k) / 86400000000LL; break;
    case OSSD_PG_TIMESTAMPOID: c->i = parse_ts (k); break;
    case OSSD_PG_BOOLOID: c->i = k[0] == 't'; break;
    case OSSD_PG_INT2OID: case OSSD_PG_INT4OID: case OSSD_PG_INT8OID:
      c->i = strtoll (k, NULL, 10);
      break;
    default:
      snprintf (c->s, sizeof c->s, "%s", k);
      c->slen = (uint32_t) strlen (c->s);
    }
}

static void
parse_list (const char *s, uint32_t *out, uint32_t *n, uint32_t max)
{
  char buf[512];
  snprintf (buf, sizeof buf, "%s", s);
  for (char *t = strtok (buf, ","); t; t = strtok (NULL, ","))
    {
      if (*n >= max)
        die ("list too long: %s", s);
      out[(*n)++] = (uint32_t) strtoul (t, NULL, 10);
    }
}

static void
parse_aggs (struct opts *o, const char *s)
{
  char buf[512];
  snprintf (buf, sizeof buf, "%s", s);
  for (char *t = strtok (buf, ","); t; t = strtok (NULL, ","))
    {
      struct ossd_scan_agg *a = &o->aggs[o->naggs++];
      char *colon = strchr (t, ':');
      if (colon)
        {
          *colon = 0;
          a->input = (uint32_t) atoi (colon + 1);
        }
      if (!strcmp (t, "count*")) a->kind = OSSD_AGG_COUNT_STAR;
      else if (!strcmp (t, "count")) a->kind = OSSD_AGG_COUNT;
      else if (!strcmp (t, "sum")) a->kind = OSSD_AGG_SUM;
      else if (!strcmp (t, "avg")) a->kind = OSSD_AGG_AVG;
      else if (!strcmp (t, "min")) a->kind = OSSD_AGG_MIN;
      else if (!strcmp (t, "max")) a->kind = OSSD_AGG_MAX;
      else die ("bad aggregate '%s'", t);
    }
}

/* ---------------- kernels ---------------- */
static int
cmp3 (int64_t a, int64_t b)
{
  return a < b ? -1 : a > b;
}

static int
filter_kernel (void *kernel, struct ossd_kctx *ctx, void *state)
{
  const struct opts *o = kernel;
  for (int i = 0; i < o->nconds; i++)
    {
      const struct cond *c = &o->conds[i];
      const struct ossd_col *col = &ctx->col[c->col];
      if (c->op == 6 || c->op == 7)
        {
          if ((c->op == 6) != (col->isnull != 0))
            return OSSD_ROW_SKIP;
          continue;
        }
      if (col->isnull)
        return OSSD_ROW_SKIP;
      int r;
      switch (col->type)
        {
        case OSSD_T_FLOAT4: case OSSD_T_FLOAT8:
          {
            double f;
            memcpy (&f, &col->value, 8);
            r = f < c->f ? -1 : f > c->f;
            break;
          }
        case OSSD_T_NUMERIC:
          if (ossd_numeric_cmp ((const struct ossd_numeric *) (uintptr_t) col->data, &c->num, &r)
              < 0)
            return OSSD_ROW_TO_HOST;
          break;
        case OSSD_T_TEXT: case OSSD_T_VARCHAR: case OSSD_T_BPCHAR:
          {
            const uint8_t *p = (const uint8_t *) (uintptr_t) col->data;
            uint32_t l = col->len, kl = c->slen;
            if (col->type == OSSD_T_BPCHAR)
              {
                while (l && p[l - 1] == ' ')
                  l--;
                while (kl && c->s[kl - 1] == ' ')
                  kl--;
              }
            uint32_t m = l < kl ? l : kl;
            r = m ? memcmp (p, c->s, m) : 0;
            r = r ? (r < 0 ? -1 : 1) : cmp3 (l, kl);
            break;
          }
        default:
          r = cmp3 ((int64_t) col->value, c->i);
        }
      bool ok = c->op == 0 ? r == 0 : c->op == 1 ? r != 0 : c->op == 2 ? r < 0
        : c->op == 3 ? r <= 0 : c->op == 4 ? r > 0 : r >= 0;
      if (!ok)
        return OSSD_ROW_SKIP;
    }
  return OSSD_ROW_MATCH;
}

static int
map_kernel (void *kernel, struct ossd_kctx *ctx, void *state)
{
  const struct opts *o = kernel;
  const struct ossd_col *a = &ctx->col[o->map_a], *b = &ctx->col[o->map_b];
  if (a->isnull || b->isnull)
    ctx->out[0].isnull = 1;
  else
    ctx->out[0].value = (uint64_t) ((int64_t) a->value * (int64_t) b->value);
  return OSSD_ROW_MATCH;
}

/* ---------------- reading the segments ---------------- */
struct files
{
  int fd[16];
  uint32_t nblocks[16];
};

static int
read_block (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  struct files *f = arg;
  ssize_t n = pread (f->fd[target], page, OSSD_PG_BLCKSZ, (off_t) block * OSSD_PG_BLCKSZ);
  if (n != OSSD_PG_BLCKSZ)
    {
      snprintf (err, errlen, "short read of block %u", block);
      return -EIO;
    }
  return 0;
}

/* ---------------- collecting results ---------------- */
struct collected
{
  struct ossd_buf rows, hrows, groups;
  struct ossd_host_block hb[1024];
  uint32_t nhb;
  struct ossd_scan_counters tot;
};

static void
take (struct ossd_buf *b, const uint8_t *d, size_t n)
{
  if (!n)
    return;
  if (ossd_buf_reserve (b, n) < 0)
    die ("out of memory%s", "");
  memcpy (b->data + b->len, d, n);
  b->len += n;
}

static int
sink (void *arg, const struct ossd_scan_chunk *ch)
{
  struct collected *c = arg;
  take (&c->rows, ch->rows, ch->rows_len);
  take (&c->hrows, ch->host_rows, ch->host_rows_len);
  take (&c->groups, ch->groups, ch->groups_len);
  for (uint32_t i = 0; i < ch->host_block_count && c->nhb < 1024; i++)
    c->hb[c->nhb++] = ch->host_blocks[i];
  if (ch->last)
    c->tot = ch->counters;
  return 0;
}

/* ---------------- aggregate merge (what pg_ossd's final step does) --- */
struct acc
{
  int64_t count;
  i128 isum;
  int32_t scale;
  double fsum;
  bool has;
  uint64_t datum;
  uint8_t img[9000];
  uint32_t len;
};

struct mgroup
{
  char key[1024];
  struct acc *acc;
};

static uint32_t
col_type (const struct opts *o, uint32_t col)
{
  if (o->map_a >= 0)
    return OSSD_PG_INT8OID;
  return o->attrs[o->proj[col] - 1].type_oid;
}

static bool
col_byval (const struct opts *o, uint32_t col)
{
  if (o->map_a >= 0)
    return true;
  return o->attrs[o->proj[col] - 1].byval;
}

static int
val_cmp (uint32_t type, uint64_t da, const uint8_t *ia, uint32_t la, uint64_t db,
         const uint8_t *ib, uint32_t lb)
{
  const uint8_t *pa, *pb;
  uint32_t na, nb;
  switch (type)
    {
    case OSSD_PG_FLOAT4OID:
      {
        float x, y;
        uint32_t bx = (uint32_t) da, by = (uint32_t) db;
        memcpy (&x, &bx, 4);
        memcpy (&y, &by, 4);
        return x < y ? -1 : x > y;
      }
    case OSSD_PG_FLOAT8OID:
      {
        double x, y;
        memcpy (&x, &da, 8);
        memcpy (&y, &db, 8);
        return x < y ? -1 : x > y;
      }
    case OSSD_PG_NUMERICOID:
      {
        struct ossd_numeric x, y;
        int r = 0;
        ossd_varlena_payload (ia, la, &pa, &na);
        ossd_varlena_payload (ib, lb, &pb, &nb);
        if (ossd_numeric_from_pg (pa, na, &x) < 0 || ossd_numeric_from_pg (pb, nb, &y) < 0)
          die ("numeric out of range in min/max%s", "");
        ossd_numeric_cmp (&x, &y, &r);
        return r;
      }
    case OSSD_PG_TEXTOID: case OSSD_PG_VARCHAROID: case OSSD_PG_BPCHAROID:
      {
        ossd_varlena_payload (ia, la, &pa, &na);
        ossd_varlena_payload (ib, lb, &pb, &nb);
        if (type == OSSD_PG_BPCHAROID)
          {
            while (na && pa[na - 1] == ' ')
              na--;
            while (nb && pb[nb - 1] == ' ')
              nb--;
          }
        uint32_t m = na < nb ? na : nb;
        int r = m ? memcmp (pa, pb, m) : 0;
        return r ? (r < 0 ? -1 : 1) : cmp3 (na, nb);
      }
    default:
      return cmp3 ((int64_t) da, (int64_t) db);
    }
}

static void
merge_state (const struct opts *o, struct acc *a, const struct ossd_agg_state_view *s,
             uint32_t type)
{
  switch (s->kind)
    {
    case OSSD_AGG_COUNT_STAR: case OSSD_AGG_COUNT:
      a->count += s->count;
      return;
    case OSSD_AGG_SUM: case OSSD_AGG_AVG:
      if (!s->count)
        return;
      if (s->flags & OSSD_AGGF_FLOAT)
        {
          double f;
          memcpy (&f, &s->sum_lo, 8);
          a->fsum = type == OSSD_PG_FLOAT4OID && s->kind == OSSD_AGG_SUM
            ? (double) ((float) a->fsum + (float) f) : a->fsum + f;
        }
      else
        {
          i128 v = (i128) (((unsigned __int128) (uint64_t) s->sum_hi << 64) | s->sum_lo);
          int32_t sc = s->scale;
          if (a->count && a->scale > sc)
            for (; sc < a->scale; sc++)
              v *= 10;
          else if (a->count)
            for (; a->scale < sc; a->scale++)
              a->isum *= 10;
          a->isum += v;
          a->scale = sc;
        }
      a->count += s->count;
      return;
    default:
      if (!(s->flags & OSSD_AGGF_HAS_VALUE))
        return;
      if (a->has)
        {
          int c = val_cmp (type, s->value.datum, s->value.data, s->value.len, a->datum, a->img,
                           a->len);
          if ((s->kind == OSSD_AGG_MIN && c >= 0) || (s->kind == OSSD_AGG_MAX && c <= 0))
            return;
        }
      a->has = true;
      a->datum = s->value.datum;
      a->len = s->value.len < sizeof a->img ? s->value.len : (uint32_t) sizeof a->img;
      if (s->value.data)
        memcpy (a->img, s->value.data, a->len);
      return;
    }
}

static void
print_agg (const struct opts *o, const struct ossd_scan_agg *ag, const struct acc *a,
           char *out, size_t n)
{
  uint32_t type = ag->kind == OSSD_AGG_COUNT_STAR ? 0 : col_type (o, ag->input);
  out[0] = 0;
  switch (ag->kind)
    {
    case OSSD_AGG_COUNT_STAR: case OSSD_AGG_COUNT:
      snprintf (out, n, "%lld", (long long) a->count);
      return;
    case OSSD_AGG_SUM:
      if (!a->count)
        return;
      if (type == OSSD_PG_FLOAT4OID || type == OSSD_PG_FLOAT8OID)
        fmt_float (out, n, a->fsum, type == OSSD_PG_FLOAT4OID);
      else
        fmt_i128 (out, n, a->isum, a->scale);
      return;
    case OSSD_AGG_AVG:
      if (!a->count)
        return;
      if (type == OSSD_PG_FLOAT4OID || type == OSSD_PG_FLOAT8OID)
        {
          fmt_float (out, n, a->fsum / a->count, false);
          return;
        }
      {
        /* round(sum / count, 6), half away from zero */
        i128 num = a->isum, den = a->count;
        int sc = a->scale;
        for (; sc < 6; sc++)
          num *= 10;
        for (; sc > 6; sc--)
          den *= 10;
        bool neg = num < 0;
        if (neg)
          num = -num;
        i128 q = num / den, r = num % den;
        if (2 * r >= den)
          q++;
        fmt_i128 (out, n, neg ? -q : q, 6);
        return;
      }
    default:
      if (a->has)
        fmt_value (out, n, type, a->datum, a->img, a->len);
      return;
    }
}

static int
print_aggregates (const struct opts *o, struct collected *c)
{
  uint32_t cap = 1024, ng = 0;
  struct mgroup *gs = calloc (cap, sizeof *gs);
  bool kbv[8], abv[32];
  for (uint32_t k = 0; k < o->ngroup; k++)
    kbv[k] = col_byval (o, o->group[k]);
  for (uint32_t a = 0; a < o->naggs; a++)
    abv[a] = o->aggs[a].kind == OSSD_AGG_COUNT_STAR ? true : col_byval (o, o->aggs[a].input);
  struct ossd_value_view keys[8];
  struct ossd_agg_state_view st[32];
  size_t pos = 0;
  int rc;
  while ((rc = ossd_group_read (c->groups.data, c->groups.len, &pos, (uint16_t) o->ngroup, kbv,
                                keys, (uint16_t) o->naggs, abv, st)) == 1)
    {
      char key[1024] = "";
      size_t kl = 0;
      for (uint32_t k = 0; k < o->ngroup; k++)
        {
          char v[512] = "";
          if (!keys[k].isnull)
            fmt_value (v, sizeof v, col_type (o, o->group[k]), keys[k].datum, keys[k].data,
                       keys[k].len);
          kl += (size_t) snprintf (key + kl, sizeof key - kl, "%s%s|", keys[k].isnull ? "\x01" : "", v);
        }
      uint32_t g;
      for (g = 0; g < ng; g++)
        if (!strcmp (gs[g].key, key))
          break;
      if (g == ng)
        {
          if (ng == cap)
            {
              cap *= 2;
              gs = realloc (gs, cap * sizeof *gs);
            }
          snprintf (gs[ng].key, sizeof gs[ng].key, "%s", key);
          gs[ng].acc = calloc (o->naggs ? o->naggs : 1, sizeof (struct acc));
          ng++;
        }
      for (uint32_t a = 0; a < o->naggs; a++)
        merge_state (o, &gs[g].acc[a], &st[a],
                     o->aggs[a].kind == OSSD_AGG_COUNT_STAR ? 0 : col_type (o, o->aggs[a].input));
    }
  if (rc < 0)
    {
      fprintf (stderr, "rt_pgpages_driver: malformed partial group\n");
      return -1;
    }
  for (uint32_t g = 0; g < ng; g++)
    {
      /* key text: NULL keys print empty */
      char line[4096] = "";
      size_t l = 0;
      for (const char *p = gs[g].key; *p; p++)
        if (*p != '\x01')
          line[l++] = *p;
      line[l] = 0;
      for (uint32_t a = 0; a < o->naggs; a++)
        {
          char v[1024];
          print_agg (o, &o->aggs[a], &gs[g].acc[a], v, sizeof v);
          l += (size_t) snprintf (line + l, sizeof line - l, "%s%s", v,
                                  a + 1 < o->naggs ? "|" : "");
        }
      if (l && line[l - 1] == '|' && o->naggs == 0)
        line[l - 1] = 0;
      puts (line);
      free (gs[g].acc);
    }
  free (gs);
  return 0;
}

static void
print_rows (const struct opts *o, struct collected *c)
{
  uint32_t ncols = o->map_a >= 0 ? 1 : o->nproj;
  bool bv[OSSD_SCAN_MAX_OUT];
  for (uint32_t i = 0; i < ncols; i++)
    bv[i] = col_byval (o, i);
  struct ossd_row_view rv;
  struct ossd_value_view v[OSSD_SCAN_MAX_OUT];
  size_t pos = 0;
  static char line[65536];
  while (ossd_row_read (c->rows.data, c->rows.len, &pos, (uint16_t) ncols, bv, &rv, v) == 1)
    {
      size_t l = 0;
      for (uint32_t i = 0; i < ncols; i++)
        {
          static char val[16384];
          val[0] = 0;
          if (!v[i].isnull)
            fmt_value (val, sizeof val, col_type (o, i), v[i].datum, v[i].data, v[i].len);
          l += (size_t) snprintf (line + l, sizeof line - l, "%s%s", val, i + 1 < ncols ? "|" : "");
        }
      puts (line);
    }
}

static int
lpstats (const char *file)
{
  int fd = open (file, O_RDONLY);
  if (fd < 0)
    die ("cannot open %s", file);
  static uint8_t page[OSSD_PG_BLCKSZ];
  unsigned long kinds[4] = { 0 }, heap_only = 0, hot_updated = 0, frozen = 0, bad = 0;
  uint32_t b = 0;
  while (pread (fd, page, sizeof page, (off_t) b * OSSD_PG_BLCKSZ) == OSSD_PG_BLCKSZ)
    {
      uint32_t reason;
      char err[256];
      if (ossd_page_check (page, b, &reason, err, sizeof err) < 0)
        bad++;
      else
        for (unsigned off = 1; off <= ossd_page_max_offnum (page); off++)
          {
            const uint8_t *tup;
            uint32_t len;
            unsigned k = ossd_page_item (page, off, &tup, &len);
            kinds[k]++;
            if (k != OSSD_PG_LP_NORMAL)
              continue;
            uint16_t im2 = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK2);
            uint16_t im = ossd_rd16 (tup + OSSD_PG_HT_INFOMASK);
            heap_only += (im2 & OSSD_PG_HEAP_ONLY_TUPLE) != 0;
            hot_updated += (im2 & OSSD_PG_HEAP_HOT_UPDATED) != 0;
            frozen += (im & OSSD_PG_HEAP_XMIN_FROZEN) == OSSD_PG_HEAP_XMIN_FROZEN;
          }
      b++;
    }
  printf ("blocks=%u bad=%lu unused=%lu normal=%lu redirect=%lu dead=%lu heap_only=%lu "
          "hot_updated=%lu frozen=%lu\n", b, bad, kinds[0], kinds[1], kinds[2], kinds[3],
          heap_only, hot_updated, frozen);
  close (fd);
  return 0;
}

int
main (int argc, char **argv)
{
  static struct opts o;
  o.map_a = o.map_b = -1;
  o.workers = 1;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp (a, "--lpstats"))
        {
          o.lpstats = true;
          continue;
        }
      if (!v)
        die ("option %s needs a value", a);
      i++;
      if (!strcmp (a, "--file"))
        o.files[o.nfiles++] = v;
      else if (!strcmp (a, "--attr"))
        parse_attr (&o, v);
      else if (!strcmp (a, "--xmin"))
        o.xmin = (uint32_t) strtoul (v, NULL, 10);
      else if (!strcmp (a, "--filter"))
        parse_filter (&o, v);
      else if (!strcmp (a, "--project"))
        {
          uint32_t tmp[OSSD_SCAN_MAX_OUT], n = 0;
          parse_list (v, tmp, &n, OSSD_SCAN_MAX_OUT);
          for (uint32_t k = 0; k < n; k++)
            o.proj[k] = (uint16_t) tmp[k];
          o.nproj = n;
        }
      else if (!strcmp (a, "--map"))
        {
          int x, y;
          if (sscanf (v, "i8mul:%d:%d", &x, &y) != 2)
            die ("bad --map '%s'", v);
          o.map_a = bind_att (&o, (uint16_t) x);
          o.map_b = bind_att (&o, (uint16_t) y);
        }
      else if (!strcmp (a, "--agg"))
        parse_aggs (&o, v);
      else if (!strcmp (a, "--group"))
        parse_list (v, o.group, &o.ngroup, 8);
      else if (!strcmp (a, "--limit"))
        o.limit = strtoull (v, NULL, 10);
      else if (!strcmp (a, "--workers"))
        o.workers = (uint32_t) atoi (v);
      else if (!strcmp (a, "--max-groups"))
        o.max_groups = (uint32_t) atoi (v);
      else
        die ("unknown option %s", a);
    }
  if (o.lpstats)
    return lpstats (o.files[0]);
  if (!o.nfiles)
    die ("no --file%s", "");
  static struct files f;
  struct ossd_scan_target tg[16];
  struct ossd_block_range br[16];
  for (int i = 0; i < o.nfiles; i++)
    {
      /* (no sys/stat.h: with _GNU_SOURCE it pulls linux/types.h, whose
       * __u64 conflicts with ossd_kernel.h's) */
      f.fd[i] = open (o.files[i], O_RDONLY);
      off_t size = f.fd[i] < 0 ? -1 : lseek (f.fd[i], 0, SEEK_END);
      if (size < 0)
        die ("cannot open %s", o.files[i]);
      br[i] = (struct ossd_block_range) { 0, (uint32_t) (size / OSSD_PG_BLCKSZ) };
      tg[i] = (struct ossd_scan_target) { (uint32_t) i * SEG_BLOCKS, 1, &br[i] };
    }
  static const struct ossd_scan_outcol i8out = { OSSD_PG_INT8OID, 8, 8, true, -1 };
  struct ossd_scan_request q = {
    .ntargets = (uint32_t) o.nfiles, .targets = tg, .natts = o.natts, .attrs = o.attrs,
    .snapshot_xmin = o.xmin, .nbind = o.nbind, .bind = o.bind, .nproj = o.nproj,
    .proj = o.proj, .naggs = o.naggs, .aggs = o.aggs, .ngroup_by = o.ngroup,
    .group_by = o.group, .limit = o.limit, .max_groups = o.max_groups,
    .workers = o.workers, .read_block = read_block, .read_arg = &f, .sink = sink,
  };
  if (o.nconds)
    q.filter = (struct ossd_scan_kernel) { .exec = filter_kernel, .kernel = &o };
  if (o.map_a >= 0)
    {
      q.map = (struct ossd_scan_kernel) { .exec = map_kernel, .kernel = &o };
      q.nout = 1;
      q.outputs = &i8out;
    }
  static struct collected c;
  q.sink_arg = &c;
  char err[512] = "";
  int rc = ossd_scan_run (&q, NULL, err, sizeof err);
  if (rc < 0)
    {
      fprintf (stderr, "rt_pgpages_driver: scan failed: %s\n", err);
      return 1;
    }
  if (o.naggs || o.ngroup)
    {
      if (print_aggregates (&o, &c) < 0)
        return 1;
    }
  else
    print_rows (&o, &c);
  size_t pos = 0;
  struct ossd_host_row_view h;
  while (ossd_host_row_read (c.hrows.data, c.hrows.len, &pos, &h) == 1)
    printf ("HOST|(%u,%u)|%u\n", h.block, h.offnum, h.reason & 0x7fff);
  for (uint32_t i = 0; i < c.nhb; i++)
    printf ("HOSTBLOCK|%u|%u\n", c.hb[i].block, c.hb[i].reason);
  fprintf (stderr,
           "blocks=%llu to_host=%llu seen=%llu visible=%llu matched=%llu rows=%llu "
           "host_rows=%llu groups=%llu\n",
           (unsigned long long) c.tot.blocks_scanned, (unsigned long long) c.tot.blocks_to_host,
           (unsigned long long) c.tot.tuples_seen, (unsigned long long) c.tot.tuples_visible,
           (unsigned long long) c.tot.tuples_matched, (unsigned long long) c.tot.rows_out,
           (unsigned long long) c.tot.rows_to_host, (unsigned long long) c.tot.groups_out);
  return 0;
}
