// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Writes the fuzzer's seed corpus: one valid frame per parse path and per
 * way out of the program (queue, each service encapsulation, echo reply,
 * too big), built with tests/prog/pkt.h. Usage: gen_corpus DIR
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "pkt.h"

#define VIP4 "10.99.0.1"
#define VIP6 "2001:db8:99::1"

static const char *dir;
static int failed;

static void save(const char *name, const struct pkt *p)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p->buf, 1, p->len, f) != p->len) {
		fprintf(stderr, "gen_corpus: cannot write %s: %s\n", path, strerror(errno));
		failed = 1;
	}
	if (f)
		fclose(f);
}

static void v4(struct pkt *p, const char *src, const char *dst, unsigned char proto,
	       unsigned short sp, unsigned short dp, unsigned int payload)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, dst, proto, 0);
	pkt_ports(p, proto, sp, dp);
	pkt_payload(p, payload);
	pkt_finish(p);
}

static void v6(struct pkt *p, const char *src, const char *dst, unsigned char proto,
	       unsigned short sp, unsigned short dp, unsigned int payload)
{
	pkt_eth(p, ETH_P_IPV6);
	pkt_ipv6(p, src, dst, proto);
	pkt_ports(p, proto, sp, dp);
	pkt_payload(p, payload);
	pkt_finish(p);
}

static void icmp(struct pkt *p, int family, const char *src, const char *dst,
		 unsigned char type, unsigned char code)
{
	unsigned char *h;

	pkt_eth(p, family == 4 ? ETH_P_IP : ETH_P_IPV6);
	if (family == 4)
		pkt_ipv4(p, src, dst, IPPROTO_ICMP, 0);
	else
		pkt_ipv6(p, src, dst, IPPROTO_ICMPV6);
	h = pkt_push(p, 8);
	h[0] = type;
	h[1] = code;
}

/* A QUIC packet to the quic service (VIP4:443/udp): @first byte, then a connection id for @sid. */
static void quic(struct pkt *p, const char *src, unsigned char first, unsigned int sid)
{
	unsigned char *q;

	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, VIP4, IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, 50000, 443);
	q = pkt_push(p, 1 + 8);
	q[0] = first;
	q[1] = (unsigned char)(0x40 | (sid >> 10 & 0x3f));
	q[2] = (unsigned char)(sid >> 2);
	q[3] = (unsigned char)((sid & 3) << 6);
	pkt_payload(p, 32);
	pkt_finish(p);
}

/* An ICMP error about a packet the backend sent from the VIP to the client. */
static void icmp_error(struct pkt *p, int family, unsigned int quote_bytes)
{
	struct pkt q;

	if (family == 4) {
		v4(&q, VIP4, "198.51.100.9", IPPROTO_TCP, 80, 40000, 0);
		icmp(p, 4, "192.0.2.1", VIP4, 3, 4);
	} else {
		v6(&q, VIP6, "2001:db8:c::9", IPPROTO_TCP, 443, 40000, 0);
		icmp(p, 6, "2001:db8:c::1", VIP6, 2, 0);
	}
	memcpy(pkt_push(p, quote_bytes), q.buf + ETH_HLEN, quote_bytes);
	pkt_finish(p);
}

int main(int argc, char **argv)
{
	struct pkt p;
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	/* Queue targets: every L4 parse path. */
	v4(&p, "10.0.0.1", "10.0.0.2", IPPROTO_TCP, 1000, 80, 0);
	save("v4_tcp", &p);
	v4(&p, "10.0.0.1", "10.0.0.2", IPPROTO_UDP, 5000, 53, 12);
	save("v4_udp", &p);
	v4(&p, "10.0.0.1", "10.0.0.2", IPPROTO_SCTP, 3868, 3868, 4);
	save("v4_sctp", &p);
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.0.1", "10.0.0.2", IPPROTO_GRE, 0);
	pkt_payload(&p, 8);
	pkt_finish(&p);
	save("v4_gre_no_ports", &p);
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.0.3", "10.0.0.2", IPPROTO_TCP, 4);
	pkt_ports(&p, IPPROTO_TCP, 1234, 443);
	pkt_finish(&p);
	save("v4_options", &p);
	v4(&p, "10.0.0.4", "10.0.0.2", IPPROTO_UDP, 7777, 53, 32);
	pkt_ipv4_frag(&p, 0, 1);
	pkt_finish(&p);
	save("v4_frag_first", &p);
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.0.4", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_payload(&p, 16);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 5, 0);
	pkt_finish(&p);
	save("v4_frag_later", &p);

	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 100);
	pkt_ipv4(&p, "10.0.1.1", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 5000, 53);
	pkt_finish(&p);
	save("vlan", &p);
	pkt_eth(&p, ETH_P_IPV6);
	pkt_vlan(&p, ETH_P_8021Q, 100);
	pkt_vlan(&p, ETH_P_8021AD, 200);
	pkt_ipv6(&p, "2001:db8::7", "2001:db8::2", IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 1, 2);
	pkt_finish(&p);
	save("qinq_v6", &p);
	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 1);
	pkt_vlan(&p, ETH_P_8021Q, 2);
	pkt_vlan(&p, ETH_P_8021AD, 3);
	pkt_ipv4(&p, "10.0.1.3", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 5000, 53);
	pkt_finish(&p);
	save("vlan_too_deep", &p);
	pkt_eth(&p, ETH_P_ARP);
	pkt_payload(&p, 28);
	save("arp", &p);

	v6(&p, "2001:db8::1", "2001:db8::2", IPPROTO_TCP, 4000, 80, 0);
	save("v6_tcp", &p);
	v6(&p, "2001:db8::1", "2001:db8::2", IPPROTO_UDP, 4000, 53, 8);
	save("v6_udp", &p);
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::3", "2001:db8::2", IPPROTO_TCP);
	pkt_ip6_ext(&p, IPPROTO_HOPOPTS, 0, IPPROTO_TCP);
	pkt_ip6_ext(&p, IPPROTO_ROUTING, 1, IPPROTO_TCP);
	pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 4000, 80);
	pkt_finish(&p);
	save("v6_ext_chain", &p);
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::3", "2001:db8::2", IPPROTO_TCP);
	for (i = 0; i < 8; i++)
		pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 4000, 80);
	pkt_finish(&p);
	save("v6_ext_limit", &p);
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::5", "2001:db8::2", IPPROTO_UDP);
	pkt_ip6_frag(&p, 0, 1, IPPROTO_UDP);
	pkt_ports(&p, IPPROTO_UDP, 9000, 53);
	pkt_finish(&p);
	save("v6_frag", &p);

	/* ICMP: echo to a plain address and to a VIP (answered), errors, other types. */
	icmp(&p, 4, "10.0.4.2", "10.0.0.2", 8, 0);
	pkt_finish(&p);
	save("v4_echo", &p);
	icmp(&p, 4, "198.51.100.3", VIP4, 8, 0);
	pkt_payload(&p, 16);
	pkt_finish(&p);
	save("v4_echo_vip", &p);
	icmp(&p, 6, "2001:db8:c::3", VIP6, 128, 0);
	pkt_payload(&p, 16);
	pkt_finish(&p);
	save("v6_echo_vip", &p);
	/* Id 0, seq 0, no payload, a valid checksum: the reply is all zeros but
	 * for its checksum, 0xffff. */
	icmp(&p, 4, "198.51.100.4", VIP4, 8, 0);
	pkt_finish(&p);
	p.buf[p.l3_off + 22] = 0xf7;
	p.buf[p.l3_off + 23] = 0xff;
	save("v4_echo_vip_zeros", &p);
	/* Echo requests a VIP declines: IPv4 options, ICMPv6 behind a hop-by-hop header. */
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "198.51.100.5", VIP4, IPPROTO_ICMP, 1);
	((unsigned char *)pkt_push(&p, 8))[0] = 8;
	pkt_finish(&p);
	save("v4_echo_vip_options", &p);
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8:c::5", VIP6, IPPROTO_ICMPV6);
	pkt_ip6_ext(&p, IPPROTO_HOPOPTS, 0, IPPROTO_ICMPV6);
	((unsigned char *)pkt_push(&p, 8))[0] = 128;
	pkt_finish(&p);
	save("v6_echo_vip_ext", &p);
	/* Datagrams that end before their transport header, in longer frames. */
	v4(&p, "198.51.100.6", VIP4, IPPROTO_TCP, 40004, 80, 16);
	((struct iphdr *)(p.buf + p.l3_off))->tot_len = htons(24);
	save("v4_tcp_short_datagram", &p);
	v6(&p, "2001:db8:c::6", VIP6, IPPROTO_TCP, 40004, 443, 16);
	((struct ipv6hdr *)(p.buf + p.l3_off))->payload_len = htons(8);
	save("v6_tcp_short_datagram", &p);
	icmp(&p, 4, "10.0.4.5", "10.0.0.2", 11, 0);
	pkt_payload(&p, 28);
	pkt_finish(&p);
	save("v4_icmp_other", &p);
	icmp_error(&p, 4, 28);
	save("v4_frag_needed", &p);
	icmp_error(&p, 4, 22);
	save("v4_frag_needed_cut", &p);
	icmp_error(&p, 6, 48);
	save("v6_too_big", &p);

	/* Services: ipip (IPv4 and IPv6 backends), L2 any-port, ip6ip6, too big. */
	v4(&p, "198.51.100.7", VIP4, IPPROTO_TCP, 40000, 80, 100);
	save("svc_ipip", &p);
	v4(&p, "198.51.100.8", VIP4, IPPROTO_TCP, 40001, 80, 0);
	((struct tcphdr *)(p.buf + p.l4_off))->fin = 1;
	save("svc_ipip_fin", &p);
	v4(&p, "198.51.100.7", VIP4, IPPROTO_UDP, 40000, 5353, 20);
	save("svc_l2_any_port", &p);
	v6(&p, "2001:db8:c::7", VIP6, IPPROTO_TCP, 40000, 443, 60);
	save("svc_ip6ip6", &p);
	/* QUIC to the quic service: an Initial (hashed), short headers naming
	 * backend 388 and 389 (fuzz_env.h), and one naming no backend. */
	quic(&p, "198.51.100.10", 0xc3, 388);
	save("svc_quic_initial", &p);
	quic(&p, "198.51.100.10", 0x41, 388);
	save("svc_quic_short_388", &p);
	quic(&p, "198.51.100.11", 0x41, 389);
	save("svc_quic_short_389", &p);
	quic(&p, "198.51.100.12", 0x41, 4000);
	save("svc_quic_short_unknown", &p);
	v4(&p, "198.51.100.9", VIP4, IPPROTO_TCP, 40002, 80, 1460);
	save("svc_too_big", &p);
	/* With DF: answered with "fragmentation needed"; IPv6: "packet too big". */
	((struct iphdr *)(p.buf + p.l3_off))->frag_off = htons(0x4000);
	pkt_finish(&p);
	save("svc_too_big_df", &p);
	v6(&p, "2001:db8:c::8", VIP6, IPPROTO_TCP, 40003, 443, 1440);
	save("svc_too_big_v6", &p);
	return failed;
}
