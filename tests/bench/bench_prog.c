// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Per-packet cost of the steering program under BPF_PROG_TEST_RUN, always
 * beside a floor program (returns XDP_REDIRECT, nothing else) timed the same
 * way in the same run. Reported: ns/packet, ns above the floor, and the
 * ratio to the floor.
 *
 * Two timing methods, never mixed within a comparison:
 *  - repeat: one packet run `repeat` times in the kernel. Fine here because
 *    queue steering never rewrites the packet. With the flow table on, every
 *    run after the first is an established flow.
 *  - loop: repeat=1 runs over many distinct packets, so each is a new flow
 *    (a flow-table miss, the decision, and the pin). The per-run figure is
 *    the kernel's own timing of one run, which carries fixed timer overhead:
 *    that is why the floor is timed the same way.
 */
#include <linux/bpf.h>
#include <time.h>
#include "prog_env.h"
#include "pkt.h"

#define REPEAT 2000000
#define LOOP_FLOWS 200000
#define ROUNDS 5

static const __u64 seed[2] = { 0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL };
static int floor_fd;

static void flow_pkt(struct pkt *p, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.%u.%u.%u", (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "192.0.2.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, (__u16)(1024 + i % 60000), 53);
	pkt_payload(p, 18);
	pkt_finish(p);
}

/* Median of ROUNDS in-kernel timings of @repeat runs of @pkt, in ns per run. */
static double time_repeat(int prog_fd, const struct pkt *p)
{
	double t[ROUNDS], tmp;
	int r, i, j;

	for (r = 0; r < ROUNDS; r++) {
		unsigned char out[2048];
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = REPEAT);

		if (bpf_prog_test_run_opts(prog_fd, &o))
			return -1;
		t[r] = o.duration;
	}
	for (i = 0; i < ROUNDS; i++)
		for (j = i + 1; j < ROUNDS; j++)
			if (t[j] < t[i]) {
				tmp = t[i];
				t[i] = t[j];
				t[j] = tmp;
			}
	return t[ROUNDS / 2];
}

/* Mean in-kernel timing of one run each over @n distinct flows starting at @first. */
static double time_loop(int prog_fd, __u32 first, __u32 n)
{
	double sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		unsigned char out[2048];
		struct pkt p;

		flow_pkt(&p, first + i);
		{
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p.buf, .data_size_in = p.len,
				    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

			if (bpf_prog_test_run_opts(prog_fd, &o))
				return -1;
			sum += o.duration;
		}
	}
	return sum / n;
}

static void row(const char *what, double ns, double floor_ns)
{
	printf("  %-44s %8.1f ns %+8.1f ns  x%.2f\n", what, ns, ns - floor_ns, ns / floor_ns);
}

/* A pool of @n buckets over the environment's two real targets. */
static int spread_pool(struct prog_env *e, __u8 algo, __u8 hand, __u32 n)
{
	__u32 *b, i, t0, t1;

	if (prog_env_targets(e, algo, hand, 2, seed))
		return -1;
	t0 = e->pool.bucket[0];
	t1 = e->pool.bucket[1];
	b = realloc(e->pool.bucket, n * sizeof(*b));
	if (!b)
		return -1;
	for (i = 0; i < n; i++)
		b[i] = i & 1 ? t1 : t0;
	e->pool.bucket = b;
	e->pool.hdr.n_buckets = n;
	return xs_pool_publish(&e->h, XS_POOL_QUEUES, &e->pool);
}

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

	floor_ns = time_loop(floor_fd, 0, LOOP_FLOWS);
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
		row(what, time_loop(e.prog_fd, 0, LOOP_FLOWS), floor_ns);
		snprintf(what, sizeof(what), "%s N=%u%s, established (same flows again)",
			 cases[i].algo == XS_ALGO_JUMP ? "jump" : "shuffle", cases[i].n,
			 cases[i].algo == XS_ALGO_JUMP ? "" : " H=4");
		row(what, time_loop(e.prog_fd, 0, LOOP_FLOWS), floor_ns);
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
		k.src[3] = i;
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
		k.src[3] = i;
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
	double floor_ns = time_loop(floor_fd, 0, 64 * 500);
	unsigned int i;

	printf("\nestablished flows under a flood (loop method, 64 flows x 500, floor %.1f ns):\n",
	       floor_ns);
	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		struct prog_env e;
		double before, after;
		__u32 j;

		if (prog_env_open_limited(&e, 65536, XDP_PASS, cases[i].rate, 64) ||
		    spread_pool(&e, XS_ALGO_JUMP, 0, 64)) {
			printf("cannot load the XDP program\n");
			exit(1);
		}
		time_loop(e.prog_fd, 0, 64);	   /* pin the 64 flows */
		before = 0;
		for (j = 0; j < 500; j++)
			before += time_loop(e.prog_fd, 0, 64);
		time_loop(e.prog_fd, 1000000, 100000); /* the flood */
		after = 0;
		for (j = 0; j < 500; j++)
			after += time_loop(e.prog_fd, 0, 64);
		printf("  %-16s before %7.1f ns (%+6.1f), after the flood %7.1f ns (%+6.1f)\n",
		       cases[i].name, before / 500, before / 500 - floor_ns, after / 500,
		       after / 500 - floor_ns);
		prog_env_close(&e);
	}
}

int main(int argc, char **argv)
{
	const char *floor_path = argc > 1 ? argv[1] : "build/bench/floor.bpf.o";
	struct bpf_object *obj = bpf_object__open_file(floor_path, NULL);

	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "cannot load the floor program %s\n", floor_path);
		return 1;
	}
	floor_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xs_floor_redirect"));
	printf("xdpsteer per-packet cost (BPF_PROG_TEST_RUN, JIT on, 1 CPU):\n");
	printf("  %-44s %11s %11s  %s\n", "case", "per packet", "above floor", "ratio to floor");
	bench_repeat();
	bench_loop();
	bench_flood();
	bench_lookup();
	bpf_object__close(obj);
	return 0;
}
