/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf.c - loading RISC-V ELF32 images into tiles, and symbol look-up
 * (wse_load_elf, wse_elf_symbol of wsehost.h). The image is read from
 * memory and checked before anything is written: every header, program
 * header and section must lie inside the image, and every loaded segment
 * inside the tile's IMEM or DMEM as the device's tree gives them.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "wsehost.h"

#define TILE_IMEM_BASE 0x80000000u
#define TILE_DMEM_BASE 0x80100000u

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* 0 if [off, off + n) lies inside an image of len bytes. */
static int inside(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off ? 0 : WSE_ERROR_MALFORMED;
}

static int check_header(const uint8_t *b, size_t len)
{
	if (!b || len < 52 || memcmp(b, "\177ELF", 4) || b[4] != 1 || b[5] != 1 ||
	    rd16(b + 18) != 243)
		return WSE_ERROR_MALFORMED; /* not a little-endian RISC-V ELF32 */
	return 0;
}

/* Segment [addr, addr + n) inside one of the tile's memories. */
static int in_tile(const struct wse_info *in, uint32_t addr, uint32_t n)
{
	uint64_t a = addr, e = (uint64_t)addr + n;

	if (a >= TILE_IMEM_BASE && e <= (uint64_t)TILE_IMEM_BASE + in->imem_bytes)
		return 0;
	if (a >= TILE_DMEM_BASE && e <= (uint64_t)TILE_DMEM_BASE + in->dmem_bytes)
		return 0;
	return WSE_ERROR_RANGE;
}

int wse_load_elf(wse_device *dev, unsigned x, unsigned y, const void *image,
		 size_t len)
{
	const uint8_t *b = image;
	struct wse_info in = { .size = sizeof(in) };
	int r;

	if (!dev || !image)
		return WSE_ERROR_INVALID_PARAM;
	if ((r = check_header(b, len)) || (r = wse_get_info(dev, &in)))
		return r;
	uint32_t phoff = rd32(b + 28);
	uint16_t phentsize = rd16(b + 42), phnum = rd16(b + 44);

	if (phentsize < 32 || (r = inside(len, phoff, (uint64_t)phentsize * phnum)))
		return WSE_ERROR_MALFORMED;
	/* check every segment first: a bad image writes nothing */
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < phnum; i++) {
			const uint8_t *ph = b + phoff + (size_t)i * phentsize;
			uint32_t off = rd32(ph + 4), paddr = rd32(ph + 12);
			uint32_t filesz = rd32(ph + 16), memsz = rd32(ph + 20);

			if (rd32(ph) != 1 || !filesz) /* PT_LOAD with contents */
				continue;
			if (pass == 0) {
				if (filesz > memsz || inside(len, off, filesz))
					return WSE_ERROR_MALFORMED;
				if ((r = in_tile(&in, paddr, memsz)))
					return r;
				continue;
			}
			/* word-aligned copy, bytes around the segment zero */
			uint32_t a0 = paddr & ~3u, n = ((paddr & 3u) + filesz + 3u) & ~3u;
			uint8_t *w = calloc(1, n);

			if (!w)
				return WSE_ERROR_NO_MEM;
			memcpy(w + (paddr & 3u), b + off, filesz);
			r = wse_mem_write(dev, x, y, a0, w, n);
			free(w);
			if (r)
				return r;
		}
	return 0;
}

int wse_elf_symbol(const void *image, size_t len, const char *name,
		   uint32_t *value)
{
	const uint8_t *b = image;
	int r;

	if (!image || !name || !value)
		return WSE_ERROR_INVALID_PARAM;
	if ((r = check_header(b, len)))
		return r;
	uint32_t shoff = rd32(b + 32);
	uint16_t shentsize = rd16(b + 46), shnum = rd16(b + 48);

	if (shentsize < 40 || inside(len, shoff, (uint64_t)shentsize * shnum))
		return WSE_ERROR_MALFORMED;
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = b + shoff + (size_t)i * shentsize;

		if (rd32(sh + 4) != 2) /* SHT_SYMTAB */
			continue;
		uint32_t off = rd32(sh + 16), size = rd32(sh + 20), link = rd32(sh + 24);
		uint32_t ent = rd32(sh + 36);

		if (ent < 16 || link >= shnum || inside(len, off, size))
			return WSE_ERROR_MALFORMED;
		const uint8_t *st = b + shoff + (size_t)link * shentsize;
		uint32_t stroff = rd32(st + 16), strsize = rd32(st + 20);

		if (inside(len, stroff, strsize))
			return WSE_ERROR_MALFORMED;
		for (uint32_t k = 0; k + ent <= size; k += ent) {
			const uint8_t *sym = b + off + k;
			uint32_t nm = rd32(sym);

			if (nm >= strsize)
				return WSE_ERROR_MALFORMED;
			const char *s = (const char *)b + stroff + nm;

			if (strnlen(s, strsize - nm) < strsize - nm && !strcmp(s, name)) {
				*value = rd32(sym + 4);
				return 0;
			}
		}
	}
	return WSE_ERROR_NOT_FOUND;
}
