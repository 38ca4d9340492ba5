/* ftl_index.c - the object index {PID, OID} -> descriptor (a slot table
 * with a chained hash), the partition set, and per-object attributes kept
 * sorted by (page, number). */
#include "ftl_internal.h"

static inline uint32_t
obj_hash (uint64_t pid, uint64_t oid)
{
  uint64_t h = pid * 0x9e3779b97f4a7c15ull ^ (oid + 0x632be59bd9b4e019ull);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (uint32_t) h;
}

int
ftl_index_init (struct ftl *f)
{
  f->hmask = 1023;
  f->hash = malloc ((f->hmask + 1) * sizeof (uint32_t));
  if (!f->hash)
    return -ENOMEM;
  memset (f->hash, 0xff, (f->hmask + 1) * sizeof (uint32_t));
  f->objs_cap = 256;
  f->objs = calloc (f->objs_cap, sizeof *f->objs);
  f->free_slots = malloc (f->objs_cap * sizeof (uint32_t));
  f->parts_cap = 16;
  f->parts = malloc (f->parts_cap * sizeof (uint64_t));
  if (!f->objs || !f->free_slots || !f->parts)
    return -ENOMEM;
  f->nparts = 0;
  return 0;
}

static void
object_free (struct ftl *f, struct ftl_object *o)
{
  for (uint32_t i = 0; i < o->nattrs; i++)
    free (o->attrs[i].val);
  free (o->attrs);
  for (uint32_t c = 0; c < o->nchunks; c++)
    free (o->chunks[c]);
  free (o->chunks);
  free (o);
}

void
ftl_index_fini (struct ftl *f)
{
  if (f->objs)
    for (uint32_t i = 0; i < f->objs_cap; i++)
      if (f->objs[i])
        object_free (f, f->objs[i]);
  free (f->objs);
  free (f->free_slots);
  free (f->hash);
  free (f->parts);
  f->objs = NULL;
  f->free_slots = NULL;
  f->hash = NULL;
  f->parts = NULL;
}

struct ftl_object *
ftl_index_lookup (struct ftl *f, uint64_t pid, uint64_t oid)
{
  uint32_t s = f->hash[obj_hash (pid, oid) & f->hmask];
  while (s != SLOT_NONE)
    {
      struct ftl_object *o = f->objs[s];
      if (o->pid == pid && o->oid == oid)
        return o;
      s = o->hnext;
    }
  return NULL;
}

static int
hash_grow (struct ftl *f)
{
  uint32_t nmask = f->hmask * 2 + 1;
  uint32_t *nh = malloc ((nmask + 1) * sizeof (uint32_t));
  if (!nh)
    return -ENOMEM;
  memset (nh, 0xff, (nmask + 1) * sizeof (uint32_t));
  for (uint32_t i = 0; i < f->objs_cap; i++)
    {
      struct ftl_object *o = f->objs[i];
      if (!o)
        continue;
      uint32_t h = obj_hash (o->pid, o->oid) & nmask;
      o->hnext = nh[h];
      nh[h] = i;
    }
  free (f->hash);
  f->hash = nh;
  f->hmask = nmask;
  return 0;
}

struct ftl_object *
ftl_index_insert (struct ftl *f, uint64_t pid, uint64_t oid)
{
  uint32_t slot;
  if (f->nfree_slots)
    slot = f->free_slots[--f->nfree_slots];
  else
    {
      /* slots are handed out densely: find the first never-used slot */
      if (f->nobjs >= f->objs_cap)
        {
          uint32_t ncap = f->objs_cap * 2;
          if (ncap >= OWNER_MAPFLAG)
            return NULL;
          struct ftl_object **no = realloc (f->objs, ncap * sizeof *no);
          if (!no)
            return NULL;
          memset (no + f->objs_cap, 0, (ncap - f->objs_cap) * sizeof *no);
          f->objs = no;
          uint32_t *nf = realloc (f->free_slots, ncap * sizeof (uint32_t));
          if (!nf)
            return NULL;
          f->free_slots = nf;
          f->objs_cap = ncap;
        }
      slot = f->nobjs;   /* no free slots => slots [0, nobjs) are all used */
    }
  struct ftl_object *o = calloc (1, sizeof *o);
  if (!o)
    {
      f->free_slots[f->nfree_slots++] = slot;
      return NULL;
    }
  o->pid = pid;
  o->oid = oid;
  o->slot = slot;
  o->stream = -1;
  o->temperature = 1;
  o->priority = FTL_PRIORITY_DEFAULT;
  f->objs[slot] = o;
  f->nobjs++;
  uint32_t h = obj_hash (pid, oid) & f->hmask;
  o->hnext = f->hash[h];
  f->hash[h] = slot;
  if (f->nobjs > f->hmask)
    hash_grow (f);   /* failure only lengthens chains */
  return o;
}

void
ftl_index_delete (struct ftl *f, struct ftl_object *o)
{
  uint32_t *pp = &f->hash[obj_hash (o->pid, o->oid) & f->hmask];
  while (*pp != o->slot)
    pp = &f->objs[*pp]->hnext;
  *pp = o->hnext;
  f->objs[o->slot] = NULL;
  f->free_slots[f->nfree_slots++] = o->slot;
  f->nobjs--;
  object_free (f, o);
}

/* ---- partitions: sorted array ---- */
static uint32_t
part_pos (struct ftl *f, uint64_t pid)
{
  uint32_t lo = 0, hi = f->nparts;
  while (lo < hi)
    {
      uint32_t mid = (lo + hi) / 2;
      if (f->parts[mid] < pid)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

bool
ftl_part_exists (struct ftl *f, uint64_t pid)
{
  uint32_t p = part_pos (f, pid);
  return p < f->nparts && f->parts[p] == pid;
}

int
ftl_part_add (struct ftl *f, uint64_t pid)
{
  uint32_t p = part_pos (f, pid);
  if (p < f->nparts && f->parts[p] == pid)
    return -EEXIST;
  if (f->nparts == f->parts_cap)
    {
      uint64_t *np = realloc (f->parts, f->parts_cap * 2 * sizeof *np);
      if (!np)
        return -ENOMEM;
      f->parts = np;
      f->parts_cap *= 2;
    }
  memmove (f->parts + p + 1, f->parts + p,
           (f->nparts - p) * sizeof (uint64_t));
  f->parts[p] = pid;
  f->nparts++;
  return 0;
}

void
ftl_part_del (struct ftl *f, uint64_t pid)
{
  uint32_t p = part_pos (f, pid);
  if (p < f->nparts && f->parts[p] == pid)
    {
      memmove (f->parts + p, f->parts + p + 1,
               (f->nparts - p - 1) * sizeof (uint64_t));
      f->nparts--;
    }
}

uint64_t
ftl_part_count_objects (struct ftl *f, uint64_t pid)
{
  uint64_t n = 0;
  for (uint32_t i = 0; i < f->objs_cap; i++)
    if (f->objs[i] && f->objs[i]->pid == pid)
      n++;
  return n;
}

/* ---- attributes ---- */
static uint32_t
attr_pos (struct ftl_object *o, uint32_t page, uint32_t number)
{
  uint32_t lo = 0, hi = o->nattrs;
  uint64_t key = ((uint64_t) page << 32) | number;
  while (lo < hi)
    {
      uint32_t mid = (lo + hi) / 2;
      uint64_t k = ((uint64_t) o->attrs[mid].page << 32) | o->attrs[mid].number;
      if (k < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

struct ftl_attr *
ftl_attr_find (struct ftl_object *o, uint32_t page, uint32_t number)
{
  uint32_t p = attr_pos (o, page, number);
  if (p < o->nattrs && o->attrs[p].page == page
      && o->attrs[p].number == number)
    return &o->attrs[p];
  return NULL;
}

int
ftl_attr_set (struct ftl_object *o, uint32_t page, uint32_t number,
          const void *val, uint32_t len)
{
  uint32_t p = attr_pos (o, page, number);
  bool found = p < o->nattrs && o->attrs[p].page == page
    && o->attrs[p].number == number;
  if (len == 0)
    {
      if (page == FTL_ATTR_PAGE_HINTS && number == FTL_ATTR_HINT_TEMPERATURE)
        o->temperature = 1;
      if (page == FTL_ATTR_PAGE_HINTS && number == FTL_ATTR_HINT_PRIORITY)
        o->priority = FTL_PRIORITY_DEFAULT;
      if (found)
        {
          free (o->attrs[p].val);
          memmove (o->attrs + p, o->attrs + p + 1,
                   (o->nattrs - p - 1) * sizeof *o->attrs);
          o->nattrs--;
        }
      return 0;
    }
  uint8_t *v = malloc (len);
  if (!v)
    return -ENOMEM;
  memcpy (v, val, len);
  if (found)
    {
      free (o->attrs[p].val);
      o->attrs[p].val = v;
      o->attrs[p].len = len;
      return 0;
    }
  if (o->nattrs == o->attrs_cap)
    {
      uint32_t nc = o->attrs_cap ? o->attrs_cap * 2 : 4;
      struct ftl_attr *na = realloc (o->attrs, nc * sizeof *na);
      if (!na)
        {
          free (v);
          return -ENOMEM;
        }
      o->attrs = na;
      o->attrs_cap = nc;
    }
  memmove (o->attrs + p + 1, o->attrs + p,
           (o->nattrs - p) * sizeof *o->attrs);
  o->attrs[p] = (struct ftl_attr) { page, number, len, v };
  o->nattrs++;
  if (page == FTL_ATTR_PAGE_HINTS && number == FTL_ATTR_HINT_TEMPERATURE)
    o->temperature = v[0] > 2 ? 2 : v[0];
  if (page == FTL_ATTR_PAGE_HINTS && number == FTL_ATTR_HINT_PRIORITY)
    o->priority = v[0] > FTL_PRIORITY_MAX ? FTL_PRIORITY_MAX : v[0];
  return 0;
}
