/* helpers_internal.h - prototypes of the helper implementations, shared
 * between the helpers_*.c files and the helper table (not installed). */
#ifndef OSSD_HELPERS_INTERNAL_H
#define OSSD_HELPERS_INTERNAL_H

#include "ossd_rt.h"

#define OSSD_HELPER_DECL(name) \
  uint64_t name (uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, \
                 uint64_t a5, struct ossd_exec_state *st)

/* Ends the row as OSSD_ROW_TO_HOST; the helper then returns 0. */
static inline uint64_t
ossd_helper_give_up (struct ossd_exec_state *st)
{
  st->row_to_host = 1;
  return 0;
}

static inline const void *
ossd_helper_ptr (uint64_t addr)
{
  return (const void *) (uintptr_t) addr;
}

OSSD_HELPER_DECL (ossd_h_numeric_cmp);
OSSD_HELPER_DECL (ossd_h_numeric_add);
OSSD_HELPER_DECL (ossd_h_numeric_sub);
OSSD_HELPER_DECL (ossd_h_numeric_mul);
OSSD_HELPER_DECL (ossd_h_numeric_from_int);
OSSD_HELPER_DECL (ossd_h_numeric_to_float8);
OSSD_HELPER_DECL (ossd_h_numeric_from_float8);
OSSD_HELPER_DECL (ossd_h_float8_cmp);
OSSD_HELPER_DECL (ossd_h_float8_add);
OSSD_HELPER_DECL (ossd_h_float8_sub);
OSSD_HELPER_DECL (ossd_h_float8_mul);
OSSD_HELPER_DECL (ossd_h_float8_div);
OSSD_HELPER_DECL (ossd_h_float8_from_int);
OSSD_HELPER_DECL (ossd_h_text_cmp);
OSSD_HELPER_DECL (ossd_h_text_eq);
OSSD_HELPER_DECL (ossd_h_text_like);
OSSD_HELPER_DECL (ossd_h_text_prefix);
OSSD_HELPER_DECL (ossd_h_bpchar_eq);
OSSD_HELPER_DECL (ossd_h_bpchar_cmp);
OSSD_HELPER_DECL (ossd_h_date_cmp);
OSSD_HELPER_DECL (ossd_h_timestamp_cmp);
OSSD_HELPER_DECL (ossd_h_hash64);
OSSD_HELPER_DECL (ossd_h_text_substr_cmp);

/* Pure C forms (tested directly). */
int ossd_float8_cmp_bits (uint64_t a, uint64_t b);
/* 1 match, 0 no match, -1 cannot decide (row to host). */
int ossd_text_like (const uint8_t *s, size_t slen, const uint8_t *p, size_t plen);
/* The bytes [*off, *off + *len) of s that substring spec selects
 * (OSSD_SUBSTR_*); 0, or -1 when it cannot decide (row to host). */
int ossd_text_substr (const uint8_t *s, size_t slen, uint64_t spec,
                      size_t *off, size_t *len);
uint64_t ossd_hash64 (const void *data, size_t len, uint64_t seed);
/* float8 -> numeric as PostgreSQL's float8_numeric (%.15g), at scale. */
int ossd_numeric_from_double (double d, int32_t scale, struct ossd_numeric *out);
int ossd_numeric_to_double (const struct ossd_numeric *n, double *out);

#endif
