/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Second chance, the load balancer's half: for a flow of a second-chance
 * service, the backend the pool before the last change (xs_prev_pools)
 * would have chosen, while that change's window lasts. It becomes the second
 * hop of the GUE hop list when it is not the backend chosen now; the
 * backend's decap program sends the packet on to it when it holds no
 * connection for it (bpf/xs_hops.h).
 */
#ifndef XS_CHANCE_H
#define XS_CHANCE_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_count.h"
#include "xs_encap.h"
#include "xs_maps.h"
#include "xs_steer.h"

/*
 * 1 and *hop filled when @svc gives flow @key a second hop: its window is
 * open and the previous pool chose a backend other than @be, of the same
 * family (an outer header has one). Else 0: one hop, a plain GUE header.
 * Shuffle's previous choice is taken without loads: the hand's pick as
 * placed with none.
 */
static __always_inline int xs_second_hop(const struct xs_service *svc,
					 const struct xs_flow_key *key,
					 const struct xs_target *be, struct xs_hop *hop)
{
	__u32 pool_id = svc->id, zero = 0;
	struct xs_prev_target_key pk;
	const struct xs_target *old;
	const struct xs_prev_gen *gen;
	struct xs_flow_key flow;
	struct xs_decision *d;
	union xs_pool_entry *e;
	void *pool;

	if (!svc->second_chance || svc->encap != XS_ENCAP_GUE)
		return 0;
	gen = bpf_map_lookup_elem(&xs_prev_gens, &pool_id);
	if (!gen || bpf_ktime_get_coarse_ns() >= gen->until_ns)
		return 0;
	pool = bpf_map_lookup_elem(&xs_prev_pools, &pool_id);
	if (!pool)
		return 0;
	e = bpf_map_lookup_elem(pool, &zero);
	d = bpf_map_lookup_elem(&xs_scratch, &zero);
	if (!e || !d || e->hdr.n_buckets == 0)
		return 0;
	xs_flow_pin_key(&flow, key, e->hdr.flow_fields, pool_id);
	d->no_load = 1;
	if (xs_select(&e->hdr, &flow, pool, d))
		return 0;
	pk.pool = pool_id;
	pk.target = d->target;
	old = bpf_map_lookup_elem(&xs_prev_targets, &pk);
	if (!old || old->family != be->family)
		return 0;
	if (old->addr[0] == be->addr[0] && old->addr[1] == be->addr[1] &&
	    old->addr[2] == be->addr[2] && old->addr[3] == be->addr[3])
		return 0;
	hop->addr[0] = old->addr[0];
	hop->addr[1] = old->addr[1];
	hop->addr[2] = old->addr[2];
	hop->addr[3] = old->addr[3];
	xs_count(XS_C_SECOND_HOP);
	return 1;
}

#endif /* XS_CHANCE_H */
