// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The sharding algorithms of `xdpsteer sim`: each maps a key's 64-bit hash to
 * a shard id under one layout. Jump and shuffle are the include/ code the XDP
 * program runs (xs_jump, xs_deal, xs_pick_least_loaded, xs_live_bucket), fed
 * the same SipHash values xs_select() computes; the others are written here
 * from their definitions, on that same SipHash value.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "sim.h"

/* xs_select.h's hole walk, reading buckets from a simulated layout. */
#define XS_ENV const struct xs_sim_layout *

static inline __u32 xs_env_bucket(const struct xs_sim_layout *l, __u32 b)
{
	return b < l->n ? l->id[b] : XS_NO_TARGET;
}

static inline __u64 xs_env_load(const struct xs_sim_layout *l, __u32 t)
{
	return 0;
}

#include "xs_select.h"

#define RING_SALT 0x72696e67706f696eULL /* positions of ring points */
#define HRW_SALT 0x72656e64657a766fULL  /* rendezvous weights */
#define MAGLEV_OFFSET_SALT 0x6d61676c65766f66ULL
#define MAGLEV_SKIP_SALT 0x6d61676c6576736bULL
#define FIB_MULT 11400714819323198485ULL /* 2^64 / golden ratio */
#define RING_INDEX_BITS 16

/* ref_*: Golubtsov's published Python figures (docs/references.md), -1 where it has no row. */
const struct xs_sim_algo xs_sim_algos[] = {
	{ "modulo", XS_SIM_MODULO, 0, 4.77, 156.67, 0.19 },
	{ "fibonacci", XS_SIM_FIB, 0, 4.80, 222.53, 0.80 },
	{ "ring 1 pt/shard", XS_SIM_RING, 1, 93.71, 39882.89, 2.15 },
	{ "ring 100 pt/shard", XS_SIM_RING, 100, 94.68, 6105.93, 2.47 },
	{ "ring 1000 pt/shard", XS_SIM_RING, 1000, 95.25, 1227.54, 2.81 },
	{ "rendezvous", XS_SIM_RENDEZVOUS, 0, 95.28, 218.09, 29.55 },
	{ "jump", XS_SIM_JUMP, 0, 95.24, 237.10, 0.32 },
	{ "jump + holes", XS_SIM_JUMP_HOLES, 0, -1, -1, -1 },
	{ "maglev M=65537", XS_SIM_MAGLEV, 65537, -1, -1, -1 },
	{ "maglev M=655373", XS_SIM_MAGLEV, 655373, -1, -1, -1 },
	{ "shuffle H=2", XS_SIM_SHUFFLE, 2, -1, -1, -1 },
	{ "shuffle H=4", XS_SIM_SHUFFLE, 4, -1, -1, -1 },
	{ "shuffle H=8", XS_SIM_SHUFFLE, 8, -1, -1, -1 },
};
const unsigned int xs_sim_nalgos = XS_ARRAY_SIZE(xs_sim_algos);

void xs_sim_flow_key(__u64 i, struct xs_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	XS_W32(k->src, 2) = XS_W32(k->dst, 2) = htonl(0xffff);
	XS_W32(k->src, 3) = htonl(0x0a000000u | (__u32)((i >> 16) & 0xffffff));
	XS_W32(k->dst, 3) = htonl(0xc0000201u);
	k->sport = htons((__u16)i);
	k->dport = htons(443);
	k->proto = 6;
}

int xs_sim_keys_make(__u32 n, const __u64 seed[2], struct xs_sim_keys *k)
{
	struct xs_flow_key key;
	__u32 i;

	k->n = n;
	k->flow = malloc((size_t)n * sizeof(__u64));
	k->hand = malloc((size_t)n * sizeof(__u64));
	if (!k->flow || !k->hand) {
		xs_sim_keys_free(k);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		xs_sim_flow_key(i, &key);
		k->flow[i] = xs_flow_hash(seed, &key, XS_F_ALL, XS_DOMAIN_FLOW);
		k->hand[i] = xs_flow_hash(seed, &key, XS_F_ALL, XS_DOMAIN_HAND);
	}
	return 0;
}

void xs_sim_keys_free(struct xs_sim_keys *k)
{
	free(k->flow);
	free(k->hand);
	k->flow = k->hand = NULL;
}

/*
 * Round-robin permutation fill (Maglev, NSDI 2016, pseudocode 1): each id in
 * turn claims the next still-empty slot of its own permutation
 * offset + j * skip (mod M), until every slot is owned. M prime and
 * 1 <= skip < M make each permutation visit every slot.
 */
void xs_sim_maglev_fill(const __u32 *live, __u32 nlive, __u32 m, __u32 *table)
{
	__u64 *pos = calloc(nlive, sizeof(*pos)), *skip = calloc(nlive, sizeof(*skip));
	__u32 i, filled = 0;

	for (i = 0; i < m; i++)
		table[i] = XS_NO_TARGET;
	if (!pos || !skip || !nlive)
		goto out;
	for (i = 0; i < nlive; i++) {
		pos[i] = xs_mix64(live[i] ^ MAGLEV_OFFSET_SALT) % m;
		skip[i] = xs_mix64(live[i] ^ MAGLEV_SKIP_SALT) % (m - 1) + 1;
	}
	for (;;) {
		for (i = 0; i < nlive; i++) {
			while (table[pos[i]] != XS_NO_TARGET)
				pos[i] = pos[i] + skip[i] >= m ? pos[i] + skip[i] - m : pos[i] + skip[i];
			table[pos[i]] = live[i];
			if (++filled == m)
				goto out;
		}
	}
out:
	free(pos);
	free(skip);
}

struct ring_point {
	__u64 pos;
	__u32 owner;
};

static int ring_cmp(const void *a, const void *b)
{
	const struct ring_point *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Points depend only on (id, point number), so a shard keeps its points across layouts. */
static int ring_build(struct xs_sim_state *s, __u32 per)
{
	struct ring_point *rp;
	__u32 i, p, n = s->nlive * per, prefix;

	rp = malloc((size_t)n * sizeof(*rp));
	s->point = malloc((size_t)n * sizeof(__u64));
	s->owner = malloc((size_t)n * sizeof(__u32));
	s->index = malloc(((1u << RING_INDEX_BITS) + 1) * sizeof(__u32));
	if (!rp || !s->point || !s->owner || !s->index) {
		free(rp);
		return -ENOMEM;
	}
	for (i = 0; i < s->nlive; i++)
		for (p = 0; p < per; p++) {
			/* mix64 is a bijection: distinct (id, p) never share a position. */
			rp[i * per + p].pos = xs_mix64(((__u64)s->live[i] << 32 | p) ^ RING_SALT);
			rp[i * per + p].owner = s->live[i];
		}
	qsort(rp, n, sizeof(*rp), ring_cmp);
	for (i = 0; i < n; i++) {
		s->point[i] = rp[i].pos;
		s->owner[i] = rp[i].owner;
	}
	s->npoints = n;
	/* index[q]: first point whose top bits are >= q, so a lookup searches one short run. */
	for (prefix = 0, i = 0; prefix <= 1u << RING_INDEX_BITS; prefix++) {
		while (i < n && (s->point[i] >> (64 - RING_INDEX_BITS)) < prefix)
			i++;
		s->index[prefix] = i;
	}
	free(rp);
	return 0;
}

static inline __u32 ring_lookup(const struct xs_sim_state *s, __u64 h)
{
	__u32 q = (__u32)(h >> (64 - RING_INDEX_BITS));
	__u32 lo = s->index[q], hi = s->index[q + 1];

	/* First point with pos >= h in [lo, hi); past every point wraps to the first. */
	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (s->point[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->owner[lo < s->npoints ? lo : 0];
}

int xs_sim_prepare(const struct xs_sim_algo *a, const struct xs_sim_layout *l,
		   struct xs_sim_state *s)
{
	__u32 i, n;

	memset(s, 0, sizeof(*s));
	s->algo = a;
	s->layout = l;
	s->live = malloc((l->n ? l->n : 1) * sizeof(__u32));
	if (!s->live)
		return -ENOMEM;
	for (i = 0; i < l->n; i++)
		if (l->id[i] != XS_NO_TARGET)
			s->live[s->nlive++] = l->id[i];

	switch (a->kind) {
	case XS_SIM_JUMP:
		/* Classic removal: the last shard fills each hole, the bucket count shrinks. */
		memcpy(s->live, l->id, l->n * sizeof(__u32));
		n = l->n;
		for (i = 0; i < n; i++) {
			while (n > i && s->live[n - 1] == XS_NO_TARGET)
				n--;
			if (i < n && s->live[i] == XS_NO_TARGET)
				s->live[i] = s->live[--n];
		}
		s->nlive = n;
		return 0;
	case XS_SIM_RENDEZVOUS:
		s->weight_seed = malloc((s->nlive ? s->nlive : 1) * sizeof(__u64));
		if (!s->weight_seed)
			return -ENOMEM;
		for (i = 0; i < s->nlive; i++)
			s->weight_seed[i] = xs_mix64(s->live[i] ^ HRW_SALT);
		return 0;
	case XS_SIM_RING:
		return s->nlive ? ring_build(s, a->param) : 0;
	case XS_SIM_MAGLEV:
		s->table = malloc((size_t)a->param * sizeof(__u32));
		if (!s->table)
			return -ENOMEM;
		xs_sim_maglev_fill(s->live, s->nlive, a->param, s->table);
		return 0;
	default:
		return 0;
	}
}

void xs_sim_release(struct xs_sim_state *s)
{
	free(s->live);
	free(s->weight_seed);
	free(s->point);
	free(s->owner);
	free(s->index);
	free(s->table);
	memset(s, 0, sizeof(*s));
}

/* xs_select()'s shuffle branch with loads all zero, on precomputed hashes. */
static inline __u32 shuffle_one(const struct xs_sim_layout *l, __u32 hand_size, __u64 flow,
				__u64 hand_hash)
{
	__u64 load[XS_MAX_HAND];
	struct xs_hand hand;
	__u32 i, b;

	if (!l->n || l->n > XS_MAX_BUCKETS)
		return XS_NO_TARGET;
	xs_deal(hand_hash, l->n, hand_size < l->n ? hand_size : l->n, &hand);
	for (i = 0; i < hand.n_cards; i++)
		load[i] = l->id[hand.card[i]] == XS_NO_TARGET ? ~0ULL : 0;
	b = hand.card[xs_pick_least_loaded(&hand, load, flow) & (XS_MAX_HAND - 1)];
	if (l->id[b] == XS_NO_TARGET)
		b = xs_live_bucket(l, flow, l->n);
	return b == XS_NO_TARGET ? XS_NO_TARGET : l->id[b];
}

/* xs_select()'s jump branch, holes included. */
static inline __u32 jump_holes_one(const struct xs_sim_layout *l, __u64 flow)
{
	__u32 b;

	if (!l->n || l->n > XS_MAX_BUCKETS)
		return XS_NO_TARGET;
	b = xs_jump(flow, l->n);
	if (l->id[b] == XS_NO_TARGET)
		b = xs_live_bucket(l, flow, l->n);
	return b == XS_NO_TARGET ? XS_NO_TARGET : l->id[b];
}

/* Highest weight wins; written without a branch on the weights, which are random. */
static inline __u32 rendezvous_one(const struct xs_sim_state *s, __u64 h)
{
	__u64 best = xs_mix64(h ^ s->weight_seed[0]), w;
	__u32 i, at = 0;

	for (i = 1; i < s->nlive; i++) {
		w = xs_mix64(h ^ s->weight_seed[i]);
		at = w > best ? i : at;
		best = w > best ? w : best;
	}
	return s->live[at];
}

__u32 xs_sim_one(const struct xs_sim_state *s, __u64 flow, __u64 hand)
{
	if (!s->nlive)
		return XS_NO_TARGET;
	switch (s->algo->kind) {
	case XS_SIM_MODULO:
		return s->live[flow % s->nlive];
	case XS_SIM_FIB:
		/* Multiplicative hashing, then mod N as the published comparison does. */
		return s->live[((flow * FIB_MULT) >> 32) % s->nlive];
	case XS_SIM_RING:
		return ring_lookup(s, flow);
	case XS_SIM_RENDEZVOUS:
		return rendezvous_one(s, flow);
	case XS_SIM_JUMP:
		return s->live[xs_jump(flow, s->nlive)];
	case XS_SIM_JUMP_HOLES:
		return jump_holes_one(s->layout, flow);
	case XS_SIM_MAGLEV:
		return s->table[flow % s->algo->param];
	case XS_SIM_SHUFFLE:
		return shuffle_one(s->layout, s->algo->param, flow, hand);
	}
	return XS_NO_TARGET;
}

/* One loop per algorithm, so the switch is not paid per key. */
void xs_sim_assign(const struct xs_sim_state *s, const struct xs_sim_keys *k, __u32 lo,
		   __u32 hi, __u32 *out)
{
	const __u64 *f = k->flow;
	__u32 i, m = s->nlive;

	if (!m) {
		for (i = lo; i < hi; i++)
			out[i] = XS_NO_TARGET;
		return;
	}
	switch (s->algo->kind) {
	case XS_SIM_MODULO:
		for (i = lo; i < hi; i++)
			out[i] = s->live[f[i] % m];
		break;
	case XS_SIM_FIB:
		for (i = lo; i < hi; i++)
			out[i] = s->live[((f[i] * FIB_MULT) >> 32) % m];
		break;
	case XS_SIM_JUMP:
		for (i = lo; i < hi; i++)
			out[i] = s->live[xs_jump(f[i], m)];
		break;
	case XS_SIM_RING:
		for (i = lo; i < hi; i++)
			out[i] = ring_lookup(s, f[i]);
		break;
	case XS_SIM_RENDEZVOUS:
		for (i = lo; i < hi; i++)
			out[i] = rendezvous_one(s, f[i]);
		break;
	case XS_SIM_MAGLEV:
		for (i = lo; i < hi; i++)
			out[i] = s->table[f[i] % s->algo->param];
		break;
	default:
		for (i = lo; i < hi; i++)
			out[i] = xs_sim_one(s, f[i], k->hand[i]);
		break;
	}
}

/* The pool the kernel would hold for this layout; the caller frees p->bucket. */
int xs_sim_pool(const struct xs_sim_state *s, const __u64 seed[2], struct xs_pool *p)
{
	const struct xs_sim_layout *l = s->layout;
	bool compact = s->algo->kind == XS_SIM_JUMP;
	__u32 n = compact ? s->nlive : l->n;

	memset(p, 0, sizeof(*p));
	if (s->algo->kind != XS_SIM_JUMP && s->algo->kind != XS_SIM_JUMP_HOLES &&
	    s->algo->kind != XS_SIM_SHUFFLE)
		return -EOPNOTSUPP;
	p->bucket = malloc((n ? n : 1) * sizeof(__u32));
	if (!p->bucket)
		return -ENOMEM;
	memcpy(p->bucket, compact ? s->live : l->id, n * sizeof(__u32));
	p->hdr.seed[0] = seed[0];
	p->hdr.seed[1] = seed[1];
	p->hdr.n_buckets = n;
	p->hdr.algo = s->algo->kind == XS_SIM_SHUFFLE ? XS_ALGO_SHUFFLE : XS_ALGO_JUMP;
	p->hdr.hand_size = s->algo->kind == XS_SIM_SHUFFLE ? s->algo->param : 0;
	/* Each key is its own tenant: hand and flow hash the whole 5-tuple. */
	p->hdr.flow_fields = XS_F_ALL;
	p->hdr.hand_fields = XS_F_ALL;
	return 0;
}
