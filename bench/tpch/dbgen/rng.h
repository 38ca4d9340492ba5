/* rng.h - the generator's random numbers: a counter-based stream per row
 * (seed, table, row number), so any row of any table can be generated on
 * its own, in any order, in any process (--part i/n), with the same values. */
#ifndef TPCH_RNG_H
#define TPCH_RNG_H

#include <stdint.h>

struct rng
{
  uint64_t state;
};

static inline uint64_t
rng_mix (uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The stream of row ROW of table TABLE for SEED. */
static inline void
rng_row (struct rng *r, uint64_t seed, unsigned table, uint64_t row)
{
  r->state = rng_mix (seed * 0x9e3779b97f4a7c15ull + ((uint64_t) table << 56)) ^ rng_mix (row + 0x632be59bd9b4e019ull);
}

static inline uint64_t
rng_next (struct rng *r)
{
  uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
  return rng_mix (z);
}

/* Uniform in [lo, hi] (inclusive). */
static inline int64_t
rng_range (struct rng *r, int64_t lo, int64_t hi)
{
  uint64_t span = (uint64_t) (hi - lo) + 1;
  return lo + (int64_t) (((unsigned __int128) rng_next (r) * span) >> 64);
}

#endif /* TPCH_RNG_H */
