/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_image: the firmware image container (wsemu/wse_image.h). Round
 * trip; every refusal of wse_image_check() on a crafted image with its
 * error text; every single-byte corruption and every truncation of a small
 * image refused; the builder's refusals; the flash layouts; the boot
 * record: round trip, every truncation and byte change, torn writes in
 * the log.
 *   test_image                     run the tests
 *   test_image --write-corpus DIR  write seed images for fuzz_image
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "wsemu/wse_image.h"

#define COMPAT "wsemu,ulx3s-85f"

static uint8_t bits[200], elf[100], dtb[48];
static uint8_t img[4096];
static int img_len;
static char err[256];
static struct wse_image parsed;

static void make_parts(void)
{
	for (size_t i = 0; i < sizeof(bits); i++)
		bits[i] = (uint8_t)(i * 7 + 1);
	memset(elf, 0, sizeof(elf));
	memcpy(elf, "\177ELF\1\1\1", 7);
	wse_put_le16(elf + 16, 2);   /* ET_EXEC */
	wse_put_le16(elf + 18, 243); /* EM_RISCV */
	memset(dtb, 0, sizeof(dtb));
	const uint8_t hdr[8] = {0xd0, 0x0d, 0xfe, 0xed, 0, 0, 0, sizeof(dtb)};
	memcpy(dtb, hdr, sizeof(hdr));
}

/* A small image: bitstream, firmware, DTB. */
static int build(uint8_t *out, size_t cap)
{
	struct wse_image_builder b;
	make_parts();
	assert_int_equal(wse_image_init(&b, COMPAT), 0);
	assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_BITSTREAM, bits,
				       sizeof(bits), 7, "v1.2-3-gabcdef", NULL, 0), 0);
	assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_FIRMWARE, elf,
				       sizeof(elf), 8, "fw-1", NULL, 0), 0);
	assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_DTB, dtb,
				       sizeof(dtb), 9, NULL, NULL, 0), 0);
	return wse_image_write(&b, out, cap);
}

static int setup(void **state)
{
	(void)state;
	img_len = build(img, sizeof(img));
	return img_len > 0 ? 0 : -1;
}

static int check(const uint8_t *buf, size_t len)
{
	err[0] = 0;
	return wse_image_check(buf, len, COMPAT, 0x7f0000, &parsed, err,
			       sizeof(err));
}

static uint8_t *entry(uint8_t *b, unsigned i)
{
	return b + WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * i;
}

/* Re-sign a crafted image: part CRCs, then the header CRC. */
static void resign(uint8_t *b)
{
	uint32_t hb = wse_get_le32(b + WSE_IMAGE_OFF_HDR_BYTES);
	unsigned n = wse_get_le16(b + WSE_IMAGE_OFF_COUNT);
	for (unsigned i = 0; i < n && i < WSE_IMAGE_MAX_PARTS; i++) {
		uint8_t *e = entry(b, i);
		uint32_t off = wse_get_le32(e + WSE_IMAGE_POFF_OFFSET);
		uint32_t len = wse_get_le32(e + WSE_IMAGE_POFF_LENGTH);
		if ((uint64_t)off + len <= sizeof(img))
			wse_put_le32(e + WSE_IMAGE_POFF_CRC,
				     wse_crc32c_update(0, b + off, len));
	}
	if (hb >= WSE_IMAGE_HDR_BYTES && hb <= sizeof(img)) {
		uint32_t crc = wse_crc32c_update(0, b, WSE_IMAGE_OFF_HCRC);
		crc = wse_crc32c_update(crc, b + WSE_IMAGE_HDR_BYTES,
					hb - WSE_IMAGE_HDR_BYTES);
		wse_put_le32(b + WSE_IMAGE_OFF_HCRC, crc);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	struct wse_image_builder b;
	make_parts();
	assert_int_equal(img_len, 1280); /* parts at 512, 768, 1024 */
	assert_int_equal(check(img, (size_t)img_len), 0);
	assert_int_equal(parsed.major, WSE_IMAGE_MAJOR);
	assert_int_equal(parsed.minor, WSE_IMAGE_MINOR);
	assert_int_equal(parsed.header_bytes, 96 + 3 * 64);
	assert_int_equal(parsed.total_bytes, (uint32_t)img_len);
	assert_string_equal(parsed.compatible, COMPAT);
	assert_int_equal(parsed.count, 3);
	const struct wse_image_part *p =
		wse_image_find(&parsed, WSE_IMAGE_PART_BITSTREAM);
	assert_non_null(p);
	assert_int_equal(p->offset, 512);
	assert_int_equal(p->length, sizeof(bits));
	assert_int_equal(p->version, 7);
	assert_string_equal(p->build_id, "v1.2-3-gabcdef");
	assert_int_equal(p->crc, wse_crc32c_update(0, bits, sizeof(bits)));
	assert_memory_equal(p->data, bits, sizeof(bits));
	p = wse_image_find(&parsed, WSE_IMAGE_PART_FIRMWARE);
	assert_non_null(p);
	assert_int_equal(p->offset, 768);
	assert_memory_equal(p->data, elf, sizeof(elf));
	assert_string_equal(p->build_id, "fw-1");
	p = wse_image_find(&parsed, WSE_IMAGE_PART_DTB);
	assert_non_null(p);
	assert_int_equal(p->offset, 1024);
	assert_int_equal(p->version, 9);
	assert_string_equal(p->build_id, "");
	assert_memory_equal(p->data, dtb, sizeof(dtb));
	/* No board check, no size limit. */
	assert_int_equal(wse_image_check(img, (size_t)img_len, NULL, 0, &parsed,
					 NULL, 0), 0);

	/* Size query, a short buffer, a bitstream alone. */
	assert_int_equal(wse_image_init(&b, COMPAT), 0);
	assert_int_equal(wse_image_write(&b, NULL, 0), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_BITSTREAM, bits, 1, 0,
				       NULL, NULL, 0), 0);
	assert_int_equal(wse_image_write(&b, NULL, 0), 512);
	uint8_t small[512];
	assert_int_equal(wse_image_write(&b, small, 511), WSE_ERROR_OVERFLOW);
	assert_int_equal(wse_image_write(&b, NULL, 5), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_write(&b, small, sizeof(small)), 512);
	assert_int_equal(check(small, sizeof(small)), 0);
	assert_int_equal(parsed.count, 1);
	assert_null(wse_image_find(&parsed, WSE_IMAGE_PART_DTB));
}

static void test_builder_refusals(void **state)
{
	(void)state;
	struct wse_image_builder b;
	char longc[80];
	memset(longc, 'a', sizeof(longc) - 1);
	longc[sizeof(longc) - 1] = 0;
	make_parts();
	assert_int_equal(wse_image_init(NULL, COMPAT), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_init(&b, ""), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_init(&b, longc), WSE_ERROR_INVALID_PARAM);
	longc[64] = 0;
	assert_int_equal(wse_image_init(&b, longc), WSE_ERROR_INVALID_PARAM);
	longc[63] = 0;
	assert_int_equal(wse_image_init(&b, longc), 0);

	assert_int_equal(wse_image_init(&b, COMPAT), 0);
	assert_int_equal(wse_image_add(&b, 4, bits, 1, 0, NULL, err, sizeof(err)),
			 WSE_ERROR_INVALID_PARAM);
	assert_string_equal(err, "part type 4 unknown");
	assert_int_equal(wse_image_add(&b, 1, bits, 0, 0, NULL, NULL, 0),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_add(&b, 1, NULL, 5, 0, NULL, NULL, 0),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_add(&b, 1, bits, 5, 0, longc, err, sizeof(err)),
			 WSE_ERROR_INVALID_PARAM);
	assert_string_equal(err, "part bitstream: build id longer than 31 bytes");
	assert_int_equal(wse_image_add(&b, 1, bits, 5, 0, NULL, NULL, 0), 0);
	assert_int_equal(wse_image_add(&b, 1, bits, 5, 0, NULL, err, sizeof(err)),
			 WSE_ERROR_MALFORMED);
	assert_string_equal(err, "part bitstream: the image has one already");
	assert_int_equal(wse_image_add(&b, 2, bits, sizeof(bits), 0, NULL, err,
				       sizeof(err)), WSE_ERROR_MALFORMED);
	assert_string_equal(err, "part firmware: not a RISC-V ELF32 little-endian file");
	assert_int_equal(wse_image_add(&b, 3, dtb, sizeof(dtb) - 1, 0, NULL, err,
				       sizeof(err)), WSE_ERROR_MALFORMED);
	assert_string_equal(err, "part dtb: not a device tree blob of 47 bytes");
	/* Optional types up to the part limit. */
	for (unsigned t = 0; t < WSE_IMAGE_MAX_PARTS - 1; t++)
		assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_OPTIONAL + t,
					       bits, 3, t, NULL, NULL, 0), 0);
	assert_int_equal(wse_image_add(&b, WSE_IMAGE_PART_OPTIONAL + 9, bits, 3,
				       0, NULL, err, sizeof(err)),
			 WSE_ERROR_OVERFLOW);
	assert_string_equal(err, "more than 8 parts");
	uint8_t big[4096];
	int n = wse_image_write(&b, big, sizeof(big));
	assert_true(n > 0);
	assert_int_equal(check(big, (size_t)n), 0);
	assert_int_equal(parsed.count, WSE_IMAGE_MAX_PARTS);
	assert_string_equal(wse_image_part_name(WSE_IMAGE_PART_OPTIONAL), "unknown");
	/* An image over the limit. */
	assert_int_equal(wse_image_init(&b, COMPAT), 0);
	assert_int_equal(wse_image_add(&b, 1, bits, 0x7ffffe00u, 0, NULL, NULL, 0), 0);
	assert_int_equal(wse_image_add(&b, 0x8001, bits, 0x200, 0, NULL, err,
				       sizeof(err)), WSE_ERROR_LENGTH);
}

/* One crafted image: mutate a copy, re-sign it when asked, expect the
 * error and its text. */
struct craft {
	const char *what;
	void (*mutate)(uint8_t *b, size_t *len);
	int sign;
	int want;
	const char *text;
};

static void m_magic(uint8_t *b, size_t *l) { (void)l; b[0] = 'X'; }
static void m_major(uint8_t *b, size_t *l) { (void)l; wse_put_le16(b + 4, 2); }
static void m_minor(uint8_t *b, size_t *l) { (void)l; wse_put_le16(b + 6, 5); }
static void m_hcrc(uint8_t *b, size_t *l) { (void)l; b[WSE_IMAGE_OFF_COMPAT + 1] ^= 1; }
static void m_table(uint8_t *b, size_t *l) { (void)l; entry(b, 2)[WSE_IMAGE_POFF_VERSION] ^= 1; }
static void m_count(uint8_t *b, size_t *l) { (void)l; wse_put_le16(b + 16, 9); }
static void m_hbytes(uint8_t *b, size_t *l) { (void)l; wse_put_le32(b + 8, 96 + 64 * 2); }
static void m_flags(uint8_t *b, size_t *l) { (void)l; b[WSE_IMAGE_OFF_FLAGS] = 0x80; }
static void m_rsvd0(uint8_t *b, size_t *l) { (void)l; b[WSE_IMAGE_OFF_RSVD0 + 3] = 1; }
static void m_rsvd1(uint8_t *b, size_t *l) { (void)l; b[WSE_IMAGE_OFF_RSVD1] = 1; }
static void m_prsvd(uint8_t *b, size_t *l) { (void)l; entry(b, 1)[WSE_IMAGE_POFF_RSVD + 8] = 4; }
static void m_pflags(uint8_t *b, size_t *l) { (void)l; entry(b, 0)[WSE_IMAGE_POFF_FLAGS + 1] = 1; }
static void m_compat_pad(uint8_t *b, size_t *l) { (void)l; b[WSE_IMAGE_OFF_COMPAT + 40] = 'x'; }
static void m_compat_empty(uint8_t *b, size_t *l) { (void)l; memset(b + WSE_IMAGE_OFF_COMPAT, 0, 64); }
static void m_compat_unterm(uint8_t *b, size_t *l) { (void)l; memset(b + WSE_IMAGE_OFF_COMPAT, 'a', 64); }
static void m_id_pad(uint8_t *b, size_t *l) { (void)l; entry(b, 0)[WSE_IMAGE_POFF_BUILD_ID + 31] = 'z'; }
static void m_type(uint8_t *b, size_t *l) { (void)l; wse_put_le16(entry(b, 2), 77); }
static void m_dup(uint8_t *b, size_t *l) { (void)l; wse_put_le16(entry(b, 2), WSE_IMAGE_PART_FIRMWARE); }
static void m_nobits(uint8_t *b, size_t *l) { (void)l; wse_put_le16(entry(b, 0), 0x8000); }
static void m_len0(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 2) + WSE_IMAGE_POFF_LENGTH, 0); }
static void m_talign(uint8_t *b, size_t *l) { (void)l; wse_put_le32(b + 12, 1000); }
static void m_palign(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 1) + 4, 770); }
static void m_tsmall(uint8_t *b, size_t *l) { (void)l; wse_put_le32(b + 12, 256); }
static void m_inhdr(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 2) + 4, 256); }
static void m_past(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 2) + 8, 257); }
static void m_past_wrap(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 2) + 8, 0xffffff80u); }
static void m_overlap(uint8_t *b, size_t *l) { (void)l; wse_put_le32(entry(b, 0) + 8, 257); }
static void m_big(uint8_t *b, size_t *l) { wse_put_le32(b + 12, 0x7f0100); *l = 0x7f0100; }
static void m_other(uint8_t *b, size_t *l) { (void)l; memcpy(b + WSE_IMAGE_OFF_COMPAT, "wsemu,sim-4x4\0\0", 16); }
static void m_short(uint8_t *b, size_t *l) { (void)b; *l -= 256; }
static void m_long(uint8_t *b, size_t *l) { (void)b; *l += 1; }
static void m_pad(uint8_t *b, size_t *l) { (void)l; b[300] = 1; }
static void m_pad_end(uint8_t *b, size_t *l) { b[*l - 1] = 0xff; }
static void m_pcrc(uint8_t *b, size_t *l) { (void)l; b[800] ^= 0x40; }
static void m_elf(uint8_t *b, size_t *l) { (void)l; b[768 + 18] = 62; }
static void m_dtbsize(uint8_t *b, size_t *l) { (void)l; b[1024 + 7] = 40; }

static const struct craft crafts[] = {
	{"bad magic", m_magic, 1, WSE_ERROR_BAD_MAGIC, "bad magic 0x49455358, not \"WSEI\""},
	{"unknown major", m_major, 1, WSE_ERROR_VERSION, "unknown format version 2.0 (this reader: 1.x)"},
	{"newer minor", m_minor, 1, 0, ""},
	{"header CRC", m_hcrc, 0, WSE_ERROR_HEADER_CRC, "header CRC-32C 0x"},
	{"part table CRC", m_table, 0, WSE_ERROR_HEADER_CRC, "header CRC-32C 0x"},
	{"part count", m_count, 1, WSE_ERROR_MALFORMED, "header: 9 parts with a header of 288 bytes (1 to 8 parts, 96 + 64 bytes each)"},
	{"header length", m_hbytes, 1, WSE_ERROR_MALFORMED, "header: 3 parts with a header of 224 bytes"},
	{"header flags", m_flags, 1, WSE_ERROR_MALFORMED, "header: reserved field or flag set (flags 0x0080, reserved 0x00000000 0x00000000)"},
	{"header reserved", m_rsvd0, 1, WSE_ERROR_MALFORMED, "header: reserved field or flag set (flags 0x0000, reserved 0x01000000 0x00000000)"},
	{"header reserved 2", m_rsvd1, 1, WSE_ERROR_MALFORMED, "header: reserved field or flag set (flags 0x0000, reserved 0x00000000 0x00000001)"},
	{"part reserved", m_prsvd, 1, WSE_ERROR_MALFORMED, "part 1 (firmware): reserved field or flag set"},
	{"part flags", m_pflags, 1, WSE_ERROR_MALFORMED, "part 0 (bitstream): reserved field or flag set"},
	{"compatible padding", m_compat_pad, 1, WSE_ERROR_MALFORMED, "header: compatible empty, unterminated or not NUL-padded"},
	{"compatible empty", m_compat_empty, 1, WSE_ERROR_MALFORMED, "header: compatible empty, unterminated or not NUL-padded"},
	{"compatible unterminated", m_compat_unterm, 1, WSE_ERROR_MALFORMED, "header: compatible empty, unterminated or not NUL-padded"},
	{"build id padding", m_id_pad, 1, WSE_ERROR_MALFORMED, "part 0 (bitstream): build id unterminated or not NUL-padded"},
	{"unknown type", m_type, 1, WSE_ERROR_MALFORMED, "part 2: unknown type 77"},
	{"duplicate type", m_dup, 1, WSE_ERROR_MALFORMED, "parts 1 and 2: both of type 2 (firmware)"},
	{"no bitstream", m_nobits, 1, WSE_ERROR_MALFORMED, "no bitstream part"},
	{"length 0", m_len0, 1, WSE_ERROR_MALFORMED, "part 2 (dtb): length 0"},
	{"total misaligned", m_talign, 1, WSE_ERROR_ALIGN, "header: total length 1000 not a multiple of 256"},
	{"part misaligned", m_palign, 1, WSE_ERROR_ALIGN, "part firmware: offset 0x302 not a multiple of 256"},
	{"total under header", m_tsmall, 1, WSE_ERROR_RANGE, "header: total length 256 below the header's 288"},
	{"part in header", m_inhdr, 1, WSE_ERROR_RANGE, "part dtb: offset 0x100 inside the header (288 bytes)"},
	{"part past the end", m_past, 1, WSE_ERROR_RANGE, "part dtb: [0x400, 0x501) past the image's end 0x500"},
	{"part past the end, wrapping", m_past_wrap, 1, WSE_ERROR_RANGE, "part dtb: [0x400, 0x100000380) past the image's end 0x500"},
	{"overlapping parts", m_overlap, 1, WSE_ERROR_RANGE, "parts bitstream and firmware overlap"},
	{"too big for the flash", m_big, 1, WSE_ERROR_LENGTH, "image of 8323328 bytes too big for the flash slot of 8323072 bytes"},
	{"compatible mismatch", m_other, 1, WSE_ERROR_NOT_SUPPORTED, "image for \"wsemu,sim-4x4\", the board is \"wsemu,ulx3s-85f\""},
	{"truncated", m_short, 0, WSE_ERROR_TRUNCATED, "truncated: 1024 bytes, the image has 1280"},
	{"trailing byte", m_long, 0, WSE_ERROR_MALFORMED, "1 bytes after the image's end"},
	{"padding set", m_pad, 0, WSE_ERROR_MALFORMED, "byte 0x12c outside the parts is 0x01, not 0"},
	{"final padding set", m_pad_end, 0, WSE_ERROR_MALFORMED, "byte 0x4ff outside the parts is 0xff, not 0"},
	{"part CRC", m_pcrc, 0, WSE_ERROR_PAYLOAD_CRC, "part firmware: CRC-32C 0x"},
	{"firmware not RISC-V", m_elf, 1, WSE_ERROR_MALFORMED, "part firmware: not a RISC-V ELF32 little-endian file"},
	{"DTB size", m_dtbsize, 1, WSE_ERROR_MALFORMED, "part dtb: not a device tree blob of 48 bytes"},
};

static void test_refusals(void **state)
{
	(void)state;
	static uint8_t b[0x7f0100];
	for (size_t i = 0; i < sizeof(crafts) / sizeof(crafts[0]); i++) {
		const struct craft *c = &crafts[i];
		size_t len = (size_t)img_len;
		memset(b, 0, sizeof(img) * 2);
		memcpy(b, img, (size_t)img_len);
		c->mutate(b, &len);
		if (c->sign)
			resign(b);
		int r = check(b, len);
		if (r != c->want || strncmp(err, c->text, strlen(c->text)))
			fail_msg("%s: got %d \"%s\", want %d \"%s\"", c->what, r,
				 err, c->want, c->text);
	}
	/* The part CRC's text names both values. */
	memcpy(b, img, (size_t)img_len);
	b[800] ^= 0x40;
	assert_int_equal(check(b, (size_t)img_len), WSE_ERROR_PAYLOAD_CRC);
	char want[128];
	snprintf(want, sizeof(want),
		 "part firmware: CRC-32C 0x%08x, the part table says 0x%08x",
		 (unsigned)wse_crc32c_update(0, b + 768, sizeof(elf)),
		 (unsigned)wse_crc32c_update(0, elf, sizeof(elf)));
	assert_string_equal(err, want);
	assert_int_equal(wse_image_check(NULL, 5, NULL, 0, &parsed, NULL, 0),
			 WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_image_check(img, 5, NULL, 0, NULL, NULL, 0),
			 WSE_ERROR_INVALID_PARAM);
}

/* Every single-byte change anywhere in the image is refused. */
static void test_every_byte(void **state)
{
	(void)state;
	uint8_t b[sizeof(img)];
	static const uint8_t flips[] = {0x01, 0x80, 0xff, 0x5a};
	for (int at = 0; at < img_len; at++)
		for (size_t f = 0; f < sizeof(flips); f++) {
			memcpy(b, img, (size_t)img_len);
			b[at] ^= flips[f];
			int r = wse_image_check(b, (size_t)img_len, NULL, 0,
						&parsed, err, sizeof(err));
			if (r >= 0)
				fail_msg("byte %d ^ 0x%02x accepted", at, flips[f]);
			if (at < 288 && r != WSE_ERROR_HEADER_CRC &&
			    r != WSE_ERROR_BAD_MAGIC && r != WSE_ERROR_VERSION &&
			    r != WSE_ERROR_MALFORMED && r != WSE_ERROR_TRUNCATED)
				fail_msg("header byte %d ^ 0x%02x: %d %s", at,
					 flips[f], r, err);
		}
}

/* Every truncation is refused as such. */
static void test_truncation(void **state)
{
	(void)state;
	for (int len = 0; len < img_len; len++) {
		int r = check(img, (size_t)len);
		if (r != WSE_ERROR_TRUNCATED)
			fail_msg("length %d: %d %s", len, r, err);
		assert_non_null(strstr(err, "truncated"));
	}
}

static void test_compatible_mismatch(void **state)
{
	(void)state;
	int r = wse_image_check(img, (size_t)img_len, "wsemu,ulx3s-12f", 0,
				&parsed, err, sizeof(err));
	assert_int_equal(r, WSE_ERROR_NOT_SUPPORTED);
	assert_string_equal(err, "image for \"wsemu,ulx3s-85f\", the board is "
				 "\"wsemu,ulx3s-12f\"");
	/* Prefixes and the second compatible string do not match. */
	assert_int_equal(wse_image_check(img, (size_t)img_len, "wsemu,ulx3s", 0,
					 &parsed, NULL, 0),
			 WSE_ERROR_NOT_SUPPORTED);
	assert_int_equal(wse_image_check(img, (size_t)img_len, "wsemu,wse", 0,
					 &parsed, NULL, 0),
			 WSE_ERROR_NOT_SUPPORTED);
}

static void test_flash_layout(void **state)
{
	(void)state;
	struct wse_flash_layout l;
	static const uint32_t sizes[] = {0x1000000, 0x2000000};
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(wse_flash_layout(sizes[i], &l), 0);
		assert_int_equal(l.sector_bytes, 0x10000);
		assert_int_equal(l.boot_offset, 0);
		assert_int_equal(l.golden_offset, 0x10000);
		assert_int_equal(l.update_offset, 0x800000);
		assert_int_equal(l.slot_bytes, 0x7f0000);
		assert_int_equal(l.fallback_offset, 0xff0000);
	}
	assert_int_equal(wse_flash_layout(0x40000, &l), 0);
	assert_int_equal(l.update_offset, 0x20000);
	assert_int_equal(l.slot_bytes, 0x10000);
	assert_int_equal(l.fallback_offset, 0x30000);
	assert_int_equal(wse_flash_layout(0x20000, &l), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_flash_layout(0x1800000, &l), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_flash_layout(0x1000000, NULL), WSE_ERROR_INVALID_PARAM);
	/* the jumps: the stub at 0, the fallback 256 bytes below the reach */
	assert_int_equal(wse_flash_layout(0x2000000, &l), 0);
	assert_int_equal(l.stub_offset, 0);
	assert_int_equal(l.fallback_jump, 0xffff00);
	assert_int_equal(wse_flash_layout(0x40000, &l), 0);
	assert_int_equal(l.fallback_jump, 0x3ff00);
}

/* ---- ECP5 jump ---- */

/* The bytes of docs/firmware-image.md's table, for 0x810100. */
static void test_ecp5_jump(void **state)
{
	(void)state;
	static const uint8_t want[WSE_ECP5_JUMP_BYTES] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xbd, 0xb3, 0xff, 0xff, 0xff, 0xff,
		0x22, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00,
		0x03, 0x81, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	uint8_t j[WSE_ECP5_JUMP_BYTES + 1], t[WSE_ECP5_JUMP_BYTES];
	uint32_t addr = 0;
	assert_int_equal(wse_ecp5_jump_encode(0x810100, j, sizeof(j)), WSE_ECP5_JUMP_BYTES);
	assert_memory_equal(j, want, sizeof(want));
	assert_int_equal(wse_ecp5_jump_decode(j, WSE_ECP5_JUMP_BYTES, &addr), 0);
	assert_int_equal(addr, 0x810100);
	assert_int_equal(wse_ecp5_jump_encode(0xffffff, j, sizeof(j)), WSE_ECP5_JUMP_BYTES);
	assert_int_equal(wse_ecp5_jump_decode(j, WSE_ECP5_JUMP_BYTES, &addr), 0);
	assert_int_equal(addr, 0xffffff);
	assert_int_equal(wse_ecp5_jump_encode(0x1000000, j, sizeof(j)), WSE_ERROR_RANGE);
	assert_int_equal(wse_ecp5_jump_encode(0, j, WSE_ECP5_JUMP_BYTES - 1), WSE_ERROR_OVERFLOW);
	assert_int_equal(wse_ecp5_jump_encode(0, NULL, 64), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_ecp5_jump_decode(NULL, 64, &addr), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_ecp5_jump_decode(want, 64, NULL), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_ecp5_jump_decode(want, WSE_ECP5_JUMP_BYTES - 1, &addr),
			 WSE_ERROR_TRUNCATED);
	memset(t, 0xff, sizeof(t));
	assert_int_equal(wse_ecp5_jump_decode(t, sizeof(t), &addr), WSE_ERROR_NOT_FOUND);
	/* Torn or foreign: every bit flipped, and every prefix of the jump
	 * programmed over an erased stub (a page program cut short). A change
	 * in the address is still a jump, to another address, which the
	 * flash's slots then do not match (docs/firmware-image.md). */
	for (unsigned k = 0; k < WSE_ECP5_JUMP_BYTES; k++) {
		for (unsigned x = 1; x < 256; x <<= 1) {
			memcpy(t, want, sizeof(t));
			t[k] ^= (uint8_t)x;
			int r = wse_ecp5_jump_decode(t, sizeof(t), &addr);
			if (k >= WSE_ECP5_JUMP_OFF_ADDR && k < WSE_ECP5_JUMP_OFF_ADDR + 3) {
				assert_int_equal(r, 0);
				assert_int_not_equal(addr, 0x810100);
			} else {
				assert_int_equal(r, WSE_ERROR_MALFORMED);
			}
		}
		memset(t, 0xff, sizeof(t));
		memcpy(t, want, k);
		int r = wse_ecp5_jump_decode(t, sizeof(t), &addr);
		if (k <= 18) { /* only dummy bytes so far: still erased */
			assert_int_equal(r, WSE_ERROR_NOT_FOUND);
		} else if (k < WSE_ECP5_JUMP_OFF_ADDR) {
			assert_int_equal(r, WSE_ERROR_MALFORMED);
		} else { /* the address whole or not: a jump, maybe elsewhere */
			assert_int_equal(r, 0);
			assert_true((addr == 0x810100) == (k >= WSE_ECP5_JUMP_OFF_ADDR + 3));
		}
	}
}

/* ---- Boot record ---- */

static const struct wse_bootrec rec1 = {
	.seq = 5, .slot = WSE_FLASH_SLOT_UPDATE, .slot_offset = 0x800000,
	.length = 0x1200, .image_crc = 0x12345678};

static void test_bootrec_round_trip(void **state)
{
	(void)state;
	uint8_t b[WSE_BOOTREC_BYTES];
	struct wse_bootrec r;
	assert_int_equal(wse_bootrec_encode(&rec1, b, sizeof(b)), 64);
	assert_memory_equal(b, "WSEB", 4);
	assert_int_equal(wse_bootrec_decode(b, sizeof(b), &r), 0);
	assert_memory_equal(&r, &rec1, sizeof(r));
	struct wse_bootrec bad = rec1;
	assert_int_equal(wse_bootrec_encode(&rec1, b, 63), WSE_ERROR_OVERFLOW);
	bad.seq = 0;
	assert_int_equal(wse_bootrec_encode(&bad, b, 64), WSE_ERROR_INVALID_PARAM);
	bad = rec1;
	bad.slot = 2;
	assert_int_equal(wse_bootrec_encode(&bad, b, 64), WSE_ERROR_INVALID_PARAM);
	bad = rec1;
	bad.length = 0;
	assert_int_equal(wse_bootrec_encode(&bad, b, 64), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_bootrec_encode(NULL, b, 64), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_bootrec_decode(NULL, 64, &r), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_bootrec_scan(NULL, 64, &r, NULL), WSE_ERROR_INVALID_PARAM);
}

/* Every truncation, and every change of every byte (four per byte),
 * refused; a record with its CRC made right still refuses a bad field. */
static void test_bootrec_corruption(void **state)
{
	(void)state;
	uint8_t b[WSE_BOOTREC_BYTES], c[WSE_BOOTREC_BYTES];
	struct wse_bootrec r;
	wse_bootrec_encode(&rec1, b, sizeof(b));
	for (size_t n = 0; n < sizeof(b); n++)
		assert_int_equal(wse_bootrec_decode(b, n, &r), WSE_ERROR_TRUNCATED);
	static const uint8_t x[] = {0x01, 0x80, 0xff, 0x5a};
	for (size_t i = 0; i < sizeof(b); i++)
		for (size_t k = 0; k < sizeof(x); k++) {
			memcpy(c, b, sizeof(c));
			c[i] ^= x[k];
			int e = wse_bootrec_decode(c, sizeof(c), &r);
			assert_int_equal(e, i < 4 ? WSE_ERROR_BAD_MAGIC : WSE_ERROR_HEADER_CRC);
		}
	static const struct { unsigned off; uint32_t v; } f[] = {
		{WSE_BOOTREC_OFF_SEQ, 0}, {WSE_BOOTREC_OFF_SLOT, 2},
		{WSE_BOOTREC_OFF_LENGTH, 0}, {WSE_BOOTREC_OFF_RSVD, 1},
		{WSE_BOOTREC_OFF_CRC - 4, 0x100}};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		memcpy(c, b, sizeof(c));
		wse_put_le32(c + f[i].off, f[i].v);
		wse_put_le32(c + WSE_BOOTREC_OFF_CRC,
			     wse_crc32c_update(0, c, WSE_BOOTREC_OFF_CRC));
		assert_int_equal(wse_bootrec_decode(c, sizeof(c), &r), WSE_ERROR_MALFORMED);
	}
	memset(c, 0xff, sizeof(c));
	assert_int_equal(wse_bootrec_decode(c, sizeof(c), &r), WSE_ERROR_BAD_MAGIC);
}

/* The log: empty, one record, a newer one, and every torn write of the
 * newer one (each prefix programmed over the erased entry) leaving the
 * older in force, with the next free entry after the torn one. */
static void test_bootrec_scan(void **state)
{
	(void)state;
	static uint8_t log[WSE_BOOTREC_LOG_BYTES];
	struct wse_bootrec r = {0}, r2 = rec1;
	uint32_t next = 99;
	memset(log, 0xff, sizeof(log));
	assert_int_equal(wse_bootrec_scan(log, sizeof(log), &r, &next), 0);
	assert_int_equal(next, 0);
	assert_int_equal(r.seq, 0);
	wse_bootrec_encode(&rec1, log, 64);
	assert_int_equal(wse_bootrec_scan(log, sizeof(log), &r, &next), 1);
	assert_int_equal(next, 1);
	assert_memory_equal(&r, &rec1, sizeof(r));
	r2.seq = rec1.seq + 1;
	r2.slot = WSE_FLASH_SLOT_GOLDEN;
	r2.slot_offset = 0x10000;
	uint8_t nb[WSE_BOOTREC_BYTES];
	wse_bootrec_encode(&r2, nb, sizeof(nb));
	for (size_t n = 0; n < sizeof(nb); n++) {
		memset(log + 64, 0xff, 64);
		memcpy(log + 64, nb, n);
		assert_int_equal(wse_bootrec_scan(log, sizeof(log), &r, &next), 1);
		assert_memory_equal(&r, &rec1, sizeof(r));
		/* an untouched prefix of 0xff bytes leaves the entry erased */
		int erased = 1;
		for (size_t k = 0; k < 64; k++)
			erased &= log[64 + k] == 0xff;
		assert_int_equal(next, erased ? 1 : 2);
	}
	memcpy(log + 64, nb, sizeof(nb));
	assert_int_equal(wse_bootrec_scan(log, sizeof(log), &r, &next), 2);
	assert_memory_equal(&r, &r2, sizeof(r));
	assert_int_equal(next, 2);
	/* a lower sequence later in the log does not win; a full log */
	for (uint32_t i = 2; i < WSE_BOOTREC_LOG_BYTES / 64; i++)
		wse_bootrec_encode(&rec1, log + i * 64, 64);
	assert_int_equal(wse_bootrec_scan(log, sizeof(log), &r, &next), 512);
	assert_memory_equal(&r, &r2, sizeof(r));
	assert_int_equal(next, 512);
}

static int write_corpus(const char *dir)
{
	uint8_t b[sizeof(img)];
	char path[512];
	int n = build(b, sizeof(b));
	for (int i = 0; i < 2 && n > 0; i++) {
		snprintf(path, sizeof(path), "%s/image-%d", dir, i);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(b, 1, (size_t)n - (size_t)i * 128, f) == 0 ||
		    fclose(f))
			return 1;
	}
	return n > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		return write_corpus(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_builder_refusals),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_compatible_mismatch),
		cmocka_unit_test(test_flash_layout),
		cmocka_unit_test(test_ecp5_jump),
		cmocka_unit_test(test_bootrec_round_trip),
		cmocka_unit_test(test_bootrec_corruption),
		cmocka_unit_test(test_bootrec_scan),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
