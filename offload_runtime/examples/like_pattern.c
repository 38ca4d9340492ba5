/* like_pattern.c - example kernel with a constant argument:
 *   ossd_filter('like', text_column, 'pattern')  =  column LIKE 'pattern'
 * (C collation).  Bindings: col[0] = the column (text), col[1] = the
 * pattern, a constant of the query.  Build:
 *   clang-14 -O2 -target bpf -I offload_runtime/include -c like_pattern.c */
#include "ossd_kernel.h"

OSSD_KERNEL (like_pattern)
{
  if (ctx->col[0].isnull || ctx->col[1].isnull)
    return OSSD_ROW_SKIP;
  return ossd_text_like ((const void *) ctx->col[0].data, ctx->col[0].len,
                         (const void *) ctx->col[1].data, ctx->col[1].len)
    ? OSSD_ROW_MATCH : OSSD_ROW_SKIP;
}
