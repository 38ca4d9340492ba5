/* ossd_join_filter.h - join filters (dynamic / runtime filters): the set
 * of a hash join's build-side keys, sent with a SCAN so that the drive
 * drops probe-side rows that cannot join before they cross the channel.
 *
 * Owns: the key normalisation both sides hash (so that a key the host put
 * in the filter is found by the drive exactly when PostgreSQL's equality
 * says the values are equal), the hash, the two filter encodings (an exact
 * key set, a Bloom filter), their limits, the drive-side check of a filter
 * received from outside and its probe.  Used by pg_ossd (building) and the
 * scan engine (probing); no PostgreSQL headers, no allocation on the
 * building side (the host uses its own memory contexts).
 *
 * Key normalisation (enum ossd_jf_key):
 *   OSSD_JF_KEY_INT    int2/int4/int8/date: the value as a signed 64-bit
 *                      integer, 8 bytes little-endian (cross-type integer
 *                      equality int4 = int8 compares the values);
 *   OSSD_JF_KEY_BYTES  text/varchar under a deterministic collation (whose
 *                      equality is byte equality): the varlena payload;
 *   OSSD_JF_KEY_BPCHAR bpchar: the payload without its trailing spaces
 *                      (bpchareq ignores them).
 * NULL never matches: a NULL probe key is dropped, a NULL build key is
 * never added.
 *
 * Encodings:
 *   exact  `keys` = key_count records, each u32 length (little-endian) and
 *          the normalised key bytes, zero-padded to a multiple of 4;
 *   bloom  `bloom` = 2^n bytes (64 .. OSSD_JF_MAX_BLOOM_BYTES) of bits, bit
 *          b at byte b/8, mask 1 << (b%8); a key with hash h sets bits
 *          (h + i * g) mod 8*bytes for i in 0..hashes-1, g = ossd_jf_step(h).
 */
#ifndef OSSD_JOIN_FILTER_H
#define OSSD_JOIN_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum ossd_jf_key { OSSD_JF_KEY_INT = 0, OSSD_JF_KEY_BYTES = 1, OSSD_JF_KEY_BPCHAR = 2 };
enum ossd_jf_kind { OSSD_JF_EXACT = 0, OSSD_JF_BLOOM = 1 };

/* What a drive accepts (anything beyond is refused, never truncated). */
#define OSSD_JF_MAX_FILTERS      8
#define OSSD_JF_MAX_EXACT_KEYS   65536
#define OSSD_JF_MAX_KEYS_BYTES   (4u << 20)
#define OSSD_JF_MAX_KEY_LEN      (1u << 20)
#define OSSD_JF_MIN_BLOOM_BYTES  64u
#define OSSD_JF_MAX_BLOOM_BYTES  (4u << 20)
#define OSSD_JF_MAX_HASHES       16u

/* The 64-bit hash of a normalised key. */
uint64_t ossd_jf_hash (const uint8_t *key, size_t len);
/* Second hash of double hashing (odd, so every step visits a new bit). */
static inline uint64_t
ossd_jf_step (uint64_t h)
{
  uint64_t x = h ^ 0x9e3779b97f4a7c15ull;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return x | 1;
}

/* Normalised images. */
static inline void
ossd_jf_int_image (int64_t v, uint8_t out[8])
{
  uint64_t u = (uint64_t) v;
  for (int i = 0; i < 8; i++)
    out[i] = (uint8_t) (u >> (8 * i));
}
static inline size_t
ossd_jf_bpchar_len (const uint8_t *p, size_t len)
{
  while (len > 0 && p[len - 1] == ' ')
    len--;
  return len;
}

/* ---- building (host) ---- */
/* Bytes of a Bloom filter for nkeys keys at about 1% false positives:
 * a power of two in [OSSD_JF_MIN_BLOOM_BYTES, max_bytes] (max_bytes is
 * clamped to OSSD_JF_MAX_BLOOM_BYTES). */
size_t ossd_jf_bloom_size (uint64_t nkeys, size_t max_bytes);
/* Number of hashes for that size (1..OSSD_JF_MAX_HASHES). */
unsigned ossd_jf_bloom_hashes (uint64_t nkeys, size_t bytes);
/* The expected false-positive rate of such a filter, 0..1. */
double ossd_jf_bloom_fpp (uint64_t nkeys, size_t bytes, unsigned hashes);
void ossd_jf_bloom_add (uint8_t *bits, size_t bytes, unsigned hashes, uint64_t h);
bool ossd_jf_bloom_test (const uint8_t *bits, size_t bytes, unsigned hashes, uint64_t h);
/* Size of one exact-set record; write one at out (returns its size). */
static inline size_t
ossd_jf_exact_record_size (size_t len)
{
  return 4 + ((len + 3) & ~(size_t) 3);
}
size_t ossd_jf_exact_put (uint8_t *out, const uint8_t *key, uint32_t len);

/* ---- checking and probing (drive) ---- */
struct ossd_join_filter
{
  uint16_t attnum;             /* heap attribute of the probe side (1-based) */
  uint8_t key_kind;            /* enum ossd_jf_key */
  uint8_t kind;                /* enum ossd_jf_kind */
  uint32_t hashes;             /* bloom */
  const uint8_t *bloom;
  uint32_t bloom_bytes;
  const uint8_t *keys;         /* exact */
  uint32_t keys_len;
  uint32_t key_count;
  /* made by ossd_join_filter_prepare (exact): open-addressing table of
   * record offsets + 1, 0 = empty */
  uint32_t *slots;
  uint32_t slot_mask;
};
/* Check a filter as received (kind, sizes, hashes, every record inside
 * keys_len, key_count consistent) and build its probe table.  0, or
 * -EINVAL / -E2BIG / -ENOMEM with a reason in err; on failure nothing
 * needs releasing. */
int ossd_join_filter_prepare (struct ossd_join_filter *f, char *err, size_t errlen);
void ossd_join_filter_release (struct ossd_join_filter *f);
/* May a row whose normalised key is key[0..len) join?  (false: it cannot.) */
bool ossd_join_filter_test (const struct ossd_join_filter *f, const uint8_t *key, size_t len);

#endif /* OSSD_JOIN_FILTER_H */
