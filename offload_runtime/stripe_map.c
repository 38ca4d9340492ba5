/* stripe_map.c - which of a striped segment's heap blocks a drive holds,
 * as ranges of its own object's blocks (ossd_scan.h, docs/arrays.md).
 *
 * Segment unit k (heap blocks [k*u, (k+1)*u)) is on drive
 * ossd_stripe_unit_drive (k) at object unit ossd_stripe_unit_local (k);
 * consecutive units of one drive are consecutive in its object (RAID-5:
 * but for the rows where it holds parity), so a heap range spanning whole
 * stripes maps to one range, or one per run of data rows. */
#include "ossd_scan.h"

size_t
ossd_stripe_local_ranges (uint32_t unit_blocks, uint32_t index,
                          uint32_t count, uint32_t parity,
                          const struct ossd_block_range *heap,
                          size_t nheap, struct ossd_block_range *out,
                          size_t cap)
{
  size_t n = 0;
  uint64_t prev_end = UINT64_MAX;   /* object block just past the last piece */

  for (size_t i = 0; i < nheap; i++)
    {
      uint64_t b = heap[i].start, end = b + heap[i].count;

      while (b < end)
        {
          uint64_t k = count <= 1 ? 0 : b / unit_blocks;
          uint64_t unit_end = count <= 1 ? end : (k + 1) * unit_blocks;
          uint64_t stop = unit_end < end ? unit_end : end;
          uint64_t local;

          if (count > 1 && ossd_stripe_unit_drive (k, count, parity) != index)
            {
              b = stop;         /* another drive's unit */
              continue;
            }
          local = count <= 1 ? b
            : ossd_stripe_unit_local (k, count, parity) * unit_blocks
            + b % unit_blocks;
          if (n && local == prev_end)
            {
              if (out && n <= cap)
                out[n - 1].count += (uint32_t) (stop - b);
            }
          else
            {
              if (out && n < cap)
                {
                  out[n].start = (uint32_t) local;
                  out[n].count = (uint32_t) (stop - b);
                }
              n++;
            }
          prev_end = local + (stop - b);
          b = stop;
        }
    }
  return n;
}
