/* ftl_profile_merge.c - ftl_profile_edges (ftl_profile.h): the streams'
 * graphs merged, runs and sequential stretches expanded into their edges,
 * equal edges summed, heaviest first. */
#include "ftl_internal.h"
#include "ftl_profile_internal.h"

static int
edge_key_cmp (const void *a, const void *b)
{
  const struct flat_edge *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return 0;
}

struct merged
{
  uint64_t from, to, weight, intra;
};

static int
merged_cmp (const void *a, const void *b)
{
  const struct merged *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

static struct ftl_profile_vertex
vertex_of (const struct ftl_profile *p, uint64_t key)
{
  const struct obj_entry *o = &p->obj_by_index[key >> UNIT_BITS];
  return (struct ftl_profile_vertex) { o->pid, o->oid, key & UNIT_MASK };
}

int
ftl_profile_edges (ftl_profile_t *p, struct ftl_profile_edge *out, size_t cap,
                   size_t *n, size_t *total, ftl_error *err)
{
  *n = 0;
  if (total)
    *total = 0;
  pthread_mutex_lock (&p->lock);
  for (uint32_t s = 0; s < p->cfg.streams; s++)
    profile_seq_flush (p, s, &p->g[s]);
  /* runs and sequential stretches expand into their edges */
  size_t all = 0;
  for (uint32_t i = 0; i < p->tsize; i++)
    if (p->table[i].weight)
      {
        uint64_t to = p->table[i].to;
        all += (to & RUN) ? (to & ~RUN) - 1 : (to & SEQ) ? (uint32_t) to : 1;
      }
  if (all > FTL_PROFILE_MAX_EXPANDED)
    {
      pthread_mutex_unlock (&p->lock);
      return ftl_fail (err, -E2BIG, "the profile's runs expand into %zu edges, "
                       "more than the %u a merge may take: reset it or record "
                       "fewer units per read", all, FTL_PROFILE_MAX_EXPANDED);
    }
  struct flat_edge *e = malloc ((all ? all : 1) * sizeof *e);
  struct merged *m = malloc ((all ? all : 1) * sizeof *m);
  if (!e || !m)
    {
      pthread_mutex_unlock (&p->lock);
      free (e);
      free (m);
      return ftl_fail (err, -ENOMEM, "out of memory merging %zu profile edges",
                       all);
    }
  size_t k = 0;
  for (uint32_t i = 0; i < p->tsize; i++)
    {
      const struct edge_slot *x = &p->table[i];
      if (!x->weight)
        continue;
      if (x->to & SEQ)
        {
          uint64_t stride = (x->to & ~SEQ) >> 32, count = (uint32_t) x->to;
          for (uint64_t i = 0; i < count; i++)
            e[k++] = (struct flat_edge) { x->from + i * stride - 1,
                                          x->from + i * stride, x->weight, 0 };
          continue;
        }
      if (!(x->to & RUN))
        {
          e[k++] = (struct flat_edge) { x->from, x->to, x->weight, 0 };
          continue;
        }
      for (uint64_t u = 0; u + 1 < (x->to & ~RUN); u++)
        e[k++] = (struct flat_edge) { x->from + u, x->from + u + 1, x->weight,
                                      x->weight };
    }
  qsort (e, k, sizeof *e, edge_key_cmp);
  size_t nm = 0;
  for (size_t i = 0; i < k; i++)
    {
      if (nm && m[nm - 1].from == e[i].from && m[nm - 1].to == e[i].to)
        {
          m[nm - 1].weight += e[i].weight;
          m[nm - 1].intra += e[i].intra;
        }
      else
        m[nm++] = (struct merged) { e[i].from, e[i].to, e[i].weight, e[i].intra };
    }
  qsort (m, nm, sizeof *m, merged_cmp);
  size_t c = out ? (nm < cap ? nm : cap) : 0;
  for (size_t i = 0; i < c; i++)
    out[i] = (struct ftl_profile_edge) { vertex_of (p, m[i].from),
                                         vertex_of (p, m[i].to), m[i].weight,
                                         m[i].intra };
  pthread_mutex_unlock (&p->lock);
  free (e);
  free (m);
  *n = c;
  if (total)
    *total = nm;
  return 0;
}
