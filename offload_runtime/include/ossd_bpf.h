/* ossd_bpf.h - the eBPF instruction set as the runtime sees it: the
 * instruction struct, opcode fields and small instruction-building macros
 * (used by pg_ossd's qual compiler, the tests and the fuzzer).
 *
 * Encoding (RFC 9669): 8 bytes per instruction; code = class | size/op |
 * mode/source; dst_reg in the low nibble of byte 1, src_reg in the high
 * nibble; lddw takes two slots (imm of the second slot is the high word).
 */
#ifndef OSSD_BPF_ISA_H
#define OSSD_BPF_ISA_H

#include <stdint.h>

struct ossd_insn
{
  uint8_t code;
  uint8_t dst_reg:4;
  uint8_t src_reg:4;
  int16_t off;
  int32_t imm;
};

/* Registers */
enum { OSSD_R0, OSSD_R1, OSSD_R2, OSSD_R3, OSSD_R4, OSSD_R5, OSSD_R6,
       OSSD_R7, OSSD_R8, OSSD_R9, OSSD_R10, OSSD_NREGS };

/* Classes */
#define OSSD_BPF_LD    0x00
#define OSSD_BPF_LDX   0x01
#define OSSD_BPF_ST    0x02
#define OSSD_BPF_STX   0x03
#define OSSD_BPF_ALU   0x04
#define OSSD_BPF_JMP   0x05
#define OSSD_BPF_JMP32 0x06
#define OSSD_BPF_ALU64 0x07
#define OSSD_BPF_CLASS(code) ((code) & 0x07)

/* Load/store size and mode */
#define OSSD_BPF_W    0x00
#define OSSD_BPF_H    0x08
#define OSSD_BPF_B    0x10
#define OSSD_BPF_DW   0x18
#define OSSD_BPF_SIZE(code) ((code) & 0x18)
#define OSSD_BPF_IMM    0x00
#define OSSD_BPF_ABS    0x20
#define OSSD_BPF_IND    0x40
#define OSSD_BPF_MEM    0x60
#define OSSD_BPF_MEMSX  0x80    /* sign-extending load (LDX only) */
#define OSSD_BPF_ATOMIC 0xc0
#define OSSD_BPF_MODE(code) ((code) & 0xe0)

/* ALU / JMP operation and source */
#define OSSD_BPF_K 0x00
#define OSSD_BPF_X 0x08
#define OSSD_BPF_SRC(code) ((code) & 0x08)
#define OSSD_BPF_OP(code)  ((code) & 0xf0)

#define OSSD_BPF_ADD  0x00
#define OSSD_BPF_SUB  0x10
#define OSSD_BPF_MUL  0x20
#define OSSD_BPF_DIV  0x30      /* off = 1: signed */
#define OSSD_BPF_OR   0x40
#define OSSD_BPF_AND  0x50
#define OSSD_BPF_LSH  0x60
#define OSSD_BPF_RSH  0x70
#define OSSD_BPF_NEG  0x80
#define OSSD_BPF_MOD  0x90      /* off = 1: signed */
#define OSSD_BPF_XOR  0xa0
#define OSSD_BPF_MOV  0xb0      /* off = 8/16/32: sign-extending move */
#define OSSD_BPF_ARSH 0xc0
#define OSSD_BPF_END  0xd0      /* ALU: K = to LE, X = to BE; ALU64|K: bswap */

#define OSSD_BPF_JA   0x00
#define OSSD_BPF_JEQ  0x10
#define OSSD_BPF_JGT  0x20
#define OSSD_BPF_JGE  0x30
#define OSSD_BPF_JSET 0x40
#define OSSD_BPF_JNE  0x50
#define OSSD_BPF_JSGT 0x60
#define OSSD_BPF_JSGE 0x70
#define OSSD_BPF_CALL 0x80
#define OSSD_BPF_EXIT 0x90
#define OSSD_BPF_JLT  0xa0
#define OSSD_BPF_JLE  0xb0
#define OSSD_BPF_JSLT 0xc0
#define OSSD_BPF_JSLE 0xd0

/* lddw src_reg values */
#define OSSD_PSEUDO_NONE        0   /* 64-bit immediate */
#define OSSD_PSEUDO_MAP_FD      1   /* not supported: rejected */
#define OSSD_PSEUDO_RODATA      2   /* pointer to rodata + imm (BPF_PSEUDO_MAP_VALUE) */
/* call src_reg values */
#define OSSD_PSEUDO_CALL        1   /* bpf-to-bpf call: not supported */

/* ---- Instruction-building macros ----
 * Each expands to a brace initializer, so they can build constant arrays:
 *   static const struct ossd_insn prog[] = { OSSD_MOV64_IMM (0, 1), OSSD_EXIT () };
 * For a single instruction in an expression use a compound literal:
 *   insn[i] = (struct ossd_insn) OSSD_EXIT ();
 * OSSD_LD_IMM64 and OSSD_LD_RODATA expand to two array elements. */
#define OSSD_INSN(c, d, s, o, i) \
  { .code = (uint8_t) (c), .dst_reg = (d), .src_reg = (s), .off = (int16_t) (o), .imm = (int32_t) (i) }

#define OSSD_ALU64_REG(op, d, s) OSSD_INSN (OSSD_BPF_ALU64 | (op) | OSSD_BPF_X, d, s, 0, 0)
#define OSSD_ALU64_IMM(op, d, i) OSSD_INSN (OSSD_BPF_ALU64 | (op) | OSSD_BPF_K, d, 0, 0, i)
#define OSSD_ALU32_REG(op, d, s) OSSD_INSN (OSSD_BPF_ALU | (op) | OSSD_BPF_X, d, s, 0, 0)
#define OSSD_ALU32_IMM(op, d, i) OSSD_INSN (OSSD_BPF_ALU | (op) | OSSD_BPF_K, d, 0, 0, i)
#define OSSD_MOV64_REG(d, s)     OSSD_ALU64_REG (OSSD_BPF_MOV, d, s)
#define OSSD_MOV64_IMM(d, i)     OSSD_ALU64_IMM (OSSD_BPF_MOV, d, i)
#define OSSD_MOV32_REG(d, s)     OSSD_ALU32_REG (OSSD_BPF_MOV, d, s)
#define OSSD_MOV32_IMM(d, i)     OSSD_ALU32_IMM (OSSD_BPF_MOV, d, i)
/* dst = *(size *)(src + off) */
#define OSSD_LDX_MEM(sz, d, s, o) OSSD_INSN (OSSD_BPF_LDX | (sz) | OSSD_BPF_MEM, d, s, o, 0)
/* *(size *)(dst + off) = src */
#define OSSD_STX_MEM(sz, d, s, o) OSSD_INSN (OSSD_BPF_STX | (sz) | OSSD_BPF_MEM, d, s, o, 0)
/* *(size *)(dst + off) = imm */
#define OSSD_ST_MEM(sz, d, o, i)  OSSD_INSN (OSSD_BPF_ST | (sz) | OSSD_BPF_MEM, d, 0, o, i)
#define OSSD_JMP_REG(op, d, s, o) OSSD_INSN (OSSD_BPF_JMP | (op) | OSSD_BPF_X, d, s, o, 0)
#define OSSD_JMP_IMM(op, d, i, o) OSSD_INSN (OSSD_BPF_JMP | (op) | OSSD_BPF_K, d, 0, o, i)
#define OSSD_JMP32_REG(op, d, s, o) OSSD_INSN (OSSD_BPF_JMP32 | (op) | OSSD_BPF_X, d, s, o, 0)
#define OSSD_JMP32_IMM(op, d, i, o) OSSD_INSN (OSSD_BPF_JMP32 | (op) | OSSD_BPF_K, d, 0, o, i)
#define OSSD_JA(o)                OSSD_INSN (OSSD_BPF_JMP | OSSD_BPF_JA, 0, 0, o, 0)
#define OSSD_CALL(helper)         OSSD_INSN (OSSD_BPF_JMP | OSSD_BPF_CALL, 0, 0, 0, helper)
#define OSSD_EXIT()               OSSD_INSN (OSSD_BPF_JMP | OSSD_BPF_EXIT, 0, 0, 0, 0)
/* Two slots each: 64-bit immediate, and pointer to rodata + off. */
#define OSSD_LD_IMM64(d, v) \
  OSSD_INSN (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM, d, 0, 0, (int32_t) (uint32_t) (uint64_t) (v)), \
  OSSD_INSN (0, 0, 0, 0, (int32_t) (uint32_t) ((uint64_t) (v) >> 32))
#define OSSD_LD_RODATA(d, o) \
  OSSD_INSN (OSSD_BPF_LD | OSSD_BPF_DW | OSSD_BPF_IMM, d, OSSD_PSEUDO_RODATA, 0, o), \
  OSSD_INSN (0, 0, 0, 0, 0)

#endif /* OSSD_BPF_ISA_H */
