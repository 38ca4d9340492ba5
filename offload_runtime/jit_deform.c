/* jit_deform.c - the JIT-compiled deform: a scan's fused deform + bind
 * program (struct ossd_bind_prog, tuple_bind.c) compiled with LLVM into a
 * native function with exactly ossd_bind_fused's contract.
 *
 * The generated code is ossd_bind_fused with the program folded in: the
 * steps are unrolled, and each one's walk (fixed offset from t_hoff,
 * varlena, skipped varlenas, aligned fixed width, cstring), alignment,
 * length, and sinks (column index, type tag, how the value is written) are
 * constants, so no switch is left per attribute or per column.  It makes
 * the same checks in the same order and returns 1 in every case the C
 * runner does (a null bitmap, fewer stored attributes than the program
 * reads, a t_hoff not MAXALIGNed, the fixed prefix past the tuple, a
 * compressed, external, malformed or truncated varlena, an unterminated
 * cstring, a numeric that does not convert), reading nothing outside the
 * tuple; test_jit_deform.c checks both give the same return code and the
 * same outputs.  The few library calls (memchr for cstrings, strnlen for
 * names, ossd_numeric_from_pg for eagerly converted numerics) are made
 * through their addresses in this process.
 *
 * A compiled deform owns its LLJIT (jit_orc.c) and a copy of the program
 * it was compiled from (so a kernel can keep it for the next scan with the
 * same program: jit_kernel.c); it is reference counted.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "jit_internal.h"
#include "bind_prog_internal.h"
#include "prog_internal.h"

#define DEFORM_FN_NAME "ossd_deform_entry"
/* Walks emitted in all (a skip step counts its varlenas): past this the
 * unrolled code is not worth compiling and the C runner is used. */
#define MAX_UNROLLED_WALKS 512
/* The light pipeline plus lower-expect, which turns the "unlikely" marks
 * on the decline branches into branch weights (cold decline path). */
#define DEFORM_PIPELINE \
  "function(lower-expect,sroa,early-cse<memssa>,simplifycfg,instcombine,gvn,simplifycfg,instcombine)"

/* The layouts the generated stores assume. */
_Static_assert (offsetof (struct ossd_col, value) == 0 && offsetof (struct ossd_col, data) == 8
                && offsetof (struct ossd_col, len) == 16 && offsetof (struct ossd_col, isnull) == 20
                && offsetof (struct ossd_col, type) == 21 && offsetof (struct ossd_col, pad) == 22
                && sizeof (struct ossd_col) == 24, "struct ossd_col layout");
_Static_assert (offsetof (struct ossd_numeric, lo) == 0 && offsetof (struct ossd_numeric, hi) == 8
                && offsetof (struct ossd_numeric, scale) == 16
                && offsetof (struct ossd_numeric, flags) == 20
                && sizeof (struct ossd_numeric) == 24, "struct ossd_numeric layout");
_Static_assert (offsetof (struct ossd_datum, isnull) == 0 && offsetof (struct ossd_datum, flags) == 1
                && offsetof (struct ossd_datum, datum) == 8 && offsetof (struct ossd_datum, ptr) == 16
                && offsetof (struct ossd_datum, len) == 24 && sizeof (struct ossd_datum) == 32,
                "struct ossd_datum layout");

struct ossd_jit_deform
{
  atomic_uint refs;
  struct ossd_jit_code code;   /* its LLJIT */
  ossd_bind_fn fn;
  struct ossd_bind_prog prog;  /* the program it was compiled from */
  uint64_t compile_ns;
};

/* The builder's state while one function is emitted. */
struct dgen
{
  LLVMContextRef cx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef i1, i8, i16, i32, i64, i8p;
  LLVMValueRef expect;         /* llvm.expect.i1 */
  LLVMValueRef tup, tuplen, cols, nums, datums;  /* arguments */
  LLVMValueRef hoff;           /* i32 t_hoff */
  LLVMValueRef off;            /* i32 alloca: the walk's offset */
  LLVMBasicBlockRef decline;   /* returns 1 */
};

/* One attribute as a step found it: image at `at`, `size` bytes; the
 * payload (a varlena's after its header, else the image) at pay, plen. */
struct found
{
  LLVMValueRef at, pay;        /* i8* */
  LLVMValueRef size, plen;     /* i32 */
};

static LLVMValueRef
c32 (struct dgen *g, uint64_t v)
{
  return LLVMConstInt (g->i32, v, false);
}

static LLVMValueRef
c64 (struct dgen *g, uint64_t v)
{
  return LLVMConstInt (g->i64, v, false);
}

/* base + off (off an i32 taken as unsigned, or an i64). */
static LLVMValueRef
byte_ptr (struct dgen *g, LLVMValueRef base, LLVMValueRef off)
{
  if (LLVMTypeOf (off) != g->i64)
    off = LLVMBuildZExt (g->b, off, g->i64, "");
  return LLVMBuildGEP2 (g->b, g->i8, base, &off, 1, "");
}

static LLVMValueRef
load_at (struct dgen *g, LLVMTypeRef ty, LLVMValueRef p)
{
  LLVMValueRef typed = LLVMBuildBitCast (g->b, p, LLVMPointerType (ty, 0), "");
  LLVMValueRef v = LLVMBuildLoad2 (g->b, ty, typed, "");
  LLVMSetAlignment (v, 1);     /* tuple bytes: no alignment assumed */
  return v;
}

/* *(typeof v *)(base + off) = v; base is 8-aligned, off a multiple of
 * v's size. */
static void
store_at (struct dgen *g, LLVMValueRef base, uint64_t off, LLVMValueRef v)
{
  LLVMValueRef p = byte_ptr (g, base, c64 (g, off));
  p = LLVMBuildBitCast (g->b, p, LLVMPointerType (LLVMTypeOf (v), 0), "");
  LLVMValueRef s = LLVMBuildStore (g->b, v, p);
  LLVMSetAlignment (s, LLVMTypeOf (v) == g->i64 ? 8 : 4);
}

/* Go on in a new block unless cond (i1, unlikely) holds: then decline. */
static void
decline_if (struct dgen *g, LLVMValueRef cond)
{
  LLVMValueRef args[] = { cond, LLVMConstInt (g->i1, 0, false) };
  LLVMTypeRef ety = LLVMFunctionType (g->i1, (LLVMTypeRef[]) { g->i1, g->i1 }, 2, false);
  LLVMValueRef c = LLVMBuildCall2 (g->b, ety, g->expect, args, 2, "");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext (g->cx, g->fn, "");
  LLVMBuildCondBr (g->b, c, g->decline, next);
  LLVMPositionBuilderAtEnd (g->b, next);
}

/* A C function of this process, called through its address. */
static LLVMValueRef
call_native (struct dgen *g, void *addr, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
             LLVMValueRef *args)
{
  LLVMTypeRef fty = LLVMFunctionType (ret, params, n, false);
  LLVMValueRef f = LLVMConstIntToPtr (c64 (g, (uint64_t) (uintptr_t) addr),
                                      LLVMPointerType (fty, 0));
  return LLVMBuildCall2 (g->b, fty, f, args, n, "");
}

static LLVMValueRef
align_up (struct dgen *g, LLVMValueRef off, unsigned a)
{
  if (a <= 1)
    return off;
  LLVMValueRef v = LLVMBuildAdd (g->b, off, c32 (g, a - 1), "");
  return LLVMBuildAnd (g->b, v, c32 (g, ~(uint32_t) (a - 1)), "");
}

/* (uint64_t) off + size > tuplen */
static LLVMValueRef
past_end (struct dgen *g, LLVMValueRef off, LLVMValueRef size)
{
  LLVMValueRef end = LLVMBuildAdd (g->b, LLVMBuildZExt (g->b, off, g->i64, ""),
                                   LLVMBuildZExt (g->b, size, g->i64, ""), "");
  return LLVMBuildICmp (g->b, LLVMIntUGT, end, LLVMBuildZExt (g->b, g->tuplen, g->i64, ""), "");
}

/* tuple_bind.c's walk_varlena at the walk offset, aligned to a. */
static struct found
walk_varlena (struct dgen *g, unsigned a)
{
  LLVMBuilderRef b = g->b;
  LLVMValueRef off0 = LLVMBuildLoad2 (b, g->i32, g->off, "off");
  decline_if (g, LLVMBuildICmp (b, LLVMIntUGE, off0, g->tuplen, ""));
  LLVMValueRef b0 = load_at (g, g->i8, byte_ptr (g, g->tup, off0));
  LLVMValueRef off1 = off0, hdr = b0;
  if (a > 1)
    {
      /* a zero byte is padding before an aligned 4-byte header */
      LLVMBasicBlockRef from = LLVMGetInsertBlock (b);
      LLVMBasicBlockRef pad = LLVMAppendBasicBlockInContext (g->cx, g->fn, "pad");
      LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext (g->cx, g->fn, "hdr");
      LLVMBuildCondBr (b, LLVMBuildICmp (b, LLVMIntEQ, b0, LLVMConstInt (g->i8, 0, false), ""),
                       pad, join);
      LLVMPositionBuilderAtEnd (b, pad);
      LLVMValueRef offa = align_up (g, off0, a);
      decline_if (g, LLVMBuildICmp (b, LLVMIntUGE, offa, g->tuplen, ""));
      LLVMValueRef b0a = load_at (g, g->i8, byte_ptr (g, g->tup, offa));
      LLVMBasicBlockRef pad_end = LLVMGetInsertBlock (b);
      LLVMBuildBr (b, join);
      LLVMPositionBuilderAtEnd (b, join);
      off1 = LLVMBuildPhi (b, g->i32, "");
      LLVMAddIncoming (off1, (LLVMValueRef[]) { off0, offa },
                       (LLVMBasicBlockRef[]) { from, pad_end }, 2);
      hdr = LLVMBuildPhi (b, g->i8, "");
      LLVMAddIncoming (hdr, (LLVMValueRef[]) { b0, b0a },
                       (LLVMBasicBlockRef[]) { from, pad_end }, 2);
    }
  LLVMValueRef odd = LLVMBuildICmp (b, LLVMIntNE,
                                    LLVMBuildAnd (b, hdr, LLVMConstInt (g->i8, 1, false), ""),
                                    LLVMConstInt (g->i8, 0, false), "");
  LLVMValueRef not1 = LLVMBuildICmp (b, LLVMIntNE, hdr, LLVMConstInt (g->i8, 1, false), "");
  LLVMBasicBlockRef shortb = LLVMAppendBasicBlockInContext (g->cx, g->fn, "short");
  LLVMBasicBlockRef longb = LLVMAppendBasicBlockInContext (g->cx, g->fn, "long");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext (g->cx, g->fn, "sized");
  LLVMBuildCondBr (b, LLVMBuildAnd (b, odd, not1, ""), shortb, longb);

  /* 1-byte header, the common case */
  LLVMPositionBuilderAtEnd (b, shortb);
  LLVMValueRef sz_s = LLVMBuildLShr (b, LLVMBuildZExt (b, hdr, g->i32, ""), c32 (g, 1), "");
  LLVMValueRef pay_s = LLVMBuildAdd (b, off1, c32 (g, 1), "");
  LLVMValueRef plen_s = LLVMBuildSub (b, sz_s, c32 (g, 1), "");
  LLVMBuildBr (b, join);

  /* 4-byte header: plain only (compressed and external decline) */
  LLVMPositionBuilderAtEnd (b, longb);
  decline_if (g, LLVMBuildICmp (b, LLVMIntNE,
                                LLVMBuildAnd (b, hdr, LLVMConstInt (g->i8, 3, false), ""),
                                LLVMConstInt (g->i8, 0, false), ""));
  decline_if (g, LLVMBuildICmp (b, LLVMIntULT, LLVMBuildSub (b, g->tuplen, off1, ""),
                                c32 (g, 4), ""));
  LLVMValueRef word = load_at (g, g->i32, byte_ptr (g, g->tup, off1));
  LLVMValueRef sz_l = LLVMBuildLShr (b, word, c32 (g, 2), "");
  decline_if (g, LLVMBuildICmp (b, LLVMIntULT, sz_l, c32 (g, 4), ""));
  LLVMValueRef pay_l = LLVMBuildAdd (b, off1, c32 (g, 4), "");
  LLVMValueRef plen_l = LLVMBuildSub (b, sz_l, c32 (g, 4), "");
  LLVMBasicBlockRef long_end = LLVMGetInsertBlock (b);
  LLVMBuildBr (b, join);

  LLVMPositionBuilderAtEnd (b, join);
  LLVMBasicBlockRef from2[] = { shortb, long_end };
  LLVMValueRef sz = LLVMBuildPhi (b, g->i32, "size");
  LLVMAddIncoming (sz, (LLVMValueRef[]) { sz_s, sz_l }, from2, 2);
  LLVMValueRef payoff = LLVMBuildPhi (b, g->i32, "");
  LLVMAddIncoming (payoff, (LLVMValueRef[]) { pay_s, pay_l }, from2, 2);
  LLVMValueRef plen = LLVMBuildPhi (b, g->i32, "plen");
  LLVMAddIncoming (plen, (LLVMValueRef[]) { plen_s, plen_l }, from2, 2);
  decline_if (g, past_end (g, off1, sz));
  LLVMBuildStore (b, LLVMBuildAdd (b, off1, sz, ""), g->off);
  return (struct found) { byte_ptr (g, g->tup, off1), byte_ptr (g, g->tup, payoff), sz, plen };
}

static struct found
walk_fixed (struct dgen *g, const struct ossd_bind_step *st)
{
  LLVMValueRef off = align_up (g, LLVMBuildLoad2 (g->b, g->i32, g->off, "off"), st->align);
  LLVMValueRef size = c32 (g, (uint32_t) st->len);
  decline_if (g, past_end (g, off, size));
  LLVMBuildStore (g->b, LLVMBuildAdd (g->b, off, size, ""), g->off);
  LLVMValueRef at = byte_ptr (g, g->tup, off);
  return (struct found) { at, at, size, size };
}

static struct found
walk_cstring (struct dgen *g)
{
  LLVMBuilderRef b = g->b;
  LLVMValueRef off = LLVMBuildLoad2 (b, g->i32, g->off, "off");
  decline_if (g, LLVMBuildICmp (b, LLVMIntUGT, off, g->tuplen, ""));
  LLVMValueRef at = byte_ptr (g, g->tup, off);
  LLVMValueRef avail = LLVMBuildZExt (b, LLVMBuildSub (b, g->tuplen, off, ""), g->i64, "");
  LLVMValueRef nul = call_native (g, (void *) memchr, g->i8p,
                                  (LLVMTypeRef[]) { g->i8p, g->i32, g->i64 }, 3,
                                  (LLVMValueRef[]) { at, c32 (g, 0), avail });
  decline_if (g, LLVMBuildIsNull (b, nul, ""));
  LLVMValueRef dist = LLVMBuildSub (b, LLVMBuildPtrToInt (b, nul, g->i64, ""),
                                    LLVMBuildPtrToInt (b, at, g->i64, ""), "");
  LLVMValueRef size = LLVMBuildAdd (b, LLVMBuildTrunc (b, dist, g->i32, ""), c32 (g, 1), "");
  LLVMBuildStore (b, LLVMBuildAdd (b, off, size, ""), g->off);
  return (struct found) { at, at, size, size };
}

/* tuple_bind.c's byval_datum: the Datum at p of a by-value attribute. */
static LLVMValueRef
byval_datum (struct dgen *g, LLVMValueRef p, int len)
{
  LLVMTypeRef ty = len == 1 ? g->i8 : len == 2 ? g->i16 : len == 4 ? g->i32 : g->i64;
  LLVMValueRef v = load_at (g, ty, p);
  return ty == g->i64 ? v : LLVMBuildSExt (g->b, v, g->i64, "");
}

/* *c = (struct ossd_col) { value, data, len, .type = tag } */
static void
store_col (struct dgen *g, uint8_t col, LLVMValueRef value, LLVMValueRef data, LLVMValueRef len,
           uint8_t tag)
{
  LLVMValueRef c = byte_ptr (g, g->cols, c64 (g, (uint64_t) col * sizeof (struct ossd_col)));
  store_at (g, c, offsetof (struct ossd_col, value), value);
  store_at (g, c, offsetof (struct ossd_col, data), data);
  /* len, isnull = 0, type, pad = 0 as one little-endian word */
  LLVMValueRef tail = LLVMBuildOr (g->b, LLVMBuildZExt (g->b, len, g->i64, ""),
                                   c64 (g, (uint64_t) tag << 40), "");
  store_at (g, c, offsetof (struct ossd_col, len), tail);
}

/* tuple_bind.c's sink(): one column from the found attribute. */
static void
emit_sink (struct dgen *g, uint8_t op, uint8_t col, uint8_t tag, const struct found *f, int len)
{
  LLVMBuilderRef b = g->b;
  LLVMValueRef zero = c64 (g, 0);
  LLVMValueRef num = byte_ptr (g, g->nums, c64 (g, (uint64_t) col * sizeof (struct ossd_numeric)));
  LLVMValueRef num_len = c32 (g, sizeof (struct ossd_numeric));
  switch (op)
    {
    case SINK_INT:
      store_col (g, col, byval_datum (g, f->at, len), zero, c32 (g, 0), tag);
      return;
    case SINK_FLOAT4:
      {
        LLVMValueRef bits = LLVMBuildTrunc (b, byval_datum (g, f->at, len), g->i32, "");
        LLVMValueRef x = LLVMBuildFPExt (b, LLVMBuildBitCast (b, bits, LLVMFloatTypeInContext (g->cx), ""),
                                         LLVMDoubleTypeInContext (g->cx), "");
        store_col (g, col, LLVMBuildBitCast (b, x, g->i64, ""), zero, c32 (g, 0), tag);
        return;
      }
    case SINK_NUMERIC_LAZY:
      /* ossd_numeric_bind_lazy: payload address and length, pending */
      store_at (g, num, offsetof (struct ossd_numeric, lo), LLVMBuildPtrToInt (b, f->pay, g->i64, ""));
      store_at (g, num, offsetof (struct ossd_numeric, hi), LLVMBuildZExt (b, f->plen, g->i64, ""));
      store_at (g, num, offsetof (struct ossd_numeric, scale),
                c64 (g, (uint64_t) OSSD_NUMERIC_LAZY_PENDING << 32));
      store_col (g, col, zero, LLVMBuildPtrToInt (b, num, g->i64, ""), num_len, tag);
      return;
    case SINK_NUMERIC:
      {
        LLVMValueRef rc = call_native (g, (void *) ossd_numeric_from_pg, g->i32,
                                       (LLVMTypeRef[]) { g->i8p, g->i64, g->i8p }, 3,
                                       (LLVMValueRef[]) { f->pay, LLVMBuildZExt (b, f->plen, g->i64, ""),
                                                          num });
        decline_if (g, LLVMBuildICmp (b, LLVMIntSLT, rc, c32 (g, 0), ""));
        store_col (g, col, zero, LLVMBuildPtrToInt (b, num, g->i64, ""), num_len, tag);
        return;
      }
    case SINK_NAME:
      {
        LLVMValueRef n = call_native (g, (void *) strnlen, g->i64,
                                      (LLVMTypeRef[]) { g->i8p, g->i64 }, 2,
                                      (LLVMValueRef[]) { f->pay, LLVMBuildZExt (b, f->plen, g->i64, "") });
        store_col (g, col, zero, LLVMBuildPtrToInt (b, f->pay, g->i64, ""),
                   LLVMBuildTrunc (b, n, g->i32, ""), tag);
        return;
      }
    default:
      store_col (g, col, zero, LLVMBuildPtrToInt (b, f->pay, g->i64, ""), f->plen, tag);
      return;
    }
}

static void
emit_step (struct dgen *g, const struct ossd_bind_prog *p, const struct ossd_bind_step *st)
{
  struct found f;
  switch (st->walk)
    {
    case WALK_NONE:
      {
        LLVMValueRef off = LLVMBuildAdd (g->b, g->hoff, c32 (g, st->fixed_off), "");
        LLVMValueRef at = byte_ptr (g, g->tup, off);
        LLVMValueRef len = c32 (g, (uint32_t) st->len);
        f = (struct found) { at, at, len, len };
        break;
      }
    case WALK_VARLENA:
      f = walk_varlena (g, st->align);
      break;
    case WALK_VARLENA_SKIP:
      for (uint32_t n = st->count; n > 0; n--)
        walk_varlena (g, st->align);
      return;
    case WALK_FIXED:
      f = walk_fixed (g, st);
      break;
    default:
      f = walk_cstring (g);
      break;
    }
  if (st->sink == SINK_NONE)
    return;
  if (st->sink != SINK_MANY)
    {
      emit_sink (g, st->sink, st->col, st->tag, &f, st->len);
      return;
    }
  if (st->put_datum)
    {
      LLVMValueRef d = byte_ptr (g, g->datums, c64 (g, (uint64_t) st->attno * sizeof (struct ossd_datum)));
      store_at (g, d, 0, c64 (g, 0));      /* isnull, flags */
      if (st->byval)
        {
          store_at (g, d, offsetof (struct ossd_datum, datum), byval_datum (g, f.at, st->len));
          store_at (g, d, offsetof (struct ossd_datum, ptr), c64 (g, 0));
          store_at (g, d, offsetof (struct ossd_datum, len), c64 (g, 0));
        }
      else
        {
          store_at (g, d, offsetof (struct ossd_datum, datum), c64 (g, 0));
          store_at (g, d, offsetof (struct ossd_datum, ptr), LLVMBuildPtrToInt (g->b, f.at, g->i64, ""));
          store_at (g, d, offsetof (struct ossd_datum, len), LLVMBuildZExt (g->b, f.size, g->i64, ""));
        }
    }
  for (uint32_t k = st->first_sink; k < (uint32_t) st->first_sink + st->nsinks; k++)
    emit_sink (g, p->sinks[k].op, p->sinks[k].col, p->sinks[k].tag, &f, st->len);
}

/* int f (const struct ossd_bind_prog *, const uint8_t *tup, uint32_t tuplen,
 *        struct ossd_col *, struct ossd_numeric *, struct ossd_datum *) */
static void
emit_function (struct dgen *g, const struct ossd_bind_prog *p)
{
  LLVMBuilderRef b = g->b;
  LLVMTypeRef params[] = { g->i8p, g->i8p, g->i32, g->i8p, g->i8p, g->i8p };
  g->fn = LLVMAddFunction (g->mod, DEFORM_FN_NAME, LLVMFunctionType (g->i32, params, 6, false));
  g->expect = LLVMAddFunction (g->mod, "llvm.expect.i1",
                               LLVMFunctionType (g->i1, (LLVMTypeRef[]) { g->i1, g->i1 }, 2, false));
  g->tup = LLVMGetParam (g->fn, 1);
  g->tuplen = LLVMGetParam (g->fn, 2);
  g->cols = LLVMGetParam (g->fn, 3);
  g->nums = LLVMGetParam (g->fn, 4);
  g->datums = LLVMGetParam (g->fn, 5);
  /* the outputs are the caller's own arrays, apart from the tuple */
  for (unsigned i = 3; i <= 5; i++)
    LLVMAddAttributeAtIndex (g->fn, i + 1,
                             LLVMCreateEnumAttribute (g->cx, LLVMGetEnumAttributeKindForName ("noalias", 7), 0));

  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext (g->cx, g->fn, "entry");
  g->decline = LLVMAppendBasicBlockInContext (g->cx, g->fn, "decline");
  LLVMPositionBuilderAtEnd (b, g->decline);
  LLVMBuildRet (b, c32 (g, 1));
  LLVMPositionBuilderAtEnd (b, entry);
  g->off = LLVMBuildAlloca (b, g->i32, "off");

  /* the header checks of ossd_bind_fused */
  LLVMValueRef infomask2 = load_at (g, g->i16, byte_ptr (g, g->tup, c64 (g, OSSD_PG_HT_INFOMASK2)));
  LLVMValueRef infomask = load_at (g, g->i16, byte_ptr (g, g->tup, c64 (g, OSSD_PG_HT_INFOMASK)));
  g->hoff = LLVMBuildZExt (b, load_at (g, g->i8, byte_ptr (g, g->tup, c64 (g, OSSD_PG_HT_HOFF))),
                           g->i32, "hoff");
  LLVMValueRef i16zero = LLVMConstInt (g->i16, 0, false);
  LLVMValueRef bad = LLVMBuildICmp (b, LLVMIntNE,
                                    LLVMBuildAnd (b, infomask, LLVMConstInt (g->i16, OSSD_PG_HEAP_HASNULL, false), ""),
                                    i16zero, "");
  LLVMValueRef natts = LLVMBuildZExt (b, LLVMBuildAnd (b, infomask2,
                                                       LLVMConstInt (g->i16, OSSD_PG_HEAP_NATTS_MASK, false), ""),
                                      g->i32, "");
  bad = LLVMBuildOr (b, bad, LLVMBuildICmp (b, LLVMIntULT, natts, c32 (g, p->upto), ""), "");
  bad = LLVMBuildOr (b, bad, LLVMBuildICmp (b, LLVMIntNE, LLVMBuildAnd (b, g->hoff, c32 (g, 7), ""),
                                            c32 (g, 0), ""), "");
  LLVMValueRef start = LLVMBuildAdd (b, g->hoff, c32 (g, p->fixed_end), "");
  bad = LLVMBuildOr (b, bad, LLVMBuildICmp (b, LLVMIntUGT, start, g->tuplen, ""), "");
  decline_if (g, bad);
  LLVMBuildStore (b, start, g->off);

  for (uint32_t i = 0; i < p->nsteps; i++)
    emit_step (g, p, &p->steps[i]);
  LLVMBuildRet (b, c32 (g, 0));
}

static uint32_t
unrolled_walks (const struct ossd_bind_prog *p)
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->nsteps; i++)
    n += p->steps[i].walk == WALK_VARLENA_SKIP ? p->steps[i].count : 1;
  return n;
}

int
ossd_jit_deform_compile (const struct ossd_bind_prog *p, struct ossd_jit_deform **out,
                         char *err, size_t errlen)
{
  uint64_t t0 = ossd_jit_now_ns ();
  *out = NULL;
  if (unrolled_walks (p) > MAX_UNROLLED_WALKS)
    return ossd_rt_err (err, errlen, -E2BIG, "jit deform: %u attribute walks (at most %u)",
                        unrolled_walks (p), MAX_UNROLLED_WALKS);
  struct ossd_jit_deform *d = calloc (1, sizeof *d);
  if (!d || ossd_bind_prog_copy (&d->prog, p) < 0)
    {
      free (d);
      return ossd_rt_err (err, errlen, -ENOMEM, "jit deform: out of memory");
    }
  atomic_init (&d->refs, 1);

  struct ossd_jit_module m;
  int rc = ossd_jit_orc_begin (&d->code, &m, "ossd_deform", err, errlen);
  if (rc == 0)
    {
      struct dgen g = { .cx = m.cx, .mod = m.mod };
      g.b = LLVMCreateBuilderInContext (m.cx);
      g.i1 = LLVMInt1TypeInContext (m.cx);
      g.i8 = LLVMInt8TypeInContext (m.cx);
      g.i16 = LLVMInt16TypeInContext (m.cx);
      g.i32 = LLVMInt32TypeInContext (m.cx);
      g.i64 = LLVMInt64TypeInContext (m.cx);
      g.i8p = LLVMPointerType (g.i8, 0);
      emit_function (&g, &d->prog);
      LLVMDisposeBuilder (g.b);
      rc = ossd_jit_orc_optimise (&m, DEFORM_PIPELINE, false, err, errlen);
      if (rc < 0)
        ossd_jit_orc_abandon (&d->code, &m);
    }
  uint64_t addr = 0;
  if (rc == 0)
    rc = ossd_jit_orc_finish (&d->code, &m, DEFORM_FN_NAME, &addr, err, errlen);
  if (rc < 0)
    {
      ossd_bind_prog_free (&d->prog);
      free (d);
      return rc;
    }
  d->fn = (ossd_bind_fn) (uintptr_t) addr;
  d->compile_ns = ossd_jit_now_ns () - t0;
  *out = d;
  return 0;
}

ossd_bind_fn
ossd_jit_deform_fn (const struct ossd_jit_deform *d)
{
  return d->fn;
}

const struct ossd_bind_prog *
ossd_jit_deform_prog (const struct ossd_jit_deform *d)
{
  return &d->prog;
}

uint64_t
ossd_jit_deform_compile_ns (const struct ossd_jit_deform *d)
{
  return d->compile_ns;
}

struct ossd_jit_deform *
ossd_jit_deform_retain (struct ossd_jit_deform *d)
{
  atomic_fetch_add (&d->refs, 1);
  return d;
}

void
ossd_jit_deform_release (struct ossd_jit_deform *d)
{
  if (!d || atomic_fetch_sub (&d->refs, 1) != 1)
    return;
  ossd_jit_orc_free (&d->code);
  ossd_bind_prog_free (&d->prog);
  free (d);
}
