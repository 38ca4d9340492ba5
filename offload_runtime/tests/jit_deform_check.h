/* jit_deform_check.h - comparing what two runners of one fused deform +
 * bind program (struct ossd_bind_prog) wrote for a tuple: ossd_bind_fused
 * and the JIT-compiled deform (jit_deform.c).  Every column, numeric and
 * datum the program writes must be equal field by field; a numeric
 * column's data pointer points at each runner's own nums[col].  Static
 * functions only; included by test_tuple_bind.c and test_jit_deform.c
 * (cmocka asserts). */
#ifndef JIT_DEFORM_CHECK_H
#define JIT_DEFORM_CHECK_H

#include <stdint.h>
#include <string.h>

#define OSSD_SCAN_INTERNAL
#include "ossd_scan.h"

#define DEFORM_MAX 64          /* columns and attributes of the tests' programs */

struct deform_out
{
  struct ossd_col cols[DEFORM_MAX];
  struct ossd_numeric nums[DEFORM_MAX];
  struct ossd_datum datums[DEFORM_MAX];
};

static void
deform_col_equal (uint8_t col, const struct ossd_col *ac, const struct ossd_numeric *an,
                  const struct ossd_col *bc, const struct ossd_numeric *bn)
{
  const struct ossd_col *a = &ac[col], *b = &bc[col];
  assert_int_equal (a->value, b->value);
  assert_int_equal (a->len, b->len);
  assert_int_equal (a->isnull, b->isnull);
  assert_int_equal (a->type, b->type);
  assert_int_equal (a->pad, b->pad);
  bool a_num = a->data == (uint64_t) (uintptr_t) &an[col];
  bool b_num = b->data == (uint64_t) (uintptr_t) &bn[col];
  assert_int_equal (a_num, b_num);
  if (!a_num)
    {
      assert_int_equal (a->data, b->data);
      return;
    }
  assert_int_equal (an[col].lo, bn[col].lo);
  assert_int_equal (an[col].hi, bn[col].hi);
  assert_int_equal (an[col].scale, bn[col].scale);
  assert_int_equal (an[col].flags, bn[col].flags);
}

static void
deform_outputs_equal (const struct ossd_bind_prog *p, const struct ossd_col *ac,
                      const struct ossd_numeric *an, const struct ossd_datum *ad,
                      const struct ossd_col *bc, const struct ossd_numeric *bn,
                      const struct ossd_datum *bd)
{
  for (uint32_t i = 0; i < p->nsteps; i++)
    {
      const struct ossd_bind_step *st = &p->steps[i];
      for (uint32_t k = st->first_sink; k < (uint32_t) st->first_sink + st->nsinks; k++)
        deform_col_equal (p->sinks[k].col, ac, an, bc, bn);
      if (!st->put_datum)
        continue;
      const struct ossd_datum *a = &ad[st->attno], *b = &bd[st->attno];
      assert_int_equal (a->isnull, b->isnull);
      assert_int_equal (a->flags, b->flags);
      assert_int_equal (a->datum, b->datum);
      assert_ptr_equal (a->ptr, b->ptr);
      assert_int_equal (a->len, b->len);
    }
}

#endif
