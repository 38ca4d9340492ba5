/* fuzz_heap_page.c - libFuzzer harness for the heap-page scan engine:
 * page check, line pointers, the MVCC rule, deform (plain and planned)
 * and the whole engine (ossd_scan_run: projection rows, or aggregates
 * with GROUP BY, all tuples or those a list names) on arbitrary 8 KiB
 * pages, under ASan + UBSan.
 *
 * Input: byte 0 selects the tuple descriptor (3 kinds), rows or aggregate
 * mode, and raw or template mode; bytes 1..4 are the snapshot's xmin.
 *   raw mode: the rest is the page (zero-padded / cut to 8192 bytes);
 *   template mode: byte 5 is a row count, the page is built by hand for
 *     the descriptor (heap_page_builder.h), then the rest of the input is
 *     applied as 3-byte XOR patches (offset lo, offset hi, value), so the
 *     fuzzer starts from valid pages without a seed corpus.
 * Checks beyond memory safety: the page is copied to an exact 8 KiB heap
 * block (ASan sees any overrun); plain and planned deform agree on every
 * tuple both accept; where the fused deform + bind program (tuple_bind.c)
 * takes a tuple, its kernel columns and datums equal the generic path's;
 * every row and group the engine emits decodes with the public readers
 * (ossd_row_read / ossd_group_read).
 *   build: clang-14 -fsanitize=fuzzer,address,undefined (component.mk) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap_page_builder.h"
#include "ossd_rt.h"

/* ---- three tuple descriptors */
static const struct ossd_scan_attr attrs0[] = {
  { 4, 4, true, OSSD_PG_INT4OID }, { 4, 4, true, OSSD_PG_INT4OID },
  { -1, 4, false, OSSD_PG_TEXTOID }, { -1, 4, false, OSSD_PG_NUMERICOID },
  { 8, 8, true, OSSD_PG_FLOAT8OID },
};
static const struct ossd_scan_attr attrs1[] = {
  { 2, 2, true, OSSD_PG_INT2OID }, { 8, 8, true, OSSD_PG_INT8OID },
  { 1, 1, true, OSSD_PG_BOOLOID }, { 4, 4, true, OSSD_PG_DATEOID },
  { -1, 4, false, OSSD_PG_BPCHAROID, 14 }, { 4, 4, true, OSSD_PG_FLOAT4OID },
  { 8, 8, true, OSSD_PG_TIMESTAMPOID }, { 64, 1, false, OSSD_PG_NAMEOID },
  { -1, 4, false, OSSD_PG_VARCHAROID, 24 },
};
static const int32_t miss_i4 = 7;
static const uint8_t miss_text[] = { 0x0d, 'h', 'e', 'l', 'l', 'o' };
static const struct ossd_scan_attr attrs2[] = {
  { 4, 4, true, OSSD_PG_INT4OID },
  { 8, 8, true, 0, -1, .dropped = true },
  { 4, 4, true, OSSD_PG_INT4OID, -1, .has_missing = true, .missing = &miss_i4, .missing_len = 4 },
  { -1, 4, false, OSSD_PG_TEXTOID, -1, .has_missing = true, .missing_null = true },
  { -1, 4, false, OSSD_PG_TEXTOID, -1, .has_missing = true, .missing = miss_text,
    .missing_len = sizeof miss_text },
};
struct desc
{
  const struct ossd_scan_attr *attrs;
  uint32_t natts;
  uint16_t proj[9];
  uint32_t nproj;
  struct ossd_scan_agg aggs[8];
  uint32_t naggs;
  uint32_t group_by;
};
static const struct desc descs[3] = {
  { attrs0, 5, { 1, 2, 3, 4, 5 }, 5,
    { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_COUNT, 2 }, { OSSD_AGG_SUM, 0 }, { OSSD_AGG_SUM, 3 },
      { OSSD_AGG_MIN, 2 }, { OSSD_AGG_MAX, 4 }, { OSSD_AGG_AVG, 0 }, { OSSD_AGG_MIN, 3 } }, 8, 1 },
  { attrs1, 9, { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, 9,
    { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 }, { OSSD_AGG_SUM, 1 }, { OSSD_AGG_MIN, 3 },
      { OSSD_AGG_MAX, 6 }, { OSSD_AGG_AVG, 1 }, { OSSD_AGG_COUNT, 4 }, { OSSD_AGG_MAX, 1 } }, 8, 2 },
  { attrs2, 5, { 1, 3, 4, 5 }, 4,
    { { OSSD_AGG_COUNT_STAR, 0 }, { OSSD_AGG_SUM, 0 }, { OSSD_AGG_SUM, 1 }, { OSSD_AGG_COUNT, 2 },
      { OSSD_AGG_MIN, 0 }, { OSSD_AGG_MAX, 1 } }, 6, 3 },
};

/* ---- template pages */
static void
add_row (struct pb *p, unsigned kind, unsigned i)
{
  struct tb t;
  bool nulls[9] = { 0 };
  uint16_t infomask = (i % 3) ? OSSD_PG_HEAP_XMIN_FROZEN : OSSD_PG_HEAP_XMIN_COMMITTED;
  uint32_t xmin = 90 + i * 7;
  char s[40];
  if (kind == 0)
    {
      nulls[2] = (i % 5 == 0);
      tb_init (&t, 5, infomask, xmin, nulls);
      tb_i32 (&t, (int32_t) i);
      tb_i32 (&t, (int32_t) (i % 4));
      if (!nulls[2])
        {
          if (i % 11 == 3)
            tb_compressed (&t, 20);
          else if (i % 13 == 4)
            tb_external (&t);
          else
            {
              snprintf (s, sizeof s, "name-%u", i * 31);
              tb_text (&t, s);
            }
        }
      struct ossd_numeric n = { .lo = (uint64_t) i * 12345, .hi = 0, .scale = (int32_t) (i % 4) };
      uint8_t img[OSSD_NUMERIC_PG_MAXLEN];
      size_t len;
      if (ossd_numeric_to_pg (&n, img, sizeof img, &len) != 0)
        abort ();
      tb_fixed (&t, img, (unsigned) len, 4);
      tb_f64 (&t, i * 0.25);
    }
  else if (kind == 1)
    {
      nulls[4] = (i % 6 == 1);
      nulls[8] = (i % 4 == 2);
      tb_init (&t, 9, infomask, xmin, nulls);
      tb_i16 (&t, (int16_t) (i - 20));
      tb_i64 (&t, (int64_t) i * 1000000007LL);
      tb_bool (&t, i & 1);
      tb_i32 (&t, (int32_t) (8000 + i));
      if (!nulls[4])
        tb_text (&t, "abcdefghij    ");
      float f = (float) i / 3.0f;
      tb_fixed (&t, &f, 4, 4);
      tb_i64 (&t, (int64_t) i * 86400000000LL);
      char name[64] = { 0 };
      snprintf (name, sizeof name, "rel_%u", i);
      tb_fixed (&t, name, 64, 1);
      if (!nulls[8])
        {
          snprintf (s, sizeof s, "v%u", i * i);
          tb_text (&t, s);
        }
    }
  else
    {
      /* fewer attributes than the descriptor on some rows (missing values) */
      uint16_t natts = (uint16_t) (2 + i % 4);
      nulls[1] = true;
      tb_init (&t, natts, infomask, xmin, nulls);
      tb_i32 (&t, (int32_t) i);
      if (natts > 2)
        tb_i32 (&t, (int32_t) (i % 3));
      if (natts > 3)
        tb_text (&t, "x");
      if (natts > 4)
        tb_text (&t, "yz");
    }
  pb_add (p, &t);
}

static void
template_page (uint8_t *page, unsigned kind, unsigned nrows)
{
  static struct pb p;
  pb_init (&p);
  for (unsigned i = 0; i < nrows; i++)
    {
      if (p.upper - p.lower < 200)
        break;
      add_row (&p, kind, i);
      if (i % 9 == 8)           /* a dead and a redirect line pointer now and then */
        pb_lp (&p, OSSD_PG_LP_DEAD, 0, 0);
      if (i % 17 == 16)
        pb_lp (&p, OSSD_PG_LP_REDIRECT, 1, 0);
    }
  memcpy (page, p.page, OSSD_PG_BLCKSZ);
}

/* ---- engine callbacks */
struct fz
{
  const uint8_t *page;
  const struct desc *d;
  bool agg;
  bool out_byval[9];
};

static int
read_block (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  struct fz *f = arg;
  if (block != 0)
    return -ENOENT;
  memcpy (page, f->page, OSSD_PG_BLCKSZ);
  return 0;
}

static int
sink (void *arg, const struct ossd_scan_chunk *ch)
{
  struct fz *f = arg;
  struct ossd_value_view vals[16];
  size_t pos = 0;
  struct ossd_row_view rv;
  int r;
  while ((r = ossd_row_read (ch->rows, ch->rows_len, &pos, (uint16_t) f->d->nproj,
                             f->out_byval, &rv, vals)) == 1)
    for (uint32_t i = 0; i < f->d->nproj; i++)
      if (!vals[i].isnull && vals[i].data)   /* touch every byte */
        {
          volatile uint8_t x = 0;
          for (uint32_t k = 0; k < vals[i].len; k++)
            x ^= vals[i].data[k];
        }
  if (r < 0)
    {
      fprintf (stderr, "engine emitted a row ossd_row_read cannot decode\n");
      abort ();
    }
  if (f->agg)
    {
      bool key_byval = f->out_byval[f->d->group_by];
      bool agg_byval[8];
      for (uint32_t a = 0; a < f->d->naggs; a++)
        agg_byval[a] = f->out_byval[f->d->aggs[a].input];
      struct ossd_value_view key;
      struct ossd_agg_state_view st[8];
      pos = 0;
      while ((r = ossd_group_read (ch->groups, ch->groups_len, &pos, 1, &key_byval, &key,
                                   (uint16_t) f->d->naggs, agg_byval, st)) == 1)
        ;
      if (r < 0)
        {
          fprintf (stderr, "engine emitted a group ossd_group_read cannot decode\n");
          abort ();
        }
    }
  return 0;
}

/* Plain vs planned deform on every tuple of a checked page. */
static void
deform_all (const uint8_t *page, const struct desc *d)
{
  bool want[9];
  for (uint32_t i = 0; i < d->natts; i++)
    want[i] = !d->attrs[i].dropped;
  struct ossd_deform_plan plan;
  if (ossd_deform_plan_init (&plan, d->attrs, d->natts, d->natts, want) != 0)
    abort ();
  unsigned n = ossd_page_max_offnum (page);
  for (unsigned off = 1; off <= n; off++)
    {
      const uint8_t *tup;
      uint32_t tuplen;
      if (ossd_page_item (page, off, &tup, &tuplen) != OSSD_PG_LP_NORMAL)
        continue;
      (void) ossd_tuple_visibility (tup, 1000);
      struct ossd_datum a[9], b[9];
      char err[256];
      int ra = ossd_deform (tup, tuplen, d->attrs, d->natts, d->natts, want, a, err, sizeof err);
      int rb = ossd_deform_planned (&plan, tup, tuplen, b, err, sizeof err);
      if (ra != rb)
        {
          fprintf (stderr, "lp %u: ossd_deform %d, ossd_deform_planned %d\n", off, ra, rb);
          abort ();
        }
      if (ra != 0)
        continue;
      for (uint32_t i = 0; i < d->natts; i++)
        {
          if (!want[i])
            continue;
          if (a[i].isnull != b[i].isnull
              || (!a[i].isnull
                  && (a[i].flags != b[i].flags || (d->attrs[i].byval && a[i].datum != b[i].datum)
                      || (!d->attrs[i].byval && (a[i].ptr != b[i].ptr || a[i].len != b[i].len)))))
            {
              fprintf (stderr, "lp %u attnum %u: ossd_deform and ossd_deform_planned differ\n",
                       off, i + 1);
              abort ();
            }
          if (!a[i].isnull && a[i].ptr)
            {
              volatile uint8_t x = 0;
              for (uint32_t k = 0; k < a[i].len; k++)
                x ^= a[i].ptr[k];
            }
        }
    }
  ossd_deform_plan_free (&plan);
}

/* Fused vs generic bind of every attribute (lazy and eager numerics) on
 * every tuple of a checked page: where the fused program takes a tuple,
 * it writes what ossd_deform_planned + ossd_bind_datum write. */
static void
bind_all (const uint8_t *page, const struct desc *d, bool lazy)
{
  bool want[9], put[9];
  uint16_t bind[9];
  uint8_t tag[9];
  uint32_t nbind = 0;
  for (uint32_t i = 0; i < d->natts; i++)
    {
      want[i] = !d->attrs[i].dropped;
      put[i] = want[i] && (i & 1);
      if (want[i])
        {
          tag[nbind] = ossd_type_tag_of (d->attrs[i].type_oid);
          bind[nbind++] = (uint16_t) (i + 1);
        }
    }
  struct ossd_deform_plan plan;
  struct ossd_bind_prog prog;
  if (ossd_deform_plan_init (&plan, d->attrs, d->natts, d->natts, want) != 0
      || ossd_bind_prog_init (&prog, d->attrs, d->natts, d->natts, bind, nbind, tag, lazy,
                              put) != 0)
    abort ();
  unsigned n = ossd_page_max_offnum (page);
  for (unsigned off = 1; off <= n; off++)
    {
      const uint8_t *tup;
      uint32_t tuplen;
      if (ossd_page_item (page, off, &tup, &tuplen) != OSSD_PG_LP_NORMAL)
        continue;
      struct ossd_datum a[9], b[9];
      struct ossd_col ca[9], cb[9];
      struct ossd_numeric na[9] = { 0 }, nb[9] = { 0 };
      char err[256];
      if (ossd_bind_fused (&prog, tup, tuplen, cb, nb, b) != 0)
        continue;
      if (ossd_deform_planned (&plan, tup, tuplen, a, err, sizeof err) != 0)
        {
          fprintf (stderr, "lp %u: fused bind took a tuple the generic path rejects: %s\n",
                   off, err);
          abort ();
        }
      for (uint32_t k = 0; k < nbind; k++)
        {
          uint32_t i = bind[k] - 1;
          if (ossd_bind_datum (&ca[k], tag[k], &a[i], &d->attrs[i], &na[k], lazy) != 0
              || ca[k].value != cb[k].value || ca[k].len != cb[k].len
              || ca[k].isnull != cb[k].isnull || ca[k].type != cb[k].type
              || (tag[k] == OSSD_T_NUMERIC
                  ? memcmp (&na[k], &nb[k], sizeof na[k]) != 0
                  : ca[k].data != cb[k].data))
            {
              fprintf (stderr, "lp %u attnum %u: fused and generic bind differ\n", off, i + 1);
              abort ();
            }
          if (tag[k] != OSSD_T_NUMERIC && cb[k].data)
            {
              volatile uint8_t x = 0;
              for (uint32_t j = 0; j < cb[k].len; j++)
                x ^= ((const uint8_t *) (uintptr_t) cb[k].data)[j];
            }
        }
      for (uint32_t i = 0; i < d->natts; i++)
        if (put[i]
            && (a[i].isnull != b[i].isnull || a[i].flags != b[i].flags
                || (d->attrs[i].byval ? a[i].datum != b[i].datum
                    : (a[i].ptr != b[i].ptr || a[i].len != b[i].len))))
          {
            fprintf (stderr, "lp %u attnum %u: fused and generic datums differ\n", off, i + 1);
            abort ();
          }
    }
  ossd_bind_prog_free (&prog);
  ossd_deform_plan_free (&plan);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 5)
    return 0;
  uint8_t sel = data[0];
  uint32_t xmin;
  memcpy (&xmin, data + 1, 4);
  if (xmin < 3)                 /* a snapshot's xmin is a normal xid */
    xmin += 3;
  data += 5;
  size -= 5;
  unsigned kind = (sel & 3) % 3;
  bool agg = sel & 4;
  bool templ = sel & 8;

  uint8_t *page = malloc (OSSD_PG_BLCKSZ);   /* exact size: ASan sees overruns */
  if (templ)
    {
      unsigned nrows = size ? data[0] : 40;
      template_page (page, kind, nrows % 120);
      for (size_t i = 1; i + 3 <= size; i += 3)
        page[(data[i] | (data[i + 1] << 8)) % OSSD_PG_BLCKSZ] ^= data[i + 2];
    }
  else
    {
      memset (page, 0, OSSD_PG_BLCKSZ);
      memcpy (page, data, size < OSSD_PG_BLCKSZ ? size : OSSD_PG_BLCKSZ);
    }

  const struct desc *d = &descs[kind];
  uint32_t reason = 0;
  char err[256];
  if (ossd_page_check (page, 0, &reason, err, sizeof err) == 0)
    {
      deform_all (page, d);
      bind_all (page, d, sel & 0x40);
    }

  struct fz f = { .page = page, .d = d, .agg = agg };
  for (uint32_t i = 0; i < d->nproj; i++)
    f.out_byval[i] = d->attrs[d->proj[i] - 1].byval;
  struct ossd_block_range br = { 0, 1 };
  struct ossd_scan_target tg = { 0, 1, &br };
  /* bit 7: the tuples an index named (tuple_offsets: redirects followed,
   * lists that do not fit the page), ascending offsets from the input's
   * last bytes */
  uint8_t tids[2 + 2 * 8];
  if (sel & 0x80)
    {
      unsigned n = 0, off = 0;
      for (size_t i = size > 8 ? size - 8 : 0; i < size && n < 8; i++)
        {
          off += 1 + data[i] % 40;
          if (off > OSSD_PG_MAX_HEAP_TUPLES)
            break;
          tb_put16 (tids + 2 + 2 * n++, (uint16_t) off);
        }
      tb_put16 (tids, (uint16_t) n);
      tg.tuple_offsets = tids;
      tg.tuple_offsets_len = 2 + 2 * n;
    }
  struct ossd_scan_request q = { 0 };
  q.ntargets = 1;
  q.targets = &tg;
  q.natts = d->natts;
  q.attrs = d->attrs;
  q.snapshot_xmin = xmin;
  q.nproj = d->nproj;
  q.proj = d->proj;
  uint32_t gb = d->group_by;
  if (agg)
    {
      q.naggs = d->naggs;
      q.aggs = d->aggs;
      q.ngroup_by = 1;
      q.group_by = &gb;
      q.max_groups = 8;         /* small: the group-full path too */
    }
  else
    q.limit = sel & 0x10 ? 3 : 0;
  q.chunk_bytes = sel & 0x20 ? 256 : 0;
  q.read_block = read_block;
  q.read_arg = &f;
  q.sink = sink;
  q.sink_arg = &f;
  if (ossd_scan_validate (&q, err, sizeof err) != 0)
    {
      fprintf (stderr, "harness request invalid: %s\n", err);
      abort ();
    }
  struct ossd_scan_counters tot;
  (void) ossd_scan_run (&q, &tot, err, sizeof err);
  free (page);
  return 0;
}
