/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Encapsulation in place: the outer IPv4 (IPIP) or IPv6 (IP6IP6,
 * IPv4-in-IPv6) header, or that header with UDP and GUE after it (gue), and
 * the MACs a recipe (struct xs_recipe) says; and the outer part of a recipe:
 * what the service and the backend say.
 */
#ifndef XS_ENCAP_H
#define XS_ENCAP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "xdpsteer.h"
#include "xs_config.h"
#include "xs_count.h"
#include "xs_csum.h"
#include "xs_gue.h"
#include "xs_parse.h"

#define XS_OUTER_TTL 64

/* Second chance: the second hop of a GUE hop list (bpf/xs_chance.h). */
struct xs_hop {
	__be32 addr[4];      /* of the first hop's family; IPv4 in addr[3], as xs_target stores it */
};

/* The outer IP header's size for a @family backend. */
static __always_inline __u32 xs_outer_ip_len(__u8 family)
{
	return family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
}

/* The hop list's bytes in a GUE header for a @family backend: none without a second hop. */
static __always_inline __u32 xs_hops_len(const struct xs_hop *hop, __u8 family)
{
	if (!hop)
		return 0;
	return family == 4 ? XS_GUE_HOPS4_LEN : XS_GUE_HOPS6_LEN;
}

/*
 * Bytes @encap puts ahead of the inner packet for a @family backend, with
 * @hop's hop list (gue only; l2: none is used).
 */
static __always_inline __u32 xs_outer_len(__u8 encap, __u8 family, const struct xs_hop *hop)
{
	if (encap != XS_ENCAP_GUE)
		return xs_outer_ip_len(family);
	return xs_outer_ip_len(family) + XS_GUE_OVERHEAD + xs_hops_len(hop, family);
}

/*
 * Write the outer IPv4 header (protocol @proto, TTL 64, no options) as five 32-bit
 * words, with the checksum summed from the values in registers: writing
 * bytes and reading them back as 16-bit words for the checksum stalls on
 * store forwarding. The words are packed little-endian, like the flow key:
 * xdpsteer builds for little-endian targets only (include/xs_hash.h).
 */
static __always_inline void xs_ip4_outer(struct iphdr *ip, __u8 tos, __u16 tot_len, __be32 saddr,
					 __be32 daddr, __u8 proto)
{
	__u32 *w = (__u32 *)ip;
	__u16 len = bpf_htons(tot_len);
	__u16 ttl_proto = bpf_htons((XS_OUTER_TTL << 8) | proto);
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

/*
 * UDP and GUE after the outer IP header, for an inner packet of @inner_family
 * and @ip_len bytes, with @hlen words of private data (the hop list) between. The source port is the flow's (xs_gue.h), from the same
 * hash bits as the IPv6 flow label. The UDP checksum is zero: over IPv4 it
 * is optional; over IPv6 RFC 6935 and RFC 6936 allow it for a tunnel whose
 * inner packets carry their own checksums, and the receiver is xdpsteer's
 * decap program, which accepts it (docs/design.md, "GUE").
 */
static __always_inline void xs_gue_outer(struct udphdr *udp, __u32 label, __u8 inner_family,
					 __u16 ip_len, __u8 hlen)
{
	struct xs_gue_hdr *gue = (void *)(udp + 1);

	udp->source = bpf_htons(XS_GUE_SPORT_BASE | (label & XS_GUE_SPORT_MASK));
	udp->dest = bpf_htons(cfg_gue_port);
	udp->len = bpf_htons(ip_len + XS_GUE_OVERHEAD + hlen * 4);
	udp->check = 0;
	gue->ver_c_hlen = hlen; /* version 0, data, no optional fields: Hlen is private data */
	gue->proto = inner_family == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
	gue->flags = 0;
}

/* The outer source: the service's prefix with its low bits from the flow hash,
 * so each flow has its own outer source and the backend's NIC RSS spreads them. */
static __always_inline __be32 xs_outer_src4(const struct xs_service *svc, __u32 flow_hash)
{
	__u32 mask = svc->src4_bits >= 32 ? ~0U : (1U << svc->src4_bits) - 1;

	return XS_W32C(svc->src4, 0) | bpf_htonl(flow_hash & mask);
}

static __always_inline void xs_outer_src6(const struct xs_service *svc, __u32 flow_hash,
					  __u8 *src)
{
	__u32 mask = svc->src6_bits >= 32 ? ~0U : (1U << svc->src6_bits) - 1;

	XS_W32(src, 0) = XS_W32C(svc->src6, 0);
	XS_W32(src, 1) = XS_W32C(svc->src6, 1);
	XS_W32(src, 2) = XS_W32C(svc->src6, 2);
	XS_W32(src, 3) = XS_W32C(svc->src6, 3) | bpf_htonl(flow_hash & mask);
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
	if (be->family == XS_FAMILY_IPV4) {
		XS_W32(r->saddr, 0) = xs_outer_src4(svc, flow_hash);
		XS_W32(r->daddr, 0) = XS_W32C(be->addr, 3);
	} else {
		xs_outer_src6(svc, flow_hash, r->saddr);
		__builtin_memcpy(r->daddr, be->addr, 16);
	}
}

/*
 * The two-hop list after the GUE header at @at: the first hop is where the
 * packet goes now (@first), the second @hop. 0, or -1 if the frame is short.
 */
static __always_inline int xs_hops4_write(void *at, void *data_end, __be32 first,
					  const struct xs_hop *hop)
{
	struct xs_gue_hops *h = at;
	__be32 *a = (void *)(h + 1);

	if ((void *)(a + 2) > data_end)
		return -1;
	h->kind = XS_GUE_PRIV_HOPS;
	h->family = 4;
	h->n_hops = 2;
	h->next = 0;
	a[0] = first;
	a[1] = hop->addr[3];
	return 0;
}

static __always_inline int xs_hops6_write(void *at, void *data_end, const void *first,
					  const struct xs_hop *hop)
{
	struct xs_gue_hops *h = at;
	__be32 *a = (void *)(h + 1);

	if ((void *)(a + 8) > data_end)
		return -1;
	h->kind = XS_GUE_PRIV_HOPS;
	h->family = 6;
	h->n_hops = 2;
	h->next = 0;
	__builtin_memcpy(a, first, 16);
	__builtin_memcpy(a + 4, hop->addr, 16);
	return 0;
}

/*
 * Encapsulate in place as @r says. The frame is [eth][vlan tags][IP...]; it
 * becomes [eth][outer IP][IP...], or [eth][outer IP][UDP][GUE][IP...] for
 * gue, with @hop's hop list after GUE if @hop: VLAN tags are not carried
 * into the tunnel. 0 when done, else the verdict for a frame that could not
 * be encapsulated (never 0: that is XDP_ABORTED).
 */
static __always_inline int xs_encap(struct xdp_md *ctx, const struct xs_parsed *p,
				    const struct xs_recipe *r, const struct xs_hop *hop)
{
	__u32 outer = xs_outer_len(r->encap, r->family, hop);
	__u32 hlen = xs_hops_len(hop, r->family) / 4;
	int delta = (int)outer - ((int)p->l3_off - (int)sizeof(struct ethhdr));
	void *data, *data_end;
	struct ethhdr *eth;
	struct udphdr *udp;

	if (bpf_xdp_adjust_head(ctx, -delta)) {
		xs_count(XS_C_ENCAP_ERR);
		return XDP_PASS;
	}
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	/*
	 * Cannot fail: the frame now holds Ethernet, the outer headers and an
	 * IP packet of at least 20 bytes, so at least an IPv6 header's worth
	 * and, for gue, UDP and GUE besides. One check covers either outer IP
	 * header; gue checks its own room.
	 */
	if ((void *)(eth + 1) + sizeof(struct ipv6hdr) > data_end) {
		xs_count(XS_C_ENCAP_ERR);
		return XDP_DROP;
	}
	xs_set_macs(eth, r->dmac);
	if (r->family == XS_FAMILY_IPV4) {
		struct iphdr *ip = (void *)(eth + 1);
		__u8 proto = IPPROTO_IPIP;

		if (r->encap == XS_ENCAP_GUE) {
			udp = (void *)(ip + 1);
			if ((void *)udp + XS_GUE_OVERHEAD > data_end) {
				xs_count(XS_C_ENCAP_ERR);
				return XDP_DROP;
			}
			if (hop && xs_hops4_write((void *)udp + XS_GUE_OVERHEAD, data_end,
						  XS_W32C(r->daddr, 0), hop)) {
				xs_count(XS_C_ENCAP_ERR);
				return XDP_DROP;
			}
			xs_gue_outer(udp, r->label, p->family, p->ip_len, hlen);
			proto = IPPROTO_UDP;
		}
		eth->h_proto = bpf_htons(ETH_P_IP);
		xs_ip4_outer(ip, p->tos, p->ip_len + outer, XS_W32C(r->saddr, 0),
			     XS_W32C(r->daddr, 0), proto);
	} else {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		__u32 label = r->label;

		ip6->nexthdr = p->family == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
		if (r->encap == XS_ENCAP_GUE) {
			udp = (void *)(ip6 + 1);
			if ((void *)udp + XS_GUE_OVERHEAD > data_end) {
				xs_count(XS_C_ENCAP_ERR);
				return XDP_DROP;
			}
			if (hop && xs_hops6_write((void *)udp + XS_GUE_OVERHEAD, data_end,
						  r->daddr, hop)) {
				xs_count(XS_C_ENCAP_ERR);
				return XDP_DROP;
			}
			xs_gue_outer(udp, label, p->family, p->ip_len, hlen);
			ip6->nexthdr = IPPROTO_UDP;
		}
		eth->h_proto = bpf_htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->priority = p->tos >> 4;
		/* The flow label is per flow too, for ECMP and RSS on IPv6. */
		ip6->flow_lbl[0] = (__u8)(((p->tos & 0xf) << 4) | (label >> 16));
		ip6->flow_lbl[1] = (__u8)(label >> 8);
		ip6->flow_lbl[2] = (__u8)label;
		ip6->payload_len = bpf_htons(p->ip_len + outer - sizeof(*ip6));
		ip6->hop_limit = XS_OUTER_TTL;
		__builtin_memcpy(&ip6->saddr, r->saddr, 16);
		__builtin_memcpy(&ip6->daddr, r->daddr, 16);
	}
	return 0;
}

#endif /* XS_ENCAP_H */
