/* device_profile.c - the drive's access profiler (docs/sofs.md): owns
 * dev->profile (ftl/include/ftl_profile.h), records host reads (READ
 * commands by their slot, block-volume reads as stream slot_count) and
 * answers PROFILE (show, reset, enable, disable, and apply: a plan per
 * object, ftl/include/ftl_plan.h, queued for device_relocate.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"
#include "ftl_plan.h"

#define SHOW_READS_DEFAULT 32u
#define SHOW_EDGES_DEFAULT 256u
#define SHOW_MAX 65536u

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
  Ossd__ProfileResult__CountersEntry ce[32], *pce[32];
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

static int
edge_obj_cmp (const void *a, const void *b)
{
  const struct ftl_profile_edge *x = a, *y = b;
  if (x->from.pid != y->from.pid)
    return x->from.pid < y->from.pid ? -1 : 1;
  if (x->from.oid != y->from.oid)
    return x->from.oid < y->from.oid ? -1 : 1;
  return 0;
}

/* APPLY: a plan per object of the merged graph, queued for relocation. */
static void
apply (ossd_device_t *dev, struct ossd_slot *s, uint64_t seq,
       const Ossd__Profile *req)
{
  enum ftl_plan_kind kind = FTL_PLAN_CHAIN;
  ftl_error fe = { "" };
  char why[300];
  if (req->planner && *req->planner && ftl_plan_kind_parse (req->planner, &kind) < 0)
    {
      snprintf (why, sizeof why, "PROFILE APPLY: unknown planner '%s' (sofs, chain)",
                req->planner);
      device_slot_respond_error (s, seq, OSSD__STATUS__ERR_INVALID, why);
      return;
    }
  struct ftl_profile_config cfg;
  struct ftl_device_info info;
  ftl_profile_get_config (dev->profile, &cfg);
  pthread_rwlock_rdlock (&dev->ftl_lock);
  int e = dev->ftl ? ftl_get_info (dev->ftl, &info, &fe) : -ENODEV;
  pthread_rwlock_unlock (&dev->ftl_lock);
  size_t n = 0, total = 0;
  if (e == 0)
    e = ftl_profile_edges (dev->profile, NULL, 0, &n, &total, &fe);
  struct ftl_profile_edge *pe = e == 0 ? calloc (total + 1, sizeof *pe) : NULL;
  struct ftl_plan_edge *ge = e == 0 ? calloc (total + 1, sizeof *ge) : NULL;
  if (e == 0 && (!pe || !ge))
    e = -ENOMEM;
  if (e == 0)
    e = ftl_profile_edges (dev->profile, pe, total, &n, &total, &fe);
  uint64_t objects = 0, units = 0;
  if (e == 0)
    {
      /* edges within one object, grouped by object */
      size_t m = 0;
      for (size_t i = 0; i < n; i++)
        if (pe[i].from.pid == pe[i].to.pid && pe[i].from.oid == pe[i].to.oid)
          pe[m++] = pe[i];
      qsort (pe, m, sizeof *pe, edge_obj_cmp);
      uint32_t upp = info.page_size / cfg.unit_bytes ? info.page_size / cfg.unit_bytes : 1;
      for (size_t a = 0, b; e == 0 && a < m; a = b)
        {
          for (b = a; b < m && edge_obj_cmp (&pe[a], &pe[b]) == 0; b++)
            ge[b - a] = (struct ftl_plan_edge) { pe[b].from.unit, pe[b].to.unit,
                                                 pe[b].weight, pe[b].intra_weight };
          struct ftl_plan plan;
          e = ftl_plan_build (kind, ge, b - a, upp, &plan, &fe);
          if (e < 0)
            break;
          /* FTL_PLAN_GAP is FTL_RELOCATE_GAP: the order goes as it is */
          e = device_relocate_queue (dev, pe[a].from.pid, pe[a].from.oid,
                                     plan.order, plan.n, cfg.unit_bytes);
          objects++;
          units += plan.units;
          plan.order = NULL;   /* the queue owns it now */
          ftl_plan_free (&plan);
        }
    }
  free (pe);
  free (ge);
  if (e < 0)
    {
      snprintf (why, sizeof why, "PROFILE APPLY: %s", fe.msg[0] ? fe.msg : strerror (-e));
      device_slot_respond_error (s, seq, device_status_from_errno (e), why);
      return;
    }
  device_log (dev, "profile: %s plans of %llu objects (%llu units) queued for "
              "relocation", ftl_plan_kind_name (kind), (unsigned long long) objects,
              (unsigned long long) units);
  Ossd__Response r = OSSD__RESPONSE__INIT;
  Ossd__ProfileResult res = OSSD__PROFILE_RESULT__INIT;
  Ossd__ProfileResult__CountersEntry ce[2], *pce[2] = { &ce[0], &ce[1] };
  ossd__profile_result__counters_entry__init (&ce[0]);
  ossd__profile_result__counters_entry__init (&ce[1]);
  ce[0].key = (char *) "objects_planned";
  ce[0].value = objects;
  ce[1].key = (char *) "units_queued";
  ce[1].value = units;
  res.enabled = ftl_profile_enabled (dev->profile);
  res.unit_bytes = cfg.unit_bytes;
  res.n_counters = 2;
  res.counters = pce;
  r.body_case = OSSD__RESPONSE__BODY_PROFILE;
  r.profile = &res;
  device_slot_respond (s, seq, &r, false);
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
    default:
      {
        char why[96];
        snprintf (why, sizeof why, "PROFILE: unknown action %d (show 0, "
                  "reset 1, enable 2, disable 3, apply 4)", (int) req->action);
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
