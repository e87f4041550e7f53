/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_threads: one device handle used by several threads at once (built
 * with ThreadSanitizer in make test). Four threads each write and read
 * back their own tile's memory, read registers and ping; a fifth waits on
 * a stream-out that only a grant from another thread makes possible. All
 * data must come back intact and no call may fail or hang.
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
#include <unistd.h>

#include <cmocka.h>

#include "fake_dev.h"
#include "transport.h"

static char dir[64], sock[128], dtb[512];
static wse_device *dev;

struct job {
	unsigned x;
	int errors;
};

static void *worker(void *arg)
{
	struct job *j = arg;
	uint8_t w[512], r[512];
	for (int it = 0; it < 150; it++) {
		for (size_t i = 0; i < sizeof(w); i++)
			w[i] = (uint8_t)(i * 13 + it + j->x * 7);
		uint32_t v;
		if (wse_mem_write(dev, j->x, 1, 0x80000000u, w, sizeof(w)) ||
		    wse_mem_read(dev, j->x, 1, 0x80000000u, r, sizeof(r)) ||
		    memcmp(w, r, sizeof(w)) || wse_reg_read(dev, j->x, 1, 0, &v) ||
		    v != (j->x | (1u << 8) | (0x5753u << 16)) || wse_ping(dev, "t", 1))
			j->errors++;
	}
	return NULL;
}

static void *streamer(void *arg)
{
	int *got = arg;
	uint64_t buf[64];
	while (*got < 200) {
		int n = wse_stream_out(dev, WSE_EAST, 2, buf, 64, 50);
		if (n > 0) {
			for (int i = 0; i < n; i++)
				if (buf[i] != (uint64_t)(*got + i))
					return NULL;
			*got += n;
		} else if (n != WSE_ERROR_TIMEOUT) {
			return NULL;
		}
	}
	return NULL;
}

static void test_threads(void **s)
{
	(void)s;
	struct fake_dev *f = fake_dev_start(sock, dtb);
	assert_non_null(f);
	char u[200];
	snprintf(u, sizeof(u), "sim:attach=%s", sock);
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 5000};
	assert_int_equal(wse_open(&dev, u, &o), 0);
	uint64_t w[200];
	for (int i = 0; i < 200; i++)
		w[i] = (uint64_t)i;
	struct wse_stream_chunk c = {WSE_WEST, 2, w, 200};
	assert_int_equal(wse_stream_in(dev, &c, 1), 0);

	pthread_t th[4], st;
	struct job jobs[4];
	int got = 0;
	assert_int_equal(pthread_create(&st, NULL, streamer, &got), 0);
	for (unsigned i = 0; i < 4; i++) {
		jobs[i] = (struct job){i, 0};
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
	}
	usleep(20000);
	assert_int_equal(wse_stream_credit(dev, WSE_EAST, 2, 200), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(jobs[i].errors, 0);
	}
	pthread_join(st, NULL);
	assert_int_equal(got, 200);
	wse_close(dev);
	fake_dev_stop(f);
}

int main(void)
{
	const char *b = getenv("WSE_TEST_BOARDS");
	snprintf(dtb, sizeof(dtb), "%s/sim-4x4/sim-4x4.dtb", b ? b : "build/boards");
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/wsethr-XXXXXX", t && strlen(t) < 30 ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock, sizeof(sock), "%s/dev.sock", dir);
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_threads)};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(sock);
	rmdir(dir);
	return r;
}
