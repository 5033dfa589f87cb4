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
 * The backend the kept pool of @pool_id chooses for @key, or XS_NO_TARGET.
 * Inlined: as a global subprogram its frame, on top of the program's and
 * under the decision's own subprograms, would pass the 512 bytes of stack
 * the verifier allows across calls.
 */
static __always_inline __u32 xs_prev_target(__u32 pool_id, const struct xs_flow_key *key)
{
	struct xs_prev_scratch *scratch;
	const struct xs_pool_hdr *hdr;
	struct xs_decision *d;
	__u32 zero = 0;
	void *pool;

	if (!key)
		return XS_NO_TARGET;
	pool = bpf_map_lookup_elem(&xs_prev_pools, &pool_id);
	if (!pool)
		return XS_NO_TARGET;
	hdr = bpf_map_lookup_elem(&xs_prev_hdrs, &pool_id);
	d = bpf_map_lookup_elem(&xs_scratch, &zero);
	scratch = bpf_map_lookup_elem(&xs_prev_scratch, &zero);
	if (!hdr || !d || !scratch || hdr->n_buckets == 0)
		return XS_NO_TARGET;
	xs_flow_pin_key(&scratch->key, key, hdr->flow_fields, pool_id);
	d->no_load = 1;
	return xs_select(hdr, &scratch->key, pool, d) ? XS_NO_TARGET : d->target;
}

/*
 * The second hop @svc gives flow @key, when its window is open and the
 * previous pool chose a backend other than @be, of the same family (an
 * outer header has one); it lives in this CPU's scratch until the next
 * packet. Else NULL: one hop, a plain GUE header. Shuffle's previous choice
 * is taken without loads: the hand's pick as placed with none.
 */
static __always_inline const struct xs_hop *xs_second_hop(const struct xs_service *svc,
							  const struct xs_flow_key *key,
							  const struct xs_target *be)
{
	__u32 pool_id = svc->id, zero = 0;
	struct xs_prev_scratch *scratch;
	struct xs_hop *hop;
	struct xs_prev_target_key pk;
	const struct xs_target *old;
	const struct xs_prev_gen *gen;

	if (!svc->second_chance || svc->encap != XS_ENCAP_GUE)
		return NULL;
	gen = bpf_map_lookup_elem(&xs_prev_gens, &pool_id);
	if (!gen || bpf_ktime_get_coarse_ns() >= gen->until_ns)
		return NULL;
	pk.pool = pool_id;
	pk.target = xs_prev_target(pool_id, key);
	if (pk.target == XS_NO_TARGET)
		return NULL;
	old = bpf_map_lookup_elem(&xs_prev_targets, &pk);
	scratch = bpf_map_lookup_elem(&xs_prev_scratch, &zero);
	if (!old || !scratch || old->family != be->family)
		return NULL;
	if (XS_W32C(old->addr, 0) == XS_W32C(be->addr, 0) &&
	    XS_W32C(old->addr, 1) == XS_W32C(be->addr, 1) &&
	    XS_W32C(old->addr, 2) == XS_W32C(be->addr, 2) &&
	    XS_W32C(old->addr, 3) == XS_W32C(be->addr, 3))
		return NULL;
	hop = (struct xs_hop *)scratch->hop;
	hop->addr[0] = XS_W32C(old->addr, 0);
	hop->addr[1] = XS_W32C(old->addr, 1);
	hop->addr[2] = XS_W32C(old->addr, 2);
	hop->addr[3] = XS_W32C(old->addr, 3);
	xs_count(XS_C_SECOND_HOP);
	return hop;
}

#endif /* XS_CHANCE_H */
