/* bench_drive.c - one drive's bandwidth, for bench/profiles/run: loads an
 * object of lineitem-like PostgreSQL heap pages, reads it sequentially
 * from the host, or has the drive scan it (a filter no row passes, so the
 * scan reads and deforms every page and almost nothing crosses the link).
 * Prints one JSON line per measurement: bytes, seconds, MB/s and the
 * client's own CPU seconds.  Several of these run at once against
 * separate drives to measure N drives.
 *
 *   bench_drive --device URI [--key-file F] load --mib N
 *   bench_drive --device URI [--key-file F] read --mib N [--chunk-mib C]
 *   bench_drive --device URI [--key-file F] scan --mib N [--workers W]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_clock.h"
#include "libossd.h"
#include "lineitem.h"
#include "ossd_rt.h"

#define PID 41
#define OID 1
#define SNAPSHOT_XMIN 1000u     /* the pages' tuples have xmin 100 */

static const char usage[] =
  "usage: bench_drive --device URI [--key-file FILE] COMMAND [--mib N]\n"
  "                   [--chunk-mib C] [--workers W] [--label TEXT]\n"
  "  load   store N MiB of lineitem heap pages as object 41:1\n"
  "  read   read its first N MiB sequentially (C MiB per call, default 4)\n"
  "  scan   the drive scans its first N MiB (W scan workers, default 2)\n"
  "Prints one JSON line: op, label, bytes, seconds, mbps, client_cpu_s.\n";

static double
cpu_self (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6
    + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
die (const char *what, const ossd_error *err)
{
  fprintf (stderr, "bench_drive: %s: %s\n", what, err ? err->msg : strerror (errno));
  exit (1);
}

static void
report (const char *op, const char *label, uint64_t bytes, double secs,
        double cpu)
{
  printf ("{\"op\": \"%s\", \"label\": \"%s\", \"bytes\": %" PRIu64
          ", \"seconds\": %.6f, \"mbps\": %.3f, \"client_cpu_s\": %.3f}\n",
          op, label, bytes, secs, bytes / secs / 1e6, cpu);
  fflush (stdout);
}

static void
do_load (ossd_t *o, uint64_t mib)
{
  struct lineitem li;
  ossd_error err;
  /* 8 MiB of distinct pages, stored again and again */
  if (lineitem_build (&li, 40000, 42) < 0)
    {
      fprintf (stderr, "bench_drive: out of memory\n");
      exit (1);
    }
  size_t unit = (size_t) li.npages * OSSD_PG_BLCKSZ;
  uint64_t want = mib << 20, off = 0;
  if (ossd_create_partition (o, PID, &err) < 0 && err.errnum != EEXIST)
    die ("create partition", &err);
  if (ossd_create (o, PID, OID, &err) < 0 && err.errnum != EEXIST)
    die ("create object", &err);
  double t0 = bench_now (), c0 = cpu_self ();
  while (off < want)
    {
      size_t n = want - off < unit ? (size_t) (want - off) : unit;
      n -= n % OSSD_PG_BLCKSZ;
      if (n == 0)
        break;
      if (ossd_write (o, PID, OID, off, li.pages, n, &err) < 0)
        die ("write", &err);
      off += n;
    }
  if (ossd_flush (o, &err) < 0)
    die ("flush", &err);
  report ("load", "", off, bench_now () - t0, cpu_self () - c0);
  lineitem_free (&li);
}

static void
do_read (ossd_t *o, uint64_t mib, uint64_t chunk_mib, const char *label)
{
  ossd_error err;
  size_t chunk = (size_t) chunk_mib << 20;
  uint8_t *buf = malloc (chunk);
  uint64_t want = mib << 20, off = 0;
  if (!buf)
    die ("malloc", NULL);
  double t0 = bench_now (), c0 = cpu_self ();
  while (off < want)
    {
      size_t n = want - off < chunk ? (size_t) (want - off) : chunk, got = 0;
      if (ossd_read (o, PID, OID, off, buf, n, &got, &err) < 0)
        die ("read", &err);
      if (got != n)
        {
          fprintf (stderr, "bench_drive: short read at %" PRIu64 " (object smaller than %" PRIu64 " MiB?)\n",
                   off, mib);
          exit (1);
        }
      off += n;
    }
  report ("read", label, off, bench_now () - t0, cpu_self () - c0);
  free (buf);
}

static void
do_scan (ossd_t *o, uint64_t mib, uint32_t workers, const char *label)
{
  /* a filter no row passes: return 0 */
  static const struct ossd_insn never[] = { OSSD_MOV64_IMM (0, 0), OSSD_EXIT () };
  struct lineitem li;
  struct ossd_prog *prog;
  char why[256];
  void *img;
  size_t img_len;
  ossd_error err;

  if (lineitem_build (&li, 100, 1) < 0)   /* only for its attributes */
    die ("malloc", NULL);
  if (ossd_prog_from_insns (never, 2, NULL, 0, &prog, why, sizeof why) < 0
      || ossd_prog_to_raw (prog, &img, &img_len) < 0)
    {
      fprintf (stderr, "bench_drive: kernel: %s\n", why);
      exit (1);
    }
  ossd_prog_free (prog);

  Ossd__Scan scan;
  Ossd__ScanTarget target = OSSD__SCAN_TARGET__INIT, *targetp = &target;
  Ossd__ObjectId obj = OSSD__OBJECT_ID__INIT;
  Ossd__BlockRange range = OSSD__BLOCK_RANGE__INIT, *rangep = &range;
  Ossd__ScanAttr attr[LI_NATTS], *attrp[LI_NATTS];
  uint32_t referenced[1] = { 1 };

  /* (OSSD__SCAN__INIT's oneof initialiser draws -Wmissing-braces) */
  ossd__scan__init (&scan);
  obj.pid = PID;
  obj.oid = OID;
  range.start = 0;
  range.count = (uint32_t) ((mib << 20) / OSSD_PG_BLCKSZ);
  target.obj = &obj;
  target.n_ranges = 1;
  target.ranges = &rangep;
  scan.n_targets = 1;
  scan.targets = &targetp;
  for (int a = 0; a < LI_NATTS; a++)
    {
      ossd__scan_attr__init (&attr[a]);
      attr[a].len = li.attrs[a].len;
      attr[a].align = li.attrs[a].align;
      attr[a].byval = li.attrs[a].byval;
      attr[a].type_oid = li.attrs[a].type_oid;
      attr[a].typmod = li.attrs[a].typmod;
      attrp[a] = &attr[a];
    }
  scan.n_attrs = LI_NATTS;
  scan.attrs = attrp;
  scan.snapshot_xmin = SNAPSHOT_XMIN;
  scan.n_referenced = 1;
  scan.referenced = referenced;
  scan.workers = workers;
  scan.filter_case = OSSD__SCAN__FILTER_FILTER_PROGRAM;
  scan.filter_program.data = img;
  scan.filter_program.len = img_len;

  Ossd__Request req = OSSD__REQUEST__INIT;
  req.body_case = OSSD__REQUEST__BODY_SCAN;
  req.scan = &scan;
  ossd_stream *st;
  Ossd__Response *resp;
  uint64_t bytes_read = 0;
  double t0 = bench_now (), c0 = cpu_self ();
  if (ossd_stream_start (o, &req, &st, &err) < 0)
    die ("scan", &err);
  int r;
  while ((r = ossd_stream_next (st, &resp, &err)) == 0 && resp)
    {
      if (resp->scan && resp->scan->bytes_read)
        bytes_read = resp->scan->bytes_read;
      ossd__response__free_unpacked (resp, NULL);
    }
  ossd_stream_close (st);
  if (r < 0)
    die ("scan", &err);
  double secs = bench_now () - t0;
  if (bytes_read == 0)
    bytes_read = (uint64_t) range.count * OSSD_PG_BLCKSZ;
  report ("scan", label, bytes_read, secs, cpu_self () - c0);
  free (img);
  lineitem_free (&li);
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "device", required_argument, NULL, 'd' },
    { "key-file", required_argument, NULL, 'k' },
    { "mib", required_argument, NULL, 'm' },
    { "chunk-mib", required_argument, NULL, 'c' },
    { "workers", required_argument, NULL, 'w' },
    { "label", required_argument, NULL, 'l' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *device = NULL, *key = NULL, *label = "";
  uint64_t mib = 64, chunk_mib = 4;
  uint32_t workers = 2;
  int opt;

  while ((opt = getopt_long (argc, argv, "d:k:m:c:w:l:h", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'd': device = optarg; break;
      case 'k': key = optarg; break;
      case 'm': mib = strtoull (optarg, NULL, 10); break;
      case 'c': chunk_mib = strtoull (optarg, NULL, 10); break;
      case 'w': workers = (uint32_t) strtoul (optarg, NULL, 10); break;
      case 'l': label = optarg; break;
      case 'h': fputs (usage, stdout); return 0;
      default: fputs (usage, stderr); return 2;
      }
  if (!device || optind != argc - 1 || mib == 0 || chunk_mib == 0)
    {
      fputs (usage, stderr);
      return 2;
    }
  struct ossd_connect_opts co = { 0 };
  co.key_file = key;
  co.timeout_ms = 600000;
  ossd_t *o;
  ossd_error err;
  if (ossd_connect (device, &co, &o, &err) < 0)
    die ("connect", &err);
  const char *cmd = argv[optind];
  if (strcmp (cmd, "load") == 0)
    do_load (o, mib);
  else if (strcmp (cmd, "read") == 0)
    do_read (o, mib, chunk_mib, label);
  else if (strcmp (cmd, "scan") == 0)
    do_scan (o, mib, workers, label);
  else
    {
      fputs (usage, stderr);
      return 2;
    }
  ossd_disconnect (o);
  return 0;
}
