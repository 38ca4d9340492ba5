/* test_loader_interp.c - raw and ELF loading (good and malformed
 * objects), format detection, hashing, and interpreter semantics: ALU
 * edge cases against the eBPF definition, the per-row budget, faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rt_corpus.h"

static uint8_t *
read_file (const char *name, size_t *len)
{
  char path[512];
  snprintf (path, sizeof path, "%s/%s", OSSD_RT_EXAMPLES_DIR, name);
  FILE *f = fopen (path, "rb");
  assert_non_null (f);
  uint8_t *buf = malloc (1 << 16);
  *len = fread (buf, 1, 1 << 16, f);
  fclose (f);
  return buf;
}

static void
raw_roundtrip (void **state)
{
  const struct ossd_insn insns[] = { LDRO (2, 0), LDX (W, 0, 2, 0), EXIT };
  uint32_t ro = 77;
  char err[256];
  struct ossd_prog *p, *q;
  void *buf;
  size_t len;
  assert_int_equal (ossd_prog_from_insns (insns, 4, &ro, 4, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_to_raw (p, &buf, &len), 0);
  assert_int_equal (len, 16 + 32 + 4);
  assert_int_equal (ossd_prog_load (buf, len, &q, err, sizeof err), 0);
  assert_memory_equal (p->hash, q->hash, 32);
  assert_int_equal (ossd_prog_verify (q, err, sizeof err), 0);
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  struct ossd_exec_state st;
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_interp_run (q, ctx, &st), 77);
  /* malformed raw images */
  uint8_t *b = buf;
  assert_int_equal (ossd_prog_load_raw (buf, len - 1, &q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "header says"));
  b[4] = 2;
  assert_int_equal (ossd_prog_load_raw (buf, len, &q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "version"));
  b[4] = 1;
  b[0] ^= 1;
  assert_int_equal (ossd_prog_load (buf, len, &q, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "unknown kernel format"));
  b[0] ^= 1;
  uint32_t big = OSSD_MAX_INSNS + 1;
  memcpy (b + 8, &big, 4);
  assert_int_equal (ossd_prog_load_raw (buf, len, &q, err, sizeof err), -E2BIG);
  assert_int_equal (ossd_prog_load_raw (buf, 8, &q, err, sizeof err), -EINVAL);
  char hex[65];
  ossd_prog_hash_hex (p, hex);
  assert_int_equal (strlen (hex), 64);
  free (buf);
  free (ctx);
  ossd_prog_free (p);
}

static void
sha256_known (void **state)
{
  /* the hash covers (count, rodata_len, insns, rodata): check stability
   * and sensitivity rather than a published vector */
  const struct ossd_insn a[] = { RET (1) }, b[] = { RET (2) };
  char err[128];
  struct ossd_prog *p, *q;
  ossd_prog_from_insns (a, 2, NULL, 0, &p, err, sizeof err);
  ossd_prog_from_insns (b, 2, NULL, 0, &q, err, sizeof err);
  assert_memory_not_equal (p->hash, q->hash, 32);
  ossd_prog_free (q);
  ossd_prog_from_insns (a, 2, NULL, 0, &q, err, sizeof err);
  assert_memory_equal (p->hash, q->hash, 32);
  ossd_prog_free (p);
  ossd_prog_free (q);
}

static void
elf_examples_load (void **state)
{
  const char *names[] = { "q6_filter.o", "like_filter.o", "revenue_map.o" };
  for (int i = 0; i < 3; i++)
    {
      size_t len;
      uint8_t *buf = read_file (names[i], &len);
      char err[256];
      struct ossd_prog *p;
      if (ossd_prog_load_elf (buf, len, &p, err, sizeof err) != 0)
        fail_msg ("%s: %s", names[i], err);
      assert_true (strncmp (p->name, names[i], strlen (p->name)) == 0);
      ossd_prog_free (p);
      free (buf);
    }
  /* q6 references three numerics in .rodata */
  size_t len;
  uint8_t *buf = read_file ("q6_filter.o", &len);
  char err[256];
  struct ossd_prog *p;
  assert_int_equal (ossd_prog_load (buf, len, &p, err, sizeof err), 0);
  assert_true (p->rodata_len >= 72);
  int lddw = 0;
  for (uint32_t i = 0; i < p->insn_count; i++)
    if (p->insns[i].code == (OSSD_BPF_LD | OSSD_BPF_DW) && p->insns[i].src_reg == OSSD_PSEUDO_RODATA)
      lddw++;
  assert_int_equal (lddw, 3);
  ossd_prog_free (p);
  free (buf);
}

static void
elf_malformed (void **state)
{
  size_t len;
  uint8_t *buf = read_file ("q6_filter.o", &len);
  uint8_t *bad = malloc (len);
  char err[256];
  struct ossd_prog *p;
  /* truncated */
  assert_int_not_equal (ossd_prog_load_elf (buf, 40, &p, err, sizeof err), 0);
  assert_non_null (strstr (err, "elf:"));
  /* wrong machine */
  memcpy (bad, buf, len);
  bad[18] = 62;
  assert_int_equal (ossd_prog_load_elf (bad, len, &p, err, sizeof err), -EINVAL);
  assert_non_null (strstr (err, "BPF"));
  /* random corruption never crashes and either loads or explains */
  srandom (7);
  for (int i = 0; i < 3000; i++)
    {
      memcpy (bad, buf, len);
      for (int k = 0; k < 4; k++)
        bad[random () % len] = (uint8_t) random ();
      err[0] = 0;
      int rc = ossd_prog_load_elf (bad, len, &p, err, sizeof err);
      if (rc == 0)
        {
          char log[256];
          ossd_prog_verify (p, log, sizeof log);
          ossd_prog_free (p);
        }
      else
        assert_true (err[0] != 0);
    }
  free (bad);
  free (buf);
}

/* ALU semantics of the interpreter vs. the eBPF definition */
static int64_t
run_insns (const struct ossd_insn *insns, uint32_t n, uint64_t budget, struct ossd_exec_state *st)
{
  char err[256];
  struct ossd_prog *p;
  assert_int_equal (ossd_prog_from_insns (insns, n, NULL, 0, &p, err, sizeof err), 0);
  if (ossd_prog_verify (p, err, sizeof err) != 0)
    fail_msg ("rejected: %s", err);
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  ossd_exec_state_init (st);
  if (budget)
    st->insn_budget = budget;
  int64_t r = ossd_interp_run (p, ctx, st);
  free (ctx);
  ossd_prog_free (p);
  return r;
}

#define RUN(...) ({ const struct ossd_insn _i[] = { __VA_ARGS__ }; struct ossd_exec_state _s; \
      run_insns (_i, sizeof _i / sizeof _i[0], 0, &_s); _s.r0; })

static void
alu_semantics (void **state)
{
  assert_int_equal (RUN (LD64 (0, 0x8000000000000000ull), MOVI (2, -1),
                         RAW (OSSD_BPF_ALU64 | OSSD_BPF_DIV | OSSD_BPF_X, 0, 2, 1, 0), EXIT), 0x8000000000000000ull);
  assert_int_equal (RUN (LD64 (0, 0x8000000000000000ull), MOVI (2, -1),
                         RAW (OSSD_BPF_ALU64 | OSSD_BPF_MOD | OSSD_BPF_X, 0, 2, 1, 0), EXIT), 0);
  assert_int_equal (RUN (MOVI (0, -7), RAW (OSSD_BPF_ALU64 | OSSD_BPF_MOD | OSSD_BPF_K, 0, 0, 1, 3), EXIT), (uint64_t) -1);
  assert_int_equal (RUN (MOVI (0, -7), ALUI (MOD, 0, 3), EXIT), (uint64_t) -7 % 3);
  assert_int_equal (RUN (MOVI (0, -1), ALUI (RSH, 0, 60), EXIT), 0xf);
  assert_int_equal (RUN (MOVI (0, -16), ALUI (ARSH, 0, 2), EXIT), (uint64_t) -4);
  assert_int_equal (RUN (MOVI (0, 1), MOVI (2, 65), ALUR (LSH, 0, 2), EXIT), 2);      /* count masked */
  assert_int_equal (RUN (MOV32I (0, 1), MOVI (2, 33), ALU32R (LSH, 0, 2), EXIT), 2);
  assert_int_equal (RUN (MOVI (0, -1), ALU32I (ADD, 0, 0), EXIT), 0xffffffffull);     /* zero-extends */
  assert_int_equal (RUN (MOVI (0, 5), ALUI (NEG, 0, 0), EXIT), (uint64_t) -5);
  assert_int_equal (RUN (MOVI (0, 0x1234), RAW (OSSD_BPF_ALU | OSSD_BPF_END | OSSD_BPF_X, 0, 0, 0, 16), EXIT), 0x3412);
  assert_int_equal (RUN (LD64 (0, 0x1122334455667788ull), RAW (OSSD_BPF_ALU | OSSD_BPF_END, 0, 0, 0, 32), EXIT), 0x55667788);
  assert_int_equal (RUN (LD64 (0, 0x1122334455667788ull), RAW (OSSD_BPF_ALU64 | OSSD_BPF_END, 0, 0, 0, 64), EXIT),
                    0x8877665544332211ull);
  assert_int_equal (RUN (MOVI (2, 0xff), RAW (OSSD_BPF_ALU64 | OSSD_BPF_MOV | OSSD_BPF_X, 0, 2, 8, 0), EXIT), (uint64_t) -1);
  assert_int_equal (RUN (STI (W, 10, -4, -2), RAW (OSSD_BPF_LDX | OSSD_BPF_W | OSSD_BPF_MEMSX, 0, 10, -4, 0), EXIT),
                    (uint64_t) -2);
  assert_int_equal (RUN (MOVI (0, 0), MOVI (2, 3), JI (JSET, 2, 2, 1), EXIT, MOVI (0, 9), EXIT), 9);
  assert_int_equal (RUN (MOVI (0, 0), LD64 (2, 0x100000000ull), J32I (JEQ, 2, 0, 1), EXIT, MOVI (0, 9), EXIT), 9);
  assert_int_equal (RUN (MOVI (0, 1), RAW (OSSD_BPF_JMP32 | OSSD_BPF_JA, 0, 0, 0, 1), MOVI (0, 2), EXIT), 1);
}

static void
budget_and_faults (void **state)
{
  struct ossd_exec_state st;
  const struct ossd_insn loop[] = { MOVI (0, 0), ALUI (ADD, 0, 1), JI (JLT, 0, 1000, -2), EXIT };
  assert_int_equal (run_insns (loop, 4, 0, &st), 1000);
  assert_int_equal (st.insns_executed, 1 + 2 * 1000 + 1);
  assert_int_equal (run_insns (loop, 4, 500, &st), OSSD_RT_BUDGET);
  assert_int_equal (st.fault, OSSD_RT_BUDGET);
  /* unverified programs never run */
  char err[128];
  struct ossd_prog *p;
  ossd_prog_from_insns (loop, 4, NULL, 0, &p, err, sizeof err);
  struct ossd_kctx *ctx = calloc (1, sizeof *ctx);
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_interp_run (p, ctx, &st), OSSD_RT_NOTVERIFIED);
  ossd_prog_free (p);
  /* helper argument check: text_eq with a length larger than the column */
  const struct ossd_insn teq[] = { LDX (DW, 1, 1, COLD (0)), MOVI (2, 9), MOVR (3, 1), MOVI (4, 9), CALL (TEXT_EQ), EXIT };
  assert_int_equal (ossd_prog_from_insns (teq, 6, NULL, 0, &p, err, sizeof err), 0);
  assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
  assert_true (p->aux[4].arg_check & 1);
  char *data = malloc (8);
  memcpy (data, "12345678", 8);
  ctx->col[0].data = (uint64_t) (uintptr_t) data;
  ctx->col[0].len = 8;
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_interp_run (p, ctx, &st), OSSD_RT_FAULT);
  assert_int_equal (st.fault_insn, 4);
  ctx->col[0].len = 8;
  ossd_prog_free (p);
  const struct ossd_insn teq8[] = { LDX (DW, 1, 1, COLD (0)), MOVI (2, 8), MOVR (3, 1), MOVI (4, 8), CALL (TEXT_EQ), EXIT };
  ossd_prog_from_insns (teq8, 6, NULL, 0, &p, err, sizeof err);
  assert_int_equal (ossd_prog_verify (p, err, sizeof err), 0);
  ossd_exec_state_init (&st);
  assert_int_equal (ossd_interp_run (p, ctx, &st), 1);
  ossd_prog_free (p);
  free (data);
  free (ctx);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (raw_roundtrip),
    cmocka_unit_test (sha256_known),
    cmocka_unit_test (elf_examples_load),
    cmocka_unit_test (elf_malformed),
    cmocka_unit_test (alu_semantics),
    cmocka_unit_test (budget_and_faults),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
