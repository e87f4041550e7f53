// SPDX-License-Identifier: Apache-2.0
/*
 * check_wire: the C headers and the RTL packages must define the same
 * constants: include/wsemu/wse_wire.h and rtl/pkg/wse_pkg.sv (the wavelet
 * and the ports), include/wsemu/wse_regs.h and rtl/fabric/wse_mgmt_pkg.sv
 * (the tile register map), include/wsemu/wse_pcie.h and
 * rtl/host_if/hif_pcie_pkg.sv (the PCIe device side). Reads every `localparam ... Name = value;` of
 * a package and compares the pairs listed below; fails on a missing name
 * or a different value.
 *   check_wire rtl/pkg/wse_pkg.sv rtl/fabric/wse_mgmt_pkg.sv rtl/host_if/hif_pcie_pkg.sv
 * The PCIe package must also define nothing the header lacks.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wsemu/wse_pcie.h>
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

/* The PCIe device side: wse_pcie.h against hif_pcie_pkg.sv. */
static const struct pair pcie_pairs[] = {
	P("PcieMagic", WSE_PCIE_MAGIC),
	P("PcieVersion", WSE_PCIE_VERSION),
	P("PcieRegMagic", WSE_PCIE_REG_MAGIC),
	P("PcieRegMeshCols", WSE_PCIE_REG_MESH_COLS),
	P("PcieRegMeshRows", WSE_PCIE_REG_MESH_ROWS),
	P("PcieRegDtbSize", WSE_PCIE_REG_DTB_SIZE),
	P("PcieRegMaxPayload", WSE_PCIE_REG_MAX_PAYLOAD),
	P("PcieRegVersion", WSE_PCIE_REG_VERSION),
	P("PcieRegDtbOffset", WSE_PCIE_REG_DTB_OFFSET),
	P("PcieRegDescMax", WSE_PCIE_REG_DESC_MAX),
	P("PcieRegRingMax", WSE_PCIE_REG_RING_MAX),
	P("PcieRegCompat", WSE_PCIE_REG_COMPAT),
	P("PcieCompatBytes", WSE_PCIE_COMPAT_BYTES),
	P("PcieDtbOffset", WSE_PCIE_DTB_OFFSET),
	P("PcieBarBytes", WSE_PCIE_BAR_BYTES),
	P("PcieRegH2c", WSE_PCIE_REG_H2C),
	P("PcieRegC2h", WSE_PCIE_REG_C2H),
	P("PcieRingBaseLo", WSE_PCIE_RING_BASE_LO),
	P("PcieRingBaseHi", WSE_PCIE_RING_BASE_HI),
	P("PcieRingSize", WSE_PCIE_RING_SIZE),
	P("PcieRingTail", WSE_PCIE_RING_TAIL),
	P("PcieRingHead", WSE_PCIE_RING_HEAD),
	P("PcieRingCtrl", WSE_PCIE_RING_CTRL),
	P("PcieCtrlRun", WSE_PCIE_CTRL_RUN),
	P("PcieCtrlBusy", WSE_PCIE_CTRL_BUSY),
	P("PcieRegIntStatus", WSE_PCIE_REG_INT_STATUS),
	P("PcieRegIntMask", WSE_PCIE_REG_INT_MASK),
	P("PcieRegErrStatus", WSE_PCIE_REG_ERR_STATUS),
	P("PcieVecH2c", WSE_PCIE_VEC_H2C),
	P("PcieVecC2h", WSE_PCIE_VEC_C2H),
	P("PcieVecErr", WSE_PCIE_VEC_ERR),
	P("PcieNumVectors", WSE_PCIE_NUM_VECTORS),
	P("PcieErrRingAlign", WSE_PCIE_ERR_RING_ALIGN),
	P("PcieErrRingSize", WSE_PCIE_ERR_RING_SIZE),
	P("PcieErrDescAlign", WSE_PCIE_ERR_DESC_ALIGN),
	P("PcieErrDescLen", WSE_PCIE_ERR_DESC_LEN),
	P("PcieErrDescRsvd", WSE_PCIE_ERR_DESC_RSVD),
	P("PcieErrTail", WSE_PCIE_ERR_TAIL),
	P("PcieErrTimeout", WSE_PCIE_ERR_TIMEOUT),
	P("PcieErrBus", WSE_PCIE_ERR_BUS),
	P("PcieErrC2hShift", WSE_PCIE_ERR_C2H_SHIFT),
	P("PcieDescBytes", WSE_PCIE_DESC_BYTES),
	P("PcieDescOffAddr", WSE_PCIE_DESC_OFF_ADDR),
	P("PcieDescOffLen", WSE_PCIE_DESC_OFF_LEN),
	P("PcieDescOffFlags", WSE_PCIE_DESC_OFF_FLAGS),
	P("PcieDescNoIrq", WSE_PCIE_DESC_NO_IRQ),
	P("PcieDescFlagsKnown", WSE_PCIE_DESC_FLAGS_KNOWN),
	P("PcieRingAlign", WSE_PCIE_RING_ALIGN),
	P("PcieBufAlign", WSE_PCIE_BUF_ALIGN),
	P("PcieDescMaxLen", WSE_PCIE_DESC_MAX_LEN),
	P("PcieRingMaxEntries", WSE_PCIE_RING_MAX_ENTRIES),
	P("PcieCplOffLen", WSE_PCIE_CPL_OFF_LEN),
	P("PcieCplOffStatus", WSE_PCIE_CPL_OFF_STATUS),
	P("PcieCplDone", WSE_PCIE_CPL_DONE),
	P("PcieCplEop", WSE_PCIE_CPL_EOP),
	P("PcieCplCodeMask", WSE_PCIE_CPL_CODE_MASK),
	P("PcieCplOk", WSE_PCIE_CPL_OK),
	P("PcieCplAlign", WSE_PCIE_CPL_ALIGN),
	P("PcieCplLen", WSE_PCIE_CPL_LEN),
	P("PcieCplRsvd", WSE_PCIE_CPL_RSVD),
	P("PcieCplBus", WSE_PCIE_CPL_BUS),
	P("PcieCplTimeout", WSE_PCIE_CPL_TIMEOUT),
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

/* The number of localparams in the package at path. */
static size_t count_params(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	static char line[4096];
	size_t n = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "localparam "))
			n++;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s wse_pkg.sv wse_mgmt_pkg.sv hif_pcie_pkg.sv\n", argv[0]);
		return 2;
	}
	int bad = check(argv[1], pairs, sizeof(pairs) / sizeof(pairs[0]));
	bad |= check(argv[2], mgmt_pairs, sizeof(mgmt_pairs) / sizeof(mgmt_pairs[0]));
	const size_t npcie = sizeof(pcie_pairs) / sizeof(pcie_pairs[0]);
	bad |= check(argv[3], pcie_pairs, npcie);
	if (count_params(argv[3]) != npcie) {
		printf("FAIL %s defines %zu constants, wse_pcie.h %zu\n", argv[3],
		       count_params(argv[3]), npcie);
		bad = 1;
	}
	/* The structs have the offsets the constants give, and no padding. */
	if (offsetof(struct wse_pcie_desc, len) != WSE_PCIE_DESC_OFF_LEN ||
	    offsetof(struct wse_pcie_desc, flags) != WSE_PCIE_DESC_OFF_FLAGS ||
	    offsetof(struct wse_pcie_desc, addr) != WSE_PCIE_DESC_OFF_ADDR ||
	    offsetof(struct wse_pcie_cpl, len) != WSE_PCIE_CPL_OFF_LEN ||
	    offsetof(struct wse_pcie_cpl, status) != WSE_PCIE_CPL_OFF_STATUS ||
	    sizeof(struct wse_pcie_desc) != WSE_PCIE_DESC_BYTES ||
	    sizeof(struct wse_pcie_cpl) != WSE_PCIE_DESC_BYTES) {
		printf("FAIL PCIe descriptor layout\n");
		bad = 1;
	}
	/* The inline helpers pack the layout the constants describe. */
	wse_u64 w = wse_wavelet(0xdeadbeefu, 29, 1);
	if (wse_wavelet_data(w) != 0xdeadbeefu || wse_wavelet_color(w) != 29 ||
	    !wse_wavelet_ctrl(w) || (w >> WSE_WAVELET_BITS) != 0) {
		printf("FAIL wavelet packing\n");
		bad = 1;
	}
	if (!bad)
		printf("PASS %zu wire, %zu register-map and %zu PCIe constants agree between C and RTL\n",
		       sizeof(pairs) / sizeof(pairs[0]), sizeof(mgmt_pairs) / sizeof(mgmt_pairs[0]),
		       npcie);
	return bad;
}
