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

uint64_t
device_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

uint64_t
device_now_ms (void)
{
  return device_now_ns () / 1000000ull;
}
