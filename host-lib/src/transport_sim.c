/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport_sim.c - "sim:" transport: the link to wsemu-sim over a Unix
 * stream socket.
 *   sim:attach=PATH     connect to a running simulator's socket
 *   sim:board=NAME      spawn "wsemu-sim --board NAME --socket PATH" (the
 *                       program named by $WSEMU_SIM, else wsemu-sim from
 *                       PATH) on a socket in a fresh private directory,
 *                       connect, and stop it again on close
 *   sim:board=NAME,model=fast
 *                       the same with the functional model: wsemu-fast
 *                       (or $WSEMU_FAST); model=rtl is wsemu-sim
 * Sockets are SOCK_CLOEXEC, sends use MSG_NOSIGNAL, and every wait is a
 * poll() with a time-out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport.h"

extern char **environ;

/* The socket's name inside its directory. */
#define SIM_SOCK_NAME "/link.sock"
/* Suffix of the private directory, made by mkdtemp() under $TMPDIR. */
#define SIM_DIR_NAME "/wsehost-XXXXXX"

struct wse_transport {
	int fd;
	pid_t child;      /* spawned simulator, or 0 */
	/* private directory of the spawned socket: as long as the socket's
	 * path (sun_path, 108 bytes on Linux) leaves room for */
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path) - sizeof(SIM_SOCK_NAME) + 1];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const struct wse_logger *log;
};

static int errno_to_error(int e)
{
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		return WSE_ERROR_NOT_FOUND;
	case EACCES:
	case EPERM:
		return WSE_ERROR_ACCESS;
	case EPIPE:
	case ECONNRESET:
	case ENOTCONN:
		return WSE_ERROR_NO_DEVICE;
	case ENOMEM:
	case ENOBUFS:
		return WSE_ERROR_NO_MEM;
	case EAGAIN:
		return WSE_ERROR_BUSY;
	default:
		return WSE_ERROR_IO;
	}
}

/* Wait for events on fd; 1 ready, TIMEOUT, IO. */
static int wait_fd(int fd, short ev, int timeout_ms)
{
	long long end = wsei_now_ms() + timeout_ms;
	for (;;) {
		long long left = end - wsei_now_ms();
		if (left < 0)
			left = 0;
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, (int)left);
		if (r > 0)
			return 1;
		if (r == 0)
			return WSE_ERROR_TIMEOUT;
		if (errno != EINTR)
			return WSE_ERROR_IO;
	}
}

static int connect_once(const char *path, int *fdp)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path))
		return WSE_ERROR_INVALID_PARAM;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno_to_error(errno);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
	    errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return errno_to_error(e);
	}
	*fdp = fd;
	return 0;
}

/* Wait until a non-blocking connect finished. */
static int connect_finish(int fd, int timeout_ms)
{
	int r = wait_fd(fd, POLLOUT, timeout_ms);
	if (r < 0)
		return r;
	int err = 0;
	socklen_t l = sizeof(err);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		return WSE_ERROR_IO;
	return err ? errno_to_error(err) : 0;
}

static void reap(struct wse_transport *t)
{
	if (t->child <= 0)
		return;
	int st;
	kill(t->child, SIGTERM);
	for (int i = 0; i < 200; i++) { /* 2 s, then SIGKILL */
		pid_t r = waitpid(t->child, &st, WNOHANG);
		if (r == t->child || (r < 0 && errno == ECHILD)) {
			/* Exited (or reaped already: SIGCHLD ignored). */
			t->child = 0;
			return;
		}
		usleep(10000);
	}
	kill(t->child, SIGKILL);
	waitpid(t->child, &st, 0);
	t->child = 0;
}

static void cleanup(struct wse_transport *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	reap(t);
	if (t->dir[0]) {
		/* and wsemu-fast's flash file when it was left at its default,
		 * the socket's path + ".flash" (docs/wsemu-fast.md, "Flash") */
		char flash[sizeof(t->path) + 8];
		snprintf(flash, sizeof(flash), "%s.flash", t->path);
		unlink(flash);
		unlink(t->path);
		rmdir(t->dir);
	}
	free(t);
}

static int valid_board(const char *b)
{
	if (!*b || strlen(b) > 32)
		return 0;
	for (; *b; b++)
		if (!((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') ||
		      (*b >= '0' && *b <= '9') || *b == '-' || *b == '_'))
			return 0;
	return 1;
}

static int spawn_sim(struct wse_transport *t, const char *board, int fast)
{
	const char *prog = getenv(fast ? "WSEMU_FAST" : "WSEMU_SIM");
	if (!prog || !*prog)
		prog = fast ? "wsemu-fast" : "wsemu-sim";
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (strlen(tmp) + sizeof(SIM_DIR_NAME) > sizeof(t->dir)) {
		/* A Unix socket's path has at most 107 characters. */
		wsei_logf(t->log, WSE_LOG_WARNING,
			"sim: TMPDIR %s is too long for a socket path (at most %zu characters here); using /tmp",
			tmp, sizeof(t->dir) - sizeof(SIM_DIR_NAME));
		tmp = "/tmp";
	}
	snprintf(t->dir, sizeof(t->dir), "%s" SIM_DIR_NAME, tmp);
	if (!mkdtemp(t->dir)) { /* mode 0700: the socket is private */
		int e = errno;
		t->dir[0] = 0;
		wsei_logf(t->log, WSE_LOG_ERROR, "sim: mkdtemp: %s", strerror(e));
		return errno_to_error(e);
	}
	snprintf(t->path, sizeof(t->path), "%s" SIM_SOCK_NAME, t->dir);
	char *argv[] = {(char *)prog, "--board", (char *)board, "--socket",
			t->path, NULL};
	int e = posix_spawnp(&t->child, prog, NULL, NULL, argv, environ);
	if (e) {
		t->child = 0;
		wsei_logf(t->log, WSE_LOG_ERROR, "sim: cannot start %s: %s",
			prog, strerror(e));
		return e == ENOENT ? WSE_ERROR_NOT_FOUND : errno_to_error(e);
	}
	wsei_logf(t->log, WSE_LOG_INFO, "sim: started %s --board %s (pid %d)",
		prog, board, (int)t->child);
	return 0;
}

static int sim_open(struct wse_transport **tp, const char *args,
		    int timeout_ms, const struct wse_logger *log)
{
	const char *attach = NULL, *board = NULL;
	char bname[40];
	int fast = 0, bad = 0;
	if (!args || !*args) {
		board = "sim-4x4";
	} else if (!strncmp(args, "attach=", 7)) {
		attach = args + 7;
	} else {
		/* board=NAME and model=rtl|fast, comma-separated, in any order */
		const char *p = args;
		board = "sim-4x4";
		for (int seen_board = 0, seen_model = 0; *p && !bad;) {
			size_t n = strcspn(p, ",");
			if (!strncmp(p, "board=", 6) && !seen_board && n - 6 < sizeof(bname)) {
				memcpy(bname, p + 6, n - 6);
				bname[n - 6] = 0;
				board = bname;
				seen_board = 1;
			} else if (!strncmp(p, "model=", 6) && !seen_model &&
				   (n == 9 || n == 10) && (!strncmp(p + 6, "rtl", n - 6) ||
							   !strncmp(p + 6, "fast", n - 6))) {
				fast = n == 10;
				seen_model = 1;
			} else {
				bad = 1;
			}
			p += n;
			if (*p == ',' && !*++p)
				bad = 1;
		}
	}
	if (bad || (!attach && !board) || (attach && !*attach) ||
	    (board && !valid_board(board)) ||
	    (attach && strlen(attach) >= sizeof(((struct wse_transport *)0)->path))) {
		wsei_logf(log, WSE_LOG_ERROR, "sim: bad URI arguments '%s'",
			args);
		return WSE_ERROR_INVALID_PARAM;
	}
	struct wse_transport *t = calloc(1, sizeof(*t));
	if (!t)
		return WSE_ERROR_NO_MEM;
	t->fd = -1;
	t->log = log;
	int r;
	long long end = wsei_now_ms() + timeout_ms;
	if (board) {
		r = spawn_sim(t, board, fast);
		if (r)
			goto fail;
	} else {
		strcpy(t->path, attach);
	}
	for (;;) {
		r = connect_once(t->path, &t->fd);
		if (!r) {
			long long left = end - wsei_now_ms();
			r = connect_finish(t->fd, left > 0 ? (int)left : 0);
			if (!r)
				break;
			close(t->fd);
			t->fd = -1;
		}
		/* A full listen backlog (EAGAIN) clears when the simulator
		 * accepts; a spawned simulator needs a moment to create its
		 * socket. Anything else is final. */
		if (r != WSE_ERROR_BUSY &&
		    !(board && r == WSE_ERROR_NOT_FOUND))
			goto fail;
		int st;
		if (board && waitpid(t->child, &st, WNOHANG) == t->child) {
			t->child = 0;
			wsei_logf(log, WSE_LOG_ERROR,
				"sim: simulator exited before listening (status %d)",
				WIFEXITED(st) ? WEXITSTATUS(st) : -1);
			r = WSE_ERROR_NO_DEVICE;
			goto fail;
		}
		if (wsei_now_ms() >= end) {
			r = WSE_ERROR_TIMEOUT;
			goto fail;
		}
		usleep(5000);
	}
	wsei_logf(log, WSE_LOG_INFO, "sim: connected to %s", t->path);
	*tp = t;
	return 0;
fail:
	wsei_logf(log, WSE_LOG_ERROR, "sim: cannot connect to %s: %s",
		t->path[0] ? t->path : "(none)", wse_strerror(r));
	cleanup(t);
	return r;
}

static int sim_send(struct wse_transport *t, const void *buf, size_t len,
		    int timeout_ms)
{
	const uint8_t *p = buf;
	long long end = wsei_now_ms() + timeout_ms;
	while (len) {
		ssize_t n = send(t->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errno_to_error(errno);
		long long left = end - wsei_now_ms();
		if (left <= 0)
			return WSE_ERROR_TIMEOUT;
		int r = wait_fd(t->fd, POLLOUT, (int)left);
		if (r < 0)
			return r;
	}
	return 0;
}

static int sim_recv(struct wse_transport *t, void *buf, size_t cap,
		    int timeout_ms)
{
	if (cap > (1u << 30))
		cap = 1u << 30;
	long long end = wsei_now_ms() + timeout_ms;
	for (;;) {
		ssize_t n = recv(t->fd, buf, cap, MSG_DONTWAIT);
		if (n > 0)
			return (int)n;
		if (n == 0)
			return WSE_ERROR_NO_DEVICE;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return errno_to_error(errno);
		long long left = end - wsei_now_ms();
		if (left <= 0)
			return WSE_ERROR_TIMEOUT;
		int r = wait_fd(t->fd, POLLIN, (int)left);
		if (r < 0)
			return r;
	}
}

static void sim_close(struct wse_transport *t)
{
	if (t)
		cleanup(t);
}

const struct wse_transport_ops wsei_transport_sim = {
	.scheme = "sim",
	.open = sim_open,
	.send = sim_send,
	.recv = sim_recv,
	.close = sim_close,
};

/* ---- The transports by scheme --------------------------------------- */

const struct wse_transport_ops *wsei_transport_find(const char *uri,
						   const char **args)
{
	static const struct wse_transport_ops *const all[] = {
		&wsei_transport_sim, &wsei_transport_usb, &wsei_transport_pcie};
	if (!uri || !*uri) {
		*args = "";
		return &wsei_transport_sim;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		size_t n = strlen(all[i]->scheme);
		if (!strncmp(uri, all[i]->scheme, n) && uri[n] == ':') {
			*args = uri + n + 1;
			return all[i];
		}
	}
	return NULL;
}
