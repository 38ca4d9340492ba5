/* numeric_lazy.c - lazy binding of NUMERIC columns for kernels.
 *
 * Converting a PostgreSQL numeric to 128-bit fixed point is the dearest
 * step of binding a row, and a selective filter rejects most rows after
 * reading one cheap column (Q6 tests the date first).  So the scan engine
 * binds a numeric column as a pending struct ossd_numeric that holds the
 * payload's address and length, and the interpreter and the JIT convert
 * it when a kernel loads the column's data pointer (OSSD_AUX_COLPTR
 * loads, marked by the verifier).  A kernel never sees a pending value:
 * the pointer it gets already points at the converted number.
 *
 * Pending and failed states live in the flags word, which is 0 in every
 * value a kernel or helper sees (ABI: reserved).
 */
#include <stddef.h>
#include <string.h>

#include "numeric_internal.h"

#define NUM_PENDING      OSSD_NUMERIC_LAZY_PENDING
#define NUM_FAILED_RANGE 0x40000000u
#define NUM_FAILED_BAD   0x20000000u
_Static_assert ((NUM_PENDING | NUM_FAILED_RANGE | NUM_FAILED_BAD) == OSSD_NUMERIC_LAZY_FLAGS,
                "the JIT tests these flags inline");

int
ossd_numeric_bind_failure (const struct ossd_numeric *n)
{
  if (n->flags & NUM_FAILED_RANGE)
    return -ERANGE;
  if (n->flags & NUM_FAILED_BAD)
    return -EINVAL;
  return 0;
}

void
ossd_rt_col_materialize (const struct ossd_kctx *ctx, uint64_t addr,
                         struct ossd_exec_state *st)
{
  const uint64_t first = (uint64_t) (uintptr_t) ctx + offsetof (struct ossd_kctx, col[0].data);
  uint64_t off = addr - first;

  /* the verifier marks loads of data fields, but an instruction reached
   * on several paths may load another ctx field on some: check */
  if (off >= sizeof ctx->col || off % sizeof ctx->col[0] != 0)
    return;
  const struct ossd_col *c = &ctx->col[off / sizeof ctx->col[0]];
  if (c->type != OSSD_T_NUMERIC || c->isnull || c->data == 0)
    return;
  struct ossd_numeric *n = (struct ossd_numeric *) (uintptr_t) c->data;
  if (!(n->flags & NUM_PENDING))
    {
      if (n->flags & (NUM_FAILED_RANGE | NUM_FAILED_BAD))
        st->row_to_host = 1;
      return;
    }
  const void *payload = (const void *) (uintptr_t) n->lo;
  uint32_t len = (uint32_t) n->hi;
  int rc = ossd_numeric_from_pg (payload, len, n);
  if (rc < 0)
    {
      /* a valid zero, so that nothing downstream reads garbage; the run
       * ends with the row going to the host */
      ossd_num_set (n, 0, 0);
      n->flags = rc == -ERANGE ? NUM_FAILED_RANGE : NUM_FAILED_BAD;
      st->row_to_host = 1;
    }
}
