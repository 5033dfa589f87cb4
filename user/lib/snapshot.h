/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What an interface's data plane counted, read at one instant: the per-reason
 * counters, each target's, service's and backend's stats (summed over the
 * CPUs), the live pins and the pool's identity. The Prometheus families
 * (metrics.h) and `stats --watch` (two snapshots, their difference) read it.
 * Numbers a family prints are __u64, so one emit function serves them all.
 */
#ifndef XS_SNAPSHOT_H
#define XS_SNAPSHOT_H

#include <stdbool.h>
#include <net/if.h>
#include <netinet/in.h>
#include "xdpsteer.h"

/* A queue target (cpu or dev) in the pool, or draining out of it. */
struct xs_dp_target {
	__u32 id;
	int slot;		/* its first bucket; -1: draining, it holds none */
	char name[64];		/* "cpu 0", "dev eth1", as `stats` prints it */
	struct xs_target_stats st;
	__u64 pinned;		/* live pins it holds */
	__u64 draining;		/* 1 or 0 */
};

struct xs_dp_service {
	__u32 id;
	struct xs_service_key key;
	char name[80];		/* "10.0.0.10:80/tcp" */
	struct xs_service_stats st;
};

struct xs_dp_backend {
	__u32 id;
	const struct xs_dp_service *service;
	char addr[INET6_ADDRSTRLEN];
	struct xs_target_stats st;
	__u64 pinned;
	__u64 draining;
	__u64 weight;		/* buckets it holds */
	__u8 raw_addr[16];	/* as xs_targets holds it */
	/* Its health check, from the agent's health file (xs_dp_snapshot_health()). */
	__u64 checked;		/* 1 when an agent's check covers it; the rest are 0 if not */
	__u64 healthy;		/* 1 up or not yet decided (it serves), 0 down (out of the pool) */
	__u64 health_since;	/* wall-clock seconds of its last change of state */
	__u64 probes, probe_failures;
};

struct xs_dp_snapshot {
	char ifname[IF_NAMESIZE];
	long long taken_ns;	/* CLOCK_MONOTONIC, for rates */
	__u64 counters[XS_C_MAX];	/* enum xs_counter, summed over the CPUs */
	struct xs_dp_target *targets;
	__u32 n_targets;
	struct xs_dp_service *services;
	__u32 n_services;
	struct xs_dp_backend *backends;
	__u32 n_backends;
	__u64 pinned;		/* live pins of every target */
	__u64 flow_table_size;	/* the most pins the table holds */
	__u64 slots;		/* buckets of the queue pool */
	const char *algo;
	char digest[12];	/* the queue pool's, as `status` prints it */
	char seed_digest[12];
};

/* 0, or -errno with the object that failed printed; @s is then empty. */
int xs_dp_snapshot_read(const char *ifname, struct xs_dp_snapshot *s);
void xs_dp_snapshot_free(struct xs_dp_snapshot *s);
/*
 * Add the backends' health from the health file the agent keeps in @dir
 * (NULL: the default, /run/xdpsteer, or /run/xdpsteer/netns:COOKIE outside the
 * initial network namespace). No file, no agent checking: nothing
 * is added, and every backend stays unchecked.
 */
void xs_dp_snapshot_health(struct xs_dp_snapshot *s, const char *dir);

#endif /* XS_SNAPSHOT_H */
