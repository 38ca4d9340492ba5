/* q6_filter.c - example kernel: the TPC-H Q6 predicate
 *   l_shipdate >= date '1994-01-01' and l_shipdate < date '1995-01-01'
 *   and l_discount between 0.05 and 0.07 and l_quantity < 24
 * Bindings: col[0] = l_shipdate (date), col[1] = l_discount (numeric),
 * col[2] = l_quantity (numeric).  Build:
 *   clang-14 -O2 -target bpf -I offload_runtime/include -c q6_filter.c */
#include "ossd_kernel.h"

#define DATE_1994_01_01 (-2191)   /* days since 2000-01-01 */
#define DATE_1995_01_01 (-1826)

static const struct ossd_numeric discount_lo = { 5, 0, 2, 0 };  /* 0.05 */
static const struct ossd_numeric discount_hi = { 7, 0, 2, 0 };  /* 0.07 */
static const struct ossd_numeric quantity_max = { 24, 0, 0, 0 };

OSSD_KERNEL (q6_filter)
{
  if (ctx->col[0].isnull || ctx->col[1].isnull || ctx->col[2].isnull)
    return OSSD_ROW_SKIP;
  __s64 shipdate = (__s64) ctx->col[0].value;
  if (shipdate < DATE_1994_01_01 || shipdate >= DATE_1995_01_01)
    return OSSD_ROW_SKIP;
  const struct ossd_numeric *discount = (const struct ossd_numeric *) ctx->col[1].data;
  if (ossd_numeric_cmp (discount, &discount_lo) < 0
      || ossd_numeric_cmp (discount, &discount_hi) > 0)
    return OSSD_ROW_SKIP;
  const struct ossd_numeric *quantity = (const struct ossd_numeric *) ctx->col[2].data;
  if (ossd_numeric_cmp (quantity, &quantity_max) >= 0)
    return OSSD_ROW_SKIP;
  return OSSD_ROW_MATCH;
}
