/* sofs_run.c - one trace through the SOFS experiment (sofs.h): the layout
 * it leaves, a profiled back-to-back replay of its reads, a plan per
 * object from the merged profile under each planner applied by the FTL's
 * relocation (sofs_reconf.c; a fresh drive with the same history each
 * time), the replay again; and the fully sequential bound.  Every replay
 * starts on a settled drive (ftl_idle) at queue depth 1: its virtual time
 * is the sum of the reads' latencies; `saturated` is the busiest die's or
 * channel's work, what a deep queue would need. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_plan.h"
#include "ftl_profile.h"
#include "sofs.h"

static int
install_and_history (struct sim *s, const struct sofs_trace *t)
{
  int r = 0;
  uint64_t maxb = 0;
  for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
    {
      r = sim_create (s, sofs_oid (i));
      if (t->obj_bytes[i] > maxb)
        maxb = t->obj_bytes[i];
    }
  uint64_t ch = t->install_chunk;
  if (t->install_interleave)
    for (uint64_t off = 0; r == 0 && off < maxb; off += ch)
      for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
        {
          if (off < t->obj_bytes[i])
            r = sim_write (s, sofs_oid (i), off,
                           t->obj_bytes[i] - off < ch ? t->obj_bytes[i] - off : ch);
        }
  else
    for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
      for (uint64_t off = 0; r == 0 && off < t->obj_bytes[i]; off += ch)
        r = sim_write (s, sofs_oid (i), off,
                       t->obj_bytes[i] - off < ch ? t->obj_bytes[i] - off : ch);
  for (size_t k = 0; r == 0 && k < t->n; k++)
    if (t->r[k].write)
      r = sim_write (s, sofs_oid (t->r[k].obj), t->r[k].off, t->r[k].len);
  if (r == -ENOSPC)
    fprintf (stderr, "ftl-sim: SOFS case %s does not fit the drive: give "
             "--capacity more\n", t->name);
  return r;
}

int
sofs_settle (struct sim *s)
{
  ftl_error err = { { 0 } };
  int r = ftl_idle (s->ftl, SOFS_SETTLE_NS, &err);
  if (r == 0)
    r = ftl_idle (s->ftl, SOFS_SETTLE_NS, &err);
  if (r < 0)
    fprintf (stderr, "ftl-sim: idle before a replay: %s\n", err.msg);
  return r;
}

/* The reads back to back; bound_off (not NULL) relocates read i there in
 * the bound's object. */
static int
replay (struct sim *s, const struct sofs_trace *t, ftl_profile_t *prof,
        const uint64_t *bound_off, struct sofs_row *row)
{
  struct ftl_stats st0, st1;
  int r = sofs_settle (s);
  if (r == 0)
    {
      ftl_reset_stats (s->ftl);
      r = sim_stats (s, &st0);
    }
  size_t ri = 0;
  for (size_t k = 0; r == 0 && k < t->n; k++)
    {
      const struct sofs_req *q = &t->r[k];
      if (!q->replay)
        continue;
      if (prof)
        ftl_profile_record (prof, q->stream, SIM_PID, sofs_oid (q->obj), q->off,
                            q->len, k);
      if (bound_off)
        r = sim_read (s, SOFS_BOUND_OID, bound_off[ri], q->len);
      else
        r = sim_read (s, sofs_oid (q->obj), q->off, q->len);
      ri++;
      row->reads++;
      row->read_bytes += q->len;
    }
  if (r == 0)
    r = sim_stats (s, &st1);
  if (r < 0)
    return r;
  row->replay_ns = st1.virtual_time_ns - st0.virtual_time_ns;
  row->saturated_ns = st1.busiest_die_ns > st1.busiest_channel_ns
    ? st1.busiest_die_ns : st1.busiest_channel_ns;
  row->nand_reads = st1.nand_reads;
  /* per host read request (the FTL's own ratio is per 4 KiB sector) */
  row->nand_per_read = row->reads ? (double) st1.nand_reads / (double) row->reads : 0;
  return 0;
}


/* ---- the sequential bound: each read's bytes on pages of their own, in
 * replay order (SOFS's "places all LBNs sequentially") ---- */
static int
bound_layout (struct sim *s, const struct sofs_trace *t, uint64_t **offs)
{
  size_t nr = 0;
  for (size_t k = 0; k < t->n; k++)
    nr += t->r[k].replay;
  uint64_t *o = malloc ((nr + 1) * sizeof *o);
  if (!o)
    return -ENOMEM;
  uint64_t page = s->info.page_size, cur = 0;
  size_t i = 0;
  int r = sim_create (s, SOFS_BOUND_OID);
  for (size_t k = 0; r == 0 && k < t->n; k++)
    if (t->r[k].replay)
      {
        o[i++] = cur;
        cur += (t->r[k].len + page - 1) / page * page;
      }
  if (r == 0 && cur > s->cap_sectors * 4096 / 10 * 8)
    {
      fprintf (stderr, "ftl-sim: the sequential bound of %s needs %llu MiB: "
               "give --capacity more or fewer reads\n", t->name,
               (unsigned long long) (cur >> 20));
      r = -ENOSPC;
    }
  for (uint64_t off = 0; r == 0 && off < cur; off += 1 << 20)
    r = sim_write (s, SOFS_BOUND_OID, off, cur - off < (1 << 20) ? cur - off : 1 << 20);
  if (r < 0)
    {
      free (o);
      return r;
    }
  *offs = o;
  return 0;
}


static int
fresh_drive (struct sim *s, const struct sim_opts *o, const struct sofs_trace *t,
             const char *phase)
{
  int r = sim_open (s, o);
  if (r == 0)
    {
      sim_phase (s, phase, 0);
      r = install_and_history (s, t);
    }
  return r;
}

int
sofs_run (const struct sim_opts *o, const struct sofs_trace *t, FILE *csv,
          bool header, FILE *json)
{
  static const enum ftl_plan_kind kinds[] = { FTL_PLAN_SOFS, FTL_PLAN_CHAIN };
  enum { NK = sizeof kinds / sizeof kinds[0] };
  struct sofs_row before = { .layout = "before" }, after[NK], seq = { .layout = "sequential" };
  struct sofs_graph pg = { 0 };
  struct ftl_profile_counters pc = { 0 };
  ftl_profile_t *prof = NULL;
  ftl_error err = { { 0 } };
  struct sim s;
  int r;

  memset (after, 0, sizeof after);
  uint32_t streams = 1;
  for (size_t k = 0; k < t->n; k++)
    if (t->r[k].stream + 1 > streams)
      streams = t->r[k].stream + 1;
  struct ftl_profile_config pcfg;
  ftl_profile_config_defaults (&pcfg);
  pcfg.streams = streams > 1024 ? 1024 : streams;
  /* --sofs-edges: the whole table, shared by the streams */
  uint32_t table = o->sofs_edges ? o->sofs_edges : 1u << 17;
  pcfg.edges_per_stream = (table + pcfg.streams - 1) / pcfg.streams;
  if (pcfg.edges_per_stream < 16)
    pcfg.edges_per_stream = 16;
  pcfg.max_objects = t->nobj + 8;
  pcfg.unit_bytes = SOFS_UNIT;
  r = ftl_profile_create (&pcfg, &prof, &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: profiler: %s\n", err.msg);
      return r;
    }
  ftl_profile_set_enabled (prof, true);
  /* 1. the layout the history left, profiled while replayed */
  r = fresh_drive (&s, o, t, "sofs-before");
  if (r == 0)
    r = replay (&s, t, prof, NULL, &before);
  sim_close (&s);
  if (r == 0)
    {
      ftl_profile_get_counters (prof, &pc);
      r = sofs_graph_build (prof, t, &pg);
    }
  /* 2. each planner: the same history, reconfigured, replayed */
  for (int k = 0; r == 0 && k < NK; k++)
    {
      after[k].layout = ftl_plan_kind_name (kinds[k]);
      r = fresh_drive (&s, o, t, after[k].layout);
      if (r == 0)
        r = sofs_reconfigure (&s, t, &pg, kinds[k], &after[k]);
      if (r == 0)
        r = replay (&s, t, NULL, NULL, &after[k]);
      sim_close (&s);
    }
  /* 2b. the chain plan, then GC pressure, GC keeping the layout or not */
  struct sofs_row press[2];
  memset (press, 0, sizeof press);
  int npress = o->sofs_gc_pressure ? 2 : 0;
  for (int k = 0; r == 0 && k < npress; k++)
    {
      struct sim_opts po = *o;
      po.cfg.gc_ignores_layout = k == 1;
      po.cfg.wl_threshold = 4;
      press[k].layout = k == 0 ? "chain+gc-kept" : "chain+gc-ignored";
      r = fresh_drive (&s, &po, t, press[k].layout);
      if (r == 0)
        r = sofs_reconfigure (&s, t, &pg, FTL_PLAN_CHAIN, &press[k]);
      if (r == 0)
        r = sofs_gc_pressure (&s);
      if (r == 0)
        r = replay (&s, t, NULL, NULL, &press[k]);
      sim_close (&s);
    }
  /* 3. the fully sequential bound */
  uint64_t *boff = NULL;
  if (r == 0)
    {
      r = sim_open (&s, o);
      if (r == 0)
        r = bound_layout (&s, t, &boff);
      if (r == 0)
        r = replay (&s, t, NULL, boff, &seq);
      sim_close (&s);
    }
  if (r == 0)
    {
      if (header && csv)
        sofs_csv_header (csv);
      sofs_emit (csv, json, t, &before, &before, &seq, &pc, &pg);
      for (int k = 0; k < NK; k++)
        sofs_emit (csv, json, t, &after[k], &before, &seq, &pc, &pg);
      for (int k = 0; k < npress; k++)
        sofs_emit (csv, json, t, &press[k], &before, &seq, &pc, &pg);
      sofs_emit (csv, json, t, &seq, &before, &seq, &pc, &pg);
      if (csv)
        fflush (csv);
    }
  free (boff);
  sofs_graph_free (&pg);
  ftl_profile_destroy (prof);
  return r;
}
