// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xdpsteer: hash each packet's flow key and steer it to one of N targets
 * (cpumap CPUs or devmap interfaces) by jump consistent hash or by a
 * shuffle-shard hand. The decision itself lives in include/xs_select.h and is
 * shared with `xdpsteer lookup`.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "xs_maps.h"
#include "xs_config.h"
#include "xs_steer.h"
#include "xs_parse.h"
#include "xs_count.h"
#include "xs_icmp.h"
#include "xs_nexthop.h"
#include "xs_tx.h"

/* One load, in program order: what userspace changes while packets run. */
#define XS_READ_ONCE(x) (*(const volatile typeof(x) *)&(x))

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif

/*
 * Flow time in ticks (XS_TICK_SHIFT), stamped by the clock timer. A packet
 * reads it with one load; bpf_ktime_get_coarse_ns() is a helper call that
 * cost an established flow about 20 ns, a third of its whole cost.
 */
volatile __u32 xs_now;

static __always_inline __u32 xs_tick(void)
{
	return xs_now;
}

static int xs_clock_tick(void *map, __u32 *key, struct xs_clock *c)
{
	xs_now = (__u32)(bpf_ktime_get_ns() >> XS_TICK_SHIFT);
	bpf_timer_start(&c->timer, c->period_ns, 0);
	return 0;
}

/* Run once by attach (BPF_PROG_TEST_RUN): starts the clock. */
SEC("syscall")
int xdpsteer_clock_start(void *ctx)
{
	struct xs_clock *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&xs_clock, &zero);
	if (!c)
		return 1;
	xs_now = (__u32)(bpf_ktime_get_ns() >> XS_TICK_SHIFT);
	c->period_ns = cfg_clock_period_ns;
	if (bpf_timer_init(&c->timer, &xs_clock, CLOCK_MONOTONIC))
		return 2;
	if (bpf_timer_set_callback(&c->timer, xs_clock_tick))
		return 3;
	return bpf_timer_start(&c->timer, c->period_ns, 0) ? 4 : 0;
}

static __always_inline int xs_deliver(struct xdp_md *ctx, __u32 target_id,
				      const struct xs_target *t)
{
	__u64 len = ctx->data_end - ctx->data;
	struct xs_target_stats *s;
	__u32 key;
	int act;

	if (t->kind == XS_TARGET_CPU) {
		key = t->cpu;
		act = bpf_redirect_map(&xs_cpumap, key, XDP_PASS);
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

static __always_inline const struct xs_target *xs_live_target(__u32 id, __u32 uid)
{
	const struct xs_target *t = bpf_map_lookup_elem(&xs_targets, &id);

	if (!t || !(t->flags & XS_TARGET_F_ACTIVE))
		return NULL;
	if (uid && t->uid != uid)
		return NULL;
	return t;
}

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
	slot = xs_cpu_row(XS_FLOW_CACHE_SLOTS, (__u32)h & cfg_cache_mask & (XS_FLOW_CACHE_SLOTS - 1));
	return bpf_map_lookup_elem(&xs_flow_cache, &slot);
}

static __always_inline int xs_flow_key_eq(const struct xs_flow_key *a, const struct xs_flow_key *b)
{
	__u64 diff = 0;
	__u32 i;

	for (i = 0; i < XS_FLOW_KEY_WORDS; i++)
		diff |= xs_key_word(a, i) ^ xs_key_word(b, i);
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

/* May this CPU pin one more new flow now? A token bucket, read only for new flows. */
static __always_inline int xs_pin_allowed(void)
{
	const __u64 unit = 1000000000ULL, cap = (__u64)cfg_pin_burst * unit;
	struct xs_pin_budget *b;
	__u32 zero = 0;
	__u64 now, elapsed;

	if (!cfg_pin_rate)
		return 1;
	b = bpf_map_lookup_elem(&xs_pin_budget, &zero);
	if (!b)
		return 1;
	now = bpf_ktime_get_coarse_ns();
	elapsed = now - b->last_ns;
	b->last_ns = now;
	/* Clamp first: elapsed * rate must not overflow after a long quiet spell. */
	if (elapsed > cap / cfg_pin_rate)
		elapsed = cap / cfg_pin_rate;
	b->credit += elapsed * cfg_pin_rate;
	if (b->credit > cap)
		b->credit = cap;
	if (b->credit < unit)
		return 0;
	b->credit -= unit;
	return 1;
}

/*
 * The parser as a global subprogram: verified once, and its result reaches
 * the caller as plain data. Inlined, every way through the parser (VLAN
 * depth, family, extension headers, ICMP kind, fragment) was a distinct
 * verifier state for the whole rest of the program: 992,246 of the
 * 1,000,000 instructions the verifier allows.
 */
__attribute__((noinline)) int xs_parse_global(struct xdp_md *ctx, struct xs_parsed *p)
{
	if (!p)
		return XS_C_TRUNC_ETH;
	return xs_parse((void *)(long)ctx->data, (void *)(long)ctx->data_end, p);
}

/*
 * The flow's target in pool @pool_id when the flow cache did not answer: its
 * pin in the LRU while the pinned target lives, else a fresh decision, pinned.
 * Either way the answer goes into @cached. NULL when the pool has nothing
 * live; *why then names the counter.
 */
/* A flow's first FIN or RST: count the backend's flow as closed, once. */
static __always_inline void xs_pin_close(struct xs_flow_pin *lru, struct xs_flow_pin *cache,
					 const struct xs_flow_pin *pin)
{
	struct xs_target_stats *s;

	if (pin->flags & XS_PIN_F_CLOSED)
		return;
	if (lru)
		lru->flags |= XS_PIN_F_CLOSED;
	if (cache)
		cache->flags |= XS_PIN_F_CLOSED;
	s = bpf_map_lookup_elem(&xs_target_stats, &pin->target);
	if (s)
		s->closed++;
}

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
	union xs_pool_entry *e;
	__u32 zero = 0;
	void *pool;
	int pinning;
	__u32 now;

	*why = XS_C_NO_TARGETS;
	pool = bpf_map_lookup_elem(&xs_pools, &slot);
	if (!pool)
		return NULL;
	e = bpf_map_lookup_elem(pool, &zero);
	if (!e || e->hdr.n_buckets == 0)
		return NULL;

	/* A flow is what the configured flow fields say it is. */
	xs_flow_key_mask(&flow, key, e->hdr.flow_fields, XS_DOMAIN_FLOW);
	now = xs_tick();
	if (cfg_flow_table) {
		old_pin = bpf_map_lookup_elem(&xs_flows, &flow);
		if (old_pin) {
			struct xs_timeouts to = cfg_timeouts;

			/* Idle too long, or a new connection on the tuple of a closed one. */
			expired = xs_pin_expired(old_pin, flow.proto, now, &to) ||
				  ((old_pin->flags & XS_PIN_F_CLOSED) &&
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
	if (xs_select(&e->hdr, &flow, pool, d))
		return NULL;
	t = xs_live_target(d->target, 0);
	if (!t) {
		*why = XS_C_TARGET_GONE;
		return NULL;
	}
	pin->target = d->target;
	pin->uid = t->uid;
	pin->hash = (__u32)d->flow_hash;
	pin->flags = 0;
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
 * none of these lookups (xs_deliver_cached()).
 */
static __always_inline int xs_deliver_backend(struct xdp_md *ctx, const struct xs_parsed *p,
					      const struct xs_service *svc,
					      const struct xs_target *t,
					      const struct xs_flow_pin *pin, int hot,
					      struct xs_flow_cache_entry *cached, __u32 epoch)
{
	struct xs_service_stats *ss;
	struct xs_nexthop *nh = NULL;
	struct xs_recipe r = {};
	__u32 id = svc->id;
	int rc;

	if (!t || t->kind != XS_TARGET_BACKEND) {
		ss = bpf_map_lookup_elem(&xs_service_stats, &id);
		if (ss)
			ss->no_backend++;
		xs_count(XS_C_NO_BACKEND);
		return XDP_PASS;
	}
	ss = xs_count_backend(id, pin->target, p->ip_len);
	rc = xs_nexthop(ctx, t, pin->target, hot, &nh);
	if (rc == BPF_FIB_LKUP_RET_NO_NEIGH)
		return xs_send_no_neigh(ctx, p, svc, t, pin->hash);
	if (rc != BPF_FIB_LKUP_RET_SUCCESS || !nh) {
		xs_count(XS_C_FIB_FAIL);
		return XDP_PASS;
	}
	xs_recipe_make(&r, svc, t, nh, pin->hash);
	r.epoch = epoch;
	r.ready = 1;
	if (cached && cached->pool == id && cached->pin.target == pin->target &&
	    cached->pin.uid == pin->uid && xs_flow_key_eq(&cached->key, &p->key)) {
		cached->recipe = r;
		xs_count(XS_C_RECIPE_MADE);
	}
	return xs_send(ctx, p, &r, ss);
}

/* An established service flow whose recipe is current: no other lookup. */
static __always_inline int xs_deliver_cached(struct xdp_md *ctx, const struct xs_parsed *p,
					     const struct xs_flow_cache_entry *c)
{
	struct xs_service_stats *ss;

	xs_count_hit(p, 1);
	ss = xs_count_backend(c->pool, c->pin.target, p->ip_len);
	return xs_send(ctx, p, &c->recipe, ss);
}

/*
 * The configuration epoch (xs_epoch). A packet reads it before anything a
 * recipe is made of: userspace writes a target or flips pool_base, then adds
 * to the epoch, and x86 does not reorder loads with loads, so a packet that
 * sees a new epoch sees the change that came with it. A recipe is never
 * older than the epoch it carries.
 */
static __always_inline __u32 xs_epoch_now(void)
{
	__u32 zero = 0, *e = bpf_map_lookup_elem(&xs_epoch, &zero);

	return e ? XS_READ_ONCE(*e) : 0;
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
	if (!c || !xs_flow_key_eq(&c->key, &p->key))
		return NULL;
	if (p->tcp_flags & (XS_TCP_FIN | XS_TCP_RST | XS_TCP_SYN))
		return NULL;
	if (xs_tick() - c->pin.seen >= cfg_timeouts.refresh)
		return NULL;
	return c;
}

/*
 * xs_self, read only when needed (a flow found in the flow cache with a
 * current recipe, or for a queue, needs no pool): *base is the pool
 * generation the packet uses from then on, so it sees the old topology or
 * the new one, never both.
 */
static __always_inline const struct xs_self *xs_self_read(__u32 *base)
{
	const struct xs_self *self;
	__u32 zero = 0;

	self = bpf_map_lookup_elem(&xs_self, &zero);
	*base = self ? XS_READ_ONCE(self->pool_base) : 0;
	return self;
}

SEC("xdp")
int xdpsteer_xdp(struct xdp_md *ctx)
{
	struct xs_flow_cache_entry *cached = NULL, *hit = NULL;
	const struct xs_service *svc = NULL;
	struct xs_parsed p = {};
	const struct xs_target *t;
	const struct xs_self *self = NULL;
	struct xs_flow_pin pin;
	__u32 why, pool_id = XS_POOL_QUEUES, base = 0, epoch = 0, slot;
	int r;

	if (!xs_parse_fast((void *)(long)ctx->data, (void *)(long)ctx->data_end, &p))
		r = XS_PARSE_OK;
	else
		r = xs_parse_global(ctx, &p);
	if (r != XS_PARSE_OK) {
		xs_count(r);
		return cfg_unparsed_verdict;
	}
	if (p.is_frag)
		xs_count(XS_C_FRAGMENT);
	if (p.icmp == XS_ICMP_BAD_QUOTE)
		xs_count(XS_C_ICMP_BAD_QUOTE);

	if (cfg_flow_table && p.icmp != XS_ICMP_ECHO) {
		cached = xs_cache_slot(&p.key);
		hit = xs_cache_hit(&p, cached);
		if (hit && hit->pool != XS_POOL_QUEUES) {
			epoch = xs_epoch_now();
			if (hit->recipe.ready && hit->recipe.epoch == epoch)
				return xs_deliver_cached(ctx, &p, hit);
		}
		t = hit ? xs_live_target(hit->pin.target, hit->pin.uid) : NULL;
		if (hit && t) {
			xs_count_hit(&p, hit->pool != XS_POOL_QUEUES);
			pin = hit->pin;
			if (hit->pool == XS_POOL_QUEUES)
				goto queue;
			/* A service flow whose recipe is out of date: made again below. */
			pool_id = hit->pool;
			self = xs_self_read(&base);
			slot = base + pool_id;
			svc = bpf_map_lookup_elem(&xs_service_by_id, &slot);
			if (svc && svc->id == pool_id)
				goto backend;
			/* The service went away: the slow path decides, afresh. */
			svc = NULL;
			pool_id = XS_POOL_QUEUES;
		} else {
			hit = NULL;
		}
	}

	epoch = xs_epoch_now();
	self = xs_self_read(&base);
	if (self && self->n_services) {
		svc = xs_find_service(ctx, &p, base, &r);
		if (r >= 0)
			return r;
		if (svc)
			pool_id = svc->id;
	}

	t = xs_flow_target(base, pool_id, &p.key, p.tcp_flags, cached, &pin, &why);
	if (svc)
		goto backend;
	if (!t) {
		/* With services, traffic for no VIP and no queue pool is left alone. */
		xs_count(self && self->n_services && why == XS_C_NO_TARGETS ? XS_C_NOT_VIP : why);
		return XDP_PASS;
	}
queue:
	return xs_deliver(ctx, pin.target, t);
backend:
	return xs_deliver_backend(ctx, &p, svc, t, &pin, hit != NULL, cached, epoch);
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

SEC("xdp/cpumap")
int xdpsteer_cpumap(struct xdp_md *ctx)
{
	xs_dequeued(bpf_get_smp_processor_id());
	return XDP_PASS;
}

/* Runs at devmap flush, before transmit: the frame has left the queue. */
SEC("xdp/devmap")
int xdpsteer_devmap(struct xdp_md *ctx)
{
	__u32 ifindex = ctx->egress_ifindex, *target = bpf_map_lookup_elem(&xs_dev_ids, &ifindex);

	if (target)
		xs_dequeued(*target);
	return XDP_PASS;
}

/* Frames the cpumap dropped after we returned XDP_REDIRECT never dequeue. */
SEC("tp_btf/xdp_cpumap_enqueue")
int BPF_PROG(xdpsteer_cpumap_drops, int map_id, unsigned int processed, unsigned int drops,
	     int to_cpu)
{
	struct xs_target_stats *s;
	struct xs_self *self;
	__u32 zero = 0, target = to_cpu;

	if (!drops)
		return 0;
	self = bpf_map_lookup_elem(&xs_self, &zero);
	if (!self || self->cpumap_id != (__u32)map_id)
		return 0;
	s = bpf_map_lookup_elem(&xs_target_stats, &target);
	if (s)
		s->dropped += drops;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
