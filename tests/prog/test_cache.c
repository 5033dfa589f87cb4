// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The flow cache's size (attach --flow-cache-size, BPF_PROG_TEST_RUN): the
 * per-CPU blocks are as large as asked, and flows land in all of a block's
 * slots, not only in the default's first 8192. Established flows are still
 * hits, and a second pass decides nothing afresh.
 */
#define _GNU_SOURCE
#include "one_cpu.h"
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "test.h"

#define SLOTS 65536U
#define FLOWS 3000U

static const __u64 seed[2] = { 0xcac4ecac4ecac4eULL, 0x5107510751075107ULL };

static void flow(struct pkt *p, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.%u.%u.%u", 100 + (i >> 16), (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "10.0.0.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, (__u16)(1024 + (i & 0x7fff)), 53);
	pkt_finish(p);
}

/* One pass over the flows; the flow_hit and flow_new counts it added. */
static void pass(struct prog_env *e, __u64 *hit, __u64 *fresh)
{
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	struct pkt p;
	__u32 i;

	xs_counters_read(&e->h, a);
	for (i = 0; i < FLOWS; i++) {
		flow(&p, i);
		prog_env_run(e, p.buf, p.len, 1, NULL, NULL, NULL);
	}
	xs_counters_read(&e->h, b);
	*hit = b[XS_C_FLOW_HIT] - a[XS_C_FLOW_HIT];
	*fresh = b[XS_C_FLOW_NEW] - a[XS_C_FLOW_NEW];
}

TEST(flow_cache_size_is_honoured)
{
	struct prog_env_cfg cfg = { .flow_entries = 65536, .unparsed_verdict = XDP_PASS,
				    .cache_slots = SLOTS };
	struct prog_env e = { 0 };
	struct xs_flow_cache_entry c;
	__u32 s, cpu = (__u32)sched_getcpu(), used = 0, beyond = 0, key;
	int nr_cpus = libbpf_num_possible_cpus(), fd;
	__u64 hit, fresh;

	if (!ASSERT_EQ(prog_env_open_cfg(&e, &cfg), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&e, XS_ALGO_JUMP, 0, 4, seed), 0, "targets"))
		return;
	ASSERT_EQ(bpf_map__max_entries(e.skel->maps.xs_flow_cache), (__u32)nr_cpus * SLOTS,
		  "xs_flow_cache entries: a block of SLOTS per CPU");
	pass(&e, &hit, &fresh);
	ASSERT_EQ(fresh, FLOWS, "first pass: new flows");
	/* This CPU's block: which slots hold a flow. */
	fd = bpf_map__fd(e.skel->maps.xs_flow_cache);
	for (s = 0; s < SLOTS; s++) {
		key = cpu * SLOTS + s;
		if (bpf_map_lookup_elem(fd, &key, &c) || !c.key.proto)
			continue;
		used++;
		beyond += s >= XS_FLOW_CACHE_SLOTS;
	}
	printf("  %u flows in %u slots: %u slots used, %u of them past slot %u\n", FLOWS, SLOTS,
	       used, beyond, (unsigned int)XS_FLOW_CACHE_SLOTS - 1);
	/* Expected 65536 * (1 - e^(-3000/65536)) = 2932 used, 87% of them past 8191. */
	ASSERT_TRUE(used >= FLOWS * 95 / 100, "only %u slots used by %u flows", used, FLOWS);
	ASSERT_TRUE(beyond >= used * 3 / 4, "only %u of %u used slots past the default's", beyond,
		    used);
	pass(&e, &hit, &fresh);
	ASSERT_EQ(hit, FLOWS, "second pass: flow hits");
	ASSERT_EQ(fresh, 0, "second pass: new flows");
	prog_env_close(&e);
}

TEST(default_flow_cache_size)
{
	struct prog_env e = { 0 };
	int nr_cpus = libbpf_num_possible_cpus();

	if (!ASSERT_EQ(prog_env_open(&e, 65536, XDP_PASS), 0, "load"))
		return;
	ASSERT_EQ(bpf_map__max_entries(e.skel->maps.xs_flow_cache),
		  (__u32)nr_cpus * XS_FLOW_CACHE_SLOTS, "xs_flow_cache entries, default");
	prog_env_close(&e);
}

static int setup(void)
{
	/* The flow cache is per CPU: the block read is the one the runs filled. */
	if (stay_on_one_cpu("prog_cache"))
		exit(1);
	return 0;
}

TEST_MAIN("prog_cache", setup, NULL)
