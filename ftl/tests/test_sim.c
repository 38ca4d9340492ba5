/* test_sim.c - the metadata-only backend ("none:") used by bench/ftl-sim:
 * no data stored, reads return zeros, statistics and timing still
 * modelled; random 4 KiB writes/reads per wall-clock second and memory
 * per simulated GiB are printed (the simulator's target is >= 1 M ops/s in
 * FTL_MAP_RAM mode; the assertion here is loose because test machines are
 * shared). */
#include <sys/resource.h>
#include <time.h>

#include "ftl_test_util.h"

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long
rss_kib (void)
{
  FILE *fp = fopen ("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (fp)
    {
      if (fscanf (fp, "%ld %ld", &pages, &rss) != 2)
        rss = 0;
      fclose (fp);
    }
  return rss * (sysconf (_SC_PAGESIZE) / 1024);
}

static void
test_none_backend_rate (void **state)
{
  struct ftl_config c;
  ftl_error e = { "" };
  assert_int_equal (ftl_config_defaults (&c, NULL, &e), 0);
  c.over_provisioning = 0.15;
  assert_int_equal (ftl_config_set_capacity (&c, 4ull << 30, &e), 0);
  long rss0 = rss_kib ();
  ftl_t *f;
  assert_int_equal (ftl_format ("none:", &c, &f, &e), 0);
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_string_equal (di.backend, "none");
  uint64_t n = di.capacity_bytes / 4096 * 9 / 10;
  static uint8_t buf[4096];
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  for (uint64_t s = 0; s < n; s++)
    assert_int_equal (ftl_write (f, 0, 1, s * 4096, buf, 4096, &e), 0);
  long rss1 = rss_kib ();
  uint64_t x = 88172645463325252ull, ops = 2000000;
  ftl_reset_stats (f);
  double t0 = now_s ();
  for (uint64_t i = 0; i < ops; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      assert_int_equal (ftl_write (f, 0, 1, (x % n) * 4096, buf, 4096, &e), 0);
    }
  double tw = now_s () - t0;
  size_t got;
  t0 = now_s ();
  for (uint64_t i = 0; i < ops; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      assert_int_equal (ftl_read (f, 0, 1, (x % n) * 4096, buf, 4096, &got,
                                  &e), 0);
    }
  double tr = now_s () - t0;
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  fprintf (stderr, "# none backend, 4 GiB RAM-mapped: %.2f M random writes/s,"
           " %.2f M reads/s, WAF %.2f, %.1f MiB RSS per simulated GiB\n",
           ops / tw / 1e6, ops / tr / 1e6, st.waf,
           (double) (rss1 - rss0) / 1024.0
           / ((double) di.capacity_bytes / (1 << 30)));
  /* the rate is reported above, not asserted: no timing checks in tests */
  assert_true (st.gc_runs > 0);
  expect_fsck_clean (f);
  ftl_close (f);
  assert_int_equal (ftl_open ("none:", &f, &e), -EINVAL);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_none_backend_rate),
  };
  return cmocka_run_group_tests_name ("ftl_sim", tests, NULL, NULL);
}
