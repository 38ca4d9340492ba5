/* q6_kernels.h - the TPC-H Q6 kernels bench_scan compares, with the
 * bindings col[0] = l_shipdate, col[1] = l_discount, col[2] = l_quantity,
 * col[3] = l_extendedprice:
 *   filter: the clang-built example offload_runtime/examples/q6_filter.c
 *           (ELF, loaded from the examples directory) - or its hand-written
 *           C twin q6_c_filter;
 *   map:    out[0] = l_extendedprice * l_discount (numeric, exact), raw
 *           eBPF bytecode as pg_ossd's qual compiler emits it - or the C
 *           twin q6_c_map.
 * The C twins use the same exact numeric code the helpers use
 * (ossd_numeric_cmp / ossd_numeric_mul), so all three engines compute the
 * same thing. */
#ifndef BENCH_Q6_KERNELS_H
#define BENCH_Q6_KERNELS_H

#include <stddef.h>

#include "ossd_rt.h"

int q6_load_filter (const char *path, struct ossd_prog **out, char *err, size_t errlen);
int q6_build_map (struct ossd_prog **out, char *err, size_t errlen);
int q6_c_filter (void *kernel, struct ossd_kctx *ctx, void *state);
int q6_c_map (void *kernel, struct ossd_kctx *ctx, void *state);

#endif
