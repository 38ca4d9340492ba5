/* test_dftl.c - mapping modes and allocation policies: the demand-cached
 * mapping (one LRU vs clean/dirty split; in split mode a host read never
 * writes a translation page and costs at most two NAND reads), data
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
    cmocka_unit_test (test_names),
  };
  return cmocka_run_group_tests_name ("ftl_dftl", tests, NULL, NULL);
}
