/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_usb: the pure parts of the usb: transport (host-lib/src/usb_ftdi.c):
 * FTDI baud divisors against the rules of AN232B-05 and the H-series
 * data sheets, removal of the two status bytes of every bulk-IN packet
 * (with line errors counted), and the URI arguments. Also that "usb:" with
 * bad arguments fails in wse_open with INVALID_PARAM before touching USB,
 * and an absent board with NOT_FOUND after the open time-out.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "usb_ftdi.h"
#include "wsehost.h"

static const struct wse_ftdi_chip *chip(uint16_t pid)
{
	const struct wse_ftdi_chip *c = wsei_ftdi_chip_find(0x0403, pid);
	assert_non_null(c);
	return c;
}

static void check_baud(uint16_t pid, unsigned baud, uint32_t want_div,
		       uint16_t want_index, unsigned want_actual)
{
	uint32_t div = 0xdeadbeef;
	uint16_t val, idx;
	unsigned actual;
	assert_int_equal(wsei_ftdi_baud(chip(pid), baud, 0, &div, &val, &idx,
				       &actual), 0);
	assert_int_equal(div, want_div);
	assert_int_equal(val, want_div & 0xffff);
	assert_int_equal(idx, want_index);
	assert_int_equal(actual, want_actual);
}

/* wsei_ftdi_baud's status alone, on interface 0. */
static int baud_status(uint16_t pid, unsigned baud)
{
	uint32_t d;
	uint16_t v, x;
	unsigned a;
	return wsei_ftdi_baud(chip(pid), baud, 0, &d, &v, &x, &a);
}

static void test_chips(void **s)
{
	(void)s;
	assert_string_equal(chip(0x6015)->name, "FT231X");
	assert_string_equal(chip(0x6001)->name, "FT232R");
	assert_string_equal(chip(0x6010)->name, "FT2232H");
	assert_string_equal(chip(0x6014)->name, "FT232H");
	assert_int_equal(chip(0x6015)->default_baud, 3000000);
	assert_null(wsei_ftdi_chip_find(0x0403, 0x6011));
	assert_null(wsei_ftdi_chip_find(0x1234, 0x6015));
}

/*
 * Divisors of every chip: FT232R and FT-X divide 3 MHz by n + f/8 (n = 0
 * is 3 Mbaud, n = 1 is 2 Mbaud; eighths coded 0,3,2,4,1,5,6,7 in bits
 * 14-16, bit 16 in wIndex). The H series divides 12 MHz with bit 17 set,
 * divisor bits 16-17 in wIndex's high byte and the port index
 * (interface + 1) in its low byte, and takes slow rates from 3 MHz.
 */
static void test_baud(void **s)
{
	(void)s;
	static const struct {
		uint8_t hispeed;
		unsigned baud;
		uint32_t div;
		uint16_t index;
		unsigned actual;
	} cases[] = {
		{0, 3000000, 0, 0, 3000000},
		{0, 2000000, 1, 0, 2000000},
		{0, 115200, 0x001a, 0, 115385},  /* 26 */
		{0, 9600, 0x4138, 0, 9600},      /* 312.5 */
		{0, 1000000, 3, 0, 1000000},
		{0, 921600, 0x8003, 0, 923077},  /* 3.25: code 2 */
		{0, 300, 10000, 0, 300},
		{0, 960000, 0xc003, 0, 960000},  /* 3.125: code 3 */
		{0, 774194, 0x1c003, 1, 774194}, /* 3.875: code 7, bit 16 */
		{0, 3050000, 0, 0, 3000000},     /* 1.6 % off 3 Mbaud */
		{1, 12000000, 0x20000, 0x0201, 12000000},
		{1, 8000000, 0x20001, 0x0201, 8000000},
		{1, 3000000, 0x20004, 0x0201, 3000000},
		{1, 115200, 0x2c068, 0x0201, 115246}, /* 104.125 */
		{1, 9600, 0x204e2, 0x0201, 9600},     /* 1250 */
		{1, 300, 10000, 0x0001, 300},         /* the 3 MHz clock */
	};
	static const uint16_t pids[] = {0x6001, 0x6015, 0x6014, 0x6010};
	for (unsigned i = 0; i < 4; i++)
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
			if (cases[c].hispeed == chip(pids[i])->hispeed)
				check_baud(pids[i], cases[c].baud, cases[c].div,
					   cases[c].index, cases[c].actual);
	for (unsigned i = 0; i < 2; i++) {
		/* 2.4 Mbaud lies between 3 and 2: refused (20 % off). */
		assert_int_equal(baud_status(pids[i], 2400000), WSE_ERROR_RANGE);
		assert_int_equal(baud_status(pids[i], 4000000), WSE_ERROR_RANGE);
		/* below 3 MHz / 16383.875 */
		assert_int_equal(baud_status(pids[i], 150), WSE_ERROR_RANGE);
		assert_int_equal(baud_status(pids[i], 0), WSE_ERROR_RANGE);
	}
}

static void test_baud_h(void **s)
{
	(void)s;
	uint32_t d;
	uint16_t v, x;
	unsigned a;
	/* Interface B of an FT2232H: port index 2. */
	assert_int_equal(wsei_ftdi_baud(chip(0x6010), 12000000, 1, &d, &v, &x, &a), 0);
	assert_int_equal(x, 0x0202);
	assert_int_equal(baud_status(0x6014, 13000000), WSE_ERROR_RANGE);
	/* between 12 and 8 */
	assert_int_equal(baud_status(0x6014, 10000000), WSE_ERROR_RANGE);
}

/*
 * Strip one transfer built of packets of the given sizes and line status
 * bytes (status 01 ls, then payload bytes 0, 1, 2, ... across packets);
 * the payload must come out as that sequence, want_len long, with
 * want_errors packets counted.
 */
static void check_strip(size_t maxpkt, const size_t *sizes, const uint8_t *ls,
			size_t npkt, size_t want_len, uint64_t want_errors)
{
	static uint8_t b[8192];
	uint8_t next = 0;
	size_t n = 0;
	uint64_t le = 0;
	for (size_t k = 0; k < npkt; n += sizes[k++]) {
		b[n] = 0x01;
		if (sizes[k] > 1)
			b[n + 1] = ls[k];
		for (size_t i = 2; i < sizes[k]; i++)
			b[n + i] = next++;
	}
	assert_int_equal(wsei_ftdi_strip(b, n, maxpkt, &le), want_len);
	for (size_t i = 0; i < want_len; i++)
		assert_int_equal(b[i], (uint8_t)i);
	assert_int_equal(le, want_errors);
}

static void test_strip(void **s)
{
	(void)s;
	/* Three full packets of 64 and a short one of 10. */
	static const size_t s1[] = {64, 64, 64, 10};
	static const uint8_t l1[] = {0x60, 0x60, 0x60, 0x60};
	check_strip(64, s1, l1, 4, 3 * 62 + 8, 0);
	/* A packet of the two status bytes only, alone and last. */
	static const size_t s2[] = {64, 2};
	check_strip(64, s2 + 1, l1, 1, 0, 0);
	check_strip(64, s2, l1, 2, 62, 0);
	/* Line errors: OE, PE, FE, BI each count once per packet; THRE and
	 * TEMT (bits 5, 6) and the FIFO error bit 7 do not. */
	static const size_t s3[] = {64, 64, 64, 64, 64, 64, 3};
	static const uint8_t l3[] = {0x02, 0x04, 0x08, 0x10, 0x1e, 0xe0, 0x02};
	check_strip(64, s3, l3, 7, 6 * 62 + 1, 6);
	/* High-speed packets of 512, and an empty transfer. */
	static const size_t s4[] = {512, 512, 100};
	static const uint8_t l4[] = {0, 0, 0x08};
	check_strip(512, s4, l4, 3, 510 * 2 + 98, 1);
	check_strip(512, s4, l4, 0, 0, 0);
	/* A one-byte runt carries nothing. */
	static const size_t s5[] = {64, 1};
	check_strip(64, s5, l4, 2, 62, 0);
}

static void test_parse(void **s)
{
	(void)s;
	struct wse_usb_sel sel;
	char err[160];
	assert_int_equal(wsei_usb_parse("", &sel, err, sizeof(err)), 0);
	assert_int_equal(sel.serial[0] | sel.bus | sel.have_id | sel.baud, 0);
	assert_int_equal(wsei_usb_parse(NULL, &sel, err, sizeof(err)), 0);

	assert_int_equal(wsei_usb_parse("serial=FT5ABC12", &sel, err, sizeof(err)), 0);
	assert_string_equal(sel.serial, "FT5ABC12");

	assert_int_equal(wsei_usb_parse("bus=3,port=1.2", &sel, err, sizeof(err)), 0);
	assert_int_equal(sel.bus, 3);
	assert_string_equal(sel.port, "1.2");
	assert_int_equal(wsei_usb_parse("port=4,bus=1", &sel, err, sizeof(err)), 0);
	assert_int_equal(sel.bus, 1);
	assert_string_equal(sel.port, "4");

	assert_int_equal(wsei_usb_parse("vid=0403,pid=0x6015", &sel, err, sizeof(err)), 0);
	assert_true(sel.have_id);
	assert_int_equal(sel.vid, 0x0403);
	assert_int_equal(sel.pid, 0x6015);
	assert_int_equal(wsei_usb_parse("vid=0x1D50,pid=6130,baud=115200", &sel, err,
				       sizeof(err)), 0);
	assert_int_equal(sel.vid, 0x1d50);
	assert_int_equal(sel.pid, 0x6130);
	assert_int_equal(sel.baud, 115200);
	assert_int_equal(wsei_usb_parse("serial=A,bus=1,port=2,baud=3000000", &sel,
				       err, sizeof(err)), 0);

	static const struct {
		const char *args, *msg;
	} bad[] = {
		{"speed=3", "unknown argument 'speed=3'"},
		{"serial", "needs a value"},
		{"serial=", "needs a value"},
		{"serial=a,serial=b", "given twice"},
		{"bus=1", "go together"},
		{"port=1", "go together"},
		{"vid=0403", "go together"},
		{"pid=6015", "go together"},
		{"bus=0,port=1", "bad value '0' of 'bus'"},
		{"bus=256,port=1", "bad value"},
		{"bus=x,port=1", "bad value"},
		{"bus=1,port=1..2", "bad value"},
		{"bus=1,port=1.", "bad value"},
		{"bus=1,port=0", "bad value"},
		{"bus=1,port=1.2.3.4.5.6.7.8", "bad value"},
		{"vid=10000,pid=1", "bad value '10000' of 'vid'"},
		{"vid=0x,pid=1", "bad value"},
		{"vid=g,pid=1", "bad value"},
		{"vid=-1,pid=1", "bad value"},
		{"baud=0", "bad value"},
		{"baud=12k", "bad value"},
		{"baud=99999999999999999999", "bad value"},
		{"serial=a,", "trailing comma"},
		{",serial=a", "unknown argument"},
		{"serial=0123456789012345678901234567890123456789012345678901234567890123456789",
		 "bad value"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		int r = wsei_usb_parse(bad[i].args, &sel, err, sizeof(err));
		if (r != WSE_ERROR_INVALID_PARAM || !strstr(err, bad[i].msg))
			fail_msg("'%s': %d '%s'", bad[i].args, r, err);
	}
}

static void test_strings(void **s)
{
	(void)s;
	char b[64];
	static const uint8_t ports[] = {1, 2, 14};
	wsei_usb_port_path(ports, 3, b, sizeof(b));
	assert_string_equal(b, "1.2.14");
	wsei_usb_port_path(ports, 1, b, sizeof(b));
	assert_string_equal(b, "1");
	struct wse_usb_sel sel;
	char err[160];
	assert_int_equal(wsei_usb_parse("bus=2,port=1.3,serial=X", &sel, err,
				       sizeof(err)), 0);
	wsei_usb_sel_str(&sel, b, sizeof(b));
	assert_string_equal(b, " serial=X bus=2 port=1.3");
}

static int logged;
static const char *want_log;
static void log_cb(void *user, enum wse_log_level lv, const char *msg)
{
	(void)user, (void)lv;
	if (strstr(msg, want_log))
		logged = 1;
}

/* wse_open(uri) with open_timeout_ms to must fail with want, logging a
 * message that contains msg; returns the milliseconds it took. */
static long open_fails(const char *uri, int to, int want, const char *msg)
{
	struct wse_open_opts o = {.size = sizeof(o), .open_timeout_ms = to,
				  .log_cb = log_cb, .log_level = WSE_LOG_ERROR};
	wse_device *d = NULL;
	struct timespec a, b;
	logged = 0;
	want_log = msg;
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(wse_open(&d, uri, &o), want);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_null(d);
	assert_true(logged);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* Bad arguments never reach libusb; the message names the key. No such
 * board: the whole open path (libusb context, hotplug or polled scan,
 * clean-up) ends in NOT_FOUND after the open time-out, the log naming
 * what was searched for; ASan checks nothing is left allocated. */
static void test_open_errors(void **s)
{
	(void)s;
	open_fails("usb:colour=red", 100, WSE_ERROR_INVALID_PARAM,
		   "unknown argument 'colour=red'");
	open_fails("usb:vid=403", 100, WSE_ERROR_INVALID_PARAM,
		   "vid= and pid= go together");
	long ms = open_fails("usb:serial=no-such-board-0", 200,
			     WSE_ERROR_NOT_FOUND, "serial=no-such-board-0");
	assert_true(ms >= 150 && ms < 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chips),
		cmocka_unit_test(test_baud),
		cmocka_unit_test(test_baud_h),
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
