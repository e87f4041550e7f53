/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport.h - the operations table every libwsehost transport provides.
 * A transport moves bytes of the link protocol (docs/protocol.md) between
 * the library and one device; it knows nothing about packets. wse_open()
 * picks the table by the URI's scheme: "sim:" (transport_sim.c), "usb:"
 * (transport_usb.c), "pcie:" (transport_pcie.c, the wse kernel driver's
 * /dev/wseN).
 *
 * Common rules: every wait is bounded by the timeout_ms given (> 0); no
 * function raises a signal (SIGPIPE included); file descriptors are
 * close-on-exec. send and recv run concurrently (the device's receiver
 * thread calls recv, one sender at a time calls send); open and close run
 * alone. Errors are enum wse_error values.
 *
 * Private to the library, like io.h: every function and table here is
 * hidden (WSE_INTERNAL) and carries the wsei_ prefix; wse_ is the public
 * API's (wsehost.h).
 */
#ifndef WSEHOST_TRANSPORT_H
#define WSEHOST_TRANSPORT_H

#include <stdarg.h>
#include <stddef.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"

struct wse_logger {
	wse_log_cb cb;
	void *user;
	int level; /* highest level delivered; 0 = silent */
};
WSE_INTERNAL void wsei_logf(const struct wse_logger *lg, enum wse_log_level lv,
			  const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Logger from options and the WSE_DEBUG environment variable. */
WSE_INTERNAL void wsei_logger_init(struct wse_logger *lg, wse_log_cb cb,
				  void *user, int level);

struct wse_transport; /* each transport's own state */

/* Counters a transport keeps of its own link, added into
 * struct wse_link_stats by wse_get_link_stats(). */
struct wse_transport_stats {
	uint64_t line_errors; /* received units with a line error (UART
				 overrun, parity, framing, break) */
};

struct wse_transport_ops {
	/* URI scheme without the colon, e.g. "sim". Static storage. */
	const char *scheme;
	/*
	 * open: connect to the device named by args (the URI after
	 * "scheme:"), waiting at most timeout_ms. Blocks (connecting, and for
	 * a spawned simulator until its socket answers). args is the
	 * caller's and is not kept; log is the device's and stays valid until
	 * close returns, so the transport may keep the pointer. On success
	 * sets *t (the transport's own allocation, released by close) and
	 * returns 0. Errors: INVALID_PARAM (args not understood), NOT_FOUND
	 * (no such device/simulator/socket), ACCESS, BUSY (in use), TIMEOUT,
	 * NO_DEVICE (device went away while connecting), NO_MEM,
	 * NOT_SUPPORTED (transport not available in this build). On error
	 * nothing stays allocated, open or running and *t is untouched.
	 */
	int (*open)(struct wse_transport **t, const char *args,
		    int timeout_ms, const struct wse_logger *log);
	/*
	 * send: write all len bytes of buf, in order. Blocks until every byte
	 * is handed to the link or timeout_ms passes. buf stays the caller's:
	 * the transport reads it only during the call. Returns 0, TIMEOUT
	 * (not all written within timeout_ms; part of the bytes may have
	 * left, so the peer will see a truncated packet and resynchronize),
	 * NO_DEVICE (the peer closed or died), IO (any other failure). Never
	 * SIGPIPE.
	 */
	int (*send)(struct wse_transport *t, const void *buf, size_t len,
		    int timeout_ms);
	/*
	 * recv: wait up to timeout_ms for at least one byte, then return
	 * what is available without blocking further, at most cap bytes,
	 * written to buf (the caller's, written only during the call).
	 * Returns the count (> 0), TIMEOUT (nothing arrived), NO_DEVICE (the
	 * peer closed: end of stream or reset), IO.
	 */
	int (*recv)(struct wse_transport *t, void *buf, size_t cap,
		    int timeout_ms);
	/*
	 * close: release everything (socket, child process, files, t
	 * itself), waiting at most a bounded time for a child to exit. Runs
	 * after the device's threads have stopped, so no send or recv is in
	 * progress. Never fails; t is invalid afterwards. NULL is ignored.
	 */
	void (*close)(struct wse_transport *t);
	/*
	 * stats (optional, NULL if the transport counts nothing): add the
	 * transport's counters since open into *st (zeroed by the caller).
	 * Runs concurrently with send and recv, never with open or close;
	 * does not block beyond a short lock. Never fails.
	 */
	void (*stats)(struct wse_transport *t, struct wse_transport_stats *st);
};

WSE_INTERNAL extern const struct wse_transport_ops wsei_transport_sim;
WSE_INTERNAL extern const struct wse_transport_ops wsei_transport_usb;
WSE_INTERNAL extern const struct wse_transport_ops wsei_transport_pcie;

/* Table for a URI; *args points after "scheme:". NULL if unknown. */
WSE_INTERNAL const struct wse_transport_ops *
wsei_transport_find(const char *uri, const char **args);

/* Open a device over an explicit transport table (used by wse_open() and
 * by tests that wrap a transport). */
WSE_INTERNAL int wsei_open_ops(wse_device **dev,
			      const struct wse_transport_ops *ops,
			      const char *args,
			      const struct wse_open_opts *opts);

/* One request of any opcode (an optional one to probe, or one the device
 * must refuse), waiting for its answer with the device's time-out. The
 * response payload goes to rep (at most cap bytes). Returns the payload
 * length or an error: the device's status as an error (an unknown opcode
 * is BAD_OPCODE), TIMEOUT, NO_DEVICE, IO, OVERFLOW, LENGTH. */
WSE_INTERNAL int wsei_request(wse_device *dev, uint8_t op, const void *pl,
			     size_t len, void *rep, size_t cap);

/* Milliseconds on a monotonic clock. */
WSE_INTERNAL long long wsei_now_ms(void);

/* DTB checks shared by wse_parse_dtb() and wse_open(). */
WSE_INTERNAL int wsei_dtb_parse(const void *dtb, size_t len,
			       struct wse_info *info, char *err,
			       size_t errlen);

#endif /* WSEHOST_TRANSPORT_H */
