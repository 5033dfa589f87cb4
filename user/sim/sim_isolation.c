// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * sim isolation: T tenants (the hand key is the tenant's source address, the
 * kernel's default hand fields), N queues, K heavy tenants sending R times a
 * light tenant's rate. For modulo, jump and shuffle with each hand size:
 *
 * Geometry, from the hands alone (xs_deal, as the kernel deals them):
 *   hit      a light hand shares at least one card with some heavy hand;
 *   covered  every card of a light hand is in some heavy hand, so no choice
 *            inside the hand escapes the heavy tenants.
 *   Beside each, the closed form over random hands (xs_iso_expect).
 *
 * Queueing, a discrete-event model:
 *   - each queue is a FIFO server taking exactly 1 time unit per packet;
 *   - packets arrive as one Poisson process of rate util * N, each packet
 *     belonging to a tenant drawn in proportion to its rate (heavy R, light 1),
 *     i.e. each tenant is its own Poisson source;
 *   - a tenant's packets form back-to-back flows of flow_packets packets; at
 *     a flow's first packet the flow picks the least-loaded card of the
 *     tenant's hand (xs_pick_least_loaded, load = packets in that queue),
 *     and all its packets then go there, as the kernel pins a flow;
 *   - a packet waits for the work ahead of it in its queue (Lindley); the
 *     first 10% of packets warm the queues up and are not counted;
 *   - one fixed RNG seed, the same arrivals for every row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "log.h"
#include "sim.h"
#include "xs_shuffle.h"

#define WARMUP_DIV 10 /* first 1/10 of the packets are warm-up */

enum iso_kind { ISO_MODULO, ISO_JUMP, ISO_SHUFFLE };

double xs_iso_choose(__u32 n, __u32 k)
{
	double c = 1;
	__u32 i;

	if (k > n)
		return 0;
	for (i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/*
 * Size of the union of k random h-hands out of n as a Markov chain: a new
 * hand adds j unseen cards with hypergeometric probability
 * C(n - u, j) C(u, h - j) / C(n, h). Then a light hand meets the union with
 * probability 1 - C(n - u, h) / C(n, h) and lies inside it with C(u, h) / C(n, h).
 */
void xs_iso_expect(__u32 n, __u32 h, __u32 k, double *hit, double *covered)
{
	double *p = calloc(n + 1, sizeof(double)), *q = calloc(n + 1, sizeof(double));
	double all = xs_iso_choose(n, h);
	__u32 step, u, j;

	*hit = *covered = 0;
	if (!p || !q || !all)
		goto out;
	p[0] = 1;
	for (step = 0; step < k; step++) {
		memset(q, 0, (n + 1) * sizeof(double));
		for (u = 0; u <= n; u++) {
			if (!p[u])
				continue;
			for (j = 0; j <= h && u + j <= n; j++)
				q[u + j] += p[u] * xs_iso_choose(n - u, j) * xs_iso_choose(u, h - j) / all;
		}
		memcpy(p, q, (n + 1) * sizeof(double));
	}
	for (u = 0; u <= n; u++) {
		*hit += p[u] * (1 - xs_iso_choose(n - u, h) / all);
		*covered += p[u] * xs_iso_choose(u, h) / all;
	}
out:
	free(p);
	free(q);
}

static inline __u64 iso_rand(__u64 *s)
{
	*s += XS_GOLDEN64;
	return xs_mix64(*s);
}

static inline double iso_unit(__u64 *s)
{
	return (iso_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Value of rank k (0-based) in v[0..n): Hoare's quickselect, reorders v. */
static float iso_select(float *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		float pivot = v[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (!j)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

static float iso_pct(float *v, size_t n, double pct)
{
	return n ? iso_select(v, n, (size_t)(pct / 100 * (n - 1))) : 0;
}

struct iso_run {
	const struct xs_iso_opts *o;
	const __u64 *hand_hash, *jump_hash; /* per tenant */
	struct xs_hand *hand;               /* per tenant */
	float *light_wait, *heavy_wait;
	double *busy;                       /* per queue: when its last packet finishes */
	__u64 *light_pkts, *heavy_pkts;     /* per queue */
};

static void iso_deal(struct iso_run *run, enum iso_kind kind, __u32 h)
{
	const struct xs_iso_opts *o = run->o;
	__u32 t;

	for (t = 0; t < o->tenants; t++) {
		struct xs_hand *hand = &run->hand[t];

		if (kind == ISO_SHUFFLE) {
			xs_deal(run->hand_hash[t], o->queues, h, hand);
			continue;
		}
		hand->n_cards = 1;
		hand->card[0] = kind == ISO_JUMP ? xs_jump(run->jump_hash[t], o->queues) :
						   (__u32)(run->jump_hash[t] % o->queues);
	}
}

static int hand_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

#define GEOMETRY_MAX_GROUPS 256

/*
 * Hit and covered shares of the light tenants, with tenants [g K, g K + K)
 * as the heavy set for each of @groups disjoint groups g, averaged: one heavy
 * set is a single draw of a very uneven quantity (for K = 4, H = 8, N = 16
 * the covered share of one draw ranges over tens of percent), the average
 * estimates the closed form. Group 0 is the heavy set the queue model uses.
 */
void xs_iso_geometry(const struct xs_hand *hand, __u32 tenants, __u32 heavy, __u32 queues,
		     __u32 groups, double *hit, double *covered)
{
	unsigned char *in_union = calloc(queues, 1);
	__u32 g, t, i;

	*hit = *covered = 0;
	if (!in_union || !heavy || !groups) {
		free(in_union);
		return;
	}
	for (g = 0; g < groups; g++) {
		__u32 nhit = 0, ncov = 0;

		memset(in_union, 0, queues);
		for (t = g * heavy; t < (g + 1) * heavy; t++)
			for (i = 0; i < hand[t].n_cards; i++)
				in_union[hand[t].card[i]] = 1;
		for (t = 0; t < tenants; t++) {
			__u32 in = 0;

			if (t >= g * heavy && t < (g + 1) * heavy)
				continue;
			for (i = 0; i < hand[t].n_cards; i++)
				in += in_union[hand[t].card[i]];
			nhit += in > 0;
			ncov += in == hand[t].n_cards;
		}
		*hit += (double)nhit / (tenants - heavy);
		*covered += (double)ncov / (tenants - heavy);
	}
	*hit /= groups;
	*covered /= groups;
	free(in_union);
}

static void iso_geometry(const struct iso_run *run, struct xs_iso_row *row)
{
	const struct xs_iso_opts *o = run->o;
	__u32 groups = o->heavy ? o->tenants / o->heavy : 0;
	double hit;

	if (groups > GEOMETRY_MAX_GROUPS)
		groups = GEOMETRY_MAX_GROUPS;
	xs_iso_geometry(run->hand, o->tenants, o->heavy, o->queues, groups, &row->hit,
			&row->covered);
	xs_iso_geometry(run->hand, o->tenants, o->heavy, o->queues, 1, &hit, &row->covered_run);
	row->hit *= 100;
	row->covered *= 100;
	row->covered_run *= 100;
}

/*
 * Share of tenant pairs holding the very same hand, against 1/C(N, H).
 * Hands are compared as a hash of their sorted cards.
 */
static double iso_same_hand(const struct iso_run *run)
{
	const struct xs_iso_opts *o = run->o;
	__u64 *sig = malloc(o->tenants * sizeof(__u64)), same = 0, run_len = 1;
	__u32 t, i, j;

	if (!sig || o->tenants < 2) {
		free(sig);
		return 0;
	}
	for (t = 0; t < o->tenants; t++) {
		struct xs_hand hand = run->hand[t];
		__u64 s = 0;

		for (i = 1; i < hand.n_cards; i++)
			for (j = i; j > 0 && hand.card[j - 1] > hand.card[j]; j--) {
				__u32 c = hand.card[j];

				hand.card[j] = hand.card[j - 1];
				hand.card[j - 1] = c;
			}
		for (i = 0; i < hand.n_cards; i++)
			s = xs_mix64(s + hand.card[i] + 1);
		sig[t] = s;
	}
	qsort(sig, o->tenants, sizeof(*sig), hand_cmp);
	for (t = 1; t <= o->tenants; t++) {
		if (t < o->tenants && sig[t] == sig[t - 1]) {
			run_len++;
			continue;
		}
		same += run_len * (run_len - 1) / 2;
		run_len = 1;
	}
	free(sig);
	return 100.0 * same / ((double)o->tenants * (o->tenants - 1) / 2);
}

struct iso_tenant {
	__u32 left;  /* packets left in the current flow */
	__u32 queue; /* where the current flow is pinned */
	__u32 flows;
};

static int iso_queue(struct iso_run *run, struct xs_iso_row *row)
{
	const struct xs_iso_opts *o = run->o;
	struct iso_tenant *ten = calloc(o->tenants, sizeof(*ten));
	double now = 0, rate = o->util * o->queues, heavy_w = (double)o->heavy * o->ratio;
	double total_w = heavy_w + (o->tenants - o->heavy), served_max = 0, served_sum = 0;
	__u64 rng = o->rng_seed, load[XS_MAX_HAND], on_heavy = 0, light_total = 0;
	size_t nl = 0, nh = 0;
	__u32 e, i;

	if (!ten)
		return -ENOMEM;
	memset(run->busy, 0, o->queues * sizeof(double));
	memset(run->light_pkts, 0, o->queues * sizeof(__u64));
	memset(run->heavy_pkts, 0, o->queues * sizeof(__u64));
	for (e = 0; e < o->events; e++) {
		double u = iso_unit(&rng) * total_w, start;
		struct iso_tenant *tn;
		__u32 t, q;

		now += -log(1 - iso_unit(&rng)) / rate;
		t = u < heavy_w ? (__u32)(u / o->ratio) : o->heavy + (__u32)(u - heavy_w);
		if (t >= o->tenants)
			t = o->tenants - 1;
		tn = &ten[t];
		if (!tn->left) {
			const struct xs_hand *hand = &run->hand[t];

			/* Load as the kernel sees it: packets still queued on each card. */
			for (i = 0; i < hand->n_cards; i++) {
				double backlog = run->busy[hand->card[i]] - now;

				load[i] = backlog > 0 ? (__u64)ceil(backlog) : 0;
			}
			tn->queue = hand->card[xs_pick_least_loaded(hand, load,
								    xs_mix64(run->hand_hash[t] +
									     tn->flows++)) &
					       (XS_MAX_HAND - 1)];
			tn->left = o->flow_packets;
		}
		tn->left--;
		q = tn->queue;
		start = run->busy[q] > now ? run->busy[q] : now;
		run->busy[q] = start + 1;
		if (e < o->events / WARMUP_DIV)
			continue;
		if (t < o->heavy) {
			run->heavy_wait[nh++] = (float)(start - now);
			run->heavy_pkts[q]++;
		} else {
			run->light_wait[nl++] = (float)(start - now);
			run->light_pkts[q]++;
		}
	}
	for (i = 0; i < o->queues; i++) {
		double s = (double)(run->light_pkts[i] + run->heavy_pkts[i]);

		served_sum += s;
		served_max = s > served_max ? s : served_max;
		light_total += run->light_pkts[i];
		if (run->heavy_pkts[i])
			on_heavy += run->light_pkts[i];
	}
	row->max_mean = served_sum ? served_max / (served_sum / o->queues) : 0;
	row->on_heavy = light_total ? 100.0 * on_heavy / light_total : 0;
	row->p50 = iso_pct(run->light_wait, nl, 50);
	row->p99 = iso_pct(run->light_wait, nl, 99);
	row->heavy_p99 = iso_pct(run->heavy_wait, nh, 99);
	free(ten);
	return 0;
}

static int iso_row(struct iso_run *run, struct xs_iso_result *r, const char *name,
		   enum iso_kind kind, __u32 h)
{
	struct xs_iso_row *row = &r->row[r->nrows++];
	const struct xs_iso_opts *o = run->o;
	struct timespec t0;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	row->name = name;
	row->hand = h;
	iso_deal(run, kind, h);
	iso_geometry(run, row);
	xs_iso_expect(o->queues, h, o->heavy, &row->hit_exp, &row->covered_exp);
	row->hit_exp *= 100;
	row->covered_exp *= 100;
	row->same_hand = iso_same_hand(run);
	err = iso_queue(run, row);
	row->ms = xs_sim_ms_since(&t0);
	return err;
}

static int iso_check(const struct xs_iso_opts *o)
{
	__u32 i;

	if (o->heavy >= o->tenants) {
		pr_warn("sim isolation: --heavy %u leaves no light tenant among --tenants %u\n",
			o->heavy, o->tenants);
		return -EINVAL;
	}
	for (i = 0; i < o->nhands; i++)
		if (xs_hand_entropy_ok(o->queues, o->hands[i])) {
			pr_warn("sim isolation: hand size %u is not dealable from %u queues "
				"(1 <= H <= N, H <= %d, H * log2(N) <= %d bits)\n",
				o->hands[i], o->queues, XS_MAX_HAND, XS_ENTROPY_BITS);
			return -EINVAL;
		}
	return 0;
}

int xs_iso_run(const struct xs_iso_opts *o, struct xs_iso_result *r)
{
	const __u64 seed[2] = { XS_SIM_SEED0, XS_SIM_SEED1 };
	struct iso_run run = { .o = o };
	__u64 *hh, *jh;
	__u32 t, i;
	int err;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	err = iso_check(o);
	if (err)
		return err;
	r->light_rate = o->util * o->queues / ((double)o->heavy * o->ratio + o->tenants - o->heavy);
	hh = malloc(o->tenants * sizeof(__u64));
	jh = malloc(o->tenants * sizeof(__u64));
	run.hand = malloc(o->tenants * sizeof(*run.hand));
	run.light_wait = malloc((size_t)o->events * sizeof(float));
	run.heavy_wait = malloc((size_t)o->events * sizeof(float));
	run.busy = malloc(o->queues * sizeof(double));
	run.light_pkts = malloc(o->queues * sizeof(__u64));
	run.heavy_pkts = malloc(o->queues * sizeof(__u64));
	err = -ENOMEM;
	if (!hh || !jh || !run.hand || !run.light_wait || !run.heavy_wait || !run.busy ||
	    !run.light_pkts || !run.heavy_pkts) {
		pr_warn("sim isolation: out of memory for %u tenants and %u events\n", o->tenants,
			o->events);
		goto out;
	}
	for (t = 0; t < o->tenants; t++) {
		struct xs_flow_key key;

		/* One source address per tenant: the hand key the kernel uses by default. */
		xs_sim_flow_key((__u64)t << 16, &key);
		hh[t] = xs_flow_hash(seed, &key, XS_F_DEFAULT_HAND, XS_DOMAIN_HAND);
		jh[t] = xs_flow_hash(seed, &key, XS_F_DEFAULT_HAND, XS_DOMAIN_FLOW);
	}
	run.hand_hash = hh;
	run.jump_hash = jh;
	err = iso_row(&run, r, "modulo", ISO_MODULO, 1);
	err = err ?: iso_row(&run, r, "jump", ISO_JUMP, 1);
	for (i = 0; !err && i < o->nhands; i++)
		err = iso_row(&run, r, "shuffle", ISO_SHUFFLE, o->hands[i]);
out:
	free(hh);
	free(jh);
	free(run.hand);
	free(run.light_wait);
	free(run.heavy_wait);
	free(run.busy);
	free(run.light_pkts);
	free(run.heavy_pkts);
	return err;
}
