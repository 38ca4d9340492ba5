/* jit_orc.c - the LLVM back end of the JIT: one-time native target
 * initialisation, the IR pass pipeline (new pass manager, default<O2>),
 * and an ORC LLJIT instance per kernel that compiles the lifted module
 * and yields the native entry point; the steps (begin: LLJIT and an empty
 * module; optimise: verify and run a pipeline; finish: compile and look up
 * the entry) are shared with the JIT deform (jit_deform.c).
 *
 * Each kernel owns its LLJIT (and so its code memory): releasing the
 * kernel disposes of it.  Each compile uses its own LLVMContext (an ORC
 * ThreadSafeContext), so kernels may be compiled concurrently from several
 * threads.  The only process-wide state is LLVM's target registry,
 * initialised once under pthread_once. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "jit_internal.h"
#include "prog_internal.h"

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;
static int llvm_init_rc;

static void
llvm_init (void)
{
  if (LLVMInitializeNativeTarget () || LLVMInitializeNativeAsmPrinter ())
    llvm_init_rc = -EIO;
}

/* Consumes e; returns code with "what: <llvm message>". */
static int
llvm_err (LLVMErrorRef e, int code, const char *what, char *err, size_t errlen)
{
  char *msg = LLVMGetErrorMessage (e);
  ossd_rt_err (err, errlen, code, "jit: %s: %s", what, msg ? msg : "?");
  LLVMDisposeErrorMessage (msg);
  return code;
}

/* A target machine for the host (CPU name and features detected). */
static LLVMTargetMachineRef
host_tm (const char *triple, LLVMCodeGenOptLevel level, char *err, size_t errlen)
{
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple (triple, &target, &msg))
    {
      ossd_rt_err (err, errlen, -EIO, "jit: target %s: %s", triple, msg ? msg : "?");
      LLVMDisposeMessage (msg);
      return NULL;
    }
  char *cpu = LLVMGetHostCPUName (), *features = LLVMGetHostCPUFeatures ();
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine (target, triple, cpu, features, level,
                                                     LLVMRelocDefault, LLVMCodeModelJITDefault);
  LLVMDisposeMessage (cpu);
  LLVMDisposeMessage (features);
  if (!tm)
    ossd_rt_err (err, errlen, -EIO, "jit: cannot create a target machine for %s", triple);
  return tm;
}

static int
create_lljit (LLVMOrcLLJITRef *jit, LLVMCodeGenOptLevel level, char *err, size_t errlen)
{
  char *triple = LLVMGetDefaultTargetTriple ();
  LLVMTargetMachineRef tm = host_tm (triple, level, err, errlen);
  LLVMDisposeMessage (triple);
  if (!tm)
    return -EIO;
  LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine (tm);
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder ();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder (builder, jtmb);
  LLVMErrorRef e = LLVMOrcCreateLLJIT (jit, builder);        /* consumes builder */
  if (e)
    return llvm_err (e, -EIO, "create LLJIT", err, errlen);
  return 0;
}

/* opt_level 1: the passes that matter for lifted eBPF (registers and
 * stack slots to SSA, redundant loads, folding, CFG clean-up) at a
 * fraction of default<O2>'s compile time. */
#define OSSD_JIT_LIGHT_PIPELINE \
  "function(sroa,early-cse<memssa>,simplifycfg,instcombine,gvn,simplifycfg,instcombine)"

static int
run_passes (LLVMModuleRef mod, const char *triple, const char *pipeline, char *err,
            size_t errlen)
{
  LLVMTargetMachineRef tm = host_tm (triple, LLVMCodeGenLevelDefault, err, errlen);
  if (!tm)
    return -EIO;
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions ();
  LLVMErrorRef e = LLVMRunPasses (mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions (po);
  LLVMDisposeTargetMachine (tm);
  if (e)
    return llvm_err (e, -EIO, "passes", err, errlen);
  return 0;
}

const char *
ossd_jit_orc_pipeline (int opt_level)
{
  if (opt_level <= 0)
    return NULL;
  return opt_level >= 2 ? "default<O2>" : OSSD_JIT_LIGHT_PIPELINE;
}

int
ossd_jit_orc_begin (struct ossd_jit_code *code, struct ossd_jit_module *m, const char *name,
                    char *err, size_t errlen)
{
  int rc;
  pthread_once (&llvm_once, llvm_init);
  if (llvm_init_rc)
    return ossd_rt_err (err, errlen, llvm_init_rc, "jit: no native LLVM target");
  memset (code, 0, sizeof *code);
  memset (m, 0, sizeof *m);
  if ((rc = create_lljit (&code->jit, LLVMCodeGenLevelDefault, err, errlen)) < 0)
    return rc;
  m->tsc = LLVMOrcCreateNewThreadSafeContext ();
  m->cx = LLVMOrcThreadSafeContextGetContext (m->tsc);
  m->mod = LLVMModuleCreateWithNameInContext (name, m->cx);
  m->triple = LLVMOrcLLJITGetTripleString (code->jit);
  LLVMSetTarget (m->mod, m->triple);
  LLVMSetDataLayout (m->mod, LLVMOrcLLJITGetDataLayoutStr (code->jit));
  return 0;
}

void
ossd_jit_orc_abandon (struct ossd_jit_code *code, struct ossd_jit_module *m)
{
  if (m->mod)
    LLVMDisposeModule (m->mod);
  if (m->tsc)
    LLVMOrcDisposeThreadSafeContext (m->tsc);
  memset (m, 0, sizeof *m);
  ossd_jit_orc_free (code);
}

int
ossd_jit_orc_optimise (struct ossd_jit_module *m, const char *pipeline, bool dump_ir,
                       char *err, size_t errlen)
{
  int rc = 0;
  char *msg = NULL;
  if (LLVMVerifyModule (m->mod, LLVMReturnStatusAction, &msg))
    rc = ossd_rt_err (err, errlen, -EIO, "jit: invalid IR: %.200s", msg ? msg : "?");
  LLVMDisposeMessage (msg);
  if (rc == 0 && pipeline)
    rc = run_passes (m->mod, m->triple, pipeline, err, errlen);
  if (rc == 0 && dump_ir)
    LLVMDumpModule (m->mod);
  return rc;
}

int
ossd_jit_orc_finish (struct ossd_jit_code *code, struct ossd_jit_module *m, const char *entry,
                     uint64_t *addr_out, char *err, size_t errlen)
{
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule (m->mod, m->tsc);
  LLVMOrcDisposeThreadSafeContext (m->tsc);     /* the module keeps it alive */
  memset (m, 0, sizeof *m);
  LLVMErrorRef e = LLVMOrcLLJITAddLLVMIRModule (code->jit, LLVMOrcLLJITGetMainJITDylib (code->jit),
                                                tsm);
  if (e)
    {
      ossd_jit_orc_free (code);
      return llvm_err (e, -EIO, "add module", err, errlen);
    }
  LLVMOrcExecutorAddress addr = 0;
  e = LLVMOrcLLJITLookup (code->jit, &addr, entry);
  if (e || !addr)
    {
      ossd_jit_orc_free (code);
      return e ? llvm_err (e, -EIO, "codegen", err, errlen)
        : ossd_rt_err (err, errlen, -EIO, "jit: entry point not found");
    }
  *addr_out = addr;
  return 0;
}

int
ossd_jit_orc_build (const struct ossd_prog *prog, const struct ossd_jit_cfg *cfg,
                    const struct ossd_jit_options *opt, struct ossd_jit_code *code,
                    struct ossd_jit_stats *stats, char *err, size_t errlen)
{
  struct ossd_jit_module m;
  uint64_t t0 = ossd_jit_now_ns ();
  int rc = ossd_jit_orc_begin (code, &m, "ossd_kernel", err, errlen);
  if (rc < 0)
    return rc;
  uint64_t t_setup = ossd_jit_now_ns () - t0;

  t0 = ossd_jit_now_ns ();
  rc = ossd_jit_lift (prog, cfg, m.cx, m.mod, &stats->checks, err, errlen);
  stats->lift_ns = ossd_jit_now_ns () - t0;

  t0 = ossd_jit_now_ns ();
  if (rc == 0)
    rc = ossd_jit_orc_optimise (&m, ossd_jit_orc_pipeline (opt->opt_level), opt->dump_ir,
                                err, errlen);
  stats->opt_ns = ossd_jit_now_ns () - t0;
  if (rc < 0)
    {
      ossd_jit_orc_abandon (code, &m);
      return rc;
    }

  t0 = ossd_jit_now_ns ();
  uint64_t addr;
  if ((rc = ossd_jit_orc_finish (code, &m, OSSD_JIT_FN_NAME, &addr, err, errlen)) < 0)
    return rc;
  code->fn = (ossd_jit_fn) (uintptr_t) addr;
  stats->codegen_ns = t_setup + (ossd_jit_now_ns () - t0);
  return 0;
}

void
ossd_jit_orc_free (struct ossd_jit_code *code)
{
  if (code->jit)
    {
      LLVMErrorRef e = LLVMOrcDisposeLLJIT (code->jit);
      if (e)
        LLVMConsumeError (e);
    }
  code->jit = NULL;
  code->fn = NULL;
}
