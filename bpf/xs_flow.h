/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A flow's target: its pin in the LRU (xs_flows), the per-CPU flow cache in
 * front of it (xs_flow_cache), the rate limit on new pins, and a fresh
 * decision (xs_steer.h) for a flow with no live pin.
 */
#ifndef XS_FLOW_H
#define XS_FLOW_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_budget.h"
#include "xs_maps.h"
#include "xs_config.h"
#include "xs_clock.h"
#include "xs_count.h"
#include "xs_parse.h"
#include "xs_steer.h"
#include "xs_target.h"

/*
 * The per-CPU flow cache in front of the LRU. A slot is chosen by a cheap
 * keyed multiply-xorshift hash; the full key is compared, so a collision
 * (even a forced one) costs a trip to the LRU, never a wrong target. The LRU
 * stays the authority: the cache only ever holds what the LRU pinned.
 */
/*
 * Word @i of a key, from two 32-bit loads: the key is 4-byte aligned, and
 * clang lowers an 8-byte memcpy from it to eight byte loads, which made the
 * key compare of every cache hit about 120 instructions.
 */
static __always_inline __u64 xs_key_word(const struct xs_flow_key *k, __u32 i)
{
	const __u32 *w = (const __u32 *)k;

	return (__u64)w[2 * i] | (__u64)w[2 * i + 1] << 32;
}

/*
 * Each keyed word has its own odd multiplier and the products are summed, so
 * the five multiplies run side by side: the slot is on the critical path of
 * every packet, and a chain of five multiplies cost it about 20 cycles. The
 * high half, which every input bit reaches, is folded into the slot bits.
 */
static __always_inline struct xs_flow_cache_entry *xs_cache_slot(const struct xs_flow_key *k)
{
	__u64 key = cfg_cache_key, h;
	__u32 slot;

	_Static_assert(XS_FLOW_KEY_WORDS == 5, "one multiplier per key word");
	h = ((xs_key_word(k, 0) ^ key) * 0x9e3779b97f4a7c15ULL +
	     (xs_key_word(k, 1) ^ key) * 0xc2b2ae3d27d4eb4fULL) +
	    ((xs_key_word(k, 2) ^ key) * 0x165667b19e3779f9ULL +
	     (xs_key_word(k, 3) ^ key) * 0xd6e8feb86659fd93ULL) +
	    (xs_key_word(k, 4) ^ key) * 0xff51afd7ed558ccdULL;
	h ^= h >> 32;
	slot = xs_cpu_row(cfg_cache_slots, (__u32)h & (cfg_cache_slots - 1));
	return bpf_map_lookup_elem(&xs_flow_cache, &slot);
}

/*
 * A cache entry's key against the packet's, on a hit and before a recipe
 * is stored: the entry's key starts its 128-byte slot, so each of its words
 * is one 8-byte load where xs_key_word() needs two loads, a shift and an or
 * (15 of the hit path's instructions).
 */
_Static_assert(__builtin_offsetof(struct xs_flow_cache_entry, key) == 0 &&
		       sizeof(struct xs_flow_cache_entry) % 8 == 0,
	       "a cache entry's key is 8-byte aligned in its slot");
static __always_inline int xs_cache_key_eq(const struct xs_flow_cache_entry *c,
					   const struct xs_flow_key *k)
{
	const __u64 *w = (const __u64 *)c;
	__u64 diff = 0;
	__u32 i;

	for (i = 0; i < XS_FLOW_KEY_WORDS; i++)
		diff |= w[i] ^ xs_key_word(k, i);
	return !diff;
}

static __always_inline void xs_cache_fill(struct xs_flow_cache_entry *c,
					  const struct xs_flow_key *k,
					  const struct xs_flow_pin *pin, __u32 pool)
{
	if (!c)
		return;
	__builtin_memcpy(&c->key, k, sizeof(c->key));
	c->pin = *pin;
	c->pool = pool;
	c->recipe.ready = 0; /* made by the delivery that follows, for service flows */
}

/*
 * Established flows first: the per-CPU cache is keyed by the packet's own
 * key, so a hit needs no service lookup and no pool lookup. The LRU stays the
 * authority: a cached flow goes the long way once its entry is older than
 * cfg_timeouts.refresh (shorter than any timeout), which refreshes the pin's
 * idle time and checks expiry; FIN, RST and SYN always do, so a close is
 * counted and a reused tuple is seen there.
 */
static __always_inline struct xs_flow_cache_entry *xs_cache_hit(const struct xs_parsed *p,
								struct xs_flow_cache_entry *c)
{
	if (!c || !xs_cache_key_eq(c, &p->key))
		return NULL;
	if (p->tcp_flags & (XS_TCP_FIN | XS_TCP_RST | XS_TCP_SYN))
		return NULL;
	if (xs_tick() - c->pin.seen >= cfg_timeouts.refresh)
		return NULL;
	return c;
}

/* May this CPU pin one more new flow now? A token bucket, read only for new flows. */
static __always_inline int xs_pin_allowed(void)
{
	struct xs_pin_budget *b;
	__u32 zero = 0;

	if (!cfg_pin_rate)
		return 1;
	b = bpf_map_lookup_elem(&xs_pin_budget, &zero);
	return b ? xs_budget_take(b, cfg_pin_rate, cfg_pin_burst) : 1;
}

/* A flow's first FIN or RST: count the backend's flow as closed, once. */
static __always_inline void xs_pin_close(struct xs_flow_pin *lru, struct xs_flow_pin *cache,
					 const struct xs_flow_pin *pin)
{
	struct xs_target_stats *s;

	if (pin->closed)
		return;
	if (lru)
		lru->closed = 1;
	if (cache)
		cache->closed = 1;
	s = bpf_map_lookup_elem(&xs_target_stats, &pin->target);
	if (s)
		s->closed++;
}

/*
 * The flow's target in pool @pool_id when the flow cache did not answer: its
 * pin in the LRU while the pinned target lives, else a fresh decision, pinned.
 * Either way the answer goes into @cached. NULL when the pool has nothing
 * live; *why then names the counter.
 */
static __always_inline const struct xs_target *
xs_flow_target(__u32 pool_base, __u32 pool_id, const struct xs_flow_key *key, __u8 tcp_flags,
	       struct xs_flow_cache_entry *cached, struct xs_flow_pin *pin, __u32 *why)
{
	__u32 slot = pool_base + pool_id;
	int ending = tcp_flags & (XS_TCP_FIN | XS_TCP_RST), expired = 0;
	struct xs_target_stats *s;
	struct xs_flow_pin *old_pin = NULL;
	const struct xs_target *t;
	struct xs_flow_key flow;
	struct xs_decision *d;
	const struct xs_pool_hdr *hdr;
	__u32 zero = 0;
	void *pool;
	int pinning;
	__u32 now;

	*why = XS_C_NO_TARGETS;
	/*
	 * Header and buckets of one slot are of one generation (xs_pool_hdrs).
	 * Buckets first: the other order costs clang 14's build 17% more
	 * verifier work (362,544 instructions against 310,034).
	 */
	pool = bpf_map_lookup_elem(&xs_pools, &slot);
	if (!pool)
		return NULL;
	hdr = bpf_map_lookup_elem(&xs_pool_hdrs, &slot);
	if (!hdr || hdr->n_buckets == 0)
		return NULL;

	/* A flow is what its pool's flow fields say it is, in that pool. */
	xs_flow_pin_key(&flow, key, hdr->flow_fields, pool_id);
	now = xs_tick();
	if (cfg_flow_table) {
		old_pin = bpf_map_lookup_elem(&xs_flows, &flow);
		if (old_pin) {
			struct xs_timeouts to = cfg_timeouts;

			/* Idle too long, or a new connection on the tuple of a closed one. */
			expired = xs_pin_expired(old_pin, flow.proto, now, &to) ||
				  (old_pin->closed &&
				   (tcp_flags & (XS_TCP_SYN | XS_TCP_ACK)) == XS_TCP_SYN);
			t = xs_live_target(old_pin->target, old_pin->uid);
			if (t && !expired) {
				old_pin->seen = now;
				if (ending)
					xs_pin_close(old_pin, NULL, old_pin);
				*pin = *old_pin;
				xs_cache_fill(cached, key, pin, pool_id);
				xs_count(XS_C_FLOW_HIT);
				return t;
			}
			if (expired) {
				/* Its end went unseen: balance opened against closed now. */
				if (t)
					xs_pin_close(old_pin, NULL, old_pin);
				xs_count(XS_C_FLOW_EXPIRED);
			}
		}
	}

	pinning = cfg_flow_table && xs_pin_allowed();
	if (cfg_flow_table && !pinning)
		xs_count(XS_C_PIN_LIMITED);
	/* The decision is too big for the stack beside the rest: per-CPU scratch. */
	d = bpf_map_lookup_elem(&xs_scratch, &zero);
	if (!d)
		return NULL;
	d->no_load = !pinning;
	if (xs_select(hdr, &flow, pool, d))
		return NULL;
	t = xs_live_target(d->target, 0);
	if (!t) {
		*why = XS_C_TARGET_GONE;
		return NULL;
	}
	pin->target = d->target;
	pin->uid = t->uid;
	pin->hash = (__u32)d->flow_hash;
	pin->closed = 0;
	pin->pad[0] = pin->pad[1] = pin->pad[2] = 0;
	pin->seen = now;
	if (!pinning)
		return t;
	/* Only a pinned flow is one flow: unpinned, every packet decides afresh. */
	s = bpf_map_lookup_elem(&xs_target_stats, &pin->target);
	if (s)
		s->opened++;
	bpf_map_update_elem(&xs_flows, &flow, pin, BPF_ANY);
	xs_cache_fill(cached, key, pin, pool_id);
	xs_count(old_pin && !expired ? XS_C_FLOW_REPIN : XS_C_FLOW_NEW);
	return t;
}

#endif /* XS_FLOW_H */
