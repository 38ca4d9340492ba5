/* ossd_jit.h - the LLVM JIT for verified eBPF kernels: eBPF is lifted to
 * LLVM IR, optimised (new pass manager, O2) and compiled with ORC LLJIT
 * into a native function with exactly the contract of ossd_interp_run.
 *
 *   struct ossd_jit_kernel *k;
 *   ossd_jit_compile (prog, &k, err, sizeof err);   prog must be verified
 *   for each row: r = ossd_jit_run (k, ctx, &st);    same as ossd_interp_run
 *   ossd_jit_release (k);
 *
 * Equivalence with the interpreter (tested differentially, test_jit.c):
 *   - same verdicts, same ctx->out[] contents, same st->r0, row_to_host,
 *     insns_executed, fault, fault_insn and fault_reason text;
 *   - every access the verifier annotated OSSD_AUX_CHECK and every checked
 *     helper argument keeps a run-time bounds check in the native code
 *     (inline compares for column data and the stack, ossd_rt_access_ok
 *     for the other regions); a failed check faults like the interpreter;
 *   - ALU semantics are ossd_alu_eval's (x/0 = 0, x%0 = x, INT_MIN/-1 =
 *     INT_MIN, INT_MIN%-1 = 0, masked shift counts): division is always
 *     guarded, so no LLVM undefined behaviour can arise;
 *   - the per-row instruction budget is exact: the code counts executed
 *     instructions per "counting block" (blocks end at jumps, jump
 *     targets, helper calls, checked accesses and stores to ctx->out, so
 *     no observable effect lies between a block's start and a budget
 *     fault inside it).  Programs with a back-edge compare the count with
 *     st->insn_budget at every block start.  Loop-free programs carry no
 *     budget compares: their longest path (max_path, computed at compile
 *     time) bounds any run, so ossd_jit_run runs them natively when
 *     st->insn_budget >= max_path and otherwise hands the row to
 *     ossd_interp_run (same results by definition).
 *
 * A compiled kernel owns a private copy of the program (instructions,
 * verifier annotations, read-only data): it does not reference the
 * ossd_prog it was compiled from, so a cached kernel may outlive it.
 * Kernels are reference counted and may be run from many threads at
 * once, each with its own struct ossd_exec_state.
 *
 * Errors: 0 or a negative errno with a one-line message in (err, errlen).
 */
#ifndef OSSD_JIT_H
#define OSSD_JIT_H

#include <stdint.h>

#include "ossd_rt.h"
#include "ossd_scan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ossd_jit_kernel;

struct ossd_jit_options
{
  int opt_level;               /* 0: no IR passes; 1; 2 (default) */
  int dump_ir;                 /* print the optimised IR to stderr */
};

/* Compile-time statistics of one kernel (nanoseconds). */
struct ossd_jit_stats
{
  uint64_t lift_ns;            /* eBPF -> IR */
  uint64_t opt_ns;             /* IR passes */
  uint64_t codegen_ns;         /* LLJIT setup, codegen, link, lookup */
  uint64_t total_ns;           /* whole ossd_jit_compile (wall clock) */
  uint64_t cpu_ns;             /* same, CPU time of the compiling thread */
  uint32_t ebpf_insns;         /* reachable eBPF instructions */
  uint32_t blocks;             /* counting blocks */
  uint32_t checks;             /* run-time bounds checks emitted */
  uint32_t cyclic;             /* 1: has a back-edge (budget compares emitted) */
  uint64_t max_path;           /* loop-free: longest path in instructions */
};

/* Returns 0, -EPERM (not verified), -EINVAL (instruction the JIT cannot
 * lift: only possible for an unverified image), -ENOMEM or -EIO (LLVM). */
int ossd_jit_compile (const struct ossd_prog *prog, struct ossd_jit_kernel **out,
                      char *err, size_t errlen);
int ossd_jit_compile_opts (const struct ossd_prog *prog, const struct ossd_jit_options *opt,
                           struct ossd_jit_kernel **out, char *err, size_t errlen);

/* Optional, once at start-up (e.g. when the device starts): pays LLVM's
 * one-time costs (target initialisation, first use of its code paths:
 * typically 20-40 ms) by compiling and discarding a tiny kernel, so the
 * first real compile takes its warm time.  Returns 0 or -EIO. */
int ossd_jit_warm_up (char *err, size_t errlen);

/* Runs one row.  Exactly ossd_interp_run's contract (ossd_rt.h). */
int64_t ossd_jit_run (const struct ossd_jit_kernel *k, struct ossd_kctx *ctx,
                      struct ossd_exec_state *st);

/* Reference counting: compile and cache lookups return one reference. */
struct ossd_jit_kernel *ossd_jit_retain (struct ossd_jit_kernel *k);
void ossd_jit_release (struct ossd_jit_kernel *k);

void ossd_jit_kernel_stats (const struct ossd_jit_kernel *k, struct ossd_jit_stats *out);
/* The SHA-256 of the program the kernel was compiled from (prog->hash). */
const uint8_t *ossd_jit_kernel_hash (const struct ossd_jit_kernel *k);
/* The kernel's private copy of its (verified) program. */
const struct ossd_prog *ossd_jit_kernel_prog (const struct ossd_jit_kernel *k);

/* The kernel as the scan engine calls it: exec runs ossd_jit_run with a
 * per-worker struct ossd_exec_state (thread_init/thread_fini allocate and
 * free it).  The kernel must stay referenced for the whole scan. */
struct ossd_scan_kernel ossd_jit_scan_kernel (struct ossd_jit_kernel *k);
/* Same for the interpreter (for benchmarks and differential scans). */
struct ossd_scan_kernel ossd_interp_scan_kernel (const struct ossd_prog *prog);

/* ---- JIT-compiled deform (jit_deform.c) ----
 * A scan's fused deform + bind program (struct ossd_bind_prog, built by
 * ossd_bind_prog_init) compiled into a native function with exactly
 * ossd_bind_fused's contract: same return code and same outputs on every
 * tuple (it ignores its first argument).  Reference counted; the function
 * stays valid while a reference is held.  -E2BIG for a program too long to
 * unroll, -ENOMEM, -EIO (LLVM): the caller then runs ossd_bind_fused. */
struct ossd_bind_prog;
struct ossd_jit_deform;
int ossd_jit_deform_compile (const struct ossd_bind_prog *p, struct ossd_jit_deform **out,
                             char *err, size_t errlen);
ossd_bind_fn ossd_jit_deform_fn (const struct ossd_jit_deform *d);
/* The program it was compiled from (a private copy). */
const struct ossd_bind_prog *ossd_jit_deform_prog (const struct ossd_jit_deform *d);
uint64_t ossd_jit_deform_compile_ns (const struct ossd_jit_deform *d);
struct ossd_jit_deform *ossd_jit_deform_retain (struct ossd_jit_deform *d);
void ossd_jit_deform_release (struct ossd_jit_deform *d);
/* The deform for p compiled with kernel k's scans: the one k keeps from an
 * earlier scan with an equal program, else compiled now and kept (k keeps
 * the last OSSD_JIT_KERNEL_DEFORMS programs; a cached kernel thus caches
 * its deforms).  One reference in *out. */
#define OSSD_JIT_KERNEL_DEFORMS 4
int ossd_jit_kernel_deform (struct ossd_jit_kernel *k, const struct ossd_bind_prog *p,
                            struct ossd_jit_deform **out, char *err, size_t errlen);

/* ---- Cache of compiled kernels, keyed by prog->hash ----
 * An explicit object (no process-wide cache): thread-safe (one mutex;
 * compilation runs outside it, concurrent misses on the same hash compile
 * once and the others wait), bounded to `capacity` kernels with LRU
 * eviction.  An evicted kernel stays valid while someone holds a
 * reference. */
struct ossd_jit_cache;
struct ossd_jit_cache_stats
{
  uint64_t hits, misses, evictions, compile_errors;
  uint64_t compile_ns;         /* sum of total_ns of the kernels compiled */
  uint32_t entries, capacity;
};
struct ossd_jit_cache *ossd_jit_cache_new (uint32_t capacity);
void ossd_jit_cache_free (struct ossd_jit_cache *c);
/* Returns 0 with one reference in *out (release it), or the compile
 * error.  prog must be verified. */
int ossd_jit_cache_get (struct ossd_jit_cache *c, const struct ossd_prog *prog,
                        struct ossd_jit_kernel **out, char *err, size_t errlen);
void ossd_jit_cache_get_stats (struct ossd_jit_cache *c, struct ossd_jit_cache_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* OSSD_JIT_H */
