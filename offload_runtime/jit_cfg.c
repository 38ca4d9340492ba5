/* jit_cfg.c - control-flow facts the JIT needs about a verified program:
 * where "counting blocks" start, how many instructions each executes,
 * whether any jump goes backwards, and (loop-free programs) the longest
 * path in executed instructions.
 *
 * A counting block is a straight run of reachable instructions that is
 * entered only at its first instruction and that has no observable effect
 * before its last instruction: blocks start at pc 0, at jump targets and
 * after every jump, exit, helper call, run-time-checked access and store
 * outside the stack.  The generated code adds block_len to its executed
 * count at block entry; a budget fault detected there is therefore exact
 * (see ossd_jit.h).  Only instructions the verifier reached (OSSD_AUX_SEEN)
 * are considered. */
#include <stdlib.h>

#include "jit_internal.h"
#include "prog_internal.h"

static bool
is_jump (uint8_t code)
{
  uint8_t cls = OSSD_BPF_CLASS (code), op = OSSD_BPF_OP (code);
  return (cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32)
    && op != OSSD_BPF_CALL && op != OSSD_BPF_EXIT;
}

static int64_t
jump_target (const struct ossd_insn *in, uint32_t pc)
{
  bool gotol = OSSD_BPF_CLASS (in->code) == OSSD_BPF_JMP32
    && OSSD_BPF_OP (in->code) == OSSD_BPF_JA;
  return (int64_t) pc + 1 + (gotol ? in->imm : in->off);
}

/* true if the instruction ends its counting block */
static bool
ends_block (const struct ossd_prog *p, uint32_t pc)
{
  const struct ossd_insn *in = &p->insns[pc];
  const struct ossd_insn_aux *ax = &p->aux[pc];
  uint8_t cls = OSSD_BPF_CLASS (in->code);
  if (cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32)
    return true;                        /* jumps, call, exit */
  if (cls == OSSD_BPF_LDX || cls == OSSD_BPF_ST || cls == OSSD_BPF_STX)
    {
      if (ax->flags & OSSD_AUX_CHECK)
        return true;
      if (cls != OSSD_BPF_LDX && ax->region != OSSD_REGION_STACK)
        return true;
    }
  return false;
}

int
ossd_jit_cfg_build (const struct ossd_prog *p, struct ossd_jit_cfg *cfg,
                    char *err, size_t errlen)
{
  uint32_t n = p->insn_count;
  cfg->n = n;
  cfg->leader = calloc (n + 1, 1);
  cfg->block_len = calloc (n + 1, sizeof *cfg->block_len);
  uint64_t *path = calloc (n + 1, sizeof *path);
  cfg->nblocks = 0;
  cfg->reachable = 0;
  cfg->cyclic = false;
  cfg->max_path = 0;
  if (!cfg->leader || !cfg->block_len || !path)
    {
      free (path);
      ossd_jit_cfg_free (cfg);
      return ossd_rt_err (err, errlen, -ENOMEM, "jit: out of memory");
    }
  if (n == 0 || !(p->aux[0].flags & OSSD_AUX_SEEN))
    {
      free (path);
      ossd_jit_cfg_free (cfg);
      return ossd_rt_err (err, errlen, -EINVAL, "jit: empty program");
    }

  cfg->leader[0] = 1;
  for (uint32_t pc = 0; pc < n; pc += ossd_jit_insn_slots (&p->insns[pc]))
    {
      const struct ossd_insn *in = &p->insns[pc];
      uint32_t next = pc + ossd_jit_insn_slots (in);
      if (next > n)
        {
          free (path);
          ossd_jit_cfg_free (cfg);
          return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: truncated lddw", pc);
        }
      if (!(p->aux[pc].flags & OSSD_AUX_SEEN))
        continue;
      cfg->reachable++;
      if (is_jump (in->code))
        {
          int64_t t = jump_target (in, pc);
          if (t < 0 || t >= n)
            {
              free (path);
              ossd_jit_cfg_free (cfg);
              return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: jump out of range", pc);
            }
          cfg->leader[t] = 1;
          if (t <= pc)
            cfg->cyclic = true;
        }
      if (ends_block (p, pc))
        cfg->leader[next] = 1;
    }

  /* block lengths (leaders the verifier never reached get no code) */
  for (uint32_t s = 0; s < n; s++)
    {
      if (!cfg->leader[s] || !(p->aux[s].flags & OSSD_AUX_SEEN))
        continue;
      uint32_t len = 0, pc = s;
      do
        {
          len++;
          bool end = ends_block (p, pc);
          pc += ossd_jit_insn_slots (&p->insns[pc]);
          if (end)
            break;
        }
      while (pc < n && !cfg->leader[pc]);
      cfg->block_len[s] = len;
      cfg->nblocks++;
    }

  /* longest path of a loop-free program: every edge goes forward, so one
   * backward sweep suffices */
  if (!cfg->cyclic)
    {
      for (int64_t pc = (int64_t) n - 1; pc >= 0; pc--)
        {
          const struct ossd_insn *in = &p->insns[pc];
          if (!(p->aux[pc].flags & OSSD_AUX_SEEN))
            continue;                   /* (also the second slot of lddw) */
          uint8_t cls = OSSD_BPF_CLASS (in->code), op = OSSD_BPF_OP (in->code);
          uint32_t next = (uint32_t) pc + ossd_jit_insn_slots (in);
          uint64_t best = 0;
          bool is_j = cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32;
          if (is_j && op == OSSD_BPF_EXIT)
            best = 0;
          else if (is_jump (in->code))
            {
              best = path[jump_target (in, (uint32_t) pc)];
              if (op != OSSD_BPF_JA && next < n && path[next] > best)
                best = path[next];
            }
          else if (next < n)
            best = path[next];
          path[pc] = best + 1;
        }
      cfg->max_path = path[0];
    }
  free (path);
  return 0;
}

void
ossd_jit_cfg_free (struct ossd_jit_cfg *cfg)
{
  free (cfg->leader);
  free (cfg->block_len);
  cfg->leader = NULL;
  cfg->block_len = NULL;
}
