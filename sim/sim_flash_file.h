// SPDX-License-Identifier: Apache-2.0
//
// The configuration flash of the RTL simulators (wsemu-sim, wsemu-board-sim):
// the behavioural SPI NOR part of spi_flash_model.h whose array is a file,
// so a restarted simulator keeps what the last one wrote, and the power cut
// of --fault flash:N. The options, the same in both simulators
// (docs/wsemu-sim.md, "Flash"):
//
//   --flash-bytes N          a part of N bytes (a power of two, 64 KiB to
//                            16 MiB); without it there is no part (MISO high)
//   --flash-file PATH        its array (default: the socket's path + .flash)
//   --flash-cycles E,P       clocks of a 4 KiB sector erase and a page program
//   --fault flash:N[,kill|off]  power cut after N array bytes written: the
//                            simulator killed (SIGKILL), or the part alone off
//
// Every error is printed with the simulator's name; the caller exits 3.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spi_flash_model.h"

class SimFlash {
public:
	explicit SimFlash(const char *prog) : prog_(prog) {}

	SpiFlash *part = nullptr;  // none until open() with --flash-bytes

	// Takes option A (its value from VAL when it needs one): 1 when it was
	// a flash option, 0 when not, -1 on a bad value (printed).
	template <typename Val> int option(const std::string &a, Val val)
	{
		if (a == "--flash-bytes") {
			char *end;
			unsigned long long v = strtoull(val(), &end, 0);
			if (*end || v < 65536 || v > (1u << 24) || (v & (v - 1))) {
				fprintf(stderr, "%s: --flash-bytes must be a power of two from 65536 to "
						"16777216\n", prog_);
				return -1;
			}
			bytes_ = (uint32_t)v;
		} else if (a == "--flash-file") {
			path_ = val();
		} else if (a == "--flash-cycles") {
			char *end;
			const char *v = val();
			erase_cycles_ = strtoull(v, &end, 0);
			if (*end == ',') program_cycles_ = strtoull(end + 1, &end, 0);
			if (*end || !erase_cycles_ || !program_cycles_) {
				fprintf(stderr, "%s: --flash-cycles takes ERASE,PROGRAM (clocks, both above "
						"0)\n", prog_);
				return -1;
			}
		} else {
			return 0;
		}
		return 1;
	}

	// The fields of --fault flash:FIELDS ("N" or "N,kill" or "N,off"):
	// false with the reason in *why.
	bool fault(const std::string &fields, std::string *why)
	{
		size_t c = fields.find(',');
		std::string n = fields.substr(0, c), how = c == std::string::npos ? "" : fields.substr(c + 1);
		if (n.empty() || (c != std::string::npos && how != "kill" && how != "off")) {
			*why = "flash takes N[,kill|off]";
			return false;
		}
		char *end = nullptr;
		errno = 0;
		budget_ = strtoull(n.c_str(), &end, 0);
		if (errno || *end || n[0] == '-') {
			*why = "N '" + n + "' is not a byte count";
			return false;
		}
		kill_ = how != "off";
		cut_ = true;
		return true;
	}

	// Creates the part when --flash-bytes was given, its file next to SOCK
	// unless --flash-file named one: created erased (0xFF) when missing or
	// empty, else kept as it is (and then of the part's size). The SPI
	// timing is checked against hif_flash's: SCK half period one clock,
	// CS# high three. False (printed) on an error, or on a --fault flash
	// without a part.
	bool open(const char *sock)
	{
		if (!bytes_) {
			if (cut_) fprintf(stderr, "%s: --fault flash: this simulator has no flash "
					  "(--flash-bytes)\n", prog_);
			return !cut_;
		}
		std::string path = path_.empty() ? std::string(sock) + ".flash" : path_;
		int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog_, path.c_str(), strerror(errno));
			if (fd >= 0) close(fd);
			return false;
		}
		bool fresh = st.st_size == 0;
		if (!fresh && st.st_size != (off_t)bytes_) {
			fprintf(stderr, "%s: %s holds %lld bytes, not the flash's %u\n", prog_, path.c_str(),
				(long long)st.st_size, bytes_);
			close(fd);
			return false;
		}
		if (fresh && ftruncate(fd, bytes_) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog_, path.c_str(), strerror(errno));
			close(fd);
			return false;
		}
		void *m = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED) {
			fprintf(stderr, "%s: %s: mmap: %s\n", prog_, path.c_str(), strerror(errno));
			return false;
		}
		map_ = (uint8_t *)m;
		if (fresh) memset(map_, 0xFF, bytes_);
		part = new SpiFlash(bytes_);
		memcpy(part->mem.data(), map_, bytes_);
		unsigned cap = 0;
		while ((1u << cap) < bytes_) cap++;
		part->id[2] = (uint8_t)cap;  // JEDEC capacity byte: log2 of the bytes
		part->min_half = 1;
		part->min_cs_high = 3;
		part->erase_cycles = erase_cycles_;
		part->program_cycles = program_cycles_;
		part->on_write = [this](uint32_t a, uint8_t v) {
			if (budget_ == 0) {
				if (kill_) ::kill(getpid(), SIGKILL);
				return false;
			}
			budget_--;
			map_[a] = v;
			return true;
		};
		return true;
	}

	// One clock of the part: its pins after the edge; MISO for the next
	// (high, no part answering, without one).
	int step(int sck, int cs_n, int mosi) { return part ? part->step(sck, cs_n, mosi) : 1; }

	// At exit: the SPI timing errors the part saw, if any.
	void report() const
	{
		if (part && part->errors)
			fprintf(stderr, "%s: flash: %llu SPI timing errors\n", prog_,
				(unsigned long long)part->errors);
	}

private:
	const char *prog_;
	uint32_t bytes_ = 0;
	std::string path_;
	// Clocks of a sector erase and a page program (docs/wsemu-sim.md).
	uint64_t erase_cycles_ = 2000, program_cycles_ = 200;
	uint8_t *map_ = nullptr;
	uint64_t budget_ = UINT64_MAX;  // bytes the part may still write
	bool kill_ = true, cut_ = false;
};
