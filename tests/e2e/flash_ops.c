/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flash_ops: the flash requests (docs/protocol.md 4.11) through
 * libwsehost, on sim-2x2 with the flash file FILE: an erased flash, NOR
 * programming (AND), erase to 0xFF, RANGE and ALIGN, VERIFY with the
 * flash's CRC, contents kept across a restart, and a power cut in the
 * middle of a program leaving exactly the bytes before it written.
 *   flash_ops FILE [fast|rtl|board]
 * fast (the default): wsemu-fast ($WSEMU_FAST) with a 1 MiB flash, the cut
 * by --flash-kill-after (docs/wsemu-fast.md, "Flash"); rtl: wsemu-sim
 * ($WSEMU_SIM) with a 256 KiB flash on the RTL's SPI controller, the cut
 * by --fault flash:N (docs/wsemu-sim.md, "Flash"); board: the ULX3S's
 * board top ($WSEMU_SIM naming wsemu-board-sim) with the 16 MiB flash of
 * its .dts, reached through the UART, the top's flash pins and USRMCLK,
 * with fewer bytes (the UART moves a byte in about 83 clocks).
 * Exit status 0 when every check passes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"

#define SECTOR 0x10000u

static unsigned MIB = 0x100000u; /* the flash's bytes */
static int rtl;                  /* wsemu-sim's options, not wsemu-fast's */
static const char *uri = "sim:board=sim-2x2,model=fast";

static int fails;
#define CHECK(c, ...)                                                   \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "flash_ops: FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                   \
			fputc('\n', stderr);                            \
			fails++;                                        \
		}                                                       \
	} while (0)

/* A simulator on the flash file, with extra options. */
static wse_device *open_dev(const char *file, const char *extra)
{
	char opts[1024];
	snprintf(opts, sizeof(opts), "--quiet --flash-bytes %u --flash-file %s %s", MIB, file,
		 extra);
	setenv(rtl ? "WSEMU_SIM_OPTS" : "WSEMU_FAST_OPTS", opts, 1);
	wse_device *d = NULL;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 60000};
	int r = wse_open(&d, uri, &o);
	CHECK(r == 0, "open: %s", wse_strerror(r));
	return r ? NULL : d;
}

static int all(const uint8_t *b, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 3 ? argv[2] : "fast";
	if (argc < 2 || argc > 3 ||
	    (strcmp(mode, "fast") && strcmp(mode, "rtl") && strcmp(mode, "board"))) {
		fprintf(stderr, "usage: flash_ops FILE [fast|rtl|board]\n");
		return 2;
	}
	const char *file = argv[1];
	int board = !strcmp(mode, "board");
	rtl = strcmp(mode, "fast") != 0;
	if (board) {
		uri = "sim:board=ulx3s-85f";
		MIB = 0x1000000u;
	} else if (rtl) {
		uri = "sim:board=sim-2x2,model=rtl";
		MIB = 4 * SECTOR;
	}
	/* the RTL moves a byte in about 19 link cycles, the board's UART in
	 * about 83: smaller amounts, and the cut inside one program packet
	 * instead of across two */
	const size_t fresh = board ? 256 : rtl ? 1024 : 3 * SECTOR;
	const size_t np = board ? 300 : rtl ? 1200 : 5000;
	const unsigned cut = board ? 170 : rtl ? 700 : 3000;
	char cutopt[64];
	snprintf(cutopt, sizeof(cutopt), rtl ? "--fault flash:%u" : "--flash-kill-after %u", cut);
	remove(file);
	static uint8_t buf[3 * SECTOR], pat[5000];
	wse_device *d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, MIB - fresh, buf, fresh) == 0 && all(buf, fresh, 0xFF),
	      "a new flash reads 0xFF");
	for (size_t i = 0; i < np; i++)
		pat[i] = (uint8_t)(i * 13 + 7);
	/* NOR: a program ANDs; a second program cannot set bits */
	uint8_t f0[4] = {0xF0, 0xF0, 0x0F, 0xFF}, c3[4] = {0x3C, 0xFF, 0xFF, 0x00}, rd[4];
	CHECK(wse_flash_program(d, 100, f0, 4) == 0, "program");
	CHECK(wse_flash_program(d, 100, c3, 4) == 0, "program over");
	CHECK(wse_flash_read(d, 100, rd, 4) == 0 && rd[0] == 0x30 && rd[1] == 0xF0 &&
		      rd[2] == 0x0F && rd[3] == 0x00,
	      "NOR AND: %02x %02x %02x %02x", rd[0], rd[1], rd[2], rd[3]);
	/* erase: whole sectors to 0xFF; RANGE and ALIGN */
	CHECK(wse_flash_erase(d, 0, SECTOR) == 0, "erase");
	CHECK(wse_flash_read(d, 0, buf, 256) == 0 && all(buf, 256, 0xFF), "erased");
	CHECK(wse_flash_erase(d, 100, SECTOR) == WSE_ERROR_ALIGN, "erase ALIGN (offset)");
	CHECK(wse_flash_erase(d, 0, 4096) == WSE_ERROR_ALIGN, "erase ALIGN (length)");
	CHECK(wse_flash_erase(d, MIB, SECTOR) == WSE_ERROR_RANGE, "erase RANGE");
	CHECK(wse_flash_read(d, MIB - 2, rd, 4) == WSE_ERROR_RANGE, "read RANGE");
	CHECK(wse_flash_program(d, MIB - 2, f0, 4) == WSE_ERROR_RANGE, "program RANGE");
	CHECK(wse_flash_verify(d, MIB - 2, 4, 0) == WSE_ERROR_RANGE, "verify RANGE");
	/* VERIFY: OK with the right CRC, VERIFY with another */
	CHECK(wse_flash_program(d, 2 * SECTOR, pat, np) == 0, "program pattern");
	uint32_t crc = wse_crc32c(0, pat, np);
	CHECK(wse_flash_verify(d, 2 * SECTOR, np, crc) == 0, "verify");
	CHECK(wse_flash_verify(d, 2 * SECTOR, np, crc ^ 1) == WSE_ERROR_VERIFY,
	      "verify mismatch");
	wse_close(d);

	/* a restarted simulator has the same flash */
	d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, 2 * SECTOR, buf, np) == 0 && !memcmp(buf, pat, np),
	      "the flash kept across a restart");
	wse_close(d);

	/* a power cut after 3000 bytes of a 5000-byte program (sent in
	 * packets of at most 4088 bytes; rtl: 700 of 1200, board: 170 of
	 * 300): the first 3000 written, no more */
	d = open_dev(file, cutopt);
	if (!d)
		return 1;
	CHECK(wse_flash_program(d, 3 * SECTOR, pat, np) != 0, "a cut program fails");
	wse_close(d);
	d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, 3 * SECTOR, buf, np) == 0 && !memcmp(buf, pat, cut) &&
		      all(buf + cut, np - cut, 0xFF),
	      "a cut at byte %u leaves the bytes before it written, the rest erased", cut);
	wse_close(d);
	if (!fails)
		printf("flash_ops: %s's flash requests PASS\n",
		       board ? "the ULX3S board top" : rtl ? "wsemu-sim" : "wsemu-fast");
	return fails ? 1 : 0;
}
