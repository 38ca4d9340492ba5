/* soak_writer.c - the verifying writer of bench/soak/kill-drive.
 *
 *   soak_writer write  URI STATE [SEED]   write until the drive fails
 *   soak_writer verify URI STATE          check every object, update STATE
 *
 * NOBJ objects (partition 77, OIDs 1..NOBJ) of fixed sizes, 4 KiB blocks
 * each.  Writing generation g of object k rewrites all its blocks; every
 * block starts with a header {magic, oid, generation, block index, FNV-1a
 * of the rest of the block} and the rest is a pseudo-random fill of
 * (oid, generation, block).  `write` rewrites random batches of objects,
 * FLUSHes the device after each batch and only then counts them
 * acknowledged.  On the first failed call (the drive was killed) it
 * writes STATE (per object: acknowledged generation, highest generation
 * attempted) and exits 0.
 *
 * `verify` reads every object back.  Each block must be intact (header,
 * checksum) and of a generation in [acked, attempted]: a block older than
 * its acknowledged generation, or garbage, is a LOSS; an object never
 * acknowledged may also be absent or read as zeros (it was never
 * promised).  Blocks of different generations in one object (a torn
 * multi-block write that was never acknowledged) are counted as "mixed"
 * and printed (once: not again while the object is not rewritten): the
 * contract only promises acknowledged-after-FLUSH data.
 * Then it FLUSHes and records what it read as acknowledged.  Exit 0 when
 * nothing was lost, 1 on a loss, 2 on a usage or connection error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libossd.h"

#define PID 77
#define NOBJ 48
#define BLK 4096
#define MAGIC 0x4b414f53u        /* "SOAK" */

struct hdr
{
  uint32_t magic;
  uint32_t blk;
  uint64_t oid;
  uint64_t gen;
  uint64_t sum;                 /* FNV-1a of bytes [32, BLK) */
};

/* per object: acknowledged generation, highest attempted, and the
 * attempted generation at the last verify (an object not written since is
 * not counted as newly mixed again) */
static uint64_t acked[NOBJ + 1], attempted[NOBJ + 1], verified[NOBJ + 1];

static size_t
obj_blocks (unsigned k)
{
  return 1 + (k * 7) % 12;      /* 1..12 blocks: 4..48 KiB */
}

static uint64_t
fnv (const uint8_t *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static void
make_block (uint8_t *b, uint64_t oid, uint64_t gen, uint32_t blk)
{
  uint64_t x = (oid * 0x9e3779b97f4a7c15ull) ^ (gen << 20) ^ blk ^ 0x5bd1e995;
  for (size_t i = sizeof (struct hdr); i < BLK; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      b[i] = (uint8_t) x;
    }
  struct hdr h = { MAGIC, blk, oid, gen, fnv (b + sizeof h, BLK - sizeof h) };
  memcpy (b, &h, sizeof h);
}

static int
load_state (const char *path)
{
  FILE *f = fopen (path, "r");
  if (!f)
    return errno == ENOENT ? 0 : -1;
  unsigned k;
  uint64_t a, t, v;
  char line[256];
  while (fgets (line, sizeof line, f))
    {
      int n = sscanf (line, "%u %" SCNu64 " %" SCNu64 " %" SCNu64, &k, &a, &t, &v);
      if (n >= 3 && k >= 1 && k <= NOBJ)
        {
          acked[k] = a;
          attempted[k] = t;
          verified[k] = n == 4 ? v : 0;
        }
    }
  fclose (f);
  return 0;
}

static int
save_state (const char *path)
{
  char tmp[4096];
  snprintf (tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen (tmp, "w");
  if (!f)
    return -1;
  for (unsigned k = 1; k <= NOBJ; k++)
    fprintf (f, "%u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", k, acked[k], attempted[k],
             verified[k]);
  if (fclose (f) != 0)
    return -1;
  return rename (tmp, path);
}

static int
do_write (ossd_t *h, const char *state, uint64_t seed)
{
  ossd_error err = { 0 };
  uint8_t *buf = malloc (12 * BLK);
  uint64_t writes = 0, flushes = 0, rng = seed | 1;
  if (ossd_create_partition (h, PID, &err) < 0 && err.errnum != EEXIST)
    goto fail;
  for (;;)
    {
      unsigned batch[8], nb;
      rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
      nb = 1 + (unsigned) (rng % 8);
      for (unsigned i = 0; i < nb; i++)
        {
          rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
          unsigned k = 1 + (unsigned) (rng % NOBJ);
          batch[i] = k;
          uint64_t gen = attempted[k] + 1;
          size_t nblk = obj_blocks (k);
          for (uint32_t b = 0; b < nblk; b++)
            make_block (buf + (size_t) b * BLK, k, gen, b);
          if (attempted[k] == 0 && ossd_create (h, PID, k, &err) < 0 && err.errnum != EEXIST)
            goto fail;
          attempted[k] = gen;   /* before the write: it may land */
          if (ossd_write (h, PID, k, 0, buf, nblk * BLK, &err) < 0)
            goto fail;
          writes++;
        }
      if (ossd_flush (h, &err) < 0)
        goto fail;
      flushes++;
      for (unsigned i = 0; i < nb; i++)
        {
          /* acknowledged: the generation written in this batch (the
           * latest attempt of that object, as batches are sequential) */
          unsigned k = batch[i];
          acked[k] = attempted[k];
        }
    }
fail:
  free (buf);
  if (save_state (state) < 0)
    {
      perror (state);
      return 2;
    }
  printf ("writer: %" PRIu64 " writes, %" PRIu64 " flushes acknowledged; stopped by: %s\n",
          writes, flushes, err.msg[0] ? err.msg : "?");
  return 0;
}

static int
do_verify (ossd_t *h, const char *state)
{
  ossd_error err = { 0 };
  uint8_t *buf = malloc (13 * BLK), *ref = malloc (BLK);
  unsigned lost = 0, mixed = 0, checked = 0, absent = 0;
  uint64_t newack[NOBJ + 1];
  for (unsigned k = 1; k <= NOBJ; k++)
    {
      newack[k] = acked[k];
      if (attempted[k] == 0)
        continue;
      size_t nblk = obj_blocks (k), got = 0;
      memset (buf, 0, 13 * BLK);
      if (ossd_read (h, PID, k, 0, buf, 13 * BLK, &got, &err) < 0)
        {
          if (acked[k] == 0 && (err.errnum == ENOENT))
            {
              absent++;
              newack[k] = 0;
              continue;
            }
          printf ("LOSS object %u: read failed (acked gen %" PRIu64 "): %s\n", k, acked[k],
                  err.msg);
          lost++;
          continue;
        }
      checked++;
      if (got != nblk * BLK && !(acked[k] == 0 && got == 0))
        {
          if (acked[k] > 0 || got > nblk * BLK)
            {
              printf ("LOSS object %u: %zu bytes, expected %zu (acked gen %" PRIu64 ", attempted %"
                      PRIu64 ")\n", k, got, nblk * BLK, acked[k], attempted[k]);
              lost++;
              continue;
            }
        }
      uint64_t gmin = UINT64_MAX, gmax = 0;
      bool bad = false, zero_ok = acked[k] == 0, partial = false;
      for (uint32_t b = 0; b < nblk && !bad; b++)
        {
          const uint8_t *p = buf + (size_t) b * BLK;
          struct hdr hd;
          memcpy (&hd, p, sizeof hd);
          if (zero_ok && (size_t) b * BLK >= got)
            {
              partial = true;
              continue;
            }
          if (hd.magic != MAGIC || hd.oid != k || hd.blk != b
              || hd.sum != fnv (p + sizeof hd, BLK - sizeof hd))
            {
              bool allzero = true;
              for (size_t i = 0; i < BLK && allzero; i++)
                allzero = p[i] == 0;
              if (zero_ok && allzero)
                {
                  partial = true;
                  continue;
                }
              printf ("LOSS object %u block %u: %s (acked gen %" PRIu64 ", attempted %" PRIu64
                      ", header magic %08x oid %" PRIu64 " gen %" PRIu64 " blk %u)\n",
                      k, b, allzero ? "zeros" : "not a block we wrote (bad header or checksum)",
                      acked[k], attempted[k], hd.magic, hd.oid, hd.gen, hd.blk);
              bad = true;
              break;
            }
          make_block (ref, k, hd.gen, b);
          if (memcmp (ref, p, BLK) != 0)
            {
              printf ("LOSS object %u block %u: content differs from generation %" PRIu64 "\n",
                      k, b, hd.gen);
              bad = true;
              break;
            }
          if (hd.gen < acked[k] || hd.gen > attempted[k] || hd.gen == 0)
            {
              printf ("LOSS object %u block %u: generation %" PRIu64 " outside [acked %" PRIu64
                      ", attempted %" PRIu64 "]\n", k, b, hd.gen, acked[k], attempted[k]);
              bad = true;
              break;
            }
          if (hd.gen < gmin)
            gmin = hd.gen;
          if (hd.gen > gmax)
            gmax = hd.gen;
        }
      if (bad)
        {
          lost++;
          continue;
        }
      if (gmax && gmin != gmax && attempted[k] != verified[k])
        {
          printf ("mixed object %u: blocks of generations %" PRIu64 "..%" PRIu64
                  " (acked %" PRIu64 ", attempted %" PRIu64 ")\n", k, gmin, gmax, acked[k],
                  attempted[k]);
          mixed++;
        }
      /* now flushed: what was read is the promise from here on (an object
       * still partly unwritten stays unpromised) */
      newack[k] = gmax && !partial ? gmin : 0;
    }
  int rc = lost ? 1 : 0;
  if (ossd_flush (h, &err) < 0)
    {
      printf ("verify: flush failed: %s\n", err.msg);
      rc = 2;
    }
  else
    {
      for (unsigned k = 1; k <= NOBJ; k++)
        {
          acked[k] = newack[k];
          verified[k] = attempted[k];
        }
      if (save_state (state) < 0)
        rc = 2;
    }
  printf ("verify: %u objects read, %u absent (never acknowledged), %u mixed, %u lost\n",
          checked, absent, mixed, lost);
  free (buf);
  free (ref);
  return rc;
}

int
main (int argc, char **argv)
{
  if (argc < 4 || (strcmp (argv[1], "write") && strcmp (argv[1], "verify")))
    {
      fprintf (stderr, "usage: soak_writer write URI STATE [SEED] | soak_writer verify URI STATE\n");
      return 2;
    }
  struct ossd_connect_opts o = { .client_name = "soak", .max_slots = 2,
                                 .timeout_ms = strcmp (argv[1], "write") ? 20000 : 3000 };
  ossd_error err = { 0 };
  ossd_t *h;
#ifdef OSSD_CAP_H
  /* with capabilities (docs/security.md): the drive's key, as root tools
   * use it ($OSSD_KEY_FILE, else the run directory's ossd.key) */
  char key[4096];
  ossd_default_key_file (key, sizeof key);
  o.key_file = key;
#endif
  if (load_state (argv[3]) < 0)
    {
      perror (argv[3]);
      return 2;
    }
  if (ossd_connect (argv[2], &o, &h, &err) < 0)
    {
      fprintf (stderr, "soak_writer: connect: %s\n", err.msg);
      return 2;
    }
  int rc = strcmp (argv[1], "write") == 0
    ? do_write (h, argv[3], argc > 4 ? strtoull (argv[4], NULL, 0) : (uint64_t) time (NULL))
    : do_verify (h, argv[3]);
  ossd_disconnect (h);
  return rc;
}
