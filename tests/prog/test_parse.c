// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * BPF_PROG_TEST_RUN: one crafted packet per parse path, each with its exact
 * verdict, the exact change of every counter, and (when steered) the target
 * that the userspace decision predicts for the flow key we expect.
 */
#include <linux/bpf.h>
#include "prog_env.h"
#include "pkt.h"
#include "xs_parse.h"
#include "test.h"

static struct prog_env env;
static const __u64 seed[2] = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL };

#include "expect.h"

static void v4_tcp(struct pkt *p, const char *s, __u16 sp)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, s, "10.0.0.2", IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, sp, 80);
	pkt_finish(p);
}

TEST(no_targets_pass)
{
	struct prog_env empty;
	struct pkt p;

	if (!ASSERT_EQ(prog_env_open(&empty, 1024, XDP_PASS), 0, "open"))
		return;
	v4_tcp(&p, "10.0.0.1", 1000);
	{
		__u64 c[XS_C_MAX];
		int ret = prog_env_run(&empty, p.buf, p.len, 1, NULL, NULL, NULL);

		counters(&empty, c);
		ASSERT_EQ(ret, XDP_PASS, "verdict without a pool");
		ASSERT_EQ(c[XS_C_NO_TARGETS], 1, "no_targets");
	}
	prog_env_close(&empty);
}

TEST(ipv4_tcp_new_then_hit)
{
	struct xs_flow_key k;
	struct pkt p;

	v4_tcp(&p, "10.0.0.1", 1000);
	key_v4(&k, "10.0.0.1", "10.0.0.2", IPPROTO_TCP, 1000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "first packet");
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_HIT), &k, "second packet");
}

TEST(vlan_and_qinq)
{
	struct xs_flow_key k;
	struct pkt p;

	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 100);
	pkt_ipv4(&p, "10.0.1.1", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 5000, 53);
	pkt_payload(&p, 10);
	pkt_finish(&p);
	key_v4(&k, "10.0.1.1", "10.0.0.2", IPPROTO_UDP, 5000, 53);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "802.1Q");

	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 100);
	pkt_vlan(&p, ETH_P_8021AD, 200);
	pkt_ipv4(&p, "10.0.1.2", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 5000, 53);
	pkt_finish(&p);
	key_v4(&k, "10.0.1.2", "10.0.0.2", IPPROTO_UDP, 5000, 53);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "802.1ad + 802.1Q");

	pkt_eth(&p, ETH_P_IP);
	pkt_vlan(&p, ETH_P_8021Q, 1);
	pkt_vlan(&p, ETH_P_8021Q, 2);
	pkt_vlan(&p, ETH_P_8021AD, 3);
	pkt_ipv4(&p, "10.0.1.3", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 5000, 53);
	pkt_finish(&p);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_VLAN_TOO_DEEP), NULL, "three tags");
}

TEST(ipv4_options_and_ihl)
{
	struct xs_flow_key k;
	struct pkt p;

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.2.1", "10.0.0.2", IPPROTO_TCP, 3);
	pkt_ports(&p, IPPROTO_TCP, 1234, 443);
	pkt_finish(&p);
	key_v4(&k, "10.0.2.1", "10.0.0.2", IPPROTO_TCP, 1234, 443);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "12 bytes of options skipped");

	v4_tcp(&p, "10.0.2.2", 1);
	((struct iphdr *)(p.buf + p.l3_off))->ihl = 4;
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IHL), NULL, "IHL 4");

	v4_tcp(&p, "10.0.2.3", 1);
	((struct iphdr *)(p.buf + p.l3_off))->ihl = 15;
	expect(&p, 14 + 40, XDP_PASS, BUMP(XS_C_TRUNC_IP), NULL, "IHL 15 past the end");

	v4_tcp(&p, "10.0.2.4", 1);
	((struct iphdr *)(p.buf + p.l3_off))->tot_len = htons(1000);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_BAD_IP_LEN), NULL, "total length beyond the frame");
}

TEST(ipv4_fragments_meet)
{
	struct xs_flow_key k;
	struct pkt p;

	/* First fragment carries ports, but every fragment keys on (src, dst, proto). */
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.3.1", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_ports(&p, IPPROTO_UDP, 7777, 53);
	pkt_payload(&p, 32);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 0, 1);
	pkt_finish(&p);
	key_v4(&k, "10.0.3.1", "10.0.0.2", IPPROTO_UDP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_NEW), &k, "first fragment");

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.3.1", "10.0.0.2", IPPROTO_UDP, 0);
	pkt_payload(&p, 16);
	pkt_finish(&p);
	pkt_ipv4_frag(&p, 5, 0);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_HIT), &k, "last fragment");
}

TEST(ipv6_extension_headers)
{
	static const __u8 types[] = { IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_DSTOPTS };
	struct xs_flow_key k;
	struct pkt p;
	unsigned int i;

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::1", "2001:db8::2", IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 4000, 80);
	pkt_finish(&p);
	key_v6(&k, "2001:db8::1", "2001:db8::2", IPPROTO_TCP, 4000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "plain IPv6");

	for (i = 0; i < XS_ARRAY_SIZE(types); i++) {
		char src[64];

		snprintf(src, sizeof(src), "2001:db8::1:%u", i);
		pkt_eth(&p, ETH_P_IPV6);
		pkt_ipv6(&p, src, "2001:db8::2", IPPROTO_TCP);
		pkt_ip6_ext(&p, types[i], (__u8)i, IPPROTO_TCP);
		pkt_ports(&p, IPPROTO_TCP, 4000, 80);
		pkt_finish(&p);
		key_v6(&k, src, "2001:db8::2", IPPROTO_TCP, 4000, 80);
		expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "one extension header");
	}

	/* XS_IP6_MAX_EXT - 1 headers then TCP parse; XS_IP6_MAX_EXT headers do not. */
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::3", "2001:db8::2", IPPROTO_TCP);
	for (i = 0; i < XS_IP6_MAX_EXT - 1; i++)
		pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 4000, 80);
	pkt_finish(&p);
	key_v6(&k, "2001:db8::3", "2001:db8::2", IPPROTO_TCP, 4000, 80);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "longest chain parsed");

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::4", "2001:db8::2", IPPROTO_TCP);
	for (i = 0; i < XS_IP6_MAX_EXT; i++)
		pkt_ip6_ext(&p, IPPROTO_DSTOPTS, 0, IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 4000, 80);
	pkt_finish(&p);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_IP6_EXT_LIMIT), NULL, "chain past the limit");
}

TEST(ipv6_fragments_meet)
{
	struct xs_flow_key k;
	struct pkt p;

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::5", "2001:db8::2", IPPROTO_UDP);
	pkt_ip6_ext(&p, IPPROTO_HOPOPTS, 0, IPPROTO_UDP);
	pkt_ip6_frag(&p, 0, 1, IPPROTO_UDP);
	pkt_ports(&p, IPPROTO_UDP, 9000, 53);
	pkt_finish(&p);
	key_v6(&k, "2001:db8::5", "2001:db8::2", IPPROTO_UDP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_NEW), &k, "first fragment");

	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::5", "2001:db8::2", IPPROTO_UDP);
	pkt_ip6_frag(&p, 100, 0, IPPROTO_UDP);
	pkt_payload(&p, 24);
	pkt_finish(&p);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FRAGMENT, XS_C_FLOW_HIT), &k, "later fragment");
}

TEST(sctp_icmp_and_not_ip)
{
	struct xs_flow_key k;
	struct pkt p;

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.4.1", "10.0.0.2", IPPROTO_SCTP, 0);
	pkt_ports(&p, IPPROTO_SCTP, 3868, 3868);
	pkt_finish(&p);
	key_v4(&k, "10.0.4.1", "10.0.0.2", IPPROTO_SCTP, 3868, 3868);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "SCTP ports");

	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.0.4.2", "10.0.0.2", IPPROTO_ICMP, 0);
	pkt_payload(&p, 8);
	pkt_finish(&p);
	key_v4(&k, "10.0.4.2", "10.0.0.2", IPPROTO_ICMP, 0, 0);
	expect(&p, 0, XDP_REDIRECT, BUMP(XS_C_FLOW_NEW), &k, "ICMP keys without ports");

	pkt_eth(&p, ETH_P_ARP);
	pkt_payload(&p, 28);
	expect(&p, 0, XDP_PASS, BUMP(XS_C_NOT_IP), NULL, "ARP");
}

/*
 * Cut the frame at every length. With the IP length left as built, a cut in
 * the IP header is truncated_ip and a later cut makes the IP length a lie
 * (bad_ip_len). With the IP length rewritten to match the cut, a cut inside
 * TCP is truncated_l4.
 */
static void truncate_all(struct pkt *full, __u32 l3_hdr, const char *what)
{
	__u32 len, l4 = 14 + l3_hdr;
	char msg[96];

	for (len = ETH_HLEN; len < full->len; len++) {
		struct pkt p = *full;

		snprintf(msg, sizeof(msg), "%s cut at %u", what, len);
		expect(&p, len, XDP_PASS, BUMP(len < l4 ? XS_C_TRUNC_IP : XS_C_BAD_IP_LEN), NULL,
		       msg);
		if (len < l4)
			continue;
		if (p.l3_is_v6)
			((struct ipv6hdr *)(p.buf + 14))->payload_len = htons(len - l4);
		else
			((struct iphdr *)(p.buf + 14))->tot_len = htons(len - 14);
		snprintf(msg, sizeof(msg), "%s cut at %u, IP length agrees", what, len);
		expect(&p, len, XDP_PASS, BUMP(XS_C_TRUNC_L4), NULL, msg);
	}
}

TEST(truncated_at_every_length)
{
	struct pkt p;

	v4_tcp(&p, "10.0.5.1", 1);
	truncate_all(&p, 20, "IPv4/TCP");
	pkt_eth(&p, ETH_P_IPV6);
	pkt_ipv6(&p, "2001:db8::6", "2001:db8::2", IPPROTO_TCP);
	pkt_ports(&p, IPPROTO_TCP, 1, 2);
	pkt_finish(&p);
	truncate_all(&p, 40, "IPv6/TCP");
}

TEST(unparsed_drop_policy)
{
	struct prog_env drop;
	__u64 c[XS_C_MAX];
	struct pkt p;

	if (!ASSERT_EQ(prog_env_open(&drop, 1024, XDP_DROP), 0, "open"))
		return;
	pkt_eth(&p, ETH_P_ARP);
	pkt_payload(&p, 28);
	ASSERT_EQ(prog_env_run(&drop, p.buf, p.len, 1, NULL, NULL, NULL), XDP_DROP,
		  "--unparsed drop drops ARP");
	counters(&drop, c);
	ASSERT_EQ(c[XS_C_NOT_IP], 1, "not_ip");
	prog_env_close(&drop);
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

TEST_MAIN("prog_parse", setup, teardown)
