/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Counting: the data-plane counters (xs_counters, enum xs_counter) and the
 * packets and bytes a delivery adds to its target's and service's stats.
 */
#ifndef XS_COUNT_H
#define XS_COUNT_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_maps.h"
#include "xs_parse.h"

static __always_inline void xs_count(__u32 counter)
{
	__u32 cpu = bpf_get_smp_processor_id(); /* xs_counters: a block of one row per CPU */
	__u64 *c = bpf_map_lookup_elem(&xs_counters, &cpu);

	/*
	 * A variable index is checked where it is used (barrier_var()): clang
	 * would test a copy the verifier does not follow. A constant one is
	 * checked by the compiler, and the barrier would only stop that.
	 */
	if (!__builtin_constant_p(counter))
		barrier_var(counter);
	if (c && counter < XS_C_MAX)
		c[counter] += 1;
}

/* A packet whose flow the cache answered; an ICMP error is counted steered for a service. */
static __always_inline void xs_count_hit(const struct xs_parsed *p, int service)
{
	xs_count(XS_C_FLOW_HIT);
	if (p->icmp == XS_ICMP_ERROR && service)
		xs_count(XS_C_ICMP_ERROR);
}

/* A packet for service @id going to backend @target: the per-CPU counts. */
static __always_inline struct xs_service_stats *xs_count_backend(__u32 id, __u32 target,
								 __u32 len)
{
	struct xs_service_stats *ss = bpf_map_lookup_elem(&xs_service_stats, &id);
	struct xs_target_stats *s = bpf_map_lookup_elem(&xs_target_stats, &target);

	if (s) {
		s->packets++;
		s->bytes += len;
	}
	if (ss) {
		ss->packets++;
		ss->bytes += len;
	}
	return ss;
}

#endif /* XS_COUNT_H */
