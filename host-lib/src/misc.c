/* SPDX-License-Identifier: Apache-2.0 */
/* misc.c - version, error strings, logging, clock. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "transport.h"

#define STR2(x) #x
#define STR(x) STR2(x)

uint32_t wse_version(void)
{
	return WSEHOST_VERSION;
}

const char *wse_version_string(void)
{
	return STR(WSEHOST_VERSION_MAJOR) "." STR(WSEHOST_VERSION_MINOR) "." STR(
		WSEHOST_VERSION_PATCH);
}

static const struct {
	int code;
	const char *name, *text;
} errors[] = {
	{WSE_SUCCESS, "WSE_SUCCESS", "success"},
	{WSE_ERROR_IO, "WSE_ERROR_IO", "input/output error on the link"},
	{WSE_ERROR_INVALID_PARAM, "WSE_ERROR_INVALID_PARAM", "invalid parameter"},
	{WSE_ERROR_ACCESS, "WSE_ERROR_ACCESS", "access denied"},
	{WSE_ERROR_NO_DEVICE, "WSE_ERROR_NO_DEVICE", "device is gone"},
	{WSE_ERROR_NOT_FOUND, "WSE_ERROR_NOT_FOUND", "not found"},
	{WSE_ERROR_BUSY, "WSE_ERROR_BUSY", "device or resource busy"},
	{WSE_ERROR_TIMEOUT, "WSE_ERROR_TIMEOUT", "timed out"},
	{WSE_ERROR_OVERFLOW, "WSE_ERROR_OVERFLOW", "buffer too small"},
	{WSE_ERROR_TRUNCATED, "WSE_ERROR_TRUNCATED", "packet or field truncated"},
	{WSE_ERROR_BAD_MAGIC, "WSE_ERROR_BAD_MAGIC", "no packet magic"},
	{WSE_ERROR_HEADER_CRC, "WSE_ERROR_HEADER_CRC", "packet header CRC mismatch"},
	{WSE_ERROR_PAYLOAD_CRC, "WSE_ERROR_PAYLOAD_CRC", "packet payload CRC mismatch"},
	{WSE_ERROR_VERSION, "WSE_ERROR_VERSION", "protocol major version mismatch"},
	{WSE_ERROR_BAD_OPCODE, "WSE_ERROR_BAD_OPCODE", "unknown or misplaced opcode"},
	{WSE_ERROR_LENGTH, "WSE_ERROR_LENGTH", "payload length over the limit"},
	{WSE_ERROR_MALFORMED, "WSE_ERROR_MALFORMED", "malformed packet"},
	{WSE_ERROR_RANGE, "WSE_ERROR_RANGE", "tile, address or port out of range"},
	{WSE_ERROR_ALIGN, "WSE_ERROR_ALIGN", "address or length not aligned"},
	{WSE_ERROR_DEVICE, "WSE_ERROR_DEVICE", "device refused the operation"},
	{WSE_ERROR_ABORTED, "WSE_ERROR_ABORTED", "request aborted"},
	{WSE_ERROR_BAD_DTB, "WSE_ERROR_BAD_DTB", "invalid device tree"},
	{WSE_ERROR_NO_MEM, "WSE_ERROR_NO_MEM", "out of memory"},
	{WSE_ERROR_NOT_SUPPORTED, "WSE_ERROR_NOT_SUPPORTED", "not supported"},
	{WSE_ERROR_VERIFY, "WSE_ERROR_VERIFY", "flash contents differ"},
	{WSE_ERROR_OTHER, "WSE_ERROR_OTHER", "other error"},
};

const char *wse_strerror(int err)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == err)
			return errors[i].text;
	return "unknown error code";
}

const char *wse_error_name(int err)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == err)
			return errors[i].name;
	return "WSE_ERROR_UNKNOWN";
}

uint32_t wse_crc32c(uint32_t crc, const void *buf, size_t len)
{
	return wse_crc32c_update(crc, buf, len);
}

static void stderr_log(void *user, enum wse_log_level lv, const char *msg)
{
	static const char *const names[] = {"", "error", "warning", "info",
					    "debug"};
	(void)user;
	fprintf(stderr, "libwsehost %s: %s\n", names[lv], msg);
}

void wsei_logger_init(struct wse_logger *lg, wse_log_cb cb, void *user,
		     int level)
{
	lg->cb = cb;
	lg->user = user;
	lg->level = 0;
	if (cb) {
		lg->level = level > 0 ? level : WSE_LOG_INFO;
		return;
	}
	const char *env = getenv("WSE_DEBUG");
	if (env && *env) {
		int l = atoi(env);
		lg->cb = stderr_log;
		lg->level = l < 1 ? WSE_LOG_DEBUG : l > 4 ? WSE_LOG_DEBUG : l;
	}
}

void wsei_logf(const struct wse_logger *lg, enum wse_log_level lv,
	     const char *fmt, ...)
{
	if (!lg || !lg->cb || (int)lv > lg->level)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lg->cb(lg->user, lv, msg);
}

long long wsei_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
