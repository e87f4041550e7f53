// The Unix-socket side shared by the simulator servers that serve the link
// protocol to libwsehost's "sim:" transport (wsemu-sim, wsemu-board-sim):
// listening on the path the host gave, and writing whole buffers to a
// non-blocking socket. Every wait is bounded.
#ifndef WSEMU_SIM_SOCKET_H
#define WSEMU_SIM_SOCKET_H

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

// Send all n bytes (waiting up to 1 s at a time while the socket is full).
// 0, or -1 when the host has gone.
static inline int sim_send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR) continue;
			if (errno == EAGAIN) {
				struct pollfd pf = {fd, POLLOUT, 0};
				poll(&pf, 1, 1000);
				continue;
			}
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

// A listening socket at path, reachable by its owner only (any old socket
// file there is replaced). The descriptor, or -1 with the reason printed
// under prog's name.
static inline int sim_listen(const char *prog, const char *path, int backlog)
{
	struct sockaddr_un sa;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: socket path too long\n", prog);
		return -1;
	}
	umask(077);
	strcpy(sa.sun_path, path);
	unlink(path);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, backlog) < 0) {
		fprintf(stderr, "%s: socket %s: %s\n", prog, path, strerror(errno));
		if (lfd >= 0) close(lfd);
		return -1;
	}
	chmod(path, 0600);
	return lfd;
}

#endif  // WSEMU_SIM_SOCKET_H
