/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image.c - the firmware image container (wsemu/wse_image.h,
 * docs/firmware-image.md): builder, checker and the flash layout. Every
 * byte of a checked image is covered: the header by its CRC-32C, each part
 * by its own, and every other byte must be zero.
 */
#include <string.h>

#include "wsemu/wse_image.h"

static int known_type(unsigned type)
{
	return type >= WSE_IMAGE_PART_BITSTREAM && type <= WSE_IMAGE_PART_DTB;
}

const char *wse_image_part_name(unsigned type)
{
	static const char *const names[] = {"bitstream", "firmware", "dtb"};
	return known_type(type) ? names[type - 1] : "unknown";
}

static uint32_t align_up(uint32_t v)
{
	return (v + WSE_IMAGE_ALIGN - 1) & ~(WSE_IMAGE_ALIGN - 1);
}

/* 1 when s[0..n) holds a string of at most n - 1 bytes followed by NULs
 * only; *slen is its length. */
static int padded_string(const uint8_t *s, size_t n, size_t *slen)
{
	size_t l = 0;
	while (l < n && s[l])
		l++;
	if (l == n)
		return 0;
	for (size_t i = l; i < n; i++)
		if (s[i])
			return 0;
	*slen = l;
	return 1;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The content rules of the known types: 0 or MALFORMED with the text. */
static int check_content(unsigned type, const uint8_t *d, uint32_t len,
			 char *err, size_t errlen)
{
	const char *name = wse_image_part_name(type);

	if (type == WSE_IMAGE_PART_FIRMWARE &&
	    (len < 52 || memcmp(d, "\177ELF", 4) || d[4] != 1 || d[5] != 1 ||
	     wse_get_le16(d + 18) != 243))
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "part %s: not a RISC-V ELF32 little-endian file",
				  name);
	if (type == WSE_IMAGE_PART_DTB &&
	    (len < 40 || get_be32(d) != 0xd00dfeedu || get_be32(d + 4) != len))
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "part %s: not a device tree blob of %u bytes", name,
				  (unsigned)len);
	return 0;
}

int wse_image_init(struct wse_image_builder *b, const char *compatible)
{
	if (!b || !compatible || !compatible[0] ||
	    strlen(compatible) >= WSE_IMAGE_COMPAT_BYTES)
		return WSE_ERROR_INVALID_PARAM;
	memset(b, 0, sizeof(*b));
	memcpy(b->compatible, compatible, strlen(compatible));
	return 0;
}

/* Layout of b's parts: offsets[i], and the total. */
static uint64_t layout(const struct wse_image_builder *b, unsigned n,
		       uint32_t *offsets)
{
	uint64_t at = align_up(WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * n);
	for (unsigned i = 0; i < n; i++) {
		if (offsets)
			offsets[i] = (uint32_t)at;
		at = (at + b->parts[i].length + WSE_IMAGE_ALIGN - 1) &
		     ~(uint64_t)(WSE_IMAGE_ALIGN - 1);
	}
	return at;
}

int wse_image_add(struct wse_image_builder *b, unsigned type,
		  const void *data, uint32_t length, uint32_t version,
		  const char *build_id, char *err, size_t errlen)
{
	if (!b || !data || !length)
		return wse_errorf(err, errlen, WSE_ERROR_INVALID_PARAM,
				  "part %s: no data", wse_image_part_name(type));
	if (type > 0xffffu ||
	    (!known_type(type) && !(type & WSE_IMAGE_PART_OPTIONAL)))
		return wse_errorf(err, errlen, WSE_ERROR_INVALID_PARAM,
				  "part type %u unknown", type);
	const char *name = wse_image_part_name(type);
	if (build_id && strlen(build_id) >= WSE_IMAGE_ID_BYTES)
		return wse_errorf(err, errlen, WSE_ERROR_INVALID_PARAM,
				  "part %s: build id longer than %u bytes", name,
				  WSE_IMAGE_ID_BYTES - 1);
	for (unsigned i = 0; i < b->count; i++)
		if (b->parts[i].type == type)
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "part %s: the image has one already", name);
	if (b->count == WSE_IMAGE_MAX_PARTS)
		return wse_errorf(err, errlen, WSE_ERROR_OVERFLOW,
				  "more than %u parts", WSE_IMAGE_MAX_PARTS);
	int r = check_content(type, data, length, err, errlen);
	if (r)
		return r;
	struct wse_image_builder t = *b;
	t.parts[t.count].length = length;
	if (layout(&t, t.count + 1, NULL) > WSE_IMAGE_MAX_BYTES)
		return wse_errorf(err, errlen, WSE_ERROR_LENGTH,
				  "part %s: the image would exceed %u bytes", name,
				  WSE_IMAGE_MAX_BYTES);
	b->parts[b->count].type = (uint16_t)type;
	b->parts[b->count].version = version;
	b->parts[b->count].length = length;
	b->parts[b->count].data = data;
	memset(b->parts[b->count].build_id, 0, WSE_IMAGE_ID_BYTES);
	if (build_id)
		memcpy(b->parts[b->count].build_id, build_id, strlen(build_id));
	b->count++;
	return 0;
}

static uint32_t header_crc(const uint8_t *h, uint32_t header_bytes)
{
	uint32_t crc = wse_crc32c_update(0, h, WSE_IMAGE_OFF_HCRC);
	return wse_crc32c_update(crc, h + WSE_IMAGE_HDR_BYTES,
				 header_bytes - WSE_IMAGE_HDR_BYTES);
}

int wse_image_write(const struct wse_image_builder *b, uint8_t *out,
		    size_t cap)
{
	uint32_t off[WSE_IMAGE_MAX_PARTS];
	unsigned i;

	if (!b || (!out && cap) || b->count > WSE_IMAGE_MAX_PARTS)
		return WSE_ERROR_INVALID_PARAM;
	for (i = 0; i < b->count; i++)
		if (b->parts[i].type == WSE_IMAGE_PART_BITSTREAM)
			break;
	if (i == b->count)
		return WSE_ERROR_INVALID_PARAM;
	uint32_t total = (uint32_t)layout(b, b->count, off);
	if (!out)
		return (int)total;
	if (cap < total)
		return WSE_ERROR_OVERFLOW;

	uint32_t hb = WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * b->count;
	memset(out, 0, total);
	wse_put_le32(out + WSE_IMAGE_OFF_MAGIC, WSE_IMAGE_MAGIC);
	wse_put_le16(out + WSE_IMAGE_OFF_MAJOR, WSE_IMAGE_MAJOR);
	wse_put_le16(out + WSE_IMAGE_OFF_MINOR, WSE_IMAGE_MINOR);
	wse_put_le32(out + WSE_IMAGE_OFF_HDR_BYTES, hb);
	wse_put_le32(out + WSE_IMAGE_OFF_TOTAL, total);
	wse_put_le16(out + WSE_IMAGE_OFF_COUNT, (uint16_t)b->count);
	memcpy(out + WSE_IMAGE_OFF_COMPAT, b->compatible,
	       strlen(b->compatible));
	for (i = 0; i < b->count; i++) {
		uint8_t *e = out + WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * i;
		wse_put_le16(e + WSE_IMAGE_POFF_TYPE, b->parts[i].type);
		wse_put_le32(e + WSE_IMAGE_POFF_OFFSET, off[i]);
		wse_put_le32(e + WSE_IMAGE_POFF_LENGTH, b->parts[i].length);
		wse_put_le32(e + WSE_IMAGE_POFF_CRC,
			     wse_crc32c_update(0, b->parts[i].data,
					       b->parts[i].length));
		wse_put_le32(e + WSE_IMAGE_POFF_VERSION, b->parts[i].version);
		memcpy(e + WSE_IMAGE_POFF_BUILD_ID, b->parts[i].build_id,
		       WSE_IMAGE_ID_BYTES);
		memcpy(out + off[i], b->parts[i].data, b->parts[i].length);
	}
	wse_put_le32(out + WSE_IMAGE_OFF_HCRC, header_crc(out, hb));
	return (int)total;
}

/* The header after its CRC: fields, reserved, types. */
static int check_fields(const uint8_t *p, struct wse_image *img, char *err,
			size_t errlen)
{
	size_t slen;

	if (wse_get_le16(p + WSE_IMAGE_OFF_FLAGS) ||
	    wse_get_le32(p + WSE_IMAGE_OFF_RSVD0) ||
	    wse_get_le32(p + WSE_IMAGE_OFF_RSVD1))
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "header: reserved field or flag set (flags 0x%04x,"
				  " reserved 0x%08x 0x%08x)",
				  wse_get_le16(p + WSE_IMAGE_OFF_FLAGS),
				  (unsigned)wse_get_le32(p + WSE_IMAGE_OFF_RSVD0),
				  (unsigned)wse_get_le32(p + WSE_IMAGE_OFF_RSVD1));
	if (!padded_string(p + WSE_IMAGE_OFF_COMPAT, WSE_IMAGE_COMPAT_BYTES,
			   &slen) || !slen)
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "header: compatible empty, unterminated or not "
				  "NUL-padded");
	memcpy(img->compatible, p + WSE_IMAGE_OFF_COMPAT,
	       WSE_IMAGE_COMPAT_BYTES);

	int have_bitstream = 0;
	for (unsigned i = 0; i < img->count; i++) {
		const uint8_t *e = p + WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * i;
		struct wse_image_part *q = &img->parts[i];
		q->type = wse_get_le16(e + WSE_IMAGE_POFF_TYPE);
		q->offset = wse_get_le32(e + WSE_IMAGE_POFF_OFFSET);
		q->length = wse_get_le32(e + WSE_IMAGE_POFF_LENGTH);
		q->crc = wse_get_le32(e + WSE_IMAGE_POFF_CRC);
		q->version = wse_get_le32(e + WSE_IMAGE_POFF_VERSION);
		memcpy(q->build_id, e + WSE_IMAGE_POFF_BUILD_ID,
		       WSE_IMAGE_ID_BYTES);
		const char *name = wse_image_part_name(q->type);
		if (!known_type(q->type) && !(q->type & WSE_IMAGE_PART_OPTIONAL))
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "part %u: unknown type %u", i, q->type);
		if (wse_get_le16(e + WSE_IMAGE_POFF_FLAGS) ||
		    wse_get_le32(e + WSE_IMAGE_POFF_RSVD) ||
		    wse_get_le32(e + WSE_IMAGE_POFF_RSVD + 4) ||
		    wse_get_le32(e + WSE_IMAGE_POFF_RSVD + 8))
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "part %u (%s): reserved field or flag set",
					  i, name);
		if (!padded_string(e + WSE_IMAGE_POFF_BUILD_ID,
				   WSE_IMAGE_ID_BYTES, &slen))
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "part %u (%s): build id unterminated or "
					  "not NUL-padded", i, name);
		if (!q->length)
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "part %u (%s): length 0", i, name);
		for (unsigned j = 0; j < i; j++)
			if (img->parts[j].type == q->type)
				return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
						  "parts %u and %u: both of type "
						  "%u (%s)", j, i, q->type, name);
		have_bitstream |= q->type == WSE_IMAGE_PART_BITSTREAM;
	}
	if (!have_bitstream)
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "no bitstream part");
	return 0;
}

/* Offsets, lengths, overlaps against the total. */
static int check_placement(const struct wse_image *img, char *err,
			   size_t errlen)
{
	if (img->total_bytes % WSE_IMAGE_ALIGN)
		return wse_errorf(err, errlen, WSE_ERROR_ALIGN,
				  "header: total length %u not a multiple of %u",
				  (unsigned)img->total_bytes, WSE_IMAGE_ALIGN);
	for (unsigned i = 0; i < img->count; i++)
		if (img->parts[i].offset % WSE_IMAGE_ALIGN)
			return wse_errorf(err, errlen, WSE_ERROR_ALIGN,
					  "part %s: offset 0x%x not a multiple of %u",
					  wse_image_part_name(img->parts[i].type),
					  (unsigned)img->parts[i].offset,
					  WSE_IMAGE_ALIGN);
	if (img->total_bytes < img->header_bytes)
		return wse_errorf(err, errlen, WSE_ERROR_RANGE,
				  "header: total length %u below the header's %u",
				  (unsigned)img->total_bytes,
				  (unsigned)img->header_bytes);
	for (unsigned i = 0; i < img->count; i++) {
		const struct wse_image_part *q = &img->parts[i];
		uint64_t end = (uint64_t)q->offset + q->length;
		const char *name = wse_image_part_name(q->type);
		if (q->offset < img->header_bytes)
			return wse_errorf(err, errlen, WSE_ERROR_RANGE,
					  "part %s: offset 0x%x inside the header "
					  "(%u bytes)", name, (unsigned)q->offset,
					  (unsigned)img->header_bytes);
		if (end > img->total_bytes)
			return wse_errorf(err, errlen, WSE_ERROR_RANGE,
					  "part %s: [0x%x, 0x%llx) past the image's "
					  "end 0x%x", name, (unsigned)q->offset,
					  (unsigned long long)end,
					  (unsigned)img->total_bytes);
		for (unsigned j = 0; j < i; j++) {
			const struct wse_image_part *o = &img->parts[j];
			if (q->offset < (uint64_t)o->offset + o->length &&
			    o->offset < end)
				return wse_errorf(err, errlen, WSE_ERROR_RANGE,
						  "parts %s and %s overlap",
						  wse_image_part_name(o->type), name);
		}
	}
	return 0;
}

/* 1 when byte at lies in the header or a part. */
static int covered(const struct wse_image *img, uint32_t at)
{
	if (at < img->header_bytes)
		return 1;
	for (unsigned i = 0; i < img->count; i++)
		if (at >= img->parts[i].offset &&
		    at - img->parts[i].offset < img->parts[i].length)
			return 1;
	return 0;
}

int wse_image_check(const void *buf, size_t len,
		    const char *expected_compatible, uint32_t max_bytes,
		    struct wse_image *img, char *err, size_t errlen)
{
	const uint8_t *p = buf;
	int r;

	if (!buf || !img)
		return wse_errorf(err, errlen, WSE_ERROR_INVALID_PARAM,
				  "no image buffer");
	memset(img, 0, sizeof(*img));
	if (len < WSE_IMAGE_HDR_BYTES)
		return wse_errorf(err, errlen, WSE_ERROR_TRUNCATED,
				  "truncated: %zu bytes, the header has %u", len,
				  WSE_IMAGE_HDR_BYTES);
	if (wse_get_le32(p + WSE_IMAGE_OFF_MAGIC) != WSE_IMAGE_MAGIC)
		return wse_errorf(err, errlen, WSE_ERROR_BAD_MAGIC,
				  "bad magic 0x%08x, not \"WSEI\"",
				  (unsigned)wse_get_le32(p + WSE_IMAGE_OFF_MAGIC));
	img->major = wse_get_le16(p + WSE_IMAGE_OFF_MAJOR);
	img->minor = wse_get_le16(p + WSE_IMAGE_OFF_MINOR);
	if (img->major != WSE_IMAGE_MAJOR)
		return wse_errorf(err, errlen, WSE_ERROR_VERSION,
				  "unknown format version %u.%u (this reader: %u.x)",
				  img->major, img->minor, WSE_IMAGE_MAJOR);
	img->header_bytes = wse_get_le32(p + WSE_IMAGE_OFF_HDR_BYTES);
	img->total_bytes = wse_get_le32(p + WSE_IMAGE_OFF_TOTAL);
	img->header_crc = wse_get_le32(p + WSE_IMAGE_OFF_HCRC);
	img->count = wse_get_le16(p + WSE_IMAGE_OFF_COUNT);
	if (img->count < 1 || img->count > WSE_IMAGE_MAX_PARTS ||
	    img->header_bytes !=
		    WSE_IMAGE_HDR_BYTES + WSE_IMAGE_PART_BYTES * img->count)
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "header: %u parts with a header of %u bytes "
				  "(1 to %u parts, 96 + 64 bytes each)",
				  img->count, (unsigned)img->header_bytes,
				  WSE_IMAGE_MAX_PARTS);
	if (len < img->header_bytes)
		return wse_errorf(err, errlen, WSE_ERROR_TRUNCATED,
				  "truncated: %zu bytes, the header has %u", len,
				  (unsigned)img->header_bytes);
	uint32_t crc = header_crc(p, img->header_bytes);
	if (crc != img->header_crc)
		return wse_errorf(err, errlen, WSE_ERROR_HEADER_CRC,
				  "header CRC-32C 0x%08x, the header says 0x%08x",
				  (unsigned)crc, (unsigned)img->header_crc);
	r = check_fields(p, img, err, errlen);
	if (!r)
		r = check_placement(img, err, errlen);
	if (r)
		return r;
	if (max_bytes && img->total_bytes > max_bytes)
		return wse_errorf(err, errlen, WSE_ERROR_LENGTH,
				  "image of %u bytes too big for the flash slot of "
				  "%u bytes", (unsigned)img->total_bytes,
				  (unsigned)max_bytes);
	if (expected_compatible && strcmp(expected_compatible, img->compatible))
		return wse_errorf(err, errlen, WSE_ERROR_NOT_SUPPORTED,
				  "image for \"%s\", the board is \"%s\"",
				  img->compatible, expected_compatible);
	if (len < img->total_bytes)
		return wse_errorf(err, errlen, WSE_ERROR_TRUNCATED,
				  "truncated: %zu bytes, the image has %u", len,
				  (unsigned)img->total_bytes);
	if (len > img->total_bytes)
		return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
				  "%zu bytes after the image's end",
				  len - img->total_bytes);
	for (uint32_t at = img->header_bytes; at < img->total_bytes; at++)
		if (p[at] && !covered(img, at))
			return wse_errorf(err, errlen, WSE_ERROR_MALFORMED,
					  "byte 0x%x outside the parts is 0x%02x, "
					  "not 0", (unsigned)at, p[at]);
	for (unsigned i = 0; i < img->count; i++) {
		struct wse_image_part *q = &img->parts[i];
		q->data = p + q->offset;
		crc = wse_crc32c_update(0, q->data, q->length);
		if (crc != q->crc)
			return wse_errorf(err, errlen, WSE_ERROR_PAYLOAD_CRC,
					  "part %s: CRC-32C 0x%08x, the part table "
					  "says 0x%08x", wse_image_part_name(q->type),
					  (unsigned)crc, (unsigned)q->crc);
	}
	for (unsigned i = 0; i < img->count; i++) {
		r = check_content(img->parts[i].type, img->parts[i].data,
				  img->parts[i].length, err, errlen);
		if (r)
			return r;
	}
	return 0;
}

const struct wse_image_part *wse_image_find(const struct wse_image *img,
					    unsigned type)
{
	for (unsigned i = 0; img && i < img->count; i++)
		if (img->parts[i].type == type)
			return &img->parts[i];
	return NULL;
}

int wse_flash_layout(uint32_t flash_bytes, struct wse_flash_layout *l)
{
	if (!l || flash_bytes < 4 * WSE_FLASH_SECTOR_BYTES ||
	    (flash_bytes & (flash_bytes - 1)))
		return WSE_ERROR_INVALID_PARAM;
	uint32_t reach = flash_bytes < WSE_FLASH_REACH_BYTES
				 ? flash_bytes
				 : WSE_FLASH_REACH_BYTES;
	l->sector_bytes = WSE_FLASH_SECTOR_BYTES;
	l->boot_offset = 0;
	l->golden_offset = WSE_FLASH_SECTOR_BYTES;
	l->update_offset = reach / 2;
	l->slot_bytes = reach / 2 - WSE_FLASH_SECTOR_BYTES;
	l->fallback_offset = reach - WSE_FLASH_SECTOR_BYTES;
	l->stub_offset = 0;
	l->fallback_jump = reach - WSE_FLASH_FALLBACK_BACK;
	return 0;
}

/* ---- ECP5 jump -------------------------------------------------------- */

int wse_ecp5_jump_encode(uint32_t addr, uint8_t *out, size_t cap)
{
	/* What the ECP5's configuration engine reads: dummy bytes are 0xFF
	 * and skipped; the preamble starts the command stream; the control
	 * register write clears what a bitstream before may have set; the
	 * jump reads on from addr with the SPI READ command. */
	static const uint8_t head[] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* 16 dummy */
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xBD, 0xB3,                         /* preamble */
		0xFF, 0xFF, 0xFF, 0xFF,                         /* 4 dummy */
		0x22, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* CNTRL0 = 0 */
		0x7E, 0x00, 0x00, 0x00, 0x03,                   /* jump, READ */
	};
	_Static_assert(sizeof(head) == WSE_ECP5_JUMP_OFF_ADDR, "jump layout");
	if (!out)
		return WSE_ERROR_INVALID_PARAM;
	if (addr >= WSE_FLASH_REACH_BYTES)
		return WSE_ERROR_RANGE;
	if (cap < WSE_ECP5_JUMP_BYTES)
		return WSE_ERROR_OVERFLOW;
	memcpy(out, head, sizeof(head));
	out[WSE_ECP5_JUMP_OFF_ADDR] = (uint8_t)(addr >> 16);
	out[WSE_ECP5_JUMP_OFF_ADDR + 1] = (uint8_t)(addr >> 8);
	out[WSE_ECP5_JUMP_OFF_ADDR + 2] = (uint8_t)addr;
	memset(out + WSE_ECP5_JUMP_OFF_ADDR + 3, 0xFF,
	       WSE_ECP5_JUMP_BYTES - WSE_ECP5_JUMP_OFF_ADDR - 3);
	return (int)WSE_ECP5_JUMP_BYTES;
}

int wse_ecp5_jump_decode(const void *buf, size_t len, uint32_t *addr)
{
	const uint8_t *b = buf;
	uint8_t want[WSE_ECP5_JUMP_BYTES];
	if (!b || !addr)
		return WSE_ERROR_INVALID_PARAM;
	if (len < WSE_ECP5_JUMP_BYTES)
		return WSE_ERROR_TRUNCATED;
	unsigned ff = 0;
	for (unsigned k = 0; k < WSE_ECP5_JUMP_BYTES; k++)
		ff += b[k] == 0xFF;
	if (ff == WSE_ECP5_JUMP_BYTES)
		return WSE_ERROR_NOT_FOUND;
	uint32_t a = (uint32_t)b[WSE_ECP5_JUMP_OFF_ADDR] << 16 |
		     (uint32_t)b[WSE_ECP5_JUMP_OFF_ADDR + 1] << 8 |
		     b[WSE_ECP5_JUMP_OFF_ADDR + 2];
	wse_ecp5_jump_encode(a, want, sizeof(want));
	if (memcmp(b, want, sizeof(want)))
		return WSE_ERROR_MALFORMED;
	*addr = a;
	return 0;
}

/* ---- Boot record ------------------------------------------------------ */

int wse_bootrec_encode(const struct wse_bootrec *r, uint8_t *out, size_t cap)
{
	if (!r || !out || !r->seq || r->slot > WSE_FLASH_SLOT_UPDATE ||
	    !r->length)
		return WSE_ERROR_INVALID_PARAM;
	if (cap < WSE_BOOTREC_BYTES)
		return WSE_ERROR_OVERFLOW;
	memset(out, 0, WSE_BOOTREC_BYTES);
	wse_put_le32(out + WSE_BOOTREC_OFF_MAGIC, WSE_BOOTREC_MAGIC);
	wse_put_le32(out + WSE_BOOTREC_OFF_SEQ, r->seq);
	wse_put_le32(out + WSE_BOOTREC_OFF_SLOT, r->slot);
	wse_put_le32(out + WSE_BOOTREC_OFF_SLOT_OFFSET, r->slot_offset);
	wse_put_le32(out + WSE_BOOTREC_OFF_LENGTH, r->length);
	wse_put_le32(out + WSE_BOOTREC_OFF_IMAGE_CRC, r->image_crc);
	wse_put_le32(out + WSE_BOOTREC_OFF_CRC,
		     wse_crc32c_update(0, out, WSE_BOOTREC_OFF_CRC));
	return (int)WSE_BOOTREC_BYTES;
}

int wse_bootrec_decode(const void *buf, size_t len, struct wse_bootrec *r)
{
	const uint8_t *b = buf;
	if (!b || !r)
		return WSE_ERROR_INVALID_PARAM;
	if (len < WSE_BOOTREC_BYTES)
		return WSE_ERROR_TRUNCATED;
	if (wse_get_le32(b + WSE_BOOTREC_OFF_MAGIC) != WSE_BOOTREC_MAGIC)
		return WSE_ERROR_BAD_MAGIC;
	if (wse_get_le32(b + WSE_BOOTREC_OFF_CRC) !=
	    wse_crc32c_update(0, b, WSE_BOOTREC_OFF_CRC))
		return WSE_ERROR_HEADER_CRC;
	for (unsigned o = WSE_BOOTREC_OFF_RSVD; o < WSE_BOOTREC_OFF_CRC; o += 4)
		if (wse_get_le32(b + o))
			return WSE_ERROR_MALFORMED;
	*r = (struct wse_bootrec){
		.seq = wse_get_le32(b + WSE_BOOTREC_OFF_SEQ),
		.slot = wse_get_le32(b + WSE_BOOTREC_OFF_SLOT),
		.slot_offset = wse_get_le32(b + WSE_BOOTREC_OFF_SLOT_OFFSET),
		.length = wse_get_le32(b + WSE_BOOTREC_OFF_LENGTH),
		.image_crc = wse_get_le32(b + WSE_BOOTREC_OFF_IMAGE_CRC),
	};
	if (!r->seq || r->slot > WSE_FLASH_SLOT_UPDATE || !r->length)
		return WSE_ERROR_MALFORMED;
	return 0;
}

int wse_bootrec_scan(const void *log, size_t len, struct wse_bootrec *best,
		     uint32_t *next)
{
	const uint8_t *b = log;
	if (!b)
		return WSE_ERROR_INVALID_PARAM;
	uint32_t n = (uint32_t)(len / WSE_BOOTREC_BYTES), after = 0;
	int valid = 0;
	struct wse_bootrec top = {0}, r;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = b + (size_t)i * WSE_BOOTREC_BYTES;
		for (unsigned k = 0; k < WSE_BOOTREC_BYTES; k++)
			if (e[k] != 0xFF) {
				after = i + 1;
				break;
			}
		if (wse_bootrec_decode(e, WSE_BOOTREC_BYTES, &r) == 0) {
			if (!valid || r.seq >= top.seq)
				top = r;
			valid++;
		}
	}
	if (best && valid)
		*best = top;
	if (next)
		*next = after;
	return valid;
}
