/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The XDP object loaded straight from its skeleton, unattached and unpinned,
 * for BPF_PROG_TEST_RUN tests and benchmarks. The CLI's own library
 * (user/lib) drives it through an xs_handle built from the skeleton.
 */
#ifndef XS_TEST_PROG_ENV_H
#define XS_TEST_PROG_ENV_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "clock.h"
#include "decide.h"
#include "map_sizes.h"
#include "pool.h"
#include "stats.h"
#include "target.h"
#include "txn.h"
#include "xdpsteer.skel.h"

struct prog_env {
	struct xdpsteer *skel;
	struct xs_handle h;
	struct xs_pool pool;
	int prog_fd;
};

/* Idle timeouts for the next prog_env_open*() (as attach's --*-timeout); NULL: defaults. */
static const struct xs_timeouts *prog_env_timeouts;

/* What the object is loaded with: the settings attach takes. */
struct prog_env_cfg {
	__u32 flow_entries;	/* 0 disables the flow table, as --flow-table-size 0 */
	__u32 unparsed_verdict;
	__u32 pin_rate, pin_burst; /* --pin-rate's settings (0: no limit) */
	__u32 cache_slots;	/* flow-cache slots per CPU, a power of two, as
				 * --flow-cache-size; 0: the default. 1 makes every
				 * flow collide, so established flows miss it. */
	__u32 too_big;		/* enum xs_too_big, as --too-big (0: icmp) */
	int icmp_rate;		/* ICMP "too big" per second per CPU: 0 the default, -1 no limit */
};

static inline int prog_env_open_cfg(struct prog_env *e, const struct prog_env_cfg *cfg)
{
	__u32 flow_entries = cfg->flow_entries, pin_burst = cfg->pin_burst;
	int nr_cpus = libbpf_num_possible_cpus();

	memset(e, 0, sizeof(*e));
	e->skel = xdpsteer__open();
	if (!e->skel) {
		fprintf(stderr, "prog_env: cannot open the xdpsteer object: %s\n", strerror(errno));
		return -errno;
	}
	e->skel->rodata->cfg_nr_cpus = nr_cpus;
	e->skel->rodata->cfg_unparsed_verdict = cfg->unparsed_verdict;
	e->skel->rodata->cfg_flow_table = flow_entries > 0;
	e->skel->rodata->cfg_pin_rate = cfg->pin_rate;
	e->skel->rodata->cfg_pin_burst = pin_burst ? pin_burst : 1;
	if (prog_env_timeouts) {
		e->skel->rodata->cfg_timeouts = *prog_env_timeouts;
		e->skel->rodata->cfg_clock_period_ns = xs_clock_period_ns(prog_env_timeouts);
	}
	if (cfg->cache_slots)
		e->skel->rodata->cfg_cache_slots = cfg->cache_slots;
	e->skel->rodata->cfg_too_big = cfg->too_big;
	if (cfg->icmp_rate)
		e->skel->rodata->cfg_icmp_rate = cfg->icmp_rate < 0 ? 0 : (__u32)cfg->icmp_rate;
	if (xs_size_maps(e->skel, nr_cpus, flow_entries) || xdpsteer__load(e->skel)) {
		fprintf(stderr, "prog_env: cannot load the xdpsteer object: %s\n", strerror(errno));
		xdpsteer__destroy(e->skel);
		e->skel = NULL;
		return -errno;
	}
	e->prog_fd = bpf_program__fd(e->skel->progs.xdpsteer_xdp);
	if (xs_clock_start(bpf_program__fd(e->skel->progs.xdpsteer_clock_start), "prog_env")) {
		xdpsteer__destroy(e->skel);
		e->skel = NULL;
		return -EIO;
	}
	snprintf(e->h.ifname, sizeof(e->h.ifname), "test");
	e->h.nr_cpus = nr_cpus;
	e->h.pools_fd = bpf_map__fd(e->skel->maps.xs_pools);
	e->h.targets_fd = bpf_map__fd(e->skel->maps.xs_targets);
	e->h.stats_fd = bpf_map__fd(e->skel->maps.xs_target_stats);
	e->h.counters_fd = bpf_map__fd(e->skel->maps.xs_counters);
	e->h.flows_fd = bpf_map__fd(e->skel->maps.xs_flows);
	e->h.cpumap_fd = bpf_map__fd(e->skel->maps.xs_cpumap);
	e->h.devmap_fd = bpf_map__fd(e->skel->maps.xs_devmap);
	e->h.self_fd = bpf_map__fd(e->skel->maps.xs_self);
	e->h.dev_ids_fd = bpf_map__fd(e->skel->maps.xs_dev_ids);
	e->h.services_fd = bpf_map__fd(e->skel->maps.xs_services);
	e->h.vips_fd = bpf_map__fd(e->skel->maps.xs_vips);
	e->h.service_stats_fd = bpf_map__fd(e->skel->maps.xs_service_stats);
	e->h.tx_ports_fd = bpf_map__fd(e->skel->maps.xs_tx_ports);
	e->h.service_by_id_fd = bpf_map__fd(e->skel->maps.xs_service_by_id);
	e->h.pool_hdrs_fd = bpf_map__fd(e->skel->maps.xs_pool_hdrs);
	e->h.checks_fd = bpf_map__fd(e->skel->maps.xs_checks);
	e->h.epoch_fd = bpf_map__fd(e->skel->maps.xs_epoch);
	e->h.prev_pools_fd = bpf_map__fd(e->skel->maps.xs_prev_pools);
	e->h.prev_hdrs_fd = bpf_map__fd(e->skel->maps.xs_prev_hdrs);
	e->h.prev_gens_fd = bpf_map__fd(e->skel->maps.xs_prev_gens);
	e->h.prev_targets_fd = bpf_map__fd(e->skel->maps.xs_prev_targets);
	if (xs_epoch_map(&e->h)) {
		xdpsteer__destroy(e->skel);
		e->skel = NULL;
		return -EIO;
	}
	return 0;
}

/*
 * Load the object. @flow_entries 0 disables the flow table, as
 * --flow-table-size 0 does; @pin_rate and @pin_burst are --pin-rate's
 * settings (0: no limit).
 */
static inline int prog_env_open_limited(struct prog_env *e, __u32 flow_entries,
					__u32 unparsed_verdict, __u32 pin_rate, __u32 pin_burst)
{
	struct prog_env_cfg cfg = { .flow_entries = flow_entries,
				    .unparsed_verdict = unparsed_verdict,
				    .pin_rate = pin_rate,
				    .pin_burst = pin_burst };

	return prog_env_open_cfg(e, &cfg);
}

static inline int prog_env_open(struct prog_env *e, __u32 flow_entries, __u32 unparsed_verdict)
{
	return prog_env_open_limited(e, flow_entries, unparsed_verdict, 0, 0);
}

static inline void prog_env_close(struct prog_env *e)
{
	xs_epoch_unmap(&e->h); /* not xs_close(): the skeleton owns the map fds */
	xs_pool_free(&e->pool);
	xdpsteer__destroy(e->skel);
	e->skel = NULL;
}

/*
 * Install @n targets and publish them as the pool. Target i is cpu i while
 * i < nr_cpus, then a devmap slot on loopback: test runs never transmit, they
 * only need the redirect lookup to succeed.
 */
static inline int prog_env_targets(struct prog_env *e, __u8 algo, __u8 hand, __u32 n,
				   const __u64 seed[2])
{
	__u32 i;

	xs_pool_free(&e->pool);
	memset(&e->pool.hdr, 0, sizeof(e->pool.hdr));
	e->pool.hdr.algo = algo;
	e->pool.hdr.hand_size = hand;
	e->pool.hdr.flow_fields = XS_F_DEFAULT_FLOW;
	e->pool.hdr.hand_fields = XS_F_DEFAULT_HAND;
	e->pool.hdr.seed[0] = seed[0];
	e->pool.hdr.seed[1] = seed[1];
	e->pool.hdr.n_buckets = n;
	e->pool.bucket = calloc(n ? n : 1, sizeof(__u32));
	if (!e->pool.bucket)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct xs_target t = { .active = true, .uid = 1000 + i };
		__u32 id;

		if ((int)i < e->h.nr_cpus) {
			struct bpf_cpumap_val cv = { .qsize = 256 };

			id = i;
			t.kind = XS_TARGET_CPU;
			t.cpu = i;
			t.qsize = 256;
			if (bpf_map_update_elem(e->h.cpumap_fd, &i, &cv, BPF_ANY))
				return -errno;
		} else {
			struct bpf_devmap_val dv = { .ifindex = 1 };
			__u32 slot = i - e->h.nr_cpus;

			if (slot >= XS_MAX_DEVS)
				return -E2BIG;
			id = XS_DEV_BASE + slot;
			t.kind = XS_TARGET_DEV;
			t.ifindex = 1;
			if (bpf_map_update_elem(e->h.devmap_fd, &slot, &dv, BPF_ANY))
				return -errno;
		}
		if (xs_target_write(&e->h, id, &t))
			return -EIO;
		e->pool.bucket[i] = id;
	}
	return xs_pool_publish(&e->h, XS_POOL_QUEUES, &e->pool);
}

/*
 * One BPF_PROG_TEST_RUN of @pkt arriving on @ifindex (0: none); returns the
 * XDP verdict or a negative errno. The service path needs an ingress
 * interface for bpf_fib_lookup().
 */
static inline int prog_env_run_on(struct prog_env *e, __u32 ifindex, const void *pkt, __u32 len,
				  __u32 repeat, void *out, __u32 *out_len, __u32 *duration)
{
	unsigned char scratch[2048];
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = len,
		    .data_out = out ? out : scratch,
		    .data_size_out = out_len ? *out_len : sizeof(scratch),
		    .ctx_in = ifindex ? &ctx : NULL, .ctx_size_in = ifindex ? sizeof(ctx) : 0,
		    .repeat = repeat ? repeat : 1);
	int err = bpf_prog_test_run_opts(e->prog_fd, &o);

	if (err)
		return -errno;
	if (out_len)
		*out_len = o.data_size_out;
	if (duration)
		*duration = o.duration;
	return (int)o.retval;
}

static inline int prog_env_run(struct prog_env *e, const void *pkt, __u32 len, __u32 repeat,
			       void *out, __u32 *out_len, __u32 *duration)
{
	return prog_env_run_on(e, 0, pkt, len, repeat, out, out_len, duration);
}

/* The target the flow table pinned @key to in the queue pool, or XS_NO_TARGET. */
static inline __u32 prog_env_pinned(struct prog_env *e, const struct xs_flow_key *key)
{
	struct xs_flow_key flow;
	struct xs_flow_pin pin;

	xs_flow_pin_key(&flow, key, e->pool.hdr.flow_fields, XS_POOL_QUEUES);
	if (bpf_map_lookup_elem(e->h.flows_fd, &flow, &pin))
		return XS_NO_TARGET;
	return pin.target;
}

#endif /* XS_TEST_PROG_ENV_H */
