/* bench_args.h - what the C benchmarks' option parsers and progress bars
 * share: sizes with binary suffixes and the one-line bar on stderr. */
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* "4096", "64k", "1.5M", "8GiB", "2T": bytes into *out (0 allowed: the
 * caller says what is too small); -EINVAL for anything else. */
static inline int
bench_parse_size (const char *s, uint64_t *out)
{
  char *end;
  double v = strtod (s, &end);
  if (end == s || v < 0)
    return -EINVAL;
  switch (*end)
    {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1048576; end++; break;
    case 'g': case 'G': v *= 1073741824.0; end++; break;
    case 't': case 'T': v *= 1099511627776.0; end++; break;
    }
  if (*end == 'i' || *end == 'B')
    end++;
  if (*end == 'B')
    end++;
  if (*end)
    return -EINVAL;
  *out = (uint64_t) v;
  return 0;
}

/* A progress message on stderr, unless quiet. */
static inline void __attribute__ ((format (printf, 2, 3)))
bench_note (bool quiet, const char *fmt, ...)
{
  va_list ap;

  if (quiet)
    return;
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
}

/* "PROG: WHAT: MSG" on stderr, and exit 1. */
static inline void __attribute__ ((noreturn))
bench_die (const char *prog, const char *what, const char *msg)
{
  fprintf (stderr, "%s: %s: %s\n", prog, what, msg);
  exit (1);
}

/* "\r<label> [#####.....]  42.0%  3.1s" on stderr; final ends the line. */
static inline void
bench_progress_bar (const char *label, double frac, double seconds, bool final)
{
  int w = 30, k;
  char bar[32];

  if (frac > 1)
    frac = 1;
  if (frac < 0)
    frac = 0;
  k = (int) (frac * w);
  for (int i = 0; i < w; i++)
    bar[i] = i < k ? '#' : '.';
  bar[w] = 0;
  fprintf (stderr, "\r%-14.14s [%s] %5.1f%%  %.1fs%s", label, bar, frac * 100, seconds,
           final ? "\n" : "");
}

#endif
