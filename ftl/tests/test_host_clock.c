/* test_host_clock.c - ftl_host_clock / ftl_set_host_clock (for simulators
 * of many drives on one time line, bench/fusionraid): a request starts at
 * the clock it was given and its latency is the clock after minus that;
 * a request set earlier than a previous one's completion overlaps it on
 * another die, and waits for it on the same die; a later one finds the
 * drive idle. */
#include "ftl_test_util.h"

static void
test_host_clock (void **state)
{
  struct ftl_config c;
  small_config (&c);
  ftl_config_defaults (&c, "default", NULL);   /* FEMU-like timing, unpaced */
  c.channels = 2;
  c.ways = 2;
  c.blocks_per_plane = 32;
  c.pages_per_block = 32;
  c.over_provisioning = 0.25;
  ftl_t *f = NULL;
  ftl_error e = { "" };
  assert_int_equal (ftl_format ("none:", &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  assert_int_equal (ftl_create_object (f, 1, 1, &e), 0);
  static uint8_t buf[1 << 16];
  /* 4 pages: striped over the dies by the write stream */
  assert_int_equal (ftl_write (f, 1, 1, 0, buf, sizeof buf, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  uint64_t t0 = st.virtual_time_ns + 1000000;   /* every die idle by then */
  size_t got;
  /* idle drive: one 4 KiB read takes the read time and the transfer */
  ftl_set_host_clock (f, t0);
  assert_int_equal (ftl_host_clock (f), t0);
  assert_int_equal (ftl_read (f, 1, 1, 0, buf, 4096, &got, &e), 0);
  uint64_t lat1 = ftl_host_clock (f) - t0;
  assert_true (lat1 >= 40000 && lat1 < 200000);
  /* the same page again at the same arrival: waits for its die */
  ftl_set_host_clock (f, t0);
  assert_int_equal (ftl_read (f, 1, 1, 0, buf, 4096, &got, &e), 0);
  uint64_t lat2 = ftl_host_clock (f) - t0;
  assert_true (lat2 > lat1);
  /* another page (another die) at that arrival overlaps: no wait */
  ftl_set_host_clock (f, t0 + 10000000);
  assert_int_equal (ftl_read (f, 1, 1, 0, buf, 4096, &got, &e), 0);
  uint64_t t1 = t0 + 10000000;
  ftl_set_host_clock (f, t1);
  assert_int_equal (ftl_read (f, 1, 1, 16384, buf, 4096, &got, &e), 0);
  uint64_t lat3 = ftl_host_clock (f) - t1;
  assert_true (lat3 < lat2);
  ftl_close (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_host_clock),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
