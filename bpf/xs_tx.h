/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Sending to a backend: the recipe for a flow (struct xs_recipe: next hop,
 * then tunnel or L2 rewrite), sending as it says, and the way out (XDP_TX on
 * the ingress interface, a devmap redirect otherwise).
 */
#ifndef XS_TX_H
#define XS_TX_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_count.h"
#include "xs_config.h"
#include "xs_encap.h"
#include "xs_icmp.h"
#include "xs_maps.h"
#include "xs_parse.h"

/* The recipe for a flow of @flow_hash to backend @be of @svc through @nh. */
static __always_inline void xs_recipe_make(struct xs_recipe *r, const struct xs_service *svc,
					   const struct xs_target *be, const struct xs_nexthop *nh,
					   __u32 flow_hash)
{
	__builtin_memcpy(r->dmac, nh->dmac, 2 * ETH_ALEN);
	r->ifindex = nh->ifindex;
	r->mtu = nh->mtu;
	r->quic = svc->quic;
	xs_recipe_outer(r, svc, be, flow_hash);
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

/* Would @p exceed @mtu once it carries @outer bytes of outer headers? */
static __always_inline int xs_over_mtu(const struct xs_parsed *p, __u32 outer, __u16 mtu)
{
	return p->ip_len + outer > mtu;
}

/*
 * A packet that would not fit the route to its backend, of @mtu, once its
 * @outer bytes of headers are on: it
 * is never sent on, oversized or cut. By the attach's policy (cfg_too_big)
 * it is answered with ICMP carrying the MTU that fits, where a router would
 * answer (xs_too_big_global()), or dropped; counted too_big unless answered.
 */
static __always_inline int xs_send_too_big(struct xdp_md *ctx, const struct xs_parsed *p,
					   struct xs_service_stats *ss, __u32 outer, __u16 mtu)
{
	__u32 is_icmp = p->icmp != XS_ICMP_NONE || p->key.proto == IPPROTO_ICMP ||
			p->key.proto == IPPROTO_ICMPV6;

	if (ss)
		ss->too_big++;
	if (cfg_too_big == XS_TOO_BIG_DROP || mtu <= outer) {
		xs_count(XS_C_TOO_BIG);
		return XDP_DROP;
	}
	return xs_too_big_global(ctx, p->l3_off, p->family, mtu - outer, is_icmp);
}

/*
 * Send as @r says: encapsulated (ipip, gue, with @hop's hop list if @hop) or
 * with new MACs (l2, L2 direct server return: the frame is unchanged but for
 * its MACs).
 */
static __always_inline int xs_send(struct xdp_md *ctx, const struct xs_parsed *p,
				   const struct xs_recipe *r, struct xs_service_stats *ss,
				   const struct xs_hop *hop)
{
	__u32 outer;
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	int rc;

	if (r->encap == XS_ENCAP_L2) {
		if ((void *)(eth + 1) > data_end) {
			xs_count(XS_C_TRUNC_ETH); /* cannot happen: it was parsed */
			return XDP_PASS;
		}
		xs_set_macs(eth, r->dmac);
		return xs_transmit(ctx, r->ifindex);
	}
	outer = xs_outer_len(r->encap, r->family, hop);
	if (xs_over_mtu(p, outer, r->mtu))
		return xs_send_too_big(ctx, p, ss, outer, r->mtu);
	rc = xs_encap(ctx, p, r, hop);
	return rc ? rc : xs_transmit(ctx, r->ifindex);
}

/*
 * No neighbour entry for the next hop yet. l2: nothing here can make the
 * kernel resolve the backend's MAC (that is why `backend add` installs a
 * managed neighbour entry), so the packet goes up unchanged until it
 * resolves. ipip: the tunnel packet goes up to be routed by the stack, which
 * resolves the neighbour; its MACs are the frame's own destination, so the
 * stack takes it as addressed to this host. The MTU policy first, as on
 * every way to a backend: @mtu is the route's.
 */
static __always_inline int xs_send_no_neigh(struct xdp_md *ctx, const struct xs_parsed *p,
					    const struct xs_service *svc,
					    const struct xs_target *be, __u32 flow_hash,
					    __u16 mtu, struct xs_service_stats *ss,
					    const struct xs_hop *hop)
{
	__u32 outer = xs_outer_len(svc->encap, be->family, hop);
	void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct xs_recipe r = {};
	int rc;

	if (svc->encap != XS_ENCAP_L2) {
		if (xs_over_mtu(p, outer, mtu))
			return xs_send_too_big(ctx, p, ss, outer, mtu);
		if ((void *)(eth + 1) > data_end) {
			xs_count(XS_C_TRUNC_ETH); /* cannot happen: it was parsed */
			return XDP_PASS;
		}
		__builtin_memcpy(r.dmac, eth->h_dest, ETH_ALEN);
		__builtin_memcpy(r.smac, eth->h_dest, ETH_ALEN);
		xs_recipe_outer(&r, svc, be, flow_hash);
		rc = xs_encap(ctx, p, &r, hop);
		if (rc)
			return rc;
	}
	xs_count(XS_C_NO_NEIGH);
	return XDP_PASS;
}

#endif /* XS_TX_H */
