/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsf_elf.h - a minimal reader for the little-endian ELF32 RISC-V images a
 * tile core runs: loadable segments and symbol lookup (internal to
 * wsemu-fast's tools).
 */
#ifndef WSEMU_WSF_ELF_H
#define WSEMU_WSF_ELF_H

#include <stddef.h>
#include <stdint.h>

struct wsf_elf {
	uint8_t *buf; /* the whole file */
	size_t size;
	uint32_t entry;
};

/* One PT_LOAD segment: filesz bytes at data, zeros up to memsz. */
struct wsf_elf_seg {
	uint32_t paddr, memsz, filesz;
	const uint8_t *data;
};

/* Read and check path. Errors: WSE_ERROR_NOT_FOUND (cannot open or read),
 * WSE_ERROR_MALFORMED (not a little-endian ELF32 RISC-V file, or a
 * truncated header), WSE_ERROR_NO_MEM. */
int wsf_elf_open(struct wsf_elf *e, const char *path);
void wsf_elf_close(struct wsf_elf *e);

/* The i-th non-empty PT_LOAD segment: 1 and *seg set, 0 past the last.
 * Errors: WSE_ERROR_MALFORMED (a header or segment outside the file). */
int wsf_elf_segment(const struct wsf_elf *e, unsigned i, struct wsf_elf_seg *seg);

/* The value of symbol name. Errors: WSE_ERROR_NOT_FOUND. */
int wsf_elf_symbol(const struct wsf_elf *e, const char *name, uint32_t *value);

/* Load every segment into tile t word by word through the management
 * access (as the RTL harnesses do), zeros past filesz.
 * Errors: WSE_ERROR_ALIGN (a segment not word-aligned; *bad its address),
 * WSE_ERROR_RANGE (a word outside the tile's memories; *bad its address),
 * WSE_ERROR_MALFORMED (a bad segment). */
struct wse_fast_tile;
int wsf_elf_load(const struct wsf_elf *e, struct wse_fast_tile *t, uint32_t *bad);

/* Write the words from symbol begin_signature to end_signature of tile
 * t's memory to path as lines "S:" followed by 8 hex digits (the RTL
 * harnesses' --sig);
 * a failure is reported on stderr, prefixed by tool.
 * Errors: WSE_ERROR_NOT_FOUND (no such symbols), WSE_ERROR_IO (the file),
 * WSE_ERROR_RANGE (a word outside the tile's memories). */
int wsf_elf_signature(const struct wsf_elf *e, const struct wse_fast_tile *t, const char *path,
		      const char *tool);

#endif
