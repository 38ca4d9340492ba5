/* transport_nbd.c - NBD transport through libnbd: nbd+unix:///?socket=PATH
 * and nbd://HOST:PORT.
 *
 * Several threads (several slots) share one connection.  Every I/O is a
 * libnbd asynchronous command whose completion callback marks it done;
 * one waiting thread at a time drives the connection (nbd_poll) while the
 * others sleep on a condition variable, so a reply is never stranded
 * behind another thread's poll.  A batch puts all its commands in flight
 * at once: the drive serves them on parallel threads.
 *
 * Deadlines: every wait, the connect included, ends after the opener's
 * timeout_ms, or sooner when its interrupted hook says so (checked every
 * WAIT_SLICE_MS).  Commands in flight cannot be taken back from libnbd
 * (they point into the caller's buffers), so a wait that gives up shuts
 * the socket down: libnbd then fails every command of the connection at
 * once (ENOTCONN), the waits return, and the transport reports itself
 * lost (nbd_t_lost) so that the client connects again.
 *
 * An interrupted wait (a cancelled query; the drive is answering) first
 * lets the connection's commands in flight finish, for up to DRAIN_MS:
 * nbdkit up to 1.33.9 aborts (assertion "sock >= 0" in raw_send_socket,
 * fixed by its commit 9d82aa4f) when a client hangs up while two of its
 * replies are queued on parallel threads, which takes the drive down for
 * every user.  A timed-out wait (a stalled drive) drops at once. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include <libnbd.h>

#include "libossd.h"
#include "ossd_transport.h"

#define WAIT_SLICE_MS 100       /* longest sleep between checks */
#define IDLE_PROBE_NS 1000000   /* idle this long: check for a lost peer */
#define DRAIN_MS 2500           /* an interrupted wait lets commands in flight
                                   finish this long (a slot read long-polls
                                   for up to the drive's 2 s) */

struct nbd_conn
{
  struct nbd_handle *h;
  char *uri;                   /* for messages */
  int fd;                      /* the socket (libnbd's), for shutdown */
  pthread_mutex_t lock;
  pthread_cond_t cond;         /* a command completed, or the poller left
                                  (CLOCK_MONOTONIC) */
  bool polling;                /* some thread is inside nbd_poll */
  bool dropped;                /* a wait gave up: socket shut down */
  unsigned waiters;            /* threads inside nbd_wait */
  unsigned active;             /* threads with commands in flight */
  unsigned in_flight;          /* commands submitted and not completed */
  uint64_t idle_since_ns;      /* when active last dropped to 0 */
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
  if (!cmd->done && cmd->c->in_flight > 0)
    cmd->c->in_flight--;
  cmd->done = true;
  cmd->error = *error;
  pthread_cond_broadcast (&cmd->c->cond);
  pthread_mutex_unlock (&cmd->c->lock);
  return 1;                     /* retire the command */
}

/* Give up the connection (c->lock held): shutting the socket down
 * makes libnbd see end of file and fail every command in flight. */
static void
nbd_drop (struct nbd_conn *c)
{
  if (!c->dropped && c->fd >= 0)
    shutdown (c->fd, SHUT_RDWR);
  c->dropped = true;
}

/* Why a wait must end now: -ETIMEDOUT past the deadline, -ECANCELED when
 * the hook says stop, else 0. */
static int
nbd_wait_over (const struct ossd_transport *t, uint64_t deadline)
{
  if (deadline && ossd_mono_ns () >= deadline)
    return -ETIMEDOUT;
  if (t->wait.interrupted && t->wait.interrupted (t->wait.interrupted_arg))
    return -ECANCELED;
  return 0;
}

static uint64_t
nbd_deadline (const struct ossd_transport *t)
{
  return t->wait.timeout_ms
    ? ossd_mono_ns () + (uint64_t) t->wait.timeout_ms * 1000000 : 0;
}

static int
nbd_give_up (struct nbd_conn *c, const struct ossd_transport *t, int over,
             char *why, size_t whylen)
{
  if (over == -ETIMEDOUT)
    snprintf (why, whylen, "no answer from the drive at %s within %u ms (timeout)",
              c->uri, t->wait.timeout_ms);
  else
    snprintf (why, whylen, "wait for the drive at %s cancelled", c->uri);
  return over;
}

/* Wait until every command of cmds[0..n) completed, driving the
 * connection when no other thread does.  The driving thread first polls
 * the socket without sleeping for up to spin_ns: a wake-up from poll(2)
 * costs more than a short reply takes.  Past the deadline, or when
 * interrupted, the connection is dropped (see the file header) and the
 * wait goes on only until libnbd failed the commands, at once. */
static int
nbd_wait (struct ossd_transport *t, struct nbd_cmd *cmds, size_t n,
          char *why, size_t whylen)
{
  struct nbd_conn *c = t->priv;
  uint64_t spin_end = 0, deadline = nbd_deadline (t), drain_end = 0;
  unsigned failed_polls = 0;
  int r = 0;

  pthread_mutex_lock (&c->lock);
  /* Spin only alone: with several threads waiting, the CPU is better
   * left to whoever has work. */
  if (t->spin_ns && c->waiters++ == 0)
    spin_end = ossd_mono_ns () + t->spin_ns;
  for (;;)
    {
      size_t i = 0;
      while (i < n && cmds[i].done)
        i++;
      /* draining (see the file header): drop once nothing is in flight */
      if (drain_end && !c->dropped
          && (c->in_flight == 0 || ossd_mono_ns () >= drain_end
              || (deadline && ossd_mono_ns () >= deadline)))
        nbd_drop (c);
      if (i == n && (!drain_end || c->dropped))
        break;
      if (r == 0)
        {
          int over = nbd_wait_over (t, deadline);
          if (over)
            {
              r = nbd_give_up (c, t, over, why, whylen);
              if (over == -ECANCELED && !c->dropped)
                drain_end = ossd_mono_ns () + (uint64_t) DRAIN_MS * 1000000;
              else
                nbd_drop (c);
            }
        }
      if (c->polling)
        {
          struct timespec ts;

          clock_gettime (CLOCK_MONOTONIC, &ts);
          ts.tv_nsec += WAIT_SLICE_MS * 1000000L;
          if (ts.tv_nsec >= 1000000000L)
            {
              ts.tv_sec++;
              ts.tv_nsec -= 1000000000L;
            }
          pthread_cond_timedwait (&c->cond, &c->lock, &ts);
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
            {
              if (r == 0)
                r = nbd_fail ("poll", why, whylen);
              pthread_mutex_lock (&c->lock);
              if (nbd_aio_is_dead (c->h) > 0 || nbd_aio_is_closed (c->h) > 0
                  || failed_polls++ > 0)
                {
                  /* A dead handle retired (failed) every command. */
                  c->in_flight = 0;
                  for (size_t j = 0; j < n; j++)
                    if (!cmds[j].done)
                      {
                        cmds[j].done = true;
                        cmds[j].error = ENOTCONN;
                      }
                }
              else
                nbd_drop (c);   /* it dies at the next poll */
              pthread_mutex_unlock (&c->lock);
            }
          if (progressed != 0 || timeout != 0)
            break;
          sched_yield ();
        }
      pthread_mutex_lock (&c->lock);
      c->polling = false;
      pthread_cond_broadcast (&c->cond);
    }
  if (t->spin_ns)
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
  pthread_mutex_lock (&c->lock);
  c->active++;
  pthread_mutex_unlock (&c->lock);
  for (size_t i = 0; i < n; i++)
    {
      nbd_completion_callback cb = { .callback = nbd_cmd_completed,
                                     .user_data = &cmds[i] };
      int64_t cookie;

      cmds[i] = (struct nbd_cmd) { .c = c };
      pthread_mutex_lock (&c->lock);
      c->in_flight++;         /* before: it may complete at once */
      pthread_mutex_unlock (&c->lock);
      cookie = ios[i].write
        ? nbd_aio_pwrite (c->h, ios[i].buf, ios[i].len, ios[i].off, cb, 0)
        : nbd_aio_pread (c->h, ios[i].buf, ios[i].len, ios[i].off, cb, 0);
      if (cookie == -1)
        {
          pthread_mutex_lock (&c->lock);
          c->in_flight--;
          pthread_mutex_unlock (&c->lock);
          /* Never submitted: nothing will complete it. */
          ios[i].result = nbd_fail (ios[i].write ? "aio_pwrite" : "aio_pread", why, whylen);
          cmds[i].done = true;
          cmds[i].error = -ios[i].result;
          if (!first)
            first = ios[i].result;
        }
    }
  r = nbd_wait (t, cmds, n, why, whylen);
  pthread_mutex_lock (&c->lock);
  if (--c->active == 0)
    c->idle_since_ns = ossd_mono_ns ();
  pthread_mutex_unlock (&c->lock);
  for (size_t i = 0; i < n; i++)
    {
      if (r == -ETIMEDOUT || r == -ECANCELED)
        ios[i].result = r;    /* the reason, not the ENOTCONN it caused */
      else if (cmds[i].error && ios[i].result >= 0)
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

  pthread_mutex_lock (&c->lock);
  c->active++;
  c->in_flight++;
  pthread_mutex_unlock (&c->lock);
  if (nbd_aio_flush (c->h, cb, 0) == -1)
    {
      r = nbd_fail ("flush", why, whylen);
      pthread_mutex_lock (&c->lock);
      c->in_flight--;
      pthread_mutex_unlock (&c->lock);
    }
  else
    r = nbd_wait (t, &cmd, 1, why, whylen);
  pthread_mutex_lock (&c->lock);
  if (--c->active == 0)
    c->idle_since_ns = ossd_mono_ns ();
  pthread_mutex_unlock (&c->lock);
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
          /* A polite disconnect only on a live connection: a stalled
           * drive would hold it, and a process on its way out does not
           * wait for it.  nbd_close itself never waits. */
          if (!c->dropped && !t->close_at_once && nbd_aio_is_ready (c->h) > 0)
            nbd_shutdown (c->h, LIBNBD_SHUTDOWN_ABANDON_PENDING);
          nbd_close (c->h);
        }
      pthread_mutex_destroy (&c->lock);
      pthread_cond_destroy (&c->cond);
      free (c->uri);
      free (c);
    }
  free (t);
}

/* Gone for good: dropped by a wait, dead in libnbd, or - probed only
 * while no command is in flight - readable, which on an idle NBD
 * connection means the server closed it (it never speaks unasked).  The
 * probe (a poll(2)) is skipped when the connection was busy a moment
 * ago: back-to-back calls pay nothing, and a drive takes far longer
 * than that to restart. */
static bool
nbd_t_lost (struct ossd_transport *t)
{
  struct nbd_conn *c = t->priv;
  bool lost;

  pthread_mutex_lock (&c->lock);
  lost = c->dropped;
  if (!lost && c->active == 0 && !c->polling && c->fd >= 0
      && ossd_mono_ns () - c->idle_since_ns >= IDLE_PROBE_NS)
    {
      struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLRDHUP };
      lost = poll (&p, 1, 0) > 0;
      if (lost)
        nbd_drop (c);
    }
  pthread_mutex_unlock (&c->lock);
  return lost;
}

static const struct ossd_transport_ops nbd_ops = {
  .name = "nbd",
  .pread = nbd_t_pread,
  .pwrite = nbd_t_pwrite,
  .flush = nbd_t_flush,
  .close = nbd_t_close,
  .batch = nbd_t_batch,
  .lost = nbd_t_lost,
};

/* Connect with a deadline: libnbd's asynchronous connect, polled in
 * slices between checks of the deadline and the hook. */
static int
nbd_connect_bounded (struct ossd_transport *t, struct nbd_conn *c,
                     const char *uri, char *why, size_t whylen)
{
  uint64_t deadline = nbd_deadline (t);
  int r;

  if (nbd_aio_connect_uri (c->h, uri) == -1)
    {
      r = nbd_get_errno ();
      snprintf (why, whylen, "cannot connect to %s: %s", uri, nbd_get_error ());
      return -(r ? r : ENXIO);
    }
  while (nbd_aio_is_connecting (c->h) > 0)
    {
      int over = nbd_wait_over (t, deadline);

      if (over == -ETIMEDOUT)
        {
          snprintf (why, whylen, "cannot connect to %s: no answer from the drive within %u ms (timeout)",
                    uri, t->wait.timeout_ms);
          return over;
        }
      if (over)
        {
          snprintf (why, whylen, "connecting to %s cancelled", uri);
          return over;
        }
      if (nbd_poll (c->h, WAIT_SLICE_MS) == -1)
        break;
    }
  if (nbd_aio_is_ready (c->h) <= 0)
    {
      r = nbd_get_errno ();
      snprintf (why, whylen, "cannot connect to %s: %s", uri,
                nbd_get_error () ? nbd_get_error () : "connection failed");
      return -(r ? r : ENXIO);
    }
  c->fd = nbd_aio_get_fd (c->h);
  return 0;
}

int
ossd_transport_open_nbd (const char *uri,
                         const struct ossd_transport_wait *wait,
                         struct ossd_transport **out, char *why,
                         size_t whylen)
{
  struct ossd_transport *t = calloc (1, sizeof *t);
  struct nbd_conn *c = calloc (1, sizeof *c);
  pthread_condattr_t ca;
  int64_t size;
  int r;

  if (!t || !c || !(c->uri = strdup (uri)))
    {
      free (t);
      if (c)
        free (c->uri);
      free (c);
      return -ENOMEM;
    }
  c->fd = -1;
  pthread_mutex_init (&c->lock, NULL);
  pthread_condattr_init (&ca);
  pthread_condattr_setclock (&ca, CLOCK_MONOTONIC);
  pthread_cond_init (&c->cond, &ca);
  pthread_condattr_destroy (&ca);
  t->ops = &nbd_ops;
  t->priv = c;
  if (wait)
    t->wait = *wait;
  c->h = nbd_create ();
  if (!c->h)
    {
      r = nbd_fail ("create", why, whylen);
      nbd_t_close (t);
      return r;
    }
  r = nbd_connect_bounded (t, c, uri, why, whylen);
  if (r < 0)
    {
      nbd_t_close (t);
      return r;
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
