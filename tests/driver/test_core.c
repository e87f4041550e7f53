// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_core.c - the wse driver's portable core (driver/wse_core.c) under a
 * mock OS interface: the ioctl argument rules, the packet check of write(),
 * the read queue, the read timeout, the device's removal waking a waiter;
 * the H2C and C2H descriptor rings against a mock device that keeps its
 * registers (docs/pcie.md) and works the rings in host memory when a test
 * tells it to.
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
#include "wsemu/wse_pcie.h"

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
static int wait_error;		/* non-zero: wait() ends with it (a signal) */
static int sleepers;		/* waits asleep, under wait_mu */
static unsigned int wake_seq;	/* under wait_mu */
static int wakes;
static int waits;
static unsigned int last_timeout;
static int fault_after = -1;	/* copies left before -EFAULT; -1 never */
static void (*on_wait)(struct wse_core *c);	/* the device, while asleep */

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
	if (wait_error) {
		pthread_mutex_unlock(&wait_mu);
		return wait_error;
	}
	if (!blocking) {
		pthread_mutex_unlock(&wait_mu);
		if (on_wait)
			on_wait(c);
		return ready(c) ? 0 : -ETIMEDOUT;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	if (timeout_ms && timeout_ms < 5000) {
		until.tv_nsec += (long)timeout_ms * 1000000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
	} else {
		until.tv_sec += 5;
	}
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

/* ---- The mock device: BAR 0's registers, the rings in host memory ------ */

/* Bus addresses are the CPU's plus this: the core must not mix them. */
#define BUS_OFF 0x100000000000ull

struct mring {
	uint64_t base;
	uint32_t size, tail, head, run, busy;
};

static struct mdev {
	struct mring r[2];		/* H2C, C2H */
	uint32_t int_status, int_mask, err_status;
	uint32_t ring_max, desc_max;
	int absent;			/* reads all ones, as a removed card */
	int refuse_run;
	int regs_off;			/* wse_core_stop() done: no access */
	int starts, doorbells;
	uint8_t rx[8192];		/* the H2C bytes taken, in order */
	size_t rx_len;
	uint32_t fail_code;		/* the next H2C descriptor's error */
	int no_irq_seen;		/* H2C descriptors with NO_IRQ */
} dev;
static pthread_mutex_t dev_mu = PTHREAD_MUTEX_INITIALIZER;
static int dma_live;			/* dma_alloc()s not freed */

static void *m_dma_alloc(struct wse_core *c, size_t size, u64 *bus)
{
	void *p = aligned_alloc(16, (size + 15) & ~(size_t)15);

	(void)c;
	if (!p)
		return NULL;
	memset(p, 0, size);
	*bus = (u64)(uintptr_t)p + BUS_OFF;
	dma_live++;
	return p;
}

static void m_dma_free(struct wse_core *c, size_t size, void *cpu, u64 bus)
{
	(void)c;
	(void)size;
	assert_int_equal(bus, (uint64_t)(uintptr_t)cpu + BUS_OFF);
	dma_live--;
	free(cpu);
}

static uint8_t *bus_ptr(uint64_t bus)
{
	return (uint8_t *)(uintptr_t)(bus - BUS_OFF);
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void dev_error(int ring, uint32_t bit)
{
	dev.err_status |= bit << (ring ? WSE_PCIE_ERR_C2H_SHIFT : 0);
	dev.int_status |= 1u << WSE_PCIE_VEC_ERR;
}

static uint32_t m_reg_read(struct wse_core *c, uint32_t off)
{
	struct mring *r = &dev.r[off >= WSE_PCIE_REG_C2H];
	uint32_t v = 0;

	(void)c;
	pthread_mutex_lock(&dev_mu);
	assert_false(dev.regs_off);
	if (dev.absent)
		v = 0xffffffffu;
	else if (off == WSE_PCIE_REG_RING_MAX)
		v = dev.ring_max;
	else if (off == WSE_PCIE_REG_DESC_MAX)
		v = dev.desc_max;
	else if (off == WSE_PCIE_REG_INT_STATUS)
		v = dev.int_status;
	else if (off == WSE_PCIE_REG_INT_MASK)
		v = dev.int_mask;
	else if (off == WSE_PCIE_REG_ERR_STATUS)
		v = dev.err_status;
	else if (off >= WSE_PCIE_REG_H2C && off < WSE_PCIE_REG_C2H + 0x40)
		switch (off & 0x3f) {
		case WSE_PCIE_RING_TAIL: v = r->tail; break;
		case WSE_PCIE_RING_HEAD: v = r->head; break;
		case WSE_PCIE_RING_SIZE: v = r->size; break;
		case WSE_PCIE_RING_CTRL: v = r->run | r->busy << 1; break;
		}
	pthread_mutex_unlock(&dev_mu);
	return v;
}

static void m_reg_write(struct wse_core *c, uint32_t off, uint32_t v)
{
	int ring = off >= WSE_PCIE_REG_C2H;
	struct mring *r = &dev.r[ring];
	int idle = !r->run && !r->busy;

	(void)c;
	pthread_mutex_lock(&dev_mu);
	assert_false(dev.regs_off);
	if (off == WSE_PCIE_REG_INT_STATUS)
		dev.int_status &= ~v;
	else if (off == WSE_PCIE_REG_INT_MASK)
		dev.int_mask = v;
	else if (off == WSE_PCIE_REG_ERR_STATUS)
		dev.err_status &= ~v;
	else if (off >= WSE_PCIE_REG_H2C && off < WSE_PCIE_REG_C2H + 0x40)
		switch (off & 0x3f) {
		case WSE_PCIE_RING_BASE_LO:
			if (idle)
				r->base = (r->base & ~0xffffffffull) | v;
			break;
		case WSE_PCIE_RING_BASE_HI:
			if (idle)
				r->base = (r->base & 0xffffffffull) |
					  (uint64_t)v << 32;
			break;
		case WSE_PCIE_RING_SIZE:
			if (idle)
				r->size = v;
			break;
		case WSE_PCIE_RING_TAIL:
			if (r->run && v >= r->size)
				dev_error(ring, WSE_PCIE_ERR_TAIL);
			else if (r->run)
				r->tail = v;
			dev.doorbells += r->run && !ring;
			break;
		case WSE_PCIE_RING_CTRL:
			if (!(v & WSE_PCIE_CTRL_RUN)) {
				r->run = 0;
			} else if (idle && !dev.refuse_run) {
				assert_int_equal(r->base % 16, 0);
				assert_true(r->size && !(r->size & (r->size - 1)) &&
					    r->size <= dev.ring_max);
				r->run = 1;
				r->head = r->tail = 0;
				dev.starts++;
			}
			break;
		}
	pthread_mutex_unlock(&dev_mu);
}

static uint8_t *dev_desc(struct mring *r)
{
	return bus_ptr(r->base + (uint64_t)r->head * WSE_PCIE_DESC_BYTES);
}

/* Complete the head entry with len and status; advance HEAD. */
static void dev_complete(int ring, uint32_t len, uint32_t status, int irq)
{
	struct mring *r = &dev.r[ring];
	uint8_t *d = dev_desc(r);

	put_le32(d + WSE_PCIE_CPL_OFF_LEN, len);
	put_le32(d + WSE_PCIE_CPL_OFF_STATUS, WSE_PCIE_CPL_DONE | status);
	r->head = (r->head + 1) % r->size;
	if (irq && (status & WSE_PCIE_CPL_CODE_MASK) == WSE_PCIE_CPL_OK)
		dev.int_status |= 1u << ring;
}

/* The device takes up to max H2C descriptors; how many it took. */
static int dev_h2c(int max)
{
	struct mring *r = &dev.r[0];
	uint8_t *d;
	uint64_t addr;
	uint32_t len, flags, code;
	int n = 0;

	pthread_mutex_lock(&dev_mu);
	while (r->run && r->head != r->tail && n < max) {
		d = dev_desc(r);
		addr = le32(d) | (uint64_t)le32(d + 4) << 32;
		len = le32(d + WSE_PCIE_DESC_OFF_LEN);
		flags = le32(d + WSE_PCIE_DESC_OFF_FLAGS);
		assert_int_equal(addr % 8, 0);
		assert_int_equal(len % 8, 0);
		assert_true(len <= dev.desc_max);
		assert_int_equal(flags & ~WSE_PCIE_DESC_FLAGS_KNOWN, 0);
		dev.no_irq_seen += !!(flags & WSE_PCIE_DESC_NO_IRQ);
		code = dev.fail_code;
		n++;
		if (code) {
			dev.fail_code = 0;
			dev_complete(0, 0, code, 0);
			dev_error(0, code == WSE_PCIE_CPL_TIMEOUT ?
				  WSE_PCIE_ERR_TIMEOUT : WSE_PCIE_ERR_BUS);
			r->run = 0;
			break;
		}
		assert_true(dev.rx_len + len <= sizeof(dev.rx));
		memcpy(dev.rx + dev.rx_len, bus_ptr(addr), len);
		dev.rx_len += len;
		dev_complete(0, len, WSE_PCIE_CPL_OK,
			     !(flags & WSE_PCIE_DESC_NO_IRQ));
	}
	pthread_mutex_unlock(&dev_mu);
	return n;
}

/*
 * The device sends a packet of len bytes into the C2H buffers, each ending
 * with the packet or full: 0, or -1 (not enough buffers posted; nothing
 * sent).
 */
static int dev_c2h(const uint8_t *pkt, size_t len)
{
	struct mring *r = &dev.r[1];
	size_t off = 0, room = 0, n;
	uint32_t i, blen;
	uint8_t *d;

	pthread_mutex_lock(&dev_mu);
	for (i = r->head; r->run && i != r->tail; i = (i + 1) % r->size)
		room += le32(bus_ptr(r->base + (uint64_t)i * 16) + 8);
	if (room < len) {
		pthread_mutex_unlock(&dev_mu);
		return -1;
	}
	while (off < len) {
		d = dev_desc(r);
		blen = le32(d + WSE_PCIE_DESC_OFF_LEN);
		n = len - off < blen ? len - off : blen;
		memcpy(bus_ptr(le32(d) | (uint64_t)le32(d + 4) << 32),
		       pkt + off, n);
		off += n;
		dev_complete(1, n, off == len ? WSE_PCIE_CPL_EOP : 0, 1);
	}
	pthread_mutex_unlock(&dev_mu);
	return 0;
}

/* The device completes the head C2H buffer with an error code and stops. */
static void dev_c2h_fail(uint32_t code)
{
	pthread_mutex_lock(&dev_mu);
	dev_complete(1, 0, code, 0);
	dev_error(1, code == WSE_PCIE_CPL_TIMEOUT ? WSE_PCIE_ERR_TIMEOUT :
		  WSE_PCIE_ERR_BUS);
	dev.r[1].run = 0;
	pthread_mutex_unlock(&dev_mu);
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
	.reg_read = m_reg_read,
	.reg_write = m_reg_write,
	.dma_alloc = m_dma_alloc,
	.dma_free = m_dma_free,
};

#define MAX_PAYLOAD 64u
#define RING 256u	/* frame(64) = 96: two of them fit, a third does not */
#define FRAME_MAX WSE_FRAME_BYTES(MAX_PAYLOAD)
/* 8 entries of 32 bytes each way: the largest request takes 3 entries. */
static const struct wse_ring_cfg cfg = {
	.h2c_entries = 8, .h2c_buf_bytes = 32,
	.c2h_entries = 8, .c2h_buf_bytes = 32,
};

static int setup(void **state)
{
	static struct wse_core core;
	struct wse_board_info b = {
		.mesh_cols = 4, .mesh_rows = 2, .dtb_size = 1234,
		.max_payload = MAX_PAYLOAD, .compatible = "wsemu,sim-4x2",
	};

	locked = wakes = waits = blocking = wait_error = 0;
	fault_after = -1;
	on_wait = NULL;
	memset(&dev, 0, sizeof(dev));
	dev.int_mask = 0x7;
	dev.ring_max = WSE_PCIE_RING_MAX_ENTRIES;
	dev.desc_max = WSE_PCIE_DESC_MAX_LEN;
	assert_int_equal(wse_core_init(&core, &mock_ops, NULL, &b, RING), 0);
	assert_int_equal(wse_core_start(&core, &cfg), 0);
	assert_int_equal(dev.starts, 2);
	assert_int_equal(dev.int_mask, 0);
	*state = &core;
	return 0;
}

static int teardown(void **state)
{
	assert_int_equal(wse_core_stop(*state), 0);
	dev.regs_off = 1;
	wse_core_irq(*state);		/* touches no register any more */
	wse_core_free_rings(*state);
	assert_int_equal(dma_live, 0);
	wse_core_fini(*state);
	assert_int_equal(dma_live, 0);
	return 0;
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
	assert_int_equal(dev.starts, 2);
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
	assert_int_equal(dev.starts, 2);
}

/*
 * Every flag bit an ioctl does not define, set alone, with a valid argsz:
 * -EINVAL, the caller's buffer unchanged, the read timeout, the read
 * queue and the rings (their starts) unchanged.
 */
static void test_flag_matrix(void **state)
{
	static const struct {
		unsigned int cmd;
		u32 size, known;
	} ios[] = {
		{ WSE_IOCTL_GET_INFO, sizeof(struct wse_info), 0 },
		{ WSE_IOCTL_RESET, sizeof(struct wse_reset), WSE_RESET_FLAGS },
		{ WSE_IOCTL_SET_TIMEOUT, sizeof(struct wse_timeout), 0 },
	};
	struct wse_core *c = *state;
	u8 arg[128], before[128];
	u8 pkt[64];
	size_t i;
	u32 queued;
	int bit;

	c->read_timeout_ms = 123;
	assert_int_equal(wse_core_rx_push(c, pkt,
					  make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 1)),
			 0);
	queued = wse_core_queued(c);
	assert_int_not_equal(queued, 0);
	for (i = 0; i < sizeof(ios) / sizeof(ios[0]); i++)
		for (bit = 0; bit < 32; bit++) {
			u32 f = 1u << bit;

			if (f & ios[i].known)
				continue;
			memset(arg, 0xA5, sizeof(arg));
			memcpy(arg, &ios[i].size, 4);
			memcpy(arg + 4, &f, 4);
			memcpy(before, arg, sizeof(arg));
			assert_int_equal(wse_core_ioctl(c, ios[i].cmd, arg),
					 -EINVAL);
			assert_memory_equal(arg, before, sizeof(arg));
		}
	assert_int_equal(c->read_timeout_ms, 123);
	assert_int_equal(wse_core_queued(c), queued);
	assert_int_equal(dev.starts, 2);
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
	assert_int_equal(dev.starts, 2);
	assert_int_equal(wse_core_rx_push(c, pkt, n), 0);
	r.flags = 0;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(wse_core_queued(c), 0);
	assert_int_equal(dev.starts, 4);
}

/* ---- write(): whole request packets only ------------------------------- */

static void test_write_ok(void **state)
{
	uint8_t pkt[FRAME_MAX], all[3 * FRAME_MAX];
	size_t n, total = 0;

	n = make_pkt(pkt, 0, 0, 0);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), n);
	memcpy(all + total, pkt, n);
	total += n;
	n = make_pkt(pkt, 5, 0, 0xa5);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), n);
	assert_int_equal(n, 40);
	memcpy(all + total, pkt, n);
	total += n;
	assert_int_equal(dev_h2c(100), 3);	/* 32 bytes, then 32 + 8 */
	n = make_pkt(pkt, MAX_PAYLOAD, 0, 0x5a);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 1), n);
	memcpy(all + total, pkt, n);
	total += n;
	assert_int_equal(dev.doorbells, 3);
	assert_int_equal(dev_h2c(100), 3);
	assert_int_equal(dev.rx_len, total);
	assert_memory_equal(dev.rx, all, total);
	/* only a packet's last entry asks for an interrupt */
	assert_int_equal(dev.no_irq_seen, 1 + 2);
	assert_int_equal(dev.int_status, 1u << WSE_PCIE_VEC_H2C);
	wse_core_irq(*state);
	assert_int_equal(dev.int_status, 0);
	assert_int_equal(wakes, 1);
}

static void test_write_malformed(void **state)
{
	uint8_t pkt[WSE_FRAME_BYTES(MAX_PAYLOAD) + 16];
	size_t n = make_pkt(pkt, 16, 0, 0x11);

	/* sizes: too short, not a multiple of 8, length field disagreeing */
	assert_int_equal(wse_core_write(*state, (char *)pkt, 0, 0), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, 24, 0), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n - 1, 0), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n - 8, 0), -EINVAL);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n + 8, 0), -EINVAL);
	/* the length field above max_payload */
	n = make_pkt(pkt, MAX_PAYLOAD + 8, 0, 0);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), -EINVAL);
	/* magic */
	n = make_pkt(pkt, 16, 0, 0x11);
	pkt[0] ^= 1;
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), -EINVAL);
	/* not a request */
	n = make_pkt(pkt, 16, WSE_FLAG_RESPONSE, 0x11);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), -EINVAL);
	n = make_pkt(pkt, 16, WSE_FLAG_EVENT, 0x11);
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), -EINVAL);
	/* a bad user address */
	n = make_pkt(pkt, 16, 0, 0x11);
	fault_after = 0;
	assert_int_equal(wse_core_write(*state, (char *)pkt, n, 0), -EFAULT);
	/* nothing was sent, nothing queued */
	assert_int_equal(dev.doorbells, 0);
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

/* Until a second thread is asleep in wait() (5 s at most). */
static void wait_for_sleeper(void)
{
	struct timespec until;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&wait_mu);
	while (!sleepers && !ret)
		ret = pthread_cond_timedwait(&wait_cv, &wait_mu, &until);
	pthread_mutex_unlock(&wait_mu);
	assert_int_equal(ret, 0);
}

/* Run fn(arg) in a second thread, remove the device once it is asleep. */
static void remove_under(void *(*fn)(void *), void *arg, struct wse_core *c)
{
	pthread_t t;

	blocking = 1;
	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	wait_for_sleeper();
	wse_core_remove(c);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* A read() with no time-out, asleep, is woken by the removal: -ENODEV. */
static void test_remove_wakes_reader(void **state)
{
	struct reader r = { .c = *state, .ret = 1 };

	remove_under(reader_thread, &r, r.c);
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
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -ENODEV);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_GET_INFO, &info),
			 -ENODEV);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), -ENODEV);
	assert_int_equal(info.mesh_cols, 0);
	assert_int_equal(dev.doorbells, 0);
	assert_int_equal(dev.starts, 2);
	assert_int_equal(waits, 0);
}

/* ---- the H2C ring ------------------------------------------------------ */

/* Requests of every size through a ring of 8 entries, wrapping many times. */
static void test_h2c_wrap(void **state)
{
	struct wse_core *c = *state;
	static uint8_t all[8192];
	uint8_t pkt[FRAME_MAX];
	size_t n, total = 0;
	uint32_t len;

	for (len = 0; len <= MAX_PAYLOAD; len += 4) {
		n = make_pkt(pkt, len, 0, (uint8_t)len);
		while (wse_core_write(c, (char *)pkt, n, 1) == -EAGAIN) {
			assert_int_equal(dev_h2c(1), 1);
			wse_core_irq(c);
		}
		memcpy(all + total, pkt, n);
		total += n;
		dev_h2c((int)len % 3 + 1);	/* the device lags behind */
		wse_core_irq(c);
	}
	while (dev_h2c(100))
		wse_core_irq(c);
	assert_int_equal(dev.rx_len, total);
	assert_memory_equal(dev.rx, all, total);
	assert_true(dev.doorbells > 16);
	assert_int_equal(c->h2c.head, c->h2c.tail);
	assert_int_equal(wse_core_poll(c), WSE_CORE_WRITABLE);
}

/* The device wakes a writer up while it waits: the device takes entries. */
static void device_takes_all(struct wse_core *c)
{
	dev_h2c(100);
	wse_core_irq(c);
}

/*
 * Full: -EAGAIN without blocking, -ETIMEDOUT after the bound, a signal's
 * error, else waits.
 */
static void test_h2c_full(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, MAX_PAYLOAD, 0, 0x33);

	/* 7 free entries take two requests of 3 */
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), n);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), n);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), -EAGAIN);
	assert_int_equal(wse_core_poll(c), 0);
	assert_int_equal(waits, 0);
	/* a device that takes nothing: the wait's bound */
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -ETIMEDOUT);
	assert_int_equal(last_timeout, WSE_WRITE_TIMEOUT_MS);
	/* a signal ends the wait */
	wait_error = -EINTR;
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -EINTR);
	wait_error = 0;
	assert_int_equal(dev.doorbells, 2);
	/* the device takes one entry: not yet room for 3 */
	assert_int_equal(dev_h2c(1), 1);
	wse_core_irq(c);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), -EAGAIN);
	/* a blocking write the device makes room for while it waits */
	on_wait = device_takes_all;
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	assert_int_equal(waits, 3);
	assert_int_equal(dev_h2c(100), 3);
	assert_int_equal(dev.rx_len, 3 * n);
	/* poll reaps by itself, without an interrupt */
	assert_int_equal(wse_core_poll(c), WSE_CORE_WRITABLE);
}

/* A write of no bytes, and one larger than the largest request: refused. */
static void test_h2c_sizes_refused(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX + 64];
	size_t n = make_pkt(pkt, MAX_PAYLOAD + 64, 0, 1);

	assert_int_equal(wse_core_write(c, (char *)pkt, 0, 0), -EINVAL);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -EINVAL);
	assert_int_equal(wse_core_write(c, (char *)pkt, FRAME_MAX + 8, 0),
			 -EINVAL);
	assert_int_equal(dev.doorbells, 0);
	assert_int_equal(c->h2c.tail, 0);
}

/* An error status: later writes refused with its errno until a reset. */
static void h2c_error(struct wse_core *c, uint32_t code, long err)
{
	struct wse_reset r = { .argsz = sizeof(r) };
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, 8, 0, 2);
	int starts = dev.starts;

	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	dev.fail_code = code;
	assert_int_equal(dev_h2c(100), 1);
	wse_core_irq(c);
	assert_int_equal(dev.err_status, 0);	/* cleared */
	assert_int_equal(dev.int_status, 0);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), err);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), err);
	assert_int_equal(wse_core_poll(c), WSE_CORE_WRITABLE);
	assert_int_equal(dev.doorbells, 1);
	/* the reset starts both rings again */
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(dev.starts, starts + 2);
	assert_int_equal(dev.int_mask, 0);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	assert_int_equal(dev_h2c(100), 2);	/* 32 + 8 bytes */
	assert_int_equal(dev.rx_len, n);
	assert_memory_equal(dev.rx, pkt, n);
}

static void test_h2c_error_bus(void **state)
{
	h2c_error(*state, WSE_PCIE_CPL_BUS, -EIO);
}

static void test_h2c_error_timeout(void **state)
{
	h2c_error(*state, WSE_PCIE_CPL_TIMEOUT, -ETIMEDOUT);
}

/* An error the device reports in ERR_STATUS alone (no completion). */
static void test_h2c_error_register(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, 8, 0, 2);

	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	dev_error(0, WSE_PCIE_ERR_TIMEOUT);
	dev.r[0].run = 0;
	wse_core_irq(c);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -ETIMEDOUT);
	assert_int_equal(c->c2h.err, 0);
	dev_error(1, WSE_PCIE_ERR_DESC_ALIGN);
	wse_core_irq(c);
	assert_int_equal(c->c2h.err, -EIO);
}

/* A device that stops completing: -ETIMEDOUT, and the reset path. */
static void test_h2c_stalled_reset(void **state)
{
	struct wse_core *c = *state;
	struct wse_reset r = { .argsz = sizeof(r) };
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, MAX_PAYLOAD, 0, 9);

	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), n);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 0), -ETIMEDOUT);
	/* a descriptor in progress that never ends: the reset gives up */
	dev.r[0].busy = 1;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), -ETIMEDOUT);
	assert_int_equal(waits, 1 + WSE_STOP_POLLS);
	assert_int_equal(dev.r[0].run, 0);
	assert_int_equal(dev.int_mask, 0x7);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), -EIO);
	/* it ends: the reset takes */
	dev.r[0].busy = 0;
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), n);
	assert_int_equal(dev_h2c(100), 3);
	assert_int_equal(dev.rx_len, n);
}

/* A writer asleep on a full ring is woken by the removal: -ENODEV. */
struct writer {
	struct wse_core *c;
	long ret;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, MAX_PAYLOAD, 0, 4);

	w->ret = wse_core_write(w->c, (char *)pkt, n, 0);
	return NULL;
}

static void test_remove_wakes_writer(void **state)
{
	struct writer w = { .c = *state, .ret = 1 };
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, MAX_PAYLOAD, 0, 4);

	assert_int_equal(wse_core_write(w.c, (char *)pkt, n, 1), n);
	assert_int_equal(wse_core_write(w.c, (char *)pkt, n, 1), n);
	remove_under(writer_thread, &w, w.c);
	assert_int_equal(w.ret, -ENODEV);
	assert_int_equal(last_timeout, WSE_WRITE_TIMEOUT_MS);
	assert_int_equal(dev.doorbells, 2);
	assert_int_equal(wse_core_poll(w.c), WSE_CORE_GONE);
}

/* ---- the C2H ring ------------------------------------------------------ */

/* Packets that span buffers, through a ring of 8 that wraps many times. */
static void test_c2h_packets(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX], out[FRAME_MAX];
	size_t n;
	uint32_t len;
	int i;

	for (i = 0; i < 40; i++) {
		len = (uint32_t)(i * 12) % (MAX_PAYLOAD + 1);
		n = make_pkt(pkt, len, i % 2 ? WSE_FLAG_EVENT :
			     WSE_FLAG_RESPONSE, (uint8_t)i);
		assert_int_equal(dev_c2h(pkt, n), 0);
		assert_int_equal(wse_core_poll(c), WSE_CORE_WRITABLE);
		wse_core_irq(c);
		assert_int_equal(dev.int_status, 0);
		assert_int_equal(wse_core_poll(c),
				 WSE_CORE_READABLE | WSE_CORE_WRITABLE);
		assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1),
				 n);
		assert_memory_equal(out, pkt, n);
	}
	/* two packets before one interrupt; every buffer posted again */
	n = make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 0x77);
	assert_int_equal(dev_c2h(pkt, n), 0);
	assert_int_equal(dev_c2h(pkt, n), 0);
	assert_int_equal(dev_c2h(pkt, n), -1);	/* 7 buffers, 6 used */
	wse_core_irq(c);
	assert_int_equal(wse_core_queued(c), 2 * n);
	assert_int_equal(dev_c2h(pkt, n), 0);
	assert_int_equal(dev_c2h(pkt, n), 0);
	assert_int_equal(c->rx_dropped, 0);
}

/* A C2H buffer completed empty (a stop) queues nothing; junk is dropped. */
static void test_c2h_empty_and_junk(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, 8, WSE_FLAG_RESPONSE, 1);

	pthread_mutex_lock(&dev_mu);
	dev_complete(1, 0, WSE_PCIE_CPL_OK, 1);
	pthread_mutex_unlock(&dev_mu);
	wse_core_irq(c);
	assert_int_equal(wse_core_queued(c), 0);
	pkt[0] ^= 0xff;		/* not a packet: dropped */
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(wse_core_queued(c), 0);
	assert_int_equal(c->rx_dropped, 1);
	pkt[0] ^= 0xff;
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(wse_core_queued(c), n);
}

/* The device fills n buffers without ending a packet. */
static void dev_c2h_no_eop(int n)
{
	pthread_mutex_lock(&dev_mu);
	while (n-- > 0)
		dev_complete(1, le32(dev_desc(&dev.r[1]) + 8), 0, 1);
	pthread_mutex_unlock(&dev_mu);
}

/*
 * Packets dropped: one longer than the protocol's largest frame (and the
 * end it comes to), one the read queue has no room for; the next ones
 * arrive whole.
 */
static void test_c2h_drops(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX], out[FRAME_MAX];
	size_t n = make_pkt(pkt, MAX_PAYLOAD, WSE_FLAG_RESPONSE, 6);
	int left = (int)(WSE_FRAME_BYTES(WSE_PROTO_MAX_PAYLOAD) / 32) + 1;

	while (left > 0) {
		dev_c2h_no_eop(left < 7 ? left : 7);
		left -= 7;
		wse_core_irq(c);
	}
	assert_int_equal(c->rx_dropped, 0);
	assert_int_equal(dev_c2h(pkt, n), 0);	/* its end: dropped with it */
	wse_core_irq(c);
	assert_int_equal(c->rx_dropped, 1);
	assert_int_equal(wse_core_queued(c), 0);
	/* the read queue holds two of 96 bytes in 256; the third is dropped */
	assert_int_equal(dev_c2h(pkt, n), 0);
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(c->rx_dropped, 2);
	assert_int_equal(wse_core_queued(c), 2 * n);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1), n);
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(wse_core_queued(c), 2 * n);
	assert_int_equal(c->rx_dropped, 2);
}

/* The C2H ring stopped on an error: read() fails with it once empty. */
static void test_c2h_error(void **state)
{
	struct wse_core *c = *state;
	struct wse_reset r = { .argsz = sizeof(r) };
	uint8_t pkt[FRAME_MAX], out[FRAME_MAX];
	size_t n = make_pkt(pkt, 16, WSE_FLAG_RESPONSE, 5);

	assert_int_equal(dev_c2h(pkt, n), 0);
	dev_c2h_fail(WSE_PCIE_CPL_BUS);
	wse_core_irq(c);
	assert_int_equal(wse_core_poll(c),
			 WSE_CORE_READABLE | WSE_CORE_WRITABLE);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 0), n);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 0), -EIO);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1), -EIO);
	assert_int_equal(waits, 0);
	assert_int_equal(wse_core_ioctl(c, WSE_IOCTL_RESET, &r), 0);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1),
			 -EAGAIN);
	assert_int_equal(dev_c2h(pkt, n), 0);
	wse_core_irq(c);
	assert_int_equal(wse_core_read(c, (char *)out, sizeof(out), 1), n);
}

/* ---- starting and stopping --------------------------------------------- */

static void test_start_refusals(void **state)
{
	struct wse_core c;
	struct wse_board_info b = { .max_payload = MAX_PAYLOAD };
	struct wse_ring_cfg bad;
	const struct wse_ring_cfg *good = &cfg;
	u32 i;

	(void)state;
	memset(&dev, 0, sizeof(dev));
	dev.ring_max = 16;
	dev.desc_max = WSE_PCIE_DESC_MAX_LEN;
	dev.int_mask = 0x7;
	assert_int_equal(dma_live, 0);
	assert_int_equal(wse_core_init(&c, &mock_ops, NULL, &b, RING), 0);
	for (i = 0; i < 7; i++) {
		bad = *good;
		switch (i) {
		case 0: bad.h2c_entries = 6; break;
		case 1: bad.c2h_entries = 1; break;
		case 2: bad.h2c_entries = 32; break;	/* above RING_MAX */
		case 3: bad.c2h_buf_bytes = 12; break;
		case 4: bad.h2c_buf_bytes = WSE_PCIE_DESC_MAX_LEN + 8; break;
		case 5: bad.c2h_buf_bytes = 0; break;
		case 6: bad.h2c_entries = 4; break;	/* 3 free < 3 + 1 */
		}
		if (i == 6)
			bad.h2c_buf_bytes = 24;
		assert_int_equal(wse_core_start(&c, &bad), -EINVAL);
	}
	assert_int_equal(dma_live, 0);
	dev.refuse_run = 1;
	assert_int_equal(wse_core_start(&c, good), -EIO);
	assert_int_equal(dma_live, 0);
	assert_int_equal(dev.int_mask, 0x7);
	dev.refuse_run = 0;
	assert_int_equal(wse_core_start(&c, good), 0);
	assert_int_equal(wse_core_stop(&c), 0);
	assert_int_equal(dev.r[0].run + dev.r[1].run, 0);
	wse_core_fini(&c);
	assert_int_equal(dma_live, 0);
}

/* A removed card reads all ones: nothing is reaped or queued from it. */
static void test_absent_device(void **state)
{
	struct wse_core *c = *state;
	uint8_t pkt[FRAME_MAX];
	size_t n = make_pkt(pkt, 8, 0, 1);

	assert_int_equal(wse_core_write(c, (char *)pkt, n, 1), n);
	dev.absent = 1;
	wse_core_irq(c);
	assert_int_equal(c->h2c.head, 0);
	assert_int_equal(c->c2h.head, 0);
	assert_int_equal(wse_core_queued(c), 0);
	wse_core_remove(c);
	/* stopping does not wait for a BUSY that reads as one */
	assert_int_equal(wse_core_stop(c), 0);
	assert_int_equal(waits, 0);
	dev.absent = 0;
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
		T(test_flag_matrix),
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
		T(test_h2c_wrap),
		T(test_h2c_full),
		T(test_h2c_sizes_refused),
		T(test_h2c_error_bus),
		T(test_h2c_error_timeout),
		T(test_h2c_error_register),
		T(test_h2c_stalled_reset),
		T(test_remove_wakes_writer),
		T(test_c2h_packets),
		T(test_c2h_empty_and_junk),
		T(test_c2h_drops),
		T(test_c2h_error),
		cmocka_unit_test(test_start_refusals),
		T(test_absent_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
