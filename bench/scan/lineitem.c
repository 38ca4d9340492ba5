/* lineitem.c - builds lineitem-like heap pages with the scan engine's test
 * page builder (offload_runtime/tests/heap_page_builder.h): every tuple
 * committed before the snapshot, no NULLs (as in TPC-H), numerics in
 * PostgreSQL's on-disk format with 1-byte varlena headers, value
 * distributions of TPC-H dbgen (shipdate 1992-01-02 .. 1998-12-01,
 * discount 0.00 .. 0.10, quantity 1 .. 50), so Q6 selects about 2%. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lineitem.h"
#include "heap_page_builder.h"
#include "ossd_rt.h"

static uint64_t
rnd (uint64_t *s)
{
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1Dull;
}

static void
set_attrs (struct ossd_scan_attr *a)
{
  static const struct { int16_t len; uint32_t oid; int32_t typmod; } cols[LI_NATTS] = {
    { 4, OSSD_PG_INT4OID, -1 }, { 4, OSSD_PG_INT4OID, -1 }, { 4, OSSD_PG_INT4OID, -1 },
    { 4, OSSD_PG_INT4OID, -1 },
    { -1, OSSD_PG_NUMERICOID, -1 }, { -1, OSSD_PG_NUMERICOID, -1 },
    { -1, OSSD_PG_NUMERICOID, -1 }, { -1, OSSD_PG_NUMERICOID, -1 },
    { -1, OSSD_PG_BPCHAROID, 5 }, { -1, OSSD_PG_BPCHAROID, 5 },
    { 4, OSSD_PG_DATEOID, -1 }, { 4, OSSD_PG_DATEOID, -1 }, { 4, OSSD_PG_DATEOID, -1 },
    { -1, OSSD_PG_BPCHAROID, 29 }, { -1, OSSD_PG_BPCHAROID, 14 },
    { -1, OSSD_PG_VARCHAROID, 48 },
  };
  memset (a, 0, LI_NATTS * sizeof *a);
  for (int i = 0; i < LI_NATTS; i++)
    {
      a[i].len = cols[i].len;
      a[i].align = 4;
      a[i].byval = cols[i].len > 0;
      a[i].type_oid = cols[i].oid;
      a[i].typmod = cols[i].typmod;
    }
}

/* numeric (scale 2) as stored: 1-byte varlena header + on-disk payload */
static int
put_numeric (struct tb *t, int64_t cents, struct ossd_numeric *n)
{
  uint8_t buf[OSSD_NUMERIC_PG_MAXLEN];
  size_t len;
  *n = (struct ossd_numeric) { (uint64_t) cents, cents < 0 ? -1 : 0, 2, 0 };
  if (ossd_numeric_to_pg (n, buf, sizeof buf, &len) < 0)
    return -EINVAL;
  tb_varlena (t, buf + 4, (uint32_t) len - 4, 4);
  return 0;
}

static void
put_bpchar (struct tb *t, const char *s, unsigned width)
{
  char b[32];
  memset (b, ' ', width);
  memcpy (b, s, strlen (s) < width ? strlen (s) : width);
  tb_varlena (t, b, width, 4);
}

int
lineitem_build (struct lineitem *li, uint64_t nrows, uint64_t seed)
{
  static const char *instr[] = { "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN" };
  static const char *modes[] = { "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB" };
  static const char words[] = "carefully final deposits detect slyly agai";
  memset (li, 0, sizeof *li);
  set_attrs (li->attrs);
  uint32_t cap = (uint32_t) (nrows / 40 + 2);
  li->pages = malloc ((size_t) cap * OSSD_PG_BLCKSZ);
  li->rows = malloc (nrows * sizeof *li->rows);
  struct tb *t = malloc (sizeof *t);
  struct pb *p = malloc (sizeof *p);
  if (!li->pages || !li->rows || !t || !p)
    {
      free (t);
      free (p);
      lineitem_free (li);
      return -ENOMEM;
    }
  uint64_t s = seed | 1;
  pb_init (p);
  for (uint64_t i = 0; i < nrows; i++)
    {
      struct li_q6row *q = &li->rows[i];
      int64_t qty = 1 + (int64_t) (rnd (&s) % 50);
      int64_t price = qty * (90000 + (int64_t) (rnd (&s) % 110001)) / 100;   /* cents */
      int64_t disc = (int64_t) (rnd (&s) % 11), tax = (int64_t) (rnd (&s) % 9);
      int32_t ship = -2921 + (int32_t) (rnd (&s) % 2525);
      tb_init (t, LI_NATTS, OSSD_PG_HEAP_XMIN_COMMITTED, 100, NULL);
      tb_i32 (t, (int32_t) (i / 4 + 1));
      tb_i32 (t, (int32_t) (rnd (&s) % 200000));
      tb_i32 (t, (int32_t) (rnd (&s) % 10000));
      tb_i32 (t, (int32_t) (i % 7 + 1));
      struct ossd_numeric taxn;
      if (put_numeric (t, qty * 100, &q->quantity) || put_numeric (t, price, &q->price)
          || put_numeric (t, disc, &q->discount) || put_numeric (t, tax, &taxn))
        {
          free (t);
          free (p);
          lineitem_free (li);
          return -EINVAL;
        }
      put_bpchar (t, (const char *[]) { "R", "A", "N" }[rnd (&s) % 3], 1);
      put_bpchar (t, (const char *[]) { "O", "F" }[rnd (&s) % 2], 1);
      tb_i32 (t, ship);
      tb_i32 (t, ship + 30 - (int32_t) (rnd (&s) % 60));
      tb_i32 (t, ship + 1 + (int32_t) (rnd (&s) % 30));
      put_bpchar (t, instr[rnd (&s) % 4], 25);
      put_bpchar (t, modes[rnd (&s) % 7], 10);
      uint32_t clen = 10 + (uint32_t) (rnd (&s) % 34);
      tb_varlena (t, words, clen, 4);
      q->shipdate = ship;
      if (ship >= Q6_DATE_LO && ship < Q6_DATE_HI && disc >= 5 && disc <= 7 && qty < 24)
        {
          li->q6_matches++;
          li->q6_revenue += price * disc;
        }
      unsigned need = ((t->len + 7) & ~7u) + 4;
      if (p->upper < p->lower + need)
        {
          memcpy (li->pages + (size_t) li->npages++ * OSSD_PG_BLCKSZ, p->page, OSSD_PG_BLCKSZ);
          pb_init (p);
        }
      pb_add (p, t);
    }
  memcpy (li->pages + (size_t) li->npages++ * OSSD_PG_BLCKSZ, p->page, OSSD_PG_BLCKSZ);
  li->nrows = nrows;
  free (t);
  free (p);
  return 0;
}

void
lineitem_free (struct lineitem *li)
{
  free (li->pages);
  free (li->rows);
  li->pages = NULL;
  li->rows = NULL;
}
