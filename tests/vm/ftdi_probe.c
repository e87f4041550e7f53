/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ftdi_probe: a wsemu board through an FTDI FT231X (0403:6015) with
 * libusb-1.0 and the wire library's codec only, no libwsehost: the path
 * tests/vm/vm-run.sh builds (docs/vm-harness.md).
 *
 *   ftdi_probe [--serial S] [--board NAME] [--gadget-log FILE]
 *              [--line-errors-every N] [--ping-bytes N]
 *
 * Finds the device (its strings, one vendor-class interface with a bulk IN
 * and a bulk OUT endpoint), sends the FTDI set-up (reset, purge, 3 Mbaud,
 * 8N1, no flow control, latency 2 ms, DTR and RTS), reads back the latency
 * and the modem status, then sends INFO and PING requests on bulk OUT and
 * reads bulk IN, stripping the two status bytes of every packet: the
 * answers must be CRC-correct responses (INFO's DTB starts with the FDT
 * magic and, with --board, is compatible with "wsemu,NAME"; PING's payload
 * is echoed). Then the latency timer's status-only packets while idle.
 * Line errors (overrun, parity, framing) are counted: none on a clean
 * line; with --line-errors-every N (the gadget's --line-error-every), one
 * packet in N, give or take one. With --gadget-log, the gadget's log must
 * show the divisor, line settings and latency sent. Exit 0 when all holds,
 * 1 with a message otherwise.
 */
#define _GNU_SOURCE
#include <libfdt.h>
#include <libusb-1.0/libusb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsemu/wse_codec.h"
#include "wsemu/wse_wire.h"

#define VID 0x0403
#define PID 0x6015
#define TIMEOUT_MS 2000
#define ANSWER_MS 15000
#define LATENCY_MS 2

static libusb_device_handle *dev;
static int iface, ep_in, ep_out, mps;
static unsigned long packets, status_only, line_errors, bad_modem;
static struct wse_rx rx;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "ftdi_probe: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* The wire library's errors by number (include/wsemu/wse_error.h). */
static const char *err_text(int r)
{
	static char s[32];
	snprintf(s, sizeof s, "wse_error %d", r);
	return s;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void ctrl_out(uint8_t req, uint16_t value, uint16_t index, const char *what)
{
	int r = libusb_control_transfer(dev, 0x40, req, value, index, NULL, 0, TIMEOUT_MS);
	if (r < 0)
		fail("%s (request 0x%02x): %s", what, req, libusb_error_name(r));
}

static int ctrl_in(uint8_t req, uint16_t index, uint8_t *buf, uint16_t len, const char *what)
{
	int r = libusb_control_transfer(dev, 0xc0, req, 0, index, buf, len, TIMEOUT_MS);
	if (r < 0)
		fail("%s (request 0x%02x): %s", what, req, libusb_error_name(r));
	return r;
}

static void check_string(uint8_t idx, const char *want, const char *what)
{
	char s[128];
	int r = libusb_get_string_descriptor_ascii(dev, idx, (unsigned char *)s, sizeof s);
	if (r < 0)
		fail("%s string: %s", what, libusb_error_name(r));
	if (want && strcmp(s, want))
		fail("%s string \"%s\", not \"%s\"", what, s, want);
	printf("ftdi_probe: %s \"%s\"\n", what, s);
}

static void open_device(const char *serial)
{
	double end = now_ms() + 10000;
	while (!(dev = libusb_open_device_with_vid_pid(NULL, VID, PID))) {
		if (now_ms() > end)
			fail("no USB device %04x:%04x", VID, PID);
		usleep(100000);
	}
	libusb_device *d = libusb_get_device(dev);
	struct libusb_device_descriptor dd;
	if (libusb_get_device_descriptor(d, &dd))
		fail("device descriptor");
	printf("ftdi_probe: %04x:%04x bcdDevice %04x, bus %d device %d, speed %d\n", dd.idVendor,
	       dd.idProduct, dd.bcdDevice, libusb_get_bus_number(d), libusb_get_device_address(d),
	       libusb_get_device_speed(d));
	if (dd.bcdDevice != 0x1000)
		fail("bcdDevice %04x, not 1000 (FT-X)", dd.bcdDevice);
	check_string(dd.iManufacturer, "FTDI", "manufacturer");
	check_string(dd.iProduct, "FT231X USB UART", "product");
	check_string(dd.iSerialNumber, serial, "serial");

	struct libusb_config_descriptor *cd;
	if (libusb_get_active_config_descriptor(d, &cd))
		fail("configuration descriptor");
	if (cd->bNumInterfaces != 1)
		fail("%d interfaces, not 1", cd->bNumInterfaces);
	const struct libusb_interface_descriptor *id = &cd->interface[0].altsetting[0];
	if (id->bInterfaceClass != LIBUSB_CLASS_VENDOR_SPEC || id->bNumEndpoints != 2)
		fail("interface class 0x%02x with %d endpoints", id->bInterfaceClass, id->bNumEndpoints);
	iface = id->bInterfaceNumber;
	for (int i = 0; i < id->bNumEndpoints; i++) {
		const struct libusb_endpoint_descriptor *e = &id->endpoint[i];
		if ((e->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK)
			fail("endpoint 0x%02x is not bulk", e->bEndpointAddress);
		if (e->bEndpointAddress & LIBUSB_ENDPOINT_IN) {
			ep_in = e->bEndpointAddress;
			mps = e->wMaxPacketSize;
		} else {
			ep_out = e->bEndpointAddress;
		}
	}
	libusb_free_config_descriptor(cd);
	if (!ep_in || !ep_out || mps <= 2)
		fail("no bulk IN and OUT pair");
	printf("ftdi_probe: interface %d, bulk IN 0x%02x (%d-byte packets), bulk OUT 0x%02x\n", iface,
	       ep_in, mps, ep_out);
	libusb_set_auto_detach_kernel_driver(dev, 1);
	int r = libusb_claim_interface(dev, iface);
	if (r)
		fail("claim interface %d: %s", iface, libusb_error_name(r));
}

static void ftdi_setup(void)
{
	ctrl_out(0, 0, 0, "reset");
	ctrl_out(0, 1, 0, "purge rx");
	ctrl_out(0, 2, 0, "purge tx");
	ctrl_out(3, 0, 0, "baud 3000000"); /* divisor 0: 3 Mbaud */
	ctrl_out(4, 8, 0, "8N1");
	ctrl_out(2, 0, 0, "no flow control");
	ctrl_out(9, LATENCY_MS, 0, "latency");
	ctrl_out(1, 0x0303, 0, "DTR and RTS");
	uint8_t b[2];
	if (ctrl_in(0x0a, 0, b, 1, "get latency") != 1 || b[0] != LATENCY_MS)
		fail("latency timer reads %u, not %u", b[0], LATENCY_MS);
	if (ctrl_in(5, 0, b, 2, "modem status") != 2 || (b[0] & 0x30) != 0x30)
		fail("modem status %02x %02x: CTS and DSR not set", b[0], b[1]);
	printf("ftdi_probe: latency %u ms, modem status %02x %02x\n", LATENCY_MS, b[0], b[1]);
}

/* Bulk IN: every packet of at most mps bytes starts with the modem and
 * line status; the rest is link data. */
static void read_in(void)
{
	static uint8_t buf[4096];
	int got = 0;
	int r = libusb_bulk_transfer(dev, ep_in, buf, sizeof buf, &got, 200);
	if (r && r != LIBUSB_ERROR_TIMEOUT)
		fail("bulk IN: %s", libusb_error_name(r));
	for (int off = 0; off < got; off += mps) {
		int n = got - off < mps ? got - off : mps;
		if (n < 2)
			fail("bulk-IN packet of %d bytes (no status bytes)", n);
		packets++;
		if ((buf[off] & 0x0f) != 0x01)
			bad_modem++;
		if (buf[off + 1] & 0x8e) /* OE, PE, FE, FIFO error */
			line_errors++;
		if (n == 2)
			status_only++;
		size_t room;
		uint8_t *dst = wse_rx_space(&rx, &room);
		if ((size_t)(n - 2) > room)
			fail("receive buffer full");
		memcpy(dst, buf + off + 2, (size_t)(n - 2));
		wse_rx_commit(&rx, (size_t)(n - 2));
	}
}

static void send_request(uint8_t opcode, uint32_t tag, const void *pl, uint32_t len)
{
	static uint8_t frame[WSE_PROTO_MIN_DEV_PAYLOAD + 64];
	struct wse_pkt p = { .major = WSE_PROTO_MAJOR, .minor = WSE_PROTO_MINOR, .opcode = opcode,
			     .tag = tag, .length = len };
	int n = wse_pkt_encode(frame, sizeof frame, &p, pl);
	if (n < 0)
		fail("encode %s: %d", wse_opcode_name(opcode), n);
	int done = 0;
	int r = libusb_bulk_transfer(dev, ep_out, frame, n, &done, TIMEOUT_MS);
	if (r || done != n)
		fail("bulk OUT %s: %s, %d of %d bytes", wse_opcode_name(opcode), libusb_error_name(r), done,
		     n);
}

/* The response with the tag (events are skipped), checked by the codec. */
static void await_response(uint8_t opcode, uint32_t tag, struct wse_pkt *p)
{
	double end = now_ms() + ANSWER_MS;
	for (;;) {
		int r;
		while ((r = wse_rx_next(&rx, p)) != 0) {
			if (r < 0)
				fail("bad packet from the device: %s", err_text(r));
			if (wse_pkt_role(p) != WSE_ROLE_RESPONSE)
				continue;
			if (p->tag != tag || p->opcode != opcode)
				fail("response %s tag %u, expected %s tag %u", wse_opcode_name(p->opcode),
				     p->tag, wse_opcode_name(opcode), tag);
			if (p->status != WSE_ST_OK)
				fail("%s answered %s", wse_opcode_name(opcode), wse_status_name(p->status));
			if ((r = wse_payload_check(p)) < 0)
				fail("%s response payload: %s", wse_opcode_name(opcode), err_text(r));
			return;
		}
		if (now_ms() > end)
			fail("no %s response in %d ms (%lu packets, %llu bytes skipped)",
			     wse_opcode_name(opcode), ANSWER_MS, packets,
			     (unsigned long long)rx.resync_bytes);
		read_in();
	}
}

/* The gadget's log must hold each of the lines the set-up implies. */
static void check_gadget_log(const char *path)
{
	static const char *const want[] = {
		"ffs-ft231x: reset",
		"ffs-ft231x: purge rx",
		"ffs-ft231x: purge tx",
		"ffs-ft231x: baud divisor 0x00000 = 3000000 baud",
		"ffs-ft231x: line 8N1",
		"ffs-ft231x: flow ctrl none",
		"ffs-ft231x: latency 2 ms",
		"ffs-ft231x: modem ctrl dtr=1 rts=1 (mask dtr 1 rts 1)",
	};
	FILE *f = fopen(path, "r");
	if (!f)
		fail("gadget log %s: cannot open", path);
	unsigned found = 0;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++)
			if (!strcmp(line, want[i]))
				found |= 1u << i;
	}
	fclose(f);
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!(found & 1u << i))
			fail("gadget log %s lacks \"%s\"", path, want[i]);
	printf("ftdi_probe: the gadget logged the divisor, line, flow, latency and modem settings\n");
}

int main(int argc, char **argv)
{
	const char *serial = NULL, *gadget_log = NULL, *board = NULL;
	unsigned long every = 0;
	unsigned ping_bytes = 1000;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--serial") && i + 1 < argc)
			serial = argv[++i];
		else if (!strcmp(argv[i], "--gadget-log") && i + 1 < argc)
			gadget_log = argv[++i];
		else if (!strcmp(argv[i], "--board") && i + 1 < argc)
			board = argv[++i];
		else if (!strcmp(argv[i], "--line-errors-every") && i + 1 < argc)
			every = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ping-bytes") && i + 1 < argc)
			ping_bytes = (unsigned)strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: ftdi_probe [--serial S] [--board NAME] [--gadget-log FILE] "
					"[--line-errors-every N] [--ping-bytes N]\n");
			return 2;
		}
	}
	if (ping_bytes > WSE_PROTO_MIN_DEV_PAYLOAD)
		fail("--ping-bytes above %u", WSE_PROTO_MIN_DEV_PAYLOAD);
	int r = libusb_init(NULL);
	if (r)
		fail("libusb_init: %s", libusb_error_name(r));
	if (wse_rx_init(&rx, WSE_PROTO_MAX_PAYLOAD))
		fail("out of memory");
	open_device(serial);
	ftdi_setup();

	/* INFO: the board's DTB, a flattened device tree. */
	struct wse_pkt p;
	send_request(WSE_OP_INFO, 1, NULL, 0);
	await_response(WSE_OP_INFO, 1, &p);
	struct wse_wire_info info;
	if ((r = wse_info_decode(p.payload, p.length, &info)) < 0)
		fail("INFO payload: %s", err_text(r));
	static const uint8_t fdt_magic[4] = { 0xd0, 0x0d, 0xfe, 0xed };
	if (info.dtb_len < 4 || memcmp(info.dtb, fdt_magic, 4))
		fail("INFO's DTB (%u bytes) does not start with the FDT magic", info.dtb_len);
	char compat[64];
	snprintf(compat, sizeof compat, "wsemu,%s", board ? board : "");
	if (board && fdt_node_check_compatible(info.dtb, 0, compat) != 0)
		fail("INFO's DTB is not compatible with \"%s\"", compat);
	if (info.major != WSE_PROTO_MAJOR)
		fail("device speaks protocol %u.%u", info.major, info.minor);
	printf("ftdi_probe: INFO: protocol %u.%u, \"%.*s\", max payload %u, DTB %u bytes\n", info.major,
	       info.minor, (int)sizeof info.build_id, info.build_id, info.max_payload, info.dtb_len);

	/* PING: bytes both ways across many packets. */
	uint8_t *ping = malloc(ping_bytes + 1);
	if (!ping)
		fail("out of memory");
	for (unsigned i = 0; i < ping_bytes; i++)
		ping[i] = (uint8_t)(i * 7 + 3);
	send_request(WSE_OP_PING, 2, ping, ping_bytes);
	await_response(WSE_OP_PING, 2, &p);
	if (p.length != ping_bytes || (ping_bytes && memcmp(p.payload, ping, ping_bytes)))
		fail("PING echoed %u bytes, not the %u sent", p.length, ping_bytes);
	printf("ftdi_probe: PING: %u bytes echoed\n", ping_bytes);
	free(ping);

	/* The latency timer's status-only packets while idle. */
	double end = now_ms() + 20 * LATENCY_MS;
	while (now_ms() < end || !status_only) {
		read_in();
		if (now_ms() > end + TIMEOUT_MS)
			fail("no status-only packet while idle");
	}
	printf("ftdi_probe: %lu bulk-IN packets, %lu status only, %lu with a line error\n", packets,
	       status_only, line_errors);
	if (bad_modem)
		fail("%lu packets without the modem status's reserved bit", bad_modem);
	if (!every && line_errors)
		fail("%lu line errors on a clean line", line_errors);
	if (every && (line_errors + 1 < packets / every || line_errors > packets / every + 1))
		fail("%lu line errors in %lu packets, not one in %lu", line_errors, packets, every);
	if (gadget_log)
		check_gadget_log(gadget_log);

	libusb_release_interface(dev, iface);
	libusb_close(dev);
	libusb_exit(NULL);
	wse_rx_free(&rx);
	printf("ftdi_probe: PASS\n");
	return 0;
}
