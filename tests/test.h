/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Minimal test harness in the style of the kernel's BPF selftests: ASSERT_*
 * macros print file, line, expected and actual values; each TEST() registers
 * itself and prints PASS or FAIL when it runs; TEST_MAIN() runs them all or
 * the ones named, and prints "SUITE: N passed, N failed" for tests/run.sh.
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

/*
 * Registration: TEST(name) defines the test and, from a constructor, adds it to
 * the suite's list, kept in definition order (by line: one file is one suite).
 * TEST_NEEDS(name, earlier) says that test name uses what test earlier left
 * behind (a service, a neighbour): run by name, it brings earlier along.
 * TEST_MAIN(suite, setup, teardown) is the file's main(); see below.
 */
struct test_case {
	const char *name;
	void (*run)(void);
	int line;
	int selected;
	struct test_case *next;
};

struct test_need {
	struct test_case *test, *needs;
	struct test_need *next;
};

static struct test_case *test_list;
static struct test_need *test_needs;

static inline void test_register(struct test_case *t)
{
	struct test_case **p = &test_list;

	while (*p && (*p)->line < t->line)
		p = &(*p)->next;
	t->next = *p;
	*p = t;
}

/* After both tests' definitions (it names them, so a typo does not compile). */
#define TEST_NEEDS(name, earlier)                                                         \
	static struct test_need test_need_##name##_##earlier = {                          \
		&test_case_##name, &test_case_##earlier, NULL                             \
	};                                                                                \
	__attribute__((constructor)) static void test_need_reg_##name##_##earlier(void)   \
	{                                                                                 \
		test_need_##name##_##earlier.next = test_needs;                           \
		test_needs = &test_need_##name##_##earlier;                               \
	}

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
	static struct test_case test_case_##name = {                                      \
		#name, run_##name, __LINE__, 0, NULL                                      \
	};                                                                                \
	__attribute__((constructor)) static void test_register_##name(void)               \
	{                                                                                 \
		test_register(&test_case_##name);                                         \
	}                                                                                 \
	static void test_##name(void)

/* Print the closing line and return the process exit code. */
static inline int test_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
	return test_failed ? 1 : 0;
}

static inline struct test_case *test_find(const char *name)
{
	struct test_case *t;

	for (t = test_list; t; t = t->next)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/*
 *   test_x               every test, in definition order
 *   test_x NAME...       only those, and the earlier tests they need (TEST_NEEDS),
 *                        in definition order
 *   test_x --list        the names, one per line (no setup runs)
 * setup() (or NULL) runs once before the tests: 0, or it prints why and
 * returns non-zero, and the suite counts as one failure. teardown() (or NULL)
 * runs once after them. A name that is no test here is an error, not a pass.
 */
static inline int test_main(int argc, char **argv, const char *suite, int (*setup)(void),
			    void (*teardown)(void))
{
	struct test_case *t;
	int i, bad = 0, selected = argc > 1;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (t = test_list; t; t = t->next)
			printf("%s\n", t->name);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s [--list | TEST...]\n", argv[0]);
			return 0;
		}
		t = test_find(argv[i]);
		if (!t) {
			fprintf(stderr, "%s: no test named '%s' (--list shows them)\n", suite, argv[i]);
			bad++;
			continue;
		}
		t->selected = 1;
	}
	if (bad) {
		printf("%s: 0 passed, %d failed\n", suite, bad);
		return 1;
	}
	for (struct test_need *n = test_needs; n; n = n->next) {
		if (n->needs->line >= n->test->line) {
			fprintf(stderr, "%s: %s needs %s, which is not defined before it\n", suite,
				n->test->name, n->needs->name);
			printf("%s: 0 passed, 1 failed\n", suite);
			return 1;
		}
	}
	/* What a chosen test needs runs too, and what that needs, and so on. */
	for (int changed = selected; changed;) {
		changed = 0;
		for (struct test_need *n = test_needs; n; n = n->next) {
			if (n->test->selected && !n->needs->selected) {
				printf("(%s needs %s: running it too)\n", n->test->name, n->needs->name);
				n->needs->selected = changed = 1;
			}
		}
	}
	if (setup && setup()) {
		printf("%s: 0 passed, 1 failed\n", suite);
		return 1;
	}
	for (t = test_list; t; t = t->next)
		if (!selected || t->selected)
			t->run();
	if (teardown)
		teardown();
	return test_summary(suite);
}

#define TEST_MAIN(suite, setup, teardown)                                                 \
	int main(int argc, char **argv)                                                   \
	{                                                                                 \
		return test_main(argc, argv, suite, setup, teardown);                     \
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
