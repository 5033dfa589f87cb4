/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * `xdpsteer trace`: the filter the CLI writes (xs_trace_filter) and the
 * record the XDP program emits through a ring buffer (xs_trace_ring) for
 * each traced decision. Shared by bpf/xs_trace.h and user/lib/trace.c.
 */
#ifndef XS_TRACE_REC_H
#define XS_TRACE_REC_H

#include "xdpsteer.h"

#define XS_TRACE_SNAP 128        /* bytes of the packet as received (pcap) */
#define XS_TRACE_OUT 128         /* bytes after the decision: the outer headers written */
#define XS_TRACE_RING_BYTES (1U << 20)
_Static_assert(!(XS_TRACE_SNAP & (XS_TRACE_SNAP - 1)) && !(XS_TRACE_OUT & (XS_TRACE_OUT - 1)),
	       "the copies are masked to a power of two (bpf/xs_trace.h)");
#define XS_TRACE_DEFAULT_RATE 1000 /* records per second per CPU */
_Static_assert(XS_C_MAX <= 64, "a trace record's reasons are a 64-bit mask of counters");

/* Which parts of struct xs_trace_filter a packet must match. */
enum xs_trace_field {
	XS_TF_SERVICE = 1 << 0,  /* vip, port (0: any), proto */
	XS_TF_CLIENT = 1 << 1,   /* the source address under client_mask */
	XS_TF_BACKEND = 1 << 2,  /* the decision's target id */
	XS_TF_REASON = 1 << 3,   /* one of the counters in reasons moved */
};

/* xs_trace_filter value: all zero when nobody traces. */
struct xs_trace_filter {
	__u32 owner;         /* pid of the tracing `xdpsteer trace`; 0 none */
	__u32 fields;        /* enum xs_trace_field */
	__u8 vip[16] XS_ADDR;
	__u8 client[16] XS_ADDR;      /* already masked */
	__u8 client_mask[16] XS_ADDR;
	__be16 port;
	enum xs_ip_proto proto;
	__u8 pad;
	__u32 backend;       /* target id */
	__u64 reasons;       /* bit c: counter c (enum xs_counter) */
	__u32 sample;        /* one record for every N matching packets, per CPU (0, 1: all) */
	__u32 rate;          /* at most this many records per second per CPU (0: no cap) */
};

/* Decision in one word: the pool (0 queues, else the service id) and the target id. */
#define XS_TRACE_DEC(pool, target) (((__u64)(pool) << 32) | (__u32)(target))
#define XS_TRACE_NONE XS_TRACE_DEC(XS_NO_TARGET, XS_NO_TARGET)

/* xs_trace_ring record: one decision. */
struct xs_trace_rec {
	__u64 ts_ns;         /* bpf_ktime_get_ns() */
	__u64 reasons;       /* bit c: counter c (enum xs_counter) moved for this packet */
	struct xs_flow_key key;  /* as parsed: what the decision hashed */
	__u32 cpu;
	__u32 verdict;       /* XDP_PASS, XDP_TX, XDP_REDIRECT, XDP_DROP */
	__u32 pool;          /* 0 queues, else the service id; XS_NO_TARGET none chosen */
	__u32 target;        /* target id, XS_NO_TARGET none */
	__u32 ifindex;       /* ingress */
	__u32 pkt_len;       /* the frame as received */
	__u32 out_len;       /* the frame as sent (encapsulation grows it) */
	__u16 cap_len;       /* bytes of data[] */
	__u16 out_cap;       /* bytes of out[] */
	__u32 lost;          /* records this CPU dropped before this one (rate cap, full ring) */
	__u32 pad;
	__u8 data[XS_TRACE_SNAP];
	__u8 out[XS_TRACE_OUT];
};

#endif /* XS_TRACE_REC_H */
