/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The steering decision: flow key + pool -> bucket -> target id.
 * This one function is what the XDP program runs for a new flow and what
 * `xdpsteer lookup` runs; only the two accessors below differ by side.
 *
 * struct xs_decision is always declared; xs_select() only where the side
 * has defined, before including this file:
 *   XS_ENV                           type of the pool handle it passes in
 *   __u32 xs_env_bucket(XS_ENV, b)   target id in bucket b, XS_NO_TARGET if none
 *   __u64 xs_env_load(XS_ENV, t)     current load of target id t (shuffle only)
 */
#ifndef XS_SELECT_H
#define XS_SELECT_H

#include "xdpsteer.h"
#include "xs_hash.h"
#include "xs_jump.h"
#include "xs_shuffle.h"

/* BPF builds route the dealer and the pick through global subprograms, like jump. */
#ifndef XS_DEAL_FN
#define XS_DEAL_FN xs_deal
#endif
#ifndef XS_PICK_FN
#define XS_PICK_FN xs_pick_least_loaded
#endif

struct xs_decision {
	__u64 flow_hash;         /* the value fed to jump, or the shuffle tie-break */
	__u64 hand_hash;         /* shuffle: the value the hand is dealt from */
	__u32 bucket;            /* chosen bucket, 0-based */
	__u32 target;            /* target id in that bucket */
	struct xs_hand hand;     /* shuffle: dealt buckets, in dealing order */
	__u64 load[XS_MAX_HAND]; /* shuffle: load of each card when chosen */
};

#ifdef XS_ENV
/* Returns 0, or -1 when the pool has no buckets. */
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
		return 0;
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
		d->load[i] = t == XS_NO_TARGET ? ~0ULL : xs_env_load(env, t);
	}
	d->bucket = d->hand.card[XS_PICK_FN(&d->hand, d->load, d->flow_hash) & (XS_MAX_HAND - 1)];
	d->target = xs_env_bucket(env, d->bucket);
	return 0;
}

#endif /* XS_ENV */
#endif /* XS_SELECT_H */
