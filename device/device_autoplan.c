/* device_autoplan.c - the drive decides by itself when a layout is worth
 * changing (docs/sofs.md, "Deciding when to relocate"): owns
 * dev->autoplan, the policy's settings (off by default; the auto_relocate*
 * options, PROFILE AUTO), the ledger of plans already queued (so neither
 * the policy nor PROFILE APPLY moves an object twice for one plan) and
 * the counters.  The relocator thread (device_relocate.c) calls
 * device_autoplan_tick while it has no job; when the host has been quiet
 * for idle_ms and the profile has new evidence it plans every profiled
 * object (ftl_autoplan.h) and queues those whose modelled cost the plan
 * cuts by more than min_gain_pct; the jobs then run through the existing
 * background path, which any command pauses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "ftl_autoplan.h"

struct ossd_autoplanner
{
  /* read by the relocator thread under its queue lock: no lock of ours */
  atomic_bool enabled;
  pthread_mutex_t lock;        /* the fields below; taken after ftl_lock */
  uint32_t min_gain_pct;
  struct ftl_autoplan_gate gate;
  struct ftl_autoplan_ledger *ledger;
  struct device_autoplan_counters c;
};

int
device_autoplan_open (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ossd_autoplanner *a = calloc (1, sizeof *a);
  if (a)
    a->ledger = calloc (1, sizeof *a->ledger);
  if (!a || !a->ledger)
    {
      free (a);
      snprintf (why, whylen, "out of memory for the relocation policy");
      return -ENOMEM;
    }
  pthread_mutex_init (&a->lock, NULL);
  atomic_init (&a->enabled, dev->opts.auto_relocate);
  a->gate.idle_ms = dev->opts.auto_relocate_idle_ms;
  a->min_gain_pct = dev->opts.auto_relocate_min_gain_pct;
  dev->autoplan = a;
  return 0;
}

void
device_autoplan_close (ossd_device_t *dev)
{
  struct ossd_autoplanner *a = dev->autoplan;
  if (!a)
    return;
  pthread_mutex_destroy (&a->lock);
  free (a->ledger);
  free (a);
  dev->autoplan = NULL;
}

bool
device_autoplan_enabled (ossd_device_t *dev)
{
  struct ossd_autoplanner *a = dev->autoplan;
  return a && atomic_load (&a->enabled);
}

int
device_autoplan_configure (ossd_device_t *dev, bool on, uint32_t idle_ms,
                           uint32_t min_gain_pct, char *why, size_t whylen)
{
  struct ossd_autoplanner *a = dev->autoplan;
  if (min_gain_pct > 100)
    {
      snprintf (why, whylen, "a minimum gain of %u %% (0 to 100)", min_gain_pct);
      return -EINVAL;
    }
  pthread_mutex_lock (&a->lock);
  atomic_store (&a->enabled, on);
  if (idle_ms)
    a->gate.idle_ms = idle_ms;
  if (min_gain_pct)
    a->min_gain_pct = min_gain_pct;
  pthread_mutex_unlock (&a->lock);
  /* the relocator thread runs the policy: it must exist while it is on */
  return on ? device_relocate_kick (dev) : 0;
}

void
device_autoplan_forget (ossd_device_t *dev)
{
  struct ossd_autoplanner *a = dev->autoplan;
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  ftl_autoplan_ledger_clear (a->ledger);
  a->gate.evaluated = false;
  pthread_mutex_unlock (&a->lock);
}

void
device_autoplan_counters (ossd_device_t *dev, struct device_autoplan_counters *c)
{
  struct ossd_autoplanner *a = dev->autoplan;
  memset (c, 0, sizeof *c);
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  *c = a->c;
  c->enabled = atomic_load (&a->enabled);
  c->idle_ms = a->gate.idle_ms;
  c->min_gain_pct = a->min_gain_pct;
  pthread_mutex_unlock (&a->lock);
}

struct walk
{
  ossd_device_t *dev;
  uint32_t unit_bytes;
  struct device_apply_result *res;
};

static int
queue_or_count (void *arg, struct ftl_autoplan_result *r)
{
  struct walk *w = arg;
  struct device_apply_result *res = w->res;
  res->considered++;
  switch (r->verdict)
    {
    case FTL_AUTOPLAN_SKIP_ALREADY_APPLIED:
      res->skipped_already_applied++;
      return 0;
    case FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES:
      res->skipped_layout_matches++;
      return 0;
    case FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD:
      res->skipped_below_threshold++;
      return 0;
    case FTL_AUTOPLAN_APPLY:
      break;
    }
  size_t units = r->plan.units;
  if (r->gain_permille > res->best_gain_permille)
    res->best_gain_permille = r->gain_permille;
  /* FTL_PLAN_GAP is FTL_RELOCATE_GAP: the order goes as it is; the queue
   * owns it from here, whatever it answers */
  int e = device_relocate_queue (w->dev, r->pid, r->oid, r->plan.order,
                                 r->plan.n, w->unit_bytes);
  r->plan.order = NULL;
  if (e < 0)
    return e;
  res->applied++;
  res->units_queued += units;
  return 0;
}

int
device_autoplan_apply (ossd_device_t *dev, enum ftl_plan_kind kind,
                       uint32_t min_gain_permille, struct device_apply_result *res,
                       char *why, size_t whylen)
{
  struct ossd_autoplanner *a = dev->autoplan;
  struct ftl_profile_config cfg;
  ftl_error fe = { "" };
  memset (res, 0, sizeof *res);
  ftl_profile_get_config (dev->profile, &cfg);
  struct walk w = { dev, cfg.unit_bytes, res };
  /* ftl_lock shared for the whole walk: FORMAT cannot drop the objects
   * under it; the ledger is the policy's, so its lock is held too (order:
   * ftl_lock, autoplan lock, relocation queue lock) */
  pthread_rwlock_rdlock (&dev->ftl_lock);
  pthread_mutex_lock (&a->lock);
  int e = dev->ftl ? ftl_autoplan_profile (dev->ftl, dev->profile, kind,
                                           min_gain_permille, a->ledger,
                                           queue_or_count, &w, &fe)
    : -ENODEV;
  pthread_mutex_unlock (&a->lock);
  pthread_rwlock_unlock (&dev->ftl_lock);
  if (e < 0)
    snprintf (why, whylen, "%s", fe.msg[0] ? fe.msg : strerror (-e));
  return e;
}

int
device_autoplan_tick (ossd_device_t *dev, uint64_t now_ms)
{
  struct ossd_autoplanner *a = dev->autoplan;
  struct ftl_profile_counters pc;
  if (!a || !dev->profile)
    return 0;
  ftl_profile_get_counters (dev->profile, &pc);
  uint64_t last = atomic_load_explicit (&dev->last_command_ms, memory_order_relaxed);
  pthread_mutex_lock (&a->lock);
  bool due = atomic_load (&a->enabled) && ftl_autoplan_due (&a->gate, now_ms, last, pc.transitions);
  uint32_t min_gain_permille = a->min_gain_pct * 10;
  if (due)
    {
      ftl_autoplan_evaluated (&a->gate, pc.transitions);
      a->c.evaluations++;
    }
  pthread_mutex_unlock (&a->lock);
  if (!due)
    return 0;
  struct device_apply_result res;
  char why[300];
  int e = device_autoplan_apply (dev, FTL_PLAN_CHAIN, min_gain_permille, &res,
                                 why, sizeof why);
  pthread_mutex_lock (&a->lock);
  a->c.plans_considered += res.considered;
  a->c.plans_applied += res.applied;
  a->c.skipped_already_applied += res.skipped_already_applied;
  a->c.skipped_layout_matches += res.skipped_layout_matches;
  a->c.skipped_below_threshold += res.skipped_below_threshold;
  a->c.units_queued += res.units_queued;
  if (res.applied)
    a->c.last_gain_permille = res.best_gain_permille;
  if (e < 0)
    a->c.errors++;
  pthread_mutex_unlock (&a->lock);
  if (res.applied)
    device_persist_save (dev, "automatic relocation queued");
  if (e < 0)
    device_log (dev, "automatic relocation: planning failed: %s", why);
  else if (res.applied)
    device_log (dev, "automatic relocation: %llu of %llu profiled objects "
                "queued (%llu units; best modelled gain %llu.%llu %%)",
                (unsigned long long) res.applied,
                (unsigned long long) res.considered,
                (unsigned long long) res.units_queued,
                (unsigned long long) res.best_gain_permille / 10,
                (unsigned long long) res.best_gain_permille % 10);
  return 1;
}

void
device_autoplan_ledger_copy (ossd_device_t *dev, struct ftl_autoplan_ledger *out)
{
  struct ossd_autoplanner *a = dev->autoplan;
  ftl_autoplan_ledger_clear (out);
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  *out = *a->ledger;
  pthread_mutex_unlock (&a->lock);
}

void
device_autoplan_ledger_restore (ossd_device_t *dev,
                                const struct ftl_autoplan_ledger *in)
{
  struct ossd_autoplanner *a = dev->autoplan;
  if (!a)
    return;
  pthread_mutex_lock (&a->lock);
  *a->ledger = *in;
  pthread_mutex_unlock (&a->lock);
}
