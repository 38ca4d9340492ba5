/* c_q6.h - TPC-H Q6 as a hand-written C scan of a lineitem heap file
 * (bench/scan/lineitem.c's layout), the yardstick bench_drivescan holds
 * the drive's scan to. */
#ifndef BENCH_C_Q6_H
#define BENCH_C_Q6_H

#include <stdint.h>

#include "lineitem.h"

struct c_q6_result
{
  uint64_t tuples;             /* LP_NORMAL tuples seen */
  uint64_t matches;
  __int128 revenue;            /* sum(l_extendedprice * l_discount), scale 4 */
  uint64_t bad_pages;          /* pages failing the checks (not scanned) */
  uint64_t slow_rows;          /* rows that took the general path */
};

/* Scan pages [0, npages) of the mapped heap file with `threads` threads
 * (1..16), blocks handed out in batches of 32 as the drive's engine does.
 * Returns 0, or -1 with a message in err for a row it cannot decide. */
int c_q6_scan (const uint8_t *pages, uint32_t npages, const struct ossd_scan_attr *attrs,
               uint32_t snapshot_xmin, unsigned threads, struct c_q6_result *out,
               char *err, size_t errlen);

#endif
