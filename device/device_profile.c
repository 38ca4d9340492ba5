/* device_profile.c - the drive's access profiler (docs/sofs.md): owns
 * dev->profile (ftl/include/ftl_profile.h), records host reads (READ
 * commands by their slot, block-volume reads as stream slot_count) and
 * answers PROFILE (show, reset, enable, disable, apply: a plan per object
 * through device_autoplan.c's decision, queued for device_relocate.c; and
 * auto: the automatic policy's switch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "ftl_plan.h"

#define SHOW_READS_DEFAULT 32u
#define SHOW_EDGES_DEFAULT 256u
#define SHOW_MAX 65536u

static size_t auto_counters (ossd_device_t *dev,
                             Ossd__ProfileResult__CountersEntry *ce,
                             Ossd__ProfileResult__CountersEntry **pce, size_t n,
                             bool persist);

int
device_profile_open (ossd_device_t *dev, char *why, size_t whylen)
{
  struct ftl_profile_config c;
  ftl_error fe = { "" };

  ftl_profile_config_defaults (&c);
  /* the slots and the block volume each get a graph of their own; the
   * graphs share one table of 33 x 1024 entries, rounded up to 65536
   * (3 MiB with its aging copy): the streams that read take the room */
  c.streams = dev->slot_count + 1;
  c.edges_per_stream = 1024;
  /* 512 KiB of a read graphed: the merge's worst case (49152 entries, the
   * table three quarters full, of 63 edges each) stays under
   * FTL_PROFILE_MAX_EXPANDED */
  c.max_units_per_read = 64;
  int r = ftl_profile_create (&c, &dev->profile, &fe);
  if (r < 0)
    {
      snprintf (why, whylen, "access profiler: %s", fe.msg);
      return r;
    }
  ftl_profile_set_enabled (dev->profile, !dev->opts.access_profile_off);
  return 0;
}

void
device_profile_close (ossd_device_t *dev)
{
  ftl_profile_destroy (dev->profile);
  dev->profile = NULL;
}

void
device_profile_read (ossd_device_t *dev, uint32_t stream, uint64_t pid,
                     uint64_t oid, uint64_t off, uint64_t len)
{
  if (dev->profile)
    ftl_profile_record (dev->profile, stream, pid, oid, off, len,
                        device_wall_ns ());
}

struct show_buf
{
  struct ftl_profile_read *rd;
  struct ftl_profile_edge *ed;
  Ossd__ProfileRead *prd, **pprd;
  Ossd__ProfileEdge *ped, **pped;
  Ossd__ProfileVertex *pv;
  Ossd__ProfileResult__CountersEntry ce[64], *pce[64];
};

static void
counter (struct show_buf *b, size_t *n, const char *k, uint64_t v)
{
  ossd__profile_result__counters_entry__init (&b->ce[*n]);
  b->ce[*n].key = (char *) k;
  b->ce[*n].value = v;
  b->pce[*n] = &b->ce[*n];
  (*n)++;
}

static void
show_buf_free (struct show_buf *b)
{
  free (b->rd);
  free (b->ed);
  free (b->prd);
  free (b->pprd);
  free (b->ped);
  free (b->pped);
  free (b->pv);
  free (b);
}

static void
show (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
      const Ossd__Profile *req)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__ProfileResult res = OSSD__PROFILE_RESULT__INIT;
  struct ftl_profile_counters c;
  struct ftl_profile_config cfg;
  ftl_error fe = { "" };
  uint32_t want_reads = req->max_reads ? req->max_reads : SHOW_READS_DEFAULT;
  uint32_t want_edges = req->max_edges ? req->max_edges : SHOW_EDGES_DEFAULT;
  if (want_reads > SHOW_MAX)
    want_reads = SHOW_MAX;
  if (want_edges > SHOW_MAX)
    want_edges = SHOW_MAX;
  struct show_buf *b = calloc (1, sizeof *b);
  if (b)
    {
      b->rd = calloc (want_reads, sizeof *b->rd);
      b->ed = calloc (want_edges, sizeof *b->ed);
      b->prd = calloc (want_reads, sizeof *b->prd);
      b->pprd = calloc (want_reads, sizeof *b->pprd);
      b->ped = calloc (want_edges, sizeof *b->ped);
      b->pped = calloc (want_edges, sizeof *b->pped);
      b->pv = calloc (2 * (size_t) want_edges, sizeof *b->pv);
    }
  if (!b || !b->rd || !b->ed || !b->prd || !b->pprd || !b->ped || !b->pped || !b->pv)
    {
      if (b)
        show_buf_free (b);
      device_slot_respond_error (s, seq, OSSD__STATUS__ERR_IO,
                                 "PROFILE SHOW: out of memory");
      return;
    }
  size_t ne = 0, total = 0;
  int e = ftl_profile_edges (dev->profile, b->ed, want_edges, &ne, &total, &fe);
  bool too_many = e == -E2BIG;
  if (too_many)
    {
      /* the rest of the profile is still worth showing */
      device_log (dev, "PROFILE SHOW: %s", fe.msg);
      ne = total = 0;
      e = 0;
    }
  if (e < 0)
    {
      show_buf_free (b);
      device_slot_respond_error (s, seq, device_status_from_errno (e), fe.msg);
      return;
    }
  size_t nr = ftl_profile_reads (dev->profile, b->rd, want_reads);
  ftl_profile_get_counters (dev->profile, &c);
  ftl_profile_get_config (dev->profile, &cfg);
  for (size_t i = 0; i < nr; i++)
    {
      Ossd__ProfileRead *p = &b->prd[i];
      ossd__profile_read__init (p);
      p->time_ns = b->rd[i].time_ns;
      p->pid = b->rd[i].pid;
      p->oid = b->rd[i].oid;
      p->offset = b->rd[i].offset;
      p->length = b->rd[i].length;
      p->stream = b->rd[i].stream;
      b->pprd[i] = p;
    }
  for (size_t i = 0; i < ne; i++)
    {
      Ossd__ProfileEdge *p = &b->ped[i];
      Ossd__ProfileVertex *f = &b->pv[2 * i], *t = &b->pv[2 * i + 1];
      ossd__profile_edge__init (p);
      ossd__profile_vertex__init (f);
      ossd__profile_vertex__init (t);
      f->pid = b->ed[i].from.pid;
      f->oid = b->ed[i].from.oid;
      f->unit = b->ed[i].from.unit;
      t->pid = b->ed[i].to.pid;
      t->oid = b->ed[i].to.oid;
      t->unit = b->ed[i].to.unit;
      p->from = f;
      p->to = t;
      p->weight = b->ed[i].weight;
      b->pped[i] = p;
    }
  size_t nc = 0;
  counter (b, &nc, "reads", c.reads);
  counter (b, &nc, "read_bytes", c.read_bytes);
  counter (b, &nc, "units", c.units);
  counter (b, &nc, "transitions", c.transitions);
  counter (b, &nc, "intra_transitions", c.intra_transitions);
  counter (b, &nc, "cross_object_transitions", c.cross_object_transitions);
  counter (b, &nc, "units_not_graphed", c.units_not_graphed);
  counter (b, &nc, "edges", c.edges);
  counter (b, &nc, "agings", c.agings);
  counter (b, &nc, "edges_aged_out", c.edges_aged_out);
  counter (b, &nc, "objects", c.objects);
  counter (b, &nc, "objects_dropped", c.objects_dropped);
  counter (b, &nc, "ring_overwritten", c.ring_overwritten);
  counter (b, &nc, "memory_bytes", c.memory_bytes);
  counter (b, &nc, "streams", cfg.streams);
  counter (b, &nc, "ring_records", cfg.ring_records);
  counter (b, &nc, "edges_too_many_to_merge", too_many);
  struct device_relocate_counters rc;
  device_relocate_counters (dev, &rc);
  counter (b, &nc, "relocation_jobs_queued", rc.jobs_queued);
  counter (b, &nc, "relocation_jobs_pending", rc.jobs_pending);
  counter (b, &nc, "relocation_jobs_done", rc.jobs_done);
  counter (b, &nc, "relocation_jobs_failed", rc.jobs_failed);
  counter (b, &nc, "relocation_units_queued", rc.units_queued);
  counter (b, &nc, "relocation_units_done", rc.units_done);
  counter (b, &nc, "relocation_waits_for_space", rc.waits_for_space);
  nc = auto_counters (dev, b->ce, b->pce, nc, true);
  res.enabled = ftl_profile_enabled (dev->profile);
  res.unit_bytes = cfg.unit_bytes;
  res.n_counters = nc;
  res.counters = b->pce;
  res.n_reads = nr;
  res.reads = b->pprd;
  res.n_edges = ne;
  res.edges = b->pped;
  res.edges_total = total;
  r.body_case = OSSD__RESPONSE__BODY_PROFILE;
  r.profile = &res;
  device_slot_respond (s, seq, &r, false);
  show_buf_free (b);
}

/* The policy's settings and counters (and, with persist, those of the
 * profile's saving), appended to ce / pce from n. */
static size_t
auto_counters (ossd_device_t *dev, Ossd__ProfileResult__CountersEntry *ce,
               Ossd__ProfileResult__CountersEntry **pce, size_t n, bool persist)
{
  struct device_autoplan_counters a;
  device_autoplan_counters (dev, &a);
  const struct { const char *k; uint64_t v; } kv[] = {
    { "auto_enabled", a.enabled },
    { "auto_idle_ms", a.idle_ms },
    { "auto_min_gain_pct", a.min_gain_pct },
    { "auto_evaluations", a.evaluations },
    { "auto_plans_considered", a.plans_considered },
    { "auto_plans_applied", a.plans_applied },
    { "auto_units_queued", a.units_queued },
    { "auto_skipped_already_applied", a.skipped_already_applied },
    { "auto_skipped_layout_matches", a.skipped_layout_matches },
    { "auto_skipped_below_threshold", a.skipped_below_threshold },
    { "auto_errors", a.errors },
    { "auto_last_gain_permille", a.last_gain_permille },
  };
  struct device_persist_counters p;
  device_persist_counters (dev, &p);
  const struct { const char *k; uint64_t v; } pkv[] = {
    { "persist_active", p.active },
    { "persist_saves", p.saves },
    { "persist_save_errors", p.save_errors },
    { "persist_last_bytes", p.last_bytes },
    { "persist_edges_saved", p.edges_saved },
    { "persist_edges_not_saved", p.edges_not_saved },
    { "persist_jobs_saved", p.jobs_saved },
    { "persist_jobs_not_saved", p.jobs_not_saved },
    { "persist_restored_edges", p.restored_edges },
    { "persist_restored_plans", p.restored_plans },
    { "persist_restored_jobs", p.restored_jobs },
    { "persist_dropped_jobs", p.dropped_jobs },
    { "persist_lost", p.lost },
    { "persist_newest_lost", p.newest_lost },
  };
  for (size_t i = 0; i < sizeof pkv / sizeof pkv[0] && persist; i++)
    {
      ossd__profile_result__counters_entry__init (&ce[n]);
      ce[n].key = (char *) pkv[i].k;
      ce[n].value = pkv[i].v;
      pce[n] = &ce[n];
      n++;
    }
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
    {
      ossd__profile_result__counters_entry__init (&ce[n]);
      ce[n].key = (char *) kv[i].k;
      ce[n].value = kv[i].v;
      pce[n] = &ce[n];
      n++;
    }
  return n;
}

/* The answer of APPLY and AUTO: the given counters. */
static void
respond_counters (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                  Ossd__ProfileResult__CountersEntry *ce, size_t n)
{
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__ProfileResult res = OSSD__PROFILE_RESULT__INIT;
  Ossd__ProfileResult__CountersEntry *pce[32];
  struct ftl_profile_config cfg;
  ftl_profile_get_config (dev->profile, &cfg);
  for (size_t i = 0; i < n; i++)
    pce[i] = &ce[i];
  res.enabled = ftl_profile_enabled (dev->profile);
  res.unit_bytes = cfg.unit_bytes;
  res.n_counters = n;
  res.counters = pce;
  r.body_case = OSSD__RESPONSE__BODY_PROFILE;
  r.profile = &res;
  device_slot_respond (s, seq, &r, false);
}

/* APPLY: a plan per object of the merged graph, queued for relocation
 * unless it was queued before or cannot improve the layout. */
static void
apply (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
       const Ossd__Profile *req)
{
  enum ftl_plan_kind kind = FTL_PLAN_CHAIN;
  char why[300], msg[280];
  if (req->planner && *req->planner && ftl_plan_kind_parse (req->planner, &kind) < 0)
    {
      snprintf (why, sizeof why, "PROFILE APPLY: unknown planner '%s' (sofs, chain)",
                req->planner);
      device_slot_respond_error (s, seq, OSSD__STATUS__ERR_INVALID, why);
      return;
    }
  struct device_apply_result res;
  int e = device_autoplan_apply (dev, kind, 0, &res, msg, sizeof msg);
  if (e < 0)
    {
      snprintf (why, sizeof why, "PROFILE APPLY: %s", msg);
      device_slot_respond_error (s, seq, device_status_from_errno (e), why);
      return;
    }
  if (res.applied)
    device_persist_save (dev, "PROFILE APPLY");   /* a crash resumes them */
  device_log (dev, "profile: %s plans of %llu objects (%llu units) queued for "
              "relocation, %llu already applied, %llu laid out as planned",
              ftl_plan_kind_name (kind), (unsigned long long) res.applied,
              (unsigned long long) res.units_queued,
              (unsigned long long) res.skipped_already_applied,
              (unsigned long long) res.skipped_layout_matches);
  Ossd__ProfileResult__CountersEntry ce[5];
  const struct { const char *k; uint64_t v; } kv[] = {
    { "objects_planned", res.applied },
    { "units_queued", res.units_queued },
    { "objects_considered", res.considered },
    { "objects_skipped_already_applied", res.skipped_already_applied },
    { "objects_skipped_layout_matches", res.skipped_layout_matches },
  };
  for (size_t i = 0; i < 5; i++)
    {
      ossd__profile_result__counters_entry__init (&ce[i]);
      ce[i].key = (char *) kv[i].k;
      ce[i].value = kv[i].v;
    }
  respond_counters (dev, s, seq, ce, 5);
}

/* AUTO: the automatic policy on or off, its settings; answers with its
 * counters. */
static void
auto_policy (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
             const Ossd__Profile *req)
{
  char why[200], msg[160];
  int e = device_autoplan_configure (dev, req->auto_on, req->auto_idle_ms,
                                     req->auto_min_gain_pct, msg, sizeof msg);
  if (e < 0)
    {
      snprintf (why, sizeof why, "PROFILE AUTO: %s", msg);
      device_slot_respond_error (s, seq, device_status_from_errno (e), why);
      return;
    }
  Ossd__ProfileResult__CountersEntry ce[16], *pce[16];
  size_t n = auto_counters (dev, ce, pce, 0, false);
  device_log (dev, "automatic relocation %s", req->auto_on ? "on" : "off");
  respond_counters (dev, s, seq, ce, n);
}

void
device_profile_command (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
                        const Ossd__Profile *req)
{
  Ossd__Profile none = OSSD__PROFILE__INIT;
  if (!req)
    req = &none;
  switch (req->action)
    {
    case OSSD__PROFILE_ACTION__PROFILE_SHOW:
      return show (dev, s, seq, req);
    case OSSD__PROFILE_ACTION__PROFILE_RESET:
      ftl_profile_reset (dev->profile);
      break;
    case OSSD__PROFILE_ACTION__PROFILE_ENABLE:
      ftl_profile_set_enabled (dev->profile, true);
      break;
    case OSSD__PROFILE_ACTION__PROFILE_DISABLE:
      ftl_profile_set_enabled (dev->profile, false);
      break;
    case OSSD__PROFILE_ACTION__PROFILE_APPLY:
      return apply (dev, s, seq, req);
    case OSSD__PROFILE_ACTION__PROFILE_AUTO:
      return auto_policy (dev, s, seq, req);
    default:
      {
        char why[96];
        snprintf (why, sizeof why, "PROFILE: unknown action %d (show 0, "
                  "reset 1, enable 2, disable 3, apply 4, auto 5)", (int) req->action);
        device_slot_respond_error (s, seq, OSSD__STATUS__ERR_INVALID, why);
        return;
      }
    }
  /* the other actions answer with the state they leave, no reads, edges */
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__ProfileResult res = OSSD__PROFILE_RESULT__INIT;
  struct ftl_profile_config cfg;
  ftl_profile_get_config (dev->profile, &cfg);
  res.enabled = ftl_profile_enabled (dev->profile);
  res.unit_bytes = cfg.unit_bytes;
  r.body_case = OSSD__RESPONSE__BODY_PROFILE;
  r.profile = &res;
  device_slot_respond (s, seq, &r, false);
}
