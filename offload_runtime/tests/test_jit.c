/* test_jit.c - differential tests of the LLVM JIT against the reference
 * interpreter: every accepted program of the verifier corpus, the
 * clang-built examples and thousands of randomly generated programs run
 * under both on many random rows (random values, NULLs, text lengths,
 * numerics near overflow, missing column data, lowered instruction
 * budgets); verdicts, ctx contents (out[]), r0, row_to_host,
 * insns_executed, fault code, fault instruction and fault reason must be
 * identical.  Every compiled kernel must carry exactly as many run-time
 * checks as the verifier asked for.  Also: the kernel cache, exact budget
 * faults, unverified programs.
 *
 * OSSD_JIT_TEST_PROGS (default 1000) sets the number of random programs,
 * OSSD_JIT_TEST_SEED the seed. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ossd_jit.h"
#include "rt_corpus.h"
#include "jit_testgen.h"

#define NCORPUS (sizeof rt_corpus / sizeof rt_corpus[0])

static uint64_t
env_u64 (const char *name, uint64_t dflt)
{
  const char *v = getenv (name);
  return v && *v ? strtoull (v, NULL, 0) : dflt;
}

struct diff_stats
{
  uint64_t programs, rows, faults, budget, to_host, verdict[3];
};

static void
dump_prog (const struct ossd_prog *p)
{
  for (uint32_t i = 0; i < p->insn_count; i++)
    print_error ("  %3u: code=0x%02x dst=%u src=%u off=%d imm=%d\n", i, p->insns[i].code,
                 p->insns[i].dst_reg, p->insns[i].src_reg, p->insns[i].off, p->insns[i].imm);
}

/* Runs ctx under both engines with the given budget and compares. */
static void
compare_one (const struct ossd_prog *p, const struct ossd_jit_kernel *k,
             const struct ossd_kctx *ctx, uint64_t budget, const char *what,
             uint64_t seed, struct diff_stats *ds)
{
  struct ossd_kctx *a = malloc (sizeof *a), *b = malloc (sizeof *b);
  struct ossd_exec_state sa, sb;
  memcpy (a, ctx, sizeof *a);
  memcpy (b, ctx, sizeof *b);
  ossd_exec_state_init (&sa);
  sa.insn_budget = budget;
  sa.insns_executed = 777;              /* fields a run leaves alone must stay alone */
  sa.r0 = 0x5555;
  sa.fault_insn = 4242;
  sb = sa;
  int64_t ra = ossd_interp_run (p, a, &sa);
  int64_t rb = ossd_jit_run (k, b, &sb);
  const char *why = NULL;
  if (ra != rb)
    why = "result";
  else if (sa.fault != sb.fault || sa.fault_insn != sb.fault_insn)
    why = "fault";
  else if ((sa.fault_reason || sb.fault_reason)
           && (!sa.fault_reason || !sb.fault_reason || strcmp (sa.fault_reason, sb.fault_reason)))
    why = "fault_reason";
  else if (sa.r0 != sb.r0)
    why = "r0";
  else if (sa.insns_executed != sb.insns_executed)
    why = "insns_executed";
  else if (sa.row_to_host != sb.row_to_host)
    why = "row_to_host";
  else if (memcmp (a, b, sizeof *a) != 0)
    why = "ctx/out contents";
  if (why)
    {
      print_error ("%s (seed %llu, budget %llu): %s differs: interp %lld fault %d@%u '%s' r0 %llx "
                   "n %llu | jit %lld fault %d@%u '%s' r0 %llx n %llu\n", what,
                   (unsigned long long) seed, (unsigned long long) budget, why, (long long) ra,
                   sa.fault, sa.fault_insn, sa.fault_reason ? sa.fault_reason : "-",
                   (unsigned long long) sa.r0, (unsigned long long) sa.insns_executed,
                   (long long) rb, sb.fault, sb.fault_insn, sb.fault_reason ? sb.fault_reason : "-",
                   (unsigned long long) sb.r0, (unsigned long long) sb.insns_executed);
      dump_prog (p);
      fail ();
    }
  ds->rows++;
  if (ra == OSSD_RT_BUDGET)
    ds->budget++;
  else if (ra < 0)
    ds->faults++;
  else if (sa.row_to_host)
    ds->to_host++;
  else if (ra <= 2)
    ds->verdict[ra]++;
  free (a);
  free (b);
}

/* The JIT must keep one run-time check per OSSD_AUX_CHECK access and per
 * checked helper argument of every reachable instruction. */
static void
assert_checks_kept (const struct ossd_prog *p, const struct ossd_jit_kernel *k, const char *what)
{
  uint32_t want = 0;
  for (uint32_t i = 0; i < p->insn_count; i++)
    {
      if (!(p->aux[i].flags & OSSD_AUX_SEEN))
        continue;
      uint8_t cls = OSSD_BPF_CLASS (p->insns[i].code);
      if ((cls == OSSD_BPF_LDX || cls == OSSD_BPF_ST || cls == OSSD_BPF_STX)
          && (p->aux[i].flags & OSSD_AUX_CHECK))
        want++;
      if ((cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32)
          && OSSD_BPF_OP (p->insns[i].code) == OSSD_BPF_CALL)
        want += (uint32_t) __builtin_popcount (p->aux[i].arg_check);
    }
  struct ossd_jit_stats s;
  ossd_jit_kernel_stats (k, &s);
  if (s.checks != want)
    fail_msg ("%s: %u run-time checks emitted, verifier asked for %u", what, s.checks, want);
}

static struct ossd_jit_kernel *
compile_ok (const struct ossd_prog *p, int level, const char *what)
{
  struct ossd_jit_options o = { .opt_level = level };
  struct ossd_jit_kernel *k;
  char err[256];
  if (ossd_jit_compile_opts (p, &o, &k, err, sizeof err) != 0)
    {
      dump_prog (p);
      fail_msg ("%s: jit compile failed: %s", what, err);
    }
  assert_checks_kept (p, k, what);
  return k;
}

/* budget for a row: mostly the default, sometimes tiny */
static uint64_t
pick_budget (struct tg_rng *r)
{
  if (tg_chance (r, 85))
    return OSSD_ROW_INSN_BUDGET;
  return tg_below (r, 120);
}

/* ---- corpus ---- */
static void
corpus_diff (void **state)
{
  static const uint8_t kinds[6] = { TG_INT, TG_TEXT, TG_NUM, TG_DATE, TG_F8, TG_INT };
  uint64_t seed = env_u64 ("OSSD_JIT_TEST_SEED", 0x0ddba11);
  struct tg_rng rng = { seed | 1 };
  struct diff_stats ds = { 0 };
  uint8_t ro[RO_LEN];
  char err[256], log[512];
  struct tg_row *row = malloc (sizeof *row);
  struct rt_row *sample = malloc (sizeof *sample);
  rt_fill_rodata (ro);
  for (size_t i = 0; i < NCORPUS; i++)
    {
      const struct rt_corpus_entry *e = &rt_corpus[i];
      struct ossd_prog *p;
      if (e->reject)
        continue;
      assert_int_equal (ossd_prog_from_insns (e->insns, e->n, ro, RO_LEN, &p, err, sizeof err), 0);
      if (ossd_prog_verify (p, log, sizeof log) != 0)
        fail_msg ("%s: rejected: %s", e->name, log);
      for (int level = 0; level <= 2; level += 2)
        {
          struct ossd_jit_kernel *k = compile_ok (p, level, e->name);
          struct ossd_exec_state st;
          rt_sample_row (sample);
          ossd_exec_state_init (&st);
          int64_t r = ossd_jit_run (k, &sample->ctx, &st);
          if (r != e->expect)
            fail_msg ("%s (O%d): jit result %lld on the sample row, expected %lld", e->name, level,
                      (long long) r, (long long) e->expect);
          rt_sample_row (sample);
          for (uint64_t b = 0; b < 40; b++)
            compare_one (p, k, &sample->ctx, b, e->name, seed, &ds);
          for (int n = 0; n < 400; n++)
            {
              uint32_t ncols = tg_chance (&rng, 80) ? 6 : tg_below (&rng, OSSD_KCTX_MAX_COLS + 1);
              tg_row_fill (&rng, row, ncols <= 6 && tg_chance (&rng, 80) ? kinds : NULL, ncols);
              compare_one (p, k, &row->ctx, pick_budget (&rng), e->name, seed, &ds);
            }
          ossd_jit_release (k);
        }
      ds.programs++;
      ossd_prog_free (p);
    }
  print_message ("# corpus: %llu programs x O0/O2, %llu rows identical (%llu skip, %llu match, "
                 "%llu to-host, %llu faults, %llu budget)\n", (unsigned long long) ds.programs,
                 (unsigned long long) ds.rows, (unsigned long long) ds.verdict[0],
                 (unsigned long long) ds.verdict[1], (unsigned long long) (ds.to_host + ds.verdict[2]),
                 (unsigned long long) ds.faults, (unsigned long long) ds.budget);
  assert_true (ds.programs >= 20);
  free (row);
  free (sample);
}

/* ---- clang-built examples ---- */
static struct ossd_prog *
load_file (const char *path)
{
  char err[256], log[512];
  struct ossd_prog *p;
  FILE *f = fopen (path, "rb");
  if (!f)
    fail_msg ("cannot open %s", path);
  static uint8_t buf[1 << 16];
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  if (ossd_prog_load (buf, n, &p, err, sizeof err) != 0)
    fail_msg ("%s: load failed: %s", path, err);
  if (ossd_prog_verify (p, log, sizeof log) != 0)
    fail_msg ("%s: rejected: %s", path, log);
  return p;
}

static void
examples_diff (void **state)
{
  static const struct { const char *name; uint8_t n; uint8_t kinds[4]; } shapes[] = {
    { "q6_filter.o", 3, { TG_DATE, TG_NUM, TG_NUM } },
    { "like_filter.o", 1, { TG_TEXT } },
    { "revenue_map.o", 2, { TG_NUM, TG_NUM } },
  };
  uint64_t seed = env_u64 ("OSSD_JIT_TEST_SEED", 0x0ddba11);
  struct tg_rng rng = { seed ^ 0xe4a3 };
  struct tg_row *row = malloc (sizeof *row);
  DIR *d = opendir (OSSD_RT_EXAMPLES_DIR);
  struct dirent *de;
  unsigned files = 0;
  assert_non_null (d);
  while ((de = readdir (d)))
    {
      size_t len = strlen (de->d_name);
      if (len < 3 || strcmp (de->d_name + len - 2, ".o"))
        continue;
      char path[512];
      snprintf (path, sizeof path, "%s/%s", OSSD_RT_EXAMPLES_DIR, de->d_name);
      struct ossd_prog *p = load_file (path);
      const uint8_t *kinds = NULL;
      uint32_t ncols = 4;
      for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        if (!strcmp (shapes[s].name, de->d_name))
          kinds = shapes[s].kinds, ncols = shapes[s].n;
      struct diff_stats ds = { 0 };
      for (int level = 0; level <= 2; level += 2)
        {
          struct ossd_jit_kernel *k = compile_ok (p, level, de->d_name);
          for (int n = 0; n < 5000; n++)
            {
              tg_row_fill (&rng, row, tg_chance (&rng, 90) ? kinds : NULL, ncols);
              compare_one (p, k, &row->ctx, pick_budget (&rng), de->d_name, seed, &ds);
            }
          ossd_jit_release (k);
        }
      print_message ("# %s: %llu rows identical (%llu skip, %llu match, %llu to-host, "
                     "%llu faults, %llu budget)\n", de->d_name, (unsigned long long) ds.rows,
                     (unsigned long long) ds.verdict[0], (unsigned long long) ds.verdict[1],
                     (unsigned long long) (ds.to_host + ds.verdict[2]),
                     (unsigned long long) ds.faults, (unsigned long long) ds.budget);
      if (kinds)
        assert_true (ds.verdict[1] > 0 || ds.to_host > 0);
      ossd_prog_free (p);
      files++;
    }
  closedir (d);
  assert_true (files >= 3);
  free (row);
}

/* ---- random programs ---- */
static void
random_programs (void **state)
{
  uint64_t nprogs = env_u64 ("OSSD_JIT_TEST_PROGS", 1000);
  uint64_t seed = env_u64 ("OSSD_JIT_TEST_SEED", 0x0ddba11);
  struct tg_rng rng = { seed * 2654435761u + 1 };
  struct tg_prog *g = malloc (sizeof *g);
  struct tg_row *row = malloc (sizeof *row);
  struct diff_stats ds = { 0 };
  uint64_t rejected = 0, cyclic = 0, checks = 0;
  char err[256], log[512];
  for (uint64_t i = 0; i < nprogs; i++)
    {
      struct ossd_prog *p;
      tg_prog_gen (&rng, g, 4 + tg_below (&rng, 30));
      assert_int_equal (ossd_prog_from_insns (g->insn, g->n, NULL, 0, &p, err, sizeof err), 0);
      if (ossd_prog_verify (p, log, sizeof log) != 0)
        {
          rejected++;
          ossd_prog_free (p);
          continue;
        }
      char what[64];
      snprintf (what, sizeof what, "random program %llu", (unsigned long long) i);
      struct ossd_jit_kernel *k = compile_ok (p, (i & 1) ? 2 : 0, what);
      struct ossd_jit_stats s;
      ossd_jit_kernel_stats (k, &s);
      cyclic += s.cyclic;
      checks += s.checks;
      for (int n = 0; n < 40; n++)
        {
          tg_row_fill (&rng, row, NULL, 8);
          compare_one (p, k, &row->ctx, pick_budget (&rng), what, seed, &ds);
        }
      ossd_jit_release (k);
      ossd_prog_free (p);
      ds.programs++;
    }
  print_message ("# random: %llu programs generated, %llu accepted (%llu with loops, %llu run-time "
                 "checks), %llu rejected; %llu rows identical (%llu skip, %llu match, %llu faults, "
                 "%llu budget)\n", (unsigned long long) nprogs, (unsigned long long) ds.programs,
                 (unsigned long long) cyclic, (unsigned long long) checks,
                 (unsigned long long) rejected, (unsigned long long) ds.rows,
                 (unsigned long long) ds.verdict[0], (unsigned long long) ds.verdict[1],
                 (unsigned long long) ds.faults, (unsigned long long) ds.budget);
  assert_true (ds.programs * 4 >= nprogs);      /* the generator mostly makes valid programs */
  assert_true (cyclic > 0 && ds.faults > 0 && ds.budget > 0);
  free (g);
  free (row);
}

/* ---- budget: exact fault instruction, loop and loop-free programs ---- */
static void
budget_exact (void **state)
{
  const struct ossd_insn loop[] = { MOVI (0, 0), MOVI (2, 0), LD64 (3, 5), ALUR (ADD, 0, 2),
                                    ALUI (ADD, 2, 1), STX (DW, 1, 2, OUTV (0)), JI (JLT, 2, 10, -4),
                                    EXIT };
  const struct ossd_insn flat[] = { MOVI (0, 1), LD64 (3, 5), STX (DW, 1, 3, OUTV (1)),
                                    JI (JEQ, 3, 5, 1), MOVI (0, 0), ALUI (ADD, 0, 1), EXIT };
  const struct ossd_insn ja_last[] = { MOVI (0, 0), MOVI (2, 0), JI (JLT, 2, 5, 1), EXIT,
                                       ALUI (ADD, 2, 1), ALUR (ADD, 0, 2), JA (-5) };
  const struct { const struct ossd_insn *i; uint32_t n; bool cyclic; } progs[] = {
    { loop, sizeof loop / sizeof loop[0], true }, { flat, sizeof flat / sizeof flat[0], false },
    { ja_last, sizeof ja_last / sizeof ja_last[0], true },
  };
  struct diff_stats ds = { 0 };
  char err[256];
  struct rt_row *sample = malloc (sizeof *sample);
  for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
    {
      struct ossd_prog *p;
      assert_int_equal (ossd_prog_from_insns (progs[i].i, progs[i].n, NULL, 0, &p, err, sizeof err), 0);
      assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
      struct ossd_jit_kernel *k = compile_ok (p, 2, "budget");
      struct ossd_jit_stats s;
      ossd_jit_kernel_stats (k, &s);
      assert_int_equal (s.cyclic, progs[i].cyclic);
      rt_sample_row (sample);
      for (uint64_t b = 0; b < 60; b++)
        compare_one (p, k, &sample->ctx, b, "budget", 0, &ds);
      ossd_jit_release (k);
      ossd_prog_free (p);
    }
  assert_true (ds.budget > 30);
  free (sample);
}

static void
warm_up (void **state)
{
  char err[256];
  assert_int_equal (ossd_jit_warm_up (err, sizeof err), 0);
}

static void
not_verified (void **state)
{
  const struct ossd_insn ret[] = { RET (1) };
  struct ossd_prog *p;
  struct ossd_jit_kernel *k;
  char err[256];
  assert_int_equal (ossd_prog_from_insns (ret, 2, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_jit_compile (p, &k, err, sizeof err), -EPERM);
  assert_null (k);
  ossd_prog_free (p);
}

/* ---- cache ---- */
struct cache_arg
{
  struct ossd_jit_cache *c;
  const struct ossd_prog *p;
  struct ossd_jit_kernel *k;
};

static void *
cache_thread (void *arg)
{
  struct cache_arg *a = arg;
  char err[256];
  if (ossd_jit_cache_get (a->c, a->p, &a->k, err, sizeof err) != 0)
    a->k = NULL;
  return NULL;
}

static void
cache (void **state)
{
  struct ossd_prog *p[3];
  char err[256];
  for (int i = 0; i < 3; i++)
    {
      const struct ossd_insn ret[] = { RET (i) };
      assert_int_equal (ossd_prog_from_insns (ret, 2, NULL, 0, &p[i], err, sizeof err), 0);
      assert_int_equal (ossd_prog_verify (p[i], err, sizeof err), 0);
    }
  struct ossd_jit_cache *c = ossd_jit_cache_new (2);
  struct ossd_jit_cache_stats s;

  /* four threads ask for the same program at once: one compile */
  struct cache_arg a[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    {
      a[i] = (struct cache_arg) { c, p[0], NULL };
      pthread_create (&t[i], NULL, cache_thread, &a[i]);
    }
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  for (int i = 0; i < 4; i++)
    {
      assert_non_null (a[i].k);
      assert_ptr_equal (a[i].k, a[0].k);
    }
  ossd_jit_cache_get_stats (c, &s);
  assert_int_equal (s.misses, 1);
  assert_int_equal (s.hits, 3);

  /* fill and evict: p0 was used last before p2 arrives, so p1 goes */
  struct ossd_jit_kernel *k1, *k0, *k2, *k1b;
  assert_int_equal (ossd_jit_cache_get (c, p[1], &k1, err, sizeof err), 0);
  assert_int_equal (ossd_jit_cache_get (c, p[0], &k0, err, sizeof err), 0);
  assert_int_equal (ossd_jit_cache_get (c, p[2], &k2, err, sizeof err), 0);
  ossd_jit_cache_get_stats (c, &s);
  assert_int_equal (s.evictions, 1);
  assert_int_equal (s.entries, 2);
  /* the evicted kernel stays usable while referenced */
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_jit_run (k1, ctx, &st), 1);
  assert_int_equal (ossd_jit_run (k2, ctx, &st), 2);
  assert_int_equal (ossd_jit_cache_get (c, p[1], &k1b, err, sizeof err), 0);
  assert_ptr_not_equal (k1b, k1);       /* recompiled */
  assert_int_equal (ossd_jit_run (k1b, ctx, &st), 1);
  ossd_jit_cache_get_stats (c, &s);
  assert_int_equal (s.misses, 4);
  assert_true (s.compile_ns > 0);
  for (int i = 0; i < 4; i++)
    ossd_jit_release (a[i].k);
  ossd_jit_release (k0);
  ossd_jit_release (k1);
  ossd_jit_release (k1b);
  ossd_jit_release (k2);
  ossd_jit_cache_free (c);
  for (int i = 0; i < 3; i++)
    ossd_prog_free (p[i]);
  free (ctx);
}

/* Compiles from several threads at once (each compile has its own LLVM
 * context and LLJIT), and runs one kernel from several threads. */
static void *
compile_thread (void *arg)
{
  const struct ossd_prog *p = arg;
  char err[256];
  for (int i = 0; i < 8; i++)
    {
      struct ossd_jit_kernel *k;
      if (ossd_jit_compile (p, &k, err, sizeof err) != 0)
        return (void *) 1;
      struct rt_row *row = malloc (sizeof *row);
      struct ossd_exec_state st;
      rt_sample_row (row);
      ossd_exec_state_init (&st);
      int64_t r = ossd_jit_run (k, &row->ctx, &st);
      free (row);
      ossd_jit_release (k);
      if (r != 1)
        return (void *) 2;
    }
  return NULL;
}

static void
concurrent_compiles (void **state)
{
  uint8_t ro[RO_LEN];
  char err[256];
  struct ossd_prog *p[2];
  const char *names[2] = { "text_like_rodata", "numeric_mul_on_stack" };   /* both return 1 */
  rt_fill_rodata (ro);
  for (int i = 0; i < 2; i++)
    {
      p[i] = NULL;
      for (size_t j = 0; j < NCORPUS; j++)
        if (!strcmp (rt_corpus[j].name, names[i]))
          assert_int_equal (ossd_prog_from_insns (rt_corpus[j].insns, rt_corpus[j].n, ro, RO_LEN,
                                                  &p[i], err, sizeof err), 0);
      assert_non_null (p[i]);
      assert_int_equal (ossd_prog_verify (p[i], err, sizeof err), 0);
    }
  pthread_t t[2];
  void *rv[2];
  for (int i = 0; i < 2; i++)
    pthread_create (&t[i], NULL, compile_thread, p[i]);
  for (int i = 0; i < 2; i++)
    {
      pthread_join (t[i], &rv[i]);
      assert_null (rv[i]);
    }
  for (int i = 0; i < 2; i++)
    ossd_prog_free (p[i]);
}

/* ---- text and bpchar equality, inlined by the JIT ---- */

/* Both engines on every pair of a set of strings (empty, blanks only,
 * trailing blanks, one byte apart, prefixes, bytes >= 0x80), column
 * against column and column against a rodata constant, for TEXT_EQ and
 * BPCHAR_EQ; the inline code must also keep the helper's answer. */
static void
text_eq_inline (void **state)
{
  static const char *const strs[] = {
    "", " ", "   ", "a", "a ", "a  ", " a", "ab", "ab ", "abc", "abd", "abc  ",
    "MAIL", "SHIP", "MAIL ", "SM CASE", "SM CASE   ", "SM BOX", "LG CASE", "\xc3\xa9t\xc3\xa9",
    "\xc3\xa9t\xc3\xa9 ", "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456788",
  };
  const size_t n = sizeof strs / sizeof strs[0];
  const int helpers[2] = { OSSD_H_TEXT_EQ, OSSD_H_BPCHAR_EQ };
  uint8_t ro[64];
  char err[256], log[512];
  struct diff_stats ds = { 0 };
  uint64_t equal = 0;
  for (size_t c = 0; c < n; c++)
    {
      size_t clen = strlen (strs[c]);
      memset (ro, 'x', sizeof ro);
      memcpy (ro, strs[c], clen);
      for (int h = 0; h < 2; h++)
        for (int vs_col = 0; vs_col < 2; vs_col++)
          {
            const struct ossd_insn col_vs_ro[] = {
              LDX (W, 2, 1, COLL (0)), LDX (DW, 1, 1, COLD (0)), LDRO (3, 0),
              MOVI (4, (int32_t) clen), OSSD_CALL (helpers[h]), EXIT,
            };
            const struct ossd_insn col_vs_col[] = {
              LDX (W, 2, 1, COLL (0)), LDX (W, 4, 1, COLL (1)), LDX (DW, 3, 1, COLD (1)),
              LDX (DW, 1, 1, COLD (0)), OSSD_CALL (helpers[h]), EXIT,
            };
            const struct ossd_insn *ins = vs_col ? col_vs_col : col_vs_ro;
            uint32_t nins = vs_col ? sizeof col_vs_col / sizeof col_vs_col[0]
              : sizeof col_vs_ro / sizeof col_vs_ro[0];      /* LDRO takes two slots */
            struct ossd_prog *p;
            assert_int_equal (ossd_prog_from_insns (ins, nins, ro, sizeof ro, &p, err, sizeof err), 0);
            if (ossd_prog_verify (p, log, sizeof log) != 0)
              fail_msg ("text_eq_inline: rejected: %s", log);
            for (int level = 0; level <= 2; level += 2)
              {
                struct ossd_jit_kernel *k = compile_ok (p, level, "text_eq_inline");
                for (size_t r = 0; r < n; r++)
                  {
                    struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
                    ctx->ncols = 2;
                    ctx->col[0].data = (uint64_t) (uintptr_t) strs[r];
                    ctx->col[0].len = (uint32_t) strlen (strs[r]);
                    ctx->col[1].data = (uint64_t) (uintptr_t) strs[c];
                    ctx->col[1].len = (uint32_t) clen;
                    compare_one (p, k, ctx, OSSD_ROW_INSN_BUDGET, "text_eq_inline", 0, &ds);
                    struct ossd_exec_state st;
                    ossd_exec_state_init (&st);
                    int64_t got = ossd_jit_run (k, ctx, &st);
                    size_t a = strlen (strs[r]), b = clen;
                    if (helpers[h] == OSSD_H_BPCHAR_EQ)
                      {
                        while (a && strs[r][a - 1] == ' ')
                          a--;
                        while (b && strs[c][b - 1] == ' ')
                          b--;
                      }
                    int64_t want = a == b && memcmp (strs[r], strs[c], a) == 0;
                    if (got != want)
                      fail_msg ("%s('%s', '%s') = %lld, want %lld",
                                helpers[h] == OSSD_H_BPCHAR_EQ ? "bpchar_eq" : "text_eq",
                                strs[r], strs[c], (long long) got, (long long) want);
                    equal += (uint64_t) want;
                    free (ctx);
                  }
                ossd_jit_release (k);
              }
            ossd_prog_free (p);
          }
    }
  print_message ("# text_eq_inline: %llu rows identical, %llu equal pairs\n",
                 (unsigned long long) ds.rows, (unsigned long long) equal);
  assert_true (equal > 2 * n);
}

/* The kernel does not depend on the program it was compiled from. */
static void
kernel_outlives_prog (void **state)
{
  char path[512];
  snprintf (path, sizeof path, "%s/like_filter.o", OSSD_RT_EXAMPLES_DIR);
  struct ossd_prog *p = load_file (path);
  struct ossd_jit_kernel *k = compile_ok (p, 2, "like_filter");
  struct ossd_jit_stats s;
  ossd_jit_kernel_stats (k, &s);
  print_message ("# like_filter compile: %.2f ms (lift %.2f, passes %.2f, codegen %.2f), "
                 "%u insns, %u checks\n", s.total_ns / 1e6, s.lift_ns / 1e6, s.opt_ns / 1e6,
                 s.codegen_ns / 1e6, s.ebpf_insns, s.checks);
  memset (p->rodata, 0, p->rodata_len);         /* scribble, then free */
  ossd_prog_free (p);
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  static const char txt[] = "a green apple";
  ctx->col[0].data = (uint64_t) (uintptr_t) txt;
  ctx->col[0].len = sizeof txt - 1;
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_jit_run (k, ctx, &st), OSSD_ROW_MATCH);
  ctx->col[0].len = sizeof txt + 100;           /* length beyond the data: checked */
  ctx->col[0].data = 0;
  assert_int_equal (ossd_jit_run (k, ctx, &st), OSSD_RT_FAULT);
  assert_string_equal (st.fault_reason, "helper argument out of bounds");
  free (ctx);
  ossd_jit_release (k);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (warm_up),
    cmocka_unit_test (not_verified),
    cmocka_unit_test (budget_exact),
    cmocka_unit_test (corpus_diff),
    cmocka_unit_test (examples_diff),
    cmocka_unit_test (random_programs),
    cmocka_unit_test (cache),
    cmocka_unit_test (concurrent_compiles),
    cmocka_unit_test (kernel_outlives_prog),
    cmocka_unit_test (text_eq_inline),
  };
  return cmocka_run_group_tests_name ("jit", tests, NULL, NULL);
}
