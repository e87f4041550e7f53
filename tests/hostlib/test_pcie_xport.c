/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pcie_xport: libwsehost's "pcie:" transport (transport_pcie.c)
 * against a stand-in for the wse driver's /dev/wseN. open() and ioctl() of
 * the node are wrapped (-Wl,--wrap): the node is one end of a
 * SOCK_SEQPACKET socket pair, which, like the driver, carries one whole
 * packet per write() and read(), and GET_INFO answers as the driver does.
 * Behind the pair a bridge thread frames the unit-test mock device
 * (fake_dev.c). Checked: info and memory on every tile through it, a
 * request that times out, the board removed, a write the driver refuses,
 * a full ring (EAGAIN, then room), and every open failure with its error
 * and message. The transport against the real driver is the VM proof's
 * (docs/driver.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "wsehost.h"
#include "wsemu/wse_codec.h"
#include "fake_dev.h"

#define wse_info drv_info
#include "uapi/linux/wse.h"
#undef wse_info

#define NODE "/dev/wse7"

static char dir[64], sock[128], dtb[512];

/* ---- the stand-in for /dev/wse7 ------------------------------------ */

static int node_fd = -1;        /* the library's end of the pair */
static int open_errno;          /* open() of the node fails with this */
static int ioctl_errno;         /* GET_INFO fails with this */
static unsigned api_version = WSE_API_VERSION;
static int write_errno;         /* the next write() fails with this */
static int write_eagain;        /* writes refused with EAGAIN before one passes */
static unsigned long writes;    /* writes of whole packets to the node */

int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (strcmp(path, NODE))
		return __real_open(path, flags, mode);
	if (open_errno) {
		errno = open_errno;
		return -1;
	}
	int fd = dup(node_fd);
	if (fd >= 0 && (flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

static int is_node(int fd)
{
	struct stat a, b;
	return node_fd >= 0 && !fstat(fd, &a) && !fstat(node_fd, &b) &&
	       a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_node(fd))
		return __real_ioctl(fd, req, arg);
	if (req != WSE_IOCTL_GET_INFO) {
		errno = ENOTTY;
		return -1;
	}
	if (ioctl_errno) {
		errno = ioctl_errno;
		return -1;
	}
	struct drv_info *di = arg;
	assert_int_equal(di->argsz, sizeof(*di));
	assert_int_equal(di->flags, 0);
	di->api_version = api_version;
	di->driver_version = 0 << 16 | 2;
	di->mesh_cols = di->mesh_rows = 4;
	snprintf(di->compatible, sizeof(di->compatible), "wsemu,sim-4x4");
	return 0;
}

ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (!is_node(fd))
		return __real_write(fd, buf, n);
	if (write_eagain) {
		write_eagain--;
		errno = EAGAIN;
		return -1;
	}
	if (write_errno) {
		errno = write_errno;
		write_errno = 0;
		return -1;
	}
	__atomic_add_fetch(&writes, 1, __ATOMIC_SEQ_CST);
	return __real_write(fd, buf, n);
}

/* ---- the bridge: packets on the pair <-> the mock's byte stream ------ */

struct bridge {
	int pkt;      /* the pair's other end: one packet per message */
	int stream;   /* to the mock device */
	int stop;     /* a pipe: a byte ends the bridge */
	pthread_t th;
	pthread_t dev_th;
	struct fake_dev *f;
	int dev_fd;
};

static void *serve(void *p)
{
	struct bridge *b = p;
	fake_dev_serve_fd(b->f, b->dev_fd);
	return NULL;
}

static void *bridge_main(void *p)
{
	struct bridge *b = p;
	static uint8_t in[70000], out[140000];
	size_t have = 0;
	for (;;) {
		struct pollfd pf[3] = {{b->pkt, POLLIN, 0}, {b->stream, POLLIN, 0},
				       {b->stop, POLLIN, 0}};
		if (poll(pf, 3, 1000) < 0)
			break;
		if (pf[2].revents)
			break;
		if (pf[0].revents & (POLLHUP | POLLERR))
			break;
		if (pf[0].revents & POLLIN) {
			ssize_t n = recv(b->pkt, in, sizeof(in), 0);
			if (n <= 0 || __real_write(b->stream, in, (size_t)n) != n)
				break;
		}
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(b->stream, out + have, sizeof(out) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			/* whole frames go to the library, one message each */
			for (;;) {
				struct wse_pkt h;
				if (have < 24 || wse_hdr_decode(out, have, &h, 1u << 16) < 0)
					break;
				size_t fr = wse_frame_bytes(h.length);
				if (have < fr)
					break;
				if (send(b->pkt, out, fr, MSG_NOSIGNAL) != (ssize_t)fr)
					break;
				memmove(out, out + fr, have - fr);
				have -= fr;
			}
		}
	}
	return NULL;
}

struct fx {
	struct bridge b;
	int stop_w;
	wse_device *d;
	char log[FAKE_LOG_BYTES];
};


static int open_dev(struct fx *x, const char *uri, int timeout_ms)
{
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = timeout_ms,
				  .log_cb = fake_log_append, .log_user = x->log,
				  .log_level = WSE_LOG_DEBUG};
	x->log[0] = 0;
	return wse_open(&x->d, uri, &o);
}

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	int pair[2], st[2], pp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, st), 0);
	assert_int_equal(pipe2(pp, O_CLOEXEC), 0);
	node_fd = pair[0];
	x->b.pkt = pair[1];
	x->b.stream = st[0];
	x->b.dev_fd = st[1];
	x->b.stop = pp[0];
	x->stop_w = pp[1];
	x->b.f = fake_dev_new(dtb);
	assert_non_null(x->b.f);
	open_errno = ioctl_errno = write_errno = write_eagain = 0;
	api_version = WSE_API_VERSION;
	assert_int_equal(pthread_create(&x->b.dev_th, NULL, serve, &x->b), 0);
	assert_int_equal(pthread_create(&x->b.th, NULL, bridge_main, &x->b), 0);
	*state = x;
	return 0;
}

/* The board removed: the bridge ends and closes its end of the pair. */
static void remove_board(struct fx *x)
{
	if (x->stop_w < 0)
		return;
	assert_int_equal(write(x->stop_w, "x", 1), 1);
	pthread_join(x->b.th, NULL);
	close(x->b.pkt);
	close(x->stop_w);
	x->stop_w = -1;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	wse_close(x->d);
	remove_board(x);
	close(x->b.stream); /* the mock's connection ends */
	pthread_join(x->b.dev_th, NULL);
	close(x->b.dev_fd);
	fake_dev_stop(x->b.f);
	close(x->b.stop);
	close(node_fd);
	node_fd = -1;
	free(x);
	return 0;
}

/* ---- tests ----------------------------------------------------------- */

static void test_info_and_memory(void **state)
{
	struct fx *x = *state;
	assert_int_equal(open_dev(x, "pcie:" NODE, 2000), 0);
	assert_non_null(strstr(x->log, "pcie: " NODE ": wsemu,sim-4x4, driver 0.2, 4 x 4 tiles"));
	struct wse_info in = {.size = sizeof(in)};
	assert_int_equal(wse_get_info(x->d, &in), 0);
	assert_int_equal(in.columns, 4);
	assert_int_equal(in.rows, 4);
	assert_string_equal(in.compatible, "wsemu,sim-4x4");
	/* every tile: a pattern of its own, read back */
	uint8_t w[1024], r[1024];
	for (unsigned t = 0; t < 16; t++) {
		for (unsigned i = 0; i < sizeof(w); i++)
			w[i] = (uint8_t)(i * 7 + t * 31);
		assert_int_equal(wse_mem_write(x->d, t % 4, t / 4, 0x80000100u, w, sizeof(w)), 0);
	}
	for (unsigned t = 0; t < 16; t++) {
		assert_int_equal(wse_mem_read(x->d, t % 4, t / 4, 0x80000100u, r, sizeof(r)), 0);
		for (unsigned i = 0; i < sizeof(w); i++)
			w[i] = (uint8_t)(i * 7 + t * 31);
		assert_memory_equal(r, w, sizeof(r));
	}
	assert_true(__atomic_load_n(&writes, __ATOMIC_SEQ_CST) >= 32);
}

/* A full ring: write() says EAGAIN until the driver has room. */
static void test_ring_full(void **state)
{
	struct fx *x = *state;
	assert_int_equal(open_dev(x, "pcie:" NODE, 2000), 0);
	write_eagain = 5;
	uint32_t v = 0;
	assert_int_equal(wse_mem_write(x->d, 1, 1, 0x80000000u, "wxyz", 4), 0);
	assert_int_equal(write_eagain, 0);
	assert_int_equal(wse_mem_read(x->d, 1, 1, 0x80000000u, &v, 4), 0);
	assert_memory_equal(&v, "wxyz", 4);
}

/* A request the board never answers: the device's time-out. */
static void test_timeout(void **state)
{
	struct fx *x = *state;
	assert_int_equal(open_dev(x, "pcie:" NODE, 300), 0);
	fake_dev_set_mode(x->b.f, FAKE_SILENT, 0);
	uint32_t v;
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x80000000u, &v, 4), WSE_ERROR_TIMEOUT);
}

/* The board removed while a request waits for its answer: the pending
 * request ends with NO_DEVICE (seen by the receive side), then every
 * later call. */
static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int done_status = 1;

static void on_done(wse_transfer *xfer, int status, size_t actual, void *user)
{
	(void)xfer, (void)actual, (void)user;
	pthread_mutex_lock(&done_mu);
	done_status = status;
	pthread_cond_signal(&done_cv);
	pthread_mutex_unlock(&done_mu);
}

static void test_removed(void **state)
{
	struct fx *x = *state;
	assert_int_equal(open_dev(x, "pcie:" NODE, 2000), 0);
	fake_dev_set_mode(x->b.f, FAKE_SILENT, 0);
	uint32_t v;
	unsigned long before = __atomic_load_n(&writes, __ATOMIC_SEQ_CST);
	done_status = 1;
	assert_int_equal(wse_mem_read_async(x->d, 0, 0, 0x80000000u, &v, 4, 10000, on_done,
					    NULL, NULL), 0);
	while (__atomic_load_n(&writes, __ATOMIC_SEQ_CST) == before) /* on its way */
		usleep(1000);
	usleep(20000);
	remove_board(x);
	pthread_mutex_lock(&done_mu);
	while (done_status == 1)
		pthread_cond_wait(&done_cv, &done_mu);
	pthread_mutex_unlock(&done_mu);
	assert_int_equal(done_status, WSE_ERROR_NO_DEVICE);
	assert_int_equal(wse_mem_read(x->d, 0, 0, 0x80000000u, &v, 4), WSE_ERROR_NO_DEVICE);
}

/* A packet the driver refuses (EINVAL): that request fails with IO, and
 * the message names the refusal. */
static void test_write_refused(void **state)
{
	struct fx *x = *state;
	assert_int_equal(open_dev(x, "pcie:" NODE, 2000), 0);
	write_errno = EINVAL;
	uint32_t v;
	int r = wse_mem_read(x->d, 0, 0, 0x80000000u, &v, 4);
	assert_int_equal(r, WSE_ERROR_IO);
	assert_non_null(strstr(x->log, "pcie: " NODE " refused a "));
	assert_non_null(strstr(x->log, "-byte packet: Invalid argument"));
}

/* Open descriptors of this process. */
static int count_fds(void)
{
	glob_t g;
	int n = 0;
	if (!glob("/proc/self/fd/*", 0, NULL, &g)) {
		n = (int)g.gl_pathc;
		globfree(&g);
	}
	return n;
}

/* Every open failure: its error, its message, nothing left open. */
static void test_open_errors(void **state)
{
	struct fx *x = *state;
	int fds = count_fds();
	open_errno = ENOENT;
	assert_int_equal(open_dev(x, "pcie:" NODE, 500), WSE_ERROR_NOT_FOUND);
	open_errno = EACCES;
	assert_int_equal(open_dev(x, "pcie:" NODE, 500), WSE_ERROR_ACCESS);
	assert_non_null(strstr(x->log, "packaging/udev/70-wsemu-pcie.rules"));
	open_errno = EBUSY;
	assert_int_equal(open_dev(x, "pcie:" NODE, 500), WSE_ERROR_BUSY);
	assert_non_null(strstr(x->log, NODE " is open elsewhere"));
	open_errno = 0;
	ioctl_errno = ENOTTY;
	assert_int_equal(open_dev(x, "pcie:" NODE, 500), WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(x->log, "not a wse device?"));
	ioctl_errno = 0;
	api_version = WSE_API_VERSION + 1;
	assert_int_equal(open_dev(x, "pcie:" NODE, 500), WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(x->log, "the driver's interface is version 2"));
	api_version = WSE_API_VERSION;
	assert_int_equal(open_dev(x, "pcie:x1", 500), WSE_ERROR_INVALID_PARAM);
	assert_non_null(strstr(x->log, "give a board number"));
	assert_int_equal(open_dev(x, "pcie:256", 500), WSE_ERROR_INVALID_PARAM);
	/* pcie:N is /dev/wseN: here /dev/wse7 is the stand-in */
	assert_int_equal(open_dev(x, "pcie:7", 2000), 0);
	wse_close(x->d);
	x->d = NULL;
	/* pcie: alone: the only /dev/wseN present; none on this machine */
	glob_t g;
	if (glob("/dev/wse[0-9]*", 0, NULL, &g) == GLOB_NOMATCH) {
		assert_int_equal(open_dev(x, "pcie:", 500), WSE_ERROR_NOT_FOUND);
		assert_non_null(strstr(x->log, "is the wse driver loaded"));
	} else {
		globfree(&g);
	}
	/* nothing leaked: the failed opens closed what they opened */
	assert_int_equal(count_fds(), fds);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* a socket stands in for the device node */
	if (fake_test_paths(dir, sock, dtb))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info_and_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(dir);
	return r;
}
