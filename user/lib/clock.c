// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The flow clock. Packets read the time from a global that a BPF timer
 * stamps, because reading the clock in every packet costs more than the rest
 * of an established flow's work (see bpf/xs_clock.h, xs_now).
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "clock.h"
#include "log.h"

__u64 xs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

__u64 xs_clock_period_ns(const struct xs_timeouts *to)
{
	__u64 ns = ((__u64)to->refresh << XS_TICK_SHIFT) / 4;

	if (ns < 1000000ULL)
		return 1000000ULL;
	return ns > 100000000ULL ? 100000000ULL : ns;
}

int xs_clock_start(int prog_fd, const char *what)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	static const char *const why[] = { "ok", "no xs_clock entry", "bpf_timer_init failed",
					   "bpf_timer_set_callback failed",
					   "bpf_timer_start failed" };

	if (bpf_prog_test_run_opts(prog_fd, &o)) {
		int err = -errno;

		pr_warn("%s: cannot run the flow clock's start program: %s\n", what,
			strerror(-err));
		return err;
	}
	if (o.retval) {
		pr_warn("%s: cannot start the flow clock: %s\n", what,
			o.retval < 5 ? why[o.retval] : "unknown error");
		return -EIO;
	}
	return 0;
}
