/* sofs_apps.c - synthetic application traces for the SOFS experiment
 * (sofs.h), each made to show one way a layout helps or cannot help:
 *
 *   startup   24 files installed at once in 4 KiB pieces (their sectors
 *             share NAND pages), 10 % of each patched later; an
 *             application launched 4 times: three processes each read
 *             their fixed list of 4-64 KiB pieces of the files (40 %
 *             continuing the previous piece), 15 % of the pieces of each
 *             launch replaced by random ones (SOFS's firefox or gimp)
 *   logscan   a 32 MiB log written in 4 KiB blocks out of order (many
 *             writers), read back sequentially in 64 KiB requests
 *   streams   4 processes each read their own 4 MiB file in 16 KiB
 *             requests, interleaved in time; the files were installed
 *             at once (per-stream graphs keep the four sequences apart)
 *   btree     an index of 8 KiB pages built and updated in random order,
 *             then root-inner-leaf lookups of single pages: the control
 *             where no layout helps a queue-depth-1 replay
 *   pgupdate  PostgreSQL: a 64 MiB table loaded sequentially, then every
 *             page on average updated once at random (8 KiB, each
 *             followed by an 8 KiB history append, as pgbench does), then
 *             a sequential scan in 128 KiB reads
 *
 * `scale` multiplies sizes and counts; the same seed gives the same trace. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sofs.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static const char names[] = "startup, logscan, streams, btree, pgupdate";

const char *
sofs_app_names (void)
{
  return names;
}

static uint64_t
rnd (uint64_t *s, uint64_t n)
{
  return n ? splitmix64 (s) % n : 0;
}

static uint64_t
scaled (uint64_t v, double scale, uint64_t align)
{
  uint64_t x = (uint64_t) ((double) v * scale);
  x = x / align * align;
  return x ? x : align;
}

/* every `unit` block of an object once, in random order */
static int
rewrite_shuffled (struct sofs_trace *t, uint32_t obj, uint64_t unit,
                  uint64_t *seed)
{
  uint64_t n = t->obj_bytes[obj] / unit;
  uint64_t *perm = malloc (n * sizeof *perm);
  if (!perm)
    return -ENOMEM;
  for (uint64_t i = 0; i < n; i++)
    perm[i] = i;
  for (uint64_t i = n; i > 1; i--)
    {
      uint64_t j = rnd (seed, i), x = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = x;
    }
  int r = 0;
  for (uint64_t i = 0; r == 0 && i < n; i++)
    r = sofs_trace_add (t, obj, 0, perm[i] * unit, unit, true);
  free (perm);
  return r;
}

static int
app_startup (struct sofs_trace *t, double scale, uint64_t *seed)
{
  enum { FILES = 24, PROCS = 3, LAUNCHES = 4 };
  int r = sofs_trace_init (t, "startup", FILES);
  if (r < 0)
    return r;
  t->install_chunk = 4 * KIB;
  t->install_interleave = true;
  for (uint32_t f = 0; f < FILES; f++)
    t->obj_bytes[f] = scaled (64 * KIB + rnd (seed, 960) * KIB, scale, 64 * KIB);
  for (uint32_t f = 0; r == 0 && f < FILES; f++)
    for (uint64_t k = 0; r == 0 && k < t->obj_bytes[f] / (40 * KIB); k++)
      r = sofs_trace_add (t, f, 0, rnd (seed, t->obj_bytes[f] / (4 * KIB)) * 4 * KIB,
                          4 * KIB, true);
  static const uint64_t sizes[] = { 4 * KIB, 8 * KIB, 16 * KIB, 16 * KIB,
                                    32 * KIB, 64 * KIB };
  uint64_t per_proc = scaled (150, scale, 1);
  struct piece { uint32_t f; uint64_t off, len; };
  struct piece *list = malloc (PROCS * per_proc * sizeof *list);
  if (!list)
    return -ENOMEM;
  /* each process's launch list: 40 % of its pieces continue the previous */
  for (uint32_t p = 0; p < PROCS; p++)
    for (uint64_t i = 0; i < per_proc; i++)
      {
        struct piece *x = &list[p * per_proc + i], *prev = i ? x - 1 : NULL;
        uint64_t len = sizes[rnd (seed, 6)];
        if (prev && rnd (seed, 100) < 40 && prev->off + prev->len + len <= t->obj_bytes[prev->f])
          *x = (struct piece) { prev->f, prev->off + prev->len, len };
        else
          {
            /* each process mostly reads its own third of the files */
            uint32_t f = (uint32_t) (rnd (seed, 100) < 80
                                     ? p * (FILES / PROCS) + rnd (seed, FILES / PROCS)
                                     : rnd (seed, FILES));
            if (len > t->obj_bytes[f])
              len = t->obj_bytes[f];
            *x = (struct piece) { f, rnd (seed, (t->obj_bytes[f] - len) / (4 * KIB) + 1) * 4 * KIB,
                                  len };
          }
      }
  /* LAUNCHES launches, the processes' reads interleaved; in each, 15 % of
   * the pieces are replaced by a random piece of a random file */
  for (int l = 0; r == 0 && l < LAUNCHES; l++)
    for (uint64_t i = 0; r == 0 && i < per_proc; i++)
      for (uint32_t p = 0; r == 0 && p < PROCS; p++)
        {
          struct piece x = list[p * per_proc + i];
          if (rnd (seed, 100) < 15)
            {
              x.f = (uint32_t) rnd (seed, FILES);
              x.len = sizes[rnd (seed, 6)] < t->obj_bytes[x.f] ? sizes[rnd (seed, 6)] : t->obj_bytes[x.f];
              if (x.len > t->obj_bytes[x.f])
                x.len = t->obj_bytes[x.f];
              x.off = rnd (seed, (t->obj_bytes[x.f] - x.len) / (4 * KIB) + 1) * 4 * KIB;
            }
          r = sofs_trace_add (t, x.f, p, x.off, x.len, false);
        }
  free (list);
  return r;
}

static int
app_logscan (struct sofs_trace *t, double scale, uint64_t *seed)
{
  int r = sofs_trace_init (t, "logscan", 1);
  if (r < 0)
    return r;
  t->obj_bytes[0] = scaled (32 * MIB, scale, MIB);
  r = rewrite_shuffled (t, 0, 4 * KIB, seed);
  for (uint64_t off = 0; r == 0 && off < t->obj_bytes[0]; off += 64 * KIB)
    r = sofs_trace_add (t, 0, 0, off, 64 * KIB, false);
  return r;
}

static int
app_streams (struct sofs_trace *t, double scale, uint64_t *seed)
{
  enum { FILES = 4 };
  int r = sofs_trace_init (t, "streams", FILES);
  if (r < 0)
    return r;
  t->install_chunk = 4 * KIB;
  t->install_interleave = true;
  for (uint32_t f = 0; f < FILES; f++)
    t->obj_bytes[f] = scaled (4 * MIB, scale, MIB);
  for (uint64_t off = 0; r == 0 && off < t->obj_bytes[0]; off += 16 * KIB)
    for (uint32_t f = 0; r == 0 && f < FILES; f++)
      r = sofs_trace_add (t, f, f, off, 16 * KIB, false);
  return r;
}

static int
app_btree (struct sofs_trace *t, double scale, uint64_t *seed)
{
  int r = sofs_trace_init (t, "btree", 1);
  if (r < 0)
    return r;
  uint64_t pages = scaled (4096, scale, 128);
  t->obj_bytes[0] = pages * 8 * KIB;
  r = rewrite_shuffled (t, 0, 8 * KIB, seed);
  for (uint64_t i = 0; r == 0 && i < pages * 2; i++)
    r = sofs_trace_add (t, 0, 0, rnd (seed, pages) * 8 * KIB, 8 * KIB, true);
  uint64_t inner = pages / 64;
  for (uint64_t i = 0; r == 0 && i < scaled (2000, scale, 1); i++)
    {
      uint64_t leaf = 1 + inner + rnd (seed, pages - 1 - inner);
      r = sofs_trace_add (t, 0, 0, 0, 8 * KIB, false);
      if (r == 0)
        r = sofs_trace_add (t, 0, 0, (1 + (leaf - 1 - inner) * inner / (pages - 1 - inner)) * 8 * KIB,
                            8 * KIB, false);
      if (r == 0)
        r = sofs_trace_add (t, 0, 0, leaf * 8 * KIB, 8 * KIB, false);
    }
  return r;
}

static int
app_pgupdate (struct sofs_trace *t, double scale, uint64_t *seed)
{
  int r = sofs_trace_init (t, "pgupdate", 2);
  if (r < 0)
    return r;
  uint64_t pages = scaled (8192, scale, 128);
  t->obj_bytes[0] = pages * 8 * KIB;        /* the table */
  t->obj_bytes[1] = pages * 8 * KIB;        /* history, rewritten in order */
  for (uint64_t i = 0; r == 0 && i < pages; i++)
    {
      r = sofs_trace_add (t, 0, 0, rnd (seed, pages) * 8 * KIB, 8 * KIB, true);
      if (r == 0)
        r = sofs_trace_add (t, 1, 0, i * 8 * KIB, 8 * KIB, true);
    }
  for (uint64_t off = 0; r == 0 && off < t->obj_bytes[0]; off += 128 * KIB)
    r = sofs_trace_add (t, 0, 0, off, 128 * KIB, false);
  return r;
}

int
sofs_app_build (struct sofs_trace *t, const char *name, double scale,
                uint64_t seed)
{
  uint64_t s = seed ? seed : 1;
  if (scale <= 0)
    scale = 1;
  if (strcmp (name, "startup") == 0)
    return app_startup (t, scale, &s);
  if (strcmp (name, "logscan") == 0)
    return app_logscan (t, scale, &s);
  if (strcmp (name, "streams") == 0)
    return app_streams (t, scale, &s);
  if (strcmp (name, "btree") == 0)
    return app_btree (t, scale, &s);
  if (strcmp (name, "pgupdate") == 0)
    return app_pgupdate (t, scale, &s);
  fprintf (stderr, "ftl-sim: unknown SOFS case '%s' (%s, or --trace FILE)\n",
           name, names);
  return -EINVAL;
}
