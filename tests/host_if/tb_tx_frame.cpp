// SPDX-License-Identifier: Apache-2.0
//
// tb_tx_frame: hif_tx_frame (the RTL link transmitter) checked by
// libwsehost's codec. Random responses and events (every opcode, statuses,
// lengths 0..5000 with garbage in the bytes past the length) go in with
// random stalls on both sides; the link words that come out must decode,
// with the codec's receive buffer, into exactly the packets sent: same
// fields, same payload, no byte skipped, no CRC error.
//
//   tb_tx_frame [packets] [seed]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "Vhif_tx_frame.h"
#include "verilated.h"

extern "C" {
#include "wsemu/wse_codec.h"
}

struct Pkt {
	uint8_t opcode, flags;
	uint32_t tag;
	uint16_t status;
	std::vector<uint8_t> payload;
};

static std::mt19937_64 rng;
static uint32_t rnd(uint32_t n) { return (uint32_t)(rng() % n); }

static const uint8_t kOps[] = {
	WSE_OP_INFO, WSE_OP_PING, WSE_OP_RESET, WSE_OP_ABORT, WSE_OP_HALT, WSE_OP_RUN,
	WSE_OP_MEM_READ, WSE_OP_MEM_WRITE, WSE_OP_CSR_READ, WSE_OP_CSR_WRITE,
	WSE_OP_ROUTE_READ, WSE_OP_ROUTE_WRITE, WSE_OP_REG_READ, WSE_OP_REG_WRITE,
	WSE_OP_STREAM_IN, WSE_OP_STREAM_CREDIT, WSE_OP_PERF_READ, WSE_OP_FLASH_READ,
	WSE_OP_FLASH_ERASE, WSE_OP_FLASH_PROGRAM, WSE_OP_FLASH_VERIFY};

int main(int argc, char **argv)
{
	int npk = argc > 1 ? atoi(argv[1]) : 2000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	rng.seed(seed);
	std::vector<Pkt> pk(npk);
	size_t total_words = 0;
	for (int i = 0; i < npk; i++) {
		Pkt &p = pk[i];
		if (rnd(4) == 0) {
			p.flags = WSE_FLAG_EVENT;
			p.opcode = rnd(2) ? WSE_OP_STREAM_OUT : WSE_OP_CONSOLE;
			p.tag = 0;
			p.status = 0;
		} else {
			p.flags = WSE_FLAG_RESPONSE;
			p.opcode = kOps[rnd(sizeof(kOps))];
			p.tag = (uint32_t)rng() | 1;
			p.status = rnd(3) ? 0 : (uint16_t)rnd(WSE_ST_COUNT);
		}
		uint32_t r = rnd(100);
		size_t len = r < 10 ? 0 : r < 70 ? rnd(64) : r < 95 ? rnd(1000) : rnd(5001);
		p.payload.resize(len);
		for (auto &b : p.payload)
			b = (uint8_t)rng();
		total_words += wse_frame_bytes((uint32_t)len) / 8;
	}

	Verilated::commandArgs(argc, argv);
	Vhif_tx_frame *m = new Vhif_tx_frame;
	std::vector<uint8_t> out;
	m->clk_i = 0;
	m->rst_ni = 1;
	m->cmd_valid_i = 0;
	m->pl_valid_i = 0;
	m->eval();
	m->rst_ni = 0;
	m->eval();
	for (int i = 0; i < 2; i++) {
		m->clk_i = 1;
		m->eval();
		m->clk_i = 0;
		m->eval();
	}
	m->rst_ni = 1;
	m->eval();

	size_t ci = 0;         // next command
	size_t pi = 0, pw = 0; // packet and word of the payload being offered
	bool pl_offer = false;
	uint64_t offered = 0;
	uint64_t cycles = 0, busy_cycles = 0;
	int idle = 0;
	while (idle < 50) {
		m->cmd_valid_i = ci < pk.size() && rnd(100) < 80;
		if (ci < pk.size()) {
			m->cmd_opcode_i = pk[ci].opcode;
			m->cmd_flags_i = pk[ci].flags;
			m->cmd_tag_i = pk[ci].tag;
			m->cmd_status_i = pk[ci].status;
			m->cmd_length_i = (uint32_t)pk[ci].payload.size();
		}
		// Payload of packet pi (commands are taken in order); a word once
		// offered stays offered until taken.
		size_t nw = pi < pk.size() ? (pk[pi].payload.size() + 7) / 8 : 0;
		if (!pl_offer && pi < ci && pw < nw && rnd(100) < 85) {
			// A new word: payload bytes, garbage past the length.
			pl_offer = true;
			offered = rng();
			const std::vector<uint8_t> &b = pk[pi].payload;
			for (size_t k = 0; k < 8 && 8 * pw + k < b.size(); k++) {
				offered &= ~(0xFFull << (8 * k));
				offered |= (uint64_t)b[8 * pw + k] << (8 * k);
			}
		}
		uint64_t w = pl_offer ? offered : rng();
		m->pl_valid_i = pl_offer;
		m->pl_data_i = w;
		m->link_ready_i = rnd(100) < 85;
		m->eval();
		bool cmd_take = m->cmd_valid_i && m->cmd_ready_o;
		bool pl_take = m->pl_valid_i && m->pl_ready_o;
		if (m->link_valid_o && m->link_ready_i) {
			for (int k = 0; k < 8; k++)
				out.push_back((uint8_t)(m->link_data_o >> (8 * k)));
			busy_cycles++;
		}
		m->clk_i = 1;
		m->eval();
		m->clk_i = 0;
		m->eval();
		cycles++;
		if (cmd_take)
			ci++;
		if (pl_take) {
			pl_offer = false;
			pw++;
		}
		// Next packet's payload once this one's words are all taken and
		// its command has been accepted.
		while (pi < ci && pw == (pk[pi].payload.size() + 7) / 8) {
			pi++;
			pw = 0;
		}
		idle = (ci == pk.size() && out.size() / 8 == total_words) ? idle + 1 : 0;
		if (cycles > 50 * total_words + 10000) {
			fprintf(stderr, "FAIL tb_tx_frame: stuck (%zu of %zu words out)\n",
				out.size() / 8, total_words);
			return 1;
		}
	}
	m->final();
	delete m;

	struct wse_rx rx;
	if (wse_rx_init(&rx, WSE_PROTO_MAX_PAYLOAD))
		return 2;
	size_t got = 0, i = 0;
	int bad = 0;
	while (i < out.size() && !bad) {
		size_t avail;
		uint8_t *sp = wse_rx_space(&rx, &avail);
		size_t k = out.size() - i < avail ? out.size() - i : avail;
		memcpy(sp, &out[i], k);
		wse_rx_commit(&rx, k);
		i += k;
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&rx, &p)) != 0) {
			if (r != 1 || got >= pk.size()) {
				fprintf(stderr, "packet %zu: codec says %d\n", got, r);
				bad = 1;
				break;
			}
			const Pkt &e = pk[got];
			if (p.opcode != e.opcode || p.flags != e.flags || p.tag != e.tag ||
			    p.status != e.status || p.major != WSE_PROTO_MAJOR ||
			    p.minor != WSE_PROTO_MINOR || p.length != e.payload.size() ||
			    (p.length && memcmp(p.payload, e.payload.data(), p.length))) {
				fprintf(stderr, "packet %zu differs (opcode %u/%u tag %u/%u len %u/%zu)\n",
					got, p.opcode, e.opcode, p.tag, e.tag, p.length,
					e.payload.size());
				bad = 1;
				break;
			}
			got++;
		}
	}
	if (!bad && (got != pk.size() || rx.resync_bytes || rx.bad_packets)) {
		fprintf(stderr, "decoded %zu of %zu packets, %llu bytes skipped, %llu bad\n", got,
			pk.size(), (unsigned long long)rx.resync_bytes,
			(unsigned long long)rx.bad_packets);
		bad = 1;
	}
	wse_rx_free(&rx);
	if (bad) {
		fprintf(stderr, "FAIL tb_tx_frame seed %llu\n", (unsigned long long)seed);
		return 1;
	}
	printf("PASS tb_tx_frame seed %llu: %zu packets, %zu link words in %llu cycles, "
	       "all decoded by the codec as sent\n",
	       (unsigned long long)seed, got, out.size() / 8, (unsigned long long)cycles);
	return 0;
}
