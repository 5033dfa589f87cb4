/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Map value types and limits shared by bpf/xdpsteer.bpf.c and the CLI.
 * Every map is BTF-typed with these structs, so `bpftool map dump` prints
 * field names.
 */
#ifndef XDPSTEER_H
#define XDPSTEER_H

#include "xs_common.h"
#include "xs_hash.h"

/*
 * Target ids are stable for a target's whole life and index xs_targets,
 * xs_target_stats and the redirect maps:
 *   [0, XS_MAX_CPUS)                     cpu N   -> id N, cpumap key N
 *   [XS_DEV_BASE, XS_DEV_BASE + XS_MAX_DEVS)  dev  -> devmap key id - XS_DEV_BASE
 */
#define XS_MAX_CPUS 128
#define XS_MAX_DEVS 256
#define XS_DEV_BASE XS_MAX_CPUS
#define XS_MAX_TARGETS (XS_DEV_BASE + XS_MAX_DEVS)
#define XS_NO_TARGET 0xffffffffu

/* Buckets of one pool: jump and shuffle choose a bucket in [0, n_buckets). */
#define XS_MAX_BUCKETS 65536
#define XS_MAX_POOLS 1
#define XS_POOL_QUEUES 0

enum xs_algo {
	XS_ALGO_JUMP = 0,
	XS_ALGO_SHUFFLE = 1,
};

enum xs_target_kind {
	XS_TARGET_NONE = 0,
	XS_TARGET_CPU = 1,
	XS_TARGET_DEV = 2,
};

#define XS_TARGET_F_ACTIVE (1U << 0)

/* xs_targets value: what a target id delivers to. */
struct xs_target {
	__u32 kind;      /* enum xs_target_kind */
	__u32 cpu;       /* XS_TARGET_CPU */
	__u32 ifindex;   /* XS_TARGET_DEV: egress ifindex (informational; devmap holds it) */
	__u32 qsize;     /* XS_TARGET_CPU: cpumap queue size */
	__u32 uid;       /* changes each time the id is reused: invalidates pinned flows */
	__u32 flags;     /* XS_TARGET_F_* */
	__u32 bucket;    /* bucket it holds, or held before removal: re-adding refills it */
};

/*
 * A pool is one inner array map of union xs_pool_entry: entry 0 is the
 * header, entries 1..n_buckets are the buckets. The whole pool is published
 * by swapping the inner map in the outer xs_pools map: one pointer store,
 * and the kernel waits for running programs before the update returns, so no
 * packet sees a half-written pool and none uses the old one afterwards.
 */
struct xs_pool_hdr {
	__u64 seed[2];       /* SipHash-1-3 key */
	__u32 n_buckets;     /* 0: no targets, packets pass (XS_C_NO_TARGETS) */
	__u32 generation;    /* bumped on every publish */
	__u8 algo;           /* enum xs_algo */
	__u8 hand_size;      /* shuffle: cards per hand */
	__u8 flow_fields;    /* enum xs_field mask for the flow hash */
	__u8 hand_fields;    /* enum xs_field mask for the hand hash */
	__u32 flags;
};

struct xs_bucket {
	__u32 target;        /* target id */
	__u32 pad;
};

union xs_pool_entry {
	struct xs_pool_hdr hdr;
	struct xs_bucket bucket;
};

/* xs_flows (LRU) value: the target a flow was pinned to. */
struct xs_flow_pin {
	__u32 target;
	__u32 uid;           /* xs_target.uid at pin time */
};

/* xs_target_stats (per-CPU) value. */
struct xs_target_stats {
	__u64 packets;       /* steered to this target by the XDP program */
	__u64 bytes;
	__u64 dequeued;      /* seen by the cpumap/devmap program on the target side */
	__u64 dropped;       /* cpumap enqueue drops (xdp:xdp_cpumap_enqueue) */
};

/*
 * Data-plane counters (per-CPU array xs_counters). X(enum, name, kind):
 * kind "pass"/"drop" counts a verdict taken for that reason; "info" counts an
 * event on a packet that was otherwise steered.
 */
#define XS_COUNTERS(X)                                                        \
	X(XS_C_NOT_IP, "not_ip", "pass")                                      \
	X(XS_C_TRUNC_ETH, "truncated_eth", "pass")                            \
	X(XS_C_VLAN_TOO_DEEP, "vlan_too_deep", "pass")                        \
	X(XS_C_TRUNC_IP, "truncated_ip", "pass")                              \
	X(XS_C_BAD_IHL, "bad_ihl", "pass")                                    \
	X(XS_C_BAD_IP_LEN, "bad_ip_len", "pass")                              \
	X(XS_C_IP6_EXT_LIMIT, "ipv6_ext_limit", "pass")                       \
	X(XS_C_TRUNC_L4, "truncated_l4", "pass")                              \
	X(XS_C_NO_TARGETS, "no_targets", "pass")                              \
	X(XS_C_TARGET_GONE, "target_gone", "pass")                            \
	X(XS_C_REDIRECT_ERR, "redirect_error", "pass")                        \
	X(XS_C_FRAGMENT, "fragment", "info")                                  \
	X(XS_C_FLOW_HIT, "flow_hit", "info")                                  \
	X(XS_C_FLOW_NEW, "flow_new", "info")                                  \
	X(XS_C_FLOW_REPIN, "flow_repin", "info")

#define XS_COUNTER_ENUM(e, name, kind) e,
enum xs_counter { XS_COUNTERS(XS_COUNTER_ENUM) XS_C_MAX };
#undef XS_COUNTER_ENUM

/*
 * xs_flow_cache (per-CPU array) value: a direct-mapped copy of recent pins,
 * so an established flow costs an inlined array load instead of an LRU
 * hash lookup. XS_FLOW_CACHE_SLOTS entries per CPU, 56 bytes each.
 */
#define XS_FLOW_CACHE_SLOTS 8192
#define XS_CACHE_REFRESH 64  /* every 64th cache hit also touches the LRU */
struct xs_flow_cache_entry {
	struct xs_flow_key key;
	struct xs_flow_pin pin;
	__u64 hits;
};

/* xs_self value: facts only known after load, written once by attach. */
struct xs_self {
	__u32 cpumap_id;     /* filters xdp:xdp_cpumap_enqueue to our own cpumap */
};

/* Compile-time configuration of one attachment (BPF rodata). */
#define XS_DEFAULT_FLOW_ENTRIES 65536

#endif /* XDPSTEER_H */
