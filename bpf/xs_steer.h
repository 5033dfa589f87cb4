/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The steering decision as the XDP program runs it: include/xs_select.h (the
 * code `xdpsteer lookup` runs too) over a pool map, its loops routed through
 * global subprograms and bpf_loop(). Loops are verified once as global
 * subprograms instead of once per call site and path, which would exceed
 * the verifier's budget.
 *
 * Jump, the dealer and the hole walk (include/xs_jump.h, xs_shuffle.h,
 * xs_holes.h) take values and leave the loop and the jump to their caller,
 * so the loops here call them. include/xs_select.h takes the routes as
 * macros (XS_JUMP_FN, XS_DEAL_FN, XS_PICK_FN, XS_LIVE_FN) and the pool
 * accessors as XS_ENV, read where it is first included: so this header
 * includes it last, after all of them, and no other BPF header includes
 * it: everything else needs only types (xs_decision.h, xs_hand.h).
 */
#ifndef XS_STEER_H
#define XS_STEER_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_config.h"
#include "xs_holes.h"
#include "xs_jump.h"
#include "xs_maps.h"
#include "xs_shuffle.h"

/* Included earlier, it would have been bound to its userspace defaults. */
#ifdef XS_SELECT_H
#error "include/xs_select.h: only through bpf/xs_steer.h"
#endif

__attribute__((noinline)) int xs_jump_global(__u64 key, __u32 n)
{
	return xs_jump(key, n);
}
#define XS_JUMP_FN xs_jump_global

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
	__u32 drawn = 0;

	if (i < XS_DEAL_MAX_DRAWS)
		drawn = xs_jump_global(xs_deal_key(c->hand_hash, i), c->n);
	return xs_deal_step(c->n, c->h, c->hand, i, drawn);
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

struct xs_live_ctx {
	void *pool;
	__u64 h;
	__u32 n;
	__u32 b;
	__u32 found;
};

static int xs_live_cb(__u32 i, struct xs_live_ctx *c)
{
	__u32 drawn = 0;

	if (i < XS_HOLE_DRAWS)
		drawn = xs_jump_global(xs_hole_key(c->h, i), c->n);
	c->b = xs_hole_next(c->n, i, drawn, c->b);
	if (xs_env_bucket(c->pool, c->b) == XS_NO_TARGET)
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
