/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_ftdi.c - the pure parts of the "usb:" transport (usb_ftdi.h): URI
 * arguments, the FTDI chip table, baud divisors, status-byte stripping.
 *
 * Baud divisors (FTDI AN232B-05 and the H-series data sheets): the chip
 * divides a base clock (3 MHz on the FT232R and FT-X series; 12 MHz on
 * the H series when divisor bit 17 is set, else 3 MHz) by n + f/8, n of
 * 14 bits (divisor bits 0-13) and the eighths f coded in bits 14-16 as
 * 0 -> 0, 1/8 -> 3, 1/4 -> 2, 3/8 -> 4, 1/2 -> 1, 5/8 -> 5, 3/4 -> 6,
 * 7/8 -> 7. n = 1 means 1.5 (2/3 of the clock) and n = 0 the clock
 * itself; other divisors below 2 do not exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usb_ftdi.h"
#include "wsemu/wse_error.h"

const struct wse_ftdi_chip wsei_ftdi_chips[] = {
	{0x0403, 0x6015, "FT231X", 3000000, 0, 1},
	{0x0403, 0x6001, "FT232R", 3000000, 0, 1},
	{0x0403, 0x6010, "FT2232H", 3000000, 1, 2},
	{0x0403, 0x6014, "FT232H", 3000000, 1, 1},
	{0, 0, NULL, 0, 0, 0},
};

const struct wse_ftdi_chip *wsei_ftdi_chip_find(uint16_t vid, uint16_t pid)
{
	for (const struct wse_ftdi_chip *c = wsei_ftdi_chips; c->name; c++)
		if (c->vid == vid && c->pid == pid)
			return c;
	return NULL;
}

#define DIV8_MAX (0x3fffu * 8 + 7)

/* Eighths of the divisor the chip can make nearest to clk8 / baud
 * (clk8 = 8 x the base clock): 8 (n = 1 coded as 0), 12 (n = 1), or
 * 16..DIV8_MAX; 0 if baud is too slow for this clock. */
static unsigned nearest_div8(unsigned long long clk8, unsigned baud)
{
	unsigned long long d = (clk8 + baud / 2) / baud;
	if (d > DIV8_MAX)
		return 0;
	if (d <= 8)
		return 8;
	if (d < 16) {
		/* Between the clock and clock/2 only /1 and /1.5 exist. */
		static const unsigned have[] = {8, 12, 16};
		unsigned best = 8;
		unsigned long long be = ~0ull;
		for (unsigned i = 0; i < 3; i++) {
			unsigned long long r = clk8 / have[i];
			unsigned long long e = r > baud ? r - baud : baud - r;
			if (e < be) {
				be = e;
				best = have[i];
			}
		}
		return best;
	}
	return (unsigned)d;
}

static uint32_t encode_div8(unsigned d8)
{
	static const uint8_t frac_code[8] = {0, 3, 2, 4, 1, 5, 6, 7};
	if (d8 == 8)
		return 0;
	if (d8 == 12)
		return 1;
	return (d8 >> 3) | ((uint32_t)frac_code[d8 & 7] << 14);
}

int wsei_ftdi_baud(const struct wse_ftdi_chip *chip, unsigned baud,
		  unsigned ifnum, uint32_t *divisor, uint16_t *value,
		  uint16_t *index, unsigned *actual)
{
	const unsigned long long clk3 = 8ull * 3000000, clk12 = 8ull * 12000000;
	if (!baud)
		return WSE_ERROR_RANGE;
	unsigned long long clk = clk3;
	unsigned d8 = 0;
	if (chip->hispeed) {
		d8 = nearest_div8(clk12, baud);
		clk = clk12;
	}
	if (!d8) {
		clk = clk3;
		d8 = nearest_div8(clk3, baud);
	}
	if (!d8)
		return WSE_ERROR_RANGE;
	unsigned long long got = (clk + d8 / 2) / d8;
	unsigned long long err = got > baud ? got - baud : baud - got;
	if (err * 100 > 3ull * baud)
		return WSE_ERROR_RANGE;
	uint32_t div = encode_div8(d8);
	if (clk == clk12)
		div |= 0x20000;
	*divisor = div;
	*value = (uint16_t)div;
	if (chip->hispeed)
		*index = (uint16_t)(((div >> 16) << 8) | (ifnum + 1));
	else
		*index = (uint16_t)(div >> 16);
	*actual = (unsigned)got;
	return 0;
}

size_t wsei_ftdi_strip(uint8_t *buf, size_t len, size_t maxpkt,
		      uint64_t *line_errors)
{
	size_t out = 0;
	if (maxpkt < 3)
		return 0;
	for (size_t off = 0; off < len; off += maxpkt) {
		size_t n = len - off < maxpkt ? len - off : maxpkt;
		if (n < 2)
			break;
		if (buf[off + 1] & WSE_FTDI_LS_ERRORS)
			(*line_errors)++;
		memmove(buf + out, buf + off + 2, n - 2);
		out += n - 2;
	}
	return out;
}

/* ---- URI arguments --------------------------------------------------- */

/* Parse v[0..n) as a number in base (10 or 16, "0x" optional for 16) no
 * larger than max into *out. 0 or INVALID_PARAM. */
static int parse_num(const char *v, size_t n, int base, unsigned long max,
		     unsigned long *out)
{
	char tmp[24];
	if (base == 16 && n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		v += 2;
		n -= 2;
	}
	if (!n || n >= sizeof(tmp))
		return WSE_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		int ok = (c >= '0' && c <= '9') ||
			 (base == 16 && ((c >= 'a' && c <= 'f') ||
					 (c >= 'A' && c <= 'F')));
		if (!ok)
			return WSE_ERROR_INVALID_PARAM;
	}
	memcpy(tmp, v, n);
	tmp[n] = 0;
	unsigned long x = strtoul(tmp, NULL, base);
	if (x > max)
		return WSE_ERROR_INVALID_PARAM;
	*out = x;
	return 0;
}

/* A port path: 1 to 7 numbers 1..255 joined by dots. */
static int valid_port(const char *v, size_t n)
{
	size_t i = 0;
	for (int level = 0; level < 7; level++) {
		size_t s = i;
		while (i < n && v[i] != '.')
			i++;
		unsigned long x;
		if (parse_num(v + s, i - s, 10, 255, &x) || !x)
			return 0;
		if (i == n)
			return 1;
		i++; /* the dot */
	}
	return 0;
}

int wsei_usb_parse(const char *args, struct wse_usb_sel *sel, char *err,
		  size_t errlen)
{
	static const char *const keys[] = {"serial", "bus", "port", "vid",
					   "pid", "baud"};
	unsigned seen = 0;
	unsigned long x;
	memset(sel, 0, sizeof(*sel));
	err[0] = 0;
	for (const char *p = args ? args : ""; *p;) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		size_t kl = eq ? (size_t)(eq - p) : n;
		unsigned k;
		for (k = 0; k < 6; k++)
			if (strlen(keys[k]) == kl && !strncmp(p, keys[k], kl))
				break;
		if (k == 6) {
			snprintf(err, errlen,
				 "unknown argument '%.*s' (known: serial=, bus= with port=, vid= with pid=, baud=)",
				 (int)n, p);
			return WSE_ERROR_INVALID_PARAM;
		}
		if (!eq || eq + 1 == p + n) {
			snprintf(err, errlen, "'%s' needs a value", keys[k]);
			return WSE_ERROR_INVALID_PARAM;
		}
		if (seen & (1u << k)) {
			snprintf(err, errlen, "'%s' given twice", keys[k]);
			return WSE_ERROR_INVALID_PARAM;
		}
		seen |= 1u << k;
		const char *v = eq + 1;
		size_t vl = n - kl - 1;
		int bad = 0;
		switch (k) {
		case 0:
			if (vl >= sizeof(sel->serial))
				bad = 1;
			else
				memcpy(sel->serial, v, vl);
			break;
		case 1:
			bad = parse_num(v, vl, 10, 255, &x) || !x;
			sel->bus = (unsigned)x;
			break;
		case 2:
			bad = vl >= sizeof(sel->port) || !valid_port(v, vl);
			if (!bad)
				memcpy(sel->port, v, vl);
			break;
		case 3:
		case 4:
			bad = parse_num(v, vl, 16, 0xffff, &x) != 0;
			if (k == 3)
				sel->vid = (uint16_t)x;
			else
				sel->pid = (uint16_t)x;
			break;
		default:
			bad = parse_num(v, vl, 10, 100000000, &x) || !x;
			sel->baud = (unsigned)x;
			break;
		}
		if (bad) {
			snprintf(err, errlen, "bad value '%.*s' of '%s'",
				 (int)vl, v, keys[k]);
			return WSE_ERROR_INVALID_PARAM;
		}
		p += n;
		if (*p == ',' && !*++p) {
			snprintf(err, errlen, "trailing comma");
			return WSE_ERROR_INVALID_PARAM;
		}
	}
	if (!(seen & 2) != !(seen & 4)) {
		snprintf(err, errlen, "bus= and port= go together");
		return WSE_ERROR_INVALID_PARAM;
	}
	if (!(seen & 8) != !(seen & 16)) {
		snprintf(err, errlen, "vid= and pid= go together");
		return WSE_ERROR_INVALID_PARAM;
	}
	sel->have_id = (seen & 8) != 0;
	return 0;
}

void wsei_usb_port_path(const uint8_t *ports, int n, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < n && o < cap; i++) {
		int w = snprintf(out + o, cap - o, i ? ".%u" : "%u", ports[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (!n)
		snprintf(out, cap, "0");
}

void wsei_usb_sel_str(const struct wse_usb_sel *sel, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = 0;
	if (sel->serial[0])
		o += (size_t)snprintf(out, cap, " serial=%s", sel->serial);
	if (sel->bus && o < cap)
		o += (size_t)snprintf(out + o, cap - o, " bus=%u port=%s",
				      sel->bus, sel->port);
	if (sel->have_id && o < cap)
		o += (size_t)snprintf(out + o, cap - o, " vid=%04x pid=%04x",
				      sel->vid, sel->pid);
	if (!o)
		snprintf(out, cap, " any");
}
