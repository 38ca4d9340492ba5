/* ftl_profile.c - the access profiler (ftl_profile.h): creation, the read
 * ring, the object table, the shared transition table with aging, and the
 * recording of a read (runs and sequential stretches).  The merged read-out
 * is ftl_profile_merge.c. */
#include "ftl_internal.h"
#include "ftl_profile_internal.h"

static uint32_t
pow2_at_least (uint32_t v)
{
  uint32_t p = 1;
  while (p < v && p < (1u << 30))
    p <<= 1;
  return p;
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
entry_add_weight (struct ftl_profile *p, uint32_t stream, uint64_t from,
                  uint64_t to, uint32_t w);

static void
entry_add (struct ftl_profile *p, uint32_t stream, uint64_t from, uint64_t to)
{
  entry_add_weight (p, stream, from, to, 1);
}

static void
entry_add_weight (struct ftl_profile *p, uint32_t stream, uint64_t from,
                  uint64_t to, uint32_t w)
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
  e->weight = e->weight > UINT32_MAX - w ? UINT32_MAX : e->weight + w;
}

static void
edge_add (struct ftl_profile *p, uint32_t stream, uint64_t from, uint64_t to)
{
  entry_add (p, stream, from, to);
  p->c.transitions++;
}

/* The stream's sequential stretch into the table (its transitions were
 * counted as it grew). */
void
profile_seq_flush (struct ftl_profile *p, uint32_t stream, struct stream_state *g)
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
      profile_seq_flush (p, sidx, g);
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
          profile_seq_flush (p, sidx, g);
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

int
ftl_profile_restore (ftl_profile_t *p, uint32_t stream,
                     const struct ftl_profile_edge *edges, size_t n,
                     size_t *restored, ftl_error *err)
{
  *restored = 0;
  if (stream >= p->cfg.streams)
    return ftl_fail (err, -EINVAL, "profile restore: stream %u of %u", stream,
                     p->cfg.streams);
  pthread_mutex_lock (&p->lock);
  for (size_t i = 0; i < n; i++)
    {
      const struct ftl_profile_edge *e = &edges[i];
      if (e->from.unit > UNIT_MASK || e->to.unit > UNIT_MASK || !e->weight)
        continue;
      uint32_t a = obj_index (p, e->from.pid, e->from.oid);
      uint32_t b = obj_index (p, e->to.pid, e->to.oid);
      if (a == OBJ_NONE || b == OBJ_NONE)
        continue;
      uint64_t from = (uint64_t) a << UNIT_BITS | e->from.unit;
      uint64_t to = (uint64_t) b << UNIT_BITS | e->to.unit;
      uint64_t intra = e->intra_weight < e->weight ? e->intra_weight : e->weight;
      /* the part seen inside reads goes back as a two-unit run (reads
       * cover consecutive units only, so from + 1 == to), the rest as an
       * edge between reads: the merge gives both back as they were */
      if (intra && a == b && e->to.unit == e->from.unit + 1)
        entry_add_weight (p, stream, from, RUN | 2,
                          intra > UINT32_MAX ? UINT32_MAX : (uint32_t) intra);
      else
        intra = 0;
      uint64_t rest = e->weight - intra;
      if (rest)
        entry_add_weight (p, stream, from, to,
                          rest > UINT32_MAX ? UINT32_MAX : (uint32_t) rest);
      (*restored)++;
    }
  pthread_mutex_unlock (&p->lock);
  return 0;
}
