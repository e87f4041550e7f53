// tb_pe: runs one bare-metal ELF on one processing element (wse_pe) under
// Verilator. Loads the ELF through the PE's management memory port while the
// core is halted, releases it, runs to the tohost exit under a cycle limit,
// prints the console, and dumps the signature region for the QEMU compare.
//
//   tb_pe PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--stats]
//                  [--trace]
// Exit status: 0 pass, 1 failure code reported, 2 time-out, 3 usage/load.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "Vwse_pe.h"
#include "verilated.h"
#include "elf32.h"

static Vwse_pe *top;
static uint64_t cycles;
static uint64_t retired;
static bool trace;

static void tick()
{
	top->clk_i = 1;
	top->eval();
	top->clk_i = 0;
	top->eval();
	cycles++;
}

// One management write; waits for the grant.
static bool mgmt_write(uint32_t addr, uint32_t data)
{
	top->mem_req_i = 1;
	top->mem_we_i = 1;
	top->mem_addr_i = addr;
	top->mem_wdata_i = data;
	for (int i = 0; i < 100; i++) {
		top->eval();
		if (top->mem_gnt_o) {
			bool err = top->mem_err_o;
			tick();
			top->mem_req_i = 0;
			top->eval();
			return !err;
		}
		tick();
	}
	top->mem_req_i = 0;
	return false;
}

static bool mgmt_read(uint32_t addr, uint32_t *data)
{
	top->mem_req_i = 1;
	top->mem_we_i = 0;
	top->mem_addr_i = addr;
	for (int i = 0; i < 100; i++) {
		top->eval();
		if (top->mem_gnt_o) {
			bool err = top->mem_err_o;
			tick();
			top->mem_req_i = 0;
			top->eval();
			if (err)
				return false;
			if (!top->mem_rvalid_o)
				return false;
			*data = top->mem_rdata_o;
			return true;
		}
		tick();
	}
	top->mem_req_i = 0;
	return false;
}

static bool halt_core()
{
	top->halt_req_i = 1;
	for (int i = 0; i < 1000; i++) {
		top->eval();
		if (top->halted_o)
			return true;
		tick();
	}
	return false;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	const char *elf_path = nullptr, *sig_path = nullptr;
	uint64_t max_cycles = 1000000;
	unsigned x = 0, y = 0;
	bool stats = false;
	// --putc-stall SEED: the console takes a character in a quarter of
	// the cycles, at random, so that printing stores wait (wse_pe_hostio).
	uint32_t stall_seed = 0;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--max-cycles" && i + 1 < argc)
			max_cycles = strtoull(argv[++i], nullptr, 0);
		else if (a == "--sig" && i + 1 < argc)
			sig_path = argv[++i];
		else if (a == "--x" && i + 1 < argc)
			x = strtoul(argv[++i], nullptr, 0);
		else if (a == "--y" && i + 1 < argc)
			y = strtoul(argv[++i], nullptr, 0);
		else if (a == "--putc-stall" && i + 1 < argc)
			stall_seed = strtoul(argv[++i], nullptr, 0) | 1u;
		else if (a == "--stats")
			stats = true;
		else if (a == "--trace")
			trace = true;
		else if (a[0] == '+')
			continue;  // Verilator runtime options
		else if (!elf_path)
			elf_path = argv[i];
		else {
			fprintf(stderr, "tb_pe: unexpected argument %s\n", argv[i]);
			return 3;
		}
	}
	if (!elf_path) {
		fprintf(stderr, "usage: tb_pe PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--putc-stall SEED] [--stats]\n");
		return 3;
	}
	Elf32Image elf;
	std::string err = elf.load(elf_path);
	if (!err.empty()) {
		fprintf(stderr, "tb_pe: %s\n", err.c_str());
		return 3;
	}

	top = new Vwse_pe;
	top->putc_ready_i = 1;
	top->x_i = x;
	top->y_i = y;
	top->halt_req_i = 1;
	top->core_rst_i = 0;
	top->rst_ni = 0;
	top->clk_i = 0;
	top->eval();
	tick();
	tick();
	top->rst_ni = 1;
	tick();

	// Load every segment word by word through the management port.
	for (const auto &s : elf.segments) {
		if ((s.paddr & 3) != 0) {
			fprintf(stderr, "tb_pe: segment at 0x%08x not word-aligned\n", s.paddr);
			return 3;
		}
		for (uint32_t off = 0; off < s.memsz; off += 4) {
			uint32_t w = 0;
			for (uint32_t k = 0; k < 4; k++)
				if (off + k < s.data.size())
					w |= (uint32_t)s.data[off + k] << (8 * k);
			if (!mgmt_write(s.paddr + off, w)) {
				fprintf(stderr, "tb_pe: segment word 0x%08x is outside the tile's memories\n",
					s.paddr + off);
				return 3;
			}
		}
	}
	uint64_t load_cycles = cycles;

	// Release the core and run.
	top->halt_req_i = 0;
	uint64_t start = cycles;
	bool done = false;
	uint32_t exit_value = 0;
	uint64_t held = 0;
	while (cycles - start < max_cycles) {
		if (stall_seed) {
			stall_seed ^= stall_seed << 13;
			stall_seed ^= stall_seed >> 17;
			stall_seed ^= stall_seed << 5;
			top->putc_ready_i = (stall_seed & 3) == 0;
			held += !top->putc_ready_i;
		}
		top->eval();
		if (top->retire_o) {
			retired++;
			if (trace)
				fprintf(stderr, "retire\n");
		}
		if (top->putc_valid_o) {
			putchar(top->putc_char_o);
		}
		if (top->exit_valid_o) {
			exit_value = top->exit_value_o;
			done = true;
		}
		tick();
		if (done)
			break;
	}
	fflush(stdout);
	uint64_t run_cycles = cycles - start;
	if (!halt_core()) {
		fprintf(stderr, "tb_pe: core does not halt\n");
		return 3;
	}

	if (stats)
		fprintf(stderr, "tb_pe: load %llu cycles, run %llu cycles, %llu instructions, CPI %.4f, console not ready %llu cycles\n",
			(unsigned long long)load_cycles, (unsigned long long)run_cycles,
			(unsigned long long)retired, retired ? (double)run_cycles / retired : 0.0,
			(unsigned long long)held);

	if (!done) {
		fprintf(stderr, "tb_pe: TIMEOUT after %llu cycles\n", (unsigned long long)run_cycles);
		return 2;
	}
	if (exit_value != 1) {
		fprintf(stderr, "tb_pe: FAIL code %u (tohost 0x%08x)\n", exit_value >> 1, exit_value);
		return 1;
	}
	if (sig_path) {
		uint32_t b, e;
		if (!elf.symbol("begin_signature", &b) || !elf.symbol("end_signature", &e)) {
			fprintf(stderr, "tb_pe: no begin_signature/end_signature symbols\n");
			return 3;
		}
		FILE *f = fopen(sig_path, "w");
		if (!f) {
			perror(sig_path);
			return 3;
		}
		for (uint32_t a = b; a < e; a += 4) {
			uint32_t w;
			if (!mgmt_read(a, &w)) {
				fprintf(stderr, "tb_pe: cannot read signature word 0x%08x\n", a);
				return 3;
			}
			fprintf(f, "S:%08x\n", w);
		}
		fclose(f);
	}
	top->final();
	delete top;
	return 0;
}
