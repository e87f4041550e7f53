/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_link: libFuzzer harness for libwsehost's host-side parser. The
 * input is a byte stream from a device: it is fed through the receive
 * buffer (resynchronization) in pieces whose sizes come from the input's
 * first byte, and every packet found goes through the payload checks and
 * the typed decoders the library uses. An INFO-shaped input also goes
 * through the DTB parser. Built with ASan+UBSan: any out-of-bounds read,
 * overflow or leak is a crash.
 *   short run: make test-hostlib;  long run: make fuzz-hostlib FUZZ_TIME=s
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"
#include "transport.h"

static void walk(const struct wse_pkt *p)
{
	if (wse_payload_check(p))
		return;
	struct wse_wire_info in;
	struct wse_wire_chunk c;
	struct wse_wire_console con;
	struct wse_wire_version v;
	uint32_t n;
	const uint8_t *vals;
	size_t off = 0;
	volatile uint64_t sink = 0;
	switch (p->opcode) {
	case WSE_OP_INFO:
		if (p->status == WSE_ST_VERSION) {
			wse_version_decode(p->payload, p->length, &v);
		} else if (!wse_info_decode(p->payload, p->length, &in)) {
			struct wse_info wi = {.size = sizeof(wi)};
			char err[128];
			wsei_dtb_parse(in.dtb, in.dtb_len, &wi, err, sizeof(err));
		}
		break;
	case WSE_OP_STREAM_OUT:
		while (wse_chunk_next(p->payload, p->length, &off, &c) == 1)
			for (uint32_t i = 0; i < c.count; i++)
				sink += wse_get_le64(c.wavelets + 8 * i);
		break;
	case WSE_OP_CONSOLE:
		if (!wse_console_decode(p->payload, p->length, &con))
			for (uint16_t i = 0; i < con.count; i++)
				sink += con.bytes[i];
		break;
	case WSE_OP_PERF_READ:
		if (!wse_perf_decode(p->payload, p->length, &n, &vals))
			for (uint32_t i = 0; i < n; i++)
				sink += wse_get_le32(vals + 4 * i);
		break;
	default:
		for (uint32_t i = 0; i < p->length; i++)
			sink += p->payload[i];
	}
	(void)sink;
}

/* Give every frame that can be delimited correct CRCs. */
static void fix_crcs(uint8_t *b, size_t n)
{
	size_t o = 0;
	while (n - o >= WSE_HDR_BYTES) {
		uint8_t *h = b + o;
		wse_put_le32(h + WSE_HDR_OFF_MAGIC, WSE_PROTO_MAGIC);
		uint32_t len = wse_get_le32(h + WSE_HDR_OFF_LENGTH) % 9000;
		wse_put_le32(h + WSE_HDR_OFF_LENGTH, len);
		wse_put_le32(h + WSE_HDR_OFF_HCRC,
			     wse_crc32c_update(0, h, WSE_HDR_OFF_HCRC));
		size_t fb = wse_frame_bytes(len);
		if (fb > n - o)
			return;
		size_t padded = fb - WSE_HDR_BYTES - WSE_TRAILER_BYTES;
		wse_put_le32(h + WSE_HDR_BYTES + padded,
			     wse_crc32c_update(0, h + WSE_HDR_BYTES, padded));
		o += fb;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t step = (size_t)(data[0] & 0x7F) * 7 + 1;
	int fix = data[0] & 0x80;
	data++, size--;
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (fix)
		fix_crcs(copy, size);
	data = copy;
	struct wse_rx rx;
	if (wse_rx_init(&rx, 8192)) {
		free(copy);
		return 0;
	}
	for (size_t i = 0; i < size;) {
		size_t avail;
		uint8_t *sp = wse_rx_space(&rx, &avail);
		size_t k = size - i < step ? size - i : step;
		if (k > avail)
			k = avail;
		memcpy(sp, data + i, k);
		wse_rx_commit(&rx, k);
		i += k;
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&rx, &p)) != 0)
			if (r == 1)
				walk(&p);
	}
	wse_rx_free(&rx);
	/* The raw input as a DTB, too. */
	struct wse_info wi = {.size = sizeof(wi)};
	wsei_dtb_parse(data, size, &wi, NULL, 0);
	free(copy);
	return 0;
}
