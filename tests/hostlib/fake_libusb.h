/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_libusb: the part of libusb-1.0's API the usb: transport calls,
 * reimplemented over simulated devices for test_usb_xport. Each device is
 * either an FTDI bridge (two status bytes before every bulk-IN packet) or
 * a vendor-class ff/57/01 device; both echo what is written to their
 * bulk-OUT endpoint back on bulk IN. The event handler completes
 * transfers; unplugging completes them with NO_DEVICE and fires hotplug
 * "left" callbacks, as libusb does. A test can make any call fail with a
 * chosen error and complete transfers with a chosen status and payload.
 */
#ifndef FAKE_LIBUSB_H
#define FAKE_LIBUSB_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_USB_MAX 2

struct fake_usb_dev {
	uint16_t vid, pid;
	int vendor_class;   /* interface ff/57/01 instead of an FTDI one */
	unsigned maxpkt;    /* wMaxPacketSize of both endpoints */
	const char *serial;
	uint8_t bus, ports[2];
	int access_denied;  /* libusb_open answers ACCESS */
	uint8_t line_status_every; /* every Nth IN packet flags an overrun */
};

/* Reset the fake: n devices described by d (copied), all present;
 * hotplug: whether libusb_has_capability(HAS_HOTPLUG) says yes. */
void fake_usb_reset(const struct fake_usb_dev *d, unsigned n, int hotplug);
/* Unplug (present 0) or plug in (1) device i, as the kernel reports. */
void fake_usb_present(unsigned i, int present);
/* Hold bulk-OUT transfers (never complete) while hold is set. */
void fake_usb_hold_out(int hold);
/* The vendor requests seen so far: request, value, index of each. */
unsigned fake_usb_ctrl_count(void);
void fake_usb_ctrl_get(unsigned k, uint8_t *type, uint8_t *req,
		       uint16_t *value, uint16_t *index);
/* Packets flagged with an error; contexts and handles still open,
 * interfaces claimed and transfers allocated, not released. */
unsigned fake_usb_flagged(void);
int fake_usb_leaks(void);
/* Whether the kernel driver was set to detach automatically. */
int fake_usb_auto_detach(void);

/* Make the nth call (from 1; 0: every call) since the reset of the libusb
 * function call, named without "libusb_" ("open", "control_transfer",
 * "submit_transfer", ...), fail with err (a LIBUSB_ERROR_*; alloc_transfer
 * returns NULL). Calls are counted even when none fails. */
void fake_usb_fail(const char *call, unsigned nth, int err);
void fake_usb_fail_clear(void);
unsigned fake_usb_calls(const char *call);
/* Complete the next bulk-IN (in 1) or bulk-OUT transfer with status (a
 * LIBUSB_TRANSFER_*) and actual_length len: for IN the raw bytes data
 * (FTDI status bytes included), for OUT nothing is echoed. Queued in
 * order, ahead of the echo. */
#define FAKE_USB_DONE_MAX 1024
void fake_usb_complete(int in, int status, const void *data, size_t len);
/* Injected completions not yet delivered. */
unsigned fake_usb_complete_left(void);

#endif /* FAKE_LIBUSB_H */
