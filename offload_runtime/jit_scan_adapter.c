/* jit_scan_adapter.c - struct ossd_scan_kernel adapters for the scan
 * engine: a JIT kernel or an interpreted program, each worker thread with
 * its own struct ossd_exec_state (thread_init/thread_fini).  A fault
 * (negative result) is passed on to the engine, which aborts the scan. */
#include <stdlib.h>

#include "jit_internal.h"

/* One cache line (or more) per worker: the state is written on every row,
 * two workers' states must not share a line. */
#define STATE_ALIGN 64
#define STATE_SIZE ((sizeof (struct ossd_exec_state) + STATE_ALIGN - 1) / STATE_ALIGN * STATE_ALIGN)

static void *
state_new (void *kernel)
{
  struct ossd_exec_state *st = aligned_alloc (STATE_ALIGN, STATE_SIZE);
  if (st)
    ossd_exec_state_init (st);
  return st;
}

static void
state_free (void *kernel, void *state)
{
  free (state);
}

static int
jit_exec (void *kernel, struct ossd_kctx *ctx, void *state)
{
  struct ossd_exec_state local;
  struct ossd_exec_state *st = state;
  if (!st)
    {
      ossd_exec_state_init (&local);
      st = &local;
    }
  return (int) ossd_jit_run_inline (kernel, ctx, st);
}

static int
interp_exec (void *kernel, struct ossd_kctx *ctx, void *state)
{
  struct ossd_exec_state local;
  struct ossd_exec_state *st = state;
  if (!st)
    {
      ossd_exec_state_init (&local);
      st = &local;
    }
  return (int) ossd_interp_run (kernel, ctx, st);
}

struct ossd_scan_kernel
ossd_jit_scan_kernel (struct ossd_jit_kernel *k)
{
  return (struct ossd_scan_kernel) { jit_exec, k, state_new, state_free, true, k };
}

struct ossd_scan_kernel
ossd_interp_scan_kernel (const struct ossd_prog *prog)
{
  return (struct ossd_scan_kernel) { interp_exec, (void *) prog, state_new, state_free, true };
}
