/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The backend-side decapsulation program (bpf/xs_decap.bpf.c) and the CLI's
 * `xdpsteer decap ...` share these: the local-address key and the counters.
 */
#ifndef XS_DECAP_H
#define XS_DECAP_H

#include "xs_common.h"

/* xs_decap_addrs key: an address of this host (IPv4 stored IPv4-mapped). */
struct xs_decap_addr {
	__u8 addr[16] XS_ADDR;
};

#define XS_DECAP_COUNTERS(X)                                                   \
	X(XS_D_IPIP, ipip, "decapsulated: IPv4 in IPv4")                     \
	X(XS_D_4IN6, ipv4_in_ipv6, "decapsulated: IPv4 in IPv6")             \
	X(XS_D_6IN6, ip6ip6, "decapsulated: IPv6 in IPv6")                   \
	X(XS_D_GUE, gue, "decapsulated: GUE (IPv4 or IPv6 in UDP)")         \
	X(XS_D_GUE_OTHER, gue_other, "passed: GUE control, other version or inner") \
	X(XS_D_NOT_TUNNEL, not_tunnel, "passed: not IPIP, IPv6 or GUE tunnel traffic") \
	X(XS_D_NOT_LOCAL, not_local, "passed: tunnel to an address not ours") \
	X(XS_D_FRAGMENT, outer_fragment, "passed: fragmented outer packet")  \
	X(XS_D_MALFORMED, malformed, "passed: cut short or bad header")      \
	X(XS_D_ERROR, error, "passed: could not strip the header")            \
	X(XS_D_HOP_LOCAL, hop_local, "second chance: a SYN or a connection of ours: delivered") \
	X(XS_D_HOP_NOT_TCP, hop_not_tcp, "second chance: not TCP, not checked: delivered") \
	X(XS_D_HOP_FORWARD, hop_forwarded, "second chance: no connection: sent to the next hop") \
	X(XS_D_HOP_FORWARD_STACK, hop_forwarded_stack, \
	  "second chance: no connection: to the next hop through the stack (no neighbour yet)") \
	X(XS_D_LAST_HOP, last_hop, "second chance: at the last hop, a connection of ours: delivered") \
	X(XS_D_LAST_HOP_NO_SOCKET, last_hop_no_socket, \
	  "second chance: at the last hop, no connection: delivered (the stack resets it)")

#define XS_DECAP_ENUM(e, name, help) e,
enum xs_decap_counter { XS_DECAP_COUNTERS(XS_DECAP_ENUM) XS_D_MAX };
#undef XS_DECAP_ENUM

/*
 * xs_decap_counters value (per CPU, one entry): a field per counter, in enum
 * order, so `bpftool map dump` names each. The program counts by enum index.
 */
#define XS_DECAP_FIELD(e, name, help) __u64 name;
struct xs_decap_counter_block {
	XS_DECAP_COUNTERS(XS_DECAP_FIELD)
};
#undef XS_DECAP_FIELD
_Static_assert(sizeof(struct xs_decap_counter_block) == XS_D_MAX * sizeof(__u64),
	       "one u64 per decap counter, in enum order");

#endif /* XS_DECAP_H */
