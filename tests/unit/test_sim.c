// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xdpsteer sim against closed forms and against the kernel's decision code.
 * Fixed keys and seeds; every tolerance is stated beside its assertion, as a
 * number of standard deviations of the quantity's own sampling noise.
 */
#include <math.h>
#include "decide.h"
#include "sim.h"
#include "test.h"
#include "xs_shuffle.h"

#define KEYS 200000
#define SD 5 /* standard deviations allowed: P(false failure) < 6e-7 per check */

static const struct xs_sim_row *row_of(const struct xs_sim_resize *r, const char *name)
{
	unsigned int i;

	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->row[i].algo->name, name))
			return &r->row[i];
	return NULL;
}

/* Binomial sd, in percent, of a share p measured on n keys. */
static double sd_pct(double p, double n)
{
	return 100 * sqrt(p * (1 - p) / n);
}

TEST(stay_shares_on_growth)
{
	struct xs_sim_resize_opts o = { .keys = KEYS, .from = 20, .to = 21,
					.remove = XS_NO_TARGET, .check_every = 0, .threads = 2 };
	struct xs_sim_resize *r = calloc(1, sizeof(*r));
	const struct xs_sim_row *row;
	double p = 20.0 / 21, beta;
	const char *exact[] = { "jump", "jump + holes", "rendezvous" };
	unsigned int i;

	ASSERT_EQ(xs_sim_resize_run(&o, r), 0, "sim resize 20 -> 21");
	/* Jump and rendezvous move exactly the keys the new shard wins: binomial, p = 1/21. */
	for (i = 0; i < XS_ARRAY_SIZE(exact); i++) {
		row = row_of(r, exact[i]);
		if (!ASSERT_TRUE(row, "no row %s", exact[i]))
			continue;
		ASSERT_RANGE(row->stay, 100 * p - SD * sd_pct(p, KEYS), 100 * p + SD * sd_pct(p, KEYS),
			     exact[i]);
	}
	/*
	 * A ring moves the new shard's arcs: P of its N P points share a Beta(P, (N-1)P)
	 * of the circle, sd sqrt((N-1) / (N^2 (N P + 1))); the key sampling adds its
	 * binomial sd. P = 1000, N = 21: 0.147 + 0.048 percentage points.
	 */
	beta = 100 * sqrt(20.0 / (21.0 * 21 * (21 * 1000 + 1)));
	row = row_of(r, "ring 1000 pt/shard");
	if (ASSERT_TRUE(row, "no ring row"))
		ASSERT_RANGE(row->stay, 100 * p - SD * (beta + sd_pct(p, KEYS)),
			     100 * p + SD * (beta + sd_pct(p, KEYS)), "ring 1000 stay");
	/* Modulo keeps a key when h mod 20 == h mod 21: 20 of every 420 values, 1/21. */
	row = row_of(r, "modulo");
	if (ASSERT_TRUE(row, "no modulo row"))
		ASSERT_RANGE(row->stay, 100.0 / 21 - SD * sd_pct(1.0 / 21, KEYS),
			     100.0 / 21 + SD * sd_pct(1.0 / 21, KEYS), "modulo stay");
	free(r);
}

TEST(stay_shares_on_removal)
{
	struct xs_sim_resize_opts o = { .keys = KEYS, .from = 20, .remove = 7,
					.check_every = 0, .threads = 1 };
	struct xs_sim_resize *r = calloc(1, sizeof(*r));
	const char *minimal[] = { "jump + holes", "rendezvous", "shuffle H=4" };
	const struct xs_sim_row *row;
	double p = 19.0 / 20;
	unsigned int i;

	ASSERT_EQ(xs_sim_resize_run(&o, r), 0, "sim resize remove 7 of 20");
	/* Minimal disruption: only shard 7's keys move, a binomial 1/20 of them. */
	for (i = 0; i < XS_ARRAY_SIZE(minimal); i++) {
		row = row_of(r, minimal[i]);
		if (ASSERT_TRUE(row, "no row %s", minimal[i]))
			ASSERT_RANGE(row->stay, 100 * p - SD * sd_pct(p, KEYS),
				     100 * p + SD * sd_pct(p, KEYS), minimal[i]);
	}
	/* Last-into-hole moves shard 7's keys and shard 19's: 2/20. */
	row = row_of(r, "jump");
	if (ASSERT_TRUE(row, "no jump row"))
		ASSERT_RANGE(row->stay, 90 - SD * sd_pct(0.9, KEYS), 90 + SD * sd_pct(0.9, KEYS),
			     "jump, last into hole");
	free(r);
}

static bool is_prime(__u32 m)
{
	__u32 d;

	for (d = 2; (__u64)d * d <= m; d++)
		if (m % d == 0)
			return false;
	return m > 1;
}

/*
 * The Maglev paper (Eisenbud et al., NSDI 2016, 3.4) fills the table round
 * robin, one slot per backend per turn, and states that M > 100 N keeps the
 * backends' shares within 1% of each other. Round robin gives more: every
 * backend owns floor(M/N) or ceil(M/N) slots. Both are asserted, with M prime
 * so each backend's offset + j * skip visits every slot.
 */
TEST(maglev_fill_is_balanced)
{
	const __u32 sizes[] = { 65537, 655373 }, counts[] = { 20, 21, 7 };
	__u32 live[32], own[32], s, c, i;

	for (s = 0; s < XS_ARRAY_SIZE(sizes); s++) {
		__u32 m = sizes[s], *table = malloc(m * sizeof(__u32));

		ASSERT_TRUE(is_prime(m), "Maglev table size %u must be prime", m);
		for (c = 0; c < XS_ARRAY_SIZE(counts); c++) {
			__u32 n = counts[c], lo = ~0u, hi = 0, holes = 0;

			for (i = 0; i < n; i++)
				live[i] = 3 * i + 1; /* ids need not be 0..n-1 */
			memset(own, 0, sizeof(own));
			xs_sim_maglev_fill(live, n, m, table);
			for (i = 0; i < m; i++) {
				if (table[i] == XS_NO_TARGET || table[i] % 3 != 1 ||
				    table[i] / 3 >= n) {
					holes++;
					continue;
				}
				own[table[i] / 3]++;
			}
			ASSERT_EQ(holes, 0, "slots not owned by a live backend");
			for (i = 0; i < n; i++) {
				lo = own[i] < lo ? own[i] : lo;
				hi = own[i] > hi ? own[i] : hi;
			}
			/* cppcheck-suppress duplicateAssignExpression ; exactly floor(M/N), a range of one */
			ASSERT_RANGE(lo, m / n, m / n, "fewest slots of a backend vs floor(M/N)");
			ASSERT_RANGE(hi, m / n, (m + n - 1) / n, "most slots vs ceil(M/N)");
			ASSERT_RANGE((double)(hi - lo) / ((double)m / n), 0, 0.01,
				     "spread of shares (paper: within 1% for M > 100 N)");
		}
		free(table);
	}
}

/* Exact enumeration for small N: every K-tuple of hands, each of the C(N,H) hands equally likely. */
static void enumerate(__u32 n, __u32 h, __u32 k, double *hit, double *covered)
{
	__u32 masks[256], nm = 0, m, idx[4] = { 0 }, light, u, total = 0, nhit = 0, ncov = 0;

	/* masks holds every subset of up to 8 targets, idx up to K = 4; NaN fails the caller. */
	*hit = *covered = NAN;
	if (n > 8 || !h || h > n || !k || k > 4)
		return;
	for (m = 0; m < (1u << n); m++)
		if ((__u32)__builtin_popcount(m) == h)
			masks[nm++] = m;
	for (;;) {
		for (u = 0, m = 0; m < k; m++)
			u |= masks[idx[m]];
		for (light = 0; light < nm; light++) {
			total++;
			nhit += (masks[light] & u) != 0;
			ncov += (masks[light] & ~u) == 0;
		}
		for (m = 0; m < k && ++idx[m] == nm; m++)
			idx[m] = 0;
		if (m == k)
			break;
	}
	*hit = (double)nhit / total;
	*covered = (double)ncov / total;
}

TEST(isolation_closed_forms)
{
	const __u32 n = 8, h = 2, tenants = 40000, groups = 1000;
	struct xs_hand *hand = calloc(tenants, sizeof(*hand));
	const __u64 seed[2] = { XS_SIM_SEED0, XS_SIM_SEED1 };
	double hit, cov, ehit, ecov, shit, scov, same = 0, sd;
	struct xs_flow_key key;
	__u32 k, t, i;

	for (t = 0; t < tenants; t++) {
		xs_sim_flow_key((__u64)t << 16, &key);
		xs_deal(xs_flow_hash(seed, &key, XS_F_SRC, XS_DOMAIN_HAND), n, h, &hand[t]);
	}
	for (k = 1; k <= 3; k++) {
		char what[64];

		enumerate(n, h, k, &hit, &cov);
		xs_iso_expect(n, h, k, &ehit, &ecov);
		snprintf(what, sizeof(what), "closed form vs enumeration, hit, K=%u", k);
		ASSERT_RANGE(ehit, hit - 1e-12, hit + 1e-12, what);
		snprintf(what, sizeof(what), "closed form vs enumeration, covered, K=%u", k);
		ASSERT_RANGE(ecov, cov - 1e-12, cov + 1e-12, what);
		/*
		 * Dealt hands, G = 1000 disjoint heavy sets: each set's share lies in
		 * [0, 1] with mean p, so its variance is at most p (1 - p), and the mean
		 * over G sets has sd at most sqrt(p (1 - p) / G).
		 */
		xs_iso_geometry(hand, tenants, k, n, groups, &shit, &scov);
		sd = sqrt(hit * (1 - hit) / groups);
		snprintf(what, sizeof(what), "dealt hands vs closed form, hit, K=%u", k);
		ASSERT_RANGE(shit, hit - SD * sd, hit + SD * sd, what);
		sd = sqrt(cov * (1 - cov) / groups);
		snprintf(what, sizeof(what), "dealt hands vs closed form, covered, K=%u", k);
		ASSERT_RANGE(scov, cov - SD * sd, cov + SD * sd, what);
	}
	/* One heavy tenant covers a light hand exactly when both hold the same hand: 1/C(8,2). */
	enumerate(n, h, 1, &hit, &cov);
	ASSERT_RANGE(cov, 1 / xs_iso_choose(n, h) - 1e-12, 1 / xs_iso_choose(n, h) + 1e-12,
		     "1/C(N,H) vs enumeration");
	/* Disjoint tenant pairs holding the same hand: binomial over tenants/2 pairs. */
	for (t = 0; t + 1 < tenants; t += 2) {
		__u32 a = 0, b = 0;

		for (i = 0; i < h; i++) {
			a |= 1u << hand[t].card[i];
			b |= 1u << hand[t + 1].card[i];
		}
		same += a == b;
	}
	same /= tenants / 2;
	sd = sqrt(cov * (1 - cov) / (tenants / 2));
	ASSERT_RANGE(same, cov - SD * sd, cov + SD * sd, "pairs dealt the same hand vs 1/C(N,H)");
	free(hand);
}

/* The simulator's shortcut (precomputed hashes, include/ calls) against xs_decide(). */
static __u32 agree(const struct xs_sim_algo *a, const struct xs_sim_layout *l, __u32 nkeys)
{
	const __u64 seed[2] = { XS_SIM_SEED0, XS_SIM_SEED1 };
	struct xs_sim_keys keys = { 0 };
	struct xs_sim_state s = { 0 };
	struct xs_decision d;
	struct xs_flow_key key;
	struct xs_pool pool = { 0 };
	__u32 i, ok = 0, *out = malloc(nkeys * sizeof(__u32));

	/* On failure, free what was made (all zeroed above, so free() is safe): 0 agree. */
	if (!out || xs_sim_keys_make(nkeys, seed, &keys) || xs_sim_prepare(a, l, &s) ||
	    xs_sim_pool(&s, seed, &pool))
		goto out;
	xs_sim_assign(&s, &keys, 0, nkeys, out);
	for (i = 0; i < nkeys; i++) {
		xs_sim_flow_key(i, &key);
		if (xs_decide(&pool, NULL, &key, &d))
			d.target = XS_NO_TARGET;
		ok += d.target == out[i] && out[i] != XS_NO_TARGET;
	}
out:
	free(pool.bucket);
	free(out);
	xs_sim_release(&s);
	xs_sim_keys_free(&keys);
	return ok;
}

TEST(kernel_decision_agrees)
{
	/* Dense holes make whole hands empty, so the live walk is exercised too. */
	const __u32 grown[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	const __u32 holes[] = { 0, XS_NO_TARGET, XS_NO_TARGET, 3, XS_NO_TARGET, XS_NO_TARGET,
				XS_NO_TARGET, 7, XS_NO_TARGET, XS_NO_TARGET };
	const struct xs_sim_layout layouts[] = { { 21, grown }, { 10, holes } };
	const __u32 nkeys = 20000;
	unsigned int a, l;
	char what[80];

	for (l = 0; l < XS_ARRAY_SIZE(layouts); l++)
		for (a = 0; a < xs_sim_nalgos; a++) {
			enum xs_sim_kind kind = xs_sim_algos[a].kind;

			if (kind != XS_SIM_JUMP && kind != XS_SIM_JUMP_HOLES &&
			    kind != XS_SIM_SHUFFLE)
				continue;
			snprintf(what, sizeof(what), "%s, layout %u: keys agreeing with xs_decide",
				 xs_sim_algos[a].name, l);
			ASSERT_EQ(agree(&xs_sim_algos[a], &layouts[l], nkeys), nkeys, what);
		}
}

/* The command's own cross-check: every checked key agrees, on growth and on removal. */
TEST(resize_cross_check)
{
	struct xs_sim_resize_opts o = { .keys = 50000, .from = 20, .to = 21,
					.remove = XS_NO_TARGET, .check_every = 7, .threads = 2 };
	struct xs_sim_resize *r = calloc(1, sizeof(*r));
	unsigned int i, pass, checked_rows;

	for (pass = 0; pass < 2; pass++) {
		o.remove = pass ? 13 : XS_NO_TARGET;
		ASSERT_EQ(xs_sim_resize_run(&o, r), 0, "sim resize");
		for (i = 0, checked_rows = 0; i < r->nrows; i++) {
			checked_rows += r->row[i].checked > 0;
			ASSERT_EQ(r->row[i].agreed, r->row[i].checked, r->row[i].algo->name);
		}
		/* jump, jump + holes, shuffle H=2, 4, 8 */
		ASSERT_EQ(checked_rows, 5, "rows cross-checked against xs_decide");
	}
	free(r);
}

TEST_MAIN("test_sim", NULL, NULL)
