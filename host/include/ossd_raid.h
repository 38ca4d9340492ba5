/* ossd_raid.h - public interface of the redundancy core (host/raid/): the
 * FusionRAID-style array of drives (references/002, DESIGN.md "Arrays of
 * drives") and the fixed RAID-5 / RAID-50 layouts it is compared with.
 *
 * The core knows nothing of transports or of the FTL: it turns requests on
 * volumes (user units) into I/Os of units on drives through a small vtable
 * (struct raid_drive_ops), and learns their latencies from completions.  So
 * the same code runs in the virtual-time simulator (bench/fusionraid, over
 * D instances of the real FTL) and, later, over real drives.
 *
 * Parts, one concern each:
 * - placement (raid_placement.c): where unit `pos` of stripe s lives.  MOLS
 *   declustering over a pool of n drives (n prime), and fixed groups of K
 *   drives, with volumes on one group each (RAID-5 groups) or over all of
 *   them (RAID-50: RAID-0 over the same groups).
 * - fusion space (raid_space.c): per-stripe state of FusionRAID's write path
 *   (replicated slots "in stripe", their mirror stripe, conversion to parity,
 *   space accounting).  Deterministic, no I/O.
 * - latency monitor (raid_monitor.c): per-drive latency from completions
 *   only, spike detection with hysteresis, replica choice.
 * - engine (raid_engine*.c): the request state machines of the three
 *   policies over the vtable.
 *
 * Conventions: functions returning int return 0 or a negative errno and,
 * when err is not NULL, write a one-line reason into err->msg.  Units are
 * the array's block (the simulator uses 4 KiB); offsets on a drive are in
 * units.  Times are ns on the caller's clock.
 */
#ifndef OSSD_RAID_H
#define OSSD_RAID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RAID_MAX_WIDTH 32        /* units per stripe (data + parity) */
#define RAID_MAX_DRIVES 1024

typedef struct raid_error
{
  char msg[256];
} raid_error;

/* ---- placement ------------------------------------------------------- */

enum raid_layout_kind
{
  /* Declustered: n drives (n prime), stripes of width K <= n - 1 built from
   * K mutually orthogonal Latin squares L_i(a, b) = i*a + b mod n
   * (i = 1..K, a = 1..n-1, b = 0..n-1): one cycle of n(n-1) stripes puts
   * K(n-1) units on every drive, and any two drives share exactly K(K-1)
   * stripes of a cycle, so a rebuild reads equally from every survivor. */
  RAID_LAYOUT_MOLS = 0,
  /* G fixed groups of K drives (drives g*K .. g*K+K-1); stripe s lives in
   * group s % G at row s / G, parity rotating (left-symmetric). */
  RAID_LAYOUT_GROUPS = 1,
};

struct raid_layout
{
  enum raid_layout_kind kind;
  uint32_t drives;            /* drives the layout uses */
  uint32_t width;             /* K: K-1 data units + 1 parity unit */
  uint32_t groups;            /* GROUPS: G */
  uint64_t drive_units;       /* capacity of each drive, units */
  uint64_t stripes;           /* stripes that fit */
  uint64_t cycle_stripes;     /* stripes of one balance cycle */
  uint64_t cycle_units;       /* units per drive per cycle */
};

struct raid_unit_addr
{
  uint32_t drive;
  uint64_t offset;            /* unit offset on the drive */
};

int raid_layout_init (struct raid_layout *L, enum raid_layout_kind kind,
                      uint32_t drives, uint32_t width, uint32_t groups,
                      uint64_t drive_units, raid_error *err);
/* Unit `pos` (0..width-2 data, width-1 parity) of stripe `stripe`. */
struct raid_unit_addr raid_layout_locate (const struct raid_layout *L,
                                          uint64_t stripe, uint32_t pos);
/* The inverse: which stripe and position a drive's unit holds.  -ERANGE
 * if (drive, offset) is outside the layout. */
int raid_layout_reverse (const struct raid_layout *L, uint32_t drive,
                         uint64_t offset, uint64_t *stripe, uint32_t *pos);
const char *raid_layout_name (enum raid_layout_kind k);
bool raid_is_prime (uint32_t n);

/* How volumes of in-place layouts take stripes of a GROUPS layout:
 * RAID-5 groups give volume v the stripes of group v % G (volumes sharing
 * a group one after the other), RAID-50 gives every volume consecutive
 * stripes, which go round the groups (RAID-0 over RAID-5 groups). */
enum raid_volume_map
{
  RAID_VMAP_GROUP = 0,        /* RAID-5 groups: a volume on one group */
  RAID_VMAP_RAID50 = 1,       /* RAID-50: a volume over every group */
};
/* The layout stripe holding volume `vol`'s stripe j, each volume having
 * stripes_per_vol stripes. */
uint64_t raid_layout_volume_stripe (const struct raid_layout *L,
                                    enum raid_volume_map map, uint32_t vol,
                                    uint64_t stripes_per_vol, uint64_t j);

/* ---- fusion space: FusionRAID's per-stripe state ----------------------
 *
 * A stripe is FREE, OPEN (taking replicated writes: slot p's first replica
 * is unit p of the stripe itself, "in stripe", its second is unit p of a
 * MIRROR stripe whose unit p is on another drive), FULL (every data slot
 * allocated; waits for its writes and then for the converter), CONVERTING
 * (parity being written), or RAID (parity valid: the mirror was freed).
 * Full-stripe writes go straight to RAID.  A slot whose data is
 * overwritten is dead: a replicated slot's two copies are freed at once
 * (trimmed), a RAID stripe's dead unit stays until every unit of its
 * stripe is dead, which frees the stripe.
 */
enum raid_stripe_state
{
  RAID_SS_FREE = 0,
  RAID_SS_OPEN,
  RAID_SS_FULL,
  RAID_SS_CONVERTING,
  RAID_SS_RAID,
  RAID_SS_MIRROR,
};

struct raid_space;

/* Drives to avoid (in a spike); NULL = none. */
typedef bool (*raid_avoid_fn) (void *arg, uint32_t drive);

struct raid_slot
{
  uint64_t stripe;            /* the primary stripe */
  uint32_t pos;               /* data position in it */
  uint64_t mirror;            /* the mirror stripe (replicated slots) */
  struct raid_unit_addr primary, replica;
};

/* Block addresses in the fusion space: stripe * width + pos. */
static inline uint64_t
raid_block (uint64_t stripe, uint32_t pos, uint32_t width)
{
  return stripe * width + pos;
}

int raid_space_create (const struct raid_layout *L, uint32_t open_stripes,
                       struct raid_space **out, raid_error *err);
void raid_space_destroy (struct raid_space *sp);
const struct raid_layout *raid_space_layout (const struct raid_space *sp);
/* Data already on the array before the run: stripe s is RAID with the
 * data slots of live_mask live (not counted as written in the run). */
int raid_space_preload (struct raid_space *sp, uint64_t stripe,
                        uint32_t live_mask, raid_error *err);
/* A slot for one replicated write.  Prefers a slot of an open stripe whose
 * two drives are not avoided; opens a new stripe (and its mirror) when no
 * open one has a free slot.  *avoided_any: a slot was skipped because of
 * an avoided drive.  -ENOSPC when no free stripe is left. */
int raid_space_alloc_slot (struct raid_space *sp, raid_avoid_fn avoid,
                           void *arg, struct raid_slot *out,
                           bool *avoided_any, raid_error *err);
/* A free stripe for a full-stripe write (becomes RAID with every data slot
 * live), preferring one none of whose drives is avoided. */
int raid_space_alloc_stripe (struct raid_space *sp, raid_avoid_fn avoid,
                             void *arg, uint64_t *stripe, raid_error *err);
/* The write of a slot (or of a whole stripe) was submitted / completed:
 * a FULL stripe is converted only when none is in flight. */
void raid_space_write_begin (struct raid_space *sp, uint64_t stripe);
void raid_space_write_end (struct raid_space *sp, uint64_t stripe);

/* What freeing a dead slot asks of the drives: units to trim. */
struct raid_trim
{
  uint32_t n;
  struct raid_unit_addr unit[RAID_MAX_WIDTH + 2];
};
/* The data of block (stripe, pos) was superseded.  Fills trim with the
 * units that can be trimmed now (the two replicas of a replicated slot,
 * every unit of a RAID stripe that became all dead). */
void raid_space_kill (struct raid_space *sp, uint64_t stripe, uint32_t pos,
                      struct raid_trim *trim);
enum raid_stripe_state raid_space_state (const struct raid_space *sp,
                                         uint64_t stripe);
uint32_t raid_space_live_mask (const struct raid_space *sp, uint64_t stripe);
uint64_t raid_space_mirror (const struct raid_space *sp, uint64_t stripe);

/* Converter: the next FULL stripe with no write in flight (-ENOENT if
 * none); begin marks it CONVERTING; done makes it RAID, frees its mirror
 * and fills trim with the mirror's units that held live replicas. */
int raid_space_next_full (struct raid_space *sp, uint64_t *stripe);
void raid_space_convert_begin (struct raid_space *sp, uint64_t stripe);
void raid_space_convert_done (struct raid_space *sp, uint64_t stripe,
                              struct raid_trim *trim);
/* Close every open stripe (its unallocated slots count as zeros in the
 * parity): used to drain everything to parity. */
void raid_space_close_open (struct raid_space *sp);
uint64_t raid_space_full_count (const struct raid_space *sp);

/* Space, in units, of the stripes written during the run (run_only:
 * preloaded stripes are left out, but what the run superseded in them is
 * counted as preload_dead_units) or of all stripes. */
struct raid_space_usage
{
  uint64_t data_units;        /* live data units */
  uint64_t replica_units;     /* second copies of replicated live units */
  uint64_t parity_units;      /* parity of RAID stripes */
  uint64_t dead_units;        /* superseded units a RAID stripe still holds */
  uint64_t unused_units;      /* slots never written of closed stripes */
  uint64_t preload_dead_units;   /* run_only: superseded preloaded units */
  uint64_t free_stripes, open_stripes, full_stripes, raid_stripes,
           mirror_stripes;
};
void raid_space_usage (const struct raid_space *sp, bool run_only,
                       struct raid_space_usage *u);

/* ---- latency monitor and spike detector --------------------------------
 *
 * Per drive, from completions only (no probing I/O): an EWMA of I/O
 * latency (submit to completion, queueing included: what the host sees),
 * and the age of its oldest outstanding I/O (a stalled drive completes
 * nothing, so the age is what shows it).  A drive's score is the larger of
 * the two.  It enters a spike when its score exceeds
 * max(floor_ns, k_on x the pool's median EWMA), and leaves it when the
 * score falls under max(floor_ns, k_off x median) (k_off < k_on:
 * hysteresis), or when it has had nothing outstanding for hold_ns (a drive
 * everyone avoids completes nothing, so its EWMA would never fall: it is
 * given a fresh start at the median).
 */
struct raid_monitor_params
{
  double alpha;               /* EWMA weight of a new sample (0.125) */
  double k_on, k_off;         /* spike enter / leave factors (4, 2) */
  uint64_t floor_ns;          /* no spike below this score (400 us) */
  uint64_t hold_ns;           /* idle time that ends a spike (2 ms) */
  uint32_t median_every;      /* completions between median updates (32) */
};

struct raid_monitor;

void raid_monitor_defaults (struct raid_monitor_params *p);
int raid_monitor_create (uint32_t drives, const struct raid_monitor_params *p,
                         struct raid_monitor **out, raid_error *err);
void raid_monitor_destroy (struct raid_monitor *m);
void raid_monitor_submit (struct raid_monitor *m, uint32_t drive, uint64_t t);
void raid_monitor_complete (struct raid_monitor *m, uint32_t drive,
                            uint64_t t_submit, uint64_t t_done);
/* Evaluates (and updates) the drive's spike state at time now. */
bool raid_monitor_in_spike (struct raid_monitor *m, uint32_t drive,
                            uint64_t now);
/* Of two drives holding the same data, the one to read: not in a spike
 * first, then fewer outstanding I/Os, then the lower EWMA; ties -> a. */
uint32_t raid_monitor_pick (struct raid_monitor *m, uint32_t a, uint32_t b,
                            uint64_t now);
uint32_t raid_monitor_outstanding (const struct raid_monitor *m,
                                   uint32_t drive);
uint64_t raid_monitor_ewma (const struct raid_monitor *m, uint32_t drive);
uint64_t raid_monitor_median (const struct raid_monitor *m);
uint64_t raid_monitor_spikes (const struct raid_monitor *m, uint32_t drive);

/* ---- drive I/O vtable -------------------------------------------------- */

enum raid_io_kind
{
  RAID_IO_READ = 0,
  RAID_IO_WRITE = 1,
  RAID_IO_TRIM = 2,
};

struct raid_drive_ops
{
  /* Start an I/O of `units` units at unit `offset` of `drive`.  The backend
   * reports its end with raid_engine_io_done (tag, time, status) exactly
   * once, never from inside submit.  Returns 0 or -errno. */
  int (*submit) (void *ctx, uint32_t drive, enum raid_io_kind kind,
                 uint64_t offset, uint32_t units, uint64_t tag);
  uint64_t (*now) (void *ctx);   /* the current time, ns */
};

/* ---- engine --------------------------------------------------------------- */

enum raid_policy
{
  RAID_POLICY_RAID5_GROUPS = 0,   /* G fixed groups, volume v on group v % G,
                                     in-place writes with parity update */
  RAID_POLICY_RAID50 = 1,         /* RAID-0 over the G groups: every volume
                                     striped over all of them */
  RAID_POLICY_FUSION = 2,         /* MOLS declustering over the pool,
                                     replicate-then-parity, spike avoidance */
};

struct raid_engine_config
{
  enum raid_policy policy;
  uint32_t drives;            /* pool (FUSION: prime; others: >= G*K) */
  uint32_t width;             /* K */
  uint32_t groups;            /* RAID5_GROUPS / RAID50 */
  uint64_t drive_units;
  uint32_t volumes;
  uint64_t volume_units;      /* each volume's size, units */
  /* FUSION */
  bool convert;               /* background replica -> parity conversion */
  uint32_t convert_inflight;  /* conversions at once (2) */
  uint32_t convert_min_full;  /* start when this many stripes are FULL (1) */
  bool spike_avoid;           /* redirect reads and writes (true) */
  uint32_t open_stripes;      /* stripes taking replicated writes (4) */
  struct raid_monitor_params mon;
};

/* A user request ended: status 0 or -errno. */
typedef void (*raid_done_fn) (void *arg, uint64_t user_tag, uint64_t t_done,
                              int status);

struct raid_engine;

void raid_engine_config_defaults (struct raid_engine_config *c);
int raid_engine_create (const struct raid_engine_config *c,
                        const struct raid_drive_ops *ops, void *ops_ctx,
                        raid_done_fn done, void *done_arg,
                        struct raid_engine **out, raid_error *err);
void raid_engine_destroy (struct raid_engine *e);
/* Read or write units [unit, unit + nunits) of a volume. */
int raid_engine_submit (struct raid_engine *e, uint32_t volume, bool write,
                        uint64_t unit, uint32_t nunits, uint64_t user_tag,
                        raid_error *err);
/* Called by the backend when an I/O it was given ends. */
void raid_engine_io_done (struct raid_engine *e, uint64_t tag, uint64_t t_done,
                          int status);
/* FUSION: close the open stripes and convert everything (the backend then
 * runs until raid_engine_busy is false). */
void raid_engine_drain (struct raid_engine *e);
bool raid_engine_busy (const struct raid_engine *e);
/* The first error an internal I/O met (0 if none), with its reason. */
int raid_engine_error (const struct raid_engine *e, raid_error *err);

struct raid_engine_stats
{
  uint64_t user_reads, user_writes, user_done;
  uint64_t io[3], io_units[3];          /* drive I/Os by kind */
  uint64_t full_stripe_writes, rmw_writes, reconstruct_writes;
  uint64_t replicated_writes;           /* slots written as two replicas */
  uint64_t reads_other_replica;         /* replica chosen away from a spike */
  uint64_t reads_reconstructed;         /* rebuilt from parity (spike) */
  uint64_t writes_steered;              /* slot chosen away from a spike */
  uint64_t conversions;
  uint64_t spikes;                      /* spike entries over all drives */
};
void raid_engine_stats (const struct raid_engine *e,
                        struct raid_engine_stats *st);
/* FUSION: the fusion space (usage); NULL for the fixed layouts. */
const struct raid_space *raid_engine_space (const struct raid_engine *e);
const struct raid_layout *raid_engine_layout (const struct raid_engine *e);
struct raid_monitor *raid_engine_monitor (struct raid_engine *e);
const char *raid_policy_name (enum raid_policy p);

#ifdef __cplusplus
}
#endif
#endif /* OSSD_RAID_H */
