// tb_mesh_df: runs one bare-metal ELF on every tile of the fabric mesh with
// dataflow PEs (tb_mesh_df.sv). Loads the ELF into each PE, writes the route
// tables from a file (lines "x y color rx tx", masks as numbers; bit i =
// port i, N=0 E=1 S=2 W=3 RAMP=4) through the management port, releases
// all cores and runs until every tile has exited.
//   tb_mesh_df PROG.elf ROUTES [--max-cycles N]
// Exit status: 0 every tile passed, 1 a tile failed, 2 time-out, 3 setup.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Vtb_mesh_df.h"
#include "verilated.h"
#include "elf32.h"
#include "wse_cfg.h"

static Vtb_mesh_df *top;
static uint64_t cycles;
static const unsigned T = WSE_CFG_NUM_COLS * WSE_CFG_NUM_ROWS;
static std::vector<std::string> console(T);

// Word i of a wide output; an output of up to 32 bits (4 tiles' putc
// characters) is a plain integer.
static uint32_t word(uint32_t v, unsigned) { return v; }
template <std::size_t N> static uint32_t word(const VlWide<N> &v, unsigned i) { return v[i]; }

static void tick()
{
	top->clk_i = 1;
	top->eval();
	top->clk_i = 0;
	top->eval();
	cycles++;
}

static bool mem_write(unsigned t, uint32_t addr, uint32_t data)
{
	top->mem_tile_i = t;
	top->mem_req_i = 1;
	top->mem_we_i = 1;
	top->mem_addr_i = addr;
	top->mem_wdata_i = data;
	for (int i = 0; i < 100; i++) {
		top->eval();
		if (top->mem_gnt_o) {
			tick();
			top->mem_req_i = 0;
			top->eval();
			return true;
		}
		tick();
	}
	top->mem_req_i = 0;
	return false;
}

static bool mgmt_write(unsigned x, unsigned y, uint32_t addr, uint32_t data)
{
	top->mgmt_req_valid_i = 1;
	top->mgmt_req_write_i = 1;
	top->mgmt_req_x_i = x;
	top->mgmt_req_y_i = y;
	top->mgmt_req_addr_i = addr;
	top->mgmt_req_wdata_i = data;
	int i;
	for (i = 0; i < 1000; i++) {
		top->eval();
		bool rdy = top->mgmt_req_ready_o;
		tick();
		if (rdy)
			break;
	}
	top->mgmt_req_valid_i = 0;
	for (i = 0; i < 10000; i++) {
		top->eval();
		if (top->mgmt_rsp_valid_o) {
			bool err = top->mgmt_rsp_err_o;
			tick();
			return !err;
		}
		tick();
	}
	return false;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	const char *elf_path = nullptr, *routes = nullptr;
	uint64_t max_cycles = 2000000;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--max-cycles" && i + 1 < argc)
			max_cycles = strtoull(argv[++i], nullptr, 0);
		else if (a[0] == '+')
			continue;
		else if (!elf_path)
			elf_path = argv[i];
		else if (!routes)
			routes = argv[i];
	}
	if (!elf_path || !routes) {
		fprintf(stderr, "usage: tb_mesh_df PROG.elf ROUTES [--max-cycles N]\n");
		return 3;
	}
	Elf32Image elf;
	std::string err = elf.load(elf_path);
	if (!err.empty()) {
		fprintf(stderr, "tb_mesh_df: %s\n", err.c_str());
		return 3;
	}
	top = new Vtb_mesh_df;
	top->halt_i = 1;
	top->rst_ni = 0;
	top->eval();
	tick();
	tick();
	top->rst_ni = 1;
	for (int i = 0; i < 4; i++)
		tick();

	for (unsigned t = 0; t < T; t++)
		for (const auto &s : elf.segments)
			for (uint32_t off = 0; off < s.memsz; off += 4) {
				uint32_t w = 0;
				for (uint32_t k = 0; k < 4; k++)
					if (off + k < s.data.size())
						w |= (uint32_t)s.data[off + k] << (8 * k);
				if (!mem_write(t, s.paddr + off, w)) {
					fprintf(stderr, "tb_mesh_df: load of tile %u failed\n", t);
					return 3;
				}
			}
	FILE *rf = fopen(routes, "r");
	if (!rf) {
		perror(routes);
		return 3;
	}
	char line[256];
	unsigned nroutes = 0;
	while (fgets(line, sizeof line, rf)) {
		unsigned x, y, c, rx, tx;
		if (line[0] == '#' || sscanf(line, "%u %u %u %u %u", &x, &y, &c, &rx, &tx) != 5)
			continue;
		if (!mgmt_write(x, y, 0x1000u + 4u * c, (rx << 8) | tx)) {
			fprintf(stderr, "tb_mesh_df: route write (%u,%u) color %u failed\n", x, y, c);
			return 3;
		}
		nroutes++;
	}
	fclose(rf);

	top->halt_i = 0;
	uint64_t start = cycles;
	std::vector<int> exitv(T, -1);
	unsigned ndone = 0;
	while (cycles - start < max_cycles && ndone < T) {
		top->eval();
		for (unsigned t = 0; t < T; t++) {
			if ((top->putc_valid_o >> t) & 1)
				console[t] += (char)((word(top->putc_char_o, t / 4) >> (8 * (t % 4))) & 0xff);
			if (((top->exit_valid_o >> t) & 1) && exitv[t] < 0) {
				exitv[t] = (int)top->exit_value_o[t];
				ndone++;
			}
		}
		tick();
	}
	int rc = 0;
	for (unsigned t = 0; t < T; t++) {
		if (!console[t].empty())
			printf("[%u,%u] %s%s", t % WSE_CFG_NUM_COLS, t / WSE_CFG_NUM_COLS, console[t].c_str(),
			       console[t].back() == '\n' ? "" : "\n");
		if (exitv[t] < 0) {
			fprintf(stderr, "tb_mesh_df: tile (%u,%u) TIMEOUT\n", t % WSE_CFG_NUM_COLS, t / WSE_CFG_NUM_COLS);
			rc = rc ? rc : 2;
		} else if (exitv[t] != 1) {
			fprintf(stderr, "tb_mesh_df: tile (%u,%u) FAIL code %d\n", t % WSE_CFG_NUM_COLS,
				t / WSE_CFG_NUM_COLS, exitv[t] >> 1);
			rc = 1;
		}
	}
	fprintf(stderr, "tb_mesh_df: %u routes, %llu cycles, %u/%u tiles passed\n", nroutes,
		(unsigned long long)(cycles - start), rc ? 0 : T, T);
	top->final();
	delete top;
	return rc;
}
