/* main.c - tpch-dbgen: the TPC-H tables at a scale factor, as PostgreSQL
 * COPY text, written from the specification (no third-party code).
 * Command line, table selection, --part slicing, progress and --json. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tables.h"

static const char usage[] =
  "usage: tpch-dbgen --sf SF [--table T[,T...]] [--dir DIR] [--part I/N] [--seed N]\n"
  "                  [--counts] [--json] [--quiet]\n"
  "Generates the TPC-H tables (region nation supplier customer part partsupp\n"
  "orders lineitem) at scale factor SF (fractions allowed, e.g. 0.01) as\n"
  "PostgreSQL COPY text (tab-separated), deterministically for SF and seed.\n"
  "  --table T     the tables to write (default: all); without --dir exactly\n"
  "                one, to standard output\n"
  "  --dir DIR     write each table to DIR/T.tbl (DIR/T.tbl.I with --part)\n"
  "  --part I/N    only the I-th of N slices of each table (1 <= I <= N):\n"
  "                the slices together are the whole table, so N processes\n"
  "                can generate and load it in parallel\n"
  "  --seed N      the random seed (default 19920101)\n"
  "  --counts      generate nothing; count the rows each table would have\n"
  "  --json        a summary (rows, bytes, FNV-1a checksum per table) on\n"
  "                standard output, or on standard error when a table goes\n"
  "                to standard output\n"
  "  --quiet       no progress bar on standard error\n";

struct result
{
  int table;
  int64_t rows;
  uint64_t bytes, checksum;
  double seconds;
};

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
progress (const char *name, int64_t done, int64_t total, int64_t rows, double t0, int final)
{
  int pct = total ? (int) (done * 100 / total) : 100;
  char bar[41];
  memset (bar, '#', (size_t) (pct * 40 / 100));
  memset (bar + pct * 40 / 100, ' ', (size_t) (40 - pct * 40 / 100));
  bar[40] = 0;
  fprintf (stderr, "\r  %-8s [%s] %3d%%  %lld rows  %.0fs%s", name, bar, pct, (long long) rows,
           now () - t0, final ? "\n" : "");
}

/* One table's slice [lo, hi) of its units into O (NULL: count only). */
static int
run_table (const struct tpch *g, int t, int64_t lo, int64_t hi, struct out *o, int quiet, struct result *res)
{
  double t0 = now ();
  int64_t rows = 0, step = (hi - lo) / 100 + 1, next = lo + step;
  for (int64_t u = lo; u < hi; u++)
    {
      rows += o ? tpch_unit (g, t, u, o) : tpch_unit_rows (g, t, u);
      if (!quiet && u + 1 >= next)
        {
          progress (tpch_table_names[t], u + 1 - lo, hi - lo, rows, t0, 0);
          next += step;
        }
      if (o && o->error)
        break;
    }
  if (o && out_flush (o) != 0)
    {
      fprintf (stderr, "\ntpch-dbgen: writing %s: %s\n", tpch_table_names[t], strerror (errno));
      return -1;
    }
  if (!quiet)
    progress (tpch_table_names[t], hi - lo, hi - lo, rows, t0, 1);
  res->table = t;
  res->rows = rows;
  res->bytes = o ? o->bytes : 0;
  res->checksum = o ? o->checksum : 0;
  res->seconds = now () - t0;
  return 0;
}

int
main (int argc, char **argv)
{
  double sf = 0;
  uint64_t seed = 19920101;
  const char *dir = NULL, *tables = NULL;
  long part = 1, nparts = 1;
  int counts = 0, json = 0, quiet = 0;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      int more = i + 1 < argc;
      if (!strcmp (a, "-h") || !strcmp (a, "--help"))
        {
          fputs (usage, stdout);
          return 0;
        }
      else if (!strcmp (a, "--sf") && more)
        {
          char *end;
          sf = strtod (argv[++i], &end);
          if (*end)
            sf = -1;
        }
      else if (!strcmp (a, "--seed") && more)
        seed = strtoull (argv[++i], NULL, 10);
      else if (!strcmp (a, "--table") && more)
        tables = argv[++i];
      else if (!strcmp (a, "--dir") && more)
        dir = argv[++i];
      else if (!strcmp (a, "--part") && more)
        {
          if (sscanf (argv[++i], "%ld/%ld", &part, &nparts) != 2 || nparts < 1 || part < 1 || part > nparts)
            {
              fprintf (stderr, "tpch-dbgen: --part wants I/N with 1 <= I <= N, not %s\n", argv[i]);
              return 2;
            }
        }
      else if (!strcmp (a, "--counts"))
        counts = 1;
      else if (!strcmp (a, "--json"))
        json = 1;
      else if (!strcmp (a, "--quiet"))
        quiet = 1;
      else
        {
          fprintf (stderr, "tpch-dbgen: unknown or incomplete option %s (see --help)\n", a);
          return 2;
        }
    }
  if (sf <= 0)
    {
      fprintf (stderr, "tpch-dbgen: --sf SF (a positive number) is required (see --help)\n");
      return 2;
    }
  int want[T_NTABLES], nwant = 0;
  if (tables)
    {
      char *copy = strdup (tables), *save = NULL;
      for (char *tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
        {
          int t = tpch_table_of (tok);
          if (t < 0)
            {
              fprintf (stderr, "tpch-dbgen: no table %s (see --help)\n", tok);
              return 2;
            }
          if (nwant < T_NTABLES)
            want[nwant++] = t;
        }
      free (copy);
    }
  else
    for (int t = 0; t < T_NTABLES; t++)
      want[nwant++] = t;
  int to_stdout = !dir && !counts;
  if (to_stdout && nwant != 1)
    {
      fprintf (stderr, "tpch-dbgen: without --dir, name exactly one --table (see --help)\n");
      return 2;
    }
  if (to_stdout && isatty (1))
    {
      fprintf (stderr, "tpch-dbgen: standard output is a terminal; redirect it or use --dir\n");
      return 2;
    }

  struct tpch g;
  char err[200];
  if (tpch_init (&g, sf, seed, err, sizeof err) != 0)
    {
      fprintf (stderr, "tpch-dbgen: %s\n", err);
      return 1;
    }
  static struct out o;
  struct result res[T_NTABLES];
  int rc = 0;
  for (int i = 0; i < nwant && rc == 0; i++)
    {
      int t = want[i];
      int64_t n = tpch_units (&g, t);
      int64_t lo = n * (part - 1) / nparts, hi = n * part / nparts;
      FILE *f = NULL;
      char path[4096];
      if (dir)
        {
          if (nparts > 1)
            snprintf (path, sizeof path, "%s/%s.tbl.%ld", dir, tpch_table_names[t], part);
          else
            snprintf (path, sizeof path, "%s/%s.tbl", dir, tpch_table_names[t]);
          if (!counts && !(f = fopen (path, "w")))
            {
              fprintf (stderr, "tpch-dbgen: %s: %s\n", path, strerror (errno));
              rc = 1;
              break;
            }
        }
      else if (!counts)
        f = stdout;
      out_init (&o, f);
      rc = run_table (&g, t, lo, hi, counts ? NULL : &o, quiet, &res[i]);
      if (f && f != stdout && fclose (f) != 0)
        rc = 1;
    }
  if (rc == 0 && to_stdout && fflush (stdout) != 0)
    rc = 1;
  if (rc == 0 && json)
    {
      FILE *j = to_stdout ? stderr : stdout;
      fprintf (j, "{\"sf\": %g, \"seed\": %llu, \"part\": \"%ld/%ld\", \"tables\": [", sf,
               (unsigned long long) seed, part, nparts);
      for (int i = 0; i < nwant; i++)
        fprintf (j, "%s\n  {\"table\": \"%s\", \"rows\": %lld, \"bytes\": %llu, \"checksum\": \"%016llx\", \"seconds\": %.3f}",
                 i ? "," : "", tpch_table_names[res[i].table], (long long) res[i].rows,
                 (unsigned long long) res[i].bytes, (unsigned long long) res[i].checksum, res[i].seconds);
      fprintf (j, "]}\n");
    }
  tpch_free (&g);
  return rc;
}
