/* alu_eval.h - shared eBPF ALU/jump semantics (not installed; the JIT may
 * use it for constant folding). */
#ifndef OSSD_ALU_EVAL_H
#define OSSD_ALU_EVAL_H
#include <stdbool.h>
#include "ossd_rt.h"

/* dst OP src for an ALU/ALU64 instruction; src is the register value or
 * the sign-extended imm.  The result is zero-extended for ALU (32-bit). */
uint64_t ossd_alu_eval (uint8_t code, int16_t off, int32_t imm, uint64_t dst,
                        uint64_t src);
/* Outcome of a conditional JMP/JMP32. */
bool ossd_jmp_eval (uint8_t code, uint64_t dst, uint64_t src);
#endif
