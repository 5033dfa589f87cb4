// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * BPF_PROG_TEST_RUN of GUE delivery (--encap gue), both sides: the load
 * balancer's frame is held byte for byte to one built here independently
 * (outer IPv4 or IPv6, UDP with the flow's source port, GUE version 0 with
 * the inner protocol), on the long way and from the flow cache; the MTU
 * policy counts GUE's 12 bytes; and the backend's decap program strips
 * exactly those headers, and passes what is not GUE for it.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/udp.h>
#include "one_cpu.h"
#include "pkt.h"
#include "test.h"
#include "frames.h"
#include "xs_gue.h"

static struct prog_env env;

#include "lb_env.h"
#include "decap_env.h"

static __u64 counter(__u32 c)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[c];
}

static void tcp_pkt(struct pkt *p, const char *src, const char *vip, __u16 sport, __u16 dport,
		    __u8 tos, __u32 payload)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, vip, IPPROTO_TCP, 0);
	((struct iphdr *)(p->buf + p->l3_off))->tos = tos;
	pkt_ports(p, IPPROTO_TCP, sport, dport);
	pkt_payload(p, payload);
	pkt_finish(p);
}

/* UDP and GUE as the wire format says (xs_gue.h), written field by field here. */
static void push_udp_gue(struct pkt *want, __u32 hash, __u32 inner_len, __u8 inner_proto)
{
	__u8 *u = pkt_push(want, 12);
	__u16 sport = 49152 + ((hash >> 12) & 0x3fff); /* the flow label's low 14 bits */

	u[0] = sport >> 8;
	u[1] = sport & 0xff;
	u[2] = XS_DEFAULT_GUE_PORT >> 8; /* 19523 = 0x4c43 */
	u[3] = XS_DEFAULT_GUE_PORT & 0xff;
	u[4] = (inner_len + 12) >> 8;
	u[5] = (inner_len + 12) & 0xff;
	u[6] = u[7] = 0;     /* checksum zero */
	u[8] = 0;            /* version 0, C 0, Hlen 0 */
	u[9] = inner_proto;  /* 4 or 41 */
	u[10] = u[11] = 0;   /* flags */
}

/* The GUE frame a client's IPv4 packet @in becomes towards IPv4 backend @backend. */
static void expect_gue4(struct pkt *want, const struct pkt *in, const unsigned char *dmac,
			const unsigned char *smac, const char *backend, __u32 hash)
{
	__u32 inner_len;
	const struct iphdr *inner = frame_inner4(in, &inner_len);

	frame_outer4(want, in, dmac, smac, backend, hash, IPPROTO_UDP, 12);
	push_udp_gue(want, hash, inner_len, IPPROTO_IPIP);
	memcpy(pkt_push(want, inner_len), inner, inner_len);
}


/* The flow's second packet: sent from its recipe, to the very same bytes. */
static void again_from_cache(const struct pkt *in, const struct pkt *want, const char *what)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 hits = counter(XS_C_FLOW_HIT), made = counter(XS_C_RECIPE_MADE);
	int ret;

	ret = prog_env_run_on(&env, if_a, in->buf, in->len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, what);
	ASSERT_TRUE(counter(XS_C_FLOW_HIT) - hits == 1 && counter(XS_C_RECIPE_MADE) == made,
		    "%s: the second packet is sent from its recipe", what);
	check_frame(want, out, out_len, what);
}

TEST(gue4_exact_bytes)
{
	static const char *const be[] = { "10.20.0.11" };
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct xs_flow_key k;
	struct pkt in, want;
	int ret;

	if (!ASSERT_TRUE(add_service("10.98.0.1:80/tcp", XS_ENCAP_GUE, be, 1), "service"))
		return;
	tcp_pkt(&in, "198.51.100.7", "10.98.0.1", 40000, 80, 0xb8, 100);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "verdict: out of the ingress interface");
	v4_key(&k, "198.51.100.7", "10.98.0.1", 40000, 80);
	expect_gue4(&want, &in, mac_be, mac_a, "10.20.0.11", flow_hash32(&k));
	check_frame(&want, out, out_len, "GUE frame");
	again_from_cache(&in, &want, "GUE frame, from the cache");
}

/* Flows of one service get source ports spread over the dynamic range. */
TEST(gue_source_port_is_the_flows)
{
	unsigned char out[2048] = { 0 };
	__u32 out_len, i, distinct = 0;
	__u16 port, seen[32] = { 0 };
	struct xs_flow_key k;
	struct pkt in;

	for (i = 0; i < 32; i++) {
		__u32 j;

		tcp_pkt(&in, "198.51.100.8", "10.98.0.1", (__u16)(41000 + i), 80, 0, 10);
		out_len = sizeof(out);
		if (!ASSERT_EQ(prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL),
			       XDP_TX, "verdict"))
			return;
		port = (__u16)((out[34] << 8) | out[35]);
		v4_key(&k, "198.51.100.8", "10.98.0.1", (__u16)(41000 + i), 80);
		ASSERT_EQ(port, 49152 + ((flow_hash32(&k) >> 12) & 0x3fff), "source port");
		ASSERT_TRUE(port >= 49152, "source port %u in the dynamic range", port);
		for (j = 0; j < distinct && seen[j] != port; j++)
			;
		if (j == distinct)
			seen[distinct++] = port;
	}
	ASSERT_TRUE(distinct >= 28, "32 flows, %u distinct source ports", distinct);
}

TEST(gue6_carries_ipv4_and_ipv6)
{
	static const char *const be6[] = { "2001:db8:20::11" };
	unsigned char out[2048];
	__u32 out_len = sizeof(out), hash, label;
	struct xs_flow_key k;
	struct ipv6hdr ip6;
	struct pkt in;
	__u8 *u;
	int ret;

	if (!ASSERT_TRUE(add_service("10.98.0.2:443/tcp", XS_ENCAP_GUE, be6, 1), "service") ||
	    !ASSERT_TRUE(add_service("[2001:db8:98::2]:443/tcp", XS_ENCAP_GUE, be6, 1), "service6"))
		return;
	tcp_pkt(&in, "198.51.100.9", "10.98.0.2", 40002, 443, 0x28, 100);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "IPv4 in GUE over IPv6: verdict");
	ASSERT_EQ(out_len, in.len + 40 + 12, "length: outer IPv6, UDP, GUE");
	memcpy(&ip6, out + 14, sizeof(ip6));
	v4_key(&k, "198.51.100.9", "10.98.0.2", 40002, 443);
	hash = flow_hash32(&k);
	ASSERT_EQ(ip6.nexthdr, IPPROTO_UDP, "next header UDP");
	ASSERT_EQ(ntohs(ip6.payload_len), in.len - 14 + 12, "payload length: UDP, GUE, inner");
	ASSERT_EQ(ip6.hop_limit, 64, "hop limit");
	label = ((ip6.flow_lbl[0] & 0xf) << 16) | (ip6.flow_lbl[1] << 8) | ip6.flow_lbl[2];
	ASSERT_EQ(label, (hash >> 12) & 0xfffff, "flow label from the flow hash");
	u = out + 14 + 40;
	ASSERT_EQ((u[0] << 8) | u[1], 49152 + (label & 0x3fff), "UDP source port");
	ASSERT_EQ((u[2] << 8) | u[3], XS_DEFAULT_GUE_PORT, "UDP destination port");
	ASSERT_EQ((u[4] << 8) | u[5], in.len - 14 + 12, "UDP length");
	ASSERT_EQ((u[6] << 8) | u[7], 0, "UDP checksum zero (RFC 6935)");
	ASSERT_EQ(u[8], 0, "GUE version 0, data, no extension");
	ASSERT_EQ(u[9], IPPROTO_IPIP, "GUE proto 4: IPv4 inside");
	ASSERT_TRUE(!memcmp(out + 14 + 52, in.buf + 14, in.len - 14), "inner packet unchanged");

	pkt_eth(&in, ETH_P_IPV6);
	pkt_ipv6(&in, "2001:db8:5::7", "2001:db8:98::2", IPPROTO_TCP);
	pkt_ports(&in, IPPROTO_TCP, 40003, 443);
	pkt_payload(&in, 64);
	pkt_finish(&in);
	out_len = sizeof(out);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "IPv6 in GUE over IPv6: verdict");
	ASSERT_EQ(out[14 + 52 - 3], IPPROTO_IPV6, "GUE proto 41: IPv6 inside");
	ASSERT_TRUE(!memcmp(out + 14 + 52, in.buf + 14, in.len - 14), "inner packet unchanged");
}

/*
 * The MTU policy counts GUE's 32 bytes (IPv4, UDP, GUE): 1468 bytes of IP
 * fit lbA's 1500, 1469 do not, where ipip's 20 bytes would still fit.
 */
TEST(gue_mtu_counts_its_headers)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 tb = counter(XS_C_TOO_BIG);
	struct pkt in;
	int ret;

	tcp_pkt(&in, "198.51.100.10", "10.98.0.1", 40020, 80, 0, 1468 - 40);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "1468 bytes: fits");
	ASSERT_EQ(out_len, 14 + 1500, "a full 1500-byte frame");
	tcp_pkt(&in, "198.51.100.10", "10.98.0.1", 40021, 80, 0, 1469 - 40);
	((struct iphdr *)(in.buf + in.l3_off))->frag_off = htons(0x4000) /* DF */;
	pkt_finish(&in);
	out_len = sizeof(out);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	/* With DF, attach's default: ICMP "fragmentation needed" back, MTU 1500 - 32. */
	ASSERT_EQ(ret, XDP_TX, "1469 bytes: answered");
	ASSERT_EQ(counter(XS_C_TOO_BIG) - tb, 0, "answered, so not counted too_big");
	ASSERT_EQ(out[14 + 9], IPPROTO_ICMP, "the answer is ICMP");
	ASSERT_EQ(out[14 + 20], 3, "destination unreachable");
	ASSERT_EQ(out[14 + 20 + 1], 4, "fragmentation needed");
	ASSERT_EQ((out[14 + 26] << 8) | out[14 + 27], 1500 - 32, "next-hop MTU leaves room for GUE");
}

static int decap_run(const void *in, __u32 len, unsigned char *out, __u32 *out_len)
{
	return decap_run_on(0, in, len, out, out_len);
}

/* What the load balancer sends, the backend's decap program turns back into the client's packet. */
TEST(decap_strips_gue_exactly)
{
	unsigned char out[2048];
	__u32 out_len;
	__u64 n = decap_counter(XS_D_GUE);
	struct pkt in, lb, inner6;
	int ret;

	decap_add_local("10.20.0.11");
	decap_add_local("2001:db8:20::11");
	tcp_pkt(&in, "198.51.100.11", "10.98.0.1", 40030, 80, 0x10, 300);
	lb.len = sizeof(lb.buf);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, lb.buf, &lb.len, NULL);
	if (!ASSERT_EQ(ret, XDP_TX, "the load balancer's GUE frame"))
		return;
	out_len = sizeof(out);
	ret = decap_run(lb.buf, lb.len, out, &out_len);
	ASSERT_EQ(ret, XDP_PASS, "decap verdict");
	ASSERT_EQ(out_len, in.len, "the client's packet's length");
	ASSERT_TRUE(!memcmp(out, mac_be, 6), "destination MAC: the backend's, as received");
	ASSERT_EQ((out[12] << 8) | out[13], ETH_P_IP, "ethertype of the inner packet");
	ASSERT_TRUE(!memcmp(out + 14, in.buf + 14, in.len - 14), "the client's IP packet");
	ASSERT_EQ(decap_counter(XS_D_GUE) - n, 1, "counted gue");

	/* IPv6 inside GUE over IPv6. */
	pkt_eth(&inner6, ETH_P_IPV6);
	pkt_ipv6(&inner6, "2001:db8:5::8", "2001:db8:98::2", IPPROTO_TCP);
	pkt_ports(&inner6, IPPROTO_TCP, 40031, 443);
	pkt_payload(&inner6, 64);
	pkt_finish(&inner6);
	lb.len = sizeof(lb.buf);
	ret = prog_env_run_on(&env, if_a, inner6.buf, inner6.len, 1, lb.buf, &lb.len, NULL);
	if (!ASSERT_EQ(ret, XDP_TX, "the load balancer's IPv6 GUE frame"))
		return;
	out_len = sizeof(out);
	ret = decap_run(lb.buf, lb.len, out, &out_len);
	ASSERT_EQ(ret, XDP_PASS, "decap verdict, IPv6");
	ASSERT_EQ(out_len, inner6.len, "IPv6 length");
	ASSERT_EQ((out[12] << 8) | out[13], ETH_P_IPV6, "ethertype IPv6");
	ASSERT_TRUE(!memcmp(out + 14, inner6.buf + 14, inner6.len - 14), "the client's IPv6 packet");
	ASSERT_EQ(decap_counter(XS_D_GUE) - n, 2, "counted gue twice");
}

/* Other UDP, other GUE versions, control messages and unknown inner protocols pass untouched. */
TEST(decap_passes_what_is_not_its_gue)
{
	static const struct {
		__u16 port;
		__u8 b0, proto;
		__u32 counter;
		const char *what;
	} cases[] = {
		{ 53, 0, 4, XS_D_NOT_TUNNEL, "another UDP port" },
		{ XS_DEFAULT_GUE_PORT, 0x40, 4, XS_D_GUE_OTHER, "GUE version 1" },
		{ XS_DEFAULT_GUE_PORT, 0x20, 4, XS_D_GUE_OTHER, "a GUE control message" },
		{ XS_DEFAULT_GUE_PORT, 0, 17, XS_D_GUE_OTHER, "GUE carrying UDP" },
	};
	unsigned char out[2048];
	__u32 i, out_len;
	struct pkt in;
	__u8 *u;

	for (i = 0; i < XS_ARRAY_SIZE(cases); i++) {
		__u64 before = decap_counter(cases[i].counter);

		pkt_eth(&in, ETH_P_IP);
		pkt_ipv4(&in, "10.20.0.1", "10.20.0.11", IPPROTO_UDP, 0);
		u = pkt_push(&in, 12);
		u[2] = cases[i].port >> 8;
		u[3] = cases[i].port & 0xff;
		u[5] = 12 + 28;
		u[8] = cases[i].b0;
		u[9] = cases[i].proto;
		pkt_payload(&in, 28);
		pkt_finish(&in);
		out_len = sizeof(out);
		ASSERT_EQ(decap_run(in.buf, in.len, out, &out_len), XDP_PASS, cases[i].what);
		ASSERT_TRUE(out_len == in.len && !memcmp(out, in.buf, in.len), "%s: untouched",
			    cases[i].what);
		ASSERT_EQ(decap_counter(cases[i].counter) - before, 1, cases[i].what);
	}
}

TEST_NEEDS(gue_source_port_is_the_flows, gue4_exact_bytes)
TEST_NEEDS(gue_mtu_counts_its_headers, gue4_exact_bytes)
TEST_NEEDS(decap_strips_gue_exactly, gue6_carries_ipv4_and_ipv6)

static int setup(void)
{
	if (stay_on_one_cpu("prog_gue"))
		exit(1);
	if (netns_setup() || prog_env_open(&env, 4096, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed)) {
		fprintf(stderr, "FAIL: cannot set up the namespace or load the XDP program\n");
		return -1;
	}
	decap = xs_decap__open_and_load();
	if (!decap) {
		fprintf(stderr, "FAIL: cannot load the decap program: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	xs_decap__destroy(decap);
	prog_env_close(&env);
}

TEST_MAIN("prog_gue", setup, teardown)
