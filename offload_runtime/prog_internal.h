/* prog_internal.h - shared by the loader, verifier and interpreter files
 * (not installed). */
#ifndef OSSD_PROG_INTERNAL_H
#define OSSD_PROG_INTERNAL_H

#include "ossd_rt.h"

/* Formats a message into (err, errlen) and returns code. */
int ossd_rt_err (char *err, size_t errlen, int code, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

#endif
