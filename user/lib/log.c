// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
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

bool xs_log_to_journal(int fd)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(fd, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

struct xs_stamp {
	int fd;
	bool bol; /* the next byte starts a line */
};

static int xs_write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t xs_stamp_write(void *cookie, const char *buf, size_t size)
{
	struct xs_stamp *s = cookie;
	size_t done = 0;

	while (done < size) {
		const char *nl = memchr(buf + done, '\n', size - done);
		size_t n = nl ? (size_t)(nl - (buf + done)) + 1 : size - done;

		if (s->bol) {
			char when[40];
			struct timespec ts;
			struct tm tm;
			size_t w;

			clock_gettime(CLOCK_REALTIME, &ts);
			gmtime_r(&ts.tv_sec, &tm);
			w = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(when + w, sizeof(when) - w, ".%03ldZ ", ts.tv_nsec / 1000000);
			if (xs_write_all(s->fd, when, strlen(when)))
				return -1;
		}
		if (xs_write_all(s->fd, buf + done, n))
			return -1;
		s->bol = nl != NULL;
		done += n;
	}
	return (ssize_t)size;
}

static int xs_stamp_close(void *cookie)
{
	free(cookie);
	return 0;
}

FILE *xs_log_stamped(int fd)
{
	static const cookie_io_functions_t io = { .write = xs_stamp_write, .close = xs_stamp_close };
	struct xs_stamp *s = calloc(1, sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->fd = fd;
	s->bol = true;
	f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return NULL;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

void xs_log_timestamps(void)
{
	FILE *f;

	/* glibc's stdout and stderr are assignable: every printf and pr_warn goes through. */
	fflush(stdout);
	fflush(stderr);
	if (!xs_log_to_journal(STDOUT_FILENO) && (f = xs_log_stamped(STDOUT_FILENO)))
		stdout = f;
	if (!xs_log_to_journal(STDERR_FILENO) && (f = xs_log_stamped(STDERR_FILENO)))
		stderr = f;
}
