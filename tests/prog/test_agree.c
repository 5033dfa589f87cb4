// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Agreement: for random flows, the target the XDP program pins (read back
 * from the flow table) equals the target userspace computes with the code
 * `xdpsteer lookup` runs. For shuffle the loads change with every packet
 * (test runs enqueue and never dequeue), so userspace re-reads them first:
 * the least-loaded pick is exercised with real, varying loads.
 */
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define FLOWS_JUMP 100000
#define FLOWS_SHUFFLE 100000

static __u64 rng = 0x9e3779b97f4a7c15ULL;

/* A random TCP, UDP or SCTP flow over IPv4 or IPv6, as a packet and as a key. */
static void random_flow(struct pkt *p, struct xs_flow_key *k)
{
	static const __u8 protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP };
	__u64 r = test_rand64(&rng);
	__u8 proto = protos[r % 3];
	__u16 sport = (__u16)(r >> 8), dport = (__u16)(r >> 24);
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];

	memset(k, 0, sizeof(*k));
	if ((r >> 40) & 1) {
		__u64 a = test_rand64(&rng), b = test_rand64(&rng);

		memcpy(k->src, &a, 8);
		memcpy(k->src + 8, &b, 8);
		a = test_rand64(&rng);
		b = test_rand64(&rng);
		memcpy(k->dst, &a, 8);
		memcpy(k->dst + 8, &b, 8);
		inet_ntop(AF_INET6, k->src, s, sizeof(s));
		inet_ntop(AF_INET6, k->dst, d, sizeof(d));
		pkt_eth(p, ETH_P_IPV6);
		pkt_ipv6(p, s, d, proto);
	} else {
		__u64 a = test_rand64(&rng);

		XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
		XS_W32(k->src, 3) = (__u32)a;
		XS_W32(k->dst, 3) = (__u32)(a >> 32);
		inet_ntop(AF_INET, &XS_W32(k->src, 3), s, sizeof(s));
		inet_ntop(AF_INET, &XS_W32(k->dst, 3), d, sizeof(d));
		pkt_eth(p, ETH_P_IP);
		pkt_ipv4(p, s, d, proto, 0);
	}
	pkt_ports(p, proto, sport, dport);
	pkt_finish(p);
	k->proto = proto;
	k->sport = htons(sport);
	k->dport = htons(dport);
}

/* Which buckets agree() empties, as removals from the middle leave them. */
enum holes {
	HOLES_NONE,
	HOLES_QUARTER, /* every fourth: a redraw finds a live bucket */
	HOLES_MOST,    /* all but every 64th: most walks spend their draws and step upward */
};

static int is_hole(enum holes holes, __u32 i)
{
	if (holes == HOLES_QUARTER)
		return i % 4 == 0;
	return holes == HOLES_MOST && i % 64 != 5;
}

/* Did the hole walk from @h over @n buckets draw only holes, and step upward? */
static int walked_upward(const struct xs_pool *pool, __u64 h, __u32 n)
{
	__u32 i;

	for (i = 0; i < XS_HOLE_DRAWS; i++)
		if (pool->bucket[xs_jump(xs_hole_key(h, i), n)] != XS_NO_TARGET)
			return 0;
	return 1;
}

static void agree(__u8 algo, __u8 hand, __u32 n, __u32 flows, enum holes holes, const char *what)
{
	static const __u64 seed[2] = { 0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL };
	__u64 *load = calloc(XS_MAX_TARGETS, sizeof(*load));
	__u32 i, same = 0, differ = 0, walked = 0, *hits = calloc(n, sizeof(*hits));
	struct prog_env env;

	if (!ASSERT_TRUE(load && hits, "out of memory") ||
	    !ASSERT_EQ(prog_env_open(&env, 2 * flows, XDP_PASS), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&env, algo, hand, n, seed), 0, "targets"))
		goto out;
	for (i = 0; i < n; i++)
		if (is_hole(holes, i))
			env.pool.bucket[i] = XS_NO_TARGET;
	if (holes && !ASSERT_EQ(xs_pool_publish(&env.h, XS_POOL_QUEUES, &env.pool), 0, "holes"))
		goto out;
	for (i = 0; i < flows; i++) {
		struct xs_flow_key k;
		struct xs_decision d;
		struct pkt p;
		int ret;

		random_flow(&p, &k);
		if (algo == XS_ALGO_SHUFFLE && xs_loads_read(&env.h, &env.pool, load))
			break;
		xs_decide(&env.pool, load, &k, &d);
		if (holes == HOLES_MOST)
			walked += walked_upward(&env.pool, d.flow_hash, n);
		ret = prog_env_run(&env, p.buf, p.len, 1, NULL, NULL, NULL);
		if (ret == XDP_REDIRECT && prog_env_pinned(&env, &k) == d.target) {
			same++;
			hits[d.bucket]++;
		} else if (differ++ < 5) {
			fprintf(stderr, "  %s flow %u: verdict %d, kernel %u, userspace %u\n", what, i,
				ret, prog_env_pinned(&env, &k), d.target);
		}
	}
	printf("  %s: %u of %u flows agree, %u differ\n", what, same, flows, differ);
	ASSERT_EQ(same, flows, what);
	/* The upward walk is a loop of its own on each side: exercise it. */
	if (holes == HOLES_MOST) {
		printf("  %s: %u flows walked upward\n", what, walked);
		ASSERT_TRUE(walked > flows / 4, "%s: only %u flows walked upward", what, walked);
	}
	for (i = 0; i < n; i++)
		ASSERT_TRUE((hits[i] > 0) == (env.pool.bucket[i] != XS_NO_TARGET),
			    "%s: slot %u chosen %u times", what, i, hits[i]);
	prog_env_close(&env);
out:
	free(load);
	free(hits);
}

TEST(jump_agrees)
{
	agree(XS_ALGO_JUMP, 0, 64, FLOWS_JUMP, HOLES_NONE, "jump N=64");
}

TEST(jump_with_holes_agrees)
{
	agree(XS_ALGO_JUMP, 0, 64, FLOWS_JUMP / 2, HOLES_QUARTER, "jump N=64, 16 holes");
}

TEST(jump_hole_walk_agrees)
{
	agree(XS_ALGO_JUMP, 0, 256, FLOWS_JUMP / 4, HOLES_MOST, "jump N=256, 252 holes");
}

TEST(shuffle_with_holes_agrees)
{
	agree(XS_ALGO_SHUFFLE, 4, 16, FLOWS_SHUFFLE / 2, HOLES_QUARTER,
	      "shuffle N=16 H=4, 4 holes");
}

TEST(shuffle_agrees)
{
	agree(XS_ALGO_SHUFFLE, 4, 16, FLOWS_SHUFFLE, HOLES_NONE, "shuffle N=16 H=4");
}

TEST_MAIN("prog_agree", NULL, NULL)
