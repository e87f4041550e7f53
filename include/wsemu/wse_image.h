/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_image.h - the firmware image container (docs/firmware-image.md), in
 * libwsewire (wire/image.c): a board's bitstream, default PE firmware and
 * DTB with a header naming the board, each part with its own CRC-32C. A
 * builder writes images into a caller's buffer; wse_image_check() checks
 * every byte of one before it goes to the flash. Pure functions over byte
 * buffers: no I/O, no allocation. Also the flash layout the images go into
 * and the boot record that names the slot a board boots.
 *
 * The functions return 0 (or a size) or one of the wse_error.h codes; each
 * lists its own. Those taking err/errlen write one line naming the problem
 * into err (when err is not NULL and errlen > 0), e.g.
 * "part firmware: CRC-32C 0x1c2d3e4f, the part table says 0x00000000".
 */
#ifndef WSEMU_WSE_IMAGE_H
#define WSEMU_WSE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "wsemu/wse_crc32c.h"
#include "wsemu/wse_error.h"
#include "wsemu/wse_wire.h"
#include "wsemu/wse_wirelib.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Layout (little-endian; docs/firmware-image.md) ------------------- */
#define WSE_IMAGE_MAGIC 0x49455357u   /* bytes "WSEI" */
#define WSE_IMAGE_MAJOR 1u
#define WSE_IMAGE_MINOR 0u
#define WSE_IMAGE_HDR_BYTES 96u       /* fixed header */
#define WSE_IMAGE_PART_BYTES 64u      /* one part-table entry */
#define WSE_IMAGE_MAX_PARTS 8u
#define WSE_IMAGE_ALIGN 256u          /* parts and total: SPI NOR pages */
#define WSE_IMAGE_COMPAT_BYTES 64u    /* NUL-terminated, NUL-padded */
#define WSE_IMAGE_ID_BYTES WSE_BUILD_ID_BYTES /* part build id, 32 */
#define WSE_IMAGE_MAX_BYTES 0x7fffff00u /* an int holds every image size */

/* Fixed header. The first 16 bytes keep their place in every version. */
#define WSE_IMAGE_OFF_MAGIC 0         /* u32 */
#define WSE_IMAGE_OFF_MAJOR 4         /* u16 */
#define WSE_IMAGE_OFF_MINOR 6         /* u16 */
#define WSE_IMAGE_OFF_HDR_BYTES 8     /* u32: 96 + 64 * part count */
#define WSE_IMAGE_OFF_TOTAL 12        /* u32: the whole image */
#define WSE_IMAGE_OFF_COUNT 16        /* u16: parts, 1..8 */
#define WSE_IMAGE_OFF_FLAGS 18        /* u16: 0 */
#define WSE_IMAGE_OFF_RSVD0 20        /* u32: 0 */
#define WSE_IMAGE_OFF_COMPAT 24       /* char[64] */
#define WSE_IMAGE_OFF_RSVD1 88        /* u32: 0 */
#define WSE_IMAGE_OFF_HCRC 92         /* u32: CRC-32C of [0,92) [96,hdr) */

/* Part-table entry, at 96 + 64 * i. */
#define WSE_IMAGE_POFF_TYPE 0         /* u16 */
#define WSE_IMAGE_POFF_FLAGS 2        /* u16: 0 */
#define WSE_IMAGE_POFF_OFFSET 4       /* u32: from the image's start */
#define WSE_IMAGE_POFF_LENGTH 8       /* u32: > 0 */
#define WSE_IMAGE_POFF_CRC 12         /* u32: CRC-32C of the part */
#define WSE_IMAGE_POFF_VERSION 16     /* u32: the part's version number */
#define WSE_IMAGE_POFF_RSVD 20        /* 3 x u32: 0 */
#define WSE_IMAGE_POFF_BUILD_ID 32    /* char[32], NUL-padded */

/* Part types. Types with WSE_IMAGE_PART_OPTIONAL set, when unknown to a
 * reader, are checked like the others and otherwise skipped; any other
 * unknown type is refused. */
enum wse_image_part_type {
	WSE_IMAGE_PART_BITSTREAM = 1, /* the FPGA's configuration; required */
	WSE_IMAGE_PART_FIRMWARE = 2,  /* default PE program: RISC-V ELF32 LE */
	WSE_IMAGE_PART_DTB = 3,       /* the board's device tree blob */
};
#define WSE_IMAGE_PART_OPTIONAL 0x8000u

/* "bitstream", "firmware", "dtb", or "unknown". */
WSE_INTERNAL const char *wse_image_part_name(unsigned type);

/* ---- Building --------------------------------------------------------- */
struct wse_image_builder {
	char compatible[WSE_IMAGE_COMPAT_BYTES];
	unsigned count;
	struct {
		uint16_t type;
		uint32_t version, length;
		char build_id[WSE_IMAGE_ID_BYTES];
		const uint8_t *data; /* the caller's, until wse_image_write() */
	} parts[WSE_IMAGE_MAX_PARTS];
};

/* Start an image for the board whose device tree's top-level compatible
 * is `compatible` (its first string, e.g. "wsemu,ulx3s-85f"). Returns 0, or
 *   WSE_ERROR_INVALID_PARAM  b or compatible NULL, compatible empty or
 *                            longer than 63 bytes */
WSE_INTERNAL int wse_image_init(struct wse_image_builder *b,
				const char *compatible);

/* Add a part; data must stay valid until wse_image_write(). build_id may
 * be NULL (empty). Parts are laid out in the order they are added. The
 * content is checked as wse_image_check() does (firmware: a RISC-V ELF32
 * little-endian file; DTB: the blob's magic and size). Returns 0, or
 *   WSE_ERROR_INVALID_PARAM  b or data NULL, length 0, a type that is not
 *                            known and not optional, build_id longer than
 *                            31 bytes
 *   WSE_ERROR_MALFORMED      a second part of the type, or content that is
 *                            not what the type says
 *   WSE_ERROR_OVERFLOW       already WSE_IMAGE_MAX_PARTS parts
 *   WSE_ERROR_LENGTH         the image would exceed WSE_IMAGE_MAX_BYTES */
WSE_INTERNAL int wse_image_add(struct wse_image_builder *b, unsigned type,
			       const void *data, uint32_t length,
			       uint32_t version, const char *build_id,
			       char *err, size_t errlen);

/* Write the image into out[0..cap). With out NULL and cap 0, write nothing
 * and return the size (the size query). Returns the image's size, or
 *   WSE_ERROR_INVALID_PARAM  b NULL, no bitstream part, out NULL with cap
 *                            > 0
 *   WSE_ERROR_OVERFLOW       cap smaller than the image */
WSE_INTERNAL int wse_image_write(const struct wse_image_builder *b,
				 uint8_t *out, size_t cap);

/* ---- Checking --------------------------------------------------------- */
struct wse_image_part {
	uint16_t type;
	uint32_t offset, length, crc, version;
	char build_id[WSE_IMAGE_ID_BYTES];
	const uint8_t *data; /* into the checked buffer */
};
struct wse_image {
	uint16_t major, minor;
	uint32_t header_bytes, total_bytes, header_crc;
	char compatible[WSE_IMAGE_COMPAT_BYTES];
	unsigned count;
	struct wse_image_part parts[WSE_IMAGE_MAX_PARTS]; /* table order */
};

/*
 * Check the image buf[0..len) and fill *img. expected_compatible NULL
 * skips the board check; max_bytes 0 skips the size limit (else the flash
 * slot's size). len must be the image's size exactly. On failure *img is
 * unspecified. The checks, in this order, and their errors:
 *   WSE_ERROR_INVALID_PARAM  buf or img NULL
 *   WSE_ERROR_TRUNCATED      len under the fixed header's 96 bytes
 *   WSE_ERROR_BAD_MAGIC      no "WSEI" at the start
 *   WSE_ERROR_VERSION        format major version not WSE_IMAGE_MAJOR
 *   WSE_ERROR_MALFORMED      part count not 1..8, header length not
 *                            96 + 64 * count (they size the header CRC)
 *   WSE_ERROR_TRUNCATED      len under the header with its part table
 *   WSE_ERROR_HEADER_CRC     header CRC-32C mismatch
 *   WSE_ERROR_MALFORMED      a reserved field or flag set; compatible
 *                            empty, unterminated or not NUL-padded; a build
 *                            id not NUL-padded; an unknown part type
 *                            without WSE_IMAGE_PART_OPTIONAL; a part of
 *                            length 0; two parts of one type; no bitstream
 *   WSE_ERROR_ALIGN          total length or a part's offset not a
 *                            multiple of 256
 *   WSE_ERROR_RANGE          total length under the header's, a part
 *                            inside the header or past the image's end,
 *                            two parts overlapping
 *   WSE_ERROR_LENGTH         total length over max_bytes: too big for the
 *                            flash slot
 *   WSE_ERROR_NOT_SUPPORTED  compatible not expected_compatible: an image
 *                            for another board (the text names both)
 *   WSE_ERROR_TRUNCATED      len under the total length
 *   WSE_ERROR_MALFORMED      len over the total length; a byte outside the
 *                            header and the parts not 0
 *   WSE_ERROR_PAYLOAD_CRC    a part's CRC-32C mismatch (the text names the
 *                            part)
 *   WSE_ERROR_MALFORMED      a part's content not what its type says
 *                            (firmware: RISC-V ELF32 little-endian; DTB:
 *                            the blob's magic, its size the part's length)
 */
WSE_INTERNAL int wse_image_check(const void *buf, size_t len,
				 const char *expected_compatible,
				 uint32_t max_bytes, struct wse_image *img,
				 char *err, size_t errlen);

/* The part of that type, or NULL. */
WSE_INTERNAL const struct wse_image_part *
wse_image_find(const struct wse_image *img, unsigned type);

/* ---- Flash layout (docs/firmware-image.md, "Flash layout") ------------ */
#define WSE_FLASH_SECTOR_BYTES 0x10000u /* 64 KiB erase sector */
#define WSE_FLASH_REACH_BYTES 0x1000000u /* 24-bit SPI addresses: 16 MiB */
struct wse_flash_layout {
	uint32_t sector_bytes;    /* 64 KiB */
	uint32_t boot_offset;     /* boot-pointer sector: 0 */
	uint32_t golden_offset;   /* golden slot */
	uint32_t update_offset;   /* update slot */
	uint32_t slot_bytes;      /* each slot; an image's max_bytes */
	uint32_t fallback_offset; /* the sector with the jump to the golden */
	uint32_t stub_offset;     /* the boot stub: boot_offset */
	uint32_t fallback_jump;   /* the fallback jump: reach - 256 */
};
/* The layout in a flash of flash_bytes (the DTB's /fpga wsemu,flash-bytes).
 * Returns 0, or
 *   WSE_ERROR_INVALID_PARAM  l NULL, flash_bytes not a power of two or
 *                            under 256 KiB */
WSE_INTERNAL int wse_flash_layout(uint32_t flash_bytes,
				  struct wse_flash_layout *l);

/* ---- ECP5 jump (docs/firmware-image.md, "Boot stub and fallback jump") - */
/* The bitstream the ECP5's master SPI boot follows to another flash
 * address: 16 dummy bytes, the preamble FF FF BD B3, 4 dummy bytes, a
 * control-register write of 0 (22 00 00 00, 00 00 00 00), the jump (7E 00
 * 00 00, the SPI read opcode 03, the 24-bit address, big-endian) and 18
 * dummy bytes. ecpmulti (prjtrellis) writes the same bytes at the end of
 * the flash as its jump to a golden bitstream. */
#define WSE_ECP5_JUMP_BYTES 58u
#define WSE_ECP5_JUMP_OFF_ADDR 37   /* the 3 address bytes */
#define WSE_FLASH_FALLBACK_BACK 256u /* the fallback jump: reach - 256 */

/* Write the jump to addr into out[0..58). Returns 58, or
 *   WSE_ERROR_INVALID_PARAM  out NULL
 *   WSE_ERROR_RANGE          addr at or beyond 16 MiB (24-bit SPI reach)
 *   WSE_ERROR_OVERFLOW       cap under 58 */
WSE_INTERNAL int wse_ecp5_jump_encode(uint32_t addr, uint8_t *out, size_t cap);

/* Read a jump from buf[0..len): its address in *addr. Returns 0, or,
 * checked in this order,
 *   WSE_ERROR_INVALID_PARAM  buf or addr NULL
 *   WSE_ERROR_TRUNCATED      len under 58
 *   WSE_ERROR_NOT_FOUND      the 58 bytes are erased (all 0xFF)
 *   WSE_ERROR_MALFORMED      any byte other than wse_ecp5_jump_encode's
 *                            for some address (a torn or foreign stub) */
WSE_INTERNAL int wse_ecp5_jump_decode(const void *buf, size_t len,
				      uint32_t *addr);

/* ---- Boot record (docs/firmware-image.md, "Boot record") -------------- */
/* The boot-pointer sector's upper half is a log of 64-byte records, each
 * naming the slot to boot; an update appends one to the first erased
 * entry (erasing the sector first when none is left), and the valid record
 * with the highest sequence number wins. A torn record fails its CRC and
 * the one before it stays in force. */
#define WSE_BOOTREC_MAGIC 0x42455357u   /* bytes "WSEB" */
#define WSE_BOOTREC_BYTES 64u
#define WSE_BOOTREC_LOG_OFFSET 0x8000u  /* from the boot-pointer sector */
#define WSE_BOOTREC_LOG_BYTES 0x8000u   /* 512 records */
#define WSE_BOOTREC_OFF_MAGIC 0         /* u32 */
#define WSE_BOOTREC_OFF_SEQ 4           /* u32: 1 and up, +1 per record */
#define WSE_BOOTREC_OFF_SLOT 8          /* u32: enum wse_flash_slot */
#define WSE_BOOTREC_OFF_SLOT_OFFSET 12  /* u32: the slot's flash offset */
#define WSE_BOOTREC_OFF_LENGTH 16       /* u32: the image's total_bytes */
#define WSE_BOOTREC_OFF_IMAGE_CRC 20    /* u32: CRC-32C of the image */
#define WSE_BOOTREC_OFF_RSVD 24         /* 9 x u32: 0 */
#define WSE_BOOTREC_OFF_CRC 60          /* u32: CRC-32C of [0,60) */

enum wse_flash_slot { WSE_FLASH_SLOT_GOLDEN = 0, WSE_FLASH_SLOT_UPDATE = 1 };

struct wse_bootrec {
	uint32_t seq, slot, slot_offset, length, image_crc;
};

/* Write the record into out[0..64). Returns 64, or
 *   WSE_ERROR_INVALID_PARAM  r or out NULL, seq 0, slot not 0 or 1,
 *                            length 0
 *   WSE_ERROR_OVERFLOW       cap under 64 */
WSE_INTERNAL int wse_bootrec_encode(const struct wse_bootrec *r, uint8_t *out,
				    size_t cap);

/* Read one record from buf[0..len). Returns 0, or, checked in this order,
 *   WSE_ERROR_INVALID_PARAM  buf or r NULL
 *   WSE_ERROR_TRUNCATED      len under 64
 *   WSE_ERROR_BAD_MAGIC      no "WSEB" (an erased entry included)
 *   WSE_ERROR_HEADER_CRC     the record's CRC-32C does not match
 *   WSE_ERROR_MALFORMED      seq 0, slot not 0 or 1, length 0, a
 *                            reserved word not 0 */
WSE_INTERNAL int wse_bootrec_decode(const void *buf, size_t len,
				    struct wse_bootrec *r);

/* Scan the record log log[0..len) (len a multiple of 64; the rest is
 * ignored). *best gets the valid record with the highest sequence number
 * (the later entry on a tie), *next the index of the entry after the last
 * one that is not erased (all 0xFF): where the next record goes, equal to
 * len / 64 when the log is full. Either may be NULL. Returns the count of
 * valid records (0: no record, *best untouched), or
 *   WSE_ERROR_INVALID_PARAM  log NULL */
WSE_INTERNAL int wse_bootrec_scan(const void *log, size_t len,
				  struct wse_bootrec *best, uint32_t *next);

#ifdef __cplusplus
}
#endif
#endif /* WSEMU_WSE_IMAGE_H */
