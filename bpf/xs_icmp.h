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

/*
 * Echo requests to a VIP are answered here, by the load balancer: swap the
 * addresses and the MACs, turn the request into a reply, XDP_TX. Only the
 * type changes, so the ICMP checksum is adjusted, not recomputed.
 */
static __always_inline int xs_echo_reply(struct xdp_md *ctx, const struct xs_parsed *p)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	unsigned char mac[ETH_ALEN];
	__u32 l3 = p->l3_off & 0xff;
	__u16 *csum;
	__u8 *icmp;
	__u32 sum;

	/* Check everything before changing anything: a declined request goes up untouched. */
	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	if (p->family == 4) {
		struct iphdr *ip = data + l3;
		__be32 a;

		if ((void *)(ip + 1) > data_end || ip->ihl != 5)
			return XDP_PASS;
		icmp = (void *)(ip + 1);
		if ((void *)(icmp + 4) > data_end)
			return XDP_PASS;
		a = ip->saddr;
		ip->saddr = ip->daddr;
		ip->daddr = a;
		ip->ttl = XS_ECHO_TTL;
		xs_ip4_csum(ip);
		icmp[0] = 0; /* echo reply */
		csum = (__u16 *)(icmp + 2);
		/* Type 8 -> 0 lowers the first word by 0x0800: add it back. */
		sum = (__u16)~*csum;
		sum += (__u16)~bpf_htons(0x0800);
		*csum = xs_csum_fold(sum);
	} else {
		struct ipv6hdr *ip6 = data + l3;
		struct in6_addr a;

		if ((void *)(ip6 + 1) > data_end || ip6->nexthdr != IPPROTO_ICMPV6)
			return XDP_PASS;
		icmp = (void *)(ip6 + 1);
		if ((void *)(icmp + 4) > data_end)
			return XDP_PASS;
		a = ip6->saddr;
		ip6->saddr = ip6->daddr;
		ip6->daddr = a;
		ip6->hop_limit = XS_ECHO_TTL;
		icmp[0] = 129; /* echo reply; the pseudo-header sum is symmetric */
		csum = (__u16 *)(icmp + 2);
		sum = (__u16)~*csum;
		sum += bpf_htons(0x0100);
		*csum = xs_csum_fold(sum);
	}
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	xs_count(XS_C_ICMP_ECHO);
	return XDP_TX;
}

#endif /* XS_ICMP_H */
