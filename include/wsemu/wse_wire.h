/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_wire.h - definitions shared by every part of wsemu: the RTL package
 * rtl/pkg/wse_pkg.sv mirrors them, and libwsehost, wsemu-sim, the firmware
 * and the kernel driver include this header. Self-contained: fixed-width
 * types only, no libc. tests/wire checks it against the RTL package.
 */
#ifndef WSEMU_WSE_WIRE_H
#define WSEMU_WSE_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef __u8 wse_u8;
typedef __u16 wse_u16;
typedef __u32 wse_u32;
typedef __u64 wse_u64;
#else
typedef unsigned char wse_u8;
typedef unsigned short wse_u16;
typedef unsigned int wse_u32;
typedef unsigned long long wse_u64;
#endif

/* ---- Wavelet: 38 bits = 32 data, 5 color, 1 control ------------------- */
#define WSE_WAVELET_BITS 38
#define WSE_DATA_BITS 32
#define WSE_COLOR_BITS 5
#define WSE_COLOR_LSB 32
#define WSE_CTRL_BIT 37
#define WSE_NUM_COLORS 32
#define WSE_FIRST_INFRA_COLOR 24 /* colors 24..31: host I/O, management */

/* A wavelet held in the low 38 bits of a 64-bit word. */
static inline wse_u64 wse_wavelet(wse_u32 data, wse_u32 color, int ctrl)
{
	return (wse_u64)data | ((wse_u64)(color & 31u) << WSE_COLOR_LSB) |
	       ((wse_u64)(ctrl != 0) << WSE_CTRL_BIT);
}
static inline wse_u32 wse_wavelet_data(wse_u64 w) { return (wse_u32)w; }
static inline wse_u32 wse_wavelet_color(wse_u64 w)
{
	return (wse_u32)(w >> WSE_COLOR_LSB) & 31u;
}
static inline int wse_wavelet_ctrl(wse_u64 w)
{
	return (int)((w >> WSE_CTRL_BIT) & 1u);
}

/* ---- Router ports; a route-mask bit i refers to port i ---------------- */
#define WSE_PORT_NORTH 0
#define WSE_PORT_EAST 1
#define WSE_PORT_SOUTH 2
#define WSE_PORT_WEST 3
#define WSE_PORT_RAMP 4
#define WSE_NUM_PORTS 5

#endif /* WSEMU_WSE_WIRE_H */
