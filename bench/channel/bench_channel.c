/* bench_channel.c - the reserved-LBA channel against raw NBD on the same
 * socket, side by side in one run:
 *   round trip: a small command (64-byte object READ: one 4 KiB frame
 *     written, one 4 KiB frame read) vs a raw 4 KiB pwrite + 4 KiB pread
 *     pair on the block volume;
 *   bulk: object READ throughput vs raw NBD reads of the volume, both in
 *     1 MiB requests.
 * Rounds alternate the two sides so drift hits both alike.
 *
 *   bench_channel SOCKET [--rounds N] [--bulk-mib M] [--csv FILE] [--json]
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libnbd.h>

#include "libossd.h"

#define PID 77
#define OID 1

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
die (const char *what, const char *msg)
{
  fprintf (stderr, "bench_channel: %s: %s\n", what, msg);
  exit (1);
}

int
main (int argc, char **argv)
{
  const char *sock = NULL, *csv = NULL;
  int rounds = 7, small_ops = 2000;
  uint64_t bulk_mib = 256, request_mib = 1;
  bool json = false;
  char uri[512];
  ossd_error err;
  ossd_t *o;
  struct nbd_handle *nbd;

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0)
        {
          printf ("usage: bench_channel SOCKET [--rounds N] [--small-ops N] [--bulk-mib M] [--request-mib R] [--csv FILE] [--json]\n"
                  "Measures a small command's round trip vs a raw NBD pwrite+pread pair,\n"
                  "and bulk object READ vs raw NBD reads, on the same drive socket.\n");
          return 0;
        }
      else if (strcmp (argv[i], "--rounds") == 0 && i + 1 < argc)
        rounds = atoi (argv[++i]);
      else if (strcmp (argv[i], "--small-ops") == 0 && i + 1 < argc)
        small_ops = atoi (argv[++i]);
      else if (strcmp (argv[i], "--bulk-mib") == 0 && i + 1 < argc)
        bulk_mib = strtoull (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--request-mib") == 0 && i + 1 < argc)
        request_mib = strtoull (argv[++i], NULL, 0);
      else if (strcmp (argv[i], "--csv") == 0 && i + 1 < argc)
        csv = argv[++i];
      else if (strcmp (argv[i], "--json") == 0)
        json = true;
      else
        sock = argv[i];
    }
  if (!sock)
    die ("usage", "bench_channel SOCKET [--rounds N] [--bulk-mib M] [--csv FILE]");

  snprintf (uri, sizeof uri, "nbd+unix:///?socket=%s", sock);
  struct ossd_connect_opts opts = { .client_name = "bench", .max_slots = 4 };
  char key[4096];
  ossd_default_key_file (key, sizeof key);
  opts.key_file = key;
  if (ossd_connect (uri, &opts, &o, &err) < 0)
    die ("connect", err.msg);
  nbd = nbd_create ();
  if (!nbd || nbd_connect_uri (nbd, uri) == -1)
    die ("nbd connect", nbd_get_error ());
  uint64_t vol = ossd_volume_bytes (o);
  uint64_t bulk = bulk_mib << 20;
  if (bulk > vol)
    bulk = vol / (1 << 20) * (1 << 20);

  /* Same bytes on both sides: the volume and one object.  Bulk reads are
   * `request_mib` per call on both sides. */
  size_t piece = (size_t) request_mib << 20;
  if (bulk % piece)
    bulk = bulk / piece * piece;
  uint8_t *buf = aligned_alloc (4096, piece), *small = aligned_alloc (4096, 4096);
  for (size_t i = 0; i < piece; i++)
    buf[i] = (uint8_t) (i * 31 + 11);
  memset (small, 0x42, 4096);
  if (ossd_create_partition (o, PID, &err) < 0 && err.errnum != EEXIST)
    die ("create partition", err.msg);
  if (ossd_create (o, PID, OID, &err) < 0 && err.errnum != EEXIST)
    die ("create", err.msg);
  fprintf (stderr, "preparing %" PRIu64 " MiB on each side...\n", bulk >> 20);
  for (uint64_t off = 0; off < bulk; off += piece)
    {
      if (ossd_write (o, PID, OID, off, buf, piece, &err) < 0)
        die ("write object", err.msg);
      if (nbd_pwrite (nbd, buf, piece, off, 0) == -1)
        die ("write volume", nbd_get_error ());
    }
  if (ossd_flush (o, &err) < 0)
    die ("flush", err.msg);

  /* A second client without the key, holding only an object capability
   * minted by the first (as pg_ossd holds what ossdfs hands it): the drive
   * then also checks the object's capability version on every command. */
  ossd_t *oc;
  struct ossd_connect_opts copts = opts;
  struct ossd_cap cap = { .pid = PID, .oid = OID, .rights = OSSD_RIGHT_READ,
    .expiry_ns = ossd_realtime_ns () + 3600ull * 1000000000ull };
  copts.key_file = "";
  copts.client_name = "bench-cap";
  if (ossd_connect (uri, &copts, &oc, &err) < 0
      || ossd_mint_capability (o, &cap, &err) < 0
      || ossd_add_capability (oc, &cap, &err) < 0)
    die ("object-capability client", err.msg);
  double *rt_ocap = calloc (rounds, sizeof (double));
  double *rt_cmd = calloc (rounds, sizeof (double)), *rt_raw = calloc (rounds, sizeof (double));
  double *bw_cmd = calloc (rounds, sizeof (double)), *bw_raw = calloc (rounds, sizeof (double));
  FILE *out = csv ? fopen (csv, "w") : NULL;
  if (out)
    fprintf (out, "round,kind,side,value,unit\n");
  for (int r = 0; r < rounds; r++)
    {
      double t0, t1;
      uint8_t tiny[64];
      size_t got;

      /* small command round trip */
      t0 = now ();
      for (int i = 0; i < small_ops; i++)
        if (ossd_read (o, PID, OID, (uint64_t) (i % 1000) * 64, tiny, sizeof tiny, &got, &err) < 0)
          die ("small read", err.msg);
      t1 = now ();
      rt_cmd[r] = (t1 - t0) / small_ops * 1e6;
      t0 = now ();
      for (int i = 0; i < small_ops; i++)
        if (ossd_read (oc, PID, OID, (uint64_t) (i % 1000) * 64, tiny, sizeof tiny, &got, &err) < 0)
          die ("small read (object capability)", err.msg);
      t1 = now ();
      rt_ocap[r] = (t1 - t0) / small_ops * 1e6;
      t0 = now ();
      for (int i = 0; i < small_ops; i++)
        {
          uint64_t off = (uint64_t) (i % 1000) * 4096;
          if (nbd_pwrite (nbd, small, 4096, off, 0) == -1
              || nbd_pread (nbd, small, 4096, off, 0) == -1)
            die ("raw pair", nbd_get_error ());
        }
      t1 = now ();
      rt_raw[r] = (t1 - t0) / small_ops * 1e6;

      /* bulk reads */
      t0 = now ();
      for (uint64_t off = 0; off < bulk; off += piece)
        if (ossd_read (o, PID, OID, off, buf, piece, &got, &err) < 0 || got != piece)
          die ("bulk read", err.msg);
      t1 = now ();
      bw_cmd[r] = bulk / (t1 - t0) / 1048576.0;
      t0 = now ();
      for (uint64_t off = 0; off < bulk; off += piece)
        if (nbd_pread (nbd, buf, piece, off, 0) == -1)
          die ("raw bulk read", nbd_get_error ());
      t1 = now ();
      bw_raw[r] = bulk / (t1 - t0) / 1048576.0;
      if (out)
        fprintf (out, "%d,roundtrip,command,%.2f,us\n%d,roundtrip,raw_nbd,%.2f,us\n"
                 "%d,bulk,command,%.1f,MiB/s\n%d,bulk,raw_nbd,%.1f,MiB/s\n",
                 r, rt_cmd[r], r, rt_raw[r], r, bw_cmd[r], r, bw_raw[r]);
      if (out)
        fprintf (out, "%d,roundtrip,command_object_cap,%.2f,us\n", r, rt_ocap[r]);
      fprintf (stderr, "\rround %d/%d", r + 1, rounds);
    }
  fprintf (stderr, "\n");
  double mc = median (rt_cmd, rounds), mr = median (rt_raw, rounds);
  double mo = median (rt_ocap, rounds);
  double bc = median (bw_cmd, rounds), br = median (bw_raw, rounds);
  if (json)
    printf ("{\"roundtrip_command_us\": %.2f, \"roundtrip_raw_us\": %.2f, \"roundtrip_ratio\": %.3f, "
            "\"bulk_command_mibs\": %.1f, \"bulk_raw_mibs\": %.1f, \"bulk_ratio\": %.3f, \"request_mib\": %llu, "
            "\"roundtrip_object_cap_us\": %.2f}\n",
            mc, mr, mc / mr, bc, br, bc / br, (unsigned long long) request_mib, mo);
  else
    {
      printf ("small command round trip: %.1f us   raw NBD 4K pwrite+pread: %.1f us   ratio %.2fx (target <= 1.3x)\n",
              mc, mr, mc / mr);
      printf ("bulk object READ:        %.0f MiB/s raw NBD reads:      %.0f MiB/s ratio %.2fx (target >= 0.8x; %llu MiB per call on both sides)\n",
              bc, br, bc / br, (unsigned long long) request_mib);
      printf ("small command, object capability (keyless client, as pg_ossd): %.1f us   vs device-wide capability %.2fx\n",
              mo, mo / mc);
    }
  if (out)
    fclose (out);
  ossd_disconnect (oc);
  ossd_remove (o, PID, OID, &err);
  ossd_disconnect (o);
  nbd_shutdown (nbd, 0);
  nbd_close (nbd);
  return 0;
}
