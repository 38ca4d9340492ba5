/* loop.c - ossdfs's FUSE request loop: a spinning reader while one caller
 * is about, plain worker threads while several are.
 *
 * Why not fuse_session_loop_mt: there every idle thread sleeps in
 * read(2) on /dev/fuse, so every request pays a wake-up in ossdfs on top
 * of the one its caller pays for the reply.  On a virtual machine a
 * wake-up costs tens of microseconds, as much as the request's work, and
 * PostgreSQL's bulk load sends four requests per 8 KiB page (lseek's
 * GETATTR, the kernel's GETXATTR of security.capability, the extension's
 * WRITE of zeros, the page's WRITE), one after the other, from one
 * process.
 *
 * How: the device is non-blocking and every thread waits for it through
 * an epoll instance of its own with EPOLLEXCLUSIVE, so a request wakes one
 * waiter, never a herd.  The loop has two modes:
 *  - solo (no sign of concurrent callers for CONCURRENT_NS): one thread,
 *    the leader, reads.  After each request it keeps trying the device for
 *    up to spin_ns before it waits, so a caller that comes back within
 *    that time is served without a wake-up, and it runs requests itself,
 *    drive waits included.  The other threads park on a condition
 *    variable, away from the device.
 *  - concurrent: entered when a request is queued while another one runs
 *    (seen by the leader just before a drive wait, through libossd's
 *    before_wait hook, or by a thread taking a request while another is
 *    busy).  Parked threads are woken and every idle thread waits on the
 *    device, as in libfuse's loop; one more thread is started (up to
 *    max_threads) whenever none is left waiting.  Nobody spins: the CPUs
 *    are better left to the callers.
 * Threads that still wait on the device when the loop goes back to solo
 * take at most one request each before they park. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include "ossdfs.h"

/* How long after the last sign of concurrent callers the loop stays in
 * concurrent mode. */
#define CONCURRENT_NS (10 * 1000 * 1000)
/* Waits are bounded so a session ended by a signal on another thread, or
 * a change of mode, is noticed. */
#define WAIT_MS 500

struct fs_loop
{
  struct fs *fs;
  struct fuse_session *se;
  int fd;
  uint64_t spin_ns;
  unsigned max_threads;
  pthread_mutex_t lock;        /* everything below */
  pthread_cond_t unpark;       /* leader role free, concurrent mode, or end */
  bool have_leader;
  pthread_t leader;            /* valid while have_leader */
  unsigned nthreads;           /* the caller of loop_run included */
  unsigned nwaiting;           /* waiting on the device (concurrent mode) */
  unsigned nparked;            /* on the condition variable */
  unsigned nbusy;              /* running a request */
  pthread_t *threads;          /* started by the loop (joined at the end) */
  _Atomic uint64_t concurrent_until;   /* mono ns */
  int error;                   /* first receive error */
};

enum loop_role { ROLE_LEADER, ROLE_WORKER };

static ssize_t
loop_read (int fd, void *buf, size_t len, void *userdata)
{
  return read (fd, buf, len);   /* non-blocking: the loop waits */
}

static ssize_t
loop_writev (int fd, struct iovec *iov, int count, void *userdata)
{
  struct fs *fs = userdata;

  if (fs->want_killpriv_v2)
    return killpriv_writev (fs, fd, iov, count);
  return writev (fd, iov, count);
}

static bool
loop_concurrent (struct fs_loop *l, uint64_t now)
{
  return now < atomic_load_explicit (&l->concurrent_until,
                                     memory_order_relaxed);
}

static void *loop_worker (void *arg);

/* Whether the calling thread is the solo mode's leader (l->lock held). */
static bool
loop_leads (struct fs_loop *l)
{
  return l->have_leader && pthread_equal (l->leader, pthread_self ());
}

/* Start one more thread if none waits on the device or is about to
 * (l->lock held). */
static void
loop_add_waiter (struct fs_loop *l)
{
  pthread_t t;

  if (l->nwaiting == 0 && l->nparked == 0 && l->nthreads < l->max_threads
      && !fuse_session_exited (l->se)
      && pthread_create (&t, NULL, loop_worker, l) == 0)
    l->threads[l->nthreads++ - 1] = t;
}

/* Concurrent callers seen now (l->lock held): stay in concurrent mode for
 * CONCURRENT_NS; on entering it, the leader steps down and the parked
 * threads go to the device. */
static void
loop_saw_concurrency (struct fs_loop *l, uint64_t now)
{
  bool was = loop_concurrent (l, now);

  atomic_store_explicit (&l->concurrent_until, now + CONCURRENT_NS,
                         memory_order_relaxed);
  if (was)
    return;
  stats_done (l->fs, SC_LOOP_CONCURRENT, 0);
  l->have_leader = false;
  pthread_cond_broadcast (&l->unpark);
  loop_add_waiter (l);
}

void
loop_before_drive_wait (void *arg)
{
  struct fs *fs = arg;
  struct fs_loop *l = fs->loop;
  struct pollfd p = { .events = POLLIN };

  if (!l)                       /* mounting, or after the loop */
    return;
  p.fd = l->fd;
  pthread_mutex_lock (&l->lock);
  if (loop_leads (l) && poll (&p, 1, 0) > 0)
    loop_saw_concurrency (l, ossd_mono_ns ());
  pthread_mutex_unlock (&l->lock);
}

/* Wait for the device to be readable (or WAIT_MS).  Without an epoll
 * instance (ep < 0: none could be made) poll(2) does, at the price of
 * waking with every other such waiter. */
static void
loop_wait_device (struct fs_loop *l, int ep)
{
  struct epoll_event ev;
  struct pollfd p = { .fd = l->fd, .events = POLLIN };

  stats_done (l->fs, SC_LOOP_SLEEP, 0);
  if (ep < 0 || (epoll_wait (ep, &ev, 1, WAIT_MS) < 0 && errno != EINTR))
    poll (&p, 1, WAIT_MS);
}

/* Take one request into buf.  The leader tries the device for up to
 * spin_ns (while the loop stays solo) before it waits; a worker waits at
 * once.  Returns > 0 with a request, 0 when the session ended, or a
 * negative receive error.  Called without l->lock. */
static int
loop_receive (struct fs_loop *l, int ep, enum loop_role role,
              struct fuse_buf *buf)
{
  uint64_t spin_end = 0;

  for (;;)
    {
      int r = fuse_session_receive_buf (l->se, buf);

      if (fuse_session_exited (l->se))
        return 0;
      if (r > 0)
        return r;
      if (r == 0)
        return 0;
      if (r != -EAGAIN && r != -EINTR)
        return r;
      /* Checked only after a read found nothing: a worker woken by the
       * device takes the request it was woken for (the wake-up went to it
       * alone), so none is left behind for a leader that sleeps. */
      if (role == ROLE_WORKER && !loop_concurrent (l, ossd_mono_ns ()))
        return -EAGAIN;         /* back to solo: park */
      if (role == ROLE_LEADER && l->spin_ns)
        {
          uint64_t now = ossd_mono_ns ();

          if (!spin_end)
            spin_end = loop_concurrent (l, now) ? now : now + l->spin_ns;
          if (now < spin_end)
            {
              sched_yield ();
              continue;
            }
        }
      loop_wait_device (l, ep);
    }
}

static void *
loop_worker (void *arg)
{
  struct fs_loop *l = arg;
  struct fuse_buf buf = { .mem = NULL };
  struct epoll_event ev = { .events = EPOLLIN | EPOLLEXCLUSIVE };
  int ep = epoll_create1 (EPOLL_CLOEXEC);

  if (ep >= 0 && epoll_ctl (ep, EPOLL_CTL_ADD, l->fd, &ev) < 0)
    {
      close (ep);
      ep = -1;
    }
  pthread_mutex_lock (&l->lock);
  while (!fuse_session_exited (l->se))
    {
      uint64_t now = ossd_mono_ns ();
      enum loop_role role;
      int r;

      if (loop_concurrent (l, now))
        {
          role = ROLE_WORKER;
          l->nwaiting++;
        }
      else if (!l->have_leader)
        {
          role = ROLE_LEADER;
          l->have_leader = true;
          l->leader = pthread_self ();
        }
      else
        {
          struct timespec until;

          clock_gettime (CLOCK_REALTIME, &until);
          until.tv_sec += 1;
          l->nparked++;
          pthread_cond_timedwait (&l->unpark, &l->lock, &until);
          l->nparked--;
          continue;
        }
      pthread_mutex_unlock (&l->lock);

      r = loop_receive (l, ep, role, &buf);

      pthread_mutex_lock (&l->lock);
      if (role == ROLE_WORKER)
        l->nwaiting--;
      if (r <= 0)
        {
          if (loop_leads (l))
            l->have_leader = false;
          if (r < 0 && r != -EAGAIN)
            {
              if (!l->error)
                l->error = r;
              fuse_session_exit (l->se);
            }
          continue;
        }
      now = ossd_mono_ns ();
      if (l->nbusy > 0)
        loop_saw_concurrency (l, now);
      else if (role == ROLE_WORKER && loop_concurrent (l, now))
        loop_add_waiter (l);
      l->nbusy++;
      pthread_mutex_unlock (&l->lock);

      fuse_session_process_buf (l->se, &buf);

      pthread_mutex_lock (&l->lock);
      l->nbusy--;
      /* Retaken at the top, lock held all along, while the loop is solo. */
      if (loop_leads (l))
        l->have_leader = false;
    }
  pthread_cond_broadcast (&l->unpark);
  pthread_mutex_unlock (&l->lock);
  if (ep >= 0)
    close (ep);
  free (buf.mem);
  return NULL;
}

int
loop_setup (struct fs *fs, struct fuse_session *se, uint64_t spin_ns,
            unsigned max_threads)
{
  static const struct fuse_custom_io io = {
    .read = loop_read,
    .writev = loop_writev,
  };
  struct fs_loop *l = calloc (1, sizeof *l);
  int fd = fuse_session_fd (se);
  int flags = fcntl (fd, F_GETFL);

  if (!l)
    return -ENOMEM;
  l->max_threads = max_threads ? max_threads : 1;
  l->threads = calloc (l->max_threads, sizeof *l->threads);
  if (!l->threads || flags < 0 || fcntl (fd, F_SETFL, flags | O_NONBLOCK) < 0)
    {
      free (l->threads);
      free (l);
      return -EIO;
    }
  l->fs = fs;
  l->se = se;
  l->fd = fd;
  l->spin_ns = spin_ns;
  l->nthreads = 1;              /* the caller of loop_run */
  pthread_mutex_init (&l->lock, NULL);
  pthread_cond_init (&l->unpark, NULL);
  fs->loop = l;
  atomic_store (&fs->init_reply_seen, false);
  if (fuse_session_custom_io (se, &io, fd) != 0)
    {
      fs->loop = NULL;
      loop_free (l);
      return -EIO;
    }
  return 0;
}

int
loop_run (struct fs_loop *l)
{
  unsigned n;

  loop_worker (l);
  /* The session has ended, so no thread is started after this read of
   * nthreads (loop_add_waiter checks under the lock). */
  pthread_mutex_lock (&l->lock);
  n = l->nthreads;
  pthread_mutex_unlock (&l->lock);
  for (unsigned i = 1; i < n; i++)
    pthread_join (l->threads[i - 1], NULL);
  return l->error;
}

void
loop_free (struct fs_loop *l)
{
  if (!l)
    return;
  pthread_mutex_destroy (&l->lock);
  pthread_cond_destroy (&l->unpark);
  free (l->threads);
  free (l);
}
