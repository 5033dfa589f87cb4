// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Many concurrent flows: what a packet costs when the flow table holds 10k,
 * 100k or 1M flows, for the three ways a packet leaves (ipip and l2 to a
 * service's backends, XDP_REDIRECT to a CPU), each against a floor timed the
 * same way, over the same packets, just before it.
 *
 * One run, for each N and each way out, on a freshly loaded program with a
 * flow table of FLOW_ENTRIES (as the published comparison sized both load
 * balancers' tables):
 *
 *   new          the N flows' first packets, each a new flow (decision, pin)
 *   est. cold    a second pass over the N flows in the same order: each
 *                flow is met once a pass, so with N above the flow cache's
 *                slots its state is in neither the flow cache nor the CPU's
 *                caches, as with N flows in flight
 *   est. warm    HOT of the N established flows cycled: their state stays
 *                in the CPU's caches (a few busy flows among N)
 *
 * The same three passes then run on a fresh program with the flow table off
 * (the "/0" ways: attach --flow-table-size 0, no pin, every packet decided),
 * where the three are the same work.
 *
 * Every figure is a repeat=1 loop (prog_timing.h: a rewriting path cannot
 * be timed by repeating one buffer), the kernel's mean ns per run, minus the
 * mean of the floor's loop over the same packets in the same run. RUNS runs;
 * the table gives the median and the 90th percentile of the runs' excess,
 * and, per packet, what the program counted (flow_hit, flow_new,
 * recipe_made), so a row that does not measure what its name says shows it.
 *
 * Then CPU steering on live frames, the program alone (BPF_STATS_RUN_TIME),
 * against the minimal stateless steering program in floor.bpf.c
 * (xs_jhash_redirect: parse, jhash of the 4-tuple, redirect to a CPU),
 * interleaved rounds.
 *
 * Usage: bench_scale FLOOR.o [all|loops|live [FLOWS [CACHE_SLOTS]]]: FLOWS
 * runs the loop rows for that one flow count, CACHE_SLOTS sizes the flow
 * cache as attach --flow-cache-size does. -DRUNS=3 for quicker runs;
 * -DFLOW_ENTRIES=N for another flow-table size.
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <stdlib.h>
#include "pkt.h"
#include "quantile.h"

static struct prog_env env;

#include "lb_env.h"

#ifndef FLOW_ENTRIES
#define FLOW_ENTRIES (4u << 20)
#endif
#ifndef RUNS
#define RUNS 10
#endif
#define HOT 64
#define LIVE_ROUNDS 21
#define LIVE_RUNS 200000

/*
 * WAY_LRU1 is not xdpsteer: floor.bpf.c's xs_one_lru, one LRU lookup per
 * packet. The "/0" ways are xdpsteer with the flow table off (attach
 * --flow-table-size 0): no pin, every packet decided by the consistent hash,
 * connections kept through a change by second chance (GUE) alone.
 */
enum way { WAY_IPIP, WAY_L2, WAY_CPU, WAY_LRU1, WAY_IPIP0, WAY_L20, WAY_CPU0, WAY_MAX };

static const struct {
	const char *name, *dst;
	int verdict;
	int stateless; /* loaded with the flow table off */
} ways[WAY_MAX] = {
	[WAY_IPIP] = { "ipip", "10.99.0.1", XDP_TX, 0 },
	[WAY_L2] = { "l2", "10.99.0.2", XDP_TX, 0 },
	[WAY_CPU] = { "cpu", "192.0.2.1", XDP_REDIRECT, 0 },
	[WAY_LRU1] = { "lru1", "10.99.0.1", XDP_TX, 0 },
	[WAY_IPIP0] = { "ipip/0", "10.99.0.1", XDP_TX, 1 },
	[WAY_L20] = { "l2/0", "10.99.0.2", XDP_TX, 1 },
	[WAY_CPU0] = { "cpu/0", "192.0.2.1", XDP_REDIRECT, 1 },
};

enum pass { PASS_NEW, PASS_COLD, PASS_WARM, PASS_MAX };

static const char *const pass_names[PASS_MAX] = {
	[PASS_NEW] = "new",
	[PASS_COLD] = "est. cold",
	[PASS_WARM] = "est. warm",
};

/* What a pass counted, per packet. */
enum seen { SEEN_HIT, SEEN_NEW, SEEN_RECIPE, SEEN_MAX };

static const enum xs_counter seen_counter[SEEN_MAX] = {
	[SEEN_HIT] = XS_C_FLOW_HIT,
	[SEEN_NEW] = XS_C_FLOW_NEW,
	[SEEN_RECIPE] = XS_C_RECIPE_MADE,
};

struct cell {
	double excess[RUNS];
	double seen[SEEN_MAX];	/* of the last run */
};

static int floor_tx, floor_redirect, jhash_redirect, one_lru;
static __u32 cache_slots; /* 0: the default, XS_FLOW_CACHE_SLOTS */
static const char *floor_path = "build/bench/floor.bpf.o";
static struct bpf_object *ref_obj;

/* Flow @i to @dst: a distinct source address and port per flow, 64 bytes of payload. */
static void flow(struct pkt *p, __u32 i, enum way w)
{
	char src[32];

	snprintf(src, sizeof(src), "100.%u.%u.%u", (i >> 16) & 0x3f, (i >> 8) & 0xff, i & 0xff);
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, ways[w].dst, IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, (__u16)(1024 + i % 50000), 80);
	pkt_payload(p, 64);
	pkt_finish(p);
}

/* Mean kernel-timed ns per run of @prog_fd over @n runs cycling @span flows; -1 on a wrong verdict. */
static double loop(int prog_fd, enum way w, __u32 n, __u32 span, int want)
{
	double sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		struct xdp_md ctx = { .ingress_ifindex = if_a };
		unsigned char out[2048];
		struct pkt p;

		flow(&p, i % span, w);
		ctx.data_end = p.len;
		{
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p.buf, .data_size_in = p.len,
				    .data_out = out, .data_size_out = sizeof(out), .ctx_in = &ctx,
				    .ctx_size_in = sizeof(ctx), .repeat = 1);

			if (bpf_prog_test_run_opts(prog_fd, &o) || (int)o.retval != want) {
				fprintf(stderr, "bench_scale: %s flow %u: verdict %d, want %d\n",
					ways[w].name, i % span, (int)o.retval, want);
				return -1;
			}
			sum += o.duration;
		}
	}
	return sum / n;
}

static void counters(__u64 *v)
{
	if (xs_counters_read(&env.h, v)) {
		fprintf(stderr, "bench_scale: cannot read the counters\n");
		exit(1);
	}
}

/* A fresh program with the services and CPU targets, its flow table off if @stateless; exits on failure. */
static void env_load(int stateless)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13",
					  "10.20.0.14" };

	struct prog_env_cfg cfg = { .flow_entries = stateless ? 0 : FLOW_ENTRIES,
				    .unparsed_verdict = XDP_PASS,
				    .cache_slots = cache_slots };

	if (env.skel)
		prog_env_close(&env);
	if (prog_env_open_cfg(&env, &cfg) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 2, seed) ||
	    !add_service("10.99.0.1:80/tcp", XS_ENCAP_IPIP, be, 4) ||
	    !add_service("10.99.0.2:80/tcp", XS_ENCAP_L2, be, 4)) {
		fprintf(stderr, "bench_scale: cannot load the program with its services\n");
		exit(1);
	}
}

/*
 * A fresh copy of the reference (xs_one_lru) with an empty table of its own,
 * as xdpsteer gets one each run: a table left full by earlier runs would
 * time its inserts with evictions. Exits on failure.
 */
static void ref_load(void)
{
	struct bpf_program *p;

	if (ref_obj)
		bpf_object__close(ref_obj);
	ref_obj = bpf_object__open_file(floor_path, NULL);
	p = ref_obj ? bpf_object__find_program_by_name(ref_obj, "xs_one_lru") : NULL;
	if (!p) {
		fprintf(stderr, "bench_scale: %s has no xs_one_lru\n", floor_path);
		exit(1);
	}
	bpf_object__for_each_program(p, ref_obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), "xs_one_lru"));
	if (bpf_map__set_max_entries(bpf_object__find_map_by_name(ref_obj, "one_lru"),
				     FLOW_ENTRIES) ||
	    bpf_object__load(ref_obj)) {
		fprintf(stderr, "bench_scale: cannot load xs_one_lru from %s\n", floor_path);
		exit(1);
	}
	one_lru = bpf_program__fd(bpf_object__find_program_by_name(ref_obj, "xs_one_lru"));
}

/* One pass of @w over @n runs cycling @span flows, its excess over the floor into @c[run]. */
static void pass(struct cell *c, int run, enum way w, __u32 n, __u32 span)
{
	int floor_fd = ways[w].verdict == XDP_TX ? floor_tx : floor_redirect;
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	int prog_fd = w == WAY_LRU1 ? one_lru : env.prog_fd;
	double f, t;
	int s;

	f = loop(floor_fd, w, n, span, ways[w].verdict);
	counters(a);
	t = loop(prog_fd, w, n, span, ways[w].verdict);
	counters(b);
	if (f < 0 || t < 0)
		exit(1);
	c->excess[run] = t - f;
	for (s = 0; s < SEEN_MAX; s++)
		c->seen[s] = (double)(b[seen_counter[s]] - a[seen_counter[s]]) / n;
}

static void print_cell(__u32 n, enum way w, enum pass p, struct cell *c)
{
	printf("  %8u  %-6s  %-9s  %+8.1f ns  %+8.1f ns   %.2f  %.2f  %.2f\n", n, ways[w].name,
	       pass_names[p], quantile(c->excess, RUNS, 0.5), quantile(c->excess, RUNS, 0.9),
	       c->seen[SEEN_HIT], c->seen[SEEN_NEW], c->seen[SEEN_RECIPE]);
}

/* The flow counts of the loop rows: all, or the one given on the command line. */
static __u32 sizes[] = { 10000, 100000, 1000000 };
static unsigned int n_sizes = XS_ARRAY_SIZE(sizes);

static void bench_loops(void)
{
	static struct cell cells[3][WAY_MAX][PASS_MAX];
	unsigned int i;
	int run, w, p;

	for (run = 0; run < RUNS; run++)
		for (i = 0; i < n_sizes; i++) {
			ref_load();
			for (w = 0; w < WAY_MAX; w++) {
				/* Pinning ways first, then the stateless ones, each on a fresh program. */
				if (w == 0 || ways[w].stateless != ways[w - 1].stateless)
					env_load(ways[w].stateless);
				pass(&cells[i][w][PASS_NEW], run, w, sizes[i], sizes[i]);
				pass(&cells[i][w][PASS_COLD], run, w, sizes[i], sizes[i]);
				pass(&cells[i][w][PASS_WARM], run, w, sizes[i] < 100000 ? sizes[i] : 100000,
				     HOT);
			}
		}
	printf("repeat=1 loops, ns above the floor over the same packets, %d runs, a fresh\n"
	       "program, a %u-entry flow table and %u flow-cache slots per CPU per run;\n"
	       "per packet: flow_hit flow_new recipe_made (lru1: one LRU lookup, not xdpsteer;\n"
	       "/0: the flow table off, --flow-table-size 0)\n",
	       RUNS, FLOW_ENTRIES, cache_slots ? cache_slots : XS_FLOW_CACHE_SLOTS);
	printf("  %8s  %-6s  %-9s  %11s  %11s   %s\n", "flows", "way", "pass", "median", "p90",
	       "hit   new   recipe");
	for (i = 0; i < n_sizes; i++)
		for (w = 0; w < WAY_MAX; w++)
			for (p = 0; p < PASS_MAX; p++)
				print_cell(sizes[i], w, p, &cells[i][w][p]);
}

/* Mean ns per frame of the program alone over a live run of @pkt (run-time stats on). */
static double live_alone(int prog_fd, const struct pkt *p)
{
	struct xdp_md ctx = { .ingress_ifindex = if_a, .data_end = p->len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf, .data_size_in = p->len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = LIVE_RUNS,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES, .batch_size = 64);
	struct bpf_prog_info a = {}, b = {};
	__u32 la = sizeof(a), lb = sizeof(b);

	if (bpf_obj_get_info_by_fd(prog_fd, &a, &la) || bpf_prog_test_run_opts(prog_fd, &o) ||
	    bpf_obj_get_info_by_fd(prog_fd, &b, &lb) || b.run_cnt == a.run_cnt)
		return -1;
	return (double)(b.run_time_ns - a.run_time_ns) / (double)(b.run_cnt - a.run_cnt);
}

/*
 * CPU steering of one established flow on live frames: each round times the
 * floor, the stateless jhash redirect, xdpsteer and the floor again; each
 * program's excess is over the mean of the round's two floors.
 */
static void bench_live_cpu(void)
{
	double fl[LIVE_ROUNDS], jh[LIVE_ROUNDS], xs[LIVE_ROUNDS];
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	double fm, jm, xm;
	struct pkt p;
	int r, stats_fd;

	env_load(0);
	flow(&p, 7, WAY_CPU);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bench_scale: cannot enable BPF run-time stats: %s\n",
			strerror(errno));
		exit(1);
	}
	counters(a);
	for (r = 0; r < LIVE_ROUNDS; r++) {
		double f0 = live_alone(floor_redirect, &p);
		double j = live_alone(jhash_redirect, &p);
		double x = live_alone(env.prog_fd, &p);
		double f1 = live_alone(floor_redirect, &p);

		if (f0 < 0 || j < 0 || x < 0 || f1 < 0) {
			fprintf(stderr, "bench_scale: live run failed\n");
			exit(1);
		}
		fl[r] = (f0 + f1) / 2;
		jh[r] = j - fl[r];
		xs[r] = x - fl[r];
	}
	counters(b);
	close(stats_fd);
	/* Every xdpsteer frame must have been steered as an established flow. */
	if (b[XS_C_FLOW_HIT] - a[XS_C_FLOW_HIT] < (__u64)LIVE_ROUNDS * LIVE_RUNS - 1) {
		fprintf(stderr, "bench_scale: live CPU runs were not established-flow hits\n");
		exit(1);
	}
	fm = quantile(fl, LIVE_ROUNDS, 0.5);
	jm = quantile(jh, LIVE_ROUNDS, 0.5);
	xm = quantile(xs, LIVE_ROUNDS, 0.5);
	printf("CPU steering, one established flow, live frames (batches of 64), the program\n"
	       "alone (run_time_ns / run_cnt), %d interleaved rounds of %d frames:\n", LIVE_ROUNDS,
	       LIVE_RUNS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT), median", fm);
	printf("  %-44s %+8.1f ns  (quartiles %+.1f, %+.1f)\n", "stateless jhash redirect", jm,
	       quantile(jh, LIVE_ROUNDS, 0.25), quantile(jh, LIVE_ROUNDS, 0.75));
	printf("  %-44s %+8.1f ns  (quartiles %+.1f, %+.1f)\n", "xdpsteer, cpu target", xm,
	       quantile(xs, LIVE_ROUNDS, 0.25), quantile(xs, LIVE_ROUNDS, 0.75));
	printf("  %-44s   x%.2f\n", "xdpsteer / stateless, above the floor", xm / jm);
}

static int prog(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	return p ? bpf_program__fd(p) : -1;
}

int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : "all";
	char *end;
	struct bpf_program *ref;
	struct bpf_object *obj;
	__u32 cpu;
	int cpus_fd;

	if (argc > 1)
		floor_path = argv[1];
	if (argc > 3) {
		/* Loop rows for one flow count only, e.g. 100000, while iterating. */
		sizes[0] = (__u32)strtoul(argv[3], &end, 10);
		n_sizes = 1;
		if (*end || sizes[0] < HOT || sizes[0] > FLOW_ENTRIES) {
			fprintf(stderr, "bench_scale: flow count '%s' is not a number from %d to %u\n",
				argv[3], HOT, FLOW_ENTRIES);
			return 1;
		}
	}
	if (argc > 4) {
		/* The flow cache's slots per CPU, as attach --flow-cache-size. */
		cache_slots = (__u32)strtoul(argv[4], &end, 10);
		if (*end || !cache_slots || cache_slots > XS_FLOW_CACHE_MAX_SLOTS ||
		    (cache_slots & (cache_slots - 1))) {
			fprintf(stderr, "bench_scale: flow-cache size '%s' is not a power of two "
				"up to %u\n", argv[4], XS_FLOW_CACHE_MAX_SLOTS);
			return 1;
		}
	}
	if (netns_setup() ||
	    sh("for i in 12 13 14; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:00:$i dev lbA "
	       "nud permanent; done")) {
		fprintf(stderr, "bench_scale: cannot set up the namespace\n");
		return 1;
	}
	obj = bpf_object__open_file(floor_path, NULL);
	/* The reference is loaded on its own, afresh for each run (ref_load()). */
	ref = obj ? bpf_object__find_program_by_name(obj, "xs_one_lru") : NULL;
	if (!ref || bpf_program__set_autoload(ref, false) || bpf_object__load(obj)) {
		fprintf(stderr, "bench_scale: cannot load %s\n", floor_path);
		return 1;
	}
	floor_tx = prog(obj, "xs_floor_tx");
	floor_redirect = prog(obj, "xs_floor_redirect");
	jhash_redirect = prog(obj, "xs_jhash_redirect");
	cpus_fd = bpf_object__find_map_fd_by_name(obj, "jh_cpumap");
	for (cpu = 0; cpu < 2; cpu++) {
		struct bpf_cpumap_val cv = { .qsize = 256 };

		if (bpf_map_update_elem(cpus_fd, &cpu, &cv, BPF_ANY)) {
			fprintf(stderr, "bench_scale: cannot fill jh_cpumap: %s\n", strerror(errno));
			return 1;
		}
	}
	if (bpf_xdp_attach(if_nametoindex("lbB"), prog(obj, "xs_peer_drop"), 0, NULL)) {
		fprintf(stderr, "bench_scale: cannot attach the peer's drop program\n");
		return 1;
	}
	if (strcmp(only, "live"))
		bench_loops();
	if (strcmp(only, "loops"))
		bench_live_cpu();
	prog_env_close(&env);
	bpf_object__close(ref_obj);
	bpf_object__close(obj);
	return 0;
}
