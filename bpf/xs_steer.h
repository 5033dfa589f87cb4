/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The steering decision as the XDP program runs it: include/xs_select.h (the
 * code `xdpsteer lookup` runs too) over a pool map, its loops routed through
 * global subprograms and bpf_loop(). Loops are verified once as global
 * subprograms instead of once per call site and path, which would exceed
 * the verifier's budget.
 *
 * The shared headers take those routes as macros (XS_JUMP_FN, XS_DEAL_FN,
 * XS_PICK_FN, XS_LIVE_FN) and the pool accessors as XS_ENV, read where each
 * header is first included. So this header includes them itself, each right
 * after what it routes to is defined, and no other BPF header includes
 * them: everything else needs only types (xs_decision.h, xs_hand.h).
 */
#ifndef XS_STEER_H
#define XS_STEER_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_config.h"
#include "xs_maps.h"

/* Included earlier, they would have been bound to their userspace defaults. */
#if defined(XS_JUMP_H) || defined(XS_SHUFFLE_H) || defined(XS_HOLES_H) || defined(XS_SELECT_H)
#error "include/xs_jump.h, xs_shuffle.h, xs_holes.h and xs_select.h: only through bpf/xs_steer.h"
#endif

#define XS_JUMP_FN xs_jump_global
#include "xs_jump.h"

__attribute__((noinline)) int xs_jump_global(__u64 key, __u32 n)
{
	return xs_jump(key, n);
}

#include "xs_shuffle.h"

/*
 * The hand stays behind a pointer: the verifier does not track what it
 * holds, so every step looks alike and the callback converges at once.
 */
struct xs_deal_ctx {
	__u64 hand_hash;
	__u32 n, h;
	struct xs_hand *hand;
};

static int xs_deal_cb(__u32 i, struct xs_deal_ctx *c)
{
	return xs_deal_step(c->hand_hash, c->n, c->h, c->hand, i);
}

/* xs_deal() with bpf_loop() as the loop, so the step is verified once. */
__attribute__((noinline)) int xs_deal_global(__u64 hand_hash, __u32 n, __u32 h,
					     struct xs_hand *hand)
{
	struct xs_deal_ctx c = { .hand_hash = hand_hash, .n = n, .h = h, .hand = hand };

	if (!hand)
		return -1;
	hand->n_cards = 0;
	hand->last = 0;
	bpf_loop(XS_DEAL_STEPS, xs_deal_cb, &c, 0);
	return 0;
}
#define XS_DEAL_FN xs_deal_global

struct xs_loads {
	__u64 v[XS_MAX_HAND];
};

/* Takes the loads as a sized struct: global subprograms check memory by BTF size. */
__attribute__((noinline)) int xs_pick_loads(const struct xs_hand *hand, const struct xs_loads *load,
					    __u64 flow_hash)
{
	if (!hand || !load)
		return 0;
	return xs_pick_least_loaded(hand, load->v, flow_hash);
}

static __always_inline int xs_pick_global(const struct xs_hand *hand, const __u64 *load,
					  __u64 flow_hash)
{
	return xs_pick_loads(hand, (const struct xs_loads *)load, flow_hash);
}
#define XS_PICK_FN xs_pick_global

#define XS_ENV void *
static __always_inline __u32 xs_env_bucket(void *pool, __u32 bucket)
{
	const struct xs_bucket *e = bpf_map_lookup_elem(pool, &bucket);

	return e ? e->target : XS_NO_TARGET;
}

/*
 * Load of a target (xs_target_load() says what it counts). Per-CPU counters
 * keep atomics off the packet path; the sum across CPUs is only read when a
 * shuffle flow is placed.
 */
__attribute__((noinline)) __u64 xs_load_global(__u32 target)
{
	__u64 packets = 0, dequeued = 0, dropped = 0, opened = 0, closed = 0;
	__u32 cpu;

	for (cpu = 0; cpu < XS_MAX_CPUS; cpu++) {
		struct xs_target_stats *s;

		if (cpu >= cfg_nr_cpus)
			break;
		s = bpf_map_lookup_percpu_elem(&xs_target_stats, &target, cpu);
		if (!s)
			break;
		packets += s->packets;
		dequeued += s->dequeued;
		dropped += s->dropped;
		opened += s->opened;
		closed += s->closed;
	}
	return xs_target_load(target, packets, dequeued, dropped, opened, closed);
}

static __always_inline __u64 xs_env_load(void *pool, __u32 target)
{
	return xs_load_global(target);
}

#include "xs_holes.h"

struct xs_live_ctx {
	void *pool;
	__u64 h;
	__u32 n;
	__u32 b;
	__u32 found;
};

static int xs_live_cb(__u32 i, struct xs_live_ctx *c)
{
	if (!xs_live_step(c->pool, c->h, c->n, i, &c->b))
		return 0;
	c->found = 1;
	return 1;
}

/* Only reached when a key's first bucket is a hole. */
static __always_inline __u32 xs_live_bpf(void *pool, __u64 h, __u32 n)
{
	struct xs_live_ctx c = { .pool = pool, .h = h, .n = n };

	bpf_loop(XS_HOLE_DRAWS + n, xs_live_cb, &c, 0);
	return c.found ? c.b : XS_NO_TARGET;
}
#define XS_LIVE_FN xs_live_bpf

#include "xs_select.h"

#endif /* XS_STEER_H */
