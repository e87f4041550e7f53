/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_pcie.c - the PCIe device side (docs/pcie.md) of wsemu-fast over a
 * shared register file and the guest's RAM (wsf_pcie.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_error.h"
#include "wsemu/wse_pcie.h"
#include "wsemu/wse_wire.h"
#include "wsf_pcie.h"
#include "pcie_shm.h"

#define WSF_PCIE_MAX_PAYLOAD 4096u /* the host interface's request slot */

struct wsf_ring {
	bool run;
	uint64_t base;
	uint32_t size, head, tail;
};

struct wsf_pcie {
	struct wsf_host *h;
	struct pcie_shm *shm; /* the register file */
	uint8_t *ram;
	size_t ram_bytes;
	struct wsf_ring ring[2]; /* H2C, C2H */
	size_t tx_off;           /* bytes of wsf_host_tx() already sent */
	uint32_t pkt_left;       /* bytes of the packet being sent */
};

/* Guest RAM at bus address a, n bytes, or NULL when outside it. */
static uint8_t *dma(struct wsf_pcie *p, uint64_t a, uint64_t n)
{
	if (a > p->ram_bytes || n > p->ram_bytes - a)
		return NULL;
	return p->ram + a;
}

static void put32(uint8_t *b, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static unsigned ring_index(struct wsf_pcie *p, struct wsf_ring *r)
{
	return (unsigned)(r - p->ring);
}

/* An error stops the ring: its bit, the error vector, CTRL, HEAD, TAIL 0. */
static void ring_fail(struct wsf_pcie *p, struct wsf_ring *r, uint32_t bit)
{
	r->run = false;
	r->head = r->tail = 0;
	pcie_shm_error(p->shm, ring_index(p, r), bit);
	pcie_shm_stopped(p->shm, ring_index(p, r));
}

/* Write a descriptor's completion: len, then status with DONE; advance HEAD. */
static void complete(struct wsf_pcie *p, struct wsf_ring *r, uint8_t *d, uint32_t len,
		     uint32_t status, uint32_t flags, unsigned vec)
{
	put32(d + WSE_PCIE_CPL_OFF_LEN, len);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put32(d + WSE_PCIE_CPL_OFF_STATUS, WSE_PCIE_CPL_DONE | status);
	r->head = (r->head + 1) & (r->size - 1);
	pcie_shm_head(p->shm, ring_index(p, r), r->head);
	if ((status & WSE_PCIE_CPL_CODE_MASK) == WSE_PCIE_CPL_OK && !(flags & WSE_PCIE_DESC_NO_IRQ))
		pcie_shm_raise(p->shm, vec);
}

/* The register file's requests (pcie_shm_ops). */
static uint32_t ring_start(void *ctx, unsigned i, uint64_t base, uint32_t size)
{
	struct wsf_ring *r = &((struct wsf_pcie *)ctx)->ring[i];
	if (base % WSE_PCIE_RING_ALIGN)
		return WSE_PCIE_ERR_RING_ALIGN;
	if (!size || (size & (size - 1)) || size > WSE_PCIE_RING_MAX_ENTRIES)
		return WSE_PCIE_ERR_RING_SIZE;
	r->run = true;
	r->base = base;
	r->size = size;
	r->head = r->tail = 0;
	return 0;
}

static void ring_stop(void *ctx, unsigned i)
{
	struct wsf_ring *r = &((struct wsf_pcie *)ctx)->ring[i];
	r->run = false;
	r->head = r->tail = 0;
}

static uint32_t ring_tail(void *ctx, unsigned i, uint32_t tail)
{
	struct wsf_ring *r = &((struct wsf_pcie *)ctx)->ring[i];
	if (tail >= r->size)
		return WSE_PCIE_ERR_TAIL;
	r->tail = tail;
	return 0;
}

static const struct pcie_shm_ops wsf_pcie_ops = {ring_start, ring_stop, ring_tail};

/*
 * The descriptor at HEAD checked: its buffer, or NULL when it was refused
 * (completed with its code, the ring stopped) or lies outside the guest's
 * RAM (BUS). *d is the descriptor, NULL when it lies outside itself.
 */
static uint8_t *desc_take(struct wsf_pcie *p, struct wsf_ring *r, uint8_t **d, uint32_t *len,
			  uint32_t *flags)
{
	*d = dma(p, r->base + (uint64_t)r->head * WSE_PCIE_DESC_BYTES, WSE_PCIE_DESC_BYTES);
	if (!*d) {
		ring_fail(p, r, WSE_PCIE_ERR_BUS);
		return NULL;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t addr = get32(*d) | (uint64_t)get32(*d + 4) << 32;
	*len = get32(*d + WSE_PCIE_DESC_OFF_LEN);
	*flags = get32(*d + WSE_PCIE_DESC_OFF_FLAGS);
	uint32_t code = 0, bit = 0;
	if (addr % WSE_PCIE_BUF_ALIGN || *len % WSE_PCIE_BUF_ALIGN)
		code = WSE_PCIE_CPL_ALIGN, bit = WSE_PCIE_ERR_DESC_ALIGN;
	else if (*len > WSE_PCIE_DESC_MAX_LEN)
		code = WSE_PCIE_CPL_LEN, bit = WSE_PCIE_ERR_DESC_LEN;
	else if (*flags & ~WSE_PCIE_DESC_FLAGS_KNOWN)
		code = WSE_PCIE_CPL_RSVD, bit = WSE_PCIE_ERR_DESC_RSVD;
	uint8_t *buf = code ? NULL : dma(p, addr, *len);
	if (!code && !buf)
		code = WSE_PCIE_CPL_BUS, bit = WSE_PCIE_ERR_BUS;
	if (code) {
		complete(p, r, *d, 0, code, *flags, 0);
		ring_fail(p, r, bit);
		return NULL;
	}
	return buf ? buf : p->ram; /* a zero-length buffer at the end of RAM */
}

/* One H2C descriptor a look, so that the board runs between two (the
 * requests of a burst arrive over time, as on a link: a stream-in's
 * wavelets enter the mesh before an ABORT written right after it). */
static int h2c_run(struct wsf_pcie *p)
{
	struct wsf_ring *r = &p->ring[0];
	int done = 0;
	if (r->run && r->head != r->tail) {
		uint8_t *d;
		uint32_t len, flags;
		uint8_t *buf = desc_take(p, r, &d, &len, &flags);
		if (!buf)
			return done + 1;
		for (uint32_t k = 0; k < len;) {
			size_t room;
			uint8_t *to = wsf_host_rx_space(p->h, &room);
			size_t n = len - k < room ? len - k : room;
			memcpy(to, buf + k, n);
			int e = wsf_host_rx_commit(p->h, n);
			if (e < 0)
				return e;
			k += (uint32_t)n;
		}
		complete(p, r, d, len, WSE_PCIE_CPL_OK, flags, WSE_PCIE_VEC_H2C);
		done++;
	}
	return done;
}

static int c2h_run(struct wsf_pcie *p)
{
	struct wsf_ring *r = &p->ring[1];
	int done = 0;
	size_t tx_len;
	const uint8_t *tx = wsf_host_tx(p->h, &tx_len);
	while (r->run && r->head != r->tail && p->tx_off < tx_len) {
		if (!p->pkt_left) {
			uint32_t plen = get32(tx + p->tx_off + WSE_HDR_OFF_LENGTH);
			p->pkt_left = WSE_FRAME_BYTES(plen);
		}
		uint8_t *d;
		uint32_t len, flags;
		uint8_t *buf = desc_take(p, r, &d, &len, &flags);
		if (!buf)
			return done + 1;
		uint32_t n = len < p->pkt_left ? len : p->pkt_left;
		memcpy(buf, tx + p->tx_off, n);
		p->tx_off += n;
		p->pkt_left -= n;
		complete(p, r, d, n, p->pkt_left ? WSE_PCIE_CPL_OK : WSE_PCIE_CPL_OK | WSE_PCIE_CPL_EOP,
			 flags, WSE_PCIE_VEC_C2H);
		done++;
	}
	if (p->tx_off == tx_len && tx_len) {
		wsf_host_tx_done(p->h);
		p->tx_off = 0;
	}
	return done;
}

int wsf_pcie_poll(struct wsf_pcie *p)
{
	pcie_shm_look(p->shm, &wsf_pcie_ops, p);
	int a = h2c_run(p);
	if (a < 0)
		return a;
	return a + c2h_run(p);
}

uint32_t wsf_pcie_take_vectors(struct wsf_pcie *p)
{
	return pcie_shm_take_vectors(p->shm);
}

int wsf_pcie_tx_pending(const struct wsf_pcie *p)
{
	size_t tx_len;
	wsf_host_tx(p->h, &tx_len);
	return p->tx_off < tx_len;
}

int wsf_pcie_create(struct wsf_host *h, volatile void *regs, void *ram, size_t ram_bytes,
		    const struct wse_board *bd, const uint8_t *dtb, size_t dtb_len,
		    struct wsf_pcie **out)
{
	if (!h || !regs || !ram || !bd || !dtb || !out ||
	    dtb_len > WSE_PCIE_BAR_BYTES - WSE_PCIE_DTB_OFFSET)
		return WSE_ERROR_INVALID_PARAM;
	struct wsf_pcie *p = calloc(1, sizeof *p);
	if (!p)
		return WSE_ERROR_NO_MEM;
	p->h = h;
	p->ram = ram;
	p->ram_bytes = ram_bytes;
	uint32_t id[WSE_PCIE_DTB_OFFSET / 4] = {0};
	id[WSE_PCIE_REG_MAGIC / 4] = WSE_PCIE_MAGIC;
	id[WSE_PCIE_REG_MESH_COLS / 4] = bd->columns;
	id[WSE_PCIE_REG_MESH_ROWS / 4] = bd->rows;
	id[WSE_PCIE_REG_DTB_SIZE / 4] = (uint32_t)dtb_len;
	id[WSE_PCIE_REG_MAX_PAYLOAD / 4] = WSF_PCIE_MAX_PAYLOAD;
	id[WSE_PCIE_REG_VERSION / 4] = WSE_PCIE_VERSION;
	id[WSE_PCIE_REG_DTB_OFFSET / 4] = WSE_PCIE_DTB_OFFSET;
	id[WSE_PCIE_REG_DESC_MAX / 4] = WSE_PCIE_DESC_MAX_LEN;
	id[WSE_PCIE_REG_RING_MAX / 4] = WSE_PCIE_RING_MAX_ENTRIES;
	uint8_t compat[WSE_PCIE_COMPAT_BYTES] = {0};
	for (size_t i = 0; i < sizeof compat - 1 && bd->compatible[i]; i++)
		compat[i] = (uint8_t)bd->compatible[i];
	for (uint32_t i = 0; i < WSE_PCIE_COMPAT_BYTES; i += 4)
		id[(WSE_PCIE_REG_COMPAT + i) / 4] = get32(compat + i);
	int e = pcie_shm_create(regs, id, dtb, dtb_len, &p->shm);
	if (e < 0) {
		free(p);
		return e;
	}
	*out = p;
	return 0;
}

void wsf_pcie_destroy(struct wsf_pcie *p)
{
	if (p)
		pcie_shm_destroy(p->shm);
	free(p);
}
