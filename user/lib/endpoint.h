/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Protocols and ADDR:PORT endpoints as the CLI spells them, and the flow key they make. */
#ifndef XS_ENDPOINT_H
#define XS_ENDPOINT_H

#include <stddef.h>
#include "xs_hash.h"

struct xs_endpoint {
	int family;    /* AF_INET or AF_INET6 */
	__be32 addr[4]; /* IPv4 stored IPv4-mapped, as in struct xs_flow_key */
	__be16 port;
};

int xs_parse_proto(const char *s, __u8 *proto);
const char *xs_proto_name(__u8 proto, char *buf, size_t len);
int xs_parse_endpoint(const char *s, const char *what, struct xs_endpoint *ep);
/* @addr: 16 bytes in network order, IPv4 stored IPv4-mapped. */
int xs_format_addr(const void *addr, char *buf, size_t len);
/* The flow key the XDP program builds for an unfragmented packet of this flow. */
int xs_flow_key_from(__u8 proto, const struct xs_endpoint *src, const struct xs_endpoint *dst,
		     struct xs_flow_key *key);

#endif /* XS_ENDPOINT_H */
