/* transport_nbd.c - NBD transport through libnbd: nbd+unix:///?socket=PATH
 * and nbd://HOST:PORT.  libnbd handles are thread-safe, so several
 * threads (several slots) share one connection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libnbd.h>

#include "ossd_transport.h"

static int
nbd_fail (const char *op, char *why, size_t whylen)
{
  int e = nbd_get_errno ();
  snprintf (why, whylen, "nbd %s: %s", op, nbd_get_error ());
  return -(e ? e : EIO);
}

static int
nbd_t_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
             char *why, size_t whylen)
{
  if (nbd_pread (t->priv, buf, len, off, 0) == -1)
    return nbd_fail ("pread", why, whylen);
  return 0;
}

static int
nbd_t_pwrite (struct ossd_transport *t, const void *buf, size_t len,
              uint64_t off, char *why, size_t whylen)
{
  if (nbd_pwrite (t->priv, buf, len, off, 0) == -1)
    return nbd_fail ("pwrite", why, whylen);
  return 0;
}

static int
nbd_t_flush (struct ossd_transport *t, char *why, size_t whylen)
{
  if (nbd_flush (t->priv, 0) == -1)
    return nbd_fail ("flush", why, whylen);
  return 0;
}

static void
nbd_t_close (struct ossd_transport *t)
{
  if (t->priv)
    {
      nbd_shutdown (t->priv, 0);
      nbd_close (t->priv);
    }
  free (t);
}

static const struct ossd_transport_ops nbd_ops = {
  .name = "nbd",
  .pread = nbd_t_pread,
  .pwrite = nbd_t_pwrite,
  .flush = nbd_t_flush,
  .close = nbd_t_close,
};

int
ossd_transport_open_nbd (const char *uri, struct ossd_transport **out,
                         char *why, size_t whylen)
{
  struct ossd_transport *t = calloc (1, sizeof *t);
  struct nbd_handle *h;
  int64_t size;
  int r;

  if (!t)
    return -ENOMEM;
  h = nbd_create ();
  if (!h)
    {
      free (t);
      return nbd_fail ("create", why, whylen);
    }
  t->ops = &nbd_ops;
  t->priv = h;
  if (nbd_connect_uri (h, uri) == -1)
    {
      r = nbd_get_errno ();
      snprintf (why, whylen, "cannot connect to %s: %s", uri, nbd_get_error ());
      nbd_close (h);
      free (t);
      return -(r ? r : ENXIO);
    }
  size = nbd_get_size (h);
  if (size < 0)
    {
      r = nbd_fail ("get_size", why, whylen);
      nbd_t_close (t);
      return r;
    }
  t->size_bytes = (uint64_t) size;
  t->max_transfer = 32u << 20;       /* NBD protocol limit is 32 MiB */
  t->knows_connections = true;
  *out = t;
  return 0;
}
