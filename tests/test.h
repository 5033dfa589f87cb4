/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Minimal test harness in the style of the kernel's BPF selftests: ASSERT_*
 * macros print file, line, expected and actual values; each TEST() prints
 * PASS or FAIL; test_summary() prints "N passed, N failed" for tests/run.sh.
 */
#ifndef XS_TEST_H
#define XS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_passed, test_failed, test_cur_failed;
static const char *test_cur_name;

#define ASSERT_TRUE(cond, fmt, ...)                                                       \
	({                                                                                \
		int ___ok = !!(cond);                                                     \
		if (!___ok) {                                                             \
			test_cur_failed = 1;                                              \
			fprintf(stderr, "  %s:%d: %s: assertion '%s' failed: " fmt "\n",  \
				__FILE__, __LINE__, test_cur_name, #cond, ##__VA_ARGS__);  \
		}                                                                         \
		___ok;                                                                    \
	})

#define ASSERT_EQ(actual, expected, what)                                                 \
	({                                                                                \
		unsigned long long ___a = (unsigned long long)(actual);                   \
		unsigned long long ___e = (unsigned long long)(expected);                 \
		ASSERT_TRUE(___a == ___e, "%s: expected %llu (0x%llx), got %llu (0x%llx)", \
			    what, ___e, ___e, ___a, ___a);                                \
	})

#define ASSERT_RANGE(actual, lo, hi, what)                                                \
	({                                                                                \
		double ___v = (double)(actual), ___lo = (lo), ___hi = (hi);               \
		ASSERT_TRUE(___v >= ___lo && ___v <= ___hi,                               \
			    "%s: %.6g not within [%.6g, %.6g]", what, ___v, ___lo, ___hi); \
	})

#define TEST(name)                                                                        \
	static void test_##name(void);                                                    \
	static void run_##name(void)                                                      \
	{                                                                                 \
		test_cur_name = #name;                                                    \
		test_cur_failed = 0;                                                      \
		test_##name();                                                            \
		if (test_cur_failed)                                                      \
			test_failed++;                                                    \
		else                                                                      \
			test_passed++;                                                    \
		printf("%s: %s\n", test_cur_failed ? "FAIL" : "PASS", #name);              \
		fflush(stdout);                                                           \
	}                                                                                 \
	static void test_##name(void)

#define RUN(name) run_##name()

/* Print the closing line and return the process exit code. */
static inline int test_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
	return test_failed ? 1 : 0;
}

/* xorshift64*: reproducible test keys from a fixed seed. */
static inline unsigned long long test_rand64(unsigned long long *s)
{
	unsigned long long x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

#endif /* XS_TEST_H */
