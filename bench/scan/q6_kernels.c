/* q6_kernels.c - Q6 filter/map kernels: loading the clang-built filter,
 * the raw-bytecode map, and the hand-written C versions of both. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lineitem.h"
#include "q6_kernels.h"

int
q6_load_filter (const char *path, struct ossd_prog **out, char *err, size_t errlen)
{
  static uint8_t buf[1 << 16];
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      snprintf (err, errlen, "%s: cannot open", path);
      return -ENOENT;
    }
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  int rc = ossd_prog_load (buf, n, out, err, errlen);
  if (rc == 0 && (rc = ossd_prog_verify (*out, err, errlen)) < 0)
    ossd_prog_free (*out);
  return rc;
}

#define COL(i, f) ((int16_t) offsetof (struct ossd_kctx, col[i].f))
#define OUT(k, f) ((int16_t) offsetof (struct ossd_kctx, out[k].f))

int
q6_build_map (struct ossd_prog **out, char *err, size_t errlen)
{
  static const struct ossd_insn map[] = {
    OSSD_MOV64_REG (6, 1),
    OSSD_LDX_MEM (OSSD_BPF_B, 2, 6, COL (3, isnull)),
    OSSD_JMP_IMM (OSSD_BPF_JNE, 2, 0, 8),                 /* price NULL -> out NULL */
    OSSD_LDX_MEM (OSSD_BPF_DW, 1, 6, COL (3, data)),
    OSSD_LDX_MEM (OSSD_BPF_DW, 2, 6, COL (1, data)),
    OSSD_MOV64_REG (3, 6),
    OSSD_ALU64_IMM (OSSD_BPF_ADD, 3, OUT (0, num)),
    OSSD_CALL (OSSD_H_NUMERIC_MUL),
    OSSD_ST_MEM (OSSD_BPF_B, 6, OUT (0, isnull), 0),
    OSSD_MOV64_IMM (0, OSSD_ROW_MATCH),
    OSSD_EXIT (),
    OSSD_ST_MEM (OSSD_BPF_B, 6, OUT (0, isnull), 1),
    OSSD_MOV64_IMM (0, OSSD_ROW_MATCH),
    OSSD_EXIT (),
  };
  int rc = ossd_prog_from_insns (map, sizeof map / sizeof map[0], NULL, 0, out, err, errlen);
  if (rc == 0 && (rc = ossd_prog_verify (*out, err, errlen)) < 0)
    ossd_prog_free (*out);
  return rc;
}

static const struct ossd_numeric disc_lo = { 5, 0, 2, 0 }, disc_hi = { 7, 0, 2, 0 };
static const struct ossd_numeric qty_max = { 24, 0, 0, 0 };

int
q6_c_filter (void *kernel, struct ossd_kctx *ctx, void *state)
{
  int c;
  if (ctx->col[0].isnull || ctx->col[1].isnull || ctx->col[2].isnull)
    return OSSD_ROW_SKIP;
  int64_t ship = (int64_t) ctx->col[0].value;
  if (ship < Q6_DATE_LO || ship >= Q6_DATE_HI)
    return OSSD_ROW_SKIP;
  const struct ossd_numeric *disc = (const void *) (uintptr_t) ctx->col[1].data;
  const struct ossd_numeric *qty = (const void *) (uintptr_t) ctx->col[2].data;
  if (ossd_numeric_cmp (disc, &disc_lo, &c) < 0)
    return OSSD_ROW_TO_HOST;
  if (c < 0)
    return OSSD_ROW_SKIP;
  if (ossd_numeric_cmp (disc, &disc_hi, &c) < 0)
    return OSSD_ROW_TO_HOST;
  if (c > 0)
    return OSSD_ROW_SKIP;
  if (ossd_numeric_cmp (qty, &qty_max, &c) < 0)
    return OSSD_ROW_TO_HOST;
  return c < 0 ? OSSD_ROW_MATCH : OSSD_ROW_SKIP;
}

int
q6_c_map (void *kernel, struct ossd_kctx *ctx, void *state)
{
  if (ctx->col[3].isnull)
    {
      ctx->out[0].isnull = 1;
      return OSSD_ROW_MATCH;
    }
  const struct ossd_numeric *price = (const void *) (uintptr_t) ctx->col[3].data;
  const struct ossd_numeric *disc = (const void *) (uintptr_t) ctx->col[1].data;
  if (ossd_numeric_mul (price, disc, &ctx->out[0].num) < 0)
    return OSSD_ROW_TO_HOST;
  ctx->out[0].isnull = 0;
  return OSSD_ROW_MATCH;
}
