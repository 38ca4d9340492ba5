/* sofs.h - the self-optimizing layout experiment of ftl-sim (issue 16,
 * docs/sofs.md, references/003): a trace of host requests on objects is
 * laid out (its objects installed, then its writes applied), its reads
 * replayed back to back with the drive's profiler (ftl/include/ftl_profile.h)
 * recording them, a new layout planned per object (ftl/include/ftl_plan.h)
 * and applied by rewriting through the FTL's write path, and the reads
 * replayed again - against the fully sequential bound, where every read
 * has pages of its own laid out in replay order.
 *
 * sofs_trace.c   the trace container, the MSR loader
 * sofs_apps.c    synthetic application traces and the PostgreSQL case
 * sofs_run.c     layout, profiled replay, the runs in order, the bound
 * sofs_reconf.c  a graph per object, plans, ftl_relocate
 * sofs_report.c  CSV rows and JSON lines
 */
#ifndef FTL_SIM_SOFS_H
#define FTL_SIM_SOFS_H

#include <stdbool.h>
#include <stdint.h>

#include "ftl_plan.h"
#include "ftl_profile.h"
#include "sim.h"

#define SOFS_OID0 100ull       /* the trace's objects: SOFS_OID0 + index */
#define SOFS_BOUND_OID 99ull   /* the sequential bound's object */
#define SOFS_UNIT 8192ull      /* the profile's and the plans' unit: a heap page */
#define SOFS_SETTLE_NS 200000000ull   /* idle before a replay: 0.2 s virtual */

static inline uint64_t
sofs_oid (uint32_t obj)
{
  return SOFS_OID0 + obj;
}

struct sofs_req
{
  uint32_t obj;               /* index into the trace's objects */
  uint32_t stream;            /* who issued it (process, disk, slot) */
  uint64_t off, len;
  bool write;
  bool replay;                /* a read of the replayed sequence */
};

struct sofs_trace
{
  char name[32];
  uint32_t nobj;
  uint64_t *obj_bytes;        /* each object's size (installed whole) */
  /* the installation writes each object in install_chunk requests; with
   * install_interleave the objects are written round-robin, chunk by chunk
   * (several files installed at once) */
  uint64_t install_chunk;
  bool install_interleave;
  struct sofs_req *r;         /* history writes, then replayed reads */
  size_t n, cap;
};

int sofs_trace_init (struct sofs_trace *t, const char *name, uint32_t nobj);
void sofs_trace_free (struct sofs_trace *t);
int sofs_trace_add (struct sofs_trace *t, uint32_t obj, uint32_t stream,
                    uint64_t off, uint64_t len, bool write);
/* MSR CSV: one object per (host, disk) sized to what the trace touches
 * (whole MiB, offsets wrapped into `max_obj_bytes`); writes are history,
 * the first `max_reads` reads (0 = all) the replay. */
int sofs_trace_load_msr (struct sofs_trace *t, const char *path,
                         uint64_t max_obj_bytes, uint64_t max_reads);

/* sofs_apps.c: the synthetic cases; `scale` multiplies their sizes. */
int sofs_app_build (struct sofs_trace *t, const char *name, double scale,
                    uint64_t seed);
const char *sofs_app_names (void);

/* One layout's measurements (a CSV row). */
struct sofs_row
{
  const char *layout;
  uint64_t reads, read_bytes;
  uint64_t replay_ns, saturated_ns;
  uint64_t nand_reads;
  double nand_per_read;
  /* reconfiguration (planner rows) */
  uint64_t moved_units, gaps, pads, filler_units;
  uint64_t reconfig_ns, reconfig_programs, reconfig_gc_copies;
  uint64_t plan_total_w, plan_adjacent_w, plan_same_page_w;
};

/* The merged profile as one graph per trace object. */
struct sofs_obj_graph
{
  struct ftl_plan_edge *e;
  size_t n, cap;
  uint64_t weight;
};
struct sofs_graph
{
  struct sofs_obj_graph *g;   /* per trace object */
  uint32_t nobj;
  uint64_t edges_total, cross_object;
};

/* sofs_run.c: ftl_idle until the drive is quiet (before a replay) */
int sofs_settle (struct sim *s);

/* sofs_reconf.c */
int sofs_graph_build (ftl_profile_t *prof, const struct sofs_trace *t,
                      struct sofs_graph *pg);
void sofs_graph_free (struct sofs_graph *pg);
/* Plan every profiled object with `kind` and relocate it; row gets the
 * reconfiguration's cost and the plans' adjacency. */
int sofs_reconfigure (struct sim *s, const struct sofs_trace *t,
                      const struct sofs_graph *pg, enum ftl_plan_kind kind,
                      struct sofs_row *row);

/* sofs_pressure.c: random overwrites of another object filling 60 % of
 * the drive, twice its size (GC and static wear levelling at work) */
int sofs_gc_pressure (struct sim *s);

/* sofs_report.c */
void sofs_csv_header (FILE *f);
void sofs_emit (FILE *csv, FILE *json, const struct sofs_trace *t,
                const struct sofs_row *w, const struct sofs_row *before,
                const struct sofs_row *seq, const struct ftl_profile_counters *pc,
                const struct sofs_graph *pg);

/* sofs_run.c: the whole experiment for one trace: a CSV row per layout
 * (before, each planner, sequential bound) to csv (header when `header`),
 * one JSON object per layout to json (NULL: none). */
int sofs_run (const struct sim_opts *o, const struct sofs_trace *t,
              FILE *csv, bool header, FILE *json);

#endif
