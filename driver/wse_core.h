/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wse_core.h - the part of the wse driver that does not depend on Linux:
 * ioctl argument checks, the packet check of write(), the queue of device
 * packets read() takes from, and the board's two descriptor rings
 * (docs/pcie.md): H2C carries request packets to the card, C2H brings
 * responses and events back. The OS side supplies struct wse_os_ops; the
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
typedef __u64 u64;
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

/* How long a blocking write() waits for room in the H2C ring. */
#define WSE_WRITE_TIMEOUT_MS 2000
/* How long stopping a ring waits for its descriptor in progress: polls. */
#define WSE_STOP_POLLS 100

struct wse_core;

/*
 * The OS side. lock/unlock guard the read queue and the rings and may be a
 * spinlock: nothing sleeps or touches user memory while it is held (the
 * register accessors and the core's copies to and from DMA memory do run
 * under it). wait() sleeps until ready(c) is non-zero (0), timeout_ms
 * elapses (-ETIMEDOUT; 0 = no bound) or another reason ends the wait (a
 * negative error, e.g. a signal); ready() takes the lock itself. wake()
 * wakes the waiters. The copy functions return the bytes not copied.
 *
 * reg_read/reg_write: a 32-bit access to BAR 0 at byte offset off
 * (WSE_PCIE_REG_*). reg_write orders the core's earlier stores to DMA
 * memory before the register write (a doorbell finds its descriptors
 * filled); the core's loads from DMA memory after reg_read see what the
 * device wrote before it answered (a completion before HEAD). Linux's
 * writel/readl do both. Called only while the device is present.
 *
 * dma_alloc: size bytes of memory both the CPU and the device see without
 * syncing (coherent), zeroed, aligned to at least 16 bytes; its bus
 * address in *bus; NULL when there is none. dma_free gives it back, with
 * the size and bus address it was allocated with.
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
	u32 (*reg_read)(struct wse_core *c, u32 off);
	void (*reg_write)(struct wse_core *c, u32 off, u32 val);
	void *(*dma_alloc)(struct wse_core *c, size_t size, u64 *bus);
	void (*dma_free)(struct wse_core *c, size_t size, void *cpu, u64 bus);
};

/*
 * One descriptor ring and its buffers, entry k's buffer at k * buf_bytes.
 * Indices run from 0 to entries - 1, as the device's HEAD and TAIL do.
 */
struct wse_dma_ring {
	u8 *desc;			/* entries descriptors of 16 bytes */
	u64 desc_bus;
	u8 *buf;			/* entries buffers of buf_bytes */
	u64 buf_bus;
	u32 entries;			/* a power of two */
	u32 buf_bytes;			/* a multiple of 8 */
	u32 reg;			/* WSE_PCIE_REG_H2C or _C2H */
	u32 tail;			/* the next entry the host fills */
	u32 head;			/* the next entry the host reaps */
	int err;			/* the ring stopped on an error: errno */
};

/* The rings wse_core_start() sets up. */
struct wse_ring_cfg {
	u32 h2c_entries;		/* a power of two, 2 to RING_MAX */
	u32 h2c_buf_bytes;		/* multiple of 8, 8 to DESC_MAX */
	u32 c2h_entries;
	u32 c2h_buf_bytes;
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
	int running;			/* the rings run (wse_core_start()) */
	int hw_gone;			/* wse_core_stop() done: no register */
	struct wse_dma_ring h2c;
	struct wse_dma_ring c2h;
	u8 *rx;				/* a C2H packet being gathered */
	u32 rx_len;
	int rx_drop;			/* drop up to its end: too long */
	u32 rx_dropped;			/* packets the read queue had no room for */
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
long wse_core_write(struct wse_core *c, const char __user *buf, size_t count,
		    int nonblock);
long wse_core_read(struct wse_core *c, char __user *buf, size_t count,
		   int nonblock);
unsigned int wse_core_poll(struct wse_core *c);
int wse_core_rx_push(struct wse_core *c, const void *pkt, size_t len);
u32 wse_core_queued(struct wse_core *c);
void wse_core_remove(struct wse_core *c);

int wse_core_start(struct wse_core *c, const struct wse_ring_cfg *cfg);
int wse_core_stop(struct wse_core *c);
void wse_core_free_rings(struct wse_core *c);
void wse_core_irq(struct wse_core *c);

#endif /* WSE_CORE_H */
