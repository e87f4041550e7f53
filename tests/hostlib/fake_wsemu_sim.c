/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake-wsemu-sim: the unit-test mock device (fake_dev.c) behind the
 * command line wsemu-sim has, so libwsehost's "sim:board=NAME" spawn path
 * can be tested:  fake-wsemu-sim --board NAME --socket PATH
 * The DTB is $FAKE_DTB_DIR/NAME/NAME.dtb (default build/boards). Serves
 * one connection, exits when the host hangs up or the parent dies.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fake_dev.h"

int main(int argc, char **argv)
{
	const char *board = NULL, *sock = NULL;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--board"))
			board = argv[i + 1];
		else if (!strcmp(argv[i], "--socket"))
			sock = argv[i + 1];
	}
	if (!board || !sock) {
		fprintf(stderr, "usage: fake-wsemu-sim --board NAME --socket PATH\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	const char *dir = getenv("FAKE_DTB_DIR");
	char dtb[512];
	snprintf(dtb, sizeof(dtb), "%s/%s/%s.dtb", dir ? dir : "build/boards",
		 board, board);
	struct fake_dev *f = fake_dev_new(dtb);
	if (!f) {
		fprintf(stderr, "fake-wsemu-sim: cannot load %s\n", dtb);
		return 1;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sock, 0600) || listen(l, 1)) {
		perror("fake-wsemu-sim: socket");
		return 1;
	}
	int fd = accept(l, NULL, NULL);
	if (fd >= 0) {
		fake_dev_serve_fd(f, fd);
		close(fd);
	}
	close(l);
	unlink(sock);
	fake_dev_free(f);
	return 0;
}
