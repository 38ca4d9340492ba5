/* ftl_plan.c - ftl_plan_build (ftl_plan.h): builds the compact graph of
 * ftl_plan_internal.h, runs a planner, turns its vertex order into units
 * and measures it (weights of edges placed adjacent / on one NAND page). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_internal.h"
#include "ftl_plan_internal.h"

const char *
ftl_plan_kind_name (enum ftl_plan_kind k)
{
  switch (k)
    {
    case FTL_PLAN_SOFS: return "sofs";
    case FTL_PLAN_CHAIN: return "chain";
    }
  return "unknown";
}

int
ftl_plan_kind_parse (const char *name, enum ftl_plan_kind *out)
{
  if (strcmp (name, "sofs") == 0)
    *out = FTL_PLAN_SOFS;
  else if (strcmp (name, "chain") == 0)
    *out = FTL_PLAN_CHAIN;
  else
    return -EINVAL;
  return 0;
}

void
ftl_plan_free (struct ftl_plan *p)
{
  if (!p)
    return;
  free (p->order);
  memset (p, 0, sizeof *p);
}

static int
u64_cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

struct raw_edge
{
  uint32_t from, to;
  uint64_t w, intra;
};

static int
raw_cmp (const void *a, const void *b)
{
  const struct raw_edge *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

static uint32_t
vertex_of (const struct plan_graph *g, uint64_t unit)
{
  size_t lo = 0, hi = g->nv;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (g->unit[mid] < unit)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (uint32_t) lo;
}

static void
graph_free (struct plan_graph *g)
{
  free (g->unit);
  free (g->efrom);
  free (g->eto);
  free (g->ew);
  free (g->eintra);
  free (g->out_off);
  free (g->out_e);
  free (g->in_off);
  free (g->in_e);
  free (g->conn);
}

static int
graph_build (struct plan_graph *g, const struct ftl_plan_edge *edges, size_t ne)
{
  memset (g, 0, sizeof *g);
  if (ne > UINT32_MAX / 2)
    return -E2BIG;
  g->unit = malloc ((2 * ne + 1) * sizeof *g->unit);
  struct raw_edge *r = malloc ((ne + 1) * sizeof *r);
  if (!g->unit || !r)
    {
      free (r);
      return -ENOMEM;
    }
  size_t nu = 0;
  for (size_t i = 0; i < ne; i++)
    if (edges[i].from != edges[i].to && edges[i].weight)
      {
        g->unit[nu++] = edges[i].from;
        g->unit[nu++] = edges[i].to;
      }
  qsort (g->unit, nu, sizeof *g->unit, u64_cmp);
  size_t nv = 0;
  for (size_t i = 0; i < nu; i++)
    if (nv == 0 || g->unit[nv - 1] != g->unit[i])
      g->unit[nv++] = g->unit[i];
  g->nv = (uint32_t) nv;
  size_t k = 0;
  for (size_t i = 0; i < ne; i++)
    if (edges[i].from != edges[i].to && edges[i].weight)
      r[k++] = (struct raw_edge) { vertex_of (g, edges[i].from),
                                   vertex_of (g, edges[i].to), edges[i].weight,
                                   edges[i].intra < edges[i].weight
                                   ? edges[i].intra : edges[i].weight };
  qsort (r, k, sizeof *r, raw_cmp);
  size_t m = 0;
  for (size_t i = 0; i < k; i++)
    if (m && r[m - 1].from == r[i].from && r[m - 1].to == r[i].to)
      {
        r[m - 1].w += r[i].w;
        r[m - 1].intra += r[i].intra;
      }
    else
      r[m++] = r[i];
  g->ne = (uint32_t) m;
  g->efrom = malloc ((m + 1) * sizeof *g->efrom);
  g->eto = malloc ((m + 1) * sizeof *g->eto);
  g->ew = malloc ((m + 1) * sizeof *g->ew);
  g->eintra = malloc ((m + 1) * sizeof *g->eintra);
  g->out_off = calloc (nv + 1, sizeof *g->out_off);
  g->in_off = calloc (nv + 1, sizeof *g->in_off);
  g->out_e = malloc ((m + 1) * sizeof *g->out_e);
  g->in_e = malloc ((m + 1) * sizeof *g->in_e);
  g->conn = calloc (nv + 1, sizeof *g->conn);
  if (!g->efrom || !g->eto || !g->ew || !g->eintra || !g->out_off || !g->in_off || !g->out_e
      || !g->in_e || !g->conn)
    {
      free (r);
      return -ENOMEM;
    }
  for (size_t i = 0; i < m; i++)
    {
      g->efrom[i] = r[i].from;
      g->eto[i] = r[i].to;
      g->ew[i] = r[i].w;
      g->eintra[i] = r[i].intra;
      g->out_off[r[i].from + 1]++;
      g->in_off[r[i].to + 1]++;
      g->conn[r[i].from] += r[i].w;
      g->conn[r[i].to] += r[i].w;
    }
  free (r);
  for (size_t v = 0; v < nv; v++)
    {
      g->out_off[v + 1] += g->out_off[v];
      g->in_off[v + 1] += g->in_off[v];
    }
  uint32_t *fo = malloc ((nv + 1) * sizeof *fo), *fi = malloc ((nv + 1) * sizeof *fi);
  if (!fo || !fi)
    {
      free (fo);
      free (fi);
      return -ENOMEM;
    }
  memcpy (fo, g->out_off, nv * sizeof *fo);
  memcpy (fi, g->in_off, nv * sizeof *fi);
  for (uint32_t e = 0; e < m; e++)
    {
      g->out_e[fo[g->efrom[e]]++] = e;
      g->in_e[fi[g->eto[e]]++] = e;
    }
  free (fo);
  free (fi);
  return 0;
}

int
ftl_plan_build (enum ftl_plan_kind kind, const struct ftl_plan_edge *edges,
                size_t nedges, uint32_t units_per_page, struct ftl_plan *out,
                ftl_error *err)
{
  memset (out, 0, sizeof *out);
  if (units_per_page == 0)
    return ftl_fail (err, -EINVAL, "plan: units_per_page must be at least 1");
  if (kind != FTL_PLAN_SOFS && kind != FTL_PLAN_CHAIN)
    return ftl_fail (err, -EINVAL, "plan: unknown planner %d", (int) kind);
  struct plan_graph g;
  int r = graph_build (&g, edges, nedges);
  uint32_t *ord = NULL;
  uint64_t *pos = NULL;
  size_t n = 0, groups = 0;
  if (r == 0)
    {
      /* a chain of two or more units may be preceded by up to
       * units_per_page - 1 gaps */
      size_t cap = (size_t) g.nv * (units_per_page + 1) + 1;
      ord = malloc (cap * sizeof *ord);
      pos = malloc (((size_t) g.nv + 1) * sizeof *pos);
      out->order = malloc (cap * sizeof *out->order);
      if (!ord || !pos || !out->order)
        r = -ENOMEM;
    }
  if (r == 0)
    r = kind == FTL_PLAN_SOFS ? plan_sofs (&g, ord, &n, &groups)
      : plan_chain (&g, units_per_page, ord, &n, &groups);
  if (r == 0)
    {
      for (size_t i = 0; i < n; i++)
        {
          if (ord[i] == PV_GAP)
            {
              out->order[i] = FTL_PLAN_GAP;
              out->gaps++;
              continue;
            }
          out->order[i] = g.unit[ord[i]];
          pos[ord[i]] = i;
          out->units++;
        }
      out->n = n;
      out->blobs = groups;
      for (uint32_t e = 0; e < g.ne; e++)
        {
          uint64_t a = pos[g.efrom[e]], b = pos[g.eto[e]];
          out->total_weight += g.ew[e];
          out->intra_weight += g.eintra[e];
          if (b == a + 1)
            out->adjacent_weight += g.ew[e];
          if (a / units_per_page == b / units_per_page)
            {
              out->same_page_weight += g.ew[e];
              out->intra_same_page_weight += g.eintra[e];
            }
        }
      if (out->units != g.nv)
        r = -EFAULT;   /* a planner lost a vertex: a bug, said so below */
    }
  size_t placed = out->units;
  uint32_t nv = g.nv;
  free (ord);
  free (pos);
  graph_free (&g);
  if (r < 0)
    {
      ftl_plan_free (out);
      if (r == -EFAULT)
        return ftl_fail (err, r, "plan %s placed %zu of %u units (a planner bug)",
                         ftl_plan_kind_name (kind), placed, nv);
      return ftl_fail (err, r, "plan %s of %zu edges: %s",
                       ftl_plan_kind_name (kind), nedges, strerror (-r));
    }
  return 0;
}
