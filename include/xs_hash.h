/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The flow key and the keyed flow hash, shared by the XDP program and the
 * CLI so that `xdpsteer lookup` computes exactly what the kernel computes.
 *
 * Hash: SipHash-1-3 with a 128-bit key (the "seed"). It is a keyed PRF: an
 * attacker who does not know the seed cannot predict which tuples collide,
 * so sweeping source ports cannot pile flows onto one target. The README has
 * the measurements behind the choice (cost against HalfSipHash and jhash).
 *
 * Canonical input: struct xs_flow_key, 40 bytes, read as five little-endian
 * 64-bit words (x86, arm64 and BPF on either are little-endian; the build
 * refuses a big-endian target, below). Fields not selected by the field mask are zero.
 */
#ifndef XS_HASH_H
#define XS_HASH_H

/* x86 and arm64 are little-endian; a big-endian target would hash otherwise. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "xdpsteer reads the flow key and writes outer headers as little-endian words: build for a little-endian target"
#endif

#include "xs_common.h"

/* Which fields of the flow key feed a hash (xs_pool_hdr.flow_fields/hand_fields). */
enum xs_field {
	XS_F_SRC = 1 << 0,
	XS_F_DST = 1 << 1,
	XS_F_SPORT = 1 << 2,
	XS_F_DPORT = 1 << 3,
	XS_F_PROTO = 1 << 4,
};
#define XS_F_ALL (XS_F_SRC | XS_F_DST | XS_F_SPORT | XS_F_DPORT | XS_F_PROTO)
#define XS_F_DEFAULT_FLOW XS_F_ALL
#define XS_F_DEFAULT_HAND XS_F_SRC

/* Domain separator in xs_flow_key.domain: a hand hash never equals a flow hash. */
enum XS_ENUM8 xs_domain {
	XS_DOMAIN_FLOW = 0,
	XS_DOMAIN_HAND = 1,
};

/* The IP protocols the data path tells apart; any other number is kept as it is. */
enum XS_ENUM8 xs_ip_proto {
	XS_IPPROTO_ANY = 0,     /* a VIP's xs_vips key, which is for every protocol */
	XS_IPPROTO_ICMP = 1,
	XS_IPPROTO_TCP = 6,
	XS_IPPROTO_UDP = 17,
	XS_IPPROTO_ICMPV6 = 58,
};

/*
 * Addresses are in network byte order. IPv4 is stored IPv4-mapped
 * (::ffff:a.b.c.d), so one key format and one hash serve both families.
 * Ports are in network byte order; for ICMP, non-first or first fragments and
 * protocols without ports they are zero.
 */
struct xs_flow_key {
	__u8 src[16] XS_ADDR;
	__u8 dst[16] XS_ADDR;
	__be16 sport;
	__be16 dport;
	enum xs_ip_proto proto;
	enum xs_domain domain;
	__u8 pad[2];
};

#define XS_FLOW_KEY_WORDS (sizeof(struct xs_flow_key) / 8)
_Static_assert(sizeof(struct xs_flow_key) == 40, "flow key is 5 words");

#define XS_ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))
#define XS_SIPROUND(v0, v1, v2, v3)                                                    \
	do {                                                                           \
		v0 += v1; v1 = XS_ROTL64(v1, 13); v1 ^= v0; v0 = XS_ROTL64(v0, 32);     \
		v2 += v3; v3 = XS_ROTL64(v3, 16); v3 ^= v2;                             \
		v0 += v3; v3 = XS_ROTL64(v3, 21); v3 ^= v0;                             \
		v2 += v1; v1 = XS_ROTL64(v1, 17); v1 ^= v2; v2 = XS_ROTL64(v2, 32);     \
	} while (0)

struct xs_sip_state {
	__u64 v0, v1, v2, v3;
};

XS_INLINE void xs_sip_init(struct xs_sip_state *s, __u64 k0, __u64 k1)
{
	s->v0 = k0 ^ 0x736f6d6570736575ULL;
	s->v1 = k1 ^ 0x646f72616e646f6dULL;
	s->v2 = k0 ^ 0x6c7967656e657261ULL;
	s->v3 = k1 ^ 0x7465646279746573ULL;
}

/* One compression round per word: the "1" of SipHash-1-3. */
XS_INLINE void xs_sip_word(struct xs_sip_state *s, __u64 m)
{
	__u64 v0 = s->v0, v1 = s->v1, v2 = s->v2, v3 = s->v3;

	v3 ^= m;
	XS_SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	s->v0 = v0; s->v1 = v1; s->v2 = v2; s->v3 = v3;
}

/* Three finalization rounds: the "3" of SipHash-1-3. */
XS_INLINE __u64 xs_sip_final(struct xs_sip_state *s)
{
	__u64 v0 = s->v0, v1 = s->v1, v2 = s->v2, v3 = s->v3;

	v2 ^= 0xff;
	XS_SIPROUND(v0, v1, v2, v3);
	XS_SIPROUND(v0, v1, v2, v3);
	XS_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/*
 * SipHash-1-3 of @nwords little-endian words (a message of nwords * 8 bytes).
 * Whole words only: the flow key is always 40 bytes, so the tail block is just
 * the length byte.
 */
XS_INLINE __u64 xs_siphash13_words(__u64 k0, __u64 k1, const void *m, __u32 nwords)
{
	struct xs_sip_state s;
	__u64 last = (__u64)(nwords * 8) << 56, w;
	__u32 i;

	xs_sip_init(&s, k0, k1);
	for (i = 0; i < nwords; i++) {
		/* memcpy, not a cast: the key is written as a struct and read as
		 * words, which C's aliasing rules only allow through memcpy. */
		__builtin_memcpy(&w, (const unsigned char *)m + 8 * i, sizeof(w));
		xs_sip_word(&s, w);
	}
	xs_sip_word(&s, last);
	return xs_sip_final(&s);
}

/* Copy of @in with the fields not in @fields zeroed and the domain set. */
XS_INLINE void xs_flow_key_mask(struct xs_flow_key *out, const struct xs_flow_key *in,
				__u8 fields, __u8 domain)
{
	__u32 i;

	for (i = 0; i < 4; i++) {
		XS_W32(out->src, i) = (fields & XS_F_SRC) ? XS_W32C(in->src, i) : 0;
		XS_W32(out->dst, i) = (fields & XS_F_DST) ? XS_W32C(in->dst, i) : 0;
	}
	out->sport = (fields & XS_F_SPORT) ? in->sport : 0;
	out->dport = (fields & XS_F_DPORT) ? in->dport : 0;
	out->proto = (fields & XS_F_PROTO) ? in->proto : 0;
	out->domain = domain;
	out->pad[0] = 0;
	out->pad[1] = 0;
}

/*
 * The key a flow is pinned under in xs_flows: its flow key masked by its
 * pool's fields, with the pool's id in the pad bytes, which no hash reads
 * (xs_flow_key_mask() zeroes them). Without the id, two pools whose fields
 * leave out what tells their flows apart (port-only services on one port,
 * source-only ones) would share pins, and a flow of one pool would be sent
 * to a target of the other.
 */
XS_INLINE void xs_flow_pin_key(struct xs_flow_key *out, const struct xs_flow_key *in,
			       __u8 fields, __u32 pool)
{
	xs_flow_key_mask(out, in, fields, XS_DOMAIN_FLOW);
	out->pad[0] = (__u8)pool;
	out->pad[1] = (__u8)(pool >> 8);
}

/* The 64-bit value fed to jump or to the tie-break: SipHash-1-3(seed, masked key). */
XS_INLINE __u64 xs_flow_hash(const __u64 seed[2], const struct xs_flow_key *key, __u8 fields,
			     __u8 domain)
{
	struct xs_flow_key masked;

	xs_flow_key_mask(&masked, key, fields, domain);
	return xs_siphash13_words(seed[0], seed[1], &masked, XS_FLOW_KEY_WORDS);
}

/*
 * Cheap 64-bit bijective mixer (MurmurHash3 fmix64). Used only to derive
 * independent sub-keys from a SipHash output, never on attacker input alone.
 */
XS_INLINE __u64 xs_mix64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* XS_HASH_H */
