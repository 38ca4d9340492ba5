/* ossd_stress_client.c - one of several concurrent clients of the
 * integration tests: creates, writes, reads back, checks every byte and
 * removes its own objects through its own slots.
 *
 *   ossd_stress_client URI CLIENT_ID [OBJECTS] [ROUNDS] [MAX_BYTES]
 * Exits 0 when every byte matched.  Odd client IDs poll for the drive's
 * replies before sleeping (spin_us), even ones sleep at once, so both ways
 * of waiting run side by side. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libossd.h"

#define PID 4242

static void
fill (uint8_t *p, size_t n, uint64_t seed)
{
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      p[i] = (uint8_t) x;
    }
}

int
main (int argc, char **argv)
{
  struct ossd_connect_opts o = { .client_name = "stress", .max_slots = 3 };
  ossd_error err = { 0 };
  ossd_t *h;
  unsigned id, objects = 4, rounds = 3;
  size_t max_bytes = 3u << 20;

  if (argc < 3 || strcmp (argv[1], "--help") == 0)
    {
      fprintf (stderr, "usage: ossd_stress_client URI CLIENT_ID [OBJECTS] [ROUNDS] [MAX_BYTES]\n");
      return 2;
    }
  id = (unsigned) atoi (argv[2]);
  o.spin_us = id % 2 ? 200 : 0;
  if (argc > 3) objects = (unsigned) atoi (argv[3]);
  if (argc > 4) rounds = (unsigned) atoi (argv[4]);
  if (argc > 5) max_bytes = (size_t) strtoull (argv[5], NULL, 0);
  /* As root tools do: the drive's key from $OSSD_KEY_FILE or the run
   * directory (docs/security.md). */
  char key[4096];
  ossd_default_key_file (key, sizeof key);
  o.key_file = key;
  if (ossd_connect (argv[1], &o, &h, &err) < 0)
    {
      fprintf (stderr, "client %u: connect: %s\n", id, err.msg);
      return 1;
    }
  if (ossd_create_partition (h, PID, &err) < 0 && err.errnum != EEXIST)
    {
      fprintf (stderr, "client %u: create partition: %s\n", id, err.msg);
      return 1;
    }
  uint8_t *buf = malloc (max_bytes), *back = malloc (max_bytes);
  for (unsigned r = 0; r < rounds; r++)
    for (unsigned k = 0; k < objects; k++)
      {
        uint64_t oid = (uint64_t) id * 100000 + k;
        uint64_t seed = ((uint64_t) id << 40) ^ ((uint64_t) r << 20) ^ k;
        size_t len = 1 + (size_t) (seed * 2654435761u % max_bytes);
        size_t got = 0;
        char attr[64], aback[64];
        size_t alen = 0;

        fill (buf, len, seed);
        if (ossd_create (h, PID, oid, &err) < 0
            || ossd_write (h, PID, oid, 0, buf, len, &err) < 0)
          goto fail;
        snprintf (attr, sizeof attr, "client=%u round=%u obj=%u", id, r, k);
        if (ossd_set_attr (h, PID, oid, 0x10000, 1, attr, strlen (attr), &err) < 0)
          goto fail;
        memset (back, 0, len);
        if (ossd_read (h, PID, oid, 0, back, len, &got, &err) < 0)
          goto fail;
        if (got != len || memcmp (buf, back, len) != 0)
          {
            size_t i = 0;
            while (i < got && buf[i] == back[i])
              i++;
            fprintf (stderr, "client %u: object %" PRIu64 " round %u: read %zu of %zu bytes, first difference at byte %zu\n",
                     id, oid, r, got, len, i);
            return 1;
          }
        if (ossd_get_attr (h, PID, oid, 0x10000, 1, aback, sizeof aback, &alen, &err) < 0)
          goto fail;
        if (alen != strlen (attr) || memcmp (aback, attr, alen) != 0)
          {
            fprintf (stderr, "client %u: attribute of %" PRIu64 " differs\n", id, oid);
            return 1;
          }
        if (ossd_remove (h, PID, oid, &err) < 0)
          goto fail;
        continue;
      fail:
        fprintf (stderr, "client %u: object %" PRIu64 " round %u: %s\n", id, oid, r, err.msg);
        return 1;
      }
  free (buf);
  free (back);
  ossd_disconnect (h);
  printf ("client %u: %u objects x %u rounds verified\n", id, objects, rounds);
  return 0;
}
