/* SPDX-License-Identifier: Apache-2.0 */
/*
 * usb_ftdi.h - the parts of the "usb:" transport that need no USB stack:
 * the URI arguments, the table of recognized FTDI bridges, their baud
 * rate divisors, and the removal of the two status bytes an FTDI bridge
 * puts at the start of every bulk-IN packet. transport_usb.c uses them;
 * tests/hostlib/test_usb.c checks them.
 */
#ifndef WSEHOST_USB_FTDI_H
#define WSEHOST_USB_FTDI_H

#include <stddef.h>
#include <stdint.h>

#include "wsemu/wse_codec.h" /* WSE_INTERNAL */

/* The FTDI vendor requests (bmRequestType 0x40, vendor, device, OUT). */
#define WSE_FTDI_REQ_RESET        0 /* value 0 reset, 1 purge RX, 2 purge TX */
#define WSE_FTDI_REQ_MODEM_CTRL   1
#define WSE_FTDI_REQ_FLOW_CTRL    2
#define WSE_FTDI_REQ_BAUD         3
#define WSE_FTDI_REQ_DATA         4
#define WSE_FTDI_REQ_LATENCY      9
#define WSE_FTDI_RESET_SIO        0
#define WSE_FTDI_PURGE_RX         1
#define WSE_FTDI_PURGE_TX         2
#define WSE_FTDI_DATA_8N1         8      /* 8 data bits, no parity, 1 stop */
#define WSE_FTDI_MODEM_DTR_RTS_ON 0x0303 /* enable masks 0x0300, DTR and RTS set */
/* Line status (second status byte): overrun, parity, framing, break. */
#define WSE_FTDI_LS_ERRORS        0x1e

/* The vendor-class path: an interface of this class, subclass and
 * protocol with one bulk IN and one bulk OUT endpoint, no framing. */
#define WSE_USB_VENDOR_CLASS    0xff
#define WSE_USB_VENDOR_SUBCLASS 0x57
#define WSE_USB_VENDOR_PROTOCOL 0x01

struct wse_ftdi_chip {
	uint16_t vid, pid;
	const char *name;
	unsigned default_baud;
	uint8_t hispeed;    /* H series: 12 MHz clock, divisor bit 17 */
	uint8_t interfaces; /* the chip's interface count; the link uses the first */
};

/* The recognized bridges, ending with a zero entry. */
WSE_INTERNAL extern const struct wse_ftdi_chip wsei_ftdi_chips[];
/* The entry for vid:pid, or NULL. */
WSE_INTERNAL const struct wse_ftdi_chip *wsei_ftdi_chip_find(uint16_t vid,
							    uint16_t pid);

/*
 * The baud rate request's wValue and wIndex for chip at baud, on the
 * interface numbered ifnum (0 for the first). *divisor gets the encoded
 * divisor (17 or 18 bits, as AN232B-05 and the H-series data sheets lay
 * it out), *actual the rate the chip makes. Returns 0, or RANGE when
 * the nearest rate the chip can make is more than 3 % away (or baud is 0).
 */
WSE_INTERNAL int wsei_ftdi_baud(const struct wse_ftdi_chip *chip,
			       unsigned baud, unsigned ifnum,
			       uint32_t *divisor, uint16_t *value,
			       uint16_t *index, unsigned *actual);

/*
 * Strip the two status bytes from each packet of a bulk-IN transfer of
 * len bytes in buf: every maxpkt bytes a packet starts (the last one may
 * be short, and a packet may be the two status bytes alone). The payload
 * is moved to the front of buf; returns its length. Each packet whose
 * line status has an error bit (overrun, parity, framing, break) adds one
 * to *line_errors. A packet of less than two bytes carries nothing.
 */
WSE_INTERNAL size_t wsei_ftdi_strip(uint8_t *buf, size_t len, size_t maxpkt,
				   uint64_t *line_errors);

/* What a "usb:" URI selects; a field not given is 0 / empty. */
struct wse_usb_sel {
	char serial[64];
	unsigned bus;   /* 1..255 with port */
	char port[32];  /* port path "1" or "1.2.3" */
	int have_id;    /* vid and pid given */
	uint16_t vid, pid;
	unsigned baud;  /* 0: the chip's default */
};

/*
 * Parse the arguments of a "usb:" URI (after the colon): "" or
 * comma-separated serial=S, bus=B with port=P, vid=V with pid=P (hex, 0x
 * optional), baud=N, each at most once. Returns 0, or INVALID_PARAM with
 * a sentence in err (errlen bytes) naming the fault.
 */
WSE_INTERNAL int wsei_usb_parse(const char *args, struct wse_usb_sel *sel,
			       char *err, size_t errlen);

/* Port path "a.b.c" of n port numbers into out (cap bytes, >= 2). */
WSE_INTERNAL void wsei_usb_port_path(const uint8_t *ports, int n, char *out,
				    size_t cap);

/* Describe sel in out for messages ("the only board", "serial=X", ...). */
WSE_INTERNAL void wsei_usb_sel_str(const struct wse_usb_sel *sel, char *out,
				  size_t cap);

#endif /* WSEHOST_USB_FTDI_H */
