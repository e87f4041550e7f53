/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_image: libFuzzer harness for the firmware image checker
 * (wsemu/wse_image.h). The input is an image; when its first byte is odd,
 * the harness gives it correct part and header CRCs first, so that the
 * checks behind the CRCs are reached. Every image the checker accepts must
 * rebuild, through the builder, to the same bytes. Built with ASan+UBSan:
 * any read outside the input is a crash.
 *   short run: make test-wire;  long run: make fuzz-wire FUZZ_TIME=s
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_image.h"

static void fix_crcs(uint8_t *b, size_t n)
{
	if (n < WSE_IMAGE_HDR_BYTES)
		return;
	unsigned count = wse_get_le16(b + WSE_IMAGE_OFF_COUNT) % 9;
	uint32_t hb = WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * count;
	wse_put_le16(b + WSE_IMAGE_OFF_COUNT, (uint16_t)count);
	wse_put_le32(b + WSE_IMAGE_OFF_HDR_BYTES, hb);
	if (n < hb)
		return;
	for (unsigned i = 0; i < count; i++) {
		uint8_t *e = b + WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * i;
		uint32_t off = wse_get_le32(e + WSE_IMAGE_POFF_OFFSET);
		uint32_t len = wse_get_le32(e + WSE_IMAGE_POFF_LENGTH);
		if (off <= n && len <= n - off)
			wse_put_le32(e + WSE_IMAGE_POFF_CRC,
				     wse_crc32c_update(0, b + off, len));
	}
	uint32_t crc = wse_crc32c_update(0, b, WSE_IMAGE_OFF_HCRC);
	wse_put_le32(b + WSE_IMAGE_OFF_HCRC,
		     wse_crc32c_update(crc, b + WSE_IMAGE_HDR_BYTES,
				       hb - WSE_IMAGE_HDR_BYTES));
}

/* An accepted image, rebuilt from its parts, is the same image. */
static void rebuild(const uint8_t *b, size_t n, const struct wse_image *img)
{
	struct wse_image_builder bl;
	if (wse_image_init(&bl, img->compatible))
		abort();
	for (unsigned i = 0; i < img->count; i++) {
		const struct wse_image_part *q = &img->parts[i];
		if (wse_image_add(&bl, q->type, q->data, q->length, q->version,
				  q->build_id, NULL, 0))
			abort();
	}
	int size = wse_image_write(&bl, NULL, 0);
	if (size <= 0)
		abort();
	uint8_t *out = malloc((size_t)size);
	if (!out || wse_image_write(&bl, out, (size_t)size) != size)
		abort();
	/* The builder lays parts out in order, densely: whenever the input
	 * was laid out that way (and is of this minor), the bytes agree. */
	int dense = (size_t)size == n && img->minor == WSE_IMAGE_MINOR;
	for (unsigned i = 0; dense && i < img->count; i++)
		dense = wse_get_le32(out + WSE_IMAGE_HDR_BYTES +
				     WSE_IMAGE_PART_BYTES * i +
				     WSE_IMAGE_POFF_OFFSET) == img->parts[i].offset;
	if (dense && memcmp(out, b, n))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return 0;
	memcpy(b, data + 1, n);
	if (data[0] & 1)
		fix_crcs(b, n);
	struct wse_image img;
	char err[160];
	int r = wse_image_check(b, n, NULL, 0, &img, err, sizeof(err));
	if (r > 0 || (r < 0 && !err[0]))
		abort();
	if (r == 0) {
		rebuild(b, n, &img);
		if (wse_image_check(b, n, "wsemu,ulx3s-85f", 0x7f0000, &img,
				    err, sizeof(err)) > 0)
			abort();
	}
	free(b);
	return 0;
}
