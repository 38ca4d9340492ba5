/* raid_placement.c - where each unit of a stripe lives (ossd_raid.h,
 * "placement"): MOLS declustering over a pool of n drives and fixed groups
 * of K drives (RAID-5 groups; RAID-50 uses the same groups).
 *
 * MOLS (as RAID+ / FusionRAID): for prime n the squares L_i(a, b) =
 * i*a + b mod n, i = 1..n-1, are mutually orthogonal.  Stripe (a, b) of a
 * cycle (a = 1..n-1, b = 0..n-1) puts its position p on drive L_{p+1}(a, b).
 * Row a = 0 is left out (all squares agree there).  Within a stripe the K
 * drives differ ((i - i') a != 0 mod n); drive d holds, for each position p
 * and row a, exactly one stripe (b = d - (p+1) a), so a cycle gives it K(n-1)
 * units, at offset cycle*K(n-1) + p(n-1) + (a-1): a bijection, no table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ossd_raid.h"

static int
fail (raid_error *err, int r, const char *fmt, uint32_t a, uint32_t b)
{
  if (err)
    snprintf (err->msg, sizeof err->msg, fmt, a, b);
  return r;
}

bool
raid_is_prime (uint32_t n)
{
  if (n < 2)
    return false;
  for (uint32_t d = 2; (uint64_t) d * d <= n; d++)
    if (n % d == 0)
      return false;
  return true;
}

const char *
raid_layout_name (enum raid_layout_kind k)
{
  return k == RAID_LAYOUT_MOLS ? "mols" : k == RAID_LAYOUT_GROUPS ? "groups"
    : "?";
}

int
raid_layout_init (struct raid_layout *L, enum raid_layout_kind kind,
                  uint32_t drives, uint32_t width, uint32_t groups,
                  uint64_t drive_units, raid_error *err)
{
  memset (L, 0, sizeof *L);
  if (width < 3 || width > RAID_MAX_WIDTH)
    return fail (err, -EINVAL, "stripe width %u: need 3..%u (data + parity)",
                 width, RAID_MAX_WIDTH);
  if (drives > RAID_MAX_DRIVES)
    return fail (err, -EINVAL, "%u drives: at most %u", drives,
                 RAID_MAX_DRIVES);
  L->kind = kind;
  L->drives = drives;
  L->width = width;
  L->drive_units = drive_units;
  switch (kind)
    {
    case RAID_LAYOUT_MOLS:
      if (!raid_is_prime (drives))
        return fail (err, -EINVAL, "MOLS declustering needs a prime number "
                     "of drives, not %u (width %u)", drives, width);
      if (width > drives - 1)
        return fail (err, -EINVAL, "MOLS over %u drives: width %u > n - 1",
                     drives, width);
      L->groups = 1;
      L->cycle_stripes = (uint64_t) drives * (drives - 1);
      L->cycle_units = (uint64_t) width * (drives - 1);
      L->stripes = drive_units / L->cycle_units * L->cycle_stripes;
      break;
    case RAID_LAYOUT_GROUPS:
      if (groups == 0 || (uint64_t) groups * width > drives)
        return fail (err, -EINVAL, "%u groups of width %u do not fit the "
                     "drives", groups, width);
      L->groups = groups;
      L->cycle_stripes = (uint64_t) groups * width;
      L->cycle_units = width;
      L->stripes = drive_units * groups;
      break;
    default:
      return fail (err, -EINVAL, "unknown layout kind %u%.0u", kind, 0);
    }
  if (L->stripes == 0)
    return fail (err, -EINVAL, "drives of %u units hold no whole cycle of "
                 "%u units", (uint32_t) drive_units, (uint32_t) L->cycle_units);
  return 0;
}

struct raid_unit_addr
raid_layout_locate (const struct raid_layout *L, uint64_t stripe,
                    uint32_t pos)
{
  struct raid_unit_addr u;
  if (L->kind == RAID_LAYOUT_MOLS)
    {
      uint64_t n = L->drives;
      uint64_t c = stripe / L->cycle_stripes, r = stripe % L->cycle_stripes;
      uint64_t a = r / n + 1, b = r % n, i = pos + 1;
      u.drive = (uint32_t) ((i * a + b) % n);
      u.offset = c * L->cycle_units + (uint64_t) pos * (n - 1) + (a - 1);
      return u;
    }
  uint64_t g = stripe % L->groups, row = stripe / L->groups;
  /* left-symmetric rotation: the parity (pos K-1) moves one drive left a row */
  uint32_t K = L->width;
  u.drive = (uint32_t) (g * K + (pos + K - row % K) % K);
  u.offset = row;
  return u;
}

int
raid_layout_reverse (const struct raid_layout *L, uint32_t drive,
                     uint64_t offset, uint64_t *stripe, uint32_t *pos)
{
  if (L->kind == RAID_LAYOUT_MOLS)
    {
      uint64_t n = L->drives;
      if (drive >= n || offset / L->cycle_units * L->cycle_stripes
          >= L->stripes)
        return -ERANGE;
      uint64_t c = offset / L->cycle_units, r = offset % L->cycle_units;
      uint64_t p = r / (n - 1), a = r % (n - 1) + 1, i = p + 1;
      uint64_t b = (drive + n * n - (i * a) % n) % n;
      *pos = (uint32_t) p;
      *stripe = c * L->cycle_stripes + (a - 1) * n + b;
      return 0;
    }
  uint32_t K = L->width;
  if (drive >= L->groups * K || offset >= L->drive_units)
    return -ERANGE;
  uint64_t g = drive / K, col = drive % K;
  *pos = (uint32_t) ((col + offset % K) % K);
  *stripe = offset * L->groups + g;
  return 0;
}

uint64_t
raid_layout_volume_stripe (const struct raid_layout *L,
                           enum raid_volume_map map, uint32_t vol,
                           uint64_t stripes_per_vol, uint64_t j)
{
  uint32_t G = L->groups ? L->groups : 1;
  if (map == RAID_VMAP_GROUP)
    return (j + (uint64_t) (vol / G) * stripes_per_vol) * G + vol % G;
  return (uint64_t) vol * stripes_per_vol + j;
}
