/* ossd_rt.h - the offload runtime's public API for programs: loading
 * kernels (raw image or clang ELF), verifying them, running them in the
 * reference interpreter, the helper table with its typed prototypes, and
 * the exact NUMERIC conversions the scan engine needs.
 *
 * Life cycle of a kernel:
 *   ossd_prog_load(buf, len, &prog, err, sizeof err)   raw or ELF (detected)
 *   ossd_prog_verify(prog, log, sizeof log)            fills prog->aux, kind
 *   ossd_exec_state_init(&st);
 *   for each row: r = ossd_interp_run(prog, ctx, &st)  (or the JIT)
 *   ossd_prog_free(prog)
 *
 * Error convention: functions return 0 or a negative errno and write a
 * one-line message into (err, errlen).  Verifier rejections read
 * "insn N: <reason>".  Nothing here keeps global mutable state; a loaded
 * and verified program is read-only and may be run from many threads,
 * each with its own struct ossd_exec_state.
 *
 * Run-time contract with the scan engine:
 *   - ctx is a full struct ossd_kctx; columns >= ncols have data = 0 and
 *     len = 0 (zero them), so a kernel touching them faults instead of
 *     reading garbage.  col[i].data must point at len readable bytes.
 *   - the verifier lets a kernel write any of the OSSD_KCTX_MAX_OUT output
 *     slots (memory-safe); the engine reads only the first nout.
 *   - return value of a run: >= 0 is the kernel's verdict (low 32 bits of
 *     r0, zero-extended; OSSD_ROW_TO_HOST when a helper gave up), < 0 is
 *     a kernel fault (OSSD_RT_FAULT, OSSD_RT_BUDGET) to report.
 *   - a NUMERIC column may be bound lazily (ossd_numeric_bind_lazy): the
 *     interpreter and the JIT call ossd_rt_col_materialize before every
 *     load of a col[i].data pointer (OSSD_AUX_COLPTR), so a kernel only
 *     ever sees converted values and a row pays for the conversion of
 *     just the columns its kernel reached.  A value that cannot be
 *     converted ends the run with OSSD_ROW_TO_HOST, and
 *     ossd_numeric_bind_failure tells the caller why.
 */
#ifndef OSSD_RT_H
#define OSSD_RT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ossd_kernel.h"
#include "ossd_bpf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Run-time result codes (negative; verdicts are >= 0) ---- */
#define OSSD_RT_FAULT   (-EFAULT)   /* a run-time bounds check failed */
#define OSSD_RT_BUDGET  (-ETIME)    /* per-row instruction budget exhausted */
#define OSSD_RT_NOTVERIFIED (-EPERM) /* program was not verified */

/* ---- Verifier annotations ---- */

/* Kind of memory region an access goes to. */
enum ossd_region
{
  OSSD_REGION_NONE = 0,
  OSSD_REGION_CTX,      /* ctx header and ctx->col[] (read-only) */
  OSSD_REGION_OUT,      /* ctx->out[] (read/write) */
  OSSD_REGION_STACK,    /* [r10 - OSSD_STACK_SIZE, r10) */
  OSSD_REGION_RODATA,   /* [prog->rodata, + rodata_len) (read-only) */
  OSSD_REGION_COLDATA,  /* [ctx->col[c].data, + col[c].len) (read-only) */
};
#define OSSD_AUX_COL_ANY 0xff   /* column pointer of more than one column */

/* flags of struct ossd_insn_aux */
#define OSSD_AUX_SEEN      0x01 /* reachable: visited by the verifier */
#define OSSD_AUX_CHECK     0x02 /* LDX/ST/STX: bounds not proven; check at run time */
#define OSSD_AUX_DIV_ZERO  0x04 /* DIV/MOD by register that may be 0 (x/0 = 0, x%0 = x) */
#define OSSD_AUX_DIV_OVF   0x08 /* signed DIV/MOD that may see INT_MIN / -1 (wraps; mod = 0) */
#define OSSD_AUX_RODATA_PTR 0x10 /* lddw loading a rodata pointer */
#define OSSD_AUX_COLPTR    0x20 /* LDX that yields a ctx->col[i].data pointer:
                                   a lazily bound column is converted first */

/* Per-instruction verifier result (prog->aux[i], one per slot; the second
 * slot of lddw carries nothing). */
struct ossd_insn_aux
{
  uint8_t flags;            /* OSSD_AUX_* */
  uint8_t region;           /* LDX/ST/STX: enum ossd_region of the access */
  uint8_t col;              /* COLDATA: column index or OSSD_AUX_COL_ANY */
  uint8_t arg_check;        /* CALL: bit k set = argument r(k+1) is memory that
                               needs a run-time check (region/col below;
                               size = 24 for numeric args, else the value of
                               the following size argument) */
  uint8_t arg_region[5];    /* CALL: region of each pointer argument r1..r5 */
  uint8_t arg_col[5];       /* CALL: column of COLDATA arguments */
};

enum ossd_kernel_kind
{
  OSSD_KIND_FILTER = 0,     /* never writes ctx->out */
  OSSD_KIND_MAP = 1,        /* writes ctx->out */
};

/* A loaded program.  Everything is owned by the struct (ossd_prog_free). */
struct ossd_prog
{
  struct ossd_insn *insns;  /* insn_count slots, relocations resolved */
  uint32_t insn_count;
  uint8_t *rodata;          /* rodata_len bytes (NULL if 0), read-only */
  uint32_t rodata_len;
  struct ossd_insn_aux *aux;    /* insn_count entries; valid once verified */
  bool verified;
  enum ossd_kernel_kind kind;   /* set by the verifier */
  uint32_t stack_depth;         /* bytes of stack used (verifier) */
  uint32_t ncols_read;          /* 1 + highest ctx->col[i] any path reads
                                   (verifier): the arguments it takes */
  bool reads_ncols;             /* reads ctx->ncols: takes a variable number */
  uint32_t verifier_states;     /* instructions processed while verifying */
  uint8_t hash[32];             /* SHA-256 of insns + rodata (JIT cache key) */
  char name[64];                /* ELF function name, or "raw" */
};

/* ---- Loading (loader_*.c) ---- */
int ossd_prog_load_raw (const void *buf, size_t len, struct ossd_prog **out,
                        char *err, size_t errlen);
int ossd_prog_load_elf (const void *buf, size_t len, struct ossd_prog **out,
                        char *err, size_t errlen);
/* Detects the format (OSSD_RAW_MAGIC or ELF magic). */
int ossd_prog_load (const void *buf, size_t len, struct ossd_prog **out,
                    char *err, size_t errlen);
/* Builds a program from instructions in memory (copies them). */
int ossd_prog_from_insns (const struct ossd_insn *insns, uint32_t count,
                          const void *rodata, uint32_t rodata_len,
                          struct ossd_prog **out, char *err, size_t errlen);
/* Serialises to the raw image format (header + insns + rodata) into a
 * malloc'd buffer. */
int ossd_prog_to_raw (const struct ossd_prog *prog, void **buf, size_t *len);
void ossd_prog_free (struct ossd_prog *prog);
/* Lower-case hex of prog->hash into buf (65 bytes). */
void ossd_prog_hash_hex (const struct ossd_prog *prog, char buf[65]);

/* ---- Verifying (verifier_*.c) ----
 * Returns 0 (prog->verified, aux, kind, stack_depth filled) or -EINVAL /
 * -E2BIG with "insn N: reason" in log.  Policies:
 *   - bounded loops are allowed: back-edges are followed by path
 *     exploration; a loop whose state repeats is rejected as infinite, one
 *     that does not settle within OSSD_VERIFIER_MAX_STEPS processed
 *     instructions is rejected as too complex.
 *   - division/modulo by a register that may be zero is allowed with the
 *     eBPF definition (x/0 = 0, x%0 = x) and annotated OSSD_AUX_DIV_ZERO;
 *     division by the constant 0 is rejected.
 *   - accesses through column-data pointers are annotated OSSD_AUX_CHECK
 *     (their length is only known at run time); all other accesses must be
 *     proven in bounds statically.
 *   - bpf-to-bpf calls, maps, atomics and legacy packet loads are rejected. */
#define OSSD_VERIFIER_MAX_STEPS 200000
int ossd_prog_verify (struct ossd_prog *prog, char *log, size_t loglen);

/* ---- Helpers (helpers_*.c) ---- */
struct ossd_exec_state;
/* Every helper has this C signature; pointer arguments arrive as
 * addresses.  A helper that cannot decide exactly sets st->row_to_host
 * and returns 0. */
typedef uint64_t (*ossd_helper_fn) (uint64_t a1, uint64_t a2, uint64_t a3,
                                    uint64_t a4, uint64_t a5,
                                    struct ossd_exec_state *st);

enum ossd_arg_kind
{
  OSSD_ARG_NONE = 0,
  OSSD_ARG_SCALAR,          /* S */
  OSSD_ARG_NUMERIC_RO,      /* P: readable sizeof(struct ossd_numeric) */
  OSSD_ARG_NUMERIC_W,       /* W: writable sizeof(struct ossd_numeric): stack or ctx->out */
  OSSD_ARG_MEM_RO,          /* P: readable, size = the next argument */
  OSSD_ARG_MEM_SIZE,        /* S: size of the previous OSSD_ARG_MEM_RO */
};

struct ossd_helper_proto
{
  const char *name;
  ossd_helper_fn fn;
  uint8_t nargs;
  uint8_t arg[5];           /* enum ossd_arg_kind */
  int64_t ret_min, ret_max; /* r0 range (INT64_MIN..INT64_MAX if unknown) */
};

/* Indexed by enum ossd_helper_id; entry 0 and gaps have fn == NULL. */
extern const ossd_helper_fn ossd_helpers[OSSD_H_MAX + 1];
extern const struct ossd_helper_proto ossd_helper_protos[OSSD_H_MAX + 1];
/* NULL for unknown ids. */
const struct ossd_helper_proto *ossd_helper_lookup (int32_t id);

/* ---- Execution (interp_*.c) ---- */
struct ossd_exec_state
{
  uint64_t insn_budget;     /* per-row limit; ossd_exec_state_init sets
                               OSSD_ROW_INSN_BUDGET, the caller may lower it */
  uint64_t insns_executed;  /* in the last run */
  uint32_t row_to_host;     /* set by a helper during the run */
  int32_t fault;            /* 0 or the negative code of the last run */
  uint32_t fault_insn;      /* instruction index of the fault */
  const char *fault_reason; /* static text, e.g. "column data access out of bounds" */
  uint64_t r0;              /* full r0 at exit */
};
void ossd_exec_state_init (struct ossd_exec_state *st);

/* Lazy NUMERIC binding (see the run-time contract above).  bind_lazy
 * parks the PostgreSQL payload in *n (converted on first use);
 * col_materialize converts the column whose data field sits at addr (a
 * no-op for anything else); bind_failure is 0, -ERANGE (NaN, infinity or
 * beyond 128 bits) or -EINVAL (malformed) for a column the last run
 * tried to convert. */
/* flags bits of a lazily bound value not converted yet (or that failed) */
#define OSSD_NUMERIC_LAZY_FLAGS 0xE0000000u
#define OSSD_NUMERIC_LAZY_PENDING 0x80000000u
static inline void
ossd_numeric_bind_lazy (struct ossd_numeric *n, const void *payload, uint32_t len)
{
  n->lo = (uint64_t) (uintptr_t) payload;
  n->hi = (int64_t) len;
  n->scale = 0;
  n->flags = OSSD_NUMERIC_LAZY_PENDING;
}
void ossd_rt_col_materialize (const struct ossd_kctx *ctx, uint64_t addr,
                              struct ossd_exec_state *st);
int ossd_numeric_bind_failure (const struct ossd_numeric *n);

/* Runs one row.  Returns the verdict (r0 & 0xffffffff, or OSSD_ROW_TO_HOST
 * when a helper gave up) or a negative OSSD_RT_* code. */
int64_t ossd_interp_run (const struct ossd_prog *prog, struct ossd_kctx *ctx,
                         struct ossd_exec_state *st);

/* The run-time bounds check used for OSSD_AUX_CHECK accesses and checked
 * helper arguments (interpreter and JIT): true when [addr, addr+size)
 * lies inside the region.  stack_top is the r10 value of the run. */
bool ossd_rt_access_ok (const struct ossd_prog *prog,
                        const struct ossd_kctx *ctx, uint64_t stack_top,
                        uint8_t region, uint8_t col, uint64_t addr,
                        uint64_t size, bool write);

/* ---- NUMERIC conversions for the scan engine (numeric_pg.c) ---- */
#define OSSD_NUMERIC_MAX_SCALE 38
/* PostgreSQL on-disk numeric (the varlena payload after its 1- or 4-byte
 * header: n_header / n_sign_dscale+n_weight, then base-10000 digits,
 * native byte order) -> exact ossd_numeric with scale = dscale.
 * Returns 0, -ERANGE (NaN, +-Inf, too many digits, dscale > 38: hand the
 * row to the host) or -EINVAL (malformed). */
int ossd_numeric_from_pg (const void *payload, size_t len,
                          struct ossd_numeric *out);
/* ossd_numeric -> complete PostgreSQL numeric varlena (4-byte header,
 * exactly as PostgreSQL's make_result would build it, dscale = scale).
 * Writes *outlen bytes (at most OSSD_NUMERIC_PG_MAXLEN) into buf.
 * Returns 0, -ERANGE (scale outside 0..38) or -ENOSPC. */
#define OSSD_NUMERIC_PG_MAXLEN 32
int ossd_numeric_to_pg (const struct ossd_numeric *n, void *buf,
                        size_t buflen, size_t *outlen);
/* Decimal text of n ("-12.50"), for tests and EXPLAIN. Returns 0/-ENOSPC. */
int ossd_numeric_to_string (const struct ossd_numeric *n, char *buf,
                            size_t buflen);
/* Parses "[-]digits[.digits]" exactly (scale = digits after '.'). */
int ossd_numeric_from_string (const char *s, struct ossd_numeric *out);

/* Exact numeric arithmetic in C (what the helpers use; the scan engine
 * uses them for partial aggregates).  Return 0 or -ERANGE on overflow or
 * scale outside 0..38. */
int ossd_numeric_cmp (const struct ossd_numeric *a,
                      const struct ossd_numeric *b, int *result);
int ossd_numeric_add (const struct ossd_numeric *a,
                      const struct ossd_numeric *b, struct ossd_numeric *out);
int ossd_numeric_sub (const struct ossd_numeric *a,
                      const struct ossd_numeric *b, struct ossd_numeric *out);
int ossd_numeric_mul (const struct ossd_numeric *a,
                      const struct ossd_numeric *b, struct ossd_numeric *out);
/* Same value at a larger or equal scale (exact), or -ERANGE. */
int ossd_numeric_rescale (const struct ossd_numeric *a, int32_t scale,
                          struct ossd_numeric *out);

#ifdef __cplusplus
}
#endif

#endif /* OSSD_RT_H */
