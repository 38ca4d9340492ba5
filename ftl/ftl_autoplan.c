/* ftl_autoplan.c - the decision whether a planned layout is worth
 * applying (ftl_autoplan.h): the ledger of plans already queued, the
 * per-object verdict from the cost model (ftl_layout_cost.c), the walk
 * over a profile's objects, and the idle gate of the automatic policy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_internal.h"
#include "ftl_autoplan.h"

void
ftl_autoplan_ledger_clear (struct ftl_autoplan_ledger *l)
{
  l->n = l->next = 0;
}

bool
ftl_autoplan_ledger_get (const struct ftl_autoplan_ledger *l, uint64_t pid,
                         uint64_t oid, uint64_t *plan_hash)
{
  for (uint32_t i = 0; i < l->n; i++)
    if (l->e[i].pid == pid && l->e[i].oid == oid)
      {
        *plan_hash = l->e[i].plan_hash;
        return true;
      }
  return false;
}

void
ftl_autoplan_ledger_put (struct ftl_autoplan_ledger *l, uint64_t pid,
                         uint64_t oid, uint64_t plan_hash)
{
  for (uint32_t i = 0; i < l->n; i++)
    if (l->e[i].pid == pid && l->e[i].oid == oid)
      {
        l->e[i].plan_hash = plan_hash;
        return;
      }
  uint32_t at = l->n;
  if (l->n < FTL_AUTOPLAN_LEDGER_MAX)
    l->n++;
  else
    {
      /* full: overwrite round-robin; a forgotten object can at worst be
       * planned and moved once more */
      at = l->next;
      l->next = (l->next + 1) % FTL_AUTOPLAN_LEDGER_MAX;
    }
  l->e[at] = (struct ftl_autoplan_applied) { pid, oid, plan_hash };
}

uint64_t
ftl_plan_hash (const uint64_t *order, size_t n)
{
  /* FNV-1a over the entries, gaps included: equal hash = same layout */
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < 64; b += 8)
      {
        h ^= (order[i] >> b) & 0xff;
        h *= 0x100000001b3ull;
      }
  return h ^ n;
}

const char *
ftl_autoplan_verdict_name (enum ftl_autoplan_verdict v)
{
  switch (v)
    {
    case FTL_AUTOPLAN_APPLY: return "apply";
    case FTL_AUTOPLAN_SKIP_ALREADY_APPLIED: return "already_applied";
    case FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES: return "layout_matches";
    case FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD: return "below_threshold";
    }
  return "unknown";
}

int
ftl_autoplan_object (ftl_t *f, enum ftl_plan_kind kind, uint64_t pid,
                     uint64_t oid, const struct ftl_plan_edge *edges, size_t n,
                     uint32_t unit_bytes, uint32_t min_gain_permille,
                     struct ftl_autoplan_ledger *ledger,
                     struct ftl_autoplan_result *out, ftl_error *err)
{
  memset (out, 0, sizeof *out);
  out->pid = pid;
  out->oid = oid;
  struct ftl_device_info info;
  int r = ftl_get_info (f, &info, err);
  if (r < 0)
    return r;
  uint32_t upp = info.page_size / unit_bytes ? info.page_size / unit_bytes : 1;
  r = ftl_plan_build (kind, edges, n, upp, &out->plan, err);
  if (r < 0)
    return r;
  /* the cost first: it also finds an object that is gone (-ENOENT) */
  r = ftl_layout_cost (f, pid, oid, edges, n, unit_bytes, &out->plan, &out->now,
                       &out->planned, err);
  if (r < 0)
    {
      ftl_plan_free (&out->plan);
      return r;
    }
  uint64_t hash = ftl_plan_hash (out->plan.order, out->plan.n), had;
  if (ledger && ftl_autoplan_ledger_get (ledger, pid, oid, &had) && had == hash)
    {
      out->verdict = FTL_AUTOPLAN_SKIP_ALREADY_APPLIED;
      return 0;
    }
  /* both figures are over the same edges, so page reads compare directly */
  uint64_t before = out->now.page_reads, after = out->planned.page_reads;
  out->gain_permille = before > after ? (before - after) * 1000 / before : 0;
  if (after >= before)
    out->verdict = FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES;
  else if (out->gain_permille <= min_gain_permille)
    out->verdict = FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD;
  else
    {
      out->verdict = FTL_AUTOPLAN_APPLY;
      if (ledger)
        ftl_autoplan_ledger_put (ledger, pid, oid, hash);
    }
  return 0;
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

int
ftl_autoplan_profile (ftl_t *f, ftl_profile_t *profile, enum ftl_plan_kind kind,
                      uint32_t min_gain_permille,
                      struct ftl_autoplan_ledger *ledger,
                      ftl_autoplan_each_fn each, void *arg, ftl_error *err)
{
  struct ftl_profile_config cfg;
  ftl_profile_get_config (profile, &cfg);
  size_t n = 0, total = 0;
  int e = ftl_profile_edges (profile, NULL, 0, &n, &total, err);
  if (e < 0)
    return e;
  struct ftl_profile_edge *pe = calloc (total + 1, sizeof *pe);
  struct ftl_plan_edge *ge = calloc (total + 1, sizeof *ge);
  if (!pe || !ge)
    {
      free (pe);
      free (ge);
      return ftl_fail (err, -ENOMEM, "planning: out of memory for %zu edges",
                       total);
    }
  /* the graph may have grown between the two calls: take what fits */
  e = ftl_profile_edges (profile, pe, total, &n, &total, err);
  size_t m = 0;
  for (size_t i = 0; e == 0 && i < n; i++)
    if (pe[i].from.pid == pe[i].to.pid && pe[i].from.oid == pe[i].to.oid)
      pe[m++] = pe[i];
  qsort (pe, m, sizeof *pe, edge_obj_cmp);
  for (size_t a = 0, b; e == 0 && a < m; a = b)
    {
      for (b = a; b < m && edge_obj_cmp (&pe[a], &pe[b]) == 0; b++)
        ge[b - a] = (struct ftl_plan_edge) { pe[b].from.unit, pe[b].to.unit,
                                             pe[b].weight, pe[b].intra_weight };
      struct ftl_autoplan_result res;
      e = ftl_autoplan_object (f, kind, pe[a].from.pid, pe[a].from.oid, ge,
                               b - a, cfg.unit_bytes, min_gain_permille, ledger,
                               &res, err);
      if (e == -ENOENT)
        {
          e = 0;   /* profiled, then removed: nothing to lay out */
          continue;
        }
      if (e < 0)
        break;
      e = each (arg, &res);
      ftl_plan_free (&res.plan);
    }
  free (pe);
  free (ge);
  return e;
}

bool
ftl_autoplan_due (const struct ftl_autoplan_gate *g, uint64_t now_ms,
                  uint64_t last_host_io_ms, uint64_t evidence)
{
  if (now_ms < last_host_io_ms || now_ms - last_host_io_ms < g->idle_ms)
    return false;
  return !g->evaluated || evidence != g->evaluated_evidence;
}

void
ftl_autoplan_evaluated (struct ftl_autoplan_gate *g, uint64_t evidence)
{
  g->evaluated = true;
  g->evaluated_evidence = evidence;
}
