// SPDX-License-Identifier: Apache-2.0
/*
 * pcie_ioctl.c - bad calls on a wse driver's node in a guest, each refused
 * with its errno (docs/driver.md, "ioctls"), then a ring reset and a PING
 * through write() and read() that must still be answered.
 * Usage: pcie_ioctl /dev/wseN
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/wse.h>

#include "wsemu/wse_codec.h"

static int fails;

static void expect(const char *what, long r, int want)
{
	int got = r < 0 ? errno : 0;
	if (got != want) {
		printf("pcie_ioctl: %s: %s, not %s\n", what, got ? strerror(got) : "success",
		       want ? strerror(want) : "success");
		fails++;
	}
}

int main(int argc, char **argv)
{
	int fd = argc == 2 ? open(argv[1], O_RDWR) : -1;
	if (fd < 0) {
		perror("pcie_ioctl: open");
		return 2;
	}
	struct wse_info info = {.argsz = sizeof info};
	expect("GET_INFO", ioctl(fd, WSE_IOCTL_GET_INFO, &info), 0);
	struct wse_info shortinfo = {.argsz = 4};
	expect("GET_INFO, argsz 4", ioctl(fd, WSE_IOCTL_GET_INFO, &shortinfo), EINVAL);
	struct wse_info bigsz = {.argsz = 8192};
	expect("GET_INFO, argsz 8192", ioctl(fd, WSE_IOCTL_GET_INFO, &bigsz), E2BIG);
	struct wse_info flagged = {.argsz = sizeof flagged, .flags = 1};
	expect("GET_INFO, a flag", ioctl(fd, WSE_IOCTL_GET_INFO, &flagged), EINVAL);
	expect("GET_INFO, NULL", ioctl(fd, WSE_IOCTL_GET_INFO, NULL), EFAULT);
	struct wse_timeout to = {.argsz = sizeof to, .read_timeout_ms = 5000, .pad = 1};
	expect("SET_TIMEOUT, pad 1", ioctl(fd, WSE_IOCTL_SET_TIMEOUT, &to), EINVAL);
	struct wse_reset rs = {.argsz = sizeof rs, .flags = 0x80};
	expect("RESET, an unknown flag", ioctl(fd, WSE_IOCTL_RESET, &rs), EINVAL);
	expect("ioctl 0xfb 99", ioctl(fd, _IO(WSE_IOCTL_MAGIC, 99), NULL), ENOTTY);
	uint8_t junk[32] = "not a link packet at all, no....";
	expect("write of a malformed packet", write(fd, junk, sizeof junk), EINVAL);

	/* the rings stopped and started again, then a PING answered */
	rs.flags = 0;
	expect("RESET", ioctl(fd, WSE_IOCTL_RESET, &rs), 0);
	to.pad = 0;
	expect("SET_TIMEOUT", ioctl(fd, WSE_IOCTL_SET_TIMEOUT, &to), 0);
	uint8_t pl[1000], frame[1100], back[1100];
	for (unsigned i = 0; i < sizeof pl; i++)
		pl[i] = (uint8_t)(i * 7);
	struct wse_pkt q = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR,
			    .opcode = WSE_OP_PING, .tag = 77, .length = sizeof pl};
	int n = wse_pkt_encode(frame, sizeof frame, &q, pl);
	expect("write of a PING", write(fd, frame, (size_t)n), 0);
	ssize_t got = read(fd, back, sizeof back);
	expect("read of its response", got, 0);
	struct wse_pkt r;
	size_t used;
	if (got != n || wse_pkt_decode(back, (size_t)got, &r, WSE_PROTO_MAX_PAYLOAD, &used) ||
	    r.tag != 77 || r.status != WSE_ST_OK || r.length != sizeof pl ||
	    memcmp(r.payload, pl, sizeof pl)) {
		printf("pcie_ioctl: the PING after the reset was not answered as sent\n");
		fails++;
	}
	close(fd);
	printf("pcie_ioctl: %s\n", fails ? "FAIL" : "ok");
	return fails ? 1 : 0;
}
