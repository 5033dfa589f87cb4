// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * BPF_PROG_TEST_RUN of second chance, the backend's half: the decap
 * program with a real TCP connection in the test's namespace. Its
 * connection, and a SYN, are delivered; anything else (a listener only) is
 * sent on to the next hop with only the MACs, the outer destination, TTL,
 * checksum and `next` changed; the last hop delivers what it has no socket
 * for, so no packet is sent on twice; UDP is delivered unchecked; a hop list
 * that does not parse passes untouched. The load balancer's half is
 * tests/prog/test_chance.c.
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

static struct prog_env env; /* lb_env.h's; only its namespace is used here */

#include "lb_env.h"
#include "decap_env.h"

#define VIP "10.98.0.9"
#define CLIENT "198.51.100.50"

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



static int sock_srv = -1, sock_cli = -1, sock_acc = -1;

/* A real connection CLIENT:45000 -> VIP:80 in the test's namespace, on lo. */
static int connection(void)
{
	struct sockaddr_in vip = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in cli = { .sin_family = AF_INET, .sin_port = htons(45000) };
	int one = 1;

	if (sh("ip addr add " VIP "/32 dev lo && ip addr add " CLIENT "/32 dev lo"))
		return -1;
	inet_pton(AF_INET, VIP, &vip.sin_addr);
	inet_pton(AF_INET, CLIENT, &cli.sin_addr);
	sock_srv = socket(AF_INET, SOCK_STREAM, 0);
	sock_cli = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(sock_srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(sock_srv, (void *)&vip, sizeof(vip)) || listen(sock_srv, 4) ||
	    bind(sock_cli, (void *)&cli, sizeof(cli)) ||
	    connect(sock_cli, (void *)&vip, sizeof(vip)))
		return -1;
	sock_acc = accept(sock_srv, NULL, NULL);
	return sock_acc < 0 ? -1 : 0;
}

/* A GUE frame from the load balancer to @to with hops [.11, .12], `next` @next. */
static void gue_hops_frame(struct pkt *p, const char *to, __u8 next, __u16 sport, __u8 flags,
			   __u8 inner_proto)
{
	struct pkt inner;
	__u8 *u;

	tcp_pkt(&inner, CLIENT, sport, flags);
	if (inner_proto == IPPROTO_UDP) {
		pkt_eth(&inner, ETH_P_IP);
		pkt_ipv4(&inner, CLIENT, VIP, IPPROTO_UDP, 0);
		pkt_ports(&inner, IPPROTO_UDP, sport, 80);
		pkt_payload(&inner, 40);
		pkt_finish(&inner);
	}
	pkt_eth(p, ETH_P_IP);
	memcpy(p->buf, mac_a, 6);
	pkt_ipv4(p, "172.16.0.9", to, IPPROTO_UDP, 0);
	u = pkt_push(p, 8 + 4 + 12);
	u[0] = 0xc0;
	u[1] = 0x01;
	u[2] = XS_DEFAULT_GUE_PORT >> 8;
	u[3] = XS_DEFAULT_GUE_PORT & 0xff;
	u[4] = (inner.len - 14 + 24) >> 8;
	u[5] = (inner.len - 14 + 24) & 0xff;
	u[8] = 3;
	u[9] = 4;
	u[12] = 'X';
	u[13] = 4;
	u[14] = 2;
	u[15] = next;
	inet_pton(AF_INET, "10.20.0.11", u + 16);
	inet_pton(AF_INET, "10.20.0.12", u + 20);
	memcpy(pkt_push(p, inner.len - 14), inner.buf + 14, inner.len - 14);
	pkt_finish(p);
}

/* Received on lbA, where the next hop's neighbour is known. */
static int decap_run(const struct pkt *in, unsigned char *out, __u32 *out_len)
{
	*out_len = 2048;
	return decap_run_on(if_a, in->buf, in->len, out, out_len);
}

static void check_delivered(const struct pkt *in, const unsigned char *out, __u32 out_len,
			    const char *what)
{
	__u32 inner = 14 + 20 + 24;

	ASSERT_EQ(out_len, in->len - 20 - 24, what);
	ASSERT_TRUE(out_len == in->len - 44 && !memcmp(out + 14, in->buf + inner, out_len - 14),
		    "%s: the inner packet, decapsulated", what);
}

TEST(decap_delivers_its_own_connection)
{
	unsigned char out[2048];
	__u32 out_len;
	__u64 local = decap_counter(XS_D_HOP_LOCAL);
	struct pkt in;

	if (!ASSERT_EQ(connection(), 0, "a real TCP connection " CLIENT ":45000 -> " VIP ":80"))
		return;
	gue_hops_frame(&in, "10.20.0.11", 0, 45000, 1, IPPROTO_TCP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "verdict");
	check_delivered(&in, out, out_len, "its connection");
	gue_hops_frame(&in, "10.20.0.11", 0, 45999, 2, IPPROTO_TCP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "a SYN: verdict");
	check_delivered(&in, out, out_len, "a SYN");
	ASSERT_EQ(decap_counter(XS_D_HOP_LOCAL) - local, 2, "hop_local");
}

/* No connection (only a listener on VIP:80): on to .12, and .12 delivers it whatever. */
TEST(decap_sends_on_once_and_the_last_hop_delivers)
{
	unsigned char out[2048], again[2048];
	__u32 out_len, again_len;
	__u64 fwd = decap_counter(XS_D_HOP_FORWARD), last = decap_counter(XS_D_LAST_HOP_NO_SOCKET);
	struct pkt in, want, sent;

	gue_hops_frame(&in, "10.20.0.11", 0, 45001, 1, IPPROTO_TCP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_TX, "sent on, out of the same interface");
	/* Independently: only the MACs, daddr, TTL, checksum and next differ. */
	want = in;
	memcpy(want.buf, mac_be2, 6);
	memcpy(want.buf + 6, mac_a, 6);
	inet_pton(AF_INET, "10.20.0.12", want.buf + 14 + 16);
	want.buf[14 + 8] = 64;
	want.buf[14 + 20 + 8 + 4 + 3] = 1;
	((struct iphdr *)(want.buf + 14))->check = 0;
	((struct iphdr *)(want.buf + 14))->check = pkt_csum(want.buf + 14, 20);
	check_frame(&want, out, out_len, "the frame to the next hop");
	ASSERT_EQ(decap_counter(XS_D_HOP_FORWARD) - fwd, 1, "hop_forwarded");

	/* At .12, the last hop, with no socket either: delivered, never sent on again. */
	decap_add_local("10.20.0.12");
	memcpy(sent.buf, out, out_len);
	sent.len = out_len;
	ASSERT_EQ(decap_run(&sent, again, &again_len), XDP_PASS, "the last hop: delivered");
	check_delivered(&sent, again, again_len, "at the last hop");
	ASSERT_EQ(decap_counter(XS_D_LAST_HOP_NO_SOCKET) - last, 1, "last_hop_no_socket");
	ASSERT_EQ(decap_counter(XS_D_HOP_FORWARD) - fwd, 1, "not sent on a second time");
}

TEST(decap_other_cases)
{
	unsigned char out[2048];
	__u32 out_len;
	__u64 not_tcp = decap_counter(XS_D_HOP_NOT_TCP), mal = decap_counter(XS_D_MALFORMED);
	__u64 last = decap_counter(XS_D_LAST_HOP);
	struct pkt in;

	gue_hops_frame(&in, "10.20.0.11", 0, 45002, 0, IPPROTO_UDP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "UDP: delivered");
	ASSERT_EQ(decap_counter(XS_D_HOP_NOT_TCP) - not_tcp, 1, "hop_not_tcp");
	/* The connection at its last hop: counted apart from those without one. */
	gue_hops_frame(&in, "10.20.0.12", 1, 45000, 1, IPPROTO_TCP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "the last hop, its connection");
	ASSERT_EQ(decap_counter(XS_D_LAST_HOP) - last, 1, "last_hop");
	/* next past the list, or three hops in a two-hop Hlen: passed untouched. */
	gue_hops_frame(&in, "10.20.0.11", 2, 45003, 1, IPPROTO_TCP);
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "next 2 of 2");
	ASSERT_TRUE(out_len == in.len && !memcmp(out, in.buf, in.len), "untouched");
	in.buf[14 + 20 + 8 + 4 + 2] = 3;
	in.buf[14 + 20 + 8 + 4 + 3] = 0;
	ASSERT_EQ(decap_run(&in, out, &out_len), XDP_PASS, "three hops in room for two");
	ASSERT_TRUE(out_len == in.len && !memcmp(out, in.buf, in.len), "untouched");
	ASSERT_EQ(decap_counter(XS_D_MALFORMED) - mal, 2, "malformed");
}
TEST_NEEDS(decap_sends_on_once_and_the_last_hop_delivers, decap_delivers_its_own_connection)
TEST_NEEDS(decap_other_cases, decap_sends_on_once_and_the_last_hop_delivers)

static int setup(void)
{
	if (stay_on_one_cpu("prog_hops"))
		exit(1);
	if (netns_setup() ||
	    sh("ip neigh add 10.20.0.12 lladdr 02:00:00:00:00:22 dev lbA nud permanent")) {
		fprintf(stderr, "FAIL: cannot set up the namespace\n");
		return -1;
	}
	decap = xs_decap__open_and_load();
	if (!decap) {
		fprintf(stderr, "FAIL: cannot load the decap program: %s\n", strerror(errno));
		return -1;
	}
	decap_add_local("10.20.0.11");
	return 0;
}

static void teardown(void)
{
	if (sock_acc >= 0)
		close(sock_acc);
	if (sock_cli >= 0)
		close(sock_cli);
	if (sock_srv >= 0)
		close(sock_srv);
	xs_decap__destroy(decap);
}

TEST_MAIN("prog_hops", setup, teardown)
