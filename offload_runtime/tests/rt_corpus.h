/* rt_corpus.h - the verifier corpus, shared by the cmocka corpus test and
 * the fuzzer (as seeds): programs that must be rejected (with a substring
 * of the expected reason) and programs that must be accepted (with their
 * verdict on the sample row).  All programs of the table share
 * RT_RODATA as their read-only data. */
#ifndef RT_CORPUS_H
#define RT_CORPUS_H

#include <stddef.h>
#include <string.h>

#include "ossd_rt.h"

/* ---- small instruction-building macros ---- */
#define PROG(...) (const struct ossd_insn[]) { __VA_ARGS__ }, \
  (uint32_t) (sizeof ((const struct ossd_insn[]) { __VA_ARGS__ }) / sizeof (struct ossd_insn))
#define MOVI(d, i)   OSSD_MOV64_IMM (d, i)
#define MOVR(d, s)   OSSD_MOV64_REG (d, s)
#define MOV32I(d, i) OSSD_MOV32_IMM (d, i)
#define ALUI(op, d, i)   OSSD_ALU64_IMM (OSSD_BPF_##op, d, i)
#define ALUR(op, d, s)   OSSD_ALU64_REG (OSSD_BPF_##op, d, s)
#define ALU32I(op, d, i) OSSD_ALU32_IMM (OSSD_BPF_##op, d, i)
#define ALU32R(op, d, s) OSSD_ALU32_REG (OSSD_BPF_##op, d, s)
#define LDX(sz, d, s, o) OSSD_LDX_MEM (OSSD_BPF_##sz, d, s, o)
#define STX(sz, d, s, o) OSSD_STX_MEM (OSSD_BPF_##sz, d, s, o)
#define STI(sz, d, o, i) OSSD_ST_MEM (OSSD_BPF_##sz, d, o, i)
#define JI(op, d, i, o)  OSSD_JMP_IMM (OSSD_BPF_##op, d, i, o)
#define JR(op, d, s, o)  OSSD_JMP_REG (OSSD_BPF_##op, d, s, o)
#define J32I(op, d, i, o) OSSD_JMP32_IMM (OSSD_BPF_##op, d, i, o)
#define JA(o)        OSSD_JA (o)
#define CALL(h)      OSSD_CALL (OSSD_H_##h)
#define EXIT         OSSD_EXIT ()
#define RET(v)       MOVI (0, v), EXIT
#define LDRO(d, o)   OSSD_LD_RODATA (d, o)
#define LD64(d, v)   OSSD_LD_IMM64 (d, v)
#define RAW(c, d, s, o, i) OSSD_INSN (c, d, s, o, i)

/* ctx offsets */
#define COLV(i) ((int16_t) offsetof (struct ossd_kctx, col[i].value))
#define COLD(i) ((int16_t) offsetof (struct ossd_kctx, col[i].data))
#define COLL(i) ((int16_t) offsetof (struct ossd_kctx, col[i].len))
#define COLN(i) ((int16_t) offsetof (struct ossd_kctx, col[i].isnull))
#define OUTV(k) ((int16_t) offsetof (struct ossd_kctx, out[k].value))
#define OUTNUM(k) ((int32_t) offsetof (struct ossd_kctx, out[k].num))
#define CTX_SIZE ((int16_t) sizeof (struct ossd_kctx))

/* ---- shared read-only data ---- */
#define RO_NUM_10    0    /* numeric 10.0 */
#define RO_NUM_37_50 24   /* numeric 37.50 */
#define RO_TEXT      48   /* "hello green world" (17) */
#define RO_LIKE      72   /* "%green%" (7) */
#define RO_BPA       80   /* "ab  " (4) */
#define RO_BPB       84   /* "ab" (2) */
#define RO_U32_4     88   /* u32 4 */
#define RO_LEN       96

static inline void
rt_fill_rodata (uint8_t ro[RO_LEN])
{
  struct ossd_numeric n10 = { 100, 0, 1, 0 }, n37 = { 3750, 0, 2, 0 };
  uint32_t four = 4;
  memset (ro, 0, RO_LEN);
  memcpy (ro + RO_NUM_10, &n10, sizeof n10);
  memcpy (ro + RO_NUM_37_50, &n37, sizeof n37);
  memcpy (ro + RO_TEXT, "hello green world", 17);
  memcpy (ro + RO_LIKE, "%green%", 7);
  memcpy (ro + RO_BPA, "ab  ", 4);
  memcpy (ro + RO_BPB, "ab", 2);
  memcpy (ro + RO_U32_4, &four, 4);
}

/* ---- sample row ----
 * col0 int8 42, col1 text "hello green world", col2 numeric 12.50,
 * col3 date -2000, col4 float8 1.5, col5 int4 NULL (value 0, no data) */
struct rt_row
{
  struct ossd_kctx ctx;
  struct ossd_numeric num[2];
  char text[32];
};

static inline void
rt_sample_row (struct rt_row *r)
{
  double f = 1.5;
  memset (r, 0, sizeof *r);
  r->ctx.ncols = 6;
  r->ctx.nout = 4;
  r->ctx.col[0].value = 42;
  r->ctx.col[0].type = OSSD_T_INT8;
  memcpy (r->text, "hello green world", 17);
  r->ctx.col[1].data = (uint64_t) (uintptr_t) r->text;
  r->ctx.col[1].len = 17;
  r->ctx.col[1].type = OSSD_T_TEXT;
  r->num[0] = (struct ossd_numeric) { 1250, 0, 2, 0 };
  r->ctx.col[2].data = (uint64_t) (uintptr_t) &r->num[0];
  r->ctx.col[2].len = sizeof (struct ossd_numeric);
  r->ctx.col[2].type = OSSD_T_NUMERIC;
  r->ctx.col[3].value = (uint64_t) (int64_t) -2000;
  r->ctx.col[3].type = OSSD_T_DATE;
  memcpy (&r->ctx.col[4].value, &f, 8);
  r->ctx.col[4].type = OSSD_T_FLOAT8;
  r->ctx.col[5].isnull = 1;
  r->ctx.col[5].type = OSSD_T_INT4;
}

struct rt_corpus_entry
{
  const char *name;
  const struct ossd_insn *insns;
  uint32_t n;
  const char *reject;   /* NULL: must be accepted */
  int64_t expect;       /* accepted: result on the sample row */
};

#define REJECT(name, prog, why) { name, prog, why, 0 }
#define ACCEPT(name, prog, result) { name, prog, NULL, result }

static const struct rt_corpus_entry rt_corpus[] = {
  /* ---------------- must be rejected ---------------- */
  REJECT ("falls_off_end", PROG (MOVI (0, 0)), "falls off the end"),
  REJECT ("cond_jump_falls_off", PROG (MOVI (0, 0), JI (JEQ, 0, 0, -2)), "falls off the end"),
  REJECT ("jump_out_of_range", PROG (JA (5), RET (0)), "jump out of range"),
  REJECT ("jump_negative_out_of_range", PROG (JA (-3), RET (0)), "jump out of range"),
  REJECT ("invalid_opcode_ff", PROG (RAW (0xff, 0, 0, 0, 0), RET (0)), "invalid opcode"),
  REJECT ("invalid_alu_op", PROG (RAW (OSSD_BPF_ALU64 | 0xe0, 0, 0, 0, 0), RET (0)), "invalid opcode"),
  REJECT ("invalid_jmp_op", PROG (MOVI (0, 0), RAW (OSSD_BPF_JMP | 0xe0, 0, 0, 0, 0), EXIT), "invalid opcode"),
  REJECT ("neg_with_source", PROG (MOVI (0, 0), RAW (OSSD_BPF_ALU64 | OSSD_BPF_NEG | OSSD_BPF_X, 0, 1, 0, 0), EXIT), "invalid opcode"),
  REJECT ("exit_uninit_r0", PROG (EXIT), "exit with uninitialised r0"),
  REJECT ("mov_from_uninit", PROG (MOVR (0, 2), EXIT), "read of uninitialised register r2"),
  REJECT ("add_to_uninit", PROG (ALUI (ADD, 3, 1), RET (0)), "read of uninitialised register r3"),
  REJECT ("branch_on_uninit", PROG (JI (JEQ, 4, 0, 0), RET (0)), "read of uninitialised register r4"),
  REJECT ("write_frame_pointer", PROG (MOVI (10, 0), RET (0)), "frame pointer r10 is read-only"),
  REJECT ("invalid_register", PROG (MOVI (11, 0), RET (0)), "invalid register"),
  REJECT ("reserved_src_field", PROG (RAW (OSSD_BPF_ALU64 | OSSD_BPF_MOV, 0, 3, 0, 1), EXIT), "reserved field"),
  REJECT ("div_by_constant_zero", PROG (MOVI (0, 1), ALUI (DIV, 0, 0), EXIT), "division by constant zero"),
  REJECT ("mod_by_constant_zero", PROG (MOVI (0, 1), ALU32I (MOD, 0, 0), EXIT), "division by constant zero"),
  REJECT ("bad_byteswap_width", PROG (MOVI (0, 1), RAW (OSSD_BPF_ALU | OSSD_BPF_END, 0, 0, 0, 8), EXIT), "invalid byte swap width"),
  REJECT ("ctx_read_past_end", PROG (LDX (DW, 0, 1, CTX_SIZE), EXIT), "ctx access out of bounds"),
  REJECT ("ctx_read_negative", PROG (LDX (DW, 0, 1, -8), EXIT), "ctx access out of bounds"),
  REJECT ("ctx_write_column", PROG (STI (DW, 1, COLV (0), 0), RET (0)), "write to read-only ctx field"),
  REJECT ("ctx_write_ncols", PROG (STI (W, 1, 0, 1), RET (0)), "write to read-only ctx field"),
  REJECT ("ctx_partial_pointer_read", PROG (LDX (W, 0, 1, COLD (0)), EXIT), "partial read of pointer field"),
  REJECT ("ctx_variable_offset", PROG (LDX (DW, 2, 1, COLV (0)), ALUR (ADD, 1, 2), RET (0)), "variable offset into ctx"),
  REJECT ("ctx_pointer_arith_oob", PROG (ALUI (ADD, 1, 5000), RET (0)), "pointer arithmetic out of bounds"),
  REJECT ("stack_read_above_frame", PROG (LDX (DW, 0, 10, 0), EXIT), "stack access out of bounds"),
  REJECT ("stack_write_below_frame", PROG (STI (DW, 10, -520, 0), RET (0)), "stack access out of bounds"),
  REJECT ("stack_read_uninit", PROG (LDX (DW, 0, 10, -8), EXIT), "read of uninitialised stack"),
  REJECT ("stack_read_partly_uninit", PROG (STI (W, 10, -8, 1), LDX (DW, 0, 10, -8), EXIT), "read of uninitialised stack"),
  REJECT ("stack_pointer_arith_oob", PROG (MOVR (2, 10), ALUI (ADD, 2, 8), RET (0)), "pointer arithmetic out of bounds"),
  REJECT ("stack_variable_offset_oob", PROG (LDX (DW, 2, 1, COLV (0)), ALUI (AND, 2, 0x3ff), MOVR (3, 10),
                                             ALUI (ADD, 3, -8), ALUR (SUB, 3, 2), RET (0)), "pointer arithmetic out of bounds"),
  REJECT ("misaligned_pointer_spill", PROG (STX (DW, 10, 1, -12), RET (0)), "pointer spill must be an aligned"),
  REJECT ("partial_read_spilled_pointer", PROG (STX (DW, 10, 1, -8), LDX (W, 0, 10, -8), EXIT), "partial read of a spilled pointer"),
  REJECT ("rodata_read_oob", PROG (LDRO (2, RO_LEN - 4), LDX (DW, 0, 2, 0), EXIT), "read-only data access out of bounds"),
  REJECT ("rodata_write", PROG (LDRO (2, 0), STI (B, 2, 0, 1), RET (0)), "write to read-only data"),
  REJECT ("rodata_lddw_offset_oob", PROG (LDRO (2, 4096), RET (0)), "read-only data offset"),
  REJECT ("coldata_write", PROG (LDX (DW, 2, 1, COLD (1)), STI (B, 2, 0, 1), RET (0)), "write to read-only column data"),
  REJECT ("leak_ctx_pointer_to_out", PROG (STX (DW, 1, 1, OUTV (0)), RET (0)), "pointer leak"),
  REJECT ("leak_column_pointer_to_out", PROG (LDX (DW, 2, 1, COLD (1)), STX (DW, 1, 2, OUTV (1)), RET (0)), "pointer leak"),
  REJECT ("leak_stack_pointer_return", PROG (MOVR (0, 10), EXIT), "pointer leak: returning"),
  REJECT ("leak_column_pointer_return", PROG (LDX (DW, 0, 1, COLD (1)), EXIT), "pointer leak: returning"),
  REJECT ("pointer_compare_scalar_reg", PROG (MOVI (2, 5), JR (JGT, 1, 2, 0), RET (0)), "pointer comparison with a scalar"),
  REJECT ("pointer_compare_nonzero_imm", PROG (JI (JEQ, 1, 7, 0), RET (0)), "pointer comparison with a scalar"),
  REJECT ("pointer_compare_regions", PROG (JR (JEQ, 1, 10, 0), RET (0)), "pointers to different regions"),
  REJECT ("pointer_compare_32bit", PROG (J32I (JEQ, 1, 0, 0), RET (0)), "32-bit comparison of a pointer"),
  REJECT ("pointer_multiply", PROG (ALUI (MUL, 1, 2), RET (0)), "invalid arithmetic on a pointer"),
  REJECT ("pointer_alu32", PROG (ALU32I (ADD, 1, 1), RET (0)), "32-bit arithmetic on a pointer"),
  REJECT ("pointer_mov32_truncate", PROG (OSSD_MOV32_REG (0, 1), EXIT), "32-bit arithmetic on a pointer"),
  REJECT ("pointer_plus_pointer", PROG (ALUR (ADD, 1, 10), RET (0)), "addition of two pointers"),
  REJECT ("pointer_minus_other_region", PROG (ALUR (SUB, 1, 10), RET (0)), "different regions"),
  REJECT ("scalar_minus_pointer", PROG (MOVI (2, 0), ALUR (SUB, 2, 1), RET (0)), "scalar minus pointer"),
  REJECT ("deref_scalar", PROG (MOVI (2, 0), LDX (DW, 0, 2, 0), EXIT), "through scalar"),
  REJECT ("unknown_helper_99", PROG (OSSD_CALL (99), RET (0)), "unknown helper 99"),
  REJECT ("unknown_helper_0", PROG (OSSD_CALL (0), RET (0)), "unknown helper 0"),
  REJECT ("helper_scalar_for_pointer", PROG (MOVI (1, 5), MOVI (2, 5), CALL (NUMERIC_CMP), EXIT), "expected pointer"),
  REJECT ("helper_pointer_for_scalar", PROG (MOVR (1, 10), MOVI (2, 0), CALL (DATE_CMP), EXIT), "expected scalar"),
  REJECT ("helper_uninit_argument", PROG (MOVI (1, 1), CALL (DATE_CMP), EXIT), "uninitialised register r2"),
  REJECT ("helper_writes_rodata", PROG (LDRO (1, RO_NUM_10), MOVR (2, 1), LDRO (3, RO_NUM_37_50), CALL (NUMERIC_ADD), EXIT),
          "expected pointer to writable memory"),
  REJECT ("helper_writes_ctx_header", PROG (LDRO (2, RO_NUM_10), MOVR (3, 1), MOVR (1, 2), CALL (NUMERIC_ADD), EXIT),
          "write to read-only ctx field"),
  REJECT ("helper_reads_uninit_stack", PROG (MOVR (1, 10), ALUI (ADD, 1, -24), MOVR (2, 1), CALL (NUMERIC_CMP), EXIT),
          "read of uninitialised stack"),
  REJECT ("helper_reads_ctx_pointer_field", PROG (MOVR (2, 1), ALUI (ADD, 1, COLV (0)), CALL (NUMERIC_CMP), EXIT),
          "would read pointer field"),
  REJECT ("helper_numeric_past_rodata", PROG (LDRO (1, RO_LEN - 8), MOVR (2, 1), CALL (NUMERIC_CMP), EXIT),
          "read-only data access out of bounds"),
  REJECT ("read_of_uninit_base_register", PROG (STI (DW, 10, -8, 0), MOVR (1, 10), ALUI (ADD, 1, -8), LDX (DW, 2, 1, 0),
                                         LDX (DW, 2, 6, 0), RET (0)), "through uninitialised register r6"),
  REJECT ("helper_size_not_bounded", PROG (STI (DW, 10, -8, 0), LDX (DW, 2, 1, COLV (0)), MOVR (1, 10), ALUI (ADD, 1, -8),
                                           MOVR (3, 1), MOVI (4, 8), CALL (TEXT_EQ), EXIT), "memory size not bounded"),
  REJECT ("helper_size_past_stack", PROG (STI (DW, 10, -8, 0), MOVR (1, 10), ALUI (ADD, 1, -8), MOVI (2, 16),
                                          MOVR (3, 1), MOVI (4, 8), CALL (TEXT_EQ), EXIT), "stack access out of bounds"),
  REJECT ("helper_clobbers_r1", PROG (MOVI (1, 1), MOVI (2, 2), CALL (DATE_CMP), MOVR (0, 1), EXIT),
          "read of uninitialised register r1"),
  REJECT ("infinite_loop_self_jump", PROG (MOVI (0, 0), JA (-1), EXIT), "infinite loop"),
  REJECT ("infinite_loop_unknown_counter", PROG (LDX (DW, 0, 1, COLV (0)), ALUI (ADD, 0, 1), JI (JNE, 0, 0, -2), EXIT),
          "infinite loop"),
  REJECT ("loop_too_long", PROG (MOVI (0, 0), ALUI (ADD, 0, 1), JI (JLT, 0, 1000000, -2), EXIT), "too complex"),
  REJECT ("bpf_to_bpf_call", PROG (RAW (OSSD_BPF_JMP | OSSD_BPF_CALL, 0, 1, 0, 1), RET (0)), "bpf-to-bpf calls"),
  REJECT ("indirect_call", PROG (MOVI (2, 1), RAW (OSSD_BPF_JMP | OSSD_BPF_CALL | OSSD_BPF_X, 0, 2, 0, 0), RET (0)),
          "indirect call"),
  REJECT ("atomic_add", PROG (STI (DW, 10, -8, 0), MOVI (2, 1),
                              RAW (OSSD_BPF_STX | OSSD_BPF_DW | OSSD_BPF_ATOMIC, 10, 2, -8, 0), RET (0)), "atomic operations"),
  REJECT ("legacy_ld_abs", PROG (RAW (OSSD_BPF_LD | OSSD_BPF_W | OSSD_BPF_ABS, 0, 0, 0, 0), RET (0)), "legacy packet access"),
  REJECT ("map_fd_reference", PROG (RAW (OSSD_BPF_LD | OSSD_BPF_DW, 1, 1, 0, 3), RAW (0, 0, 0, 0, 0), RET (0)),
          "map references"),
  REJECT ("lddw_missing_second_slot", PROG (MOVI (0, 0), RAW (OSSD_BPF_LD | OSSD_BPF_DW, 0, 0, 0, 3)), "missing its second slot"),
  REJECT ("jump_into_lddw", PROG (JA (1), LD64 (0, 1), EXIT), "jump into the middle of lddw"),

  /* ---------------- must be accepted (result on the sample row) ---------------- */
  ACCEPT ("return_0", PROG (RET (0)), 0),
  ACCEPT ("return_1", PROG (RET (1)), 1),
  ACCEPT ("read_int_column", PROG (LDX (DW, 0, 1, COLV (0)), EXIT), 42),
  ACCEPT ("compare_int_column", PROG (LDX (DW, 2, 1, COLV (0)), MOVI (0, 0), JI (JNE, 2, 42, 1), MOVI (0, 1), EXIT), 1),
  ACCEPT ("spill_and_fill_ctx", PROG (STX (DW, 10, 1, -8), MOVI (1, 0), LDX (DW, 1, 10, -8), LDX (DW, 0, 1, COLV (0)), EXIT), 42),
  ACCEPT ("numeric_cmp_rodata", PROG (LDX (DW, 1, 1, COLD (2)), LDRO (2, RO_NUM_10), CALL (NUMERIC_CMP), EXIT), 1),
  ACCEPT ("text_eq_rodata", PROG (LDX (W, 2, 1, COLL (1)), LDX (DW, 1, 1, COLD (1)), LDRO (3, RO_TEXT), MOVI (4, 17),
                                  CALL (TEXT_EQ), EXIT), 1),
  ACCEPT ("text_like_rodata", PROG (LDX (W, 2, 1, COLL (1)), LDX (DW, 1, 1, COLD (1)), LDRO (3, RO_LIKE), MOVI (4, 7),
                                    CALL (TEXT_LIKE), EXIT), 1),
  ACCEPT ("text_prefix_self", PROG (LDX (W, 2, 1, COLL (1)), LDX (DW, 3, 1, COLD (1)), LDX (DW, 1, 1, COLD (1)), MOVI (4, 5),
                                    CALL (TEXT_PREFIX), EXIT), 1),
  ACCEPT ("date_cmp", PROG (LDX (DW, 1, 1, COLV (3)), MOVI (2, -2191), CALL (DATE_CMP), EXIT), 1),
  ACCEPT ("float8_cmp", PROG (LDX (DW, 1, 1, COLV (4)), LD64 (2, 0x3ff0000000000000ull), CALL (FLOAT8_CMP), EXIT), 1),
  ACCEPT ("map_write_out_value", PROG (LDX (DW, 2, 1, COLV (0)), ALUI (MUL, 2, 2), STX (DW, 1, 2, OUTV (0)), RET (1)), 1),
  ACCEPT ("numeric_add_into_out", PROG (LDX (DW, 2, 1, COLD (2)), MOVR (3, 1), ALUI (ADD, 3, OUTNUM (0)), MOVR (1, 2),
                                        CALL (NUMERIC_ADD), RET (1)), 1),
  ACCEPT ("numeric_mul_on_stack", PROG (MOVR (6, 1), MOVI (1, 3), MOVI (2, 0), MOVR (3, 10), ALUI (ADD, 3, -24),
                                        CALL (NUMERIC_FROM_INT), LDX (DW, 1, 6, COLD (2)), MOVR (2, 10), ALUI (ADD, 2, -24),
                                        MOVR (3, 10), ALUI (ADD, 3, -48), CALL (NUMERIC_MUL), MOVR (1, 10),
                                        ALUI (ADD, 1, -48), LDRO (2, RO_NUM_37_50), CALL (NUMERIC_CMP), ALUI (ADD, 0, 1),
                                        EXIT), 1),
  ACCEPT ("bounded_loop_sum", PROG (MOVI (0, 0), MOVI (2, 0), ALUR (ADD, 0, 2), ALUI (ADD, 2, 1), JI (JLT, 2, 10, -3),
                                    EXIT), 45),
  ACCEPT ("div_by_maybe_zero_register", PROG (LDX (DW, 2, 1, COLV (5)), MOVI (0, 100), ALUR (DIV, 0, 2), EXIT), 0),
  ACCEPT ("mod_by_maybe_zero_register", PROG (LDX (DW, 2, 1, COLV (5)), MOVI (0, 7), ALUR (MOD, 0, 2), EXIT), 7),
  ACCEPT ("signed_division", PROG (MOVI (0, -7), RAW (OSSD_BPF_ALU64 | OSSD_BPF_DIV | OSSD_BPF_K, 0, 0, 1, 2), EXIT),
          (int64_t) (uint32_t) -3),
  ACCEPT ("alu32_wraps", PROG (MOV32I (0, -1), ALU32I (ADD, 0, 2), EXIT), 1),
  ACCEPT ("column_byte_load_checked", PROG (LDX (DW, 2, 1, COLD (1)), LDX (B, 0, 2, 0), EXIT), 'h'),
  ACCEPT ("column_variable_offset_checked", PROG (LDX (DW, 2, 1, COLD (1)), LDX (W, 3, 1, COLL (1)), ALUR (ADD, 2, 3),
                                                  LDX (B, 0, 2, -1), EXIT), 'd'),
  ACCEPT ("column_null_check", PROG (LDX (DW, 2, 1, COLD (5)), JI (JNE, 2, 0, 2), MOVI (0, 2), EXIT, LDX (B, 0, 2, 0),
                                     EXIT), 2),
  ACCEPT ("bpchar_eq_trailing_blanks", PROG (LDRO (1, RO_BPA), MOVI (2, 4), LDRO (3, RO_BPB), MOVI (4, 2),
                                             CALL (BPCHAR_EQ), EXIT), 1),
  ACCEPT ("lddw_imm64", PROG (LD64 (0, 0x100000001ull), ALUI (RSH, 0, 32), EXIT), 1),
  ACCEPT ("jmp32_signed", PROG (MOV32I (2, -1), J32I (JSLT, 2, 0, 2), RET (0), RET (1)), 1),
  ACCEPT ("numeric_overflow_to_host", PROG (LD64 (1, 0x7fffffffffffffffull), MOVI (2, 0), MOVR (3, 10), ALUI (ADD, 3, -24),
                                            CALL (NUMERIC_FROM_INT), MOVR (1, 10), ALUI (ADD, 1, -24), MOVR (2, 1),
                                            MOVR (3, 10), ALUI (ADD, 3, -48), CALL (NUMERIC_MUL),
                                            MOVR (1, 10), ALUI (ADD, 1, -48), MOVR (2, 1), MOVR (3, 1),
                                            CALL (NUMERIC_MUL), RET (1)), OSSD_ROW_TO_HOST),
  ACCEPT ("rodata_constant_load", PROG (LDRO (2, RO_U32_4), LDX (W, 0, 2, 0), EXIT), 4),
  ACCEPT ("hash64_deterministic", PROG (MOVR (6, 1), LDX (W, 2, 6, COLL (1)), LDX (DW, 1, 6, COLD (1)), MOVI (3, 7),
                                        CALL (HASH64), MOVR (7, 0), LDX (W, 2, 6, COLL (1)), LDX (DW, 1, 6, COLD (1)),
                                        MOVI (3, 7), CALL (HASH64), MOVI (8, 1), JR (JEQ, 0, 7, 1), MOVI (8, 0),
                                        MOVR (0, 8), EXIT), 1),
  ACCEPT ("column_read_past_end_faults", PROG (LDX (DW, 2, 1, COLD (1)), LDX (B, 0, 2, 100), EXIT), OSSD_RT_FAULT),
  ACCEPT ("null_column_read_faults", PROG (LDX (DW, 2, 1, COLD (5)), LDX (B, 0, 2, 0), EXIT), OSSD_RT_FAULT),
  ACCEPT ("stack_bytes_roundtrip", PROG (STI (W, 10, -4, 0x01020304), LDX (H, 0, 10, -4), EXIT), 0x0304),
  ACCEPT ("branch_refines_range", PROG (LDX (DW, 2, 1, COLV (0)), MOVI (0, 0), JI (JGT, 2, 63, 5), MOVR (3, 10), ALUI (ADD, 3, -64),
                                        ALUR (ADD, 3, 2), STI (B, 3, 0, 9), MOVI (0, 1), EXIT), 1),
};
#endif
