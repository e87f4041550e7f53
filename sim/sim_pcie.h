// sim_pcie.h - wsemu-sim's RTL PCIe device side (wse_top with PcieEp,
// docs/pcie.md) served to a QEMU guest (docs/wsemu-sim.md, "The PCIe
// device"): the guest's register file is the shared ivshmem BAR of
// sim/common/pcie_shm.h, whose requests (a ring's RUN, stop, TAIL) this
// bridge turns into accesses on the model's BAR 0 register port; the
// model's HEAD, INT_STATUS and ERR_STATUS are read back into it, the
// status bits cleared in the model once copied. The DMA master port reads
// and writes the guest's RAM, a shared file, at the bus addresses the
// driver programmed (a bus address is an offset in it); a read outside it
// is answered with an error (the ring's BUS), a write outside it is
// dropped and counted, as a root complex drops an unsupported posted
// write. MSI-X vector requests become the vectors the ivshmem server sends.
//
// The register port is driven from the caller's clock: drive() before the
// link clock falls, sample() after it fell; register accesses made by
// look() run whole cycles through the step function given at creation.
#ifndef WSEMU_SIM_PCIE_H
#define WSEMU_SIM_PCIE_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "pcie_shm.h"
#include "wsemu/wse_pcie.h"

template <class Top>
class SimPcie {
 public:
	// Cycles a stopping ring may stay BUSY (a C2H buffer waiting for the
	// end of its packet) before the stop is reported as not taken.
	static const uint64_t StopCycles = 1u << 22;

	SimPcie(Top *top, uint8_t *ram, uint64_t ram_bytes, std::function<void()> step)
		: top_(top), ram_(ram), ram_bytes_(ram_bytes), step_(std::move(step)) {}
	~SimPcie() { pcie_shm_destroy(shm_); }

	// Read the identification block and the DTB from the model's BAR 0
	// and lay out the register file at regs. False with a message.
	bool open(volatile void *regs)
	{
		std::vector<uint32_t> id(WSE_PCIE_DTB_OFFSET / 4);
		for (uint32_t i = 0; i < id.size(); i++)
			id[i] = reg_read(4 * i);
		if (id[WSE_PCIE_REG_MAGIC / 4] != WSE_PCIE_MAGIC) {
			fprintf(stderr, "wsemu-sim: the model's BAR 0 reads magic 0x%08x, not 0x%08x: "
					"built without its PCIe device side?\n",
				id[WSE_PCIE_REG_MAGIC / 4], WSE_PCIE_MAGIC);
			return false;
		}
		// the identification block holds only its registers and COMPAT
		for (uint32_t i = WSE_PCIE_REG_H2C / 4; i < id.size(); i++) id[i] = 0;
		uint32_t dtb_len = id[WSE_PCIE_REG_DTB_SIZE / 4];
		if (dtb_len > WSE_PCIE_BAR_BYTES - WSE_PCIE_DTB_OFFSET) {
			fprintf(stderr, "wsemu-sim: the model's DTB_SIZE %u does not fit BAR 0\n", dtb_len);
			return false;
		}
		std::vector<uint8_t> dtb(dtb_len + 4);
		for (uint32_t i = 0; i < dtb_len; i += 4) {
			uint32_t w = reg_read(WSE_PCIE_DTB_OFFSET + i);
			for (int k = 0; k < 4; k++) dtb[i + k] = (uint8_t)(w >> (8 * k));
		}
		// the model's vectors are never masked: the register file masks them
		reg_write(WSE_PCIE_REG_INT_MASK, 0);
		int e = pcie_shm_create(regs, id.data(), dtb.data(), dtb_len, &shm_);
		if (e < 0) fprintf(stderr, "wsemu-sim: the register file: error %d\n", e);
		return e == 0;
	}

	// The port's inputs for the next link cycle.
	void drive()
	{
		top_->pcie_reg_valid_i = reg_valid_;
		top_->pcie_reg_write_i = reg_write_;
		top_->pcie_reg_addr_i = reg_addr_;
		top_->pcie_reg_wdata_i = reg_wdata_;
		top_->pcie_rd_ready_i = 1;
		top_->pcie_wr_ready_i = 1;
		top_->pcie_msix_ready_i = 1;
		bool beat = !cpl_.empty();
		top_->pcie_cpl_valid_i = beat;
		if (beat) {
			const Cpl &c = cpl_.front();
			top_->pcie_cpl_tag_i = c.tag;
			top_->pcie_cpl_data_i = c.data;
			top_->pcie_cpl_last_i = c.last;
			top_->pcie_cpl_err_i = c.err;
			cpl_.pop_front();
		}
	}

	// The port's outputs, after the link clock fell: the requests the
	// next rising edge takes. True when the port moved anything.
	bool sample()
	{
		bool moved = top_->pcie_cpl_valid_i;
		if (top_->pcie_rd_valid_o) {
			moved = true;
			reads_++;
			uint64_t a = top_->pcie_rd_addr_o;
			uint32_t n = top_->pcie_rd_len_o;
			uint8_t tag = top_->pcie_rd_tag_o;
			if (!in_ram(a, 8ull * n)) {
				cpl_.push_back({tag, 0, true, true});
				bad_reads_++;
			} else {
				__atomic_thread_fence(__ATOMIC_ACQUIRE);
				for (uint32_t k = 0; k < n; k++) {
					uint64_t w;
					memcpy(&w, ram_ + a + 8 * k, 8);
					cpl_.push_back({tag, w, k + 1 == n, false});
				}
			}
		}
		if (top_->pcie_wr_valid_o) {
			moved = true;
			writes_++;
			uint64_t a = top_->pcie_wr_addr_o, w = top_->pcie_wr_data_o;
			if (in_ram(a, 8)) {
				__atomic_thread_fence(__ATOMIC_RELEASE);
				memcpy(ram_ + a, &w, 8);
			} else {
				bad_writes_++;
			}
		}
		if (top_->pcie_msix_valid_o) {
			moved = true;
			vectors_ |= 1u << top_->pcie_msix_vector_o;
		}
		return moved;
	}

	// One look at the register file: the guest's requests to the model,
	// the model's state back. Returns the vectors to send.
	uint32_t look()
	{
		static const pcie_shm_ops ops = {start_cb, stop_cb, tail_cb};
		pcie_shm_look(shm_, &ops, this);
		uint32_t ist = reg_read(WSE_PCIE_REG_INT_STATUS);
		if (ist) {
			reg_write(WSE_PCIE_REG_INT_STATUS, ist);
			pcie_shm_status(shm_, ist);
		}
		uint32_t err = reg_read(WSE_PCIE_REG_ERR_STATUS);
		if (err) reg_write(WSE_PCIE_REG_ERR_STATUS, err);
		for (unsigned r = 0; r < 2; r++) {
			uint32_t bits = (err >> (r ? WSE_PCIE_ERR_C2H_SHIFT : 0)) & 0xffu;
			if (bits) pcie_shm_error(shm_, r, bits);
			if (!run_[r]) continue;
			// every error but a refused TAIL stops the ring
			if (bits & ~WSE_PCIE_ERR_TAIL &&
			    !(reg_read(ring_reg(r, WSE_PCIE_RING_CTRL)) & WSE_PCIE_CTRL_RUN)) {
				run_[r] = false;
				pcie_shm_stopped(shm_, r);
				continue;
			}
			uint32_t head = reg_read(ring_reg(r, WSE_PCIE_RING_HEAD));
			if (head != head_[r]) {
				head_[r] = head;
				pcie_shm_head(shm_, r, head);
			}
		}
		for (unsigned v = 0; v < WSE_PCIE_NUM_VECTORS; v++)
			if (vectors_ & 1u << v) pcie_shm_raise(shm_, v);
		vectors_ = 0;
		return pcie_shm_take_vectors(shm_);
	}

	// Work the model has from the host: completions to deliver, H2C
	// descriptors not yet taken, a register request just forwarded.
	bool busy()
	{
		bool b = !cpl_.empty() || (run_[0] && head_[0] != tail_[0]) || forwarded_;
		forwarded_ = false;
		return b;
	}

	void report() const
	{
		fprintf(stderr, "wsemu-sim: PCIe: %llu register accesses, %llu DMA reads (%llu outside "
				"the guest's RAM), %llu DMA writes (%llu outside it, dropped)\n",
			(unsigned long long)reg_accesses_, (unsigned long long)reads_,
			(unsigned long long)bad_reads_, (unsigned long long)writes_,
			(unsigned long long)bad_writes_);
	}

 private:
	struct Cpl {
		uint8_t tag;
		uint64_t data;
		bool last, err;
	};

	static uint32_t ring_reg(unsigned r, uint32_t off)
	{
		return (r ? WSE_PCIE_REG_C2H : WSE_PCIE_REG_H2C) + off;
	}

	bool in_ram(uint64_t a, uint64_t n) const { return a <= ram_bytes_ && n <= ram_bytes_ - a; }

	// One access on the register port: a cycle with it offered (always
	// taken), a read's data there after that cycle's edge.
	uint32_t reg_access(bool write, uint32_t addr, uint32_t wdata)
	{
		reg_valid_ = 1;
		reg_write_ = write;
		reg_addr_ = (uint16_t)addr;
		reg_wdata_ = wdata;
		step_();
		reg_valid_ = 0;
		reg_accesses_++;
		if (!write && !top_->pcie_reg_rvalid_o)
			fprintf(stderr, "wsemu-sim: BAR 0 read of 0x%04x without its data\n", addr);
		return write ? 0 : (uint32_t)top_->pcie_reg_rdata_o;
	}
	uint32_t reg_read(uint32_t addr) { return reg_access(false, addr, 0); }
	void reg_write(uint32_t addr, uint32_t v) { reg_access(true, addr, v); }

	static uint32_t start_cb(void *ctx, unsigned r, uint64_t base, uint32_t size)
	{
		SimPcie *p = static_cast<SimPcie *>(ctx);
		p->forwarded_ = true;
		p->reg_write(ring_reg(r, WSE_PCIE_RING_BASE_LO), (uint32_t)base);
		p->reg_write(ring_reg(r, WSE_PCIE_RING_BASE_HI), (uint32_t)(base >> 32));
		p->reg_write(ring_reg(r, WSE_PCIE_RING_SIZE), size);
		p->reg_write(ring_reg(r, WSE_PCIE_RING_CTRL), WSE_PCIE_CTRL_RUN);
		if (p->reg_read(ring_reg(r, WSE_PCIE_RING_CTRL)) & WSE_PCIE_CTRL_RUN) {
			p->run_[r] = true;
			p->head_[r] = p->tail_[r] = 0;
			return 0;
		}
		uint32_t err = p->reg_read(WSE_PCIE_REG_ERR_STATUS) >> (r ? WSE_PCIE_ERR_C2H_SHIFT : 0);
		err &= WSE_PCIE_ERR_RING_ALIGN | WSE_PCIE_ERR_RING_SIZE;
		if (!err) fprintf(stderr, "wsemu-sim: ring %u: RUN not taken, no error bit\n", r);
		return err ? err : WSE_PCIE_ERR_RING_SIZE;
	}

	static void stop_cb(void *ctx, unsigned r)
	{
		SimPcie *p = static_cast<SimPcie *>(ctx);
		p->forwarded_ = true;
		p->reg_write(ring_reg(r, WSE_PCIE_RING_CTRL), 0);
		uint64_t n = 0;
		while (p->reg_read(ring_reg(r, WSE_PCIE_RING_CTRL)) & WSE_PCIE_CTRL_BUSY)
			if (++n == StopCycles) {
				fprintf(stderr, "wsemu-sim: ring %u still BUSY %llu cycles after its stop\n",
					r, (unsigned long long)n);
				break;
			}
		p->run_[r] = false;
	}

	static uint32_t tail_cb(void *ctx, unsigned r, uint32_t tail)
	{
		SimPcie *p = static_cast<SimPcie *>(ctx);
		p->forwarded_ = true;
		p->reg_write(ring_reg(r, WSE_PCIE_RING_TAIL), tail);
		if (p->reg_read(ring_reg(r, WSE_PCIE_RING_TAIL)) != tail) return WSE_PCIE_ERR_TAIL;
		p->tail_[r] = tail;
		return 0;
	}

	Top *top_;
	uint8_t *ram_;
	uint64_t ram_bytes_;
	std::function<void()> step_;
	pcie_shm *shm_ = nullptr;
	std::deque<Cpl> cpl_;
	uint8_t reg_valid_ = 0, reg_write_ = 0;
	uint16_t reg_addr_ = 0;
	uint32_t reg_wdata_ = 0;
	uint32_t vectors_ = 0;  // MSI-X requests since the last look
	bool run_[2] = {false, false};
	uint32_t head_[2] = {0, 0}, tail_[2] = {0, 0};
	bool forwarded_ = false;
	uint64_t reg_accesses_ = 0, reads_ = 0, bad_reads_ = 0, writes_ = 0, bad_writes_ = 0;
};

#endif
