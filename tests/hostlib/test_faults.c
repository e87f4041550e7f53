/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_faults: the error-path sweep. A fault-injecting wrapper around the
 * sim transport fails its k-th operation (open, send, recv or close) with
 * IO, TIMEOUT or NO_DEVICE, for every k until a whole session (open,
 * requests of every kind, streams, close) runs without reaching k. Every
 * call must return success or its documented error, never hang, and
 * nothing may leak (run under ASan/LeakSanitizer and valgrind). The session
 * includes asynchronous transfers: a read, and a stream-out ended by close.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_dev.h"
#include "transport.h"

static char dir[64], sock[128], dtb[512];

/* Fault plan (test-wide; the library itself keeps no global state). The
 * library's receiver thread calls recv while the caller's thread sends. */
static atomic_int op_count, injected, dead_injected;
static int fail_at, fail_err;

struct wse_transport {
	struct wse_transport *inner;
};

static int fault(void)
{
	if (++op_count != fail_at)
		return 0;
	injected = 1;
	if (fail_err == WSE_ERROR_NO_DEVICE)
		dead_injected = 1;
	return fail_err;
}

static int f_open(struct wse_transport **t, const char *args, int to,
		  const struct wse_logger *log)
{
	int r = fault();
	if (r)
		return r;
	struct wse_transport *w = malloc(sizeof(*w));
	if (!w)
		return WSE_ERROR_NO_MEM;
	r = wsei_transport_sim.open(&w->inner, args, to, log);
	if (r) {
		free(w);
		return r;
	}
	*t = w;
	return 0;
}

static int f_send(struct wse_transport *t, const void *b, size_t n, int to)
{
	int r = fault();
	return r ? r : wsei_transport_sim.send(t->inner, b, n, to);
}

static int f_recv(struct wse_transport *t, void *b, size_t n, int to)
{
	int r = fault();
	return r ? r : wsei_transport_sim.recv(t->inner, b, n, to);
}

static void f_close(struct wse_transport *t)
{
	fault(); /* close cannot fail; the count still advances */
	wsei_transport_sim.close(t->inner);
	free(t);
}

static const struct wse_transport_ops fault_ops = {
	.scheme = "fault",
	.open = f_open,
	.send = f_send,
	.recv = f_recv,
	.close = f_close,
};

/* r must be 0 or the injected error (or NO_DEVICE once the link died). */
static void ok_or_injected(int r, int line, int also)
{
	if (r == 0 || (injected && r == fail_err) ||
	    (dead_injected && r == WSE_ERROR_NO_DEVICE) || (also && r == also))
		return;
	fail_msg("line %d: k=%d err=%s: got %s", line, fail_at,
		 wse_error_name(fail_err), wse_error_name(r));
}
#define CHECK(call) ok_or_injected((call), __LINE__, 0)
#define CHECK_OR(call, e) ok_or_injected((call), __LINE__, (e))

struct async_seen {
	atomic_int *calls;
	int *status;
};

static void seen_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct async_seen *a = user;
	(void)x;
	(void)actual;
	*a->status = st;
	atomic_fetch_add(a->calls, 1);
}

/* One session; returns the number of transport operations it used. */
static int session(const char *uri_args)
{
	wse_device *d = NULL;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 200,
				  .open_timeout_ms = 1000};
	op_count = 0;
	injected = dead_injected = 0;
	int r = wsei_open_ops(&d, &fault_ops, uri_args, &o);
	if (r) {
		ok_or_injected(r, __LINE__, 0);
		assert_null(d);
		return op_count;
	}
	uint8_t buf[9000], rd[9000];
	uint32_t v, e[4] = {0x101, 0x202, 0x404, 0x808};
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	CHECK(wse_ping(d, "ping", 4));
	CHECK(wse_tile_halt(d, 1, 1));
	/* 9000 bytes: three packets each way. */
	CHECK(wse_mem_write(d, 1, 1, 0x80000000u, buf, sizeof(buf)));
	r = wse_mem_read(d, 1, 1, 0x80000000u, rd, sizeof(rd));
	CHECK(r);
	if (!r && !injected)
		assert_memory_equal(buf, rd, sizeof(buf));
	CHECK(wse_csr_write(d, 0, 0, 1, 7));
	CHECK(wse_csr_read(d, 0, 0, 1, &v));
	CHECK(wse_route_write(d, 0, 0, 4, e, 4));
	CHECK(wse_route_read(d, 0, 0, 4, e, 4));
	uint32_t cnt[16];
	r = wse_perf_read(d, 0, 0, cnt, 16);
	CHECK(r > 0 ? 0 : r);
	uint64_t w[100], got[100];
	for (int i = 0; i < 100; i++)
		w[i] = (uint64_t)i;
	struct wse_stream_chunk c = {WSE_WEST, 2, w, 100};
	CHECK(wse_stream_in(d, &c, 1));
	CHECK(wse_stream_credit(d, WSE_EAST, 2, 100));
	/* If the injected fault ate the stream-in, the credit or the data,
	 * the data never comes: a time-out, not a hang. */
	r = wse_stream_out(d, WSE_EAST, 2, got, 100, 100);
	CHECK_OR(r > 0 ? 0 : r, WSE_ERROR_TIMEOUT);
	r = wse_flash_program(d, 0, buf, 100);
	CHECK(r);
	r = wse_flash_verify(d, 0, 100, wse_crc32c(0, buf, 100));
	CHECK_OR(r, WSE_ERROR_VERIFY);
	/* Asynchronous: a read, and a stream-out that close cancels. */
	atomic_int calls = 0;
	int st = 1;
	struct async_seen a = {&calls, &st};
	r = wse_mem_read_async(d, 1, 1, 0x80000000u, rd, 64, 0, seen_cb, &a, NULL);
	CHECK(r);
	for (int i = 0; !r && i < 400 && !atomic_load(&calls); i++)
		usleep(5000);
	if (!r) {
		assert_int_equal(atomic_load(&calls), 1);
		CHECK(st);
	}
	int st2 = 1;
	struct async_seen b = {&calls, &st2};
	r = wse_stream_out_async(d, WSE_EAST, 3, got, 4, 10000, seen_cb, &b, NULL);
	CHECK(r);
	CHECK(wse_reset(d));
	wse_close(d);
	if (!r)
		assert_true(st2 == WSE_ERROR_ABORTED || st2 == WSE_ERROR_NO_DEVICE);
	return op_count;
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A short session over a spawned simulator (sim:board=). */
static int spawn_session(const char *args)
{
	wse_device *d = NULL;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 300,
				  .open_timeout_ms = 3000};
	op_count = 0;
	injected = dead_injected = 0;
	int r = wsei_open_ops(&d, &fault_ops, args, &o);
	if (r) {
		ok_or_injected(r, __LINE__, 0);
		assert_null(d);
		return op_count;
	}
	uint8_t buf[256], rd[256];
	memset(buf, 0x3C, sizeof(buf));
	CHECK(wse_ping(d, "ping", 4));
	CHECK(wse_mem_write(d, 1, 0, 0x80000000u, buf, sizeof(buf)));
	CHECK(wse_mem_read(d, 1, 0, 0x80000000u, rd, sizeof(rd)));
	wse_close(d);
	return op_count;
}

/* After a session: no child process left behind, running or zombie. */
static void assert_no_children(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_sweep_spawn(void **s)
{
	(void)s;
	if (!getenv("WSEMU_SIM"))
		skip();
	static const int errs[] = {WSE_ERROR_IO, WSE_ERROR_TIMEOUT,
				   WSE_ERROR_NO_DEVICE};
	int fds = open_fds(), k, runs = 0;
	fail_at = 0;
	int total = spawn_session("board=sim-2x2");
	assert_true(total >= 5);
	assert_no_children();
	for (k = 1; k < 10000; k++) {
		int any = 0;
		for (int e = 0; e < 3; e++) {
			fail_at = k;
			fail_err = errs[e];
			spawn_session("board=sim-2x2");
			assert_no_children();
			runs++;
			any |= injected;
		}
		if (!any)
			break;
	}
	assert_int_equal(open_fds(), fds);
	printf("spawn fault sweep: %d operations per session, %d sessions, no fd or child left\n",
	       total, runs);
}

static void test_sweep(void **s)
{
	(void)s;
	int fds = open_fds();
	struct fake_dev *f = fake_dev_start(sock, dtb);
	assert_non_null(f);
	char args[160];
	snprintf(args, sizeof(args), "attach=%s", sock);
	static const int errs[] = {WSE_ERROR_IO, WSE_ERROR_TIMEOUT,
				   WSE_ERROR_NO_DEVICE};
	fail_at = 0;
	int total = session(args);
	assert_true(total > 20);
	/* The number of recv calls depends on how the bytes arrive, so the
	 * sweep runs until no error can be injected any more. */
	int runs = 0, k;
	for (k = 1; k < 100000; k++) {
		int any = 0;
		for (int e = 0; e < 3; e++) {
			fail_at = k;
			fail_err = errs[e];
			session(args);
			runs++;
			any |= injected;
		}
		if (!any)
			break;
	}
	assert_true(k > total / 2);
	fake_dev_stop(f);
	assert_int_equal(open_fds(), fds);
	printf("fault sweep: %d operations per session, %d sessions, no fd left\n",
	       total, runs);
}

int main(void)
{
	const char *b = getenv("WSE_TEST_BOARDS");
	snprintf(dtb, sizeof(dtb), "%s/sim-4x4/sim-4x4.dtb", b ? b : "build/boards");
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/wsefault-XXXXXX", t && strlen(t) < 30 ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock, sizeof(sock), "%s/dev.sock", dir);
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_sweep),
					   cmocka_unit_test(test_sweep_spawn)};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(sock);
	rmdir(dir);
	return r;
}
