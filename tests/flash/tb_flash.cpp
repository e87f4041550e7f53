// SPDX-License-Identifier: Apache-2.0
//
// tb_flash: the SPI NOR flash controller (rtl/flash/flash_ctrl.sv) against
// the behavioural flash of spi_flash_model.h, with a reference copy of the
// array kept here from the requests' meaning alone (erase: 0xFF; program:
// AND). The writer of program data and the reader of read data stall at
// random. First the model alone, its pins driven by the test (its rules:
// WEL, page wrap, AND, busy time, its timing assertions firing on a bad
// bus); then directed requests, then random ones:
//   - RDID gives the part's three ID bytes;
//   - reads at random addresses and lengths (page and sector crossings, up
//     to the last byte) give the reference's bytes;
//   - a sector erase, then the sector reads 0xFF; a page program, then the
//     page reads back as reference AND data;
//   - refused before any SPI traffic: a program across a page (ALIGN), an
//     erase off a sector (ALIGN), anything past the end (RANGE); zero-length
//     reads and programs are OK with no traffic either;
//   - a part stuck busy: erase and program end TIMEOUT, not before their
//     time-outs and soon after;
//   - a part that ignores WREN: erase and program end FLASH, array unchanged;
//   - random sequences of all of these, statuses and data against the
//     reference, then the whole array.
// The model's SPI timing assertions and the RTL's must all hold.
//
//   tb_flash <random requests> <seed>
//
// Built with the controller's parameters as -G and the same values as -D
// (mk/flash.mk): TB_DIV, TB_CS_HIGH, TB_FLASH_BYTES, TB_ERASE_TMO,
// TB_PROGRAM_TMO.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "Vflash_ctrl.h"
#include "spi_flash_model.h"  // sim/
#include "verilated.h"

enum { OpRead = 0, OpErase = 1, OpProgram = 2, OpReadId = 3 };
enum { StOk = 0, StTimeout = 1, StFlash = 2, StRange = 3, StAlign = 4 };
static const char *kSt[] = {"OK", "TIMEOUT", "FLASH", "RANGE", "ALIGN", "?", "?", "?"};
static const char *kOp[] = {"READ", "ERASE", "PROGRAM", "READ_ID"};

static std::mt19937_64 rng;
static uint32_t rnd(uint32_t n) { return (uint32_t)(rng() % n); }

static Vflash_ctrl *dut;
static SpiFlash *flash;
static std::vector<uint8_t> ref;
static uint64_t cycle, fails;
static unsigned wr_busy = 0, rd_busy = 0;  // % of cycles the writer/reader stalls

#define CHECK(cond, ...) do { if (!(cond)) { if (fails++ < 20) { \
	fprintf(stderr, "FAIL line %d, cycle %llu: ", __LINE__, (unsigned long long)cycle); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } } while (0)

static void tick()
{
	dut->clk_i = 0;
	dut->eval();
	dut->clk_i = 1;
	dut->eval();
	dut->miso_i = flash->step(dut->sck_o, dut->cs_no, dut->mosi_o) & 1;
	dut->eval();
	cycle++;
}

struct Result {
	int status;
	std::vector<uint8_t> data;
	uint64_t cycles;
	uint64_t commands;   // CS# falls the request caused
};

// One request: inputs change after the rising edge, outputs are looked at
// before the next.
static Result run(int op, uint32_t addr, uint32_t len, const std::vector<uint8_t> &wr = {})
{
	Result r{-1, {}, 0, 0};
	uint64_t c0 = cycle, k0 = flash->commands;
	size_t wi = 0;
	bool sent = false;
	uint64_t limit = cycle + 200000 + (uint64_t)TB_ERASE_TMO * 2 + (uint64_t)len * (40 * TB_DIV + 20);
	while (cycle < limit) {
		dut->req_valid_i = !sent;
		dut->req_op_i = op;
		dut->req_addr_i = addr;
		dut->req_len_i = len;
		dut->wr_valid_i = wi < wr.size() && rnd(100) >= wr_busy;
		dut->wr_data_i = wi < wr.size() ? wr[wi] : 0;
		dut->rd_ready_i = rnd(100) >= rd_busy;
		dut->eval();
		bool req_acc = dut->req_valid_i && dut->req_ready_o;
		bool wr_acc = dut->wr_valid_i && dut->wr_ready_o;
		bool rd_acc = dut->rd_valid_o && dut->rd_ready_i;
		uint8_t rd = dut->rd_data_o;
		bool done = dut->done_o;
		int st = dut->status_o;
		CHECK(!(dut->wr_ready_o && !(op == OpProgram && sent)), "wr_ready outside a program");
		tick();
		if (req_acc) sent = true;
		if (wr_acc) wi++;
		if (rd_acc) r.data.push_back(rd);
		if (done && sent) {
			r.status = st;
			break;
		}
	}
	dut->req_valid_i = 0;
	dut->wr_valid_i = 0;
	dut->eval();
	CHECK(r.status >= 0, "%s 0x%x+%u: no done", kOp[op], addr, len);
	r.cycles = cycle - c0;
	r.commands = flash->commands - k0;
	if (r.status == StOk && op == OpProgram)
		CHECK(wi == wr.size(), "program took %zu of %zu bytes", wi, wr.size());
	return r;
}

// Wait with nothing to do: the model's busy time runs out.
static void idle(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) tick();
}

// The status the rules give, the reference updated for an OK.
static int expect(int op, uint32_t addr, uint32_t len)
{
	uint64_t end = (uint64_t)addr + len;
	switch (op) {
	case OpRead:
		if (end > TB_FLASH_BYTES) return StRange;
		return StOk;
	case OpErase:
		if (addr >= TB_FLASH_BYTES) return StRange;
		if (addr % 4096) return StAlign;
		return StOk;
	case OpProgram:
		if (end > TB_FLASH_BYTES) return StRange;
		if ((addr % 256) + len > 256) return StAlign;
		return StOk;
	default:
		return StOk;
	}
}

static void do_read(uint32_t addr, uint32_t len)
{
	Result r = run(OpRead, addr, len);
	int e = expect(OpRead, addr, len);
	CHECK(r.status == e, "READ 0x%x+%u: %s, expected %s", addr, len, kSt[r.status & 7], kSt[e]);
	if (e != StOk) {
		CHECK(r.data.empty() && r.commands == 0, "refused READ made traffic");
		return;
	}
	CHECK(r.data.size() == len, "READ 0x%x+%u: %zu bytes", addr, len, r.data.size());
	CHECK(r.commands == (len ? 1u : 0u), "READ: %llu commands", (unsigned long long)r.commands);
	for (size_t i = 0; i < r.data.size() && i < len; i++)
		if (r.data[i] != ref[addr + i]) {
			CHECK(false, "READ 0x%x+%u: byte %zu is %02x, expected %02x", addr, len, i, r.data[i], ref[addr + i]);
			break;
		}
}

static void do_erase(uint32_t addr)
{
	Result r = run(OpErase, addr, 0);
	int e = expect(OpErase, addr, 0);
	CHECK(r.status == e, "ERASE 0x%x: %s, expected %s", addr, kSt[r.status & 7], kSt[e]);
	if (e == StOk) {
		for (uint32_t i = 0; i < 4096; i++) ref[addr + i] = 0xFF;
		CHECK(!flash->wip(), "ERASE OK with the part busy");
	} else {
		CHECK(r.commands == 0, "refused ERASE made traffic");
	}
}

static void do_program(uint32_t addr, uint32_t len, const std::vector<uint8_t> &d)
{
	Result r = run(OpProgram, addr, len, d);
	int e = expect(OpProgram, addr, len);
	CHECK(r.status == e, "PROGRAM 0x%x+%u: %s, expected %s", addr, len, kSt[r.status & 7], kSt[e]);
	if (e == StOk) {
		for (uint32_t i = 0; i < len; i++) ref[addr + i] &= d[i];
		CHECK(!flash->wip(), "PROGRAM OK with the part busy");
	} else {
		CHECK(r.commands == 0, "refused PROGRAM made traffic");
	}
}

static std::vector<uint8_t> random_bytes(uint32_t n)
{
	std::vector<uint8_t> d(n);
	for (auto &b : d) b = (uint8_t)rng();
	return d;
}

static uint32_t rand_len()
{
	uint32_t k = rnd(10);
	return k < 2 ? 1 + rnd(4) : k < 8 ? rnd(300) : rnd(5000);
}

static void check_array(const char *when)
{
	for (size_t i = 0; i < ref.size(); i++)
		if (flash->mem[i] != ref[i]) {
			CHECK(false, "%s: array byte 0x%zx is %02x, reference %02x", when, i, flash->mem[i], ref[i]);
			return;
		}
}

static void set_busy_times()
{
	// Well inside the time-outs, so several polls each.
	flash->erase_cycles = TB_ERASE_TMO / 8 + rnd(TB_ERASE_TMO / 2);
	flash->program_cycles = TB_PROGRAM_TMO / 8 + rnd(TB_PROGRAM_TMO / 2);
}

// ---- the model alone, its pins driven here --------------------------------
// One command on the pins at two clocks per SCK period; returns the nrx
// bytes after the ones sent.
static std::vector<uint8_t> bang(SpiFlash &f, const std::vector<uint8_t> &out, size_t nrx)
{
	std::vector<uint8_t> rx;
	int miso = 1;
	f.step(0, 1, 0);
	f.step(0, 1, 0);
	f.step(0, 0, 0);
	for (size_t i = 0; i < out.size() + nrx; i++) {
		uint8_t b = i < out.size() ? out[i] : 0, r = 0;
		for (int k = 7; k >= 0; k--) {
			int m = (b >> k) & 1;
			f.step(0, 0, m);
			r = (uint8_t)(r << 1 | (miso & 1)); // sampled at the rising edge
			f.step(1, 0, m);
			miso = f.step(0, 0, m);
		}
		if (i >= out.size()) rx.push_back(r);
	}
	f.step(0, 0, 0);
	f.step(0, 1, 0);
	return rx;
}

static uint8_t bang_rdsr(SpiFlash &f) { return bang(f, {0x05}, 1)[0]; }

// The model's own rules, so the controller is checked against a part that
// behaves like the datasheets: commands ignored without WEL, WEL cleared
// when PP/SE finish, page wrap, AND, busy time, only RDSR while busy, and
// its timing assertions firing.
static void model_selftest()
{
	SpiFlash f(8192);
	f.program_cycles = 500;
	f.erase_cycles = 80;
	for (size_t i = 0; i < f.mem.size(); i++) f.mem[i] = (uint8_t)(i * 7);
	std::vector<uint8_t> m0 = f.mem;
	CHECK(bang_rdsr(f) == 0, "model: status after power-on");
	CHECK(bang(f, {0x9F}, 3) == std::vector<uint8_t>(f.id, f.id + 3), "model: RDID");
	CHECK(bang(f, {0x03, 0x00, 0x01, 0x00}, 3) == std::vector<uint8_t>(&f.mem[0x100], &f.mem[0x103]), "model: READ");
	bang(f, {0x02, 0x00, 0x01, 0x00, 0x00}, 0);
	bang(f, {0x20, 0x00, 0x10, 0x00}, 0);
	CHECK(f.mem == m0 && bang_rdsr(f) == 0, "model: PP/SE without WEL not ignored");
	bang(f, {0x06}, 0);
	CHECK(bang_rdsr(f) == 0x02, "model: WEL after WREN");
	// 10 bytes from offset 0xFA of page 0x200: 6 to the page's end, 4 wrap.
	std::vector<uint8_t> pp = {0x02, 0x00, 0x02, 0xFA};
	for (int i = 0; i < 10; i++) pp.push_back((uint8_t)(0xF0 | i));
	bang(f, pp, 0);
	CHECK(bang_rdsr(f) == 0x03, "model: WIP and WEL while programming");
	bang(f, {0x06}, 0);
	CHECK(bang(f, {0x03, 0x00, 0x02, 0x00}, 1)[0] == 0xFF, "model: READ answered while busy");
	for (int i = 0; i < 600; i++) f.step(0, 1, 0);
	CHECK(bang_rdsr(f) == 0, "model: WIP/WEL after the program");
	std::vector<uint8_t> m1 = m0;
	for (int i = 0; i < 10; i++) m1[0x200 + ((0xFA + i) & 0xFF)] &= (uint8_t)(0xF0 | i);
	CHECK(f.mem == m1, "model: page program wrap or AND");
	bang(f, {0x06}, 0);
	bang(f, {0x20, 0x00, 0x12, 0x34}, 0);
	for (int i = 0; i < 100; i++) f.step(0, 1, 0);
	for (int i = 0x1000; i < 0x2000; i++) m1[i] = 0xFF;
	CHECK(f.mem == m1 && bang_rdsr(f) == 0, "model: sector erase");
	f.no_wel = true;
	bang(f, {0x06}, 0);
	CHECK(bang_rdsr(f) == 0, "model: no_wel");
	f.no_wel = false;
	f.stuck_busy = true;
	bang(f, {0x06}, 0);
	bang(f, {0x20, 0x00, 0x00, 0x00}, 0);
	for (int i = 0; i < 1000; i++) f.step(0, 1, 0);
	CHECK(bang_rdsr(f) & 1, "model: stuck_busy");
	CHECK(f.errors == 0, "model: %llu timing errors on a clean bus", (unsigned long long)f.errors);
	// The timing assertions on a bad bus (counted, not printed): pins
	// (SCK, CS#, MOSI) one clock each, from CS# high and SCK low.
	struct Bad {
		const char *what;
		std::vector<std::array<int, 3>> pins;
	};
	static const Bad bad[] = {
		{"CS# falling with SCK high", {{1, 0, 0}, {0, 1, 0}}},
		{"MOSI moving at the rising edge", {{0, 1, 0}, {0, 1, 0}, {0, 0, 0}, {1, 0, 1}}},
		{"CS# rising inside a byte", {{0, 0, 1}, {0, 1, 1}}},
	};
	f.quiet = true;
	for (const Bad &b : bad) {
		uint64_t e0 = f.errors;
		for (const auto &p : b.pins) f.step(p[0], p[1], p[2]);
		CHECK(f.errors > e0, "model: %s not reported", b.what);
	}
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	int nrand = argc > 1 ? atoi(argv[1]) : 200;
	uint64_t seed = argc > 2 ? strtoull(argv[2], nullptr, 0) : 1;
	rng.seed(seed);
	model_selftest();
	dut = new Vflash_ctrl;
	flash = new SpiFlash(TB_FLASH_BYTES);
	flash->min_cs_high = TB_CS_HIGH + 1; // docs/flash.md: CsHigh + 1 clocks at least
	flash->min_half = TB_DIV;
	if (seed & 1) { flash->id[0] = 0xEF; flash->id[1] = 0x40; } // Winbond W25Q128JV

	dut->rst_ni = 0;
	dut->clk_i = 0;
	dut->eval();
	tick();
	tick();
	dut->rst_ni = 1;
	dut->eval();
	tick();

	// Random contents, through the back door, in both copies.
	for (auto &b : flash->mem) b = (uint8_t)rng();
	ref = flash->mem;
	wr_busy = 30;
	rd_busy = 30;

	// RDID.
	{
		Result r = run(OpReadId, rnd(1u << 31), rnd(100));
		CHECK(r.status == StOk && r.data.size() == 3 && r.data[0] == flash->id[0] &&
		      r.data[1] == flash->id[1] && r.data[2] == flash->id[2], "READ_ID");
	}
	// Reads at random places, the first and last bytes, a read to the end.
	for (int i = 0; i < 20; i++) {
		uint32_t len = rand_len();
		do_read(rnd(TB_FLASH_BYTES - len + 1), len);
	}
	do_read(0, 1);
	do_read(TB_FLASH_BYTES - 1, 1);
	do_read(TB_FLASH_BYTES - 700, 700);
	// Erase, read 0xFF.
	set_busy_times();
	uint32_t sec = rnd(TB_FLASH_BYTES / 4096) * 4096;
	do_erase(sec);
	{
		Result r = run(OpRead, sec, 4096);
		bool ff = r.status == StOk && r.data.size() == 4096;
		for (size_t i = 0; ff && i < r.data.size(); i++) ff = r.data[i] == 0xFF;
		CHECK(ff, "erased sector 0x%x does not read 0xFF", sec);
	}
	// Program a whole erased page, then part of another, read back.
	for (int i = 0; i < 2; i++) {
		set_busy_times();
		uint32_t page = sec + 256 * rnd(16);
		uint32_t off = i ? rnd(256) : 0;
		uint32_t len = i ? 1 + rnd(256 - off) : 256;
		std::vector<uint8_t> d = random_bytes(len);
		do_program(page + off, len, d);
		Result r = run(OpRead, page + off, len);
		CHECK(r.status == StOk && r.data == d, "programmed page 0x%x+%u reads back wrong", page + off, len);
	}
	// Program over programmed bytes: AND.
	{
		uint32_t a = sec + 100;
		do_program(a, 50, random_bytes(50));
		do_read(a, 50);
	}
	// Refused requests, no SPI traffic.
	do_program(sec + 200, 100, random_bytes(100));            // across a page
	do_program(sec + 0x100, 257, random_bytes(257));          // longer than a page
	do_erase(sec + 256);                                      // off a sector
	do_erase(sec + 1);
	do_read(TB_FLASH_BYTES - 10, 11);                         // one past the end
	do_read(0xFFFFFFF0u, 100);                                // wraps 32 bits
	do_erase(TB_FLASH_BYTES);
	do_program(TB_FLASH_BYTES - 4, 8, random_bytes(8));
	do_program(TB_FLASH_BYTES + 0x1000, 1, random_bytes(1));
	do_read(sec, 0);
	do_program(sec, 0, {});
	check_array("after the directed requests");

	// Stuck busy: TIMEOUT after the time-out, not before.
	flash->stuck_busy = true;
	{
		Result r = run(OpErase, sec, 0);
		CHECK(r.status == StTimeout, "stuck ERASE: %s", kSt[r.status & 7]);
		CHECK(r.cycles >= TB_ERASE_TMO && r.cycles <= TB_ERASE_TMO + 200 * TB_DIV + 500,
		      "stuck ERASE ended after %llu cycles, time-out %d", (unsigned long long)r.cycles, TB_ERASE_TMO);
		flash->power_cycle();
		r = run(OpProgram, sec, 4, random_bytes(4));
		CHECK(r.status == StTimeout, "stuck PROGRAM: %s", kSt[r.status & 7]);
		CHECK(r.cycles >= TB_PROGRAM_TMO && r.cycles <= TB_PROGRAM_TMO + 400 * TB_DIV + 500,
		      "stuck PROGRAM ended after %llu cycles, time-out %d", (unsigned long long)r.cycles, TB_PROGRAM_TMO);
		flash->power_cycle();
	}
	flash->stuck_busy = false;
	// WEL does not set: FLASH, nothing written.
	flash->no_wel = true;
	{
		Result r = run(OpErase, sec, 0);
		CHECK(r.status == StFlash, "ERASE without WEL: %s", kSt[r.status & 7]);
		r = run(OpProgram, sec, 16, random_bytes(16));
		CHECK(r.status == StFlash, "PROGRAM without WEL: %s", kSt[r.status & 7]);
	}
	flash->no_wel = false;
	idle(10);
	check_array("after the fault requests");

	// Random sequences.
	uint64_t counts[4] = {}, refused = 0;
	for (int i = 0; i < nrand; i++) {
		wr_busy = rnd(4) ? rnd(60) : 0;
		rd_busy = rnd(4) ? rnd(60) : 0;
		set_busy_times();
		int op = (int)rnd(10);
		op = op < 4 ? OpRead : op < 6 ? OpErase : op < 9 ? OpProgram : OpReadId;
		bool bad = rnd(8) == 0;
		counts[op]++;
		if (op == OpRead) {
			uint32_t len = rand_len();
			uint32_t a = bad ? TB_FLASH_BYTES - rnd(len + 1) + 1 : rnd(TB_FLASH_BYTES - len + 1);
			if (expect(op, a, len) != StOk) refused++;
			do_read(a, len);
		} else if (op == OpErase) {
			uint32_t a = rnd(TB_FLASH_BYTES / 4096) * 4096;
			if (bad) a = rnd(2) ? a + 1 + rnd(4095) : TB_FLASH_BYTES + 4096 * rnd(4);
			if (expect(op, a, 0) != StOk) refused++;
			do_erase(a);
		} else if (op == OpProgram) {
			uint32_t a = rnd(TB_FLASH_BYTES);
			uint32_t room = 256 - a % 256;
			uint32_t len = bad ? room + 1 + rnd(300) : 1 + rnd(room);
			if (expect(op, a, len) != StOk) refused++;
			do_program(a, len, random_bytes(len));
		} else {
			Result r = run(OpReadId, 0, 0);
			CHECK(r.status == StOk && r.data.size() == 3 && r.data[2] == flash->id[2], "READ_ID");
		}
		if (fails) break;
	}
	check_array("at the end");
	CHECK(flash->errors == 0, "%llu SPI timing errors in the flash model", (unsigned long long)flash->errors);
	CHECK(flash->polls > 0, "no status polls");

	dut->final();
	printf("tb_flash: div %d, %d random requests (%llu reads, %llu erases, %llu programs, %llu IDs, "
	       "%llu refused), %llu polls, %llu cycles, seed %llu\n",
	       TB_DIV, nrand, (unsigned long long)counts[0], (unsigned long long)counts[1],
	       (unsigned long long)counts[2], (unsigned long long)counts[3], (unsigned long long)refused,
	       (unsigned long long)flash->polls, (unsigned long long)cycle, (unsigned long long)seed);
	if (fails || Verilated::gotError()) {
		printf("FAIL: %llu failures\n", (unsigned long long)fails);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
