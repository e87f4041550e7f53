/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_dtb: device info from real board DTBs (built by dtc from
 * boards/<b>/<b>.dts; directory $WSE_TEST_BOARDS, default build/boards),
 * and rejection, with a message naming the problem, of corrupted ones:
 * truncated, bit-flipped, missing or out-of-range properties, wrong
 * compatible strings, bad color-to-VC maps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libfdt.h>

#include "wsehost.h"

static size_t load(const char *board, uint8_t *buf, size_t cap)
{
	const char *dir = getenv("WSE_TEST_BOARDS");
	char path[512];
	snprintf(path, sizeof(path), "%s/%s/%s.dtb", dir ? dir : "build/boards",
		 board, board);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t n = fread(buf, 1, cap, f);
	fclose(f);
	assert_true(n > 0 && n < cap);
	return n;
}

static void test_boards(void **s)
{
	(void)s;
	static const struct {
		const char *name;
		unsigned n;
	} boards[] = {{"sim-2x2", 2}, {"sim-4x4", 4}, {"sim-8x8", 8}};
	for (size_t i = 0; i < 3; i++) {
		uint8_t buf[8192];
		size_t n = load(boards[i].name, buf, sizeof(buf));
		struct wse_info in = {.size = sizeof(in)};
		char err[128];
		assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)), 0);
		assert_string_equal(err, "");
		assert_int_equal(in.columns, boards[i].n);
		assert_int_equal(in.rows, boards[i].n);
		assert_int_equal(in.colors, 32);
		assert_true(in.num_vc >= 1 && in.num_vc <= 8);
		assert_true(in.imem_bytes >= 1024 && in.dmem_bytes >= 1024);
		assert_true(in.link_width_bits >= 64);
		for (int c = 0; c < 32; c++)
			assert_true(in.color_vc[c] < in.num_vc);
		char want[64];
		snprintf(want, sizeof(want), "wsemu,%s", boards[i].name);
		assert_string_equal(in.compatible, want);
	}
	/* sim-4x4 in detail. */
	uint8_t buf[8192];
	size_t n = load("sim-4x4", buf, sizeof(buf));
	struct wse_info in = {.size = sizeof(in)};
	assert_int_equal(wse_parse_dtb(buf, n, &in, NULL, 0), 0);
	assert_int_equal(in.num_vc, 4);
	assert_int_equal(in.vc_depth, 4);
	assert_int_equal(in.imem_bytes, 8192);
	assert_int_equal(in.dmem_bytes, 32768);
	assert_int_equal(in.dmem_banks, 2);
	assert_int_equal(in.color_vc[0], 0);
	assert_int_equal(in.color_vc[31], 3);
	assert_string_equal(in.link_compatible, "wsemu,link-sim");
	assert_int_equal(in.link_bytes_per_cycle, 8);
	/* A caller with an older, shorter struct gets only its part. */
	struct wse_info small;
	memset(&small, 0x77, sizeof(small));
	small.size = offsetof(struct wse_info, rows);
	assert_int_equal(wse_parse_dtb(buf, n, &small, NULL, 0), 0);
	assert_int_equal(small.columns, 4);
	assert_int_equal(small.rows, 0x77777777u);
}

/* Edit a copy of sim-4x4 with libfdt; expect rejection naming want. */
typedef int (*edit_fn)(void *fdt);
static void expect_bad(edit_fn edit, const char *want)
{
	static uint8_t buf[16384];
	size_t n = load("sim-4x4", buf, sizeof(buf));
	assert_int_equal(fdt_open_into(buf, buf, sizeof(buf)), 0);
	assert_int_equal(edit(buf), 0);
	assert_int_equal(fdt_pack(buf), 0);
	n = fdt_totalsize(buf);
	struct wse_info in = {.size = sizeof(in)};
	char err[160];
	assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)),
			 WSE_ERROR_BAD_DTB);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
}

static int mesh(void *f) { return fdt_path_offset(f, "/mesh"); }
static int e_no_rows(void *f) { return fdt_delprop(f, mesh(f), "wsemu,rows"); }
static int e_zero_cols(void *f) { return fdt_setprop_u32(f, mesh(f), "wsemu,columns", 0); }
static int e_huge_cols(void *f) { return fdt_setprop_u32(f, mesh(f), "wsemu,columns", 65); }
static int e_two_cells(void *f)
{
	fdt32_t v[2] = {cpu_to_fdt32(4), cpu_to_fdt32(4)};
	return fdt_setprop(f, mesh(f), "wsemu,rows", v, sizeof(v));
}
static int e_vc_map(void *f)
{
	int len;
	const fdt32_t *m = fdt_getprop(f, mesh(f), "wsemu,color-vc-map", &len);
	fdt32_t v[32];
	memcpy(v, m, sizeof(v));
	v[31] = cpu_to_fdt32(9);
	return fdt_setprop(f, mesh(f), "wsemu,color-vc-map", v, sizeof(v));
}
static int e_short_map(void *f)
{
	fdt32_t v[3] = {0, 0, 0};
	return fdt_setprop(f, mesh(f), "wsemu,color-vc-map", v, sizeof(v));
}
static int e_depth(void *f) { return fdt_setprop_u32(f, mesh(f), "wsemu,vc-queue-depth", 3); }
static int e_compat(void *f) { return fdt_setprop_string(f, mesh(f), "compatible", "acme,mesh"); }
static int e_root(void *f) { return fdt_setprop_string(f, 0, "compatible", "acme,board"); }
static int e_no_tile(void *f) { return fdt_del_node(f, fdt_path_offset(f, "/tile")); }
static int e_no_link(void *f) { return fdt_del_node(f, fdt_path_offset(f, "/link")); }
static int e_width(void *f)
{
	return fdt_setprop_u32(f, fdt_path_offset(f, "/link"), "wsemu,width-bits", 96);
}
static int e_dmem(void *f)
{
	return fdt_setprop_u32(f, fdt_path_offset(f, "/tile"), "wsemu,dmem-bytes", 3000);
}
static int e_model(void *f) { return fdt_setprop(f, 0, "model", "abc", 3); }

static void test_bad_props(void **s)
{
	(void)s;
	expect_bad(e_no_rows, "missing property wsemu,rows");
	expect_bad(e_zero_cols, "wsemu,columns = 0 out of range");
	expect_bad(e_huge_cols, "wsemu,columns = 65 out of range");
	expect_bad(e_two_cells, "must be one cell");
	expect_bad(e_vc_map, "color-vc-map[31] = 9");
	expect_bad(e_short_map, "must have 32 cells");
	expect_bad(e_depth, "power of two");
	expect_bad(e_compat, "/mesh: not compatible");
	expect_bad(e_root, "/: not compatible");
	expect_bad(e_no_tile, "node /tile");
	expect_bad(e_no_link, "node /link");
	expect_bad(e_width, "multiple of 64");
	expect_bad(e_dmem, "powers of two");
	expect_bad(e_model, "not a string");
}

static void test_corrupt(void **s)
{
	(void)s;
	uint8_t buf[8192], c[8192];
	size_t n = load("sim-4x4", buf, sizeof(buf));
	struct wse_info in = {.size = sizeof(in)};
	char err[160];
	/* Truncated at every length. */
	for (size_t k = 0; k < n; k++) {
		memcpy(c, buf, k);
		assert_int_equal(wse_parse_dtb(c, k, &in, err, sizeof(err)),
				 WSE_ERROR_BAD_DTB);
		assert_true(err[0] != 0);
	}
	/* Every byte of the header and structure flipped: rejected or (if
	 * the flip only touches a value) parsed, never a crash. */
	int rejected = 0;
	for (size_t k = 0; k < n; k++) {
		memcpy(c, buf, n);
		c[k] ^= 0xA5;
		int r = wse_parse_dtb(c, n, &in, err, sizeof(err));
		assert_true(r == 0 || r == WSE_ERROR_BAD_DTB);
		rejected += r != 0;
	}
	assert_true(rejected > (int)n / 4);
	memcpy(c, buf, n);
	c[0] = 0;
	assert_int_equal(wse_parse_dtb(c, n, &in, err, sizeof(err)), WSE_ERROR_BAD_DTB);
	assert_non_null(strstr(err, "not a valid device tree"));
	/* Parameter checks. */
	assert_int_equal(wse_parse_dtb(NULL, n, &in, NULL, 0), WSE_ERROR_INVALID_PARAM);
	assert_int_equal(wse_parse_dtb(buf, n, NULL, NULL, 0), WSE_ERROR_INVALID_PARAM);
	struct wse_info z = {.size = 0};
	assert_int_equal(wse_parse_dtb(buf, n, &z, NULL, 0), WSE_ERROR_INVALID_PARAM);
}

/* Blobs on which libfdt 1.6's fdt_check_full() alone reads through NULL
 * are refused with BAD_DTB: an old-version header over a structure block
 * shifted by a byte (found by fuzz_link), a property whose name offset
 * points past the strings block; and any version before 16. */
static void test_libfdt_traps(void **s)
{
	(void)s;
	uint8_t buf[8192];
	struct wse_info in = {.size = sizeof(in)};
	char err[160];
	const char *dir = getenv("WSE_TEST_DTB_DIR");
	char path[512];
	snprintf(path, sizeof(path), "%s/v8-shifted-struct.dtb",
		 dir ? dir : "tests/hostlib/dtb");
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)),
			 WSE_ERROR_BAD_DTB);
	assert_non_null(strstr(err, "version 8"));

	n = load("sim-4x4", buf, sizeof(buf));
	int prop = fdt_first_property_offset(buf, 0);
	assert_true(prop >= 0);
	/* struct fdt_property: tag, len, nameoff (big-endian u32s) */
	uint8_t *nameoff = buf + fdt_off_dt_struct(buf) + prop + 8;
	uint32_t past = fdt_size_dt_strings(buf) + 100;
	for (int i = 0; i < 4; i++)
		nameoff[i] = (uint8_t)(past >> (24 - 8 * i));
	assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)),
			 WSE_ERROR_BAD_DTB);
	assert_non_null(strstr(err, "not a valid device tree"));

	n = load("sim-4x4", buf, sizeof(buf));
	fdt_set_version(buf, 16);
	assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)), 0);
	fdt_set_version(buf, 15);
	fdt_set_last_comp_version(buf, 2);
	assert_int_equal(wse_parse_dtb(buf, n, &in, err, sizeof(err)),
			 WSE_ERROR_BAD_DTB);
	assert_non_null(strstr(err, "version 15"));
}

/* A DTB inside a link packet sits at any byte address, where libfdt alone
 * refuses it (FDT_ERR_ALIGNMENT) and a property read through a misaligned
 * struct pointer is undefined (found by fuzz_link; UBSan fails the san
 * run). Each board parses the same from the eight alignments, and a blob
 * refused aligned is refused with the same message at an odd address. */
static void test_unaligned(void **s)
{
	(void)s;
	static const char *boards[] = {"sim-2x2", "sim-4x4", "sim-8x8"};
	static uint8_t buf[8192] __attribute__((aligned(8)));
	static uint8_t shifted[8192 + 8] __attribute__((aligned(8)));
	for (size_t i = 0; i < 3; i++) {
		size_t n = load(boards[i], buf, sizeof(buf));
		struct wse_info want = {.size = sizeof(want)};
		assert_int_equal(wse_parse_dtb(buf, n, &want, NULL, 0), 0);
		for (size_t a = 1; a < 8; a++) {
			struct wse_info got = {.size = sizeof(got)};
			char err[160];
			memcpy(shifted + a, buf, n);
			int r = wse_parse_dtb(shifted + a, n, &got, err, sizeof(err));
			if (r)
				print_error("at +%zu: %s\n", a, err);
			assert_int_equal(r, 0);
			assert_memory_equal(&got, &want, sizeof(got));
		}
		/* Color 5 mapped past the virtual channels. */
		int m = fdt_path_offset(buf, "/mesh");
		int len;
		const uint8_t *map = fdt_getprop(buf, m, "wsemu,color-vc-map", &len);
		assert_non_null(map);
		assert_int_equal(len, 32 * 4);
		buf[(size_t)(map - buf) + 4 * 5 + 3] = 9;
		char want_err[160], err[160];
		assert_int_equal(wse_parse_dtb(buf, n, &want, want_err,
					       sizeof(want_err)), WSE_ERROR_BAD_DTB);
		assert_non_null(strstr(want_err, "color-vc-map[5] = 9"));
		for (size_t a = 1; a < 8; a++) {
			struct wse_info got = {.size = sizeof(got)};
			memcpy(shifted + a, buf, n);
			assert_int_equal(wse_parse_dtb(shifted + a, n, &got, err,
						       sizeof(err)), WSE_ERROR_BAD_DTB);
			assert_string_equal(err, want_err);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boards),
		cmocka_unit_test(test_bad_props),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_libfdt_traps),
		cmocka_unit_test(test_unaligned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
