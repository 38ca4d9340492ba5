/* bench_profile_overhead.c - what the drive's access profiler (docs/sofs.md)
 * costs a sequential host scan, measured side by side: an in-process drive
 * (inproc:, the whole channel path: frames, slots, dispatcher, FTL) holds
 * one object; each round reads it from start to end in CHUNK-byte READs
 * once with the profiler off and once on (the order alternating between
 * rounds), and the medians of the rounds are compared.  It also times the
 * recorder alone (ns per ftl_profile_record of the same reads), so the
 * share of a read it takes is known apart from the noise of a shared
 * machine.  One JSON object on stdout. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "ftl_profile.h"
#include "libossd.h"

#define PID 7
#define OID 1

static const char usage[] =
  "usage: bench_profile_overhead [--mib N] [--chunk BYTES] [--rounds R]\n"
  "Reads an N MiB object (default 64) of an in-process RAM drive\n"
  "sequentially in CHUNK-byte READ commands (default 8192: PostgreSQL's\n"
  "page, the profiler's worst case per byte), R rounds (default 7) with the\n"
  "access profiler off and on alternately; prints the medians of wall and\n"
  "process CPU time, their ratios and the recorder's own cost per read as\n"
  "JSON.\n";

static void
die (const char *what, const ossd_error *err)
{
  fprintf (stderr, "bench_profile_overhead: %s: %s\n", what,
           err ? err->msg : strerror (errno));
  exit (1);
}

static void
set_profiler (ossd_t *h, bool on)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  pr.action = on ? OSSD__PROFILE_ACTION__PROFILE_ENABLE
    : OSSD__PROFILE_ACTION__PROFILE_DISABLE;
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  if (ossd_call (h, &req, &resp, &err) < 0)
    die ("PROFILE", &err);
  if (resp->profile->enabled != on)
    die ("PROFILE did not switch the recorder", NULL);
  ossd__response__free_unpacked (resp, NULL);
}

static uint64_t
profiled_reads (ossd_t *h)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  uint64_t v = 0;
  pr.max_edges = 1;
  pr.max_reads = 1;
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  if (ossd_call (h, &req, &resp, &err) < 0)
    die ("PROFILE SHOW", &err);
  for (size_t i = 0; i < resp->profile->n_counters; i++)
    if (strcmp (resp->profile->counters[i]->key, "reads") == 0)
      v = resp->profile->counters[i]->value;
  ossd__response__free_unpacked (resp, NULL);
  return v;
}

/* wall seconds of one scan; *cpu gets the process's CPU seconds (all
 * threads: the client's and the in-process drive's), which preemption by
 * other load on a shared machine does not inflate */
static double
scan (ossd_t *h, uint8_t *buf, uint64_t bytes, size_t chunk, double *cpu)
{
  ossd_error err;
  double t0 = bench_now (), c0 = bench_proc_cpu ();
  for (uint64_t off = 0; off < bytes; off += chunk)
    {
      size_t got;
      if (ossd_read (h, PID, OID, off, buf, chunk, &got, &err) < 0)
        die ("read", &err);
    }
  *cpu = bench_proc_cpu () - c0;
  return bench_now () - t0;
}

/* ns per ftl_profile_record for reads like the scan's */
static double
recorder_ns (uint64_t bytes, size_t chunk)
{
  ftl_profile_t *p;
  ftl_error fe = { "" };
  struct ftl_profile_config c;
  ftl_profile_config_defaults (&c);
  c.streams = 33;                 /* as the drive (device_profile.c) */
  c.edges_per_stream = 1024;
  c.max_units_per_read = 64;
  if (ftl_profile_create (&c, &p, &fe) < 0)
    {
      fprintf (stderr, "bench_profile_overhead: %s\n", fe.msg);
      exit (1);
    }
  ftl_profile_set_enabled (p, true);
  uint64_t n = 0;
  /* one pass first, as the drive's profiler is warm after its first scan */
  for (uint64_t off = 0; off < bytes; off += chunk, n++)
    ftl_profile_record (p, 1, PID, OID, off, chunk, n);
  n = 0;
  double t0 = bench_now ();
  for (int pass = 0; pass < 4; pass++)
    for (uint64_t off = 0; off < bytes; off += chunk, n++)
      ftl_profile_record (p, 1, PID, OID, off, chunk, n);
  double dt = bench_now () - t0;
  ftl_profile_destroy (p);
  return dt * 1e9 / (double) n;
}

int
main (int argc, char **argv)
{
  uint64_t mib = 64;
  size_t chunk = 8192;
  int rounds = 7;
  static const struct option lo[] = {
    { "mib", 1, 0, 'm' }, { "chunk", 1, 0, 'c' }, { "rounds", 1, 0, 'r' },
    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
  int opt;
  while ((opt = getopt_long (argc, argv, "m:c:r:h", lo, NULL)) != -1)
    switch (opt)
      {
      case 'm': mib = strtoull (optarg, NULL, 10); break;
      case 'c': chunk = strtoull (optarg, NULL, 10); break;
      case 'r': rounds = atoi (optarg); break;
      case 'h': fputs (usage, stdout); return 0;
      default: fputs (usage, stderr); return 2;
      }
  if (!mib || chunk < 4096 || chunk > (8u << 20) || rounds < 1 || rounds > 99)
    {
      fputs ("bench_profile_overhead: --mib >= 1, --chunk in [4096, 8M], "
             "--rounds in [1, 99]\n", stderr);
      return 2;
    }
  char uri[128];
  snprintf (uri, sizeof uri, "inproc:ram:?create=1&size=%" PRIu64 "M&volume=1M",
            mib * 2 + 64);
  struct ossd_connect_opts o = { .client_name = "bench_profile_overhead" };
  ossd_t *h;
  ossd_error err;
  if (ossd_connect (uri, &o, &h, &err) < 0)
    die (uri, &err);
  uint64_t bytes = mib << 20;
  uint8_t *buf = malloc (1 << 20);
  if (!buf)
    die ("malloc", NULL);
  for (size_t i = 0; i < (1 << 20); i++)
    buf[i] = (uint8_t) (i * 131);
  if (ossd_create_partition (h, PID, &err) < 0 || ossd_create (h, PID, OID, &err) < 0)
    die ("create", &err);
  for (uint64_t off = 0; off < bytes; off += 1 << 20)
    if (ossd_write (h, PID, OID, off, buf, 1 << 20, &err) < 0)
      die ("write", &err);
  double *t_off = calloc (rounds, sizeof (double));
  double *t_on = calloc (rounds, sizeof (double));
  double *c_off = calloc (rounds, sizeof (double));
  double *c_on = calloc (rounds, sizeof (double));
  double cpu;
  /* a warm-up scan: the RAM drive's pages and the allocator settle */
  set_profiler (h, false);
  scan (h, buf, bytes, chunk, &cpu);
  uint64_t reads0 = profiled_reads (h);
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 2; k++)
      {
        bool on = (r + k) % 2 == 1;
        set_profiler (h, on);
        double t = scan (h, buf, bytes, chunk, &cpu);
        (on ? t_on : t_off)[r] = t;
        (on ? c_on : c_off)[r] = cpu;
        fprintf (stderr, "\rround %d/%d", r + 1, rounds);
      }
  fprintf (stderr, "\n");
  uint64_t recorded = profiled_reads (h) - reads0;
  double m_off = bench_median (t_off, rounds), m_on = bench_median (t_on, rounds);
  double mc_off = bench_median (c_off, rounds), mc_on = bench_median (c_on, rounds);
  double per_read_ns = m_off * 1e9 / (double) (bytes / chunk);
  double rec_ns = recorder_ns (bytes, chunk);
  printf ("{\"mib\": %" PRIu64 ", \"chunk\": %zu, \"rounds\": %d, "
          "\"reads_per_scan\": %" PRIu64 ", \"reads_recorded\": %" PRIu64 ", "
          "\"off_s_median\": %.6f, \"on_s_median\": %.6f, \"off_s_best\": %.6f, "
          "\"on_s_best\": %.6f, \"overhead_pct_median\": %.3f, "
          "\"overhead_pct_best\": %.3f, \"read_ns\": %.1f, \"recorder_ns\": %.1f, "
          "\"recorder_pct_of_read\": %.3f, \"off_mbps\": %.1f, \"on_mbps\": %.1f, "
          "\"off_cpu_s_median\": %.6f, \"on_cpu_s_median\": %.6f, "
          "\"cpu_overhead_pct_median\": %.3f}\n",
          mib, chunk, rounds, bytes / chunk, recorded, m_off, m_on,
          bench_best (t_off, rounds), bench_best (t_on, rounds),
          (m_on / m_off - 1) * 100,
          (bench_best (t_on, rounds) / bench_best (t_off, rounds) - 1) * 100,
          per_read_ns, rec_ns, rec_ns / per_read_ns * 100,
          bytes / 1048576.0 / m_off, bytes / 1048576.0 / m_on, mc_off, mc_on,
          (mc_on / mc_off - 1) * 100);
  free (t_off);
  free (t_on);
  free (c_off);
  free (c_on);
  free (buf);
  ossd_disconnect (h);
  return 0;
}
