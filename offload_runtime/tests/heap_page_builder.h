/* heap_page_builder.h - builds PostgreSQL 15 heap pages and tuples by hand
 * for the scan engine's unit tests (test_heap_*.c, test_scan_*.c).  Static
 * functions only; included by each test.
 */
#ifndef HEAP_PAGE_BUILDER_H
#define HEAP_PAGE_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_scan.h"

struct tb
{
  uint8_t d[OSSD_PG_BLCKSZ];
  uint32_t len;
};

static inline void
tb_put16 (uint8_t *p, uint16_t v) { memcpy (p, &v, 2); }
static inline void
tb_put32 (uint8_t *p, uint32_t v) { memcpy (p, &v, 4); }

/* Start a tuple of natts attributes; nulls[i] marks attribute i NULL (the
 * caller then does not add it); nulls may be NULL. */
static inline void
tb_init (struct tb *t, uint16_t natts, uint16_t infomask, uint32_t xmin, const bool *nulls)
{
  memset (t, 0, sizeof *t);
  bool any = false;
  for (unsigned i = 0; nulls && i < natts; i++)
    any |= nulls[i];
  tb_put32 (t->d + OSSD_PG_HT_XMIN, xmin);
  tb_put16 (t->d + OSSD_PG_HT_INFOMASK2, natts);
  if (any)
    {
      infomask |= OSSD_PG_HEAP_HASNULL;
      for (unsigned i = 0; i < natts; i++)
        if (!nulls[i])
          t->d[OSSD_PG_HT_BITS + i / 8] |= (uint8_t) (1u << (i % 8));
    }
  tb_put16 (t->d + OSSD_PG_HT_INFOMASK, infomask);
  uint32_t hoff = OSSD_PG_HT_BITS + (any ? (natts + 7) / 8 : 0);
  hoff = (hoff + 7) & ~7u;
  t->d[OSSD_PG_HT_HOFF] = (uint8_t) hoff;
  t->len = hoff;
}

static inline void
tb_align (struct tb *t, unsigned a)
{
  while (t->len % a)
    t->d[t->len++] = 0;
}

static inline void
tb_fixed (struct tb *t, const void *v, unsigned len, unsigned align)
{
  tb_align (t, align);
  memcpy (t->d + t->len, v, len);
  t->len += len;
}

static inline void tb_i16 (struct tb *t, int16_t v) { tb_fixed (t, &v, 2, 2); }
static inline void tb_i32 (struct tb *t, int32_t v) { tb_fixed (t, &v, 4, 4); }
static inline void tb_i64 (struct tb *t, int64_t v) { tb_fixed (t, &v, 8, 8); }
static inline void tb_f64 (struct tb *t, double v) { tb_fixed (t, &v, 8, 8); }
static inline void tb_bool (struct tb *t, bool v) { uint8_t b = v; tb_fixed (t, &b, 1, 1); }

/* A varlena as PostgreSQL stores it: 1-byte header (unaligned) when the
 * value fits, else 4-byte header at `align`. */
static inline void
tb_varlena (struct tb *t, const void *data, uint32_t len, unsigned align)
{
  if (len + 1 <= 127)
    {
      t->d[t->len++] = (uint8_t) (((len + 1) << 1) | 1);
      memcpy (t->d + t->len, data, len);
      t->len += len;
      return;
    }
  tb_align (t, align);
  tb_put32 (t->d + t->len, (len + 4) << 2);
  memcpy (t->d + t->len + 4, data, len);
  t->len += len + 4;
}

static inline void tb_text (struct tb *t, const char *s) { tb_varlena (t, s, strlen (s), 4); }

/* A 4-byte-header varlena flagged compressed (payload is not real pglz). */
static inline void
tb_compressed (struct tb *t, uint32_t len)
{
  tb_align (t, 4);
  tb_put32 (t->d + t->len, ((len + 8) << 2) | 0x02);
  memset (t->d + t->len + 4, 0x41, len + 4);
  t->len += len + 8;
}

/* An on-disk TOAST pointer (1-byte external header, vartag 18). */
static inline void
tb_external (struct tb *t)
{
  t->d[t->len++] = 0x01;
  t->d[t->len++] = OSSD_PG_VARTAG_ONDISK;
  memset (t->d + t->len, 0x07, 16);
  t->len += 16;
}

struct pb
{
  uint8_t page[OSSD_PG_BLCKSZ];
  uint16_t lower, upper;
};

static inline void
pb_sync (struct pb *p)
{
  tb_put16 (p->page + 12, p->lower);
  tb_put16 (p->page + 14, p->upper);
}

static inline void
pb_init (struct pb *p)
{
  memset (p, 0, sizeof *p);
  p->lower = OSSD_PG_PAGE_HEADER_SIZE;
  p->upper = OSSD_PG_BLCKSZ;
  tb_put16 (p->page + 16, OSSD_PG_BLCKSZ);
  tb_put16 (p->page + 18, OSSD_PG_BLCKSZ | OSSD_PG_PAGE_LAYOUT_VERSION);
  pb_sync (p);
}

static inline unsigned
pb_lp (struct pb *p, unsigned flags, unsigned off, unsigned len)
{
  uint32_t w = (off & 0x7fff) | ((flags & 3u) << 15) | ((uint32_t) len << 17);
  tb_put32 (p->page + p->lower, w);
  p->lower += 4;
  pb_sync (p);
  return (p->lower - OSSD_PG_PAGE_HEADER_SIZE) / 4;
}

/* Add a tuple; returns its offnum. */
static inline unsigned
pb_add (struct pb *p, const struct tb *t)
{
  p->upper = (uint16_t) ((p->upper - t->len) & ~7u);
  memcpy (p->page + p->upper, t->d, t->len);
  return pb_lp (p, OSSD_PG_LP_NORMAL, p->upper, t->len);
}

#endif
