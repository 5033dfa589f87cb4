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
 *   [0, XS_MAX_CPUS)                            cpu N -> id N, cpumap key N
 *   [XS_DEV_BASE, XS_DEV_BASE + XS_MAX_DEVS)         dev   -> devmap key id - XS_DEV_BASE
 *   [XS_BACKEND_BASE, + XS_MAX_BACKENDS)             backend IP of a service
 */
#define XS_MAX_CPUS 128
#define XS_MAX_DEVS 256
/* Overridable at build time (-DXS_MAX_BACKENDS=65536), as the bench's big build does. */
#ifndef XS_MAX_BACKENDS
#define XS_MAX_BACKENDS 8192
#endif
#define XS_DEV_BASE XS_MAX_CPUS
#define XS_BACKEND_BASE (XS_DEV_BASE + XS_MAX_DEVS)
#define XS_MAX_TARGETS (XS_BACKEND_BASE + XS_MAX_BACKENDS)
#define XS_NO_TARGET 0xffffffffu

/* Buckets of one pool: jump and shuffle choose a bucket in [0, n_buckets). Overridable. */
#ifndef XS_MAX_BUCKETS
#define XS_MAX_BUCKETS 65536
#endif
#define XS_MAX_SERVICES 1024
#define XS_MAX_POOLS (1 + XS_MAX_SERVICES)
#define XS_POOL_QUEUES 0     /* pool of queue targets; service s uses pool s */
/*
 * xs_pools and xs_service_by_id hold two generations of every pool id:
 * slots [0, XS_MAX_POOLS) and [XS_MAX_POOLS, 2 * XS_MAX_POOLS). Packets read
 * the one xs_self.pool_base names; a change writes the other, then flips it.
 * The last xs_pools slot is never read: updating it is how the CLI waits for
 * running programs (the kernel runs synchronize_rcu on map-in-map updates).
 */
#define XS_POOL_SLOTS (2 * XS_MAX_POOLS + 1)
#define XS_POOL_SYNC_SLOT (2 * XS_MAX_POOLS)

enum XS_ENUM8 xs_algo {
	XS_ALGO_JUMP = 0,
	XS_ALGO_SHUFFLE = 1,
};

enum xs_target_kind {
	XS_TARGET_NONE = 0,
	XS_TARGET_CPU = 1,
	XS_TARGET_DEV = 2,
	XS_TARGET_BACKEND = 3,
};

/* An address's family, by its IP version number. */
enum XS_ENUM8 xs_family {
	XS_FAMILY_NONE = 0,
	XS_FAMILY_IPV4 = 4,
	XS_FAMILY_IPV6 = 6,
};

/* xs_targets value: what a target id delivers to. */
struct xs_target {
	enum xs_target_kind kind;
	__u32 cpu;       /* XS_TARGET_CPU */
	__u32 ifindex;   /* XS_TARGET_DEV: egress ifindex (informational; devmap holds it) */
	__u32 qsize;     /* XS_TARGET_CPU: cpumap queue size */
	__u32 uid;       /* changes each time the id is reused: invalidates pinned flows */
	_Bool active;    /* the id is a target: pinned flows to it stay */
	_Bool drain;     /* out of the pool (no new flows), still active (pinned flows stay) */
	/*
	 * Down: its health check took it out (docs/health.md). Like drain it holds
	 * no slot; unlike drain the agent set it, not the operator, and it comes
	 * back by itself. The data plane reads neither, only active.
	 */
	_Bool down;
	__u8 pad;
	__u32 bucket;    /* first bucket it holds, or held before removal */
	__u32 service;   /* XS_TARGET_BACKEND: service id */
	__u8 addr[16] XS_ADDR;   /* XS_TARGET_BACKEND: address */
	__u16 weight;    /* XS_TARGET_BACKEND: buckets it holds */
	enum xs_family family;   /* XS_TARGET_BACKEND */
	__u8 pad2;
	__u32 pad3;
};
_Static_assert(sizeof(struct xs_target) == 56, "xs_target keeps its layout");

/*
 * Services: a VIP, a port and a protocol. xs_services maps the key to the
 * service; port 0 is the VIP's "any port" service, tried when no exact one
 * matches. The value is one hash element, replaced whole on update.
 */
struct xs_service_key {
	__u8 vip[16] XS_ADDR;
	__be16 port;
	enum xs_ip_proto proto;
	__u8 pad;
};

enum XS_ENUM8 xs_encap {
	XS_ENCAP_IPIP = 0,   /* outer IPv4 (IPIP) or IPv6 (IP6IP6, IPv4-in-IPv6) by backend family */
	XS_ENCAP_L2 = 1,     /* rewrite the destination MAC: L2 direct server return */
	XS_ENCAP_GUE = 2,    /* outer IPv4 or IPv6 by backend family, UDP, GUE (xs_gue.h) */
};

struct xs_service {
	__u32 id;            /* 1..XS_MAX_SERVICES: pool id and stats index */
	enum xs_encap encap;
	__u8 src4_bits;      /* ipip: low bits of src4 taken from the flow hash */
	__u8 src6_bits;      /* ipip: low bits of src6 taken from the flow hash (<= 32) */
	_Bool quic;          /* udp: short-header QUIC goes where its connection id says (xs_quic.h) */
	__u8 src4[4] XS_ADDR;    /* ipip: outer IPv4 source prefix */
	__u8 src6[16] XS_ADDR;   /* ipip: outer IPv6 source prefix */
	_Bool second_chance; /* gue: a hop list names the previous generation's backend too */
	__u8 pad_chance[3];
	__u32 chance_window_s; /* second chance: how long after a change it lasts */
};
_Static_assert(sizeof(struct xs_service) == 36, "xs_service keeps its layout");

/*
 * Second chance (docs/design.md): for @svc.second_chance services, the pool
 * in force before a change stays readable for chance_window_s after it.
 * xs_prev_pools holds that pool by pool id, xs_prev_gens when its window
 * ends, and xs_prev_targets the backends it names as they were then (an id
 * may name another backend since). Changes less than XS_CHANCE_BURST_S apart
 * are one change (several commands, or a commit in two steps): the pool kept
 * is the one from before the first.
 */
#define XS_DEFAULT_CHANCE_WINDOW_S 600
#define XS_MAX_CHANCE_WINDOW_S (7 * 24 * 3600)
#define XS_CHANCE_BURST_S 5

struct xs_prev_gen {
	__u64 until_ns;      /* CLOCK_MONOTONIC: the window ends; 0 none */
	__u64 changed_ns;    /* when the live pool replaced the one kept, or a later one */
};

struct xs_prev_target_key {
	__u32 pool;
	__u32 target;
};

/* xs_service_stats (per-CPU) value, indexed by service id. */
struct xs_service_stats {
	__u64 packets;
	__u64 bytes;
	__u64 no_backend;    /* passed: the service has no live backend */
	__u64 too_big;       /* the encapsulated packet would exceed the MTU: answered or dropped */
};

/*
 * What a packet gets that would exceed the route MTU once encapsulated
 * (attach --too-big): an ICMP "fragmentation needed" (IPv4 with DF) or
 * ICMPv6 "packet too big" back to the client, with the MTU that fits, at
 * most XS_DEFAULT_ICMP_RATE a second per CPU; or, as before, nothing.
 * Either way it is not sent on, and counted too_big unless answered.
 */
enum xs_too_big {
	XS_TOO_BIG_ICMP = 0,
	XS_TOO_BIG_DROP = 1,
};
#define XS_DEFAULT_ICMP_RATE 1000   /* ICMP "too big" per second per CPU, as Linux's icmp_msgs_per_sec */
#define XS_DEFAULT_ICMP_BURST 100
#define XS_TOO_BIG_QUOTE 128        /* bytes of the packet quoted: its headers, and then some */

/*
 * A pool is a header, in xs_pool_hdrs, and its buckets, one inner array map
 * of struct xs_bucket (bucket b at key b) in xs_pools; both at the same
 * slot, pool_base + pool id. A change writes the generation that packets do
 * not read, then flips xs_self.pool_base: header and buckets change together.
 */
struct xs_pool_hdr {
	__u64 seed[2];       /* SipHash-1-3 key */
	__u32 n_buckets;     /* 0: no targets, packets pass (XS_C_NO_TARGETS) */
	__u32 digest;        /* of the pool's content: equal on hosts that hold the same pool */
	enum xs_algo algo;
	__u8 hand_size;      /* shuffle: cards per hand */
	__u8 flow_fields;    /* enum xs_field mask for the flow hash */
	__u8 hand_fields;    /* enum xs_field mask for the hand hash */
	_Bool own_fields;    /* flow_fields are the service's own (hash-fields), not the interface's */
	__u8 pad[3];
};
_Static_assert(sizeof(struct xs_pool_hdr) == 32, "xs_pool_hdr keeps its layout");

struct xs_bucket {
	__u32 target;        /* target id, XS_NO_TARGET for a hole */
};

/*
 * Flow idle time is kept in ticks of 2^20 ns (about 1.05 ms) in 32 bits:
 * bpf_ktime_get_ns() >> XS_TICK_SHIFT, compared by wrapping subtraction
 * read as signed, so a timeout can be up to 2^31 ticks (about 26 days).
 */
#define XS_TICK_SHIFT 20
#define XS_MAX_TIMEOUT_S (7 * 24 * 3600)

/* xs_flows (LRU) value: the target a flow was pinned to. */
struct xs_flow_pin {
	__u32 target;
	__u32 uid;           /* xs_target.uid at pin time */
	__u32 hash;          /* low bits of the flow hash: the tunnel source varies by it */
	_Bool closed;        /* FIN or RST seen: counted in closed once */
	__u8 pad[3];
	__u32 seen;          /* tick of the flow's last packet, as of the last refresh */
};

#define XS_S_TO_TICKS(s) ((__u32)(((__u64)(s) * 1000000000ULL) >> XS_TICK_SHIFT))
/* Defaults: see README, "Flow idle timeouts". */
#define XS_DEFAULT_TCP_TIMEOUT_S 7200
#define XS_DEFAULT_FIN_TIMEOUT_S 30
#define XS_DEFAULT_UDP_TIMEOUT_S 300
#define XS_MAX_REFRESH_S 1

/* Idle timeouts in ticks: TCP, TCP after FIN or RST, anything else (UDP). */
struct xs_timeouts {
	__u32 tcp;
	__u32 fin;
	__u32 udp;
	__u32 refresh;       /* a cached flow refreshes its pin at least this often */
};

/* Has @pin (of protocol @proto) been idle longer than its timeout at tick @now? */
XS_INLINE int xs_pin_expired(const struct xs_flow_pin *pin, __u8 proto, __u32 now,
			     const struct xs_timeouts *to)
{
	__u32 limit = pin->closed ? to->fin : proto == 6 ? to->tcp : to->udp;

	/*
	 * Signed: a pin stamped a few ticks after @now (another CPU's newer
	 * xs_now, a reader whose clock lags) is fresh, not 2^32 ticks idle.
	 */
	return (__s32)(now - pin->seen) > (__s32)limit;
}

/* xs_target_stats (per-CPU) value. */
struct xs_target_stats {
	__u64 packets;       /* steered to this target by the XDP program */
	__u64 bytes;
	__u64 dequeued;      /* seen by the cpumap/devmap program on the target side */
	__u64 dropped;       /* cpumap enqueue drops (xdp:xdp_cpumap_enqueue) */
	__u64 opened;        /* flows pinned to it */
	__u64 closed;        /* of those, flows seen ending (TCP FIN or RST from the client) */
};

/*
 * The load that shuffle's "least loaded" reads. Queues (cpu, dev): frames in
 * the queue, enqueued minus dequeued minus dropped. Backends: open flows as
 * the load balancer sees them, opened minus closed (a UDP flow never closes,
 * so for UDP this counts flows ever placed).
 */
XS_INLINE __u64 xs_target_load(__u32 target, __u64 packets, __u64 dequeued, __u64 dropped,
			       __u64 opened, __u64 closed)
{
	__u64 in = target >= XS_BACKEND_BASE ? opened : packets;
	__u64 out = target >= XS_BACKEND_BASE ? closed : dequeued + dropped;

	return in > out ? in - out : 0;
}

/*
 * Data-plane counters (xs_counters, a block per CPU). X(enum, name, kind):
 * kind "pass"/"drop" counts a verdict taken for that reason; "info" counts an
 * event on a packet that was otherwise steered. The name is a C identifier:
 * it is also the counter's field in struct xs_counter_block.
 */
#define XS_COUNTERS(X)                                                        \
	X(XS_C_NOT_IP, not_ip, "pass")                                        \
	X(XS_C_TRUNC_ETH, truncated_eth, "pass")                              \
	X(XS_C_VLAN_TOO_DEEP, vlan_too_deep, "pass")                          \
	X(XS_C_TRUNC_IP, truncated_ip, "pass")                                \
	X(XS_C_BAD_IHL, bad_ihl, "pass")                                      \
	X(XS_C_BAD_IP_LEN, bad_ip_len, "pass")                                \
	X(XS_C_IP6_EXT_LIMIT, ipv6_ext_limit, "pass")                         \
	X(XS_C_IP6_MAPPED, ipv6_mapped_addr, "pass")                          \
	X(XS_C_TRUNC_L4, truncated_l4, "pass")                                \
	X(XS_C_NO_TARGETS, no_targets, "pass")                                \
	X(XS_C_TARGET_GONE, target_gone, "pass")                              \
	X(XS_C_REDIRECT_ERR, redirect_error, "pass")                          \
	X(XS_C_FRAGMENT, fragment, "info")                                    \
	X(XS_C_FLOW_HIT, flow_hit, "info")                                    \
	X(XS_C_FLOW_NEW, flow_new, "info")                                    \
	X(XS_C_FLOW_REPIN, flow_repin, "info")                                \
	X(XS_C_FLOW_EXPIRED, flow_expired, "info")                            \
	X(XS_C_PIN_LIMITED, pin_rate_limited, "info")                         \
	X(XS_C_NOT_VIP, not_vip, "pass")                                      \
	X(XS_C_NO_BACKEND, no_backend, "pass")                                \
	X(XS_C_TOO_BIG, too_big, "drop")                                      \
	X(XS_C_FIB_FAIL, fib_fail, "pass")                                    \
	X(XS_C_NO_NEIGH, no_neigh, "pass")                                    \
	X(XS_C_ENCAP_ERR, encap_error, "pass")                                \
	X(XS_C_ICMP_ECHO, icmp_echo_reply, "tx")                              \
	X(XS_C_ICMP_ERROR, icmp_error_steered, "info")                        \
	X(XS_C_ICMP_BAD_QUOTE, icmp_bad_quote, "info")                        \
	X(XS_C_TX, tx, "info")                                                \
	X(XS_C_TX_REDIRECT, tx_redirect, "info")                              \
	X(XS_C_RECIPE_MADE, recipe_made, "info")                              \
	X(XS_C_ICMP_ECHO_PASS, icmp_echo_passed, "pass")                      \
	X(XS_C_ICMP_TOO_BIG, icmp_too_big_sent, "tx")                         \
	X(XS_C_ICMP_LIMITED, icmp_rate_limited, "info")                       \
	X(XS_C_QUIC_CID, quic_cid_routed, "info")                             \
	X(XS_C_SECOND_HOP, second_hop, "info")

#define XS_COUNTER_ENUM(e, name, kind) e,
enum xs_counter { XS_COUNTERS(XS_COUNTER_ENUM) XS_C_MAX };
#undef XS_COUNTER_ENUM

/*
 * xs_counters value: one CPU's counters, in enum order, a field each, so that
 * `bpftool map dump` shows every CPU's counters by name. The program counts
 * into it by enum index (xs_count()).
 */
#define XS_COUNTER_FIELD(e, name, kind) __u64 name;
struct xs_counter_block {
	XS_COUNTERS(XS_COUNTER_FIELD)
};
#undef XS_COUNTER_FIELD
_Static_assert(sizeof(struct xs_counter_block) == XS_C_MAX * sizeof(__u64),
	       "one u64 per counter, in enum order");

/*
 * How a cached service flow is sent: everything the encapsulation or the L2
 * rewrite needs from the service, the backend and its next hop, written by
 * the packet that placed or refreshed the flow. A hit that finds it current
 * (ready, and made in the configuration epoch that still holds: xs_epoch)
 * looks none of them up again. The next hop in it is as fresh as the flow's
 * last trip the long way, at most cfg_timeouts.refresh ago.
 */
struct xs_recipe {
	/* In Ethernet header order, at the start: copied as three words (xs_set_macs()). */
	__u8 dmac[6];
	__u8 smac[6];
	__u32 ifindex;       /* egress: XDP_TX when it is the ingress */
	__u8 saddr[16] XS_ADDR;  /* ipip: this flow's outer source (IPv4 in saddr[0..3]) */
	__u8 daddr[16] XS_ADDR;  /* ipip: the backend (IPv4 in daddr[0..3]) */
	__u32 label;         /* ipip over IPv6: the outer flow label */
	__u16 mtu;           /* route MTU towards the backend */
	enum xs_encap encap;
	enum xs_family family;   /* the backend's, so the outer header's */
	__u32 epoch;         /* xs_epoch when it was made */
	_Bool ready;         /* false until made for the flow the entry holds */
	__u8 pad;
	_Bool quic;          /* the service's quic: a packet's connection id may send it elsewhere */
	__u8 pad2;
};
_Static_assert(sizeof(struct xs_recipe) == 64, "xs_recipe keeps its layout");

/*
 * xs_flow_cache (a block per CPU) value: a direct-mapped copy of recent pins,
 * so an established flow costs an inlined array load instead of an LRU
 * hash lookup. XS_FLOW_CACHE_SLOTS entries per CPU, 128 bytes (two cache
 * lines) each: the pin, then how a service flow is sent.
 */
#ifndef XS_FLOW_CACHE_SLOTS
#define XS_FLOW_CACHE_SLOTS 8192 /* the default; attach --flow-cache-size */
#endif
#define XS_FLOW_CACHE_MAX_SLOTS (1U << 20) /* 128 MiB per CPU */
struct xs_flow_cache_entry {
	struct xs_flow_key key;  /* the packet's own key, as parsed */
	struct xs_flow_pin pin;  /* pin.seen: when the LRU was last refreshed from here */
	__u32 pool;              /* pool the flow was placed in: 0 queues, else the service id */
	struct xs_recipe recipe; /* service flows */
};

/*
 * xs_nexthops (a block per CPU, by target id): a backend's next hop as
 * bpf_fib_lookup() last found it. A FIB lookup costs about 95 ns, more than
 * the rest of an established packet, so each CPU looks a backend up again
 * only every XS_NEXTHOP_TTL_NS (and whenever the backend's uid changes).
 */
#define XS_NEXTHOP_TTL_NS 200000000ULL /* 200 ms: how late a changed neighbour or route is seen */
struct xs_nexthop {
	/* In Ethernet header order, at the start: copied as three words (xs_set_macs()). */
	__u8 dmac[6];
	__u8 smac[6];
	__u32 ifindex;
	__u32 uid;           /* the backend's uid when looked up */
	__u16 mtu;           /* route MTU towards the backend */
	__u16 pad;
	__u64 expires;       /* bpf_ktime_get_coarse_ns() */
};

/*
 * xs_pin_budget and xs_icmp_budget (per-CPU): token buckets for new pins and
 * for ICMP "too big" answers. Above the pin rate (--pin-rate, per CPU) new
 * flows are steered without a pin, so a flood of new flows cannot evict
 * established pins from the LRU faster than that. credit is in nanotoken
 * units (1e9 per token).
 */
struct xs_pin_budget {
	__u64 credit;
	__u64 last_ns;
};

/*
 * The layout of the pinned maps. `xdpsteer upgrade` compares every map's
 * type, sizes and BTF types before it swaps programs; bump this when a map
 * keeps its shape but changes its meaning, so that an upgrade across the
 * change is refused too.
 */
#define XS_LAYOUT_VERSION 1
#define XS_VERSION_LEN 48

/* xs_build value: which build made the running program (attach), and upgrades since. */
struct xs_build {
	char version[XS_VERSION_LEN];	/* `xdpsteer version` of the running program's build */
	char previous[XS_VERSION_LEN];	/* the version the last upgrade replaced; "" if none */
	__u32 layout;			/* XS_LAYOUT_VERSION of the build that attached */
	__u32 upgrades;			/* upgrades since attach */
};

/* xs_self value: facts only known after load, written once by attach. */
struct xs_self {
	__u32 cpumap_id;     /* filters xdp:xdp_cpumap_enqueue to our own cpumap */
	__u32 n_services;    /* 0: skip the service lookup altogether */
	__u32 pool_base;     /* 0 or XS_MAX_POOLS: the live generation of pools and services */
	__u32 pad;
	struct xs_timeouts timeouts; /* as attached (the program's own copy is in rodata) */
};

/* xs_vips value: how many services use the address (echo replies, local checks). */
struct xs_vip {
	__u32 services;
};

/* Compile-time configuration of one attachment (BPF rodata). */
#define XS_DEFAULT_FLOW_ENTRIES 65536

#endif /* XDPSTEER_H */
