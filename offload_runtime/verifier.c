/* verifier.c - ossd_prog_verify(): path exploration over the abstract
 * state (verifier_internal.h).  Explores every path depth-first; at jump
 * targets it keeps states and prunes a path whose state is contained in a
 * completely explored one (registers compared only where live).  Reaching
 * a state contained in one still being explored on the same path means a
 * loop that cannot be shown to terminate: rejected.  Bounded loops are
 * otherwise unrolled, up to OSSD_VERIFIER_MAX_STEPS instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier_internal.h"

#define MAX_STORED_PER_INSN 64
#define MAX_STORED_TOTAL 8192

int
ossd_vreject (struct verifier *v, uint32_t pc, const char *fmt, ...)
{
  if (v->log && v->loglen)
    {
      va_list ap;
      int n = snprintf (v->log, v->loglen, "insn %u: ", pc);
      if (n >= 0 && (size_t) n < v->loglen)
        {
          va_start (ap, fmt);
          vsnprintf (v->log + n, v->loglen - n, fmt, ap);
          va_end (ap);
        }
    }
  return -EINVAL;
}

static bool
is_ptr (const struct vreg *r)
{
  return r->type >= V_PTR_CTX;
}

static bool
reg_contains (const struct vreg *o, const struct vreg *c)
{
  if (o->type == V_UNINIT)
    return true;
  if (o->type != c->type)
    return false;
  if (o->type == V_SCALAR)
    return c->smin >= o->smin && c->smax <= o->smax && c->umin >= o->umin
      && c->umax <= o->umax;
  return o->col == c->col && c->smin >= o->smin && c->smax <= o->smax;
}

/* Is every concrete state of cur also a state of old (as far as the rest
 * of the program can observe)? */
static bool
state_contains (const struct verifier *v, uint32_t pc, const struct vstate *old,
                const struct vstate *cur)
{
  uint16_t live = v->live[pc] | (1u << OSSD_R10);
  for (int r = 0; r < OSSD_NREGS; r++)
    if ((live & (1u << r)) && !reg_contains (&old->r[r], &cur->r[r]))
      return false;
  for (int slot = 0; slot < NSLOTS; slot++)
    {
      const uint8_t *ob = &old->sbyte[slot * 8], *cb = &cur->sbyte[slot * 8];
      if (ob[0] == SB_SPILL)
        {
          if (cb[0] != SB_SPILL || !reg_contains (&old->spill[slot], &cur->spill[slot]))
            return false;
          continue;
        }
      for (int k = 0; k < 8; k++)
        {
          if (ob[k] == SB_UNINIT)
            continue;
          /* old: data; cur must be data or a spilled scalar */
          if (cb[k] == SB_UNINIT || (cb[k] == SB_SPILL && is_ptr (&cur->spill[slot])))
            return false;
        }
    }
  return true;
}

static void
path_fork (struct stored_state *p)
{
  for (; p; p = p->parent)
    p->branches++;
}

static void
path_end (struct stored_state *p)
{
  for (; p; p = p->parent)
    p->branches--;
}

static int
push_pending (struct verifier *v, const struct vstate *st, uint32_t pc,
              struct stored_state *parent)
{
  if (v->nwork == v->capwork)
    {
      uint32_t cap = v->capwork ? v->capwork * 2 : 16;
      struct pending *w = realloc (v->work, cap * sizeof *w);
      if (!w)
        return ossd_vreject (v, pc, "out of memory");
      v->work = w;
      v->capwork = cap;
    }
  v->work[v->nwork].st = *st;
  v->work[v->nwork].pc = pc;
  v->work[v->nwork].parent = parent;
  v->nwork++;
  path_fork (parent);
  return 0;
}

static int
do_alu (struct verifier *v, struct vstate *s, uint32_t pc)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  struct ossd_insn_aux *ax = &v->prog->aux[pc];
  uint8_t op = OSSD_BPF_OP (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  bool is64 = OSSD_BPF_CLASS (in->code) == OSSD_BPF_ALU64;
  struct vreg *d = &s->r[in->dst_reg], src;

  if (x && op != OSSD_BPF_END && s->r[in->src_reg].type == V_UNINIT)
    return ossd_vreject (v, pc, "read of uninitialised register r%d", in->src_reg);
  if (op != OSSD_BPF_MOV && d->type == V_UNINIT)
    return ossd_vreject (v, pc, "read of uninitialised register r%d", in->dst_reg);
  if ((op != OSSD_BPF_MOV && is_ptr (d)) || (x && op != OSSD_BPF_END && is_ptr (&s->r[in->src_reg])))
    return ossd_verifier_ptr_alu (v, s, pc);
  if (x && op != OSSD_BPF_END)
    src = s->r[in->src_reg];
  else
    ossd_vreg_set_const (&src, is64 ? (uint64_t) (int64_t) in->imm
                    : (uint64_t) (uint32_t) in->imm);
  if (op == OSSD_BPF_DIV || op == OSSD_BPF_MOD)
    {
      bool may_zero = is64 ? src.umin == 0
        : !(src.umax <= UINT32_MAX && src.umin > 0);
      if (may_zero)
        ax->flags |= OSSD_AUX_DIV_ZERO;
      if (in->off == 1)
        {
          bool may_m1 = is64 ? (src.smin <= -1 && src.smax >= -1)
            : !(src.umax <= INT32_MAX);
          if (may_m1)
            ax->flags |= OSSD_AUX_DIV_OVF;
        }
    }
  ossd_scalar_alu (in->code, in->off, in->imm, d, &src);
  return 0;
}

/* Conditional jump: fills the states of the two outcomes. */
static int
do_cond_jump (struct verifier *v, const struct vstate *s, uint32_t pc,
              struct vstate *taken, bool *can_take, struct vstate *fall,
              bool *can_fall)
{
  const struct ossd_insn *in = &v->prog->insns[pc];
  uint8_t op = OSSD_BPF_OP (in->code);
  bool x = OSSD_BPF_SRC (in->code) == OSSD_BPF_X;
  bool is32 = OSSD_BPF_CLASS (in->code) == OSSD_BPF_JMP32;
  struct vreg d = s->r[in->dst_reg], src;

  if (d.type == V_UNINIT)
    return ossd_vreject (v, pc, "read of uninitialised register r%d", in->dst_reg);
  if (x)
    {
      src = s->r[in->src_reg];
      if (src.type == V_UNINIT)
        return ossd_vreject (v, pc, "read of uninitialised register r%d", in->src_reg);
    }
  else
    ossd_vreg_set_const (&src, (uint64_t) (int64_t) in->imm);
  *taken = *s;
  *fall = *s;
  *can_take = *can_fall = true;

  if (is_ptr (&d) || is_ptr (&src))
    {
      if (is32)
        return ossd_vreject (v, pc, "32-bit comparison of a pointer");
      if (is_ptr (&d) && is_ptr (&src))
        {
          if (d.type != src.type || d.col != src.col)
            return ossd_vreject (v, pc, "comparison of pointers to different regions");
          if (op == OSSD_BPF_JSET)
            return ossd_vreject (v, pc, "bit test on a pointer");
          return 0;             /* both outcomes, no refinement */
        }
      const struct vreg *p = is_ptr (&d) ? &d : &src, *k = is_ptr (&d) ? &src : &d;
      if (!(ossd_vreg_is_const (k) && k->umin == 0) || (op != OSSD_BPF_JEQ && op != OSSD_BPF_JNE))
        return ossd_vreject (v, pc, "pointer comparison with a scalar (only == / != NULL allowed)");
      if (p->type != V_PTR_COLDATA)
        {
          /* ctx, stack and rodata pointers are never NULL */
          *can_take = op == OSSD_BPF_JNE;
          *can_fall = op == OSSD_BPF_JEQ;
        }
      return 0;
    }
  struct vreg td = d, ts = src, fd = d, fs = src;
  *can_take = ossd_scalar_refine (in->code, true, &td, &ts);
  *can_fall = ossd_scalar_refine (in->code, false, &fd, &fs);
  taken->r[in->dst_reg] = td;
  fall->r[in->dst_reg] = fd;
  if (x && in->src_reg != in->dst_reg)
    {
      taken->r[in->src_reg] = ts;
      fall->r[in->src_reg] = fs;
    }
  return 0;
}

/* Explores one path from (state, pc) until it ends; may push branches. */
static int
explore_path (struct verifier *v, struct vstate *s, uint32_t pc,
              struct stored_state *parent)
{
  const struct ossd_prog *prog = v->prog;
  struct vstate taken, fall;
  int rc;

  for (;;)
    {
      const struct ossd_insn *in = &prog->insns[pc];
      uint8_t cls = OSSD_BPF_CLASS (in->code), op = OSSD_BPF_OP (in->code);

      if (++v->steps > OSSD_VERIFIER_MAX_STEPS)
        return ossd_vreject (v, pc, "program too complex: %u instructions processed "
                        "(loop not provably bounded?)", (unsigned) OSSD_VERIFIER_MAX_STEPS);
      prog->aux[pc].flags |= OSSD_AUX_SEEN;

      if (v->prune_point[pc])
        {
          for (struct stored_state *o = v->stored[pc]; o; o = o->next)
            {
              if (!state_contains (v, pc, &o->st, s))
                continue;
              if (o->branches == 0)
                {
                  path_end (parent);
                  return 0;     /* already proven safe from here */
                }
              return ossd_vreject (v, pc, "infinite loop: a back-edge returns to this "
                              "instruction in a state it was already in");
            }
          if (v->nstored[pc] < MAX_STORED_PER_INSN && v->total_stored < MAX_STORED_TOTAL)
            {
              struct stored_state *n = malloc (sizeof *n);
              if (!n)
                return ossd_vreject (v, pc, "out of memory");
              n->st = *s;
              n->parent = parent;
              n->branches = 1;
              n->next = v->stored[pc];
              v->stored[pc] = n;
              v->nstored[pc]++;
              v->total_stored++;
              parent = n;
            }
        }

      switch (cls)
        {
        case OSSD_BPF_ALU:
        case OSSD_BPF_ALU64:
          if ((rc = do_alu (v, s, pc)) < 0)
            return rc;
          pc++;
          break;
        case OSSD_BPF_LD:
          if (in->src_reg == OSSD_PSEUDO_RODATA)
            {
              struct vreg *d = &s->r[in->dst_reg];
              memset (d, 0, sizeof *d);
              d->type = V_PTR_RODATA;
              d->smin = d->smax = (uint32_t) in->imm;
              prog->aux[pc].flags |= OSSD_AUX_RODATA_PTR;
            }
          else
            ossd_vreg_set_const (&s->r[in->dst_reg], (uint64_t) (uint32_t) in->imm
                            | ((uint64_t) (uint32_t) in[1].imm << 32));
          prog->aux[pc + 1].flags |= OSSD_AUX_SEEN;
          pc += 2;
          break;
        case OSSD_BPF_LDX:
          if ((rc = ossd_verifier_check_load (v, s, pc)) < 0)
            return rc;
          pc++;
          break;
        case OSSD_BPF_ST:
        case OSSD_BPF_STX:
          if ((rc = ossd_verifier_check_store (v, s, pc)) < 0)
            return rc;
          pc++;
          break;
        default:                /* JMP, JMP32 */
          if (op == OSSD_BPF_EXIT)
            {
              if (s->r[0].type == V_UNINIT)
                return ossd_vreject (v, pc, "exit with uninitialised r0");
              if (is_ptr (&s->r[0]))
                return ossd_vreject (v, pc, "pointer leak: returning a %s in r0",
                                ossd_vtype_name (s->r[0].type));
              path_end (parent);
              return 0;
            }
          if (op == OSSD_BPF_CALL)
            {
              if ((rc = ossd_verifier_check_call (v, s, pc)) < 0)
                return rc;
              pc++;
              break;
            }
          if (op == OSSD_BPF_JA)
            {
              pc += 1 + (cls == OSSD_BPF_JMP32 ? in->imm : in->off);
              break;
            }
          {
            bool can_take = true, can_fall = true;
            uint32_t target = pc + 1 + in->off;
            if ((rc = do_cond_jump (v, s, pc, &taken, &can_take, &fall, &can_fall)) < 0)
              return rc;
            if (can_take && can_fall)
              {
                if ((rc = push_pending (v, &taken, target, parent)) < 0)
                  return rc;
                *s = fall;
                pc++;
              }
            else if (can_take)
              {
                *s = taken;
                pc = target;
              }
            else if (can_fall)
              {
                *s = fall;
                pc++;
              }
            else
              {
                path_end (parent);  /* contradictory state: no concrete run */
                return 0;
              }
          }
        }
    }
}

static void
verifier_free (struct verifier *v)
{
  if (v->stored)
    for (uint32_t i = 0; i < v->prog->insn_count; i++)
      for (struct stored_state *o = v->stored[i], *n; o; o = n)
        {
          n = o->next;
          free (o);
        }
  free (v->stored);
  free (v->nstored);
  free (v->live);
  free (v->prune_point);
  free (v->work);
}

int
ossd_prog_verify (struct ossd_prog *prog, char *log, size_t loglen)
{
  struct verifier v;
  struct vstate *s;
  int rc;

  memset (&v, 0, sizeof v);
  v.prog = prog;
  v.log = log;
  v.loglen = loglen;
  if (log && loglen)
    log[0] = 0;
  prog->verified = false;
  if (prog->insn_count == 0)
    return ossd_vreject (&v, 0, "empty program");
  if (prog->insn_count > OSSD_MAX_INSNS)
    return ossd_vreject (&v, OSSD_MAX_INSNS, "program exceeds %u instructions",
                    (unsigned) OSSD_MAX_INSNS);
  memset (prog->aux, 0, prog->insn_count * sizeof *prog->aux);

  v.live = calloc (prog->insn_count, sizeof *v.live);
  v.prune_point = calloc (prog->insn_count, 1);
  v.stored = calloc (prog->insn_count, sizeof *v.stored);
  v.nstored = calloc (prog->insn_count, sizeof *v.nstored);
  s = malloc (sizeof *s);
  if (!v.live || !v.prune_point || !v.stored || !v.nstored || !s)
    {
      rc = ossd_vreject (&v, 0, "out of memory");
      goto out;
    }
  if ((rc = ossd_verifier_check_structure (&v)) < 0
      || (rc = ossd_verifier_compute_liveness (&v)) < 0)
    goto out;

  memset (s, 0, sizeof *s);
  s->r[OSSD_R1].type = V_PTR_CTX;
  s->r[OSSD_R10].type = V_PTR_STACK;
  if ((rc = push_pending (&v, s, 0, NULL)) < 0)
    goto out;
  while (v.nwork > 0)
    {
      struct pending *w = &v.work[--v.nwork];
      uint32_t pc = w->pc;
      struct stored_state *parent = w->parent;
      *s = w->st;
      if ((rc = explore_path (&v, s, pc, parent)) < 0)
        goto out;
    }
  prog->verified = true;
  prog->kind = v.writes_out ? OSSD_KIND_MAP : OSSD_KIND_FILTER;
  prog->stack_depth = v.max_stack;
  prog->ncols_read = v.ncols_read;
  prog->reads_ncols = v.reads_ncols;
  prog->verifier_states = (uint32_t) v.steps;
  if (log && loglen)
    snprintf (log, loglen, "accepted: %u instructions, %llu processed, stack %u bytes, %s kernel",
              prog->insn_count, (unsigned long long) v.steps, v.max_stack,
              v.writes_out ? "map" : "filter");
  rc = 0;
out:
  free (s);
  verifier_free (&v);
  return rc;
}
