/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport_pcie.c - the "pcie:" transport: a board on PCIe through the
 * wse kernel driver's character device /dev/wseN (docs/driver.md). The
 * driver carries whole link packets: write() takes one request packet,
 * read() returns one packet from the device, poll() says when read() has
 * one. The library's sender hands send() one encoded packet at a time, so
 * send() is one write(); recv() returns a packet's bytes, keeping what the
 * caller's buffer does not take for the next call.
 *
 * URI arguments: "" (the only /dev/wseN present), "N" (/dev/wseN) or a
 * device node's path ("/dev/wse1").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "transport.h"

/* The driver's UAPI names its GET_INFO struct wse_info, as the library's
 * public API does: renamed here. */
#define wse_info wsei_pcie_drv_info
#include "uapi/linux/wse.h"
#undef wse_info

#define UDEV_RULE "70-wsemu-pcie.rules"
/* The largest frame read() returns: a 65536-byte payload framed. */
#define PCIE_FRAME_MAX (24u + 65536u + 8u)

struct wse_transport {
	int fd;
	char path[256];
	const struct wse_logger *log;
	uint8_t *rx;            /* the packet read last */
	size_t rx_len, rx_off;  /* its bytes, and how many recv() took */
};

static int from_errno(int e)
{
	switch (e) {
	case ENOENT:
	case ENXIO:
		return WSE_ERROR_NOT_FOUND;
	case EACCES:
	case EPERM:
		return WSE_ERROR_ACCESS;
	case EBUSY:
		return WSE_ERROR_BUSY;
	case ENODEV:
	case EPIPE:
	case ECONNRESET:
		return WSE_ERROR_NO_DEVICE;
	case ENOMEM:
		return WSE_ERROR_NO_MEM;
	case ETIMEDOUT:
		return WSE_ERROR_TIMEOUT;
	default:
		return WSE_ERROR_IO;
	}
}

/* The device node args name, into path. */
static int pick(const char *args, char *path, size_t cap, const struct wse_logger *lg)
{
	if (args[0] == '/') {
		if (strlen(args) >= cap)
			return WSE_ERROR_INVALID_PARAM;
		snprintf(path, cap, "%s", args);
		return 0;
	}
	if (args[0]) {
		char *end;
		errno = 0;
		unsigned long n = strtoul(args, &end, 10);
		if (errno || *end || n > 255 || args[0] < '0' || args[0] > '9') {
			wsei_logf(lg, WSE_LOG_ERROR,
				  "pcie: \"%s\": give a board number (pcie:0) or a device "
				  "node (pcie:/dev/wse0)", args);
			return WSE_ERROR_INVALID_PARAM;
		}
		snprintf(path, cap, "/dev/wse%lu", n);
		return 0;
	}
	glob_t g;
	int r = glob("/dev/wse[0-9]*", 0, NULL, &g);
	if (r == GLOB_NOMATCH || (r == 0 && g.gl_pathc == 0)) {
		if (r == 0)
			globfree(&g);
		wsei_logf(lg, WSE_LOG_ERROR,
			  "pcie: no /dev/wseN: is the wse driver loaded (modprobe wse) "
			  "and a board present?");
		return WSE_ERROR_NOT_FOUND;
	}
	if (r)
		return WSE_ERROR_IO;
	if (g.gl_pathc > 1) {
		char list[256] = "";
		for (size_t i = 0; i < g.gl_pathc; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", g.gl_pathv[i]);
		wsei_logf(lg, WSE_LOG_ERROR, "pcie: %zu boards (%s): name one, e.g. pcie:0",
			  g.gl_pathc, list);
		globfree(&g);
		return WSE_ERROR_INVALID_PARAM;
	}
	snprintf(path, cap, "%s", g.gl_pathv[0]);
	globfree(&g);
	return 0;
}

static int pcie_open(struct wse_transport **tp, const char *args, int timeout_ms,
		     const struct wse_logger *lg)
{
	char path[256];
	(void)timeout_ms; /* open() and GET_INFO do not wait on the board */
	int r = pick(args, path, sizeof(path), lg);
	if (r)
		return r;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		r = from_errno(e);
		if (r == WSE_ERROR_ACCESS)
			wsei_logf(lg, WSE_LOG_ERROR,
				  "pcie: no permission to open %s; install the udev rule: "
				  "sudo install -m 0644 packaging/udev/" UDEV_RULE
				  " /etc/udev/rules.d/ (or make install-udev), then sudo "
				  "udevadm control --reload && sudo udevadm trigger "
				  "--subsystem-match=misc, and be in group plugdev", path);
		else if (r == WSE_ERROR_BUSY)
			wsei_logf(lg, WSE_LOG_ERROR, "pcie: %s is open elsewhere", path);
		else
			wsei_logf(lg, WSE_LOG_ERROR, "pcie: %s: %s", path, strerror(e));
		return r;
	}
	struct wsei_pcie_drv_info di;
	memset(&di, 0, sizeof(di));
	di.argsz = sizeof(di);
	if (ioctl(fd, WSE_IOCTL_GET_INFO, &di) < 0) {
		int e = errno;
		wsei_logf(lg, WSE_LOG_ERROR, "pcie: %s: GET_INFO: %s (not a wse device?)",
			  path, strerror(e));
		close(fd);
		return e == ENOTTY || e == EINVAL ? WSE_ERROR_NOT_SUPPORTED : from_errno(e);
	}
	if (di.api_version != WSE_API_VERSION) {
		wsei_logf(lg, WSE_LOG_ERROR,
			  "pcie: %s: the driver's interface is version %u, this library "
			  "speaks %u", path, di.api_version, WSE_API_VERSION);
		close(fd);
		return WSE_ERROR_NOT_SUPPORTED;
	}
	struct wse_transport *t = calloc(1, sizeof(*t));
	uint8_t *rx = malloc(PCIE_FRAME_MAX);
	if (!t || !rx) {
		free(t);
		free(rx);
		close(fd);
		return WSE_ERROR_NO_MEM;
	}
	t->fd = fd;
	t->rx = rx;
	t->log = lg;
	snprintf(t->path, sizeof(t->path), "%s", path);
	wsei_logf(lg, WSE_LOG_INFO, "pcie: %s: %s, driver %u.%u, %u x %u tiles", path,
		  di.compatible, di.driver_version >> 16, di.driver_version & 0xffff,
		  di.mesh_cols, di.mesh_rows);
	*tp = t;
	return 0;
}

/* Wait up to the deadline for events on the device: 0, TIMEOUT,
 * NO_DEVICE (removed) or IO. */
static int wait_for(struct wse_transport *t, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - wsei_now_ms();
		if (left <= 0)
			return WSE_ERROR_TIMEOUT;
		struct pollfd p = {.fd = t->fd, .events = events};
		int n = poll(&p, 1, left > 1000 ? 1000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return WSE_ERROR_IO;
		if (n == 0)
			continue;
		if (p.revents & events)
			return 0;
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			return WSE_ERROR_NO_DEVICE;
	}
}

static int pcie_send(struct wse_transport *t, const void *buf, size_t len, int timeout_ms)
{
	long long deadline = wsei_now_ms() + timeout_ms;
	for (;;) {
		ssize_t n = write(t->fd, buf, len);
		if (n == (ssize_t)len)
			return 0;
		if (n >= 0) /* the driver takes a packet whole or not at all */
			return WSE_ERROR_IO;
		int e = errno;
		if (e == EINTR)
			continue;
		if (e == EAGAIN) { /* its ring is full: wait for room */
			int r = wait_for(t, POLLOUT, deadline);
			if (r)
				return r;
			continue;
		}
		if (e == EINVAL || e == EMSGSIZE)
			wsei_logf(t->log, WSE_LOG_ERROR,
				  "pcie: %s refused a %zu-byte packet: %s", t->path, len,
				  strerror(e));
		return from_errno(e);
	}
}

static int pcie_recv(struct wse_transport *t, void *buf, size_t cap, int timeout_ms)
{
	if (t->rx_off == t->rx_len) {
		long long deadline = wsei_now_ms() + timeout_ms;
		for (;;) {
			ssize_t n = read(t->fd, t->rx, PCIE_FRAME_MAX);
			if (n > 0) {
				t->rx_len = (size_t)n;
				t->rx_off = 0;
				break;
			}
			if (n == 0) /* end of file: the board is gone */
				return WSE_ERROR_NO_DEVICE;
			int e = errno;
			if (e == EINTR)
				continue;
			if (e != EAGAIN)
				return from_errno(e);
			int r = wait_for(t, POLLIN, deadline);
			if (r)
				return r;
		}
	}
	size_t k = t->rx_len - t->rx_off < cap ? t->rx_len - t->rx_off : cap;
	memcpy(buf, t->rx + t->rx_off, k);
	t->rx_off += k;
	return (int)k;
}

static void pcie_close(struct wse_transport *t)
{
	if (!t)
		return;
	close(t->fd);
	free(t->rx);
	free(t);
}

const struct wse_transport_ops wsei_transport_pcie = {
	.scheme = "pcie",
	.open = pcie_open,
	.send = pcie_send,
	.recv = pcie_recv,
	.close = pcie_close,
};
