// Router smoke test: zero-load hop latency, full-rate streaming, multicast,
// drops and counters, RAMP per-color credits. Prints BENCH-style figures.
#include "Vwse_router.h"
#include "tb_util.h"
#include <vector>
#include <deque>

#include "wse_cfg.h" /* the board the router is built for */
#define NUM_VC ((int)WSE_CFG_NUM_VC)
#define VC_DEPTH ((int)WSE_CFG_VC_DEPTH)
#define RAMP_DEPTH ((int)WSE_CFG_RAMP_COLOR_DEPTH)
static const int WW = 38;

static unsigned vc_of(unsigned color) { return color / 8; }  // board map

struct Rx { int port; uint64_t w; uint64_t cycle; };

struct Tb {
	Vwse_router *r;
	uint64_t cyc = 0;
	int in_cred[5][NUM_VC];           // source credits per input port
	std::deque<uint64_t> src[5];      // wavelets to send per input port
	std::deque<uint64_t> srcv[5][NUM_VC]; // per VC, so one VC cannot block another
	unsigned rr[5] = {};
	bool sink_hold[5] = {};           // sink withholds credits
	int held[5][32] = {};             // credits withheld per output, per buffer
	std::vector<Rx> rx;
	Tb() {
		r = new Vwse_router;
		for (int p = 0; p < 5; p++) for (int v = 0; v < NUM_VC; v++) in_cred[p][v] = VC_DEPTH;
		r->clk_i = 0; r->rst_ni = 0; r->eval();
		for (int i = 0; i < 3; i++) { r->clk_i = 1; r->eval(); r->clk_i = 0; r->eval(); }
		r->rst_ni = 1; r->eval();
	}
	void route(unsigned color, unsigned rx_mask, unsigned tx_mask) {
		r->route_we_i = 1; r->route_color_i = color; r->route_wdata_i = (rx_mask << 5) | tx_mask;
		step();
		r->route_we_i = 0;
	}
	void step() {
		// Outputs of this cycle.
		for (int p = 0; p < 4; p++) {
			for (int v = 0; v < NUM_VC; v++)
				if (get_bits(r->link_in_credit_o, p * NUM_VC + v, 1)) in_cred[p][v]++;
		}
		for (int v = 0; v < NUM_VC; v++) if (get_bits(r->ramp_in_credit_o, v, 1)) in_cred[4][v]++;
		r->link_out_credit_i = 0;
		r->ramp_out_credit_i = 0;
		for (int o = 0; o < 5; o++) {
			bool valid = o < 4 ? get_bits(r->link_out_valid_o, o, 1) : r->ramp_out_valid_o;
			uint64_t w = o < 4 ? get_bits(r->link_out_data_o, o * WW, WW) : get_bits(r->ramp_out_data_o, 0, WW);
			unsigned color = (w >> 32) & 31;
			int buf = o < 4 ? (int)vc_of(color) : (int)color;
			if (valid) { rx.push_back({o, w, cyc}); held[o][buf]++; }
			if (!sink_hold[o]) {
				// Return one withheld credit per buffer per cycle.
				for (int b = 0; b < (o < 4 ? NUM_VC : 32); b++) {
					if (held[o][b] > 0) {
						held[o][b]--;
						if (o < 4) set_bits(r->link_out_credit_i, o * NUM_VC + b, 1, 1);
						else set_bits(r->ramp_out_credit_i, b, 1, 1);
					}
				}
			}
		}
		// Inputs for this cycle.
		r->link_in_valid_i = 0; r->ramp_in_valid_i = 0;
		for (int p = 0; p < 5; p++) {
			while (!src[p].empty()) {
				uint64_t x = src[p].front();
				srcv[p][vc_of((x >> 32) & 31)].push_back(x);
				src[p].pop_front();
			}
			int v = -1;
			for (int k = 0; k < NUM_VC; k++) {
				int c = (rr[p] + k) % NUM_VC;
				if (!srcv[p][c].empty() && in_cred[p][c] > 0) { v = c; break; }
			}
			if (v < 0) continue;
			rr[p] = v + 1;
			uint64_t w = srcv[p][v].front();
			srcv[p][v].pop_front();
			in_cred[p][v]--;
			if (p < 4) { set_bits(r->link_in_valid_i, p, 1, 1); set_bits(r->link_in_data_i, p * WW, WW, w); }
			else { r->ramp_in_valid_i = 1; set_bits(r->ramp_in_data_i, 0, WW, w); }
		}
		r->eval();
		r->clk_i = 1; r->eval(); r->clk_i = 0; r->eval();
		cyc++;
	}
	void run(int n) { for (int i = 0; i < n; i++) step(); }
	uint32_t cnt(const char *which, int p) {
		if (which[0] == 'f') return get_bits(r->cnt_fwd_o, p * 32, 32);
		if (which[0] == 's') return get_bits(r->cnt_stall_o, p * 32, 32);
		return get_bits(r->cnt_drop_o, p * 32, 32);
	}
};

int main(int argc, char **argv) {
	Verilated::commandArgs(argc, argv);
	Tb t;
	// Color 3 (VC0): W -> E. Color 9 (VC1): RAMP -> N,E,S,W (multicast).
	// Color 17 (VC2): accepted only from N. Color 20: rx from W, tx RAMP.
	t.route(3, 1u << 3, 1u << 1);
	t.route(9, 1u << 4, 0xF);
	t.route(17, 1u << 0, 1u << 2);
	t.route(20, 1u << 3, 1u << 4);
	t.run(2);

	// Zero-load hop latency.
	t.rx.clear();
	uint64_t t0 = t.cyc;
	t.src[3].push_back(wavelet(3, 0x1234));
	t.run(4);
	CHECK(t.rx.size() == 1 && t.rx[0].port == 1 && (t.rx[0].w & 0xffffffff) == 0x1234, "W->E wavelet");
	uint64_t lat = t.rx.empty() ? 0 : t.rx[0].cycle - t0;
	printf("BENCH fabric.router_hop_latency %llu cycles\n", (unsigned long long)lat);
	CHECK(lat == 1, "hop latency %llu != 1", (unsigned long long)lat);

	// Full-rate stream W -> E.
	t.rx.clear();
	for (int i = 0; i < 200; i++) t.src[3].push_back(wavelet(3, i));
	t0 = t.cyc;
	t.run(210);
	CHECK(t.rx.size() == 200, "stream: got %zu", t.rx.size());
	for (size_t i = 0; i < t.rx.size(); i++) CHECK((t.rx[i].w & 0xffffffff) == i, "order");
	uint64_t span = t.rx.back().cycle - t.rx.front().cycle + 1;
	printf("BENCH fabric.router_port_throughput %.3f wavelets/cycle\n", 200.0 / span);
	CHECK(span == 200, "stream span %llu", (unsigned long long)span);

	// Multicast from RAMP to four ports.
	t.rx.clear();
	for (int i = 0; i < 10; i++) t.src[4].push_back(wavelet(9, 100 + i));
	t.run(20);
	int per[5] = {};
	for (auto &x : t.rx) per[x.port]++;
	CHECK(per[0] == 10 && per[1] == 10 && per[2] == 10 && per[3] == 10, "multicast %d %d %d %d", per[0], per[1], per[2], per[3]);

	// Multicast with one branch stalled: the others get what the queue
	// allows, nothing is lost, and all arrive once the branch resumes.
	t.rx.clear();
	t.sink_hold[2] = true;
	for (int i = 0; i < 20; i++) t.src[4].push_back(wavelet(9, 200 + i));
	t.run(30);
	int n_s = 0, n_e = 0;
	for (auto &x : t.rx) { if (x.port == 2) n_s++; if (x.port == 1) n_e++; }
	CHECK(n_s == VC_DEPTH && n_e < 20, "stalled branch: S %d E %d", n_s, n_e);
	t.sink_hold[2] = false;
	t.run(40);
	for (int p = 0; p < 5; p++) per[p] = 0;
	for (auto &x : t.rx) per[x.port]++;
	CHECK(per[0] == 20 && per[1] == 20 && per[2] == 20 && per[3] == 20, "multicast resumed %d %d %d %d", per[0], per[1], per[2], per[3]);

	// Drops: color 17 arriving from E is not in its rx mask.
	uint32_t d0 = t.cnt("drop", 1);
	t.rx.clear();
	for (int i = 0; i < 7; i++) t.src[1].push_back(wavelet(17, i));
	t.run(20);
	CHECK(t.rx.empty(), "dropped wavelets must not leave");
	CHECK(t.cnt("drop", 1) - d0 == 7, "drop count %u", t.cnt("drop", 1) - d0);
	CHECK(t.in_cred[1][2] == VC_DEPTH, "credits of dropped wavelets returned");

	// RAMP per-color credits: an unread color at the RAMP (color 20, VC2)
	// does not block color 3 (VC0) on the same input, nor the RAMP output
	// for another color.
	t.route(4, 1u << 3, 1u << 4);   // color 4, VC0: W -> RAMP
	t.rx.clear();
	t.sink_hold[4] = true;
	for (int i = 0; i < 10; i++) t.src[3].push_back(wavelet(20, i));
	t.run(15);
	t.sink_hold[4] = false;
	// Keep color 20 unread: hold only its credits from now on.
	int held20 = t.held[4][20];
	t.held[4][20] = 0;
	for (int i = 0; i < 10; i++) t.src[3].push_back(wavelet(4, 50 + i));
	t.run(30);
	int n4 = 0, n20 = 0;
	for (auto &x : t.rx) { unsigned c = (x.w >> 32) & 31; if (c == 4) n4++; if (c == 20) n20++; }
	CHECK(n20 == RAMP_DEPTH, "unread color delivered %d (expected %d)", n20, RAMP_DEPTH);
	(void)held20;
	CHECK(n4 == 10, "color 4 blocked by unread color 20: %d of 10", n4);
	printf("ramp isolation: color20 %d delivered, color4 %d delivered\n", n20, n4);

	printf("fwd E %u stall S %u drop E %u\n", t.cnt("fwd", 1), t.cnt("stall", 2), t.cnt("drop", 1));
	t.r->final();
	delete t.r;
	if (g_fail) { printf("router smoke: FAIL\n"); return 1; }
	printf("router smoke: PASS\n");
	return 0;
}
