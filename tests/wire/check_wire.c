// SPDX-License-Identifier: Apache-2.0
/*
 * check_wire: the C header include/wsemu/wse_wire.h and the RTL package
 * rtl/pkg/wse_pkg.sv must define the same wire constants. Reads every
 * `localparam int unsigned Name = value;` of the package and compares the
 * pairs listed below; fails on a missing name or a different value.
 *   check_wire rtl/pkg/wse_pkg.sv
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsemu/wse_wire.h>

struct pair {
	const char *sv_name;
	unsigned long long c_value;
	const char *c_name;
};

#define P(sv, c) { sv, (unsigned long long)(c), #c }
static const struct pair pairs[] = {
	P("DataW", WSE_DATA_BITS),
	P("ColorW", WSE_COLOR_BITS),
	P("WaveletW", WSE_WAVELET_BITS),
	P("ColorLsb", WSE_COLOR_LSB),
	P("CtrlBit", WSE_CTRL_BIT),
	P("NumColors", WSE_NUM_COLORS),
	P("FirstInfraColor", WSE_FIRST_INFRA_COLOR),
	P("NumPorts", WSE_NUM_PORTS),
	P("PortNorth", WSE_PORT_NORTH),
	P("PortEast", WSE_PORT_EAST),
	P("PortSouth", WSE_PORT_SOUTH),
	P("PortWest", WSE_PORT_WEST),
	P("PortRamp", WSE_PORT_RAMP),
};

/* Parse "localparam int unsigned NAME = VALUE;" (VALUE decimal, 'h or 0x). */
static int find(const char *text, const char *name, unsigned long long *val)
{
	const char *p = text;
	size_t n = strlen(name);
	while ((p = strstr(p, "localparam")) != NULL) {
		const char *q = p + 10;
		p = q;
		const char *eq = strchr(q, '=');
		const char *semi = strchr(q, ';');
		if (!eq || !semi || eq > semi)
			continue;
		const char *e = eq;
		while (e > q && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if ((size_t)(e - q) < n || strncmp(e - n, name, n) ||
		    (e - n > q && e[-n - 1] != ' '))
			continue;
		const char *v = eq + 1;
		while (*v == ' ')
			v++;
		const char *tick = strchr(v, '\'');
		if (tick && tick < semi) {
			int base = tick[1] == 'h' ? 16 : tick[1] == 'b' ? 2 : 10;
			*val = strtoull(tick + 2, NULL, base);
		} else {
			*val = strtoull(v, NULL, 0);
		}
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s wse_pkg.sv\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	static char text[1 << 20];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	int bad = 0;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		unsigned long long v;
		if (find(text, pairs[i].sv_name, &v)) {
			printf("FAIL %s: not in %s\n", pairs[i].sv_name, argv[1]);
			bad = 1;
		} else if (v != pairs[i].c_value) {
			printf("FAIL %s = %llu, but %s = %llu\n", pairs[i].sv_name,
			       v, pairs[i].c_name, pairs[i].c_value);
			bad = 1;
		}
	}
	/* The inline helpers pack the layout the constants describe. */
	wse_u64 w = wse_wavelet(0xdeadbeefu, 29, 1);
	if (wse_wavelet_data(w) != 0xdeadbeefu || wse_wavelet_color(w) != 29 ||
	    !wse_wavelet_ctrl(w) || (w >> WSE_WAVELET_BITS) != 0) {
		printf("FAIL wavelet packing\n");
		bad = 1;
	}
	if (!bad)
		printf("PASS %zu wire constants agree between C and RTL\n",
		       sizeof(pairs) / sizeof(pairs[0]));
	return bad;
}
