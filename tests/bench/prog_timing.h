/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Timing the steering program under BPF_PROG_TEST_RUN beside the floor
 * program (tests/bench/floor.bpf.c: returns XDP_REDIRECT, nothing else),
 * shared by bench_prog.c and bench_flows.c. Each figure is reported with the
 * floor timed the same way in the same run: ns/packet, ns above the floor,
 * ratio to the floor.
 *
 * Two timing methods, never mixed within a comparison:
 *  - repeat: one packet run `repeat` times in the kernel. Fine for queue
 *    steering, which never rewrites the packet. With the flow table on, every
 *    run after the first is an established flow.
 *  - loop: repeat=1 runs over distinct packets (new flows, or a cycle over a
 *    few). The per-run figure is the kernel's own timing of one run, which
 *    carries fixed timer overhead: that is why the floor is timed the same way.
 */
#ifndef XS_BENCH_PROG_TIMING_H
#define XS_BENCH_PROG_TIMING_H

#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "quantile.h"

#define REPEAT 2000000
#define LOOP_FLOWS 200000
#define ROUNDS 5

static const __u64 seed[2] = { 0x452821e638d01377ULL, 0xbe5466cf34e90c6cULL };
static int floor_fd;
static struct bpf_object *floor_obj;

/* Load the floor program from @path into floor_fd; exits naming @path on failure. */
static inline void floor_load(const char *path)
{
	floor_obj = bpf_object__open_file(path, NULL);
	if (!floor_obj || bpf_object__load(floor_obj)) {
		fprintf(stderr, "cannot load the floor program %s\n", path);
		exit(1);
	}
	floor_fd = bpf_program__fd(bpf_object__find_program_by_name(floor_obj,
								      "xs_floor_redirect"));
}

/* UDP flow number @i: a distinct source address and port per flow. */
static inline void flow_pkt(struct pkt *p, __u32 i)
{
	char src[32];

	snprintf(src, sizeof(src), "10.%u.%u.%u", (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "192.0.2.1", IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, (__u16)(1024 + i % 60000), 53);
	pkt_payload(p, 18);
	pkt_finish(p);
}

static inline double median(double *v, int n)
{
	return quantile(v, n, 0.5);
}

/* In-kernel timing of @repeat runs of @pkt, in ns per run; -1 on failure. */
static inline double time_repeat_once(int prog_fd, const struct pkt *p)
{
	unsigned char out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = REPEAT);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -1;
	return o.duration;
}

/* Median of ROUNDS time_repeat_once(). */
static inline double time_repeat(int prog_fd, const struct pkt *p)
{
	double t[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		t[r] = time_repeat_once(prog_fd, p);
	return median(t, ROUNDS);
}

/*
 * Mean in-kernel timing of @n runs of one packet each, cycling through the
 * @span flows from @first: span == n makes every run a different flow;
 * a small span keeps the flows' state in the CPU's caches.
 */
static inline double time_loop(int prog_fd, __u32 first, __u32 n, __u32 span)
{
	double sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		unsigned char out[2048];
		struct pkt p;

		flow_pkt(&p, first + i % span);
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

static inline void row(const char *what, double ns, double floor_ns)
{
	printf("  %-44s %8.1f ns %+8.1f ns  x%.2f\n", what, ns, ns - floor_ns, ns / floor_ns);
}

/* A pool of @n buckets over the environment's two real targets. */
static inline int spread_pool(struct prog_env *e, __u8 algo, __u8 hand, __u32 n)
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

#endif /* XS_BENCH_PROG_TIMING_H */
