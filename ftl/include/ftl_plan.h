/* ftl_plan.h - layout planning from an access graph (issue 16,
 * docs/sofs.md): a new physical order for the units of one object.
 *
 * Input: the directed, weighted transition graph of one object's units
 * (from the profiler, ftl_profile.h: edges u -> v, "v was read right after
 * u", weight = how often).  Output: the object's profiled units in the
 * order to lay them out physically: writing them in this order through the
 * FTL packs consecutive units into one NAND page (units_per_page of them,
 * 2 for 8 KiB units in 16 KiB pages) and stripes consecutive pages over the
 * dies (the FTL's write streams do that), so units read together cost one
 * NAND read and a sequence reads from all dies at once.
 *
 * Planners
 * - FTL_PLAN_SOFS: the greedy placement of references/003: place the most
 *   connected vertex (largest sum of incident weights) as the "blob"; then
 *   repeatedly take the heaviest edge between the blob and an unplaced
 *   vertex: an edge into the blob puts that vertex before the blob, an edge
 *   out of it after; the vertex's edges become the blob's (edges from
 *   several blob members to one vertex add up: the blob is contracted).
 *   When no edge leaves the blob, start a new one with the most connected
 *   vertex left; blobs follow one another.
 * - FTL_PLAN_CHAIN: ours.  Chains first (heaviest edge first, u -> v joins
 *   two chains only where u ends one and v starts another, so a vertex
 *   keeps its heaviest successor and predecessor next to it, which the
 *   blob's two open ends cannot promise), then chains in order of weight.
 *   A chain is cut into segments where an edge was never seen inside a
 *   read (intra 0: a jump from one read to the next); a segment of two or
 *   more units that would otherwise straddle one NAND page more than it
 *   needs starts on a page boundary (FTL_PLAN_GAP, or a single unit, fills
 *   the rest of the page before it), so the units one read takes together
 *   lie in as few NAND pages as they can, and those pages, written one
 *   after the other, go to consecutive dies.
 *
 * The caller fills a gap with a unit that is not in the plan (a cold unit
 * of the object) or with padding.  Ties are broken by the smaller unit
 * number, so plans are deterministic.  Functions return 0 or a negative
 * errno and fill err.
 */
#ifndef FTL_PLAN_H
#define FTL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ossd_ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FTL_PLAN_GAP UINT64_MAX

enum ftl_plan_kind
{
  FTL_PLAN_SOFS = 0,
  FTL_PLAN_CHAIN = 1,
};

struct ftl_plan_edge
{
  uint64_t from, to;          /* unit numbers within the object */
  uint64_t weight;
  uint64_t intra;             /* of weight, seen inside one read (the
                                 profiler's intra_weight; 0 = unknown) */
};

struct ftl_plan
{
  uint64_t *order;            /* units (or FTL_PLAN_GAP) in physical order */
  size_t n;                   /* entries of order, gaps included */
  size_t units;               /* distinct units placed */
  size_t gaps;
  size_t blobs;               /* SOFS: blobs; CHAIN: chains */
  uint64_t adjacent_weight;   /* sum of weights of edges u -> v with v
                                 placed right after u */
  uint64_t same_page_weight;  /* of edges whose ends share a NAND page */
  uint64_t intra_same_page_weight;   /* of intra weights, the same */
  uint64_t intra_weight;      /* of all edges */
  uint64_t total_weight;      /* of all edges (self-loops dropped) */
};

/* Plan `kind` for the graph (edges may repeat: they add up; self-loops are
 * ignored).  units_per_page >= 1 (used by the page statistics and by
 * FTL_PLAN_CHAIN's alignment).  On success *out owns order (free with
 * ftl_plan_free). */
int ftl_plan_build (enum ftl_plan_kind kind, const struct ftl_plan_edge *edges,
                    size_t nedges, uint32_t units_per_page,
                    struct ftl_plan *out, ftl_error *err);
void ftl_plan_free (struct ftl_plan *p);

const char *ftl_plan_kind_name (enum ftl_plan_kind k);
/* "sofs" or "chain"; -EINVAL otherwise. */
int ftl_plan_kind_parse (const char *name, enum ftl_plan_kind *out);

#ifdef __cplusplus
}
#endif
#endif /* FTL_PLAN_H */
