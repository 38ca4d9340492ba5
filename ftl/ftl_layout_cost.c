/* ftl_layout_cost.c - ftl_layout_cost (ftl_autoplan.h): what an object's
 * transitions cost the read model where its units lie now and where a
 * plan would put them.  The planned positions simulate ftl_relocate
 * exactly (a fresh page at the start, each unit's mapped sectors appended
 * in plan order, a gap padding to the end of the page, holes and units
 * past the end taking no room), so after a plan is applied the two figures
 * agree and a second application is seen to gain nothing. */
#include "ftl_internal.h"
#include "ftl_autoplan.h"

uint64_t
ftl_layout_cost_milli (const struct ftl_layout_cost *c)
{
  return c->weight ? c->page_reads * 1000 / c->weight : 0;
}

struct unit_pos
{
  uint64_t unit;
  uint64_t first_sector;      /* in the simulated relocation stream */
};

static int
unit_pos_cmp (const void *a, const void *b)
{
  uint64_t x = ((const struct unit_pos *) a)->unit;
  uint64_t y = ((const struct unit_pos *) b)->unit;
  return x < y ? -1 : x > y;
}

/* Appends the NAND pages unit `u`'s mapped sectors lie in now. */
static size_t
pages_now (struct ftl *f, struct ftl_object *o, uint64_t u, uint32_t spu,
           uint64_t nsect, uint64_t *pages)
{
  size_t k = 0;
  if (u > UINT32_MAX / spu)
    return 0;
  for (uint64_t l = u * spu; l < u * spu + spu && l < nsect; l++)
    {
      ppa_t p = map_get (f, o, (uint32_t) l);
      if (p != PPA_NONE)
        pages[k++] = p / f->nand.geo.spp;
    }
  return k;
}

static uint64_t
mapped_sectors (struct ftl *f, struct ftl_object *o, uint64_t u, uint32_t spu,
                uint64_t nsect)
{
  uint64_t pages[64];
  return spu <= 64 ? pages_now (f, o, u, spu, nsect, pages) : 0;
}

static size_t
distinct (uint64_t *v, size_t n)
{
  size_t d = 0;
  for (size_t i = 0; i < n; i++)
    {
      size_t j = 0;
      while (j < d && v[j] != v[i])
        j++;
      if (j == d)
        v[d++] = v[i];
    }
  return d;
}

/* The simulated stream positions of the plan's units, sorted by unit. */
static int
plan_positions (struct ftl *f, struct ftl_object *o, const struct ftl_plan *plan,
                uint32_t spu, uint64_t nsect, struct unit_pos **out, size_t *nout)
{
  uint32_t spp = f->nand.geo.spp;
  struct unit_pos *pos = malloc ((plan->n + 1) * sizeof *pos);
  if (!pos)
    return -ENOMEM;
  uint64_t cursor = 0;
  size_t k = 0;
  for (size_t i = 0; i < plan->n; i++)
    {
      uint64_t u = plan->order[i];
      if (u == FTL_PLAN_GAP)
        {
          cursor = (cursor + spp - 1) / spp * spp;
          continue;
        }
      pos[k++] = (struct unit_pos) { u, cursor };
      cursor += mapped_sectors (f, o, u, spu, nsect);
    }
  qsort (pos, k, sizeof *pos, unit_pos_cmp);
  *out = pos;
  *nout = k;
  return 0;
}

static size_t
pages_planned (const struct unit_pos *pos, size_t npos, uint64_t u,
               uint64_t mapped, uint32_t spp, uint64_t *pages)
{
  size_t lo = 0, hi = npos;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (pos[mid].unit < u)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == npos || pos[lo].unit != u)
    return 0;   /* not in the plan: a planner bug, counted as free */
  for (uint64_t s = 0; s < mapped; s++)
    pages[s] = (pos[lo].first_sector + s) / spp;
  return (size_t) mapped;
}

int
ftl_layout_cost (ftl_t *f, uint64_t pid, uint64_t oid,
                 const struct ftl_plan_edge *edges, size_t n,
                 uint32_t unit_bytes, const struct ftl_plan *plan,
                 struct ftl_layout_cost *now, struct ftl_layout_cost *planned,
                 ftl_error *err)
{
  memset (now, 0, sizeof *now);
  if (planned)
    memset (planned, 0, sizeof *planned);
  uint32_t spu = unit_bytes / FTL_SECTOR;
  if (!unit_bytes || unit_bytes % FTL_SECTOR || spu > 64)
    return ftl_fail (err, -EINVAL, "layout cost: a unit of %u bytes (a "
                     "multiple of 4096 up to 256 KiB wanted)", unit_bytes);
  pthread_mutex_lock (&f->lock);
  struct ftl_object *o = ftl_index_lookup (f, pid, oid);
  if (!o)
    {
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, -ENOENT, "layout cost: object %llu:%llu does not "
                       "exist", (unsigned long long) pid,
                       (unsigned long long) oid);
    }
  uint64_t nsect = (o->size + FTL_SECTOR - 1) / FTL_SECTOR;
  struct unit_pos *pos = NULL;
  size_t npos = 0;
  if (plan && plan_positions (f, o, plan, spu, nsect, &pos, &npos) < 0)
    {
      pthread_mutex_unlock (&f->lock);
      return ftl_fail (err, -ENOMEM, "layout cost: out of memory");
    }
  uint64_t pg[128];
  for (size_t i = 0; i < n; i++)
    {
      const struct ftl_plan_edge *e = &edges[i];
      if (e->from == e->to || !e->weight)
        continue;   /* the planner ignores these too */
      size_t a = pages_now (f, o, e->from, spu, nsect, pg);
      size_t b = pages_now (f, o, e->to, spu, nsect, pg + a);
      if (a + b == 0)
        continue;
      now->weight += e->weight;
      now->page_reads += e->weight * distinct (pg, a + b);
      if (!plan)
        continue;
      a = pages_planned (pos, npos, e->from, a, f->nand.geo.spp, pg);
      b = pages_planned (pos, npos, e->to, b, f->nand.geo.spp, pg + a);
      planned->weight += e->weight;
      planned->page_reads += e->weight * distinct (pg, a + b);
    }
  pthread_mutex_unlock (&f->lock);
  free (pos);
  return 0;
}
