/* SPDX-License-Identifier: Apache-2.0 */
/* errorf.c - the wire library's error text (wsemu/wse_wirelib.h). */
#include <stdio.h>

#include "wsemu/wse_wirelib.h"

int wse_verrorf(char *err, size_t errlen, int code, const char *fmt,
		va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return code;
}

int wse_errorf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wse_verrorf(err, errlen, code, fmt, ap);
	va_end(ap);
	return code;
}
