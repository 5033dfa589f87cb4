/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Delivery to a backend IP: IPIP / IP6IP6 / IPv4-in-IPv6 encapsulation or an
 * L2 (destination MAC) rewrite, the next hop from bpf_fib_lookup(), and the
 * way out (XDP_TX on the ingress interface, a devmap redirect otherwise).
 * Also the ICMP echo reply the load balancer gives for its VIPs.
 */
#ifndef XS_LB_H
#define XS_LB_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xs_maps.h"
#include "xs_parse.h"

#define XS_AF_INET 2
#define XS_AF_INET6 10
#define XS_OUTER_TTL 64

static __always_inline void xs_count(__u32 counter);

static __always_inline __u16 xs_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static __always_inline void xs_ip4_csum(struct iphdr *ip)
{
	__u16 *w = (__u16 *)ip;
	__u32 sum = 0;
	int i;

	ip->check = 0;
#pragma unroll
	for (i = 0; i < (int)(sizeof(*ip) / 2); i++)
		sum += w[i];
	ip->check = xs_csum_fold(sum);
}

/*
 * Write the outer IPv4 header (IPIP, TTL 64, no options) as five 32-bit
 * words, with the checksum summed from the values in registers: writing
 * bytes and reading them back as 16-bit words for the checksum stalls on
 * store forwarding. The words are packed little-endian, like the flow key:
 * xdpsteer builds for x86 only.
 */
static __always_inline void xs_ip4_outer(struct iphdr *ip, __u8 tos, __u16 tot_len, __be32 saddr,
					 __be32 daddr)
{
	__u32 *w = (__u32 *)ip;
	__u16 len = bpf_htons(tot_len);
	__u16 ttl_proto = bpf_htons((XS_OUTER_TTL << 8) | IPPROTO_IPIP);
	__u16 ver_tos = bpf_htons((0x45 << 8) | tos);
	__u32 sum;

	/* The same 16-bit words a reader of the header sees, in memory order. */
	sum = ver_tos + len + ttl_proto + (saddr & 0xffff) + (saddr >> 16) + (daddr & 0xffff) +
	      (daddr >> 16);
	w[0] = (__u32)ver_tos | ((__u32)len << 16);
	w[1] = 0; /* id, frag_off */
	w[2] = (__u32)ttl_proto | ((__u32)xs_csum_fold(sum) << 16);
	w[3] = saddr;
	w[4] = daddr;
}

/* The outer source: the service's prefix with its low bits from the flow hash,
 * so each flow has its own outer source and the backend's NIC RSS spreads them. */
static __always_inline __be32 xs_outer_src4(const struct xs_service *svc, __u32 flow_hash)
{
	__u32 mask = svc->src4_bits >= 32 ? ~0U : (1U << svc->src4_bits) - 1;

	return svc->src4 | bpf_htonl(flow_hash & mask);
}

static __always_inline void xs_outer_src6(const struct xs_service *svc, __u32 flow_hash,
					  __be32 *src)
{
	__u32 mask = svc->src6_bits >= 32 ? ~0U : (1U << svc->src6_bits) - 1;

	src[0] = svc->src6[0];
	src[1] = svc->src6[1];
	src[2] = svc->src6[2];
	src[3] = svc->src6[3] | bpf_htonl(flow_hash & mask);
}

/*
 * Destination and source MAC, as three 32-bit words: a byte-wise copy (what
 * memcpy into a packet of unknown alignment becomes) is 24 instructions on
 * every packet. @mac is word-aligned: a recipe or a next hop.
 */
static __always_inline void xs_set_macs(struct ethhdr *eth, const __u8 *mac)
{
	const __u32 *w = (const __u32 *)mac;
	__u32 *hdr = (__u32 *)eth;

	hdr[0] = w[0];
	hdr[1] = w[1];
	hdr[2] = w[2];
}

_Static_assert(__builtin_offsetof(struct xs_nexthop, dmac) == 0 &&
		       __builtin_offsetof(struct xs_nexthop, smac) == ETH_ALEN &&
		       __builtin_offsetof(struct xs_recipe, dmac) == 0 &&
		       __builtin_offsetof(struct xs_recipe, smac) == ETH_ALEN,
	       "next hops and recipes start with the MACs in header order");

/* Everything but the MACs and the way out: what the service and the backend say. */
static __always_inline void xs_recipe_outer(struct xs_recipe *r, const struct xs_service *svc,
					    const struct xs_target *be, __u32 flow_hash)
{
	r->encap = svc->encap;
	r->family = be->family;
	r->label = (flow_hash >> 12) & 0xfffff;
	if (be->family == 4) {
		r->saddr[0] = xs_outer_src4(svc, flow_hash);
		r->daddr[0] = be->addr[3];
	} else {
		xs_outer_src6(svc, flow_hash, r->saddr);
		__builtin_memcpy(r->daddr, be->addr, 16);
	}
}

/* The recipe for a flow of @flow_hash to backend @be of @svc through @nh. */
static __always_inline void xs_recipe_make(struct xs_recipe *r, const struct xs_service *svc,
					   const struct xs_target *be, const struct xs_nexthop *nh,
					   __u32 flow_hash)
{
	__builtin_memcpy(r->dmac, nh->dmac, 2 * ETH_ALEN);
	r->ifindex = nh->ifindex;
	r->mtu = nh->mtu;
	xs_recipe_outer(r, svc, be, flow_hash);
}

/* A FIB query for @be arriving on the ingress interface; @tot_len > 0 asks for the MTU. */
static __always_inline void xs_fib_query(struct xdp_md *ctx, const struct xs_target *be,
					 __u16 tot_len, struct bpf_fib_lookup *fib)
{
	__builtin_memset(fib, 0, sizeof(*fib));
	fib->ifindex = ctx->ingress_ifindex;
	fib->tot_len = tot_len;
	if (be->family == 4) {
		fib->family = XS_AF_INET;
		fib->ipv4_dst = be->addr[3];
	} else {
		fib->family = XS_AF_INET6;
		__builtin_memcpy(fib->ipv6_dst, be->addr, 16);
	}
}

/*
 * Next hop towards backend @id: from this CPU's cache while it is fresh,
 * else from bpf_fib_lookup() (two lookups: one for the MACs, one that
 * reports the route MTU). Returns the BPF_FIB_LKUP_RET_* code; on success
 * *nh points at the cached entry. Failures are not cached.
 */
static __always_inline int xs_nexthop(struct xdp_md *ctx, const struct xs_target *be, __u32 id,
				      int hot, struct xs_nexthop **nh)
{
	struct bpf_fib_lookup fib;
	struct xs_nexthop *c;
	__u32 row;
	__u64 now;
	int rc;

	if (id >= XS_MAX_TARGETS)
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	row = xs_cpu_row(XS_MAX_TARGETS, id);
	c = bpf_map_lookup_elem(&xs_nexthops, &row);
	if (!c)
		return BPF_FIB_LKUP_RET_NOT_FWDED;
	*nh = c;
	/* A hot packet (a flow-cache hit) does not check the entry's age: its
	 * flow leaves the cache for the slow path at least every refresh
	 * interval (cfg_timeouts.refresh, at most 1 s), which checks it. */
	if (hot && c->uid == be->uid && c->expires)
		return BPF_FIB_LKUP_RET_SUCCESS;
	now = bpf_ktime_get_coarse_ns();
	if (c->uid == be->uid && now < c->expires)
		return BPF_FIB_LKUP_RET_SUCCESS;

	xs_fib_query(ctx, be, 0, &fib);
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS)
		return rc;
	__builtin_memcpy(c->smac, fib.smac, ETH_ALEN);
	__builtin_memcpy(c->dmac, fib.dmac, ETH_ALEN);
	c->ifindex = fib.ifindex;

	/* Ask again with the largest length: the FIB answers with the route MTU. */
	xs_fib_query(ctx, be, 0xffff, &fib);
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	c->mtu = rc == BPF_FIB_LKUP_RET_FRAG_NEEDED ? fib.mtu_result : 0xffff;
	c->uid = be->uid;
	c->expires = now + XS_NEXTHOP_TTL_NS;
	return BPF_FIB_LKUP_RET_SUCCESS;
}

/* Out of the interface the route says: XDP_TX if it is where we came in. */
static __always_inline int xs_transmit(struct xdp_md *ctx, __u32 ifindex)
{
	int act;

	if (ifindex == ctx->ingress_ifindex) {
		xs_count(XS_C_TX);
		return XDP_TX;
	}
	act = bpf_redirect_map(&xs_tx_ports, ifindex, 0);
	if (act == XDP_REDIRECT) {
		xs_count(XS_C_TX_REDIRECT);
		return act;
	}
	/* Not in xs_tx_ports: the stack forwards what we built instead. */
	xs_count(XS_C_REDIRECT_ERR);
	return XDP_PASS;
}

/*
 * Encapsulate in place as @r says. The frame is [eth][vlan tags][IP...]; it
 * becomes [eth][outer IP][IP...]: VLAN tags are not carried into the tunnel.
 * 0 when done, else the verdict for a frame that could not be encapsulated
 * (never 0: that is XDP_ABORTED).
 */
static __always_inline int xs_encap(struct xdp_md *ctx, const struct xs_parsed *p,
				    const struct xs_recipe *r)
{
	__u32 outer = r->family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	int delta = (int)outer - ((int)p->l3_off - (int)sizeof(struct ethhdr));
	void *data, *data_end;
	struct ethhdr *eth;

	if (bpf_xdp_adjust_head(ctx, -delta)) {
		xs_count(XS_C_ENCAP_ERR);
		return XDP_PASS;
	}
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	xs_set_macs(eth, r->dmac);
	if (r->family == 4) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > data_end)
			return XDP_DROP;
		eth->h_proto = bpf_htons(ETH_P_IP);
		xs_ip4_outer(ip, p->tos, p->ip_len + sizeof(*ip), r->saddr[0], r->daddr[0]);
	} else {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		__u32 label = r->label;

		if ((void *)(ip6 + 1) > data_end)
			return XDP_DROP;
		eth->h_proto = bpf_htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->priority = p->tos >> 4;
		/* The flow label is per flow too, for ECMP and RSS on IPv6. */
		ip6->flow_lbl[0] = (__u8)(((p->tos & 0xf) << 4) | (label >> 16));
		ip6->flow_lbl[1] = (__u8)(label >> 8);
		ip6->flow_lbl[2] = (__u8)label;
		ip6->payload_len = bpf_htons(p->ip_len);
		ip6->nexthdr = p->family == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
		ip6->hop_limit = XS_OUTER_TTL;
		__builtin_memcpy(&ip6->saddr, r->saddr, 16);
		__builtin_memcpy(&ip6->daddr, r->daddr, 16);
	}
	return 0;
}

/*
 * Send as @r says: encapsulated (ipip) or with new MACs (l2, L2 direct server
 * return: the frame is unchanged but for its MACs).
 */
static __always_inline int xs_send(struct xdp_md *ctx, const struct xs_parsed *p,
				   const struct xs_recipe *r, struct xs_service_stats *ss)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	int rc;

	if (r->encap == XS_ENCAP_L2) {
		if ((void *)(eth + 1) > data_end)
			return XDP_PASS;
		xs_set_macs(eth, r->dmac);
		return xs_transmit(ctx, r->ifindex);
	}
	if (p->ip_len + (r->family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)) >
	    r->mtu) {
		/* Policy: count and drop. Never send it on oversized or cut. */
		if (ss)
			ss->too_big++;
		xs_count(XS_C_TOO_BIG);
		return XDP_DROP;
	}
	rc = xs_encap(ctx, p, r);
	return rc ? rc : xs_transmit(ctx, r->ifindex);
}

/*
 * No neighbour entry for the next hop yet. l2: nothing here can make the
 * kernel resolve the backend's MAC (that is why `backend add` installs a
 * managed neighbour entry), so the packet goes up unchanged until it
 * resolves. ipip: the tunnel packet goes up to be routed by the stack, which
 * resolves the neighbour; its MACs are the frame's own destination, so the
 * stack takes it as addressed to this host.
 */
static __always_inline int xs_send_no_neigh(struct xdp_md *ctx, const struct xs_parsed *p,
					    const struct xs_service *svc,
					    const struct xs_target *be, __u32 flow_hash)
{
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct xs_recipe r = {};
	int rc;

	if (svc->encap != XS_ENCAP_L2) {
		if ((void *)(eth + 1) > data_end)
			return XDP_PASS;
		__builtin_memcpy(r.dmac, eth->h_dest, ETH_ALEN);
		__builtin_memcpy(r.smac, eth->h_dest, ETH_ALEN);
		xs_recipe_outer(&r, svc, be, flow_hash);
		rc = xs_encap(ctx, p, &r);
		if (rc)
			return rc;
	}
	xs_count(XS_C_NO_NEIGH);
	return XDP_PASS;
}

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
		ip->ttl = XS_OUTER_TTL;
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
		ip6->hop_limit = XS_OUTER_TTL;
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

#endif /* XS_LB_H */
