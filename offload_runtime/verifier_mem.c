/* verifier_mem.c - the verifier's memory model: loads, stores, helper
 * arguments and pointer arithmetic.  Owns the region rules: ctx header and
 * columns read-only (col[i].data reads yield column pointers), ctx->out
 * read/write and never receives a pointer, stack per-byte initialisation
 * and spills, rodata read-only and constant-folded, column data read-only
 * with a run-time check. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "verifier_internal.h"

#define CTX_SIZE ((int64_t) sizeof (struct ossd_kctx))
#define COL_BASE ((int64_t) offsetof (struct ossd_kctx, col))
#define OUT_BASE ((int64_t) offsetof (struct ossd_kctx, out))
#define COL_SIZE ((int64_t) sizeof (struct ossd_col))
#define COL_DATA_OFF ((int64_t) offsetof (struct ossd_col, data))
#define NUMERIC_SIZE ((int64_t) sizeof (struct ossd_numeric))

static const uint8_t size_bytes[4] = { 4, 2, 1, 8 };

const char *
ossd_vtype_name (uint8_t t)
{
  switch (t)
    {
    case V_UNINIT: return "uninitialised";
    case V_SCALAR: return "scalar";
    case V_PTR_CTX: return "ctx pointer";
    case V_PTR_STACK: return "stack pointer";
    case V_PTR_RODATA: return "rodata pointer";
    case V_PTR_COLDATA: return "column data pointer";
    default: return "?";
    }
}

static bool
is_ptr (const struct vreg *r)
{
  return r->type >= V_PTR_CTX;
}

/* Records the region of an access in the instruction's annotation; the
 * same instruction must use the same kind of region on every path. */
static int
note_region (struct verifier *v, uint32_t pc, uint8_t *region, uint8_t *col,
             uint8_t new_region, uint8_t new_col, const char *what)
{
  if (*region == OSSD_REGION_NONE)
    {
      *region = new_region;
      *col = new_col;
      return 0;
    }
  /* ctx and out are the same pointer kind; widen to ctx */
  if ((*region == OSSD_REGION_CTX || *region == OSSD_REGION_OUT)
      && (new_region == OSSD_REGION_CTX || new_region == OSSD_REGION_OUT))
    {
      if (*region != new_region)
        *region = OSSD_REGION_CTX;
      return 0;
    }
  if (*region != new_region)
    return ossd_vreject (v, pc, "%s uses different kinds of memory on different paths", what);
  if (*col != new_col)
    *col = OSSD_AUX_COL_ANY;
  return 0;
}

/* Which ctx->col[i].data field [lo, hi) overlaps, or -1. */
static int
ctx_ptr_field_overlap (int64_t lo, int64_t hi, int64_t *field_off)
{
  for (int i = 0; i < OSSD_KCTX_MAX_COLS; i++)
    {
      int64_t f = COL_BASE + i * COL_SIZE + COL_DATA_OFF;
      if (lo < f + 8 && hi > f)
        {
          *field_off = f;
          return i;
        }
    }
  return -1;
}

/* Access of [p + off, p + off + size) with size in [0, size_max]. */
struct access
{
  int64_t lo, hi;       /* byte range (hi exclusive, for the largest size) */
  uint8_t region, col;
  bool check;           /* run-time check needed */
};

static int
check_access (struct verifier *v, uint32_t pc, const struct vreg *p,
              int reg, int64_t off, uint64_t size_max, bool write,
              const char *what, struct access *a)
{
  memset (a, 0, sizeof *a);
  if (p->type == V_UNINIT)
    return ossd_vreject (v, pc, "%s through uninitialised register r%d", what, reg);
  if (p->type == V_SCALAR)
    return ossd_vreject (v, pc, "%s through scalar r%d (not a pointer)", what, reg);
  if (p->type == V_PTR_COLDATA)
    {
      if (write)
        return ossd_vreject (v, pc, "%s: write to read-only column data", what);
      a->region = OSSD_REGION_COLDATA;
      a->col = p->col;
      a->check = true;
      return 0;
    }
  if (size_max > (1u << 20)
      || __builtin_add_overflow (p->smin, off, &a->lo)
      || __builtin_add_overflow (p->smax, off, &a->hi)
      || __builtin_add_overflow (a->hi, (int64_t) size_max, &a->hi))
    return ossd_vreject (v, pc, "%s: access size or offset not bounded", what);
  switch (p->type)
    {
    case V_PTR_STACK:
      if (a->lo < -OSSD_STACK_SIZE || a->hi > 0)
        return ossd_vreject (v, pc, "%s: stack access out of bounds (fp%+lld..fp%+lld)",
                        what, (long long) a->lo, (long long) a->hi);
      a->region = OSSD_REGION_STACK;
      if ((uint32_t) -a->lo > v->max_stack)
        v->max_stack = (uint32_t) -a->lo;
      return 0;
    case V_PTR_RODATA:
      if (write)
        return ossd_vreject (v, pc, "%s: write to read-only data", what);
      if (a->lo < 0 || a->hi > (int64_t) v->prog->rodata_len)
        return ossd_vreject (v, pc, "%s: read-only data access out of bounds "
                        "(offset %lld..%lld, %u bytes)", what, (long long) a->lo,
                        (long long) a->hi, v->prog->rodata_len);
      a->region = OSSD_REGION_RODATA;
      return 0;
    case V_PTR_CTX:
      if (a->lo < 0 || a->hi > CTX_SIZE)
        return ossd_vreject (v, pc, "%s: ctx access out of bounds (offset %lld, size %llu)",
                        what, (long long) a->lo, (unsigned long long) size_max);
      if (write && a->lo < OUT_BASE)
        return ossd_vreject (v, pc, "%s: write to read-only ctx field at offset %lld",
                        what, (long long) a->lo);
      a->region = a->lo >= OUT_BASE ? OSSD_REGION_OUT : OSSD_REGION_CTX;
      if (write)
        v->writes_out = true;
      else
        {
          /* which arguments the kernel takes: the columns it can read */
          int64_t clo = a->lo > COL_BASE ? a->lo : COL_BASE;
          int64_t chi = a->hi < OUT_BASE ? a->hi : OUT_BASE;
          if (clo < chi && (uint32_t) ((chi - 1 - COL_BASE) / COL_SIZE) + 1 > v->ncols_read)
            v->ncols_read = (uint32_t) ((chi - 1 - COL_BASE) / COL_SIZE) + 1;
          if (a->lo < (int64_t) sizeof (((struct ossd_kctx *) 0)->ncols))
            v->reads_ncols = true;
        }
      return 0;
    default:
      return ossd_vreject (v, pc, "%s through %s", what, ossd_vtype_name (p->type));
    }
}

/* Stack bytes [lo, hi) readable as data (no uninitialised byte, no piece of
 * a spilled pointer)? */
static int
stack_readable (struct verifier *v, uint32_t pc, const struct vstate *s,
                int64_t lo, int64_t hi, const char *what)
{
  for (int64_t b = lo; b < hi; b++)
    {
      uint8_t k = s->sbyte[OSSD_STACK_SIZE + b];
      if (k == SB_UNINIT)
        return ossd_vreject (v, pc, "%s: read of uninitialised stack at fp%+lld", what,
                        (long long) b);
      if (k == SB_SPILL && is_ptr (&s->spill[(OSSD_STACK_SIZE + b) / 8]))
        return ossd_vreject (v, pc, "%s: partial read of a spilled pointer at fp%+lld",
                        what, (long long) b);
    }
  return 0;
}

/* Bytes [lo, hi) of the stack now hold data; spills they cut into lose
 * their register state (a cut pointer becomes unreadable). */
static void
stack_mark_data (struct vstate *s, int64_t lo, int64_t hi, bool maybe)
{
  for (int64_t slot = (OSSD_STACK_SIZE + lo) / 8;
       slot <= (OSSD_STACK_SIZE + hi - 1) / 8; slot++)
    {
      if (s->sbyte[slot * 8] != SB_SPILL)
        continue;
      uint8_t rest = is_ptr (&s->spill[slot]) ? SB_UNINIT : SB_DATA;
      for (int k = 0; k < 8; k++)
        s->sbyte[slot * 8 + k] = rest;
    }
  if (maybe)
    return;             /* variable-offset write: bytes stay as they were */
  for (int64_t b = lo; b < hi; b++)
    s->sbyte[OSSD_STACK_SIZE + b] = SB_DATA;
}

static void
set_sized_unknown (struct vreg *r, unsigned bytes, bool sx)
{
  if (bytes == 8)
    ossd_vreg_set_unknown (r);
  else if (sx)
    ossd_vreg_set_srange (r, -((int64_t) 1 << (bytes * 8 - 1)),
                     ((int64_t) 1 << (bytes * 8 - 1)) - 1);
  else
    ossd_vreg_set_urange (r, 0, (1ull << (bytes * 8)) - 1);
}

int
ossd_verifier_check_load (struct verifier *v, struct vstate *s, uint32_t pc)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  struct ossd_insn_aux *ax = &v->prog->aux[pc];
  const struct vreg *p = &s->r[in->src_reg];
  unsigned size = size_bytes[OSSD_BPF_SIZE (in->code) >> 3];
  bool sx = OSSD_BPF_MODE (in->code) == OSSD_BPF_MEMSX;
  struct access a;
  struct vreg res;
  int rc;

  if ((rc = check_access (v, pc, p, in->src_reg, in->off, size, false, "load", &a)) < 0)
    return rc;
  if ((rc = note_region (v, pc, &ax->region, &ax->col, a.region, a.col, "load")) < 0)
    return rc;
  if (a.check)
    ax->flags |= OSSD_AUX_CHECK;
  set_sized_unknown (&res, size, sx);

  switch (p->type)
    {
    case V_PTR_STACK:
      {
        int64_t lo = a.lo;
        int slot = (int) ((OSSD_STACK_SIZE + lo) / 8);
        if (p->smin == p->smax && size == 8 && (lo & 7) == 0
            && s->sbyte[OSSD_STACK_SIZE + lo] == SB_SPILL)
          {
            res = s->spill[slot];   /* restore a spilled register */
            break;
          }
        if ((rc = stack_readable (v, pc, s, a.lo, a.hi, "load")) < 0)
          return rc;
        break;
      }
    case V_PTR_CTX:
      {
        int64_t f;
        int col = ctx_ptr_field_overlap (a.lo, a.hi, &f);
        if (col >= 0)
          {
            if (a.lo != f || size != 8 || sx)
              return ossd_vreject (v, pc, "partial read of pointer field ctx->col[%d].data", col);
            memset (&res, 0, sizeof res);
            res.type = V_PTR_COLDATA;
            res.col = (uint8_t) col;
            ax->flags |= OSSD_AUX_COLPTR;
          }
        break;
      }
    case V_PTR_RODATA:
      if (p->smin == p->smax)
        {
          uint64_t val = 0;
          memcpy (&val, v->prog->rodata + a.lo, size);
          if (sx)
            val = (uint64_t) ((int64_t) (val << (64 - 8 * size)) >> (64 - 8 * size));
          ossd_vreg_set_const (&res, val);
        }
      break;
    default:
      break;
    }
  s->r[in->dst_reg] = res;
  return 0;
}

int
ossd_verifier_check_store (struct verifier *v, struct vstate *s, uint32_t pc)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  struct ossd_insn_aux *ax = &v->prog->aux[pc];
  const struct vreg *p = &s->r[in->dst_reg];
  unsigned size = size_bytes[OSSD_BPF_SIZE (in->code) >> 3];
  struct vreg val;
  struct access a;
  int rc;

  if (OSSD_BPF_CLASS (in->code) == OSSD_BPF_STX)
    {
      val = s->r[in->src_reg];
      if (val.type == V_UNINIT)
        return ossd_vreject (v, pc, "store of uninitialised register r%d", in->src_reg);
    }
  else
    ossd_vreg_set_const (&val, (uint64_t) (int64_t) in->imm);

  if ((rc = check_access (v, pc, p, in->dst_reg, in->off, size, true, "store", &a)) < 0)
    return rc;
  if ((rc = note_region (v, pc, &ax->region, &ax->col, a.region, a.col, "store")) < 0)
    return rc;
  if (a.check)
    ax->flags |= OSSD_AUX_CHECK;

  if (p->type == V_PTR_CTX && is_ptr (&val))
    return ossd_vreject (v, pc, "pointer leak: storing a %s into ctx->out", ossd_vtype_name (val.type));
  if (p->type == V_PTR_STACK)
    {
      bool fixed = p->smin == p->smax;
      if (is_ptr (&val) && (!fixed || size != 8 || (a.lo & 7) != 0))
        return ossd_vreject (v, pc, "pointer spill must be an aligned 8-byte store at a fixed offset");
      if (fixed && size == 8 && (a.lo & 7) == 0)
        {
          int slot = (int) ((OSSD_STACK_SIZE + a.lo) / 8);
          memset (&s->sbyte[slot * 8], SB_SPILL, 8);
          s->spill[slot] = val;
        }
      else
        stack_mark_data (s, a.lo, a.hi, !fixed);
    }
  return 0;
}

/* Checks one pointer argument of a helper. */
static int
check_helper_mem_arg (struct verifier *v, struct vstate *s, uint32_t pc,
                      const struct ossd_helper_proto *h, int k, uint64_t size_max,
                      bool write, struct access *a)
{
  const struct vreg *p = &s->r[k + 1];
  char what[64];
  int rc;
  snprintf (what, sizeof what, "helper %s arg %d", h->name, k + 1);
  if (!is_ptr (p))
    return ossd_vreject (v, pc, "%s: expected pointer to %s memory, got %s", what,
                    write ? "writable" : "readable", ossd_vtype_name (p->type));
  if (write && p->type != V_PTR_STACK && p->type != V_PTR_CTX)
    return ossd_vreject (v, pc, "%s: expected pointer to writable memory (stack or ctx->out), got %s",
                    what, ossd_vtype_name (p->type));
  if ((rc = check_access (v, pc, p, k + 1, 0, size_max, write, what, a)) < 0)
    return rc;
  if (p->type == V_PTR_STACK)
    {
      if (write)
        {
          if (p->smin != p->smax)
            return ossd_vreject (v, pc, "%s: variable offset into the stack", what);
          stack_mark_data (s, a->lo, a->hi, false);
        }
      else if ((rc = stack_readable (v, pc, s, a->lo, a->hi, what)) < 0)
        return rc;
    }
  if (p->type == V_PTR_CTX && !write)
    {
      int64_t f;
      int col = ctx_ptr_field_overlap (a->lo, a->hi, &f);
      if (col >= 0)
        return ossd_vreject (v, pc, "%s: would read pointer field ctx->col[%d].data", what, col);
    }
  return 0;
}

int
ossd_verifier_check_call (struct verifier *v, struct vstate *s, uint32_t pc)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  struct ossd_insn_aux *ax = &v->prog->aux[pc];
  const struct ossd_helper_proto *h = ossd_helper_lookup (in->imm);
  int rc;

  if (!h)
    return ossd_vreject (v, pc, "unknown helper %d", in->imm);
  for (int k = 0; k < h->nargs; k++)
    {
      const struct vreg *r = &s->r[k + 1];
      struct access a;
      if (r->type == V_UNINIT)
        return ossd_vreject (v, pc, "helper %s arg %d: uninitialised register r%d",
                        h->name, k + 1, k + 1);
      switch (h->arg[k])
        {
        case OSSD_ARG_SCALAR:
        case OSSD_ARG_MEM_SIZE:
          if (r->type != V_SCALAR)
            return ossd_vreject (v, pc, "helper %s arg %d: expected scalar, got %s",
                            h->name, k + 1, ossd_vtype_name (r->type));
          continue;
        case OSSD_ARG_NUMERIC_RO:
        case OSSD_ARG_NUMERIC_W:
          rc = check_helper_mem_arg (v, s, pc, h, k, NUMERIC_SIZE,
                                     h->arg[k] == OSSD_ARG_NUMERIC_W, &a);
          break;
        case OSSD_ARG_MEM_RO:
          {
            const struct vreg *sz = &s->r[k + 2];
            if (sz->type != V_SCALAR)
              return ossd_vreject (v, pc, "helper %s arg %d: expected size (scalar), got %s",
                              h->name, k + 2, ossd_vtype_name (sz->type));
            if (r->type != V_PTR_COLDATA && sz->umax > (1u << 20))
              return ossd_vreject (v, pc, "helper %s arg %d: memory size not bounded",
                              h->name, k + 2);
            rc = check_helper_mem_arg (v, s, pc, h, k,
                                       r->type == V_PTR_COLDATA ? 0 : sz->umax,
                                       false, &a);
            break;
          }
        default:
          return ossd_vreject (v, pc, "helper %s: bad prototype", h->name);
        }
      if (rc < 0)
        return rc;
      if ((rc = note_region (v, pc, &ax->arg_region[k], &ax->arg_col[k], a.region,
                             a.col, "helper argument")) < 0)
        return rc;
      if (a.check)
        ax->arg_check |= (uint8_t) (1u << k);
    }
  for (int k = 1; k <= 5; k++)
    s->r[k].type = V_UNINIT;
  ossd_vreg_set_srange (&s->r[0], h->ret_min, h->ret_max);
  return 0;
}

static bool
offset_in_bounds (struct verifier *v, const struct vreg *p)
{
  switch (p->type)
    {
    case V_PTR_CTX:
      return p->smin == p->smax && p->smin >= 0 && p->smax <= CTX_SIZE;
    case V_PTR_STACK:
      return p->smin >= -OSSD_STACK_SIZE && p->smax <= 0;
    case V_PTR_RODATA:
      return p->smin >= 0 && p->smax <= (int64_t) v->prog->rodata_len;
    default:
      return true;
    }
}

/* ALU instruction with a pointer operand. */
int
ossd_verifier_ptr_alu (struct verifier *v, struct vstate *s, uint32_t pc)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  uint8_t op = OSSD_BPF_OP (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  struct vreg *d = &s->r[in->dst_reg];
  struct vreg src;
  if (x)
    src = s->r[in->src_reg];
  else
    ossd_vreg_set_const (&src, (uint64_t) (int64_t) in->imm);

  if (OSSD_BPF_CLASS (in->code) == OSSD_BPF_ALU)
    return ossd_vreject (v, pc, "32-bit arithmetic on a pointer");
  if (op == OSSD_BPF_MOV)
    {
      if (in->off)
        return ossd_vreject (v, pc, "sign-extending move of a pointer");
      *d = src;
      return 0;
    }
  if (d->type == V_UNINIT || src.type == V_UNINIT)
    return ossd_vreject (v, pc, "read of uninitialised register r%d",
                    d->type == V_UNINIT ? in->dst_reg : in->src_reg);
  if (op == OSSD_BPF_SUB && is_ptr (d) && is_ptr (&src))
    {
      if (d->type != src.type || d->col != src.col)
        return ossd_vreject (v, pc, "subtraction of pointers to different regions");
      if (d->type != V_PTR_COLDATA && d->smin == d->smax && src.smin == src.smax)
        ossd_vreg_set_const (d, (uint64_t) (d->smin - src.smin));
      else
        ossd_vreg_set_unknown (d);
      return 0;
    }
  if (op == OSSD_BPF_SUB && !is_ptr (d))
    return ossd_vreject (v, pc, "invalid arithmetic on a pointer (scalar minus pointer)");
  if (op == OSSD_BPF_ADD && is_ptr (d) && is_ptr (&src))
    return ossd_vreject (v, pc, "addition of two pointers");
  if (op == OSSD_BPF_ADD && !is_ptr (d))
    {
      /* scalar + pointer: swap so d is the pointer */
      struct vreg t = *d;
      *d = src;
      src = t;
    }
  else if (op != OSSD_BPF_ADD && op != OSSD_BPF_SUB)
    return ossd_vreject (v, pc, "invalid arithmetic on a pointer (opcode 0x%02x)", in->code);

  /* d is a pointer, src a scalar: move the offset range */
  if (d->type == V_PTR_CTX && !ossd_vreg_is_const (&src))
    return ossd_vreject (v, pc, "variable offset into ctx");
  int64_t lo, hi;
  bool ovf;
  if (op == OSSD_BPF_ADD)
    ovf = __builtin_add_overflow (d->smin, src.smin, &lo)
      || __builtin_add_overflow (d->smax, src.smax, &hi);
  else
    ovf = __builtin_sub_overflow (d->smin, src.smax, &lo)
      || __builtin_sub_overflow (d->smax, src.smin, &hi);
  if (ovf)
    {
      if (d->type != V_PTR_COLDATA)
        return ossd_vreject (v, pc, "pointer arithmetic out of bounds (%s offset overflows)",
                        ossd_vtype_name (d->type));
      lo = INT64_MIN;
      hi = INT64_MAX;
    }
  d->smin = lo;
  d->smax = hi;
  if (!offset_in_bounds (v, d))
    return ossd_vreject (v, pc, "pointer arithmetic out of bounds (%s offset %lld..%lld)",
                    ossd_vtype_name (d->type), (long long) lo, (long long) hi);
  return 0;
}
