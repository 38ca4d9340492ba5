/* transport.c - picks the block transport for a device URI. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "libossd.h"
#include "ossd_frame.h"
#include "ossd_transport.h"

int
ossd_transport_open (const char *uri, const struct ossd_transport_wait *wait,
                     struct ossd_transport **out, char *why, size_t whylen)
{
  struct ossd_transport_wait none = { 0 };
  int r;

  *out = NULL;
  if (!wait)
    wait = &none;
  if (!uri || !*uri)
    {
      snprintf (why, whylen, "no device URI given (e.g. nbd+unix:///?socket=/run/ossd.sock)");
      return -EINVAL;
    }
  if (strncmp (uri, "nbd:", 4) == 0 || strncmp (uri, "nbd+unix:", 9) == 0
      || strncmp (uri, "nbds:", 5) == 0 || strncmp (uri, "nbds+unix:", 10) == 0)
    r = ossd_transport_open_nbd (uri, wait, out, why, whylen);
  else if (strncmp (uri, "file:", 5) == 0)
    r = ossd_transport_open_file (uri + 5, out, why, whylen);
  else if (strncmp (uri, "inproc:", 7) == 0)
    r = ossd_transport_open_inproc (uri + 7, out, why, whylen);
  else if (strncmp (uri, "sg:", 3) == 0)
    r = ossd_transport_open_sg (uri + 3, out, why, whylen);
  else if (strncmp (uri, "nvme:", 5) == 0)
    r = ossd_transport_open_nvme (uri + 5, out, why, whylen);
  else
    {
      snprintf (why, whylen, "unknown device URI scheme in '%s' (known: nbd+unix://, nbd://, file:, inproc:, sg:, nvme:)",
                uri);
      return -EINVAL;
    }
  if (r == 0)
    (*out)->wait = *wait;
  return r;
}

bool
ossd_transport_lost (struct ossd_transport *t)
{
  return t->ops->lost && t->ops->lost (t);
}

/* The client's hook, before any I/O that waits for the device. */
static void
before_wait (struct ossd_transport *t)
{
  if (t->before_wait)
    t->before_wait (t->before_wait_arg);
}

int
ossd_transport_batch (struct ossd_transport *t, struct ossd_io *ios, size_t n,
                      char *why, size_t whylen)
{
  int first = 0;

  before_wait (t);
  if (t->ops->batch)
    return t->ops->batch (t, ios, n, why, whylen);
  for (size_t i = 0; i < n; i++)
    {
      ios[i].result = ios[i].write
        ? t->ops->pwrite (t, ios[i].buf, ios[i].len, ios[i].off, why, whylen)
        : t->ops->pread (t, ios[i].buf, ios[i].len, ios[i].off, why, whylen);
      if (ios[i].result < 0 && first == 0)
        first = ios[i].result;
    }
  return first;
}

int
ossd_transport_pread (struct ossd_transport *t, void *buf, size_t len,
                      uint64_t off, char *why, size_t whylen)
{
  before_wait (t);
  return t->ops->pread (t, buf, len, off, why, whylen);
}

int
ossd_transport_pwrite (struct ossd_transport *t, const void *buf, size_t len,
                       uint64_t off, char *why, size_t whylen)
{
  before_wait (t);
  return t->ops->pwrite (t, buf, len, off, why, whylen);
}

uint64_t
ossd_mono_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void
ossd_transport_close (struct ossd_transport *t)
{
  if (t)
    t->ops->close (t);
}

int
ossd_transport_check_io (const struct ossd_transport *t, const char *dev,
                         const char *op, size_t len, uint64_t off, char *why,
                         size_t whylen)
{
  if (len == 0 || len % OSSD_LBA_SIZE != 0 || off % OSSD_LBA_SIZE != 0)
    {
      snprintf (why, whylen, "%s: %s: %s of %zu bytes at offset %" PRIu64
                " is not aligned to the %u-byte LBA size",
                t->ops->name, dev, op, len, off, OSSD_LBA_SIZE);
      return -EINVAL;
    }
  if (off > t->size_bytes || len > t->size_bytes - off)
    {
      snprintf (why, whylen, "%s: %s: %s of %zu bytes at offset %" PRIu64
                " is beyond the end of the device (%" PRIu64 " bytes)",
                t->ops->name, dev, op, len, off, t->size_bytes);
      return -EINVAL;
    }
  return 0;
}
