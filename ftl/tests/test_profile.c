/* test_profile.c - the access profiler (ftl_profile.h): the read ring,
 * transitions inside and between reads, per-stream graphs merged, aging
 * of a full graph, the object bound, enable/reset, concurrent recorders. */
#include <pthread.h>

#include "ftl_test_util.h"
#include "ftl_profile.h"

static ftl_profile_t *
make (uint32_t edges, uint32_t objects, uint32_t ring)
{
  struct ftl_profile_config c = { .edges_per_stream = edges,
    .max_objects = objects, .ring_records = ring, .streams = 4 };
  ftl_profile_t *p = NULL;
  ftl_error err = { "" };
  int r = ftl_profile_create (&c, &p, &err);
  if (r)
    fprintf (stderr, "%s\n", err.msg);
  assert_int_equal (r, 0);
  ftl_profile_set_enabled (p, true);
  return p;
}

static uint64_t
weight_of (const struct ftl_profile_edge *e, size_t n, uint64_t oid_from,
           uint64_t uf, uint64_t oid_to, uint64_t ut)
{
  for (size_t i = 0; i < n; i++)
    if (e[i].from.oid == oid_from && e[i].from.unit == uf
        && e[i].to.oid == oid_to && e[i].to.unit == ut)
      return e[i].weight;
  return 0;
}

static void
test_edges_and_merge (void **state)
{
  ftl_profile_t *p = make (0, 0, 0);
  ftl_error err = { "" };
  /* stream 0: units 0,1 of 1:10 in one read, then unit 4 */
  ftl_profile_record (p, 0, 1, 10, 0, 16384, 100);
  ftl_profile_record (p, 0, 1, 10, 32768, 8192, 200);
  /* stream 1 (another slot): units 0,1 again, then object 1:11 unit 0 */
  ftl_profile_record (p, 1, 1, 10, 0, 16384, 300);
  ftl_profile_record (p, 1, 1, 11, 100, 10, 400);
  /* stream 5 folds onto stream 1: continues from 1:11 unit 0 */
  ftl_profile_record (p, 5, 1, 10, 8192, 4096, 500);
  struct ftl_profile_edge e[16];
  size_t n, total;
  assert_int_equal (ftl_profile_edges (p, e, 16, &n, &total, &err), 0);
  assert_int_equal (total, 4);
  assert_int_equal (n, 4);
  /* heaviest first: 0 -> 1 seen by both streams */
  assert_int_equal (e[0].weight, 2);
  assert_int_equal (e[0].from.unit, 0);
  assert_int_equal (e[0].to.unit, 1);
  assert_int_equal (e[0].intra_weight, 2);   /* both inside a read */
  for (size_t i = 1; i < n; i++)
    assert_int_equal (e[i].intra_weight, 0);   /* between reads */
  assert_int_equal (weight_of (e, n, 10, 1, 10, 4), 1);
  assert_int_equal (weight_of (e, n, 10, 1, 11, 0), 1);
  assert_int_equal (weight_of (e, n, 11, 0, 10, 1), 1);
  assert_int_equal (weight_of (e, n, 10, 4, 10, 0), 0);   /* other stream */
  struct ftl_profile_counters c;
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.reads, 5);
  assert_int_equal (c.read_bytes, 16384 * 2 + 8192 + 10 + 4096);
  assert_int_equal (c.units, 2 + 1 + 2 + 1 + 1);
  assert_int_equal (c.transitions, 5);
  assert_int_equal (c.intra_transitions, 2);
  assert_int_equal (c.cross_object_transitions, 2);
  assert_int_equal (c.objects, 2);
  assert_int_equal (c.edges, 4 + 1);   /* 0 -> 1 lives in two graphs */
  /* the ring, oldest first */
  struct ftl_profile_read rd[8];
  assert_int_equal (ftl_profile_reads (p, rd, 8), 5);
  assert_int_equal (rd[0].time_ns, 100);
  assert_int_equal (rd[4].stream, 5);
  assert_int_equal (rd[3].oid, 11);
  assert_int_equal (ftl_profile_reads (p, rd, 2), 2);
  assert_int_equal (rd[0].time_ns, 400);
  /* count only */
  assert_int_equal (ftl_profile_edges (p, NULL, 0, &n, &total, &err), 0);
  assert_int_equal (n, 0);
  assert_int_equal (total, 4);
  ftl_profile_destroy (p);
}

static void
test_ring_wraps (void **state)
{
  ftl_profile_t *p = make (0, 0, 4);
  for (uint64_t i = 0; i < 10; i++)
    ftl_profile_record (p, 0, 1, 1, i * 8192, 8192, i);
  struct ftl_profile_read rd[8];
  assert_int_equal (ftl_profile_reads (p, rd, 8), 4);
  for (int i = 0; i < 4; i++)
    assert_int_equal (rd[i].time_ns, 6 + i);
  struct ftl_profile_counters c;
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.ring_overwritten, 6);
  ftl_profile_destroy (p);
}

/* 4 streams x 16 entries: one table of 64, shared.  One stream alone may
 * fill it up to 48 entries before it ages (the idle streams take no room);
 * then weights halve, light edges go, the heavy one (read again after
 * every other read) stays; the table never holds more than three
 * quarters. */
static void
test_aging_keeps_heavy_edges (void **state)
{
  ftl_profile_t *p = make (16, 0, 0);
  ftl_error err = { "" };
  struct ftl_profile_counters c;
  for (uint64_t u = 1000; u < 1040; u++)   /* 40 distinct edges, stream 3 */
    ftl_profile_record (p, 3, 1, 1, u * 3 * 8192, 8192, 0);
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.edges, 39);
  assert_int_equal (c.agings, 0);
  ftl_profile_reset (p);
  for (uint64_t u = 100; u < 160; u++)
    {
      ftl_profile_record (p, 0, 1, 1, u * 8192, 8192, 0);   /* 1 -> u, new */
      ftl_profile_record (p, 0, 1, 1, 0, 16384, 0);   /* u -> 0 new, 0 -> 1 */
    }
  ftl_profile_get_counters (p, &c);
  assert_true (c.agings >= 1);
  assert_true (c.edges_aged_out > 0);
  assert_true (c.edges <= 48);
  struct ftl_profile_edge e[64];
  size_t n, total;
  assert_int_equal (ftl_profile_edges (p, e, 64, &n, &total, &err), 0);
  assert_int_equal (total, c.edges);
  assert_int_equal (e[0].from.unit, 0);
  assert_int_equal (e[0].to.unit, 1);
  assert_true (e[0].weight >= 2);
  ftl_profile_destroy (p);
}

static void
test_bounds_enable_reset (void **state)
{
  ftl_profile_t *p = make (0, 2, 0);
  ftl_error err = { "" };
  ftl_profile_record (p, 0, 1, 1, 0, 8192, 0);
  ftl_profile_record (p, 0, 1, 2, 0, 8192, 0);
  ftl_profile_record (p, 0, 1, 3, 0, 8192, 0);   /* third object: not graphed */
  ftl_profile_record (p, 0, 1, 1, 0, 4 << 20, 0);   /* 512 units: 256 graphed */
  struct ftl_profile_counters c;
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.objects, 2);
  assert_int_equal (c.objects_dropped, 1);
  assert_int_equal (c.units_not_graphed, 256);
  /* the long read is one run: its 255 edges appear on read-out */
  size_t n0, total0;
  assert_int_equal (ftl_profile_edges (p, NULL, 0, &n0, &total0, &err), 0);
  assert_int_equal (total0, 255 + 1);   /* and 1:0 -> 2:0 before it */
  assert_int_equal (c.reads, 4);
  assert_true (c.memory_bytes > 0);
  ftl_profile_set_enabled (p, false);
  assert_false (ftl_profile_enabled (p));
  ftl_profile_record (p, 0, 1, 1, 0, 8192, 0);
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.reads, 4);
  ftl_profile_reset (p);
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.reads, 0);
  assert_int_equal (c.edges, 0);
  assert_true (c.memory_bytes > 0);
  size_t n, total;
  assert_int_equal (ftl_profile_edges (p, NULL, 0, &n, &total, &err), 0);
  assert_int_equal (total, 0);
  /* bad configurations say which field */
  struct ftl_profile_config bad = { .unit_bytes = 6000 };
  ftl_profile_t *q;
  assert_int_equal (ftl_profile_create (&bad, &q, &err), -EINVAL);
  assert_non_null (strstr (err.msg, "unit_bytes"));
  ftl_profile_destroy (p);
}

/* A scan in equal reads, each where the last ended, is one table entry
 * (written when the scan ends or is read out), expanded into its edges
 * between the reads (intra 0); 128 KiB reads add their runs (intra). */
static void
test_sequential_stretch (void **state)
{
  ftl_profile_t *p = make (0, 0, 0);
  ftl_error err = { "" };
  struct ftl_profile_counters c;
  for (uint64_t u = 0; u < 1000; u++)
    ftl_profile_record (p, 0, 1, 1, u * 8192, 8192, u);
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.transitions, 999);
  assert_int_equal (c.edges, 0);   /* nothing in the table yet */
  static struct ftl_profile_edge e[2000];
  size_t n, total;
  assert_int_equal (ftl_profile_edges (p, e, 2000, &n, &total, &err), 0);
  assert_int_equal (total, 999);
  for (size_t i = 0; i < n; i++)
    {
      assert_int_equal (e[i].to.unit, e[i].from.unit + 1);
      assert_int_equal (e[i].weight, 1);
      assert_int_equal (e[i].intra_weight, 0);
    }
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.edges, 1);   /* flushed by the read-out */
  /* a second scan of the object in 128 KiB reads, another stream: runs of
   * 16 units (intra) and one stretch of stride 16 */
  ftl_profile_reset (p);
  for (uint64_t k = 0; k < 50; k++)
    ftl_profile_record (p, 1, 1, 1, k * 131072, 131072, k);
  ftl_profile_record (p, 1, 1, 1, 0, 8192, 50);   /* breaks the stretch */
  assert_int_equal (ftl_profile_edges (p, e, 2000, &n, &total, &err), 0);
  /* 50 x 15 inside reads, 49 between them, 799 -> 0 at the end */
  assert_int_equal (total, 50 * 15 + 49 + 1);
  uint64_t intra = 0, inter = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (e[i].to.unit == 0)
        {
          assert_int_equal (e[i].from.unit, 799);
          continue;
        }
      assert_int_equal (e[i].to.unit, e[i].from.unit + 1);
      if (e[i].intra_weight)
        intra++;
      else
        {
          assert_int_equal (e[i].to.unit % 16, 0);
          inter++;
        }
    }
  assert_int_equal (intra, 50 * 15);
  assert_int_equal (inter, 49);
  ftl_profile_destroy (p);
}

struct worker
{
  ftl_profile_t *p;
  uint32_t stream;
};

static void *
recorder (void *arg)
{
  struct worker *w = arg;
  for (uint64_t i = 0; i < 20000; i++)
    ftl_profile_record (w->p, w->stream, 1, w->stream, (i % 500) * 8192, 8192, i);
  return NULL;
}

static void
test_concurrent_streams (void **state)
{
  ftl_profile_t *p = make (0, 0, 0);
  pthread_t t[4];
  struct worker w[4];
  for (int i = 0; i < 4; i++)
    {
      w[i] = (struct worker) { p, (uint32_t) i };
      pthread_create (&t[i], NULL, recorder, &w[i]);
    }
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  struct ftl_profile_counters c;
  ftl_profile_get_counters (p, &c);
  assert_int_equal (c.reads, 80000);
  assert_int_equal (c.transitions, 4 * 19999);
  /* each thread: 0 -> 1 -> ... -> 499 -> 0 ... of its own object */
  size_t n, total;
  ftl_error err = { "" };
  assert_int_equal (ftl_profile_edges (p, NULL, 0, &n, &total, &err), 0);
  assert_int_equal (total, 4 * 500);
  ftl_profile_destroy (p);
}

/* a saved merged graph put back into a fresh profile merges to the same
 * edges, intra weights included; edges restored twice add up */
static void
test_restore_round_trip (void **state)
{
  struct ftl_profile_config c;
  ftl_profile_t *p, *q;
  ftl_error e = { "" };
  ftl_profile_config_defaults (&c);
  assert_int_equal (ftl_profile_create (&c, &p, &e), 0);
  assert_int_equal (ftl_profile_create (&c, &q, &e), 0);
  ftl_profile_set_enabled (p, true);
  /* a scan in 16 KiB reads, a jump, reads of two objects by two streams */
  for (uint64_t off = 0; off < 40 * 8192; off += 16384)
    ftl_profile_record (p, 0, 1, 2, off, 16384, off);
  ftl_profile_record (p, 0, 1, 2, 100 * 8192, 8192, 1);
  ftl_profile_record (p, 1, 1, 3, 0, 24576, 2);
  ftl_profile_record (p, 1, 1, 2, 8192, 8192, 3);
  size_t n, total, m, mt, restored;
  assert_int_equal (ftl_profile_edges (p, NULL, 0, &n, &total, &e), 0);
  struct ftl_profile_edge *a = calloc (total, sizeof *a), *b = calloc (total, sizeof *b);
  assert_int_equal (ftl_profile_edges (p, a, total, &n, &total, &e), 0);
  assert_int_equal (ftl_profile_restore (q, 0, a, n, &restored, &e), 0);
  assert_int_equal (restored, n);
  assert_int_equal (ftl_profile_edges (q, b, total, &m, &mt, &e), 0);
  assert_int_equal (mt, total);
  for (size_t i = 0; i < n; i++)
    {
      assert_int_equal (b[i].from.oid, a[i].from.oid);
      assert_int_equal (b[i].from.unit, a[i].from.unit);
      assert_int_equal (b[i].to.oid, a[i].to.oid);
      assert_int_equal (b[i].to.unit, a[i].to.unit);
      assert_int_equal (b[i].weight, a[i].weight);
      assert_int_equal (b[i].intra_weight, a[i].intra_weight);
    }
  struct ftl_profile_counters pc;
  ftl_profile_get_counters (q, &pc);
  assert_int_equal (pc.reads, 0);   /* no read happened */
  assert_int_equal (ftl_profile_restore (q, 0, a, n, &restored, &e), 0);
  assert_int_equal (ftl_profile_edges (q, b, total, &m, &mt, &e), 0);
  assert_int_equal (b[0].weight, 2 * a[0].weight);
  assert_int_equal (ftl_profile_restore (q, 99, a, n, &restored, &e), -EINVAL);
  free (a);
  free (b);
  ftl_profile_destroy (p);
  ftl_profile_destroy (q);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_edges_and_merge),
    cmocka_unit_test (test_ring_wraps),
    cmocka_unit_test (test_aging_keeps_heavy_edges),
    cmocka_unit_test (test_bounds_enable_reset),
    cmocka_unit_test (test_sequential_stretch),
    cmocka_unit_test (test_concurrent_streams),
    cmocka_unit_test (test_restore_round_trip),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
