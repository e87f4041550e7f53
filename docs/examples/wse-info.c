/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse-info: open a device, print what it is, ping it, and write and read
 * back a word of tile (0,0)'s memory. The example of docs/libwsehost.md.
 *
 *   cc -o wse-info wse-info.c $(pkg-config --cflags --libs wsehost)
 *   ./wse-info [URI]          (default: sim:board=sim-4x4)
 */
#include <stdio.h>
#include <wsehost.h>

static void log_to_stderr(void *user, enum wse_log_level level,
			  const char *msg)
{
	(void)user;
	if (level <= WSE_LOG_WARNING)
		fprintf(stderr, "wse-info: %s\n", msg);
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : NULL;
	struct wse_open_opts opts = {
		.size = sizeof(opts), /* always: the library reads only this much */
		.timeout_ms = 2000,
		.log_cb = log_to_stderr,
	};
	wse_device *dev;
	int r = wse_open(&dev, uri, &opts);
	if (r < 0) {
		fprintf(stderr, "wse-info: cannot open %s: %s (%s)\n",
			uri ? uri : "the default device", wse_strerror(r),
			wse_error_name(r));
		return 1;
	}
	struct wse_info info = {.size = sizeof(info)};
	wse_get_info(dev, &info);
	printf("libwsehost %s\n", wse_version_string());
	printf("board %s (%s), protocol %u.%u, build %s\n", info.compatible,
	       info.model, info.proto_major, info.proto_minor, info.build_id);
	printf("mesh %u x %u, %u virtual channels, %u B imem + %u B dmem per tile\n",
	       info.columns, info.rows, info.num_vc, info.imem_bytes,
	       info.dmem_bytes);
	printf("link %s, %u bits, %u B/cycle, %u cycles latency\n",
	       info.link_compatible, info.link_width_bits,
	       info.link_bytes_per_cycle, info.link_latency_cycles);

	uint32_t word = 0x600DF00Du, back = 0;
	if ((r = wse_ping(dev, "hello", 5)) < 0 ||
	    (r = wse_tile_halt(dev, 0, 0)) < 0 ||
	    (r = wse_mem_write(dev, 0, 0, 0x80000000u, &word, 4)) < 0 ||
	    (r = wse_mem_read(dev, 0, 0, 0x80000000u, &back, 4)) < 0) {
		fprintf(stderr, "wse-info: %s\n", wse_strerror(r));
		wse_close(dev);
		return 1;
	}
	printf("tile (0,0) memory word: wrote %08x, read %08x\n", word, back);
	wse_close(dev);
	return back == word ? 0 : 1;
}
