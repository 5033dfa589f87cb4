/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Services (VIP, port, protocol): the one a packet is for, in the live
 * generation, and delivery to the backend its flow is pinned to, the long
 * way (next hop, recipe) or by the recipe the flow cache holds.
 */
#ifndef XS_SERVICE_H
#define XS_SERVICE_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_chance.h"
#include "xs_count.h"
#include "xs_flow.h"
#include "xs_icmp.h"
#include "xs_maps.h"
#include "xs_nexthop.h"
#include "xs_parse.h"
#include "xs_tx.h"

/*
 * Service @key's live generation (@pool_base), or NULL: xs_services names
 * services of both generations while a change is being made.
 */
static __always_inline const struct xs_service *xs_service_live(const struct xs_service_key *key,
								__u32 pool_base)
{
	const struct xs_service *named = bpf_map_lookup_elem(&xs_services, key), *svc;
	__u32 slot;

	if (!named)
		return NULL;
	slot = pool_base + named->id;
	svc = bpf_map_lookup_elem(&xs_service_by_id, &slot);
	return svc && svc->id == named->id ? svc : NULL;
}

/*
 * The service @p is for, if any. Echo requests to a VIP are answered here
 * (*verdict set); anything else that is not for a VIP returns NULL.
 */
static __always_inline const struct xs_service *xs_find_service(struct xdp_md *ctx,
								const struct xs_parsed *p,
								__u32 pool_base, int *verdict)
{
	struct xs_service_key sk = {};
	const struct xs_service *svc;

	*verdict = -1;
	__builtin_memcpy(sk.vip, p->key.dst, sizeof(sk.vip));
	if (p->icmp == XS_ICMP_ECHO) {
		if (bpf_map_lookup_elem(&xs_vips, &sk))
			*verdict = xs_echo_reply(ctx, p);
		return NULL;
	}
	sk.port = p->key.dport;
	sk.proto = p->key.proto;
	svc = xs_service_live(&sk, pool_base);
	if (!svc) {
		sk.port = 0; /* the VIP's any-port service */
		svc = xs_service_live(&sk, pool_base);
	}
	if (svc && p->icmp == XS_ICMP_ERROR)
		xs_count(XS_C_ICMP_ERROR);
	return svc;
}

/*
 * Deliver to a service backend found the long way: counters, the next hop,
 * then tunnel or L2 rewrite. The recipe made on the way goes into the flow's
 * cache entry when @cached holds this very pin, so that its next packets need
 * none of these lookups (xs_deliver_cached()). A flow with a second hop
 * (second chance, within its window) keeps going this way: the recipe does
 * not hold the hop list, and the window ends on no packet's account.
 */
static __always_inline int xs_deliver_backend(struct xdp_md *ctx, const struct xs_parsed *p,
					      const struct xs_service *svc,
					      const struct xs_target *t,
					      const struct xs_flow_pin *pin, int hot,
					      struct xs_flow_cache_entry *cached, __u32 epoch)
{
	struct xs_service_stats *ss;
	struct xs_nexthop *nh = NULL;
	const struct xs_hop *hop;
	struct xs_recipe r = {};
	__u32 id = svc->id;
	__u16 mtu = 0;
	int rc;

	if (!t || t->kind != XS_TARGET_BACKEND) {
		ss = bpf_map_lookup_elem(&xs_service_stats, &id);
		if (ss)
			ss->no_backend++;
		xs_count(XS_C_NO_BACKEND);
		return XDP_PASS;
	}
	ss = xs_count_backend(id, pin->target, p->ip_len);
	hop = xs_second_hop(svc, &p->key, t);
	rc = xs_nexthop(ctx, t, pin->target, hot, &nh, &mtu);
	if (rc == BPF_FIB_LKUP_RET_NO_NEIGH)
		return xs_send_no_neigh(ctx, p, svc, t, pin->hash, mtu, ss, hop);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS || !nh) {
		xs_count(XS_C_FIB_FAIL);
		return XDP_PASS;
	}
	xs_recipe_make(&r, svc, t, nh, pin->hash);
	r.epoch = epoch;
	r.ready = 1;
	if (!hop && cached && cached->pool == id && cached->pin.target == pin->target &&
	    cached->pin.uid == pin->uid && xs_cache_key_eq(cached, &p->key)) {
		cached->recipe = r;
		xs_count(XS_C_RECIPE_MADE);
	}
	return xs_send(ctx, p, &r, ss, hop);
}

/* An established service flow whose recipe is current: no other lookup. */
static __always_inline int xs_deliver_cached(struct xdp_md *ctx, const struct xs_parsed *p,
					     const struct xs_flow_cache_entry *c)
{
	struct xs_service_stats *ss;

	xs_count_hit(p, 1);
	ss = xs_count_backend(c->pool, c->pin.target, p->ip_len);
	return xs_send(ctx, p, &c->recipe, ss, NULL);
}

#endif /* XS_SERVICE_H */
