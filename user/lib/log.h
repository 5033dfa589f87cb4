/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* One logger for xdpsteer, libbpf and libxdp. Errors go to stderr, one line each. */
#ifndef XS_LOG_H
#define XS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum xs_log_level {
	XS_LOG_WARN = 0,
	XS_LOG_INFO = 1,
	XS_LOG_DEBUG = 2,
};

void xs_log_set_level(enum xs_log_level level);
void xs_log_init(void);
/*
 * While a buffer is set, warnings go into it (the last one wins) instead of
 * stderr: the config parser reuses the CLI's value parsers and prefixes
 * their message with FILE:LINE. NULL restores stderr.
 */
void xs_log_capture(char *buf, size_t len);
void xs_log(enum xs_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A daemon's lines need a time, unless the journal adds its own: is @fd the
 * stream systemd's journal reads (JOURNAL_STREAM names its device:inode)?
 */
bool xs_log_to_journal(int fd);
/* A line-buffered stream onto @fd that starts each line with the time (UTC, ms). */
FILE *xs_log_stamped(int fd);
/* stdout and stderr stamped, each unless it goes to the journal. */
void xs_log_timestamps(void);

#define pr_warn(...) xs_log(XS_LOG_WARN, __VA_ARGS__)
#define pr_info(...) xs_log(XS_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) xs_log(XS_LOG_DEBUG, __VA_ARGS__)

#endif /* XS_LOG_H */
