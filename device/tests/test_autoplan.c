/* test_autoplan.c - the drive's automatic relocation policy
 * (device/device_autoplan.c, docs/sofs.md) under an injected clock: an
 * object written scattered and read sequentially is planned and queued
 * only once the host has been quiet for idle_ms and only if the plan's
 * modelled gain is above the threshold; the same evidence is not planned
 * twice; a plan already applied is skipped; off means nothing happens.
 * The policy's idle time is set to an hour so the drive's own thread
 * (which ticks with the real clock) never fires during the test: every
 * evaluation below is one the test made with its virtual "now".
 * Persistence (device_persist.c): on a file image the profile and the
 * ledger come back after a clean close; a record torn in both slots
 * (scribbled over in the image while the drive is down) is reported lost
 * and the drive starts with its data intact.  An idle drive on an image
 * (whose relocator thread stays to keep the profile) sleeps between its
 * polls: it once spun on a deadline its condition variable read on the
 * wrong clock. */
#include <fcntl.h>
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

/* A drive image of this test in $TMPDIR (or /tmp), and its key beside it. */
static void
image_paths (char *path, size_t pathlen, char *key, size_t keylen,
             const char *what)
{
  const char *dir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  snprintf (path, pathlen, "%s/autoplan-%s-%d.img", dir, what, (int) getpid ());
  snprintf (key, keylen, "%s.key", path);
}

static void
remove_image (const char *path, const char *key)
{
  unlink (path);
  unlink (key);
}

static ossd_device_t *
open_drive_on (const char *image)
{
  struct ossd_device_options o;
  ossd_device_options_init (&o);
  o.image = image;
  o.create = true;
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

static ossd_device_t *
open_drive (void)
{
  return open_drive_on (NULL);
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

static void
scribble (const char *path, uint64_t off)
{
  int fd = open (path, O_WRONLY);
  assert_true (fd >= 0);
  uint8_t junk[64];
  memset (junk, 0x5a, sizeof junk);
  assert_int_equal (pwrite (fd, junk, sizeof junk, (off_t) off), (ssize_t) sizeof junk);
  close (fd);
}

static void
test_profile_survives_restart (void **state)
{
  char path[256], key[300];
  image_paths (path, sizeof path, key, sizeof key, "persist");
  ossd_device_t *d = open_drive_on (path);
  ftl_error e = { "" };
  assert_int_equal (ftl_create_partition (ossd_device_ftl (d), PID, &e), 0);
  assert_int_equal (ftl_create_object (ossd_device_ftl (d), PID, 99, &e), 0);
  write_scattered (d, OID);
  scan (d, OID);
  size_t n, total;
  assert_int_equal (ftl_profile_edges (d->profile, NULL, 0, &n, &total, &e), 0);
  assert_true (total > 0);
  uint64_t host = device_now_ms ();
  atomic_store (&d->last_command_ms, host);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  assert_int_equal (counters (d).plans_applied, 1);
  wait_jobs_done (d);
  ossd_device_close (d);

  /* a clean restart: the same edges, the ledger (the plan is not queued
   * again), the policy evaluates once more and skips it */
  d = open_drive_on (path);
  struct device_persist_counters pc;
  device_persist_counters (d, &pc);
  assert_int_equal (pc.active, 1);
  assert_int_equal (pc.restored_edges, total);
  assert_int_equal (pc.restored_plans, 1);
  assert_int_equal (pc.lost, 0);
  size_t total2;
  assert_int_equal (ftl_profile_edges (d->profile, NULL, 0, &n, &total2, &e), 0);
  assert_int_equal (total2, total);
  host = device_now_ms ();
  atomic_store (&d->last_command_ms, host);
  assert_int_equal (device_autoplan_tick (d, host + HOUR_MS), 1);
  assert_int_equal (counters (d).plans_applied, 0);
  assert_int_equal (counters (d).skipped_already_applied, 1);
  ossd_device_close (d);

  /* both slots torn: the profile is lost and said so; the data is not */
  scribble (path, (64u << 10) + 4096 + 8);
  scribble (path, (64u << 10) + (480u << 10) + 4096 + 8);
  d = open_drive_on (path);
  device_persist_counters (d, &pc);
  assert_int_equal (pc.lost, 1);
  assert_int_equal (pc.restored_edges, 0);
  assert_int_equal (ftl_profile_edges (d->profile, NULL, 0, &n, &total2, &e), 0);
  assert_int_equal (total2, 0);
  static uint8_t got[UNIT], want[UNIT];
  size_t got_n;
  for (uint64_t u = 0; u < UNITS; u++)
    {
      assert_int_equal (ftl_read (ossd_device_ftl (d), PID, OID, u * UNIT, got, UNIT, &got_n, &e), 0);
      memset (want, (int) (u + OID), sizeof want);
      assert_memory_equal (got, want, UNIT);
    }
  uint64_t problems = 0;
  assert_int_equal (ftl_fsck (ossd_device_ftl (d), &problems, &e), 0);
  ossd_device_close (d);
  /* the close saved a fresh record: the next start finds it intact */
  d = open_drive_on (path);
  device_persist_counters (d, &pc);
  assert_int_equal (pc.lost, 0);
  ossd_device_close (d);
  remove_image (path, key);
}

static double
process_cpu_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
test_idle_drive_sleeps (void **state)
{
  char path[256], key[300];
  image_paths (path, sizeof path, key, sizeof key, "idle");
  ossd_device_t *d = open_drive_on (path);
  struct device_persist_counters pc;
  device_persist_counters (d, &pc);
  assert_int_equal (pc.active, 1);        /* so the thread stays */
  double cpu0 = process_cpu_s ();
  usleep (1000 * 1000);
  double used = process_cpu_s () - cpu0;
  ossd_device_close (d);
  remove_image (path, key);
  /* five 200 ms polls cost microseconds; a spinning thread a whole second */
  if (used > 0.25)
    fail_msg ("an idle drive used %.2f s of CPU in 1 s", used);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fires_when_idle_above_threshold),
    cmocka_unit_test (test_profile_survives_restart),
    cmocka_unit_test (test_idle_drive_sleeps),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
