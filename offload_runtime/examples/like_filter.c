/* like_filter.c - example kernel: p_name LIKE '%green%' (C collation).
 * Binding: col[0] = p_name (text). */
#include "ossd_kernel.h"

static const char pattern[] = "%green%";

OSSD_KERNEL (like_filter)
{
  if (ctx->col[0].isnull)
    return OSSD_ROW_SKIP;
  return ossd_text_like ((const void *) ctx->col[0].data, ctx->col[0].len,
                         pattern, sizeof pattern - 1) ? OSSD_ROW_MATCH : OSSD_ROW_SKIP;
}
