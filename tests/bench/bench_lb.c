// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Per-packet cost of the service path (parse, VIP match, selection,
 * encapsulation or MAC rewrite, bpf_fib_lookup, XDP_TX) under
 * BPF_PROG_TEST_RUN, in a private namespace where the FIB answers.
 *
 * These paths rewrite the packet, so a repeat run of one buffer would see its
 * own output from the second run on. Every figure here is a repeat=1 loop
 * over distinct packets, and the floor (a program that only returns XDP_TX)
 * is timed by the same loop in the same run.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include "pkt.h"

static struct prog_env env;

#include "lb_env.h"

#define FLOWS 100000
#define HOT 64
#define REPEAT 1000000
#define ROUNDS 3

static void client(struct pkt *p, __u32 i, const char *vip)
{
	char src[32];

	snprintf(src, sizeof(src), "100.%u.%u.%u", (i >> 16) & 0x3f, (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, vip, IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, (__u16)(1024 + i % 50000), 80);
	pkt_payload(p, 64);
	pkt_finish(p);
}

/*
 * Mean kernel-timed ns of one run per flow, over @n runs cycling through
 * @span flows from @first; -1 on a wrong verdict. span == n: every run is a
 * different flow (cold caches, as with 100k flows in flight); a small span
 * keeps the flows' state in cache (the hot path of a busy flow).
 */
static double loop(int prog_fd, const char *vip, __u32 first, __u32 n, __u32 span, int want)
{
	double sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		struct xdp_md ctx = { .ingress_ifindex = if_a };
		unsigned char out[2048];
		struct pkt p;

		client(&p, first + i % span, vip);
		ctx.data_end = p.len;
		{
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p.buf, .data_size_in = p.len,
				    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
				    .ctx_size_in = sizeof(ctx), .repeat = 1);

			if (bpf_prog_test_run_opts(prog_fd, &o) || (int)o.retval != want)
				return -1;
			sum += o.duration;
		}
	}
	return sum / n;
}

static double repeat(int prog_fd, const struct pkt *p)
{
	struct xdp_md ctx = { .ingress_ifindex = if_a, .data_end = p->len };
	unsigned char out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = REPEAT);

	if (bpf_prog_test_run_opts(prog_fd, &o) || (int)o.retval != XDP_TX)
		return -1;
	return o.duration;
}

static double median(double *v)
{
	double t;
	int i, j;

	for (i = 0; i < ROUNDS; i++)
		for (j = i + 1; j < ROUNDS; j++)
			if (v[j] < v[i]) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
	return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13", "10.20.0.14" };
	const char *floor_path = argc > 1 ? argv[1] : "build/bench/floor.bpf.o";
	double fl[ROUNDS], nw[ROUNDS], est[ROUNDS], l2n[ROUNDS], l2e[ROUNDS], f;
	double wfl[ROUNDS], wip[ROUNDS], wl2[ROUNDS], rfl[ROUNDS], rl2[ROUNDS];
	struct pkt one;
	struct bpf_object *obj;
	int floor_fd, r;

	if (netns_setup() ||
	    sh("for i in 12 13 14; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:00:$i dev lbA "
	       "nud permanent; done") ||
	    prog_env_open(&env, 4 * FLOWS, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed) ||
	    !add_service("10.99.0.1:80/tcp", XS_ENCAP_IPIP, be, 4) ||
	    !add_service("10.99.0.2:80/tcp", XS_ENCAP_L2, be, 4)) {
		fprintf(stderr, "bench_lb: cannot set up the namespace or the program\n");
		return 1;
	}
	obj = bpf_object__open_file(floor_path, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bench_lb: cannot load %s\n", floor_path);
		return 1;
	}
	floor_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xs_floor_tx"));
	for (r = 0; r < ROUNDS; r++) {
		__u32 first = r * FLOWS;

		fl[r] = loop(floor_fd, "10.99.0.1", first, FLOWS, FLOWS, XDP_TX);
		nw[r] = loop(env.prog_fd, "10.99.0.1", first, FLOWS, FLOWS, XDP_TX);
		est[r] = loop(env.prog_fd, "10.99.0.1", first, FLOWS, FLOWS, XDP_TX);
		l2n[r] = loop(env.prog_fd, "10.99.0.2", first, FLOWS, FLOWS, XDP_TX);
		l2e[r] = loop(env.prog_fd, "10.99.0.2", first, FLOWS, FLOWS, XDP_TX);
		wfl[r] = loop(floor_fd, "10.99.0.1", 0, FLOWS, HOT, XDP_TX);
		wip[r] = loop(env.prog_fd, "10.99.0.1", 0, FLOWS, HOT, XDP_TX);
		wl2[r] = loop(env.prog_fd, "10.99.0.2", 0, FLOWS, HOT, XDP_TX);
		/* L2 rewrites only the MACs, which steering never reads: a repeat
		 * run of one buffer is valid there, and only there. */
		client(&one, 7, "10.99.0.2");
		rfl[r] = repeat(floor_fd, &one);
		rl2[r] = repeat(env.prog_fd, &one);
	}
	f = median(fl);
	printf("service path, repeat=1 loops over %d distinct flows, median of %d rounds:\n", FLOWS,
	       ROUNDS);
	printf("  %-46s %8.1f ns\n", "floor (return XDP_TX), same loop", f);
#define ROW(name, v)                                                                       \
	do {                                                                               \
		double m = median(v);                                                      \
		printf("  %-46s %8.1f ns %+8.1f ns  x%.2f\n", name, m, m - f, m / f);      \
	} while (0)
	ROW("ipip, new flow (pick, pin, encap, fib, XDP_TX)", nw);
	ROW("ipip, established flow", est);
	ROW("l2 DSR, new flow", l2n);
	ROW("l2 DSR, established flow", l2e);
	f = median(wfl);
	printf("same, cycling through %d hot flows:\n", HOT);
	printf("  %-46s %8.1f ns\n", "floor (return XDP_TX), same loop", f);
	ROW("ipip, established flow", wip);
	ROW("l2 DSR, established flow", wl2);
	f = median(rfl);
	printf("l2 DSR, repeat=%d of one packet (valid: only MACs change):\n", REPEAT);
	printf("  %-46s %8.1f ns\n", "floor (return XDP_TX), repeat", f);
	ROW("l2 DSR, established flow", rl2);
	bpf_object__close(obj);
	return 0;
}
