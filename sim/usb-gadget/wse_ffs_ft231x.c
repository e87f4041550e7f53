/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse-ffs-ft231x: a wsemu board presented as an FTDI FT231X USB-serial
 * bridge by a Linux USB gadget (FunctionFS), the link protocol's bytes
 * carried between the bulk endpoints and a character device (the
 * virtio-serial port a virtual machine connects to a simulator's socket).
 * docs/vm-harness.md.
 *
 *   wse-ffs-ft231x [--ffs DIR] [--link PATH] [--line-error-every N]
 *                  [--pace-baud N]
 *
 * DIR is a mounted FunctionFS instance (default /dev/ffs-wsemu); the
 * program writes its descriptors and strings to DIR/ep0 and serves:
 *   - ep0: the FTDI vendor requests (reset and purge, modem control, flow
 *     control, baud rate, line settings, latency timer, modem status,
 *     EEPROM words), logged on stderr as "ffs-ft231x: ..." lines;
 *   - bulk OUT (ep2): bytes to the link;
 *   - bulk IN (ep1): bytes from the link, in packets of at most
 *     wMaxPacketSize, each starting with the two FTDI status bytes (modem
 *     status, line status); a packet of the two status bytes alone every
 *     latency-timer period while the link has nothing, as the chip sends.
 * --line-error-every N sets the framing-error bit in the line status of
 * every Nth bulk-IN packet (the data is unchanged). --pace-baud N moves
 * the link's bytes in each direction no faster than a UART at N baud, 8N1,
 * carries them (N / 10 bytes per second; default: as fast as they come).
 * SIGUSR2 appends a line "counts: B bytes to the host, H from the host"
 * (the link's bytes so far, without the status bytes).
 *
 * Threads: ep0 and signals on the main thread; one thread per bulk
 * endpoint, since FunctionFS endpoint files block until the host takes
 * (or sends) a transfer and cannot be polled. SIGTERM stops all three and
 * the program exits 0 after a summary line.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* ---- FTDI definitions (the FT-X series, AN232B-05 for the divisor) ---- */
enum {
	FTDI_REQ_RESET = 0x00,
	FTDI_REQ_MODEM_CTRL = 0x01,
	FTDI_REQ_FLOW_CTRL = 0x02,
	FTDI_REQ_BAUD = 0x03,
	FTDI_REQ_DATA = 0x04,
	FTDI_REQ_MODEM_STATUS = 0x05,
	FTDI_REQ_EVENT_CHAR = 0x06,
	FTDI_REQ_ERROR_CHAR = 0x07,
	FTDI_REQ_LATENCY = 0x09,
	FTDI_REQ_GET_LATENCY = 0x0a,
	FTDI_REQ_BITMODE = 0x0b,
	FTDI_REQ_GET_BITMODE = 0x0c,
	FTDI_REQ_EEPROM_READ = 0x90,
};
#define FTDI_CLOCK 3000000u                   /* baud = FTDI_CLOCK / divisor */
#define FTDI_MODEM_STATUS (0x01 | 0x10 | 0x20) /* reserved bit 0, CTS, DSR */
#define FTDI_LINE_IDLE 0x60                   /* THRE | TEMT */
#define FTDI_LINE_FE 0x08                     /* framing error */
#define FTDI_STATUS_BYTES 2
#define FTDI_DEFAULT_LATENCY 16

#define EP_FS_PACKET 64
#define EP_HS_PACKET 512
#define IN_PACKETS_MAX 8 /* packets per bulk-IN write */
#define IO_BYTES 4096

static const char *ffs_dir = "/dev/ffs-wsemu";
static const char *link_path = "/dev/virtio-ports/wsemu.link";
static unsigned line_error_every;
static unsigned pace_baud;

static int ep0 = -1, ep_in = -1, ep_out = -1, link_fd = -1;
static volatile sig_atomic_t stop_sig, counts_sig;
static atomic_int stopping;
static atomic_uint latency_ms = FTDI_DEFAULT_LATENCY;
static atomic_int purge_rx;

/* Counters, for the summary line. */
static atomic_ulong n_packets, n_status_only, n_line_errors, n_to_host, n_from_host;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "ffs-ft231x: %s\n", line);
}

static void die(const char *what)
{
	logf_("%s: %s", what, strerror(errno));
	exit(1);
}

/* ---- Descriptors ------------------------------------------------------ */
/* The blobs FunctionFS reads are little-endian; so is every host this
 * program is built for (x86-64 guests). */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "little-endian hosts only"
#endif
#define LE(x) (x)
struct ep_pair {
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor_no_audio in, out;
} __attribute__((packed));

static const struct {
	struct usb_functionfs_descs_head_v2 head;
	__le32 fs_count, hs_count;
	struct ep_pair fs, hs;
} __attribute__((packed)) descriptors = {
	.head = {
		.magic = LE(FUNCTIONFS_DESCRIPTORS_MAGIC_V2),
		.length = LE(sizeof descriptors),
		/* Every vendor request reaches this function: the FTDI ones
		 * are addressed to the device, not the interface. */
		.flags = LE(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
				 FUNCTIONFS_ALL_CTRL_RECIP),
	},
	.fs_count = LE(3),
	.hs_count = LE(3),
#define EP_PAIR(mps) { \
	.intf = { .bLength = sizeof(struct usb_interface_descriptor), \
		  .bDescriptorType = USB_DT_INTERFACE, .bNumEndpoints = 2, \
		  .bInterfaceClass = USB_CLASS_VENDOR_SPEC, \
		  .bInterfaceSubClass = 0xff, .bInterfaceProtocol = 0xff, \
		  .iInterface = 1 }, \
	.in = { .bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT, \
		.bEndpointAddress = 1 | USB_DIR_IN, .bmAttributes = USB_ENDPOINT_XFER_BULK, \
		.wMaxPacketSize = LE(mps) }, \
	.out = { .bLength = USB_DT_ENDPOINT_SIZE, .bDescriptorType = USB_DT_ENDPOINT, \
		 .bEndpointAddress = 2 | USB_DIR_OUT, .bmAttributes = USB_ENDPOINT_XFER_BULK, \
		 .wMaxPacketSize = LE(mps) } }
	.fs = EP_PAIR(EP_FS_PACKET),
	.hs = EP_PAIR(EP_HS_PACKET),
#undef EP_PAIR
};

#define PRODUCT "FT231X USB UART"
static const struct {
	struct usb_functionfs_strings_head head;
	struct {
		__le16 code;
		char str[sizeof PRODUCT];
	} __attribute__((packed)) lang0;
} __attribute__((packed)) strings = {
	.head = {
		.magic = LE(FUNCTIONFS_STRINGS_MAGIC),
		.length = LE(sizeof strings),
		.str_count = LE(1),
		.lang_count = LE(1),
	},
	.lang0 = { LE(0x0409), PRODUCT },
};

/* ---- I/O helpers -------------------------------------------------------- */
static int stopped(void) { return stop_sig || atomic_load(&stopping); }

/* Write all of buf to the link, polling with a time-out so a stop is seen. */
static int link_write_all(const uint8_t *p, size_t n)
{
	while (n && !stopped()) {
		ssize_t k = write(link_fd, p, n);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		struct pollfd pf = { .fd = link_fd, .events = POLLOUT };
		poll(&pf, 1, 100);
	}
	return n ? -1 : 0;
}

/* wMaxPacketSize of an enabled endpoint, 0 when not enabled yet. */
static unsigned ep_packet_size(int fd)
{
	struct usb_endpoint_descriptor d;
	if (ioctl(fd, FUNCTIONFS_ENDPOINT_DESC, &d) < 0)
		return 0; /* not enabled yet, or interrupted */
	return le16toh(d.wMaxPacketSize) & 0x7ff;
}

static unsigned ep_in_packet_size(void)
{
	unsigned mps = ep_packet_size(ep_in);
	return mps > FTDI_STATUS_BYTES ? mps : 0;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* The UART's pace: after k bytes moved at once, wait until a line at
 * pace_baud (10 bits a byte) would have carried them, counting from when
 * the line was last free (*busy_until, CLOCK_MONOTONIC ns). */
static void pace(uint64_t *busy_until, size_t k)
{
	if (!pace_baud || !k)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (*busy_until < now)
		*busy_until = now;
	*busy_until += (uint64_t)k * 10u * 1000000000u / pace_baud;
	ts.tv_sec = (time_t)(*busy_until / 1000000000u);
	ts.tv_nsec = (long)(*busy_until % 1000000000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stopped())
		;
}

/* ---- bulk IN: the link to the host ---------------------------------- */
static void *in_thread(void *arg)
{
	(void)arg;
	static uint8_t data[IN_PACKETS_MAX * EP_HS_PACKET], pkt[IN_PACKETS_MAX * EP_HS_PACKET];
	size_t have = 0; /* link bytes read, not yet taken by the host */
	uint64_t busy_until = 0;
	while (!stopped()) {
		unsigned mps = ep_in_packet_size();
		if (!mps) {
			if (errno == EINTR)
				continue;
			sleep_ms(10);
			continue;
		}
		if (atomic_exchange(&purge_rx, 0))
			have = 0;
		size_t room = (size_t)IN_PACKETS_MAX * (mps - FTDI_STATUS_BYTES);
		if (room > sizeof data)
			room = sizeof data;
		if (have < room) {
			/* Wait up to the latency timer for link bytes. */
			struct pollfd pf = { .fd = link_fd, .events = POLLIN };
			int r = poll(&pf, 1, have ? 0 : (int)atomic_load(&latency_ms));
			if (r > 0 && (pf.revents & POLLIN)) {
				ssize_t k = read(link_fd, data + have, room - have);
				if (k > 0)
					have += (size_t)k;
			} else if (r > 0 && (pf.revents & (POLLHUP | POLLERR)) && !have) {
				sleep_ms(atomic_load(&latency_ms)); /* nobody on the link */
			}
		}
		/* Packets: the status bytes, then up to mps - 2 data bytes. */
		size_t off = 0, len = 0, npkt = 0;
		do {
			size_t chunk = have - off;
			if (chunk > mps - FTDI_STATUS_BYTES)
				chunk = mps - FTDI_STATUS_BYTES;
			unsigned long seq = atomic_load(&n_packets) + npkt + 1;
			int err = line_error_every && seq % line_error_every == 0;
			pkt[len++] = FTDI_MODEM_STATUS;
			pkt[len++] = FTDI_LINE_IDLE | (err ? FTDI_LINE_FE : 0);
			memcpy(pkt + len, data + off, chunk);
			len += chunk;
			off += chunk;
			npkt++;
		} while (off < have);
		ssize_t k = write(ep_in, pkt, len);
		if (k < 0) {
			if (errno != EINTR && errno != ESHUTDOWN && errno != EAGAIN)
				logf_("bulk IN: %s", strerror(errno));
			if (errno != EINTR)
				sleep_ms(10);
			continue; /* keep the data for the next transfer */
		}
		for (size_t i = 0; i < npkt; i++) {
			unsigned long seq = atomic_fetch_add(&n_packets, 1) + 1;
			if (line_error_every && seq % line_error_every == 0)
				atomic_fetch_add(&n_line_errors, 1);
		}
		if (!have)
			atomic_fetch_add(&n_status_only, 1);
		atomic_fetch_add(&n_to_host, have);
		pace(&busy_until, have);
		have = 0;
	}
	return NULL;
}

/* ---- bulk OUT: the host to the link --------------------------------- */
static void *out_thread(void *arg)
{
	(void)arg;
	static uint8_t buf[IO_BYTES];
	uint64_t busy_until = 0;
	while (!stopped()) {
		/* One packet per read, as the chip takes them: a read of more
		 * completes only on a short packet, and a host transfer that is
		 * a multiple of the packet size ends without one (no ZLP), so
		 * its last bytes would wait for the next transfer. */
		unsigned mps = ep_packet_size(ep_out);
		if (!mps || mps > sizeof buf)
			mps = sizeof buf < 64 ? sizeof buf : 64;
		ssize_t k = read(ep_out, buf, mps);
		if (k < 0) {
			if (errno != EINTR && errno != ESHUTDOWN && errno != EAGAIN)
				logf_("bulk OUT: %s", strerror(errno));
			if (errno != EINTR)
				sleep_ms(10);
			continue;
		}
		atomic_fetch_add(&n_from_host, (unsigned long)k);
		if (link_write_all(buf, (size_t)k) < 0 && !stopped())
			logf_("link write: %s", strerror(errno));
		pace(&busy_until, (size_t)k);
	}
	return NULL;
}

/* ---- ep0: the vendor requests -------------------------------------- */
static uint16_t eeprom[128];

static void eeprom_init(void)
{
	eeprom[1] = 0x0403; /* the FT-X layout: VID, PID, release */
	eeprom[2] = 0x6015;
	eeprom[3] = 0x1000;
}

/* The baud rate of a divisor (AN232B-05): 14 integer bits, an eighths
 * code in bits 14-16; 0 and 1 are the special cases 3 and 2 Mbaud. */
static unsigned ftdi_baud(uint32_t div)
{
	static const unsigned eighths[8] = { 0, 4, 2, 1, 3, 5, 6, 7 };
	uint32_t ip = div & 0x3fff, code = (div >> 14) & 7;
	if (ip == 0 && code == 0)
		return FTDI_CLOCK;
	if (ip == 1 && code == 0)
		return 2000000;
	uint64_t d8 = (uint64_t)ip * 8 + eighths[code];
	return (unsigned)(((uint64_t)FTDI_CLOCK * 8 + d8 / 2) / d8);
}

static void ep0_ack(void)
{
	if (read(ep0, NULL, 0) < 0)
		logf_("ep0 status stage: %s", strerror(errno));
}

static void ep0_stall(const struct usb_ctrlrequest *r)
{
	int rc;
	/* FunctionFS stalls a request on I/O in the wrong direction. */
	if (r->bRequestType & USB_DIR_IN)
		rc = (int)read(ep0, NULL, 0);
	else
		rc = (int)write(ep0, NULL, 0);
	if (rc < 0 && errno != EL2HLT)
		logf_("ep0 stall: %s", strerror(errno));
}

static void ep0_reply(const struct usb_ctrlrequest *r, const void *p, size_t n)
{
	size_t want = le16toh(r->wLength);
	if (write(ep0, p, n < want ? n : want) < 0)
		logf_("ep0 reply: %s", strerror(errno));
}

static void vendor_out(const struct usb_ctrlrequest *r)
{
	static const char parity[] = "NOEMS???";
	static const char *const stops[] = { "1", "1.5", "2", "?" };
	static const char *const flows[] = { "none", "rts-cts", "dtr-dsr", "?", "xon-xoff" };
	unsigned v = le16toh(r->wValue), ix = le16toh(r->wIndex);
	switch (r->bRequest) {
	case FTDI_REQ_RESET:
		if (v == 0)
			logf_("reset");
		else if (v == 1)
			logf_("purge rx");
		else if (v == 2)
			logf_("purge tx");
		else
			return ep0_stall(r);
		if (v != 2)
			atomic_store(&purge_rx, 1);
		break;
	case FTDI_REQ_MODEM_CTRL:
		logf_("modem ctrl dtr=%d rts=%d (mask dtr %d rts %d)", v & 1, (v >> 1) & 1, (v >> 8) & 1,
		      (v >> 9) & 1);
		break;
	case FTDI_REQ_FLOW_CTRL: {
		unsigned f = ix >> 8;
		logf_("flow ctrl %s", f <= 4 ? flows[f] : "?");
		break;
	}
	case FTDI_REQ_BAUD: {
		uint32_t div = v | (uint32_t)(ix & 1) << 16;
		logf_("baud divisor 0x%05x = %u baud", (unsigned)div, ftdi_baud(div));
		break;
	}
	case FTDI_REQ_DATA:
		logf_("line %u%c%s%s", v & 0xff, parity[(v >> 8) & 7], stops[(v >> 11) & 3],
		      (v >> 14) & 1 ? " break" : "");
		break;
	case FTDI_REQ_LATENCY:
		if ((v & 0xff) == 0)
			return ep0_stall(r);
		atomic_store(&latency_ms, v & 0xff);
		logf_("latency %u ms", v & 0xff);
		break;
	case FTDI_REQ_EVENT_CHAR:
	case FTDI_REQ_ERROR_CHAR:
	case FTDI_REQ_BITMODE:
		logf_("request 0x%02x value 0x%04x", r->bRequest, v);
		break;
	default:
		logf_("unknown OUT request 0x%02x: stalled", r->bRequest);
		return ep0_stall(r);
	}
	if (le16toh(r->wLength))
		return ep0_stall(r); /* FTDI requests carry no data stage */
	ep0_ack();
}

static void vendor_in(const struct usb_ctrlrequest *r)
{
	uint8_t b[2];
	unsigned ix = le16toh(r->wIndex);
	switch (r->bRequest) {
	case FTDI_REQ_MODEM_STATUS:
		b[0] = FTDI_MODEM_STATUS;
		b[1] = FTDI_LINE_IDLE;
		return ep0_reply(r, b, 2);
	case FTDI_REQ_GET_LATENCY:
		b[0] = (uint8_t)atomic_load(&latency_ms);
		return ep0_reply(r, b, 1);
	case FTDI_REQ_GET_BITMODE:
		b[0] = 0xff; /* the CBUS pins: all high */
		return ep0_reply(r, b, 1);
	case FTDI_REQ_EEPROM_READ: {
		uint16_t w = eeprom[ix % 128];
		b[0] = (uint8_t)w;
		b[1] = (uint8_t)(w >> 8);
		return ep0_reply(r, b, 2);
	}
	default:
		logf_("unknown IN request 0x%02x: stalled", r->bRequest);
		return ep0_stall(r);
	}
}

static void handle_setup(const struct usb_ctrlrequest *r)
{
	if ((r->bRequestType & USB_TYPE_MASK) != USB_TYPE_VENDOR) {
		logf_("request type 0x%02x 0x%02x: stalled", r->bRequestType, r->bRequest);
		return ep0_stall(r);
	}
	if (r->bRequestType & USB_DIR_IN)
		vendor_in(r);
	else
		vendor_out(r);
}

static void ep0_events(void)
{
	struct usb_functionfs_event ev[4];
	ssize_t k = read(ep0, ev, sizeof ev);
	if (k < 0) {
		if (errno != EINTR && errno != EAGAIN)
			die("ep0 read");
		return;
	}
	for (size_t i = 0; i < (size_t)k / sizeof ev[0]; i++) {
		switch (ev[i].type) {
		case FUNCTIONFS_BIND:
			logf_("bind");
			break;
		case FUNCTIONFS_UNBIND:
			logf_("unbind");
			break;
		case FUNCTIONFS_ENABLE:
			logf_("enable");
			break;
		case FUNCTIONFS_DISABLE:
			logf_("disable");
			break;
		case FUNCTIONFS_SUSPEND:
			logf_("suspend");
			break;
		case FUNCTIONFS_RESUME:
			logf_("resume");
			break;
		case FUNCTIONFS_SETUP:
			handle_setup(&ev[i].u.setup);
			break;
		default:
			logf_("event %u", ev[i].type);
		}
	}
}

/* ---- main ----------------------------------------------------------- */
static void on_stop(int sig) { stop_sig = sig; }
static void on_kick(int sig) { (void)sig; }
static void on_counts(int sig) { counts_sig = sig; }

static void log_counts(const char *what)
{
	logf_("%s%lu bytes to the host, %lu from the host", what, atomic_load(&n_to_host),
	      atomic_load(&n_from_host));
}

static int open_ep(const char *name, int flags)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", ffs_dir, name);
	int fd = open(path, flags);
	if (fd < 0)
		die(path);
	return fd;
}

static void write_blob(const void *p, size_t n, const char *what)
{
	if (write(ep0, p, n) != (ssize_t)n)
		die(what);
}

static void usage(void)
{
	fprintf(stderr, "usage: wse-ffs-ft231x [--ffs DIR] [--link PATH] [--line-error-every N] "
		"[--pace-baud N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ffs") && i + 1 < argc)
			ffs_dir = argv[++i];
		else if (!strcmp(argv[i], "--link") && i + 1 < argc)
			link_path = argv[++i];
		else if (!strcmp(argv[i], "--line-error-every") && i + 1 < argc)
			line_error_every = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--pace-baud") && i + 1 < argc)
			pace_baud = (unsigned)strtoul(argv[++i], NULL, 0);
		else
			usage();
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	eeprom_init();

	struct sigaction sa = { .sa_handler = on_stop };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_kick;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_counts;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	link_fd = open(link_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (link_fd < 0)
		die(link_path);
	ep0 = open_ep("ep0", O_RDWR | O_CLOEXEC);
	write_blob(&descriptors, sizeof descriptors, "descriptors");
	write_blob(&strings, sizeof strings, "strings");
	ep_in = open_ep("ep1", O_RDWR | O_CLOEXEC);
	ep_out = open_ep("ep2", O_RDWR | O_CLOEXEC);
	logf_("ready: %s, link %s%s", ffs_dir, link_path, line_error_every ? ", line errors injected" : "");
	if (pace_baud)
		logf_("paced as a UART at %u baud", pace_baud);

	/* The workers leave SIGTERM and SIGUSR2 to this thread. */
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	pthread_t tin, tout;
	if (pthread_create(&tin, NULL, in_thread, NULL) || pthread_create(&tout, NULL, out_thread, NULL))
		die("pthread_create");
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	while (!stop_sig) {
		struct pollfd pf = { .fd = ep0, .events = POLLIN };
		int r = poll(&pf, 1, 100);
		if (r > 0 && (pf.revents & POLLIN))
			ep0_events();
		else if (r < 0 && errno != EINTR)
			die("poll ep0");
		if (counts_sig) {
			counts_sig = 0;
			log_counts("counts: ");
		}
	}

	/* Stop: interrupt the workers' blocking transfers until they end. */
	atomic_store(&stopping, 1);
	int done_in = 0, done_out = 0;
	for (int i = 0; i < 40 && !(done_in && done_out); i++) {
		if (!done_in)
			pthread_kill(tin, SIGUSR1);
		if (!done_out)
			pthread_kill(tout, SIGUSR1);
		sleep_ms(50);
		done_in = done_in || pthread_tryjoin_np(tin, NULL) == 0;
		done_out = done_out || pthread_tryjoin_np(tout, NULL) == 0;
	}
	char what[128];
	snprintf(what, sizeof what, "exit: %lu bulk-IN packets (%lu status only, %lu line errors), ",
		 atomic_load(&n_packets), atomic_load(&n_status_only), atomic_load(&n_line_errors));
	log_counts(what);
	return 0;
}
