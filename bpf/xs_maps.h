/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Maps of the xdpsteer XDP object. All are pinned under /sys/fs/bpf/xdpsteer/IFACE/. */
#ifndef XS_MAPS_H
#define XS_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "xdpsteer.h"
#include "xs_decision.h"
#include "xs_check.h"

/* Template for a pool; real pools are created by the CLI with their own size. */
struct xs_pool_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_INNER_MAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct xs_bucket);
};

/*
 * clang emits the value type of an inner map as a forward declaration only,
 * and libbpf then cannot size it; a typed global forces the full type.
 */
const volatile struct xs_bucket xs_bucket_btf = {};

/* xs_self.pool_base + pool id -> the pool's buckets: two generations, see XS_POOL_SLOTS. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, XS_POOL_SLOTS);
	__type(key, __u32);
	__array(values, struct xs_pool_map);
} xs_pools SEC(".maps");

/*
 * xs_self.pool_base + pool id -> the pool's header, beside its buckets in
 * xs_pools: the same slot, the same generation. A plain array, so the
 * lookup is inlined.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * XS_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct xs_pool_hdr);
} xs_pool_hdrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XS_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct xs_target);
} xs_targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XS_MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct xs_target_stats);
} xs_target_stats SEC(".maps");

/*
 * Per-CPU tables written on every packet and read by userspace, if at all,
 * only as a sum are plain arrays of one block per CPU, indexed cpu * rows + row
 * (xs_cpu_row()), not PERCPU_ARRAYs: a PERCPU_ARRAY lookup first loads the
 * element's per-CPU pointer from a table of its own, one more dependent load
 * (and, for the flow cache's 8192 random slots, one more cache miss) per
 * packet. The loader sizes them for the machine's CPUs (xs_size_maps()).
 * xs_counters: cpu -> that CPU's struct xs_counter_block, a block of one row.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* per CPU */
	__type(key, __u32);
	__type(value, struct xs_counter_block);
} xs_counters SEC(".maps");

/*
 * Row @row of this CPU's block of @rows in one of these tables. A row past
 * the block would be another CPU's: callers keep @row < @rows.
 */
static __always_inline __u32 xs_cpu_row(__u32 rows, __u32 row)
{
	return bpf_get_smp_processor_id() * rows + row;
}

/*
 * Flow pins. One global LRU rather than per-CPU: if RSS ever delivers one
 * flow to two RX CPUs, both must find the same pin, or a shuffle flow whose
 * least-loaded card differs per CPU would be split. Sized at attach.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, XS_DEFAULT_FLOW_ENTRIES);
	__type(key, struct xs_flow_key);
	__type(value, struct xs_flow_pin);
} xs_flows SEC(".maps");

/* Per CPU, as xs_counters: by cpu * cfg_cache_slots + slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XS_FLOW_CACHE_SLOTS); /* per CPU */
	__type(key, __u32);
	__type(value, struct xs_flow_cache_entry);
} xs_flow_cache SEC(".maps");

/* Egress ifindex -> dev target id, for the devmap program's dequeue count. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XS_MAX_DEVS);
	__type(key, __u32);
	__type(value, __u32);
} xs_dev_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, XS_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct bpf_cpumap_val);
} xs_cpumap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, XS_MAX_DEVS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} xs_devmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_self);
} xs_self SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_pin_budget);
} xs_pin_budget SEC(".maps");

/* The same token bucket for ICMP "too big" answers (cfg_icmp_rate). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_pin_budget);
} xs_icmp_budget SEC(".maps");

/*
 * The flow clock: a BPF timer that re-arms itself and stamps xs_now (in
 * xs_clock.h). Pinned, so the timer lives as long as the attachment.
 */
struct xs_clock {
#ifdef XS_TEST_LAYOUT_REORDER
	/* tests/ns/test_upgrade.sh: the same size, another layout; must be refused. */
	__u64 period_ns;
	struct bpf_timer timer;
#else
	struct bpf_timer timer;
	__u64 period_ns;
#endif
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_clock);
} xs_clock SEC(".maps");

/* Which build attached and upgraded the attachment (struct xs_build); only userspace reads it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_build);
} xs_build SEC(".maps");

/* Room for one steering decision per CPU (struct xs_decision is 240 bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_decision);
} xs_scratch SEC(".maps");

/*
 * The configuration epoch: userspace adds one after every change of a
 * service or a target has been written, and recipes (struct xs_recipe) made
 * in an older epoch are not used. Mapped into userspace so that the add is
 * one atomic instruction: two commands at once can never move it backwards,
 * which would make old recipes current again.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} xs_epoch SEC(".maps");

/* Services: exact (VIP, port, proto), and (VIP, 0, proto) for "any port". */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XS_MAX_SERVICES);
	__type(key, struct xs_service_key);
	__type(value, struct xs_service);
} xs_services SEC(".maps");

/*
 * Service -> its health check. Never read here: the agent's (docs/health.md),
 * kept beside the services so that the pins hold the whole running state.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XS_MAX_SERVICES);
	__type(key, struct xs_service_key);
	__type(value, struct xs_check);
} xs_checks SEC(".maps");

/*
 * xs_self.pool_base + service id -> service: the live generation of every
 * service (xs_services only names the id). An entry whose id differs from
 * its index is no service in that generation.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * XS_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct xs_service);
} xs_service_by_id SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XS_MAX_SERVICES);
	__type(key, struct xs_service_key); /* port 0, proto 0 */
	__type(value, struct xs_vip);
} xs_vips SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, XS_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct xs_service_stats);
} xs_service_stats SEC(".maps");

/* Per CPU, as xs_flow_cache: by cpu * XS_MAX_TARGETS + target id. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XS_MAX_TARGETS); /* per CPU */
	__type(key, __u32);
	__type(value, struct xs_nexthop);
} xs_nexthops SEC(".maps");

/* Second chance: the pool before a change, its window, its backends (xdpsteer.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, XS_MAX_POOLS);
	__type(key, __u32);
	__array(values, struct xs_pool_map);
} xs_prev_pools SEC(".maps");

/* The kept pool's header, by pool id, as xs_pool_hdrs holds the live one's. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XS_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct xs_pool_hdr);
} xs_prev_hdrs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XS_MAX_POOLS);
	__type(key, __u32);
	__type(value, struct xs_prev_gen);
} xs_prev_gens SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * XS_MAX_BACKENDS);
	__type(key, struct xs_prev_target_key);
	__type(value, struct xs_target);
} xs_prev_targets SEC(".maps");

/*
 * Room for the kept pool's decision and the second hop it gives: the
 * program's stack has none to spare (512 bytes across its calls).
 */
struct xs_prev_scratch {
	struct xs_flow_key key;
	__be32 hop[4];       /* struct xs_hop (bpf/xs_encap.h) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xs_prev_scratch);
} xs_prev_scratch SEC(".maps");

/* Egress interfaces for tunnelled and L2 traffic, keyed by ifindex. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
#ifdef XS_TEST_LAYOUT_SIZE
	__uint(max_entries, 128); /* tests/ns/test_upgrade.sh: a size change; must be refused */
#else
	__uint(max_entries, 64);
#endif
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} xs_tx_ports SEC(".maps");

#endif /* XS_MAPS_H */
