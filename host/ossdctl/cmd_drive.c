/* cmd_drive.c - drive-wide commands of ossdctl: format, info, stats,
 * fsck, events and partitions. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ossdctl.h"
#include "ossd_ftl.h"

static int
policy_index (const char *v, const char *const names[], const char *what)
{
  for (int i = 0; names[i]; i++)
    if (strcmp (v, names[i]) == 0)
      return i;
  fprintf (stderr, "ossdctl format: unknown %s '%s'\n", what, v);
  return -1;
}

int
cmd_format (struct ctl *c, int argc, char **argv)
{
  static const char *const mapping[] = { "ram", "dftl", "dftl-split", NULL };
  static const char *const alloc[] = { "unified", "index-data", "per-object", NULL };
  static const char *const gc[] = { "greedy", "cost-benefit", NULL };
  Ossd__FtlConfig cfg = OSSD__FTL_CONFIG__INIT;
  ossd_error err;
  ossd_t *h;
  int r, v;

  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
      if (!val)
        {
          fprintf (stderr, "ossdctl format: %s needs a value\n", a);
          return 2;
        }
      if (strcmp (a, "--size") == 0)
        {
          if (parse_size (val, &cfg.capacity_bytes) < 0)
            {
              fprintf (stderr, "ossdctl format: bad size '%s'\n", val);
              return 2;
            }
        }
      else if (strcmp (a, "--profile") == 0)
        cfg.profile = (char *) val;
      else if (strcmp (a, "--mapping") == 0)
        {
          if ((v = policy_index (val, mapping, "mapping mode")) < 0)
            return 2;
          cfg.mapping_mode = v;
        }
      else if (strcmp (a, "--alloc") == 0)
        {
          if ((v = policy_index (val, alloc, "allocation policy")) < 0)
            return 2;
          cfg.alloc_policy = v;
        }
      else if (strcmp (a, "--gc") == 0)
        {
          if ((v = policy_index (val, gc, "GC policy")) < 0)
            return 2;
          cfg.gc_policy = v;
        }
      else
        {
          fprintf (stderr, "ossdctl format: unknown option '%s'\n", a);
          return 2;
        }
      i++;
    }
  ctl_allow_long_call (c);
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_format (h, &cfg, 0, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("format", &err);
  if (!c->quiet)
    printf (c->json ? "{\"formatted\": true}\n" : "drive formatted\n");
  return 0;
}

int
cmd_info (struct ctl *c, int argc, char **argv)
{
  static const char *const flags[] = { NULL };
  Ossd__InfoResult *i;
  ossd_error err;
  ossd_t *h;
  int r;

  if (ctl_flags ("info", argc, argv, flags, NULL) < 0)
    return 2;
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_info (h, &i, &err);
  if (r < 0)
    {
      ossd_disconnect (h);
      return ctl_fail ("info", &err);
    }
  if (c->json)
    {
      printf ("{\"device\": ");
      json_string (stdout, c->device);
      printf (", \"firmware\": ");
      json_string (stdout, i->firmware);
      printf (", \"capacity_bytes\": %" PRIu64 ", \"used_bytes\": %" PRIu64
              ", \"free_bytes\": %" PRIu64 ", \"volume_bytes\": %" PRIu64
              ", \"lba_size\": %u, \"reserved_base_lba\": %" PRIu64
              ", \"slots\": %u, \"window_lbas\": %u, \"page_size\": %u"
              ", \"channels\": %u, \"ways\": %u, \"planes\": %u"
              ", \"blocks_per_plane\": %u, \"pages_per_block\": %u"
              ", \"objects\": %" PRIu64 ", \"partitions\": %" PRIu64
              ", \"scan_workers\": %u, \"feature_bits\": %" PRIu64,
              i->capacity_bytes, i->used_bytes, i->free_bytes,
              i->volume_bytes, i->lba_size, i->reserved_base_lba, i->slots,
              i->window_lbas, i->page_size, i->channels, i->ways, i->planes,
              i->blocks_per_plane, i->pages_per_block, i->objects,
              i->partitions, i->scan_workers, i->feature_bits);
      printf (", \"profile\": ");
      json_string (stdout, i->profile);
      printf (", \"mapping_mode\": ");
      json_string (stdout, i->mapping_mode);
      printf (", \"alloc_policy\": ");
      json_string (stdout, i->alloc_policy);
      printf (", \"gc_policy\": ");
      json_string (stdout, i->gc_policy);
      printf (", \"backend\": ");
      json_string (stdout, i->backend);
      printf (", \"format_profile\": ");
      json_string (stdout, i->format_profile);
      printf (", \"paced\": %s, \"time_channels\": %u, \"time_dies\": %u"
              ", \"channel_mbps\": %u, \"link_mbps\": %u, \"read_ns\": %" PRIu64
              ", \"model_scan_mbps\": %.1f, \"model_read_mbps\": %.1f",
              i->paced ? "true" : "false", i->time_channels, i->time_dies,
              i->channel_mbps, i->link_mbps, i->read_ns, i->model_scan_mbps,
              i->model_read_mbps);
      printf ("}\n");
    }
  else
    {
      printf ("device:        %s\n", c->device);
      printf ("firmware:      %s\n", i->firmware);
      printf ("capacity:      %.1f MiB (used %.1f MiB, free %.1f MiB)\n",
              i->capacity_bytes / 1048576.0, i->used_bytes / 1048576.0,
              i->free_bytes / 1048576.0);
      printf ("objects:       %" PRIu64 " in %" PRIu64 " partitions\n",
              i->objects, i->partitions);
      printf ("block volume:  %.1f MiB (LBAs 0..%" PRIu64 ")\n",
              i->volume_bytes / 1048576.0, i->reserved_base_lba - 1);
      printf ("channel:       %u slots x %u LBAs of %u bytes, reserved from LBA %" PRIu64 "\n",
              i->slots, i->window_lbas, i->lba_size, i->reserved_base_lba);
      printf ("NAND:          %s profile, %u ch x %u ways x %u planes x %u blocks x %u pages of %u KiB (%s backend)\n",
              i->profile, i->channels, i->ways, i->planes, i->blocks_per_plane,
              i->pages_per_block, i->page_size / 1024, i->backend);
      if (i->format_profile && *i->format_profile
          && strcmp (i->format_profile, i->profile) != 0)
        printf ("               (formatted with the %s profile)\n",
                i->format_profile);
      char link[32];
      if (i->link_mbps)
        snprintf (link, sizeof link, "link %u MB/s", i->link_mbps);
      else
        snprintf (link, sizeof link, "link not modelled");
      printf ("timing:        %s: %u channels x %u dies modelled, tR %.0f us, "
              "channel %u MB/s, %s;\n"
              "               modelled drive scan %.1f MB/s, host read %.1f MB/s\n",
              i->paced ? "paced to real time" : "virtual time only",
              i->time_channels, i->time_channels ? i->time_dies / i->time_channels : 0,
              i->read_ns / 1000.0, i->channel_mbps, link, i->model_scan_mbps,
              i->model_read_mbps);
      printf ("FTL:           mapping %s, allocation %s, GC %s\n",
              i->mapping_mode, i->alloc_policy, i->gc_policy);
      printf ("offload:       %u scan workers, features 0x%" PRIx64 "\n",
              i->scan_workers, i->feature_bits);
    }
  ossd__info_result__free_unpacked (i, NULL);
  ossd_disconnect (h);
  return 0;
}

int
cmd_stats (struct ctl *c, int argc, char **argv)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Stats st = OSSD__STATS__INIT;
  Ossd__Response *resp = NULL;
  ossd_error err;
  ossd_t *h;
  int r;

  static const char *const flags[] = { "--reset", NULL };
  bool seen[1] = { false };

  if (ctl_flags ("stats", argc, argv, flags, seen) < 0)
    return 2;
  st.reset = seen[0];
  req.body_case = OSSD__REQUEST__BODY_STATS;
  req.stats = &st;
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_call (h, &req, &resp, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("stats", &err);
  const Ossd__StatsResult *s = resp->stats;
  if (c->json)
    {
      printf ("{");
      for (size_t i = 0; i < s->n_counters; i++)
        {
          printf ("%s", i ? ", " : "");
          json_string (stdout, s->counters[i]->key);
          printf (": %" PRIu64, s->counters[i]->value);
        }
      for (size_t i = 0; i < s->n_gauges; i++)
        {
          printf ("%s", i || s->n_counters ? ", " : "");
          json_string (stdout, s->gauges[i]->key);
          printf (": %.6g", s->gauges[i]->value);
        }
      printf ("}\n");
    }
  else
    {
      for (size_t i = 0; i < s->n_counters; i++)
        printf ("%-30s %" PRIu64 "\n", s->counters[i]->key, s->counters[i]->value);
      for (size_t i = 0; i < s->n_gauges; i++)
        printf ("%-30s %.4f\n", s->gauges[i]->key, s->gauges[i]->value);
    }
  ossd__response__free_unpacked (resp, NULL);
  return 0;
}

int
cmd_fsck (struct ctl *c, int argc, char **argv)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Fsck f = OSSD__FSCK__INIT;
  Ossd__Response *resp = NULL;
  static const char *const flags[] = { NULL };
  ossd_error err;
  ossd_t *h;
  int r;

  if (ctl_flags ("fsck", argc, argv, flags, NULL) < 0)
    return 2;
  req.body_case = OSSD__REQUEST__BODY_FSCK;
  req.fsck = &f;
  ctl_allow_long_call (c);
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_call (h, &req, &resp, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("fsck", &err);
  uint64_t problems = resp->fsck->problems;
  if (c->json)
    {
      printf ("{\"problems\": %" PRIu64 ", \"first_problem\": ", problems);
      json_string (stdout, resp->fsck->first_problem);
      printf (", \"problem_list\": [");
      for (size_t i = 0; i < resp->fsck->n_problem_list; i++)
        {
          printf (i ? ", " : "");
          json_string (stdout, resp->fsck->problem_list[i]);
        }
      printf ("]}\n");
    }
  else if (problems)
    {
      printf ("fsck: %" PRIu64 " problems; first: %s\n", problems,
              resp->fsck->first_problem);
      /* every one the drive listed, one a line */
      for (size_t i = 0; i < resp->fsck->n_problem_list; i++)
        printf ("  problem: %s\n", resp->fsck->problem_list[i]);
      if (resp->fsck->n_problem_list < problems)
        printf ("  (%" PRIu64 " more not listed)\n",
                problems - resp->fsck->n_problem_list);
    }
  else
    printf ("fsck: clean\n");
  ossd__response__free_unpacked (resp, NULL);
  return problems ? 1 : 0;
}

int
cmd_events (struct ctl *c, int argc, char **argv)
{
  static const char *const flags[] = { "--follow", NULL };
  bool seen[1] = { false };
  uint64_t cursor = 0;
  ossd_error err;
  ossd_t *h;

  if (ctl_flags ("events", argc, argv, flags, seen) < 0)
    return 2;
  bool follow = seen[0];
  if (!(h = ctl_connect (c)))
    return 1;
  do
    {
      Ossd__EventBatch *b;
      if (ossd_poll_events (h, &cursor, &b, &err) < 0)
        {
          ossd_disconnect (h);
          return ctl_fail ("events", &err);
        }
      for (size_t i = 0; i < b->n_events; i++)
        {
          const Ossd__Event *e = b->events[i];
          const ProtobufCEnumValue *k =
            protobuf_c_enum_descriptor_get_value (&ossd__event_kind__descriptor, e->kind);
          char when[40];

          format_utc_ns (e->time_ns, when, sizeof when);
          /* --json: one object a line (JSON Lines), so --follow can stream */
          if (c->json)
            {
              printf ("{\"seq\": %" PRIu64 ", \"time\": \"%s\", \"time_ns\": %" PRIu64
                      ", \"kind\": ", e->seq, when, e->time_ns);
              json_string (stdout, k ? k->name : "?");
              printf (", \"slot\": %u, \"text\": ", e->slot);
              json_string (stdout, e->text);
              printf ("}\n");
            }
          else
            printf ("%6" PRIu64 " %s %-18s %s\n", e->seq, when, k ? k->name : "?", e->text);
        }
      fflush (stdout);
      ossd__event_batch__free_unpacked (b, NULL);
    }
  while (follow);
  ossd_disconnect (h);
  return 0;
}

int
cmd_partition (struct ctl *c, int argc, char **argv)
{
  ossd_error err;
  ossd_t *h;
  int r = 0;

  if (argc < 1 || (strcmp (argv[0], "ls") != 0 && argc < 2))
    {
      fprintf (stderr, "usage: ossdctl partition create PID | rm PID | ls\n");
      return 2;
    }
  if (!(h = ctl_connect (c)))
    return 1;
  if (strcmp (argv[0], "ls") == 0)
    {
      uint64_t ids[4096], after = 0;
      size_t n;
      bool more, first = true;
      if (c->json)
        printf ("[");
      do
        {
          r = ossd_list_partitions (h, after, ids, 4096, &n, &more, &err);
          for (size_t i = 0; r == 0 && i < n; i++)
            {
              if (c->json)
                printf ("%s%" PRIu64, first ? "" : ", ", ids[i]);
              else
                printf ("%" PRIu64 "%s\n", ids[i], ids[i] == 0 ? "  (system)" : "");
              first = false;
              after = ids[i];
            }
        }
      while (r == 0 && more);
      if (c->json)
        printf ("]\n");
    }
  else
    {
      char *end;
      uint64_t pid = strtoull (argv[1], &end, 0);
      if (*end)
        {
          fprintf (stderr, "ossdctl partition: bad partition id '%s'\n", argv[1]);
          ossd_disconnect (h);
          return 2;
        }
      if (strcmp (argv[0], "create") == 0)
        r = ossd_create_partition (h, pid, &err);
      else if (strcmp (argv[0], "rm") == 0)
        r = ossd_remove_partition (h, pid, &err);
      else
        {
          fprintf (stderr, "ossdctl partition: unknown subcommand '%s'\n", argv[0]);
          ossd_disconnect (h);
          return 2;
        }
    }
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("partition", &err);
  return 0;
}

/* cold: the drive drops its caches (needs the admin right) */
int
cmd_cold (struct ctl *c, int argc, char **argv)
{
  static const char *const flags[] = { NULL };
  ossd_error err;
  ossd_t *h;
  int r;

  if (ctl_flags ("cold", argc, argv, flags, NULL) < 0)
    return 2;
  if (!(h = ctl_connect (c)))
    return 1;
  r = ossd_drop_caches (h, &err);
  ossd_disconnect (h);
  if (r < 0)
    return ctl_fail ("cold", &err);
  if (!c->quiet)
    printf (c->json ? "{\"caches_dropped\": true}\n"
            : "drive caches dropped (the next reads are cold)\n");
  return 0;
}

/* profiles: the drive profiles this build knows (no drive needed) */
int
cmd_profiles (struct ctl *c, int argc, char **argv)
{
  static const char *const flags[] = { NULL };
  struct ftl_profile_info p;

  if (ctl_flags ("profiles", argc, argv, flags, NULL) < 0)
    return 2;
  if (c->json)
    printf ("[");
  else
    printf ("%-10s %-6s %-7s %8s %8s %8s %9s %9s  %s\n", "profile", "paced",
            "ch x die", "tR us", "ch MB/s", "link", "scan MB/s", "read MB/s",
            "what");
  for (size_t k = 0; ftl_profile_get (k, NULL, &p) == 0; k++)
    {
      if (c->json)
        {
          printf ("%s{\"name\": ", k ? ", " : "");
          json_string (stdout, p.name);
          printf (", \"paced\": %s, \"channels\": %u, \"ways\": %u"
                  ", \"read_ns\": %" PRIu64 ", \"program_ns\": %" PRIu64
                  ", \"erase_ns\": %" PRIu64 ", \"channel_mbps\": %u"
                  ", \"link_mbps\": %u, \"model_scan_mbps\": %.1f"
                  ", \"model_read_mbps\": %.1f, \"description\": ",
                  p.paced ? "true" : "false", p.channels, p.ways, p.read_ns,
                  p.program_ns, p.erase_ns, p.channel_mbps, p.link_mbps,
                  p.scan_mbps, p.read_mbps);
          json_string (stdout, p.description);
          printf ("}");
        }
      else
        {
          char link[16], dies[16];
          snprintf (link, sizeof link, p.link_mbps ? "%u" : "-", p.link_mbps);
          snprintf (dies, sizeof dies, "%ux%u", p.channels, p.ways);
          printf ("%-10s %-6s %-7s %8.0f %8u %8s %9.1f %9.1f  %s\n", p.name,
                  p.paced ? "yes" : "no", dies, p.read_ns / 1000.0,
                  p.channel_mbps, link, p.scan_mbps, p.read_mbps,
                  p.description);
        }
    }
  if (c->json)
    printf ("]\n");
  return 0;
}
