/* numeric_internal.h - 128-bit helpers shared by the NUMERIC files of the
 * runtime (not installed). */
#ifndef OSSD_NUMERIC_INTERNAL_H
#define OSSD_NUMERIC_INTERNAL_H

#include "ossd_rt.h"

typedef __int128 i128;

i128 ossd_num_get (const struct ossd_numeric *n);
void ossd_num_set (struct ossd_numeric *n, i128 v, int32_t scale);
bool ossd_num_scale_ok (int32_t scale);
i128 ossd_num_pow10 (int e);
bool ossd_num_scale_up (i128 v, int e, i128 *out);
int ossd_num_abs_digits (i128 v, char buf[40]);
bool ossd_num_fits (i128 v);

#endif
