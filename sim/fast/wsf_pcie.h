/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_pcie.h - the PCIe device side of docs/pcie.md over wsemu-fast's
 * host interface (wsf_host.h), for a QEMU guest: BAR 0's register file is
 * a shared memory the guest sees as an ivshmem BAR, and the descriptor
 * rings' DMA reads and writes the guest's RAM, which QEMU keeps in a
 * shared file this process maps too. A bus address is an offset in that
 * file (a guest without an IOMMU whose RAM starts at physical address 0
 * and lies below the PCI hole). docs/wsemu-fast.md, "The PCIe device".
 *
 * Nothing traps the guest's stores: the model looks at the registers when
 * polled, through the register file's front end it shares with wsemu-sim
 * (sim/common/pcie_shm.h), and does the ring checks and the moves itself.
 * What differs from the RTL: docs/pcie.md, "The ivshmem device":
 * a write is seen when the model next looks, so the guest stops a ring by
 * writing CTRL with bit 31 set and RUN clear and waits for the model to
 * write CTRL 0 (a stop and a start the model does not see apart would be
 * one start); the RW1C registers are plain memory the model sets bits in
 * atomically, which the guest clears with a read-modify-write; read-only
 * registers are rewritten when the model looks; BUSY is never set, as
 * every descriptor is done within one look. Interrupts are the caller's
 * to send (wsf_pcie_take_vectors()).
 */
#ifndef WSEMU_WSF_PCIE_H
#define WSEMU_WSF_PCIE_H

#include <stddef.h>
#include <stdint.h>

#include "wsf_host.h"
#include "wsemu/wse_board.h"

struct wsf_pcie;

/* A device side over h with its registers at regs (WSE_PCIE_BAR_BYTES,
 * shared with the guest) and the guest's RAM at ram (ram_bytes). Fills the
 * identification block and the DTB (dtb, dtb_len) and resets the rest: both
 * rings stopped, every interrupt masked.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a DTB larger than BAR 0 holds),
 * WSE_ERROR_NO_MEM. */
int wsf_pcie_create(struct wsf_host *h, volatile void *regs, void *ram, size_t ram_bytes,
		    const struct wse_board *bd, const uint8_t *dtb, size_t dtb_len,
		    struct wsf_pcie **out);
void wsf_pcie_destroy(struct wsf_pcie *p);

/* One look: the rings' control registers and doorbells, then the next
 * H2C descriptor's bytes into the host interface and its pending output
 * into every C2H buffer the host has given. Returns the
 * descriptors completed (0: nothing to do), or an error of
 * wsf_host_rx_commit(). */
int wsf_pcie_poll(struct wsf_pcie *p);

/* The vectors to send now, a bit each (WSE_PCIE_VEC_*): those whose
 * INT_STATUS bit the model set since the last call and which INT_MASK does
 * not mask; a masked one waits for its unmasking. A vector may be sent
 * again before the host cleared its bit (an eventfd merges them). */
uint32_t wsf_pcie_take_vectors(struct wsf_pcie *p);

/* True while bytes for the host wait for a C2H buffer. */
int wsf_pcie_tx_pending(const struct wsf_pcie *p);

#endif
