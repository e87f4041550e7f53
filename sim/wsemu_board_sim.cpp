// wsemu-board-sim: the Verilator model of an FPGA board's whole top
// (boards/<board>/<top>.sv: PLL, reset button, UART link PHY and LEDs
// around wse_top) with a model of the host's USB-serial bridge, serving
// the link protocol on a Unix socket as wsemu-sim does. The host's bytes
// become 8N1 frames on the board's receive pin at the board's baud rate,
// and the frames on its transmit pin become bytes again, so the whole
// path of a board is simulated: pins, UART, framing, executor, mesh.
// docs/wsemu-sim.md ("Board tops").
//
//   wsemu-board-sim --board NAME --socket PATH [--max-cycles N] [--quiet]
//                   [--flash-bytes N] [--flash-file PATH] [--flash-cycles E,P]
//                   [--fault flash:N[,kill|off]]
//
// Options come from $WSEMU_SIM_OPTS too, as for wsemu-sim. The board's
// configuration flash is wsemu-sim's (sim/sim_flash_file.h): its CS#, MOSI
// and MISO are the top's pins, its SCK the CCLK pin that the top drives
// through USRMCLK, read in the testbench model (tests/fpga/USRMCLK.sv).
//
// One model cycle is one period of the board's oscillator (the link
// clock). The testbench's PLL model (tests/fpga/EHXPLLL.sv) gives the mesh
// the same clock. Simulated time advances while bytes are on the line
// either way, the host interface is busy (LED 5), a tile runs (LED 6
// dark), or within IdleCycles of the last byte; otherwise the model
// blocks on the socket.
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

// VTOP is the model's class, V<top module>, given by the build.
#define WSE_STR(x) #x
#define WSE_XSTR(x) WSE_STR(x)
#include WSE_XSTR(VTOP.h)
#include "verilated.h"

#include "verilated_syms.h"

#include "sim_args.h"
#include "sim_flash_file.h"
#include "sim_socket.h"
#include "wse_cfg.h"

namespace {

const uint64_t IdleCycles = 4000;
const uint64_t PollCycles = 64;
// LEDs of the board top (boards/<board>/<top>.sv).
const unsigned LedBusy = 5, LedHalted = 6, LedLineError = 3;

VTOP *top;
uint64_t cycle;
volatile sig_atomic_t stop_signal;
SimFlash flash("wsemu-board-sim");
const uint8_t *cclk;  // the CCLK pin in the top's USRMCLK model, null without one

void on_signal(int sig) { stop_signal = sig; }

// The CCLK pin: the level the one USRMCLK model in the top keeps (made
// public by sim/wsemu_board_sim.vlt), found by its variable.
const uint8_t *find_cclk()
{
	for (const auto &it : *Verilated::threadContextp()->scopeNameMap()) {
		VerilatedVar *v = it.second->varFind("cclk");
		if (v && v->vltype() == VLVT_UINT8) return (const uint8_t *)v->datap();
	}
	return nullptr;
}

void tick()
{
	top->clk_25mhz = 0;
	top->eval();
	top->clk_25mhz = 1;
	top->eval();
	// The flash samples its pins after the edge; MISO is set for the next.
	top->flash_miso = flash.step(cclk ? *cclk : 0, top->flash_csn, top->flash_mosi);
	cycle++;
}

// The bridge's transmitter: 8N1, least significant bit first, the bit
// period in 1/256 clocks (the board's divisor, so both ends agree).
struct UartTx {
	std::deque<uint8_t> q;
	bool active = false;
	uint16_t frame = 0;
	uint64_t t = 0;  // 1/256 clocks into the frame
	bool line(unsigned div)
	{
		if (!active && !q.empty()) {
			frame = (uint16_t)(0x200u | ((unsigned)q.front() << 1));  // start 0, stop 1
			q.pop_front();
			active = true;
			t = 0;
		}
		if (!active) return true;
		unsigned bit = (unsigned)(t / div);
		t += 256;
		if (bit >= 10) {
			active = false;
			return line(div);
		}
		return (frame >> bit) & 1;
	}
	bool busy() const { return active || !q.empty(); }
};

// The bridge's receiver: a falling edge starts a frame; each bit is read
// in its middle; a low stop bit is a framing error (counted, the byte
// still delivered, as a UART does).
struct UartRx {
	bool active = false, prev = true;
	uint64_t t = 0;
	unsigned bit = 0;
	uint8_t byte = 0;
	uint64_t framing_errors = 0;
	// Returns true with *out set when a byte is complete.
	bool sample(bool line, unsigned div, uint8_t *out)
	{
		bool done = false;
		if (!active) {
			if (prev && !line) {
				active = true;
				t = 0;
				bit = 1;
				byte = 0;
			}
		} else {
			t += 256;
			if (t >= (uint64_t)div * bit + div / 2) {
				if (bit <= 8) {
					byte = (uint8_t)(byte | (line << (bit - 1)));
					bit++;
				} else {
					if (!line) framing_errors++;
					*out = byte;
					done = true;
					active = false;
				}
			}
		}
		prev = line;
		return done;
	}
};

[[noreturn]] void usage()
{
	fprintf(stderr, "usage: wsemu-board-sim --board NAME --socket PATH [--max-cycles N] [--quiet]\n"
			"         [--flash-bytes N] [--flash-file PATH] [--flash-cycles E,P] "
			"[--fault flash:N[,kill|off]]\n");
	exit(3);
}

}  // namespace

int main(int argc, char **argv)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	const char *board = nullptr, *sock = nullptr;
	uint64_t max_cycles = 0;
	bool quiet = false;
	std::vector<std::string> args = sim_args(argc, argv);
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= args.size()) usage();
			return args[++i].c_str();
		};
		if (a == "--board") board = val();
		else if (a == "--socket") sock = val();
		else if (a == "--max-cycles") max_cycles = strtoull(val(), nullptr, 0);
		else if (a == "--quiet") quiet = true;
		else if (a == "--fault") {
			std::string f = val(), why;
			if (f.compare(0, 6, "flash:") != 0) why = "only flash:N[,kill|off] on a board";
			else flash.fault(f.substr(6), &why);
			if (!why.empty()) {
				fprintf(stderr, "wsemu-board-sim: --fault %s: %s\n", f.c_str(), why.c_str());
				return 3;
			}
		} else {
			int r = flash.option(a, val);
			if (r < 0) return 3;
			if (r == 0) usage();
		}
	}
	if (!sock) usage();
	std::string want = std::string("wsemu,") + (board ? board : "");
	if (board && want != WSE_CFG_BOARD) {
		fprintf(stderr, "wsemu-board-sim: this model is %s, not %s\n", WSE_CFG_BOARD, want.c_str());
		return 3;
	}
	const unsigned div = WSE_CFG_LINK_UART_DIV;
	static_assert(WSE_CFG_LINK_UART_DIV >= 4 * 256, "the board's link is not a UART");
	if (getppid() == 1 && getenv("WSEMU_SIM_DAEMON") == nullptr) return 1;

	Verilated::commandArgs(argc, argv);
	top = new VTOP;
	if (!flash.open(sock)) return 3;
	cclk = find_cclk();
	if (flash.part && !cclk) {
		fprintf(stderr, "wsemu-board-sim: --flash-bytes: this board top drives no CCLK "
				"(USRMCLK)\n");
		return 3;
	}
	if (!quiet)
		fprintf(stderr, "wsemu-board-sim: board %s, %ux%u tiles, UART at %u baud from %u Hz "
				"(%.2f clocks per bit)\n", WSE_CFG_BOARD, WSE_CFG_NUM_COLS, WSE_CFG_NUM_ROWS,
			WSE_CFG_LINK_BAUD, WSE_CFG_LINK_CLOCK_HZ, div / 256.0);

	int lfd = sim_listen("wsemu-board-sim", sock, 1);
	if (lfd < 0) return 1;
	int fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		perror("wsemu-board-sim: accept");
		return 1;
	}
	struct sigaction sa_stop;
	memset(&sa_stop, 0, sizeof(sa_stop));
	sa_stop.sa_handler = on_signal;
	sigaction(SIGTERM, &sa_stop, nullptr);
	sigaction(SIGINT, &sa_stop, nullptr);

	// The button held, then released; the PLL model locks on its own.
	top->btn_reset = 1;
	top->ftdi_txd = 1;
	top->ftdi_nrts = 0;  // the host's RTS asserted: the device may send
	for (int i = 0; i < 8; i++) tick();
	top->btn_reset = 0;
	for (int i = 0; i < 64; i++) tick();

	UartTx tx;
	UartRx rx;
	std::vector<uint8_t> outbuf;
	uint64_t last_activity = cycle, last_rx = cycle;
	int rc = 0;
	bool host_gone = false;
	auto read_host = [&](bool block) -> bool {
		struct pollfd pf = {fd, POLLIN, 0};
		int r = poll(&pf, 1, block ? -1 : 0);
		if (r < 0) return errno == EINTR;
		if (pf.revents & (POLLIN | POLLHUP | POLLERR)) {
			uint8_t b[65536];
			ssize_t n = recv(fd, b, sizeof(b), 0);
			if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return false;
			if (n > 0) tx.q.insert(tx.q.end(), b, b + n);
		}
		return true;
	};
	while (!stop_signal) {
		bool busy = tx.busy() || rx.active || ((top->led >> LedBusy) & 1) ||
			    !((top->led >> LedHalted) & 1) || cycle - last_activity < IdleCycles ||
			    !outbuf.empty();
		if (!busy) {
			if (!read_host(true)) { host_gone = true; break; }
			continue;
		}
		if (cycle % PollCycles == 0 && !read_host(false)) { host_gone = true; break; }
		top->ftdi_txd = tx.line(div);
		tick();
		if (tx.busy()) last_activity = cycle;
		uint8_t byte;
		if (rx.sample(top->ftdi_rxd, div, &byte)) {
			outbuf.push_back(byte);
			last_activity = last_rx = cycle;
		}
		// As the bridge does: bytes go to the host when the line has been
		// quiet for two byte times, or in blocks.
		if (!outbuf.empty() && (outbuf.size() >= 4096 || cycle - last_rx > 20ull * div / 256)) {
			if (sim_send_all(fd, outbuf.data(), outbuf.size()) < 0) { host_gone = true; break; }
			outbuf.clear();
		}
		if (max_cycles && cycle >= max_cycles) {
			fprintf(stderr, "wsemu-board-sim: cycle limit %llu reached\n",
				(unsigned long long)max_cycles);
			rc = 2;
			break;
		}
	}
	if (!quiet)
		fprintf(stderr, "wsemu-board-sim: %s after %llu cycles; line: %llu framing errors seen "
				"by the host, error LED %s\n",
			host_gone ? "host disconnected" : stop_signal ? "terminated" : "stopped",
			(unsigned long long)cycle, (unsigned long long)rx.framing_errors,
			((top->led >> LedLineError) & 1) ? "lit" : "dark");
	flash.report();
	top->final();
	delete top;
	close(fd);
	close(lfd);
	unlink(sock);
	return rc;
}
