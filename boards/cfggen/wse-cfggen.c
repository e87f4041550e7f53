// SPDX-License-Identifier: Apache-2.0
/*
 * wse-cfggen: turn a board's DTB (compiled by dtc from the board's .dts, the
 * single source of configuration) into the SystemVerilog parameter package
 * and the C header that the RTL and the firmware are built with.
 *
 *   wse-cfggen BOARD.dtb --sv OUT.sv --h OUT.h [--rom ROM.sv --build-id ID]
 *
 * --rom writes package wse_dtb_pkg: the DTB itself as the ROM the device's
 * host interface serves `info` from, with the build ID it reports.
 *
 * The DTB is parsed with libfdt and checked against docs/dt-binding.md; any
 * missing, malformed or out-of-range property is reported by name and
 * nothing is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfdt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NUM_COLORS 32
#define MAX_DTB_BYTES (1u << 20)

struct board_cfg {
	char compatible[64];
	char model[96];
	uint32_t columns, rows, colors, user_colors;
	uint32_t num_vc, vc_depth, ramp_color_depth;
	uint32_t color_vc[NUM_COLORS];
	uint32_t imem_bytes, dmem_bytes, dmem_banks;
	uint32_t link_width_bits, link_bytes_per_cycle, link_latency_cycles;
};

static const char *prog = "wse-cfggen";

static void *read_dtb(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(MAX_DTB_BYTES);
	size_t n = buf ? fread(buf, 1, MAX_DTB_BYTES, f) : 0;
	int too_big = buf && n == MAX_DTB_BYTES && fgetc(f) != EOF;
	fclose(f);
	if (!buf || too_big) {
		fprintf(stderr, "%s: %s: larger than %u bytes\n", prog, path,
			MAX_DTB_BYTES);
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static int node(const void *fdt, const char *path)
{
	int off = fdt_path_offset(fdt, path);
	if (off < 0)
		fprintf(stderr, "%s: node %s: %s\n", prog, path,
			fdt_strerror(off));
	return off;
}

/* Read a u32 property into *out and check lo <= *out <= hi. */
static int get_u32(const void *fdt, int off, const char *nodepath,
		   const char *name, uint32_t lo, uint32_t hi, uint32_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, off, name, &len);
	if (!p) {
		fprintf(stderr, "%s: %s: missing property %s\n", prog, nodepath,
			name);
		return -1;
	}
	if (len != 4) {
		fprintf(stderr, "%s: %s: property %s must be one cell, has %d bytes\n",
			prog, nodepath, name, len);
		return -1;
	}
	*out = fdt32_to_cpu(*p);
	if (*out < lo || *out > hi) {
		fprintf(stderr, "%s: %s: %s = %u out of range [%u, %u]\n", prog,
			nodepath, name, *out, lo, hi);
		return -1;
	}
	return 0;
}

static int check_compatible(const void *fdt, int off, const char *path,
			    const char *want)
{
	if (fdt_node_check_compatible(fdt, off, want) != 0) {
		fprintf(stderr, "%s: %s: not compatible with \"%s\"\n", prog,
			path, want);
		return -1;
	}
	return 0;
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int parse(const void *fdt, struct board_cfg *c)
{
	int err = 0, len;
	memset(c, 0, sizeof(*c));

	if (fdt_node_check_compatible(fdt, 0, "wsemu,wse") != 0) {
		fprintf(stderr, "%s: /: not compatible with \"wsemu,wse\"\n",
			prog);
		return -1;
	}
	const char *s = fdt_getprop(fdt, 0, "compatible", &len);
	snprintf(c->compatible, sizeof(c->compatible), "%s", s ? s : "");
	s = fdt_getprop(fdt, 0, "model", &len);
	snprintf(c->model, sizeof(c->model), "%s", s ? s : "");

	int mesh = node(fdt, "/mesh");
	int tile = node(fdt, "/tile");
	int link = node(fdt, "/link");
	if (mesh < 0 || tile < 0 || link < 0)
		return -1;
	err |= check_compatible(fdt, mesh, "/mesh", "wsemu,mesh-v1");
	err |= check_compatible(fdt, tile, "/tile", "wsemu,tile-v1");
	if (err)
		return -1;

	err |= get_u32(fdt, mesh, "/mesh", "wsemu,columns", 1, 64, &c->columns);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,rows", 1, 64, &c->rows);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,colors", NUM_COLORS,
		       NUM_COLORS, &c->colors);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,user-colors", 1, NUM_COLORS,
		       &c->user_colors);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,virtual-channels", 1, 8,
		       &c->num_vc);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,vc-queue-depth", 2, 64,
		       &c->vc_depth);
	err |= get_u32(fdt, mesh, "/mesh", "wsemu,ramp-color-depth", 1, 64,
		       &c->ramp_color_depth);
	err |= get_u32(fdt, tile, "/tile", "wsemu,imem-bytes", 1024, 1u << 20,
		       &c->imem_bytes);
	err |= get_u32(fdt, tile, "/tile", "wsemu,dmem-bytes", 1024, 1u << 20,
		       &c->dmem_bytes);
	err |= get_u32(fdt, tile, "/tile", "wsemu,dmem-banks", 1, 8,
		       &c->dmem_banks);
	err |= get_u32(fdt, link, "/link", "wsemu,width-bits", 64, 512,
		       &c->link_width_bits);
	err |= get_u32(fdt, link, "/link", "wsemu,bytes-per-cycle", 1, 4096,
		       &c->link_bytes_per_cycle);
	err |= get_u32(fdt, link, "/link", "wsemu,latency-cycles", 0, 1000000,
		       &c->link_latency_cycles);
	if (err)
		return -1;

	if (!is_pow2(c->vc_depth)) {
		fprintf(stderr, "%s: /mesh: wsemu,vc-queue-depth = %u must be a power of two\n",
			prog, c->vc_depth);
		return -1;
	}
	if (!is_pow2(c->imem_bytes) || !is_pow2(c->dmem_bytes) ||
	    !is_pow2(c->dmem_banks)) {
		fprintf(stderr, "%s: /tile: memory sizes and bank count must be powers of two\n",
			prog);
		return -1;
	}
	if (c->link_width_bits % 64) {
		fprintf(stderr, "%s: /link: wsemu,width-bits = %u must be a multiple of 64\n",
			prog, c->link_width_bits);
		return -1;
	}

	const fdt32_t *map = fdt_getprop(fdt, mesh, "wsemu,color-vc-map", &len);
	if (!map || len != NUM_COLORS * 4) {
		fprintf(stderr, "%s: /mesh: wsemu,color-vc-map must have %d cells\n",
			prog, NUM_COLORS);
		return -1;
	}
	for (int i = 0; i < NUM_COLORS; i++) {
		c->color_vc[i] = fdt32_to_cpu(map[i]);
		if (c->color_vc[i] >= c->num_vc) {
			fprintf(stderr, "%s: /mesh: wsemu,color-vc-map[%d] = %u, only %u virtual channels\n",
				prog, i, c->color_vc[i], c->num_vc);
			return -1;
		}
	}
	return 0;
}

static unsigned clog2(uint32_t v)
{
	unsigned n = 0;
	while ((1u << n) < v)
		n++;
	return n;
}

/* Write to PATH.tmp, then rename, so a failed run leaves no partial file. */
static FILE *open_out(const char *path, char *tmp, size_t tmplen)
{
	snprintf(tmp, tmplen, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		fprintf(stderr, "%s: %s: %s\n", prog, tmp, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *tmp, const char *path)
{
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "%s: %s: write failed\n", prog, path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int write_sv(const struct board_cfg *c, const char *path)
{
	char tmp[4096];
	FILE *f = open_out(path, tmp, sizeof(tmp));
	if (!f)
		return -1;
	unsigned vcw = clog2(c->num_vc) ? clog2(c->num_vc) : 1;
	fprintf(f, "// Generated by wse-cfggen from the board's device tree. Do not edit.\n");
	fprintf(f, "// Board: %s (%s)\n", c->compatible, c->model);
	fprintf(f, "package wse_cfg_pkg;\n");
	fprintf(f, "  localparam int unsigned NumCols         = %u;\n", c->columns);
	fprintf(f, "  localparam int unsigned NumRows         = %u;\n", c->rows);
	fprintf(f, "  localparam int unsigned NumColors       = %u;\n", c->colors);
	fprintf(f, "  localparam int unsigned NumUserColors   = %u;\n", c->user_colors);
	fprintf(f, "  localparam int unsigned NumVc           = %u;\n", c->num_vc);
	fprintf(f, "  localparam int unsigned VcW             = %u;\n", vcw);
	fprintf(f, "  localparam int unsigned VcDepth         = %u;\n", c->vc_depth);
	fprintf(f, "  localparam int unsigned RampColorDepth  = %u;\n", c->ramp_color_depth);
	fprintf(f, "  localparam int unsigned ImemBytes       = %u;\n", c->imem_bytes);
	fprintf(f, "  localparam int unsigned DmemBytes       = %u;\n", c->dmem_bytes);
	fprintf(f, "  localparam int unsigned DmemBanks       = %u;\n", c->dmem_banks);
	fprintf(f, "  localparam int unsigned LinkWidthBits   = %u;\n", c->link_width_bits);
	fprintf(f, "  localparam int unsigned LinkBytesPerCycle = %u;\n", c->link_bytes_per_cycle);
	fprintf(f, "  localparam int unsigned LinkLatencyCycles = %u;\n", c->link_latency_cycles);
	fprintf(f, "  // Virtual channel of each color; entry c is bits [c*VcW +: VcW].\n");
	fprintf(f, "  localparam logic [%u:0] ColorVcMap = {", NUM_COLORS * vcw - 1);
	for (int i = NUM_COLORS - 1; i >= 0; i--)
		fprintf(f, "%u'd%u%s", vcw, c->color_vc[i], i ? ", " : "");
	fprintf(f, "};\n");
	fprintf(f, "endpackage\n");
	return close_out(f, tmp, path);
}

static int write_h(const struct board_cfg *c, const char *path)
{
	char tmp[4096];
	FILE *f = open_out(path, tmp, sizeof(tmp));
	if (!f)
		return -1;
	fprintf(f, "/* Generated by wse-cfggen from the board's device tree. Do not edit. */\n");
	fprintf(f, "/* Board: %s (%s) */\n", c->compatible, c->model);
	fprintf(f, "#ifndef WSE_CFG_H\n#define WSE_CFG_H\n\n");
	fprintf(f, "#define WSE_CFG_BOARD \"%s\"\n", c->compatible);
	fprintf(f, "#define WSE_CFG_NUM_COLS %uu\n", c->columns);
	fprintf(f, "#define WSE_CFG_NUM_ROWS %uu\n", c->rows);
	fprintf(f, "#define WSE_CFG_NUM_COLORS %uu\n", c->colors);
	fprintf(f, "#define WSE_CFG_NUM_USER_COLORS %uu\n", c->user_colors);
	fprintf(f, "#define WSE_CFG_NUM_VC %uu\n", c->num_vc);
	fprintf(f, "#define WSE_CFG_VC_DEPTH %uu\n", c->vc_depth);
	fprintf(f, "#define WSE_CFG_RAMP_COLOR_DEPTH %uu\n", c->ramp_color_depth);
	fprintf(f, "#define WSE_CFG_IMEM_BYTES %uu\n", c->imem_bytes);
	fprintf(f, "#define WSE_CFG_DMEM_BYTES %uu\n", c->dmem_bytes);
	fprintf(f, "#define WSE_CFG_DMEM_BANKS %uu\n", c->dmem_banks);
	fprintf(f, "#define WSE_CFG_LINK_WIDTH_BITS %uu\n", c->link_width_bits);
	fprintf(f, "#define WSE_CFG_LINK_BYTES_PER_CYCLE %uu\n", c->link_bytes_per_cycle);
	fprintf(f, "#define WSE_CFG_LINK_LATENCY_CYCLES %uu\n", c->link_latency_cycles);
	fprintf(f, "#define WSE_CFG_COLOR_VC_MAP {");
	for (int i = 0; i < NUM_COLORS; i++)
		fprintf(f, "%u%s", c->color_vc[i], i < NUM_COLORS - 1 ? ", " : "");
	fprintf(f, "}\n\n#endif /* WSE_CFG_H */\n");
	return close_out(f, tmp, path);
}

/*
 * The DTB as a ROM of 64-bit little-endian words: word k holds bytes
 * 8k..8k+7 and sits at DtbRom[64*k +: 64]; the last word is zero-padded.
 * BuildId holds up to 32 bytes of the ID, byte 0 in bits [7:0].
 */
static int write_rom(const unsigned char *dtb, size_t len, const char *build_id,
		     const char *path)
{
	char tmp[4096];
	FILE *f = open_out(path, tmp, sizeof(tmp));
	if (!f)
		return -1;
	size_t words = len ? (len + 7) / 8 : 1;
	unsigned char id[32] = { 0 };
	size_t idlen = strlen(build_id);
	memcpy(id, build_id, idlen < sizeof(id) ? idlen : sizeof(id));
	fprintf(f, "// Generated by wse-cfggen from the board's device tree. Do not edit.\n");
	fprintf(f, "package wse_dtb_pkg;\n");
	fprintf(f, "  localparam int unsigned DtbBytes = %zu;\n", len);
	fprintf(f, "  localparam int unsigned DtbWords = %zu;\n", words);
	fprintf(f, "  localparam logic [255:0] BuildId = 256'h");
	for (int i = 31; i >= 0; i--)
		fprintf(f, "%02x", id[i]);
	fprintf(f, ";\n");
	fprintf(f, "  // Word k (bytes 8k..8k+7, little-endian) at [64*k +: 64].\n");
	fprintf(f, "  localparam logic [64*DtbWords-1:0] DtbRom = {");
	for (size_t k = words; k-- > 0;) {
		fprintf(f, "64'h");
		for (int b = 7; b >= 0; b--) {
			size_t at = 8 * k + (size_t)b;
			fprintf(f, "%02x", at < len ? dtb[at] : 0);
		}
		fprintf(f, "%s", k ? ", " : "");
	}
	fprintf(f, "};\nendpackage\n");
	return close_out(f, tmp, path);
}

static void usage(void)
{
	fprintf(stderr, "usage: %s BOARD.dtb [--sv OUT.sv] [--h OUT.h] [--rom ROM.sv --build-id ID] [--check]\n",
		prog);
}

int main(int argc, char **argv)
{
	const char *dtb = NULL, *sv = NULL, *h = NULL, *rom = NULL;
	const char *build_id = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sv") && i + 1 < argc)
			sv = argv[++i];
		else if (!strcmp(argv[i], "--h") && i + 1 < argc)
			h = argv[++i];
		else if (!strcmp(argv[i], "--rom") && i + 1 < argc)
			rom = argv[++i];
		else if (!strcmp(argv[i], "--build-id") && i + 1 < argc)
			build_id = argv[++i];
		else if (!strcmp(argv[i], "--check"))
			;
		else if (argv[i][0] != '-' && !dtb)
			dtb = argv[i];
		else {
			usage();
			return 2;
		}
	}
	if (!dtb || !rom != !build_id) {
		usage();
		return 2;
	}
	size_t len;
	void *fdt = read_dtb(dtb, &len);
	if (!fdt)
		return 1;
	int err = fdt_check_full(fdt, len);
	if (err) {
		fprintf(stderr, "%s: %s: not a valid device tree blob: %s\n", prog,
			dtb, fdt_strerror(err));
		free(fdt);
		return 1;
	}
	struct board_cfg cfg;
	if (parse(fdt, &cfg)) {
		fprintf(stderr, "%s: %s: rejected, nothing written\n", prog, dtb);
		free(fdt);
		return 1;
	}
	int rc = 0;
	if (sv && write_sv(&cfg, sv))
		rc = 1;
	if (!rc && h && write_h(&cfg, h))
		rc = 1;
	if (!rc && rom && write_rom(fdt, len, build_id, rom))
		rc = 1;
	free(fdt);
	return rc;
}
