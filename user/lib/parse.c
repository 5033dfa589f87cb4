// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Typed parsers for command-line values: one line naming what is wrong, -EINVAL. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "parse.h"
#include "log.h"
#include "suggest.h"
#include "xs_hash.h"

int xs_parse_u32(const char *s, const char *what, __u32 min, __u32 max, __u32 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-' || v < min || v > max) {
		pr_warn("%s: '%s' is not a whole number from %u to %u\n", what, s, min, max);
		return -EINVAL;
	}
	*out = (__u32)v;
	return 0;
}

/*
 * A duration: a whole number with a unit, ms, s, m or h (s if none), from
 * @min_ms to @max_ms, into milliseconds.
 */
int xs_parse_duration(const char *s, const char *what, __u64 min_ms, __u64 max_ms, __u64 *ms)
{
	static const struct {
		const char *unit;
		__u64 ms;
	} units[] = { { "", 1000 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 } };
	unsigned long long v;
	char *end;
	size_t i;

	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; *s && *s != '-' && !errno && end != s && i < XS_ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit) || v > max_ms / units[i].ms)
			continue;
		*ms = v * units[i].ms;
		if (*ms >= min_ms && *ms <= max_ms)
			return 0;
	}
	pr_warn("%s: '%s' is not a duration from %llums to %llus (a whole number with unit "
		"ms, s, m or h, e.g. 30s)\n", what, s, (unsigned long long)min_ms,
		(unsigned long long)(max_ms / 1000));
	return -EINVAL;
}

/* 32 hex digits, optionally prefixed 0x: k0 is the first 16, k1 the last 16. */
int xs_parse_seed(const char *s, __u64 seed[2])
{
	const char *p = !strncasecmp(s, "0x", 2) ? s + 2 : s;
	char half[17];
	int i;

	if (strlen(p) != 32 || strspn(p, "0123456789abcdefABCDEF") != 32) {
		/* Not echoed: a near miss of a secret is a secret too. */
		pr_warn("seed: a value of %zu characters is not 32 hex digits (a 128-bit SipHash "
			"key, as `xdpsteer show --secrets` prints it on another host)\n", strlen(s));
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		memcpy(half, p + 16 * i, 16);
		half[16] = 0;
		seed[i] = strtoull(half, NULL, 16);
	}
	return 0;
}

static const struct {
	const char *name;
	__u8 bit;
} xs_field_names[] = {
	{ "src", XS_F_SRC },     { "dst", XS_F_DST },     { "sport", XS_F_SPORT },
	{ "dport", XS_F_DPORT }, { "proto", XS_F_PROTO },
};

/* Comma-separated field names, e.g. "src,dst,proto". */
int xs_parse_fields(const char *s, const char *what, __u8 *out)
{
	char buf[128], *tok, *save = NULL;
	size_t i;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < XS_ARRAY_SIZE(xs_field_names); i++)
			if (!strcmp(tok, xs_field_names[i].name))
				break;
		if (i == XS_ARRAY_SIZE(xs_field_names)) {
			struct xs_suggest sg;
			char hint[96];

			xs_suggest_init(&sg, tok, strlen(tok));
			for (i = 0; i < XS_ARRAY_SIZE(xs_field_names); i++)
				xs_suggest_add(&sg, xs_field_names[i].name,
					       strlen(xs_field_names[i].name));
			pr_warn("%s: unknown field '%s'%s (use src,dst,sport,dport,proto)\n", what,
				tok, xs_suggest_hint(&sg, NULL, hint, sizeof(hint)));
			return -EINVAL;
		}
		*out |= xs_field_names[i].bit;
	}
	if (!*out) {
		pr_warn("%s: name at least one field of src,dst,sport,dport,proto\n", what);
		return -EINVAL;
	}
	return 0;
}

int xs_format_fields(__u8 fields, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < XS_ARRAY_SIZE(xs_field_names); i++)
		if (fields & xs_field_names[i].bit)
			off += snprintf(buf + off, len > off ? len - off : 0, "%s%s",
					off ? "," : "", xs_field_names[i].name);
	return (int)off;
}
