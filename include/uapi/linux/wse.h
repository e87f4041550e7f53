/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * wse.h - the user interface of the wse driver (docs/driver.md).
 *
 * The character device /dev/wseN carries whole link packets
 * (docs/protocol.md): write() takes one request packet, read() returns one
 * packet from the device, poll() tells when read() has one.
 *
 * Every ioctl argument begins with argsz (the size of the struct the caller
 * knows) and flags. The driver refuses unknown flags and an argsz shorter
 * than the struct's first version with -EINVAL, accepts a longer argsz whose
 * extra bytes are all zero and refuses one with a non-zero byte there with
 * -E2BIG. Unknown ioctls get -ENOTTY.
 */
#ifndef _UAPI_LINUX_WSE_H
#define _UAPI_LINUX_WSE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* The version of this interface; GET_INFO reports it. */
#define WSE_API_VERSION 1

#define WSE_IOCTL_MAGIC 0xFB

#define WSE_COMPATIBLE_BYTES 64

/*
 * WSE_IOCTL_GET_INFO: the driver and the board. In: argsz, flags (0).
 * Out: the first min(argsz, sizeof(struct wse_info)) bytes of the struct,
 * argsz set to the size the driver filled in.
 */
struct wse_info {
	__u32 argsz;
	__u32 flags;
	__u32 api_version;	/* WSE_API_VERSION */
	__u32 driver_version;	/* major << 16 | minor */
	__u32 mesh_cols;
	__u32 mesh_rows;
	__u32 dtb_size;		/* bytes of the board's device tree */
	__u32 max_payload;	/* largest link-packet payload write() takes */
	char compatible[WSE_COMPATIBLE_BYTES];	/* NUL-terminated */
};

/*
 * WSE_IOCTL_RESET: drop the packets queued for read() and, without
 * WSE_RESET_QUEUES_ONLY, stop and restart the board's descriptor rings
 * (what was not yet sent is dropped; clears the device's errors).
 */
#define WSE_RESET_QUEUES_ONLY	0x1U
#define WSE_RESET_FLAGS		WSE_RESET_QUEUES_ONLY

struct wse_reset {
	__u32 argsz;
	__u32 flags;
};

/*
 * WSE_IOCTL_SET_TIMEOUT: how long a blocking read() waits for a packet.
 * read_timeout_ms 0 waits without bound; when it expires read() fails with
 * -ETIMEDOUT. pad must be 0.
 */
struct wse_timeout {
	__u32 argsz;
	__u32 flags;
	__u32 read_timeout_ms;
	__u32 pad;
};

#define WSE_IOCTL_GET_INFO	_IO(WSE_IOCTL_MAGIC, 0)
#define WSE_IOCTL_RESET		_IO(WSE_IOCTL_MAGIC, 1)
#define WSE_IOCTL_SET_TIMEOUT	_IO(WSE_IOCTL_MAGIC, 2)

#endif /* _UAPI_LINUX_WSE_H */
