/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ICMP the load balancer sends itself: echo replies for its VIPs, and
 * "fragmentation needed" / "packet too big" for packets that would not fit
 * the tunnel to their backend.
 */
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
#include "xs_budget.h"
#include "xs_config.h"
#include "xs_count.h"
#include "xs_csum.h"
#include "xs_maps.h"
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

/* May this CPU send one more ICMP "too big" now? (cfg_icmp_rate; 0: no limit) */
static __always_inline int xs_icmp_allowed(void)
{
	struct xs_pin_budget *b;
	__u32 zero = 0;

	if (!cfg_icmp_rate)
		return 1;
	b = bpf_map_lookup_elem(&xs_icmp_budget, &zero);
	return b ? xs_budget_take(b, cfg_icmp_rate, cfg_icmp_burst) : 1;
}

#define XS_IP_DF 0x4000
#define XS_TOO_BIG_MSG (8 + XS_TOO_BIG_QUOTE) /* ICMP header and quote */

/*
 * Answer a packet too big for the tunnel to its backend with ICMP
 * "fragmentation needed" (IPv4) or ICMPv6 "packet too big", carrying @mtu,
 * the largest packet that fits: the frame becomes, in place,
 *
 *   [its L2 header, MACs swapped, tags kept][IP: VIP -> client][ICMP][quote]
 *
 * and goes back out where it came in (XDP_TX). The quote is the first
 * XS_TOO_BIG_QUOTE bytes of the packet, which hold every header a client
 * needs to find its connection. Declined, and dropped as too_big, as a router
 * declines them (RFC 1122 3.2.2, RFC 1191): an IPv4 packet without DF (a
 * router would fragment it; this one cannot), a fragment other than the
 * first, an ICMP or ICMPv6 packet (@is_icmp: never an error about one), a
 * packet shorter than the quote, and any over the rate limit. A global
 * subprogram: verified once for all the ways that reach it.
 */
__attribute__((noinline)) int xs_too_big_global(struct xdp_md *ctx, __u32 l3_off, __u32 family,
						__u32 mtu, __u32 is_icmp)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	__u32 l2 = l3_off, hdr = family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	__u8 *ip, *icmp, *old;
	__u32 ip_len;
	__u64 seed = 0;
	__s64 sum;

	if (is_icmp || (l2 != 14 && l2 != 18 && l2 != 22))
		goto drop;
	/* Bounded for the verifier, which does not follow the test above (and
	 * out of the compiler's sight, which would drop the mask as useless). */
	XS_OPAQUE(l2);
	l2 &= 0x1f;
	ip = data + l2;
	if (family == 4) {
		struct iphdr *ip4 = (void *)ip;

		if ((void *)(ip4 + 1) > data_end)
			goto drop;
		if ((ip4->frag_off & bpf_htons(XS_IP_DF | XS_IP_OFFSET)) != bpf_htons(XS_IP_DF))
			goto drop;
		ip_len = bpf_ntohs(ip4->tot_len);
	} else {
		struct ipv6hdr *ip6 = (void *)ip;

		if ((void *)(ip6 + 1) > data_end)
			goto drop;
		ip_len = sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
	}
	if (ip_len < XS_TOO_BIG_QUOTE || ip + XS_TOO_BIG_QUOTE > (__u8 *)data_end)
		goto drop;
	if (!xs_icmp_allowed()) {
		xs_count(XS_C_ICMP_LIMITED);
		goto drop;
	}

	/* Keep the L2 header and the quote; then room in front for IP and ICMP. */
	if (bpf_xdp_adjust_tail(ctx, (int)(l2 + XS_TOO_BIG_QUOTE) - (int)(data_end - data)) ||
	    bpf_xdp_adjust_head(ctx, -(int)(hdr + 8)))
		goto drop;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	/* The old L2 header now starts hdr + 8 (28 or 48) bytes in: no overlap. */
	old = data + hdr + 8;
	if ((void *)(old + 22) > data_end)
		goto drop;
	__builtin_memcpy(data, old + 6, 6);  /* to the sender */
	__builtin_memcpy(data + 6, old, 6);  /* from us */
	/* Tags and type; what lies past l2 is overwritten by the IP header next. */
	__builtin_memcpy(data + 12, old + 12, 10);
	XS_OPAQUE(l2);
	l2 &= 0x1f;
	ip = data + l2;
	icmp = ip + hdr;
	if ((void *)(icmp + XS_TOO_BIG_MSG) > data_end)
		goto drop;
	/* The quote starts with the packet's own header: its source is the client. */
	if (family == 4) {
		struct iphdr *ip4 = (void *)ip;
		const struct iphdr *q = (const void *)(icmp + 8);

		ip4->version = 4;
		ip4->ihl = 5;
		ip4->tos = 0;
		ip4->tot_len = bpf_htons(sizeof(*ip4) + XS_TOO_BIG_MSG);
		ip4->id = 0;
		ip4->frag_off = 0;
		ip4->ttl = XS_ECHO_TTL;
		ip4->protocol = IPPROTO_ICMP;
		ip4->saddr = q->daddr; /* the VIP */
		ip4->daddr = q->saddr;
		xs_ip4_csum(ip4);
		icmp[0] = XS_ICMP_DEST_UNREACH;
		icmp[1] = XS_ICMP_FRAG_NEEDED;
		*(__u16 *)(icmp + 4) = 0;
		*(__be16 *)(icmp + 6) = bpf_htons((__u16)mtu);
	} else {
		struct ipv6hdr *ip6 = (void *)ip;
		const struct ipv6hdr *q = (const void *)(icmp + 8);
		const __u32 *a;
		int i;

		*(__be32 *)ip6 = bpf_htonl(6 << 28); /* version, no class, no label */
		ip6->payload_len = bpf_htons(XS_TOO_BIG_MSG);
		ip6->nexthdr = IPPROTO_ICMPV6;
		ip6->hop_limit = XS_ECHO_TTL;
		ip6->saddr = q->daddr; /* the VIP */
		ip6->daddr = q->saddr;
		icmp[0] = XS_ICMP6_PKT_TOOBIG;
		icmp[1] = 0;
		*(__be32 *)(icmp + 4) = bpf_htonl(mtu);
		/* The pseudo-header: addresses, length, next header. */
		a = (const __u32 *)&ip6->saddr;
		for (i = 0; i < 8; i++)
			seed += a[i];
		seed += bpf_htonl(XS_TOO_BIG_MSG) + bpf_htonl(IPPROTO_ICMPV6);
		seed = (seed & 0xffffffff) + (seed >> 32);
		seed = (seed & 0xffffffff) + (seed >> 32);
	}
	*(__u16 *)(icmp + 2) = 0;
	sum = bpf_csum_diff(NULL, 0, (__be32 *)icmp, XS_TOO_BIG_MSG, (__u32)seed);
	if (sum < 0)
		goto drop;
	*(__u16 *)(icmp + 2) = xs_csum_fold((__u32)sum);
	xs_count(XS_C_ICMP_TOO_BIG);
	return XDP_TX;
drop:
	xs_count(XS_C_TOO_BIG);
	return XDP_DROP;
}

#endif /* XS_ICMP_H */
