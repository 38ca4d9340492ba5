/* sofs_report.c - the SOFS experiment's output (sofs.h): a CSV row and a
 * JSON line per case and layout, with the ratios to the layout before and
 * to the sequential bound. */
#include <stdio.h>

#include "ftl_profile.h"
#include "sofs.h"

void
sofs_csv_header (FILE *f)
{
  fprintf (f, "case,layout,reads,read_mib,replay_ms,saturated_ms,mbps_qd1,"
           "mbps_saturated,nand_reads,nand_reads_per_read,speedup_vs_before,"
           "replay_vs_sequential,moved_units,filler_units,gaps,pads,"
           "reconfig_ms,reconfig_programs,reconfig_gc_copies,plan_adjacent_frac,"
           "plan_same_page_frac\n");
}

void
sofs_emit (FILE *csv, FILE *json, const struct sofs_trace *t, const struct sofs_row *w,
      const struct sofs_row *before, const struct sofs_row *seq,
      const struct ftl_profile_counters *pc, const struct sofs_graph *pg)
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
