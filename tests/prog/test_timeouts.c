// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Idle timeouts of flow pins, under BPF_PROG_TEST_RUN with short timeouts
 * (TCP 400 ms, after FIN or RST 100 ms, UDP 200 ms; ticks of 2^20 ns).
 *
 * Each flow is pinned to cpu 0 while the pool holds only cpu 0; then the pool
 * is switched to cpu 1 alone. A pinned flow stays on cpu 0 until it has been
 * idle for its timeout; an expired one is decided afresh, so it goes to cpu 1.
 * Where a packet went is read from the per-target packet counters.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <time.h>
#include "pkt.h"
#include "xs_parse.h"
#include "prog_env.h"
#include "test.h"

#define MS(ms) ((__u32)(((__u64)(ms) * 1000000ULL) >> XS_TICK_SHIFT))

static const struct xs_timeouts short_timeouts = {
	.tcp = MS(400), .fin = MS(100), .udp = MS(200), .refresh = MS(25),
};
static struct prog_env env;
static __u32 pool_cpu0[1] = { 0 }, pool_cpu1[1] = { 1 };

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static __u64 packets_of(__u32 target)
{
	struct xs_target_stats sum;

	return xs_stats_read(&env.h, target, &sum, NULL) ? 0 : sum.packets;
}

static __u64 counter(__u32 c)
{
	__u64 v[XS_C_MAX];

	return xs_counters_read(&env.h, v) ? 0 : v[c];
}

/* Send one packet of flow @i; returns the cpu it was steered to, or -1. */
static int send_pkt(__u8 proto, __u32 i, __u8 tcp_flags)
{
	__u64 before0 = packets_of(0), before1 = packets_of(1);
	struct pkt p;

	memset(&p, 0, sizeof(p));
	pkt_eth(&p, ETH_P_IP);
	pkt_ipv4(&p, "10.9.0.1", "10.0.0.1", proto, 0);
	pkt_ports(&p, proto, (__u16)(3000 + i), 80);
	if (proto == IPPROTO_TCP)
		p.buf[p.l4_off + 13] = tcp_flags;
	pkt_payload(&p, 32);
	pkt_finish(&p);
	prog_env_run(&env, p.buf, p.len, 1, NULL, NULL, NULL);
	if (packets_of(0) > before0)
		return 0;
	return packets_of(1) > before1 ? 1 : -1;
}

static int use_pool(__u32 *bucket)
{
	env.pool.bucket[0] = bucket[0];
	return xs_pool_publish(&env.h, XS_POOL_QUEUES, &env.pool);
}

/* A flow pinned to cpu 0, whose fresh decision would now be cpu 1. */
static int pinned_on_0(__u8 proto, __u32 i, __u8 flags)
{
	int where;

	if (use_pool(pool_cpu0))
		return -1;
	where = send_pkt(proto, i, flags);
	return use_pool(pool_cpu1) ?: where;
}

TEST(pins_expire_after_idle_timeouts)
{
	const __u8 ack = XS_TCP_ACK, syn = XS_TCP_SYN;
	__u64 expired;

	prog_env_timeouts = &short_timeouts;
	if (!ASSERT_EQ(prog_env_open(&env, 4096, XDP_PASS), 0, "load") ||
	    !ASSERT_EQ(prog_env_targets(&env, XS_ALGO_JUMP, 4, 2, (const __u64[2]){ 1, 2 }), 0,
		       "targets"))
		goto out;
	env.pool.hdr.n_buckets = 1;

	/* TCP, 400 ms: traffic every 150 ms for 1.2 s keeps it; 600 ms idle ends it. */
	ASSERT_EQ(pinned_on_0(IPPROTO_TCP, 1, syn), 0, "tcp flow pinned");
	for (int k = 0; k < 8; k++) {
		sleep_ms(150);
		ASSERT_EQ(send_pkt(IPPROTO_TCP, 1, ack), 0, "tcp flow with traffic stays");
	}
	expired = counter(XS_C_FLOW_EXPIRED);
	sleep_ms(600);
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 1, ack), 1, "tcp flow idle 600 ms is decided afresh");
	ASSERT_EQ(counter(XS_C_FLOW_EXPIRED) - expired, 1, "flow_expired counted once");

	/* UDP, 200 ms: 120 ms idle keeps it, 350 ms ends it. */
	ASSERT_EQ(pinned_on_0(IPPROTO_UDP, 2, 0), 0, "udp flow pinned");
	sleep_ms(120);
	ASSERT_EQ(send_pkt(IPPROTO_UDP, 2, 0), 0, "udp flow idle 120 ms stays");
	sleep_ms(350);
	ASSERT_EQ(send_pkt(IPPROTO_UDP, 2, 0), 1, "udp flow idle 350 ms is decided afresh");

	/* FIN shortens TCP to 100 ms: 250 ms after it the flow is gone, not at 400. */
	ASSERT_EQ(pinned_on_0(IPPROTO_TCP, 3, syn), 0, "tcp flow pinned");
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 3, XS_TCP_FIN | ack), 0, "FIN still reaches the flow's cpu");
	sleep_ms(50);
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 3, ack), 0, "last ACK 50 ms after FIN stays");
	sleep_ms(250);
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 3, ack), 1, "250 ms after FIN the flow is decided afresh");

	/* The same without FIN: 250 ms idle is within the TCP timeout. */
	ASSERT_EQ(pinned_on_0(IPPROTO_TCP, 4, syn), 0, "tcp flow pinned");
	sleep_ms(250);
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 4, ack), 0, "without FIN 250 ms idle stays");

	/* RST counts as FIN; a SYN on the tuple of a closed flow is a new connection. */
	ASSERT_EQ(pinned_on_0(IPPROTO_TCP, 5, syn), 0, "tcp flow pinned");
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 5, XS_TCP_RST), 0, "RST reaches the flow's cpu");
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 5, syn), 1, "SYN after RST is a new connection");
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 5, ack), 1, "and is pinned anew");
	ASSERT_EQ(pinned_on_0(IPPROTO_TCP, 6, syn), 0, "tcp flow pinned");
	ASSERT_EQ(send_pkt(IPPROTO_TCP, 6, syn), 0, "a retransmitted SYN of an open flow stays");
out:
	prog_env_close(&env);
	prog_env_timeouts = NULL;
}

TEST_MAIN("prog_timeouts", NULL, NULL)
