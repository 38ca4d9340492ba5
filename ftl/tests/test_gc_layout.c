/* test_gc_layout.c - GC and static wear levelling keep a planned layout
 * (ftl_gc_layout.c, docs/sofs.md).  An object written scattered is
 * relocated in unit order while another object is written between the
 * steps (the relocated pages share blocks with data that is overwritten
 * later), then random overwrites of the other object force GC to move
 * those blocks, and hot writes force static wear-levelling migrations.
 * With the layout kept, the object's layout cost (ftl_layout_cost: NAND
 * page reads per transition), the NAND reads of a sequential scan and
 * the busiest die's share of that scan stay what the relocation made;
 * with gc_ignores_layout (the dense packing GC did before) they decay.
 * Bytes are checked after every step, fsck at the end. */
#include "ftl_test_util.h"
#include "ftl_autoplan.h"

#define PID 1
#define OID 7
#define OTHER 8
#define HOT 9
#define UNITS 256               /* 2 MiB of 8 KiB units */
#define UNIT 8192
#define OTHER_SECTORS 16384     /* 64 MiB overwritten at random */
#define SCAN_READ (64 * 1024)

static void
layout_config (struct ftl_config *c, bool ignore_layout)
{
  ftl_config_defaults (c, "ram-fast", NULL);
  c->channels = 4;
  c->ways = 2;
  c->planes = 1;
  c->blocks_per_plane = 24;
  c->pages_per_block = 32;
  c->page_size = 16384;
  c->over_provisioning = 0.2;
  c->wl_threshold = 6;
  c->gc_ignores_layout = ignore_layout;
}

static void
check_object (ftl_t *f, const char *when)
{
  ftl_error e = { "" };
  static uint8_t got[UNITS * UNIT], want[UNIT];
  size_t n;
  assert_int_equal (ftl_read (f, PID, OID, 0, got, sizeof got, &n, &e), 0);
  assert_int_equal (n, sizeof got);
  for (size_t u = 0; u < UNITS; u++)
    {
      fill_pattern (want, UNIT, OID, u * UNIT, 1);
      if (memcmp (got + u * UNIT, want, UNIT) != 0)
        fail_msg ("%s: unit %zu differs", when, u);
    }
}

struct layout_figures
{
  uint64_t cost_milli;          /* page reads per transition x 1000 */
  uint64_t scan_nand_reads;     /* of a sequential scan in 64 KiB reads */
  uint64_t busiest_die_ns;      /* the scan's work on its busiest die:
                                   what it costs when the dies run in
                                   parallel (the die / channel spread) */
};

static void
measure (ftl_t *f, struct layout_figures *out)
{
  ftl_error e = { "" };
  static struct ftl_plan_edge edges[UNITS - 1];
  for (uint64_t u = 0; u + 1 < UNITS; u++)
    edges[u] = (struct ftl_plan_edge) { u, u + 1, 1, 1 };
  struct ftl_layout_cost now;
  assert_int_equal (ftl_layout_cost (f, PID, OID, edges, UNITS - 1, UNIT, NULL,
                                     &now, NULL, &e), 0);
  out->cost_milli = ftl_layout_cost_milli (&now);
  assert_int_equal (ftl_flush (f, &e), 0);
  ftl_reset_stats (f);
  static uint8_t buf[SCAN_READ];
  size_t n;
  for (uint64_t off = 0; off < (uint64_t) UNITS * UNIT; off += SCAN_READ)
    assert_int_equal (ftl_read (f, PID, OID, off, buf, SCAN_READ, &n, &e), 0);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  out->scan_nand_reads = st.nand_reads;
  out->busiest_die_ns = st.busiest_die_ns;
}

/* Relocate OID in unit order, one NAND page per step, OTHER's next page
 * written between steps. */
static void
relocate_interleaved (ftl_t *f, uint64_t *other_next)
{
  ftl_error e = { "" };
  static uint64_t order[UNITS];
  uint8_t buf[16384];
  for (uint64_t u = 0; u < UNITS; u++)
    order[u] = u;
  size_t next = 0;
  while (next < UNITS)
    {
      int r = ftl_relocate (f, PID, OID, order, UNITS, UNIT, 2, &next, &e);
      if (r == -EAGAIN)
        {
          assert_int_equal (ftl_idle (f, 0, &e), 0);
          continue;
        }
      if (r)
        fail_msg ("ftl_relocate: %d %s", r, e.msg);
      uint64_t s = *other_next % OTHER_SECTORS;
      *other_next += 4;
      fill_pattern (buf, sizeof buf, OTHER, s * 4096, 2);
      assert_int_equal (ftl_write (f, PID, OTHER, s * 4096, buf, sizeof buf, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
}

static void
run_case (bool ignore_layout, struct layout_figures *planned,
          struct layout_figures *after, uint64_t *kept, uint64_t *moved,
          uint64_t *wl)
{
  struct ftl_config c;
  layout_config (&c, ignore_layout);
  ftl_t *f;
  ftl_error e = { "" };
  assert_int_equal (ftl_format (NULL, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, PID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, OID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, OTHER, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, HOT, &e), 0);
  /* OID scattered: its units in random order between OTHER's sectors */
  uint8_t buf[UNIT];
  uint32_t perm[UNITS];
  uint64_t x = 5;
  test_shuffle (perm, UNITS, &x);
  uint64_t other_next = 0;
  for (uint32_t i = 0; i < UNITS; i++)
    {
      fill_pattern (buf, UNIT, OID, (uint64_t) perm[i] * UNIT, 1);
      assert_int_equal (ftl_write (f, PID, OID, (uint64_t) perm[i] * UNIT, buf, UNIT, &e), 0);
      fill_pattern (buf, 4096, OTHER, other_next * 4096, 1);
      assert_int_equal (ftl_write (f, PID, OTHER, other_next * 4096, buf, 4096, &e), 0);
      other_next++;
    }
  /* the rest of OTHER */
  for (; other_next < OTHER_SECTORS; other_next += 2)
    {
      fill_pattern (buf, UNIT, OTHER, other_next * 4096, 1);
      assert_int_equal (ftl_write (f, PID, OTHER, other_next * 4096, buf, UNIT, &e), 0);
    }
  relocate_interleaved (f, &other_next);
  check_object (f, "after relocation");
  measure (f, planned);
  /* GC pressure: OTHER overwritten at random, 3 times its size; and hot
   * writes to a small object between, so erase counts drift apart and
   * static wear levelling migrates cold blocks */
  uint64_t seed = 77;
  for (int i = 0; i < 3 * OTHER_SECTORS; i++)
    {
      uint64_t s = test_lcg (&seed) % OTHER_SECTORS;
      fill_pattern (buf, 4096, OTHER, s * 4096, 3);
      assert_int_equal (ftl_write (f, PID, OTHER, s * 4096, buf, 4096, &e), 0);
      if (i % 2 == 0)
        assert_int_equal (ftl_write (f, PID, HOT, (uint64_t) (i % 16) * 4096,
                                     buf, 4096, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  *kept = st.gc_layout_kept_pages;
  *moved = st.gc_layout_moved_pages;
  *wl = st.wl_migrations;
  check_object (f, "after GC pressure");
  measure (f, after);
  expect_fsck_clean (f);
  fprintf (stderr, "# %s: cost x1000 %llu -> %llu, scan NAND reads %llu -> "
           "%llu, busiest die %llu -> %llu ns; "
           "pages kept %llu moved %llu, GC copies %llu, WL migrations %llu\n",
           ignore_layout ? "layout ignored" : "layout kept",
           (unsigned long long) planned->cost_milli,
           (unsigned long long) after->cost_milli,
           (unsigned long long) planned->scan_nand_reads,
           (unsigned long long) after->scan_nand_reads,
           (unsigned long long) planned->busiest_die_ns,
           (unsigned long long) after->busiest_die_ns,
           (unsigned long long) *kept, (unsigned long long) *moved,
           (unsigned long long) st.gc_valid_copies, (unsigned long long) *wl);
  ftl_close (f);
}

static void
test_gc_keeps_layout (void **state)
{
  struct layout_figures planned, after, planned_b, after_b;
  uint64_t kept, moved, wl, kept_b, moved_b, wl_b;
  run_case (false, &planned, &after, &kept, &moved, &wl);
  run_case (true, &planned_b, &after_b, &kept_b, &moved_b, &wl_b);
  /* the pressure did move the object's pages, by GC and by WL */
  assert_true (kept >= UNITS / 4);
  assert_true (wl > 0 && wl_b > 0);
  assert_int_equal (kept_b, 0);
  assert_int_equal (moved_b, 0);
  /* kept: the pages as the plan made them (cost, NAND reads of the scan
   * exactly), the dies nearly (a page whose die had no block to spare
   * went to another die's lane, whole: counted moved) */
  assert_int_equal (after.cost_milli, planned.cost_milli);
  assert_int_equal (after.scan_nand_reads, planned.scan_nand_reads);
  assert_true (after.busiest_die_ns * 4 <= planned.busiest_die_ns * 5);
  /* ignored: it decays (pages split, dies collapse onto GC's four) */
  assert_int_equal (planned_b.cost_milli, planned.cost_milli);
  assert_true (after_b.cost_milli > planned_b.cost_milli);
  assert_true (after_b.scan_nand_reads > planned_b.scan_nand_reads);
  assert_true (after_b.busiest_die_ns * 2 > planned_b.busiest_die_ns * 3);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_gc_keeps_layout),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
