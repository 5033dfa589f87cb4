// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Per-packet cost of the steering program under BPF_PROG_TEST_RUN, by
 * algorithm and pool size, always beside the floor program timed the same
 * way in the same run (prog_timing.h: methods and helpers). The flow
 * table's own hit and miss costs are in bench_flows.c.
 */
#include <time.h>
#include "prog_timing.h"

static void bench_repeat(void)
{
	static const struct {
		__u8 algo, hand;
		__u32 n;
	} cases[] = {
		{ XS_ALGO_JUMP, 0, 2 },	      { XS_ALGO_JUMP, 0, 64 },	   { XS_ALGO_JUMP, 0, 1024 },
		{ XS_ALGO_JUMP, 0, 65536 },   { XS_ALGO_SHUFFLE, 4, 64 }, { XS_ALGO_SHUFFLE, 8, 64 },
	};
	struct prog_env hit, nopin;
	double floor_ns;
	unsigned int i;
	struct pkt p;

	flow_pkt(&p, 1);
	if (prog_env_open(&hit, 65536, XDP_PASS) || prog_env_open(&nopin, 0, XDP_PASS)) {
		printf("cannot load the XDP program\n");
		exit(1);
	}
	floor_ns = time_repeat(floor_fd, &p);
	printf("\nrepeat method (%d runs of one packet, median of %d):\n", REPEAT, ROUNDS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT)", floor_ns);
	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		char what[96];
		const char *name = cases[i].algo == XS_ALGO_JUMP ? "jump" : "shuffle";

		if (spread_pool(&hit, cases[i].algo, cases[i].hand, cases[i].n) ||
		    spread_pool(&nopin, cases[i].algo, cases[i].hand, cases[i].n)) {
			printf("cannot build a pool of %u\n", cases[i].n);
			exit(1);
		}
		if (cases[i].algo == XS_ALGO_JUMP)
			snprintf(what, sizeof(what), "%s N=%u, decision every packet", name,
				 cases[i].n);
		else
			snprintf(what, sizeof(what), "%s N=%u H=%u, decision every packet", name,
				 cases[i].n, cases[i].hand);
		row(what, time_repeat(nopin.prog_fd, &p), floor_ns);
		if (cases[i].algo == XS_ALGO_JUMP)
			snprintf(what, sizeof(what), "%s N=%u, established (flow-table hit)", name,
				 cases[i].n);
		else
			snprintf(what, sizeof(what), "%s N=%u H=%u, established", name, cases[i].n,
				 cases[i].hand);
		row(what, time_repeat(hit.prog_fd, &p), floor_ns);
	}
	prog_env_close(&hit);
	prog_env_close(&nopin);
}

static void bench_loop(void)
{
	static const struct {
		__u8 algo, hand;
		__u32 n;
	} cases[] = { { XS_ALGO_JUMP, 0, 64 }, { XS_ALGO_SHUFFLE, 4, 64 } };
	double floor_ns;
	unsigned int i;

	floor_ns = time_loop(floor_fd, 0, LOOP_FLOWS, LOOP_FLOWS);
	printf("\nloop method (repeat=1 over %d distinct flows, kernel-timed):\n", LOOP_FLOWS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT)", floor_ns);
	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		struct prog_env e;
		char what[96];

		if (prog_env_open(&e, 2 * LOOP_FLOWS, XDP_PASS) ||
		    spread_pool(&e, cases[i].algo, cases[i].hand, cases[i].n)) {
			printf("cannot load the XDP program\n");
			exit(1);
		}
		snprintf(what, sizeof(what), "%s N=%u%s, new flow (miss + pin)",
			 cases[i].algo == XS_ALGO_JUMP ? "jump" : "shuffle", cases[i].n,
			 cases[i].algo == XS_ALGO_JUMP ? "" : " H=4");
		row(what, time_loop(e.prog_fd, 0, LOOP_FLOWS, LOOP_FLOWS), floor_ns);
		snprintf(what, sizeof(what), "%s N=%u%s, established (same flows again)",
			 cases[i].algo == XS_ALGO_JUMP ? "jump" : "shuffle", cases[i].n,
			 cases[i].algo == XS_ALGO_JUMP ? "" : " H=4");
		row(what, time_loop(e.prog_fd, 0, LOOP_FLOWS, LOOP_FLOWS), floor_ns);
		prog_env_close(&e);
	}
}

/* ns per userspace decision over @n keys, as `xdpsteer lookup` makes it. */
static double time_decide(const struct xs_pool *pool, __u32 n)
{
	struct xs_flow_key k = { 0 };
	struct timespec t0, t1;
	volatile __u64 sink = 0;
	struct xs_decision d;
	__u32 i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		k.sport = (__u16)i;
		XS_W32(k.src, 3) = i;
		xs_decide(pool, NULL, &k, &d);
		sink += d.target;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	(void)sink;
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
}

/* Userspace `lookup` throughput, against hashing alone as the baseline. */
static void bench_lookup(void)
{
	struct prog_env e;
	struct timespec t0, t1;
	volatile __u64 sink = 0;
	__u32 i, n = 2000000;
	double hash_ns, jump_ns, shuf_ns;
	struct xs_flow_key k = { 0 };

	if (prog_env_open(&e, 1024, XDP_PASS) || spread_pool(&e, XS_ALGO_JUMP, 0, 64))
		exit(1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		k.sport = (__u16)i;
		XS_W32(k.src, 3) = i;
		sink += xs_flow_hash(seed, &k, XS_F_ALL, XS_DOMAIN_FLOW);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	hash_ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
	jump_ns = time_decide(&e.pool, n);
	spread_pool(&e, XS_ALGO_SHUFFLE, 4, 64);
	shuf_ns = time_decide(&e.pool, n);
	printf("\nuserspace decision (the code `xdpsteer lookup` runs, %u keys):\n", n);
	printf("  %-44s %8.1f ns  %6.1f M/s\n", "baseline: SipHash-1-3 of the key only", hash_ns,
	       1e3 / hash_ns);
	printf("  %-44s %8.1f ns  %6.1f M/s  x%.2f\n", "jump N=64 decision", jump_ns,
	       1e3 / jump_ns, jump_ns / hash_ns);
	printf("  %-44s %8.1f ns  %6.1f M/s  x%.2f\n", "shuffle N=64 H=4 decision", shuf_ns,
	       1e3 / shuf_ns, shuf_ns / hash_ns);
	prog_env_close(&e);
	(void)sink;
}

/*
 * The established path under a flood of new flows: 64 established flows timed
 * by the loop method before and after 100,000 new flows, with the pin rate
 * limit (the flood stays out of the flow cache) and without it (the flood
 * overwrites cache slots and evicts LRU pins).
 */
static void bench_flood(void)
{
	static const struct {
		const char *name;
		__u32 rate;
	} cases[] = { { "--pin-rate 1000", 1000 }, { "no pin limit", 0 } };
	double floor_ns = time_loop(floor_fd, 0, 64 * 500, 64);
	unsigned int i;

	printf("\nestablished flows under a flood (loop method, 64 flows x 500, floor %.1f ns):\n",
	       floor_ns);
	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		struct prog_env e;
		double before, after;

		if (prog_env_open_limited(&e, 65536, XDP_PASS, cases[i].rate, 64) ||
		    spread_pool(&e, XS_ALGO_JUMP, 0, 64)) {
			printf("cannot load the XDP program\n");
			exit(1);
		}
		time_loop(e.prog_fd, 0, 64, 64);		 /* pin the 64 flows */
		before = time_loop(e.prog_fd, 0, 64 * 500, 64);
		time_loop(e.prog_fd, 1000000, 100000, 100000); /* the flood */
		after = time_loop(e.prog_fd, 0, 64 * 500, 64);
		printf("  %-16s before %7.1f ns (%+6.1f), after the flood %7.1f ns (%+6.1f)\n",
		       cases[i].name, before, before - floor_ns, after, after - floor_ns);
		prog_env_close(&e);
	}
}

int main(int argc, char **argv)
{
	floor_load(argc > 1 ? argv[1] : "build/bench/floor.bpf.o");
	printf("xdpsteer per-packet cost (BPF_PROG_TEST_RUN, JIT on, 1 CPU):\n");
	printf("  %-44s %11s %11s  %s\n", "case", "per packet", "above floor", "ratio to floor");
	bench_repeat();
	bench_loop();
	bench_flood();
	bench_lookup();
	bpf_object__close(floor_obj);
	return 0;
}
