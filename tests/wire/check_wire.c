// SPDX-License-Identifier: Apache-2.0
/*
 * check_wire: the C headers and the RTL packages must define the same
 * constants: include/wsemu/wse_wire.h and rtl/pkg/wse_pkg.sv (the wavelet
 * and the ports), include/wsemu/wse_regs.h and rtl/fabric/wse_mgmt_pkg.sv
 * (the tile register map). Reads every `localparam ... Name = value;` of
 * a package and compares the pairs listed below; fails on a missing name
 * or a different value.
 *   check_wire rtl/pkg/wse_pkg.sv rtl/fabric/wse_mgmt_pkg.sv
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsemu/wse_regs.h>
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
static const struct pair mgmt_pairs[] = {
	P("AddrTileId", WSE_REG_TILE_ID),
	P("AddrTileCtrl", WSE_REG_TILE_CTRL),
	P("AddrTileStatus", WSE_REG_TILE_STATUS),
	P("AddrRouteBase", WSE_REG_ROUTE_BASE),
	P("AddrCntBase", WSE_REG_CNT_BASE),
	P("AddrTileBus", WSE_REG_TILE_BUS),
	P("TileIdMagic", WSE_TILE_ID_MAGIC),
	P("TileCtrlHalt", WSE_TILE_CTRL_HALT),
	P("TileCtrlCoreRst", WSE_TILE_CTRL_CORE_RESET),
	P("TileCtrlCntClear", WSE_TILE_CTRL_CNT_CLEAR),
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
		/* the value without SystemVerilog's digit separators */
		char digits[64];
		size_t nd = 0;
		const char *d = (tick && tick < semi) ? tick + 2 : v;
		for (; d < semi && nd < sizeof(digits) - 1; d++)
			if (*d != '_')
				digits[nd++] = *d;
		digits[nd] = 0;
		if (tick && tick < semi) {
			int base = tick[1] == 'h' ? 16 : tick[1] == 'b' ? 2 : 10;
			*val = strtoull(digits, NULL, base);
		} else {
			*val = strtoull(digits, NULL, 0);
		}
		return 0;
	}
	return -1;
}

/* Compare the pairs with the package in path; 1 on any difference. */
static int check(const char *path, const struct pair *pp, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	static char text[1 << 20];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	int bad = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned long long v;
		if (find(text, pp[i].sv_name, &v)) {
			printf("FAIL %s: not in %s\n", pp[i].sv_name, path);
			bad = 1;
		} else if (v != pp[i].c_value) {
			printf("FAIL %s = %llu, but %s = %llu\n", pp[i].sv_name,
			       v, pp[i].c_name, pp[i].c_value);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s wse_pkg.sv wse_mgmt_pkg.sv\n", argv[0]);
		return 2;
	}
	int bad = check(argv[1], pairs, sizeof(pairs) / sizeof(pairs[0]));
	bad |= check(argv[2], mgmt_pairs, sizeof(mgmt_pairs) / sizeof(mgmt_pairs[0]));
	/* The inline helpers pack the layout the constants describe. */
	wse_u64 w = wse_wavelet(0xdeadbeefu, 29, 1);
	if (wse_wavelet_data(w) != 0xdeadbeefu || wse_wavelet_color(w) != 29 ||
	    !wse_wavelet_ctrl(w) || (w >> WSE_WAVELET_BITS) != 0) {
		printf("FAIL wavelet packing\n");
		bad = 1;
	}
	if (!bad)
		printf("PASS %zu wire and %zu register-map constants agree between C and RTL\n",
		       sizeof(pairs) / sizeof(pairs[0]), sizeof(mgmt_pairs) / sizeof(mgmt_pairs[0]));
	return bad;
}
