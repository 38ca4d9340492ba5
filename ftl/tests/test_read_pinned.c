/* test_read_pinned.c - in-place reads for the drive's scans
 * (ftl_read_pinned): the same bytes as ftl_read, no copy of a unit lying
 * whole in one NAND page of a mapped image (a copy otherwise: pread image,
 * data still in a write buffer, holes), the same error as ftl_read for a
 * page failing its data CRC with nothing pinned, and a pinned block is not
 * erased by GC until it is unpinned. */
#include "ftl_test_util.h"

#include <fcntl.h>

#include "ftl_internal.h"

#define OBJ_BYTES (256u << 10)
#define UNIT 8192u
#define UNITS 16u

static ftl_t *
make_drive (const char *path)
{
  struct ftl_config c;
  ftl_error e = { "" };
  ftl_t *f;
  uint8_t *buf = malloc (OBJ_BYTES);

  small_config (&c);
  unlink (path);
  assert_int_equal (ftl_format (path, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, 1, &e), 0);
  for (uint64_t oid = 1; oid <= 2; oid++)
    {
      fill_pattern (buf, OBJ_BYTES, oid, 0, 0);
      assert_int_equal (ftl_create_object (f, 1, oid, &e), 0);
      assert_int_equal (ftl_write (f, 1, oid, 0, buf, OBJ_BYTES, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
  free (buf);
  return f;
}

static uint32_t
pinned_total (ftl_t *f)
{
  uint32_t n = 0;
  for (uint32_t b = 0; b < f->nand.geo.total_blocks; b++)
    n += f->pins[b];
  return n;
}

/* Read object 1's units [0, UNITS): right bytes; returns how many were in place. */
static uint32_t
read_units (ftl_t *f, uint8_t *scratch, struct ftl_pin *pin)
{
  const uint8_t *ptrs[UNITS];
  uint8_t want[UNIT];
  ftl_error e = { "" };
  uint32_t in_place = 0;
  assert_int_equal (ftl_read_pinned (f, FTL_PRIORITY_DEFAULT, 1, 1, 0, UNIT, UNITS, scratch, ptrs, pin, &e), 0);
  for (uint32_t k = 0; k < UNITS; k++)
    {
      fill_pattern (want, UNIT, 1, (uint64_t) k * UNIT, 0);
      assert_memory_equal (ptrs[k], want, UNIT);
      if (ptrs[k] != scratch + (size_t) k * UNIT)
        in_place++;
    }
  assert_int_equal (pin->n, in_place);
  assert_int_equal (pinned_total (f), in_place);
  return in_place;
}

static void
test_in_place_mapped (void **state)
{
  char path[300];
  struct ftl_pin pin;
  uint8_t *scratch = malloc (UNITS * UNIT);
  uint64_t ip, cp;
  snprintf (path, sizeof path, "%s", tmp_image ("pin-map"));
  unsetenv ("OSSD_NAND_NO_MMAP");
  ftl_t *f = make_drive (path);
  /* written in order and flushed: every 8 KiB unit sits whole in a page */
  assert_int_equal (read_units (f, scratch, &pin), UNITS);
  ftl_unpin (f, &pin);
  assert_int_equal (pin.n, 0);
  assert_int_equal (pinned_total (f), 0);
  ftl_pinned_stats (f, &ip, &cp);
  assert_int_equal (ip, UNITS);
  assert_int_equal (cp, 0);
  /* data still in a write buffer and a hole are copied */
  uint8_t half[UNIT];
  ftl_error e = { "" };
  const uint8_t *ptrs[2];
  memset (half, 0x5a, sizeof half);
  assert_int_equal (ftl_write (f, 1, 2, OBJ_BYTES + UNIT, half, sizeof half, &e), 0);
  assert_int_equal (ftl_read_pinned (f, FTL_PRIORITY_DEFAULT, 1, 2, OBJ_BYTES, UNIT, 2, scratch, ptrs, &pin, &e), 0);
  assert_int_equal (pin.n, 0);
  assert_ptr_equal (ptrs[0], scratch);
  assert_ptr_equal (ptrs[1], scratch + UNIT);
  for (uint32_t i = 0; i < UNIT; i++)
    assert_int_equal (ptrs[0][i], 0);
  assert_memory_equal (ptrs[1], half, sizeof half);
  /* past the end: refused, nothing pinned */
  assert_int_equal (ftl_read_pinned (f, FTL_PRIORITY_DEFAULT, 1, 2, OBJ_BYTES + UNIT, UNIT, 2, scratch, ptrs,
                                     &pin, &e), -ERANGE);
  assert_int_equal (pinned_total (f), 0);
  ftl_close (f);
  unlink (path);
  free (scratch);
}

static void
test_copied_without_mapping (void **state)
{
  char path[300];
  struct ftl_pin pin;
  uint8_t *scratch = malloc (UNITS * UNIT);
  snprintf (path, sizeof path, "%s", tmp_image ("pin-pread"));
  setenv ("OSSD_NAND_NO_MMAP", "1", 1);
  ftl_t *f = make_drive (path);
  assert_int_equal (read_units (f, scratch, &pin), 0);
  ftl_unpin (f, &pin);
  ftl_close (f);
  unlink (path);
  unsetenv ("OSSD_NAND_NO_MMAP");
  free (scratch);
}

/* A bit flipped in the image: the error ftl_read gives, nothing pinned. */
static void
test_corrupt_page_fails_alike (void **state)
{
  char path[300];
  struct ftl_pin pin;
  ftl_error e = { "" }, e2 = { "" };
  const uint8_t *ptrs[UNITS];
  uint8_t *scratch = malloc (UNITS * UNIT);
  size_t n;
  snprintf (path, sizeof path, "%s", tmp_image ("pin-crc"));
  unsetenv ("OSSD_NAND_NO_MMAP");
  ftl_t *f = make_drive (path);
  struct ftl_object *o = ftl_index_lookup (f, 1, 1);
  uint64_t page = map_get (f, o, 9) / f->nand.geo.spp;
  int fd = open (path, O_RDWR);
  uint8_t c;
  off_t at = (off_t) (f->lay.data_off + page * f->nand.geo.page_size + 77);
  assert_true (fd >= 0);
  assert_int_equal (pread (fd, &c, 1, at), 1);
  c ^= 0x10;
  assert_int_equal (pwrite (fd, &c, 1, at), 1);
  close (fd);
  assert_int_equal (ftl_read_pinned (f, FTL_PRIORITY_DEFAULT, 1, 1, 0, UNIT, UNITS, scratch, ptrs, &pin, &e), -EIO);
  assert_int_equal (pin.n, 0);
  assert_int_equal (pinned_total (f), 0);
  assert_int_equal (ftl_read (f, 1, 1, 0, scratch, UNITS * UNIT, &n, &e2), -EIO);
  assert_string_equal (e.msg, e2.msg);
  assert_non_null (strstr (e.msg, "data CRC mismatch in object 1:1"));
  ftl_close (f);
  unlink (path);
  free (scratch);
}

/* GC as a writer would run it, until nothing more can be collected */
static void
collect_all (ftl_t *f)
{
  pthread_mutex_lock (&f->lock);
  for (int i = 0; i < 64; i++)
    {
      int r = ftl_gc_collect (f, UINT32_MAX, f->free_blocks + f->npending + 1, 0);
      assert_true (r == 0 || r == -ENOSPC);
    }
  pthread_mutex_unlock (&f->lock);
}

/* Object 1 pinned, then overwritten and its old blocks collected: they
 * are relocated but not erased (the pinned bytes stay), until unpinned. */
static void
test_pinned_block_not_erased (void **state)
{
  char path[300];
  struct ftl_pin pin;
  ftl_error e = { "" };
  uint8_t *scratch = malloc (UNITS * UNIT), *buf = malloc (OBJ_BYTES);
  const uint8_t *ptrs[UNITS];
  uint8_t want[UNIT];
  snprintf (path, sizeof path, "%s", tmp_image ("pin-gc"));
  unsetenv ("OSSD_NAND_NO_MMAP");
  ftl_t *f = make_drive (path);
  assert_int_equal (ftl_read_pinned (f, FTL_PRIORITY_DEFAULT, 1, 1, 0, UNIT, UNITS, scratch, ptrs, &pin, &e), 0);
  assert_int_equal (pin.n, UNITS);
  uint32_t blk = pin.block[0];
  /* overwrite everything many times over: the old blocks become victims */
  fill_pattern (buf, OBJ_BYTES, 7, 0, 1);
  for (int round = 0; round < 200; round++)
    for (uint64_t oid = 1; oid <= 2; oid++)
      assert_int_equal (ftl_write (f, 1, oid, 0, buf, OBJ_BYTES, &e), 0);
  assert_int_equal (ftl_flush (f, &e), 0);
  collect_all (f);
  assert_int_equal (f->blk[blk].valid, 0);
  assert_int_equal (f->blk[blk].state, BLK_VICTIM);   /* collected, not erased */
  for (uint32_t k = 0; k < UNITS; k++)
    {
      fill_pattern (want, UNIT, 1, (uint64_t) k * UNIT, 0);
      assert_memory_equal (ptrs[k], want, UNIT);
    }
  ftl_unpin (f, &pin);
  assert_int_equal (pinned_total (f), 0);
  collect_all (f);
  pthread_mutex_lock (&f->lock);
  assert_int_equal (ftl_gc_erase_pending_all (f), 0);
  pthread_mutex_unlock (&f->lock);
  assert_true (f->blk[blk].state != BLK_VICTIM);
  expect_fsck_clean (f);
  ftl_close (f);
  unlink (path);
  free (scratch);
  free (buf);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_in_place_mapped),
    cmocka_unit_test (test_copied_without_mapping),
    cmocka_unit_test (test_corrupt_page_fails_alike),
    cmocka_unit_test (test_pinned_block_not_erased),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
