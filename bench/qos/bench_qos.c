/* bench_qos.c - per-object QoS on the emulated drive (docs/qos.md), in one
 * run: point reads of a high-priority object while a low-priority
 * offloaded full scan runs, with the drive's QoS on and off.
 *
 *   1. an in-process drive on a file image under a paced profile (NAND,
 *      channels and link in real time; default sata-ssd) holds a lineitem
 *      table (bench/scan/lineitem.c) as one object at priority 0 and a
 *      "hot" object at priority 6;
 *   2. phases, alternated round by round, each for --seconds: the reads
 *      alone; the reads beside a loop of COUNT(*) scans of the table with
 *      QoS on; the same with QoS off (the drive reopened on its image with
 *      qos=0).  One reader thread reads 8 KiB at random offsets of the hot
 *      object, one request at a time, and records each latency;
 *   3. prints per phase the reads' p50 / p99 / p99.9 / max, reads per
 *      second and the scan's MB/s, the p99 ratio QoS off / on and the
 *      scan's slowdown with QoS on, and writes a CSV of the summary and one
 *      of each phase's latency CDF (500 quantiles, for the plot).
 *
 *   bench_qos --dir DIR [--profile NAME] [--table-mb N] [--hot-mb N]
 *             [--seconds S] [--rounds R] [--defer-us N] [--csv FILE]
 *             [--cdf-csv FILE] [--json] [--quiet]
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_clock.h"
#include "libossd.h"
#include "lineitem.h"
#include "ossd_ftl.h"

#define PID 7
#define TABLE_OID 1
#define HOT_OID 2
#define SNAPSHOT_XMIN 1000
#define READ_BYTES 8192
#define CDF_POINTS 500

enum phase { PH_ALONE, PH_QOS_ON, PH_QOS_OFF, NPHASE };
static const char *phase_name[NPHASE] = { "reads alone", "beside scan, QoS on",
  "beside scan, QoS off" };
static const char *phase_key[NPHASE] = { "alone", "qos_on", "qos_off" };

static bool quiet;
#define progress(...) bench_note (quiet, __VA_ARGS__)
#define die(what, msg) bench_die ("bench_qos", what, msg)

struct lat
{
  double *v;
  size_t n, cap;
};

static void
lat_add (struct lat *l, double x)
{
  if (l->n == l->cap)
    {
      l->cap = l->cap ? l->cap * 2 : 4096;
      l->v = realloc (l->v, l->cap * sizeof *l->v);
      if (!l->v)
        die ("latencies", "out of memory");
    }
  l->v[l->n++] = x;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
pct (const struct lat *l, double p)
{
  if (l->n == 0)
    return 0;
  size_t i = (size_t) (p * (double) (l->n - 1) + 0.5);
  return l->v[i];
}

/* what one phase's threads share */
struct run
{
  ossd_t *o;
  uint32_t table_pages;
  uint64_t hot_bytes;
  Ossd__ScanAttr attr[LI_NATTS], *attrp[LI_NATTS];
  atomic_bool stop;
  /* scanner */
  bool scan;
  uint64_t scanned_pages;
  uint64_t scans;
  double scan_seconds;
  char scan_err[256];
  /* reader */
  struct lat lat;
  unsigned seed;
};

static void
open_drive (struct run *r, const char *image, const char *profile, bool qos, uint32_t defer_us,
            bool create)
{
  char uri[4400];
  struct ossd_connect_opts co = { .timeout_ms = 600000 };
  ossd_error err;

  snprintf (uri, sizeof uri, "inproc:%s?%ssize=2G&volume=16M&profile=%s&qos=%d&qos_defer_us=%u",
            image, create ? "create=1&" : "", profile, qos ? 1 : 0, defer_us);
  if (ossd_connect (uri, &co, &r->o, &err) < 0)
    die ("connect", err.msg);
}

static void
load (struct run *r, const struct lineitem *li, uint64_t hot_bytes)
{
  ossd_error err;
  uint8_t prio;

  if (ossd_create_partition (r->o, PID, &err) < 0 && err.errnum != EEXIST)
    die ("create partition", err.msg);
  if (ossd_create (r->o, PID, TABLE_OID, &err) < 0 || ossd_create (r->o, PID, HOT_OID, &err) < 0)
    die ("create object", err.msg);
  size_t total = (size_t) li->npages * OSSD_PG_BLCKSZ, chunk = 4u << 20;
  for (size_t off = 0; off < total; off += chunk)
    {
      size_t n = total - off < chunk ? total - off : chunk;
      if (ossd_write (r->o, PID, TABLE_OID, off, li->pages + off, n, &err) < 0)
        die ("write table", err.msg);
      progress ("\r  table: %zu of %zu MiB", (off + n) >> 20, total >> 20);
    }
  progress ("\n");
  uint8_t *buf = malloc (chunk);
  if (!buf)
    die ("hot object", "out of memory");
  for (size_t i = 0; i < chunk; i++)
    buf[i] = (uint8_t) (i * 131 + 7);
  for (uint64_t off = 0; off < hot_bytes; off += chunk)
    if (ossd_write (r->o, PID, HOT_OID, off, buf, hot_bytes - off < chunk ? hot_bytes - off : chunk,
                    &err) < 0)
      die ("write hot object", err.msg);
  free (buf);
  prio = 0;
  if (ossd_set_attr (r->o, PID, TABLE_OID, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY, &prio, 1,
                     &err) < 0)
    die ("table priority", err.msg);
  prio = 6;
  if (ossd_set_attr (r->o, PID, HOT_OID, FTL_ATTR_PAGE_HINTS, FTL_ATTR_HINT_PRIORITY, &prio, 1,
                     &err) < 0)
    die ("hot object priority", err.msg);
  if (ossd_flush (r->o, &err) < 0)
    die ("flush", err.msg);
}

/* One COUNT(*) scan of the table (no kernel: the drive reads, checks and
 * counts every page); its pages. */
static int
scan_once (struct run *r, char *why, size_t whylen)
{
  Ossd__Scan scan;
  ossd__scan__init (&scan);
  Ossd__ScanTarget target = OSSD__SCAN_TARGET__INIT, *targetp = &target;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT;
  Ossd__BlockRange range = OSSD__BLOCK_RANGE__INIT, *rangep = &range;
  Ossd__AggSpec agg = OSSD__AGG_SPEC__INIT, *aggp = &agg;
  ossd_error err;

  obj.pid = PID;
  obj.oid = TABLE_OID;
  range.count = r->table_pages;
  target.obj = &obj;
  target.n_ranges = 1;
  target.ranges = &rangep;
  scan.n_targets = 1;
  scan.targets = &targetp;
  scan.n_attrs = LI_NATTS;
  scan.attrs = r->attrp;
  scan.snapshot_xmin = SNAPSHOT_XMIN;
  agg.kind = OSSD__AGG_KIND__AGG_COUNT_STAR;
  scan.n_aggs = 1;
  scan.aggs = &aggp;
  scan.mode = OSSD__KERNEL_MODE__KERNEL_INTERPRETER;

  Ossd__Request req = OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &scan;
  ossd_stream *st;
  Ossd__Response *resp;
  if (ossd_stream_start (r->o, &req, &st, &err) < 0)
    {
      snprintf (why, whylen, "%s", err.msg);
      return -1;
    }
  int rc;
  while ((rc = ossd_stream_next (st, &resp, &err)) == 0 && resp)
    {
      if (resp->scan && resp->scan->last)
        r->scanned_pages += resp->scan->blocks_scanned;
      ossd__response__free_unpacked (resp, NULL);
    }
  ossd_stream_close (st);
  if (rc < 0)
    {
      snprintf (why, whylen, "%s", err.msg);
      return -1;
    }
  return 0;
}

static void *
scanner (void *arg)
{
  struct run *r = arg;
  double t0 = bench_now ();
  while (!atomic_load (&r->stop))
    {
      if (scan_once (r, r->scan_err, sizeof r->scan_err) < 0)
        break;
      r->scans++;
    }
  r->scan_seconds = bench_now () - t0;
  return NULL;
}

static void *
reader (void *arg)
{
  struct run *r = arg;
  static uint8_t buf[READ_BYTES];
  uint64_t slots = r->hot_bytes / READ_BYTES;
  ossd_error err;
  size_t got;

  while (!atomic_load (&r->stop))
    {
      uint64_t off = (uint64_t) (rand_r (&r->seed) % slots) * READ_BYTES;
      double t0 = bench_now ();
      if (ossd_read (r->o, PID, HOT_OID, off, buf, READ_BYTES, &got, &err) < 0)
        die ("read", err.msg);
      lat_add (&r->lat, (bench_now () - t0) * 1e6);
    }
  return NULL;
}

/* One phase for `seconds`: the reader, and the scanner beside it if scan. */
static void
run_phase (struct run *r, bool scan, double seconds)
{
  pthread_t rt, st;
  atomic_store (&r->stop, false);
  r->scan = scan;
  r->scanned_pages = r->scans = 0;
  r->scan_seconds = 0;
  r->scan_err[0] = '\0';
  if (scan && pthread_create (&st, NULL, scanner, r) != 0)
    die ("scanner", "cannot start a thread");
  if (scan)
    usleep (50000);             /* the scan under way before the first read */
  if (pthread_create (&rt, NULL, reader, r) != 0)
    die ("reader", "cannot start a thread");
  usleep ((useconds_t) (seconds * 1e6));
  atomic_store (&r->stop, true);
  pthread_join (rt, NULL);
  if (scan)
    {
      pthread_join (st, NULL);
      if (r->scan_err[0])
        die ("scan", r->scan_err);
    }
}

static uint64_t
stat_counter (ossd_t *o, const char *name)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Stats s = OSSD__STATS__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  uint64_t v = 0;

  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &s;
  if (ossd_call (o, &req, &resp, &err) < 0)
    die ("stats", err.msg);
  for (size_t i = 0; i < resp->stats->n_counters; i++)
    if (strcmp (resp->stats->counters[i]->key, name) == 0)
      v = resp->stats->counters[i]->value;
  ossd__response__free_unpacked (resp, NULL);
  return v;
}

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: bench_qos --dir DIR [--profile NAME] [--table-mb N] [--hot-mb N]\n"
           "                 [--seconds S] [--rounds R] [--defer-us N] [--csv FILE]\n"
           "                 [--cdf-csv FILE] [--json] [--quiet]\n"
           "Point reads of a priority-6 object while a priority-0 offloaded scan runs,\n"
           "the drive's QoS on and off, on an in-process paced drive (docs/qos.md).\n"
           "Defaults: --profile sata-ssd --table-mb 256 --hot-mb 32 --seconds 4\n"
           "--rounds 2 --defer-us 2000.\n");
}

int
main (int argc, char **argv)
{
  const char *dir = NULL, *profile = "sata-ssd", *csv = NULL, *cdf_csv = NULL;
  uint64_t table_bytes = 256ull << 20, hot_bytes = 32ull << 20;
  double seconds = 4;
  int rounds = 2;
  uint32_t defer_us = 2000;
  bool json = false;

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
      else if (!strcmp (a, "--json"))
        json = true;
      else if (v && !strcmp (a, "--dir"))
        dir = argv[++i];
      else if (v && !strcmp (a, "--profile"))
        profile = argv[++i];
      else if (v && !strcmp (a, "--csv"))
        csv = argv[++i];
      else if (v && !strcmp (a, "--cdf-csv"))
        cdf_csv = argv[++i];
      else if (v && !strcmp (a, "--table-mb"))
        table_bytes = strtoull (argv[++i], NULL, 10) << 20;
      else if (v && !strcmp (a, "--hot-mb"))
        hot_bytes = strtoull (argv[++i], NULL, 10) << 20;
      else if (v && !strcmp (a, "--seconds"))
        seconds = atof (argv[++i]);
      else if (v && !strcmp (a, "--rounds"))
        rounds = atoi (argv[++i]);
      else if (v && !strcmp (a, "--defer-us"))
        defer_us = (uint32_t) strtoul (argv[++i], NULL, 10);
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (!dir || table_bytes < (1u << 20) || hot_bytes < READ_BYTES || seconds <= 0 || rounds < 1)
    {
      usage (stderr);
      return 2;
    }
  struct ftl_profile_info pi;
  if (ftl_profile_get (0, profile, &pi) < 0)
    die ("--profile", "unknown drive profile (see ossdctl profiles)");

  struct lineitem li;
  uint64_t rows = table_bytes / OSSD_PG_BLCKSZ * 53;    /* ~53 rows a page */
  progress ("building a %llu MiB lineitem table ...\n", (unsigned long long) (table_bytes >> 20));
  if (lineitem_build (&li, rows, 0x5eed) != 0)
    die ("lineitem", "cannot build pages");

  char image[4096];
  snprintf (image, sizeof image, "%s/qos-drive.img", dir);
  unlink (image);
  struct run r = { .hot_bytes = hot_bytes, .seed = 12345 };
  for (int a = 0; a < LI_NATTS; a++)
    {
      ossd__scan_attr__init (&r.attr[a]);
      r.attr[a].len = li.attrs[a].len;
      r.attr[a].align = li.attrs[a].align;
      r.attr[a].byval = li.attrs[a].byval;
      r.attr[a].type_oid = li.attrs[a].type_oid;
      r.attr[a].typmod = li.attrs[a].typmod;
      r.attrp[a] = &r.attr[a];
    }
  progress ("loading the drive (profile %s) ...\n", profile);
  open_drive (&r, image, profile, true, defer_us, true);
  load (&r, &li, hot_bytes);
  r.table_pages = li.npages;
  ossd_disconnect (r.o);

  struct lat all[NPHASE] = { 0 };
  double scan_mb[NPHASE] = { 0 }, reads_s[NPHASE] = { 0 }, secs[NPHASE] = { 0 };
  uint64_t yields = 0, bound_hits = 0, yield_us = 0;
  /* the NAND model's die and channel queues, QoS on / off */
  uint64_t overtakes[NPHASE] = { 0 }, pushes = 0, push_bound_hits = 0;
  for (int round = 0; round < rounds; round++)
    for (int k = 0; k < NPHASE; k++)
      {
        int p = (k + round) % NPHASE;      /* each phase in each position */
        open_drive (&r, image, profile, p != PH_QOS_OFF, defer_us, false);
        r.lat.n = 0;
        progress ("round %d/%d: %-22s", round + 1, rounds, phase_name[p]);
        run_phase (&r, p != PH_ALONE, seconds);
        if (p == PH_QOS_ON)
          {
            yields += stat_counter (r.o, "qos_yields");
            bound_hits += stat_counter (r.o, "qos_bound_hits");
            yield_us += stat_counter (r.o, "qos_yield_us");
            pushes += stat_counter (r.o, "qos_nand_pushes");
            push_bound_hits += stat_counter (r.o, "qos_nand_bound_hits");
          }
        overtakes[p] += stat_counter (r.o, "qos_nand_overtakes");
        ossd_disconnect (r.o);
        for (size_t i = 0; i < r.lat.n; i++)
          lat_add (&all[p], r.lat.v[i]);
        reads_s[p] += r.lat.n;
        secs[p] += seconds;
        if (p != PH_ALONE)
          scan_mb[p] += r.scanned_pages * (double) OSSD_PG_BLCKSZ / 1e6;
        progress ("  %zu reads, %llu scans\n", r.lat.n, (unsigned long long) r.scans);
      }
  for (int p = 0; p < NPHASE; p++)
    qsort (all[p].v, all[p].n, sizeof (double), cmp_double);
  if (cdf_csv)
    {
      FILE *lf = fopen (cdf_csv, "w");
      if (!lf)
        die (cdf_csv, strerror (errno));
      fprintf (lf, "phase,fraction,latency_us\n");
      for (int p = 0; p < NPHASE; p++)
        for (int q = 0; q <= CDF_POINTS && all[p].n; q++)
          fprintf (lf, "%s,%.4f,%.1f\n", phase_key[p], (double) q / CDF_POINTS,
                   pct (&all[p], (double) q / CDF_POINTS));
      fclose (lf);
    }

  FILE *cf = csv ? fopen (csv, "w") : NULL;
  if (csv && !cf)
    die (csv, strerror (errno));
  if (cf)
    fprintf (cf, "phase,reads,reads_per_s,p50_us,p99_us,p999_us,max_us,scan_mb_per_s\n");
  if (!json)
    {
      printf ("profile %s (%s), table %llu MiB at priority 0, hot object %llu MiB at priority 6,\n"
              "%d rounds of %.1f s per phase, alternated; QoS bound %u us a batch\n",
              profile, pi.description, (unsigned long long) (table_bytes >> 20),
              (unsigned long long) (hot_bytes >> 20), rounds, seconds, defer_us);
      printf ("  %-22s %8s %9s %9s %9s %10s %10s %11s\n", "phase", "reads", "reads/s",
              "p50 us", "p99 us", "p99.9 us", "max us", "scan MB/s");
    }
  for (int p = 0; p < NPHASE; p++)
    {
      double mbs = p == PH_ALONE ? 0 : scan_mb[p] / secs[p];
      if (!json)
        printf ("  %-22s %8zu %9.0f %9.1f %9.1f %10.1f %10.1f %11.1f\n", phase_name[p],
                all[p].n, reads_s[p] / secs[p], pct (&all[p], 0.5), pct (&all[p], 0.99),
                pct (&all[p], 0.999), all[p].n ? all[p].v[all[p].n - 1] : 0, mbs);
      if (cf)
        fprintf (cf, "%s,%zu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", phase_key[p], all[p].n,
                 reads_s[p] / secs[p], pct (&all[p], 0.5), pct (&all[p], 0.99),
                 pct (&all[p], 0.999), all[p].n ? all[p].v[all[p].n - 1] : 0, mbs);
    }
  if (cf)
    fclose (cf);
  double p99_ratio = pct (&all[PH_QOS_ON], 0.99) > 0
    ? pct (&all[PH_QOS_OFF], 0.99) / pct (&all[PH_QOS_ON], 0.99) : 0;
  double slowdown = scan_mb[PH_QOS_ON] > 0 ? scan_mb[PH_QOS_OFF] / scan_mb[PH_QOS_ON] : 0;
  if (json)
    {
      printf ("{\"profile\": \"%s\", \"phases\": {", profile);
      for (int p = 0; p < NPHASE; p++)
        printf ("%s\"%s\": {\"reads\": %zu, \"p50_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, "
                "\"scan_mb_per_s\": %.1f}", p ? ", " : "", phase_key[p], all[p].n,
                pct (&all[p], 0.5), pct (&all[p], 0.99), pct (&all[p], 0.999),
                p == PH_ALONE ? 0 : scan_mb[p] / secs[p]);
      printf ("}, \"p99_off_over_on\": %.3f, \"scan_slowdown\": %.3f, \"qos_yields\": %llu, "
              "\"qos_bound_hits\": %llu, \"qos_nand_overtakes\": %llu, "
              "\"qos_nand_pushes\": %llu}\n", p99_ratio, slowdown, (unsigned long long) yields,
              (unsigned long long) bound_hits, (unsigned long long) overtakes[PH_QOS_ON],
              (unsigned long long) pushes);
    }
  else
    {
      printf ("read p99 with the scan beside: QoS off / QoS on = %.2fx; p99 QoS on / alone = %.2fx\n",
              p99_ratio, pct (&all[PH_ALONE], 0.99) > 0
              ? pct (&all[PH_QOS_ON], 0.99) / pct (&all[PH_ALONE], 0.99) : 0);
      printf ("the scan with QoS on: %.2fx slower than with QoS off (%.1f vs %.1f MB/s); "
              "it yielded %llu batches for %.1f ms in all, %llu of them cut by the bound\n",
              slowdown, scan_mb[PH_QOS_ON] / secs[PH_QOS_ON], scan_mb[PH_QOS_OFF] / secs[PH_QOS_OFF],
              (unsigned long long) yields, yield_us / 1e3, (unsigned long long) bound_hits);
      printf ("die/channel queues with QoS on: %llu operations served ahead of queued "
              "lower-priority ones, %llu reservations pushed back, %llu overtakes refused "
              "by the bound (QoS off: %llu overtakes)\n",
              (unsigned long long) overtakes[PH_QOS_ON], (unsigned long long) pushes,
              (unsigned long long) push_bound_hits, (unsigned long long) overtakes[PH_QOS_OFF]);
    }
  for (int p = 0; p < NPHASE; p++)
    free (all[p].v);
  free (r.lat.v);
  unlink (image);
  char key[4200];
  snprintf (key, sizeof key, "%s.key", image);
  unlink (key);
  lineitem_free (&li);
  return 0;
}
