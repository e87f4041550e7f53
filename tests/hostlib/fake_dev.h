/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_dev.h - a mock device for libwsehost's unit tests: a thread serving
 * the link protocol on a Unix socket through libwsehost's own codec, with a
 * toy device model (tile memories, registers, routes, a loop-back stream
 * path, flash). It is not the simulator: it stands in for wsemu-sim so the
 * library's transport and request logic can be tested alone, and can be
 * told to misbehave (stay silent, die mid-reply, send garbage, ...).
 */
#ifndef FAKE_DEV_H
#define FAKE_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "wsehost.h"

enum fake_mode {
	FAKE_NORMAL,
	FAKE_SILENT,       /* read requests, never answer */
	FAKE_DIE_MID_REPLY, /* send half of the next answer, then hang up */
	FAKE_GARBAGE,      /* precede every answer with junk bytes */
	FAKE_BAD_VERSION,  /* answer as a protocol-2 device refusing v1 */
	FAKE_BAD_PCRC,     /* corrupt the payload CRC of every answer */
	FAKE_LATE,         /* answer after late_ms */
	FAKE_HANG_UP,      /* close the connection on the next request */
	FAKE_BUSY,         /* answer everything BUSY (device in use) */
	FAKE_WRONG_OPCODE, /* answer with another request's opcode */
};

/* Putchar register of the mock: a REG_WRITE here emits a CONSOLE event
 * with the low byte. */
#define FAKE_PUTCHAR_ADDR 0x00000010u
#define FAKE_FLASH_BYTES 65536u
#define FAKE_FLASH_SECTOR 4096u
#define FAKE_MAX_PAYLOAD 8192u

struct fake_dev;

/* Serve on sock_path (created, mode 0600) with the DTB read from dtb_path.
 * Connections are served one after another until fake_dev_stop(). */
struct fake_dev *fake_dev_start(const char *sock_path, const char *dtb_path);
void fake_dev_stop(struct fake_dev *f);
void fake_dev_set_mode(struct fake_dev *f, enum fake_mode m, int late_ms);
/* Requests received so far (all connections). */
unsigned long fake_dev_requests(struct fake_dev *f);
/* Serve one connection on an already-accepted fd in this thread (used by
 * the fake-wsemu-sim program); returns when the peer hangs up. */
int fake_dev_serve_fd(struct fake_dev *f, int fd);
struct fake_dev *fake_dev_new(const char *dtb_path);
/* A new flash of bytes bytes, erased, with erase sectors of sector bytes
 * (a device starts with FAKE_FLASH_BYTES, FAKE_FLASH_SECTOR); 0 or -1. */
int fake_dev_set_flash(struct fake_dev *f, uint32_t bytes, uint32_t sector);
/* Flash faults, -1 for none: after cut_after more bytes written (erased or
 * programmed) the device stops writing and hangs up without answering,
 * the mode becoming FAKE_HANG_UP (a power cut mid-request); programs
 * cannot clear bit 0 of the byte at offset stuck. */
void fake_dev_flash_faults(struct fake_dev *f, long long cut_after, long long stuck);
/* A wse_log_cb for the tests: appends each message and a newline to the
 * NUL-terminated buffer of FAKE_LOG_BYTES that user points at (the rest
 * is dropped when it is full). */
#define FAKE_LOG_BYTES 4096
void fake_log_append(void *user, enum wse_log_level lv, const char *msg);
/* A test's paths: a new temporary directory dir ($TMPDIR or /tmp), its
 * socket dir/dev.sock, and sim-4x4's DTB under $WSE_TEST_BOARDS (default
 * build/boards). Returns 0, or -1 when the directory cannot be made. */
int fake_test_paths(char dir[64], char sock[128], char dtb[512]);
/* The flash's bytes, to look at or prepare between connections. */
uint8_t *fake_dev_flash(struct fake_dev *f, size_t *len);
void fake_dev_free(struct fake_dev *f);

#endif
