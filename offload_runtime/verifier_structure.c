/* verifier_structure.c - the verifier's static pass over the instruction
 * array before any path is explored: valid opcodes and reserved fields,
 * registers, lddw pairs, jump targets, falling off the end, unknown
 * helpers; then register liveness (for state pruning) and prune points. */
#include <stdlib.h>
#include <string.h>

#include "verifier_internal.h"

static bool
is_cond_jmp_op (uint8_t op)
{
  switch (op)
    {
    case OSSD_BPF_JEQ: case OSSD_BPF_JGT: case OSSD_BPF_JGE: case OSSD_BPF_JSET:
    case OSSD_BPF_JNE: case OSSD_BPF_JSGT: case OSSD_BPF_JSGE: case OSSD_BPF_JLT:
    case OSSD_BPF_JLE: case OSSD_BPF_JSLT: case OSSD_BPF_JSLE:
      return true;
    default:
      return false;
    }
}

static int
check_alu (struct verifier *v, uint32_t i, const struct ossd_insn *in)
{
  uint8_t op = OSSD_BPF_OP (in->code), cls = OSSD_BPF_CLASS (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  if (op == 0xe0 || op == 0xf0)
    return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
  if (in->dst_reg == OSSD_R10)
    return ossd_vreject (v, i, "frame pointer r10 is read-only");
  if (op == OSSD_BPF_END)
    {
      if (cls == OSSD_BPF_ALU64 && x)
        return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
      if (in->imm != 16 && in->imm != 32 && in->imm != 64)
        return ossd_vreject (v, i, "invalid byte swap width %d", in->imm);
      if (in->src_reg || in->off)
        return ossd_vreject (v, i, "reserved field set in byte swap");
      return 0;
    }
  if (op == OSSD_BPF_NEG && (x || in->src_reg || in->off))
    return ossd_vreject (v, i, "invalid opcode 0x%02x (neg takes no source)", in->code);
  if (!x && in->src_reg)
    return ossd_vreject (v, i, "reserved field src_reg set");
  if (x && in->imm)
    return ossd_vreject (v, i, "reserved field imm set");
  if (op == OSSD_BPF_DIV || op == OSSD_BPF_MOD)
    {
      if (in->off != 0 && in->off != 1)
        return ossd_vreject (v, i, "invalid division flag off=%d", in->off);
      if (!x && in->imm == 0)
        return ossd_vreject (v, i, "division by constant zero");
    }
  else if (op == OSSD_BPF_MOV && in->off)
    {
      bool ok = x && (in->off == 8 || in->off == 16
                      || (cls == OSSD_BPF_ALU64 && in->off == 32));
      if (!ok)
        return ossd_vreject (v, i, "invalid sign-extension width off=%d", in->off);
    }
  else if (in->off)
    return ossd_vreject (v, i, "reserved field off set");
  return 0;
}

static int
check_jmp (struct verifier *v, uint32_t i, const struct ossd_insn *in)
{
  uint8_t op = OSSD_BPF_OP (in->code), cls = OSSD_BPF_CLASS (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  if (op == OSSD_BPF_CALL)
    {
      if (cls != OSSD_BPF_JMP)
        return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
      if (x)
        return ossd_vreject (v, i, "indirect call not supported");
      if (in->src_reg == OSSD_PSEUDO_CALL)
        return ossd_vreject (v, i, "bpf-to-bpf calls are not supported");
      if (in->src_reg || in->dst_reg || in->off)
        return ossd_vreject (v, i, "reserved field set in call");
      if (!ossd_helper_lookup (in->imm))
        return ossd_vreject (v, i, "unknown helper %d", in->imm);
      return 0;
    }
  if (op == OSSD_BPF_EXIT)
    {
      if (cls != OSSD_BPF_JMP || x || in->src_reg || in->dst_reg || in->off || in->imm)
        return ossd_vreject (v, i, "invalid opcode 0x%02x or reserved field set in exit",
                        in->code);
      return 0;
    }
  if (op == OSSD_BPF_JA)
    {
      if (x || in->src_reg || in->dst_reg
          || (cls == OSSD_BPF_JMP ? in->imm != 0 : in->off != 0))
        return ossd_vreject (v, i, "reserved field set in ja");
      return 0;
    }
  if (!is_cond_jmp_op (op))
    return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
  if (!x && in->src_reg)
    return ossd_vreject (v, i, "reserved field src_reg set");
  if (x && in->imm)
    return ossd_vreject (v, i, "reserved field imm set");
  return 0;
}

static int
check_mem (struct verifier *v, uint32_t i, const struct ossd_insn *in)
{
  uint8_t cls = OSSD_BPF_CLASS (in->code), mode = OSSD_BPF_MODE (in->code);
  if (cls == OSSD_BPF_LDX)
    {
      if (mode != OSSD_BPF_MEM
          && !(mode == OSSD_BPF_MEMSX && OSSD_BPF_SIZE (in->code) != OSSD_BPF_DW))
        return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
      if (in->imm)
        return ossd_vreject (v, i, "reserved field imm set");
      if (in->dst_reg == OSSD_R10)
        return ossd_vreject (v, i, "frame pointer r10 is read-only");
      return 0;
    }
  if (cls == OSSD_BPF_STX && mode == OSSD_BPF_ATOMIC)
    return ossd_vreject (v, i, "atomic operations are not supported");
  if (mode != OSSD_BPF_MEM)
    return ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
  if (cls == OSSD_BPF_ST && in->src_reg)
    return ossd_vreject (v, i, "reserved field src_reg set");
  if (cls == OSSD_BPF_STX && in->imm)
    return ossd_vreject (v, i, "reserved field imm set");
  return 0;
}

int
ossd_verifier_check_structure (struct verifier *v)
{
  const struct ossd_insn *insn = v->prog->insns;
  uint32_t n = v->prog->insn_count;
  uint8_t *second = calloc (n, 1);      /* second slot of lddw */
  int rc = 0;
  if (!second)
    return ossd_vreject (v, 0, "out of memory");

  for (uint32_t i = 0; i < n && rc == 0; i++)
    {
      const struct ossd_insn *in = &insn[i];
      if (second[i])
        continue;
      if (in->dst_reg >= OSSD_NREGS || in->src_reg >= OSSD_NREGS)
        {
          /* lddw src_reg is a pseudo kind, checked below */
          if (!(in->code == (OSSD_BPF_LD | OSSD_BPF_DW) && in->dst_reg < OSSD_NREGS))
            {
              rc = ossd_vreject (v, i, "invalid register r%d",
                            in->dst_reg >= OSSD_NREGS ? in->dst_reg : in->src_reg);
              break;
            }
        }
      switch (OSSD_BPF_CLASS (in->code))
        {
        case OSSD_BPF_ALU:
        case OSSD_BPF_ALU64:
          rc = check_alu (v, i, in);
          break;
        case OSSD_BPF_JMP:
        case OSSD_BPF_JMP32:
          rc = check_jmp (v, i, in);
          break;
        case OSSD_BPF_LDX:
        case OSSD_BPF_ST:
        case OSSD_BPF_STX:
          rc = check_mem (v, i, in);
          break;
        case OSSD_BPF_LD:
          if (OSSD_BPF_MODE (in->code) == OSSD_BPF_ABS
              || OSSD_BPF_MODE (in->code) == OSSD_BPF_IND)
            rc = ossd_vreject (v, i, "legacy packet access (BPF_ABS/BPF_IND) is not supported");
          else if (in->code != (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM))
            rc = ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
          else if (i + 1 >= n)
            rc = ossd_vreject (v, i, "lddw is missing its second slot");
          else if (insn[i + 1].code || insn[i + 1].dst_reg || insn[i + 1].src_reg
                   || insn[i + 1].off)
            rc = ossd_vreject (v, i, "malformed second slot of lddw");
          else if (in->off)
            rc = ossd_vreject (v, i, "reserved field off set");
          else if (in->dst_reg == OSSD_R10)
            rc = ossd_vreject (v, i, "frame pointer r10 is read-only");
          else if (in->src_reg == OSSD_PSEUDO_MAP_FD)
            rc = ossd_vreject (v, i, "map references are not supported");
          else if (in->src_reg != OSSD_PSEUDO_NONE && in->src_reg != OSSD_PSEUDO_RODATA)
            rc = ossd_vreject (v, i, "invalid lddw source %d", in->src_reg);
          else if (in->src_reg == OSSD_PSEUDO_RODATA
                   && ((uint32_t) in->imm > v->prog->rodata_len || insn[i + 1].imm))
            rc = ossd_vreject (v, i, "read-only data offset %u out of bounds (%u bytes)",
                          (uint32_t) in->imm, v->prog->rodata_len);
          if (i + 1 < n)
            second[i + 1] = 1;
          break;
        default:
          rc = ossd_vreject (v, i, "invalid opcode 0x%02x", in->code);
        }
    }

  /* jump targets and fall-through */
  for (uint32_t i = 0; i < n && rc == 0; i++)
    {
      const struct ossd_insn *in = &insn[i];
      uint8_t cls = OSSD_BPF_CLASS (in->code), op = OSSD_BPF_OP (in->code);
      if (second[i])
        continue;
      bool is_jmp = cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32;
      bool terminal = is_jmp && (op == OSSD_BPF_EXIT || op == OSSD_BPF_JA);
      if (is_jmp && op != OSSD_BPF_EXIT && op != OSSD_BPF_CALL)
        {
          int64_t t = (int64_t) i + 1
            + (cls == OSSD_BPF_JMP32 && op == OSSD_BPF_JA ? in->imm : in->off);
          if (t < 0 || t >= n)
            {
              rc = ossd_vreject (v, i, "jump out of range (target %lld, program has %u instructions)",
                            (long long) t, n);
              break;
            }
          if (second[t])
            {
              rc = ossd_vreject (v, i, "jump into the middle of lddw (target %lld)",
                            (long long) t);
              break;
            }
          v->prune_point[t] = 1;
        }
      uint32_t next = i + (cls == OSSD_BPF_LD ? 2 : 1);
      if (!terminal && next >= n)
        rc = ossd_vreject (v, i, "falls off the end of the program");
    }
  free (second);
  return rc;
}

/* Registers used / defined by an instruction, for liveness. */
static void
use_def (const struct ossd_insn *in, uint16_t *use, uint16_t *def)
{
  uint8_t cls = OSSD_BPF_CLASS (in->code), op = OSSD_BPF_OP (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  uint16_t d = (uint16_t) (1u << in->dst_reg), s = (uint16_t) (1u << in->src_reg);
  *use = *def = 0;
  switch (cls)
    {
    case OSSD_BPF_ALU:
    case OSSD_BPF_ALU64:
      *def = d;
      if (op == OSSD_BPF_MOV)
        *use = x ? s : 0;
      else
        *use = d | (x ? s : 0);
      break;
    case OSSD_BPF_LD:
      *def = d;
      break;
    case OSSD_BPF_LDX:
      *use = s;
      *def = d;
      break;
    case OSSD_BPF_ST:
      *use = d;
      break;
    case OSSD_BPF_STX:
      *use = d | s;
      break;
    default:                    /* JMP, JMP32 */
      if (op == OSSD_BPF_CALL)
        {
          const struct ossd_helper_proto *h = ossd_helper_lookup (in->imm);
          for (int k = 0; h && k < h->nargs; k++)
            *use |= (uint16_t) (1u << (k + 1));
          *def = 0x3f;          /* r0..r5 */
        }
      else if (op == OSSD_BPF_EXIT)
        *use = 1;
      else if (op != OSSD_BPF_JA)
        *use = d | (x ? s : 0);
    }
}

int
ossd_verifier_compute_liveness (struct verifier *v)
{
  const struct ossd_insn *insn = v->prog->insns;
  uint32_t n = v->prog->insn_count;
  bool changed = true;
  memset (v->live, 0, n * sizeof *v->live);
  while (changed)
    {
      changed = false;
      for (uint32_t j = n; j-- > 0;)
        {
          const struct ossd_insn *in = &insn[j];
          uint8_t cls = OSSD_BPF_CLASS (in->code), op = OSSD_BPF_OP (in->code);
          uint16_t use, def, out = 0;
          use_def (in, &use, &def);
          bool is_jmp = cls == OSSD_BPF_JMP || cls == OSSD_BPF_JMP32;
          if (!(is_jmp && (op == OSSD_BPF_EXIT || op == OSSD_BPF_JA)))
            {
              uint32_t next = j + (cls == OSSD_BPF_LD ? 2 : 1);
              if (next < n)
                out |= v->live[next];
            }
          if (is_jmp && op != OSSD_BPF_EXIT && op != OSSD_BPF_CALL)
            {
              int64_t t = (int64_t) j + 1
                + (cls == OSSD_BPF_JMP32 && op == OSSD_BPF_JA ? in->imm : in->off);
              if (t >= 0 && t < n)
                out |= v->live[t];
            }
          uint16_t live_in = (uint16_t) (use | (out & ~def));
          if (live_in != v->live[j])
            {
              v->live[j] = live_in;
              changed = true;
            }
        }
    }
  return 0;
}
