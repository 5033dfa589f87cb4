// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Unit tests for the consistent shuffle-shard dealer (include/xs_shuffle.h).
 *
 * What must hold:
 *  - a hand is min(h, n) distinct cards, all < n, the same every time;
 *  - hands are uniform: each card is in a hand with probability h/n;
 *  - the Kubernetes entropy rule is applied exactly;
 *  - growing the deck from n to n + 1 changes only the hands that now hold the
 *    new card n, about h/(n + 1) of them (Kubernetes' dealer re-deals almost
 *    all hands instead);
 *  - the least-loaded pick takes the minimum load and breaks ties by flow.
 *
 * Statistical bounds are 6 binomial standard deviations (two-sided
 * p ~ 2e-9 per count); hand hashes come from test_rand64() with fixed seeds,
 * so runs are reproducible, but the bounds are derived, not fitted.
 */
#include <math.h>
#include <stdint.h>

#include "test.h"
#include "xs_shuffle.h"

#define SIGMAS 6.0

static double binom_sd(double n, double p)
{
	return sqrt(n * p * (1.0 - p));
}

/* Would the first XS_DEAL_MAX_DRAWS jump draws alone fill the hand? */
static int needs_fallback(uint64_t hand_hash, uint32_t n, uint32_t h)
{
	uint8_t seen[64] = { 0 };
	uint32_t i, distinct = 0;

	for (i = 0; i < XS_DEAL_MAX_DRAWS && distinct < h; i++) {
		uint32_t c = xs_jump(xs_mix64(hand_hash + (uint64_t)i * XS_GOLDEN64), n);

		if (c < 64 && !seen[c]) {
			seen[c] = 1;
			distinct++;
		}
	}
	return distinct < h;
}

/* Is @card in @hand? Own loop, so the test does not trust xs_hand_has(). */
static int has_card(const struct xs_hand *hand, uint32_t card)
{
	uint32_t i;

	for (i = 0; i < hand->n_cards; i++)
		if (hand->card[i] == card)
			return 1;
	return 0;
}

/* Same set of cards (order ignored). */
static int same_set(const struct xs_hand *a, const struct xs_hand *b)
{
	uint32_t i;

	if (a->n_cards != b->n_cards)
		return 0;
	for (i = 0; i < a->n_cards; i++)
		if (!has_card(b, a->card[i]))
			return 0;
	return 1;
}

/* Checks one hand; returns 0 on the first violation. */
static int check_hand(const struct xs_hand *hand, uint64_t hh, uint32_t n, uint32_t h)
{
	uint32_t want = h < n ? h : n, i, j;

	if (want > XS_MAX_HAND)
		want = XS_MAX_HAND;
	if (!ASSERT_EQ(hand->n_cards, want, "cards in hand"))
		return 0;
	for (i = 0; i < hand->n_cards; i++) {
		if (!ASSERT_TRUE(hand->card[i] < n, "hash 0x%llx n %u h %u: card %u >= n",
				 (unsigned long long)hh, n, h, hand->card[i]))
			return 0;
		for (j = 0; j < i; j++)
			if (!ASSERT_TRUE(hand->card[i] != hand->card[j],
					 "hash 0x%llx n %u h %u: card %u twice",
					 (unsigned long long)hh, n, h, hand->card[i]))
				return 0;
	}
	return 1;
}

/*
 * Structure of hands for every n <= 40 and every h <= 16 (including h > n,
 * which must yield the whole deck), and for near-full hands at larger n.
 * n = h = 15 and n = 16, h = 15 often exhaust the 64 jump draws, so the
 * fallback walk runs; the test counts how often to prove it was exercised.
 */
TEST(hand_structure)
{
	static const uint32_t big[][2] = { { 15, 15 }, { 16, 15 }, { 16, 16 }, { 17, 15 },
					   { 100, 15 }, { 1000, 15 }, { 65536, 8 } };
	unsigned long long s = 0x68616e6473747275ULL;
	uint32_t n, h, k, i, fb_15_15 = 0, fb_16_15 = 0;
	struct xs_hand a, b;

	for (n = 1; n <= 40; n++) {
		for (h = 1; h <= XS_MAX_HAND; h++) {
			for (k = 0; k < 500; k++) {
				uint64_t hh = test_rand64(&s);

				xs_deal(hh, n, h, &a);
				if (!check_hand(&a, hh, n, h))
					return;
			}
		}
	}
	for (i = 0; i < XS_ARRAY_SIZE(big); i++) {
		n = big[i][0];
		h = big[i][1];
		for (k = 0; k < 20000; k++) {
			uint64_t hh = test_rand64(&s);

			xs_deal(hh, n, h, &a);
			xs_deal(hh, n, h, &b);
			if (!check_hand(&a, hh, n, h))
				return;
			if (!ASSERT_TRUE(a.n_cards == b.n_cards &&
						 !memcmp(a.card, b.card, a.n_cards * sizeof(a.card[0])),
					 "deal is not deterministic"))
				return;
			if (n == 15 && h == 15)
				fb_15_15 += needs_fallback(hh, n, h);
			if (n == 16 && h == 15)
				fb_16_15 += needs_fallback(hh, n, h);
		}
	}
	/*
	 * Expected fallback rates: P(some of 15 cards unseen in 64 draws) ~
	 * 15 (14/15)^64 ~ 0.18; P(two of 16 unseen) ~ C(16,2) (14/16)^64 ~ 0.02.
	 * Only require that the walk ran at all.
	 */
	printf("  fallback walk used: n=15 h=15 %.2f%% of hands, n=16 h=15 %.2f%%\n",
	       100.0 * fb_15_15 / 20000, 100.0 * fb_16_15 / 20000);
	ASSERT_TRUE(fb_15_15 > 0 && fb_16_15 > 0, "fallback walk never exercised");
}

/*
 * Uniformity: card c is in a hand with probability h/n and is the first card
 * with probability 1/n; each count out of H hands is binomial, bound 6 sd.
 * (16, 15) is included although 2% of its hands use the fallback walk.
 */
TEST(uniformity)
{
	static const uint32_t cases[][2] = { { 10, 3 }, { 32, 8 }, { 100, 8 }, { 1000, 4 },
					     { 16, 15 }, { 20, 10 } };
	const uint32_t H = 200000;
	static uint32_t in_hand[1000], first[1000];
	unsigned long long s = 0x756e69666f726d31ULL;
	uint32_t i, k, c;
	struct xs_hand hand;

	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		uint32_t n = cases[i][0], h = cases[i][1];
		double p_in = (double)h / n, p_first = 1.0 / n;
		double sd_in = binom_sd(H, p_in), sd_first = binom_sd(H, p_first);
		double worst_in = 0, worst_first = 0;

		memset(in_hand, 0, sizeof(in_hand));
		memset(first, 0, sizeof(first));
		for (k = 0; k < H; k++) {
			xs_deal(test_rand64(&s), n, h, &hand);
			first[hand.card[0]]++;
			for (c = 0; c < hand.n_cards; c++)
				in_hand[hand.card[c]]++;
		}
		for (c = 0; c < n; c++) {
			double d_in = fabs(in_hand[c] - H * p_in) / sd_in;
			double d_first = fabs(first[c] - H * p_first) / sd_first;

			worst_in = d_in > worst_in ? d_in : worst_in;
			worst_first = d_first > worst_first ? d_first : worst_first;
		}
		printf("  n=%-4u h=%-2u worst card-in-hand dev %.2f sd, worst first-card dev %.2f sd (bound %.0f)\n",
		       n, h, worst_in, worst_first, SIGMAS);
		ASSERT_TRUE(worst_in < SIGMAS, "n %u h %u: card frequency off by %.2f sd", n, h,
			    worst_in);
		ASSERT_TRUE(worst_first < SIGMAS, "n %u h %u: first card off by %.2f sd", n, h,
			    worst_first);
	}
}

/*
 * Kubernetes' shufflesharding.RequiredEntropyBits, in floating point as it
 * is written there: int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize))),
 * with the validation rules 1 <= handSize <= deckSize and bits <= 60.
 */
static int k8s_ok(uint32_t n, uint32_t h)
{
	if (h < 1 || n < 1 || h > n)
		return 0;
	return (int)ceil(log2((double)n) * (double)h) <= XS_ENTROPY_BITS;
}

TEST(entropy_rule)
{
	uint32_t n, h, accepted = 0, checked = 0;

	for (n = 1; n <= 4096; n++) {
		for (h = 1; h <= 15; h++) {
			int want = k8s_ok(n, h), got = xs_hand_entropy_ok(n, h) == 0;

			checked++;
			accepted += got;
			if (!ASSERT_EQ(got, want, "entropy rule"))
				printf("    n %u h %u: xs %d k8s %d\n", n, h, got, want);
		}
		/* h = 0, h > n and h >= 16 are always refused. */
		ASSERT_TRUE(xs_hand_entropy_ok(n, 0) != 0, "h = 0 accepted at n %u", n);
		ASSERT_TRUE(xs_hand_entropy_ok(n, n + 1) != 0, "h > n accepted at n %u", n);
		for (h = 16; h <= 40; h++)
			ASSERT_TRUE(xs_hand_entropy_ok(n, h) != 0, "h %u accepted at n %u", h, n);
	}
	ASSERT_TRUE(xs_hand_entropy_ok(0, 1) != 0, "n = 0 accepted");
	/* Boundaries named in xs_shuffle.h: 15 cards out of 15 or 16 is the largest hand. */
	ASSERT_EQ(xs_hand_entropy_ok(16, 15), 0, "n 16 h 15 (exactly 60 bits)");
	ASSERT_EQ(xs_hand_entropy_ok(15, 15), 0, "n 15 h 15");
	ASSERT_TRUE(xs_hand_entropy_ok(17, 15) != 0, "n 17 h 15 (61.3 bits)");
	ASSERT_TRUE(xs_hand_entropy_ok(0xffffffffU, 1) == 0, "n 2^32-1 h 1 (32 bits)");
	ASSERT_TRUE(xs_hand_entropy_ok(0xffffffffU, 2) != 0, "n 2^32-1 h 2 (64 bits)");
	printf("  entropy rule: %u (n, h) pairs checked, %u accepted\n", checked, accepted);
}

/*
 * Growth n -> n + 1. Every draw is a jump hash, so at n + 1 each draw either
 * stays or becomes the new card n. Hence a hand changes exactly when the new
 * card enters it, and for uniform hands P(n in hand) = h/(n + 1): the share
 * of changed hands is Binomial(K, h/(n + 1)), bound 6 sd. "Changed hand
 * contains card n" and "unchanged hand keeps its card order" are exact.
 * Also printed: how many old cards a changed hand loses (1 is ideal; more
 * happens when the draw that moved was the first occurrence of a card).
 */
TEST(growth_stability)
{
	static const uint32_t ns[] = { 10, 32, 100, 1000 }, hs[] = { 2, 4, 8 };
	const uint32_t K = 200000;
	unsigned long long s = 0x67726f7768616e64ULL;
	uint32_t i, j, k;
	struct xs_hand a, b;

	for (i = 0; i < XS_ARRAY_SIZE(ns); i++) {
		for (j = 0; j < XS_ARRAY_SIZE(hs); j++) {
			uint32_t n = ns[i], h = hs[j], changed = 0, lacks_new = 0, reordered = 0;
			unsigned long long lost = 0;
			double p = (double)h / (n + 1), sd = binom_sd(K, p);

			if (xs_hand_entropy_ok(n, h) || xs_hand_entropy_ok(n + 1, h))
				continue;
			for (k = 0; k < K; k++) {
				uint64_t hh = test_rand64(&s);
				uint32_t c;

				xs_deal(hh, n, h, &a);
				xs_deal(hh, n + 1, h, &b);
				if (same_set(&a, &b)) {
					reordered += !!memcmp(a.card, b.card, h * sizeof(a.card[0]));
					continue;
				}
				changed++;
				lacks_new += !has_card(&b, n);
				for (c = 0; c < a.n_cards; c++)
					lost += !has_card(&b, a.card[c]);
			}
			printf("  n=%-4u h=%u: %4u -> %-4u changed %.3f%% (ideal %.3f%%), lacking card %u: %u, cards lost per changed hand %.3f\n",
			       n, h, n, n + 1, 100.0 * changed / K, 100.0 * p, n, lacks_new,
			       changed ? (double)lost / changed : 0.0);
			ASSERT_RANGE(changed, K * p - SIGMAS * sd, K * p + SIGMAS * sd,
				     "changed hands");
			ASSERT_EQ(lacks_new, 0, "changed hands without the new card");
			ASSERT_EQ(reordered, 0, "unchanged hands with a new card order");
		}
	}
}

/* Reference pick: lowest load, then lowest mix64(flow_hash + card). */
TEST(least_loaded)
{
	unsigned long long s = 0x6c656173746c6f61ULL;
	uint32_t k, i;
	struct xs_hand hand;
	__u64 load[XS_MAX_HAND] = { 0 };

	/* 1. The minimum load wins; when unique, the flow hash does not matter. */
	for (k = 0; k < 100000; k++) {
		uint32_t n = 2 + (uint32_t)(test_rand64(&s) % 200);
		uint32_t h = 1 + (uint32_t)(test_rand64(&s) % (n < XS_MAX_HAND ? n : XS_MAX_HAND));
		__u64 min = ~0ULL;
		uint32_t pick;

		xs_deal(test_rand64(&s), n, h, &hand);
		for (i = 0; i < hand.n_cards; i++) {
			load[i] = test_rand64(&s) % 8; /* small range: ties are common */
			min = load[i] < min ? load[i] : min;
		}
		pick = xs_pick_least_loaded(&hand, load, test_rand64(&s));
		if (!ASSERT_TRUE(pick < hand.n_cards && load[pick] == min,
				 "picked load %llu, min %llu", (unsigned long long)load[pick],
				 (unsigned long long)min))
			return;
	}

	/*
	 * 2. Ties: cards 0..T-1 of an 8-card hand share the lowest load. The same
	 * flow always picks the same card, even when the hand is dealt in
	 * another order (the tie-break keys on the card, not its position);
	 * across F flows each tied card is picked Binomial(F, 1/T) times.
	 */
	{
		const uint32_t F = 200000, T = 5;
		uint32_t picked[XS_MAX_HAND] = { 0 };
		struct xs_hand rev;
		__u64 rload[XS_MAX_HAND];
		double sd = binom_sd(F, 1.0 / T), worst = 0;

		hand.n_cards = 8;
		for (i = 0; i < 8; i++) {
			hand.card[i] = 100 + 7 * i;
			load[i] = i < T ? 3 : 4;
		}
		rev.n_cards = 8;
		for (i = 0; i < 8; i++) {
			rev.card[i] = hand.card[7 - i];
			rload[i] = load[7 - i];
		}
		for (k = 0; k < F; k++) {
			uint64_t fh = test_rand64(&s);
			uint32_t p = xs_pick_least_loaded(&hand, load, fh);
			uint32_t q = xs_pick_least_loaded(&rev, rload, fh);

			if (!ASSERT_TRUE(p < T, "picked a non-tied card %u", p) ||
			    !ASSERT_EQ(xs_pick_least_loaded(&hand, load, fh), p, "same flow") ||
			    !ASSERT_EQ(rev.card[q], hand.card[p], "same flow, reordered hand"))
				return;
			picked[p]++;
		}
		for (i = 0; i < T; i++) {
			double d = fabs(picked[i] - (double)F / T) / sd;

			worst = d > worst ? d : worst;
		}
		printf("  ties among %u cards over %u flows: worst share dev %.2f sd (bound %.0f)\n", T,
		       F, worst, SIGMAS);
		ASSERT_TRUE(worst < SIGMAS, "tie-break not uniform: %.2f sd", worst);
	}
}

TEST_MAIN("test_shuffle", NULL, NULL)
