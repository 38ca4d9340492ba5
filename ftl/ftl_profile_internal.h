/* ftl_profile_internal.h - the profiler's structures, shared by
 * ftl_profile.c (recording) and ftl_profile_merge.c (the merged read-out). */
#ifndef FTL_PROFILE_INTERNAL_H
#define FTL_PROFILE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ftl_profile.h"

#define OBJ_NONE 0xffffffffu
/* vertex key: object index (23 bits) << 40 | unit (40 bits) */
#define UNIT_BITS 40
#define UNIT_MASK ((1ull << UNIT_BITS) - 1)
/* A table entry whose `to` has RUN set stands for the run of units one read
 * covered: from = its first vertex, to = RUN | the number of units; it
 * means the edges u -> u + 1 along the run, expanded when the graph is
 * read out.  So a read costs at most two table updates however long. */
#define RUN (1ull << 63)
/* A table entry whose `to` has SEQ set stands for a sequential stretch of
 * reads of `stride` units each, every one starting where the one before it
 * ended: from = the first unit of the second read, to = SEQ | stride << 32
 * | count; it means the count edges (from + i * stride - 1) -> (from + i *
 * stride) between the reads.  A scan in equal reads so costs the table one
 * update when it ends, not one per read. */
#define SEQ (1ull << 62)
#define SEQ_MAX 65536u          /* reads in one stretch entry (then a new one) */

/* One table holds every stream's graph (an entry names its stream), so
 * the streams that read share all the room and idle slots take none. */
struct edge_slot
{
  uint64_t from, to;          /* vertex keys */
  uint32_t weight;            /* 0 = empty */
  uint32_t stream;
};

/* an edge on read-out (runs expanded) */
struct flat_edge
{
  uint64_t from, to;
  uint32_t weight, intra;     /* intra: of weight, from inside reads */
};

struct stream_state
{
  bool has_last;
  uint64_t last;              /* the vertex this stream read last */
  /* the sequential stretch being read (SEQ), not in the table yet */
  bool seq;
  uint64_t seq_from;
  uint32_t seq_stride, seq_count;
};

struct obj_entry
{
  uint64_t pid, oid;
  bool used;
};

struct ftl_profile
{
  pthread_mutex_t lock;
  atomic_bool enabled;
  struct ftl_profile_config cfg;
  uint32_t unit_shift;
  uint32_t tsize, emask;      /* table entries (streams x edges_per_stream,
                                 2^k), tsize - 1 */
  uint32_t used;              /* table entries in use */
  struct ftl_profile_read *ring;
  uint64_t ring_next;         /* records ever written */
  struct stream_state *g;
  struct edge_slot *table, *scratch;   /* scratch: the aging rehash */
  struct obj_entry *obj;      /* open addressing, 2 x max_objects */
  uint32_t obj_mask;
  struct obj_entry *obj_by_index;   /* interned objects in order */
  uint32_t nobj;
  uint32_t *obj_slot_index;   /* obj[] slot -> index */
  struct ftl_profile_counters c;
};

static inline uint64_t
mix64 (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* The stream's sequential stretch into the table (ftl_profile.c). */
void profile_seq_flush (struct ftl_profile *p, uint32_t stream,
                        struct stream_state *g);

#endif
