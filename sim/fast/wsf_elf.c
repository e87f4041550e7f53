/* SPDX-License-Identifier: Apache-2.0 */
/* wsf_elf.c - ELF32 reader of wsemu-fast's tools (wsf_elf.h). */
#include "wsf_elf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wsemu/wse_error.h"
#include "wse_fast_tile.h"

static uint32_t wsf_u16(const struct wsf_elf *e, size_t o)
{
	return o + 2 <= e->size ? (uint32_t)e->buf[o] | (uint32_t)e->buf[o + 1] << 8 : 0;
}

static uint32_t wsf_u32(const struct wsf_elf *e, size_t o)
{
	if (o + 4 > e->size)
		return 0;
	return (uint32_t)e->buf[o] | (uint32_t)e->buf[o + 1] << 8 | (uint32_t)e->buf[o + 2] << 16 |
	       (uint32_t)e->buf[o + 3] << 24;
}

int wsf_elf_open(struct wsf_elf *e, const char *path)
{
	memset(e, 0, sizeof(*e));
	FILE *f = fopen(path, "rb");
	if (!f)
		return WSE_ERROR_NOT_FOUND;
	long n = -1;
	if (fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return WSE_ERROR_NOT_FOUND;
	}
	e->buf = malloc(n ? (size_t)n : 1);
	if (!e->buf) {
		fclose(f);
		return WSE_ERROR_NO_MEM;
	}
	e->size = fread(e->buf, 1, (size_t)n, f);
	fclose(f);
	if (e->size != (size_t)n) {
		wsf_elf_close(e);
		return WSE_ERROR_NOT_FOUND;
	}
	if (e->size < 52 || memcmp(e->buf, "\177ELF", 4) != 0 || e->buf[4] != 1 || e->buf[5] != 1 ||
	    wsf_u16(e, 18) != 243 /* EM_RISCV */) {
		wsf_elf_close(e);
		return WSE_ERROR_MALFORMED;
	}
	e->entry = wsf_u32(e, 24);
	return WSE_SUCCESS;
}

void wsf_elf_close(struct wsf_elf *e)
{
	free(e->buf);
	e->buf = NULL;
	e->size = 0;
}

int wsf_elf_segment(const struct wsf_elf *e, unsigned i, struct wsf_elf_seg *seg)
{
	uint32_t phoff = wsf_u32(e, 28), phentsize = wsf_u16(e, 42), phnum = wsf_u16(e, 44);
	unsigned k = 0;
	for (uint32_t h = 0; h < phnum; h++) {
		size_t p = phoff + (size_t)h * phentsize;
		if (p + 32 > e->size)
			return WSE_ERROR_MALFORMED;
		if (wsf_u32(e, p) != 1 /* PT_LOAD */ || wsf_u32(e, p + 20) == 0)
			continue;
		if (k++ != i)
			continue;
		uint32_t off = wsf_u32(e, p + 4);
		seg->paddr = wsf_u32(e, p + 12);
		seg->filesz = wsf_u32(e, p + 16);
		seg->memsz = wsf_u32(e, p + 20);
		if ((size_t)off + seg->filesz > e->size || seg->filesz > seg->memsz)
			return WSE_ERROR_MALFORMED;
		seg->data = e->buf + off;
		return 1;
	}
	return 0;
}

int wsf_elf_symbol(const struct wsf_elf *e, const char *name, uint32_t *value)
{
	uint32_t shoff = wsf_u32(e, 32), shentsize = wsf_u16(e, 46), shnum = wsf_u16(e, 48);
	size_t len = strlen(name);
	for (uint32_t i = 0; i < shnum; i++) {
		size_t sh = shoff + (size_t)i * shentsize;
		if (sh + 40 > e->size || wsf_u32(e, sh + 4) != 2 /* SHT_SYMTAB */)
			continue;
		uint32_t off = wsf_u32(e, sh + 16), size = wsf_u32(e, sh + 20), link = wsf_u32(e, sh + 24);
		size_t strsh = shoff + (size_t)link * shentsize;
		uint32_t stroff = wsf_u32(e, strsh + 16), strsize = wsf_u32(e, strsh + 20);
		for (uint32_t s = 0; s + 16 <= size; s += 16) {
			uint32_t nm = wsf_u32(e, off + s);
			if (nm >= strsize || (size_t)stroff + nm + len >= e->size)
				continue;
			const char *str = (const char *)e->buf + stroff + nm;
			if (memcmp(str, name, len) == 0 && str[len] == '\0') {
				*value = wsf_u32(e, off + s + 4);
				return WSE_SUCCESS;
			}
		}
	}
	return WSE_ERROR_NOT_FOUND;
}

int wsf_elf_load(const struct wsf_elf *e, struct wse_fast_tile *t, uint32_t *bad)
{
	struct wsf_elf_seg s;
	int r;
	for (unsigned i = 0; (r = wsf_elf_segment(e, i, &s)) == 1; i++) {
		if (s.paddr & 3) {
			*bad = s.paddr;
			return WSE_ERROR_ALIGN;
		}
		for (uint32_t off = 0; off < s.memsz; off += 4) {
			uint32_t w = 0;
			for (uint32_t k = 0; k < 4; k++)
				if (off + k < s.filesz)
					w |= (uint32_t)s.data[off + k] << (8 * k);
			if (wse_fast_tile_mem_write(t, s.paddr + off, &w, 1) != 0) {
				*bad = s.paddr + off;
				return WSE_ERROR_RANGE;
			}
		}
	}
	return r < 0 ? r : 0;
}

int wsf_elf_signature(const struct wsf_elf *e, const struct wse_fast_tile *t, const char *path,
		      const char *tool)
{
	uint32_t b, end;
	if (wsf_elf_symbol(e, "begin_signature", &b) || wsf_elf_symbol(e, "end_signature", &end)) {
		fprintf(stderr, "%s: no begin_signature/end_signature symbols\n", tool);
		return WSE_ERROR_NOT_FOUND;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return WSE_ERROR_IO;
	}
	for (uint32_t a = b; a < end; a += 4) {
		uint32_t w;
		if (wse_fast_tile_mem_read(t, a, &w, 1) != 0) {
			fprintf(stderr, "%s: cannot read signature word 0x%08" PRIx32 "\n", tool, a);
			fclose(f);
			return WSE_ERROR_RANGE;
		}
		fprintf(f, "S:%08" PRIx32 "\n", w);
	}
	return fclose(f) == 0 ? 0 : WSE_ERROR_IO;
}
