/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport_usb.c - "usb:" transport: the link over USB bulk endpoints,
 * on libusb-1.0's asynchronous API.
 *   usb:                    the only wsemu board attached
 *   usb:serial=S            the board with USB serial number S
 *   usb:bus=B,port=P        the board at bus B, port path P ("1", "1.2")
 *   usb:vid=V,pid=P         the board with these IDs (hex)
 *   ...,baud=N              FTDI bridges: N baud instead of the default
 * A board is an FTDI bridge of usb_ftdi.c's table (the first interface,
 * two status bytes before every bulk-IN packet) or any device with a
 * vendor-class interface ff/57/01 (one bulk IN and one bulk OUT endpoint,
 * the link's bytes unframed).
 *
 * Each open device has its own libusb context and one event thread
 * (libusb_handle_events_timeout_completed, 50 ms steps). IN_XFERS bulk-IN
 * transfers are always in flight, resubmitted from their callback after
 * their payload is copied into a ring that recv drains; when the ring is
 * full a completed transfer is parked and resubmitted by recv once its
 * payload fits, so no byte is dropped. send queues one bulk-OUT transfer
 * and waits for it. A transfer completing with NO_DEVICE, or a hotplug
 * "left" event, marks the device gone: recv and send return NO_DEVICE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libusb.h>

#include "transport.h"
#include "usb_ftdi.h"

#define IN_XFERS     4
#define IN_XFER_LEN  16384        /* rounded down to whole packets */
#define RING_LEN     (1u << 20)
#define EVENT_STEP_MS 50
#define POLL_MS      50           /* device scan without hotplug */
#define CTRL_MS      1000         /* bound of one control request */
#define CLOSE_MS     2000         /* bound of waiting for cancellations */
#define LATENCY_MS   1
#define UDEV_RULE    "70-wsemu.rules"

struct wse_transport {
	const struct wse_logger *log;
	libusb_context *ctx;
	libusb_device_handle *h;
	libusb_hotplug_callback_handle hp;
	int hp_on;
	int ifnum, claimed;
	uint8_t ep_in, ep_out;
	size_t in_pkt; /* wMaxPacketSize of the IN endpoint */
	const struct wse_ftdi_chip *chip; /* NULL: vendor-class path */
	pthread_t ev;
	int ev_on;
	atomic_int stop;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int gone, closing;
	unsigned flying; /* transfers submitted, callback not yet run */
	struct libusb_transfer *in[IN_XFERS];
	size_t in_len;
	/* Parked IN transfers in completion order (indices), their payload
	 * (park_len bytes) at the start of the transfer's buffer. */
	unsigned park[IN_XFERS], npark;
	size_t park_len[IN_XFERS];
	uint8_t *ring;
	size_t rhead, rlen;
	struct libusb_transfer *out;
	size_t out_cap;
	int out_busy, out_status;
	uint64_t line_errors;
	unsigned in_errors; /* failed bulk-IN transfers in a row */
	unsigned in_lost; /* IN transfers whose resubmission failed */
};

/* A libusb error as a wse error. */
static int usb_err(int e)
{
	switch (e) {
	case LIBUSB_ERROR_ACCESS:
		return WSE_ERROR_ACCESS;
	case LIBUSB_ERROR_NO_DEVICE:
		return WSE_ERROR_NO_DEVICE;
	case LIBUSB_ERROR_NOT_FOUND:
		return WSE_ERROR_NOT_FOUND;
	case LIBUSB_ERROR_BUSY:
		return WSE_ERROR_BUSY;
	case LIBUSB_ERROR_TIMEOUT:
		return WSE_ERROR_TIMEOUT;
	case LIBUSB_ERROR_NO_MEM:
		return WSE_ERROR_NO_MEM;
	case LIBUSB_ERROR_NOT_SUPPORTED:
		return WSE_ERROR_NOT_SUPPORTED;
	default:
		return WSE_ERROR_IO;
	}
}

/* Absolute CLOCK_MONOTONIC time ms from now, for the condition variable. */
static struct timespec deadline(long long ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Called with the lock held. */
static void mark_gone(struct wse_transport *t)
{
	if (!t->gone)
		wsei_logf(t->log, WSE_LOG_ERROR, "usb: device disconnected");
	t->gone = 1;
	pthread_cond_broadcast(&t->cond);
}

/* ---- Transfers ------------------------------------------------------ */

/* Submit IN transfer i; lock held. 0 or the wse error (gone marked). */
static int submit_in(struct wse_transport *t, unsigned i)
{
	if (t->gone || t->closing)
		return WSE_ERROR_NO_DEVICE;
	int r = libusb_submit_transfer(t->in[i]);
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		mark_gone(t);
		return WSE_ERROR_NO_DEVICE;
	}
	if (r) {
		wsei_logf(t->log, WSE_LOG_ERROR, "usb: bulk-IN submit: %s",
			libusb_error_name(r));
		if (++t->in_lost == IN_XFERS) /* recv can only fail now */
			pthread_cond_broadcast(&t->cond);
		return usb_err(r);
	}
	t->flying++;
	return 0;
}

static size_t ring_room(const struct wse_transport *t)
{
	return RING_LEN - t->rlen;
}

static void ring_put(struct wse_transport *t, const uint8_t *p, size_t n)
{
	size_t tail = (t->rhead + t->rlen) % RING_LEN;
	size_t a = RING_LEN - tail < n ? RING_LEN - tail : n;
	memcpy(t->ring + tail, p, a);
	memcpy(t->ring, p + a, n - a);
	t->rlen += n;
}

/* Move the parked transfers' payloads that fit into the ring and
 * resubmit those transfers; lock held. */
static void unpark(struct wse_transport *t)
{
	while (t->npark && ring_room(t) >= t->park_len[t->park[0]]) {
		unsigned i = t->park[0];
		ring_put(t, t->in[i]->buffer, t->park_len[i]);
		memmove(t->park, t->park + 1, --t->npark * sizeof(t->park[0]));
		submit_in(t, i);
	}
}

static void LIBUSB_CALL in_cb(struct libusb_transfer *x)
{
	struct wse_transport *t = x->user_data;
	unsigned i = 0;
	while (i < IN_XFERS && t->in[i] != x)
		i++;
	pthread_mutex_lock(&t->lock);
	t->flying--;
	switch (x->status) {
	case LIBUSB_TRANSFER_COMPLETED: {
		size_t n = (size_t)x->actual_length;
		t->in_errors = 0;
		if (t->chip)
			n = wsei_ftdi_strip(x->buffer, n, t->in_pkt,
					   &t->line_errors);
		if (t->npark || ring_room(t) < n) {
			t->park_len[i] = n;
			t->park[t->npark++] = i;
		} else {
			ring_put(t, x->buffer, n);
			submit_in(t, i);
		}
		if (n)
			pthread_cond_broadcast(&t->cond);
		break;
	}
	case LIBUSB_TRANSFER_NO_DEVICE:
		mark_gone(t);
		break;
	case LIBUSB_TRANSFER_CANCELLED:
		break;
	default: /* ERROR, STALL, TIMEOUT, OVERFLOW: try again */
		if (t->in_errors++ % 1000 == 0)
			wsei_logf(t->log, WSE_LOG_WARNING,
				"usb: bulk-IN status %d (%u in a row)",
				(int)x->status, t->in_errors);
		if (x->status == LIBUSB_TRANSFER_STALL)
			libusb_clear_halt(t->h, t->ep_in);
		submit_in(t, i);
		break;
	}
	pthread_cond_broadcast(&t->cond); /* close waits for flying == 0 */
	pthread_mutex_unlock(&t->lock);
}

static void LIBUSB_CALL out_cb(struct libusb_transfer *x)
{
	struct wse_transport *t = x->user_data;
	pthread_mutex_lock(&t->lock);
	t->flying--;
	t->out_busy = 0;
	switch (x->status) {
	case LIBUSB_TRANSFER_COMPLETED:
		t->out_status = x->actual_length == x->length ? 0 : WSE_ERROR_IO;
		break;
	case LIBUSB_TRANSFER_NO_DEVICE:
		t->out_status = WSE_ERROR_NO_DEVICE;
		mark_gone(t);
		break;
	case LIBUSB_TRANSFER_CANCELLED:
		t->out_status = WSE_ERROR_TIMEOUT;
		break;
	default:
		t->out_status = WSE_ERROR_IO;
		break;
	}
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

static int LIBUSB_CALL hotplug_cb(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event ev, void *user)
{
	struct wse_transport *t = user;
	(void)ctx;
	if (ev == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT && t->h &&
	    dev == libusb_get_device(t->h)) {
		pthread_mutex_lock(&t->lock);
		mark_gone(t);
		pthread_mutex_unlock(&t->lock);
	}
	return 0; /* stay registered */
}

static void *event_main(void *arg)
{
	struct wse_transport *t = arg;
	while (!atomic_load(&t->stop)) {
		struct timeval tv = {0, EVENT_STEP_MS * 1000};
		if (libusb_handle_events_timeout_completed(t->ctx, &tv, NULL)) {
			/* failed at once: wait the step instead of spinning */
			struct timespec ts = {0, EVENT_STEP_MS * 1000000L};
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* ---- Finding the device ------------------------------------------------ */

/* What a device is to us: an FTDI chip, or the vendor-class interface. */
struct found {
	libusb_device *dev;
	const struct wse_ftdi_chip *chip;
	int ifnum;
	uint8_t ep_in, ep_out;
	size_t in_pkt;
	char where[64]; /* "bus B port P" */
	char serial[64];
};

/* The first bulk IN and OUT endpoints of an interface setting; 1 if both. */
static int bulk_eps(const struct libusb_interface_descriptor *s,
		    struct found *f)
{
	f->ep_in = f->ep_out = 0;
	for (int e = 0; e < s->bNumEndpoints; e++) {
		const struct libusb_endpoint_descriptor *ep = &s->endpoint[e];
		if ((ep->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK)
			continue;
		if ((ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !f->ep_in) {
			f->ep_in = ep->bEndpointAddress;
			f->in_pkt = ep->wMaxPacketSize & 0x7ff;
		} else if (!(ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) &&
			   !f->ep_out) {
			f->ep_out = ep->bEndpointAddress;
		}
	}
	return f->ep_in && f->ep_out && f->in_pkt >= 8;
}

/* Is dev a board, and which kind? Fills f (endpoints, interface). */
static int identify(libusb_device *dev, const struct libusb_device_descriptor *dd,
		    struct found *f)
{
	struct libusb_config_descriptor *cfg;
	memset(f, 0, sizeof(*f));
	f->chip = wsei_ftdi_chip_find(dd->idVendor, dd->idProduct);
	if (libusb_get_active_config_descriptor(dev, &cfg))
		return 0;
	int ok = 0;
	for (int i = 0; i < cfg->bNumInterfaces && !ok; i++) {
		if (!cfg->interface[i].num_altsetting)
			continue;
		const struct libusb_interface_descriptor *s =
			&cfg->interface[i].altsetting[0];
		if (f->chip)
			ok = i == 0 && bulk_eps(s, f);
		else
			ok = s->bInterfaceClass == WSE_USB_VENDOR_CLASS &&
			     s->bInterfaceSubClass == WSE_USB_VENDOR_SUBCLASS &&
			     s->bInterfaceProtocol == WSE_USB_VENDOR_PROTOCOL &&
			     bulk_eps(s, f);
		f->ifnum = s->bInterfaceNumber;
	}
	libusb_free_config_descriptor(cfg);
	if (!ok)
		return 0;
	f->dev = dev;
	uint8_t ports[8];
	int np = libusb_get_port_numbers(dev, ports, sizeof(ports));
	char path[32];
	wsei_usb_port_path(ports, np > 0 ? np : 0, path, sizeof(path));
	snprintf(f->where, sizeof(f->where), "bus %u port %s",
		 libusb_get_bus_number(dev), path);
	return 1;
}

/* The serial number string of dev into f->serial ("?" if unreadable). */
static void read_serial(libusb_device *dev,
			const struct libusb_device_descriptor *dd,
			struct found *f, int *access_denied)
{
	libusb_device_handle *h;
	snprintf(f->serial, sizeof(f->serial), "?");
	if (!dd->iSerialNumber) {
		snprintf(f->serial, sizeof(f->serial), "(none)");
		return;
	}
	int r = libusb_open(dev, &h);
	if (r) {
		if (r == LIBUSB_ERROR_ACCESS)
			*access_denied = 1;
		return;
	}
	unsigned char s[64];
	if (libusb_get_string_descriptor_ascii(h, dd->iSerialNumber, s,
					       sizeof(s)) > 0)
		snprintf(f->serial, sizeof(f->serial), "%s", (char *)s);
	libusb_close(h);
}

/*
 * Scan the bus for boards matching sel. Returns the count of matches
 * (the first in *f, with a reference on f->dev that the caller drops
 * with libusb_unref_device), and lists every match in list (cap bytes)
 * for a message. Errors: NO_MEM, IO (device list not readable).
 */
static int scan(struct wse_transport *t, const struct wse_usb_sel *sel,
		struct found *f, char *list, size_t cap, int *access_denied)
{
	libusb_device **devs;
	ssize_t n = libusb_get_device_list(t->ctx, &devs);
	int count = 0;
	size_t lo = 0;
	if (n < 0)
		return usb_err((int)n);
	list[0] = 0;
	for (ssize_t i = 0; i < n; i++) {
		struct libusb_device_descriptor dd;
		struct found c;
		if (libusb_get_device_descriptor(devs[i], &dd) ||
		    !identify(devs[i], &dd, &c))
			continue;
		if (sel->have_id && (dd.idVendor != sel->vid ||
				     dd.idProduct != sel->pid))
			continue;
		if (sel->bus) {
			char want[64];
			snprintf(want, sizeof(want), "bus %u port %s",
				 sel->bus, sel->port);
			if (strcmp(want, c.where))
				continue;
		}
		read_serial(devs[i], &dd, &c, access_denied);
		if (sel->serial[0] && strcmp(sel->serial, c.serial))
			continue;
		if (!count++) {
			*f = c;
			libusb_ref_device(devs[i]);
		}
		if (lo < cap)
			lo += (size_t)snprintf(list + lo, cap - lo,
					       "%s%s serial %s (%04x:%04x %s)",
					       count > 1 ? "; " : "", c.where,
					       c.serial, dd.idVendor, dd.idProduct,
					       c.chip ? c.chip->name : "vendor-class");
	}
	libusb_free_device_list(devs, 1);
	return count;
}

/* ---- Opening ------------------------------------------------------------ */

/* One FTDI vendor request without data, bounded by CTRL_MS. Errors:
 * NO_DEVICE, TIMEOUT, IO (stalled: the chip refused it), NO_MEM. */
static int ctrl(struct wse_transport *t, uint8_t req, uint16_t value,
		uint16_t index)
{
	int r = libusb_control_transfer(t->h, LIBUSB_REQUEST_TYPE_VENDOR |
					LIBUSB_RECIPIENT_DEVICE |
					LIBUSB_ENDPOINT_OUT,
					req, value, index, NULL, 0, CTRL_MS);
	if (r < 0) {
		wsei_logf(t->log, WSE_LOG_ERROR,
			"usb: FTDI request %u (value 0x%04x): %s", req, value,
			libusb_error_name(r));
		return usb_err(r);
	}
	return 0;
}

/*
 * The FTDI bridge's settings: reset, baud rate, 8N1, no flow control,
 * DTR and RTS asserted (the ULX3S lets its transmitter send while RTS#
 * is low), latency timer, then both buffers purged. Errors: INVALID_PARAM
 * (a baud rate the chip cannot make within 3 %), NO_DEVICE, TIMEOUT, IO.
 */
static int ftdi_setup(struct wse_transport *t, unsigned baud)
{
	uint16_t port = (uint16_t)(t->ifnum + 1);
	uint32_t div;
	uint16_t val, idx;
	unsigned actual;
	if (!baud)
		baud = t->chip->default_baud;
	if (wsei_ftdi_baud(t->chip, baud, (unsigned)t->ifnum, &div, &val, &idx,
			  &actual)) {
		wsei_logf(t->log, WSE_LOG_ERROR,
			"usb: the %s cannot make %u baud within 3 %%",
			t->chip->name, baud);
		return WSE_ERROR_INVALID_PARAM;
	}
	int r;
	if ((r = ctrl(t, WSE_FTDI_REQ_RESET, WSE_FTDI_RESET_SIO, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_BAUD, val, idx)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_DATA, WSE_FTDI_DATA_8N1, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_FLOW_CTRL, 0, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_MODEM_CTRL, WSE_FTDI_MODEM_DTR_RTS_ON, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_LATENCY, LATENCY_MS, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_RESET, WSE_FTDI_PURGE_RX, port)) ||
	    (r = ctrl(t, WSE_FTDI_REQ_RESET, WSE_FTDI_PURGE_TX, port)))
		return r;
	wsei_logf(t->log, WSE_LOG_INFO,
		"usb: %s at %u baud (divisor 0x%05x), 8N1, DTR and RTS on, latency %d ms",
		t->chip->name, actual, (unsigned)div, LATENCY_MS);
	return 0;
}

/* Wait for a hotplug or poll step, at most left ms. */
static void wait_step(struct wse_transport *t, long long left, int *arrived)
{
	if (left > POLL_MS && !t->hp_on)
		left = POLL_MS;
	if (left <= 0)
		return;
	if (t->hp_on) {
		struct timeval tv = {(time_t)(left / 1000),
				     (suseconds_t)(left % 1000) * 1000};
		if (!libusb_handle_events_timeout_completed(t->ctx, &tv, arrived))
			return;
		if (left > POLL_MS) /* failed at once: poll, not spin */
			left = POLL_MS;
	}
	struct timespec ts = {0, (long)left * 1000000L};
	nanosleep(&ts, NULL);
}

static int LIBUSB_CALL arrived_cb(libusb_context *ctx, libusb_device *dev,
				  libusb_hotplug_event ev, void *user)
{
	(void)ctx, (void)dev, (void)ev;
	*(int *)user = 1;
	return 1; /* deregister: one arrival wakes the scan */
}

/*
 * Find and open the board of sel, waiting up to timeout_ms for it to
 * appear. Errors: NOT_FOUND, INVALID_PARAM (several match), ACCESS, BUSY
 * (interface claimed elsewhere), NO_DEVICE, NO_MEM, IO.
 */
static int find_open(struct wse_transport *t, const struct wse_usb_sel *sel,
		     int timeout_ms)
{
	long long end = wsei_now_ms() + timeout_ms;
	char what[160], list[512];
	struct found f;
	int access_denied = 0, n;
	wsei_usb_sel_str(sel, what, sizeof(what));
	for (;;) {
		int arrived = 0;
		libusb_hotplug_callback_handle ah = 0;
		int ah_on = t->hp_on &&
			    !libusb_hotplug_register_callback(
				    t->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, 0,
				    LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
				    LIBUSB_HOTPLUG_MATCH_ANY, arrived_cb, &arrived, &ah);
		n = scan(t, sel, &f, list, sizeof(list), &access_denied);
		if (!n) {
			wait_step(t, end - wsei_now_ms(), &arrived);
		}
		if (ah_on && !arrived)
			libusb_hotplug_deregister_callback(t->ctx, ah);
		if (n)
			break;
		if (wsei_now_ms() >= end) {
			wsei_logf(t->log, WSE_LOG_ERROR,
				"usb: no board found (searched for:%s; FTDI 0403:6015/6001/6010/6014 or a vendor-class ff/57/01 interface)%s",
				what, access_denied ?
				"; some devices could not be opened to read their serial number (permissions, see " UDEV_RULE ")" : "");
			return WSE_ERROR_NOT_FOUND;
		}
	}
	if (n < 0) {
		wsei_logf(t->log, WSE_LOG_ERROR, "usb: cannot list devices: %s",
			wse_strerror(n));
		return n;
	}
	if (n > 1) {
		libusb_unref_device(f.dev);
		wsei_logf(t->log, WSE_LOG_ERROR,
			"usb: %d boards match (%s); choose one with usb:serial=S or usb:bus=B,port=P",
			n, list);
		return WSE_ERROR_INVALID_PARAM;
	}
	int r = libusb_open(f.dev, &t->h);
	libusb_unref_device(f.dev);
	if (r) {
		if (r == LIBUSB_ERROR_ACCESS)
			wsei_logf(t->log, WSE_LOG_ERROR,
				"usb: no permission to open %s; install the udev rule: "
				"sudo install -m 0644 packaging/udev/" UDEV_RULE " /etc/udev/rules.d/ "
				"(or make install-udev), then sudo udevadm control --reload "
				"and replug the board",
				f.where);
		else
			wsei_logf(t->log, WSE_LOG_ERROR, "usb: cannot open %s: %s",
				f.where, libusb_error_name(r));
		t->h = NULL;
		return usb_err(r);
	}
	t->chip = f.chip;
	t->ifnum = f.ifnum;
	t->ep_in = f.ep_in;
	t->ep_out = f.ep_out;
	t->in_pkt = f.in_pkt;
	libusb_set_auto_detach_kernel_driver(t->h, 1); /* ftdi_sio, Linux only */
	r = libusb_claim_interface(t->h, t->ifnum);
	if (r) {
		wsei_logf(t->log, WSE_LOG_ERROR,
			"usb: cannot claim interface %d of %s: %s%s", t->ifnum,
			f.where, libusb_error_name(r),
			r == LIBUSB_ERROR_BUSY ? " (in use by another program)" : "");
		return usb_err(r);
	}
	t->claimed = 1;
	wsei_logf(t->log, WSE_LOG_INFO, "usb: %s serial %s, %s, interface %d, IN 0x%02x (%zu-byte packets), OUT 0x%02x",
		f.where, f.serial, f.chip ? f.chip->name : "vendor-class",
		t->ifnum, t->ep_in, t->in_pkt, t->ep_out);
	return 0;
}

/* Release everything of t, waiting a bounded time for cancellations. */
static void cleanup(struct wse_transport *t)
{
	pthread_mutex_lock(&t->lock);
	t->closing = 1;
	for (unsigned i = 0; i < IN_XFERS; i++)
		if (t->in[i])
			libusb_cancel_transfer(t->in[i]); /* not in flight: NOT_FOUND */
	if (t->out && t->out_busy)
		libusb_cancel_transfer(t->out);
	if (t->ev_on) {
		struct timespec dl = deadline(CLOSE_MS);
		while (t->flying &&
		       pthread_cond_timedwait(&t->cond, &t->lock, &dl) == 0)
			;
	}
	unsigned left = t->flying;
	pthread_mutex_unlock(&t->lock);
	if (t->hp_on)
		libusb_hotplug_deregister_callback(t->ctx, t->hp);
	if (t->ev_on) {
		atomic_store(&t->stop, 1);
		libusb_interrupt_event_handler(t->ctx);
		pthread_join(t->ev, NULL);
	}
	if (left) {
		/* Never seen: freeing them now could be used after free. */
		wsei_logf(t->log, WSE_LOG_ERROR,
			"usb: %u transfers not cancelled, leaking them", left);
	} else {
		for (unsigned i = 0; i < IN_XFERS; i++)
			if (t->in[i]) {
				free(t->in[i]->buffer);
				libusb_free_transfer(t->in[i]);
			}
		if (t->out) {
			free(t->out->buffer);
			libusb_free_transfer(t->out);
		}
	}
	if (t->claimed)
		libusb_release_interface(t->h, t->ifnum);
	if (t->h && !left)
		libusb_close(t->h);
	if (t->ctx && !left)
		libusb_exit(t->ctx);
	free(t->ring);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Allocate the transfers and the ring, submit the IN transfers, start
 * the event thread. Errors: NO_MEM, NO_DEVICE, IO. */
static int start(struct wse_transport *t)
{
	t->ring = malloc(RING_LEN);
	t->in_len = IN_XFER_LEN - IN_XFER_LEN % t->in_pkt;
	t->out = libusb_alloc_transfer(0);
	if (!t->ring || !t->out)
		return WSE_ERROR_NO_MEM;
	for (unsigned i = 0; i < IN_XFERS; i++) {
		uint8_t *b = malloc(t->in_len);
		t->in[i] = b ? libusb_alloc_transfer(0) : NULL;
		if (!t->in[i]) {
			free(b);
			return WSE_ERROR_NO_MEM;
		}
		libusb_fill_bulk_transfer(t->in[i], t->h, t->ep_in, b,
					  (int)t->in_len, in_cb, t, 0);
	}
	if (pthread_create(&t->ev, NULL, event_main, t))
		return WSE_ERROR_NO_MEM;
	t->ev_on = 1;
	int r = 0;
	pthread_mutex_lock(&t->lock);
	for (unsigned i = 0; i < IN_XFERS && !r; i++)
		r = submit_in(t, i);
	pthread_mutex_unlock(&t->lock);
	return r;
}

/* transport.h's open. Errors: INVALID_PARAM (bad arguments, several
 * boards match, a baud rate the bridge cannot make), NOT_FOUND (no
 * matching board within timeout_ms, or no USB at all), ACCESS, BUSY,
 * NO_DEVICE, TIMEOUT (a set-up request), NO_MEM, IO. */
static int usb_open(struct wse_transport **tp, const char *args,
		    int timeout_ms, const struct wse_logger *log)
{
	struct wse_usb_sel sel;
	char err[160];
	if (wsei_usb_parse(args, &sel, err, sizeof(err))) {
		wsei_logf(log, WSE_LOG_ERROR, "usb: bad URI arguments '%s': %s",
			args, err);
		return WSE_ERROR_INVALID_PARAM;
	}
	struct wse_transport *t = calloc(1, sizeof(*t));
	if (!t)
		return WSE_ERROR_NO_MEM;
	t->log = log;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&t->lock, NULL);
	int r = libusb_init(&t->ctx);
	if (r) {
		t->ctx = NULL;
		wsei_logf(log, WSE_LOG_ERROR, "usb: libusb_init: %s (no USB here?)",
			libusb_error_name(r));
		r = r == LIBUSB_ERROR_NO_MEM ? WSE_ERROR_NO_MEM : WSE_ERROR_NOT_FOUND;
		goto fail;
	}
	if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG))
		t->hp_on = 1;
	r = find_open(t, &sel, timeout_ms);
	if (r)
		goto fail;
	if (t->hp_on && libusb_hotplug_register_callback(
			t->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
			LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
			LIBUSB_HOTPLUG_MATCH_ANY, hotplug_cb, t, &t->hp))
		t->hp_on = 0; /* NO_DEVICE transfers still tell */
	if (!t->hp_on)
		t->hp = 0;
	if (t->chip) {
		if ((r = ftdi_setup(t, sel.baud)))
			goto fail;
	} else if (sel.baud) {
		wsei_logf(log, WSE_LOG_WARNING,
			"usb: baud=%u ignored: the board is no FTDI bridge",
			sel.baud);
	}
	if ((r = start(t)))
		goto fail;
	*tp = t;
	return 0;
fail:
	wsei_logf(log, WSE_LOG_ERROR, "usb: open failed: %s", wse_strerror(r));
	cleanup(t);
	return r;
}

/* transport.h's send: one bulk-OUT transfer of len bytes, cancelled at
 * the time-out. Errors: TIMEOUT (also when the previous, cancelled
 * transfer has not come back yet), NO_DEVICE, NO_MEM, IO. */
static int usb_send(struct wse_transport *t, const void *buf, size_t len,
		    int timeout_ms)
{
	if (!len)
		return 0;
	if (len > (1u << 30))
		return WSE_ERROR_IO;
	struct timespec dl = deadline(timeout_ms);
	pthread_mutex_lock(&t->lock);
	int r = 0;
	/* A cancelled transfer whose callback is late keeps the buffer. */
	while (t->out_busy && !t->gone && !r)
		r = pthread_cond_timedwait(&t->cond, &t->lock, &dl);
	if (t->gone) {
		r = WSE_ERROR_NO_DEVICE;
		goto out;
	}
	if (r) {
		r = WSE_ERROR_TIMEOUT;
		goto out;
	}
	if (t->out_cap < len) {
		uint8_t *b = realloc(t->out->buffer, len);
		if (!b) {
			r = WSE_ERROR_NO_MEM;
			goto out;
		}
		t->out->buffer = b;
		t->out_cap = len;
	}
	libusb_fill_bulk_transfer(t->out, t->h, t->ep_out, t->out->buffer,
				  (int)len, out_cb, t, 0);
	memcpy(t->out->buffer, buf, len);
	int e = libusb_submit_transfer(t->out);
	if (e == LIBUSB_ERROR_NO_DEVICE) {
		mark_gone(t);
		r = WSE_ERROR_NO_DEVICE;
		goto out;
	}
	if (e) { /* send's contract: any other failure is IO */
		wsei_logf(t->log, WSE_LOG_ERROR, "usb: bulk-OUT submit: %s",
			libusb_error_name(e));
		r = WSE_ERROR_IO;
		goto out;
	}
	t->flying++;
	t->out_busy = 1;
	while (t->out_busy && !t->gone &&
	       pthread_cond_timedwait(&t->cond, &t->lock, &dl) == 0)
		;
	if (t->gone) {
		if (t->out_busy)
			libusb_cancel_transfer(t->out);
		r = WSE_ERROR_NO_DEVICE;
	} else if (t->out_busy) {
		/* Its callback (CANCELLED) comes from the event thread; the
		 * next send waits for it before reusing the transfer. */
		libusb_cancel_transfer(t->out);
		r = WSE_ERROR_TIMEOUT;
	} else {
		r = t->out_status;
	}
out:
	pthread_mutex_unlock(&t->lock);
	return r;
}

/* transport.h's recv, from the ring the IN callbacks fill. Errors:
 * TIMEOUT, NO_DEVICE (once the board is gone, even with bytes left), IO
 * (no IN transfer could be resubmitted, the ring empty). */
static int usb_recv(struct wse_transport *t, void *buf, size_t cap,
		    int timeout_ms)
{
	struct timespec dl = deadline(timeout_ms);
	if (cap > (1u << 30))
		cap = 1u << 30;
	pthread_mutex_lock(&t->lock);
	while (!t->rlen && !t->gone && t->in_lost < IN_XFERS &&
	       pthread_cond_timedwait(&t->cond, &t->lock, &dl) == 0)
		;
	int r;
	if (t->gone) {
		r = WSE_ERROR_NO_DEVICE;
	} else if (!t->rlen && t->in_lost == IN_XFERS) {
		r = WSE_ERROR_IO;
	} else if (!t->rlen) {
		r = WSE_ERROR_TIMEOUT;
	} else {
		size_t n = t->rlen < cap ? t->rlen : cap;
		size_t a = RING_LEN - t->rhead < n ? RING_LEN - t->rhead : n;
		memcpy(buf, t->ring + t->rhead, a);
		memcpy((uint8_t *)buf + a, t->ring, n - a);
		t->rhead = (t->rhead + n) % RING_LEN;
		t->rlen -= n;
		unpark(t);
		r = (int)n;
	}
	pthread_mutex_unlock(&t->lock);
	return r;
}

static void usb_stats(struct wse_transport *t, struct wse_transport_stats *st)
{
	pthread_mutex_lock(&t->lock);
	st->line_errors = t->line_errors;
	pthread_mutex_unlock(&t->lock);
}

static void usb_close(struct wse_transport *t)
{
	if (t)
		cleanup(t);
}

const struct wse_transport_ops wsei_transport_usb = {
	.scheme = "usb",
	.open = usb_open,
	.send = usb_send,
	.recv = usb_recv,
	.close = usb_close,
	.stats = usb_stats,
};
