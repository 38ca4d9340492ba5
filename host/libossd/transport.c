/* transport.c - picks the block transport for a device URI. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ossd_transport.h"

int
ossd_transport_open (const char *uri, struct ossd_transport **out, char *why,
                     size_t whylen)
{
  *out = NULL;
  if (!uri || !*uri)
    {
      snprintf (why, whylen, "no device URI given (e.g. nbd+unix:///?socket=/run/ossd.sock)");
      return -EINVAL;
    }
  if (strncmp (uri, "nbd:", 4) == 0 || strncmp (uri, "nbd+unix:", 9) == 0
      || strncmp (uri, "nbds:", 5) == 0 || strncmp (uri, "nbds+unix:", 10) == 0)
    return ossd_transport_open_nbd (uri, out, why, whylen);
  if (strncmp (uri, "file:", 5) == 0)
    return ossd_transport_open_file (uri + 5, out, why, whylen);
  if (strncmp (uri, "inproc:", 7) == 0)
    return ossd_transport_open_inproc (uri + 7, out, why, whylen);
  if (strncmp (uri, "sg:", 3) == 0)
    return ossd_transport_open_sg (uri + 3, out, why, whylen);
  if (strncmp (uri, "nvme:", 5) == 0)
    return ossd_transport_open_nvme (uri + 5, out, why, whylen);
  snprintf (why, whylen, "unknown device URI scheme in '%s' (known: nbd+unix://, nbd://, file:, inproc:, sg:, nvme:)",
            uri);
  return -EINVAL;
}

void
ossd_transport_close (struct ossd_transport *t)
{
  if (t)
    t->ops->close (t);
}
