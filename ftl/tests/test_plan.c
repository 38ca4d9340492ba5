/* test_plan.c - the layout planners (ftl_plan.h) on small graphs whose
 * plans are worked out by hand in the comments: SOFS's greedy blob and our
 * chain planner, alignment and gap filling, merging of repeated edges. */
#include "ftl_test_util.h"
#include "ftl_plan.h"

#define E(a, b, w) { (a), (b), (w), 0 }
#define EI(a, b, w, i) { (a), (b), (w), (i) }

static void
expect_order (const struct ftl_plan *p, const uint64_t *want, size_t n)
{
  assert_int_equal (p->n, n);
  for (size_t i = 0; i < n; i++)
    {
      if (p->order[i] != want[i])
        fprintf (stderr, "position %zu: got %llu, want %llu\n", i,
                 (unsigned long long) p->order[i], (unsigned long long) want[i]);
      assert_true (p->order[i] == want[i]);
    }
}

static void
plan (enum ftl_plan_kind k, const struct ftl_plan_edge *e, size_t n,
      uint32_t upp, struct ftl_plan *out)
{
  ftl_error err = { "" };
  int r = ftl_plan_build (k, e, n, upp, out, &err);
  if (r)
    fprintf (stderr, "%s\n", err.msg);
  assert_int_equal (r, 0);
}

/* 0 -> 1 -> 2 -> 3, equal weights: both planners lay the path out. */
static void
test_path (void **state)
{
  struct ftl_plan_edge e[] = { E (2, 3, 5), E (0, 1, 5), E (1, 2, 5) };
  uint64_t want[] = { 0, 1, 2, 3 };
  struct ftl_plan p;
  for (int k = 0; k < 2; k++)
    {
      plan (k, e, 3, 2, &p);
      expect_order (&p, want, 4);
      assert_int_equal (p.adjacent_weight, 15);
      assert_int_equal (p.total_weight, 15);
      assert_int_equal (p.same_page_weight, 10);   /* 0-1 and 2-3 */
      assert_int_equal (p.blobs, 1);
      ftl_plan_free (&p);
    }
}

/* 3 -> 4 (20), 1 -> 2 (10), 2 -> 9 (9), 2 -> 3 (5).
 * SOFS: seed 3 (conn 25); 4 after (20): [3 4]; 2 before (5): [2 3 4];
 * 1 before (10): [1 2 3 4]; 9 after (9): [1 2 3 4 9] - 9 ends three
 * places from 2 though 2 -> 9 outweighs 2 -> 3.  Adjacent: 10+5+20 = 35.
 * CHAIN: 3->4, 1->2, 2->9 link; 2->3 cannot (2 has a successor):
 * chains [3 4] (45) and [1 2 9] (43): 3 4 1 2 9.  Adjacent: 20+10+9 = 39. */
static void
test_sofs_blob_ends_vs_chain (void **state)
{
  struct ftl_plan_edge e[] = { E (3, 4, 20), E (1, 2, 10), E (2, 9, 9),
                               E (2, 3, 5) };
  struct ftl_plan p;
  uint64_t sofs[] = { 1, 2, 3, 4, 9 };
  plan (FTL_PLAN_SOFS, e, 4, 2, &p);
  expect_order (&p, sofs, 5);
  assert_int_equal (p.adjacent_weight, 35);
  assert_int_equal (p.blobs, 1);
  ftl_plan_free (&p);
  uint64_t chain[] = { 3, 4, 1, 2, 9 };
  plan (FTL_PLAN_CHAIN, e, 4, 2, &p);
  expect_order (&p, chain, 5);
  assert_int_equal (p.adjacent_weight, 39);
  assert_int_equal (p.same_page_weight, 30);   /* 3-4, 1-2 */
  assert_int_equal (p.blobs, 2);
  ftl_plan_free (&p);
}

/* Two components: 0 -> 1 -> 2 (10 each) and 5 -> 6 (8).
 * SOFS: blob [0 1 2] (seed 1, 0 before it on the tie), then [5 6].
 * CHAIN with 2 units per page: [0 1 2] then a gap so that [5 6] shares
 * one NAND page; with a lone unit 7 (7 -> 1, 1 already has a predecessor)
 * 7 fills the gap instead. */
static void
test_alignment_and_fill (void **state)
{
  struct ftl_plan_edge e[] = { E (0, 1, 10), E (1, 2, 10), E (5, 6, 8),
                               E (7, 1, 2) };
  struct ftl_plan p;
  uint64_t sofs[] = { 0, 1, 2, 5, 6 };
  plan (FTL_PLAN_SOFS, e, 3, 2, &p);
  expect_order (&p, sofs, 5);
  assert_int_equal (p.blobs, 2);
  ftl_plan_free (&p);
  uint64_t gap[] = { 0, 1, 2, FTL_PLAN_GAP, 5, 6 };
  plan (FTL_PLAN_CHAIN, e, 3, 2, &p);
  expect_order (&p, gap, 6);
  assert_int_equal (p.gaps, 1);
  assert_int_equal (p.units, 5);
  assert_int_equal (p.same_page_weight, 18);   /* 0-1, 5-6 */
  ftl_plan_free (&p);
  uint64_t filled[] = { 0, 1, 2, 7, 5, 6 };
  plan (FTL_PLAN_CHAIN, e, 4, 2, &p);
  expect_order (&p, filled, 6);
  assert_int_equal (p.gaps, 0);
  ftl_plan_free (&p);
  /* one unit per page: nothing to align */
  uint64_t upp1[] = { 0, 1, 2, 5, 6 };
  plan (FTL_PLAN_CHAIN, e, 3, 1, &p);
  expect_order (&p, upp1, 5);
  ftl_plan_free (&p);
}

/* With intra weights, a chain is cut where one read ended and the next
 * began: 0 -> 1 -> 2 inside reads, 2 -> 3 a jump, 3 -> 4 inside a read.
 * Segments [0 1 2] and [3 4]: at position 3 the pair would straddle two
 * pages, so a gap puts it on a page of its own.  Without intra weights the
 * chain is one segment and needs no gap. */
static void
test_segments_align_reads (void **state)
{
  struct ftl_plan_edge e[] = { EI (0, 1, 10, 10), EI (1, 2, 10, 10),
                               EI (2, 3, 10, 0), EI (3, 4, 10, 10) };
  struct ftl_plan p;
  uint64_t seg[] = { 0, 1, 2, FTL_PLAN_GAP, 3, 4 };
  plan (FTL_PLAN_CHAIN, e, 4, 2, &p);
  expect_order (&p, seg, 6);
  assert_int_equal (p.intra_weight, 30);
  assert_int_equal (p.intra_same_page_weight, 20);   /* 0-1, 3-4 */
  ftl_plan_free (&p);
  struct ftl_plan_edge u[] = { E (0, 1, 10), E (1, 2, 10), E (2, 3, 10),
                               E (3, 4, 10) };
  uint64_t one[] = { 0, 1, 2, 3, 4 };
  plan (FTL_PLAN_CHAIN, u, 4, 2, &p);
  expect_order (&p, one, 5);
  ftl_plan_free (&p);
  /* SOFS ignores reads' boundaries */
  plan (FTL_PLAN_SOFS, e, 4, 2, &p);
  expect_order (&p, one, 5);
  assert_int_equal (p.intra_same_page_weight, 10);   /* 0-1 only */
  ftl_plan_free (&p);
}

/* Repeated edges add up and self-loops vanish: 1 -> 0 three times beats
 * 0 -> 2 (2); the blob is contracted, so 2 -> {0, 1} (1 + 1) outweighs a
 * single edge 3 -> 0 of weight 1.  SOFS: seed 0 (conn 3+2+1+1 = 7):
 * 1 before (3): [1 0]; 2: out 2 (from 0) vs in 2 (1+1 = 2): the out edge
 * (2) ties with in (2) on weight and vertex, after wins: [1 0 2]; then 3
 * before: [3 1 0 2]. */
static void
test_merge_and_contraction (void **state)
{
  struct ftl_plan_edge e[] = { E (1, 0, 1), E (1, 0, 2), E (0, 0, 9),
                               E (0, 2, 2), E (2, 0, 1), E (2, 1, 1),
                               E (3, 0, 1) };
  struct ftl_plan p;
  uint64_t want[] = { 3, 1, 0, 2 };
  plan (FTL_PLAN_SOFS, e, 7, 2, &p);
  expect_order (&p, want, 4);
  assert_int_equal (p.total_weight, 3 + 2 + 1 + 1 + 1);
  ftl_plan_free (&p);
}

/* Every vertex placed exactly once on a larger random graph, both
 * planners; the chain planner keeps at least SOFS's adjacent weight on a
 * graph made of long sequences read with jumps between them. */
static void
test_random_graph_is_permutation (void **state)
{
  enum { NV = 500, NE = 3000 };
  struct ftl_plan_edge *e = malloc (NE * sizeof *e);
  uint64_t x = 12345;
  for (int i = 0; i < NE; i++)
    {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t a = (x >> 33) % NV;
      uint64_t b = (i % 3) ? (a + 1) % NV : (x >> 13) % NV;
      e[i] = (struct ftl_plan_edge) { a, b, 1 + (x >> 60) };
    }
  for (int k = 0; k < 2; k++)
    {
      struct ftl_plan p;
      plan (k, e, NE, 2, &p);
      char *seen = calloc (NV, 1);
      for (size_t i = 0; i < p.n; i++)
        {
          if (p.order[i] == FTL_PLAN_GAP)
            continue;
          assert_true (p.order[i] < NV);
          assert_int_equal (seen[p.order[i]], 0);
          seen[p.order[i]] = 1;
        }
      assert_int_equal (p.units, NV);
      assert_true (p.adjacent_weight <= p.total_weight);
      free (seen);
      ftl_plan_free (&p);
    }
  free (e);
}

static void
test_errors (void **state)
{
  struct ftl_plan p;
  ftl_error err = { "" };
  struct ftl_plan_edge e[] = { E (0, 1, 1) };
  assert_int_equal (ftl_plan_build (FTL_PLAN_CHAIN, e, 1, 0, &p, &err), -EINVAL);
  assert_non_null (strstr (err.msg, "units_per_page"));
  assert_int_equal (ftl_plan_build ((enum ftl_plan_kind) 7, e, 1, 2, &p, &err), -EINVAL);
  /* an empty graph is an empty plan */
  assert_int_equal (ftl_plan_build (FTL_PLAN_SOFS, NULL, 0, 2, &p, &err), 0);
  assert_int_equal (p.n, 0);
  ftl_plan_free (&p);
  enum ftl_plan_kind k;
  assert_int_equal (ftl_plan_kind_parse ("chain", &k), 0);
  assert_int_equal (k, FTL_PLAN_CHAIN);
  assert_int_equal (ftl_plan_kind_parse ("nope", &k), -EINVAL);
  assert_string_equal (ftl_plan_kind_name (FTL_PLAN_SOFS), "sofs");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_path),
    cmocka_unit_test (test_sofs_blob_ends_vs_chain),
    cmocka_unit_test (test_alignment_and_fill),
    cmocka_unit_test (test_segments_align_reads),
    cmocka_unit_test (test_merge_and_contraction),
    cmocka_unit_test (test_random_graph_is_permutation),
    cmocka_unit_test (test_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
