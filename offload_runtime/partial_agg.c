/* partial_agg.c - partial aggregates (count(*), count, sum, avg, min, max)
 * and the bounded GROUP BY hash table of the scan engine, plus the encoder
 * of packed partial groups (format in ossd_scan.h).
 *
 * States:
 *   count(*), count(x): int64 count.
 *   sum/avg over int2/int4/int8: exact 128-bit integer (like PostgreSQL's
 *     int8 accumulation into numeric); count of non-null inputs.
 *   sum/avg over numeric: exact 128-bit integer at the largest input scale
 *     seen (PostgreSQL's sum(numeric) result has the maximum input dscale);
 *     a value or sum beyond 128 bits, NaN or Inf hands the row to the host.
 *   sum(float4): accumulated in float4 like PostgreSQL's float4pl;
 *   sum(float8), avg(float4/float8): accumulated in float8.  Floating-point
 *     addition is not associative: the drive's order (per worker, block
 *     ranges split across workers) differs from a plain sequential scan,
 *     so float sums can differ from plain PostgreSQL in the last bits -
 *     PostgreSQL's own result is order-dependent as well (parallel seq
 *     scans).  Exact equality holds for integer and numeric aggregates
 *     only; pg_ossd should push float sum/avg only when a GUC (e.g.
 *     ossd.float_aggregates) allows it.  An overflow to Inf from finite
 *     inputs hands the row to the host (PostgreSQL raises the error).
 *   min/max: ints, oid, date, timestamp(tz) as signed integers; float4/8
 *     with NaN greater than everything (as PostgreSQL sorts floats); numeric
 *     exactly; text/varchar/bytea/name bytewise (C collation: the host must
 *     only push text min/max under the C collation), bpchar bytewise with
 *     trailing blanks ignored.  A tie replaces the current value (as
 *     int4smaller/text_smaller return their second argument).
 * A row is applied atomically: if any aggregate of the row would overflow
 * none is updated and the caller hands the row to the host.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_rt.h"
#include "ossd_scan.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

struct agg_state
{
  int64_t count;
  i128 isum;                   /* int / numeric sum */
  double fsum;                 /* float sum */
  int32_t scale;               /* numeric sum scale */
  bool has;                    /* min/max: value present */
  uint64_t v;                  /* min/max fixed value (ABI representation) */
  struct ossd_numeric num;     /* min/max numeric */
  uint8_t *bytes;              /* min/max by-ref payload */
  uint32_t blen, bcap;
};

struct group
{
  uint64_t hash;
  uint8_t *key;                /* normalized key encoding */
  uint32_t keylen;
  struct agg_state *st;
};

/* Groups' states and keys come from a bump arena, emptied at once when
 * the table is reset or freed: a table of 65,536 groups refilled many
 * times (TPC-H Q18's 1.5 M orders) would otherwise spend its time in
 * malloc and free. */
struct arena_block
{
  struct arena_block *next;
  size_t used, cap;
  _Alignas (16) uint8_t data[];  /* agg_state holds __int128 */
};

#define ARENA_BLOCK_BYTES (1u << 20)

struct ossd_agg_table
{
  uint32_t naggs, nkeys, max_groups;
  struct ossd_scan_agg aggs[OSSD_SCAN_MAX_OUT * 2];
  uint8_t agg_tags[OSSD_SCAN_MAX_OUT * 2];
  uint8_t key_tags[OSSD_SCAN_MAX_OUT];
  bool key_byval[OSSD_SCAN_MAX_OUT], key_varlena[OSSD_SCAN_MAX_OUT];
  uint32_t cap;                /* slots, power of two */
  uint32_t *slots;             /* group index + 1, 0 = empty */
  struct group *groups;
  uint32_t ngroups;
  struct arena_block *arena;   /* newest first */
  struct group *last;          /* the previous row's group: rows of a key
                                  often come together (lineitem by order) */
  struct ossd_buf keybuf;      /* scratch: the row's key encoding */
  struct agg_state *tmp;       /* scratch: tentative states */
  bool *replace;               /* scratch: min/max replaces */
};

struct group;
static int encode_key (struct ossd_agg_table *t, const struct ossd_agg_input *keys);
static int find_or_add (struct ossd_agg_table *t, struct group **out);

bool
ossd_agg_tag_sum_ok (uint8_t tag)
{
  return tag == OSSD_T_INT2 || tag == OSSD_T_INT4 || tag == OSSD_T_INT8
    || tag == OSSD_T_FLOAT4 || tag == OSSD_T_FLOAT8 || tag == OSSD_T_NUMERIC;
}

bool
ossd_agg_tag_minmax_ok (uint8_t tag)
{
  switch (tag)
    {
    case OSSD_T_INT2: case OSSD_T_INT4: case OSSD_T_INT8: case OSSD_T_OID:
    case OSSD_T_FLOAT4: case OSSD_T_FLOAT8: case OSSD_T_NUMERIC: case OSSD_T_DATE:
    case OSSD_T_TIMESTAMP: case OSSD_T_TIMESTAMPTZ: case OSSD_T_TEXT:
    case OSSD_T_VARCHAR: case OSSD_T_BPCHAR: case OSSD_T_BYTEA: case OSSD_T_NAME:
      return true;
    default:
      return false;
    }
}

bool
ossd_agg_tag_key_ok (uint8_t tag)
{
  return tag != OSSD_T_NONE;
}

static bool
tag_is_float (uint8_t tag)
{
  return tag == OSSD_T_FLOAT4 || tag == OSSD_T_FLOAT8;
}

static bool
tag_is_bytes (uint8_t tag)
{
  return tag == OSSD_T_TEXT || tag == OSSD_T_VARCHAR || tag == OSSD_T_BPCHAR
    || tag == OSSD_T_BYTEA || tag == OSSD_T_NAME;
}

struct ossd_agg_table *
ossd_agg_table_new (uint32_t naggs, const struct ossd_scan_agg *aggs, const uint8_t *agg_tags,
                    uint32_t nkeys, const uint8_t *key_tags, const bool *key_byval,
                    const bool *key_varlena, uint32_t max_groups)
{
  if (naggs > OSSD_SCAN_MAX_OUT * 2 || nkeys > OSSD_SCAN_MAX_OUT)
    return NULL;
  struct ossd_agg_table *t = calloc (1, sizeof *t);
  if (!t)
    return NULL;
  t->naggs = naggs;
  t->nkeys = nkeys;
  t->max_groups = nkeys ? (max_groups ? max_groups : 65536) : 1;
  memcpy (t->aggs, aggs, naggs * sizeof *aggs);
  memcpy (t->agg_tags, agg_tags, naggs);
  if (nkeys)
    {
      memcpy (t->key_tags, key_tags, nkeys);
      memcpy (t->key_byval, key_byval, nkeys * sizeof (bool));
      memcpy (t->key_varlena, key_varlena, nkeys * sizeof (bool));
    }
  t->cap = 16;
  while (t->cap < 2 * t->max_groups)
    t->cap *= 2;
  t->slots = calloc (t->cap, sizeof *t->slots);
  t->groups = calloc (t->max_groups, sizeof *t->groups);
  t->tmp = calloc (naggs ? naggs : 1, sizeof *t->tmp);
  t->replace = calloc (naggs ? naggs : 1, sizeof (bool));
  if (!t->slots || !t->groups || !t->tmp || !t->replace)
    {
      ossd_agg_table_free (t);
      return NULL;
    }
  if (nkeys == 0)
    {
      /* the single group exists even when no row matches (count 0) */
      struct group *g;
      if (encode_key (t, NULL) < 0 || find_or_add (t, &g) != 0)
        {
          ossd_agg_table_free (t);
          return NULL;
        }
    }
  return t;
}

static void *
arena_alloc (struct ossd_agg_table *t, size_t n)
{
  struct arena_block *b = t->arena;

  n = (n + 15) & ~(size_t) 15;
  if (!b || b->cap - b->used < n)
    {
      size_t cap = n > ARENA_BLOCK_BYTES ? n : ARENA_BLOCK_BYTES;
      b = malloc (sizeof *b + cap);
      if (!b)
        return NULL;
      b->next = t->arena;
      b->used = 0;
      b->cap = cap;
      t->arena = b;
    }
  void *p = b->data + b->used;
  b->used += n;
  return p;
}

/* Free all but the oldest block, and rewind that one. */
static void
arena_reset (struct ossd_agg_table *t)
{
  while (t->arena && t->arena->next)
    {
      struct arena_block *next = t->arena->next;
      free (t->arena);
      t->arena = next;
    }
  if (t->arena)
    t->arena->used = 0;
}

static void
free_groups (struct ossd_agg_table *t)
{
  for (uint32_t g = 0; g < t->ngroups; g++)
    for (uint32_t a = 0; a < t->naggs; a++)
      free (t->groups[g].st[a].bytes);
  arena_reset (t);
}

/* Empty a keyed table whose groups have been emitted, so that the scan
 * goes on with a fresh one: the host merges a group that comes twice. */
void
ossd_agg_table_reset (struct ossd_agg_table *t)
{
  if (t->nkeys == 0)
    return;
  free_groups (t);
  memset (t->groups, 0, t->max_groups * sizeof *t->groups);
  memset (t->slots, 0, t->cap * sizeof *t->slots);
  t->ngroups = 0;
  t->last = NULL;
}

void
ossd_agg_table_free (struct ossd_agg_table *t)
{
  if (!t)
    return;
  free_groups (t);
  free (t->arena);
  free (t->groups);
  free (t->slots);
  free (t->tmp);
  free (t->replace);
  ossd_buf_free (&t->keybuf);
  free (t);
}

uint32_t
ossd_agg_table_groups (const struct ossd_agg_table *t)
{
  return t->ngroups;
}

static uint64_t
hash_bytes (const uint8_t *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

/* Normalized key: per key a null byte, then 8 bytes (byval) or u32 length
 * + payload bytes (by-ref, varlena header stripped). */
static int
encode_key (struct ossd_agg_table *t, const struct ossd_agg_input *keys)
{
  struct ossd_buf *b = &t->keybuf;
  b->len = 0;
  if (ossd_buf_reserve (b, 1) < 0)
    return -ENOMEM;
  for (uint32_t k = 0; k < t->nkeys; k++)
    {
      const struct ossd_agg_input *in = &keys[k];
      size_t need = 1 + (in->isnull ? 0 : (t->key_byval[k] ? 8 : 4 + (size_t) in->len));
      if (ossd_buf_reserve (b, need) < 0)
        return -ENOMEM;
      uint8_t *p = b->data + b->len;
      p[0] = in->isnull;
      if (!in->isnull)
        {
          if (t->key_byval[k])
            memcpy (p + 1, &in->value, 8);
          else
            {
              memcpy (p + 1, &in->len, 4);
              memcpy (p + 5, in->payload, in->len);
            }
        }
      b->len += need;
    }
  return 0;
}

static int
find_or_add (struct ossd_agg_table *t, struct group **out)
{
  if (t->last && t->last->keylen == t->keybuf.len
      && memcmp (t->last->key, t->keybuf.data, t->keybuf.len) == 0)
    {
      *out = t->last;
      return 0;
    }
  uint64_t h = hash_bytes (t->keybuf.data, t->keybuf.len);
  uint32_t mask = t->cap - 1;
  for (uint32_t i = (uint32_t) h & mask;; i = (i + 1) & mask)
    {
      uint32_t s = t->slots[i];
      if (s == 0)
        {
          if (t->ngroups >= t->max_groups)
            return OSSD_HR_GROUP_FULL;
          struct group *g = &t->groups[t->ngroups];
          size_t stbytes = (t->naggs ? t->naggs : 1) * sizeof *g->st;
          g->st = arena_alloc (t, stbytes);
          g->key = arena_alloc (t, t->keybuf.len ? t->keybuf.len : 1);
          if (!g->st || !g->key)
            return -ENOMEM;
          memset (g->st, 0, stbytes);
          memcpy (g->key, t->keybuf.data, t->keybuf.len);
          g->keylen = (uint32_t) t->keybuf.len;
          g->hash = h;
          t->slots[i] = ++t->ngroups;
          *out = t->last = g;
          return 0;
        }
      struct group *g = &t->groups[s - 1];
      if (g->hash == h && g->keylen == t->keybuf.len
          && memcmp (g->key, t->keybuf.data, g->keylen) == 0)
        {
          *out = t->last = g;
          return 0;
        }
    }
}

static double
bits_to_f8 (uint64_t b)
{
  double d;
  memcpy (&d, &b, 8);
  return d;
}

static int
float_cmp (double a, double b)
{
  if (isnan (a))
    return isnan (b) ? 0 : 1;
  if (isnan (b))
    return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

static i128
num_val (const struct ossd_numeric *n)
{
  return (i128) (((u128) (uint64_t) n->hi << 64) | n->lo);
}

/* v * 10^e with overflow check. */
static bool
rescale (i128 v, int e, i128 *out)
{
  for (int i = 0; i < e; i++)
    if (__builtin_mul_overflow (v, (i128) 10, &v))
      return false;
  *out = v;
  return true;
}

static int
numeric_cmp (const struct ossd_numeric *a, const struct ossd_numeric *b)
{
  i128 va = num_val (a), vb = num_val (b);
  if (a->scale < b->scale)
    {
      if (!rescale (va, b->scale - a->scale, &va))
        return va < 0 ? -1 : 1;   /* |a| beyond range: sign decides */
    }
  else if (b->scale < a->scale)
    {
      if (!rescale (vb, a->scale - b->scale, &vb))
        return vb < 0 ? 1 : -1;
    }
  return va < vb ? -1 : va > vb ? 1 : 0;
}

static int
bytes_cmp (uint8_t tag, const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
  if (tag == OSSD_T_BPCHAR)
    {
      while (alen && a[alen - 1] == ' ')
        alen--;
      while (blen && b[blen - 1] == ' ')
        blen--;
    }
  uint32_t n = alen < blen ? alen : blen;
  int c = n ? memcmp (a, b, n) : 0;
  if (c)
    return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Compare a new input with a min/max state: <0, 0, >0. */
static int
minmax_cmp (uint8_t tag, const struct ossd_agg_input *in, const struct agg_state *s)
{
  switch (tag)
    {
    case OSSD_T_FLOAT4:
    case OSSD_T_FLOAT8:
      return float_cmp (bits_to_f8 (in->value), bits_to_f8 (s->v));
    case OSSD_T_NUMERIC:
      return numeric_cmp (&in->num, &s->num);
    case OSSD_T_OID:
      return (uint32_t) in->value < (uint32_t) s->v ? -1 : (uint32_t) in->value > (uint32_t) s->v;
    default:
      if (tag_is_bytes (tag))
        return bytes_cmp (tag, in->payload, in->len, s->bytes, s->blen);
      return (int64_t) in->value < (int64_t) s->v ? -1 : (int64_t) in->value > (int64_t) s->v;
    }
}

/* Tentative update of one aggregate into *n (copied from *s).  Returns 0 or
 * OSSD_HR_OVERFLOW; sets *repl for a min/max replacement. */
static int
agg_step (const struct ossd_scan_agg *ag, uint8_t tag, const struct ossd_agg_input *in,
          const struct agg_state *s, struct agg_state *n, bool *repl)
{
  *n = *s;
  *repl = false;
  switch (ag->kind)
    {
    case OSSD_AGG_COUNT_STAR:
      n->count++;
      return 0;
    case OSSD_AGG_COUNT:
      if (!in->isnull)
        n->count++;
      return 0;
    case OSSD_AGG_SUM:
    case OSSD_AGG_AVG:
      if (in->isnull)
        return 0;
      if (tag_is_float (tag))
        {
          double x = bits_to_f8 (in->value);
          double r;
          if (tag == OSSD_T_FLOAT4 && ag->kind == OSSD_AGG_SUM)
            r = (double) ((float) s->fsum + (float) x);
          else
            r = s->fsum + x;
          if (isinf (r) && !isinf (s->fsum) && !isinf (x))
            return OSSD_HR_OVERFLOW;
          n->fsum = r;
        }
      else if (tag == OSSD_T_NUMERIC)
        {
          i128 acc = s->isum, v = num_val (&in->num);
          int32_t sc = s->count ? s->scale : in->num.scale;
          if (s->count && in->num.scale > sc)
            {
              if (!rescale (acc, in->num.scale - sc, &acc))
                return OSSD_HR_OVERFLOW;
              sc = in->num.scale;
            }
          if (in->num.scale < sc && !rescale (v, sc - in->num.scale, &v))
            return OSSD_HR_OVERFLOW;
          if (__builtin_add_overflow (acc, v, &acc))
            return OSSD_HR_OVERFLOW;
          n->isum = acc;
          n->scale = sc;
        }
      else if (__builtin_add_overflow (s->isum, (i128) (int64_t) in->value, &n->isum))
        return OSSD_HR_OVERFLOW;
      n->count++;
      return 0;
    case OSSD_AGG_MIN:
    case OSSD_AGG_MAX:
      if (in->isnull)
        return 0;
      if (!s->has)
        *repl = true;
      else
        {
          int c = minmax_cmp (tag, in, s);
          *repl = ag->kind == OSSD_AGG_MIN ? c <= 0 : c >= 0;
        }
      n->count++;
      return 0;
    }
  return 0;
}

static int
minmax_commit (uint8_t tag, const struct ossd_agg_input *in, struct agg_state *s)
{
  s->has = true;
  if (tag == OSSD_T_NUMERIC)
    s->num = in->num;
  else if (tag_is_bytes (tag))
    {
      if (in->len > s->bcap)
        {
          uint8_t *nb = realloc (s->bytes, in->len);
          if (!nb)
            return -ENOMEM;
          s->bytes = nb;
          s->bcap = in->len;
        }
      if (in->len)
        memcpy (s->bytes, in->payload, in->len);
      s->blen = in->len;
    }
  else
    s->v = in->value;
  return 0;
}

int
ossd_agg_table_add (struct ossd_agg_table *t, const struct ossd_agg_input *keys,
                    const struct ossd_agg_input *inputs)
{
  if (encode_key (t, keys) < 0)
    return -ENOMEM;
  struct group *g;
  int rc = find_or_add (t, &g);
  if (rc != 0)
    return rc;
  static const struct ossd_agg_input none = { .isnull = true };
  for (uint32_t a = 0; a < t->naggs; a++)
    {
      const struct ossd_agg_input *in =
        t->aggs[a].kind == OSSD_AGG_COUNT_STAR ? &none : &inputs[a];
      rc = agg_step (&t->aggs[a], t->agg_tags[a], in, &g->st[a], &t->tmp[a], &t->replace[a]);
      if (rc)
        return rc;
    }
  for (uint32_t a = 0; a < t->naggs; a++)
    {
      uint8_t *bytes = g->st[a].bytes;
      uint32_t blen = g->st[a].blen, bcap = g->st[a].bcap;
      struct ossd_numeric num = g->st[a].num;
      uint64_t v = g->st[a].v;
      bool has = g->st[a].has;
      g->st[a] = t->tmp[a];
      g->st[a].bytes = bytes;
      g->st[a].blen = blen;
      g->st[a].bcap = bcap;
      g->st[a].num = num;
      g->st[a].v = v;
      g->st[a].has = has;
      if (t->replace[a] && minmax_commit (t->agg_tags[a], &inputs[a], &g->st[a]) < 0)
        return -ENOMEM;
    }
  return 0;
}

/* The Datum PostgreSQL holds for a fixed-size value in ABI representation. */
static uint64_t
abi_to_datum (uint8_t tag, uint64_t v)
{
  if (tag == OSSD_T_FLOAT4)
    {
      float f = (float) bits_to_f8 (v);
      int32_t bits;
      memcpy (&bits, &f, 4);
      return (uint64_t) (int64_t) bits;
    }
  return v;
}

static int
emit_group (const struct ossd_agg_table *t, const struct group *g, struct ossd_buf *b)
{
  size_t start = b->len, nb = ossd_align8 ((t->nkeys + 7) / 8);
  int rc = ossd_buf_reserve (b, OSSD_GROUP_HDR + nb);
  if (rc < 0)
    return rc;
  uint8_t *r = b->data + start;
  uint16_t nk = (uint16_t) t->nkeys, na = (uint16_t) t->naggs;
  memcpy (r + 4, &nk, 2);
  memcpy (r + 6, &na, 2);
  memset (r + OSSD_GROUP_HDR, 0, nb);
  b->len += OSSD_GROUP_HDR + nb;
  const uint8_t *k = g->key;
  for (uint32_t i = 0; i < t->nkeys; i++)
    {
      struct ossd_outval ov = { .isnull = k[0] != 0, .byval = t->key_byval[i] };
      k++;
      if (ov.isnull)
        {
          b->data[start + OSSD_GROUP_HDR + (i >> 3)] |= (uint8_t) (1u << (i & 7));
          continue;
        }
      if (ov.byval)
        {
          memcpy (&ov.datum, k, 8);
          ov.datum = abi_to_datum (t->key_tags[i], ov.datum);
          k += 8;
        }
      else
        {
          memcpy (&ov.len, k, 4);
          if (t->key_varlena[i])
            ov.payload = k + 4;
          else
            ov.ptr = k + 4;
          k += 4 + ov.len;
        }
      if ((rc = ossd_value_append (b, &ov)) < 0)
        return rc;
    }
  for (uint32_t a = 0; a < t->naggs; a++)
    {
      const struct agg_state *s = &g->st[a];
      uint8_t tag = t->agg_tags[a], kind = t->aggs[a].kind;
      if ((rc = ossd_buf_reserve (b, OSSD_AGG_STATE_SIZE)) < 0)
        return rc;
      uint8_t *p = b->data + b->len;
      memset (p, 0, OSSD_AGG_STATE_SIZE);
      uint8_t flags = 0;
      uint64_t lo = 0;
      int64_t hi = 0;
      int32_t scale = 0;
      if (kind == OSSD_AGG_SUM || kind == OSSD_AGG_AVG)
        {
          if (s->count)
            flags |= OSSD_AGGF_HAS_VALUE;
          if (tag_is_float (tag))
            {
              flags |= OSSD_AGGF_FLOAT;
              memcpy (&lo, &s->fsum, 8);
            }
          else
            {
              lo = (uint64_t) (u128) s->isum;
              hi = (int64_t) (s->isum >> 64);
              scale = tag == OSSD_T_NUMERIC ? s->scale : 0;
            }
        }
      else if ((kind == OSSD_AGG_MIN || kind == OSSD_AGG_MAX) && s->has)
        flags |= OSSD_AGGF_HAS_VALUE;
      p[0] = kind;
      p[1] = flags;
      memcpy (p + 4, &scale, 4);
      memcpy (p + 8, &s->count, 8);
      memcpy (p + 16, &lo, 8);
      memcpy (p + 24, &hi, 8);
      b->len += OSSD_AGG_STATE_SIZE;
      if ((kind == OSSD_AGG_MIN || kind == OSSD_AGG_MAX) && s->has)
        {
          struct ossd_outval ov = { 0 };
          uint8_t nbuf[OSSD_NUMERIC_PG_MAXLEN];
          if (tag == OSSD_T_NUMERIC)
            {
              size_t n;
              int rc2 = ossd_numeric_to_pg (&s->num, nbuf, sizeof nbuf, &n);
              if (rc2 < 0)
                return rc2;
              ov.ptr = nbuf;
              ov.len = (uint32_t) n;
            }
          else if (tag_is_bytes (tag))
            {
              if (tag == OSSD_T_NAME)
                ov.ptr = s->bytes;
              else
                ov.payload = s->bytes ? s->bytes : nbuf;
              ov.len = s->blen;
            }
          else
            {
              ov.byval = true;
              ov.datum = abi_to_datum (tag, s->v);
            }
          if ((rc = ossd_value_append (b, &ov)) < 0)
            return rc;
        }
    }
  uint32_t rec_len = (uint32_t) (b->len - start);
  memcpy (b->data + start, &rec_len, 4);
  return 0;
}

long
ossd_agg_table_emit (const struct ossd_agg_table *t, uint32_t from, struct ossd_buf *b,
                     size_t budget)
{
  uint32_t g = from;
  while (g < t->ngroups && (g == from || b->len < budget))
    {
      int rc = emit_group (t, &t->groups[g], b);
      if (rc < 0)
        return rc;
      g++;
    }
  return g;
}
