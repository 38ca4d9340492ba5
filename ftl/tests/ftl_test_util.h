/* ftl_test_util.h - helpers shared by the FTL cmocka tests. */
#ifndef FTL_TEST_UTIL_H
#define FTL_TEST_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ossd_ftl.h"

/* A small drive: 2 ch x 2 ways x 32 blocks x 32 pages x 16 KiB = 64 MiB. */
static inline void
small_config (struct ftl_config *c)
{
  ftl_config_defaults (c, "ram-fast", NULL);
  c->channels = 2;
  c->ways = 2;
  c->planes = 1;
  c->blocks_per_plane = 32;
  c->pages_per_block = 32;
  c->page_size = 16384;
  c->over_provisioning = 0.25;
}

static inline char *
tmp_image (const char *tag)
{
  static char path[256];
  const char *dir = getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp";
  snprintf (path, sizeof path, "%s/ftl-test-%s-%d.img", dir, tag,
            (int) getpid ());
  return path;
}

/* deterministic content for (oid, offset, generation) */
static inline void
fill_pattern (uint8_t *buf, size_t len, uint64_t oid, uint64_t off,
              uint64_t gen)
{
  for (size_t i = 0; i < len; i++)
    {
      uint64_t x = (oid * 1315423911u) ^ ((off + i) >> 3) * 2654435761u
        ^ gen * 97u;
      buf[i] = (uint8_t) (x ^ (x >> 13) ^ ((off + i) & 7));
    }
}

/* The FTL tests' LCG (Knuth's MMIX constants): advance *s, return its
 * top 31 bits. */
static inline uint32_t
test_lcg (uint64_t *s)
{
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t) (*s >> 33);
}

/* perm[0..n) = 0..n-1 in a random order drawn from *s (Fisher-Yates). */
static inline void
test_shuffle (uint32_t *perm, uint32_t n, uint64_t *s)
{
  for (uint32_t i = 0; i < n; i++)
    perm[i] = i;
  for (uint32_t i = n; i > 1; i--)
    {
      uint32_t j = test_lcg (s) % i, t = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = t;
    }
}

static inline void
expect_fsck_clean (ftl_t *f)
{
  ftl_error e = { "" };
  uint64_t n = 0;
  int r = ftl_fsck (f, &n, &e);
  if (r != 0)
    fail_msg ("fsck: %llu problems, first: %s", (unsigned long long) n, e.msg);
}

#endif
