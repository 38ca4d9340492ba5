/* test_autoplan.c - deciding whether a plan is worth applying
 * (ftl_autoplan.h, docs/sofs.md): an object written scattered and read
 * sequentially is planned and applied once; the same profile planned again
 * moves nothing (the ledger: already applied; without it: the cost model
 * sees the layout already matches); a plan whose gain is not above the
 * threshold is skipped; the idle gate opens only after idle_ms of host
 * silence and new evidence, under an injected clock. */
#include "ftl_test_util.h"
#include "ftl_autoplan.h"

#define PID 1
#define OID 7
#define OTHER 8
#define UNITS 128
#define UNIT 8192

static ftl_t *
scattered_drive (void)
{
  struct ftl_config c;
  small_config (&c);
  ftl_t *f;
  ftl_error e = { "" };
  assert_int_equal (ftl_format (NULL, &c, &f, &e), 0);
  assert_int_equal (ftl_create_partition (f, PID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, OID, &e), 0);
  assert_int_equal (ftl_create_object (f, PID, OTHER, &e), 0);
  static uint8_t buf[UNIT];
  for (uint32_t i = 0; i < UNITS; i++)
    {
      uint64_t u = (i * 37u) % UNITS;   /* 37 is prime to 128 */
      fill_pattern (buf, UNIT, OID, u * UNIT, 1);
      assert_int_equal (ftl_write (f, PID, OID, u * UNIT, buf, UNIT, &e), 0);
      fill_pattern (buf, 4096, OTHER, (uint64_t) i * 4096, 1);
      assert_int_equal (ftl_write (f, PID, OTHER, (uint64_t) i * 4096, buf, 4096, &e), 0);
    }
  assert_int_equal (ftl_flush (f, &e), 0);
  return f;
}

/* a sequential scan of OID in 16 KiB reads, recorded */
static ftl_profile_t *
scanned_profile (void)
{
  struct ftl_profile_config pc;
  ftl_profile_t *p;
  ftl_error e = { "" };
  ftl_profile_config_defaults (&pc);
  assert_int_equal (ftl_profile_create (&pc, &p, &e), 0);
  ftl_profile_set_enabled (p, true);
  for (uint64_t off = 0; off < (uint64_t) UNITS * UNIT; off += 2 * UNIT)
    ftl_profile_record (p, 0, PID, OID, off, 2 * UNIT, off);
  return p;
}

struct collected
{
  size_t n;
  struct ftl_autoplan_result r[4];
  uint64_t *order;            /* the APPLY plan's, taken over */
  size_t order_n;
};

static int
collect (void *arg, struct ftl_autoplan_result *r)
{
  struct collected *c = arg;
  if (c->n < 4)
    c->r[c->n++] = *r;
  if (r->verdict == FTL_AUTOPLAN_APPLY && !c->order)
    {
      c->order = r->plan.order;
      c->order_n = r->plan.n;
      r->plan.order = NULL;
    }
  c->r[c->n - 1].plan.order = NULL;   /* freed by the walk, or ours */
  return 0;
}

static void
relocate_all (ftl_t *f, const uint64_t *order, size_t n)
{
  ftl_error e = { "" };
  size_t next = 0;
  for (int guard = 0; next < n && guard < 10000; guard++)
    {
      int r = ftl_relocate (f, PID, OID, order, n, UNIT, 32, &next, &e);
      if (r == -EAGAIN)
        ftl_idle (f, 2000000, NULL);
      else if (r)
        fail_msg ("ftl_relocate: %d %s", r, e.msg);
    }
  assert_true (next >= n);
  assert_int_equal (ftl_flush (f, &e), 0);
}

static void
test_apply_twice_moves_once (void **state)
{
  ftl_t *f = scattered_drive ();
  ftl_profile_t *p = scanned_profile ();
  struct ftl_autoplan_ledger *ledger = calloc (1, sizeof *ledger);
  ftl_error e = { "" };
  struct collected c = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, 0, ledger, collect, &c, &e), 0);
  assert_int_equal (c.n, 1);
  assert_int_equal (c.r[0].verdict, FTL_AUTOPLAN_APPLY);
  assert_int_equal (c.r[0].pid, PID);
  assert_int_equal (c.r[0].oid, OID);
  /* scattered: the two units one read takes lie in two pages or more */
  assert_true (ftl_layout_cost_milli (&c.r[0].now) >= 1900);
  /* a read's two units share a page; from one read to the next: two pages */
  assert_true (ftl_layout_cost_milli (&c.r[0].planned) <= 1500);
  assert_true (c.r[0].gain_permille > 400);
  struct ftl_layout_cost planned = c.r[0].planned;
  relocate_all (f, c.order, c.order_n);
  struct ftl_stats st;
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  uint64_t moved = st.relocated_sectors;
  assert_int_equal (moved, UNITS * 2);

  /* the same profile again: the very plan was applied */
  struct collected c2 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, 0, ledger, collect, &c2, &e), 0);
  assert_int_equal (c2.n, 1);
  assert_int_equal (c2.r[0].verdict, FTL_AUTOPLAN_SKIP_ALREADY_APPLIED);
  assert_null (c2.order);

  /* a drive that forgot its ledger sees the layout already is the plan:
   * the modelled cost now equals what was planned */
  ftl_autoplan_ledger_clear (ledger);
  struct collected c3 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, 0, ledger, collect, &c3, &e), 0);
  assert_int_equal (c3.n, 1);
  assert_int_equal (c3.r[0].verdict, FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES);
  assert_int_equal (c3.r[0].now.page_reads, planned.page_reads);
  assert_int_equal (c3.r[0].gain_permille, 0);
  /* the other planner's plan for a path graph is the same layout */
  struct collected c4 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_SOFS, 0, ledger, collect, &c4, &e), 0);
  assert_true (c4.r[0].verdict == FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES);
  assert_int_equal (ftl_get_stats (f, &st, &e), 0);
  assert_int_equal (st.relocated_sectors, moved);   /* nothing moved since */
  expect_fsck_clean (f);
  free (c.order);
  free (ledger);
  ftl_profile_destroy (p);
  ftl_close (f);
}

static void
test_threshold (void **state)
{
  ftl_t *f = scattered_drive ();
  ftl_profile_t *p = scanned_profile ();
  struct ftl_autoplan_ledger *ledger = calloc (1, sizeof *ledger);
  ftl_error e = { "" };
  struct collected c = { 0 };
  /* a gain of about half does not pass a 99.9 % bar ... */
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, 999, ledger, collect, &c, &e), 0);
  assert_int_equal (c.n, 1);
  assert_int_equal (c.r[0].verdict, FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD);
  uint64_t h;
  assert_false (ftl_autoplan_ledger_get (ledger, PID, OID, &h));   /* not recorded */
  /* ... nor one equal to it; one below it does */
  uint32_t gain = (uint32_t) c.r[0].gain_permille;
  struct collected c2 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, gain, ledger, collect, &c2, &e), 0);
  assert_int_equal (c2.r[0].verdict, FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD);
  struct collected c3 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, gain - 1, ledger, collect, &c3, &e), 0);
  assert_int_equal (c3.r[0].verdict, FTL_AUTOPLAN_APPLY);
  assert_true (ftl_autoplan_ledger_get (ledger, PID, OID, &h));
  free (c3.order);
  /* an object profiled and then removed is not planned */
  assert_int_equal (ftl_remove_object (f, PID, OID, &e), 0);
  struct collected c4 = { 0 };
  assert_int_equal (ftl_autoplan_profile (f, p, FTL_PLAN_CHAIN, 0, ledger, collect, &c4, &e), 0);
  assert_int_equal (c4.n, 0);
  free (ledger);
  ftl_profile_destroy (p);
  ftl_close (f);
}

static void
test_ledger_bounded (void **state)
{
  struct ftl_autoplan_ledger *l = calloc (1, sizeof *l);
  uint64_t h;
  for (uint64_t i = 0; i < FTL_AUTOPLAN_LEDGER_MAX + 10; i++)
    ftl_autoplan_ledger_put (l, 1, i, i * 3);
  assert_int_equal (l->n, FTL_AUTOPLAN_LEDGER_MAX);
  assert_false (ftl_autoplan_ledger_get (l, 1, 5, &h));   /* the oldest went */
  assert_true (ftl_autoplan_ledger_get (l, 1, FTL_AUTOPLAN_LEDGER_MAX + 9, &h));
  assert_int_equal (h, (FTL_AUTOPLAN_LEDGER_MAX + 9) * 3);
  ftl_autoplan_ledger_put (l, 1, 20, 7);   /* an update stays in place */
  assert_true (ftl_autoplan_ledger_get (l, 1, 20, &h));
  assert_int_equal (h, 7);
  uint64_t a[3] = { 1, 2, 3 }, b[3] = { 2, 1, 3 };
  assert_true (ftl_plan_hash (a, 3) != ftl_plan_hash (b, 3));
  assert_true (ftl_plan_hash (a, 3) != ftl_plan_hash (a, 2));
  free (l);
}

/* the gate under a virtual clock: quiet for idle_ms, and new evidence */
static void
test_idle_gate (void **state)
{
  struct ftl_autoplan_gate g = { .idle_ms = 1000 };
  assert_false (ftl_autoplan_due (&g, 999, 0, 5));    /* not idle long enough */
  assert_true (ftl_autoplan_due (&g, 1000, 0, 5));
  ftl_autoplan_evaluated (&g, 5);
  assert_false (ftl_autoplan_due (&g, 90000, 0, 5));  /* nothing new to plan from */
  assert_false (ftl_autoplan_due (&g, 90000, 89500, 6));   /* host I/O 500 ms ago */
  assert_true (ftl_autoplan_due (&g, 90500, 89500, 6));
  assert_false (ftl_autoplan_due (&g, 10, 20, 6));    /* a clock behind: not idle */
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_apply_twice_moves_once),
    cmocka_unit_test (test_threshold),
    cmocka_unit_test (test_ledger_bounded),
    cmocka_unit_test (test_idle_gate),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
