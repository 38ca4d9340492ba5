/* test_autoplan.c - the drive's automatic relocation policy
 * (device/device_autoplan.c, docs/sofs.md) under an injected clock: an
 * object written scattered and read sequentially is planned and queued
 * only once the host has been quiet for idle_ms and only if the plan's
 * modelled gain is above the threshold; the same evidence is not planned
 * twice; a plan already applied is skipped; off means nothing happens.
 * The policy's idle time is set to an hour so the drive's own thread
 * (which ticks with the real clock) never fires during the test: every
 * evaluation below is one the test made with its virtual "now". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "device_internal.h"

#define PID 5
#define OID 9
#define OID2 10
#define UNITS 128
#define UNIT 8192
#define HOUR_MS 3600000u

static ossd_device_t *
open_drive (void)
{
  struct ossd_device_options o;
  ossd_device_options_init (&o);
  o.capacity_bytes = 256ull << 20;
  o.volume_bytes = 1ull << 20;
  o.slots = 4;
  o.auto_relocate = true;
  o.auto_relocate_idle_ms = HOUR_MS;
  o.auto_relocate_min_gain_pct = 20;
  ossd_device_t *d;
  char why[300];
  if (ossd_device_open (&o, &d, why, sizeof why) < 0)
    fail_msg ("open: %s", why);
  return d;
}

static void
write_scattered (ossd_device_t *d, uint64_t oid)
{
  ftl_t *f = ossd_device_ftl (d);
  ftl_error e = { "" };
  static uint8_t buf[UNIT];
  assert_int_equal (ftl_create_object (f, PID, oid, &e), 0);
  for (uint32_t i = 0; i < UNITS; i++)
    {
      uint64_t u = (i * 37u) % UNITS;
      memset (buf, (int) (u + oid), sizeof buf);
      assert_int_equal (ftl_write (f, PID, oid, u * UNIT, buf, UNIT, &e), 0);
      assert_int_equal (ftl_write (f, PID, 99, (uint64_t) i * 4096, buf, 4096, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
}

static void
scan (ossd_device_t *d, uint64_t oid)
{
  for (uint64_t off = 0; off < (uint64_t) UNITS * UNIT; off += 2 * UNIT)
    device_profile_read (d, 1, PID, oid, off, 2 * UNIT);
}

static struct device_autoplan_counters
counters (ossd_device_t *d)
{
  struct device_autoplan_counters c;
  device_autoplan_counters (d, &c);
  return c;
}

static void
wait_jobs_done (ossd_device_t *d)
{
  struct device_relocate_counters rc;
  /* the relocator steps while no command arrives: none does here */
  for (int i = 0; i < 60000; i++)
    {
      device_relocate_counters (d, &rc);
      if (rc.jobs_pending == 0)
        return;
      usleep (1000);
    }
  fail_msg ("relocation did not finish");
}

static void
test_fires_when_idle_above_threshold (void **state)
{
  ossd_device_t *d = open_drive ();
  ftl_error e = { "" };
  char why[200];
  ftl_t *f = ossd_device_ftl (d);
  assert_int_equal (ftl_create_partition (f, PID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, 99, &e), 0);
  write_scattered (d, OID);
  scan (d, OID);
  uint64_t host = device_now_ms ();
  atomic_store (&d->last_command_ms, host);   /* the host's last command */

  /* not idle long enough: nothing */
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS - 1), 0);
  assert_int_equal (counters (d).evaluations, 0);
  /* idle: the plan halves the modelled page reads, above 20 %: queued */
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  struct device_autoplan_counters c = counters (d);
  assert_int_equal (c.evaluations, 1);
  assert_int_equal (c.plans_considered, 1);
  assert_int_equal (c.plans_applied, 1);
  assert_int_equal (c.units_queued, UNITS);
  assert_true (c.last_gain_permille > 200);
  struct device_relocate_counters rc;
  device_relocate_counters (d, &rc);
  assert_int_equal (rc.jobs_queued, 1);
  /* no new evidence: not evaluated again however long the quiet */
  assert_int_equal (device_autoplan_tick (d, host + 10 * HOUR_MS), 0);
  wait_jobs_done (d);
  device_relocate_counters (d, &rc);
  assert_int_equal (rc.jobs_done, 1);
  assert_int_equal (rc.units_done, UNITS);

  /* the same scan again: new evidence, the same plan: already applied */
  scan (d, OID);
  host = device_now_ms ();
  atomic_store (&d->last_command_ms, host);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  c = counters (d);
  assert_int_equal (c.plans_applied, 1);
  assert_int_equal (c.skipped_already_applied, 1);
  /* the ledger forgotten (as FORMAT does): the layout is the plan now */
  device_autoplan_forget (d);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  c = counters (d);
  assert_int_equal (c.plans_applied, 1);
  assert_int_equal (c.skipped_layout_matches, 1);

  /* a second scattered object under a 99 % bar: below the threshold */
  assert_int_equal (device_autoplan_configure (d, true, 0, 99, why, sizeof why), 0);
  write_scattered (d, OID2);
  scan (d, OID2);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  c = counters (d);
  assert_int_equal (c.min_gain_pct, 99);
  assert_int_equal (c.plans_applied, 1);
  assert_int_equal (c.skipped_below_threshold, 1);
  /* a bar above 100 % is refused */
  assert_int_equal (device_autoplan_configure (d, true, 0, 101, why, sizeof why), -EINVAL);
  /* off: never, whatever the evidence */
  assert_int_equal (device_autoplan_configure (d, false, 0, 0, why, sizeof why), 0);
  scan (d, OID2);
  assert_int_equal (device_autoplan_tick (d, host + 100 * HOUR_MS), 0);
  assert_int_equal (counters (d).enabled, 0);
  /* on again with a 20 % bar: OID2 goes, OID stays */
  assert_int_equal (device_autoplan_configure (d, true, HOUR_MS, 20, why, sizeof why), 0);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  c = counters (d);
  assert_int_equal (c.plans_applied, 2);
  wait_jobs_done (d);
  ossd_device_close (d);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fires_when_idle_above_threshold),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
