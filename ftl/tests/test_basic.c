/* test_basic.c - object API semantics on the RAM backend: create, write,
 * read, overwrite, holes, punch, set_length, remove, partitions,
 * attributes, listing, versions, atomic batches (in memory), ENOSPC. */
#include <pthread.h>

#include "ftl_test_util.h"
#include "ftl_internal.h"   /* test_fsck_detects pokes at internals */

static int
setup (void **state)
{
  struct ftl_config c;
  small_config (&c);
  ftl_t *f = NULL;
  ftl_error e = { "" };
  int r = ftl_format (NULL, &c, &f, &e);
  if (r != 0)
    fprintf (stderr, "format: %s\n", e.msg);
  assert_int_equal (r, 0);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  ftl_close (*state);
  return 0;
}

static void
test_create_write_read (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[20000], r[20000];
  size_t n;
  assert_int_equal (ftl_create_object (f, 1, 10, &e), 0);
  assert_int_equal (ftl_create_object (f, 1, 10, &e), -EEXIST);
  assert_int_equal (ftl_create_object (f, 7, 10, &e), -ENOENT);
  fill_pattern (w, sizeof w, 10, 0, 1);
  assert_int_equal (ftl_write (f, 1, 10, 100, w, sizeof w, &e), 0);
  struct ftl_object_info info;
  assert_int_equal (ftl_stat_object (f, 1, 10, &info, &e), 0);
  assert_int_equal (info.size, 100 + sizeof w);
  /* leading bytes are a hole */
  assert_int_equal (ftl_read (f, 1, 10, 0, r, 100, &n, &e), 0);
  assert_int_equal (n, 100);
  for (int i = 0; i < 100; i++)
    assert_int_equal (r[i], 0);
  assert_int_equal (ftl_read (f, 1, 10, 100, r, sizeof r, &n, &e), 0);
  assert_int_equal (n, sizeof r);
  assert_memory_equal (r, w, sizeof w);
  /* short read at the end */
  assert_int_equal (ftl_read (f, 1, 10, 100 + sizeof w - 10, r, 100, &n, &e),
                    0);
  assert_int_equal (n, 10);
  assert_memory_equal (r, w + sizeof w - 10, 10);
  assert_int_equal (ftl_read (f, 1, 10, 1 << 20, r, 100, &n, &e), 0);
  assert_int_equal (n, 0);
  assert_int_equal (ftl_read (f, 1, 11, 0, r, 100, &n, &e), -ENOENT);
  assert_true (strstr (e.msg, "11") != NULL);
  expect_fsck_clean (f);
}

static void
test_overwrite_and_versions (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[8192], r[8192];
  size_t n;
  struct ftl_object_info a, b;
  assert_int_equal (ftl_create_object (f, 1, 20, &e), 0);
  assert_int_equal (ftl_stat_object (f, 1, 20, &a, &e), 0);
  for (int gen = 0; gen < 50; gen++)
    {
      uint64_t off = (uint64_t) (gen % 7) * 8192;
      fill_pattern (w, sizeof w, 20, off, gen);
      assert_int_equal (ftl_write (f, 1, 20, off, w, sizeof w, &e), 0);
      assert_int_equal (ftl_read (f, 1, 20, off, r, sizeof r, &n, &e), 0);
      assert_memory_equal (r, w, sizeof w);
      assert_int_equal (ftl_stat_object (f, 1, 20, &b, &e), 0);
      assert_true (b.version > a.version);
      a = b;
    }
  /* unaligned small overwrite inside a sector keeps the neighbours */
  assert_int_equal (ftl_read (f, 1, 20, 0, r, 8192, &n, &e), 0);
  memcpy (w, r, 8192);
  memset (w + 5000, 0xab, 33);
  assert_int_equal (ftl_write (f, 1, 20, 5000, w + 5000, 33, &e), 0);
  assert_int_equal (ftl_read (f, 1, 20, 0, r, 8192, &n, &e), 0);
  assert_memory_equal (r, w, 8192);
  assert_int_equal (ftl_stat_object (f, 1, 20, &b, &e), 0);
  assert_int_equal (b.size, 7 * 8192);
  assert_int_equal (b.allocated, 7 * 8192);
  expect_fsck_clean (f);
}

static void
test_punch_and_length (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[65536], r[65536];
  size_t n;
  assert_int_equal (ftl_create_object (f, 1, 30, &e), 0);
  fill_pattern (w, sizeof w, 30, 0, 1);
  assert_int_equal (ftl_write (f, 1, 30, 0, w, sizeof w, &e), 0);
  /* punch [1000, 20000): unaligned both ends */
  assert_int_equal (ftl_punch (f, 1, 30, 1000, 19000, &e), 0);
  memset (w + 1000, 0, 19000);
  assert_int_equal (ftl_read (f, 1, 30, 0, r, sizeof r, &n, &e), 0);
  assert_int_equal (n, sizeof r);
  assert_memory_equal (r, w, sizeof w);
  struct ftl_object_info info;
  assert_int_equal (ftl_stat_object (f, 1, 30, &info, &e), 0);
  assert_int_equal (info.size, sizeof w);
  assert_int_equal (info.allocated, sizeof w - 3 * 4096);  /* 3 whole sectors */
  /* truncate into a sector, then extend: the tail reads as zeros */
  assert_int_equal (ftl_set_length (f, 1, 30, 30001, &e), 0);
  assert_int_equal (ftl_stat_object (f, 1, 30, &info, &e), 0);
  assert_int_equal (info.size, 30001);
  assert_int_equal (ftl_set_length (f, 1, 30, 40000, &e), 0);
  assert_int_equal (ftl_read (f, 1, 30, 0, r, sizeof r, &n, &e), 0);
  assert_int_equal (n, 40000);
  memset (w + 30001, 0, sizeof w - 30001);
  assert_memory_equal (r, w, 40000);
  assert_int_equal (ftl_set_length (f, 1, 30, 0, &e), 0);
  assert_int_equal (ftl_stat_object (f, 1, 30, &info, &e), 0);
  assert_int_equal (info.allocated, 0);
  /* punch within one sector */
  fill_pattern (w, 8192, 30, 0, 2);
  assert_int_equal (ftl_write (f, 1, 30, 0, w, 8192, &e), 0);
  assert_int_equal (ftl_punch (f, 1, 30, 10, 20, &e), 0);
  memset (w + 10, 0, 20);
  assert_int_equal (ftl_read (f, 1, 30, 0, r, 8192, &n, &e), 0);
  assert_memory_equal (r, w, 8192);
  expect_fsck_clean (f);
}

static void
test_remove_and_partitions (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[16384];
  struct ftl_device_info di;
  assert_int_equal (ftl_create_partition (f, 5, &e), 0);
  assert_int_equal (ftl_create_partition (f, 5, &e), -EEXIST);
  assert_int_equal (ftl_create_partition (f, 0, &e), -EEXIST);
  assert_int_equal (ftl_create_object (f, 5, 1, &e), 0);
  fill_pattern (w, sizeof w, 1, 0, 0);
  assert_int_equal (ftl_write (f, 5, 1, 0, w, sizeof w, &e), 0);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  uint64_t used = di.used_bytes;
  assert_true (used >= sizeof w);
  assert_int_equal (ftl_remove_partition (f, 5, &e), -ENOTEMPTY);
  assert_int_equal (ftl_remove_object (f, 5, 1, &e), 0);
  assert_int_equal (ftl_remove_object (f, 5, 1, &e), -ENOENT);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_int_equal (di.used_bytes, used - sizeof w);
  assert_int_equal (ftl_remove_partition (f, 5, &e), 0);
  assert_int_equal (ftl_remove_partition (f, 5, &e), -ENOENT);
  uint64_t pids[8];
  size_t n;
  assert_int_equal (ftl_create_partition (f, 9, &e), 0);
  assert_int_equal (ftl_create_partition (f, 3, &e), 0);
  assert_int_equal (ftl_list_partitions (f, 0, pids, 8, &n, &e), 0);
  assert_int_equal (n, 3);
  assert_int_equal (pids[0], 1);
  assert_int_equal (pids[1], 3);
  assert_int_equal (pids[2], 9);
  assert_int_equal (ftl_list_partitions (f, 3, pids, 1, &n, &e), 0);
  assert_int_equal (n, 1);
  assert_int_equal (pids[0], 9);
  expect_fsck_clean (f);
}

static void
test_attributes_and_list (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  char buf[FTL_ATTR_MAX_LEN];
  size_t len;
  assert_int_equal (ftl_create_object (f, 1, 40, &e), 0);
  assert_int_equal (ftl_get_attr (f, 1, 40, 2, 1, buf, sizeof buf, &len, &e),
                    -ENOENT);
  assert_int_equal (ftl_set_attr (f, 1, 40, 2, 1, "hello", 5, &e), 0);
  assert_int_equal (ftl_set_attr (f, 1, 40, 1, 7, "x", 1, &e), 0);
  memset (buf, 'z', sizeof buf);
  assert_int_equal (ftl_set_attr (f, 1, 40, 3, 0, buf, sizeof buf, &e), 0);
  assert_int_equal (ftl_set_attr (f, 1, 40, 3, 1, buf, sizeof buf + 1, &e),
                    -EINVAL);
  char out[8];
  assert_int_equal (ftl_get_attr (f, 1, 40, 2, 1, out, 3, &len, &e), 0);
  assert_int_equal (len, 5);
  assert_memory_equal (out, "hel", 3);
  struct ftl_attr_id ids[8];
  size_t n;
  assert_int_equal (ftl_list_attrs (f, 1, 40, (struct ftl_attr_id) { 0, 0 },
                                    ids, 8, &n, &e), 0);
  assert_int_equal (n, 3);
  assert_int_equal (ids[0].page, 1);
  assert_int_equal (ids[1].page, 2);
  assert_int_equal (ids[2].page, 3);
  assert_int_equal (ftl_list_attrs (f, 1, 40, ids[0], ids, 8, &n, &e), 0);
  assert_int_equal (n, 2);
  assert_int_equal (ftl_set_attr (f, 1, 40, 2, 1, NULL, 0, &e), 0);
  assert_int_equal (ftl_get_attr (f, 1, 40, 2, 1, out, 8, &len, &e), -ENOENT);
  /* list objects */
  assert_int_equal (ftl_create_partition (f, 2, &e), 0);
  for (int64_t oid = 100; oid > 0; oid -= 7)
    assert_int_equal (ftl_create_object (f, 2, (uint64_t) oid, &e), 0);
  uint64_t oids[100];
  assert_int_equal (ftl_list_objects (f, 2, 0, oids, 100, &n, &e), 0);
  assert_int_equal (n, 15);
  for (size_t i = 1; i < n; i++)
    assert_true (oids[i] > oids[i - 1]);
  assert_int_equal (ftl_list_objects (f, 2, oids[4], oids, 3, &n, &e), 0);
  assert_int_equal (n, 3);
  assert_int_equal (oids[0], 37);
  assert_int_equal (ftl_list_objects (f, 99, 0, oids, 3, &n, &e), -ENOENT);
  expect_fsck_clean (f);
}

static void
test_batch (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[10000], r[10000];
  size_t n, bad = 99;
  fill_pattern (w, sizeof w, 50, 0, 0);
  struct ftl_object_info info;
  struct ftl_op ok[] = {
    { .kind = FTL_OP_CREATE_OBJECT, .pid = 1, .oid = 50 },
    { .kind = FTL_OP_WRITE, .pid = 1, .oid = 50, .off = 0, .len = sizeof w,
      .data = w },
    { .kind = FTL_OP_SET_ATTR, .pid = 1, .oid = 50, .attr_page = 4,
      .attr_number = 2, .data = "v", .len = 1 },
  };
  assert_int_equal (ftl_apply_batch (f, ok, 3, &bad, &e), 0);
  assert_int_equal (ftl_read (f, 1, 50, 0, r, sizeof r, &n, &e), 0);
  assert_memory_equal (r, w, sizeof w);
  assert_int_equal (ftl_stat_object (f, 1, 50, &info, &e), 0);
  /* failing batch: nothing applied */
  uint8_t w2[4096];
  memset (w2, 0x77, sizeof w2);
  struct ftl_op fail[] = {
    { .kind = FTL_OP_WRITE, .pid = 1, .oid = 50, .off = 0, .len = sizeof w2,
      .data = w2 },
    { .kind = FTL_OP_CREATE_OBJECT, .pid = 1, .oid = 51 },
    { .kind = FTL_OP_REMOVE_OBJECT, .pid = 1, .oid = 52 },
  };
  assert_int_equal (ftl_apply_batch (f, fail, 3, &bad, &e), -ENOENT);
  assert_int_equal (bad, 2);
  assert_int_equal (ftl_read (f, 1, 50, 0, r, sizeof r, &n, &e), 0);
  assert_memory_equal (r, w, sizeof w);
  struct ftl_object_info i2;
  assert_int_equal (ftl_stat_object (f, 1, 51, &i2, &e), -ENOENT);
  /* conditional write */
  struct ftl_op cas[] = {
    { .kind = FTL_OP_WRITE, .pid = 1, .oid = 50, .off = 0, .len = sizeof w2,
      .data = w2, .expect_version = info.version + 1000 },
  };
  assert_int_equal (ftl_apply_batch (f, cas, 1, &bad, &e), -ESTALE);
  cas[0].expect_version = info.version;
  assert_int_equal (ftl_apply_batch (f, cas, 1, &bad, &e), 0);
  assert_int_equal (ftl_apply_batch (f, cas, 1, &bad, &e), -ESTALE);
  assert_int_equal (ftl_read (f, 1, 50, 0, r, 4096, &n, &e), 0);
  assert_memory_equal (r, w2, 4096);
  /* rename-like: create + write + remove */
  struct ftl_op ren[] = {
    { .kind = FTL_OP_CREATE_OBJECT, .pid = 1, .oid = 60 },
    { .kind = FTL_OP_WRITE, .pid = 1, .oid = 60, .off = 0, .len = sizeof w,
      .data = w },
    { .kind = FTL_OP_REMOVE_OBJECT, .pid = 1, .oid = 50 },
  };
  assert_int_equal (ftl_apply_batch (f, ren, 3, &bad, &e), 0);
  assert_int_equal (ftl_stat_object (f, 1, 50, &i2, &e), -ENOENT);
  assert_int_equal (ftl_read (f, 1, 60, 0, r, sizeof r, &n, &e), 0);
  assert_memory_equal (r, w, sizeof w);
  /* ENSURE: an object that exists is kept as it is (its bytes too), a
   * missing one is created; CREATE of the same still refuses */
  struct ftl_op ens[] = {
    { .kind = FTL_OP_ENSURE_OBJECT, .pid = 1, .oid = 60 },
    { .kind = FTL_OP_ENSURE_OBJECT, .pid = 1, .oid = 61 },
    { .kind = FTL_OP_SET_ATTR, .pid = 1, .oid = 60, .attr_page = 4,
      .attr_number = 3, .data = "e", .len = 1 },
    { .kind = FTL_OP_SET_ATTR, .pid = 1, .oid = 61, .attr_page = 4,
      .attr_number = 3, .data = "e", .len = 1 },
  };
  assert_int_equal (ftl_apply_batch (f, ens, 4, &bad, &e), 0);
  assert_int_equal (ftl_read (f, 1, 60, 0, r, sizeof r, &n, &e), 0);
  assert_memory_equal (r, w, sizeof w);
  assert_int_equal (ftl_stat_object (f, 1, 61, &i2, &e), 0);
  assert_int_equal (i2.size, 0);
  ens[0].kind = FTL_OP_CREATE_OBJECT;
  assert_int_equal (ftl_apply_batch (f, ens, 1, &bad, &e), -EEXIST);
  expect_fsck_clean (f);
}

static void
test_enospc (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  struct ftl_device_info di;
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  size_t chunk = 1 << 20;
  uint8_t *w = malloc (chunk);
  memset (w, 0x5a, chunk);
  assert_int_equal (ftl_create_object (f, 1, 70, &e), 0);
  uint64_t off = 0;
  int r;
  while ((r = ftl_write (f, 1, 70, off, w, chunk, &e)) == 0)
    off += chunk;
  assert_int_equal (r, -ENOSPC);
  assert_true (strstr (e.msg, "full") != NULL);
  struct ftl_object_info info;
  assert_int_equal (ftl_stat_object (f, 1, 70, &info, &e), 0);
  assert_int_equal (info.size, off);   /* failed write applied nothing */
  assert_true (off + chunk > di.free_bytes);
  /* fill the last sectors: now not one is free */
  while ((r = ftl_write (f, 1, 70, off, w, 4096, &e)) == 0)
    off += 4096;
  assert_int_equal (r, -ENOSPC);
  assert_int_equal (ftl_get_info (f, &di, &e), 0);
  assert_int_equal (di.free_bytes, 0);
  /* a batch that maps nothing new (overwrite, length, attribute) still
   * applies on a full drive: ossdfs stores inodes that way at close */
  {
    size_t bad = 0;
    struct ftl_op full[] = {
      { .kind = FTL_OP_WRITE, .pid = 1, .oid = 70, .off = 4096, .len = 4096,
        .data = w },
      { .kind = FTL_OP_SET_LENGTH, .pid = 1, .oid = 70, .len = off + 65536 },
      { .kind = FTL_OP_SET_ATTR, .pid = 1, .oid = 70, .attr_page = 0x10001,
        .attr_number = 1, .data = w, .len = 96 },
    };
    assert_int_equal (ftl_apply_batch (f, full, 3, &bad, &e), 0);
    assert_int_equal (ftl_stat_object (f, 1, 70, &info, &e), 0);
    assert_int_equal (info.size, off + 65536);
    /* one that would map a new sector still fails, and changes nothing */
    full[0].off = off + 8192;
    assert_int_equal (ftl_apply_batch (f, full, 1, &bad, &e), -ENOSPC);
    full[1].len = off;
    assert_int_equal (ftl_apply_batch (f, &full[1], 1, &bad, &e), 0);
    assert_int_equal (ftl_stat_object (f, 1, 70, &info, &e), 0);
    assert_int_equal (info.size, off);
  }
  /* overwriting in place still works when full, GC keeps up */
  for (int i = 0; i < 200; i++)
    assert_int_equal (ftl_write (f, 1, 70, ((uint64_t) i * 7919 % (off / 4096))
                                 * 4096, w, 4096, &e), 0);
  expect_fsck_clean (f);
  assert_int_equal (ftl_remove_object (f, 1, 70, &e), 0);
  assert_int_equal (ftl_create_object (f, 1, 71, &e), 0);
  assert_int_equal (ftl_write (f, 1, 71, 0, w, chunk, &e), 0);
  free (w);
  expect_fsck_clean (f);
}

struct thr
{
  ftl_t *f;
  uint64_t oid;
  int bad;
};

static void *
thread_body (void *arg)
{
  struct thr *t = arg;
  ftl_error e = { "" };
  uint8_t w[8192], r[8192];
  uint32_t gen[64] = { 0 };
  size_t n;
  uint64_t x = t->oid * 7919 + 1;
  if (ftl_create_object (t->f, 1, t->oid, &e) != 0)
    t->bad++;
  for (int i = 0; i < 3000; i++)
    {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t s = (uint32_t) (x >> 33) % 64;
      if ((x >> 20) & 1)
        {
          gen[s]++;
          fill_pattern (w, sizeof w, t->oid, s * 8192ull, gen[s]);
          if (ftl_write (t->f, 1, t->oid, s * 8192ull, w, sizeof w, &e) != 0)
            t->bad++;
        }
      else if (gen[s])
        {
          fill_pattern (w, sizeof w, t->oid, s * 8192ull, gen[s]);
          if (ftl_read (t->f, 1, t->oid, s * 8192ull, r, sizeof r, &n, &e)
              != 0 || memcmp (r, w, sizeof w) != 0)
            t->bad++;
        }
    }
  return NULL;
}

static void *
thread_housekeeping (void *arg)
{
  struct thr *t = arg;
  ftl_error e = { "" };
  struct ftl_stats st;
  for (int i = 0; i < 200; i++)
    {
      if (ftl_idle (t->f, 100000, &e) != 0 || ftl_get_stats (t->f, &st, &e)
          || ftl_flush (t->f, &e) != 0)
        t->bad++;
    }
  return NULL;
}

static void
test_threads (void **state)
{
  ftl_t *f = *state;
  pthread_t th[5];
  struct thr t[5];
  for (int i = 0; i < 5; i++)
    {
      t[i] = (struct thr) { f, 100 + (uint64_t) i, 0 };
      pthread_create (&th[i], NULL, i < 4 ? thread_body : thread_housekeeping,
                      &t[i]);
    }
  for (int i = 0; i < 5; i++)
    {
      pthread_join (th[i], NULL);
      assert_int_equal (t[i].bad, 0);
    }
  expect_fsck_clean (f);
}

static void
test_fsck_detects (void **state)
{
  ftl_t *f = *state;
  ftl_error e = { "" };
  uint8_t w[16384] = { 1 };
  uint64_t n = 0;
  assert_int_equal (ftl_create_object (f, 1, 90, &e), 0);
  assert_int_equal (ftl_write (f, 1, 90, 0, w, sizeof w, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  expect_fsck_clean (f);
  struct ftl_object *o = ftl_index_lookup (f, 1, 90);
  ppa_t p = map_get (f, o, 1);
  /* a valid sector nobody owns, and a block count that disagrees */
  ftl_map_set (f, o, 1, PPA_NONE);
  assert_int_equal (ftl_fsck (f, &n, &e), -EUCLEAN);
  assert_true (n >= 1);
  assert_true (strstr (e.msg, "sector") != NULL || strstr (e.msg, "used")
               != NULL);
  ftl_map_set (f, o, 1, p);
  expect_fsck_clean (f);
  f->free_blocks++;
  assert_int_equal (ftl_fsck (f, &n, &e), -EUCLEAN);
  assert_true (strstr (e.msg, "free block count") != NULL);
  f->free_blocks--;
  expect_fsck_clean (f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_create_write_read, setup, teardown),
    cmocka_unit_test_setup_teardown (test_overwrite_and_versions, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_punch_and_length, setup, teardown),
    cmocka_unit_test_setup_teardown (test_remove_and_partitions, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_attributes_and_list, setup,
                                     teardown),
    cmocka_unit_test_setup_teardown (test_batch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_enospc, setup, teardown),
    cmocka_unit_test_setup_teardown (test_threads, setup, teardown),
    cmocka_unit_test_setup_teardown (test_fsck_detects, setup, teardown),
  };
  return cmocka_run_group_tests_name ("ftl_basic", tests, NULL, NULL);
}
