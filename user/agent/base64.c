// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Base64 (RFC 4648, padded), as etcd's JSON gateway writes keys and values. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "base64.h"

static const char xs_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *xs_base64_encode(const void *data, size_t len)
{
	const unsigned char *s = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		*o++ = xs_b64[s[i] >> 2];
		*o++ = xs_b64[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		*o++ = xs_b64[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
		*o++ = xs_b64[s[i + 2] & 63];
	}
	if (i < len) {
		*o++ = xs_b64[s[i] >> 2];
		if (i + 1 < len) {
			*o++ = xs_b64[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
			*o++ = xs_b64[(s[i + 1] & 15) << 2];
		} else {
			*o++ = xs_b64[(s[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = 0;
	return out;
}

static int xs_b64_val(char c)
{
	const char *p = c ? strchr(xs_b64, c) : NULL;

	return p ? (int)(p - xs_b64) : -1;
}

char *xs_base64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), i, o = 0;
	char *out;

	if (n % 4)
		return NULL;
	out = malloc(n / 4 * 3 + 1);
	if (!out)
		return NULL;
	for (i = 0; i < n; i += 4) {
		int a = xs_b64_val(s[i]), b = xs_b64_val(s[i + 1]);
		int c = s[i + 2] == '=' ? 0 : xs_b64_val(s[i + 2]);
		int d = s[i + 3] == '=' ? 0 : xs_b64_val(s[i + 3]);
		bool last = i + 4 == n;

		if (a < 0 || b < 0 || c < 0 || d < 0 || (!last && (s[i + 2] == '=' || s[i + 3] == '=')) ||
		    (s[i + 2] == '=' && s[i + 3] != '=')) {
			free(out);
			return NULL;
		}
		out[o++] = (char)((a << 2) | (b >> 4));
		if (s[i + 2] != '=')
			out[o++] = (char)(((b & 15) << 4) | (c >> 2));
		if (s[i + 3] != '=')
			out[o++] = (char)(((c & 3) << 6) | d);
	}
	out[o] = 0;
	*len = o;
	return out;
}
