// Mesh smoke test: management accesses (registers, routes, errors,
// broadcast) and a wavelet crossing a row from the west to the east edge.
#include "Vwse_fabric_mesh.h"
#include "tb_util.h"

#ifndef COLS
#define COLS 2
#endif
#ifndef ROWS
#define ROWS 2
#endif
#ifndef NUM_VC
#define NUM_VC 4
#endif
static const int WW = 38;

static Vwse_fabric_mesh *m;
static uint64_t cyc;

static void tick() {
	m->eval();
	m->clk_i = 1; m->eval(); m->clk_i = 0; m->eval();
	cyc++;
}

struct Rsp { uint32_t rdata; bool err; int cycles; };

static Rsp mgmt(bool write, unsigned x, unsigned y, uint32_t addr, uint32_t wdata, bool bcast = false) {
	while (!m->mgmt_req_ready_o) tick();
	m->mgmt_req_valid_i = 1; m->mgmt_req_write_i = write; m->mgmt_req_bcast_i = bcast;
	m->mgmt_req_x_i = x; m->mgmt_req_y_i = y; m->mgmt_req_addr_i = addr; m->mgmt_req_wdata_i = wdata;
	tick();
	m->mgmt_req_valid_i = 0;
	int n = 1;
	while (!m->mgmt_rsp_valid_o) { tick(); n++; if (n > 10000) { printf("FAIL mgmt timeout\n"); exit(1); } }
	Rsp r = {m->mgmt_rsp_rdata_o, (bool)m->mgmt_rsp_err_o, n};
	return r;
}

int main(int argc, char **argv) {
	Verilated::commandArgs(argc, argv);
	m = new Vwse_fabric_mesh;
	m->rst_ni = 0; m->clk_i = 0; m->eval();
	for (int i = 0; i < 3; i++) tick();
	m->rst_ni = 1;
	for (int i = 0; i < 3; i++) tick();

	// TILE_ID of every tile, and the access latency.
	int lat = 0;
	for (unsigned y = 0; y < ROWS; y++)
		for (unsigned x = 0; x < COLS; x++) {
			Rsp r = mgmt(false, x, y, 0x0, 0);
			CHECK(!r.err && r.rdata == (0x57530000u | (y << 8) | x), "TILE_ID (%u,%u) = %08x err %d", x, y, r.rdata, r.err);
			lat = r.cycles;
		}
	printf("BENCH fabric.mgmt_read_latency_%dx%d %d cycles\n", COLS, ROWS, lat);

	// Errors: write to RO, unmapped, unaligned, tile bus, no such tile, bcast read.
	CHECK(mgmt(true, 0, 0, 0x0, 1).err, "write TILE_ID must err");
	CHECK(mgmt(false, 0, 0, 0x3000, 0).err, "unmapped must err");
	CHECK(mgmt(false, 0, 0, 0x1002, 0).err, "unaligned must err");
	CHECK(mgmt(false, 1, 0, 0x10000, 0).err, "tile bus must err with nothing attached");
	CHECK(mgmt(true, 1, 0, 0x80000000u, 5).err, "memory write must err with nothing attached");
	CHECK(mgmt(false, COLS, 0, 0x0, 0).err, "no such tile must err");
	CHECK(mgmt(false, 0, 0, 0x4, 0, true).err, "broadcast read must err");
	CHECK(mgmt(true, 0, 0, 0x2000, 0).err, "write counter must err");
	CHECK(mgmt(false, 0, 0, 0x2050, 0).err, "counter of port 5 unmapped");
	CHECK(mgmt(false, 0, 0, 0x200C, 0).err, "counter slot 3 unmapped");

	// TILE_CTRL: halted after reset; broadcast release.
	CHECK(m->tile_halt_o == (1u << (COLS * ROWS)) - 1, "halted after reset");
	Rsp r = mgmt(false, 1, 1, 0x4, 0);
	CHECK(!r.err && r.rdata == 1, "TILE_CTRL after reset %08x", r.rdata);
	r = mgmt(true, 0, 0, 0x4, 0x0, true);
	CHECK(!r.err, "broadcast write");
	CHECK(m->tile_halt_o == 0, "released by broadcast: %x", m->tile_halt_o);
	r = mgmt(false, 1, 1, 0x8, 0);
	CHECK(!r.err && r.rdata == 0, "TILE_STATUS %08x", r.rdata);
	r = mgmt(true, 1, 0, 0x4, 0x3);
	CHECK(m->tile_halt_o == 2 && m->tile_core_rst_o == 2, "unicast TILE_CTRL %x %x", m->tile_halt_o, m->tile_core_rst_o);

	// Route color 5 across row 0: W port of (0,0) to E port of (COLS-1,0).
	for (unsigned x = 0; x < COLS; x++) {
		r = mgmt(true, x, 0, 0x1000 + 4 * 5, (1u << (8 + 3)) | (1u << 1));
		CHECK(!r.err, "route write");
		r = mgmt(false, x, 0, 0x1000 + 4 * 5, 0);
		CHECK(!r.err && r.rdata == ((1u << 11) | 2u), "route read back %08x", r.rdata);
	}
	m->east_out_credit_i = 0;
	set_bits(m->west_in_data_i, 0, WW, wavelet(5, 0xabcd));
	m->west_in_valid_i = 1;
	tick();
	m->west_in_valid_i = 0;
	int hops = 1;
	while (!(m->east_out_valid_o & 1) && hops < 100) { tick(); hops++; }
	CHECK((m->east_out_valid_o & 1) && get_bits(m->east_out_data_o, 0, 32) == 0xabcd, "row crossing");
	printf("BENCH fabric.row_crossing_%d_tiles %d cycles\n", COLS, hops);
	CHECK(hops == COLS, "one cycle per hop: %d cycles for %d routers", hops, COLS);
	set_bits(m->east_out_credit_i, 5 / 8, 1, 1);   // return the credit (VC0)
	tick();
	m->east_out_credit_i = 0;

	r = mgmt(false, COLS - 1, 0, 0x2000 + 16 * 1, 0);
	CHECK(!r.err && r.rdata == 1, "CNT_FWD[E] = %u", r.rdata);
	// Dropped: color 6 has no route.
	set_bits(m->west_in_data_i, 0, WW, wavelet(6, 1));
	m->west_in_valid_i = 1; tick(); m->west_in_valid_i = 0;
	for (int i = 0; i < 4; i++) tick();
	r = mgmt(false, 0, 0, 0x2000 + 16 * 3 + 8, 0);
	CHECK(!r.err && r.rdata == 1, "CNT_DROP[W] = %u", r.rdata);
	r = mgmt(true, 0, 0, 0x4, 0x4);
	r = mgmt(false, 0, 0, 0x2000 + 16 * 3 + 8, 0);
	CHECK(!r.err && r.rdata == 0, "CNT_CLEAR: CNT_DROP[W] = %u", r.rdata);

	m->final();
	delete m;
	if (g_fail) { printf("mesh smoke: FAIL\n"); return 1; }
	printf("mesh smoke: PASS\n");
	return 0;
}
