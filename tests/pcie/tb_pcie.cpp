// SPDX-License-Identifier: Apache-2.0
//
// tb_pcie: the PCIe device side (hif_pcie_ep) against a host model. The
// host memory sits behind the DMA port with random read latency, completion
// gaps and back-pressure on every channel; a driver model programs BAR 0,
// fills the rings and reaps the completions from memory. The host-to-card
// words go into the link receiver (hif_rx_frame) behind a randomly stalling
// mesh. Checks:
//  - identification registers and the ROM windows;
//  - H2C: link packets built by the wire codec, cut into buffers of random
//    sizes (zero-length ones among them) on a ring that wraps, come out of
//    the receiver as the same packets (tags, payloads, verdict OK), the
//    words delivered are exactly the bytes posted, every completion DONE/OK
//    with its buffer's length;
//  - both directions at once, sharing the port, completions of different
//    reads interleaved word by word;
//  - C2H: the transmitter's words (responses and events framed by the
//    codec, the trailer word marked last) land in host buffers of random
//    sizes, in order, each completion's length and EOP where the packets
//    end, each packet between EOPs decoding as sent, no write outside a
//    posted buffer or a completion slot;
//  - refusals: ring base unaligned, ring sizes not a power of two (and 0,
//    and too large), a tail outside the ring, descriptors with an unaligned
//    address or length, a length past the limit, a reserved flag: each sets
//    its error bit and the error interrupt, nothing is moved;
//  - a read never answered and a write never taken end in TIMEOUT, a read
//    answered with an error in BUS, the ring stopped;
//  - MSI-X: nothing while masked, one vector when unmasked, again only
//    after the status bit was cleared, none for a NO_IRQ descriptor.
// The RTL's assertions run throughout (--assert).
//
//   tb_pcie [packets] [seed]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "Vtb_pcie_top.h"
#include "verilated.h"

extern "C" {
#include "wsemu/wse_codec.h"
#include "wsemu/wse_pcie.h"
}

static std::mt19937_64 rng;
static uint32_t rnd(uint32_t n) { return (uint32_t)(rng() % n); }
static int failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "FAIL %s:%d: %s: ", __func__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                      \
			fprintf(stderr, "\n");                             \
			failures++;                                        \
		}                                                          \
	} while (0)

static const uint64_t kMemBase = 0x123400000ull; // above 4 GiB: BASE_HI used
static const size_t kMemSize = 16u << 20;
static const unsigned kTimeout = 2000;           // the build's -GTimeout
static const char kCompat[] = "wsemu,sim-4x4";

struct Rd {
	uint8_t tag;
	uint64_t addr;
	unsigned len, sent;
	uint64_t due;
	bool err;
};

struct RxEvt {
	unsigned code;
	uint32_t tag;
	std::vector<uint8_t> payload;
};

struct Tb {
	Vtb_pcie_top *m = nullptr;
	uint64_t cyc = 0;
	std::vector<uint8_t> mem;
	std::vector<uint8_t> writable; // 1 per byte the device may write
	// Knobs of the host and the mesh.
	unsigned rd_ready_pct = 70, wr_ready_pct = 70, msix_ready_pct = 60, cpl_gap_pct = 20;
	unsigned max_lat = 40, stall_pct = 30, pl_ready_pct = 85, evt_ready_pct = 80;
	unsigned c2h_pct = 80;
	bool drop_reads = false, err_reads = false, wr_stuck = false;
	// State of the models.
	std::deque<Rd> rds;
	int streaming = -1;
	int last_tag = -1;       // the tag of the last completion word
	bool last_open = false;  // ... and its read not finished
	uint64_t interleaved = 0; // words of another read inside an unfinished one
	uint64_t reads = 0, read_words = 0, writes = 0;
	std::vector<unsigned> msix;
	std::vector<uint8_t> h2c_bytes;
	std::vector<RxEvt> rx;
	std::vector<uint8_t> rx_cur;
	unsigned resyncs = 0;
	std::vector<uint64_t> c2h_words;
	std::vector<bool> c2h_last;
	size_t c2h_pos = 0;
	bool c2h_offered = false;
	uint16_t rom_addr_q = 0;
	uint32_t rdata = 0;
	bool rvalid = false;

	uint64_t rd64(uint64_t a)
	{
		uint64_t v = 0;
		if (a >= kMemBase && a + 8 <= kMemBase + kMemSize)
			memcpy(&v, &mem[a - kMemBase], 8);
		return v;
	}
	void wr64(uint64_t a, uint64_t v) { memcpy(&mem[a - kMemBase], &v, 8); }
	uint32_t rd32(uint64_t a)
	{
		uint32_t v;
		memcpy(&v, &mem[a - kMemBase], 4);
		return v;
	}
	void allow(uint64_t a, size_t n) { memset(&writable[a - kMemBase], 1, n); }

	static uint32_t rom(uint16_t a)
	{
		uint32_t v = 0;
		for (int i = 0; i < 4; i++) {
			unsigned o = a + i, b = 0;
			if (o >= WSE_PCIE_REG_COMPAT && o < WSE_PCIE_REG_COMPAT + sizeof(kCompat))
				b = (uint8_t)kCompat[o - WSE_PCIE_REG_COMPAT];
			else if (o >= WSE_PCIE_DTB_OFFSET)
				b = (uint8_t)(o * 7 + 3);
			v |= b << (8 * i);
		}
		return v;
	}

	void reset()
	{
		delete m;
		m = new Vtb_pcie_top;
		mem.assign(kMemSize, 0xA5);
		writable.assign(kMemSize, 0);
		rds.clear();
		streaming = -1;
		reads = read_words = writes = 0;
		last_tag = -1;
		last_open = false;
		interleaved = 0;
		msix.clear();
		h2c_bytes.clear();
		rx.clear();
		rx_cur.clear();
		resyncs = 0;
		c2h_words.clear();
		c2h_last.clear();
		c2h_pos = 0;
		c2h_offered = false;
		drop_reads = err_reads = wr_stuck = false;
		cyc = 0;
		m->clk_i = 0;
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
	}

	void tick()
	{
		// Inputs for this cycle.
		m->dma_rd_ready_i = rnd(100) < rd_ready_pct;
		m->dma_wr_ready_i = !wr_stuck && rnd(100) < wr_ready_pct;
		m->msix_ready_i = rnd(100) < msix_ready_pct;
		m->mesh_stall_i = rnd(100) < stall_pct;
		m->pl_ready_i = rnd(100) < pl_ready_pct;
		m->evt_ready_i = rnd(100) < evt_ready_pct;
		m->rom_rdata_i = rom(rom_addr_q);
		// A completion word of any read that is due: the reads of different
		// tags interleave word by word, each read's words in order.
		m->dma_cpl_valid_i = 0;
		m->dma_cpl_err_i = 0;
		m->dma_cpl_last_i = 0;
		streaming = -1;
		if (rnd(100) >= cpl_gap_pct) {
			std::vector<int> due;
			for (size_t i = 0; i < rds.size(); i++)
				if (rds[i].due <= cyc)
					due.push_back((int)i);
			if (!due.empty())
				streaming = due[rnd((uint32_t)due.size())];
		}
		if (streaming >= 0) {
			Rd &r = rds[streaming];
			m->dma_cpl_valid_i = 1;
			m->dma_cpl_tag_i = r.tag;
			m->dma_cpl_err_i = r.err;
			m->dma_cpl_last_i = r.err || r.sent + 1 == r.len;
			m->dma_cpl_data_i = r.err ? 0 : rd64(r.addr + 8ull * r.sent);
		}
		// The transmitter keeps a word offered until it is taken.
		if (!c2h_offered)
			c2h_offered = c2h_pos < c2h_words.size() && rnd(100) < c2h_pct;
		m->c2h_valid_i = c2h_offered;
		m->c2h_data_i = c2h_offered ? c2h_words[c2h_pos] : 0;
		m->c2h_last_i = c2h_offered ? (bool)c2h_last[c2h_pos] : 0;
		m->eval();

		// Handshakes of this cycle.
		if (m->dma_rd_valid_o && m->dma_rd_ready_i) {
			Rd r;
			r.tag = m->dma_rd_tag_o;
			r.addr = m->dma_rd_addr_o;
			r.len = m->dma_rd_len_o;
			r.sent = 0;
			r.due = drop_reads ? UINT64_MAX : cyc + 1 + rnd(max_lat);
			r.err = err_reads;
			CHECK(r.addr >= kMemBase && r.addr + 8ull * r.len <= kMemBase + kMemSize,
			      "read at %llx outside host memory", (unsigned long long)r.addr);
			rds.push_back(r);
			reads++;
			read_words += r.len;
		}
		if (m->dma_cpl_valid_i) {
			Rd &r = rds[streaming];
			if (m->dma_cpl_last_i)
				rds.erase(rds.begin() + streaming);
			else
				r.sent++;
			interleaved += last_tag >= 0 && last_tag != r.tag && last_open;
			last_tag = r.tag;
			last_open = !m->dma_cpl_last_i;
		}
		if (m->dma_wr_valid_o && m->dma_wr_ready_i) {
			uint64_t a = m->dma_wr_addr_o;
			bool ok = a >= kMemBase && a + 8 <= kMemBase + kMemSize && a % 8 == 0;
			for (int i = 0; ok && i < 8; i++)
				ok = writable[a - kMemBase + i];
			CHECK(ok, "write at %llx where no buffer or completion is", (unsigned long long)a);
			if (ok)
				wr64(a, m->dma_wr_data_o);
			writes++;
		}
		if (m->msix_valid_o && m->msix_ready_i)
			msix.push_back(m->msix_vector_o);
		if (m->h2c_take_o)
			for (int b = 0; b < 8; b++)
				h2c_bytes.push_back((uint8_t)(m->h2c_data_o >> (8 * b)));
		if (m->hdr_start_o)
			rx_cur.clear();
		if (m->pl_valid_o && m->pl_ready_i)
			for (int b = 0; b < 8; b++)
				rx_cur.push_back((uint8_t)(m->pl_data_o >> (8 * b)));
		if (m->evt_valid_o && m->evt_ready_i) {
			RxEvt e;
			e.code = m->evt_code_o;
			e.tag = m->hdr_tag_o;
			if (e.code == 0) {
				rx_cur.resize(m->hdr_length_o);
				e.payload = rx_cur;
			}
			rx.push_back(e);
		}
		resyncs += m->resync_o;
		if (m->c2h_valid_i && m->c2h_ready_o) {
			c2h_pos++;
			c2h_offered = false;
		}
		rvalid = m->reg_rvalid_o;
		if (rvalid)
			rdata = m->reg_rdata_o;
		rom_addr_q = m->rom_addr_o;

		m->clk_i = 1;
		m->eval();
		m->clk_i = 0;
		m->eval();
		m->reg_valid_i = 0;
		cyc++;
	}
	void run(unsigned n)
	{
		for (unsigned i = 0; i < n; i++)
			tick();
	}

	void reg_write(unsigned a, uint32_t d)
	{
		m->reg_valid_i = 1;
		m->reg_write_i = 1;
		m->reg_addr_i = (uint16_t)a;
		m->reg_wdata_i = d;
		tick();
	}
	uint32_t reg_read(unsigned a)
	{
		m->reg_valid_i = 1;
		m->reg_write_i = 0;
		m->reg_addr_i = (uint16_t)a;
		tick();
		tick();
		CHECK(rvalid, "no read response at %x", a);
		return rdata;
	}
};

static Tb tb;

// The driver's view of one ring.
struct Ring {
	unsigned blk;
	uint64_t base;
	unsigned size, tail = 0, reap = 0;
	std::vector<uint32_t> len; // per slot: the posted length

	Ring(unsigned blk_, uint64_t base_, unsigned size_) : blk(blk_), base(base_), size(size_)
	{
		len.assign(size, 0);
	}
	void config()
	{
		tb.reg_write(blk + WSE_PCIE_RING_BASE_LO, (uint32_t)base);
		tb.reg_write(blk + WSE_PCIE_RING_BASE_HI, (uint32_t)(base >> 32));
		tb.reg_write(blk + WSE_PCIE_RING_SIZE, size);
	}
	void start()
	{
		config();
		tb.reg_write(blk + WSE_PCIE_RING_CTRL, WSE_PCIE_CTRL_RUN);
		tail = reap = 0;
		tb.allow(base, (size_t)size * WSE_PCIE_DESC_BYTES);
	}
	unsigned room() const { return size - 1 - ((tail - reap) & (size - 1)); }
	void post(uint64_t addr, uint32_t l, uint32_t flags)
	{
		uint64_t d = base + (uint64_t)tail * WSE_PCIE_DESC_BYTES;
		tb.wr64(d + WSE_PCIE_DESC_OFF_ADDR, addr);
		tb.wr64(d + WSE_PCIE_DESC_OFF_LEN, (uint64_t)flags << 32 | l);
		len[tail] = l;
		tail = (tail + 1) & (size - 1);
		tb.reg_write(blk + WSE_PCIE_RING_TAIL, tail);
	}
	// The next completion, if written: its length and status word.
	bool done(uint32_t *l, uint32_t *st)
	{
		if (reap == tail)
			return false;
		uint64_t d = base + (uint64_t)reap * WSE_PCIE_DESC_BYTES;
		*st = tb.rd32(d + WSE_PCIE_CPL_OFF_STATUS);
		if (!(*st & WSE_PCIE_CPL_DONE))
			return false;
		*l = tb.rd32(d + WSE_PCIE_CPL_OFF_LEN);
		reap = (reap + 1) & (size - 1);
		return true;
	}
	// Wait up to n cycles for the next completion.
	bool wait(uint32_t *l, uint32_t *st, unsigned n)
	{
		for (unsigned i = 0; i < n; i++) {
			if (done(l, st))
				return true;
			tb.tick();
		}
		return false;
	}
};

static const uint64_t kH2cRing = kMemBase + 0x1000;
static const uint64_t kC2hRing = kMemBase + 0x2000;
static const uint64_t kData = kMemBase + 0x10000;

static void test_ident()
{
	tb.reset();
	CHECK(tb.reg_read(WSE_PCIE_REG_MAGIC) == WSE_PCIE_MAGIC, "magic");
	CHECK(tb.reg_read(WSE_PCIE_REG_VERSION) == WSE_PCIE_VERSION, "version");
	CHECK(tb.reg_read(WSE_PCIE_REG_MESH_COLS) == 4 && tb.reg_read(WSE_PCIE_REG_MESH_ROWS) == 4, "mesh");
	CHECK(tb.reg_read(WSE_PCIE_REG_DTB_SIZE) == 1234, "dtb size");
	CHECK(tb.reg_read(WSE_PCIE_REG_MAX_PAYLOAD) == 4096, "max payload");
	CHECK(tb.reg_read(WSE_PCIE_REG_DTB_OFFSET) == WSE_PCIE_DTB_OFFSET, "dtb offset");
	CHECK(tb.reg_read(WSE_PCIE_REG_DESC_MAX) == WSE_PCIE_DESC_MAX_LEN, "desc max");
	CHECK(tb.reg_read(WSE_PCIE_REG_RING_MAX) == WSE_PCIE_RING_MAX_ENTRIES, "ring max");
	CHECK(tb.reg_read(WSE_PCIE_REG_INT_MASK) == 7, "every vector masked after reset");
	std::string compat;
	for (unsigned a = 0; a < WSE_PCIE_COMPAT_BYTES; a += 4) {
		uint32_t v = tb.reg_read(WSE_PCIE_REG_COMPAT + a);
		for (int i = 0; i < 4; i++)
			if ((char)(v >> (8 * i)))
				compat += (char)(v >> (8 * i));
	}
	CHECK(compat == kCompat, "compatible '%s'", compat.c_str());
	uint32_t d = tb.reg_read(WSE_PCIE_DTB_OFFSET + 0x10);
	CHECK(d == Tb::rom(WSE_PCIE_DTB_OFFSET + 0x10), "dtb word %08x", d);
	CHECK(tb.reads == 0 && tb.writes == 0, "no DMA without a ring");
}

// Link packets (requests, random tags and payloads) from the codec.
// Frame p (its header fields set) with a random payload of up to maxlen
// bytes, mostly short; append the frame to s and its payload to *payload.
static void frame(struct wse_pkt *p, uint32_t maxlen, std::vector<uint8_t> *s,
		  std::vector<uint8_t> *payload)
{
	static std::vector<uint8_t> f(wse_frame_bytes(WSE_PROTO_MAX_PAYLOAD));
	uint32_t r = rnd(100);
	p->major = WSE_PROTO_MAJOR;
	p->length = r < 60 ? rnd(65) : r < 95 ? rnd(1000) : rnd(maxlen + 1);
	payload->resize(p->length + 1);
	for (auto &b : *payload)
		b = (uint8_t)rng();
	int k = wse_pkt_encode(f.data(), f.size(), p, payload->data());
	if (k < 0) {
		fprintf(stderr, "encode failed %d\n", k);
		exit(2);
	}
	s->insert(s->end(), f.begin(), f.begin() + k);
	payload->resize(p->length);
}

// Link packets (requests, random tags and payloads) from the codec.
static std::vector<uint8_t> make_packets(int n, std::vector<RxEvt> *ref)
{
	static const uint8_t ops[] = {WSE_OP_PING, WSE_OP_MEM_WRITE, WSE_OP_MEM_READ, WSE_OP_STREAM_IN,
				      WSE_OP_INFO};
	std::vector<uint8_t> s, pl;
	for (int i = 0; i < n; i++) {
		struct wse_pkt p = {};
		p.opcode = ops[rnd(sizeof(ops))];
		p.tag = (uint32_t)rng();
		frame(&p, 4096, &s, &pl);
		ref->push_back(RxEvt{0, p.tag, pl});
	}
	return s;
}

static const uint64_t kC2hData = kMemBase + (8u << 20); // C2H buffers, apart

struct Buf {
	uint64_t addr;
	uint32_t len;
};

// H2C: codec-built request packets, cut into buffers of random sizes (some
// empty) at random addresses, posted on a ring of 8 as it has room.
struct H2cFlow {
	std::vector<RxEvt> ref;
	std::vector<uint8_t> s;
	std::vector<Buf> bufs;
	size_t posted = 0, reaped = 0, zero = 0;
	Ring ring{WSE_PCIE_REG_H2C, kH2cRing, 8};

	void setup(int npk)
	{
		s = make_packets(npk, &ref);
		uint64_t a = kData;
		size_t off = 0;
		while (off < s.size()) {
			uint32_t r = rnd(100), l = r < 8 ? 0 : 8 * (r < 70 ? 1 + rnd(40) : 1 + rnd(600));
			l = (uint32_t)std::min<size_t>(l, s.size() - off);
			if (a + l > kC2hData) {
				fprintf(stderr, "host memory too small for %zu bytes\n", s.size());
				exit(2);
			}
			memcpy(&tb.mem[a - kMemBase], &s[off], l);
			bufs.push_back(Buf{a, l});
			zero += l == 0;
			off += l;
			a += l + 8 * rnd(9);
		}
		ring.start();
	}
	bool finished() const { return reaped == bufs.size() && tb.rx.size() >= ref.size(); }
	void step()
	{
		if (posted < bufs.size() && ring.room() && rnd(4) == 0) {
			ring.post(bufs[posted].addr, bufs[posted].len, 0);
			posted++;
		}
		uint32_t l, st;
		while (ring.done(&l, &st)) {
			CHECK(st == WSE_PCIE_CPL_DONE && l == bufs[reaped].len,
			      "buffer %zu: completion %u status %08x, posted %u", reaped, l, st,
			      bufs[reaped].len);
			reaped++;
		}
		if (rnd(50) == 0)
			tb.reg_write(WSE_PCIE_REG_INT_STATUS, 1u << WSE_PCIE_VEC_H2C);
	}
	void check()
	{
		CHECK(reaped == bufs.size(), "%zu of %zu buffers completed", reaped, bufs.size());
		CHECK(tb.h2c_bytes == s, "link bytes: %zu delivered, %zu posted", tb.h2c_bytes.size(),
		      s.size());
		CHECK(tb.rx.size() == ref.size(), "%zu packets received of %zu", tb.rx.size(), ref.size());
		for (size_t i = 0; i < tb.rx.size() && i < ref.size(); i++) {
			CHECK(tb.rx[i].code == 0 && tb.rx[i].tag == ref[i].tag &&
				      tb.rx[i].payload == ref[i].payload,
			      "packet %zu: verdict %u tag %08x (sent %08x), payload %zu bytes (sent %zu)", i,
			      tb.rx[i].code, tb.rx[i].tag, ref[i].tag, tb.rx[i].payload.size(),
			      ref[i].payload.size());
			if (failures)
				break;
		}
		CHECK(tb.resyncs == 0, "%u words dropped by the receiver", tb.resyncs);
		CHECK(tb.reg_read(WSE_PCIE_REG_H2C + WSE_PCIE_RING_HEAD) == ring.tail, "head at the tail");
		printf("h2c: %zu packets, %zu bytes in %zu buffers (%zu empty) through a ring of 8\n",
		       ref.size(), s.size(), bufs.size(), zero);
	}
};

// C2H: responses and events framed by the codec, as hif_tx_frame frames
// them (the trailer word marked last), into buffers of random sizes (some
// empty) posted on a ring of 16 as it has room.
struct C2hFlow {
	std::vector<size_t> ends, got_ends;
	std::vector<RxEvt> ref;
	std::deque<Buf> bufs;
	std::vector<uint8_t> got;
	uint64_t a = kC2hData;
	size_t total = 0, zero = 0, nbuf = 0;
	Ring ring{WSE_PCIE_REG_C2H, kC2hRing, 16};

	void setup(int npk)
	{
		std::vector<uint8_t> f, pl;
		for (int i = 0; i < npk; i++) {
			struct wse_pkt p = {};
			if (rnd(3) == 0) {
				p.flags = WSE_FLAG_EVENT;
				p.opcode = rnd(2) ? WSE_OP_STREAM_OUT : WSE_OP_CONSOLE;
			} else {
				p.flags = WSE_FLAG_RESPONSE;
				p.opcode = rnd(2) ? WSE_OP_MEM_READ : WSE_OP_PING;
				p.tag = (uint32_t)rng();
				p.status = rnd(4) ? 0 : (uint16_t)rnd(WSE_ST_COUNT);
			}
			f.clear();
			frame(&p, 8192, &f, &pl);
			for (size_t w = 0; w < f.size() / 8; w++) {
				uint64_t v;
				memcpy(&v, &f[8 * w], 8);
				tb.c2h_words.push_back(v);
				tb.c2h_last.push_back(w + 1 == f.size() / 8);
			}
			ends.push_back(tb.c2h_words.size() * 8);
			ref.push_back(RxEvt{(unsigned)p.opcode << 16 | p.status, p.tag, pl});
		}
		total = tb.c2h_words.size() * 8;
		ring.start();
	}
	bool finished() const { return got.size() >= total; }
	void step()
	{
		if (ring.room() && rnd(3) == 0) {
			uint32_t r = rnd(100), l = r < 8 ? 0 : 8 * (r < 70 ? 1 + rnd(30) : 1 + rnd(700));
			if (a + l + 64 > kMemBase + kMemSize)
				a = kC2hData;
			tb.allow(a, l);
			ring.post(a, l, 0);
			bufs.push_back(Buf{a, l});
			zero += l == 0;
			a += l + 8 * rnd(5);
		}
		uint32_t l, st;
		while (ring.done(&l, &st)) {
			Buf b = bufs.front();
			bufs.pop_front();
			nbuf++;
			bool eop = st & WSE_PCIE_CPL_EOP;
			CHECK((st & ~WSE_PCIE_CPL_EOP) == WSE_PCIE_CPL_DONE && l <= b.len && l % 8 == 0 &&
				      (eop || l == b.len),
			      "completion %u status %08x of a %u-byte buffer", l, st, b.len);
			got.insert(got.end(), &tb.mem[b.addr - kMemBase], &tb.mem[b.addr - kMemBase] + l);
			memset(&tb.writable[b.addr - kMemBase], 0, b.len);
			if (eop)
				got_ends.push_back(got.size());
		}
		if (rnd(50) == 0)
			tb.reg_write(WSE_PCIE_REG_INT_STATUS, 1u << WSE_PCIE_VEC_C2H);
	}
	void check()
	{
		std::vector<uint8_t> sent(total);
		memcpy(sent.data(), tb.c2h_words.data(), total);
		CHECK(got == sent, "host buffers: %zu bytes, %zu sent", got.size(), total);
		CHECK(got_ends == ends, "%zu packet ends marked EOP, %zu sent", got_ends.size(), ends.size());
		// Each packet the host sees between two EOPs decodes as sent.
		size_t start = 0, bad = 0;
		for (size_t i = 0; i < got_ends.size() && i < ref.size(); i++) {
			struct wse_pkt p;
			size_t used = 0;
			int rc = wse_pkt_decode(&got[start], got_ends[i] - start, &p, WSE_PROTO_MAX_PAYLOAD,
						&used);
			if (rc != 0 || used != got_ends[i] - start || p.tag != ref[i].tag ||
			    ((unsigned)p.opcode << 16 | p.status) != ref[i].code ||
			    p.length != ref[i].payload.size() ||
			    memcmp(p.payload, ref[i].payload.data(), p.length) != 0)
				bad++;
			start = got_ends[i];
		}
		CHECK(bad == 0, "%zu packets did not decode as sent", bad);
		printf("c2h: %zu packets, %zu bytes into %zu buffers (%zu empty) through a ring of 16\n",
		       ref.size(), total, nbuf, zero);
	}
};

// One direction or both at once, to the end; then the checks of each, no
// error, and MSI-X vectors of the running directions only.
static void test_flows(bool h2c, bool c2h, int npk)
{
	tb.reset();
	H2cFlow hf;
	C2hFlow cf;
	if (h2c)
		hf.setup(npk);
	if (c2h)
		cf.setup(npk);
	uint32_t want = (h2c ? 1u << WSE_PCIE_VEC_H2C : 0) | (c2h ? 1u << WSE_PCIE_VEC_C2H : 0);
	tb.reg_write(WSE_PCIE_REG_INT_MASK, 7 & ~want);
	uint64_t limit = tb.cyc + 400 * (hf.s.size() + cf.total) / 8 + 100000;
	while (((h2c && !hf.finished()) || (c2h && !cf.finished())) && tb.cyc < limit) {
		if (h2c)
			hf.step();
		if (c2h)
			cf.step();
		tb.tick();
	}
	if (h2c)
		hf.check();
	if (c2h)
		cf.check();
	CHECK(tb.reg_read(WSE_PCIE_REG_ERR_STATUS) == 0, "no error");
	uint32_t seen = 0;
	for (unsigned v : tb.msix)
		seen |= 1u << v;
	CHECK(seen == want, "MSI-X vectors %x, want %x", seen, want);
	printf("  %s: %llu cycles, %zu MSI-X, %llu completion words interleaved into another read\n",
	       h2c && c2h ? "both directions at once" : "one direction", (unsigned long long)tb.cyc,
	       tb.msix.size(), (unsigned long long)tb.interleaved);
}

// ERR_STATUS and INT_STATUS after an error, then cleared.
static void expect_err(uint32_t bits, const char *what)
{
	uint32_t e = tb.reg_read(WSE_PCIE_REG_ERR_STATUS);
	uint32_t i = tb.reg_read(WSE_PCIE_REG_INT_STATUS);
	CHECK(e == bits && (i & (1u << WSE_PCIE_VEC_ERR)), "%s: ERR_STATUS %04x (want %04x), INT_STATUS %x",
	      what, e, bits, i);
	tb.reg_write(WSE_PCIE_REG_ERR_STATUS, e);
	tb.reg_write(WSE_PCIE_REG_INT_STATUS, i);
	CHECK(tb.reg_read(WSE_PCIE_REG_ERR_STATUS) == 0, "%s: ERR_STATUS cleared", what);
}

static void test_ring_refusals()
{
	tb.reset();
	for (int c2h = 0; c2h < 2; c2h++) {
		unsigned blk = c2h ? WSE_PCIE_REG_C2H : WSE_PCIE_REG_H2C;
		unsigned sh = c2h ? WSE_PCIE_ERR_C2H_SHIFT : 0;
		struct {
			uint64_t base;
			unsigned size;
			uint32_t err;
		} cases[] = {
			{kH2cRing + 8, 8, WSE_PCIE_ERR_RING_ALIGN},
			{kH2cRing + 4, 8, WSE_PCIE_ERR_RING_ALIGN},
			{kH2cRing, 6, WSE_PCIE_ERR_RING_SIZE},
			{kH2cRing, 0, WSE_PCIE_ERR_RING_SIZE},
			{kH2cRing, 2 * WSE_PCIE_RING_MAX_ENTRIES, WSE_PCIE_ERR_RING_SIZE},
		};
		for (auto &c : cases) {
			Ring r(blk, c.base, c.size ? c.size : 1);
			r.size = c.size;
			r.config();
			tb.reg_write(blk + WSE_PCIE_RING_CTRL, WSE_PCIE_CTRL_RUN);
			tb.reg_write(blk + WSE_PCIE_RING_TAIL, 1);
			tb.run(50);
			CHECK(tb.reg_read(blk + WSE_PCIE_RING_CTRL) == 0, "ring started");
			expect_err(c.err << sh, c2h ? "c2h ring" : "h2c ring");
		}
		// A tail outside a good ring.
		Ring r(blk, c2h ? kC2hRing : kH2cRing, 8);
		r.start();
		tb.reg_write(blk + WSE_PCIE_RING_TAIL, 8);
		tb.run(50);
		CHECK(tb.reg_read(blk + WSE_PCIE_RING_HEAD) == 0 &&
			      tb.reg_read(blk + WSE_PCIE_RING_TAIL) == 0, "tail outside taken");
		expect_err(WSE_PCIE_ERR_TAIL << sh, "tail");
		tb.reg_write(blk + WSE_PCIE_RING_CTRL, 0);
	}
	CHECK(tb.reads == 0 && tb.writes == 0, "%llu reads, %llu writes of refused rings",
	      (unsigned long long)tb.reads, (unsigned long long)tb.writes);
	// The error vector, once unmasked.
	tb.reg_write(WSE_PCIE_REG_INT_MASK, 0);
	tb.reg_write(WSE_PCIE_REG_H2C + WSE_PCIE_RING_SIZE, 3);
	tb.reg_write(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL, WSE_PCIE_CTRL_RUN);
	tb.run(30);
	CHECK(tb.msix.size() == 1 && tb.msix[0] == WSE_PCIE_VEC_ERR, "%zu vectors", tb.msix.size());
	printf("refusals: unaligned ring bases, sizes 6, 0, %u, a tail outside the ring: refused\n",
	       2 * WSE_PCIE_RING_MAX_ENTRIES);
}

static void test_desc_refusals()
{
	for (int c2h = 0; c2h < 2; c2h++) {
		unsigned blk = c2h ? WSE_PCIE_REG_C2H : WSE_PCIE_REG_H2C;
		unsigned sh = c2h ? WSE_PCIE_ERR_C2H_SHIFT : 0;
		uint64_t base = c2h ? kC2hRing : kH2cRing;
		struct {
			uint64_t addr;
			uint32_t len, flags, code, err;
		} cases[] = {
			{kData + 4, 64, 0, WSE_PCIE_CPL_ALIGN, WSE_PCIE_ERR_DESC_ALIGN},
			{kData, 60, 0, WSE_PCIE_CPL_ALIGN, WSE_PCIE_ERR_DESC_ALIGN},
			{kData, WSE_PCIE_DESC_MAX_LEN + 8, 0, WSE_PCIE_CPL_LEN, WSE_PCIE_ERR_DESC_LEN},
			{kData, 64, 2, WSE_PCIE_CPL_RSVD, WSE_PCIE_ERR_DESC_RSVD},
			{kData, 64, 0x100, WSE_PCIE_CPL_RSVD, WSE_PCIE_ERR_DESC_RSVD},
		};
		for (auto &c : cases) {
			tb.reset();
			for (int k = 0; k < 40; k++) {
				tb.c2h_words.push_back(rng());
				tb.c2h_last.push_back(k == 39);
			}
			memset(&tb.mem[kData - kMemBase], 0x5A, 256);
			Ring r(blk, base, 4);
			r.start();
			r.post(c.addr, c.len, c.flags);
			uint32_t l, st;
			CHECK(r.wait(&l, &st, 2000), "no completion");
			CHECK(st == (WSE_PCIE_CPL_DONE | c.code) && l == 0, "addr %llx len %u flags %x: completion %u status %08x", (unsigned long long)c.addr, c.len, c.flags, l, st);
			tb.run(200);
			expect_err(c.err << sh, c2h ? "c2h descriptor" : "h2c descriptor");
			CHECK(tb.reg_read(blk + WSE_PCIE_RING_CTRL) == 0, "ring still running");
			CHECK(tb.reads == 1 && tb.read_words == 2 && tb.writes == 1,
			      "%llu reads (%llu words), %llu writes: more than the descriptor and its completion",
			      (unsigned long long)tb.reads, (unsigned long long)tb.read_words,
			      (unsigned long long)tb.writes);
			CHECK(tb.h2c_bytes.empty() && tb.c2h_pos == 0, "bytes moved");
			// The ring starts again from entry 0 and works.
			r.start();
			tb.allow(kData, 64);
			r.post(kData, 64, 0);
			CHECK(r.wait(&l, &st, 5000), "no completion after the restart");
			CHECK((st & ~WSE_PCIE_CPL_EOP) == WSE_PCIE_CPL_DONE && l == 64, "after restart: %u %08x", l, st);
		}
	}
	// Zero-length descriptors alone: completed, nothing moved.
	for (int c2h = 0; c2h < 2; c2h++) {
		tb.reset();
		tb.c2h_words.assign(8, 7);
		tb.c2h_last.assign(8, false);
		Ring r(c2h ? WSE_PCIE_REG_C2H : WSE_PCIE_REG_H2C, c2h ? kC2hRing : kH2cRing, 4);
		r.start();
		for (int k = 0; k < 5; k++) {
			r.post(kData, 0, 0);
			uint32_t l, st;
			CHECK(r.wait(&l, &st, 2000) && st == WSE_PCIE_CPL_DONE && l == 0, "zero-length %d", k);
		}
		tb.run(100);
		CHECK(tb.h2c_bytes.empty() && tb.c2h_pos == 0 && tb.read_words == 10 && tb.writes == 5,
		      "zero-length descriptors moved data");
	}
	printf("refusals: descriptors with an unaligned address or length, a length past %u, reserved "
	       "flags: completed with their code, nothing moved; zero-length: completed empty\n",
	       WSE_PCIE_DESC_MAX_LEN);
}

static void test_bus_faults()
{
	// A read that never comes back.
	tb.reset();
	Ring r(WSE_PCIE_REG_H2C, kH2cRing, 4);
	r.start();
	tb.drop_reads = true;
	r.post(kData, 64, 0);
	tb.run(kTimeout + 200);
	expect_err(WSE_PCIE_ERR_TIMEOUT, "descriptor read lost");
	CHECK(tb.reg_read(WSE_PCIE_REG_H2C + WSE_PCIE_RING_CTRL) == 0, "ring running after a time-out");
	// Its data read lost instead: the descriptor is completed TIMEOUT.
	tb.reset();
	r.start();
	r.post(kData, 256, 0);
	for (int i = 0; i < 5000 && tb.reads < 1; i++)
		tb.tick();
	tb.drop_reads = true; // the descriptor's read is answered, the data's is not
	uint32_t l, st;
	CHECK(r.wait(&l, &st, kTimeout * 3) && st == (WSE_PCIE_CPL_DONE | WSE_PCIE_CPL_TIMEOUT),
	      "data read lost: status %08x", st);
	expect_err(WSE_PCIE_ERR_TIMEOUT, "data read lost");
	// A read answered with an error.
	tb.reset();
	r.start();
	tb.err_reads = true;
	r.post(kData, 64, 0);
	CHECK(r.wait(&l, &st, 2000) && st == (WSE_PCIE_CPL_DONE | WSE_PCIE_CPL_BUS) && l == 0,
	      "read error: status %08x", st);
	expect_err(WSE_PCIE_ERR_BUS, "read error");
	// A write never taken (C2H).
	tb.reset();
	tb.c2h_words.assign(16, 1);
	tb.c2h_last.assign(16, false);
	Ring c(WSE_PCIE_REG_C2H, kC2hRing, 4);
	c.start();
	tb.allow(kData, 256);
	tb.wr_stuck = true;
	c.post(kData, 256, 0);
	tb.run(kTimeout * 3);
	expect_err(WSE_PCIE_ERR_TIMEOUT << WSE_PCIE_ERR_C2H_SHIFT, "write never taken");
	CHECK(tb.reg_read(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL) == 0, "ring running after a time-out");
	printf("bus faults: a lost descriptor read, a lost data read, a write never taken (TIMEOUT), "
	       "a read error (BUS)\n");
}

static void test_msix()
{
	tb.reset();
	tb.c2h_words.clear();
	Ring r(WSE_PCIE_REG_H2C, kH2cRing, 8);
	r.start();
	uint32_t l, st;
	r.post(kData, 0, 0);
	CHECK(r.wait(&l, &st, 2000), "completion");
	tb.run(100);
	CHECK(tb.msix.empty(), "a vector while masked");
	CHECK(tb.reg_read(WSE_PCIE_REG_INT_STATUS) == 1, "status bit");
	tb.reg_write(WSE_PCIE_REG_INT_MASK, 6);
	tb.run(100);
	CHECK(tb.msix.size() == 1 && tb.msix[0] == WSE_PCIE_VEC_H2C, "one vector when unmasked");
	r.post(kData, 0, 0);
	CHECK(r.wait(&l, &st, 2000), "completion");
	tb.run(100);
	CHECK(tb.msix.size() == 1, "sent again before the status was cleared");
	tb.reg_write(WSE_PCIE_REG_INT_STATUS, 1);
	CHECK(tb.reg_read(WSE_PCIE_REG_INT_STATUS) == 0, "status not cleared");
	r.post(kData, 0, WSE_PCIE_DESC_NO_IRQ);
	CHECK(r.wait(&l, &st, 2000), "completion");
	tb.run(100);
	CHECK(tb.msix.size() == 1 && tb.reg_read(WSE_PCIE_REG_INT_STATUS) == 0, "NO_IRQ interrupted");
	r.post(kData, 0, 0);
	CHECK(r.wait(&l, &st, 2000), "completion");
	tb.run(100);
	CHECK(tb.msix.size() == 2 && tb.msix[1] == WSE_PCIE_VEC_H2C, "second vector after the clear");
	printf("msix: masked, unmasked, once per status bit, NO_IRQ\n");
}

// Stopping a C2H ring whose buffer waits for the transmitter: the buffer
// is completed empty, BUSY clears, and a started ring takes packets again.
static void test_c2h_stop()
{
	tb.reset();
	Ring r(WSE_PCIE_REG_C2H, kC2hRing, 4);
	r.start();
	tb.allow(kData, 64);
	r.post(kData, 64, 0);
	tb.run(200);
	CHECK(tb.reg_read(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL) ==
		      (WSE_PCIE_CTRL_RUN | WSE_PCIE_CTRL_BUSY), "waiting for words");
	tb.reg_write(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL, 0);
	uint32_t l, st;
	CHECK(r.wait(&l, &st, 200) && st == WSE_PCIE_CPL_DONE && l == 0, "stopped: %u %08x", l, st);
	tb.run(20);
	CHECK(tb.reg_read(WSE_PCIE_REG_C2H + WSE_PCIE_RING_CTRL) == 0, "still busy");
	tb.c2h_words.assign(4, 9);
	tb.c2h_last.assign(4, false);
	tb.c2h_last[3] = true;
	r.start();
	r.post(kData, 64, 0);
	CHECK(r.wait(&l, &st, 2000) && st == (WSE_PCIE_CPL_DONE | WSE_PCIE_CPL_EOP) && l == 32,
	      "after the restart: %u %08x", l, st);
	printf("c2h stop: an empty buffer completed empty, the ring started again\n");
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	int npk = argc > 1 ? atoi(argv[1]) : 200;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	rng.seed(seed);
	test_ident();
	test_ring_refusals();
	test_desc_refusals();
	test_bus_faults();
	test_msix();
	test_c2h_stop();
	test_flows(true, false, npk);
	// The mesh mostly stalled: back-pressure reaches the reads.
	tb.stall_pct = 90;
	test_flows(true, false, npk / 4 + 1);
	tb.stall_pct = 30;
	test_flows(false, true, npk);
	// Both directions at once: the two rings' and the movers' requests
	// share the port, their completions interleave.
	test_flows(true, true, npk / 2 + 1);
	tb.rd_ready_pct = tb.wr_ready_pct = 30;
	tb.c2h_pct = 30;
	test_flows(false, true, npk / 4 + 1);
	test_flows(true, true, npk / 4 + 1);
	delete tb.m;
	if (failures) {
		printf("FAIL tb_pcie seed %llu: %d checks failed\n", (unsigned long long)seed, failures);
		return 1;
	}
	printf("PASS tb_pcie seed %llu\n", (unsigned long long)seed);
	return 0;
}
