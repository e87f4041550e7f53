/* SPDX-License-Identifier: Apache-2.0 */
/* codec.c - packet framing and payload parsers (wsemu/wse_codec.h). */
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_codec.h"

size_t wse_frame_bytes(uint32_t len)
{
	return (size_t)WSE_HDR_BYTES + (((size_t)len + 7u) & ~(size_t)7u) +
	       WSE_TRAILER_BYTES;
}

static const struct {
	uint8_t op;
	const char *name;
} opcodes[] = {
	{WSE_OP_INFO, "INFO"},
	{WSE_OP_PING, "PING"},
	{WSE_OP_RESET, "RESET"},
	{WSE_OP_ABORT, "ABORT"},
	{WSE_OP_HALT, "HALT"},
	{WSE_OP_RUN, "RUN"},
	{WSE_OP_MEM_READ, "MEM_READ"},
	{WSE_OP_MEM_WRITE, "MEM_WRITE"},
	{WSE_OP_CSR_READ, "CSR_READ"},
	{WSE_OP_CSR_WRITE, "CSR_WRITE"},
	{WSE_OP_ROUTE_READ, "ROUTE_READ"},
	{WSE_OP_ROUTE_WRITE, "ROUTE_WRITE"},
	{WSE_OP_REG_READ, "REG_READ"},
	{WSE_OP_REG_WRITE, "REG_WRITE"},
	{WSE_OP_STREAM_IN, "STREAM_IN"},
	{WSE_OP_STREAM_CREDIT, "STREAM_CREDIT"},
	{WSE_OP_STREAM_OUT, "STREAM_OUT"},
	{WSE_OP_CONSOLE, "CONSOLE"},
	{WSE_OP_PERF_READ, "PERF_READ"},
	{WSE_OP_FLASH_READ, "FLASH_READ"},
	{WSE_OP_FLASH_ERASE, "FLASH_ERASE"},
	{WSE_OP_FLASH_PROGRAM, "FLASH_PROGRAM"},
	{WSE_OP_FLASH_VERIFY, "FLASH_VERIFY"},
};

int wse_opcode_known(uint8_t op)
{
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].op == op)
			return 1;
	return 0;
}

const char *wse_opcode_name(uint8_t op)
{
	for (size_t i = 0; i < sizeof(opcodes) / sizeof(opcodes[0]); i++)
		if (opcodes[i].op == op)
			return opcodes[i].name;
	return "UNKNOWN";
}

static const char *const status_names[WSE_ST_COUNT] = {
	"OK", "VERSION", "OPCODE", "PAYLOAD_CRC", "LENGTH", "MALFORMED",
	"RANGE", "ALIGN", "MGMT", "BUSY", "ABORTED", "NOT_FOUND",
	"NOT_SUPPORTED", "TIMEOUT", "VERIFY", "FLASH", "INTERNAL",
};

const char *wse_status_name(unsigned st)
{
	return st < WSE_ST_COUNT ? status_names[st] : "UNKNOWN";
}

int wse_status_to_error(unsigned st)
{
	switch (st) {
	case WSE_ST_OK: return WSE_SUCCESS;
	case WSE_ST_VERSION: return WSE_ERROR_VERSION;
	case WSE_ST_OPCODE: return WSE_ERROR_BAD_OPCODE;
	case WSE_ST_PAYLOAD_CRC: return WSE_ERROR_PAYLOAD_CRC;
	case WSE_ST_LENGTH: return WSE_ERROR_LENGTH;
	case WSE_ST_MALFORMED: return WSE_ERROR_MALFORMED;
	case WSE_ST_RANGE: return WSE_ERROR_RANGE;
	case WSE_ST_ALIGN: return WSE_ERROR_ALIGN;
	case WSE_ST_MGMT: return WSE_ERROR_DEVICE;
	case WSE_ST_BUSY: return WSE_ERROR_BUSY;
	case WSE_ST_ABORTED: return WSE_ERROR_ABORTED;
	case WSE_ST_NOT_FOUND: return WSE_ERROR_NOT_FOUND;
	case WSE_ST_NOT_SUPPORTED: return WSE_ERROR_NOT_SUPPORTED;
	case WSE_ST_TIMEOUT: return WSE_ERROR_TIMEOUT;
	case WSE_ST_VERIFY: return WSE_ERROR_VERIFY;
	case WSE_ST_FLASH: return WSE_ERROR_IO;
	default: return WSE_ERROR_DEVICE;
	}
}

int wse_pkt_encode(uint8_t *out, size_t cap, const struct wse_pkt *p,
		   const void *payload)
{
	if (!out || !p || p->length > WSE_PROTO_MAX_PAYLOAD ||
	    (p->length && !payload))
		return WSE_ERROR_INVALID_PARAM;
	size_t fb = wse_frame_bytes(p->length);
	if (cap < fb)
		return WSE_ERROR_OVERFLOW;
	memset(out, 0, fb);
	wse_put_le32(out + WSE_HDR_OFF_MAGIC, WSE_PROTO_MAGIC);
	out[WSE_HDR_OFF_MAJOR] = p->major;
	out[WSE_HDR_OFF_MINOR] = p->minor;
	out[WSE_HDR_OFF_OPCODE] = p->opcode;
	out[WSE_HDR_OFF_FLAGS] = p->flags;
	wse_put_le32(out + WSE_HDR_OFF_TAG, p->tag);
	wse_put_le16(out + WSE_HDR_OFF_STATUS, p->status);
	wse_put_le32(out + WSE_HDR_OFF_LENGTH, p->length);
	wse_put_le32(out + WSE_HDR_OFF_HCRC,
		     wse_crc32c_update(0, out, WSE_HDR_OFF_HCRC));
	if (p->length)
		memcpy(out + WSE_HDR_BYTES, payload, p->length);
	size_t padded = fb - WSE_HDR_BYTES - WSE_TRAILER_BYTES;
	wse_put_le32(out + WSE_HDR_BYTES + padded + WSE_TRL_OFF_PCRC,
		     wse_crc32c_update(0, out + WSE_HDR_BYTES, padded));
	return (int)fb;
}

enum wse_role wse_pkt_role(const struct wse_pkt *p)
{
	if (p->flags & WSE_FLAG_RESPONSE)
		return WSE_ROLE_RESPONSE;
	if (p->flags & WSE_FLAG_EVENT)
		return WSE_ROLE_EVENT;
	return WSE_ROLE_REQUEST;
}

static int is_event_op(uint8_t op)
{
	return op == WSE_OP_STREAM_OUT || op == WSE_OP_CONSOLE;
}

int wse_refusal_of_opcode(const struct wse_pkt *p)
{
	return wse_pkt_role(p) == WSE_ROLE_RESPONSE && p->status == WSE_ST_OPCODE;
}

int wse_hdr_decode(const uint8_t *buf, size_t n, struct wse_pkt *p,
		   uint32_t max_payload)
{
	if (n < WSE_HDR_BYTES)
		return WSE_ERROR_TRUNCATED;
	if (wse_get_le32(buf + WSE_HDR_OFF_MAGIC) != WSE_PROTO_MAGIC)
		return WSE_ERROR_BAD_MAGIC;
	if (wse_get_le32(buf + WSE_HDR_OFF_HCRC) !=
	    wse_crc32c_update(0, buf, WSE_HDR_OFF_HCRC))
		return WSE_ERROR_HEADER_CRC;
	p->major = buf[WSE_HDR_OFF_MAJOR];
	p->minor = buf[WSE_HDR_OFF_MINOR];
	p->opcode = buf[WSE_HDR_OFF_OPCODE];
	p->flags = buf[WSE_HDR_OFF_FLAGS];
	p->tag = wse_get_le32(buf + WSE_HDR_OFF_TAG);
	p->status = wse_get_le16(buf + WSE_HDR_OFF_STATUS);
	p->length = wse_get_le32(buf + WSE_HDR_OFF_LENGTH);
	p->payload = NULL;
	if (p->major != WSE_PROTO_MAJOR)
		return WSE_ERROR_VERSION;
	if (max_payload > WSE_PROTO_MAX_PAYLOAD)
		max_payload = WSE_PROTO_MAX_PAYLOAD;
	if (p->length > max_payload)
		return WSE_ERROR_LENGTH;
	if ((p->flags & ~WSE_FLAGS_KNOWN) ||
	    (p->flags & WSE_FLAGS_KNOWN) == WSE_FLAGS_KNOWN ||
	    wse_get_le16(buf + WSE_HDR_OFF_RSVD) != 0)
		return WSE_ERROR_MALFORMED;
	enum wse_role role = wse_pkt_role(p);
	if (role != WSE_ROLE_RESPONSE && p->status != 0)
		return WSE_ERROR_MALFORMED;
	if (role == WSE_ROLE_EVENT && p->tag != 0)
		return WSE_ERROR_MALFORMED;
	if (wse_refusal_of_opcode(p))
		return 0;
	if (!wse_opcode_known(p->opcode))
		return WSE_ERROR_BAD_OPCODE;
	if ((role == WSE_ROLE_EVENT) != is_event_op(p->opcode))
		return WSE_ERROR_BAD_OPCODE;
	return 0;
}

int wse_pkt_decode(const uint8_t *buf, size_t n, struct wse_pkt *p,
		   uint32_t max_payload, size_t *consumed)
{
	*consumed = 0;
	int r = wse_hdr_decode(buf, n, p, max_payload);
	if (r == WSE_ERROR_TRUNCATED || r == WSE_ERROR_BAD_MAGIC ||
	    r == WSE_ERROR_HEADER_CRC || r == WSE_ERROR_LENGTH)
		return r;
	/* A version-mismatched frame is skipped whole only if its length is
	 * within this receiver's limit; otherwise it is an over-long one. */
	if (max_payload > WSE_PROTO_MAX_PAYLOAD)
		max_payload = WSE_PROTO_MAX_PAYLOAD;
	if (p->length > max_payload)
		return WSE_ERROR_LENGTH;
	size_t fb = wse_frame_bytes(p->length);
	if (n < fb)
		return WSE_ERROR_TRUNCATED;
	*consumed = fb;
	if (r && r != WSE_ERROR_VERSION)
		return r;
	size_t padded = fb - WSE_HDR_BYTES - WSE_TRAILER_BYTES;
	const uint8_t *trl = buf + WSE_HDR_BYTES + padded;
	if (wse_get_le32(trl + WSE_TRL_OFF_PCRC) !=
	    wse_crc32c_update(0, buf + WSE_HDR_BYTES, padded))
		return WSE_ERROR_PAYLOAD_CRC;
	if (r) {
		/* Framing is the same in every version: hand the payload of a
		 * foreign-version packet up (a version refusal carries both
		 * versions). */
		p->payload = buf + WSE_HDR_BYTES;
		return r;
	}
	if (wse_get_le32(trl + WSE_TRL_OFF_RSVD) != 0)
		return WSE_ERROR_MALFORMED;
	for (size_t i = p->length; i < padded; i++)
		if (buf[WSE_HDR_BYTES + i])
			return WSE_ERROR_MALFORMED;
	p->payload = buf + WSE_HDR_BYTES;
	return 0;
}

/* ---- Receive buffer ---------------------------------------------------- */

int wse_rx_init(struct wse_rx *rx, uint32_t max_payload)
{
	memset(rx, 0, sizeof(*rx));
	if (max_payload > WSE_PROTO_MAX_PAYLOAD)
		max_payload = WSE_PROTO_MAX_PAYLOAD;
	rx->max_payload = max_payload;
	rx->cap = wse_frame_bytes(max_payload) + 4096;
	rx->buf = malloc(rx->cap);
	return rx->buf ? 0 : WSE_ERROR_NO_MEM;
}

void wse_rx_free(struct wse_rx *rx)
{
	free(rx->buf);
	rx->buf = NULL;
	rx->cap = rx->start = rx->end = 0;
}

uint8_t *wse_rx_space(struct wse_rx *rx, size_t *avail)
{
	if (rx->start) {
		memmove(rx->buf, rx->buf + rx->start, rx->end - rx->start);
		rx->end -= rx->start;
		rx->start = 0;
	}
	/* After wse_rx_next() returned 0 the buffer holds less than one frame
	 * of at most frame_bytes(max) < cap bytes; should a caller not drain
	 * it first, the oldest byte is dropped so that there is room. */
	if (rx->end == rx->cap) {
		memmove(rx->buf, rx->buf + 1, rx->end - 1);
		rx->end--;
		rx->resync_bytes++;
	}
	*avail = rx->cap - rx->end;
	return rx->buf + rx->end;
}

void wse_rx_commit(struct wse_rx *rx, size_t n)
{
	if (n > rx->cap - rx->end)
		n = rx->cap - rx->end;
	rx->end += n;
}

static int magic_prefix_ok(const uint8_t *b, size_t n)
{
	uint8_t m[4];
	wse_put_le32(m, WSE_PROTO_MAGIC);
	return memcmp(b, m, n < 4 ? n : 4) == 0;
}

int wse_rx_next(struct wse_rx *rx, struct wse_pkt *p)
{
	for (;;) {
		size_t n = rx->end - rx->start;
		const uint8_t *b = rx->buf + rx->start;
		if (n == 0)
			return 0;
		if (!magic_prefix_ok(b, n)) {
			rx->start++;
			rx->resync_bytes++;
			continue;
		}
		size_t used;
		int r = wse_pkt_decode(b, n, p, rx->max_payload, &used);
		switch (r) {
		case 0:
			rx->start += used;
			return 1;
		case WSE_ERROR_TRUNCATED:
			return 0;
		case WSE_ERROR_BAD_MAGIC:
		case WSE_ERROR_HEADER_CRC:
			rx->start++;
			rx->resync_bytes++;
			continue;
		case WSE_ERROR_LENGTH:
			rx->start++;
			rx->resync_bytes++;
			rx->bad_packets++;
			return r;
		default:
			rx->start += used;
			rx->bad_packets++;
			return r;
		}
	}
}

/* ---- Payload checks ---------------------------------------------------- */

static int exact(size_t len, size_t want)
{
	if (len < want)
		return WSE_ERROR_TRUNCATED;
	return len == want ? 0 : WSE_ERROR_MALFORMED;
}

static int response_check(const struct wse_pkt *p)
{
	const uint8_t *pl = p->payload;
	size_t len = p->length;
	if (p->status != WSE_ST_OK) {
		if (p->status == WSE_ST_VERSION || p->status == WSE_ST_VERIFY)
			return exact(len, 4);
		return exact(len, 0);
	}
	switch (p->opcode) {
	case WSE_OP_INFO: {
		struct wse_wire_info in;
		return wse_info_decode(pl, len, &in);
	}
	case WSE_OP_PING:
	case WSE_OP_FLASH_READ:
		return 0;
	case WSE_OP_MEM_READ:
	case WSE_OP_CSR_READ:
	case WSE_OP_ROUTE_READ:
	case WSE_OP_REG_READ:
		if (len == 0)
			return WSE_ERROR_TRUNCATED;
		return len % 4 ? WSE_ERROR_MALFORMED : 0;
	case WSE_OP_PERF_READ: {
		uint32_t n;
		const uint8_t *v;
		return wse_perf_decode(pl, len, &n, &v);
	}
	case WSE_OP_FLASH_VERIFY:
		return exact(len, 4);
	default:
		return exact(len, 0);
	}
}

static int request_check(const struct wse_pkt *p)
{
	const uint8_t *pl = p->payload;
	size_t len = p->length;
	uint32_t v;
	uint8_t x, y;
	struct wse_wire_acc acc;
	struct wse_wire_flash fl;
	switch (p->opcode) {
	case WSE_OP_INFO:
		return exact(len, 0);
	case WSE_OP_PING:
		return 0;
	case WSE_OP_RESET: {
		int r = wse_u32_decode(pl, len, &v);
		return r ? r : (v == WSE_RESET_MESH ? 0 : WSE_ERROR_MALFORMED);
	}
	case WSE_OP_ABORT:
		return wse_u32_decode(pl, len, &v);
	case WSE_OP_HALT:
	case WSE_OP_RUN:
	case WSE_OP_PERF_READ:
		return wse_tile_decode(pl, len, &x, &y);
	case WSE_OP_MEM_READ:
	case WSE_OP_CSR_READ:
	case WSE_OP_ROUTE_READ:
	case WSE_OP_REG_READ:
		return wse_acc_decode(pl, len, 0, &acc);
	case WSE_OP_MEM_WRITE:
	case WSE_OP_CSR_WRITE:
	case WSE_OP_ROUTE_WRITE:
	case WSE_OP_REG_WRITE:
		return wse_acc_decode(pl, len, 1, &acc);
	case WSE_OP_STREAM_IN:
		return wse_chunks_check(pl, len);
	case WSE_OP_STREAM_CREDIT:
		return wse_grants_check(pl, len);
	case WSE_OP_FLASH_READ:
	case WSE_OP_FLASH_ERASE:
	case WSE_OP_FLASH_PROGRAM:
	case WSE_OP_FLASH_VERIFY:
		return wse_flash_decode(pl, len, p->opcode, &fl);
	default:
		return WSE_ERROR_BAD_OPCODE;
	}
}

int wse_payload_check(const struct wse_pkt *p)
{
	if (p->length && !p->payload)
		return WSE_ERROR_TRUNCATED;
	switch (wse_pkt_role(p)) {
	case WSE_ROLE_RESPONSE:
		if (wse_refusal_of_opcode(p))
			return exact(p->length, 0);
		if (!wse_opcode_known(p->opcode) || is_event_op(p->opcode))
			return WSE_ERROR_BAD_OPCODE;
		return response_check(p);
	case WSE_ROLE_EVENT:
		if (p->opcode == WSE_OP_STREAM_OUT)
			return wse_chunks_check(p->payload, p->length);
		if (p->opcode == WSE_OP_CONSOLE) {
			struct wse_wire_console c;
			return wse_console_decode(p->payload, p->length, &c);
		}
		return WSE_ERROR_BAD_OPCODE;
	default:
		if (is_event_op(p->opcode))
			return WSE_ERROR_BAD_OPCODE;
		return request_check(p);
	}
}

/* ---- Typed payloads ---------------------------------------------------- */

int wse_info_encode(uint8_t *out, size_t cap, const struct wse_wire_info *in)
{
	if (in->dtb_len > WSE_PROTO_MAX_PAYLOAD - WSE_INFO_BYTES ||
	    (in->dtb_len && !in->dtb))
		return WSE_ERROR_INVALID_PARAM;
	size_t n = WSE_INFO_BYTES + (size_t)in->dtb_len;
	if (cap < n)
		return WSE_ERROR_OVERFLOW;
	memset(out, 0, WSE_INFO_BYTES);
	out[WSE_INFO_OFF_MAJOR] = in->major;
	out[WSE_INFO_OFF_MINOR] = in->minor;
	wse_put_le32(out + WSE_INFO_OFF_MAX_PAYLOAD, in->max_payload);
	wse_put_le32(out + WSE_INFO_OFF_MAX_OUTST, in->max_outstanding);
	wse_put_le32(out + WSE_INFO_OFF_DTB_LEN, in->dtb_len);
	memcpy(out + WSE_INFO_OFF_BUILD_ID, in->build_id, WSE_BUILD_ID_BYTES);
	if (in->dtb_len)
		memcpy(out + WSE_INFO_BYTES, in->dtb, in->dtb_len);
	return (int)n;
}

int wse_info_decode(const uint8_t *pl, size_t len, struct wse_wire_info *o)
{
	if (len < WSE_INFO_BYTES)
		return WSE_ERROR_TRUNCATED;
	o->major = pl[WSE_INFO_OFF_MAJOR];
	o->minor = pl[WSE_INFO_OFF_MINOR];
	o->max_payload = wse_get_le32(pl + WSE_INFO_OFF_MAX_PAYLOAD);
	o->max_outstanding = wse_get_le32(pl + WSE_INFO_OFF_MAX_OUTST);
	o->dtb_len = wse_get_le32(pl + WSE_INFO_OFF_DTB_LEN);
	memcpy(o->build_id, pl + WSE_INFO_OFF_BUILD_ID, WSE_BUILD_ID_BYTES);
	o->dtb = pl + WSE_INFO_BYTES;
	if (wse_get_le16(pl + WSE_INFO_OFF_RSVD) != 0)
		return WSE_ERROR_MALFORMED;
	if (o->dtb_len > len - WSE_INFO_BYTES)
		return WSE_ERROR_TRUNCATED;
	if (o->dtb_len != len - WSE_INFO_BYTES)
		return WSE_ERROR_MALFORMED;
	return 0;
}

int wse_acc_encode(uint8_t *out, size_t cap, int write,
		   const struct wse_wire_acc *acc)
{
	if (acc->count == 0 ||
	    acc->count > (WSE_PROTO_MAX_PAYLOAD - WSE_ACC_BYTES) / 4 ||
	    (write && !acc->words))
		return WSE_ERROR_INVALID_PARAM;
	size_t n = WSE_ACC_BYTES + (write ? 4 * (size_t)acc->count : 0);
	if (cap < n)
		return WSE_ERROR_OVERFLOW;
	memset(out, 0, WSE_ACC_BYTES);
	out[WSE_ACC_OFF_X] = acc->x;
	out[WSE_ACC_OFF_Y] = acc->y;
	wse_put_le32(out + WSE_ACC_OFF_ADDR, acc->addr);
	wse_put_le32(out + WSE_ACC_OFF_COUNT, acc->count);
	if (write)
		memcpy(out + WSE_ACC_BYTES, acc->words, 4 * (size_t)acc->count);
	return (int)n;
}

int wse_acc_decode(const uint8_t *pl, size_t len, int write,
		   struct wse_wire_acc *acc)
{
	if (len < WSE_ACC_BYTES)
		return WSE_ERROR_TRUNCATED;
	acc->x = pl[WSE_ACC_OFF_X];
	acc->y = pl[WSE_ACC_OFF_Y];
	acc->addr = wse_get_le32(pl + WSE_ACC_OFF_ADDR);
	acc->count = wse_get_le32(pl + WSE_ACC_OFF_COUNT);
	acc->words = write ? pl + WSE_ACC_BYTES : NULL;
	if (wse_get_le16(pl + WSE_ACC_OFF_RSVD) != 0 || acc->count == 0)
		return WSE_ERROR_MALFORMED;
	if (!write)
		return exact(len, WSE_ACC_BYTES);
	if (acc->count > (len - WSE_ACC_BYTES) / 4)
		return WSE_ERROR_TRUNCATED;
	return exact(len, WSE_ACC_BYTES + 4 * (size_t)acc->count);
}

int wse_u32_encode(uint8_t *out, size_t cap, uint32_t v)
{
	if (cap < 4)
		return WSE_ERROR_OVERFLOW;
	wse_put_le32(out, v);
	return 4;
}

int wse_u32_decode(const uint8_t *pl, size_t len, uint32_t *v)
{
	int r = exact(len, 4);
	if (r)
		return r;
	*v = wse_get_le32(pl);
	return 0;
}

int wse_tile_encode(uint8_t *out, size_t cap, uint8_t x, uint8_t y)
{
	if (cap < WSE_TILE_BYTES)
		return WSE_ERROR_OVERFLOW;
	out[WSE_TILE_OFF_X] = x;
	out[WSE_TILE_OFF_Y] = y;
	wse_put_le16(out + WSE_TILE_OFF_RSVD, 0);
	return WSE_TILE_BYTES;
}

int wse_tile_decode(const uint8_t *pl, size_t len, uint8_t *x, uint8_t *y)
{
	int r = exact(len, WSE_TILE_BYTES);
	if (r)
		return r;
	*x = pl[WSE_TILE_OFF_X];
	*y = pl[WSE_TILE_OFF_Y];
	return wse_get_le16(pl + WSE_TILE_OFF_RSVD) ? WSE_ERROR_MALFORMED : 0;
}

#define WAVELET_MASK ((UINT64_C(1) << WSE_WAVELET_BITS) - 1)

int wse_chunk_append(uint8_t *out, size_t cap, size_t *off, uint8_t port,
		     const uint64_t *w, uint32_t count)
{
	if (count == 0 || !WSE_EDGE_PORT_VALID(port) || !w ||
	    count > (WSE_PROTO_MAX_PAYLOAD - WSE_CHUNK_BYTES) / 8)
		return WSE_ERROR_INVALID_PARAM;
	for (uint32_t i = 0; i < count; i++)
		if (w[i] & ~WAVELET_MASK)
			return WSE_ERROR_INVALID_PARAM;
	size_t need = WSE_CHUNK_BYTES + 8 * (size_t)count;
	if (*off > cap || cap - *off < need)
		return WSE_ERROR_OVERFLOW;
	uint8_t *o = out + *off;
	memset(o, 0, WSE_CHUNK_BYTES);
	o[WSE_CHUNK_OFF_PORT] = port;
	wse_put_le32(o + WSE_CHUNK_OFF_COUNT, count);
	for (uint32_t i = 0; i < count; i++)
		wse_put_le64(o + WSE_CHUNK_BYTES + 8 * (size_t)i, w[i]);
	*off += need;
	return 0;
}

int wse_chunk_next(const uint8_t *pl, size_t len, size_t *off,
		   struct wse_wire_chunk *c)
{
	if (*off >= len)
		return 0;
	size_t left = len - *off;
	const uint8_t *b = pl + *off;
	if (left < WSE_CHUNK_BYTES)
		return WSE_ERROR_TRUNCATED;
	c->port = b[WSE_CHUNK_OFF_PORT];
	c->count = wse_get_le32(b + WSE_CHUNK_OFF_COUNT);
	c->wavelets = b + WSE_CHUNK_BYTES;
	if (b[1] || wse_get_le16(b + 2) || !WSE_EDGE_PORT_VALID(c->port) ||
	    c->count == 0)
		return WSE_ERROR_MALFORMED;
	if (c->count > (left - WSE_CHUNK_BYTES) / 8)
		return WSE_ERROR_TRUNCATED;
	for (uint32_t i = 0; i < c->count; i++)
		if (wse_get_le64(c->wavelets + 8 * (size_t)i) & ~WAVELET_MASK)
			return WSE_ERROR_MALFORMED;
	*off += WSE_CHUNK_BYTES + 8 * (size_t)c->count;
	return 1;
}

int wse_chunks_check(const uint8_t *pl, size_t len)
{
	if (len == 0)
		return WSE_ERROR_TRUNCATED;
	size_t off = 0;
	struct wse_wire_chunk c;
	int r;
	while ((r = wse_chunk_next(pl, len, &off, &c)) == 1)
		;
	return r;
}

int wse_grant_append(uint8_t *out, size_t cap, size_t *off, uint8_t port,
		     uint32_t credits)
{
	if (!WSE_EDGE_PORT_VALID(port) || credits == 0)
		return WSE_ERROR_INVALID_PARAM;
	if (*off > cap || cap - *off < WSE_GRANT_BYTES)
		return WSE_ERROR_OVERFLOW;
	uint8_t *o = out + *off;
	memset(o, 0, WSE_GRANT_BYTES);
	o[WSE_CHUNK_OFF_PORT] = port;
	wse_put_le32(o + WSE_CHUNK_OFF_COUNT, credits);
	*off += WSE_GRANT_BYTES;
	return 0;
}

int wse_grants_check(const uint8_t *pl, size_t len)
{
	if (len == 0)
		return WSE_ERROR_TRUNCATED;
	if (len % WSE_GRANT_BYTES)
		return WSE_ERROR_MALFORMED;
	for (size_t o = 0; o < len; o += WSE_GRANT_BYTES) {
		const uint8_t *b = pl + o;
		if (b[1] || wse_get_le16(b + 2) ||
		    !WSE_EDGE_PORT_VALID(b[0]) ||
		    wse_get_le32(b + WSE_CHUNK_OFF_COUNT) == 0)
			return WSE_ERROR_MALFORMED;
	}
	return 0;
}

int wse_console_encode(uint8_t *out, size_t cap,
		       const struct wse_wire_console *c)
{
	if (c->count && !c->bytes)
		return WSE_ERROR_INVALID_PARAM;
	size_t n = WSE_CON_BYTES + (size_t)c->count;
	if (cap < n)
		return WSE_ERROR_OVERFLOW;
	out[WSE_CON_OFF_X] = c->x;
	out[WSE_CON_OFF_Y] = c->y;
	wse_put_le16(out + WSE_CON_OFF_COUNT, c->count);
	if (c->count)
		memcpy(out + WSE_CON_BYTES, c->bytes, c->count);
	return (int)n;
}

int wse_console_decode(const uint8_t *pl, size_t len,
		       struct wse_wire_console *c)
{
	if (len < WSE_CON_BYTES)
		return WSE_ERROR_TRUNCATED;
	c->x = pl[WSE_CON_OFF_X];
	c->y = pl[WSE_CON_OFF_Y];
	c->count = wse_get_le16(pl + WSE_CON_OFF_COUNT);
	c->bytes = pl + WSE_CON_BYTES;
	return exact(len, WSE_CON_BYTES + (size_t)c->count);
}

int wse_perf_encode(uint8_t *out, size_t cap, const uint32_t *v, uint32_t n)
{
	if (n > (WSE_PROTO_MAX_PAYLOAD - 4) / 4 || (n && !v))
		return WSE_ERROR_INVALID_PARAM;
	size_t len = 4 + 4 * (size_t)n;
	if (cap < len)
		return WSE_ERROR_OVERFLOW;
	wse_put_le32(out, n);
	for (uint32_t i = 0; i < n; i++)
		wse_put_le32(out + 4 + 4 * (size_t)i, v[i]);
	return (int)len;
}

int wse_perf_decode(const uint8_t *pl, size_t len, uint32_t *n,
		    const uint8_t **values)
{
	if (len < 4)
		return WSE_ERROR_TRUNCATED;
	*n = wse_get_le32(pl);
	*values = pl + 4;
	if (*n > (len - 4) / 4)
		return WSE_ERROR_TRUNCATED;
	return exact(len, 4 + 4 * (size_t)*n);
}

int wse_flash_encode(uint8_t *out, size_t cap, uint8_t op,
		     const struct wse_wire_flash *f)
{
	size_t n;
	switch (op) {
	case WSE_OP_FLASH_READ:
	case WSE_OP_FLASH_ERASE:
		n = WSE_FLASH_BYTES;
		break;
	case WSE_OP_FLASH_PROGRAM:
		if (f->len > WSE_PROTO_MAX_PAYLOAD - WSE_FLASH_BYTES ||
		    (f->len && !f->data))
			return WSE_ERROR_INVALID_PARAM;
		n = WSE_FLASH_BYTES + (size_t)f->len;
		break;
	case WSE_OP_FLASH_VERIFY:
		n = WSE_FLASH_VERIFY_BYTES;
		break;
	default:
		return WSE_ERROR_INVALID_PARAM;
	}
	if (cap < n)
		return WSE_ERROR_OVERFLOW;
	memset(out, 0, n);
	wse_put_le32(out + WSE_FLASH_OFF_OFFSET, f->offset);
	wse_put_le32(out + WSE_FLASH_OFF_LEN, f->len);
	if (op == WSE_OP_FLASH_PROGRAM && f->len)
		memcpy(out + WSE_FLASH_BYTES, f->data, f->len);
	if (op == WSE_OP_FLASH_VERIFY)
		wse_put_le32(out + WSE_FLASH_BYTES, f->crc);
	return (int)n;
}

int wse_flash_decode(const uint8_t *pl, size_t len, uint8_t op,
		     struct wse_wire_flash *f)
{
	if (len < WSE_FLASH_BYTES)
		return WSE_ERROR_TRUNCATED;
	f->offset = wse_get_le32(pl + WSE_FLASH_OFF_OFFSET);
	f->len = wse_get_le32(pl + WSE_FLASH_OFF_LEN);
	f->crc = 0;
	f->data = NULL;
	switch (op) {
	case WSE_OP_FLASH_READ:
	case WSE_OP_FLASH_ERASE:
		return exact(len, WSE_FLASH_BYTES);
	case WSE_OP_FLASH_PROGRAM:
		f->data = pl + WSE_FLASH_BYTES;
		if (f->len > len - WSE_FLASH_BYTES)
			return WSE_ERROR_TRUNCATED;
		return exact(len, WSE_FLASH_BYTES + (size_t)f->len);
	case WSE_OP_FLASH_VERIFY: {
		int r = exact(len, WSE_FLASH_VERIFY_BYTES);
		if (r)
			return r;
		f->crc = wse_get_le32(pl + WSE_FLASH_BYTES);
		return wse_get_le32(pl + WSE_FLASH_BYTES + 4)
			       ? WSE_ERROR_MALFORMED
			       : 0;
	}
	default:
		return WSE_ERROR_BAD_OPCODE;
	}
}

int wse_version_encode(uint8_t *out, size_t cap,
		       const struct wse_wire_version *v)
{
	if (cap < WSE_VER_BYTES)
		return WSE_ERROR_OVERFLOW;
	out[WSE_VER_OFF_DEV_MAJOR] = v->dev_major;
	out[WSE_VER_OFF_DEV_MINOR] = v->dev_minor;
	out[WSE_VER_OFF_REQ_MAJOR] = v->req_major;
	out[WSE_VER_OFF_REQ_MINOR] = v->req_minor;
	return WSE_VER_BYTES;
}

int wse_version_decode(const uint8_t *pl, size_t len,
		       struct wse_wire_version *v)
{
	int r = exact(len, WSE_VER_BYTES);
	if (r)
		return r;
	v->dev_major = pl[WSE_VER_OFF_DEV_MAJOR];
	v->dev_minor = pl[WSE_VER_OFF_DEV_MINOR];
	v->req_major = pl[WSE_VER_OFF_REQ_MAJOR];
	v->req_minor = pl[WSE_VER_OFF_REQ_MINOR];
	return 0;
}
