/* test_qos.c - object priorities (device/device_qos.c, docs/qos.md): a
 * scan worker waits only while higher-priority flash work is in flight,
 * never past its bound, never with qos=off; the priority attribute's
 * values are checked; an object's priority is kept by the FTL across a
 * restart and falls back to the default when removed.  No timing
 * assertions: every wait below ends by an event the test controls or by
 * the bound, and the counters say which. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "device_internal.h"

static uint64_t
yields (ossd_device_t *d)
{
  return atomic_load (&d->qos.yields);
}

static uint64_t
bound_hits (ossd_device_t *d)
{
  return atomic_load (&d->qos.bound_hits);
}

struct ender
{
  ossd_device_t *dev;
  unsigned prio;
};

/* Ends the other priority's work once the yielding worker is waiting. */
static void *
end_later (void *arg)
{
  struct ender *e = arg;
  struct timespec t = { 0, 2000000 };
  nanosleep (&t, NULL);
  device_qos_end (e->dev, e->prio);
  return NULL;
}

static void
test_yield_semantics (void **state)
{
  ossd_device_t *d = calloc (1, sizeof *d);
  assert_non_null (d);
  d->opts.qos_defer_us = 1000;

  /* nothing in flight, or only the same or a lower priority: no wait */
  device_qos_yield (d, 4);
  device_qos_begin (d, 4);
  device_qos_begin (d, 2);
  device_qos_yield (d, 4);
  device_qos_yield (d, FTL_PRIORITY_MAX);
  assert_int_equal (yields (d), 0);
  device_qos_end (d, 4);
  device_qos_end (d, 2);

  /* higher work that never ends: the wait stops at the bound */
  device_qos_begin (d, 6);
  device_qos_yield (d, 4);
  assert_int_equal (yields (d), 1);
  assert_int_equal (bound_hits (d), 1);
  /* ... and a worker at that priority or above does not wait */
  device_qos_yield (d, 6);
  assert_int_equal (yields (d), 1);

  /* qos=off: counted, never waited for */
  d->opts.qos_off = true;
  device_qos_yield (d, 0);
  assert_int_equal (yields (d), 1);
  d->opts.qos_off = false;

  /* the higher work ends while the worker waits: it goes on then, long
   * before a bound of 100 s */
  d->opts.qos_defer_us = 100000000;
  struct ender e = { d, 6 };
  pthread_t th;
  assert_int_equal (pthread_create (&th, NULL, end_later, &e), 0);
  device_qos_yield (d, 4);
  pthread_join (th, NULL);
  assert_int_equal (yields (d), 2);
  assert_int_equal (bound_hits (d), 1);
  assert_true (atomic_load (&d->qos.yield_ns) > 0);

  /* out-of-range priorities count as the highest */
  device_qos_begin (d, 200);
  assert_int_equal (atomic_load (&d->qos.inflight[FTL_PRIORITY_MAX]), 1);
  device_qos_end (d, 200);
  for (unsigned p = 0; p <= FTL_PRIORITY_MAX; p++)
    assert_int_equal (atomic_load (&d->qos.inflight[p]), 0);
  free (d);
}

static void
test_priority_attribute_values (void **state)
{
  char why[160] = "";
  uint8_t v[2] = { 0, 0 };
  Ossd__Attribute a = OSSD__ATTRIBUTE__INIT;
  a.page = FTL_ATTR_PAGE_HINTS;
  a.number = FTL_ATTR_HINT_PRIORITY;
  a.value.data = v;
  for (unsigned p = 0; p <= FTL_PRIORITY_MAX; p++)
    {
      v[0] = (uint8_t) p;
      a.value.len = 1;
      assert_int_equal (device_qos_check_attr (&a, why, sizeof why), 0);
    }
  a.value.len = 0;              /* removal: the default again */
  assert_int_equal (device_qos_check_attr (&a, why, sizeof why), 0);
  v[0] = FTL_PRIORITY_MAX + 1;
  a.value.len = 1;
  assert_int_equal (device_qos_check_attr (&a, why, sizeof why), -EINVAL);
  assert_non_null (strstr (why, "priority"));
  v[0] = 1;
  a.value.len = 2;
  assert_int_equal (device_qos_check_attr (&a, why, sizeof why), -EINVAL);
  /* another attribute of the hint page is not ours to check */
  a.number = FTL_ATTR_HINT_TEMPERATURE;
  v[0] = 200;
  assert_int_equal (device_qos_check_attr (&a, why, sizeof why), 0);
}

static ossd_device_t *
open_image (const char *image, bool create)
{
  struct ossd_device_options o;
  ossd_device_t *dev = NULL;
  char why[300];

  ossd_device_options_init (&o);
  o.image = image;
  o.create = create;
  o.capacity_bytes = 64ull << 20;
  o.volume_bytes = 1ull << 20;
  o.slots = 4;
  o.window_lbas = 4;
  if (ossd_device_open (&o, &dev, why, sizeof why) < 0)
    fail_msg ("open %s: %s", image, why);
  return dev;
}

static unsigned
priority_of (ossd_device_t *dev, uint64_t pid, uint64_t oid)
{
  struct ftl_object_info info;
  ftl_error fe = { "" };
  assert_int_equal (ftl_stat_object (ossd_device_ftl (dev), pid, oid, &info, &fe), 0);
  return info.priority;
}

static void
test_priority_kept_by_the_ftl (void **state)
{
  char dir[] = "/tmp/ossd-test-qos.XXXXXX";
  char image[64];
  ftl_error fe = { "" };
  uint8_t six = 6;

  assert_non_null (mkdtemp (dir));
  snprintf (image, sizeof image, "%s/drive.img", dir);
  ossd_device_t *dev = open_image (image, true);
  ftl_t *f = ossd_device_ftl (dev);
  assert_int_equal (ftl_create_partition (f, 9, &fe), 0);
  assert_int_equal (ftl_create_object (f, 9, 1, &fe), 0);
  assert_int_equal (ftl_create_object (f, 9, 2, &fe), 0);
  assert_int_equal (priority_of (dev, 9, 1), FTL_PRIORITY_DEFAULT);
  assert_int_equal (ftl_set_attr (f, 9, 1, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY,
                                  &six, 1, &fe), 0);
  assert_int_equal (priority_of (dev, 9, 1), 6);
  assert_int_equal (priority_of (dev, 9, 2), FTL_PRIORITY_DEFAULT);
  assert_int_equal (ftl_flush (f, &fe), 0);
  ossd_device_close (dev);

  /* a restart: the attribute comes back, and the priority with it */
  dev = open_image (image, false);
  f = ossd_device_ftl (dev);
  assert_int_equal (priority_of (dev, 9, 1), 6);
  assert_int_equal (priority_of (dev, 9, 2), FTL_PRIORITY_DEFAULT);
  /* removed: the default again */
  assert_int_equal (ftl_set_attr (f, 9, 1, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY,
                                  NULL, 0, &fe), 0);
  assert_int_equal (priority_of (dev, 9, 1), FTL_PRIORITY_DEFAULT);
  ossd_device_close (dev);
  char cmd[96];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal (system (cmd), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_yield_semantics),
    cmocka_unit_test (test_priority_attribute_values),
    cmocka_unit_test (test_priority_kept_by_the_ftl),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
