/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_crc32c.h - CRC-32C of wsemu (wire/crc32c.c, in libwsewire): the link
 * protocol's header and payload CRCs (docs/protocol.md), checkpoint files
 * and flash images. Freestanding: builds for the host and for rv32.
 */
#ifndef WSEMU_WSE_CRC32C_H
#define WSEMU_WSE_CRC32C_H

#include "wsemu/wse_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, initial value and
 * final xor 0xFFFFFFFF; crc of "123456789" = 0xE3069283). Start with
 * crc = 0 and feed any number of pieces, each call continuing from the
 * finished CRC of the bytes before. Never fails; len 0 returns crc. */
wse_u32 wse_crc32c_update(wse_u32 crc, const void *buf, unsigned long len)
	__attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif
#endif /* WSEMU_WSE_CRC32C_H */
