/* bench_drivescan.c - TPC-H Q6 at SF 1 through the drive's real SCAN path
 * against a hand-written C scan of the same heap file, in one run:
 *
 *   1. builds lineitem heap pages (bench/scan/lineitem.c; 6M rows = SF 1)
 *      and writes them to a heap file;
 *   2. stores the same bytes as one object of an in-process drive on a file
 *      image (inproc: through libossd: channel, dispatcher, object FTL on
 *      the modelled NAND, mmapped image) and deploys the clang-built Q6
 *      filter (offload_runtime/examples/q6_filter.c) by name;
 *   3. alternates, round by round, the drive's SCAN (deployed filter, the
 *      l_extendedprice * l_discount map kernel, sum on the drive, LLVM JIT,
 *      W drive scan workers) and the C scan (c_q6.c) of the mmapped heap
 *      file with the same number of threads, checking every answer against
 *      the exact one computed while generating;
 *   4. prints best and median per configuration and the drive / C time
 *      ratio at each thread count, and writes a CSV.
 *
 *   bench_drivescan --dir DIR [--rows N] [--rounds R] [--threads 1,2]
 *                   [--only drive|c] [--csv FILE] [--examples DIR] [--quiet]
 *                   [--profiler-vs]
 *
 * --profiler-vs replaces the C scan by the same drive SCAN with the drive's
 * access profiler (docs/sofs.md) switched off, so the profiler's cost on a
 * drive scan is measured side by side in one run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_clock.h"
#include "c_q6.h"
#include "libossd.h"
#include "lineitem.h"
#include "ossd_rt.h"
#include "q6_kernels.h"

#ifndef OSSD_RT_EXAMPLES_DIR
#define OSSD_RT_EXAMPLES_DIR "build/examples"
#endif

#define PID 61
#define OID 1
#define SNAPSHOT_XMIN 1000u     /* lineitem.c's tuples have xmin 100, committed */
#define MAX_THREADS 8

static bool quiet;
static bool profiler_vs;        /* --profiler-vs: drive with the profiler off */

#define progress(...) bench_note (quiet, __VA_ARGS__)
#define die(what, msg) bench_die ("bench_drivescan", what, msg)

/* ---- the drive ---- */

struct drive
{
  ossd_t *o;
  uint32_t npages;
  Ossd__ScanAttr attr[LI_NATTS], *attrp[LI_NATTS];
  void *map_img;
  size_t map_len;
};

static void
drive_load (struct drive *d, const char *uri, const struct lineitem *li, const char *filter_path)
{
  struct ossd_connect_opts co = { .timeout_ms = 600000 };
  ossd_error err;
  if (ossd_connect (uri, &co, &d->o, &err) < 0)
    die ("connect", err.msg);
  if (ossd_create_partition (d->o, PID, &err) < 0 && err.errnum != EEXIST)
    die ("create partition", err.msg);
  if (ossd_create (d->o, PID, OID, &err) < 0 && err.errnum != EEXIST)
    die ("create object", err.msg);
  size_t total = (size_t) li->npages * OSSD_PG_BLCKSZ, chunk = 8u << 20;
  for (size_t off = 0; off < total; off += chunk)
    {
      size_t n = total - off < chunk ? total - off : chunk;
      if (ossd_write (d->o, PID, OID, off, li->pages + off, n, &err) < 0)
        die ("write", err.msg);
      if (off / chunk % 16 == 0)
        progress ("\r  stored %zu of %zu MiB", off >> 20, total >> 20);
    }
  if (ossd_flush (d->o, &err) < 0)
    die ("flush", err.msg);
  progress ("\r  stored %zu MiB on the drive       \n", total >> 20);
  d->npages = li->npages;

  /* the Q6 filter, deployed by name as pg_ossd deploys a custom kernel */
  FILE *f = fopen (filter_path, "rb");
  if (!f)
    die (filter_path, strerror (errno));
  static uint8_t elf[1 << 16];
  size_t n = fread (elf, 1, sizeof elf, f);
  fclose (f);
  Ossd__KernelDeploy kd = OSSD__KERNEL_DEPLOY__INIT;
  kd.name = (char *) "q6_filter";
  kd.image.data = elf;
  kd.image.len = n;
  kd.replace = true;
  Ossd__Request req = OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_KERNEL_DEPLOY;
  req.kernel_deploy = &kd;
  Ossd__Response *resp = NULL;
  if (ossd_call (d->o, &req, &resp, &err) < 0)
    die ("deploy q6_filter", err.msg);
  ossd__response__free_unpacked (resp, NULL);

  struct ossd_prog *map;
  char why[256];
  if (q6_build_map (&map, why, sizeof why) < 0 || ossd_prog_to_raw (map, &d->map_img, &d->map_len) < 0)
    die ("q6 map kernel", why);
  ossd_prog_free (map);
  for (int a = 0; a < LI_NATTS; a++)
    {
      ossd__scan_attr__init (&d->attr[a]);
      d->attr[a].len = li->attrs[a].len;
      d->attr[a].align = li->attrs[a].align;
      d->attr[a].byval = li->attrs[a].byval;
      d->attr[a].type_oid = li->attrs[a].type_oid;
      d->attr[a].typmod = li->attrs[a].typmod;
      d->attrp[a] = &d->attr[a];
    }
}

struct answer
{
  __int128 sum;
  uint64_t count, tuples, host_rows, host_blocks, blocks;
  uint64_t device_ns;
};

/* One Q6 SCAN on the drive with `workers` drive scan workers. */
static void
drive_q6 (struct drive *d, uint32_t workers, struct answer *a)
{
  Ossd__Scan scan;
  ossd__scan__init (&scan);
  Ossd__ScanTarget target = OSSD__SCAN_TARGET__INIT, *targetp = &target;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT;
  Ossd__BlockRange range = OSSD__BLOCK_RANGE__INIT, *rangep = &range;
  Ossd__OutputColumn out = OSSD__OUTPUT_COLUMN__INIT, *outp = &out;
  Ossd__AggSpec agg = OSSD__AGG_SPEC__INIT, *aggp = &agg;
  uint32_t referenced[4] = { LI_SHIPDATE, LI_DISCOUNT, LI_QUANTITY, LI_EXTENDEDPRICE };
  ossd_error err;

  obj.pid = PID;
  obj.oid = OID;
  range.count = d->npages;
  target.obj = &obj;
  target.n_ranges = 1;
  target.ranges = &rangep;
  scan.n_targets = 1;
  scan.targets = &targetp;
  scan.n_attrs = LI_NATTS;
  scan.attrs = d->attrp;
  scan.snapshot_xmin = SNAPSHOT_XMIN;
  scan.n_referenced = 4;
  scan.referenced = referenced;
  scan.filter_case = OSSD__SCAN__FILTER_FILTER_KERNEL;
  scan.filter_kernel = (char *) "q6_filter";
  scan.map_program.data = d->map_img;
  scan.map_program.len = d->map_len;
  out.type_oid = OSSD_PG_NUMERICOID;
  out.len = -1;
  out.align = 4;
  out.typmod = -1;
  scan.n_outputs = 1;
  scan.outputs = &outp;
  agg.kind = OSSD__AGG_KIND__AGG_SUM;
  agg.input = 0;
  agg.type_oid = OSSD_PG_NUMERICOID;
  scan.n_aggs = 1;
  scan.aggs = &aggp;
  scan.mode = OSSD__KERNEL_MODE__KERNEL_JIT;
  scan.workers = workers;

  Ossd__Request req = OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &scan;
  ossd_stream *st;
  Ossd__Response *resp;
  *a = (struct answer) { 0 };
  if (ossd_stream_start (d->o, &req, &st, &err) < 0)
    die ("scan", err.msg);
  int r;
  bool last = false;
  static const bool abv[] = { false };
  while ((r = ossd_stream_next (st, &resp, &err)) == 0 && resp)
    {
      const Ossd__ScanChunk *c = resp->scan;
      if (!c)
        die ("scan", "a response without a scan chunk");
      size_t pos = 0;
      struct ossd_agg_state_view ag;
      int g;
      while ((g = ossd_group_read (c->groups.data, c->groups.len, &pos, 0, NULL, NULL, 1, abv,
                                   &ag)) == 1)
        {
          if (ag.count && ag.scale != 4)
            die ("scan", "unexpected scale of the sum");
          a->sum += (__int128) (((unsigned __int128) (uint64_t) ag.sum_hi << 64) | ag.sum_lo);
          a->count += (uint64_t) ag.count;
        }
      if (g < 0)
        die ("scan", "malformed partial group");
      a->host_rows += c->host_row_count;
      a->host_blocks += c->n_host_blocks / 3;
      if (c->last)
        {
          last = true;
          a->tuples = c->tuples_seen;
          a->blocks = c->blocks_scanned;
          a->device_ns = c->device_ns;
          if (strcmp (c->kernel_mode, "jit") != 0)
            die ("scan", "the drive did not run the JIT");
        }
      ossd__response__free_unpacked (resp, NULL);
    }
  ossd_stream_close (st);
  if (r < 0)
    die ("scan", err.msg);
  if (!last)
    die ("scan", "no last chunk");
}

static void
check (const char *what, const struct lineitem *li, const struct answer *a)
{
  if (a->sum != li->q6_revenue || a->count != li->q6_matches || a->tuples != li->nrows
      || a->host_rows || a->host_blocks)
    {
      fprintf (stderr, "%s: sum %lld (want %lld), matches %llu (want %llu), tuples %llu "
               "(want %llu), host rows %llu, host blocks %llu\n", what, (long long) a->sum,
               (long long) li->q6_revenue, (unsigned long long) a->count,
               (unsigned long long) li->q6_matches, (unsigned long long) a->tuples,
               (unsigned long long) li->nrows, (unsigned long long) a->host_rows,
               (unsigned long long) a->host_blocks);
      die (what, "wrong answer");
    }
}

static void
c_q6 (const uint8_t *heap, const struct lineitem *li, unsigned threads, struct answer *a)
{
  struct c_q6_result r;
  char err[256];
  if (c_q6_scan (heap, li->npages, li->attrs, SNAPSHOT_XMIN, threads, &r, err, sizeof err) < 0)
    die ("C scan", err);
  *a = (struct answer) { .sum = r.revenue, .count = r.matches, .tuples = r.tuples,
                         .host_blocks = r.bad_pages, .host_rows = r.slow_rows };
}

/* ---- the heap file ---- */
static const uint8_t *
heap_file (const char *path, const struct lineitem *li)
{
  size_t len = (size_t) li->npages * OSSD_PG_BLCKSZ;
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0)
    die (path, strerror (errno));
  for (size_t off = 0; off < len;)
    {
      ssize_t n = pwrite (fd, li->pages + off, len - off, (off_t) off);
      if (n <= 0)
        die (path, n < 0 ? strerror (errno) : "short write");
      off += (size_t) n;
    }
  void *p = mmap (NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  close (fd);
  if (p == MAP_FAILED)
    die (path, strerror (errno));
  return p;
}

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: bench_drivescan --dir DIR [--rows N] [--rounds R] [--threads LIST]\n"
           "                       [--only drive|c] [--csv FILE] [--examples DIR] [--quiet]\n"
           "TPC-H Q6 over the same lineitem heap file: the drive's SCAN (in-process drive on\n"
           "a file image, deployed q6_filter, JIT, W drive workers) against a hand-written C\n"
           "scan with W threads, alternated round by round, in one run.\n"
           "  --dir DIR       where the heap file and the drive image go (removed at the end)\n"
           "  --rows N        lineitem rows (default 6000000 = SF 1)\n"
           "  --rounds R      rounds, best and median reported (default 5)\n"
           "  --threads LIST  drive workers = C threads, comma-separated (default 1,2)\n"
           "  --only WHAT     run only the drive or only the C scan (for profiling)\n"
           "  --csv FILE      write every measurement as CSV\n"
           "  --examples DIR  where q6_filter.o is (default %s)\n"
           "  --quiet         no progress on stderr\n"
           "  --profiler-vs   instead of the C scan, the drive's SCAN with its access\n"
           "                  profiler off (docs/sofs.md): on / off side by side\n",
           OSSD_RT_EXAMPLES_DIR);
}

enum { RUN_DRIVE, RUN_C, NRUN };
static const char *run_name[NRUN] = { "drive", "c" };

/* PROFILE ENABLE / DISABLE on the drive (--profiler-vs) */
static void
set_profiler (struct drive *d, bool on)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  pr.action = on ? OSSD__PROFILE_ACTION__PROFILE_ENABLE : OSSD__PROFILE_ACTION__PROFILE_DISABLE;
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  if (ossd_call (d->o, &req, &resp, &err) < 0)
    die ("PROFILE", err.msg);
  ossd__response__free_unpacked (resp, NULL);
}

/* the second run: C, or with --profiler-vs the drive, profiler off */
static void
second_run (struct drive *d, const uint8_t *heap, const struct lineitem *li,
            unsigned threads, struct answer *a)
{
  if (!profiler_vs)
    {
      c_q6 (heap, li, threads, a);
      return;
    }
  set_profiler (d, false);
  drive_q6 (d, threads, a);
  set_profiler (d, true);
}

int
main (int argc, char **argv)
{
  uint64_t nrows = 6000000;
  int rounds = 5;
  unsigned threads[MAX_THREADS] = { 1, 2 }, nthreads = 2;
  const char *dir = NULL, *csv = NULL, *exdir = OSSD_RT_EXAMPLES_DIR, *only = NULL;
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
      else if (!strcmp (a, "--profiler-vs"))
        profiler_vs = true;
      else if (v && !strcmp (a, "--dir"))
        dir = argv[++i];
      else if (v && !strcmp (a, "--rows"))
        nrows = strtoull (argv[++i], NULL, 0);
      else if (v && !strcmp (a, "--rounds"))
        rounds = atoi (argv[++i]);
      else if (v && !strcmp (a, "--csv"))
        csv = argv[++i];
      else if (v && !strcmp (a, "--examples"))
        exdir = argv[++i];
      else if (v && !strcmp (a, "--only"))
        only = argv[++i];
      else if (v && !strcmp (a, "--threads"))
        {
          char *s = argv[++i], *end;
          nthreads = 0;
          while (*s && nthreads < MAX_THREADS)
            {
              unsigned long t = strtoul (s, &end, 10);
              if (end == s || t < 1 || t > MAX_THREADS)
                {
                  usage (stderr);
                  return 2;
                }
              threads[nthreads++] = (unsigned) t;
              s = *end == ',' ? end + 1 : end;
            }
        }
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (!dir || nrows == 0 || rounds < 1 || nthreads == 0
      || (only && strcmp (only, "drive") && strcmp (only, "c")))
    {
      usage (stderr);
      return 2;
    }
  bool run[NRUN] = { !only || !strcmp (only, "drive"), !only || !strcmp (only, "c") };
  if (profiler_vs)
    {
      run[RUN_DRIVE] = run[RUN_C] = true;
      run_name[RUN_C] = "drive-noprof";
    }

  struct lineitem li;
  progress ("building %llu lineitem rows ...\n", (unsigned long long) nrows);
  if (lineitem_build (&li, nrows, 0x5eed) != 0)
    die ("lineitem", "cannot build pages");
  double mb = (double) li.npages * OSSD_PG_BLCKSZ / 1e6;
  printf ("data: %llu rows in %u heap pages (%.1f MB), Q6 selects %llu rows (%.2f%%)\n",
          (unsigned long long) li.nrows, li.npages, mb, (unsigned long long) li.q6_matches,
          100.0 * li.q6_matches / li.nrows);
  fflush (stdout);

  char path[4096], uri[4200], fpath[4096];
  snprintf (path, sizeof path, "%s/lineitem.heap", dir);
  const uint8_t *heap = run[RUN_C] && !profiler_vs ? heap_file (path, &li) : NULL;
  snprintf (fpath, sizeof fpath, "%s/q6_filter.o", exdir);
  struct drive d = { 0 };
  char image[4096];
  snprintf (image, sizeof image, "%s/drive.img", dir);
  if (run[RUN_DRIVE])
    {
      snprintf (uri, sizeof uri, "inproc:%s?create=1&size=4G&volume=16M", image);
      progress ("loading the drive (%s) ...\n", uri);
      drive_load (&d, uri, &li, fpath);
    }

  FILE *cf = csv ? fopen (csv, "w") : NULL;
  if (csv && !cf)
    die (csv, strerror (errno));
  if (cf)
    fprintf (cf, "run,threads,round,seconds,rows_per_s,mb_per_s,cpu_seconds\n");
  double *t[NRUN][MAX_THREADS], *cpu[NRUN][MAX_THREADS];
  for (int e = 0; e < NRUN; e++)
    for (unsigned k = 0; k < nthreads; k++)
      {
        t[e][k] = calloc (rounds, sizeof (double));
        cpu[e][k] = calloc (rounds, sizeof (double));
      }
  struct answer a;
  /* warm-up (JIT compile, first touch) and the answer check */
  for (unsigned k = 0; k < nthreads; k++)
    {
      if (run[RUN_DRIVE])
        {
          drive_q6 (&d, threads[k], &a);
          check ("drive warm-up", &li, &a);
        }
      if (run[RUN_C])
        {
          second_run (&d, heap, &li, threads[k], &a);
          check ("C warm-up", &li, &a);
        }
    }
  for (int r = 0; r < rounds; r++)
    {
      progress ("round %d/%d:", r + 1, rounds);
      for (unsigned k = 0; k < nthreads; k++)
        for (int i = 0; i < NRUN; i++)
          {
            int e = (r + i) % 2 ? RUN_C : RUN_DRIVE;    /* alternate who goes first */
            if (!run[e])
              continue;
            double t0 = bench_now (), c0 = bench_proc_cpu ();
            if (e == RUN_DRIVE)
              drive_q6 (&d, threads[k], &a);
            else
              second_run (&d, heap, &li, threads[k], &a);
            t[e][k][r] = bench_now () - t0;
            cpu[e][k][r] = bench_proc_cpu () - c0;
            check (run_name[e], &li, &a);
            progress (" %s/%u %.0f ms", run_name[e], threads[k], t[e][k][r] * 1e3);
            if (cf)
              fprintf (cf, "%s,%u,%d,%.6f,%.0f,%.1f,%.6f\n", run_name[e], threads[k], r,
                       t[e][k][r], li.nrows / t[e][k][r], mb / t[e][k][r], cpu[e][k][r]);
          }
      progress ("\n");
    }
  if (cf)
    fclose (cf);

  printf ("\nQ6 (best / median of %d rounds, wall clock; drive = SCAN through libossd, "
          "inproc drive, JIT; %s):\n", rounds,
          profiler_vs ? "drive-noprof = the same with the access profiler off"
          : "c = hand-written C over the mmapped heap file");
  printf ("  %-6s %7s %10s %10s %12s %10s %11s\n", "run", "threads", "ms best", "ms med",
          "rows/s best", "MB/s best", "CPU ms med");
  for (unsigned k = 0; k < nthreads; k++)
    for (int e = 0; e < NRUN; e++)
      if (run[e])
        printf ("  %-6s %7u %10.1f %10.1f %12.0f %10.1f %11.1f\n", run_name[e], threads[k],
                bench_best (t[e][k], rounds) * 1e3, bench_median (t[e][k], rounds) * 1e3,
                li.nrows / bench_best (t[e][k], rounds), mb / bench_best (t[e][k], rounds),
                bench_median (cpu[e][k], rounds) * 1e3);
  if (profiler_vs)
    {
      printf ("\ndrive with the access profiler on / off (target < 1.02x):\n");
      for (unsigned k = 0; k < nthreads; k++)
        printf ("  %u thread%s: best %.4fx, median %.4fx\n", threads[k],
                threads[k] > 1 ? "s" : " ",
                bench_best (t[RUN_DRIVE][k], rounds) / bench_best (t[RUN_C][k], rounds),
                bench_median (t[RUN_DRIVE][k], rounds) / bench_median (t[RUN_C][k], rounds));
    }
  else if (run[RUN_DRIVE] && run[RUN_C])
    {
      printf ("\ndrive time / C time (target <= 1.10x):\n");
      for (unsigned k = 0; k < nthreads; k++)
        {
          double rb = bench_best (t[RUN_DRIVE][k], rounds) / bench_best (t[RUN_C][k], rounds);
          double rm = bench_median (t[RUN_DRIVE][k], rounds) / bench_median (t[RUN_C][k], rounds);
          printf ("  %u thread%s: best %.2fx, median %.2fx  (%s)\n", threads[k],
                  threads[k] > 1 ? "s" : " ", rb, rm, rb <= 1.10 ? "met" : "MISSED");
        }
    }
  double la[3];
  if (getloadavg (la, 3) == 3)
    printf ("(load average at the end: %.2f %.2f %.2f on %ld cores)\n", la[0], la[1], la[2],
            sysconf (_SC_NPROCESSORS_ONLN));

  if (run[RUN_DRIVE])
    {
      ossd_disconnect (d.o);
      free (d.map_img);
      unlink (image);
      char key[4200];
      snprintf (key, sizeof key, "%s.key", image);
      unlink (key);
    }
  if (heap)
    {
      munmap ((void *) heap, (size_t) li.npages * OSSD_PG_BLCKSZ);
      unlink (path);
    }
  for (int e = 0; e < NRUN; e++)
    for (unsigned k = 0; k < nthreads; k++)
      {
        free (t[e][k]);
        free (cpu[e][k]);
      }
  lineitem_free (&li);
  return 0;
}
