// SPDX-License-Identifier: GPL-2.0-only
/*
 * wse_core.c - the wse driver's portable core (wse_core.h, docs/driver.md).
 */
#include "wse_core.h"
#include "wsemu/wse_wire.h"
#include "wsemu/wse_pcie.h"

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <asm/byteorder.h>
#else
#include <string.h>
#include <endian.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define cpu_to_le32(v) htole32(v)
#define le32_to_cpu(v) le32toh(v)
#endif

/* Every INT_STATUS and INT_MASK bit, every ERR_STATUS bit. */
#define WSE_INT_ALL ((1u << WSE_PCIE_NUM_VECTORS) - 1)
#define WSE_ERR_ALL 0xffffu
#define WSE_RX_MAX WSE_FRAME_BYTES(WSE_PROTO_MAX_PAYLOAD)

static u32 get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* ---- descriptors in DMA memory (docs/pcie.md), little-endian ---- */

static u32 ring_free(const struct wse_dma_ring *r)
{
	return r->entries - 1 - ((r->tail - r->head) & (r->entries - 1));
}

static __le32 *ring_entry(const struct wse_dma_ring *r, u32 i)
{
	return (__le32 *)(r->desc + (size_t)i * WSE_PCIE_DESC_BYTES);
}

static void desc_write(struct wse_dma_ring *r, u32 i, u32 len, u32 flags)
{
	__le32 *d = ring_entry(r, i);
	u64 addr = r->buf_bus + (u64)i * r->buf_bytes;

	WRITE_ONCE(d[0], cpu_to_le32((u32)addr));
	WRITE_ONCE(d[1], cpu_to_le32((u32)(addr >> 32)));
	WRITE_ONCE(d[2], cpu_to_le32(len));
	WRITE_ONCE(d[3], cpu_to_le32(flags));
}

/* A completed entry's status and length (the device's bytes 8-15). */
static u32 cpl_status(const struct wse_dma_ring *r, u32 i, u32 *len)
{
	const __le32 *d = ring_entry(r, i);

	*len = le32_to_cpu(READ_ONCE(d[WSE_PCIE_CPL_OFF_LEN / 4]));
	return le32_to_cpu(READ_ONCE(d[WSE_PCIE_CPL_OFF_STATUS / 4]));
}

/* The H2C entries a packet of len bytes takes. */
static u32 h2c_slots(struct wse_core *c, u32 len)
{
	return (len + c->h2c.buf_bytes - 1) / c->h2c.buf_bytes;
}

size_t wse_frame_bytes(u32 len)
{
	return WSE_FRAME_BYTES(len);
}

int wse_core_init(struct wse_core *c, const struct wse_os_ops *ops, void *os,
		  const struct wse_board_info *board, u32 ring_size)
{
	memset(c, 0, sizeof(*c));
	if (!ring_size || (ring_size & (ring_size - 1)) ||
	    board->max_payload > WSE_PROTO_MAX_PAYLOAD ||
	    ring_size < wse_frame_bytes(board->max_payload))
		return -EINVAL;
	c->ring = ops->alloc(ring_size);
	if (!c->ring)
		return -ENOMEM;
	c->ops = ops;
	c->os = os;
	c->board = *board;
	c->board.compatible[WSE_COMPATIBLE_BYTES - 1] = '\0';
	c->ring_size = ring_size;
	return 0;
}

void wse_core_fini(struct wse_core *c)
{
	wse_core_free_rings(c);
	if (c->rx)
		c->ops->free(c->rx);
	c->rx = NULL;
	if (c->ring)
		c->ops->free(c->ring);
	c->ring = NULL;
}

/*
 * Copy an ioctl argument whose struct is ksize bytes, minsz in its first
 * version, into karg: argsz below minsz or unknown flags -EINVAL, bytes
 * beyond ksize not all zero -E2BIG (argsz above WSE_ARGSZ_MAX too), a bad
 * user address -EFAULT. Bytes of karg the caller did not send are zero.
 */
int wse_copy_arg(struct wse_core *c, void *karg, size_t ksize, size_t minsz,
		 const void __user *uarg, u32 known_flags)
{
	const char __user *tail = (const char __user *)uarg + ksize;
	u8 chunk[64];
	u32 hdr[2];
	size_t left, n, i;

	if (c->ops->copy_from_user(hdr, uarg, sizeof(hdr)))
		return -EFAULT;
	if (hdr[0] < minsz)
		return -EINVAL;
	if (hdr[0] > WSE_ARGSZ_MAX)
		return -E2BIG;
	memset(karg, 0, ksize);
	n = hdr[0] < ksize ? hdr[0] : ksize;
	if (c->ops->copy_from_user(karg, uarg, n))
		return -EFAULT;
	left = hdr[0] > ksize ? hdr[0] - ksize : 0;
	while (left) {
		n = left < sizeof(chunk) ? left : sizeof(chunk);
		if (c->ops->copy_from_user(chunk, tail, n))
			return -EFAULT;
		for (i = 0; i < n; i++)
			if (chunk[i])
				return -E2BIG;
		tail += n;
		left -= n;
	}
	if (hdr[1] & ~known_flags)
		return -EINVAL;
	return 0;
}

/*
 * A whole link packet of len bytes: at least a header and a trailer, a
 * multiple of 8 bytes, the magic, a length field within max_payload that
 * makes exactly len bytes; a request (request != 0) has neither the
 * response nor the event flag. 0 or -EINVAL.
 */
int wse_check_packet(const u8 *pkt, size_t len, u32 max_payload, int request)
{
	u32 plen;

	if (len < WSE_HDR_BYTES + WSE_TRAILER_BYTES || len % WSE_PROTO_ALIGN)
		return -EINVAL;
	if (get_le32(pkt + WSE_HDR_OFF_MAGIC) != WSE_PROTO_MAGIC)
		return -EINVAL;
	plen = get_le32(pkt + WSE_HDR_OFF_LENGTH);
	if (plen > max_payload || wse_frame_bytes(plen) != len)
		return -EINVAL;
	if (request && (pkt[WSE_HDR_OFF_FLAGS] &
			(WSE_FLAG_RESPONSE | WSE_FLAG_EVENT)))
		return -EINVAL;
	return 0;
}

union wse_ioctl_arg {
	struct wse_info info;
	struct wse_reset reset;
	struct wse_timeout timeout;
};

static long wse_get_info(struct wse_core *c, union wse_ioctl_arg *a,
			 void __user *arg)
{
	struct wse_info *info = &a->info;

	info->argsz = sizeof(*info);
	info->api_version = WSE_API_VERSION;
	info->driver_version = WSE_DRIVER_MAJOR << 16 | WSE_DRIVER_MINOR;
	info->mesh_cols = c->board.mesh_cols;
	info->mesh_rows = c->board.mesh_rows;
	info->dtb_size = c->board.dtb_size;
	info->max_payload = c->board.max_payload;
	memcpy(info->compatible, c->board.compatible, sizeof(info->compatible));
	if (c->ops->copy_to_user(arg, info, sizeof(*info)))
		return -EFAULT;
	return 0;
}

static int rings_halt(struct wse_core *c);
static int rings_run(struct wse_core *c);

static void drop_queue(struct wse_core *c)
{
	c->ops->lock(c);
	c->tail = c->head;
	c->ops->unlock(c);
}

/*
 * Drop the read queue; unless WSE_RESET_QUEUES_ONLY, also stop both rings
 * (what the H2C ring still held is not sent), clear the device's errors
 * and start the rings again empty.
 */
static long wse_reset(struct wse_core *c, union wse_ioctl_arg *a,
		      void __user *arg)
{
	int ret;

	drop_queue(c);
	if (a->reset.flags & WSE_RESET_QUEUES_ONLY)
		return 0;
	if (!c->h2c.desc)
		return -EOPNOTSUPP;
	ret = rings_halt(c);
	if (ret)
		return ret;
	drop_queue(c);
	return rings_run(c);
}

static long wse_set_timeout(struct wse_core *c, union wse_ioctl_arg *a,
			    void __user *arg)
{
	if (a->timeout.pad)
		return -EINVAL;
	c->read_timeout_ms = a->timeout.read_timeout_ms;
	return 0;
}

/*
 * The ioctls: the size of each one's argument (every struct is still in its
 * first version, the shortest argsz taken) and the flags it knows.
 */
static const struct wse_ioctl {
	unsigned int cmd;
	u32 size;
	u32 known_flags;
	long (*fn)(struct wse_core *c, union wse_ioctl_arg *a,
		   void __user *arg);
} wse_ioctls[] = {
	{ WSE_IOCTL_GET_INFO, sizeof(struct wse_info), 0, wse_get_info },
	{ WSE_IOCTL_RESET, sizeof(struct wse_reset), WSE_RESET_FLAGS,
	  wse_reset },
	{ WSE_IOCTL_SET_TIMEOUT, sizeof(struct wse_timeout), 0,
	  wse_set_timeout },
};

static int wse_gone(struct wse_core *c)
{
	int gone;

	c->ops->lock(c);
	gone = c->gone;
	c->ops->unlock(c);
	return gone;
}

/*
 * The device is removed: every later call fails with -ENODEV, and the
 * waiters (read(), poll) are woken to see it.
 */
void wse_core_remove(struct wse_core *c)
{
	c->ops->lock(c);
	c->gone = 1;
	c->ops->unlock(c);
	c->ops->wake(c);
}

long wse_core_ioctl(struct wse_core *c, unsigned int cmd, void __user *arg)
{
	union wse_ioctl_arg a;
	size_t i;
	int ret;

	if (wse_gone(c))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(wse_ioctls); i++) {
		const struct wse_ioctl *io = &wse_ioctls[i];

		if (io->cmd != cmd)
			continue;
		ret = wse_copy_arg(c, &a, io->size, io->size, arg,
				   io->known_flags);
		if (ret)
			return ret;
		return io->fn(c, &a, arg);
	}
	return -ENOTTY;
}

static long h2c_send(struct wse_core *c, const u8 *pkt, u32 len,
		     int nonblock);

/*
 * Send one request packet: its size; -EINVAL (not a request packet),
 * -EFAULT, -EAGAIN (nonblock, the H2C ring full), -ETIMEDOUT (the ring
 * stayed full for WSE_WRITE_TIMEOUT_MS), the ring's error (the device
 * stopped it: -EIO, -ETIMEDOUT), a signal's error or -ENODEV.
 */
long wse_core_write(struct wse_core *c, const char __user *buf, size_t count,
		    int nonblock)
{
	u8 *pkt;
	long ret;

	if (wse_gone(c))
		return -ENODEV;
	if (count < WSE_HDR_BYTES + WSE_TRAILER_BYTES ||
	    count > wse_frame_bytes(c->board.max_payload)) {
		c->ops->log(c, "write: not the size of a packet");
		return -EINVAL;
	}
	pkt = c->ops->alloc(count);
	if (!pkt)
		return -ENOMEM;
	if (c->ops->copy_from_user(pkt, buf, count)) {
		ret = -EFAULT;
		goto out;
	}
	ret = wse_check_packet(pkt, count, c->board.max_payload, 1);
	if (ret) {
		c->ops->log(c, "write: not a request packet");
		goto out;
	}
	ret = h2c_send(c, pkt, count, nonblock);
	if (!ret)
		ret = count;
out:
	c->ops->free(pkt);
	return ret;
}

u32 wse_core_queued(struct wse_core *c)
{
	u32 n;

	c->ops->lock(c);
	n = c->head - c->tail;
	c->ops->unlock(c);
	return n;
}

/* What ends a read()'s wait: a queued packet or the device's removal. */
static int wse_readable(struct wse_core *c)
{
	int ready;

	c->ops->lock(c);
	ready = c->gone || c->head != c->tail || c->c2h.err;
	c->ops->unlock(c);
	return ready;
}

static void ring_copy_out(struct wse_core *c, u32 pos, u8 *to, u32 n)
{
	u32 off = pos & (c->ring_size - 1);
	u32 first = c->ring_size - off < n ? c->ring_size - off : n;

	memcpy(to, c->ring + off, first);
	memcpy(to + first, c->ring, n - first);
}

static void ring_copy_in(struct wse_core *c, u32 pos, const u8 *from, u32 n)
{
	u32 off = pos & (c->ring_size - 1);
	u32 first = c->ring_size - off < n ? c->ring_size - off : n;

	memcpy(c->ring + off, from, first);
	memcpy(c->ring, from + first, n - first);
}

/* Queue one packet, the lock held: -EINVAL, -ENOSPC or 0. */
static int rx_queue(struct wse_core *c, const u8 *pkt, size_t len)
{
	if (wse_check_packet(pkt, len, c->board.max_payload, 0))
		return -EINVAL;
	if (c->ring_size - (c->head - c->tail) < len)
		return -ENOSPC;
	ring_copy_in(c, c->head, pkt, len);
	c->head += len;
	return 0;
}

/* Queue one packet from the device for read(): -EINVAL, -ENOSPC or 0. */
int wse_core_rx_push(struct wse_core *c, const void *pkt, size_t len)
{
	int ret;

	c->ops->lock(c);
	ret = rx_queue(c, pkt, len);
	c->ops->unlock(c);
	if (!ret)
		c->ops->wake(c);
	return ret;
}

/*
 * Take the oldest queued packet: its size, -EAGAIN (nonblock, none queued),
 * -ETIMEDOUT (none within the read timeout), -EMSGSIZE (count is smaller
 * than the packet, which stays queued), -EFAULT (the packet is lost), the
 * C2H ring's error once the queue is empty (the device stopped it: -EIO,
 * -ETIMEDOUT) or -ENODEV (the device is removed, before or during the
 * wait).
 */
long wse_core_read(struct wse_core *c, char __user *buf, size_t count,
		   int nonblock)
{
	u8 hdr[WSE_HDR_BYTES];
	u8 *pkt;
	u32 len;
	long ret;

	pkt = c->ops->alloc(wse_frame_bytes(c->board.max_payload));
	if (!pkt)
		return -ENOMEM;
	for (;;) {
		c->ops->lock(c);
		if (c->gone) {
			c->ops->unlock(c);
			ret = -ENODEV;
			goto out;
		}
		if (c->head != c->tail)
			break;
		ret = c->c2h.err;
		c->ops->unlock(c);
		if (ret)
			goto out;
		ret = nonblock ? -EAGAIN :
		      c->ops->wait(c, wse_readable, c->read_timeout_ms);
		if (ret)
			goto out;
	}
	ring_copy_out(c, c->tail, hdr, sizeof(hdr));
	len = wse_frame_bytes(get_le32(hdr + WSE_HDR_OFF_LENGTH));
	if (count < len) {
		c->ops->unlock(c);
		ret = -EMSGSIZE;
		goto out;
	}
	ring_copy_out(c, c->tail, pkt, len);
	c->tail += len;
	c->ops->unlock(c);
	ret = c->ops->copy_to_user(buf, pkt, len) ? -EFAULT : (long)len;
out:
	c->ops->free(pkt);
	return ret;
}

static void h2c_reap(struct wse_core *c);

/*
 * Readable: a packet queued. Writable: write() would not wait (room for the
 * largest request in the H2C ring, or a ring that fails it at once).
 */
unsigned int wse_core_poll(struct wse_core *c)
{
	unsigned int m = 0;
	struct wse_dma_ring *r = &c->h2c;

	c->ops->lock(c);
	if (c->gone) {
		c->ops->unlock(c);
		return WSE_CORE_GONE;
	}
	if (c->head != c->tail || c->c2h.err)
		m |= WSE_CORE_READABLE;
	if (c->running && !r->err)
		h2c_reap(c);
	if (!c->running || r->err ||
	    ring_free(r) >= h2c_slots(c, wse_frame_bytes(c->board.max_payload)))
		m |= WSE_CORE_WRITABLE;
	c->ops->unlock(c);
	return m;
}

/* ---- the rings (docs/pcie.md) ---------------------------------------- */

static u32 reg_rd(struct wse_core *c, const struct wse_dma_ring *r, u32 off)
{
	return c->ops->reg_read(c, r->reg + off);
}

static void reg_wr(struct wse_core *c, const struct wse_dma_ring *r, u32 off,
		   u32 val)
{
	c->ops->reg_write(c, r->reg + off, val);
}

/* A ring's error bits from ERR_STATUS, or a completion's code: an errno. */
static void ring_fail(struct wse_dma_ring *r, int timeout)
{
	if (!r->err)
		r->err = timeout ? -ETIMEDOUT : -EIO;
}

/*
 * The device's HEAD, when it lies between the host's head and tail (a
 * removed device reads all ones); else the host's head.
 */
static u32 ring_hw_head(struct wse_core *c, struct wse_dma_ring *r)
{
	u32 mask = r->entries - 1;
	u32 hw = reg_rd(c, r, WSE_PCIE_RING_HEAD);

	if (hw > mask || ((hw - r->head) & mask) > ((r->tail - r->head) & mask))
		return r->head;
	return hw;
}

/* Take the H2C completions, the lock held: their entries are free again. */
static void h2c_reap(struct wse_core *c)
{
	struct wse_dma_ring *r = &c->h2c;
	u32 hw = ring_hw_head(c, r);
	u32 status, len;

	while (r->head != hw) {
		status = cpl_status(r, r->head, &len);
		if (!(status & WSE_PCIE_CPL_DONE) ||
		    (status & WSE_PCIE_CPL_CODE_MASK) != WSE_PCIE_CPL_OK)
			ring_fail(r, (status & WSE_PCIE_CPL_CODE_MASK) ==
				     WSE_PCIE_CPL_TIMEOUT);
		r->head = (r->head + 1) & (r->entries - 1);
	}
}

/* What keeps a write() from the H2C ring, the lock held: an errno or 0. */
static int h2c_refused(struct wse_core *c)
{
	if (c->gone)
		return -ENODEV;
	if (!c->running)
		return -EIO;
	h2c_reap(c);
	return c->h2c.err;
}

/* What ends a write()'s wait: room for the largest request, or a refusal. */
static int h2c_room(struct wse_core *c)
{
	int ready;

	c->ops->lock(c);
	ready = h2c_refused(c) ||
		ring_free(&c->h2c) >=
		h2c_slots(c, wse_frame_bytes(c->board.max_payload));
	c->ops->unlock(c);
	return ready;
}

/*
 * Put a packet into the H2C ring, the lock held and room checked: its
 * bytes into consecutive buffers (only the last asks for an interrupt),
 * then the doorbell.
 */
static void h2c_place(struct wse_core *c, const u8 *pkt, u32 len)
{
	struct wse_dma_ring *r = &c->h2c;
	u32 off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < r->buf_bytes ? len - off : r->buf_bytes;
		memcpy(r->buf + (size_t)r->tail * r->buf_bytes, pkt + off, n);
		desc_write(r, r->tail, n,
			   off + n < len ? WSE_PCIE_DESC_NO_IRQ : 0);
		r->tail = (r->tail + 1) & (r->entries - 1);
	}
	reg_wr(c, r, WSE_PCIE_RING_TAIL, r->tail);
}

static long h2c_send(struct wse_core *c, const u8 *pkt, u32 len,
		     int nonblock)
{
	u32 need = h2c_slots(c, len);
	long ret;

	for (;;) {
		c->ops->lock(c);
		ret = h2c_refused(c);
		if (ret || ring_free(&c->h2c) >= need)
			break;
		c->ops->unlock(c);
		if (nonblock)
			return -EAGAIN;
		ret = c->ops->wait(c, h2c_room, WSE_WRITE_TIMEOUT_MS);
		if (ret)
			return ret;
	}
	if (!ret)
		h2c_place(c, pkt, len);
	c->ops->unlock(c);
	return ret;
}

/* Post C2H entry tail (its buffer is free), the lock held. */
static void c2h_post(struct wse_dma_ring *r)
{
	desc_write(r, r->tail, r->buf_bytes, 0);
	r->tail = (r->tail + 1) & (r->entries - 1);
}

/*
 * n bytes of a C2H buffer, the end of a packet when eop: gather the packet
 * and queue it for read() at its end. A packet longer than the protocol's
 * largest, or one the read queue has no room for, is dropped. 1 when a
 * packet was queued.
 */
static int c2h_gather(struct wse_core *c, const u8 *data, u32 n, int eop)
{
	int queued = 0;

	if (!c->rx_drop && n > WSE_RX_MAX - c->rx_len)
		c->rx_drop = 1;
	if (!c->rx_drop) {
		memcpy(c->rx + c->rx_len, data, n);
		c->rx_len += n;
	}
	if (!eop)
		return 0;
	if (c->rx_drop || rx_queue(c, c->rx, c->rx_len)) {
		c->rx_dropped++;
		c->ops->log(c, "c2h: a packet dropped");
	} else {
		queued = 1;
	}
	c->rx_len = 0;
	c->rx_drop = 0;
	return queued;
}

/*
 * Take the C2H completions, the lock held: each buffer's bytes into the
 * packet being gathered, the entry posted again, one doorbell for all.
 * The number of packets queued.
 */
static int c2h_harvest(struct wse_core *c)
{
	struct wse_dma_ring *r = &c->c2h;
	u32 hw = ring_hw_head(c, r);
	u32 status, len, code;
	int queued = 0, posted = 0;

	while (r->head != hw) {
		status = cpl_status(r, r->head, &len);
		code = status & WSE_PCIE_CPL_CODE_MASK;
		if (!(status & WSE_PCIE_CPL_DONE) || code != WSE_PCIE_CPL_OK) {
			ring_fail(r, code == WSE_PCIE_CPL_TIMEOUT);
		} else {
			if (len > r->buf_bytes)
				len = r->buf_bytes;
			if (len || (status & WSE_PCIE_CPL_EOP))
				queued += c2h_gather(c, r->buf +
						     (size_t)r->head * r->buf_bytes,
						     len,
						     status & WSE_PCIE_CPL_EOP);
		}
		r->head = (r->head + 1) & (r->entries - 1);
		if (!r->err) {
			c2h_post(r);
			posted = 1;
		}
	}
	if (posted)
		reg_wr(c, r, WSE_PCIE_RING_TAIL, r->tail);
	return queued;
}

/*
 * The interrupt entry point, from an MSI-X vector or a polling timer:
 * clear the pending vectors, take the device's errors (each ring's become
 * its errno), reap H2C completions, harvest C2H packets, wake the waiters.
 */
void wse_core_irq(struct wse_core *c)
{
	u32 st, err;

	c->ops->lock(c);
	if (c->gone || !c->running) {
		c->ops->unlock(c);
		return;
	}
	st = c->ops->reg_read(c, WSE_PCIE_REG_INT_STATUS) & WSE_INT_ALL;
	if (st)
		c->ops->reg_write(c, WSE_PCIE_REG_INT_STATUS, st);
	if (st & 1u << WSE_PCIE_VEC_ERR) {
		err = c->ops->reg_read(c, WSE_PCIE_REG_ERR_STATUS) & WSE_ERR_ALL;
		c->ops->reg_write(c, WSE_PCIE_REG_ERR_STATUS, err);
		if (err & 0xffu)
			ring_fail(&c->h2c, err & WSE_PCIE_ERR_TIMEOUT);
		err >>= WSE_PCIE_ERR_C2H_SHIFT;
		if (err)
			ring_fail(&c->c2h, err & WSE_PCIE_ERR_TIMEOUT);
	}
	h2c_reap(c);
	c2h_harvest(c);
	c->ops->unlock(c);
	c->ops->wake(c);
}

/* Start one ring, the lock held: empty, its base and size, RUN. */
static int ring_run(struct wse_core *c, struct wse_dma_ring *r)
{
	r->head = 0;
	r->tail = 0;
	r->err = 0;
	memset(r->desc, 0, (size_t)r->entries * WSE_PCIE_DESC_BYTES);
	reg_wr(c, r, WSE_PCIE_RING_BASE_LO, (u32)r->desc_bus);
	reg_wr(c, r, WSE_PCIE_RING_BASE_HI, (u32)(r->desc_bus >> 32));
	reg_wr(c, r, WSE_PCIE_RING_SIZE, r->entries);
	reg_wr(c, r, WSE_PCIE_RING_CTRL, WSE_PCIE_CTRL_RUN);
	if (!(reg_rd(c, r, WSE_PCIE_RING_CTRL) & WSE_PCIE_CTRL_RUN)) {
		c->ops->log(c, "a ring refused to start");
		return -EIO;
	}
	return 0;
}

/* Start both rings, errors and interrupts cleared, every C2H entry posted. */
static int rings_run(struct wse_core *c)
{
	int ret = -ENODEV;

	c->ops->lock(c);
	if (c->gone)
		goto out;
	c->ops->reg_write(c, WSE_PCIE_REG_ERR_STATUS, WSE_ERR_ALL);
	c->ops->reg_write(c, WSE_PCIE_REG_INT_STATUS, WSE_INT_ALL);
	c->rx_len = 0;
	c->rx_drop = 0;
	ret = ring_run(c, &c->h2c);
	if (ret)
		goto out;
	ret = ring_run(c, &c->c2h);
	if (ret)
		goto out;
	while (ring_free(&c->c2h))
		c2h_post(&c->c2h);
	reg_wr(c, &c->c2h, WSE_PCIE_RING_TAIL, c->c2h.tail);
	c->ops->reg_write(c, WSE_PCIE_REG_INT_MASK, 0);
	c->running = 1;
out:
	c->ops->unlock(c);
	return ret;
}

/*
 * Neither ring has a descriptor in progress, or the registers are gone
 * (after wse_core_stop(), or a card that reads all ones).
 */
static int rings_idle(struct wse_core *c)
{
	u32 h2c = 0, c2h = 0;

	c->ops->lock(c);
	if (!c->hw_gone) {
		h2c = reg_rd(c, &c->h2c, WSE_PCIE_RING_CTRL);
		c2h = reg_rd(c, &c->c2h, WSE_PCIE_RING_CTRL);
	}
	c->ops->unlock(c);
	if (h2c == 0xffffffffu || c2h == 0xffffffffu)
		return 1;
	return !((h2c | c2h) & WSE_PCIE_CTRL_BUSY);
}

/*
 * Stop both rings, interrupts masked, and wait (WSE_STOP_POLLS waits of a
 * millisecond) for their descriptors in progress: 0 or -ETIMEDOUT.
 */
static int rings_halt(struct wse_core *c)
{
	int i;

	c->ops->lock(c);
	c->running = 0;
	if (!c->hw_gone) {
		c->ops->reg_write(c, WSE_PCIE_REG_INT_MASK, WSE_INT_ALL);
		reg_wr(c, &c->h2c, WSE_PCIE_RING_CTRL, 0);
		reg_wr(c, &c->c2h, WSE_PCIE_RING_CTRL, 0);
	}
	c->ops->unlock(c);
	for (i = 0; i < WSE_STOP_POLLS; i++) {
		if (rings_idle(c))
			return 0;
		c->ops->wait(c, rings_idle, 1);
	}
	c->ops->log(c, "a ring did not stop");
	return -ETIMEDOUT;
}

static int ring_alloc(struct wse_core *c, struct wse_dma_ring *r, u32 reg,
		      u32 entries, u32 buf_bytes)
{
	memset(r, 0, sizeof(*r));
	r->reg = reg;
	r->entries = entries;
	r->buf_bytes = buf_bytes;
	r->desc = c->ops->dma_alloc(c, (size_t)entries * WSE_PCIE_DESC_BYTES,
				    &r->desc_bus);
	if (!r->desc)
		return -ENOMEM;
	r->buf = c->ops->dma_alloc(c, (size_t)entries * buf_bytes, &r->buf_bus);
	if (r->buf)
		return 0;
	c->ops->dma_free(c, (size_t)entries * WSE_PCIE_DESC_BYTES, r->desc,
			 r->desc_bus);
	r->desc = NULL;
	return -ENOMEM;
}

static void ring_free_dma(struct wse_core *c, struct wse_dma_ring *r)
{
	if (!r->desc)
		return;
	c->ops->dma_free(c, (size_t)r->entries * r->buf_bytes, r->buf,
			 r->buf_bus);
	c->ops->dma_free(c, (size_t)r->entries * WSE_PCIE_DESC_BYTES, r->desc,
			 r->desc_bus);
	r->desc = NULL;
	r->buf = NULL;
}

static int ring_cfg_ok(u32 entries, u32 buf_bytes, u32 ring_max, u32 desc_max)
{
	return entries >= 2 && !(entries & (entries - 1)) &&
	       entries <= ring_max && entries <= WSE_PCIE_RING_MAX_ENTRIES &&
	       buf_bytes && !(buf_bytes % WSE_PCIE_BUF_ALIGN) &&
	       buf_bytes <= desc_max && buf_bytes <= WSE_PCIE_DESC_MAX_LEN;
}

/*
 * Set up and start both rings (cfg: their entries and buffer sizes, within
 * the device's RING_MAX and DESC_MAX; the H2C ring must take the largest
 * request at once): 0, -EINVAL, -ENOMEM or -EIO (the device refused).
 */
int wse_core_start(struct wse_core *c, const struct wse_ring_cfg *cfg)
{
	u32 ring_max = c->ops->reg_read(c, WSE_PCIE_REG_RING_MAX);
	u32 desc_max = c->ops->reg_read(c, WSE_PCIE_REG_DESC_MAX);
	int ret;

	if (!ring_cfg_ok(cfg->h2c_entries, cfg->h2c_buf_bytes, ring_max,
			 desc_max) ||
	    !ring_cfg_ok(cfg->c2h_entries, cfg->c2h_buf_bytes, ring_max,
			 desc_max) ||
	    (wse_frame_bytes(c->board.max_payload) + cfg->h2c_buf_bytes - 1) /
	    cfg->h2c_buf_bytes > cfg->h2c_entries - 1)
		return -EINVAL;
	c->rx = c->ops->alloc(WSE_RX_MAX);
	if (!c->rx)
		return -ENOMEM;
	ret = ring_alloc(c, &c->h2c, WSE_PCIE_REG_H2C, cfg->h2c_entries,
			 cfg->h2c_buf_bytes);
	if (ret)
		goto err_free_rx;
	ret = ring_alloc(c, &c->c2h, WSE_PCIE_REG_C2H, cfg->c2h_entries,
			 cfg->c2h_buf_bytes);
	if (ret)
		goto err_free_h2c;
	ret = rings_run(c);
	if (ret)
		goto err_halt;
	return 0;

err_halt:
	rings_halt(c);
	ring_free_dma(c, &c->c2h);
err_free_h2c:
	ring_free_dma(c, &c->h2c);
err_free_rx:
	c->ops->free(c->rx);
	c->rx = NULL;
	return ret;
}

/*
 * Stop both rings before the device goes (remove, or a probe undone):
 * after it the core touches no register. The rings' memory stays until
 * wse_core_free_rings() or wse_core_fini(). 0 or -ETIMEDOUT (a descriptor
 * still in progress: the OS side stops the device's DMA before it frees
 * the rings).
 */
int wse_core_stop(struct wse_core *c)
{
	int ret = 0;

	if (c->h2c.desc)
		ret = rings_halt(c);
	c->ops->lock(c);
	c->hw_gone = 1;
	c->ops->unlock(c);
	return ret;
}

/*
 * Give the rings' DMA memory back, after wse_core_stop() and
 * wse_core_remove(): nothing touches it any more.
 */
void wse_core_free_rings(struct wse_core *c)
{
	ring_free_dma(c, &c->c2h);
	ring_free_dma(c, &c->h2c);
}
