/* test_monitor.c - the latency monitor and spike detector (raid/
 * raid_monitor.c): no spike on an even pool, a slow drive detected from
 * its completions, hysteresis between k_off and k_on, a stalled drive
 * detected from the age of its outstanding I/O alone, an avoided idle
 * drive given a fresh start after hold_ns, replica choice. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ossd_raid.h"

#define D 8
#define US 1000ull

static uint64_t now;

/* every drive completes n I/Os, drive `slow` taking lat_slow */
static void
feed (struct raid_monitor *m, int n, int slow, uint64_t lat, uint64_t lat_slow)
{
  for (int i = 0; i < n; i++)
    for (uint32_t d = 0; d < D; d++)
      {
        uint64_t l = (int) d == slow ? lat_slow : lat;
        raid_monitor_submit (m, d, now);
        raid_monitor_complete (m, d, now, now + l);
        now += 10 * US;
      }
}

static void
test_detect_and_hysteresis (void **state)
{
  struct raid_monitor_params p;
  struct raid_monitor *m;
  raid_monitor_defaults (&p);
  assert_int_equal (raid_monitor_create (D, &p, &m, NULL), 0);
  now = 1000000;
  feed (m, 50, -1, 200 * US, 0);
  for (uint32_t d = 0; d < D; d++)
    assert_false (raid_monitor_in_spike (m, d, now));
  assert_int_equal (raid_monitor_median (m) / US, 200);
  feed (m, 50, 5, 200 * US, 2000 * US);       /* 10x: a spike */
  assert_true (raid_monitor_in_spike (m, 5, now));
  assert_false (raid_monitor_in_spike (m, 4, now));
  assert_int_equal (raid_monitor_pick (m, 5, 4, now), 4);
  assert_int_equal (raid_monitor_pick (m, 4, 5, now), 4);
  feed (m, 50, 5, 200 * US, 600 * US);        /* 3x: between k_off, k_on */
  assert_true (raid_monitor_in_spike (m, 5, now));
  feed (m, 50, 5, 200 * US, 200 * US);
  assert_false (raid_monitor_in_spike (m, 5, now));
  assert_int_equal (raid_monitor_spikes (m, 5), 1);
  raid_monitor_destroy (m);
}

static void
test_stall_and_hold (void **state)
{
  struct raid_monitor_params p;
  struct raid_monitor *m;
  raid_monitor_defaults (&p);
  assert_int_equal (raid_monitor_create (D, &p, &m, NULL), 0);
  now = 1000000;
  feed (m, 20, -1, 100 * US, 0);
  /* drive 2 takes an I/O and completes nothing */
  uint64_t t0 = now;
  raid_monitor_submit (m, 2, t0);
  now += 300 * US;
  assert_false (raid_monitor_in_spike (m, 2, now));   /* under the floor */
  now += 500 * US;
  assert_true (raid_monitor_in_spike (m, 2, now));
  assert_int_equal (raid_monitor_outstanding (m, 2), 1);
  /* it completes very late: its EWMA stays high; avoided, it stays idle */
  raid_monitor_complete (m, 2, t0, now);
  for (int i = 0; i < 10; i++)
    {
      raid_monitor_submit (m, 2, now);
      raid_monitor_complete (m, 2, now, now + 3000 * US);
      now += 3000 * US;
    }
  now += 100 * US;
  assert_true (raid_monitor_in_spike (m, 2, now));
  now += p.hold_ns;
  assert_false (raid_monitor_in_spike (m, 2, now));
  assert_int_equal (raid_monitor_ewma (m, 2), raid_monitor_median (m));
  raid_monitor_destroy (m);
  p.k_off = p.k_on + 1;
  assert_int_equal (raid_monitor_create (D, &p, &m, NULL), -EINVAL);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_detect_and_hysteresis),
    cmocka_unit_test (test_stall_and_hold),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
