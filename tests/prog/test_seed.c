// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Seed rotation under BPF_PROG_TEST_RUN, publishing the pool the way
 * `xdpsteer seed` does: established flows keep their targets (pins are keyed
 * by the flow, not its hash), new flows follow the new key exactly, and the
 * new key really re-deals them (about (N-1)/N of new flows land elsewhere).
 */
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define FLOWS 4000U
#define N 8U

static void flow(struct pkt *p, struct xs_flow_key *k, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.9.%u.%u", (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "10.0.0.1", IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, (__u16)(3000 + i), 443);
	pkt_finish(p);
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, src, &XS_W32(k->src, 3));
	inet_pton(AF_INET, "10.0.0.1", &XS_W32(k->dst, 3));
	k->proto = XS_IPPROTO_TCP;
	k->sport = htons((__u16)(3000 + i));
	k->dport = htons(443);
}

TEST(rotation_keeps_pins_and_moves_new_flows)
{
	static const __u64 old_seed[2] = { 1, 2 }, new_seed[2] = { 3, 4 };
	__u32 *pinned = calloc(2 * FLOWS, 4), i, moved = 0, disagree = 0, redealt = 0;
	struct xs_pool before;
	struct xs_decision d, d_old;
	struct xs_flow_key k;
	struct prog_env e;
	struct pkt p;

	before.bucket = NULL;
	if (!ASSERT_TRUE(pinned, "out of memory") ||
	    !ASSERT_EQ(prog_env_open(&e, 4 * FLOWS, XDP_PASS), 0, "load"))
		goto out_free;
	if (!ASSERT_EQ(prog_env_targets(&e, XS_ALGO_JUMP, 0, N, old_seed), 0, "targets"))
		goto out;
	for (i = 0; i < FLOWS; i++) {
		flow(&p, &k, i);
		prog_env_run(&e, p.buf, p.len, 1, NULL, NULL, NULL);
		pinned[i] = prog_env_pinned(&e, &k);
	}
	before = e.pool;
	before.bucket = calloc(N, 4);
	if (!ASSERT_TRUE(before.bucket, "out of memory"))
		goto out;
	memcpy(before.bucket, e.pool.bucket, N * 4);
	e.pool.hdr.seed[0] = new_seed[0];
	e.pool.hdr.seed[1] = new_seed[1];
	if (!ASSERT_EQ(xs_pool_publish(&e.h, XS_POOL_QUEUES, &e.pool), 0, "publish"))
		goto out;
	for (i = 0; i < FLOWS; i++) {
		flow(&p, &k, i);
		prog_env_run(&e, p.buf, p.len, 1, NULL, NULL, NULL);
		moved += prog_env_pinned(&e, &k) != pinned[i];
	}
	ASSERT_EQ(moved, 0, "established flows moved by a seed rotation");
	for (i = FLOWS; i < 2 * FLOWS; i++) {
		flow(&p, &k, i);
		prog_env_run(&e, p.buf, p.len, 1, NULL, NULL, NULL);
		xs_decide(&e.pool, NULL, &k, &d);
		xs_decide(&before, NULL, &k, &d_old);
		disagree += prog_env_pinned(&e, &k) != d.target;
		redealt += d.target != d_old.target;
	}
	ASSERT_EQ(disagree, 0, "new flows vs the decision with the new seed");
	/* (N-1)/N = 87.5% expected; binomial sd over 4000 flows is 0.5%. */
	ASSERT_RANGE((double)redealt / FLOWS, 0.875 - 0.03, 0.875 + 0.03,
		     "share of new flows the new seed places elsewhere");
	printf("  seed rotation: 0 of %u established flows moved; %u of %u new flows placed "
	       "elsewhere than the old seed would (%.1f%%, ideal %.1f%%)\n", FLOWS, redealt, FLOWS,
	       100.0 * redealt / FLOWS, 100.0 * (N - 1) / N);
out:
	prog_env_close(&e);
out_free:
	free(before.bucket);
	free(pinned);
}

TEST_MAIN("prog_seed", NULL, NULL)
