/* workloads.c - synthetic workload generators of ftl-sim:
 *   rand        uniform random requests over the block volume
 *   zipf        Zipf-distributed (theta) requests, hot keys scattered
 *   seq         sequential requests, wrapping at the end of the span
 *   objects     W writers create objects of random size in bs requests;
 *               random whole objects are deleted above the fill target
 *               (exofs-like metadata with --exofs-inode-bytes too)
 *   delrewrite  4 writers fill with one file each, 2 files are deleted,
 *               2 writers write the same amount again (OSSD slides); with
 *               --exofs-inode-bytes, the metadata exofs adds (exofs.c)
 * --read-pct turns rand/zipf/seq/objects into read/write mixes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const char *const names[] = {
  [WL_RAND] = "rand", [WL_ZIPF] = "zipf", [WL_SEQ] = "seq",
  [WL_OBJECTS] = "objects", [WL_DELREWRITE] = "delrewrite", [WL_MSR] = "msr",
  [WL_NONE] = "none", [WL_SOFS] = "sofs",
};

const char *
wl_name (enum sim_workload w)
{
  return (unsigned) w <= WL_SOFS ? names[w] : "?";
}

int
wl_parse (const char *name, enum sim_workload *out)
{
  for (unsigned i = 0; i <= WL_SOFS; i++)
    if (strcmp (name, names[i]) == 0)
      {
        *out = (enum sim_workload) i;
        return 0;
      }
  fprintf (stderr, "ftl-sim: unknown workload '%s' (rand, zipf, seq, "
           "objects, delrewrite, msr, none, sofs)\n", name);
  return -EINVAL;
}

/* ---- Zipf (Gray et al., "Quickly generating billion-record synthetic
 * databases"), scrambled so hot items are spread over the volume ---- */
int
zipf_init (struct zipf *z, uint64_t n, double theta)
{
  if (theta <= 0 || theta >= 1 || n < 2)
    {
      fprintf (stderr, "ftl-sim: zipf theta must be in (0, 1) (got %g)\n",
               theta);
      return -EINVAL;
    }
  double zeta2 = 1 + pow (0.5, theta), zn = 0;
  for (uint64_t i = 1; i <= n; i++)
    zn += 1.0 / pow ((double) i, theta);
  z->n = n;
  z->theta = theta;
  z->zetan = zn;
  z->alpha = 1.0 / (1.0 - theta);
  z->eta = (1 - pow (2.0 / (double) n, 1 - theta)) / (1 - zeta2 / zn);
  z->half_pow = 1 + pow (0.5, theta);
  return 0;
}

uint64_t
zipf_pick (const struct zipf *z, double u)
{
  double uz = u * z->zetan;
  uint64_t rank;
  if (uz < 1)
    rank = 0;
  else if (uz < z->half_pow)
    rank = 1;
  else
    rank = (uint64_t) ((double) z->n * pow (z->eta * u - z->eta + 1,
                                            z->alpha));
  if (rank >= z->n)
    rank = z->n - 1;
  /* scramble: FNV-1a of the rank */
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 8; i++)
    {
      h ^= (rank >> (i * 8)) & 0xff;
      h *= 0x100000001b3ull;
    }
  return h % z->n;
}

static uint64_t
zipf_next (struct zipf *z, struct sim *s)
{
  return zipf_pick (z, sim_rand01 (s));
}

/* Number of requests of the measured phase. */
static uint64_t
wl_ops (struct sim *s)
{
  const struct sim_opts *o = s->o;
  if (o->ops)
    return o->ops;
  double wfrac = 1 - o->read_pct / 100.0;
  if (wfrac <= 0)
    wfrac = 1;   /* pure reads: as many reads as writes would have been */
  return (uint64_t) (o->writes_x * (double) s->cap_sectors * SIM_SECTOR
                     / o->bs / wfrac);
}

/* Fill the addressed span once so that reads hit mapped sectors. */
static int
fill_span (struct sim *s, uint64_t units)
{
  uint64_t bs = s->o->bs, step = bs < 131072 ? 131072 / bs : 1;
  sim_phase (s, "fill", units / step + 1);
  for (uint64_t u = 0; u < units; u += step)
    {
      uint64_t n = units - u < step ? units - u : step;
      int r = sim_write (s, SIM_VOL_OID, u * bs, n * bs);
      if (r < 0)
        return r;
    }
  return 0;
}

static int
run_volume (struct sim *s)
{
  const struct sim_opts *o = s->o;
  int r = 0;
  if (!s->vol_sectors && (r = sim_make_volume (s, s->cap_sectors)) < 0)
    return r;
  uint64_t units = (uint64_t) (o->span * (double) s->vol_sectors)
    * SIM_SECTOR / o->bs;
  if (units < 2)
    {
      fprintf (stderr, "ftl-sim: span of %llu requests is too small\n",
               (unsigned long long) units);
      return -EINVAL;
    }
  if (o->read_pct > 0 && !o->precondition && (r = fill_span (s, units)) < 0)
    return r;
  struct zipf z = { 0 };
  if (o->wl == WL_ZIPF && (r = zipf_init (&z, units, o->zipf_theta)) < 0)
    return r;
  uint64_t n = wl_ops (s), seq = 0;
  double rp = o->read_pct / 100.0;
  /* --warmup-ops: the same requests, not measured (fills the mapping
   * cache and creates the translation pages) */
  sim_phase (s, "warm-up", o->warmup_ops);
  for (uint64_t i = 0; i < o->warmup_ops + n && r == 0; i++)
    {
      if (i == o->warmup_ops)
        {
          if ((r = sim_measure_begin (s)) < 0)
            return r;
          sim_phase (s, wl_name (o->wl), n);
        }
      uint64_t u;
      if (o->wl == WL_ZIPF)
        u = zipf_next (&z, s);
      else if (o->wl == WL_SEQ)
        u = seq++ % units;
      else
        u = sim_rand (s) % units;
      bool rd = rp > 0 && sim_rand01 (s) < rp;
      r = rd ? sim_read (s, SIM_VOL_OID, u * o->bs, o->bs)
        : sim_write (s, SIM_VOL_OID, u * o->bs, o->bs);
      if (o->idle_every && i % o->idle_every == o->idle_every - 1)
        ftl_idle (s->ftl, o->idle_ns, NULL);
    }
  return r;
}

/* ---- object scenarios ---- */
struct live_obj
{
  uint64_t oid, size;
};

struct writer
{
  uint64_t oid, size, done;   /* object being written */
};

static int
writer_start (struct sim *s, struct writer *w, uint64_t *next_oid,
              uint64_t size)
{
  w->oid = (*next_oid)++;
  w->size = size;
  w->done = 0;
  return exofs_create (s, w->oid);
}

static uint64_t
rand_size (struct sim *s)
{
  const struct sim_opts *o = s->o;
  uint64_t lo = o->obj_min, hi = o->obj_max > lo ? o->obj_max : lo;
  uint64_t sz = lo + sim_rand (s) % (hi - lo + 1);
  return (sz + o->bs - 1) / o->bs * o->bs;
}

static int
run_objects (struct sim *s)
{
  const struct sim_opts *o = s->o;
  uint32_t nw = o->writers ? o->writers : 4;
  struct writer *w = calloc (nw, sizeof *w);
  size_t cap = 1024, nlive = 0;
  struct live_obj *live = malloc (cap * sizeof *live);
  uint64_t next_oid = o->exofs_inode_bytes ? 0x10003 : 100, used = 0;
  uint64_t cap_bytes = s->cap_sectors * SIM_SECTOR;
  double rp = o->read_pct / 100.0;
  int r = w && live ? 0 : -ENOMEM;
  if (r == 0)
    r = exofs_mkfs (s);
  for (uint32_t i = 0; i < nw && r == 0; i++)
    r = writer_start (s, &w[i], &next_oid, rand_size (s));
  if (r == 0)
    r = sim_measure_begin (s);
  uint64_t n = o->ops ? o->ops
    : (uint64_t) (o->writes_x * (double) cap_bytes / o->bs);
  sim_phase (s, "objects", n);
  for (uint64_t i = 0; i < n && r == 0; i++)
    {
      if (rp > 0 && nlive && sim_rand01 (s) < rp)
        {
          struct live_obj *l = &live[sim_rand (s) % nlive];
          uint64_t off = sim_rand (s) % (l->size / o->bs) * o->bs;
          r = sim_read (s, l->oid, off, o->bs);
          continue;
        }
      /* delete whole objects above the fill target (informed cleaning) */
      while (r == 0 && nlive
             && (double) (used + nw * o->bs) > o->fill * (double) cap_bytes)
        {
          size_t k = sim_rand (s) % nlive;
          r = exofs_unlink (s, live[k].oid);
          used -= live[k].size;
          live[k] = live[--nlive];
        }
      struct writer *x = &w[sim_rand (s) % nw];
      r = r ? r : exofs_write (s, x->oid, x->done, o->bs);
      if (r == -ENOSPC && nlive)
        {
          r = 0;   /* drive full: the delete loop frees room next time */
          continue;
        }
      x->done += o->bs;
      used += o->bs;
      if (r == 0 && x->done >= x->size)
        {
          if (nlive == cap)
            {
              struct live_obj *nl = realloc (live, 2 * cap * sizeof *nl);
              if (!nl)
                {
                  r = -ENOMEM;
                  break;
                }
              live = nl;
              cap *= 2;
            }
          live[nlive++] = (struct live_obj) { x->oid, x->size };
          r = writer_start (s, x, &next_oid, rand_size (s));
        }
    }
  if (r == -ENOMEM)
    fprintf (stderr, "ftl-sim: out of memory in the objects workload\n");
  else if (r == -ENOSPC)
    fprintf (stderr, "ftl-sim: drive full with no object left to delete "
             "(lower --fill or raise --obj-max)\n");
  free (w);
  free (live);
  return r;
}

/* Interleave `nw` writers (random order per request) until each has
 * written its file. */
static int
write_files (struct sim *s, struct writer *w, uint32_t nw)
{
  const struct sim_opts *o = s->o;
  uint32_t left = nw;
  int r = 0;
  while (left && r == 0)
    {
      struct writer *x = &w[sim_rand (s) % nw];
      if (x->done >= x->size)
        continue;
      r = exofs_write (s, x->oid, x->done, o->bs);
      x->done += o->bs;
      if (x->done >= x->size)
        left--;
    }
  return r;
}

static int
run_delrewrite (struct sim *s)
{
  const struct sim_opts *o = s->o;
  uint64_t cap_bytes = s->cap_sectors * SIM_SECTOR;
  uint64_t file = (uint64_t) (o->fill * (double) cap_bytes / 4) / o->bs * o->bs;
  if (o->fill > 0.66)
    {
      fprintf (stderr, "ftl-sim: delrewrite needs --fill <= 0.66 (the "
               "rewrite phase ends at 1.5 x fill)\n");
      return -EINVAL;
    }
  struct writer w[4];
  /* exofs numbers objects after its super block, device table and root */
  uint64_t next_oid = o->exofs_inode_bytes ? 0x10003 : 100;
  int r = sim_measure_begin (s);   /* the whole scenario is measured */
  if (r == 0)
    r = exofs_mkfs (s);
  for (int i = 0; i < 4 && r == 0; i++)
    r = writer_start (s, &w[i], &next_oid, file);
  if (r < 0)
    return r;
  sim_phase (s, "write4", 4 * file / o->bs);
  if ((r = write_files (s, w, 4)) < 0)
    return r;
  sim_phase (s, "delete2", 2);
  if ((r = exofs_unlink (s, w[0].oid)) < 0
      || (r = exofs_unlink (s, w[2].oid)) < 0)
    return r;
  sim_phase (s, "rewrite2", 4 * file / o->bs);
  for (int i = 0; i < 2 && r == 0; i++)
    r = writer_start (s, &w[i], &next_oid, 2 * file);
  if (r == 0)
    r = write_files (s, w, 2);
  return r;
}

int
wl_run (struct sim *s)
{
  switch (s->o->wl)
    {
    case WL_RAND:
    case WL_ZIPF:
    case WL_SEQ:
      return run_volume (s);
    case WL_OBJECTS:
      return run_objects (s);
    case WL_DELREWRITE:
      return run_delrewrite (s);
    case WL_MSR:
      return trace_msr_replay (s, s->o->trace);
    case WL_NONE:
      return sim_measure_begin (s);
    case WL_SOFS:
      break;   /* sofs_main runs it, several drives in turn */
    }
  return -EINVAL;
}
