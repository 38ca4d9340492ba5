/* cmd_profile.c - ossdctl profile: the drive's access profile (docs/sofs.md):
 * show its counters, newest reads and heaviest transitions; reset it;
 * switch recording on or off; apply plans; switch the automatic
 * relocation policy.  All need the admin right (the master key). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ossdctl.h"

static const char profile_usage[] =
  "usage: ossdctl [--json] profile show [--reads N] [--edges N]\n"
  "       ossdctl profile reset | on | off\n"
  "       ossdctl profile apply [--planner sofs|chain]\n"
  "       ossdctl profile auto on [--idle-ms N] [--min-gain PCT] | off\n"
  "The drive's record of host reads (object, offset, length, time, slot)\n"
  "and of the unit-to-unit transitions each slot makes, merged over the\n"
  "slots: show prints the counters, the N newest reads (default 32) and the\n"
  "N heaviest edges (default 256); reset forgets them; on / off switch\n"
  "recording; apply plans a new layout of every profiled object (planner\n"
  "chain by default, or SOFS's greedy) and queues its relocation, which the\n"
  "drive runs in the background while idle; an object whose plan was\n"
  "queued before, or that is already laid out as planned, is not moved\n"
  "again.  auto on: the drive does this by itself once the host has been\n"
  "quiet for N ms (default 10000) for every object whose plan cuts its\n"
  "modelled NAND page reads per transition by more than PCT %% (default\n"
  "20); the auto_* counters of show say what it considered, applied and\n"
  "skipped.  Start options: auto_relocate=on, auto_relocate_idle_ms=N,\n"
  "auto_relocate_min_gain=PCT.  The profile, the queued plans and the\n"
  "ledger of applied plans survive a restart of a file image\n"
  "(docs/sofs.md).\n";

static uint64_t
counter_of (const Ossd__ProfileResult *p, const char *k)
{
  for (size_t i = 0; i < p->n_counters; i++)
    if (strcmp (p->counters[i]->key, k) == 0)
      return p->counters[i]->value;
  return 0;
}

static void
print_vertex_json (const Ossd__ProfileVertex *v)
{
  printf ("{\"pid\": %" PRIu64 ", \"oid\": %" PRIu64 ", \"unit\": %" PRIu64 "}",
          v->pid, v->oid, v->unit);
}

static void
print_show (const struct ctl *c, const Ossd__ProfileResult *p)
{
  if (c->json)
    {
      printf ("{\"enabled\": %s, \"unit_bytes\": %u, \"edges_total\": %" PRIu64
              ", \"counters\": {", p->enabled ? "true" : "false", p->unit_bytes,
              p->edges_total);
      for (size_t i = 0; i < p->n_counters; i++)
        {
          printf ("%s", i ? ", " : "");
          json_string (stdout, p->counters[i]->key);
          printf (": %" PRIu64, p->counters[i]->value);
        }
      printf ("}, \"reads\": [");
      for (size_t i = 0; i < p->n_reads; i++)
        {
          const Ossd__ProfileRead *r = p->reads[i];
          printf ("%s{\"time_ns\": %" PRIu64 ", \"pid\": %" PRIu64 ", \"oid\": %"
                  PRIu64 ", \"offset\": %" PRIu64 ", \"length\": %" PRIu64
                  ", \"stream\": %u}", i ? ", " : "", r->time_ns, r->pid, r->oid,
                  r->offset, r->length, r->stream);
        }
      printf ("], \"edges\": [");
      for (size_t i = 0; i < p->n_edges; i++)
        {
          const Ossd__ProfileEdge *e = p->edges[i];
          printf ("%s{\"from\": ", i ? ", " : "");
          print_vertex_json (e->from);
          printf (", \"to\": ");
          print_vertex_json (e->to);
          printf (", \"weight\": %" PRIu64 "}", e->weight);
        }
      printf ("]}\n");
      return;
    }
  printf ("recording:     %s, units of %u bytes\n", p->enabled ? "on" : "off",
          p->unit_bytes);
  for (size_t i = 0; i < p->n_counters; i++)
    printf ("%-26s %" PRIu64 "\n", p->counters[i]->key, p->counters[i]->value);
  printf ("\nnewest reads (%zu):\n", p->n_reads);
  for (size_t i = 0; i < p->n_reads; i++)
    {
      const Ossd__ProfileRead *r = p->reads[i];
      char when[40];
      format_utc_ns (r->time_ns, when, sizeof when);
      printf ("  %s  stream %-4u %" PRIu64 ":%" PRIu64 "  offset %" PRIu64
              " length %" PRIu64 "\n", when, r->stream, r->pid, r->oid,
              r->offset, r->length);
    }
  printf ("\nheaviest transitions (%zu of %" PRIu64 "):\n", p->n_edges,
          p->edges_total);
  for (size_t i = 0; i < p->n_edges; i++)
    {
      const Ossd__ProfileEdge *e = p->edges[i];
      printf ("  %8" PRIu64 "  %" PRIu64 ":%" PRIu64 " unit %" PRIu64 " -> %" PRIu64
              ":%" PRIu64 " unit %" PRIu64 "\n", e->weight, e->from->pid,
              e->from->oid, e->from->unit, e->to->pid, e->to->oid, e->to->unit);
    }
}

int
cmd_profile (struct ctl *c, int argc, char **argv)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Profile pr = OSSD__PROFILE__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  ossd_t *h;

  if (argc < 1)
    {
      fputs (profile_usage, stderr);
      return 2;
    }
  const char *what = argv[0];
  if (strcmp (what, "show") == 0)
    {
      pr.action = OSSD__PROFILE_ACTION__PROFILE_SHOW;
      for (int i = 1; i < argc; i++)
        {
          if (strcmp (argv[i], "--json") == 0)
            continue;   /* main took it */
          uint32_t *dst = strcmp (argv[i], "--reads") == 0 ? &pr.max_reads
            : strcmp (argv[i], "--edges") == 0 ? &pr.max_edges : NULL;
          if (!dst || i + 1 == argc || parse_u32 (argv[i + 1], dst) < 0)
            {
              fprintf (stderr, "ossdctl profile show: %s '%s'\n%s",
                       dst ? "needs a number after" : "unexpected argument",
                       argv[i], profile_usage);
              return 2;
            }
          i++;
        }
    }
  else if (strcmp (what, "apply") == 0)
    {
      pr.action = OSSD__PROFILE_ACTION__PROFILE_APPLY;
      for (int i = 1; i < argc; i++)
        {
          if (strcmp (argv[i], "--json") == 0)
            continue;
          if (strcmp (argv[i], "--planner") != 0 || i + 1 == argc)
            {
              fprintf (stderr, "ossdctl profile apply: unexpected argument '%s'\n%s",
                       argv[i], profile_usage);
              return 2;
            }
          pr.planner = argv[++i];
        }
    }
  else if (strcmp (what, "auto") == 0)
    {
      pr.action = OSSD__PROFILE_ACTION__PROFILE_AUTO;
      if (argc < 2 || (strcmp (argv[1], "on") != 0 && strcmp (argv[1], "off") != 0))
        {
          fprintf (stderr, "ossdctl profile auto: 'on' or 'off'\n%s", profile_usage);
          return 2;
        }
      pr.auto_on = strcmp (argv[1], "on") == 0;
      for (int i = 2; i < argc; i++)
        {
          if (strcmp (argv[i], "--json") == 0)
            continue;
          uint32_t *dst = strcmp (argv[i], "--idle-ms") == 0 ? &pr.auto_idle_ms
            : strcmp (argv[i], "--min-gain") == 0 ? &pr.auto_min_gain_pct : NULL;
          if (!dst || !pr.auto_on || i + 1 == argc || parse_u32 (argv[i + 1], dst) < 0)
            {
              fprintf (stderr, "ossdctl profile auto: %s '%s'\n%s",
                       dst && pr.auto_on ? "needs a number after" : "unexpected argument",
                       argv[i], profile_usage);
              return 2;
            }
          i++;
        }
    }
  else
    {
      if (strcmp (what, "reset") == 0)
        pr.action = OSSD__PROFILE_ACTION__PROFILE_RESET;
      else if (strcmp (what, "on") == 0)
        pr.action = OSSD__PROFILE_ACTION__PROFILE_ENABLE;
      else if (strcmp (what, "off") == 0)
        pr.action = OSSD__PROFILE_ACTION__PROFILE_DISABLE;
      else
        {
          fprintf (stderr, "ossdctl profile: unknown action '%s'\n%s", what,
                   profile_usage);
          return 2;
        }
      static const char *const json_only[] = { "--json", NULL };
      if (ctl_flags ("profile", argc - 1, argv + 1, json_only, NULL) < 0)
        return 2;
    }
  req.body_case = OSSD__REQUEST__BODY_PROFILE;
  req.profile = &pr;
  if (!(h = ctl_connect (c)))
    return 1;
  int r = ossd_call (h, &req, &resp, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("profile", &err);
  const Ossd__ProfileResult *p = resp->profile;
  if (!p)
    {
      fprintf (stderr, "ossdctl: profile: the drive answered without a profile\n");
      ossd__response__free_unpacked (resp, NULL);
      return 1;
    }
  if (pr.action == OSSD__PROFILE_ACTION__PROFILE_SHOW)
    print_show (c, p);
  else if (pr.action == OSSD__PROFILE_ACTION__PROFILE_APPLY)
    {
      uint64_t objects = counter_of (p, "objects_planned");
      uint64_t units = counter_of (p, "units_queued");
      uint64_t applied = counter_of (p, "objects_skipped_already_applied");
      uint64_t matches = counter_of (p, "objects_skipped_layout_matches");
      const char *planner = pr.planner && *pr.planner ? pr.planner : "chain";
      if (c->json)
        printf ("{\"action\": \"apply\", \"planner\": \"%s\", \"objects_planned\": %"
                PRIu64 ", \"units_queued\": %" PRIu64 ", \"objects_skipped_already_applied\": %"
                PRIu64 ", \"objects_skipped_layout_matches\": %" PRIu64 "}\n",
                planner, objects, units, applied, matches);
      else
        printf ("%s plans of %" PRIu64 " objects (%" PRIu64 " units) queued; the drive "
                "relocates them while idle (see profile show); not moved: %" PRIu64
                " already applied, %" PRIu64 " already laid out as planned\n",
                planner, objects, units, applied, matches);
    }
  else if (pr.action == OSSD__PROFILE_ACTION__PROFILE_AUTO)
    {
      if (c->json)
        {
          printf ("{\"action\": \"auto\", \"counters\": {");
          for (size_t i = 0; i < p->n_counters; i++)
            {
              printf ("%s", i ? ", " : "");
              json_string (stdout, p->counters[i]->key);
              printf (": %" PRIu64, p->counters[i]->value);
            }
          printf ("}}\n");
        }
      else
        printf ("automatic relocation %s: after %" PRIu64 " ms idle, a plan must cut "
                "the modelled NAND reads by more than %" PRIu64 " %%\n",
                counter_of (p, "auto_enabled") ? "on" : "off",
                counter_of (p, "auto_idle_ms"), counter_of (p, "auto_min_gain_pct"));
    }
  else if (c->json)
    printf ("{\"action\": \"%s\", \"enabled\": %s}\n", what,
            p->enabled ? "true" : "false");
  else
    printf ("access profile %s; recording %s\n",
            pr.action == OSSD__PROFILE_ACTION__PROFILE_RESET ? "reset" : "switched",
            p->enabled ? "on" : "off");
  ossd__response__free_unpacked (resp, NULL);
  return 0;
}
