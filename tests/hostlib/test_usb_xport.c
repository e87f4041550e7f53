/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_usb_xport: the usb: transport (host-lib/src/transport_usb.c) over
 * fake_libusb.c's simulated devices, which echo bulk OUT to bulk IN:
 * device selection (one, several, by serial and port, none within the
 * time-out, no permission), the FTDI set-up requests, echo of more bytes
 * than the receive ring holds (status bytes stripped, line errors
 * counted), the vendor-class path with high-speed packets, a send time-out,
 * and unplugging under a waiting recv. Sanitizers and the fake's own
 * count check that close frees everything.
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

#include "fake_libusb.h"
#include "transport.h"

static char last_log[1024];
static void log_cb(void *user, enum wse_log_level lv, const char *msg)
{
	(void)user;
	size_t n = strlen(last_log);
	if (lv == WSE_LOG_ERROR)
		snprintf(last_log + n, sizeof(last_log) - n, "%s; ", msg);
}
static const struct wse_logger lg = {log_cb, NULL, WSE_LOG_DEBUG};

static const struct fake_usb_dev ft231x = {
	.vid = 0x0403, .pid = 0x6015, .maxpkt = 64, .serial = "FT0ULX3S",
	.bus = 3, .ports = {1, 2}};
static const struct fake_usb_dev vendor_hs = {
	.vid = 0x1209, .pid = 0x5757, .vendor_class = 1, .maxpkt = 512,
	.serial = "WSE42", .bus = 1, .ports = {4, 0}};

static const struct wse_transport_ops *U = &wse_transport_usb;

/* open that must fail with want (and leave nothing allocated) */
static void open_err(const char *args, int to, int want)
{
	struct wse_transport *t = NULL;
	last_log[0] = 0;
	assert_int_equal(U->open(&t, args, to, &lg), want);
	assert_null(t);
	assert_int_equal(fake_usb_leaks(), 0);
}

static struct wse_transport *open_ok(const char *args)
{
	struct wse_transport *t = NULL;
	last_log[0] = 0;
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

/* Write len bytes of a pattern in pieces, reading the echo only after
 * everything is sent, and check it. */
static void echo(struct wse_transport *t, size_t len)
{
	uint8_t *out = malloc(len), *in = malloc(len);
	assert_non_null(out);
	assert_non_null(in);
	for (size_t i = 0; i < len; i++)
		out[i] = (uint8_t)(i * 7 + (i >> 9));
	for (size_t o = 0; o < len; o += 5000)
		assert_int_equal(U->send(t, out + o, len - o < 5000 ? len - o : 5000,
					 1000), 0);
	size_t got = 0;
	while (got < len) {
		int n = U->recv(t, in + got, len - got, 1000);
		if (n <= 0)
			fail_msg("recv after %zu of %zu: %d", got, len, n);
		got += (size_t)n;
	}
	assert_memory_equal(in, out, len);
	assert_int_equal(U->recv(t, in, 1, 20), WSE_ERROR_TIMEOUT);
	free(out);
	free(in);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftdi),
		cmocka_unit_test(test_vendor),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_arrival),
		cmocka_unit_test(test_timeout_unplug),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
