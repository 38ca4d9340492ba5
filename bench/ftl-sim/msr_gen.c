/* msr_gen.c - ftl-msr-gen: write a synthetic block trace in the MSR
 * Cambridge CSV format (Timestamp,Hostname,DiskNumber,Type,Offset,Size,
 * ResponseTime) for ftl-sim replay tests (no real traces can be fetched
 * here).  The records mimic the traces' shape: 4-64 KiB requests on 512 B
 * boundaries, runs of sequential requests, a hot region taking most of the
 * accesses, a read fraction, exponential inter-arrival times. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "splitmix.h"

struct gen
{
  uint64_t records, disk_bytes, seed;
  unsigned disks;
  double read_pct, hot_frac, hot_share, seq_prob, mean_gap_us;
  const char *host, *out;
};

static uint64_t
rnd (uint64_t *s)
{
  return splitmix64 (s);
}

static double
rnd01 (uint64_t *s)
{
  return (double) (rnd (s) >> 11) * (1.0 / 9007199254740992.0);
}

static void
usage (FILE *out)
{
  fprintf (out,
"usage: ftl-msr-gen [options]\n"
"Write a synthetic MSR Cambridge format block trace (CSV, no header).\n"
"  --records N      records (default 10000)\n"
"  --disks N        disks (DiskNumber 0..N-1, default 2)\n"
"  --disk-size SIZE bytes addressed per disk, M/G suffix (default 256M)\n"
"  --read-pct P     percentage of reads (default 30)\n"
"  --hot F          hot region, fraction of each disk (default 0.1)\n"
"  --hot-share F    fraction of accesses to the hot region (default 0.8)\n"
"  --seq F          probability a request continues the previous (0.3)\n"
"  --gap-us U       mean inter-arrival time in us (default 200)\n"
"  --host NAME      Hostname column (default synth)\n"
"  --seed N         (default 1)\n"
"  --out FILE       (default stdout)\n"
"  --help\n");
}

static int
generate (const struct gen *g, FILE *f)
{
  uint64_t s = g->seed, ts = 128166372000000000ull;   /* 2007-02-22 */
  uint64_t *next = calloc (g->disks, sizeof *next);
  if (!next)
    return -ENOMEM;
  static const uint32_t sizes[] = { 4096, 4096, 4096, 8192, 8192, 16384,
                                    32768, 65536 };
  for (uint64_t i = 0; i < g->records; i++)
    {
      unsigned d = (unsigned) (rnd (&s) % g->disks);
      uint32_t size = sizes[rnd (&s) % 8];
      uint64_t off;
      if (next[d] && rnd01 (&s) < g->seq_prob
          && next[d] + size <= g->disk_bytes)
        off = next[d];
      else
        {
          uint64_t hot = (uint64_t) (g->hot_frac * (double) g->disk_bytes);
          uint64_t range = rnd01 (&s) < g->hot_share && hot > size ? hot
            : g->disk_bytes;
          off = rnd (&s) % (range - size) / 512 * 512;
        }
      next[d] = off + size;
      bool rd = rnd01 (&s) * 100 < g->read_pct;
      double gap = -log (1 - rnd01 (&s)) * g->mean_gap_us * 10;  /* 100 ns */
      ts += (uint64_t) gap + 1;
      unsigned resp = 2000 + (unsigned) (rnd (&s) % 20000);
      if (fprintf (f, "%llu,%s,%u,%s,%llu,%u,%u\n", (unsigned long long) ts,
                   g->host, d, rd ? "Read" : "Write",
                   (unsigned long long) off, size, resp) < 0)
        {
          free (next);
          return -EIO;
        }
    }
  free (next);
  return 0;
}

int
main (int argc, char **argv)
{
  struct gen g = { 10000, 256ull << 20, 1, 2, 30, 0.1, 0.8, 0.3, 200,
                   "synth", NULL };
  static const struct option lo[] = {
    { "records", 1, 0, 'n' }, { "disks", 1, 0, 'd' },
    { "disk-size", 1, 0, 'z' }, { "read-pct", 1, 0, 'r' },
    { "hot", 1, 0, 'H' }, { "hot-share", 1, 0, 'S' }, { "seq", 1, 0, 'q' },
    { "gap-us", 1, 0, 'g' }, { "host", 1, 0, 'N' }, { "seed", 1, 0, 's' },
    { "out", 1, 0, 'o' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
  };
  int c;
  while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1)
    switch (c)
      {
      case 'n': g.records = strtoull (optarg, NULL, 10); break;
      case 'd': g.disks = (unsigned) atoi (optarg); break;
      case 'z':
        if (bench_parse_size (optarg, &g.disk_bytes) < 0 || g.disk_bytes < 131072)
          {
            fprintf (stderr, "ftl-msr-gen: bad --disk-size '%s'\n", optarg);
            return 2;
          }
        break;
      case 'r': g.read_pct = atof (optarg); break;
      case 'H': g.hot_frac = atof (optarg); break;
      case 'S': g.hot_share = atof (optarg); break;
      case 'q': g.seq_prob = atof (optarg); break;
      case 'g': g.mean_gap_us = atof (optarg); break;
      case 'N': g.host = optarg; break;
      case 's': g.seed = strtoull (optarg, NULL, 10); break;
      case 'o': g.out = optarg; break;
      case 'h': usage (stdout); return 0;
      default: usage (stderr); return 2;
      }
  if (g.disks == 0 || strchr (g.host, ','))
    {
      fprintf (stderr, "ftl-msr-gen: need --disks >= 1 and a host name "
               "without commas\n");
      return 2;
    }
  FILE *f = g.out ? fopen (g.out, "w") : stdout;
  if (!f)
    {
      fprintf (stderr, "ftl-msr-gen: cannot write %s: %s\n", g.out,
               strerror (errno));
      return 1;
    }
  int r = generate (&g, f);
  if (f != stdout && fclose (f) != 0)
    r = -EIO;
  if (r < 0)
    {
      fprintf (stderr, "ftl-msr-gen: writing the trace failed: %s\n",
               strerror (-r));
      return 1;
    }
  return 0;
}
