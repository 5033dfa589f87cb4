/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Targets by id (xs_targets): the live target behind an id, and delivery to
 * a queue target, a cpumap CPU or a devmap interface, with the dequeue count
 * that balances it on the target side.
 */
#ifndef XS_TARGET_H
#define XS_TARGET_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_count.h"
#include "xs_maps.h"

static __always_inline const struct xs_target *xs_live_target(__u32 id, __u32 uid)
{
	const struct xs_target *t = bpf_map_lookup_elem(&xs_targets, &id);

	if (!t || !t->active)
		return NULL;
	if (uid && t->uid != uid)
		return NULL;
	return t;
}

static __always_inline int xs_deliver(struct xdp_md *ctx, __u32 target_id,
				      const struct xs_target *t)
{
	__u64 len = ctx->data_end - ctx->data;
	struct xs_target_stats *s;
	__u32 key;
	int act;

	/*
	 * Two calls that must stay two: clang would sink them into one call
	 * whose map is either map, and the verifier then cannot bind that
	 * call to its map's redirect; it calls the generic helper, which
	 * reaches cpumap's or devmap's by an indirect call: 10 to 12 ns more
	 * per frame (bench_scale, live CPU row). The empty asm in one branch
	 * only leaves the two branches' tails unequal.
	 */
	if (t->kind == XS_TARGET_CPU) {
		key = t->cpu;
		act = bpf_redirect_map(&xs_cpumap, key, XDP_PASS);
		barrier_var(act);
	} else {
		key = target_id - XS_DEV_BASE;
		act = bpf_redirect_map(&xs_devmap, key, XDP_PASS);
	}
	if (act != XDP_REDIRECT) {
		xs_count(XS_C_REDIRECT_ERR);
		return XDP_PASS;
	}
	s = bpf_map_lookup_elem(&xs_target_stats, &target_id);
	if (s) {
		s->packets++;
		s->bytes += len;
	}
	return act;
}

/*
 * Target side of the queue: counts the dequeue that balances the enqueue in
 * xs_deliver(). A cpumap entry's program runs in that entry's kthread, on
 * its CPU, and cpu N is target id N: so the per-CPU "dequeued" counter of
 * target N shows on which CPU its frames really ran.
 */
static __always_inline void xs_dequeued(__u32 target)
{
	struct xs_target_stats *s = bpf_map_lookup_elem(&xs_target_stats, &target);

	if (s)
		s->dequeued++;
}

#endif /* XS_TARGET_H */
