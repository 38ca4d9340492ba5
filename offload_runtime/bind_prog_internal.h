/* bind_prog_internal.h - the step and sink codes of the fused deform +
 * bind program (struct ossd_bind_prog, ossd_scan.h), shared by its
 * builder and C runner (tuple_bind.c) and its JIT compiler
 * (jit_deform.c), which must read the program the same way. */
#ifndef OSSD_BIND_PROG_INTERNAL_H
#define OSSD_BIND_PROG_INTERNAL_H

#define WALK UINT32_MAX        /* step.fixed_off: found by walking the tuple */

enum walk_op
{
  WALK_NONE,                   /* at its fixed offset from t_hoff */
  WALK_VARLENA,
  WALK_VARLENA_SKIP,           /* `count` varlenas that nothing reads */
  WALK_FIXED,                  /* fixed length, aligned */
  WALK_CSTRING,
};

enum sink_op
{
  SINK_NONE,
  SINK_INT,                    /* by value: the sign-extended Datum */
  SINK_FLOAT4,                 /* by value, widened to float8 bits */
  SINK_NUMERIC_LAZY,           /* pending struct ossd_numeric */
  SINK_NUMERIC,                /* converted now */
  SINK_NAME,                   /* bytes up to the first NUL */
  SINK_BYTES,                  /* varlena payload, or the by-ref image */
  SINK_MANY,                   /* several columns and/or the datum: p->sinks */
};

#endif /* OSSD_BIND_PROG_INTERNAL_H */
