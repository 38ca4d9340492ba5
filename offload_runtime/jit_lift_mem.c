/* jit_lift_mem.c - the lifter's memory side: LDX/ST/STX, lddw, helper
 * calls (text/bpchar equality and same-scale numeric compares inline),
 * and the run-time bounds checks the verifier asked for.
 *
 * Checks (never dropped; one per OSSD_AUX_CHECK access and per checked
 * helper argument), same predicate as ossd_rt_access_ok:
 *   column data of a known column: inline
 *     data != 0 && addr >= data && addr - data <= len && size <= len - (addr - data)
 *   stack: inline, the same range test against [r10 - 512, r10)
 *   ctx, out, rodata: inline against their constant (rodata) or
 *     ctx-relative bounds
 *   anything else (a pointer into several columns): a call to
 *     ossd_rt_access_ok (through ossd_jit_rt_access_ok, which has an
 *     all-i64 signature) with the kernel's private program copy.
 * A failed check stores fault/fault_insn/fault_reason into the exec state
 * and returns OSSD_RT_FAULT, as the interpreter does. */
#include <stddef.h>

#include "jit_internal.h"

static const uint8_t size_bytes[4] = { 4, 2, 1, 8 };
#define SIZE_BYTES(code) size_bytes[OSSD_BPF_SIZE (code) >> 3]

static LLVMTypeRef
size_type (struct ossd_jit_lifter *L, uint8_t code)
{
  switch (OSSD_BPF_SIZE (code))
    {
    case OSSD_BPF_B: return L->i8;
    case OSSD_BPF_H: return L->i16;
    case OSSD_BPF_W: return L->i32;
    default: return L->i64;
    }
}

static LLVMValueRef
const_ptr (struct ossd_jit_lifter *L, const void *p, LLVMTypeRef ty)
{
  return LLVMConstIntToPtr (ossd_jit_const64 (L, (uint64_t) (uintptr_t) p), ty);
}

static LLVMValueRef
reg_get (struct ossd_jit_lifter *L, unsigned r)
{
  return LLVMBuildLoad2 (L->b, L->i64, L->regs[r], "");
}

void
ossd_jit_emit_fault (struct ossd_jit_lifter *L, uint32_t pc, const char *reason)
{
  LLVMBuildStore (L->b, LLVMConstInt (L->i32, (uint64_t) (int64_t) OSSD_RT_FAULT, 1),
                  ossd_jit_st_field (L, offsetof (struct ossd_exec_state, fault), L->i32));
  LLVMBuildStore (L->b, LLVMConstInt (L->i32, pc, 0),
                  ossd_jit_st_field (L, offsetof (struct ossd_exec_state, fault_insn), L->i32));
  LLVMBuildStore (L->b, const_ptr (L, reason, L->i8p),
                  ossd_jit_st_field (L, offsetof (struct ossd_exec_state, fault_reason), L->i8p));
  LLVMBuildRet (L->b, ossd_jit_const64 (L, (uint64_t) (int64_t) OSSD_RT_FAULT));
}

/* addr >= base && addr - base <= len && size <= len - (addr - base) */
static LLVMValueRef
in_range (struct ossd_jit_lifter *L, LLVMValueRef addr, LLVMValueRef size,
          LLVMValueRef base, LLVMValueRef len)
{
  LLVMValueRef d = LLVMBuildSub (L->b, addr, base, "");
  LLVMValueRef a = LLVMBuildICmp (L->b, LLVMIntUGE, addr, base, "");
  LLVMValueRef b = LLVMBuildICmp (L->b, LLVMIntULE, d, len, "");
  LLVMValueRef c = LLVMBuildICmp (L->b, LLVMIntULE, size, LLVMBuildSub (L->b, len, d, ""), "");
  return LLVMBuildAnd (L->b, a, LLVMBuildAnd (L->b, b, c, ""), "");
}

static LLVMValueRef
ctx_field (struct ossd_jit_lifter *L, size_t off, LLVMTypeRef ty)
{
  LLVMValueRef idx = ossd_jit_const64 (L, off);
  LLVMValueRef p = LLVMBuildInBoundsGEP2 (L->b, L->i8, L->ctx, &idx, 1, "");
  return LLVMBuildLoad2 (L->b, ty, LLVMBuildBitCast (L->b, p, LLVMPointerType (ty, 0), ""), "");
}

/* Emits the check and continues in a new block when it passes. */
static void
emit_check (struct ossd_jit_lifter *L, uint32_t pc, uint8_t region, uint8_t col,
            LLVMValueRef addr, LLVMValueRef size, bool write, const char *reason)
{
  LLVMValueRef ok;
  if (region == OSSD_REGION_COLDATA && col < OSSD_KCTX_MAX_COLS && !write)
    {
      LLVMValueRef data = ctx_field (L, offsetof (struct ossd_kctx, col[col].data), L->i64);
      LLVMValueRef len = LLVMBuildZExt (L->b, ctx_field (L, offsetof (struct ossd_kctx, col[col].len),
                                                         L->i32), L->i64, "");
      LLVMValueRef nz = LLVMBuildICmp (L->b, LLVMIntNE, data, ossd_jit_const64 (L, 0), "");
      ok = LLVMBuildAnd (L->b, nz, in_range (L, addr, size, data, len), "");
    }
  else if (region == OSSD_REGION_STACK)
    ok = in_range (L, addr, size,
                   LLVMBuildSub (L->b, L->stack_top, ossd_jit_const64 (L, OSSD_STACK_SIZE), ""),
                   ossd_jit_const64 (L, OSSD_STACK_SIZE));
  else if (region == OSSD_REGION_RODATA && !write)
    /* the kernel's private program copy owns the rodata for as long as
       the code lives: its bounds are constants (a constant address, the
       usual case, folds the check away) */
    ok = L->prog->rodata_len == 0 ? LLVMConstInt (L->i1, 0, 0)
      : in_range (L, addr, size, ossd_jit_const64 (L, (uint64_t) (uintptr_t) L->prog->rodata),
                  ossd_jit_const64 (L, L->prog->rodata_len));
  else if (region == OSSD_REGION_OUT || (region == OSSD_REGION_CTX && write))
    ok = in_range (L, addr, size,
                   LLVMBuildAdd (L->b, L->ctx_int,
                                 ossd_jit_const64 (L, offsetof (struct ossd_kctx, out)), ""),
                   ossd_jit_const64 (L, sizeof ((struct ossd_kctx *) 0)->out));
  else if (region == OSSD_REGION_CTX)
    ok = in_range (L, addr, size, L->ctx_int, ossd_jit_const64 (L, sizeof (struct ossd_kctx)));
  else
    {
      LLVMValueRef args[8] = {
        const_ptr (L, L->prog, L->i8p), L->ctx, L->stack_top,
        ossd_jit_const64 (L, region), ossd_jit_const64 (L, col), addr, size,
        ossd_jit_const64 (L, write),
      };
      LLVMValueRef f = const_ptr (L, (const void *) ossd_jit_rt_access_ok,
                                  LLVMPointerType (L->access_ok_ty, 0));
      ok = LLVMBuildICmp (L->b, LLVMIntNE, LLVMBuildCall2 (L->b, L->access_ok_ty, f, args, 8, ""),
                          ossd_jit_const64 (L, 0), "");
    }
  LLVMBasicBlockRef pass = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext (L->cx, L->fn, "oob");
  LLVMBuildCondBr (L->b, ok, pass, fail);
  LLVMPositionBuilderAtEnd (L->b, fail);
  ossd_jit_emit_fault (L, pc, reason);
  LLVMPositionBuilderAtEnd (L->b, pass);
  L->checks++;
}

/* After a helper (or a column conversion): leave with OSSD_ROW_TO_HOST if
 * it gave up on the row. */
static void
emit_row_to_host_exit (struct ossd_jit_lifter *L)
{
  LLVMValueRef th = LLVMBuildLoad2 (L->b, L->i32,
                                    ossd_jit_st_field (L, offsetof (struct ossd_exec_state, row_to_host),
                                                       L->i32), "");
  LLVMBasicBlockRef host = LLVMAppendBasicBlockInContext (L->cx, L->fn, "to_host");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntNE, th, LLVMConstInt (L->i32, 0, 0), ""),
                   host, go);
  LLVMPositionBuilderAtEnd (L->b, host);
  ossd_jit_emit_return (L, ossd_jit_const64 (L, OSSD_ROW_TO_HOST),
                        ossd_jit_const64 (L, OSSD_ROW_TO_HOST));
  LLVMPositionBuilderAtEnd (L->b, go);
}

/* Pointer for an access at reg + off: frame-pointer-relative accesses in
 * the frame address the stack alloca directly (lets LLVM promote spills). */
static LLVMValueRef
access_ptr (struct ossd_jit_lifter *L, unsigned reg, int16_t off, unsigned bytes,
            LLVMValueRef addr, LLVMTypeRef ty)
{
  int pos = OSSD_STACK_SIZE + off;
  if (reg == OSSD_R10 && pos >= 0 && pos + (int) bytes <= OSSD_STACK_SIZE)
    {
      LLVMValueRef idx[2] = { ossd_jit_const64 (L, 0), ossd_jit_const64 (L, (uint64_t) pos) };
      LLVMValueRef p = LLVMBuildInBoundsGEP2 (L->b, LLVMArrayType (L->i8, OSSD_STACK_SIZE),
                                              L->stack, idx, 2, "");
      return LLVMBuildBitCast (L->b, p, LLVMPointerType (ty, 0), "");
    }
  return LLVMBuildIntToPtr (L->b, addr, LLVMPointerType (ty, 0), "");
}

/* Loads a value of type ty at addr + off (addr an i64). */
static LLVMValueRef
load_at (struct ossd_jit_lifter *L, LLVMValueRef addr, uint64_t off, LLVMTypeRef ty)
{
  LLVMValueRef a = LLVMBuildAdd (L->b, addr, ossd_jit_const64 (L, off), "");
  LLVMValueRef v = LLVMBuildLoad2 (L->b, ty, LLVMBuildIntToPtr (L->b, a, LLVMPointerType (ty, 0), ""), "");
  LLVMSetAlignment (v, 1);
  return v;
}

/* A load of a column's data pointer: convert a lazily bound column first
 * and leave with OSSD_ROW_TO_HOST if it cannot be converted, as after a
 * helper.  Inline test (the column is a numeric whose value still has
 * lazy flags), so that a converted column costs no call: addr is a
 * verified ctx->col[i].data field, so its column's type byte is readable,
 * and a numeric column's data points at a whole struct ossd_numeric. */
static void
emit_materialize (struct ossd_jit_lifter *L, LLVMValueRef addr)
{
  LLVMBasicBlockRef is_num = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef has_data = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef convert = LLVMAppendBasicBlockInContext (L->cx, L->fn, "lazy");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");

  LLVMValueRef type = load_at (L, addr, offsetof (struct ossd_col, type)
                               - offsetof (struct ossd_col, data), L->i8);
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntEQ, type,
                                        LLVMConstInt (L->i8, OSSD_T_NUMERIC, 0), ""),
                   is_num, done);
  LLVMPositionBuilderAtEnd (L->b, is_num);
  LLVMValueRef data = load_at (L, addr, 0, L->i64);
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntNE, data, ossd_jit_const64 (L, 0), ""),
                   has_data, done);
  LLVMPositionBuilderAtEnd (L->b, has_data);
  LLVMValueRef flags = load_at (L, data, offsetof (struct ossd_numeric, flags), L->i32);
  LLVMValueRef lazy = LLVMBuildAnd (L->b, flags, LLVMConstInt (L->i32, OSSD_NUMERIC_LAZY_FLAGS, 0), "");
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntNE, lazy, LLVMConstInt (L->i32, 0, 0), ""),
                   convert, done);
  LLVMPositionBuilderAtEnd (L->b, convert);
  LLVMValueRef args[6] = {
    L->ctx_int, addr, ossd_jit_const64 (L, 0),
    ossd_jit_const64 (L, 0), ossd_jit_const64 (L, 0), L->st,
  };
  LLVMValueRef f = const_ptr (L, (const void *) ossd_jit_rt_materialize,
                              LLVMPointerType (L->helper_ty, 0));
  LLVMBuildCall2 (L->b, L->helper_ty, f, args, 6, "");
  emit_row_to_host_exit (L);
  LLVMBuildBr (L->b, done);
  LLVMPositionBuilderAtEnd (L->b, done);
}

void
ossd_jit_lift_ldx (struct ossd_jit_lifter *L, uint32_t pc)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  const struct ossd_insn_aux *ax = &L->prog->aux[pc];
  LLVMTypeRef ty = size_type (L, in->code);
  unsigned bytes = SIZE_BYTES (in->code);
  LLVMValueRef addr = LLVMBuildAdd (L->b, reg_get (L, in->src_reg),
                                    ossd_jit_const64 (L, (uint64_t) (int64_t) in->off), "");
  if (ax->flags & OSSD_AUX_CHECK)
    emit_check (L, pc, ax->region, ax->col, addr, ossd_jit_const64 (L, bytes), false,
                ossd_jit_reason_load);
  if (ax->flags & OSSD_AUX_COLPTR)
    emit_materialize (L, addr);
  LLVMValueRef v = LLVMBuildLoad2 (L->b, ty, access_ptr (L, in->src_reg, in->off, bytes, addr, ty), "");
  LLVMSetAlignment (v, 1);
  if (ty != L->i64)
    v = OSSD_BPF_MODE (in->code) == OSSD_BPF_MEMSX ? LLVMBuildSExt (L->b, v, L->i64, "")
      : LLVMBuildZExt (L->b, v, L->i64, "");
  LLVMBuildStore (L->b, v, L->regs[in->dst_reg]);
}

void
ossd_jit_lift_store (struct ossd_jit_lifter *L, uint32_t pc)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  const struct ossd_insn_aux *ax = &L->prog->aux[pc];
  LLVMTypeRef ty = size_type (L, in->code);
  unsigned bytes = SIZE_BYTES (in->code);
  LLVMValueRef addr = LLVMBuildAdd (L->b, reg_get (L, in->dst_reg),
                                    ossd_jit_const64 (L, (uint64_t) (int64_t) in->off), "");
  LLVMValueRef v = OSSD_BPF_CLASS (in->code) == OSSD_BPF_STX ? reg_get (L, in->src_reg)
    : ossd_jit_const64 (L, (uint64_t) (int64_t) in->imm);
  if (ax->flags & OSSD_AUX_CHECK)
    emit_check (L, pc, ax->region, ax->col, addr, ossd_jit_const64 (L, bytes), true,
                ossd_jit_reason_store);
  if (ty != L->i64)
    v = LLVMBuildTrunc (L->b, v, ty, "");
  LLVMValueRef st = LLVMBuildStore (L->b, v, access_ptr (L, in->dst_reg, in->off, bytes, addr, ty));
  LLVMSetAlignment (st, 1);
}

void
ossd_jit_lift_lddw (struct ossd_jit_lifter *L, uint32_t pc)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  uint64_t v;
  if (in->src_reg == OSSD_PSEUDO_RODATA)
    v = (uint64_t) (uintptr_t) L->prog->rodata + (uint32_t) in->imm;
  else
    v = (uint64_t) (uint32_t) in->imm | ((uint64_t) (uint32_t) in[1].imm << 32);
  LLVMBuildStore (L->b, ossd_jit_const64 (L, v), L->regs[in->dst_reg]);
}

/* ossd_numeric_cmp inline when both numbers have the same valid scale
 * (a column against a constant of its type): a signed 128-bit compare,
 * exactly what the helper computes then.  Other cases fall through to
 * the helper call, which the caller emits where this leaves the builder;
 * returns the block both paths join in.  The arguments were checked
 * (24 readable bytes each) before. */
static LLVMBasicBlockRef
emit_numeric_cmp_same_scale (struct ossd_jit_lifter *L)
{
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext (L->cx, L->fn, "numcmp");
  LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMTypeRef i128 = LLVMInt128TypeInContext (L->cx);
  LLVMValueRef a = reg_get (L, 1), b = reg_get (L, 2);
  LLVMValueRef sa = load_at (L, a, offsetof (struct ossd_numeric, scale), L->i32);
  LLVMValueRef sb = load_at (L, b, offsetof (struct ossd_numeric, scale), L->i32);
  LLVMValueRef same = LLVMBuildICmp (L->b, LLVMIntEQ, sa, sb, "");
  LLVMValueRef valid = LLVMBuildICmp (L->b, LLVMIntULE, sa,
                                      LLVMConstInt (L->i32, OSSD_NUMERIC_MAX_SCALE, 0), "");
  LLVMBuildCondBr (L->b, LLVMBuildAnd (L->b, same, valid, ""), fast, slow);

  LLVMPositionBuilderAtEnd (L->b, fast);
  LLVMValueRef v[2];
  LLVMValueRef p[2] = { a, b };
  for (int k = 0; k < 2; k++)
    {
      LLVMValueRef lo = LLVMBuildZExt (L->b, load_at (L, p[k], offsetof (struct ossd_numeric, lo), L->i64),
                                       i128, "");
      LLVMValueRef hi = LLVMBuildZExt (L->b, load_at (L, p[k], offsetof (struct ossd_numeric, hi), L->i64),
                                       i128, "");
      v[k] = LLVMBuildOr (L->b, LLVMBuildShl (L->b, hi, LLVMConstInt (i128, 64, 0), ""), lo, "");
    }
  LLVMValueRef lt = LLVMBuildICmp (L->b, LLVMIntSLT, v[0], v[1], "");
  LLVMValueRef gt = LLVMBuildICmp (L->b, LLVMIntSGT, v[0], v[1], "");
  LLVMValueRef r = LLVMBuildSelect (L->b, lt, ossd_jit_const64 (L, (uint64_t) -1),
                                    LLVMBuildZExt (L->b, gt, L->i64, ""), "");
  LLVMBuildStore (L->b, r, L->regs[OSSD_R0]);
  LLVMBuildBr (L->b, join);

  LLVMPositionBuilderAtEnd (L->b, slow);
  return join;
}

/* len less the trailing blanks of the bytes at p: a loop in IR */
static LLVMValueRef
emit_strip_blanks (struct ossd_jit_lifter *L, LLVMValueRef p, LLVMValueRef len)
{
  LLVMBasicBlockRef entry = LLVMGetInsertBlock (L->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext (L->cx, L->fn, "strip");
  LLVMBasicBlockRef test = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBuildBr (L->b, head);

  LLVMPositionBuilderAtEnd (L->b, head);
  LLVMValueRef n = LLVMBuildPhi (L->b, L->i64, "");
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntEQ, n, ossd_jit_const64 (L, 0), ""),
                   done, test);
  LLVMPositionBuilderAtEnd (L->b, test);
  LLVMValueRef last = LLVMBuildSub (L->b, n, ossd_jit_const64 (L, 1), "");
  LLVMValueRef c = load_at (L, LLVMBuildAdd (L->b, p, last, ""), 0, L->i8);
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntEQ, c, LLVMConstInt (L->i8, ' ', 0), ""),
                   head, done);
  LLVMValueRef in_v[2] = { len, last };
  LLVMBasicBlockRef in_b[2] = { entry, test };
  LLVMAddIncoming (n, in_v, in_b, 2);

  LLVMPositionBuilderAtEnd (L->b, done);
  LLVMValueRef out = LLVMBuildPhi (L->b, L->i64, "");
  LLVMValueRef out_v[2] = { n, n };
  LLVMBasicBlockRef out_b[2] = { head, test };
  LLVMAddIncoming (out, out_v, out_b, 2);
  return out;
}

/* A loop over i in [from, to) built where the builder is: branches to
 * `no` at the first i for which mismatch (built in the loop body) holds,
 * to `yes` when none does. */
typedef LLVMValueRef (*byte_test_fn) (struct ossd_jit_lifter *L, LLVMValueRef a,
                                      LLVMValueRef b, LLVMValueRef i);

static void
emit_byte_loop (struct ossd_jit_lifter *L, LLVMValueRef from, LLVMValueRef to,
                LLVMValueRef a, LLVMValueRef b, byte_test_fn mismatch,
                LLVMBasicBlockRef yes, LLVMBasicBlockRef no)
{
  LLVMBasicBlockRef entry = LLVMGetInsertBlock (L->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext (L->cx, L->fn, "bytes");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBuildBr (L->b, head);

  LLVMPositionBuilderAtEnd (L->b, head);
  LLVMValueRef i = LLVMBuildPhi (L->b, L->i64, "");
  LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntUGE, i, to, ""), yes, body);
  LLVMPositionBuilderAtEnd (L->b, body);
  LLVMValueRef next = LLVMBuildAdd (L->b, i, ossd_jit_const64 (L, 1), "");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBuildCondBr (L->b, mismatch (L, a, b, i), no, cont);
  LLVMPositionBuilderAtEnd (L->b, cont);
  LLVMBuildBr (L->b, head);
  LLVMValueRef v[2] = { from, next };
  LLVMBasicBlockRef bb[2] = { entry, cont };
  LLVMAddIncoming (i, v, bb, 2);
}

static LLVMValueRef
bytes_differ (struct ossd_jit_lifter *L, LLVMValueRef a, LLVMValueRef b, LLVMValueRef i)
{
  LLVMValueRef x = load_at (L, LLVMBuildAdd (L->b, a, i, ""), 0, L->i8);
  LLVMValueRef y = load_at (L, LLVMBuildAdd (L->b, b, i, ""), 0, L->i8);
  return LLVMBuildICmp (L->b, LLVMIntNE, x, y, "");
}

static LLVMValueRef
byte_not_blank (struct ossd_jit_lifter *L, LLVMValueRef a, LLVMValueRef b, LLVMValueRef i)
{
  LLVMValueRef x = load_at (L, LLVMBuildAdd (L->b, a, i, ""), 0, L->i8);
  return LLVMBuildICmp (L->b, LLVMIntNE, x, LLVMConstInt (L->i8, ' ', 0), "");
}

/* OSSD_H_TEXT_EQ / OSSD_H_BPCHAR_EQ (a, alen, b, blen) inline, with the
 * helpers' answers (helpers_text.c).  Text: equal lengths, then the bytes
 * up to the first that differs.  Bpchar: b loses its trailing blanks
 * (pg_ossd sends constants without them: one test), then a must start
 * with b's bytes and hold only blanks after them -- the same as comparing
 * the stripped values (b's last byte is not a blank, so neither is a's
 * there), but a row that differs early never walks a's padding.  This
 * saves the generic helper call (six arguments, the row_to_host test
 * after it) on the commonest text qual, an equality with a constant or an
 * IN list.  The arguments were checked before. */
static void
emit_text_eq_inline (struct ossd_jit_lifter *L, bool bpchar)
{
  LLVMValueRef a = reg_get (L, 1), al = reg_get (L, 2);
  LLVMValueRef b = reg_get (L, 3), bl = reg_get (L, 4);
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext (L->cx, L->fn, "texteq");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext (L->cx, L->fn, "textne");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMBasicBlockRef bytes = LLVMAppendBasicBlockInContext (L->cx, L->fn, "");
  LLVMValueRef zero = ossd_jit_const64 (L, 0);

  if (bpchar)
    {
      LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext (L->cx, L->fn, "pad");
      bl = emit_strip_blanks (L, b, bl);
      LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntULT, al, bl, ""), no, bytes);
      LLVMPositionBuilderAtEnd (L->b, bytes);
      emit_byte_loop (L, zero, bl, a, b, bytes_differ, pad, no);
      LLVMPositionBuilderAtEnd (L->b, pad);
      emit_byte_loop (L, bl, al, a, b, byte_not_blank, yes, no);
    }
  else
    {
      LLVMBuildCondBr (L->b, LLVMBuildICmp (L->b, LLVMIntNE, al, bl, ""), no, bytes);
      LLVMPositionBuilderAtEnd (L->b, bytes);
      emit_byte_loop (L, zero, al, a, b, bytes_differ, yes, no);
    }
  LLVMPositionBuilderAtEnd (L->b, yes);
  LLVMBuildBr (L->b, done);
  LLVMPositionBuilderAtEnd (L->b, no);
  LLVMBuildBr (L->b, done);
  LLVMPositionBuilderAtEnd (L->b, done);
  LLVMValueRef r = LLVMBuildPhi (L->b, L->i64, "");
  LLVMValueRef v[2] = { ossd_jit_const64 (L, 1), zero };
  LLVMBasicBlockRef bb[2] = { yes, no };
  LLVMAddIncoming (r, v, bb, 2);
  LLVMBuildStore (L->b, r, L->regs[OSSD_R0]);
}

void
ossd_jit_lift_call (struct ossd_jit_lifter *L, uint32_t pc)
{
  const struct ossd_insn *in = &L->prog->insns[pc];
  const struct ossd_insn_aux *ax = &L->prog->aux[pc];
  const struct ossd_helper_proto *h = ossd_helper_lookup (in->imm);
  for (int k = 0; k < 5; k++)
    {
      if (!(ax->arg_check & (1u << k)))
        continue;
      bool num = h->arg[k] == OSSD_ARG_NUMERIC_RO || h->arg[k] == OSSD_ARG_NUMERIC_W;
      LLVMValueRef size = num ? ossd_jit_const64 (L, sizeof (struct ossd_numeric))
        : reg_get (L, k + 2);       /* the next argument, as the interpreter reads it */
      emit_check (L, pc, ax->arg_region[k], ax->arg_col[k], reg_get (L, k + 1), size,
                  h->arg[k] == OSSD_ARG_NUMERIC_W, ossd_jit_reason_helper);
    }
  if (in->imm == OSSD_H_TEXT_EQ || in->imm == OSSD_H_BPCHAR_EQ)
    {
      emit_text_eq_inline (L, in->imm == OSSD_H_BPCHAR_EQ);
      return;
    }
  LLVMBasicBlockRef join = in->imm == OSSD_H_NUMERIC_CMP ? emit_numeric_cmp_same_scale (L) : NULL;
  LLVMValueRef args[6];
  for (int k = 0; k < 5; k++)
    args[k] = reg_get (L, k + 1);
  args[5] = L->st;
  LLVMValueRef f = const_ptr (L, (const void *) h->fn, LLVMPointerType (L->helper_ty, 0));
  LLVMValueRef r0 = LLVMBuildCall2 (L->b, L->helper_ty, f, args, 6, "");
  LLVMBuildStore (L->b, r0, L->regs[OSSD_R0]);

  emit_row_to_host_exit (L);
  if (join)
    {
      LLVMBuildBr (L->b, join);
      LLVMPositionBuilderAtEnd (L->b, join);
    }
}
