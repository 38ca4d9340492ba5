/* test_placement.c - the balance properties of the layouts (raid/
 * raid_placement.c): MOLS declustering puts no two units of a stripe on
 * one drive, gives every drive the same number of units per cycle, maps
 * (stripe, pos) <-> (drive, offset) one to one, and spreads the rebuild of
 * any failed drive equally over all survivors; fixed groups keep a stripe
 * and its rebuild inside one group and rotate parity over its drives. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ossd_raid.h"

static void
check_layout (const struct raid_layout *L)
{
  uint32_t D = L->drives, K = L->width;
  uint64_t *units = calloc (D, sizeof *units);
  uint64_t *parity = calloc (D, sizeof *parity);
  uint8_t *seen = calloc ((size_t) D * L->drive_units, 1);
  assert_non_null (units);
  assert_non_null (seen);
  for (uint64_t s = 0; s < L->stripes; s++)
    {
      uint32_t drv[RAID_MAX_WIDTH];
      for (uint32_t p = 0; p < K; p++)
        {
          struct raid_unit_addr a = raid_layout_locate (L, s, p);
          assert_true (a.drive < D);
          assert_true (a.offset < L->drive_units);
          for (uint32_t q = 0; q < p; q++)
            assert_int_not_equal (drv[q], a.drive);   /* one unit a drive */
          drv[p] = a.drive;
          uint8_t *b = &seen[(size_t) a.drive * L->drive_units + a.offset];
          assert_int_equal (*b, 0);                   /* one to one */
          *b = 1;
          units[a.drive]++;
          if (p == K - 1)
            parity[a.drive]++;
          uint64_t s2;
          uint32_t p2;
          assert_int_equal (raid_layout_reverse (L, a.drive, a.offset, &s2,
                                                 &p2), 0);
          assert_int_equal (s2, s);
          assert_int_equal (p2, p);
        }
    }
  /* every drive used holds the same number of units, and of parity units */
  for (uint32_t d = 1; d < D; d++)
    {
      assert_int_equal (units[d], units[0]);
      assert_int_equal (parity[d], parity[0]);
    }
  assert_int_equal (units[0], L->stripes * K / D);
  free (units);
  free (parity);
  free (seen);
}

/* For failed drive f: how many units each survivor reads to rebuild it. */
static void
rebuild_reads (const struct raid_layout *L, uint32_t f, uint64_t *reads)
{
  memset (reads, 0, L->drives * sizeof *reads);
  for (uint64_t s = 0; s < L->stripes; s++)
    {
      bool has = false;
      for (uint32_t p = 0; p < L->width; p++)
        has |= raid_layout_locate (L, s, p).drive == f;
      if (!has)
        continue;
      for (uint32_t p = 0; p < L->width; p++)
        {
          uint32_t d = raid_layout_locate (L, s, p).drive;
          if (d != f)
            reads[d]++;
        }
    }
}

static void
test_mols_balance (void **state)
{
  static const uint32_t cfg[][2] = { { 5, 3 }, { 7, 3 }, { 7, 6 }, { 11, 5 },
                                     { 13, 7 }, { 29, 7 } };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    {
      struct raid_layout L;
      raid_error err;
      uint32_t n = cfg[i][0], K = cfg[i][1];
      /* two whole cycles and a bit (the bit is not used) */
      uint64_t units = 2 * (uint64_t) K * (n - 1) + 3;
      assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_MOLS, n, K, 1,
                                          units, &err), 0);
      assert_int_equal (L.stripes, 2ull * n * (n - 1));
      check_layout (&L);
      uint64_t reads[64];
      for (uint32_t f = 0; f < n; f++)
        {
          rebuild_reads (&L, f, reads);
          for (uint32_t d = 0; d < n; d++)
            if (d != f)   /* any two drives share K(K-1) stripes a cycle */
              assert_int_equal (reads[d], 2ull * K * (K - 1));
          assert_int_equal (reads[f], 0);
        }
    }
}

static void
test_mols_refuses (void **state)
{
  struct raid_layout L;
  raid_error err = { "" };
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_MOLS, 28, 7, 1, 1000,
                                      &err), -EINVAL);
  assert_non_null (strstr (err.msg, "prime"));
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_MOLS, 7, 7, 1, 1000,
                                      &err), -EINVAL);
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_MOLS, 7, 3, 1, 5,
                                      &err), -EINVAL);   /* < one cycle */
  uint64_t s;
  uint32_t p;
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_MOLS, 7, 3, 1, 18,
                                      &err), 0);
  assert_int_equal (raid_layout_reverse (&L, 7, 0, &s, &p), -ERANGE);
  assert_int_equal (raid_layout_reverse (&L, 0, 18, &s, &p), -ERANGE);
}

static void
test_groups (void **state)
{
  struct raid_layout L;
  raid_error err;
  /* 4 groups of 6+1 on 29 drives: the 29th is a spare the layout leaves */
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_GROUPS, 29, 7, 4, 70,
                                      &err), 0);
  L.drives = 28;      /* check_layout counts units over the drives used */
  check_layout (&L);
  uint64_t reads[32];
  for (uint32_t f = 0; f < 28; f++)
    {
      rebuild_reads (&L, f, reads);
      for (uint32_t d = 0; d < 28; d++)
        if (d / 7 == f / 7 && d != f)
          assert_int_equal (reads[d], 70);     /* the group's drives only */
        else
          assert_int_equal (reads[d], 0);
    }
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_GROUPS, 20, 7, 4, 70,
                                      &err), -EINVAL);
}

/* Volumes on RAID-5 groups stay on their group; on RAID-50 each volume
 * spreads evenly over all 28 drives; no stripe serves two volumes. */
static void
test_volume_maps (void **state)
{
  struct raid_layout L;
  raid_error err;
  assert_int_equal (raid_layout_init (&L, RAID_LAYOUT_GROUPS, 29, 7, 4, 70,
                                      &err), 0);
  /* 5 volumes of 32 stripes; group 0 holds volumes 0 and 4 (64 of its 70
   * rows) */
  for (int map = 0; map < 2; map++)
    {
      uint8_t used[280] = { 0 };
      for (uint32_t v = 0; v < 5; v++)
        {
          uint64_t units[29] = { 0 };
          for (uint64_t j = 0; j < 32; j++)
            {
              uint64_t s = raid_layout_volume_stripe (&L, map, v, 32, j);
              assert_true (s < L.stripes);
              assert_int_equal (used[s], 0);
              used[s] = 1;
              for (uint32_t p = 0; p < 7; p++)
                units[raid_layout_locate (&L, s, p).drive]++;
            }
          for (uint32_t d = 0; d < 29; d++)
            if (map == RAID_VMAP_GROUP)
              assert_int_equal (units[d], d / 7 == v % 4 ? 32 : 0);
            else      /* 8 stripes per group: 8 units on each drive */
              assert_int_equal (units[d], d < 28 ? 8 : 0);
        }
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_mols_balance),
    cmocka_unit_test (test_mols_refuses),
    cmocka_unit_test (test_groups),
    cmocka_unit_test (test_volume_maps),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
