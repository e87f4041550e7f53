/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dtb.c - the device description from the board's device tree (the binding
 * wse-cfggen checks: /mesh, /tile, /link). Parsed with libfdt; every
 * missing, malformed or out-of-range property is named in the error text.
 */
#include <libfdt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "transport.h"

struct ctx {
	const void *fdt;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct ctx *c,
						      const char *fmt, ...)
{
	if (c->err && c->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
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
	       uint32_t lo, uint32_t hi, unsigned *out)
{
	int len;
	const fdt32_t *p = fdt_getprop(c->fdt, off, name, &len);
	if (!p)
		return fail(c, "%s: missing property %s", path, name);
	if (len != 4)
		return fail(c, "%s: property %s must be one cell, has %d bytes",
			    path, name, len);
	uint32_t v = fdt32_to_cpu(*p);
	if (v < lo || v > hi)
		return fail(c, "%s: %s = %u out of range [%u, %u]", path, name,
			    v, lo, hi);
	*out = v;
	return 0;
}

static int str(struct ctx *c, int off, const char *name, char *out,
	       size_t outlen)
{
	int len;
	const char *s = fdt_getprop(c->fdt, off, name, &len);
	out[0] = 0;
	if (!s || len <= 0)
		return 0;
	if (s[len - 1] != 0)
		return fail(c, "property %s is not a string", name);
	snprintf(out, outlen, "%s", s);
	return 0;
}

static int pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

int wse_dtb_parse(const void *dtb, size_t len, struct wse_info *info,
		  char *err, size_t errlen)
{
	struct ctx c = {dtb, err, errlen};
	struct wse_info o;
	int mesh, tile, link, r;

	if (err && errlen)
		err[0] = 0;
	if (!dtb || !info || info->size < sizeof(size_t))
		return WSE_ERROR_INVALID_PARAM;
	memset(&o, 0, sizeof(o));
	if (len < sizeof(struct fdt_header) || len > WSE_PROTO_MAX_PAYLOAD)
		return fail(&c, "DTB of %zu bytes", len);
	r = fdt_check_full(dtb, len);
	if (r)
		return fail(&c, "not a valid device tree blob: %s",
			    fdt_strerror(r));
	if (fdt_node_check_compatible(dtb, 0, "wsemu,wse") != 0)
		return fail(&c, "/: not compatible with \"wsemu,wse\"");
	if ((r = str(&c, 0, "compatible", o.compatible, sizeof(o.compatible))) ||
	    (r = str(&c, 0, "model", o.model, sizeof(o.model))) ||
	    (r = node(&c, "/mesh", "wsemu,mesh-v1", &mesh)) ||
	    (r = node(&c, "/tile", "wsemu,tile-v1", &tile)) ||
	    (r = node(&c, "/link", NULL, &link)) ||
	    (r = str(&c, link, "compatible", o.link_compatible,
		     sizeof(o.link_compatible))) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,columns", 1, 64, &o.columns)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,rows", 1, 64, &o.rows)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,colors", 32, 32, &o.colors)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,user-colors", 1, 32,
		     &o.user_colors)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,virtual-channels", 1, 8,
		     &o.num_vc)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,vc-queue-depth", 2, 64,
		     &o.vc_depth)) ||
	    (r = u32(&c, mesh, "/mesh", "wsemu,ramp-color-depth", 1, 64,
		     &o.ramp_color_depth)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,imem-bytes", 1024, 1u << 20,
		     &o.imem_bytes)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,dmem-bytes", 1024, 1u << 20,
		     &o.dmem_bytes)) ||
	    (r = u32(&c, tile, "/tile", "wsemu,dmem-banks", 1, 8,
		     &o.dmem_banks)) ||
	    (r = u32(&c, link, "/link", "wsemu,width-bits", 64, 512,
		     &o.link_width_bits)) ||
	    (r = u32(&c, link, "/link", "wsemu,bytes-per-cycle", 1, 4096,
		     &o.link_bytes_per_cycle)) ||
	    (r = u32(&c, link, "/link", "wsemu,latency-cycles", 0, 1000000,
		     &o.link_latency_cycles)))
		return r;
	if (!pow2(o.vc_depth))
		return fail(&c, "/mesh: wsemu,vc-queue-depth = %u must be a power of two",
			    o.vc_depth);
	if (!pow2(o.imem_bytes) || !pow2(o.dmem_bytes) || !pow2(o.dmem_banks))
		return fail(&c, "/tile: memory sizes and bank count must be powers of two");
	if (o.link_width_bits % 64)
		return fail(&c, "/link: wsemu,width-bits = %u must be a multiple of 64",
			    o.link_width_bits);
	int mlen;
	const fdt32_t *map = fdt_getprop(dtb, mesh, "wsemu,color-vc-map", &mlen);
	if (!map || mlen != 32 * 4)
		return fail(&c, "/mesh: wsemu,color-vc-map must have 32 cells");
	for (int i = 0; i < 32; i++) {
		uint32_t v = fdt32_to_cpu(map[i]);
		if (v >= o.num_vc)
			return fail(&c, "/mesh: wsemu,color-vc-map[%d] = %u, only %u virtual channels",
				    i, v, o.num_vc);
		o.color_vc[i] = (uint8_t)v;
	}
	/* Copy only what the caller's struct has room for; keep its
	 * protocol fields (filled by the caller from INFO). */
	size_t keep = offsetof(struct wse_info, compatible);
	size_t n = info->size < sizeof(o) ? info->size : sizeof(o);
	if (n > keep)
		memcpy((char *)info + keep, (char *)&o + keep, n - keep);
	return 0;
}

int wse_parse_dtb(const void *dtb, size_t len, struct wse_info *info,
		  char *errbuf, size_t errlen)
{
	if (info && info->size >= sizeof(size_t)) {
		size_t keep = offsetof(struct wse_info, compatible);
		size_t n = info->size < keep ? info->size : keep;
		memset((char *)info + sizeof(size_t), 0, n - sizeof(size_t));
	}
	return wse_dtb_parse(dtb, len, info, errbuf, errlen);
}
