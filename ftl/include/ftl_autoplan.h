/* ftl_autoplan.h - deciding whether a planned layout is worth applying
 * (issue 16 item 2, docs/sofs.md "Deciding when to relocate").
 *
 * The cost model: for an object's profile graph (ftl_plan.h edges, unit
 * numbers within the object), the NAND pages a read of both ends of a
 * transition touches, multiplied by the transition's weight and summed
 * ("page reads"; divided by the summed weight: NAND page reads per
 * transition).  It is computed twice: for where the units lie now (the
 * FTL's mapping) and for where ftl_relocate would put them under a plan
 * (its stream starts a fresh page, writes the mapped sectors of the units
 * in plan order, a gap ends the page) -- so a plan equal to the object's
 * physical order costs exactly what the object costs now.
 *
 * A decision per object (ftl_autoplan_object): plan it, then
 * - SKIP_ALREADY_APPLIED: the ledger says this very plan (same order, by
 *   hash) was queued for this object before -- applying it again would move
 *   the data again for nothing;
 * - SKIP_LAYOUT_MATCHES: the plan cannot cut the modelled cost (its target
 *   order is the current physical order, or no better);
 * - SKIP_BELOW_THRESHOLD: it cuts it, by no more than min_gain_permille;
 * - APPLY: the caller relocates the object (ftl_relocate) in plan order and
 *   the ledger remembers the plan.
 *
 * The idle gate (ftl_autoplan_due) is pure: the caller passes its clock,
 * so tests drive it with virtual time.  Functions returning int return 0
 * or a negative errno and fill err.  No global state: the ledger and the
 * gate belong to the caller.
 */
#ifndef FTL_AUTOPLAN_H
#define FTL_AUTOPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftl_plan.h"
#include "ftl_profile.h"
#include "ossd_ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ftl_layout_cost
{
  uint64_t weight;            /* summed transition weights counted */
  uint64_t page_reads;        /* summed weight x NAND pages both ends touch */
};

/* Page reads per transition x 1000 (0 for no weight). */
uint64_t ftl_layout_cost_milli (const struct ftl_layout_cost *c);

/* The cost of pid:oid's transitions `edges` now (*now) and, if plan is
 * not NULL, under plan (*planned).  Edges whose two units hold no mapped
 * sector are left out of both. */
int ftl_layout_cost (ftl_t *f, uint64_t pid, uint64_t oid,
                     const struct ftl_plan_edge *edges, size_t n,
                     uint32_t unit_bytes, const struct ftl_plan *plan,
                     struct ftl_layout_cost *now,
                     struct ftl_layout_cost *planned, ftl_error *err);

/* Plans queued per object, by a hash of their order: what "already
 * applied" means.  Bounded; the oldest entry goes when it is full. */
#define FTL_AUTOPLAN_LEDGER_MAX 1024u
struct ftl_autoplan_applied
{
  uint64_t pid, oid, plan_hash;
};
struct ftl_autoplan_ledger
{
  struct ftl_autoplan_applied e[FTL_AUTOPLAN_LEDGER_MAX];
  uint32_t n, next;           /* entries used; where the next one goes when full */
};
void ftl_autoplan_ledger_clear (struct ftl_autoplan_ledger *l);
/* The hash of the plan last queued for pid:oid; false if none. */
bool ftl_autoplan_ledger_get (const struct ftl_autoplan_ledger *l, uint64_t pid,
                              uint64_t oid, uint64_t *plan_hash);
void ftl_autoplan_ledger_put (struct ftl_autoplan_ledger *l, uint64_t pid,
                              uint64_t oid, uint64_t plan_hash);
uint64_t ftl_plan_hash (const uint64_t *order, size_t n);

enum ftl_autoplan_verdict
{
  FTL_AUTOPLAN_APPLY = 0,
  FTL_AUTOPLAN_SKIP_ALREADY_APPLIED,
  FTL_AUTOPLAN_SKIP_LAYOUT_MATCHES,
  FTL_AUTOPLAN_SKIP_BELOW_THRESHOLD,
};
const char *ftl_autoplan_verdict_name (enum ftl_autoplan_verdict v);

struct ftl_autoplan_result
{
  uint64_t pid, oid;
  enum ftl_autoplan_verdict verdict;
  struct ftl_layout_cost now, planned;
  uint64_t gain_permille;     /* (now - planned) / now, 0 if no cut */
  struct ftl_plan plan;       /* the caller frees it (ftl_plan_free) */
};

/* Plan pid:oid's graph with `kind` and decide; the ledger is read, and on
 * APPLY written (the caller is expected to queue the relocation). */
int ftl_autoplan_object (ftl_t *f, enum ftl_plan_kind kind, uint64_t pid,
                         uint64_t oid, const struct ftl_plan_edge *edges,
                         size_t n, uint32_t unit_bytes,
                         uint32_t min_gain_permille,
                         struct ftl_autoplan_ledger *ledger,
                         struct ftl_autoplan_result *out, ftl_error *err);

/* Every object of the profile's merged graph (edges within one object),
 * in (pid, oid) order: ftl_autoplan_object, then `each` with the result
 * (which it may take plan.order from, setting it NULL); a negative return
 * of `each` stops the walk and is returned. */
typedef int (*ftl_autoplan_each_fn) (void *arg, struct ftl_autoplan_result *r);
int ftl_autoplan_profile (ftl_t *f, ftl_profile_t *profile,
                          enum ftl_plan_kind kind, uint32_t min_gain_permille,
                          struct ftl_autoplan_ledger *ledger,
                          ftl_autoplan_each_fn each, void *arg, ftl_error *err);

/* The idle gate of the automatic policy: evaluate when the host has been
 * quiet for idle_ms and the profile has new evidence (its transition
 * count moved) since the last evaluation. */
struct ftl_autoplan_gate
{
  uint64_t idle_ms;
  uint64_t evaluated_evidence;   /* transitions at the last evaluation */
  bool evaluated;                /* there was one */
};
bool ftl_autoplan_due (const struct ftl_autoplan_gate *g, uint64_t now_ms,
                       uint64_t last_host_io_ms, uint64_t evidence);
/* An evaluation was done with this much evidence. */
void ftl_autoplan_evaluated (struct ftl_autoplan_gate *g, uint64_t evidence);

#ifdef __cplusplus
}
#endif
#endif /* FTL_AUTOPLAN_H */
