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

/* ---- Link protocol (docs/protocol.md) ----------------------------------
 *
 * A packet on the wire, every field little-endian:
 *   header   WSE_HDR_BYTES (24) bytes at the offsets below; the header CRC
 *            covers bytes [0, WSE_HDR_OFF_HCRC), the length included
 *   payload  length bytes, then zero padding up to a multiple of 8 bytes
 *   trailer  WSE_TRAILER_BYTES (8) bytes: CRC-32C of payload and padding,
 *            then 4 reserved zero bytes
 * so every packet is a multiple of 8 bytes (one 64-bit link word each).
 * The header layout (magic, versions, opcode, flags, tag, status, length,
 * CRC) is the same in every protocol version, major versions included.
 */
#define WSE_PROTO_MAGIC 0x4C455357u /* bytes 'W' 'S' 'E' 'L' */
#define WSE_PROTO_MAJOR 1
#define WSE_PROTO_MINOR 0

#define WSE_HDR_BYTES 24
#define WSE_HDR_OFF_MAGIC 0   /* u32 WSE_PROTO_MAGIC */
#define WSE_HDR_OFF_MAJOR 4   /* u8 protocol major version of the sender */
#define WSE_HDR_OFF_MINOR 5   /* u8 protocol minor version of the sender */
#define WSE_HDR_OFF_OPCODE 6  /* u8 WSE_OP_* */
#define WSE_HDR_OFF_FLAGS 7   /* u8 WSE_FLAG_* */
#define WSE_HDR_OFF_TAG 8     /* u32 request tag, echoed by the response */
#define WSE_HDR_OFF_STATUS 12 /* u16 WSE_ST_*; 0 in requests and events */
#define WSE_HDR_OFF_RSVD 14   /* u16 reserved, 0 */
#define WSE_HDR_OFF_LENGTH 16 /* u32 payload bytes, padding excluded */
#define WSE_HDR_OFF_HCRC 20   /* u32 CRC-32C of header bytes 0..19 */

#define WSE_TRAILER_BYTES 8
#define WSE_TRL_OFF_PCRC 0 /* u32 CRC-32C of payload + padding */
#define WSE_TRL_OFF_RSVD 4 /* u32 reserved, 0 */

#define WSE_PROTO_ALIGN 8
#define WSE_PAD8(n) (((n) + 7u) & ~(wse_u32)7u)
#define WSE_FRAME_BYTES(len) \
	(WSE_HDR_BYTES + WSE_PAD8((wse_u32)(len)) + WSE_TRAILER_BYTES)

/* Limits. A device accepts request payloads up to the max_payload it
 * reports in INFO (at least WSE_PROTO_MIN_DEV_PAYLOAD); nothing on the wire
 * exceeds WSE_PROTO_MAX_PAYLOAD. A host keeps at most max_outstanding
 * (INFO, at least WSE_PROTO_MIN_OUTSTANDING) requests in flight, ABORT and
 * STREAM_CREDIT not counted. Beside them, a device always receives an
 * ABORT or STREAM_CREDIT of at most WSE_PROTO_CTL_PAYLOAD bytes
 * (docs/protocol.md 3.5). */
#define WSE_PROTO_MAX_PAYLOAD 65536u
#define WSE_PROTO_MIN_DEV_PAYLOAD 4096u
#define WSE_PROTO_MIN_OUTSTANDING 2u
#define WSE_PROTO_CTL_PAYLOAD 64u
#define WSE_BUILD_ID_BYTES 32

/* Header flags. Requests carry 0. */
#define WSE_FLAG_RESPONSE 0x01u /* answer to the request with the same tag */
#define WSE_FLAG_EVENT 0x02u    /* unsolicited device packet, tag 0 */
#define WSE_FLAGS_KNOWN 0x03u

/* Opcodes. (q) request payload, (r) response payload, (e) event payload;
 * "tile" = struct at WSE_TILE_OFF_*, "access" = WSE_ACC_OFF_*. */
#define WSE_OP_INFO 0x01          /* q: empty; r: WSE_INFO_OFF_* + DTB */
#define WSE_OP_PING 0x02          /* q: any bytes; r: the same bytes */
#define WSE_OP_RESET 0x03         /* q: u32 scope (WSE_RESET_*); r: empty */
#define WSE_OP_ABORT 0x04         /* q: u32 tag; r: empty */
#define WSE_OP_HALT 0x05          /* q: tile; r: empty */
#define WSE_OP_RUN 0x06           /* q: tile; r: empty */
#define WSE_OP_MEM_READ 0x10      /* q: access; r: count u32 words */
#define WSE_OP_MEM_WRITE 0x11     /* q: access + count u32 words; r: empty */
#define WSE_OP_CSR_READ 0x12      /* addr = first CSR number */
#define WSE_OP_CSR_WRITE 0x13
#define WSE_OP_ROUTE_READ 0x14    /* addr = first color; word = route entry */
#define WSE_OP_ROUTE_WRITE 0x15
#define WSE_OP_REG_READ 0x16      /* addr = management address */
#define WSE_OP_REG_WRITE 0x17
#define WSE_OP_STREAM_IN 0x20     /* q: chunks; r: empty */
#define WSE_OP_STREAM_CREDIT 0x21 /* q: grants; r: empty */
#define WSE_OP_STREAM_OUT 0x22    /* e: chunks */
#define WSE_OP_CONSOLE 0x30       /* e: WSE_CON_OFF_* + bytes */
#define WSE_OP_PERF_READ 0x40     /* q: tile; r: u32 n, n u32 counters */
#define WSE_OP_FLASH_READ 0x50    /* q: flash; r: len bytes */
#define WSE_OP_FLASH_ERASE 0x51   /* q: flash; r: empty */
#define WSE_OP_FLASH_PROGRAM 0x52 /* q: flash + len bytes; r: empty */
#define WSE_OP_FLASH_VERIFY 0x53  /* q: flash + u32 crc + u32 0; r: u32 crc */

/* Status codes, header field status of a response. Error responses have an
 * empty payload except WSE_ST_VERSION (WSE_VER_OFF_*) and WSE_ST_VERIFY
 * (u32 CRC-32C of the flash contents). */
#define WSE_ST_OK 0
#define WSE_ST_VERSION 1       /* request's major version not served */
#define WSE_ST_OPCODE 2        /* unknown opcode, or an event opcode */
#define WSE_ST_PAYLOAD_CRC 3   /* payload CRC wrong; nothing executed */
#define WSE_ST_LENGTH 4        /* length over the device's max_payload */
#define WSE_ST_MALFORMED 5     /* payload size/layout wrong, reserved != 0 */
#define WSE_ST_RANGE 6         /* tile, address, port or count out of range */
#define WSE_ST_ALIGN 7         /* address or length not aligned */
#define WSE_ST_MGMT 8          /* management network refused the access */
#define WSE_ST_BUSY 9          /* too many requests in flight, tag in use */
#define WSE_ST_ABORTED 10      /* ended by ABORT or RESET */
#define WSE_ST_NOT_FOUND 11    /* ABORT: no request with that tag */
#define WSE_ST_NOT_SUPPORTED 12 /* opcode known, not on this device */
#define WSE_ST_TIMEOUT 13      /* a device-internal wait expired */
#define WSE_ST_VERIFY 14       /* flash contents differ */
#define WSE_ST_FLASH 15        /* flash erase/program failed */
#define WSE_ST_INTERNAL 16
#define WSE_ST_COUNT 17

/* INFO response payload; the DTB follows at WSE_INFO_BYTES. */
#define WSE_INFO_BYTES 48
#define WSE_INFO_OFF_MAJOR 0        /* u8 device's protocol major */
#define WSE_INFO_OFF_MINOR 1        /* u8 device's protocol minor */
#define WSE_INFO_OFF_RSVD 2         /* u16 0 */
#define WSE_INFO_OFF_MAX_PAYLOAD 4  /* u32 largest request payload */
#define WSE_INFO_OFF_MAX_OUTST 8    /* u32 requests in flight accepted */
#define WSE_INFO_OFF_DTB_LEN 12     /* u32 DTB bytes after the fixed part */
#define WSE_INFO_OFF_BUILD_ID 16    /* char[32] ASCII, NUL-padded */

/* Payload of a WSE_ST_VERSION response. */
#define WSE_VER_BYTES 4
#define WSE_VER_OFF_DEV_MAJOR 0
#define WSE_VER_OFF_DEV_MINOR 1
#define WSE_VER_OFF_REQ_MAJOR 2
#define WSE_VER_OFF_REQ_MINOR 3

/* RESET scope. */
#define WSE_RESET_MESH 0u /* every tile halted and reset, routes and counters
			    cleared, stream queues and credits dropped */

/* Tile selector (HALT, RUN, PERF_READ). */
#define WSE_TILE_BYTES 4
#define WSE_TILE_OFF_X 0    /* u8 column from the west edge */
#define WSE_TILE_OFF_Y 1    /* u8 row from the north edge */
#define WSE_TILE_OFF_RSVD 2 /* u16 0 */
#define WSE_TILE_ALL 0xFFu  /* x = y = 0xFF: every tile (PERF_READ: the
			       host interface's own counters) */

/* Tile access (MEM/CSR/ROUTE/REG READ and WRITE); writes append count
 * u32 words. x = y = WSE_TILE_ALL broadcasts a write. */
#define WSE_ACC_BYTES 12
#define WSE_ACC_OFF_X 0
#define WSE_ACC_OFF_Y 1
#define WSE_ACC_OFF_RSVD 2  /* u16 0 */
#define WSE_ACC_OFF_ADDR 4  /* u32 */
#define WSE_ACC_OFF_COUNT 8 /* u32 words, >= 1 */
#define WSE_MGMT_ROUTE_BASE 0x00001000u /* docs/register-map.md */
#define WSE_MGMT_CNT_BASE 0x00002000u
#define WSE_MGMT_CSR_BASE 0x00010000u
#define WSE_MGMT_MEM_BASE 0x80000000u
#define WSE_NUM_CSRS 4096u
#define WSE_ROUTE_TX_LSB 0 /* route entry: [4:0] tx mask, [12:8] rx mask */
#define WSE_ROUTE_RX_LSB 8

/* Stream chunk (STREAM_IN, STREAM_OUT): header then count u64 wavelets
 * (wse_wavelet() layout, bits 63:38 zero). Chunks fill the payload. */
#define WSE_CHUNK_BYTES 8
#define WSE_CHUNK_OFF_PORT 0  /* u8 edge port, WSE_EDGE_PORT() */
#define WSE_CHUNK_OFF_RSVD 1  /* u8 0, u16 0 */
#define WSE_CHUNK_OFF_COUNT 4 /* u32 wavelets, >= 1 */
/* Credit grant (STREAM_CREDIT): same 8-byte layout, count = credits. */
#define WSE_GRANT_BYTES 8

/* Edge port number: bit 7 edge (0 west, 1 east), bits 5:0 row. */
#define WSE_EDGE_WEST 0u
#define WSE_EDGE_EAST 1u
#define WSE_EDGE_PORT(edge, row) ((wse_u8)(((edge) << 7) | ((row) & 63u)))
#define WSE_EDGE_PORT_EDGE(p) (((p) >> 7) & 1u)
#define WSE_EDGE_PORT_ROW(p) ((p) & 63u)
#define WSE_EDGE_PORT_VALID(p) (((p) & 0x40u) == 0)

/* CONSOLE event: x, y, count, then count bytes of putchar output. */
#define WSE_CON_BYTES 4
#define WSE_CON_OFF_X 0
#define WSE_CON_OFF_Y 1
#define WSE_CON_OFF_COUNT 2 /* u16 */

/* PERF_READ response: u32 n, then n u32 counters. Per tile n = 15:
 * for port p = 0..4: forwarded, stalled, dropped (docs/register-map.md).
 * Host interface (WSE_TILE_ALL): WSE_HIF_CNT_* in order. */
#define WSE_PERF_TILE_COUNTERS 15
#define WSE_HIF_CNT_RX_PACKETS 0
#define WSE_HIF_CNT_TX_PACKETS 1
#define WSE_HIF_CNT_RESYNC_BYTES 2 /* bytes skipped looking for a header */
#define WSE_HIF_CNT_BAD_PAYLOAD 3  /* payload CRC errors */
#define WSE_HIF_CNT_REFUSED 4      /* requests answered with an error */
#define WSE_HIF_CNT_STREAM_IN 5    /* wavelets injected */
#define WSE_HIF_CNT_STREAM_OUT 6   /* wavelets sent to the host */
#define WSE_HIF_COUNTERS 7

/* Flash request: offset, length; FLASH_PROGRAM appends len bytes,
 * FLASH_VERIFY appends u32 expected CRC-32C and u32 0. */
#define WSE_FLASH_BYTES 8
#define WSE_FLASH_OFF_OFFSET 0
#define WSE_FLASH_OFF_LEN 4
#define WSE_FLASH_VERIFY_BYTES 16

/* Little-endian field access on byte buffers. */
static inline wse_u16 wse_get_le16(const wse_u8 *p)
{
	return (wse_u16)(p[0] | (p[1] << 8));
}
static inline wse_u32 wse_get_le32(const wse_u8 *p)
{
	return (wse_u32)p[0] | ((wse_u32)p[1] << 8) | ((wse_u32)p[2] << 16) |
	       ((wse_u32)p[3] << 24);
}
static inline wse_u64 wse_get_le64(const wse_u8 *p)
{
	return (wse_u64)wse_get_le32(p) | ((wse_u64)wse_get_le32(p + 4) << 32);
}
static inline void wse_put_le16(wse_u8 *p, wse_u16 v)
{
	p[0] = (wse_u8)v;
	p[1] = (wse_u8)(v >> 8);
}
static inline void wse_put_le32(wse_u8 *p, wse_u32 v)
{
	p[0] = (wse_u8)v;
	p[1] = (wse_u8)(v >> 8);
	p[2] = (wse_u8)(v >> 16);
	p[3] = (wse_u8)(v >> 24);
}
static inline void wse_put_le64(wse_u8 *p, wse_u64 v)
{
	wse_put_le32(p, (wse_u32)v);
	wse_put_le32(p + 4, (wse_u32)(v >> 32));
}

/* CRC-32C of the protocol: wsemu/wse_crc32c.h (libwsewire). */

#endif /* WSEMU_WSE_WIRE_H */
