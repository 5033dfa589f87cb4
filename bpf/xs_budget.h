/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Token buckets (struct xs_pin_budget, one per CPU): how the program bounds
 * what a flood can make it do, new pins (xs_pin_budget) and ICMP answers
 * (xs_icmp_budget).
 */
#ifndef XS_BUDGET_H
#define XS_BUDGET_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"

/*
 * Take one token from @b, refilled at @rate a second up to @burst: 1 if there
 * was one. @rate is not 0. Credit is in nanotokens (1e9 per token).
 */
static __always_inline int xs_budget_take(struct xs_pin_budget *b, __u32 rate, __u32 burst)
{
	const __u64 unit = 1000000000ULL, cap = (__u64)burst * unit;
	__u64 now, elapsed;

	now = bpf_ktime_get_coarse_ns();
	elapsed = now - b->last_ns;
	b->last_ns = now;
	/* Clamp first: elapsed * rate must not overflow after a long quiet spell. */
	if (elapsed > cap / rate)
		elapsed = cap / rate;
	b->credit += elapsed * rate;
	if (b->credit > cap)
		b->credit = cap;
	if (b->credit < unit)
		return 0;
	b->credit -= unit;
	return 1;
}

#endif /* XS_BUDGET_H */
