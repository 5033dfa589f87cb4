/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The userspace reference the fuzzer holds the XDP program to: what
 * xdpsteer_xdp() should do with one frame, written from the documented
 * behaviour (docs/design.md, docs/usage.md's counters), independently of the
 * program's code. It has its own parser, its own checksums and its own ICMP
 * rules, written to be obviously right rather than fast: bytes are read one
 * at a time by offset, every length is checked against the datagram and the
 * frame, and every checksum is computed from scratch. Only the decision
 * (which target a flow key goes to: xs_decide(), the code `xdpsteer lookup`
 * runs and test_agree holds to the program) and the map types are shared.
 * The configuration (queue pool, services, their pools) is a snapshot taken
 * from the maps once, at start.
 *
 * An earlier reference was built on the program's own parser and echoed its
 * ICMP code; it agreed with the program's mistakes, and missed three of them
 * (docs/robustness.md, "Differential fuzzing").
 */
#ifndef XS_FUZZ_REF_H
#define XS_FUZZ_REF_H

#include <string.h>
#include <linux/bpf.h>
#include "decide.h"

#ifdef XS_PARSE_H
#error "the reference must not use the program's parser (include/xs_parse.h)"
#endif

#define REF_MAX_SERVICES 4
#define REF_ROUTE_MTU 1500   /* MTU of lbA, where every backend lives */
#define REF_QUOTE 128        /* bytes of a packet quoted in an ICMP "too big" */

struct ref_service {
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_pool pool;
};

struct ref_config {
	struct xs_pool queues;
	struct ref_service svc[REF_MAX_SERVICES];
	int n_svc;
	struct xs_target targets[XS_MAX_TARGETS]; /* by id, as xs_targets holds them */
	unsigned char lb_mac[6];                 /* lbA: source MAC towards backends */
	unsigned char be_mac[6];                 /* every backend's neighbour entry */
};

/* What the output frame must look like. */
enum ref_bytes {
	REF_SAME,    /* unchanged: pass, drop, queue redirect */
	REF_EXACT,   /* exactly ref_result.out (echo reply, L2 rewrite, ICMP "too big") */
	REF_TUNNEL,  /* new Ethernet + outer header, then the IP packet unchanged */
};

struct ref_result {
	int verdict;
	__u32 target;            /* target id charged a packet, XS_NO_TARGET for none */
	int flow_lookups;        /* flow_hit + flow_new must rise by this */
	__u64 counters[XS_C_MAX]; /* exact deltas of every other counter */
	enum ref_bytes bytes;
	unsigned char out[4096];
	__u32 out_len;
	__u32 outer;             /* REF_TUNNEL: outer IP header length */
	__u32 l3_off;
	__u8 inner_family;       /* REF_TUNNEL: 4 or 6 */
};

/* ---- checksums: the sum of the bytes, folded, from scratch ------------------ */

/* The ones' complement sum of @len bytes (an odd last byte padded): 0 only for zeros. */
static inline __u16 ref_sum(const unsigned char *b, __u32 len)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < len; i++)
		sum += i % 2 ? b[i] : (__u32)b[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

/* The Internet checksum of @len bytes: the complement of their sum. */
static inline __u16 ref_csum(const unsigned char *b, __u32 len)
{
	return (__u16)~ref_sum(b, len);
}

/* The sum of @a and @b in ones' complement arithmetic. */
static inline __u16 ref_add(__u16 a, __u16 b)
{
	__u32 s = (__u32)a + b;

	return (__u16)((s & 0xffff) + (s >> 16));
}

static inline __u32 ref_get16(const unsigned char *b)
{
	return (__u32)b[0] << 8 | b[1];
}

static inline void ref_put16(unsigned char *b, __u32 v)
{
	b[0] = (unsigned char)(v >> 8);
	b[1] = (unsigned char)v;
}

/* The ICMPv6 pseudo-header sum: source, destination, length, next header 58. */
static inline __u16 ref_sum_pseudo6(const unsigned char *src, const unsigned char *dst,
				    __u32 len)
{
	unsigned char ph[40];

	memset(ph, 0, sizeof(ph));
	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	ph[32] = (unsigned char)(len >> 24);
	ph[33] = (unsigned char)(len >> 16);
	ph[34] = (unsigned char)(len >> 8);
	ph[35] = (unsigned char)len;
	ph[39] = 58;
	return ref_sum(ph, sizeof(ph));
}

/* ---- the parser -------------------------------------------------------------- */

enum ref_icmp {
	REF_ICMP_NONE,
	REF_ICMP_ECHO,      /* echo request */
	REF_ICMP_ERROR,     /* frag needed / packet too big with a whole quote */
	REF_ICMP_BAD_QUOTE, /* the same with a quote cut short or malformed */
};

/* What the reference knows of a frame. */
struct ref_pkt {
	__u32 l3;           /* offset of the IP header */
	int family;         /* 4 or 6 */
	__u32 ip_len;       /* the datagram: IP header and payload, as its length fields say */
	__u32 l4;           /* offset of the transport header (when there is one) */
	__u8 proto;         /* the packet's own protocol, after IPv6 extension headers */
	int is_frag;
	int v6_ext;         /* IPv6 with extension headers before the transport */
	int icmp;           /* enum ref_icmp */
	struct xs_flow_key key;
};

static inline void ref_v4_mapped(__u8 *a, const unsigned char *b)
{
	memset(a, 0, 16);
	((unsigned char *)a)[10] = 0xff;
	((unsigned char *)a)[11] = 0xff;
	memcpy((unsigned char *)a + 12, b, 4);
}

static inline int ref_is_mapped(const unsigned char *a)
{
	static const unsigned char prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a, prefix, sizeof(prefix));
}

static inline int ref_has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP;
}

/*
 * An ICMP error's quote (@q, @n bytes of it inside the datagram): the packet
 * a backend sent, VIP:port -> client:port. Reversed, it is the client's flow.
 * 0, or -1 for a quote that is cut short or not the IP version it should be.
 */
static inline int ref_quote(const unsigned char *q, __u32 n, int family, struct xs_flow_key *k)
{
	__u32 hl;

	memset(k, 0, sizeof(*k));
	if (family == 4) {
		if (n < 20 || q[0] >> 4 != 4 || (q[0] & 0xf) < 5)
			return -1;
		hl = (q[0] & 0xf) * 4;
		ref_v4_mapped(k->src, q + 16);
		ref_v4_mapped(k->dst, q + 12);
		k->proto = q[9];
	} else {
		/* IPv4-mapped addresses never appear in IPv6 headers (RFC 4291). */
		if (n < 40 || q[0] >> 4 != 6 || ref_is_mapped(q + 8) || ref_is_mapped(q + 24))
			return -1;
		hl = 40;
		memcpy(k->src, q + 24, 16);
		memcpy(k->dst, q + 8, 16);
		k->proto = q[6];
	}
	if (!ref_has_ports(k->proto))
		return 0;
	if (n < hl + 4)
		return -1;
	memcpy(&k->sport, q + hl + 2, 2);
	memcpy(&k->dport, q + hl, 2);
	return 0;
}

/*
 * The transport header at @off, @avail bytes of it inside the datagram (and
 * so inside the frame). XS_C_MAX when keyed, else the counter that says why not.
 */
static inline int ref_transport(const unsigned char *b, __u32 off, long avail, struct ref_pkt *p)
{
	__u32 need;

	if (avail < 0)
		avail = 0;
	p->l4 = off;
	if ((p->proto == IPPROTO_ICMP && p->family == 4) ||
	    (p->proto == IPPROTO_ICMPV6 && p->family == 6)) {
		const unsigned char *h = b + off;
		struct xs_flow_key q;

		if (avail < 8)
			return XS_C_TRUNC_L4;
		if ((p->family == 4 && h[0] == 8) || (p->family == 6 && h[0] == 128)) {
			p->icmp = REF_ICMP_ECHO;
		} else if ((p->family == 4 && h[0] == 3 && h[1] == 4) ||
			   (p->family == 6 && h[0] == 2)) {
			if (ref_quote(h + 8, (__u32)avail - 8, p->family, &q)) {
				p->icmp = REF_ICMP_BAD_QUOTE;
			} else {
				p->icmp = REF_ICMP_ERROR;
				p->key = q;
			}
		}
		return XS_C_MAX;
	}
	if (!ref_has_ports(p->proto))
		return XS_C_MAX;
	need = p->proto == IPPROTO_TCP ? 20 : p->proto == IPPROTO_UDP ? 8 : 12;
	if (avail < need)
		return XS_C_TRUNC_L4;
	memcpy(&p->key.sport, b + off, 2);
	memcpy(&p->key.dport, b + off + 2, 2);
	return XS_C_MAX;
}

static inline int ref_ipv4(const unsigned char *b, __u32 len, struct ref_pkt *p)
{
	const unsigned char *ip = b + p->l3;
	__u32 hl, tot;

	if (len - p->l3 < 20)
		return XS_C_TRUNC_IP;
	if (ip[0] >> 4 != 4 || (ip[0] & 0xf) < 5)
		return XS_C_BAD_IHL;
	hl = (ip[0] & 0xf) * 4;
	if (len - p->l3 < hl)
		return XS_C_TRUNC_IP;
	tot = ref_get16(ip + 2);
	if (tot < hl || tot > len - p->l3)
		return XS_C_BAD_IP_LEN;
	p->family = 4;
	p->ip_len = tot;
	p->proto = ip[9];
	ref_v4_mapped(p->key.src, ip + 12);
	ref_v4_mapped(p->key.dst, ip + 16);
	p->key.proto = ip[9];
	if (ref_get16(ip + 6) & 0x3fff) { /* MF or an offset: a fragment, keyed without ports */
		p->is_frag = 1;
		return XS_C_MAX;
	}
	return ref_transport(b, p->l3 + hl, (long)tot - hl, p);
}

static inline int ref_ipv6(const unsigned char *b, __u32 len, struct ref_pkt *p)
{
	const unsigned char *ip = b + p->l3;
	__u32 off, end, n;
	__u8 next;

	if (len - p->l3 < 40)
		return XS_C_TRUNC_IP;
	if (ip[0] >> 4 != 6)
		return XS_C_BAD_IHL;
	if (40 + ref_get16(ip + 4) > len - p->l3)
		return XS_C_BAD_IP_LEN;
	if (ref_is_mapped(ip + 8) || ref_is_mapped(ip + 24))
		return XS_C_IP6_MAPPED;
	p->family = 6;
	p->ip_len = 40 + ref_get16(ip + 4);
	memcpy(p->key.src, ip + 8, 16);
	memcpy(p->key.dst, ip + 24, 16);
	end = p->l3 + p->ip_len;
	off = p->l3 + 40;
	next = ip[6];
	/* At most 8 extension headers are walked; the transport must come by the 8th step. */
	for (n = 0; n < 8; n++) {
		if (next == 0 || next == 43 || next == 60) { /* hop-by-hop, routing, dest opts */
			if (off + 2 > end)
				return XS_C_TRUNC_IP;
			next = b[off];
			off += (b[off + 1] + 1) * 8;
			p->v6_ext = 1;
			continue;
		}
		if (next == 44) { /* fragment: keyed without ports */
			if (off + 8 > end)
				return XS_C_TRUNC_IP;
			p->proto = b[off];
			p->key.proto = b[off];
			p->is_frag = 1;
			return XS_C_MAX;
		}
		p->proto = next;
		p->key.proto = next;
		return ref_transport(b, off, (long)end - (long)off, p);
	}
	return XS_C_IP6_EXT_LIMIT;
}

/* XS_C_MAX with @p filled in, or the counter that says why the frame is not keyed. */
static inline int ref_parse(const unsigned char *b, __u32 len, struct ref_pkt *p)
{
	__u32 type, off = 12, tags;

	memset(p, 0, sizeof(*p));
	if (len < 14)
		return XS_C_TRUNC_ETH;
	type = ref_get16(b + off);
	for (tags = 0; type == 0x8100 || type == 0x88a8; tags++) {
		if (tags == 2)
			return XS_C_VLAN_TOO_DEEP;
		if (len < off + 2 + 4)
			return XS_C_TRUNC_ETH;
		off += 4;
		type = ref_get16(b + off);
	}
	p->l3 = off + 2;
	if (type == 0x0800)
		return ref_ipv4(b, len, p);
	if (type == 0x86dd)
		return ref_ipv6(b, len, p);
	return XS_C_NOT_IP;
}

/* ---- what the program does with a keyed frame ---------------------------------- */

static inline const struct ref_service *ref_find_service(const struct ref_config *c,
							 const __u8 *vip, __be16 port, __u8 proto)
{
	struct xs_service_key k;
	int i;

	memset(&k, 0, sizeof(k));
	memcpy(k.vip, vip, sizeof(k.vip));
	k.port = port;
	k.proto = proto;
	for (i = 0; i < c->n_svc; i++)
		if (!memcmp(&c->svc[i].key, &k, sizeof(k)))
			return &c->svc[i];
	return NULL;
}

static inline int ref_is_vip(const struct ref_config *c, const __u8 *addr)
{
	int i;

	for (i = 0; i < c->n_svc; i++)
		if (!memcmp(c->svc[i].key.vip, addr, 16))
			return 1;
	return 0;
}

static inline void ref_swap_macs(unsigned char *o, const unsigned char *in)
{
	memcpy(o, in + 6, 6);
	memcpy(o + 6, in, 6);
}

/*
 * An echo request to a VIP: the load balancer answers it (MACs and addresses
 * swapped, TTL 64, type 0 or 129), XDP_TX, unless it carries IPv4 options
 * or IPv6 extension headers: then it goes up untouched, counted.
 *
 * The reply's checksum is what a recomputation gives, carrying over the
 * request's error if it had one (as any update must): E, the sum of the
 * request's message with its checksum, is 0xffff when it verifies; the
 * reply's checksum is the complement of the sum of its message plus ~E.
 */
static inline void ref_echo(const unsigned char *in, __u32 len, const struct ref_pkt *p,
			    struct ref_result *r)
{
	unsigned char *o = r->out, *ip = o + p->l3, *icmp, tmp[16];
	__u32 mlen = p->ip_len - (p->family == 4 ? 20 : 40);
	__u16 e, s;

	if ((p->family == 4 && (in[p->l3] & 0xf) != 5) || (p->family == 6 && p->v6_ext)) {
		r->verdict = XDP_PASS;
		r->counters[XS_C_ICMP_ECHO_PASS]++;
		return;
	}
	memcpy(o, in, len);
	r->out_len = len;
	ref_swap_macs(o, in);
	icmp = ip + (p->family == 4 ? 20 : 40);
	if (p->family == 4) {
		memcpy(tmp, ip + 12, 4);
		memcpy(ip + 12, ip + 16, 4);
		memcpy(ip + 16, tmp, 4);
		ip[8] = 64;
		ref_put16(ip + 10, 0);
		ref_put16(ip + 10, ref_csum(ip, 20));
		e = ref_sum(icmp, mlen);
		icmp[0] = 0;
		ref_put16(icmp + 2, 0);
		s = ref_sum(icmp, mlen);
	} else {
		memcpy(tmp, ip + 8, 16);
		memcpy(ip + 8, ip + 24, 16);
		memcpy(ip + 24, tmp, 16);
		ip[7] = 64;
		e = ref_add(ref_sum_pseudo6(ip + 8, ip + 24, mlen), ref_sum(icmp, mlen));
		icmp[0] = 129;
		ref_put16(icmp + 2, 0);
		s = ref_add(ref_sum_pseudo6(ip + 8, ip + 24, mlen), ref_sum(icmp, mlen));
	}
	ref_put16(icmp + 2, (__u16)~ref_add(s, (__u16)~e));
	r->verdict = XDP_TX;
	r->bytes = REF_EXACT;
	r->counters[XS_C_ICMP_ECHO]++;
}

/*
 * A packet too big for the tunnel, answered as a router would (the fuzz
 * environment has no ICMP rate limit): IPv4 with DF that is not a later
 * fragment, or IPv6, and not ICMP itself, gets "fragmentation needed" /
 * "packet too big" with @mtu: L2 with the MACs swapped (tags kept), an IP
 * header from the VIP to the client, the ICMP header, the first 128 bytes of
 * the packet. Anything else is dropped, counted too_big.
 */
static inline void ref_too_big(const unsigned char *in, const struct ref_pkt *p, __u32 mtu,
			       struct ref_result *r)
{
	const unsigned char *ip = in + p->l3;
	unsigned char *o = r->out, *nip, *icmp;
	__u32 hdr = p->family == 4 ? 20 : 40;
	int df_first = p->family == 6 || (ref_get16(ip + 6) & 0x5fff) == 0x4000;

	if (p->proto == IPPROTO_ICMP || p->proto == IPPROTO_ICMPV6 || !df_first ||
	    p->ip_len < REF_QUOTE) {
		r->verdict = XDP_DROP;
		r->counters[XS_C_TOO_BIG]++;
		return;
	}
	ref_swap_macs(o, in);
	memcpy(o + 12, in + 12, p->l3 - 12);
	nip = o + p->l3;
	memset(nip, 0, hdr + 8);
	icmp = nip + hdr;
	memcpy(icmp + 8, ip, REF_QUOTE);
	if (p->family == 4) {
		nip[0] = 0x45;
		ref_put16(nip + 2, 20 + 8 + REF_QUOTE);
		nip[8] = 64;
		nip[9] = IPPROTO_ICMP;
		memcpy(nip + 12, ip + 16, 4);
		memcpy(nip + 16, ip + 12, 4);
		ref_put16(nip + 10, ref_csum(nip, 20));
		icmp[0] = 3;
		icmp[1] = 4;
		ref_put16(icmp + 6, mtu);
		ref_put16(icmp + 2, ref_csum(icmp, 8 + REF_QUOTE));
	} else {
		nip[0] = 0x60;
		ref_put16(nip + 4, 8 + REF_QUOTE);
		nip[6] = IPPROTO_ICMPV6;
		nip[7] = 64;
		memcpy(nip + 8, ip + 24, 16);
		memcpy(nip + 24, ip + 8, 16);
		icmp[0] = 2;
		ref_put16(icmp + 4, mtu >> 16);
		ref_put16(icmp + 6, mtu & 0xffff);
		ref_put16(icmp + 2, (__u16)~ref_add(ref_sum_pseudo6(nip + 8, nip + 24, 8 + REF_QUOTE),
						     ref_sum(icmp, 8 + REF_QUOTE)));
	}
	r->out_len = p->l3 + hdr + 8 + REF_QUOTE;
	r->bytes = REF_EXACT;
	r->verdict = XDP_TX;
	r->counters[XS_C_ICMP_TOO_BIG]++;
}

/* A service's backend: L2 rewrite, or a tunnel when it fits the route MTU. */
static inline void ref_backend(const struct ref_config *c, const unsigned char *in, __u32 len,
			       const struct ref_pkt *p, const struct ref_service *s,
			       struct ref_result *r)
{
	const struct xs_target *be = &c->targets[r->target];

	if (s->svc.encap == XS_ENCAP_L2) {
		memcpy(r->out, in, len);
		memcpy(r->out, c->be_mac, 6);
		memcpy(r->out + 6, c->lb_mac, 6);
		r->out_len = len;
		r->bytes = REF_EXACT;
		r->verdict = XDP_TX;
		r->counters[XS_C_TX]++;
		return;
	}
	r->outer = be->family == 4 ? 20 : 40;
	if (p->ip_len + r->outer > REF_ROUTE_MTU) {
		ref_too_big(in, p, REF_ROUTE_MTU - r->outer, r);
		return;
	}
	r->verdict = XDP_TX;
	r->counters[XS_C_TX]++;
	r->bytes = REF_TUNNEL;
	r->l3_off = p->l3;
	r->inner_family = (__u8)p->family;
	r->out_len = len - p->l3 + 14 + r->outer;
}

/*
 * QUIC: the server id in a short-header packet's destination connection id
 * (first byte's top bit clear; the id's first two bits 01, then 16 bits of
 * server id), or 0. Only a UDP datagram, not a fragment, with the UDP header
 * and four bytes of QUIC inside it.
 */
static inline __u32 ref_quic_server_id(const unsigned char *b, const struct ref_pkt *p)
{
	const unsigned char *q = b + p->l4 + 8;

	if (p->proto != IPPROTO_UDP || p->is_frag || p->icmp != REF_ICMP_NONE ||
	    p->l3 + p->ip_len < p->l4 + 8 + 4)
		return 0;
	if (q[0] & 0x80 || q[1] >> 6 != 1)
		return 0;
	return (__u32)(q[1] & 0x3f) << 10 | (__u32)q[2] << 2 | q[3] >> 6;
}

static inline void ref_run(const struct ref_config *c, const unsigned char *in, __u32 len,
			   struct ref_result *r)
{
	const struct ref_service *s = NULL;
	const struct xs_pool *pool = &c->queues;
	struct xs_decision d;
	struct ref_pkt p;
	int err;

	memset(r->counters, 0, sizeof(r->counters));
	r->target = XS_NO_TARGET;
	r->flow_lookups = 0;
	r->bytes = REF_SAME;
	r->out_len = len;
	if (len > sizeof(r->out)) {
		r->verdict = -1;
		return;
	}
	err = ref_parse(in, len, &p);
	if (err != XS_C_MAX) {
		r->counters[err]++;
		r->verdict = XDP_PASS;
		return;
	}
	if (p.is_frag)
		r->counters[XS_C_FRAGMENT]++;
	if (p.icmp == REF_ICMP_BAD_QUOTE)
		r->counters[XS_C_ICMP_BAD_QUOTE]++;

	if (p.icmp == REF_ICMP_ECHO && ref_is_vip(c, p.key.dst)) {
		ref_echo(in, len, &p, r);
		return;
	}
	/* Echo requests to other addresses follow the queue pool, as any packet. */
	if (p.icmp != REF_ICMP_ECHO) {
		s = ref_find_service(c, p.key.dst, p.key.dport, p.key.proto);
		if (!s)
			s = ref_find_service(c, p.key.dst, 0, p.key.proto);
	}
	if (s) {
		pool = &s->pool;
		if (p.icmp == REF_ICMP_ERROR)
			r->counters[XS_C_ICMP_ERROR]++;
	}
	r->flow_lookups = 1;
	if (xs_decide(pool, NULL, &p.key, &d)) {
		r->flow_lookups = 0;  /* the fuzz pools always have a live bucket */
		r->verdict = -1;
		return;
	}
	r->target = d.target;
	/* The flow is looked up and pinned as any; a connection id then overrides it. */
	if (s && s->svc.quic) {
		__u32 sid = ref_quic_server_id(in, &p);

		if (sid && sid < XS_MAX_TARGETS && c->targets[sid].kind == XS_TARGET_BACKEND &&
		    c->targets[sid].active &&
		    c->targets[sid].service == s->svc.id) {
			r->target = sid;
			r->counters[XS_C_QUIC_CID]++;
		}
	}
	if (!s) {
		r->verdict = XDP_REDIRECT;
		return;
	}
	ref_backend(c, in, len, &p, s, r);
}

#endif /* XS_FUZZ_REF_H */
