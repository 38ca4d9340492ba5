/* fr.h - shared types of fusionraid-sim: the raid/ core over a pool of D
 * real FTLs (libossd_ftl, metadata-only "none:" backend, each set up and
 * preconditioned by bench/ftl-sim's own code), on one virtual time line.
 *
 * One `struct fr_run` holds one policy's run (no globals): the options,
 * the event queue, the drives, the engine, the workloads and their
 * latencies.  Functions returning int return 0 or a negative errno after
 * printing what failed.
 */
#ifndef FR_H
#define FR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ossd_raid.h"
#include "../ftl-sim/sim.h"

#define FR_UNIT 4096u            /* the array's block */
#define FR_MAX_WL 4

enum fr_wl_kind
{
  FR_WL_YCSB_A, FR_WL_YCSB_B, FR_WL_EXCHANGE, FR_WL_MSR,
};

struct fr_wl_spec
{
  enum fr_wl_kind kind;
  char name[32];
  double iops;                  /* mean request rate (generated kinds) */
  const char *trace;            /* FR_WL_MSR */
};

struct fr_opts
{
  /* pool */
  uint32_t drives, width, groups;
  uint64_t drive_bytes;
  struct ftl_config cfg;
  double pre_max_x;             /* preconditioning: random writes x capacity */
  uint64_t idle_gc_min_ns;      /* idle gaps at least this long go to ftl_idle */
  /* stalled drives: unresponsive for stall_ns every stall_period_ns */
  uint32_t stall_drive[4], nstall;
  uint64_t stall_period_ns, stall_ns;
  /* workloads */
  struct fr_wl_spec wl[FR_MAX_WL];
  uint32_t nwl;
  double volume_frac;           /* each volume: fraction of a group's space */
  double seconds, warmup_s;     /* virtual time measured, and before it */
  double burst;                 /* ON-period rate / mean rate (>= 1) */
  double trace_speed;           /* MSR replay: time compression */
  /* policies */
  enum raid_policy policy[8];
  bool policy_convert[8], policy_spike[8];
  char policy_name[8][32];
  uint32_t npolicies;
  struct raid_monitor_params mon;
  /* output */
  const char *csv, *cdf, *json_path;
  bool json, progress;
  uint64_t seed;
};

/* ---- events (events.c): a binary heap ordered by time, then sequence ---- */
enum fr_ev_kind
{
  EV_ARRIVAL = 0,               /* a: workload index */
  EV_IO_DONE = 1,               /* a: engine tag */
};

struct fr_event
{
  uint64_t t, seq;
  uint32_t kind;
  uint64_t a;
  int status;
};

struct fr_heap
{
  struct fr_event *ev;
  size_t n, cap;
  uint64_t seq;
};

int fr_heap_push (struct fr_heap *h, uint64_t t, uint32_t kind, uint64_t a,
                  int status);
bool fr_heap_pop (struct fr_heap *h, struct fr_event *out);
void fr_heap_free (struct fr_heap *h);

/* ---- the drive pool (pool.c) ---- */
struct fr_drive_stats
{
  uint64_t gc_runs, gc_copies, erases, host_writes, nand_programs;
  uint64_t max_io_ns;
};

struct fr_pool
{
  uint32_t n;
  struct sim *d;                /* ftl-sim's drive state, one per drive */
  struct sim_opts *so;          /* the options ftl-sim's code reads, each
                                   drive its own (seed) */
  uint64_t *offset;             /* drive clock - global clock */
  uint64_t *last_done;          /* latest completion per drive */
  uint32_t *inflight;
  uint64_t drive_units;
  uint64_t ios, io_ns_max;
};

struct fr_run;
int fr_pool_open (struct fr_pool *p, const struct fr_opts *o, bool progress);
void fr_pool_close (struct fr_pool *p);
/* The raid_drive_ops of the pool; ctx is the struct fr_run. */
extern const struct raid_drive_ops fr_pool_ops;
int fr_pool_stats (struct fr_pool *p, struct fr_drive_stats *sum);
int fr_pool_measure_begin (struct fr_pool *p);

/* ---- workloads (workloads.c) ---- */
struct fr_request
{
  uint64_t t;                   /* arrival, virtual ns */
  bool write;
  uint64_t unit;                /* in the volume */
  uint32_t units;
};

struct fr_wl
{
  struct fr_wl_spec spec;
  uint32_t vol;
  uint64_t vol_units;
  uint64_t rng;
  struct zipf z;
  bool on;                      /* bursty arrivals: in an ON period */
  uint64_t phase_end;           /* end of the current ON/OFF period */
  uint64_t seq_next;            /* sequential writes (flush-like) */
  /* MSR replay */
  FILE *f;
  uint64_t ts0;
  bool eof;
};

int fr_wl_open (struct fr_wl *w, const struct fr_wl_spec *spec, uint32_t vol,
                uint64_t vol_units, uint64_t seed);
/* The next request after time `after` (false: no more, e.g. trace end). */
bool fr_wl_next (struct fr_wl *w, const struct fr_opts *o, uint64_t after,
                 struct fr_request *rq);
void fr_wl_close (struct fr_wl *w);
const char *fr_wl_kind_name (enum fr_wl_kind k);
int fr_wl_parse (const char *text, struct fr_wl_spec *out);

/* ---- latencies and reports (report.c) ---- */
struct fr_lat
{
  uint64_t *ns;
  size_t n, cap;
  bool sorted;
};

int fr_lat_add (struct fr_lat *l, uint64_t ns);
/* Sorts; percentile p in [0, 100]. */
uint64_t fr_lat_pct (struct fr_lat *l, double p);
void fr_lat_free (struct fr_lat *l);

struct fr_result
{
  char policy[32];
  struct fr_lat lat[FR_MAX_WL + 1];       /* per workload, then all */
  struct fr_lat rlat[FR_MAX_WL + 1], wlat[FR_MAX_WL + 1];
  uint64_t generated[FR_MAX_WL], completed[FR_MAX_WL], errors;
  struct raid_engine_stats es;
  struct fr_drive_stats ds;
  bool has_space;
  struct raid_space_usage space_end, space_drained;
  double wall_s;
  uint64_t virtual_ns;
};

int fr_report_csv (const struct fr_opts *o, struct fr_result *r, size_t n,
                   const char *path);
int fr_report_cdf (const struct fr_opts *o, struct fr_result *r, size_t n,
                   const char *path);
void fr_report_json (const struct fr_opts *o, struct fr_result *r, size_t n,
                     FILE *out);
void fr_report_text (const struct fr_opts *o, struct fr_result *r, size_t n,
                     FILE *out);
double fr_space_overhead (const struct raid_space_usage *u);

/* ---- one policy's run (run.c) ---- */
struct fr_run
{
  const struct fr_opts *o;
  uint32_t pi;                  /* policy index */
  struct fr_heap h;
  uint64_t now;
  struct fr_pool pool;
  struct raid_engine *eng;
  struct fr_wl wl[FR_MAX_WL];
  struct fr_result *res;
  uint64_t t_measure, t_end;
  uint64_t reqs_live;
  /* arrival time of each request in flight, by tag */
  uint64_t *arrive;
  uint8_t *arrive_wl, *arrive_write;
  uint64_t ntag, captag, next_tag;
  /* progress */
  double wall0, last_draw;
};

int fr_run_policy (const struct fr_opts *o, uint32_t pi, struct fr_result *res);

#endif
