/* ftl_profile.c - the access profiler (ftl_profile.h): read ring, object
 * table, per-stream transition hash tables with aging, merged read-out. */
#include <stdatomic.h>

#include "ftl_internal.h"
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

static uint32_t
pow2_at_least (uint32_t v)
{
  uint32_t p = 1;
  while (p < v && p < (1u << 30))
    p <<= 1;
  return p;
}

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

void
ftl_profile_config_defaults (struct ftl_profile_config *c)
{
  c->ring_records = 4096;
  c->streams = 8;
  c->edges_per_stream = 4096;
  c->max_objects = 1024;
  c->unit_bytes = 8192;
  c->max_units_per_read = 256;
}

int
ftl_profile_create (const struct ftl_profile_config *in, ftl_profile_t **out,
                    ftl_error *err)
{
  struct ftl_profile_config c;
  ftl_profile_config_defaults (&c);
  if (in)
    {
#define TAKE(f) if (in->f) c.f = in->f
      TAKE (ring_records); TAKE (streams); TAKE (edges_per_stream);
      TAKE (max_objects); TAKE (unit_bytes); TAKE (max_units_per_read);
#undef TAKE
    }
  *out = NULL;
  if (c.unit_bytes < FTL_SECTOR || (c.unit_bytes & (c.unit_bytes - 1)))
    return ftl_fail (err, -EINVAL, "profile unit_bytes %u: not a power of "
                     "two of at least 4096", c.unit_bytes);
  if (c.streams > 1024 || c.max_objects > (1u << 23) || c.ring_records > (1u << 24)
      || c.edges_per_stream > (1u << 24) || c.edges_per_stream < 16)
    return ftl_fail (err, -EINVAL, "profile bounds out of range (streams %u "
                     "<= 1024, objects %u <= 2^23, ring %u <= 2^24, edges %u "
                     "in [16, 2^24])", c.streams, c.max_objects,
                     c.ring_records, c.edges_per_stream);
  if ((uint64_t) c.streams * c.edges_per_stream > (1u << 26))
    return ftl_fail (err, -EINVAL, "profile table of %u streams x %u entries "
                     "exceeds 2^26 entries", c.streams, c.edges_per_stream);
  struct ftl_profile *p = calloc (1, sizeof *p);
  if (!p)
    return ftl_fail (err, -ENOMEM, "out of memory for the profiler");
  pthread_mutex_init (&p->lock, NULL);
  p->cfg = c;
  p->unit_shift = (uint32_t) __builtin_ctz (c.unit_bytes);
  p->tsize = pow2_at_least (c.streams * c.edges_per_stream);
  p->emask = p->tsize - 1;
  uint32_t objcap = pow2_at_least (c.max_objects * 2);
  p->obj_mask = objcap - 1;
  p->ring = calloc (c.ring_records, sizeof *p->ring);
  p->g = calloc (c.streams, sizeof *p->g);
  /* written now, not lazily: a page fault on a first insert costs a read
   * as much as the whole record */
  p->table = calloc (p->tsize, sizeof *p->table);
  p->scratch = calloc (p->tsize, sizeof *p->scratch);
  if (p->table && p->scratch)
    for (size_t i = 0; i < (size_t) p->tsize * sizeof *p->table; i += 4096)
      {
        ((volatile uint8_t *) p->table)[i] = 0;
        ((volatile uint8_t *) p->scratch)[i] = 0;
      }
  p->obj = calloc (objcap, sizeof *p->obj);
  p->obj_slot_index = calloc (objcap, sizeof *p->obj_slot_index);
  p->obj_by_index = calloc (c.max_objects, sizeof *p->obj_by_index);
  bool ok = p->ring && p->g && p->table && p->scratch && p->obj
    && p->obj_slot_index && p->obj_by_index;
  if (!ok)
    {
      ftl_profile_destroy (p);
      return ftl_fail (err, -ENOMEM, "out of memory for the profiler (%u "
                       "streams x %u edges)", c.streams, c.edges_per_stream);
    }
  p->c.memory_bytes = sizeof *p + (uint64_t) c.ring_records * sizeof *p->ring
    + (uint64_t) 2 * p->tsize * sizeof (struct edge_slot)
    + (uint64_t) c.streams * sizeof (struct stream_state)
    + (uint64_t) objcap * (sizeof *p->obj + sizeof (uint32_t))
    + (uint64_t) c.max_objects * sizeof *p->obj_by_index;
  *out = p;
  return 0;
}

void
ftl_profile_destroy (ftl_profile_t *p)
{
  if (!p)
    return;
  free (p->g);
  free (p->table);
  free (p->ring);
  free (p->scratch);
  free (p->obj);
  free (p->obj_slot_index);
  free (p->obj_by_index);
  pthread_mutex_destroy (&p->lock);
  free (p);
}

void
ftl_profile_set_enabled (ftl_profile_t *p, bool on)
{
  atomic_store (&p->enabled, on);
}

bool
ftl_profile_enabled (ftl_profile_t *p)
{
  return atomic_load (&p->enabled);
}

void
ftl_profile_get_config (ftl_profile_t *p, struct ftl_profile_config *c)
{
  *c = p->cfg;
}

void
ftl_profile_reset (ftl_profile_t *p)
{
  pthread_mutex_lock (&p->lock);
  uint64_t mem = p->c.memory_bytes;
  memset (&p->c, 0, sizeof p->c);
  p->c.memory_bytes = mem;
  p->ring_next = 0;
  memset (p->table, 0, (size_t) p->tsize * sizeof *p->table);
  memset (p->g, 0, (size_t) p->cfg.streams * sizeof *p->g);
  p->used = 0;
  memset (p->obj, 0, (size_t) (p->obj_mask + 1) * sizeof *p->obj);
  p->nobj = 0;
  pthread_mutex_unlock (&p->lock);
}

/* The object's index, interning it; OBJ_NONE when the table is full. */
static uint32_t
obj_index (struct ftl_profile *p, uint64_t pid, uint64_t oid)
{
  uint32_t h = (uint32_t) mix64 (pid * 0x9e3779b97f4a7c15ull ^ oid) & p->obj_mask;
  for (;;)
    {
      struct obj_entry *e = &p->obj[h];
      if (!e->used)
        break;
      if (e->pid == pid && e->oid == oid)
        return p->obj_slot_index[h];
      h = (h + 1) & p->obj_mask;
    }
  if (p->nobj == p->cfg.max_objects)
    return OBJ_NONE;
  p->obj[h] = (struct obj_entry) { pid, oid, true };
  p->obj_slot_index[h] = p->nobj;
  p->obj_by_index[p->nobj] = p->obj[h];
  p->c.objects = ++p->nobj;
  return p->nobj - 1;
}

static inline uint32_t
edge_hash (uint64_t from, uint64_t to, uint32_t stream)
{
  return (uint32_t) mix64 ((from * 0x9e3779b97f4a7c15ull + to) ^ ((uint64_t) stream << 48));
}

/* The entry for (stream, from, to), or the empty one to put it in; the
 * table always has room (it ages at three quarters). */
static struct edge_slot *
edge_find (struct edge_slot *t, uint32_t mask, uint64_t from, uint64_t to,
           uint32_t stream)
{
  uint32_t h = edge_hash (from, to, stream) & mask;
  while (t[h].weight && (t[h].from != from || t[h].to != to || t[h].stream != stream))
    h = (h + 1) & mask;
  return &t[h];
}

/* Halve every weight, drop the zeros, rehash: until at most half full. */
static void
table_age (struct ftl_profile *p)
{
  uint32_t n = p->tsize;
  do
    {
      memset (p->scratch, 0, (size_t) n * sizeof *p->scratch);
      uint32_t used = 0;
      for (uint32_t i = 0; i < n; i++)
        {
          struct edge_slot e = p->table[i];
          if (!e.weight)
            continue;
          e.weight >>= 1;
          if (!e.weight)
            {
              p->c.edges_aged_out++;
              continue;
            }
          *edge_find (p->scratch, p->emask, e.from, e.to, e.stream) = e;
          used++;
        }
      struct edge_slot *t = p->table;
      p->table = p->scratch;
      p->scratch = t;
      p->used = used;
      p->c.agings++;
    }
  while (p->used > n / 2);
  p->c.edges = p->used;
}

static void
entry_add (struct ftl_profile *p, uint32_t stream, uint64_t from, uint64_t to)
{
  struct edge_slot *e = edge_find (p->table, p->emask, from, to, stream);
  if (!e->weight)
    {
      if (p->used + 1 > p->tsize / 4 * 3)
        {
          table_age (p);
          e = edge_find (p->table, p->emask, from, to, stream);
        }
      if (!e->weight)
        {
          e->from = from;
          e->to = to;
          e->stream = stream;
          p->used++;
          p->c.edges = p->used;
        }
    }
  if (e->weight < UINT32_MAX)
    e->weight++;
}

static void
edge_add (struct ftl_profile *p, uint32_t stream, uint64_t from, uint64_t to)
{
  entry_add (p, stream, from, to);
  p->c.transitions++;
}

/* The stream's sequential stretch into the table (its transitions were
 * counted as it grew). */
static void
seq_flush (struct ftl_profile *p, uint32_t stream, struct stream_state *g)
{
  if (!g->seq)
    return;
  if (g->seq_count == 1)
    entry_add (p, stream, g->seq_from - 1, g->seq_from);
  else
    entry_add (p, stream, g->seq_from,
               SEQ | ((uint64_t) g->seq_stride << 32) | g->seq_count);
  g->seq = false;
}

void
ftl_profile_record (ftl_profile_t *p, uint32_t stream, uint64_t pid,
                    uint64_t oid, uint64_t off, uint64_t len, uint64_t time_ns)
{
  if (!len || !atomic_load_explicit (&p->enabled, memory_order_relaxed))
    return;
  pthread_mutex_lock (&p->lock);
  uint32_t sidx = stream % p->cfg.streams;
  struct ftl_profile_read *r = &p->ring[p->ring_next % p->cfg.ring_records];
  if (p->ring_next >= p->cfg.ring_records)
    p->c.ring_overwritten++;
  p->ring_next++;
  *r = (struct ftl_profile_read) { time_ns, pid, oid, off, len, stream };
  p->c.reads++;
  p->c.read_bytes += len;
  uint32_t oi = obj_index (p, pid, oid);
  struct stream_state *g = &p->g[sidx];
  if (oi == OBJ_NONE)
    {
      p->c.objects_dropped++;
      seq_flush (p, sidx, g);
      g->has_last = false;
      pthread_mutex_unlock (&p->lock);
      return;
    }
  uint64_t first = off >> p->unit_shift, last = (off + len - 1) >> p->unit_shift;
  uint64_t units = last - first + 1;
  if (units > p->cfg.max_units_per_read)
    {
      p->c.units_not_graphed += units - p->cfg.max_units_per_read;
      units = p->cfg.max_units_per_read;
    }
  uint64_t v0 = ((uint64_t) oi << UNIT_BITS) | (first & UNIT_MASK);
  if (g->has_last && g->last != v0)
    {
      bool next = g->last + 1 == v0 && (g->last >> UNIT_BITS) == oi;
      if (next && g->seq && g->seq_stride == units && g->seq_count < SEQ_MAX
          && g->seq_from + (uint64_t) g->seq_count * units == v0)
        {
          g->seq_count++;   /* the scan goes on: no table update */
          p->c.transitions++;
        }
      else
        {
          seq_flush (p, sidx, g);
          if (next)
            {
              g->seq = true;
              g->seq_from = v0;
              g->seq_stride = (uint32_t) units;
              g->seq_count = 1;
              p->c.transitions++;
            }
          else
            {
              edge_add (p, sidx, g->last, v0);
              if ((g->last >> UNIT_BITS) != oi)
                p->c.cross_object_transitions++;
            }
        }
    }
  if (units > 1)
    {
      edge_add (p, sidx, v0, RUN | units);
      p->c.transitions += units - 2;   /* edge_add counted one */
      p->c.intra_transitions += units - 1;
    }
  g->last = ((uint64_t) oi << UNIT_BITS) | ((first + units - 1) & UNIT_MASK);
  g->has_last = true;
  p->c.units += units;
  pthread_mutex_unlock (&p->lock);
}

void
ftl_profile_get_counters (ftl_profile_t *p, struct ftl_profile_counters *c)
{
  pthread_mutex_lock (&p->lock);
  *c = p->c;
  pthread_mutex_unlock (&p->lock);
}

size_t
ftl_profile_reads (ftl_profile_t *p, struct ftl_profile_read *out, size_t cap)
{
  pthread_mutex_lock (&p->lock);
  uint64_t held = p->ring_next < p->cfg.ring_records ? p->ring_next
    : p->cfg.ring_records;
  uint64_t n = held < cap ? held : cap;
  for (uint64_t i = 0; i < n; i++)
    out[i] = p->ring[(p->ring_next - n + i) % p->cfg.ring_records];
  pthread_mutex_unlock (&p->lock);
  return (size_t) n;
}

static int
edge_key_cmp (const void *a, const void *b)
{
  const struct flat_edge *x = a, *y = b;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  if (x->to != y->to)
    return x->to < y->to ? -1 : 1;
  return 0;
}

struct merged
{
  uint64_t from, to, weight, intra;
};

static int
merged_cmp (const void *a, const void *b)
{
  const struct merged *x = a, *y = b;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  if (x->from != y->from)
    return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

static struct ftl_profile_vertex
vertex_of (const struct ftl_profile *p, uint64_t key)
{
  const struct obj_entry *o = &p->obj_by_index[key >> UNIT_BITS];
  return (struct ftl_profile_vertex) { o->pid, o->oid, key & UNIT_MASK };
}

int
ftl_profile_edges (ftl_profile_t *p, struct ftl_profile_edge *out, size_t cap,
                   size_t *n, size_t *total, ftl_error *err)
{
  *n = 0;
  if (total)
    *total = 0;
  pthread_mutex_lock (&p->lock);
  for (uint32_t s = 0; s < p->cfg.streams; s++)
    seq_flush (p, s, &p->g[s]);
  /* runs and sequential stretches expand into their edges */
  size_t all = 0;
  for (uint32_t i = 0; i < p->tsize; i++)
    if (p->table[i].weight)
      {
        uint64_t to = p->table[i].to;
        all += (to & RUN) ? (to & ~RUN) - 1 : (to & SEQ) ? (uint32_t) to : 1;
      }
  if (all > FTL_PROFILE_MAX_EXPANDED)
    {
      pthread_mutex_unlock (&p->lock);
      return ftl_fail (err, -E2BIG, "the profile's runs expand into %zu edges, "
                       "more than the %u a merge may take: reset it or record "
                       "fewer units per read", all, FTL_PROFILE_MAX_EXPANDED);
    }
  struct flat_edge *e = malloc ((all ? all : 1) * sizeof *e);
  struct merged *m = malloc ((all ? all : 1) * sizeof *m);
  if (!e || !m)
    {
      pthread_mutex_unlock (&p->lock);
      free (e);
      free (m);
      return ftl_fail (err, -ENOMEM, "out of memory merging %zu profile edges",
                       all);
    }
  size_t k = 0;
  for (uint32_t i = 0; i < p->tsize; i++)
    {
      const struct edge_slot *x = &p->table[i];
      if (!x->weight)
        continue;
      if (x->to & SEQ)
        {
          uint64_t stride = (x->to & ~SEQ) >> 32, count = (uint32_t) x->to;
          for (uint64_t i = 0; i < count; i++)
            e[k++] = (struct flat_edge) { x->from + i * stride - 1,
                                          x->from + i * stride, x->weight, 0 };
          continue;
        }
      if (!(x->to & RUN))
        {
          e[k++] = (struct flat_edge) { x->from, x->to, x->weight, 0 };
          continue;
        }
      for (uint64_t u = 0; u + 1 < (x->to & ~RUN); u++)
        e[k++] = (struct flat_edge) { x->from + u, x->from + u + 1, x->weight,
                                      x->weight };
    }
  qsort (e, k, sizeof *e, edge_key_cmp);
  size_t nm = 0;
  for (size_t i = 0; i < k; i++)
    {
      if (nm && m[nm - 1].from == e[i].from && m[nm - 1].to == e[i].to)
        {
          m[nm - 1].weight += e[i].weight;
          m[nm - 1].intra += e[i].intra;
        }
      else
        m[nm++] = (struct merged) { e[i].from, e[i].to, e[i].weight, e[i].intra };
    }
  qsort (m, nm, sizeof *m, merged_cmp);
  size_t c = out ? (nm < cap ? nm : cap) : 0;
  for (size_t i = 0; i < c; i++)
    out[i] = (struct ftl_profile_edge) { vertex_of (p, m[i].from),
                                         vertex_of (p, m[i].to), m[i].weight,
                                         m[i].intra };
  pthread_mutex_unlock (&p->lock);
  free (e);
  free (m);
  *n = c;
  if (total)
    *total = nm;
  return 0;
}
