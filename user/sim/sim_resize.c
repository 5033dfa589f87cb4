// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * sim resize: every algorithm assigns the same keys before and after a change
 * of shards (growth from --from to --to, or removal of one shard from the
 * middle), and the share that stays and the balance after are compared with
 * a fair random assignment. Keys are hashed once, outside every row's time,
 * so the times compare the algorithms and not the hash.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "decide.h"
#include "log.h"
#include "sim.h"

double xs_sim_ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * E[max of n independent standard normals] = integral of x * n * phi(x) *
 * Phi(x)^(n-1): the peak-to-mean a fair assignment shows is about
 * 1 + this * std / mean.
 */
double xs_sim_expected_max_normal(__u32 n)
{
	const double step = 1e-3;
	double x, sum = 0;

	if (n < 2)
		return 0;
	for (x = -10; x < 10; x += step) {
		double phi = exp(-x * x / 2) / sqrt(2 * M_PI), cdf = 0.5 * erfc(-x / sqrt(2));

		sum += x * n * phi * pow(cdf, n - 1) * step;
	}
	return sum;
}

/* Layouts: growth keeps ids 0..n-1 in buckets 0..n-1; removal leaves a hole. */
static int layouts(const struct xs_sim_resize_opts *o, __u32 **before, __u32 **after,
		   struct xs_sim_layout *lb, struct xs_sim_layout *la)
{
	__u32 i, nb = o->from, na = o->remove == XS_NO_TARGET ? o->to : o->from;

	*before = malloc(nb * sizeof(__u32));
	*after = malloc(na * sizeof(__u32));
	if (!*before || !*after)
		return -ENOMEM;
	for (i = 0; i < nb; i++)
		(*before)[i] = i;
	for (i = 0; i < na; i++)
		(*after)[i] = i == o->remove ? XS_NO_TARGET : i;
	*lb = (struct xs_sim_layout){ .n = nb, .id = *before };
	*la = (struct xs_sim_layout){ .n = na, .id = *after };
	return 0;
}

static void row_stats(struct xs_sim_row *row, const __u32 *before, const __u32 *after,
		      __u32 nkeys, __u32 *count, __u32 nids, const struct xs_sim_layout *l,
		      __u32 live)
{
	double mean = (double)nkeys / live, var = 0;
	__u32 i, stay = 0, peak = 0, c;

	memset(count, 0, nids * sizeof(__u32));
	for (i = 0; i < nkeys; i++) {
		stay += before[i] == after[i];
		if (after[i] < nids)
			count[after[i]]++;
	}
	/* Population std over the live shards, one that got no key included. */
	for (i = 0; i < l->n; i++) {
		if (l->id[i] == XS_NO_TARGET)
			continue;
		c = count[l->id[i]];
		var += (c - mean) * (c - mean);
		peak = c > peak ? c : peak;
	}
	row->stay = 100.0 * stay / nkeys;
	row->std = sqrt(var / live);
	row->peak = peak / mean;
}

#define MAX_THREADS 16

struct assign_job {
	const struct xs_sim_state *before, *after;
	const struct xs_sim_keys *keys;
	__u32 lo, hi;
	__u32 *out_b, *out_a;
};

static void *assign_worker(void *arg)
{
	const struct assign_job *j = arg;

	xs_sim_assign(j->before, j->keys, j->lo, j->hi, j->out_b);
	xs_sim_assign(j->after, j->keys, j->lo, j->hi, j->out_a);
	return NULL;
}

/* Both layouts for every key, the keys split in equal runs over @threads threads. */
static void assign_both(const struct xs_sim_state *sb, const struct xs_sim_state *sa,
			const struct xs_sim_keys *k, __u32 threads, __u32 *out_b, __u32 *out_a)
{
	struct assign_job job[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	bool started[MAX_THREADS] = { false };
	__u32 t;

	threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
	for (t = 0; t < threads; t++) {
		job[t] = (struct assign_job){ .before = sb, .after = sa, .keys = k,
					      .lo = (__u32)((__u64)k->n * t / threads),
					      .hi = (__u32)((__u64)k->n * (t + 1) / threads),
					      .out_b = out_b, .out_a = out_a };
		/* A thread that cannot start leaves its run to this one. */
		if (t)
			started[t] = !pthread_create(&tid[t], NULL, assign_worker, &job[t]);
	}
	for (t = 0; t < threads; t++)
		if (!started[t])
			assign_worker(&job[t]);
	for (t = 1; t < threads; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
}

/* Every check_every-th key through the kernel's decision code, on its real flow key. */
static void cross_check(struct xs_sim_row *row, const struct xs_sim_state *s, const __u64 seed[2],
			const __u32 *out, __u32 nkeys, __u32 every)
{
	struct xs_decision d;
	struct xs_flow_key key;
	struct xs_pool pool;
	__u32 i;

	if (!every || xs_sim_pool(s, seed, &pool))
		return;
	for (i = 0; i < nkeys; i += every) {
		xs_sim_flow_key(i, &key);
		row->checked++;
		if (xs_decide(&pool, NULL, &key, &d))
			d.target = XS_NO_TARGET;
		row->agreed += d.target == out[i];
	}
	free(pool.bucket);
}

int xs_sim_resize_run(const struct xs_sim_resize_opts *o, struct xs_sim_resize *r)
{
	const __u64 seed[2] = { XS_SIM_SEED0, XS_SIM_SEED1 };
	__u32 *ids_before = NULL, *ids_after = NULL, *out_b, *out_a, *count;
	__u32 nids = o->from > o->to ? o->from : o->to;
	struct xs_sim_layout lb, la;
	struct xs_sim_keys keys = { 0 };
	struct timespec t0;
	unsigned int a;
	int err;

	memset(r, 0, sizeof(*r));
	r->opt = *o;
	out_b = malloc((size_t)o->keys * sizeof(__u32));
	out_a = malloc((size_t)o->keys * sizeof(__u32));
	count = calloc(nids, sizeof(__u32));
	err = -ENOMEM;
	if (!out_b || !out_a || !count || layouts(o, &ids_before, &ids_after, &lb, &la))
		goto out;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = xs_sim_keys_make(o->keys, seed, &keys);
	if (err)
		goto out;
	r->hash_ms = xs_sim_ms_since(&t0);

	r->before = o->from;
	r->after = o->remove == XS_NO_TARGET ? o->to : o->from - 1;
	if (o->remove != XS_NO_TARGET)
		r->ideal_stay = 100.0 * (o->from - 1) / o->from;
	else
		r->ideal_stay = 100.0 * (o->from < o->to ? o->from : o->to) /
				(o->from > o->to ? o->from : o->to);
	r->ideal_std = sqrt(o->keys * (1.0 / r->after) * (1 - 1.0 / r->after));
	r->ideal_peak = 1 + xs_sim_expected_max_normal(r->after) * r->ideal_std /
				    ((double)o->keys / r->after);

	for (a = 0; a < xs_sim_nalgos && a < XS_ARRAY_SIZE(r->row); a++) {
		const struct xs_sim_algo *algo = &xs_sim_algos[a];
		struct xs_sim_row *row = &r->row[r->nrows++];
		struct xs_sim_state sb, sa;

		row->algo = algo;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = xs_sim_prepare(algo, &lb, &sb);
		err = err ?: xs_sim_prepare(algo, &la, &sa);
		if (err) {
			pr_warn("sim resize: cannot prepare %s: %s\n", algo->name, strerror(-err));
			xs_sim_release(&sb);
			goto out;
		}
		assign_both(&sb, &sa, &keys, o->threads, out_b, out_a);
		row->ms = xs_sim_ms_since(&t0);
		r->total_ms += row->ms;
		row_stats(row, out_b, out_a, o->keys, count, nids, &la, r->after);
		cross_check(row, &sb, seed, out_b, o->keys, o->check_every);
		cross_check(row, &sa, seed, out_a, o->keys, o->check_every);
		xs_sim_release(&sb);
		xs_sim_release(&sa);
	}
	err = 0;
out:
	if (err == -ENOMEM)
		pr_warn("sim resize: out of memory for %u keys\n", o->keys);
	xs_sim_keys_free(&keys);
	free(ids_before);
	free(ids_after);
	free(out_b);
	free(out_a);
	free(count);
	return err;
}
