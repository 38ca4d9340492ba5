/* join_filter.c - the join filter's hash, Bloom sizing and bits, exact key
 * set records, and the drive-side check and probe of a filter received in
 * a SCAN (ossd_join_filter.h).  A filter is input from outside the drive:
 * every size and count is checked before anything is read through it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ossd_join_filter.h"

static inline uint64_t
fmix (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

uint64_t
ossd_jf_hash (const uint8_t *key, size_t len)
{
  uint64_t h = 0x243f6a8885a308d3ull ^ ((uint64_t) len * 0x9e3779b97f4a7c15ull);
  size_t i = 0;

  for (; i + 8 <= len; i += 8)
    {
      uint64_t w = 0;
      for (int b = 0; b < 8; b++)
        w |= (uint64_t) key[i + b] << (8 * b);
      h = fmix (h ^ w) + 0x9e3779b97f4a7c15ull;
    }
  if (i < len)
    {
      uint64_t w = 0;
      for (int b = 0; i + b < len; b++)
        w |= (uint64_t) key[i + b] << (8 * b);
      h = fmix (h ^ w ^ 0x5bd1e995ull);
    }
  return fmix (h);
}

size_t
ossd_jf_bloom_size (uint64_t nkeys, size_t max_bytes)
{
  /* m = -n ln p / (ln 2)^2 bits: 9.6 bits per key for p = 1% */
  double bits = (double) nkeys * 9.59;
  size_t bytes = OSSD_JF_MIN_BLOOM_BYTES;

  if (max_bytes > OSSD_JF_MAX_BLOOM_BYTES)
    max_bytes = OSSD_JF_MAX_BLOOM_BYTES;
  while ((double) bytes * 8 < bits && bytes * 2 <= max_bytes)
    bytes *= 2;
  return bytes;
}

unsigned
ossd_jf_bloom_hashes (uint64_t nkeys, size_t bytes)
{
  double k;

  if (nkeys == 0)
    return 1;
  k = (double) bytes * 8 / (double) nkeys * 0.6931;
  if (k < 1)
    return 1;
  if (k > OSSD_JF_MAX_HASHES)
    return OSSD_JF_MAX_HASHES;
  return (unsigned) (k + 0.5);
}

double
ossd_jf_bloom_fpp (uint64_t nkeys, size_t bytes, unsigned hashes)
{
  double m = (double) bytes * 8;

  return pow (1.0 - exp (-(double) hashes * (double) nkeys / m), hashes);
}

void
ossd_jf_bloom_add (uint8_t *bits, size_t bytes, unsigned hashes, uint64_t h)
{
  uint64_t mask = (uint64_t) bytes * 8 - 1, g = ossd_jf_step (h);

  for (unsigned i = 0; i < hashes; i++, h += g)
    bits[(h & mask) >> 3] |= (uint8_t) (1u << (h & 7));
}

bool
ossd_jf_bloom_test (const uint8_t *bits, size_t bytes, unsigned hashes, uint64_t h)
{
  uint64_t mask = (uint64_t) bytes * 8 - 1, g = ossd_jf_step (h);

  for (unsigned i = 0; i < hashes; i++, h += g)
    if (!(bits[(h & mask) >> 3] & (1u << (h & 7))))
      return false;
  return true;
}

size_t
ossd_jf_exact_put (uint8_t *out, const uint8_t *key, uint32_t len)
{
  size_t n = ossd_jf_exact_record_size (len);

  out[0] = (uint8_t) len;
  out[1] = (uint8_t) (len >> 8);
  out[2] = (uint8_t) (len >> 16);
  out[3] = (uint8_t) (len >> 24);
  if (len)
    memcpy (out + 4, key, len);
  memset (out + 4 + len, 0, n - 4 - len);
  return n;
}

static inline uint32_t
rd32 (const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

#define JFAIL(rc, ...) do { snprintf (err, errlen, __VA_ARGS__); return rc; } while (0)

int
ossd_join_filter_prepare (struct ossd_join_filter *f, char *err, size_t errlen)
{
  f->slots = NULL;
  f->slot_mask = 0;
  if (f->key_kind > OSSD_JF_KEY_BPCHAR)
    JFAIL (-EINVAL, "join filter: unknown key kind %u", f->key_kind);
  if (f->kind == OSSD_JF_BLOOM)
    {
      if (f->bloom_bytes < OSSD_JF_MIN_BLOOM_BYTES || f->bloom_bytes > OSSD_JF_MAX_BLOOM_BYTES
          || (f->bloom_bytes & (f->bloom_bytes - 1)) || !f->bloom)
        JFAIL (-EINVAL, "join filter: a Bloom filter of %u bytes (a power of two in %u..%u)",
               f->bloom_bytes, OSSD_JF_MIN_BLOOM_BYTES, OSSD_JF_MAX_BLOOM_BYTES);
      if (f->hashes < 1 || f->hashes > OSSD_JF_MAX_HASHES)
        JFAIL (-EINVAL, "join filter: %u hashes (1..%u)", f->hashes, OSSD_JF_MAX_HASHES);
      if (f->keys_len || f->key_count)
        JFAIL (-EINVAL, "join filter: a Bloom filter with exact keys");
      return 0;
    }
  if (f->kind != OSSD_JF_EXACT)
    JFAIL (-EINVAL, "join filter: unknown kind %u", f->kind);
  if (f->bloom_bytes || f->hashes)
    JFAIL (-EINVAL, "join filter: an exact key set with Bloom bits");
  if (f->key_count > OSSD_JF_MAX_EXACT_KEYS)
    JFAIL (-E2BIG, "join filter: %u exact keys (max %u)", f->key_count, OSSD_JF_MAX_EXACT_KEYS);
  if (f->keys_len > OSSD_JF_MAX_KEYS_BYTES || (f->keys_len && !f->keys))
    JFAIL (-E2BIG, "join filter: %u bytes of exact keys (max %u)", f->keys_len,
           OSSD_JF_MAX_KEYS_BYTES);
  /* every record inside the buffer, exactly key_count of them, nothing after */
  uint32_t pos = 0, n = 0;
  while (pos < f->keys_len)
    {
      if (f->keys_len - pos < 4)
        JFAIL (-EINVAL, "join filter: key record %u truncated at byte %u", n, pos);
      uint32_t len = rd32 (f->keys + pos);
      if (len > OSSD_JF_MAX_KEY_LEN || ossd_jf_exact_record_size (len) > f->keys_len - pos)
        JFAIL (-EINVAL, "join filter: key record %u of %u bytes runs past the key set", n, len);
      if (f->key_kind == OSSD_JF_KEY_INT && len != 8)
        JFAIL (-EINVAL, "join filter: integer key record %u has %u bytes, not 8", n, len);
      pos += (uint32_t) ossd_jf_exact_record_size (len);
      n++;
    }
  if (n != f->key_count)
    JFAIL (-EINVAL, "join filter: %u key records for a key count of %u", n, f->key_count);
  uint32_t nslots = 16;
  while (nslots < 2 * (f->key_count ? f->key_count : 1))
    nslots *= 2;
  f->slots = calloc (nslots, sizeof *f->slots);
  if (!f->slots)
    JFAIL (-ENOMEM, "join filter: out of memory for %u slots", nslots);
  f->slot_mask = nslots - 1;
  for (pos = 0; pos < f->keys_len;)
    {
      uint32_t len = rd32 (f->keys + pos);
      uint32_t s = (uint32_t) ossd_jf_hash (f->keys + pos + 4, len) & f->slot_mask;
      while (f->slots[s])
        s = (s + 1) & f->slot_mask;
      f->slots[s] = pos + 1;
      pos += (uint32_t) ossd_jf_exact_record_size (len);
    }
  return 0;
}

void
ossd_join_filter_release (struct ossd_join_filter *f)
{
  free (f->slots);
  f->slots = NULL;
}

bool
ossd_join_filter_test (const struct ossd_join_filter *f, const uint8_t *key, size_t len)
{
  uint64_t h = ossd_jf_hash (key, len);

  if (f->kind == OSSD_JF_BLOOM)
    return ossd_jf_bloom_test (f->bloom, f->bloom_bytes, f->hashes, h);
  for (uint32_t s = (uint32_t) h & f->slot_mask; f->slots[s]; s = (s + 1) & f->slot_mask)
    {
      const uint8_t *r = f->keys + f->slots[s] - 1;
      if (rd32 (r) == len && memcmp (r + 4, key, len) == 0)
        return true;
    }
  return false;
}
