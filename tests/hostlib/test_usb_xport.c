/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_usb_xport: the usb: transport (host-lib/src/transport_usb.c) over
 * fake_libusb.c's simulated devices, which echo bulk OUT to bulk IN:
 * device selection (one, several, by serial and port, none within the
 * time-out, no permission), the FTDI set-up requests, echo of more bytes
 * than the receive ring holds (status bytes stripped, line errors
 * counted), the vendor-class path with high-speed packets, a send time-out,
 * and unplugging under a waiting recv; every libusb call failing with
 * each relevant error (the wse error, the message, nothing left open),
 * every transfer status, and odd bulk-IN packets. Sanitizers and the
 * fake's own count check that close frees everything.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <libusb.h>

#include "fake_libusb.h"
#include "transport.h"

/* Errors and warnings logged since clear_log, from any thread. */
static char last_log[2048];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static void log_cb(void *user, enum wse_log_level lv, const char *msg)
{
	(void)user;
	pthread_mutex_lock(&log_lock);
	size_t n = strlen(last_log);
	if (lv <= WSE_LOG_WARNING)
		snprintf(last_log + n, sizeof(last_log) - n, "%s; ", msg);
	pthread_mutex_unlock(&log_lock);
}

static void clear_log(void)
{
	pthread_mutex_lock(&log_lock);
	last_log[0] = 0;
	pthread_mutex_unlock(&log_lock);
}
static const struct wse_logger lg = {log_cb, NULL, WSE_LOG_DEBUG};

static const struct fake_usb_dev ft231x = {
	.vid = 0x0403, .pid = 0x6015, .maxpkt = 64, .serial = "FT0ULX3S",
	.bus = 3, .ports = {1, 2}};
static const struct fake_usb_dev vendor_hs = {
	.vid = 0x1209, .pid = 0x5757, .vendor_class = 1, .maxpkt = 512,
	.serial = "WSE42", .bus = 1, .ports = {4, 0}};

static const struct wse_transport_ops *U = &wsei_transport_usb;

/* open that must fail with want (and leave nothing allocated) */
static void open_err(const char *args, int to, int want)
{
	struct wse_transport *t = NULL;
	clear_log();
	assert_int_equal(U->open(&t, args, to, &lg), want);
	assert_null(t);
	assert_int_equal(fake_usb_leaks(), 0);
}

static struct wse_transport *open_ok(const char *args)
{
	struct wse_transport *t = NULL;
	clear_log();
	int r = U->open(&t, args, 500, &lg);
	if (r)
		fail_msg("open '%s': %d, %s", args, r, last_log);
	return t;
}

static void close_all(struct wse_transport *t)
{
	U->close(t);
	assert_int_equal(fake_usb_leaks(), 0);
}

/* recv exactly n bytes, check they are want's, and that no more come. */
static void recv_all(struct wse_transport *t, const uint8_t *want, size_t n)
{
	uint8_t *got = malloc(n + 1);
	size_t have = 0;
	assert_non_null(got);
	while (have < n) {
		int r = U->recv(t, got + have, n - have, 1000);
		if (r <= 0)
			fail_msg("recv after %zu of %zu: %d", have, n, r);
		have += (size_t)r;
	}
	assert_memory_equal(got, want, n);
	assert_int_equal(U->recv(t, got, 1, 20), WSE_ERROR_TIMEOUT);
	free(got);
}

/* Write len bytes of a pattern in pieces, reading the echo only after
 * everything is sent, and check it. */
static void echo(struct wse_transport *t, size_t len)
{
	uint8_t *out = malloc(len);
	assert_non_null(out);
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)(i * 7 + (i >> 9));
	for (size_t o = 0; o < len; o += 5000)
		assert_int_equal(U->send(t, out + o, len - o < 5000 ? len - o : 5000,
					 1000), 0);
	recv_all(t, out, len);
	free(out);
}

static void test_ftdi(void **s)
{
	(void)s;
	struct fake_usb_dev d = ft231x;
	d.line_status_every = 100;
	fake_usb_reset(&d, 1, 0);
	struct wse_transport *t = open_ok("");
	assert_true(fake_usb_auto_detach());
	/* reset, 3 Mbaud, 8N1, no flow control, DTR+RTS, latency, purges */
	static const uint16_t want[][3] = {
		{0, 0, 1}, {3, 0, 0}, {4, 8, 1}, {2, 0, 1},
		{1, 0x0303, 1}, {9, 1, 1}, {0, 1, 1}, {0, 2, 1}};
	assert_int_equal(fake_usb_ctrl_count(), 8);
	for (unsigned k = 0; k < 8; k++) {
		uint8_t type, req;
		uint16_t v, x;
		fake_usb_ctrl_get(k, &type, &req, &v, &x);
		assert_int_equal(type, 0x40);
		assert_int_equal(req, want[k][0]);
		assert_int_equal(v, want[k][1]);
		assert_int_equal(x, want[k][2]);
	}
	/* 1.5 MiB: more than the ring, so transfers park and resume. */
	echo(t, 3u << 19);
	struct wse_transport_stats st = {0};
	U->stats(t, &st);
	assert_true(st.line_errors > 0);
	assert_int_equal(st.line_errors, fake_usb_flagged());
	close_all(t);

	/* baud=115200: divisor 26 */
	fake_usb_reset(&d, 1, 1);
	t = open_ok("serial=FT0ULX3S,baud=115200");
	uint8_t type, req;
	uint16_t v, x;
	fake_usb_ctrl_get(1, &type, &req, &v, &x);
	assert_int_equal(req, 3);
	assert_int_equal(v, 26);
	echo(t, 1000);
	close_all(t);
	open_err("baud=2400000", 100, WSE_ERROR_INVALID_PARAM);
	assert_non_null(strstr(last_log, "3 %"));
	assert_int_equal(fake_usb_leaks(), 0);
}

static void test_vendor(void **s)
{
	(void)s;
	fake_usb_reset(&vendor_hs, 1, 1);
	struct wse_transport *t = open_ok("vid=1209,pid=0x5757");
	assert_int_equal(fake_usb_ctrl_count(), 0);
	echo(t, 3u << 19);
	struct wse_transport_stats st = {0};
	U->stats(t, &st);
	assert_int_equal(st.line_errors, 0);
	close_all(t);
}

static void test_select(void **s)
{
	(void)s;
	struct fake_usb_dev two[2] = {ft231x, vendor_hs};
	struct wse_transport *t;
	for (int hp = 0; hp < 2; hp++) {
		fake_usb_reset(two, 2, hp);
		open_err("", 100, WSE_ERROR_INVALID_PARAM);
		assert_non_null(strstr(last_log, "2 boards match"));
		assert_non_null(strstr(last_log, "bus 3 port 1.2 serial FT0ULX3S"));
		assert_non_null(strstr(last_log, "bus 1 port 4 serial WSE42"));
		t = open_ok("serial=WSE42");
		close_all(t);
		t = open_ok("bus=3,port=1.2");
		assert_int_equal(fake_usb_ctrl_count(), 8); /* the FTDI one */
		close_all(t);
		open_err("bus=3,port=1", 100, WSE_ERROR_NOT_FOUND);
		assert_non_null(strstr(last_log, "bus=3 port=1"));
		open_err("vid=0403,pid=6001", 100, WSE_ERROR_NOT_FOUND);
		open_err("port=1", 100, WSE_ERROR_INVALID_PARAM);
		assert_int_equal(fake_usb_leaks(), 0);
	}
	struct fake_usb_dev locked = ft231x;
	locked.access_denied = 1;
	locked.serial = NULL;
	fake_usb_reset(&locked, 1, 0);
	open_err("", 100, WSE_ERROR_ACCESS);
	assert_non_null(strstr(last_log, "70-wsemu.rules"));
	assert_int_equal(fake_usb_leaks(), 0);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *plug_later(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 150 * 1000000L};
	nanosleep(&ts, NULL);
	fake_usb_present(0, 1);
	return NULL;
}

/* open waits for the board to appear, by hotplug or by polling. */
static void test_arrival(void **s)
{
	(void)s;
	for (int hp = 0; hp < 2; hp++) {
		fake_usb_reset(&ft231x, 1, hp);
		fake_usb_present(0, 0);
		pthread_t th;
		long long t0 = now_ms();
		pthread_create(&th, NULL, plug_later, NULL);
		struct wse_transport *t = NULL;
		assert_int_equal(U->open(&t, "", 2000, &lg), 0);
		long long dt = now_ms() - t0;
		pthread_join(th, NULL);
		assert_true(dt >= 140 && dt < 1000);
		echo(t, 100);
		close_all(t);
	}
}

struct waiter {
	struct wse_transport *t;
	int r;
	long long at;
};

static void *recv_wait(void *arg)
{
	struct waiter *w = arg;
	uint8_t b[16];
	w->r = U->recv(w->t, b, sizeof(b), 5000);
	w->at = now_ms();
	return NULL;
}

static void *send_wait(void *arg)
{
	struct waiter *w = arg;
	uint8_t b[16] = {0};
	w->r = U->send(w->t, b, sizeof(b), 5000);
	w->at = now_ms();
	return NULL;
}

/* A send that cannot finish times out and the transport stays usable;
 * unplugging wakes a waiting recv and send with NO_DEVICE at once. */
static void test_timeout_unplug(void **s)
{
	(void)s;
	for (int hp = 0; hp < 2; hp++) {
		fake_usb_reset(&ft231x, 1, hp);
		struct wse_transport *t = open_ok("");
		uint8_t b[100] = {0};
		fake_usb_hold_out(1);
		long long t0 = now_ms();
		assert_int_equal(U->send(t, b, sizeof(b), 100), WSE_ERROR_TIMEOUT);
		long long dt = now_ms() - t0;
		assert_true(dt >= 90 && dt < 1000);
		fake_usb_hold_out(0);
		echo(t, 5000);

		fake_usb_hold_out(1);
		struct waiter wr = {t, 0, 0}, ws = {t, 0, 0};
		pthread_t a, c;
		pthread_create(&a, NULL, recv_wait, &wr);
		pthread_create(&c, NULL, send_wait, &ws);
		struct timespec ts = {0, 100 * 1000000L};
		nanosleep(&ts, NULL);
		long long gone = now_ms();
		fake_usb_present(0, 0);
		pthread_join(a, NULL);
		pthread_join(c, NULL);
		assert_int_equal(wr.r, WSE_ERROR_NO_DEVICE);
		assert_int_equal(ws.r, WSE_ERROR_NO_DEVICE);
		assert_true(wr.at - gone < 100);
		assert_true(ws.at - gone < 100);
		assert_int_equal(U->recv(t, b, 1, 1000), WSE_ERROR_NO_DEVICE);
		assert_int_equal(U->send(t, b, 1, 1000), WSE_ERROR_NO_DEVICE);
		close_all(t);
	}
}


/* ---- libusb failures --------------------------------------------------- */

/* Names of the LIBUSB_ERROR_* values, as the fake's libusb_error_name. */
static const char *ename(int e)
{
	static const char *const n[] = {
		"", "LIBUSB_ERROR_IO", "LIBUSB_ERROR_INVALID_PARAM",
		"LIBUSB_ERROR_ACCESS", "LIBUSB_ERROR_NO_DEVICE",
		"LIBUSB_ERROR_NOT_FOUND", "LIBUSB_ERROR_BUSY",
		"LIBUSB_ERROR_TIMEOUT", "LIBUSB_ERROR_OVERFLOW",
		"LIBUSB_ERROR_PIPE", "LIBUSB_ERROR_INTERRUPTED",
		"LIBUSB_ERROR_NO_MEM", "LIBUSB_ERROR_NOT_SUPPORTED"};
	return e < 0 && e > -13 ? n[-e] : "LIBUSB_ERROR_OTHER";
}

/* Wait up to 1 s for what in the log (the event thread may log it). */
static void want_log(const char *what)
{
	for (int i = 0; what && i < 200; i++) {
		pthread_mutex_lock(&log_lock);
		int in = strstr(last_log, what) != NULL;
		pthread_mutex_unlock(&log_lock);
		if (in)
			return;
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (what)
		fail_msg("log lacks '%s': %s", what, last_log);
}

/* open of d with the nth call of call failing with err: want, the log
 * naming msg (and the libusb error when name is set), nothing left. */
static void open_fail(const struct fake_usb_dev *d, int hp, const char *call,
		      unsigned nth, int err, int want, const char *msg,
		      int name)
{
	fake_usb_reset(d, 1, hp);
	fake_usb_fail(call, nth, err);
	struct wse_transport *t = NULL;
	clear_log();
	int r = U->open(&t, "", 100, &lg);
	if (r != want)
		fail_msg("%s #%u %s: open %d, want %d (%s)", call, nth,
			 ename(err), r, want, last_log);
	assert_null(t);
	want_log(msg);
	if (name)
		want_log(ename(err));
	assert_int_equal(fake_usb_leaks(), 0);
}

struct efail {
	int err, want;
};

static void test_open_errors(void **s)
{
	(void)s;
	const struct fake_usb_dev *devs[] = {&ft231x, &vendor_hs};
	static const struct efail init[] = {
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_IO, WSE_ERROR_NOT_FOUND},
		{LIBUSB_ERROR_OTHER, WSE_ERROR_NOT_FOUND}};
	for (unsigned k = 0; k < 3; k++)
		open_fail(&ft231x, 1, "init", 1, init[k].err, init[k].want,
			  "libusb_init", 1);
	static const struct efail list[] = {
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_IO, WSE_ERROR_IO},
		{LIBUSB_ERROR_OTHER, WSE_ERROR_IO}};
	for (int hp = 0; hp < 2; hp++)
		for (unsigned k = 0; k < 3; k++)
			open_fail(&ft231x, hp, "get_device_list", 0, list[k].err,
				  list[k].want, "cannot list devices", 0);
	/* A device whose descriptors cannot be read is no board. */
	open_fail(&ft231x, 0, "get_device_descriptor", 0, LIBUSB_ERROR_IO,
		  WSE_ERROR_NOT_FOUND, "no board found", 0);
	open_fail(&ft231x, 1, "get_active_config_descriptor", 0,
		  LIBUSB_ERROR_NOT_FOUND, WSE_ERROR_NOT_FOUND, "no board found", 0);
	open_fail(&ft231x, 0, "get_active_config_descriptor", 0,
		  LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NOT_FOUND, "no board found", 0);
	/* The second libusb_open (the first reads the serial number). */
	static const struct efail op[] = {
		{LIBUSB_ERROR_ACCESS, WSE_ERROR_ACCESS},
		{LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NO_DEVICE},
		{LIBUSB_ERROR_BUSY, WSE_ERROR_BUSY},
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_NOT_SUPPORTED, WSE_ERROR_NOT_SUPPORTED},
		{LIBUSB_ERROR_IO, WSE_ERROR_IO},
		{LIBUSB_ERROR_OTHER, WSE_ERROR_IO}};
	for (unsigned dv = 0; dv < 2; dv++)
		for (unsigned k = 0; k < 7; k++)
			open_fail(devs[dv], 0, "open", 2, op[k].err, op[k].want,
				  op[k].err == LIBUSB_ERROR_ACCESS ?
				  "sudo install -m 0644 packaging/udev/70-wsemu.rules" :
				  "cannot open bus ", op[k].err != LIBUSB_ERROR_ACCESS);
	static const struct efail claim[] = {
		{LIBUSB_ERROR_BUSY, WSE_ERROR_BUSY},
		{LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NO_DEVICE},
		{LIBUSB_ERROR_ACCESS, WSE_ERROR_ACCESS},
		{LIBUSB_ERROR_NOT_FOUND, WSE_ERROR_NOT_FOUND},
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_IO, WSE_ERROR_IO}};
	for (unsigned dv = 0; dv < 2; dv++)
		for (unsigned k = 0; k < 6; k++) {
			open_fail(devs[dv], 1, "claim_interface", 1, claim[k].err,
				  claim[k].want, "cannot claim interface 0 of bus ", 1);
			if (claim[k].err == LIBUSB_ERROR_BUSY)
				want_log("(in use by another program)");
		}
	/* Each of the eight FTDI set-up requests. */
	static const struct efail ctl[] = {
		{LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NO_DEVICE},
		{LIBUSB_ERROR_TIMEOUT, WSE_ERROR_TIMEOUT},
		{LIBUSB_ERROR_PIPE, WSE_ERROR_IO},
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_IO, WSE_ERROR_IO}};
	static const unsigned reqs[] = {0, 3, 4, 2, 1, 9, 0, 0};
	for (unsigned n = 1; n <= 8; n++)
		for (unsigned k = 0; k < 5; k++) {
			char m[40];
			snprintf(m, sizeof(m), "FTDI request %u (value", reqs[n - 1]);
			open_fail(&ft231x, 0, "control_transfer", n, ctl[k].err,
				  ctl[k].want, m, 1);
			assert_int_equal(fake_usb_ctrl_count(), n - 1);
		}
	/* The bulk-OUT transfer, then each bulk-IN one. */
	for (unsigned dv = 0; dv < 2; dv++)
		for (unsigned n = 1; n <= 5; n++)
			open_fail(devs[dv], 1, "alloc_transfer", n, LIBUSB_ERROR_NO_MEM,
				  WSE_ERROR_NO_MEM, "open failed: out of memory", 0);
	/* Each bulk-IN submission, with the earlier ones in flight. */
	static const struct efail sub[] = {
		{LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NO_DEVICE},
		{LIBUSB_ERROR_IO, WSE_ERROR_IO},
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_NO_MEM},
		{LIBUSB_ERROR_BUSY, WSE_ERROR_BUSY}};
	for (unsigned dv = 0; dv < 2; dv++)
		for (unsigned n = 1; n <= 4; n++)
			for (unsigned k = 0; k < 4; k++)
				open_fail(devs[dv], 0, "submit_transfer", n,
					  sub[k].err, sub[k].want,
					  sub[k].err == LIBUSB_ERROR_NO_DEVICE ?
					  "device disconnected" : "bulk-IN submit: ",
					  sub[k].err != LIBUSB_ERROR_NO_DEVICE);
}

/* Failures open works around. */
static void test_open_tolerated(void **s)
{
	(void)s;
	struct wse_transport *t;
	/* No hotplug callbacks (arrival and removal): polling, and a
	 * removal still seen by the transfers. */
	fake_usb_reset(&ft231x, 1, 1);
	fake_usb_fail("hotplug_register_callback", 0, LIBUSB_ERROR_NOT_SUPPORTED);
	t = open_ok("");
	assert_int_equal(fake_usb_calls("hotplug_register_callback"), 2);
	echo(t, 1000);
	fake_usb_present(0, 0);
	uint8_t b[8];
	assert_int_equal(U->recv(t, b, 1, 1000), WSE_ERROR_NO_DEVICE);
	close_all(t);
	/* Auto-detach is not supported everywhere (only Linux has it). */
	fake_usb_reset(&ft231x, 1, 0);
	fake_usb_fail("set_auto_detach_kernel_driver", 0,
		      LIBUSB_ERROR_NOT_SUPPORTED);
	t = open_ok("");
	echo(t, 1000);
	close_all(t);
	/* The serial number unreadable: "?", so serial= cannot match; an
	 * ACCESS on that open says why. */
	static const char *const calls[] = {"get_string_descriptor_ascii", "open"};
	for (unsigned c = 0; c < 2; c++) {
		fake_usb_reset(&ft231x, 1, 0);
		fake_usb_fail(calls[c], 1, c ? LIBUSB_ERROR_ACCESS : LIBUSB_ERROR_PIPE);
		t = open_ok("");
		close_all(t);
		fake_usb_reset(&ft231x, 1, 0);
		fake_usb_fail(calls[c], 0, c ? LIBUSB_ERROR_ACCESS : LIBUSB_ERROR_PIPE);
		open_err("serial=FT0ULX3S", 100, WSE_ERROR_NOT_FOUND);
		want_log("no board found");
		if (c)
			want_log("could not be opened to read their serial number");
	}
	/* No port path: the board is still found, but not by port. */
	fake_usb_reset(&ft231x, 1, 0);
	fake_usb_fail("get_port_numbers", 0, LIBUSB_ERROR_OVERFLOW);
	t = open_ok("");
	close_all(t);
	open_err("bus=3,port=1.2", 100, WSE_ERROR_NOT_FOUND);
}

/* The event handler failing at once neither spins nor stops the link. */
static void test_events_fail(void **s)
{
	(void)s;
	/* open waiting for an arrival polls the bus every 50 ms. */
	fake_usb_reset(&ft231x, 1, 1);
	fake_usb_present(0, 0);
	fake_usb_fail("handle_events_timeout_completed", 0, LIBUSB_ERROR_IO);
	open_err("", 300, WSE_ERROR_NOT_FOUND);
	unsigned scans = fake_usb_calls("get_device_list");
	if (scans < 3 || scans > 12)
		fail_msg("%u scans in 300 ms", scans);
	/* The event thread waits its step between failures. */
	fake_usb_reset(&ft231x, 1, 1);
	fake_usb_fail("handle_events_timeout_completed", 0,
		      LIBUSB_ERROR_INTERRUPTED);
	struct wse_transport *t = open_ok("");
	struct timespec ts = {0, 200 * 1000000L};
	nanosleep(&ts, NULL);
	unsigned calls = fake_usb_calls("handle_events_timeout_completed");
	if (calls > 10)
		fail_msg("%u event-handler calls in 200 ms", calls);
	fake_usb_fail_clear();
	echo(t, 1000);
	close_all(t);
}

/* Wait until the fake has delivered every injected completion. */
static void delivered(void)
{
	for (int i = 0; i < 200 && fake_usb_complete_left(); i++) {
		struct timespec ts = {0, 5 * 1000000L};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(fake_usb_complete_left(), 0);
}

/* Bulk-IN transfers ending in error, and submissions failing. */
static void test_in_status(void **s)
{
	(void)s;
	static const int retry[] = {
		LIBUSB_TRANSFER_ERROR, LIBUSB_TRANSFER_TIMED_OUT,
		LIBUSB_TRANSFER_STALL, LIBUSB_TRANSFER_OVERFLOW,
		LIBUSB_TRANSFER_CANCELLED};
	for (unsigned dv = 0; dv < 2; dv++) {
		fake_usb_reset(dv ? &vendor_hs : &ft231x, 1, 1);
		struct wse_transport *t = open_ok("");
		for (unsigned k = 0; k < 5; k++) {
			clear_log();
			if (retry[k] == LIBUSB_TRANSFER_STALL)
				fake_usb_fail("clear_halt", 0, LIBUSB_ERROR_IO);
			fake_usb_complete(1, retry[k], NULL, 0);
			delivered();
			char m[40];
			snprintf(m, sizeof(m), "bulk-IN status %d", retry[k]);
			if (retry[k] != LIBUSB_TRANSFER_CANCELLED)
				want_log(m);
			echo(t, 3000);
		}
		assert_int_equal(fake_usb_calls("clear_halt"), 1);
		/* A resubmission failing loses that transfer only. */
		clear_log();
		fake_usb_fail("submit_transfer", fake_usb_calls("submit_transfer") + 1,
			      LIBUSB_ERROR_IO);
		fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, NULL, 0);
		delivered();
		want_log("bulk-IN submit: LIBUSB_ERROR_IO");
		echo(t, 3000);
		/* ... and with NO_DEVICE, or a transfer's NO_DEVICE, the
		 * board is gone. */
		for (int how = 0; how < 2; how++) {
			clear_log();
			if (how) {
				t = open_ok("");
				fake_usb_complete(1, LIBUSB_TRANSFER_NO_DEVICE, NULL, 0);
			} else {
				fake_usb_fail("submit_transfer",
					      fake_usb_calls("submit_transfer") + 1,
					      LIBUSB_ERROR_NO_DEVICE);
				fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, NULL, 0);
			}
			uint8_t b[4] = {0};
			assert_int_equal(U->recv(t, b, 4, 1000), WSE_ERROR_NO_DEVICE);
			want_log("usb: device disconnected");
			assert_int_equal(U->send(t, b, 4, 1000), WSE_ERROR_NO_DEVICE);
			close_all(t);
			fake_usb_fail_clear();
		}
	}
}

/* Every bulk-IN resubmission failing: recv returns IO, not TIMEOUT
 * forever. */
static void test_in_lost(void **s)
{
	(void)s;
	for (unsigned dv = 0; dv < 2; dv++) {
		fake_usb_reset(dv ? &vendor_hs : &ft231x, 1, 1);
		struct wse_transport *t = open_ok("");
		fake_usb_fail("submit_transfer", 0, LIBUSB_ERROR_IO);
		for (unsigned k = 0; k < 4; k++)
			fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, NULL, 0);
		delivered();
		uint8_t b[4];
		assert_int_equal(U->recv(t, b, 4, 5000), WSE_ERROR_IO);
		want_log("bulk-IN submit: LIBUSB_ERROR_IO");
		close_all(t);
	}
}

/* Bulk-OUT transfers ending in error, and their submission failing. */
static void test_out_status(void **s)
{
	(void)s;
	static const struct efail st[] = {
		{LIBUSB_TRANSFER_ERROR, WSE_ERROR_IO},
		{LIBUSB_TRANSFER_TIMED_OUT, WSE_ERROR_IO},
		{LIBUSB_TRANSFER_STALL, WSE_ERROR_IO},
		{LIBUSB_TRANSFER_OVERFLOW, WSE_ERROR_IO},
		{LIBUSB_TRANSFER_CANCELLED, WSE_ERROR_TIMEOUT},
		{LIBUSB_TRANSFER_COMPLETED, WSE_ERROR_IO}, /* short */
		{LIBUSB_TRANSFER_NO_DEVICE, WSE_ERROR_NO_DEVICE}};
	static const struct efail sub[] = {
		{LIBUSB_ERROR_IO, WSE_ERROR_IO},
		{LIBUSB_ERROR_NO_MEM, WSE_ERROR_IO},
		{LIBUSB_ERROR_BUSY, WSE_ERROR_IO},
		{LIBUSB_ERROR_PIPE, WSE_ERROR_IO},
		{LIBUSB_ERROR_NO_DEVICE, WSE_ERROR_NO_DEVICE}};
	uint8_t b[100] = {0};
	fake_usb_reset(&ft231x, 1, 1);
	struct wse_transport *t = open_ok("");
	for (unsigned k = 0; k < 7; k++) {
		fake_usb_complete(0, st[k].err, NULL, 50);
		assert_int_equal(U->send(t, b, sizeof(b), 1000), st[k].want);
		if (st[k].want != WSE_ERROR_NO_DEVICE)
			echo(t, 1000);
	}
	assert_int_equal(U->recv(t, b, 1, 1000), WSE_ERROR_NO_DEVICE);
	close_all(t);
	for (unsigned k = 0; k < 5; k++) {
		fake_usb_reset(&ft231x, 1, 1);
		t = open_ok("");
		clear_log();
		fake_usb_fail("submit_transfer", fake_usb_calls("submit_transfer") + 1,
			      sub[k].err);
		assert_int_equal(U->send(t, b, sizeof(b), 1000), sub[k].want);
		if (sub[k].want == WSE_ERROR_NO_DEVICE) {
			want_log("usb: device disconnected");
			assert_int_equal(U->recv(t, b, 1, 1000), WSE_ERROR_NO_DEVICE);
		} else {
			want_log("bulk-OUT submit: ");
			want_log(ename(sub[k].err));
			echo(t, 1000);
		}
		close_all(t);
	}
}

/* Odd FTDI bulk-IN transfers: runts, empty packets, status-only packets
 * between data, lengths not a multiple of the packet, each line error. */
static void test_in_packets(void **s)
{
	(void)s;
	fake_usb_reset(&ft231x, 1, 1);
	struct wse_transport *t = open_ok("");
	uint8_t p[200];
	for (unsigned i = 0; i < sizeof(p); i++)
		p[i] = (uint8_t)(0xa0 + i);
	/* A runt (only a modem status byte), an empty transfer, a packet
	 * of status bytes only, then data. */
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, "\x01", 1);
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, NULL, 0);
	uint8_t x[200];
	x[0] = 0x01, x[1] = 0x60;
	memcpy(x + 2, p, 10);
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, x, 12);
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, "\x01\x60", 2);
	memcpy(x + 2, p + 10, 5);
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, x, 7);
	delivered();
	recv_all(t, p, 15);
	/* 64 + 64 + 30 bytes: 62 + 62 + 28 of data. */
	for (unsigned k = 0; k < 3; k++) {
		x[64 * k] = 0x01;
		x[64 * k + 1] = 0x60;
		memcpy(x + 64 * k + 2, p + 62 * k, k < 2 ? 62 : 28);
	}
	fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, x, 158);
	delivered();
	recv_all(t, p, 152);
	struct wse_transport_stats st = {0};
	U->stats(t, &st);
	assert_int_equal(st.line_errors, 0);
	/* Each line-error bit (overrun, parity, framing, break) in the
	 * first packet of a transfer, a clean short one after it: each
	 * counted once, the data kept. */
	static const uint8_t bits[] = {0x02, 0x04, 0x08, 0x10};
	for (unsigned k = 0; k < 4; k++) {
		x[0] = x[64] = 0x01;
		x[1] = (uint8_t)(0x60 | bits[k]);
		x[65] = 0x60;
		memcpy(x + 2, p, 62);
		memcpy(x + 66, p + 62, 22);
		fake_usb_complete(1, LIBUSB_TRANSFER_COMPLETED, x, 88);
		delivered();
		recv_all(t, p, 84);
		U->stats(t, &st);
		assert_int_equal(st.line_errors, k + 1);
	}
	close_all(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftdi),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_arrival),
		cmocka_unit_test(test_timeout_unplug),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_open_tolerated),
		cmocka_unit_test(test_events_fail),
		cmocka_unit_test(test_in_status),
		cmocka_unit_test(test_in_lost),
		cmocka_unit_test(test_out_status),
		cmocka_unit_test(test_in_packets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
