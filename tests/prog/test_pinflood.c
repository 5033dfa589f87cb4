// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A flood of new flows against the flow table (BPF_PROG_TEST_RUN). With the
 * pin rate limit, the flood pins at most burst + rate * elapsed new flows, so
 * established pins survive; without it, the flood evicts them. Flows beyond
 * the limit are still steered, unpinned, and a shuffle flow without a pin
 * keeps one target for all its packets (its hand's tie-break order).
 */
#define _GNU_SOURCE
#include "one_cpu.h"
#include <time.h>
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define TABLE 4096U
#define ESTABLISHED 500U
#define FLOOD 20000U
#define RATE 1000U  /* pins per second per CPU */
#define BURST 100U

static const __u64 seed[2] = { 0xf100df100df100dULL, 0x5eed5eed5eed5eedULL };

static void flow(struct pkt *p, struct xs_flow_key *k, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.%u.%u.%u", 100 + (i >> 16), (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "10.0.0.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, (__u16)(1024 + (i & 0x7fff)), 53);
	pkt_finish(p);
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, src, &XS_W32(k->src, 3));
	inet_pton(AF_INET, "10.0.0.1", &XS_W32(k->dst, 3));
	k->proto = XS_IPPROTO_UDP;
	k->sport = htons((__u16)(1024 + (i & 0x7fff)));
	k->dport = htons(53);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Pin ESTABLISHED flows, flood FLOOD new ones; returns how many established pins survive. */
static __u32 flood(struct prog_env *e, __u32 *limited, double *secs)
{
	__u64 c[XS_C_MAX];
	struct xs_flow_key k;
	struct pkt p;
	__u32 i, alive = 0;
	double t0;

	for (i = 0; i < ESTABLISHED; i++) {
		flow(&p, &k, i);
		prog_env_run(e, p.buf, p.len, 1, NULL, NULL, NULL);
	}
	t0 = now_s();
	for (i = 0; i < FLOOD; i++) {
		flow(&p, &k, 100000 + i);
		prog_env_run(e, p.buf, p.len, 1, NULL, NULL, NULL);
	}
	*secs = now_s() - t0;
	for (i = 0; i < ESTABLISHED; i++) {
		flow(&p, &k, i);
		alive += prog_env_pinned(e, &k) != XS_NO_TARGET;
	}
	*limited = xs_counters_read(&e->h, c) ? 0 : (__u32)c[XS_C_PIN_LIMITED];
	return alive;
}

TEST(rate_limit_protects_established_pins)
{
	struct prog_env lim, open;
	__u32 alive_lim, alive_open, limited, limited_open;
	double secs, secs_open;

	/* The established flows are pinned within the burst; the flood gets the rest. */
	if (!ASSERT_EQ(prog_env_open_limited(&lim, TABLE, XDP_PASS, RATE, ESTABLISHED + BURST), 0,
		       "load limited") ||
	    !ASSERT_EQ(prog_env_targets(&lim, XS_ALGO_JUMP, 0, 4, seed), 0, "targets") ||
	    !ASSERT_EQ(prog_env_open(&open, TABLE, XDP_PASS), 0, "load unlimited") ||
	    !ASSERT_EQ(prog_env_targets(&open, XS_ALGO_JUMP, 0, 4, seed), 0, "targets"))
		return;
	alive_lim = flood(&lim, &limited, &secs);
	alive_open = flood(&open, &limited_open, &secs_open);
	printf("  flood of %u new flows into a %u-entry table holding %u pinned flows:\n", FLOOD,
	       TABLE, ESTABLISHED);
	printf("    --pin-rate %u: %u of %u established pins survive, %u flood flows unpinned "
	       "(%.2f s)\n", RATE, alive_lim, ESTABLISHED, limited, secs);
	printf("    no limit:      %u of %u established pins survive, %u unpinned (%.2f s)\n",
	       alive_open, ESTABLISHED, limited_open, secs_open);
	ASSERT_EQ(alive_lim, ESTABLISHED, "established pins lost under the limit");
	/* At most the burst left plus what the clock added: BURST + RATE * secs (+1 tick). */
	ASSERT_TRUE(FLOOD - limited <= BURST + RATE * secs + RATE / 100 + 1,
		    "flood pinned %u flows in %.2f s", FLOOD - limited, secs);
	ASSERT_EQ(limited_open, 0, "no limit, nothing unpinned");
	ASSERT_TRUE(alive_open < ESTABLISHED / 10, "without the limit the flood evicts (%u alive)",
		    alive_open);
	prog_env_close(&lim);
	prog_env_close(&open);
}

TEST(unpinned_shuffle_flow_keeps_its_target)
{
	struct prog_env e = { 0 };
	struct xs_flow_key k;
	struct pkt p;
	__u32 i, j, flapped = 0;

	/* Rate 1, burst 1: after the first flow, nothing is pinned. */
	if (!ASSERT_EQ(prog_env_open_limited(&e, TABLE, XDP_PASS, 1, 1), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&e, XS_ALGO_SHUFFLE, 2, 2, seed), 0, "targets"))
		return;
	for (i = 0; i < 200; i++) {
		struct xs_target_stats s0[2], s1[2];
		int first = -1;

		flow(&p, &k, 500000 + i);
		for (j = 0; j < 8; j++) {
			int t, which = -1;

			for (t = 0; t < 2; t++)
				xs_stats_read(&e.h, e.pool.bucket[t], &s0[t], NULL);
			prog_env_run(&e, p.buf, p.len, 1, NULL, NULL, NULL);
			for (t = 0; t < 2; t++) {
				xs_stats_read(&e.h, e.pool.bucket[t], &s1[t], NULL);
				if (s1[t].packets != s0[t].packets)
					which = t;
			}
			if (first < 0)
				first = which;
			flapped += which != first;
		}
	}
	ASSERT_EQ(flapped, 0, "packets of an unpinned shuffle flow on another target");
	prog_env_close(&e);
}

static int setup(void)
{
	/* The bucket is per CPU: on one CPU the bound below is one CPU's (the
	 * scheduler would otherwise spread the runs over two buckets).
	 * stay_on_one_cpu() prints the suite's failure line itself. */
	if (stay_on_one_cpu("prog_pinflood"))
		exit(1);
	return 0;
}

TEST_MAIN("prog_pinflood", setup, NULL)
