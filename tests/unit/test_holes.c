// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Minimal-disruption removal: removing target k from the middle of N leaves
 * a hole (include/xs_select.h). Asserted here, on the decision code the
 * kernel runs, for N = 10, 100 and 1000, jump and shuffle:
 *  - every flow that moves was on k, so the moved share is k's share, ~1/N;
 *  - refilling the hole restores every flow's earlier target;
 *  - a second removal moves only the second target's flows.
 * The classic "move the last target into the hole" is measured beside it
 * (about 2/N) to show what the holes save.
 */
#include <math.h>
#include <arpa/inet.h>
#include "decide.h"
#include "test.h"

#define KEYS 200000

static const __u64 seed[2] = { 0x3243f6a8885a308dULL, 0x313198a2e0370734ULL };

static void make_pool(struct xs_pool *p, __u8 algo, __u8 hand, __u32 n)
{
	__u32 i;

	memset(p, 0, sizeof(*p));
	p->hdr.algo = algo;
	p->hdr.hand_size = hand;
	p->hdr.flow_fields = XS_F_DEFAULT_FLOW;
	p->hdr.hand_fields = XS_F_DEFAULT_HAND;
	p->hdr.seed[0] = seed[0];
	p->hdr.seed[1] = seed[1];
	p->hdr.n_buckets = n;
	p->bucket = calloc(n, sizeof(__u32));
	for (i = 0; i < n; i++)
		p->bucket[i] = 1000 + i; /* target ids differ from bucket numbers */
}

static void key_of(__u32 i, struct xs_flow_key *k)
{
	__u64 s = 0x9e3779b97f4a7c15ULL * (i + 1), r = test_rand64(&s);

	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	XS_W32(k->src, 3) = (__u32)r;
	XS_W32(k->dst, 3) = htonl(0xc0000201);
	k->proto = 6;
	k->sport = (__u16)(r >> 32);
	k->dport = htons(443);
}

static void assign(const struct xs_pool *p, __u32 *out)
{
	struct xs_decision d;
	struct xs_flow_key k;
	__u32 i;

	for (i = 0; i < KEYS; i++) {
		key_of(i, &k);
		out[i] = xs_decide(p, NULL, &k, &d) ? XS_NO_TARGET : d.target;
	}
}

/* Share of keys whose target differs; fails the test if one moved off a target other than @only. */
static double moved(const __u32 *before, const __u32 *after, __u32 only, const char *what)
{
	__u32 i, n = 0, strays = 0;

	for (i = 0; i < KEYS; i++) {
		if (before[i] == after[i])
			continue;
		n++;
		strays += only != XS_NO_TARGET && before[i] != only;
	}
	if (only != XS_NO_TARGET)
		ASSERT_EQ(strays, 0, what);
	return (double)n / KEYS;
}

static void removal(__u8 algo, __u8 hand, __u32 n)
{
	__u32 *orig = calloc(KEYS, 4), *cur = calloc(KEYS, 4), *again = calloc(KEYS, 4);
	__u32 k = n / 2, j = n / 3, last;
	struct xs_pool p;
	double share, sigma, lastfill;
	char what[96];

	make_pool(&p, algo, hand, n);
	assign(&p, orig);

	/* Remove k from the middle. */
	snprintf(what, sizeof(what), "%s N=%u: flows moved off targets other than k",
		 algo == XS_ALGO_JUMP ? "jump" : "shuffle", n);
	p.bucket[k] = XS_NO_TARGET;
	assign(&p, cur);
	share = moved(orig, cur, 1000 + k, what);
	/* k held a binomial share of the keys: allow 6 standard deviations. */
	sigma = sqrt((1.0 / n) * (1 - 1.0 / n) / KEYS);
	ASSERT_RANGE(share, 1.0 / n - 6 * sigma, 1.0 / n + 6 * sigma, "moved share vs 1/N");

	/* A second removal moves only the second target's flows. */
	p.bucket[j] = XS_NO_TARGET;
	assign(&p, again);
	moved(cur, again, 1000 + j, what);

	/* Refill both: every flow is back where it was. */
	p.bucket[j] = 1000 + j;
	p.bucket[k] = 1000 + k;
	assign(&p, again);
	ASSERT_EQ(moved(orig, again, XS_NO_TARGET, what) * KEYS, 0, "flows not restored on re-add");

	/* The classic alternative: the last target fills the hole, N shrinks. */
	last = p.bucket[n - 1];
	p.bucket[k] = last;
	p.hdr.n_buckets = n - 1;
	assign(&p, cur);
	lastfill = moved(orig, cur, XS_NO_TARGET, what);
	printf("  %-7s N=%-5u remove k=%-4u moved %.4f%% (ideal 1/N = %.4f%%); "
	       "last-into-hole moves %.4f%%\n",
	       algo == XS_ALGO_JUMP ? "jump" : "shuffle", n, k, 100 * share, 100.0 / n,
	       100 * lastfill);
	free(p.bucket);
	free(orig);
	free(cur);
	free(again);
}

TEST(jump_removal_is_minimal)
{
	removal(XS_ALGO_JUMP, 0, 10);
	removal(XS_ALGO_JUMP, 0, 100);
	removal(XS_ALGO_JUMP, 0, 1000);
}

TEST(shuffle_removal_is_minimal)
{
	removal(XS_ALGO_SHUFFLE, 4, 10);
	removal(XS_ALGO_SHUFFLE, 4, 100);
	removal(XS_ALGO_SHUFFLE, 4, 1000);
}

/* Displaced flows spread over the live targets evenly, not onto k's neighbours. */
/* The live targets of @d's hand, as a bit per bucket of a pool of @n (n <= 128). */
static void hand_targets(const struct xs_pool *p, const struct xs_decision *d, __u64 set[2])
{
	__u32 i, b;

	set[0] = set[1] = 0;
	for (i = 0; i < d->hand.n_cards; i++) {
		b = d->hand.card[i];
		if (p->bucket[b] != XS_NO_TARGET)
			set[b / 64] |= 1ULL << (b % 64);
	}
}

/* Share of hands whose live targets differ between pools @a and @b. */
static double hands_changed(const struct xs_pool *a, const struct xs_pool *b)
{
	struct xs_decision da, db;
	struct xs_flow_key k;
	__u64 sa[2], sb[2];
	__u32 i, changed = 0;

	for (i = 0; i < KEYS; i++) {
		key_of(i, &k);
		if (xs_decide(a, NULL, &k, &da) || xs_decide(b, NULL, &k, &db))
			return -1;
		hand_targets(a, &da, sa);
		hand_targets(b, &db, sb);
		changed += sa[0] != sb[0] || sa[1] != sb[1];
	}
	return (double)changed / KEYS;
}

/*
 * Removing or draining a target takes its bucket out of the pool (a hole),
 * so exactly the hands that hold it change: H/N of them. Re-adding restores
 * every hand. Growth (N -> N+1) is in test_shuffle.
 */
TEST(shuffle_hands_change_only_where_the_card_left)
{
	static const __u32 ns[] = { 10, 100 };
	static const __u8 hs[] = { 2, 4, 8 };
	struct xs_pool orig, cur;
	double share, ideal, sigma;
	__u32 a, b;

	for (a = 0; a < XS_ARRAY_SIZE(ns); a++) {
		for (b = 0; b < XS_ARRAY_SIZE(hs); b++) {
			__u32 n = ns[a], k = n / 2;

			make_pool(&orig, XS_ALGO_SHUFFLE, hs[b], n);
			make_pool(&cur, XS_ALGO_SHUFFLE, hs[b], n);
			cur.bucket[k] = XS_NO_TARGET;
			share = hands_changed(&orig, &cur);
			ideal = (double)hs[b] / n;
			sigma = sqrt(ideal * (1 - ideal) / KEYS);
			printf("  shuffle N=%-4u H=%u remove or drain one: %.3f%% of hands changed "
			       "(ideal H/N = %.3f%%)\n", n, hs[b], 100 * share, 100 * ideal);
			ASSERT_RANGE(share, ideal - 6 * sigma, ideal + 6 * sigma,
				     "hands changed vs H/N");
			cur.bucket[k] = 1000 + k;
			ASSERT_EQ(hands_changed(&orig, &cur) * KEYS, 0, "hands not restored on re-add");
			free(orig.bucket);
			free(cur.bucket);
		}
	}
}

TEST(displaced_flows_spread_evenly)
{
	__u32 n = 10, k = 5, i, *before = calloc(KEYS, 4), *after = calloc(KEYS, 4);
	__u32 got[10] = { 0 }, total = 0;
	struct xs_pool p;
	double mean, chi = 0;

	make_pool(&p, XS_ALGO_JUMP, 0, n);
	assign(&p, before);
	p.bucket[k] = XS_NO_TARGET;
	assign(&p, after);
	for (i = 0; i < KEYS; i++) {
		if (before[i] == after[i])
			continue;
		got[after[i] - 1000]++;
		total++;
	}
	mean = (double)total / (n - 1);
	for (i = 0; i < n; i++) {
		if (i == k) {
			ASSERT_EQ(got[i], 0, "flows sent to the hole");
			continue;
		}
		chi += (got[i] - mean) * (got[i] - mean) / mean;
	}
	/* 8 degrees of freedom: P(chi-square > 30) < 3e-4. */
	ASSERT_RANGE(chi, 0, 30, "chi-square of displaced flows over live targets");
	free(p.bucket);
	free(before);
	free(after);
}

/* A pool of holes only has no live bucket: the decision says so instead of inventing one. */
TEST(all_holes)
{
	struct xs_decision d;
	struct xs_flow_key k;
	struct xs_pool p;

	make_pool(&p, XS_ALGO_JUMP, 0, 3);
	p.bucket[0] = p.bucket[1] = p.bucket[2] = XS_NO_TARGET;
	key_of(1, &k);
	ASSERT_TRUE(xs_decide(&p, NULL, &k, &d) < 0, "a decision over holes only must fail");
	p.bucket[2] = 7;
	ASSERT_EQ(xs_decide(&p, NULL, &k, &d), 0, "decision with one live bucket");
	ASSERT_EQ(d.target, 7, "the one live target");
	free(p.bucket);
}

TEST_MAIN("test_holes", NULL, NULL)
