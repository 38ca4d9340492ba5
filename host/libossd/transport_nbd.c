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

/* All I/Os in flight at once: the drive serves them on parallel threads
 * and the socket stays busy.  libnbd handles are thread-safe, and only
 * the thread that submitted a batch waits for its commands. */
static int
nbd_t_batch (struct ossd_transport *t, struct ossd_io *ios, size_t n,
             char *why, size_t whylen)
{
  struct nbd_handle *h = t->priv;
  int64_t cookies[64];
  size_t pending = 0;
  int first = 0;

  if (n > 64)
    {
      snprintf (why, whylen, "nbd batch of %zu I/Os exceeds 64", n);
      return -EINVAL;
    }
  for (size_t i = 0; i < n; i++)
    {
      cookies[i] = ios[i].write
        ? nbd_aio_pwrite (h, ios[i].buf, ios[i].len, ios[i].off, NBD_NULL_COMPLETION, 0)
        : nbd_aio_pread (h, ios[i].buf, ios[i].len, ios[i].off, NBD_NULL_COMPLETION, 0);
      if (cookies[i] == -1)
        {
          ios[i].result = nbd_fail (ios[i].write ? "aio_pwrite" : "aio_pread", why, whylen);
          if (!first)
            first = ios[i].result;
        }
      else
        {
          ios[i].result = 1;    /* in flight */
          pending++;
        }
    }
  while (pending)
    {
      /* A bounded wait: another thread's synchronous call may take our
       * replies off the socket, completing our commands without waking us. */
      if (nbd_poll (h, 100) == -1)
        {
          int e = nbd_fail ("poll", why, whylen);
          for (size_t i = 0; i < n; i++)
            if (ios[i].result == 1)
              ios[i].result = e;
          return first ? first : e;
        }
      for (size_t i = 0; i < n; i++)
        {
          int r;
          if (ios[i].result != 1)
            continue;
          r = nbd_aio_command_completed (h, cookies[i]);
          if (r == 0)
            continue;
          pending--;
          if (r == 1)
            ios[i].result = 0;
          else
            {
              ios[i].result = nbd_fail (ios[i].write ? "pwrite" : "pread", why, whylen);
              if (!first)
                first = ios[i].result;
            }
        }
    }
  return first;
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
  .batch = nbd_t_batch,
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
