/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_fast_pcie.c - wsemu-fast's PCIe device side (sim/fast/wsf_pcie.c)
 * against a driver model in this process: the register file and the
 * "guest RAM" are plain arrays. Identification and DTB; RUN refused for a
 * bad size and base; PING requests of random lengths cut into H2C buffers
 * of random sizes (some empty) through rings that wrap, the responses
 * gathered from C2H buffers smaller than a packet (EOP only at packet
 * ends, full buffers otherwise) and decoded; a TAIL outside the ring; an
 * unaligned, a too long and a reserved-flag descriptor; a buffer outside
 * RAM; NO_IRQ; the vectors to send under INT_MASK; stop and start again.
 * Usage: test_fast_pcie DTB
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_board.h"
#include "wsemu/wse_codec.h"
#include "wsemu/wse_pcie.h"
#include "wsf_pcie.h"

#define RAM_BYTES (4u << 20)
#define H2C_RING 0x1000u
#define C2H_RING 0x2000u
#define H2C_BUF 0x10000u  /* 8 buffers of 8 KiB */
#define C2H_BUF 0x100000u /* 16 buffers of 8 KiB */
#define N_H2C 8u
#define N_C2H 16u

static uint32_t regs[WSE_PCIE_BAR_BYTES / 4];
static uint8_t *ram;
static struct wsf_host *host;
static struct wsf_pcie *dev;
static int failures;
static uint32_t h2c_tail, c2h_tail, c2h_head, c2h_len;
static uint8_t c2h_pkt[70000];

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "test_fast_pcie: line %d: %s\n", __LINE__, #c); \
			failures++;                                                \
		}                                                                  \
	} while (0)

static uint32_t rd(uint32_t off) { return regs[off / 4]; }
static void wr(uint32_t off, uint32_t v) { regs[off / 4] = v; }
static uint32_t get32(const uint8_t *b) { uint32_t v; memcpy(&v, b, 4); return v; }
static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }

static void desc(uint32_t ring, uint32_t k, uint64_t addr, uint32_t len, uint32_t flags)
{
	uint8_t *d = ram + ring + 16 * k;
	memcpy(d, &addr, 8);
	put32(d + 8, len);
	put32(d + 12, flags);
}

/* The device and the board run until nothing is left to do. */
static void settle(void)
{
	for (int i = 0; i < 100000; i++) {
		int r = wsf_pcie_poll(dev);
		CHECK(r >= 0);
		if (r > 0 || wsf_host_busy(host))
			CHECK(wsf_host_step(host, 2048) >= 0);
		else
			return;
	}
	CHECK(!"settled");
}

static int start(uint32_t reg, uint32_t ring, uint32_t size)
{
	wr(reg + WSE_PCIE_RING_BASE_LO, ring);
	wr(reg + WSE_PCIE_RING_BASE_HI, 0);
	wr(reg + WSE_PCIE_RING_SIZE, size);
	wr(reg + WSE_PCIE_RING_CTRL, WSE_PCIE_CTRL_RUN);
	settle();
	return rd(reg + WSE_PCIE_RING_CTRL) & WSE_PCIE_CTRL_RUN;
}

static void rings_start(void)
{
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL, 0);
	wr(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL, 0);
	settle();
	memset(ram + H2C_RING, 0, 16 * N_H2C);
	memset(ram + C2H_RING, 0, 16 * N_C2H);
	CHECK(start(WSE_PCIE_REG_H2C, H2C_RING, N_H2C));
	CHECK(start(WSE_PCIE_REG_C2H, C2H_RING, N_C2H));
	h2c_tail = c2h_tail = c2h_head = c2h_len = 0;
	for (uint32_t k = 0; k < N_C2H - 1; k++)
		desc(C2H_RING, k, C2H_BUF + 8192 * k, 8 * (1 + rand() % 64), 0);
	c2h_tail = N_C2H - 1;
	wr(WSE_PCIE_REG_C2H + WSE_PCIE_RING_TAIL, c2h_tail);
}

/* Send bytes through H2C buffers of random sizes. */
static void h2c_send(const uint8_t *b, uint32_t n)
{
	uint32_t off = 0;
	while (off < n) {
		uint32_t k = h2c_tail, len = rand() % 8 ? 8 * (1 + rand() % 256) : 0;
		if (len > n - off)
			len = n - off;
		memcpy(ram + H2C_BUF + 8192 * k, b + off, len);
		desc(H2C_RING, k, H2C_BUF + 8192 * k, len, rand() % 2 ? WSE_PCIE_DESC_NO_IRQ : 0);
		h2c_tail = (k + 1) % N_H2C;
		wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL, h2c_tail);
		settle();
		uint8_t *d = ram + H2C_RING + 16 * k;
		CHECK(get32(d + 12) == WSE_PCIE_CPL_DONE && get32(d + 8) == len);
		CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_HEAD) == h2c_tail);
		off += len;
	}
}

/* One packet from the C2H ring, into c2h_pkt (c2h_len bytes); 0 if none. */
static int c2h_recv(void)
{
	c2h_len = 0;
	for (;;) {
		uint8_t *d = ram + C2H_RING + 16 * c2h_head;
		uint32_t st = get32(d + 12), len = get32(d + 8);
		if (!(st & WSE_PCIE_CPL_DONE))
			return 0;
		CHECK((st & WSE_PCIE_CPL_CODE_MASK) == WSE_PCIE_CPL_OK);
		uint32_t cap = 8 * (1 + rand() % 64);
		uint64_t addr;
		memcpy(&addr, d, 8);
		CHECK(c2h_len + len <= sizeof c2h_pkt);
		memcpy(c2h_pkt + c2h_len, ram + addr, len);
		c2h_len += len;
		/* repost it, as the driver does */
		desc(C2H_RING, c2h_tail, C2H_BUF + 8192 * c2h_tail, cap, 0);
		c2h_tail = (c2h_tail + 1) % N_C2H;
		c2h_head = (c2h_head + 1) % N_C2H;
		wr(WSE_PCIE_REG_C2H + WSE_PCIE_RING_TAIL, c2h_tail);
		if (st & WSE_PCIE_CPL_EOP)
			return 1;
		settle();
	}
}

static void ping(uint32_t tag, uint32_t n)
{
	static uint8_t pl[4096], frame[5000];
	for (uint32_t i = 0; i < n; i++)
		pl[i] = (uint8_t)rand();
	struct wse_pkt q = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR,
			    .opcode = WSE_OP_PING, .tag = tag, .length = n};
	int len = wse_pkt_encode(frame, sizeof frame, &q, pl);
	CHECK(len > 0);
	h2c_send(frame, (uint32_t)len);
	settle();
	CHECK(c2h_recv());
	struct wse_pkt r;
	size_t used;
	CHECK(wse_pkt_decode(c2h_pkt, c2h_len, &r, WSE_PROTO_MAX_PAYLOAD, &used) == 0);
	CHECK(used == c2h_len && r.opcode == WSE_OP_PING && r.tag == tag &&
	      r.status == WSE_ST_OK && r.length == n && !memcmp(r.payload, pl, n));
}

/* A refused H2C descriptor: its code, its error bit, the ring stopped. */
static void refused(uint64_t addr, uint32_t len, uint32_t flags, uint32_t code, uint32_t err)
{
	rings_start();
	wr(WSE_PCIE_REG_ERR_STATUS, 0);
	wr(WSE_PCIE_REG_INT_STATUS, 0);
	desc(H2C_RING, 0, addr, len, flags);
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL, 1);
	settle();
	CHECK(get32(ram + H2C_RING + 12) == (WSE_PCIE_CPL_DONE | code));
	CHECK(get32(ram + H2C_RING + 8) == 0);
	CHECK(rd(WSE_PCIE_REG_ERR_STATUS) == err);
	CHECK(rd(WSE_PCIE_REG_INT_STATUS) == 1u << WSE_PCIE_VEC_ERR);
	CHECK(!(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL) & WSE_PCIE_CTRL_RUN));
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_HEAD) == 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_fast_pcie DTB\n");
		return 2;
	}
	static uint8_t dtb[WSE_BOARD_MAX_DTB];
	FILE *f = fopen(argv[1], "rb");
	size_t dtb_len = f ? fread(dtb, 1, sizeof dtb, f) : 0;
	if (f)
		fclose(f);
	struct wse_board bd;
	char err[160];
	if (!dtb_len || wse_board_parse(dtb, dtb_len, &bd, err, sizeof err) < 0) {
		fprintf(stderr, "test_fast_pcie: %s: bad DTB\n", argv[1]);
		return 2;
	}
	ram = calloc(1, RAM_BYTES);
	CHECK(wsf_host_create(&bd, 0, dtb, dtb_len, "test", &host) == 0);
	CHECK(wsf_pcie_create(host, regs, ram, RAM_BYTES, &bd, dtb, dtb_len, &dev) == 0);
	srand(1);

	/* identification, the DTB, reset state */
	CHECK(rd(WSE_PCIE_REG_MAGIC) == WSE_PCIE_MAGIC);
	CHECK(rd(WSE_PCIE_REG_VERSION) == WSE_PCIE_VERSION);
	CHECK(rd(WSE_PCIE_REG_MESH_COLS) == bd.columns && rd(WSE_PCIE_REG_MESH_ROWS) == bd.rows);
	CHECK(rd(WSE_PCIE_REG_DTB_SIZE) == dtb_len && rd(WSE_PCIE_REG_DTB_OFFSET) == WSE_PCIE_DTB_OFFSET);
	CHECK(!strcmp((const char *)&regs[WSE_PCIE_REG_COMPAT / 4], bd.compatible));
	CHECK(!memcmp(&regs[WSE_PCIE_DTB_OFFSET / 4], dtb, dtb_len));
	CHECK(rd(WSE_PCIE_REG_INT_MASK) == 7);
	wr(WSE_PCIE_REG_MAGIC, 0);
	settle();
	CHECK(rd(WSE_PCIE_REG_MAGIC) == WSE_PCIE_MAGIC);

	/* RUN refused: size 6, base 8 bytes off */
	CHECK(!start(WSE_PCIE_REG_H2C, H2C_RING, 6));
	CHECK(rd(WSE_PCIE_REG_ERR_STATUS) == WSE_PCIE_ERR_RING_SIZE);
	CHECK(!start(WSE_PCIE_REG_C2H, C2H_RING + 8, 8));
	CHECK(rd(WSE_PCIE_REG_ERR_STATUS) ==
	      (WSE_PCIE_ERR_RING_SIZE | WSE_PCIE_ERR_RING_ALIGN << WSE_PCIE_ERR_C2H_SHIFT));
	CHECK(rd(WSE_PCIE_REG_INT_STATUS) == 1u << WSE_PCIE_VEC_ERR);
	wr(WSE_PCIE_REG_ERR_STATUS, 0);
	wr(WSE_PCIE_REG_INT_STATUS, 0);

	/* PINGs through both rings, wrapping many times */
	rings_start();
	for (uint32_t i = 0; i < 300; i++)
		ping(i, (uint32_t)rand() % (i < 10 ? 8 : 4097));
	CHECK(rd(WSE_PCIE_REG_INT_STATUS) ==
	      (1u << WSE_PCIE_VEC_H2C | 1u << WSE_PCIE_VEC_C2H));
	CHECK(rd(WSE_PCIE_REG_ERR_STATUS) == 0);

	/* vectors to send: none while all are masked (reset), the pending
	 * ones at the unmasking (the refusals' error vector among them), each
	 * once; a masked one waits for its unmasking */
	CHECK(wsf_pcie_take_vectors(dev) == 0);
	wr(WSE_PCIE_REG_INT_MASK, 0);
	CHECK(wsf_pcie_take_vectors(dev) == 7);
	CHECK(wsf_pcie_take_vectors(dev) == 0);
	ping(900, 16);
	/* (H2C's vector only if a buffer of the request was not NO_IRQ) */
	CHECK((wsf_pcie_take_vectors(dev) & ~1u) == 1u << WSE_PCIE_VEC_C2H);
	wr(WSE_PCIE_REG_INT_MASK, 1u << WSE_PCIE_VEC_C2H);
	ping(901, 16);
	CHECK((wsf_pcie_take_vectors(dev) & ~1u) == 0);
	wr(WSE_PCIE_REG_INT_MASK, 0);
	CHECK(wsf_pcie_take_vectors(dev) == 1u << WSE_PCIE_VEC_C2H);

	/* a TAIL outside the ring: refused, the old value kept */
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL, N_H2C);
	settle();
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL) == h2c_tail);
	CHECK(rd(WSE_PCIE_REG_ERR_STATUS) == WSE_PCIE_ERR_TAIL);
	ping(1000, 100);

	/* stopped by a stop request, which the model takes by writing CTRL
	 * 0 (again when already stopped); then no descriptor taken; started
	 * again: works */
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL, 0x80000000u);
	wr(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL, 0x80000000u);
	settle();
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL) == 0);
	CHECK(rd(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL) == 0);
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_HEAD) == 0);
	desc(H2C_RING, 0, H2C_BUF, 8, 0);
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL, 1);
	settle();
	CHECK(!get32(ram + H2C_RING + 12));
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_TAIL) == 0);
	wr(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL, 0x80000000u);
	settle();
	CHECK(rd(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL) == 0);
	rings_start();
	ping(1001, 4096);

	/* refused descriptors */
	refused(H2C_BUF + 4, 8, 0, WSE_PCIE_CPL_ALIGN, WSE_PCIE_ERR_DESC_ALIGN);
	refused(H2C_BUF, 12, 0, WSE_PCIE_CPL_ALIGN, WSE_PCIE_ERR_DESC_ALIGN);
	refused(H2C_BUF, WSE_PCIE_DESC_MAX_LEN + 8, 0, WSE_PCIE_CPL_LEN, WSE_PCIE_ERR_DESC_LEN);
	refused(H2C_BUF, 8, 2, WSE_PCIE_CPL_RSVD, WSE_PCIE_ERR_DESC_RSVD);
	refused(RAM_BYTES - 8, 16, 0, WSE_PCIE_CPL_BUS, WSE_PCIE_ERR_BUS);
	rings_start();
	ping(1002, 8);

	wsf_pcie_destroy(dev);
	wsf_host_destroy(host);
	free(ram);
	if (failures)
		return 1;
	printf("test_fast_pcie: ok\n");
	return 0;
}
