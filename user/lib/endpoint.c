// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "parse.h"
#include "endpoint.h"
#include "log.h"

static const struct {
	const char *name;
	__u8 proto;
} xs_protos[] = {
	{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },     { "sctp", IPPROTO_SCTP },
	{ "icmp", IPPROTO_ICMP }, { "icmpv6", IPPROTO_ICMPV6 },
};

int xs_parse_proto(const char *s, __u8 *proto)
{
	__u32 v;
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_protos); i++) {
		if (!strcasecmp(s, xs_protos[i].name)) {
			*proto = xs_protos[i].proto;
			return 0;
		}
	}
	if (s[0] >= '0' && s[0] <= '9' && !xs_parse_u32(s, "protocol", 0, 255, &v)) {
		*proto = (__u8)v;
		return 0;
	}
	pr_warn("protocol: '%s' is not tcp, udp, sctp, icmp, icmpv6 or a number 0-255\n", s);
	return -EINVAL;
}

const char *xs_proto_name(__u8 proto, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < XS_ARRAY_SIZE(xs_protos); i++)
		if (xs_protos[i].proto == proto)
			return xs_protos[i].name;
	snprintf(buf, len, "%u", proto);
	return buf;
}

/* ADDR:PORT or [ADDR6]:PORT. */
int xs_parse_endpoint(const char *s, const char *what, struct xs_endpoint *ep)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port;
	struct in_addr a4;
	__u32 p;
	size_t len;

	memset(ep, 0, sizeof(*ep));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			goto bad;
		len = (size_t)(close - s - 1);
		port = close + 2;
		if (len >= sizeof(host))
			goto bad;
		memcpy(host, s + 1, len);
		host[len] = 0;
		if (inet_pton(AF_INET6, host, ep->addr) != 1)
			goto bad;
		ep->family = AF_INET6;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			goto bad;
		len = (size_t)(colon - s);
		port = colon + 1;
		if (len >= sizeof(host))
			goto bad;
		memcpy(host, s, len);
		host[len] = 0;
		if (inet_pton(AF_INET, host, &a4) != 1)
			goto bad;
		ep->family = AF_INET;
		ep->addr[2] = htonl(0xffff);
		ep->addr[3] = a4.s_addr;
	}
	if (xs_parse_u32(port, what, 0, 65535, &p))
		return -EINVAL;
	ep->port = htons((__u16)p);
	return 0;
bad:
	pr_warn("%s: '%s' is not ADDR:PORT (IPv4) or [ADDR]:PORT (IPv6)\n", what, s);
	return -EINVAL;
}

int xs_format_addr(const void *addr16, char *buf, size_t len)
{
	__be32 addr[4];

	memcpy(addr, addr16, sizeof(addr));
	if (!addr[0] && !addr[1] && addr[2] == htonl(0xffff))
		return inet_ntop(AF_INET, &addr[3], buf, len) ? 0 : -errno;
	return inet_ntop(AF_INET6, addr, buf, len) ? 0 : -errno;
}

int xs_flow_key_from(__u8 proto, const struct xs_endpoint *src, const struct xs_endpoint *dst,
		     struct xs_flow_key *key)
{
	if (src->family != dst->family) {
		pr_warn("lookup: source and destination must both be IPv4 or both IPv6\n");
		return -EINVAL;
	}
	memset(key, 0, sizeof(*key));
	memcpy(key->src, src->addr, sizeof(key->src));
	memcpy(key->dst, dst->addr, sizeof(key->dst));
	key->proto = proto;
	/* The parser only reads ports for these; for others they are zero. */
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP) {
		key->sport = src->port;
		key->dport = dst->port;
	}
	return 0;
}
