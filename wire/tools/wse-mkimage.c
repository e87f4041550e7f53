/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse-mkimage - build or check a firmware image (docs/firmware-image.md).
 *   wse-mkimage --compatible C --bitstream F [--firmware F] [--dtb F]
 *               [--version N] [--build-id S] [--flash-bytes N] -o OUT
 *   wse-mkimage --check IMAGE [--compatible C] [--flash-bytes N]
 *   wse-mkimage --factory GOLDEN --flash-bytes N [--compatible C] -o FLASH
 *   wse-mkimage --jump ADDR -o OUT
 * --version and --build-id apply to every part; --flash-bytes limits the
 * image to a slot of that flash's layout. --factory writes a whole flash
 * as a board leaves the factory (docs/firmware-image.md, "Flash layout"):
 * the image GOLDEN in the golden slot, the boot stub and the fallback jump
 * both pointing at its bitstream, everything else erased. --jump writes
 * the 58-byte ECP5 jump to ADDR alone. Exit status 0, 1 for a refused
 * image or a failed build, 2 for a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_image.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: wse-mkimage --compatible C --bitstream F [--firmware F] [--dtb F]\n"
		"                   [--version N] [--build-id S] [--flash-bytes N] -o OUT\n"
		"       wse-mkimage --check IMAGE [--compatible C] [--flash-bytes N]\n"
		"       wse-mkimage --factory GOLDEN --flash-bytes N [--compatible C] -o FLASH\n"
		"       wse-mkimage --jump ADDR -o OUT\n");
	exit(2);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		fprintf(stderr, "wse-mkimage: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			if (cap > (size_t)WSE_IMAGE_MAX_BYTES * 2 ||
			    !(buf = realloc(buf, cap))) {
				fprintf(stderr, "wse-mkimage: %s: too large\n", path);
				exit(1);
			}
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "wse-mkimage: %s: read error\n", path);
		exit(1);
	}
	fclose(f);
	*len = n;
	return buf;
}

static unsigned long number(const char *s, const char *opt)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > 0xffffffffu) {
		fprintf(stderr, "wse-mkimage: %s: not a 32-bit number: %s\n",
			opt, s);
		exit(2);
	}
	return v;
}

static int check(const char *path, const char *compat, uint32_t max_bytes)
{
	size_t len;
	uint8_t *buf = slurp(path, &len);
	struct wse_image img;
	char err[200];

	int r = wse_image_check(buf, len, compat, max_bytes, &img, err,
				sizeof(err));
	if (r) {
		fprintf(stderr, "wse-mkimage: %s: %s\n", path, err);
		free(buf);
		return 1;
	}
	printf("%s: firmware image %u.%u for \"%s\", %u bytes, header %u "
	       "bytes, header CRC-32C 0x%08x\n", path, img.major, img.minor,
	       img.compatible, (unsigned)img.total_bytes,
	       (unsigned)img.header_bytes, (unsigned)img.header_crc);
	printf("  %-10s %10s %10s %10s %10s  %s\n", "part", "offset", "length",
	       "crc32c", "version", "build-id");
	for (unsigned i = 0; i < img.count; i++) {
		const struct wse_image_part *q = &img.parts[i];
		printf("  %-10s 0x%08x %10u 0x%08x %10u  %s\n",
		       wse_image_part_name(q->type), (unsigned)q->offset,
		       (unsigned)q->length, (unsigned)q->crc,
		       (unsigned)q->version, q->build_id);
	}
	free(buf);
	return 0;
}

static int write_file(const char *out, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(out, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "wse-mkimage: %s: %s\n", out, strerror(errno));
		remove(out);
		return 1;
	}
	return 0;
}

/* The flash of a new board: the golden image, and both jumps to it. */
static int factory(const char *golden, const char *compat, uint32_t flash_bytes,
		   const char *out)
{
	struct wse_flash_layout l;
	struct wse_image img;
	char err[200];
	size_t len;
	if (wse_flash_layout(flash_bytes, &l)) {
		fprintf(stderr, "wse-mkimage: --factory needs --flash-bytes, "
			"a power of two from 256 KiB\n");
		return 2;
	}
	uint8_t *g = slurp(golden, &len);
	if (wse_image_check(g, len, compat, l.slot_bytes, &img, err, sizeof(err))) {
		fprintf(stderr, "wse-mkimage: %s: %s\n", golden, err);
		free(g);
		return 1;
	}
	uint8_t *fl = malloc(flash_bytes);
	if (!fl) {
		fprintf(stderr, "wse-mkimage: out of memory\n");
		free(g);
		return 1;
	}
	memset(fl, 0xFF, flash_bytes);
	memcpy(fl + l.golden_offset, g, len);
	uint32_t at = l.golden_offset +
		      wse_image_find(&img, WSE_IMAGE_PART_BITSTREAM)->offset;
	wse_ecp5_jump_encode(at, fl + l.stub_offset, WSE_ECP5_JUMP_BYTES);
	wse_ecp5_jump_encode(at, fl + l.fallback_jump, WSE_ECP5_JUMP_BYTES);
	int r = write_file(out, fl, flash_bytes);
	free(fl);
	free(g);
	return r;
}

int main(int argc, char **argv)
{
	const char *compat = NULL, *out = NULL, *check_path = NULL;
	const char *build_id = NULL, *files[4] = {0}, *golden = NULL, *jump = NULL;
	uint32_t version = 0, max_bytes = 0, flash_bytes = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			usage();
		const char *v = argv[++i];
		if (!strcmp(a, "--compatible"))
			compat = v;
		else if (!strcmp(a, "--bitstream"))
			files[WSE_IMAGE_PART_BITSTREAM] = v;
		else if (!strcmp(a, "--firmware"))
			files[WSE_IMAGE_PART_FIRMWARE] = v;
		else if (!strcmp(a, "--dtb"))
			files[WSE_IMAGE_PART_DTB] = v;
		else if (!strcmp(a, "--version"))
			version = (uint32_t)number(v, a);
		else if (!strcmp(a, "--build-id"))
			build_id = v;
		else if (!strcmp(a, "--flash-bytes")) {
			struct wse_flash_layout l;
			if (wse_flash_layout((uint32_t)number(v, a), &l)) {
				fprintf(stderr, "wse-mkimage: --flash-bytes: "
					"a power of two from 256 KiB\n");
				return 2;
			}
			max_bytes = l.slot_bytes;
			flash_bytes = (uint32_t)number(v, a);
		} else if (!strcmp(a, "--factory"))
			golden = v;
		else if (!strcmp(a, "--jump"))
			jump = v;
		else if (!strcmp(a, "-o"))
			out = v;
		else if (!strcmp(a, "--check"))
			check_path = v;
		else
			usage();
	}
	if (jump) {
		uint8_t j[WSE_ECP5_JUMP_BYTES];
		if (!out || golden || check_path)
			usage();
		if (wse_ecp5_jump_encode((uint32_t)number(jump, "--jump"), j, sizeof(j)) < 0) {
			fprintf(stderr, "wse-mkimage: --jump: an address under 16 MiB\n");
			return 2;
		}
		return write_file(out, j, sizeof(j));
	}
	if (golden) {
		if (!out || check_path || files[1] || files[2] || files[3])
			usage();
		return factory(golden, compat, flash_bytes, out);
	}
	if (check_path) {
		if (out || files[1] || files[2] || files[3])
			usage();
		return check(check_path, compat, max_bytes);
	}
	if (!compat || !out || !files[WSE_IMAGE_PART_BITSTREAM])
		usage();

	struct wse_image_builder b;
	uint8_t *data[4] = {0};
	char err[200];
	if (wse_image_init(&b, compat)) {
		fprintf(stderr, "wse-mkimage: --compatible: 1 to %u bytes\n",
			WSE_IMAGE_COMPAT_BYTES - 1);
		return 2;
	}
	for (unsigned t = WSE_IMAGE_PART_BITSTREAM; t <= WSE_IMAGE_PART_DTB; t++) {
		size_t len;
		if (!files[t])
			continue;
		data[t] = slurp(files[t], &len);
		if (len > WSE_IMAGE_MAX_BYTES) {
			fprintf(stderr, "wse-mkimage: %s: too large\n", files[t]);
			return 1;
		}
		int r = wse_image_add(&b, t, data[t], (uint32_t)len, version,
				      build_id, err, sizeof(err));
		if (r) {
			fprintf(stderr, "wse-mkimage: %s: %s\n", files[t], err);
			return 1;
		}
	}
	int size = wse_image_write(&b, NULL, 0);
	uint8_t *img = size > 0 ? malloc((size_t)size) : NULL;
	if (!img || wse_image_write(&b, img, (size_t)size) != size) {
		fprintf(stderr, "wse-mkimage: cannot write the image\n");
		return 1;
	}
	struct wse_image parsed;
	if (wse_image_check(img, (size_t)size, compat, max_bytes, &parsed, err,
			    sizeof(err))) {
		fprintf(stderr, "wse-mkimage: %s\n", err);
		return 1;
	}
	if (write_file(out, img, (size_t)size))
		return 1;
	for (unsigned t = 0; t < 4; t++)
		free(data[t]);
	free(img);
	return 0;
}
