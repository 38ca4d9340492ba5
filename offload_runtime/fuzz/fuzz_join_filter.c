/* fuzz_join_filter.c - libFuzzer harness for join filters as a drive
 * receives them (join_filter.c): ossd_join_filter_prepare on arbitrary
 * field values and key buffers, then probes of what it accepted, and a
 * whole scan (ossd_scan_run) of a built page through the accepted filter.
 *
 * Input: byte 0 = key kind, byte 1 = kind, byte 2 = hashes, bytes 3..6 =
 * key count, byte 7 = attnum (1..4); the rest is the buffer (the key
 * records for an exact set, the bits for a Bloom filter), copied to an
 * exact heap block so ASan sees any read past it.  Checks beyond memory
 * safety: every key record of an accepted exact set is found by the probe
 * (no false negatives), and a scan with the filter drops exactly the rows
 * the probe rejects.
 *   build: clang-14 -fsanitize=fuzzer,address,undefined (component.mk) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap_page_builder.h"
#include "ossd_rt.h"

static const struct ossd_scan_attr attrs[] = {
  { 4, 4, true, OSSD_PG_INT4OID }, { -1, 4, false, OSSD_PG_TEXTOID },
  { -1, 4, false, OSSD_PG_BPCHAROID }, { 8, 8, true, OSSD_PG_INT8OID },
};
static uint8_t page[OSSD_PG_BLCKSZ];
static int nrows;

static int
read_page (void *arg, uint32_t target, uint32_t block, void *out, char *err, size_t errlen)
{
  memcpy (out, page, OSSD_PG_BLCKSZ);
  return 0;
}

struct sink { uint64_t rows, dropped; };
static int
sink (void *arg, const struct ossd_scan_chunk *c)
{
  struct sink *s = arg;
  s->rows += c->row_count;
  if (c->last)
    s->dropped = c->counters.join_filter_dropped;
  return 0;
}

static void
build_page (void)
{
  static const char *strs[] = { "AIR", "", "MAIL  ", "a", "SHIP" };
  struct pb p;
  pb_init (&p);
  for (nrows = 0; nrows < 40; nrows++)
    {
      bool nulls[4] = { false, nrows % 9 == 0, nrows % 7 == 0, nrows % 5 == 0 };
      struct tb t;
      tb_init (&t, 4, OSSD_PG_HEAP_XMIN_FROZEN, 100, nulls);
      tb_i32 (&t, nrows - 3);
      if (!nulls[1])
        tb_text (&t, strs[nrows % 5]);
      if (!nulls[2])
        tb_text (&t, strs[(nrows + 2) % 5]);
      if (!nulls[3])
        tb_i64 (&t, (int64_t) nrows * 1000 - 7);
      pb_add (&p, &t);
    }
  memcpy (page, p.page, OSSD_PG_BLCKSZ);
}

/* the probe's verdict on row i's key (as the engine normalises it) */
static bool
row_passes (const struct ossd_join_filter *f, int i)
{
  static const char *strs[] = { "AIR", "", "MAIL  ", "a", "SHIP" };
  uint8_t img[8];
  const char *s;
  switch (f->attnum)
    {
    case 1: ossd_jf_int_image (i - 3, img); return ossd_join_filter_test (f, img, 8);
    case 2:
      if (i % 9 == 0)
        return false;
      s = strs[i % 5];
      return ossd_join_filter_test (f, (const uint8_t *) s, strlen (s));
    case 3:
      if (i % 7 == 0)
        return false;
      s = strs[(i + 2) % 5];
      return ossd_join_filter_test (f, (const uint8_t *) s, ossd_jf_bpchar_len ((const uint8_t *) s, strlen (s)));
    default:
      if (i % 5 == 0)
        return false;
      ossd_jf_int_image ((int64_t) i * 1000 - 7, img);
      return ossd_join_filter_test (f, img, 8);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char err[256];
  if (size < 8)
    return 0;
  if (!nrows)
    build_page ();
  size_t n = size - 8;
  uint8_t *buf = malloc (n ? n : 1);
  memcpy (buf, data + 8, n);
  struct ossd_join_filter f = {
    .attnum = (uint16_t) (data[7] % 4 + 1), .key_kind = data[0] % 4, .kind = data[1] % 3,
    .hashes = data[2], .key_count = (uint32_t) data[3] | (uint32_t) data[4] << 8
      | (uint32_t) data[5] << 16 | (uint32_t) data[6] << 24,
  };
  if (f.kind == OSSD_JF_BLOOM)
    {
      f.bloom = buf;
      f.bloom_bytes = (uint32_t) n;
      f.key_count = 0;
    }
  else
    {
      f.keys = buf;
      f.keys_len = (uint32_t) n;
    }
  if (ossd_join_filter_prepare (&f, err, sizeof err) == 0)
    {
      /* no false negatives: every record is found */
      for (uint32_t pos = 0; f.kind == OSSD_JF_EXACT && pos < f.keys_len;)
        {
          uint32_t len = ossd_rd32 (f.keys + pos);
          if (!ossd_join_filter_test (&f, f.keys + pos + 4, len))
            abort ();
          pos += (uint32_t) ossd_jf_exact_record_size (len);
        }
      /* a scan drops exactly what the probe rejects (when the key kind
       * fits the column; else the engine must refuse the request) */
      static const struct ossd_block_range br = { 0, 1 };
      static const struct ossd_scan_target tg = { 0, 1, &br };
      static const uint16_t proj[] = { 1 };
      struct sink s = { 0 };
      struct ossd_scan_request q = {
        .ntargets = 1, .targets = &tg, .natts = 4, .attrs = attrs, .snapshot_xmin = 1000,
        .nproj = 1, .proj = proj, .read_block = read_page, .sink = sink, .sink_arg = &s,
        .njoin_filters = 1, .join_filters = &f,
      };
      bool fits = (f.attnum == 1 || f.attnum == 4) ? f.key_kind == OSSD_JF_KEY_INT
        : f.attnum == 2 ? f.key_kind == OSSD_JF_KEY_BYTES : f.key_kind == OSSD_JF_KEY_BPCHAR;
      int rc = ossd_scan_run (&q, NULL, err, sizeof err);
      if (fits != (rc == 0))
        abort ();
      if (rc == 0)
        {
          uint64_t want = 0;
          for (int i = 0; i < nrows; i++)
            want += row_passes (&f, i);
          if (s.rows != want || s.dropped != (uint64_t) nrows - want)
            abort ();
        }
      ossd_join_filter_release (&f);
    }
  free (buf);
  return 0;
}
