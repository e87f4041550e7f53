/* SPDX-License-Identifier: Apache-2.0 */
/* The PEs' expf/logf (firmware/lib/wse_math.c), the same source compiled
 * into libwsehost (with -ffp-contract=off -fno-builtin, mk/training.mk) so
 * the host reference computes the same bits as the mesh. */
#include "../../firmware/lib/wse_math.c"
