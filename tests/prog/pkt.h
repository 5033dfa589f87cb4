/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Packet builder for BPF_PROG_TEST_RUN tests, fuzz seeds and benchmarks.
 * Appends headers to a buffer; lengths and the IPv4 checksum are filled in
 * by pkt_finish(), so a test states only what it is about.
 */
#ifndef XS_TEST_PKT_H
#define XS_TEST_PKT_H

#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>

#define PKT_MAX 1600

/*
 * Drivers hand XDP a frame with NET_IP_ALIGN (2) bytes of headroom so that the
 * IP header after the 14-byte Ethernet header is 4-byte aligned. buf sits at
 * the same offset modulo 4 (after five ints and two bytes of padding), so the
 * tests' in-place header edits are aligned accesses, as the reference's are
 * (tests/fuzz/ref.h), and UBSan's alignment check holds them to it.
 */
struct pkt {
	unsigned int len;
	int l3_off;      /* -1 until an IP header is pushed */
	int l3_is_v6;
	int l4_off;
	int ip6_next_off; /* offset of the last "next header" byte to patch */
	unsigned char net_ip_align[2];
	unsigned char buf[PKT_MAX];
};

_Static_assert(__builtin_offsetof(struct pkt, buf) % 4 == 2 && _Alignof(struct pkt) >= 4,
	       "pkt.buf + ETH_HLEN must be 4-byte aligned");

static inline void *pkt_push(struct pkt *p, unsigned int n)
{
	void *at = p->buf + p->len;

	memset(at, 0, n);
	p->len += n;
	return at;
}

static inline void pkt_eth(struct pkt *p, unsigned short proto)
{
	struct ethhdr *eth;

	memset(p, 0, sizeof(*p));
	p->l3_off = -1;
	p->l4_off = -1;
	p->ip6_next_off = -1;
	eth = pkt_push(p, sizeof(*eth));
	memcpy(eth->h_dest, "\x02\x00\x00\x00\x00\x02", ETH_ALEN);
	memcpy(eth->h_source, "\x02\x00\x00\x00\x00\x01", ETH_ALEN);
	eth->h_proto = htons(proto);
}

/* Insert a VLAN tag: the current ethertype moves inside it. */
static inline void pkt_vlan(struct pkt *p, unsigned short tpid, unsigned short vid)
{
	unsigned short *proto = (unsigned short *)(p->buf + p->len - 2);
	unsigned short inner = *proto;
	unsigned short *tag = pkt_push(p, 4);

	*proto = htons(tpid);
	tag[0] = htons(vid);
	tag[1] = inner;
}

static inline void pkt_ipv4(struct pkt *p, const char *src, const char *dst, unsigned char proto,
			    unsigned int opt_words)
{
	struct iphdr *ip;

	p->l3_off = (int)p->len;
	p->l3_is_v6 = 0;
	ip = pkt_push(p, sizeof(*ip) + 4 * opt_words);
	ip->version = 4;
	ip->ihl = 5 + opt_words;
	ip->ttl = 64;
	ip->protocol = proto;
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	if (opt_words)
		memset(ip + 1, 1, 4 * opt_words); /* NOP options */
}

static inline void pkt_ipv6(struct pkt *p, const char *src, const char *dst, unsigned char next)
{
	struct ipv6hdr *ip6;

	p->l3_off = (int)p->len;
	p->l3_is_v6 = 1;
	ip6 = pkt_push(p, sizeof(*ip6));
	ip6->version = 6;
	ip6->hop_limit = 64;
	ip6->nexthdr = next;
	p->ip6_next_off = (int)((unsigned char *)&ip6->nexthdr - p->buf);
	inet_pton(AF_INET6, src, &ip6->saddr);
	inet_pton(AF_INET6, dst, &ip6->daddr);
}

/* An IPv6 extension header of type @type (8 * (len8 + 1) bytes) followed by @next. */
static inline void pkt_ip6_ext(struct pkt *p, unsigned char type, unsigned char len8,
			       unsigned char next)
{
	unsigned char *ext;

	p->buf[p->ip6_next_off] = type;
	ext = pkt_push(p, 8 * (len8 + 1u));
	ext[0] = next;
	ext[1] = len8;
	p->ip6_next_off = (int)(ext - p->buf);
}

static inline void pkt_ip6_frag(struct pkt *p, unsigned short offset8, int more,
				unsigned char next)
{
	unsigned char *fh;
	unsigned short fo = htons((unsigned short)(offset8 << 3 | (more ? 1 : 0)));

	p->buf[p->ip6_next_off] = IPPROTO_FRAGMENT;
	fh = pkt_push(p, 8);
	fh[0] = next;
	memcpy(fh + 2, &fo, 2);
	memcpy(fh + 4, "\x12\x34\x56\x78", 4);
	p->ip6_next_off = (int)(fh - p->buf);
}

/* IPv4 fragment fields: offset in 8-byte units and the MF flag. */
static inline void pkt_ipv4_frag(struct pkt *p, unsigned short offset8, int more)
{
	struct iphdr *ip = (struct iphdr *)(p->buf + p->l3_off);

	ip->frag_off = htons((unsigned short)(offset8 | (more ? 0x2000 : 0)));
}

static inline void pkt_ports(struct pkt *p, unsigned char proto, unsigned short sport,
			     unsigned short dport)
{
	unsigned short *ports;
	unsigned int n = proto == IPPROTO_TCP ? sizeof(struct tcphdr)
			 : proto == IPPROTO_UDP ? sizeof(struct udphdr)
						: 12; /* SCTP common header */

	p->l4_off = (int)p->len;
	ports = pkt_push(p, n);
	ports[0] = htons(sport);
	ports[1] = htons(dport);
	if (proto == IPPROTO_TCP)
		((struct tcphdr *)ports)->doff = 5;
}

static inline void pkt_payload(struct pkt *p, unsigned int n)
{
	unsigned char *d = pkt_push(p, n);
	unsigned int i;

	for (i = 0; i < n; i++)
		d[i] = (unsigned char)i;
}

static inline unsigned short pkt_csum(const void *data, unsigned int len)
{
	const unsigned char *b = data;
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (unsigned long)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (unsigned long)(b[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((unsigned short)~sum);
}

/* Fill in IP lengths (and the UDP length) from what was pushed, and the IPv4 checksum. */
static inline void pkt_finish(struct pkt *p)
{
	if (p->l3_off < 0)
		return;
	if (p->l3_is_v6) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(p->buf + p->l3_off);

		ip6->payload_len = htons((unsigned short)(p->len - p->l3_off - sizeof(*ip6)));
	} else {
		struct iphdr *ip = (struct iphdr *)(p->buf + p->l3_off);

		ip->tot_len = htons((unsigned short)(p->len - p->l3_off));
		ip->check = 0;
		ip->check = pkt_csum(ip, ip->ihl * 4);
	}
	if (p->l4_off >= 0) {
		unsigned char proto = p->l3_is_v6 ? 0 : ((struct iphdr *)(p->buf + p->l3_off))->protocol;

		if (proto == IPPROTO_UDP)
			((struct udphdr *)(p->buf + p->l4_off))->len =
				htons((unsigned short)(p->len - p->l4_off));
	}
}

#endif /* XS_TEST_PKT_H */
