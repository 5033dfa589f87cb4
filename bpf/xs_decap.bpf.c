// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Backend side of xdpsteer's ipip delivery, for hosts without ipip/ip6tnl
 * devices: strip the outer IPv4 or IPv6 header of tunnel packets addressed
 * to this host and pass the inner packet to the stack, as if it had arrived
 * unencapsulated. Everything else passes untouched. Every verdict is counted.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xs_decap.h"

#define XS_VLAN_MAX 2

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

static __always_inline int xs_pass(__u32 counter)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&xs_decap_counters, &zero);

	if (c && counter < XS_D_MAX)
		c[counter] += 1;
	return XDP_PASS;
}

SEC("xdp")
int xdpsteer_decap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct xs_decap_addr dst = {};
	struct ethhdr *eth = data;
	__u32 l2 = sizeof(*eth), outer, counter, i;
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
		if (ip->protocol != IPPROTO_IPIP && ip->protocol != IPPROTO_IPV6)
			return xs_pass(XS_D_NOT_TUNNEL);
		if (ip->ihl < 5)
			return xs_pass(XS_D_MALFORMED);
		/* xdpsteer never sends 6in4; leave it to a kernel sit device. */
		if (ip->protocol != IPPROTO_IPIP)
			return xs_pass(XS_D_NOT_TUNNEL);
		if (ip->frag_off & bpf_htons(0x3fff))
			return xs_pass(XS_D_FRAGMENT);
		outer = ip->ihl * 4;
		XS_W32(dst.addr, 2) = bpf_htonl(0xffff);
		XS_W32(dst.addr, 3) = ip->daddr;
		next = ip->protocol;
		counter = XS_D_IPIP;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = data + l2;

		if ((void *)(ip6 + 1) > data_end)
			return xs_pass(XS_D_MALFORMED);
		if (ip6->nexthdr != IPPROTO_IPIP && ip6->nexthdr != IPPROTO_IPV6)
			return xs_pass(XS_D_NOT_TUNNEL);
		outer = sizeof(*ip6);
		__builtin_memcpy(dst.addr, &ip6->daddr, 16);
		next = ip6->nexthdr;
		counter = next == IPPROTO_IPIP ? XS_D_4IN6 : XS_D_6IN6;
	} else {
		return xs_pass(XS_D_NOT_TUNNEL);
	}
	if (!bpf_map_lookup_elem(&xs_decap_addrs, &dst))
		return xs_pass(XS_D_NOT_LOCAL);
	inner = next == IPPROTO_IPIP ? bpf_htons(ETH_P_IP) : bpf_htons(ETH_P_IPV6);

	/* Slide the MACs and tags forward over the outer header, then drop it. */
	if (l2 + outer > 14 + 8 + 60)
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
