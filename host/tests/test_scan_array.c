/* test_scan_array.c - striped SCANs end to end through libossd (issue 14,
 * docs/arrays.md "SCAN geometry"): one segment of heap pages striped
 * RAID-0 over three in-process drives exactly as ossdfs lays a file out
 * (ossd_stripe_locate), the same pages stored whole on a fourth, single
 * drive.  Each array member is sent the striped ScanTarget (its index,
 * the count, the unit in blocks; the ranges name heap blocks, some left
 * out as the host's), the three streams open at once; the union of their
 * rows (values and TIDs) and the sum of their partial aggregates must be
 * the single drive's answer, and each drive must report only the heap
 * blocks of its own units.  Run for the first segment and for a later one
 * (first_block != 0), with a unit that does not divide the segment's
 * length (a partial last unit), and with the tuples an index named on
 * each block (ScanTarget.tuple_offsets). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "libossd.h"
#include "ossd_array.h"
#include "ossd_rt.h"
#include "../../offload_runtime/tests/heap_page_builder.h"

#define PID 5
#define OID 77
#define NDRIVES 3
#define PAGES 23                /* 11 units of 2 blocks and one of 1 */
#define UNIT_BLOCKS 2
#define UNIT_BYTES (UNIT_BLOCKS * 8192u)
#define ROWS_PER_PAGE 30
#define SNAP_XMIN 500u
#define LATE_XMIN 1000u
#define MAX_ROWS (PAGES * ROWS_PER_PAGE)

static char single_uri[256], member_uri[NDRIVES][256];
static char paths[NDRIVES + 1][200];

/* Heap blocks the host keeps (not all-visible, dirty): left out of the
 * ranges, as pg_ossd leaves them out. */
static bool
host_block (uint32_t b)
{
  return b == 5 || b == 17 || b == 18;
}

/* Row i: a int4 = i, b int8 = i*3; every 9th inserted after the snapshot. */
static void
build_page (int p, uint8_t *out)
{
  struct pb pg;

  pb_init (&pg);
  for (int k = 0; k < ROWS_PER_PAGE; k++)
    {
      int i = p * ROWS_PER_PAGE + k;
      bool late = i % 9 == 4;
      struct tb t;

      tb_init (&t, 2, late ? 0 : OSSD_PG_HEAP_XMIN_FROZEN, late ? LATE_XMIN : 2, NULL);
      tb_i32 (&t, i);
      tb_i64 (&t, (int64_t) i * 3);
      pb_add (&pg, &t);
    }
  memcpy (out, pg.page, 8192);
}

static void
store (ossd_t *single, ossd_t *member[NDRIVES])
{
  ossd_error err;
  uint8_t page[8192];

  assert_true (ossd_create_partition (single, PID, &err) == 0 || err.errnum == EEXIST);
  assert_true (ossd_create (single, PID, OID, &err) == 0 || err.errnum == EEXIST);
  for (int d = 0; d < NDRIVES; d++)
    {
      assert_true (ossd_create_partition (member[d], PID, &err) == 0 || err.errnum == EEXIST);
      assert_true (ossd_create (member[d], PID, OID, &err) == 0 || err.errnum == EEXIST);
    }
  for (int p = 0; p < PAGES; p++)
    {
      uint32_t d;
      uint64_t off, run;

      build_page (p, page);
      assert_int_equal (ossd_write (single, PID, OID, (uint64_t) p * 8192, page, 8192, &err), 0);
      ossd_stripe_locate (UNIT_BYTES, NDRIVES, (uint64_t) p * 8192, &d, &off, &run);
      assert_true (run >= 8192);
      assert_int_equal (ossd_write (member[d], PID, OID, off, page, 8192, &err), 0);
    }
  for (int d = 0; d < NDRIVES; d++)
    {
      struct ossd_object_stat os;
      assert_int_equal (ossd_stat (member[d], PID, OID, &os, &err), 0);
      assert_int_equal (os.size, ossd_stripe_drive_length (UNIT_BYTES, NDRIVES, PAGES * 8192u, d));
    }
}

struct scan_msg
{
  Ossd__Scan scan;
  Ossd__ScanTarget target, *targetp;
  Ossd__ObjectId obj;
  Ossd__BlockRange range[PAGES], *rangep[PAGES];
  Ossd__ScanAttr attr[2], *attrp[2];
  Ossd__AggSpec agg[2], *aggp[2];
  uint32_t projection[2];
  uint8_t tids[PAGES * 8];
};

/* With tuple offsets (as an index's bitmap names them): on block b three
 * line pointers, but every fourth block whole (a lossy page). */
static bool with_tids;

static size_t
put_tids (uint8_t *out, uint32_t b)
{
  uint16_t list[4] = { 0, (uint16_t) (1 + b % 5), 10, (uint16_t) (20 + b % 7) };
  size_t n = b % 4 == 3 ? 1 : 4;

  if (n == 1)
    list[0] = 0;
  else
    list[0] = 3;
  memcpy (out, list, 2 * n);
  return 2 * n;
}

/* The ranges: every heap block but the host's.  stripe_count 0: the
 * single drive's unstriped target. */
static void
scan_msg_init (struct scan_msg *m, uint32_t first_block, uint32_t index,
               uint32_t count, bool aggregate)
{
  static const int lens[2] = { 4, 8 };
  static const uint32_t types[2] = { 23, 20 };
  size_t n = 0;

  memset (m, 0, sizeof *m);
  ossd__scan__init (&m->scan);
  ossd__scan_target__init (&m->target);
  m->target.tuple_offsets.data = m->tids;
  ossd__object_id__init (&m->obj);
  m->obj.pid = PID;
  m->obj.oid = OID;
  for (uint32_t b = 0; b < PAGES; b++)
    {
      if (host_block (b))
        continue;
      if (with_tids)
        m->target.tuple_offsets.len += put_tids (m->tids + m->target.tuple_offsets.len, b);
      if (n && m->range[n - 1].start + m->range[n - 1].count == b)
        {
          m->range[n - 1].count++;
          continue;
        }
      ossd__block_range__init (&m->range[n]);
      m->range[n].start = b;
      m->range[n].count = 1;
      m->rangep[n] = &m->range[n];
      n++;
    }
  m->target.obj = &m->obj;
  m->target.n_ranges = n;
  m->target.ranges = m->rangep;
  m->target.first_block = first_block;
  m->target.segment_blocks = 131072;
  if (count > 1)
    {
      m->target.stripe_unit_blocks = UNIT_BLOCKS;
      m->target.stripe_index = index;
      m->target.stripe_count = count;
    }
  m->targetp = &m->target;
  m->scan.n_targets = 1;
  m->scan.targets = &m->targetp;
  for (int a = 0; a < 2; a++)
    {
      ossd__scan_attr__init (&m->attr[a]);
      m->attr[a].len = lens[a];
      m->attr[a].align = lens[a];
      m->attr[a].byval = true;
      m->attr[a].type_oid = types[a];
      m->attrp[a] = &m->attr[a];
    }
  m->scan.n_attrs = 2;
  m->scan.attrs = m->attrp;
  m->scan.snapshot_xmin = SNAP_XMIN;
  m->scan.workers = 2;
  m->scan.mode = OSSD__KERNEL_MODE__KERNEL_INTERPRETER;
  m->projection[0] = 1;
  m->projection[1] = 2;
  m->scan.n_projection = 2;
  m->scan.projection = m->projection;
  if (aggregate)
    {
      ossd__agg_spec__init (&m->agg[0]);
      ossd__agg_spec__init (&m->agg[1]);
      m->agg[0].kind = OSSD__AGG_KIND__AGG_COUNT_STAR;
      m->agg[1].kind = OSSD__AGG_KIND__AGG_SUM;
      m->agg[1].input = 1;
      m->agg[1].type_oid = 20;
      m->aggp[0] = &m->agg[0];
      m->aggp[1] = &m->agg[1];
      m->scan.n_aggs = 2;
      m->scan.aggs = m->aggp;
    }
}

struct row
{
  uint32_t block, offnum;
  int32_t a;
  int64_t b;
};

struct result
{
  struct row rows[MAX_ROWS];
  int nrows;
  int64_t count, sum;
  uint64_t blocks_scanned;
};

static int
cmp_row (const void *x, const void *y)
{
  const struct row *p = x, *q = y;
  if (p->block != q->block)
    return p->block < q->block ? -1 : 1;
  return (int) p->offnum - (int) q->offnum;
}

/* Drain one stream into r (appending). */
static void
drain (ossd_stream *st, struct result *r)
{
  Ossd__Response *resp;
  ossd_error err;
  int rc;

  while ((rc = ossd_stream_next (st, &resp, &err)) == 0 && resp)
    {
      const Ossd__ScanChunk *c = resp->scan;
      size_t pos = 0;
      bool byval[2] = { true, true };
      struct ossd_row_view row;
      struct ossd_value_view v[2];

      assert_non_null (c);
      while (ossd_row_read (c->rows.data, c->rows.len, &pos, 2, byval, &row, v) == 1)
        {
          assert_true (r->nrows < MAX_ROWS);
          r->rows[r->nrows].block = row.block;
          r->rows[r->nrows].offnum = row.offnum;
          r->rows[r->nrows].a = (int32_t) v[0].datum;
          r->rows[r->nrows].b = (int64_t) v[1].datum;
          r->nrows++;
        }
      assert_int_equal (c->n_host_blocks, 0);
      assert_int_equal (c->host_rows.len, 0);
      pos = 0;
      if (c->groups.len)
        {
          struct ossd_agg_state_view s[2];
          bool agg_byval[2] = { true, true };
          int g;
          while ((g = ossd_group_read (c->groups.data, c->groups.len, &pos, 0, NULL, NULL,
                                       2, agg_byval, s)) == 1)
            {
              r->count += s[0].count;
              r->sum += (int64_t) s[1].sum_lo;
            }
          assert_int_equal (g, 0);
        }
      if (c->last)
        r->blocks_scanned += c->blocks_scanned;
      ossd__response__free_unpacked (resp, NULL);
    }
  if (rc < 0)
    fail_msg ("stream: %s", err.msg);
  ossd_stream_close (st);
}

static ossd_stream *
start (ossd_t *o, Ossd__Scan *scan)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  ossd_stream *st;
  ossd_error err;

  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = scan;
  if (ossd_stream_start (o, &req, &st, &err) < 0)
    fail_msg ("scan start: %s", err.msg);
  return st;
}

static void
check_geometry (uint32_t first_block, bool aggregate)
{
  ossd_t *single, *member[NDRIVES];
  ossd_error err;
  struct scan_msg one, per[NDRIVES];
  ossd_stream *st[NDRIVES];
  static struct result want, got, drive[NDRIVES];
  int host_pages = 0;

  assert_int_equal (ossd_connect (single_uri, NULL, &single, &err), 0);
  for (int d = 0; d < NDRIVES; d++)
    assert_int_equal (ossd_connect (member_uri[d], NULL, &member[d], &err), 0);
  store (single, member);

  memset (&want, 0, sizeof want);
  memset (&got, 0, sizeof got);
  scan_msg_init (&one, first_block, 0, 0, aggregate);
  drain (start (single, &one.scan), &want);

  /* every member scans at once: all three streams open before any is read */
  for (int d = 0; d < NDRIVES; d++)
    {
      scan_msg_init (&per[d], first_block, (uint32_t) d, NDRIVES, aggregate);
      st[d] = start (member[d], &per[d].scan);
    }
  for (int d = 0; d < NDRIVES; d++)
    {
      memset (&drive[d], 0, sizeof drive[d]);
      drain (st[d], &drive[d]);
      /* a drive reports only the heap blocks of its own units */
      for (int k = 0; k < drive[d].nrows; k++)
        {
          uint32_t b = drive[d].rows[k].block - first_block;
          assert_true (drive[d].rows[k].block >= first_block);
          assert_int_equal ((b / UNIT_BLOCKS) % NDRIVES, (uint32_t) d);
          assert_false (host_block (b));
        }
      memcpy (got.rows + got.nrows, drive[d].rows, sizeof (struct row) * drive[d].nrows);
      got.nrows += drive[d].nrows;
      got.count += drive[d].count;
      got.sum += drive[d].sum;
      got.blocks_scanned += drive[d].blocks_scanned;
      assert_true (drive[d].blocks_scanned > 0);
    }
  for (uint32_t b = 0; b < PAGES; b++)
    host_pages += host_block (b);
  assert_int_equal (want.blocks_scanned, PAGES - host_pages);
  assert_int_equal (got.blocks_scanned, want.blocks_scanned);

  if (aggregate)
    {
      int64_t c = 0, s = 0;
      for (int i = 0; i < MAX_ROWS; i++)
        if (i % 9 != 4 && !host_block ((uint32_t) (i / ROWS_PER_PAGE)))
          {
            c++;
            s += (int64_t) i * 3;
          }
      /* with tuple offsets, fewer rows: the union's is still the single's */
      if (!with_tids)
        {
          assert_int_equal (want.count, c);
          assert_int_equal (want.sum, s);
        }
      else
        assert_true (want.count > 0 && want.count < c);
      assert_int_equal (got.count, want.count);
      assert_int_equal (got.sum, want.sum);
    }
  else
    {
      assert_true (want.nrows > 0);
      if (with_tids)
        {
          /* only the named line pointers, on all but the whole blocks */
          int most = 0;
          for (uint32_t b = 0; b < PAGES; b++)
            if (!host_block (b))
              most += b % 4 == 3 ? ROWS_PER_PAGE : 3;
          assert_true (want.nrows <= most);
          for (int k = 0; k < want.nrows; k++)
            {
              uint32_t b = want.rows[k].block - first_block, off = want.rows[k].offnum;
              if (b % 4 != 3)
                assert_true (off == 1 + b % 5 || off == 10 || off == 20 + b % 7);
            }
        }
      assert_int_equal (got.nrows, want.nrows);
      qsort (want.rows, want.nrows, sizeof (struct row), cmp_row);
      qsort (got.rows, got.nrows, sizeof (struct row), cmp_row);
      for (int k = 0; k < want.nrows; k++)
        {
          assert_int_equal (got.rows[k].block, want.rows[k].block);
          assert_int_equal (got.rows[k].offnum, want.rows[k].offnum);
          assert_int_equal (got.rows[k].a, want.rows[k].a);
          assert_int_equal (got.rows[k].b, want.rows[k].b);
          /* the TID names the heap block the row's page is */
          assert_int_equal (want.rows[k].block - first_block,
                            (uint32_t) want.rows[k].a / ROWS_PER_PAGE);
        }
    }
  ossd_disconnect (single);
  for (int d = 0; d < NDRIVES; d++)
    ossd_disconnect (member[d]);
}

static void
test_rows_first_segment (void **state)
{
  check_geometry (0, false);
}

static void
test_rows_later_segment (void **state)
{
  check_geometry (131072, false);
}

/* The same tuple offsets to every member: each keeps those of its own
 * units' heap blocks (device_scan.c, share_tuple_offsets), and the union
 * is again the single drive's answer. */
static void
test_rows_tuple_offsets (void **state)
{
  with_tids = true;
  check_geometry (0, false);
  check_geometry (131072, true);
  with_tids = false;
}

static void
test_aggregates (void **state)
{
  check_geometry (131072 * 2, true);
}

/* A member asked for a stripe index it cannot have is refused. */
static void
test_bad_geometry (void **state)
{
  ossd_t *o;
  ossd_error err;
  struct scan_msg m;
  Ossd__Request req = OSSD__REQUEST__INIT;
  ossd_stream *st;
  Ossd__Response *resp;
  int r;

  assert_int_equal (ossd_connect (member_uri[0], NULL, &o, &err), 0);
  scan_msg_init (&m, 0, NDRIVES, NDRIVES, false);
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &m.scan;
  r = ossd_stream_start (o, &req, &st, &err);
  if (r == 0)
    {
      while ((r = ossd_stream_next (st, &resp, &err)) == 0 && resp)
        ossd__response__free_unpacked (resp, NULL);
      ossd_stream_close (st);
    }
  assert_true (r < 0);
  ossd_disconnect (o);
}

static int
group_setup (void **state)
{
  for (int d = 0; d <= NDRIVES; d++)
    snprintf (paths[d], sizeof paths[d], "/tmp/ossd-test-scan-array-%d-%d.img", (int) getpid (), d);
  snprintf (single_uri, sizeof single_uri,
            "inproc:%s?create=1&size=64M&volume=1M&slots=4&window=64", paths[NDRIVES]);
  for (int d = 0; d < NDRIVES; d++)
    snprintf (member_uri[d], sizeof member_uri[d],
              "inproc:%s?create=1&size=64M&volume=1M&slots=4&window=64", paths[d]);
  return 0;
}

static int
group_teardown (void **state)
{
  for (int d = 0; d <= NDRIVES; d++)
    unlink (paths[d]);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rows_first_segment),
    cmocka_unit_test (test_rows_later_segment),
    cmocka_unit_test (test_aggregates),
    cmocka_unit_test (test_rows_tuple_offsets),
    cmocka_unit_test (test_bad_geometry),
  };
  return cmocka_run_group_tests (tests, group_setup, group_teardown);
}
