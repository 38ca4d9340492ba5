/* revenue_map.c - example map kernel: out[0] = l_extendedprice * l_discount
 * (numeric, exact; overflow hands the row to the host).
 * Bindings: col[0] = l_extendedprice (numeric), col[1] = l_discount (numeric). */
#include "ossd_kernel.h"

OSSD_KERNEL (revenue_map)
{
  if (ctx->col[0].isnull || ctx->col[1].isnull)
    {
      ctx->out[0].isnull = 1;
      return OSSD_ROW_MATCH;
    }
  ossd_numeric_mul ((const struct ossd_numeric *) ctx->col[0].data,
                    (const struct ossd_numeric *) ctx->col[1].data,
                    &ctx->out[0].num);
  ctx->out[0].isnull = 0;
  return OSSD_ROW_MATCH;
}
