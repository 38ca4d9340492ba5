/* interp.c - the reference interpreter: runs one verified program on one
 * row.  Every access the verifier could not prove (OSSD_AUX_CHECK, checked
 * helper arguments) is checked against the actual region first; a failed
 * check or an exhausted per-row budget ends the row with a negative code,
 * never with an out-of-bounds access. */
#include <string.h>

#include "alu_eval.h"
#include "prog_internal.h"

void
ossd_exec_state_init (struct ossd_exec_state *st)
{
  memset (st, 0, sizeof *st);
  st->insn_budget = OSSD_ROW_INSN_BUDGET;
}

static bool
in_range (uint64_t addr, uint64_t size, uint64_t base, uint64_t len)
{
  return addr >= base && addr - base <= len && size <= len - (addr - base);
}

bool
ossd_rt_access_ok (const struct ossd_prog *prog, const struct ossd_kctx *ctx,
                   uint64_t stack_top, uint8_t region, uint8_t col,
                   uint64_t addr, uint64_t size, bool write)
{
  uint64_t c = (uint64_t) (uintptr_t) ctx;
  switch (region)
    {
    case OSSD_REGION_STACK:
      return in_range (addr, size, stack_top - OSSD_STACK_SIZE, OSSD_STACK_SIZE);
    case OSSD_REGION_OUT:
      return in_range (addr, size, c + offsetof (struct ossd_kctx, out),
                       sizeof ctx->out);
    case OSSD_REGION_CTX:
      if (write)
        return in_range (addr, size, c + offsetof (struct ossd_kctx, out),
                         sizeof ctx->out);
      return in_range (addr, size, c, sizeof *ctx);
    case OSSD_REGION_RODATA:
      return !write && prog->rodata_len
        && in_range (addr, size, (uint64_t) (uintptr_t) prog->rodata,
                     prog->rodata_len);
    case OSSD_REGION_COLDATA:
      if (write)
        return false;
      for (unsigned i = 0; i < OSSD_KCTX_MAX_COLS; i++)
        {
          if (col != OSSD_AUX_COL_ANY && i != col)
            continue;
          if (ctx->col[i].data && in_range (addr, size, ctx->col[i].data, ctx->col[i].len))
            return true;
        }
      return false;
    default:
      return false;
    }
}

static int64_t
fault (struct ossd_exec_state *st, int code, uint32_t pc, const char *why)
{
  st->fault = code;
  st->fault_insn = pc;
  st->fault_reason = why;
  return code;
}

static uint64_t
load_mem (uint64_t addr, uint8_t size, bool sx)
{
  const void *p = (const void *) (uintptr_t) addr;
  switch (size)
    {
    case OSSD_BPF_B: { uint8_t v; memcpy (&v, p, 1); return sx ? (uint64_t) (int8_t) v : v; }
    case OSSD_BPF_H: { uint16_t v; memcpy (&v, p, 2); return sx ? (uint64_t) (int16_t) v : v; }
    case OSSD_BPF_W: { uint32_t v; memcpy (&v, p, 4); return sx ? (uint64_t) (int32_t) v : v; }
    default: { uint64_t v; memcpy (&v, p, 8); return v; }
    }
}

static void
store_mem (uint64_t addr, uint8_t size, uint64_t v)
{
  void *p = (void *) (uintptr_t) addr;
  switch (size)
    {
    case OSSD_BPF_B: { uint8_t x = (uint8_t) v; memcpy (p, &x, 1); break; }
    case OSSD_BPF_H: { uint16_t x = (uint16_t) v; memcpy (p, &x, 2); break; }
    case OSSD_BPF_W: { uint32_t x = (uint32_t) v; memcpy (p, &x, 4); break; }
    default: memcpy (p, &v, 8); break;
    }
}

static const uint8_t size_bytes[4] = { 4, 2, 1, 8 };
#define SIZE_BYTES(code) size_bytes[OSSD_BPF_SIZE (code) >> 3]

int64_t
ossd_interp_run (const struct ossd_prog *prog, struct ossd_kctx *ctx,
                 struct ossd_exec_state *st)
{
  uint64_t stack[OSSD_STACK_SIZE / 8];
  uint64_t r[OSSD_NREGS] = { 0 };
  uint64_t stack_top = (uint64_t) (uintptr_t) stack + OSSD_STACK_SIZE;
  uint64_t executed = 0, budget = st->insn_budget;
  uint32_t pc = 0;

  st->row_to_host = 0;
  st->fault = 0;
  st->fault_reason = NULL;
  if (!prog->verified)
    return fault (st, OSSD_RT_NOTVERIFIED, 0, "program not verified");
  r[OSSD_R1] = (uint64_t) (uintptr_t) ctx;
  r[OSSD_R10] = stack_top;

  for (;;)
    {
      if (pc >= prog->insn_count)
        return fault (st, OSSD_RT_FAULT, pc, "pc out of range");
      if (++executed > budget)
        {
          st->insns_executed = executed - 1;
          return fault (st, OSSD_RT_BUDGET, pc, "instruction budget exhausted");
        }
      const struct ossd_insn *in = &prog->insns[pc];
      const struct ossd_insn_aux *ax = &prog->aux[pc];
      uint8_t code = in->code, cls = OSSD_BPF_CLASS (code);
      uint64_t *d = &r[in->dst_reg];

      switch (cls)
        {
        case OSSD_BPF_ALU:
        case OSSD_BPF_ALU64:
          {
            uint64_t src = OSSD_BPF_SRC (code) == OSSD_BPF_X ? r[in->src_reg]
              : (cls == OSSD_BPF_ALU64 ? (uint64_t) (int64_t) in->imm
                 : (uint64_t) (uint32_t) in->imm);
            *d = ossd_alu_eval (code, in->off, in->imm, *d, src);
            pc++;
            break;
          }
        case OSSD_BPF_LD:           /* lddw */
          if (in->src_reg == OSSD_PSEUDO_RODATA)
            *d = (uint64_t) (uintptr_t) prog->rodata + (uint32_t) in->imm;
          else
            *d = (uint64_t) (uint32_t) in->imm | ((uint64_t) (uint32_t) in[1].imm << 32);
          pc += 2;
          break;
        case OSSD_BPF_LDX:
          {
            uint64_t addr = r[in->src_reg] + (int64_t) in->off;
            if ((ax->flags & OSSD_AUX_CHECK)
                && !ossd_rt_access_ok (prog, ctx, stack_top, ax->region, ax->col,
                                       addr, SIZE_BYTES (code), false))
              return fault (st, OSSD_RT_FAULT, pc, "load out of bounds");
            if (ax->flags & OSSD_AUX_COLPTR)
              {
                ossd_rt_col_materialize (ctx, addr, st);
                if (st->row_to_host)
                  {
                    st->r0 = OSSD_ROW_TO_HOST;
                    st->insns_executed = executed;
                    return OSSD_ROW_TO_HOST;
                  }
              }
            *d = load_mem (addr, OSSD_BPF_SIZE (code),
                           OSSD_BPF_MODE (code) == OSSD_BPF_MEMSX);
            pc++;
            break;
          }
        case OSSD_BPF_ST:
        case OSSD_BPF_STX:
          {
            uint64_t addr = *d + (int64_t) in->off;
            uint64_t v = cls == OSSD_BPF_STX ? r[in->src_reg]
              : (uint64_t) (int64_t) in->imm;
            if ((ax->flags & OSSD_AUX_CHECK)
                && !ossd_rt_access_ok (prog, ctx, stack_top, ax->region, ax->col,
                                       addr, SIZE_BYTES (code), true))
              return fault (st, OSSD_RT_FAULT, pc, "store out of bounds");
            store_mem (addr, OSSD_BPF_SIZE (code), v);
            pc++;
            break;
          }
        case OSSD_BPF_JMP:
        case OSSD_BPF_JMP32:
          {
            uint8_t op = OSSD_BPF_OP (code);
            if (op == OSSD_BPF_EXIT)
              {
                st->r0 = r[OSSD_R0];
                st->insns_executed = executed;
                return (int64_t) (uint32_t) r[OSSD_R0];
              }
            if (op == OSSD_BPF_CALL)
              {
                const struct ossd_helper_proto *h = ossd_helper_lookup (in->imm);
                if (!h)
                  return fault (st, OSSD_RT_FAULT, pc, "unknown helper");
                for (int k = 0; k < 5; k++)
                  {
                    if (!(ax->arg_check & (1u << k)))
                      continue;
                    uint64_t size = (h->arg[k] == OSSD_ARG_NUMERIC_RO
                                     || h->arg[k] == OSSD_ARG_NUMERIC_W)
                      ? sizeof (struct ossd_numeric) : r[k + 2];
                    if (!ossd_rt_access_ok (prog, ctx, stack_top, ax->arg_region[k],
                                            ax->arg_col[k], r[k + 1], size,
                                            h->arg[k] == OSSD_ARG_NUMERIC_W))
                      return fault (st, OSSD_RT_FAULT, pc,
                                    "helper argument out of bounds");
                  }
                r[OSSD_R0] = h->fn (r[1], r[2], r[3], r[4], r[5], st);
                if (st->row_to_host)
                  {
                    st->r0 = OSSD_ROW_TO_HOST;
                    st->insns_executed = executed;
                    return OSSD_ROW_TO_HOST;
                  }
                pc++;
                break;
              }
            if (op == OSSD_BPF_JA)
              {
                pc += 1 + (cls == OSSD_BPF_JMP32 ? in->imm : in->off);
                break;
              }
            uint64_t src = OSSD_BPF_SRC (code) == OSSD_BPF_X ? r[in->src_reg]
              : (uint64_t) (int64_t) in->imm;
            pc += 1 + (ossd_jmp_eval (code, *d, src) ? in->off : 0);
            break;
          }
        default:
          return fault (st, OSSD_RT_FAULT, pc, "invalid instruction");
        }
    }
}
