/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_link: libwsehost over the "sim:attach=PATH" transport against the
 * unit-test mock device (fake_dev.c), and "sim:board=NAME" spawning
 * fake-wsemu-sim ($WSEMU_SIM). Every device call once; time-outs; a
 * device that dies mid-reply, hangs up, sends garbage, corrupts CRCs,
 * answers late or speaks another major version. Errors, never hangs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"
#include "fake_dev.h"
#include "transport.h"

static char dir[64], sock[128], dtb[512];

struct fx {
	struct fake_dev *f;
	wse_device *d;
	char log[FAKE_LOG_BYTES];
};


static char uri[160];

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	x->f = fake_dev_start(sock, dtb);
	assert_non_null(x->f);
	snprintf(uri, sizeof(uri), "sim:attach=%s", sock);
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 300,
				  .log_cb = fake_log_append, .log_user = x->log,
				  .log_level = WSE_LOG_DEBUG};
	assert_int_equal(wse_open(&x->d, uri, &o), 0);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	wse_close(x->d);
	fake_dev_stop(x->f);
	free(x);
	return 0;
}

static void test_info(void **state)
{
	struct fx *x = *state;
	struct wse_info in = {.size = sizeof(in)};
	assert_int_equal(wse_get_info(x->d, &in), 0);
	assert_int_equal(in.columns, 4);
	assert_int_equal(in.rows, 4);
	assert_int_equal(in.proto_major, WSE_PROTO_MAJOR);
	assert_int_equal(in.max_payload, FAKE_MAX_PAYLOAD);
	assert_string_equal(in.build_id, "fake-dev unit-test mock");
	assert_string_equal(in.compatible, "wsemu,sim-4x4");
	const void *d;
	size_t n;
	assert_int_equal(wse_get_dtb(x->d, &d, &n), 0);
	assert_true(n > 100);
	assert_int_equal(wse_ping(x->d, "ping!", 5), 0);
	assert_int_equal(wse_ping(x->d, NULL, 0), 0);
	static uint8_t big[FAKE_MAX_PAYLOAD + 1];
	assert_int_equal(wse_ping(x->d, big, FAKE_MAX_PAYLOAD), 0);
	assert_int_equal(wse_ping(x->d, big, FAKE_MAX_PAYLOAD + 1), WSE_ERROR_LENGTH);
}

static void test_memory(void **state)
{
	struct fx *x = *state;
	/* Larger than one packet: split and reassembled. */
	size_t n = 20000;
	uint8_t *w = malloc(n), *r = malloc(n);
	for (size_t i = 0; i < n; i++)
		w[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(wse_mem_write(x->d, 1, 2, 0x80000100u, w, n), 0);
	memset(r, 0, n);
	assert_int_equal(wse_mem_read(x->d, 1, 2, 0x80000100u, r, n), 0);
	assert_memory_equal(w, r, n);
	/* Another tile is untouched. */
	assert_int_equal(wse_mem_read(x->d, 2, 1, 0x80000100u, r, 64), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(r[i], 0);
	/* Broadcast write. */
	assert_int_equal(wse_mem_write(x->d, WSE_ALL_TILES, WSE_ALL_TILES, 0x80000000u, "abcd", 4), 0);
	assert_int_equal(wse_mem_read(x->d, 3, 3, 0x80000000u, r, 4), 0);
	assert_memory_equal(r, "abcd", 4);
	/* Errors: alignment, tile range (host side), address range (device
	 * side), broadcast read. */
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x80000002u, r, 4), WSE_ERROR_ALIGN);
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x80000000u, r, 6), WSE_ERROR_ALIGN);
	assert_int_equal(wse_mem_read(x->d, 4, 0, 0x80000000u, r, 4), WSE_ERROR_RANGE);
	assert_int_equal(wse_mem_read(x->d, WSE_ALL_TILES, WSE_ALL_TILES, 0x80000000u, r, 4), WSE_ERROR_RANGE);
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x00000100u, r, 4), WSE_ERROR_RANGE);
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x90000000u, r, 4), WSE_ERROR_DEVICE);
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0xFFFFFFFCu, r, 8), WSE_ERROR_RANGE);
	free(w);
	free(r);
}

static void test_regs(void **state)
{
	struct fx *x = *state;
	uint32_t v, e[32], g[32];
	assert_int_equal(wse_reg_read(x->d, 2, 3, 0x0, &v), 0);
	assert_int_equal(v, 2u | (3u << 8) | (0x5753u << 16));
	assert_int_equal(wse_reg_read(x->d, 2, 3, 0x4, &v), 0);
	assert_int_equal(v, 1); /* halted after reset */
	assert_int_equal(wse_tile_run(x->d, 2, 3), 0);
	assert_int_equal(wse_reg_read(x->d, 2, 3, 0x8, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(wse_tile_halt(x->d, WSE_ALL_TILES, WSE_ALL_TILES), 0);
	assert_int_equal(wse_reg_read(x->d, 2, 3, 0x8, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(wse_tile_halt(x->d, 9, 0), WSE_ERROR_RANGE);
	assert_int_equal(wse_reg_write(x->d, 0, 0, 0x0, 5), WSE_ERROR_DEVICE); /* RO */
	assert_int_equal(wse_reg_read(x->d, 0, 0, 0x3000, &v), WSE_ERROR_DEVICE);
	assert_int_equal(wse_reg_read(x->d, 0, 0, 0x3002, &v), WSE_ERROR_ALIGN);
	assert_int_equal(wse_csr_write(x->d, 1, 1, 0x300, 0xDEADBEEFu), 0);
	assert_int_equal(wse_csr_read(x->d, 1, 1, 0x300, &v), 0);
	assert_int_equal(v, 0xDEADBEEFu);
	assert_int_equal(wse_reg_read(x->d, 1, 1, WSE_MGMT_CSR_BASE + 4 * 0x300, &v), 0);
	assert_int_equal(v, 0xDEADBEEFu);
	assert_int_equal(wse_csr_read(x->d, 1, 1, 4096, &v), WSE_ERROR_RANGE);
	for (int c = 0; c < 32; c++)
		e[c] = (uint32_t)((c % 31) | ((c % 29) << 8)) & 0x1F1Fu;
	assert_int_equal(wse_route_write(x->d, 0, 1, 0, e, 32), 0);
	assert_int_equal(wse_route_read(x->d, 0, 1, 0, g, 32), 0);
	assert_memory_equal(e, g, sizeof(e));
	assert_int_equal(wse_route_read(x->d, 0, 1, 30, g, 3), WSE_ERROR_RANGE);
	uint32_t cnt[20];
	assert_int_equal(wse_perf_read(x->d, 1, 0, cnt, 20), WSE_PERF_TILE_COUNTERS);
	assert_int_equal(cnt[14], 1 * 1000 + 14);
	assert_int_equal(wse_perf_read(x->d, WSE_ALL_TILES, WSE_ALL_TILES, cnt, 20),
			 WSE_HIF_COUNTERS);
	assert_true(cnt[WSE_HIF_CNT_RX_PACKETS] > 10);
	assert_int_equal(wse_reset(x->d), 0);
	assert_int_equal(wse_csr_read(x->d, 1, 1, 0x300, &v), 0);
	assert_int_equal(v, 0);
}

static void test_streams(void **state)
{
	struct fx *x = *state;
	enum { N = 3000 };
	static uint64_t a[N], b[N], got[N];
	for (int i = 0; i < N; i++) {
		a[i] = wse_wavelet((uint32_t)i, 5, 0);
		b[i] = wse_wavelet((uint32_t)(i * 3), 6, i % 2);
	}
	/* Two rows in one call; the mock loops west intake to east outlet. */
	struct wse_stream_chunk c[2] = {{WSE_WEST, 0, a, N}, {WSE_WEST, 3, b, N}};
	assert_int_equal(wse_stream_in(x->d, c, 2), 0);
	/* No credits yet: nothing may arrive. */
	assert_int_equal(wse_stream_out(x->d, WSE_EAST, 0, got, N, 50), WSE_ERROR_TIMEOUT);
	assert_int_equal(wse_stream_out(x->d, WSE_EAST, 0, got, N, 0), WSE_ERROR_TIMEOUT);
	assert_int_equal(wse_stream_credit(x->d, WSE_EAST, 0, 1000), 0);
	int k = 0;
	while (k < 1000) {
		int r = wse_stream_out(x->d, WSE_EAST, 0, got + k, N - (size_t)k, 200);
		assert_true(r > 0);
		k += r;
	}
	assert_int_equal(k, 1000);
	assert_int_equal(wse_stream_out(x->d, WSE_EAST, 0, got, N, 50), WSE_ERROR_TIMEOUT);
	assert_int_equal(wse_stream_credit(x->d, WSE_EAST, 0, N), 0);
	assert_int_equal(wse_stream_credit(x->d, WSE_EAST, 3, N), 0);
	while (k < N) {
		int r = wse_stream_out(x->d, WSE_EAST, 0, got + k, N - (size_t)k, 200);
		assert_true(r > 0);
		k += r;
	}
	assert_memory_equal(got, a, sizeof(a));
	for (k = 0; k < N;) {
		int r = wse_stream_out(x->d, WSE_EAST, 3, got + k, N - (size_t)k, 200);
		assert_true(r > 0);
		k += r;
	}
	assert_memory_equal(got, b, sizeof(b));
	uint64_t bad = 1ull << 38;
	struct wse_stream_chunk e1 = {WSE_WEST, 0, &bad, 1};
	assert_int_equal(wse_stream_in(x->d, &e1, 1), WSE_ERROR_RANGE);
	struct wse_stream_chunk e2 = {WSE_WEST, 4, a, 1};
	assert_int_equal(wse_stream_in(x->d, &e2, 1), WSE_ERROR_RANGE);
	assert_int_equal(wse_stream_credit(x->d, 2, 0, 1), WSE_ERROR_RANGE);
}

static void test_console_flash(void **state)
{
	struct fx *x = *state;
	const char *msg = "hello\nworld\n";
	for (const char *p = msg; *p; p++)
		assert_int_equal(wse_reg_write(x->d, 3, 1, FAKE_PUTCHAR_ADDR, (uint8_t)*p), 0);
	char out[128] = {0};
	int n = wse_console_read(x->d, out, sizeof(out) - 1);
	assert_string_equal(out, "[3,1] hello\n[3,1] world\n");
	assert_int_equal(n, (int)strlen(out));
	assert_int_equal(wse_console_read(x->d, out, sizeof(out)), 0);

	static uint8_t img[20000], rd[20000];
	for (size_t i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(i ^ (i >> 8));
	assert_int_equal(wse_flash_erase(x->d, 0, 24576), 0);
	assert_int_equal(wse_flash_program(x->d, 100, img, sizeof(img)), 0);
	assert_int_equal(wse_flash_read(x->d, 100, rd, sizeof(rd)), 0);
	assert_memory_equal(img, rd, sizeof(img));
	uint32_t crc = wse_crc32c(0, img, sizeof(img));
	assert_int_equal(wse_flash_verify(x->d, 100, sizeof(img), crc), 0);
	assert_int_equal(wse_flash_verify(x->d, 100, sizeof(img), crc ^ 1), WSE_ERROR_VERIFY);
	assert_int_equal(wse_flash_erase(x->d, 100, 4096), WSE_ERROR_ALIGN);
	assert_int_equal(wse_flash_read(x->d, 65530, rd, 10), WSE_ERROR_RANGE);
}

static void test_timeout_and_late(void **state)
{
	struct fx *x = *state;
	struct wse_link_stats st = {.size = sizeof(st)};
	fake_dev_set_mode(x->f, FAKE_SILENT, 0);
	long long t0 = wsei_now_ms();
	assert_int_equal(wse_ping(x->d, "a", 1), WSE_ERROR_TIMEOUT);
	long long dt = wsei_now_ms() - t0;
	assert_true(dt >= 290 && dt < 2000);
	/* Late answers to a retired tag are counted, not taken. */
	fake_dev_set_mode(x->f, FAKE_LATE, 400);
	assert_int_equal(wse_ping(x->d, "b", 1), WSE_ERROR_TIMEOUT);
	fake_dev_set_mode(x->f, FAKE_NORMAL, 0);
	usleep(600 * 1000);
	assert_int_equal(wse_ping(x->d, "c", 1), 0);
	assert_int_equal(wse_get_link_stats(x->d, &st), 0);
	assert_true(st.late_replies >= 1);
	assert_int_equal(st.timeouts, 2);
	assert_non_null(strstr(x->log, "timed out"));
}

static void test_garbage_and_crc(void **state)
{
	struct fx *x = *state;
	struct wse_link_stats st = {.size = sizeof(st)};
	uint32_t v;
	fake_dev_set_mode(x->f, FAKE_GARBAGE, 0);
	for (int i = 0; i < 20; i++)
		assert_int_equal(wse_reg_read(x->d, 0, 0, 0, &v), 0);
	assert_int_equal(wse_get_link_stats(x->d, &st), 0);
	assert_true(st.resync_bytes >= 20 * 17);
	fake_dev_set_mode(x->f, FAKE_BAD_PCRC, 0);
	assert_int_equal(wse_reg_read(x->d, 0, 0, 0, &v), WSE_ERROR_PAYLOAD_CRC);
	fake_dev_set_mode(x->f, FAKE_WRONG_OPCODE, 0);
	assert_int_equal(wse_reg_read(x->d, 0, 0, 0, &v), WSE_ERROR_MALFORMED);
	assert_int_equal(wse_ping(x->d, "p", 1), WSE_ERROR_MALFORMED);
	assert_int_equal(wse_get_link_stats(x->d, &st), 0);
	assert_true(st.bad_packets >= 2);
	fake_dev_set_mode(x->f, FAKE_NORMAL, 0);
	assert_int_equal(wse_reg_read(x->d, 0, 0, 0, &v), 0);
}

/* A request the device cannot serve (an unknown opcode, an event opcode)
 * is refused with status OPCODE in a response carrying that opcode: the
 * caller gets BAD_OPCODE at once, and the answer is not a bad packet. */
static void test_refused_opcode(void **state)
{
	struct fx *x = *state;
	static const uint8_t ops[] = {0x7F, 0xEE, WSE_OP_STREAM_OUT, WSE_OP_CONSOLE};
	struct wse_link_stats st = {.size = sizeof(st)};
	uint8_t rep[16];
	for (size_t i = 0; i < sizeof(ops); i++) {
		long long t0 = wsei_now_ms();
		assert_int_equal(wsei_request(x->d, ops[i], "abcd", 4, rep, sizeof(rep)),
				 WSE_ERROR_BAD_OPCODE);
		assert_true(wsei_now_ms() - t0 < 200);
	}
	assert_int_equal(wse_get_link_stats(x->d, &st), 0);
	assert_int_equal(st.bad_packets, 0);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.late_replies, 0);
	/* The link is in step: the next request gets its own answer. */
	assert_int_equal(wsei_request(x->d, WSE_OP_PING, "abcd", 4, rep, sizeof(rep)), 4);
	assert_memory_equal(rep, "abcd", 4);
}

static void test_dies_mid_reply(void **state)
{
	struct fx *x = *state;
	uint8_t buf[64];
	fake_dev_set_mode(x->f, FAKE_DIE_MID_REPLY, 0);
	long long t0 = wsei_now_ms();
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x80000000u, buf, 64), WSE_ERROR_NO_DEVICE);
	assert_true(wsei_now_ms() - t0 < 250);
	/* Every later call: no device, at once. */
	assert_int_equal(wse_ping(x->d, "x", 1), WSE_ERROR_NO_DEVICE);
	assert_int_equal(wse_reset(x->d), WSE_ERROR_NO_DEVICE);
	uint64_t w[4];
	assert_int_equal(wse_stream_out(x->d, WSE_EAST, 0, w, 4, 100), WSE_ERROR_NO_DEVICE);
	fake_dev_set_mode(x->f, FAKE_NORMAL, 0);
}

static void test_hang_up(void **state)
{
	struct fx *x = *state;
	fake_dev_set_mode(x->f, FAKE_HANG_UP, 0);
	assert_int_equal(wse_ping(x->d, "x", 1), WSE_ERROR_NO_DEVICE);
	assert_int_equal(wse_ping(x->d, "x", 1), WSE_ERROR_NO_DEVICE);
	fake_dev_set_mode(x->f, FAKE_NORMAL, 0);
}

static void test_open_errors(void **state)
{
	(void)state;
	wse_device *d = (wse_device *)1;
	char u[200];
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 200,
				  .open_timeout_ms = 300};
	snprintf(u, sizeof(u), "sim:attach=%s/nonexistent", dir);
	assert_int_equal(wse_open(&d, u, &o), WSE_ERROR_NOT_FOUND);
	assert_null(d);
	assert_int_equal(wse_open(&d, "bogus:x", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:frobnicate=1", &o), WSE_ERROR_INVALID_PARAM);
	/* A board name that climbs out of the boards folder. */
	assert_int_equal(wse_open(&d, "sim:board=..", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:board=../etc", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:attach=", &o), WSE_ERROR_INVALID_PARAM);
	/* model= is rtl or fast, once; no empty fields */
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,model=warp", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:model=fast,model=rtl", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,,model=rtl", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "sim:model=fastest", &o), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_open(&d, "usb:0", &o), WSE_ERROR_INVALID_PARAM); /* test_usb: the rest */
	assert_int_equal(wse_open(&d, "pcie:x", &o), WSE_ERROR_INVALID_PARAM); /* test_pcie_xport: the rest */
	assert_int_equal(wse_open(NULL, "usb:", &o), WSE_ERROR_INVALID_PARAM);
	struct wse_open_opts bad = {.size = 0};
	assert_int_equal(wse_open(&d, "usb:", &bad), WSE_ERROR_INVALID_PARAM);

	struct fake_dev *f = fake_dev_start(sock, dtb);
	snprintf(u, sizeof(u), "sim:attach=%s", sock);
	/* Another major version: refused at open. */
	fake_dev_set_mode(f, FAKE_BAD_VERSION, 0);
	assert_int_equal(wse_open(&d, u, &o), WSE_ERROR_VERSION);
	/* Device in use by another host. */
	fake_dev_set_mode(f, FAKE_BUSY, 0);
	assert_int_equal(wse_open(&d, u, &o), WSE_ERROR_BUSY);
	/* Silent device: open times out. */
	fake_dev_set_mode(f, FAKE_SILENT, 0);
	assert_int_equal(wse_open(&d, u, &o), WSE_ERROR_TIMEOUT);
	fake_dev_set_mode(f, FAKE_DIE_MID_REPLY, 0);
	assert_int_equal(wse_open(&d, u, &o), WSE_ERROR_NO_DEVICE);
	/* Old callers with a short options struct still work. */
	fake_dev_set_mode(f, FAKE_NORMAL, 0);
	struct wse_open_opts old = {.size = offsetof(struct wse_open_opts, open_timeout_ms),
				    .timeout_ms = 500};
	assert_int_equal(wse_open(&d, u, &old), 0);
	wse_close(d);
	wse_close(NULL);
	fake_dev_stop(f);
	/* The DTB served is checked: a bad one fails the open. */
	char bad_dtb[256];
	snprintf(bad_dtb, sizeof(bad_dtb), "%s/bad.dtb", dir);
	FILE *fp = fopen(bad_dtb, "wb");
	fwrite("not a dtb at all, not a dtb at all, not a dtb", 1, 45, fp);
	fclose(fp);
	assert_null(fake_dev_start(sock, bad_dtb)); /* the mock refuses too */
}

/* Silent by default; WSE_DEBUG sends messages to stderr. */
static void test_debug_env(void **state)
{
	(void)state;
	char path[160], u[200], text[4096];
	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	snprintf(u, sizeof(u), "sim:attach=%s", sock);
	struct fake_dev *f = fake_dev_start(sock, dtb);
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 100};
	for (int pass = 0; pass < 2; pass++) {
		fflush(stderr);
		int saved = dup(2);
		FILE *fp = fopen(path, "w+");
		dup2(fileno(fp), 2);
		if (pass)
			setenv("WSE_DEBUG", "4", 1);
		else
			unsetenv("WSE_DEBUG");
		wse_device *d;
		assert_int_equal(wse_open(&d, u, &o), 0);
		fake_dev_set_mode(f, FAKE_SILENT, 0);
		assert_int_equal(wse_ping(d, "q", 1), WSE_ERROR_TIMEOUT);
		fake_dev_set_mode(f, FAKE_NORMAL, 0);
		wse_close(d);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(fp);
		size_t n = fread(text, 1, sizeof(text) - 1, fp);
		text[n] = 0;
		fclose(fp);
		if (!pass)
			assert_int_equal(n, 0);
		else
			assert_non_null(strstr(text, "libwsehost warning: PING tag"));
	}
	unsetenv("WSE_DEBUG");
	unlink(path);
	fake_dev_stop(f);
}

static void test_spawn(void **state)
{
	(void)state;
	if (!getenv("WSEMU_SIM"))
		skip();
	wse_device *d;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 1000,
				  .open_timeout_ms = 5000};
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2", &o), 0);
	struct wse_info in = {.size = sizeof(in)};
	assert_int_equal(wse_get_info(d, &in), 0);
	assert_int_equal(in.columns, 2);
	assert_int_equal(wse_ping(d, "spawned", 7), 0);
	wse_close(d);
	/* The default URI is sim:board=sim-4x4. */
	assert_int_equal(wse_open(&d, NULL, &o), 0);
	assert_int_equal(wse_get_info(d, &in), 0);
	assert_int_equal(in.columns, 4);
	wse_close(d);
	/* A board the simulator cannot load: it exits, open says so. */
	assert_int_equal(wse_open(&d, "sim:board=sim-99x99", &o), WSE_ERROR_NO_DEVICE);
	/* No simulator program. */
	char *saved = strdup(getenv("WSEMU_SIM"));
	setenv("WSEMU_SIM", "/nonexistent/wsemu-sim", 1);
	assert_int_equal(wse_open(&d, "sim:board=sim-4x4", &o), WSE_ERROR_NOT_FOUND);
	/* model=fast spawns $WSEMU_FAST instead (here the same mock), in
	 * either order of the arguments; model=rtl is $WSEMU_SIM. */
	setenv("WSEMU_FAST", saved, 1);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,model=fast", &o), 0);
	assert_int_equal(wse_get_info(d, &in), 0);
	assert_int_equal(in.columns, 2);
	wse_close(d);
	assert_int_equal(wse_open(&d, "sim:model=fast,board=sim-2x2", &o), 0);
	wse_close(d);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,model=rtl", &o), WSE_ERROR_NOT_FOUND);
	setenv("WSEMU_SIM", saved, 1);
	setenv("WSEMU_FAST", "/nonexistent/wsemu-fast", 1);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,model=fast", &o), WSE_ERROR_NOT_FOUND);
	assert_int_equal(wse_open(&d, "sim:board=sim-2x2,model=rtl", &o), 0);
	wse_close(d);
	unsetenv("WSEMU_FAST");
	free(saved);
}

/* Entries named wsehost-* in directory d. */
static int private_dirs(const char *d)
{
	DIR *dp = opendir(d);
	assert_non_null(dp);
	int n = 0;
	for (struct dirent *e; (e = readdir(dp));)
		n += !strncmp(e->d_name, "wsehost-", 8);
	closedir(dp);
	return n;
}

/* The spawned simulator's socket goes in a private directory under
 * $TMPDIR whenever the socket's path fits a sockaddr_un (TMPDIR up to 82
 * characters), else under /tmp; the directory goes on close. */
static void test_spawn_tmpdir(void **state)
{
	(void)state;
	if (!getenv("WSEMU_SIM"))
		skip();
	char base[] = "/tmp/wsetmpXXXXXX";
	assert_non_null(mkdtemp(base));
	char lng[128];
	/* base (17) + "/" + padding: exactly 82, then 83 characters. */
	for (int len = 82; len <= 83; len++) {
		snprintf(lng, sizeof(lng), "%s/%0*d", base, len - 18, 0);
		assert_int_equal((int)strlen(lng), len);
		assert_int_equal(mkdir(lng, 0700), 0);
		char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
		setenv("TMPDIR", lng, 1);
		wse_device *d;
		struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 1000,
					  .open_timeout_ms = 5000};
		assert_int_equal(wse_open(&d, "sim:board=sim-2x2", &o), 0);
		assert_int_equal(wse_ping(d, "tmpdir", 6), 0);
		assert_int_equal(private_dirs(lng), len == 82);
		wse_close(d);
		assert_int_equal(private_dirs(lng), 0);
		if (saved)
			setenv("TMPDIR", saved, 1);
		else
			unsetenv("TMPDIR");
		free(saved);
		assert_int_equal(rmdir(lng), 0);
	}
	assert_int_equal(rmdir(base), 0);
}

int main(void)
{
	if (fake_test_paths(dir, sock, dtb))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_regs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_flash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout_and_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_and_crc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_opcode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dies_mid_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hang_up, setup, teardown),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_debug_env),
		cmocka_unit_test(test_spawn),
		cmocka_unit_test(test_spawn_tmpdir),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char bad[256];
	snprintf(bad, sizeof(bad), "%s/bad.dtb", dir);
	unlink(bad);
	unlink(sock);
	rmdir(dir);
	return r;
}
