/* verifier_internal.h - abstract state of the verifier (not installed).
 *
 * A register is uninitialised, a scalar with signed and unsigned ranges,
 * or a pointer into one region with its offset range [smin, smax]
 * relative to the region start (stack: relative to r10, so negative).
 * The stack is tracked per byte (uninitialised / data / part of an 8-byte
 * register spill) with the spilled register state per 8-byte slot. */
#ifndef OSSD_VERIFIER_INTERNAL_H
#define OSSD_VERIFIER_INTERNAL_H

#include <stdarg.h>

#include "prog_internal.h"

enum vtype
{
  V_UNINIT = 0,
  V_SCALAR,
  V_PTR_CTX,        /* struct ossd_kctx; constant offset only */
  V_PTR_STACK,      /* offset in [-OSSD_STACK_SIZE, 0] */
  V_PTR_RODATA,     /* offset in [0, rodata_len] */
  V_PTR_COLDATA,    /* column `col` data; length known only at run time */
};

struct vreg
{
  uint8_t type;     /* enum vtype */
  uint8_t col;      /* V_PTR_COLDATA: column or OSSD_AUX_COL_ANY */
  int64_t smin, smax;       /* scalar: signed range; pointer: offset range */
  uint64_t umin, umax;      /* scalar: unsigned range */
};

enum stack_byte { SB_UNINIT = 0, SB_DATA, SB_SPILL };

#define NSLOTS (OSSD_STACK_SIZE / 8)

struct vstate
{
  struct vreg r[OSSD_NREGS];
  uint8_t sbyte[OSSD_STACK_SIZE];   /* enum stack_byte; index = 512 + fp offset */
  struct vreg spill[NSLOTS];        /* valid where all 8 bytes are SB_SPILL */
};

/* A state remembered at a prune point. */
struct stored_state
{
  struct vstate st;
  struct stored_state *next;        /* same instruction */
  struct stored_state *parent;      /* nearest stored ancestor on the path */
  uint32_t branches;                /* paths still being explored below it */
};

/* A path waiting to be explored. */
struct pending
{
  struct vstate st;
  uint32_t pc;
  struct stored_state *parent;
};

struct verifier
{
  struct ossd_prog *prog;
  char *log;
  size_t loglen;
  uint16_t *live;                   /* per insn: registers live on entry (bit mask) */
  uint8_t *prune_point;             /* per insn: target of a jump */
  struct stored_state **stored;     /* per insn list */
  uint32_t *nstored;
  uint32_t total_stored;
  struct pending *work;
  uint32_t nwork, capwork;
  uint64_t steps;
  uint32_t max_stack;
  bool writes_out;
  uint32_t ncols_read;              /* 1 + highest ctx->col[i] read */
  bool reads_ncols;                 /* reads ctx->ncols */
};

/* Rejects: formats "insn N: ..." into the log, returns -EINVAL. */
int ossd_vreject (struct verifier *v, uint32_t pc, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* verifier_structure.c */
int ossd_verifier_check_structure (struct verifier *v);
int ossd_verifier_compute_liveness (struct verifier *v);

/* verifier_scalar.c */
void ossd_vreg_set_unknown (struct vreg *r);
void ossd_vreg_set_const (struct vreg *r, uint64_t v);
void ossd_vreg_set_urange (struct vreg *r, uint64_t umin, uint64_t umax);
void ossd_vreg_set_srange (struct vreg *r, int64_t smin, int64_t smax);
bool ossd_vreg_is_const (const struct vreg *r);
/* Tightens signed/unsigned ranges from each other; false if empty. */
bool ossd_vreg_sync (struct vreg *r);
/* Scalar ALU on ranges; src is a scalar (register or imm). */
void ossd_scalar_alu (uint8_t code, int16_t off, int32_t imm, struct vreg *dst,
                 const struct vreg *src);
/* Refines both operands for a conditional jump outcome; false when the
 * outcome is impossible. */
bool ossd_scalar_refine (uint8_t code, bool taken, struct vreg *dst,
                    struct vreg *src);

/* verifier_mem.c */
int ossd_verifier_check_load (struct verifier *v, struct vstate *s, uint32_t pc);
int ossd_verifier_check_store (struct verifier *v, struct vstate *s, uint32_t pc);
int ossd_verifier_check_call (struct verifier *v, struct vstate *s, uint32_t pc);
int ossd_verifier_ptr_alu (struct verifier *v, struct vstate *s, uint32_t pc);

const char *ossd_vtype_name (uint8_t t);

#endif
