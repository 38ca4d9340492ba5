/* lineitem.h - TPC-H lineitem-like PostgreSQL 15 heap pages built in
 * memory for bench_scan (16 attributes with the TPC-H types as pg_ossd
 * sees them: int4 keys, numeric(15,2) quantity/price/discount/tax,
 * char(1) flags, dates, char(25)/char(10), varchar(44) comment), plus the
 * exact Q6 answer computed while generating. */
#ifndef BENCH_LINEITEM_H
#define BENCH_LINEITEM_H

#include <stdint.h>

#include "ossd_scan.h"

#define LI_NATTS 16
/* attnums (1-based) of the Q6 columns */
#define LI_QUANTITY 5
#define LI_EXTENDEDPRICE 6
#define LI_DISCOUNT 7
#define LI_SHIPDATE 11

/* Q6 constants: dates in days since 2000-01-01 */
#define Q6_DATE_LO (-2191)        /* 1994-01-01 */
#define Q6_DATE_HI (-1826)        /* 1995-01-01 */

/* One row's Q6 columns in kernel form (for the pre-deformed benchmark). */
struct li_q6row
{
  int32_t shipdate;
  struct ossd_numeric quantity, price, discount;
};

struct lineitem
{
  uint8_t *pages;              /* npages * 8192 */
  uint32_t npages;
  uint64_t nrows;
  struct li_q6row *rows;       /* nrows */
  uint64_t q6_matches;
  int64_t q6_revenue;          /* sum(price * discount), scale 4 */
  struct ossd_scan_attr attrs[LI_NATTS];
};

/* Builds nrows rows (deterministic for a seed).  Returns 0 or -ENOMEM. */
int lineitem_build (struct lineitem *li, uint64_t nrows, uint64_t seed);
void lineitem_free (struct lineitem *li);

#endif
