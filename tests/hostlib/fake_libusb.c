/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_libusb.c - simulated USB devices behind libusb-1.0's API
 * (fake_libusb.h). One lock guards everything; callbacks run without it,
 * from the thread in libusb_handle_events_timeout_completed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libusb.h>

#include "fake_libusb.h"

struct libusb_context {
	int unused;
};
struct libusb_device {
	unsigned idx;
};
struct libusb_device_handle {
	struct libusb_device *dev;
};

#define MAX_XFERS 32
#define MAX_HP    8
#define MAX_CTRL  64
#define MAX_FAIL  8
#define MAX_CALLS 32
#define MAX_DONE  16

struct hp {
	int on, events;
	libusb_hotplug_callback_fn cb;
	void *user;
	libusb_context *ctx;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct fake_usb_dev d[FAKE_USB_MAX];
	struct libusb_device dev[FAKE_USB_MAX];
	int present[FAKE_USB_MAX];
	unsigned n;
	int hotplug, hold, interrupt, auto_detach;
	uint8_t *echo[FAKE_USB_MAX];
	size_t echo_len[FAKE_USB_MAX], echo_cap[FAKE_USB_MAX];
	unsigned pkts[FAKE_USB_MAX];
	unsigned flagged;
	struct libusb_transfer *xf[MAX_XFERS];
	int cancelled[MAX_XFERS];
	unsigned nxf;
	struct hp hp[MAX_HP];
	/* Hotplug events not yet delivered: device index, or +100 arrived. */
	int events[16];
	unsigned nev;
	struct {
		uint8_t type, req;
		uint16_t value, index;
	} ctrl[MAX_CTRL];
	unsigned nctrl;
	int live; /* contexts + handles + claims + transfers */
	/* Injected failures, calls counted by name, injected completions. */
	struct {
		const char *call;
		unsigned nth;
		int err;
	} fail[MAX_FAIL];
	unsigned nfail;
	struct {
		const char *call;
		unsigned n;
	} calls[MAX_CALLS];
	struct {
		int in, status;
		size_t len;
		uint8_t data[FAKE_USB_DONE_MAX];
	} done[MAX_DONE];
	unsigned ndone;
} F = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Count a call of name; its injected error, or 0. */
static int fake_call(const char *name)
{
	pthread_mutex_lock(&F.lock);
	unsigned k = 0, n;
	while (k < MAX_CALLS && F.calls[k].call &&
	       strcmp(F.calls[k].call, name))
		k++;
	if (k == MAX_CALLS)
		abort(); /* raise MAX_CALLS */
	F.calls[k].call = name;
	n = ++F.calls[k].n;
	int e = 0;
	for (unsigned i = 0; i < F.nfail && !e; i++)
		if (!strcmp(F.fail[i].call, name) &&
		    (!F.fail[i].nth || F.fail[i].nth == n))
			e = F.fail[i].err;
	pthread_mutex_unlock(&F.lock);
	return e;
}

void fake_usb_fail(const char *call, unsigned nth, int err)
{
	pthread_mutex_lock(&F.lock);
	if (F.nfail == MAX_FAIL)
		abort();
	F.fail[F.nfail].call = call;
	F.fail[F.nfail].nth = nth;
	F.fail[F.nfail++].err = err;
	pthread_mutex_unlock(&F.lock);
}

void fake_usb_fail_clear(void)
{
	pthread_mutex_lock(&F.lock);
	F.nfail = 0;
	pthread_mutex_unlock(&F.lock);
}

unsigned fake_usb_calls(const char *call)
{
	unsigned n = 0;
	pthread_mutex_lock(&F.lock);
	for (unsigned k = 0; k < MAX_CALLS && F.calls[k].call; k++)
		if (!strcmp(F.calls[k].call, call))
			n = F.calls[k].n;
	pthread_mutex_unlock(&F.lock);
	return n;
}

unsigned fake_usb_complete_left(void)
{
	pthread_mutex_lock(&F.lock);
	unsigned n = F.ndone;
	pthread_mutex_unlock(&F.lock);
	return n;
}

void fake_usb_complete(int in, int status, const void *data, size_t len)
{
	pthread_mutex_lock(&F.lock);
	if (F.ndone == MAX_DONE || len > FAKE_USB_DONE_MAX)
		abort();
	F.done[F.ndone].in = in;
	F.done[F.ndone].status = status;
	F.done[F.ndone].len = len;
	if (data)
		memcpy(F.done[F.ndone].data, data, len);
	F.ndone++;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
}

void fake_usb_reset(const struct fake_usb_dev *d, unsigned n, int hotplug)
{
	pthread_mutex_lock(&F.lock);
	for (unsigned i = 0; i < FAKE_USB_MAX; i++) {
		free(F.echo[i]);
		F.echo[i] = NULL;
		F.echo_len[i] = F.echo_cap[i] = 0;
		F.pkts[i] = 0;
		F.present[i] = i < n;
		F.dev[i].idx = i;
		if (i < n)
			F.d[i] = d[i];
	}
	F.n = n;
	F.hotplug = hotplug;
	F.hold = F.interrupt = F.auto_detach = 0;
	F.flagged = 0;
	F.nctrl = F.nev = 0;
	F.nfail = F.ndone = 0;
	memset(F.calls, 0, sizeof(F.calls));
	pthread_mutex_unlock(&F.lock);
	static int once;
	if (!once) {
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&F.cond, &ca);
		pthread_condattr_destroy(&ca);
		once = 1;
	}
}

void fake_usb_present(unsigned i, int present)
{
	pthread_mutex_lock(&F.lock);
	F.present[i] = present;
	if (F.nev < 16)
		F.events[F.nev++] = present ? (int)i + 100 : (int)i;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
}

void fake_usb_hold_out(int hold)
{
	pthread_mutex_lock(&F.lock);
	F.hold = hold;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
}

unsigned fake_usb_ctrl_count(void)
{
	return F.nctrl;
}

void fake_usb_ctrl_get(unsigned k, uint8_t *type, uint8_t *req,
		       uint16_t *value, uint16_t *index)
{
	*type = F.ctrl[k].type;
	*req = F.ctrl[k].req;
	*value = F.ctrl[k].value;
	*index = F.ctrl[k].index;
}

unsigned fake_usb_flagged(void)
{
	pthread_mutex_lock(&F.lock);
	unsigned n = F.flagged;
	pthread_mutex_unlock(&F.lock);
	return n;
}

int fake_usb_leaks(void)
{
	return F.live;
}

int fake_usb_auto_detach(void)
{
	return F.auto_detach;
}

/* ---- libusb -------------------------------------------------------------- */

int libusb_init(libusb_context **ctx)
{
	int e = fake_call("init");
	if (e)
		return e;
	*ctx = calloc(1, sizeof(**ctx));
	__atomic_add_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
	return *ctx ? 0 : LIBUSB_ERROR_NO_MEM;
}

void libusb_exit(libusb_context *ctx)
{
	pthread_mutex_lock(&F.lock);
	for (unsigned i = 0; i < MAX_HP; i++)
		if (F.hp[i].ctx == ctx)
			F.hp[i].on = 0;
	pthread_mutex_unlock(&F.lock);
	free(ctx);
	__atomic_sub_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
}

int libusb_has_capability(uint32_t cap)
{
	return cap == LIBUSB_CAP_HAS_HOTPLUG && F.hotplug;
}

const char *libusb_error_name(int e)
{
	static const char *const names[] = {
		"LIBUSB_SUCCESS", "LIBUSB_ERROR_IO", "LIBUSB_ERROR_INVALID_PARAM",
		"LIBUSB_ERROR_ACCESS", "LIBUSB_ERROR_NO_DEVICE",
		"LIBUSB_ERROR_NOT_FOUND", "LIBUSB_ERROR_BUSY",
		"LIBUSB_ERROR_TIMEOUT", "LIBUSB_ERROR_OVERFLOW",
		"LIBUSB_ERROR_PIPE", "LIBUSB_ERROR_INTERRUPTED",
		"LIBUSB_ERROR_NO_MEM", "LIBUSB_ERROR_NOT_SUPPORTED"};
	return e <= 0 && e > -13 ? names[-e] : "LIBUSB_ERROR_OTHER";
}

int libusb_hotplug_register_callback(libusb_context *ctx, int events,
				     int flags, int vid, int pid, int cls,
				     libusb_hotplug_callback_fn cb, void *user,
				     libusb_hotplug_callback_handle *h)
{
	(void)flags, (void)vid, (void)pid, (void)cls;
	int e = fake_call("hotplug_register_callback");
	if (e)
		return e;
	pthread_mutex_lock(&F.lock);
	for (unsigned i = 0; i < MAX_HP; i++)
		if (!F.hp[i].on) {
			F.hp[i] = (struct hp){1, events, cb, user, ctx};
			*h = (int)i + 1;
			pthread_mutex_unlock(&F.lock);
			return 0;
		}
	pthread_mutex_unlock(&F.lock);
	return LIBUSB_ERROR_NO_MEM;
}

void libusb_hotplug_deregister_callback(libusb_context *ctx,
					libusb_hotplug_callback_handle h)
{
	(void)ctx;
	pthread_mutex_lock(&F.lock);
	if (h >= 1 && h <= MAX_HP)
		F.hp[h - 1].on = 0;
	pthread_mutex_unlock(&F.lock);
}

ssize_t libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
	(void)ctx;
	int e = fake_call("get_device_list");
	if (e)
		return e;
	libusb_device **l = calloc(FAKE_USB_MAX + 1, sizeof(*l));
	ssize_t n = 0;
	if (!l)
		return LIBUSB_ERROR_NO_MEM;
	pthread_mutex_lock(&F.lock);
	for (unsigned i = 0; i < F.n; i++)
		if (F.present[i])
			l[n++] = &F.dev[i];
	pthread_mutex_unlock(&F.lock);
	*list = l;
	return n;
}

void libusb_free_device_list(libusb_device **list, int unref)
{
	(void)unref;
	free(list);
}

libusb_device *libusb_ref_device(libusb_device *dev)
{
	return dev;
}

void libusb_unref_device(libusb_device *dev)
{
	(void)dev;
}

int libusb_get_device_descriptor(libusb_device *dev,
				 struct libusb_device_descriptor *dd)
{
	int e = fake_call("get_device_descriptor");
	if (e)
		return e;
	memset(dd, 0, sizeof(*dd));
	dd->bLength = sizeof(*dd);
	dd->idVendor = F.d[dev->idx].vid;
	dd->idProduct = F.d[dev->idx].pid;
	dd->iSerialNumber = F.d[dev->idx].serial ? 3 : 0;
	return 0;
}

int libusb_get_active_config_descriptor(libusb_device *dev,
					struct libusb_config_descriptor **cfg)
{
	struct blk {
		struct libusb_config_descriptor c;
		struct libusb_interface i;
		struct libusb_interface_descriptor s;
		struct libusb_endpoint_descriptor e[3];
	} *b = calloc(1, sizeof(*b));
	const struct fake_usb_dev *d = &F.d[dev->idx];
	int e = fake_call("get_active_config_descriptor");
	if (e || !b) {
		free(b);
		return e ? e : LIBUSB_ERROR_NO_MEM;
	}
	b->c.bNumInterfaces = 1;
	b->c.interface = &b->i;
	b->i.altsetting = &b->s;
	b->i.num_altsetting = 1;
	b->s.bInterfaceClass = 0xff;
	b->s.bInterfaceSubClass = d->vendor_class ? 0x57 : 0xff;
	b->s.bInterfaceProtocol = d->vendor_class ? 0x01 : 0xff;
	b->s.bNumEndpoints = 3;
	b->s.endpoint = b->e;
	/* An interrupt endpoint first, which is not the link's. */
	b->e[0] = (struct libusb_endpoint_descriptor){
		.bEndpointAddress = 0x83, .bmAttributes = 3, .wMaxPacketSize = 8};
	b->e[1] = (struct libusb_endpoint_descriptor){
		.bEndpointAddress = 0x81, .bmAttributes = 2,
		.wMaxPacketSize = (uint16_t)d->maxpkt};
	b->e[2] = (struct libusb_endpoint_descriptor){
		.bEndpointAddress = 0x02, .bmAttributes = 2,
		.wMaxPacketSize = (uint16_t)d->maxpkt};
	*cfg = &b->c;
	return 0;
}

void libusb_free_config_descriptor(struct libusb_config_descriptor *cfg)
{
	free(cfg);
}

uint8_t libusb_get_bus_number(libusb_device *dev)
{
	return F.d[dev->idx].bus;
}

int libusb_get_port_numbers(libusb_device *dev, uint8_t *ports, int len)
{
	int e = fake_call("get_port_numbers");
	if (e)
		return e;
	if (len < 2)
		return LIBUSB_ERROR_OVERFLOW;
	memcpy(ports, F.d[dev->idx].ports, 2);
	return F.d[dev->idx].ports[1] ? 2 : 1;
}

int libusb_open(libusb_device *dev, libusb_device_handle **h)
{
	int e = fake_call("open");
	if (e)
		return e;
	if (F.d[dev->idx].access_denied)
		return LIBUSB_ERROR_ACCESS;
	if (!F.present[dev->idx])
		return LIBUSB_ERROR_NO_DEVICE;
	*h = calloc(1, sizeof(**h));
	if (!*h)
		return LIBUSB_ERROR_NO_MEM;
	(*h)->dev = dev;
	__atomic_add_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void libusb_close(libusb_device_handle *h)
{
	free(h);
	__atomic_sub_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
}

libusb_device *libusb_get_device(libusb_device_handle *h)
{
	return h->dev;
}

int libusb_get_string_descriptor_ascii(libusb_device_handle *h, uint8_t idx,
				       unsigned char *data, int length)
{
	const char *s = F.d[h->dev->idx].serial;
	(void)idx;
	int e = fake_call("get_string_descriptor_ascii");
	if (e)
		return e;
	snprintf((char *)data, (size_t)length, "%s", s);
	return (int)strlen((char *)data);
}

int libusb_set_auto_detach_kernel_driver(libusb_device_handle *h, int on)
{
	(void)h;
	int e = fake_call("set_auto_detach_kernel_driver");
	if (e)
		return e;
	F.auto_detach = on;
	return 0;
}

int libusb_claim_interface(libusb_device_handle *h, int ifnum)
{
	(void)h, (void)ifnum;
	int e = fake_call("claim_interface");
	if (!e)
		__atomic_add_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
	return e;
}

int libusb_release_interface(libusb_device_handle *h, int ifnum)
{
	(void)h, (void)ifnum;
	__atomic_sub_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int libusb_clear_halt(libusb_device_handle *h, unsigned char ep)
{
	(void)h, (void)ep;
	return fake_call("clear_halt");
}

int libusb_control_transfer(libusb_device_handle *h, uint8_t type,
			    uint8_t req, uint16_t value, uint16_t index,
			    unsigned char *data, uint16_t len,
			    unsigned int timeout)
{
	(void)data, (void)len, (void)timeout;
	int e = fake_call("control_transfer");
	if (e)
		return e;
	pthread_mutex_lock(&F.lock);
	int gone = !F.present[h->dev->idx];
	if (!gone && F.nctrl < MAX_CTRL) {
		F.ctrl[F.nctrl].type = type;
		F.ctrl[F.nctrl].req = req;
		F.ctrl[F.nctrl].value = value;
		F.ctrl[F.nctrl].index = index;
		F.nctrl++;
	}
	pthread_mutex_unlock(&F.lock);
	return gone ? LIBUSB_ERROR_NO_DEVICE : 0;
}

struct libusb_transfer *libusb_alloc_transfer(int iso)
{
	(void)iso;
	if (fake_call("alloc_transfer"))
		return NULL;
	struct libusb_transfer *x = calloc(1, sizeof(*x));
	if (x)
		__atomic_add_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
	return x;
}

void libusb_free_transfer(struct libusb_transfer *x)
{
	if (!x)
		return;
	free(x);
	__atomic_sub_fetch(&F.live, 1, __ATOMIC_SEQ_CST);
}

int libusb_submit_transfer(struct libusb_transfer *x)
{
	int r = fake_call("submit_transfer");
	if (r)
		return r;
	pthread_mutex_lock(&F.lock);
	if (!F.present[x->dev_handle->dev->idx])
		r = LIBUSB_ERROR_NO_DEVICE;
	else if (F.nxf == MAX_XFERS)
		r = LIBUSB_ERROR_NO_MEM;
	for (unsigned i = 0; i < F.nxf && !r; i++)
		if (F.xf[i] == x)
			r = LIBUSB_ERROR_BUSY;
	if (!r) {
		F.cancelled[F.nxf] = 0;
		F.xf[F.nxf++] = x;
		pthread_cond_broadcast(&F.cond);
	}
	pthread_mutex_unlock(&F.lock);
	return r;
}

int libusb_cancel_transfer(struct libusb_transfer *x)
{
	int r = LIBUSB_ERROR_NOT_FOUND;
	pthread_mutex_lock(&F.lock);
	for (unsigned i = 0; i < F.nxf; i++)
		if (F.xf[i] == x && !F.cancelled[i]) {
			F.cancelled[i] = 1;
			r = 0;
			pthread_cond_broadcast(&F.cond);
		}
	pthread_mutex_unlock(&F.lock);
	return r;
}

void libusb_interrupt_event_handler(libusb_context *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&F.lock);
	F.interrupt = 1;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
}

/* Fill IN transfer x of device i from its echo buffer; lock held. */
static void fill_in(struct libusb_transfer *x, unsigned i)
{
	const struct fake_usb_dev *d = &F.d[i];
	size_t pos = 0, take = 0, len = (size_t)x->length;
	if (d->vendor_class) {
		take = F.echo_len[i] < len ? F.echo_len[i] : len;
		memcpy(x->buffer, F.echo[i], take);
		pos = take;
	} else {
		while (pos + 2 <= len && F.echo_len[i] > take) {
			size_t n = d->maxpkt - 2;
			if (n > F.echo_len[i] - take)
				n = F.echo_len[i] - take;
			x->buffer[pos] = 0x01;
			x->buffer[pos + 1] = 0x60;
			if (d->line_status_every &&
			    ++F.pkts[i] % d->line_status_every == 0) {
				x->buffer[pos + 1] |= 0x02;
				F.flagged++;
			}
			memcpy(x->buffer + pos + 2, F.echo[i] + take, n);
			take += n;
			pos += n + 2;
			if (n + 2 < d->maxpkt)
				break; /* a short packet ends the transfer */
		}
	}
	memmove(F.echo[i], F.echo[i] + take, F.echo_len[i] - take);
	F.echo_len[i] -= take;
	x->actual_length = (int)pos;
}

/* Complete x with the first injected completion for its direction;
 * lock held. 1 if there was one. */
static int injected(struct libusb_transfer *x)
{
	int in = !!(x->endpoint & 0x80);
	for (unsigned k = 0; k < F.ndone; k++) {
		if (F.done[k].in != in)
			continue;
		size_t n = F.done[k].len;
		if (in) {
			if (n > (size_t)x->length)
				n = (size_t)x->length;
			memcpy(x->buffer, F.done[k].data, n);
		} else if (n > (size_t)x->length) {
			n = (size_t)x->length;
		}
		x->status = (enum libusb_transfer_status)F.done[k].status;
		x->actual_length = (int)n;
		memmove(F.done + k, F.done + k + 1,
			(F.ndone - k - 1) * sizeof(F.done[0]));
		F.ndone--;
		return 1;
	}
	return 0;
}

/* Take one transfer that can complete now, setting its status; lock
 * held. NULL if none. */
static struct libusb_transfer *ready(void)
{
	for (unsigned k = 0; k < F.nxf; k++) {
		struct libusb_transfer *x = F.xf[k];
		unsigned i = x->dev_handle->dev->idx;
		int in = x->endpoint & 0x80, ok = 1;
		if (!F.present[i]) {
			x->status = LIBUSB_TRANSFER_NO_DEVICE;
			x->actual_length = 0;
		} else if (F.cancelled[k]) {
			x->status = LIBUSB_TRANSFER_CANCELLED;
			x->actual_length = 0;
		} else if (injected(x)) {
			/* status and payload set */
		} else if (!in && !F.hold) {
			size_t n = (size_t)x->length;
			if (F.echo_len[i] + n > F.echo_cap[i]) {
				F.echo_cap[i] = 2 * (F.echo_len[i] + n);
				F.echo[i] = realloc(F.echo[i], F.echo_cap[i]);
			}
			memcpy(F.echo[i] + F.echo_len[i], x->buffer, n);
			F.echo_len[i] += n;
			x->status = LIBUSB_TRANSFER_COMPLETED;
			x->actual_length = x->length;
		} else if (in && F.echo_len[i]) {
			fill_in(x, i);
			x->status = LIBUSB_TRANSFER_COMPLETED;
		} else {
			ok = 0;
		}
		if (ok) {
			memmove(F.xf + k, F.xf + k + 1, (F.nxf - k - 1) * sizeof(F.xf[0]));
			memmove(F.cancelled + k, F.cancelled + k + 1,
				(F.nxf - k - 1) * sizeof(F.cancelled[0]));
			F.nxf--;
			return x;
		}
	}
	return NULL;
}

/* Deliver one pending hotplug event to ctx's callbacks; lock held, and
 * released around the calls. 1 if there was one. */
static int hotplug_event(libusb_context *ctx)
{
	if (!F.nev)
		return 0;
	int e = F.events[0];
	memmove(F.events, F.events + 1, --F.nev * sizeof(F.events[0]));
	int ev = e >= 100 ? LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED
			  : LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT;
	libusb_device *dev = &F.dev[e % 100];
	for (unsigned h = 0; h < MAX_HP; h++) {
		struct hp c = F.hp[h];
		if (!c.on || c.ctx != ctx || !(c.events & ev))
			continue;
		pthread_mutex_unlock(&F.lock);
		int drop = c.cb(ctx, dev, (libusb_hotplug_event)ev, c.user);
		pthread_mutex_lock(&F.lock);
		if (drop)
			F.hp[h].on = 0;
	}
	return 1;
}

int libusb_handle_events_timeout_completed(libusb_context *ctx,
					   struct timeval *tv, int *completed)
{
	int e = fake_call("handle_events_timeout_completed");
	if (e)
		return e;
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += tv->tv_sec;
	dl.tv_nsec += tv->tv_usec * 1000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	int handled = 0;
	pthread_mutex_lock(&F.lock);
	for (;;) {
		struct libusb_transfer *x;
		while ((x = ready()) != NULL || hotplug_event(ctx)) {
			if (x) {
				pthread_mutex_unlock(&F.lock);
				x->callback(x);
				pthread_mutex_lock(&F.lock);
			}
			handled = 1;
		}
		if (handled || F.interrupt || (completed && *completed))
			break;
		if (pthread_cond_timedwait(&F.cond, &F.lock, &dl))
			break;
	}
	F.interrupt = 0;
	pthread_mutex_unlock(&F.lock);
	return 0;
}
