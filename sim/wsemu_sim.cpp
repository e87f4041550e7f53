// wsemu-sim: the Verilator model of one board (wse_top built for the board's
// .dts) serving the link protocol on a Unix socket. docs/wsemu-sim.md.
//
//   wsemu-sim --board NAME --socket PATH [--trace FILE.fst]
//             [--max-cycles N] [--fault link:X,Y,DIR | --fault dmem:X,Y,ADDR,BIT]
//             [--quiet]
//
// Timing rule: simulated time advances only while the device has work:
// link words in flight in either direction (host bytes already received,
// device words not yet delivered), a tile core running, or within
// IdleCycles cycles of the last link word or stream wavelet. When none
// holds, the simulator blocks on the socket without advancing time. Host
// bytes that arrive while the device runs enter the link at the next cycle
// boundary at which the simulator polls (every PollCycles cycles).
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "Vwse_top.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

extern "C" {
#include "codec.h"
}
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
#if VM_TRACE
VerilatedFstC *tfp;
#endif

void tick()
{
	top->clk_i = 0;
	top->clk_link_i = 0;
	top->eval();
#if VM_TRACE
	if (tfp) tfp->dump(cycle * 10);
#endif
	top->clk_i = 1;
	top->clk_link_i = 1;
	top->eval();
#if VM_TRACE
	if (tfp) tfp->dump(cycle * 10 + 5);
#endif
	cycle++;
}

int send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR) continue;
			if (errno == EAGAIN) {
				struct pollfd pf = {fd, POLLOUT, 0};
				poll(&pf, 1, 1000);
				continue;
			}
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
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
		if (n > 0) send_all(c, out, (size_t)n);
	}
	close(c);
}

void usage()
{
	fprintf(stderr, "usage: wsemu-sim --board NAME --socket PATH [--trace FILE.fst] "
			"[--max-cycles N] [--fault SPEC] [--quiet]\n");
	exit(3);
}

}  // namespace

int main(int argc, char **argv)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	const char *board = nullptr, *sock = nullptr, *trace = nullptr;
	uint64_t max_cycles = 0;
	bool quiet = false;
	std::vector<std::string> faults;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= argc) usage();
			return argv[++i];
		};
		if (a == "--board") board = val();
		else if (a == "--socket") sock = val();
		else if (a == "--trace") trace = val();
		else if (a == "--max-cycles") max_cycles = strtoull(val(), nullptr, 0);
		else if (a == "--fault") faults.push_back(val());
		else if (a == "--quiet") quiet = true;
		else usage();
	}
	if (!sock) usage();
	std::string want = std::string("wsemu,") + (board ? board : "");
	if (board && want != WSE_CFG_BOARD) {
		fprintf(stderr, "wsemu-sim: this model is %s, not %s\n", WSE_CFG_BOARD, want.c_str());
		return 3;
	}
	if (!faults.empty()) {
		fprintf(stderr, "wsemu-sim: --fault %s: not supported by this model\n",
			faults[0].c_str());
		return 3;
	}
	if (getppid() == 1 && getenv("WSEMU_SIM_DAEMON") == nullptr) {
		// Parent already gone before PDEATHSIG was armed.
		return 1;
	}

	const unsigned bpc = WSE_CFG_LINK_BYTES_PER_CYCLE;
	const unsigned lat = WSE_CFG_LINK_LATENCY_CYCLES;
	// Link words per link cycle: bandwidth / 8 bytes, at least one word every
	// 8 / bpc cycles.
	const unsigned word_period = bpc >= 8 ? 1 : (8 + bpc - 1) / bpc;
	if (!quiet)
		fprintf(stderr, "wsemu-sim: board %s, %ux%u tiles, link %u bits, %u bytes/cycle, "
				"latency %u cycles\n", WSE_CFG_BOARD, WSE_CFG_NUM_COLS, WSE_CFG_NUM_ROWS,
			WSE_CFG_LINK_WIDTH_BITS, bpc, lat);

	umask(077);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(sock) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "wsemu-sim: socket path too long\n");
		return 3;
	}
	strcpy(sa.sun_path, sock);
	unlink(sock);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4) < 0) {
		perror("wsemu-sim: socket");
		return 1;
	}
	chmod(sock, 0600);
	int fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
	if (fd < 0) {
		perror("wsemu-sim: accept");
		return 1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	Verilated::commandArgs(argc, argv);
	top = new Vwse_top;
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
	for (int i = 0; i < 4; i++) tick();
	top->rst_ni = 1;
	top->rst_link_ni = 1;
	for (int i = 0; i < 4; i++) tick();

	std::deque<uint8_t> rxbytes;          // host bytes not yet in words
	std::deque<LinkWord> in_words, out_words;
	std::vector<uint8_t> outbuf;
	uint64_t last_activity = cycle, last_busy = cycle;
	uint64_t next_word_at = 0;
	std::vector<uint8_t> exited(WSE_CFG_NUM_COLS * WSE_CFG_NUM_ROWS, 0);
	int rc = 0;
	bool host_gone = false;

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

	for (;;) {
		// Does the device have work?
		bool cores = false;
		for (unsigned t = 0; t < exited.size(); t++) {
			bool halted = (top->halted_o >> t) & 1;
			if (halted) exited[t] = 0;
			if (!halted && !exited[t]) cores = true;
		}
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

		// Drive the link input.
		bool drive = !in_words.empty() && in_words.front().ready_at <= cycle &&
			     cycle >= next_word_at;
		top->link_in_valid_i = drive;
		if (drive) top->link_in_data_i = in_words.front().data;
		top->link_out_ready_i = 1;
		top->clk_i = 0;
		top->clk_link_i = 0;
		top->eval();
		bool took = drive && top->link_in_ready_o;
		bool out = top->link_out_valid_o;
		uint64_t odata = top->link_out_data_o;
		bool olast = top->link_out_last_o;
		tick();
		if (took) {
			in_words.pop_front();
			next_word_at = cycle - 1 + word_period;
			last_activity = cycle;
		}
		if (out) {
			out_words.push_back({odata, cycle + lat, olast});
			last_activity = cycle;
		}
		for (unsigned t = 0; t < exited.size(); t++) {
			// A tile that wrote tohost has ended its program.
			if ((top->exit_valid_o >> t) & 1) exited[t] = 1;
		}
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
			if (send_all(fd, outbuf.data(), outbuf.size()) < 0) { host_gone = true; break; }
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
			host_gone ? "host disconnected" : "stopped", (unsigned long long)cycle);
#if VM_TRACE
	if (tfp) tfp->close();
#endif
	top->final();
	delete top;
	close(fd);
	close(lfd);
	unlink(sock);
	return rc;
}
