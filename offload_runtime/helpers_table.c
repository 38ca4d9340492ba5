/* helpers_table.c - the const helper table: function pointers and the
 * typed prototypes the verifier checks calls against (ossd_kernel.h:
 * P = readable memory, W = writable memory, S = scalar). */
#include "helpers_internal.h"

#define S OSSD_ARG_SCALAR
#define PN OSSD_ARG_NUMERIC_RO
#define WN OSSD_ARG_NUMERIC_W
#define PM OSSD_ARG_MEM_RO
#define SZ OSSD_ARG_MEM_SIZE
#define ANY INT64_MIN, INT64_MAX

#define H(id, fname, n, a, b, c, d, ...) \
  [id] = { #fname, ossd_h_##fname, n, { a, b, c, d, 0 }, __VA_ARGS__ }

const struct ossd_helper_proto ossd_helper_protos[OSSD_H_MAX + 1] = {
  H (OSSD_H_NUMERIC_CMP, numeric_cmp, 2, PN, PN, 0, 0, -1, 1),
  H (OSSD_H_NUMERIC_ADD, numeric_add, 3, PN, PN, WN, 0, 0, 0),
  H (OSSD_H_NUMERIC_SUB, numeric_sub, 3, PN, PN, WN, 0, 0, 0),
  H (OSSD_H_NUMERIC_MUL, numeric_mul, 3, PN, PN, WN, 0, 0, 0),
  H (OSSD_H_NUMERIC_FROM_INT, numeric_from_int, 3, S, S, WN, 0, 0, 0),
  H (OSSD_H_FLOAT8_CMP, float8_cmp, 2, S, S, 0, 0, -1, 1),
  H (OSSD_H_FLOAT8_ADD, float8_add, 2, S, S, 0, 0, ANY),
  H (OSSD_H_FLOAT8_SUB, float8_sub, 2, S, S, 0, 0, ANY),
  H (OSSD_H_FLOAT8_MUL, float8_mul, 2, S, S, 0, 0, ANY),
  H (OSSD_H_FLOAT8_DIV, float8_div, 2, S, S, 0, 0, ANY),
  H (OSSD_H_FLOAT8_FROM_INT, float8_from_int, 1, S, 0, 0, 0, ANY),
  H (OSSD_H_NUMERIC_TO_FLOAT8, numeric_to_float8, 1, PN, 0, 0, 0, ANY),
  H (OSSD_H_TEXT_CMP, text_cmp, 4, PM, SZ, PM, SZ, -1, 1),
  H (OSSD_H_TEXT_EQ, text_eq, 4, PM, SZ, PM, SZ, 0, 1),
  H (OSSD_H_TEXT_LIKE, text_like, 4, PM, SZ, PM, SZ, 0, 1),
  H (OSSD_H_TEXT_PREFIX, text_prefix, 4, PM, SZ, PM, SZ, 0, 1),
  H (OSSD_H_BPCHAR_EQ, bpchar_eq, 4, PM, SZ, PM, SZ, 0, 1),
  H (OSSD_H_DATE_CMP, date_cmp, 2, S, S, 0, 0, -1, 1),
  H (OSSD_H_TIMESTAMP_CMP, timestamp_cmp, 2, S, S, 0, 0, -1, 1),
  H (OSSD_H_HASH64, hash64, 3, PM, SZ, S, 0, ANY),
  H (OSSD_H_NUMERIC_FROM_FLOAT8, numeric_from_float8, 3, S, S, WN, 0, 0, 0),
  H (OSSD_H_BPCHAR_CMP, bpchar_cmp, 4, PM, SZ, PM, SZ, -1, 1),
  [OSSD_H_TEXT_SUBSTR_CMP] = { "text_substr_cmp", ossd_h_text_substr_cmp, 5,
                               { PM, SZ, S, PM, SZ }, -1, 1 },
};

#define F(id, fname) [id] = ossd_h_##fname
const ossd_helper_fn ossd_helpers[OSSD_H_MAX + 1] = {
  F (OSSD_H_NUMERIC_CMP, numeric_cmp),
  F (OSSD_H_NUMERIC_ADD, numeric_add),
  F (OSSD_H_NUMERIC_SUB, numeric_sub),
  F (OSSD_H_NUMERIC_MUL, numeric_mul),
  F (OSSD_H_NUMERIC_FROM_INT, numeric_from_int),
  F (OSSD_H_FLOAT8_CMP, float8_cmp),
  F (OSSD_H_FLOAT8_ADD, float8_add),
  F (OSSD_H_FLOAT8_SUB, float8_sub),
  F (OSSD_H_FLOAT8_MUL, float8_mul),
  F (OSSD_H_FLOAT8_DIV, float8_div),
  F (OSSD_H_FLOAT8_FROM_INT, float8_from_int),
  F (OSSD_H_NUMERIC_TO_FLOAT8, numeric_to_float8),
  F (OSSD_H_TEXT_CMP, text_cmp),
  F (OSSD_H_TEXT_EQ, text_eq),
  F (OSSD_H_TEXT_LIKE, text_like),
  F (OSSD_H_TEXT_PREFIX, text_prefix),
  F (OSSD_H_BPCHAR_EQ, bpchar_eq),
  F (OSSD_H_DATE_CMP, date_cmp),
  F (OSSD_H_TIMESTAMP_CMP, timestamp_cmp),
  F (OSSD_H_HASH64, hash64),
  F (OSSD_H_NUMERIC_FROM_FLOAT8, numeric_from_float8),
  F (OSSD_H_BPCHAR_CMP, bpchar_cmp),
  F (OSSD_H_TEXT_SUBSTR_CMP, text_substr_cmp),
};

const struct ossd_helper_proto *
ossd_helper_lookup (int32_t id)
{
  if (id <= 0 || id > OSSD_H_MAX || ossd_helper_protos[id].fn == NULL)
    return NULL;
  return &ossd_helper_protos[id];
}
