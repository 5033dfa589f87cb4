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
#include "quantile.h"

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

/*
 * Live frames (BPF_F_TEST_XDP_LIVE_FRAMES): @rep runs in batches of 64, each
 * frame really transmitted, as a driver's NAPI loop would. The kernel resets
 * each frame's data pointers between runs but not its bytes, so a program
 * that rewrites the packet sees its own output again: only a packet that is
 * a fixed point of the rewrite (see fixed_point()) gives a valid figure.
 * Returns mean ns per run, -1 on error.
 */
static double live(int prog_fd, const struct pkt *p, __u32 rep)
{
	struct xdp_md ctx = { .ingress_ifindex = if_a, .data_end = p->len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = rep,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);

	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -1;
	return o.duration;
}

/*
 * A client packet whose IPIP encapsulation, read from where the original
 * frame started, is the packet itself. The encapsulation prepends 20 bytes,
 * so the original Ethernet header is overwritten by the last 14 bytes of the
 * outer IP header: fragment field, TTL, protocol, checksum, source, and the
 * backend address. With a backend of the form a.b.8.0 the last two of those
 * bytes read 08 00, IPv4's Ethertype, and the 14 bytes make a valid Ethernet
 * header (the program reads no MAC). Encapsulating that frame writes the same
 * bytes again, so a live run does the full work on every frame whichever
 * bytes its page holds. Checked here, not assumed: 0 on success.
 */
static int fixed_point(struct pkt *fp)
{
	unsigned char out[2048], out2[2048];
	__u32 out_len = sizeof(out), out2_len = sizeof(out2);
	struct pkt p;

	memset(&p, 0, sizeof(p));
	client(&p, 11, "10.99.0.3");
	if (prog_env_run_on(&env, if_a, p.buf, p.len, 1, out, &out_len, NULL) != XDP_TX ||
	    out_len != p.len + 20 || out[32] != 0x08 || out[33] != 0x00)
		return -1;
	memset(fp, 0, sizeof(*fp));
	memcpy(fp->buf, out + 20, p.len);
	fp->len = p.len;
	if (prog_env_run_on(&env, if_a, fp->buf, fp->len, 1, out2, &out2_len, NULL) != XDP_TX ||
	    out2_len != out_len || memcmp(out, out2, out_len))
		return -1;
	return 0;
}

static __u64 tx_count(void)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[XS_C_TX];
}

/*
 * Live-frame rounds. This VM's timings drift by tens of ns from one second
 * to the next, more than the differences measured here, so the programs are
 * interleaved with the floor: each round times the floor, ipip, l2 and the
 * floor again, and takes each program's excess over the mean of the round's
 * two floors. The median over rounds is the figure; the quartiles show the
 * spread. With @stats, each figure is the program alone (the kernel's
 * run_time_ns / run_cnt, BPF_STATS_RUN_TIME), without the harness around it.
 */
#define LIVE_ROUNDS 21
#define LIVE_RUNS 200000

struct live_rounds {
	double floor[LIVE_ROUNDS], ipip[LIVE_ROUNDS], l2[LIVE_ROUNDS];
};

/* One live run of @prog_fd: mean ns per frame, of the run or (@stats) of the program alone. */
static double live_one(int prog_fd, const struct pkt *p, int stats)
{
	struct bpf_prog_info a = {}, b = {};
	__u32 la = sizeof(a), lb = sizeof(b);
	double d;

	if (!stats)
		return live(prog_fd, p, LIVE_RUNS);
	if (bpf_obj_get_info_by_fd(prog_fd, &a, &la))
		return -1;
	d = live(prog_fd, p, LIVE_RUNS);
	if (d < 0 || bpf_obj_get_info_by_fd(prog_fd, &b, &lb) || b.run_cnt == a.run_cnt)
		return -1;
	return (double)(b.run_time_ns - a.run_time_ns) / (double)(b.run_cnt - a.run_cnt);
}

static int live_rounds(int floor_fd, const struct pkt *fp, const struct pkt *l2,
		       struct live_rounds *out, int stats)
{
	int r;

	for (r = 0; r < LIVE_ROUNDS; r++) {
		double f0, f1, ip, l;
		__u64 tx0, tx1;

		f0 = live_one(floor_fd, fp, stats);
		tx0 = tx_count();
		ip = live_one(env.prog_fd, fp, stats);
		tx1 = tx_count();
		l = live_one(env.prog_fd, l2, stats);
		f1 = live_one(floor_fd, fp, stats);
		/* Every ipip run must have been a full encapsulation, sent. */
		if (f0 < 0 || f1 < 0 || ip < 0 || l < 0 || tx1 - tx0 != LIVE_RUNS) {
			fprintf(stderr, "bench_lb: live run invalid: %llu of %d runs encapsulated\n",
				(unsigned long long)(tx1 - tx0), LIVE_RUNS);
			return -1;
		}
		out->floor[r] = (f0 + f1) / 2;
		out->ipip[r] = ip - out->floor[r];
		out->l2[r] = l - out->floor[r];
	}
	return 0;
}

static void live_print(struct live_rounds *lr)
{
	double f = quantile(lr->floor, LIVE_ROUNDS, 0.5);

	printf("  %-46s %8.1f ns\n", "floor (return XDP_TX), median", f);
#define LIVE_ROW(name, v)                                                                  \
	do {                                                                               \
		double m = quantile(v, LIVE_ROUNDS, 0.5);                                  \
		printf("  %-46s %8.1f ns %+8.1f ns  x%.2f  (quartiles %+.1f, %+.1f)\n", name, \
		       f + m, m, (f + m) / f, quantile(v, LIVE_ROUNDS, 0.25),              \
		       quantile(v, LIVE_ROUNDS, 0.75));                                    \
	} while (0)
	LIVE_ROW("ipip, established flow", lr->ipip);
	LIVE_ROW("l2 DSR, established flow", lr->l2);
}

static double median(double *v)
{
	return quantile(v, ROUNDS, 0.5);
}

int main(int argc, char **argv)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13", "10.20.0.14" };
	static const char *const fp_be[] = { "10.20.8.0" };
	static struct live_rounds whole, alone;
	int stats_fd;
	struct pkt fp;
	const char *floor_path = argc > 1 ? argv[1] : "build/bench/floor.bpf.o";
	double fl[ROUNDS], nw[ROUNDS], est[ROUNDS], l2n[ROUNDS], l2e[ROUNDS], f;
	double wfl[ROUNDS], wip[ROUNDS], wl2[ROUNDS], rfl[ROUNDS], rl2[ROUNDS];
	struct pkt one;
	struct bpf_object *obj;
	int floor_fd, r;

	if (netns_setup() ||
	    sh("for i in 12 13 14; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:00:$i dev lbA "
	       "nud permanent; done") ||
	    sh("ip route add 10.20.8.0/32 dev lbA && "
	       "ip neigh add 10.20.8.0 lladdr 02:00:00:00:08:00 dev lbA nud permanent") ||
	    prog_env_open(&env, 4 * FLOWS, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed) ||
	    !add_service("10.99.0.1:80/tcp", XS_ENCAP_IPIP, be, 4) ||
	    !add_service("10.99.0.2:80/tcp", XS_ENCAP_L2, be, 4) ||
	    !add_service("10.99.0.3:80/tcp", XS_ENCAP_IPIP, fp_be, 1)) {
		fprintf(stderr, "bench_lb: cannot set up the namespace or the program\n");
		return 1;
	}
	obj = bpf_object__open_file(floor_path, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "bench_lb: cannot load %s\n", floor_path);
		return 1;
	}
	floor_fd = bpf_program__fd(bpf_object__find_program_by_name(obj, "xs_floor_tx"));
	if (bpf_xdp_attach(if_nametoindex("lbB"),
			   bpf_program__fd(bpf_object__find_program_by_name(obj, "xs_peer_drop")),
			   0, NULL) ||
	    fixed_point(&fp)) {
		fprintf(stderr, "bench_lb: cannot prepare the live-frame runs\n");
		return 1;
	}
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
	if (live_rounds(floor_fd, &fp, &one, &whole, 0))
		return 1;
	/* Run-time stats cost every program run two clock reads: on only here. */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bench_lb: cannot enable BPF run-time stats: %s\n", strerror(errno));
		return 1;
	}
	r = live_rounds(floor_fd, &fp, &one, &alone, 1);
	close(stats_fd);
	if (r)
		return 1;
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
	printf("live frames (BPF_F_TEST_XDP_LIVE_FRAMES, batches of 64, each frame transmitted;\n"
	       "ipip on a packet that is a fixed point of its encapsulation, every run counted\n"
	       "as encapsulated and sent); %d interleaved rounds of %d frames, each program\n"
	       "against the floor timed around it:\n", LIVE_ROUNDS, LIVE_RUNS);
	live_print(&whole);
	printf("same rounds, the program alone (kernel run_time_ns / run_cnt; the floor\n"
	       "carries the two clock reads that these stats add to every run):\n");
	live_print(&alone);
	bpf_object__close(obj);
	return 0;
}
