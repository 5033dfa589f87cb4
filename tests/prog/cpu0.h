/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Keep a test on CPU 0. A test run executes on the calling CPU, and some
 * state is per CPU (the flow cache, the pin budget): staying on one CPU makes
 * a flow's next packet find what its last one left there. Needs _GNU_SOURCE.
 */
#ifndef XS_TEST_CPU0_H
#define XS_TEST_CPU0_H

#include <sched.h>
#include <stdio.h>

/* 0, or -1 after reporting the suite as failed. */
static inline int stay_on_cpu0(const char *suite)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (!sched_setaffinity(0, sizeof(one), &one))
		return 0;
	perror("FAIL: sched_setaffinity to CPU 0");
	printf("%s: 0 passed, 1 failed\n", suite);
	return -1;
}

#endif /* XS_TEST_CPU0_H */
