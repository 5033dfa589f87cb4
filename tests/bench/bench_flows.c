// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * What the flow table costs a queue-steered packet, hit and miss, each
 * against the floor program timed the same way in the same run
 * (prog_timing.h). Jump over 64 buckets throughout, so only the flow table
 * differs between rows:
 *
 *   flow-cache hit          the per-CPU direct-mapped cache holds the flow
 *   cache miss, LRU hit     established, but its cache slot holds another
 *                           flow: forced by a one-slot cache (hot), or by
 *                           more flows than the cache's 8192 slots (cold)
 *   LRU miss, pinned        a new flow: decision, LRU insert, cache fill
 *   LRU miss, over limit    a new flow beyond --pin-rate: decision, no pin
 *   flow table off          --flow-table-size 0: a decision every packet
 *
 * hot: HOT flows cycled, their state stays in the CPU's caches, as for a few
 * busy flows; cold: LOOP_FLOWS distinct flows, each met once a pass, as with
 * that many in flight. Each row also shows what the program counted per
 * packet (flow_hit, flow_new, pin_rate_limited), so a row that does not
 * measure what its name says shows it.
 */
#include <time.h>
#include "prog_timing.h"

#define HOT 64
#define HOT_RUNS (HOT * 500)
#define POOL_BUCKETS 64

struct flow_case {
	const char *name;
	struct prog_env_cfg cfg;
	bool established;	/* one pass over the flows before timing */
	bool over_limit;	/* spend the pin budget before timing */
};

static const struct flow_case hit = {
	.name = "flow-cache hit",
	.cfg = { .flow_entries = 65536 },
	.established = true,
};
static const struct flow_case lru_hit_hot = {
	.name = "cache miss (1-slot cache), LRU hit",
	.cfg = { .flow_entries = 65536, .cache_slots = 1 },
	.established = true,
};
static const struct flow_case lru_hit_cold = {
	.name = "cache miss (200k flows), LRU hit",
	.cfg = { .flow_entries = 2 * LOOP_FLOWS },
	.established = true,
};
static const struct flow_case lru_miss = {
	.name = "LRU miss, new flow pinned",
	.cfg = { .flow_entries = 2 * LOOP_FLOWS },
};
static const struct flow_case over_limit = {
	.name = "LRU miss, over --pin-rate (not pinned)",
	.cfg = { .flow_entries = 2 * LOOP_FLOWS, .pin_rate = 1, .pin_burst = 1 },
	.over_limit = true,
};
static const struct flow_case off = {
	.name = "flow table off (--flow-table-size 0)",
	.cfg = { .flow_entries = 0 },
};

/*
 * Empty every CPU's pin budget as of now. At the lowest rate, one pin a
 * second, a budget emptied less than a second before a timing cannot grant
 * a pin during it; emptied once, a budget would refill within the timings
 * of a row (a repeat round is about 0.15 s).
 */
static void spend_pin_budget(struct prog_env *e)
{
	struct xs_pin_budget *b = calloc(e->h.nr_cpus, sizeof(*b));
	struct timespec now;
	__u32 zero = 0;
	int cpu;

	/* bpf_ktime_get_coarse_ns() is CLOCK_MONOTONIC_COARSE. */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	for (cpu = 0; b && cpu < e->h.nr_cpus; cpu++)
		b[cpu].last_ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (!b || bpf_map_update_elem(bpf_map__fd(e->skel->maps.xs_pin_budget), &zero, b,
				      BPF_ANY)) {
		fprintf(stderr, "bench_flows: cannot empty xs_pin_budget\n");
		exit(1);
	}
	free(b);
}

static void env_open(struct prog_env *e, const struct flow_case *c)
{
	if (prog_env_open_cfg(e, &c->cfg) || spread_pool(e, XS_ALGO_JUMP, 0, POOL_BUCKETS)) {
		fprintf(stderr, "bench_flows: cannot load the XDP program for '%s'\n", c->name);
		exit(1);
	}
}

/* Per-packet counts of @c's counters between @a and @b over @runs packets. */
static void flow_row(const char *what, double ns, double floor_ns, const __u64 *a,
		     const __u64 *b, double runs)
{
	printf("  %-44s %8.1f ns %+8.1f ns  x%.2f   hit %.2f new %.2f limited %.2f\n", what, ns,
	       ns - floor_ns, ns / floor_ns, (b[XS_C_FLOW_HIT] - a[XS_C_FLOW_HIT]) / runs,
	       (b[XS_C_FLOW_NEW] - a[XS_C_FLOW_NEW]) / runs,
	       (b[XS_C_PIN_LIMITED] - a[XS_C_PIN_LIMITED]) / runs);
}

static void counters(struct prog_env *e, __u64 *sum)
{
	if (xs_counters_read(&e->h, sum)) {
		fprintf(stderr, "bench_flows: cannot read xs_counters\n");
		exit(1);
	}
}

/* HOT flows cycled, median of ROUNDS loops of HOT_RUNS packets. */
static void hot_row(const struct flow_case *c, double floor_ns)
{
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	double t[ROUNDS];
	struct prog_env e;
	char what[96];
	int r;

	env_open(&e, c);
	if (c->established)
		time_loop(e.prog_fd, 0, HOT, HOT);
	counters(&e, a);
	for (r = 0; r < ROUNDS; r++) {
		if (c->over_limit)
			spend_pin_budget(&e);
		t[r] = time_loop(e.prog_fd, 0, HOT_RUNS, HOT);
	}
	counters(&e, b);
	snprintf(what, sizeof(what), "%s, hot", c->name);
	flow_row(what, median(t, ROUNDS), floor_ns, a, b, (double)HOT_RUNS * ROUNDS);
	prog_env_close(&e);
}

/* One pass over LOOP_FLOWS flows met once each (after a first pass if established). */
static void cold_row(const struct flow_case *c, double floor_ns)
{
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	struct prog_env e;
	char what[96];
	double ns;

	env_open(&e, c);
	if (c->established)
		time_loop(e.prog_fd, 0, LOOP_FLOWS, LOOP_FLOWS);
	if (c->over_limit)
		spend_pin_budget(&e);
	counters(&e, a);
	ns = time_loop(e.prog_fd, 0, LOOP_FLOWS, LOOP_FLOWS);
	counters(&e, b);
	snprintf(what, sizeof(what), "%s, cold", c->name);
	flow_row(what, ns, floor_ns, a, b, LOOP_FLOWS);
	prog_env_close(&e);
}

/* One packet run REPEAT times: valid because queue steering does not rewrite it. */
static void repeat_row(const struct flow_case *c, const struct pkt *p, double floor_ns)
{
	__u64 a[XS_C_MAX], b[XS_C_MAX];
	double t[ROUNDS];
	struct prog_env e;
	int r;

	env_open(&e, c);
	counters(&e, a);
	for (r = 0; r < ROUNDS; r++) {
		if (c->over_limit)
			spend_pin_budget(&e);
		t[r] = time_repeat_once(e.prog_fd, p);
	}
	counters(&e, b);
	flow_row(c->name, median(t, ROUNDS), floor_ns, a, b, (double)REPEAT * ROUNDS);
	prog_env_close(&e);
}

int main(int argc, char **argv)
{
	double t[ROUNDS], floor_ns;
	struct pkt p;
	int r;

	floor_load(argc > 1 ? argv[1] : "build/bench/floor.bpf.o");
	printf("flow table, jump over %d buckets (BPF_PROG_TEST_RUN, JIT on, 1 CPU):\n",
	       POOL_BUCKETS);
	printf("  %-44s %11s %11s  %s   %s\n", "case", "per packet", "above floor", "ratio",
	       "counted per packet");

	flow_pkt(&p, 1);
	floor_ns = time_repeat(floor_fd, &p);
	printf("\nrepeat method (%d runs of one packet, median of %d; no LRU-hit row: one\n"
	       "packet always finds its own cache slot):\n", REPEAT, ROUNDS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT)", floor_ns);
	repeat_row(&hit, &p, floor_ns);
	repeat_row(&over_limit, &p, floor_ns);
	repeat_row(&off, &p, floor_ns);

	for (r = 0; r < ROUNDS; r++)
		t[r] = time_loop(floor_fd, 0, HOT_RUNS, HOT);
	floor_ns = median(t, ROUNDS);
	printf("\nloop method, hot (repeat=1, %d flows cycled, %d runs, median of %d):\n", HOT,
	       HOT_RUNS, ROUNDS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT), same loop", floor_ns);
	hot_row(&hit, floor_ns);
	hot_row(&lru_hit_hot, floor_ns);
	hot_row(&over_limit, floor_ns);
	hot_row(&off, floor_ns);

	floor_ns = time_loop(floor_fd, 0, LOOP_FLOWS, LOOP_FLOWS);
	printf("\nloop method, cold (repeat=1 over %d distinct flows, one pass):\n", LOOP_FLOWS);
	printf("  %-44s %8.1f ns\n", "floor (return XDP_REDIRECT), same loop", floor_ns);
	cold_row(&lru_hit_cold, floor_ns);
	cold_row(&lru_miss, floor_ns);
	cold_row(&over_limit, floor_ns);
	cold_row(&off, floor_ns);
	bpf_object__close(floor_obj);
	return 0;
}
