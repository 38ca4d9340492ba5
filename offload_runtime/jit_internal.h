/* jit_internal.h - shared by the JIT files (not installed): the control
 * flow analysis, the lifter, the ORC back end, the kernel object and the
 * run-time support functions the generated code calls. */
#ifndef OSSD_JIT_INTERNAL_H
#define OSSD_JIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>

#include "ossd_jit.h"

/* ---- jit_cfg.c: counting blocks, back-edges, longest path ---- */
struct ossd_jit_cfg
{
  uint32_t n;                  /* instruction slots */
  uint8_t *leader;             /* [n] 1 = a counting block starts here */
  uint32_t *block_len;         /* [n] at leaders: instructions executed by the block */
  uint32_t nblocks;
  uint32_t reachable;          /* reachable instructions (lddw = 1) */
  bool cyclic;                 /* some jump goes backwards */
  uint64_t max_path;           /* acyclic: longest path in executed instructions */
};
int ossd_jit_cfg_build (const struct ossd_prog *p, struct ossd_jit_cfg *cfg,
                        char *err, size_t errlen);
void ossd_jit_cfg_free (struct ossd_jit_cfg *cfg);
/* Slots taken by the instruction at pc (2 for lddw). */
static inline uint32_t
ossd_jit_insn_slots (const struct ossd_insn *in)
{
  return in->code == (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM) ? 2 : 1;
}

/* ---- jit_lift.c / jit_lift_mem.c: eBPF -> LLVM IR ---- */
#define OSSD_JIT_FN_NAME "ossd_kernel_entry"
/* Generated function: int64_t f (struct ossd_kctx *ctx,
 *                                 struct ossd_exec_state *st) */
typedef int64_t (*ossd_jit_fn) (struct ossd_kctx *ctx, struct ossd_exec_state *st);

struct ossd_jit_lifter
{
  LLVMContextRef cx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef i1, i8, i16, i32, i64, i8p;
  LLVMTypeRef helper_ty;       /* i64 (i64 x5, i8*) */
  LLVMTypeRef access_ok_ty;    /* ossd_jit_rt_access_ok */
  LLVMTypeRef budget_fault_ty; /* ossd_jit_rt_budget_fault */
  LLVMValueRef regs[OSSD_NREGS];   /* i64 allocas */
  LLVMValueRef stack;          /* [512 x i8] alloca */
  LLVMValueRef count;          /* i64 alloca: executed instructions */
  LLVMValueRef ctx, st;        /* i8* arguments */
  LLVMValueRef ctx_int;        /* ctx as i64 */
  LLVMValueRef stack_top;      /* r10 value (i64) */
  LLVMValueRef budget;         /* st->insn_budget (cyclic programs) */
  LLVMBasicBlockRef *bb;       /* [n]: block of each leader */
  const struct ossd_prog *prog;    /* the kernel's private copy */
  const struct ossd_jit_cfg *cfg;
  uint32_t checks;             /* run-time checks emitted */
};
/* Builds module `mod` (in context cx) with OSSD_JIT_FN_NAME. */
int ossd_jit_lift (const struct ossd_prog *prog, const struct ossd_jit_cfg *cfg,
                   LLVMContextRef cx, LLVMModuleRef mod, uint32_t *checks,
                   char *err, size_t errlen);
/* jit_lift_mem.c: LDX/ST/STX, lddw, helper calls, checks and faults. */
void ossd_jit_lift_ldx (struct ossd_jit_lifter *L, uint32_t pc);
void ossd_jit_lift_store (struct ossd_jit_lifter *L, uint32_t pc);
void ossd_jit_lift_lddw (struct ossd_jit_lifter *L, uint32_t pc);
void ossd_jit_lift_call (struct ossd_jit_lifter *L, uint32_t pc);
/* Field of st as a pointer of type ty* (byte offset off). */
LLVMValueRef ossd_jit_st_field (struct ossd_jit_lifter *L, size_t off, LLVMTypeRef ty);
LLVMValueRef ossd_jit_const64 (struct ossd_jit_lifter *L, uint64_t v);
/* Ends the current block: st->fault = OSSD_RT_FAULT, fault_insn = pc,
 * fault_reason = reason; returns OSSD_RT_FAULT. */
void ossd_jit_emit_fault (struct ossd_jit_lifter *L, uint32_t pc, const char *reason);
/* Return path when the run ends normally: st->r0 = r0, insns_executed. */
void ossd_jit_emit_return (struct ossd_jit_lifter *L, LLVMValueRef r0, LLVMValueRef verdict);

/* ---- jit_orc.c: LLVM set-up, passes, ORC ---- */
struct ossd_jit_code
{
  LLVMOrcLLJITRef jit;
  ossd_jit_fn fn;
};
/* A module being built: its own ThreadSafeContext (so compiles may run
 * concurrently), the LLJIT's triple and data layout set. */
struct ossd_jit_module
{
  LLVMOrcThreadSafeContextRef tsc;
  LLVMContextRef cx;
  LLVMModuleRef mod;
  const char *triple;          /* the LLJIT's */
};
/* The pass pipeline of opt_level (NULL for 0: none). */
const char *ossd_jit_orc_pipeline (int opt_level);
/* A fresh LLJIT in code and an empty module `name` for it. */
int ossd_jit_orc_begin (struct ossd_jit_code *code, struct ossd_jit_module *m, const char *name,
                        char *err, size_t errlen);
/* Verifies m's IR, runs pipeline (NULL: none), optionally dumps it. */
int ossd_jit_orc_optimise (struct ossd_jit_module *m, const char *pipeline, bool dump_ir,
                           char *err, size_t errlen);
/* Hands m to the LLJIT (m is consumed) and compiles; *addr = entry's
 * native address.  On failure code is freed. */
int ossd_jit_orc_finish (struct ossd_jit_code *code, struct ossd_jit_module *m, const char *entry,
                         uint64_t *addr, char *err, size_t errlen);
/* Disposes of an unfinished module and of code. */
void ossd_jit_orc_abandon (struct ossd_jit_code *code, struct ossd_jit_module *m);
/* Lifts, optimises and compiles prog; fills stats lift/opt/codegen. */
int ossd_jit_orc_build (const struct ossd_prog *prog, const struct ossd_jit_cfg *cfg,
                        const struct ossd_jit_options *opt, struct ossd_jit_code *code,
                        struct ossd_jit_stats *stats, char *err, size_t errlen);
void ossd_jit_orc_free (struct ossd_jit_code *code);

/* ---- jit_kernel.c ---- */
struct ossd_jit_kernel
{
  atomic_uint refs;
  struct ossd_jit_code code;
  struct ossd_prog *prog;      /* private verified copy */
  bool cyclic;
  uint64_t max_path;
  struct ossd_jit_stats stats;
  /* the deforms compiled for this kernel's scans (ossd_jit_kernel_deform),
   * the newest replacing the oldest; under deform_mu */
  pthread_mutex_t deform_mu;
  struct ossd_jit_deform *deforms[OSSD_JIT_KERNEL_DEFORMS];
  uint32_t deform_next;
};
uint64_t ossd_jit_now_ns (void);
uint64_t ossd_jit_cpu_ns (void);

/* ossd_jit_run's body, for the scan adapter's fast path. */
static inline int64_t
ossd_jit_run_inline (const struct ossd_jit_kernel *k, struct ossd_kctx *ctx,
                     struct ossd_exec_state *st)
{
  if (!k->cyclic && st->insn_budget < k->max_path)
    return ossd_interp_run (k->prog, ctx, st);  /* budget may run out: exact reference */
  st->row_to_host = 0;
  st->fault = 0;
  st->fault_reason = NULL;
  return k->code.fn (ctx, st);
}

/* ---- run-time support called by generated code (jit_kernel.c) ---- */
/* Budget exhausted inside the counting block starting at `start`, entered
 * with `before` instructions executed: sets the fault exactly as the
 * interpreter would (fault_insn = the instruction that exceeded it). */
int64_t ossd_jit_rt_budget_fault (struct ossd_exec_state *st, const struct ossd_insn *insns,
                                  uint64_t start, uint64_t before, uint64_t budget);
/* ossd_rt_access_ok with plain 64-bit arguments and result (no C ABI
 * questions about bool/uint8_t arguments from generated code). */
uint64_t ossd_jit_rt_access_ok (const struct ossd_prog *prog, const struct ossd_kctx *ctx,
                                uint64_t stack_top, uint64_t region, uint64_t col,
                                uint64_t addr, uint64_t size, uint64_t write);
/* ossd_rt_col_materialize with the helper signature (ctx, addr, -, -, -,
 * st), so generated code calls it through helper_ty. */
uint64_t ossd_jit_rt_materialize (uint64_t ctx, uint64_t addr, uint64_t unused1,
                                  uint64_t unused2, uint64_t unused3,
                                  struct ossd_exec_state *st);
/* Reason texts, identical to the interpreter's. */
extern const char ossd_jit_reason_load[], ossd_jit_reason_store[], ossd_jit_reason_helper[],
  ossd_jit_reason_unreachable[];

#endif /* OSSD_JIT_INTERNAL_H */
