/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device.c - the request calls of wsehost.h: each validates its arguments,
 * builds a transfer (the requests of its opcode, split into packets the
 * device accepts, or a stream-out wait) and hands it to the engine (io.c,
 * through io.h) to wait for it or, for the _async calls, to complete it
 * through a callback. Nothing here locks, sends or touches the device's
 * state: that is the engine's, so each call reads as its opcode's payload
 * layout (docs/protocol.md) and its checks.
 */
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "transport.h"

/* ---- Any opcode (transport.h) --------------------------------------------- */

int wsei_request(wse_device *d, uint8_t op, const void *pl, size_t len,
		void *rep, size_t cap)
{
	if (!d || (len && !pl) || (cap && !rep))
		return WSE_ERROR_INVALID_PARAM;
	struct wsei_reply r = {rep, cap, 0};
	int e = wsei_transact(d, op, pl, len, &r);
	return e ? e : (int)r.len;
}

/* ---- Simple requests ----------------------------------------------------- */

int wse_ping(wse_device *d, const void *data, size_t len)
{
	if (!d || (len && !data))
		return WSE_ERROR_INVALID_PARAM;
	if (len > wsei_max_payload(d))
		return WSE_ERROR_LENGTH;
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return WSE_ERROR_NO_MEM;
	struct wsei_reply rep = {buf, len, 0};
	int r = wsei_transact(d, WSE_OP_PING, data, len, &rep);
	if (!r && (rep.len != len || (len && memcmp(buf, data, len))))
		r = WSE_ERROR_MALFORMED;
	free(buf);
	return r;
}

int wse_reset(wse_device *d)
{
	uint8_t pl[4];
	wse_put_le32(pl, WSE_RESET_MESH);
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	int r = wsei_transact(d, WSE_OP_RESET, pl, 4, NULL);
	if (!r)
		wsei_streams_reset(d);
	return r;
}

static int check_tile(struct wse_device *d, unsigned x, unsigned y, int all)
{
	if (all && x == WSE_ALL_TILES && y == WSE_ALL_TILES)
		return 0;
	return x < wsei_info(d)->columns && y < wsei_info(d)->rows ? 0 : WSE_ERROR_RANGE;
}

static int tile_op(struct wse_device *d, uint8_t op, unsigned x, unsigned y)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, 1);
	if (r)
		return r;
	uint8_t pl[WSE_TILE_BYTES];
	wse_tile_encode(pl, sizeof(pl), (uint8_t)x, (uint8_t)y);
	return wsei_transact(d, op, pl, sizeof(pl), NULL);
}

int wse_tile_halt(wse_device *d, unsigned x, unsigned y)
{
	return tile_op(d, WSE_OP_HALT, x, y);
}

int wse_tile_run(wse_device *d, unsigned x, unsigned y)
{
	return tile_op(d, WSE_OP_RUN, x, y);
}

/* ---- Tile accesses ------------------------------------------------------- */

/* The transfer of count words at addr; addr advances by step per word (4
 * for byte addresses, 1 for CSR numbers and colors), split into packets.
 * Reads land in words as they are answered. */
static int build_access(struct wse_device *d, uint8_t op, unsigned x,
			unsigned y, uint32_t addr, uint32_t step,
			uint8_t *words, size_t count, struct wse_transfer **xp)
{
	int write = op & 1;
	if (!d || (count && !words))
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, write);
	if (r)
		return r;
	size_t per = (wsei_max_payload(d) - WSE_ACC_BYTES) / 4;
	uint8_t *pl = malloc(wsei_max_payload(d));
	struct wse_transfer *xf = wsei_xfer_new(d, (count + per - 1) / per);
	if (!pl || !xf) {
		free(pl);
		wsei_xfer_drop(xf);
		return WSE_ERROR_NO_MEM;
	}
	for (size_t done = 0, i = 0; !r && done < count; i++) {
		size_t n = count - done < per ? count - done : per;
		struct wse_wire_acc acc = {(uint8_t)x, (uint8_t)y,
					   addr + (uint32_t)(done * step),
					   (uint32_t)n, words + 4 * done};
		int len = wse_acc_encode(pl, wsei_max_payload(d), write, &acc);
		r = len < 0 ? len
			    : wsei_req_set(xf, (unsigned)i, op, pl, (size_t)len,
				      write ? NULL : words + 4 * done,
				      write ? 0 : 4 * n, !write, 4 * n);
		done += n;
	}
	free(pl);
	if (r) {
		wsei_xfer_drop(xf);
		return r;
	}
	*xp = xf;
	return 0;
}

static int tile_access(struct wse_device *d, uint8_t op, unsigned x, unsigned y,
		       uint32_t addr, uint32_t step, uint8_t *words, size_t count)
{
	struct wse_transfer *xf;
	int r = build_access(d, op, x, y, addr, step, words, count, &xf);
	if (r)
		return r;
	r = wsei_run_sync(d, xf, 0);
	wsei_xfer_drop(xf);
	return r;
}

/* Host-order u32 array <-> little-endian words, in place. */
static void to_le(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wse_put_le32((uint8_t *)&v[i], v[i]);
}
static void from_le(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = wse_get_le32((uint8_t *)&v[i]);
}

static int mem_check(uint32_t addr, size_t len)
{
	if ((addr | len) & 3)
		return WSE_ERROR_ALIGN;
	if (len && (uint64_t)addr + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	return 0;
}

int wse_mem_read(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		 void *buf, size_t len)
{
	int r = mem_check(addr, len);
	return r ? r : tile_access(d, WSE_OP_MEM_READ, x, y, addr, 4, buf, len / 4);
}

int wse_mem_write(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		  const void *buf, size_t len)
{
	int r = mem_check(addr, len);
	/* Memory bytes go as-is: word i is bytes 4i..4i+3, little-endian,
	 * which is the tile's byte order. */
	return r ? r : tile_access(d, WSE_OP_MEM_WRITE, x, y, addr, 4,
				   (uint8_t *)buf, len / 4);
}

static int words_op(wse_device *d, uint8_t op, unsigned x, unsigned y,
		    uint32_t addr, uint32_t step, uint32_t *v, size_t n)
{
	int r;
	if (op & 1) {
		uint32_t *tmp = malloc(n ? n * 4 : 4);
		if (!tmp)
			return WSE_ERROR_NO_MEM;
		if (n)
			memcpy(tmp, v, n * 4);
		to_le(tmp, n);
		r = tile_access(d, op, x, y, addr, step, (uint8_t *)tmp, n);
		free(tmp);
	} else {
		r = tile_access(d, op, x, y, addr, step, (uint8_t *)v, n);
		if (!r)
			from_le(v, n);
	}
	return r;
}

int wse_csr_read(wse_device *d, unsigned x, unsigned y, unsigned csr,
		 uint32_t *value)
{
	if (!value)
		return WSE_ERROR_INVALID_PARAM;
	if (csr >= WSE_NUM_CSRS)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_CSR_READ, x, y, csr, 1, value, 1);
}

int wse_csr_write(wse_device *d, unsigned x, unsigned y, unsigned csr,
		  uint32_t value)
{
	if (csr >= WSE_NUM_CSRS)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_CSR_WRITE, x, y, csr, 1, &value, 1);
}

int wse_route_read(wse_device *d, unsigned x, unsigned y, unsigned first,
		   uint32_t *e, size_t n)
{
	if (!e || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	if (first >= WSE_NUM_COLORS || n > WSE_NUM_COLORS - first)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_ROUTE_READ, x, y, first, 1, e, n);
}

int wse_route_write(wse_device *d, unsigned x, unsigned y, unsigned first,
		    const uint32_t *e, size_t n)
{
	if (!e || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	if (first >= WSE_NUM_COLORS || n > WSE_NUM_COLORS - first)
		return WSE_ERROR_RANGE;
	return words_op(d, WSE_OP_ROUTE_WRITE, x, y, first, 1, (uint32_t *)e,
			n);
}

int wse_reg_read(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		 uint32_t *value)
{
	if (!value)
		return WSE_ERROR_INVALID_PARAM;
	if (addr & 3)
		return WSE_ERROR_ALIGN;
	return words_op(d, WSE_OP_REG_READ, x, y, addr, 4, value, 1);
}

int wse_reg_write(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		  uint32_t value)
{
	if (addr & 3)
		return WSE_ERROR_ALIGN;
	return words_op(d, WSE_OP_REG_WRITE, x, y, addr, 4, &value, 1);
}

int wse_perf_read(wse_device *d, unsigned x, unsigned y, uint32_t *values,
		  size_t n)
{
	if (!d || (n && !values))
		return WSE_ERROR_INVALID_PARAM;
	int r = check_tile(d, x, y, 1);
	if (r)
		return r;
	uint8_t pl[WSE_TILE_BYTES];
	wse_tile_encode(pl, sizeof(pl), (uint8_t)x, (uint8_t)y);
	struct wsei_reply rep = {.cap = WSE_PROTO_MAX_PAYLOAD};
	rep.buf = malloc(rep.cap);
	if (!rep.buf)
		return WSE_ERROR_NO_MEM;
	r = wsei_transact(d, WSE_OP_PERF_READ, pl, sizeof(pl), &rep);
	if (!r) {
		uint32_t cnt;
		const uint8_t *v;
		r = wse_perf_decode(rep.buf, rep.len, &cnt, &v);
		if (!r) {
			for (size_t i = 0; i < n && i < cnt; i++)
				values[i] = wse_get_le32(v + 4 * i);
			r = (int)cnt;
		}
	}
	free(rep.buf);
	return r;
}

/* ---- Streams -------------------------------------------------------------- */

static int port_of(struct wse_device *d, unsigned edge, unsigned row,
		   uint8_t *port)
{
	if (edge > 1 || row >= wsei_info(d)->rows)
		return WSE_ERROR_RANGE;
	*port = WSE_EDGE_PORT(edge, row);
	return 0;
}

/* Fill packets with as many chunks (or parts of chunks) as fit: into the
 * requests of xf, or (xf NULL) only count them. */
static int pack_stream_in(struct wse_device *d, const struct wse_stream_chunk *c,
			  size_t n, uint8_t *pl, struct wse_transfer *xf,
			  size_t *npkt)
{
	int r = 0;
	size_t off = 0, wavelets = 0;
	*npkt = 0;
	for (size_t i = 0, k = 0; !r && i <= n;) {
		if (i < n && k == c[i].count) {
			i++;
			k = 0;
			continue;
		}
		size_t room = wsei_max_payload(d) - off;
		if (i < n && room >= WSE_CHUNK_BYTES + 8) {
			size_t take = (room - WSE_CHUNK_BYTES) / 8;
			if (take > c[i].count - k)
				take = c[i].count - k;
			r = wse_chunk_append(pl, wsei_max_payload(d), &off,
					     WSE_EDGE_PORT(c[i].edge, c[i].row),
					     c[i].wavelets + k, (uint32_t)take);
			k += take;
			wavelets += take;
			continue;
		}
		if (off && xf)
			r = wsei_req_set(xf, (unsigned)*npkt, WSE_OP_STREAM_IN, pl,
				    off, NULL, 0, 0, wavelets);
		*npkt += off != 0;
		off = wavelets = 0;
		if (i == n)
			break;
	}
	return r;
}

/* The transfer of a wse_stream_in() call, the wavelets copied. */
static int build_stream_in(struct wse_device *d,
			   const struct wse_stream_chunk *c, size_t n,
			   struct wse_transfer **xp)
{
	if (!d || (n && !c))
		return WSE_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < n; i++) {
		uint8_t port;
		int r = port_of(d, c[i].edge, c[i].row, &port);
		if (r)
			return r;
		if (c[i].count && !c[i].wavelets)
			return WSE_ERROR_INVALID_PARAM;
		for (size_t k = 0; k < c[i].count; k++)
			if (c[i].wavelets[k] >> WSE_WAVELET_BITS)
				return WSE_ERROR_RANGE;
	}
	uint8_t *pl = malloc(wsei_max_payload(d));
	size_t npkt;
	int r = pl ? pack_stream_in(d, c, n, pl, NULL, &npkt) : WSE_ERROR_NO_MEM;
	struct wse_transfer *xf = r ? NULL : wsei_xfer_new(d, npkt);
	if (!r && !xf)
		r = WSE_ERROR_NO_MEM;
	if (!r)
		r = pack_stream_in(d, c, n, pl, xf, &npkt);
	free(pl);
	if (r) {
		wsei_xfer_drop(xf);
		return r;
	}
	*xp = xf;
	return 0;
}

int wse_stream_in(wse_device *d, const struct wse_stream_chunk *c, size_t n)
{
	struct wse_transfer *xf;
	int r = build_stream_in(d, c, n, &xf);
	if (r)
		return r;
	r = wsei_run_sync(d, xf, 0);
	wsei_xfer_drop(xf);
	return r;
}

int wse_stream_credit(wse_device *d, unsigned edge, unsigned row, uint32_t n)
{
	uint8_t pl[WSE_GRANT_BYTES], port;
	size_t off = 0;
	if (!d || n == 0)
		return WSE_ERROR_INVALID_PARAM;
	int r = port_of(d, edge, row, &port);
	if (r)
		return r;
	wse_grant_append(pl, sizeof(pl), &off, port, n);
	/* Credits count before the request leaves: the device may use them
	 * before its answer arrives. */
	wsei_credit_grant(d, port, n);
	return wsei_transact(d, WSE_OP_STREAM_CREDIT, pl, off, NULL);
}

/* A wait for up to max wavelets of a port, ended by the first to come. */
static int build_stream_out(struct wse_device *d, unsigned edge, unsigned row,
			    uint64_t *buf, size_t max, struct wse_transfer **xp)
{
	uint8_t port;
	if (!d || !buf || max == 0)
		return WSE_ERROR_INVALID_PARAM;
	int r = port_of(d, edge, row, &port);
	if (r)
		return r;
	return wsei_sout_new(d, port, buf, max, xp);
}

int wse_stream_out(wse_device *d, unsigned edge, unsigned row, uint64_t *buf,
		   size_t max, int timeout_ms)
{
	struct wse_transfer *xf;
	int r = build_stream_out(d, edge, row, buf, max, &xf);
	if (r)
		return r;
	r = wsei_run_sync(d, xf, timeout_ms);
	wsei_xfer_drop(xf);
	return r;
}

/* ---- Flash ---------------------------------------------------------------- */

int wse_flash_read(wse_device *d, uint32_t off, void *buf, size_t len)
{
	if (!d || (len && !buf))
		return WSE_ERROR_INVALID_PARAM;
	if (len && (uint64_t)off + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	int r = 0;
	size_t per = wsei_max_payload(d);
	for (size_t done = 0; !r && done < len; done += per) {
		size_t n = len - done < per ? len - done : per;
		struct wse_wire_flash f = {off + (uint32_t)done, (uint32_t)n, 0,
					   NULL};
		uint8_t pl[WSE_FLASH_BYTES];
		wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_READ, &f);
		struct wsei_reply rep = {(uint8_t *)buf + done, n, 0};
		r = wsei_transact(d, WSE_OP_FLASH_READ, pl, sizeof(pl), &rep);
		if (!r && rep.len != n)
			r = WSE_ERROR_MALFORMED;
	}
	return r;
}

int wse_flash_erase(wse_device *d, uint32_t off, uint32_t len)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_wire_flash f = {off, len, 0, NULL};
	uint8_t pl[WSE_FLASH_BYTES];
	wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_ERASE, &f);
	return wsei_transact(d, WSE_OP_FLASH_ERASE, pl, sizeof(pl), NULL);
}

int wse_flash_program(wse_device *d, uint32_t off, const void *buf,
		      size_t len)
{
	if (!d || (len && !buf))
		return WSE_ERROR_INVALID_PARAM;
	if (len && (uint64_t)off + len - 1 > 0xFFFFFFFFu)
		return WSE_ERROR_RANGE;
	uint8_t *pl = malloc(wsei_max_payload(d));
	if (!pl)
		return WSE_ERROR_NO_MEM;
	int r = 0;
	size_t per = wsei_max_payload(d) - WSE_FLASH_BYTES;
	for (size_t done = 0; !r && done < len; done += per) {
		size_t n = len - done < per ? len - done : per;
		struct wse_wire_flash f = {off + (uint32_t)done, (uint32_t)n, 0,
					   (const uint8_t *)buf + done};
		int plen = wse_flash_encode(pl, wsei_max_payload(d),
					    WSE_OP_FLASH_PROGRAM, &f);
		r = plen < 0 ? plen
			     : wsei_transact(d, WSE_OP_FLASH_PROGRAM, pl,
					(size_t)plen, NULL);
	}
	free(pl);
	return r;
}

int wse_flash_verify(wse_device *d, uint32_t off, uint32_t len, uint32_t crc)
{
	if (!d)
		return WSE_ERROR_INVALID_PARAM;
	struct wse_wire_flash f = {off, len, crc, NULL};
	uint8_t pl[WSE_FLASH_VERIFY_BYTES], got[4];
	struct wsei_reply rep = {got, sizeof(got), 0};
	wse_flash_encode(pl, sizeof(pl), WSE_OP_FLASH_VERIFY, &f);
	int r = wsei_transact(d, WSE_OP_FLASH_VERIFY, pl, sizeof(pl), &rep);
	if (r == WSE_ERROR_VERIFY && rep.len == 4)
		wsei_logf(wsei_log(d), WSE_LOG_INFO,
			"flash verify: expected crc %08x, device has %08x", crc,
			wse_get_le32(got));
	if (!r && (rep.len != 4 || wse_get_le32(got) != crc))
		r = WSE_ERROR_VERIFY;
	return r;
}

/* ---- Asynchronous transfers ------------------------------------------------ */

/* Memory read or write as an asynchronous transfer. */
static int mem_async(wse_device *d, uint8_t op, unsigned x, unsigned y,
		     uint32_t addr, uint8_t *buf, size_t len, int timeout_ms,
		     wse_transfer_cb cb, void *user, wse_transfer **xfer)
{
	struct wse_transfer *xf;
	if (xfer)
		*xfer = NULL;
	if (!cb)
		return WSE_ERROR_INVALID_PARAM;
	int r = mem_check(addr, len);
	if (!r)
		r = build_access(d, op, x, y, addr, 4, buf, len / 4, &xf);
	return r ? r : wsei_submit_async(d, xf, timeout_ms, cb, user, xfer);
}

int wse_mem_read_async(wse_device *d, unsigned x, unsigned y, uint32_t addr,
		       void *buf, size_t len, int timeout_ms,
		       wse_transfer_cb cb, void *user, wse_transfer **xfer)
{
	return mem_async(d, WSE_OP_MEM_READ, x, y, addr, buf, len, timeout_ms,
			 cb, user, xfer);
}

int wse_mem_write_async(wse_device *d, unsigned x, unsigned y, uint32_t addr,
			const void *buf, size_t len, int timeout_ms,
			wse_transfer_cb cb, void *user, wse_transfer **xfer)
{
	return mem_async(d, WSE_OP_MEM_WRITE, x, y, addr, (uint8_t *)buf, len,
			 timeout_ms, cb, user, xfer);
}

int wse_stream_in_async(wse_device *d, const struct wse_stream_chunk *c,
			size_t n, int timeout_ms, wse_transfer_cb cb,
			void *user, wse_transfer **xfer)
{
	struct wse_transfer *xf;
	if (xfer)
		*xfer = NULL;
	if (!cb)
		return WSE_ERROR_INVALID_PARAM;
	int r = build_stream_in(d, c, n, &xf);
	return r ? r : wsei_submit_async(d, xf, timeout_ms, cb, user, xfer);
}

int wse_stream_out_async(wse_device *d, unsigned edge, unsigned row,
			 uint64_t *buf, size_t max, int timeout_ms,
			 wse_transfer_cb cb, void *user, wse_transfer **xfer)
{
	struct wse_transfer *xf;
	if (xfer)
		*xfer = NULL;
	if (!cb)
		return WSE_ERROR_INVALID_PARAM;
	int r = build_stream_out(d, edge, row, buf, max, &xf);
	return r ? r : wsei_submit_async(d, xf, timeout_ms, cb, user, xfer);
}
