/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flash_ops: wsemu-fast's flash requests (docs/protocol.md 4.11,
 * docs/wsemu-fast.md "Flash") through libwsehost, on sim-2x2 with the flash
 * file FILE of 1 MiB: an erased flash, NOR programming (AND), erase to
 * 0xFF, RANGE and ALIGN, VERIFY with the flash's CRC, contents kept across
 * a restart, and a power cut (--flash-kill-after) in the middle of a
 * program leaving exactly the bytes before it written.
 *   flash_ops FILE      ($WSEMU_FAST names the simulator)
 * Exit status 0 when every check passes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"

#define MIB 0x100000u
#define SECTOR 0x10000u

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
	setenv("WSEMU_FAST_OPTS", opts, 1);
	wse_device *d = NULL;
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 10000};
	int r = wse_open(&d, "sim:board=sim-2x2,model=fast", &o);
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
	if (argc != 2) {
		fprintf(stderr, "usage: flash_ops FILE\n");
		return 2;
	}
	const char *file = argv[1];
	remove(file);
	static uint8_t buf[3 * SECTOR], pat[5000];
	wse_device *d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, MIB - 3 * SECTOR, buf, sizeof(buf)) == 0 &&
		      all(buf, sizeof(buf), 0xFF), "a new flash reads 0xFF");
	for (size_t i = 0; i < sizeof(pat); i++)
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
	CHECK(wse_flash_program(d, 2 * SECTOR, pat, sizeof(pat)) == 0, "program pattern");
	uint32_t crc = wse_crc32c(0, pat, sizeof(pat));
	CHECK(wse_flash_verify(d, 2 * SECTOR, sizeof(pat), crc) == 0, "verify");
	CHECK(wse_flash_verify(d, 2 * SECTOR, sizeof(pat), crc ^ 1) == WSE_ERROR_VERIFY,
	      "verify mismatch");
	wse_close(d);

	/* a restarted simulator has the same flash */
	d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, 2 * SECTOR, buf, sizeof(pat)) == 0 &&
		      !memcmp(buf, pat, sizeof(pat)), "the flash kept across a restart");
	wse_close(d);

	/* a power cut after 3000 bytes of a 5000-byte program (sent in
	 * packets of at most 4088 bytes): the first 3000 written, no more */
	d = open_dev(file, "--flash-kill-after 3000");
	if (!d)
		return 1;
	CHECK(wse_flash_program(d, 4 * SECTOR, pat, sizeof(pat)) != 0, "a cut program fails");
	wse_close(d);
	d = open_dev(file, "");
	if (!d)
		return 1;
	CHECK(wse_flash_read(d, 4 * SECTOR, buf, sizeof(pat)) == 0 && !memcmp(buf, pat, 3000) &&
		      all(buf + 3000, sizeof(pat) - 3000, 0xFF),
	      "a cut at byte 3000 leaves bytes 0..2999 written, the rest erased");
	wse_close(d);
	if (!fails)
		printf("flash_ops: wsemu-fast's flash requests PASS\n");
	return fails ? 1 : 0;
}
