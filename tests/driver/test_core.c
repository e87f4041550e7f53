// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_core.c - the wse driver's portable core (driver/wse_core.c) under a
 * mock OS interface: the ioctl argument rules, the packet check of write(),
 * the read ring, the read timeout, the device's removal waking a waiter.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "wse_core.h"
#include "wsemu/wse_wire.h"

/* ---- The mock OS interface ------------------------------------------------ */

/* The ring's lock, and this thread's depth in it: must be 0 or 1. */
static pthread_mutex_t ring_mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int locked;
/*
 * wait(): with blocking 0, nothing else runs and a wait whose condition is
 * false times out; with blocking 1, it sleeps until wake() and checks
 * again (a time-out of 5 s guards the test against a lost wake).
 */
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cv = PTHREAD_COND_INITIALIZER;
static int blocking;
static int sleepers;		/* waits asleep, under wait_mu */
static unsigned int wake_seq;	/* under wait_mu */
static int sent;		/* packets passed to send() */
static size_t sent_len;
static int send_ret;
static int resets;
static int wakes;
static int waits;
static unsigned int last_timeout;
static int fault_after = -1;	/* copies left before -EFAULT; -1 never */

static void *m_alloc(size_t size) { return malloc(size); }
static void m_free(void *p) { free(p); }

static void m_lock(struct wse_core *c)
{
	(void)c;
	assert_int_equal(locked, 0);
	pthread_mutex_lock(&ring_mu);
	locked++;
}

static void m_unlock(struct wse_core *c)
{
	(void)c;
	assert_int_equal(locked, 1);
	locked--;
	pthread_mutex_unlock(&ring_mu);
}

static int m_wait(struct wse_core *c, int (*ready)(struct wse_core *c),
		  unsigned int timeout_ms)
{
	struct timespec until;
	unsigned int seq;
	int ret = 0;

	assert_int_equal(locked, 0);
	pthread_mutex_lock(&wait_mu);
	waits++;
	last_timeout = timeout_ms;
	if (!blocking) {
		pthread_mutex_unlock(&wait_mu);
		return ready(c) ? 0 : -ETIMEDOUT;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	for (;;) {
		seq = wake_seq;
		pthread_mutex_unlock(&wait_mu);
		if (ready(c))
			return 0;
		pthread_mutex_lock(&wait_mu);
		sleepers++;
		pthread_cond_broadcast(&wait_cv);
		while (seq == wake_seq && !ret)
			ret = pthread_cond_timedwait(&wait_cv, &wait_mu, &until);
		sleepers--;
		if (ret) {
			pthread_mutex_unlock(&wait_mu);
			return -ETIMEDOUT;
		}
	}
}

static void m_wake(struct wse_core *c)
{
	(void)c;
	assert_int_equal(locked, 0);
	pthread_mutex_lock(&wait_mu);
	wakes++;
	wake_seq++;
	pthread_cond_broadcast(&wait_cv);
	pthread_mutex_unlock(&wait_mu);
}

static unsigned long m_copy(void *to, const void *from, unsigned long n)
{
	assert_int_equal(locked, 0);
	if (fault_after == 0)
		return n;
	if (fault_after > 0)
		fault_after--;
	memcpy(to, from, n);
	return 0;
}

static unsigned long m_copy_to(void *to, const void *from, unsigned long n)
{
	return m_copy(to, from, n);
}

static void m_log(struct wse_core *c, const char *msg)
{
	(void)c;
	(void)msg;
}

static int m_send(struct wse_core *c, const void *pkt, size_t len)
{
	(void)c;
	(void)pkt;
	sent++;
	sent_len = len;
	return send_ret;
}

static int m_reset_link(struct wse_core *c)
{
	(void)c;
	resets++;
	return 0;
}

static const struct wse_os_ops mock_ops = {
	.alloc = m_alloc,
	.free = m_free,
	.lock = m_lock,
	.unlock = m_unlock,
	.wait = m_wait,
	.wake = m_wake,
	.copy_from_user = m_copy,
	.copy_to_user = m_copy_to,
	.log = m_log,
	.send = m_send,
	.reset_link = m_reset_link,
};

#define MAX_PAYLOAD 64u
#define RING 256u	/* frame(64) = 96: two of them fit, a third does not */

static int setup(void **state)
{
	static struct wse_core core;
	struct wse_board_info b = {
		.mesh_cols = 4, .mesh_rows = 2, .dtb_size = 1234,
		.max_payload = MAX_PAYLOAD, .compatible = "wsemu,sim-4x2",
	};

	locked = sent = resets = wakes = waits = blocking = 0;
	sent_len = 0;
	send_ret = 0;
	fault_after = -1;
	assert_int_equal(wse_core_init(&core, &mock_ops, NULL, &b, RING), 0);
	*state = &core;
	return 0;
}

static int teardown(void **state)
{
	wse_core_fini(*state);
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* A packet with a payload of len bytes of fill into buf; its size. */
static size_t make_pkt(uint8_t *buf, uint32_t len, uint8_t flags, uint8_t fill)
{
	size_t n = WSE_FRAME_BYTES(len);

	memset(buf, 0, n);
	put_le32(buf + WSE_HDR_OFF_MAGIC, WSE_PROTO_MAGIC);
	buf[WSE_HDR_OFF_MAJOR] = WSE_PROTO_MAJOR;
	buf[WSE_HDR_OFF_OPCODE] = WSE_OP_PING;
	buf[WSE_HDR_OFF_FLAGS] = flags;
	put_le32(buf + WSE_HDR_OFF_LENGTH, len);
	memset(buf + WSE_HDR_BYTES, fill, len);
	return n;
}

/* ---- Initialisation ---------------------------------------------------- */

static void test_init_refusals(void **state)
{
	struct wse_core c;
	struct wse_board_info b = { .max_payload = MAX_PAYLOAD };

	(void)state;
	assert_int_equal(wse_core_init(&c, &mock_ops, NULL, &b, 0), -EINVAL);
	assert_int_equal(wse_core_init(&c, &mock_ops, NULL, &b, 200), -EINVAL);
	assert_int_equal(wse_core_init(&c, &mock_ops, NULL, &b, 64), -EINVAL);
	b.max_payload = WSE_PROTO_MAX_PAYLOAD + 8;
	assert_int_equal(wse_core_init(&c, &mock_ops, NULL, &b, 1u << 20),
			 -EINVAL);
}

/* ---- ioctl argument rules ---------------------------------------------- */

static void test_get_info(void **state)
{
	struct wse_info info = { .argsz = sizeof(info) };

	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO, &info), 0);
	assert_int_equal(info.argsz, sizeof(info));
	assert_int_equal(info.api_version, WSE_API_VERSION);
	assert_int_equal(info.driver_version,
			 WSE_DRIVER_MAJOR << 16 | WSE_DRIVER_MINOR);
	assert_int_equal(info.mesh_cols, 4);
	assert_int_equal(info.mesh_rows, 2);
	assert_int_equal(info.dtb_size, 1234);
	assert_int_equal(info.max_payload, MAX_PAYLOAD);
	assert_string_equal(info.compatible, "wsemu,sim-4x2");
}

static void test_short_argsz(void **state)
{
	struct wse_info info = { .argsz = sizeof(info) - 1 };
	struct wse_reset r = { .argsz = 4 };
	struct wse_timeout t = { .argsz = 0, .read_timeout_ms = 5 };

	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO, &info),
			 -EINVAL);
	assert_int_equal(info.mesh_cols, 0);
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_RESET, &r), -EINVAL);
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_SET_TIMEOUT, &t),
			 -EINVAL);
	assert_int_equal(((struct wse_core *)*state)->read_timeout_ms, 0);
	assert_int_equal(resets, 0);
}

/* A caller built against a later version: a longer struct. */
struct timeout_v2 {
	struct wse_timeout v1;
	uint8_t more[200];
};

static void test_long_argsz(void **state)
{
	struct wse_core *c = *state;
	struct timeout_v2 t;
	size_t i;

	memset(&t, 0, sizeof(t));
	t.v1.argsz = sizeof(t);
	t.v1.read_timeout_ms = 7;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_SET_TIMEOUT, &t), 0);
	assert_int_equal(c->read_timeout_ms, 7);

	for (i = 0; i < sizeof(t.more); i += 63) {
		t.more[i] = 1;
		t.v1.read_timeout_ms = 9;
		assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_SET_TIMEOUT, &t),
				 -E2BIG);
		assert_int_equal(c->read_timeout_ms, 7);
		t.more[i] = 0;
	}
	/* A non-zero byte beyond argsz is not the caller's: accepted. */
	t.more[100] = 1;
	t.v1.argsz = sizeof(t.v1) + 100;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_SET_TIMEOUT, &t), 0);
	assert_int_equal(c->read_timeout_ms, 9);
}

static void test_argsz_too_long(void **state)
{
	static uint8_t big[WSE_ARGSZ_MAX + 8];
	struct wse_reset *r = (struct wse_reset *)big;

	r->argsz = WSE_ARGSZ_MAX + 8;
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_RESET, r), -E2BIG);
	r->argsz = WSE_ARGSZ_MAX;
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_RESET, r), 0);
}

static void test_unknown_flags(void **state)
{
	struct wse_info info = { .argsz = sizeof(info), .flags = 1 };
	struct wse_reset r = { .argsz = sizeof(r), .flags = 0x2 };
	struct wse_timeout t = { .argsz = sizeof(t), .flags = 0x80000000u };

	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO, &info),
			 -EINVAL);
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_RESET, &r), -EINVAL);
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_SET_TIMEOUT, &t),
			 -EINVAL);
	assert_int_equal(resets, 0);
}

static void test_timeout_pad(void **state)
{
	struct wse_timeout t = { .argsz = sizeof(t), .read_timeout_ms = 3,
				 .pad = 1 };

	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_SET_TIMEOUT, &t),
			 -EINVAL);
	assert_int_equal(((struct wse_core *)*state)->read_timeout_ms, 0);
}

static void test_unknown_ioctl(void **state)
{
	struct wse_reset r = { .argsz = sizeof(r) };

	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO + 3, &r),
			 -ENOTTY);
	assert_int_equal(wse_core_ioctl(*state, _IO('T', 1), &r), -ENOTTY);
}

static void test_fault(void **state)
{
	struct wse_info info = { .argsz = sizeof(info) };

	fault_after = 0;
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO, &info),
			 -EFAULT);
	fault_after = 2;	/* argsz/flags, the struct, then the answer */
	assert_int_equal(wse_core_ioctl(*state, WSE_IOCTL_GET_INFO, &info),
			 -EFAULT);
}

static void test_reset(void **state)
{
	struct wse_core *c = *state;
	struct wse_reset r = { .argsz = sizeof(r),
			       .flags = WSE_RESET_QUEUES_ONLY };
	uint8_t pkt[128];
	size_t n = make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 1);

	assert_int_equal(wse_core_rx_push(c, pkt, n), 0);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(wse_core_queued(c), 0);
	assert_int_equal(resets, 0);
	assert_int_equal(wse_core_rx_push(c, pkt, n), 0);
	r.flags = 0;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(wse_core_queued(c), 0);
	assert_int_equal(resets, 1);
}

/* ---- write(): whole request packets only ------------------------------- */

static void test_write_ok(void **state)
{
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD)];
	size_t n;

	n = make_pkt(pkt, 0, 0, 0);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), n);
	n = make_pkt(pkt, 5, 0, 0xa5);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), n);
	assert_int_equal(sent_len, 40);
	n = make_pkt(pkt, MAX_PAYLOAD, 0, 0x5a);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), n);
	assert_int_equal(sent, 3);
	send_ret = -EOPNOTSUPP;
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EOPNOTSUPP);
}

static void test_write_malformed(void **state)
{
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD) + 16];
	size_t n = make_pkt(pkt, 16, 0, 0x11);

	/* sizes: too short, not a multiple of 8, length field disagreeing */
	assert_int_equal(wse_core_write(*state, (char *)pkt, 0), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, 24), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n - 1), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n - 8), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n + 8), -EINVAL);
	/* the length field above max_payload */
	n = make_pkt(pkt, MAX_PAYLOAD + 8, 0, 0);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EINVAL);
	/* magic */
	n = make_pkt(pkt, 16, 0, 0x11);
	pkt[0] ^= 1;
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EINVAL);
	/* not a request */
	n = make_pkt(pkt, 16, WSE_FLAG_RESPONSE, 0x11);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EINVAL);
	n = make_pkt(pkt, 16, WSE_FLAG_EVENT, 0x11);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EINVAL);
	/* a bad user address */
	n = make_pkt(pkt, 16, 0, 0x11);
	fault_after = 0;
	assert_int_equal(wse_core_write(*state, (char *)pkt, n), -EFAULT);
	/* nothing was sent, nothing queued */
	assert_int_equal(sent, 0);
	assert_int_equal(wse_core_queued(*state), 0);
}

/* ---- the read ring ----------------------------------------------------- */

static void test_ring_empty(void **state)
{
	struct wse_core *c = *state;
	uint8_t buf[256];

	assert_int_equal(wse_core_poll(c), WSE_CORE_WRITABLE);
	assert_int_equal(wse_core_read(c, (char *)buf, sizeof(buf), 1),
			 -EAGAIN);
	assert_int_equal(waits, 0);
}

static void test_read_timeout(void **state)
{
	struct wse_core *c = *state;
	struct wse_timeout t = { .argsz = sizeof(t), .read_timeout_ms = 20 };
	uint8_t buf[256];

	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_SET_TIMEOUT, &t), 0);
	assert_int_equal(wse_core_read(c, (char *)buf, sizeof(buf), 0),
			 -ETIMEDOUT);
	assert_int_equal(waits, 1);
	assert_int_equal(last_timeout, 20);
}

static void test_ring_order_and_full(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD)], out[256];
	size_t n64 = make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 1);
	size_t n8;
	int i;

	/* wrap the ring several times: 96 + 40 bytes a round */
	for (i = 0; i < 10; i++) {
		make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 2 * i);
		assert_int_equal(wse_core_rx_push(c, pkt, n64), 0);
		n8 = make_pkt(pkt, 8, WSE_FLAG_EVENT, 2 * i + 1);
		assert_int_equal(wse_core_rx_push(c, pkt, n8), 0);
		assert_int_equal(wse_core_poll(c),
				 WSE_CORE_READABLE | WSE_CORE_WRITABLE);
		assert_int_equal(wse_core_read(c, (char *)out, n64 - 8, 1),
				 -EMSGSIZE);
		assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1),
				 n64);
		make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 2 * i);
		assert_memory_equal(out, pkt, n64);
		assert_int_equal(wse_core_read(c, (char *)out, n8, 0), n8);
		make_pkt(pkt, 8, WSE_FLAG_EVENT, 2 * i + 1);
		assert_memory_equal(out, pkt, n8);
	}
	assert_int_equal(wakes, 20);
	assert_int_equal(wse_core_queued(c), 0);

	/* full: 96 + 96 + 40 = 232 of 256; another 40 does not fit */
	make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 7);
	assert_int_equal(wse_core_rx_push(c, pkt, n64), 0);
	assert_int_equal(wse_core_rx_push(c, pkt, n64), 0);
	n8 = make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 8);
	assert_int_equal(wse_core_rx_push(c, pkt, n8), 0);
	assert_int_equal(wse_core_rx_push(c, pkt, n8), -ENOSPC);
	assert_int_equal(wse_core_queued(c), 2 * n64 + n8);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1), n64);
	assert_int_equal(wse_core_rx_push(c, pkt, n8), 0);
}

static void test_push_malformed(void **state)
{
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD) + 8];
	size_t n = make_pkt(pkt, 16, WSE_FLAG_RESPONSE, 3);

	assert_int_equal(wse_core_rx_push(*state, pkt, n - 8), -EINVAL);
	n = make_pkt(pkt, MAX_PAYLOAD + 8, WSE_FLAG_RESPONSE, 3);
	assert_int_equal(wse_core_rx_push(*state, pkt, n), -EINVAL);
	assert_int_equal(wse_core_queued(*state), 0);
	assert_int_equal(wakes, 0);
}

static void test_read_fault(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[64];
	size_t n = make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 4);

	assert_int_equal(wse_core_rx_push(c, pkt, n), 0);
	fault_after = 0;
	assert_int_equal(wse_core_read(c, (char *)pkt, sizeof(pkt), 1),
			 -EFAULT);
}

/* ---- the device's removal ------------------------------------------------ */

struct reader {
	struct wse_core *c;
	long ret;
};

static void *reader_thread(void *arg)
{
	struct reader *r = arg;
	uint8_t buf[WSE_FRAME_BYTES(MAX_PAYLOAD)];

	r->ret = wse_core_read(r->c, (char *)buf, sizeof(buf), 0);
	return NULL;
}

/* A read() with no time-out, asleep, is woken by the removal: -ENODEV. */
static void test_remove_wakes_reader(void **state)
{
	struct reader r = { .c = *state, .ret = 1 };
	struct timespec until;
	pthread_t t;
	int ret = 0;

	blocking = 1;
	assert_int_equal(pthread_create(&t, NULL, reader_thread, &r), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&wait_mu);
	while (!sleepers && !ret)
		ret = pthread_cond_timedwait(&wait_cv, &wait_mu, &until);
	pthread_mutex_unlock(&wait_mu);
	assert_int_equal(ret, 0);
	wse_core_remove(r.c);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r.ret, -ENODEV);
	assert_int_equal(last_timeout, 0);
	assert_int_equal(wakes, 1);
}

/* After the removal every call fails with -ENODEV, queued packets too. */
static void test_calls_after_remove(void **state)
{
	struct wse_core *c = *state;
	struct wse_info info = { .argsz = sizeof(info) };
	struct wse_reset r = { .argsz = sizeof(r) };
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD)];
	size_t n = make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 5);

	assert_int_equal(wse_core_rx_push(c, pkt, n), 0);
	wse_core_remove(c);
	assert_int_equal(wse_core_poll(c), WSE_CORE_GONE);
	assert_int_equal(wse_core_read(c, (char *)pkt, sizeof(pkt), 0),
			 -ENODEV);
	assert_int_equal(wse_core_read(c, (char *)pkt, sizeof(pkt), 1),
			 -ENODEV);
	n = make_pkt(pkt, 8, 0, 5);
	assert_int_equal(wse_core_write(c, (char *)pkt, n), -ENODEV);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_GET_INFO, &info),
			 -ENODEV);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), -ENODEV);
	assert_int_equal(info.mesh_cols, 0);
	assert_int_equal(sent, 0);
	assert_int_equal(resets, 0);
	assert_int_equal(waits, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_refusals),
		T(test_get_info),
		T(test_short_argsz),
		T(test_long_argsz),
		T(test_argsz_too_long),
		T(test_unknown_flags),
		T(test_timeout_pad),
		T(test_unknown_ioctl),
		T(test_fault),
		T(test_reset),
		T(test_write_ok),
		T(test_write_malformed),
		T(test_ring_empty),
		T(test_read_timeout),
		T(test_ring_order_and_full),
		T(test_push_malformed),
		T(test_read_fault),
		T(test_remove_wakes_reader),
		T(test_calls_after_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
