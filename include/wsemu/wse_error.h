/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_error.h - the error codes of wsemu's host side: libwsehost and
 * libwsetrain return them, and the wire library (codec, board rules)
 * reports with them. Negative values; 0 is success. Freestanding.
 * wse_strerror() and wse_error_name() of libwsehost give their text.
 */
#ifndef WSEMU_WSE_ERROR_H
#define WSEMU_WSE_ERROR_H

enum wse_error {
	WSE_SUCCESS = 0,
	WSE_ERROR_IO = -1,            /* transport read/write failed */
	WSE_ERROR_INVALID_PARAM = -2, /* bad argument (NULL, bad URI, ...) */
	WSE_ERROR_ACCESS = -3,        /* permission denied */
	WSE_ERROR_NO_DEVICE = -4,     /* device gone (simulator exited, ...) */
	WSE_ERROR_NOT_FOUND = -5,     /* no such device, file or tag */
	WSE_ERROR_BUSY = -6,          /* device in use or too many requests */
	WSE_ERROR_TIMEOUT = -7,       /* a wait expired */
	WSE_ERROR_OVERFLOW = -8,      /* buffer too small for the data */
	WSE_ERROR_TRUNCATED = -9,     /* packet or field shorter than needed */
	WSE_ERROR_BAD_MAGIC = -10,    /* no packet magic at this position */
	WSE_ERROR_HEADER_CRC = -11,   /* header CRC-32C mismatch */
	WSE_ERROR_PAYLOAD_CRC = -12,  /* payload CRC-32C mismatch */
	WSE_ERROR_VERSION = -13,      /* protocol major versions differ */
	WSE_ERROR_BAD_OPCODE = -14,   /* unknown or misplaced opcode */
	WSE_ERROR_LENGTH = -15,       /* payload length over the limit */
	WSE_ERROR_MALFORMED = -16,    /* payload layout wrong, reserved set */
	WSE_ERROR_RANGE = -17,        /* tile, address, port out of range */
	WSE_ERROR_ALIGN = -18,        /* address or length misaligned */
	WSE_ERROR_DEVICE = -19,       /* device refused (management error) */
	WSE_ERROR_ABORTED = -20,      /* request aborted */
	WSE_ERROR_BAD_DTB = -21,      /* device tree invalid or not a wsemu one */
	WSE_ERROR_NO_MEM = -22,       /* out of memory */
	WSE_ERROR_NOT_SUPPORTED = -23, /* not available on this device/build */
	WSE_ERROR_VERIFY = -24,       /* flash verify found different data */
	WSE_ERROR_OTHER = -99
};

#endif /* WSEMU_WSE_ERROR_H */
