/* test_owner_record.c - the owner's record (ossd_ftl.h,
 * ftl/ftl_owner_record.c): saved and loaded across a clean close; the
 * newest intact record wins; a torn body or header (written over in the
 * image while closed, as a crash mid-save leaves it) makes load return the
 * record before it and say the newest was lost, or -EBADMSG when no slot
 * is intact, while the FTL opens, reads its data and fscks clean as
 * before; a child saving in a loop killed with SIGKILL leaves an intact
 * record of one of its last two saves.  RAM drives have none (-ENOTSUP). */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "ftl_test_util.h"

/* the image layout (nand_backend_file.c): two 480 KiB slots from 64 KiB */
#define SLOT0 (64u << 10)
#define SLOT1 (SLOT0 + (480u << 10))

static void
fill_record (uint8_t *b, size_t n, uint64_t tag)
{
  for (size_t i = 0; i < n; i++)
    b[i] = (uint8_t) (tag * 31 + i * 7 + (i >> 9));
}

static void
expect_record (ftl_t *f, size_t n, uint64_t tag, uint64_t gen, bool lost)
{
  void *b;
  size_t len;
  struct ftl_owner_record_info info;
  ftl_error e = { "" };
  int r = ftl_owner_record_load (f, &b, &len, &info, &e);
  if (r)
    fail_msg ("load: %d %s", r, e.msg);
  assert_int_equal (len, n);
  uint8_t *want = malloc (n);
  fill_record (want, n, tag);
  assert_memory_equal (b, want, n);
  assert_int_equal (info.generation, gen);
  assert_int_equal (info.newest_lost, lost);
  free (want);
  free (b);
}

static void
scribble (const char *path, uint64_t off, size_t n)
{
  int fd = open (path, O_WRONLY);
  assert_true (fd >= 0);
  uint8_t junk[4096];
  memset (junk, 0x5a, sizeof junk);
  assert_int_equal (pwrite (fd, junk, n, (off_t) off), (ssize_t) n);
  close (fd);
}

static void
expect_data_fine (ftl_t *f)
{
  ftl_error e = { "" };
  uint8_t got[8192], want[8192];
  size_t n;
  assert_int_equal (ftl_read (f, 1, 2, 0, got, sizeof got, &n, &e), 0);
  assert_int_equal (n, sizeof got);
  fill_pattern (want, sizeof want, 2, 0, 1);
  assert_memory_equal (got, want, n);
  expect_fsck_clean (f);
}

static void
test_save_load_torn (void **state)
{
  struct ftl_config c;
  small_config (&c);
  char *path = tmp_image ("owner");
  ftl_t *f;
  ftl_error e = { "" };
  void *b;
  size_t len;
  struct ftl_owner_record_info info;
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_owner_record_load (f, &b, &len, &info, &e), -ENOENT);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  assert_int_equal (ftl_create_object (f, 1, 2, &e), 0);
  uint8_t d[8192];
  fill_pattern (d, sizeof d, 2, 0, 1);
  assert_int_equal (ftl_write (f, 1, 2, 0, d, sizeof d, &e), 0);
  static uint8_t rec[FTL_OWNER_RECORD_MAX + 1];
  fill_record (rec, 100000, 1);
  assert_int_equal (ftl_owner_record_save (f, rec, 100000, &e), 0);
  expect_record (f, 100000, 1, 1, false);
  fill_record (rec, 5000, 2);
  assert_int_equal (ftl_owner_record_save (f, rec, 5000, &e), 0);
  expect_record (f, 5000, 2, 2, false);
  assert_int_equal (ftl_owner_record_save (f, rec, FTL_OWNER_RECORD_MAX + 1, &e), -E2BIG);
  ftl_close (f);

  /* a clean close keeps it */
  assert_int_equal (ftl_open (path, &f, &e), 0);
  expect_record (f, 5000, 2, 2, false);
  ftl_close (f);

  /* a third save torn in its body (slot 0, which held generation 1): the
   * second is read, and the loss said */
  scribble (path, SLOT0 + 4096 + 100, 4096);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  expect_record (f, 5000, 2, 2, true);
  expect_data_fine (f);
  ftl_close (f);
  /* ... and in the header of the other slot too: nothing intact */
  scribble (path, SLOT1, 64);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  assert_int_equal (ftl_owner_record_load (f, &b, &len, &info, &e), -EBADMSG);
  assert_non_null (strstr (e.msg, "lost"));
  expect_data_fine (f);
  /* a save after the loss is read again */
  fill_record (rec, 777, 3);
  assert_int_equal (ftl_owner_record_save (f, rec, 777, &e), 0);
  expect_record (f, 777, 3, 2, true);   /* slot 0 still holds a torn one */
  ftl_close (f);
  unlink (path);

  /* RAM: no system area */
  assert_int_equal (ftl_format (NULL, &c, &f, &e), 0);
  assert_int_equal (ftl_owner_record_save (f, rec, 10, &e), -ENOTSUP);
  assert_int_equal (ftl_owner_record_load (f, &b, &len, &info, &e), -ENOTSUP);
  ftl_close (f);
}

/* kill -9 of a process saving in a loop: one of its last two records */
static void
test_kill9_mid_save (void **state)
{
  struct ftl_config c;
  small_config (&c);
  char *path = tmp_image ("owner-kill");
  ftl_t *f;
  ftl_error e = { "" };
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  assert_int_equal (ftl_create_object (f, 1, 2, &e), 0);
  uint8_t d[8192];
  fill_pattern (d, sizeof d, 2, 0, 1);
  assert_int_equal (ftl_write (f, 1, 2, 0, d, sizeof d, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  ftl_close (f);
  for (int round = 0; round < 3; round++)
    {
      int pfd[2];
      assert_int_equal (pipe (pfd), 0);
      pid_t pid = fork ();
      if (pid == 0)
        {
          close (pfd[0]);
          static uint8_t rec[300000];
          ftl_t *g;
          if (ftl_open (path, &g, &e) < 0)
            _exit (2);
          for (uint64_t tag = 1;; tag++)
            {
              /* the record names its own generation: tag = gen */
              void *b;
              size_t len;
              struct ftl_owner_record_info info;
              uint64_t gen = 1;
              if (ftl_owner_record_load (g, &b, &len, &info, &e) == 0)
                {
                  gen = info.generation + 1;
                  free (b);
                }
              size_t n = 100000 + (gen % 7) * 20000;
              fill_record (rec, n, gen);
              if (ftl_owner_record_save (g, rec, n, &e) < 0)
                _exit (3);
              if (tag == 3 && write (pfd[1], "x", 1) != 1)
                _exit (4);
            }
        }
      close (pfd[1]);
      char x;
      assert_int_equal (read (pfd[0], &x, 1), 1);
      usleep (1000 + round * 3000);
      kill (pid, SIGKILL);
      int st;
      waitpid (pid, &st, 0);
      assert_true (WIFSIGNALED (st));
      close (pfd[0]);
      assert_int_equal (ftl_open (path, &f, &e), 0);
      void *b;
      size_t len;
      struct ftl_owner_record_info info;
      assert_int_equal (ftl_owner_record_load (f, &b, &len, &info, &e), 0);
      assert_true (info.generation >= 3);
      size_t n = 100000 + (info.generation % 7) * 20000;
      assert_int_equal (len, n);
      uint8_t *want = malloc (n);
      fill_record (want, n, info.generation);
      assert_memory_equal (b, want, n);
      print_message ("round %d: record of generation %llu intact%s\n", round,
                     (unsigned long long) info.generation,
                     info.newest_lost ? " (the save after it was torn)" : "");
      free (want);
      free (b);
      expect_data_fine (f);
      ftl_close (f);
    }
  unlink (path);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_save_load_torn),
    cmocka_unit_test (test_kill9_mid_save),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
