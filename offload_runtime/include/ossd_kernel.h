/* ossd_kernel.h - the kernel ABI: what an offloaded eBPF kernel sees.
 *
 * This header is installed for kernel authors with the extension, in
 * $(pg_config --includedir-server)/extension/pg_ossd/ (restricted C
 * compiled with `clang-14 -O2 -target bpf -I$(pg_config
 * --includedir-server)/extension/pg_ossd -c k.c -o k.o`); it is the contract between
 * pg_ossd's qual compiler, the verifier, the interpreter, the JIT and the
 * heap scan engine.  Change it only together with all of them.
 *
 * A kernel is called once per candidate row with r1 = struct ossd_kctx *.
 *   filter kernel: returns OSSD_ROW_SKIP (0) or OSSD_ROW_MATCH (1);
 *   map kernel:    writes ctx->out[0..nout-1], returns OSSD_ROW_MATCH
 *                  (or OSSD_ROW_SKIP to drop the row);
 *   either may return OSSD_ROW_TO_HOST (2): the drive hands the raw row
 *   back to the host, which evaluates it with PostgreSQL's own code.
 * A helper that cannot decide exactly (numeric overflow, NaN ordering it
 * cannot model, a compressed value) ends the call as OSSD_ROW_TO_HOST
 * itself; the kernel never sees a wrong answer.
 *
 * Column i of the context is the i-th binding of the scan request (for
 * built-in quals: the i-th referenced heap attribute; for a deployed
 * kernel used through ossd_filter(name, a, b, ...): the i-th argument).
 *
 * Value representation in struct ossd_col:
 *   bool, int2, int4, int8, oid, date (int32 days since 2000-01-01),
 *   timestamp/timestamptz (int64 us since 2000-01-01):  value, sign-extended
 *   float4, float8: value holds the IEEE bits (float4 widened to float8)
 *   numeric: data -> struct ossd_numeric (materialized by the engine)
 *   text, varchar, bpchar, bytea, name: data -> bytes (no varlena header),
 *            len = byte length (bpchar keeps its padding, as stored)
 * Everything `data` points at is read-only.
 */
#ifndef OSSD_KERNEL_H
#define OSSD_KERNEL_H

#ifdef __bpf__
typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed int __s32;
typedef signed long long __s64;
#else
/* The host's own definitions (the same widths), so that this header
 * mixes with system headers that include them too. */
#include <stdint.h>
#include <linux/types.h>
#endif

#define OSSD_ROW_SKIP    0
#define OSSD_ROW_MATCH   1
#define OSSD_ROW_TO_HOST 2

#define OSSD_KCTX_MAX_COLS 32
#define OSSD_KCTX_MAX_OUT  32
#define OSSD_STACK_SIZE    512
#define OSSD_MAX_INSNS     4096     /* per program */
#define OSSD_ROW_INSN_BUDGET 100000 /* executed per row, defence in depth */

/* Type tags in ossd_col.type (what the engine put there). */
enum ossd_type_tag
{
  OSSD_T_NONE = 0, OSSD_T_BOOL, OSSD_T_INT2, OSSD_T_INT4, OSSD_T_INT8,
  OSSD_T_FLOAT4, OSSD_T_FLOAT8, OSSD_T_NUMERIC, OSSD_T_DATE,
  OSSD_T_TIMESTAMP, OSSD_T_TIMESTAMPTZ, OSSD_T_TEXT, OSSD_T_BPCHAR,
  OSSD_T_VARCHAR, OSSD_T_BYTEA, OSSD_T_NAME, OSSD_T_OID, OSSD_T_CHAR,
};

/* PostgreSQL NUMERIC as exact 128-bit fixed point: value = (hi:lo) *
 * 10^-scale, two's complement.  Values that do not fit (or NaN/Inf) never
 * reach a kernel: the row goes to the host. */
struct ossd_numeric
{
  __u64 lo;
  __s64 hi;
  __s32 scale;
  __u32 flags;                 /* 0; reserved */
};

struct ossd_col
{
  __u64 value;                 /* by-value datum (see above) */
  __u64 data;                  /* pointer to by-reference data, else 0 */
  __u32 len;                   /* bytes at data */
  __u8 isnull;
  __u8 type;                   /* enum ossd_type_tag */
  __u16 pad;
};

/* Output column of a map kernel.  Fixed types write value; numeric
 * outputs write num (at any scale: the engine rescales exactly or hands
 * the row to the host). */
struct ossd_outcol
{
  __u64 value;
  struct ossd_numeric num;
  __u8 isnull;
  __u8 pad[7];
};

struct ossd_kctx
{
  __u32 ncols;                 /* bound columns */
  __u32 nout;                  /* writable output columns */
  __u64 block;                 /* heap block number (informative) */
  __u32 offnum;                /* line pointer number */
  __u32 pad;
  struct ossd_col col[OSSD_KCTX_MAX_COLS];     /* read-only */
  struct ossd_outcol out[OSSD_KCTX_MAX_OUT];   /* writable, first nout */
};

/* Helper IDs (eBPF `call imm`).  Prototypes below; the verifier checks
 * argument types: P = pointer to readable memory of the size stated,
 * W = pointer to writable memory (stack or ctx->out), S = scalar. */
enum ossd_helper_id
{
  OSSD_H_NUMERIC_CMP = 1,      /* (P num a, P num b) -> -1/0/1 */
  OSSD_H_NUMERIC_ADD = 2,      /* (P a, P b, W out) -> 0 */
  OSSD_H_NUMERIC_SUB = 3,
  OSSD_H_NUMERIC_MUL = 4,
  OSSD_H_NUMERIC_FROM_INT = 5, /* (S int64 v, S scale, W out) -> 0; out = v * 10^-scale */
  OSSD_H_FLOAT8_CMP = 6,       /* (S bits a, S bits b) -> -1/0/1, NaN largest */
  OSSD_H_FLOAT8_ADD = 7,       /* (S a, S b) -> bits */
  OSSD_H_FLOAT8_SUB = 8,
  OSSD_H_FLOAT8_MUL = 9,
  OSSD_H_FLOAT8_DIV = 10,      /* division by zero -> row to host */
  OSSD_H_FLOAT8_FROM_INT = 11, /* (S int64) -> bits */
  OSSD_H_NUMERIC_TO_FLOAT8 = 12,   /* (P num) -> bits */
  OSSD_H_TEXT_CMP = 13,        /* (P a, S alen, P b, S blen) -> -1/0/1 (C collation) */
  OSSD_H_TEXT_EQ = 14,         /* (P a, S alen, P b, S blen) -> 0/1 */
  OSSD_H_TEXT_LIKE = 15,       /* (P s, S slen, P pat, S plen) -> 0/1, C collation */
  OSSD_H_TEXT_PREFIX = 16,     /* (P s, S slen, P pre, S plen) -> 0/1 */
  OSSD_H_BPCHAR_EQ = 17,       /* trailing blanks ignored */
  OSSD_H_DATE_CMP = 18,        /* (S a, S b) -> -1/0/1 */
  OSSD_H_TIMESTAMP_CMP = 19,
  OSSD_H_HASH64 = 20,          /* (P data, S len, S seed) -> hash */
  OSSD_H_NUMERIC_FROM_FLOAT8 = 21, /* (S bits, S scale, W out) -> 0; as PostgreSQL's
                                      float8::numeric, at `scale` digits, else row to host */
  OSSD_H_BPCHAR_CMP = 22,
  /* Announced by OSSD_FEATURE_TEXT_SUBSTR (ossd_frame.h): an older
   * drive's verifier refuses a kernel calling it as an unknown helper,
   * so pg_ossd sends such a kernel only to a drive announcing the bit. */
  OSSD_H_TEXT_SUBSTR_CMP = 23, /* (P s, S slen, S spec, P b, S blen) -> -1/0/1: the
                                  characters of s that spec selects (OSSD_SUBSTR_*)
                                  compared byte-wise with b (C collation; 0 = equal) */
  OSSD_H_MAX = 23
};

/* spec of ossd_text_substr_cmp: skip the first SKIP characters of s, keep
 * the next TAKE (OSSD_SUBSTR_TO_END: all the rest).  UTF8: characters are
 * UTF-8 sequences (their lead bytes say their length, as PostgreSQL's
 * pg_mblen; a sequence cut short by the end of s or a NUL byte sends the
 * row to the host), else one byte each (single-byte encodings).  RTRIM:
 * trailing blanks of s are dropped first (bpchar::text). */
#define OSSD_SUBSTR_SKIP(spec)  ((__u64) (spec) & 0xffffffffull)
#define OSSD_SUBSTR_TAKE(spec)  (((__u64) (spec) >> 32) & 0x3fffffffull)
#define OSSD_SUBSTR_TO_END      0x3fffffffull
#define OSSD_SUBSTR_UTF8        (1ull << 62)
#define OSSD_SUBSTR_RTRIM       (1ull << 63)
#define OSSD_SUBSTR_SPEC(skip, take) \
  (((__u64) (skip) & 0xffffffffull) | (((__u64) (take) & 0x3fffffffull) << 32))

#ifdef __bpf__
/* Kernel authors call helpers through these typed pointers. */
#define OSSD_HELPER(id, ret, name, ...) \
  static ret (*name) (__VA_ARGS__) = (void *) (id)
OSSD_HELPER (1, long, ossd_numeric_cmp, const struct ossd_numeric *, const struct ossd_numeric *);
OSSD_HELPER (2, long, ossd_numeric_add, const struct ossd_numeric *, const struct ossd_numeric *, struct ossd_numeric *);
OSSD_HELPER (3, long, ossd_numeric_sub, const struct ossd_numeric *, const struct ossd_numeric *, struct ossd_numeric *);
OSSD_HELPER (4, long, ossd_numeric_mul, const struct ossd_numeric *, const struct ossd_numeric *, struct ossd_numeric *);
OSSD_HELPER (5, long, ossd_numeric_from_int, __s64, __s64, struct ossd_numeric *);
OSSD_HELPER (6, long, ossd_float8_cmp, __u64, __u64);
OSSD_HELPER (7, __u64, ossd_float8_add, __u64, __u64);
OSSD_HELPER (8, __u64, ossd_float8_sub, __u64, __u64);
OSSD_HELPER (9, __u64, ossd_float8_mul, __u64, __u64);
OSSD_HELPER (10, __u64, ossd_float8_div, __u64, __u64);
OSSD_HELPER (11, __u64, ossd_float8_from_int, __s64);
OSSD_HELPER (12, __u64, ossd_numeric_to_float8, const struct ossd_numeric *);
OSSD_HELPER (13, long, ossd_text_cmp, const void *, __u64, const void *, __u64);
OSSD_HELPER (14, long, ossd_text_eq, const void *, __u64, const void *, __u64);
OSSD_HELPER (15, long, ossd_text_like, const void *, __u64, const void *, __u64);
OSSD_HELPER (16, long, ossd_text_prefix, const void *, __u64, const void *, __u64);
OSSD_HELPER (17, long, ossd_bpchar_eq, const void *, __u64, const void *, __u64);
OSSD_HELPER (18, long, ossd_date_cmp, __s64, __s64);
OSSD_HELPER (19, long, ossd_timestamp_cmp, __s64, __s64);
OSSD_HELPER (20, __u64, ossd_hash64, const void *, __u64, __u64);
OSSD_HELPER (21, long, ossd_numeric_from_float8, __u64, __s64, struct ossd_numeric *);
OSSD_HELPER (22, long, ossd_bpchar_cmp, const void *, __u64, const void *, __u64);
OSSD_HELPER (23, long, ossd_text_substr_cmp, const void *, __u64, __u64, const void *, __u64);

/* Entry point: OSSD_KERNEL(name) int name(struct ossd_kctx *ctx) { ... } */
#define OSSD_KERNEL(name) \
  __attribute__ ((section ("ossd/kernel"), used)) int name (struct ossd_kctx *ctx)
#endif

/* Raw bytecode image (what pg_ossd generates): header, then insn_count
 * 8-byte eBPF instructions, then rodata_len bytes of read-only data.
 * `lddw rX, off` with src_reg = 2 (BPF_PSEUDO_MAP_VALUE) loads a pointer
 * to rodata + off; the ELF loader maps .rodata relocations the same way. */
#define OSSD_RAW_MAGIC 0x4650424fu   /* "OBPF" */
struct ossd_raw_header
{
  __u32 magic;
  __u32 version;               /* 1 */
  __u32 insn_count;
  __u32 rodata_len;
};

#endif /* OSSD_KERNEL_H */
