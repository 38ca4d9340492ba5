/* jit_kernel.c - the compiled-kernel object: compile (private program
 * copy, control-flow facts, ORC back end, statistics), run, reference
 * counting, the deforms compiled for its scans (jit_deform.c); and the run-time support functions generated code calls
 * (budget fault, the access check with a plain 64-bit signature, the
 * fault reason texts shared with the interpreter's wording). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OSSD_SCAN_INTERNAL
#include "jit_internal.h"
#include "prog_internal.h"

const char ossd_jit_reason_load[] = "load out of bounds";
const char ossd_jit_reason_store[] = "store out of bounds";
const char ossd_jit_reason_helper[] = "helper argument out of bounds";
const char ossd_jit_reason_unreachable[] = "instruction the verifier proved unreachable";
static const char reason_budget[] = "instruction budget exhausted";

uint64_t
ossd_jit_now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

uint64_t
ossd_jit_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

int64_t
ossd_jit_rt_budget_fault (struct ossd_exec_state *st, const struct ossd_insn *insns,
                          uint64_t start, uint64_t before, uint64_t budget)
{
  /* the interpreter faults at the k-th instruction of the block, where
   * before + k first exceeds budget */
  uint64_t pc = start;
  for (uint64_t k = 1; before + k <= budget; k++)
    pc += ossd_jit_insn_slots (&insns[pc]);
  st->insns_executed = budget;
  st->fault = OSSD_RT_BUDGET;
  st->fault_insn = (uint32_t) pc;
  st->fault_reason = reason_budget;
  return OSSD_RT_BUDGET;
}

uint64_t
ossd_jit_rt_access_ok (const struct ossd_prog *prog, const struct ossd_kctx *ctx,
                       uint64_t stack_top, uint64_t region, uint64_t col,
                       uint64_t addr, uint64_t size, uint64_t write)
{
  return ossd_rt_access_ok (prog, ctx, stack_top, (uint8_t) region, (uint8_t) col, addr,
                            size, write != 0);
}

uint64_t
ossd_jit_rt_materialize (uint64_t ctx, uint64_t addr, uint64_t unused1, uint64_t unused2,
                         uint64_t unused3, struct ossd_exec_state *st)
{
  ossd_rt_col_materialize ((const struct ossd_kctx *) (uintptr_t) ctx, addr, st);
  return 0;
}

static struct ossd_prog *
clone_prog (const struct ossd_prog *p)
{
  struct ossd_prog *c = calloc (1, sizeof *c);
  if (!c)
    return NULL;
  *c = *p;
  c->insns = malloc ((size_t) p->insn_count * sizeof *c->insns);
  c->aux = malloc ((size_t) p->insn_count * sizeof *c->aux);
  c->rodata = p->rodata_len ? malloc (p->rodata_len) : NULL;
  if (!c->insns || !c->aux || (p->rodata_len && !c->rodata))
    {
      ossd_prog_free (c);
      return NULL;
    }
  memcpy (c->insns, p->insns, (size_t) p->insn_count * sizeof *c->insns);
  memcpy (c->aux, p->aux, (size_t) p->insn_count * sizeof *c->aux);
  if (p->rodata_len)
    memcpy (c->rodata, p->rodata, p->rodata_len);
  return c;
}

int
ossd_jit_compile_opts (const struct ossd_prog *prog, const struct ossd_jit_options *opt,
                       struct ossd_jit_kernel **out, char *err, size_t errlen)
{
  static const struct ossd_jit_options defaults = { .opt_level = 2 };
  uint64_t t0 = ossd_jit_now_ns (), c0 = ossd_jit_cpu_ns ();
  struct ossd_jit_cfg cfg;
  int rc;

  *out = NULL;
  if (!opt)
    opt = &defaults;
  if (!prog->verified || !prog->aux)
    return ossd_rt_err (err, errlen, -EPERM, "jit: program not verified");
  struct ossd_jit_kernel *k = calloc (1, sizeof *k);
  if (!k || !(k->prog = clone_prog (prog)))
    {
      free (k);
      return ossd_rt_err (err, errlen, -ENOMEM, "jit: out of memory");
    }
  atomic_init (&k->refs, 1);
  pthread_mutex_init (&k->deform_mu, NULL);
  if ((rc = ossd_jit_cfg_build (k->prog, &cfg, err, errlen)) < 0)
    {
      pthread_mutex_destroy (&k->deform_mu);
      ossd_prog_free (k->prog);
      free (k);
      return rc;
    }
  k->cyclic = cfg.cyclic;
  k->max_path = cfg.max_path;
  rc = ossd_jit_orc_build (k->prog, &cfg, opt, &k->code, &k->stats, err, errlen);
  k->stats.ebpf_insns = cfg.reachable;
  k->stats.blocks = cfg.nblocks;
  k->stats.cyclic = cfg.cyclic;
  k->stats.max_path = cfg.max_path;
  ossd_jit_cfg_free (&cfg);
  if (rc < 0)
    {
      pthread_mutex_destroy (&k->deform_mu);
      ossd_prog_free (k->prog);
      free (k);
      return rc;
    }
  k->stats.total_ns = ossd_jit_now_ns () - t0;
  k->stats.cpu_ns = ossd_jit_cpu_ns () - c0;
  *out = k;
  return 0;
}

int
ossd_jit_compile (const struct ossd_prog *prog, struct ossd_jit_kernel **out,
                  char *err, size_t errlen)
{
  return ossd_jit_compile_opts (prog, NULL, out, err, errlen);
}

int
ossd_jit_warm_up (char *err, size_t errlen)
{
  static const struct ossd_insn warm[] = {
    OSSD_MOV64_REG (6, 1), OSSD_LDX_MEM (OSSD_BPF_DW, 1, 6, offsetof (struct ossd_kctx, col[0].value)),
    OSSD_MOV64_IMM (2, 0), OSSD_CALL (OSSD_H_DATE_CMP), OSSD_JMP_IMM (OSSD_BPF_JSGT, 0, 0, 1),
    OSSD_MOV64_IMM (0, 0), OSSD_EXIT (),
  };
  struct ossd_prog *p;
  struct ossd_jit_kernel *k;
  int rc = ossd_prog_from_insns (warm, sizeof warm / sizeof warm[0], NULL, 0, &p, err, errlen);
  if (rc == 0 && (rc = ossd_prog_verify (p, err, errlen)) == 0
      && (rc = ossd_jit_compile (p, &k, err, errlen)) == 0)
    ossd_jit_release (k);
  ossd_prog_free (p);
  return rc;
}

int64_t
ossd_jit_run (const struct ossd_jit_kernel *k, struct ossd_kctx *ctx,
              struct ossd_exec_state *st)
{
  return ossd_jit_run_inline (k, ctx, st);
}

struct ossd_jit_kernel *
ossd_jit_retain (struct ossd_jit_kernel *k)
{
  atomic_fetch_add (&k->refs, 1);
  return k;
}

void
ossd_jit_release (struct ossd_jit_kernel *k)
{
  if (!k || atomic_fetch_sub (&k->refs, 1) != 1)
    return;
  for (uint32_t i = 0; i < OSSD_JIT_KERNEL_DEFORMS; i++)
    ossd_jit_deform_release (k->deforms[i]);
  pthread_mutex_destroy (&k->deform_mu);
  ossd_jit_orc_free (&k->code);
  ossd_prog_free (k->prog);
  free (k);
}

int
ossd_jit_kernel_deform (struct ossd_jit_kernel *k, const struct ossd_bind_prog *p,
                        struct ossd_jit_deform **out, char *err, size_t errlen)
{
  /* compiled under the lock: two scans starting together with the same
   * kernel and program compile once, the second waits a few ms */
  pthread_mutex_lock (&k->deform_mu);
  for (uint32_t i = 0; i < OSSD_JIT_KERNEL_DEFORMS; i++)
    if (k->deforms[i] && ossd_bind_prog_equal (ossd_jit_deform_prog (k->deforms[i]), p))
      {
        *out = ossd_jit_deform_retain (k->deforms[i]);
        pthread_mutex_unlock (&k->deform_mu);
        return 0;
      }
  int rc = ossd_jit_deform_compile (p, out, err, errlen);
  if (rc == 0)
    {
      uint32_t slot = k->deform_next++ % OSSD_JIT_KERNEL_DEFORMS;
      ossd_jit_deform_release (k->deforms[slot]);
      k->deforms[slot] = ossd_jit_deform_retain (*out);
    }
  pthread_mutex_unlock (&k->deform_mu);
  return rc;
}

void
ossd_jit_kernel_stats (const struct ossd_jit_kernel *k, struct ossd_jit_stats *out)
{
  *out = k->stats;
}

const uint8_t *
ossd_jit_kernel_hash (const struct ossd_jit_kernel *k)
{
  return k->prog->hash;
}

const struct ossd_prog *
ossd_jit_kernel_prog (const struct ossd_jit_kernel *k)
{
  return k->prog;
}
