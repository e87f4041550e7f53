/* SPDX-License-Identifier: Apache-2.0 */
/*
 * board.c - the board device-tree binding's rules (wsemu/wse_board.h,
 * docs/dt-binding.md). Parsed with libfdt; every missing, malformed or
 * out-of-range property is named in the error text. The ranges here are
 * the binding's: the RTL's parameters and the host library's limits follow
 * from them, so they are written once.
 */
#include <libfdt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_board.h"
#include "wsemu/wse_wirelib.h"

struct ctx {
	const void *fdt;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct ctx *c,
						      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wse_verrorf(c->err, c->errlen, WSE_ERROR_BAD_DTB, fmt, ap);
	va_end(ap);
	return WSE_ERROR_BAD_DTB;
}

static int node(struct ctx *c, const char *path, const char *compat, int *off)
{
	*off = fdt_path_offset(c->fdt, path);
	if (*off < 0)
		return fail(c, "node %s: %s", path, fdt_strerror(*off));
	if (compat && fdt_node_check_compatible(c->fdt, *off, compat) != 0)
		return fail(c, "%s: not compatible with \"%s\"", path, compat);
	return 0;
}

static int u32(struct ctx *c, int off, const char *path, const char *name,
	       uint32_t lo, uint32_t hi, uint32_t *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, off, name, &len);
	if (!p)
		return fail(c, "%s: missing property %s", path, name);
	if (len != 4)
		return fail(c, "%s: property %s must be one cell, has %d bytes",
			    path, name, len);
	uint32_t v = fdt32_ld(p);
	if (v < lo || v > hi)
		return fail(c, "%s: %s = %u out of range [%u, %u]", path, name,
			    v, lo, hi);
	*out = v;
	return 0;
}

/* The first string of a property; absent is empty. */
static int str(struct ctx *c, int off, const char *path, const char *name,
	       char *out, size_t outlen)
{
	int len;
	const char *s = fdt_getprop(c->fdt, off, name, &len);
	out[0] = 0;
	if (!s || len <= 0)
		return 0;
	if (s[len - 1] != 0)
		return fail(c, "%s: property %s is not a string", path, name);
	snprintf(out, outlen, "%s", s);
	return 0;
}

/*
 * Every property's name offset must lead to a string of the strings block.
 * libfdt 1.6's fdt_check_full() takes a property's name without checking
 * that it resolved, and reads through NULL on a blob whose name offset
 * points outside the strings block; this walk runs first and refuses such a
 * blob. It needs a header that fdt_check_header() passed and a buffer of at
 * least the header's total size. 0 or a negative FDT_ERR_ code.
 */
static int names_resolve(const void *fdt)
{
	int off = 0, next;

	for (;;) {
		uint32_t tag = fdt_next_tag(fdt, off, &next);

		if (next < 0)
			return next;
		if (tag == FDT_END)
			return 0;
		if (tag == FDT_PROP) {
			/* The blob may sit at any byte address (a DTB inside a
			 * link packet does), so the name offset is loaded a byte
			 * at a time: struct fdt_property is never dereferenced. */
			const fdt32_t *no = fdt_offset_ptr(fdt,
				off + (int)offsetof(struct fdt_property, nameoff),
				sizeof(*no));
			int len;

			if (!no || !fdt_get_string(fdt, fdt32_ld(no), &len))
				return -FDT_ERR_BADSTRUCTURE;
		}
		if (next <= off)
			return -FDT_ERR_BADSTRUCTURE;
		off = next;
	}
}

static int pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* An optional one-cell property: absent leaves *out 0. */
static int u32_opt(struct ctx *c, int off, const char *path, const char *name,
		   uint32_t lo, uint32_t hi, uint32_t *out)
{
	*out = 0;
	if (!fdt_getprop(c->fdt, off, name, NULL))
		return 0;
	return u32(c, off, path, name, lo, hi, out);
}

/* The UART's divisor: clocks per bit in 1/256ths (hif_uart's div_i, 16
 * bits with 8 fraction bits; its receiver needs at least 4 clocks per bit). */
static int link_uart(struct ctx *c, struct wse_board *b)
{
	if (strcmp(b->link_compatible, "wsemu,link-uart"))
		return 0;
	if (!b->link_clock_hz || !b->link_baud)
		return fail(c, "/link: \"wsemu,link-uart\" needs clock-frequency and wsemu,baud");
	uint64_t div = (uint64_t)b->link_clock_hz * 256 / b->link_baud;
	if (div < 4 * 256 || div > 0xffff)
		return fail(c, "/link: clock-frequency %u / wsemu,baud %u = %.2f clocks per bit, outside [4, 255]",
			    b->link_clock_hz, b->link_baud, div / 256.0);
	return 0;
}

/* The FPGA parts the board flow knows (docs/dt-binding.md, /fpga). */
static const char *const fpga_devices[] = {
	"LFE5U-12F", "LFE5U-25F", "LFE5U-45F", "LFE5U-85F",
};

static int fpga(struct ctx *c, struct wse_board *b)
{
	int off = fdt_path_offset(c->fdt, "/fpga"), r;
	size_t i;

	if (off == -FDT_ERR_NOTFOUND)
		return 0;
	if ((r = node(c, "/fpga", "wsemu,fpga-ecp5", &off)) ||
	    (r = str(c, off, "/fpga", "wsemu,device", b->fpga_device,
		     sizeof(b->fpga_device))) ||
	    (r = str(c, off, "/fpga", "wsemu,package", b->fpga_package,
		     sizeof(b->fpga_package))) ||
	    (r = str(c, off, "/fpga", "wsemu,flash-part", b->flash_part,
		     sizeof(b->flash_part))) ||
	    (r = u32(c, off, "/fpga", "wsemu,mesh-clock-frequency", 1000000,
		     400000000, &b->mesh_clock_hz)) ||
	    (r = u32_opt(c, off, "/fpga", "wsemu,flash-bytes", 65536,
			 1u << 30, &b->flash_bytes)))
		return r;
	for (i = 0; i < sizeof(fpga_devices) / sizeof(fpga_devices[0]); i++)
		if (!strcmp(b->fpga_device, fpga_devices[i]))
			break;
	if (i == sizeof(fpga_devices) / sizeof(fpga_devices[0]))
		return fail(c, "/fpga: wsemu,device \"%s\" is not one of LFE5U-12F, -25F, -45F, -85F",
			    b->fpga_device);
	if (!b->fpga_package[0])
		return fail(c, "/fpga: missing property wsemu,package");
	if (b->flash_bytes && !pow2(b->flash_bytes))
		return fail(c, "/fpga: wsemu,flash-bytes = %u must be a power of two",
			    b->flash_bytes);
	if (!b->link_clock_hz)
		return fail(c, "/fpga: the PLL's input is /link's clock-frequency, which is missing");
	return 0;
}

static int board_parse(const void *dtb, size_t len, struct wse_board *b,
			char *err, size_t errlen);

int wse_board_parse(const void *dtb, size_t len, struct wse_board *b,
		    char *err, size_t errlen)
{
	struct ctx c = {dtb, err, errlen};

	if (err && errlen)
		err[0] = 0;
	if (!dtb || !b)
		return WSE_ERROR_INVALID_PARAM;
	memset(b, 0, sizeof(*b));
	if (len < sizeof(struct fdt_header) || len > WSE_BOARD_MAX_DTB)
		return fail(&c, "DTB of %zu bytes (at most %u)", len,
			    WSE_BOARD_MAX_DTB);
	/* libfdt reads a blob only at an 8-byte aligned address
	 * (FDT_ERR_ALIGNMENT), and a DTB inside a link packet may sit at any
	 * byte: such a blob is parsed from an aligned copy. */
	if ((uintptr_t)dtb & 7) {
		void *copy = malloc(len);
		int r;

		if (!copy)
			return WSE_ERROR_NO_MEM;
		memcpy(copy, dtb, len);
		r = board_parse(copy, len, b, err, errlen);
		free(copy);
		return r;
	}
	return board_parse(dtb, len, b, err, errlen);
}

/* wse_board_parse() on a blob at an 8-byte aligned address. */
static int board_parse(const void *dtb, size_t len, struct wse_board *b,
		       char *err, size_t errlen)
{
	struct ctx c = {dtb, err, errlen};
	int mesh, tile, link, r;

	r = fdt_check_header(dtb);
	if (!r && fdt_totalsize(dtb) > len)
		r = -FDT_ERR_TRUNCATED;
	/* Versions before 16 name nodes by path and align differently;
	 * dtc writes 17, and libfdt's checks of the old layouts are weak. */
	if (!r && fdt_version(dtb) < 16)
		return fail(&c, "device tree blob version %u: the binding needs 16 or later",
			    fdt_version(dtb));
	if (!r)
		r = names_resolve(dtb);
	if (!r)
		r = fdt_check_full(dtb, len);
	if (r)
		return fail(&c, "not a valid device tree blob: %s",
			    fdt_strerror(r));
	if (fdt_node_check_compatible(dtb, 0, "wsemu,wse") != 0)
		return fail(&c, "/: not compatible with \"wsemu,wse\"");
	if ((r = str(&c, 0, "/", "compatible", b->compatible,
		     sizeof(b->compatible))) ||
	    (r = str(&c, 0, "/", "model", b->model, sizeof(b->model))) ||
	    (r = node(&c, "/mesh", "wsemu,mesh-v1", &mesh)) ||
	    (r = node(&c, "/tile", "wsemu,tile-v1", &tile)) ||
	    (r = node(&c, "/link", NULL, &link)) ||
	    (r = str(&c, link, "/link", "compatible", b->link_compatible,
		     sizeof(b->link_compatible))) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,columns", 1, 64, &b->columns)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,rows", 1, 64, &b->rows)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,colors", WSE_NUM_COLORS,
		     WSE_NUM_COLORS, &b->colors)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,user-colors", 1, WSE_NUM_COLORS,
		     &b->user_colors)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,virtual-channels", 1, 8,
		     &b->num_vc)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,vc-queue-depth", 2, 64,
		     &b->vc_depth)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,ramp-color-depth", 1, 64,
		     &b->ramp_color_depth)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,imem-bytes", 1024, 1u << 20,
		     &b->imem_bytes)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,dmem-bytes", 1024, 1u << 20,
		     &b->dmem_bytes)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,dmem-banks", 1, 8,
		     &b->dmem_banks)) ||
	    (r = u32(&c, link, "/link", "wsemu,width-bits", 64, 512,
		     &b->link_width_bits)) ||
	    (r = u32(&c, link, "/link", "wsemu,bytes-per-cycle", 1, 4096,
		     &b->link_bytes_per_cycle)) ||
	    (r = u32(&c, link, "/link", "wsemu,latency-cycles", 0, 1000000,
		     &b->link_latency_cycles)) ||
	    (r = u32_opt(&c, link, "/link", "clock-frequency", 1000000,
			 1000000000, &b->link_clock_hz)) ||
	    (r = u32_opt(&c, link, "/link", "wsemu,baud", 300, 50000000,
			 &b->link_baud)) ||
	    (r = link_uart(&c, b)) || (r = fpga(&c, b)))
		return r;
	if (!pow2(b->vc_depth))
		return fail(&c, "/mesh: wsemu,vc-queue-depth = %u must be a power of two",
			    b->vc_depth);
	if (!pow2(b->imem_bytes) || !pow2(b->dmem_bytes) || !pow2(b->dmem_banks))
		return fail(&c, "/tile: memory sizes and bank count must be powers of two");
	if (b->link_width_bits % 64)
		return fail(&c, "/link: wsemu,width-bits = %u must be a multiple of 64",
			    b->link_width_bits);
	int mlen;
	const fdt32_t *map = fdt_getprop(dtb, mesh, "wsemu,color-vc-map", &mlen);
	if (!map || mlen != WSE_NUM_COLORS * 4)
		return fail(&c, "/mesh: wsemu,color-vc-map must have %d cells",
			    WSE_NUM_COLORS);
	for (int i = 0; i < WSE_NUM_COLORS; i++) {
		uint32_t v = fdt32_ld(&map[i]);
		if (v >= b->num_vc)
			return fail(&c, "/mesh: wsemu,color-vc-map[%d] = %u, only %u virtual channels",
				    i, v, b->num_vc);
		b->color_vc[i] = (uint8_t)v;
	}
	return 0;
}
