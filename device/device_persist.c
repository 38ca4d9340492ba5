/* device_persist.c - the drive's access profile, the ledger of plans it
 * applied and its queued relocation jobs kept in the image, so a restart
 * (clean or kill -9) does not forget them (docs/sofs.md, "Persistence").
 * Owns dev->persist.  The record is the FTL's owner record
 * (ftl_owner_record_save: two alternating slots in the system area, a
 * torn save leaves the previous record and touches nothing else).
 *
 * Saved: at a clean close; after PROFILE APPLY or the automatic policy
 * queued jobs; when a job ends; and, while the relocator thread is idle,
 * every PERSIST_INTERVAL_MS if anything changed and the host has been
 * quiet QUIET_MS (a save costs two fsyncs).  Restored at open: the edges
 * into the profile (stream 0), the ledger, and each job whose object still
 * exists, from its saved progress (moving a unit again is harmless: GC's
 * copy path, bytes unchanged); a job of a removed object is dropped.
 *
 * Format (native byte order, version 1): a head, then the jobs (head of
 * the queue first, each with its order), the ledger entries, and the
 * merged edges heaviest first as many as fit in FTL_OWNER_RECORD_MAX (the
 * jobs first: a job that does not fit is not saved; the counters say what
 * was left out). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"

#define PERSIST_INTERVAL_MS 5000u
#define QUIET_MS 1000u
#define REC_MAGIC 0x3146525044535341ull   /* "ASSDPRF1" */
#define REC_VERSION 1u

struct rec_head
{
  uint64_t magic;
  uint32_t version, unit_bytes;
  uint64_t n_jobs, n_ledger, n_edges;
};
struct rec_job
{
  uint64_t pid, oid, n, next;
  uint32_t unit_bytes, pad;
};
struct rec_edge
{
  uint64_t from_pid, from_oid, from_unit, to_pid, to_oid, to_unit;
  uint64_t weight, intra;
};

/* what a save would write differs when one of these moved */
struct signature
{
  uint64_t reads, transitions, edges, jobs_queued, jobs_ended, plans;
};

struct ossd_persist
{
  pthread_mutex_t lock;        /* saves one at a time; the fields */
  bool active;
  uint64_t last_save_ms;
  struct signature saved;
  struct device_persist_counters c;
};

int
device_persist_open (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_persist *p = calloc (1, sizeof *p);
  if (!p)
    {
      snprintf (why, whylen, "out of memory for the profile's persistence");
      return -ENOMEM;
    }
  pthread_mutex_init (&p->lock, NULL);
  /* a RAM drive has no system area: nothing to keep */
  p->active = dev->image && *dev->image;
  p->c.active = p->active;
  dev->persist = p;
  return 0;
}

void
device_persist_close (ossd_device_t *dev)
{
  struct ossd_persist *p = dev->persist;
  if (!p)
    return;
  pthread_mutex_destroy (&p->lock);
  free (p);
  dev->persist = NULL;
}

bool
device_persist_active (ossd_device_t *dev)
{
  return dev->persist && dev->persist->active;
}

void
device_persist_counters (ossd_device_t *dev, struct device_persist_counters *c)
{
  memset (c, 0, sizeof *c);
  if (!dev->persist)
    return;
  pthread_mutex_lock (&dev->persist->lock);
  *c = dev->persist->c;
  pthread_mutex_unlock (&dev->persist->lock);
}

static struct signature
signature_now (ossd_device_t *dev)
{
  struct ftl_profile_counters pc;
  struct device_relocate_counters rc;
  struct device_autoplan_counters ac;
  ftl_profile_get_counters (dev->profile, &pc);
  device_relocate_counters (dev, &rc);
  device_autoplan_counters (dev, &ac);
  return (struct signature) { pc.reads, pc.transitions, pc.edges, rc.jobs_queued,
                              rc.jobs_done + rc.jobs_failed, ac.plans_applied };
}

struct out
{
  uint8_t *p;
  size_t len, cap;
};

static bool
put (struct out *o, const void *d, size_t n)
{
  if (o->len + n > o->cap)
    return false;
  memcpy (o->p + o->len, d, n);
  o->len += n;
  return true;
}

/* The record of now into o; the counters of what was left out into c. */
static int
build (ossd_device_t *dev, struct out *o, struct device_persist_counters *c)
{
  struct ftl_profile_config cfg;
  ftl_profile_get_config (dev->profile, &cfg);
  struct device_job_copy *jobs;
  size_t njobs;
  int e = device_relocate_snapshot (dev, &jobs, &njobs);
  if (e < 0)
    return e;
  struct ftl_autoplan_ledger *ledger = malloc (sizeof *ledger);
  if (!ledger)
    {
      device_job_copies_free (jobs, njobs);
      return -ENOMEM;
    }
  device_autoplan_ledger_copy (dev, ledger);
  struct rec_head h = { REC_MAGIC, REC_VERSION, cfg.unit_bytes, 0, 0, 0 };
  o->len = sizeof h;
  c->jobs_saved = c->jobs_not_saved = 0;
  for (size_t i = 0; i < njobs; i++)
    {
      struct rec_job rj = { jobs[i].pid, jobs[i].oid, jobs[i].n, jobs[i].next,
                            jobs[i].unit_bytes, 0 };
      size_t need = sizeof rj + jobs[i].n * sizeof (uint64_t);
      /* keep room for the ledger */
      if (o->len + need + sizeof (struct ftl_autoplan_applied) * ledger->n > o->cap)
        {
          c->jobs_not_saved++;
          continue;
        }
      put (o, &rj, sizeof rj);
      put (o, jobs[i].order, jobs[i].n * sizeof (uint64_t));
      h.n_jobs++;
    }
  c->jobs_saved = h.n_jobs;
  device_job_copies_free (jobs, njobs);
  for (uint32_t i = 0; i < ledger->n; i++)
    if (put (o, &ledger->e[i], sizeof ledger->e[i]))
      h.n_ledger++;
  free (ledger);
  /* the heaviest edges that fit */
  size_t room = (o->cap - o->len) / sizeof (struct rec_edge), n = 0, total = 0;
  struct ftl_profile_edge *pe = calloc (room + 1, sizeof *pe);
  ftl_error fe = { "" };
  if (!pe)
    return -ENOMEM;
  e = ftl_profile_edges (dev->profile, pe, room, &n, &total, &fe);
  if (e == -E2BIG)
    {
      /* too many to merge: the jobs and the ledger are still worth keeping */
      n = total = 0;
      e = 0;
    }
  for (size_t i = 0; e == 0 && i < n; i++)
    {
      struct rec_edge re = { pe[i].from.pid, pe[i].from.oid, pe[i].from.unit,
                             pe[i].to.pid, pe[i].to.oid, pe[i].to.unit,
                             pe[i].weight, pe[i].intra_weight };
      put (o, &re, sizeof re);
      h.n_edges++;
    }
  free (pe);
  c->edges_saved = h.n_edges;
  c->edges_not_saved = total > n ? total - n : 0;
  memcpy (o->p, &h, sizeof h);
  return e;
}

int
device_persist_save (ossd_device_t *dev, const char *why)
{
  struct ossd_persist *p = dev->persist;
  if (!p || !p->active || !dev->profile)
    return 0;
  struct out o = { malloc (FTL_OWNER_RECORD_MAX), 0, FTL_OWNER_RECORD_MAX };
  if (!o.p)
    return -ENOMEM;
  pthread_mutex_lock (&p->lock);
  struct signature sig = signature_now (dev);
  struct device_persist_counters c = p->c;
  ftl_error fe = { "" };
  /* ftl_lock shared: FORMAT does not swap the FTL under the save */
  pthread_rwlock_rdlock (&dev->ftl_lock);
  int e = build (dev, &o, &c);
  if (e == 0)
    e = dev->ftl ? ftl_owner_record_save (dev->ftl, o.p, o.len, &fe) : -ENODEV;
  pthread_rwlock_unlock (&dev->ftl_lock);
  p->last_save_ms = device_now_ms ();
  if (e == 0)
    {
      c.saves++;
      c.last_bytes = o.len;
      p->saved = sig;
    }
  else
    c.save_errors++;
  p->c = c;
  pthread_mutex_unlock (&p->lock);
  free (o.p);
  if (e < 0)
    device_log (dev, "saving the access profile (%s) failed: %s", why,
                fe.msg[0] ? fe.msg : strerror (-e));
  return e;
}

void
device_persist_maybe (ossd_device_t *dev, uint64_t now_ms)
{
  struct ossd_persist *p = dev->persist;
  if (!p || !p->active)
    return;
  uint64_t last = atomic_load_explicit (&dev->last_command_ms, memory_order_relaxed);
  if (now_ms < last + QUIET_MS)
    return;
  pthread_mutex_lock (&p->lock);
  bool due = now_ms >= p->last_save_ms + PERSIST_INTERVAL_MS;
  struct signature saved = p->saved;
  pthread_mutex_unlock (&p->lock);
  if (!due)
    return;
  struct signature now = signature_now (dev);
  if (memcmp (&now, &saved, sizeof now) != 0)
    device_persist_save (dev, "periodic");
}

struct in
{
  const uint8_t *p;
  size_t len, off;
};

static bool
get (struct in *in, void *d, size_t n)
{
  if (n > in->len - in->off)
    return false;
  memcpy (d, in->p + in->off, n);
  in->off += n;
  return true;
}

static int
restore_from (ossd_device_t *dev, const uint8_t *buf, size_t len,
              struct device_persist_counters *c, char *why, size_t whylen)
{
  struct in in = { buf, len, 0 };
  struct rec_head h;
  struct ftl_profile_config cfg;
  ftl_profile_get_config (dev->profile, &cfg);
  if (!get (&in, &h, sizeof h) || h.magic != REC_MAGIC || h.version != REC_VERSION)
    {
      snprintf (why, whylen, "not a profile record of version %u", REC_VERSION);
      return -EBADMSG;
    }
  if (h.unit_bytes != cfg.unit_bytes)
    {
      snprintf (why, whylen, "saved with %u-byte units, the profile has %u",
                h.unit_bytes, cfg.unit_bytes);
      return -EBADMSG;
    }
  for (uint64_t i = 0; i < h.n_jobs; i++)
    {
      struct rec_job rj;
      if (!get (&in, &rj, sizeof rj) || rj.n > (in.len - in.off) / sizeof (uint64_t))
        {
          snprintf (why, whylen, "job %llu is cut short", (unsigned long long) i);
          return -EBADMSG;
        }
      uint64_t *order = malloc ((rj.n + 1) * sizeof *order);
      if (!order)
        return -ENOMEM;
      get (&in, order, rj.n * sizeof *order);
      struct ftl_object_info oi;
      ftl_error fe = { "" };
      pthread_rwlock_rdlock (&dev->ftl_lock);
      bool exists = dev->ftl && ftl_stat_object (dev->ftl, rj.pid, rj.oid, &oi, &fe) == 0;
      pthread_rwlock_unlock (&dev->ftl_lock);
      if (!exists || device_relocate_resume (dev, rj.pid, rj.oid, order, rj.n,
                                             rj.unit_bytes, rj.next) < 0)
        {
          if (!exists)
            free (order);
          c->dropped_jobs++;
          continue;
        }
      c->restored_jobs++;
    }
  struct ftl_autoplan_ledger *ledger = calloc (1, sizeof *ledger);
  if (!ledger)
    return -ENOMEM;
  for (uint64_t i = 0; i < h.n_ledger; i++)
    {
      struct ftl_autoplan_applied a;
      if (!get (&in, &a, sizeof a))
        {
          free (ledger);
          snprintf (why, whylen, "the ledger is cut short");
          return -EBADMSG;
        }
      ftl_autoplan_ledger_put (ledger, a.pid, a.oid, a.plan_hash);
    }
  c->restored_plans = ledger->n;
  device_autoplan_ledger_restore (dev, ledger);
  free (ledger);
  if (h.n_edges > (in.len - in.off) / sizeof (struct rec_edge))
    {
      snprintf (why, whylen, "the edges are cut short");
      return -EBADMSG;
    }
  struct ftl_profile_edge *pe = calloc (h.n_edges + 1, sizeof *pe);
  if (!pe)
    return -ENOMEM;
  for (uint64_t i = 0; i < h.n_edges; i++)
    {
      struct rec_edge re;
      get (&in, &re, sizeof re);
      pe[i] = (struct ftl_profile_edge) { { re.from_pid, re.from_oid, re.from_unit },
                                          { re.to_pid, re.to_oid, re.to_unit },
                                          re.weight, re.intra };
    }
  size_t restored = 0;
  ftl_error fe = { "" };
  int e = ftl_profile_restore (dev->profile, 0, pe, h.n_edges, &restored, &fe);
  free (pe);
  c->restored_edges = restored;
  if (e < 0)
    snprintf (why, whylen, "%s", fe.msg);
  return e;
}

void
device_persist_restore (ossd_device_t *dev)
{
  struct ossd_persist *p = dev->persist;
  if (!p || !p->active || !dev->ftl || !dev->profile)
    return;
  void *buf;
  size_t len;
  struct ftl_owner_record_info info;
  ftl_error fe = { "" };
  char why[300] = "";
  int e = ftl_owner_record_load (dev->ftl, &buf, &len, &info, &fe);
  struct device_persist_counters c = p->c;
  if (e == -ENOENT)
    return;   /* nothing was saved: a new image, or an older one */
  if (e < 0)
    {
      c.lost = 1;
      device_log (dev, "the saved access profile is lost (%s); the drive's "
                  "data is not affected", fe.msg);
    }
  else
    {
      c.newest_lost = info.newest_lost;
      e = restore_from (dev, buf, len, &c, why, sizeof why);
      free (buf);
      if (e < 0)
        {
          c.lost = 1;
          device_log (dev, "the saved access profile could not be restored "
                      "(%s); what was read of it is kept", why);
        }
      else if (c.restored_edges || c.restored_plans || c.restored_jobs
               || c.dropped_jobs || info.newest_lost)
        device_log (dev, "access profile restored: %llu edges, %llu applied "
                    "plans, %llu relocation jobs resumed, %llu dropped (their "
                    "objects are gone)%s", (unsigned long long) c.restored_edges,
                    (unsigned long long) c.restored_plans,
                    (unsigned long long) c.restored_jobs,
                    (unsigned long long) c.dropped_jobs,
                    info.newest_lost ? "; the newest save was torn by a crash, "
                    "this is the one before it" : "");
    }
  pthread_mutex_lock (&p->lock);
  p->c = c;
  /* what was restored is saved: no save is due for it */
  p->last_save_ms = device_now_ms ();
  p->saved = signature_now (dev);
  pthread_mutex_unlock (&p->lock);
}
