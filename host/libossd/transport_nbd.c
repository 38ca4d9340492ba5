/* transport_nbd.c - NBD transport through libnbd: nbd+unix:///?socket=PATH
 * and nbd://HOST:PORT.
 *
 * Several threads (several slots) share one connection.  Every I/O is a
 * libnbd asynchronous command whose completion callback marks it done;
 * one waiting thread at a time drives the connection (nbd_poll) while the
 * others sleep on a condition variable, so a reply is never stranded
 * behind another thread's poll.  A batch puts all its commands in flight
 * at once: the drive serves them on parallel threads. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libnbd.h>

#include "libossd.h"
#include "ossd_transport.h"

struct nbd_conn
{
  struct nbd_handle *h;
  pthread_mutex_t lock;
  pthread_cond_t cond;         /* a command completed, or the poller left */
  bool polling;                /* some thread is inside nbd_poll */
  unsigned waiters;            /* threads inside nbd_wait */
};

/* Completion state of one command (lives on the waiter's stack). */
struct nbd_cmd
{
  struct nbd_conn *c;
  bool done;
  int error;                   /* errno from the server or libnbd */
};

static int
nbd_fail (const char *op, char *why, size_t whylen)
{
  int e = nbd_get_errno ();
  snprintf (why, whylen, "nbd %s: %s", op, nbd_get_error ());
  return -(e ? e : EIO);
}

static int
nbd_cmd_completed (void *user_data, int *error)
{
  struct nbd_cmd *cmd = user_data;

  pthread_mutex_lock (&cmd->c->lock);
  cmd->done = true;
  cmd->error = *error;
  pthread_cond_broadcast (&cmd->c->cond);
  pthread_mutex_unlock (&cmd->c->lock);
  return 1;                     /* retire the command */
}

/* Wait until every command of cmds[0..n) completed, driving the
 * connection when no other thread does.  The driving thread first polls
 * the socket without sleeping for up to spin_ns: a wake-up from poll(2)
 * costs more than a short reply takes. */
static int
nbd_wait (struct nbd_conn *c, uint64_t spin_ns, struct nbd_cmd *cmds,
          size_t n, char *why, size_t whylen)
{
  uint64_t spin_end = 0;
  int r = 0;

  pthread_mutex_lock (&c->lock);
  /* Spin only alone: with several threads waiting, the CPU is better
   * left to whoever has work. */
  if (spin_ns && c->waiters++ == 0)
    spin_end = ossd_mono_ns () + spin_ns;
  for (;;)
    {
      size_t i = 0;
      while (i < n && cmds[i].done)
        i++;
      if (i == n)
        break;
      if (c->polling)
        {
          pthread_cond_wait (&c->cond, &c->lock);
          continue;
        }
      c->polling = true;
      pthread_mutex_unlock (&c->lock);
      for (;;)
        {
          /* Bounded, so the role passes around even on a quiet socket.
           * Polls that find nothing while spinning keep the role: the
           * completion callbacks wake the threads whose commands end. */
          int timeout = spin_end && ossd_mono_ns () < spin_end ? 0 : 50;
          int progressed = nbd_poll (c->h, timeout);

          if (progressed == -1)
            r = nbd_fail ("poll", why, whylen);
          if (progressed != 0 || timeout != 0)
            break;
          sched_yield ();
        }
      pthread_mutex_lock (&c->lock);
      c->polling = false;
      pthread_cond_broadcast (&c->cond);
      if (r < 0)
        break;
    }
  if (spin_ns)
    c->waiters--;
  pthread_mutex_unlock (&c->lock);
  return r;
}

static int
nbd_t_batch (struct ossd_transport *t, struct ossd_io *ios, size_t n,
             char *why, size_t whylen)
{
  struct nbd_conn *c = t->priv;
  struct nbd_cmd cmds[64];
  int first = 0, r;

  if (n > 64)
    {
      snprintf (why, whylen, "nbd batch of %zu I/Os exceeds 64", n);
      return -EINVAL;
    }
  for (size_t i = 0; i < n; i++)
    {
      nbd_completion_callback cb = { .callback = nbd_cmd_completed,
                                     .user_data = &cmds[i] };
      int64_t cookie;

      cmds[i] = (struct nbd_cmd) { .c = c };
      cookie = ios[i].write
        ? nbd_aio_pwrite (c->h, ios[i].buf, ios[i].len, ios[i].off, cb, 0)
        : nbd_aio_pread (c->h, ios[i].buf, ios[i].len, ios[i].off, cb, 0);
      if (cookie == -1)
        {
          /* Never submitted: nothing will complete it. */
          ios[i].result = nbd_fail (ios[i].write ? "aio_pwrite" : "aio_pread", why, whylen);
          cmds[i].done = true;
          cmds[i].error = -ios[i].result;
          if (!first)
            first = ios[i].result;
        }
    }
  r = nbd_wait (c, t->spin_ns, cmds, n, why, whylen);
  for (size_t i = 0; i < n; i++)
    {
      if (cmds[i].error && ios[i].result >= 0)
        {
          ios[i].result = -cmds[i].error;
          snprintf (why, whylen, "nbd %s of %zu bytes at %llu: %s",
                    ios[i].write ? "pwrite" : "pread", ios[i].len,
                    (unsigned long long) ios[i].off, strerror (cmds[i].error));
        }
      else if (!cmds[i].error)
        ios[i].result = 0;
      if (ios[i].result < 0 && !first)
        first = ios[i].result;
    }
  return first ? first : r;
}

static int
nbd_t_pread (struct ossd_transport *t, void *buf, size_t len, uint64_t off,
             char *why, size_t whylen)
{
  struct ossd_io io = { .buf = buf, .len = len, .off = off };
  return nbd_t_batch (t, &io, 1, why, whylen);
}

static int
nbd_t_pwrite (struct ossd_transport *t, const void *buf, size_t len,
              uint64_t off, char *why, size_t whylen)
{
  struct ossd_io io = { .buf = (void *) buf, .len = len, .off = off,
                        .write = true };
  return nbd_t_batch (t, &io, 1, why, whylen);
}

static int
nbd_t_flush (struct ossd_transport *t, char *why, size_t whylen)
{
  struct nbd_conn *c = t->priv;
  struct nbd_cmd cmd = { .c = c };
  nbd_completion_callback cb = { .callback = nbd_cmd_completed,
                                 .user_data = &cmd };
  int r;

  if (nbd_aio_flush (c->h, cb, 0) == -1)
    return nbd_fail ("flush", why, whylen);
  r = nbd_wait (c, t->spin_ns, &cmd, 1, why, whylen);
  if (r == 0 && cmd.error)
    {
      snprintf (why, whylen, "nbd flush: %s", strerror (cmd.error));
      r = -cmd.error;
    }
  return r;
}

static void
nbd_t_close (struct ossd_transport *t)
{
  struct nbd_conn *c = t->priv;

  if (c)
    {
      if (c->h)
        {
          nbd_shutdown (c->h, 0);
          nbd_close (c->h);
        }
      pthread_mutex_destroy (&c->lock);
      pthread_cond_destroy (&c->cond);
      free (c);
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
  struct nbd_conn *c = calloc (1, sizeof *c);
  int64_t size;
  int r;

  if (!t || !c)
    {
      free (t);
      free (c);
      return -ENOMEM;
    }
  pthread_mutex_init (&c->lock, NULL);
  pthread_cond_init (&c->cond, NULL);
  t->ops = &nbd_ops;
  t->priv = c;
  c->h = nbd_create ();
  if (!c->h)
    {
      r = nbd_fail ("create", why, whylen);
      nbd_t_close (t);
      return r;
    }
  if (nbd_connect_uri (c->h, uri) == -1)
    {
      r = nbd_get_errno ();
      snprintf (why, whylen, "cannot connect to %s: %s", uri, nbd_get_error ());
      nbd_t_close (t);
      return -(r ? r : ENXIO);
    }
  size = nbd_get_size (c->h);
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
