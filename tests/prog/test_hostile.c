// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Hostile traffic through BPF_PROG_TEST_RUN: malformed and adversarial
 * frames, each with its exact verdict and the exact change of every
 * counter, and for frames that are steered, the flow key they are steered
 * by. Where the program tolerates a malformation (UDP length, TCP data
 * offset) the test pins that documented behaviour down.
 */
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "xs_parse.h"
#include "test.h"

static struct prog_env env;
static const __u64 seed[2] = { 0x5eed5eed5eed5eedULL, 0x0badc0de0badc0deULL };

#include "expect.h"

static struct iphdr *ip4(struct pkt *p)
{
	return (struct iphdr *)(p->buf + p->l3_off);
}

static void v4(struct pkt *p, const char *src, __u8 proto, __u16 sp, unsigned int payload)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, "10.9.0.2", proto, 0);
	pkt_ports(p, proto, sp, 80);
	pkt_payload(p, payload);
	pkt_finish(p);
}

TEST(ihl_below_five)
{
	struct pkt p;
	unsigned int ihl;

	for (ihl = 0; ihl < 5; ihl++) {
		char what[64];

		v4(&p, "10.9.1.1", IPPROTO_TCP, 1, 0);
		ip4(&p)->ihl = ihl;
		snprintf(what, sizeof(what), "IHL %u", ihl);
		expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IHL), NULL, what);
	}
}

TEST(ihl_past_the_end)
{
	struct pkt p;

	/* IHL 15 is 60 bytes of header; the frame carries 40 after Ethernet. */
	v4(&p, "10.9.1.2", IPPROTO_TCP, 1, 0);
	ip4(&p)->ihl = 15;
	expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_IP), NULL, "IHL 15, 40-byte IP packet");
	/* IHL 6, and the frame ends right after the fixed header. */
	v4(&p, "10.9.1.2", IPPROTO_TCP, 1, 0);
	ip4(&p)->ihl = 6;
	expect(&p, ETH_HLEN + 20, XDP_PASS, BUMP(XS_C_TRUNC_IP), NULL, "IHL 6, 20 bytes");
}

TEST(total_length_disagrees)
{
	struct xs_flow_key k;
	struct pkt p;

	v4(&p, "10.9.2.1", IPPROTO_UDP, 1000, 20);
	ip4(&p)->tot_len = htons(ntohs(ip4(&p)->tot_len) + 1);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "one byte longer than the frame");
	v4(&p, "10.9.2.1", IPPROTO_UDP, 1000, 20);
	ip4(&p)->tot_len = htons(19);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "shorter than the header (19)");
	v4(&p, "10.9.2.1", IPPROTO_UDP, 1000, 20);
	ip4(&p)->tot_len = 0;
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "zero (TSO-style)");
	v4(&p, "10.9.2.1", IPPROTO_UDP, 1000, 20);
	ip4(&p)->ihl = 6;
	ip4(&p)->tot_len = htons(20);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "shorter than IHL 6's header");
	/* Shorter than the frame but covering the header: the rest is padding. */
	v4(&p, "10.9.2.2", IPPROTO_UDP, 1000, 20);
	ip4(&p)->tot_len = htons(28);
	key_v4(&k, "10.9.2.2", "10.9.0.2", IPPROTO_UDP, 1000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "Ethernet padding after the packet");
}

static void v6_chain(struct pkt *p, const char *src, const __u8 *types, unsigned int n,
		     __u8 len8)
{
	unsigned int i;

	pkt_eth(p, ETH_P_IPV6);
	pkt_ipv6(p, src, "2001:db8:9::2", IPPROTO_TCP);
	for (i = 0; i < n; i++)
		pkt_ip6_ext(p, types[i], len8, IPPROTO_TCP);
	pkt_ports(p, IPPROTO_TCP, 4000, 80);
	pkt_finish(p);
}

TEST(ipv6_chains_and_loops)
{
	static const __u8 mixed[] = { IPPROTO_HOPOPTS, IPPROTO_DSTOPTS, IPPROTO_ROUTING,
				      IPPROTO_DSTOPTS, IPPROTO_ROUTING, IPPROTO_DSTOPTS,
				      IPPROTO_ROUTING, IPPROTO_DSTOPTS, IPPROTO_ROUTING };
	__u8 same[40];
	struct xs_flow_key k;
	struct pkt p;

	/* At the limit: 7 headers then TCP is the longest chain that parses. */
	v6_chain(&p, "2001:db8:9::1", mixed, XS_IP6_MAX_EXT - 1, 0);
	key_v6(&k, "2001:db8:9::1", "2001:db8:9::2", IPPROTO_TCP, 0, 0);
	k.sport = htons(4000);
	k.dport = htons(80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "7 mixed headers");
	v6_chain(&p, "2001:db8:9::1", mixed, XS_IP6_MAX_EXT, 0);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_IP6_EXT_LIMIT), NULL, "8 mixed headers");
	v6_chain(&p, "2001:db8:9::1", mixed, XS_IP6_MAX_EXT + 1, 1);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_IP6_EXT_LIMIT), NULL, "9 headers of 16 bytes");

	/* A loop of one header type: the bound stops it, whatever its length. */
	memset(same, IPPROTO_DSTOPTS, sizeof(same));
	v6_chain(&p, "2001:db8:9::1", same, sizeof(same), 0);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_IP6_EXT_LIMIT), NULL, "40 destination options");
	memset(same, IPPROTO_HOPOPTS, sizeof(same));
	v6_chain(&p, "2001:db8:9::1", same, sizeof(same), 0);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_IP6_EXT_LIMIT), NULL, "40 hop-by-hop headers");

	/* A header that claims more bytes than the frame: its successor is cut. */
	v6_chain(&p, "2001:db8:9::1", mixed, 1, 0);
	p.buf[ETH_HLEN + 40 + 1] = 255;
	expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_L4), NULL, "hdrlen 255 in a short frame");
	v6_chain(&p, "2001:db8:9::1", mixed, 1, 0);
	p.buf[ETH_HLEN + 40] = IPPROTO_DSTOPTS;
	p.buf[ETH_HLEN + 40 + 1] = 255;
	expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_IP), NULL, "next extension past the end");
}

TEST(overlapping_and_tiny_fragments)
{
	struct xs_flow_key k;
	struct pkt p;

	/* Two fragments that overlap (offsets 0 and 8, 24 bytes each): both
	 * key on (src, dst, proto) and meet on one target; reassembly is the
	 * receiver's business. */
	key_v4(&k, "10.9.3.1", "10.9.0.2", IPPROTO_UDP, 0, 0);
	v4(&p, "10.9.3.1", IPPROTO_UDP, 1234, 16);
	pkt_ipv4_frag(&p, 0, 1);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_NEW), &k, "overlap, first");
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.9.3.1", "10.9.0.2", IPPROTO_UDP, 0);
	pkt_payload(&p, 24);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 1, 1);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_HIT), &k, "overlap, second");

	/* A first fragment of one byte: too short for ports, never read. */
	key_v4(&k, "10.9.3.2", "10.9.0.2", IPPROTO_TCP, 0, 0);
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.9.3.2", "10.9.0.2", IPPROTO_TCP, 0);
	pkt_payload(&p, 1);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 0, 1);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_NEW), &k, "1-byte first frag");
	/* Offset 1 (8 bytes in): the "tiny fragment" that rewrites TCP flags. */
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.9.3.2", "10.9.0.2", IPPROTO_TCP, 0);
	pkt_payload(&p, 12);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 1, 0);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_HIT), &k, "offset-1 fragment");

	/* IPv6: a fragment header cut short is truncated_ip; an empty fragment steers. */
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8:9::3", "2001:db8:9::2", IPPROTO_UDP);
	pkt_ip6_frag(&p, 0, 1, IPPROTO_UDP);
	pkt_finish(&p);
	expect(&p, p.len - 1, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "cut frag header, len kept");
	((struct ipv6hdr *)(p.buf + p.l3_off))->payload_len = htons(7);
	expect(&p, p.len - 1, XDP_PASS, BUMP(XS_C_TRUNC_IP), NULL, "cut fragment header");
	((struct ipv6hdr *)(p.buf + p.l3_off))->payload_len = htons(8);
	key_v6(&k, "2001:db8:9::3", "2001:db8:9::2", IPPROTO_UDP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_NEW), &k, "empty fragment");
}

TEST(vlan_stacks)
{
	struct pkt p;
	int depth, i;

	for (depth = XS_MAX_VLANS + 1; depth <= 6; depth++) {
		char what[64];

		pkt_eth(&p, ETH_P_IP);
		for (i = 0; i < depth; i++)
			pkt_vlan(&p, i & 1 ? ETH_P_8021AD : ETH_P_8021Q, (unsigned short)i);
		pkt_ipv4(&p, "10.9.4.1", "10.9.0.2", IPPROTO_UDP, 0);
		pkt_ports(&p, IPPROTO_UDP, 1, 2);
		pkt_finish(&p);
		snprintf(what, sizeof(what), "%d tags", depth);
		expect(&p, 0, XDP_PASS, BUMP(XS_C_VLAN_TOO_DEEP), NULL, what);
	}
	/* A tag cut in half. */
	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 1);
	pkt_vlan(&p, ETH_P_8021Q, 2);
	expect(&p, p.len - 2, XDP_PASS, BUMP(XS_C_TRUNC_ETH), NULL, "second tag cut");
}

/* The UDP length field is not read: a datagram is steered by its ports whatever it says. */
TEST(zero_length_udp)
{
	struct xs_flow_key k;
	struct pkt p;

	v4(&p, "10.9.5.1", IPPROTO_UDP, 5000, 0);
	((struct udphdr *)(p.buf + p.l4_off))->len = 0;
	key_v4(&k, "10.9.5.1", "10.9.0.2", IPPROTO_UDP, 5000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "UDP length 0");
	v4(&p, "10.9.5.2", IPPROTO_UDP, 5000, 0);
	key_v4(&k, "10.9.5.2", "10.9.0.2", IPPROTO_UDP, 5000, 80);
	ASSERT_EQ(ntohs(((struct udphdr *)(p.buf + p.l4_off))->len), 8, "built with length 8");
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "UDP length 8, no payload");
	v4(&p, "10.9.5.3", IPPROTO_UDP, 5000, 0);
	((struct udphdr *)(p.buf + p.l4_off))->len = htons(9000);
	key_v4(&k, "10.9.5.3", "10.9.0.2", IPPROTO_UDP, 5000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "UDP length beyond the packet");
}

/* TCP is keyed on its ports with any data offset: doff is not validated. */
TEST(tcp_data_offset_below_five)
{
	struct xs_flow_key k;
	struct pkt p;
	unsigned int doff;

	for (doff = 0; doff < 5; doff++) {
		char src[32], what[64];

		snprintf(src, sizeof(src), "10.9.6.%u", doff + 1);
		v4(&p, src, IPPROTO_TCP, 6000, 0);
		((struct tcphdr *)(p.buf + p.l4_off))->doff = doff;
		key_v4(&k, src, "10.9.0.2", IPPROTO_TCP, 6000, 80);
		snprintf(what, sizeof(what), "TCP doff %u", doff);
		expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, what);
	}
}

/* ICMP frag-needed from @router about @quote (its IP packet from Ethernet on, first @n bytes). */
static void frag_needed(struct pkt *p, const struct pkt *quote, unsigned int n)
{
	unsigned char *h;

	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, "192.0.2.1", "10.9.0.2", IPPROTO_ICMP, 0);
	h = pkt_push(p, 8);
	h[0] = 3;
	h[1] = 4;
	memcpy(pkt_push(p, n), quote->buf + ETH_HLEN, n);
	pkt_finish(p);
}

/*
 * The transport header belongs to the datagram: an IP length that ends
 * before it cuts it (truncated_l4), whatever bytes follow in the frame.
 * Read from the frame instead, the ports would be whatever padding or
 * garbage follows, and the packet would be steered (or tunnelled to a
 * backend) by them.
 */
TEST(l4_beyond_the_datagram)
{
	static const struct {
		__u8 proto;
		__u16 len; /* IPv4 total length */
		int keyed;
	} v4s[] = {
		{ IPPROTO_UDP, 20, 0 }, { IPPROTO_UDP, 24, 0 }, { IPPROTO_UDP, 27, 0 },
		{ IPPROTO_UDP, 28, 1 }, { IPPROTO_TCP, 20, 0 }, { IPPROTO_TCP, 39, 0 },
		{ IPPROTO_TCP, 40, 1 }, { IPPROTO_SCTP, 31, 0 }, { IPPROTO_SCTP, 32, 1 },
		{ IPPROTO_ICMP, 21, 0 }, { IPPROTO_ICMP, 27, 0 },
	};
	static const struct {
		__u8 proto;
		__u16 len; /* IPv6 payload length */
		int keyed;
	} v6s[] = {
		{ IPPROTO_TCP, 0, 0 },  { IPPROTO_TCP, 8, 0 },  { IPPROTO_TCP, 19, 0 },
		{ IPPROTO_TCP, 20, 1 }, { IPPROTO_UDP, 0, 0 },  { IPPROTO_UDP, 7, 0 },
		{ IPPROTO_UDP, 8, 1 },  { IPPROTO_ICMPV6, 4, 0 },
	};
	struct xs_flow_key k;
	struct pkt p, q;
	char src[32], what[80];
	unsigned int i;

	for (i = 0; i < XS_ARRAY_SIZE(v4s); i++) {
		snprintf(src, sizeof(src), "10.9.8.%u", i + 1);
		v4(&p, src, v4s[i].proto, 8000, 64); /* a long frame after the headers */
		ip4(&p)->tot_len = htons(v4s[i].len);
		ip4(&p)->check = 0;
		ip4(&p)->check = pkt_csum(ip4(&p), 20);
		snprintf(what, sizeof(what), "IPv4 proto %u, total length %u", v4s[i].proto,
			 v4s[i].len);
		if (v4s[i].keyed) {
			key_v4(&k, src, "10.9.0.2", v4s[i].proto, 8000, 80);
			expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, what);
		} else {
			expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_L4), NULL, what);
		}
	}
	for (i = 0; i < XS_ARRAY_SIZE(v6s); i++) {
		snprintf(src, sizeof(src), "2001:db8:9:8::%x", i + 1);
		pkt_eth(&p, ETH_P_IPV6);
		pkt_ipv6(&p, src, "2001:db8:9::2", v6s[i].proto);
		if (v6s[i].proto == IPPROTO_ICMPV6)
			pkt_payload(&p, 8);
		else
			pkt_ports(&p, v6s[i].proto, 8000, 80);
		pkt_payload(&p, 64);
		pkt_finish(&p);
		((struct ipv6hdr *)(p.buf + p.l3_off))->payload_len = htons(v6s[i].len);
		snprintf(what, sizeof(what), "IPv6 next header %u, payload length %u",
			 v6s[i].proto, v6s[i].len);
		if (v6s[i].keyed) {
			key_v6(&k, src, "2001:db8:9::2", v6s[i].proto, 8000, 80);
			expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, what);
		} else {
			expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_L4), NULL, what);
		}
	}

	/* An extension header that the payload length does not cover. */
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8:9:8::99", "2001:db8:9::2", IPPROTO_TCP);
	pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 8000, 80);
	pkt_finish(&p);
	((struct ipv6hdr *)(p.buf + p.l3_off))->payload_len = htons(4);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_TRUNC_L4), NULL,
	       "extension header past the payload: its successor is cut");

	/* An ICMP error whose quote lies past its datagram: a cut quote. */
	v4(&q, "10.9.0.2", IPPROTO_TCP, 80, 0);
	frag_needed(&p, &q, 28);
	ip4(&p)->tot_len = htons(20 + 8 + 20 + 2);
	inet_pton(AF_INET, "192.0.2.9", &ip4(&p)->saddr);
	ip4(&p)->check = 0;
	ip4(&p)->check = pkt_csum(ip4(&p), 20);
	key_v4(&k, "192.0.2.9", "10.9.0.2", IPPROTO_ICMP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_NEW), &k,
	       "quote's ports past the datagram");
}

TEST(icmp_error_quotes)
{
	struct xs_flow_key k;
	struct pkt q, p, nested;

	/* The quote is a packet 10.9.0.2:80 -> 10.9.7.1:7000; reversed it is the client's flow. */
	v4(&q, "10.9.0.2", IPPROTO_TCP, 80, 0);
	inet_pton(AF_INET, "10.9.7.1", &ip4(&q)->daddr);
	((__be16 *)(q.buf + q.l4_off))[1] = htons(7000);
	pkt_finish(&q);
	frag_needed(&p, &q, 28);
	key_v4(&k, "10.9.7.1", "10.9.0.2", IPPROTO_TCP, 7000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "whole quote: the client's flow");

	/* Quote cut inside the IP header, then inside the ports: keyed as the ICMP itself. */
	key_v4(&k, "192.0.2.1", "10.9.0.2", IPPROTO_ICMP, 0, 0);
	frag_needed(&p, &q, 19);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_NEW), &k, "19-byte quote");
	frag_needed(&p, &q, 23);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_HIT), &k, "ports cut");
	/* A quoted IHL below 5, and a quote that is not IPv4 at all. */
	ip4(&q)->ihl = 4;
	frag_needed(&p, &q, 28);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_HIT), &k, "quoted IHL 4");
	ip4(&q)->ihl = 5;
	ip4(&q)->version = 6;
	frag_needed(&p, &q, 28);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_HIT), &k, "quoted v6");
	ip4(&q)->version = 4;
	/* Quoted IHL 15 points the ports past the end of the quote. */
	ip4(&q)->ihl = 15;
	frag_needed(&p, &q, 28);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_HIT), &k, "quoted IHL 15");
	ip4(&q)->ihl = 5;

	/* Nested: an error quoting an error. The inner one is ICMP: keyed without ports. */
	frag_needed(&nested, &q, 28);
	inet_pton(AF_INET, "10.9.0.2", &ip4(&nested)->saddr);
	inet_pton(AF_INET, "10.9.7.2", &ip4(&nested)->daddr);
	pkt_finish(&nested);
	frag_needed(&p, &nested, 56);
	key_v4(&k, "10.9.7.2", "10.9.0.2", IPPROTO_ICMP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "error quoting an error");
	frag_needed(&p, &nested, 20);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_HIT), &k, "nested, inner header only");
}

/*
 * An ICMPv6 "packet too big" whose quote holds an IPv4-mapped address: the
 * parser refuses such headers in a packet (ipv6_mapped_addr), and must in a
 * quote too. Reversed into the client's flow, ::ffff:a.b.c.d would match the
 * IPv4 VIP a.b.c.d, and the ICMPv6 packet would be tunnelled as IPIP. A bad
 * quote: keyed as the ICMPv6 packet itself. (Found by the fuzzer's
 * independent reference: tests/fuzz/repro/v6_quote_mapped.)
 */
TEST(icmpv6_quote_with_mapped_address)
{
	static const char *const mapped[][2] = {
		{ "::ffff:10.9.0.2", "2001:db8:9:7::1" }, /* the backend's reply, from a VIP */
		{ "2001:db8:9::2", "::ffff:10.9.7.1" },
	};
	struct xs_flow_key k;
	struct pkt p, q;
	unsigned char *h;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char what[96];

		pkt_eth(&q, ETH_P_IPV6);
		pkt_ipv6(&q, mapped[i][0], mapped[i][1], IPPROTO_TCP);
		pkt_ports(&q, IPPROTO_TCP, 80, 7000);
		pkt_finish(&q);
		pkt_eth(&p, ETH_P_IPV6);
		pkt_ipv6(&p, "2001:db8:9:7::fe", "2001:db8:9::2", IPPROTO_ICMPV6);
		h = pkt_push(&p, 8);
		h[0] = 2;
		memcpy(pkt_push(&p, 60), q.buf + ETH_HLEN, 60);
		pkt_finish(&p);
		key_v6(&k, "2001:db8:9:7::fe", "2001:db8:9::2", IPPROTO_ICMPV6, 0, 0);
		snprintf(what, sizeof(what), "quote %s -> %s", mapped[i][0], mapped[i][1]);
		expect(&p, 0, XDP_REDIRECT,
		       i ? BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_HIT) : BUMP(XS_C_ICMP_BAD_QUOTE, XS_C_FLOW_NEW),
		       &k, what);
	}
}

static int setup(void)
{
	if (prog_env_open(&env, 4096, XDP_PASS) || prog_env_targets(&env, XS_ALGO_JUMP, 0, 2, seed)) {
		fprintf(stderr, "FAIL: cannot load the XDP program (root and a BPF-capable kernel "
				"are required)\n");
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	prog_env_close(&env);
}

TEST_MAIN("prog_hostile", setup, teardown)
