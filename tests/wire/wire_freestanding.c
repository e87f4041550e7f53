/* SPDX-License-Identifier: Apache-2.0 */
/* The freestanding headers of the wire library stand alone: compiled with
 * no C library headers at all (-ffreestanding -nostdinc), for the host and
 * for the RV32 firmware target, and the types have the widths the protocol
 * needs. */
#include "wsemu/wse_crc32c.h"
#include "wsemu/wse_error.h"
#include "wsemu/wse_math.h"
#include "wsemu/wse_pcie.h"
#include "wsemu/wse_wire.h"

_Static_assert(sizeof(wse_u8) == 1, "wse_u8");
_Static_assert(sizeof(wse_u16) == 2, "wse_u16");
_Static_assert(sizeof(wse_u32) == 4, "wse_u32");
_Static_assert(sizeof(wse_u64) == 8, "wse_u64");
_Static_assert(WSE_HDR_OFF_HCRC + 4 == WSE_HDR_BYTES, "header layout");
_Static_assert(WSE_FRAME_BYTES(0) % WSE_PROTO_ALIGN == 0, "frame alignment");
_Static_assert(WSE_FRAME_BYTES(9) == 48, "frame size");
_Static_assert(WSE_ERROR_OTHER < 0, "errors are negative");
_Static_assert(sizeof(struct wse_pcie_desc) == WSE_PCIE_DESC_BYTES, "PCIe descriptor");

wse_u32 wire_selftest(void);
wse_u32 wire_selftest(void)
{
	wse_u8 b[8];
	wse_put_le64(b, wse_wavelet(1, 2, 1));
	return wse_crc32c_update(0, b, sizeof(b)) ^ wse_get_le32(b);
}
