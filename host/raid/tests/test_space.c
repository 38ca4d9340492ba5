/* test_space.c - the fusion space (raid/raid_space.c): replicated slots
 * in stripe with their second copy on another drive, a full stripe
 * converted only after its writes, conversion freeing the mirror, the
 * space accounting with conversion off and on, avoided drives, dead slots
 * trimmed, a stripe of dead units freed, running out of stripes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ossd_raid.h"

#define N 7
#define K 4

static struct raid_space *
make (uint64_t cycles, struct raid_layout *L)
{
  raid_error err;
  struct raid_space *sp;
  assert_int_equal (raid_layout_init (L, RAID_LAYOUT_MOLS, N, K, 1,
                                      cycles * K * (N - 1), &err), 0);
  assert_int_equal (raid_space_create (L, 2, &sp, &err), 0);
  return sp;
}

static void
test_replicate_then_convert (void **state)
{
  struct raid_layout L;
  struct raid_space *sp = make (2, &L);
  struct raid_slot sl[K - 1];
  for (int i = 0; i < K - 1; i++)
    {
      assert_int_equal (raid_space_alloc_slot (sp, NULL, NULL, &sl[i], NULL,
                                               NULL), 0);
      /* copy 1 is the stripe's own unit there; copy 2 on another drive */
      struct raid_unit_addr a = raid_layout_locate (&L, sl[i].stripe,
                                                    sl[i].pos);
      assert_int_equal (a.drive, sl[i].primary.drive);
      assert_int_equal (a.offset, sl[i].primary.offset);
      assert_int_not_equal (sl[i].primary.drive, sl[i].replica.drive);
      raid_space_write_begin (sp, sl[i].stripe);
    }
  /* two open stripes take the slots in turn: fill the first */
  uint64_t s = sl[0].stripe;
  while (raid_space_state (sp, s) == RAID_SS_OPEN)
    {
      struct raid_slot x;
      assert_int_equal (raid_space_alloc_slot (sp, NULL, NULL, &x, NULL,
                                               NULL), 0);
      if (x.stripe == s)
        raid_space_write_begin (sp, s);
    }
  assert_int_equal (raid_space_state (sp, s), RAID_SS_FULL);
  struct raid_space_usage u;
  raid_space_usage (sp, true, &u);
  assert_int_equal (u.replica_units, u.data_units);   /* conversion off: 2x */
  assert_int_equal (u.parity_units, 0);
  uint64_t c;
  /* writes in flight: not yet */
  assert_int_equal (raid_space_next_full (sp, &c), -ENOENT);
  for (int i = 0; i < 2 * (K - 1); i++)
    raid_space_write_end (sp, s);
  assert_int_equal (raid_space_next_full (sp, &c), 0);
  assert_int_equal (c, s);
  uint64_t m = raid_space_mirror (sp, s);
  raid_space_convert_begin (sp, s);
  struct raid_trim t;
  raid_space_convert_done (sp, s, &t);
  assert_int_equal (raid_space_state (sp, s), RAID_SS_RAID);
  assert_int_equal (raid_space_state (sp, m), RAID_SS_FREE);
  assert_int_equal (t.n, K - 1);               /* the mirror's copies */
  for (uint32_t i = 0; i < t.n; i++)
    {
      uint64_t ts;
      uint32_t tp;
      assert_int_equal (raid_layout_reverse (&L, t.unit[i].drive,
                                             t.unit[i].offset, &ts, &tp), 0);
      assert_int_equal (ts, m);
    }
  raid_space_usage (sp, true, &u);
  assert_int_equal (u.parity_units, 1);
  raid_space_destroy (sp);
}

static uint32_t bad_drive;
static bool
avoid_one (void *arg, uint32_t d)
{
  return d == bad_drive;
}

static void
test_avoid_and_kill (void **state)
{
  struct raid_layout L;
  struct raid_space *sp = make (4, &L);
  bad_drive = 3;
  bool steered = false;
  for (int i = 0; i < 40; i++)
    {
      struct raid_slot sl;
      bool st = false;
      assert_int_equal (raid_space_alloc_slot (sp, avoid_one, NULL, &sl,
                                               &st, NULL), 0);
      steered |= st;
      assert_int_not_equal (sl.primary.drive, bad_drive);
      assert_int_not_equal (sl.replica.drive, bad_drive);
      uint64_t fs;
      assert_int_equal (raid_space_alloc_stripe (sp, avoid_one, NULL, &fs,
                                                 NULL), 0);
      for (uint32_t p = 0; p < K; p++)
        assert_int_not_equal (raid_layout_locate (&L, fs, p).drive,
                              bad_drive);
      /* a replicated slot's death trims both copies */
      struct raid_trim t;
      raid_space_kill (sp, sl.stripe, sl.pos, &t);
      assert_int_equal (t.n, 2);
      /* a RAID stripe frees itself with its last live unit */
      for (uint32_t p = 0; p < K - 1; p++)
        {
          raid_space_kill (sp, fs, p, &t);
          assert_int_equal (t.n, p == K - 2 ? K : 0);
        }
      assert_int_equal (raid_space_state (sp, fs), RAID_SS_FREE);
    }
  assert_true (steered);
  raid_space_destroy (sp);
}

static void
test_exhaustion_and_drain (void **state)
{
  struct raid_layout L;
  struct raid_space *sp = make (1, &L);
  raid_error err = { "" };
  uint64_t s;
  int r = 0, n = 0;
  while ((r = raid_space_alloc_stripe (sp, NULL, NULL, &s, &err)) == 0)
    n++;
  assert_int_equal (r, -ENOSPC);
  assert_int_equal (n, N * (N - 1));
  assert_non_null (strstr (err.msg, "no free stripe"));
  raid_space_destroy (sp);
  /* drain: open stripes closed, converted, their unwritten slots unused */
  sp = make (1, &L);
  struct raid_slot sl;
  assert_int_equal (raid_space_alloc_slot (sp, NULL, NULL, &sl, NULL, NULL),
                    0);
  raid_space_close_open (sp);
  assert_int_equal (raid_space_full_count (sp), 1);
  assert_int_equal (raid_space_next_full (sp, &s), 0);
  raid_space_convert_begin (sp, s);
  raid_space_convert_done (sp, s, NULL);
  struct raid_space_usage u;
  raid_space_usage (sp, true, &u);
  assert_int_equal (u.data_units, 1);
  assert_int_equal (u.replica_units, 0);
  assert_int_equal (u.parity_units, 1);
  assert_int_equal (u.unused_units, K - 2);
  raid_space_destroy (sp);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_replicate_then_convert),
    cmocka_unit_test (test_avoid_and_kill),
    cmocka_unit_test (test_exhaustion_and_drain),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
