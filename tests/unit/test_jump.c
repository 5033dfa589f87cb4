// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Unit tests for xs_jump() (include/xs_jump.h).
 *
 * The BPF program cannot use floating point, so xs_jump() is the integer
 * form of Lamping and Veach's jump consistent hash. These tests check that
 * it is the same function as the published double-based algorithm, that it
 * balances keys, and that growing N by one moves exactly the keys that land
 * in the new bucket.
 *
 * Statistical bounds: every count below is a sum of independent Bernoulli
 * trials over keys from test_rand64() with a fixed seed, so each test is
 * deterministic; the bounds are still derived from the binomial standard
 * deviation (6 sigma, two-sided p ~ 2e-9 per count) so that they would hold
 * for any seed and are not tuned to one.
 */
#include <math.h>
#include <stdint.h>

#include "test.h"
#include "xs_jump.h"

#define SIGMAS 6.0

/*
 * The reference, exactly as published (Lamping and Veach 2014, fig. 1),
 * including the double-precision division that BPF cannot do.
 */
static int32_t jump_ref(uint64_t key, int32_t num_buckets)
{
	int64_t b = -1, j = 0;

	while (j < num_buckets) {
		b = j;
		key = key * 2862933555777941757ULL + 1;
		j = (long long)((b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
	}
	return (int32_t)b;
}

/* Binomial standard deviation of a count out of @n trials with probability @p. */
static double binom_sd(double n, double p)
{
	return sqrt(n * p * (1.0 - p));
}

/*
 * Integer form == double form, key for key. Both compute
 * floor((b + 1) * 2^31 / (k + 1)); the double form rounds twice, but for the j
 * that matter (j close to n <= 65536) the rounding error (~j * 2^-52) is far
 * smaller than the distance of a non-integer quotient to the next integer
 * (>= 1 / (k + 1) >= 2^-31), so they must agree exactly: no tolerance.
 */
TEST(agrees_with_paper)
{
	static const uint32_t fixed_n[] = { 1, 2, 3, 10, 20, 21, 64, 1000, 1024, 65535, 65536 };
	unsigned long long s = 0x6a756d7020726566ULL, compared = 0, mismatches = 0;
	uint32_t i, k;

	/* 100,000 keys at each of the named N ... */
	for (i = 0; i < XS_ARRAY_SIZE(fixed_n); i++) {
		for (k = 0; k < 100000; k++) {
			uint64_t key = test_rand64(&s);
			uint32_t got = xs_jump(key, fixed_n[i]);
			int32_t want = jump_ref(key, (int32_t)fixed_n[i]);

			compared++;
			if (got != (uint32_t)want && mismatches++ < 5)
				ASSERT_EQ(got, want, "xs_jump vs paper");
		}
	}
	/* ... plus 5,000 keys at each of 200 random N in [1, 65536]. */
	for (i = 0; i < 200; i++) {
		uint32_t n = (uint32_t)(test_rand64(&s) % 65536) + 1;

		for (k = 0; k < 5000; k++) {
			uint64_t key = test_rand64(&s);
			uint32_t got = xs_jump(key, n);
			int32_t want = jump_ref(key, (int32_t)n);

			compared++;
			if (got != (uint32_t)want && mismatches++ < 5)
				ASSERT_EQ(got, want, "xs_jump vs paper (random n)");
		}
	}
	/* Keys at the ends of the range: 0, all ones, single bits. */
	for (k = 0; k < 64; k++) {
		uint64_t keys[3] = { 0, ~0ULL, 1ULL << k };
		uint32_t m;

		for (m = 0; m < 3; m++) {
			for (i = 0; i < XS_ARRAY_SIZE(fixed_n); i++) {
				compared++;
				if (xs_jump(keys[m], fixed_n[i]) !=
					    (uint32_t)jump_ref(keys[m], (int32_t)fixed_n[i]) &&
				    mismatches++ < 5)
					ASSERT_TRUE(0, "edge key 0x%llx n %u", (unsigned long long)keys[m],
						    fixed_n[i]);
			}
		}
	}
	printf("  jump agreement: %llu comparisons, %llu mismatches\n", compared, mismatches);
	ASSERT_TRUE(compared >= 1000000, "only %llu comparisons", compared);
	ASSERT_EQ(mismatches, 0, "mismatches");
}

/*
 * Balance. Each bucket count is Binomial(M, 1/N): every one must be within
 * 6 sigma of M/N. The chi-square over all buckets (N - 1 degrees of freedom,
 * mean N - 1, sd sqrt(2(N - 1))) must also be within 6 sd of its mean: the
 * upper side catches bias, the lower side catches a spread too even to be
 * random (e.g. a key counter taken modulo N).
 */
TEST(balance)
{
	static const uint32_t ns[] = { 10, 64, 1000 };
	const uint32_t M = 1000000;
	static uint32_t count[1000];
	unsigned long long s = 0x62616c616e636531ULL;
	uint32_t i, k, b;

	for (i = 0; i < XS_ARRAY_SIZE(ns); i++) {
		uint32_t n = ns[i];
		double mean = (double)M / n, sd = binom_sd(M, 1.0 / n);
		double chi2 = 0, worst = 0, dof = n - 1;

		memset(count, 0, sizeof(count));
		for (k = 0; k < M; k++) {
			b = xs_jump(test_rand64(&s), n);
			if (!ASSERT_TRUE(b < n, "bucket %u >= n %u", b, n))
				return;
			count[b]++;
		}
		for (b = 0; b < n; b++) {
			double d = count[b] - mean;

			chi2 += d * d / mean;
			if (fabs(d) > worst)
				worst = fabs(d);
		}
		printf("  n=%-4u mean %.1f  max |dev| %.0f (%.2f sd, bound %.0f sd)  chi2 %.1f (dof %.0f)\n",
		       n, mean, worst, worst / sd, SIGMAS, chi2, dof);
		ASSERT_TRUE(worst < SIGMAS * sd, "n %u: max deviation %.0f >= %.0f", n, worst,
			    SIGMAS * sd);
		ASSERT_RANGE(chi2, dof - SIGMAS * sqrt(2 * dof), dof + SIGMAS * sqrt(2 * dof),
			     "chi-square");
	}
}

/*
 * Growth N -> N + 1: a key either stays or moves to the new bucket N, never
 * elsewhere (that is exact, no tolerance). The number moved is
 * Binomial(K, 1/(N + 1)) and must be within 6 sigma of K/(N + 1).
 */
static void growth_one(uint32_t n, uint32_t keys, unsigned long long *s, int print)
{
	uint32_t k, moved = 0, wrong = 0;
	double p = 1.0 / (n + 1), sd = binom_sd(keys, p);

	for (k = 0; k < keys; k++) {
		uint64_t key = test_rand64(s);
		uint32_t a = xs_jump(key, n), b = xs_jump(key, n + 1);

		if (a == b)
			continue;
		moved++;
		if (b != n && wrong++ < 3)
			ASSERT_TRUE(0, "n %u: key 0x%llx moved %u -> %u, not to %u", n,
				    (unsigned long long)key, a, b, n);
	}
	if (print)
		printf("  %u -> %u: moved %.4f%% (ideal %.4f%%), stayed %.4f%% (ideal %.4f%%)\n", n,
		       n + 1, 100.0 * moved / keys, 100.0 * p, 100.0 * (keys - moved) / keys,
		       100.0 * (1 - p));
	ASSERT_EQ(wrong, 0, "keys moved to an old bucket");
	ASSERT_RANGE(moved, keys * p - SIGMAS * sd, keys * p + SIGMAS * sd, "moved keys");
}

TEST(growth)
{
	unsigned long long s = 0x67726f7774683131ULL;
	uint32_t n;

	for (n = 1; n <= 100; n++)
		growth_one(n, 100000, &s, n == 1 || n == 10 || n == 100);
	growth_one(1000, 100000, &s, 1);
	/* Golubtsov's published comparison (docs/references.md): 1M keys, 20 -> 21. */
	growth_one(20, 1000000, &s, 1);
}

TEST(edges)
{
	unsigned long long s = 0x6564676573212121ULL;
	uint32_t k;

	/* One bucket: every key lands in it. */
	for (k = 0; k < 100000; k++)
		if (!ASSERT_EQ(xs_jump(test_rand64(&s), 1), 0, "n = 1"))
			break;
	ASSERT_EQ(xs_jump(0, 1), 0, "key 0, n = 1");
	ASSERT_EQ(xs_jump(~0ULL, 1), 0, "key ~0, n = 1");

	/*
	 * Always < n, over the whole __u32 range of n, including the largest:
	 * ((b + 1) << 31) must not overflow for b < 2^32.
	 */
	for (k = 0; k < 200000; k++) {
		uint64_t key = test_rand64(&s);
		uint32_t n = (uint32_t)(test_rand64(&s) >> (32 + (k % 32)));
		uint32_t b;

		n = n ? n : 1;
		b = xs_jump(key, n);

		if (!ASSERT_TRUE(b < n, "key 0x%llx n %u -> %u", (unsigned long long)key, n, b))
			break;
	}
	for (k = 0; k < 10000; k++) {
		uint64_t key = test_rand64(&s);

		if (!ASSERT_TRUE(xs_jump(key, 0xffffffffU) < 0xffffffffU, "n = 2^32 - 1"))
			break;
	}
	/* Deterministic: the kernel and `xdpsteer lookup` must agree. */
	ASSERT_EQ(xs_jump(0x0123456789abcdefULL, 1000), xs_jump(0x0123456789abcdefULL, 1000),
		  "same key, same bucket");
}

TEST_MAIN("test_jump", NULL, NULL)
