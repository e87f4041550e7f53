// SPDX-License-Identifier: Apache-2.0
//
// tb_rx_frame: hif_rx_frame (the RTL link receiver) against libwsehost's
// protocol codec. A stream of packets, many of them mutated (bit flips,
// bad CRCs, bad reserved fields, wrong versions, over-long lengths,
// truncation, garbage between packets), is fed to the Verilator model with
// random stalls on every interface, and to the codec's receive buffer. The
// two must report the same verdict for the same tags in the same order,
// deliver identical payloads for good requests, and drop the same number
// of bytes while resynchronizing.
//
//   tb_rx_frame [packets] [seed]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "Vhif_rx_frame.h"
#include "verilated.h"

extern "C" {
#include "wsemu/wse_codec.h"
}

enum { EvtOk, EvtVersion, EvtLength, EvtMalformed, EvtOpcode, EvtPayloadCrc, EvtDrop };
static const char *const evt_names[] = {"OK", "VERSION", "LENGTH", "MALFORMED",
                                        "OPCODE", "PAYLOAD_CRC", "DROP"};
static const uint32_t kMaxPayload = 4096;  // the model's MaxPayload

struct Event {
	int code;
	uint32_t tag;
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

static void fix_hcrc(uint8_t *f)
{
	wse_put_le32(f + WSE_HDR_OFF_HCRC, wse_crc32c_update(0, f, WSE_HDR_OFF_HCRC));
}

static void fix_pcrc(uint8_t *f, size_t n)
{
	size_t padded = n - WSE_HDR_BYTES - WSE_TRAILER_BYTES;
	wse_put_le32(f + WSE_HDR_BYTES + padded, wse_crc32c_update(0, f + WSE_HDR_BYTES, padded));
}

static void append_packet(std::vector<uint8_t> &s, uint32_t tag, bool mutate, int *mutated)
{
	struct wse_pkt p = {};
	p.major = WSE_PROTO_MAJOR;
	p.minor = (uint8_t)rnd(3);
	p.opcode = kOps[rnd(sizeof(kOps))];
	p.tag = tag;
	uint32_t r = rnd(100);
	p.length = r < 60 ? rnd(65) : r < 90 ? 65 + rnd(1000) : 1065 + rnd(kMaxPayload - 1064);
	std::vector<uint8_t> pl(p.length + 1), f(wse_frame_bytes(WSE_PROTO_MAX_PAYLOAD));
	for (auto &b : pl)
		b = (uint8_t)rng();
	if (mutate) {
		// Header-level variants, encoded with correct CRCs.
		switch (rnd(8)) {
		case 0: p.flags = WSE_FLAG_RESPONSE; p.status = (uint16_t)rnd(3); break;
		case 1: p.flags = WSE_FLAG_EVENT; p.opcode = rnd(2) ? WSE_OP_CONSOLE : WSE_OP_STREAM_OUT;
			p.tag = rnd(4) ? 0 : tag; break;
		case 2: p.major = (uint8_t)(2 + rnd(3)); break;
		case 3: p.length = kMaxPayload + 1 + rnd(900); pl.resize(p.length + 1); break;
		case 4: p.opcode = (uint8_t)rng(); break;
		case 5: p.flags = (uint8_t)rng(); break;
		case 6: p.status = (uint16_t)(1 + rnd(20)); break;
		default: break;
		}
	}
	int n = wse_pkt_encode(f.data(), f.size(), &p, pl.data());
	if (n < 0) {
		fprintf(stderr, "encode failed %d\n", n);
		exit(2);
	}
	f.resize((size_t)n);
	if (mutate) {
		(*mutated)++;
		switch (rnd(7)) {
		case 0: // any bit, no repair
			f[rnd((uint32_t)f.size())] ^= (uint8_t)(1u << rnd(8));
			break;
		case 1: // reserved header field, header CRC repaired
			f[WSE_HDR_OFF_RSVD + rnd(2)] = (uint8_t)(1 + rnd(255));
			fix_hcrc(f.data());
			break;
		case 2: // non-zero padding or trailer reserved, payload CRC repaired
			if (p.length % 8 && !rnd(2)) {
				f[WSE_HDR_BYTES + p.length + rnd(8 - p.length % 8)] = 0x5A;
				fix_pcrc(f.data(), f.size());
			} else {
				f[f.size() - 1 - rnd(4)] = 0xA5;
			}
			break;
		case 3: // truncated to whole words
			f.resize(8 * (1 + rnd((uint32_t)f.size() / 8 - 1)));
			break;
		case 4: { // garbage words before it, some starting with the magic
			int k = 1 + (int)rnd(5);
			for (int i = 0; i < 8 * k; i++)
				s.push_back((uint8_t)rng());
			if (rnd(2))
				memcpy(&s[s.size() - 8 * k], "WSEL", 4);
			break;
		}
		default: // header-level variant only
			break;
		}
	}
	s.insert(s.end(), f.begin(), f.end());
}

static int map_error(int r)
{
	switch (r) {
	case WSE_ERROR_VERSION: return EvtVersion;
	case WSE_ERROR_LENGTH: return EvtLength;
	case WSE_ERROR_MALFORMED: return EvtMalformed;
	case WSE_ERROR_BAD_OPCODE: return EvtOpcode;
	case WSE_ERROR_PAYLOAD_CRC: return EvtPayloadCrc;
	default: return -1;
	}
}

// The codec's view of the stream.
static std::vector<Event> reference(const std::vector<uint8_t> &s, uint64_t *resync)
{
	std::vector<Event> out;
	struct wse_rx rx;
	if (wse_rx_init(&rx, kMaxPayload))
		exit(2);
	for (size_t i = 0; i < s.size();) {
		size_t avail;
		uint8_t *sp = wse_rx_space(&rx, &avail);
		size_t k = s.size() - i < avail ? s.size() - i : avail;
		if (k > 4096)
			k = 4096;
		memcpy(sp, &s[i], k);
		wse_rx_commit(&rx, k);
		i += k;
		struct wse_pkt p;
		int r;
		while ((r = wse_rx_next(&rx, &p)) != 0) {
			Event e;
			e.tag = p.tag;
			if (r == 1) {
				e.code = wse_pkt_role(&p) == WSE_ROLE_REQUEST ? EvtOk : EvtDrop;
				if (e.code == EvtOk)
					e.payload.assign(p.payload, p.payload + p.length);
			} else {
				e.code = map_error(r);
			}
			out.push_back(e);
		}
	}
	*resync = rx.resync_bytes;
	wse_rx_free(&rx);
	return out;
}

int main(int argc, char **argv)
{
	int npk = argc > 1 ? atoi(argv[1]) : 10000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	rng.seed(seed);

	std::vector<uint8_t> s;
	int mutated = 0;
	uint32_t tag = 1;
	for (int i = 0; i < npk; i++)
		append_packet(s, tag++, rnd(100) < 35, &mutated);
	for (int i = 0; i < 3; i++) // clean packets at the end: both in sync
		append_packet(s, tag++, false, &mutated);
	uint64_t ref_resync;
	std::vector<Event> ref = reference(s, &ref_resync);

	Verilated::commandArgs(argc, argv);
	Vhif_rx_frame *m = new Vhif_rx_frame;
	std::vector<Event> got;
	std::vector<uint8_t> cur;
	uint64_t resync_words = 0, cycles = 0, words_in = 0;
	size_t wi = 0, nwords = s.size() / 8;
	int idle = 0;
	// Asynchronous reset: a falling edge, two clocks, release.
	m->clk_i = 0;
	m->rst_ni = 1;
	m->link_valid_i = 0;
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
	while (idle < 200) {
		// Inputs for this cycle, set while the clock is low.
		m->link_valid_i = wi < nwords && rnd(100) < 85;
		uint64_t w = 0;
		if (wi < nwords)
			memcpy(&w, &s[8 * wi], 8); // little-endian host, as the link
		m->link_data_i = w;
		m->pl_ready_i = rnd(100) < 85;
		m->evt_ready_i = rnd(100) < 75;
		m->eval();
		// Sample the handshakes before the edge.
		bool take = m->link_valid_i && m->link_ready_o;
		if (m->hdr_start_o)
			cur.clear();
		if (m->pl_valid_o && m->pl_ready_i)
			for (int b = 0; b < 8; b++)
				cur.push_back((uint8_t)(m->pl_data_o >> (8 * b)));
		if (m->evt_valid_o && m->evt_ready_i) {
			Event e;
			e.code = m->evt_code_o;
			e.tag = m->hdr_tag_o;
			if (e.code == EvtOk) {
				cur.resize(m->hdr_length_o);
				e.payload = cur;
			}
			got.push_back(e);
		}
		resync_words += m->resync_o;
		m->clk_i = 1;
		m->eval();
		m->clk_i = 0;
		m->eval();
		cycles++;
		if (take) {
			wi++;
			words_in++;
		}
		idle = wi < nwords ? 0 : idle + 1;
		if (cycles > 100 * nwords + 10000) {
			fprintf(stderr, "FAIL tb_rx_frame: stuck at word %zu of %zu\n", wi, nwords);
			return 1;
		}
	}
	m->final();
	delete m;

	int bad = 0;
	size_t n = ref.size() < got.size() ? ref.size() : got.size();
	for (size_t i = 0; i < n && bad < 10; i++) {
		if (ref[i].code != got[i].code || ref[i].tag != got[i].tag ||
		    ref[i].payload != got[i].payload) {
			fprintf(stderr, "event %zu: codec %s tag %u (%zu B), RTL %s tag %u (%zu B)\n", i,
				evt_names[ref[i].code < 0 ? 0 : ref[i].code], ref[i].tag,
				ref[i].payload.size(), evt_names[got[i].code], got[i].tag,
				got[i].payload.size());
			bad++;
		}
	}
	if (ref.size() != got.size()) {
		fprintf(stderr, "codec reported %zu events, RTL %zu\n", ref.size(), got.size());
		bad++;
	}
	if (ref_resync != 8 * resync_words) {
		fprintf(stderr, "resync: codec dropped %llu bytes, RTL %llu words\n",
			(unsigned long long)ref_resync, (unsigned long long)resync_words);
		bad++;
	}
	int counts[7] = {0};
	for (auto &e : got)
		counts[e.code]++;
	if (bad) {
		fprintf(stderr, "FAIL tb_rx_frame seed %llu\n", (unsigned long long)seed);
		return 1;
	}
	printf("PASS tb_rx_frame seed %llu: %d packets (%d mutated), %zu words in %llu cycles; "
	       "verdicts OK %d VERSION %d LENGTH %d MALFORMED %d OPCODE %d PAYLOAD_CRC %d DROP %d; "
	       "%llu words resynchronized; all equal to the codec\n",
	       (unsigned long long)seed, npk + 3, mutated, nwords, (unsigned long long)cycles,
	       counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6],
	       (unsigned long long)resync_words);
	return 0;
}
