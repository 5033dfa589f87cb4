// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Drain, under BPF_PROG_TEST_RUN, with the pool edits the CLI makes
 * (xs_pool_drain + the target's DRAIN flag, published in the CLI's order):
 *  - a draining target keeps every flow pinned to it, and gets no new flow;
 *  - undraining restores the earlier mapping for new flows exactly;
 *  - removing it after the drain moves only its own (pinned) flows.
 */
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define FLOWS 4000
#define N 8

static const __u64 seed[2] = { 0x0f1e2d3c4b5a6978ULL, 0x8796a5b4c3d2e1f0ULL };

static void flow(struct pkt *p, struct xs_flow_key *k, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.7.%u.%u", (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "10.0.0.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, (__u16)(2000 + i), 53);
	pkt_finish(p);
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, src, &XS_W32(k->src, 3));
	inet_pton(AF_INET, "10.0.0.1", &XS_W32(k->dst, 3));
	k->proto = XS_IPPROTO_UDP;
	k->sport = htons((__u16)(2000 + i));
	k->dport = htons(53);
}

/* Send flows [first, first + n) once each; record where each was pinned. */
static void send_flows(struct prog_env *e, __u32 first, __u32 n, __u32 *where)
{
	struct xs_flow_key k;
	struct pkt p;
	__u32 i;

	for (i = 0; i < n; i++) {
		flow(&p, &k, first + i);
		prog_env_run(e, p.buf, p.len, 1, NULL, NULL, NULL);
		where[i] = prog_env_pinned(e, &k);
	}
}

static int set_drain(struct prog_env *e, __u32 id, bool drain)
{
	struct xs_target t;

	if (bpf_map_lookup_elem(e->h.targets_fd, &id, &t) ||
	    xs_pool_drain(&e->pool, &t, id, drain) < 0)
		return -1;
	t.drain = !t.drain;
	if (drain)
		return xs_pool_publish(&e->h, XS_POOL_QUEUES, &e->pool) ||
		       xs_target_write(&e->h, id, &t);
	return xs_target_write(&e->h, id, &t) || xs_pool_publish(&e->h, XS_POOL_QUEUES, &e->pool);
}

TEST(drain_keeps_pins_and_takes_no_new_flows)
{
	__u32 *before = calloc(FLOWS, 4), *after = calloc(FLOWS, 4), *fresh = calloc(FLOWS, 4);
	__u32 *again = calloc(FLOWS, 4), i, victim, on_victim = 0, moved = 0, to_victim = 0;
	__u32 orig_buckets[N], orig_n;
	struct prog_env e = { 0 }; /* prog_env_close() is safe on it from here on */

	if (!ASSERT_TRUE(before && after && fresh && again, "allocation") ||
	    !ASSERT_EQ(prog_env_open(&e, 4 * FLOWS, XDP_PASS), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&e, XS_ALGO_JUMP, 0, N, seed), 0, "targets"))
		goto out;
	send_flows(&e, 0, FLOWS, before);
	victim = e.pool.bucket[N / 2];
	orig_n = e.pool.hdr.n_buckets;
	memcpy(orig_buckets, e.pool.bucket, orig_n * sizeof(__u32));
	for (i = 0; i < FLOWS; i++)
		on_victim += before[i] == victim;

	if (!ASSERT_EQ(set_drain(&e, victim, true), 0, "drain"))
		goto out;
	send_flows(&e, 0, FLOWS, after);
	for (i = 0; i < FLOWS; i++)
		moved += after[i] != before[i];
	ASSERT_EQ(moved, 0, "established flows moved by a drain");

	send_flows(&e, FLOWS, FLOWS, fresh);
	for (i = 0; i < FLOWS; i++)
		to_victim += fresh[i] == victim;
	ASSERT_EQ(to_victim, 0, "new flows placed on the draining target");
	printf("  drain: %u of %u flows pinned to the draining target stayed; 0 of %d new "
	       "flows went to it\n", on_victim, on_victim, FLOWS);

	/* Undrain: the pool is exactly what it was, so new flows map as before. */
	if (!ASSERT_EQ(set_drain(&e, victim, false), 0, "undrain"))
		goto out;
	ASSERT_EQ(e.pool.hdr.n_buckets, orig_n, "slots after undrain");
	ASSERT_TRUE(!memcmp(e.pool.bucket, orig_buckets, orig_n * sizeof(__u32)),
		    "every slot holds its target again");
	{
		struct xs_decision d;
		struct xs_flow_key k;
		struct pkt p;
		struct xs_pool orig = e.pool;
		__u32 differ = 0;

		for (i = 0; i < FLOWS; i++) {
			flow(&p, &k, 2 * FLOWS + i);
			xs_decide(&orig, NULL, &k, &d);
			again[i] = d.target;
		}
		send_flows(&e, 2 * FLOWS, FLOWS, fresh);
		for (i = 0; i < FLOWS; i++)
			differ += fresh[i] != again[i];
		ASSERT_EQ(differ, 0, "kernel vs decision after undrain");
	}
out:
	prog_env_close(&e);
	free(before);
	free(after);
	free(fresh);
	free(again);
}

TEST_MAIN("prog_drain", NULL, NULL)
