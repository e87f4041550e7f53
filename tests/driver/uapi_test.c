/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uapi_test.c - include/uapi/linux/wse.h builds on its own in userspace,
 * as C99 and as C++ (mk/driver.mk), and its structs have no implicit
 * padding: each size is the sum of its fields.
 */
#include <linux/wse.h>

#define WSE_SIZE_IS(type, n) \
	typedef char wse_size_##type[sizeof(struct type) == (n) ? 1 : -1]

WSE_SIZE_IS(wse_info, 8 * 4 + WSE_COMPATIBLE_BYTES);
WSE_SIZE_IS(wse_reset, 2 * 4);
WSE_SIZE_IS(wse_timeout, 4 * 4);

int main(void)
{
	struct wse_info info = { sizeof(info), 0, 0, 0, 0, 0, 0, 0, { 0 } };
	unsigned long cmds[] = { WSE_IOCTL_GET_INFO, WSE_IOCTL_RESET,
				 WSE_IOCTL_SET_TIMEOUT };

	return info.argsz == sizeof(info) && cmds[0] != cmds[1] &&
	       cmds[1] != cmds[2] && WSE_API_VERSION == 1 ? 0 : 1;
}
