/* fuzz_verifier.c - libFuzzer harness for the verifier and interpreter.
 * The input is a sequence of 8-byte eBPF instructions (with the corpus's
 * read-only data).  Every program the verifier accepts is run in the
 * interpreter on random rows whose column data are separate exact-size
 * heap blocks, under AddressSanitizer: an accepted program must never
 * touch memory outside its context, stack, rodata and columns (a run-time
 * check may fault it, cleanly).  The custom mutator works on whole
 * instructions and splices in programs of the verifier corpus.
 *   build: clang-14 -fsanitize=fuzzer,address (see component.mk) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_corpus.h"

#define NCORPUS (sizeof rt_corpus / sizeof rt_corpus[0])
#define MAX_FUZZ_INSNS 256

size_t LLVMFuzzerMutate (uint8_t *data, size_t size, size_t max_size);

static uint64_t
next_rand (uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A random row: every column value-only, NULL, text or numeric; data in
 * separate exact-size allocations so ASan sees any overrun. */
struct fuzz_row
{
  struct ossd_kctx *ctx;
  void *data[OSSD_KCTX_MAX_COLS];
};

static void
make_row (struct fuzz_row *r, uint64_t *rng)
{
  r->ctx = calloc (1, sizeof *r->ctx);
  r->ctx->ncols = (uint32_t) (next_rand (rng) % (OSSD_KCTX_MAX_COLS + 1));
  r->ctx->nout = (uint32_t) (next_rand (rng) % (OSSD_KCTX_MAX_OUT + 1));
  for (int i = 0; i < OSSD_KCTX_MAX_COLS; i++)
    {
      struct ossd_col *c = &r->ctx->col[i];
      r->data[i] = NULL;
      c->value = next_rand (rng);
      if ((uint32_t) i >= r->ctx->ncols)
        {
          c->value = 0;
          continue;
        }
      switch (next_rand (rng) % 4)
        {
        case 0:
          c->isnull = 1;
          break;
        case 1:
          c->type = OSSD_T_INT8;
          break;
        case 2:
          {
            uint32_t len = (uint32_t) (next_rand (rng) % 41);
            uint8_t *d = malloc (len ? len : 1);
            for (uint32_t k = 0; k < len; k++)
              d[k] = (uint8_t) (next_rand (rng) & 1 ? 'a' + next_rand (rng) % 26 : next_rand (rng));
            r->data[i] = d;
            c->data = (uint64_t) (uintptr_t) d;
            c->len = len;
            c->type = OSSD_T_TEXT;
            break;
          }
        default:
          {
            struct ossd_numeric *n = malloc (sizeof *n);
            n->lo = next_rand (rng);
            n->hi = (int64_t) next_rand (rng) >> (next_rand (rng) % 64);
            n->scale = (int32_t) (next_rand (rng) % 42);
            n->flags = 0;
            r->data[i] = n;
            c->data = (uint64_t) (uintptr_t) n;
            c->len = sizeof *n;
            c->type = OSSD_T_NUMERIC;
          }
        }
    }
}

static void
free_row (struct fuzz_row *r)
{
  for (int i = 0; i < OSSD_KCTX_MAX_COLS; i++)
    free (r->data[i]);
  free (r->ctx);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  uint32_t n = (uint32_t) (size / 8);
  uint8_t ro[RO_LEN];
  char err[256], log[512];
  struct ossd_prog *prog;
  uint64_t rng = 0x9e3779b97f4a7c15ull;

  if (n == 0 || n > MAX_FUZZ_INSNS)
    return 0;
  for (size_t i = 0; i < size; i++)
    rng = (rng ^ data[i]) * 0x100000001b3ull;
  rng |= 1;
  rt_fill_rodata (ro);
  struct ossd_insn *insns = malloc (n * sizeof *insns);
  memcpy (insns, data, n * sizeof *insns);
  if (ossd_prog_from_insns (insns, n, ro, RO_LEN, &prog, err, sizeof err) != 0)
    {
      free (insns);
      return 0;
    }
  free (insns);
  int rc = ossd_prog_verify (prog, log, sizeof log);
  if (rc != 0 && strncmp (log, "insn ", 5) != 0)
    {
      fprintf (stderr, "rejection without instruction index: %s\n", log);
      abort ();
    }
  if (rc == 0)
    {
      for (int k = 0; k < 4; k++)
        {
          struct fuzz_row row;
          struct ossd_exec_state st;
          make_row (&row, &rng);
          ossd_exec_state_init (&st);
          st.insn_budget = 20000;
          int64_t r = ossd_interp_run (prog, row.ctx, &st);
          if (r < 0 && r != OSSD_RT_FAULT && r != OSSD_RT_BUDGET)
            {
              fprintf (stderr, "unexpected run result %lld\n", (long long) r);
              abort ();
            }
          free_row (&row);
        }
    }
  ossd_prog_free (prog);
  return 0;
}

/* ---- instruction-level mutator ---- */
static const uint8_t valid_codes[] = {
  /* ALU64 / ALU32, K and X */
  0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f,
  0x77, 0x7f, 0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf, 0xd4, 0xdc, 0xd7,
  0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x44, 0x4c, 0x54, 0x5c, 0x64, 0x6c,
  0x74, 0x7c, 0x84, 0x94, 0x9c, 0xa4, 0xac, 0xb4, 0xbc, 0xc4, 0xcc,
  /* LDX, ST, STX, MEMSX */
  0x61, 0x69, 0x71, 0x79, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0x81, 0x89, 0x91,
  /* JMP / JMP32 */
  0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d,
  0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd, 0x85, 0x95,
  0x06, 0x16, 0x1e, 0x26, 0x56, 0x66, 0xa6, 0xc6,
  0x18,
};

static int32_t
interesting_imm (uint64_t *rng)
{
  static const int32_t v[] = { 0, 1, -1, 2, 7, 8, 16, 24, 32, 63, 64, 255, -8, -16, -24, -48,
                               -512, 512, 4096, INT32_MIN, INT32_MAX, RO_NUM_10, RO_TEXT, RO_LIKE,
                               RO_LEN, 792, 2072 };
  if (next_rand (rng) % 3 == 0)
    return (int32_t) (next_rand (rng) % (OSSD_H_MAX + 2));
  return v[next_rand (rng) % (sizeof v / sizeof v[0])];
}

static int16_t
interesting_off (uint64_t *rng)
{
  static const int16_t v[] = { 0, 1, 2, 3, -1, -2, -4, -8, -16, -24, -48, -512, -520, 4, 8 };
  switch (next_rand (rng) % 3)
    {
    case 0: return (int16_t) (24 + 24 * (next_rand (rng) % 33) + (next_rand (rng) % 4) * 8);
    case 1: return (int16_t) (792 + 40 * (next_rand (rng) % 33) + (next_rand (rng) % 5) * 8);
    default: return v[next_rand (rng) % (sizeof v / sizeof v[0])];
    }
}

static void
random_insn (struct ossd_insn *in, uint64_t *rng)
{
  in->code = valid_codes[next_rand (rng) % sizeof valid_codes];
  in->dst_reg = (uint8_t) (next_rand (rng) % 11);
  in->src_reg = (uint8_t) (next_rand (rng) % 11);
  in->off = interesting_off (rng);
  in->imm = interesting_imm (rng);
}

size_t
LLVMFuzzerCustomMutator (uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
  uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
  size_t n = size / 8, maxn = max_size / 8;
  struct ossd_insn *ins = (struct ossd_insn *) data;
  if (maxn > MAX_FUZZ_INSNS)
    maxn = MAX_FUZZ_INSNS;
  /* work on the first maxn instructions only: an input longer than
   * MAX_FUZZ_INSNS (max_len above 2048) is cut to it, so that every
   * index below (at, at + take, n + 1) stays within maxn */
  if (n > maxn)
    n = maxn;
  unsigned choice = (unsigned) (next_rand (&rng) % 10);
  if (n == 0 || choice == 0)
    {
      const struct rt_corpus_entry *e = &rt_corpus[next_rand (&rng) % NCORPUS];
      if (e->n <= maxn)
        {
          memcpy (data, e->insns, e->n * 8);
          return e->n * 8;
        }
      return n * 8;
    }
  size_t at = next_rand (&rng) % n;
  switch (choice)
    {
    case 1:
    case 2:
      switch (next_rand (&rng) % 5)
        {
        case 0: ins[at].code = valid_codes[next_rand (&rng) % sizeof valid_codes]; break;
        case 1: ins[at].dst_reg = (uint8_t) (next_rand (&rng) % 11); break;
        case 2: ins[at].src_reg = (uint8_t) (next_rand (&rng) % 11); break;
        case 3: ins[at].off = interesting_off (&rng); break;
        default: ins[at].imm = interesting_imm (&rng); break;
        }
      return n * 8;
    case 3:
      if (n < maxn)
        {
          memmove (&ins[at + 1], &ins[at], (n - at) * 8);
          random_insn (&ins[at], &rng);
          return (n + 1) * 8;
        }
      return n * 8;
    case 4:
      if (n > 1)
        {
          memmove (&ins[at], &ins[at + 1], (n - at - 1) * 8);
          return (n - 1) * 8;
        }
      return n * 8;
    case 5:
      {
        /* splice the tail of a corpus program in */
        const struct rt_corpus_entry *e = &rt_corpus[next_rand (&rng) % NCORPUS];
        size_t from = next_rand (&rng) % e->n, take = e->n - from;
        if (take > maxn - at)     /* at < n <= maxn */
          take = maxn - at;
        memcpy (&ins[at], &e->insns[from], take * 8);
        return (at + take > n ? at + take : n) * 8;
      }
    default:
      {
        size_t r = LLVMFuzzerMutate (data, n * 8, maxn * 8);
        return r - r % 8;
      }
    }
}
