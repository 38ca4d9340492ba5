/* test_persist.c - durability on the file backend: reopen after a clean
 * close, reopen after a crash (a forked child that _exit()s or is killed
 * with SIGKILL after a flush), batches across a crash, and the cost of
 * formatting / opening a multi-GiB sparse image. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "ftl_test_util.h"

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ftl_t *
fmt (const char *path)
{
  struct ftl_config c;
  small_config (&c);
  ftl_t *f = NULL;
  ftl_error e = { "" };
  int r = ftl_format (path, &c, &f, &e);
  if (r)
    fail_msg ("format %s: %s", path, e.msg);
  return f;
}

static ftl_t *
reopen (const char *path)
{
  ftl_t *f = NULL;
  ftl_error e = { "" };
  int r = ftl_open (path, &f, &e);
  if (r)
    fail_msg ("open %s: %s", path, e.msg);
  return f;
}

static void
check_obj (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t size, uint64_t gen)
{
  ftl_error e = { "" };
  struct ftl_object_info info;
  int r = ftl_stat_object (f, pid, oid, &info, &e);
  if (r)
    fail_msg ("object %llu:%llu: %s", (unsigned long long) pid,
              (unsigned long long) oid, e.msg);
  assert_int_equal (info.size, size);
  uint8_t *want = malloc (size + 1), *got = malloc (size + 1);
  size_t n;
  fill_pattern (want, size, oid, 0, gen);
  assert_int_equal (ftl_read (f, pid, oid, 0, got, size, &n, &e), 0);
  assert_int_equal (n, size);
  if (memcmp (want, got, size) != 0)
    fail_msg ("object %llu:%llu content differs from generation %llu",
              (unsigned long long) pid, (unsigned long long) oid,
              (unsigned long long) gen);
  free (want);
  free (got);
}

static void
write_obj (ftl_t *f, uint64_t pid, uint64_t oid, uint64_t size, uint64_t gen)
{
  ftl_error e = { "" };
  uint8_t *w = malloc (size);
  fill_pattern (w, size, oid, 0, gen);
  int r = ftl_create_object (f, pid, oid, &e);
  assert_true (r == 0 || r == -EEXIST);
  r = ftl_write (f, pid, oid, 0, w, size, &e);
  if (r)
    fail_msg ("write %llu: %s", (unsigned long long) oid, e.msg);
  free (w);
}

static void
test_reopen_after_close (void **state)
{
  const char *path = tmp_image ("reopen");
  ftl_t *f = fmt (path);
  ftl_error e = { "" };
  assert_int_equal (ftl_create_partition (f, 3, &e), 0);
  for (uint64_t oid = 1; oid <= 20; oid++)
    write_obj (f, 3, oid, 3000 * oid + 17, 1);
  assert_int_equal (ftl_set_attr (f, 3, 5, 9, 9, "attr", 4, &e), 0);
  assert_int_equal (ftl_remove_object (f, 3, 7, &e), 0);
  assert_int_equal (ftl_set_length (f, 3, 8, 100, &e), 0);
  assert_int_equal (ftl_punch (f, 3, 9, 0, 8192, &e), 0);
  struct ftl_object_info before, after;
  assert_int_equal (ftl_stat_object (f, 3, 5, &before, &e), 0);
  ftl_close (f);
  for (int round = 0; round < 2; round++)
    {
      f = reopen (path);
      expect_fsck_clean (f);
      for (uint64_t oid = 1; oid <= 20; oid++)
        if (oid != 7 && oid != 8 && oid != 9)
          check_obj (f, 3, oid, 3000 * oid + 17, 1);
      check_obj (f, 3, 8, 100, 1);
      assert_int_equal (ftl_stat_object (f, 3, 7, &after, &e), -ENOENT);
      uint8_t buf[9000];
      size_t n;
      assert_int_equal (ftl_read (f, 3, 9, 0, buf, 9000, &n, &e), 0);
      for (int i = 0; i < 8192; i++)
        assert_int_equal (buf[i], 0);
      char a[8];
      size_t al;
      assert_int_equal (ftl_get_attr (f, 3, 5, 9, 9, a, 8, &al, &e), 0);
      assert_int_equal (al, 4);
      assert_memory_equal (a, "attr", 4);
      assert_int_equal (ftl_stat_object (f, 3, 5, &after, &e), 0);
      assert_true (after.version >= before.version);
      ftl_close (f);
    }
  /* a second instance on the same image is refused */
  f = reopen (path);
  ftl_t *g2 = NULL;
  assert_int_equal (ftl_open (path, &g2, &e), -EBUSY);
  ftl_close (f);
  assert_int_equal (ftl_open ("/nonexistent/x.img", &f, &e), -ENOENT);
  FILE *junk = fopen (path, "w");
  fputs ("not an image", junk);
  fclose (junk);
  assert_int_equal (ftl_open (path, &f, &e), -EINVAL);
  unlink (path);
}

/* child: format, write A, flush, write B (unflushed), then die */
static void
crash_child (const char *path, int mode, int fd)
{
  ftl_t *f = reopen (path);
  ftl_error e = { "" };
  for (uint64_t oid = 1; oid <= 30; oid++)
    write_obj (f, 1, oid, 5000 * oid, 1);
  ftl_set_attr (f, 1, 3, 1, 1, "keep", 4, &e);
  /* GC-heavy overwrites of one object */
  for (int i = 0; i < 20000; i++)
    {
      uint8_t w[4096];
      uint64_t off = (uint64_t) (i * 37 % 40) * 4096;
      fill_pattern (w, 4096, 100, off, 9);
      ftl_create_object (f, 1, 100, &e);
      ftl_write (f, 1, 100, off, w, 4096, &e);
    }
  if (ftl_flush (f, &e) != 0)
    _exit (3);
  char ok = 'F';
  if (write (fd, &ok, 1) != 1)
    _exit (4);
  /* unflushed changes after the flush */
  for (uint64_t oid = 31; oid <= 40; oid++)
    write_obj (f, 1, oid, 7000, 2);
  write_obj (f, 1, 2, 10000, 3);     /* overwrite + grow */
  ftl_remove_object (f, 1, 4, &e);
  ftl_set_length (f, 1, 5, 10, &e);
  if (mode == 0)
    _exit (0);
  for (;;)   /* keep going until killed */
    {
      for (uint64_t oid = 41; oid <= 60; oid++)
        {
          write_obj (f, 1, oid, 20000, 4);
          ftl_remove_object (f, 1, oid, &e);
        }
    }
}

static void
crash_and_check (int mode)
{
  const char *path = tmp_image (mode ? "kill" : "exit");
  ftl_t *f = fmt (path);
  ftl_error e = { "" };
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  ftl_close (f);
  int p[2];
  assert_int_equal (pipe (p), 0);
  pid_t pid = fork ();
  if (pid == 0)
    {
      close (p[0]);
      crash_child (path, mode, p[1]);
      _exit (0);
    }
  close (p[1]);
  char c = 0;
  assert_int_equal (read (p[0], &c, 1), 1);
  assert_int_equal (c, 'F');
  if (mode == 1)
    {
      usleep (20000);
      kill (pid, SIGKILL);
    }
  int st;
  waitpid (pid, &st, 0);
  close (p[0]);
  f = reopen (path);
  expect_fsck_clean (f);
  for (uint64_t oid = 1; oid <= 30; oid++)
    {
      if (oid == 2 || oid == 4 || oid == 5)
        continue;
      check_obj (f, 1, oid, 5000 * oid, 1);
    }
  char a[8];
  size_t al;
  assert_int_equal (ftl_get_attr (f, 1, 3, 1, 1, a, 8, &al, &e), 0);
  assert_memory_equal (a, "keep", 4);
  /* object 100: every sector from generation 9 */
  uint8_t w[4096], r[4096];
  size_t n;
  for (uint64_t s = 0; s < 40; s++)
    {
      fill_pattern (w, 4096, 100, s * 4096, 9);
      assert_int_equal (ftl_read (f, 1, 100, s * 4096, r, 4096, &n, &e), 0);
      assert_memory_equal (r, w, 4096);
    }
  struct ftl_stats fs;
  assert_int_equal (ftl_get_stats (f, &fs, &e), 0);
  /* object 2: each sector old or new */
  struct ftl_object_info info;
  assert_int_equal (ftl_stat_object (f, 1, 2, &info, &e), 0);
  assert_true (info.size == 10000 || info.size == 10000 - 0
               || info.size >= 10000);
  ftl_close (f);
  f = reopen (path);
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (path);
}

static void
test_crash_exit (void **state)
{
  crash_and_check (0);
}

static void
test_crash_kill9 (void **state)
{
  crash_and_check (1);
}

static void
test_big_image_fast (void **state)
{
  const char *path = tmp_image ("big");
  struct ftl_config c;
  ftl_error e = { "" };
  assert_int_equal (ftl_config_defaults (&c, NULL, &e), 0);
  assert_int_equal (ftl_config_set_capacity (&c, 4ull << 30, &e), 0);
  ftl_t *f;
  double t0 = now_s ();
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  double t_fmt = now_s () - t0;
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_true (di.capacity_bytes >= (4ull << 30));
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  assert_int_equal (ftl_set_length (f, 0, 1, 1ull << 30, &e), 0);
  uint8_t w[8192];
  for (int i = 0; i < 2000; i++)
    {
      fill_pattern (w, sizeof w, 1, (uint64_t) i * 524287 % (1u << 17) * 8192,
                    0);
      assert_int_equal (ftl_write (f, 0, 1, (uint64_t) i * 524287 % (1u << 17)
                                   * 8192, w, sizeof w, &e), 0);
    }
  ftl_close (f);
  t0 = now_s ();
  f = reopen (path);
  double t_open = now_s () - t0;
  expect_fsck_clean (f);
  ftl_close (f);
  struct stat sb;
  assert_int_equal (stat (path, &sb), 0);
  fprintf (stderr, "# 4 GiB format %.3fs, open %.3fs, %lld MiB allocated\n",
           t_fmt, t_open, (long long) sb.st_blocks * 512 / (1 << 20));
  assert_true (t_fmt < 1.0);
  assert_true (t_open < 1.0);
  assert_true (sb.st_blocks * 512 < (200ll << 20));
  unlink (path);
}

static void
test_batch_across_reopen (void **state)
{
  const char *path = tmp_image ("batch");
  ftl_t *f = fmt (path);
  ftl_error e = { "" };
  uint8_t w[12288];
  fill_pattern (w, sizeof w, 9, 0, 5);
  struct ftl_op ops[] = {
    { .kind = FTL_OP_CREATE_OBJECT, .pid = 0, .oid = 9 },
    { .kind = FTL_OP_WRITE, .pid = 0, .oid = 9, .off = 0, .len = sizeof w,
      .data = w },
    { .kind = FTL_OP_SET_ATTR, .pid = 0, .oid = 9, .attr_page = 2,
      .attr_number = 3, .data = "b", .len = 1 },
  };
  ftl_close (f);
  pid_t pid = fork ();
  if (pid == 0)
    {
      ftl_t *c = reopen (path);
      if (ftl_apply_batch (c, ops, 3, NULL, &e) != 0)
        _exit (2);
      _exit (0);   /* crash: no flush, no close; the batch was committed */
    }
  int st;
  waitpid (pid, &st, 0);
  assert_true (WIFEXITED (st) && WEXITSTATUS (st) == 0);
  ftl_t *g = reopen (path);
  expect_fsck_clean (g);
  check_obj (g, 0, 9, sizeof w, 5);
  char a[2];
  size_t al;
  assert_int_equal (ftl_get_attr (g, 0, 9, 2, 3, a, 2, &al, &e), 0);
  ftl_close (g);
  unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_reopen_after_close),
    cmocka_unit_test (test_crash_exit),
    cmocka_unit_test (test_crash_kill9),
    cmocka_unit_test (test_big_image_fast),
    cmocka_unit_test (test_batch_across_reopen),
  };
  return cmocka_run_group_tests_name ("ftl_persist", tests, NULL, NULL);
}
