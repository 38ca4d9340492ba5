/* main.c - ossdctl: manage a pg_ossd drive from the command line.
 * Global options, the command table and --help. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossdctl.h"

static const char usage[] =
  "usage: ossdctl [--device URI] [--key-file FILE] [--timeout-ms N] [--json] [--progress]\n"
  "               COMMAND [ARGS]\n"
  "\n"
  "Drive process (emulated drive served by nbdkit on a Unix socket):\n"
  "  device start --image FILE [--size SIZE] [--volume SIZE] [--profile NAME]\n"
  "               [--socket PATH] [--rundir DIR] [--format] [--key-file FILE]\n"
  "               [--group NAME] [-- NBDKIT-PARAMS...]\n"
  "                                      (key: FILE.key, created 0600; --group: socket\n"
  "                                      mode 0660 owned root:NAME)\n"
  "                                      (--profile: the drive profile in force,\n"
  "                                      default $OSSD_PROFILE, else the image's;\n"
  "                                      see ossdctl profiles)\n"
  "                                      (a watchdog starts nbdkit again on its\n"
  "                                      image when it crashes; not after SIGKILL)\n"
  "  device stop [--rundir DIR] [--force]  stop it (flushes the FTL); refused\n"
  "                                      while ossdfs has it mounted\n"
  "  device status [--rundir DIR]        is it running, where, restarts by its watchdog\n"
  "\n"
  "Drive:\n"
  "  format [--size SIZE] [--profile NAME] [--mapping ram|dftl|dftl-split]\n"
  "         [--alloc unified|index-data|per-object] [--gc greedy|cost-benefit]\n"
  "  info                                geometry, capacity, channel layout\n"
  "  stats [--reset]                     FTL and channel statistics\n"
  "  profile show [--reads N] [--edges N] | reset | on | off\n"
  "          | apply [--planner sofs|chain]\n"
  "                                      the drive's access profile: host reads\n"
  "                                      and their unit-to-unit transitions per\n"
  "                                      slot, merged; apply: plan a layout per\n"
  "                                      object, relocated while the drive is\n"
  "                                      idle (docs/sofs.md; master key)\n"
  "  cold                                flush, then the drive drops its caches\n"
  "                                      (FTL, its image's page cache): the next\n"
  "                                      reads are cold (needs the master key)\n"
  "  profiles                            the drive profiles (docs/profiles.md):\n"
  "                                      device start --profile NAME puts one in\n"
  "                                      force; a paced one runs in real time\n"
  "  fsck                                check every FTL invariant\n"
  "  events [--follow]                   drive events (GC, wear, kernels, slots),\n"
  "                                      with UTC times; --json gives JSON Lines\n"
  "  partition create PID | rm PID | ls\n"
  "\n"
  "Arrays (drives in array order, drive 0 first; docs/arrays.md):\n"
  "  array create --device URI --device URI... [--stripe-unit SIZE]\n"
  "               [--level raid0|raid5] [--partition PID] [--force]\n"
  "                                      label the drives as one ossdfs array\n"
  "                                      (unit default 1M, a multiple of 8K;\n"
  "                                      raid5: 3 drives or more, one unit of\n"
  "                                      parity per row)\n"
  "  array info --device URI... [--partition PID]\n"
  "                                      uuid, unit, each drive's usage\n"
  "  array fsck --device URI... [--partition PID]\n"
  "                                      labels, every file's object on every\n"
  "                                      drive, strays, each drive's FSCK,\n"
  "                                      raid5: every row's parity\n"
  "  array rebuild --device URI... --drive D [--partition PID]\n"
  "                                      raid5, unmounted: write drive D's\n"
  "                                      share again from the others (a new\n"
  "                                      drive, or one out of date)\n"
  "\n"
  "Objects (OBJ is PID:OID):\n"
  "  put FILE OBJ [--offset N]           store a local file ('-' = stdin)\n"
  "  get OBJ FILE                        read an object ('-' = stdout)\n"
  "  ls PID                              list objects of a partition\n"
  "  stat OBJ                            size, version, times\n"
  "  rm OBJ                              remove an object\n"
  "  attr get OBJ PAGE NUMBER | attr set OBJ PAGE NUMBER VALUE | attr ls OBJ\n"
  "  priority OBJ [LEVEL]                the object's I/O priority, 0 (lowest)\n"
  "                                      to 7, default 4: the drive's scans yield\n"
  "                                      to higher-priority I/O (docs/qos.md)\n"
  "\n"
  "Options:\n"
  "  --device URI   nbd+unix:///?socket=PATH, nbd://HOST:PORT, file:PATH,\n"
  "                 inproc:IMAGE, sg:/dev/sgN, nvme:/dev/nvmeXnY\n"
  "                 (default: $OSSD_DEVICE, else the socket in $OSSD_RUNDIR or /run/ossd)\n"
  "  --key-file FILE  the drive's master key (root; default: $OSSD_KEY_FILE,\n"
  "                 else ossd.key in $OSSD_RUNDIR or /run/ossd, a link to IMAGE.key);\n"
  "                 without a readable key the drive refuses all but info and stats\n"
  "  --cap TEXT     a capability given to us (getfattr -n user.ossd.cap FILE\n"
  "                 on ossdfs), for a user without the key; repeatable\n"
  "  --timeout-ms N longest wait for the drive, connecting included (default\n"
  "                 10000; format and fsck: 600000); past it the command fails\n"
  "                 with a message naming the drive and the timeout\n"
  "  --json         machine-readable output for read-outs\n"
  "  --progress     always draw a progress bar for put/get\n"
  "  --help         this text (also: ossdctl COMMAND --help)\n";

struct command
{
  const char *name;
  int (*fn) (struct ctl *, int, char **);
};

static const struct command commands[] = {
  { "device", cmd_device }, { "format", cmd_format }, { "info", cmd_info },
  { "stats", cmd_stats }, { "profile", cmd_profile }, { "fsck", cmd_fsck }, { "events", cmd_events },
  { "partition", cmd_partition }, { "put", cmd_put }, { "get", cmd_get },
  { "ls", cmd_ls }, { "rm", cmd_rm }, { "stat", cmd_stat },
  { "attr", cmd_attr }, { "priority", cmd_priority }, { "cold", cmd_cold },
  { "profiles", cmd_profiles },
  { "array", cmd_array },
};

int
main (int argc, char **argv)
{
  struct ctl c = { .device = NULL, .timeout_ms = 10000 };
  static const struct option longopts[] = {
    { "device", required_argument, NULL, 'd' },
    { "key-file", required_argument, NULL, 'k' },
    { "cap", required_argument, NULL, 'c' },
    { "json", no_argument, NULL, 'j' },
    { "progress", no_argument, NULL, 'p' },
    { "timeout-ms", required_argument, NULL, 't' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int opt;

  /* Stop at the first non-option: the command parses its own options. */
  while ((opt = getopt_long (argc, argv, "+d:k:c:jph", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'd': c.device = optarg; break;
      case 'k': c.key_file = optarg; break;
      case 'c':
        if (c.n_caps == 16)
          {
            fputs ("ossdctl: at most 16 --cap options\n", stderr);
            return 2;
          }
        c.caps[c.n_caps++] = optarg;
        break;
      case 'j': c.json = true; break;
      case 'p': c.progress = true; break;
      case 't':
        {
          char *end;
          unsigned long v = strtoul (optarg, &end, 10);
          if (*optarg == '\0' || *end || v == 0 || v > 86400000)
            {
              fprintf (stderr, "ossdctl: --timeout-ms wants milliseconds (1 to 86400000), not '%s'\n", optarg);
              return 2;
            }
          c.timeout_ms = (uint32_t) v;
          c.timeout_given = true;
          break;
        }
      case 'h': fputs (usage, stdout); return 0;
      default: fputs (usage, stderr); return 2;
      }
  if (!c.device)
    c.device = ctl_default_device ();
  if (optind >= argc)
    {
      fputs (usage, stderr);
      return 2;
    }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[optind], commands[i].name) == 0)
      {
        for (int k = optind + 1; k < argc; k++)
          {
            if (strcmp (argv[k], "--") == 0)
              break;
            if (strcmp (argv[k], "--help") == 0 || strcmp (argv[k], "-h") == 0)
              {
                fputs (usage, stdout);
                return 0;
              }
            if (strcmp (argv[k], "--json") == 0)
              c.json = true;
          }
        return commands[i].fn (&c, argc - optind - 1, argv + optind + 1);
      }
  fprintf (stderr, "ossdctl: unknown command '%s'\n\n%s", argv[optind], usage);
  return 2;
}
