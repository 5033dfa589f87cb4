/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The flow clock: the BPF timer that gives packets the time for idle timeouts. */
#ifndef XS_CLOCK_H
#define XS_CLOCK_H

#include "xdpsteer.h"

/* How often the clock should tick for @to: a quarter of the refresh interval, 1-100 ms. */
__u64 xs_clock_period_ns(const struct xs_timeouts *to);
/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() and the coarse variant read. */
__u64 xs_mono_ns(void);
/* Flow time now, in ticks, as the clock program stamps xs_now and pins' seen. */
static inline __u32 xs_tick_now(void)
{
	return (__u32)(xs_mono_ns() >> XS_TICK_SHIFT);
}
/* The same in ms, for the agent's deadlines. */
static inline long long xs_mono_ms(void)
{
	return (long long)(xs_mono_ns() / 1000000ULL);
}
/* Run the object's clock-start program (@prog_fd, SEC("syscall")) once. */
int xs_clock_start(int prog_fd, const char *what);

#endif /* XS_CLOCK_H */
