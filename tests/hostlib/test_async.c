/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_async: asynchronous transfers against the mock device (fake_dev.c),
 * built with ThreadSanitizer and with ASan in make test.
 *   - 16 transfers in flight on 4 ports (stream-in, stream-out, memory
 *     write and read per port, each resubmitted from its callback), while
 *     one thread blocks on a stream-out that nothing feeds and another
 *     completes 1,000 memory reads;
 *   - cancel and time-outs;
 *   - close with transfers in flight: every callback runs, cancelled;
 *   - what a callback may not do.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
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

/* Callbacks seen, for waiting on them. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static wse_device *open_dev(struct fake_dev **f, int timeout_ms)
{
	*f = fake_dev_start(sock, dtb);
	assert_non_null(*f);
	char u[200];
	snprintf(u, sizeof(u), "sim:attach=%s", sock);
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = timeout_ms};
	wse_device *d;
	assert_int_equal(wse_open(&d, u, &o), 0);
	return d;
}

/* Wait until *count reaches want (mu held by nobody); 0 on time-out. */
static int wait_count(atomic_int *count, int want, int ms)
{
	long long end = wsei_now_ms() + ms;
	pthread_mutex_lock(&mu);
	while (atomic_load(count) < want && wsei_now_ms() < end) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cv, &mu, &ts);
	}
	pthread_mutex_unlock(&mu);
	return atomic_load(count) >= want;
}

static void bump(atomic_int *count)
{
	pthread_mutex_lock(&mu);
	atomic_fetch_add(count, 1);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

/* ---- 16 in flight on 4 ports ------------------------------------------- */

enum { PORTS = 4, ROUNDS = 25, CHUNK = 64, TOTAL = ROUNDS * CHUNK, MEMB = 256 };

struct port {
	wse_device *d;
	unsigned row;
	uint64_t in[TOTAL], out[TOTAL];
	size_t in_done, out_got;
	int wr_rounds, rd_rounds;
	uint8_t wbuf[MEMB], rbuf[MEMB];
	atomic_int errors;
};

static atomic_int pending, max_pending, finished;

static void submitted(int r, struct port *p)
{
	if (r) {
		atomic_fetch_add(&p->errors, 1);
		return;
	}
	int n = atomic_fetch_add(&pending, 1) + 1;
	int m = atomic_load(&max_pending);
	while (n > m && !atomic_compare_exchange_weak(&max_pending, &m, n))
		;
}

static void retired(void)
{
	atomic_fetch_sub(&pending, 1);
}

static uint8_t pattern(unsigned row, int round, size_t i)
{
	return (uint8_t)(row * 31 + (unsigned)round * 7 + i);
}

static void in_cb(wse_transfer *x, int st, size_t actual, void *user);
static void out_cb(wse_transfer *x, int st, size_t actual, void *user);
static void wr_cb(wse_transfer *x, int st, size_t actual, void *user);
static void rd_cb(wse_transfer *x, int st, size_t actual, void *user);

static void submit_in(struct port *p)
{
	struct wse_stream_chunk c = {WSE_WEST, p->row, p->in + p->in_done, CHUNK};
	submitted(wse_stream_in_async(p->d, &c, 1, 0, in_cb, p, NULL), p);
}

static void submit_out(struct port *p)
{
	submitted(wse_stream_out_async(p->d, WSE_EAST, p->row, p->out + p->out_got,
				       TOTAL - p->out_got, 0, out_cb, p, NULL),
		  p);
}

static void submit_wr(struct port *p)
{
	for (size_t i = 0; i < MEMB; i++)
		p->wbuf[i] = pattern(p->row, p->wr_rounds, i);
	submitted(wse_mem_write_async(p->d, p->row, 1, 0x80000000u, p->wbuf, MEMB,
				      0, wr_cb, p, NULL),
		  p);
}

static void submit_rd(struct port *p)
{
	memset(p->rbuf, 0, MEMB);
	submitted(wse_mem_read_async(p->d, p->row, 2, 0x80000000u, p->rbuf, MEMB,
				     0, rd_cb, p, NULL),
		  p);
}

static void done_one(struct port *p, int st, size_t actual, size_t want)
{
	retired();
	if (st || actual != want)
		atomic_fetch_add(&p->errors, 1);
}

static void in_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct port *p = user;
	(void)x;
	done_one(p, st, actual, CHUNK);
	p->in_done += CHUNK;
	if (p->in_done < TOTAL && !st)
		submit_in(p);
	else
		bump(&finished);
}

static void out_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct port *p = user;
	(void)x;
	retired();
	if (st || actual == 0) {
		atomic_fetch_add(&p->errors, 1);
		bump(&finished);
		return;
	}
	p->out_got += actual;
	if (p->out_got < TOTAL)
		submit_out(p);
	else
		bump(&finished);
}

static void wr_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct port *p = user;
	(void)x;
	done_one(p, st, actual, MEMB);
	if (++p->wr_rounds < ROUNDS && !st)
		submit_wr(p);
	else
		bump(&finished);
}

static void rd_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct port *p = user;
	(void)x;
	done_one(p, st, actual, MEMB);
	for (size_t i = 0; i < MEMB; i++)
		if (p->rbuf[i] != (uint8_t)(p->row + i))
			atomic_fetch_add(&p->errors, 1);
	if (++p->rd_rounds < ROUNDS && !st)
		submit_rd(p);
	else
		bump(&finished);
}

struct blocker {
	wse_device *d;
	atomic_int returned;
	int result;
	uint64_t buf[4];
};

static void *blocker_main(void *arg)
{
	struct blocker *b = arg;
	/* Nothing enters at the east edge, so nothing leaves at the west. */
	b->result = wse_stream_out(b->d, WSE_WEST, 0, b->buf, 4, 60000);
	atomic_store(&b->returned, 1);
	return NULL;
}

struct reader {
	wse_device *d;
	int reads, errors;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint8_t buf[64];
	for (int i = 0; i < 1000; i++) {
		if (wse_mem_read(r->d, 3, 3, 0x80000000u, buf, sizeof(buf))) {
			r->errors++;
			continue;
		}
		for (size_t k = 0; k < sizeof(buf); k++)
			if (buf[k] != (uint8_t)(0xA0 ^ k))
				r->errors++;
		r->reads++;
	}
	return NULL;
}

static void test_in_flight(void **s)
{
	(void)s;
	struct fake_dev *f;
	wse_device *d = open_dev(&f, 5000);
	static struct port ports[PORTS];
	uint8_t img[MEMB];
	for (size_t i = 0; i < sizeof(img); i++)
		img[i] = (uint8_t)(0xA0 ^ i);
	assert_int_equal(wse_mem_write(d, 3, 3, 0x80000000u, img, 64), 0);
	for (unsigned r = 0; r < PORTS; r++) {
		struct port *p = &ports[r];
		memset(p, 0, sizeof(*p));
		p->d = d;
		p->row = r;
		for (size_t i = 0; i < TOTAL; i++)
			p->in[i] = wse_wavelet((uint32_t)(r << 20 | i), 3, 0);
		for (size_t i = 0; i < MEMB; i++)
			img[i] = (uint8_t)(r + i);
		assert_int_equal(wse_mem_write(d, r, 2, 0x80000000u, img, MEMB), 0);
		assert_int_equal(wse_stream_credit(d, WSE_EAST, r, TOTAL), 0);
	}
	atomic_store(&pending, 0);
	atomic_store(&max_pending, 0);
	atomic_store(&finished, 0);

	struct blocker b = {.d = d};
	struct reader rd = {.d = d};
	pthread_t bt, rt;
	assert_int_equal(pthread_create(&bt, NULL, blocker_main, &b), 0);
	assert_int_equal(pthread_create(&rt, NULL, reader_main, &rd), 0);
	/* The device holds its next answer for a second while the 16
	 * transfers are submitted, so all of them are in flight together
	 * however the threads are scheduled. */
	fake_dev_set_mode(f, FAKE_LATE, 1000);
	for (unsigned r = 0; r < PORTS; r++) {
		submit_out(&ports[r]);
		submit_in(&ports[r]);
		submit_wr(&ports[r]);
		submit_rd(&ports[r]);
	}
	fake_dev_set_mode(f, FAKE_NORMAL, 0);
	assert_true(wait_count(&finished, 4 * PORTS, 30000));
	pthread_join(rt, NULL);
	assert_int_equal(rd.reads, 1000);
	assert_int_equal(rd.errors, 0);
	for (unsigned r = 0; r < PORTS; r++) {
		struct port *p = &ports[r];
		assert_int_equal(atomic_load(&p->errors), 0);
		assert_int_equal(p->out_got, TOTAL);
		assert_memory_equal(p->out, p->in, sizeof(p->in));
		assert_int_equal(p->wr_rounds, ROUNDS);
		assert_int_equal(p->rd_rounds, ROUNDS);
	}
	assert_int_equal(atomic_load(&pending), 0);
	assert_true(atomic_load(&max_pending) >= 16);
	/* The last written round is in tile memory. */
	assert_int_equal(wse_mem_read(d, 2, 1, 0x80000000u, img, MEMB), 0);
	for (size_t i = 0; i < MEMB; i++)
		assert_int_equal(img[i], pattern(2, ROUNDS - 1, i));

	/* All of it happened while the blocked stream-out waited. Now feed
	 * it: a wavelet in at the east edge, a credit for the west outlet. */
	assert_int_equal(atomic_load(&b.returned), 0);
	uint64_t w = wse_wavelet(0xB10C, 1, 0);
	struct wse_stream_chunk c = {WSE_EAST, 0, &w, 1};
	assert_int_equal(wse_stream_in(d, &c, 1), 0);
	assert_int_equal(wse_stream_credit(d, WSE_WEST, 0, 1), 0);
	pthread_join(bt, NULL);
	assert_int_equal(b.result, 1);
	assert_true(b.buf[0] == w);

	struct wse_link_stats st = {.size = sizeof(st)};
	assert_int_equal(wse_get_link_stats(d, &st), 0);
	assert_int_equal(st.timeouts, 0);
	assert_int_equal(st.bad_packets, 0);
	printf("in flight: up to %d transfers, %d stream wavelets and %d memory rounds per port, "
	       "1000 reads beside, %llu packets out\n",
	       atomic_load(&max_pending), TOTAL, 2 * ROUNDS,
	       (unsigned long long)st.tx_packets);
	wse_close(d);
	fake_dev_stop(f);
}

/* ---- Cancel and time-outs ----------------------------------------------- */

struct seen {
	atomic_int calls;
	int status;
	size_t actual;
	long long at;
};

static void record_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct seen *s = user;
	(void)x;
	s->status = st;
	s->actual = actual;
	s->at = wsei_now_ms();
	bump(&s->calls);
}

static void test_cancel_timeout(void **s)
{
	(void)s;
	struct fake_dev *f;
	wse_device *d = open_dev(&f, 5000);
	struct seen a = {0}, b = {0}, c = {0}, e = {0};
	uint8_t buf[64];
	uint64_t w[8];
	wse_transfer *xa, *xb, *xc, *xe;

	/* A read the device never answers, cancelled. */
	fake_dev_set_mode(f, FAKE_SILENT, 0);
	memset(buf, 0x5A, sizeof(buf));
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x80000000u, buf, sizeof(buf), 10000,
					    record_cb, &a, &xa), 0);
	usleep(20000);
	long long t0 = wsei_now_ms();
	assert_int_equal(wse_transfer_free(xa), WSE_ERROR_BUSY); /* still pending */
	assert_int_equal(wse_transfer_cancel(xa), 0);
	assert_true(wait_count(&a.calls, 1, 2000));
	assert_int_equal(a.status, WSE_ERROR_ABORTED);
	assert_true(a.at - t0 < 500);
	assert_int_equal(wse_transfer_cancel(xa), WSE_ERROR_NOT_FOUND);
	assert_int_equal(wse_transfer_free(xa), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0x5A);

	/* A stream-out with no data, cancelled. */
	assert_int_equal(wse_stream_out_async(d, WSE_EAST, 1, w, 8, 10000, record_cb, &b, &xb), 0);
	assert_int_equal(wse_transfer_cancel(xb), 0);
	assert_true(wait_count(&b.calls, 1, 2000));
	assert_int_equal(b.status, WSE_ERROR_ABORTED);
	assert_int_equal(wse_transfer_free(xb), 0);

	/* Time-outs: a request (its tag retired, an ABORT sent) and a
	 * stream-out. */
	t0 = wsei_now_ms();
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x80000000u, buf, sizeof(buf), 150,
					    record_cb, &c, &xc), 0);
	assert_int_equal(wse_stream_out_async(d, WSE_EAST, 1, w, 8, 100, record_cb, &e, &xe), 0);
	assert_true(wait_count(&c.calls, 1, 3000));
	assert_true(wait_count(&e.calls, 1, 3000));
	assert_int_equal(c.status, WSE_ERROR_TIMEOUT);
	assert_int_equal(e.status, WSE_ERROR_TIMEOUT);
	assert_true(c.at - t0 >= 140 && c.at - t0 < 1500);
	assert_true(e.at - t0 >= 90 && e.at - t0 < 1500);
	wse_transfer_free(xc);
	wse_transfer_free(xe);
	struct wse_link_stats st = {.size = sizeof(st)};
	assert_int_equal(wse_get_link_stats(d, &st), 0);
	assert_int_equal(st.timeouts, 1);

	/* The link is usable again, and stream-out data goes to the oldest
	 * waiting transfer first. */
	fake_dev_set_mode(f, FAKE_NORMAL, 0);
	assert_int_equal(wse_ping(d, "ok", 2), 0);
	struct seen o1 = {0}, o2 = {0};
	uint64_t b1[3], b2[8], in[5];
	for (int i = 0; i < 5; i++)
		in[i] = (uint64_t)(100 + i);
	assert_int_equal(wse_stream_out_async(d, WSE_EAST, 2, b1, 3, 0, record_cb, &o1, NULL), 0);
	assert_int_equal(wse_stream_out_async(d, WSE_EAST, 2, b2, 8, 0, record_cb, &o2, NULL), 0);
	struct wse_stream_chunk ch = {WSE_WEST, 2, in, 5};
	assert_int_equal(wse_stream_in(d, &ch, 1), 0);
	assert_int_equal(wse_stream_credit(d, WSE_EAST, 2, 5), 0);
	assert_true(wait_count(&o1.calls, 1, 2000));
	assert_true(wait_count(&o2.calls, 1, 2000));
	assert_int_equal(o1.status, 0);
	assert_int_equal(o1.actual, 3);
	assert_int_equal(b1[0], 100);
	assert_int_equal(b1[2], 102);
	assert_int_equal(o2.status, 0);
	assert_int_equal(o2.actual, 2);
	assert_int_equal(b2[0], 103);

	/* Submit errors: no callback comes. */
	struct seen z = {0};
	wse_transfer *xz = (wse_transfer *)&z;
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x80000002u, buf, 4, 0, record_cb, &z, &xz),
			 WSE_ERROR_ALIGN);
	assert_null(xz);
	assert_int_equal(wse_mem_read_async(d, 9, 0, 0x80000000u, buf, 4, 0, record_cb, &z, &xz),
			 WSE_ERROR_RANGE);
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x80000000u, buf, 4, 0, NULL, &z, &xz),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_stream_out_async(d, 2, 0, w, 8, 0, record_cb, &z, &xz),
			 WSE_ERROR_RANGE);
	assert_int_equal(wse_transfer_cancel(NULL), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_transfer_free(NULL), 0);
	/* A device error completes the transfer with it. */
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x90000000u, buf, 4, 0, record_cb, &z, NULL), 0);
	assert_true(wait_count(&z.calls, 1, 2000));
	assert_int_equal(z.status, WSE_ERROR_DEVICE);
	wse_close(d);
	fake_dev_stop(f);
}

/* ---- Close with transfers in flight -------------------------------------- */

struct closing {
	atomic_int calls, aborted, resubmit_refused;
	wse_device *d;
};

static void close_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct closing *c = user;
	static uint8_t scratch[4];
	(void)x;
	(void)actual;
	if (st == WSE_ERROR_ABORTED)
		atomic_fetch_add(&c->aborted, 1);
	/* Resubmitting while the device closes is refused. */
	if (wse_mem_read_async(c->d, 0, 0, 0x80000000u, scratch, 4, 0, close_cb, c, NULL) ==
	    WSE_ERROR_ABORTED)
		atomic_fetch_add(&c->resubmit_refused, 1);
	atomic_fetch_add(&c->calls, 1);
}

static void test_close_in_flight(void **s)
{
	(void)s;
	struct fake_dev *f;
	wse_device *d = open_dev(&f, 5000);
	static struct closing c;
	memset(&c, 0, sizeof(c));
	c.d = d;
	static uint8_t bufs[8][12288];
	static uint64_t outs[8][16];
	wse_transfer *kept[8];
	fake_dev_set_mode(f, FAKE_SILENT, 0);
	for (int i = 0; i < 8; i++) {
		/* Big reads: two packets each, most still queued. */
		assert_int_equal(wse_mem_read_async(d, (unsigned)i % 4, 0, 0x80000000u, bufs[i],
						    sizeof(bufs[i]), 0, close_cb, &c, &kept[i]), 0);
		assert_int_equal(wse_stream_out_async(d, WSE_EAST, (unsigned)i % 4, outs[i], 16, 0,
						      close_cb, &c, NULL), 0);
	}
	uint64_t w[100];
	for (int i = 0; i < 100; i++)
		w[i] = (uint64_t)i;
	struct wse_stream_chunk ch = {WSE_WEST, 1, w, 100};
	assert_int_equal(wse_stream_in_async(d, &ch, 1, 0, close_cb, &c, NULL), 0);
	usleep(30000);
	assert_int_equal(atomic_load(&c.calls), 0);
	wse_close(d);
	/* Every callback ran before close returned, cancelled. */
	assert_int_equal(atomic_load(&c.calls), 17);
	assert_int_equal(atomic_load(&c.aborted), 17);
	assert_int_equal(atomic_load(&c.resubmit_refused), 17);
	for (int i = 0; i < 8; i++)
		assert_int_equal(wse_transfer_free(kept[i]), 0);
	fake_dev_stop(f);
}

/* ---- What a callback may not do ------------------------------------------ */

struct rules {
	atomic_int calls;
	int ping, closed;
	wse_device *d;
};

static void rules_cb(wse_transfer *x, int st, size_t actual, void *user)
{
	struct rules *r = user;
	(void)st;
	(void)actual;
	r->ping = wse_ping(r->d, "x", 1);  /* would wait on this thread */
	wse_close(r->d);                   /* ignored */
	char con[8];
	r->closed = wse_console_read(r->d, con, sizeof(con)); /* still open */
	wse_transfer_free(x);
	bump(&r->calls);
}

static void test_callback_rules(void **s)
{
	(void)s;
	struct fake_dev *f;
	wse_device *d = open_dev(&f, 5000);
	struct rules r = {.d = d};
	uint8_t buf[4];
	wse_transfer *x;
	assert_int_equal(wse_mem_read_async(d, 0, 0, 0x80000000u, buf, 4, 0, rules_cb, &r, &x), 0);
	assert_true(wait_count(&r.calls, 1, 2000));
	assert_int_equal(r.ping, WSE_ERROR_BUSY);
	assert_int_equal(r.closed, 0);
	assert_int_equal(wse_ping(d, "y", 1), 0);
	wse_close(d);
	fake_dev_stop(f);
}

int main(void)
{
	const char *b = getenv("WSE_TEST_BOARDS");
	snprintf(dtb, sizeof(dtb), "%s/sim-4x4/sim-4x4.dtb", b ? b : "build/boards");
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/wseasync-XXXXXX", t && strlen(t) < 30 ? t : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock, sizeof(sock), "%s/dev.sock", dir);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_flight),
		cmocka_unit_test(test_cancel_timeout),
		cmocka_unit_test(test_close_in_flight),
		cmocka_unit_test(test_callback_rules),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(sock);
	rmdir(dir);
	return r;
}
