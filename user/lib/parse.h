/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Typed parsers for the values that commands and configuration files share.
 * Each prints one line naming what was wrong and returns -EINVAL, so the
 * configuration parser can prefix the same message with FILE:LINE.
 */
#ifndef XS_PARSE_H
#define XS_PARSE_H

#include <stddef.h>
#include <linux/types.h>

int xs_parse_u32(const char *s, const char *what, __u32 min, __u32 max, __u32 *out);
int xs_parse_seed(const char *s, __u64 seed[2]);
int xs_parse_duration(const char *s, const char *what, __u64 min_ms, __u64 max_ms, __u64 *ms);
int xs_parse_fields(const char *s, const char *what, __u8 *out);
int xs_format_fields(__u8 fields, char *buf, size_t len);

#endif /* XS_PARSE_H */
