/* jit_lift.c - eBPF -> LLVM IR: the function frame (registers as i64
 * allocas, the 512-byte stack, the executed-instruction count), one basic
 * block per counting block (jit_cfg.c), ALU and jump semantics bit for bit
 * as alu_eval.c defines them, exit.  Memory accesses, lddw and helper
 * calls are in jit_lift_mem.c.
 *
 * Generated function:  i64 ossd_kernel_entry (i8* ctx, i8* st)
 *   entry: r1 = ctx, r10 = stack + 512, other registers 0, count = 0
 *   each counting block: count += len; programs with a back-edge compare
 *   count with st->insn_budget and call ossd_jit_rt_budget_fault when it
 *   is exceeded. */
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "prog_internal.h"

LLVMValueRef
ossd_jit_const64 (struct ossd_jit_lifter *L, uint64_t v)
{
  return LLVMConstInt (L->i64, v, 0);
}

LLVMValueRef
ossd_jit_st_field (struct ossd_jit_lifter *L, size_t off, LLVMTypeRef ty)
{
  LLVMValueRef idx = ossd_jit_const64 (L, off);
  LLVMValueRef p = LLVMBuildInBoundsGEP2 (L->b, L->i8, L->st, &idx, 1, "");
  return LLVMBuildBitCast (L->b, p, LLVMPointerType (ty, 0), "");
}

static LLVMValueRef
reg_get (struct ossd_jit_lifter *L, unsigned r)
{
  return LLVMBuildLoad2 (L->b, L->i64, L->regs[r], "");
}

static void
reg_set (struct ossd_jit_lifter *L, unsigned r, LLVMValueRef v)
{
  LLVMBuildStore (L->b, v, L->regs[r]);
}

static LLVMValueRef
count_get (struct ossd_jit_lifter *L)
{
  return LLVMBuildLoad2 (L->b, L->i64, L->count, "");
}

void
ossd_jit_emit_return (struct ossd_jit_lifter *L, LLVMValueRef r0, LLVMValueRef verdict)
{
  LLVMBuildStore (L->b, r0, ossd_jit_st_field (L, offsetof (struct ossd_exec_state, r0), L->i64));
  LLVMBuildStore (L->b, count_get (L),
                  ossd_jit_st_field (L, offsetof (struct ossd_exec_state, insns_executed), L->i64));
  LLVMBuildRet (L->b, verdict);
}

/* ---- ALU ---- */

static LLVMValueRef
bswap (struct ossd_jit_lifter *L, LLVMValueRef v64, int bits)
{
  LLVMTypeRef t = bits == 16 ? L->i16 : bits == 32 ? L->i32 : L->i64;
  unsigned id = LLVMLookupIntrinsicID ("llvm.bswap", 10);
  LLVMValueRef f = LLVMGetIntrinsicDeclaration (L->mod, id, &t, 1);
  LLVMValueRef x = bits == 64 ? v64 : LLVMBuildTrunc (L->b, v64, t, "");
  LLVMValueRef r = LLVMBuildCall2 (L->b, LLVMFunctionType (t, &t, 1, 0), f, &x, 1, "");
  return bits == 64 ? r : LLVMBuildZExt (L->b, r, L->i64, "");
}

/* x/0 = 0, x%0 = x; signed: MIN/-1 = MIN (= -x), MIN%-1 = 0.  The divisor
 * fed to the LLVM instruction is never 0 or (signed) -1. */
static LLVMValueRef
divmod (struct ossd_jit_lifter *L, bool is_mod, bool is_signed, LLVMTypeRef t,
        LLVMValueRef d, LLVMValueRef s)
{
  LLVMValueRef zero = LLVMConstInt (t, 0, 0), one = LLVMConstInt (t, 1, 0);
  LLVMValueRef mone = LLVMConstAllOnes (t);
  LLVMValueRef is0 = LLVMBuildICmp (L->b, LLVMIntEQ, s, zero, "");
  LLVMValueRef bad = is0, ism1 = NULL;
  if (is_signed)
    {
      ism1 = LLVMBuildICmp (L->b, LLVMIntEQ, s, mone, "");
      bad = LLVMBuildOr (L->b, is0, ism1, "");
    }
  LLVMValueRef safe = LLVMBuildSelect (L->b, bad, one, s, "");
  LLVMValueRef q;
  if (is_mod)
    q = is_signed ? LLVMBuildSRem (L->b, d, safe, "") : LLVMBuildURem (L->b, d, safe, "");
  else
    q = is_signed ? LLVMBuildSDiv (L->b, d, safe, "") : LLVMBuildUDiv (L->b, d, safe, "");
  if (is_signed)
    q = LLVMBuildSelect (L->b, ism1, is_mod ? zero : LLVMBuildSub (L->b, zero, d, ""), q, "");
  return LLVMBuildSelect (L->b, is0, is_mod ? d : zero, q, "");
}

static LLVMValueRef
alu_op (struct ossd_jit_lifter *L, uint8_t op, int16_t off, LLVMTypeRef t, unsigned w,
        LLVMValueRef d, LLVMValueRef s)
{
  LLVMValueRef mask = LLVMConstInt (t, w - 1, 0);
  switch (op)
    {
    case OSSD_BPF_ADD: return LLVMBuildAdd (L->b, d, s, "");
    case OSSD_BPF_SUB: return LLVMBuildSub (L->b, d, s, "");
    case OSSD_BPF_MUL: return LLVMBuildMul (L->b, d, s, "");
    case OSSD_BPF_DIV: return divmod (L, false, off == 1, t, d, s);
    case OSSD_BPF_MOD: return divmod (L, true, off == 1, t, d, s);
    case OSSD_BPF_OR: return LLVMBuildOr (L->b, d, s, "");
    case OSSD_BPF_AND: return LLVMBuildAnd (L->b, d, s, "");
    case OSSD_BPF_XOR: return LLVMBuildXor (L->b, d, s, "");
    case OSSD_BPF_LSH: return LLVMBuildShl (L->b, d, LLVMBuildAnd (L->b, s, mask, ""), "");
    case OSSD_BPF_RSH: return LLVMBuildLShr (L->b, d, LLVMBuildAnd (L->b, s, mask, ""), "");
    case OSSD_BPF_ARSH: return LLVMBuildAShr (L->b, d, LLVMBuildAnd (L->b, s, mask, ""), "");
    case OSSD_BPF_NEG: return LLVMBuildSub (L->b, LLVMConstInt (t, 0, 0), d, "");
    case OSSD_BPF_MOV:
      if (off > 0 && (unsigned) off < w)
        {
          LLVMTypeRef n = LLVMIntTypeInContext (L->cx, (unsigned) off);
          return LLVMBuildSExt (L->b, LLVMBuildTrunc (L->b, s, n, ""), t, "");
        }
      return s;
    default:
      return LLVMConstInt (t, 0, 0);
    }
}

static int
lift_alu (struct ossd_jit_lifter *L, uint32_t pc, char *err, size_t errlen)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  uint8_t code = in->code, op = OSSD_BPF_OP (code), cls = OSSD_BPF_CLASS (code);
  bool x = OSSD_BPF_SRC (code) == OSSD_BPF_X;
  LLVMValueRef d = reg_get (L, in->dst_reg), r;

  if (op == OSSD_BPF_END)
    {
      if (cls == OSSD_BPF_ALU64 || x)
        r = bswap (L, d, in->imm);
      else if (in->imm == 64)
        r = d;
      else if (in->imm == 16 || in->imm == 32)
        r = LLVMBuildAnd (L->b, d, ossd_jit_const64 (L, (1ull << in->imm) - 1), "");
      else
        return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: byte swap width %d", pc, in->imm);
      reg_set (L, in->dst_reg, r);
      return 0;
    }
  if (op > OSSD_BPF_END)
    return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: invalid ALU op 0x%x", pc, op);

  LLVMValueRef s;
  if (x)
    s = reg_get (L, in->src_reg);
  else if (cls == OSSD_BPF_ALU64)
    s = ossd_jit_const64 (L, (uint64_t) (int64_t) in->imm);
  else
    s = ossd_jit_const64 (L, (uint32_t) in->imm);
  if (cls == OSSD_BPF_ALU64)
    r = alu_op (L, op, in->off, L->i64, 64, d, s);
  else
    {
      LLVMValueRef d32 = LLVMBuildTrunc (L->b, d, L->i32, "");
      LLVMValueRef s32 = LLVMBuildTrunc (L->b, s, L->i32, "");
      r = LLVMBuildZExt (L->b, alu_op (L, op, in->off, L->i32, 32, d32, s32), L->i64, "");
    }
  reg_set (L, in->dst_reg, r);
  return 0;
}

/* ---- jumps ---- */

static LLVMValueRef
jmp_cond (struct ossd_jit_lifter *L, const struct ossd_insn *in)
{
  uint8_t code = in->code;
  bool is32 = OSSD_BPF_CLASS (code) == OSSD_BPF_JMP32;
  LLVMValueRef d = reg_get (L, in->dst_reg);
  LLVMValueRef s = OSSD_BPF_SRC (code) == OSSD_BPF_X ? reg_get (L, in->src_reg)
    : ossd_jit_const64 (L, (uint64_t) (int64_t) in->imm);
  LLVMTypeRef t = L->i64;
  if (is32)
    {
      t = L->i32;
      d = LLVMBuildTrunc (L->b, d, t, "");
      s = LLVMBuildTrunc (L->b, s, t, "");
    }
  LLVMIntPredicate pred;
  switch (OSSD_BPF_OP (code))
    {
    case OSSD_BPF_JEQ: pred = LLVMIntEQ; break;
    case OSSD_BPF_JNE: pred = LLVMIntNE; break;
    case OSSD_BPF_JGT: pred = LLVMIntUGT; break;
    case OSSD_BPF_JGE: pred = LLVMIntUGE; break;
    case OSSD_BPF_JLT: pred = LLVMIntULT; break;
    case OSSD_BPF_JLE: pred = LLVMIntULE; break;
    case OSSD_BPF_JSGT: pred = LLVMIntSGT; break;
    case OSSD_BPF_JSGE: pred = LLVMIntSGE; break;
    case OSSD_BPF_JSLT: pred = LLVMIntSLT; break;
    case OSSD_BPF_JSLE: pred = LLVMIntSLE; break;
    case OSSD_BPF_JSET:
      return LLVMBuildICmp (L->b, LLVMIntNE, LLVMBuildAnd (L->b, d, s, ""),
                            LLVMConstInt (t, 0, 0), "");
    default:
      return LLVMConstInt (L->i1, 0, 0);
    }
  return LLVMBuildICmp (L->b, pred, d, s, "");
}

/* Block of a jump target or fall-through successor.  A successor the
 * verifier proved unreachable gets a block that faults instead of code
 * (it is never executed; no unverified instruction is ever lifted). */
static LLVMBasicBlockRef
target_block (struct ossd_jit_lifter *L, uint32_t t)
{
  if (L->bb[t])
    return L->bb[t];
  LLVMBasicBlockRef cur = LLVMGetInsertBlock (L->b);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext (L->cx, L->fn, "unreachable");
  LLVMPositionBuilderAtEnd (L->b, bb);
  ossd_jit_emit_fault (L, t, ossd_jit_reason_unreachable);
  LLVMPositionBuilderAtEnd (L->b, cur);
  L->bb[t] = bb;
  return bb;
}

/* Returns 1 when the instruction terminated the LLVM block. */
static int
lift_jmp (struct ossd_jit_lifter *L, uint32_t pc, char *err, size_t errlen)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  uint8_t op = OSSD_BPF_OP (in->code);
  if (op == OSSD_BPF_EXIT)
    {
      LLVMValueRef r0 = reg_get (L, OSSD_R0);
      ossd_jit_emit_return (L, r0, LLVMBuildZExt (L->b, LLVMBuildTrunc (L->b, r0, L->i32, ""),
                                                  L->i64, ""));
      return 1;
    }
  if (op == OSSD_BPF_CALL)
    {
      if (in->src_reg != 0 || !ossd_helper_lookup (in->imm))
        return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: unsupported call", pc);
      ossd_jit_lift_call (L, pc);
      return 0;
    }
  bool gotol = OSSD_BPF_CLASS (in->code) == OSSD_BPF_JMP32 && op == OSSD_BPF_JA;
  int64_t t = (int64_t) pc + 1 + (gotol ? in->imm : in->off);
  if (t < 0 || t >= L->cfg->n)
    return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: jump out of range", pc);
  if (op == OSSD_BPF_JA)
    {
      LLVMBuildBr (L->b, target_block (L, (uint32_t) t));
      return 1;
    }
  if (pc + 1 >= L->cfg->n)
    return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: conditional jump at the end", pc);
  if (op > OSSD_BPF_JSLE)
    return ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: invalid jump op 0x%x", pc, op);
  LLVMBasicBlockRef tb = target_block (L, (uint32_t) t);
  LLVMBasicBlockRef fb = target_block (L, pc + 1);
  LLVMBuildCondBr (L->b, jmp_cond (L, in), tb, fb);
  return 1;
}

/* ---- blocks ---- */

static void
block_prologue (struct ossd_jit_lifter *L, uint32_t pc)
{
  LLVMValueRef before = count_get (L);
  LLVMValueRef after = LLVMBuildAdd (L->b, before,
                                     ossd_jit_const64 (L, L->cfg->block_len[pc]), "");
  LLVMBuildStore (L->b, after, L->count);
  if (!L->cfg->cyclic)
    return;
  LLVMBasicBlockRef over = LLVMAppendBasicBlockInContext (L->cx, L->fn, "budget");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntUGT, after, L->budget, ""), over, go);
  LLVMPositionBuilderAtEnd (L->b, over);
  LLVMValueRef fptr = LLVMConstIntToPtr (ossd_jit_const64 (L, (uintptr_t) ossd_jit_rt_budget_fault),
                                         LLVMPointerType (L->budget_fault_ty, 0));
  LLVMValueRef args[5] = {
    L->st,
    LLVMConstIntToPtr (ossd_jit_const64 (L, (uintptr_t) L->prog->insns), L->i8p),
    ossd_jit_const64 (L, pc), before, L->budget,
  };
  LLVMValueRef rc = LLVMBuildCall2 (L->b, L->budget_fault_ty, fptr, args, 5, "");
  LLVMBuildRet (L->b, rc);
  LLVMPositionBuilderAtEnd (L->b, go);
}

static void
build_frame (struct ossd_jit_lifter *L)
{
  LLVMTypeRef params[2] = { L->i8p, L->i8p };
  LLVMTypeRef fty = LLVMFunctionType (L->i64, params, 2, 0);
  L->fn = LLVMAddFunction (L->mod, OSSD_JIT_FN_NAME, fty);
  unsigned nounwind = LLVMGetEnumAttributeKindForName ("nounwind", 8);
  LLVMAddAttributeAtIndex (L->fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute (L->cx, nounwind, 0));
  L->ctx = LLVMGetParam (L->fn, 0);
  L->st = LLVMGetParam (L->fn, 1);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext (L->cx, L->fn, "entry");
  LLVMPositionBuilderAtEnd (L->b, entry);

  LLVMTypeRef stack_ty = LLVMArrayType (L->i8, OSSD_STACK_SIZE);
  L->stack = LLVMBuildAlloca (L->b, stack_ty, "stack");
  LLVMSetAlignment (L->stack, 16);
  L->count = LLVMBuildAlloca (L->b, L->i64, "count");
  for (int r = 0; r < OSSD_NREGS; r++)
    L->regs[r] = LLVMBuildAlloca (L->b, L->i64, "");
  L->ctx_int = LLVMBuildPtrToInt (L->b, L->ctx, L->i64, "ctx");
  LLVMValueRef idx[2] = { ossd_jit_const64 (L, 0), ossd_jit_const64 (L, OSSD_STACK_SIZE) };
  LLVMValueRef top = LLVMBuildGEP2 (L->b, stack_ty, L->stack, idx, 2, "");
  L->stack_top = LLVMBuildPtrToInt (L->b, top, L->i64, "fp");
  for (int r = 0; r < OSSD_NREGS; r++)
    reg_set (L, r, r == OSSD_R1 ? L->ctx_int : r == OSSD_R10 ? L->stack_top
             : ossd_jit_const64 (L, 0));
  LLVMBuildStore (L->b, ossd_jit_const64 (L, 0), L->count);
  if (L->cfg->cyclic)
    L->budget = LLVMBuildLoad2 (L->b, L->i64,
                                ossd_jit_st_field (L, offsetof (struct ossd_exec_state, insn_budget),
                                                   L->i64), "budget");
}

static void
build_types (struct ossd_jit_lifter *L)
{
  L->i1 = LLVMInt1TypeInContext (L->cx);
  L->i8 = LLVMInt8TypeInContext (L->cx);
  L->i16 = LLVMInt16TypeInContext (L->cx);
  L->i32 = LLVMInt32TypeInContext (L->cx);
  L->i64 = LLVMInt64TypeInContext (L->cx);
  L->i8p = LLVMPointerType (L->i8, 0);
  LLVMTypeRef h[6] = { L->i64, L->i64, L->i64, L->i64, L->i64, L->i8p };
  L->helper_ty = LLVMFunctionType (L->i64, h, 6, 0);
  LLVMTypeRef a[8] = { L->i8p, L->i8p, L->i64, L->i64, L->i64, L->i64, L->i64, L->i64 };
  L->access_ok_ty = LLVMFunctionType (L->i64, a, 8, 0);
  LLVMTypeRef f[5] = { L->i8p, L->i8p, L->i64, L->i64, L->i64 };
  L->budget_fault_ty = LLVMFunctionType (L->i64, f, 5, 0);
}

int
ossd_jit_lift (const struct ossd_prog *prog, const struct ossd_jit_cfg *cfg,
               LLVMContextRef cx, LLVMModuleRef mod, uint32_t *checks,
               char *err, size_t errlen)
{
  struct ossd_jit_lifter L = { .cx = cx, .mod = mod, .prog = prog, .cfg = cfg };
  int rc = 0;
  uint32_t n = prog->insn_count;

  L.bb = calloc (n + 1, sizeof *L.bb);
  if (!L.bb)
    return ossd_rt_err (err, errlen, -ENOMEM, "jit: out of memory");
  L.b = LLVMCreateBuilderInContext (cx);
  build_types (&L);
  build_frame (&L);
  LLVMBasicBlockRef entry = LLVMGetInsertBlock (L.b);
  for (uint32_t pc = 0; pc < n; pc++)
    if (cfg->leader[pc] && (prog->aux[pc].flags & OSSD_AUX_SEEN))
      L.bb[pc] = LLVMAppendBasicBlockInContext (cx, L.fn, "");
  LLVMPositionBuilderAtEnd (L.b, entry);
  LLVMBuildBr (L.b, L.bb[0]);

  bool open = false;                    /* current LLVM block lacks a terminator */
  for (uint32_t pc = 0; pc < n && rc == 0; pc += ossd_jit_insn_slots (&prog->insns[pc]))
    {
      if (!(prog->aux[pc].flags & OSSD_AUX_SEEN))
        {
          open = false;
          continue;
        }
      if (cfg->leader[pc])
        {
          if (open)
            LLVMBuildBr (L.b, L.bb[pc]);
          LLVMPositionBuilderAtEnd (L.b, L.bb[pc]);
          block_prologue (&L, pc);
          open = true;
        }
      if (!open)
        {
          rc = ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: no predecessor block", pc);
          break;
        }
      const struct ossd_insn *in = &prog->insns[pc];
      switch (OSSD_BPF_CLASS (in->code))
        {
        case OSSD_BPF_ALU:
        case OSSD_BPF_ALU64:
          rc = lift_alu (&L, pc, err, errlen);
          break;
        case OSSD_BPF_LD:
          if (in->code != (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM) || pc + 1 >= n)
            rc = ossd_rt_err (err, errlen, -EINVAL, "jit: insn %u: unsupported load", pc);
          else
            ossd_jit_lift_lddw (&L, pc);
          break;
        case OSSD_BPF_LDX:
          ossd_jit_lift_ldx (&L, pc);
          break;
        case OSSD_BPF_ST:
        case OSSD_BPF_STX:
          ossd_jit_lift_store (&L, pc);
          break;
        default:                        /* JMP, JMP32 */
          rc = lift_jmp (&L, pc, err, errlen);
          if (rc == 1)
            {
              open = false;
              rc = 0;
            }
          break;
        }
    }
  if (rc == 0 && open)
    rc = ossd_rt_err (err, errlen, -EINVAL, "jit: program falls off its end");
  *checks = L.checks;
  LLVMDisposeBuilder (L.b);
  free (L.bb);
  return rc;
}
