/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * xdpsteer sim: "Data Sharding(Partitioning) Algorithms" (A. Golubtsov, 2024) rerun in C,
 * extended with Maglev, shuffle sharding, removal from the middle and
 * noisy-neighbour isolation. Jump and shuffle go through the include/ code
 * the XDP program runs, and a sample of keys is checked against xs_decide().
 */
#ifndef XS_SIM_H
#define XS_SIM_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include "pool.h"

/* The simulator's fixed SipHash key: every run sees the same keys. */
#define XS_SIM_SEED0 0x7864707374656572ULL /* "xdpsteer" */
#define XS_SIM_SEED1 0x73696d756c61746fULL /* "simulato" */

enum xs_sim_kind {
	XS_SIM_MODULO,
	XS_SIM_FIB,
	XS_SIM_RING,
	XS_SIM_RENDEZVOUS,
	XS_SIM_JUMP,       /* removal: the last shard moves into the hole */
	XS_SIM_JUMP_HOLES, /* removal: xs_select.h's holes */
	XS_SIM_MAGLEV,
	XS_SIM_SHUFFLE,    /* removal: holes, as the kernel does */
};

struct xs_sim_algo {
	const char *name;
	enum xs_sim_kind kind;
	__u32 param; /* ring: points per shard; maglev: table size; shuffle: hand size */
	/* The published row (Golubtsov, docs/references.md), ref_stay < 0 where it has none. */
	double ref_stay, ref_std, ref_sec;
};

extern const struct xs_sim_algo xs_sim_algos[];
extern const unsigned int xs_sim_nalgos;

/* Bucket i holds shard id[i]; XS_NO_TARGET is a hole left by a removal. */
struct xs_sim_layout {
	__u32 n;
	const __u32 *id;
};

/* Both hashes of every key, computed once and shared by all algorithms. */
struct xs_sim_keys {
	__u32 n;
	__u64 *flow; /* xs_flow_hash(seed, key, XS_F_ALL, XS_DOMAIN_FLOW) */
	__u64 *hand; /* the same with XS_DOMAIN_HAND: each key is its own tenant */
};

/* What an algorithm precomputes for one layout. */
struct xs_sim_state {
	const struct xs_sim_algo *algo;
	const struct xs_sim_layout *layout;
	__u32 nlive;
	__u32 *live;        /* live ids in bucket order; jump: after last-into-hole */
	__u64 *weight_seed; /* rendezvous: one per live id */
	__u64 *point;       /* ring: sorted positions ... */
	__u32 *owner;       /* ... and the id owning each */
	__u32 npoints;
	__u32 *index;       /* ring: first point at or after each 16-bit prefix */
	__u32 *table;       /* maglev: slot -> id */
};

int xs_sim_prepare(const struct xs_sim_algo *a, const struct xs_sim_layout *l,
		   struct xs_sim_state *s);
void xs_sim_release(struct xs_sim_state *s);
/* Shard id of keys [lo, hi) of @k; XS_NO_TARGET if the layout has no live shard. */
void xs_sim_assign(const struct xs_sim_state *s, const struct xs_sim_keys *k, __u32 lo,
		   __u32 hi, __u32 *out);
__u32 xs_sim_one(const struct xs_sim_state *s, __u64 flow, __u64 hand);
/* Maglev's permutation fill, exposed for the tests. */
void xs_sim_maglev_fill(const __u32 *live, __u32 nlive, __u32 m, __u32 *table);

/* Synthetic IPv4 TCP flow i: src 10.0.0.0/8 + (i >> 16), sport i & 0xffff, to 192.0.2.1:443. */
void xs_sim_flow_key(__u64 i, struct xs_flow_key *k);
int xs_sim_keys_make(__u32 n, const __u64 seed[2], struct xs_sim_keys *k);
void xs_sim_keys_free(struct xs_sim_keys *k);
/* The kernel's pool for a simulated layout (jump, jump holes, shuffle only). */
int xs_sim_pool(const struct xs_sim_state *s, const __u64 seed[2], struct xs_pool *p);

/* ---- resize ---- */

struct xs_sim_resize_opts {
	__u32 keys, from, to;
	__u32 remove;      /* shard to remove, XS_NO_TARGET to grow from -> to */
	__u32 check_every; /* cross-check every Nth key against xs_decide() */
	__u32 threads;     /* keys are split over this many threads per row */
};

struct xs_sim_row {
	const struct xs_sim_algo *algo;
	double stay, std, peak, ms;
	__u32 checked, agreed; /* xs_decide() cross-check; checked == 0 if not run */
};

struct xs_sim_resize {
	struct xs_sim_resize_opts opt;
	__u32 before, after;         /* live shards */
	double ideal_stay, ideal_std, ideal_peak;
	double hash_ms, total_ms;
	unsigned int nrows;
	struct xs_sim_row row[24];
};

int xs_sim_resize_run(const struct xs_sim_resize_opts *o, struct xs_sim_resize *r);
double xs_sim_expected_max_normal(__u32 n);
double xs_sim_ms_since(const struct timespec *t0);

/* ---- isolation ---- */

#define XS_ISO_MAX_HANDS 12

struct xs_iso_opts {
	__u32 tenants, queues, heavy, ratio;
	__u32 hands[XS_ISO_MAX_HANDS], nhands;
	__u32 events;       /* packets simulated per row */
	__u32 flow_packets; /* packets per flow: least-loaded choice made at flow start */
	double util;        /* offered load / total service capacity */
	__u64 rng_seed;
};

struct xs_iso_row {
	const char *name;
	__u32 hand;
	double hit, hit_exp;         /* light hands sharing a card with a heavy hand */
	double covered, covered_exp; /* light hands entirely inside the heavy cards */
	double covered_run;          /* the same for the queue model's one heavy set */
	double same_hand;            /* 1 / C(N, H) */
	double on_heavy;             /* light packets served by a queue heavy flows used */
	double max_mean, p50, p99, heavy_p99, ms;
};

struct xs_iso_result {
	struct xs_iso_opts opt;
	double light_rate;
	unsigned int nrows;
	struct xs_iso_row row[XS_ISO_MAX_HANDS + 2];
};

int xs_iso_run(const struct xs_iso_opts *o, struct xs_iso_result *r);
/* Closed forms: P(a random H-hand meets / lies inside the union of K random H-hands of N). */
void xs_iso_expect(__u32 n, __u32 h, __u32 k, double *hit, double *covered);
double xs_iso_choose(__u32 n, __u32 k);
struct xs_hand;
/* Measured hit and covered shares (0-1), averaged over @groups disjoint heavy sets. */
void xs_iso_geometry(const struct xs_hand *hand, __u32 tenants, __u32 heavy, __u32 queues,
		     __u32 groups, double *hit, double *covered);

/* ---- output ---- */

enum xs_sim_format { XS_SIM_TEXT, XS_SIM_CSV, XS_SIM_JSON };

void xs_sim_resize_print(const struct xs_sim_resize *r, enum xs_sim_format fmt, FILE *f);
void xs_iso_print(const struct xs_iso_result *r, enum xs_sim_format fmt, FILE *f);
int xs_sim_resize_svg(const struct xs_sim_resize *r, const char *path);
int xs_iso_svg(const struct xs_iso_result *r, const char *path);

#endif /* XS_SIM_H */
