/* main.c - fusionraid-sim command line: options, each policy's run in
 * turn on a fresh pool of identically aged drives with the same request
 * streams, then the table, CSV, CDF points and --json. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "fr.h"

static void
usage (FILE *out)
{
  fprintf (out,
"usage: fusionraid-sim [options]\n"
"Trace-driven virtual-time simulation of redundant arrays (raid/) over a\n"
"pool of aged drives, each the real object FTL (ftl/, no data stored):\n"
"FusionRAID (MOLS declustering, replicate-then-parity, spike avoidance)\n"
"against fixed RAID-5 groups and RAID-50, same drives, same requests.\n"
"\n"
"Pool:\n"
"  --drives N            drives (prime, for MOLS; default 29)\n"
"  --width K             stripe width, data + parity (7)\n"
"  --groups G            RAID-5 groups of K drives (4; G*K <= N, the rest\n"
"                        are spares those layouts leave idle)\n"
"  --drive-size SIZE     user capacity of each drive (256M)\n"
"  --op F                over-provisioning of each drive (0.28: data-centre\n"
"                        class)\n"
"  --channels N --ways N --pages-per-block N   geometry (2, 4, 16)\n"
"  --pre-max-x F         ageing: random 4K writes, at most F x capacity (2;\n"
"                        0 = fresh drives)\n"
"  --idle-gc-min-us U    a drive idle this long runs background GC (1000)\n"
"  --stall D[,D...]:PERIOD_MS:DUR_MS   drives D stall (complete nothing) for\n"
"                        DUR_MS every PERIOD_MS, from PERIOD_MS/2 on\n"
"\n"
"Workloads (2-4, one volume each, co-running):\n"
"  --workload SPEC       ycsb-a[:IOPS] | ycsb-b[:IOPS] | exchange[:IOPS] |\n"
"                        msr:FILE[:NAME]; repeat (default ycsb-a:1500,\n"
"                        ycsb-b:1500, exchange:1500)\n"
"  --volume-frac F       each volume: F x one group's data space (0.4)\n"
"  --seconds S           virtual seconds of arrivals measured (2)\n"
"  --warmup S            virtual seconds before, not measured (0.3)\n"
"  --burst B             ON-period rate / mean rate (8; 1 = Poisson)\n"
"  --trace-speed X       MSR replay X times faster than recorded (1)\n"
"\n"
"Policies (in one run, each on a fresh identical pool):\n"
"  --policies LIST       comma-separated of fusionraid, fusionraid-noconv\n"
"                        (conversion off), fusionraid-nospike (no spike\n"
"                        avoidance), raid5-groups, raid50\n"
"                        (default fusionraid,fusionraid-noconv,raid5-groups,raid50)\n"
"  --k-on X --k-off X    spike enter / leave at X x pool median (4, 2)\n"
"  --floor-us U          no spike below U us (400)\n"
"  --hold-us U           idle time that ends a spike (2000)\n"
"  --alpha A             EWMA weight (0.125)\n"
"\n"
"Output:\n"
"  --csv FILE            percentiles per policy and workload\n"
"  --cdf FILE            latency CDF points per policy and workload\n"
"  --json                JSON summary on stdout (the table goes to stderr)\n"
"  --json-file FILE      the JSON summary into FILE as well\n"
"  --seed N              (1)\n"
"  --progress / --no-progress   progress bar on stderr (default: if a tty)\n"
"  --help\n");
}

static int
add_policy (struct fr_opts *o, const char *name)
{
  static const struct
  {
    const char *name;
    enum raid_policy p;
    bool convert, spike;
  } known[] = {
    { "fusionraid", RAID_POLICY_FUSION, true, true },
    { "fusionraid-noconv", RAID_POLICY_FUSION, false, true },
    { "fusionraid-nospike", RAID_POLICY_FUSION, true, false },
    { "raid5-groups", RAID_POLICY_RAID5_GROUPS, false, false },
    { "raid50", RAID_POLICY_RAID50, false, false },
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp (name, known[i].name) == 0)
      {
        if (o->npolicies == 8)
          break;
        uint32_t k = o->npolicies++;
        o->policy[k] = known[i].p;
        o->policy_convert[k] = known[i].convert;
        o->policy_spike[k] = known[i].spike;
        snprintf (o->policy_name[k], sizeof o->policy_name[k], "%s", name);
        return 0;
      }
  fprintf (stderr, "fusionraid-sim: unknown policy '%s' (or more than 8; "
           "see --help)\n", name);
  return -EINVAL;
}

static int
parse_policies (struct fr_opts *o, const char *list)
{
  char buf[512];
  snprintf (buf, sizeof buf, "%s", list);
  o->npolicies = 0;
  for (char *t = strtok (buf, ","); t; t = strtok (NULL, ","))
    if (add_policy (o, t) < 0)
      return -EINVAL;
  return o->npolicies ? 0 : -EINVAL;
}

/* D[,D...]:PERIOD_MS:DUR_MS */
static int
parse_stall (struct fr_opts *o, const char *text)
{
  char buf[128];
  snprintf (buf, sizeof buf, "%s", text);
  char *p1 = strchr (buf, ':'), *p2 = p1 ? strchr (p1 + 1, ':') : NULL;
  if (!p1 || !p2)
    goto bad;
  *p1++ = 0;
  *p2++ = 0;
  o->nstall = 0;
  for (char *t = strtok (buf, ","); t; t = strtok (NULL, ","))
    {
      if (o->nstall == 4)
        goto bad;
      o->stall_drive[o->nstall++] = (uint32_t) atoi (t);
    }
  o->stall_period_ns = (uint64_t) (atof (p1) * 1e6);
  o->stall_ns = (uint64_t) (atof (p2) * 1e6);
  if (o->nstall && o->stall_period_ns > o->stall_ns && o->stall_ns > 0)
    return 0;
bad:
  fprintf (stderr, "fusionraid-sim: --stall %s: expected D[,D...]:PERIOD_MS:"
           "DUR_MS with at most 4 drives and DUR_MS < PERIOD_MS\n", text);
  return -EINVAL;
}

enum
{
  O_DRIVES = 256, O_WIDTH, O_GROUPS, O_DSIZE, O_OP, O_CHANNELS, O_WAYS,
  O_PPB, O_PREMAX, O_IDLEGC, O_STALL, O_WL, O_VOLFRAC, O_SECONDS, O_WARMUP, O_BURST,
  O_TSPEED, O_POLICIES, O_KON, O_KOFF, O_FLOOR, O_HOLD, O_ALPHA, O_CSV,
  O_CDF, O_JSON, O_JSONFILE, O_SEED, O_PROGRESS, O_NOPROGRESS, O_HELP,
};

int
main (int argc, char **argv)
{
  static const struct option lo[] = {
    { "drives", 1, 0, O_DRIVES }, { "width", 1, 0, O_WIDTH },
    { "groups", 1, 0, O_GROUPS }, { "drive-size", 1, 0, O_DSIZE },
    { "op", 1, 0, O_OP }, { "channels", 1, 0, O_CHANNELS },
    { "ways", 1, 0, O_WAYS }, { "pages-per-block", 1, 0, O_PPB },
    { "pre-max-x", 1, 0, O_PREMAX }, { "idle-gc-min-us", 1, 0, O_IDLEGC },
    { "stall", 1, 0, O_STALL },
    { "workload", 1, 0, O_WL }, { "volume-frac", 1, 0, O_VOLFRAC },
    { "seconds", 1, 0, O_SECONDS }, { "warmup", 1, 0, O_WARMUP },
    { "burst", 1, 0, O_BURST }, { "trace-speed", 1, 0, O_TSPEED },
    { "policies", 1, 0, O_POLICIES }, { "k-on", 1, 0, O_KON },
    { "k-off", 1, 0, O_KOFF }, { "floor-us", 1, 0, O_FLOOR },
    { "hold-us", 1, 0, O_HOLD }, { "alpha", 1, 0, O_ALPHA },
    { "csv", 1, 0, O_CSV }, { "cdf", 1, 0, O_CDF }, { "json", 0, 0, O_JSON },
    { "json-file", 1, 0, O_JSONFILE },
    { "seed", 1, 0, O_SEED }, { "progress", 0, 0, O_PROGRESS },
    { "no-progress", 0, 0, O_NOPROGRESS }, { "help", 0, 0, O_HELP },
    { 0, 0, 0, 0 }
  };
  struct fr_opts *o = calloc (1, sizeof *o);
  ftl_error ferr = { { 0 } };
  if (!o || ftl_config_defaults (&o->cfg, "default", &ferr) < 0)
    return 1;
  o->drives = 29;
  o->width = 7;
  o->groups = 4;
  o->drive_bytes = 256ull << 20;
  o->cfg.over_provisioning = 0.28;
  o->cfg.channels = 2;
  o->cfg.ways = 4;
  o->cfg.pages_per_block = 16;
  o->pre_max_x = 2;
  o->idle_gc_min_ns = 1000000;
  o->volume_frac = 0.4;
  o->seconds = 2;
  o->warmup_s = 0.3;
  o->burst = 8;
  o->trace_speed = 1;
  o->seed = 1;
  o->progress = isatty (2);
  raid_monitor_defaults (&o->mon);
  const char *policies = "fusionraid,fusionraid-noconv,raid5-groups,raid50";
  int c, r = 0;
  while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1 && r == 0)
    switch (c)
      {
      case O_DRIVES: o->drives = (uint32_t) atoi (optarg); break;
      case O_WIDTH: o->width = (uint32_t) atoi (optarg); break;
      case O_GROUPS: o->groups = (uint32_t) atoi (optarg); break;
      case O_DSIZE:
        r = bench_parse_size (optarg, &o->drive_bytes);
        if (r == 0 && o->drive_bytes == 0)
          r = -EINVAL;
        break;
      case O_OP: o->cfg.over_provisioning = atof (optarg); break;
      case O_CHANNELS: o->cfg.channels = (uint32_t) atoi (optarg); break;
      case O_WAYS: o->cfg.ways = (uint32_t) atoi (optarg); break;
      case O_PPB: o->cfg.pages_per_block = (uint32_t) atoi (optarg); break;
      case O_PREMAX: o->pre_max_x = atof (optarg); break;
      case O_IDLEGC: o->idle_gc_min_ns = (uint64_t) (atof (optarg) * 1e3); break;
      case O_STALL:
        r = parse_stall (o, optarg);
        break;
      case O_WL:
        if (o->nwl == FR_MAX_WL)
          {
            fprintf (stderr, "fusionraid-sim: at most %d workloads\n",
                     FR_MAX_WL);
            r = -EINVAL;
          }
        else
          r = fr_wl_parse (optarg, &o->wl[o->nwl++]);
        break;
      case O_VOLFRAC: o->volume_frac = atof (optarg); break;
      case O_SECONDS: o->seconds = atof (optarg); break;
      case O_WARMUP: o->warmup_s = atof (optarg); break;
      case O_BURST: o->burst = atof (optarg); break;
      case O_TSPEED: o->trace_speed = atof (optarg); break;
      case O_POLICIES: policies = optarg; break;
      case O_KON: o->mon.k_on = atof (optarg); break;
      case O_KOFF: o->mon.k_off = atof (optarg); break;
      case O_FLOOR: o->mon.floor_ns = (uint64_t) (atof (optarg) * 1e3); break;
      case O_HOLD: o->mon.hold_ns = (uint64_t) (atof (optarg) * 1e3); break;
      case O_ALPHA: o->mon.alpha = atof (optarg); break;
      case O_CSV: o->csv = optarg; break;
      case O_CDF: o->cdf = optarg; break;
      case O_JSON: o->json = true; break;
      case O_JSONFILE: o->json_path = optarg; break;
      case O_SEED: o->seed = strtoull (optarg, NULL, 10); break;
      case O_PROGRESS: o->progress = true; break;
      case O_NOPROGRESS: o->progress = false; break;
      case O_HELP: case 'h': usage (stdout); return 0;
      default: usage (stderr); return 2;
      }
  if (r == 0)
    r = parse_policies (o, policies);
  if (r == 0 && o->nwl == 0)
    {
      fr_wl_parse ("ycsb-a:1500", &o->wl[0]);
      fr_wl_parse ("ycsb-b:1500", &o->wl[1]);
      fr_wl_parse ("exchange:1500", &o->wl[2]);
      o->nwl = 3;
    }
  if (r == 0 && (o->volume_frac <= 0 || o->volume_frac > 1 || o->seconds <= 0
                 || o->warmup_s < 0 || optind != argc))
    {
      fprintf (stderr, "fusionraid-sim: need --volume-frac in (0, 1], "
               "--seconds > 0, --warmup >= 0, no stray arguments\n");
      r = -EINVAL;
    }
  if (r < 0)
    {
      fprintf (stderr, "fusionraid-sim: bad options (see --help)\n");
      return 2;
    }
  struct fr_result *res = calloc (o->npolicies, sizeof *res);
  if (!res)
    return 1;
  for (uint32_t i = 0; i < o->npolicies && r == 0; i++)
    r = fr_run_policy (o, i, &res[i]);
  if (r < 0)
    return 1;
  fr_report_text (o, res, o->npolicies, o->json ? stderr : stdout);
  if (o->csv && fr_report_csv (o, res, o->npolicies, o->csv) < 0)
    return 1;
  if (o->cdf && fr_report_cdf (o, res, o->npolicies, o->cdf) < 0)
    return 1;
  if (o->json)
    fr_report_json (o, res, o->npolicies, stdout);
  if (o->json_path)
    {
      FILE *jf = fopen (o->json_path, "w");
      if (!jf)
        {
          fprintf (stderr, "fusionraid-sim: cannot write %s\n", o->json_path);
          return 1;
        }
      fr_report_json (o, res, o->npolicies, jf);
      fclose (jf);
    }
  for (uint32_t i = 0; i < o->npolicies; i++)
    for (int w = 0; w <= FR_MAX_WL; w++)
      {
        fr_lat_free (&res[i].lat[w]);
        fr_lat_free (&res[i].rlat[w]);
        fr_lat_free (&res[i].wlat[w]);
      }
  free (res);
  free (o);
  return 0;
}
