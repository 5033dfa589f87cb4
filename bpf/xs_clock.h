/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The flow clock: flow time in ticks (XS_TICK_SHIFT), kept by a BPF timer
 * (xs_clock in xs_maps.h) that the program xdpsteer_clock_start starts.
 */
#ifndef XS_CLOCK_H
#define XS_CLOCK_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_maps.h"

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

#endif /* XS_CLOCK_H */
