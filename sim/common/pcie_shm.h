/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pcie_shm.h - the register file of the PCIe device side (docs/pcie.md) as
 * a QEMU guest sees it in an ivshmem BAR: a shared memory whose stores
 * nobody traps. Both device models serve it through this front end, so a
 * register write means the same to either (docs/pcie.md, "The ivshmem
 * device"): wsemu-fast's C model (sim/fast/wsf_pcie.c) and wsemu-sim's RTL
 * through its BAR 0 port (sim/sim_pcie.h).
 *
 * The front end looks at the registers when its owner calls
 * pcie_shm_look(): the identification block and the DTB are rewritten if
 * the guest wrote them; a stopped ring whose CTRL has RUN is started (the
 * back end checks base and size), a running one whose CTRL lost RUN is
 * stopped (a stop request, CTRL with bit 31 and no RUN, is taken by
 * writing CTRL 0 once the ring is stopped); a new TAIL is handed to the
 * back end, and a refused one put back. The back end reports HEAD, the
 * status bits it sets and the vectors to send; INT_STATUS and ERR_STATUS
 * are plain memory the front end sets bits in atomically and the guest
 * clears with a read-modify-write.
 *
 * Also the ivshmem server of QEMU's ivshmem-doorbell (pcie_shm_server_*):
 * the register file's descriptor and an eventfd per MSI-X vector.
 */
#ifndef WSEMU_SIM_PCIE_SHM_H
#define WSEMU_SIM_PCIE_SHM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcie_shm;

/* What a register write asks of the device, ring 0 H2C, ring 1 C2H. */
struct pcie_shm_ops {
	/* Start a stopped ring: 0, or the ERR_STATUS bit (WSE_PCIE_ERR_RING_*,
	 * unshifted) that refuses it. */
	uint32_t (*start)(void *ctx, unsigned ring, uint64_t base, uint32_t size);
	/* Stop a running ring; it is stopped when this returns. */
	void (*stop)(void *ctx, unsigned ring);
	/* A new TAIL on a running ring: 0, or WSE_PCIE_ERR_TAIL when refused. */
	uint32_t (*tail)(void *ctx, unsigned ring, uint32_t tail);
};

/* The front end over regs (WSE_PCIE_BAR_BYTES, shared with the guest):
 * fills it with id (the WSE_PCIE_DTB_OFFSET / 4 words of the
 * identification block; 0 words are not kept) and the DTB (dtb, dtb_len),
 * both rings stopped, every vector masked, the rest 0.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a DTB larger than BAR 0 holds),
 * WSE_ERROR_NO_MEM. */
int pcie_shm_create(volatile void *regs, const uint32_t *id, const uint8_t *dtb, size_t dtb_len,
		    struct pcie_shm **out);
void pcie_shm_destroy(struct pcie_shm *s);

/* One look at what the guest wrote, through ops (ctx passed on). */
void pcie_shm_look(struct pcie_shm *s, const struct pcie_shm_ops *ops, void *ctx);

/* The back end's news: a ring stopped by itself (CTRL, HEAD and TAIL read
 * 0); HEAD of a running ring; ERR_STATUS bits of a ring (unshifted) with
 * the error vector; INT_STATUS bits alone; a vector to send with its
 * INT_STATUS bit. */
void pcie_shm_stopped(struct pcie_shm *s, unsigned ring);
void pcie_shm_head(struct pcie_shm *s, unsigned ring, uint32_t head);
void pcie_shm_error(struct pcie_shm *s, unsigned ring, uint32_t bits);
void pcie_shm_status(struct pcie_shm *s, uint32_t bits);
void pcie_shm_raise(struct pcie_shm *s, unsigned vec);

/* The vectors to send now, a bit each (WSE_PCIE_VEC_*): those raised since
 * the last call that INT_MASK does not mask; a masked one waits for its
 * unmasking. A vector may be sent again before the host cleared its bit
 * (an eventfd merges them). */
uint32_t pcie_shm_take_vectors(struct pcie_shm *s);

/* The ivshmem server: one client, QEMU's ivshmem-doorbell, with ID 0. */
struct pcie_shm_server;

/* Listen on the Unix socket path, serving the register file regs_path.
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a path too long),
 * WSE_ERROR_NO_MEM, WSE_ERROR_IO (socket or eventfd; errno says why). */
int pcie_shm_server_open(const char *path, const char *regs_path, struct pcie_shm_server **out);
/* Accept QEMU if it is connecting (a second client is refused, with a
 * message on stderr), then send the vectors vec (a bit each). Errors:
 * WSE_ERROR_IO (an eventfd write failed). */
int pcie_shm_server_send(struct pcie_shm_server *v, uint32_t vec);
/* Close and unlink the socket. */
void pcie_shm_server_close(struct pcie_shm_server *v);

/* A file of bytes bytes (made or resized), mapped shared; NULL with a
 * message on stderr, prog its prefix. */
void *pcie_shm_map_file(const char *prog, const char *path, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
