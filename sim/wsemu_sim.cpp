// wsemu-sim: the Verilator model of one board (wse_top built for the board's
// .dts) serving the link protocol on a Unix socket. docs/wsemu-sim.md.
//
//   wsemu-sim --board NAME --socket PATH [--trace FILE.fst]
//             [--max-cycles N]
//             [--fault link:X,Y,DIR | --fault dmem:X,Y,ADDR,BIT[,V] | --fault mgmt:X,Y]...
//             [--flash-bytes N] [--flash-file PATH] [--flash-cycles ERASE,PROGRAM]
//             [--fault flash:N[,kill|off]] [--quiet]
//   wsemu-sim --board NAME --pcie-regs PATH --pcie-ram PATH --pcie-ram-bytes N
//             [--pcie-doorbell PATH] [...]
//
// With --pcie-regs the model's PCIe device side (wse_top's PcieEp, strapped
// on with pcie_sel_i) serves a QEMU guest instead of the socket: BAR 0 is
// the shared register file PATH (64 KiB, the guest's ivshmem BAR 2), the
// DMA port reads and writes the guest's RAM, the file of --pcie-ram (N
// bytes), and with --pcie-doorbell the server is the ivshmem server of
// QEMU's ivshmem-doorbell, which sends the model's MSI-X vectors
// (sim/sim_pcie.h, sim/common/pcie_shm.h; docs/wsemu-sim.md). The model
// runs while it has work; otherwise it looks at the register file every
// 200 us.
//
// Options are also taken from $WSEMU_SIM_OPTS (before the command line's),
// so that a simulator spawned by libwsehost can be given a fault or a trace.
//
// Faults (simulation only, through Verilator hooks declared in
// sim/wsemu_sim.vlt; the RTL has no fault ports): a cut link forces the
// output valid of a tile's link port to 0 (the wavelet and its credit are
// lost: the router counts it as sent, the neighbour never sees it, and the
// port stalls once its credits are gone); a stuck DMEM bit is rewritten
// after every clock edge, so every read sees the stuck value.
//
// Flash (--flash-bytes): the device top's SPI pins go to the behavioural
// SPI NOR part of sim/spi_flash_model.h, clocked with the link clock,
// whose array is a file (default: the socket's path with .flash appended)
// mapped into memory, so a restarted simulator finds it as the last one
// left it. --fault flash:N cuts the power after N bytes written (erased or
// programmed, counted from the start, in the order the part writes them):
// kill (the default) ends the simulator with SIGKILL in the middle of the
// operation that writes byte N+1; off turns the part off there and the
// simulator runs on.
//
// Timing rule: simulated time advances only while the device has work:
// link words in flight in either direction (host bytes already received,
// device words not yet delivered), a tile core running, or within
// IdleCycles cycles of the last link word or stream wavelet. When none
// holds, the simulator blocks on the socket without advancing time. Host
// bytes that arrive while the device runs enter the link at the next cycle
// boundary at which the simulator polls (every PollCycles cycles).
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "Vwse_top.h"
#include "verilated.h"
#include "verilated_syms.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "wsemu/wse_codec.h"
}
#include "sim_socket.h"
#include "sim_args.h"
#include "sim_flash_file.h"
#if WSEMU_SIM_PCIE
#include "sim_pcie.h"
#endif
#include "wse_cfg.h"
#include "wsemu/wse_wire.h"

namespace {

const uint64_t IdleCycles = 4000;
// Cycles after the host interface's busy falls: words still in the
// transmitter and the clock-crossing FIFO.
const uint64_t DrainCycles = 64;
const uint64_t PollCycles = 8;

struct LinkWord {
	uint64_t data;
	uint64_t ready_at;  // cycle from which the word may move
	bool last;          // device words: the packet's trailer
};

Vwse_top *top;
uint64_t cycle;
volatile sig_atomic_t stop_signal;

// ---- fault injection --------------------------------------------------------

const uint32_t DmemBase = 0x80100000u;  // docs/core.md, memory map
const char *const DirName[4] = {"N", "E", "S", "W"};  // WSE_PORT_* order

struct StuckBit {
	uint32_t *word;  // the bank word of the model
	uint32_t mask;
	bool value;
};
std::vector<StuckBit> stuck_bits;

struct CutLink {
	uint8_t *out_valid;  // the router's out_valid_q (N, E, S, W, RAMP)
	uint8_t mask;
};
std::vector<CutLink> cut_links;

std::vector<uint8_t *> lost_tbus;  // management nodes' busy_q, kept at 0

// The flash (none without --flash-bytes: MISO high, no part answers).
SimFlash flash("wsemu-sim");

[[noreturn]] void fault_error(const std::string &spec, const std::string &why)
{
	fprintf(stderr, "wsemu-sim: --fault %s: %s\n", spec.c_str(), why.c_str());
	fprintf(stderr, "wsemu-sim: fault forms: link:X,Y,DIR (DIR = N, E, S or W: cut the output "
			"of tile (X,Y) towards DIR), dmem:X,Y,ADDR,BIT[,0|1] (DMEM word at core "
			"address ADDR of tile (X,Y): bit BIT stuck at 1, or at 0), mgmt:X,Y (the "
			"management node of tile (X,Y) never completes a tile-side bus access: DMEM, "
			"IMEM, CSR), flash:N[,kill|off] (power cut after N bytes written to the "
			"flash: the simulator killed, or the part alone off)\n");
	exit(3);
}

// Split "a,b,c" into fields; every field must be non-empty.
std::vector<std::string> fields(const std::string &spec, const std::string &s)
{
	std::vector<std::string> f;
	size_t p = 0;
	for (;;) {
		size_t c = s.find(',', p);
		f.push_back(s.substr(p, c == std::string::npos ? std::string::npos : c - p));
		if (f.back().empty()) fault_error(spec, "empty field");
		if (c == std::string::npos) break;
		p = c + 1;
	}
	return f;
}

uint32_t number(const std::string &spec, const std::string &what, const std::string &s, uint64_t max)
{
	char *end = nullptr;
	errno = 0;
	unsigned long long v = strtoull(s.c_str(), &end, 0);
	if (errno || !end || *end || s[0] == '-' || v > max)
		fault_error(spec, what + " '" + s + "' is not a number from 0 to " + std::to_string(max));
	return (uint32_t)v;
}

// The byte-sized register VAR of tile (X,Y)'s fabric part INST (a hook of
// sim/wsemu_sim.vlt), or a --fault error naming the WHAT hook.
uint8_t *fabric_flag(const std::string &spec, uint32_t x, uint32_t y, const char *inst,
		     const char *var, const char *what)
{
	char scope[128];
	snprintf(scope, sizeof(scope), "TOP.wse_top.u_mesh.g_row[%u].g_col[%u].u_tile.u_fabric.%s",
		 y, x, inst);
	const VerilatedScope *sc = Verilated::scopeFind(scope);
	VerilatedVar *v = sc ? sc->varFind(var) : nullptr;
	if (!v || v->vltype() != VLVT_UINT8)
		fault_error(spec, std::string("this model has no ") + what + " hook at " + scope);
	return (uint8_t *)v->datap();
}

// Apply one --fault SPEC to the model (before reset).
void add_fault(const std::string &spec)
{
	size_t colon = spec.find(':');
	if (colon == std::string::npos)
		fault_error(spec, "missing 'link:', 'dmem:', 'mgmt:' or 'flash:'");
	std::string kind = spec.substr(0, colon);
	std::vector<std::string> f = fields(spec, spec.substr(colon + 1));
	if (kind == "flash") {
		std::string why;
		if (!flash.fault(spec.substr(colon + 1), &why)) fault_error(spec, why);
		return;
	}
	if (kind != "link" && kind != "dmem" && kind != "mgmt")
		fault_error(spec, "unknown fault kind '" + kind + "'");
	if (f.size() < (kind == "mgmt" ? 2u : 3u)) fault_error(spec, "too few fields");
	uint32_t x = number(spec, "X", f[0], WSE_CFG_NUM_COLS - 1);
	uint32_t y = number(spec, "Y", f[1], WSE_CFG_NUM_ROWS - 1);
	unsigned t = y * WSE_CFG_NUM_COLS + x;
	char where[64];
	snprintf(where, sizeof(where), "tile (%u,%u)", x, y);
	if (kind == "mgmt") {
		if (f.size() != 2) fault_error(spec, "mgmt takes X,Y");
		lost_tbus.push_back(fabric_flag(spec, x, y, "u_mgmt", "busy_q", "management"));
		return;
	}
	if (kind == "link") {
		if (f.size() != 3) fault_error(spec, "link takes X,Y,DIR");
		std::string d = f[2];
		for (auto &c : d) c = (char)toupper((unsigned char)c);
		int dir = -1;
		for (int i = 0; i < 4; i++)
			if (d == DirName[i]) dir = i;
		if (d == "NORTH") dir = WSE_PORT_NORTH;
		if (d == "EAST") dir = WSE_PORT_EAST;
		if (d == "SOUTH") dir = WSE_PORT_SOUTH;
		if (d == "WEST") dir = WSE_PORT_WEST;
		if (dir < 0) fault_error(spec, "direction '" + f[2] + "' is not N, E, S or W");
		if ((dir == WSE_PORT_NORTH && y == 0) || (dir == WSE_PORT_SOUTH && y == WSE_CFG_NUM_ROWS - 1))
			fault_error(spec, std::string(where) + " has no " + (dir ? "south" : "north") +
					" link (mesh edge)");
		cut_links.push_back({fabric_flag(spec, x, y, "u_router", "out_valid_q", "link"),
				     (uint8_t)(1u << dir)});
		return;
	}
	if (f.size() != 4 && f.size() != 5) fault_error(spec, "dmem takes X,Y,ADDR,BIT[,0|1]");
	uint32_t addr = number(spec, "ADDR", f[2], 0xFFFFFFFFu);
	uint32_t bit = number(spec, "BIT", f[3], 31);
	bool value = f.size() == 5 ? number(spec, "stuck value", f[4], 1) : true;
	if (addr < DmemBase || addr - DmemBase >= WSE_CFG_DMEM_BYTES || (addr & 3)) {
		char r[128];
		snprintf(r, sizeof(r), "ADDR must be a word address in DMEM, 0x%08x to 0x%08x",
			 DmemBase, DmemBase + WSE_CFG_DMEM_BYTES - 4);
		fault_error(spec, r);
	}
	uint32_t w = (addr - DmemBase) / 4;
	uint32_t bank = w % WSE_CFG_DMEM_BANKS, index = w / WSE_CFG_DMEM_BANKS;
	char scope[160];
	snprintf(scope, sizeof(scope), "TOP.wse_top.u_mesh.g_row[%u].g_col[%u].u_tile.u_pe.u_dmem.gen_bank[%u].u_ram",
		 y, x, bank);
	const VerilatedScope *sc = Verilated::scopeFind(scope);
	VerilatedVar *v = sc ? sc->varFind("mem") : nullptr;
	if (!v || v->udims() != 1 || index >= (uint32_t)v->unpacked().elements())
		fault_error(spec, std::string("this model has no DMEM hook at ") + scope);
	uint32_t *words = (uint32_t *)v->datap();
	stuck_bits.push_back({&words[index - v->unpacked().low()], 1u << bit, value});
}

// After every clock edge: stuck bits keep their value whatever was
// written, a cut link never shows a valid wavelet, and a broken management
// node forgets the tile-side bus access it has just taken (its request and
// the response it owes the management port are lost).
void apply_faults()
{
	for (uint8_t *b : lost_tbus)
		*b = 0;
	for (const StuckBit &s : stuck_bits)
		*s.word = s.value ? (*s.word | s.mask) : (*s.word & ~s.mask);
	for (const CutLink &c : cut_links)
		*c.out_valid = (uint8_t)(*c.out_valid & ~c.mask);
}

#if VM_TRACE
VerilatedFstC *tfp;
#endif

// Trace time: 10 units per link cycle.
uint64_t trace_time = 0;

// A link cycle in two halves: both clocks fall at the start of a mesh
// cycle's first link cycle (first), and the mesh clock rises with its last
// (mesh_edge). Inputs are set before the fall, outputs sampled after it.
void link_fall(bool first)
{
	if (first) top->clk_i = 0;
	top->clk_link_i = 0;
	top->eval();
#if VM_TRACE
	if (tfp) tfp->dump(trace_time);
#endif
}

void link_rise(bool mesh_edge)
{
	if (mesh_edge) top->clk_i = 1;
	top->clk_link_i = 1;
	top->eval();
	// The flash samples its pins after the edge; MISO is set for the next.
	top->flash_miso_i = flash.step(top->flash_sck_o, top->flash_cs_no, top->flash_mosi_o);
#if VM_TRACE
	if (tfp) tfp->dump(trace_time + 5);
#endif
	trace_time += 10;
}

// One mesh cycle of one link cycle (reset).
void tick()
{
	link_fall(true);
	link_rise(true);
	apply_faults();
	cycle++;
}

// A second host: answer its first request BUSY and close.
void refuse(int lfd)
{
	int c = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
	if (c < 0) return;
	uint8_t hdr[WSE_HDR_BYTES];
	size_t got = 0;
	while (got < sizeof(hdr)) {
		struct pollfd pf = {c, POLLIN, 0};
		if (poll(&pf, 1, 2000) <= 0) break;
		ssize_t r = recv(c, hdr + got, sizeof(hdr) - got, 0);
		if (r <= 0) break;
		got += (size_t)r;
	}
	struct wse_pkt p;
	if (got == sizeof(hdr) && wse_hdr_decode(hdr, got, &p, WSE_PROTO_MAX_PAYLOAD) == 0) {
		struct wse_pkt r = {};
		r.major = WSE_PROTO_MAJOR;
		r.minor = WSE_PROTO_MINOR;
		r.opcode = p.opcode;
		r.flags = WSE_FLAG_RESPONSE;
		r.tag = p.tag;
		r.status = WSE_ST_BUSY;
		uint8_t out[64];
		int n = wse_pkt_encode(out, sizeof(out), &r, nullptr);
		if (n > 0) sim_send_all(c, out, (size_t)n);
	}
	close(c);
}

// Which tiles run a program: a tile that wrote tohost has ended its
// program until it halts (a reset of its core) and starts again.
bool cores_running(std::vector<uint8_t> &exited)
{
	bool cores = false;
	for (unsigned t = 0; t < exited.size(); t++) {
		bool halted = (top->halted_o >> t) & 1;
		if (halted) exited[t] = 0;
		if (!halted && !exited[t]) cores = true;
	}
	return cores;
}

void note_exits(std::vector<uint8_t> &exited)
{
	for (unsigned t = 0; t < exited.size(); t++)
		if ((top->exit_valid_o >> t) & 1) exited[t] = 1;
}

#if WSEMU_SIM_PCIE
struct PcieOpts {
	const char *regs = nullptr, *ram = nullptr, *doorbell = nullptr;
	uint64_t ram_bytes = 0;
};

// The PCIe device: until a signal, the cycle limit, or an error.
int serve_pcie(const PcieOpts &o, uint64_t max_cycles, unsigned link_ratio, bool quiet)
{
	void *regs = pcie_shm_map_file("wsemu-sim", o.regs, WSE_PCIE_BAR_BYTES);
	void *ram = pcie_shm_map_file("wsemu-sim", o.ram, o.ram_bytes);
	if (!regs || !ram) return 3;
	pcie_shm_server *db = nullptr;
	if (o.doorbell && pcie_shm_server_open(o.doorbell, o.regs, &db) < 0) {
		fprintf(stderr, "wsemu-sim: %s: %s\n", o.doorbell, strerror(errno));
		return 3;
	}
	std::vector<uint8_t> exited(WSE_CFG_NUM_COLS * WSE_CFG_NUM_ROWS, 0);
	SimPcie<Vwse_top> *pp = nullptr;
	bool moved = false;
	auto step = [&]() {
		for (unsigned k = 0; k < link_ratio; k++) {
			pp->drive();
			link_fall(k == 0);
			moved = pp->sample() || moved;
			link_rise(k + 1 == link_ratio);
		}
		apply_faults();
		cycle++;
		note_exits(exited);
	};
	SimPcie<Vwse_top> pcie(top, (uint8_t *)ram, o.ram_bytes, step);
	pp = &pcie;
	if (!pcie.open(regs)) {
		pcie_shm_server_close(db);
		return 3;
	}
	if (!quiet) fprintf(stderr, "wsemu-sim: PCIe device on %s, guest RAM %s\n", o.regs, o.ram);
	const uint64_t LookCycles = 64;
	uint64_t last_activity = cycle, last_busy = cycle;
	int rc = 0;
	while (!stop_signal) {
		uint32_t vec = pcie.look();
		if (db && pcie_shm_server_send(db, vec) < 0) {
			fprintf(stderr, "wsemu-sim: %s: %s\n", o.doorbell, strerror(errno));
			rc = 1;
			break;
		}
		if (pcie.busy()) last_activity = cycle;
		if (top->busy_o) last_busy = cycle;
		bool work = cores_running(exited) || cycle - last_busy < DrainCycles ||
			    cycle - last_activity < IdleCycles;
		if (!work) {
			usleep(200);
			continue;
		}
		for (uint64_t i = 0; i < LookCycles && !stop_signal; i++) {
			moved = false;
			step();
			if (moved) last_activity = cycle;
			if (top->busy_o) last_busy = cycle;
		}
		if (max_cycles && cycle >= max_cycles) {
			fprintf(stderr, "wsemu-sim: cycle limit %llu reached\n",
				(unsigned long long)max_cycles);
			rc = 2;
			break;
		}
	}
	if (!quiet) pcie.report();
	pcie_shm_server_close(db);
	return rc;
}
#endif

void usage()
{
	fprintf(stderr, "usage: wsemu-sim --board NAME --socket PATH [--trace FILE.fst] "
			"[--max-cycles N] [--fault SPEC]... [--link-bytes-per-cycle N] [--link-stall SEED] "
			"[--flash-bytes N] [--flash-file PATH] [--flash-cycles ERASE,PROGRAM] [--quiet]\n"
			"       wsemu-sim --board NAME --pcie-regs PATH --pcie-ram PATH --pcie-ram-bytes N "
			"[--pcie-doorbell PATH] [same options but --socket]\n"
			"  SPEC: link:X,Y,DIR | dmem:X,Y,ADDR,BIT[,0|1] | mgmt:X,Y | flash:N[,kill|off];\n"
			"  options also from $WSEMU_SIM_OPTS\n");
	exit(3);
}

void on_signal(int sig) { stop_signal = sig; }

}  // namespace

int main(int argc, char **argv)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	const char *board = nullptr, *sock = nullptr, *trace = nullptr;
	uint64_t max_cycles = 0;
	bool quiet = false;
	unsigned bpc = WSE_CFG_LINK_BYTES_PER_CYCLE; // the board's link bandwidth
	uint64_t stall_seed = 0;                     // random link back-pressure when != 0
	std::vector<std::string> faults;
#if WSEMU_SIM_PCIE
	PcieOpts pcie;
#endif
	std::vector<std::string> args = sim_args(argc, argv);
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= args.size()) usage();
			return args[++i].c_str();
		};
		if (a == "--board") board = val();
		else if (a == "--socket") sock = val();
		else if (a == "--trace") trace = val();
		else if (a == "--max-cycles") max_cycles = strtoull(val(), nullptr, 0);
		else if (a == "--fault") faults.push_back(val());
		else if (a == "--quiet") quiet = true;
#if WSEMU_SIM_PCIE
		else if (a == "--pcie-regs") pcie.regs = val();
		else if (a == "--pcie-ram") pcie.ram = val();
		else if (a == "--pcie-doorbell") pcie.doorbell = val();
		else if (a == "--pcie-ram-bytes") {
			char *end;
			const char *v = val();
			pcie.ram_bytes = strtoull(v, &end, 0);
			if (*end || !pcie.ram_bytes || v[0] == '-') {
				fprintf(stderr, "wsemu-sim: --pcie-ram-bytes takes a byte count\n");
				return 3;
			}
		}
#else
		else if (a.rfind("--pcie-", 0) == 0) {
			fprintf(stderr, "wsemu-sim: %s: this model is built without the PCIe device side\n",
				a.c_str());
			return 3;
		}
#endif
		else if (a == "--link-bytes-per-cycle") {
			// another bandwidth than the board's, e.g. to check that results do
			// not depend on link timing
			char *end;
			unsigned long v = strtoul(val(), &end, 0);
			if (*end || v < 1 || v > 64) {
				fprintf(stderr, "wsemu-sim: --link-bytes-per-cycle must be 1..64\n");
				return 3;
			}
			bpc = (unsigned)v;
		} else if (a == "--link-stall") {
			stall_seed = strtoull(val(), nullptr, 0);
			if (!stall_seed) {
				fprintf(stderr, "wsemu-sim: --link-stall needs a non-zero seed\n");
				return 3;
			}
		} else {
			int r = flash.option(a, val);
			if (r < 0) return 3;
			if (r == 0) usage();
		}
	}
#if WSEMU_SIM_PCIE
	if (pcie.regs && (!pcie.ram || !pcie.ram_bytes || sock)) {
		fprintf(stderr, "wsemu-sim: --pcie-regs needs --pcie-ram and --pcie-ram-bytes, "
				"and no --socket\n");
		return 3;
	}
	if ((pcie.ram || pcie.doorbell || pcie.ram_bytes) && !pcie.regs) {
		fprintf(stderr, "wsemu-sim: --pcie-ram, --pcie-ram-bytes and --pcie-doorbell go with "
				"--pcie-regs\n");
		return 3;
	}
	const char *fpath = pcie.regs ? pcie.regs : sock;
#else
	const char *fpath = sock;
#endif
	if (!fpath) usage();
	std::string want = std::string("wsemu,") + (board ? board : "");
	if (board && want != WSE_CFG_BOARD) {
		fprintf(stderr, "wsemu-sim: this model is %s, not %s\n", WSE_CFG_BOARD, want.c_str());
		return 3;
	}
	// Check the faults before the socket exists: a bad one is an error at
	// start, which the host sees as a simulator that never listened.
	Verilated::commandArgs(argc, argv);
	top = new Vwse_top;
	for (const std::string &f : faults) add_fault(f);
	if (!flash.open(fpath)) return 3;
	if (getppid() == 1 && getenv("WSEMU_SIM_DAEMON") == nullptr) {
		// Parent already gone before PDEATHSIG was armed.
		return 1;
	}

	const unsigned lat = WSE_CFG_LINK_LATENCY_CYCLES;
	// The link carries one 64-bit word per link cycle in each direction. Up
	// to 8 bytes per mesh cycle the link clock runs at the mesh clock's rate
	// and a word goes in every 8 / bpc cycles; above that the link clock
	// runs link_ratio = ceil(bpc / 8) times per mesh cycle, and the words
	// going in are paced to bpc bytes per mesh cycle by a byte budget
	// (bpc added per mesh cycle, 8 taken per word; it holds at most
	// 8 bytes, or bpc + 7 above 8, so a pause does not store up a burst).
	const unsigned link_ratio = (bpc + 7) / 8;
	const unsigned budget_cap = bpc <= 8 ? 8 : bpc + 7;
	unsigned budget = budget_cap;
	if (!quiet)
		fprintf(stderr, "wsemu-sim: board %s, %ux%u tiles, link %u bits, %u bytes/cycle, "
				"latency %u cycles, %u link cycle%s per mesh cycle%s\n", WSE_CFG_BOARD,
			WSE_CFG_NUM_COLS, WSE_CFG_NUM_ROWS, WSE_CFG_LINK_WIDTH_BITS, bpc, lat, link_ratio,
			link_ratio > 1 ? "s" : "", stall_seed ? ", random link stalls" : "");

	// the link's socket, or (--pcie-regs) the PCIe device side
	bool link = fpath == sock;
	int lfd = -1, fd = -1;
	if (link) {
		lfd = sim_listen("wsemu-sim", sock, 4);
		if (lfd < 0) return 1;
		fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
		if (fd < 0) {
			perror("wsemu-sim: accept");
			return 1;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}

	struct sigaction sa_stop;
	memset(&sa_stop, 0, sizeof(sa_stop));
	sa_stop.sa_handler = on_signal;  // no SA_RESTART: poll() returns EINTR
	sigaction(SIGTERM, &sa_stop, nullptr);
	sigaction(SIGINT, &sa_stop, nullptr);
	if (!quiet)
		for (const std::string &f : faults) fprintf(stderr, "wsemu-sim: fault %s\n", f.c_str());
#if VM_TRACE
	if (trace) {
		Verilated::traceEverOn(true);
		tfp = new VerilatedFstC;
		top->trace(tfp, 99);
		tfp->open(trace);
	}
#else
	if (trace) {
		fprintf(stderr, "wsemu-sim: built without tracing\n");
		return 3;
	}
#endif
	top->rst_ni = 0;
	top->rst_link_ni = 0;
	top->link_in_valid_i = 0;
	top->link_out_ready_i = 1;
	top->pcie_sel_i = !link;
	for (int i = 0; i < 4; i++) tick();
	top->rst_ni = 1;
	top->rst_link_ni = 1;
	for (int i = 0; i < 4; i++) tick();

	std::deque<uint8_t> rxbytes;          // host bytes not yet in words
	std::deque<LinkWord> in_words, out_words;
	std::vector<uint8_t> outbuf;
	uint64_t last_activity = cycle, last_busy = cycle;
	std::vector<uint8_t> exited(WSE_CFG_NUM_COLS * WSE_CFG_NUM_ROWS, 0);
	int rc = 0;
	bool host_gone = false;
#if WSEMU_SIM_PCIE
	if (!link) rc = serve_pcie(pcie, max_cycles, link_ratio, quiet);
#endif

	auto read_host = [&](bool block) -> bool {
		struct pollfd pf[2] = {{fd, POLLIN, 0}, {lfd, POLLIN, 0}};
		int r = poll(pf, 2, block ? -1 : 0);
		if (r < 0) return errno == EINTR;
		if (pf[1].revents & POLLIN) refuse(lfd);
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			uint8_t b[65536];
			ssize_t n = recv(fd, b, sizeof(b), 0);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return false;
			if (n > 0) {
				rxbytes.insert(rxbytes.end(), b, b + n);
				while (rxbytes.size() >= 8) {
					uint64_t w = 0;
					for (int k = 0; k < 8; k++) {
						w |= (uint64_t)rxbytes.front() << (8 * k);
						rxbytes.pop_front();
					}
					in_words.push_back({w, cycle + lat, false});
				}
			}
		}
		return true;
	};

	while (link) {
		// SIGTERM (libwsehost closing, or the parent's death): stop here, so
		// that the trace file is complete.
		if (stop_signal) break;
		// Does the device have work?
		bool cores = cores_running(exited);
		if (top->busy_o) last_busy = cycle;
		bool busy = !in_words.empty() || !out_words.empty() || cores ||
			    top->link_out_valid_o || cycle - last_busy < DrainCycles ||
			    cycle - last_activity < IdleCycles;
		if (!busy) {
			if (getenv("WSEMU_SIM_DEBUG"))
				fprintf(stderr, "wsemu-sim: idle at cycle %llu\n", (unsigned long long)cycle);
			if (!read_host(true)) { host_gone = true; break; }
			continue;
		}
		if (cycle % PollCycles == 0 && !read_host(false)) { host_gone = true; break; }

		// Drive the link, one word each way per link cycle. With
		// --link-stall, each direction is held off in about one link cycle
		// of four (xorshift64, seeded): back-pressure on the device's output
		// and gaps in its input.
		budget = budget + bpc < budget_cap ? budget + bpc : budget_cap;
		for (unsigned k = 0; k < link_ratio; k++) {
			bool stall_in = false, stall_out = false;
			if (stall_seed) {
				stall_seed ^= stall_seed << 13;
				stall_seed ^= stall_seed >> 7;
				stall_seed ^= stall_seed << 17;
				stall_in = (stall_seed & 3) == 0;
				stall_out = ((stall_seed >> 2) & 3) == 0;
			}
			bool drive = !in_words.empty() && in_words.front().ready_at <= cycle &&
				     budget >= 8 && !stall_in;
			top->link_in_valid_i = drive;
			if (drive) top->link_in_data_i = in_words.front().data;
			top->link_out_ready_i = !stall_out;
			link_fall(k == 0);
			bool took = drive && top->link_in_ready_o;
			bool out = top->link_out_valid_o && !stall_out;
			uint64_t odata = top->link_out_data_o;
			bool olast = top->link_out_last_o;
			link_rise(k + 1 == link_ratio);
			// (times count from the end of this mesh cycle)
			if (took) {
				in_words.pop_front();
				budget -= 8;
				last_activity = cycle + 1;
			}
			if (out) {
				out_words.push_back({odata, cycle + 1 + lat, olast});
				last_activity = cycle + 1;
			}
		}
		apply_faults();
		cycle++;
		note_exits(exited);
		// Deliver words whose latency has passed; a packet goes to the socket
		// as soon as its last word is delivered (a response must not wait
		// for the stream-out events behind it).
		bool flush = false;
		while (!out_words.empty() && out_words.front().ready_at <= cycle) {
			uint64_t w = out_words.front().data;
			for (int k = 0; k < 8; k++) outbuf.push_back((uint8_t)(w >> (8 * k)));
			flush = flush || out_words.front().last;
			out_words.pop_front();
		}
		if (!outbuf.empty() && (flush || out_words.empty() || outbuf.size() >= 4096)) {
			if (sim_send_all(fd, outbuf.data(), outbuf.size()) < 0) { host_gone = true; break; }
			outbuf.clear();
		}
		if (max_cycles && cycle >= max_cycles) {
			fprintf(stderr, "wsemu-sim: cycle limit %llu reached\n",
				(unsigned long long)max_cycles);
			rc = 2;
			break;
		}
	}
	if (!quiet)
		fprintf(stderr, "wsemu-sim: %s after %llu cycles\n",
			host_gone ? "host disconnected" : stop_signal ? "terminated" : "stopped",
			(unsigned long long)cycle);
#if VM_TRACE
	if (tfp) tfp->close();
#endif
	flash.report();
	top->final();
	delete top;
	if (link) {
		close(fd);
		close(lfd);
		unlink(sock);
	}
	return rc;
}
