/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_codec: libwsehost's protocol codec. Round trips of every opcode
 * (request, response, event), every malformed case (bad magic, header and
 * payload CRC, truncation at every length, over-long length, wrong major
 * version, unknown or misplaced opcode, reserved fields), resynchronization
 * after garbage, and CRC-32C against the reference in wse_wire.h.
 *   test_codec --write-corpus DIR   write seed packets for the fuzzer
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"

#define CAP (WSE_PROTO_MAX_PAYLOAD + 64)
static uint8_t frame[CAP], pl[CAP];

static int enc(uint8_t op, uint8_t flags, uint32_t tag, uint16_t st,
	       const void *p, size_t len)
{
	struct wse_pkt h = {WSE_PROTO_MAJOR, WSE_PROTO_MINOR, op, flags, tag,
			    st, (uint32_t)len, NULL};
	return wse_pkt_encode(frame, sizeof(frame), &h, p);
}

/* Decode frame[0..n) completely and check the payload. */
static int dec(size_t n, struct wse_pkt *p)
{
	size_t used;
	int r = wse_pkt_decode(frame, n, p, WSE_PROTO_MAX_PAYLOAD, &used);
	if (r)
		return r;
	assert_int_equal(used, n);
	return wse_payload_check(p);
}

/* CRC-32C by its definition, a bit at a time: the oracle of the table. */
static uint32_t crc_bitwise(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void test_crc(void **s)
{
	(void)s;
	assert_int_equal(wse_crc32c_update(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(crc_bitwise(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(wse_crc32c(0, "", 0), 0);
	uint8_t b[1000];
	uint32_t x = 12345;
	for (int i = 0; i < 1000; i++)
		b[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
	for (size_t n = 0; n <= 1000; n += 37) {
		uint32_t a = wse_crc32c_update(0, b, n);
		assert_int_equal(a, crc_bitwise(0, b, n));
		assert_int_equal(a, wse_crc32c(0, b, n));
		/* Piecewise equals whole. */
		assert_int_equal(wse_crc32c_update(wse_crc32c_update(0, b, n / 3),
						   b + n / 3, n - n / 3),
				 a);
	}
	/* Every byte value, which covers each entry of the table. */
	for (int v = 0; v < 256; v++) {
		uint8_t c = (uint8_t)v;
		assert_int_equal(wse_crc32c_update(0, &c, 1), crc_bitwise(0, &c, 1));
	}
}

static void test_layout(void **s)
{
	(void)s;
	/* The header layout is frozen: check the documented offsets. */
	int n = enc(WSE_OP_PING, 0, 0x11223344u, 0, "abc", 3);
	assert_int_equal(n, WSE_HDR_BYTES + 8 + WSE_TRAILER_BYTES);
	assert_int_equal(n % 8, 0);
	assert_memory_equal(frame, "WSEL", 4);
	assert_int_equal(frame[4], WSE_PROTO_MAJOR);
	assert_int_equal(frame[5], WSE_PROTO_MINOR);
	assert_int_equal(frame[6], WSE_OP_PING);
	assert_int_equal(frame[7], 0);
	assert_int_equal(wse_get_le32(frame + 8), 0x11223344u);
	assert_int_equal(wse_get_le32(frame + 16), 3);
	assert_int_equal(wse_get_le32(frame + 20),
			 wse_crc32c_update(0, frame, 20));
	assert_memory_equal(frame + 24, "abc\0\0\0\0\0", 8);
	assert_int_equal(wse_get_le32(frame + 32),
			 wse_crc32c_update(0, frame + 24, 8));
	assert_int_equal(wse_get_le32(frame + 36), 0);
	for (uint32_t l = 0; l < 40; l++)
		assert_int_equal(wse_frame_bytes(l), WSE_FRAME_BYTES(l));
	assert_int_equal(WSE_EDGE_PORT(WSE_EDGE_EAST, 5), 0x85);
	assert_int_equal(WSE_EDGE_PORT_ROW(0x85), 5);
	assert_int_equal(WSE_EDGE_PORT_EDGE(0x85), 1);
}

/* Encode a request and a response for op; decode both; compare. */
static void roundtrip(uint8_t op, const uint8_t *q, size_t qn,
		      const uint8_t *r, size_t rn)
{
	struct wse_pkt p;
	int n = enc(op, 0, 77, 0, q, qn);
	assert_true(n > 0);
	assert_int_equal(dec((size_t)n, &p), 0);
	assert_int_equal(p.opcode, op);
	assert_int_equal(p.tag, 77);
	assert_int_equal(p.length, qn);
	assert_int_equal(wse_pkt_role(&p), WSE_ROLE_REQUEST);
	if (qn)
		assert_memory_equal(p.payload, q, qn);
	n = enc(op, WSE_FLAG_RESPONSE, 77, WSE_ST_OK, r, rn);
	assert_true(n > 0);
	assert_int_equal(dec((size_t)n, &p), 0);
	assert_int_equal(wse_pkt_role(&p), WSE_ROLE_RESPONSE);
	assert_int_equal(p.length, rn);
	if (rn)
		assert_memory_equal(p.payload, r, rn);
	/* Every error status with an empty payload is a valid response. */
	for (unsigned st = 1; st < WSE_ST_COUNT; st++) {
		if (st == WSE_ST_VERSION || st == WSE_ST_VERIFY)
			continue;
		n = enc(op, WSE_FLAG_RESPONSE, 77, (uint16_t)st, NULL, 0);
		assert_int_equal(dec((size_t)n, &p), 0);
		assert_int_equal(p.status, st);
		assert_int_not_equal(wse_status_to_error(st), 0);
	}
}

static void test_roundtrip_all(void **s)
{
	(void)s;
	uint8_t q[256], r[256];
	int n;
	struct wse_wire_info in = {1, 0, 8192, 4, "build-1", (const uint8_t *)"DTBDATA", 7}, io;
	n = wse_info_encode(r, sizeof(r), &in);
	assert_int_equal(n, WSE_INFO_BYTES + 7);
	roundtrip(WSE_OP_INFO, NULL, 0, r, (size_t)n);
	assert_int_equal(wse_info_decode(r, (size_t)n, &io), 0);
	assert_int_equal(io.max_payload, 8192);
	assert_int_equal(io.max_outstanding, 4);
	assert_int_equal(io.dtb_len, 7);
	assert_memory_equal(io.dtb, "DTBDATA", 7);
	assert_string_equal(io.build_id, "build-1");

	roundtrip(WSE_OP_PING, (const uint8_t *)"hello", 5,
		  (const uint8_t *)"hello", 5);
	roundtrip(WSE_OP_PING, NULL, 0, NULL, 0);
	wse_u32_encode(q, 4, WSE_RESET_MESH);
	roundtrip(WSE_OP_RESET, q, 4, NULL, 0);
	wse_u32_encode(q, 4, 1234);
	roundtrip(WSE_OP_ABORT, q, 4, NULL, 0);
	uint8_t x, y;
	wse_tile_encode(q, 4, 3, 2);
	roundtrip(WSE_OP_HALT, q, 4, NULL, 0);
	roundtrip(WSE_OP_RUN, q, 4, NULL, 0);
	assert_int_equal(wse_tile_decode(q, 4, &x, &y), 0);
	assert_int_equal(x, 3);
	assert_int_equal(y, 2);

	static const uint8_t ops[][2] = {
		{WSE_OP_MEM_READ, WSE_OP_MEM_WRITE},
		{WSE_OP_CSR_READ, WSE_OP_CSR_WRITE},
		{WSE_OP_ROUTE_READ, WSE_OP_ROUTE_WRITE},
		{WSE_OP_REG_READ, WSE_OP_REG_WRITE}};
	uint8_t words[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	for (int i = 0; i < 4; i++) {
		struct wse_wire_acc a = {1, 2, 0x80000010u, 3, words}, b;
		n = wse_acc_encode(q, sizeof(q), 0, &a);
		assert_int_equal(n, WSE_ACC_BYTES);
		roundtrip(ops[i][0], q, (size_t)n, words, 12);
		assert_int_equal(wse_acc_decode(q, (size_t)n, 0, &b), 0);
		assert_int_equal(b.addr, a.addr);
		assert_int_equal(b.count, 3);
		n = wse_acc_encode(q, sizeof(q), 1, &a);
		assert_int_equal(n, WSE_ACC_BYTES + 12);
		roundtrip(ops[i][1], q, (size_t)n, NULL, 0);
		assert_int_equal(wse_acc_decode(q, (size_t)n, 1, &b), 0);
		assert_memory_equal(b.words, words, 12);
		assert_int_equal(b.x, 1);
		assert_int_equal(b.y, 2);
	}

	/* Stream-in with chunks for three ports in one packet. */
	uint64_t w[5] = {wse_wavelet(1, 2, 0), wse_wavelet(0xFFFFFFFFu, 31, 1),
			 3, 4, 5};
	size_t off = 0;
	assert_int_equal(wse_chunk_append(q, sizeof(q), &off,
					  WSE_EDGE_PORT(0, 0), w, 2), 0);
	assert_int_equal(wse_chunk_append(q, sizeof(q), &off,
					  WSE_EDGE_PORT(0, 1), w + 2, 1), 0);
	assert_int_equal(wse_chunk_append(q, sizeof(q), &off,
					  WSE_EDGE_PORT(1, 63), w + 3, 2), 0);
	assert_int_equal(off, 3 * 8 + 5 * 8);
	roundtrip(WSE_OP_STREAM_IN, q, off, NULL, 0);
	size_t o = 0;
	struct wse_wire_chunk c;
	int k = 0;
	uint64_t got[5];
	int g = 0;
	while (wse_chunk_next(q, off, &o, &c) == 1) {
		k++;
		for (uint32_t i = 0; i < c.count; i++)
			got[g++] = wse_get_le64(c.wavelets + 8 * i);
	}
	assert_int_equal(k, 3);
	assert_memory_equal(got, w, sizeof(w));

	/* Stream-out is an event. */
	struct wse_pkt p;
	n = enc(WSE_OP_STREAM_OUT, WSE_FLAG_EVENT, 0, 0, q, off);
	assert_int_equal(dec((size_t)n, &p), 0);
	assert_int_equal(wse_pkt_role(&p), WSE_ROLE_EVENT);

	off = 0;
	assert_int_equal(wse_grant_append(q, sizeof(q), &off, WSE_EDGE_PORT(1, 0), 100), 0);
	assert_int_equal(wse_grant_append(q, sizeof(q), &off, WSE_EDGE_PORT(1, 3), 7), 0);
	roundtrip(WSE_OP_STREAM_CREDIT, q, off, NULL, 0);

	struct wse_wire_console con = {2, 3, 6, (const uint8_t *)"hi!\nok"}, co;
	n = wse_console_encode(q, sizeof(q), &con);
	uint8_t fr2[64];
	memcpy(fr2, q, (size_t)n);
	int fn = enc(WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, 0, fr2, (size_t)n);
	assert_int_equal(dec((size_t)fn, &p), 0);
	assert_int_equal(wse_console_decode(p.payload, p.length, &co), 0);
	assert_int_equal(co.count, 6);
	assert_int_equal(co.x, 2);
	assert_memory_equal(co.bytes, "hi!\nok", 6);

	uint32_t v[WSE_PERF_TILE_COUNTERS];
	for (int i = 0; i < WSE_PERF_TILE_COUNTERS; i++)
		v[i] = (uint32_t)i * 3;
	wse_tile_encode(q, 4, 0, 0);
	n = wse_perf_encode(r, sizeof(r), v, WSE_PERF_TILE_COUNTERS);
	roundtrip(WSE_OP_PERF_READ, q, 4, r, (size_t)n);
	uint32_t cnt;
	const uint8_t *vals;
	assert_int_equal(wse_perf_decode(r, (size_t)n, &cnt, &vals), 0);
	assert_int_equal(cnt, WSE_PERF_TILE_COUNTERS);
	assert_int_equal(wse_get_le32(vals + 4 * 14), 42);

	struct wse_wire_flash f = {4096, 5, 0xABCDEF01u, (const uint8_t *)"flash"}, fo;
	n = wse_flash_encode(q, sizeof(q), WSE_OP_FLASH_READ, &f);
	roundtrip(WSE_OP_FLASH_READ, q, (size_t)n, (const uint8_t *)"flash", 5);
	n = wse_flash_encode(q, sizeof(q), WSE_OP_FLASH_ERASE, &f);
	roundtrip(WSE_OP_FLASH_ERASE, q, (size_t)n, NULL, 0);
	n = wse_flash_encode(q, sizeof(q), WSE_OP_FLASH_PROGRAM, &f);
	assert_int_equal(n, 13);
	roundtrip(WSE_OP_FLASH_PROGRAM, q, (size_t)n, NULL, 0);
	assert_int_equal(wse_flash_decode(q, (size_t)n, WSE_OP_FLASH_PROGRAM, &fo), 0);
	assert_memory_equal(fo.data, "flash", 5);
	n = wse_flash_encode(q, sizeof(q), WSE_OP_FLASH_VERIFY, &f);
	wse_put_le32(r, 0xABCDEF01u);
	roundtrip(WSE_OP_FLASH_VERIFY, q, (size_t)n, r, 4);
	assert_int_equal(wse_flash_decode(q, (size_t)n, WSE_OP_FLASH_VERIFY, &fo), 0);
	assert_int_equal(fo.crc, 0xABCDEF01u);

	/* Error responses that carry a payload. */
	struct wse_wire_version ver = {1, 0, 2, 5}, vo;
	wse_version_encode(r, 4, &ver);
	n = enc(WSE_OP_INFO, WSE_FLAG_RESPONSE, 9, WSE_ST_VERSION, r, 4);
	assert_int_equal(dec((size_t)n, &p), 0);
	assert_int_equal(wse_version_decode(p.payload, p.length, &vo), 0);
	assert_int_equal(vo.req_major, 2);
	assert_int_equal(vo.req_minor, 5);
	n = enc(WSE_OP_FLASH_VERIFY, WSE_FLAG_RESPONSE, 9, WSE_ST_VERIFY, r, 4);
	assert_int_equal(dec((size_t)n, &p), 0);
	/* The largest payload. */
	static uint8_t big[WSE_PROTO_MAX_PAYLOAD];
	memset(big, 0x5A, sizeof(big));
	n = enc(WSE_OP_PING, 0, 1, 0, big, sizeof(big));
	assert_int_equal(n, WSE_FRAME_BYTES(WSE_PROTO_MAX_PAYLOAD));
	assert_int_equal(dec((size_t)n, &p), 0);
	assert_int_equal(enc(WSE_OP_PING, 0, 1, 0, big, sizeof(big) + 1),
			 WSE_ERROR_INVALID_PARAM);
}

static void test_bad_headers(void **s)
{
	(void)s;
	struct wse_pkt p;
	size_t used;
	int n = enc(WSE_OP_PING, 0, 5, 0, "12345678", 8);

	/* Truncated at every length. */
	for (int i = 0; i < n; i++)
		assert_int_equal(wse_pkt_decode(frame, (size_t)i, &p,
						WSE_PROTO_MAX_PAYLOAD, &used),
				 WSE_ERROR_TRUNCATED);
	/* Every single-bit flip in the header is detected. */
	for (int bit = 0; bit < WSE_HDR_BYTES * 8; bit++) {
		frame[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		int r = wse_pkt_decode(frame, (size_t)n, &p,
				       WSE_PROTO_MAX_PAYLOAD, &used);
		assert_true(r == (bit < 32 ? WSE_ERROR_BAD_MAGIC
					   : WSE_ERROR_HEADER_CRC));
		assert_int_equal(used, 0);
		frame[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* ... and in the payload and its CRC. */
	for (int bit = WSE_HDR_BYTES * 8; bit < (WSE_HDR_BYTES + 12) * 8; bit++) {
		frame[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(wse_pkt_decode(frame, (size_t)n, &p,
						WSE_PROTO_MAX_PAYLOAD, &used),
				 WSE_ERROR_PAYLOAD_CRC);
		assert_int_equal(used, (size_t)n);
		assert_int_equal(p.tag, 5); /* the header was intact */
		frame[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* Trailer reserved word. */
	frame[n - 1] = 1;
	assert_int_equal(wse_pkt_decode(frame, (size_t)n, &p,
					WSE_PROTO_MAX_PAYLOAD, &used),
			 WSE_ERROR_MALFORMED);

	/* Over-long length (with a valid header CRC), against the
	 * receiver's limit and against the protocol's. */
	n = enc(WSE_OP_PING, 0, 5, 0, pl, 4097);
	assert_int_equal(wse_hdr_decode(frame, (size_t)n, &p, 4096),
			 WSE_ERROR_LENGTH);
	assert_int_equal(p.length, 4097);
	assert_int_equal(wse_hdr_decode(frame, (size_t)n, &p, 4097), 0);
	wse_put_le32(frame + WSE_HDR_OFF_LENGTH, 0xFFFFFFFFu);
	wse_put_le32(frame + WSE_HDR_OFF_HCRC, wse_crc32c_update(0, frame, 20));
	assert_int_equal(wse_pkt_decode(frame, (size_t)n, &p, 0xFFFFFFFFu, &used),
			 WSE_ERROR_LENGTH);

	/* Wrong major version: refused, header and payload still readable. */
	struct wse_pkt h = {2, 7, WSE_OP_INFO, 0, 9, 0, 3, NULL};
	n = wse_pkt_encode(frame, sizeof(frame), &h, "abc");
	assert_int_equal(wse_pkt_decode(frame, (size_t)n, &p,
					WSE_PROTO_MAX_PAYLOAD, &used),
			 WSE_ERROR_VERSION);
	assert_int_equal(p.major, 2);
	assert_int_equal(p.minor, 7);
	assert_int_equal(used, (size_t)n);
	assert_non_null(p.payload);
	/* Same major, newer minor: accepted. */
	h.major = WSE_PROTO_MAJOR;
	h.minor = 200;
	h.length = 0;
	n = wse_pkt_encode(frame, sizeof(frame), &h, NULL);
	assert_int_equal(dec((size_t)n, &p), 0);

	/* Unknown opcodes, event opcodes as requests, request opcodes as
	 * events. */
	for (int op = 0; op < 256; op++) {
		n = enc((uint8_t)op, 0, 1, 0, NULL, 0);
		int r = wse_pkt_decode(frame, (size_t)n, &p,
				       WSE_PROTO_MAX_PAYLOAD, &used);
		if (!wse_opcode_known((uint8_t)op) || op == WSE_OP_STREAM_OUT ||
		    op == WSE_OP_CONSOLE)
			assert_int_equal(r, WSE_ERROR_BAD_OPCODE);
		else
			assert_int_equal(r, 0);
	}
	n = enc(WSE_OP_PING, WSE_FLAG_EVENT, 0, 0, NULL, 0);
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_BAD_OPCODE);
	/* The refusal of an unknown or event opcode carries that opcode and is
	 * a valid response; with another status the opcode is checked. */
	static const uint8_t refused[] = {0x7F, 0x00, WSE_OP_STREAM_OUT, WSE_OP_CONSOLE};
	for (size_t i = 0; i < sizeof(refused); i++) {
		n = enc(refused[i], WSE_FLAG_RESPONSE, 5, WSE_ST_OPCODE, NULL, 0);
		assert_int_equal(dec((size_t)n, &p), 0);
		assert_int_equal(p.opcode, refused[i]);
		n = enc(refused[i], WSE_FLAG_RESPONSE, 5, WSE_ST_RANGE, NULL, 0);
		assert_int_equal(dec((size_t)n, &p), WSE_ERROR_BAD_OPCODE);
	}
	n = enc(0x7F, WSE_FLAG_RESPONSE, 5, WSE_ST_OPCODE, "xyzw", 4);
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	/* Flags and reserved fields. */
	n = enc(WSE_OP_PING, 0x04, 1, 0, NULL, 0);
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	n = enc(WSE_OP_PING, WSE_FLAG_RESPONSE | WSE_FLAG_EVENT, 1, 0, NULL, 0);
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	n = enc(WSE_OP_PING, 0, 1, WSE_ST_RANGE, NULL, 0); /* status in request */
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	n = enc(WSE_OP_CONSOLE, WSE_FLAG_EVENT, 3, 0, NULL, 0); /* event tag */
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	n = enc(WSE_OP_PING, 0, 1, 0, NULL, 0);
	frame[WSE_HDR_OFF_RSVD] = 1;
	wse_put_le32(frame + WSE_HDR_OFF_HCRC, wse_crc32c_update(0, frame, 20));
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);
	/* Non-zero padding. */
	n = enc(WSE_OP_PING, 0, 1, 0, "x", 1);
	frame[WSE_HDR_BYTES + 3] = 1;
	wse_put_le32(frame + n - 8, wse_crc32c_update(0, frame + 24, 8));
	assert_int_equal(dec((size_t)n, &p), WSE_ERROR_MALFORMED);

	/* Encoder limits. */
	assert_int_equal(enc(WSE_OP_PING, 0, 1, 0, NULL, 4), WSE_ERROR_INVALID_PARAM);
	struct wse_pkt e = {1, 0, WSE_OP_PING, 0, 1, 0, 8, NULL};
	assert_int_equal(wse_pkt_encode(frame, 39, &e, "12345678"), WSE_ERROR_OVERFLOW);
}

/* Payload layouts checked for every opcode: wrong sizes and reserved. */
static void expect_payload(uint8_t op, uint8_t flags, uint16_t st,
			   const void *p, size_t len, int want)
{
	struct wse_pkt h = {1, 0, op, flags, flags & WSE_FLAG_EVENT ? 0 : 1,
			    st, (uint32_t)len, p};
	if (!len)
		h.payload = NULL;
	assert_int_equal(wse_payload_check(&h), want);
}

static void test_bad_payloads(void **s)
{
	(void)s;
	uint8_t b[256];
	memset(b, 0, sizeof(b));
	const int T = WSE_ERROR_TRUNCATED, M = WSE_ERROR_MALFORMED;
	expect_payload(WSE_OP_INFO, 0, 0, b, 1, M);
	expect_payload(WSE_OP_RESET, 0, 0, b, 3, T);
	expect_payload(WSE_OP_RESET, 0, 0, b, 5, M);
	b[0] = 1; /* unknown reset scope */
	expect_payload(WSE_OP_RESET, 0, 0, b, 4, M);
	b[0] = 0;
	expect_payload(WSE_OP_ABORT, 0, 0, b, 0, T);
	expect_payload(WSE_OP_HALT, 0, 0, b, 2, T);
	b[2] = 1; /* tile reserved */
	expect_payload(WSE_OP_RUN, 0, 0, b, 4, M);
	expect_payload(WSE_OP_PERF_READ, 0, 0, b, 4, M);
	b[2] = 0;
	/* Accesses: count 0, reserved, short data, extra data. */
	struct wse_wire_acc a = {0, 0, 0x80000000u, 2, b + 100};
	int n = wse_acc_encode(b, sizeof(b), 1, &a);
	expect_payload(WSE_OP_MEM_WRITE, 0, 0, b, (size_t)n, 0);
	expect_payload(WSE_OP_MEM_WRITE, 0, 0, b, (size_t)n - 1, T);
	expect_payload(WSE_OP_MEM_WRITE, 0, 0, b, (size_t)n + 4, M);
	expect_payload(WSE_OP_MEM_READ, 0, 0, b, (size_t)n, M);
	expect_payload(WSE_OP_REG_READ, 0, 0, b, 11, T);
	wse_put_le32(b + WSE_ACC_OFF_COUNT, 0x40000000u); /* huge count */
	expect_payload(WSE_OP_CSR_WRITE, 0, 0, b, (size_t)n, T);
	wse_put_le32(b + WSE_ACC_OFF_COUNT, 0);
	expect_payload(WSE_OP_ROUTE_READ, 0, 0, b, WSE_ACC_BYTES, M);
	wse_put_le32(b + WSE_ACC_OFF_COUNT, 1);
	b[WSE_ACC_OFF_RSVD] = 1;
	expect_payload(WSE_OP_ROUTE_READ, 0, 0, b, WSE_ACC_BYTES, M);
	memset(b, 0, sizeof(b));
	/* Chunks: empty, count 0, count beyond the payload, reserved, bad
	 * port, wavelet above 38 bits, trailing bytes. */
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 0, T);
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 8, M);
	b[4] = 2;
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 16, T);
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 24, 0);
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 28, T);
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 32, M);
	b[4] = 0xFF, b[5] = 0xFF, b[6] = 0xFF, b[7] = 0xFF;
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 24, T);
	b[4] = 1, b[5] = 0, b[6] = 0, b[7] = 0;
	b[0] = 0x40;
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 16, M);
	b[0] = 0;
	b[2] = 1;
	expect_payload(WSE_OP_STREAM_IN, 0, 0, b, 16, M);
	b[2] = 0;
	b[15] = 0x40; /* bit 62 of the wavelet */
	expect_payload(WSE_OP_STREAM_OUT, WSE_FLAG_EVENT, 0, b, 16, M);
	b[15] = 0;
	expect_payload(WSE_OP_STREAM_OUT, WSE_FLAG_EVENT, 0, b, 16, 0);
	/* Grants. */
	expect_payload(WSE_OP_STREAM_CREDIT, 0, 0, b, 12, M);
	expect_payload(WSE_OP_STREAM_CREDIT, 0, 0, b, 8, 0);
	b[4] = 0;
	expect_payload(WSE_OP_STREAM_CREDIT, 0, 0, b, 8, M);
	/* Console. */
	b[2] = 10;
	expect_payload(WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, b, 13, T);
	expect_payload(WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, b, 15, M);
	expect_payload(WSE_OP_CONSOLE, WSE_FLAG_EVENT, 0, b, 14, 0);
	memset(b, 0, sizeof(b));
	/* Flash. */
	expect_payload(WSE_OP_FLASH_READ, 0, 0, b, 7, T);
	expect_payload(WSE_OP_FLASH_ERASE, 0, 0, b, 9, M);
	b[4] = 4;
	expect_payload(WSE_OP_FLASH_PROGRAM, 0, 0, b, 11, T);
	expect_payload(WSE_OP_FLASH_PROGRAM, 0, 0, b, 13, M);
	expect_payload(WSE_OP_FLASH_PROGRAM, 0, 0, b, 12, 0);
	b[12] = 1;
	expect_payload(WSE_OP_FLASH_VERIFY, 0, 0, b, 16, M);
	b[12] = 0;
	/* Responses. */
	expect_payload(WSE_OP_HALT, WSE_FLAG_RESPONSE, 0, b, 4, M);
	expect_payload(WSE_OP_MEM_READ, WSE_FLAG_RESPONSE, 0, b, 0, T);
	expect_payload(WSE_OP_MEM_READ, WSE_FLAG_RESPONSE, 0, b, 6, M);
	expect_payload(WSE_OP_PERF_READ, WSE_FLAG_RESPONSE, 0, b, 3, T);
	b[0] = 2;
	expect_payload(WSE_OP_PERF_READ, WSE_FLAG_RESPONSE, 0, b, 8, T);
	expect_payload(WSE_OP_PERF_READ, WSE_FLAG_RESPONSE, 0, b, 16, M);
	expect_payload(WSE_OP_PERF_READ, WSE_FLAG_RESPONSE, 0, b, 12, 0);
	expect_payload(WSE_OP_INFO, WSE_FLAG_RESPONSE, 0, b, 47, T);
	wse_put_le32(b + WSE_INFO_OFF_DTB_LEN, 100);
	expect_payload(WSE_OP_INFO, WSE_FLAG_RESPONSE, 0, b, 48, T);
	wse_put_le32(b + WSE_INFO_OFF_DTB_LEN, 0xFFFFFFFFu);
	expect_payload(WSE_OP_INFO, WSE_FLAG_RESPONSE, 0, b, 60, T);
	wse_put_le32(b + WSE_INFO_OFF_DTB_LEN, 1);
	expect_payload(WSE_OP_INFO, WSE_FLAG_RESPONSE, 0, b, 60, M);
	expect_payload(WSE_OP_FLASH_VERIFY, WSE_FLAG_RESPONSE, 0, b, 8, M);
	expect_payload(WSE_OP_PING, WSE_FLAG_RESPONSE, WSE_ST_RANGE, b, 4, M);
	expect_payload(WSE_OP_PING, WSE_FLAG_RESPONSE, WSE_ST_VERSION, b, 0, T);
	expect_payload(WSE_OP_STREAM_OUT, WSE_FLAG_RESPONSE, 0, NULL, 0,
		       WSE_ERROR_BAD_OPCODE);
	/* Payload pointer missing. */
	struct wse_pkt h = {1, 0, WSE_OP_PING, 0, 1, 0, 4, NULL};
	assert_int_equal(wse_payload_check(&h), T);
	/* Encoders refuse what they cannot express. */
	size_t off = 0;
	uint64_t w = 1ull << 40;
	assert_int_equal(wse_chunk_append(b, sizeof(b), &off, 0, &w, 1), WSE_ERROR_INVALID_PARAM);
	w = 1;
	assert_int_equal(wse_chunk_append(b, sizeof(b), &off, 0x40, &w, 1), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_chunk_append(b, sizeof(b), &off, 0, &w, 0), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_chunk_append(b, 15, &off, 0, &w, 1), WSE_ERROR_OVERFLOW);
	assert_int_equal(off, 0);
	assert_int_equal(wse_grant_append(b, sizeof(b), &off, 0, 0), WSE_ERROR_INVALID_PARAM);
	struct wse_wire_acc z = {0, 0, 0, 0, NULL};
	assert_int_equal(wse_acc_encode(b, sizeof(b), 0, &z), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_flash_encode(b, sizeof(b), WSE_OP_PING, NULL), WSE_ERROR_INVALID_PARAM);
}

/* Feed bytes through a receive buffer in pieces of size step. */
static int rx_feed(struct wse_rx *rx, const uint8_t *b, size_t n, size_t step,
		   uint32_t *tags, int max)
{
	int got = 0;
	for (size_t i = 0; i < n;) {
		size_t avail;
		uint8_t *sp = wse_rx_space(rx, &avail);
		size_t k = n - i < step ? n - i : step;
		if (k > avail)
			k = avail;
		memcpy(sp, b + i, k);
		wse_rx_commit(rx, k);
		i += k;
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(rx, &p)) != 0)
			if (r == 1 && got < max)
				tags[got++] = p.tag;
			else if (r < 0 && got < max)
				tags[got++] = 0x80000000u | (uint32_t)-r;
	}
	return got;
}

static void test_resync(void **s)
{
	(void)s;
	static uint8_t stream[4096];
	size_t n = 0;
	static const uint8_t junk1[] = {0, 1, 2, 'W', 'S', 'E', 'L', 1, 0};
	static const uint8_t junk2[] = {'W', 'S', 'E', 'L', 'W', 'S', 'E'};
	memcpy(stream + n, junk1, sizeof(junk1));
	n += sizeof(junk1);
	n += (size_t)enc(WSE_OP_PING, WSE_FLAG_RESPONSE, 1, 0, "one", 3) ?
		     0 : 0;
	memcpy(stream + n, frame, wse_frame_bytes(3));
	n += wse_frame_bytes(3);
	memcpy(stream + n, junk2, sizeof(junk2));
	n += sizeof(junk2);
	/* A frame with a corrupted header: skipped byte by byte. */
	int k = enc(WSE_OP_PING, WSE_FLAG_RESPONSE, 2, 0, "two", 3);
	frame[9] ^= 0xFF;
	memcpy(stream + n, frame, (size_t)k);
	n += (size_t)k;
	/* A frame with a bad payload: reported with its tag, skipped whole. */
	k = enc(WSE_OP_PING, WSE_FLAG_RESPONSE, 3, 0, "three", 5);
	frame[WSE_HDR_BYTES] ^= 1;
	memcpy(stream + n, frame, (size_t)k);
	n += (size_t)k;
	/* An over-long one: reported, then resynchronized. */
	k = enc(WSE_OP_PING, WSE_FLAG_RESPONSE, 4, 0, pl, 200);
	memcpy(stream + n, frame, (size_t)k);
	n += (size_t)k;
	k = enc(WSE_OP_PING, WSE_FLAG_RESPONSE, 5, 0, "five", 4);
	memcpy(stream + n, frame, (size_t)k);
	n += (size_t)k;

	for (size_t step = 1; step <= n; step = step < 8 ? step + 1 : step * 3) {
		struct wse_rx rx;
		assert_int_equal(wse_rx_init(&rx, 128), 0);
		uint32_t tags[16];
		int got = rx_feed(&rx, stream, n, step, tags, 16);
		assert_int_equal(got, 4);
		assert_int_equal(tags[0], 1);
		assert_int_equal(tags[1], 0x80000000u | -WSE_ERROR_PAYLOAD_CRC);
		assert_int_equal(tags[2], 0x80000000u | -WSE_ERROR_LENGTH);
		assert_int_equal(tags[3], 5);
		assert_int_equal(rx.bad_packets, 2);
		assert_true(rx.resync_bytes >= sizeof(junk1) + sizeof(junk2) +
						       WSE_FRAME_BYTES(3));
		wse_rx_free(&rx);
	}
	/* Pure garbage never produces a packet and never stalls. */
	struct wse_rx rx;
	assert_int_equal(wse_rx_init(&rx, 64), 0);
	uint32_t x = 1;
	for (int i = 0; i < (int)sizeof(stream); i++)
		stream[i] = (uint8_t)((x = x * 1103515245u + 12345u) >> 16);
	uint32_t tags[4];
	assert_int_equal(rx_feed(&rx, stream, sizeof(stream), 100, tags, 4), 0);
	for (int i = 0; i < 100; i++) { /* an unending magic run */
		size_t avail;
		uint8_t *sp = wse_rx_space(&rx, &avail);
		assert_true(avail > 0);
		size_t m = avail < 4000 ? avail : 4000;
		for (size_t j = 0; j < m; j++)
			sp[j] = "WSEL"[j % 4];
		wse_rx_commit(&rx, m);
		struct wse_pkt p;
		while (wse_rx_next(&rx, &p))
			;
	}
	wse_rx_free(&rx);
}

static void test_names(void **s)
{
	(void)s;
	for (int e = 0; e >= -100; e--) {
		assert_non_null(wse_strerror(e));
		assert_non_null(wse_error_name(e));
	}
	assert_string_equal(wse_error_name(WSE_ERROR_TIMEOUT), "WSE_ERROR_TIMEOUT");
	for (unsigned st = 0; st < WSE_ST_COUNT; st++)
		assert_string_not_equal(wse_status_name(st), "UNKNOWN");
	assert_string_equal(wse_status_name(999), "UNKNOWN");
	assert_int_equal(wse_version(), WSEHOST_VERSION);
	assert_non_null(wse_version_string());
}

static int write_corpus(const char *dir)
{
	char path[512];
	int i = 0;
	uint8_t q[128];
	size_t off = 0;
	uint64_t w[3] = {1, 2, 3};
	wse_chunk_append(q, sizeof(q), &off, 0x81, w, 3);
	struct {
		uint8_t op, flags;
		const void *p;
		size_t n;
	} seeds[] = {
		{WSE_OP_PING, WSE_FLAG_RESPONSE, "hello", 5},
		{WSE_OP_STREAM_OUT, WSE_FLAG_EVENT, q, off},
		{WSE_OP_CONSOLE, WSE_FLAG_EVENT, "\x01\x02\x03\x00hi!", 7},
		{WSE_OP_PERF_READ, WSE_FLAG_RESPONSE, "\x01\x00\x00\x00\x05\x00\x00\x00", 8},
		{WSE_OP_MEM_READ, WSE_FLAG_RESPONSE, "abcdefgh", 8},
	};
	for (; i < (int)(sizeof(seeds) / sizeof(seeds[0])); i++) {
		int n = enc(seeds[i].op, seeds[i].flags, 1, 0, seeds[i].p, seeds[i].n);
		snprintf(path, sizeof(path), "%s/seed-%d", dir, i);
		FILE *f = fopen(path, "wb");
		if (!f)
			return 1;
		fputc(i * 40 + (i & 1) * 0x80, f); /* the harness's mode byte */
		fwrite(frame, 1, (size_t)n, f);
		fclose(f);
	}
	return 0;
}

/* An INFO response around a real DTB. */
static int write_info_seed(const char *dir, const char *dtb_path)
{
	static uint8_t dtb[WSE_PROTO_MAX_PAYLOAD];
	char path[512];
	FILE *f = fopen(dtb_path, "rb");
	if (!f)
		return 1;
	size_t n = fread(dtb, 1, sizeof(dtb) - WSE_INFO_BYTES, f);
	fclose(f);
	struct wse_wire_info in = {1, 0, 8192, 4, "seed", dtb, (uint32_t)n};
	int k = wse_info_encode(pl, sizeof(pl), &in);
	k = enc(WSE_OP_INFO, WSE_FLAG_RESPONSE, 1, 0, pl, (size_t)k);
	snprintf(path, sizeof(path), "%s/seed-info", dir);
	if (!(f = fopen(path, "wb")))
		return 1;
	fputc(0xFF, f); /* the harness's piece-size byte */
	fwrite(frame, 1, (size_t)k, f);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]) ||
		       (argc == 4 && write_info_seed(argv[2], argv[3]));
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_roundtrip_all),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_bad_payloads),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
