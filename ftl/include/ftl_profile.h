/* ftl_profile.h - the drive's access profiler (issue 16, docs/sofs.md).
 *
 * SOFS (references/003) records every I/O (time, process, start, length),
 * builds a directed graph of block-to-block transitions per process and
 * merges the graphs for planning.  This is that record, bounded and cheap
 * enough to stay on in a drive:
 *
 * - a ring of the last `ring_records` host reads (object, offset, length,
 *   time, stream);
 * - per stream (a channel slot; stream numbers fold modulo `streams`) a
 *   transition graph: vertices are (pid, oid, unit) with units of
 *   `unit_bytes` (8 KiB = a heap page by default), an edge u -> v counts
 *   how often v was read right after u by that stream, inside one read
 *   (consecutive units) or from one read to the next;
 * - the graphs share one fixed hash table of streams x edges_per_stream
 *   entries (rounded up to 2^k), each entry naming its stream, so the
 *   streams that read take all the room and idle ones none.  An entry is
 *   an edge between reads, or the run of units one read covered (standing
 *   for its edges u -> u + 1, expanded on read-out), so a read costs at
 *   most two updates however long it is; a stretch of equal reads each
 *   starting where the one before it ended (a scan) is one entry too,
 *   written when the stretch ends, so a scan in 8 KiB reads costs the table
 *   nothing per read; when the table is three quarters
 *   full every weight is halved and the entries that reach zero are
 *   dropped (aging: heavy edges survive, old light ones go);
 * - objects are interned into a table of `max_objects`; reads of objects
 *   beyond it are counted, kept in the ring, but not graphed.
 *
 * Memory is fixed at creation (about 48 bytes x edges_per_stream x streams:
 * the table and its aging copy, + 48 bytes x ring_records).  Disabled, a record call is one atomic load.
 * Thread-safe: one mutex (the FTL serialises reads under its own lock
 * anyway).  Functions returning int return 0 or a negative errno and fill
 * err.  Depends only on ossd_ftl.h (for ftl_error).
 */
#ifndef FTL_PROFILE_H
#define FTL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ossd_ftl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ftl_profile ftl_profile_t;

struct ftl_profile_config
{
  uint32_t ring_records;        /* default 4096 */
  uint32_t streams;             /* default 8 */
  uint32_t edges_per_stream;    /* table entries per stream (default 4096;
                                   the table is shared) */
  uint32_t max_objects;         /* default 1024, at most 2^23 */
  uint32_t unit_bytes;          /* default 8192; power of two >= 4096 */
  uint32_t max_units_per_read;  /* units of one read graphed (default 256,
                                   2 MiB of 8 KiB units): the rest of a
                                   longer read is counted, not graphed */
};

void ftl_profile_config_defaults (struct ftl_profile_config *c);
/* Zero fields take the defaults; -EINVAL (with the field) for bad ones. */
int ftl_profile_create (const struct ftl_profile_config *c, ftl_profile_t **out,
                        ftl_error *err);
void ftl_profile_destroy (ftl_profile_t *p);   /* safe on NULL */

void ftl_profile_set_enabled (ftl_profile_t *p, bool on);
bool ftl_profile_enabled (ftl_profile_t *p);
/* Forget every record, edge and counter (the enabled flag stays). */
void ftl_profile_reset (ftl_profile_t *p);
void ftl_profile_get_config (ftl_profile_t *p, struct ftl_profile_config *c);

/* One host read of [off, off + len) of object pid:oid by `stream` at
 * time_ns (any clock; the drive gives CLOCK_REALTIME).  No-op when
 * disabled or len == 0. */
void ftl_profile_record (ftl_profile_t *p, uint32_t stream, uint64_t pid,
                         uint64_t oid, uint64_t off, uint64_t len,
                         uint64_t time_ns);

struct ftl_profile_counters
{
  uint64_t reads, read_bytes;       /* reads recorded */
  uint64_t units;                   /* units they covered (graphed ones) */
  uint64_t transitions;             /* edge increments */
  uint64_t intra_transitions;       /* of them, inside one read */
  uint64_t cross_object_transitions;
  uint64_t units_not_graphed;       /* beyond max_units_per_read */
  uint64_t edges;                   /* table entries now (edges, runs,
                                       sequential stretches), all streams */
  uint64_t agings;                  /* halvings of a stream's weights */
  uint64_t edges_aged_out;          /* entries dropped by aging */
  uint64_t objects, objects_dropped;   /* interned / reads not graphed */
  uint64_t ring_overwritten;        /* records pushed out of the ring */
  uint64_t memory_bytes;            /* fixed at creation */
};
void ftl_profile_get_counters (ftl_profile_t *p, struct ftl_profile_counters *c);

struct ftl_profile_read
{
  uint64_t time_ns, pid, oid, offset, length;
  uint32_t stream;
};
/* The newest min(cap, held) records, oldest first; returns the number. */
size_t ftl_profile_reads (ftl_profile_t *p, struct ftl_profile_read *out,
                          size_t cap);

struct ftl_profile_vertex
{
  uint64_t pid, oid, unit;
};
struct ftl_profile_edge
{
  struct ftl_profile_vertex from, to;
  uint64_t weight;
  uint64_t intra_weight;      /* of weight, counted inside one read (the two
                                 units were read together) */
};
/* The merged graph: every stream's edges with equal (from, to) summed,
 * heaviest first (ties by from, then to).  Up to cap edges into out
 * (cap 0 / out NULL: only count); *n = copied, *total = distinct edges.
 * Runs expand into their edges first: -E2BIG (saying how many) when that
 * would exceed FTL_PROFILE_MAX_EXPANDED edges (the bound of the merge's
 * memory, ~56 bytes an edge; reset the profile or lower
 * max_units_per_read). */
#define FTL_PROFILE_MAX_EXPANDED (1u << 22)
int ftl_profile_edges (ftl_profile_t *p, struct ftl_profile_edge *out,
                       size_t cap, size_t *n, size_t *total, ftl_error *err);

/* Put merged edges (as ftl_profile_edges gave them: a saved profile) back
 * into stream's graph, adding to what is there; intra weights stay intra.
 * Edges of objects beyond max_objects are left out; *restored counts the
 * ones put back.  The counters of reads and transitions do not move: no
 * read happened. */
int ftl_profile_restore (ftl_profile_t *p, uint32_t stream,
                         const struct ftl_profile_edge *edges, size_t n,
                         size_t *restored, ftl_error *err);

#ifdef __cplusplus
}
#endif
#endif /* FTL_PROFILE_H */
