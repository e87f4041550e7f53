// tb_mesh: runs bare-metal ELFs on the tiles of the full mesh (wse_mesh)
// under Verilator. Programs are loaded through the management port (one
// tile at a time, or every tile at once by broadcast writes) or through a
// simulation backdoor straight into the RAM leaves; the tiles are released
// through TILE_CTRL and run until each has written tohost.
//
//   tb_mesh PROG.elf [--load mgmt|bcast|backdoor] [--tiles all|X,Y[:X,Y...]]
//           [--max-cycles N] [--sig-dir DIR] [--check-backdoor]
//           [--check-hartid] [--run-cycles N] [--stats]
//
// --check-backdoor  loads by backdoor and by the management port into
//                   alternate tiles, then reads every loaded word back both
//                   ways and requires the two paths to agree with the ELF.
// --check-hartid    reads mhartid of every tile through the CSR window and
//                   requires {y, x}.
// --halt-at N       halt every selected tile through TILE_CTRL after N
//                   cycles, check that it stays halted (TILE_STATUS, pc and
//                   minstret do not move), then release it again.
// --rerun           after the run, reset the cores through TILE_CTRL
//                   (CORE_RESET), release them and require a second pass.
// --run-cycles N    run exactly N cycles (no tohost wait) and report the
//                   simulation speed (BENCH lines).
// Exit status: 0 pass, 1 failure, 2 time-out, 3 usage/load error.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Vwse_mesh.h"
#include "verilated.h"
#include "verilated_syms.h"
#include "elf32.h"
#include "wse_cfg.h"  // the board's configuration (include path picks the board)

#define WSE_COLS WSE_CFG_NUM_COLS
#define WSE_ROWS WSE_CFG_NUM_ROWS
#define WSE_IMEM_BYTES WSE_CFG_IMEM_BYTES
#define WSE_DMEM_BYTES WSE_CFG_DMEM_BYTES
#define WSE_DMEM_BANKS WSE_CFG_DMEM_BANKS

// 32-bit word i of a Verilator port of any width.
template <std::size_t N> static uint32_t wword(const VlWide<N> &w, unsigned i) { return w[i]; }
static uint32_t wword(uint64_t w, unsigned i) { return i < 2 ? (uint32_t)(w >> (32 * i)) : 0; }
static bool wbit(uint64_t w, unsigned i) { return (w >> i) & 1; }

static const uint32_t kImemBase = 0x80000000u, kDmemBase = 0x80100000u;
static const uint32_t kTileCtrl = 0x4, kTileStatus = 0x8, kCsrBase = 0x10000;

static Vwse_mesh *top;
static uint64_t cycles;

static void tick()
{
	top->clk_i = 1;
	top->eval();
	top->clk_i = 0;
	top->eval();
	cycles++;
}

// ---- Management port ------------------------------------------------------------
struct MgmtRsp {
	bool ok;
	uint32_t data;
};

static MgmtRsp mgmt(bool write, bool bcast, unsigned x, unsigned y, uint32_t addr, uint32_t wdata)
{
	top->mgmt_req_valid_i = 1;
	top->mgmt_req_write_i = write;
	top->mgmt_req_bcast_i = bcast;
	top->mgmt_req_x_i = x;
	top->mgmt_req_y_i = y;
	top->mgmt_req_addr_i = addr;
	top->mgmt_req_wdata_i = wdata;
	for (int i = 0;; i++) {
		top->eval();
		if (top->mgmt_req_ready_o)
			break;
		if (i > 100000) {
			fprintf(stderr, "tb_mesh: management port never ready\n");
			exit(3);
		}
		tick();
	}
	tick();
	top->mgmt_req_valid_i = 0;
	for (int i = 0;; i++) {
		top->eval();
		if (top->mgmt_rsp_valid_o) {
			MgmtRsp r{!top->mgmt_rsp_err_o, top->mgmt_rsp_rdata_o};
			tick();
			return r;
		}
		if (i > 100000) {
			fprintf(stderr, "tb_mesh: no management response\n");
			exit(3);
		}
		tick();
	}
}

static void mgmt_write_ok(bool bcast, unsigned x, unsigned y, uint32_t addr, uint32_t data)
{
	MgmtRsp r = mgmt(true, bcast, x, y, addr, data);
	if (!r.ok && !bcast) {
		fprintf(stderr, "tb_mesh: management write to tile (%u,%u) 0x%08x failed\n", x, y, addr);
		exit(3);
	}
}

static uint32_t mgmt_read_ok(unsigned x, unsigned y, uint32_t addr)
{
	MgmtRsp r = mgmt(false, false, x, y, addr, 0);
	if (!r.ok) {
		fprintf(stderr, "tb_mesh: management read of tile (%u,%u) 0x%08x failed\n", x, y, addr);
		exit(3);
	}
	return r.data;
}

// ---- Backdoor: the RAM leaves' arrays, made public by backdoor.vlt -------------
struct TileRams {
	uint32_t *imem = nullptr;
	uint32_t *dmem[16] = {};
};
static std::vector<TileRams> rams;

static bool parse_index(const std::string &s, const std::string &key, unsigned *v)
{
	size_t p = s.find(key + "[");  // scope names read like g_row[1].g_col[2]
	if (p == std::string::npos)
		return false;
	*v = strtoul(s.c_str() + p + key.size() + 1, nullptr, 10);
	return true;
}

static void backdoor_init()
{
	rams.assign(WSE_COLS * WSE_ROWS, TileRams());
	const VerilatedScopeNameMap *m = Verilated::threadContextp()->scopeNameMap();
	for (const auto &it : *m) {
		std::string name = it.first;
		const VerilatedScope *sc = it.second;
		unsigned x, y, b = 0;
		if (!parse_index(name, "g_row", &y) || !parse_index(name, "g_col", &x))
			continue;
		if (x >= WSE_COLS || y >= WSE_ROWS)
			continue;
		VerilatedVar *v = sc->varFind("mem");
		if (!v)
			continue;
		TileRams &t = rams[y * WSE_COLS + x];
		if (name.find("u_imem") != std::string::npos)
			t.imem = (uint32_t *)v->datap();
		else if (name.find("u_dmem") != std::string::npos && parse_index(name, "gen_bank", &b) && b < 16)
			t.dmem[b] = (uint32_t *)v->datap();
	}
	for (unsigned t = 0; t < rams.size(); t++) {
		bool ok = rams[t].imem;
		for (unsigned b = 0; b < WSE_DMEM_BANKS; b++)
			ok = ok && rams[t].dmem[b];
		if (!ok) {
			fprintf(stderr, "tb_mesh: backdoor cannot find the RAM arrays of tile %u\n", t);
			exit(3);
		}
	}
}

static uint32_t *backdoor_word(unsigned t, uint32_t addr)
{
	if (addr - kImemBase < WSE_IMEM_BYTES)
		return &rams[t].imem[(addr - kImemBase) / 4];
	if (addr - kDmemBase < WSE_DMEM_BYTES) {
		uint32_t w = (addr - kDmemBase) / 4;
		return &rams[t].dmem[w % WSE_DMEM_BANKS][w / WSE_DMEM_BANKS];
	}
	return nullptr;
}

// ---- Loading ----------------------------------------------------------------------
static std::vector<std::pair<uint32_t, uint32_t>> image_words(const Elf32Image &elf)
{
	std::vector<std::pair<uint32_t, uint32_t>> w;
	for (const auto &s : elf.segments)
		for (uint32_t off = 0; off < s.memsz; off += 4) {
			uint32_t v = 0;
			for (uint32_t k = 0; k < 4; k++)
				if (off + k < s.data.size())
					v |= (uint32_t)s.data[off + k] << (8 * k);
			w.push_back({s.paddr + off, v});
		}
	return w;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	const char *elf_path = nullptr, *sig_dir = nullptr;
	std::string load = "bcast", tiles_arg = "all";
	uint64_t max_cycles = 2000000, run_cycles = 0;
	bool check_backdoor = false, check_hartid = false, stats = false, rerun = false;
	uint64_t halt_at = 0;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--load" && i + 1 < argc)
			load = argv[++i];
		else if (a == "--tiles" && i + 1 < argc)
			tiles_arg = argv[++i];
		else if (a == "--max-cycles" && i + 1 < argc)
			max_cycles = strtoull(argv[++i], nullptr, 0);
		else if (a == "--run-cycles" && i + 1 < argc)
			run_cycles = strtoull(argv[++i], nullptr, 0);
		else if (a == "--sig-dir" && i + 1 < argc)
			sig_dir = argv[++i];
		else if (a == "--check-backdoor")
			check_backdoor = true;
		else if (a == "--check-hartid")
			check_hartid = true;
		else if (a == "--stats")
			stats = true;
		else if (a == "--rerun")
			rerun = true;
		else if (a == "--halt-at" && i + 1 < argc)
			halt_at = strtoull(argv[++i], nullptr, 0);
		else if (a[0] == '+')
			continue;
		else if (!elf_path)
			elf_path = argv[i];
		else {
			fprintf(stderr, "tb_mesh: unexpected argument %s\n", argv[i]);
			return 3;
		}
	}
	if (!elf_path || (load != "mgmt" && load != "bcast" && load != "backdoor")) {
		fprintf(stderr, "usage: tb_mesh PROG.elf [--load mgmt|bcast|backdoor] [--tiles all|X,Y:...] "
				"[--max-cycles N] [--sig-dir DIR] [--check-backdoor] [--check-hartid] "
				"[--run-cycles N] [--stats]\n");
		return 3;
	}
	Elf32Image elf;
	std::string err = elf.load(elf_path);
	if (!err.empty()) {
		fprintf(stderr, "tb_mesh: %s\n", err.c_str());
		return 3;
	}
	const unsigned ntiles = WSE_COLS * WSE_ROWS;
	std::vector<bool> sel(ntiles, tiles_arg == "all");
	if (tiles_arg != "all") {
		const char *p = tiles_arg.c_str();
		while (*p) {
			unsigned x, y;
			int n = 0;
			if (sscanf(p, "%u,%u%n", &x, &y, &n) != 2 || x >= WSE_COLS || y >= WSE_ROWS) {
				fprintf(stderr, "tb_mesh: bad --tiles %s\n", tiles_arg.c_str());
				return 3;
			}
			sel[y * WSE_COLS + x] = true;
			p += n;
			if (*p == ':')
				p++;
		}
	}

	top = new Vwse_mesh;
	top->putc_ready_i = ~0ull;  // the console always takes characters here
	top->rst_ni = 0;
	top->clk_i = 0;
	top->eval();
	for (int i = 0; i < 4; i++)
		tick();
	top->rst_ni = 1;
	for (int i = 0; i < 4; i++)
		tick();

	auto words = image_words(elf);
	for (const auto &w : words)
		if (!(w.first - kImemBase < WSE_IMEM_BYTES || w.first - kDmemBase < WSE_DMEM_BYTES)) {
			fprintf(stderr, "tb_mesh: ELF word 0x%08x is outside the tile's memories\n", w.first);
			return 3;
		}
	if (check_backdoor || load == "backdoor")
		backdoor_init();
	auto t0 = std::chrono::steady_clock::now();
	uint64_t c0 = cycles;
	if (check_backdoor) {
		// Even tiles by backdoor, odd tiles through the management port.
		for (unsigned t = 0; t < ntiles; t++) {
			if (!sel[t])
				continue;
			for (const auto &w : words) {
				if (t % 2 == 0)
					*backdoor_word(t, w.first) = w.second;
				else
					mgmt_write_ok(false, t % WSE_COLS, t / WSE_COLS, w.first, w.second);
			}
		}
		unsigned bad = 0;
		for (unsigned t = 0; t < ntiles; t++) {
			if (!sel[t])
				continue;
			for (const auto &w : words) {
				uint32_t via_mgmt = mgmt_read_ok(t % WSE_COLS, t / WSE_COLS, w.first);
				uint32_t via_bd = *backdoor_word(t, w.first);
				if (via_mgmt != w.second || via_bd != w.second) {
					if (bad++ < 10)
						fprintf(stderr, "tb_mesh: tile %u word 0x%08x: elf %08x mgmt %08x backdoor %08x\n",
							t, w.first, w.second, via_mgmt, via_bd);
				}
			}
		}
		if (bad) {
			fprintf(stderr, "tb_mesh: FAIL backdoor and management paths disagree (%u words)\n", bad);
			return 1;
		}
		fprintf(stderr, "tb_mesh: backdoor and management port agree on %zu words x %u tiles\n",
			words.size(), ntiles);
	} else if (load == "backdoor") {
		for (unsigned t = 0; t < ntiles; t++)
			if (sel[t])
				for (const auto &w : words)
					*backdoor_word(t, w.first) = w.second;
	} else if (load == "bcast" && tiles_arg == "all") {
		for (const auto &w : words)
			mgmt_write_ok(true, 0, 0, w.first, w.second);
	} else {
		for (unsigned t = 0; t < ntiles; t++)
			if (sel[t])
				for (const auto &w : words)
					mgmt_write_ok(false, t % WSE_COLS, t / WSE_COLS, w.first, w.second);
	}
	uint64_t load_cycles = cycles - c0;
	double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	if (check_hartid) {
		for (unsigned t = 0; t < ntiles; t++) {
			unsigned x = t % WSE_COLS, y = t / WSE_COLS;
			uint32_t h = mgmt_read_ok(x, y, kCsrBase + 4 * 0xf14);
			if (h != (y << 8 | x)) {
				fprintf(stderr, "tb_mesh: FAIL tile (%u,%u) mhartid 0x%x\n", x, y, h);
				return 1;
			}
		}
		fprintf(stderr, "tb_mesh: mhartid = {y, x} on all %u tiles\n", ntiles);
	}

	// Release the selected tiles: TILE_CTRL = 0 (not halted, not in reset).
	std::vector<bool> done(ntiles, false);
	std::vector<uint32_t> value(ntiles, 0);
	std::vector<std::string> line(ntiles);
	std::vector<uint64_t> retired(ntiles, 0);
	unsigned remaining = 0;
	uint64_t start = cycles;
	auto run = [&](uint64_t limit, bool until_done) {
		while (cycles - start < limit && (!until_done || remaining)) {
			for (unsigned t = 0; t < ntiles; t++) {
				if (wbit(top->retire_o, t))
					retired[t]++;
				if (wbit(top->putc_valid_o, t)) {
					char c = (char)(wword(top->putc_char_o, t / 4) >> (8 * (t % 4)));
					if (c == '\n') {
						printf("[%u,%u] %s\n", t % WSE_COLS, t / WSE_COLS, line[t].c_str());
						line[t].clear();
					} else {
						line[t] += c;
					}
				}
				if (wbit(top->exit_valid_o, t) && !done[t]) {
					done[t] = true;
					value[t] = wword(top->exit_value_o, t);
					remaining -= sel[t];
				}
			}
			tick();
		}
	};
	auto release_all = [&]() {
		std::fill(done.begin(), done.end(), false);
		remaining = 0;
		for (unsigned t = 0; t < ntiles; t++)
			remaining += sel[t];
		for (unsigned t = 0; t < ntiles; t++)
			if (sel[t])
				mgmt_write_ok(false, t % WSE_COLS, t / WSE_COLS, kTileCtrl, 0);
		start = cycles;
	};
	release_all();
	auto r0 = std::chrono::steady_clock::now();
	std::clock_t cpu0 = std::clock();
	uint64_t limit = run_cycles ? run_cycles : max_cycles;
	if (halt_at && !run_cycles) {
		run(halt_at, true);
		for (unsigned t = 0; t < ntiles; t++) {
			if (!sel[t] || done[t])
				continue;
			unsigned x = t % WSE_COLS, y = t / WSE_COLS;
			mgmt_write_ok(false, x, y, kTileCtrl, 1);
			// The core stops after its current instruction (a divide takes 34
			// cycles): poll TILE_STATUS.halted.
			uint32_t st = 0;
			for (int i = 0; i < 20 && !(st & 1); i++)
				st = mgmt_read_ok(x, y, kTileStatus);
			uint32_t pc0 = mgmt_read_ok(x, y, kCsrBase + 4 * 0x7b1);
			uint32_t ir0 = mgmt_read_ok(x, y, kCsrBase + 4 * 0xb02);
			for (int i = 0; i < 200; i++)
				tick();
			uint32_t pc1 = mgmt_read_ok(x, y, kCsrBase + 4 * 0x7b1);
			uint32_t ir1 = mgmt_read_ok(x, y, kCsrBase + 4 * 0xb02);
			if (!(st & 1) || pc0 != pc1 || ir0 != ir1 || pc0 - kImemBase >= WSE_IMEM_BYTES) {
				fprintf(stderr, "tb_mesh: FAIL tile (%u,%u) does not stay halted (status %x pc %08x/%08x "
						"instret %u/%u)\n", x, y, st, pc0, pc1, ir0, ir1);
				return 1;
			}
			mgmt_write_ok(false, x, y, kTileCtrl, 0);
		}
		fprintf(stderr, "tb_mesh: tiles halted at cycle %llu stayed halted and resumed\n",
			(unsigned long long)halt_at);
	}
	run(limit, !run_cycles);
	if (rerun && !run_cycles && remaining == 0) {
		unsigned passes = 0;
		for (unsigned t = 0; t < ntiles; t++)
			passes += sel[t] && value[t] == 1;
		for (unsigned t = 0; t < ntiles; t++)
			if (sel[t])
				mgmt_write_ok(false, t % WSE_COLS, t / WSE_COLS, kTileCtrl, 3);  // halt + core reset
		for (unsigned t = 0; t < ntiles; t++)
			if (sel[t] && (mgmt_read_ok(t % WSE_COLS, t / WSE_COLS, kTileStatus) & 2)) {
				fprintf(stderr, "tb_mesh: FAIL core reset does not clear TILE_STATUS.done\n");
				return 1;
			}
		release_all();
		run(limit, true);
		fprintf(stderr, "tb_mesh: second run after CORE_RESET (first run: %u passes)\n", passes);
	}
	double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
	double run_cpu = (double)(std::clock() - cpu0) / CLOCKS_PER_SEC;
	uint64_t ran = cycles - start;
	for (unsigned t = 0; t < ntiles; t++)
		if (!line[t].empty())
			printf("[%u,%u] %s\n", t % WSE_COLS, t / WSE_COLS, line[t].c_str());
	fflush(stdout);

	if (run_cycles) {
		uint64_t ret = 0;
		for (unsigned t = 0; t < ntiles; t++)
			ret += retired[t];
		// Simulated cycles per second of the simulator's own CPU time, so
		// that other work on the machine does not distort the figure.
		printf("BENCH sim.cycles_per_second_%ux%u %.0f\n", WSE_COLS, WSE_ROWS, ran / run_cpu);
		fprintf(stderr, "tb_mesh: %llu cycles in %.3f s CPU (%.3f s wall, %.0f cycles/s wall), "
				"%llu instructions on %u tiles\n",
			(unsigned long long)ran, run_cpu, run_s, ran / run_s, (unsigned long long)ret, ntiles);
		return 0;
	}
	if (stats)
		fprintf(stderr, "tb_mesh: load (%s) %llu cycles in %.3f s; run %llu cycles in %.3f s (%.0f cycles/s)\n",
			load.c_str(), (unsigned long long)load_cycles, load_s, (unsigned long long)ran, run_s,
			ran / run_s);

	int rc = 0;
	for (unsigned t = 0; t < ntiles; t++) {
		if (!sel[t])
			continue;
		unsigned x = t % WSE_COLS, y = t / WSE_COLS;
		if (!done[t]) {
			fprintf(stderr, "tb_mesh: tile (%u,%u) TIMEOUT after %llu cycles\n", x, y, (unsigned long long)ran);
			rc = rc ? rc : 2;
			continue;
		}
		// The end is also visible in TILE_STATUS.
		uint32_t st = mgmt_read_ok(x, y, kTileStatus);
		bool passed = value[t] == 1;
		if (!(st & 2) || ((st >> 2) & 1) == passed) {
			fprintf(stderr, "tb_mesh: tile (%u,%u) TILE_STATUS 0x%08x disagrees with tohost 0x%x\n", x, y, st,
				value[t]);
			rc = 1;
		}
		if (!passed) {
			fprintf(stderr, "tb_mesh: tile (%u,%u) FAIL code %u\n", x, y, value[t] >> 1);
			rc = 1;
		}
	}
	if (rc == 0 && sig_dir) {
		uint32_t b, e;
		if (!elf.symbol("begin_signature", &b) || !elf.symbol("end_signature", &e)) {
			fprintf(stderr, "tb_mesh: no begin_signature/end_signature symbols\n");
			return 3;
		}
		// Halt the tiles, then read each signature through the port.
		for (unsigned t = 0; t < ntiles; t++) {
			if (!sel[t])
				continue;
			unsigned x = t % WSE_COLS, y = t / WSE_COLS;
			mgmt_write_ok(false, x, y, kTileCtrl, 1);
			char path[512];
			snprintf(path, sizeof(path), "%s/tile-%u-%u.sig", sig_dir, x, y);
			FILE *f = fopen(path, "w");
			if (!f) {
				perror(path);
				return 3;
			}
			for (uint32_t a = b; a < e; a += 4)
				fprintf(f, "S:%08x\n", mgmt_read_ok(x, y, a));
			fclose(f);
		}
	}
	if (rc == 0)
			fprintf(stderr, "tb_mesh: PASS on %u tiles\n", (unsigned)std::count(sel.begin(), sel.end(), true));
	top->final();
	delete top;
	return rc;
}
