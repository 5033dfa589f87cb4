// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "log.h"

static enum xs_log_level xs_level = XS_LOG_WARN;

void xs_log_set_level(enum xs_log_level level)
{
	xs_level = level;
}

static char *xs_cap_buf;
static size_t xs_cap_len;

void xs_log_capture(char *buf, size_t len)
{
	xs_cap_buf = buf;
	xs_cap_len = len;
	if (buf && len)
		buf[0] = 0;
}

static void xs_vlog(enum xs_log_level level, const char *fmt, va_list ap)
{
	if (level == XS_LOG_WARN && xs_cap_buf) {
		size_t n;

		vsnprintf(xs_cap_buf, xs_cap_len, fmt, ap);
		n = strlen(xs_cap_buf);
		if (n && xs_cap_buf[n - 1] == '\n')
			xs_cap_buf[n - 1] = 0;
		return;
	}
	if (level > xs_level)
		return;
	if (level == XS_LOG_WARN)
		fputs("xdpsteer: ", stderr);
	vfprintf(stderr, fmt, ap);
}

void xs_log(enum xs_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xs_vlog(level, fmt, ap);
	va_end(ap);
}

/* Library chatter is detail: it shows with -v, and libbpf warnings with -vv. */
static int xs_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && xs_level >= XS_LOG_INFO)
		return vfprintf(stderr, fmt, ap);
	if (xs_level >= XS_LOG_DEBUG)
		return vfprintf(stderr, fmt, ap);
	return 0;
}

static int xs_libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return xs_libbpf_print((enum libbpf_print_level)level, fmt, ap);
}

void xs_log_init(void)
{
	libbpf_set_print(xs_libbpf_print);
	libxdp_set_print(xs_libxdp_print);
}
