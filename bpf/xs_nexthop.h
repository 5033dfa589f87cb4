/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The next hop towards a backend: MACs, egress interface and route MTU from
 * bpf_fib_lookup(), kept per CPU (xs_nexthops) for XS_NEXTHOP_TTL_NS.
 */
#ifndef XS_NEXTHOP_H
#define XS_NEXTHOP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_maps.h"

/* bpf_fib_lookup()'s families: AF_INET and AF_INET6, which only libc's headers define. */
#define XS_AF_INET 2
#define XS_AF_INET6 10

/* A FIB query for @be arriving on the ingress interface; @tot_len > 0 asks for the MTU. */
static __always_inline void xs_fib_query(struct xdp_md *ctx, const struct xs_target *be,
					 __u16 tot_len, struct bpf_fib_lookup *fib)
{
	__builtin_memset(fib, 0, sizeof(*fib));
	fib->ifindex = ctx->ingress_ifindex;
	fib->tot_len = tot_len;
	if (be->family == XS_FAMILY_IPV4) {
		fib->family = XS_AF_INET;
		fib->ipv4_dst = XS_W32C(be->addr, 3);
	} else {
		fib->family = XS_AF_INET6;
		__builtin_memcpy(fib->ipv6_dst, be->addr, 16);
	}
}

/*
 * Next hop towards backend @id: from this CPU's cache while it is fresh,
 * else from bpf_fib_lookup() (two lookups: one for the MACs, one that
 * reports the route MTU). Returns the BPF_FIB_LKUP_RET_* code; on success
 * *nh points at the cached entry. Failures are not cached. When only the
 * neighbour is missing (BPF_FIB_LKUP_RET_NO_NEIGH) the route is known, and
 * *mtu is its MTU: the MTU policy holds on that path too.
 */
static __always_inline int xs_nexthop(struct xdp_md *ctx, const struct xs_target *be, __u32 id,
				      int hot, struct xs_nexthop **nh, __u16 *mtu)
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
	if (rc != BPF_FIB_LKUP_RET_SUCCESS && rc != BPF_FIB_LKUP_RET_NO_NEIGH)
		return rc;
	if (rc == BPF_FIB_LKUP_RET_SUCCESS) {
		__builtin_memcpy(c->smac, fib.smac, ETH_ALEN);
		__builtin_memcpy(c->dmac, fib.dmac, ETH_ALEN);
		c->ifindex = fib.ifindex;
	}

	/*
	 * Ask again with the largest length: the FIB answers with the route
	 * MTU. It checks the MTU before it looks for the neighbour, so this
	 * answers without a neighbour too.
	 */
	xs_fib_query(ctx, be, 0xffff, &fib);
	*mtu = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0) == BPF_FIB_LKUP_RET_FRAG_NEEDED
		       ? fib.mtu_result
		       : 0xffff;
	if (rc != BPF_FIB_LKUP_RET_SUCCESS)
		return rc;
	c->mtu = *mtu;
	c->uid = be->uid;
	c->expires = now + XS_NEXTHOP_TTL_NS;
	return BPF_FIB_LKUP_RET_SUCCESS;
}

#endif /* XS_NEXTHOP_H */
