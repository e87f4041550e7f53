/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsemu-fast: the functional model of a board (wse_fast_board.h) serving
 * the link protocol (docs/protocol.md) on a Unix socket, as wsemu-sim
 * serves the RTL: every libwsehost call, wsectl and the training backend
 * work on either. docs/wsemu-fast.md, "The device server".
 *
 *   wsemu-fast --board NAME --socket PATH [--dtb FILE] [--max-cycles N]
 *              [--quantum N] [--quiet] [--flash-bytes N] [--flash-file PATH]
 *              [--flash-kill-after N]
 *   wsemu-fast --board NAME --pcie-regs PATH --pcie-ram PATH --pcie-ram-bytes N
 *              [--pcie-doorbell PATH] [...]
 *
 * Options are also taken from $WSEMU_FAST_OPTS (before the command
 * line's). The board's DTB configures the model (wse_board_parse(), the
 * binding's rules): by default BOARDS_DIR/NAME/NAME.dtb, the blob the
 * RTL's ROM is built from.
 *
 * The host-interface side (wsf_host.c) executes the requests; this file
 * holds the socket, the main loop and time: the board runs while it has
 * work, in slices of SLICE_CYCLES model cycles between looks at the
 * socket, and a quiet board with nothing waiting blocks on the socket
 * without advancing time.
 *
 * With --pcie-regs the board is a PCIe device instead (wsf_pcie.h, for a
 * QEMU guest): BAR 0 in the file PATH (64 KiB, QEMU's ivshmem-plain
 * memdev) and DMA into the guest's RAM, the file of --pcie-ram (N bytes,
 * QEMU's shared memory-backend-file); both files are made here, before
 * QEMU starts. The registers are looked at between slices, every 50 us
 * while nothing happens, every 500 us when nothing has for long. With
 * --pcie-doorbell the server is also an ivshmem server on that Unix
 * socket for QEMU's ivshmem-doorbell (the register file's descriptor, an
 * eventfd per MSI-X vector), and sends the guest its vectors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "wsemu/wse_board.h"
#include "wsemu/wse_codec.h"
#include "wsemu/wse_image.h"
#include "wsf_host.h"
#include "wsf_pcie.h"
#include "pcie_shm.h"
#include "wsemu/wse_pcie.h"
#include <sys/mman.h>

#ifndef WSF_BOARDS_DIR
#define WSF_BOARDS_DIR "build/boards"
#endif
#ifndef WSF_BUILD_ID
#define WSF_BUILD_ID "wsemu-fast"
#endif

/* Model cycles between looks at the socket while the board runs. */
#define SLICE_CYCLES 2048u

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

static void usage(void)
{
	fprintf(stderr, "usage: wsemu-fast --board NAME --socket PATH [--dtb FILE] "
			"[--max-cycles N] [--quantum N] [--quiet]\n"
			"       [--flash-bytes N] [--flash-file PATH] [--flash-kill-after N]\n"
			"       [--pcie-regs PATH --pcie-ram PATH --pcie-ram-bytes N [--pcie-doorbell PATH]]\n"
			"       (instead of --socket)\n"
			"  options also from $WSEMU_FAST_OPTS\n");
	exit(3);
}

static int send_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = send(fd, p, n, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pf = {fd, POLLOUT, 0};
				if (poll(&pf, 1, 10000) <= 0)
					return -1; /* a host that reads nothing for 10 s */
				continue;
			}
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A second host: answer its first request BUSY and close. */
static void refuse(int lfd)
{
	int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	uint8_t hdr[WSE_HDR_BYTES];
	size_t got = 0;
	while (got < sizeof hdr) {
		struct pollfd pf = {c, POLLIN, 0};
		if (poll(&pf, 1, 2000) <= 0)
			break;
		ssize_t r = recv(c, hdr + got, sizeof hdr - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	struct wse_pkt p;
	if (got == sizeof hdr && wse_hdr_decode(hdr, got, &p, WSE_PROTO_MAX_PAYLOAD) == 0) {
		struct wse_pkt r = {.major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR,
				    .opcode = p.opcode, .flags = WSE_FLAG_RESPONSE, .tag = p.tag,
				    .status = WSE_ST_BUSY};
		uint8_t out[64];
		int n = wse_pkt_encode(out, sizeof out, &r, NULL);
		if (n > 0)
			send_all(c, out, (size_t)n);
	}
	close(c);
}

/* The whole file at path, or NULL with a message. */
static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "wsemu-fast: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	uint8_t *buf = malloc(WSE_BOARD_MAX_DTB + 1);
	size_t n = buf ? fread(buf, 1, WSE_BOARD_MAX_DTB + 1, f) : 0;
	fclose(f);
	if (!buf || n > WSE_BOARD_MAX_DTB) {
		fprintf(stderr, "wsemu-fast: %s: larger than %u bytes\n", path, WSE_BOARD_MAX_DTB);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The codes of wsemu/wse_error.h the model returns (libwsehost's
 * wse_strerror() has them all; the server links only libwsewire). */
static const char *err_text(int e)
{
	static char buf[32];
	switch (e) {
	case WSE_ERROR_INVALID_PARAM: return "invalid parameter";
	case WSE_ERROR_NO_MEM: return "out of memory";
	case WSE_ERROR_RANGE: return "address outside the tile's memories";
	default:
		snprintf(buf, sizeof buf, "error %d", e);
		return buf;
	}
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The flash's file: created erased (0xFF) when missing or empty, else
 * kept as it is, the flash a restarted server finds. */
static int open_flash(const char *path, uint32_t bytes, struct wsf_host *h, uint64_t kill_after)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "wsemu-fast: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (st.st_size == 0) {
		static uint8_t ff[65536];
		memset(ff, 0xFF, sizeof ff);
		for (uint32_t done = 0; done < bytes; done += sizeof ff)
			if (pwrite(fd, ff, sizeof ff, done) != (ssize_t)sizeof ff) {
				fprintf(stderr, "wsemu-fast: %s: %s\n", path, strerror(errno));
				return -1;
			}
	} else if (st.st_size != (off_t)bytes) {
		fprintf(stderr, "wsemu-fast: %s holds %lld bytes, not the flash's %u\n", path,
			(long long)st.st_size, bytes);
		return -1;
	}
	wsf_host_set_flash(h, fd, bytes, kill_after);
	return 0;
}

/* Split $WSEMU_FAST_OPTS at white space, then append argv. */
static char **gather_args(int argc, char **argv, int *nargs)
{
	const char *env = getenv("WSEMU_FAST_OPTS");
	char *copy = strdup(env ? env : "");
	char **args = calloc((size_t)argc + strlen(copy) / 2 + 2, sizeof *args);
	int n = 0;
	if (!copy || !args) {
		fprintf(stderr, "wsemu-fast: out of memory\n");
		exit(1);
	}
	for (char *s = strtok(copy, " \t\n"); s; s = strtok(NULL, " \t\n"))
		args[n++] = s;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	*nargs = n;
	return args;
}

/* The PCIe device's loop: until a signal or the cycle limit. */
static int pcie_loop(struct wsf_host *h, struct wsf_pcie *p, uint64_t max_cycles,
		     struct pcie_shm_server *db)
{
	unsigned idle = 0;
	while (!stop_signal) {
		int r = wsf_pcie_poll(p);
		if (r < 0)
			return r;
		uint32_t vec = wsf_pcie_take_vectors(p);
		int e = db ? pcie_shm_server_send(db, vec) : 0;
		if (e < 0)
			return e;
		/* a step after new bytes too: a credit turns outlet wavelets
		 * into events even on a quiet board */
		bool work = r > 0 || wsf_host_busy(h);
		if (work && (r = wsf_host_step(h, SLICE_CYCLES)) < 0)
			return r;
		if (r > 0 || work)
			idle = 0;
		else if (idle < 2000)
			idle++;
		if (max_cycles && wsf_host_now(h) >= max_cycles) {
			fprintf(stderr, "wsemu-fast: cycle limit %" PRIu64 " reached\n", max_cycles);
			return 2;
		}
		/* spin a little after activity, then sleep 50 us a look, and
		 * 500 us once the guest has long been quiet */
		if (idle > 200)
			usleep(idle >= 2000 ? 500 : 50);
	}
	return 0;
}

int main(int argc, char **argv)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	const char *board = NULL, *sock = NULL, *dtb_path = NULL;
	uint64_t max_cycles = 0;
	unsigned long quantum = 0;
	bool quiet = false;
	const char *flash_path = NULL;
	const char *pcie_regs = NULL, *pcie_ram = NULL, *pcie_doorbell = NULL;
	unsigned long long pcie_ram_bytes = 0;
	unsigned long long flash_opt = 0, flash_kill = UINT64_MAX;
	int nargs;
	char **args = gather_args(argc, argv, &nargs);
	for (int i = 0; i < nargs; i++) {
		const char *a = args[i];
		if (i + 1 >= nargs && strcmp(a, "--quiet"))
			usage();
		if (!strcmp(a, "--board"))
			board = args[++i];
		else if (!strcmp(a, "--socket"))
			sock = args[++i];
		else if (!strcmp(a, "--dtb"))
			dtb_path = args[++i];
		else if (!strcmp(a, "--max-cycles"))
			max_cycles = strtoull(args[++i], NULL, 0);
		else if (!strcmp(a, "--quantum")) {
			char *end;
			quantum = strtoul(args[++i], &end, 0);
			if (*end || quantum < 1 || quantum > 100000) {
				fprintf(stderr, "wsemu-fast: --quantum must be 1..100000 cycles\n");
				return 3;
			}
		} else if (!strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "--flash-bytes")) {
			char *end;
			flash_opt = strtoull(args[++i], &end, 0);
			if (*end || flash_opt < WSE_FLASH_SECTOR_BYTES || flash_opt > (1u << 30) ||
			    (flash_opt & (flash_opt - 1))) {
				fprintf(stderr, "wsemu-fast: --flash-bytes must be a power of two "
						"from 65536 to 2^30\n");
				return 3;
			}
		} else if (!strcmp(a, "--pcie-regs"))
			pcie_regs = args[++i];
		else if (!strcmp(a, "--pcie-ram"))
			pcie_ram = args[++i];
		else if (!strcmp(a, "--pcie-doorbell"))
			pcie_doorbell = args[++i];
		else if (!strcmp(a, "--pcie-ram-bytes")) {
			char *end;
			pcie_ram_bytes = strtoull(args[++i], &end, 0);
			if (*end || !pcie_ram_bytes) {
				fprintf(stderr, "wsemu-fast: --pcie-ram-bytes takes a byte count\n");
				return 3;
			}
		} else if (!strcmp(a, "--flash-file"))
			flash_path = args[++i];
		else if (!strcmp(a, "--flash-kill-after")) {
			char *end;
			flash_kill = strtoull(args[++i], &end, 0);
			if (*end) {
				fprintf(stderr, "wsemu-fast: --flash-kill-after takes a byte count\n");
				return 3;
			}
		}
		else if (!strcmp(a, "--trace") || !strcmp(a, "--fault") ||
			 !strcmp(a, "--link-bytes-per-cycle") || !strcmp(a, "--link-stall")) {
			fprintf(stderr, "wsemu-fast: %s is an option of the RTL model (wsemu-sim); the "
					"functional model has no waveforms, faults or link timing\n", a);
			return 3;
		} else
			usage();
	}
	if (!sock && !pcie_regs)
		usage();
	if (pcie_regs && (!pcie_ram || !pcie_ram_bytes || sock)) {
		fprintf(stderr, "wsemu-fast: --pcie-regs needs --pcie-ram and --pcie-ram-bytes, "
				"and no --socket\n");
		return 3;
	}
	if (!board)
		board = "sim-4x4";
	if (!*board || strchr(board, '/') || board[0] == '.') {
		fprintf(stderr, "wsemu-fast: bad board name %s\n", board);
		return 3;
	}
	char path[4096];
	if (!dtb_path) {
		snprintf(path, sizeof path, "%s/%s/%s.dtb", WSF_BOARDS_DIR, board, board);
		dtb_path = path;
	}
	size_t dtb_len = 0;
	uint8_t *dtb = read_file(dtb_path, &dtb_len);
	if (!dtb)
		return 3;
	struct wse_board bd;
	char err[160];
	if (wse_board_parse(dtb, dtb_len, &bd, err, sizeof err) < 0) {
		fprintf(stderr, "wsemu-fast: %s: %s\n", dtb_path, err);
		return 3;
	}
	char want[80];
	snprintf(want, sizeof want, "wsemu,%s", board);
	if (strcmp(want, bd.compatible)) {
		fprintf(stderr, "wsemu-fast: %s describes %s, not %s\n", dtb_path, bd.compatible, want);
		return 3;
	}
	struct wsf_host *h;
	int r = wsf_host_create(&bd, (uint32_t)quantum, dtb, dtb_len, WSF_BUILD_ID, &h);
	if (r < 0) {
		fprintf(stderr, "wsemu-fast: %s: cannot build the model: %s\n", board, err_text(r));
		return 3;
	}
	uint32_t flash_bytes = flash_opt ? (uint32_t)flash_opt : bd.flash_bytes;
	if (flash_bytes) {
		char fpath[4096];
		snprintf(fpath, sizeof fpath, "%s.flash", sock ? sock : pcie_regs);
		if (open_flash(flash_path ? flash_path : fpath, flash_bytes, h, flash_kill) < 0)
			return 3;
	}
	if (getppid() == 1 && !getenv("WSEMU_SIM_DAEMON"))
		return 1; /* the parent went before PDEATHSIG was armed */
	if (!quiet)
		fprintf(stderr, "wsemu-fast: board %s, %ux%u tiles, functional model\n", board,
			bd.columns, bd.rows);

	if (pcie_regs) {
		void *regs = pcie_shm_map_file("wsemu-fast", pcie_regs, WSE_PCIE_BAR_BYTES);
		void *ram = pcie_shm_map_file("wsemu-fast", pcie_ram, (size_t)pcie_ram_bytes);
		struct wsf_pcie *p;
		struct pcie_shm_server *db = NULL;
		if (!regs || !ram)
			return 3;
		if (pcie_doorbell && pcie_shm_server_open(pcie_doorbell, pcie_regs, &db) < 0) {
			fprintf(stderr, "wsemu-fast: %s: %s\n", pcie_doorbell, strerror(errno));
			return 3;
		}
		if ((r = wsf_pcie_create(h, regs, ram, (size_t)pcie_ram_bytes, &bd, dtb, dtb_len, &p)) < 0) {
			fprintf(stderr, "wsemu-fast: the PCIe device: %s\n", err_text(r));
			return 3;
		}
		struct sigaction sa_pstop;
		memset(&sa_pstop, 0, sizeof sa_pstop);
		sa_pstop.sa_handler = on_signal;
		sigaction(SIGTERM, &sa_pstop, NULL);
		sigaction(SIGINT, &sa_pstop, NULL);
		r = pcie_loop(h, p, max_cycles, db);
		pcie_shm_server_close(db);
		if (r < 0)
			fprintf(stderr, "wsemu-fast: model error: %s\n", err_text(r));
		else if (!quiet)
			fprintf(stderr, "wsemu-fast: PCIe device stopped after %" PRIu64 " cycles\n",
				wsf_host_now(h));
		wsf_pcie_destroy(p);
		wsf_host_destroy(h);
		free(dtb);
		free(args);
		return r < 0 ? 1 : r;
	}
	umask(077);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(sock) >= sizeof sa.sun_path) {
		fprintf(stderr, "wsemu-fast: socket path too long\n");
		return 3;
	}
	strcpy(sa.sun_path, sock);
	unlink(sock);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4) < 0) {
		perror("wsemu-fast: socket");
		return 1;
	}
	chmod(sock, 0600);
	struct sigaction sa_stop;
	memset(&sa_stop, 0, sizeof sa_stop);
	sa_stop.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGTERM, &sa_stop, NULL);
	sigaction(SIGINT, &sa_stop, NULL);
	int fd = -1;
	while (fd < 0 && !stop_signal) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0 && errno != EINTR) {
			perror("wsemu-fast: accept");
			return 1;
		}
	}
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

	int rc = 0;
	bool host_gone = fd < 0;
	double t0 = wall_seconds();
	while (!stop_signal && !host_gone) {
		bool work = wsf_host_busy(h);
		struct pollfd pf[2] = {{fd, POLLIN, 0}, {lfd, POLLIN, 0}};
		int n = poll(pf, 2, work ? 0 : -1);
		if (n < 0 && errno != EINTR) {
			perror("wsemu-fast: poll");
			rc = 1;
			break;
		}
		if (n > 0 && (pf[1].revents & POLLIN))
			refuse(lfd);
		if (n > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			/* Take everything the host has sent so far before the board
			 * moves on: a burst of requests arrives together, as on a
			 * link. */
			for (;;) {
				size_t room;
				uint8_t *p = wsf_host_rx_space(h, &room);
				ssize_t k = recv(fd, p, room, 0);
				if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
					host_gone = true;
					break;
				}
				if (k < 0)
					break;
				if ((r = wsf_host_rx_commit(h, (size_t)k)) < 0)
					goto model_error;
			}
		}
		if ((r = wsf_host_step(h, SLICE_CYCLES)) < 0)
			goto model_error;
		size_t out_len;
		const uint8_t *out = wsf_host_tx(h, &out_len);
		if (out_len) {
			if (send_all(fd, out, out_len) < 0)
				host_gone = true;
			wsf_host_tx_done(h);
		}
		if (max_cycles && wsf_host_now(h) >= max_cycles) {
			fprintf(stderr, "wsemu-fast: cycle limit %" PRIu64 " reached\n", max_cycles);
			rc = 2;
			break;
		}
	}
	if (0) {
model_error:
		fprintf(stderr, "wsemu-fast: model error: %s\n", err_text(r));
		rc = 1;
	}
	if (!quiet) {
		struct timespec cpu;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		double cs = (double)cpu.tv_sec + cpu.tv_nsec / 1e9;
		fprintf(stderr, "wsemu-fast: %s after %" PRIu64 " cycles (%.1f s, %.2f s of CPU: "
				"%.0f cycles per CPU-second)\n",
			host_gone ? "host disconnected" : stop_signal ? "terminated" : "stopped",
			wsf_host_now(h), wall_seconds() - t0, cs, cs > 0 ? (double)wsf_host_now(h) / cs : 0);
	}
	wsf_host_destroy(h);
	free(dtb);
	free(args);
	if (fd >= 0)
		close(fd);
	close(lfd);
	unlink(sock);
	return rc;
}
