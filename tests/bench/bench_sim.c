// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Benchmark: the `sim resize` comparison (20 -> 21 shards, both layouts for
 * every key) with the simulator's implementation against a plain one, in the
 * same run. The plain one is what a first port of the published Python would
 * be: jump in doubles as the paper writes it, a ring searched linearly over
 * unsorted points, rendezvous with a branch per weight, Maglev filled with a
 * modulo per probe, and a shuffle dealer drawing with the double jump.
 *
 * Figures: ns per key for both layouts of one key, best of REPS, builds
 * included and spread over KEYS_SIM keys. The simulator runs on all KEYS_SIM
 * keys, one thread; the plain loop looks up KEYS_PLAIN keys (its linear ring
 * needs ~21000 compares a key) and its lookup time is scaled to KEYS_SIM.
 * ratio = plain / simulator. Not a test: nothing is asserted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "xs_shuffle.h"

#define KEYS_SIM 1000000u
#define KEYS_PLAIN 20000u
#define REPS 3

static volatile __u32 sink;

/* Allocation or exit: a benchmark cannot go on without its tables. */
static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "bench_sim: out of memory\n");
		exit(1);
	}
	return p;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Lamping and Veach's listing, in doubles. */
static __u32 plain_jump(__u64 key, __u32 n)
{
	__s64 b = -1, j = 0;

	while (j < n) {
		b = j;
		key = key * 2862933555777941757ULL + 1;
		j = (__s64)((b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
	}
	return (__u32)b;
}

static __u32 plain_ring(const __u64 *pos, const __u32 *owner, __u32 np, __u64 h)
{
	__u32 i, best = 0, first = 0;
	__u64 best_pos = ~0ULL, first_pos = ~0ULL;
	int found = 0;

	for (i = 0; i < np; i++) {
		if (pos[i] >= h && pos[i] <= best_pos) {
			best_pos = pos[i];
			best = i;
			found = 1;
		}
		if (pos[i] <= first_pos) {
			first_pos = pos[i];
			first = i;
		}
	}
	return owner[found ? best : first];
}

static __u32 plain_hrw(__u64 h, __u32 n)
{
	__u64 best = 0;
	__u32 i, at = 0;

	for (i = 0; i < n; i++) {
		__u64 w = xs_mix64(h ^ xs_mix64(i ^ 0x72656e64657a766fULL));

		if (i == 0 || w > best) {
			best = w;
			at = i;
		}
	}
	return at;
}

static void plain_maglev(__u32 n, __u32 m, __u32 *table)
{
	__u32 i, filled = 0, *next = must(calloc(n, sizeof(__u32)));

	for (i = 0; i < m; i++)
		table[i] = XS_NO_TARGET;
	while (filled < m)
		for (i = 0; i < n && filled < m; i++) {
			__u64 off = xs_mix64(i ^ 0x6d61676c65766f66ULL) % m;
			__u64 skip = xs_mix64(i ^ 0x6d61676c6576736bULL) % (m - 1) + 1, c;

			do
				c = (off + (__u64)next[i]++ * skip) % m;
			while (table[c] != XS_NO_TARGET);
			table[c] = i;
			filled++;
		}
	free(next);
}

static __u32 plain_shuffle(__u64 hand_hash, __u64 flow, __u32 n, __u32 h)
{
	__u32 cards[16], nc = 0, i, d, best = 0;
	__u64 tie, best_tie = ~0ULL;

	for (d = 0; nc < h && d < 64; d++) {
		__u32 c = plain_jump(xs_mix64(hand_hash + d * XS_GOLDEN64), n), dup = 0;

		for (i = 0; i < nc; i++)
			dup |= cards[i] == c;
		if (!dup)
			cards[nc++] = c;
	}
	for (i = 0; i < nc; i++) {
		tie = xs_mix64(flow + cards[i]);
		if (tie < best_tie) {
			best_tie = tie;
			best = cards[i];
		}
	}
	return best;
}

/* ns per key for both layouts (20 and 21 shards) of the plain form of @a. */
static double plain_row(const struct xs_sim_algo *a, const struct xs_sim_keys *k)
{
	__u32 layout, i, n, acc = 0, np = 0, *owner = NULL, *table = NULL;
	__u64 *pos = NULL;
	double t0, build = 0, look = 0;

	for (layout = 0; layout < 2; layout++) {
		n = 20 + layout;
		t0 = now_ms();
		if (a->kind == XS_SIM_RING) {
			np = n * a->param;
			pos = must(realloc(pos, np * sizeof(__u64)));
			owner = must(realloc(owner, np * sizeof(__u32)));
			for (i = 0; i < np; i++) {
				pos[i] = xs_mix64(((__u64)(i / a->param) << 32 | i % a->param) ^
						  0x72696e67706f696eULL);
				owner[i] = i / a->param;
			}
		}
		if (a->kind == XS_SIM_MAGLEV) {
			table = must(realloc(table, a->param * sizeof(__u32)));
			plain_maglev(n, a->param, table);
		}
		build += now_ms() - t0;
		t0 = now_ms();
		for (i = 0; i < KEYS_PLAIN; i++) {
			__u64 h = k->flow[i];

			switch (a->kind) {
			case XS_SIM_MODULO:
				acc += h % n;
				break;
			case XS_SIM_FIB:
				acc += ((h * 11400714819323198485ULL) >> 32) % n;
				break;
			case XS_SIM_RING:
				acc += plain_ring(pos, owner, np, h);
				break;
			case XS_SIM_RENDEZVOUS:
				acc += plain_hrw(h, n);
				break;
			case XS_SIM_JUMP:
			case XS_SIM_JUMP_HOLES:
				acc += plain_jump(h, n);
				break;
			case XS_SIM_MAGLEV:
				acc += table[h % a->param];
				break;
			case XS_SIM_SHUFFLE:
				acc += plain_shuffle(k->hand[i], h, n, a->param);
				break;
			}
		}
		look += now_ms() - t0;
	}
	sink += acc;
	free(pos);
	free(owner);
	free(table);
	/* Projected to KEYS_SIM keys, so a build is spread over as many keys on both sides. */
	return (build + look * KEYS_SIM / KEYS_PLAIN) * 1e6 / KEYS_SIM;
}

static double sim_row(const struct xs_sim_algo *a, const struct xs_sim_keys *k, __u32 *out)
{
	const __u32 ids[21] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	struct xs_sim_layout l[2] = { { 20, ids }, { 21, ids } };
	struct xs_sim_state s;
	double t0 = now_ms();
	int i;

	for (i = 0; i < 2; i++) {
		if (xs_sim_prepare(a, &l[i], &s))
			return NAN;
		xs_sim_assign(&s, k, 0, k->n, out);
		xs_sim_release(&s);
	}
	sink += out[k->n / 2];
	return (now_ms() - t0) * 1e6 / k->n;
}

int main(void)
{
	const __u64 seed[2] = { XS_SIM_SEED0, XS_SIM_SEED1 };
	double sim_sum = 0, plain_sum = 0;
	struct xs_sim_keys keys;
	__u32 *out = malloc(KEYS_SIM * sizeof(__u32));
	unsigned int a, r;

	if (!out || xs_sim_keys_make(KEYS_SIM, seed, &keys)) {
		fprintf(stderr, "bench_sim: cannot allocate %u keys\n", KEYS_SIM);
		return 1;
	}
	printf("bench_sim: sim resize 20 -> 21, ns per key (both layouts, build included), "
	       "best of %d; simulator on %u keys (1 thread), plain lookups on %u keys scaled up\n\n", REPS,
	       KEYS_SIM, KEYS_PLAIN);
	printf("%-20s | %12s | %12s | %8s\n", "algorithm", "plain ns/key", "sim ns/key",
	       "ratio");
	printf("%.*s\n", 62, "--------------------------------------------------------------");
	for (a = 0; a < xs_sim_nalgos; a++) {
		double p = 1e30, s = 1e30;

		for (r = 0; r < REPS; r++) {
			double tp = plain_row(&xs_sim_algos[a], &keys);
			double ts = sim_row(&xs_sim_algos[a], &keys, out);

			p = tp < p ? tp : p;
			s = ts < s ? ts : s;
		}
		plain_sum += p;
		sim_sum += s;
		printf("%-20s | %12.1f | %12.1f | %8.2f\n", xs_sim_algos[a].name, p, s, p / s);
	}
	printf("%.*s\n", 62, "--------------------------------------------------------------");
	printf("%-20s | %12.1f | %12.1f | %8.2f\n", "all rows", plain_sum, sim_sum,
	       plain_sum / sim_sum);
	printf("\nall rows on 1M keys: plain %.2f s, simulator %.2f s (one thread); "
	       "the published Python: 39 s for 7 of these rows\n",
	       plain_sum * 1e6 / 1e9, sim_sum * 1e6 / 1e9);
	xs_sim_keys_free(&keys);
	free(out);
	return 0;
}
