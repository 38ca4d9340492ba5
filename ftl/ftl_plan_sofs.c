/* ftl_plan_sofs.c - the greedy placement of the self-optimizing file
 * system (references/003, "Planning"), on the graph of ftl_plan_internal.h.
 * The blob is a deque; the edges between it and each unplaced vertex are
 * summed per direction (acc_in: vertex -> blob, acc_out: blob -> vertex)
 * and a lazy max-heap holds the candidates; an entry is stale when its
 * weight is no longer the vertex's sum or the vertex is placed. */
#include <stdbool.h>
#include <stdlib.h>
#include <errno.h>

#include "ftl_plan_internal.h"

enum { DIR_OUT = 0, DIR_IN = 1 };

struct cand
{
  uint64_t w;
  uint32_t v;
  uint32_t dir;
};

/* heaviest first; then the smaller vertex (unit); then after the blob */
static bool
cand_before (const struct cand *a, const struct cand *b)
{
  if (a->w != b->w)
    return a->w > b->w;
  if (a->v != b->v)
    return a->v < b->v;
  return a->dir < b->dir;
}

struct heap
{
  struct cand *c;
  size_t n, cap;
};

static int
heap_push (struct heap *h, struct cand x)
{
  if (h->n == h->cap)
    {
      size_t cap = h->cap ? h->cap * 2 : 64;
      struct cand *c = realloc (h->c, cap * sizeof *c);
      if (!c)
        return -ENOMEM;
      h->c = c;
      h->cap = cap;
    }
  size_t i = h->n++;
  while (i > 0)
    {
      size_t p = (i - 1) / 2;
      if (!cand_before (&x, &h->c[p]))
        break;
      h->c[i] = h->c[p];
      i = p;
    }
  h->c[i] = x;
  return 0;
}

static struct cand
heap_pop (struct heap *h)
{
  struct cand top = h->c[0], x = h->c[--h->n];
  size_t i = 0;
  for (;;)
    {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      const struct cand *best = &x;
      if (l < h->n && cand_before (&h->c[l], best))
        m = l, best = &h->c[l];
      if (r < h->n && cand_before (&h->c[r], best))
        m = r;
      if (m == i)
        break;
      h->c[i] = h->c[m];
      i = m;
    }
  if (h->n)
    h->c[i] = x;
  return top;
}

static int
vertex_cmp_conn (const void *a, const void *b, void *arg)
{
  const uint64_t *conn = arg;
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  if (conn[x] != conn[y])
    return conn[x] > conn[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

int
plan_sofs (const struct plan_graph *g, uint32_t *order, size_t *n,
           size_t *groups)
{
  uint32_t nv = g->nv;
  uint32_t *by_conn = malloc ((nv + 1) * sizeof *by_conn);
  uint32_t *deque = malloc ((2 * (size_t) nv + 1) * sizeof *deque);
  uint64_t *acc = calloc (2 * (size_t) nv + 1, sizeof *acc);
  bool *placed = calloc (nv + 1, sizeof *placed);
  struct heap h = { 0 };
  int r = 0;
  *n = 0;
  *groups = 0;
  if (!by_conn || !deque || !acc || !placed)
    {
      r = -ENOMEM;
      goto out;
    }
  for (uint32_t v = 0; v < nv; v++)
    by_conn[v] = v;
  qsort_r (by_conn, nv, sizeof *by_conn, vertex_cmp_conn, g->conn);
  size_t next_seed = 0;
  for (;;)
    {
      while (next_seed < nv && placed[by_conn[next_seed]])
        next_seed++;
      if (next_seed == nv)
        break;
      /* step 1: the most connected vertex left is a new blob */
      size_t head = nv, tail = nv;   /* deque[head..tail) */
      uint32_t v = by_conn[next_seed];
      deque[tail++] = v;
      (*groups)++;
      for (;;)
        {
          placed[v] = true;
          /* step 4: v's edges to unplaced vertices become the blob's */
          for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1] && r == 0; i++)
            {
              uint32_t e = g->out_e[i], x = g->eto[e];
              if (placed[x])
                continue;
              acc[2 * x + DIR_OUT] += g->ew[e];
              r = heap_push (&h, (struct cand) { acc[2 * x + DIR_OUT], x, DIR_OUT });
            }
          for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1] && r == 0; i++)
            {
              uint32_t e = g->in_e[i], x = g->efrom[e];
              if (placed[x])
                continue;
              acc[2 * x + DIR_IN] += g->ew[e];
              r = heap_push (&h, (struct cand) { acc[2 * x + DIR_IN], x, DIR_IN });
            }
          if (r < 0)
            goto out;
          /* step 2: the heaviest edge between the blob and the rest */
          struct cand c = { 0 };
          bool found = false;
          while (h.n)
            {
              c = heap_pop (&h);
              if (!placed[c.v] && acc[2 * c.v + c.dir] == c.w)
                {
                  found = true;
                  break;
                }
            }
          if (!found)
            break;   /* step 5: no edge left: the blob is done */
          /* step 3: into the blob -> before it; out of it -> after it */
          if (c.dir == DIR_IN)
            deque[--head] = c.v;
          else
            deque[tail++] = c.v;
          v = c.v;
        }
      for (size_t i = head; i < tail; i++)
        order[(*n)++] = deque[i];
    }
out:
  free (by_conn);
  free (deque);
  free (acc);
  free (placed);
  free (h.c);
  return r;
}
