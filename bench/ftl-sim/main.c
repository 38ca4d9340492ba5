/* main.c - ftl-sim command line: options, then precondition, run the
 * workload, write the CSV time series / read-latency CDF and the --json
 * summary on stdout. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "sim.h"

static void
usage (FILE *out)
{
  fprintf (out,
"usage: ftl-sim [options]\n"
"Trace-driven simulator of the pg_ossd object FTL (ftl/), no data stored.\n"
"\n"
"Device:\n"
"  --profile NAME         default | mlc | tlc | ram-fast  (default: default)\n"
"  --capacity SIZE        user capacity (K/M/G suffix); sizes blocks_per_plane\n"
"  --channels N --ways N --planes N --blocks-per-plane N --pages-per-block N\n"
"  --page-size BYTES      flash page (default 16384)\n"
"  --op FRACTION          over-provisioning: hidden fraction of raw space\n"
"  --map MODE             ram | dftl | dftl-split         (default ram)\n"
"  --cache-frac F         DFTL cache, fraction of the full mapping (0.25)\n"
"  --alloc POLICY         unified | index-data | per-object (unified)\n"
"  --gc POLICY            greedy | cost-benefit          (greedy)\n"
"  --max-open-blocks N    per-object policy bound\n"
"\n"
"Workload:\n"
"  --workload W           rand | zipf | seq | objects | delrewrite | msr | none\n"
"                         | sofs (the self-optimizing layout experiment below)\n"
"  --ops N                host requests in the measured phase\n"
"  --warmup-ops N         rand/zipf/seq: as many requests before it, not\n"
"                         measured (after the fill)\n"
"  --writes-x F           or: write F x capacity (default 1)\n"
"  --bs SIZE              request size (default 4K)\n"
"  --read-pct P           percentage of reads (read/write mix)\n"
"  --zipf THETA           Zipf parameter in (0,1) (default 0.99)\n"
"  --span F               fraction of the volume addressed (default 1)\n"
"  --writers N            object writers (objects: 4)\n"
"  --obj-min SIZE --obj-max SIZE  object sizes (objects; 1M / 16M)\n"
"  --fill F               objects: utilisation target (0.8);\n"
"                         delrewrite: data written by the 4 writers (0.6)\n"
"  --exofs-inode-bytes N  delrewrite: exofs-like metadata (inode per write\n"
"                         and create, directory and super block per create\n"
"                         and delete); N bytes stored per inode update\n"
"                         (60 = exofs's inode; 16384 = the OSSD's\n"
"                         descriptor page; 0 = none, the default)\n"
"  --trace FILE           MSR Cambridge CSV trace (msr)\n"
"  --trace-per-disk       one object per (host, disk) instead of one volume\n"
"  --trace-idle           give inter-arrival gaps > 1 ms to ftl_idle\n"
"  --idle-every N --idle-us U  call ftl_idle(U us) every N requests\n"
"  --seed N\n"
"\n"
"SOFS layout experiment (--workload sofs; docs/sofs.md):\n"
"  --sofs-case LIST       comma-separated: startup, logscan, streams, btree,\n"
"                         pgupdate, msr (the --trace file), msr:FILE\n"
"                         (default startup)\n"
"  --sofs-csv FILE        one row per case and layout (before, sofs, chain,\n"
"                         sequential bound); default stdout\n"
"  --sofs-scale F         sizes and counts of the synthetic cases (1)\n"
"  --sofs-gc-pressure     also: after the chain plan, random overwrites of\n"
"                         another object (GC, wear levelling at threshold 4),\n"
"                         GC keeping the layout and ignoring it\n"
"  --sofs-edges N         profiler table entries, shared by the streams\n"
"                         (131072; the drive has 65536)\n"
"  --sofs-max-reads N     msr: replay the first N reads (all)\n"
"  --sofs-max-obj SIZE    msr: largest object, offsets wrap (256M)\n"
"\n"
"Preconditioning (rand/zipf/seq):\n"
"  --precondition         fill sequentially, then random writes to steady WAF\n"
"  --pre-fill F           fraction filled sequentially (1.0)\n"
"  --pre-max-x F          at most F x capacity of random writes (6)\n"
"  --pre-tol F            steady: last 4 rounds within +-F of mean (0.03)\n"
"\n"
"Output:\n"
"  --csv FILE             time series (WAF, erases, throughput in virtual time)\n"
"  --cdf FILE             read-latency CDF of the measured phase\n"
"  --sample-ops N         requests per time-series row (auto)\n"
"  --label TEXT           label in CSV and JSON\n"
"  --json                 JSON summary on stdout\n"
"  --fsck                 run ftl_fsck at the end (fails the run if unclean)\n"
"  --progress / --no-progress   progress bar on stderr (default: if a tty)\n"
"  --help\n");
}

static int
pick (const char *what, const char *v, const char *const *names, int n,
      int *out)
{
  for (int i = 0; i < n; i++)
    if (strcmp (v, names[i]) == 0)
      {
        *out = i;
        return 0;
      }
  fprintf (stderr, "ftl-sim: unknown %s '%s'\n", what, v);
  return -EINVAL;
}

enum
{
  O_PROFILE = 256, O_CAPACITY, O_CHANNELS, O_WAYS, O_PLANES, O_BPP, O_PPB,
  O_PAGE, O_OP, O_MAP, O_CACHE, O_ALLOC, O_GC, O_MOB, O_WL, O_OPS, O_WX,
  O_BS, O_READ, O_ZIPF, O_SPAN, O_WRITERS, O_OMIN, O_OMAX, O_FILL, O_TRACE,
  O_PERDISK, O_TIDLE, O_IDLE_EVERY, O_IDLE_US, O_SEED, O_PRE, O_PREFILL,
  O_PREMAX, O_PRETOL, O_CSV, O_CDF, O_SAMPLE, O_LABEL, O_JSON, O_PROG,
  O_NOPROG, O_HELP, O_FSCK, O_WARM, O_EXOFS, O_SOFS_CASE, O_SOFS_CSV,
  O_SOFS_SCALE, O_SOFS_GCP, O_SOFS_EDGES, O_SOFS_MAXR, O_SOFS_MAXO,
};

static const struct option longopts[] = {
  { "profile", 1, 0, O_PROFILE }, { "capacity", 1, 0, O_CAPACITY },
  { "channels", 1, 0, O_CHANNELS }, { "ways", 1, 0, O_WAYS },
  { "planes", 1, 0, O_PLANES }, { "blocks-per-plane", 1, 0, O_BPP },
  { "pages-per-block", 1, 0, O_PPB }, { "page-size", 1, 0, O_PAGE },
  { "op", 1, 0, O_OP }, { "map", 1, 0, O_MAP }, { "cache-frac", 1, 0, O_CACHE },
  { "alloc", 1, 0, O_ALLOC }, { "gc", 1, 0, O_GC },
  { "max-open-blocks", 1, 0, O_MOB }, { "workload", 1, 0, O_WL },
  { "ops", 1, 0, O_OPS }, { "writes-x", 1, 0, O_WX }, { "bs", 1, 0, O_BS },
  { "read-pct", 1, 0, O_READ }, { "zipf", 1, 0, O_ZIPF },
  { "span", 1, 0, O_SPAN }, { "writers", 1, 0, O_WRITERS },
  { "obj-min", 1, 0, O_OMIN }, { "obj-max", 1, 0, O_OMAX },
  { "fill", 1, 0, O_FILL }, { "trace", 1, 0, O_TRACE },
  { "trace-per-disk", 0, 0, O_PERDISK }, { "trace-idle", 0, 0, O_TIDLE },
  { "idle-every", 1, 0, O_IDLE_EVERY }, { "idle-us", 1, 0, O_IDLE_US },
  { "seed", 1, 0, O_SEED }, { "precondition", 0, 0, O_PRE },
  { "pre-fill", 1, 0, O_PREFILL }, { "pre-max-x", 1, 0, O_PREMAX },
  { "pre-tol", 1, 0, O_PRETOL }, { "csv", 1, 0, O_CSV }, { "cdf", 1, 0, O_CDF },
  { "sample-ops", 1, 0, O_SAMPLE }, { "label", 1, 0, O_LABEL },
  { "json", 0, 0, O_JSON }, { "progress", 0, 0, O_PROG },
  { "no-progress", 0, 0, O_NOPROG }, { "help", 0, 0, O_HELP }, { "fsck", 0, 0, O_FSCK },
  { "warmup-ops", 1, 0, O_WARM },
  { "exofs-inode-bytes", 1, 0, O_EXOFS },
  { "sofs-case", 1, 0, O_SOFS_CASE }, { "sofs-csv", 1, 0, O_SOFS_CSV },
  { "sofs-scale", 1, 0, O_SOFS_SCALE }, { "sofs-gc-pressure", 0, 0, O_SOFS_GCP }, { "sofs-edges", 1, 0, O_SOFS_EDGES },
  { "sofs-max-reads", 1, 0, O_SOFS_MAXR }, { "sofs-max-obj", 1, 0, O_SOFS_MAXO },
  { 0, 0, 0, 0 },
};

static int
parse_args (int argc, char **argv, struct sim_opts *o)
{
  static const char *const maps[] = { "ram", "dftl", "dftl-split" };
  static const char *const allocs[] = { "unified", "index-data", "per-object" };
  static const char *const gcs[] = { "greedy", "cost-benefit" };
  const char *profile = NULL;
  int c, v, r = 0;
  uint64_t sz;
  for (int i = 1; i < argc; i++)   /* the profile sets the defaults */
    if (strcmp (argv[i], "--profile") == 0 && i + 1 < argc)
      profile = argv[i + 1];
  ftl_error err = { { 0 } };
  if ((r = ftl_config_defaults (&o->cfg, profile, &err)) < 0)
    {
      fprintf (stderr, "ftl-sim: %s\n", err.msg);
      return r;
    }
  o->wl = WL_RAND;
  o->writes_x = 1;
  o->bs = 4096;
  o->zipf_theta = 0.99;
  o->span = 1;
  o->obj_min = 1 << 20;
  o->obj_max = 16 << 20;
  o->fill = -1;
  o->pre_fill = 1;
  o->pre_max_x = 6;
  o->pre_tol = 0.03;
  o->seed = 42;
  o->progress = isatty (2);
  while (r == 0 && (c = getopt_long (argc, argv, "h", longopts, NULL)) != -1)
    switch (c)
      {
      case O_PROFILE: break;
      case O_CAPACITY: r = bench_parse_size (optarg, &o->capacity); break;
      case O_CHANNELS: o->cfg.channels = (uint32_t) atoi (optarg); break;
      case O_WAYS: o->cfg.ways = (uint32_t) atoi (optarg); break;
      case O_PLANES: o->cfg.planes = (uint32_t) atoi (optarg); break;
      case O_BPP: o->cfg.blocks_per_plane = (uint32_t) atoi (optarg); break;
      case O_PPB: o->cfg.pages_per_block = (uint32_t) atoi (optarg); break;
      case O_PAGE: r = bench_parse_size (optarg, &sz); o->cfg.page_size = (uint32_t) sz;
        break;
      case O_OP: o->cfg.over_provisioning = atof (optarg); break;
      case O_MAP: r = pick ("mapping mode", optarg, maps, 3, &v);
        o->cfg.mapping_mode = (enum ftl_mapping_mode) v; break;
      case O_CACHE: o->cfg.mapping_cache_fraction = atof (optarg); break;
      case O_ALLOC: r = pick ("allocation policy", optarg, allocs, 3, &v);
        o->cfg.alloc_policy = (enum ftl_alloc_policy) v; break;
      case O_GC: r = pick ("GC policy", optarg, gcs, 2, &v);
        o->cfg.gc_policy = (enum ftl_gc_policy) v; break;
      case O_MOB: o->cfg.max_open_blocks = (uint32_t) atoi (optarg); break;
      case O_WL: r = wl_parse (optarg, &o->wl); break;
      case O_OPS: o->ops = strtoull (optarg, NULL, 10); break;
      case O_WX: o->writes_x = atof (optarg); break;
      case O_BS: r = bench_parse_size (optarg, &sz); o->bs = (uint32_t) sz; break;
      case O_READ: o->read_pct = atof (optarg); break;
      case O_ZIPF: o->zipf_theta = atof (optarg); break;
      case O_SPAN: o->span = atof (optarg); break;
      case O_WRITERS: o->writers = (uint32_t) atoi (optarg); break;
      case O_OMIN: r = bench_parse_size (optarg, &o->obj_min); break;
      case O_OMAX: r = bench_parse_size (optarg, &o->obj_max); break;
      case O_FILL: o->fill = atof (optarg); break;
      case O_TRACE: o->trace = optarg;
        if (o->wl != WL_SOFS)
          o->wl = WL_MSR;
        break;
      case O_PERDISK: o->trace_per_disk = true; break;
      case O_TIDLE: o->trace_idle = true; break;
      case O_IDLE_EVERY: o->idle_every = strtoull (optarg, NULL, 10); break;
      case O_IDLE_US: o->idle_ns = strtoull (optarg, NULL, 10) * 1000; break;
      case O_SEED: o->seed = strtoull (optarg, NULL, 10); break;
      case O_PRE: o->precondition = true; break;
      case O_PREFILL: o->pre_fill = atof (optarg); break;
      case O_PREMAX: o->pre_max_x = atof (optarg); break;
      case O_PRETOL: o->pre_tol = atof (optarg); break;
      case O_CSV: o->csv = optarg; break;
      case O_CDF: o->cdf = optarg; break;
      case O_SAMPLE: o->sample_ops = strtoull (optarg, NULL, 10); break;
      case O_LABEL: o->label = optarg; break;
      case O_JSON: o->json = true; break;
      case O_PROG: o->progress = true; break;
      case O_NOPROG: o->progress = false; break;
      case O_FSCK: o->fsck = true; break;
      case O_EXOFS: o->exofs_inode_bytes = (uint32_t) atoi (optarg); break;
      case O_WARM: o->warmup_ops = strtoull (optarg, NULL, 10); break;
      case O_SOFS_CASE: o->sofs_case = optarg; break;
      case O_SOFS_CSV: o->sofs_csv = optarg; break;
      case O_SOFS_SCALE: o->sofs_scale = atof (optarg); break;
      case O_SOFS_GCP: o->sofs_gc_pressure = true; break;
      case O_SOFS_EDGES: o->sofs_edges = (uint32_t) atoi (optarg); break;
      case O_SOFS_MAXR: o->sofs_max_reads = strtoull (optarg, NULL, 10); break;
      case O_SOFS_MAXO: r = bench_parse_size (optarg, &o->sofs_max_obj); break;
      case 'h': case O_HELP: usage (stdout); exit (0);
      default: usage (stderr); return -EINVAL;
      }
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: bad option value '%s'\n", optarg);
      return r;
    }
  if (optind < argc)
    {
      fprintf (stderr, "ftl-sim: unexpected argument '%s'\n", argv[optind]);
      return -EINVAL;
    }
  if (o->fill < 0)
    o->fill = o->wl == WL_DELREWRITE ? 0.6 : 0.8;
  if (o->bs == 0 || o->bs % 4096 || o->span <= 0 || o->span > 1
      || o->read_pct < 0 || o->read_pct > 100 || o->fill <= 0 || o->fill > 1)
    {
      fprintf (stderr, "ftl-sim: need --bs a multiple of 4K, --span in "
               "(0,1], --read-pct in [0,100], --fill in (0,1]\n");
      return -EINVAL;
    }
  if (o->precondition && (o->wl == WL_OBJECTS || o->wl == WL_DELREWRITE))
    {
      fprintf (stderr, "ftl-sim: --precondition applies to the block volume "
               "(rand, zipf, seq, msr), not to object scenarios\n");
      return -EINVAL;
    }
  return 0;
}

int
main (int argc, char **argv)
{
  struct sim_opts o;
  memset (&o, 0, sizeof o);
  int r = parse_args (argc, argv, &o);
  if (r < 0)
    return 2;
  if (o.wl == WL_SOFS)
    return sofs_main (&o) < 0 ? 1 : 0;
  uint64_t rss0 = sim_rss_kib ();
  double t0 = sim_wall ();
  struct sim s;
  r = sim_open (&s, &o);
  if (r == 0)
    r = report_open (&s, o.csv);
  if (r == 0 && o.precondition)
    r = precondition_run (&s);
  uint64_t rss1 = sim_rss_kib ();
  if (r == 0)
    r = wl_run (&s);
  if (o.progress)
    sim_phase (&s, "done", 0);
  if (r == 0 && o.fsck)
    {
      ftl_error err = { { 0 } };
      uint64_t problems = 0;
      r = ftl_fsck (s.ftl, &problems, &err);
      if (r < 0)
        fprintf (stderr, "ftl-sim: fsck found %llu problems, first: %s\n",
                 (unsigned long long) problems, err.msg);
    }
  if (r == 0 && o.cdf)
    r = report_cdf (&s, o.cdf);
  if (r == 0 && o.json)
    {
      uint64_t rss2 = sim_rss_kib ();
      report_json (&s, stdout, sim_wall () - t0, rss0,
                   rss2 > rss1 ? rss2 : rss1);
    }
  report_close (&s);
  sim_close (&s);
  return r < 0 ? 1 : 0;
}
