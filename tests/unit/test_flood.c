// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Hash flooding: an attacker who knows the algorithm (SipHash-1-3, jump,
 * N = 16) but not the seed sweeps the 65536 source ports of one client,
 * keeps the ports that its best guess of the seed puts on target 0, and
 * sends those. Against a secret random seed the target that gets the most of
 * them stays within binomial noise (mean + 6 sd). The same attacker who
 * knows the seed (or faces an unkeyed hash, whose "seed" is public) puts
 * every chosen flow on target 0.
 */
#include <math.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include "decide.h"
#include "test.h"

#define N_TARGETS 16
#define SWEEP 65536

static __u32 buckets[N_TARGETS];

static void pool_init(struct xs_pool *p, const __u64 seed[2])
{
	__u32 i;

	memset(p, 0, sizeof(*p));
	p->hdr.algo = XS_ALGO_JUMP;
	p->hdr.flow_fields = XS_F_DEFAULT_FLOW;
	p->hdr.hand_fields = XS_F_DEFAULT_HAND;
	p->hdr.n_buckets = N_TARGETS;
	p->hdr.seed[0] = seed[0];
	p->hdr.seed[1] = seed[1];
	for (i = 0; i < N_TARGETS; i++)
		buckets[i] = i;
	p->bucket = buckets;
}

/* One client (203.0.113.9) to one service (192.0.2.80:443/tcp), source port @sport. */
static void tuple(struct xs_flow_key *k, __u16 sport)
{
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	XS_W32(k->src, 3) = htonl(0xcb007109);
	XS_W32(k->dst, 3) = htonl(0xc0000250);
	k->proto = 6;
	k->sport = htons(sport);
	k->dport = htons(443);
}

static __u32 target_of(const struct xs_pool *p, __u16 sport)
{
	struct xs_flow_key k;
	struct xs_decision d;

	tuple(&k, sport);
	if (xs_decide(p, NULL, &k, &d))
		return XS_NO_TARGET;
	return d.target;
}

/*
 * The attacker picks the ports @guess puts on target 0 and sends them to
 * @real. Returns how many it chose; @hits[t] counts where they landed.
 */
static __u32 attack(const struct xs_pool *guess, const struct xs_pool *real, __u32 *hits)
{
	__u32 port, chosen = 0;

	memset(hits, 0, N_TARGETS * sizeof(*hits));
	for (port = 0; port < SWEEP; port++) {
		__u32 t;

		if (target_of(guess, (__u16)port) != 0)
			continue;
		chosen++;
		t = target_of(real, (__u16)port);
		if (t < N_TARGETS)
			hits[t]++;
	}
	return chosen;
}

static __u32 max_of(const __u32 *hits)
{
	__u32 i, m = 0;

	for (i = 0; i < N_TARGETS; i++)
		if (hits[i] > m)
			m = hits[i];
	return m;
}

TEST(unknown_seed_stays_in_binomial_noise)
{
	static const __u64 guessed[2] = { 0, 0 }; /* the unkeyed hash, or any fixed guess */
	struct xs_pool guess, real;
	__u64 secret[2];
	ssize_t got;
	__u32 hits[N_TARGETS], chosen, most;
	double mean, sd;

	got = getrandom(secret, sizeof(secret), 0); /* outside ASSERT_EQ, where cppcheck sees it */
	if (!ASSERT_EQ(got, sizeof(secret), "getrandom"))
		return;
	pool_init(&guess, guessed);
	pool_init(&real, secret);
	chosen = attack(&guess, &real, hits);
	mean = chosen / (double)N_TARGETS;
	sd = sqrt(chosen * (1.0 / N_TARGETS) * (1.0 - 1.0 / N_TARGETS));
	most = max_of(hits);
	printf("  secret seed: %u chosen flows, target 0 got %u (%.2f%%), busiest %u (%.2f%%); "
	       "mean %.1f, sd %.1f, bound mean + 6 sd = %.1f\n",
	       chosen, hits[0], 100.0 * hits[0] / chosen, most, 100.0 * most / chosen, mean, sd,
	       mean + 6 * sd);
	ASSERT_RANGE(chosen, SWEEP / N_TARGETS / 2, SWEEP / N_TARGETS * 2, "ports chosen");
	ASSERT_TRUE(most < mean + 6 * sd, "busiest target %u is above %.1f", most, mean + 6 * sd);
}

TEST(known_seed_concentrates)
{
	struct xs_pool real;
	__u64 secret[2];
	ssize_t got;
	__u32 hits[N_TARGETS], chosen;

	got = getrandom(secret, sizeof(secret), 0);
	if (!ASSERT_EQ(got, sizeof(secret), "getrandom"))
		return;
	pool_init(&real, secret);
	chosen = attack(&real, &real, hits);
	printf("  known seed:  %u chosen flows, target 0 got %u (%.2f%%)\n", chosen, hits[0],
	       100.0 * hits[0] / chosen);
	ASSERT_TRUE(chosen > 0, "no port chosen");
	ASSERT_EQ(hits[0], chosen, "every chosen flow on target 0");
}

/* The whole sweep, unfiltered: the background the attack is measured against. */
TEST(full_sweep_is_uniform)
{
	struct xs_pool real;
	__u64 secret[2];
	ssize_t got;
	__u32 hits[N_TARGETS] = { 0 }, port, most;
	double mean = SWEEP / (double)N_TARGETS;
	double sd = sqrt(SWEEP * (1.0 / N_TARGETS) * (1.0 - 1.0 / N_TARGETS));

	got = getrandom(secret, sizeof(secret), 0);
	if (!ASSERT_EQ(got, sizeof(secret), "getrandom"))
		return;
	pool_init(&real, secret);
	for (port = 0; port < SWEEP; port++) {
		__u32 t = target_of(&real, (__u16)port);

		if (t < N_TARGETS)
			hits[t]++;
	}
	most = max_of(hits);
	printf("  full sweep:  busiest target %u of %d (%.2f%%), bound %.1f\n", most, SWEEP,
	       100.0 * most / SWEEP, mean + 6 * sd);
	ASSERT_TRUE(most < mean + 6 * sd, "busiest target %u is above %.1f", most, mean + 6 * sd);
}

TEST_MAIN("flood", NULL, NULL)
