// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Backend side of xdpsteer's ipip and gue delivery, for hosts without
 * ipip/ip6tnl/fou devices: strip the outer IPv4 or IPv6 header (and, for GUE,
 * the UDP and GUE headers after it) of tunnel packets addressed to this host
 * and pass the inner packet to the stack, as if it had arrived
 * unencapsulated. Everything else passes untouched. Every verdict is counted.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xs_decap.h"
#include "xs_gue.h"
#include "xs_hops.h"

#define XS_VLAN_MAX 2

/* GUE's UDP destination port (decap attach --gue-port): the load balancers' --gue-port. */
const volatile __u16 cfg_gue_port = XS_DEFAULT_GUE_PORT;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct xs_decap_addr);
	__type(value, __u32);
} xs_decap_addrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_decap_counter_block);
} xs_decap_counters SEC(".maps");

static __always_inline void xs_decap_count(__u32 counter)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&xs_decap_counters, &zero);

	if (c && counter < XS_D_MAX)
		c[counter] += 1;
}

static __always_inline int xs_pass(__u32 counter)
{
	xs_decap_count(counter);
	return XDP_PASS;
}

/*
 * @udp (of an outer packet whose protocol is UDP) is GUE to our port: *len
 * becomes the UDP and GUE headers' length, *next the inner protocol. The
 * UDP checksum is not checked: xdpsteer sends zero (bpf/xs_encap.h), and
 * the inner packet carries its own. 0, or the counter of why not.
 */
static __always_inline __u32 xs_gue_parse(void *udp_start, void *data_end, __u32 *len, __u8 *next)
{
	struct udphdr *udp = udp_start;
	struct xs_gue_hdr *gue = (void *)(udp + 1);

	if ((void *)(gue + 1) > data_end)
		return XS_D_MALFORMED;
	if (udp->dest != bpf_htons(cfg_gue_port))
		return XS_D_NOT_TUNNEL;
	/* Version 0 data messages only; extension fields (Hlen) are skipped. */
	if (gue->ver_c_hlen & (XS_GUE_VER_MASK | XS_GUE_C_BIT))
		return XS_D_GUE_OTHER;
	if (gue->proto != IPPROTO_IPIP && gue->proto != IPPROTO_IPV6)
		return XS_D_GUE_OTHER;
	*len = XS_GUE_OVERHEAD + (gue->ver_c_hlen & XS_GUE_HLEN_MASK) * 4;
	*next = gue->proto;
	return 0;
}

SEC("xdp")
int xdpsteer_decap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct xs_decap_addr dst = {};
	struct ethhdr *eth = data;
	__u32 l2 = sizeof(*eth), outer, counter, i, gue_len = 0, why;
	__be16 proto, inner;
	__u8 next;

	if ((void *)(eth + 1) > data_end)
		return xs_pass(XS_D_MALFORMED);
	proto = eth->h_proto;
	for (i = 0; i < XS_VLAN_MAX; i++) {
		__be16 *tag = data + l2;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(tag + 2) > data_end)
			return xs_pass(XS_D_MALFORMED);
		proto = tag[1];
		l2 += 4;
	}

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + l2;

		if ((void *)(ip + 1) > data_end)
			return xs_pass(XS_D_MALFORMED);
		if (ip->protocol != IPPROTO_IPIP && ip->protocol != IPPROTO_IPV6 &&
		    ip->protocol != IPPROTO_UDP)
			return xs_pass(XS_D_NOT_TUNNEL);
		if (ip->ihl < 5)
			return xs_pass(XS_D_MALFORMED);
		/* xdpsteer never sends 6in4; leave it to a kernel sit device. */
		if (ip->protocol == IPPROTO_IPV6)
			return xs_pass(XS_D_NOT_TUNNEL);
		if (ip->frag_off & bpf_htons(0x3fff))
			return xs_pass(XS_D_FRAGMENT);
		outer = ip->ihl * 4;
		next = ip->protocol;
		counter = XS_D_IPIP;
		if (next == IPPROTO_UDP) {
			why = xs_gue_parse((void *)ip + (outer & 0x3c), data_end, &gue_len, &next);
			if (why)
				return xs_pass(why);
			counter = XS_D_GUE;
		}
		XS_W32(dst.addr, 2) = bpf_htonl(0xffff);
		XS_W32(dst.addr, 3) = ip->daddr;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = data + l2;

		if ((void *)(ip6 + 1) > data_end)
			return xs_pass(XS_D_MALFORMED);
		if (ip6->nexthdr != IPPROTO_IPIP && ip6->nexthdr != IPPROTO_IPV6 &&
		    ip6->nexthdr != IPPROTO_UDP)
			return xs_pass(XS_D_NOT_TUNNEL);
		outer = sizeof(*ip6);
		__builtin_memcpy(dst.addr, &ip6->daddr, 16);
		next = ip6->nexthdr;
		counter = next == IPPROTO_IPIP ? XS_D_4IN6 : XS_D_6IN6;
		if (next == IPPROTO_UDP) {
			why = xs_gue_parse(ip6 + 1, data_end, &gue_len, &next);
			if (why)
				return xs_pass(why);
			counter = XS_D_GUE;
		}
	} else {
		return xs_pass(XS_D_NOT_TUNNEL);
	}
	if (!bpf_map_lookup_elem(&xs_decap_addrs, &dst))
		return xs_pass(XS_D_NOT_LOCAL);
	inner = next == IPPROTO_IPIP ? bpf_htons(ETH_P_IP) : bpf_htons(ETH_P_IPV6);
	if (gue_len > XS_GUE_OVERHEAD) {
		/* Private data: a hop list says whether this host is where the packet ends. */
		void *ip_start = data + (l2 & 0x1f), *at = ip_start + (outer & 0x3c);
		int v4 = proto == bpf_htons(ETH_P_IP), verdict;
		__u32 hop_counter;

		verdict = xs_hops_check(ctx, ip_start, v4, at + XS_GUE_OVERHEAD,
					gue_len - XS_GUE_OVERHEAD, at + (gue_len & 0xff), inner,
					&hop_counter);
		if (verdict == XS_HOP_PASS)
			return xs_pass(XS_D_MALFORMED);
		if (verdict == XS_HOP_SEND_ON) {
			verdict = xs_hops_send(ctx, l2, v4, &hop_counter);
			xs_decap_count(hop_counter);
			return verdict;
		}
		if (hop_counter < XS_D_MAX)
			xs_decap_count(hop_counter);
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
	}
	outer += gue_len;

	/* Slide the MACs and tags forward over the outer headers, then drop them. */
	if (l2 + outer > 14 + 8 + 60 + XS_GUE_OVERHEAD + 4 * XS_GUE_HLEN_MASK)
		return xs_pass(XS_D_MALFORMED);
	{
		unsigned char hdr[14 + 4 * XS_VLAN_MAX];
		__u32 n = l2 & 0x1f;

		if (n > sizeof(hdr) || data + n > data_end)
			return xs_pass(XS_D_MALFORMED);
		__builtin_memcpy(hdr, data, 12);
		if (n > 14)
			__builtin_memcpy(hdr + 12, data + 12, 4);
		if (n > 18)
			__builtin_memcpy(hdr + 16, data + 16, 4);
		if (bpf_xdp_adjust_head(ctx, (int)outer))
			return xs_pass(XS_D_ERROR);
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
		if (data + sizeof(hdr) > data_end)
			return xs_pass(XS_D_MALFORMED);
		__builtin_memcpy(data, hdr, 12);
		if (n > 14)
			__builtin_memcpy(data + 12, hdr + 12, 4);
		if (n > 18)
			__builtin_memcpy(data + 16, hdr + 16, 4);
		*(__be16 *)(data + ((n - 2) & 0x1f)) = inner;
	}
	return xs_pass(counter);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
