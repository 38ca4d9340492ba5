/* test_scan_inproc.c - SCAN and KERNEL commands end to end through
 * libossd and the channel, on an in-process drive: heap pages stored in
 * an object, a filter kernel sent with the request and one deployed by
 * name, projection and aggregates, the MVCC rule, verifier rejections,
 * and deployed kernels surviving a restart. */
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
#include "ossd_rt.h"
#include "../../offload_runtime/tests/heap_page_builder.h"
#include "../../offload_runtime/tests/rt_corpus.h"

#define PID 5
#define OID 1
#define PAGES 3
#define ROWS_PER_PAGE 40
#define LATE_XMIN 1000u       /* not before the snapshot's xmin */
#define SNAP_XMIN 500u

static char image[256];

/* Rows: a int4 = i, b int8 = i*10, c text = "row i".  Every 7th row has
 * xmin LATE_XMIN (inserted after the snapshot): never counted. */
static void
store_table (ossd_t *o)
{
  ossd_error err;
  int i = 0;

  assert_true (ossd_create_partition (o, PID, &err) == 0 || err.errnum == EEXIST);
  assert_true (ossd_create (o, PID, OID, &err) == 0 || err.errnum == EEXIST);
  for (int p = 0; p < PAGES; p++)
    {
      struct pb pg;
      pb_init (&pg);
      for (int k = 0; k < ROWS_PER_PAGE; k++, i++)
        {
          struct tb t;
          char txt[32];
          bool late = i % 7 == 6;
          tb_init (&t, 3, late ? 0 : OSSD_PG_HEAP_XMIN_FROZEN, late ? LATE_XMIN : 2, NULL);
          tb_i32 (&t, i);
          tb_i64 (&t, (int64_t) i * 10);
          snprintf (txt, sizeof txt, "row %d", i);
          tb_text (&t, txt);
          pb_add (&pg, &t);
        }
      assert_int_equal (ossd_write (o, PID, OID, (uint64_t) p * 8192, pg.page, 8192, &err), 0);
    }
}

static int
cmp_int (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static bool
visible (int i)
{
  return i % 7 != 6;
}

/* filter: col[0] (a) % 3 == 0 */
static const struct ossd_insn mod3[] = {
  LDX (W, 2, 1, COLV (0)),
  ALUI (MOD, 2, 3),
  JI (JNE, 2, 0, 2),
  MOVI (0, 1),
  EXIT,
  MOVI (0, 0),
  EXIT,
};

static ProtobufCBinaryData
raw_image (const struct ossd_insn *insns, uint32_t n)
{
  struct ossd_prog *p;
  char err[256];
  void *buf;
  size_t len;
  assert_int_equal (ossd_prog_from_insns (insns, n, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_to_raw (p, &buf, &len), 0);
  ossd_prog_free (p);
  return (ProtobufCBinaryData) { .len = len, .data = buf };
}

struct scan_msg
{
  Ossd__Scan scan;
  Ossd__ScanTarget target, *targetp;
  Ossd__ObjectId obj;
  Ossd__BlockRange range, *rangep;
  Ossd__ScanAttr attr[3], *attrp[3];
  uint32_t referenced[1], projection[2];
};

static void
scan_msg_init (struct scan_msg *m)
{
  static const int lens[3] = { 4, 8, -1 }, aligns[3] = { 4, 8, 4 };
  static const uint32_t types[3] = { 23, 20, 25 };

  ossd__scan__init (&m->scan);
  ossd__scan_target__init (&m->target);
  ossd__object_id__init (&m->obj);
  ossd__block_range__init (&m->range);
  m->obj.pid = PID;
  m->obj.oid = OID;
  m->range.start = 0;
  m->range.count = PAGES;
  m->rangep = &m->range;
  m->target.obj = &m->obj;
  m->target.n_ranges = 1;
  m->target.ranges = &m->rangep;
  m->targetp = &m->target;
  m->scan.n_targets = 1;
  m->scan.targets = &m->targetp;
  for (int a = 0; a < 3; a++)
    {
      ossd__scan_attr__init (&m->attr[a]);
      m->attr[a].len = lens[a];
      m->attr[a].align = aligns[a];
      m->attr[a].byval = lens[a] > 0;
      m->attr[a].type_oid = types[a];
      m->attrp[a] = &m->attr[a];
    }
  m->scan.n_attrs = 3;
  m->scan.attrs = m->attrp;
  m->scan.snapshot_xmin = SNAP_XMIN;
  m->referenced[0] = 1;
  m->scan.n_referenced = 1;
  m->scan.referenced = m->referenced;
  m->scan.workers = 2;
}

/* Run a scan; return matched rows' a values in `as` (sorted by caller). */
static int
run_scan (ossd_t *o, Ossd__Scan *scan, int *as, int max, int64_t *agg_count,
          int64_t *agg_sum, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  ossd_stream *st;
  Ossd__Response *resp;
  int n = 0, r;

  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = scan;
  r = ossd_stream_start (o, &req, &st, err);
  if (r < 0)
    return r;
  while ((r = ossd_stream_next (st, &resp, err)) == 0 && resp)
    {
      const Ossd__ScanChunk *c = resp->scan;
      size_t pos = 0;
      bool byval[2] = { true, false };
      struct ossd_row_view row;
      struct ossd_value_view v[2];
      assert_non_null (c);
      while (ossd_row_read (c->rows.data, c->rows.len, &pos, 2, byval, &row, v) == 1)
        {
          assert_true (n < max);
          as[n] = (int) (int32_t) v[0].datum;
          assert_string_equal (c->kernel_mode,
                               scan->mode == OSSD__KERNEL_MODE__KERNEL_INTERPRETER
                               ? "interpreter" : "jit");
          char want[32];
          snprintf (want, sizeof want, "row %d", as[n]);
          /* by-ref text: a complete varlena; skip its header */
          const uint8_t *d = v[1].data;
          uint32_t hl = (d[0] & 1) ? 1 : 4;
          assert_int_equal (v[1].len - hl, strlen (want));
          assert_memory_equal (d + hl, want, strlen (want));
          n++;
        }
      pos = 0;
      if (c->groups.len && agg_count)
        {
          /* aggregate mode: sum the partial groups (one per worker) */
          struct ossd_agg_state_view s[2];
          bool agg_byval[2] = { true, true };
          int g;
          while ((g = ossd_group_read (c->groups.data, c->groups.len, &pos, 0, NULL, NULL,
                                       2, agg_byval, s)) == 1)
            {
              *agg_count += s[0].count;
              *agg_sum += (int64_t) s[1].sum_lo;
            }
          assert_int_equal (g, 0);
        }
      ossd__response__free_unpacked (resp, NULL);
    }
  ossd_stream_close (st);
  return r < 0 ? r : n;
}

static void
test_scan_filter_projection_and_mvcc (void **state)
{
  ossd_t *o;
  ossd_error err;
  struct scan_msg m;
  int as[PAGES * ROWS_PER_PAGE], n, expect = 0;

  assert_int_equal (ossd_connect (image, NULL, &o, &err), 0);
  store_table (o);
  scan_msg_init (&m);
  m.scan.filter_case = OSSD__SCAN__FILTER_FILTER_PROGRAM;
  m.scan.filter_program = raw_image (mod3, sizeof mod3 / sizeof mod3[0]);
  m.projection[0] = 1;
  m.projection[1] = 3;
  m.scan.n_projection = 2;
  m.scan.projection = m.projection;
  m.scan.mode = OSSD__KERNEL_MODE__KERNEL_JIT;
  n = run_scan (o, &m.scan, as, PAGES * ROWS_PER_PAGE, NULL, NULL, &err);
  if (n < 0)
    fail_msg ("scan: %s", err.msg);
  /* The interpreter and the JIT give the same rows. */
  int as_interp[PAGES * ROWS_PER_PAGE], n_interp;
  m.scan.mode = OSSD__KERNEL_MODE__KERNEL_INTERPRETER;
  n_interp = run_scan (o, &m.scan, as_interp, PAGES * ROWS_PER_PAGE, NULL, NULL, &err);
  assert_int_equal (n_interp, n);
  qsort (as, n, sizeof as[0], cmp_int);
  qsort (as_interp, n, sizeof as[0], cmp_int);
  assert_memory_equal (as, as_interp, n * sizeof as[0]);
  for (int i = 0; i < PAGES * ROWS_PER_PAGE; i++)
    if (i % 3 == 0 && visible (i))
      expect++;
  assert_int_equal (n, expect);
  for (int k = 0; k < n; k++)
    {
      assert_int_equal (as[k] % 3, 0);
      assert_true (visible (as[k]));
    }
  free (m.scan.filter_program.data);
  ossd_disconnect (o);
}

static void
test_scan_aggregates (void **state)
{
  ossd_t *o;
  ossd_error err;
  struct scan_msg m;
  Ossd__AggSpec a0 = OSSD__AGG_SPEC__INIT, a1 = OSSD__AGG_SPEC__INIT, *ap[2] = { &a0, &a1 };
  int64_t count = 0, sum = 0, want_count = 0, want_sum = 0;
  int as[1];

  assert_int_equal (ossd_connect (image, NULL, &o, &err), 0);
  scan_msg_init (&m);
  m.scan.filter_case = OSSD__SCAN__FILTER_FILTER_PROGRAM;
  m.scan.filter_program = raw_image (mod3, sizeof mod3 / sizeof mod3[0]);
  m.projection[0] = 2;            /* b */
  m.scan.n_projection = 1;
  m.scan.projection = m.projection;
  a0.kind = OSSD__AGG_KIND__AGG_COUNT_STAR;
  a1.kind = OSSD__AGG_KIND__AGG_SUM;
  a1.input = 0;
  a1.type_oid = 20;
  m.scan.n_aggs = 2;
  m.scan.aggs = ap;
  int r = run_scan (o, &m.scan, as, 0, &count, &sum, &err);
  if (r < 0)
    fail_msg ("scan: %s", err.msg);
  for (int i = 0; i < PAGES * ROWS_PER_PAGE; i++)
    if (i % 3 == 0 && visible (i))
      {
        want_count++;
        want_sum += (int64_t) i * 10;
      }
  assert_int_equal (count, want_count);
  assert_int_equal (sum, want_sum);
  free (m.scan.filter_program.data);
  ossd_disconnect (o);
}

static int
call_kernel (ossd_t *o, Ossd__Request *req, Ossd__Response **resp, ossd_error *err)
{
  *resp = NULL;
  return ossd_call (o, req, resp, err);
}

static void
test_kernels_deploy_use_reject_persist (void **state)
{
  ossd_t *o;
  ossd_error err;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
  Ossd__KernelList kl = OSSD__KERNEL_LIST__INIT;
  Ossd__KernelRemove kr = OSSD__KERNEL_REMOVE__INIT;
  Ossd__Response *resp;
  struct scan_msg m;
  int as[PAGES * ROWS_PER_PAGE];

  assert_int_equal (ossd_connect (image, NULL, &o, &err), 0);
  kd.name = (char *) "mod3";
  kd.image = raw_image (mod3, sizeof mod3 / sizeof mod3[0]);
  req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
  req.kernel_deploy = &kd;
  assert_int_equal (call_kernel (o, &req, &resp, &err), 0);
  ossd__response__free_unpacked (resp, NULL);
  /* same name again without replace */
  assert_int_equal (call_kernel (o, &req, &resp, &err), -EEXIST);
  ossd__response__free_unpacked (resp, NULL);
  free (kd.image.data);

  /* A kernel reading past the context is refused, naming the insn. */
  static const struct ossd_insn evil[] = {
    LDX (DW, 0, 1, CTX_SIZE + 64),
    EXIT,
  };
  kd.name = (char *) "evil";
  kd.image = raw_image (evil, 2);
  assert_int_equal (call_kernel (o, &req, &resp, &err), -EPERM);
  assert_int_equal (err.status, OSSD__STATUS__ERR_VERIFIER);
  assert_non_null (strstr (err.msg, "insn 0"));
  ossd__response__free_unpacked (resp, NULL);
  free (kd.image.data);
  ossd_disconnect (o);

  /* Restart the drive: the kernel is still deployed and usable by name. */
  assert_int_equal (ossd_connect (image, NULL, &o, &err), 0);
  req.body_case = OSSD__REQUEST__BODY_KERNEL_LIST;
  req.kernel_list = &kl;
  assert_int_equal (call_kernel (o, &req, &resp, &err), 0);
  assert_int_equal (resp->kernels->n_kernels, 1);
  assert_string_equal (resp->kernels->kernels[0]->name, "mod3");
  ossd__response__free_unpacked (resp, NULL);

  scan_msg_init (&m);
  m.scan.filter_case = OSSD__SCAN__FILTER_FILTER_KERNEL;
  m.scan.filter_kernel = (char *) "mod3";
  m.projection[0] = 1;
  m.projection[1] = 3;
  m.scan.n_projection = 2;
  m.scan.projection = m.projection;
  int n = run_scan (o, &m.scan, as, PAGES * ROWS_PER_PAGE, NULL, NULL, &err);
  if (n < 0)
    fail_msg ("scan by name: %s", err.msg);
  assert_true (n > 0);

  m.scan.filter_kernel = (char *) "nosuch";
  assert_true (run_scan (o, &m.scan, as, PAGES * ROWS_PER_PAGE, NULL, NULL, &err) < 0);
  assert_non_null (strstr (err.msg, "nosuch"));

  req.body_case = OSSD__REQUEST__BODY_KERNEL_REMOVE;
  kr.name = (char *) "mod3";
  req.kernel_remove = &kr;
  assert_int_equal (call_kernel (o, &req, &resp, &err), 0);
  ossd__response__free_unpacked (resp, NULL);
  assert_int_equal (call_kernel (o, &req, &resp, &err), -ENOENT);
  ossd__response__free_unpacked (resp, NULL);
  ossd_disconnect (o);
}

static void
test_scan_bad_requests (void **state)
{
  ossd_t *o;
  ossd_error err;
  struct scan_msg m;
  int as[4];

  assert_int_equal (ossd_connect (image, NULL, &o, &err), 0);
  scan_msg_init (&m);
  m.range.count = 1000;         /* past the object's end */
  assert_true (run_scan (o, &m.scan, as, 4, NULL, NULL, &err) < 0);
  assert_non_null (strstr (err.msg, "past the object"));
  scan_msg_init (&m);
  m.obj.oid = 999;
  assert_true (run_scan (o, &m.scan, as, 4, NULL, NULL, &err) < 0);
  assert_non_null (strstr (err.msg, "does not exist"));
  ossd_disconnect (o);
}

static int
group_setup (void **state)
{
  snprintf (image, sizeof image, "inproc:/tmp/ossd-test-scan-%d.img?create=1&size=64M&volume=1M&slots=4&window=64",
            (int) getpid ());
  return 0;
}

static int
group_teardown (void **state)
{
  char path[200];
  snprintf (path, sizeof path, "/tmp/ossd-test-scan-%d.img", (int) getpid ());
  unlink (path);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_scan_filter_projection_and_mvcc),
    cmocka_unit_test (test_scan_aggregates),
    cmocka_unit_test (test_kernels_deploy_use_reject_persist),
    cmocka_unit_test (test_scan_bad_requests),
  };
  return cmocka_run_group_tests (tests, group_setup, group_teardown);
}
