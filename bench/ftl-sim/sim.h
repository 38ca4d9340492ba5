/* sim.h - shared types of ftl-sim, the trace-driven simulator that links
 * the object FTL (ftl/) with the metadata-only "none:" backend.
 *
 * One `struct sim` holds everything of a run (no globals): the FTL handle,
 * the options, the random generator, the host-side counters, the time
 * series writer and the progress bar.  Workload generators (workloads.c,
 * trace_msr.c, precondition.c) drive the FTL only through sim_write /
 * sim_read / sim_create / sim_remove (sim_core.c), which do the accounting
 * and sampling.  Every function returning int returns 0 or a negative errno
 * after printing a message naming what failed.
 */
#ifndef FTL_SIM_H
#define FTL_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "splitmix.h"

#include "ossd_ftl.h"

#define SIM_PID 1ull            /* the user partition every workload uses */
#define SIM_VOL_OID 1ull        /* the block-volume object */
#define SIM_SECTOR 4096ull

enum sim_workload
{
  WL_RAND, WL_ZIPF, WL_SEQ, WL_OBJECTS, WL_DELREWRITE, WL_MSR, WL_NONE,
  WL_SOFS,
};

struct sim_opts
{
  /* device */
  struct ftl_config cfg;
  uint64_t capacity;          /* bytes, 0 = from blocks_per_plane */
  /* workload */
  enum sim_workload wl;
  uint64_t ops;               /* host requests of the measured phase */
  uint64_t warmup_ops;        /* rand/zipf/seq: requests before it */
  double writes_x;            /* or: host bytes written / capacity */
  uint32_t bs;                /* request size, bytes */
  double read_pct;            /* 0..100 */
  double zipf_theta;
  double span;                /* fraction of the volume addressed */
  uint32_t writers;           /* objects / delrewrite */
  uint64_t obj_min, obj_max;  /* object sizes, bytes */
  double fill;                /* objects: target utilisation */
  uint32_t exofs_inode_bytes; /* delrewrite: exofs-like metadata traffic,
                                 bytes written per inode update (0 = none) */
  const char *trace;          /* MSR CSV */
  bool trace_per_disk;        /* one object per (host, disk) */
  bool trace_idle;            /* gaps between records -> ftl_idle */
  /* preconditioning */
  bool precondition;
  double pre_fill;            /* fraction of capacity filled sequentially */
  double pre_max_x;           /* random writes at most this x capacity */
  double pre_tol;             /* steady state: window WAF within +-tol */
  /* output */
  const char *csv, *cdf, *label;
  bool json, progress, quiet, fsck;
  uint64_t sample_ops;        /* ops per time-series row (0 = auto) */
  uint64_t seed;
  uint64_t idle_every;        /* call ftl_idle every N ops (0 = never) */
  uint64_t idle_ns;
  /* --workload sofs (sofs.h) */
  const char *sofs_case;      /* comma-separated cases */
  const char *sofs_csv;
  uint32_t sofs_edges;        /* profiler table entries (all streams) */
  double sofs_scale;
  uint64_t sofs_max_reads;    /* msr: reads replayed (0 = all) */
  uint64_t sofs_max_obj;      /* msr: largest object (bytes) */
  bool sofs_gc_pressure;      /* add rows: chain, then GC pressure, with
                                 GC keeping / ignoring the layout */
};

struct sim_counters
{
  uint64_t reads, writes, creates, removes;   /* requests */
  uint64_t attr_updates;      /* set-attribute requests */
  uint64_t read_bytes, write_bytes;
  uint64_t enospc;            /* writes refused (objects workload) */
};

struct report;

struct sim
{
  const struct sim_opts *o;
  ftl_t *ftl;
  struct ftl_device_info info;
  uint64_t cap_sectors;       /* user-visible capacity in 4 KiB sectors */
  uint64_t vol_sectors;       /* size of the block-volume object */
  uint64_t rng;
  uint8_t *buf;               /* zeros; data is not stored anyway */
  size_t buflen;
  struct sim_counters c;
  struct report *rep;
  const char *phase;
  /* progress */
  uint64_t prog_total, prog_done;
  uint64_t prog_next_check;
  double prog_last_wall;
  double wall0;
  /* measured phase (after preconditioning): baselines */
  struct sim_counters c0;
  uint64_t vt0;
  double wall_m0;
  /* preconditioning results */
  uint32_t pre_rounds;
  bool pre_steady;
  double pre_waf;
  /* trace replay results (trace_msr.c) */
  uint64_t trace_records, trace_reads, trace_writes, trace_wrapped;
  uint64_t trace_skipped;
};

/* sim_core.c */
int sim_open (struct sim *s, const struct sim_opts *o);
void sim_close (struct sim *s);
int sim_write (struct sim *s, uint64_t oid, uint64_t off, uint64_t len);
int sim_read (struct sim *s, uint64_t oid, uint64_t off, uint64_t len);
int sim_create (struct sim *s, uint64_t oid);
int sim_remove (struct sim *s, uint64_t oid);
int sim_set_attr (struct sim *s, uint64_t oid, uint32_t page, uint32_t number,
                  uint32_t len);
int sim_make_volume (struct sim *s, uint64_t sectors);
void sim_phase (struct sim *s, const char *name, uint64_t total_ops);
void sim_tick (struct sim *s);
int sim_stats (struct sim *s, struct ftl_stats *st);
/* Start the measured phase: reset the FTL statistics, take baselines. */
int sim_measure_begin (struct sim *s);
double sim_wall (void);
uint64_t sim_rss_kib (void);
static inline uint64_t
sim_rand (struct sim *s)
{
  return splitmix64 (&s->rng);
}
static inline double
sim_rand01 (struct sim *s)
{
  return (double) (sim_rand (s) >> 11) * (1.0 / 9007199254740992.0);
}

/* workloads.c */
int wl_run (struct sim *s);
/* Zipf (Gray et al.) over n items, theta in (0,1), hot items scattered
 * over [0, n) (bench/fusionraid draws from it too). */
struct zipf
{
  uint64_t n;
  double theta, alpha, zetan, eta, half_pow;
};
int zipf_init (struct zipf *z, uint64_t n, double theta);
/* The item for a uniform draw u in [0, 1). */
uint64_t zipf_pick (const struct zipf *z, double u);
const char *wl_name (enum sim_workload w);
int wl_parse (const char *name, enum sim_workload *out);

/* exofs.c: exofs-like metadata around the object calls (--exofs-inode-bytes) */
int exofs_mkfs (struct sim *s);
int exofs_create (struct sim *s, uint64_t oid);
int exofs_write (struct sim *s, uint64_t oid, uint64_t off, uint64_t len);
int exofs_unlink (struct sim *s, uint64_t oid);

/* sofs_main.c: the whole --workload sofs run */
int sofs_main (const struct sim_opts *o);

/* precondition.c */
int precondition_run (struct sim *s);

/* trace_msr.c */
int trace_msr_replay (struct sim *s, const char *path);
/* One record of an MSR Cambridge CSV line (Timestamp in 100 ns units). */
struct msr_rec
{
  uint64_t ts, off, size;
  bool write;
  char host[64];
  unsigned disk;
};
/* Parse one line (modified in place); false if it is not a record. */
bool msr_parse_line (char *line, struct msr_rec *r);

/* report.c */
int report_open (struct sim *s, const char *csv_path);
void report_sample (struct sim *s, bool force);
/* After ftl_reset_stats: take the new counters as the window base. */
void report_rebase (struct sim *s);
void report_close (struct sim *s);
int report_cdf (struct sim *s, const char *path);
void report_json (struct sim *s, FILE *out, double wall_s, uint64_t rss0,
                  uint64_t rss1);

/* latency_hist.c: read the FTL's read-latency histogram (virtual ns).
 * Fills up to cap (value_ns, count) pairs; returns the number. */
size_t sim_read_latency_hist (ftl_t *ftl, uint64_t *val, uint64_t *cnt,
                              size_t cap);

#endif
