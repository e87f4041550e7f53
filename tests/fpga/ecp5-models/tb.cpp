// The ECP5 primitive models' check (tests/fpga/ecp5-models/check.sh):
// random inputs into the RTL of ecp5_models_dut and its synth_ecp5
// netlist side by side (ecp5_models_tb.sv); every output must agree on
// every cycle once its port has read. Addresses fall in a 16-word window
// half the time, so reads often meet the words just written.
//   tb CYCLES SEED    exit 0 all agree, 1 a difference (printed)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "Vecp5_models_tb.h"
#include "verilated.h"

namespace {

// The stimulus, packed from its most significant field down, as the
// testbench's concatenation unpacks it.
struct Packer {
	uint32_t w[8] = {};
	unsigned pos = 256;
	void put(unsigned width, uint64_t v)
	{
		pos -= width;
		for (unsigned i = 0; i < width; i++)
			if ((v >> i) & 1) w[(pos + i) / 32] |= 1u << ((pos + i) % 32);
	}
};

// The output fields (bit offset, width, name) and which port's read makes them valid.
struct Field {
	unsigned lsb, width;
	const char *name;
	int valid;  // index into the valid flags, -1 always valid
};
const Field fields[] = {
	{185, 36, "a_rdata", 0}, {167, 18, "b0_rdata", 1}, {149, 18, "b1_rdata", 2},
	{145, 4, "c_rdata", 3},  {136, 9, "d_rdata", 4},   {100, 36, "m_signed", -1},
	{64, 36, "m_unsigned", -1}, {0, 64, "m_wide", -1},
};

uint64_t field(const VlWide<7> &v, unsigned lsb, unsigned width)
{
	uint64_t r = 0;
	for (unsigned i = 0; i < width; i++)
		r |= (uint64_t)((v[(lsb + i) / 32] >> ((lsb + i) % 32)) & 1) << i;
	return r;
}

}  // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tb CYCLES SEED\n");
		return 2;
	}
	long cycles = atol(argv[1]);
	std::mt19937_64 rng(strtoull(argv[2], nullptr, 0));
	Verilated::commandArgs(1, argv);
	Vecp5_models_tb top;
	auto bits = [&](unsigned n) { return n >= 64 ? rng() : rng() & ((1ull << n) - 1); };
	auto addr = [&](unsigned n) { return (rng() & 1) ? bits(n) : (bits(4) | 0x20); };
	bool valid[5] = {};
	long checked = 0;
	for (long c = 0; c < cycles; c++) {
		Packer p;
		bool b0_en = bits(1), b1_en = bits(1), d_re = bits(1);
		p.put(4, 0);
		p.put(1, bits(1)); p.put(4, bits(4)); p.put(9, addr(9)); p.put(36, bits(36)); p.put(9, addr(9));
		p.put(1, b0_en); p.put(1, bits(1)); p.put(1, b1_en); p.put(2, bits(2));
		p.put(10, addr(10)); p.put(10, addr(10)); p.put(18, bits(18));
		p.put(1, bits(1)); p.put(12, addr(12)); p.put(4, bits(4));
		p.put(1, bits(1)); p.put(1, d_re); p.put(11, addr(11)); p.put(11, addr(11)); p.put(9, bits(9));
		p.put(18, bits(18)); p.put(18, bits(18)); p.put(32, bits(32)); p.put(32, bits(32));
		for (int i = 0; i < 8; i++) top.stim_i[i] = p.w[i];
		top.clk_i = 0;
		top.eval();
		// The multipliers settle before the edge.
		for (const Field &f : fields) {
			if (f.valid >= 0 && !valid[f.valid]) continue;
			uint64_t r = field(top.rtl_o, f.lsb, f.width), g = field(top.gl_o, f.lsb, f.width);
			checked++;
			if (r != g) {
				fprintf(stderr, "ecp5-models: cycle %ld: %s: RTL 0x%llx, netlist 0x%llx\n", c, f.name,
					(unsigned long long)r, (unsigned long long)g);
				return 1;
			}
		}
		top.clk_i = 1;
		top.eval();
		valid[0] = valid[3] = true;
		valid[1] |= b0_en;
		valid[2] |= b1_en;
		valid[4] |= d_re;
	}
	printf("ecp5-models: %ld cycles, %ld output fields agree (RTL and synth_ecp5 netlist)\n", cycles,
	       checked);
	return 0;
}
