/* bench_clock.h - what every C benchmark in bench/ measures with: wall
 * and CPU clocks, and the best and median of a round's samples. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double
bench_clock (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* wall clock */
static inline double
bench_now (void)
{
  return bench_clock (CLOCK_MONOTONIC);
}

/* CPU time of the calling thread: time it spends preempted by other load
 * does not count */
static inline double
bench_thread_cpu (void)
{
  return bench_clock (CLOCK_THREAD_CPUTIME_ID);
}

/* CPU time of the whole process (all its threads) */
static inline double
bench_proc_cpu (void)
{
  return bench_clock (CLOCK_PROCESS_CPUTIME_ID);
}

static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static inline double
bench_best (const double *v, int n)
{
  double m = v[0];
  for (int i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

static inline double
bench_median (const double *v, int n)
{
  double *c = malloc (n * sizeof *c);
  double m;

  if (!c)
    abort ();
  memcpy (c, v, n * sizeof *c);
  qsort (c, n, sizeof *c, bench_cmp_double);
  m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  free (c);
  return m;
}

#endif
