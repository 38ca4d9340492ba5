/* device_log.c - the device's log line sink and clocks. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "device_internal.h"

void
device_log (ossd_device_t *dev, const char *fmt, ...)
{
  char line[512];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  if (dev && dev->opts.log)
    dev->opts.log (dev->opts.log_arg, line);
  else
    fprintf (stderr, "ossd-device: %s\n", line);
}

static uint64_t
clock_ns (clockid_t clock)
{
  struct timespec ts;
  clock_gettime (clock, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

uint64_t
device_now_ns (void)
{
  return clock_ns (CLOCK_MONOTONIC);
}

uint64_t
device_wall_ns (void)
{
  return clock_ns (CLOCK_REALTIME);
}

uint64_t
device_now_ms (void)
{
  return device_now_ns () / 1000000ull;
}

/* An absolute CLOCK_MONOTONIC time ms from now, for timed waits on
 * condition variables created with that clock. */
void
device_deadline_after_ms (struct timespec *ts, uint32_t ms)
{
  clock_gettime (CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000;
  ts->tv_nsec += (long) (ms % 1000) * 1000000L;
  if (ts->tv_nsec >= 1000000000L)
    {
      ts->tv_sec++;
      ts->tv_nsec -= 1000000000L;
    }
}

void
device_cond_init_monotonic (pthread_cond_t *cond)
{
  pthread_condattr_t ca;
  pthread_condattr_init (&ca);
  pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
  pthread_cond_init (cond, &ca);
  pthread_condattr_destroy (&ca);
}
