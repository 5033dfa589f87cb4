// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xdpsteer: hash each packet's flow key and steer it to one of N targets
 * (cpumap CPUs or devmap interfaces, or the backends of a service) by jump
 * consistent hash or by a shuffle-shard hand. The decision itself lives in
 * include/xs_select.h and is shared with `xdpsteer lookup`; bpf/xs_*.h hold
 * the rest by concern. This file holds the programs.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "xdpsteer.h"
#include "xs_maps.h"
#include "xs_config.h"
#include "xs_clock.h"
#include "xs_count.h"
#include "xs_flow.h"
#include "xs_order.h"
#include "xs_parse.h"
#include "xs_parse_prog.h"
#include "xs_quic.h"
#include "xs_service.h"
#include "xs_target.h"
#include "xs_trace.h"

/* One load, in program order: what userspace changes while packets run. */
#define XS_READ_ONCE(x) (*(const volatile typeof(x) *)&(x))

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

/*
 * The configuration epoch (xs_epoch). A packet reads it before anything a
 * recipe is made of: userspace writes a target or flips pool_base, then adds
 * to the epoch (release), so a packet that reads a new epoch and then
 * orders its later loads after that read (xs_acquire()) sees the change
 * that came with it. A recipe is never older than the epoch it carries.
 * The acquire is separate so that a flow whose recipe is current, the
 * common case, pays for none: it reads nothing else of the configuration.
 */
static __always_inline __u32 xs_epoch_now(void)
{
	__u32 zero = 0, *e = bpf_map_lookup_elem(&xs_epoch, &zero);

	return e ? XS_READ_ONCE(*e) : 0;
}

/*
 * xs_self, read only when needed (a flow found in the flow cache with a
 * current recipe, or for a queue, needs no pool): *base is the pool
 * generation the packet uses from then on, so it sees the old topology or
 * the new one, never both. The generation is written before pool_base
 * names it (release, xs_txn_flip()), so it is read after (acquire).
 */
static __always_inline const struct xs_self *xs_self_read(__u32 *base)
{
	const struct xs_self *self;
	__u32 zero = 0;

	self = bpf_map_lookup_elem(&xs_self, &zero);
	*base = self ? XS_READ_ONCE(self->pool_base) : 0;
	xs_acquire();
	return self;
}

/*
 * The decision for one packet. *dec gets the pool and target it chose
 * (XS_TRACE_DEC()), for a trace: inlined, it is a register, and costs an
 * untraced packet a move or two.
 */
static __always_inline int xs_steer_packet(struct xdp_md *ctx, __u64 *dec)
{
	struct xs_flow_cache_entry *cached = NULL, *hit = NULL;
	const struct xs_service *svc = NULL;
	struct xs_parsed p = {};
	const struct xs_target *t, *qt;
	const struct xs_self *self = NULL;
	struct xs_flow_pin pin;
	__u32 why, pool_id = XS_POOL_QUEUES, base = 0, epoch = 0, slot, qid = 0;
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
			if (hit->recipe.ready && hit->recipe.epoch == epoch) {
				*dec = XS_TRACE_DEC(hit->pool, hit->pin.target);
				if (!hit->recipe.quic)
					return xs_deliver_cached(ctx, &p, hit);
				/* QUIC: the connection id, if it names a backend, decides. */
				qt = xs_quic_backend(ctx, &p, hit->pool, &qid);
				if (!qt || qid == hit->pin.target) {
					if (qt)
						xs_count(XS_C_QUIC_CID);
					return xs_deliver_cached(ctx, &p, hit);
				}
				hit = NULL; /* another backend: the long way, below */
			}
			/* Out of date: what the recipe is made again from is as new as @epoch. */
			xs_acquire();
		}
		t = hit ? xs_live_target(hit->pin.target, hit->pin.uid) : NULL;
		if (hit && t) {
			xs_count_hit(&p, hit->pool != XS_POOL_QUEUES);
			/* A queue flow needs only its target: no copy of the pin. */
			if (hit->pool == XS_POOL_QUEUES) {
				*dec = XS_TRACE_DEC(XS_POOL_QUEUES, hit->pin.target);
				return xs_deliver(ctx, hit->pin.target, t);
			}
			pin = hit->pin;
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
	xs_acquire();
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
	*dec = XS_TRACE_DEC(XS_POOL_QUEUES, pin.target);
	return xs_deliver(ctx, pin.target, t);
backend:
	r = hit != NULL;
	if (svc->quic) {
		/* The connection id overrides the pin, for this packet only. */
		qt = xs_quic_backend(ctx, &p, svc->id, &qid);
		if (qt) {
			xs_count(XS_C_QUIC_CID);
			if (qid != pin.target) {
				pin.target = qid;
				pin.uid = qt->uid;
				t = qt;
				r = 0;
				cached = NULL;
			}
		}
	}
	*dec = XS_TRACE_DEC(svc->id, t ? pin.target : XS_NO_TARGET);
	/* One call: each inlined copy of the delivery is verified on its own. */
	return xs_deliver_backend(ctx, &p, svc, t, &pin, r, cached, epoch);
}

SEC("xdp")
int xdpsteer_xdp(struct xdp_md *ctx)
{
	__u64 dec = XS_TRACE_NONE;
	int verdict;

	/* Read twice, not kept: see xs_trace_post(). */
	if (xs_trace_armed() && xs_trace_pre(ctx) == XS_TRACE_SLOW)
		xs_trace_pre_slow(ctx);
	verdict = xs_steer_packet(ctx, &dec);
	if (xs_trace_armed())
		xs_trace_post(ctx, verdict, dec);
	return verdict;
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
