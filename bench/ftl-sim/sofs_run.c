/* sofs_run.c - one trace through the SOFS experiment (sofs.h): the layout
 * it leaves, a profiled back-to-back replay of its reads, a plan per
 * object from the merged profile under each planner, the plan applied by
 * the FTL's relocation (ftl_relocate, GC's copy path; a fresh drive with
 * the same history each time), the replay again; and the fully sequential bound.  Every replay
 * starts on a settled drive (ftl_idle) at queue depth 1: its virtual time
 * is the sum of the reads' latencies; `saturated` is the busiest die's or
 * channel's work, what a deep queue would need. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftl_plan.h"
#include "ftl_profile.h"
#include "sofs.h"

#define SETTLE_NS 200000000ull   /* idle before a replay: 0.2 s virtual */
#define UNIT 8192ull             /* the profile's unit: a heap page */

struct row
{
  const char *layout;
  uint64_t reads, read_bytes;
  uint64_t replay_ns, saturated_ns;
  uint64_t nand_reads;
  double nand_per_read;
  /* reconfiguration (planner rows) */
  uint64_t moved_units, gaps, pads, filler_units;
  uint64_t reconfig_ns, reconfig_programs, reconfig_gc_copies;
  uint64_t plan_total_w, plan_adjacent_w, plan_same_page_w;
};

static uint64_t
oid_of (uint32_t obj)
{
  return SOFS_OID0 + obj;
}

static int
install_and_history (struct sim *s, const struct sofs_trace *t)
{
  int r = 0;
  uint64_t maxb = 0;
  for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
    {
      r = sim_create (s, oid_of (i));
      if (t->obj_bytes[i] > maxb)
        maxb = t->obj_bytes[i];
    }
  uint64_t ch = t->install_chunk;
  if (t->install_interleave)
    for (uint64_t off = 0; r == 0 && off < maxb; off += ch)
      for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
        {
          if (off < t->obj_bytes[i])
            r = sim_write (s, oid_of (i), off,
                           t->obj_bytes[i] - off < ch ? t->obj_bytes[i] - off : ch);
        }
  else
    for (uint32_t i = 0; r == 0 && i < t->nobj; i++)
      for (uint64_t off = 0; r == 0 && off < t->obj_bytes[i]; off += ch)
        r = sim_write (s, oid_of (i), off,
                       t->obj_bytes[i] - off < ch ? t->obj_bytes[i] - off : ch);
  for (size_t k = 0; r == 0 && k < t->n; k++)
    if (t->r[k].write)
      r = sim_write (s, oid_of (t->r[k].obj), t->r[k].off, t->r[k].len);
  if (r == -ENOSPC)
    fprintf (stderr, "ftl-sim: SOFS case %s does not fit the drive: give "
             "--capacity more\n", t->name);
  return r;
}

static int
settle (struct sim *s)
{
  ftl_error err = { { 0 } };
  int r = ftl_idle (s->ftl, SETTLE_NS, &err);
  if (r == 0)
    r = ftl_idle (s->ftl, SETTLE_NS, &err);
  if (r < 0)
    fprintf (stderr, "ftl-sim: idle before a replay: %s\n", err.msg);
  return r;
}

/* The reads back to back; bound_off (not NULL) relocates read i there in
 * the bound's object. */
static int
replay (struct sim *s, const struct sofs_trace *t, ftl_profile_t *prof,
        const uint64_t *bound_off, struct row *row)
{
  struct ftl_stats st0, st1;
  int r = settle (s);
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
        ftl_profile_record (prof, q->stream, SIM_PID, oid_of (q->obj), q->off,
                            q->len, k);
      if (bound_off)
        r = sim_read (s, SOFS_BOUND_OID, bound_off[ri], q->len);
      else
        r = sim_read (s, oid_of (q->obj), q->off, q->len);
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

/* ---- plans ---- */
struct obj_graph
{
  struct ftl_plan_edge *e;
  size_t n, cap;
  uint64_t weight;
};

struct profile_graph
{
  struct obj_graph *g;        /* per trace object */
  uint32_t nobj;
  uint64_t edges_total, cross_object;
};

static int
profile_graph_build (ftl_profile_t *prof, const struct sofs_trace *t,
                     struct profile_graph *pg)
{
  ftl_error err = { { 0 } };
  size_t n = 0, total = 0;
  memset (pg, 0, sizeof *pg);
  int r = ftl_profile_edges (prof, NULL, 0, &n, &total, &err);
  struct ftl_profile_edge *e = r == 0 ? malloc ((total + 1) * sizeof *e) : NULL;
  pg->g = calloc (t->nobj, sizeof *pg->g);
  pg->nobj = t->nobj;
  if (r == 0 && (!e || !pg->g))
    r = -ENOMEM;
  if (r == 0)
    r = ftl_profile_edges (prof, e, total, &n, &total, &err);
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: reading the profile: %s\n",
               err.msg[0] ? err.msg : strerror (-r));
      free (e);
      return r;
    }
  pg->edges_total = total;
  for (size_t i = 0; i < n; i++)
    {
      if (e[i].from.oid != e[i].to.oid || e[i].from.oid < SOFS_OID0
          || e[i].from.oid - SOFS_OID0 >= t->nobj)
        {
          pg->cross_object += e[i].weight;
          continue;
        }
      struct obj_graph *g = &pg->g[e[i].from.oid - SOFS_OID0];
      if (g->n == g->cap)
        {
          size_t cap = g->cap ? g->cap * 2 : 256;
          struct ftl_plan_edge *x = realloc (g->e, cap * sizeof *x);
          if (!x)
            {
              free (e);
              return -ENOMEM;
            }
          g->e = x;
          g->cap = cap;
        }
      g->e[g->n++] = (struct ftl_plan_edge) { e[i].from.unit, e[i].to.unit,
                                              e[i].weight, e[i].intra_weight };
      g->weight += e[i].weight;
    }
  free (e);
  return 0;
}

static void
profile_graph_free (struct profile_graph *pg)
{
  for (uint32_t i = 0; pg->g && i < pg->nobj; i++)
    free (pg->g[i].e);
  free (pg->g);
  memset (pg, 0, sizeof *pg);
}

static int
flush (struct sim *s)
{
  ftl_error err = { { 0 } };
  int r = ftl_flush (s->ftl, &err);
  if (r < 0)
    fprintf (stderr, "ftl-sim: flush after reconfiguration: %s\n", err.msg);
  return r;
}

/* ftl_relocate the whole order, giving the drive idle time (background GC)
 * whenever it stops for free blocks */
static int
relocate_all (struct sim *s, uint64_t oid, const uint64_t *order, size_t n)
{
  ftl_error err = { { 0 } };
  size_t next = 0;
  int stalls = 0;
  while (next < n)
    {
      size_t was = next;
      int r = ftl_relocate (s->ftl, SIM_PID, oid, order, n, UNIT, 0, &next, &err);
      if (r == -EAGAIN)
        {
          stalls = next == was ? stalls + 1 : 0;
          if (stalls > 4)
            {
              fprintf (stderr, "ftl-sim: relocation of object %llu makes no "
                       "progress: %s\n", (unsigned long long) oid, err.msg);
              return r;
            }
          r = ftl_idle (s->ftl, SETTLE_NS, &err);
        }
      if (r < 0)
        {
          fprintf (stderr, "ftl-sim: relocation of object %llu: %s\n",
                   (unsigned long long) oid, err.msg);
          return r;
        }
    }
  return 0;
}

/* Apply `kind`'s plan of every profiled object with ftl_relocate (the
 * drive's own relocation: GC's copy path): units in plan order, gaps
 * filled with the object's units not in the plan (cold ones) or, when
 * none is left, padded; each object starts on a page. */
static int
reconfigure (struct sim *s, const struct sofs_trace *t,
             const struct profile_graph *pg, enum ftl_plan_kind kind,
             struct row *row)
{
  ftl_error err = { { 0 } };
  struct ftl_stats st0, st1;
  uint32_t upp = s->info.page_size / UNIT;
  int r = settle (s);
  if (r == 0)
    {
      ftl_reset_stats (s->ftl);
      r = sim_stats (s, &st0);
    }
  /* objects by profile weight, heaviest first */
  uint32_t *order = malloc ((t->nobj + 1) * sizeof *order);
  if (!order)
    return -ENOMEM;
  uint32_t no = 0;
  for (uint32_t i = 0; i < t->nobj; i++)
    if (pg->g[i].n)
      order[no++] = i;
  for (uint32_t a = 1; a < no; a++)
    for (uint32_t b = a; b > 0 && pg->g[order[b]].weight > pg->g[order[b - 1]].weight; b--)
      {
        uint32_t x = order[b];
        order[b] = order[b - 1];
        order[b - 1] = x;
      }
  for (uint32_t k = 0; r == 0 && k < no; k++)
    {
      uint32_t obj = order[k];
      struct ftl_plan plan;
      r = ftl_plan_build (kind, pg->g[obj].e, pg->g[obj].n, upp, &plan, &err);
      if (r < 0)
        {
          fprintf (stderr, "ftl-sim: planning object %u: %s\n", obj, err.msg);
          break;
        }
      row->plan_total_w += plan.total_weight;
      row->plan_adjacent_w += plan.adjacent_weight;
      row->plan_same_page_w += plan.same_page_weight;
      uint64_t nunits = (t->obj_bytes[obj] + UNIT - 1) / UNIT;
      uint8_t *planned = calloc (nunits + 1, 1);
      if (!planned)
        {
          ftl_plan_free (&plan);
          r = -ENOMEM;
          break;
        }
      for (size_t i = 0; i < plan.n; i++)
        if (plan.order[i] != FTL_PLAN_GAP && plan.order[i] < nunits)
          planned[plan.order[i]] = 1;
      /* gaps: the object's units not in the plan (cold ones) fill them;
       * when none is left the page is padded (FTL_RELOCATE_GAP) */
      uint64_t *ord = malloc ((plan.n + 1) * sizeof *ord);
      if (!ord)
        {
          free (planned);
          ftl_plan_free (&plan);
          r = -ENOMEM;
          break;
        }
      uint64_t cold = 0;
      size_t m = 0;
      for (size_t i = 0; i < plan.n; i++)
        {
          uint64_t u = plan.order[i];
          if (u != FTL_PLAN_GAP)
            {
              if (u < nunits)
                {
                  ord[m++] = u;
                  row->moved_units++;
                }
              continue;
            }
          row->gaps++;
          while (cold < nunits && planned[cold])
            cold++;
          if (cold < nunits)
            {
              planned[cold] = 1;
              ord[m++] = cold;
              row->filler_units++;
            }
          else
            {
              ord[m++] = FTL_RELOCATE_GAP;
              row->pads++;
            }
        }
      r = relocate_all (s, oid_of (obj), ord, m);
      free (ord);
      free (planned);
      ftl_plan_free (&plan);
    }
  free (order);
  if (r == 0)
    r = flush (s);
  if (r == 0)
    r = sim_stats (s, &st1);
  if (r == 0)
    {
      row->reconfig_ns = st1.virtual_time_ns - st0.virtual_time_ns;
      row->reconfig_programs = st1.nand_programs;
      row->reconfig_gc_copies = st1.gc_valid_copies;
    }
  return r;
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

/* ---- output ---- */
static void
csv_header (FILE *f)
{
  fprintf (f, "case,layout,reads,read_mib,replay_ms,saturated_ms,mbps_qd1,"
           "mbps_saturated,nand_reads,nand_reads_per_read,speedup_vs_before,"
           "replay_vs_sequential,moved_units,filler_units,gaps,pads,"
           "reconfig_ms,reconfig_programs,reconfig_gc_copies,plan_adjacent_frac,"
           "plan_same_page_frac\n");
}

static void
emit (FILE *csv, FILE *json, const struct sofs_trace *t, const struct row *w,
      const struct row *before, const struct row *seq,
      const struct ftl_profile_counters *pc, const struct profile_graph *pg)
{
  double ms = w->replay_ns / 1e6, sat = w->saturated_ns / 1e6;
  double mib = w->read_bytes / 1048576.0;
  double adj = w->plan_total_w ? (double) w->plan_adjacent_w / (double) w->plan_total_w : 0;
  double spg = w->plan_total_w ? (double) w->plan_same_page_w / (double) w->plan_total_w : 0;
  double speed = w->replay_ns ? (double) before->replay_ns / (double) w->replay_ns : 0;
  double vsseq = seq->replay_ns ? (double) w->replay_ns / (double) seq->replay_ns : 0;
  if (csv)
    fprintf (csv, "%s,%s,%llu,%.3f,%.3f,%.3f,%.1f,%.1f,%llu,%.4f,%.4f,%.4f,"
             "%llu,%llu,%llu,%llu,%.3f,%llu,%llu,%.4f,%.4f\n", t->name,
             w->layout, (unsigned long long) w->reads, mib, ms, sat,
             ms > 0 ? mib / (ms / 1e3) : 0, sat > 0 ? mib / (sat / 1e3) : 0,
             (unsigned long long) w->nand_reads, w->nand_per_read, speed, vsseq,
             (unsigned long long) w->moved_units,
             (unsigned long long) w->filler_units,
             (unsigned long long) w->gaps, (unsigned long long) w->pads,
             w->reconfig_ns / 1e6, (unsigned long long) w->reconfig_programs,
             (unsigned long long) w->reconfig_gc_copies, adj, spg);
  if (json)
    fprintf (json, "{\"case\": \"%s\", \"layout\": \"%s\", \"reads\": %llu, "
             "\"read_mib\": %.3f, \"replay_ms\": %.3f, \"saturated_ms\": %.3f, "
             "\"nand_reads_per_read\": %.4f, \"speedup_vs_before\": %.4f, "
             "\"replay_vs_sequential\": %.4f, \"moved_units\": %llu, "
             "\"reconfig_ms\": %.3f, \"plan_adjacent_frac\": %.4f, "
             "\"profile\": {\"reads\": %llu, \"transitions\": %llu, "
             "\"table_entries\": %llu, \"agings\": %llu, \"edges_merged\": %llu, "
             "\"cross_object_weight\": %llu, \"memory_bytes\": %llu}}\n",
             t->name, w->layout, (unsigned long long) w->reads, mib, ms, sat,
             w->nand_per_read, speed, vsseq,
             (unsigned long long) w->moved_units, w->reconfig_ns / 1e6, adj,
             (unsigned long long) pc->reads, (unsigned long long) pc->transitions,
             (unsigned long long) pc->edges, (unsigned long long) pc->agings,
             (unsigned long long) pg->edges_total,
             (unsigned long long) pg->cross_object,
             (unsigned long long) pc->memory_bytes);
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
  struct row before = { .layout = "before" }, after[NK], seq = { .layout = "sequential" };
  struct profile_graph pg = { 0 };
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
  pcfg.unit_bytes = UNIT;
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
      r = profile_graph_build (prof, t, &pg);
    }
  /* 2. each planner: the same history, reconfigured, replayed */
  for (int k = 0; r == 0 && k < NK; k++)
    {
      after[k].layout = ftl_plan_kind_name (kinds[k]);
      r = fresh_drive (&s, o, t, after[k].layout);
      if (r == 0)
        r = reconfigure (&s, t, &pg, kinds[k], &after[k]);
      if (r == 0)
        r = replay (&s, t, NULL, NULL, &after[k]);
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
        csv_header (csv);
      emit (csv, json, t, &before, &before, &seq, &pc, &pg);
      for (int k = 0; k < NK; k++)
        emit (csv, json, t, &after[k], &before, &seq, &pc, &pg);
      emit (csv, json, t, &seq, &before, &seq, &pc, &pg);
      if (csv)
        fflush (csv);
    }
  free (boff);
  profile_graph_free (&pg);
  ftl_profile_destroy (prof);
  return r;
}
