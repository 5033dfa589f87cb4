/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The userspace reference the fuzzer holds the XDP program to: what
 * xdpsteer_xdp() should do with one frame, written from the documented
 * behaviour and computed with the same include/ code (xs_parse(), then the
 * decision through xs_decide()). Only the packet path is modelled; the
 * configuration (queue pool, services, their pools) is a snapshot taken
 * from the maps once, at start.
 */
#ifndef XS_FUZZ_REF_H
#define XS_FUZZ_REF_H

#include <string.h>
#include <linux/bpf.h>
#include "decide.h"
#include "xs_parse.h"

#define REF_MAX_SERVICES 4
#define REF_ROUTE_MTU 1500   /* MTU of lbA, where every backend lives */

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
	REF_EXACT,   /* exactly ref_result.out (echo reply, L2 rewrite) */
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

static inline const struct ref_service *ref_find_service(const struct ref_config *c,
							 const __be32 *vip, __be16 port, __u8 proto)
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

static inline int ref_is_vip(const struct ref_config *c, const __be32 *addr)
{
	int i;

	for (i = 0; i < c->n_svc; i++)
		if (!memcmp(c->svc[i].key.vip, addr, 16))
			return 1;
	return 0;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), for one 16-bit word m -> m'. */
static inline __u16 ref_csum_replace(__u16 hc, __u16 m, __u16 m2)
{
	__u32 sum = (__u16)~hc + (__u16)~m + m2;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

static inline __u16 ref_csum(const unsigned char *b, __u32 len)
{
	__u32 sum = 0, i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (__u32)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (__u32)(b[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/*
 * Echo request to a VIP: answered in place (MACs and addresses swapped,
 * TTL 64, type to reply with the checksum adjusted), XDP_TX. A request the
 * program will not answer goes up to the stack untouched.
 */
static inline void ref_echo(const unsigned char *in, __u32 len, const struct xs_parsed *p,
			    struct ref_result *r)
{
	unsigned char *o = r->out, tmp[16];
	__u32 l3 = p->l3_off;
	__u16 hc, m, m2;

	memcpy(o, in, len);
	r->out_len = len;
	if (p->family == 4) {
		unsigned char *icmp = o + l3 + 20;

		if ((o[l3] & 0xf) != 5) {
			r->verdict = XDP_PASS;  /* options: not answered here */
			r->bytes = REF_SAME;
			r->counters[XS_C_ICMP_ECHO_PASS]++;
			return;
		}
		memcpy(tmp, o + l3 + 12, 4);
		memcpy(o + l3 + 12, o + l3 + 16, 4);
		memcpy(o + l3 + 16, tmp, 4);
		o[l3 + 8] = 64;
		o[l3 + 10] = o[l3 + 11] = 0;
		hc = ref_csum(o + l3, 20);
		o[l3 + 10] = hc >> 8;
		o[l3 + 11] = hc & 0xff;
		{
			/* The reply carries the request's checksum error, if any: E is
			 * the sum of the request (0xffff when it verifies); the reply's
			 * checksum is recomputed with ~E added. */
			__u32 mlen = (__u32)(o[l3 + 2] << 8 | o[l3 + 3]) - 20;
			__u16 e = (__u16)~ref_csum(icmp, mlen);

			icmp[0] = 0;
			icmp[2] = icmp[3] = 0;
			hc = (__u16)~ref_csum(icmp, mlen); /* the sum of the reply */
			hc = ref_csum((const unsigned char[]){ hc >> 8, hc & 0xff,
							(__u8)(~e >> 8), (__u8)~e },
				      4);
			icmp[2] = hc >> 8;
			icmp[3] = hc & 0xff;
		}
		goto macs;
	} else {
		unsigned char *icmp = o + l3 + 40;

		if (o[l3 + 6] != IPPROTO_ICMPV6) {
			r->verdict = XDP_PASS;  /* extension headers: not answered here */
			r->bytes = REF_SAME;
			r->counters[XS_C_ICMP_ECHO_PASS]++;
			return;
		}
		memcpy(tmp, o + l3 + 8, 16);
		memcpy(o + l3 + 8, o + l3 + 24, 16);
		memcpy(o + l3 + 24, tmp, 16);
		o[l3 + 7] = 64;
		m = (__u16)(icmp[0] << 8 | icmp[1]);
		icmp[0] = 129;
	}
	{
		unsigned char *icmp = o + l3 + (p->family == 4 ? 20 : 40);

		m2 = (__u16)(icmp[0] << 8 | icmp[1]);
		hc = ref_csum_replace((__u16)(icmp[2] << 8 | icmp[3]), m, m2);
		icmp[2] = hc >> 8;
		icmp[3] = hc & 0xff;
	}
macs:
	memcpy(tmp, o, 6);
	memcpy(o, o + 6, 6);
	memcpy(o + 6, tmp, 6);
	r->verdict = XDP_TX;
	r->bytes = REF_EXACT;
	r->counters[XS_C_ICMP_ECHO]++;
}

/*
 * A packet too big for the tunnel (policy icmp, no rate limit in the fuzz
 * environment): IPv4 with DF and not a later fragment, or IPv6, and not
 * ICMP, gets "fragmentation needed" / "packet too big" with @mtu, built
 * from scratch: L2 with the MACs swapped, IP from the VIP to the client,
 * ICMP, 128 bytes of the packet. Anything else is dropped.
 */
static inline void ref_too_big(const unsigned char *in, const struct xs_parsed *p, __u32 mtu,
			       struct ref_result *r)
{
	const unsigned char *ip = in + p->l3_off;
	unsigned char *o = r->out, *nip, *icmp;
	__u32 l3 = p->l3_off, hdr = p->family == 4 ? 20 : 40, sum, i;
	int is_icmp = p->icmp != XS_ICMP_NONE || p->key.proto == IPPROTO_ICMP ||
		      p->key.proto == IPPROTO_ICMPV6;

	if (is_icmp || (p->family == 4 && ((ip[6] << 8 | ip[7]) & 0x5fff) != 0x4000)) {
		r->verdict = XDP_DROP;
		r->counters[XS_C_TOO_BIG]++;
		return;
	}
	memcpy(o, in + 6, 6);
	memcpy(o + 6, in, 6);
	memcpy(o + 12, in + 12, l3 - 12);
	nip = o + l3;
	memset(nip, 0, hdr + 8);
	icmp = nip + hdr;
	memcpy(icmp + 8, ip, 128);
	if (p->family == 4) {
		nip[0] = 0x45;
		nip[3] = 156;
		nip[8] = 64;
		nip[9] = IPPROTO_ICMP;
		memcpy(nip + 12, ip + 16, 4);
		memcpy(nip + 16, ip + 12, 4);
		sum = ref_csum(nip, 20);
		nip[10] = sum >> 8;
		nip[11] = sum & 0xff;
		icmp[0] = 3;
		icmp[1] = 4;
		icmp[6] = mtu >> 8;
		icmp[7] = mtu & 0xff;
		sum = ref_csum(icmp, 136);
	} else {
		unsigned char ph[40 + 136];

		nip[0] = 0x60;
		nip[5] = 136;
		nip[6] = IPPROTO_ICMPV6;
		nip[7] = 64;
		memcpy(nip + 8, ip + 24, 16);
		memcpy(nip + 24, ip + 8, 16);
		icmp[0] = 2;
		for (i = 0; i < 4; i++)
			icmp[4 + i] = (__u8)(mtu >> (24 - 8 * i));
		memset(ph, 0, sizeof(ph));
		memcpy(ph, nip + 8, 32);
		ph[35] = 136;
		ph[39] = IPPROTO_ICMPV6;
		memcpy(ph + 40, icmp, 136);
		sum = ref_csum(ph, sizeof(ph));
	}
	icmp[2] = sum >> 8;
	icmp[3] = sum & 0xff;
	r->out_len = l3 + hdr + 136;
	r->bytes = REF_EXACT;
	r->verdict = XDP_TX;
	r->counters[XS_C_ICMP_TOO_BIG]++;
}

/* A service's backend: L2 rewrite, or a tunnel unless it would exceed the route MTU. */
static inline void ref_backend(const struct ref_config *c, const unsigned char *in, __u32 len,
			       const struct xs_parsed *p, const struct ref_service *s,
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
	r->l3_off = p->l3_off;
	r->inner_family = p->family;
	r->out_len = len - p->l3_off + 14 + r->outer;
}

/*
 * The parser reads headers through struct pointers, as the BPF side must.
 * Drivers hand XDP a frame whose IP header is 4-byte aligned (NET_IP_ALIGN
 * headroom); the reference parses a copy placed the same way, so UBSan's
 * alignment check holds it to that.
 */
static inline void ref_run(const struct ref_config *c, const unsigned char *frame, __u32 len,
			   struct ref_result *r)
{
	static unsigned char aligned[2 + 4096] __attribute__((aligned(8)));
	const unsigned char *in = aligned + 2;
	const struct ref_service *s = NULL;
	const struct xs_pool *pool = &c->queues;
	struct xs_decision d;
	struct xs_parsed p;
	int err;

	memset(&p, 0, sizeof(p));
	memset(r->counters, 0, sizeof(r->counters));
	r->target = XS_NO_TARGET;
	r->flow_lookups = 0;
	r->bytes = REF_SAME;
	r->out_len = len;
	if (len > sizeof(aligned) - 2) {
		r->verdict = -1;
		return;
	}
	memcpy(aligned + 2, frame, len);
	err = xs_parse((void *)in, (void *)(in + len), &p);
	if (err != XS_PARSE_OK) {
		r->counters[err]++;
		r->verdict = XDP_PASS;
		return;
	}
	if (p.is_frag)
		r->counters[XS_C_FRAGMENT]++;
	if (p.icmp == XS_ICMP_BAD_QUOTE)
		r->counters[XS_C_ICMP_BAD_QUOTE]++;

	if (p.icmp == XS_ICMP_ECHO && ref_is_vip(c, p.key.dst)) {
		ref_echo(in, len, &p, r);
		return;
	}
	if (p.icmp != XS_ICMP_ECHO) {
		s = ref_find_service(c, p.key.dst, p.key.dport, p.key.proto);
		if (!s)
			s = ref_find_service(c, p.key.dst, 0, p.key.proto);
	}
	if (s) {
		pool = &s->pool;
		if (p.icmp == XS_ICMP_ERROR)
			r->counters[XS_C_ICMP_ERROR]++;
	}
	r->flow_lookups = 1;
	if (xs_decide(pool, NULL, &p.key, &d)) {
		r->flow_lookups = 0;  /* the fuzz pools always have a live bucket */
		r->verdict = -1;
		return;
	}
	r->target = d.target;
	if (!s) {
		r->verdict = XDP_REDIRECT;
		return;
	}
	ref_backend(c, in, len, &p, s, r);
}

#endif /* XS_FUZZ_REF_H */
