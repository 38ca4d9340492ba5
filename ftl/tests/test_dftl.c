/* test_dftl.c - mapping modes and allocation policies: the demand-cached
 * mapping (one LRU vs clean/dirty split; in split mode a host read never
 * writes a translation page and costs at most two NAND reads), the batch
 * update of plain DFTL (an evicted dirty entry writes its translation page
 * with all its dirty entries), the split mode's write path (a write miss
 * reads nothing; a full dirty area writes back the page with the most dirty
 * entries), a read miss's translation read before its data read, data
 * integrity and fsck in every mode, reopen, and the delete-and-rewrite
 * scenario where per-object update blocks need fewer GC copies than the
 * unified policy (REMOVE invalidates at once: informed cleaning). */
#include "ftl_test_util.h"

static uint64_t
rng (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static ftl_t *
make (const char *path, enum ftl_mapping_mode m, double frac)
{
  struct ftl_config c;
  small_config (&c);
  c.blocks_per_plane = 48;
  c.over_provisioning = 0.15;
  c.mapping_mode = m;
  c.mapping_cache_fraction = frac;
  ftl_t *f = NULL;
  ftl_error e = { "" };
  if (ftl_format (path, &c, &f, &e))
    fail_msg ("format: %s", e.msg);
  return f;
}

struct phase
{
  struct ftl_stats after_writes, after_reads;
};

static void
run_mode (enum ftl_mapping_mode m, struct phase *ph)
{
  ftl_t *f = make (NULL, m, 0.1);
  ftl_error e = { "" };
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_int_equal (di.mapping_mode, m);
  uint64_t n = di.capacity_bytes / 4096 * 8 / 10;
  uint32_t *gen = calloc (n, sizeof *gen);
  uint8_t w[4096], r[4096];
  size_t got;
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  for (uint64_t s = 0; s < n; s++)
    {
      fill_pattern (w, 4096, 1, s * 4096, 0);
      assert_int_equal (ftl_write (f, 0, 1, s * 4096, w, 4096, &e), 0);
    }
  uint64_t seed = 0x1234567;
  for (uint64_t i = 0; i < 2 * n; i++)
    {
      uint64_t s = rng (&seed) % n;
      gen[s]++;
      fill_pattern (w, 4096, 1, s * 4096, gen[s]);
      assert_int_equal (ftl_write (f, 0, 1, s * 4096, w, 4096, &e), 0);
    }
  expect_fsck_clean (f);
  ftl_reset_stats (f);
  assert_int_equal (ftl_get_stats (f, &ph->after_writes, &e), 0);
  for (uint64_t i = 0; i < n; i++)
    {
      uint64_t s = rng (&seed) % n;
      fill_pattern (w, 4096, 1, s * 4096, gen[s]);
      assert_int_equal (ftl_read (f, 0, 1, s * 4096, r, 4096, &got, &e), 0);
      if (memcmp (w, r, 4096) != 0)
        fail_msg ("mode %d: sector %llu differs", m, (unsigned long long) s);
    }
  assert_int_equal (ftl_get_stats (f, &ph->after_reads, &e), 0);
  expect_fsck_clean (f);
  free (gen);
  ftl_close (f);
}

static void
test_split_reads_never_write_mapping (void **state)
{
  struct phase ph;
  run_mode (FTL_MAP_DFTL_SPLIT, &ph);
  struct ftl_stats *s = &ph.after_reads;
  fprintf (stderr, "# split: reads %llu nand reads %llu map reads %llu map "
           "writes %llu hits %llu misses %llu max/read %llu\n",
           (unsigned long long) s->host_reads,
           (unsigned long long) s->nand_reads,
           (unsigned long long) s->map_reads,
           (unsigned long long) s->map_writes,
           (unsigned long long) s->map_cache_hits,
           (unsigned long long) s->map_cache_misses,
           (unsigned long long) s->max_nand_reads_per_host_read);
  assert_int_equal (s->map_writes, 0);
  assert_true (s->map_reads > 0);
  assert_true (s->max_nand_reads_per_host_read <= 2);
  assert_true (s->nand_reads_per_host_read <= 2.0);
  assert_true (s->map_cache_misses > 0 && s->map_cache_hits > 0);
}

static void
test_plain_dftl_reads_may_write (void **state)
{
  struct phase ph;
  run_mode (FTL_MAP_DFTL, &ph);
  struct ftl_stats *s = &ph.after_reads;
  fprintf (stderr, "# one LRU: map reads %llu map writes %llu max/read %llu "
           "evictions %llu\n", (unsigned long long) s->map_reads,
           (unsigned long long) s->map_writes,
           (unsigned long long) s->max_nand_reads_per_host_read,
           (unsigned long long) s->map_cache_evictions);
  assert_true (s->map_writes > 0);   /* dirty evictions on read misses */
  assert_int_equal (s->max_nand_reads_per_host_read, 3);
}

static void
test_ram_mode_one_read (void **state)
{
  struct phase ph;
  run_mode (FTL_MAP_RAM, &ph);
  assert_int_equal (ph.after_reads.map_reads, 0);
  assert_int_equal (ph.after_reads.max_nand_reads_per_host_read, 1);
}

static void
test_full_cache_hits (void **state)
{
  ftl_t *f = make (NULL, FTL_MAP_DFTL_SPLIT, 1.0);
  ftl_error e = { "" };
  uint8_t w[4096] = { 3 };
  size_t got;
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  for (int s = 0; s < 1000; s++)
    assert_int_equal (ftl_write (f, 0, 1, (uint64_t) s * 4096, w, 4096, &e),
                      0);
  ftl_reset_stats (f);
  for (int s = 0; s < 1000; s++)
    assert_int_equal (ftl_read (f, 0, 1, (uint64_t) s * 4096, w, 4096, &got,
                                &e), 0);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_int_equal (st.map_cache_misses, 0);
  assert_int_equal (st.map_cache_hits, 1000);
  ftl_close (f);
}

static void
test_dftl_reopen (void **state)
{
  const char *path = tmp_image ("dftl");
  ftl_t *f = make (path, FTL_MAP_DFTL, 0.05);
  ftl_error e = { "" };
  uint8_t w[8192];
  assert_int_equal (ftl_create_object (f, 0, 7, &e), 0);
  for (int i = 0; i < 3000; i++)
    {
      fill_pattern (w, sizeof w, 7, (uint64_t) (i % 500) * 8192, 0);
      assert_int_equal (ftl_write (f, 0, 7, (uint64_t) (i % 500) * 8192, w,
                                   sizeof w, &e), 0);
    }
  assert_int_equal (ftl_remove_object (f, 0, 7, &e), 0);
  assert_int_equal (ftl_create_object (f, 0, 7, &e), 0);
  for (int i = 0; i < 500; i++)
    {
      fill_pattern (w, sizeof w, 7, (uint64_t) i * 8192, 1);
      assert_int_equal (ftl_write (f, 0, 7, (uint64_t) i * 8192, w, sizeof w,
                                   &e), 0);
    }
  expect_fsck_clean (f);
  ftl_close (f);
  assert_int_equal (ftl_open (path, &f, &e), 0);
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_int_equal (di.mapping_mode, FTL_MAP_DFTL);
  uint8_t r[8192];
  size_t got;
  for (int i = 0; i < 500; i++)
    {
      fill_pattern (w, sizeof w, 7, (uint64_t) i * 8192, 1);
      assert_int_equal (ftl_read (f, 0, 7, (uint64_t) i * 8192, r, sizeof r,
                                  &got, &e), 0);
      assert_memory_equal (r, w, sizeof w);
    }
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (path);
}

/* 4 writers fill the drive with interleaved appends, 2 files are deleted,
 * 2 writers write again; returns GC copies and erases. */
static void
delete_and_rewrite (enum ftl_alloc_policy p, uint64_t *copies,
                    uint64_t *erases)
{
  struct ftl_config c;
  small_config (&c);
  c.blocks_per_plane = 64;
  c.over_provisioning = 0.12;
  c.alloc_policy = p;
  c.max_open_blocks = 4;
  ftl_t *f = NULL;
  ftl_error e = { "" };
  assert_int_equal (ftl_format (NULL, &c, &f, &e), 0);
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  uint64_t per_file = di.capacity_bytes / 4 / 4096 * 95 / 100;
  uint8_t w[4096] = { 9 };
  for (uint64_t k = 1; k <= 4; k++)
    assert_int_equal (ftl_create_object (f, 0, k, &e), 0);
  ftl_reset_stats (f);
  for (uint64_t s = 0; s < per_file; s++)
    for (uint64_t k = 1; k <= 4; k++)
      assert_int_equal (ftl_write (f, 0, k, s * 4096, w, 4096, &e), 0);
  assert_int_equal (ftl_remove_object (f, 0, 2, &e), 0);
  assert_int_equal (ftl_remove_object (f, 0, 4, &e), 0);
  for (uint64_t k = 5; k <= 6; k++)
    assert_int_equal (ftl_create_object (f, 0, k, &e), 0);
  for (int round = 0; round < 3; round++)
    for (uint64_t s = 0; s < per_file; s++)
      for (uint64_t k = 5; k <= 6; k++)
        assert_int_equal (ftl_write (f, 0, k, s * 4096, w, 4096, &e), 0);
  expect_fsck_clean (f);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  *copies = st.gc_valid_copies;
  *erases = st.nand_erases;
  ftl_close (f);
}

static void
test_alloc_policies_delete_rewrite (void **state)
{
  uint64_t cu, eu, ci, ei, co, eo;
  delete_and_rewrite (FTL_ALLOC_UNIFIED, &cu, &eu);
  delete_and_rewrite (FTL_ALLOC_INDEX_DATA, &ci, &ei);
  delete_and_rewrite (FTL_ALLOC_PER_OBJECT, &co, &eo);
  fprintf (stderr, "# delete-and-rewrite: erases %llu / %llu / %llu, copies "
           "%llu / %llu / %llu (unified / index-data / per-object)\n",
           (unsigned long long) eu, (unsigned long long) ei,
           (unsigned long long) eo, (unsigned long long) cu,
           (unsigned long long) ci, (unsigned long long) co);
  assert_true (co < cu);
  assert_true (eo <= eu);
}

/* A metadata-only drive of 4 dies x 128 blocks x 256 pages x 16 KiB
 * (2 GiB raw): room for many translation pages (4096 entries each). */
static ftl_t *
make_none (enum ftl_mapping_mode m, double frac, const char *profile)
{
  struct ftl_config c;
  ftl_config_defaults (&c, profile, NULL);
  c.channels = 2;
  c.ways = 2;
  c.blocks_per_plane = 128;
  c.pages_per_block = 256;
  c.mapping_mode = m;
  c.mapping_cache_fraction = frac;
  ftl_t *f = NULL;
  ftl_error e = { "" };
  if (ftl_format ("none:", &c, &f, &e))
    fail_msg ("format: %s", e.msg);
  assert_int_equal (ftl_create_object (f, 0, 1, &e), 0);
  return f;
}

static void
write_sector (ftl_t *f, uint64_t s)
{
  static uint8_t w[4096];
  ftl_error e = { "" };
  assert_int_equal (ftl_write (f, 0, 1, s * 4096, w, 4096, &e), 0);
}

/* Plain DFTL, a 64-entry cache, sequential writes inside one translation
 * page: each dirty eviction writes the page back with all 64 cached dirty
 * entries, so the next 63 evictions are clean: one translation write per
 * 64 host writes (one per host write without the batch update). */
static void
test_plain_dftl_batch_update (void **state)
{
  ftl_t *f = make_none (FTL_MAP_DFTL, 1e-9, "ram-fast");
  const uint64_t n = 2048;
  for (uint64_t s = 0; s < n; s++)
    write_sector (f, s);
  struct ftl_stats st;
  ftl_error e = { "" };
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  fprintf (stderr, "# plain batch update: %llu writes, %llu evictions, "
           "%llu translation writes\n", (unsigned long long) n,
           (unsigned long long) st.map_cache_evictions,
           (unsigned long long) st.map_writes);
  assert_int_equal (st.map_cache_evictions, n - 64);
  assert_true (st.map_writes >= (n - 64) / 64 && st.map_writes <= n / 64 + 1);
  ftl_close (f);
}

/* Split mode: a write miss reads no translation page (the entry is
 * appended to the dirty area); translation reads come only from the batch
 * updates' read-modify-writes, one each.  Plain DFTL reads one for every
 * write miss. */
static void
test_split_write_miss_reads_nothing (void **state)
{
  enum ftl_mapping_mode modes[] = { FTL_MAP_DFTL_SPLIT, FTL_MAP_DFTL };
  for (int k = 0; k < 2; k++)
    {
      ftl_t *f = make_none (modes[k], 0.002, "ram-fast");
      uint64_t seed = 99;
      const uint64_t span = 8 * 4096;   /* 8 translation pages */
      for (uint64_t s = 0; s < span; s++)
        write_sector (f, s);
      ftl_reset_stats (f);
      for (int i = 0; i < 20000; i++)
        write_sector (f, rng (&seed) % span);
      struct ftl_stats st;
      ftl_error e = { "" };
      assert_int_equal (ftl_get_stats (f, &st, &e), 0);
      fprintf (stderr, "# %s random writes: misses %llu, translation reads "
               "%llu, writes %llu\n", ftl_mapping_mode_name (modes[k]),
               (unsigned long long) st.map_cache_misses,
               (unsigned long long) st.map_reads,
               (unsigned long long) st.map_writes);
      assert_true (st.map_cache_misses > 10000);
      if (modes[k] == FTL_MAP_DFTL_SPLIT)
        {
          assert_true (st.map_writes > 0);
          assert_int_equal (st.map_reads, st.map_writes);
        }
      else
        assert_true (st.map_reads >= st.map_cache_misses);
      ftl_close (f);
    }
}

/* Split mode: the dirty area full of one entry from each of 20 pages
 * (written first, so least recent) and the rest from one page X; one more
 * entry of X overflows it.  The batch update takes X, the dirtiest page,
 * which frees room for the following writes: one translation write.  An
 * LRU victim would take the singletons, one entry per write-back. */
static void
test_split_batch_update_takes_dirtiest_page (void **state)
{
  ftl_t *f = make_none (FTL_MAP_DFTL_SPLIT, 0.005, "ram-fast");
  struct ftl_device_info di;
  ftl_error e = { "" };
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  uint64_t cap = (uint64_t) (0.005 * (double) (di.capacity_bytes / 4096));
  uint64_t dirty_cap = cap / 2;
  const uint64_t epc = 4096, x = 30 * epc, y = 31 * epc;
  assert_true (dirty_cap > 100 && dirty_cap < epc);
  for (uint64_t p = 0; p < 20; p++)
    write_sector (f, (p + 1) * epc);
  for (uint64_t i = 0; i < dirty_cap - 20; i++)
    write_sector (f, x + i);
  ftl_reset_stats (f);
  write_sector (f, x + dirty_cap);              /* overflow */
  for (uint64_t i = 0; i < dirty_cap / 2; i++)  /* room made by it */
    write_sector (f, y + i);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  fprintf (stderr, "# split: dirty area %llu entries, translation writes "
           "after the overflow %llu\n", (unsigned long long) dirty_cap,
           (unsigned long long) st.map_writes);
  assert_int_equal (st.map_writes, 1);
  ftl_close (f);
}

/* A read that misses the cache reads the translation page, then the data:
 * with the default timing (tR 40 us) it takes at least two reads' time. */
static void
test_read_miss_waits_for_translation (void **state)
{
  ftl_t *f = make_none (FTL_MAP_DFTL_SPLIT, 0.002, "default");
  ftl_error e = { "" };
  for (uint64_t s = 0; s < 3 * 4096; s++)
    write_sector (f, s);
  assert_int_equal (ftl_drop_caches (f, &e), 0);
  assert_int_equal (ftl_idle (f, 50000000, &e), 0);   /* dies go idle */
  ftl_reset_stats (f);
  uint8_t r[4096];
  size_t got;
  assert_int_equal (ftl_read (f, 0, 1, 4096 * 4096 / 2, r, 4096, &got, &e), 0);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  fprintf (stderr, "# cold read: %llu NAND reads, latency %llu ns\n",
           (unsigned long long) st.nand_reads,
           (unsigned long long) st.read_lat_p50);
  assert_int_equal (st.map_cache_misses, 1);
  assert_int_equal (st.nand_reads, 2);
  assert_true (st.read_lat_p50 >= 2 * 40000);
  ftl_close (f);
}

static void
test_names (void **state)
{
  assert_string_equal (ftl_mapping_mode_name (FTL_MAP_DFTL_SPLIT),
                       "dftl-split");
  assert_string_equal (ftl_alloc_policy_name (FTL_ALLOC_PER_OBJECT),
                       "per-object");
  assert_string_equal (ftl_gc_policy_name (FTL_GC_COST_BENEFIT),
                       "cost-benefit");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_split_reads_never_write_mapping),
    cmocka_unit_test (test_plain_dftl_reads_may_write),
    cmocka_unit_test (test_ram_mode_one_read),
    cmocka_unit_test (test_full_cache_hits),
    cmocka_unit_test (test_dftl_reopen),
    cmocka_unit_test (test_alloc_policies_delete_rewrite),
    cmocka_unit_test (test_plain_dftl_batch_update),
    cmocka_unit_test (test_split_write_miss_reads_nothing),
    cmocka_unit_test (test_split_batch_update_takes_dirtiest_page),
    cmocka_unit_test (test_read_miss_waits_for_translation),
    cmocka_unit_test (test_names),
  };
  return cmocka_run_group_tests_name ("ftl_dftl", tests, NULL, NULL);
}
