/* ftl_plan_chain.c - our planner (ftl_plan.h, FTL_PLAN_CHAIN): chains of
 * heaviest transitions, laid out page-aligned.
 *
 * 1. Edges heaviest first (ties: smaller from, then to); u -> v links u to
 *    v when u ends its chain, v starts its own and they are different
 *    chains (union-find), so every vertex keeps the heaviest successor and
 *    predecessor that are still free, and chains never close into cycles.
 * 2. Chains by weight (the sum of their vertices' incident weights, ties by
 *    the first unit), heaviest first.
 * 3. Each chain is cut into segments where its edge was never seen inside
 *    one read (intra 0; when the graph carries no intra weights at all, a
 *    chain is one segment).  A segment of two or more units that would
 *    straddle one NAND page more than it needs starts on a page boundary:
 *    the units left over in the current page are filled with single-unit
 *    chains (a unit read alone loses nothing anywhere in a page), else with
 *    gaps.  Single-unit chains left over follow at the end. */
#include <stdbool.h>
#include <stdlib.h>
#include <errno.h>

#include "ftl_plan_internal.h"

static int
edge_cmp_weight (const void *a, const void *b, void *arg)
{
  const struct plan_graph *g = arg;
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  if (g->ew[x] != g->ew[y])
    return g->ew[x] > g->ew[y] ? -1 : 1;
  if (g->efrom[x] != g->efrom[y])
    return g->efrom[x] < g->efrom[y] ? -1 : 1;
  return g->eto[x] < g->eto[y] ? -1 : g->eto[x] > g->eto[y];
}

static uint32_t
dsu_find (uint32_t *parent, uint32_t v)
{
  while (parent[v] != v)
    {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
  return v;
}

struct chain
{
  uint32_t head, len;
  uint64_t weight;
};

static int
chain_cmp (const void *a, const void *b)
{
  const struct chain *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  return x->head < y->head ? -1 : x->head > y->head;
}

int
plan_chain (const struct plan_graph *g, uint32_t upp, uint32_t *order,
            size_t *n, size_t *groups)
{
  uint32_t nv = g->nv;
  uint32_t *eidx = malloc (((size_t) g->ne + 1) * sizeof *eidx);
  uint32_t *next = malloc ((nv + 1) * sizeof *next);
  uint32_t *prev = malloc ((nv + 1) * sizeof *prev);
  uint32_t *parent = malloc ((nv + 1) * sizeof *parent);
  uint32_t *link = malloc ((nv + 1) * sizeof *link);   /* edge to next[v] */
  struct chain *ch = malloc ((nv + 1) * sizeof *ch);
  int r = 0;
  *n = 0;
  *groups = 0;
  if (!eidx || !next || !prev || !parent || !ch || !link)
    {
      r = -ENOMEM;
      goto out;
    }
  for (uint32_t e = 0; e < g->ne; e++)
    eidx[e] = e;
  qsort_r (eidx, g->ne, sizeof *eidx, edge_cmp_weight, (void *) g);
  for (uint32_t v = 0; v < nv; v++)
    {
      next[v] = prev[v] = PV_NONE;
      parent[v] = v;
    }
  for (uint32_t i = 0; i < g->ne; i++)
    {
      uint32_t e = eidx[i], u = g->efrom[e], v = g->eto[e];
      if (next[u] != PV_NONE || prev[v] != PV_NONE)
        continue;
      uint32_t ru = dsu_find (parent, u), rv = dsu_find (parent, v);
      if (ru == rv)
        continue;
      next[u] = v;
      prev[v] = u;
      link[u] = e;
      parent[rv] = ru;
    }
  uint32_t nch = 0;
  for (uint32_t v = 0; v < nv; v++)
    if (prev[v] == PV_NONE)
      {
        struct chain c = { v, 0, 0 };
        for (uint32_t x = v; x != PV_NONE; x = next[x])
          {
            c.len++;
            c.weight += g->conn[x];
          }
        ch[nch++] = c;
      }
  qsort (ch, nch, sizeof *ch, chain_cmp);
  *groups = nch;
  bool know_intra = false;
  for (uint32_t e = 0; e < g->ne && !know_intra; e++)
    know_intra = g->eintra[e] > 0;
  /* singles fill the ends of pages; ch[] is heaviest first */
  uint32_t single = 0;
  size_t pos = 0;
  for (uint32_t i = 0; i < nch; i++)
    {
      if (ch[i].len < 2)
        continue;
      for (uint32_t x = ch[i].head; x != PV_NONE;)
        {
          /* the segment from x: while its edges were seen inside reads */
          uint32_t len = 1, end = x;
          while (next[end] != PV_NONE
                 && (!know_intra || g->eintra[link[end]] > 0))
            {
              end = next[end];
              len++;
            }
          size_t off = pos % upp;
          if (len >= 2 && off
              && (off + len + upp - 1) / upp > (len + upp - 1) / upp)
            while (pos % upp)
              {
                while (single < nch && ch[single].len != 1)
                  single++;
                if (single < nch)
                  {
                    order[pos++] = ch[single].head;
                    ch[single].len = 0;   /* placed */
                  }
                else
                  order[pos++] = PV_GAP;
              }
          for (uint32_t k = 0; k < len; k++, x = next[x])
            order[pos++] = x;
        }
    }
  for (uint32_t i = 0; i < nch; i++)
    if (ch[i].len == 1)
      order[pos++] = ch[i].head;
  *n = pos;
out:
  free (eidx);
  free (next);
  free (prev);
  free (parent);
  free (link);
  free (ch);
  return r;
}
