/* bench_scan.c - TPC-H Q6 on the drive's scan engine, side by side in one
 * run: the same filter + map kernels executed by the interpreter, by the
 * LLVM JIT and as hand-written C, over lineitem-like PostgreSQL heap pages
 * in memory, with 1 and 2 worker threads:
 *
 *   select sum(l_extendedprice * l_discount) from lineitem
 *   where l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01'
 *     and l_discount between 0.05 and 0.07 and l_quantity < 24
 *
 * Reports rows/s and MB/s of heap pages for whole scans (page checks,
 * visibility, deforming, numeric conversion, kernels, partial aggregate),
 * the same for the kernels alone over pre-deformed rows, JIT compile times
 * (first compile in the process and warm), and the ratios the targets are
 * stated in.  Every run's sum is checked against the exact answer computed
 * while generating the data.  Rounds interleave the engines so drift hits
 * all alike; medians are reported.
 *
 *   bench_scan [--rows N] [--rounds R] [--kernel-rows N] [--csv FILE]
 *              [--jit-opt L] [--examples DIR] [--quiet] [--help]
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_clock.h"
#include "lineitem.h"
#include "ossd_jit.h"
#include "q6_kernels.h"

#ifndef OSSD_RT_EXAMPLES_DIR
#define OSSD_RT_EXAMPLES_DIR "build/examples"
#endif

enum { ENG_C, ENG_INTERP, ENG_JIT, NENG };
static const char *eng_name[NENG] = { "c", "interp", "jit" };

static bool quiet;
static struct ossd_jit_options jit_opt = { .opt_level = 2 };

#define progress(...) bench_note (quiet, __VA_ARGS__)
#define die(what, msg) bench_die ("bench_scan", what, msg)

/* ---- what 2 threads can get on this machine right now: a pure compute
 * loop run by 1 thread, then by 2 threads at once (same work each) ---- */
static volatile uint64_t spin_sink;

static void *
spin (void *arg)
{
  uint64_t x = 88172645463325252ull, n = *(uint64_t *) arg;
  for (uint64_t i = 0; i < n; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
  spin_sink = x;
  return NULL;
}

static double
two_thread_ceiling (void)
{
  uint64_t a = 200000000, b = 200000000, c = 200000000;
  double t0 = bench_now ();
  spin (&a);
  double t1 = bench_now () - t0;
  pthread_t th;
  t0 = bench_now ();
  pthread_create (&th, NULL, spin, &b);
  spin (&c);
  pthread_join (th, NULL);
  double t2 = bench_now () - t0;
  return 2 * t1 / t2;
}

/* ---- the kernels of one engine ---- */
struct engine
{
  struct ossd_scan_kernel filter, map;
};

/* ---- scan plumbing ---- */
struct scan_ctx
{
  const struct lineitem *li;
  uint8_t *groups;
  size_t glen, gcap;
  uint64_t host_rows, host_blocks;
};

static int
read_block (void *arg, uint32_t target, uint32_t block, void *page, char *err, size_t errlen)
{
  const struct scan_ctx *s = arg;
  if (block >= s->li->npages)
    return -ENOENT;
  memcpy (page, s->li->pages + (size_t) block * OSSD_PG_BLCKSZ, OSSD_PG_BLCKSZ);
  return 0;
}

static int
sink (void *arg, const struct ossd_scan_chunk *ch)
{
  struct scan_ctx *s = arg;
  s->host_rows += ch->host_row_count;
  s->host_blocks += ch->host_block_count;
  if (ch->groups_len)
    {
      if (s->glen + ch->groups_len > s->gcap)
        {
          s->gcap = (s->glen + ch->groups_len) * 2;
          s->groups = realloc (s->groups, s->gcap);
          if (!s->groups)
            return -ENOMEM;
        }
      memcpy (s->groups + s->glen, ch->groups, ch->groups_len);
      s->glen += ch->groups_len;
    }
  return 0;
}

/* The pages carry PostgreSQL checksums; verify them in run_scan. */
static bool verify_checksums;

/* One full scan; returns wall seconds (*cpu: process CPU seconds),
 * checks the answer. */
static double
run_scan (const struct lineitem *li, const struct engine *e, uint32_t workers, const char *what,
          double *cpu)
{
  static const uint16_t bind[] = { LI_SHIPDATE, LI_DISCOUNT, LI_QUANTITY, LI_EXTENDEDPRICE };
  static const struct ossd_scan_outcol outs[] = { { OSSD_PG_NUMERICOID, -1, 4, false, -1 } };
  static const struct ossd_scan_agg aggs[] = { { OSSD_AGG_SUM, 0 } };
  struct scan_ctx s = { .li = li };
  struct ossd_block_range br = { 0, li->npages };
  struct ossd_scan_target tg = { 0, 1, &br };
  struct ossd_scan_request q = {
    .data_checksums = verify_checksums,
    .ntargets = 1, .targets = &tg, .natts = LI_NATTS, .attrs = li->attrs,
    .snapshot_xmin = 1000, .nbind = 4, .bind = bind, .filter = e->filter, .map = e->map,
    .nout = 1, .outputs = outs, .naggs = 1, .aggs = aggs, .workers = workers,
    .read_block = read_block, .read_arg = &s, .sink = sink, .sink_arg = &s,
  };
  char err[256] = "";
  struct ossd_scan_counters tot;
  double t0 = bench_now (), c0 = bench_proc_cpu ();
  if (ossd_scan_run (&q, &tot, err, sizeof err) != 0)
    die (what, err);
  double t = bench_now () - t0;
  if (cpu)
    *cpu = bench_proc_cpu () - c0;

  /* the answer: sum the partial groups (one per worker) */
  int64_t sum = 0, count = 0;
  size_t pos = 0;
  static const bool abv[] = { false };
  struct ossd_agg_state_view ag;
  int rc;
  while ((rc = ossd_group_read (s.groups, s.glen, &pos, 0, NULL, NULL, 1, abv, &ag)) == 1)
    {
      if (ag.count && ag.scale != 4)
        die (what, "unexpected sum scale");
      sum += (int64_t) ag.sum_lo;
      count += ag.count;
    }
  if (rc < 0)
    die (what, "malformed partial group");
  if (sum != li->q6_revenue || (uint64_t) count != li->q6_matches || s.host_rows
      || s.host_blocks || tot.tuples_seen != li->nrows)
    {
      fprintf (stderr, "%s: sum %lld (want %lld), matches %lld (want %llu), host rows %llu, "
               "host blocks %llu, tuples %llu\n", what, (long long) sum,
               (long long) li->q6_revenue, (long long) count,
               (unsigned long long) li->q6_matches, (unsigned long long) s.host_rows,
               (unsigned long long) s.host_blocks, (unsigned long long) tot.tuples_seen);
      die (what, "wrong answer");
    }
  free (s.groups);
  return t;
}

/* Kernels alone over pre-deformed rows; returns CPU seconds. */
static double
run_kernels (const struct lineitem *li, uint64_t nrows, const struct engine *e, const char *what)
{
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  void *fs = e->filter.thread_init ? e->filter.thread_init (e->filter.kernel) : NULL;
  void *ms = e->map.thread_init ? e->map.thread_init (e->map.kernel) : NULL;
  struct ossd_numeric sum = { 0, 0, 4, 0 };
  uint64_t matches = 0;
  ctx->ncols = 4;
  ctx->nout = 1;
  for (int i = 1; i < 4; i++)
    ctx->col[i].len = sizeof (struct ossd_numeric);
  double t0 = bench_thread_cpu ();
  for (uint64_t i = 0; i < nrows; i++)
    {
      const struct li_q6row *r = &li->rows[i % li->nrows];
      ctx->col[0].value = (uint64_t) (int64_t) r->shipdate;
      ctx->col[1].data = (uint64_t) (uintptr_t) &r->discount;
      ctx->col[2].data = (uint64_t) (uintptr_t) &r->quantity;
      ctx->col[3].data = (uint64_t) (uintptr_t) &r->price;
      int v = e->filter.exec (e->filter.kernel, ctx, fs);
      if (v == OSSD_ROW_SKIP)
        continue;
      if (v != OSSD_ROW_MATCH || e->map.exec (e->map.kernel, ctx, ms) != OSSD_ROW_MATCH
          || ossd_numeric_add (&sum, &ctx->out[0].num, &sum) < 0)
        die (what, "kernel did not decide a row");
      matches++;
    }
  double t = bench_thread_cpu () - t0;
  if (nrows == li->nrows && (matches != li->q6_matches || (int64_t) sum.lo != li->q6_revenue))
    die (what, "wrong answer (kernels)");
  if (e->filter.thread_fini)
    e->filter.thread_fini (e->filter.kernel, fs);
  if (e->map.thread_fini)
    e->map.thread_fini (e->map.kernel, ms);
  free (ctx);
  return t;
}

static struct ossd_jit_kernel *
jit (const struct ossd_prog *p, const char *what, double *ms, double *cpu_ms)
{
  struct ossd_jit_kernel *k;
  char err[256];
  if (ossd_jit_compile_opts (p, &jit_opt, &k, err, sizeof err) != 0)
    die (what, err);
  struct ossd_jit_stats s;
  ossd_jit_kernel_stats (k, &s);
  *ms = s.total_ns / 1e6;
  if (cpu_ms)
    *cpu_ms = s.cpu_ns / 1e6;
  return k;
}

static void
usage (FILE *f)
{
  fprintf (f, "usage: bench_scan [--rows N] [--rounds R] [--kernel-rows N] [--csv FILE]\n"
              "                  [--jit-opt L] [--examples DIR] [--quiet] [--help]\n"
              "TPC-H Q6 filter + sum over in-memory lineitem heap pages: interpreter, LLVM JIT\n"
              "and hand-written C, 1 and 2 scan workers, in one run.\n"
              "  --rows N         lineitem rows (default 600000)\n"
              "  --rounds R       rounds per configuration, medians reported (default 5)\n"
              "  --kernel-rows N  rows for the kernels-only measurement (default 2000000)\n"
              "  --csv FILE       write measurements as CSV\n"
              "  --jit-opt L      JIT IR optimisation: 0 none, 1 light, 2 default<O2> (default 2)\n"
              "  --examples DIR   where q6_filter.o is (default %s)\n", OSSD_RT_EXAMPLES_DIR);
}

int
main (int argc, char **argv)
{
  uint64_t nrows = 600000, krows = 2000000;
  int rounds = 5;
  const char *csv = NULL, *exdir = OSSD_RT_EXAMPLES_DIR;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (!strcmp (a, "--help") || !strcmp (a, "-h"))
        {
          usage (stdout);
          return 0;
        }
      else if (!strcmp (a, "--quiet"))
        quiet = true;
      else if (v && !strcmp (a, "--rows"))
        nrows = strtoull (argv[++i], NULL, 0);
      else if (v && !strcmp (a, "--kernel-rows"))
        krows = strtoull (argv[++i], NULL, 0);
      else if (v && !strcmp (a, "--rounds"))
        rounds = atoi (argv[++i]);
      else if (v && !strcmp (a, "--csv"))
        csv = argv[++i];
      else if (v && !strcmp (a, "--jit-opt"))
        jit_opt.opt_level = atoi (argv[++i]);
      else if (v && !strcmp (a, "--examples"))
        exdir = argv[++i];
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (nrows == 0 || rounds < 1 || krows == 0)
    {
      usage (stderr);
      return 2;
    }

  /* ---- data ---- */
  struct lineitem li;
  progress ("building %llu lineitem rows ...\n", (unsigned long long) nrows);
  if (lineitem_build (&li, nrows, 0x5eed) != 0)
    die ("lineitem", "cannot build pages");
  double mb = (double) li.npages * OSSD_PG_BLCKSZ / 1e6;
  printf ("data: %llu rows in %u heap pages (%.1f MB), Q6 selects %llu rows (%.2f%%)\n",
          (unsigned long long) li.nrows, li.npages, mb, (unsigned long long) li.q6_matches,
          100.0 * li.q6_matches / li.nrows);
  /* as a cluster with data checksums writes them (block n at n) */
  for (uint32_t b = 0; b < li.npages; b++)
    {
      uint8_t *pg = li.pages + (size_t) b * OSSD_PG_BLCKSZ;
      uint16_t ck = ossd_pg_checksum_page (pg, b);
      memcpy (pg + 8, &ck, 2);
    }
  fflush (stdout);

  /* ---- kernels ---- */
  char err[256], path[512];
  struct ossd_prog *fprog, *mprog;
  snprintf (path, sizeof path, "%s/q6_filter.o", exdir);
  if (q6_load_filter (path, &fprog, err, sizeof err) != 0)
    die ("q6_filter.o", err);
  if (q6_build_map (&mprog, err, sizeof err) != 0)
    die ("q6 map", err);
  double cold_f, cold_m;
  progress ("JIT compiling ...\n");
  struct ossd_jit_kernel *kf = jit (fprog, "jit filter", &cold_f, NULL);
  struct ossd_jit_kernel *km = jit (mprog, "jit map", &cold_m, NULL);
  enum { NCOMP = 21 };
  double warm_f[NCOMP], warm_fc[NCOMP], warm_m[NCOMP];
  struct ossd_jit_stats fst;
  for (int i = 0; i < NCOMP; i++)
    {
      ossd_jit_release (jit (fprog, "jit filter", &warm_f[i], &warm_fc[i]));
      ossd_jit_release (jit (mprog, "jit map", &warm_m[i], NULL));
    }
  ossd_jit_kernel_stats (kf, &fst);
  double max_f = 0;
  for (int i = 0; i < NCOMP; i++)
    max_f = warm_f[i] > max_f ? warm_f[i] : max_f;
  printf ("jit compile: q6_filter (%u eBPF insns, %u run-time checks) first %.2f ms "
          "(lift %.2f, passes %.2f, codegen %.2f), warm median %.2f ms wall / %.2f ms CPU "
          "(max %.2f, %d compiles); map first %.2f ms, warm median %.2f ms\n", fst.ebpf_insns,
          fst.checks, cold_f, fst.lift_ns / 1e6, fst.opt_ns / 1e6, fst.codegen_ns / 1e6,
          bench_median (warm_f, NCOMP), bench_median (warm_fc, NCOMP), max_f, NCOMP, cold_m,
          bench_median (warm_m, NCOMP));
  fflush (stdout);

  struct engine eng[NENG] = {
    [ENG_C] = { { q6_c_filter, NULL, NULL, NULL }, { q6_c_map, NULL, NULL, NULL } },
    [ENG_INTERP] = { ossd_interp_scan_kernel (fprog), ossd_interp_scan_kernel (mprog) },
    [ENG_JIT] = { ossd_jit_scan_kernel (kf), ossd_jit_scan_kernel (km) },
  };

  /* ---- measurements ---- */
  double ceil_before = two_thread_ceiling ();
  double *kt[NENG], *st[NENG][2], *sc[NENG][2];
  for (int e = 0; e < NENG; e++)
    {
      kt[e] = calloc (rounds, sizeof (double));
      for (int w = 0; w < 2; w++)
        {
          st[e][w] = calloc (rounds, sizeof (double));
          sc[e][w] = calloc (rounds, sizeof (double));
        }
    }
  FILE *cf = csv ? fopen (csv, "w") : NULL;
  if (csv && !cf)
    die (csv, strerror (errno));
  if (cf)
    fprintf (cf, "section,engine,workers,round,seconds,rows_per_s,mb_per_s,cpu_seconds\n");
  for (int e = 0; e < NENG; e++)                /* warm-up, and the answer check */
    {
      run_kernels (&li, li.nrows, &eng[e], eng_name[e]);
      run_scan (&li, &eng[e], 1, eng_name[e], NULL);
    }
  for (int r = 0; r < rounds; r++)
    {
      progress ("round %d/%d:", r + 1, rounds);
      for (int e = 0; e < NENG; e++)
        {
          kt[e][r] = run_kernels (&li, krows, &eng[e], eng_name[e]);
          if (cf)
            fprintf (cf, "kernels,%s,1,%d,%.6f,%.0f,\n", eng_name[e], r, kt[e][r], krows / kt[e][r]);
          for (int w = 0; w < 2; w++)
            {
              st[e][w][r] = run_scan (&li, &eng[e], w + 1, eng_name[e], &sc[e][w][r]);
              if (cf)
                fprintf (cf, "scan,%s,%d,%d,%.6f,%.0f,%.1f,%.6f\n", eng_name[e], w + 1, r,
                         st[e][w][r], li.nrows / st[e][w][r], mb / st[e][w][r], sc[e][w][r]);
              progress (" %s/%dw %.0f ms", eng_name[e], w + 1, st[e][w][r] * 1e3);
            }
        }
      progress ("\n");
    }
  /* the same JIT scan with and without PostgreSQL checksum verification,
   * alternating, so that the cost of verification is a ratio of one run */
  double *ck_off = calloc (rounds, sizeof (double)), *ck_on = calloc (rounds, sizeof (double));
  for (int r = 0; r < rounds; r++)
    for (int on = 0; on < 2; on++)
      {
        verify_checksums = on;
        (on ? ck_on : ck_off)[r] = run_scan (&li, &eng[ENG_JIT], 1, "jit checksums", NULL);
        if (cf)
          fprintf (cf, "checksums,jit,%s,%d,%.6f,%.0f,%.1f,\n", on ? "on" : "off", r,
                   (on ? ck_on : ck_off)[r], li.nrows / (on ? ck_on : ck_off)[r],
                   mb / (on ? ck_on : ck_off)[r]);
      }
  verify_checksums = false;
  if (cf)
    fclose (cf);

  /* ---- report: best of R (least disturbed by other load on the machine)
   * and median ---- */
  double kb[NENG], kmed[NENG], sb[NENG][2], smed[NENG][2], scb[NENG][2];
  for (int e = 0; e < NENG; e++)
    {
      kb[e] = bench_best (kt[e], rounds);
      kmed[e] = bench_median (kt[e], rounds);
      for (int w = 0; w < 2; w++)
        {
          sb[e][w] = bench_best (st[e][w], rounds);
          smed[e][w] = bench_median (st[e][w], rounds);
          scb[e][w] = bench_best (sc[e][w], rounds);
        }
    }
  printf ("\nwhole scan (best / median of %d rounds; page checks, visibility, deform, numeric "
          "conversion, kernels, sum; wall clock):\n", rounds);
  printf ("  %-7s %7s %12s %12s %10s %10s %12s\n", "engine", "workers", "rows/s best",
          "rows/s med", "MB/s best", "vs C best", "CPU ms best");
  for (int e = 0; e < NENG; e++)
    for (int w = 0; w < 2; w++)
      printf ("  %-7s %7d %12.0f %12.0f %10.1f %9.2fx %12.1f\n", eng_name[e], w + 1,
              li.nrows / sb[e][w], li.nrows / smed[e][w], mb / sb[e][w], sb[ENG_C][w] / sb[e][w],
              scb[e][w] * 1e3);
  printf ("kernels only over pre-deformed rows (best / median of %d rounds, %llu rows, 1 thread, "
          "CPU time):\n", rounds, (unsigned long long) krows);
  printf ("  %-7s %12s %12s %10s %10s\n", "engine", "rows/s best", "rows/s med", "ns/row",
          "vs C best");
  for (int e = 0; e < NENG; e++)
    printf ("  %-7s %12.0f %12.0f %10.1f %9.2fx\n", eng_name[e], krows / kb[e], krows / kmed[e],
            kb[e] / krows * 1e9, kb[ENG_C] / kb[e]);

  double r_jit_c = sb[ENG_C][0] / sb[ENG_JIT][0], r_jit_c_k = kb[ENG_C] / kb[ENG_JIT];
  double r_2w = sb[ENG_JIT][0] / sb[ENG_JIT][1], med_f = bench_median (warm_f, NCOMP);
  printf ("\nratios (best of %d):\n", rounds);
  printf ("  JIT vs hand-written C, whole scan, 1 worker:   %.2fx  (target >= 0.5x: %s)\n", r_jit_c,
          r_jit_c >= 0.5 ? "met" : "MISSED");
  printf ("  JIT vs hand-written C, kernels only:           %.2fx  (target >= 0.5x: %s)\n",
          r_jit_c_k, r_jit_c_k >= 0.5 ? "met" : "MISSED");
  printf ("  JIT vs interpreter: whole scan %.2fx, kernels only %.2fx\n",
          sb[ENG_INTERP][0] / sb[ENG_JIT][0], kb[ENG_INTERP] / kb[ENG_JIT]);
  printf ("  JIT compile of q6_filter, warm median:         %.2f ms wall, %.2f ms CPU (target < 20 ms: "
          "%s; first compile in the process %.2f ms, without ossd_jit_warm_up)\n", med_f,
          bench_median (warm_fc, NCOMP), med_f < 20 ? "met" : "MISSED", cold_f);
  printf ("  JIT scan, 1 worker, verifying PostgreSQL page checksums vs not: %.3fx time "
          "(best %.1f vs %.1f ms; median %.1f vs %.1f ms)\n",
          bench_best (ck_on, rounds) / bench_best (ck_off, rounds), bench_best (ck_on, rounds) * 1e3,
          bench_best (ck_off, rounds) * 1e3, bench_median (ck_on, rounds) * 1e3, bench_median (ck_off, rounds) * 1e3);
  free (ck_on);
  free (ck_off);
  printf ("  2 workers vs 1, JIT:                           %.2fx  (target >= 1.7x: %s)\n", r_2w,
          r_2w >= 1.7 ? "met" : "MISSED");
  printf ("  2 workers vs 1, interpreter / C:               %.2fx / %.2fx\n",
          sb[ENG_INTERP][0] / sb[ENG_INTERP][1], sb[ENG_C][0] / sb[ENG_C][1]);
  printf ("  CPU time of a 2-worker scan vs a 1-worker scan, JIT: %.2fx  (1.00x = no parallel "
          "overhead: 2 free cores would give ~2x)\n", scb[ENG_JIT][1] / scb[ENG_JIT][0]);
  printf ("  2 threads vs 1 on a pure compute loop now:    %.2fx  (what this machine gives at the "
          "moment; measured before the scans: %.2fx)\n", two_thread_ceiling (), ceil_before);
  double la[3];
  if (getloadavg (la, 3) == 3)
    printf ("  (load average at the end: %.2f %.2f %.2f on %ld cores)\n", la[0], la[1], la[2],
            sysconf (_SC_NPROCESSORS_ONLN));

  for (int e = 0; e < NENG; e++)
    {
      free (kt[e]);
      for (int w = 0; w < 2; w++)
        {
          free (st[e][w]);
          free (sc[e][w]);
        }
    }
  ossd_jit_release (kf);
  ossd_jit_release (km);
  ossd_prog_free (fprog);
  ossd_prog_free (mprog);
  lineitem_free (&li);
  return 0;
}
