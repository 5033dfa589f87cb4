/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * GUE delivery (--encap gue): the wire format both sides agree on. The load
 * balancer writes [outer IPv4 or IPv6][UDP][GUE][inner IP packet]
 * (bpf/xs_encap.h); the backend's decap program strips the first three
 * (bpf/xs_decap.bpf.c). GUE is "Generic UDP Encapsulation" (T. Herbert,
 * L. Yong, O. Zia, IETF draft-ietf-intarea-gue), version 0: a 4-byte base
 * header whose proto/ctype field names the inner protocol, 4 (IPv4) or
 * 41 (IPv6), as in an IP header's protocol field.
 */
#ifndef XS_GUE_H
#define XS_GUE_H

#include "xs_common.h"

/*
 * The UDP destination port: no port is assigned to GUE. 19523 is the one
 * GitHub's GLB director uses for GUE (9886 is Katran's, for GUE without a
 * base header). Per interface: `attach --gue-port` and `decap attach
 * --gue-port` must agree.
 */
#define XS_DEFAULT_GUE_PORT 19523

/*
 * The UDP source port is the flow's: XS_GUE_SPORT_BASE plus 14 bits of the
 * flow hash, the IANA dynamic range 49152-65535, so a backend's RSS and any
 * ECMP on the way spread flows and keep each flow's packets together.
 */
#define XS_GUE_SPORT_BASE 0xc000
#define XS_GUE_SPORT_MASK 0x3fff

/* The GUE base header. ver_c_hlen: version (2 bits), C (control), Hlen (5 bits, words). */
struct xs_gue_hdr {
	__u8 ver_c_hlen;
	__u8 proto;          /* inner protocol: 4 (IPv4) or 41 (IPv6) */
	__be16 flags;
};

#define XS_GUE_VER_MASK 0xc0
#define XS_GUE_C_BIT 0x20
#define XS_GUE_HLEN_MASK 0x1f

/* Bytes after the outer IP header and before the inner packet: UDP, then GUE's base header. */
#define XS_GUE_OVERHEAD (8 + sizeof(struct xs_gue_hdr))

/*
 * Second chance: the hop list, in GUE's private data. The base header's
 * flags are 0 (no optional fields), so everything its Hlen counts is private
 * data (draft-ietf-intarea-gue, "Private data"): this word, then n_hops
 * addresses of the outer header's family, 4 or 16 bytes each, in the order
 * the packet is to try them. hops[next] is the backend the packet is sent to
 * now; a backend that holds no connection for it sends it on to
 * hops[next + 1] with next + 1, and the last hop delivers whatever comes.
 * The load balancer sends two hops, next 0: the backend chosen now, then
 * the one the pool's previous generation chose (docs/design.md).
 */
struct xs_gue_hops {
	__u8 kind;           /* XS_GUE_PRIV_HOPS */
	__u8 family;         /* 4 or 6: the addresses', and the outer header's */
	__u8 n_hops;         /* 2..XS_GUE_MAX_HOPS */
	__u8 next;           /* index of the hop this packet is addressed to */
};

#define XS_GUE_PRIV_HOPS 0x58 /* 'X': xdpsteer's hop list */
#define XS_GUE_MAX_HOPS 2

/* Private data bytes of a two-hop list: the word above and two addresses. */
#define XS_GUE_HOPS4_LEN (sizeof(struct xs_gue_hops) + 2 * 4)
#define XS_GUE_HOPS6_LEN (sizeof(struct xs_gue_hops) + 2 * 16)

#endif /* XS_GUE_H */
