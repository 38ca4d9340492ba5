/* test_verifier_corpus.c - the verifier corpus (rt_corpus.h): every
 * program is verified; rejected ones must name the expected reason with
 * "insn N: ", accepted ones run in the interpreter on the sample row and
 * must give the expected result.  Also the clang-built examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rt_corpus.h"

#define NCORPUS (sizeof rt_corpus / sizeof rt_corpus[0])

static void
run_entry (void **state)
{
  const struct rt_corpus_entry *e = *state;
  uint8_t ro[RO_LEN];
  char err[256], log[512];
  struct ossd_prog *prog;
  struct rt_row *row = malloc (sizeof *row);
  struct ossd_exec_state st;

  rt_fill_rodata (ro);
  assert_int_equal (ossd_prog_from_insns (e->insns, e->n, ro, RO_LEN, &prog, err, sizeof err), 0);
  int rc = ossd_prog_verify (prog, log, sizeof log);
  if (e->reject)
    {
      if (rc == 0 || strstr (log, e->reject) == NULL || strncmp (log, "insn ", 5) != 0)
        fail_msg ("%s: expected rejection \"%s\", got rc=%d log=\"%s\"", e->name, e->reject, rc, log);
    }
  else
    {
      if (rc != 0)
        fail_msg ("%s: expected acceptance, got \"%s\"", e->name, log);
      rt_sample_row (row);
      ossd_exec_state_init (&st);
      int64_t r = ossd_interp_run (prog, &row->ctx, &st);
      if (r != e->expect)
        fail_msg ("%s: result %lld, expected %lld (fault %s at insn %u)", e->name, (long long) r,
                  (long long) e->expect, st.fault_reason ? st.fault_reason : "-", st.fault_insn);
    }
  free (row);
  ossd_prog_free (prog);
}

static void
corpus_counts (void **state)
{
  unsigned rej = 0, acc = 0;
  for (size_t i = 0; i < NCORPUS; i++)
    rt_corpus[i].reject ? rej++ : acc++;
  print_message ("# corpus: %u rejected, %u accepted (+3 clang examples)\n", rej, acc);
  assert_true (rej >= 40);
  assert_true (acc + 3 >= 20);
}

/* annotations the JIT relies on */
static void
annotations (void **state)
{
  char err[256], log[256];
  struct ossd_prog *p;
  const struct ossd_insn div[] = { LDX (DW, 2, 1, COLV (5)), MOVI (0, 100), ALUR (DIV, 0, 2), EXIT };
  assert_int_equal (ossd_prog_from_insns (div, 4, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, log, sizeof log), 0);
  assert_true (p->aux[2].flags & OSSD_AUX_DIV_ZERO);
  assert_int_equal (p->kind, OSSD_KIND_FILTER);
  ossd_prog_free (p);

  const struct ossd_insn col[] = { LDX (DW, 2, 1, COLD (3)), LDX (B, 0, 2, 0), STI (DW, 10, -8, 1),
                                   LDX (DW, 3, 10, -8), STX (DW, 1, 3, OUTV (2)), EXIT };
  assert_int_equal (ossd_prog_from_insns (col, 6, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, log, sizeof log), 0);
  assert_true (p->aux[1].flags & OSSD_AUX_CHECK);
  assert_int_equal (p->aux[1].region, OSSD_REGION_COLDATA);
  assert_int_equal (p->aux[1].col, 3);
  assert_false (p->aux[3].flags & OSSD_AUX_CHECK);
  assert_int_equal (p->aux[3].region, OSSD_REGION_STACK);
  assert_int_equal (p->aux[4].region, OSSD_REGION_OUT);
  assert_int_equal (p->kind, OSSD_KIND_MAP);
  assert_int_equal (p->stack_depth, 8);
  /* the arguments it takes: col[0..3] (col[3].data read), not ncols */
  assert_int_equal (p->ncols_read, 4);
  assert_false (p->reads_ncols);
  ossd_prog_free (p);

  /* a kernel that reads ctx->ncols takes a variable number of arguments */
  const struct ossd_insn nc[] = { LDX (W, 0, 1, 0), EXIT };
  assert_int_equal (ossd_prog_from_insns (nc, 2, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, log, sizeof log), 0);
  assert_true (p->reads_ncols);
  assert_int_equal (p->ncols_read, 0);
  ossd_prog_free (p);
}

static void
too_many_instructions (void **state)
{
  char err[256];
  struct ossd_prog *p;
  struct ossd_insn *big = calloc (OSSD_MAX_INSNS + 1, sizeof *big);
  for (int i = 0; i < OSSD_MAX_INSNS; i++)
    big[i] = (struct ossd_insn) MOVI (0, 0);
  big[OSSD_MAX_INSNS] = (struct ossd_insn) EXIT;
  assert_int_equal (ossd_prog_from_insns (big, OSSD_MAX_INSNS + 1, NULL, 0, &p, err, sizeof err), -E2BIG);
  assert_non_null (strstr (err, "limit"));
  big[OSSD_MAX_INSNS - 1] = (struct ossd_insn) EXIT;
  assert_int_equal (ossd_prog_from_insns (big, OSSD_MAX_INSNS, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
  ossd_prog_free (p);
  free (big);
}

/* ---- clang-built examples ---- */
static struct ossd_prog *
load_example (const char *name)
{
  char path[512], err[256], log[512];
  struct ossd_prog *p;
  snprintf (path, sizeof path, "%s/%s", OSSD_RT_EXAMPLES_DIR, name);
  FILE *f = fopen (path, "rb");
  if (!f)
    fail_msg ("cannot open %s", path);
  static uint8_t buf[1 << 16];
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  if (ossd_prog_load (buf, n, &p, err, sizeof err) != 0)
    fail_msg ("%s: load failed: %s", name, err);
  if (ossd_prog_verify (p, log, sizeof log) != 0)
    fail_msg ("%s: rejected: %s", name, log);
  print_message ("# %s: %s\n", name, log);
  return p;
}

static int64_t
run_row (struct ossd_prog *p, struct ossd_kctx *ctx)
{
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  return ossd_interp_run (p, ctx, &st);
}

static void
set_numeric_col (struct ossd_kctx *ctx, int i, struct ossd_numeric *n, const char *text)
{
  assert_int_equal (ossd_numeric_from_string (text, n), 0);
  ctx->col[i].data = (uint64_t) (uintptr_t) n;
  ctx->col[i].len = sizeof *n;
  ctx->col[i].type = OSSD_T_NUMERIC;
  ctx->col[i].isnull = 0;
}

static void
example_q6_filter (void **state)
{
  struct ossd_prog *p = load_example ("q6_filter.o");
  assert_int_equal (p->ncols_read, 3);
  assert_false (p->reads_ncols);
  static const struct { int32_t date; const char *disc, *qty; bool null; int64_t expect; } rows[] = {
    { -2000, "0.06", "10", false, 1 },
    { -2191, "0.05", "23.99", false, 1 },     /* lower bounds inclusive */
    { -1827, "0.07", "1", false, 1 },
    { -1826, "0.06", "10", false, 0 },        /* 1995-01-01 excluded */
    { -2192, "0.06", "10", false, 0 },
    { -2000, "0.04", "10", false, 0 },
    { -2000, "0.0701", "10", false, 0 },
    { -2000, "0.06", "24", false, 0 },
    { -2000, "0.060", "24.00", false, 0 },
    { -2000, "0.06", "10", true, 0 },
  };
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  struct ossd_numeric disc, qty;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      memset (ctx, 0, sizeof *ctx);
      ctx->ncols = 3;
      ctx->col[0].value = (uint64_t) (int64_t) rows[i].date;
      ctx->col[0].isnull = rows[i].null;
      set_numeric_col (ctx, 1, &disc, rows[i].disc);
      set_numeric_col (ctx, 2, &qty, rows[i].qty);
      int64_t r = run_row (p, ctx);
      if (r != rows[i].expect)
        fail_msg ("q6 row %zu: got %lld expected %lld", i, (long long) r, (long long) rows[i].expect);
    }
  /* numeric column without data: a fault, not a wild read */
  ctx->col[0].isnull = 0;
  ctx->col[1].data = 0;
  ctx->col[1].len = 0;
  assert_int_equal (run_row (p, ctx), OSSD_RT_FAULT);
  free (ctx);
  ossd_prog_free (p);
}

static void
example_like_filter (void **state)
{
  struct ossd_prog *p = load_example ("like_filter.o");
  assert_int_equal (p->ncols_read, 1);
  static const struct { const char *s; int64_t expect; } rows[] = {
    { "forest green metallic", 1 }, { "green", 1 }, { "gree", 0 }, { "", 0 },
    { "GREEN", 0 }, { "dark greenish", 1 },
  };
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      size_t n = strlen (rows[i].s);
      char *buf = malloc (n ? n : 1);
      memcpy (buf, rows[i].s, n);
      ctx->col[0].data = (uint64_t) (uintptr_t) buf;
      ctx->col[0].len = (uint32_t) n;
      int64_t r = run_row (p, ctx);
      if (r != rows[i].expect)
        fail_msg ("like row '%s': got %lld", rows[i].s, (long long) r);
      free (buf);
    }
  /* length larger than the data: the run-time check faults */
  char small[4] = "abc";
  ctx->col[0].data = (uint64_t) (uintptr_t) small;
  ctx->col[0].len = 4;
  assert_int_equal (run_row (p, ctx), OSSD_ROW_SKIP);
  free (ctx);
  ossd_prog_free (p);
}

static void
example_revenue_map (void **state)
{
  struct ossd_prog *p = load_example ("revenue_map.o");
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  struct ossd_numeric price, disc;
  char txt[64];
  assert_int_equal (p->kind, OSSD_KIND_MAP);
  set_numeric_col (ctx, 0, &price, "1234.56");
  set_numeric_col (ctx, 1, &disc, "0.07");
  assert_int_equal (run_row (p, ctx), OSSD_ROW_MATCH);
  assert_int_equal (ctx->out[0].isnull, 0);
  assert_int_equal (ossd_numeric_to_string (&ctx->out[0].num, txt, sizeof txt), 0);
  assert_string_equal (txt, "86.4192");
  set_numeric_col (ctx, 0, &price, "99999999999999999999999999999999");
  set_numeric_col (ctx, 1, &disc, "1000000.00");
  assert_int_equal (run_row (p, ctx), OSSD_ROW_TO_HOST);
  ctx->col[1].isnull = 1;
  assert_int_equal (run_row (p, ctx), OSSD_ROW_MATCH);
  assert_int_equal (ctx->out[0].isnull, 1);
  free (ctx);
  ossd_prog_free (p);
}

int
main (void)
{
  size_t n = NCORPUS + 6;
  struct CMUnitTest *t = calloc (n, sizeof *t);
  size_t k = 0;
  t[k++] = (struct CMUnitTest) { "corpus_counts", corpus_counts, NULL, NULL, NULL };
  for (size_t i = 0; i < NCORPUS; i++)
    t[k++] = (struct CMUnitTest) { rt_corpus[i].name, run_entry, NULL, NULL, (void *) &rt_corpus[i] };
  t[k++] = (struct CMUnitTest) { "annotations", annotations, NULL, NULL, NULL };
  t[k++] = (struct CMUnitTest) { "too_many_instructions", too_many_instructions, NULL, NULL, NULL };
  t[k++] = (struct CMUnitTest) { "example_q6_filter", example_q6_filter, NULL, NULL, NULL };
  t[k++] = (struct CMUnitTest) { "example_like_filter", example_like_filter, NULL, NULL, NULL };
  t[k++] = (struct CMUnitTest) { "example_revenue_map", example_revenue_map, NULL, NULL, NULL };
  int rc = _cmocka_run_group_tests ("verifier_corpus", t, k, NULL, NULL);
  free (t);
  return rc;
}
