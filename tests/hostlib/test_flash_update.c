/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_flash_update: libwsehost's firmware update (wse_flash_slots,
 * wse_flash_update, wse_flash_read_image) against the unit-test mock
 * device (fake_dev.c) with a 256 KiB flash of 64 KiB sectors: an erased
 * flash, an update and its read-back, refusals that write nothing, a
 * power cut at every 1009th byte of an update and at every byte of its boot
 * record and boot stub (each leaving the golden image booting, each
 * retried), a full record log, a flash that does not take a bit, and a
 * flash too small.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "wsehost.h"
#include "wsemu/wse_image.h"
#include "fake_dev.h"

#define FLASH (256u * 1024u)
#define SECTOR 0x10000u
#define GOLDEN 0x10000u
#define UPDATE 0x20000u
#define FALLBACK_JUMP (FLASH - 256u)

static char dir[64], sock[128], dtb[512], uri[160];
static struct fake_dev *f;
static wse_device *d;
static uint8_t golden[2048], a[2048], b[3072], big[SECTOR + 256];
static int glen, alen, blen;

/* An image for the mock's board with a bitstream of n bytes of v. */
static int build(uint8_t *out, size_t cap, const char *compat, uint8_t v, uint32_t n,
		 uint32_t version)
{
	static uint8_t bits[SECTOR];
	struct wse_image_builder ib;
	memset(bits, v, n);
	assert_int_equal(wse_image_init(&ib, compat), 0);
	assert_int_equal(wse_image_add(&ib, WSE_IMAGE_PART_BITSTREAM, bits, n, version,
				       "test", NULL, 0), 0);
	return wse_image_write(&ib, out, cap);
}

static void reopen(void)
{
	wse_close(d);
	fake_dev_set_mode(f, FAKE_NORMAL, 0);
	struct wse_open_opts o = {.size = sizeof(o), .timeout_ms = 2000};
	assert_int_equal(wse_open(&d, uri, &o), 0);
}

static int setup(void **state)
{
	(void)state;
	f = fake_dev_start(sock, dtb);
	assert_non_null(f);
	assert_int_equal(fake_dev_set_flash(f, FLASH, SECTOR), 0);
	snprintf(uri, sizeof(uri), "sim:attach=%s", sock);
	reopen();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	wse_close(d);
	d = NULL;
	fake_dev_stop(f);
	return 0;
}

/* Where a jump to the image's bitstream in the slot at off points. */
static uint32_t bitstream_at(const uint8_t *img, int len, uint32_t off)
{
	struct wse_image im;
	assert_int_equal(wse_image_check(img, (size_t)len, NULL, 0, &im, NULL, 0), 0);
	return off + wse_image_find(&im, WSE_IMAGE_PART_BITSTREAM)->offset;
}

/* The flash of a new board: the golden image, the boot stub and the
 * fallback jump both pointing at its bitstream. */
static void factory(void)
{
	size_t n;
	uint8_t *fl = fake_dev_flash(f, &n);
	uint32_t at = bitstream_at(golden, glen, GOLDEN);
	memcpy(fl + GOLDEN, golden, (size_t)glen);
	assert_int_equal(wse_ecp5_jump_encode(at, fl, WSE_ECP5_JUMP_BYTES), WSE_ECP5_JUMP_BYTES);
	assert_int_equal(wse_ecp5_jump_encode(at, fl + FALLBACK_JUMP, WSE_ECP5_JUMP_BYTES),
			 WSE_ECP5_JUMP_BYTES);
}

static void slots(struct wse_flash_slots *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	assert_int_equal(wse_flash_slots(d, s), 0);
}

static void expect_boot(int slot, const uint8_t *img, int len)
{
	struct wse_flash_slots s;
	slots(&s);
	assert_int_equal(s.flash_bytes, FLASH);
	assert_int_equal(s.boot_slot, slot);
	assert_int_equal(s.slot[slot].length, len);
	assert_int_equal(s.slot[slot].crc, wse_crc32c(0, img, (size_t)len));
	static uint8_t back[4096];
	assert_int_equal(wse_flash_read_image(d, -1, back, sizeof(back)), len);
	assert_memory_equal(back, img, (size_t)len);
}

static unsigned steps;
static void progress(void *user, const char *step, uint64_t done, uint64_t total)
{
	(void)user;
	assert_true(done <= total);
	static const char *const names[] = {"erase", "program", "verify", "boot record",
					    "boot stub"};
	for (unsigned i = 0; i < 5; i++)
		if (done == total && !strcmp(step, names[i]))
			steps |= 1u << i;
}

static void test_erased_and_update(void **state)
{
	(void)state;
	struct wse_flash_slots s;
	char err[256];
	slots(&s);
	assert_int_equal(s.boot_slot, -1);
	assert_int_equal(s.records, 0);
	assert_int_equal(s.record_slot, -1);
	assert_int_equal(s.slot[0].offset, GOLDEN);
	assert_int_equal(s.slot[1].offset, UPDATE);
	assert_int_equal(s.slot[1].size, 0x10000);
	assert_int_equal(s.slot[1].error, WSE_ERROR_BAD_MAGIC);
	assert_int_equal(s.stub, 0);
	assert_int_equal(s.stub_slot, -1);
	assert_int_equal(s.fallback, 0);
	assert_int_equal(s.fallback_slot, -1);
	assert_int_equal(wse_flash_read_image(d, -1, NULL, 0), WSE_ERROR_NOT_FOUND);
	steps = 0;
	assert_int_equal(wse_flash_update(d, a, (size_t)alen, progress, NULL, err, sizeof(err)), 0);
	assert_int_equal(steps, 31);
	expect_boot(1, a, alen);
	slots(&s);
	assert_int_equal(s.records, 1);
	assert_int_equal(s.record_seq, 1);
	assert_int_equal(s.record_slot, 1);
	/* the stub jumps to A's bitstream; no fallback jump on this flash */
	assert_int_equal(s.stub, 1);
	assert_int_equal(s.stub_addr, bitstream_at(a, alen, UPDATE));
	assert_int_equal(s.stub_slot, 1);
	assert_int_equal(s.fallback, 0);
	assert_int_equal(s.slot[1].nparts, 1);
	assert_string_equal(s.slot[1].parts[0].name, "bitstream");
	assert_int_equal(s.slot[1].parts[0].version, 2);
	assert_string_equal(s.slot[1].compatible, "wsemu,sim-4x4");
	assert_int_equal(wse_flash_read_image(d, 1, NULL, 0), alen);
	assert_int_equal(wse_flash_read_image(d, 1, b, 10), WSE_ERROR_OVERFLOW);
	assert_int_equal(wse_flash_read_image(d, 2, NULL, 0), WSE_ERROR_INVALID_PARAM);
	/* a second update: the stub's sector erased first, log and all, then
	 * the next record and the stub to B */
	assert_int_equal(wse_flash_update(d, b, (size_t)blen, NULL, NULL, NULL, 0), 0);
	expect_boot(1, b, blen);
	slots(&s);
	assert_int_equal(s.records, 1);
	assert_int_equal(s.record_seq, 2);
	assert_int_equal(s.stub_addr, bitstream_at(b, blen, UPDATE));
	/* a stub that points elsewhere, or is torn: the golden image boots by
	 * the fallback jump, or nothing without one */
	size_t n;
	uint8_t *fl = fake_dev_flash(f, &n);
	fl[WSE_ECP5_JUMP_OFF_ADDR + 2] ^= 0x10;
	slots(&s);
	assert_int_equal(s.stub, 1);
	assert_int_equal(s.stub_slot, -1);
	assert_int_equal(s.boot_slot, -1);
	factory();
	fl[20] = 0;
	expect_boot(0, golden, glen);
	slots(&s);
	assert_int_equal(s.stub, -1);
	assert_int_equal(s.fallback, 1);
	assert_int_equal(s.fallback_addr, bitstream_at(golden, glen, GOLDEN));
	assert_int_equal(s.fallback_slot, 0);
}

/* Refused images write nothing, and say why. */
static void test_refusals(void **state)
{
	(void)state;
	size_t n;
	uint8_t *fl = fake_dev_flash(f, &n);
	uint8_t *before = malloc(n);
	static uint8_t bad[sizeof(a)];
	char err[256];
	assert_int_equal(wse_flash_update(d, a, (size_t)alen, NULL, NULL, err, sizeof(err)), 0);
	memcpy(before, fl, n);
	memcpy(bad, a, (size_t)alen);
	bad[alen - 300] ^= 1;
	assert_int_equal(wse_flash_update(d, bad, (size_t)alen, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_PAYLOAD_CRC);
	assert_non_null(strstr(err, "bitstream"));
	int flen = build(bad, sizeof(bad), "wsemu,sim-2x2", 'F', 1000, 3);
	assert_int_equal(wse_flash_update(d, bad, (size_t)flen, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_NOT_SUPPORTED);
	assert_non_null(strstr(err, "wsemu,sim-2x2"));
	int biglen = build(big, sizeof(big), "wsemu,sim-4x4", 'X', SECTOR, 3);
	assert_int_equal(wse_flash_update(d, big, (size_t)biglen, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_LENGTH);
	assert_int_equal(wse_flash_update(d, a, (size_t)alen - 1, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_TRUNCATED);
	assert_int_equal(wse_flash_update(d, NULL, 10, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_INVALID_PARAM);
	assert_memory_equal(before, fl, n);
	free(before);
}

/* Power cuts: every 1009th byte of B's update over A, and every byte of the
 * record and the stub. An update first erases the stub's sector, so after
 * any cut the golden image boots by the fallback jump, except a cut before
 * the erase has reached past the stub's leading 18 bytes of 0xFF (A's stub
 * is whole and A still boots) or after B's stub has all but its trailing
 * 18 bytes of 0xFF (B boots); a retry completes. Each cut starts from A. */
static void test_power_cuts(void **state)
{
	(void)state;
	struct wse_flash_slots s;
	factory();
	expect_boot(0, golden, glen);
	long long total = 2 * SECTOR + blen + WSE_BOOTREC_BYTES + WSE_ECP5_JUMP_BYTES;
	unsigned cuts = 0;
	long long rec = total - WSE_BOOTREC_BYTES - WSE_ECP5_JUMP_BYTES;
	for (long long k = 0; k < total; k = k < rec && k + 1009 > rec ? rec : k + (k < rec ? 1009 : 1)) {
		assert_int_equal(wse_flash_update(d, a, (size_t)alen, NULL, NULL, NULL, 0), 0);
		fake_dev_flash_faults(f, k, -1);
		assert_int_not_equal(wse_flash_update(d, b, (size_t)blen, NULL, NULL, NULL, 0), 0);
		reopen();
		fake_dev_flash_faults(f, -1, -1);
		/* A's stub still whole; B's already whole (its last 18 bytes are
		 * 0xFF, as erased) */
		int old = k <= 18, new = k >= total - 18;
		if (old)
			expect_boot(1, a, alen);
		else if (new)
			expect_boot(1, b, blen);
		else
			expect_boot(0, golden, glen);
		slots(&s);
		assert_int_equal(s.fallback_slot, 0);
		assert_int_equal(s.stub_slot, old || new ? 1 : -1);
		/* the update slot: A's until its erase, then torn, then B's */
		if (k <= SECTOR)
			assert_int_equal(s.slot[1].crc, wse_crc32c(0, a, (size_t)alen));
		else if (k < rec)
			assert_int_equal(s.slot[1].valid, 0);
		else
			assert_int_equal(s.slot[1].crc, wse_crc32c(0, b, (size_t)blen));
		assert_int_equal(wse_flash_update(d, b, (size_t)blen, NULL, NULL, NULL, 0), 0);
		expect_boot(1, b, blen);
		slots(&s);
		assert_true(s.records >= 1); /* 2 when the cut left the stub erased */
		assert_int_equal(s.record_slot, 1);
		assert_int_equal(s.stub_slot, 1);
		cuts++;
	}
	assert_int_equal(cuts, (rec + 1008) / 1009 + WSE_BOOTREC_BYTES + WSE_ECP5_JUMP_BYTES);
}

/* A full log under an erased stub: the update erases the sector and
 * starts the log again. */
static void test_full_log(void **state)
{
	(void)state;
	size_t n;
	uint8_t *fl = fake_dev_flash(f, &n);
	struct wse_bootrec r = {.seq = 1, .slot = WSE_FLASH_SLOT_GOLDEN,
				.slot_offset = GOLDEN, .length = (uint32_t)glen,
				.image_crc = wse_crc32c(0, golden, (size_t)glen)};
	factory();
	memset(fl, 0xFF, WSE_ECP5_JUMP_BYTES);
	for (uint32_t i = 0; i < WSE_BOOTREC_LOG_BYTES / WSE_BOOTREC_BYTES; i++, r.seq++)
		wse_bootrec_encode(&r, fl + WSE_BOOTREC_LOG_OFFSET + i * WSE_BOOTREC_BYTES, 64);
	expect_boot(0, golden, glen);
	assert_int_equal(wse_flash_update(d, a, (size_t)alen, NULL, NULL, NULL, 0), 0);
	expect_boot(1, a, alen);
	struct wse_flash_slots s;
	slots(&s);
	assert_int_equal(s.records, 1);
	assert_int_equal(s.record_seq, 513);
}

/* A byte the flash does not take: VERIFY, with the stub (and the log in
 * its sector) erased: the fallback jump boots the golden image, or nothing
 * boots without one. */
static void test_verify_fails(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(wse_flash_update(d, a, (size_t)alen, NULL, NULL, NULL, 0), 0);
	fake_dev_flash_faults(f, -1, UPDATE + 1000);
	assert_int_equal(wse_flash_update(d, b, (size_t)blen, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_VERIFY);
	assert_non_null(strstr(err, "verifying"));
	fake_dev_flash_faults(f, -1, -1);
	struct wse_flash_slots s;
	slots(&s);
	assert_int_equal(s.records, 0);
	assert_int_equal(s.stub, 0);
	assert_int_equal(s.boot_slot, -1); /* no golden image, no fallback */
}

/* The mock's default flash (64 KiB) is too small for the layout. */
static void test_too_small(void **state)
{
	(void)state;
	struct wse_flash_slots s = {.size = sizeof(s)};
	char err[256];
	assert_int_equal(fake_dev_set_flash(f, 65536, 4096), 0);
	assert_int_equal(wse_flash_slots(d, &s), WSE_ERROR_NOT_SUPPORTED);
	assert_int_equal(wse_flash_update(d, a, (size_t)alen, NULL, NULL, err, sizeof(err)),
			 WSE_ERROR_NOT_SUPPORTED);
	s.size = 8;
	assert_int_equal(wse_flash_slots(d, &s), WSE_ERROR_INVALID_PARAM);
}

int main(void)
{
	if (fake_test_paths(dir, sock, dtb))
		return 1;
	glen = build(golden, sizeof(golden), "wsemu,sim-4x4", 'G', 1000, 1);
	alen = build(a, sizeof(a), "wsemu,sim-4x4", 'A', 1500, 2);
	blen = build(b, sizeof(b), "wsemu,sim-4x4", 'B', 2500, 3);
	if (glen <= 0 || alen <= 0 || blen <= 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_erased_and_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power_cuts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_log, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_small, setup, teardown),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(sock);
	rmdir(dir);
	return r;
}
