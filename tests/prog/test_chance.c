// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * BPF_PROG_TEST_RUN of second chance, the load balancer's half: after a
 * change, a flow whose backend changed carries a GUE hop list naming the
 * backend now and the one before, byte for byte; a removed backend stays the
 * second hop; changes in a burst keep the pool from before the first; a
 * closed window sends plain GUE; IPv6 hops, and the decap program sending
 * such a frame on. The backend's half is tests/prog/test_hops.c.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/udp.h>
#include "one_cpu.h"
#include "pkt.h"
#include "test.h"
#include "frames.h"
#include "chance.h"
#include "xs_gue.h"

static struct prog_env env;

#include "lb_env.h"
#include "decap_env.h"

static __u32 svc_id;
static struct xs_service_key svc_key;
static struct xs_target *all;

#define VIP "10.98.0.9"
#define CLIENT "198.51.100.50"

static __u64 counter(__u32 c)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[c];
}

static void tcp_pkt(struct pkt *p, const char *src, __u16 sport, __u8 flags)
{
	pkt_eth(p, ETH_P_IP);
	pkt_ipv4(p, src, VIP, IPPROTO_TCP, 0);
	pkt_ports(p, IPPROTO_TCP, sport, 80);
	((struct tcphdr *)(p->buf + p->l4_off))->ack = !!(flags & 1);
	((struct tcphdr *)(p->buf + p->l4_off))->syn = !!(flags & 2);
	pkt_payload(p, 40);
	pkt_finish(p);
}

/* A backend target at @id for @addr, written like the commit writes it. */
static void backend_at(__u32 id, const char *addr, __u32 uid)
{
	struct xs_target t = { .kind = XS_TARGET_BACKEND, .active = true,
			       .uid = uid, .service = svc_id, .weight = 1, .family = 4 };

	XS_W32(t.addr, 2) = htonl(0xffff);
	inet_pton(AF_INET, addr, &t.addr[12]);
	xs_target_write(&env.h, id, &t);
}

/* The change as the commit makes it: keep the live pool (xs_apply_chances), then flip. */
static int change_pool_to(__u32 target)
{
	struct xs_pool old, pool = { 0 };
	struct xs_txn *txn;
	int err;

	if (xs_targets_read(&env.h, all) || xs_pool_read(&env.h, svc_id, &old))
		return -1;
	err = xs_chance_keep(&env.h, svc_id, &old, all, 600);
	xs_pool_free(&old);
	if (err)
		return err;
	pool.hdr.algo = XS_ALGO_JUMP;
	pool.hdr.flow_fields = XS_F_ALL;
	memcpy(pool.hdr.seed, seed, sizeof(seed));
	pool.hdr.n_buckets = 1;
	pool.bucket = calloc(1, sizeof(__u32));
	pool.bucket[0] = target;
	txn = xs_txn_begin(&env.h);
	err = !txn || xs_txn_pool(txn, svc_id, &pool) || xs_txn_commit(txn);
	xs_pool_free(&pool);
	return err ? -1 : 0;
}

/* The frame the load balancer must send to @first, with @second as the second hop. */
static void expect_hops(struct pkt *want, const struct pkt *in, const unsigned char *dmac,
			const char *first, const char *second)
{
	__u32 inner_len = in->len - 14, hash;
	struct xs_flow_key k = { 0 };
	struct iphdr *ip;
	__u8 *u;

	XS_W32(k.src, 2) = XS_W32(k.dst, 2) = htonl(0xffff);
	inet_pton(AF_INET, CLIENT, &k.src[12]);
	inet_pton(AF_INET, VIP, &k.dst[12]);
	k.proto = XS_IPPROTO_TCP;
	k.sport = ((struct tcphdr *)(in->buf + in->l4_off))->source;
	k.dport = htons(80);
	hash = (__u32)xs_flow_hash(seed, &k, XS_F_ALL, XS_DOMAIN_FLOW);
	memset(want, 0, sizeof(*want));
	u = pkt_push(want, 14);
	memcpy(u, dmac, 6);
	memcpy(u + 6, mac_a, 6);
	u[12] = 0x08;
	ip = pkt_push(want, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(inner_len + 20 + 8 + 4 + 12);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = htonl(0xac100000 | (hash & 0xffff));
	inet_pton(AF_INET, first, &ip->daddr);
	ip->check = pkt_csum(ip, sizeof(*ip));
	u = pkt_push(want, 8 + 4 + 12);
	u[0] = (49152 + ((hash >> 12) & 0x3fff)) >> 8;
	u[1] = (49152 + ((hash >> 12) & 0x3fff)) & 0xff;
	u[2] = XS_DEFAULT_GUE_PORT >> 8;
	u[3] = XS_DEFAULT_GUE_PORT & 0xff;
	u[4] = (inner_len + 24) >> 8;
	u[5] = (inner_len + 24) & 0xff;
	u[8] = 3;     /* Hlen: three words of private data */
	u[9] = 4;     /* IPv4 inside */
	u[12] = 'X';  /* the hop list */
	u[13] = 4;    /* IPv4 hops */
	u[14] = 2;    /* two of them */
	u[15] = 0;    /* addressed to the first */
	inet_pton(AF_INET, first, u + 16);
	inet_pton(AF_INET, second, u + 20);
	memcpy(pkt_push(want, inner_len), in->buf + 14, inner_len);
}


static int lb_run(const struct pkt *in, unsigned char *out, __u32 *out_len)
{
	*out_len = 2048;
	return prog_env_run_on(&env, if_a, in->buf, in->len, 1, out, out_len, NULL);
}

TEST(hop_list_after_a_change)
{
	static const char *const be[] = { "10.20.0.11" };
	unsigned char out[2048];
	struct xs_service svc;
	struct xs_txn *txn;
	__u64 hops, made;
	__u32 out_len;
	struct pkt in, want;

	svc_id = add_service(VIP ":80/tcp", XS_ENCAP_GUE, be, 1);
	if (!ASSERT_TRUE(svc_id, "service") || xs_parse_service(VIP ":80/tcp", &svc_key) ||
	    bpf_map_lookup_elem(env.h.services_fd, &svc_key, &svc))
		return;
	svc.second_chance = 1;
	svc.chance_window_s = 600;
	txn = xs_txn_begin(&env.h);
	if (!ASSERT_TRUE(txn && !xs_txn_service(txn, &svc_key, &svc) && !xs_txn_commit(txn),
			 "second chance on"))
		return;
	tcp_pkt(&in, CLIENT, 46000, 1);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "before any change");
	ASSERT_EQ(out[14 + 20 + 8], 0, "one backend, no change: plain GUE, Hlen 0");

	/* The change: backend .12 instead of .11. */
	backend_at(XS_BACKEND_BASE + 100, "10.20.0.12", 900);
	if (!ASSERT_EQ(change_pool_to(XS_BACKEND_BASE + 100), 0, "change"))
		return;
	tcp_pkt(&in, CLIENT, 46001, 1);
	hops = counter(XS_C_SECOND_HOP);
	made = counter(XS_C_RECIPE_MADE);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "after the change");
	expect_hops(&want, &in, mac_be2, "10.20.0.12", "10.20.0.11");
	check_frame(&want, out, out_len, "GUE with the hop list [.12, .11]");
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "the flow's second packet");
	check_frame(&want, out, out_len, "the second packet: the same hop list");
	ASSERT_EQ(counter(XS_C_SECOND_HOP) - hops, 2, "second_hop, per packet");
	ASSERT_EQ(counter(XS_C_RECIPE_MADE) - made, 0,
		  "no recipe cached: the hop list needs the long way");
}

/* The removed backend's target entry is gone; the kept pool still names its address. */
TEST(removed_backend_stays_second_hop)
{
	struct xs_target gone = { 0 };
	unsigned char out[2048];
	__u32 out_len;
	struct pkt in, want;

	xs_target_write(&env.h, XS_BACKEND_BASE, &gone); /* .11's id, from add_service */
	tcp_pkt(&in, CLIENT, 46002, 1);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "verdict");
	expect_hops(&want, &in, mac_be2, "10.20.0.12", "10.20.0.11");
	check_frame(&want, out, out_len, "hop list [.12, .11] with .11 removed");
}

/*
 * Changes less than XS_CHANCE_BURST_S apart are one: the hops are [now,
 * before the first]. A change after the burst keeps the pool it replaces.
 */
TEST(changes_in_a_burst_count_as_one)
{
	unsigned char out[2048];
	__u32 out_len;
	struct pkt in, want;

	backend_at(XS_BACKEND_BASE + 101, "10.20.0.11", 901); /* .11 again, a new id */
	if (!ASSERT_EQ(change_pool_to(XS_BACKEND_BASE + 101), 0, "second change"))
		return;
	tcp_pkt(&in, CLIENT, 46003, 1);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "verdict");
	/* Back on .11, the backend before the first change: one hop. */
	ASSERT_EQ(out[14 + 20 + 8], 0, "now .11 = before the first change: plain GUE");
	ASSERT_TRUE(!memcmp(out + 14 + 16, (unsigned char[]){ 10, 20, 0, 11 }, 4), "to .11");
	backend_at(XS_BACKEND_BASE + 102, "10.20.0.12", 902);
	if (!ASSERT_EQ(change_pool_to(XS_BACKEND_BASE + 102), 0, "third change"))
		return;
	tcp_pkt(&in, CLIENT, 46005, 1); /* a flow of its own: 46003 is pinned to .11 now */
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "verdict");
	expect_hops(&want, &in, mac_be2, "10.20.0.12", "10.20.0.11");
	check_frame(&want, out, out_len, "hop list [.12, .11]: .11 from before the first change");

	/* The burst is over (its last change made 6 s ago): the next change keeps [.12]. */
	{
		struct xs_prev_gen gen;

		bpf_map_lookup_elem(env.h.prev_gens_fd, &svc_id, &gen);
		gen.changed_ns -= 6ULL * 1000000000ULL;
		bpf_map_update_elem(env.h.prev_gens_fd, &svc_id, &gen, BPF_ANY);
	}
	backend_at(XS_BACKEND_BASE + 103, "10.20.0.11", 903);
	if (!ASSERT_EQ(change_pool_to(XS_BACKEND_BASE + 103), 0, "a change after the burst"))
		return;
	tcp_pkt(&in, CLIENT, 46006, 1);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "verdict");
	expect_hops(&want, &in, mac_be, "10.20.0.11", "10.20.0.12");
	check_frame(&want, out, out_len, "hop list [.11, .12]: the pool it replaced");
}

TEST(closed_window_sends_plain_gue)
{
	struct xs_prev_gen closed = { 0 };
	struct xs_chance_view view;
	unsigned char out[2048];
	__u32 out_len;
	struct pkt in;

	bpf_map_update_elem(env.h.prev_gens_fd, &svc_id, &closed, BPF_ANY);
	ASSERT_TRUE(!xs_chance_read(&env.h, svc_id, &view) && !view.open, "lookup: no window");
	tcp_pkt(&in, CLIENT, 46004, 1);
	ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "verdict");
	ASSERT_EQ(out[14 + 20 + 8], 0, "Hlen 0: no hop list once the window closed");
	ASSERT_EQ(out_len, in.len + 32, "plain GUE's 32 bytes");
}

/*
 * IPv6 backends: the hop list holds 16-byte addresses (Hlen 9), and the
 * backend without the connection sends the frame on with only the outer
 * destination, hop limit and `next` changed.
 */
TEST(ipv6_hops_both_halves)
{
	static const char *const be6[] = { "2001:db8:20::11" };
	unsigned char out[2048], fwd[2048];
	struct xs_service_key key;
	struct xs_service svc;
	struct xs_pool old, pool = { 0 };
	struct xs_target t = { .kind = XS_TARGET_BACKEND, .active = true, .uid = 950,
			       .weight = 1, .family = 6 };
	struct in6_addr a11, a12;
	struct xs_txn *txn;
	__u32 id, out_len, fwd_len, target = XS_BACKEND_BASE + 200;
	__u64 fwd0 = decap_counter(XS_D_HOP_FORWARD);
	struct pkt in, frame;
	__u8 *u;

	id = add_service("[2001:db8:98::9]:80/tcp", XS_ENCAP_GUE, be6, 1);
	if (!ASSERT_TRUE(id, "service") || xs_parse_service("[2001:db8:98::9]:80/tcp", &key) ||
	    bpf_map_lookup_elem(env.h.services_fd, &key, &svc))
		return;
	svc.second_chance = 1;
	svc.chance_window_s = 600;
	txn = xs_txn_begin(&env.h);
	if (!ASSERT_TRUE(txn && !xs_txn_service(txn, &key, &svc) && !xs_txn_commit(txn),
			 "second chance on"))
		return;
	inet_pton(AF_INET6, "2001:db8:20::11", &a11);
	inet_pton(AF_INET6, "2001:db8:20::12", &a12);
	t.service = id;
	memcpy(t.addr, &a12, 16);
	xs_target_write(&env.h, target, &t);
	if (xs_targets_read(&env.h, all) || xs_pool_read(&env.h, id, &old) ||
	    !ASSERT_EQ(xs_chance_keep(&env.h, id, &old, all, 600), 0, "keep"))
		return;
	pool.hdr = old.hdr;
	pool.hdr.n_buckets = 1;
	pool.bucket = calloc(1, sizeof(__u32));
	pool.bucket[0] = target;
	xs_pool_free(&old);
	txn = xs_txn_begin(&env.h);
	if (!ASSERT_TRUE(txn && !xs_txn_pool(txn, id, &pool) && !xs_txn_commit(txn), "change"))
		return;
	xs_pool_free(&pool);

	pkt_eth(&in, ETH_P_IPV6);
	pkt_ipv6(&in, "2001:db8:5::9", "2001:db8:98::9", IPPROTO_TCP);
	pkt_ports(&in, IPPROTO_TCP, 47000, 80);
	((struct tcphdr *)(in.buf + in.l4_off))->ack = 1;
	pkt_payload(&in, 40);
	pkt_finish(&in);
	if (!ASSERT_EQ(lb_run(&in, out, &out_len), XDP_TX, "the load balancer's verdict"))
		return;
	ASSERT_EQ(out_len, in.len + 40 + 8 + 4 + 36, "outer IPv6, UDP, GUE, 36 bytes of hops");
	u = out + 14;
	ASSERT_EQ(u[6], IPPROTO_UDP, "next header UDP");
	ASSERT_EQ((u[4] << 8) | u[5], in.len - 14 + 48, "payload length");
	ASSERT_TRUE(!memcmp(u + 24, &a12, 16), "outer destination: ::12, the first hop");
	u += 40;
	ASSERT_EQ((u[4] << 8) | u[5], in.len - 14 + 48, "UDP length");
	ASSERT_EQ(u[8], 9, "Hlen: 9 words of private data");
	ASSERT_EQ(u[9], IPPROTO_IPV6, "IPv6 inside");
	ASSERT_TRUE(u[12] == 'X' && u[13] == 6 && u[14] == 2 && u[15] == 0,
		    "hop list: IPv6, two hops, next 0");
	ASSERT_TRUE(!memcmp(u + 16, &a12, 16) && !memcmp(u + 32, &a11, 16), "hops [::12, ::11]");
	ASSERT_TRUE(!memcmp(u + 48, in.buf + 14, in.len - 14), "the inner packet");

	/* At ::12, which holds no such connection: on to ::11. */
	decap_add_local("2001:db8:20::12");
	memcpy(frame.buf, out, out_len);
	frame.len = out_len;
	fwd_len = sizeof(fwd);
	ASSERT_EQ(decap_run_on(if_a, frame.buf, frame.len, fwd, &fwd_len), XDP_TX, "sent on");
	ASSERT_EQ(fwd_len, out_len, "same length");
	ASSERT_TRUE(!memcmp(fwd, mac_be, 6), "to ::11's MAC");
	ASSERT_TRUE(!memcmp(fwd + 14 + 24, &a11, 16), "outer destination ::11");
	ASSERT_TRUE(!memcmp(fwd + 14 + 8, out + 14 + 8, 16), "outer source unchanged");
	ASSERT_EQ(fwd[14 + 40 + 12 + 3], 1, "next 1");
	ASSERT_TRUE(!memcmp(fwd + 14 + 40 + 12 + 4, out + 14 + 40 + 12 + 4, 32 + in.len - 14),
		    "the hops and the inner packet unchanged");
	ASSERT_EQ(decap_counter(XS_D_HOP_FORWARD) - fwd0, 1, "hop_forwarded");
}

/* ---- the backend's decap program ---------------------------------------- */
TEST_NEEDS(removed_backend_stays_second_hop, hop_list_after_a_change)
TEST_NEEDS(changes_in_a_burst_count_as_one, removed_backend_stays_second_hop)
TEST_NEEDS(closed_window_sends_plain_gue, changes_in_a_burst_count_as_one)

static int setup(void)
{
	if (stay_on_one_cpu("prog_chance"))
		exit(1);
	all = calloc(XS_MAX_TARGETS, sizeof(*all));
	if (!all || netns_setup() || prog_env_open(&env, 4096, XDP_PASS) ||
	    prog_env_targets(&env, XS_ALGO_JUMP, 0, 0, seed) ||
	    sh("ip neigh add 10.20.0.12 lladdr 02:00:00:00:00:22 dev lbA nud permanent") ||
	    sh("ip -6 neigh add 2001:db8:20::12 lladdr 02:00:00:00:00:22 dev lbA nud permanent")) {
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
	free(all);
}

TEST_MAIN("prog_chance", setup, teardown)
