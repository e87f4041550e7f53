/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_pcie: the figures of the wse driver and libwsehost's pcie:
 * transport, run in the virtual machine of docs/vm-harness.md (section
 * "The PCIe benchmark") against wsemu-fast's PCIe device side.
 *
 *   bench_pcie NODE MIB
 *
 * NODE is the driver's /dev/wseN; MIB the mebibytes each direction moves.
 *   pcie.ioctl_us     WSE_IOCTL_GET_INFO on NODE, the median of 1000 calls
 *                     (a system call into the driver, no device access)
 *   pcie.ping_us      wse_ping() of 8 bytes through pcie:, the median of
 *                     200: write() of the request, its DMA through the H2C
 *                     ring, the device's answer through the C2H ring, read()
 *   pcie.h2c_mbps     MIB MiB of wse_mem_write() into every tile's DMEM,
 *                     pass after pass (requests of max_payload bytes, as
 *                     many in flight as the device takes), in MB/s
 *                     (10^6 bytes) of payload
 *   pcie.c2h_mbps     the same read back with wse_mem_read(), every pass
 *                     compared with what was written
 *   pcie.dma_efficiency  memcpy time / transfer time for the same bytes:
 *                     the payload bytes of both runs copied by memcpy() in
 *                     chunks of max_payload from one buffer of this process
 *                     into another of MIB MiB (both in the guest's RAM, the
 *                     memory file wsemu-fast maps: the shared memory the
 *                     DMA engines read and write), the best of 3, over the
 *                     wall time of the h2c and c2h runs
 * and lines BENCH pcie.params, pcie.h2c and pcie.c2h with the counts the
 * figures come from (payload bytes / max_payload as packets, CPU seconds
 * of this process), pcie.memcpy, and pcie.crc32c: libwsehost's payload
 * CRC over one direction's bytes, a part of the per-packet cost.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "wsehost.h"
#include "vm_bench.h"

/* The driver's UAPI names its GET_INFO struct wse_info, as libwsehost's
 * public API does: renamed here. */
#define wse_info wse_drv_info
#include <linux/wse.h>
#undef wse_info

#define DMEM_BASE 0x80100000u

static int check(int r, const char *what)
{
	return vmb_check("bench_pcie", r, what);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* GET_INFO on the driver's node, before libwsehost opens it (the driver
 * takes one open file at a time). */
static double ioctl_us(const char *node)
{
	static double t[1000];
	int fd = open(node, O_RDWR);
	if (fd < 0) {
		perror("bench_pcie: open");
		exit(1);
	}
	for (int i = 0; i < 1000; i++) {
		struct wse_drv_info di = {.argsz = sizeof di};
		double t0 = vmb_now_s();
		if (ioctl(fd, WSE_IOCTL_GET_INFO, &di) < 0) {
			perror("bench_pcie: GET_INFO");
			exit(1);
		}
		t[i] = (vmb_now_s() - t0) * 1e6;
	}
	close(fd);
	return median(t, 1000);
}

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: bench_pcie NODE MIB\n");
		return 2;
	}
	const size_t total = (size_t)atoi(argv[2]) << 20;
	double ioctl = ioctl_us(argv[1]);

	char uri[300];
	snprintf(uri, sizeof uri, "pcie:%s", argv[1]);
	wse_device *d;
	struct wse_info in = {.size = sizeof in};
	check(wse_open(&d, uri, NULL), "open");
	check(wse_get_info(d, &in), "info");
	const unsigned tiles = in.columns * in.rows;
	const size_t pass = (size_t)tiles * in.dmem_bytes;
	const unsigned passes = (unsigned)((total + pass - 1) / pass);
	const size_t bytes = (size_t)passes * pass;

	static double pt[200];
	uint8_t eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	for (int i = 0; i < 200; i++) {
		double t0 = vmb_now_s();
		check(wse_ping(d, eight, sizeof eight), "ping");
		pt[i] = (vmb_now_s() - t0) * 1e6;
	}
	double ping = median(pt, 200);

	uint8_t *src = malloc(bytes), *back = malloc(in.dmem_bytes), *dst = malloc(bytes);
	if (!src || !back || !dst) {
		fprintf(stderr, "bench_pcie: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < bytes; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, bytes);

	/* Host to card: every pass a new pattern into every tile's DMEM. */
	double c0 = vmb_cpu_s(), t0 = vmb_now_s();
	for (unsigned p = 0; p < passes; p++)
		for (unsigned t = 0; t < tiles; t++)
			check(wse_mem_write(d, t % in.columns, t / in.columns, DMEM_BASE,
					    src + ((size_t)p * tiles + t) * in.dmem_bytes, in.dmem_bytes),
			      "mem write");
	double h2c_s = vmb_now_s() - t0, h2c_cpu = vmb_cpu_s() - c0;

	/* Card to host: the last pass's pattern read back, pass after pass. */
	const uint8_t *last = src + (size_t)(passes - 1) * pass;
	c0 = vmb_cpu_s();
	t0 = vmb_now_s();
	for (unsigned p = 0; p < passes; p++)
		for (unsigned t = 0; t < tiles; t++) {
			check(wse_mem_read(d, t % in.columns, t / in.columns, DMEM_BASE, back,
					   in.dmem_bytes), "mem read");
			if (memcmp(back, last + (size_t)t * in.dmem_bytes, in.dmem_bytes)) {
				fprintf(stderr, "bench_pcie: tile %u's DMEM read back differs\n", t);
				return 1;
			}
		}
	double c2h_s = vmb_now_s() - t0, c2h_cpu = vmb_cpu_s() - c0;
	wse_close(d);

	/* The same bytes by memcpy, in chunks of max_payload: both runs'. */
	double best = 1e9;
	for (int k = 0; k < 3; k++) {
		t0 = vmb_now_s();
		for (int dir = 0; dir < 2; dir++)
			for (size_t o = 0; o < bytes; o += in.max_payload) {
				size_t n = bytes - o < in.max_payload ? bytes - o : in.max_payload;
				memcpy(dst + o, src + o, n);
			}
		double s = vmb_now_s() - t0;
		if (s < best)
			best = s;
		src[k] ^= dst[bytes - 1 - k]; /* the copies are used */
	}
	/* The payload CRC libwsehost computes for every packet sent or
	 * received (docs/protocol.md), over the bytes of one direction. */
	t0 = vmb_now_s();
	uint32_t crc = wse_crc32c(0, src, bytes);
	double crc_s = vmb_now_s() - t0;
	const double pkts = (double)bytes / in.max_payload;
	printf("BENCH pcie.params node=%s board=%s tiles=%u dmem_bytes=%u max_payload=%u "
	       "max_outstanding=%u bytes_each_way=%zu\n", argv[1], in.compatible, tiles,
	       in.dmem_bytes, in.max_payload, in.max_outstanding, bytes);
	printf("BENCH pcie.ioctl_us %.1f us\n", ioctl);
	printf("BENCH pcie.ping_us %.1f us\n", ping);
	printf("BENCH pcie.h2c_mbps %.2f MB/s\n", bytes / h2c_s / 1e6);
	printf("BENCH pcie.c2h_mbps %.2f MB/s\n", bytes / c2h_s / 1e6);
	printf("BENCH pcie.dma_efficiency %.4f ratio\n", best / (h2c_s + c2h_s));
	printf("BENCH pcie.h2c wall_s=%.3f cpu_s=%.3f packets=%.0f us_per_packet=%.1f\n", h2c_s,
	       h2c_cpu, pkts, h2c_s * 1e6 / pkts);
	printf("BENCH pcie.c2h wall_s=%.3f cpu_s=%.3f packets=%.0f us_per_packet=%.1f\n", c2h_s,
	       c2h_cpu, pkts, c2h_s * 1e6 / pkts);
	printf("BENCH pcie.memcpy bytes=%zu wall_s=%.4f mbps=%.1f\n", 2 * bytes, best,
	       2 * bytes / best / 1e6);
	printf("BENCH pcie.crc32c bytes=%zu wall_s=%.4f mbps=%.1f crc=%08x\n", bytes, crc_s,
	       bytes / crc_s / 1e6, crc);
	free(src);
	free(back);
	free(dst);
	return 0;
}
