/* jit_cache.c - a bounded, thread-safe cache of compiled kernels keyed by
 * prog->hash (SHA-256 of instructions and read-only data).
 *
 * One mutex guards the table; compilation runs outside it.  A miss
 * inserts a "compiling" entry first, so concurrent lookups of the same
 * hash wait for that one compile instead of starting their own.  When the
 * table is full the least recently used finished entry is evicted; its
 * kernel lives on until its last reference is released. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "prog_internal.h"

struct cache_entry
{
  uint8_t hash[32];
  struct ossd_jit_kernel *k;   /* NULL while compiling */
  uint64_t stamp;              /* last use */
};

struct ossd_jit_cache
{
  pthread_mutex_t mu;
  pthread_cond_t done;
  uint32_t cap, n;
  struct cache_entry **e;      /* n used of cap */
  uint64_t clock;
  struct ossd_jit_cache_stats stats;
};

struct ossd_jit_cache *
ossd_jit_cache_new (uint32_t capacity)
{
  if (capacity == 0)
    return NULL;
  struct ossd_jit_cache *c = calloc (1, sizeof *c);
  if (!c || !(c->e = calloc (capacity, sizeof *c->e)))
    {
      free (c);
      return NULL;
    }
  pthread_mutex_init (&c->mu, NULL);
  pthread_cond_init (&c->done, NULL);
  c->cap = capacity;
  c->stats.capacity = capacity;
  return c;
}

/* Call only when no lookup is in progress. */
void
ossd_jit_cache_free (struct ossd_jit_cache *c)
{
  if (!c)
    return;
  for (uint32_t i = 0; i < c->n; i++)
    {
      ossd_jit_release (c->e[i]->k);
      free (c->e[i]);
    }
  free (c->e);
  pthread_cond_destroy (&c->done);
  pthread_mutex_destroy (&c->mu);
  free (c);
}

static struct cache_entry *
find (struct ossd_jit_cache *c, const uint8_t hash[32])
{
  for (uint32_t i = 0; i < c->n; i++)
    if (memcmp (c->e[i]->hash, hash, 32) == 0)
      return c->e[i];
  return NULL;
}

static void
remove_entry (struct ossd_jit_cache *c, struct cache_entry *x)
{
  for (uint32_t i = 0; i < c->n; i++)
    if (c->e[i] == x)
      {
        c->e[i] = c->e[--c->n];
        return;
      }
}

/* Makes room (evicting the LRU finished entry); returns the kernel to
 * release outside the lock, or NULL.  *full is set when every entry is
 * still compiling. */
static struct ossd_jit_kernel *
make_room (struct ossd_jit_cache *c, bool *full)
{
  *full = false;
  if (c->n < c->cap)
    return NULL;
  struct cache_entry *lru = NULL;
  for (uint32_t i = 0; i < c->n; i++)
    if (c->e[i]->k && (!lru || c->e[i]->stamp < lru->stamp))
      lru = c->e[i];
  if (!lru)
    {
      *full = true;
      return NULL;
    }
  struct ossd_jit_kernel *k = lru->k;
  remove_entry (c, lru);
  free (lru);
  c->stats.evictions++;
  return k;
}

int
ossd_jit_cache_get (struct ossd_jit_cache *c, const struct ossd_prog *prog,
                    struct ossd_jit_kernel **out, char *err, size_t errlen)
{
  struct cache_entry *x;
  *out = NULL;
  pthread_mutex_lock (&c->mu);
  while ((x = find (c, prog->hash)) && !x->k)
    pthread_cond_wait (&c->done, &c->mu);
  if (x)
    {
      x->stamp = ++c->clock;
      c->stats.hits++;
      *out = ossd_jit_retain (x->k);
      pthread_mutex_unlock (&c->mu);
      return 0;
    }
  c->stats.misses++;
  bool full;
  struct ossd_jit_kernel *evicted = make_room (c, &full);
  struct cache_entry *mine = NULL;
  if (!full && (mine = calloc (1, sizeof *mine)))
    {
      memcpy (mine->hash, prog->hash, 32);
      c->e[c->n++] = mine;
    }
  pthread_mutex_unlock (&c->mu);
  ossd_jit_release (evicted);

  struct ossd_jit_kernel *k;
  int rc = ossd_jit_compile (prog, &k, err, errlen);

  pthread_mutex_lock (&c->mu);
  if (rc < 0)
    {
      c->stats.compile_errors++;
      if (mine)
        {
          remove_entry (c, mine);
          free (mine);
        }
    }
  else
    {
      c->stats.compile_ns += k->stats.total_ns;
      if (mine)
        {
          mine->k = ossd_jit_retain (k);        /* the cache's reference */
          mine->stamp = ++c->clock;
        }
      *out = k;
    }
  pthread_cond_broadcast (&c->done);
  pthread_mutex_unlock (&c->mu);
  return rc;
}

void
ossd_jit_cache_get_stats (struct ossd_jit_cache *c, struct ossd_jit_cache_stats *out)
{
  pthread_mutex_lock (&c->mu);
  *out = c->stats;
  out->entries = c->n;
  pthread_mutex_unlock (&c->mu);
}
