// SPDX-License-Identifier: Apache-2.0
//
// Behavioural model of a 3.0 V SPI NOR flash (IS25LP128 / W25Q128JV class)
// for the flash controller's testbench (tests/flash) and wsemu-sim's flash
// (sim/wsemu_sim.cpp): single-bit SPI in mode 0, sampled once per system
// clock (the controller's SCK is a divided system clock, so
// every SCK edge is seen). Commands: READ 0x03, WREN 0x06, RDSR 0x05 (WIP
// bit 0, WEL bit 1), PP 0x02, SE 0x20, RDID 0x9F.
//
// The array starts erased (0xFF). PP only clears bits (AND) and wraps
// within its 256-byte page as the parts do; SE sets a 4 KiB sector to 0xFF.
// PP and SE are ignored unless WEL is set, and clear it when they finish;
// they take effect when WIP clears, a configurable number of system clocks
// after CS# rises (independent of SCK). While WIP is set only RDSR is
// answered. Fault knobs: stuck_busy (WIP never clears) and no_wel (WREN
// ignored).
//
// Array writes: when an erase or program completes, its bytes are written
// one at a time in address order (a program's in the order they were
// sent) through on_write, when set, before mem changes. on_write returning
// false is a power cut of the part at that byte: it and the rest of the
// operation are not written, and the part is off from then on (off: it
// ignores the bus and MISO reads 0, so status reads show neither WEL nor
// WIP and reads return zeros).
//
// The SPI timing rules are assertions, counted in errors and the first few
// printed: CS# falls and rises with SCK low (mode 0); CS# high at least
// min_cs_high clocks between commands; SCK still while CS# is high; each
// SCK phase at least min_half clocks; MOSI stable for a clock before the
// rising edge (where the part samples it) and while SCK is high; CS# rises
// on a byte boundary; only known commands of the right length.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

class SpiFlash {
public:
	std::vector<uint8_t> mem;
	uint8_t id[3] = {0x9D, 0x60, 0x18};  // ISSI, IS25LP, 128 Mbit
	unsigned min_cs_high = 1, min_half = 1;
	uint64_t erase_cycles = 1000, program_cycles = 200;
	bool stuck_busy = false, no_wel = false;
	bool quiet = false;      // count timing errors without printing them
	uint64_t errors = 0;
	uint64_t commands = 0;   // CS# falls
	uint64_t polls = 0;      // RDSR commands
	uint64_t busy_left = 0;
	std::function<bool(uint32_t addr, uint8_t val)> on_write;
	bool off = false;        // power cut by on_write

	explicit SpiFlash(size_t bytes) : mem(bytes, 0xFF) {}

	bool wip() const { return busy_left > 0 || stuck_; }
	uint8_t status() const { return (uint8_t)((wip() ? 1 : 0) | (wel_ ? 2 : 0)); }

	// Power cycle: a stuck operation is dropped, WEL cleared.
	void power_cycle()
	{
		busy_left = 0;
		stuck_ = false;
		wel_ = false;
		pending_ = PNone;
	}

	// One system clock: the pins after the edge; returns MISO.
	int step(int sck, int cs_n, int mosi)
	{
		if (off) return 0;
		tick_busy();
		if (off) return 0;
		if (cs_n && !prev_cs_) { // CS# rose
			if (sck) fail("CS# rises with SCK high");
			end_command();
			cs_high_ = 0;
		} else if (!cs_n && prev_cs_) { // CS# fell
			if (sck) fail("CS# falls with SCK high");
			if (cs_high_ < min_cs_high) fail("CS# high for too short between commands");
			commands++;
			bits_ = 0;
			cmd_.clear();
			out_ = false;
			phase_ = 0;
		}
		if (cs_n) {
			cs_high_++;
			if (sck != prev_sck_) fail("SCK moves while CS# is high");
		} else if (!prev_cs_) {
			phase_++;
			if (sck && !prev_sck_) { // rising edge: sample MOSI
				if (phase_ < min_half) fail("SCK low phase too short");
				if (mosi != prev_mosi_) fail("MOSI changed at the rising edge");
				phase_ = 0;
				sh_ = (uint8_t)(sh_ << 1 | (mosi & 1));
				if (++bits_ % 8 == 0) got_byte(sh_);
			} else if (!sck && prev_sck_) { // falling edge: next MISO bit
				if (phase_ < min_half) fail("SCK high phase too short");
				phase_ = 0;
				if (bits_ % 8 == 0 && out_) {
					osh_ = next_out();
					obit_ = 7;
				} else if (obit_ > 0) {
					obit_--;
				}
				miso_ = out_ ? (osh_ >> obit_) & 1 : 1;
			} else if (sck && mosi != prev_mosi_) {
				fail("MOSI changed while SCK is high");
			}
		}
		prev_sck_ = sck;
		prev_cs_ = cs_n;
		prev_mosi_ = mosi;
		return miso_;
	}

private:
	enum Pending { PNone, PProgram, PErase };
	bool wel_ = false, stuck_ = false, out_ = false;
	int prev_sck_ = 0, prev_cs_ = 1, prev_mosi_ = 0, miso_ = 1;
	unsigned cs_high_ = 1000, phase_ = 0, bits_ = 0, obit_ = 0;
	uint8_t sh_ = 0, osh_ = 0xFF;
	uint32_t raddr_ = 0, nid_ = 0;
	std::vector<uint8_t> cmd_;
	Pending pending_ = PNone;
	uint32_t paddr_ = 0;
	std::vector<uint8_t> pdata_;

	void fail(const char *what)
	{
		if (errors++ < 10 && !quiet) fprintf(stderr, "flash model: %s (command %llu)\n", what,
					     (unsigned long long)commands);
	}
	void put(uint32_t a, uint8_t v)
	{
		if (on_write && !on_write(a, v)) off = true;
		else mem[a] = v;
	}

	uint32_t addr() const { return (uint32_t)cmd_[1] << 16 | (uint32_t)cmd_[2] << 8 | cmd_[3]; }

	void tick_busy()
	{
		if (busy_left == 0 || stuck_) return;
		if (--busy_left) return;
		// The operation completes: the array changes, WEL clears.
		if (pending_ == PErase) {
			uint32_t base = paddr_ & ~4095u;
			for (uint32_t i = 0; i < 4096 && !off; i++) put((base + i) % mem.size(), 0xFF);
		} else if (pending_ == PProgram) {
			uint32_t page = paddr_ & ~255u;
			for (size_t i = 0; i < pdata_.size() && !off; i++) {
				uint32_t a = (uint32_t)((page + ((paddr_ + i) & 255)) % mem.size());
				put(a, mem[a] & pdata_[i]);
			}
		}
		pending_ = PNone;
		wel_ = false;
	}

	// A whole byte arrived on MOSI.
	void got_byte(uint8_t b)
	{
		cmd_.push_back(b);
		uint8_t op = cmd_[0];
		if (wip() && op != 0x05) return; // busy: only RDSR is answered
		if (cmd_.size() == 1) {
			if (op == 0x05) { out_ = true; polls++; }
			else if (op == 0x9F) { out_ = true; nid_ = 0; }
			else if (op != 0x03 && op != 0x06 && op != 0x02 && op != 0x20) fail("unknown command");
		} else if (cmd_.size() == 4 && op == 0x03) {
			out_ = true;
			raddr_ = addr();
		}
	}

	uint8_t next_out()
	{
		switch (cmd_.empty() ? 0 : cmd_[0]) {
		case 0x05: return status();
		case 0x9F: return nid_ < 3 ? id[nid_++] : 0x00;
		case 0x03: { uint8_t v = mem[raddr_ % mem.size()]; raddr_ = (uint32_t)((raddr_ + 1) % mem.size()); return v; }
		default: return 0xFF;
		}
	}

	// CS# rose: write commands take effect here.
	void end_command()
	{
		if (bits_ % 8) fail("CS# rises inside a byte");
		if (cmd_.empty()) return;
		uint8_t op = cmd_[0];
		if (wip()) return;
		switch (op) {
		case 0x06:
			if (cmd_.size() != 1) fail("WREN with extra bytes");
			if (!no_wel) wel_ = true;
			break;
		case 0x20:
			if (cmd_.size() != 4) { fail("SE not 4 bytes"); break; }
			if (!wel_) break;
			start(PErase, erase_cycles);
			break;
		case 0x02:
			if (cmd_.size() < 5) { fail("PP without data"); break; }
			if (!wel_) break;
			pdata_.assign(cmd_.begin() + 4, cmd_.end());
			// More than a page: the last 256 bytes are kept.
			if (pdata_.size() > 256) pdata_.erase(pdata_.begin(), pdata_.end() - 256);
			start(PProgram, program_cycles);
			break;
		case 0x03:
			if (cmd_.size() < 4) fail("READ without an address");
			break;
		default:
			break;
		}
	}

	void start(Pending p, uint64_t cycles)
	{
		pending_ = p;
		paddr_ = addr();
		busy_left = cycles ? cycles : 1;
		if (stuck_busy) stuck_ = true;
	}
};
