/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_codec.h - the link protocol's codec (docs/protocol.md), in libwsewire
 * (wire/codec.c): packet framing, a receive buffer that resynchronizes on
 * the magic, and bounds-checked payload parsers. Pure functions over byte
 * buffers: no I/O, no allocation except in wse_rx_init(). Used by
 * libwsehost, wsemu-sim and the testbenches of the RTL framing.
 *
 * Every parser reads only inside [buf, buf + len) and returns one of:
 *   WSE_ERROR_TRUNCATED   fewer bytes than the layout needs
 *   WSE_ERROR_BAD_MAGIC   no magic at the start
 *   WSE_ERROR_HEADER_CRC  header CRC mismatch
 *   WSE_ERROR_VERSION     header major version != WSE_PROTO_MAJOR
 *   WSE_ERROR_LENGTH      payload length > the receiver's limit
 *   WSE_ERROR_MALFORMED   flags/reserved fields set, sizes inconsistent
 *   WSE_ERROR_BAD_OPCODE  unknown opcode or one not valid in this role
 *   WSE_ERROR_PAYLOAD_CRC payload CRC mismatch
 *   WSE_ERROR_OVERFLOW    (encoders) output buffer too small
 *   WSE_ERROR_INVALID_PARAM (encoders) field out of its encodable range
 */
#ifndef WSEMU_WSE_CODEC_H
#define WSEMU_WSE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "wsemu/wse_crc32c.h"
#include "wsemu/wse_error.h"
#include "wsemu/wse_wire.h"
#include "wsemu/wse_wirelib.h"

#ifdef __cplusplus
extern "C" {
#endif

struct wse_pkt {
	uint8_t major, minor, opcode, flags;
	uint32_t tag;
	uint16_t status;
	uint32_t length;
	const uint8_t *payload; /* into the decoded buffer */
};

/* Role of a packet, from its flags. */
enum wse_role { WSE_ROLE_REQUEST, WSE_ROLE_RESPONSE, WSE_ROLE_EVENT };

WSE_INTERNAL size_t wse_frame_bytes(uint32_t len);
/* 1 if opcode is defined by the protocol. */
WSE_INTERNAL int wse_opcode_known(uint8_t opcode);
WSE_INTERNAL const char *wse_opcode_name(uint8_t opcode);
WSE_INTERNAL const char *wse_status_name(unsigned status);
/* Library error for a device status (WSE_ST_OK -> 0). */
WSE_INTERNAL int wse_status_to_error(unsigned status);

/* Write one frame (header, payload p->length bytes from payload, padding,
 * trailer); major/minor are taken from p. Returns the frame size, or
 * OVERFLOW (cap too small), INVALID_PARAM (length > WSE_PROTO_MAX_PAYLOAD,
 * or payload NULL with length > 0). */
WSE_INTERNAL int wse_pkt_encode(uint8_t *out, size_t cap,
				const struct wse_pkt *p, const void *payload);

/* Check the header at buf[0..n). On 0 every field of *p is set (payload
 * NULL). VERSION, LENGTH, MALFORMED and BAD_OPCODE also fill *p (the header
 * itself was intact). Order of checks: TRUNCATED, BAD_MAGIC, HEADER_CRC,
 * VERSION, LENGTH (> max_payload), MALFORMED (flags, reserved, a request
 * or event with a status), BAD_OPCODE. */
WSE_INTERNAL int wse_hdr_decode(const uint8_t *buf, size_t n,
				struct wse_pkt *p, uint32_t max_payload);

/* Decode a whole frame at buf[0..n): header as wse_hdr_decode, then
 * TRUNCATED if the frame is longer than n, PAYLOAD_CRC, MALFORMED (trailer
 * reserved field). VERSION sets p->payload when the payload CRC is right
 * (frames have one layout in every version). *consumed = frame size when
 * the header was intact
 * (also on VERSION, MALFORMED, BAD_OPCODE, PAYLOAD_CRC), else 0. */
WSE_INTERNAL int wse_pkt_decode(const uint8_t *buf, size_t n,
				struct wse_pkt *p, uint32_t max_payload,
				size_t *consumed);

/* Receive buffer over a byte stream. Bytes that cannot start a valid
 * header are skipped one at a time and counted (resynchronization). */
struct wse_rx {
	uint8_t *buf;
	size_t cap, start, end;
	uint32_t max_payload;
	uint64_t resync_bytes; /* bytes skipped */
	uint64_t bad_packets;  /* intact headers with a bad frame */
};
/* NO_MEM, or 0. */
WSE_INTERNAL int wse_rx_init(struct wse_rx *rx, uint32_t max_payload);
WSE_INTERNAL void wse_rx_free(struct wse_rx *rx);
/* Room to append received bytes (compacts); *avail > 0 always. */
WSE_INTERNAL uint8_t *wse_rx_space(struct wse_rx *rx, size_t *avail);
WSE_INTERNAL void wse_rx_commit(struct wse_rx *rx, size_t n);
/*
 * Next packet: 1 and *p (payload valid until the next wse_rx_* call),
 * 0 when more bytes are needed, or a negative error with *p filled from an
 * intact header for a frame that was dropped: VERSION, LENGTH, MALFORMED,
 * BAD_OPCODE, PAYLOAD_CRC. After LENGTH the receiver resynchronizes.
 */
WSE_INTERNAL int wse_rx_next(struct wse_rx *rx, struct wse_pkt *p);

/* Check a packet's payload against its opcode and role (request, response
 * with its status, event). 0, MALFORMED, TRUNCATED, BAD_OPCODE. */
WSE_INTERNAL int wse_payload_check(const struct wse_pkt *p);
WSE_INTERNAL enum wse_role wse_pkt_role(const struct wse_pkt *p);
/* 1 for a response with status OPCODE: it carries the opcode the device
 * refused (unknown, or an event opcode), which is therefore exempt from
 * the opcode check (docs/protocol.md 3.1, check 7). */
WSE_INTERNAL int wse_refusal_of_opcode(const struct wse_pkt *p);

/* ---- Typed payloads. decode_* check exact sizes and reserved fields. -- */
struct wse_wire_info {
	uint8_t major, minor;
	uint32_t max_payload, max_outstanding;
	char build_id[WSE_BUILD_ID_BYTES];
	const uint8_t *dtb;
	uint32_t dtb_len;
};
WSE_INTERNAL int wse_info_encode(uint8_t *out, size_t cap,
				 const struct wse_wire_info *in);
WSE_INTERNAL int wse_info_decode(const uint8_t *pl, size_t len,
				 struct wse_wire_info *out);

struct wse_wire_acc {
	uint8_t x, y;
	uint32_t addr, count;
	const uint8_t *words; /* writes: count little-endian u32 */
};
/* Read request (12 bytes) or write request (12 + 4*count bytes, with words
 * taken from acc->words). */
WSE_INTERNAL int wse_acc_encode(uint8_t *out, size_t cap, int write,
				const struct wse_wire_acc *acc);
WSE_INTERNAL int wse_acc_decode(const uint8_t *pl, size_t len, int write,
				struct wse_wire_acc *acc);

WSE_INTERNAL int wse_u32_encode(uint8_t *out, size_t cap, uint32_t v);
WSE_INTERNAL int wse_u32_decode(const uint8_t *pl, size_t len, uint32_t *v);
WSE_INTERNAL int wse_tile_encode(uint8_t *out, size_t cap, uint8_t x,
				 uint8_t y);
WSE_INTERNAL int wse_tile_decode(const uint8_t *pl, size_t len, uint8_t *x,
				 uint8_t *y);

/* Chunk lists (STREAM_IN, STREAM_OUT) and grant lists (STREAM_CREDIT). */
struct wse_wire_chunk {
	uint8_t port;
	uint32_t count;
	const uint8_t *wavelets; /* count little-endian u64 */
};
/* Append one chunk at out[*off]; OVERFLOW, INVALID_PARAM (count 0, port
 * bit 6 set, wavelet above 38 bits). */
WSE_INTERNAL int wse_chunk_append(uint8_t *out, size_t cap, size_t *off,
				  uint8_t port, const uint64_t *w,
				  uint32_t count);
/* Walk: *off starts at 0; 1 and *c for each chunk, 0 at the end, or
 * MALFORMED/TRUNCATED. Checks every field of the chunk it returns. */
WSE_INTERNAL int wse_chunk_next(const uint8_t *pl, size_t len, size_t *off,
				struct wse_wire_chunk *c);
/* Whole list valid and non-empty: 0 or the first error. */
WSE_INTERNAL int wse_chunks_check(const uint8_t *pl, size_t len);
WSE_INTERNAL int wse_grant_append(uint8_t *out, size_t cap, size_t *off,
				  uint8_t port, uint32_t credits);
WSE_INTERNAL int wse_grants_check(const uint8_t *pl, size_t len);

struct wse_wire_console {
	uint8_t x, y;
	uint16_t count;
	const uint8_t *bytes;
};
WSE_INTERNAL int wse_console_encode(uint8_t *out, size_t cap,
				    const struct wse_wire_console *c);
WSE_INTERNAL int wse_console_decode(const uint8_t *pl, size_t len,
				    struct wse_wire_console *c);

/* PERF_READ response: u32 n, n values. */
WSE_INTERNAL int wse_perf_encode(uint8_t *out, size_t cap,
				 const uint32_t *v, uint32_t n);
WSE_INTERNAL int wse_perf_decode(const uint8_t *pl, size_t len, uint32_t *n,
				 const uint8_t **values);

struct wse_wire_flash {
	uint32_t offset, len, crc;
	const uint8_t *data; /* FLASH_PROGRAM */
};
/* opcode selects the layout (READ/ERASE 8, PROGRAM 8+len, VERIFY 16). */
WSE_INTERNAL int wse_flash_encode(uint8_t *out, size_t cap, uint8_t opcode,
				  const struct wse_wire_flash *f);
WSE_INTERNAL int wse_flash_decode(const uint8_t *pl, size_t len,
				  uint8_t opcode, struct wse_wire_flash *f);

struct wse_wire_version {
	uint8_t dev_major, dev_minor, req_major, req_minor;
};
WSE_INTERNAL int wse_version_encode(uint8_t *out, size_t cap,
				    const struct wse_wire_version *v);
WSE_INTERNAL int wse_version_decode(const uint8_t *pl, size_t len,
				    struct wse_wire_version *v);

#ifdef __cplusplus
}
#endif
#endif /* WSEMU_WSE_CODEC_H */
