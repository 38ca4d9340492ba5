/* text.h - the specification's pseudo-text (clause 4.2.2.10 and its
 * grammar and weighted word lists): a text pool built once from the seed,
 * comments as substrings of it, and the v-strings of addresses. */
#ifndef TPCH_TEXT_H
#define TPCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "rng.h"

struct text_pool
{
  char *text;
  size_t len;
};

/* Build a pool of LEN characters of sentences from SEED; 0 or -1. */
int text_pool_build (struct text_pool *pool, uint64_t seed, size_t len);
void text_pool_free (struct text_pool *pool);

/* text string [lo, hi]: a substring of the pool of random length in
 * [lo, hi] at a random offset; written to OUT (not terminated), length
 * returned. */
int text_string (const struct text_pool *pool, struct rng *r, int lo, int hi, char *out);

/* v-string [lo, hi]: random characters of a 64-symbol set. */
int text_vstring (struct rng *r, int lo, int hi, char *out);

#endif /* TPCH_TEXT_H */
