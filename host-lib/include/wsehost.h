/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wsehost.h - libwsehost, the host library of wsemu.
 *
 * Opaque device handles, negative error codes (enum wse_error) with
 * wse_strerror(), options structs that begin with their own size, no global
 * state. Every call that waits takes or inherits a time-out. See
 * docs/libwsehost.md for the guide and docs/protocol.md for the link.
 */
#ifndef WSEHOST_H
#define WSEHOST_H

#include <stddef.h>
#include <stdint.h>

#include <wsemu/wse_error.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WSE_API __attribute__((visibility("default")))
#else
#define WSE_API
#endif

/* Library version: (major << 16) | (minor << 8) | patch. */
#define WSEHOST_VERSION_MAJOR 0
#define WSEHOST_VERSION_MINOR 1
#define WSEHOST_VERSION_PATCH 0
#define WSEHOST_VERSION                                               \
	((WSEHOST_VERSION_MAJOR << 16) | (WSEHOST_VERSION_MINOR << 8) | \
	 WSEHOST_VERSION_PATCH)

/* Errors (enum wse_error, wsemu/wse_error.h): every function returning int
 * returns 0 (or a count) on success and one of them on failure. */

/* Text for an error code (also for unknown codes); never NULL. */
WSE_API const char *wse_strerror(int err);
/* Name of an error code, e.g. "WSE_ERROR_TIMEOUT"; never NULL. */
WSE_API const char *wse_error_name(int err);
/* WSEHOST_VERSION of the library actually loaded. */
WSE_API uint32_t wse_version(void);
/* "major.minor.patch" of the library actually loaded. */
WSE_API const char *wse_version_string(void);

/* Logging: silent unless a callback is set or WSE_DEBUG is in the
 * environment (WSE_DEBUG=1..4 sets the level, messages go to stderr). */
enum wse_log_level {
	WSE_LOG_NONE = 0,
	WSE_LOG_ERROR = 1,
	WSE_LOG_WARNING = 2,
	WSE_LOG_INFO = 3,
	WSE_LOG_DEBUG = 4
};
typedef void (*wse_log_cb)(void *user, enum wse_log_level level,
			   const char *msg);

typedef struct wse_device wse_device;

/* Options of wse_open(). Set size = sizeof(struct wse_open_opts); fields
 * past the caller's size take their defaults, so binaries built against an
 * older header keep working. A NULL opts means all defaults. */
struct wse_open_opts {
	size_t size;
	int timeout_ms;       /* default wait for every request; 0 = 5000 */
	int open_timeout_ms;  /* connect/spawn wait; 0 = 10000 */
	wse_log_cb log_cb;    /* NULL: WSE_DEBUG decides */
	void *log_user;
	int log_level;        /* with log_cb: highest level passed; 0 = INFO */
};

/*
 * Open a device by URI:
 *   "sim:board=sim-4x4"    spawn wsemu-sim for a board (default URI, used
 *                          when uri is NULL or ""); $WSEMU_SIM names it
 *   "sim:board=sim-4x4,model=fast"  spawn wsemu-fast, the functional
 *                          model, instead ($WSEMU_FAST); model=rtl is
 *                          wsemu-sim
 *   "sim:attach=PATH"      connect to a running simulator's Unix socket
 *   "usb:"                 the only USB board attached (an FTDI bridge
 *                          or a vendor-class ff/57/01 interface)
 *   "usb:serial=S" "usb:bus=B,port=P" "usb:vid=V,pid=P"   one of several;
 *                          ",baud=N" sets an FTDI bridge's UART rate
 *   "pcie:"                the only PCIe board: the wse driver's
 *                          /dev/wseN (docs/driver.md)
 *   "pcie:N" "pcie:/dev/wseN"   one of several
 * On success *dev is set and the device's INFO (DTB) has been read.
 * Errors: INVALID_PARAM (bad URI; usb: with several boards matching),
 * NOT_FOUND (no matching board within open_timeout_ms), ACCESS (no
 * permission on the USB device: udev rule), BUSY, TIMEOUT,
 * NO_DEVICE, VERSION, BAD_DTB, NOT_SUPPORTED, NO_MEM, protocol errors.
 */
WSE_API int wse_open(wse_device **dev, const char *uri,
		     const struct wse_open_opts *opts);
/* Close and free; NULL is ignored. Pending asynchronous transfers are
 * cancelled and their callbacks (status WSE_ERROR_ABORTED) have all run
 * when it returns. Must not be called from a callback (ignored, logged)
 * nor race with other calls on dev. */
WSE_API void wse_close(wse_device *dev);

/* Device description, from INFO and the device's DTB.
 * Set size = sizeof(struct wse_info) before calling. */
struct wse_info {
	size_t size;
	unsigned proto_major, proto_minor;         /* the device's */
	uint32_t max_payload, max_outstanding;
	char build_id[33];
	char compatible[64];                       /* board, e.g. wsemu,sim-4x4 */
	char model[96];
	unsigned columns, rows, colors, user_colors;
	unsigned num_vc, vc_depth, ramp_color_depth;
	uint8_t color_vc[32];
	unsigned imem_bytes, dmem_bytes, dmem_banks;
	char link_compatible[32];
	unsigned link_width_bits, link_bytes_per_cycle, link_latency_cycles;
};
/* Errors: INVALID_PARAM (dev or info NULL, info->size too small). */
WSE_API int wse_get_info(wse_device *dev, struct wse_info *info);
/* The raw DTB, valid until wse_close(). */
WSE_API int wse_get_dtb(wse_device *dev, const void **dtb, size_t *len);
/* Parse a DTB without a device (same checks as wse_open). The blob may sit
 * at any address. On WSE_ERROR_BAD_DTB, errbuf (if not NULL) says what is
 * wrong; WSE_ERROR_NO_MEM when a blob that is not 8-byte aligned (libfdt's
 * requirement) cannot be copied. */
WSE_API int wse_parse_dtb(const void *dtb, size_t len, struct wse_info *info,
			  char *errbuf, size_t errlen);

/*
 * Errors of the calls below that talk to the device (all but
 * wse_console_read and wse_crc32c), besides those listed with each:
 *   INVALID_PARAM  dev NULL, a required pointer NULL
 *   TIMEOUT        the device did not answer in time (the request is
 *                  aborted; see docs/libwsehost.md "Time-outs")
 *   NO_DEVICE      the device went away (then returned by every call)
 *   IO             the link failed otherwise
 *   NO_MEM         out of memory
 *   BUSY           called from a transfer callback (it would wait on the
 *                  callback thread), or the device refused (in use)
 *   ABORTED        the request was aborted (a reset, or the device closing)
 *   MALFORMED, PAYLOAD_CRC, LENGTH, VERSION, BAD_OPCODE, OVERFLOW
 *                  the device refused our packet, or answered with a bad
 *                  one
 * Requests of several threads share the link; each call waits only for
 * its own, with no lock held while it waits.
 */

/* Round trip with len bytes (<= max_payload, else LENGTH) echoed;
 * MALFORMED if the echo differs. */
WSE_API int wse_ping(wse_device *dev, const void *data, size_t len);
/* RESET (docs/protocol.md 4.3): every tile halted with its core in reset,
 * routes and counters cleared, stream-out credits withdrawn and the
 * stream-out data queued in the library dropped. Runs in order after the
 * requests sent before it; a stream-in that waits for the mesh must be
 * cancelled first. */
WSE_API int wse_reset(wse_device *dev);
/* x = y = WSE_ALL_TILES: every tile. */
#define WSE_ALL_TILES 0xFFu
WSE_API int wse_tile_halt(wse_device *dev, unsigned x, unsigned y);
WSE_API int wse_tile_run(wse_device *dev, unsigned x, unsigned y);

/* Tile memory (the core's address space), len a multiple of 4, any size
 * (split into packets, several in flight). Errors: ALIGN (addr or len),
 * RANGE (tile, broadcast read, address below 0x80000000 or past
 * 0xFFFFFFFF), DEVICE (unmapped address: words before it were written).
 * HALT/RUN, CSR, route and register calls: RANGE (tile, CSR number,
 * color), ALIGN (register address), DEVICE (unmapped or read-only). */
WSE_API int wse_mem_read(wse_device *dev, unsigned x, unsigned y,
			 uint32_t addr, void *buf, size_t len);
WSE_API int wse_mem_write(wse_device *dev, unsigned x, unsigned y,
			  uint32_t addr, const void *buf, size_t len);
WSE_API int wse_csr_read(wse_device *dev, unsigned x, unsigned y,
			 unsigned csr, uint32_t *value);
WSE_API int wse_csr_write(wse_device *dev, unsigned x, unsigned y,
			  unsigned csr, uint32_t value);
/* Route entries (docs/register-map.md ROUTE[c]) of colors
 * first..first+n-1 of one tile. wse_route_write is the raw register write:
 * it writes the entries as given and checks nothing. Deadlock freedom is a
 * property of every tile's table together (docs/fabric.md, "Deadlock
 * freedom"), which one tile's write cannot see: whole route plans are built
 * with the planner of train/route/wse_route.h (libwsetrain) and written through its
 * checked writer (docs/libwsehost.md, "Route plans"), which refuses a plan
 * wse_route_check() rejects. */
WSE_API int wse_route_read(wse_device *dev, unsigned x, unsigned y,
			   unsigned first, uint32_t *entries, size_t n);
WSE_API int wse_route_write(wse_device *dev, unsigned x, unsigned y,
			    unsigned first, const uint32_t *entries, size_t n);
/* Management register word (docs/register-map.md). */
WSE_API int wse_reg_read(wse_device *dev, unsigned x, unsigned y,
			 uint32_t addr, uint32_t *value);
WSE_API int wse_reg_write(wse_device *dev, unsigned x, unsigned y,
			  uint32_t addr, uint32_t value);

/* Performance counters of a tile's router (15 values, see the protocol) or,
 * with x = y = WSE_ALL_TILES, of the host interface. Returns the number of
 * counters the device sent (may exceed n; only n are stored). Errors:
 * RANGE (tile). */
WSE_API int wse_perf_read(wse_device *dev, unsigned x, unsigned y,
			  uint32_t *values, size_t n);

/* Edge ports: edge 0 = west, 1 = east; row 0..rows-1. */
#define WSE_WEST 0u
#define WSE_EAST 1u
struct wse_stream_chunk {
	unsigned edge, row;
	const uint64_t *wavelets; /* wse_wavelet() layout, 38 bits used */
	size_t count;
};
/* Inject wavelets at one or several edge ports in one packet (split if
 * larger than max_payload); returns when the device accepted them all.
 * Errors: RANGE (edge, row, wavelet over 38 bits), TIMEOUT (the mesh did
 * not take them: back pressure; the request is aborted). */
WSE_API int wse_stream_in(wse_device *dev, const struct wse_stream_chunk *c,
			  size_t n);
/* Allow the device to send up to n more wavelets from an edge port.
 * Errors: INVALID_PARAM (n 0), RANGE. */
WSE_API int wse_stream_credit(wse_device *dev, unsigned edge, unsigned row,
			      uint32_t n);
/* Take up to max received wavelets of a port, waiting up to timeout_ms
 * (< 0: the device time-out; 0: only what is there) for at least one.
 * Returns the count. Errors: INVALID_PARAM (max 0), RANGE, TIMEOUT
 * (nothing came), NO_DEVICE, BUSY (from a callback). */
WSE_API int wse_stream_out(wse_device *dev, unsigned edge, unsigned row,
			   uint64_t *buf, size_t max, int timeout_ms);
/* Take up to len bytes of console output received so far (all tiles,
 * in arrival order; each line prefixed "[x,y] "). Returns the count, or
 * INVALID_PARAM. Does not wait. */
WSE_API int wse_console_read(wse_device *dev, char *buf, size_t len);

/* Flash of the board (docs/protocol.md 4.11): wsemu-fast with a flash
 * carries these out; the RTL and wsemu-sim answer NOT_SUPPORTED. Errors:
 * NOT_SUPPORTED (no flash), RANGE (past its end), ALIGN (erase not on
 * 64 KiB sectors), IO (the part failed). */
WSE_API int wse_flash_read(wse_device *dev, uint32_t off, void *buf,
			   size_t len);
WSE_API int wse_flash_erase(wse_device *dev, uint32_t off, uint32_t len);
WSE_API int wse_flash_program(wse_device *dev, uint32_t off,
			      const void *buf, size_t len);
/* 0 when flash [off, off+len) has CRC-32C crc, else WSE_ERROR_VERIFY. */
WSE_API int wse_flash_verify(wse_device *dev, uint32_t off, uint32_t len,
			     uint32_t crc);
/* CRC-32C as the protocol uses it (start with crc = 0). */
WSE_API uint32_t wse_crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * Fail-safe firmware update (docs/libwsehost.md, "Firmware update";
 * docs/firmware-image.md, "Flash layout" and "Boot record"). The flash's
 * size comes from the DTB's /fpga wsemu,flash-bytes, or, when the DTB has
 * none, from reading the last byte of each power of two from 64 KiB.
 */
#define WSE_FLASH_MAX_PARTS 8
struct wse_flash_part_info {
	unsigned type;           /* 1 bitstream, 2 firmware, 3 dtb, ... */
	char name[16];           /* "bitstream", "firmware", "dtb", "unknown" */
	uint32_t length, crc, version;
	char build_id[32];
};
struct wse_flash_slot_info {
	uint32_t offset, size;   /* where the slot is, its bytes */
	int valid;               /* 1: holds an image wse_image_check accepts */
	int error;               /* else why not: a WSE_ERROR_ code */
	char reason[160];        /* and its text */
	uint32_t length, crc;    /* valid: the image's bytes, CRC-32C */
	char compatible[64];
	unsigned nparts;
	struct wse_flash_part_info parts[WSE_FLASH_MAX_PARTS];
};
/* Set size = sizeof(struct wse_flash_slots) before calling. */
struct wse_flash_slots {
	size_t size;
	uint32_t flash_bytes;
	int records;             /* valid boot records in the log */
	uint32_t record_seq;     /* the newest one's (records > 0) */
	int record_slot;         /* the slot it names, -1 without a record */
	int boot_slot;           /* the slot the board boots: 0 golden,
				    1 update, -1 none */
	struct wse_flash_slot_info slot[2]; /* [0] golden, [1] update */
	int stub;                /* the boot stub at offset 0: 1 a jump,
				    0 erased, -1 neither (torn or foreign) */
	uint32_t stub_addr;      /* where its jump points (stub 1) */
	int stub_slot;           /* the slot whose bitstream that is, when it
				    holds a valid image; else -1 */
	int fallback;            /* the fallback jump at the flash's reach
				    - 256: 1, 0 or -1 as stub */
	uint32_t fallback_addr;  /* where it points (fallback 1) */
	int fallback_slot;       /* 0 when that is the golden slot's
				    bitstream and it holds a valid image;
				    else -1 */
};
/* Read the boot stub, the fallback jump, the boot record log and both
 * slots. The board boots what the FPGA's master SPI boot finds: the slot
 * the boot stub jumps to when that slot holds a valid image; else the
 * golden slot, when the fallback jump points at its bitstream and it holds
 * a valid image; else nothing (docs/firmware-image.md). The boot record
 * is what the last update wrote: its sequence number and slot. Errors: INVALID_PARAM (NULL, s->size too small), NOT_SUPPORTED (no
 * flash, or one under 256 KiB), the flash calls' errors. */
WSE_API int wse_flash_slots(wse_device *dev, struct wse_flash_slots *s);

/* Called by wse_flash_update as it goes: step is "erase", "program",
 * "verify", "boot record" or "boot stub"; done of total bytes. */
typedef void (*wse_flash_progress_fn)(void *user, const char *step,
				      uint64_t done, uint64_t total);
/* Write image[0..len) into the update slot and make it the one that
 * boots: check the image against the board's compatible and the slot size
 * before anything is written, erase the boot stub (with the record log in
 * its sector) so that the golden image boots meanwhile, erase and program
 * the update slot (never the golden slot), verify it with FLASH_VERIFY
 * (the whole image and each part), append a boot record naming it, then
 * write the boot stub's jump to its bitstream, the last write. An update
 * cut off at any point leaves a flash from which the board boots the new
 * image (once the stub is whole) or the golden one. progress may
 * be NULL. err (errlen > 0) gets one line saying what failed.
 * Errors: INVALID_PARAM (NULL), NOT_SUPPORTED (no flash, a flash under
 * 256 KiB, or an image for another board), the refusals of
 * wse_image_check (BAD_MAGIC, VERSION, MALFORMED, TRUNCATED, HEADER_CRC,
 * ALIGN, RANGE, PAYLOAD_CRC; LENGTH: larger than the slot), VERIFY (the
 * flash does not hold what was written), the flash calls' errors. */
WSE_API int wse_flash_update(wse_device *dev, const void *image, size_t len,
			     wse_flash_progress_fn progress, void *user,
			     char *err, size_t errlen);
/* Read the image of a slot (0 golden, 1 update, -1 the one that boots)
 * into buf[0..cap): returns its length (buf NULL and cap 0: only the
 * length). Errors: INVALID_PARAM, NOT_FOUND (the slot holds no valid
 * image, or none boots), OVERFLOW (cap too small), those of
 * wse_flash_slots. */
WSE_API int wse_flash_read_image(wse_device *dev, int slot, void *buf,
				 size_t cap);

/*
 * Asynchronous transfers.
 *
 * A transfer is submitted with a completion callback and returns at once;
 * the callback later reports how it ended:
 *
 *   void cb(wse_transfer *xfer, int status, size_t actual, void *user);
 *
 * status is 0 or a negative error (as the synchronous call would return
 * it; WSE_ERROR_ABORTED after wse_transfer_cancel() or wse_close(),
 * WSE_ERROR_TIMEOUT when its time-out passed, WSE_ERROR_NO_DEVICE when the
 * device went away); actual is what was transferred: bytes for memory,
 * wavelets accepted for stream-in, wavelets stored in buf for stream-out.
 *
 * Rules (docs/libwsehost.md, "Asynchronous transfers"):
 *  - The caller owns the buffer (and, for stream-in, the chunks and their
 *    wavelets) until the callback runs; the library does not touch it
 *    after that, whatever the status.
 *  - Callbacks run on one library thread per device, the callback
 *    thread, one at a time, in completion order. A callback may submit
 *    (resubmit) transfers, cancel and free transfers, and call the
 *    non-waiting functions (wse_console_read, wse_get_info,
 *    wse_get_link_stats). It must not call wse_close() (ignored, logged)
 *    and must not block: the synchronous calls that wait for the device
 *    return WSE_ERROR_BUSY there.
 *  - The callback may run before the submitting call returns; *xfer is
 *    set before that.
 *  - A submit that fails returns the error and no callback comes.
 *  - With xfer NULL the library frees the transfer after its callback;
 *    otherwise the caller frees it with wse_transfer_free() once the
 *    callback has been called (inside the callback is fine).
 *  - timeout_ms <= 0 means the device's time-out (wse_open_opts). For
 *    requests it runs per packet from the moment the packet is sent (a
 *    packet waits for a free slot only behind packets that are
 *    themselves on a time-out); for stream-out from the submission.
 *  - Requests of all transfers go out in submission order, at most the
 *    device's max_outstanding on the link, and the device executes them
 *    in that order. A transfer split into several packets may have some
 *    executed when another fails.
 */
typedef struct wse_transfer wse_transfer;
typedef void (*wse_transfer_cb)(wse_transfer *xfer, int status,
				size_t actual, void *user);

/* wse_mem_read / wse_mem_write as transfers. Submit errors: INVALID_PARAM
 * (dev, cb or buf NULL), ALIGN, RANGE (tile or address), LENGTH, NO_MEM,
 * NO_DEVICE (device gone), ABORTED (device closing). Completion status:
 * 0, TIMEOUT, ABORTED, NO_DEVICE, IO, the device's refusal (RANGE, ALIGN,
 * DEVICE, ...) or a protocol error (MALFORMED, PAYLOAD_CRC, ...). */
WSE_API int wse_mem_read_async(wse_device *dev, unsigned x, unsigned y,
			       uint32_t addr, void *buf, size_t len,
			       int timeout_ms, wse_transfer_cb cb, void *user,
			       wse_transfer **xfer);
WSE_API int wse_mem_write_async(wse_device *dev, unsigned x, unsigned y,
				uint32_t addr, const void *buf, size_t len,
				int timeout_ms, wse_transfer_cb cb, void *user,
				wse_transfer **xfer);
/* wse_stream_in as a transfer; the wavelets are copied at submission.
 * Submit errors: INVALID_PARAM, RANGE (port, wavelet over 38 bits),
 * NO_MEM, NO_DEVICE, ABORTED. Completion as wse_mem_read_async. */
WSE_API int wse_stream_in_async(wse_device *dev,
				const struct wse_stream_chunk *c, size_t n,
				int timeout_ms, wse_transfer_cb cb, void *user,
				wse_transfer **xfer);
/* Wait for wavelets of a port: completes as soon as at least one is
 * there, with up to max of them in buf (actual = the count). Stream-outs
 * of one port are served in submission order. Credits are not granted by
 * this call (wse_stream_credit). Submit errors: INVALID_PARAM (max 0),
 * RANGE, NO_MEM, NO_DEVICE, ABORTED. Completion status: 0, TIMEOUT,
 * ABORTED, NO_DEVICE. */
WSE_API int wse_stream_out_async(wse_device *dev, unsigned edge,
				 unsigned row, uint64_t *buf, size_t max,
				 int timeout_ms, wse_transfer_cb cb,
				 void *user, wse_transfer **xfer);
/* Complete a pending transfer with WSE_ERROR_ABORTED: its callback comes
 * (on the callback thread, possibly before this returns); packets on the
 * link get an ABORT, and their answers are dropped. Returns 0,
 * INVALID_PARAM (NULL), NOT_FOUND (already completed). Must not race with
 * wse_close() of its device. */
WSE_API int wse_transfer_cancel(wse_transfer *xfer);
/* Free a completed transfer (NULL is ignored, returns 0). Returns BUSY,
 * freeing nothing, if its callback has not been called yet. May be
 * called after wse_close() of its device. */
WSE_API int wse_transfer_free(wse_transfer *xfer);

/* Link statistics of the host side. Set size first. */
struct wse_link_stats {
	size_t size;
	uint64_t tx_packets, rx_packets;
	uint64_t resync_bytes;   /* bytes skipped looking for a header */
	uint64_t bad_packets;    /* CRC/format errors in received packets */
	uint64_t late_replies;   /* responses for retired tags (timed out,
				    cancelled, or of a failed transfer) */
	uint64_t timeouts;
	/* Last field (written only when size covers it): line errors the
	 * link's UART reported (overrun, parity, framing, break); for usb:
	 * through an FTDI bridge, one per USB packet whose status flags
	 * one. 0 on links without a UART. */
	uint64_t line_errors;
};
/* Errors: INVALID_PARAM (dev or st NULL, st->size too small). */
WSE_API int wse_get_link_stats(wse_device *dev, struct wse_link_stats *st);

/* Load the PT_LOAD segments of a little-endian RISC-V ELF32 image (in
 * memory, len bytes) into tile (x, y), or every tile with x = y =
 * WSE_ALL_TILES. Halt the tiles first (TILE_CTRL, docs/register-map.md).
 * The image is checked before anything is written.
 * Errors: INVALID_PARAM (NULL), MALFORMED (not a RISC-V ELF32, headers or
 * segments outside the image), RANGE (a segment outside the tile's IMEM or
 * DMEM, or a tile outside the mesh), NO_MEM, and those of wse_mem_write. */
WSE_API int wse_load_elf(wse_device *dev, unsigned x, unsigned y,
			 const void *image, size_t len);
/* Value of symbol name in the image's symbol table.
 * Errors: INVALID_PARAM (NULL), MALFORMED (not a RISC-V ELF32, tables
 * outside the image), NOT_FOUND (no such symbol). */
WSE_API int wse_elf_symbol(const void *image, size_t len, const char *name,
			   uint32_t *value);

#ifdef __cplusplus
}
#endif
#endif /* WSEHOST_H */
