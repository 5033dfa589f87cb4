/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Keep a test on one CPU, the first it may run on. A test run executes on
 * the calling CPU, and some state is per CPU (the flow cache, the pin
 * budget): staying on one CPU makes a flow's next packet find what its last
 * one left there. Needs _GNU_SOURCE.
 */
#ifndef XS_TEST_ONE_CPU_H
#define XS_TEST_ONE_CPU_H

#include <sched.h>
#include <stdio.h>

/* 0, or -1 after reporting the suite as failed. */
static inline int stay_on_one_cpu(const char *suite)
{
	cpu_set_t allowed, one;
	int cpu;

	if (!sched_getaffinity(0, sizeof(allowed), &allowed)) {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
			if (!CPU_ISSET(cpu, &allowed))
				continue;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (!sched_setaffinity(0, sizeof(one), &one))
				return 0;
			break;
		}
	}
	perror("FAIL: cannot stay on one CPU (sched_setaffinity)");
	printf("%s: 0 passed, 1 failed\n", suite);
	return -1;
}

#endif /* XS_TEST_ONE_CPU_H */
