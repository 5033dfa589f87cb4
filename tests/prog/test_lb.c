// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * BPF_PROG_TEST_RUN of the service path, in a private network namespace
 * with its own veths, routes and permanent neighbours, so bpf_fib_lookup()
 * answers. Each case checks the verdict and the exact output bytes against
 * a frame built here independently (outer header, checksum, TTL, DSCP).
 * The whole test runs on one CPU, so a flow's second packet finds the entry
 * its first one left in that CPU's flow cache: each case sends its packet
 * twice and holds the cached way (the recipe) to the same bytes.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <linux/bpf.h>
#include "one_cpu.h"
#include "pkt.h"
#include "test.h"
#include "frames.h"

static struct prog_env env;

#include "lb_env.h"

static __u64 counter(__u32 c)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[c];
}

static void client_pkt(struct pkt *p, int vlan, const char *src, const char *vip, __u16 sport,
		       __u16 dport, __u8 tos)
{
	pkt_eth(p, ETH_P_IP);
	if (vlan)
		pkt_vlan(p, ETH_P_8021Q, 42);
	pkt_ipv4(p, src, vip, IPPROTO_TCP, 0);
	((struct iphdr *)(p->buf + p->l3_off))->tos = tos;
	pkt_ports(p, IPPROTO_TCP, sport, dport);
	pkt_payload(p, 100);
	pkt_finish(p);
}

/* Expected IPIP frame: new Ethernet, outer IPv4, then the inner IP packet unchanged. */
static void expect_ipip4(struct pkt *want, const struct pkt *in, const unsigned char *dmac,
			 const unsigned char *smac, const char *backend, __u32 hash)
{
	__u32 inner_len;
	const struct iphdr *inner = frame_inner4(in, &inner_len);

	frame_outer4(want, in, dmac, smac, backend, hash, IPPROTO_IPIP, 0);
	memcpy(pkt_push(want, inner_len), inner, inner_len);
}

/*
 * Send @in again: its flow is established now, so it must be sent from its
 * cache entry's recipe (one more flow_hit, and no recipe made: the long way
 * would have made one), with @verdict and the very bytes of the first time
 * (@first, @first_len).
 */
static void again_from_cache(const struct pkt *in, int verdict, const unsigned char *first,
			     __u32 first_len, const char *what)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 hits = counter(XS_C_FLOW_HIT), made = counter(XS_C_RECIPE_MADE);
	int ret;

	ret = prog_env_run_on(&env, if_a, in->buf, in->len, 1, out, &out_len, NULL);
	ASSERT_TRUE(ret == verdict, "%s, from the cache: verdict %d, want %d", what, ret, verdict);
	hits = counter(XS_C_FLOW_HIT) - hits;
	made = counter(XS_C_RECIPE_MADE) - made;
	ASSERT_TRUE(hits == 1 && made == 0,
		    "%s: the second packet is sent from its recipe (%llu hits, %llu recipes made)",
		    what, (unsigned long long)hits, (unsigned long long)made);
	if (first && ASSERT_TRUE(out_len == first_len, "%s, from the cache: %u bytes, want %u",
				 what, out_len, first_len))
		ASSERT_TRUE(!memcmp(out, first, out_len), "%s, from the cache: same bytes", what);
}


TEST(ipip4_exact_bytes)
{
	static const char *const be[] = { "10.20.0.11" };
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct xs_flow_key k;
	struct pkt in, want;
	int ret;

	if (!ASSERT_TRUE(add_service("10.99.0.1:80/tcp", XS_ENCAP_IPIP, be, 1), "service"))
		return;
	client_pkt(&in, 0, "198.51.100.7", "10.99.0.1", 40000, 80, 0xb8);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "verdict: out of the ingress interface");
	v4_key(&k, "198.51.100.7", "10.99.0.1", 40000, 80);
	expect_ipip4(&want, &in, mac_be, mac_a, "10.20.0.11", flow_hash32(&k));
	check_frame(&want, out, out_len, "IPIP frame");
	again_from_cache(&in, XDP_TX, want.buf, want.len, "IPIP frame");
}

TEST(vlan_tagged_vip)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct xs_flow_key k;
	struct pkt in, want;
	int ret;

	/* Same service as above; the tag is not carried into the tunnel. */
	client_pkt(&in, 1, "198.51.100.8", "10.99.0.1", 40001, 80, 0);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "verdict");
	v4_key(&k, "198.51.100.8", "10.99.0.1", 40001, 80);
	expect_ipip4(&want, &in, mac_be, mac_a, "10.20.0.11", flow_hash32(&k));
	check_frame(&want, out, out_len, "IPIP frame from a tagged packet");
	again_from_cache(&in, XDP_TX, want.buf, want.len, "IPIP frame from a tagged packet");
}

TEST(ipv4_in_ipv6_and_ip6ip6)
{
	static const char *const be6[] = { "2001:db8:20::11" };
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct xs_flow_key k;
	struct ipv6hdr ip6; /* a copy: out + 14 is not 4-byte aligned */
	struct pkt in;
	__u32 hash, label;
	int ret;

	if (!ASSERT_TRUE(add_service("10.99.0.2:443/tcp", XS_ENCAP_IPIP, be6, 1), "service") ||
	    !ASSERT_TRUE(add_service("[2001:db8:99::2]:443/tcp", XS_ENCAP_IPIP, be6, 1), "service6"))
		return;
	client_pkt(&in, 0, "198.51.100.9", "10.99.0.2", 40002, 443, 0x28);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "IPv4-in-IPv6 verdict");
	ASSERT_EQ(out_len, in.len - 14 + 14 + 40, "IPv4-in-IPv6 length");
	memcpy(&ip6, out + 14, sizeof(ip6));
	v4_key(&k, "198.51.100.9", "10.99.0.2", 40002, 443);
	hash = flow_hash32(&k);
	ASSERT_EQ(ntohs(((struct ethhdr *)out)->h_proto), ETH_P_IPV6, "ethertype");
	ASSERT_EQ(ip6.version, 6, "version");
	ASSERT_EQ(ip6.nexthdr, IPPROTO_IPIP, "next header 4: IPv4 inside");
	ASSERT_EQ(ip6.hop_limit, 64, "hop limit");
	ASSERT_EQ(ntohs(ip6.payload_len), in.len - 14, "payload length = inner IPv4 length");
	ASSERT_EQ((ip6.priority << 4) | (ip6.flow_lbl[0] >> 4), 0x28, "traffic class = inner TOS");
	label = ((ip6.flow_lbl[0] & 0xf) << 16) | (ip6.flow_lbl[1] << 8) | ip6.flow_lbl[2];
	ASSERT_EQ(label, (hash >> 12) & 0xfffff, "flow label from the flow hash");
	ASSERT_EQ(ntohl(ip6.saddr.s6_addr32[3]), hash, "source low 32 bits = flow hash");
	ASSERT_EQ(ntohl(ip6.saddr.s6_addr32[0]), 0xfd007873, "source prefix");
	ASSERT_TRUE(!memcmp(out + 14 + 40, in.buf + 14, in.len - 14), "inner packet unchanged");
	again_from_cache(&in, XDP_TX, out, out_len, "IPv4-in-IPv6");

	pkt_eth(&in, ETH_P_IPV6);
	pkt_ipv6(&in, "2001:db8:5::7", "2001:db8:99::2", IPPROTO_TCP);
	pkt_ports(&in, IPPROTO_TCP, 40003, 443);
	pkt_payload(&in, 64);
	pkt_finish(&in);
	out_len = sizeof(out);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "IP6IP6 verdict");
	memcpy(&ip6, out + 14, sizeof(ip6));
	ASSERT_EQ(ip6.nexthdr, IPPROTO_IPV6, "next header 41: IPv6 inside");
	ASSERT_EQ(ntohs(ip6.payload_len), in.len - 14, "payload length");
	ASSERT_TRUE(!memcmp(out + 14 + 40, in.buf + 14, in.len - 14), "inner packet unchanged");
	ASSERT_TRUE(!memcmp(out, mac_be, 6) && !memcmp(out + 6, mac_a, 6), "MACs from the FIB");
	again_from_cache(&in, XDP_TX, out, out_len, "IP6IP6");
}

TEST(l2_dsr_rewrites_only_macs)
{
	static const char *const be[] = { "10.20.0.11" };
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct pkt in;
	int ret;

	if (!ASSERT_TRUE(add_service("10.99.0.3:80/tcp", XS_ENCAP_L2, be, 1), "service"))
		return;
	client_pkt(&in, 0, "198.51.100.10", "10.99.0.3", 40004, 80, 0);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "verdict");
	ASSERT_EQ(out_len, in.len, "length unchanged");
	ASSERT_TRUE(!memcmp(out, mac_be, 6), "destination MAC = backend's");
	ASSERT_TRUE(!memcmp(out + 6, mac_a, 6), "source MAC = egress interface's");
	ASSERT_TRUE(!memcmp(out + 12, in.buf + 12, in.len - 12), "everything after the MACs unchanged");
	again_from_cache(&in, XDP_TX, out, out_len, "l2");
}

TEST(other_egress_is_redirected)
{
	static const char *const be[] = { "10.30.0.22" };
	struct bpf_devmap_val dv = { .ifindex = if_c };
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 before = counter(XS_C_TX_REDIRECT);
	struct pkt in;
	int ret;

	if (!ASSERT_TRUE(add_service("10.99.0.4:80/tcp", XS_ENCAP_IPIP, be, 1), "service"))
		return;
	bpf_map_update_elem(env.h.tx_ports_fd, &if_c, &dv, BPF_ANY);
	client_pkt(&in, 0, "198.51.100.11", "10.99.0.4", 40005, 80, 0);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_REDIRECT, "verdict: devmap redirect to lbC");
	ASSERT_TRUE(!memcmp(out, mac_be2, 6) && !memcmp(out + 6, mac_c, 6), "lbC's MACs");
	ASSERT_EQ(counter(XS_C_TX_REDIRECT) - before, 1, "tx_redirect");
	again_from_cache(&in, XDP_REDIRECT, out, out_len, "redirect to lbC");
	ASSERT_EQ(counter(XS_C_TX_REDIRECT) - before, 2, "tx_redirect, from the cache");
}

TEST(icmp_error_follows_its_flow)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13",
					  "10.20.0.14" };
	unsigned char out[2048];
	__u32 out_len, i, want_backend, got_backend, id;
	struct xs_flow_key k;
	struct xs_decision d;
	struct pkt in, err;
	__u64 steered, made;
	__u8 *icmp;
	int ret;

	system("for i in 12 13 14; do ip neigh add 10.20.0.$i lladdr 02:00:00:00:00:11 dev lbA "
	       "nud permanent; done");
	id = add_service("10.99.0.5:80/tcp", XS_ENCAP_IPIP, be, 4);
	if (!ASSERT_TRUE(id, "service"))
		return;
	for (i = 0; i < 16; i++) {
		__u16 sport = (__u16)(41000 + i);

		/* The client's packet pins the flow... */
		client_pkt(&in, 0, "198.51.100.12", "10.99.0.5", sport, 80, 0);
		out_len = sizeof(out);
		ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
		ASSERT_EQ(ret, XDP_TX, "client packet");
		memcpy(&want_backend, out + 14 + offsetof(struct iphdr, daddr), 4);

		/* ...and a router's "fragmentation needed" about the backend's reply,
		 * VIP:80 -> client:sport, must reach the same backend. */
		pkt_eth(&err, ETH_P_IP);
		pkt_ipv4(&err, "192.0.2.254", "10.99.0.5", IPPROTO_ICMP, 0);
		icmp = pkt_push(&err, 8);
		icmp[0] = 3;
		icmp[1] = 4;
		icmp[7] = 0x28; /* next-hop MTU 1320 in the low bytes, content irrelevant */
		{
			struct pkt q;

			pkt_eth(&q, ETH_P_IP);
			pkt_ipv4(&q, "10.99.0.5", "198.51.100.12", IPPROTO_TCP, 0);
			pkt_ports(&q, IPPROTO_TCP, 80, sport);
			pkt_finish(&q);
			memcpy(pkt_push(&err, 28), q.buf + 14, 28);
		}
		pkt_finish(&err);
		out_len = sizeof(out);
		steered = counter(XS_C_ICMP_ERROR);
		made = counter(XS_C_RECIPE_MADE);
		ret = prog_env_run_on(&env, if_a, err.buf, err.len, 1, out, &out_len, NULL);
		ASSERT_EQ(ret, XDP_TX, "ICMP error");
		memcpy(&got_backend, out + 14 + offsetof(struct iphdr, daddr), 4);
		ASSERT_EQ(got_backend, want_backend, "the error goes to the flow's backend");
		ASSERT_EQ(counter(XS_C_ICMP_ERROR) - steered, 1, "icmp_error_steered");
		ASSERT_EQ(counter(XS_C_RECIPE_MADE) - made, 0, "sent from the flow's recipe");
	}
	/* And that backend is what lookup's decision code says for the flow. */
	v4_key(&k, "198.51.100.12", "10.99.0.5", 41015, 80);
	{
		struct xs_pool pool;
		struct xs_target t;

		xs_pool_read(&env.h, id, &pool);
		xs_decide(&pool, NULL, &k, &d);
		bpf_map_lookup_elem(env.h.targets_fd, &d.target, &t);
		ASSERT_EQ(XS_W32C(t.addr, 3), got_backend, "decision agrees");
		xs_pool_free(&pool);
	}
}

TEST(echo_request_to_vip_is_answered)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	struct pkt in;
	__u8 *icmp;
	int ret;

	pkt_eth(&in, ETH_P_IP);
	pkt_ipv4(&in, "198.51.100.13", "10.99.0.1", IPPROTO_ICMP, 0);
	icmp = pkt_push(&in, 16);
	icmp[0] = 8;
	icmp[5] = 1;
	icmp[7] = 1;
	*(__u16 *)(icmp + 2) = pkt_csum(icmp, 16);
	pkt_finish(&in);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_TX, "verdict");
	icmp = out + 14 + 20;
	ASSERT_EQ(icmp[0], 0, "echo reply");
	ASSERT_EQ(pkt_csum(icmp, 16), 0, "ICMP checksum verifies");
	ASSERT_EQ(pkt_csum(out + 14, 20), 0, "IP checksum verifies");
	ASSERT_TRUE(!memcmp(out + 14 + 12, in.buf + 14 + 16, 4), "source = the VIP");
}

TEST(too_big_is_counted_and_dropped)
{
	struct pkt in;
	__u64 before = counter(XS_C_TOO_BIG);
	int ret;

	/* 1490 bytes of IP + 20 of IPIP > lbA's MTU of 1500. */
	pkt_eth(&in, ETH_P_IP);
	pkt_ipv4(&in, "198.51.100.14", "10.99.0.1", IPPROTO_TCP, 0);
	pkt_ports(&in, IPPROTO_TCP, 40010, 80);
	pkt_payload(&in, 1490 - 40);
	pkt_finish(&in);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, NULL, NULL, NULL);
	ASSERT_EQ(ret, XDP_DROP, "verdict");
	ASSERT_EQ(counter(XS_C_TOO_BIG) - before, 1, "too_big");
	again_from_cache(&in, XDP_DROP, NULL, 0, "too big");
	ASSERT_EQ(counter(XS_C_TOO_BIG) - before, 2, "too_big, from the cache");
}

static void udp_pkt(struct pkt *p, const char *src, const char *vip, __u16 sport, __u32 ip_len)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, vip, IPPROTO_UDP, 0);
	pkt_ports(p, IPPROTO_UDP, sport, 80);
	pkt_payload(p, ip_len - 28);
	pkt_finish(p);
}

/*
 * A backend whose neighbour is not resolved: the packet goes up to the stack
 * encapsulated (no_neigh), but only if it fits. The MTU policy comes first on
 * every path: a 1500-byte packet (1520 encapsulated, over lbA's 1500) is
 * too_big there as it is with a resolved neighbour.
 */
TEST(unresolved_neighbour_keeps_the_mtu_policy)
{
	static const char *const be[] = { "10.20.0.50" }; /* no neighbour entry */
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 nn = counter(XS_C_NO_NEIGH), tb = counter(XS_C_TOO_BIG);
	struct pkt in;
	int ret;

	if (!ASSERT_TRUE(add_service("10.99.0.7:80/udp", XS_ENCAP_IPIP, be, 1), "service"))
		return;
	udp_pkt(&in, "198.51.100.30", "10.99.0.7", 43000, 200);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_PASS, "a small packet: up to the stack");
	ASSERT_EQ(out_len, in.len + 20, "encapsulated");
	ASSERT_EQ(counter(XS_C_NO_NEIGH) - nn, 1, "no_neigh");

	udp_pkt(&in, "198.51.100.31", "10.99.0.7", 43001, 1500);
	out_len = sizeof(out);
	nn = counter(XS_C_NO_NEIGH);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_DROP, "a 1500-byte packet: too big for the tunnel");
	ASSERT_EQ(counter(XS_C_TOO_BIG) - tb, 1, "too_big");
	ASSERT_EQ(counter(XS_C_NO_NEIGH) - nn, 0, "not passed up as no_neigh");
	ASSERT_TRUE(out_len == in.len, "not encapsulated (%u bytes out)", out_len);
}

/*
 * The ports of a packet to a VIP are the datagram's: with an IPv4 total
 * length of 20 or 24 in a longer frame, there are none (truncated_l4), and
 * nothing is tunnelled by the bytes that follow.
 */
TEST(ports_past_the_datagram_are_not_read)
{
	static const __u16 lens[] = { 20, 24 };
	unsigned char out[2048];
	__u32 out_len, i;
	__u64 cut;
	struct pkt in;
	int ret;

	for (i = 0; i < 2; i++) {
		client_pkt(&in, 0, "198.51.100.16", "10.99.0.1", 40012, 80, 0);
		((struct iphdr *)(in.buf + in.l3_off))->tot_len = htons(lens[i]);
		((struct iphdr *)(in.buf + in.l3_off))->check = 0;
		((struct iphdr *)(in.buf + in.l3_off))->check =
			pkt_csum(in.buf + in.l3_off, 20);
		out_len = sizeof(out);
		cut = counter(XS_C_TRUNC_L4);
		ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
		ASSERT_EQ(ret, XDP_PASS, "verdict");
		ASSERT_TRUE(out_len == in.len && !memcmp(out, in.buf, in.len),
			    "total length %u: not tunnelled", lens[i]);
		ASSERT_EQ(counter(XS_C_TRUNC_L4) - cut, 1, "truncated_l4");
	}
}

/* Pool @id's flow fields set to @fields, as a service's --hash-fields sets them. */
static int set_fields(__u32 id, __u8 fields)
{
	struct xs_pool pool;
	int err = xs_pool_read(&env.h, id, &pool);

	if (err)
		return err;
	pool.hdr.flow_fields = fields;
	err = xs_pool_publish(&env.h, id, &pool);
	xs_pool_free(&pool);
	return err;
}

/*
 * Pins belong to their pool. Two services whose flow fields are the source
 * alone: one client's flow to each masks to the same key, and must still
 * be pinned apart, each to a backend of its own service.
 */
TEST(pools_do_not_share_pins)
{
	static const char *const be_a[] = { "10.20.0.11" }, *const be_b[] = { "10.20.0.15" };
	unsigned char out[2048];
	__u32 out_len, a, b;
	__be32 backend;
	struct pkt in;
	int ret;

	sh("ip neigh replace 10.20.0.15 lladdr 02:00:00:00:00:15 dev lbA nud permanent");
	a = add_service("10.99.0.8:80/tcp", XS_ENCAP_IPIP, be_a, 1);
	b = add_service("10.99.0.9:80/tcp", XS_ENCAP_IPIP, be_b, 1);
	if (!ASSERT_TRUE(a && b, "services") ||
	    !ASSERT_EQ(set_fields(a, XS_F_SRC) || set_fields(b, XS_F_SRC), 0, "fields: src"))
		return;
	client_pkt(&in, 0, "198.51.100.40", "10.99.0.8", 40100, 80, 0);
	out_len = sizeof(out);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	memcpy(&backend, out + 14 + offsetof(struct iphdr, daddr), 4);
	ASSERT_TRUE(ret == XDP_TX && backend == inet_addr("10.20.0.11"),
		    "service A: its backend (verdict %d)", ret);
	client_pkt(&in, 0, "198.51.100.40", "10.99.0.9", 40100, 80, 0);
	out_len = sizeof(out);
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	memcpy(&backend, out + 14 + offsetof(struct iphdr, daddr), 4);
	ASSERT_TRUE(ret == XDP_TX && backend == inet_addr("10.20.0.15"),
		    "the same client to service B: B's backend, not A's pin (verdict %d, backend "
		    "%08x)", ret, ntohl(backend));
}

/* Send @in; the outer destination (the backend) and source of the IPIP frame. */
static int send_ipip(const struct pkt *in, __be32 *daddr, __be32 *saddr)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	int ret = prog_env_run_on(&env, if_a, in->buf, in->len, 1, out, &out_len, NULL);

	memcpy(daddr, out + 14 + offsetof(struct iphdr, daddr), 4);
	memcpy(saddr, out + 14 + offsetof(struct iphdr, saddr), 4);
	return ret;
}

/*
 * An established flow is sent from its recipe, without looking up its
 * service, backend or next hop: every change must still reach its very next
 * packet. First the service's tunnel source prefix changes (a transaction),
 * then the flow's backend is removed as `backend del` does it: the pool
 * first, which the pinned flow outlives, then the target.
 */
TEST(cached_flow_follows_changes)
{
	static const char *const be[] = { "10.20.0.11", "10.20.0.12", "10.20.0.13",
					  "10.20.0.14" };
	struct xs_target gone = { 0 }, t;
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_pool pool;
	__be32 daddr, saddr, first;
	__u32 id, target = XS_NO_TARGET, b;
	struct xs_txn *txn;
	__u64 hits, made;
	struct pkt in;

	id = add_service("10.99.0.6:80/tcp", XS_ENCAP_IPIP, be, 4);
	if (!ASSERT_TRUE(id, "service") ||
	    !ASSERT_EQ(xs_parse_service("10.99.0.6:80/tcp", &key), 0, "key") ||
	    !ASSERT_EQ(xs_service_get(&env.h, &key, &svc), 0, "service read"))
		return;
	client_pkt(&in, 0, "198.51.100.20", "10.99.0.6", 42000, 80, 0);
	made = counter(XS_C_RECIPE_MADE);
	ASSERT_EQ(send_ipip(&in, &first, &saddr), XDP_TX, "first packet");
	ASSERT_EQ(counter(XS_C_RECIPE_MADE) - made, 1, "the first packet makes the recipe");
	made = counter(XS_C_RECIPE_MADE);
	hits = counter(XS_C_FLOW_HIT);
	ASSERT_EQ(send_ipip(&in, &daddr, &saddr), XDP_TX, "second packet");
	ASSERT_EQ(counter(XS_C_FLOW_HIT) - hits, 1, "second packet from the cache");
	ASSERT_EQ(counter(XS_C_RECIPE_MADE) - made, 0, "second packet from the recipe");
	ASSERT_EQ(daddr, first, "same backend");
	ASSERT_EQ(ntohl(saddr) >> 16, 0xac10, "tunnel source in 172.16.0.0/16");

	/* The tunnel source prefix: 172.16.0.0/16 -> 172.17.0.0/16. */
	xs_parse_cidr("172.17.0.0/16", AF_INET, &svc.src4, &svc.src4_bits);
	txn = xs_txn_begin(&env.h);
	if (!ASSERT_TRUE(txn && !xs_txn_service(txn, &key, &svc) && !xs_txn_commit(txn),
			 "service change"))
		return;
	hits = counter(XS_C_FLOW_HIT);
	made = counter(XS_C_RECIPE_MADE);
	ASSERT_EQ(send_ipip(&in, &daddr, &saddr), XDP_TX, "after the service change");
	ASSERT_EQ(ntohl(saddr) >> 16, 0xac11, "the new tunnel source prefix, at once");
	ASSERT_EQ(daddr, first, "same backend");
	ASSERT_EQ(counter(XS_C_FLOW_HIT) - hits, 1, "still an established flow");
	ASSERT_EQ(counter(XS_C_RECIPE_MADE) - made, 1, "its recipe made again");
	again_from_cache(&in, XDP_TX, NULL, 0, "after the service change");

	/* Remove the flow's backend: the pool first, then the target. */
	if (!ASSERT_EQ(xs_pool_read(&env.h, id, &pool), 0, "pool read"))
		return;
	for (b = 0; b < pool.hdr.n_buckets; b++)
		if (bpf_map_lookup_elem(env.h.targets_fd, &pool.bucket[b], &t) == 0 &&
		    XS_W32C(t.addr, 3) == first)
			target = pool.bucket[b];
	for (b = pool.hdr.n_buckets; b-- > 0;)
		if (pool.bucket[b] == target)
			xs_pool_remove(&pool, b);
	ASSERT_EQ(xs_pool_publish(&env.h, id, &pool), 0, "pool without the backend");
	xs_pool_free(&pool);
	ASSERT_EQ(send_ipip(&in, &daddr, &saddr), XDP_TX, "after the pool change");
	ASSERT_EQ(daddr, first, "a pinned flow stays while its backend lives");
	ASSERT_EQ(xs_target_write(&env.h, target, &gone), 0, "backend removed");
	ASSERT_EQ(send_ipip(&in, &daddr, &saddr), XDP_TX, "after the removal");
	ASSERT_TRUE(daddr != first, "the flow left the removed backend at its next packet");
	again_from_cache(&in, XDP_TX, NULL, 0, "re-pinned flow");
}

TEST(non_vip_traffic_untouched)
{
	unsigned char out[2048];
	__u32 out_len = sizeof(out);
	__u64 before = counter(XS_C_NOT_VIP);
	struct pkt in;
	int ret;

	client_pkt(&in, 0, "198.51.100.15", "10.99.0.1", 40011, 81, 0); /* wrong port */
	ret = prog_env_run_on(&env, if_a, in.buf, in.len, 1, out, &out_len, NULL);
	ASSERT_EQ(ret, XDP_PASS, "verdict");
	ASSERT_EQ(out_len, in.len, "length");
	ASSERT_TRUE(!memcmp(out, in.buf, in.len), "bytes unchanged");
	ASSERT_EQ(counter(XS_C_NOT_VIP) - before, 1, "not_vip");
}

/* Run by name, these bring along the test that left what they use. */
TEST_NEEDS(vlan_tagged_vip, ipip4_exact_bytes) /* its service, 10.99.0.1:80 */
TEST_NEEDS(echo_request_to_vip_is_answered, ipip4_exact_bytes)
TEST_NEEDS(too_big_is_counted_and_dropped, ipip4_exact_bytes)
TEST_NEEDS(non_vip_traffic_untouched, ipip4_exact_bytes)
TEST_NEEDS(ports_past_the_datagram_are_not_read, ipip4_exact_bytes)
TEST_NEEDS(cached_flow_follows_changes, icmp_error_follows_its_flow) /* its neighbours */

static int setup(void)
{
	/* stay_on_one_cpu() prints the suite's failure line itself. */
	if (stay_on_one_cpu("prog_lb"))
		exit(1);
	if (netns_setup() || prog_env_open(&env, 4096, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed)) {
		fprintf(stderr, "FAIL: cannot set up the namespace or load the XDP program\n");
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	prog_env_close(&env);
}

TEST_MAIN("prog_lb", setup, teardown)
