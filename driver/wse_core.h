/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wse_core.h - the part of the wse driver that does not depend on Linux:
 * ioctl argument checks, the packet check of write(), the ring of device
 * packets read() takes from. The OS side supplies struct wse_os_ops; the
 * module (wse_main.c) and the unit tests (tests/driver) each have one.
 */
#ifndef WSE_CORE_H
#define WSE_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stddef.h>
#include <errno.h>
#include <sys/types.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u32 u32;
#ifndef __user
#define __user
#endif
#endif

#include <linux/wse.h>

/* The driver's version, reported by WSE_IOCTL_GET_INFO. */
#define WSE_DRIVER_MAJOR 0
#define WSE_DRIVER_MINOR 1

/* Bits of wse_core_poll(). */
#define WSE_CORE_READABLE 0x1
#define WSE_CORE_WRITABLE 0x2
#define WSE_CORE_GONE 0x4	/* the device is removed: alone */

/* The longest ioctl argument accepted: the tail beyond is not scanned. */
#define WSE_ARGSZ_MAX 4096

struct wse_core;

/*
 * The OS side. lock/unlock guard the ring and may be a spinlock: nothing
 * sleeps or touches user memory while it is held. wait() sleeps until
 * ready(c) is non-zero (0), timeout_ms elapses (-ETIMEDOUT; 0 = no bound)
 * or another reason ends the wait (a negative error, e.g. a signal); wake()
 * wakes the waiters. The copy functions return the bytes not copied.
 * send() hands one checked request packet to the link; reset_link() resets
 * the board's link.
 */
struct wse_os_ops {
	void *(*alloc)(size_t size);
	void (*free)(void *p);
	void (*lock)(struct wse_core *c);
	void (*unlock)(struct wse_core *c);
	int (*wait)(struct wse_core *c, int (*ready)(struct wse_core *c),
		    unsigned int timeout_ms);
	void (*wake)(struct wse_core *c);
	unsigned long (*copy_from_user)(void *to, const void __user *from,
					unsigned long n);
	unsigned long (*copy_to_user)(void __user *to, const void *from,
				      unsigned long n);
	void (*log)(struct wse_core *c, const char *msg);
	int (*send)(struct wse_core *c, const void *pkt, size_t len);
	int (*reset_link)(struct wse_core *c);
};

/* What GET_INFO and sysfs report about the board. */
struct wse_board_info {
	u32 mesh_cols;
	u32 mesh_rows;
	u32 dtb_size;
	u32 max_payload;
	char compatible[WSE_COMPATIBLE_BYTES];
};

struct wse_core {
	const struct wse_os_ops *ops;
	void *os;			/* the OS side's data */
	struct wse_board_info board;
	u8 *ring;			/* ring_size bytes, a power of two */
	u32 ring_size;
	u32 head;			/* free-running byte counts */
	u32 tail;
	unsigned int read_timeout_ms;
	int gone;			/* set by wse_core_remove() */
};

/* The bytes of a link packet with a payload of len bytes. */
size_t wse_frame_bytes(u32 len);

int wse_core_init(struct wse_core *c, const struct wse_os_ops *ops, void *os,
		  const struct wse_board_info *board, u32 ring_size);
void wse_core_fini(struct wse_core *c);

int wse_copy_arg(struct wse_core *c, void *karg, size_t ksize, size_t minsz,
		 const void __user *uarg, u32 known_flags);
int wse_check_packet(const u8 *pkt, size_t len, u32 max_payload, int request);

long wse_core_ioctl(struct wse_core *c, unsigned int cmd, void __user *arg);
long wse_core_write(struct wse_core *c, const char __user *buf, size_t count);
long wse_core_read(struct wse_core *c, char __user *buf, size_t count,
		   int nonblock);
unsigned int wse_core_poll(struct wse_core *c);
int wse_core_rx_push(struct wse_core *c, const void *pkt, size_t len);
u32 wse_core_queued(struct wse_core *c);
void wse_core_remove(struct wse_core *c);

#endif /* WSE_CORE_H */
