// SPDX-License-Identifier: Apache-2.0
//
// tb_uart: the UART link PHY (rtl/host_if/hif_uart*.sv) through tb_uart.sv.
// The host and the device run on their own clocks (the device at 25 MHz,
// the host's off by a given percentage), both at the same nominal divisor,
// so the two ends of each line differ in baud rate by that much. Noise is
// put on the host-to-device line at the level of the line itself: a stop
// bit forced low (a framing error on an intact byte), a data bit inverted,
// a whole frame wiped out, a spurious start bit in an idle line, a break,
// and one-clock glitches inside bits and in idle time.
//
//   tb_uart bytes   <clocks per bit> <mismatch %> <bytes> <seed>
//     Random bytes both ways, back to back, the device's CTS held off for a
//     while; stop bits forced low on about 3% of the non-zero bytes, breaks
//     at word boundaries, glitches. Both byte streams must arrive intact
//     and the device's framing-error count must equal the stop bits forced
//     low plus the breaks. For 7.5 word times the framing takes no words:
//     the device's stream must lack just the whole words it counted as
//     overruns.
//   tb_uart packets <clocks per bit> <mismatch %> <episodes> <seed>
//     Packets built with the wire library's codec, through the device PHY
//     into hif_rx_frame. Each episode is a clean packet or a damaged one
//     (a bit flipped in the payload or the header, a stop bit low, a byte
//     lost, a byte made up before it, a break inside it) followed by pauses
//     and clean packets. No damaged packet may be accepted; a packet whose
//     bytes all arrived must be accepted intact; the packet after the first
//     pause must arrive when the damage kept the byte count, the one after
//     the second pause in every case.
//
// TB_UART_NOGLITCH=1 leaves the glitches out; TB_UART_DEBUG=1 lists every
// packet and verdict.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "Vtb_uart.h"
#include "verilated.h"

extern "C" {
#include "wsemu/wse_codec.h"
}

static std::mt19937_64 rng;
static uint32_t rnd(uint32_t n) { return (uint32_t)(rng() % n); }
static double urand() { return (double)(rng() >> 11) / 9007199254740992.0; }

enum Kind { KByte, KPause, KBreak, KInsert };
enum Act { ANone, AStopLow, AFlip, ADropout };
struct Item {
	Kind kind;
	uint8_t b;
	Act act;
	int arg;      // AFlip: data bit; KPause/KBreak: bit periods
	bool glitch;  // a one-clock glitch inside one of the frame's bits
};
enum Mode { ForceLow, ForceHigh, Invert };
struct Force {
	double t0, t1;
	Mode mode;
};

// Verdicts of hif_rx_frame.
enum { EvtOk = 0, EvtPayloadCrc = 5 };

struct Tb {
	Vtb_uart *m = new Vtb_uart;
	double t = 0, hp_h, hp_d, next_h, next_d;  // ps
	double T_h, T_d;                            // bit periods, ps
	uint32_t div;                               // clocks per bit x 256
	bool frac;
	std::vector<Force> forces;
	std::vector<Item> script;
	size_t si = 0;
	bool waiting = false;
	double wait_until = 0;
	bool glitches;
	// Host to device.
	std::vector<uint8_t> sent, got_dev;
	int n_stoplow = 0, n_break = 0, n_glitch = 0, n_flip = 0, n_dropout = 0, n_insert = 0;
	// Device to host.
	size_t dev_words_left = 0;
	std::vector<uint8_t> dev_sent, got_host;
	bool cts_window = false;
	double cts_rise = 0, cts_fall = 0;
	double stall_t0 = -1, stall_t1 = -1;  // the framing takes no words
	int cts_violations = 0;
	uint64_t cts_checked = 0;
	// Framing.
	bool collecting = false;
	std::vector<uint8_t> pl;
	struct Verdict {
		int code;
		uint32_t tag;
		std::vector<uint8_t> payload;
	};
	std::vector<Verdict> verdicts;
	uint64_t resync_words = 0;

	Tb(uint32_t div_, double mismatch_pct, bool glitches_) : div(div_), glitches(glitches_)
	{
		hp_d = 20000.0;  // 25 MHz
		hp_h = hp_d * (1.0 + mismatch_pct / 100.0);
		T_d = 2 * hp_d * div / 256.0;
		T_h = 2 * hp_h * div / 256.0;
		frac = div % 256 != 0;
		next_d = hp_d;
		next_h = hp_h * (0.1 + 0.8 * urand());
		m->div_h_i = div;
		m->div_d_i = div;
		m->gap_bits_i = 48;
		m->d_cts_ni = 0;
		m->rst_ni = 0;
		m->clk_h_i = 0;
		m->clk_d_i = 0;
		m->h_line_i = 1;
		m->d_line_i = 1;
		m->eval();
		for (int i = 0; i < 6; i++)
			step();
		m->rst_ni = 1;
		m->eval();
	}
	~Tb() { delete m; }

	bool line_h2d()
	{
		bool v = m->h_line_o;
		for (const Force &f : forces)
			if (t >= f.t0 && t < f.t1)
				v = f.mode == ForceLow ? false : f.mode == ForceHigh ? true : !v;
		return v;
	}
	void force(double t0, double t1, Mode mode) { forces.push_back({t0, t1, mode}); }
	void prune()
	{
		forces.erase(std::remove_if(forces.begin(), forces.end(),
					    [&](const Force &f) { return f.t1 < t; }),
			     forces.end());
	}

	// The frame of a byte the host transmitter started at time tl.
	void frame_noise(const Item &it, double tl)
	{
		double mg = (frac ? 1.0 : 0.25) * 2 * hp_h;
		double T = T_h;
		switch (it.act) {
		case AStopLow: {
			// The whole stop bit and a quarter clock past it, wherever the
			// receiver takes it at a 2% mismatch; with a fractional divisor
			// its start moves by up to a clock, so half a clock earlier
			// then (bit 7 is taken well before).
			double clk = 2 * hp_h;
			force(tl + 9 * T + (frac ? -0.5 : 0.25) * clk, tl + 10 * T + 0.25 * clk, ForceLow);
			n_stoplow++;
			break;
		}
		case AFlip: force(tl + (it.arg + 1) * T + mg, tl + (it.arg + 2) * T - mg, Invert); n_flip++; break;
		case ADropout: force(tl, tl + 10 * T - mg, ForceHigh); n_dropout++; break;
		default: break;
		}
		if (it.glitch) {
			// In the start bit or data bits 0..6: at a 2% mismatch the
			// samples of the last two bits reach to a clock from the next
			// edge, where a glitch and the edge would outvote the bit.
			double pos = tl + (rnd(8) + 0.25 + 0.5 * urand()) * T;
			force(pos, pos + 0.9 * 2 * hp_d, Invert);
			n_glitch++;
		}
	}

	// Host side, before a rising edge: handshakes of this cycle.
	void pre_h()
	{
		if (m->h_valid_i && m->h_ready_o) {
			const Item &it = script[si];
			frame_noise(it, t);
			sent.push_back(it.b);
			si++;
		}
		if (m->h_rx_valid_o)
			got_host.push_back(m->h_rx_data_o);
	}
	// Host side, after a rising edge: inputs for the next cycle.
	void post_h()
	{
		m->h_valid_i = 0;
		if (si >= script.size())
			return;
		const Item &it = script[si];
		if (it.kind == KByte) {
			m->h_valid_i = 1;
			m->h_data_i = it.b;
			return;
		}
		if (!waiting) {
			if (m->h_busy_o)
				return;
			waiting = true;
			if (it.kind == KPause) {
				wait_until = t + it.arg * T_h;
				// Glitches in the idle line, away from the next start bit.
				if (glitches)
					for (double g = t + 2 * T_h; g < wait_until - 3 * T_h; g += (3 + rnd(20)) * T_h) {
						force(g, g + 0.9 * 2 * hp_d, Invert);
						n_glitch++;
					}
			} else if (it.kind == KBreak) {
				force(t, t + it.arg * T_h, ForceLow);
				wait_until = t + (it.arg + 3) * T_h;
				n_break++;
			} else {  // KInsert: a start bit and a low bit 0 -> 0xFE
				force(t + T_h, t + 3 * T_h, ForceLow);
				wait_until = t + 15 * T_h;
				n_insert++;
			}
		} else if (t >= wait_until) {
			waiting = false;
			si++;
		}
	}

	void pre_d()
	{
		if (m->d_rx_valid_o && m->d_rx_ready_o)
			for (int i = 0; i < 8; i++)
				got_dev.push_back((uint8_t)(m->d_rx_data_o >> (8 * i)));
		if (m->d_tx_valid_i && m->d_tx_ready_o) {
			for (int i = 0; i < 8; i++)
				dev_sent.push_back((uint8_t)(m->d_tx_data_i >> (8 * i)));
			dev_words_left--;
		}
		if (m->f_resync_o)
			resync_words++;
		if (m->f_hdr_start_o) {
			collecting = true;
			pl.clear();
		}
		if (m->f_pl_valid_o)
			for (int i = 0; i < 8; i++)
				pl.push_back((uint8_t)(m->f_pl_data_o >> (8 * i)));
		if (m->f_evt_valid_o) {
			Verdict v;
			v.code = m->f_evt_code_o;
			v.tag = m->f_hdr_tag_o;
			if (v.code == EvtOk && collecting) {
				pl.resize(m->f_hdr_length_o);
				v.payload = pl;
			}
			collecting = false;
			verdicts.push_back(v);
		}
		// CTS held off: from a frame time after the rise, the line stays idle.
		if (cts_window && t > cts_rise + 11 * T_d + 4 * 2 * hp_d && t < cts_fall) {
			cts_checked++;
			if (!m->d_line_o)
				cts_violations++;
		}
	}
	void post_d()
	{
		if (!(m->d_tx_valid_i && !m->d_tx_ready_o)) {
			m->d_tx_valid_i = dev_words_left > 0;
			m->d_tx_data_i = rng();
		}
		if (cts_window)
			m->d_cts_ni = t >= cts_rise && t < cts_fall;
		m->d_stall_i = t >= stall_t0 && t < stall_t1;
	}

	void step()
	{
		double tn = std::min(next_h, next_d);
		t = tn;
		bool eh = next_h == tn, ed = next_d == tn;
		bool rise_h = eh && !m->clk_h_i, rise_d = ed && !m->clk_d_i;
		if (m->rst_ni) {
			if (rise_h)
				pre_h();
			if (rise_d)
				pre_d();
		}
		m->d_line_i = line_h2d();
		m->h_line_i = m->d_line_o;
		if (eh) {
			m->clk_h_i = !m->clk_h_i;
			next_h += hp_h;
		}
		if (ed) {
			m->clk_d_i = !m->clk_d_i;
			next_d += hp_d;
		}
		m->eval();
		if (m->rst_ni) {
			if (rise_h)
				post_h();
			if (rise_d)
				post_d();
			m->eval();
		}
	}

	// Runs the script, then until both lines have been idle a while.
	bool run()
	{
		double limit = 1e6 * T_d + (script.size() + dev_words_left * 8) * 30 * T_d;
		uint64_t n = 0;
		while (t < limit) {
			step();
			if (++n % 4096 == 0)
				prune();
			if (si >= script.size() && dev_words_left == 0)
				break;
		}
		double end = t + 200 * std::max(T_h, T_d);  // the last word: 80 bits
		while (t < end)
			step();
		return t < limit;
	}
};

// A byte right after a framing error is taken on the timing of the one
// before it (its start edge is hidden in the low stop bit): 20 bit periods
// without an edge, which holds up to about 1% between the clocks. Beyond
// that, the host leaves two idle bit periods after the damaged byte.
static void stoplow_pause(Tb &tb, double mm)
{
	if (std::fabs(mm) > 1.0)
		tb.script.push_back({KPause, 0, ANone, 2, false});
}

static void add_bytes(Tb &tb, const uint8_t *b, size_t n, double p_stoplow, double p_glitch,
		      double mm)
{
	for (size_t i = 0; i < n; i++) {
		Item it{KByte, b[i], ANone, 0, false};
		if (b[i] != 0 && urand() < p_stoplow)
			it.act = AStopLow;
		it.glitch = urand() < p_glitch;
		tb.script.push_back(it);
		if (it.act == AStopLow)
			stoplow_pause(tb, mm);
	}
}

static int run_bytes(uint32_t div, double mm, size_t nbytes, uint64_t seed)
{
	bool glitches = div >= 8 * 256 && !getenv("TB_UART_NOGLITCH");
	Tb tb(div, mm, glitches);
	nbytes = (nbytes + 7) / 8 * 8;
	for (size_t w = 0; w < nbytes / 8; w++) {
		uint8_t b[8];
		for (auto &x : b)
			x = (uint8_t)rng();
		if (rnd(16) == 0)
			memset(b, rnd(2) ? 0x00 : 0xFF, rnd(9));  // runs of equal bits
		add_bytes(tb, b, 8, 0.03, glitches ? 0.1 : 0.0, mm);
		if (rnd(100) < 2)  // at a word boundary: a break, then a pause
			tb.script.push_back({KBreak, 0, ANone, 20 + (int)rnd(30), false});
		else if (rnd(100) < 2)
			tb.script.push_back({KPause, 0, ANone, 10 + (int)rnd(80), false});
	}
	tb.dev_words_left = nbytes / 8;
	// The device's CTS held off for 150 bit periods, a third of the way in.
	tb.cts_window = true;
	tb.cts_rise = nbytes / 3 * 10 * tb.T_d;
	tb.cts_fall = tb.cts_rise + 150 * tb.T_d;
	// Two thirds of the way in, the framing takes no words for 7.5 word
	// times: the word waiting is kept, the next ones are dropped whole.
	tb.stall_t0 = nbytes * 2 / 3 * 10 * tb.T_d;
	tb.stall_t1 = tb.stall_t0 + 600 * tb.T_d;
	bool done = tb.run();

	// The received stream is the sent one without some whole words.
	unsigned ovr = tb.m->d_overrun_cnt_o;
	size_t cut = 0;
	while (cut < tb.got_dev.size() && cut < tb.sent.size() && tb.got_dev[cut] == tb.sent[cut])
		cut++;
	cut &= ~(size_t)7;
	bool words_dropped = ovr >= 4 && ovr <= 8 && tb.got_dev.size() + 8 * ovr == tb.sent.size() &&
			     std::equal(tb.got_dev.begin() + cut, tb.got_dev.end(),
					tb.sent.begin() + cut + 8 * ovr);
	size_t nsent = tb.sent.size();
	tb.sent.erase(tb.sent.begin() + cut, tb.sent.begin() + cut + 8 * std::min(ovr, 8u));

	int fails = 0;
	auto check = [&](bool ok, const char *what) {
		if (!ok) {
			printf("FAIL: %s\n", what);
			fails++;
		}
	};
	check(done, "timed out");
	check(tb.got_dev == tb.sent, "host->device bytes differ");
	check(tb.got_host == tb.dev_sent, "device->host bytes differ");
	check(tb.dev_sent.size() == nbytes, "device did not send all words");
	check(tb.m->d_ferr_cnt_o == (unsigned)(tb.n_stoplow + tb.n_break), "framing errors != injected");
	check(tb.m->d_break_cnt_o == (unsigned)tb.n_break, "breaks != injected");
	check(tb.m->d_slip_cnt_o == 0, "words slipped");
	check(words_dropped, "overrun: not 4..8 whole words dropped while the framing stalled");
	check(tb.m->h_ferr_cnt_o == 0, "host receiver saw framing errors");
	check(tb.cts_violations == 0 && tb.cts_checked > 0, "device sent while CTS was off");
	size_t ndiff = 0;
	for (size_t i = 0; i < std::min(tb.got_dev.size(), tb.sent.size()); i++)
		ndiff += tb.got_dev[i] != tb.sent[i];
	printf("%s bytes: %.2f clk/bit, mismatch %+.1f%%, seed %llu: host->device %zu of %zu bytes "
	       "(%zu differ; the framing stalled for 7.5 word times, %u whole words dropped as overruns), "
	       "device->host %zu/%zu bytes; stop bits forced low %d + breaks %d = %d "
	       "injected, framing errors counted %u (breaks %u); glitches %d; slips %u\n",
	       fails ? "FAIL" : "PASS", div / 256.0, mm, (unsigned long long)seed, tb.got_dev.size(),
	       nsent, ndiff, ovr, tb.got_host.size(), tb.dev_sent.size(), tb.n_stoplow, tb.n_break,
	       tb.n_stoplow + tb.n_break, tb.m->d_ferr_cnt_o, tb.m->d_break_cnt_o, tb.n_glitch,
	       tb.m->d_slip_cnt_o);
	return fails ? 1 : 0;
}

// ---- packets ------------------------------------------------------------
enum Damage { DNone, DFlipPayload, DFlipHeader, DStopLow, DDropout, DInsert, DBreakMid, DCount };
static const char *const damage_names[] = {"clean", "payload bit flipped", "header bit flipped",
					   "stop bit low", "byte lost", "byte made up",
					   "break inside"};

struct Pkt {
	uint32_t tag;
	std::vector<uint8_t> payload;
	Damage damage;   // of this packet
	bool must;       // must arrive intact
};

static std::vector<uint8_t> encode(uint32_t tag, const std::vector<uint8_t> &payload)
{
	static const uint8_t ops[] = {WSE_OP_PING, WSE_OP_MEM_WRITE, WSE_OP_STREAM_IN};
	struct wse_pkt p = {};
	p.major = WSE_PROTO_MAJOR;
	p.opcode = ops[rnd(3)];
	p.tag = tag;
	p.length = (uint32_t)payload.size();
	std::vector<uint8_t> f(wse_frame_bytes(p.length));
	int n = wse_pkt_encode(f.data(), f.size(), &p, payload.data());
	if (n < 0) {
		fprintf(stderr, "encode failed %d\n", n);
		exit(2);
	}
	f.resize((size_t)n);
	return f;
}

static int run_packets(uint32_t div, double mm, int episodes, uint64_t seed)
{
	bool glitches = div >= 8 * 256 && !getenv("TB_UART_NOGLITCH");
	Tb tb(div, mm, glitches);
	std::map<uint32_t, Pkt> pkts;
	uint32_t tag = 1;
	int damaged[DCount] = {};
	const int pause = 64;  // bit periods; the PHY's gap is 48
	auto packet = [&](Damage d, bool must) {
		Pkt p;
		p.tag = tag++;
		p.payload.resize(1 + rnd(200));
		for (auto &b : p.payload)
			b = (uint8_t)rng();
		p.damage = d;
		p.must = must;
		std::vector<uint8_t> f = encode(p.tag, p.payload);
		size_t pl0 = WSE_HDR_BYTES, pl1 = WSE_HDR_BYTES + p.payload.size();
		size_t at = d == DFlipHeader ? rnd(WSE_HDR_OFF_HCRC) : pl0 + rnd((uint32_t)(pl1 - pl0));
		for (int k = 0; d == DStopLow && f[at] == 0; k++)  // a zero byte would be a break
			at = k < 10 ? pl0 + rnd((uint32_t)(pl1 - pl0)) : 0;
		if (d == DBreakMid)  // inside a word after the header: that word is lost
			at = 8 * (3 + rnd((uint32_t)f.size() / 8 - 3)) + 1 + rnd(7);
		if (d == DInsert) {
			tb.script.push_back({KPause, 0, ANone, pause, false});
			tb.script.push_back({KInsert, 0, ANone, 0, false});
		}
		for (size_t i = 0; i < f.size(); i++) {
			if (d == DBreakMid && i == at)
				tb.script.push_back({KBreak, 0, ANone, 25, false});
			Item it{KByte, f[i], ANone, 0, glitches && urand() < 0.05};
			if (i == at) {
				if (d == DFlipPayload || d == DFlipHeader) {
					it.act = AFlip;
					it.arg = (int)rnd(8);
				} else if (d == DStopLow) {
					it.act = AStopLow;
				} else if (d == DDropout) {
					it.act = ADropout;
				}
			}
			tb.script.push_back(it);
			if (it.act == AStopLow)
				stoplow_pause(tb, mm);
		}
		pkts[p.tag] = p;
		damaged[d]++;
	};
	for (int e = 0; e < episodes; e++) {
		Damage d = rnd(3) == 0 ? DNone : (Damage)(1 + rnd(DCount - 1));
		if (d == DNone) {
			packet(DNone, true);
			continue;
		}
		// A stop bit forced low keeps the byte: the packet must arrive.
		packet(d, d == DStopLow);
		tb.script.push_back({KPause, 0, ANone, pause, false});
		bool kept_count = d == DFlipPayload || d == DFlipHeader || d == DStopLow || d == DInsert;
		packet(DNone, kept_count);
		tb.script.push_back({KPause, 0, ANone, pause, false});
		packet(DNone, true);
		packet(DNone, true);
	}
	bool done = tb.run();

	int fails = 0;
	auto fail = [&](const char *fmt, uint32_t a, uint32_t b) {
		if (fails++ < 10) {
			printf("FAIL: ");
			printf(fmt, a, b);
			printf("\n");
		}
	};
	if (!done)
		fail("timed out after %u of %u script items", (uint32_t)tb.si, (uint32_t)tb.script.size());
	std::map<uint32_t, int> ok;
	int crc_drops = 0, other = 0;
	for (const auto &v : tb.verdicts) {
		if (getenv("TB_UART_DEBUG"))
			printf("verdict %d tag %u\n", v.code, v.tag);
		if (v.code == EvtPayloadCrc)
			crc_drops++;
		if (v.code != EvtOk) {
			other += v.code != EvtPayloadCrc;
			continue;
		}
		auto it = pkts.find(v.tag);
		if (it == pkts.end()) {
			fail("accepted a packet with unknown tag %u (%u)", v.tag, 0);
			continue;
		}
		const Pkt &p = it->second;
		if (p.damage != DNone && p.damage != DStopLow)
			fail("damaged packet %u accepted (damage %u)", p.tag, p.damage);
		else if (v.payload != p.payload)
			fail("packet %u accepted with a different payload (%u)", p.tag, 0);
		ok[v.tag]++;
	}
	int lost_clean = 0, lost_allowed = 0, delivered = 0, must = 0, must_got = 0;
	for (const auto &kv : pkts) {
		const Pkt &p = kv.second;
		bool got = ok.count(p.tag) != 0;
		delivered += got;
		must += p.must;
		must_got += p.must && got;
		if (p.must && !got) {
			auto prev = pkts.find(p.tag - 1);
			fail("packet %u lost (after one with damage %u)", p.tag,
			     prev == pkts.end() ? 0 : prev->second.damage);
		}
		if (!p.must && p.damage == DNone && !got)
			lost_allowed++;
		if (p.damage == DNone && !got)
			lost_clean++;
		if (getenv("TB_UART_DEBUG"))
			printf("pkt %u len %zu damage %d must %d got %d\n", p.tag, p.payload.size(),
			       p.damage, p.must, got);
		if (ok.count(p.tag) && ok[p.tag] > 1)
			fail("packet %u accepted %u times", p.tag, ok[p.tag]);
	}
	unsigned exp_ferr = (unsigned)(tb.n_stoplow + tb.n_break);
	if (tb.m->d_ferr_cnt_o != exp_ferr)
		fail("framing errors counted %u, injected %u", tb.m->d_ferr_cnt_o, exp_ferr);
	if (tb.m->d_overrun_cnt_o)
		fail("overruns %u (%u)", tb.m->d_overrun_cnt_o, 0);

	printf("%s packets: %.2f clk/bit, mismatch %+.1f%%, seed %llu: %zu packets (%zu bytes), %d delivered intact"
	       " (%d of the %d that must);"
	       " damaged:", fails ? "FAIL" : "PASS", div / 256.0, mm, (unsigned long long)seed,
	       pkts.size(), tb.sent.size(), delivered, must_got, must);
	for (int d = 1; d < DCount; d++)
		printf(" %s %d,", damage_names[d], damaged[d]);
	printf(" none accepted but the stop-bit ones; dropped by the payload CRC %d, other verdicts %d,"
	       " header words skipped %llu; clean packets lost after a lost or broken byte %d (allowed),"
	       " after the second pause 0; framing errors %u of %u injected (breaks %u); words realigned %u;"
	       " glitches %d\n", crc_drops, other, (unsigned long long)tb.resync_words, lost_allowed,
	       tb.m->d_ferr_cnt_o, exp_ferr, tb.m->d_break_cnt_o, tb.m->d_slip_cnt_o, tb.n_glitch);
	(void)lost_clean;
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: tb_uart bytes|packets <clk/bit> <mismatch%%> <count> <seed>\n");
		return 2;
	}
	double cpb = atof(argv[2]), mm = atof(argv[3]);
	long count = atol(argv[4]);
	uint64_t seed = strtoull(argv[5], NULL, 0);
	rng.seed(seed);
	Verilated::commandArgs(argc, argv);
	uint32_t div = (uint32_t)lround(cpb * 256);
	if (!strcmp(argv[1], "bytes"))
		return run_bytes(div, mm, (size_t)count, seed);
	if (!strcmp(argv[1], "packets"))
		return run_packets(div, mm, (int)count, seed);
	fprintf(stderr, "tb_uart: unknown test %s\n", argv[1]);
	return 2;
}
