/* alu_eval.c - the eBPF ALU and conditional-jump semantics in one place
 * (RFC 9669), shared by the interpreter and the verifier's constant
 * folding so both agree bit for bit.  Defined cases: x/0 = 0, x%0 = x,
 * signed INT_MIN/-1 = INT_MIN and INT_MIN%-1 = 0, shift counts masked. */
#include "alu_eval.h"

static uint64_t
sext (uint64_t v, int bits)
{
  uint64_t m = 1ull << (bits - 1);
  v &= bits == 64 ? ~0ull : (1ull << bits) - 1;
  return (v ^ m) - m;
}

static uint64_t
bswap_n (uint64_t v, int bits)
{
  switch (bits)
    {
    case 16: return __builtin_bswap16 ((uint16_t) v);
    case 32: return __builtin_bswap32 ((uint32_t) v);
    default: return __builtin_bswap64 (v);
    }
}

static uint64_t
alu64 (uint8_t op, int16_t off, uint64_t d, uint64_t s)
{
  int64_t sd = (int64_t) d, ss = (int64_t) s;
  switch (op)
    {
    case OSSD_BPF_ADD: return d + s;
    case OSSD_BPF_SUB: return d - s;
    case OSSD_BPF_MUL: return d * s;
    case OSSD_BPF_DIV:
      if (s == 0)
        return 0;
      if (off == 1)
        return (sd == INT64_MIN && ss == -1) ? d : (uint64_t) (sd / ss);
      return d / s;
    case OSSD_BPF_MOD:
      if (s == 0)
        return d;
      if (off == 1)
        return ss == -1 ? 0 : (uint64_t) (sd % ss);
      return d % s;
    case OSSD_BPF_OR: return d | s;
    case OSSD_BPF_AND: return d & s;
    case OSSD_BPF_XOR: return d ^ s;
    case OSSD_BPF_LSH: return d << (s & 63);
    case OSSD_BPF_RSH: return d >> (s & 63);
    case OSSD_BPF_ARSH: return (uint64_t) (sd >> (s & 63));
    case OSSD_BPF_NEG: return -d;
    case OSSD_BPF_MOV: return off ? sext (s, off) : s;
    default: return 0;
    }
}

static uint32_t
alu32 (uint8_t op, int16_t off, uint32_t d, uint32_t s)
{
  int32_t sd = (int32_t) d, ss = (int32_t) s;
  switch (op)
    {
    case OSSD_BPF_ADD: return d + s;
    case OSSD_BPF_SUB: return d - s;
    case OSSD_BPF_MUL: return d * s;
    case OSSD_BPF_DIV:
      if (s == 0)
        return 0;
      if (off == 1)
        return (sd == INT32_MIN && ss == -1) ? d : (uint32_t) (sd / ss);
      return d / s;
    case OSSD_BPF_MOD:
      if (s == 0)
        return d;
      if (off == 1)
        return ss == -1 ? 0 : (uint32_t) (sd % ss);
      return d % s;
    case OSSD_BPF_OR: return d | s;
    case OSSD_BPF_AND: return d & s;
    case OSSD_BPF_XOR: return d ^ s;
    case OSSD_BPF_LSH: return d << (s & 31);
    case OSSD_BPF_RSH: return d >> (s & 31);
    case OSSD_BPF_ARSH: return (uint32_t) (sd >> (s & 31));
    case OSSD_BPF_NEG: return -d;
    case OSSD_BPF_MOV: return off ? (uint32_t) sext (s, off) : s;
    default: return 0;
    }
}

uint64_t
ossd_alu_eval (uint8_t code, int16_t off, int32_t imm, uint64_t dst,
               uint64_t src)
{
  uint8_t op = OSSD_BPF_OP (code);
  if (op == OSSD_BPF_END)
    {
      if (OSSD_BPF_CLASS (code) == OSSD_BPF_ALU64)
        return bswap_n (dst, imm);          /* unconditional bswap */
      if (OSSD_BPF_SRC (code) == OSSD_BPF_X)
        return bswap_n (dst, imm);          /* to big endian (LE host) */
      return imm == 64 ? dst : dst & ((1ull << imm) - 1);  /* to LE: truncate */
    }
  if (OSSD_BPF_CLASS (code) == OSSD_BPF_ALU64)
    return alu64 (op, off, dst, src);
  return alu32 (op, off, (uint32_t) dst, (uint32_t) src);
}

bool
ossd_jmp_eval (uint8_t code, uint64_t d, uint64_t s)
{
  bool is32 = OSSD_BPF_CLASS (code) == OSSD_BPF_JMP32;
  if (is32)
    {
      d = (uint32_t) d;
      s = (uint32_t) s;
    }
  int64_t sd = is32 ? (int32_t) d : (int64_t) d;
  int64_t ss = is32 ? (int32_t) s : (int64_t) s;
  switch (OSSD_BPF_OP (code))
    {
    case OSSD_BPF_JEQ: return d == s;
    case OSSD_BPF_JNE: return d != s;
    case OSSD_BPF_JGT: return d > s;
    case OSSD_BPF_JGE: return d >= s;
    case OSSD_BPF_JLT: return d < s;
    case OSSD_BPF_JLE: return d <= s;
    case OSSD_BPF_JSGT: return sd > ss;
    case OSSD_BPF_JSGE: return sd >= ss;
    case OSSD_BPF_JSLT: return sd < ss;
    case OSSD_BPF_JSLE: return sd <= ss;
    case OSSD_BPF_JSET: return (d & s) != 0;
    default: return false;
    }
}
