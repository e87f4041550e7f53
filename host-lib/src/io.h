/* SPDX-License-Identifier: Apache-2.0 */
/*
 * io.h - libwsehost's engine (io.c) as the request calls (device.c) see
 * it. A call builds a transfer, fills its requests (opcode, payload, where
 * the answer goes) or makes it a stream-out wait, and hands it to the
 * engine, which tags, sends, times out and completes it. The device's
 * state, its locks and its threads stay inside io.c; struct wse_device and
 * struct wse_transfer are opaque here.
 *
 * Private to the library: every symbol is hidden (WSE_INTERNAL) and
 * carries the wsei_ prefix. Errors are negative enum wse_error values.
 */
#ifndef WSEHOST_IO_H
#define WSEHOST_IO_H

#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* Where the payload of an awaited response goes: at most cap bytes into
 * buf (the caller's); len is set to the payload's length. */
struct wsei_reply {
	uint8_t *buf;
	size_t cap, len;
};

/*
 * A transfer of nreq requests (0: a transfer to make a stream-out wait
 * with wsei_sout_new(), or one that completes at once). The caller owns it
 * until it is submitted. NULL when memory runs out.
 */
WSE_INTERNAL wse_transfer *wsei_xfer_new(wse_device *d, size_t nreq);

/* Free a transfer of the library's own (built and never submitted, or
 * waited for to its end). NULL is ignored. */
WSE_INTERNAL void wsei_xfer_drop(wse_transfer *x);

/*
 * Request i of x: opcode op, payload pl (len bytes, copied), the response
 * payload into rep (at most cap bytes, exactly cap if exact; rep NULL: no
 * payload expected), and amount added to the transfer's actual when the
 * device answers OK. Errors: LENGTH (len over the device's max_payload),
 * NO_MEM.
 */
WSE_INTERNAL int wsei_req_set(wse_transfer *x, unsigned i, uint8_t op,
			      const void *pl, size_t len, void *rep,
			      size_t cap, int exact, size_t amount);

/*
 * Make *xp a wait for up to max wavelets of edge port port (wire
 * encoding, already checked against the device's rows) into buf, ended by
 * the first wavelets to come. Errors: NO_MEM.
 */
WSE_INTERNAL int wsei_sout_new(wse_device *d, uint8_t port, uint64_t *buf,
			       size_t max, wse_transfer **xp);

/*
 * Submit x and wait for its end; x stays the caller's (wsei_xfer_drop()).
 * timeout_ms < 0: the device's time-out; 0: for requests the device's
 * time-out too, for a stream-out wait only the wavelets already queued.
 * Returns 0 (a stream-out wait: the number of wavelets, > 0) or x's error:
 * the device's status as an error, TIMEOUT, ABORTED (device closing),
 * NO_DEVICE, IO, OVERFLOW, MALFORMED, NO_MEM; BUSY when called from a
 * transfer callback (the callback thread cannot wait on itself).
 */
WSE_INTERNAL int wsei_run_sync(wse_device *d, wse_transfer *x, int timeout_ms);

/*
 * One request of op with payload pl, waited for with the device's
 * time-out; the response payload goes to rep (NULL: none expected).
 * Returns 0 or the errors of wsei_req_set() and wsei_run_sync().
 */
WSE_INTERNAL int wsei_transact(wse_device *d, uint8_t op, const void *pl,
			       size_t len, struct wsei_reply *rep);

/*
 * Submit x as an asynchronous transfer: cb(x, status, actual, user) runs on
 * the callback thread when it ends. With out NULL the library frees x after
 * the callback; else *out = x (set before the callback can run) and the
 * caller frees it with wse_transfer_free(). timeout_ms <= 0: the device's.
 * Returns 0 or ABORTED (closing), NO_DEVICE; on error x is freed, *out is
 * NULL and no callback comes.
 */
WSE_INTERNAL int wsei_submit_async(wse_device *d, wse_transfer *x,
				   int timeout_ms, wse_transfer_cb cb,
				   void *user, wse_transfer **out);

/* Count n stream-out credits granted to edge port port (wire encoding)
 * before the grant is sent: the device may use them before it answers. */
WSE_INTERNAL void wsei_credit_grant(wse_device *d, uint8_t port, uint32_t n);

/* After a RESET: the stream-out data queued and the credits granted are
 * gone with the device's buffers. */
WSE_INTERNAL void wsei_streams_reset(wse_device *d);

/* What INFO reported at open, fixed for the handle's life: the request
 * payload limit, the device's description, and the handle's logger. */
WSE_INTERNAL uint32_t wsei_max_payload(const wse_device *d);
WSE_INTERNAL const struct wse_info *wsei_info(const wse_device *d);
WSE_INTERNAL const struct wse_logger *wsei_log(const wse_device *d);

#endif /* WSEHOST_IO_H */
