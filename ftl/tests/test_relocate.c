/* test_relocate.c - ftl_relocate (ossd_ftl.h, docs/sofs.md) on a file
 * image: an object written scattered (its 8 KiB units in random order,
 * interleaved with another object's) is laid out in a planned order; its
 * bytes, size and version stay, reads of units the plan put side by side
 * cost one NAND read, fsck stays clean; gaps start a page, holes and units
 * past the end are skipped.  Crash: a forked child relocates in small
 * steps and is killed with SIGKILL at three points; the reopened image
 * (crash recovery) holds both objects byte for byte and fsck is clean. */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ftl_test_util.h"

#define PID 1
#define OID 7
#define OTHER 8
#define UNITS 256            /* 2 MiB of 8 KiB units */
#define UNIT 8192

static void
write_scattered (ftl_t *f)
{
  ftl_error e = { "" };
  uint8_t buf[UNIT];
  uint32_t perm[UNITS];
  uint64_t x = 99;
  test_shuffle (perm, UNITS, &x);
  assert_int_equal (ftl_create_object (f, PID, OID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, OTHER, &e), 0);
  for (uint32_t i = 0; i < UNITS; i++)
    {
      fill_pattern (buf, UNIT, OID, (uint64_t) perm[i] * UNIT, 1);
      assert_int_equal (ftl_write (f, PID, OID, (uint64_t) perm[i] * UNIT, buf, UNIT, &e), 0);
      /* another object's 4 KiB between: pages mix the two */
      fill_pattern (buf, 4096, OTHER, (uint64_t) i * 4096, 1);
      assert_int_equal (ftl_write (f, PID, OTHER, (uint64_t) i * 4096, buf, 4096, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
}

/* 0 if both objects hold exactly what write_scattered wrote */
static int
check_bytes (ftl_t *f, char *why, size_t whylen)
{
  ftl_error e = { "" };
  static uint8_t got[UNITS * UNIT], want[UNITS * UNIT];
  size_t n;
  int r = ftl_read (f, PID, OID, 0, got, sizeof got, &n, &e);
  if (r < 0 || n != sizeof got)
    {
      snprintf (why, whylen, "read of %d:%d: %d %s (%zu bytes)", PID, OID, r, e.msg, n);
      return -1;
    }
  fill_pattern (want, sizeof want, OID, 0, 1);
  for (size_t u = 0; u < UNITS; u++)
    {
      uint8_t w[UNIT];
      fill_pattern (w, UNIT, OID, u * UNIT, 1);
      if (memcmp (got + u * UNIT, w, UNIT) != 0)
        {
          snprintf (why, whylen, "object %d:%d unit %zu differs", PID, OID, u);
          return -1;
        }
    }
  r = ftl_read (f, PID, OTHER, 0, got, UNITS * 4096, &n, &e);
  fill_pattern (want, UNITS * 4096, OTHER, 0, 1);
  if (r < 0 || n != UNITS * 4096 || memcmp (got, want, n) != 0)
    {
      snprintf (why, whylen, "object %d:%d differs (%d %s)", PID, OTHER, r, e.msg);
      return -1;
    }
  return 0;
}

static uint64_t
nand_reads_of (ftl_t *f, uint64_t off, size_t len)
{
  ftl_error e = { "" };
  static uint8_t buf[65536];
  struct ftl_stats st;
  size_t n;
  ftl_reset_stats (f);
  assert_int_equal (ftl_read (f, PID, OID, off, buf, len, &n, &e), 0);
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  return st.nand_reads;
}

/* the mapping and allocation policies a relocation must work under */
static void
config (struct ftl_config *c, int variant)
{
  small_config (c);
  if (variant == 1)
    {
      c->mapping_mode = FTL_MAP_DFTL_SPLIT;
      c->mapping_cache_fraction = 0.1;
      c->alloc_policy = FTL_ALLOC_INDEX_DATA;
    }
  else if (variant == 2)
    {
      c->mapping_mode = FTL_MAP_DFTL;
      c->alloc_policy = FTL_ALLOC_PER_OBJECT;
      c->max_open_blocks = 4;
      c->gc_policy = FTL_GC_COST_BENEFIT;
    }
}

static void
relocate_keeps_bytes (int variant)
{
  struct ftl_config c;
  config (&c, variant);
  char *path = tmp_image ("reloc");
  ftl_t *f;
  ftl_error e = { "" };
  char why[200];
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, PID, &e), 0);
  write_scattered (f);
  struct ftl_object_info before, after;
  assert_int_equal (ftl_stat_object (f, PID, OID, &before, &e), 0);
  /* scattered: a 16 KiB read of units 2k, 2k+1 takes two NAND pages or
   * more (a unit may straddle two, the other object's sectors between) */
  uint64_t scattered = 0;
  for (int k = 0; k < 8; k++)
    scattered += nand_reads_of (f, (uint64_t) k * 2 * UNIT, 2 * UNIT);
  assert_true (scattered >= 16);
  /* the plan: ascending, a gap after unit 0 (unit 1 starts a page), a
   * unit past the end, in steps of 10 */
  uint64_t order[UNITS + 2];
  size_t n = 0;
  order[n++] = 0;
  order[n++] = FTL_RELOCATE_GAP;
  for (uint64_t u = 1; u < UNITS; u++)
    order[n++] = u;
  order[n++] = UNITS + 100;
  size_t next = 0, calls = 0;
  while (next < n)
    {
      int r = ftl_relocate (f, PID, OID, order, n, UNIT, 10, &next, &e);
      if (r)
        fail_msg ("ftl_relocate: %d %s", r, e.msg);
      calls++;
    }
  assert_int_equal (calls, (n + 9) / 10);
  assert_int_equal (ftl_flush (f, &e), 0);
  if (check_bytes (f, why, sizeof why))
    fail_msg ("%s", why);
  assert_int_equal (ftl_stat_object (f, PID, OID, &after, &e), 0);
  assert_int_equal (after.size, before.size);
  assert_int_equal (after.version, before.version);
  assert_int_equal (after.mtime_ns, before.mtime_ns);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_int_equal (st.relocated_sectors, UNITS * 2);
  /* laid out as planned: units 2k+1, 2k+2 share a NAND page now */
  uint64_t packed = 0;
  for (int k = 0; k < 8; k++)
    packed += nand_reads_of (f, (uint64_t) (2 * k + 1) * UNIT, 2 * UNIT);
  assert_int_equal (packed, 8);
  expect_fsck_clean (f);
  /* errors name what is wrong */
  assert_int_equal (ftl_relocate (f, PID, 999, order, n, UNIT, 0, &next, &e), -ENOENT);
  assert_non_null (strstr (e.msg, "999"));
  assert_int_equal (ftl_relocate (f, PID, OID, order, n, 6000, 0, &next, &e), -EINVAL);
  /* and it all survives a clean close */
  ftl_close (f);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  if (check_bytes (f, why, sizeof why))
    fail_msg ("after reopen: %s", why);
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (path);
}

static void
test_relocate_keeps_bytes (void **state)
{
  relocate_keeps_bytes (0);
}

/* DFTL (split cache, index/data streams) and DFTL with per-object
 * streams and cost-benefit GC */
static void
test_relocate_keeps_bytes_dftl (void **state)
{
  relocate_keeps_bytes (1);
  relocate_keeps_bytes (2);
}

struct shared
{
  volatile uint64_t steps;
  char err[256];
};

static void
child_relocate (const char *path, struct shared *sh, uint64_t seed)
{
  ftl_t *f;
  ftl_error e = { "" };
  if (ftl_open (path, &f, &e) < 0)
    {
      snprintf (sh->err, sizeof sh->err, "open: %s", e.msg);
      _exit (1);
    }
  uint64_t order[UNITS];
  for (uint32_t i = 0; i < UNITS; i++)
    order[i] = i;
  for (;;)
    {
      /* a new random order each pass: the layout keeps changing */
      for (uint32_t i = UNITS; i > 1; i--)
        {
          uint32_t j = test_lcg (&seed) % i;
          uint64_t t = order[i - 1];
          order[i - 1] = order[j];
          order[j] = t;
        }
      size_t next = 0;
      while (next < UNITS)
        {
          int r = ftl_relocate (f, PID, OID, order, UNITS, UNIT, 4, &next, &e);
          if (r == -EAGAIN)
            r = ftl_idle (f, 50000000, &e);
          if (r < 0)
            {
              snprintf (sh->err, sizeof sh->err, "relocate: %s", e.msg);
              _exit (1);
            }
          if (sh->steps % 3 == 0)
            ftl_flush (f, &e);
          sh->steps++;
        }
    }
}

static void
test_relocate_kill9 (void **state)
{
  struct ftl_config c;
  config (&c, 1);   /* DFTL: mapping pages must survive too */
  char *path = tmp_image ("reloc-kill");
  ftl_t *f;
  ftl_error e = { "" };
  char why[200];
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, PID, &e), 0);
  write_scattered (f);
  ftl_close (f);
  struct shared *sh = mmap (NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  assert_true (sh != MAP_FAILED);
  static const uint64_t kill_after[] = { 3, 40, 150 };
  for (int k = 0; k < 3; k++)
    {
      sh->steps = 0;
      sh->err[0] = 0;
      pid_t pid = fork ();
      if (pid == 0)
        child_relocate (path, sh, 1000 + (uint64_t) k);
      for (int waited = 0; sh->steps < kill_after[k] && waited < 50000; waited++)
        {
          if (waitpid (pid, NULL, WNOHANG) == pid)
            fail_msg ("kill %d: the child stopped on its own: %s", k, sh->err);
          usleep (100);
        }
      kill (pid, SIGKILL);
      int st;
      waitpid (pid, &st, 0);
      if (!WIFSIGNALED (st))
        fail_msg ("kill %d: the child exited on its own: %s", k, sh->err);
      assert_true (sh->steps >= kill_after[k]);
      /* crash recovery, then every byte as written */
      if (ftl_open (path, &f, &e) < 0)
        fail_msg ("kill %d after %llu steps: open: %s", k,
                  (unsigned long long) sh->steps, e.msg);
      expect_fsck_clean (f);
      if (check_bytes (f, why, sizeof why))
        fail_msg ("kill %d after %llu steps: %s", k,
                  (unsigned long long) sh->steps, why);
      ftl_close (f);
    }
  munmap (sh, sizeof *sh);
  unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_relocate_keeps_bytes),
    cmocka_unit_test (test_relocate_keeps_bytes_dftl),
    cmocka_unit_test (test_relocate_kill9),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
