/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_host.h - the host interface of wsemu-fast: the link protocol's
 * device side (docs/protocol.md) over a board model (wse_fast_board.h),
 * as rtl/host_if does it over the RTL mesh. Bytes in, bytes out, no I/O:
 * the server (wsemu_fast.c) moves them to and from its socket, and the
 * unit test feeds packets directly.
 *
 * What it keeps of the RTL's host interface (docs/host-if.md): two
 * request slots (max_outstanding 2, max_payload 4096), requests executed
 * one at a time in arrival order, ABORT and STREAM_CREDIT handled on
 * arrival, BUSY for a third request or a tag in flight, every request
 * checked whole before its first effect, the management map of
 * docs/register-map.md access by access (stopping at the first refused
 * one), stream-in held until the edge routers took every wavelet, outlet
 * buffers of 256 wavelets per edge port that back-pressure the mesh and
 * drain against the host's credits, console output per tile, and the
 * host interface's seven counters. Its time is the cost model of
 * docs/wsemu-fast.md.
 *
 * Errors are the negative codes of wsemu/wse_error.h.
 */
#ifndef WSEMU_WSF_HOST_H
#define WSEMU_WSF_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wse_fast_board.h"
#include "wsemu/wse_board.h"

struct wsf_host;

/* A host interface over a new board model built as bd describes it, with
 * rounds of quantum cycles (0: the model's default); dtb (dtb_len bytes,
 * the blob bd was parsed from) is what INFO returns, and build_id its
 * build ID (truncated to 31 characters).
 * Errors: WSE_ERROR_INVALID_PARAM (NULL, a board the model cannot hold),
 * WSE_ERROR_NO_MEM. */
int wsf_host_create(const struct wse_board *bd, uint32_t quantum, const uint8_t *dtb,
		    size_t dtb_len, const char *build_id, struct wsf_host **out);

/* Give the board a flash of bytes bytes (a multiple of 64 KiB, the erase
 * sector) held in the file fd (bytes long; the caller's, left open):
 * FLASH_READ, ERASE, PROGRAM and VERIFY (docs/protocol.md 4.11) read and
 * write it as they execute, each write with pwrite() as it happens. After
 * cut_after bytes written (erased or programmed; UINT64_MAX: never) the
 * process kills itself with SIGKILL in the middle of the write, as a
 * power cut would. Without a flash the flash requests are NOT_SUPPORTED. */
void wsf_host_set_flash(struct wsf_host *h, int fd, uint32_t bytes, uint64_t cut_after);

/* Free it and its board; NULL is ignored. */
void wsf_host_destroy(struct wsf_host *h);

/* Room for bytes from the host (*room > 0), then how many were put
 * there: the packets they complete are checked and accepted (answered at
 * once when refused, handled at once for ABORT and STREAM_CREDIT).
 * Errors of commit: WSE_ERROR_NO_MEM. */
uint8_t *wsf_host_rx_space(struct wsf_host *h, size_t *room);
int wsf_host_rx_commit(struct wsf_host *h, size_t n);

/* Execute what can be executed and advance the board by at most
 * max_cycles model cycles (less when it goes quiet, or when a request's
 * time comes first), then turn outlet wavelets and console output into
 * events.
 * Errors: those of the board model (an engine outside DMEM). */
int wsf_host_step(struct wsf_host *h, uint64_t max_cycles);

/* True while stepping would change something without more bytes from
 * the host: the board is not quiet, or a request waits only for time. */
bool wsf_host_busy(const struct wsf_host *h);

/* Bytes for the host (responses and events, whole packets), and their
 * removal once sent. */
const uint8_t *wsf_host_tx(struct wsf_host *h, size_t *len);
void wsf_host_tx_done(struct wsf_host *h);

/* Model time, in cycles. */
uint64_t wsf_host_now(const struct wsf_host *h);

/* The board model, for tests. */
struct wse_fast_board *wsf_host_board(struct wsf_host *h);

#endif
