/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Base64 (RFC 4648, padded), as etcd's JSON gateway writes keys and values. */
#ifndef XS_BASE64_H
#define XS_BASE64_H

#include <stddef.h>

/* A NUL-terminated malloc'd string, or NULL when out of memory. */
char *xs_base64_encode(const void *data, size_t len);
/* NULL on bad input; *@len the decoded length; NUL-terminated. */
char *xs_base64_decode(const char *s, size_t *len);

#endif /* XS_BASE64_H */
