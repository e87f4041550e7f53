/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_usb: link figures of the usb: transport through an FT231X bridge,
 * run in the virtual machine of docs/vm-harness.md (section "The USB
 * benchmark").
 *
 *   bench_usb URI WAVELETS GADGET-PID GADGET-LOG
 *
 * Wavelets go in at every west port and come back out at the east ports
 * (each row routed straight across, as bench_link), WAVELETS per port.
 * The line bytes are the gadget's (wse-ffs-ft231x) counts of the link
 * protocol's bytes from and to the host, without the FTDI status bytes:
 * what the bridge's UART carries. The program sends the gadget SIGUSR2
 * and reads the "counts:" line it then appends to GADGET-LOG.
 *
 * Two runs:
 *   - streamed: every wavelet in one wse_stream_in call (libwsehost cuts
 *     it into packets, every packet feeding all rows), the east ports
 *     granted all credits first and drained after: the two directions
 *     overlap on the line. Gives
 *       usb.line_efficiency     payload bytes (8 per wavelet, in and out)
 *                               over line bytes (both directions)
 *       usb.host_cpu_us_per_mb  this process's user + system CPU time per
 *                               MB (10^6 bytes) of that payload
 *       usb.payload_mbps        that payload in Mbit/s of wall time
 *   - phased: batches of as many wavelets per port as one stream-in
 *     packet carries, at most OUTLET (the device's outlet holds them
 *     without credits), each streamed in, then granted and streamed out,
 *     the counts read between the phases:
 *       usb.line_efficiency_stream_in, usb.line_efficiency_stream_out
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "wsehost.h"
#include "vm_bench.h"
#include "wsemu/wse_wire.h"

#define COLOR 3
#define OUTLET 256 /* wavelets a port's outlet holds without credits */

static wse_device *d;
static struct wse_info in;
static pid_t gadget;
static const char *gadget_log;

static int check(int r, const char *what)
{
	return vmb_check("bench_usb", r, what);
}

/* The gadget's byte counts: to the host, from the host. */
struct counts {
	unsigned long long to_host, from_host;
};

/* The last "counts:" line of the gadget's log; returns how many there are. */
static int last_counts(struct counts *c)
{
	FILE *f = fopen(gadget_log, "r");
	if (!f)
		return 0;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		struct counts t;
		if (sscanf(line, "ffs-ft231x: counts: %llu bytes to the host, %llu from the host",
			   &t.to_host, &t.from_host) == 2) {
			*c = t;
			n++;
		}
	}
	fclose(f);
	return n;
}

static struct counts gadget_counts(void)
{
	struct counts c = {0, 0};
	int before = last_counts(&c);
	if (kill(gadget, SIGUSR2) < 0) {
		perror("bench_usb: kill gadget");
		exit(1);
	}
	for (int i = 0; i < 500; i++) {
		if (last_counts(&c) > before)
			return c;
		usleep(10000);
	}
	fprintf(stderr, "bench_usb: no counts from the gadget in %s\n", gadget_log);
	exit(1);
}

static unsigned long long line_bytes(struct counts a, struct counts b)
{
	return (b.to_host - a.to_host) + (b.from_host - a.from_host);
}

/* Wavelets off .. off + k - 1 of every row into the west ports, in
 * packets that each carry one piece per row (bench_link's chunking). */
static void stream_in(uint64_t *wv, unsigned n, unsigned off, unsigned k)
{
	const unsigned per = in.max_payload / 8 / in.rows - 1;
	struct wse_stream_chunk *ch = calloc((size_t)(k / per + 1) * in.rows, sizeof(*ch));
	size_t nc = 0;
	for (unsigned o = off; o < off + k; o += per) {
		unsigned m = off + k - o < per ? off + k - o : per;
		for (unsigned y = 0; y < in.rows; y++)
			ch[nc++] = (struct wse_stream_chunk){WSE_WEST, y, wv + (size_t)y * n + o, m};
	}
	check(wse_stream_in(d, ch, nc), "stream in");
	free(ch);
}

/* Credits for k wavelets per east port (if grant), then take them, each
 * checked against what went in. */
static void stream_out(const uint64_t *wv, unsigned n, unsigned off, unsigned k, int grant)
{
	uint64_t *got = malloc((size_t)k * 8);
	for (unsigned y = 0; y < in.rows; y++) {
		if (grant)
			check(wse_stream_credit(d, WSE_EAST, y, k), "credit");
	}
	for (unsigned y = 0; y < in.rows; y++) {
		unsigned have = 0;
		while (have < k)
			have += (unsigned)check(wse_stream_out(d, WSE_EAST, y, got + have, k - have, 20000),
						"stream out");
		if (memcmp(got, wv + (size_t)y * n + off, (size_t)k * 8)) {
			fprintf(stderr, "bench_usb: row %u: wavelets out differ from those in\n", y);
			exit(1);
		}
	}
	free(got);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: bench_usb URI WAVELETS GADGET-PID GADGET-LOG\n");
		return 2;
	}
	unsigned n = (unsigned)atoi(argv[2]);
	gadget = (pid_t)atoi(argv[3]);
	gadget_log = argv[4];
	check(wse_open(&d, argv[1], NULL), "open");
	in.size = sizeof(in);
	check(wse_get_info(d, &in), "info");
	for (unsigned y = 0; y < in.rows; y++)
		for (unsigned x = 0; x < in.columns; x++) {
			uint32_t e = (1u << 3) << 8 | (1u << 1); /* west in, east out */
			check(wse_route_write(d, x, y, COLOR, &e, 1), "route");
		}
	uint64_t *wv = malloc((size_t)in.rows * n * 8);
	for (unsigned i = 0; i < in.rows * n; i++)
		wv[i] = wse_wavelet(i, COLOR, 0);
	const double payload = 2.0 * 8 * in.rows * n; /* bytes, in and out */
	printf("BENCH usb.params uri=%s board=%s rows=%u wavelets_per_port=%u max_payload=%u\n",
	       argv[1], in.compatible, in.rows, n, in.max_payload);

	/* Streamed. */
	struct counts c0 = gadget_counts();
	double t0 = vmb_now_s(), u0 = vmb_cpu_s();
	for (unsigned y = 0; y < in.rows; y++)
		check(wse_stream_credit(d, WSE_EAST, y, n), "credit");
	stream_in(wv, n, 0, n);
	stream_out(wv, n, 0, n, 0);
	double wall = vmb_now_s() - t0, cpu = vmb_cpu_s() - u0;
	struct counts c1 = gadget_counts();
	printf("BENCH usb.line_efficiency %.4f ratio\n", payload / (double)line_bytes(c0, c1));
	printf("BENCH usb.host_cpu_us_per_mb %.0f us/MB\n", cpu * 1e6 / (payload / 1e6));
	printf("BENCH usb.payload_mbps %.3f Mbit/s\n", payload * 8 / wall / 1e6);
	printf("BENCH usb.streamed payload_bytes=%.0f line_bytes=%llu (to the host %llu, from the host "
	       "%llu) wall_s=%.3f cpu_s=%.3f\n", payload, line_bytes(c0, c1),
	       c1.to_host - c0.to_host, c1.from_host - c0.from_host, wall, cpu);

	/* Phased. */
	unsigned long long in_bytes = 0, out_bytes = 0;
	unsigned batch = in.max_payload / 8 / in.rows - 1; /* one packet */
	if (batch > OUTLET)
		batch = OUTLET;
	struct counts a = gadget_counts();
	for (unsigned off = 0; off < n; off += batch) {
		unsigned k = n - off < batch ? n - off : batch;
		stream_in(wv, n, off, k);
		struct counts b = gadget_counts();
		stream_out(wv, n, off, k, 1);
		struct counts c = gadget_counts();
		in_bytes += line_bytes(a, b);
		out_bytes += line_bytes(b, c);
		a = c;
	}
	printf("BENCH usb.line_efficiency_stream_in %.4f ratio\n", payload / 2 / (double)in_bytes);
	printf("BENCH usb.line_efficiency_stream_out %.4f ratio\n", payload / 2 / (double)out_bytes);
	printf("BENCH usb.phased batch=%u line_bytes_in=%llu line_bytes_out=%llu\n", batch, in_bytes,
	       out_bytes);
	free(wv);
	wse_close(d);
	return 0;
}
