/* test_stripe_map.c - a striped segment's blocks as one drive sees them
 * (ossd_scan.h: ossd_stripe_heap_block, ossd_scan_target_relblock,
 * ossd_stripe_local_ranges): odd drive counts, a segment whose last unit
 * is partial, heap ranges with gaps (blocks the host keeps), a segment
 * boundary (first_block of segment 1), and the unstriped default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ossd_scan.h"

/* Every heap block of [0, nblocks) is held by exactly one drive, at the
 * object block the local ranges give, and maps back to itself. */
static void
check_partition (uint32_t unit, uint32_t n, uint32_t nblocks)
{
  struct ossd_block_range all = { 0, nblocks }, out[64];
  uint8_t *seen = calloc (nblocks, 1);
  uint32_t total = 0;

  assert_non_null (seen);
  for (uint32_t d = 0; d < n; d++)
    {
      size_t k = ossd_stripe_local_ranges (unit, d, n, &all, 1, NULL, 0);
      size_t k2 = ossd_stripe_local_ranges (unit, d, n, &all, 1, out, 64);

      assert_int_equal (k, k2);
      /* a whole segment is one object range per drive (merged) */
      assert_true (k <= 1);
      for (size_t i = 0; i < k; i++)
        {
          assert_int_equal (out[i].start, 0);
          for (uint32_t b = out[i].start; b < out[i].start + out[i].count; b++)
            {
              uint32_t h = ossd_stripe_heap_block (unit, d, n, b);
              assert_true (h < nblocks);
              assert_int_equal (seen[h], 0);
              seen[h] = 1;
              total++;
            }
        }
    }
  assert_int_equal (total, nblocks);
  free (seen);
}

static void
test_whole_segments (void **state)
{
  check_partition (8, 3, 100);          /* 12 units and a partial one */
  check_partition (8, 3, 96);           /* whole stripes */
  check_partition (128, 5, 131072);     /* a full 1 GiB segment, 1 MiB units */
  check_partition (8, 7, 20);           /* fewer units than drives */
  check_partition (16, 2, 33);
}

static void
test_partial_last_unit (void **state)
{
  struct ossd_block_range all = { 0, 100 }, out[4];

  /* 100 blocks, units of 8, 3 drives: drive 0 units 0,3,6,9,12(4 blocks) */
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 3, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 4 * 8 + 4);
  assert_int_equal (ossd_stripe_local_ranges (8, 1, 3, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 32);
  assert_int_equal (ossd_stripe_local_ranges (8, 2, 3, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 32);
  /* drive 0's last block is heap block 99 */
  assert_int_equal (ossd_stripe_heap_block (8, 0, 3, 35), 99);
}

static void
test_ranges_with_gaps (void **state)
{
  /* the host keeps blocks 0-4, 20-29 (not all-visible, dirty) */
  struct ossd_block_range heap[2] = { { 5, 15 }, { 30, 1 } }, out[8];
  size_t k;

  /* drive 0 (units 0 = 0..7, 3 = 24..31): 5..7 and 30 */
  k = ossd_stripe_local_ranges (8, 0, 3, heap, 2, out, 8);
  assert_int_equal (k, 2);
  assert_int_equal (out[0].start, 5);
  assert_int_equal (out[0].count, 3);
  assert_int_equal (out[1].start, 8 + 6);       /* object unit 1, offset 6 */
  assert_int_equal (out[1].count, 1);
  assert_int_equal (ossd_stripe_heap_block (8, 0, 3, 14), 30);
  /* drive 1 (unit 1 = 8..15): all of it */
  k = ossd_stripe_local_ranges (8, 1, 3, heap, 2, out, 8);
  assert_int_equal (k, 1);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[0].count, 8);
  /* drive 2 (unit 2 = 16..23): 16..19 */
  k = ossd_stripe_local_ranges (8, 2, 3, heap, 2, out, 8);
  assert_int_equal (k, 1);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[0].count, 4);
  /* cap smaller than the answer: the count is still the whole */
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 3, heap, 2, out, 1), 2);
}

static void
test_segment_boundary (void **state)
{
  /* segment 1 of a relation: heap blocks from 131072 on; drive 2 of 3,
   * units of 128 blocks */
  struct ossd_scan_target t = { .first_block = 131072, .stripe_unit_blocks = 128,
                                .stripe_index = 2, .stripe_count = 3 };

  assert_int_equal (ossd_scan_target_relblock (&t, 0), 131072 + 256);
  assert_int_equal (ossd_scan_target_relblock (&t, 127), 131072 + 383);
  assert_int_equal (ossd_scan_target_relblock (&t, 128), 131072 + 3 * 128 + 256);
  /* the last block of a full segment is on drive (1024 - 1) % 3 = 0 */
  t.stripe_index = 0;
  assert_int_equal (ossd_scan_target_relblock (&t, 341 * 128 + 127), 131072 + 131071);
}

static void
test_unstriped (void **state)
{
  struct ossd_scan_target t = { .first_block = 262144 };
  struct ossd_block_range heap[2] = { { 3, 4 }, { 10, 2 } }, out[4];

  assert_int_equal (ossd_scan_target_relblock (&t, 77), 262144 + 77);
  t.stripe_count = 1;
  t.stripe_unit_blocks = 8;
  assert_int_equal (ossd_scan_target_relblock (&t, 77), 262144 + 77);
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 1, heap, 2, out, 4), 2);
  assert_int_equal (out[0].start, 3);
  assert_int_equal (out[1].start, 10);
  assert_int_equal (out[1].count, 2);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_whole_segments),
    cmocka_unit_test (test_partial_last_unit),
    cmocka_unit_test (test_ranges_with_gaps),
    cmocka_unit_test (test_segment_boundary),
    cmocka_unit_test (test_unstriped),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
