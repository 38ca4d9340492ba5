/* numeric_between.c - example kernel with constant arguments:
 *   ossd_filter('between', numeric_column, lo, hi)  =  column BETWEEN lo AND hi
 * Bindings: col[0] = the column (numeric), col[1] and col[2] = the bounds,
 * constants of the query (bound once per scan by the drive).  A NULL
 * anywhere rejects the row, as BETWEEN does in a WHERE clause.  Build:
 *   clang-14 -O2 -target bpf -I offload_runtime/include -c numeric_between.c */
#include "ossd_kernel.h"

OSSD_KERNEL (numeric_between)
{
  if (ctx->col[0].isnull || ctx->col[1].isnull || ctx->col[2].isnull)
    return OSSD_ROW_SKIP;
  const struct ossd_numeric *v = (const struct ossd_numeric *) ctx->col[0].data;
  const struct ossd_numeric *lo = (const struct ossd_numeric *) ctx->col[1].data;
  const struct ossd_numeric *hi = (const struct ossd_numeric *) ctx->col[2].data;
  if (ossd_numeric_cmp (v, lo) < 0 || ossd_numeric_cmp (v, hi) > 0)
    return OSSD_ROW_SKIP;
  return OSSD_ROW_MATCH;
}
