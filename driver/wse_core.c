// SPDX-License-Identifier: GPL-2.0-only
/*
 * wse_core.c - the wse driver's portable core (wse_core.h, docs/driver.md).
 */
#include "wse_core.h"
#include "wsemu/wse_wire.h"

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <string.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static u32 get_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
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

static long wse_reset(struct wse_core *c, union wse_ioctl_arg *a,
		      void __user *arg)
{
	c->ops->lock(c);
	c->tail = c->head;
	c->ops->unlock(c);
	if (a->reset.flags & WSE_RESET_QUEUES_ONLY)
		return 0;
	return c->ops->reset_link(c);
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

long wse_core_write(struct wse_core *c, const char __user *buf, size_t count)
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
	ret = c->ops->send(c, pkt, count);
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
	ready = c->gone || c->head != c->tail;
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

/* Queue one packet from the device for read(): -EINVAL, -ENOSPC or 0. */
int wse_core_rx_push(struct wse_core *c, const void *pkt, size_t len)
{
	int ret = 0;

	if (wse_check_packet(pkt, len, c->board.max_payload, 0))
		return -EINVAL;
	c->ops->lock(c);
	if (c->ring_size - (c->head - c->tail) < len)
		ret = -ENOSPC;
	else
		ring_copy_in(c, c->head, pkt, len);
	if (!ret)
		c->head += len;
	c->ops->unlock(c);
	if (!ret)
		c->ops->wake(c);
	return ret;
}

/*
 * Take the oldest queued packet: its size, -EAGAIN (nonblock, none queued),
 * -ETIMEDOUT (none within the read timeout), -EMSGSIZE (count is smaller
 * than the packet, which stays queued), -EFAULT (the packet is lost) or
 * -ENODEV (the device is removed, before or during the wait).
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
		c->ops->unlock(c);
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

unsigned int wse_core_poll(struct wse_core *c)
{
	if (wse_gone(c))
		return WSE_CORE_GONE;
	return (wse_core_queued(c) ? WSE_CORE_READABLE : 0) | WSE_CORE_WRITABLE;
}
