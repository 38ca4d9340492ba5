/* jit_testgen.h - random inputs for the JIT differential tests
 * (test_jit.c): rows with random column values (edge integers, NULLs,
 * random text lengths, numerics near the 128-bit limit and with invalid
 * scales) and a random eBPF program generator (ALU of every kind,
 * conditional forward jumps, small bounded loops, loads/stores on the
 * stack, ctx and ctx->out, checked column-data loads, scalar helper
 * calls).  Generated programs go through the verifier; only accepted ones
 * are compared.  Static functions only; deterministic for a seed. */
#ifndef JIT_TESTGEN_H
#define JIT_TESTGEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ossd_rt.h"

/* ---- deterministic PRNG (xorshift64*) ---- */
struct tg_rng { uint64_t s; };
static inline uint64_t
tg_next (struct tg_rng *r)
{
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}
static inline uint32_t tg_below (struct tg_rng *r, uint32_t n) { return (uint32_t) (tg_next (r) % n); }
static inline bool tg_chance (struct tg_rng *r, unsigned pct) { return tg_below (r, 100) < pct; }

static inline uint64_t
tg_edge_int (struct tg_rng *r)
{
  static const uint64_t edges[] = {
    0, 1, 2, 42, (uint64_t) -1, (uint64_t) -2, (uint64_t) INT64_MIN, (uint64_t) INT64_MAX,
    (uint64_t) INT32_MIN, (uint64_t) INT32_MAX, UINT32_MAX, 0x80000000ull, 63, 64, 31, 32,
    (uint64_t) (int64_t) -2191, (uint64_t) (int64_t) -1826, 0x100000000ull, 0xffff, 0x8000,
  };
  switch (tg_below (r, 4))
    {
    case 0: return edges[tg_below (r, sizeof edges / sizeof edges[0])];
    case 1: return tg_below (r, 200);
    case 2: return (uint64_t) (int64_t) ((int32_t) tg_next (r));
    default: return tg_next (r);
    }
}

/* ---- rows ---- */
enum tg_kind { TG_INT, TG_TEXT, TG_NUM, TG_DATE, TG_F8, TG_NKINDS };

struct tg_row
{
  struct ossd_kctx ctx;
  struct ossd_numeric num[OSSD_KCTX_MAX_COLS];
  uint8_t text[OSSD_KCTX_MAX_COLS][48];
};

static inline void
tg_numeric (struct tg_rng *r, struct ossd_numeric *n)
{
  memset (n, 0, sizeof *n);
  if (tg_chance (r, 35))
    {                                   /* discount-like: 0.00 .. 0.10 */
      n->scale = 2 + (int32_t) tg_below (r, 2);
      n->lo = tg_below (r, 11) * (n->scale == 3 ? 10 : 1) + (tg_chance (r, 10) ? 1 : 0);
      return;
    }
  if (tg_chance (r, 60))
    {                                   /* quantity-like: 0 .. 50 at small scales */
      n->scale = (int32_t) tg_below (r, 3);
      n->lo = tg_below (r, 51) * (n->scale == 0 ? 1 : n->scale == 1 ? 10 : 100);
      if (tg_chance (r, 20))
        {
          n->lo = -n->lo;
          n->hi = -1;
        }
      return;
    }
  n->lo = tg_edge_int (r);
  static const int64_t his[] = { 0, -1, 1, INT64_MAX, INT64_MIN, 0x7fffffff, -0x80000000ll };
  n->hi = his[tg_below (r, sizeof his / sizeof his[0])];
  n->scale = (int32_t) tg_below (r, 42);        /* > 38: helpers hand the row to the host */
  if (tg_chance (r, 5))
    n->flags = 1;
}

static inline void
tg_text (struct tg_rng *r, uint8_t *buf, uint32_t *len)
{
  static const char alpha[] = "abcegnr %_ GREEN";
  uint32_t n = tg_below (r, 49);
  for (uint32_t i = 0; i < n; i++)
    buf[i] = (uint8_t) alpha[tg_below (r, sizeof alpha - 1)];
  if (n >= 5 && tg_chance (r, 40))
    memcpy (buf + tg_below (r, n - 4), "green", 5);
  if (tg_chance (r, 5))
    for (uint32_t i = 0; i < n; i++)
      buf[i] = (uint8_t) tg_next (r);           /* arbitrary bytes */
  *len = n;
}

/* Fills row with columns of the given kinds (kinds NULL: random kinds).
 * ncols columns are bound; the others are zero as the runtime contract
 * requires. */
static inline void
tg_row_fill (struct tg_rng *r, struct tg_row *row, const uint8_t *kinds, uint32_t ncols)
{
  memset (row, 0, sizeof *row);
  row->ctx.ncols = ncols;
  row->ctx.nout = tg_below (r, OSSD_KCTX_MAX_OUT + 1);
  row->ctx.block = tg_next (r);
  row->ctx.offnum = tg_below (r, 300);
  for (uint32_t i = 0; i < ncols; i++)
    {
      struct ossd_col *c = &row->ctx.col[i];
      uint8_t k = kinds ? kinds[i] : (uint8_t) tg_below (r, TG_NKINDS);
      c->isnull = tg_chance (r, 12);
      switch (k)
        {
        case TG_INT:
          c->type = OSSD_T_INT8;
          c->value = tg_edge_int (r);
          break;
        case TG_DATE:
          c->type = OSSD_T_DATE;
          c->value = (uint64_t) (int64_t) (tg_chance (r, 80) ? -2300 + (int) tg_below (r, 600)
                                           : (int32_t) tg_edge_int (r));
          break;
        case TG_F8:
          {
            static const double fs[] = { 0.0, -0.0, 1.5, -1.5, 1e308, -1e308, 5e-324,
                                         __builtin_inf (), -__builtin_inf (), __builtin_nan ("") };
            double f = tg_chance (r, 50) ? fs[tg_below (r, 10)] : (double) (int32_t) tg_next (r) / 7.0;
            c->type = OSSD_T_FLOAT8;
            memcpy (&c->value, &f, 8);
            if (tg_chance (r, 10))
              c->value = tg_next (r);
            break;
          }
        case TG_TEXT:
          c->type = OSSD_T_TEXT;
          tg_text (r, row->text[i], &c->len);
          c->data = (uint64_t) (uintptr_t) row->text[i];
          if (tg_chance (r, 10))
            c->len = 0;
          break;
        default:
          c->type = OSSD_T_NUMERIC;
          tg_numeric (r, &row->num[i]);
          c->data = (uint64_t) (uintptr_t) &row->num[i];
          c->len = sizeof (struct ossd_numeric);
          if (tg_chance (r, 5))
            c->len = (uint32_t) tg_below (r, sizeof (struct ossd_numeric));   /* short: checks fail */
          break;
        }
      if (c->isnull && tg_chance (r, 70))
        {
          c->data = 0;
          c->len = 0;
          c->value = 0;
        }
      if (tg_chance (r, 3))
        {
          c->data = 0;                  /* non-null without data: accesses must fault */
          c->len = 0;
        }
    }
}

/* ---- random programs ----
 * Units of one or more instructions; jumps name a later unit, laid out
 * after generation.  Registers: r6 = ctx, r10 = frame, r0 r2-r5 r7-r9
 * scalars (r1 is re-set to ctx after calls); stack slots -8..-64 are
 * initialised in the prologue. */
#define TG_MAX_INSNS 400
struct tg_prog
{
  struct ossd_insn insn[TG_MAX_INSNS];
  uint32_t n;
  int32_t unit_of_jump[TG_MAX_INSNS];      /* insn -> target unit, or -1 */
  uint32_t unit_start[TG_MAX_INSNS];
  uint32_t nunits;
};

static const uint8_t tg_scalar_regs[] = { 0, 2, 3, 4, 5, 7, 8, 9 };
#define TG_SREG(r) tg_scalar_regs[tg_below (r, sizeof tg_scalar_regs)]

static inline void
tg_emit (struct tg_prog *p, struct ossd_insn in, int32_t target_unit)
{
  if (p->n < TG_MAX_INSNS)
    {
      p->unit_of_jump[p->n] = target_unit;
      p->insn[p->n++] = in;
    }
}

static inline void
tg_unit (struct tg_prog *p)
{
  p->unit_start[p->nunits++] = p->n;
}

static inline void
tg_alu (struct tg_rng *r, struct tg_prog *p, uint8_t dst)
{
  static const uint8_t ops[] = { OSSD_BPF_ADD, OSSD_BPF_SUB, OSSD_BPF_MUL, OSSD_BPF_DIV,
                                 OSSD_BPF_OR, OSSD_BPF_AND, OSSD_BPF_LSH, OSSD_BPF_RSH,
                                 OSSD_BPF_NEG, OSSD_BPF_MOD, OSSD_BPF_XOR, OSSD_BPF_MOV,
                                 OSSD_BPF_ARSH, OSSD_BPF_END };
  uint8_t op = ops[tg_below (r, sizeof ops)];
  uint8_t cls = tg_chance (r, 60) ? OSSD_BPF_ALU64 : OSSD_BPF_ALU;
  bool x = tg_chance (r, 50);
  int16_t off = 0;
  int32_t imm = (int32_t) tg_edge_int (r);
  uint8_t src = TG_SREG (r);
  if (op == OSSD_BPF_NEG)
    x = false, imm = 0;
  if (op == OSSD_BPF_END)
    {
      static const int32_t w[] = { 16, 32, 64 };
      imm = w[tg_below (r, 3)];
      src = 0;                          /* X selects "to big endian", src stays 0 */
      if (cls == OSSD_BPF_ALU64)
        x = false;
    }
  if ((op == OSSD_BPF_DIV || op == OSSD_BPF_MOD) && tg_chance (r, 50))
    off = 1;
  if ((op == OSSD_BPF_DIV || op == OSSD_BPF_MOD) && !x && imm == 0)
    imm = tg_chance (r, 50) ? -1 : 3;
  if (op == OSSD_BPF_MOV && x && tg_chance (r, 30))
    {
      static const int16_t sx[] = { 8, 16, 32 };
      off = sx[tg_below (r, cls == OSSD_BPF_ALU64 ? 3 : 2)];
    }
  if ((op == OSSD_BPF_LSH || op == OSSD_BPF_RSH || op == OSSD_BPF_ARSH) && !x)
    imm = (int32_t) tg_below (r, cls == OSSD_BPF_ALU64 ? 64 : 32);
  tg_emit (p, (struct ossd_insn) OSSD_INSN ((uint8_t) (cls | op | (x ? OSSD_BPF_X : OSSD_BPF_K)), dst,
                         x ? src : 0, off, x && op != OSSD_BPF_END ? 0 : imm), -1);
}

static inline void
tg_body_unit (struct tg_rng *r, struct tg_prog *p, uint32_t unit_idx, uint32_t total_units)
{
  static const uint8_t sizes[] = { OSSD_BPF_B, OSSD_BPF_H, OSSD_BPF_W, OSSD_BPF_DW };
  static const uint8_t jops[] = { OSSD_BPF_JEQ, OSSD_BPF_JGT, OSSD_BPF_JGE, OSSD_BPF_JSET,
                                  OSSD_BPF_JNE, OSSD_BPF_JSGT, OSSD_BPF_JSGE, OSSD_BPF_JLT,
                                  OSSD_BPF_JLE, OSSD_BPF_JSLT, OSSD_BPF_JSLE };
  uint8_t d = TG_SREG (r);
  uint8_t sz = sizes[tg_below (r, 4)];
  unsigned bytes = sz == OSSD_BPF_B ? 1 : sz == OSSD_BPF_H ? 2 : sz == OSSD_BPF_W ? 4 : 8;
  tg_unit (p);
  switch (tg_below (r, 20))
    {
    case 0: case 1: case 2: case 3: case 4: case 5:
      tg_alu (r, p, d);
      break;
    case 6:                             /* stack load (initialised area) */
      tg_emit (p, (struct ossd_insn) OSSD_INSN ((uint8_t) (OSSD_BPF_LDX | sz | (tg_chance (r, 30) && sz != OSSD_BPF_DW
                                                             ? OSSD_BPF_MEMSX : OSSD_BPF_MEM)),
                             d, 10, (int16_t) (-64 + (int) tg_below (r, 65 - bytes)), 0), -1);
      break;
    case 7:                             /* stack store */
      if (tg_chance (r, 50))
        tg_emit (p, (struct ossd_insn) OSSD_INSN ((uint8_t) (OSSD_BPF_STX | sz | OSSD_BPF_MEM), 10, TG_SREG (r),
                               (int16_t) (-64 + (int) tg_below (r, 65 - bytes)), 0), -1);
      else
        tg_emit (p, (struct ossd_insn) OSSD_INSN ((uint8_t) (OSSD_BPF_ST | sz | OSSD_BPF_MEM), 10, 0,
                               (int16_t) (-64 + (int) tg_below (r, 65 - bytes)),
                               (int32_t) tg_edge_int (r)), -1);
      break;
    case 8:                             /* ctx field load */
      {
        uint32_t c = tg_below (r, 8);
        static const int16_t f[] = { offsetof (struct ossd_col, value), offsetof (struct ossd_col, len),
                                     offsetof (struct ossd_col, isnull), offsetof (struct ossd_col, type) };
        static const uint8_t fs[] = { OSSD_BPF_DW, OSSD_BPF_W, OSSD_BPF_B, OSSD_BPF_B };
        unsigned k = tg_below (r, 4);
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (fs[k], d, 6, (int16_t) (offsetof (struct ossd_kctx, col[c]) + f[k])), -1);
        break;
      }
    case 9:                             /* ctx->out store */
      {
        uint32_t k = tg_below (r, OSSD_KCTX_MAX_OUT);
        int16_t off = (int16_t) (offsetof (struct ossd_kctx, out[k]) + tg_below (r, 8) / bytes * bytes);
        if (tg_chance (r, 60))
          tg_emit (p, (struct ossd_insn) OSSD_STX_MEM (sz, 6, TG_SREG (r), off), -1);
        else
          tg_emit (p, (struct ossd_insn) OSSD_ST_MEM (sz, 6, off, (int32_t) tg_edge_int (r)), -1);
        break;
      }
    case 10:                            /* ctx->out load */
      tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (OSSD_BPF_DW, d, 6, (int16_t) offsetof (struct ossd_kctx,
                                                                     out[tg_below (r, 32)].value)), -1);
      break;
    case 11:                            /* checked column-data load, may fault */
      {
        uint32_t c = tg_below (r, 8);
        uint8_t dd = d == 5 || d == 4 ? 0 : d;
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (OSSD_BPF_DW, 5, 6, (int16_t) offsetof (struct ossd_kctx, col[c].data)), -1);
        if (tg_chance (r, 50))
          {
            tg_emit (p, (struct ossd_insn) OSSD_ALU64_IMM (OSSD_BPF_AND, 4, 15), -1);
            tg_emit (p, (struct ossd_insn) OSSD_ALU64_REG (OSSD_BPF_ADD, 5, 4), -1);
          }
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (sz, dd, 5, (int16_t) tg_below (r, 16)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_IMM (5, (int32_t) tg_below (r, 9)), -1);
        break;
      }
    case 12:                            /* checked column-data load guarded by the length */
      {
        uint32_t c = tg_below (r, 8);
        uint8_t dd = d == 5 || d == 4 ? 0 : d;
        int16_t off = (int16_t) tg_below (r, 16);
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (OSSD_BPF_W, 4, 6, (int16_t) offsetof (struct ossd_kctx, col[c].len)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_JMP_IMM (OSSD_BPF_JLT, 4, off + (int32_t) bytes, 3), -1);
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (OSSD_BPF_DW, 5, 6, (int16_t) offsetof (struct ossd_kctx, col[c].data)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (sz, dd, 5, off), -1);
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_IMM (5, (int32_t) tg_below (r, 9)), -1);
        break;
      }
    case 13: case 14: case 15: case 16: /* conditional forward jump */
      {
        uint32_t remaining = total_units - unit_idx - 1;
        uint32_t t = unit_idx + 1 + (remaining ? tg_below (r, remaining < 12 ? remaining : 12) : 0);
        uint8_t cls = tg_chance (r, 70) ? OSSD_BPF_JMP : OSSD_BPF_JMP32;
        bool x = tg_chance (r, 40);
        uint8_t op = jops[tg_below (r, sizeof jops)];
        if (tg_chance (r, 5))
          cls = OSSD_BPF_JMP, op = OSSD_BPF_JA, x = false;
        tg_emit (p, (struct ossd_insn) OSSD_INSN ((uint8_t) (cls | op | (x ? OSSD_BPF_X : OSSD_BPF_K)),
                               op == OSSD_BPF_JA ? 0 : d, x ? TG_SREG (r) : 0, 0,
                               op == OSSD_BPF_JA || x ? 0 : (int32_t) tg_edge_int (r)), (int32_t) t);
        break;
      }
    case 17:                            /* scalar helper call; r1 = ctx again afterwards */
      {
        static const int32_t h[] = { OSSD_H_DATE_CMP, OSSD_H_TIMESTAMP_CMP, OSSD_H_FLOAT8_CMP,
                                     OSSD_H_FLOAT8_ADD, OSSD_H_FLOAT8_MUL, OSSD_H_FLOAT8_DIV,
                                     OSSD_H_FLOAT8_FROM_INT };
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_REG (1, TG_SREG (r)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_REG (2, TG_SREG (r)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_CALL (h[tg_below (r, sizeof h / sizeof h[0])]), -1);
        for (uint8_t k = 2; k <= 5; k++)
          tg_emit (p, (struct ossd_insn) OSSD_MOV64_IMM (k, (int32_t) tg_below (r, 100)), -1);
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_REG (1, 6), -1);
        break;
      }
    case 18:                            /* small bounded loop on r9 */
      {
        uint32_t iters = 1 + tg_below (r, 20), body = 1 + tg_below (r, 4);
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_IMM (9, 0), -1);
        for (uint32_t i = 0; i < body; i++)
          {
            uint8_t dd = TG_SREG (r);
            tg_alu (r, p, dd == 9 ? 0 : dd);
          }
        tg_emit (p, (struct ossd_insn) OSSD_ALU64_IMM (OSSD_BPF_ADD, 9, 1), -1);
        tg_emit (p, (struct ossd_insn) OSSD_JMP_IMM (OSSD_BPF_JLT, 9, (int32_t) iters, (int16_t) -(int) (body + 2)), -1);
        break;
      }
    default:                            /* 64-bit immediate (two slots) */
      {
        struct ossd_insn two[2] = { OSSD_LD_IMM64 (d, tg_edge_int (r)) };
        tg_emit (p, two[0], -1);
        tg_emit (p, two[1], -1);
      }
      break;
    }
}

/* Generates a program of about `units` body units. */
static inline void
tg_prog_gen (struct tg_rng *r, struct tg_prog *p, uint32_t units)
{
  memset (p, 0, sizeof *p);
  tg_unit (p);
  tg_emit (p, (struct ossd_insn) OSSD_MOV64_REG (6, 1), -1);
  for (int k = 0; k < 8; k++)
    tg_emit (p, (struct ossd_insn) OSSD_ST_MEM (OSSD_BPF_DW, 10, (int16_t) (-8 * (k + 1)), (int32_t) tg_edge_int (r)), -1);
  for (unsigned i = 0; i < sizeof tg_scalar_regs; i++)
    {
      uint8_t reg = tg_scalar_regs[i];
      if (tg_chance (r, 50))
        tg_emit (p, (struct ossd_insn) OSSD_LDX_MEM (OSSD_BPF_DW, reg, 6,
                                  (int16_t) offsetof (struct ossd_kctx, col[tg_below (r, 8)].value)), -1);
      else
        tg_emit (p, (struct ossd_insn) OSSD_MOV64_IMM (reg, (int32_t) tg_edge_int (r)), -1);
    }
  uint32_t first = p->nunits;
  for (uint32_t u = 0; u < units && p->n < TG_MAX_INSNS - 40; u++)
    tg_body_unit (r, p, u + first, first + units);
  /* the final unit: exit with r0 (jumps beyond the last unit land here) */
  tg_unit (p);
  uint32_t last = p->nunits - 1;
  tg_emit (p, (struct ossd_insn) OSSD_EXIT (), -1);
  for (uint32_t i = 0; i < p->n; i++)
    {
      if (p->unit_of_jump[i] < 0)
        continue;
      uint32_t t = (uint32_t) p->unit_of_jump[i];
      if (t > last)
        t = last;
      p->insn[i].off = (int16_t) ((int32_t) p->unit_start[t] - (int32_t) i - 1);
    }
}

#endif /* JIT_TESTGEN_H */
