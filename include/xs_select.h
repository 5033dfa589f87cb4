/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The steering decision: flow key + pool -> bucket -> target id.
 * This one function is what the XDP program runs for a new flow and what
 * `xdpsteer lookup` runs; only the two accessors below differ by side.
 *
 * The one template header: jump, the dealer and the hole walk
 * (xs_jump.h, xs_shuffle.h, xs_holes.h) take values and read no name of
 * their includer's, and all that reads the pool is here. struct
 * xs_decision (xs_decision.h) is always declared; xs_select() only where
 * the side has defined, before including this file:
 *   XS_ENV                           type of the pool handle it passes in
 *   __u32 xs_env_bucket(XS_ENV, b)   target id in bucket b, XS_NO_TARGET for a hole
 *   __u64 xs_env_load(XS_ENV, t)     current load of target id t (shuffle only)
 * A side that runs the loops its own way names them first too: XS_JUMP_FN,
 * XS_DEAL_FN, XS_PICK_FN and XS_LIVE_FN (below; the BPF side's are in
 * bpf/xs_steer.h).
 */
#ifndef XS_SELECT_H
#define XS_SELECT_H

#include "xdpsteer.h"
#include "xs_decision.h"
#include "xs_hash.h"
#include "xs_holes.h"
#include "xs_jump.h"
#include "xs_shuffle.h"

/* BPF builds route jump, the dealer and the pick through global subprograms. */
#ifndef XS_JUMP_FN
#define XS_JUMP_FN xs_jump
#endif
#ifndef XS_DEAL_FN
#define XS_DEAL_FN xs_deal
#endif
#ifndef XS_PICK_FN
#define XS_PICK_FN xs_pick_least_loaded
#endif

#ifdef XS_ENV
/*
 * The hole walk (xs_holes.h) over the side's buckets: the live bucket for
 * hash @h over @n buckets, or XS_NO_TARGET when every bucket is a hole.
 * BPF builds drive the steps with bpf_loop() instead (it is bounded by n,
 * not a constant).
 */
#ifndef XS_LIVE_FN
XS_INLINE __u32 xs_live_bucket(XS_ENV env, __u64 h, __u32 n)
{
	__u32 i, b = 0;

	for (i = 0; i < XS_HOLE_DRAWS + n; i++) {
		__u32 drawn = i < XS_HOLE_DRAWS ? XS_JUMP_FN(xs_hole_key(h, i), n) : 0;

		b = xs_hole_next(n, i, drawn, b);
		if (xs_env_bucket(env, b) != XS_NO_TARGET)
			return b;
	}
	return XS_NO_TARGET;
}
#define XS_LIVE_FN xs_live_bucket
#endif

/* Returns 0, or -1 when the pool has no live bucket. */
XS_INLINE int xs_select(const struct xs_pool_hdr *hdr, const struct xs_flow_key *key,
			XS_ENV env, struct xs_decision *d)
{
	__u32 n = hdr->n_buckets, i;

	if (n == 0 || n > XS_MAX_BUCKETS)
		return -1;
	d->flow_hash = xs_flow_hash(hdr->seed, key, hdr->flow_fields, XS_DOMAIN_FLOW);
	d->hand.n_cards = 0;

	if (hdr->algo != XS_ALGO_SHUFFLE) {
		d->hand_hash = 0;
		d->bucket = XS_JUMP_FN(d->flow_hash, n);
		d->target = xs_env_bucket(env, d->bucket);
		goto holes;
	}

	d->hand_hash = xs_flow_hash(hdr->seed, key, hdr->hand_fields, XS_DOMAIN_HAND);
	/* Until the pool holds H targets, a hand holds all of them. */
	XS_DEAL_FN(d->hand_hash, n, hdr->hand_size < n ? hdr->hand_size : n, &d->hand);
	for (i = 0; i < XS_MAX_HAND; i++) {
		__u32 t;

		if (i >= d->hand.n_cards)
			break;
		t = xs_env_bucket(env, d->hand.card[i]);
		/* An empty bucket is never the least loaded. */
		if (t == XS_NO_TARGET)
			d->load[i] = ~0ULL;
		else
			d->load[i] = d->no_load ? 0 : xs_env_load(env, t);
	}
	/* Holes load as ~0: one is picked only when the whole hand is holes. */
	d->bucket = d->hand.card[XS_PICK_FN(&d->hand, d->load, d->flow_hash) & (XS_MAX_HAND - 1)];
	d->target = xs_env_bucket(env, d->bucket);
holes:
	if (d->target != XS_NO_TARGET)
		return 0;
	d->bucket = XS_LIVE_FN(env, d->flow_hash, n);
	if (d->bucket == XS_NO_TARGET)
		return -1;
	d->target = xs_env_bucket(env, d->bucket);
	return d->target == XS_NO_TARGET ? -1 : 0;
}

#endif /* XS_ENV */

#endif /* XS_SELECT_H */
