/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_pcie.h - the PCIe device side of a wsemu board (docs/pcie.md): BAR 0
 * register offsets and bits, the descriptor-ring formats, the error bits
 * and the MSI-X vectors. Mirrors rtl/host_if/hif_pcie_pkg.sv name for name
 * (make test-wire checks them). Freestanding: the wire header's types only.
 * Everything in host memory is little-endian.
 */
#ifndef WSEMU_WSE_PCIE_H
#define WSEMU_WSE_PCIE_H

#include "wse_wire.h"

/* ---- BAR 0: identification (read-only, u32 each) ---- */
#define WSE_PCIE_MAGIC 0x50455357u   /* "WSEP" */
#define WSE_PCIE_VERSION 0x00010000u /* major << 16 | minor: 1.0 */
#define WSE_PCIE_REG_MAGIC 0x000u
#define WSE_PCIE_REG_MESH_COLS 0x004u
#define WSE_PCIE_REG_MESH_ROWS 0x008u
#define WSE_PCIE_REG_DTB_SIZE 0x00cu
#define WSE_PCIE_REG_MAX_PAYLOAD 0x010u
#define WSE_PCIE_REG_VERSION 0x014u
#define WSE_PCIE_REG_DTB_OFFSET 0x018u /* where the DTB starts in BAR 0 */
#define WSE_PCIE_REG_DESC_MAX 0x01cu   /* largest descriptor length, bytes */
#define WSE_PCIE_REG_RING_MAX 0x020u   /* largest ring, entries */
#define WSE_PCIE_REG_COMPAT 0x040u     /* board compatible string, NUL-padded */
#define WSE_PCIE_COMPAT_BYTES 64u
#define WSE_PCIE_DTB_OFFSET 0x1000u
#define WSE_PCIE_BAR_BYTES 0x10000u

/* ---- BAR 0: the rings, a block each; WSE_PCIE_RING_* offsets inside ---- */
#define WSE_PCIE_REG_H2C 0x100u /* host to card: request packets */
#define WSE_PCIE_REG_C2H 0x140u /* card to host: responses, events */
#define WSE_PCIE_RING_BASE_LO 0x00u /* RW while stopped, not BUSY: ring address [31:0] */
#define WSE_PCIE_RING_BASE_HI 0x04u /* RW while stopped, not BUSY: ring address [63:32] */
#define WSE_PCIE_RING_SIZE 0x08u    /* RW while stopped, not BUSY: entries, a power of two */
#define WSE_PCIE_RING_TAIL 0x0cu    /* doorbell: the host's producer index */
#define WSE_PCIE_RING_HEAD 0x10u    /* RO: the next entry the device takes */
#define WSE_PCIE_RING_CTRL 0x14u
#define WSE_PCIE_CTRL_RUN 0x1u      /* RW: the ring is enabled */
#define WSE_PCIE_CTRL_BUSY 0x2u     /* RO: a descriptor is in progress */

/* ---- BAR 0: interrupts and errors ---- */
#define WSE_PCIE_REG_INT_STATUS 0x200u /* bit k: vector k pending; write 1 to clear */
#define WSE_PCIE_REG_INT_MASK 0x204u   /* bit k: vector k masked (all after reset) */
#define WSE_PCIE_REG_ERR_STATUS 0x208u /* WSE_PCIE_ERR_*; write 1 to clear */
#define WSE_PCIE_VEC_H2C 0u /* an H2C descriptor completed */
#define WSE_PCIE_VEC_C2H 1u /* a C2H descriptor completed */
#define WSE_PCIE_VEC_ERR 2u /* an error bit was set */
#define WSE_PCIE_NUM_VECTORS 3u
/* ERR_STATUS: H2C in bits 7:0, C2H the same bits << WSE_PCIE_ERR_C2H_SHIFT */
#define WSE_PCIE_ERR_RING_ALIGN 0x01u /* RUN with a base not 16-byte aligned */
#define WSE_PCIE_ERR_RING_SIZE 0x02u  /* RUN with a size not a power of two, 0 or too large */
#define WSE_PCIE_ERR_DESC_ALIGN 0x04u /* buffer address or length not a multiple of 8 */
#define WSE_PCIE_ERR_DESC_LEN 0x08u   /* length above DESC_MAX */
#define WSE_PCIE_ERR_DESC_RSVD 0x10u  /* a reserved flag bit set */
#define WSE_PCIE_ERR_TAIL 0x20u       /* a tail doorbell outside the ring */
#define WSE_PCIE_ERR_TIMEOUT 0x40u    /* the bus did not answer a DMA access */
#define WSE_PCIE_ERR_BUS 0x80u        /* a DMA read answered with an error */
#define WSE_PCIE_ERR_C2H_SHIFT 8u

/* ---- descriptors: 16 bytes, WSE_PCIE_RING_ALIGN-aligned ring ---- */
#define WSE_PCIE_DESC_BYTES 16u
#define WSE_PCIE_DESC_OFF_ADDR 0u  /* u64 buffer bus address */
#define WSE_PCIE_DESC_OFF_LEN 8u   /* u32 buffer bytes */
#define WSE_PCIE_DESC_OFF_FLAGS 12u /* u32 */
#define WSE_PCIE_DESC_NO_IRQ 0x1u  /* no completion interrupt for this one */
#define WSE_PCIE_DESC_FLAGS_KNOWN 0x1u /* the other flag bits are reserved, 0 */
#define WSE_PCIE_RING_ALIGN 16u
#define WSE_PCIE_BUF_ALIGN 8u      /* buffer address and length */
#define WSE_PCIE_DESC_MAX_LEN 0x10000u
#define WSE_PCIE_RING_MAX_ENTRIES 4096u

/* ---- completions: the device writes bytes 8..15 of the descriptor ---- */
#define WSE_PCIE_CPL_OFF_LEN 8u     /* u32 bytes moved */
#define WSE_PCIE_CPL_OFF_STATUS 12u /* u32: DONE | EOP | code */
#define WSE_PCIE_CPL_DONE 0x80000000u
#define WSE_PCIE_CPL_EOP 0x100u     /* C2H: a packet ends in this buffer */
#define WSE_PCIE_CPL_CODE_MASK 0xffu
#define WSE_PCIE_CPL_OK 0u
#define WSE_PCIE_CPL_ALIGN 1u   /* refused: WSE_PCIE_ERR_DESC_ALIGN */
#define WSE_PCIE_CPL_LEN 2u     /* refused: WSE_PCIE_ERR_DESC_LEN */
#define WSE_PCIE_CPL_RSVD 3u    /* refused: WSE_PCIE_ERR_DESC_RSVD */
#define WSE_PCIE_CPL_BUS 4u     /* a DMA read of it answered with an error */
#define WSE_PCIE_CPL_TIMEOUT 5u /* a DMA access for it was not answered */

/* A descriptor as the host writes it. */
struct wse_pcie_desc {
	wse_u64 addr;  /* buffer bus address, a multiple of 8 */
	wse_u32 len;   /* bytes, a multiple of 8, at most DESC_MAX; 0 allowed */
	wse_u32 flags; /* WSE_PCIE_DESC_*; bit 31 (DONE) must be 0 */
};

/* The same 16 bytes once the device has completed the descriptor. */
struct wse_pcie_cpl {
	wse_u64 addr;   /* unchanged */
	wse_u32 len;    /* bytes moved */
	wse_u32 status; /* WSE_PCIE_CPL_DONE | WSE_PCIE_CPL_EOP | code */
};

#endif
