/* sofs_pressure.c - GC and wear-levelling pressure after a reconfiguration
 * (--sofs-gc-pressure, docs/sofs.md 3.0): another object filling 60 % of
 * the drive is written, then overwritten at random in 4 KiB writes, twice
 * its size, so GC collects all the time and the erase counts of its
 * blocks run ahead of the blocks holding the relocated (cold) objects,
 * which static wear levelling then migrates.  Whether those moves keep the
 * planned layout is the FTL's gc_ignores_layout switch, set by the
 * caller. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sofs.h"

#define SOFS_PRESSURE_OID 98ull

int
sofs_gc_pressure (struct sim *s)
{
  uint64_t bytes = s->cap_sectors * 4096 / 10 * 6;
  uint64_t sectors = bytes / 4096;
  int r = sim_create (s, SOFS_PRESSURE_OID);
  for (uint64_t off = 0; r == 0 && off < bytes; off += 1 << 20)
    r = sim_write (s, SOFS_PRESSURE_OID, off,
                   bytes - off < (1 << 20) ? bytes - off : 1 << 20);
  uint64_t x = 0x5eed;
  for (uint64_t i = 0; r == 0 && i < 2 * sectors; i++)
    {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      r = sim_write (s, SOFS_PRESSURE_OID, ((x >> 33) % sectors) * 4096, 4096);
    }
  if (r < 0)
    {
      fprintf (stderr, "ftl-sim: GC pressure: %s\n", strerror (-r));
      return r;
    }
  struct ftl_stats st;
  r = sim_stats (s, &st);
  if (r == 0)
    fprintf (stderr, "ftl-sim: GC pressure: %llu GC copies, %llu WL "
             "migrations, whole pages kept on their die %llu, moved %llu\n",
             (unsigned long long) st.gc_valid_copies,
             (unsigned long long) st.wl_migrations,
             (unsigned long long) st.gc_layout_kept_pages,
             (unsigned long long) st.gc_layout_moved_pages);
  return r;
}
