/* greedy_ref.c - ftl-greedy-ref: an independent, idealised page-mapped
 * FTL model (one write stream, a free block held back for GC copies, sector-granular
 * programs, greedy victim = fewest valid sectors) under uniform random
 * single-sector writes.  It gives the WAF an ideal greedy FTL reaches on
 * the same number of blocks and sectors per block, to separate what the
 * analytic (1+r)/(2r) misses from what the real FTL (ftl/) adds.
 * Closed blocks sit in lists by valid count, so a victim is found in
 * O(sectors per block) and large block counts stay fast. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "splitmix.h"

struct model
{
  uint32_t blocks, spb;
  uint64_t user;
  int32_t *map, *rev;
  uint32_t *valid, *freel, nfree, cur, wp;
  uint8_t *closed;
  uint32_t *head, *prev, *next;   /* closed blocks by valid count */
  uint64_t copies;
};

#define NONE UINT32_MAX

static void
bucket_insert (struct model *m, uint32_t b)
{
  uint32_t v = m->valid[b];
  m->prev[b] = NONE;
  m->next[b] = m->head[v];
  if (m->next[b] != NONE)
    m->prev[m->next[b]] = b;
  m->head[v] = b;
}

static void
bucket_remove (struct model *m, uint32_t b)
{
  if (m->prev[b] != NONE)
    m->next[m->prev[b]] = m->next[b];
  else
    m->head[m->valid[b]] = m->next[b];
  if (m->next[b] != NONE)
    m->prev[m->next[b]] = m->prev[b];
}

/* one sector of block b dies */
static void
kill (struct model *m, uint32_t b)
{
  if (m->closed[b])
    bucket_remove (m, b);
  m->valid[b]--;
  if (m->closed[b])
    bucket_insert (m, b);
}

static uint64_t
rnd (uint64_t *s)
{
  return splitmix64 (s);
}

static void
put (struct model *m, uint64_t l)
{
  if (m->wp == m->spb)
    {
      m->closed[m->cur] = 1;
      bucket_insert (m, m->cur);
      m->cur = m->freel[--m->nfree];
      m->wp = 0;
    }
  uint64_t p = (uint64_t) m->cur * m->spb + m->wp++;
  m->rev[p] = (int32_t) l;
  m->map[l] = (int32_t) p;
  m->valid[m->cur]++;
}

static void
gc (struct model *m)
{
  while (m->nfree < 2)   /* keep one block for the copies */
    {
      uint32_t best = NONE;
      for (uint32_t v = 0; v <= m->spb && best == NONE; v++)
        best = m->head[v];
      bucket_remove (m, best);
      m->closed[best] = 0;
      for (uint32_t i = 0; i < m->spb; i++)
        {
          int32_t l = m->rev[(uint64_t) best * m->spb + i];
          if (l < 0)
            continue;
          m->rev[(uint64_t) best * m->spb + i] = -1;
          m->valid[best]--;
          put (m, (uint64_t) l);
          m->copies++;
        }
      m->freel[m->nfree++] = best;
    }
}

static void
usage (FILE *f)
{
  fprintf (f,
"usage: ftl-greedy-ref --blocks N --sectors-per-block N --r R [options]\n"
"Ideal greedy page-mapped FTL under uniform random 4 KiB writes.\n"
"  --blocks N             physical blocks\n"
"  --sectors-per-block N  4 KiB sectors per block\n"
"  --r R                  over-provisioning, spare/user\n"
"  --warmup-x F           random writes before measuring, x user (4)\n"
"  --measure-x F          measured random writes, x user (2)\n"
"  --seed N\n"
"  --help\n"
"Prints: blocks, sectors per block, r, analytic (1+r)/(2r), waf.\n");
}

int
main (int argc, char **argv)
{
  struct model m = { 0 };
  double r = 0, warm = 4, meas = 2;
  uint64_t seed = 42;
  static const struct option lo[] = {
    { "blocks", 1, 0, 'b' }, { "sectors-per-block", 1, 0, 'p' },
    { "r", 1, 0, 'r' }, { "warmup-x", 1, 0, 'w' }, { "measure-x", 1, 0, 'm' },
    { "seed", 1, 0, 's' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
  };
  int c;
  while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1)
    switch (c)
      {
      case 'b': m.blocks = (uint32_t) atoi (optarg); break;
      case 'p': m.spb = (uint32_t) atoi (optarg); break;
      case 'r': r = atof (optarg); break;
      case 'w': warm = atof (optarg); break;
      case 'm': meas = atof (optarg); break;
      case 's': seed = strtoull (optarg, NULL, 10); break;
      case 'h': usage (stdout); return 0;
      default: usage (stderr); return 2;
      }
  if (m.blocks < 8 || m.spb < 1 || r <= 0)
    {
      usage (stderr);
      return 2;
    }
  uint64_t phys = (uint64_t) m.blocks * m.spb;
  m.user = (uint64_t) ((double) phys / (1 + r));
  if (m.user + 2 * m.spb > phys)
    {
      fprintf (stderr, "ftl-greedy-ref: r too small for %u blocks\n",
               m.blocks);
      return 2;
    }
  m.map = malloc (m.user * sizeof *m.map);
  m.rev = malloc (phys * sizeof *m.rev);
  m.valid = calloc (m.blocks, sizeof *m.valid);
  m.freel = malloc (m.blocks * sizeof *m.freel);
  m.closed = calloc (m.blocks, 1);
  m.head = malloc ((m.spb + 1) * sizeof *m.head);
  m.prev = malloc (m.blocks * sizeof *m.prev);
  m.next = malloc (m.blocks * sizeof *m.next);
  if (!m.map || !m.rev || !m.valid || !m.freel || !m.closed || !m.head
      || !m.prev || !m.next)
    {
      fprintf (stderr, "ftl-greedy-ref: out of memory\n");
      return 1;
    }
  for (uint64_t i = 0; i < phys; i++)
    m.rev[i] = -1;
  for (uint32_t v = 0; v <= m.spb; v++)
    m.head[v] = NONE;
  for (uint32_t b = 0; b < m.blocks; b++)
    m.freel[m.nfree++] = m.blocks - 1 - b;
  m.cur = m.freel[--m.nfree];
  uint64_t total = m.user + (uint64_t) ((warm + meas) * (double) m.user);
  uint64_t start = m.user + (uint64_t) (warm * (double) m.user), c0 = 0;
  for (uint64_t i = 0; i < total; i++)
    {
      uint64_t l = i < m.user ? i : rnd (&seed) % m.user;
      if (i >= m.user)
        {
          uint64_t p = (uint64_t) m.map[l];
          kill (&m, (uint32_t) (p / m.spb));
          m.rev[p] = -1;
        }
      if (i == start)
        c0 = m.copies;
      put (&m, l);
      gc (&m);
    }
  double waf = 1 + (double) (m.copies - c0) / (double) (total - start);
  printf ("blocks %u sectors_per_block %u r %.4f analytic %.4f waf %.4f\n",
          m.blocks, m.spb, r, (1 + r) / (2 * r), waf);
  return 0;
}
