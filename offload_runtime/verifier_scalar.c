/* verifier_scalar.c - value ranges of scalar registers: signed and
 * unsigned intervals kept consistent with each other, transfer functions
 * for the ALU (exact on constants through the shared ALU semantics,
 * sound intervals otherwise) and refinement on conditional jumps. */
#include "alu_eval.h"
#include "verifier_internal.h"

void
ossd_vreg_set_unknown (struct vreg *r)
{
  r->type = V_SCALAR;
  r->col = 0;
  r->smin = INT64_MIN;
  r->smax = INT64_MAX;
  r->umin = 0;
  r->umax = UINT64_MAX;
}

void
ossd_vreg_set_const (struct vreg *r, uint64_t v)
{
  r->type = V_SCALAR;
  r->col = 0;
  r->smin = r->smax = (int64_t) v;
  r->umin = r->umax = v;
}

void
ossd_vreg_set_urange (struct vreg *r, uint64_t umin, uint64_t umax)
{
  ossd_vreg_set_unknown (r);
  r->umin = umin;
  r->umax = umax;
  ossd_vreg_sync (r);
}

void
ossd_vreg_set_srange (struct vreg *r, int64_t smin, int64_t smax)
{
  ossd_vreg_set_unknown (r);
  r->smin = smin;
  r->smax = smax;
  ossd_vreg_sync (r);
}

bool
ossd_vreg_is_const (const struct vreg *r)
{
  return r->type == V_SCALAR && r->umin == r->umax;
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

bool
ossd_vreg_sync (struct vreg *r)
{
  if (r->smin > r->smax || r->umin > r->umax)
    return false;
  /* signed range within one sign half -> unsigned bounds */
  if (r->smin >= 0 || r->smax < 0)
    {
      r->umin = MAX (r->umin, (uint64_t) r->smin);
      r->umax = MIN (r->umax, (uint64_t) r->smax);
    }
  /* unsigned range within one sign half -> signed bounds */
  if (r->umax <= (uint64_t) INT64_MAX || r->umin > (uint64_t) INT64_MAX)
    {
      r->smin = MAX (r->smin, (int64_t) r->umin);
      r->smax = MIN (r->smax, (int64_t) r->umax);
    }
  return r->smin <= r->smax && r->umin <= r->umax;
}

/* 2^k - 1 covering v */
static uint64_t
bit_cover (uint64_t v)
{
  return v ? (~0ull >> __builtin_clzll (v)) : 0;
}

/* 64-bit interval transfer; constant operands were folded before. */
static void
alu64_ranges (uint8_t op, int16_t off, struct vreg *d, const struct vreg *s)
{
  struct vreg r;
  ossd_vreg_set_unknown (&r);
  switch (op)
    {
    case OSSD_BPF_ADD:
      {
        int64_t lo, hi;
        uint64_t ulo, uhi;
        if (!__builtin_add_overflow (d->smin, s->smin, &lo)
            && !__builtin_add_overflow (d->smax, s->smax, &hi))
          {
            r.smin = lo;
            r.smax = hi;
          }
        if (!__builtin_add_overflow (d->umin, s->umin, &ulo)
            && !__builtin_add_overflow (d->umax, s->umax, &uhi))
          {
            r.umin = ulo;
            r.umax = uhi;
          }
        break;
      }
    case OSSD_BPF_SUB:
      {
        int64_t lo, hi;
        if (!__builtin_sub_overflow (d->smin, s->smax, &lo)
            && !__builtin_sub_overflow (d->smax, s->smin, &hi))
          {
            r.smin = lo;
            r.smax = hi;
          }
        if (d->umin >= s->umax)
          {
            r.umin = d->umin - s->umax;
            r.umax = d->umax - s->umin;
          }
        break;
      }
    case OSSD_BPF_MUL:
      {
        uint64_t hi;
        if (!__builtin_mul_overflow (d->umax, s->umax, &hi))
          {
            r.umin = d->umin * s->umin;
            r.umax = hi;
          }
        break;
      }
    case OSSD_BPF_DIV:
      if (off == 0)
        r.umax = d->umax;       /* x/y <= x for y >= 1; x/0 = 0 */
      break;
    case OSSD_BPF_MOD:
      if (off == 0)
        r.umax = s->umin > 0 ? MIN (d->umax, s->umax - 1) : d->umax;
      break;
    case OSSD_BPF_AND:
      r.umax = MIN (d->umax, s->umax);
      break;
    case OSSD_BPF_OR:
      r.umin = MAX (d->umin, s->umin);
      r.umax = bit_cover (MAX (d->umax, s->umax));
      break;
    case OSSD_BPF_XOR:
      r.umax = bit_cover (MAX (d->umax, s->umax));
      break;
    case OSSD_BPF_LSH:
      if (ossd_vreg_is_const (s) && s->umin < 64)
        {
          unsigned k = (unsigned) s->umin;
          if (k == 0 || d->umax <= (UINT64_MAX >> k))
            {
              r.umin = d->umin << k;
              r.umax = d->umax << k;
            }
        }
      break;
    case OSSD_BPF_RSH:
      if (ossd_vreg_is_const (s))
        {
          unsigned k = (unsigned) (s->umin & 63);
          r.umin = d->umin >> k;
          r.umax = d->umax >> k;
        }
      else
        r.umax = d->umax;
      break;
    case OSSD_BPF_ARSH:
      if (ossd_vreg_is_const (s))
        {
          unsigned k = (unsigned) (s->umin & 63);
          r.smin = d->smin >> k;
          r.smax = d->smax >> k;
        }
      break;
    case OSSD_BPF_NEG:
      if (d->smin != INT64_MIN)
        {
          r.smin = -d->smax;
          r.smax = -d->smin;
        }
      break;
    case OSSD_BPF_MOV:
      if (off == 0)
        r = *s;
      else
        {
          int64_t lim = (int64_t) 1 << (off - 1);
          r.smin = -lim;
          r.smax = lim - 1;
          if (s->umax < (uint64_t) lim)
            {
              r.umin = s->umin;  /* sign bit clear: value unchanged */
              r.umax = s->umax;
              r.smin = (int64_t) s->umin;
              r.smax = (int64_t) s->umax;
            }
        }
      break;
    default:
      break;
    }
  if (!ossd_vreg_sync (&r))
    ossd_vreg_set_unknown (&r);
  *d = r;
}

static void
to_u32_range (const struct vreg *a, struct vreg *out)
{
  if (a->umax <= UINT32_MAX)
    *out = *a;
  else
    ossd_vreg_set_urange (out, 0, UINT32_MAX);
}

void
ossd_scalar_alu (uint8_t code, int16_t off, int32_t imm, struct vreg *dst,
            const struct vreg *src)
{
  uint8_t op = OSSD_BPF_OP (code);
  bool is64 = OSSD_BPF_CLASS (code) == OSSD_BPF_ALU64;
  bool src_used = op != OSSD_BPF_NEG && op != OSSD_BPF_END;
  bool dst_used = op != OSSD_BPF_MOV;

  if ((!dst_used || ossd_vreg_is_const (dst)) && (!src_used || ossd_vreg_is_const (src)))
    {
      uint64_t r = ossd_alu_eval (code, off, imm, dst->umin, src->umin);
      ossd_vreg_set_const (dst, r);
      return;
    }
  if (op == OSSD_BPF_END)
    {
      if (OSSD_BPF_CLASS (code) == OSSD_BPF_ALU && OSSD_BPF_SRC (code) == OSSD_BPF_K
          && imm < 64 && dst->umax < (1ull << imm))
        return;                 /* to-LE truncation of a value that fits */
      ossd_vreg_set_urange (dst, 0, imm == 64 ? UINT64_MAX : (1ull << imm) - 1);
      return;
    }
  if (is64)
    {
      alu64_ranges (op, off, dst, src);
      return;
    }
  /* 32-bit: compute on the 32-bit views; keep it if no wrap-around. */
  struct vreg d32, s32;
  to_u32_range (dst, &d32);
  to_u32_range (src, &s32);
  if (op == OSSD_BPF_ARSH || op == OSSD_BPF_NEG || off != 0)
    {
      ossd_vreg_set_urange (dst, 0, UINT32_MAX);
      return;
    }
  if ((op == OSSD_BPF_LSH || op == OSSD_BPF_RSH) && ossd_vreg_is_const (&s32))
    ossd_vreg_set_const (&s32, s32.umin & 31);
  else if (op == OSSD_BPF_LSH || op == OSSD_BPF_RSH)
    {
      ossd_vreg_set_urange (dst, 0, op == OSSD_BPF_RSH ? d32.umax : UINT32_MAX);
      return;
    }
  alu64_ranges (op, 0, &d32, &s32);
  if (d32.smin >= 0 && d32.umax <= UINT32_MAX)
    *dst = d32;
  else
    ossd_vreg_set_urange (dst, 0, UINT32_MAX);
}

static uint8_t
negate_op (uint8_t op)
{
  switch (op)
    {
    case OSSD_BPF_JEQ: return OSSD_BPF_JNE;
    case OSSD_BPF_JNE: return OSSD_BPF_JEQ;
    case OSSD_BPF_JGT: return OSSD_BPF_JLE;
    case OSSD_BPF_JLE: return OSSD_BPF_JGT;
    case OSSD_BPF_JGE: return OSSD_BPF_JLT;
    case OSSD_BPF_JLT: return OSSD_BPF_JGE;
    case OSSD_BPF_JSGT: return OSSD_BPF_JSLE;
    case OSSD_BPF_JSLE: return OSSD_BPF_JSGT;
    case OSSD_BPF_JSGE: return OSSD_BPF_JSLT;
    case OSSD_BPF_JSLT: return OSSD_BPF_JSGE;
    default: return 0;
    }
}

/* a > b (unsigned) holds */
static bool
refine_ugt (struct vreg *a, struct vreg *b, bool or_equal)
{
  uint64_t d = or_equal ? 0 : 1;
  if (!or_equal && (b->umin == UINT64_MAX || a->umax == 0))
    return false;
  a->umin = MAX (a->umin, b->umin + d);
  b->umax = MIN (b->umax, a->umax - d);
  return ossd_vreg_sync (a) && ossd_vreg_sync (b);
}

static bool
refine_sgt (struct vreg *a, struct vreg *b, bool or_equal)
{
  int64_t d = or_equal ? 0 : 1;
  if (!or_equal && (b->smin == INT64_MAX || a->smax == INT64_MIN))
    return false;
  a->smin = MAX (a->smin, b->smin + d);
  b->smax = MIN (b->smax, a->smax - d);
  return ossd_vreg_sync (a) && ossd_vreg_sync (b);
}

static bool
refine_ne (struct vreg *a, const struct vreg *b)
{
  if (!ossd_vreg_is_const (b))
    return true;
  uint64_t c = b->umin;
  if (ossd_vreg_is_const (a))
    return a->umin != c;
  if (a->umin == c)
    a->umin++;
  else if (a->umax == c)
    a->umax--;
  if (a->smin == (int64_t) c)
    a->smin++;
  else if (a->smax == (int64_t) c)
    a->smax--;
  return ossd_vreg_sync (a);
}

bool
ossd_scalar_refine (uint8_t code, bool taken, struct vreg *a, struct vreg *b)
{
  uint8_t op = OSSD_BPF_OP (code);
  bool is32 = OSSD_BPF_CLASS (code) == OSSD_BPF_JMP32;

  if (ossd_vreg_is_const (a) && ossd_vreg_is_const (b))
    return ossd_jmp_eval (code, a->umin, b->umin) == taken;
  if (op == OSSD_BPF_JSET)
    {
      if (taken)
        return a->umax != 0 && b->umax != 0;
      return true;
    }
  if (is32)
    {
      /* the low 32 bits equal the value, and signed 32-bit order equals
       * 64-bit order, only for values in [0, INT32_MAX] */
      if (a->umax > INT32_MAX || b->umax > INT32_MAX)
        return true;
    }
  if (!taken)
    op = negate_op (op);
  switch (op)
    {
    case OSSD_BPF_JEQ:
      a->smin = b->smin = MAX (a->smin, b->smin);
      a->smax = b->smax = MIN (a->smax, b->smax);
      a->umin = b->umin = MAX (a->umin, b->umin);
      a->umax = b->umax = MIN (a->umax, b->umax);
      return ossd_vreg_sync (a) && ossd_vreg_sync (b);
    case OSSD_BPF_JNE:
      return refine_ne (a, b) && refine_ne (b, a);
    case OSSD_BPF_JGT: return refine_ugt (a, b, false);
    case OSSD_BPF_JGE: return refine_ugt (a, b, true);
    case OSSD_BPF_JLT: return refine_ugt (b, a, false);
    case OSSD_BPF_JLE: return refine_ugt (b, a, true);
    case OSSD_BPF_JSGT: return refine_sgt (a, b, false);
    case OSSD_BPF_JSGE: return refine_sgt (a, b, true);
    case OSSD_BPF_JSLT: return refine_sgt (b, a, false);
    case OSSD_BPF_JSLE: return refine_sgt (b, a, true);
    default: return true;
    }
}
