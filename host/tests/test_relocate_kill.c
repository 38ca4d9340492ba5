/* test_relocate_kill.c - kill -9 of a drive in the middle of its background
 * relocation (docs/sofs.md) loses nothing.  A forked child runs an
 * in-process drive on a file image (inproc:IMAGE): it writes an object
 * scattered (its 8 KiB units out of order, another object's 4 KiB between
 * them), flushes, scans it in 16 KiB reads (the profile), has the drive
 * plan and relocate it (PROFILE APPLY), and reports the relocation's
 * progress from PROFILE SHOW; the parent kills it with SIGKILL as soon as
 * some but not all units have moved.  The image opened again (crash
 * recovery) holds both objects byte for byte and FSCK finds nothing; the
 * profile and the queued plan were kept in the image (saved at APPLY,
 * device_persist.c): the edges are back, the job resumes and finishes, the
 * bytes are still the same, and APPLY again moves nothing (the ledger of
 * applied plans survived too) -- also after a clean restart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "libossd.h"

#define PID 9
#define OID 1
#define OTHER 2
#define UNITS 4096           /* 32 MiB of 8 KiB units */
#define UNIT 8192

struct shared
{
  volatile uint64_t queued, done;
  volatile int ready;         /* 1: relocation queued */
  char err[300];
};

static uint8_t
byte_of (uint64_t oid, uint64_t off)
{
  uint64_t x = (off >> 3) * 2654435761u ^ oid * 1315423911u;
  return (uint8_t) (x ^ (x >> 11) ^ off);
}

static void
fill (uint8_t *b, size_t n, uint64_t oid, uint64_t off)
{
  for (size_t i = 0; i < n; i++)
    b[i] = byte_of (oid, off + i);
}

static Ossd__Response *
profile (ossd_t *o, Ossd__ProfileAction a, ossd_error *err)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Response *resp = NULL;
  pr.action = a;
  pr.max_reads = 1;
  pr.max_edges = 1;
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  return ossd_call (o, &req, &resp, err) < 0 ? NULL : resp;
}

static uint64_t
counter (const Ossd__ProfileResult *p, const char *k)
{
  for (size_t i = 0; i < p->n_counters; i++)
    if (strcmp (p->counters[i]->key, k) == 0)
      return p->counters[i]->value;
  return 0;
}

#define CHILD_FAIL(...) do { snprintf (sh->err, sizeof sh->err, __VA_ARGS__); _exit (1); } while (0)

static void
child (const char *uri, struct shared *sh)
{
  ossd_t *o;
  ossd_error err;
  static uint8_t buf[16384];
  if (ossd_connect (uri, NULL, &o, &err) < 0)
    CHILD_FAIL ("connect: %s", err.msg);
  if (ossd_create_partition (o, PID, &err) < 0 || ossd_create (o, PID, OID, &err) < 0
      || ossd_create (o, PID, OTHER, &err) < 0)
    CHILD_FAIL ("create: %s", err.msg);
  for (uint64_t k = 0; k < UNITS; k++)
    {
      uint64_t u = (k * 1237) % UNITS;   /* 1237 is prime to 4096 */
      fill (buf, UNIT, OID, u * UNIT);
      if (ossd_write (o, PID, OID, u * UNIT, buf, UNIT, &err) < 0)
        CHILD_FAIL ("write: %s", err.msg);
      fill (buf, 4096, OTHER, k * 4096);
      if (ossd_write (o, PID, OTHER, k * 4096, buf, 4096, &err) < 0)
        CHILD_FAIL ("write: %s", err.msg);
    }
  if (ossd_flush (o, &err) < 0)
    CHILD_FAIL ("flush: %s", err.msg);
  Ossd__Response *r = profile (o, OSSD__PROFILE_ACTION__PROFILE_RESET, &err);
  if (!r)
    CHILD_FAIL ("PROFILE RESET: %s", err.msg);
  ossd__response__free_unpacked (r, NULL);
  size_t got;
  for (uint64_t off = 0; off < (uint64_t) UNITS * UNIT; off += 16384)
    if (ossd_read (o, PID, OID, off, buf, 16384, &got, &err) < 0)
      CHILD_FAIL ("read: %s", err.msg);
  if (!(r = profile (o, OSSD__PROFILE_ACTION__PROFILE_APPLY, &err)))
    CHILD_FAIL ("PROFILE APPLY: %s", err.msg);
  sh->queued = counter (r->profile, "units_queued");
  ossd__response__free_unpacked (r, NULL);
  sh->ready = 1;
  /* progress, polled slowly: each command holds relocation off 20 ms */
  for (;;)
    {
      usleep (22000);
      if (!(r = profile (o, OSSD__PROFILE_ACTION__PROFILE_SHOW, &err)))
        CHILD_FAIL ("PROFILE SHOW: %s", err.msg);
      sh->done = counter (r->profile, "relocation_units_done");
      ossd__response__free_unpacked (r, NULL);
    }
}

static void check_both (ossd_t *o);
static void expect_apply_moves_nothing (ossd_t *o);
static void fsck_clean (ossd_t *o);

static void
test_kill9_mid_relocation (void **state)
{
  char path[256], uri[400];
  const char *dir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  snprintf (path, sizeof path, "%s/relocate-kill-%d.img", dir, (int) getpid ());
  snprintf (uri, sizeof uri, "inproc:%s?create=1&size=256M&volume=1M&slots=4", path);
  struct shared *sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  assert_true (sh != MAP_FAILED);
  memset (sh, 0, sizeof *sh);
  pid_t pid = fork ();
  if (pid == 0)
    child (uri, sh);
  /* kill as soon as some, not all, units have moved */
  for (int waited = 0; !(sh->ready && sh->done > 0) && waited < 120000; waited++)
    {
      if (waitpid (pid, NULL, WNOHANG) == pid)
        fail_msg ("the drive process stopped on its own: %s", sh->err);
      usleep (500);
    }
  kill (pid, SIGKILL);
  int st;
  waitpid (pid, &st, 0);
  uint64_t done = sh->done, queued = sh->queued;
  if (!WIFSIGNALED (st))
    fail_msg ("the drive process exited on its own: %s", sh->err);
  print_message ("killed after %llu of %llu units relocated\n",
                 (unsigned long long) done, (unsigned long long) queued);
  assert_int_equal (queued, UNITS);
  assert_true (done > 0);
  assert_true (done < queued);

  /* the drive again on the image: crash recovery, then every byte */
  ossd_t *o;
  ossd_error err;
  snprintf (uri, sizeof uri, "inproc:%s", path);
  if (ossd_connect (uri, NULL, &o, &err) < 0)
    fail_msg ("reopen: %s", err.msg);
  /* the test's own reads are not to teach the planner anything new */
  Ossd__Response *r = profile (o, OSSD__PROFILE_ACTION__PROFILE_DISABLE, &err);
  assert_non_null (r);
  ossd__response__free_unpacked (r, NULL);
  check_both (o);
  /* the profile and the plan came back with the image */
  r = profile (o, OSSD__PROFILE_ACTION__PROFILE_SHOW, &err);
  assert_non_null (r);
  assert_true (counter (r->profile, "persist_restored_edges") > 0);
  assert_int_equal (counter (r->profile, "persist_restored_jobs"), 1);
  assert_int_equal (counter (r->profile, "persist_restored_plans"), 1);
  assert_int_equal (counter (r->profile, "persist_lost"), 0);
  ossd__response__free_unpacked (r, NULL);
  /* the resumed job finishes (polled slowly: a command holds it off) */
  uint64_t pending = 1, jobs_done = 0;
  for (int i = 0; i < 4000 && pending; i++)
    {
      usleep (30000);
      r = profile (o, OSSD__PROFILE_ACTION__PROFILE_SHOW, &err);
      assert_non_null (r);
      pending = counter (r->profile, "relocation_jobs_pending");
      jobs_done = counter (r->profile, "relocation_jobs_done");
      ossd__response__free_unpacked (r, NULL);
    }
  assert_int_equal (pending, 0);
  assert_int_equal (jobs_done, 1);
  check_both (o);
  expect_apply_moves_nothing (o);
  fsck_clean (o);
  ossd_disconnect (o);

  /* a clean restart: the profile and the ledger again, no job left */
  if (ossd_connect (uri, NULL, &o, &err) < 0)
    fail_msg ("reopen: %s", err.msg);
  r = profile (o, OSSD__PROFILE_ACTION__PROFILE_DISABLE, &err);
  assert_non_null (r);
  ossd__response__free_unpacked (r, NULL);
  r = profile (o, OSSD__PROFILE_ACTION__PROFILE_SHOW, &err);
  assert_non_null (r);
  assert_true (counter (r->profile, "persist_restored_edges") > 0);
  assert_int_equal (counter (r->profile, "persist_restored_jobs"), 0);
  assert_int_equal (counter (r->profile, "persist_restored_plans"), 1);
  ossd__response__free_unpacked (r, NULL);
  expect_apply_moves_nothing (o);
  check_both (o);
  ossd_disconnect (o);
  munmap (sh, sizeof *sh);
  unlink (path);
  char key[300];
  snprintf (key, sizeof key, "%s.key", path);
  unlink (key);
}

static void
check_both (ossd_t *o)
{
  ossd_error err;
  uint8_t *got = malloc ((size_t) UNITS * UNIT), *want = malloc ((size_t) UNITS * UNIT);
  size_t n;
  assert_int_equal (ossd_read (o, PID, OID, 0, got, (size_t) UNITS * UNIT, &n, &err), 0);
  assert_int_equal (n, (size_t) UNITS * UNIT);
  fill (want, n, OID, 0);
  for (size_t u = 0; u < UNITS; u++)
    if (memcmp (got + u * UNIT, want + u * UNIT, UNIT) != 0)
      fail_msg ("object %d:%d unit %zu differs after the crash", PID, OID, u);
  assert_int_equal (ossd_read (o, PID, OTHER, 0, got, (size_t) UNITS * 4096, &n, &err), 0);
  fill (want, n, OTHER, 0);
  assert_int_equal (n, (size_t) UNITS * 4096);
  assert_memory_equal (got, want, n);
  free (got);
  free (want);
}

static void
expect_apply_moves_nothing (ossd_t *o)
{
  ossd_error err;
  Ossd__Response *r = profile (o, OSSD__PROFILE_ACTION__PROFILE_APPLY, &err);
  if (!r)
    fail_msg ("PROFILE APPLY: %s", err.msg);
  assert_int_equal (counter (r->profile, "objects_planned"), 0);
  assert_int_equal (counter (r->profile, "objects_skipped_already_applied"), 1);
  ossd__response__free_unpacked (r, NULL);
}

static void
fsck_clean (ossd_t *o)
{
  ossd_error err;
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Fsck fk = OSSD__FSCK__INIT;
  Ossd__Response *resp = NULL;
  req.body_case = OSSD__REQUEST__BODY_FSCK;
  req.fsck = &fk;
  if (ossd_call (o, &req, &resp, &err) < 0)
    fail_msg ("FSCK: %s", err.msg);
  if (resp->fsck->problems)
    fail_msg ("FSCK: %llu problems, first: %s", (unsigned long long) resp->fsck->problems,
              resp->fsck->first_problem);
  ossd__response__free_unpacked (resp, NULL);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kill9_mid_relocation),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
