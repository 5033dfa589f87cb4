// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Per-packet cost of the steering program under BPF_PROG_TEST_RUN, by
 * algorithm and pool size, always beside the floor program timed the same
 * way in the same run (prog_timing.h: methods and helpers). The flow
 * table's own hit and miss costs are in bench_flows.c.
 */
#include <time.h>
#include "prog_timing.h"
#include "xs_trace_rec.h"

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

/* One round of @n runs of @p, the per-packet time; the ring emptied first. */
static double time_traced(int prog_fd, const struct pkt *p, __u32 n, struct ring_buffer *rb)
{
	unsigned char out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = n);

	if (rb)
		ring_buffer__consume(rb);
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -1;
	return o.duration;
}

static int count_record(void *ctx, void *data, size_t size)
{
	(*(__u64 *)ctx)++;
	return 0;
}

/*
 * `xdpsteer trace` on the established path (jump N=64, a flow-table hit):
 * no trace, a trace whose filter matches nothing, a trace of every packet
 * (no rate cap; 2000 runs a round, which the ring holds, emptied between
 * rounds) and every packet under the default cap of 1000 a second. Rounds
 * interleave the cases, so load on the machine falls on all of them alike.
 */
static void bench_trace(void)
{
	enum { OFF, NOTHING, ALL, CAPPED, N_CASES };
	static const char *const names[N_CASES] = {
		"no trace", "trace, filter matches nothing", "trace of every packet, no cap",
		"trace of every packet, default cap",
	};
	struct xs_trace_filter f[N_CASES] = { { 0 } };
	double t[N_CASES][ROUNDS], floor_ns;
	struct ring_buffer *rb;
	struct prog_env e;
	__u64 records = 0;
	__u32 zero = 0, n[N_CASES];
	struct pkt p;
	int c, r;

	flow_pkt(&p, 1);
	if (prog_env_open(&e, 65536, XDP_PASS) || spread_pool(&e, XS_ALGO_JUMP, 0, 64)) {
		printf("cannot load the XDP program\n");
		exit(1);
	}
	rb = ring_buffer__new(bpf_map__fd(e.skel->maps.xs_trace_ring), count_record, &records,
			      NULL);
	f[NOTHING].owner = f[ALL].owner = f[CAPPED].owner = 1;
	f[NOTHING].fields = XS_TF_CLIENT;  /* 203.0.113.0/24, which sends nothing */
	memset(f[NOTHING].client_mask, 0xff, 15);
	memcpy(f[NOTHING].client, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xcb\x00\x71", 15);
	f[CAPPED].rate = XS_TRACE_DEFAULT_RATE;
	for (c = 0; c < N_CASES; c++)
		n[c] = c == ALL ? 2000 : REPEAT;
	time_traced(e.prog_fd, &p, 1, NULL); /* pin the flow */
	floor_ns = time_repeat(floor_fd, &p);
	for (r = 0; r < ROUNDS; r++) {
		for (c = 0; c < N_CASES; c++) {
			e.skel->bss->xs_trace_on = 0;
			bpf_map_update_elem(bpf_map__fd(e.skel->maps.xs_trace_filter), &zero, &f[c],
					    BPF_ANY);
			e.skel->bss->xs_trace_on = c != OFF;
			t[c][r] = time_traced(e.prog_fd, &p, n[c], rb);
		}
	}
	e.skel->bss->xs_trace_on = 0;
	ring_buffer__consume(rb);
	printf("\ntrace (repeat method, jump N=64 established, median of %d interleaved "
	       "rounds):\n", ROUNDS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT)", floor_ns);
	for (c = 0; c < N_CASES; c++)
		row(names[c], median(t[c], ROUNDS), floor_ns);
	printf("  (records read: %llu)\n", (unsigned long long)records);
	ring_buffer__free(rb);
	prog_env_close(&e);
}

int main(int argc, char **argv)
{
	floor_load(argc > 1 ? argv[1] : "build/bench/floor.bpf.o");
	printf("xdpsteer per-packet cost (BPF_PROG_TEST_RUN, JIT on, 1 CPU):\n");
	printf("  %-44s %11s %11s  %s\n", "case", "per packet", "above floor", "ratio to floor");
	/* `bench_prog FLOOR.o trace`: only the trace rows (the machine is shared). */
	if (argc > 2 && !strcmp(argv[2], "trace")) {
		bench_trace();
		bpf_object__close(floor_obj);
		return 0;
	}
	bench_repeat();
	bench_loop();
	bench_flood();
	bench_lookup();
	bench_trace();
	bpf_object__close(floor_obj);
	return 0;
}
