/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* ICMP the load balancer answers itself: echo requests to its VIPs. */
#ifndef XS_ICMP_H
#define XS_ICMP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpsteer.h"
#include "xs_count.h"
#include "xs_csum.h"
#include "xs_parse.h"

/* A reply is a packet of our own: it starts at 64, like the tunnel's outer headers. */
#define XS_ECHO_TTL 64

struct xs_zero_scan {
	struct xdp_md *ctx;
	__u32 off, len;
	__u32 nonzero;
};

/* Eight bytes of the range at a time; the last read ends where the range does. */
static int xs_zero_scan_cb(__u32 i, struct xs_zero_scan *s)
{
	__u32 at = i * 8 < s->len - 8 ? i * 8 : s->len - 8;
	__u64 w = 1;

	if (bpf_xdp_load_bytes(s->ctx, s->off + at, &w, sizeof(w)) || w) {
		s->nonzero = 1;
		return 1;
	}
	return 0;
}

/*
 * Are the @len bytes at @off of the frame all zero? Only asked when an echo
 * reply's updated checksum comes out 0x0000 (xs_echo_reply()), so a loop is
 * affordable; a global subprogram, so it is verified once.
 */
__attribute__((noinline)) int xs_zero_bytes(struct xdp_md *ctx, __u32 off, __u32 len)
{
	struct xs_zero_scan s = { .ctx = ctx, .off = off, .len = len };
	__u8 b = 1;
	__u32 i;

	if (!ctx || len > 0xffff || off > 0xffff)
		return 0;
	if (len >= 8) {
		bpf_loop((len + 7) / 8, xs_zero_scan_cb, &s, 0);
		return !s.nonzero;
	}
	for (i = 0; i < 7; i++) {
		if (i >= len)
			break;
		if (bpf_xdp_load_bytes(ctx, off + i, &b, 1) || b)
			return 0;
	}
	return 1;
}

/*
 * Echo requests to a VIP are answered here, by the load balancer: swap the
 * addresses and the MACs, turn the request into a reply, XDP_TX. Only the
 * type changes, so the ICMP checksum is updated (RFC 1624 eqn. 3), not
 * recomputed, and equals what a recomputation gives: where the update says
 * 0x0000, a message of nothing but zeros (id 0, seq 0, a zero payload) gets
 * 0xffff, the one checksum a receiver accepts for it.
 */
static __always_inline int xs_echo_reply(struct xdp_md *ctx, const struct xs_parsed *p)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	unsigned char mac[ETH_ALEN];
	__u32 l3 = p->l3_off & 0xff;
	__u16 *csum, type_code, sum;
	__u8 *icmp;

	/*
	 * Check everything before changing anything: a declined request goes up
	 * untouched, counted. Declined: IPv4 options and IPv6 extension headers
	 * (a reply would have to say what to do with each of them).
	 */
	if ((void *)(eth + 1) > data_end)
		goto declined;
	if (p->family == 4) {
		struct iphdr *ip = data + l3;
		__be32 a;

		if ((void *)(ip + 1) > data_end || ip->ihl != 5)
			goto declined;
		icmp = (void *)(ip + 1);
		if ((void *)(icmp + 8) > data_end)
			goto declined;
		/* Type 8 becomes 0; the code stays (the word as loaded: type low). */
		type_code = *(__u16 *)icmp;
		sum = xs_csum_replace(*(__u16 *)(icmp + 2), type_code, type_code & 0xff00);
		/* The message sums to zero: all zeros (but for the type, about to
		 * be 0, and the checksum) wants 0xffff. */
		if (!sum && !icmp[1] && xs_zero_bytes(ctx, l3 + sizeof(*ip) + 4,
						      p->ip_len - sizeof(*ip) - 4))
			sum = 0xffff;
		/* Packet pointers do not survive the call: from the frame again. */
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
		eth = data;
		ip = data + l3;
		icmp = (void *)(ip + 1);
		if ((void *)(eth + 1) > data_end || (void *)(icmp + 8) > data_end)
			goto declined; /* cannot happen: the frame is as it was */
		icmp[0] = 0; /* echo reply */
		*(__u16 *)(icmp + 2) = sum;
		a = ip->saddr;
		ip->saddr = ip->daddr;
		ip->daddr = a;
		ip->ttl = XS_ECHO_TTL;
		xs_ip4_csum(ip);
	} else {
		struct ipv6hdr *ip6 = data + l3;
		struct in6_addr a;

		if ((void *)(ip6 + 1) > data_end || ip6->nexthdr != IPPROTO_ICMPV6)
			goto declined;
		icmp = (void *)(ip6 + 1);
		if ((void *)(icmp + 8) > data_end)
			goto declined;
		a = ip6->saddr;
		ip6->saddr = ip6->daddr;
		ip6->daddr = a;
		ip6->hop_limit = XS_ECHO_TTL;
		csum = (__u16 *)(icmp + 2);
		type_code = *(__u16 *)icmp;
		icmp[0] = 129; /* echo reply; the pseudo-header sum is symmetric */
		/* The pseudo-header is never zero: the update is exact. */
		*csum = xs_csum_replace(*csum, type_code, *(__u16 *)icmp);
	}
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	xs_count(XS_C_ICMP_ECHO);
	return XDP_TX;
declined:
	xs_count(XS_C_ICMP_ECHO_PASS);
	return XDP_PASS;
}

#endif /* XS_ICMP_H */
