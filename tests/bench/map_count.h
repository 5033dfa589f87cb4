/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What a stretch of library code asked of the kernel's maps, counted without
 * touching the library: the bench is linked with -Wl,--wrap=bpf_map_... (see
 * the Makefile), so every libbpf map call made from libxdpsteer.a goes
 * through map_count.c first. Only calls between map_count_reset() and
 * map_count_get() are counted.
 *
 * Map-in-map updates are told apart because each one returns only after a
 * synchronize_rcu() in the kernel (milliseconds): they dominate a small apply.
 */
#ifndef XS_BENCH_MAP_COUNT_H
#define XS_BENCH_MAP_COUNT_H

#include <linux/types.h>

#define MAP_COUNT_FDS 1024

struct map_count_fd {
	__u64 calls;          /* write syscalls on this fd */
	__u64 elems;          /* elements they wrote or deleted */
};

struct map_count {
	__u64 write_calls;    /* update, delete (one or a batch), freeze */
	__u64 write_elems;    /* elements written or deleted; a batch counts each */
	__u64 mim_calls;      /* writes to the outer map-in-map (one synchronize_rcu each) */
	__u64 creates;        /* maps created (new pools) */
	__u64 pins;           /* bpf_obj_pin */
	__u64 read_calls;     /* lookups, batch lookups, get-by-id, info, BTF loads */
	__u64 neigh_calls;    /* xs_neigh_manage: netlink round trips for backends */
	double write_ns;      /* time inside write, create, freeze and pin calls */
	double mim_ns;        /* of which map-in-map writes */
	double read_ns;
	double neigh_ns;
	struct map_count_fd fd[MAP_COUNT_FDS];
	char name[MAP_COUNT_FDS][16]; /* of maps created while counting, by fd */
};

/* Start counting afresh; writes to @mim_fd are the map-in-map updates. */
void map_count_reset(int mim_fd);
/* A copy of the counts so far (counting goes on). */
void map_count_get(struct map_count *out);

#endif /* XS_BENCH_MAP_COUNT_H */
