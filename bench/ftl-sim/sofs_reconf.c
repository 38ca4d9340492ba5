/* sofs_reconf.c - the SOFS experiment's planning and reconfiguration
 * (sofs.h): the merged profile split into one graph per object, a plan per
 * object (ftl_plan_build) applied with ftl_relocate, the drive's own
 * relocation through GC's copy path, gaps filled with the object's cold
 * units. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_plan.h"
#include "ftl_profile.h"
#include "sofs.h"

int
sofs_graph_build (ftl_profile_t *prof, const struct sofs_trace *t,
                     struct sofs_graph *pg)
{
  ftl_error err = { { 0 } };
  size_t n = 0, total = 0;
  memset (pg, 0, sizeof *pg);
  int r = ftl_profile_edges (prof, NULL, 0, &n, &total, &err);
  struct ftl_profile_edge *e = r == 0 ? malloc ((total + 1) * sizeof *e) : NULL;
  pg->g = calloc (t->nobj, sizeof *pg->g);
  pg->nobj = t->nobj;
  if (r == 0 && (!e || !pg->g))
    r = -ENOMEM;
  if (r == 0)
    r = ftl_profile_edges (prof, e, total, &n, &total, &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: reading the profile: %s\n",
               err.msg[0] ? err.msg : strerror (-r));
      free (e);
      return r;
    }
  pg->edges_total = total;
  for (size_t i = 0; i < n; i++)
    {
      if (e[i].from.oid != e[i].to.oid || e[i].from.oid < SOFS_OID0
          || e[i].from.oid - SOFS_OID0 >= t->nobj)
        {
          pg->cross_object += e[i].weight;
          continue;
        }
      struct sofs_obj_graph *g = &pg->g[e[i].from.oid - SOFS_OID0];
      if (g->n == g->cap)
        {
          size_t cap = g->cap ? g->cap * 2 : 256;
          struct ftl_plan_edge *x = realloc (g->e, cap * sizeof *x);
          if (!x)
            {
              free (e);
              return -ENOMEM;
            }
          g->e = x;
          g->cap = cap;
        }
      g->e[g->n++] = (struct ftl_plan_edge) { e[i].from.unit, e[i].to.unit,
                                              e[i].weight, e[i].intra_weight };
      g->weight += e[i].weight;
    }
  free (e);
  return 0;
}

void
sofs_graph_free (struct sofs_graph *pg)
{
  for (uint32_t i = 0; pg->g && i < pg->nobj; i++)
    free (pg->g[i].e);
  free (pg->g);
  memset (pg, 0, sizeof *pg);
}

static int
flush (struct sim *s)
{
  ftl_error err = { { 0 } };
  int r = ftl_flush (s->ftl, &err);
  if (r < 0)
    fprintf (stderr, "ftl-sim: flush after reconfiguration: %s\n", err.msg);
  return r;
}

/* ftl_relocate the whole order, giving the drive idle time (background GC)
 * whenever it stops for free blocks */
static int
relocate_all (struct sim *s, uint64_t oid, const uint64_t *order, size_t n)
{
  ftl_error err = { { 0 } };
  size_t next = 0;
  int stalls = 0;
  while (next < n)
    {
      size_t was = next;
      int r = ftl_relocate (s->ftl, SIM_PID, oid, order, n, SOFS_UNIT, 0, &next, &err);
      if (r == -EAGAIN)
        {
          stalls = next == was ? stalls + 1 : 0;
          if (stalls > 4)
            {
              fprintf (stderr, "ftl-sim: relocation of object %llu makes no "
                       "progress: %s\n", (unsigned long long) oid, err.msg);
              return r;
            }
          r = ftl_idle (s->ftl, SOFS_SETTLE_NS, &err);
        }
      if (r < 0)
        {
          fprintf (stderr, "ftl-sim: relocation of object %llu: %s\n",
                   (unsigned long long) oid, err.msg);
          return r;
        }
    }
  return 0;
}

/* Apply `kind`'s plan of every profiled object with ftl_relocate (the
 * drive's own relocation: GC's copy path): units in plan order, gaps
 * filled with the object's units not in the plan (cold ones) or, when
 * none is left, padded; each object starts on a page. */
int
sofs_reconfigure (struct sim *s, const struct sofs_trace *t,
             const struct sofs_graph *pg, enum ftl_plan_kind kind,
             struct sofs_row *row)
{
  ftl_error err = { { 0 } };
  struct ftl_stats st0, st1;
  uint32_t upp = s->info.page_size / SOFS_UNIT;
  int r = sofs_settle (s);
  if (r == 0)
    {
      ftl_reset_stats (s->ftl);
      r = sim_stats (s, &st0);
    }
  /* objects by profile weight, heaviest first */
  uint32_t *order = malloc ((t->nobj + 1) * sizeof *order);
  if (!order)
    return -ENOMEM;
  uint32_t no = 0;
  for (uint32_t i = 0; i < t->nobj; i++)
    if (pg->g[i].n)
      order[no++] = i;
  for (uint32_t a = 1; a < no; a++)
    for (uint32_t b = a; b > 0 && pg->g[order[b]].weight > pg->g[order[b - 1]].weight; b--)
      {
        uint32_t x = order[b];
        order[b] = order[b - 1];
        order[b - 1] = x;
      }
  for (uint32_t k = 0; r == 0 && k < no; k++)
    {
      uint32_t obj = order[k];
      struct ftl_plan plan;
      r = ftl_plan_build (kind, pg->g[obj].e, pg->g[obj].n, upp, &plan, &err);
      if (r < 0)
        {
          fprintf (stderr, "ftl-sim: planning object %u: %s\n", obj, err.msg);
          break;
        }
      row->plan_total_w += plan.total_weight;
      row->plan_adjacent_w += plan.adjacent_weight;
      row->plan_same_page_w += plan.same_page_weight;
      uint64_t nunits = (t->obj_bytes[obj] + SOFS_UNIT - 1) / SOFS_UNIT;
      uint8_t *planned = calloc (nunits + 1, 1);
      if (!planned)
        {
          ftl_plan_free (&plan);
          r = -ENOMEM;
          break;
        }
      for (size_t i = 0; i < plan.n; i++)
        if (plan.order[i] != FTL_PLAN_GAP && plan.order[i] < nunits)
          planned[plan.order[i]] = 1;
      /* gaps: the object's units not in the plan (cold ones) fill them;
       * when none is left the page is padded (FTL_RELOCATE_GAP) */
      uint64_t *ord = malloc ((plan.n + 1) * sizeof *ord);
      if (!ord)
        {
          free (planned);
          ftl_plan_free (&plan);
          r = -ENOMEM;
          break;
        }
      uint64_t cold = 0;
      size_t m = 0;
      for (size_t i = 0; i < plan.n; i++)
        {
          uint64_t u = plan.order[i];
          if (u != FTL_PLAN_GAP)
            {
              if (u < nunits)
                {
                  ord[m++] = u;
                  row->moved_units++;
                }
              continue;
            }
          row->gaps++;
          while (cold < nunits && planned[cold])
            cold++;
          if (cold < nunits)
            {
              planned[cold] = 1;
              ord[m++] = cold;
              row->filler_units++;
            }
          else
            {
              ord[m++] = FTL_RELOCATE_GAP;
              row->pads++;
            }
        }
      r = relocate_all (s, sofs_oid (obj), ord, m);
      free (ord);
      free (planned);
      ftl_plan_free (&plan);
    }
  free (order);
  if (r == 0)
    r = flush (s);
  if (r == 0)
    r = sim_stats (s, &st1);
  if (r == 0)
    {
      row->reconfig_ns = st1.virtual_time_ns - st0.virtual_time_ns;
      row->reconfig_programs = st1.nand_programs;
      row->reconfig_gc_copies = st1.gc_valid_copies;
    }
  return r;
}
