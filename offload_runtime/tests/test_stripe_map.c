/* test_stripe_map.c - a striped segment's blocks as one drive sees them
 * (ossd_scan.h: ossd_stripe_heap_block, ossd_scan_target_relblock,
 * ossd_stripe_local_ranges): odd drive counts, a segment whose last unit
 * is partial, heap ranges with gaps (blocks the host keeps), a segment
 * boundary (first_block of segment 1), and the unstriped default; RAID-5
 * (stripe_parity): every heap block on one drive, never in a parity unit,
 * the parity rotating, a segment's share of a drive split only by its
 * parity rows.
 */
#include <setjmp.h>
#include <stdbool.h>
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
      size_t k = ossd_stripe_local_ranges (unit, d, n, 0, &all, 1, NULL, 0);
      size_t k2 = ossd_stripe_local_ranges (unit, d, n, 0, &all, 1, out, 64);

      assert_int_equal (k, k2);
      /* a whole segment is one object range per drive (merged) */
      assert_true (k <= 1);
      for (size_t i = 0; i < k; i++)
        {
          assert_int_equal (out[i].start, 0);
          for (uint32_t b = out[i].start; b < out[i].start + out[i].count; b++)
            {
              uint32_t h = ossd_stripe_heap_block (unit, d, n, 0, b);
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

/* RAID-5: every heap block on exactly one drive, inside a data unit of
 * it; each drive's object blocks map to heap blocks or to parity, and the
 * parity of row r is on drive (2n - 1 - r % n) % n. */
static void
check_parity_partition (uint32_t unit, uint32_t n, uint32_t nblocks)
{
  struct ossd_block_range all = { 0, nblocks }, out[4096];
  uint8_t *seen = calloc (nblocks, 1);
  uint32_t total = 0, rows = (nblocks + unit * (n - 1) - 1) / (unit * (n - 1));

  assert_non_null (seen);
  for (uint32_t d = 0; d < n; d++)
    {
      size_t k = ossd_stripe_local_ranges (unit, d, n, 1, &all, 1, out, 4096);

      assert_true (k <= rows);
      for (size_t i = 0; i < k; i++)
        for (uint32_t b = out[i].start; b < out[i].start + out[i].count; b++)
          {
            uint32_t h = ossd_stripe_heap_block (unit, d, n, 1, b);
            assert_true (h < nblocks);
            assert_int_equal (seen[h], 0);
            assert_int_equal (ossd_stripe_unit_drive (h / unit, n, 1), d);
            seen[h] = 1;
            total++;
          }
    }
  assert_int_equal (total, nblocks);
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t d = 0; d < n; d++)
      {
        bool parity = ossd_stripe_heap_block (unit, d, n, 1, r * unit) == UINT32_MAX;
        assert_int_equal (parity, d == (2 * n - 1 - r % n) % n);
      }
  free (seen);
}

static void
test_parity_layout (void **state)
{
  struct ossd_block_range all = { 0, 48 }, out[8];
  struct ossd_scan_target t = { .first_block = 0, .stripe_unit_blocks = 8,
                                .stripe_index = 0, .stripe_count = 3,
                                .stripe_parity = 1 };

  check_parity_partition (8, 3, 100);
  check_parity_partition (8, 3, 96);
  check_parity_partition (8, 4, 13);
  check_parity_partition (128, 5, 131072);
  check_parity_partition (1, 3, 50);
  /* 3 drives, units of 8 blocks: row 0 = units 0, 1 on drives 0, 1 and
   * parity on 2; row 1 = units 2, 3 on drives 2, 0, parity on 1; row 2 =
   * units 4, 5 on drives 1, 2, parity on 0 */
  assert_int_equal (ossd_stripe_unit_drive (0, 3, 1), 0);
  assert_int_equal (ossd_stripe_unit_drive (1, 3, 1), 1);
  assert_int_equal (ossd_stripe_unit_drive (2, 3, 1), 2);
  assert_int_equal (ossd_stripe_unit_drive (3, 3, 1), 0);
  assert_int_equal (ossd_stripe_unit_drive (4, 3, 1), 1);
  assert_int_equal (ossd_stripe_unit_drive (5, 3, 1), 2);
  /* drive 0 holds heap units 0 (row 0) and 3 (row 1), parity in row 2:
   * one object range of two units */
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 3, 1, &all, 1, out, 8), 1);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[0].count, 16);
  assert_int_equal (ossd_scan_target_relblock (&t, 9), 3 * 8 + 1);
  /* drive 1: unit 1 (row 0), parity (row 1), unit 4 (row 2): two ranges */
  assert_int_equal (ossd_stripe_local_ranges (8, 1, 3, 1, &all, 1, out, 8), 2);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[1].start, 16);
  t.stripe_index = 1;
  assert_int_equal (ossd_scan_target_relblock (&t, 16), 4 * 8);
  assert_int_equal (ossd_stripe_heap_block (8, 1, 3, 1, 8), UINT32_MAX);
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
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 3, 0, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 4 * 8 + 4);
  assert_int_equal (ossd_stripe_local_ranges (8, 1, 3, 0, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 32);
  assert_int_equal (ossd_stripe_local_ranges (8, 2, 3, 0, &all, 1, out, 4), 1);
  assert_int_equal (out[0].count, 32);
  /* drive 0's last block is heap block 99 */
  assert_int_equal (ossd_stripe_heap_block (8, 0, 3, 0, 35), 99);
}

static void
test_ranges_with_gaps (void **state)
{
  /* the host keeps blocks 0-4, 20-29 (not all-visible, dirty) */
  struct ossd_block_range heap[2] = { { 5, 15 }, { 30, 1 } }, out[8];
  size_t k;

  /* drive 0 (units 0 = 0..7, 3 = 24..31): 5..7 and 30 */
  k = ossd_stripe_local_ranges (8, 0, 3, 0, heap, 2, out, 8);
  assert_int_equal (k, 2);
  assert_int_equal (out[0].start, 5);
  assert_int_equal (out[0].count, 3);
  assert_int_equal (out[1].start, 8 + 6);       /* object unit 1, offset 6 */
  assert_int_equal (out[1].count, 1);
  assert_int_equal (ossd_stripe_heap_block (8, 0, 3, 0, 14), 30);
  /* drive 1 (unit 1 = 8..15): all of it */
  k = ossd_stripe_local_ranges (8, 1, 3, 0, heap, 2, out, 8);
  assert_int_equal (k, 1);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[0].count, 8);
  /* drive 2 (unit 2 = 16..23): 16..19 */
  k = ossd_stripe_local_ranges (8, 2, 3, 0, heap, 2, out, 8);
  assert_int_equal (k, 1);
  assert_int_equal (out[0].start, 0);
  assert_int_equal (out[0].count, 4);
  /* cap smaller than the answer: the count is still the whole */
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 3, 0, heap, 2, out, 1), 2);
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
  assert_int_equal (ossd_stripe_local_ranges (8, 0, 1, 0, heap, 2, out, 4), 2);
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
    cmocka_unit_test (test_parity_layout),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
