/* ftl_plan_internal.h - the compact graph the planners (ftl_plan_*.c)
 * share: vertices renumbered 0..nv-1 in unit order, parallel edges summed,
 * self-loops dropped, adjacency by source and by destination. */
#ifndef FTL_PLAN_INTERNAL_H
#define FTL_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ftl_plan.h"

#define PV_NONE UINT32_MAX
#define PV_GAP (UINT32_MAX - 1)   /* in a vertex order: a gap */

struct plan_graph
{
  uint32_t nv, ne;
  uint64_t *unit;             /* vertex -> unit, ascending */
  uint32_t *efrom, *eto;      /* edges sorted by (from, to) */
  uint64_t *ew;
  uint64_t *eintra;           /* of ew, seen inside one read */
  uint32_t *out_off, *out_e;  /* CSR: edges leaving v: out_e[out_off[v]..] */
  uint32_t *in_off, *in_e;    /* edges entering v */
  uint64_t *conn;             /* sum of the weights of v's edges */
};

/* Each fills order (room for nv * (units_per_page + 1) entries: vertices and PV_GAP) and sets
 * *n and *groups (blobs / chains); -ENOMEM on allocation failure. */
int plan_sofs (const struct plan_graph *g, uint32_t *order, size_t *n,
               size_t *groups);
int plan_chain (const struct plan_graph *g, uint32_t units_per_page,
                uint32_t *order, size_t *n, size_t *groups);

#endif
