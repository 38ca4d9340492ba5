/* device_relocate.c - the drive applies planned layouts in the background
 * (docs/sofs.md): a queue of relocation jobs (an object and the order of
 * its units) and one thread that steps the head job with ftl_relocate
 * (GC's copy path: bytes never change, a crash loses nothing but the rest
 * of the plan) while no command has arrived for IDLE_MS, a few units per
 * step so a command never waits long behind it.  When relocation stops
 * for free blocks the thread lets background GC run (ftl_idle) and tries
 * again.  The thread exists only while there is work, or while the
 * automatic policy (device_autoplan.c) is on: it runs the policy when it
 * has no job. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device_internal.h"

#define IDLE_MS 20u             /* quiet this long before a step */
#define STEP_UNITS 32u          /* units per ftl_relocate call */
#define GC_BUDGET_NS 2000000ull /* ftl_idle when space runs short */
#define MAX_WAITS 50u           /* space waits in a row: the job is dropped */

struct reloc_job
{
  uint64_t pid, oid;
  uint64_t *order;
  size_t n, next;
  uint32_t unit_bytes, waits;
  struct reloc_job *link;
};

struct ossd_relocator
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  pthread_t thread;
  bool thread_running;         /* the thread is in its loop */
  bool joinable;               /* created and not joined yet */
  bool stop;
  bool save_wanted;            /* a job ended: the saved queue is stale */
  struct reloc_job *head, *tail;
  struct device_relocate_counters c;
};

int
device_relocate_open (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_relocator *r = calloc (1, sizeof *r);
  if (!r)
    {
      snprintf (why, whylen, "out of memory for the relocator");
      return -ENOMEM;
    }
  pthread_mutex_init (&r->lock, NULL);
  device_cond_init_monotonic (&r->cond);
  dev->relocator = r;
  device_note_activity (dev);
  return 0;
}

static void
job_free (struct reloc_job *j)
{
  free (j->order);
  free (j);
}

static void
drop_all_locked (struct ossd_relocator *r)
{
  while (r->head)
    {
      struct reloc_job *j = r->head;
      r->head = j->link;
      job_free (j);
    }
  r->tail = NULL;
  r->c.jobs_pending = 0;
}

void
device_relocate_stop (ossd_device_t *dev)
{
  struct ossd_relocator *r = dev->relocator;
  if (!r)
    return;
  pthread_mutex_lock (&r->lock);
  r->stop = true;
  pthread_cond_broadcast (&r->cond);
  bool joinable = r->joinable;
  r->joinable = false;
  pthread_mutex_unlock (&r->lock);
  if (joinable)
    pthread_join (r->thread, NULL);
}

void
device_relocate_close (ossd_device_t *dev)
{
  struct ossd_relocator *r = dev->relocator;
  if (!r)
    return;
  device_relocate_stop (dev);
  drop_all_locked (r);
  pthread_cond_destroy (&r->cond);
  pthread_mutex_destroy (&r->lock);
  free (r);
  dev->relocator = NULL;
}

void
device_relocate_drop (ossd_device_t *dev)
{
  struct ossd_relocator *r = dev->relocator;
  if (!r)
    return;
  pthread_mutex_lock (&r->lock);
  drop_all_locked (r);
  pthread_mutex_unlock (&r->lock);
}

void
device_relocate_counters (ossd_device_t *dev, struct device_relocate_counters *c)
{
  struct ossd_relocator *r = dev->relocator;
  memset (c, 0, sizeof *c);
  if (!r)
    return;
  pthread_mutex_lock (&r->lock);
  *c = r->c;
  pthread_mutex_unlock (&r->lock);
}

static void
wait_ms (struct ossd_relocator *r, uint32_t ms)
{
  struct timespec ts;
  device_deadline_after_ms (&ts, ms);
  pthread_cond_timedwait (&r->cond, &r->lock, &ts);
}

/* One step of the head job.  Lock order: ftl_lock (shared), then the
 * queue lock; ftl_lock is held from before the job is looked at until its
 * progress is written back, so FORMAT (which drops the jobs under ftl_lock
 * exclusive) can never free it meanwhile.  Called and returns with the
 * queue lock held. */
static void
step (ossd_device_t *dev, struct ossd_relocator *r)
{
  ftl_error fe = { "" };
  pthread_mutex_unlock (&r->lock);
  pthread_rwlock_rdlock (&dev->ftl_lock);
  pthread_mutex_lock (&r->lock);
  struct reloc_job *j = r->head;
  if (!j || r->stop)
    {
      pthread_mutex_unlock (&r->lock);
      pthread_rwlock_unlock (&dev->ftl_lock);
      pthread_mutex_lock (&r->lock);
      return;
    }
  size_t next = j->next;
  pthread_mutex_unlock (&r->lock);
  /* j stays: only this thread moves it on, only FORMAT and close drop it */
  int e = dev->ftl ? ftl_relocate (dev->ftl, j->pid, j->oid, j->order, j->n,
                                   j->unit_bytes, STEP_UNITS, &next, &fe)
    : -ENODEV;
  if (e == -EAGAIN && dev->ftl)
    ftl_idle (dev->ftl, GC_BUDGET_NS, NULL);
  pthread_mutex_lock (&r->lock);
  r->c.steps++;
  r->c.units_done += next - j->next;
  j->next = next;
  bool done = j->next >= j->n, failed = false;
  if (e == -EAGAIN)
    {
      r->c.waits_for_space++;
      failed = ++j->waits > MAX_WAITS;
    }
  else if (e < 0)
    failed = true;
  else
    j->waits = 0;
  if (failed)
    device_log (dev, "relocation of object %llu:%llu given up after %zu of "
                "%zu units: %s", (unsigned long long) j->pid,
                (unsigned long long) j->oid, j->next, j->n, fe.msg);
  if (done || failed)
    {
      r->head = j->link;
      if (!r->head)
        r->tail = NULL;
      r->c.jobs_pending--;
      if (failed)
        r->c.jobs_failed++;
      else
        r->c.jobs_done++;
      r->save_wanted = true;
      job_free (j);
    }
  pthread_mutex_unlock (&r->lock);
  pthread_rwlock_unlock (&dev->ftl_lock);
  pthread_mutex_lock (&r->lock);
}

/* While the automatic policy is on, or the profile is kept in the image
 * (device_persist.c), the thread stays, with no job, to run them every
 * POLICY_POLL_MS. */
#define POLICY_POLL_MS 200u

static void *
relocator_thread (void *arg)
{
  ossd_device_t *dev = arg;
  struct ossd_relocator *r = dev->relocator;
  pthread_mutex_lock (&r->lock);
  while (!r->stop && (r->head || device_autoplan_enabled (dev)
                      || device_persist_active (dev)))
    {
      if (r->save_wanted)
        {
          /* saving takes the policy's lock and ours: not under ours */
          r->save_wanted = false;
          pthread_mutex_unlock (&r->lock);
          device_persist_save (dev, "a relocation job ended");
          pthread_mutex_lock (&r->lock);
          continue;
        }
      if (!r->head)
        {
          /* the policy queues jobs (its lock, then ours): not under ours */
          pthread_mutex_unlock (&r->lock);
          device_autoplan_tick (dev, device_now_ms ());
          device_persist_maybe (dev, device_now_ms ());
          pthread_mutex_lock (&r->lock);
          if (!r->head && !r->stop)
            wait_ms (r, POLICY_POLL_MS);
          continue;
        }
      uint64_t quiet = device_now_ms ()
        - atomic_load_explicit (&dev->last_command_ms, memory_order_relaxed);
      if (quiet < IDLE_MS)
        {
          wait_ms (r, (uint32_t) (IDLE_MS - quiet));
          continue;
        }
      step (dev, r);
    }
  r->thread_running = false;
  pthread_mutex_unlock (&r->lock);
  return NULL;
}

/* Called with the queue lock held. */
static int
start_thread_locked (ossd_device_t *dev, struct ossd_relocator *r)
{
  int e = 0;
  if (!r->thread_running && !r->stop)
    {
      if (r->joinable)
        pthread_join (r->thread, NULL);   /* a finished one: reap it */
      e = -pthread_create (&r->thread, NULL, relocator_thread, dev);
      r->thread_running = r->joinable = e == 0;
    }
  pthread_cond_broadcast (&r->cond);
  return e;
}

int
device_relocate_kick (ossd_device_t *dev)
{
  struct ossd_relocator *r = dev->relocator;
  if (!r)
    return 0;
  pthread_mutex_lock (&r->lock);
  int e = start_thread_locked (dev, r);
  pthread_mutex_unlock (&r->lock);
  return e;
}

int
device_relocate_queue (ossd_device_t *dev, uint64_t pid, uint64_t oid,
                       uint64_t *order, size_t n, uint32_t unit_bytes)
{
  return device_relocate_resume (dev, pid, oid, order, n, unit_bytes, 0);
}

int
device_relocate_resume (ossd_device_t *dev, uint64_t pid, uint64_t oid,
                        uint64_t *order, size_t n, uint32_t unit_bytes,
                        size_t next)
{
  struct ossd_relocator *r = dev->relocator;
  struct reloc_job *j = calloc (1, sizeof *j);
  if (!j)
    {
      free (order);
      return -ENOMEM;
    }
  *j = (struct reloc_job) { pid, oid, order, n, next < n ? next : n, unit_bytes,
                            0, NULL };
  pthread_mutex_lock (&r->lock);
  if (r->tail)
    r->tail->link = j;
  else
    r->head = j;
  r->tail = j;
  r->c.jobs_queued++;
  r->c.jobs_pending++;
  r->c.units_queued += n - j->next;
  int e = start_thread_locked (dev, r);
  pthread_mutex_unlock (&r->lock);
  return e;
}

int
device_relocate_snapshot (ossd_device_t *dev, struct device_job_copy **out,
                          size_t *nout)
{
  struct ossd_relocator *r = dev->relocator;
  *out = NULL;
  *nout = 0;
  if (!r)
    return 0;
  pthread_mutex_lock (&r->lock);
  size_t n = 0;
  for (struct reloc_job *j = r->head; j; j = j->link)
    n++;
  struct device_job_copy *c = calloc (n + 1, sizeof *c);
  int e = c ? 0 : -ENOMEM;
  size_t k = 0;
  for (struct reloc_job *j = r->head; e == 0 && j; j = j->link, k++)
    {
      c[k] = (struct device_job_copy) { j->pid, j->oid, NULL, j->n, j->next,
                                        j->unit_bytes };
      c[k].order = malloc ((j->n + 1) * sizeof *c[k].order);
      if (!c[k].order)
        e = -ENOMEM;
      else
        memcpy (c[k].order, j->order, j->n * sizeof *j->order);
    }
  pthread_mutex_unlock (&r->lock);
  if (e < 0)
    {
      device_job_copies_free (c, n);   /* entries not reached hold NULL */
      return e;
    }
  *out = c;
  *nout = n;
  return 0;
}

void
device_job_copies_free (struct device_job_copy *c, size_t n)
{
  if (!c)
    return;
  for (size_t i = 0; i < n; i++)
    free (c[i].order);
  free (c);
}
