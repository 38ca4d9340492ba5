/* splitmix.h - the splitmix64 generator shared by the simulator and its
 * stand-alone tools (trace generator, greedy reference model): small,
 * fast, and the same stream for the same seed everywhere. */
#ifndef FTL_SIM_SPLITMIX_H
#define FTL_SIM_SPLITMIX_H

#include <stdint.h>

static inline uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif /* FTL_SIM_SPLITMIX_H */
