/* vm_bench.c - ossd-vm-bench: round trip and throughput of the channel
 * per transport, the same calls for each, for bench/vm-transports/run
 * (the guest's nvme:, sg: on SCSI and sg: on SATA beside the host's NBD).
 *
 *   round trip: a 64-byte object READ (one 4 KiB frame written, one read
 *     back), median and 90th percentile of --rounds calls;
 *   bulk: --mib MiB written with ossd_write and read with ossd_read in
 *     1 MiB calls (4 slots: the pieces of a call go out together).
 *
 *   ossd-vm-bench [--key-file FILE] [--rounds N] [--mib M] [--passes P]
 *                 [--first-pass K] NAME=URI...
 * Each pass measures every transport in turn (so that the load of a
 * shared machine falls on all of them alike).  Prints
 * "csv: NAME,PASS,KIND,VALUE,UNIT" lines and a summary per measurement.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libossd.h"

#define PID 78
#define OID_SMALL 1
#define OID_BULK 2
#define MIB (1u << 20)

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
secs (uint64_t t0)
{
  return (double) (ossd_mono_ns () - t0) / 1e9;
}

static int
bench_one (const char *name, const char *uri, const char *key_file,
           int rounds, int mib, int pass)
{
  struct ossd_connect_opts co = { .slots = 1, .max_slots = 4,
                                  .client_name = "vm-bench",
                                  .timeout_ms = 20000, .key_file = key_file };
  ossd_t *o;
  ossd_error err;
  uint8_t small[64], *buf = malloc (MIB);
  double *rtt = calloc ((size_t) rounds, sizeof *rtt);
  size_t n;

  if (buf == NULL || rtt == NULL || ossd_connect (uri, &co, &o, &err) < 0) {
    fprintf (stderr, "ossd-vm-bench: %s: %s\n", name, err.msg);
    free (buf);
    free (rtt);
    return 1;
  }
  memset (small, 'r', sizeof small);
  memset (buf, 'b', MIB);
  if ((ossd_create_partition (o, PID, &err) < 0 && err.errnum != EEXIST)
      || (ossd_create (o, PID, OID_SMALL, &err) < 0 && err.errnum != EEXIST)
      || (ossd_create (o, PID, OID_BULK, &err) < 0 && err.errnum != EEXIST)
      || ossd_write (o, PID, OID_SMALL, 0, small, sizeof small, &err) < 0) {
    fprintf (stderr, "ossd-vm-bench: %s: setup: %s\n", name, err.msg);
    goto fail;
  }
  for (int i = 0; i < rounds; i++) {
    uint64_t t0 = ossd_mono_ns ();
    if (ossd_read (o, PID, OID_SMALL, 0, small, sizeof small, &n, &err) < 0) {
      fprintf (stderr, "ossd-vm-bench: %s: read: %s\n", name, err.msg);
      goto fail;
    }
    rtt[i] = secs (t0) * 1e6;
  }
  qsort (rtt, (size_t) rounds, sizeof *rtt, cmp_double);
  double med = rtt[rounds / 2], p90 = rtt[rounds * 9 / 10];

  uint64_t t0 = ossd_mono_ns ();
  for (int i = 0; i < mib; i++)
    if (ossd_write (o, PID, OID_BULK, (uint64_t) i * MIB, buf, MIB, &err) < 0) {
      fprintf (stderr, "ossd-vm-bench: %s: write: %s\n", name, err.msg);
      goto fail;
    }
  double wmib = mib / secs (t0);
  t0 = ossd_mono_ns ();
  for (int i = 0; i < mib; i++)
    if (ossd_read (o, PID, OID_BULK, (uint64_t) i * MIB, buf, MIB, &n, &err) < 0
        || n != MIB) {
      fprintf (stderr, "ossd-vm-bench: %s: read: %s\n", name, err.msg);
      goto fail;
    }
  double rmib = mib / secs (t0);

  printf ("csv: %s,%d,roundtrip_median,%.1f,us\n", name, pass, med);
  printf ("csv: %s,%d,roundtrip_p90,%.1f,us\n", name, pass, p90);
  printf ("csv: %s,%d,write,%.1f,MiB/s\n", name, pass, wmib);
  printf ("csv: %s,%d,read,%.1f,MiB/s\n", name, pass, rmib);
  printf ("%s (pass %d): round trip median %.0f us (p90 %.0f) over %d "
          "calls; write %.1f MiB/s, read %.1f MiB/s over %d MiB\n", name,
          pass, med, p90, rounds, wmib, rmib, mib);
  fflush (stdout);
  ossd_disconnect (o);
  free (buf);
  free (rtt);
  return 0;
 fail:
  ossd_disconnect (o);
  free (buf);
  free (rtt);
  return 1;
}

int
main (int argc, char **argv)
{
  static const struct option lo[] = {
    { "key-file", required_argument, NULL, 'k' },
    { "rounds", required_argument, NULL, 'r' },
    { "mib", required_argument, NULL, 'm' },
    { "passes", required_argument, NULL, 'p' },
    { "first-pass", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *key_file = NULL;
  int rounds = 300, mib = 32, passes = 1, first = 1, c, bad = 0;

  setvbuf (stdout, NULL, _IOLBF, 0);
  while ((c = getopt_long (argc, argv, "h", lo, NULL)) != -1)
    switch (c) {
    case 'k': key_file = optarg; break;
    case 'r': rounds = atoi (optarg); break;
    case 'm': mib = atoi (optarg); break;
    case 'p': passes = atoi (optarg); break;
    case 'f': first = atoi (optarg); break;
    case 'h':
      puts ("usage: ossd-vm-bench [--key-file FILE] [--rounds N] [--mib M] [--passes P]\n"
            "                     [--first-pass K] NAME=URI...\n"
            "Round trip (64-byte object READ) and bulk write/read (1 MiB calls)\n"
            "per transport, P passes over all of them (numbered from K);\n"
            "prints csv: NAME,PASS,KIND,VALUE,UNIT lines.");
      return 0;
    default: return 2;
    }
  if (rounds < 10 || mib < 1 || passes < 1 || optind >= argc) {
    fputs ("ossd-vm-bench: want --rounds >= 10, --mib >= 1, --passes >= 1 "
           "and NAME=URI (see --help)\n", stderr);
    return 2;
  }
  for (int pass = first; pass < first + passes; pass++)
  for (int i = optind; i < argc; i++) {
    char name[32];
    const char *eq = strchr (argv[i], '=');
    if (eq == NULL || eq == argv[i] || (size_t) (eq - argv[i]) >= sizeof name) {
      fprintf (stderr, "ossd-vm-bench: '%s' is not NAME=URI\n", argv[i]);
      return 2;
    }
    memcpy (name, argv[i], (size_t) (eq - argv[i]));
    name[eq - argv[i]] = '\0';
    bad += bench_one (name, eq + 1, key_file, rounds, mib, pass);
  }
  return bad ? 1 : 0;
}
