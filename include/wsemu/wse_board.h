/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_board.h - the board device-tree binding's rules (docs/dt-binding.md),
 * in libwsewire (wire/board.c): one check of a board's DTB, shared by
 * wse-cfggen (which generates the RTL package and the C header from it) and
 * libwsehost (which reads the device's DTB from INFO). Needs libfdt.
 */
#ifndef WSEMU_WSE_BOARD_H
#define WSEMU_WSE_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "wsemu/wse_error.h"
#include "wsemu/wse_wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A board as its device tree describes it. */
struct wse_board {
	char compatible[64];      /* first string of /compatible */
	char model[96];
	char link_compatible[32]; /* first string of /link's compatible */
	uint32_t columns, rows, colors, user_colors;
	uint32_t num_vc, vc_depth, ramp_color_depth;
	uint8_t color_vc[WSE_NUM_COLORS];
	uint32_t imem_bytes, dmem_bytes, dmem_banks;
	uint32_t link_width_bits, link_bytes_per_cycle, link_latency_cycles;
	/* Link clock (Hz) and UART line rate (bit/s); 0 when absent. Both
	 * are required by "wsemu,link-uart". */
	uint32_t link_clock_hz, link_baud;
	/* The optional /fpga node of an FPGA board; fpga_device is empty
	 * when the node is absent. */
	char fpga_device[16];     /* e.g. "LFE5U-85F" */
	char fpga_package[16];    /* e.g. "CABGA381" */
	char flash_part[32];      /* configuration flash, may be empty */
	uint32_t mesh_clock_hz;   /* the mesh clock the PLL makes from the link clock */
	uint32_t flash_bytes;     /* configuration flash size, 0 when not given */
};

/* Largest DTB a board may have: what one INFO response can carry. */
#define WSE_BOARD_MAX_DTB WSE_PROTO_MAX_PAYLOAD

/*
 * Check a DTB against the binding and fill *b. On failure err (when not
 * NULL and errlen > 0) holds one line naming the node, the property and
 * what is wrong, e.g. "/mesh: wsemu,columns = 0 out of range [1, 64]", and
 * *b is unspecified. The blob may sit at any address (one that libfdt
 * cannot read in place, not 8-byte aligned, is parsed from a copy).
 * Returns 0, or:
 *   WSE_ERROR_INVALID_PARAM  dtb or b NULL
 *   WSE_ERROR_NO_MEM         no memory for the aligned copy
 *   WSE_ERROR_BAD_DTB        not a valid blob (size, libfdt's full check),
 *                            not "wsemu,wse", a node or property missing,
 *                            of the wrong size, out of range, or breaking
 *                            a rule between properties (powers of two,
 *                            the color-to-VC map within the VC count,
 *                            a UART link's clock and baud rate giving 4 to
 *                            255 clocks per bit, an /fpga node's device
 *                            one of the ECP5 family's)
 */
int wse_board_parse(const void *dtb, size_t len, struct wse_board *b,
		    char *err, size_t errlen)
	__attribute__((visibility("hidden")));

#ifdef __cplusplus
}
#endif
#endif /* WSEMU_WSE_BOARD_H */
