/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wse_wirelib.h - conventions of the wire library's hosted part (codec,
 * board rules, image container): WSE_INTERNAL, which keeps its functions
 * out of the shared libraries' API, and the error text of the functions
 * that take an err/errlen pair (wire/errorf.c).
 */
#ifndef WSEMU_WSE_WIRELIB_H
#define WSEMU_WSE_WIRELIB_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The wire library's functions are hidden in the shared libraries that
 * link it: they are no part of libwsehost's API. */
#ifndef WSE_INTERNAL
#define WSE_INTERNAL __attribute__((visibility("hidden")))
#endif

/* Format into err[0..errlen) when err is not NULL and errlen > 0 (the text
 * cut to fit, always terminated); return code. Never fails. */
WSE_INTERNAL int wse_verrorf(char *err, size_t errlen, int code,
			     const char *fmt, va_list ap);
WSE_INTERNAL int wse_errorf(char *err, size_t errlen, int code,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif /* WSEMU_WSE_WIRELIB_H */
