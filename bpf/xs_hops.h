/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Second chance, the backend's half (bpf/xs_decap.bpf.c): a GUE packet with
 * a hop list (include/xs_gue.h) that is not at its last hop is delivered
 * here only if this host holds its TCP connection, or it opens one (a SYN);
 * else it is sent on to the next hop, its outer destination and `next`
 * changed and nothing else. The last hop delivers whatever comes, so no
 * packet is sent on twice. bpf_skc_lookup_tcp() finds established, request
 * (SYN received) and TIME_WAIT sockets; a listener alone is no connection.
 */
#ifndef XS_HOPS_H
#define XS_HOPS_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xs_csum.h"
#include "xs_decap.h"
#include "xs_gue.h"

#ifndef AF_INET
#define AF_INET 2
#endif
#ifndef AF_INET6
#define AF_INET6 10
#endif

/* What xs_hops_check() decided. */
enum xs_hop_verdict {
	XS_HOP_DELIVER = 0,  /* decapsulate and deliver here */
	XS_HOP_SEND_ON,      /* the outer header now names the next hop: send it */
	XS_HOP_PASS,         /* a hop list that does not parse: pass untouched */
};

/*
 * Does this host hold the TCP connection of the inner packet at @inner (of
 * ethertype @proto)? 1 yes or a SYN (it opens one here), 0 no, -1 not TCP.
 */
static __always_inline int xs_hops_local(struct xdp_md *ctx, void *inner, void *data_end,
					 __be16 proto)
{
	struct bpf_sock_tuple tuple = {};
	struct bpf_sock *sk;
	struct tcphdr *tcp;
	__u32 len;

	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = inner;

		if ((void *)(ip + 1) > data_end)
			return -1;
		if (ip->protocol != IPPROTO_TCP || (ip->frag_off & bpf_htons(0x1fff)))
			return -1;
		tcp = inner + ((ip->ihl * 4) & 0x3c);
		tuple.ipv4.saddr = ip->saddr;
		tuple.ipv4.daddr = ip->daddr;
		len = sizeof(tuple.ipv4);
	} else {
		struct ipv6hdr *ip6 = inner;

		if ((void *)(ip6 + 1) > data_end)
			return -1;
		/* Extension headers: not TCP as far as this check goes. */
		if (ip6->nexthdr != IPPROTO_TCP)
			return -1;
		tcp = (void *)(ip6 + 1);
		__builtin_memcpy(tuple.ipv6.saddr, &ip6->saddr, 16);
		__builtin_memcpy(tuple.ipv6.daddr, &ip6->daddr, 16);
		len = sizeof(tuple.ipv6);
	}
	if ((void *)(tcp + 1) > data_end)
		return -1;
	if (tcp->syn && !tcp->ack)
		return 1;
	if (proto == bpf_htons(ETH_P_IP)) {
		tuple.ipv4.sport = tcp->source;
		tuple.ipv4.dport = tcp->dest;
	} else {
		tuple.ipv6.sport = tcp->source;
		tuple.ipv6.dport = tcp->dest;
	}
	sk = (struct bpf_sock *)bpf_skc_lookup_tcp(ctx, &tuple, len, BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return 0;
	len = sk->state;
	bpf_sk_release(sk);
	return len != BPF_TCP_LISTEN;
}

/*
 * The hop list at @hops (@hlen bytes of GUE private data) of a packet whose
 * outer header is @outer_ip (IPv4 if @v4) and whose inner packet, of
 * ethertype @inner_proto, is at @inner. XS_HOP_SEND_ON leaves the outer
 * header addressed to the next hop; *counter is the verdict's counter.
 */
static __always_inline int xs_hops_check(struct xdp_md *ctx, void *outer_ip, int v4,
					 struct xs_gue_hops *hops, __u32 hlen, void *inner,
					 __be16 inner_proto, __u32 *counter)
{
	void *data_end = (void *)(long)ctx->data_end;
	__u32 asize = v4 ? 4 : 16, last;
	int local;
	__be32 *addr = (void *)(hops + 1);

	*counter = XS_D_MALFORMED;
	if ((void *)(hops + 1) > data_end)
		return XS_HOP_PASS;
	if (hops->kind != XS_GUE_PRIV_HOPS) {
		*counter = XS_D_MAX; /* private data of another kind: plain GUE */
		return XS_HOP_DELIVER;
	}
	if (hops->family != (v4 ? 4 : 6) || hops->n_hops < 2 || hops->n_hops > XS_GUE_MAX_HOPS ||
	    hops->next >= hops->n_hops || hlen != sizeof(*hops) + hops->n_hops * asize)
		return XS_HOP_PASS;
	last = hops->next == hops->n_hops - 1;
	local = xs_hops_local(ctx, inner, data_end, inner_proto);
	if (last) {
		*counter = local == 0 ? XS_D_LAST_HOP_NO_SOCKET : XS_D_LAST_HOP;
		return XS_HOP_DELIVER;
	}
	if (local) {
		*counter = local > 0 ? XS_D_HOP_LOCAL : XS_D_HOP_NOT_TCP;
		return XS_HOP_DELIVER;
	}
	/* Only next 0 of two hops gets here: the next hop is the last. */
	if (v4) {
		struct iphdr *ip = outer_ip;

		if ((void *)(ip + 1) > data_end || (void *)(addr + 2) > data_end || ip->ihl != 5)
			return XS_HOP_PASS;
		ip->daddr = addr[1];
		ip->ttl = 64;
		xs_ip4_csum(ip); /* the header is 20 bytes: checked above */
	} else {
		struct ipv6hdr *ip6 = outer_ip;

		if ((void *)(ip6 + 1) > data_end || (void *)(addr + 8) > data_end)
			return XS_HOP_PASS;
		__builtin_memcpy(&ip6->daddr, addr + 4, 16);
		ip6->hop_limit = 64;
	}
	hops->next = 1;
	*counter = XS_D_HOP_FORWARD;
	return XS_HOP_SEND_ON;
}

/*
 * Send the frame, its outer header now addressed to the next hop, the way
 * the route says: XDP_TX or a redirect with the neighbour's MAC, else up to
 * the stack, which routes it (the backend forwards) and resolves the
 * neighbour. The outer source stays the load balancer's: a source of this
 * host's own would be a martian to the stack.
 */
static __always_inline int xs_hops_send(struct xdp_md *ctx, __u32 l2, int v4, __u32 *counter)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;
	int rc;

	/* VLAN tags: only the stack knows the device and the tag to send with. */
	if ((void *)(eth + 1) > data_end || l2 != sizeof(*eth)) {
		*counter = XS_D_HOP_FORWARD_STACK;
		return XDP_PASS;
	}
	fib.ifindex = ctx->ingress_ifindex;
	fib.l4_protocol = IPPROTO_UDP;
	if (v4) {
		struct iphdr *ip = data + sizeof(*eth);

		if ((void *)(ip + 1) > data_end)
			return XDP_PASS;
		fib.family = AF_INET;
		fib.tos = ip->tos;
		fib.tot_len = bpf_ntohs(ip->tot_len);
		fib.ipv4_src = ip->saddr;
		fib.ipv4_dst = ip->daddr;
	} else {
		struct ipv6hdr *ip6 = data + sizeof(*eth);

		if ((void *)(ip6 + 1) > data_end)
			return XDP_PASS;
		fib.family = AF_INET6;
		fib.tot_len = bpf_ntohs(ip6->payload_len) + sizeof(*ip6);
		__builtin_memcpy(fib.ipv6_src, &ip6->saddr, 16);
		__builtin_memcpy(fib.ipv6_dst, &ip6->daddr, 16);
	}
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS) {
		*counter = XS_D_HOP_FORWARD_STACK;
		return XDP_PASS;
	}
	__builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
	__builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
	if (fib.ifindex == ctx->ingress_ifindex)
		return XDP_TX;
	return bpf_redirect(fib.ifindex, 0);
}

#endif /* XS_HOPS_H */
