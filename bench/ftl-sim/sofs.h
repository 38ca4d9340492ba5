/* sofs.h - the self-optimizing layout experiment of ftl-sim (issue 16,
 * docs/sofs.md, references/003): a trace of host requests on objects is
 * laid out (its objects installed, then its writes applied), its reads
 * replayed back to back with the drive's profiler (ftl/include/ftl_profile.h)
 * recording them, a new layout planned per object (ftl/include/ftl_plan.h)
 * and applied by rewriting through the FTL's write path, and the reads
 * replayed again - against the fully sequential bound, where every read
 * has pages of its own laid out in replay order.
 *
 * sofs_trace.c  the trace container, the MSR loader
 * sofs_apps.c   synthetic application traces and the PostgreSQL case
 * sofs_run.c    layout, profile, plan, reconfigure, replay, CSV rows
 */
#ifndef FTL_SIM_SOFS_H
#define FTL_SIM_SOFS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

#define SOFS_OID0 100ull       /* the trace's objects: SOFS_OID0 + index */
#define SOFS_BOUND_OID 99ull   /* the sequential bound's object */

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

/* sofs_run.c: the whole experiment for one trace: a CSV row per layout
 * (before, each planner, sequential bound) to csv (header when `header`),
 * one JSON object per layout to json (NULL: none). */
int sofs_run (const struct sim_opts *o, const struct sofs_trace *t,
              FILE *csv, bool header, FILE *json);

#endif
