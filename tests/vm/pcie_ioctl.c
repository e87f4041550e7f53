// SPDX-License-Identifier: Apache-2.0
/*
 * pcie_ioctl.c - the bad-call matrix on a wse driver's node in a guest
 * (docs/driver.md, "ioctls"; docs/vm-harness.md, "The PCIe device"). For
 * each of GET_INFO, RESET and SET_TIMEOUT:
 *   - each of the 32 flag bits the ioctl does not define, set alone: EINVAL;
 *   - argsz 0, 4, 7 and one short of the struct: EINVAL;
 *   - argsz 64 bytes longer with a zero tail: accepted; with one non-zero
 *     byte at several places of the tail: E2BIG;
 *   - argsz past the limit (4097, 65536, 0xffffffff): E2BIG;
 *   - pointers: NULL, a page mapped PROT_NONE, a kernel address, an
 *     unaligned struct running into a PROT_NONE page, a longer argsz whose
 *     tail runs into it, and GET_INFO's answer to a read-only page: EFAULT;
 *     an unaligned pointer to mapped memory is copied as any other
 *     (accepted, the same answer as an aligned one);
 * then ioctl numbers the driver does not know (every other number of its
 * magic, its numbers with direction and size bits, another magic): ENOTTY;
 * write() of more than the largest frame, of a malformed packet, from
 * unmapped memory: EINVAL or EFAULT; read() into a too small buffer:
 * EMSGSIZE with the packet kept.
 * Nothing is written: every refused call's user buffer is compared with a
 * copy taken before. Nothing changes: the read timeout is set to 300 ms
 * first and every refused SET_TIMEOUT asks for none (0), so a read() with
 * nothing queued must still end in ETIMEDOUT, not in the 30 s alarm's
 * EINTR; a PING's response is queued before the refused RESETs (which
 * would drop it) and read afterwards. Then a ring reset and a PING through
 * write() and read() that must be answered as sent.
 * Usage: pcie_ioctl /dev/wseN
 *        pcie_ioctl --stall /dev/wseN   (below)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/wse.h>

#include "wsemu/wse_codec.h"

#define ARGSZ_MAX 4096u /* the driver's bound on argsz (docs/driver.md) */
#define TIMEOUT_MS 300u

static int fd, fails, refused, accepted;
static uint8_t *page;   /* two pages: the first read-write, the second PROT_NONE */
static long page_size;

static void failf(const char *what, const char *why)
{
	printf("pcie_ioctl: %s: %s\n", what, why);
	fails++;
}

/* The call's result against want (0: success, else the errno). */
static void expect(const char *what, long r, int want)
{
	int got = r < 0 ? errno : 0;
	if (got != want) {
		char why[160];
		snprintf(why, sizeof why, "%s, not %s", got ? strerror(got) : "success",
			 want ? strerror(want) : "success");
		failf(what, why);
	}
	if (want)
		refused++;
	else
		accepted++;
}

/* An ioctl that must be refused with want, arg's len bytes unchanged. */
static void refuse(const char *what, unsigned long cmd, void *arg, size_t len, int want)
{
	static uint8_t before[ARGSZ_MAX + 64];
	if (len)
		memcpy(before, arg, len);
	expect(what, ioctl(fd, cmd, arg), want);
	if (len && memcmp(before, arg, len))
		failf(what, "the refused call wrote to the caller's buffer");
}

struct io {
	const char *name;
	unsigned long cmd;
	uint32_t size, known_flags;
};

static const struct io ios[] = {
	{"GET_INFO", WSE_IOCTL_GET_INFO, sizeof(struct wse_info), 0},
	{"RESET", WSE_IOCTL_RESET, sizeof(struct wse_reset), WSE_RESET_FLAGS},
	{"SET_TIMEOUT", WSE_IOCTL_SET_TIMEOUT, sizeof(struct wse_timeout), 0},
};

/* A valid argument of io at a, argsz given: flags 0, the fields after them
 * a pattern (GET_INFO's are its answer's), but a SET_TIMEOUT's
 * read_timeout_ms and pad 0 (no bound: what a refused call must not set);
 * bytes past the struct up to argsz 0. */
static void arg_init(const struct io *io, uint8_t *a, uint32_t argsz)
{
	memset(a, 0, argsz < io->size ? io->size : argsz);
	memcpy(a, &argsz, 4);
	memset(a + 8, 0xA5, io->size - 8);
	if (io->cmd == WSE_IOCTL_SET_TIMEOUT)
		memset(a + 8, 0, 8);
}

static void matrix(const struct io *io)
{
	static uint8_t a[ARGSZ_MAX + 64];
	char what[160];

	for (int bit = 0; bit < 32; bit++) {
		uint32_t f = 1u << bit;
		if (f & io->known_flags)
			continue;
		arg_init(io, a, io->size);
		memcpy(a + 4, &f, 4);
		snprintf(what, sizeof what, "%s, flag bit %d", io->name, bit);
		refuse(what, io->cmd, a, io->size, EINVAL);
	}
	const uint32_t shorts[] = {0, 4, 7, io->size - 1};
	for (unsigned i = 0; i < sizeof shorts / sizeof shorts[0]; i++) {
		arg_init(io, a, shorts[i]);
		snprintf(what, sizeof what, "%s, argsz %u", io->name, shorts[i]);
		refuse(what, io->cmd, a, io->size, EINVAL);
	}
	const uint32_t longs[] = {ARGSZ_MAX + 1, 65536, 0xffffffffu};
	for (unsigned i = 0; i < sizeof longs / sizeof longs[0]; i++) {
		arg_init(io, a, io->size);
		memcpy(a, &longs[i], 4);
		snprintf(what, sizeof what, "%s, argsz %u", io->name, longs[i]);
		refuse(what, io->cmd, a, io->size, E2BIG);
	}
	/* A longer argsz, one non-zero byte in its tail. */
	for (uint32_t at = 0; at < 64; at += 9) {
		arg_init(io, a, io->size + 64);
		a[io->size + at] = 0x40;
		snprintf(what, sizeof what, "%s, argsz +64, byte %u of the tail set", io->name, at);
		refuse(what, io->cmd, a, io->size + 64, E2BIG);
	}
	/* The same at argsz's limit, the last byte set. */
	arg_init(io, a, ARGSZ_MAX);
	a[ARGSZ_MAX - 1] = 1;
	snprintf(what, sizeof what, "%s, argsz 4096, its last byte set", io->name);
	refuse(what, io->cmd, a, ARGSZ_MAX, E2BIG);

	/* Addresses: NULL, PROT_NONE, the kernel's. */
	snprintf(what, sizeof what, "%s, NULL", io->name);
	refuse(what, io->cmd, NULL, 0, EFAULT);
	snprintf(what, sizeof what, "%s, a PROT_NONE page", io->name);
	refuse(what, io->cmd, page + page_size, 0, EFAULT);
	snprintf(what, sizeof what, "%s, a kernel address", io->name);
	refuse(what, io->cmd, (void *)0xffff888000000000ul, 0, EFAULT);
	/* An unaligned struct whose end lies in the PROT_NONE page. */
	uint8_t *edge = page + page_size - io->size / 2 - 1;
	arg_init(io, a, io->size);
	memcpy(edge, a, io->size / 2 + 1);
	snprintf(what, sizeof what, "%s, unaligned, running into a PROT_NONE page", io->name);
	refuse(what, io->cmd, edge, io->size / 2 + 1, EFAULT);
	/* A whole struct mapped, the zero tail of a longer argsz not. */
	edge = page + page_size - io->size - 3;
	arg_init(io, a, io->size + 64);
	memcpy(edge, a, io->size + 3);
	snprintf(what, sizeof what, "%s, argsz +64 running into a PROT_NONE page", io->name);
	refuse(what, io->cmd, edge, io->size + 3, EFAULT);
}

/* Accepted calls: a longer argsz with a zero tail, and unaligned. */
static void accepted_calls(void)
{
	static uint8_t a[256], b[256];
	struct wse_info info = {.argsz = sizeof info};
	expect("GET_INFO", ioctl(fd, WSE_IOCTL_GET_INFO, &info), 0);
	if (info.argsz != sizeof info || info.api_version != WSE_API_VERSION)
		failf("GET_INFO", "argsz or api_version not the driver's");

	/* GET_INFO, argsz +64 zero: the driver's struct written, the tail not. */
	arg_init(&ios[0], a, sizeof info + 64);
	memset(a + sizeof info, 0, 64);
	expect("GET_INFO, argsz +64 with a zero tail", ioctl(fd, WSE_IOCTL_GET_INFO, a), 0);
	if (memcmp(a, &info, sizeof info))
		failf("GET_INFO, argsz +64", "the answer differs from that of argsz 96");
	for (unsigned i = 0; i < 64; i++)
		if (a[sizeof info + i]) {
			failf("GET_INFO, argsz +64", "the driver wrote past its struct");
			break;
		}
	/* Unaligned by 1 and by 3: the same answer. */
	for (unsigned off = 1; off < 4; off += 2) {
		memset(b, 0x5A, sizeof b);
		memcpy(b + off, &(uint32_t){sizeof info}, 4);
		memset(b + off + 4, 0, 4);
		expect("GET_INFO, unaligned", ioctl(fd, WSE_IOCTL_GET_INFO, b + off), 0);
		if (memcmp(b + off, &info, sizeof info) || b[off - 1] != 0x5A ||
		    b[off + sizeof info] != 0x5A)
			failf("GET_INFO, unaligned", "the answer differs from the aligned one");
	}
	/* The answer to a read-only page: EFAULT, the page unchanged. */
	uint8_t *ro = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		failf("mmap", strerror(errno));
		return;
	}
	memcpy(ro, &(uint32_t){sizeof info}, 4);
	memset(ro + 4, 0, 4);
	memset(ro + 8, 0x33, sizeof info - 8);
	memcpy(a, ro, sizeof info);
	mprotect(ro, (size_t)page_size, PROT_READ);
	expect("GET_INFO, its answer to a read-only page", ioctl(fd, WSE_IOCTL_GET_INFO, ro), EFAULT);
	if (memcmp(a, ro, sizeof info))
		failf("GET_INFO, a read-only page", "the page changed");
	munmap(ro, (size_t)page_size);

	/* SET_TIMEOUT, argsz +64 zero, unaligned: accepted (the timeout set
	 * again to TIMEOUT_MS). */
	arg_init(&ios[2], b + 1, sizeof(struct wse_timeout) + 64);
	memcpy(b + 1 + 8, &(uint32_t){TIMEOUT_MS}, 4);
	expect("SET_TIMEOUT, argsz +64 with a zero tail, unaligned",
	       ioctl(fd, WSE_IOCTL_SET_TIMEOUT, b + 1), 0);
}

static void unknown_numbers(void)
{
	struct wse_reset r = {.argsz = sizeof r};
	char what[80];
	for (unsigned nr = 3; nr < 256; nr++) {
		snprintf(what, sizeof what, "ioctl 0xfb %u", nr);
		refuse(what, _IO(WSE_IOCTL_MAGIC, nr), &r, sizeof r, ENOTTY);
	}
	for (unsigned nr = 0; nr < 3; nr++) {
		snprintf(what, sizeof what, "ioctl _IOWR(0xfb, %u, struct wse_info)", nr);
		refuse(what, _IOWR(WSE_IOCTL_MAGIC, nr, struct wse_info), &r, sizeof r, ENOTTY);
		snprintf(what, sizeof what, "ioctl _IOW(0xfb, %u, struct wse_reset)", nr);
		refuse(what, _IOW(WSE_IOCTL_MAGIC, nr, struct wse_reset), &r, sizeof r, ENOTTY);
		snprintf(what, sizeof what, "ioctl _IO(0xfa, %u)", nr);
		refuse(what, _IO(0xFA, nr), &r, sizeof r, ENOTTY);
	}
}

static int encode_ping(uint8_t *frame, size_t cap, uint16_t tag, const uint8_t *pl, uint32_t n)
{
	struct wse_pkt q = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR,
			    .opcode = WSE_OP_PING, .tag = tag, .length = n};
	return wse_pkt_encode(frame, cap, &q, pl);
}

/* read() one packet: the PING response of tag with payload pl, n bytes. */
static void read_ping(const char *what, uint16_t tag, const uint8_t *pl, uint32_t n)
{
	static uint8_t back[24 + 65536 + 8];
	ssize_t got = read(fd, back, sizeof back);
	expect(what, got, 0);
	struct wse_pkt r;
	size_t used;
	if (got <= 0 || wse_pkt_decode(back, (size_t)got, &r, WSE_PROTO_MAX_PAYLOAD, &used) ||
	    r.tag != tag || r.status != WSE_ST_OK || r.length != n || memcmp(r.payload, pl, n))
		failf(what, "not the PING's response as sent");
}

/*
 * --stall: the device stops answering and comes back (docs/vm-harness.md,
 * "A device that stops answering"). "STALL-STOP" asks the host to stop
 * wsemu-fast (SIGSTOP); PINGs until one's read() times out (ETIMEDOUT);
 * write()s until the H2C ring is full and one fails with ETIMEDOUT after
 * the driver's 2 s bound; RESET fails with ETIMEDOUT (the rings do not
 * stop) and the next write() with EIO; "STALL-CONT" asks for SIGCONT;
 * RESET until it takes (within 20 s), then a PING answered as sent.
 */
static int stall(void)
{
	uint8_t pl[1000], frame[1100], back[24 + 65536 + 8];
	struct wse_timeout to = {.argsz = sizeof to, .read_timeout_ms = 500};
	expect("SET_TIMEOUT 500 ms", ioctl(fd, WSE_IOCTL_SET_TIMEOUT, &to), 0);
	for (unsigned i = 0; i < sizeof pl; i++)
		pl[i] = (uint8_t)(i * 5 + 1);
	printf("STALL-STOP\n");
	fflush(stdout);
	int stopped = 0, answered = 0;
	for (int k = 0; k < 100 && !stopped; k++) {
		int n = encode_ping(frame, sizeof frame, (uint16_t)(100 + k), pl, sizeof pl);
		if (write(fd, frame, (size_t)n) != n) {
			failf("stall: write of a PING", strerror(errno));
			return 1;
		}
		ssize_t got = read(fd, back, sizeof back);
		if (got < 0 && errno == ETIMEDOUT)
			stopped = 1;
		else if (got < 0) {
			failf("stall: read", strerror(errno));
			return 1;
		} else {
			answered++;
			usleep(100000);
		}
	}
	if (!stopped) {
		failf("stall", "the device kept answering for 100 PINGs");
		return 1;
	}
	int full = 0, n = encode_ping(frame, sizeof frame, 300, pl, sizeof pl);
	for (int k = 0; k < 64 && !full; k++) {
		if (write(fd, frame, (size_t)n) == n)
			continue;
		if (errno != ETIMEDOUT) {
			failf("stall: write to the stopped device", strerror(errno));
			return 1;
		}
		full = 1;
	}
	if (!full)
		failf("stall", "64 writes to the stopped device taken");
	/* The rings do not stop: RESET fails, and the rings stay stopped. */
	struct wse_reset rs = {.argsz = sizeof rs};
	expect("stall: RESET of the stopped device", ioctl(fd, WSE_IOCTL_RESET, &rs), ETIMEDOUT);
	expect("stall: write after the failed reset", write(fd, frame, (size_t)n), EIO);
	printf("pcie_ioctl: stall: %d PINGs answered, then read(), write() and RESET timed out\n",
	       answered);
	printf("STALL-CONT\n");
	fflush(stdout);
	int k, r = -1;
	for (k = 0; k < 100 && r; k++) {
		r = ioctl(fd, WSE_IOCTL_RESET, &rs);
		if (r)
			usleep(200000);
	}
	if (r) {
		failf("stall: RESET after the device came back", strerror(errno));
		return 1;
	}
	n = encode_ping(frame, sizeof frame, 400, pl, sizeof pl);
	expect("stall: write of a PING after the reset", write(fd, frame, (size_t)n), 0);
	read_ping("stall: the PING after the reset", 400, pl, sizeof pl);
	printf("pcie_ioctl: stall: the reset took at try %d\n", k);
	return 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int stall_mode = argc == 3 && !strcmp(argv[1], "--stall");
	fd = argc == 2 || stall_mode ? open(argv[argc - 1], O_RDWR) : -1;
	if (fd < 0) {
		perror("pcie_ioctl: open");
		return 2;
	}
	if (stall_mode) {
		stall();
		close(fd);
		printf("pcie_ioctl: stall: %s\n", fails ? "FAIL" : "ok");
		return fails ? 1 : 0;
	}
	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, 2 * (size_t)page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || mprotect(page + page_size, (size_t)page_size, PROT_NONE)) {
		perror("pcie_ioctl: mmap");
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_alarm}; /* no SA_RESTART: read() gets EINTR */
	sigaction(SIGALRM, &sa, NULL);

	struct wse_timeout to = {.argsz = sizeof to, .read_timeout_ms = TIMEOUT_MS};
	expect("SET_TIMEOUT 300 ms", ioctl(fd, WSE_IOCTL_SET_TIMEOUT, &to), 0);
	struct wse_timeout padded = {.argsz = sizeof to, .pad = 1};
	refuse("SET_TIMEOUT, pad 1", WSE_IOCTL_SET_TIMEOUT, &padded, sizeof padded, EINVAL);

	/* A PING's response queued before the refused RESETs. */
	uint8_t pl[1000], frame[1100];
	for (unsigned i = 0; i < sizeof pl; i++)
		pl[i] = (uint8_t)(i * 7);
	int n = encode_ping(frame, sizeof frame, 76, pl, sizeof pl);
	expect("write of a PING", write(fd, frame, (size_t)n), 0);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	if (poll(&pfd, 1, 20000) != 1)
		failf("poll", "the PING's response did not come in 20 s");

	for (unsigned i = 0; i < sizeof ios / sizeof ios[0]; i++)
		matrix(&ios[i]);
	unknown_numbers();

	/* read() into a buffer smaller than the packet: EMSGSIZE, kept. */
	uint8_t small[64];
	memcpy(small, frame, sizeof small);
	expect("read into 64 bytes", read(fd, small, sizeof small), EMSGSIZE);
	if (memcmp(small, frame, sizeof small))
		failf("read into 64 bytes", "the buffer changed");
	read_ping("the PING's response after the refused RESETs", 76, pl, sizeof pl);

	/* The refused SET_TIMEOUTs asked for no bound: read() still ends in
	 * ETIMEDOUT, before the alarm. */
	alarm(30);
	expect("read with nothing queued (the 300 ms timeout kept)", read(fd, frame, sizeof frame),
	       ETIMEDOUT);
	alarm(0);

	/* write(): past the largest frame, malformed, unmapped. */
	static uint8_t huge[24 + 65536 + 8 + 8];
	expect("write of 65576 bytes", write(fd, huge, sizeof huge), EINVAL);
	uint8_t junk[32] = "not a link packet at all, no....";
	expect("write of a malformed packet", write(fd, junk, sizeof junk), EINVAL);
	expect("write from a PROT_NONE page", write(fd, page + page_size, (size_t)n), EFAULT);
	memcpy(page + page_size - n / 2, frame, (size_t)(n / 2));
	expect("write running into a PROT_NONE page", write(fd, page + page_size - n / 2, (size_t)n),
	       EFAULT);

	accepted_calls();

	/* The rings stopped and started again, then a PING answered. */
	struct wse_reset rs = {.argsz = sizeof rs};
	expect("RESET", ioctl(fd, WSE_IOCTL_RESET, &rs), 0);
	n = encode_ping(frame, sizeof frame, 77, pl, sizeof pl);
	expect("write of a PING", write(fd, frame, (size_t)n), 0);
	read_ping("the PING after the reset", 77, pl, sizeof pl);
	alarm(30);
	expect("read with nothing queued (the timeout set unaligned)", read(fd, frame, sizeof frame),
	       ETIMEDOUT);
	alarm(0);
	close(fd);
	printf("pcie_ioctl: %s (%d calls refused, %d accepted)\n", fails ? "FAIL" : "ok", refused,
	       accepted);
	return fails ? 1 : 0;
}
