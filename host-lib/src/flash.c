/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flash.c - the fail-safe firmware update over the flash requests
 * (wse_flash_slots, wse_flash_update, wse_flash_read_image): the image
 * container, flash layout and boot record of the wire library
 * (wsemu/wse_image.h, docs/firmware-image.md) driven through the
 * wse_flash_* calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "wsemu/wse_board.h"
#include "wsemu/wse_image.h"

_Static_assert(WSE_FLASH_MAX_PARTS == WSE_IMAGE_MAX_PARTS, "wsehost.h's part count");

/* Program and progress in pieces of this many bytes. */
#define FLASH_STEP 0x10000u

static int fail(char *err, size_t errlen, int code, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", what, wse_strerror(code));
	return code;
}

/* The flash's size: the DTB's, else the last power of two whose last
 * byte reads. */
static int flash_size(wse_device *d, uint32_t *bytes)
{
	const void *dtb;
	size_t len;
	struct wse_board bd;
	*bytes = 0;
	if (!wse_get_dtb(d, &dtb, &len) &&
	    !wse_board_parse(dtb, len, &bd, NULL, 0) && bd.flash_bytes) {
		*bytes = bd.flash_bytes;
		return 0;
	}
	for (unsigned k = 16; k <= 30; k++) {
		uint8_t b;
		int r = wse_flash_read(d, (1u << k) - 1, &b, 1);
		if (r == WSE_ERROR_RANGE)
			break;
		if (r)
			return r;
		*bytes = 1u << k;
	}
	return *bytes ? 0 : WSE_ERROR_NOT_SUPPORTED;
}

static int layout(wse_device *d, struct wse_flash_layout *l, uint32_t *bytes)
{
	int r = flash_size(d, bytes);
	if (r)
		return r;
	return wse_flash_layout(*bytes, l) ? WSE_ERROR_NOT_SUPPORTED : 0;
}

/* Bytes of the boot-record log read at a time. */
#define LOG_STEP 1024u

/* A whole erased entry. */
static int erased(const uint8_t *e)
{
	for (unsigned k = 0; k < WSE_BOOTREC_BYTES; k++)
		if (e[k] != 0xFF)
			return 0;
	return 1;
}

/* The newest valid boot record (0 when none), and where the next goes.
 * Records are written in order from the log's start, so the log is read
 * a piece at a time up to the first erased entry (the rest is erased). */
static int read_log(wse_device *d, const struct wse_flash_layout *l,
		    struct wse_bootrec *best, uint32_t *next)
{
	uint8_t *log = malloc(WSE_BOOTREC_LOG_BYTES);
	if (!log)
		return WSE_ERROR_NO_MEM;
	memset(log, 0xFF, WSE_BOOTREC_LOG_BYTES);
	int r = 0, end = 0;
	for (uint32_t done = 0; !r && !end && done < WSE_BOOTREC_LOG_BYTES; done += LOG_STEP) {
		r = wse_flash_read(d, l->boot_offset + WSE_BOOTREC_LOG_OFFSET + done, log + done,
				   LOG_STEP);
		for (uint32_t e = done; !r && e < done + LOG_STEP; e += WSE_BOOTREC_BYTES)
			end |= erased(log + e);
	}
	if (!r)
		r = wse_bootrec_scan(log, WSE_BOOTREC_LOG_BYTES, best, next);
	free(log);
	return r;
}

/* The image in the slot at off: *buf (malloc'ed, the caller frees) and
 * its check, or the reason it is not valid in si; *bit the flash address of
 * its bitstream part, where a jump to it points (0: no valid image). */
static int read_slot(wse_device *d, uint32_t off, uint32_t size,
		     struct wse_flash_slot_info *si, uint8_t **buf, uint32_t *bit)
{
	uint8_t hdr[WSE_IMAGE_HDR_BYTES];
	struct wse_image img;
	*buf = NULL;
	*bit = 0;
	si->offset = off;
	si->size = size;
	int r = wse_flash_read(d, off, hdr, sizeof(hdr));
	if (r)
		return r;
	uint32_t total = wse_get_le32(hdr + WSE_IMAGE_OFF_TOTAL);
	if (wse_get_le32(hdr + WSE_IMAGE_OFF_MAGIC) != WSE_IMAGE_MAGIC) {
		si->error = WSE_ERROR_BAD_MAGIC;
		snprintf(si->reason, sizeof(si->reason), "no image (no \"WSEI\" at the slot's start)");
		return 0;
	}
	if (total < sizeof(hdr) || total > size) {
		si->error = WSE_ERROR_LENGTH;
		snprintf(si->reason, sizeof(si->reason),
			 "header says %u bytes, the slot holds %u", total, size);
		return 0;
	}
	uint8_t *b = malloc(total);
	if (!b)
		return WSE_ERROR_NO_MEM;
	r = wse_flash_read(d, off, b, total);
	if (r) {
		free(b);
		return r;
	}
	si->error = wse_image_check(b, total, NULL, size, &img, si->reason,
				    sizeof(si->reason));
	if (si->error) {
		free(b);
		return 0;
	}
	si->valid = 1;
	const struct wse_image_part *bp = wse_image_find(&img, WSE_IMAGE_PART_BITSTREAM);
	*bit = bp ? off + bp->offset : 0;
	si->length = total;
	si->crc = wse_crc32c_update(0, b, total);
	memcpy(si->compatible, img.compatible, sizeof(si->compatible));
	si->nparts = img.count;
	for (unsigned i = 0; i < img.count; i++) {
		struct wse_flash_part_info *p = &si->parts[i];
		p->type = img.parts[i].type;
		snprintf(p->name, sizeof(p->name), "%s", wse_image_part_name(p->type));
		p->length = img.parts[i].length;
		p->crc = img.parts[i].crc;
		p->version = img.parts[i].version;
		memcpy(p->build_id, img.parts[i].build_id, sizeof(p->build_id));
	}
	*buf = b;
	return 0;
}

/* The jump at off: 1 and its address, 0 erased, -1 anything else. */
static int read_jump(wse_device *d, uint32_t off, uint32_t *addr, int *state)
{
	uint8_t j[WSE_ECP5_JUMP_BYTES];
	*addr = 0;
	int r = wse_flash_read(d, off, j, sizeof(j));
	if (r)
		return r;
	r = wse_ecp5_jump_decode(j, sizeof(j), addr);
	*state = r == 0 ? 1 : r == WSE_ERROR_NOT_FOUND ? 0 : -1;
	return 0;
}

/* wse_flash_slots, keeping the booting slot's image in *boot_img. What
 * boots is what the FPGA's master SPI boot finds: the boot stub's jump
 * when it names a slot's bitstream and that slot holds a valid image, else
 * the fallback jump to the golden slot's (docs/firmware-image.md). */
static int slots(wse_device *d, struct wse_flash_slots *s, uint8_t **boot_img)
{
	struct wse_flash_layout l;
	struct wse_bootrec rec;
	uint8_t *img[2] = {NULL, NULL};
	uint32_t bit[2];
	size_t size = s->size;
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->record_slot = s->boot_slot = s->stub_slot = s->fallback_slot = -1;
	int r = layout(d, &l, &s->flash_bytes);
	if (!r)
		r = read_log(d, &l, &rec, NULL);
	if (r < 0)
		return r;
	s->records = r;
	if (r > 0) {
		s->record_seq = rec.seq;
		s->record_slot = (int)rec.slot;
	}
	r = read_jump(d, l.stub_offset, &s->stub_addr, &s->stub);
	if (!r)
		r = read_jump(d, l.fallback_jump, &s->fallback_addr, &s->fallback);
	if (r)
		return r;
	const uint32_t offs[2] = {l.golden_offset, l.update_offset};
	for (int i = 0; i < 2; i++) {
		r = read_slot(d, offs[i], l.slot_bytes, &s->slot[i], &img[i], &bit[i]);
		if (r)
			goto out;
	}
	for (int i = 0; s->stub == 1 && i < 2; i++)
		if (bit[i] && bit[i] == s->stub_addr)
			s->stub_slot = i;
	if (s->fallback == 1 && bit[WSE_FLASH_SLOT_GOLDEN] &&
	    bit[WSE_FLASH_SLOT_GOLDEN] == s->fallback_addr)
		s->fallback_slot = WSE_FLASH_SLOT_GOLDEN;
	s->boot_slot = s->stub_slot >= 0 ? s->stub_slot : s->fallback_slot;
	if (boot_img && s->boot_slot >= 0) {
		*boot_img = img[s->boot_slot];
		img[s->boot_slot] = NULL;
	}
out:
	free(img[0]);
	free(img[1]);
	return r;
}

int wse_flash_slots(wse_device *d, struct wse_flash_slots *s)
{
	if (!d || !s || s->size < sizeof(*s))
		return WSE_ERROR_INVALID_PARAM;
	return slots(d, s, NULL);
}

int wse_flash_read_image(wse_device *d, int slot, void *buf, size_t cap)
{
	if (!d || slot < -1 || slot > 1 || (!buf && cap))
		return WSE_ERROR_INVALID_PARAM;
	struct wse_flash_slots *s = calloc(1, sizeof(*s));
	uint8_t *img = NULL;
	if (!s)
		return WSE_ERROR_NO_MEM;
	s->size = sizeof(*s);
	int r = slots(d, s, &img);
	int want = slot < 0 ? s->boot_slot : slot;
	if (!r && (want < 0 || !s->slot[want].valid))
		r = WSE_ERROR_NOT_FOUND;
	if (!r) {
		uint32_t len = s->slot[want].length;
		if (buf && cap < len)
			r = WSE_ERROR_OVERFLOW;
		else if (buf && want == s->boot_slot)
			memcpy(buf, img, len);
		else if (buf)
			r = wse_flash_read(d, s->slot[want].offset, buf, len);
		if (!r)
			r = (int)len;
	}
	free(img);
	free(s);
	return r;
}

static void report(wse_flash_progress_fn cb, void *user, const char *step,
		   uint64_t done, uint64_t total)
{
	if (cb)
		cb(user, step, done, total);
}

int wse_flash_update(wse_device *d, const void *image, size_t len,
		     wse_flash_progress_fn progress, void *user, char *err,
		     size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	if (!d || !image)
		return fail(err, errlen, WSE_ERROR_INVALID_PARAM, "update");
	struct wse_info info = {.size = sizeof(info)};
	struct wse_flash_layout l;
	struct wse_image img;
	struct wse_bootrec rec = {0};
	uint32_t bytes, next = 0;
	int r = wse_get_info(d, &info);
	if (!r)
		r = layout(d, &l, &bytes);
	if (r)
		return fail(err, errlen, r, "the board's flash");
	/* Every check before the first write. */
	r = wse_image_check(image, len, info.compatible, l.slot_bytes, &img,
			    err, errlen);
	if (r)
		return r;
	r = read_log(d, &l, &rec, &next);
	if (r < 0)
		return fail(err, errlen, r, "reading the boot record");
	const struct wse_image_part *bit = wse_image_find(&img, WSE_IMAGE_PART_BITSTREAM);
	const uint8_t *b = image;
	uint32_t n = (uint32_t)len, off = l.update_offset;
	uint32_t slot_erase = (n + l.sector_bytes - 1) / l.sector_bytes * l.sector_bytes;
	uint32_t at, jaddr, erase, gone = 0;
	uint8_t stub[WSE_ECP5_JUMP_BYTES], e[WSE_BOOTREC_BYTES], back[WSE_BOOTREC_BYTES];
	int state;
	/* First the boot stub goes: while the update slot is rewritten the
	 * FPGA must not follow a jump into it, so it takes the fallback jump
	 * to the golden image. The stub shares its sector with the record
	 * log, which goes with it; a full log goes the same way. */
	if ((r = read_jump(d, l.stub_offset, &jaddr, &state)))
		return fail(err, errlen, r, "reading the boot stub");
	int wipe = state != 0 || next >= WSE_BOOTREC_LOG_BYTES / WSE_BOOTREC_BYTES;
	erase = slot_erase + (wipe ? l.sector_bytes : 0);
	if (wipe) {
		report(progress, user, "erase", 0, erase);
		if ((r = wse_flash_erase(d, l.boot_offset, l.sector_bytes)))
			return fail(err, errlen, r, "erasing the boot-pointer sector");
		next = 0;
		gone = l.sector_bytes;
	}
	for (uint32_t k = 0; k < slot_erase; k += l.sector_bytes, gone += l.sector_bytes) {
		report(progress, user, "erase", gone, erase);
		if ((r = wse_flash_erase(d, off + k, l.sector_bytes)))
			return fail(err, errlen, r, "erasing the update slot");
	}
	report(progress, user, "erase", erase, erase);
	for (uint32_t done = 0; done < n; done += FLASH_STEP) {
		report(progress, user, "program", done, n);
		uint32_t k = n - done < FLASH_STEP ? n - done : FLASH_STEP;
		if ((r = wse_flash_program(d, off + done, b + done, k)))
			return fail(err, errlen, r, "programming the update slot");
	}
	report(progress, user, "program", n, n);
	uint32_t crc = wse_crc32c_update(0, b, n);
	r = wse_flash_verify(d, off, n, crc);
	for (unsigned i = 0; !r && i < img.count; i++)
		r = wse_flash_verify(d, off + img.parts[i].offset,
				     img.parts[i].length, img.parts[i].crc);
	report(progress, user, "verify", n, n);
	if (r)
		return fail(err, errlen, r, "verifying the update slot");
	/* The boot record: the next erased entry of the log. */
	struct wse_bootrec nr = {.seq = rec.seq + 1, .slot = WSE_FLASH_SLOT_UPDATE,
				 .slot_offset = off, .length = n, .image_crc = crc};
	wse_bootrec_encode(&nr, e, sizeof(e));
	at = l.boot_offset + WSE_BOOTREC_LOG_OFFSET + next * WSE_BOOTREC_BYTES;
	r = wse_flash_program(d, at, e, sizeof(e));
	if (!r)
		r = wse_flash_read(d, at, back, sizeof(back));
	if (!r && memcmp(back, e, sizeof(e)))
		r = WSE_ERROR_VERIFY;
	report(progress, user, "boot record", sizeof(e), sizeof(e));
	if (r)
		return fail(err, errlen, r, "writing the boot record");
	/* The boot stub, last: the jump to the new bitstream. Until it is
	 * whole the FPGA boots the golden image, as wse_flash_slots says. */
	wse_ecp5_jump_encode(off + bit->offset, stub, sizeof(stub));
	r = wse_flash_program(d, l.stub_offset, stub, sizeof(stub));
	if (!r)
		r = wse_flash_read(d, l.stub_offset, back, sizeof(stub));
	if (!r && memcmp(back, stub, sizeof(stub)))
		r = WSE_ERROR_VERIFY;
	report(progress, user, "boot stub", sizeof(stub), sizeof(stub));
	if (r)
		return fail(err, errlen, r, "writing the boot stub");
	return 0;
}
