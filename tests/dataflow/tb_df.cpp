// tb_df: runs one bare-metal ELF on one processing element (wse_pe) with a
// model of its router on the RAMP link (docs/fabric.md contract): wavelets
// the PE sends come back to it after a few cycles (loopback, optionally to
// another color), a feed can stream generated wavelets into a color, and
// the router side keeps per-color credits towards the PE and returns the
// PE's per-VC credits. Otherwise as tb_pe (tests/core/tb_pe.cpp).
//
//   tb_df PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--stats]
//                  [--loop SRC:DST] [--sink C] [--feed C:N] [--latency L]
//                  [--feed-gap G]
// Feed k on a color carries the bits of ((7k+3) mod 23 - 11) / 8 as a float
// (firmware/tests compute the same values).
// Exit status: 0 pass, 1 failure code reported, 2 time-out, 3 usage/load.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <deque>
#include <vector>

#include "Vwse_pe.h"
#include "wse_cfg.h"
#include "verilated.h"
#include "elf32.h"

static Vwse_pe *top;
static uint64_t cycles;
static uint64_t retired;
static uint64_t cycles_now() { return cycles; }
static bool trace;

// ---- Router model on the RAMP link ------------------------------------------
static int loop_to[32];                 // color a sent wavelet comes back on (-1 sink)
static std::deque<uint64_t> inq[32];    // waiting to enter the PE, per color
static unsigned credit[32];             // router's credits for the PE's color queues
static std::deque<std::pair<uint64_t, uint64_t>> delay;  // (due cycle, wavelet)
static unsigned latency = 3;
static unsigned rr;
static uint64_t sent_by_pe[32], recv_by_pe[32];
static unsigned vc_ret_next;            // VC credits to return next cycle
static unsigned feed_gap = 0, feed_color = 0;
static uint64_t feed_left = 0, feed_k = 0, feed_next = 0;
// Dispatch latency: cycles from a wavelet of this color on the RAMP input to
// the first instruction of its task, which must store 0 to the putchar word
// as its second instruction (that store marks the task's start).
static int disp_color = -1;
static std::deque<uint64_t> disp_arrivals;
static uint64_t disp_sum, disp_n, disp_max;

static uint32_t feed_value(uint64_t k)
{
	float f = (float)((int)((k * 7u + 3u) % 23u) - 11) * 0.125f;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t cycles_now();
// Inputs of the RAMP for this cycle (before eval).
static void fabric_drive()
{
	uint64_t now = cycles_now();
	while (!delay.empty() && delay.front().first <= now) {
		uint64_t w = delay.front().second;
		delay.pop_front();
		inq[(w >> 32) & 31].push_back(w);
	}
	if (feed_left && now >= feed_next && inq[feed_color].size() < 4) {
		inq[feed_color].push_back(((uint64_t)feed_color << 32) | feed_value(feed_k++));
		feed_left--;
		feed_next = now + feed_gap;
	}
	top->fab_in_valid_i = 0;
	for (unsigned i = 0; i < 32; i++) {
		unsigned c = (rr + i) % 32;
		if (!inq[c].empty() && credit[c] > 0) {
			uint64_t w = inq[c].front();
			inq[c].pop_front();
			credit[c]--;
			top->fab_in_valid_i = 1;
			top->fab_in_data_i = w;
			recv_by_pe[c]++;
			if ((int)c == disp_color)
				disp_arrivals.push_back(now);
			rr = c + 1;
			break;
		}
	}
	top->fab_out_credit_i = vc_ret_next;
	vc_ret_next = 0;
}

static const unsigned color_vc[32] = WSE_CFG_COLOR_VC_MAP;
// Outputs of the RAMP in this cycle (after eval, before the edge).
static void fabric_sample()
{
	uint32_t cr = top->fab_in_credit_o;
	for (unsigned c = 0; c < 32; c++)
		if (cr & (1u << c))
			credit[c]++;
	if (top->fab_out_valid_o) {
		uint64_t w = top->fab_out_data_o;
		unsigned c = (w >> 32) & 31;
		sent_by_pe[c]++;
		vc_ret_next |= 1u << color_vc[c];
		if (loop_to[c] >= 0) {
			w = (w & ~(31ull << 32)) | ((uint64_t)loop_to[c] << 32);
			delay.push_back({cycles_now() + latency, w});
		}
	}
}

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
	for (unsigned c = 0; c < 32; c++) {
		loop_to[c] = (int)c;
		credit[c] = WSE_CFG_RAMP_COLOR_DEPTH;
	}
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
		else if (a == "--stats")
			stats = true;
		else if (a == "--trace")
			trace = true;
		else if (a == "--loop" && i + 1 < argc) {
			unsigned s_, d_;
			if (sscanf(argv[++i], "%u:%u", &s_, &d_) == 2 && s_ < 32 && d_ < 32)
				loop_to[s_] = (int)d_;
		} else if (a == "--sink" && i + 1 < argc) {
			unsigned c_ = strtoul(argv[++i], nullptr, 0);
			if (c_ < 32)
				loop_to[c_] = -1;
		} else if (a == "--feed" && i + 1 < argc) {
			unsigned c_;
			unsigned long long n_;
			if (sscanf(argv[++i], "%u:%llu", &c_, &n_) == 2 && c_ < 32) {
				feed_color = c_;
				feed_left = n_;
			}
		} else if (a == "--latency" && i + 1 < argc)
			latency = strtoul(argv[++i], nullptr, 0);
		else if (a == "--dispatch-color" && i + 1 < argc)
			disp_color = (int)strtoul(argv[++i], nullptr, 0);
		else if (a == "--feed-gap" && i + 1 < argc)
			feed_gap = strtoul(argv[++i], nullptr, 0);
		else if (a[0] == '+')
			continue;  // Verilator runtime options
		else if (!elf_path)
			elf_path = argv[i];
		else {
			fprintf(stderr, "tb_df: unexpected argument %s\n", argv[i]);
			return 3;
		}
	}
	if (!elf_path) {
		fprintf(stderr, "usage: tb_df PROG.elf [--max-cycles N] [--sig FILE] [--x X] [--y Y] [--stats]\n");
		return 3;
	}
	Elf32Image elf;
	std::string err = elf.load(elf_path);
	if (!err.empty()) {
		fprintf(stderr, "tb_df: %s\n", err.c_str());
		return 3;
	}

	top = new Vwse_pe;
	top->putc_ready_i = 1;
	top->x_i = x;
	top->y_i = y;
	top->halt_req_i = 1;
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
			fprintf(stderr, "tb_df: segment at 0x%08x not word-aligned\n", s.paddr);
			return 3;
		}
		for (uint32_t off = 0; off < s.memsz; off += 4) {
			uint32_t w = 0;
			for (uint32_t k = 0; k < 4; k++)
				if (off + k < s.data.size())
					w |= (uint32_t)s.data[off + k] << (8 * k);
			if (!mgmt_write(s.paddr + off, w)) {
				fprintf(stderr, "tb_df: segment word 0x%08x is outside the tile's memories\n",
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
	while (cycles - start < max_cycles) {
		fabric_drive();
		top->eval();
		fabric_sample();
		if (top->retire_o) {
			retired++;
			if (trace)
				fprintf(stderr, "retire\n");
		}
		if (top->putc_valid_o) {
			if (disp_color >= 0 && top->putc_char_o == 0) {
				if (!disp_arrivals.empty()) {
					uint64_t d = cycles - 1 - disp_arrivals.front();
					disp_arrivals.pop_front();
					disp_sum += d;
					disp_n++;
					if (d > disp_max)
						disp_max = d;
				}
			} else {
				putchar(top->putc_char_o);
			}
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
		fprintf(stderr, "tb_df: core does not halt\n");
		return 3;
	}

	if (stats)
		fprintf(stderr, "tb_df: load %llu cycles, run %llu cycles, %llu instructions, CPI %.4f\n",
			(unsigned long long)load_cycles, (unsigned long long)run_cycles,
			(unsigned long long)retired, retired ? (double)run_cycles / retired : 0.0);

	if (disp_n)
		printf("DISPATCH %llu %.2f %llu\n", (unsigned long long)disp_n, (double)disp_sum / disp_n,
		       (unsigned long long)disp_max);
	if (stats) {
		for (unsigned c = 0; c < 32; c++)
			if (sent_by_pe[c] || recv_by_pe[c])
				fprintf(stderr, "tb_df: color %u: PE sent %llu, PE received %llu\n", c,
					(unsigned long long)sent_by_pe[c], (unsigned long long)recv_by_pe[c]);
	}
	if (!done) {
		fprintf(stderr, "tb_df: TIMEOUT after %llu cycles\n", (unsigned long long)run_cycles);
		return 2;
	}
	if (exit_value != 1) {
		fprintf(stderr, "tb_df: FAIL code %u (tohost 0x%08x)\n", exit_value >> 1, exit_value);
		return 1;
	}
	if (sig_path) {
		uint32_t b, e;
		if (!elf.symbol("begin_signature", &b) || !elf.symbol("end_signature", &e)) {
			fprintf(stderr, "tb_df: no begin_signature/end_signature symbols\n");
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
				fprintf(stderr, "tb_df: cannot read signature word 0x%08x\n", a);
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
