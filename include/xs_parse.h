/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Packet parsing, shared by the XDP program and the userspace reference
 * used by tests and the fuzzer: Ethernet, up to two VLAN tags, IPv4
 * (IHL validated, options skipped), IPv6 (hop-by-hop, routing, destination
 * options and fragment headers, bounded), then TCP, UDP or SCTP ports.
 *
 * Returns XS_PARSE_OK with the flow key filled in, or the xs_counter that
 * names why the packet could not be keyed. Fragments of one datagram, first
 * or not, are keyed on (src, dst, proto) only, so they all meet.
 *
 * Everything after the IP header is judged against the datagram's own end
 * (IPv4 total length, IPv6 payload length), not the frame's: bytes after it
 * are Ethernet padding or garbage, never ports. Each check is made against
 * both ends (XS_PAST): the verifier learns packet bounds only from data_end.
 */
#ifndef XS_PARSE_H
#define XS_PARSE_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include "xdpsteer.h"

#define XS_PARSE_OK XS_C_MAX
#define XS_MAX_VLANS 2
#define XS_IP6_MAX_EXT 8

#define XS_IP_MF 0x2000
#define XS_IP_OFFSET 0x1fff

/*
 * The datagram's end, made opaque to the compiler: it knows the end lies
 * within the frame and would drop the check against data_end, the only one
 * the verifier learns from.
 */
#define XS_OPAQUE(x) asm volatile("" : "+r"(x))

/* Do @n bytes at @at run past the datagram's @end or the frame's @data_end? */
#define XS_PAST(at, n, end, data_end)                                                    \
	((void *)(at) + (n) > (void *)(end) || (void *)(at) + (n) > (void *)(data_end))

struct xs_vlan_hdr {
	__be16 tci;
	__be16 encap_proto;
};

struct xs_ip6_ext {
	__u8 nexthdr;
	__u8 hdrlen;
};

struct xs_ip6_frag {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off;     /* offset << 3 | M */
	__be32 id;
};

enum xs_icmp_kind {
	XS_ICMP_NONE = 0,
	XS_ICMP_ERROR = 1,      /* frag needed / packet too big: key is the quoted flow, reversed */
	XS_ICMP_ECHO = 2,       /* echo request */
	XS_ICMP_BAD_QUOTE = 3,  /* an error whose quoted header is cut short: keyed as itself */
};

struct xs_parsed {
	struct xs_flow_key key;
	__u8 is_frag;
	__u8 family;            /* 4 or 6 */
	__u8 tos;               /* IPv4 TOS or IPv6 traffic class */
	__u8 icmp;              /* enum xs_icmp_kind */
	__u16 l3_off;           /* IP header, from the start of the frame */
	__u16 ip_len;           /* IP header + payload, from the IP length field */
	__u8 tcp_flags;         /* TCP: the flags byte (FIN 0x01, RST 0x04) */
	__u8 pad;
	__u16 l4_off;           /* the transport header, from the start of the frame (0: none) */
};

#define XS_TCP_FIN 0x01
#define XS_TCP_SYN 0x02
#define XS_TCP_RST 0x04
#define XS_TCP_ACK 0x10

/*
 * An ICMP error quotes the start of the packet it is about: a packet the
 * backend sent from VIP:port to the client. Reversed, the quote is the
 * client's flow to the VIP, so the error is steered with that flow.
 */
XS_INLINE int xs_parse_quote4(void *pos, void *end, void *data_end, struct xs_flow_key *key)
{
	struct iphdr *q = pos;
	__u32 ihl;
	__be16 *ports;

	if (XS_PAST(q, sizeof(*q), end, data_end) || q->version != 4 || q->ihl < 5)
		return -1;
	ihl = q->ihl * 4;
	ports = pos + ihl;
	XS_W32(key->src, 2) = bpf_htonl(0xffff);
	XS_W32(key->src, 3) = q->daddr;
	XS_W32(key->dst, 2) = bpf_htonl(0xffff);
	XS_W32(key->dst, 3) = q->saddr;
	key->proto = q->protocol;
	key->sport = 0;
	key->dport = 0;
	if (q->protocol != IPPROTO_TCP && q->protocol != IPPROTO_UDP &&
	    q->protocol != IPPROTO_SCTP)
		return 0;
	if (XS_PAST(ports, 4, end, data_end))
		return -1;
	key->sport = ports[1];
	key->dport = ports[0];
	return 0;
}

XS_INLINE int xs_ip6_is_mapped(const __be32 *a)
{
	return !a[0] && !a[1] && a[2] == bpf_htonl(0xffff);
}

XS_INLINE int xs_parse_quote6(void *pos, void *end, void *data_end, struct xs_flow_key *key)
{
	struct ipv6hdr *q = pos;
	__be16 *ports = (void *)(q + 1);

	if (XS_PAST(q, sizeof(*q), end, data_end) || q->version != 6)
		return -1;
	/* As in a packet's own header (xs_parse_ipv6()): reversed into a key, a
	 * mapped address would name an IPv4 VIP. */
	if (xs_ip6_is_mapped((const __be32 *)&q->saddr) ||
	    xs_ip6_is_mapped((const __be32 *)&q->daddr))
		return -1;
	__builtin_memcpy(key->src, &q->daddr, 16);
	__builtin_memcpy(key->dst, &q->saddr, 16);
	key->proto = q->nexthdr;
	key->sport = 0;
	key->dport = 0;
	/* A quote whose next header is an extension header is keyed without ports. */
	if (q->nexthdr != IPPROTO_TCP && q->nexthdr != IPPROTO_UDP &&
	    q->nexthdr != IPPROTO_SCTP)
		return 0;
	if (XS_PAST(ports, 4, end, data_end))
		return -1;
	key->sport = ports[1];
	key->dport = ports[0];
	return 0;
}

#define XS_ICMP_DEST_UNREACH 3
#define XS_ICMP_FRAG_NEEDED 4
#define XS_ICMP_ECHO_REQUEST 8
#define XS_ICMP6_PKT_TOOBIG 2
#define XS_ICMP6_ECHO_REQUEST 128

/* ICMP and ICMPv6: type and code in the first two bytes, the quote after 8. */
XS_INLINE int xs_parse_icmp(void *pos, void *end, void *data_end, struct xs_parsed *p)
{
	__u8 *icmp = pos;
	struct xs_flow_key quoted = {};
	int err;

	if (XS_PAST(icmp, 8, end, data_end))
		return XS_C_TRUNC_L4;
	if (p->family == 4 && icmp[0] == XS_ICMP_ECHO_REQUEST) {
		p->icmp = XS_ICMP_ECHO;
		return XS_PARSE_OK;
	}
	if (p->family == 6 && icmp[0] == XS_ICMP6_ECHO_REQUEST) {
		p->icmp = XS_ICMP_ECHO;
		return XS_PARSE_OK;
	}
	if (p->family == 4 && icmp[0] == XS_ICMP_DEST_UNREACH && icmp[1] == XS_ICMP_FRAG_NEEDED)
		err = xs_parse_quote4(icmp + 8, end, data_end, &quoted);
	else if (p->family == 6 && icmp[0] == XS_ICMP6_PKT_TOOBIG)
		err = xs_parse_quote6(icmp + 8, end, data_end, &quoted);
	else
		return XS_PARSE_OK;
	if (err) {
		p->icmp = XS_ICMP_BAD_QUOTE;
		return XS_PARSE_OK;
	}
	p->icmp = XS_ICMP_ERROR;
	p->key = quoted;
	return XS_PARSE_OK;
}

XS_INLINE int xs_parse_ports(void *pos, void *end, void *data_end, __u8 proto,
			     struct xs_parsed *p)
{
	struct xs_flow_key *key = &p->key;
	__u32 need;

	switch (proto) {
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		/* ICMP belongs to IPv4 and ICMPv6 to IPv6; the other way round they
		 * are just protocols without ports. */
		if ((proto == IPPROTO_ICMP) != (p->family == 4))
			return XS_PARSE_OK;
		return xs_parse_icmp(pos, end, data_end, p);
	case IPPROTO_TCP:
		need = sizeof(struct tcphdr);
		break;
	case IPPROTO_UDP:
		need = sizeof(struct udphdr);
		break;
	case IPPROTO_SCTP:
		need = 12; /* common header: ports, verification tag, checksum */
		break;
	default:
		return XS_PARSE_OK; /* keyed without ports */
	}
	if (XS_PAST(pos, need, end, data_end))
		return XS_C_TRUNC_L4;
	/* TCP, UDP and SCTP all start with the 16-bit source and dest ports. */
	key->sport = ((__be16 *)pos)[0];
	key->dport = ((__be16 *)pos)[1];
	if (proto == IPPROTO_TCP)
		p->tcp_flags = ((__u8 *)pos)[13];
	return XS_PARSE_OK;
}

XS_INLINE int xs_parse_ipv4(void *pos, void *data_end, struct xs_parsed *p)
{
	struct iphdr *ip = pos;
	__u32 ihl_bytes, tot_len;
	void *end;

	if ((void *)(ip + 1) > data_end)
		return XS_C_TRUNC_IP;
	if (ip->version != 4 || ip->ihl < 5)
		return XS_C_BAD_IHL;
	ihl_bytes = ip->ihl * 4;
	if (pos + ihl_bytes > data_end)
		return XS_C_TRUNC_IP;
	tot_len = bpf_ntohs(ip->tot_len);
	/* Shorter than the frame is Ethernet padding; longer is a lie. */
	if (tot_len < ihl_bytes || pos + tot_len > data_end)
		return XS_C_BAD_IP_LEN;

	p->family = 4;
	p->tos = ip->tos;
	p->ip_len = (__u16)tot_len;
	XS_W32(p->key.src, 2) = bpf_htonl(0xffff);
	XS_W32(p->key.src, 3) = ip->saddr;
	XS_W32(p->key.dst, 2) = bpf_htonl(0xffff);
	XS_W32(p->key.dst, 3) = ip->daddr;
	p->key.proto = ip->protocol;
	if (ip->frag_off & bpf_htons(XS_IP_MF | XS_IP_OFFSET)) {
		p->is_frag = 1;
		return XS_PARSE_OK;
	}
	end = pos + tot_len;
	XS_OPAQUE(end);
	p->l4_off = p->l3_off + ihl_bytes;
	return xs_parse_ports(pos + ihl_bytes, end, data_end, ip->protocol, p);
}

XS_INLINE int xs_parse_ipv6(void *pos, void *data_end, struct xs_parsed *p)
{
	struct ipv6hdr *ip6 = pos;
	void *end;
	__u8 nexthdr;
	int i;

	if ((void *)(ip6 + 1) > data_end)
		return XS_C_TRUNC_IP;
	if (ip6->version != 6)
		return XS_C_BAD_IHL;
	if ((void *)(ip6 + 1) + bpf_ntohs(ip6->payload_len) > data_end)
		return XS_C_BAD_IP_LEN;
	/* IPv4-mapped addresses never appear in IPv6 headers (RFC 4291 2.5.5.2);
	 * keyed, they would be indistinguishable from IPv4 and match IPv4 VIPs. */
	if (xs_ip6_is_mapped((const __be32 *)&ip6->saddr) ||
	    xs_ip6_is_mapped((const __be32 *)&ip6->daddr))
		return XS_C_IP6_MAPPED;
	p->family = 6;
	p->tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	p->ip_len = (__u16)(sizeof(*ip6) + bpf_ntohs(ip6->payload_len));
	__builtin_memcpy(p->key.src, &ip6->saddr, 16);
	__builtin_memcpy(p->key.dst, &ip6->daddr, 16);
	nexthdr = ip6->nexthdr;
	pos = ip6 + 1;
	end = pos + bpf_ntohs(ip6->payload_len);
	XS_OPAQUE(end);

	for (i = 0; i < XS_IP6_MAX_EXT; i++) {
		struct xs_ip6_ext *ext = pos;
		struct xs_ip6_frag *frag = pos;

		switch (nexthdr) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			if (XS_PAST(ext, sizeof(*ext), end, data_end))
				return XS_C_TRUNC_IP;
			nexthdr = ext->nexthdr;
			pos += (ext->hdrlen + 1) * 8;
			break;
		case IPPROTO_FRAGMENT:
			if (XS_PAST(frag, sizeof(*frag), end, data_end))
				return XS_C_TRUNC_IP;
			p->key.proto = frag->nexthdr;
			p->is_frag = 1;
			return XS_PARSE_OK;
		default:
			p->key.proto = nexthdr;
			p->l4_off = p->l3_off + (__u16)(pos - (void *)ip6);
			return xs_parse_ports(pos, end, data_end, nexthdr, p);
		}
	}
	return XS_C_IP6_EXT_LIMIT;
}

XS_INLINE int xs_parse(void *data, void *data_end, struct xs_parsed *p)
{
	struct ethhdr *eth = data;
	void *pos = eth + 1;
	__be16 proto;
	int i;

	if (pos > data_end)
		return XS_C_TRUNC_ETH;
	proto = eth->h_proto;

	for (i = 0; i < XS_MAX_VLANS; i++) {
		struct xs_vlan_hdr *vlan = pos;

		if (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))
			break;
		if ((void *)(vlan + 1) > data_end)
			return XS_C_TRUNC_ETH;
		proto = vlan->encap_proto;
		pos = vlan + 1;
	}

	p->l3_off = (__u16)(pos - data);
	switch (proto) {
	case bpf_htons(ETH_P_IP):
		return xs_parse_ipv4(pos, data_end, p);
	case bpf_htons(ETH_P_IPV6):
		return xs_parse_ipv6(pos, data_end, p);
	case bpf_htons(ETH_P_8021Q):
	case bpf_htons(ETH_P_8021AD):
		return XS_C_VLAN_TOO_DEEP;
	default:
		return XS_C_NOT_IP;
	}
}

/* Two 32-bit fields adjacent in the key, as one word in memory order. */
XS_INLINE __u64 xs_key_pair(__be32 lo, __be32 hi)
{
	return (__u64)lo | (__u64)hi << 32;
}

/*
 * The common case, without the loops and branches of xs_parse(): an
 * untagged IPv4 packet without options that is not a fragment, or an IPv6
 * packet without extension headers, carrying TCP or UDP. Returns 0 with @p
 * filled exactly as xs_parse() fills a zeroed xs_parsed for the same frame
 * (tests/unit/test_parse_fast.c checks that on every frame it accepts), or
 * -1 with @p untouched: xs_parse() then handles the frame. The XDP program
 * calls it first because xs_parse() is a global subprogram there, and the
 * call and its return cost an established flow about 10 ns of its ~60.
 */
XS_INLINE int xs_parse_fast(void *data, void *data_end, struct xs_parsed *p)
{
	struct ethhdr *eth = data;
	__u64 w[XS_FLOW_KEY_WORDS];
	__u8 *l4, proto, flags = 0;
	__u32 ports;
	__u8 tos, family;
	__be16 eth_proto;
	__u16 ip_len;

	/* The shortest frame accepted: Ethernet, IPv4, UDP. */
	if (data + sizeof(*eth) + sizeof(struct iphdr) + sizeof(struct udphdr) > data_end)
		return -1;
	/* struct ethhdr is packed: through it, the type is read a byte at a time. */
	eth_proto = ((__be16 *)data)[6];
	if (eth_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		/* Version 4, IHL 5: no options. */
		if (*(__u8 *)ip != 0x45 || ip->frag_off & bpf_htons(XS_IP_MF | XS_IP_OFFSET))
			return -1;
		ip_len = bpf_ntohs(ip->tot_len);
		proto = ip->protocol;
		l4 = (void *)(ip + 1);
		/* A datagram too short for UDP or TCP is the general parser's: it cuts L4. */
		if (ip_len < sizeof(*ip) + sizeof(struct udphdr) || (void *)ip + ip_len > data_end)
			return -1;
		/* An IPv4 address is keyed IPv4-mapped: ::ffff:a.b.c.d. */
		w[0] = 0;
		w[1] = xs_key_pair(bpf_htonl(0xffff), ip->saddr);
		w[2] = 0;
		w[3] = xs_key_pair(bpf_htonl(0xffff), ip->daddr);
		tos = ip->tos;
		family = 4;
	} else if (eth_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		l4 = (void *)(ip6 + 1);
		if ((void *)(l4 + sizeof(struct udphdr)) > data_end || ip6->version != 6)
			return -1;
		proto = ip6->nexthdr;
		if (bpf_ntohs(ip6->payload_len) < sizeof(struct udphdr) ||
		    (void *)l4 + bpf_ntohs(ip6->payload_len) > data_end ||
		    xs_ip6_is_mapped((const __be32 *)&ip6->saddr) ||
		    xs_ip6_is_mapped((const __be32 *)&ip6->daddr))
			return -1;
		ip_len = (__u16)(sizeof(*ip6) + bpf_ntohs(ip6->payload_len));
		__builtin_memcpy(w, &ip6->saddr, 32); /* saddr, then daddr */
		tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
		family = 6;
	} else {
		return -1;
	}
	if (proto == IPPROTO_TCP) {
		/* The TCP header within the datagram (and, for the verifier, the frame). */
		if (ip_len < (family == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr)) +
				     sizeof(struct tcphdr) ||
		    (void *)(l4 + sizeof(struct tcphdr)) > data_end)
			return -1;
		flags = l4[13];
	} else if (proto != IPPROTO_UDP) {
		return -1;
	}
	/* TCP and UDP both start with the 16-bit source and dest ports. */
	ports = ((__be16 *)l4)[0] | (__u32)((__be16 *)l4)[1] << 16;
	w[4] = ports | (__u64)proto << 32; /* sport, dport, proto; domain 0 */
	/*
	 * The key is stored a word at a time: the flow-cache hash reads it back
	 * as words, and a word read of narrower stores cannot be forwarded from
	 * the store buffer (a stall of a dozen cycles per word).
	 */
	__builtin_memcpy(&p->key, w, sizeof(w));
	p->family = family;
	p->tos = tos;
	p->l3_off = sizeof(*eth);
	p->l4_off = (__u16)(l4 - (__u8 *)data);
	p->ip_len = ip_len;
	p->tcp_flags = flags;
	return 0;
}

#endif /* XS_PARSE_H */
