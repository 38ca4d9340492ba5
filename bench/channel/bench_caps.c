/* bench_caps.c - what the drive's capability check costs, in one run:
 *   the HMAC-SHA256 verification (once per capability per slot),
 *   the check a slot does for a capability it already verified (the
 *     request's needs, the comparison with the slot's last capability,
 *     the clock, the scope and rights), done as the drive does it,
 *   and in-process (inproc: drive, no socket, so the check is a larger
 *   share) 64-byte READ round trips: device-wide capability (root tools,
 *   ossdfs), object capability (a keyless client such as pg_ossd; the
 *   drive also reads the object's capability version), and a new
 *   capability on every call (an HMAC every command: the worst case).
 *
 *   bench_caps [--ops N]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libossd.h"

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die (const char *what, const char *msg)
{
  fprintf (stderr, "bench_caps: %s: %s\n", what, msg);
  exit (1);
}

/* 64-byte READs carrying cap (fresh: a new one, so a new HMAC, each
 * call), explicitly: libossd sends a request's own capability as is. */
static double
reads_us (ossd_t *o, int ops, const uint8_t *key, struct ossd_cap cap,
          bool fresh)
{
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Capability pb;
  Ossd__Response *resp;
  ossd_error err;
  double t0 = now ();

  id.pid = 5;
  id.oid = 1;
  rd.obj = &id;
  rd.length = 64;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  for (int i = 0; i < ops; i++)
    {
      if (fresh)
        {
          cap.expiry_ns++;
          ossd_cap_sign (key, &cap);
        }
      ossd_cap_to_proto (&cap, &pb);
      req.cap = &pb;
      rd.offset = (uint64_t) (i % 100) * 64;
      if (ossd_call (o, &req, &resp, &err) < 0)
        die ("read", err.msg);
      ossd__response__free_unpacked (resp, NULL);
    }
  return (now () - t0) / ops * 1e6;
}

static double
median (double *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return v[n / 2];
}

int
main (int argc, char **argv)
{
  int ops = 100000;
  ossd_t *o;
  ossd_error err;
  uint8_t key[OSSD_KEY_BYTES];
  char dir[] = "/tmp/ossd-bench-caps.XXXXXX", uri[300], keyf[300], why[300];
  static uint8_t data[8192];

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--ops") == 0 && i + 1 < argc)
      ops = atoi (argv[++i]);

  /* 1. HMAC verification. */
  struct ossd_cap c = { .pid = 5, .oid = 1, .rights = OSSD_RIGHT_READ,
    .expiry_ns = ossd_realtime_ns () + 3600000000000ull };
  memset (key, 7, sizeof key);
  ossd_cap_sign (key, &c);
  int good = 0;
  double t0 = now ();
  for (int i = 0; i < ops * 10; i++)
    good += ossd_cap_mac_ok (key, &c);
  double hmac_ns = (now () - t0) / (ops * 10) * 1e9;

  /* 2. The cached path, as device_caps_check runs it. */
  Ossd__Request req = OSSD__REQUEST__INIT;
  Ossd__Read rd = OSSD__READ__INIT;
  Ossd__ObjectId id = OSSD__OBJECT_ID__INIT;
  Ossd__Capability pb;
  struct ossd_cap last = c, seen;
  struct ossd_cap_need n[8];
  id.pid = 5;
  id.oid = 1;
  rd.obj = &id;
  req.body_case = OSSD__REQUEST__BODY_READ;
  req.read = &rd;
  ossd_cap_to_proto (&c, &pb);
  req.cap = &pb;
  t0 = now ();
  for (int i = 0; i < ops * 10; i++)
    {
      size_t nn = ossd_request_needs (&req, n, 8);
      ossd_cap_from_proto (req.cap, &seen);
      good += memcmp (&seen, &last, sizeof seen) == 0
        && seen.expiry_ns > ossd_realtime_ns () && nn == 1
        && ossd_cap_covers (&seen, &n[0]);
    }
  double cached_ns = (now () - t0) / (ops * 10) * 1e9;
  if (good != 2 * ops * 10)
    die ("check", "a capability failed its own check");

  /* 3. In-process round trips. */
  if (!mkdtemp (dir))
    die ("mkdtemp", dir);
  snprintf (uri, sizeof uri, "inproc:%s/img?create=1&size=256M&volume=1M", dir);
  snprintf (keyf, sizeof keyf, "%s/img.key", dir);
  if (ossd_connect (uri, NULL, &o, &err) < 0)
    die ("connect", err.msg);
  if (ossd_create_partition (o, 5, &err) < 0 || ossd_create (o, 5, 1, &err) < 0
      || ossd_write (o, 5, 1, 0, data, sizeof data, &err) < 0)
    die ("prepare", err.msg);
  if (ossd_key_load (keyf, key, why, sizeof why) < 0)
    die ("key", why);
  struct ossd_cap dev = { .rights = OSSD_RIGHTS_ALL,
    .expiry_ns = ossd_realtime_ns () + 3600000000000ull };
  struct ossd_cap obj = { .pid = 5, .oid = 1, .rights = OSSD_RIGHT_READ,
    .expiry_ns = dev.expiry_ns };
  ossd_cap_sign (key, &dev);
  ossd_cap_sign (key, &obj);
  enum { ROUNDS = 7 };
  double dv[ROUNDS], ov[ROUNDS], fv[ROUNDS];
  int per = ops / ROUNDS;
  /* Rounds alternate the three so drift hits them alike. */
  for (int r = 0; r < ROUNDS; r++)
    {
      dv[r] = reads_us (o, per, key, dev, false);
      ov[r] = reads_us (o, per, key, obj, false);
      fv[r] = reads_us (o, per, key, obj, true);
    }
  double md = median (dv, ROUNDS), mo = median (ov, ROUNDS), mf = median (fv, ROUNDS);
  printf ("HMAC-SHA256 capability verification: %.0f ns (once per capability per slot)\n", hmac_ns);
  printf ("check of an already verified capability: %.0f ns per command\n", cached_ns);
  printf ("in-process 64-byte READ round trip (medians of %d rounds of %d):\n", ROUNDS, per);
  printf ("  device-wide capability (root tools, ossdfs):            %.2f us\n", md);
  printf ("  object capability (pg_ossd; + capability version read): %.2f us  (%+.2f us)\n", mo, mo - md);
  printf ("  a new capability every call (an HMAC every command):     %.2f us  (%+.2f us)\n", mf, mf - mo);
  ossd_disconnect (o);
  snprintf (why, sizeof why, "rm -rf %s", dir);
  if (system (why) != 0)
    return 1;
  return 0;
}
