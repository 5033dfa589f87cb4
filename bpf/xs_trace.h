/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * `xdpsteer trace` in the data path (include/xs_trace_rec.h has the record).
 *
 * The packet path reads one global, xs_trace_on, and branches: with nobody
 * tracing that is all it costs. The CLI finds the running program's .bss
 * and sets the flag after it has written the filter (xs_trace_filter), and
 * clears both when it stops.
 *
 * A traced packet goes through global subprograms, each verified once:
 * xs_trace_pre() (or xs_trace_pre_slow()) before the decision (filter on the flow, snapshot of this
 * CPU's counters and of the packet's first bytes) and xs_trace_post() after
 * it (the counters that moved are the reasons; filter on backend and reason,
 * sampling, a per-CPU rate cap, then one ring buffer record). All their
 * state is in the per-CPU xs_trace_scratch: the program's stack is full.
 */
#ifndef XS_BPF_TRACE_H
#define XS_BPF_TRACE_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_trace_rec.h"
#include "xs_maps.h"
#include "xs_parse.h"
#include "xs_parse_prog.h"

/* Non-zero while a trace runs: the only thing an untraced packet reads. */
volatile __u32 xs_trace_on;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_trace_filter);
} xs_trace_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, XS_TRACE_RING_BYTES);
} xs_trace_ring SEC(".maps");

#define XS_TRACE_P(s) ((struct xs_parsed *)(s)->parsed)

/* One CPU's trace in progress: the packet stays on its CPU from pre to post. */
struct xs_trace_scratch {
	/*
	 * struct xs_parsed, as bytes: its family and icmp are small numbers, and
	 * typed so they would print as numbers where bpftool promises names.
	 */
	__u8 parsed[sizeof(struct xs_parsed)] __attribute__((aligned(8)));
	struct xs_counter_block before;
	__u64 matched;       /* packets that passed the filter: the sampling count */
	__u64 window_ns;     /* start of the rate cap's current second */
	__u32 in_window;     /* records emitted in it */
	__u32 lost;
	__u32 pending;       /* xs_trace_pre() took this packet: xs_trace_post() emits it */
	__u32 pad;
	struct xs_trace_rec rec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_trace_scratch);
} xs_trace_scratch SEC(".maps");

/* A flag, not a map lookup: one load and a branch per packet when idle. */
static __always_inline __u32 xs_trace_armed(void)
{
	return xs_trace_on;
}

static __always_inline int xs_trace_key_match(const struct xs_trace_filter *f,
					      const struct xs_flow_key *k)
{
	int i;

	if (f->fields & XS_TF_SERVICE) {
		if (k->proto != f->proto || (f->port && k->dport != f->port))
			return 0;
		for (i = 0; i < 4; i++)
			if (XS_W32C(k->dst, i) != XS_W32C(f->vip, i))
				return 0;
	}
	if (f->fields & XS_TF_CLIENT)
		for (i = 0; i < 4; i++)
			if ((XS_W32C(k->src, i) & XS_W32C(f->client_mask, i)) !=
			    XS_W32C(f->client, i))
				return 0;
	return 1;
}

/*
 * Copy the first min(@len, @max) bytes of the frame to @buf; how many.
 * @max is a power of two: the count is masked after the barrier, where
 * clang cannot drop the mask, so the verifier sees it in [1, @max].
 */
static __always_inline __u16 xs_trace_bytes(struct xdp_md *ctx, void *buf, __u32 len, __u32 max)
{
	__u32 m;

	if (!len)
		return 0;
	m = (len > max ? max : len) - 1;
	barrier_var(m);
	m = (m & (max - 1)) + 1;
	return bpf_xdp_load_bytes(ctx, 0, buf, m) ? 0 : m;
}

/*
 * The flow parsed into XS_TRACE_P(@s) matches: snapshot the counters and the packet,
 * unless the record could not be emitted anyway. A full second's worth of
 * records, or, with no filter left for after the decision, a packet the
 * sampling skips, costs no snapshot: the cap bounds what a trace costs.
 */
static __always_inline int xs_trace_take(struct xdp_md *ctx, const struct xs_trace_filter *f,
					 struct xs_trace_scratch *s)
{
	__u32 cpu = bpf_get_smp_processor_id(), len;
	__u64 *row;

	if (f->rate && s->in_window >= f->rate &&
	    bpf_ktime_get_ns() - s->window_ns < 1000000000ULL) {
		s->lost++;
		return 0;
	}
	if (!(f->fields & (XS_TF_BACKEND | XS_TF_REASON)) && f->sample > 1 &&
	    s->matched++ % f->sample)
		return 0;
	row = bpf_map_lookup_elem(&xs_counters, &cpu);
	if (!row)
		return 0;
	__builtin_memcpy(&s->before, row, sizeof(s->before));
	len = ctx->data_end - ctx->data;
	s->rec.pkt_len = len;
	s->rec.cap_len = xs_trace_bytes(ctx, s->rec.data, len, XS_TRACE_SNAP);
	s->pending = 1;
	return 1;
}

#define XS_TRACE_SLOW 2

/* The trace's filter and this CPU's scratch, when a trace is armed. */
static __always_inline bool xs_trace_state(const struct xs_trace_filter **f,
					   struct xs_trace_scratch **s)
{
	__u32 zero = 0;

	*f = bpf_map_lookup_elem(&xs_trace_filter, &zero);
	*s = bpf_map_lookup_elem(&xs_trace_scratch, &zero);
	return *f && *s && (*f)->owner;
}

/* The key the parser left in @s against the filter, then the take. */
static __always_inline int xs_trace_match(struct xdp_md *ctx, const struct xs_trace_filter *f,
					  struct xs_trace_scratch *s)
{
	if (!xs_trace_key_match(f, &XS_TRACE_P(s)->key))
		return 0;
	return xs_trace_take(ctx, f, s);
}

/*
 * Before the decision: 1 if this packet is traced (its snapshot taken), 0
 * if not, XS_TRACE_SLOW if the fast parser could not key it: then the
 * caller runs xs_trace_pre_slow(). The fast parser is inlined here, and the
 * global one is called from there: from here, the stack of three frames
 * (the program, this, the parser) would pass 512 bytes.
 */
__attribute__((noinline)) int xs_trace_pre(struct xdp_md *ctx)
{
	const struct xs_trace_filter *f;
	struct xs_trace_scratch *s;

	if (!xs_trace_state(&f, &s))
		return 0;
	s->pending = 0;
	__builtin_memset(XS_TRACE_P(s), 0, sizeof(struct xs_parsed));
	if (xs_parse_fast((void *)(long)ctx->data, (void *)(long)ctx->data_end, XS_TRACE_P(s)))
		return XS_TRACE_SLOW;
	return xs_trace_match(ctx, f, s);
}

/* xs_trace_pre() for what the fast parser leaves to the global one. */
__attribute__((noinline)) int xs_trace_pre_slow(struct xdp_md *ctx)
{
	const struct xs_trace_filter *f;
	struct xs_trace_scratch *s;

	if (!xs_trace_state(&f, &s))
		return 0;
	__builtin_memset(XS_TRACE_P(s), 0, sizeof(struct xs_parsed));
	if (xs_parse_global(ctx, XS_TRACE_P(s)) != XS_PARSE_OK)
		/* Traced by its reason alone. */
		__builtin_memset(&XS_TRACE_P(s)->key, 0, sizeof(XS_TRACE_P(s)->key));
	return xs_trace_match(ctx, f, s);
}

/*
 * After the decision @verdict, @dec (XS_TRACE_DEC()): filter, sample, cap,
 * emit. Called when the flag is still set, and emits only what
 * xs_trace_pre() took: the program does not carry "traced" in a register
 * from one to the other, for the verifier would then walk the whole
 * decision twice, once with it 0 and once not (932k instructions).
 */
__attribute__((noinline)) int xs_trace_post(struct xdp_md *ctx, int verdict, __u64 dec)
{
	const struct xs_trace_filter *f;
	struct xs_trace_scratch *s;
	struct xs_trace_rec *r;
	__u64 reasons = 0, now, *after;
	__u32 zero = 0, cpu, len, i;

	f = bpf_map_lookup_elem(&xs_trace_filter, &zero);
	s = bpf_map_lookup_elem(&xs_trace_scratch, &zero);
	cpu = bpf_get_smp_processor_id();
	after = bpf_map_lookup_elem(&xs_counters, &cpu);
	if (!f || !s || !after || !s->pending)
		return 0;
	s->pending = 0;
	for (i = 0; i < XS_C_MAX; i++)
		if (after[i] != ((__u64 *)&s->before)[i])
			reasons |= 1ULL << i;
	if ((f->fields & XS_TF_BACKEND) && (__u32)dec != f->backend)
		return 0;
	if ((f->fields & XS_TF_REASON) && !(reasons & f->reasons))
		return 0;
	if ((f->fields & (XS_TF_BACKEND | XS_TF_REASON)) && f->sample > 1 &&
	    s->matched++ % f->sample)
		return 0;
	now = bpf_ktime_get_ns();
	if (now - s->window_ns >= 1000000000ULL) {
		s->window_ns = now;
		s->in_window = 0;
	}
	if (f->rate && s->in_window >= f->rate) {
		s->lost++;
		return 0;
	}
	s->in_window++;
	r = &s->rec;
	r->ts_ns = now;
	r->reasons = reasons;
	__builtin_memcpy(&r->key, &XS_TRACE_P(s)->key, sizeof(r->key));
	r->cpu = cpu;
	r->verdict = verdict;
	r->pool = dec >> 32;
	r->target = (__u32)dec;
	r->ifindex = ctx->ingress_ifindex;
	len = ctx->data_end - ctx->data;
	r->out_len = len;
	r->out_cap = xs_trace_bytes(ctx, r->out, len, XS_TRACE_OUT);
	r->lost = s->lost;
	if (bpf_ringbuf_output(&xs_trace_ring, r, sizeof(*r), 0))
		s->lost++;
	else
		s->lost = 0;
	return 0;
}

#endif /* XS_BPF_TRACE_H */
