/* precondition.c - SNIA-style preconditioning of the block volume:
 * fill it sequentially (128 KiB requests), then write random requests of
 * the workload's size over the workload's span in rounds of 1/4 of the
 * capacity until the per-round WAF is steady: the last 4 rounds lie within
 * +-tol of their mean (SNIA PTS "steady state" excursion test, applied to
 * WAF), or --pre-max-x capacities have been written. */
#include <math.h>

#include "sim.h"

#define WINDOW 4

int
precondition_run (struct sim *s)
{
  const struct sim_opts *o = s->o;
  int r = sim_make_volume (s, s->cap_sectors);
  if (r < 0)
    return r;
  uint64_t fill = (uint64_t) (o->pre_fill * (double) s->vol_sectors);
  uint64_t step = 32;   /* sectors per fill request */
  sim_phase (s, "pre-fill", fill / step + 1);
  for (uint64_t l = 0; l < fill && r == 0; l += step)
    r = sim_write (s, SIM_VOL_OID, l * SIM_SECTOR,
                   (fill - l < step ? fill - l : step) * SIM_SECTOR);
  if (r < 0)
    return r;
  uint64_t units = (uint64_t) (o->span * (double) s->vol_sectors)
    * SIM_SECTOR / o->bs;
  uint64_t per_round = s->cap_sectors * SIM_SECTOR / o->bs / 4;
  uint32_t max_rounds = (uint32_t) ceil (o->pre_max_x * 4);
  double waf[WINDOW] = { 0 };
  struct ftl_stats a, b;
  if (units == 0 || per_round == 0)
    return 0;
  sim_phase (s, "pre-random", per_round * max_rounds);
  for (uint32_t k = 0; k < max_rounds; k++)
    {
      if ((r = sim_stats (s, &a)) < 0)
        return r;
      for (uint64_t i = 0; i < per_round && r == 0; i++)
        r = sim_write (s, SIM_VOL_OID, sim_rand (s) % units * o->bs, o->bs);
      if (r < 0 || (r = sim_stats (s, &b)) < 0)
        return r;
      uint64_t hw = b.host_writes - a.host_writes;
      double w = hw ? (double) (b.nand_programs - a.nand_programs)
        * (s->info.page_size / SIM_SECTOR) / (double) hw : 0;
      waf[k % WINDOW] = w;
      s->pre_rounds = k + 1;
      s->pre_waf = w;
      if (k + 1 < WINDOW)
        continue;
      double mean = 0, lo = 1e300, hi = 0;
      for (int i = 0; i < WINDOW; i++)
        {
          mean += waf[i] / WINDOW;
          lo = waf[i] < lo ? waf[i] : lo;
          hi = waf[i] > hi ? waf[i] : hi;
        }
      if (hi <= mean * (1 + o->pre_tol) && lo >= mean * (1 - o->pre_tol))
        {
          s->pre_steady = true;
          break;
        }
    }
  return 0;
}
