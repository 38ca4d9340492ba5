/* test_pace.c - drive profiles and real-time pacing (ftl_pace.c): a
 * profile put in force is applied and reported, an unpaced one never
 * sleeps, a paced read of a known size takes at least its modelled time
 * (a lower bound from the model, so a loaded machine cannot fail it),
 * concurrent paced readers and writers lose and reorder nothing, and
 * dropping the caches keeps every byte. */
#include <pthread.h>
#include <time.h>

#include "ftl_test_util.h"

static double
mono_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ftl_t *
make_file (const char *tag, const char *profile)
{
  struct ftl_config c;
  ftl_error e = { "" };
  ftl_t *f = NULL;
  assert_int_equal (ftl_config_defaults (&c, profile, &e), 0);
  c.channels = 2;
  c.ways = 2;
  c.blocks_per_plane = 32;
  c.pages_per_block = 32;
  c.over_provisioning = 0.25;
  if (ftl_format (tmp_image (tag), &c, &f, &e) != 0)
    fail_msg ("format: %s", e.msg);
  return f;
}

static void
test_profiles_listed (void **state)
{
  struct ftl_profile_info p;
  bool seen_default = false, seen_paced = false;
  for (size_t i = 0; i < ftl_profile_count (); i++)
    {
      assert_int_equal (ftl_profile_get (i, NULL, &p), 0);
      assert_non_null (p.description);
      assert_true (p.scan_mbps > 0 && p.read_mbps > 0);
      assert_true (p.read_mbps <= p.scan_mbps);
      if (p.link_mbps)
        assert_true (p.read_mbps <= p.link_mbps);
      if (strcmp (p.name, "default") == 0)
        seen_default = !p.paced;
      if (strcmp (p.name, "nasd-1998") == 0)
        seen_paced = p.paced && p.channels == 1 && p.ways == 1;
    }
  assert_true (seen_default);
  assert_true (seen_paced);
  assert_int_equal (ftl_profile_get (0, "no-such-drive", &p), -ENOENT);

  struct ftl_config c;
  ftl_error e = { "" };
  assert_int_equal (ftl_config_defaults (&c, "no-such-drive", &e), -EINVAL);
  assert_non_null (strstr (e.msg, "nasd-1998"));   /* names the choices */
}

static void
test_profile_applied_and_reported (void **state)
{
  ftl_t *f = make_file ("pace-info", "default");
  ftl_error e = { "" };
  struct ftl_device_info di;

  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_string_equal (di.profile, "default");
  assert_false (di.paced);
  assert_int_equal (di.link_mbps, 0);

  assert_int_equal (ftl_set_profile (f, "sata-ssd", &e), 0);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_string_equal (di.profile, "sata-ssd");
  assert_string_equal (di.format_profile, "default");
  assert_true (di.paced);
  assert_int_equal (di.link_mbps, 550);
  /* the image has 2 x 2 dies: the profile's 4 x 2 is capped to them */
  assert_int_equal (di.time_channels, 2);
  assert_int_equal (di.time_dies, 4);
  assert_true (di.model_read_mbps <= 550.0);

  assert_int_equal (ftl_set_profile (f, "bogus", &e), -EINVAL);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_string_equal (di.profile, "sata-ssd");   /* unchanged */

  /* a profile chosen at start does not change the image's format */
  ftl_close (f);
  assert_int_equal (ftl_open (tmp_image ("pace-info"), &f, &e), 0);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_string_equal (di.profile, "default");
  assert_false (di.paced);
  ftl_close (f);
  unlink (tmp_image ("pace-info"));
}

static void
test_unpaced_never_sleeps (void **state)
{
  ftl_t *f = make_file ("pace-none", "default");
  ftl_error e = { "" };
  struct ftl_stats st;
  static uint8_t buf[1 << 20];
  size_t n;

  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  fill_pattern (buf, sizeof buf, 1, 0, 1);
  assert_int_equal (ftl_write (f, 0, 1, 0, buf, sizeof buf, &e), 0);
  assert_int_equal (ftl_read (f, 0, 1, 0, buf, sizeof buf, &n, &e), 0);
  ftl_link_transfer (f, sizeof buf, ftl_pace_clock (f));
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_int_equal (st.pace_sleeps, 0);
  assert_int_equal (st.link_bytes, 0);
  assert_int_equal (ftl_pace_clock (f), 0);
  ftl_close (f);
  unlink (tmp_image ("pace-none"));
}

/* nasd-1998 models one die: every page read is tR plus its transfer, one
 * after another, so 1 MiB takes at least 64 of them. */
static void
test_paced_read_takes_model_time (void **state)
{
  ftl_t *f = make_file ("pace-read", "default");
  ftl_error e = { "" };
  struct ftl_device_info di;
  struct ftl_stats st;
  static uint8_t buf[1 << 20], back[1 << 20];
  size_t n;

  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  fill_pattern (buf, sizeof buf, 1, 0, 7);
  assert_int_equal (ftl_write (f, 0, 1, 0, buf, sizeof buf, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  assert_int_equal (ftl_set_profile (f, "nasd-1998", &e), 0);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_int_equal (di.time_dies, 1);

  double pages = (double) sizeof buf / di.page_size;
  double model_s = pages * (di.read_ns * 1e-9
                            + (double) di.page_size / (di.channel_mbps * 1e6));
  double t0 = mono_s ();
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  double took = mono_s () - t0;
  fprintf (stderr, "# paced 1 MiB read: %.1f ms, model %.1f ms\n",
           took * 1e3, model_s * 1e3);
  assert_int_equal (n, sizeof back);
  assert_memory_equal (buf, back, sizeof buf);
  /* 1 % slack for the integer ns of each page's transfer */
  assert_true (took >= model_s * 0.99);

  /* the host link: 1 MiB at 19 MB/s, whatever the NAND did */
  t0 = mono_s ();
  ftl_link_transfer (f, sizeof buf, ftl_pace_clock (f));
  took = mono_s () - t0;
  assert_true (took >= (double) sizeof buf / (di.link_mbps * 1e6) * 0.99);
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_true (st.pace_sleeps >= 2);
  assert_int_equal (st.link_bytes, sizeof buf);
  ftl_close (f);
  unlink (tmp_image ("pace-read"));
}

/* The drive's read-ahead: the NAND time is charged when reserved, the data
 * read later without charging it again, and no earlier than the
 * reservation's modelled completion. */
static void
test_read_ahead_reserves_model_time (void **state)
{
  ftl_t *f = make_file ("pace-ra", "default");
  ftl_error e = { "" };
  struct ftl_device_info di;
  struct ftl_stats st0, st1;
  static uint8_t buf[256 << 10], back[256 << 10];
  size_t n;
  uint64_t deadline;

  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  fill_pattern (buf, sizeof buf, 1, 0, 9);
  assert_int_equal (ftl_write (f, 0, 1, 0, buf, sizeof buf, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  assert_int_equal (ftl_read_ahead (f, FTL_PRIORITY_DEFAULT, 0, 1, 0, sizeof buf, &deadline, &e), 0);
  assert_int_equal (deadline, 0);             /* unpaced: nothing to wait */
  assert_int_equal (ftl_set_profile (f, "nasd-1998", &e), 0);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  double pages = (double) sizeof buf / di.page_size;
  double model_s = pages * (di.read_ns * 1e-9
                            + (double) di.page_size / (di.channel_mbps * 1e6));
  assert_int_equal (ftl_get_stats (f, &st0, &e), 0);
  double t0 = mono_s ();
  assert_int_equal (ftl_read_ahead (f, FTL_PRIORITY_DEFAULT, 0, 1, 0, sizeof buf, &deadline, &e), 0);
  assert_true (deadline > 0);
  assert_true (mono_s () - t0 < model_s);     /* it did not wait */
  assert_int_equal (ftl_read_reserved (f, 0, 1, 0, back, sizeof back, &n,
                                       deadline, &e), 0);
  double took = mono_s () - t0;
  assert_int_equal (n, sizeof back);
  assert_memory_equal (buf, back, sizeof buf);
  assert_true (took >= model_s * 0.99);
  assert_int_equal (ftl_get_stats (f, &st1, &e), 0);
  /* the pages were read (charged) once */
  assert_int_equal (st1.nand_reads - st0.nand_reads, (uint64_t) pages);
  assert_int_equal (st1.host_read_bytes - st0.host_read_bytes, sizeof buf);
  ftl_close (f);
  unlink (tmp_image ("pace-ra"));
}

/* Concurrent paced writers and readers, each on its own object, check
 * every generation they wrote reads back in order. */
struct worker
{
  ftl_t *f;
  uint64_t oid;
  int bad;
  char msg[200];
};

#define W_SECT 16
#define W_GENS 6

static void *
worker_run (void *arg)
{
  struct worker *w = arg;
  ftl_error e = { "" };
  uint8_t buf[W_SECT * 4096], back[W_SECT * 4096];
  size_t n;

  if (ftl_create_object (w->f, 0, w->oid, &e) != 0)
    {
      w->bad = 1;
      snprintf (w->msg, sizeof w->msg, "create: %s", e.msg);
      return NULL;
    }
  for (uint64_t g = 1; g <= W_GENS && !w->bad; g++)
    {
      for (uint32_t s = 0; s < W_SECT; s++)
        fill_pattern (buf + s * 4096, 4096, w->oid, (uint64_t) s * 4096, g);
      if (ftl_write (w->f, 0, w->oid, 0, buf, sizeof buf, &e) != 0)
        {
          w->bad = 1;
          snprintf (w->msg, sizeof w->msg, "write: %s", e.msg);
          break;
        }
      if (ftl_read (w->f, 0, w->oid, 0, back, sizeof back, &n, &e) != 0
          || n != sizeof back || memcmp (buf, back, sizeof buf) != 0)
        {
          w->bad = 1;
          snprintf (w->msg, sizeof w->msg, "generation %llu did not read back",
                    (unsigned long long) g);
        }
    }
  return NULL;
}

static void
test_paced_concurrency_keeps_data (void **state)
{
  ftl_t *f = make_file ("pace-conc", "sata-ssd");
  ftl_error e = { "" };
  struct ftl_device_info di;
  struct worker w[4];
  pthread_t t[4];

  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_true (di.paced);
  for (int i = 0; i < 4; i++)
    {
      memset (&w[i], 0, sizeof w[i]);
      w[i].f = f;
      w[i].oid = 10 + (uint64_t) i;
      assert_int_equal (pthread_create (&t[i], NULL, worker_run, &w[i]), 0);
    }
  for (int i = 0; i < 4; i++)
    {
      pthread_join (t[i], NULL);
      if (w[i].bad)
        fail_msg ("worker %d: %s", i, w[i].msg);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
  expect_fsck_clean (f);
  ftl_close (f);
  /* and after a reopen, the last generation of each */
  assert_int_equal (ftl_open (tmp_image ("pace-conc"), &f, &e), 0);
  for (int i = 0; i < 4; i++)
    {
      uint8_t want[4096], got[4096];
      size_t n;
      for (uint32_t s = 0; s < W_SECT; s++)
        {
          fill_pattern (want, sizeof want, w[i].oid, (uint64_t) s * 4096, W_GENS);
          assert_int_equal (ftl_read (f, 0, w[i].oid, (uint64_t) s * 4096, got,
                                      sizeof got, &n, &e), 0);
          assert_memory_equal (want, got, sizeof got);
        }
    }
  ftl_close (f);
  unlink (tmp_image ("pace-conc"));
}

static void
test_drop_caches_keeps_data (void **state)
{
  ftl_t *f = make_file ("pace-cold", "default");
  ftl_error e = { "" };
  struct ftl_stats st;
  static uint8_t buf[512 << 10], back[512 << 10];
  size_t n;

  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  fill_pattern (buf, sizeof buf, 1, 0, 3);
  assert_int_equal (ftl_write (f, 0, 1, 0, buf, sizeof buf, &e), 0);
  /* unflushed data stays readable: it is in the FTL's write buffer or
   * written to the image before the page cache is dropped */
  assert_int_equal (ftl_drop_caches (f, &e), 0);
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  assert_memory_equal (buf, back, sizeof buf);
  assert_int_equal (ftl_flush (f, &e), 0);
  assert_int_equal (ftl_drop_caches (f, &e), 0);
  memset (back, 0, sizeof back);
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  assert_memory_equal (buf, back, sizeof buf);
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_int_equal (st.cache_drops, 2);
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (tmp_image ("pace-cold"));
}

/* In a DFTL mode cold drops the clean mapping-cache entries: the next read
 * of a page misses and reads its translation page again. */
static void
test_drop_caches_empties_mapping_cache (void **state)
{
  struct ftl_config c;
  ftl_error e = { "" };
  ftl_t *f = NULL;
  struct ftl_stats st0, st1;
  uint8_t buf[4096], back[4096];
  size_t n;

  assert_int_equal (ftl_config_defaults (&c, "default", &e), 0);
  c.channels = 2;
  c.ways = 2;
  c.blocks_per_plane = 32;
  c.pages_per_block = 32;
  c.over_provisioning = 0.25;
  c.mapping_mode = FTL_MAP_DFTL_SPLIT;
  assert_int_equal (ftl_format (tmp_image ("pace-dftl"), &c, &f, &e), 0);
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  fill_pattern (buf, sizeof buf, 1, 0, 5);
  assert_int_equal (ftl_write (f, 0, 1, 0, buf, sizeof buf, &e), 0);
  ftl_close (f);   /* reopened, the cache starts empty: entries load clean */
  assert_int_equal (ftl_open (tmp_image ("pace-dftl"), &f, &e), 0);
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  assert_int_equal (ftl_get_stats (f, &st0, &e), 0);
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  assert_int_equal (ftl_get_stats (f, &st1, &e), 0);
  assert_int_equal (st1.map_cache_misses, st0.map_cache_misses);   /* warm */
  assert_int_equal (ftl_drop_caches (f, &e), 0);
  assert_int_equal (ftl_read (f, 0, 1, 0, back, sizeof back, &n, &e), 0);
  assert_int_equal (ftl_get_stats (f, &st0, &e), 0);
  assert_true (st0.map_cache_misses > st1.map_cache_misses);       /* cold */
  assert_memory_equal (buf, back, sizeof buf);
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (tmp_image ("pace-dftl"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_profiles_listed),
    cmocka_unit_test (test_profile_applied_and_reported),
    cmocka_unit_test (test_unpaced_never_sleeps),
    cmocka_unit_test (test_paced_read_takes_model_time),
    cmocka_unit_test (test_read_ahead_reserves_model_time),
    cmocka_unit_test (test_paced_concurrency_keeps_data),
    cmocka_unit_test (test_drop_caches_keeps_data),
    cmocka_unit_test (test_drop_caches_empties_mapping_cache),
  };
  return cmocka_run_group_tests_name ("ftl_pace", tests, NULL, NULL);
}
