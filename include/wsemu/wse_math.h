/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_math.h - expf and logf of wsemu, one C source (wire/wse_math.c, in
 * the wire library) for the PEs and the host.
 *
 * Both functions use only binary32 additions, multiplications, one
 * division (logf) and integer operations, in a fixed order, so a build with
 * -ffp-contract=off -fno-builtin gives the same bits on the PE (rv32imf)
 * and on the host (x86-64 SSE). Accuracy against glibc is checked by
 * tests/train/test_wse_math.c (docs/training-dataflow.md, section
 * "expf and logf"). Rounding mode: round to nearest even.
 */
#ifndef WSE_MATH_H
#define WSE_MATH_H

#ifdef __cplusplus
extern "C" {
#endif

float wse_expf(float x);
float wse_logf(float x);

#ifdef __cplusplus
}
#endif
#endif /* WSE_MATH_H */
